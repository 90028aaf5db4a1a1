/*
 * test_peak_blocks.c - the chain of repeated layers (solver/blocks/blocks_chain.c):
 * least peak and least time under a peak against enumeration of every assignment.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "solver/blocks/blocks_chain.h"
#include "tests/suites.h"

static uint64_t rng_state;

static uint64_t
rnd(uint64_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rng_state >> 33) % n;
}

typedef struct rchain {
	size_t n_win, n_dec;
	int64_t S[6], b[6 * 6], head[6], tail[6];
	double t[6];
} rchain;

/* A random chain: small integers so that ties occur; some decisions not allowed. */
static void
random_chain(rchain *r)
{
	r->n_win = 1 + rnd(5);
	r->n_dec = 1 + rnd(5);
	for (size_t d = 0; d < r->n_dec; d++) {
		r->S[d] = (int64_t)rnd(20);
		r->t[d] = (double)rnd(8);
		r->head[d] = rnd(10) == 0 ? INT64_MAX : (int64_t)rnd(60);
		r->tail[d] = (int64_t)rnd(60);
		for (size_t w = 0; w < r->n_win; w++)
			r->b[w * r->n_dec + d] = rnd(8) == 0 ? INT64_MAX : (int64_t)rnd(60);
	}
}

static ilpi_blocks_chain
chain(const rchain *r)
{
	return (ilpi_blocks_chain){ r->n_win, r->n_dec, r->S, r->t, r->b, r->head, r->tail };
}

/* The chain's peak written out again, independently of ilpi_blocks_chain_value. */
static int64_t
peak_of(const rchain *r, const int32_t *pick)
{
	int64_t prefix = 0, peak = r->tail[pick[0]];

	for (size_t w = 0; w < r->n_win; w++) {
		int64_t bw = r->b[w * r->n_dec + (size_t)pick[w]];

		if (bw == INT64_MAX)
			return INT64_MAX;
		if (bw + prefix > peak)
			peak = bw + prefix;
		prefix += r->S[pick[w]];
	}
	if (r->head[pick[r->n_win - 1]] == INT64_MAX)
		return INT64_MAX;
	if (r->head[pick[r->n_win - 1]] + prefix > peak)
		peak = r->head[pick[r->n_win - 1]] + prefix;
	return peak;
}

static double
time_of(const rchain *r, const int32_t *pick)
{
	double t = 0;

	for (size_t w = 0; w < r->n_win; w++)
		t += r->t[pick[w]];
	return t;
}

/* Every assignment: the least peak, and the least time among those within P. */
static void
enumerate(const rchain *r, int64_t P, int64_t *least, double *fastest)
{
	int32_t pick[6] = { 0 };
	long total = 1;

	*least = -1;
	*fastest = -1;
	for (size_t w = 0; w < r->n_win; w++)
		total *= (long)r->n_dec;
	for (long code = 0; code < total; code++) {
		long c = code;
		int64_t v;

		for (size_t w = 0; w < r->n_win; w++) {
			pick[w] = (int32_t)(c % (long)r->n_dec);
			c /= (long)r->n_dec;
		}
		if ((v = peak_of(r, pick)) == INT64_MAX)
			continue;
		if (*least < 0 || v < *least)
			*least = v;
		if (v <= P && (*fastest < 0 || time_of(r, pick) < *fastest))
			*fastest = time_of(r, pick);
	}
}

/* 2,000 random chains: the least peak equals the enumeration's and its pick peaks
 * there; at a random P, the least time equals the enumeration's least among the
 * assignments within P, and its pick is within P at that time. */
START_TEST(chain_matches_enumeration)
{
	int solved = 0, timed = 0;

	for (int seed = 1; seed <= 2000; seed++) {
		rchain r;
		ilpi_blocks_chain ch;
		int32_t pick[6];
		int64_t least, want, P;
		double fastest, tm;
		int rc;

		rng_state = (uint64_t)seed * 7919;
		random_chain(&r);
		ch = chain(&r);
		P = (int64_t)rnd(150);
		enumerate(&r, P, &want, &fastest);
		least = ilpi_blocks_chain_least(&ch, pick);
		ck_assert_msg(least == want, "seed %d: least %lld, enumeration %lld", seed,
		    (long long)least, (long long)want);
		if (least >= 0) {
			ck_assert_int_eq(peak_of(&r, pick), least);
			ck_assert_int_eq(ilpi_blocks_chain_value(&ch, pick), least);
			ck_assert(ilpi_blocks_chain_feasible(&ch, least, pick));
			ck_assert(!ilpi_blocks_chain_feasible(&ch, least - 1, pick));
			solved++;
		}
		rc = ilpi_blocks_chain_fastest(&ch, P, pick, &tm);
		ck_assert_int_ge(rc, 0);
		ck_assert_msg((rc == 0) == (fastest >= 0), "seed %d: fastest rc %d, enumeration "
		    "%g", seed, rc, fastest);
		if (rc == 0) {
			ck_assert_msg(tm == fastest, "seed %d: time %g, enumeration %g", seed, tm,
			    fastest);
			ck_assert_int_le(peak_of(&r, pick), P);
			ck_assert(time_of(&r, pick) == tm);
			timed++;
		}
	}
	/* the generator reaches both outcomes often */
	ck_assert_int_ge(solved, 1000);
	ck_assert_int_ge(timed, 500);
}
END_TEST

Suite *
suite_peak_blocks(void)
{
	Suite *s = suite_create("peak_blocks");
	TCase *tc = tcase_create("chain");

	tcase_add_test(tc, chain_matches_enumeration);
	suite_add_tcase(s, tc);
	return s;
}
