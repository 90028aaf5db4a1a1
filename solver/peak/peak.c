/*
 * peak.c - peak-memory rows for the ILP (docs/solver.md "Peak memory").
 *
 * The backward ops run in a fixed order whatever the partition (torch 2.6's autograd
 * order, graph/memsim.c; only
 * recomputation moves), so the bytes they allocate at each step are a constant profile.
 * What the partition adds is interval-shaped over that order:
 *   - a saved storage lives from the end of its forward life to the end of the
 *     forward, and in the backward at least until its last backward user;
 *   - a recomputed value lives at least from its first to its last backward user.
 * Between two consecutive interval ends the set of active terms is the same, so one
 * row at that segment's largest constant dominates the others: rows P >= constant +
 * active terms at O(intervals) candidate steps, no variable per value and step.
 * Each row is a lower bound of the simulated memory at that step (recomputation
 * chains placed earlier, saved values kept for recomputed users, and transients inside
 * a recomputation chain are not counted), so the optimum of P bounds the least peak from
 * below; the solver simulates its answer (graph/memsim.c) and reports the gap.
 */
#include "config.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/grow.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "solver/model/model.h"
#include "solver/peak/peak.h"
#include "solver/peak/peak_offload.h"
#include "solver/model/reduce.h"

typedef struct term {
	int col;
	double coef;          /* model bytes */
	int32_t lo, hi;       /* active steps, inclusive */
} term;

typedef struct peak_build {
	const ilp_graph *g;
	ilpi_model *m;
	size_t dense_nz;      /* past this many nonzeros: running sums (add_rows) */
	int32_t *step;        /* node -> its step on its side, -1 */
	int32_t *first, *last;/* node -> its first / last backward user's step, -1 */
	int32_t *tmin;       /* node -> first backward step that needs it transitively, -1 */
	int32_t *st, *en;     /* storage root -> live steps in the fixed profile */
	int64_t *delta;       /* difference array of the fixed profile */
	double *base;         /* fixed profile, bytes per step */
	double *ext;          /* difference array of the extensions' -1 terms (extension) */
	term *t;
	size_t n_t, cap_t;
	int32_t nf, nb;       /* forward and backward steps */
	double *bw_us;        /* with offload: each backward step's time (us) */
	double r_all;         /* with offload: every recomputable op's time (us) */
} peak_build;

static int
add_term(peak_build *b, int col, double bytes, int32_t lo, int32_t hi)
{
	if (col == 0 || bytes <= 0 || lo > hi)
		return 0;
	if (ILPI_GROW(b->t, b->cap_t, b->n_t, 1) != 0)
		return -1;
	b->t[b->n_t++] = (term){ col, bytes / b->m->byte_unit, lo, hi };
	return 0;
}

/* -o_I * bytes on steps lo..hi: where an offloaded item may be off the device. */
static int
add_off_term(peak_build *b, int32_t it, double bytes, int32_t lo, int32_t hi)
{
	if (bytes <= 0 || lo > hi)
		return 0;
	if (ILPI_GROW(b->t, b->cap_t, b->n_t, 1) != 0)
		return -1;
	b->t[b->n_t++] = (term){ b->m->col_o[it], -bytes / b->m->byte_unit, lo, hi };
	return 0;
}

/* An offloadable item saved (peak_offload.h): its saved terms count it on the steps
 * lo..hi of the forward after its last forward use and from the backward's start to
 * its last backward user; take it off again (-o) where some partition that offloads
 * it has it on the host: the forward's steps past its sure window, the backward's
 * before its first backward-class reader less those from which even every op that
 * could be recomputed, with the backward's own up to that reader, takes less than
 * the copy back. fb: that reader's step (< 0: none; then its extension's steps are
 * all taken off). */
static int
offload_terms(peak_build *b, int32_t it, double bytes, int32_t lo, int32_t fb,
    int32_t ext_lo, int32_t ext_hi)
{
	const ilp_graph *g = b->g;
	int32_t sure = ilpi_pc_off_fw_sure(g, b->m, (size_t)it), from = b->nf, t;
	double acc = 0, x = b->m->off_xfer[it];

	for (size_t i = (size_t)sure + 1; i < g->n; i++)
		if (g->node[i].cls == ILPI_FORWARD && b->step[i] >= 0 &&
		    b->step[i] < b->nf) {
			from = b->step[i];
			break;
		}
	if (add_off_term(b, it, bytes, from > lo ? from : lo, b->nf - 1) != 0)
		return -1;
	if (fb < 0)
		return add_off_term(b, it, bytes, ext_lo, ext_hi);
	/* on the device for sure at step t < fb when the compute strictly between t and
	 * fb, with everything recomputed there, is below the copy's time */
	for (t = fb - 1; t >= b->nf && acc + b->r_all < x; t--)
		acc += b->bw_us[t];
	return add_off_term(b, it, bytes, b->nf, t);
}

