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
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "solver/blocks/mck.h"

typedef struct mpt {          /* a point of a bundle front or of the combination */
	int64_t bytes;
	double cost;
	int32_t a, b;             /* bundle of level 0: the class point, -1; level k: two
	                           * points of level k - 1; combination: the previous
	                           * stage's point and the bundle's */
} mpt;

typedef struct mfront {
	mpt *p;
	size_t n, cap;
} mfront;

typedef struct mbundle {      /* 2^level copies of active class c */
	size_t c;
	int level;
} mbundle;

/* A chain of bundles combined one after the other: st[v] is the front after bundle v. */
typedef struct mchain {
	mbundle *bu;
	size_t n;
	mfront *st;
} mchain;

typedef struct mctx {
	const ilpi_mck_class **cl;   /* the active classes: two points or more */
	size_t *coff;             /* per active class: its first point in count */
	size_t n;                 /* active classes */
	int64_t cap;              /* the cap less the other classes' bytes */
	double ub, tol;           /* the best answer's cost (active classes only), slack */
	double *lam;              /* ascending, lam[0] = 0 */
	size_t nlam, ls;          /* multipliers; the one of the root bound */
	double *mu;               /* per active class and multiplier: least cost + lam * bytes */
	int64_t *rest;            /* per active class: copies outside the front being built */
	double *v;                /* per multiplier: the rest's Lagrangian value */
	int64_t minb;             /* least bytes of the rest */
	double thr;               /* cost + lam[ls] * bytes above it: the point cannot be kept */
	double deadline;
	size_t max_points, n_points, ticks;
	int stop;                 /* out of time or over the work limit */
	mfront **lv;              /* per active class: bundle fronts by level */
	int *nlv;
	const uint8_t *line;      /* per class: a line (its fronts and chain are built
	                           * once, against ub_line, and kept while ub grows) */
	double ub_line;
	mchain lines;             /* the lines' chain, once built */
	int lines_done;
} mctx;

/* ---- bounds ----------------------------------------------------------------------- */

/* The rest's Lagrangian values and least bytes, from x->rest. */
static void
set_rest(mctx *x)
{
	double slack = 0;

	x->minb = 0;
	for (size_t l = 0; l < x->nlam; l++)
		x->v[l] = 0;
	for (size_t c = 0; c < x->n; c++) {
		if (x->rest[c] == 0)
			continue;
		x->minb += x->rest[c] * x->cl[c]->bytes[0];
		for (size_t l = 0; l < x->nlam; l++)
			x->v[l] += (double)x->rest[c] * x->mu[c * x->nlam + l];
	}
	/* a pre-filter only: generous against rounding (keep() decides) */
	slack = 1e-9 * (fabs(x->v[x->ls]) + x->lam[x->ls] * (double)x->cap + 1);
	x->thr = x->ub + x->tol + slack + x->lam[x->ls] * (double)x->cap - x->v[x->ls];
}

static double
lagr(const mctx *x, size_t l, int64_t by)
{
	return x->v[l] - x->lam[l] * (double)(x->cap - by);
}

/* Can a point of by bytes and this cost still be completed within the cap at a cost
 * within ub? The bound V_lam(rest) - lam * (cap - by) is concave in lam: bisection. */
static int
keep(const mctx *x, int64_t by, double cost)
{
	size_t lo = 0, hi = x->nlam - 1;

	if (by > x->cap - x->minb)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lagr(x, mid, by) < lagr(x, mid + 1, by))
			lo = mid + 1;
		else
			hi = mid;
	}
	return cost + lagr(x, lo, by) <= x->ub + x->tol;
}

static int
cmp_double(const void *p, const void *q)
{
	double a = *(const double *)p, b = *(const double *)q;

	return (a > b) - (a < b);
}

/* Multipliers: 0 and the slopes of every active class's lower convex hull (with no
 * state between segments, the best multiplier for any remaining budget is one of
 * them); mu for each. */
