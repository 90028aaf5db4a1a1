#include "config.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/json_parse.h"

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Ends inside a string or with open brackets: the file was cut short. Also gives the
 * deepest bracket nesting, which cJSON limits. */
static int
truncated(const char *buf, size_t len, long *max_depth)
{
	long depth = 0;
	int in_str = 0;

	*max_depth = 0;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (++depth > *max_depth)
				*max_depth = depth;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return in_str || depth > 0;
}

static void
position(const char *buf, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		*col = buf[i] == '\n' ? 1 : *col + 1;
		*line += buf[i] == '\n';
	}
}

/* How much of the text at an error to quote: up to 12 bytes, the rest of its line.
 * buf need not be NUL-terminated, so never past len. */
static int
quote_len(const char *s, size_t left)
{
	int n = 0;

	while ((size_t)n < left && n < 12 && s[n] != '\n' && s[n] != '\r')
		n++;
	return n;
}

static void
parse_error(const char *buf, size_t len, const char *path, ilp_error *err)
{
	const char *at = cJSON_GetErrorPtr();
	size_t off = at != NULL && at >= buf && at <= buf + len ? (size_t)(at - buf) : len;
	size_t line, col;
	long deepest;
	int cut = truncated(buf, len, &deepest);

	if (cut)
		off = len;
	position(buf, off, &line, &col);
	while (off < len && is_space(buf[off]))
		off++;
	if (deepest > CJSON_NESTING_LIMIT)
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON: nested more than %d "
		    "levels deep", path, line, col, CJSON_NESTING_LIMIT);
	else if (off >= len || cut)
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON: unexpected end of file "
		    "(truncated?)", path, line, col);
	else
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON near '%.*s'", path, line,
		    col, quote_len(buf + off, len - off), buf + off);
}

/* The length of the UTF-8 sequence at s (at most left bytes), or 0 when it is not one:
 * no overlong form, no surrogate, nothing above U+10FFFF. */
static size_t
utf8_len(const unsigned char *s, size_t left)
{
	unsigned c = s[0];
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	unsigned lo = 0x80, hi = 0xbf;

	if (c < 0xc2 || c > 0xf4 || left < n)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return n;
}

/* What the JSON parsers accept but a file of ilpart's must not hold (docs/format.md:
 * UTF-8 text): bytes that are not UTF-8, and the escape \u0000, which would end the
 * string there (a name "a\u0000b" would be read as "a"). Every parser checks the text
 * here first, so all give the same answer. */
static int
text_problem(const char *buf, size_t len, size_t *at)
{
	const unsigned char *u = (const unsigned char *)buf;
	size_t i = 0;

	while (i < len) {
		uint64_t w;

		if (i + 8 <= len) {
			memcpy(&w, u + i, 8);
			if ((w & UINT64_C(0x8080808080808080)) == 0) {
				i += 8;
				continue;
			}
		}
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if (utf8_len(u + i, len - i) == 0) {
			*at = i;
			return 1;
		}
		i += utf8_len(u + i, len - i);
	}
	/* A backslash is only valid in a string, where it escapes the next character. */
	for (const char *b = memchr(buf, '\\', len); b != NULL && b + 1 < buf + len;
	    b = memchr(b + 2, '\\', len - (size_t)(b + 2 - buf))) {
		if (b[1] == 'u' && buf + len - b >= 6 && memcmp(b + 2, "0000", 4) == 0) {
			*at = (size_t)(b - buf);
			return 2;
		}
		if (b + 2 >= buf + len)
			break;
	}
	return 0;
}

static int
text_check(const char *buf, size_t len, const char *path, ilp_error *err)
{
	size_t at = 0, line, col;
	int what = text_problem(buf, len, &at);

	if (what == 0)
		return 0;
	position(buf, at, &line, &col);
	if (what == 1)
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid text: byte 0x%02x is not UTF-8",
		    path, line, col, (unsigned char)buf[at]);
	else
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid text: a string holds \\u0000 "
		    "(a NUL character)", path, line, col);
	return -1;
}

