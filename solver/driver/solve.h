/* solve.h - solver/driver/solve.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_SOLVE_H
#define ILPART_SOLVER_DRIVER_SOLVE_H

#include "solver/driver/ctx.h"

int drv_build_rules(solve_ctx *c, ilp_error *err);
int drv_prepare(solve_ctx *c, ilp_error *err);
void drv_release(solve_ctx *c, int glpk_freed);

/* ilp_solve with the hooks h (ctx.h; NULL: the defaults), which it may update (the
 * peak search counts h->peak_checks down): for tests. */
int ilpi_solve_hooked(const ilp_graph *g, const ilp_solve_options *o, ilpi_solve_hooks *h,
    ilp_partition **out, ilp_error *err);

/* Test hook (solver/driver/solve.c): builds the peak model of g under o (the peak objective),
 * adds general and exact rows at every step (exact rows at forward steps too) of every
 * partition of parts[] that is an answer of the model, and evaluates every row at each
 * of those answers: *excess is
 * the largest row value, or ilpi_peak_cuts_floor, minus that answer's simulated peak
 * (rows and floor are lower bounds: at most 0), *points the rows added, *vacuous
 * how many of the rows they wrote beside the peak rows hold whatever the columns are
 * within their bounds (rows that only make the model larger). */
int ilpi_peak_audit(const ilp_graph *g, const ilp_solve_options *o,
    ilp_partition *const *parts, size_t n, double *excess, int *points, int *vacuous,
    ilp_error *err);

#endif /* ILPART_SOLVER_DRIVER_SOLVE_H */
