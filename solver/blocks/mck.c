/*
 * mck.c - least cost within a byte cap over classes of independent, identical segments
 * (mck.h): a multiple-choice knapsack whose items come in copies.
 *
 * The segment-by-segment combination (blocks.c) keeps, at every cut, the Pareto points
 * that a bound cannot exclude; on many copies of a class whose front has two points on
 * the budget's tangent, every count of copies taking either is such a point, at every
 * one of thousands of cuts. Here the order of the copies does not matter (no state
 * crosses a cut), so copies are combined by counts:
 *
 * - a class's front for 2^k copies is the Pareto front of two fronts for 2^(k-1)
 *   copies (pairs i <= j); a class's copies are a sum of such bundles;
 * - a class with two or more points on the root multiplier's tangent is searched as
 *   its *line* (those points) plus its *moves* (to its other points, from the tangent
 *   point nearest in bytes): a relaxation, exact when each tangent point keeps as
 *   many line copies as moves start from it, which the answer is checked for (else
 *   the search runs again on the classes as they are);
 * - the bundles are combined one after the other in two chains, the lines' (or the
 *   largest bundle) in the second, and each point of the first is completed by a
 *   binary search in the second, which is never combined with it;
 * - every front keeps only the points whose cost plus a Lagrangian bound of all the
 *   rest (at the class fronts' hull slopes) is within a bound u: u grows from just
 *   above the root's Lagrangian bound (by half each time) up to a first, greedy
 *   answer's cost, and an answer within u is the optimum, since every answer within u
 *   (and within 1e-9 of the least) survives the pruning.
 *
 * The context and its bounds are mck_ctx.c, the bundles and chains mck_fronts.c; this
 * file holds the first answer, the relaxation and the search's loop.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "solver/blocks/mck.h"
#include "solver/blocks/mck_ctx.h"
#include "solver/blocks/mck_fronts.h"

/* ---- a first answer: greedy, then exchanges ---------------------------------------- */

/* Moves n copies of active class c from point j to point k. */
static void
move(mctx *x, int64_t *cnt, size_t c, size_t j, size_t k, int64_t n, int64_t *by,
    double *co)
{
	const ilpi_mck_class *q = x->cl[c];

	cnt[x->coff[c] + j] -= n;
	cnt[x->coff[c] + k] += n;
	*by += n * (q->bytes[k] - q->bytes[j]);
	*co += (double)n * (q->cost[k] - q->cost[j]);
}

/*
 * A feasible answer of the active classes in cnt (every copy at its least bytes, then
 * the moves that save the most cost per byte while they fit, then pairs of moves, one
 * freeing bytes for another that saves more, while one improves). Its cost is ub.
 */
