/*
 * peak_relax.c - a lower bound of the least peak from the peak rows relaxed along the
 * repeated layers (docs/solver.md "The bound along the layers").
 *
 * The model's peak rows (P >= constant + terms, every term's coefficient made
 * nonnegative: a negative one at its column's upper bound) hold for every partition.
 * Each column belongs to a segment: the tail, one window (layer) of the stack, or the
 * head; s and r by their item, other columns by the items they share side rows with.
 * A row belongs to the highest segment among its columns, then moves down to where
 * its lower terms are at least their column's sigma. Lowering a row's terms keeps it
 * a lower bound, and dropping side rows only widens the set minimised over, so with
 * sigma(v) at most v's coefficient in every row kept above v's segment,
 *
 *   LB = min over x of max over kept rows of
 *        sum_{u < w} sigma_u(x_u) + local_w(x_w, entry state)
 *
 * is a valid lower bound: per segment the front of (sigma, local peak) of a small
 * MIP, combined along the segments by a greedy per P and a bisection on P.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "graph/clock.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "solver/driver/answer.h"
#include "solver/peak/peak_cuts.h"
#include "solver/blocks/blocks_windows.h"
#include "solver/driver/stage.h"
#include "solver/driver/peak_relax.h"
#include "solver/driver/peak_relax_conj.h"


static void
pp_free(pp *p)
{
	free(p->seg);
	free(p->item);
	free(p->sigma);
	free(p->ub);
	free(p->got);
	free(p->iseg);
	free(p->row);
	free(p->tcol);
	free(p->tval);
	free(p->side);
	free(p->side_seg);
	free(p->bpos);
	free(p->lastbw);
	free(p->sbytes);
	free(p->rowop);
	free(p->sfirst);
	free(p->sseg);
	free(p->held);
	free(p->ysave);
	free(p->conj);
	free(p->gcol);
}

/* Items' segments: windows 1..n_win, the tail 0 (items in no window that read no
 * window's item), the head n_win + 1 (the other items in no window). */
static int
item_segments(pp *p)
{
	solve_ctx *c = p->c;
	size_t n = c->red.n_items, per = 0, nw;
	ilpi_blocks *b = NULL;
	ilp_error e = { 0 };
	int32_t *win = malloc((n + 1) * sizeof *win), *off = malloc((n + 1) * sizeof *off);

	if (win == NULL || off == NULL || (p->iseg = malloc((n + 1) * sizeof *p->iseg)) == NULL)
		goto fail;
	nw = 0;
	if (ilpi_blocks_plan_coarse(&c->red, 16, &b, &e) == 0 && b != NULL)
		nw = ilpi_blocks_windows(b, win, off, &per);
	if (nw == 0) {
		ilpi_blocks_free(b);
		b = NULL;
		if (ilpi_blocks_plan(&c->red, &b, &e) == 0 && b != NULL)
			nw = ilpi_blocks_windows(b, win, off, &per);
	}
	ilpi_blocks_free(b);
	if (nw == 0 || per == 0)
		goto fail;
	/* an item in no window: the head when it reads (through its inputs) a window's
	 * item or the head's, else the tail (the stem below the first window, in item
	 * order after the windows' parameters) */
	for (size_t it = 0; it < n; it++) {
		const ilpi_item *v = &c->red.item[it];

		p->iseg[it] = win[it] >= 0 ? win[it] + 1 : 0;
		for (uint32_t k = 0; k < v->in_count && win[it] < 0; k++)
			if (p->iseg[c->red.in[v->in_begin + k]] > 0)
				p->iseg[it] = (int32_t)nw + 1;
	}
	p->n_seg = nw + 2;
	free(win);
	free(off);
	return 0;
fail:
	free(win);
	free(off);
	return -1;
}

static int
put_term(pp *p, int col, double v)
{
	if (p->n_t == p->cap_t) {
		size_t cap = 2 * p->cap_t + 4096;
		int *a = realloc(p->tcol, cap * sizeof *a);
		double *b;

		if (a == NULL)
			return -1;
		p->tcol = a;
		if ((b = realloc(p->tval, cap * sizeof *b)) == NULL)
			return -1;
		p->tval = b;
		p->cap_t = cap;
	}
	p->tcol[p->n_t] = col;
	p->tval[p->n_t++] = v;
	return 0;
}

/* Columns' segments: s and r by their item; any other column by the items whose
 * columns share a side row with it (then by the columns so assigned), when they all
 * lie in one segment. */
