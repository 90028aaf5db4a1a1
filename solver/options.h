/*
 * options.h - checks of ilp_solve_options (internal; ilp_solve_options_init, the
 * defaults, is public in include/ilpart.h and defined in options.c).
 */
#ifndef ILPART_SOLVER_OPTIONS_H
#define ILPART_SOLVER_OPTIONS_H

#include "graph/graph.h"

/* 0 when o is a valid set of options for a solve of g, else -1 with ILP_ERR_INPUT
 * naming the option. The objective itself is checked by the driver's table
 * (drv_options_check, solver/driver/objectives.c), then this. */
int ilpi_solve_options_check(const ilp_graph *g, const ilp_solve_options *o,
    ilp_error *err);

#endif /* ILPART_SOLVER_OPTIONS_H */
