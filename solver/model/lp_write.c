/*
 * lp_write.c - the model as a file: CPLEX LP text written by ilpart itself (the text
 * GLPK's writer makes, byte for byte, without its cost), GLPK's own LP and MPS writers,
 * and the atomic write of --write-lp / --write-mps.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glpk.h>

#include "graph/fileio.h"
#include "graph/strbuf.h"
#include "solver/model/glpk_env.h"
#include "solver/model/lp_write.h"

/* ---- CPLEX LP text ------------------------------------------------------------------
 *
 * The text glp_write_lp (GLPK 5.0) writes for the model, byte for byte, without its
 * scratch file and without a formatted print per term: the same sections and lines,
 * terms in the order GLPK keeps a row's elements, a line broken before a term that
 * would take it past 72 characters, numbers as "%.15g" (an integer below 1e15 prints
 * its digits, so those skip printf). GLPK makes up names for rows and columns whose
 * names the format cannot carry; when a name is missing, non-ASCII or not valid as
 * it stands after GLPK's adjustments, or the problem is empty, glp_write_lp itself
 * writes the file (lp_text returns 1). tests/test_solver.c compares the two. */

/* Characters a name may hold in the LP format (GLPK's CHAR_SET and ASCII letters and
 * digits), after GLPK's adjustments (' ' -> '_', '-' -> '~', '[' -> '(', ']' -> ')'):
 * 1 as it stands, 2 adjusted, 0 not at all. */
static unsigned char lp_chars[256];

static void
lp_chars_init(void)
{
	static const char set[] = "!\"#$%&()/,.;?@_`'{}|~";

	if (lp_chars['a'] != 0)
		return;
	for (int c = 0; c < 128; c++)
		lp_chars[c] = (unsigned char)(((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (c != '\0' && strchr(set, c) != NULL)) ? 1 : 0);
	lp_chars[' '] = lp_chars['-'] = lp_chars['['] = lp_chars[']'] = 2;
}

/* name as GLPK writes it: name itself (*owned = 0) or an adjusted copy (*owned = 1), or
 * NULL when GLPK would make one up (missing, a leading '.' or digit, a character the
 * format cannot carry, or non-ASCII: isalnum of the locale is left to GLPK). */
static const char *
lp_name(const char *name, int *owned)
{
	int adjust = 0;
	char *s;

	*owned = 0;
	if (name == NULL || *name == '.' || (*name >= '0' && *name <= '9'))
		return NULL;
	for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++) {
		if (lp_chars[*c] == 0)
			return NULL;
		adjust |= lp_chars[*c] == 2;
	}
	if (!adjust)
		return name;
	if ((s = strdup(name)) == NULL)
		return NULL;
	for (char *c = s; *c != '\0'; c++)
		*c = *c == ' ' ? '_' : *c == '-' ? '~' : *c == '[' ? '(' : *c == ']' ? ')' : *c;
	*owned = 1;
	return s;
}

/* "%.15g" of v into out (at least 32 bytes); its length. */
static size_t
lp_num(char *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
		char tmp[24];
		size_t n = 0, k = 0;
		uint64_t u = (uint64_t)fabs(v);

		do
			tmp[n++] = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (v < 0)
			out[k++] = '-';
		while (n > 0)
			out[k++] = tmp[--n];
		out[k] = '\0';
		return k;
	}
	return (size_t)snprintf(out, 32, "%.*g", DBL_DIG, v);
}

/* Recently printed coefficients: a model repeats the same few costs many times. */
enum { LP_CACHE = 64 };

typedef struct lp_cached {
	uint64_t bits;
	uint8_t len, used;
	char text[32];
} lp_cached;

typedef struct lp_line {
	ilpi_buf *b;
	char *line;               /* the line being assembled, cap bytes */
	size_t len, cap;
	long count;               /* lines written */
	lp_cached cache[LP_CACHE];
} lp_line;

/* lp_num through the cache of printed values. */
static size_t
lp_num_cached(lp_line *l, char *out, double v)
{
	uint64_t bits;
	lp_cached *e;

	memcpy(&bits, &v, sizeof bits);
	e = &l->cache[(bits ^ bits >> 29 ^ bits >> 47) % LP_CACHE];
	if (!e->used || e->bits != bits) {
		e->len = (uint8_t)lp_num(e->text, v);
		e->bits = bits;
		e->used = 1;
	}
	memcpy(out, e->text, (size_t)e->len + 1);
	return e->len;
}

static void
lp_flush(lp_line *l)
{
	ilpi_buf_add(l->b, l->line, l->len);
	ilpi_buf_add(l->b, "\n", 1);
	l->len = 0;
	l->count++;
}

