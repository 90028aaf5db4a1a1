/*
 * objectives.c - the table of objectives: one row each (objectives.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "solver/options.h"
#include "solver/driver/obj_memory.h"
#include "solver/driver/obj_peak.h"
#include "solver/driver/obj_runtime.h"
#include "solver/driver/obj_weighted.h"
#include "solver/driver/objectives.h"

/* The runtime objective's stages: with a peak budget, the loop that cuts off answers
 * simulated over it (obj_peak.c). */
static int
runtime_run(solve_ctx *c, ilp_error *err)
{
	return c->o->peak_budget >= 0 ? drv_obj_runtime_peak(c, err) : drv_obj_runtime(c, err);
}

static const drv_objective objectives[] = {
	{ ILP_OBJ_MEMORY, "memory", 0, drv_obj_memory, drv_obj_memory_value },
	{ ILP_OBJ_RUNTIME, "runtime", DRV_OBJ_TIME_UNITS, runtime_run, drv_obj_runtime_value },
	{ ILP_OBJ_WEIGHTED, "weighted", 0, drv_obj_weighted, drv_obj_weighted_value },
	{ ILP_OBJ_PEAK, "peak", DRV_OBJ_PEAK, drv_obj_peak, drv_obj_peak_value },
};

#define N_OBJECTIVES (sizeof objectives / sizeof objectives[0])

const drv_objective *
drv_objective_of(ilp_objective id)
{
	for (size_t i = 0; i < N_OBJECTIVES; i++)
		if (objectives[i].id == id)
			return &objectives[i];
	return NULL;
}

int
drv_options_check(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (drv_objective_of(o->objective) == NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'objective': unknown objective %d",
		    g->path, (int)o->objective);
		return -1;
	}
	return ilpi_solve_options_check(g, o, err);
}

int
drv_needs_peak(const ilp_solve_options *o)
{
	const drv_objective *obj = drv_objective_of(o->objective);

	return (obj != NULL && (obj->flags & DRV_OBJ_PEAK)) || o->peak_budget >= 0;
}

int
ilpi_objective_parse(const char *name, ilp_objective *out)
{
	for (size_t i = 0; i < N_OBJECTIVES; i++)
		if (strcmp(name, objectives[i].name) == 0) {
			*out = objectives[i].id;
			return 0;
		}
	return -1;
}

void
ilpi_objective_list(char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_OBJECTIVES && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i == 0 ? "" :
		    i + 1 == N_OBJECTIVES ? " or " : ", ", objectives[i].name);
}
