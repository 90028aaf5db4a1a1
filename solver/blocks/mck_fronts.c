/*
 * mck_fronts.c - bundle fronts, their merges and the chains of the search by counts
 * (mck_fronts.h). mck.c states the method.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "solver/blocks/heap.h"
#include "solver/blocks/mck_fronts.h"

typedef struct mrun {
	ilpi_heap_key head;       /* bytes and cost of the head */
	size_t i, end;            /* head and end in the walked front */
	size_t j;                 /* the run's point of the other front */
	double rj;                /* its cost + lam[ls] * bytes */
} mrun;

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
		r->head.bytes = A->p[0].bytes + B->p[j].bytes;
		r->head.cost = A->p[0].cost + B->p[j].cost;
		ilpi_heap_up(h, ++nh, sizeof *h);
	}
	while (nh > 0) {
		mrun *r = &h[0];
		const mpt *bj = &B->p[r->j];
		size_t i;

		if (r->head.bytes > x->cap - x->minb)
			break;            /* every head left has at least as many bytes */
		if (tick(x))
			break;
		if (r->head.cost < best && ilpi_mck_keep(x, r->head.bytes, r->head.cost)) {
			mpt *o;

			if (x->n_points >= x->max_points) {
				x->stop = 1;
				break;
			}
			if (ILPI_GROW(out->p, out->cap, out->n, 1) != 0)
				goto done;
			o = &out->p[out->n++];
			o->bytes = r->head.bytes;
			o->cost = r->head.cost;
			o->a = (int32_t)(swap ? r->j : r->i);
			o->b = (int32_t)(swap ? r->i : r->j);
			x->n_points++;
			best = r->head.cost;
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
			r->head.bytes = A->p[i].bytes + bj->bytes;
			r->head.cost = A->p[i].cost + bj->cost;
		} else {
			h[0] = h[--nh];
		}
		ilpi_heap_down(h, nh, sizeof *h);
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
		ilpi_mck_set_rest(x);
		if (k > 0) {
			if (combine(x, &x->lv[c][k - 1], &x->lv[c][k - 1], 1, f) != 0)
				return -1;
			continue;
		}
		for (size_t j = 0; j < q->n; j++) {
			if (!ilpi_mck_keep(x, q->bytes[j], q->cost[j]))
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

/* The first index of f past a bound, or f->n: bytes > room when by_bytes, else
 * cost <= t (along a front bytes ascend and costs descend: false, then true). */
static size_t
first_past(const mfront *f, int by_bytes, int64_t room, double t)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_bytes ? f->p[mid].bytes > room : f->p[mid].cost <= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Index of the last point of f with bytes <= room, or f->n when none. */
static size_t
last_within(const mfront *f, int64_t room)
{
	size_t i = first_past(f, 1, room, 0);

	return i == 0 ? f->n : i - 1;
}

/* Index of the first point of f with cost <= t (costs descend), or f->n. */
static size_t
first_below(const mfront *f, double t)
{
	return first_past(f, 0, 0, t);
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
		ilpi_mck_set_rest(x);
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
/* Whole (122 lines): both chains are built and searched with the same buffers and one
 * cleanup path. */
int
ilpi_mck_solve_classes(mctx *x, const uint8_t *line, double fix, int64_t *cnt,
    int64_t *cnt_least, int64_t *by, double *co)
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
