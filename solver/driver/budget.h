/* budget.h - solver/driver/budget.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_BUDGET_H
#define ILPART_SOLVER_DRIVER_BUDGET_H

#include "solver/driver/ctx.h"

int drv_fraction_bytes(solve_ctx *c, ilp_error *err);

/* The bytes ilp_solve's first pass turns budget fraction frac into under o (torch's
 * normalisation, capped by PyTorch's partition at frac: docs/solver.md "Memory
 * budgets"). *pt_bytes, *pt_us: that partition's bytes and time when it obeys the
 * rules (ilp_solve solves again within *pt_bytes when it saves more than *bytes and
 * the optimum within *bytes is slower), else *pt_bytes = -1. */
int ilpi_budget_fraction_bytes(const ilp_graph *g, const ilp_solve_options *o,
    double frac, int64_t *bytes, int64_t *pt_bytes, double *pt_us, ilp_error *err);

#endif /* ILPART_SOLVER_DRIVER_BUDGET_H */