/* The fixed profile of one side: values `cls` ops that run (step >= 0), each live from
 * its step (a getitem: its tuple's) to its last user of the same side, or to `end`
 * when held. */
static void
side_profile(peak_build *b, int cls, int32_t end, const uint8_t *held)
{
	const ilp_graph *g = b->g;

	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const int32_t *use = ilpi_users(g, n);
		const int32_t *in = ilpi_inputs(g, n);
		int32_t prod = b->step[i], die, s = n->storage;

		if (n->cls != cls || n->kind != ILPI_OP || prod < 0)
			continue;
		/* the op's workspace, at its own step (it runs in every partition) */
		b->delta[prod] += n->workspace;
		b->delta[prod + 1] -= n->workspace;
		/* a getitem is allocated with its tuple, when that runs on this side (a
		 * backward getitem of a forward tuple runs at its own step) */
		if ((n->flags & ILPI_F_GETITEM) && n->in_count == 1 && b->step[in[0]] >= 0 &&
		    g->node[in[0]].cls == cls)
			prod = b->step[in[0]];
		die = b->step[i];
		for (uint32_t k = 0; k < n->use_count; k++)
			if (g->node[use[k]].cls == cls && b->step[use[k]] > die)
				die = b->step[use[k]];
		if (held[i])
			die = end;
		if (g->node[s].cls != cls)
			continue; /* a view of another side's value: not this side's bytes */
		if (b->st[s] < 0 || prod < b->st[s])
			b->st[s] = prod;
		if (die > b->en[s])
			b->en[s] = die;
	}
	for (size_t s = 0; s < g->n; s++) {
		if (b->st[s] < 0 || g->node[s].cls != cls)
			continue;
		b->delta[b->st[s]] += ilpi_live_bytes(g, (int32_t)s);
		b->delta[b->en[s] + 1] -= ilpi_live_bytes(g, (int32_t)s);
	}
}

static int
cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Steps: forward ops (class forward) in graph order, then the backward ops the
 * gradients need, in torch's backward order. bw->op and order hold g->n entries. */
static void
number_steps(peak_build *b, uint8_t *need, ilpi_side *bw, int32_t *order)
{
	const ilp_graph *g = b->g;

	for (size_t i = 0; i < g->n; i++)
		b->step[i] = b->first[i] = b->last[i] = -1;
	ilpi_backward_needed(g, need);
	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind == ILPI_OP && g->node[i].cls == ILPI_FORWARD)
			b->step[i] = b->nf++;
	/* The backward ops in the order torch 2.6 runs them (graph/memsim.c, from the
	 * first tangent user; an op that uses no tangent may run after it): graph order
	 * differs, and a row then counted a value live at a step it is not. */
	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind == ILPI_OP && g->node[i].cls == ILPI_BACKWARD && need[i])
			bw->op[bw->n_op++] = (int32_t)i;
	bw->out = (int32_t *)g->bw_out;
	bw->n_out = g->n_bw_out;
	(void)ilpi_autograd_order(g, bw, order); /* graph order when it cannot */
	for (size_t k = 0; k < bw->n_op; k++)
		b->step[order[k]] = b->nf + b->nb++;
	/* The first backward step that needs a value through any path: recomputation of
	 * it cannot be placed earlier. */
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *use = ilpi_users(g, n);

		b->tmin[i] = -1;
		for (uint32_t k = 0; k < n->use_count; k++) {
			int32_t u = use[k], t = g->node[u].cls == ILPI_BACKWARD ? b->step[u] :
			    b->tmin[u];

			if (t >= b->nf && (b->tmin[i] < 0 || t < b->tmin[i]))
				b->tmin[i] = t;
		}
	}
	/* Backward users of every value: the first and last backward step needing it. */
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);

		if (n->cls != ILPI_BACKWARD || b->step[i] < 0)
			continue;
		for (uint32_t k = 0; k < n->in_count; k++) {
			int32_t v = in[k];

			if (b->first[v] < 0 || b->step[i] < b->first[v])
				b->first[v] = b->step[i];
			if (b->step[i] > b->last[v])
				b->last[v] = b->step[i];
		}
	}
}