static void
first_answer(mctx *x, int64_t *cnt, int64_t *by, double *co)
{
	*by = 0, *co = 0;
	for (size_t c = 0; c < x->n; c++) {
		const ilpi_mck_class *q = x->cl[c];

		cnt[x->coff[c]] = q->copies;
		*by += q->copies * q->bytes[0];
		*co += (double)q->copies * q->cost[0];
	}
	for (int round = 0; round < 1000; round++) {
		double gain = 0;
		size_t bc = 0, bj = 0, bk = 0, dc = 0, dj = 0, dk = 0;
		int found = 0;

		/* the best ratio move that fits, as many copies as fit */
		for (;;) {
			double best = 0;

			found = 0;
			for (size_t c = 0; c < x->n; c++) {
				const ilpi_mck_class *q = x->cl[c];

				for (size_t j = 0; j < q->n; j++) {
					if (cnt[x->coff[c] + j] == 0)
						continue;
					for (size_t k = j + 1; k < q->n; k++) {
						int64_t db = q->bytes[k] - q->bytes[j];
						double r = (q->cost[j] - q->cost[k]) / (double)db;

						if (db <= x->cap - *by && r > best)
							best = r, bc = c, bj = j, bk = k, found = 1;
					}
				}
			}
			if (!found)
				break;
			{
				int64_t db = x->cl[bc]->bytes[bk] - x->cl[bc]->bytes[bj];
				int64_t n = (x->cap - *by) / db;

				if (n > cnt[x->coff[bc] + bj])
					n = cnt[x->coff[bc] + bj];
				move(x, cnt, bc, bj, bk, n, by, co);
			}
		}
		/* the best pair: a move down freeing bytes, a move up using them */
		found = 0;
		for (size_t c = 0; c < x->n; c++) {
			const ilpi_mck_class *q = x->cl[c];

			for (size_t j = 1; j < q->n; j++) {
				if (cnt[x->coff[c] + j] == 0)
					continue;
				for (size_t k = 0; k < j; k++) {
					int64_t fr = q->bytes[j] - q->bytes[k];
					double loss = q->cost[k] - q->cost[j];

					for (size_t c2 = 0; c2 < x->n; c2++) {
						const ilpi_mck_class *q2 = x->cl[c2];

						for (size_t j2 = 0; j2 < q2->n; j2++) {
							int64_t have = cnt[x->coff[c2] + j2];

							if (c2 == c && j2 == j)
								have--;
							if (c2 == c && j2 == k)
								have++;
							if (have <= 0)
								continue;
							for (size_t k2 = j2 + 1; k2 < q2->n; k2++) {
								double g = q2->cost[j2] - q2->cost[k2] - loss;

								if (q2->bytes[k2] - q2->bytes[j2] <=
								    x->cap - *by + fr && g > gain &&
								    g > 1e-12 * (1 + fabs(*co)))
									gain = g, bc = c, bj = j, bk = k, dc = c2,
									    dj = j2, dk = k2, found = 1;
							}
						}
					}
				}
			}
		}
		if (!found)
			break;
		move(x, cnt, bc, bj, bk, 1, by, co);
		move(x, cnt, dc, dj, dk, 1, by, co);
		if (x->deadline > 0 && ilpi_now() > x->deadline)
			break;
	}
}

/*
 * The relaxation the search runs on. A class with two or more points on the root
 * multiplier's tangent (reduced cost 0: every count of copies taking either is an
 * answer as cheap, the fronts' blow-up) becomes two classes of as many copies: its
 * *line* (those points) and its *moves* (no move, or from the tangent point nearest in
 * bytes to one of its other points: that point's bytes and cost less the tangent
 * point's). Every answer maps onto the relaxation at the same cost (a copy at another
 * point: the line at its tangent point plus the move); an answer of the relaxation is
 * one of the classes' when each tangent point has at least as many line copies as
 * moves from it (checked after the search). The moves have one point of reduced cost
 * 0 (no move), so their fronts only hold the few costly deviations the bound allows,
 * and the lines are searched last, by binary search, in one chain of their own.
 */
typedef struct rclass {
	ilpi_mck_class k;
	int64_t *bytes;
	double *cost;
	size_t orig;              /* active class */
	int kind;                 /* 0 the class itself, 1 its moves, 2 its line */
	int32_t *src, *from;      /* per point: the class's point; a move's tangent point
	                           * (-1: no move) */
} rclass;

static void
rclasses_free(rclass *rc, size_t n)
{
	for (size_t i = 0; rc != NULL && i < n; i++) {
		free(rc[i].bytes);
		free(rc[i].cost);
		free(rc[i].src);
		free(rc[i].from);
	}
	free(rc);
}

static void
radd(rclass *r, int64_t b, double c, int32_t src, int32_t from)
{
	r->bytes[r->k.n] = b;
	r->cost[r->k.n] = c;
	r->src[r->k.n] = src;
	r->from[r->k.n] = from;
	r->k.n++;
}

