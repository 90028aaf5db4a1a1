/*
 * blocks_chain.c - least peak and least time under a peak along a chain of windows
 * (blocks_chain.h states the chain's peak).
 */
#include "config.h"

#include <stdlib.h>

#include "solver/blocks/blocks_chain.h"

/* Work limit of the time programme: points kept over all windows. */
#define CHAIN_MAX_POINTS ((size_t)1 << 22)

static int64_t
add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Whether decision d fits window k at peak P after `prefix` saved bytes below it. */
static int
fits(const ilpi_blocks_chain *ch, size_t k, size_t d, int64_t prefix, int64_t P)
{
	int64_t bk = ch->b[k * ch->n_dec + d];

	if (bk == INT64_MAX || add_sat(bk, prefix) > P)
		return 0;
	if (k == 0 && ch->tail[d] > P)
		return 0;
	if (k + 1 == ch->n_win && (ch->head[d] == INT64_MAX ||
	    add_sat(ch->head[d], add_sat(prefix, ch->S[d])) > P))
		return 0;
	return 1;
}

int64_t
ilpi_blocks_chain_value(const ilpi_blocks_chain *ch, const int32_t *pick)
{
	int64_t prefix = 0, peak = 0;

	if (ch->n_win == 0)
		return 0;
	for (size_t k = 0; k < ch->n_win; k++) {
		int64_t bk = ch->b[k * ch->n_dec + (size_t)pick[k]];

		if (bk == INT64_MAX)
			return INT64_MAX;
		if (add_sat(bk, prefix) > peak)
			peak = add_sat(bk, prefix);
		prefix = add_sat(prefix, ch->S[pick[k]]);
	}
	if (ch->tail[pick[0]] > peak)
		peak = ch->tail[pick[0]];
	if (ch->head[pick[ch->n_win - 1]] == INT64_MAX)
		return INT64_MAX;
	if (add_sat(ch->head[pick[ch->n_win - 1]], prefix) > peak)
		peak = add_sat(ch->head[pick[ch->n_win - 1]], prefix);
	return peak;
}

int
ilpi_blocks_chain_feasible(const ilpi_blocks_chain *ch, int64_t P, int32_t *pick)
{
	int64_t prefix = 0;

	for (size_t k = 0; k < ch->n_win; k++) {
		int32_t bestd = -1;

		for (size_t d = 0; d < ch->n_dec; d++) {
			if (!fits(ch, k, d, prefix, P))
				continue;
			if (bestd < 0 || ch->S[d] < ch->S[bestd] ||
			    (ch->S[d] == ch->S[bestd] && ch->t[d] < ch->t[bestd]))
				bestd = (int32_t)d;
		}
		if (bestd < 0)
			return 0;
		pick[k] = bestd;
		prefix = add_sat(prefix, ch->S[bestd]);
	}
	return 1;
}

int64_t
ilpi_blocks_chain_least(const ilpi_blocks_chain *ch, int32_t *pick)
{
	int64_t lo = 0, hi, maxS = 0;

	/* Every allowed assignment peaks within the largest b, head or tail plus every
	 * window's largest S. */
	for (size_t d = 0; d < ch->n_dec; d++) {
		if (ch->S[d] > maxS)
			maxS = ch->S[d];
		if (ch->tail[d] > lo)
			lo = ch->tail[d];
		if (ch->head[d] != INT64_MAX && ch->head[d] > lo)
			lo = ch->head[d];
		for (size_t k = 0; k < ch->n_win; k++)
			if (ch->b[k * ch->n_dec + d] != INT64_MAX &&
			    ch->b[k * ch->n_dec + d] > lo)
				lo = ch->b[k * ch->n_dec + d];
	}
	hi = lo;
	for (size_t k = 0; k < ch->n_win; k++)
		hi = add_sat(hi, maxS);
	if (ch->n_win == 0 || !ilpi_blocks_chain_feasible(ch, hi, pick))
		return -1;
	/* feasibility is monotone in P: bisect on the integers */
	lo = -1;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (ilpi_blocks_chain_feasible(ch, mid, pick))
			hi = mid;
		else
			lo = mid;
	}
	(void)ilpi_blocks_chain_feasible(ch, hi, pick);
	return ilpi_blocks_chain_value(ch, pick);
}

typedef struct cpoint {
	int64_t prefix;
	double time;
	int32_t prev, dec;        /* point at the window below (-1 at window 0), decision */
} cpoint;

static int
cmp_cpoint(const void *a, const void *b)
{
	const cpoint *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

int
ilpi_blocks_chain_fastest(const ilpi_blocks_chain *ch, int64_t P, int32_t *pick,
    double *time)
{
	cpoint *pt = NULL, *tmp;
	size_t n_pt = 0, cap = 0, beg = 0, end = 0;
	int rc = 1;

	if (ch->n_win == 0)
		return 1;
	for (size_t k = 0; k < ch->n_win; k++) {
		size_t from = n_pt, kept;
		size_t lo = k == 0 ? 0 : beg, hi = k == 0 ? 1 : end;

		for (size_t i = lo; i < hi; i++) {
			int64_t prefix = k == 0 ? 0 : pt[i].prefix;
			double t0 = k == 0 ? 0 : pt[i].time;

			for (size_t d = 0; d < ch->n_dec; d++) {
				if (!fits(ch, k, d, prefix, P))
					continue;
				if (n_pt == cap) {
					cap = cap ? 2 * cap : 1024;
					if (cap > CHAIN_MAX_POINTS ||
					    (tmp = realloc(pt, cap * sizeof *pt)) == NULL) {
						rc = -1;
						goto out;
					}
					pt = tmp;
				}
				pt[n_pt].prefix = add_sat(prefix, ch->S[d]);
				pt[n_pt].time = t0 + ch->t[d];
				pt[n_pt].prev = k == 0 ? -1 : (int32_t)i;
				pt[n_pt].dec = (int32_t)d;
				n_pt++;
			}
		}
		if (n_pt == from)
			goto out;
		/* Pareto: ascending prefix, strictly descending time */
		qsort(pt + from, n_pt - from, sizeof *pt, cmp_cpoint);
		kept = from + 1;
		for (size_t i = from + 1; i < n_pt; i++)
			if (pt[i].time < pt[kept - 1].time)
				pt[kept++] = pt[i];
		n_pt = kept;
		beg = from;
		end = n_pt;
	}
	/* the least time is the last point of the last window's front */
	{
		int32_t i = (int32_t)(end - 1);

		*time = pt[i].time;
		for (size_t k = ch->n_win; k-- > 0;) {
			pick[k] = pt[i].dec;
			i = pt[i].prev;
		}
	}
	rc = 0;
out:
	free(pt);
	return rc;
}