static int
multipliers(mctx *x)
{
	size_t cap = 0, u = 0;

	for (size_t c = 0; c < x->n; c++) {
		const ilpi_mck_class *k = x->cl[c];
		size_t i = 0;

		while (i + 1 < k->n) {
			size_t nx = i + 1;
			double sl = (k->cost[i] - k->cost[nx]) / (double)(k->bytes[nx] - k->bytes[i]);

			for (size_t j = i + 2; j < k->n; j++) {
				double t = (k->cost[i] - k->cost[j]) / (double)(k->bytes[j] - k->bytes[i]);

				if (t >= sl)
					sl = t, nx = j;
			}
			if (ILPI_GROW(x->lam, cap, x->nlam, 2) != 0)
				return -1;
			if (x->nlam == 0)
				x->lam[x->nlam++] = 0;
			if (sl > 0)
				x->lam[x->nlam++] = sl;
			i = nx;
		}
	}
	if (x->nlam == 0) {
		if ((x->lam = malloc(sizeof *x->lam)) == NULL)
			return -1;
		x->lam[x->nlam++] = 0;
	}
	qsort(x->lam, x->nlam, sizeof *x->lam, cmp_double);
	for (size_t i = 0; i < x->nlam; i++)
		if (u == 0 || x->lam[i] > x->lam[u - 1])
			x->lam[u++] = x->lam[i];
	x->nlam = u;
	if ((x->mu = malloc((x->n * x->nlam + 1) * sizeof *x->mu)) == NULL ||
	    (x->v = malloc(x->nlam * sizeof *x->v)) == NULL)
		return -1;
	for (size_t c = 0; c < x->n; c++)
		for (size_t l = 0; l < x->nlam; l++) {
			const ilpi_mck_class *k = x->cl[c];
			double best = DBL_MAX;

			for (size_t j = 0; j < k->n; j++)
				if (k->cost[j] + x->lam[l] * (double)k->bytes[j] < best)
					best = k->cost[j] + x->lam[l] * (double)k->bytes[j];
			x->mu[c * x->nlam + l] = best;
		}
	return 0;
}

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

/* ---- fronts ----------------------------------------------------------------------- */

typedef struct mrun {
	int64_t bytes;            /* of the head */
	double cost;
	size_t i, end;            /* head and end in the walked front */
	size_t j;                 /* the run's point of the other front */
	double rj;                /* its cost + lam[ls] * bytes */
} mrun;

static int
run_less(const mrun *a, const mrun *b)
{
	return a->bytes < b->bytes || (a->bytes == b->bytes && a->cost < b->cost);
}

static void
heap_up(mrun *h, size_t n)
{
	for (size_t i = n - 1; i > 0;) {
		size_t p = (i - 1) / 2;
		mrun t;

		if (!run_less(&h[i], &h[p]))
			break;
		t = h[i], h[i] = h[p], h[p] = t;
		i = p;
	}
}

