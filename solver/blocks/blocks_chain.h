/*
 * blocks_chain.h - the peak of a stack of windows as a chain (internal; docs/solver.md
 * "Peak along the blocks").
 *
 * A stack of n_win windows (copies of one block), each taking one of n_dec decisions.
 * Decision d leaves S[d] bytes saved for every window above it, costs t[d] recompute
 * time, and window k peaks locally at b[k * n_dec + d] plus what the windows below it
 * left saved. Before the stack (the embedding's backward, at the end of the step) the
 * live bytes are tail[d0] (d0: window 0's decision), after it (the head) head[dL] plus
 * everything the windows left saved (dL: the top window's). The chain's peak of an
 * assignment pick[0..n_win) is
 *
 *   max( tail[pick[0]], head[pick[n-1]] + sum_k S[pick[k]],
 *        max_k ( b[k][pick[k]] + sum_{j<k} S[pick[j]] ) ).
 *
 * INT64_MAX in b, head or tail: the decision is not allowed there.
 */
#ifndef ILPART_SOLVER_BLOCKS_CHAIN_H
#define ILPART_SOLVER_BLOCKS_CHAIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct ilpi_blocks_chain {
	size_t n_win, n_dec;
	const int64_t *S;         /* n_dec, >= 0 */
	const double *t;          /* n_dec, >= 0 */
	const int64_t *b;         /* n_win * n_dec */
	const int64_t *head, *tail; /* n_dec each */
} ilpi_blocks_chain;

/* The chain's peak of pick (INT64_MAX when a decision is not allowed). */
int64_t ilpi_blocks_chain_value(const ilpi_blocks_chain *ch, const int32_t *pick);

/* Whether some assignment peaks at most P; if so, one in pick (n_win) that leaves the
 * least saved bytes at every window (greedy: a smaller prefix is never worse). */
int ilpi_blocks_chain_feasible(const ilpi_blocks_chain *ch, int64_t P, int32_t *pick);

/* The least peak of any assignment, and one such in pick; -1 when none exists. */
int64_t ilpi_blocks_chain_least(const ilpi_blocks_chain *ch, int32_t *pick);

/* Least total time among the assignments peaking at most P, one such in pick: a
 * dynamic programme over the windows keeping per window the Pareto front of (prefix
 * bytes, time). Returns 0, 1 when none peaks within P, -1 out of memory. */
int ilpi_blocks_chain_fastest(const ilpi_blocks_chain *ch, int64_t P, int32_t *pick,
    double *time);

#endif /* ILPART_SOLVER_BLOCKS_CHAIN_H */
