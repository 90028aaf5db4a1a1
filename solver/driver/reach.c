/*
 * reach.c - ilp_solve: a memory budget out of reach (below the least saved bytes of any
 * partition that obeys the tags and the rules a budget brings) is answered, where the
 * options say so, with that least partition (least recompute among those), and the
 * partition says so in its note (docs/solver.md "Budgets out of reach"). PyTorch's
 * activation_memory_budget is a target its budget path meets as best it can: a user's
 * training run must not stop because a fraction is out of reach for a SAC model. The
 * same function serves `ilpart solve`, `batch`, `compare`, the partition store and the
 * bridge: one mechanism.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/partition.h"
#include "solver/driver/ctx.h"
#include "solver/driver/reach.h"
#include "solver/driver/solve.h"

int
ilpi_reach_least(const ilp_solve_options *o)
{
	if (o->unreachable == ILP_UNREACHABLE_LEAST)
		return 1;
	if (o->unreachable == ILP_UNREACHABLE_FAIL)
		return 0;
	if (o->time_budget_us >= 0 || o->time_budget_fraction >= 0)
		return o->time_budget_us < 0;
	return o->budget_bytes < 0 && o->budget_fraction >= 0;
}

static void
describe_budget(const ilp_solve_options *o, int64_t bytes, char *buf, size_t size)
{
	if (o->budget_fraction >= 0 && o->budget_bytes < 0)
		snprintf(buf, size, "%g (%lld bytes)", o->budget_fraction, (long long)bytes);
	else
		snprintf(buf, size, "%lld bytes", (long long)bytes);
}

static int
solve_reach(const ilp_graph *g, const ilp_solve_options *o, int dominate,
    ilp_partition **out, ilp_error *err)
{
	ilp_solve_options def, lo;
	ilp_error first;
	int64_t least, asked;
	int proven = 1, rc;
	char what[96];
	ilpi_budget_report rep = { -1, -1, 0 };
	ilpi_solve_hooks hooks = { .peak_default_limit = ILPI_PEAK_DEFAULT_LIMIT,
	    .report = &rep, .dominate = dominate };

	*out = NULL;
	if (o == NULL) {
		ilp_solve_options_init(&def);
		o = &def;
	}
	if (o->time_budget_us >= 0 || o->time_budget_fraction >= 0)
		return ilpi_solve_time_budget(g, o, out, err);
	rc = ilpi_solve_hooked(g, o, &hooks, out, err);
	if (rc == 0 || !ilpi_reach_least(o) || err->kind != ILP_ERR_CONFLICT ||
	    rep.budget < 0)
		return rc;
	first = *err;
	least = rep.least;
	asked = rep.budget;
	proven = rep.proven;
	/* The same request at the least bytes: the rules a budget brings, least recompute
	 * among the least-bytes partitions. */
	lo = *o;
	lo.budget_bytes = least;
	lo.budget_fraction = -1;
	ilpi_err_clear(err);
	if (ilpi_solve_core(g, &lo, out, err) != 0) {
		if (err->kind == ILP_ERR_CONFLICT)
			*err = first;
		return -1;
	}
	ilpi_partition_record(*out, g, o);
	describe_budget(o, asked, what, sizeof what);
	snprintf((*out)->note, sizeof (*out)->note, "memory budget %s is out of reach: the "
	    "least saved bytes of a partition that obeys the tags is %lld%s; answered with "
	    "that least (then least recompute)", what, (long long)least, proven ? "" :
	    " (the least found within the time limit)");
	return 0;
}

int
ilp_solve(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err)
{
	return solve_reach(g, o, 1, out, err);
}

int
ilpi_solve_plain(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err)
{
	return solve_reach(g, o, 0, out, err);
}