cJSON *
ilpi_json_parse(const char *buf, size_t len, const char *path, ilp_error *err)
{
	const char *end = NULL;
	size_t ws = 0, line, col;
	cJSON *root;

	while (ws < len && is_space(buf[ws]))
		ws++;
	if (ws == len) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: invalid JSON: empty file", path);
		return NULL;
	}
	if (memchr(buf, '\0', len) != NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: invalid JSON: contains a NUL byte", path);
		return NULL;
	}
	if (text_check(buf, len, path, err) != 0)
		return NULL;
	root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (root == NULL) {
		parse_error(buf, len, path, err);
		return NULL;
	}
	while (end != NULL && end < buf + len && is_space(*end))
		end++;
	if (end != NULL && end < buf + len) {
		position(buf, (size_t)(end - buf), &line, &col);
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON: trailing characters after "
		    "the document", path, line, col);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/* ---- the fast path: the values cJSON would read, built into one arena ---------------
 *
 * A reader of plain JSON that builds the values cJSON_ParseWithLengthOpts would (the
 * same types, strings, numbers and order) as 32-byte ilpi_jv items without a malloc
 * per item, and gives up on anything it does not handle itself: then cJSON parses the
 * text and its tree is copied into the arena, so what is accepted, the values and every
 * error message stay cJSON's. Numbers: the span cJSON hands strtod is the JSON
 * number itself (the parser requires that no number character follows it); a
 * mantissa of at most 2^53 with a power of ten up to 22 is exact in one rounding
 * (Clinger's fast path, the correctly rounded value strtod returns), else strtod on
 * the same characters, with the locale's decimal point as cJSON does. */

enum { FAST_DEPTH = 512, FAST_NUM = 63 };

struct ilpi_json_chunk {
	struct ilpi_json_chunk *next;
	size_t used, cap;
	ilpi_jv item[];
};

typedef struct fast {
	const char *p, *end;
	ilpi_json_doc *d;
	char *s;                /* next free byte of d->strings */
	char *own;              /* the text itself when it may be written (in place), or NULL */
	const char *base;       /* its start: the text at p is own[p - base] */
	size_t len;
	size_t hint;            /* items in the first chunk */
	char dp;                /* the locale's decimal point */
	int depth;
	/* streaming (ilpi_json_doc_stream): the root's member `key`, an array, goes to
	 * each() element by element; `items` is where values are made (d, or `scratch`
	 * while an element is read), `streamed` counts the arrays handed over */
	ilpi_json_doc *items;
	ilpi_json_doc scratch;
	const char *key;
	int (*each)(void *ctx, const ilpi_jv *v);
	void *ctx;
	int streamed;
} fast;

/* A zeroed value in d's arena (a first chunk of `hint` values), NULL when out of memory. */
static ilpi_jv *
doc_item(ilpi_json_doc *d, size_t hint)
{
	struct ilpi_json_chunk *c = d->chunks;
	ilpi_jv *it;

	if (c == NULL || c->used == c->cap) {
		size_t cap = c == NULL ? hint : 2 * c->cap;
		struct ilpi_json_chunk *n = malloc(sizeof *n + cap * sizeof n->item[0]);

		if (n == NULL)
			return NULL;
		n->next = c;
		n->used = 0;
		n->cap = cap;
		d->chunks = c = n;
	}
	it = &c->item[c->used++];
	memset(it, 0, sizeof *it);
	return it;
}

static ilpi_jv *
fast_item(fast *f)
{
	return doc_item(f->items, f->items == f->d ? f->hint : 256);
}

static void
fast_ws(fast *f)
{
	const char *p = f->p, *end = f->end;

	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	f->p = p;
}

/* A string at f->p (at its quote) into the string arena: its copy, or NULL. */
static char *
fast_string(fast *f)
{
	const char *q = f->p + 1, *end = f->end;
	char *o, *out;

	/* in place: a string without escapes ends where its closing quote was */
	if (f->own != NULL) {
		const char *e = q;

		while (e < end && *e != '"' && *e != '\\')
			e++;
		if (e < end && *e == '"') {
			f->own[e - f->base] = '\0';
			f->p = e + 1;
			return f->own + (q - f->base);
		}
		if (f->s == NULL) {
			if ((f->d->strings = malloc(f->len + 1)) == NULL)
				return NULL;
			f->s = f->d->strings;
		}
	}
	o = out = f->s;
	for (;;) {
		if (q == end)
			return NULL;
		if (*q == '"')
			break;
		if (*q != '\\') {
			*o++ = *q++;
			continue;
		}
		if (q + 1 == end)
			return NULL;
		switch (q[1]) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case '"': case '\\': case '/': *o++ = q[1]; break;
		default: return NULL;   /* \u and anything invalid: cJSON's */
		}
		q += 2;
	}
	*o++ = '\0';
	f->s = o;
	f->p = q + 1;
	return out;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