static void
heap_down(mrun *h, size_t n)
{
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, m = i;
		mrun t;

		if (l < n && run_less(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && run_less(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			break;
		t = h[i], h[i] = h[m], h[m] = t;
		i = m;
	}
}

static int
tick(mctx *x)
{
	if ((++x->ticks & 0xffff) == 0 && x->deadline > 0 && ilpi_now() > x->deadline)
		x->stop = 1;
	return x->stop;
}

/*
 * out = the points of P + Q that are Pareto-optimal and kept by the bound of x's rest,
 * ascending bytes, strictly descending cost; a point records its P and Q indices. With
 * sym (P == Q) only pairs i <= j. One run per point of the smaller front walks the
 * other in ascending bytes; a heap merges the runs, so dominance is decided as points
 * come, and a run skips the points it cannot make non-dominated (galloping: the walked
 * front's costs descend) or that the root multiplier's bound excludes.
 */
static int
combine(mctx *x, const mfront *P, const mfront *Q, int sym, mfront *out)
{
	int swap = !sym && Q->n > P->n;
	const mfront *A = swap ? Q : P, *B = swap ? P : Q;   /* A walked, B runs */
	double lm = x->lam[x->ls], best = DBL_MAX;
	double *sm = malloc((A->n + 1) * sizeof *sm);        /* suffix least of A's r */
	mrun *h = malloc((B->n + 1) * sizeof *h);
	size_t nh = 0;
	int rc = -1;

	out->n = 0;
	if (sm == NULL || h == NULL)
		goto done;
	sm[A->n] = DBL_MAX;
	for (size_t i = A->n; i-- > 0;) {
		double r = A->p[i].cost + lm * (double)A->p[i].bytes;

		sm[i] = r < sm[i + 1] ? r : sm[i + 1];
	}
	for (size_t j = 0; j < B->n; j++) {
		mrun *r = &h[nh];

		r->j = j;
		r->rj = B->p[j].cost + lm * (double)B->p[j].bytes;
		r->i = 0;
		r->end = sym ? j + 1 : A->n;
		if (sm[0] + r->rj > x->thr)
			continue;
		r->bytes = A->p[0].bytes + B->p[j].bytes;
		r->cost = A->p[0].cost + B->p[j].cost;
		heap_up(h, ++nh);
	}
	while (nh > 0) {
		mrun *r = &h[0];
		const mpt *bj = &B->p[r->j];
		size_t i;

		if (r->bytes > x->cap - x->minb)
			break;            /* every head left has at least as many bytes */
		if (tick(x))
			break;
		if (r->cost < best && keep(x, r->bytes, r->cost)) {
			mpt *o;

			if (x->n_points >= x->max_points) {
				x->stop = 1;
				break;
			}
			if (ILPI_GROW(out->p, out->cap, out->n, 1) != 0)
				goto done;
			o = &out->p[out->n++];
			o->bytes = r->bytes;
			o->cost = r->cost;
			o->a = (int32_t)(swap ? r->j : r->i);
			o->b = (int32_t)(swap ? r->i : r->j);
			x->n_points++;
			best = r->cost;
		}
		/* the next head: not dominated by best (gallop), within the root bound */
		i = r->i + 1;
		if (i < r->end && A->p[i].cost + bj->cost >= best) {
			size_t lo = i, hi, step = 1;

			while (lo + step < r->end && A->p[lo + step].cost + bj->cost >= best)
				lo += step, step *= 2;
			hi = lo + step < r->end ? lo + step : r->end;
			while (hi - lo > 1) {
				size_t mid = lo + (hi - lo) / 2;

				if (A->p[mid].cost + bj->cost >= best)
					lo = mid;
				else
					hi = mid;
			}
			i = hi;
		}
		while (i < r->end && A->p[i].cost + lm * (double)A->p[i].bytes + r->rj > x->thr &&
		    sm[i] + r->rj <= x->thr)
			i++;
		if (i < r->end && sm[i] + r->rj <= x->thr) {
			r->i = i;
			r->bytes = A->p[i].bytes + bj->bytes;
			r->cost = A->p[i].cost + bj->cost;
		} else {
			h[0] = h[--nh];
		}
		heap_down(h, nh);
	}
	rc = 0;
done:
	free(sm);
	free(h);
	return rc;
}

/* Bundle fronts of class c up to level top: level 0 its points, level k two of level
 * k - 1, each kept against the rest outside 2^k copies of c. */
static int
bundles(mctx *x, size_t c, int top)
{
	const ilpi_mck_class *q = x->cl[c];

	if ((x->lv[c] = calloc((size_t)top + 1, sizeof *x->lv[c])) == NULL)
		return -1;
	x->nlv[c] = top + 1;
	for (int k = 0; k <= top && !x->stop; k++) {
		mfront *f = &x->lv[c][k];

		for (size_t d = 0; d < x->n; d++)
			x->rest[d] = x->cl[d]->copies;
		x->rest[c] -= (int64_t)1 << k;
		set_rest(x);
		if (k > 0) {
			if (combine(x, &x->lv[c][k - 1], &x->lv[c][k - 1], 1, f) != 0)
				return -1;
			continue;
		}
		for (size_t j = 0; j < q->n; j++) {
			if (!keep(x, q->bytes[j], q->cost[j]))
				continue;
			if (ILPI_GROW(f->p, f->cap, f->n, 1) != 0)
				return -1;
			f->p[f->n++] = (mpt){ q->bytes[j], q->cost[j], (int32_t)j, -1 };
			x->n_points++;
		}
	}
	return 0;
}

/* Adds the class points of bundle point i at level k of class c to cnt. */
static void
expand(const mctx *x, size_t c, int k, int32_t i, int64_t *cnt)
{
	const mpt *p = &x->lv[c][k].p[i];

	if (k == 0) {
		cnt[x->coff[c] + (size_t)p->a]++;
		return;
	}
	expand(x, c, k - 1, p->a, cnt);
	expand(x, c, k - 1, p->b, cnt);
}

static size_t
bundle_size(const mctx *x, const mbundle *b)
{
	return x->lv[b->c][b->level].n;
}

/* Insertion sort by front size, then class and level: few bundles (at most 63 per
 * class). */
static void
sort_bundles(mbundle *bu, size_t n, const mctx *x)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			mbundle t = bu[j];
			size_t na = bundle_size(x, &bu[j - 1]), nb = bundle_size(x, &t);

			if (na < nb || (na == nb && (bu[j - 1].c < t.c || (bu[j - 1].c == t.c &&
			    bu[j - 1].level < t.level))))
				break;
			bu[j] = bu[j - 1], bu[j - 1] = t;
		}
}

