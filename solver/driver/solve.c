/*
 * solve.c - ilp_solve: rules, costs and reduction, then the objective's stages on
 * one GLPK model, then the partition: canonicalised, evaluated and checked.
 * docs/solver.md describes the model and the stages; docs/architecture.md the files.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "graph/clock.h"
#include "graph/cost.h"
#include "solver/model/glpk_env.h"
#include "solver/driver/answer.h"
#include "solver/driver/budget.h"
#include "solver/driver/decomp.h"
#include "solver/driver/dominate.h"
#include "solver/driver/obj_peak.h"
#include "solver/driver/objectives.h"
#include "solver/driver/offload.h"
#include "solver/driver/peak_seeds.h"
#include "solver/driver/stage.h"
#include "solver/driver/solve.h"
#include "solver/driver/reach.h"

static int
run_model(void *ctx, ilp_error *err)
{
	solve_ctx *c = ctx;

	if (ilpi_model_build(c->g, &c->red, &c->m, err) != 0)
		return -1;
	if (c->o->offload == ILP_OFFLOAD_FREE && drv_offload_setup(c, err) != 0)
		return -1;
	if (drv_needs_peak(c->o) && ilpi_peak_rows_add(c->g, &c->m, &c->peak,
	    c->hooks != NULL && c->hooks->peak_running_sums ? 0 : ILPI_PEAK_DENSE_NZ, err) != 0)
		return -1;
	drv_note(c, "model: %d columns, %d rows, byte unit %g", glp_get_num_cols(c->m.lp),
	    glp_get_num_rows(c->m.lp), c->m.byte_unit);
	if (c->peak.col != 0)
		drv_note(c, "peak rows: %d at %d steps%s", c->peak.n_rows, c->peak.n_steps,
		    c->peak.n_sums ? " (through running sums: the dense rows would be too "
		    "large)" : "");
	if (c->o->prefer == ILP_PREFER_SOFT)
		drv_penalties(c);
	if (c->audit != NULL)
		return drv_peak_audit(c, err);
	return drv_objective_of(c->o->objective)->run(c, err);
}

int
drv_build_rules(solve_ctx *c, ilp_error *err)
{
	ilpi_rule_options ro;

	if (c->have_rules)
		return 0;
	ilpi_rule_options_init(&ro);
	ro.prefer = c->o->prefer;
	ro.bans = c->o->bans;
	/* PyTorch's budget path may lift any of its bans and replays the RNG state of the
	 * random ops it then recomputes (docs/solver.md, "Memory budgets"). */
	ro.budget = c->o->budget_bytes >= 0 || c->o->budget_fraction >= 0;
	/* The peak objective and a peak budget are memory budgets too: the same rules,
	 * so PyTorch's budget partitions are among the answers they choose from. */
	ro.budget = ro.budget || drv_needs_peak(c->o);
	ro.rng_replay = c->o->rng_replay == ILP_RNG_REPLAY_ALWAYS ||
	    (c->o->rng_replay == ILP_RNG_REPLAY_AUTO && ro.budget);
	if (ilpi_rules_build(c->g, &ro, &c->rules, err) != 0)
		return -1;
	c->have_rules = 1;
	return 0;
}

/* Recompute costs below this many microseconds count as free in the model. */
#define COST_FLOOR_US 1e-9