fast_number(fast *f, ilpi_jv *it)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *q = f->p, *end = f->end, *s = f->p;
	uint64_t m = 0;
	int digits = 0, frac = 0, neg = 0, e = 0, eneg = 0;
	double v;

	if (*q == '-')
		neg = 1, q++;
	if (q == end || !is_digit(*q))
		return -1;
	if (*q == '0') {
		q++;
		digits = 1;
	} else {
		for (; q < end && is_digit(*q); q++, digits++)
			m = m * 10 + (uint64_t)(*q - '0');
	}
	if (q < end && *q == '.') {
		if (++q == end || !is_digit(*q))
			return -1;
		for (; q < end && is_digit(*q); q++, digits++, frac++)
			m = m * 10 + (uint64_t)(*q - '0');
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		if (++q < end && (*q == '+' || *q == '-'))
			eneg = *q++ == '-';
		if (q == end || !is_digit(*q))
			return -1;
		for (; q < end && is_digit(*q); q++)
			if (e < 100000)
				e = e * 10 + (*q - '0');
	}
	/* cJSON would hand strtod a longer span, or cut this one short */
	if ((q < end && (is_digit(*q) || *q == '+' || *q == '-' || *q == 'e' || *q == 'E' ||
	    *q == '.')) || q - s >= FAST_NUM)
		return -1;
	e = (eneg ? -e : e) - frac;
	if (digits <= 19 && m <= (UINT64_C(1) << 53) && e >= -22 && e <= 22) {
		v = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
		if (neg)
			v = -v;
	} else {
		char num[FAST_NUM + 1], *after;
		size_t n = (size_t)(q - s);

		memcpy(num, s, n);
		num[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (num[i] == '.')
				num[i] = f->dp;
		v = strtod(num, &after);
		if (after != num + n)
			return -1;
	}
	it->type = ILPI_JV_NUMBER;
	it->u.num = v;
	f->p = q;
	return 0;
}

static int fast_value(fast *f, ilpi_jv *it);
static ilpi_jv *from_cjson(fast *f, const cJSON *c);

/* After a value of a list closed by `close`: 1 at the close (consumed), 0 at a comma
 * (consumed, and the blanks after it), -1 at anything else. */
static int
fast_next(fast *f, char close)
{
	fast_ws(f);
	if (f->p == f->end)
		return -1;
	if (*f->p == close) {
		f->p++;
		return 1;
	}
	if (*f->p != ',')
		return -1;
	f->p++;
	fast_ws(f);
	return 0;
}

/* The streamed array at f->p (at its bracket): each element is read into the scratch
 * arena (emptied before each one), handed to f->each and dropped. `it` becomes an
 * array of no elements. -1 when the text is not plain JSON or each() refused. */
static int
fast_stream(fast *f, ilpi_jv *it)
{
	if (++f->depth > FAST_DEPTH)
		return -1;
	f->p++;
	fast_ws(f);
	if (f->p < f->end && *f->p == ']') {
		f->p++;
	} else {
		for (;;) {
			struct ilpi_json_chunk *c = f->scratch.chunks;
			ilpi_jv *e;
			int rc;

			/* keep the newest (largest) chunk, empty */
			if (c != NULL) {
				while (c->next != NULL) {
					struct ilpi_json_chunk *old = c->next;

					c->next = old->next;
					free(old);
				}
				c->used = 0;
			}
			f->items = &f->scratch;
			e = fast_item(f);
			rc = e != NULL ? fast_value(f, e) : -1;
			f->items = f->d;
			if (rc != 0 || f->each(f->ctx, e) != 0)
				return -1;
			if ((rc = fast_next(f, ']')) != 0) {
				if (rc < 0)
					return -1;
				break;
			}
		}
	}
	f->depth--;
	f->streamed++;
	it->type = ILPI_JV_ARRAY;
	return 0;
}

