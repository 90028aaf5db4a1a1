/*
 * reach.h - ilp_solve's front door (solver/driver/reach.c): budgets out of reach answered with
 * the least partition that obeys the rules, and the dual (recompute-time) budget
 * (solver/driver/time_budget.c), around the solve proper (solver/driver/solve.c).
 */
#ifndef ILPART_SOLVER_REACH_H
#define ILPART_SOLVER_REACH_H

#include "ilpart.h"

/* The solve proper (solver/driver/solve.c): ilp_solve without what reach.c adds. */
int ilpi_solve_core(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err);

/* ilp_solve without the dominance step at a fraction (solver/driver/dominate.c): the
 * peak search's seeds, which a dominance step would otherwise start again (it runs a
 * peak-budget solve, whose seeds are these). */
int ilpi_solve_plain(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err);

/* ilp_solve with o->time_budget_us or o->time_budget_fraction set (solver/driver/time_budget.c):
 * least saved bytes with recompute time <= the budget, then least recompute time. */
int ilpi_solve_time_budget(const ilp_graph *g, const ilp_solve_options *o,
    ilp_partition **out, ilp_error *err);

/* Whether a budget out of reach is answered with the least partition (1) or is a
 * conflict (0), for o's budget: ILP_UNREACHABLE_AUTO answers budgets PyTorch derives
 * (a fraction, PyTorch's recompute time) and refuses bytes and seconds. */
int ilpi_reach_least(const ilp_solve_options *o);

#endif /* ILPART_SOLVER_REACH_H */