static int
ralloc(rclass *r, size_t n)
{
	r->bytes = malloc((n + 1) * sizeof *r->bytes);
	r->cost = malloc((n + 1) * sizeof *r->cost);
	r->src = malloc((n + 1) * sizeof *r->src);
	r->from = malloc((n + 1) * sizeof *r->from);
	return r->bytes == NULL || r->cost == NULL || r->src == NULL || r->from == NULL ?
	    -1 : 0;
}

/* Insertion sort of a move class's points by bytes, then the Pareto ones. */
static void
rpareto(rclass *r)
{
	size_t m = r->k.n, k = 0;
	double best = DBL_MAX;

	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && (r->bytes[j - 1] > r->bytes[j] ||
		    (r->bytes[j - 1] == r->bytes[j] && r->cost[j - 1] > r->cost[j])); j--) {
			int64_t tb = r->bytes[j];
			double tc = r->cost[j];
			int32_t ts = r->src[j], tf = r->from[j];

			r->bytes[j] = r->bytes[j - 1], r->cost[j] = r->cost[j - 1];
			r->src[j] = r->src[j - 1], r->from[j] = r->from[j - 1];
			r->bytes[j - 1] = tb, r->cost[j - 1] = tc;
			r->src[j - 1] = ts, r->from[j - 1] = tf;
		}
	for (size_t i = 0; i < m; i++)
		if (r->cost[i] < best) {
			best = r->cost[i];
			r->bytes[k] = r->bytes[i], r->cost[k] = r->cost[i];
			r->src[k] = r->src[i], r->from[k] = r->from[i];
			k++;
		}
	r->k.n = k;
}

/* The relaxation's classes of x's (see rclass); *nr of them, *nline lines. */
static int
relax(const mctx *x, double eps, rclass **out, size_t *nr, size_t *nline)
{
	rclass *r = calloc(2 * x->n + 1, sizeof *r);
	uint8_t *z = NULL;
	size_t n = 0;

	*out = r, *nr = 0, *nline = 0;
	if (r == NULL)
		return -1;
	for (size_t c = 0; c < x->n; c++) {
		const ilpi_mck_class *q = x->cl[c];
		double mu = x->mu[c * x->nlam + x->ls], lm = x->lam[x->ls];
		size_t nz = 0;

		free(z);
		if ((z = calloc(q->n + 1, 1)) == NULL)
			return -1;
		for (size_t j = 0; j < q->n; j++)
			if (eps >= 0 && q->cost[j] + lm * (double)q->bytes[j] - mu <= eps)
				z[j] = 1, nz++;
		if (nz < 2) {
			rclass *a = &r[n++];

			if (ralloc(a, q->n) != 0)
				goto fail;
			a->orig = c, a->kind = 0, a->k.copies = q->copies;
			for (size_t j = 0; j < q->n; j++)
				radd(a, q->bytes[j], q->cost[j], (int32_t)j, -1);
			a->k.bytes = a->bytes, a->k.cost = a->cost;
			continue;
		}
		{
			rclass *mv = &r[n++], *ln;

			if (ralloc(mv, q->n) != 0)
				goto fail;
			mv->orig = c, mv->kind = 1, mv->k.copies = q->copies;
			radd(mv, 0, 0, -1, -1);
			for (size_t j = 0; j < q->n; j++) {
				size_t f = q->n;

				if (z[j])
					continue;
				for (size_t t = 0; t < q->n; t++)
					if (z[t] && (f == q->n || llabs(q->bytes[t] - q->bytes[j]) <
					    llabs(q->bytes[f] - q->bytes[j])))
						f = t;
				radd(mv, q->bytes[j] - q->bytes[f], q->cost[j] - q->cost[f],
				    (int32_t)j, (int32_t)f);
			}
			rpareto(mv);
			mv->k.bytes = mv->bytes, mv->k.cost = mv->cost;
			ln = &r[n++];
			if (ralloc(ln, nz) != 0)
				goto fail;
			ln->orig = c, ln->kind = 2, ln->k.copies = q->copies;
			for (size_t j = 0; j < q->n; j++)
				if (z[j])
					radd(ln, q->bytes[j], q->cost[j], (int32_t)j, -1);
			ln->k.bytes = ln->bytes, ln->k.cost = ln->cost;
			(*nline)++;
		}
	}
	free(z);
	*nr = n;
	return 0;
fail:
	free(z);
	*nr = n;
	return -1;
}

