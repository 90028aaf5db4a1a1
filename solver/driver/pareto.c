/*
 * pareto.c - ilp_pareto: optimal partitions at many memory budgets. When the model
 * decomposes along repeated blocks (solver/blocks/blocks.c), one combination without bounds
 * yields its whole front of (saved bytes, recompute cost) and every budget's optimum
 * is read off it, lowered and checked; otherwise each budget is one ilp_solve.
 */
#include "config.h"

#include <stdlib.h>

#include "solver/driver/budget.h"
#include "solver/driver/decomp.h"

struct ilp_pareto {
	const ilp_graph *g;
	ilp_solve_options o;      /* runtime objective, no budget */
	ilpi_front *front;        /* NULL: one solve per budget */
};

void
ilp_pareto_free(ilp_pareto *p)
{
	if (p == NULL)
		return;
	ilpi_front_free(p->front);
	free(p);
}

int
ilp_pareto_new(const ilp_graph *g, const ilp_solve_options *o, ilp_pareto **out,
    ilp_error *err)
{
	ilp_pareto *p;

	ilpi_err_clear(err);
	*out = NULL;
	if ((p = calloc(1, sizeof *p)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	p->g = g;
	if (o != NULL)
		p->o = *o;
	else
		ilp_solve_options_init(&p->o);
	p->o.objective = ILP_OBJ_RUNTIME;
	p->o.budget_bytes = -1;
	p->o.budget_fraction = -1;
	p->o.peak_budget = -1;
	if (ilpi_front_new(g, &p->o, &p->front, err) != 0) {
		ilp_pareto_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

int
ilp_pareto_from_front(const ilp_pareto *p)
{
	return p->front != NULL;
}

/* Saved bytes of ilp_solve's answer under o with objective obj and no budget, under
 * the rules a budget brings (PyTorch's bans lifted, RNG replay: docs/solver.md). */
static int
end_bytes(const ilp_pareto *p, ilp_objective obj, int64_t *bytes, ilp_error *err)
{
	ilp_solve_options so = p->o;
	ilp_partition *part;

	so.objective = obj;
	so.bans = ILP_BANS_NONE;
	if (so.rng_replay == ILP_RNG_REPLAY_AUTO)
		so.rng_replay = ILP_RNG_REPLAY_ALWAYS;
	if (ilp_solve(p->g, &so, &part, err) != 0)
		return -1;
	/* the device's saved bytes (--offload free: offloaded storages are off it) */
	*bytes = ilp_partition_saved_bytes(part) - ilpi_partition_offloaded_bytes(p->g, part);
	ilp_partition_free(part);
	return 0;
}

int
ilp_pareto_range(ilp_pareto *p, int64_t *lo, int64_t *hi, ilp_error *err)
{
	ilpi_err_clear(err);
	if (p->front != NULL) {
		*lo = ilpi_front_least_bytes(p->front);
		*hi = ilpi_front_runtime_bytes(p->front);
		return 0;
	}
	if (end_bytes(p, ILP_OBJ_MEMORY, lo, err) != 0 ||
	    end_bytes(p, ILP_OBJ_RUNTIME, hi, err) != 0)
		return -1;
	return 0;
}

int
ilp_pareto_fraction_bytes(ilp_pareto *p, double frac, int64_t *bytes, ilp_error *err)
{
	ilp_partition *part = NULL;
	int64_t pt_bytes;
	double pt_us;
	int rc;

	ilpi_err_clear(err);
	if (!(frac >= 0 && frac <= 1)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': fraction %g is not "
		    "in [0, 1]", p->g->path, frac);
		return -1;
	}
	if (ilpi_budget_fraction_bytes(p->g, &p->o, frac, bytes, &pt_bytes, &pt_us, err) != 0)
		return -1;
	if (pt_bytes <= *bytes)
		return 0;
	/* as ilp_solve: within PyTorch's own bytes when the optimum within B(F) is slower
	 * than PyTorch's partition, or none fits */
	rc = ilp_pareto_solve(p, *bytes, &part, err);
	if (rc != 0 && err->kind != ILP_ERR_CONFLICT)
		return -1;
	if (rc != 0 || ilp_partition_recompute_time_us(part) > pt_us * (1 + 1e-9))
		*bytes = pt_bytes;
	ilp_partition_free(part);
	ilpi_err_clear(err);
	return 0;
}

int
ilp_pareto_solve(ilp_pareto *p, int64_t budget, ilp_partition **out, ilp_error *err)
{
	ilp_solve_options so = p->o;
	int rc;

	ilpi_err_clear(err);
	*out = NULL;
	if (budget < 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': %lld bytes is "
		    "negative", p->g->path, (long long)budget);
		return -1;
	}
	if (p->front != NULL && (rc = ilpi_front_solve(p->front, budget, out, err)) != 1)
		return rc;
	/* no front, or a budget below every partition: ilp_solve (and its conflict) */
	so.budget_bytes = budget;
	return ilp_solve(p->g, &so, out, err);
}