/* An array or an object at f->p: its values in order. */
static int
fast_list(fast *f, ilpi_jv *it, int object)
{
	ilpi_jv *head = NULL, *cur = NULL;
	uint32_t count = 0;
	char close = object ? '}' : ']';
	int rc;

	if (++f->depth > FAST_DEPTH)
		return -1;
	f->p++;
	fast_ws(f);
	if (f->p < f->end && *f->p == close) {
		f->p++;
	} else {
		for (;;) {
			ilpi_jv *n = fast_item(f);

			if (n == NULL || count == UINT32_MAX)
				return -1;
			if (head == NULL)
				head = n;
			else
				cur->next = n;
			cur = n;
			count++;
			if (object) {
				if (f->p == f->end || *f->p != '"' || (n->key = fast_string(f)) == NULL)
					return -1;
				fast_ws(f);
				if (f->p == f->end || *f->p != ':')
					return -1;
				f->p++;
				fast_ws(f);
			}
			if (object && f->depth == 1 && f->key != NULL && f->p < f->end &&
			    *f->p == '[' && strcmp(n->key, f->key) == 0) {
				if (fast_stream(f, n) != 0)
					return -1;
			} else if (fast_value(f, n) != 0) {
				return -1;
			}
			if ((rc = fast_next(f, close)) != 0) {
				if (rc < 0)
					return -1;
				break;
			}
		}
	}
	f->depth--;
	it->type = object ? ILPI_JV_OBJECT : ILPI_JV_ARRAY;
	it->u.child = head;
	it->count = count;
	return 0;
}

static int
fast_literal(fast *f, const char *word, size_t n)
{
	if ((size_t)(f->end - f->p) < n || memcmp(f->p, word, n) != 0)
		return -1;
	f->p += n;
	return 0;
}

static int
fast_value(fast *f, ilpi_jv *it)
{
	if (f->p == f->end)
		return -1;
	switch (*f->p) {
	case '{':
		return fast_list(f, it, 1);
	case '[':
		return fast_list(f, it, 0);
	case '"':
		it->type = ILPI_JV_STRING;
		return (it->u.str = fast_string(f)) != NULL ? 0 : -1;
	case 'n':
		it->type = ILPI_JV_NULL;
		return fast_literal(f, "null", 4);
	case 't':
		it->type = ILPI_JV_TRUE;
		return fast_literal(f, "true", 4);
	case 'f':
		it->type = ILPI_JV_FALSE;
		return fast_literal(f, "false", 5);
	default:
		return fast_number(f, it);
	}
}

void
ilpi_json_doc_free(ilpi_json_doc *d)
{
	while (d->chunks != NULL) {
		struct ilpi_json_chunk *next = d->chunks->next;

		free(d->chunks);
		d->chunks = next;
	}
	free(d->strings);
	cJSON_Delete(d->cj);
	memset(d, 0, sizeof *d);
}

/* cJSON's tree as values in the arena (strings stay cJSON's: d->cj is kept). */
static ilpi_jv *
from_cjson(fast *f, const cJSON *c)
{
	ilpi_jv *v = fast_item(f), *cur = NULL;

	if (v == NULL)
		return NULL;
	switch (c->type & 0xff) {
	case cJSON_False: v->type = ILPI_JV_FALSE; break;
	case cJSON_True: v->type = ILPI_JV_TRUE; break;
	case cJSON_NULL: v->type = ILPI_JV_NULL; break;
	case cJSON_Number: v->type = ILPI_JV_NUMBER; v->u.num = c->valuedouble; break;
	case cJSON_String: v->type = ILPI_JV_STRING; v->u.str = c->valuestring; break;
	case cJSON_Array: v->type = ILPI_JV_ARRAY; break;
	case cJSON_Object: v->type = ILPI_JV_OBJECT; break;
	default: return NULL;   /* raw or invalid: not from a parse */
	}
	if (v->type == ILPI_JV_ARRAY || v->type == ILPI_JV_OBJECT)
		for (const cJSON *e = c->child; e != NULL; e = e->next) {
			ilpi_jv *n = from_cjson(f, e);

			if (n == NULL || v->count == UINT32_MAX)
				return NULL;
			n->key = v->type == ILPI_JV_OBJECT ? e->string : NULL;
			if (cur == NULL)
				v->u.child = n;
			else
				cur->next = n;
			cur = n;
			v->count++;
		}
	return v;
}