/* Index of the last point of f with bytes <= room, or f->n when none. */
static size_t
last_within(const mfront *f, int64_t room)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->p[mid].bytes <= room)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? f->n : lo - 1;
}

/* Index of the first point of f with cost <= t (costs descend), or f->n. */
static size_t
first_below(const mfront *f, double t)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->p[mid].cost <= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static const mpt origin = { 0, 0, -1, -1 };

/* The chain's fronts, each kept against every copy outside the bundles so far. */
static int
run_chain(mctx *x, mchain *ch)
{
	mfront start = { (mpt *)&origin, 1, 0 };
	const mfront *prev = &start;

	for (size_t c = 0; c < x->n; c++)
		x->rest[c] = x->cl[c]->copies;
	for (size_t v = 0; v < ch->n && !x->stop; v++) {
		x->rest[ch->bu[v].c] -= (int64_t)1 << ch->bu[v].level;
		set_rest(x);
		if (combine(x, prev, &x->lv[ch->bu[v].c][ch->bu[v].level], 0, &ch->st[v]) != 0)
			return -1;
		prev = &ch->st[v];
	}
	return 0;
}

static const mfront *
chain_end(const mchain *ch, const mfront *start)
{
	return ch->n > 0 ? &ch->st[ch->n - 1] : start;
}

/* Adds point i of the chain's last front, lowered to class points, to cnt. */
static void
chain_lower(const mctx *x, const mchain *ch, size_t i, int64_t *cnt)
{
	for (size_t v = ch->n; v-- > 0;) {
		const mpt *p = &ch->st[v].p[i];

		expand(x, ch->bu[v].c, ch->bu[v].level, p->b, cnt);
		i = (size_t)p->a;
	}
}

/*
 * The least cost of x's classes within x->cap, then the least bytes among the answers
 * within 1e-9 (relative, of fix + cost) of it: bundles, the chains (line classes, or
 * else the largest bundle, in the second), and each point of the first completed by a
 * binary search in the second. Counts in cnt (x's points). 0, 1 stopped or nothing
 * within ub (the caller keeps the first answer), -1 out of memory.
 */
