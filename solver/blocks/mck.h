/*
 * mck.h - least recompute cost within a byte cap when the segments of a decomposition
 * are independent (every cut has an empty state), by counts over classes (internal).
 *
 * Each class is one front of (bytes, cost) points and a number of identical copies; an
 * answer picks one point per copy, and only how many copies of a class take each point
 * matters. docs/solver.md ("Independent segments: by counts") states the method; it
 * gives the answer of the segment-by-segment combination (blocks_combine.c) with its pruning
 * rules, exact whatever the fronts.
 */
#ifndef ILPART_SOLVER_MCK_H
#define ILPART_SOLVER_MCK_H

#include <stddef.h>
#include <stdint.h>

typedef struct ilpi_mck_class {
	int64_t copies;           /* >= 0 */
	size_t n;                 /* >= 1 points: ascending bytes, strictly descending cost */
	const int64_t *bytes;
	const double *cost;
} ilpi_mck_class;

typedef struct ilpi_mck_stats {
	size_t points;            /* points kept by all fronts (bundles and combination) */
	size_t lines;             /* classes split into a line and moves */
	double lower, upper;      /* Lagrangian bound and the first feasible answer's cost */
} ilpi_mck_stats;

/*
 * Least total cost with total bytes <= cap, then the least bytes among the answers
 * within 1e-9 (relative) of that cost, as blocks.c's best_final. count (one per class
 * point, classes in order) receives how many copies take each point. deadline: an
 * ilpi_now() time, 0 none; max_points bounds the points kept (the work limit).
 * Returns 0 (proven; *bound = *cost), 3 out of time or over the work limit with the
 * first feasible answer in count and *bound a proven lower bound of the cost, 2 when
 * nothing fits, -1 out of memory. st may be NULL.
 */
int ilpi_mck_solve(const ilpi_mck_class *cls, size_t n_cls, int64_t cap, double deadline,
    size_t max_points, int64_t *count, int64_t *bytes, double *cost, double *bound,
    ilpi_mck_stats *st);

#endif /* ILPART_SOLVER_MCK_H */
