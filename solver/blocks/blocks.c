/*
 * blocks.c - exact budgeted solves by decomposition along narrow cuts (blocks.h).
 *
 * The model (docs/solver.md) couples items only through its rows: s_I + r_I <= 1,
 * r_V <= s_U + r_U for an input U of V, s_I <= y_k for a shared storage k; saved bytes
 * and recompute cost are sums over items and storages. In a row-topological order, the
 * rows crossing a cut see the left side only through a_U = s_U + r_U (0 or 1, the value
 * is available) of left items with a right user, and through y_k of storages with items
 * on both sides: the cut's state. Given the states at both ends, a segment's decisions
 * are independent of everything else, so the front of the whole model is the
 * Minkowski sum, state by state, of the segments' fronts: exact, whatever the graph.
 * Repetition (identical layers) only makes it cheap: identical segments share one
 * class, solved once.
 *
 * The plan is blocks_plan.c, the class fronts blocks_fronts.c, the combination
 * blocks_combine.c; this file reads answers from them.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "graph/strbuf.h"
#include "solver/blocks/blocks.h"
#include "solver/blocks/blocks_combine.h"
#include "solver/blocks/blocks_fronts.h"
#include "solver/blocks/blocks_plan.h"
#include "solver/blocks/mck.h"

enum {
	MAX_COUNT_POINTS = 8000000,   /* points of the combination by counts (24 bytes) */
	NLAM = 17,                /* geometric multipliers around the budget's crossing */
	MAX_LAM = 192,            /* multipliers of the bounds, at most */
	BEAM = 128                /* points per state in the heuristic run */
};

int
ilpi_blocks_prepare(ilpi_blocks *b, ilp_error *err)
{
	size_t nst;
	int rc;

	for (size_t c = 0; c < b->n_cls; c++)
		if (!b->cls[c].done && (rc = ilpi_blocks_class_fronts(b, c)) != 0) {
			if (rc < 0)
				ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
			return rc;
		}
	if (b->soff != NULL)
		return 0;
	b->soff = malloc((b->n_seg + 2) * sizeof *b->soff);
	if (b->soff == NULL)
		goto nomem;
	b->soff[0] = 0;
	for (size_t c = 0; c <= b->n_seg; c++)
		b->soff[c + 1] = b->soff[c] + ((size_t)1 << ilpi_blocks_cut_len(b, c));
	nst = b->soff[b->n_seg + 1];
	b->lbeg = calloc(nst, sizeof *b->lbeg);
	b->lcnt = calloc(nst, sizeof *b->lcnt);
	b->minb = malloc(nst * sizeof *b->minb);
	b->path = malloc((b->n_seg + 1) * sizeof *b->path);
	b->v0 = malloc(nst * sizeof *b->v0);
	b->vt = malloc(nst * MAX_LAM * sizeof *b->vt);
	b->lam = malloc(MAX_LAM * sizeof *b->lam);
	if (b->v0 == NULL || b->vt == NULL || b->lam == NULL || b->lbeg == NULL || b->lcnt == NULL || b->minb == NULL || b->path == NULL)
		goto nomem;
	ilpi_blocks_rest_values(b, -1, NULL, b->minb);
	return 0;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
	return -1;
}

int
ilpi_blocks_front(ilpi_blocks *b, ilp_error *err)
{
	int rc;

	if ((rc = ilpi_blocks_prepare(b, err)) != 0)
		return rc;
	if ((rc = ilpi_blocks_combine(b, NULL)) < 0)
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
	return rc;
}

/* Lowers a path (class point per segment). */
static void
lower_path(const ilpi_blocks *b, const int32_t *path, uint8_t *s, uint8_t *r)
{
	memset(s, 0, b->red->n_items);
	memset(r, 0, b->red->n_items);
	for (size_t sg = 0; sg < b->n_seg; sg++) {
		const bclass *cl = &b->cls[b->seg[sg].cls];
		const uint8_t *sol = cl->sol + (size_t)b->pt[path[sg]].sol * 2 * (size_t)cl->n_own;

		for (int k = 0; k < cl->n_own; k++) {
			int32_t it = b->ord[b->seg[sg].lo + k];

			s[it] = sol[k];
			r[it] = sol[cl->n_own + k];
		}
	}
}

int64_t
ilpi_blocks_least_bytes(ilpi_blocks *b, uint8_t *s, uint8_t *r)
{
	int64_t bytes;
	double cost;

	if (b->minb[0] == INT64_MAX)
		return -1;
	ilpi_blocks_rest_path(b, -1, NULL, b->minb, b->path, &bytes, &cost);
	lower_path(b, b->path, s, r);
	return bytes;
}