static int
solve_classes(mctx *x, const uint8_t *line, double fix, int64_t *cnt, int64_t *cnt_least,
    int64_t *by, double *co)
{
	mchain ch[2];
	mbundle *bu = NULL;
	size_t nb = 0, k = 0, pi = 0, qi = 0, pl = 0, ql = 0;
	mfront start = { (mpt *)&origin, 1, 0 };
	const mfront *P, *L;
	double least = DBL_MAX, lim;
	int64_t lb = INT64_MAX;
	int any_line = 0, rc = -1;

	memset(ch, 0, sizeof ch);
	for (size_t c = 0; c < x->n && !x->stop; c++) {
		int top = 0, r2;
		double ub = x->ub;

		while (top < 62 && (x->cl[c]->copies >> (top + 1)) != 0)
			top++;
		nb += (size_t)__builtin_popcountll((unsigned long long)x->cl[c]->copies);
		any_line |= line[c];
		if (line[c] && x->nlv[c] > 0)
			continue;         /* built for an earlier, smaller ub */
		if (line[c])
			x->ub = x->ub_line;
		r2 = bundles(x, c, top);
		x->ub = ub;
		if (r2 != 0)
			goto out;
	}
	if (x->stop) {
		rc = 1;
		goto out;
	}
	if ((bu = malloc((nb + 1) * sizeof *bu)) == NULL)
		goto out;
	for (size_t c = 0; c < x->n; c++)
		for (int l = 0; l < x->nlv[c]; l++)
			if (x->cl[c]->copies >> l & 1)
				bu[k++] = (mbundle){ c, l };
	sort_bundles(bu, nb, x);
	/* the first chain: bundles of the other classes; the second: the lines' (or
	 * the largest bundle) */
	for (int h = 0; h < 2; h++) {
		ch[h].bu = malloc((nb + 1) * sizeof *ch[h].bu);
		ch[h].st = calloc(nb + 1, sizeof *ch[h].st);
		if (ch[h].bu == NULL || ch[h].st == NULL)
			goto out;
	}
	for (size_t v = 0; v < nb; v++) {
		int h = any_line ? line[bu[v].c] : v + 1 == nb;

		ch[h].bu[ch[h].n++] = bu[v];
	}
	if (run_chain(x, &ch[0]) != 0)
		goto out;
	if (any_line && !x->lines_done) {
		double ub = x->ub;
		int r2;

		x->ub = x->ub_line;
		r2 = run_chain(x, &ch[1]);
		x->ub = ub;
		if (r2 != 0)
			goto out;
		x->lines = ch[1];
		x->lines_done = !x->stop;
		memset(&ch[1], 0, sizeof ch[1]);
	} else if (!any_line && run_chain(x, &ch[1]) != 0) {
		goto out;
	}
	if (any_line) {
		free(ch[1].bu), free(ch[1].st);
		memset(&ch[1], 0, sizeof ch[1]);
	}
	if (x->stop) {
		rc = 1;
		goto out;
	}
	P = chain_end(&ch[0], &start);
	L = chain_end(any_line ? &x->lines : &ch[1], &start);
	for (size_t p = 0; p < P->n; p++) {
		size_t q = last_within(L, x->cap - P->p[p].bytes);

		if (q < L->n && P->p[p].cost + L->p[q].cost < least)
			least = P->p[p].cost + L->p[q].cost, pl = p, ql = q;
	}
	if (least == DBL_MAX || least > x->ub + x->tol) {
		rc = 1;           /* nothing within ub: cannot happen with a real ub */
		goto out;
	}
	lim = least + fix + 1e-9 * (fabs(least + fix) > 1 ? fabs(least + fix) : 1);
	least = DBL_MAX;
	for (size_t p = 0; p < P->n; p++) {
		size_t q = first_below(L, lim - fix - P->p[p].cost);
		int64_t b;

		if (q == L->n || L->p[q].bytes > x->cap - P->p[p].bytes)
			continue;
		b = P->p[p].bytes + L->p[q].bytes;
		if (b < lb || (b == lb && P->p[p].cost + L->p[q].cost < least))
			lb = b, least = P->p[p].cost + L->p[q].cost, pi = p, qi = q;
	}
	if (ch[0].n > 0)
		chain_lower(x, &ch[0], pi, cnt);
	if (any_line ? x->lines.n > 0 : ch[1].n > 0)
		chain_lower(x, any_line ? &x->lines : &ch[1], qi, cnt);
	if (ch[0].n > 0)
		chain_lower(x, &ch[0], pl, cnt_least);
	if (any_line ? x->lines.n > 0 : ch[1].n > 0)
		chain_lower(x, any_line ? &x->lines : &ch[1], ql, cnt_least);
	*by = lb;
	*co = least;
	rc = 0;
out:
	for (int h = 0; h < 2; h++) {
		for (size_t v = 0; ch[h].st != NULL && v < ch[h].n; v++)
			free(ch[h].st[v].p);
		free(ch[h].st);
		free(ch[h].bu);
	}
	free(bu);
	return rc;
}

