/*
 * blocks_combine.c - the combination of the class fronts (blocks_combine.h).
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "solver/blocks/blocks_combine.h"
#include "solver/blocks/heap.h"

/* V_lambda(at) - lambda * (cap - by): concave in lambda (V_lambda is a least of
 * functions linear in lambda), so its largest value over the ascending grid is found
 * by bisection; any value is a valid bound, so rounding cannot make it wrong. */
static double
lagrange(const ilpi_blocks_bounds *bd, size_t at, size_t l, int64_t by)
{
	double v = bd->vt[at * bd->nlam + l];

	return bd->lam[l] == 0 ? v : v - bd->lam[l] * (double)(bd->cap - by);
}

/* Lower bound on the cost of completing a point with by bytes at global state at:
 * DBL_MAX when no completion fits the cap. */
static double
rest_bound(const ilpi_blocks_bounds *bd, size_t at, int64_t by)
{
	size_t lo = 0, hi = bd->nlam - 1;

	if (bd->minb != NULL && (bd->minb[at] == INT64_MAX ||
	    (bd->cap >= 0 && by + bd->minb[at] > bd->cap)))
		return DBL_MAX;
	if (bd->vt[at * bd->nlam] == DBL_MAX)
		return DBL_MAX;   /* no completion, whatever lambda */
	if (bd->cap < 0)
		return bd->vt[at * bd->nlam];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lagrange(bd, at, mid, by) < lagrange(bd, at, mid + 1, by))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lagrange(bd, at, lo, by);
}

typedef struct bkey {
	double key;
	size_t i;
} bkey;

