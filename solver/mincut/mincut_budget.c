/*
 * mincut_budget.c - the memory-budget path of torch's min-cut partitioner
 * (choose_saved_values_set with activation_memory_budget < 1, in
 * torch/_functorch/partitioners.py): the fraction is normalised between the inputs'
 * bytes and the bytes saved at budget 1; two more aggressive cuts are tried first;
 * then a knapsack (solver/mincut/knapsack.c) over the banned nodes decides which bans to lift,
 * and the graph is cut again with those nodes in dont_ban. docs/mincut.md, "Memory
 * budget", lists what is reproduced and what is not.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "policies/bans.h"
#include "solver/mincut/knapsack.h"
#include "solver/mincut/mincut.h"

static double
size_bytes(const ilp_graph *g, const uint8_t *set)
{
	double sum = 0;

	for (size_t i = 0; i < g->n; i++)
		if (set[i])
			sum += ilpi_size_of(g, i);
	return sum;
}

/* estimate_activations_size: sum of _size_of, in GB as torch divides it. */
static double
act_size(const ilp_graph *g, const uint8_t *set)
{
	return size_bytes(g, set) / 1e9;
}

static void
inputs(const ilp_graph *g, uint8_t *set)
{
	for (size_t i = 0; i < g->n; i++)
		set[i] = g->node[i].kind == ILPI_PRIMAL;
}

void
ilpi_mincut_bounds_of(const ilp_graph *g, const uint8_t *saved_at_1, double *min_bytes,
    double *max_bytes)
{
	double lo = 0;

	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind == ILPI_PRIMAL)
			lo += ilpi_size_of(g, i);
	*min_bytes = lo;
	*max_bytes = size_bytes(g, saved_at_1);
}

/* estimate_runtime: "flops" is FlopCounterMode's count, at least 1. torch 2.6's flop
 * registry has no formula for the CPU attention kernels (the exporter borrows the
 * CUDA kernels' formula for the ILP's cost model), so they count 0 here. */
static double
estimate_runtime(const ilp_graph *g, const ilpi_mincut_options *o, size_t i)
{
	const ilpi_node *n = &g->node[i];
	double f = n->flops > 0 ? n->flops : 0;

	if (o->activation_memory_budget_runtime_estimator == ILPI_MC_EST_TESTING)
		return 1;
	if (o->activation_memory_budget_runtime_estimator == ILPI_MC_EST_PROFILE)
		return n->time_us / 1000; /* benchmarker.benchmark_gpu's milliseconds */
	if (n->target != NULL && strstr(n->target, "_for_cpu") != NULL)
		f = 0;
	return f < 1 ? 1 : f;
}

typedef struct item {
	size_t node;
	double size;
	const char *name;
} item;