/* Drops the bundle fronts (a search with a larger bound starts afresh), but the
 * lines' and their chain unless all. */
static void
fronts_free(mctx *x, int all)
{
	if (all) {
		for (size_t v = 0; x->lines.st != NULL && v < x->lines.n; v++)
			free(x->lines.st[v].p);
		free(x->lines.st);
		free(x->lines.bu);
		memset(&x->lines, 0, sizeof x->lines);
		x->lines_done = 0;
	}
	for (size_t c = 0; x->lv != NULL && c < x->n; c++) {
		if (!all && x->line != NULL && x->line[c])
			continue;
		for (int k = 0; x->lv[c] != NULL && k < x->nlv[c]; k++)
			free(x->lv[c][k].p);
		free(x->lv[c]);
		x->lv[c] = NULL;
		x->nlv[c] = 0;
	}
	x->n_points = 0;
}

static void
ctx_free(mctx *x)
{
	fronts_free(x, 1);
	free(x->lv);
	free(x->nlv);
	free(x->cl);
	free(x->coff);
	free(x->lam);
	free(x->mu);
	free(x->v);
	free(x->rest);
	memset(x, 0, sizeof *x);
}

/* Classes cl[0..n) into x (counts from offset 0, or the given offsets). */
static int
ctx_init(mctx *x, const ilpi_mck_class *const *cl, size_t n, const size_t *coff,
    int64_t cap, double deadline, size_t max_points)
{
	size_t off = 0;

	memset(x, 0, sizeof *x);
	x->n = n;
	x->cap = cap;
	x->deadline = deadline;
	x->max_points = max_points;
	x->cl = malloc((n + 1) * sizeof *x->cl);
	x->coff = malloc((n + 1) * sizeof *x->coff);
	x->rest = calloc(n + 1, sizeof *x->rest);
	x->lv = calloc(n + 1, sizeof *x->lv);
	x->nlv = calloc(n + 1, sizeof *x->nlv);
	if (x->cl == NULL || x->coff == NULL || x->rest == NULL || x->lv == NULL ||
	    x->nlv == NULL)
		return -1;
	for (size_t c = 0; c < n; c++) {
		x->cl[c] = cl[c];
		x->coff[c] = coff != NULL ? coff[c] : off;
		off += cl[c]->n;
	}
	if (multipliers(x) != 0)
		return -1;
	for (size_t c = 0; c < n; c++)
		x->rest[c] = cl[c]->copies;
	x->ub = DBL_MAX;
	set_rest(x);
	return 0;
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
	if (ctx_init(&x, act, na, aoff, cap - fixb, deadline, max_points) != 0)
		goto out;
	/* the root bound and its multiplier, then a first answer: its cost bounds all */
	lb = -DBL_MAX;
	for (size_t l = 0; l < x.nlam; l++)
		if (lagr(&x, l, 0) > lb)
			lb = lagr(&x, l, 0), x.ls = l;
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
		ctx_free(&y);
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
		    ctx_init(&y, rp, nr, NULL, cap - fixb, deadline, max_points) != 0)
			goto out;
		y.ls = 0;
		for (size_t l = 0; l < y.nlam; l++)
			if (lagr(&y, l, 0) > lagr(&y, y.ls, 0))
				y.ls = l;
		/* deepening: a bound just above the root's first, as the fronts grow with
		 * it; an answer within the bound is the optimum */
		y.tol = 1e-9 * (1 + fabs(gc + fixc));
		y.line = line;
		y.ub_line = gc;
		for (double d = (gc - lb) / 4096 > y.tol ? (gc - lb) / 4096 : y.tol;;
		    d *= 1.5) {
			y.ub = lb + d < gc ? lb + d : gc;
			fronts_free(&y, 0);
			memset(rcnt, 0, nrc * sizeof *rcnt);
			memset(rleast, 0, nrc * sizeof *rleast);
			if ((s = solve_classes(&y, line, fixc, rcnt, rleast, &rb, &rcost)) < 0)
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
	ctx_free(&x);
	ctx_free(&y);
	return rc;
}
