/* peak_blocks.h - solver/driver/peak_blocks.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_BLOCKS_H
#define ILPART_SOLVER_DRIVER_PEAK_BLOCKS_H

#include "solver/driver/ctx.h"
#include "solver/driver/peak_seeds.h"

/*
 * Incumbents from the chain of repeated layers of the plan b (of c's reduced model):
 * per-layer decisions (the incumbent's, the seeds', and, when have_front, points of
 * b's combined front) calibrated by simulation and combined for the least peak of the
 * chain model; every result is simulated and offered (drv_peak_offer) and among the
 * descents' starts. Stops at `until`. Nothing here is a bound.
 */
void drv_peak_blocks(solve_ctx *c, const ilpi_blocks *b, int have_front, int64_t *best,
    peak_starts *st, double until);

#endif /* ILPART_SOLVER_DRIVER_PEAK_BLOCKS_H */
