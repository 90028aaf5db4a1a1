/* dominate.h - solver/driver/dominate.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_DOMINATE_H
#define ILPART_SOLVER_DRIVER_DOMINATE_H

#include "solver/driver/ctx.h"

/* The answer *out of a solve at budget fraction o->budget_fraction within `budget`
 * bytes, and PyTorch's partition pt there (it obeys the solve's rules; not taken):
 * when *out is worse than pt on saved bytes, recompute time or simulated peak,
 * *out is replaced by the least recompute time within `budget` bytes (else within
 * pt's) and pt's simulated peak (producer.peak_cap_bytes). t0: when the solve started
 * (o->time_limit counts from it). 0, *out kept when nothing no worse is found; -1 on
 * a system error (*out untouched). */
int drv_dominate(const ilp_graph *g, const ilp_solve_options *o, const ilpi_solve_hooks *h,
    const ilp_partition *pt, int64_t budget, double t0, ilp_partition **out,
    ilp_error *err);

#endif /* ILPART_SOLVER_DRIVER_DOMINATE_H */