/* Saved item `it` (storage `bytes`) lives past step `hi` when a recomputed user runs
 * later: the user item whose earliest step is latest gives (s + r_u - 1) * bytes on
 * (hi, that step - 1] (the user's batch runs before that step, which may find the value
 * freed); the -1 goes into the constant profile. */
static int
extension(peak_build *b, int32_t it, double bytes, int32_t hi, int32_t *elo, int32_t *ehi)
{
	const ilp_graph *g = b->g;
	const ilpi_reduced *red = b->m->red;
	const ilpi_node *n = &g->node[red->item[it].rep];
	const int32_t *use = ilpi_users(g, n);
	int32_t best_u = -1, best_t = hi;

	for (uint32_t k = 0; k < n->use_count; k++) {
		int32_t u = use[k], ui = red->item_of[u];

		if (g->node[u].cls == ILPI_BACKWARD || ui < 0 || b->m->col_r[ui] == 0 ||
		    ui == it || b->tmin[u] <= best_t)
			continue;
		best_u = ui;
		best_t = b->tmin[u];
	}
	/* The user's batch runs before step best_t: by that step's own allocations the
	 * saved value may already be freed, so the extension ends at the step before. */
	best_t--;
	*elo = 1;
	*ehi = 0;
	if (best_u < 0 || best_t <= hi)
		return 0;
	*elo = hi + 1;
	*ehi = best_t;
	if (add_term(b, b->m->col_s[it], bytes, hi + 1, best_t) != 0 ||
	    add_term(b, b->m->col_r[best_u], bytes, hi + 1, best_t) != 0)
		return -1;
	b->ext[hi + 1] += bytes;
	b->ext[best_t + 1] -= bytes;
	return 0;
}

/* Saved storages: forward life extended to the end of the forward, backward life
 * until the last backward user of the item of the class used latest. */
static int
saved_terms(peak_build *b, const uint8_t *out_root, int32_t *pos_of)
{
	const ilp_graph *g = b->g;
	const ilpi_reduced *red = b->m->red;
	int32_t *best = malloc((red->n_stor + 1) * sizeof *best);
	int *col = malloc((red->n_stor + 1) * sizeof *col);

	if (best == NULL || col == NULL) {
		free(best);
		free(col);
		return -1;
	}
	/* The column that says storage class k is saved: y_k, or its one saveable item's
	 * s (the first, as the model numbers them). */
	for (size_t k = 0; k < red->n_stor; k++) {
		best[k] = -1;
		col[k] = b->m->col_y[k] ? b->m->col_y[k] : -1;
	}
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];

		if (item->can_save && col[item->stor] < 0)
			col[item->stor] = b->m->col_s[it];
		if (!item->can_save || b->m->col_s[it] == 0)
			continue;
		if (best[item->stor] < 0 ||
		    b->last[item->rep] > b->last[red->item[best[item->stor]].rep])
			best[item->stor] = (int32_t)it;
	}
	for (size_t k = 0; k < red->n_stor; k++) {
		int32_t root = red->stor_root[k], lo, hi, elo = 1, ehi = 0;
		double bytes = (double)ilpi_live_bytes(g, root);

		if (bytes <= 0 || col[k] <= 0 || best[k] < 0)
			continue;
		/* Forward: alive after its last forward use (or, unclaimed, from where the
		 * forward computes it) to the end of the forward. */
		if (g->node[root].cls == ILPI_FORWARD)
			lo = b->en[root] + 1;
		else
			lo = pos_of[root];
		if (add_term(b, col[k], bytes, lo, b->nf - 1) != 0)
			goto fail;
		if (out_root[root])
			continue; /* the caller holds it through the backward anyway */

		/* A saved value is a backward input: live from the backward's first step
		 * to its last backward user. One that no backward op reads (only
		 * recomputed users do) may be freed before the first backward op
		 * allocates: its recomputed users run in that op's batch, before it
		 * (the 40-byte f0 of peak_budget_least_time_matches_enumeration's seed 12,
		 * counted at b2's step, put the row 32 bytes above a partition's simulated
		 * peak); the extension below covers it. */
		hi = b->last[red->item[best[k]].rep];
		if (hi >= b->nf && add_term(b, b->m->col_s[best[k]], bytes, b->nf, hi) != 0)
			goto fail;
		if (hi < b->nf)
			hi = b->nf;
		/* ... and, when a user is recomputed, until that user can run at the
		 * earliest: (s + r_u - 1) is a lower bound of "saved and user recomputed". */
		if (extension(b, best[k], bytes, hi, &elo, &ehi) != 0)
			goto fail;
		if (b->m->col_o != NULL && b->m->col_o[best[k]] != 0) {
			int32_t fb = -1;

			for (size_t w = 0; w < g->n; w++)
				if (g->node[w].storage == root && b->first[w] >= 0 &&
				    (fb < 0 || b->first[w] < fb))
					fb = b->first[w];
			if (offload_terms(b, best[k], bytes, lo, fb, elo, ehi) != 0)
				goto fail;
		}
	}
	free(best);
	free(col);
	return 0;
