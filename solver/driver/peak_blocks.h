/* peak_blocks.h - solver/driver/peak_blocks.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_BLOCKS_H
#define ILPART_SOLVER_DRIVER_PEAK_BLOCKS_H

#include "solver/driver/ctx.h"
#include "solver/driver/peak_seeds.h"

/*
 * Incumbents from the chain of repeated layers of the plan b (of c's reduced model;
 * when b has fewer than three layers, of a plan at every narrow cut): per-layer
 * decisions (the incumbent's, the seeds', and a local search from them) calibrated by
 * simulation and combined for the least peak of the chain model; every result is
 * simulated and offered (drv_peak_offer) and among the descents' starts. Stops at
 * `until`. Nothing here is a bound.
 */
void drv_peak_blocks(solve_ctx *c, const ilpi_blocks *b, int64_t *best, peak_starts *st,
    double until);

/*
 * --peak-budget B: the chain's least-time assignment within B (per-layer decisions
 * from the seeds, the least-peak valid seed as the base), simulated; when the
 * simulation overshoots, again with the chain's peak lowered by the overshoot (at most
 * 8 tries). 1 with a partition whose simulated peak is within B in (s, r) (per item,
 * caller-allocated), its peak in *sim and the chain's time in *time; 0 none.
 */
int drv_peak_blocks_budget(solve_ctx *c, int64_t B, uint8_t *s, uint8_t *r, int64_t *sim,
    double *time, double until);

#endif /* ILPART_SOLVER_DRIVER_PEAK_BLOCKS_H */