const ilpi_jv *
ilpi_jv_get(const ilpi_jv *obj, const char *key)
{
	const ilpi_jv *m;

	if (!ilpi_jv_is_object(obj) || key == NULL)
		return NULL;
	for (m = obj->u.child; m != NULL; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

int
ilpi_jv_same_as_cjson(const ilpi_jv *a, const cJSON *b)
{
	static const int types[] = { cJSON_NULL, cJSON_False, cJSON_True, cJSON_Number,
		cJSON_String, cJSON_Array, cJSON_Object };
	const cJSON *e;
	const ilpi_jv *x;
	uint32_t n = 0;

	if (a == NULL || b == NULL || a->type > ILPI_JV_OBJECT ||
	    types[a->type] != (b->type & 0xff))
		return a == NULL && b == NULL;
	switch (a->type) {
	case ILPI_JV_NUMBER:
		return memcmp(&a->u.num, &b->valuedouble, sizeof a->u.num) == 0;
	case ILPI_JV_STRING:
		return b->valuestring != NULL && strcmp(a->u.str, b->valuestring) == 0;
	case ILPI_JV_ARRAY:
	case ILPI_JV_OBJECT:
		for (x = a->u.child, e = b->child; x != NULL && e != NULL; x = x->next, e = e->next) {
			if (a->type == ILPI_JV_OBJECT ? e->string == NULL || x->key == NULL ||
			    strcmp(x->key, e->string) != 0 : x->key != NULL)
				return 0;
			if (!ilpi_jv_same_as_cjson(x, e))
				return 0;
			n++;
		}
		return x == NULL && e == NULL && n == a->count;
	default:
		return 1;
	}
}

/* A parser of buf[0..len) into the emptied document d (own: buf itself, writable,
 * for strings in place; NULL: copies), its arena grown `hint` items at a time. */
static void
fast_init(fast *f, ilpi_json_doc *d, const char *buf, char *own, size_t len, size_t hint)
{
	const struct lconv *lc = localeconv();

	memset(d, 0, sizeof *d);
	memset(f, 0, sizeof *f);
	f->p = buf;
	f->end = buf + len;
	f->d = d;
	f->items = d;
	f->own = own;
	f->base = buf;
	f->len = len;
	f->hint = hint;
	f->dp = lc != NULL && lc->decimal_point != NULL && lc->decimal_point[0] != '\0' ?
	    lc->decimal_point[0] : '.';
}

static int
doc_parse(ilpi_json_doc *d, const char *buf, char *own, size_t len, const char *path,
    ilp_error *err)
{
	fast f;

	/* about one item per 6 bytes of a graph file; the arena grows when not */
	fast_init(&f, d, buf, own, len, len / 6 + 16);
	/* each string's copy and its NUL fit in the bytes its quoted text takes; in place,
	 * that room is only taken by the first string with an escape */
	if (len > 0 && memchr(buf, '\0', len) == NULL && text_check(buf, len, path, err) != 0)
		return -1;
	if (len > 0 && memchr(buf, '\0', len) == NULL &&
	    (own != NULL || (d->strings = malloc(len + 1)) != NULL)) {
		f.s = d->strings;
		fast_ws(&f);
		if ((d->root = fast_item(&f)) != NULL && fast_value(&f, d->root) == 0) {
			fast_ws(&f);
			if (f.p == f.end)
				return 0;
		}
		if (own != NULL)
			ilpi_json_undo_in_place(own, len);
	}
	ilpi_json_doc_free(d);
	if ((d->cj = ilpi_json_parse(buf, len, path, err)) == NULL)
		return -1;
	f.d = d;
	f.items = d;
	f.hint = 256;
	if ((d->root = from_cjson(&f, d->cj)) == NULL) {
		ilpi_json_doc_free(d);
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", path);
		return -1;
	}
	return 0;
}

/* The text had no NUL: each one now in it was a closing quote. */
void
ilpi_json_undo_in_place(char *buf, size_t len)
{
	for (char *z = memchr(buf, '\0', len); z != NULL;
	    z = memchr(z + 1, '\0', len - (size_t)(z + 1 - buf)))
		*z = '"';
}

int
ilpi_json_doc_stream(ilpi_json_doc *d, char *buf, size_t len, const char *key,
    int (*each)(void *ctx, const ilpi_jv *v), void *ctx)
{
	fast f;
	size_t at;
	int rc = 1;

	/* the streamed elements are most of a graph file */
	fast_init(&f, d, buf, buf, len, 1024);
	/* text_check's refusals: the tree reader gives them */
	if (len == 0 || memchr(buf, '\0', len) != NULL || text_problem(buf, len, &at) != 0)
		return 1;
	f.key = key;
	f.each = each;
	f.ctx = ctx;
	fast_ws(&f);
	if ((d->root = fast_item(&f)) != NULL && f.p < f.end && *f.p == '{' &&
	    fast_value(&f, d->root) == 0) {
		fast_ws(&f);
		if (f.p == f.end && f.streamed == 1)
			rc = 0;
	}
	ilpi_json_doc_free(&f.scratch);
	if (rc != 0) {
		ilpi_json_doc_free(d);
		ilpi_json_undo_in_place(buf, len);
	}
	return rc;
}

int
ilpi_json_doc_parse(ilpi_json_doc *d, const char *buf, size_t len, const char *path,
    ilp_error *err)
{
	return doc_parse(d, buf, NULL, len, path, err);
}

int
ilpi_json_doc_parse_in_place(ilpi_json_doc *d, char *buf, size_t len, const char *path,
    ilp_error *err)
{
	return doc_parse(d, buf, buf, len, path, err);
}

/* The header's checks on what the two trees hold: fmt NULL when "format" is missing or
 * not a string (fmt_present tells which), ver_state 0 missing, 1 not a number, 2 ver. */
static int
header(int fmt_present, const char *fmt, int ver_state, double ver, const char *format,
    const char *path, const char *who, ilp_error *err)
{
	char where[160];

	snprintf(where, sizeof where, "%s%s", who != NULL ? who : "", who != NULL ? ": " : "");
	if (fmt == NULL || strcmp(fmt, format) != 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'format': %s\"%s\"%s", path, where,
		    !fmt_present ? "missing (expected " : "expected ", format,
		    !fmt_present ? ")" : "");
		return -1;
	}
	if (ver_state == 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': missing (expected 1)", path,
		    where);
		return -1;
	}
	if (ver_state == 1) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': expected a number", path,
		    where);
		return -1;
	}
	if (ver != 1) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': unsupported version %g (this "
		    "ilpart reads version 1)", path, where, ver);
		return -1;
	}
	return 0;
}