fail:
	free(best);
	free(col);
	return -1;
}

/* Recomputed values: fresh storage from the first to the last backward user. */
static int
recompute_terms(peak_build *b)
{
	const ilp_graph *g = b->g;
	const ilpi_reduced *red = b->m->red;

	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];

		if (b->m->col_r[it] == 0)
			continue;
		for (uint32_t k = 0; k < item->mem_count; k++) {
			int32_t v = red->member[item->mem_begin + k];
			const ilpi_node *n = &g->node[v];

			if (n->view_of != ILPI_NONE || b->first[v] < 0)
				continue;
			if (add_term(b, b->m->col_r[it], (double)ilpi_live_bytes(g, v), b->first[v],
			    b->last[v]) != 0)
				return -1;
		}
	}
	return 0;
}

typedef struct keyed {
	int32_t key;            /* a term's first or last active step */
	size_t k;               /* the term */
} keyed;

typedef struct sweep {
	const peak_build *b;
	keyed *by_lo, *by_hi;   /* the terms by first / last active step */
	size_t i_lo, i_hi;      /* next term of each order to pass */
	int32_t *slot;          /* term -> its place in act, -1: not active */
	size_t *act;            /* the active terms */
	size_t n_act;
} sweep;

static int
cmp_keyed(const void *pa, const void *pb)
{
	const keyed *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

static int
cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return (a > b) - (a < b);
}

static int
sweep_init(sweep *w, const peak_build *b)
{
	memset(w, 0, sizeof *w);
	w->b = b;
	w->by_lo = malloc((b->n_t + 1) * sizeof *w->by_lo);
	w->by_hi = malloc((b->n_t + 1) * sizeof *w->by_hi);
	w->slot = malloc((b->n_t + 1) * sizeof *w->slot);
	w->act = malloc((b->n_t + 1) * sizeof *w->act);
	if (w->by_lo == NULL || w->by_hi == NULL || w->slot == NULL || w->act == NULL)
		return -1;
	for (size_t k = 0; k < b->n_t; k++) {
		w->by_lo[k] = (keyed){ b->t[k].lo, k };
		w->by_hi[k] = (keyed){ b->t[k].hi, k };
		w->slot[k] = -1;
	}
	qsort(w->by_lo, b->n_t, sizeof *w->by_lo, cmp_keyed);
	qsort(w->by_hi, b->n_t, sizeof *w->by_hi, cmp_keyed);
	return 0;
}

/* Back to the first step, the orders kept (the second pass of add_rows). */
static void
sweep_rewind(sweep *w)
{
	for (size_t k = 0; k < w->n_act; k++)
		w->slot[w->act[k]] = -1;
	w->i_lo = w->i_hi = w->n_act = 0;
}

static void
sweep_free(sweep *w)
{
	free(w->by_lo);
	free(w->by_hi);
	free(w->slot);
	free(w->act);
}

/* Moves the sweep to step `at` (never backwards): the terms active there are act[].
 * With `diff`, each term that became active is reported with +1 and each that stopped
 * with -1 (a term that starts and ends between two visited steps is never active). */