/* Room for tl more bytes (and a NUL) on the line, flushed first when wrap and the term
 * would take it past 72 characters: 0, or -1 out of memory. */
static int
lp_reserve(lp_line *l, int wrap, size_t tl)
{
	if (wrap && l->len + tl > 72)
		lp_flush(l);
	if (l->len + tl + 1 > l->cap) {
		size_t cap = 2 * (l->len + tl + 1);
		char *p = realloc(l->line, cap);

		if (p == NULL)
			return -1;
		l->line = p;
		l->cap = cap;
	}
	return 0;
}

/* Appends `parts` (n of them) as one term; wrap: break the line first when it would
 * exceed 72 characters. */
static int
lp_term(lp_line *l, int wrap, const char *const *parts, int n)
{
	size_t tl = 0, pl[4]; /* n <= 4 at every call */

	for (int k = 0; k < n; k++)
		tl += pl[k] = strlen(parts[k]);
	if (lp_reserve(l, wrap, tl) != 0)
		return -1;
	for (int k = 0; k < n; k++) {
		memcpy(l->line + l->len, parts[k], pl[k]);
		l->len += pl[k];
	}
	return 0;
}

static void
lp_put(lp_line *l, const char *s)
{
	ilpi_buf_puts(l->b, s);
	l->count++;
}

/* A term " + c name" / " - c name" / " + name" / " - name" of coefficient v; nlen is
 * strlen(name). */
static int
lp_coef_term(lp_line *l, double v, const char *name, size_t nlen)
{
	const char *sign = v > 0 ? " + " : " - ";
	int unit = v == 1.0 || v == -1.0;
	char term[320], num[32];
	size_t tl = 3, nl = unit ? 0 : lp_num_cached(l, num, v > 0 ? v : -v);

	if (nlen > 255) /* longer than GLPK allows a name: the general path */
		return unit ? lp_term(l, 1, (const char *[]){ sign, name }, 2) :
		    lp_term(l, 1, (const char *[]){ sign, num, " ", name }, 4);
	memcpy(term, sign, 3);
	if (!unit) {
		memcpy(term + 3, num, nl);
		tl += nl;
		term[tl++] = ' ';
	}
	memcpy(term + tl, name, nlen);
	tl += nlen;
	if (lp_reserve(l, 1, tl) != 0)
		return -1;
	memcpy(l->line + l->len, term, tl);
	l->len += tl;
	return 0;
}

/* What lp_text's sections share: the model, the text, the column names (made up or
 * escaped as lp_name gives them), which columns appear in a row, row scratch. */
typedef struct lp_doc {
	glp_prob *lp;
	ilpi_buf *b;
	lp_line l;
	int m, n;
	const char **cname, *oname;
	size_t *clen;
	char *cown, *has;
	int oown;
	int *ind;
	double *val;
} lp_doc;

/* The names of the columns and the objective, and which columns some row holds. 0, 1
 * when a name cannot be written (the caller falls back), -1 out of memory. */
static int
lp_doc_names(lp_doc *d)
{
	int own, len;

	d->cname = calloc((size_t)d->n + 1, sizeof *d->cname);
	d->clen = malloc(((size_t)d->n + 1) * sizeof *d->clen);
	d->cown = calloc((size_t)d->n + 1, 1);
	d->has = calloc((size_t)d->n + 1, 1);
	d->ind = malloc(((size_t)d->n + 1) * sizeof *d->ind);
	d->val = malloc(((size_t)d->n + 1) * sizeof *d->val);
	if (d->cname == NULL || d->clen == NULL || d->cown == NULL || d->has == NULL ||
	    d->ind == NULL || d->val == NULL)
		return -1;
	for (int j = 1; j <= d->n; j++) {
		if ((d->cname[j] = lp_name(glp_get_col_name(d->lp, j), &own)) == NULL)
			return 1;
		d->cown[j] = (char)own;
		d->clen[j] = strlen(d->cname[j]);
	}
	/* the objective's made-up name is always "obj" */
	if ((d->oname = lp_name(glp_get_obj_name(d->lp), &d->oown)) == NULL)
		d->oname = "obj";
	for (int i = 1; i <= d->m; i++) {
		const char *rn = lp_name(glp_get_row_name(d->lp, i), &own);

		if (rn == NULL)
			return 1;
		if (own)
			free((char *)rn);
		len = glp_get_mat_row(d->lp, i, d->ind, NULL);
		for (int k = 1; k <= len; k++)
			d->has[d->ind[k]] = 1;
	}
	return 0;
}

static void
lp_doc_free(lp_doc *d)
{
	for (int j = 1; d->cname != NULL && d->cown != NULL && j <= d->n; j++)
		if (d->cown[j])
			free((char *)d->cname[j]);
	free(d->cname);
	free(d->clen);
	free(d->cown);
	if (d->oown)
		free((char *)d->oname);
	free(d->has);
	free(d->ind);
	free(d->val);
	free(d->l.line);
}

