/* obj_peak.h - solver/driver/obj_peak.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_OBJ_PEAK_H
#define ILPART_SOLVER_DRIVER_OBJ_PEAK_H

#include "solver/driver/ctx.h"

int drv_obj_peak(solve_ctx *c, ilp_error *err);
int drv_obj_runtime_peak(solve_ctx *c, ilp_error *err);
int drv_peak_audit(solve_ctx *c, ilp_error *err);
double drv_obj_peak_value(const solve_ctx *c, ilp_partition *p);

#endif /* ILPART_SOLVER_DRIVER_OBJ_PEAK_H */