/* The relaxation's counts rcnt onto the classes' (cnt, x's offsets): 0, or 1 when a
 * tangent point has fewer line copies than moves from it. */
static int
unrelax(const mctx *x, const rclass *r, size_t nr, const int64_t *rcnt, int64_t *cnt)
{
	size_t off = 0;

	for (size_t c = 0; c < x->n; c++)
		for (size_t j = 0; j < x->cl[c]->n; j++)
			cnt[x->coff[c] + j] = 0;
	for (size_t i = 0; i < nr; off += r[i].k.n, i++)
		for (size_t j = 0; j < r[i].k.n; j++) {
			int64_t k = rcnt[off + j];
			size_t base = x->coff[r[i].orig];

			if (k == 0 || (r[i].kind == 1 && r[i].src[j] < 0))
				continue;
			cnt[base + (size_t)r[i].src[j]] += k;
			if (r[i].kind == 1)
				cnt[base + (size_t)r[i].from[j]] -= k;
		}
	for (size_t c = 0; c < x->n; c++)
		for (size_t j = 0; j < x->cl[c]->n; j++)
			if (cnt[x->coff[c] + j] < 0)
				return 1;
	return 0;
}


/* Whole (137 lines): the root bound, first answer, relaxation and deepening share the
 * two search contexts and one cleanup path, and read as the order they run in. */
