/* obj_weighted.h - solver/driver/obj_weighted.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_OBJ_WEIGHTED_H
#define ILPART_SOLVER_DRIVER_OBJ_WEIGHTED_H

#include "solver/driver/ctx.h"

int drv_obj_weighted(solve_ctx *c, ilp_error *err);
double drv_obj_weighted_value(const solve_ctx *c, ilp_partition *p);

#endif /* ILPART_SOLVER_DRIVER_OBJ_WEIGHTED_H */