static void
sweep_to(sweep *w, int32_t at, void (*diff)(void *, size_t, double), void *arg)
{
	const term *t = w->b->t;

	for (; w->i_lo < w->b->n_t && w->by_lo[w->i_lo].key <= at; w->i_lo++) {
		size_t k = w->by_lo[w->i_lo].k;

		if (t[k].hi < at)
			continue;
		w->slot[k] = (int32_t)w->n_act;
		w->act[w->n_act++] = k;
		if (diff != NULL)
			diff(arg, k, 1);
	}
	for (; w->i_hi < w->b->n_t && w->by_hi[w->i_hi].key < at; w->i_hi++) {
		size_t k = w->by_hi[w->i_hi].k, last;

		if (w->slot[k] < 0)
			continue;
		last = w->act[--w->n_act];
		w->act[w->slot[k]] = last;
		w->slot[last] = w->slot[k];
		w->slot[k] = -1;
		if (diff != NULL)
			diff(arg, k, -1);
	}
}

/* A row under construction: one entry per column, coefficients summed (one column may
 * carry several terms: an item's members; glp_set_mat_row refuses repeats). */
typedef struct rowacc {
	int *ind;
	double *val, *acc;
	int len;
	const peak_build *b;
} rowacc;

static void
row_put(rowacc *r, int col, double v)
{
	if (r->acc[col] == 0)
		r->ind[++r->len] = col;
	r->acc[col] += v;
}

static void
row_diff(void *arg, size_t k, double sign)
{
	rowacc *r = arg;

	row_put(r, r->b->t[k].col, -sign * r->b->t[k].coef);
}

/* Takes the summed coefficients into val[], dropping columns that cancelled. */
static int
row_take(rowacc *r, int from)
{
	int len = from - 1;

	for (int k = from; k <= r->len; k++) {
		double v = r->acc[r->ind[k]];

		r->acc[r->ind[k]] = 0;
		if (v != 0) {
			r->ind[++len] = r->ind[k];
			r->val[len] = v;
		}
	}
	r->len = len;
	return len;
}

/* One row per segment between consecutive term ends, at its largest constant: P >=
 * constant + the terms active there. Dense (every active term in the row) while the
 * rows hold at most b->dense_nz nonzeros; past that, the same rows through running
 * sums S_c = S_(c-1) + (terms that became active) - (terms that stopped), P - S_c >=
 * constant: the same LP, O(terms) nonzeros. */
