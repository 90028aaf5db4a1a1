/*
 * blocks.h - exact budgeted solves by decomposition along narrow cuts (internal).
 * docs/solver.md ("Decomposition") states the method and when it is exact.
 *
 * The reduced model's items are laid out in a row-topological order; a cut between two
 * positions is narrow when few variables on its left share a row with the right side
 * (their values are the cut's *state*). Cutting at every narrow position splits the
 * model into segments; segments with the same sub-model (same items, costs, bytes and
 * links, up to position) form one *class*, solved once: for every pair of entry and
 * exit states the complete Pareto front of (saved bytes, recompute cost) by
 * epsilon-constraint ILP solves. A dynamic programme over the segments combines the
 * fronts (Minkowski sums with dominance pruning) into the front of the whole model,
 * from which any budget's optimum is read and lowered back to item decisions.
 */
#ifndef ILPART_SOLVER_BLOCKS_H
#define ILPART_SOLVER_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "solver/model/reduce.h"

typedef struct ilpi_blocks ilpi_blocks;

typedef struct ilpi_blocks_stats {
	size_t n_active;          /* items with a variable */
	size_t n_seg, n_class;    /* segments, distinct segments */
	size_t max_width;         /* largest state (variables) at a chosen cut */
	size_t max_seg;           /* items in the largest segment */
	size_t n_subsolves;       /* GLPK solves for the class fronts */
	size_t n_points;          /* points kept by the combination, all cuts */
	size_t front;             /* points on the final front */
	int projected;            /* ilpi_blocks_front stopped early: the points kept, and
	                           * the last cut's for each cut to come, exceed the work
	                           * limit (n_points: the points kept then) */
	int counts;               /* the last budgeted solve combined independent
	                           * segments by counts (solver/blocks/mck.c) */
} ilpi_blocks_stats;

/*
 * Plans the decomposition of red (no GLPK): order, cuts, classes. *out is NULL, with
 * no error, when the model has no narrow enough cuts. red must outlive the plan.
 * The caller owns *out (ilpi_blocks_free).
 */
int ilpi_blocks_plan(const ilpi_reduced *red, ilpi_blocks **out, ilp_error *err);

/* The same with at least min_seg items between chosen cuts: fewer, longer segments,
 * so an unbounded combination (ilpi_blocks_front) keeps fewer points. */
int ilpi_blocks_plan_coarse(const ilpi_reduced *red, size_t min_seg, ilpi_blocks **out,
    ilp_error *err);

/*
 * Per-item terms beyond the model's own (soft preferences, docs/solver.md "Soft
 * preferences"): saving item i adds bytes_s[i] saved bytes and cost_s[i] recompute
 * cost, recomputing it bytes_r[i] and cost_r[i]. Any array may be NULL (no term); all
 * must be non-negative and outlive the plan. The class keys include them, so segments
 * with different terms are different classes.
 */
typedef struct ilpi_blocks_extra {
	const int64_t *bytes_s, *bytes_r;
	const double *cost_s, *cost_r;
	/* --offload free (docs/solver.md "Offload"), per item: off_kind 1, a saved item may
	 * also be offloaded (its storage's bytes leave the bytes, off_cost joins the cost;
	 * its answer's s is 2), 2: offloaded whenever saved; 0 or NULL: never */
	const uint8_t *off_kind;
	const double *off_cost;
} ilpi_blocks_extra;

/* ilpi_blocks_plan_coarse with extra terms x (NULL: none). */
int ilpi_blocks_plan_extra(const ilpi_reduced *red, const ilpi_blocks_extra *x,
    size_t min_seg, ilpi_blocks **out, ilp_error *err);

/* Combinations stop (as over the work limit) once this many seconds have passed;
 * <= 0: no limit. */
void ilpi_blocks_set_time_limit(ilpi_blocks *b, double seconds);
/* The combination's work limit in points (default 48 M; tests lower it), and the
 * counts' (solver/blocks/mck.c, default 8 M) when lower. */
void ilpi_blocks_set_max_points(ilpi_blocks *b, size_t points);

/* The class fronts (no GLPK). Returns 1 (no error) when a segment is too wide for
 * them: the caller solves the model as a whole. */
int ilpi_blocks_prepare(ilpi_blocks *b, ilp_error *err);

/* Least saved bytes B0 and a partition with them (least cost among those); -1 when
 * no partition exists. After prepare. */
int64_t ilpi_blocks_least_bytes(ilpi_blocks *b, uint8_t *s, uint8_t *r);

/*
 * The runtime-optimal partition: least cost, then least bytes among the partitions
 * within 1e-9 (relative) of that cost, as the monolithic path defines it. After
 * prepare; s and r are per item, caller-allocated. Returns 0, 1 over the work limit,
 * -1 on error.
 */
int ilpi_blocks_runtime_optimal(ilpi_blocks *b, int64_t *bytes, double *cost, uint8_t *s,
    uint8_t *r, ilp_error *err);

/*
 * Least recompute cost with at most cap saved bytes, proven: the combination keeps
 * every point that a Lagrangian bound cannot exclude. Returns 0 (answer in bytes, cost,
 * s, r; *bound = *cost), 3 out of time with a feasible answer from the heuristic run
 * (or the counts' first answer) and *bound a proven lower bound of the cost, 4 over
 * the work limit with time left and such an answer (not proven: a start for another
 * method), 1 over the work limit (or out of time) with no answer, 2 no partition
 * within cap, -1 on error.
 */
int ilpi_blocks_solve(ilpi_blocks *b, int64_t cap, int64_t *bytes, double *cost,
    double *bound, uint8_t *s, uint8_t *r, ilp_error *err);

/* The whole front of (bytes, cost): prepare, then combine without bounds. Returns 1
 * over the work limit, or (independent segments) as soon as the points kept and those
 * of the last cut for each cut to come exceed it (stats: projected). */
int ilpi_blocks_front(ilpi_blocks *b, ilp_error *err);

/* The last combination's front, ascending bytes and strictly descending cost. */
size_t ilpi_blocks_front_size(const ilpi_blocks *b);
void ilpi_blocks_point(const ilpi_blocks *b, size_t i, int64_t *bytes, double *cost);

/* Item decisions (n_items each, caller-allocated) of front point i. */
void ilpi_blocks_lower(const ilpi_blocks *b, size_t i, uint8_t *s, uint8_t *r);

void ilpi_blocks_get_stats(const ilpi_blocks *b, ilpi_blocks_stats *st);

void ilpi_blocks_free(ilpi_blocks *b);

struct ilpi_buf;

/* One line for the plan, then one per class: how many segments, its items, its first
 * segment's first and last node, and the variables of its entry and exit states. */
void ilpi_blocks_describe(const ilp_graph *g, const ilpi_blocks *b, struct ilpi_buf *out);

#endif /* ILPART_SOLVER_BLOCKS_H */
