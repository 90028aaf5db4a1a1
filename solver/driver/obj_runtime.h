/* obj_runtime.h - solver/driver/obj_runtime.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_OBJ_RUNTIME_H
#define ILPART_SOLVER_DRIVER_OBJ_RUNTIME_H

#include "solver/driver/ctx.h"

int drv_budget_conflict(solve_ctx *c, const uint8_t *s0, int proven, ilp_error *err);
int drv_obj_runtime(solve_ctx *c, ilp_error *err);
double drv_obj_runtime_value(const solve_ctx *c, ilp_partition *p);

#endif /* ILPART_SOLVER_DRIVER_OBJ_RUNTIME_H */