static int
add_rows(peak_build *b, ilpi_peak_rows *pr)
{
	int32_t total = b->nf + b->nb, *cut = malloc((2 * b->n_t + 4) * sizeof *cut);
	int32_t *seg = malloc((2 * b->n_t + 4) * sizeof *seg);
	int n_cols = glp_get_num_cols(b->m->lp);
	size_t n_cut = 0, n_seg = 0, nz = 0, *ks = malloc((b->n_t + 1) * sizeof *ks);
	rowacc r = { NULL, NULL, NULL, 0, b };
	double floor_p = 0;
	int prev = 0, rc = -1;
	sweep w;

	int32_t *op_at = malloc(((size_t)total + 1) * sizeof *op_at);

	r.ind = malloc(((size_t)n_cols + b->n_t + 2) * sizeof *r.ind);
	r.val = malloc(((size_t)n_cols + b->n_t + 2) * sizeof *r.val);
	r.acc = calloc((size_t)n_cols + 2, sizeof *r.acc);
	pr->row_no = malloc((2 * b->n_t + 4) * sizeof *pr->row_no);
	pr->row_op = malloc((2 * b->n_t + 4) * sizeof *pr->row_op);
	if (sweep_init(&w, b) != 0 || cut == NULL || seg == NULL || ks == NULL ||
	    r.ind == NULL || r.val == NULL || r.acc == NULL || op_at == NULL ||
	    pr->row_no == NULL || pr->row_op == NULL)
		goto out;
	for (int32_t t = 0; t <= total; t++)
		op_at[t] = -1;
	for (size_t i = 0; i < b->g->n; i++)
		if (b->step[i] >= b->nf && b->step[i] < total)
			op_at[b->step[i]] = (int32_t)i;
	cut[n_cut++] = 0;
	cut[n_cut++] = b->nf;
	cut[n_cut++] = total;
	for (size_t k = 0; k < b->n_t; k++) {
		cut[n_cut++] = b->t[k].lo;
		cut[n_cut++] = b->t[k].hi + 1;
	}
	qsort(cut, n_cut, sizeof *cut, cmp_i32);
	/* Each segment's step: its largest constant. */
	for (size_t c = 0; c + 1 < n_cut; c++) {
		int32_t lo = cut[c], hi = cut[c + 1] - 1, at = lo;

		if (lo > hi || lo >= total)
			continue;
		for (int32_t t = lo; t <= hi; t++)
			if (b->base[t] > b->base[at])
				at = t;
		seg[n_seg++] = at;
	}
	for (size_t c = 0; c < n_seg; c++) {
		sweep_to(&w, seg[c], NULL, NULL);
		nz += w.n_act;
	}
	sweep_rewind(&w);
	pr->n_sums = nz > b->dense_nz ? (int)n_seg : 0;
	for (size_t c = 0; c < n_seg; c++) {
		int32_t at = seg[c];
		int row, sum = 0;

		r.len = 0;
		if (pr->n_sums == 0) {
			sweep_to(&w, at, NULL, NULL);
			/* in term order, as the terms were made */
			memcpy(ks, w.act, w.n_act * sizeof *ks);
			qsort(ks, w.n_act, sizeof *ks, cmp_size);
			r.ind[++r.len] = pr->col;
			for (size_t k = 0; k < w.n_act; k++)
				row_put(&r, b->t[ks[k]].col, -b->t[ks[k]].coef);
			row_take(&r, 2);
			r.val[1] = 1;
		} else {
			/* S_c - S_(c-1) - added + stopped = 0 */
			sum = glp_add_cols(b->m->lp, 1);
			glp_set_col_kind(b->m->lp, sum, GLP_CV);
			glp_set_col_bnds(b->m->lp, sum, GLP_LO, 0, 0);
			r.ind[++r.len] = sum;
			if (prev != 0)
				r.ind[++r.len] = prev;
			sweep_to(&w, at, row_diff, &r);
			row_take(&r, prev != 0 ? 3 : 2);
			r.val[1] = 1;
			if (prev != 0)
				r.val[2] = -1;
			row = glp_add_rows(b->m->lp, 1);
			glp_set_mat_row(b->m->lp, row, r.len, r.ind, r.val);
			glp_set_row_bnds(b->m->lp, row, GLP_FX, 0, 0);
			prev = sum;
			r.len = 2;
			r.ind[1] = pr->col;
			r.val[1] = 1;
			r.ind[2] = sum;
			r.val[2] = -1;
			if (w.n_act == 0)
				r.len = 1;
		}
		if (r.len == 1) {
			if (b->base[at] > floor_p)
				floor_p = b->base[at];
			continue;
		}
		row = glp_add_rows(b->m->lp, 1);
		glp_set_mat_row(b->m->lp, row, r.len, r.ind, r.val);
		glp_set_row_bnds(b->m->lp, row, GLP_LO, b->base[at] / b->m->byte_unit, 0);
		pr->row_no[pr->n_rows] = row;
		pr->row_op[pr->n_rows] = op_at[at];
		pr->n_rows++;
	}
	glp_set_col_bnds(b->m->lp, pr->col, GLP_LO, floor_p / b->m->byte_unit, 0);
	rc = 0;
out:
	sweep_free(&w);
	free(cut);
	free(seg);
	free(ks);
	free(r.ind);
	free(r.val);
	free(r.acc);
	free(op_at);
	return rc;
}

void
ilpi_peak_rows_free(ilpi_peak_rows *pr)
{
	free(pr->row_no);
	free(pr->row_op);
	pr->row_no = NULL;
	pr->row_op = NULL;
}