/* "Minimize" and the objective: every column with a coefficient or in no row. */
static int
lp_objective(lp_doc *d)
{
	lp_line *l = &d->l;
	char num[32];
	int len = 0;

	lp_put(l, "\n");
	lp_put(l, glp_get_obj_dir(d->lp) == GLP_MIN ? "Minimize\n" : "Maximize\n");
	if (lp_term(l, 0, (const char *[]){ " ", d->oname, ":" }, 3) != 0)
		return -1;
	for (int j = 1; j <= d->n; j++) {
		double c = glp_get_obj_coef(d->lp, j);

		if (c == 0.0 && d->has[j])
			continue;
		len++;
		if (c == 0.0 ? lp_term(l, 1, (const char *[]){ " + 0 ", d->cname[j] }, 2) :
		    lp_coef_term(l, c, d->cname[j], d->clen[j]))
			return -1;
	}
	if (len == 0 && lp_term(l, 0, (const char *[]){ " 0 ", d->cname[1] }, 2) != 0)
		return -1;
	lp_flush(l);
	if (glp_get_obj_coef(d->lp, 0) != 0.0) {
		lp_num(num, glp_get_obj_coef(d->lp, 0));
		ilpi_buf_printf(d->b, "\\* constant term = %s *\\\n", num);
		l->count++;
	}
	return 0;
}

/* "Subject To": one constraint a row; a double-bounded row gets a range column ~r_I. */
static int
lp_rows(lp_doc *d)
{
	lp_line *l = &d->l;
	char num[32], head[64];
	const char *rname;
	int own, flag, len;

	lp_put(l, "\n");
	lp_put(l, "Subject To\n");
	for (int i = 1; i <= d->m; i++) {
		int type = glp_get_row_type(d->lp, i);

		if (type == GLP_FR)
			continue;
		if ((rname = lp_name(glp_get_row_name(d->lp, i), &own)) == NULL)
			return -1;
		flag = lp_term(l, 0, (const char *[]){ " ", rname, ":" }, 3);
		if (own)
			free((char *)rname);
		if (flag != 0)
			return -1;
		len = glp_get_mat_row(d->lp, i, d->ind, d->val);
		for (int k = 1; k <= len; k++)
			if (lp_coef_term(l, d->val[k], d->cname[d->ind[k]], d->clen[d->ind[k]]) != 0)
				return -1;
		if (type == GLP_DB) {
			snprintf(head, sizeof head, " - ~r_%d", i);
			if (lp_term(l, 1, (const char *[]){ head }, 1) != 0)
				return -1;
		} else if (len == 0 &&
		    lp_term(l, 0, (const char *[]){ " 0 ", d->cname[1] }, 2) != 0) {
			return -1;
		}
		lp_num(num, type == GLP_UP ? glp_get_row_ub(d->lp, i) : glp_get_row_lb(d->lp, i));
		if (lp_term(l, 1, (const char *[]){ type == GLP_LO ? " >= " : type == GLP_UP ?
		    " <= " : " = ", num }, 2) != 0)
			return -1;
		lp_flush(l);
	}
	lp_put(l, "\n");
	return 0;
}

/* " LB <= NAME <= UB" and the other forms of a column's bounds. */
static void
lp_col_bounds(ilpi_buf *b, const char *name, int type, double lb, double ub)
{
	char num[32], num2[32];

	lp_num(num, type == GLP_UP ? ub : lb);
	lp_num(num2, ub);
	ilpi_buf_add(b, " ", 1);
	if (type == GLP_FR) {
		ilpi_buf_puts(b, name);
		ilpi_buf_puts(b, " free\n");
		return;
	}
	if (type == GLP_UP)
		ilpi_buf_puts(b, "-Inf <= ");
	else if (type == GLP_DB) {
		ilpi_buf_puts(b, num);
		ilpi_buf_puts(b, " <= ");
	}
	ilpi_buf_puts(b, name);
	ilpi_buf_puts(b, type == GLP_LO ? " >= " : type == GLP_FX ? " = " : " <= ");
	ilpi_buf_puts(b, type == GLP_DB ? num2 : num);
	ilpi_buf_add(b, "\n", 1);
}