static const dval *
final_val(const ilpi_blocks *b, size_t i)
{
	int w = (int)(b->n_seg & 1);

	return &b->val[w][b->final_beg + i - b->cbase[w]];
}

/* The best point of the last combination: least cost, then the least bytes among the
 * points within 1e-9 (relative) of it, as the monolithic path's level rows. */
static int
best_final(ilpi_blocks *b, int64_t *bytes, double *cost, uint8_t *s, uint8_t *r)
{
	size_t i = 0;
	double least, lim;

	if (b->final_cnt == 0)
		return 1;
	least = final_val(b, b->final_cnt - 1)->cost;
	lim = least + 1e-9 * (fabs(least) > 1 ? fabs(least) : 1);
	while (final_val(b, i)->cost > lim)
		i++;
	ilpi_blocks_point(b, i, bytes, cost);
	ilpi_blocks_lower(b, i, s, r);
	return 0;
}

int
ilpi_blocks_runtime_optimal(ilpi_blocks *b, int64_t *bytes, double *cost, uint8_t *s,
    uint8_t *r, ilp_error *err)
{
	double lam0 = 0, c0;
	int64_t b0;
	ilpi_blocks_bounds bd;
	int rc;

	ilpi_blocks_rest_values(b, 0, b->v0, NULL);
	if (b->v0[0] == DBL_MAX)
		return 1;
	ilpi_blocks_rest_path(b, 0, b->v0, NULL, b->path, &b0, &c0);
	/* least bytes among the partitions within 1e-9 of the least cost, as the
	 * monolithic path's second stage */
	bd.cap = -1;
	bd.ub = b->v0[0] + 1e-9 * (fabs(b->v0[0]) > 1 ? fabs(b->v0[0]) : 1);
	bd.nlam = 1;
	bd.beam = 0;
	bd.lam = &lam0;
	bd.vt = b->v0;
	bd.minb = b->minb;
	if ((rc = ilpi_blocks_combine(b, &bd)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	if (rc != 0 || b->final_cnt == 0)
		return 1;
	/* the front is ascending in bytes: its first point has the least bytes */
	ilpi_blocks_point(b, 0, bytes, cost);
	ilpi_blocks_lower(b, 0, s, r);
	return 0;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, c = *(const double *)y;

	return (a > c) - (a < c);
}

/* Appends to lam the slopes of the lower convex hull of every class front: where the
 * least of cost + lambda * bytes of a segment changes point. With cuts of no state
 * variables the Lagrangian bound of any rest, at any budget, is attained at one of
 * them (or at 0); with state variables they are still good ones. */
static int
hull_slopes(const ilpi_blocks *b, double **lam, size_t *n, size_t *cap)
{
	for (size_t c = 0; c < b->n_cls; c++) {
		const bclass *cl = &b->cls[c];
		size_t ncombo = (size_t)1 << (cl->n_in + cl->n_out);

		for (size_t k = 0; k < ncombo; k++) {
			const bpoint *q = b->pt + cl->fbeg[k];
			size_t i = 0, m = cl->fcnt[k];

			/* from hull vertex i, the next vertex is the point of steepest descent */
			while (i + 1 < m) {
				size_t nx = i + 1;
				double sl = (q[i].cost - q[nx].cost) / (double)(q[nx].bytes - q[i].bytes);

				for (size_t j = i + 2; j < m; j++) {
					double t = (q[i].cost - q[j].cost) / (double)(q[j].bytes - q[i].bytes);

					if (t >= sl)
						sl = t, nx = j;
				}
				if (ILPI_GROW(*lam, *cap, *n, 1) != 0)
					return -1;
				(*lam)[(*n)++] = sl;
				i = nx;
			}
		}
	}
	return 0;
}

/*
 * The multipliers of a budgeted combination, ascending from 0: a geometric grid around
 * mid (where the Lagrangian optimum's bytes cross the cap) and the class fronts' hull
 * slopes, the ones nearest mid (in ratio) when there are too many. Into b->lam.
 */
static int
lam_grid(ilpi_blocks *b, double mid)
{
	double *c = NULL;
	size_t n = 0, cap = 0, u = 0, lo, hi, k = 0;

	b->lam[k++] = 0;
	if (mid == 0)
		goto done;
	for (int l = 0; l < NLAM; l++)
		b->lam[k++] = mid * pow(2, (l - NLAM / 2) / 2.0);
	if (hull_slopes(b, &c, &n, &cap) != 0)
		return -1;
	qsort(c, n, sizeof *c, cmp_double);
	for (size_t i = 0; i < n; i++)
		if (c[i] > 0 && (u == 0 || c[i] > c[u - 1] * (1 + 1e-12)))
			c[u++] = c[i];
	for (hi = 0; hi < u && c[hi] < mid; hi++)
		;
	lo = hi;
	while (k < MAX_LAM && (lo > 0 || hi < u)) {
		if (hi >= u || (lo > 0 && mid / c[lo - 1] < c[hi] / mid))
			b->lam[k++] = c[--lo];
		else
			b->lam[k++] = c[hi++];
	}
	free(c);
	qsort(b->lam, k, sizeof *b->lam, cmp_double);
done:
	b->n_lam = k;
	return 0;
}

/*
 * With no state at any cut the segments are independent: only how many segments of a
 * class take each point of its front matters, and solver/blocks/mck.c combines them by
 * counts. Returns as ilpi_blocks_solve (3: its first answer, out of time or over its
 * work limit); the segments of a class take its points in front order.
 */
static int
solve_counts(ilpi_blocks *b, int64_t cap, int64_t *bytes, double *cost, double *bound,
    uint8_t *s, uint8_t *r)
{
	ilpi_mck_class *mc = calloc(b->n_cls + 1, sizeof *mc);
	size_t *off = calloc(b->n_cls + 1, sizeof *off), n = 0;
	int64_t *by = NULL, *cnt = NULL;
	double *co = NULL;
	ilpi_mck_stats st;
	int rc = -1;

	if (mc == NULL || off == NULL)
		goto out;
	for (size_t c = 0; c < b->n_cls; c++)
		off[c] = n, n += b->cls[c].fcnt[0];
	by = malloc((n + 1) * sizeof *by);
	co = malloc((n + 1) * sizeof *co);
	cnt = calloc(n + 1, sizeof *cnt);
	if (by == NULL || co == NULL || cnt == NULL)
		goto out;
	for (size_t c = 0; c < b->n_cls; c++) {
		const bclass *cl = &b->cls[c];

		for (size_t j = 0; j < cl->fcnt[0]; j++) {
			by[off[c] + j] = b->pt[cl->fbeg[0] + j].bytes;
			co[off[c] + j] = b->pt[cl->fbeg[0] + j].cost;
		}
		mc[c].n = cl->fcnt[0];
		mc[c].bytes = by + off[c];
		mc[c].cost = co + off[c];
	}
	for (size_t sg = 0; sg < b->n_seg; sg++)
		mc[b->seg[sg].cls].copies++;
	for (size_t c = 0; c < b->n_cls; c++)
		if (mc[c].n == 0) {
			rc = 2;   /* a segment without any partition */
			goto out;
		}
	rc = ilpi_mck_solve(mc, b->n_cls, cap, b->deadline, b->max_points < MAX_COUNT_POINTS ?
	    b->max_points : MAX_COUNT_POINTS, cnt, bytes, cost, bound, &st);
	b->st.n_points = st.points;
	b->st.counts = 1;
	if (rc != 0 && rc != 3)
		goto out;
	for (size_t sg = 0; sg < b->n_seg; sg++) {
		size_t c = (size_t)b->seg[sg].cls, j = 0;

		while (cnt[off[c] + j] == 0)
			j++;
		cnt[off[c] + j]--;
		b->path[sg] = (int32_t)(b->cls[c].fbeg[0] + j);
	}
	lower_path(b, b->path, s, r);
out:
	free(mc);
	free(off);
	free(by);
	free(co);
	free(cnt);
	return rc;
}

int
ilpi_blocks_solve(ilpi_blocks *b, int64_t cap, int64_t *bytes, double *cost,
    double *bound, uint8_t *s, uint8_t *r, ilp_error *err)
{
	int have = 0;
	double lo = 0, hi = 1, ub = DBL_MAX;
	int64_t pb;
	double pc;
	ilpi_blocks_bounds bd;
	int rc;

	if (b->minb[0] == INT64_MAX || b->minb[0] > cap)
		return 2;
	/* independent segments: by counts; the combination below only when that one
	 * stopped short of a proof with time left */
	if (b->cbeg[b->n_seg + 1] == 0) {
		if ((rc = solve_counts(b, cap, bytes, cost, bound, s, r)) != 3)
			return rc;
		if (b->deadline > 0 && ilpi_now() > b->deadline)
			return 3;
		b->st.counts = 0;
		have = 1;     /* its first answer, in bytes, cost, s, r */
		ub = *cost;
	}
	/* lambda where the Lagrangian optimum's bytes cross the cap: bisection */
	for (int it = 0; it < 200; it++) {
		ilpi_blocks_rest_values(b, hi, b->v0, NULL);
		ilpi_blocks_rest_path(b, hi, b->v0, NULL, b->path, &pb, &pc);
		if (pb <= cap)
			break;
		lo = hi, hi *= 16;
	}
	ilpi_blocks_rest_values(b, 0, b->v0, NULL);
	ilpi_blocks_rest_path(b, 0, b->v0, NULL, b->path, &pb, &pc);
	if (pb <= cap) {
		hi = 0;
		ub = pc;
	}
	for (int it = 0; hi > 0 && it < 60; it++) {
		double mid = lo > 0 ? sqrt(lo * hi) : hi / 1024;

		if (lo == 0 && hi < 1e-30)
			break;
		ilpi_blocks_rest_values(b, mid, b->v0, NULL);
		ilpi_blocks_rest_path(b, mid, b->v0, NULL, b->path, &pb, &pc);
		if (pb <= cap) {
			hi = mid;
			if (pc < ub)
				ub = pc;
		} else {
			lo = mid;
		}
		if (lo > 0 && hi / lo < 1 + 1e-6)
			break;
	}
	/* bounds at multipliers around the crossing; the feasible ones give ub */
	if (lam_grid(b, hi) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	for (size_t l = 0; l < b->n_lam; l++) {
		size_t nst = b->soff[b->n_seg + 1];

		ilpi_blocks_rest_values(b, b->lam[l], b->v0, NULL);
		ilpi_blocks_rest_path(b, b->lam[l], b->v0, NULL, b->path, &pb, &pc);
		if (pb <= cap && pc < ub)
			ub = pc;
		for (size_t at = 0; at < nst; at++)
			b->vt[at * b->n_lam + l] = b->v0[at];
	}
	bd.cap = cap;
	bd.ub = ub;
	bd.nlam = b->n_lam;
	bd.lam = b->lam;
	bd.vt = b->vt;
	bd.minb = b->minb;
	/* a narrow heuristic run first: its answer is feasible, a far better ub than the
	 * Lagrangian paths (identical blocks switch all at once at the same multiplier) */
	bd.beam = BEAM;
	if ((rc = ilpi_blocks_combine(b, &bd)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	if (rc == 0 && b->final_cnt > 0) {
		ilpi_blocks_point(b, b->final_cnt - 1, &pb, &pc);
		if (pb <= cap && pc < bd.ub) {
			bd.ub = pc;
			have = best_final(b, bytes, cost, s, r) == 0 || have;
		}
	}
	/* the proven bound: the best Lagrangian value at the root */
	*bound = -DBL_MAX;
	for (size_t l = 0; l < b->n_lam; l++)
		if (b->vt[l] < DBL_MAX && b->vt[l] - b->lam[l] * (double)cap > *bound)
			*bound = b->vt[l] - b->lam[l] * (double)cap;
	bd.beam = 0;
	if ((rc = ilpi_blocks_combine(b, &bd)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	if (rc == 0 && best_final(b, bytes, cost, s, r) == 0) {
		*bound = *cost;
		return 0;
	}
	/* out of time: the heuristic run's answer, or the counts' first one (its bytes,
	 * cost, s, r are still in place) with the Lagrangian bound; over the work limit
	 * with time left, the same answer for the caller's next method to start from */
	if (have && b->deadline > 0 && ilpi_now() > b->deadline)
		return 3;
	return have ? 4 : 1;
}

size_t
ilpi_blocks_front_size(const ilpi_blocks *b)
{
	return b->final_cnt;
}

void
ilpi_blocks_point(const ilpi_blocks *b, size_t i, int64_t *bytes, double *cost)
{
	*bytes = final_val(b, i)->bytes;
	*cost = final_val(b, i)->cost;
}

void
ilpi_blocks_lower(const ilpi_blocks *b, size_t i, uint8_t *s, uint8_t *r)
{
	int32_t at = (int32_t)(b->final_beg + i);

	memset(s, 0, b->red->n_items);
	memset(r, 0, b->red->n_items);
	for (size_t sg = b->n_seg; sg-- > 0 && at >= 0;) {
		const dtrace *d = &b->dp[at];
		const bclass *cl = &b->cls[b->seg[sg].cls];
		const uint8_t *sol = cl->sol + (size_t)b->pt[d->seg].sol * 2 * (size_t)cl->n_own;

		for (int k = 0; k < cl->n_own; k++) {
			int32_t it = b->ord[b->seg[sg].lo + k];

			s[it] = sol[k];
			r[it] = sol[cl->n_own + k];
		}
		at = d->prev;
	}
}

void
ilpi_blocks_set_time_limit(ilpi_blocks *b, double seconds)
{
	b->deadline = seconds > 0 ? ilpi_now() + seconds : 0;
}

void
ilpi_blocks_set_max_points(ilpi_blocks *b, size_t points)
{
	b->max_points = points;
}

void
ilpi_blocks_get_stats(const ilpi_blocks *b, ilpi_blocks_stats *st)
{
	*st = b->st;
}

void
ilpi_blocks_free(ilpi_blocks *b)
{
	if (b == NULL)
		return;
	free(b->ord);
	free(b->pos);
	free(b->sfirst);
	free(b->slast);
	free(b->sep);
	free(b->cbeg);
	free(b->seg);
	for (size_t c = 0; c < b->n_cls; c++) {
		free(b->cls[c].fbeg);
		free(b->cls[c].fcnt);
		free(b->cls[c].sol);
	}
	free(b->cls);
	free(b->pt);
	free(b->soff);
	free(b->lbeg);
	free(b->lcnt);
	free(b->minb);
	free(b->path);
	free(b->v0);
	free(b->vt);
	free(b->lam);
	free(b->dp);
	free(b->val[0]);
	free(b->val[1]);
	free(b);
}

/* ---- description (ilpart info --blocks) ------------------------------------------ */

static void
describe_var(const ilp_graph *g, const ilpi_blocks *b, int32_t v, ilpi_buf *out)
{
	if (v >= 0)
		ilpi_buf_printf(out, " '%s'", g->node[b->red->item[v].rep].name);
	else
		ilpi_buf_printf(out, " storage of '%s'",
		    g->node[b->red->stor_root[-v - 1]].name);
}

void
ilpi_blocks_describe(const ilp_graph *g, const ilpi_blocks *b, ilpi_buf *out)
{
	size_t *count = calloc(b->n_cls + 1, sizeof *count), repeated = 0, in_repeated = 0;

	if (count == NULL)
		return;
	for (size_t s = 0; s < b->n_seg; s++)
		count[b->seg[s].cls]++;
	for (size_t c = 0; c < b->n_cls; c++)
		if (count[c] > 1) {
			repeated++;
			in_repeated += count[c];
		}
	ilpi_buf_printf(out, "blocks: %zu items in %zu segments of %zu distinct classes; ",
	    b->n, b->n_seg, b->n_cls);
	if (repeated == 0)
		ilpi_buf_puts(out, "no class repeats (no repeated blocks found)");
	else
		ilpi_buf_printf(out, "%zu class%s repeat%s, %zu segments in all", repeated,
		    repeated == 1 ? "" : "es", repeated == 1 ? "s" : "", in_repeated);
	if (b->st.max_width == 0)
		ilpi_buf_puts(out, "; no state crosses a cut (the segments are independent)\n");
	else
		ilpi_buf_printf(out, "; states of at most %zu variables at the cuts\n",
		    b->st.max_width);
	for (size_t c = 0; c < b->n_cls; c++) {
		const bclass *cl = &b->cls[c];
		const bseg *sg = &b->seg[cl->rep];
		size_t s = (size_t)cl->rep;

		ilpi_buf_printf(out, "class %zu: %zu x %d items, first '%s' .. '%s'", c, count[c],
		    cl->n_own, g->node[b->red->item[b->ord[sg->lo]].rep].name,
		    g->node[b->red->item[b->ord[sg->hi - 1]].rep].name);
		if (b->cbeg[s] == b->cbeg[s + 2]) {
			ilpi_buf_puts(out, "; no interface\n");
			continue;
		}
		ilpi_buf_puts(out, "; in:");
		for (size_t i = b->cbeg[s]; i < b->cbeg[s + 1]; i++)
			describe_var(g, b, b->sep[i], out);
		if (b->cbeg[s] == b->cbeg[s + 1])
			ilpi_buf_puts(out, " -");
		ilpi_buf_puts(out, "; out:");
		for (size_t i = b->cbeg[s + 1]; i < b->cbeg[s + 2]; i++)
			describe_var(g, b, b->sep[i], out);
		if (b->cbeg[s + 1] == b->cbeg[s + 2])
			ilpi_buf_puts(out, " -");
		ilpi_buf_puts(out, "\n");
	}
	free(count);
}