int
drv_prepare(solve_ctx *c, ilp_error *err)
{
	const ilp_graph *g = c->g;
	size_t n;

	if (drv_build_rules(c, err) != 0)
		return -1;
	if ((c->cost = calloc(g->n + 1, sizeof *c->cost)) == NULL)
		goto nomem;
	/* A cost below the lexicographic stages' tolerance (drv_level(): 1e-9 us) cannot
	 * change an answer, and next to large costs in one row it breaks GLPK's scaling:
	 * a node of 1e-10 flops got a boundary value neither saved nor recomputed. */
	for (size_t v = 0; v < g->n; v++)
		if (ilpi_node_costs_recompute(g, v)) {
			c->cost[v] = ilpi_node_cost_us(g, v, &c->o->device);
			if (c->cost[v] < COST_FLOOR_US)
				c->cost[v] = 0;
		}
	if (ilpi_reduce(g, &c->rules, c->cost, (c->o->prefer == ILP_PREFER_SOFT ?
	    ILPI_REDUCE_SOFT : 0) | (drv_needs_peak(c->o) ?
	    ILPI_REDUCE_PEAK : 0), &c->red, err) != 0)
		return -1;
	drv_note(c, "reduce: %zu nodes, %zu candidates, %zu boundary, %zu items (%zu contracted, "
	    "%zu views fixed, %zu dropped), %zu storages", g->n, c->red.n_candidates,
	    c->red.n_boundary, c->red.n_items, c->red.n_contracted, c->red.n_view_fixed,
	    c->red.n_dropped, c->red.n_stor);
	n = c->red.n_items + 1;
	c->s = calloc(n, 1), c->r = calloc(n, 1), c->ws = calloc(n, 1), c->wr = calloc(n, 1);
	c->ts = calloc(n > g->n ? n : g->n + 1, 1), c->tr = calloc(n, 1);
	c->node_s = calloc(g->n + 1, 1), c->node_r = calloc(g->n + 1, 1);
	for (int k = 0; k < 4; k++)
		if ((c->pen[k] = calloc(n, sizeof *c->pen[k])) == NULL)
			goto nomem;
	for (int k = 0; k < 2; k++)
		if ((c->pen_b[k] = calloc(n, sizeof *c->pen_b[k])) == NULL)
			goto nomem;
	if (c->o->prefer == ILP_PREFER_SOFT)
		drv_penalties_raw(c);
	if (c->s == NULL || c->r == NULL || c->ws == NULL || c->wr == NULL || c->ts == NULL ||
	    c->tr == NULL || c->node_s == NULL || c->node_r == NULL)
		goto nomem;
	drv_save_all(&c->red, c->ws, c->wr, c->ts);
	return 0;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	return -1;
}

void
drv_release(solve_ctx *c, int glpk_freed)
{
	ilpi_model_free(&c->m, glpk_freed);
	ilpi_blocks_free(c->blocks);
	ilpi_reduced_free(&c->red);
	if (c->have_rules)
		ilpi_rules_free(&c->rules);
	free(c->cost);
	free(c->s);
	free(c->r);
	free(c->ws);
	free(c->wr);
	free(c->ts);
	free(c->tr);
	free(c->ds);
	free(c->dr);
	free(c->node_s);
	free(c->node_r);
	for (int k = 0; k < 4; k++)
		free(c->pen[k]);
	for (int k = 0; k < 2; k++)
		free(c->pen_b[k]);
	for (size_t k = 0; k < c->n_seed; k++)
		ilp_partition_free(c->seed[k]);
	free(c->seed);
	ilpi_peak_cuts_free(c->cuts);
	ilpi_peak_rows_free(&c->peak);
	free(c->hist);
	free(c->hist_sim);
	free(c->starts_buf);
	free(c->fb_buf);
	free(c->general_at);
	free(c->peak_w);
	free(c->keep_obj);
	ilp_partition_free(c->pt);
	ilp_partition_free(c->soft_seed);
}

/* GLPK's own internal errors (solver/model/glpk_env.c) know neither the file nor the stage:
 * name them as every other error line does. */
static void
glpk_failure(const solve_ctx *c, ilp_error *err)
{
	char msg[sizeof err->msg];

	if (err == NULL || err->kind != ILP_ERR_SOLVER || strncmp(err->msg, "GLPK", 4) != 0)
		return;
	snprintf(msg, sizeof msg, "%s", err->msg);
	if (c->stage_now != NULL)
		ilpi_err(err, ILP_ERR_SOLVER, "%s: stage '%s': %s", c->g->path, c->stage_now, msg);
	else
		ilpi_err(err, ILP_ERR_SOLVER, "%s: %s", c->g->path, msg);
}

