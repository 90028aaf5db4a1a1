/*
 * obj_runtime.c - the runtime objective: least recompute cost, within a byte budget
 * when given (then the least bytes among the partitions as fast), and its budget
 * conflict diagnosis.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "solver/driver/answer.h"
#include "solver/driver/decomp.h"
#include "solver/driver/offload.h"
#include "solver/driver/stage.h"
#include "solver/driver/obj_runtime.h"

/* The budget is below what any partition needs: say how far, and which values that
 * cannot be recomputed force the least saved bytes (largest first). */
int
drv_budget_conflict(solve_ctx *c, const uint8_t *s0, int proven, ilp_error *err)
{
	const ilp_graph *g = c->g;
	char list[600], why[128];
	size_t len = 0, shown = 0;
	int32_t last = ILPI_NONE;
	int64_t last_b = INT64_MAX;

	list[0] = '\0';
	/* Up to 6 forced saves by decreasing bytes, ties in graph order: repeated scans
	 * for the next (bytes, index) below the previous one. */
	while (shown < 6) {
		int32_t best = ILPI_NONE;
		int64_t best_b = -1;

		for (size_t it = 0; it < c->red.n_items; it++) {
			int32_t v = c->red.item[it].rep;
			int64_t b = ilpi_charged_bytes(g, &g->node[v]);

			if (!s0[it] || c->red.item[it].can_recompute ||
			    (g->node[g->node[v].storage].flags & ILPI_F_PARAM))
				continue;
			if (b > last_b || (b == last_b && v <= last))
				continue;
			if (b > best_b || (b == best_b && v < best))
				best = v, best_b = b;
		}
		if (best == ILPI_NONE)
			break;
		ilpi_rules_explain(g, &c->rules, (size_t)best, ILPI_R_NO_RECOMPUTE, why,
		    sizeof why);
		if (why[0] == '\0') /* recomputable itself, but not from what is kept */
			snprintf(why, sizeof why, "recomputing it needs an input that "
			    "cannot be recomputed");
		len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0,
		    "%s'%s' (%lld bytes, %s)", shown ? ", " : "", g->node[best].name,
		    (long long)best_b, g->node[best].kind == ILPI_PRIMAL ? "forward input" : why);
		if (len >= sizeof list)
			break;
		shown++;
		last = best;
		last_b = best_b;
	}
	if (shown == 0)
		snprintf(list, sizeof list, "none (values whose recomputation needs saved "
		    "inputs)");
	if (c->hooks != NULL && c->hooks->report != NULL) {
		c->hooks->report->budget = c->budget;
		c->hooks->report->least = c->least_bytes;
		c->hooks->report->proven = proven;
	}
	ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'memory-budget': budget conflict: the budget "
	    "of %lld bytes is below the least achievable saved bytes %lld%s; values that cannot be "
	    "recomputed and force it: %s", g->path, (long long)c->budget,
	    (long long)c->least_bytes, proven ? "" : " (best found within the time limit)",
	    list);
	return -1;
}

/* Lexicographic (recompute cost, then bytes): the runtime-optimal partition. */
static int
runtime_optimal(solve_ctx *c, int with_pen, int write, double *bytes, ilp_error *err)
{
	ilpi_terms tc = drv_terms(c, 0, 1, with_pen), tb = drv_terms(c, 1, 0, with_pen);
	ilpi_mip mip;
	size_t n = c->red.n_items;

	if (drv_stage(c, "least-recompute", 0, &tc, c->ws, c->wr, c->ts, c->tr, &mip, err) != 0)
		return -1;
	memcpy(c->s, c->ts, n);
	memcpy(c->r, c->tr, n);
	if (!mip.timed_out) {
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, drv_level(mip.obj, 0));
		if (drv_level_stage(c, "runtime-optimal-memory", &tb, write, &mip, err) != 0)
			return -1;
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, -1);
	}
	*bytes = ilpi_model_value(&c->m, &(ilpi_terms){ 1, 0, NULL, NULL }, c->s, c->r);
	return 0;
}

/* Among the partitions within the budget that are as fast as the one found, the
 * least saved bytes: a budget is a ceiling, and what stays under it is memory saved. */
static int
least_bytes_within(solve_ctx *c, const ilpi_mip *first, ilp_error *err)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = drv_terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	ilpi_mip mip;

	if (first->timed_out)
		return 0;
	memcpy(c->ts, c->s, n);
	memcpy(c->tr, c->r, n);
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, drv_level(first->obj, 0));
	if (drv_level_stage(c, "budget-least-memory", &tb, 0, &mip, err) != 0)
		return -1;
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, -1);
	return 0;
}

/* PyTorch's partition at the fraction (c->pt), carried onto the items in (ts, tr), when
 * it is valid here, within `ub` budget units and recomputes less than the start (ws, wr)
 * (NULL: none): the runtime stage then starts from it, so an answer cut short by the
 * time limit is never worse than PyTorch's own (without it, the least-memory start,
 * which recomputes nearly everything). 1 when it is the better start. */