static int
column_segments(pp *p, int *ind, double *val)
{
	solve_ctx *c = p->c;
	glp_prob *lp = c->m.lp;
	int nrow = glp_get_num_rows(lp);
	int *cand = malloc(((size_t)p->ncol + 1) * sizeof *cand);

	if (cand == NULL)
		return -1;
	for (int j = 0; j <= p->ncol; j++) {
		p->seg[j] = -1;
		p->item[j] = -1;
	}
	for (size_t it = 0; it < c->red.n_items; it++) {
		if (c->m.col_s[it]) {
			p->item[c->m.col_s[it]] = (int)it;
			p->seg[c->m.col_s[it]] = p->iseg[it];
		}
		if (c->m.col_r[it]) {
			p->item[c->m.col_r[it]] = (int)it;
			p->seg[c->m.col_r[it]] = p->iseg[it];
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		/* cand: -2 unseen, -3 several segments, else the one segment */
		for (int j = 0; j <= p->ncol; j++)
			cand[j] = -2;
		for (int i = 1; i <= nrow; i++) {
			int len = glp_get_mat_row(lp, i, ind, val), sg = -2;

			if (glp_get_mat_row(lp, i, NULL, NULL) == 0)
				continue;
			for (int k = 1; k <= len; k++) {
				int j = ind[k];

				if (j == c->peak.col)
					sg = -4;
				else if (sg != -4 && p->seg[j] >= 0)
					sg = sg == -2 || sg == p->seg[j] ? p->seg[j] : -3;
			}
			if (sg < 0)
				continue; /* a P row, or nothing assigned yet */
			for (int k = 1; k <= len; k++) {
				int j = ind[k];

				if (p->item[j] >= 0 || p->seg[j] >= 0)
					continue;
				cand[j] = cand[j] == -2 || cand[j] == sg ? sg : -3;
			}
		}
		for (int j = 1; j <= p->ncol; j++)
			if (p->item[j] < 0 && p->seg[j] < 0 && cand[j] >= 0)
				p->seg[j] = cand[j];
	}
	/* With the structural sigma, a column left over (its side rows span segments:
	 * a c(X, theta) or z linking a window to the one below) takes the highest
	 * segment among them, where the columns below become entry columns
	 * (extend_entries) */
	for (int pass = 0; p->structural && pass < 2; pass++) {
		for (int j = 0; j <= p->ncol; j++)
			cand[j] = -1;
		for (int i = 1; i <= nrow; i++) {
			int len = glp_get_mat_row(lp, i, ind, val), sg = -1, isp = 0;

			for (int k = 1; k <= len; k++) {
				if (ind[k] == c->peak.col)
					isp = 1;
				else if (p->seg[ind[k]] > sg)
					sg = p->seg[ind[k]];
			}
			if (isp || sg < 0)
				continue;
			for (int k = 1; k <= len; k++)
				if (p->seg[ind[k]] < 0 && sg > cand[ind[k]])
					cand[ind[k]] = sg;
		}
		for (int j = 1; j <= p->ncol; j++)
			if (p->item[j] < 0 && p->seg[j] < 0 && cand[j] >= 0)
				p->seg[j] = cand[j];
	}
	free(cand);
	return 0;
}

/* The P rows as P >= cst + sum of nonnegative terms over assigned columns (a negative
 * term at its column's upper bound, a term on an unassigned column dropped), the
 * other rows as side rows. -1 out of memory, 1 when a row cannot be read so. */
static int
read_rows(pp *p, int *ind, double *val)
{
	solve_ctx *c = p->c;
	glp_prob *lp = c->m.lp;
	int nrow = glp_get_num_rows(lp), P = c->peak.col;

	p->floor = 0;
	for (int j = 1; j <= p->ncol; j++) {
		int t = glp_get_col_type(lp, j);

		if (j != P && (t == GLP_FR || t == GLP_UP || glp_get_col_lb(lp, j) < 0))
			return 1; /* a column that may be negative: no term can be dropped */
		p->ub[j] = t == GLP_DB || t == GLP_FX ? glp_get_col_ub(lp, j) : DBL_MAX;
	}
	if ((p->side = malloc(((size_t)nrow + 1) * sizeof *p->side)) == NULL ||
	    (p->row = malloc(((size_t)nrow + 1) * sizeof *p->row)) == NULL)
		return -1;
	for (int i = 1; i <= nrow; i++) {
		int len = glp_get_mat_row(lp, i, ind, val), t = glp_get_row_type(lp, i);
		double pc = 0, cst;
		pp_row *r;

		for (int k = 1; k <= len; k++)
			if (ind[k] == P)
				pc = val[k];
		if (pc == 0) {
			p->side[p->n_side++] = i;
			continue;
		}
		if (pc < 0 || (t != GLP_LO && t != GLP_DB && t != GLP_FX))
			continue; /* not a lower bound of P: dropped */
		cst = glp_get_row_lb(lp, i) / pc;
		r = &p->row[p->n_row];
		r->beg = p->n_t;
		r->loc = -1;
		r->op = p->rowop != NULL ? p->rowop[i] : -1;
		r->at = r->op >= 0 ? p->bpos[r->op] : -1;
		for (int k = 1; k <= len; k++) {
			int j = ind[k];
			double v = -val[k] / pc;

			if (j == P)
				continue;
			if (v < 0) {
				if (p->ub[j] == DBL_MAX)
					goto drop;
				cst += v * p->ub[j];
			} else if (v > 0 && p->seg[j] >= 0) {
				if (put_term(p, j, v) != 0)
					return -1;
				if (p->seg[j] > r->loc)
					r->loc = p->seg[j];
			}
		}
		r->cst = cst;
		r->len = p->n_t - r->beg;
		if (r->len == 0) {
			p->floor = fmax(p->floor, cst);
			continue;
		}
		p->n_row++;
		continue;
drop:
		p->n_t = r->beg;
	}
	return 0;
}

/* entry[col] = 1 for the s and r columns of items that an item of the next segment
 * reads (the state between two segments). */
static int
entry_columns(pp *p, uint8_t *entry)
{
	const ilpi_reduced *red = &p->c->red;

	memset(entry, 0, (size_t)p->ncol + 1);
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *v = &red->item[it];

		if (p->iseg[it] < 1)
			continue;
		for (uint32_t k = 0; k < v->in_count; k++) {
			int32_t u = red->in[v->in_begin + k];

			if (p->iseg[u] == p->iseg[it] - 1) {
				if (p->c->m.col_s[u])
					entry[p->c->m.col_s[u]] = 1;
				if (p->c->m.col_r[u])
					entry[p->c->m.col_r[u]] = 1;
			}
		}
	}
	return 0;
}

/* With the structural sigma: every column of segment w - 1 that shares a side row with
 * a column of w is an entry column of w too (a copy in w's local model, as the s and r
 * entry columns are), and its terms stay in w's local rows. An auxiliary
 * column that a side row pushes up with a saved storage (z >= s + ... - (k - 1), y >= s)
 * is marked 2: it may count a storage sigma counts, so its terms are left out there. */
static void
extend_entries(pp *p, uint8_t *entry, int *ind, double *val)
{
	glp_prob *lp = p->c->m.lp;

	for (size_t t = 0; t < p->n_side; t++) {
		int i = p->side[t], len = glp_get_mat_row(lp, i, ind, val), w = -1, bad = 0;

		for (int k = 1; k <= len; k++) {
			int sj = p->seg[ind[k]];

			if (sj < 0)
				bad = 1;
			else if (sj > w)
				w = sj;
		}
		if (bad || w < 1)
			continue;
		for (int k = 1; k <= len; k++)
			if (p->seg[ind[k]] == w - 1)
				entry[ind[k]] |= 1;
	}
	for (size_t t = 0; t < p->n_side; t++) {
		int i = p->side[t], len = glp_get_mat_row(lp, i, ind, val), type;
		int saved = 0;

		type = glp_get_row_type(lp, i);
		if (type != GLP_LO && type != GLP_FX && type != GLP_DB)
			continue;
		for (int k = 1; k <= len; k++) {
			int j = ind[k], it = p->item[j];

			if (val[k] < 0 && ((it >= 0 && p->c->m.col_s[it] == j) ||
			    (it < 0 && p->ysave != NULL && p->ysave[j])))
				saved = 1;
		}
		for (int k = 1; k <= len && saved; k++)
			if (val[k] > 0 && p->item[ind[k]] < 0)
				entry[ind[k]] |= 2;
	}
}

/* sigma(v): the least coefficient of v over the rows above its segment (above the
 * next one for an entry column, whose terms there stay exact), 0 when one of them
 * lacks v. */
static int
sigmas(pp *p, const uint8_t *entry, int strict)
{
	size_t ns = p->n_seg;
	size_t *cnt = calloc(ns + 2, sizeof *cnt), *have = calloc((size_t)p->ncol + 1,
	    sizeof *have);

	if (cnt == NULL || have == NULL) {
		free(cnt);
		free(have);
		return -1;
	}
	for (size_t i = 0; i < p->n_row; i++)
		if (p->row[i].loc >= 0)
			cnt[p->row[i].loc]++;
	/* cnt[l] = rows at segments l.. (suffix sums) */
	for (size_t l = ns; l-- > 0;)
		cnt[l] += cnt[l + 1];
	for (int j = 0; j <= p->ncol; j++)
		p->sigma[j] = DBL_MAX;
	for (size_t i = 0; i < p->n_row; i++) {
		const pp_row *r = &p->row[i];

		for (size_t k = r->beg; k < r->beg + r->len; k++) {
			int j = p->tcol[k], from = p->seg[j] + (entry[j] ? 2 : 1);

			if (r->loc < from)
				continue;
			have[j]++;
			if (p->tval[k] < p->sigma[j])
				p->sigma[j] = p->tval[k];
		}
	}
	/* Strict: every row above has the term. Else, when at least 90 % of them do,
	 * the least coefficient among those (the rows that lack it or have less are then
	 * left out of the relaxation: report_loss counts them). */
	for (int j = 1; j <= p->ncol; j++) {
		int from = p->seg[j] + (entry[j] ? 2 : 1);

		if (p->seg[j] < 0 || (size_t)from >= ns + 1 || p->sigma[j] == DBL_MAX ||
		    (strict && have[j] < cnt[from]) || 10 * have[j] < 9 * cnt[from])
			p->sigma[j] = 0;
	}
	free(cnt);
	free(have);
	return 0;
}

