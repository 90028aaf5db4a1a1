/*
 * objectives.h - the objectives as rows of one table (solver/driver/objectives.c): a
 * row is an objective's name, what it needs, how it runs and how its value is
 * reported. Adding an objective: its enum value in include/ilpart.h, its stages and
 * value in a new obj_NAME.c/.h, and its row (docs/architecture.md). Internal to
 * solver/driver/ and cli/.
 */
#ifndef ILPART_SOLVER_DRIVER_OBJECTIVES_H
#define ILPART_SOLVER_DRIVER_OBJECTIVES_H

#include <stddef.h>

#include "solver/driver/ctx.h"

enum {
	DRV_OBJ_PEAK = 1,        /* the peak rows, seeds and reduction; a budget's rules */
	DRV_OBJ_TIME_UNITS = 2   /* soft overrides are reported in recompute time */
};

typedef struct drv_objective {
	ilp_objective id;
	const char *name;        /* on the command line and in partition files */
	unsigned flags;          /* DRV_OBJ_* */
	/* its stages on the built model (inside GLPK's guarded run): the answer in
	 * c->s, c->r and the outcome in c->status, c->gap; 0 or -1 with err set */
	int (*run)(solve_ctx *c, ilp_error *err);
	/* the answer's objective value, p evaluated (may mark p unproven) */
	double (*value)(const solve_ctx *c, ilp_partition *p);
} drv_objective;

/* The row of objective id, or NULL when there is none. */
const drv_objective *drv_objective_of(ilp_objective id);
/* ilpi_solve_options_check (solver/options.c) after the objective's own check. */
int drv_options_check(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err);
/* Whether a solve under o involves the simulated peak (the objective's or a peak
 * budget): the peak rows and reduction, the seeds, and a budget's rules. */
int drv_needs_peak(const ilp_solve_options *o);

/* The objective called `name`: 0, else -1. */
int ilpi_objective_parse(const char *name, ilp_objective *out);
/* Every objective's name, "a, b, c or d", into buf (for usage messages). */
void ilpi_objective_list(char *buf, size_t size);

#endif /* ILPART_SOLVER_DRIVER_OBJECTIVES_H */