int
ilpi_mck_solve(const ilpi_mck_class *cls, size_t n_cls, int64_t cap, double deadline,
    size_t max_points, int64_t *count, int64_t *bytes, double *cost, double *bound,
    ilpi_mck_stats *st)
{
	mctx x, y;
	const ilpi_mck_class **act = NULL, **rp = NULL;
	size_t *aoff = NULL, na = 0, ncount = 0, off = 0, nr = 0, nline = 0, nrc = 0;
	size_t st_points = 0;
	rclass *r = NULL;
	uint8_t *line = NULL;
	int64_t fixb = 0, gb, minall = 0, *first = NULL, *rcnt = NULL, *rleast = NULL, rb = 0;
	double fixc = 0, gc, lb, rcost = 0;
	int rc = -1, s;

	memset(&x, 0, sizeof x);
	memset(&y, 0, sizeof y);
	if (st != NULL)
		memset(st, 0, sizeof *st);
	for (size_t c = 0; c < n_cls; c++)
		ncount += cls[c].n;
	memset(count, 0, ncount * sizeof *count);
	act = malloc((n_cls + 1) * sizeof *act);
	aoff = malloc((n_cls + 1) * sizeof *aoff);
	first = calloc(ncount + 1, sizeof *first);
	if (act == NULL || aoff == NULL || first == NULL)
		goto out;
	/* classes of one point (or no copies) are fixed */
	for (size_t c = 0; c < n_cls; off += cls[c].n, c++) {
		minall += cls[c].copies * cls[c].bytes[0];
		if (cls[c].n >= 2 && cls[c].copies > 0) {
			act[na] = &cls[c];
			aoff[na++] = off;
			continue;
		}
		count[off] = cls[c].copies;
		fixb += cls[c].copies * cls[c].bytes[0];
		fixc += (double)cls[c].copies * cls[c].cost[0];
	}
	if (minall > cap) {
		rc = 2;
		goto out;
	}
	if (ilpi_mck_ctx_init(&x, act, na, aoff, cap - fixb, deadline, max_points) != 0)
		goto out;
	/* the root bound and its multiplier, then a first answer: its cost bounds all */
	lb = -DBL_MAX;
	for (size_t l = 0; l < x.nlam; l++)
		if (ilpi_mck_lagr(&x, l, 0) > lb)
			lb = ilpi_mck_lagr(&x, l, 0), x.ls = l;
	memcpy(first, count, ncount * sizeof *first);
	first_answer(&x, first, &gb, &gc);
	*bound = lb + fixc;
	if (st != NULL)
		st->lower = lb + fixc, st->upper = gc + fixc;
	/* the relaxation, and the search on it; when its answer is not one of the
	 * classes', the search again on the classes themselves (no line) */
	for (int pass = 0; pass < 2; pass++) {
		int again = 0;

		rclasses_free(r, nr);
		free(rp), free(line), free(rcnt);
		r = NULL, rp = NULL, line = NULL, rcnt = NULL, nr = nline = nrc = 0;
		st_points += y.n_points;
		ilpi_mck_ctx_free(&y);
		if (relax(&x, pass == 0 ? 1e-12 * (1 + fabs(gc + fixc)) : -1, &r, &nr,
		    &nline) != 0)
			goto out;
		rp = malloc((nr + 1) * sizeof *rp);
		line = calloc(nr + 1, 1);
		if (rp == NULL || line == NULL)
			goto out;
		for (size_t i = 0; i < nr; i++) {
			rp[i] = &r[i].k;
			line[i] = r[i].kind == 2;
			nrc += r[i].k.n;
		}
		free(rleast);
		rleast = NULL;
		if ((rcnt = calloc(nrc + 1, sizeof *rcnt)) == NULL ||
		    (rleast = calloc(nrc + 1, sizeof *rleast)) == NULL ||
		    ilpi_mck_ctx_init(&y, rp, nr, NULL, cap - fixb, deadline, max_points) != 0)
			goto out;
		y.ls = 0;
		for (size_t l = 0; l < y.nlam; l++)
			if (ilpi_mck_lagr(&y, l, 0) > ilpi_mck_lagr(&y, y.ls, 0))
				y.ls = l;
		/* deepening: a bound just above the root's first, as the fronts grow with
		 * it; an answer within the bound is the optimum */
		y.tol = 1e-9 * (1 + fabs(gc + fixc));
		y.line = line;
		y.ub_line = gc;
		for (double d = (gc - lb) / 4096 > y.tol ? (gc - lb) / 4096 : y.tol;;
		    d *= 1.5) {
			y.ub = lb + d < gc ? lb + d : gc;
			ilpi_mck_fronts_free(&y, 0);
			memset(rcnt, 0, nrc * sizeof *rcnt);
			memset(rleast, 0, nrc * sizeof *rleast);
			if ((s = ilpi_mck_solve_classes(&y, line, fixc, rcnt, rleast, &rb, &rcost)) < 0)
				goto out;
			/* exact when the answer and a least-cost answer of the relaxation
			 * (the tie rule's reference) are both the classes' */
			if (s == 0 && unrelax(&x, r, nr, rleast, count) == 0 &&
			    unrelax(&x, r, nr, rcnt, count) == 0) {
				*bytes = rb + fixb;
				*cost = rcost + fixc;
				*bound = *cost;
				rc = 0;
				goto out;
			}
			if (s == 0)
				again = nline > 0;
			if (s == 0 || y.stop || y.ub >= gc)
				break;
		}
		if (!again)
			break;
	}
	/* out of time, over the work limit, or an answer of the relaxation only: the
	 * first answer */
	memcpy(count, first, ncount * sizeof *count);
	*bytes = gb + fixb;
	*cost = gc + fixc;
	rc = 3;
out:
	if (st != NULL) {
		st->points = st_points + y.n_points;
		st->lines = nline;
	}
	free(first);
	free(rcnt);
	free(rleast);
	free(rp);
	free(line);
	free(act);
	free(aoff);
	rclasses_free(r, nr);
	ilpi_mck_ctx_free(&x);
	ilpi_mck_ctx_free(&y);
	return rc;
}
