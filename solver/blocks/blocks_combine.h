/*
 * blocks_combine.h - the combination of the class fronts along the segments, forward
 * (Minkowski sums with dominance pruning, state by state) and backward (scalar
 * programmes for bounds and paths) (internal).
 */
#ifndef ILPART_SOLVER_BLOCKS_COMBINE_H
#define ILPART_SOLVER_BLOCKS_COMBINE_H

#include <stddef.h>
#include <stdint.h>

#include "solver/blocks/blocks_plan.h"

/*
 * Pruning of one combination. A point at cut c in state o with bytes B_p and cost C_p
 * is dropped when B_p plus the least bytes of the rest exceeds cap, or when C_p plus a
 * Lagrangian bound of the rest exceeds ub: for any lambda >= 0 and remaining budget
 * beta = cap - B_p, every completion costs at least V_lambda(c, o) - lambda * beta,
 * where V_lambda is the least cost + lambda * bytes of the rest (a scalar programme
 * backwards over the same fronts). A point on an optimal path is never dropped.
 */
typedef struct ilpi_blocks_bounds {
	int64_t cap;              /* < 0: none */
	double ub;                /* DBL_MAX: none */
	size_t nlam;
	const double *lam;        /* ascending, lam[0] = 0 */
	const double *vt;         /* per global state, per lambda: V_lambda */
	const int64_t *minb;      /* per global state: least bytes of the rest */
	size_t beam;              /* > 0: a heuristic run keeping this many points per state */
} ilpi_blocks_bounds;

/* Backward scalar programme: v[state] = least cost + lam * bytes of the rest (lam < 0:
 * least bytes, into minb). DBL_MAX / INT64_MAX: no completion. */
void ilpi_blocks_rest_values(const ilpi_blocks *b, double lam, double *v, int64_t *minb);

/* The path that attains ilpi_blocks_rest_values from cut 0: class point per segment in
 * path[]; returns its bytes and cost. lam < 0 follows minb (least bytes, then least
 * cost). */
void ilpi_blocks_rest_path(const ilpi_blocks *b, double lam, const double *v,
    const int64_t *minb, int32_t *path, int64_t *bytes, double *cost);

/* Forward combination of the fronts; with bd, only points that can still be optimal.
 * 0 done, 1 over the work limit or out of time, -1 out of memory. */
int ilpi_blocks_combine(ilpi_blocks *b, const ilpi_blocks_bounds *bd);

#endif /* ILPART_SOLVER_BLOCKS_COMBINE_H */
