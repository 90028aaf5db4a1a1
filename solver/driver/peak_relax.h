/* peak_relax.h - solver/driver/peak_relax.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_RELAX_H
#define ILPART_SOLVER_DRIVER_PEAK_RELAX_H

#include "solver/driver/ctx.h"

/*
 * A lower bound of every partition's simulated peak from c's peak rows relaxed along
 * the repeated layers (docs/solver.md "Peak along the blocks", "The bound along the
 * layers"), in *lb (bytes). Runs inside ilpi_glpk_run (small GLPK models of its own;
 * c's model is only read). 0 with *lb; 1 not applicable (no stack, running sums, a
 * column that may be negative) or out of time at `until`; -1 out of memory.
 */
int drv_peak_relax_bound(solve_ctx *c, double until, double *lb);

#endif /* ILPART_SOLVER_DRIVER_PEAK_RELAX_H */