/* Whether every term of r on a lower segment (but the entry columns of the one just
 * below) is at least its column's sigma: only such rows may be relaxed to the chain. */
static int
complete(const pp *p, const uint8_t *entry, const pp_row *r)
{
	int ok = 1;

	for (int j = 1; j <= p->ncol; j++)
		p->got[j] = 0;
	for (size_t k = r->beg; k < r->beg + r->len; k++)
		p->got[p->tcol[k]] = p->tval[k];
	for (int j = 1; j <= p->ncol && ok; j++)
		if (p->seg[j] >= 0 && p->seg[j] < r->loc && p->sigma[j] > 0 &&
		    !(entry[j] && p->seg[j] == r->loc - 1) && p->got[j] < p->sigma[j])
			ok = 0;
	return ok;
}

/* Diagnostics: per row, what sigma loses of its lower segments' terms. */
static void
report_loss(pp *p, const uint8_t *entry, const char *which)
{
	double worst = 0, unit = p->c->m.byte_unit;
	size_t n_loss = 0, n_terms = 0, n_aux = 0, n_out = 0, n_auxrow = 0, n_auxout = 0;
	double mid = 0;
	size_t *at = calloc(p->n_seg, sizeof *at);

	for (size_t i = 0; i < p->n_row; i++) {
		const pp_row *r = &p->row[i];
		double loss = 0;

		if (r->loc < 0)
			continue;

		if (at != NULL)
			at[r->loc]++;
		for (size_t k = r->beg; k < r->beg + r->len; k++) {
			int j = p->tcol[k];

			n_terms++;
			n_aux += p->item[j] < 0;
			if (p->seg[j] < r->loc && !(entry[j] && p->seg[j] == r->loc - 1))
				loss += p->tval[k] - p->sigma[j];
		}
		if (loss > 0)
			n_loss++;
		if (loss > worst)
			worst = loss;
		{
			int aux = 0, in = complete(p, entry, r);

			for (size_t k = r->beg; k < r->beg + r->len && !aux; k++)
				aux = p->item[p->tcol[k]] < 0;
			n_out += !in;
			n_auxrow += aux;
			n_auxout += aux && !in;
		}
	}
	for (int j = 1; j <= p->ncol; j++)
		if (p->seg[j] == (int)p->n_seg / 2)
			mid += p->sigma[j];
	drv_note(p->c, "peak relaxation (%s sigma): %zu segments, %zu P rows (%zu terms, %zu on "
	    "other columns), %zu side rows; %zu rows lose to sigma (at most %.0f bytes), "
	    "%zu below it (of the %zu rows with other columns: %zu); sigma of the middle "
	    "window at most %.0f bytes; floor %.0f", which, p->n_seg, p->n_row,
	    n_terms, n_aux, p->n_side, n_loss, worst * unit, n_out, n_auxrow, n_auxout,
	    mid * unit,
	    p->floor * unit);
	if (at != NULL) {
		char buf[4096];
		size_t o = 0;

		for (size_t l = 0; l < p->n_seg && o + 16 < sizeof buf; l++)
			o += (size_t)snprintf(buf + o, sizeof buf - o, " %zu", at[l]);
		drv_note(p->c, "peak relaxation: P rows per segment (tail, windows, head):%s", buf);
	}
	free(at);
}

/* Each side row's segment: the highest among its columns, when every other column is
 * in it or an entry column of the one below; else -1 (the row is dropped). */
static int
side_segments(pp *p, const uint8_t *entry, int *ind, double *val)
{
	glp_prob *lp = p->c->m.lp;

	if ((p->side_seg = malloc((p->n_side + 1) * sizeof *p->side_seg)) == NULL)
		return -1;
	for (size_t t = 0; t < p->n_side; t++) {
		int len = glp_get_mat_row(lp, p->side[t], ind, val), w = -1;

		for (int k = 1; k <= len && w >= -1; k++) {
			int j = ind[k];

			if (p->seg[j] < 0)
				w = -2;
			else if (p->seg[j] > w)
				w = p->seg[j];
		}
		for (int k = 1; k <= len && w >= 0; k++) {
			int j = ind[k];

			if (p->seg[j] != w && !(p->seg[j] == w - 1 && entry[j]))
				w = -2;
		}
		p->side_seg[t] = w >= 0 ? w : -1;
	}
	return 0;
}

/* Moves each row down to the highest segment at or below its own where every term on
 * a lower segment is at least its column's sigma (terms above the segment are then
 * dropped); returns the rows moved. */
static size_t
relocate(pp *p, const uint8_t *entry)
{
	size_t moved = 0;

	for (size_t i = 0; i < p->n_row; i++) {
		pp_row *r = &p->row[i];
		int m = r->loc;

		for (size_t k = r->beg; k < r->beg + r->len; k++)
			p->got[p->tcol[k]] = p->tval[k];
		/* a column of segment u failing its sigma breaks every w > u (w > u + 1 for
		 * an entry column, exact at u + 1) */
		for (int j = 1; j <= p->ncol; j++)
			if (p->seg[j] >= 0 && p->seg[j] < m && p->sigma[j] > 0 &&
			    p->got[j] < p->sigma[j] * (1 - 1e-12)) {
				int lim = p->seg[j] + (entry[j] ? 1 : 0);

				if (lim < m)
					m = lim;
			}
		for (size_t k = r->beg; k < r->beg + r->len; k++)
			p->got[p->tcol[k]] = 0;
		if (m != r->loc) {
			moved++;
			r->loc = m;
		}
	}
	return moved;
}

/* A term's coefficient in the local row of segment w: its own on w; on an entry
 * column of w - 1, less what sigma counts (exact), or, with the structural sigma,
 * nothing where sigma counts the column's storage (no storage counted twice); else 0. */
static double
local_coef(const pp *p, const uint8_t *entry, int w, int j, double t)
{
	if (p->seg[j] == w)
		return t;
	if (w > 0 && p->seg[j] == w - 1 && entry[j])
		return p->structural ? (p->sigma[j] > 0 || (entry[j] & 2) ? 0 : t) :
		    t - p->sigma[j];
	return 0;
}

/* Each backward op's place in the order torch runs them (fixed whatever is
 * recomputed), as the bound rows number them; each item's last backward reader's
 * place; the bytes its saved storage holds in the simulator (0 when sigma may not
 * count it: a primal's or a tuple's, one the caller holds through the backward, one
 * shared with an item of another segment, or shared and not its first item: p->sfirst,
 * p->sseg, p->held); each model row's op (the bound rows and the points record it). */