/* "Bounds" (the range columns, then every column not >= 0) and "Generals". */
static void
lp_bounds(lp_doc *d)
{
	lp_line *l = &d->l;
	char num[32];
	int flag = 0;

	for (int i = 1; i <= d->m; i++) {
		if (glp_get_row_type(d->lp, i) != GLP_DB)
			continue;
		if (!flag)
			lp_put(l, "Bounds\n"), flag = 1;
		lp_num(num, glp_get_row_ub(d->lp, i) - glp_get_row_lb(d->lp, i));
		ilpi_buf_printf(d->b, " 0 <= ~r_%d <= %s\n", i, num);
		l->count++;
	}
	for (int j = 1; j <= d->n; j++) {
		int type = glp_get_col_type(d->lp, j);
		double lb = glp_get_col_lb(d->lp, j), ub = glp_get_col_ub(d->lp, j);

		if (type == GLP_LO && lb == 0.0)
			continue;
		if (!flag)
			lp_put(l, "Bounds\n"), flag = 1;
		lp_col_bounds(d->b, d->cname[j], type, lb, ub);
		l->count++;
	}
	if (flag)
		lp_put(l, "\n");
	flag = 0;
	for (int j = 1; j <= d->n; j++) {
		if (glp_get_col_kind(d->lp, j) == GLP_CV)
			continue;
		if (!flag)
			lp_put(l, "Generals\n"), flag = 1;
		ilpi_buf_add(d->b, " ", 1);
		ilpi_buf_puts(d->b, d->cname[j]);
		ilpi_buf_add(d->b, "\n", 1);
		l->count++;
	}
	if (flag)
		lp_put(l, "\n");
}

static int
lp_text(glp_prob *lp, ilpi_buf *b, long *lines)
{
	const char *pname = glp_get_prob_name(lp);
	lp_doc d;
	int rc;

	memset(&d, 0, sizeof d);
	d.lp = lp;
	d.b = b;
	d.l.b = b;
	d.m = glp_get_num_rows(lp);
	d.n = glp_get_num_cols(lp);
	if (!(d.m > 0 && d.n > 0))
		return 1;
	/* about 64 bytes a row and a column: the text grows without copies */
	ilpi_buf_reserve(b, 64 * ((size_t)d.m + (size_t)d.n) + 4096);
	lp_chars_init();
	if ((rc = lp_doc_names(&d)) != 0)
		goto out;
	rc = -1;
	ilpi_buf_printf(b, "\\* Problem: %s *\\\n", pname == NULL ? "Unknown" : pname);
	d.l.count++;
	if (lp_objective(&d) != 0 || lp_rows(&d) != 0)
		goto out;
	lp_bounds(&d);
	lp_put(&d.l, "End\n");
	*lines = d.l.count;
	rc = b->failed ? -1 : 0;
out:
	lp_doc_free(&d);
	return rc;
}

int
ilpi_lp_text(struct glp_prob *lp, char **text, size_t *len)
{
	ilpi_buf b;
	long lines;
	int rc;

	*text = NULL;
	*len = 0;
	ilpi_buf_init(&b);
	rc = lp_text(lp, &b, &lines);
	if (rc == 0) {
		ilpi_glpk_note("%ld lines were written", lines);
		*len = b.len;
		if ((*text = ilpi_buf_take(&b)) == NULL)
			rc = -1;
	}
	ilpi_buf_free(&b);
	return rc;
}

/* GLPK writes to a scratch file of its own; the bytes then go through
 * ilp_write_file_atomic, which never leaves a partial file and writes devices and
 * pipes (/dev/null, /dev/stdout) in place. */
int
ilpi_lp_write_glpk(struct glp_prob *lp, const char *path, int mps, ilp_error *err)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096], *text = NULL;
	size_t len;
	int fd, ret;

	snprintf(tmp, sizeof tmp, "%s/ilpart-model.XXXXXX", dir != NULL && *dir != '\0' ? dir :
	    "/tmp");
	if ((fd = mkstemp(tmp)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: scratch file: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	ret = mps ? glp_write_mps(lp, GLP_MPS_FILE, NULL, tmp) : glp_write_lp(lp, NULL, tmp);
	if (ret != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: GLPK could not write the model", path);
		unlink(tmp);
		return -1;
	}
	ret = ilpi_read_file(tmp, &text, &len, err);
	unlink(tmp);
	if (ret == 0)
		ret = ilp_write_file_atomic(path, text, len, err);
	free(text);
	return ret;
}

int
ilpi_model_write(ilpi_model *m, const char *path, int mps, ilp_error *err)
{
	char *text = NULL;
	size_t len;
	int rc;

	if (mps)
		return ilpi_lp_write_glpk(m->lp, path, mps, err);
	ilpi_glpk_note("Writing problem data to '%s'...", path);
	if ((rc = ilpi_lp_text(m->lp, &text, &len)) == 1)
		return ilpi_lp_write_glpk(m->lp, path, mps, err);
	if (rc != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", path);
		return -1;
	}
	rc = ilp_write_file_atomic(path, text, len, err);
	free(text);
	return rc;
}
