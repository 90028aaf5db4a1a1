/* obj_memory.h - solver/driver/obj_memory.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_OBJ_MEMORY_H
#define ILPART_SOLVER_DRIVER_OBJ_MEMORY_H

#include "solver/driver/ctx.h"

int drv_obj_memory(solve_ctx *c, ilp_error *err);
double drv_obj_memory_value(const solve_ctx *c, ilp_partition *p);

#endif /* ILPART_SOLVER_DRIVER_OBJ_MEMORY_H */