int
ilpi_peak_rows_add(const ilp_graph *g, ilpi_model *m, ilpi_peak_rows *pr, size_t dense_nz,
    ilp_error *err)
{
	peak_build b;
	uint8_t *need = NULL, *held = NULL, *out_root = NULL;
	int32_t *pos_of = NULL, *order = NULL;
	ilpi_side bw;
	int rc = -1;
	int64_t outputs = 0;

	memset(&b, 0, sizeof b);
	memset(pr, 0, sizeof *pr);
	b.g = g;
	b.m = m;
	b.dense_nz = dense_nz;
	b.step = malloc((g->n + 1) * sizeof *b.step);
	b.first = malloc((g->n + 1) * sizeof *b.first);
	b.last = malloc((g->n + 1) * sizeof *b.last);
	b.tmin = malloc((g->n + 1) * sizeof *b.tmin);
	b.st = malloc((g->n + 1) * sizeof *b.st);
	b.en = malloc((g->n + 1) * sizeof *b.en);
	b.delta = calloc(g->n + 3, sizeof *b.delta);
	b.base = calloc(g->n + 3, sizeof *b.base);
	b.ext = calloc(g->n + 3, sizeof *b.ext);
	b.bw_us = calloc(g->n + 3, sizeof *b.bw_us);
	need = malloc(g->n + 1);
	held = calloc(g->n + 1, 1);
	out_root = calloc(g->n + 1, 1);
	pos_of = malloc((g->n + 1) * sizeof *pos_of);
	memset(&bw, 0, sizeof bw);
	bw.op = malloc((g->n + 1) * sizeof *bw.op);
	order = malloc((g->n + 1) * sizeof *order);
	if (b.step == NULL || b.first == NULL || b.last == NULL || b.tmin == NULL ||
	    b.st == NULL ||
	    b.en == NULL || b.delta == NULL || b.base == NULL || b.ext == NULL ||
	    b.bw_us == NULL || need == NULL ||
	    held == NULL ||
	    out_root == NULL || pos_of == NULL || bw.op == NULL || order == NULL)
		goto out;
	number_steps(&b, need, &bw, order);
	if (m->col_o != NULL) {
		for (size_t i = 0; i < g->n && i < m->n_nodes; i++)
			if (g->node[i].cls == ILPI_BACKWARD && b.step[i] >= b.nf)
				b.bw_us[b.step[i]] = m->node_us[i];
		b.r_all = ilpi_pc_off_recompute_all(g, m);
	}
	for (size_t i = 0; i < g->n; i++)
		b.st[i] = b.en[i] = -1;
	/* Forward: its outputs live to its end. */
	for (size_t k = 0; k < g->n_fw_out; k++) {
		held[g->fw_out[k]] = 1;
		out_root[g->node[g->fw_out[k]].storage] = 1;
	}
	side_profile(&b, ILPI_FORWARD, b.nf - 1, held);
	/* Where the forward would compute an unclaimed value it saves: before the first
	 * forward op that comes after it in the graph. */
	for (size_t i = 0, f = 0; i < g->n; i++) {
		pos_of[i] = (int32_t)f;
		if (b.step[i] >= 0 && g->node[i].cls == ILPI_FORWARD)
			f++;
	}
	/* Backward: the gradients are held to its end; the forward's user outputs are a
	 * constant the caller holds. */
	memset(held, 0, g->n + 1);
	for (size_t k = 0; k < g->n_bw_out; k++)
		if (g->bw_out[k] != ILPI_NONE)
			held[g->bw_out[k]] = 1;
	/* Storages are per class, so the forward's st/en (saved_terms reads them) stay. */
	side_profile(&b, ILPI_BACKWARD, b.nf + b.nb - 1, held);
	for (size_t s = 0; s < g->n; s++)
		if (out_root[s])
			outputs += ilpi_live_bytes(g, (int32_t)s);
	{
		int64_t cur = 0;

		for (int32_t t = 0; t < b.nf + b.nb; t++) {
			cur += b.delta[t];
			b.base[t] = (double)cur + (t >= b.nf ? (double)outputs : 0);
		}
	}
	pr->col = glp_add_cols(m->lp, 1);
	glp_set_col_name(m->lp, pr->col, "peak");
	glp_set_col_kind(m->lp, pr->col, GLP_CV);
	if (saved_terms(&b, out_root, pos_of) != 0 || recompute_terms(&b) != 0)
		goto out;
	{
		double cur = 0;

		for (int32_t t = 0; t < b.nf + b.nb; t++) {
			cur += b.ext[t];
			b.base[t] -= cur;
		}
	}
	if (add_rows(&b, pr) != 0)
		goto out;
	pr->n_steps = b.nf + b.nb;
	rc = 0;
out:
	if (rc != 0)
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	free(b.step);
	free(b.first);
	free(b.last);
	free(b.tmin);
	free(b.st);
	free(b.en);
	free(b.delta);
	free(b.base);
	free(b.ext);
	free(b.bw_us);
	free(b.t);
	free(need);
	free(held);
	free(out_root);
	free(pos_of);
	free(bw.op);
	free(order);
	return rc;
}