static int
structural_data(pp *p)
{
	solve_ctx *c = p->c;
	const ilp_graph *g = c->g;
	const ilpi_reduced *red = &c->red;
	size_t n = g->n, ni = red->n_items;
	int nrow = glp_get_num_rows(c->m.lp);
	uint8_t *need = malloc(n + 1), *held = p->held = calloc(n + 1, 1);
	int32_t *order = malloc((n + 1) * sizeof *order), *first = p->sfirst = malloc((n + 1) *
	    sizeof *first), *sseg = p->sseg = malloc((n + 1) * sizeof *sseg);
	int32_t *stack = malloc((n + 1) * sizeof *stack);
	ilpi_side bw;
	int rc = -1;

	memset(&bw, 0, sizeof bw);
	bw.op = malloc((n + 1) * sizeof *bw.op);
	p->bpos = malloc((n + 1) * sizeof *p->bpos);
	p->lastbw = malloc((ni + 1) * sizeof *p->lastbw);
	p->sbytes = calloc(ni + 1, sizeof *p->sbytes);
	p->rowop = malloc(((size_t)nrow + 1) * sizeof *p->rowop);
	if (need == NULL || held == NULL || order == NULL || first == NULL || sseg == NULL ||
	    stack == NULL ||
	    bw.op == NULL || p->bpos == NULL || p->lastbw == NULL || p->sbytes == NULL ||
	    p->rowop == NULL)
		goto out;
	ilpi_backward_needed(g, need);
	for (size_t i = 0; i < n; i++) {
		p->bpos[i] = -1;
		first[i] = -1;
		sseg[i] = INT32_MIN;
		if (g->node[i].kind == ILPI_OP && g->node[i].cls == ILPI_BACKWARD && need[i])
			bw.op[bw.n_op++] = (int32_t)i;
	}
	bw.out = (int32_t *)g->bw_out;
	bw.n_out = g->n_bw_out;
	(void)ilpi_autograd_order(g, &bw, order);
	for (size_t k = 0; k < bw.n_op; k++)
		p->bpos[order[k]] = (int32_t)k;
	for (size_t k = 0; k < g->n_fw_out; k++)
		held[g->node[g->fw_out[k]].storage] = 1;
	/* per storage root: its first item with an s column, and the one segment of
	 * every such item (INT32_MAX: several) */
	for (size_t it = 0; it < ni; it++) {
		int32_t root = g->node[red->item[it].rep].storage;

		if (c->m.col_s[it] == 0)
			continue;
		if (first[root] < 0)
			first[root] = (int32_t)it;
		sseg[root] = sseg[root] == INT32_MIN || sseg[root] == p->iseg[it] ?
		    p->iseg[it] : INT32_MAX;
	}
	for (size_t it = 0; it < ni; it++) {
		const ilpi_item *v = &red->item[it];
		const ilpi_node *rn = &g->node[v->rep], *root = &g->node[rn->storage];
		last_reader lr = { p->bpos, -1 };

		/* the backward readers of rep and of the views of it (a view the
		 * backward computes from the saved value shares its storage; a tuple of
		 * views' getitems too) */
		(void)ilpi_view_readers(g, v->rep, stack, n, NULL, drv_relax_later_reader, &lr);
		p->lastbw[it] = lr.last;
		if (c->m.col_s[it] == 0 || first[rn->storage] != (int32_t)it ||
		    sseg[rn->storage] == INT32_MAX || p->iseg[it] < 0 ||
		    held[rn->storage] || ilpi_live_bytes(g, rn->storage) <= 0 ||
		    p->lastbw[it] < 0)
			continue;
		p->sbytes[it] = (double)root->bytes / c->m.byte_unit;
	}
	for (int i = 0; i <= nrow; i++)
		p->rowop[i] = -1;
	for (int k = 0; k < c->peak.n_rows && c->peak.row_no != NULL; k++)
		if (c->peak.row_op[k] >= 0 && c->peak.row_no[k] <= nrow)
			p->rowop[c->peak.row_no[k]] = c->peak.row_op[k];
	if (c->cuts != NULL) {
		int rows, cols, points;

		ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
		for (int k = 0; k < points; k++) {
			int32_t op = ilpi_peak_cuts_point_op(c->cuts, k);
			int row = ilpi_peak_cuts_point_row(c->cuts, k);

			if (row > 0 && row <= nrow)
				p->rowop[row] = op;
		}
	}
	rc = 0;
out:
	free(need);
	free(order);
	free(stack);
	free(bw.op);
	return rc;
}

/* The structural sigma: s_X counts X's saved storage in every row above X's segment
 * whose step comes before X's last backward reader (the simulator keeps a saved value
 * from the forward until then, whatever is recomputed). A row whose step is unknown
 * goes to the tail (its constant and tail terms only). Items live at the steps of at
 * least 90 % of the rows above their segment first; each row then moves down to the
 * highest segment where every such item below is live at its step; then sigma takes
 * every item live at the step of every row above (strict). Returns the rows moved. */
static size_t
structural_sigmas(pp *p, const uint8_t *entry)
{
	solve_ctx *c = p->c;
	size_t ns = p->n_seg, ni = c->red.n_items, moved = 0;
	int32_t *lim = malloc((ns + 1) * sizeof *lim), *top = malloc((ns + 2) * sizeof *top);

	for (int j = 0; j <= p->ncol; j++)
		p->sigma[j] = 0;
	if (lim == NULL || top == NULL)
		goto out;
	for (size_t i = 0; i < p->n_row; i++)
		if (p->row[i].at < 0 && p->row[i].loc > 0) {
			p->row[i].loc = 0;
			moved++;
		}
	/* lim[u]: the least last reader of the items of u */
	for (size_t u = 0; u < ns; u++)
		lim[u] = INT32_MAX;
	for (size_t it = 0; it < ni; it++)
		if (p->sbytes[it] > 0 && p->iseg[it] >= 0 && p->lastbw[it] < lim[p->iseg[it]])
			lim[p->iseg[it]] = p->lastbw[it];
	for (size_t i = 0; i < p->n_row; i++) {
		pp_row *r = &p->row[i];
		int m = r->loc;

		for (int u = 0; u < m; u++)
			if (r->at > lim[u])
				m = u;
		if (m != r->loc) {
			r->loc = m;
			moved++;
		}
	}
	/* top[u]: the latest step among the rows above u */
	for (size_t u = 0; u <= ns; u++)
		top[u] = -1;
	for (size_t i = 0; i < p->n_row; i++)
		if (p->row[i].loc > 0 && p->row[i].at > top[p->row[i].loc - 1])
			top[p->row[i].loc - 1] = p->row[i].at;
	for (size_t u = ns - 1; u-- > 0;)
		if (top[u + 1] > top[u])
			top[u] = top[u + 1];
	for (size_t it = 0; it < ni; it++)
		if (p->sbytes[it] > 0 && p->iseg[it] >= 0 && (size_t)p->iseg[it] + 1 < ns &&
		    p->lastbw[it] >= top[p->iseg[it]])
			p->sigma[c->m.col_s[it]] = p->sbytes[it];
	if (entry != NULL && (drv_relax_conj_terms(p, entry, top) != 0 ||
	    (p->gcol = calloc(p->n_group + 1, sizeof *p->gcol)) == NULL))
		moved = (size_t)-1;
out:
	free(lim);
	free(top);
	return moved;
}

/* One segment's front: points (sig, a), sig ascending... as found (a ascending,
 * sig descending). */
typedef struct pp_front {
	double *sig, *a;
	size_t n;
	int empty_rows;           /* no P row there: a is -inf */
} pp_front;

static void
set_mip(glp_iocp *io, double until)
{
	double left = until - ilpi_now();

	glp_init_iocp(io);
	io->msg_lev = GLP_MSG_OFF;
	io->presolve = GLP_ON;
	io->tm_lim = left > 0.01 ? (int)(left * 1000) : 10;
}