static int
cmp_bkey(const void *x, const void *y)
{
	const bkey *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Heuristic run: keeps the `beam` points of least cost plus bound of the rest, among
 * the kept points of state at (global indices from..from+kept, values in v). */
static int
beam_select(ilpi_blocks *b, const ilpi_blocks_bounds *bd, size_t at, size_t from, dval *v,
    size_t kept)
{
	dtrace *t = b->dp + from, *tt;
	dval *tv;
	bkey *k = malloc(kept * sizeof *k);

	tt = malloc(bd->beam * sizeof *tt);
	tv = malloc(bd->beam * sizeof *tv);
	if (k == NULL || tt == NULL || tv == NULL) {
		free(k), free(tt), free(tv);
		return -1;
	}
	for (size_t i = 0; i < kept; i++) {
		double lb = rest_bound(bd, at, v[i].bytes);

		k[i].key = lb == DBL_MAX ? DBL_MAX : v[i].cost + lb;
		k[i].i = i;
	}
	qsort(k, kept, sizeof *k, cmp_bkey);
	/* the chosen ones, back in ascending bytes (their original order) */
	for (size_t i = 1; i < bd->beam; i++)
		for (size_t j = i; j > 0 && k[j - 1].i > k[j].i; j--) {
			bkey x = k[j];

			k[j] = k[j - 1], k[j - 1] = x;
		}
	for (size_t i = 0; i < bd->beam; i++)
		tt[i] = t[k[i].i], tv[i] = v[k[i].i];
	memcpy(t, tt, bd->beam * sizeof *tt);
	memcpy(v, tv, bd->beam * sizeof *tv);
	free(k), free(tt), free(tv);
	return 0;
}

static int
val_reserve(ilpi_blocks *b, int w, size_t n)
{
	if (n <= b->cap_val[w])
		return 0;
	return ilpi_grow(&b->val[w], &b->cap_val[w], 0, n, sizeof *b->val[w]);
}

static int
dp_reserve(ilpi_blocks *b, size_t more)
{
	return ILPI_GROW(b->dp, b->cap_dp, b->n_dp, more);
}

/* Backward scalar programme: v[state] = least cost + lam * bytes of the rest (lam < 0:
 * least bytes, into minb). DBL_MAX / INT64_MAX: no completion. */
void
ilpi_blocks_rest_values(const ilpi_blocks *b, double lam, double *v, int64_t *minb)
{
	size_t last = b->soff[b->n_seg];

	if (v != NULL)
		v[last] = 0;
	if (minb != NULL)
		minb[last] = 0;
	for (size_t s = b->n_seg; s-- > 0;) {
		const bclass *cl = &b->cls[b->seg[s].cls];
		size_t nin = (size_t)1 << cl->n_in, nout = (size_t)1 << cl->n_out;

		for (size_t a = 0; a < nin; a++) {
			double best = DBL_MAX;
			int64_t bb = INT64_MAX;

			for (size_t o = 0; o < nout; o++) {
				size_t k = a | o << cl->n_in, at = b->soff[s + 1] + o;

				for (size_t j = 0; j < cl->fcnt[k]; j++) {
					const bpoint *q = &b->pt[cl->fbeg[k] + j];

					if (v != NULL && v[at] < DBL_MAX &&
					    q->cost + lam * (double)q->bytes + v[at] < best)
						best = q->cost + lam * (double)q->bytes + v[at];
					if (minb != NULL && minb[at] < INT64_MAX &&
					    q->bytes + minb[at] < bb)
						bb = q->bytes + minb[at];
				}
			}
			if (v != NULL)
				v[b->soff[s] + a] = best;
			if (minb != NULL)
				minb[b->soff[s] + a] = bb;
		}
	}
}

/* The path that attains ilpi_blocks_rest_values from cut 0: class point per segment in
 * path[]; returns its bytes and cost. lam < 0 follows minb (least bytes, then least
 * cost). */
void
ilpi_blocks_rest_path(const ilpi_blocks *b, double lam, const double *v,
    const int64_t *minb, int32_t *path, int64_t *bytes, double *cost)
{
	size_t a = 0;

	*bytes = 0, *cost = 0;
	for (size_t s = 0; s < b->n_seg; s++) {
		const bclass *cl = &b->cls[b->seg[s].cls];
		size_t nout = (size_t)1 << cl->n_out, next = 0;
		double best = DBL_MAX, bc = DBL_MAX;
		int64_t bb = INT64_MAX;

		path[s] = -1;
		for (size_t o = 0; o < nout; o++) {
			size_t k = a | o << cl->n_in, at = b->soff[s + 1] + o;

			for (size_t j = 0; j < cl->fcnt[k]; j++) {
				const bpoint *q = &b->pt[cl->fbeg[k] + j];
				int take;

				if (lam >= 0)
					take = v[at] < DBL_MAX &&
					    q->cost + lam * (double)q->bytes + v[at] < best;
				else
					take = minb[at] < INT64_MAX && (q->bytes + minb[at] < bb ||
					    (q->bytes + minb[at] == bb && q->cost < bc));
				if (take) {
					best = lam >= 0 ? q->cost + lam * (double)q->bytes + v[at] : 0;
					bb = lam >= 0 ? 0 : q->bytes + minb[at];
					bc = q->cost;
					path[s] = (int32_t)(cl->fbeg[k] + j);
					next = o;
				}
			}
		}
		if (path[s] < 0)
			return;
		*bytes += b->pt[path[s]].bytes;
		*cost += b->pt[path[s]].cost;
		a = next;
	}
}

static int
keep(const ilpi_blocks_bounds *bd, size_t at, int64_t by, double cost)
{
	double lb;

	if (bd == NULL)
		return 1;
	if ((lb = rest_bound(bd, at, by)) == DBL_MAX)
		return 0;
	if (bd->ub == DBL_MAX)
		return 1;
	return cost + lb <= bd->ub + 1e-9 * (1 + fabs(bd->ub));
}

static void
dp_reset(ilpi_blocks *b)
{
	b->n_dp = 0;
	b->final_beg = b->final_cnt = 0;
}


/* No state at any cut: the segments are independent. */
static int
independent(const ilpi_blocks *b)
{
	for (size_t c = 0; c <= b->n_seg; c++)
		if (ilpi_blocks_cut_len(b, c) != 0)
			return 0;
	return 1;
}

/* A run of the merge: points pi..pend of an entry state plus class point q. */
typedef struct brun {
	ilpi_heap_key head;       /* bytes and cost of the current head */
	const bpoint *q;
	int32_t qi;
	size_t pi, pend;
} brun;

/*
 * The run's next point not dominated by the last point kept (cost best): the entry
 * state's costs strictly descend, so the points that cannot beat best form a prefix
 * of the rest of the run; galloping skips it without touching the heap for each.
 */
static size_t
skip_dominated(const dval *pv, size_t pbase, const brun *r, double best)
{
	size_t lo = r->pi + 1, hi, step = 1;
	double qc = r->q->cost;

	if (lo >= r->pend || pv[lo - pbase].cost + qc < best)
		return lo;
	/* pv[lo] cannot beat best; find hi > lo that can (or pend) */
	while (lo + step < r->pend && pv[lo + step - pbase].cost + qc >= best) {
		lo += step;
		step *= 2;
	}
	hi = lo + step < r->pend ? lo + step : r->pend;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (pv[mid - pbase].cost + qc >= best)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Forward combination of the fronts; with bd, only points that can still be optimal. */
/* Whole (122 lines): one loop over the segments reusing its runs, heap and front
 * buffers from segment to segment. */
int
ilpi_blocks_combine(ilpi_blocks *b, const ilpi_blocks_bounds *bd)
{
	brun *run = NULL;
	size_t ncap = 0;
	int rc = -1;
	/* The complete front of independent segments: its front after a segment is the
	 * Pareto set of a sum of fronts, which in practice only grows from cut to cut. So
	 * the points kept so far, plus the current cut's for each cut still to come, are
	 * an estimate (from below) of the total; past the work limit, the combination
	 * stops at once instead of at the limit (the 100k-node graph: after 125 of 1,956
	 * segments and 1.15 M points, not 663 and 48 M). */
	int project = bd == NULL && independent(b);

	dp_reset(b);
	b->st.projected = 0;
	if (dp_reserve(b, 1) != 0 || val_reserve(b, 0, 1) != 0)
		goto out;
	memset(b->lcnt, 0, b->soff[b->n_seg + 1] * sizeof *b->lcnt);
	b->dp[0] = (dtrace){ -1, -1 };
	b->val[0][0] = (dval){ 0, 0 };
	b->cbase[0] = 0;
	b->n_dp = 1;
	b->lbeg[0] = 0, b->lcnt[0] = 1;
	for (size_t s = 0; s < b->n_seg; s++) {
		const bclass *cl = &b->cls[b->seg[s].cls];
		size_t nin = (size_t)1 << cl->n_in, nout = (size_t)1 << cl->n_out;
		const dval *pv = b->val[s & 1];
		size_t pbase = b->cbase[s & 1];
		int w = (s + 1) & 1;

		b->cbase[w] = b->n_dp;
		/* every segment (not every 64th: on 20,000 one-item segments of a very wide
		 * op, 64 of them took more than a second) */
		if (b->deadline > 0 && ilpi_now() > b->deadline) {
			rc = 1;   /* out of time: the caller falls back and reports the limit */
			goto out;
		}
		for (size_t o = 0; o < nout; o++) {
			size_t nr = 0, kept = 0, at = b->soff[s + 1] + o;
			double best = DBL_MAX;
			dval *cv;

			/* One run per (entry state, class point): the entry state's points
			 * plus that point, ascending in bytes. A heap merges the runs in
			 * (bytes, cost) order, so dominance is decided as they come and the
			 * bound is only evaluated for points that are not dominated. */
			for (size_t a = 0; a < nin; a++) {
				size_t k = a | o << cl->n_in, from = b->soff[s] + a;

				if (b->lcnt[from] == 0)
					continue;
				if (ILPI_GROW(run, ncap, nr, cl->fcnt[k]) != 0)
					goto out;
				for (size_t j = 0; j < cl->fcnt[k]; j++) {
					brun *r = &run[nr];

					r->q = &b->pt[cl->fbeg[k] + j];
					r->qi = (int32_t)(cl->fbeg[k] + j);
					r->pi = b->lbeg[from];
					r->pend = b->lbeg[from] + b->lcnt[from];
					r->head.bytes = pv[r->pi - pbase].bytes + r->q->bytes;
					r->head.cost = pv[r->pi - pbase].cost + r->q->cost;
					ilpi_heap_up(run, ++nr, sizeof *run);
				}
			}
			b->lbeg[at] = b->n_dp;
			while (nr > 0) {
				brun *r = &run[0];
				int64_t by = r->head.bytes;
				double co = r->head.cost;
				int drop = 0;

				if (bd != NULL && bd->cap >= 0 && bd->minb != NULL &&
				    bd->minb[at] < INT64_MAX && by + bd->minb[at] > bd->cap)
					drop = 1;   /* ascending bytes: the rest of the run too */
				else if (co < best && keep(bd, at, by, co)) {
					if (dp_reserve(b, 1) != 0 ||
					    val_reserve(b, w, b->n_dp + 1 - b->cbase[w]) != 0)
						goto out;
					best = co;
					b->dp[b->n_dp] = (dtrace){ (int32_t)r->pi, r->qi };
					b->val[w][b->n_dp - b->cbase[w]] = (dval){ by, co };
					b->n_dp++;
					kept++;
				}
				if (!drop && (r->pi = skip_dominated(pv, pbase, r, best)) < r->pend) {
					r->head.bytes = pv[r->pi - pbase].bytes + r->q->bytes;
					r->head.cost = pv[r->pi - pbase].cost + r->q->cost;
				} else {
					run[0] = run[--nr];
				}
				ilpi_heap_down(run, nr, sizeof *run);
			}
			cv = b->val[w] + (b->lbeg[at] - b->cbase[w]);
			if (bd != NULL && bd->beam > 0 && kept > bd->beam) {
				if (beam_select(b, bd, at, b->lbeg[at], cv, kept) != 0)
					goto out;
				kept = bd->beam;
				b->n_dp = b->lbeg[at] + kept;
			}
			b->lcnt[at] = kept;
			if (b->n_dp > b->max_points) {
				rc = 1;
				goto out;
			}
		}
		if (project && (double)b->n_dp + (double)(b->n_seg - 1 - s) *
		    (double)(b->n_dp - b->cbase[w]) > (double)b->max_points) {
			b->st.n_points = b->n_dp;
			b->st.projected = 1;
			rc = 1;
			goto out;
		}
	}
	b->final_beg = b->lbeg[b->soff[b->n_seg]];
	b->final_cnt = b->lcnt[b->soff[b->n_seg]];
	b->st.n_points = b->n_dp;
	b->st.front = b->final_cnt;
	rc = 0;
out:
	free(run);
	return rc;
}
