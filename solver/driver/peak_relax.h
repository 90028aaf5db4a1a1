/* peak_relax.h - solver/driver/peak_relax.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_RELAX_H
#define ILPART_SOLVER_DRIVER_PEAK_RELAX_H

#include "solver/driver/ctx.h"

/*
 * Groundwork for a lower bound along the repeated layers (docs/solver.md "Peak along
 * the blocks", "Toward a bound"): reads c's peak rows back from the model, assigns
 * every column to the tail, a window of the stack or the head, and reports under -v
 * how far the rows are from the chain form the bound needs (prefix terms per window,
 * rows that fall below it). Computes no bound and changes nothing. Runs inside
 * ilpi_glpk_run. 0 surveyed, 1 not applicable (no stack, running sums, a column that
 * may be negative), -1 out of memory.
 */
int drv_peak_relax_survey(solve_ctx *c);

#endif /* ILPART_SOLVER_DRIVER_PEAK_RELAX_H */