/* Solves lp (objective already set), 0 with the objective in *v, 1 infeasible, -1
 * out of time or failed. */
static int
solve_local(pp *p, glp_prob *lp, double until, double *v)
{
	glp_iocp io;
	int ret, st;

	p->n_solve++;
	if (p->c->hooks != NULL && p->c->hooks->peak_relax_timeout == p->n_solve) {
		p->c->hooks->peak_relax_timeout = -1;
		return -1;
	}
	set_mip(&io, until);
	ret = glp_intopt(lp, &io);
	if (ret == GLP_ENOPFS || ret == GLP_ENODFS)
		return 1;
	if (ret != 0)
		return -1;
	st = glp_mip_status(lp);
	if (st == GLP_NOFEAS)
		return 1;
	if (st != GLP_OPT)
		return -1;
	*v = glp_mip_obj_val(lp);
	return 0;
}

/* The local model of segment w: its columns and the entry columns of w - 1 (loc[]
 * maps model columns to local ones), its side rows, a >= every local row, and the
 * expression sig = sum sigma x on its own columns (a row, bounded as the front goes). */
static glp_prob *
local_model(pp *p, const uint8_t *entry, int w, int *loc, int *ind, double *val,
    int *col_a, int *row_sig, size_t *n_prow)
{
	glp_prob *M = glp_create_prob(), *lp = p->c->m.lp;
	int nl = 0, *li = malloc(((size_t)p->ncol + p->n_conj + p->n_group + 2) * sizeof *li);
	double *lv = malloc(((size_t)p->ncol + p->n_conj + p->n_group + 2) * sizeof *lv);

	if (li == NULL || lv == NULL) {
		free(li);
		free(lv);
		glp_delete_prob(M);
		return NULL;
	}
	for (int j = 1; j <= p->ncol; j++) {
		loc[j] = 0;
		if (p->seg[j] == w || (w > 0 && p->seg[j] == w - 1 && entry[j]))
			loc[j] = ++nl;
	}
	if (nl > 0)
		glp_add_cols(M, nl);
	for (int j = 1; j <= p->ncol; j++)
		if (loc[j]) {
			glp_set_col_bnds(M, loc[j], glp_get_col_type(lp, j), glp_get_col_lb(lp, j),
			    glp_get_col_ub(lp, j));
			/* a column within [0, 1] is integral in every partition (the
			 * auxiliary ones are integral whenever s and r are): keeping them
			 * integral keeps every partition and makes each front point's sigma
			 * a whole number of model bytes */
			glp_set_col_kind(M, loc[j], glp_get_col_type(lp, j) == GLP_DB &&
			    glp_get_col_lb(lp, j) >= 0 && glp_get_col_ub(lp, j) <= 1 ? GLP_BV :
			    glp_get_col_kind(lp, j));
		}
	*col_a = glp_add_cols(M, 1);
	glp_set_col_bnds(M, *col_a, GLP_FR, 0, 0);
	/* e >= sum(literals) - (k - 1), binary: the conjunction a pp_conj counts */
	for (size_t q = 0; q < p->n_group; q++)
		p->gcol[q] = 0;
	for (size_t q = 0; q < p->n_conj; q++) {
		pp_conj *cj = &p->conj[q];
		int len = 0;

		cj->col = 0;
		if (!cj->active || cj->seg != w)
			continue;
		cj->col = glp_add_cols(M, 1);
		glp_set_col_kind(M, cj->col, GLP_BV);
		li[++len] = cj->col;
		lv[len] = 1;
		for (int k = 0; k < cj->n_lit; k++) {
			li[++len] = loc[cj->lit[k]];
			lv[len] = -1;
		}
		glp_set_mat_row(M, glp_add_rows(M, 1), len, li, lv);
		glp_set_row_bnds(M, glp_get_num_rows(M), GLP_LO, -(double)(cj->n_lit - 1), 0);
		/* G >= bytes * e (sigma units): the group's largest active value */
		if (p->gcol[cj->group] == 0) {
			p->gcol[cj->group] = glp_add_cols(M, 1);
			glp_set_col_kind(M, p->gcol[cj->group], GLP_IV);
			glp_set_col_bnds(M, p->gcol[cj->group], GLP_LO, 0, 0);
		}
		li[1] = p->gcol[cj->group];
		lv[1] = 1;
		li[2] = cj->col;
		lv[2] = -cj->bytes / p->sgscale;
		glp_set_mat_row(M, glp_add_rows(M, 1), 2, li, lv);
		glp_set_row_bnds(M, glp_get_num_rows(M), GLP_LO, 0, 0);
	}
	for (size_t t = 0; t < p->n_side; t++) {
		int i = p->side[t], len, row;

		if (p->side_seg[t] != w)
			continue;
		len = glp_get_mat_row(lp, i, ind, val);
		for (int k = 1; k <= len; k++)
			li[k] = loc[ind[k]];
		row = glp_add_rows(M, 1);
		glp_set_mat_row(M, row, len, li, val);
		glp_set_row_bnds(M, row, glp_get_row_type(lp, i), glp_get_row_lb(lp, i),
		    glp_get_row_ub(lp, i));
	}
	*n_prow = 0;
	for (size_t i = 0; i < p->n_row; i++) {
		const pp_row *r = &p->row[i];
		int len = 0, row;

		if (r->loc != w)
			continue;
		li[++len] = *col_a;
		lv[len] = 1;
		for (size_t k = r->beg; k < r->beg + r->len; k++) {
			int j = p->tcol[k];
			double v = local_coef(p, entry, w, j, p->tval[k]);

			if (v != 0 && loc[j]) {
				li[++len] = loc[j];
				lv[len] = -v;
			}
		}
		row = glp_add_rows(M, 1);
		glp_set_mat_row(M, row, len, li, lv);
		glp_set_row_bnds(M, row, GLP_LO, r->cst, 0);
		(*n_prow)++;
	}
	{
		int len = 0;

		for (int j = 1; j <= p->ncol; j++)
			if (loc[j] && p->seg[j] == w && p->sigma[j] > 0) {
				li[++len] = loc[j];
				lv[len] = p->sigma[j] / p->sgscale;
			}
		for (size_t q = 0; q < p->n_group; q++)
			if (p->gcol[q] > 0) {
				li[++len] = p->gcol[q];
				lv[len] = 1;
			}
		*row_sig = glp_add_rows(M, 1);
		glp_set_mat_row(M, *row_sig, len, li, lv);
		glp_set_row_bnds(M, *row_sig, GLP_FR, 0, 0);
	}
	free(li);
	free(lv);
	return M;
}

#define PP_MAX_PTS 48

static int
push_pt(pp_front *f, double sg, double a)
{
	double *x = realloc(f->sig, (f->n + 1) * sizeof *x), *y;

	if (x == NULL)
		return -1;
	f->sig = x;
	if ((y = realloc(f->a, (f->n + 1) * sizeof *y)) == NULL)
		return -1;
	f->a = y;
	f->sig[f->n] = sg;
	f->a[f->n++] = a;
	return 0;
}

/* The front of segment w: every (sigma, local peak) not dominated, least local peak
 * first; past PP_MAX_PTS points a corner (the least sigma, the next local peak) that
 * is below every point left out. 0, 1 out of time, -1 out of memory. */
