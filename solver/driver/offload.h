/*
 * offload.h - `--offload free` (docs/solver.md "Offload"): which items the model may
 * offload and what an offload costs in transfer time the compute does not hide.
 */
#ifndef ILPART_SOLVER_DRIVER_OFFLOAD_H
#define ILPART_SOLVER_DRIVER_OFFLOAD_H

#include "solver/driver/ctx.h"

/* The host link of a solve in bytes/s: the option's, else the device profile's. */
double drv_offload_bw(const ilp_solve_options *o);
/* Adds the offload columns to c->m (after ilpi_model_build); the block decomposition's
 * fronts take them as a third state per item (decomp.c). -1 when out of memory. */
int drv_offload_setup(solve_ctx *c, ilp_error *err);
/* The model's exposed transfer time of the offloaded values of p (microseconds). */
double drv_offload_exposed(const solve_ctx *c, const ilp_partition *p);

#endif /* ILPART_SOLVER_DRIVER_OFFLOAD_H */
