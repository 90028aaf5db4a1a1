/* decomp.h - solver/driver/decomp.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_DECOMP_H
#define ILPART_SOLVER_DRIVER_DECOMP_H

#include "solver/driver/ctx.h"

int drv_blocks_ready(solve_ctx *c, ilp_error *err);
int drv_lex_blocks(solve_ctx *c, int memory, ilp_error *err);
int drv_runtime_blocks(solve_ctx *c, ilp_error *err);

/*
 * The decomposition a solve with options o would use, described as above (ilp_solve:
 * the same rules, costs and reduction). *text is caller-owned; "blocks: none ..." when
 * the model has no narrow cuts.
 */
int ilpi_blocks_report(const ilp_graph *g, const ilp_solve_options *o, char **text,
    ilp_error *err);

/*
 * The whole front of the budgeted runtime model of g under o (as ilp_solve sees it:
 * the rules a budget brings, the same costs and reduction as ilp_solve), combined once
 * without bounds, for reading every budget's optimum off it. *out is NULL, with no
 * error, when the decomposition does not apply or the combination is over its work or
 * time limit (o->time_limit): the caller then solves each budget on its own. The
 * caller owns *out (ilpi_front_free); g must outlive it.
 */
typedef struct ilpi_front ilpi_front;

int ilpi_front_new(const ilp_graph *g, const ilp_solve_options *o, ilpi_front **out,
    ilp_error *err);

/* Least saved bytes of any partition; saved bytes of the runtime optimum (least
 * cost, then least bytes within 1e-9 of it, as ilp_solve without a budget). */
int64_t ilpi_front_least_bytes(const ilpi_front *f);
int64_t ilpi_front_runtime_bytes(const ilpi_front *f);

/*
 * The partition ilp_solve gives with the runtime objective and budget_bytes = budget:
 * the front's point it picks, lowered to node decisions, evaluated and checked. Returns
 * 1 (no partition, no error) when the budget is below the least bytes; the caller owns
 * *out.
 */
int ilpi_front_solve(ilpi_front *f, int64_t budget, ilp_partition **out, ilp_error *err);

void ilpi_front_free(ilpi_front *f);

#endif /* ILPART_SOLVER_DRIVER_DECOMP_H */