int
ilpi_json_header(const cJSON *root, const char *format, const char *path,
    const char *who, ilp_error *err)
{
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");

	return header(fmt != NULL, cJSON_IsString(fmt) ? fmt->valuestring : NULL,
	    ver == NULL ? 0 : !cJSON_IsNumber(ver) ? 1 : 2, ver != NULL ? ver->valuedouble : 0,
	    format, path, who, err);
}

int
ilpi_jv_header(const ilpi_jv *root, const char *format, const char *path,
    const char *who, ilp_error *err)
{
	const ilpi_jv *fmt = ilpi_jv_get(root, "format");
	const ilpi_jv *ver = ilpi_jv_get(root, "version");

	return header(fmt != NULL, ilpi_jv_is_string(fmt) ? fmt->u.str : NULL,
	    ver == NULL ? 0 : !ilpi_jv_is_number(ver) ? 1 : 2,
	    ilpi_jv_is_number(ver) ? ver->u.num : 0, format, path, who, err);
}

const char *
ilpi_json_count_problem(int is_number, double v, double max, int integral)
{
	if (!is_number)
		return "expected a number";
	if (!isfinite(v))
		return "not a finite number";
	if (v < 0)
		return "must not be negative";
	if (v > max)
		return "too large";
	if (integral && v != floor(v))
		return "expected an integer";
	return NULL;
}