/* torch 2.6: sorted by name, then (stable) by size descending */
static int
by_size_then_name(const void *a, const void *b)
{
	const item *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* torch 2.14: banned_nodes is an ordered set, filled in graph order by the aggressive cut
 * (its far-apart and long-chain bans are off), then sorted (stable) by size descending */
static int
by_size_then_order(const void *a, const void *b)
{
	const item *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* torch 2.14 leaves nodes whose recompute meta is MUST_SAVE out of the knapsack: a
 * MUST_SAVE tag, a region end cleanup_recompute_tags made one, a collective
 * force_save_collectives made one. */
static int
must_save_ban(uint8_t why)
{
	return why == ILPI_MC_MUST_SAVE || why == ILPI_MC_REGION_END ||
	    why == ILPI_MC_COLLECTIVE;
}

int
ilpi_mincut_budget_bounds(const ilp_graph *g, const ilpi_mincut_options *o,
    double *min_bytes, double *max_bytes, ilp_error *err)
{
	uint8_t *set = calloc(g->n + 1, 1);
	ilpi_mc_switches sw;
	double lo = 0, hi = 0;
	int rc = -1;

	if (set == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	ilpi_mincut_switches(o, &sw);
	if (ilpi_mincut_cut(g, o, &sw, NULL, set, NULL, NULL, err) == 0) {
		ilpi_mincut_bounds_of(g, set, &lo, &hi);
		rc = 0;
	}
	*min_bytes = lo;
	*max_bytes = hi;
	free(set);
	return rc;
}

/* The knapsack solvers know neither the file nor the budget: name them as every other
 * error line does. */
static void
knapsack_failure(const ilp_graph *g, const ilpi_mincut_options *o, ilp_error *err)
{
	char msg[sizeof err->msg];

	if (err == NULL)
		return;
	snprintf(msg, sizeof msg, "%s", err->msg);
	ilpi_err(err, err->kind, "%s: min-cut memory budget %g (knapsack solver %s): %s", g->path,
	    o->activation_memory_budget, ilpi_knapsack_solver_name(
	    (ilpi_knapsack_solver)o->activation_memory_budget_solver), msg);
}

/* torch's get_node_storage is None for a value that is no tensor: a tuple, a symbolic
 * scalar (a lifted constant has no val either, but is never banned). */
static int
no_storage(const ilpi_node *n)
{
	return (n->flags & (ILPI_F_TUPLE | ILPI_F_SYM)) != 0;
}

/* torch's `get_node_storage(i) in input_storages`: i's storage is a primal's; and when
 * a primal has no storage (a SymInt input of a graph compiled with dynamic shapes),
 * None is among the inputs' storages, so every banned node without storage (a tuple:
 * dropout, attention, layer norm) counts as an input's storage too and is never a
 * knapsack item. */
static int
input_storage(const ilp_graph *g, size_t i, int sym_input)
{
	if (no_storage(&g->node[i]))
		return sym_input;
	return g->node[g->node[i].storage].kind == ILPI_PRIMAL;
}

/* The knapsack over the recomputable banned nodes and the final cut. */
static int
knapsack_cut(const ilp_graph *g, const ilpi_mincut_options *o, const ilpi_mc_switches *sw,
    const uint8_t *banned, const int64_t *dist, double min_act, double max_act,
    uint8_t *saved, ilpi_mincut_info *info, ilp_error *err)
{
	size_t n = 0;
	item *it = malloc((g->n + 1) * sizeof *it);
	double *mem = malloc((g->n + 1) * sizeof *mem), *rt = malloc((g->n + 1) * sizeof *rt);
	uint8_t *keep = calloc(g->n + 1, 1), *dont_ban = calloc(g->n + 1, 1);
	int rules = ilpi_mincut_torch_rules(g, o), rc = -1, sym_input = 0;

	for (size_t i = 0; i < g->n; i++)
		sym_input |= g->node[i].kind == ILPI_PRIMAL && no_storage(&g->node[i]);
	if (it == NULL || mem == NULL || rt == NULL || keep == NULL || dont_ban == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	/* get_recomputable_banned_nodes: needed by the backward, not an input's storage */
	for (size_t i = 0; i < g->n; i++) {
		if (!banned[i] || dist[i] >= 1000000000 || input_storage(g, i, sym_input) ||
		    (rules >= ILPI_TORCH_2_14 && must_save_ban(banned[i])))
			continue;
		it[n].node = i;
		it[n].size = ilpi_size_of(g, i);
		it[n].name = g->node[i].name;
		n++;
	}
	if (n == 0) {
		if (rules < ILPI_TORCH_2_14)
			inputs(g, saved); /* torch 2.14: the aggressive cut, already in saved */
		rc = 1; /* the caller keeps the aggressive cut's info */
		goto out;
	}
	qsort(it, n, sizeof *it, rules >= ILPI_TORCH_2_14 ? by_size_then_order :
	    by_size_then_name);
	for (size_t k = 0; k < n; k++) {
		if (o->activation_memory_budget_runtime_estimator == ILPI_MC_EST_PROFILE &&
		    g->node[it[k].node].time_us < 0) {
			ilpi_err(err, ILP_ERR_INPUT, "%s: activation_memory_budget_runtime_estimator"
			    "=profile: knapsack item '%s' has no measured time_us (torch times it on "
			    "the GPU; measure the graph with ilpart.calibrate, or use flops)",
			    g->path, it[k].name);
			goto out;
		}
		mem[k] = (it[k].size / 1e9) / (max_act - min_act); /* get_normalized_size */
		rt[k] = estimate_runtime(g, o, it[k].node);
	}
	if (ilpi_knapsack((ilpi_knapsack_solver)o->activation_memory_budget_solver, mem, rt, n,
	    o->activation_memory_budget, keep, err) != 0) {
		knapsack_failure(g, o, err);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		dont_ban[it[k].node] = !keep[k];
	rc = ilpi_mincut_cut(g, o, sw, dont_ban, saved, NULL, info, err);
	if (rc == 0 && info != NULL) {
		info->knapsack_items = n;
		for (size_t k = 0; k < n; k++)
			info->knapsack_released += !keep[k];
	}
out:
	free(it);
	free(mem);
	free(rt);
	free(keep);
	free(dont_ban);
	return rc;
}

int
ilpi_mincut_budget_of_graph(const ilp_graph *g, ilpi_mincut_options *o)
{
	if (g->memory_budget < 0)
		return 0;
	o->activation_memory_budget = g->memory_budget;
	return 1;
}

int
ilpi_mincut_budget(const ilp_graph *g, const ilpi_mincut_options *o, uint8_t *saved,
    ilpi_mincut_info *info, ilp_error *err)
{
	double F = o->activation_memory_budget, min_act, max_act, lo = 0, hi = 0;
	uint8_t *in = calloc(g->n + 1, 1), *banned = calloc(g->n + 1, 1);
	ilpi_mc_switches sw, more, aggr;
	const char *step = NULL;
	ilpi_mincut_info ai;
	int rc = -1;

	memset(&ai, 0, sizeof ai);
	if (info != NULL)
		memset(info, 0, sizeof *info);
	if (in == NULL || banned == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	if (!(F >= 0 && F <= 1)) {
		ilpi_err(err, ILP_ERR_INPUT, "activation_memory_budget %g: the valid range is "
		    "0 <= m <= 1", F);
		goto out;
	}
	inputs(g, in);
	ilpi_mincut_switches(o, &sw);
	if (ilpi_mincut_cut(g, o, &sw, NULL, saved, NULL, info, err) != 0)
		goto out;
	ilpi_mincut_bounds_of(g, saved, &lo, &hi);
	step = "budget 1";
	if (F == 0) { /* torch returns the inputs (info: the cut at budget 1) */
		memcpy(saved, in, g->n);
		step = "inputs (budget 0)";
		rc = 0;
		goto out;
	}
	min_act = act_size(g, in);
	max_act = act_size(g, saved);
	if (F == 1 || max_act <= min_act) {
		rc = 0;
		goto out;
	}
#define MEM_RATIO(set) ((act_size(g, (set)) - min_act) / (max_act - min_act))
	more = sw;
	more.far = more.chain = more.mat = 0;
	ilpi_mincut_info_free(info);
	if (ilpi_mincut_cut(g, o, &more, NULL, saved, NULL, info, err) != 0)
		goto out;
	step = "more aggressive";
	if (MEM_RATIO(saved) < F) {
		rc = 0;
		goto out;
	}
	aggr = more;
	aggr.allow = 0;
	ilpi_mincut_info_free(info);
	if (ilpi_mincut_cut(g, o, &aggr, NULL, saved, banned, &ai, err) != 0)
		goto out;
	step = "aggressive";
	if (MEM_RATIO(saved) < F) {
		if (info != NULL) {
			*info = ai;
			memset(&ai, 0, sizeof ai);
		}
		rc = 0;
		goto out;
	}
#undef MEM_RATIO
	step = "knapsack";
	rc = knapsack_cut(g, o, &aggr, banned, ai.dist_from_bw, min_act, max_act, saved,
	    info, err);
	if (rc == 1) {
		step = ilpi_mincut_torch_rules(g, o) >= ILPI_TORCH_2_14 ?
		    "aggressive (no banned node to lift)" : "inputs (no banned node to lift)";
		if (info != NULL) {
			*info = ai;
			memset(&ai, 0, sizeof ai);
		}
		rc = 0;
	}
out:
	if (rc == 0 && info != NULL) {
		info->budget_step = step;
		info->budget_min_bytes = lo;
		info->budget_max_bytes = hi;
	}
	ilpi_mincut_info_free(&ai);
	free(in);
	free(banned);
	return rc;
}