static int
front_of(pp *p, const uint8_t *entry, int w, int *loc, int *ind, double *val,
    pp_front *f, double until, double step)
{
	int ca, rs, rc = -1;
	size_t np;
	glp_prob *M = local_model(p, entry, w, loc, ind, val, &ca, &rs, &np);
	double smin, U = DBL_MAX, av, sv;

	if (M == NULL)
		return -1;
	glp_set_obj_dir(M, GLP_MIN);
	f->empty_rows = np == 0;
	/* least sigma */
	glp_set_obj_coef(M, ca, 0);
	for (int j = 1; j <= glp_get_num_cols(M); j++)
		glp_set_obj_coef(M, j, 0);
	{
		int len = glp_get_mat_row(M, rs, ind, val);

		for (int k = 1; k <= len; k++)
			glp_set_obj_coef(M, ind[k], val[k]);
	}
	if (np == 0) {
		glp_set_col_bnds(M, ca, GLP_FX, 0, 0);
		if (solve_local(p, M, until, &smin) != 0) {
			rc = 1;
			goto out;
		}
		rc = push_pt(f, smin * p->sgscale, -DBL_MAX) != 0 ? -1 : 0;
		goto out;
	}
	/* out of time, or no point at all (which every partition has): no bound */
	if (solve_local(p, M, until, &smin) != 0) {
		rc = 1;
		goto out;
	}
	for (;;) {
		int r;

		/* least a with sigma <= U */
		for (int j = 1; j <= glp_get_num_cols(M); j++)
			glp_set_obj_coef(M, j, 0);
		glp_set_obj_coef(M, ca, 1);
		glp_set_col_bnds(M, ca, GLP_FR, 0, 0);
		glp_set_row_bnds(M, rs, U == DBL_MAX ? GLP_FR : GLP_UP, 0, U == DBL_MAX ? 0 : U);
		r = solve_local(p, M, until, &av);
		if (r == 1)
			break;
		if (r != 0) {
			rc = 1;
			goto out;
		}
		if (f->n >= PP_MAX_PTS) {
			rc = push_pt(f, smin * p->sgscale, av) != 0 ? -1 : 0;
			goto out;
		}
		/* least sigma with a <= av (a hair above: a lower sigma is optimistic) */
		glp_set_obj_coef(M, ca, 0);
		{
			int len = glp_get_mat_row(M, rs, ind, val);

			for (int k = 1; k <= len; k++)
				glp_set_obj_coef(M, ind[k], val[k]);
		}
		glp_set_col_bnds(M, ca, GLP_UP, 0, av + 1e-7 * fabs(av) + 1e-6);
		if (solve_local(p, M, until, &sv) != 0) {
			rc = 1;
			goto out;
		}
		if (push_pt(f, sv * p->sgscale, av) != 0)
			goto out;
		if (sv <= smin + 1e-9)
			break;
		U = sv - step;
	}
	rc = 0;
out:
	glp_delete_prob(M);
	return rc;
}

/* Whether every segment finds a point with prefix + a <= P (least sigma among
 * those; a smaller prefix is never worse above). */
static int
chain_fits(const pp_front *f, size_t ns, double P)
{
	double prefix = 0;

	for (size_t w = 0; w < ns; w++) {
		double bs = DBL_MAX;

		for (size_t k = 0; k < f[w].n; k++)
			if (prefix + f[w].a[k] <= P && f[w].sig[k] < bs)
				bs = f[w].sig[k];
		if (bs == DBL_MAX)
			return 0;
		prefix += bs;
	}
	return 1;
}

/* The simulated bytes at each backward op's step (pos: node -> place in ms's
 * backward, -1) and the peak of the item answer (s, r); -1 when it cannot be
 * simulated. c->s and c->r are kept. */
static int64_t
sim_point(solve_ctx *c, const uint8_t *s, const uint8_t *r, ilpi_memsim *ms, int32_t *pos)
{
	size_t n = c->red.n_items;
	uint8_t *keep = malloc(2 * n + 1);
	ilp_partition *part = NULL;
	ilpi_split sp;
	int64_t out = -1;

	memset(ms, 0, sizeof *ms);
	memset(&sp, 0, sizeof sp);
	if (keep == NULL)
		return -1;
	memcpy(keep, c->s, n);
	memcpy(keep + n, c->r, n);
	memcpy(c->s, s, n);
	memcpy(c->r, r, n);
	if (drv_to_nodes(c) == 0 && (part = drv_node_partition(c)) != NULL &&
	    ilpi_lower_unchecked(c->g, part, &sp, NULL) == 0) {
		if (ilpi_memsim_run(c->g, part, &sp, ms, NULL) == 0) {
			for (size_t i = 0; i < c->g->n; i++)
				pos[i] = -1;
			for (size_t k = 0; k < ms->n_bw; k++)
				pos[ms->bw_order[k]] = (int32_t)k;
			out = ms->peak.peak_bytes;
		}
		ilpi_split_free(&sp);
	}
	ilp_partition_free(part);
	memcpy(c->s, keep, n);
	memcpy(c->r, keep + n, n);
	free(keep);
	return out;
}

/* The self-check (ilpi_solve_hooks.peak_relax_check): at the incumbent and at random
 * s/r assignments, the model's least P with the s and r columns fixed (every other
 * column within [0, 1] integral, as the local models have them), then (1) every
 * relaxed row at most that P, (2) per segment a front point at or below the
 * assignment's (sigma, local peak), (3) the chain fitting at its relaxed peak and the
 * bound at most that. Returns the failures; *pts the points checked. */