static int
pt_start(solve_ctx *c, const ilpi_terms *tb, const ilpi_terms *tc, double ub,
    const uint8_t *ws, const uint8_t *wr)
{
	double v;

	if (c->pt == NULL || drv_seed_items(c, c->pt, c->ts, c->tr, c->node_s) != 0)
		return 0;
	if (ilpi_model_value(&c->m, tb, c->ts, c->tr) > ub + 1e-6)
		return 0;
	v = ilpi_model_value(&c->m, tc, c->ts, c->tr);
	if (ws != NULL && v >= ilpi_model_value(&c->m, tc, ws, wr))
		return 0;
	drv_note(c, "runtime: starting from PyTorch's partition at the fraction (objective %.10g)",
	    v);
	return 1;
}

int
drv_obj_runtime(solve_ctx *c, ilp_error *err)
{
	const ilp_solve_options *o = c->o;
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = drv_terms(c, 0, 1, 1);
	ilpi_mip mip;
	uint8_t *s0 = c->ws, *r0 = c->wr;  /* becomes the least-memory partition */
	double unit = c->m.byte_unit, b1, ub, used;
	int proven;

	if (o->budget_bytes < 0 && o->budget_fraction < 0) {
		if ((proven = drv_lex_blocks(c, 0, err)) != 1)
			return proven;
		return runtime_optimal(c, 1, 1, &b1, err);
	}
	if ((proven = drv_runtime_blocks(c, err)) != 1)
		return proven;
	if (c->ds == NULL && c->soft_seed != NULL) {
		/* the soft seed as the decomposition's answer would be: a start */
		size_t n = c->red.n_items;

		if ((c->ds = malloc(n + 1)) == NULL || (c->dr = malloc(n + 1)) == NULL) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		if (drv_seed_items(c, c->soft_seed, c->ds, c->dr, c->node_s) != 0) {
			free(c->ds);
			free(c->dr);
			c->ds = c->dr = NULL;
		}
	}
	if (drv_stage(c, "least-memory", 0, &tb, c->ws, c->wr, c->ts, c->tr, &mip, err) != 0)
		return -1;
	proven = mip.status == GLP_OPT;
	memcpy(s0, c->ts, c->red.n_items);
	memcpy(r0, c->tr, c->red.n_items);
	c->least_bytes = (int64_t)llround(mip.obj * unit);
	if (c->budget < c->least_bytes && proven)
		return drv_budget_conflict(c, s0, 1, err);
	ub = floor((double)c->budget / unit);
	for (int round = 0;; round++) {
		const uint8_t *ws = c->budget >= c->least_bytes ? s0 : NULL, *wr = r0;

		if (pt_start(c, &tb, &tc, ub, ws, wr)) {
			ws = c->ts;
			wr = c->tr;
		}
		if (c->ds != NULL && ilpi_model_value(&c->m, &tb, c->ds, c->dr) <= ub + 1e-6 &&
		    (ws == NULL || ilpi_model_value(&c->m, &tc, c->ds, c->dr) <
		    ilpi_model_value(&c->m, &tc, ws, wr))) {
			drv_note(c, "runtime: starting from the %s", c->soft_seed != NULL ?
			    "hard or pytorch-mode partition" : "decomposition's answer");
			ws = c->ds;
			wr = c->dr;
		}
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_BUDGET, &tb, ub);
		if (drv_stage(c, "runtime", DRV_STAGE_BUDGET | (round == 0 ? DRV_STAGE_WRITE : 0),
		    &tc, ws, wr, c->s, c->r, &mip, err) != 0)
			return -1;
		if (mip.status == GLP_NOFEAS)
			return drv_budget_conflict(c, s0, proven, err);
		/* GLPK accepts a row within its tolerance; bytes must hold exactly. */
		used = ilpi_model_value(&c->m, &tb, c->s, c->r);
		if (used <= floor((double)c->budget / unit) + 0.5)
			return least_bytes_within(c, &mip, err);
		drv_note(c, "budget exceeded by %g units within GLPK's tolerance: tightening",
		    used - floor((double)c->budget / unit));
		ub -= used - floor((double)c->budget / unit);
		if (round == 3 || ub < 0) {
			ilpi_err(err, ILP_ERR_SOLVER, "%s: GLPK's answers keep exceeding the budget "
			    "of %lld bytes by rounding", c->g->path, (long long)c->budget);
			return -1;
		}
	}
}

/* The runtime objective's value: the recompute time (and with offload the transfer
 * time the model charges, docs/solver.md "Offload"). */
double
drv_obj_runtime_value(const solve_ctx *c, ilp_partition *p)
{
	return p->recompute_time_us + drv_offload_exposed(c, p);
}
