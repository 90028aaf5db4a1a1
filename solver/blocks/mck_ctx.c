/*
 * mck_ctx.c - the context of one search by counts and its Lagrangian bounds
 * (mck_ctx.h). mck.c states the method.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "solver/blocks/mck_ctx.h"

/* ---- bounds ----------------------------------------------------------------------- */

/* The rest's Lagrangian values and least bytes, from x->rest. */
void
ilpi_mck_set_rest(mctx *x)
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
	/* a pre-filter only: generous against rounding (ilpi_mck_keep() decides) */
	slack = 1e-9 * (fabs(x->v[x->ls]) + x->lam[x->ls] * (double)x->cap + 1);
	x->thr = x->ub + x->tol + slack + x->lam[x->ls] * (double)x->cap - x->v[x->ls];
}

double
ilpi_mck_lagr(const mctx *x, size_t l, int64_t by)
{
	return x->v[l] - x->lam[l] * (double)(x->cap - by);
}

/* Can a point of by bytes and this cost still be completed within the cap at a cost
 * within ub? The bound V_lam(rest) - lam * (cap - by) is concave in lam: bisection. */
int
ilpi_mck_keep(const mctx *x, int64_t by, double cost)
{
	size_t lo = 0, hi = x->nlam - 1;

	if (by > x->cap - x->minb)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ilpi_mck_lagr(x, mid, by) < ilpi_mck_lagr(x, mid + 1, by))
			lo = mid + 1;
		else
			hi = mid;
	}
	return cost + ilpi_mck_lagr(x, lo, by) <= x->ub + x->tol;
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

/* ---- context ---------------------------------------------------------------------- */

/* Drops the bundle fronts (a search with a larger bound starts afresh), but the
 * lines' and their chain unless all. */
void
ilpi_mck_fronts_free(mctx *x, int all)
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

void
ilpi_mck_ctx_free(mctx *x)
{
	ilpi_mck_fronts_free(x, 1);
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
int
ilpi_mck_ctx_init(mctx *x, const ilpi_mck_class *const *cl, size_t n,
    const size_t *coff, int64_t cap, double deadline, size_t max_points)
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
	ilpi_mck_set_rest(x);
	return 0;
}