/* A fresh context for one solve of g under o, byte budget `budget` (-1: none). */
static void
ctx_init(solve_ctx *c, const ilp_graph *g, const ilp_solve_options *o, int64_t budget)
{
	memset(c, 0, sizeof *c);
	c->g = g;
	c->o = o;
	c->t0 = ilpi_now();
	c->status = "optimal";
	c->budget = budget;
	c->least_bytes = -1;
	c->peak_bound = -1;
	c->peak_sim = -1;
	c->peak_best = -1;
	c->pt_bytes = -1;
}

/* run_model inside GLPK's guarded environment, its messages to o's log. */
static int
run_glpk(solve_ctx *c, int *freed, ilp_error *err)
{
	ilpi_glpk_log lg;

	lg.log = c->o->log;
	lg.log_ctx = c->o->log_ctx;
	lg.verbose = c->o->verbose;
	c->stage_now = "model"; /* until the first stage: building the model */
	return ilpi_glpk_run(run_model, c, &lg, freed, err);
}

/*
 * --prefer soft, a budgeted runtime solve with a time limit that the monolithic model
 * will solve (--monolithic, or the decomposition does not apply): the least-memory
 * partition, its only start within the budget, may not be found in time, and the
 * solve would end without a partition. A partition within the same bytes under
 * --prefer hard (it obeys every preference: no penalty), else, when that is a
 * conflict, under PyTorch's reading (--prefer pytorch), is a start: solved first, the
 * decomposition allowed, each in a third of the time left. Any failure leaves no seed
 * (the solve goes on as before).
 */
static void
soft_seed(solve_ctx *c)
{
	ilp_solve_options so = *c->o;
	ilp_error e = { 0 };

	so.budget_bytes = c->budget;
	so.budget_fraction = -1;
	so.monolithic = 0;
	so.verbose = 0;
	so.log = NULL;
	so.write_lp = so.write_mps = NULL;
	/* PyTorch's reading only when the hard one is a conflict (not out of time) */
	for (int k = 0; k < 2 && c->soft_seed == NULL && (k == 0 ||
	    e.kind == ILP_ERR_CONFLICT); k++) {
		double left = c->o->time_limit - (ilpi_now() - c->t0);

		so.time_limit = left / 3 > 1e-3 ? left / 3 : 1e-3;
		so.prefer = k == 0 ? ILP_PREFER_HARD : ILP_PREFER_PYTORCH;
		ilpi_err_clear(&e);
		if (ilp_solve(c->g, &so, &c->soft_seed, &e) != 0)
			c->soft_seed = NULL;
	}
	drv_note(c, "soft: %s", c->soft_seed == NULL ? "no hard or pytorch-mode partition within "
	    "the budget to start from" : "a start from a hard or pytorch-mode partition "
	    "within the budget");
}

/* One solve. forced >= 0: the byte budget of a fraction, already decided (no second
 * fraction_bytes). *pt gets PyTorch's partition's bytes and time at the fraction when
 * it bounds the budget (fraction_bytes), *budget the budget used. */
static int
solve_pass(const ilp_graph *g, const ilp_solve_options *o, ilpi_solve_hooks *h,
    int64_t forced, ilp_partition **out, int64_t *pt_bytes, double *pt_us, int64_t *budget,
    ilp_partition **pt, ilp_error *err)
{
	solve_ctx c;
	int freed = 0, rc = -1;

	ctx_init(&c, g, o, o->budget_bytes);
	c.hooks = h;
	if (forced >= 0) {
		c.budget = forced;
		c.pt = *pt; /* the first pass's, borrowed: a start within `forced` */
	} else if (o->budget_fraction >= 0 &&
	    (drv_build_rules(&c, err) != 0 || drv_fraction_bytes(&c, err) != 0))
		goto out;
	*pt_bytes = c.pt_bytes;
	*pt_us = c.pt_us;
	*budget = c.budget;
	if (drv_prepare(&c, err) != 0)
		goto out;
	if (drv_needs_peak(o) && drv_peak_seeds(&c, err) != 0)
		goto out;
	if (o->prefer == ILP_PREFER_SOFT && o->objective == ILP_OBJ_RUNTIME && c.budget >= 0 &&
	    o->peak_budget < 0 && o->time_limit > 0) {
		/* the decomposition planned now (no GLPK), so the seed is made only for
		 * the monolithic model */
		int b = drv_blocks_ready(&c, err);

		if (b < 0)
			goto out;
		if (b == 1)
			soft_seed(&c);
	}
	if (run_glpk(&c, &freed, err) != 0) {
		glpk_failure(&c, err);
		goto out;
	}
	rc = drv_make_partition(&c, out, err);
out:
	if (forced < 0)
		*pt = c.pt;
	c.pt = NULL;
	drv_release(&c, freed);
	return rc;
}

