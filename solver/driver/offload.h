/*
 * offload.h - `--offload free` (docs/solver.md "Offload"): which items the model may
 * offload and what an offload costs in transfer time the compute does not hide.
 */
#ifndef ILPART_SOLVER_DRIVER_OFFLOAD_H
#define ILPART_SOLVER_DRIVER_OFFLOAD_H

#include "solver/driver/ctx.h"

/* The host link of a solve in bytes/s: the option's, else the device profile's. */
double drv_offload_bw(const ilp_solve_options *o);
/* Adds the offload columns to c->m (after ilpi_model_build) and keeps the solve off the
 * block decomposition, whose fronts know no offload. -1 when out of memory. */
int drv_offload_setup(solve_ctx *c, ilp_error *err);
/* The model's exposed transfer time of the offloaded values of p (microseconds). */
double drv_offload_exposed(const solve_ctx *c, const ilp_partition *p);

/* --objective peak --offload free: p is the least-peak partition without offload; every
 * value of it torch could move is offloaded (the simulator only takes bytes off the device,
 * so that is the least simulated peak of p's save/recompute choice), then, largest
 * transfer first, each whose copy back does not raise the simulated peak is kept on the
 * device. Not proven optimal over save, recompute and offload together: says so in
 * p's note and status. -1 when out of memory. */
int drv_offload_peak(const ilp_graph *g, const ilp_solve_options *o, ilp_partition *p,
    ilp_error *err);

#endif /* ILPART_SOLVER_DRIVER_OFFLOAD_H */