static long
self_check(pp *p, const uint8_t *entry, const pp_front *f, double lb, int n_pts, long *pts)
{
	solve_ctx *c = p->c;
	size_t n = c->red.n_items, ns = p->n_seg;
	glp_prob *M = glp_create_prob();
	double *x = malloc(((size_t)p->ncol + 1) * sizeof *x);
	double *sg = calloc(ns, sizeof *sg), *aw = malloc(ns * sizeof *aw);
	double *gs = calloc(ns + 1, sizeof *gs), *gmax = calloc(p->n_group + 1, sizeof *gmax);
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	long fails = 0;
	uint8_t *ps = malloc(2 * n + 1), *need = malloc(n + 1);
	int32_t *pos = malloc((c->g->n + 1) * sizeof *pos);

	*pts = 0;
	if (x == NULL || sg == NULL || aw == NULL || ps == NULL || pos == NULL || gs == NULL ||
	    gmax == NULL || need == NULL)
		goto out;
	glp_copy_prob(M, c->m.lp, GLP_OFF);
	for (int j = 1; j <= p->ncol; j++) {
		glp_set_obj_coef(M, j, 0);
		if (j != c->peak.col && glp_get_col_type(M, j) == GLP_DB &&
		    glp_get_col_lb(M, j) >= 0 && glp_get_col_ub(M, j) <= 1)
			glp_set_col_kind(M, j, GLP_BV);
	}
	glp_set_obj_coef(M, c->peak.col, 1);
	glp_set_obj_dir(M, GLP_MIN);
	glp_set_col_bnds(M, c->peak.col, GLP_LO, 0, 0);
	for (int t = 0; t <= n_pts; t++) {
		glp_iocp io;
		double P, prefix = 0, relax = -DBL_MAX, tol;

		/* the incumbent, then the simulated answers so far (seeds) and the
		 * incumbent with 1-4 random items set to a random state, alternately */
		const uint8_t *bs = c->ws, *br = c->wr;
		size_t flip[4], nf = 0;

		if (t % 2 == 1 && c->hist != NULL && (size_t)(t / 2) < c->n_hist) {
			bs = c->hist + (size_t)(t / 2) * 2 * n;
			br = bs + n;
		} else if (t > 0) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			nf = 1 + (size_t)((st >> 33) % 4);
			for (size_t q = 0; q < nf; q++) {
				st = st * 6364136223846793005ULL + 1442695040888963407ULL;
				flip[q] = (size_t)((st >> 33) % n);
			}
		}
		for (size_t it = 0; it < n; it++) {
			int vs = bs[it], vr = br[it];

			for (size_t q = 0; q < nf; q++)
				if (flip[q] == it) {
					st = st * 6364136223846793005ULL + 1442695040888963407ULL;
					vs = (st >> 33) % 3 == 1;
					vr = (st >> 33) % 3 == 2;
				}
			ps[it] = (uint8_t)vs;
			ps[n + it] = (uint8_t)vr;
		}
		/* as the backward needs it (the simulator runs the lowered partition, which
		 * keeps no save nothing reads; the rows bound canonical partitions) */
		if (drv_canon_items(&c->red, ps, ps + n, need) != 0)
			continue;
		for (size_t it = 0; it < n; it++) {
			if (c->m.col_s[it])
				glp_set_col_bnds(M, c->m.col_s[it], GLP_FX, ps[it], ps[it]);
			if (c->m.col_r[it])
				glp_set_col_bnds(M, c->m.col_r[it], GLP_FX, ps[n + it], ps[n + it]);
		}
		glp_init_iocp(&io);
		io.msg_lev = GLP_MSG_OFF;
		io.presolve = GLP_ON;
		io.tm_lim = 20000;
		if (glp_intopt(M, &io) != 0 || glp_mip_status(M) != GLP_OPT)
			continue; /* no model point there */
		(*pts)++;
		P = glp_mip_obj_val(M);
		tol = 1e-6 * fabs(P) + 1e-3;
		for (int j = 1; j <= p->ncol; j++)
			x[j] = glp_mip_col_val(M, j);
		for (size_t w = 0; w < ns; w++) {
			sg[w] = 0;
			aw[w] = -DBL_MAX;
		}
		for (int j = 1; j <= p->ncol; j++)
			if (p->seg[j] >= 0 && p->sigma[j] > 0)
				sg[p->seg[j]] += p->sigma[j] * x[j];
		drv_relax_conj_sums(p, x, gs, gmax);
		for (size_t w = 0; w < ns; w++)
			sg[w] += gs[w];
		/* (0) with the structural sigma, every relaxed row (the sigma of the
		 * segments below and its local terms) at most the simulated bytes at its
		 * step (at a step not known, the simulated peak) */
		if (p->structural) {
			ilpi_memsim ms;
			int64_t peak = sim_point(c, ps, ps + n, &ms, pos);
			double unit = c->m.byte_unit;

			for (size_t i = 0; i < p->n_row && peak >= 0; i++) {
				const pp_row *r = &p->row[i];
				double v = r->cst, at = (double)peak;

				if (r->loc < 0)
					continue;
				for (int j = 1; j <= p->ncol; j++)
					if (p->seg[j] >= 0 && p->seg[j] < r->loc && p->sigma[j] > 0)
						v += p->sigma[j] * x[j];
				for (int u = 0; u < r->loc && (size_t)u < ns; u++)
					v += gs[u];
				for (size_t k = r->beg; k < r->beg + r->len; k++)
					v += local_coef(p, entry, r->loc, p->tcol[k], p->tval[k]) *
					    x[p->tcol[k]];
				if (r->op >= 0 && pos[r->op] >= 0)
					at = (double)ms.bw_live[pos[r->op]];
				if (v * unit > at + 1e-6 * at + 0.5)
					fails++;
			}
			ilpi_memsim_free(&ms);
		}
		for (size_t i = 0; i < p->n_row; i++) {
			const pp_row *r = &p->row[i];
			double v = r->cst;
			int w = r->loc;

			if (w < 0)
				continue;
			for (size_t k = r->beg; k < r->beg + r->len; k++) {
				int j = p->tcol[k];

				v += local_coef(p, entry, w, j, p->tval[k]) * x[j];
			}
			aw[w] = fmax(aw[w], v);
		}
		for (size_t w = 0; w < ns; w++) {
			int dom = 0;

			/* (1) */
			if (!p->structural && aw[w] > -DBL_MAX && prefix + aw[w] > P + tol)
				fails++;
			if (aw[w] > -DBL_MAX)
				relax = fmax(relax, prefix + aw[w]);
			/* (2) */
			for (size_t k = 0; k < f[w].n && !dom; k++)
				dom = f[w].sig[k] <= sg[w] + tol && (f[w].a[k] == -DBL_MAX ||
				    f[w].a[k] <= aw[w] + tol);
			fails += !dom;
			prefix += sg[w];
		}
		/* (3) */
		if (relax > -DBL_MAX && (!chain_fits(f, ns, relax + tol) || lb > relax + tol))
			fails++;
	}
out:
	glp_delete_prob(M);
	free(x);
	free(sg);
	free(aw);
	free(gs);
	free(gmax);
	free(ps);
	free(need);
	free(pos);
	return fails;
}

/* The bound: fronts of every segment, then the least P (model units) the chain fits.
 * 0 with *lb, 1 out of time, -1 out of memory. */