int
ilpi_peak_audit(const ilp_graph *g, const ilp_solve_options *o, ilp_partition *const *parts,
    size_t n, double *excess, int *points, int *vacuous, ilp_error *err)
{
	solve_ctx c;
	int freed = 0, rc = -1;

	ctx_init(&c, g, o, -1);
	c.audit = parts;
	c.n_audit = n;
	if (o->objective != ILP_OBJ_PEAK) {
		ilpi_err(err, ILP_ERR_INPUT, "peak audit: the peak objective only");
		return -1;
	}
	if (drv_options_check(g, o, err) != 0 || drv_prepare(&c, err) != 0)
		goto out;
	if (run_glpk(&c, &freed, err) != 0) {
		glpk_failure(&c, err);
		goto out;
	}
	*excess = c.audit_excess;
	*points = c.audit_points;
	*vacuous = c.audit_vacuous;
	rc = 0;
out:
	drv_release(&c, freed);
	return rc;
}

int
ilpi_solve_core(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err)
{
	return ilpi_solve_hooked(g, o, NULL, out, err);
}

int
ilpi_solve_hooked(const ilp_graph *g, const ilp_solve_options *o, ilpi_solve_hooks *h,
    ilp_partition **out, ilp_error *err)
{
	ilp_solve_options def, o2;
	ilp_partition *pt = NULL;
	int64_t pt_bytes = -1, budget = -1, b2;
	double pt_us = 0, t0 = ilpi_now(), u2;
	int rc;

	*out = NULL;
	if (o == NULL) {
		ilp_solve_options_init(&def);
		o = &def;
	}
	ilpi_err_clear(err);
	if (drv_options_check(g, o, err) != 0)
		return -1;
	rc = solve_pass(g, o, h, -1, out, &pt_bytes, &pt_us, &budget, &pt, err);
	/* PyTorch's partition at the fraction obeys the rules but saves more than B(F):
	 * when the optimum within B(F) is slower than it (or none fits), the fastest
	 * partition within PyTorch's own bytes dominates it instead. */
	if (pt_bytes <= budget || (rc == 0 && (*out)->recompute_time_us <= pt_us * (1 + 1e-9)) ||
	    (rc != 0 && err->kind != ILP_ERR_CONFLICT))
		goto dominate;
	/* Out of time, the second pass still runs: it starts from PyTorch's partition, so
	 * its answer is never slower than that. */
	o2 = *o;
	if (o->time_limit > 0 && (o2.time_limit = o->time_limit - (ilpi_now() - t0)) < 1e-3)
		o2.time_limit = 1e-3;
	if (o->verbose && o->log != NULL) {
		char line[256];

		snprintf(line, sizeof line, "budget: %s within %lld bytes; PyTorch's partition "
		    "at %g saves %lld bytes in %.6g us: solving within its bytes", rc == 0 ?
		    "the optimum is slower" : "no partition fits", (long long)budget,
		    o->budget_fraction, (long long)pt_bytes, pt_us);
		o->log(o->log_ctx, line);
	}
	ilp_partition_free(*out);
	*out = NULL;
	ilpi_err_clear(err);
	if ((rc = solve_pass(g, &o2, h, pt_bytes, out, &b2, &u2, &budget, &pt, err)) == 0)
		ilpi_partition_record(*out, g, o);
dominate:
	/* no worse than PyTorch's partition on its peak either (dominate.c) */
	if (rc == 0 && pt != NULL && h != NULL && h->dominate)
		rc = drv_dominate(g, o, h, pt, budget, t0, out, err);
	ilp_partition_free(pt);
	return rc;
}
