#include "config.h"

#include <limits.h>
#include <locale.h>
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

/* ---- the fast path: cJSON's tree, built into one arena ------------------------------
 *
 * A reader of plain JSON that builds exactly the tree cJSON_ParseWithLengthOpts builds
 * (the same types, strings, numbers, valueint and links, the first child's prev
 * pointing at the last) without a malloc per item, and gives up on anything it does
 * not handle itself: then cJSON parses the text, so what is accepted, the tree and
 * every error message stay cJSON's. Numbers: the span cJSON hands strtod is the JSON
 * number itself (the parser requires that no number character follows it); a
 * mantissa of at most 2^53 with a power of ten up to 22 is exact in one rounding
 * (Clinger's fast path, the correctly rounded value strtod returns), else strtod on
 * the same characters, with the locale's decimal point as cJSON does. */

enum { FAST_DEPTH = 512, FAST_NUM = 63 };

struct ilpi_json_chunk {
	struct ilpi_json_chunk *next;
	size_t used, cap;
	cJSON item[];
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
} fast;

static cJSON *
fast_item(fast *f)
{
	struct ilpi_json_chunk *c = f->d->chunks;
	cJSON *it;

	if (c == NULL || c->used == c->cap) {
		size_t cap = c == NULL ? f->hint : 2 * c->cap;
		struct ilpi_json_chunk *n = malloc(sizeof *n + cap * sizeof n->item[0]);

		if (n == NULL)
			return NULL;
		n->next = c;
		n->used = 0;
		n->cap = cap;
		f->d->chunks = c = n;
	}
	it = &c->item[c->used++];
	memset(it, 0, sizeof *it);
	return it;
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
fast_number(fast *f, cJSON *it)
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
	it->type = cJSON_Number;
	it->valuedouble = v;
	it->valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
	f->p = q;
	return 0;
}

static int fast_value(fast *f, cJSON *it);

/* An array or an object at f->p; the items link as cJSON links them. */
static int
fast_list(fast *f, cJSON *it, int object)
{
	cJSON *head = NULL, *cur = NULL;
	char close = object ? '}' : ']';

	if (++f->depth > FAST_DEPTH)
		return -1;
	f->p++;
	fast_ws(f);
	if (f->p < f->end && *f->p == close) {
		f->p++;
	} else {
		for (;;) {
			cJSON *n = fast_item(f);

			if (n == NULL)
				return -1;
			if (head == NULL) {
				head = n;
			} else {
				cur->next = n;
				n->prev = cur;
			}
			cur = n;
			if (object) {
				if (f->p == f->end || *f->p != '"' || (n->string = fast_string(f)) == NULL)
					return -1;
				fast_ws(f);
				if (f->p == f->end || *f->p != ':')
					return -1;
				f->p++;
				fast_ws(f);
			}
			if (fast_value(f, n) != 0)
				return -1;
			fast_ws(f);
			if (f->p == f->end)
				return -1;
			if (*f->p == close) {
				f->p++;
				break;
			}
			if (*f->p != ',')
				return -1;
			f->p++;
			fast_ws(f);
		}
		head->prev = cur;
	}
	f->depth--;
	it->type = object ? cJSON_Object : cJSON_Array;
	it->child = head;
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
fast_value(fast *f, cJSON *it)
{
	if (f->p == f->end)
		return -1;
	switch (*f->p) {
	case '{':
		return fast_list(f, it, 1);
	case '[':
		return fast_list(f, it, 0);
	case '"':
		it->type = cJSON_String;
		return (it->valuestring = fast_string(f)) != NULL ? 0 : -1;
	case 'n':
		it->type = cJSON_NULL;
		return fast_literal(f, "null", 4);
	case 't':
		it->type = cJSON_True;
		it->valueint = 1;
		return fast_literal(f, "true", 4);
	case 'f':
		it->type = cJSON_False;
		return fast_literal(f, "false", 5);
	default:
		return fast_number(f, it);
	}
}

void
ilpi_json_doc_free(ilpi_json_doc *d)
{
	if (d->chunks == NULL && d->strings == NULL) {
		cJSON_Delete(d->root);
	} else {
		while (d->chunks != NULL) {
			struct ilpi_json_chunk *next = d->chunks->next;

			free(d->chunks);
			d->chunks = next;
		}
		free(d->strings);
	}
	memset(d, 0, sizeof *d);
}

static int
doc_parse(ilpi_json_doc *d, const char *buf, char *own, size_t len, const char *path,
    ilp_error *err)
{
	const struct lconv *lc = localeconv();
	fast f;

	memset(d, 0, sizeof *d);
	memset(&f, 0, sizeof f);
	f.p = buf;
	f.end = buf + len;
	f.d = d;
	f.own = own;
	f.base = buf;
	f.len = len;
	/* about one item per 6 bytes of a graph file; the arena grows when not */
	f.hint = len / 6 + 16;
	f.dp = lc != NULL && lc->decimal_point != NULL && lc->decimal_point[0] != '\0' ?
	    lc->decimal_point[0] : '.';
	/* each string's copy and its NUL fit in the bytes its quoted text takes; in place,
	 * that room is only taken by the first string with an escape */
	if (len > 0 && memchr(buf, '\0', len) == NULL &&
	    (own != NULL || (d->strings = malloc(len + 1)) != NULL)) {
		f.s = d->strings;
		fast_ws(&f);
		if ((d->root = fast_item(&f)) != NULL && fast_value(&f, d->root) == 0) {
			fast_ws(&f);
			if (f.p == f.end)
				return 0;
		}
		/* the text had no NUL: each one now in it was a closing quote */
		if (own != NULL)
			for (char *z = memchr(own, '\0', len); z != NULL;
			    z = memchr(z + 1, '\0', len - (size_t)(z + 1 - own)))
				*z = '"';
	}
	ilpi_json_doc_free(d);
	if ((d->root = ilpi_json_parse(buf, len, path, err)) == NULL)
		return -1;
	return 0;
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

int
ilpi_json_header(const cJSON *root, const char *format, const char *path,
    const char *who, ilp_error *err)
{
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
	char where[160];

	snprintf(where, sizeof where, "%s%s", who != NULL ? who : "", who != NULL ? ": " : "");
	if (fmt == NULL || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, format) != 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'format': %s\"%s\"%s", path, where,
		    fmt == NULL ? "missing (expected " : "expected ", format, fmt == NULL ? ")" : "");
		return -1;
	}
	if (ver == NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': missing (expected 1)", path,
		    where);
		return -1;
	}
	if (!cJSON_IsNumber(ver)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': expected a number", path,
		    where);
		return -1;
	}
	if (ver->valuedouble != 1) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': unsupported version %g (this "
		    "ilpart reads version 1)", path, where, ver->valuedouble);
		return -1;
	}
	return 0;
}