static int
chain_bound(pp *p, const uint8_t *entry, int *ind, double *val, double until, double *lb,
    size_t *n_pts)
{
	size_t ns = p->n_seg;
	pp_front *f = calloc(ns, sizeof *f);
	int *loc = malloc(((size_t)p->ncol + 1) * sizeof *loc), rc = -1;
	double step = 0.5, lo, hi;

	if (f == NULL || loc == NULL)
		goto out;
	/* the front steps by half a model byte when every sigma is whole on integral
	 * columns (else by a millionth, which only adds points) */
	for (int j = 1; j <= p->ncol; j++)
		if (p->sigma[j] > 0 && (fabs(p->sigma[j] - floor(p->sigma[j] + 0.5)) > 1e-9 ||
		    glp_get_col_type(p->c->m.lp, j) != GLP_DB ||
		    glp_get_col_lb(p->c->m.lp, j) < 0 || glp_get_col_ub(p->c->m.lp, j) > 1))
			step = 1e-6;
	for (size_t q = 0; q < p->n_conj; q++)
		if (p->conj[q].active && fabs(p->conj[q].bytes - floor(p->conj[q].bytes + 0.5)) > 1e-9)
			step = 1e-6;
	/* the sigma row in units of the sigmas' greatest common divisor: GLPK's bound
	 * tolerance is relative (1e-7 of about 1e8 model bytes is more than the front's
	 * step of half a byte, and the front stalled at one point until its cap) */
	p->sgscale = 1;
	if (step == 0.5) {
		long long g = 0;

		for (int j = 1; j <= p->ncol + (int)p->n_conj; j++)
			if (j > p->ncol ? p->conj[j - p->ncol - 1].active : p->sigma[j] > 0) {
				long long a = llround(j > p->ncol ? p->conj[j - p->ncol - 1].bytes :
				    p->sigma[j]), b = g;

				while (b != 0) {
					long long t = a % b;

					a = b;
					b = t;
				}
				g = a;
			}
		if (g > 1)
			p->sgscale = (double)g;
	}
	*n_pts = 0;
	for (size_t w = 0; w < ns; w++) {
		int r = front_of(p, entry, (int)w, loc, ind, val, &f[w], until, step);

		if (r != 0) {
			rc = r;
			goto out;
		}
		*n_pts += f[w].n;
	}
	/* bisection on P between the floor and the sum of every segment's largest a
	 * and sigma */
	lo = p->floor;
	hi = 0;
	for (size_t w = 0; w < ns; w++) {
		double ma = 0, ms = 0;

		for (size_t k = 0; k < f[w].n; k++) {
			ma = fmax(ma, f[w].a[k]);
			ms = fmax(ms, f[w].sig[k]);
		}
		hi += ma + ms;
	}
	if (!chain_fits(f, ns, hi))
		hi = 1e30;
	if (chain_fits(f, ns, lo)) {
		*lb = lo;
		rc = 0;
		goto out;
	}
	while (hi - lo > 0.25) {
		double mid = 0.5 * (lo + hi);

		if (chain_fits(f, ns, mid))
			hi = mid;
		else
			lo = mid;
	}
	*lb = lo; /* no chain fits at lo: every partition's peak is above it */
	if (p->c->hooks != NULL && p->c->hooks->peak_relax_check > 0) {
		long pts;

		p->c->hooks->peak_relax_fails += self_check(p, entry, f, *lb,
		    p->c->hooks->peak_relax_check, &pts);
		p->c->hooks->peak_relax_points += pts;
	}
	/* -v: where the chain binds just below the bound (the segment whose every point
	 * is above it after the prefix so far) */
	{
		double prefix = 0, unit = p->c->m.byte_unit;

		for (size_t w = 0; w < ns; w++) {
			double bs = DBL_MAX, ma = DBL_MAX;

			for (size_t k = 0; k < f[w].n; k++) {
				ma = fmin(ma, f[w].a[k]);
				if (prefix + f[w].a[k] <= lo && f[w].sig[k] < bs)
					bs = f[w].sig[k];
			}
			if (bs == DBL_MAX) {
				drv_note(p->c, "peak relaxation: binds at segment %zu of %zu (prefix %.0f "
				    "bytes, least local peak %.0f)", w, ns, prefix * unit,
				    ma == -DBL_MAX ? 0.0 : ma * unit);
				break;
			}
			prefix += bs;
		}
	}
	rc = 0;
out:
	if (f != NULL)
		for (size_t w = 0; w < ns; w++) {
			free(f[w].sig);
			free(f[w].a);
		}
	free(f);
	free(loc);
	return rc;
}

int
drv_peak_relax_bound(solve_ctx *c, double until, double *lb)
{
	pp p;
	int *ind = NULL, rc = -1, k;
	double *val = NULL, v = 0;
	uint8_t *entry = NULL;
	double t1 = ilpi_now(), unit = c->m.byte_unit;
	size_t nc, moved, pts = 0;

	memset(&p, 0, sizeof p);
	p.c = c;
	*lb = 0;
	if (c->peak.col == 0 || c->peak.n_sums > 0 || c->red.n_items == 0)
		return 1;
	p.ncol = glp_get_num_cols(c->m.lp);
	nc = (size_t)p.ncol + 1;
	ind = malloc(nc * sizeof *ind);
	val = malloc(nc * sizeof *val);
	entry = malloc(nc);
	p.seg = malloc(nc * sizeof *p.seg);
	p.item = malloc(nc * sizeof *p.item);
	p.sigma = malloc(nc * sizeof *p.sigma);
	p.ub = malloc(nc * sizeof *p.ub);
	p.got = calloc(nc, sizeof *p.got);
	p.ysave = calloc(nc, 1);
	if (p.ysave != NULL && c->m.col_y != NULL)
		for (size_t q = 0; q < c->red.n_stor; q++)
			if (c->m.col_y[q] > 0)
				p.ysave[c->m.col_y[q]] = 1;
	if (p.ysave == NULL || ind == NULL || val == NULL || entry == NULL || p.seg == NULL ||
	    p.item == NULL || p.sigma == NULL || p.ub == NULL || p.got == NULL)
		goto out;
	if (item_segments(&p) != 0) {
		drv_note(c, "peak relaxation: no repeated layers");
		rc = 1;
		goto out;
	}
	/* offloading takes saved values off the device: no structural sigma there */
	p.structural = c->m.col_o == NULL;
	if (p.structural && structural_data(&p) != 0)
		goto out;
	if (column_segments(&p, ind, val) != 0 || (k = read_rows(&p, ind, val)) < 0 ||
	    entry_columns(&p, entry) != 0)
		goto out;
	if (p.structural)
		extend_entries(&p, entry, ind, val);
	if (side_segments(&p, entry, ind, val) != 0)
		goto out;
	if (k > 0) {
		drv_note(c, "peak relaxation: a column may be negative, no bound");
		rc = 1;
		goto out;
	}
	/* Rows sit at the highest segment among their columns; sigma over the 90 % of the
	 * rows above that have each term moves the others down to where they have every
	 * lower term; then the strict sigma (the least over every row above: valid
	 * whatever the segments) */
	if (p.structural) {
		moved = structural_sigmas(&p, entry);
		if (moved == (size_t)-1)
			goto out;
		report_loss(&p, entry, "structural");
		{
			size_t na = 0;
			double b = 0;

			for (size_t q = 0; q < p.n_conj; q++)
				if (p.conj[q].active) {
					na++;
					b += p.conj[q].bytes;
				}
			size_t ne = 0, nx = 0;

			for (int j = 1; j <= p.ncol; j++) {
				ne += (entry[j] & 1) != 0;
				nx += (entry[j] & 1) && p.item[j] < 0;
			}
			drv_note(c, "peak relaxation: %zu saved values no backward op reads in "
			    "sigma (%.0f bytes in all, %zu groups); %zu entry columns, %zu of them "
			    "linking c or z columns", na, b * unit, p.n_group, ne, nx);
		}
	} else {
		if (sigmas(&p, entry, 0) != 0)
			goto out;
		moved = relocate(&p, entry);
		if (sigmas(&p, entry, 1) != 0)
			goto out;
		report_loss(&p, entry, "strict, rows moved down");
	}
	k = chain_bound(&p, entry, ind, val, until, &v, &pts);
	if (k < 0)
		goto out;
	if (k > 0) {
		drv_note(c, "peak relaxation: out of time after %.2fs", ilpi_now() - t1);
		rc = 1;
		goto out;
	}
	*lb = fmax(v, p.floor) * unit;
	drv_note(c, "peak relaxation: %zu rows moved down, %zu front points, bound %.0f bytes "
	    "(chain %.0f, floor %.0f), %.2fs", moved, pts, *lb, v * unit, p.floor * unit,
	    ilpi_now() - t1);
	rc = 0;
out:
	if (c->hooks != NULL)
		c->hooks->peak_relax_solves += p.n_solve;
	free(ind);
	free(val);
	free(entry);
	pp_free(&p);
	return rc;
}
