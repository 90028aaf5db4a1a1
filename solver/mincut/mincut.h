/*
 * mincut.h - PyTorch's min-cut rematerialization heuristic (torch 2.6 rules) over
 * ilpart's graph model (internal; implemented in solver/mincut/mincut.c, documented with
 * every known difference in docs/mincut.md).
 */
#ifndef ILPART_SOLVER_MINCUT_H
#define ILPART_SOLVER_MINCUT_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "graph/partition.h"

/* The torch releases whose partitioner min-cut reproduces, as major * 100 + minor. Any
 * other version maps to the nearest of them (ilpi_mincut_torch_rules). */
enum {
	ILPI_TORCH_2_6 = 206,
	ILPI_TORCH_2_14 = 214,
	ILPI_TORCH_NEWEST = ILPI_TORCH_2_14
};

/* torch._functorch.config switches the partitioner reads, plus how SAC tags are read. */
typedef struct ilpi_mincut_options {
	ilp_prefer_mode prefer;           /* ILP_PREFER_PYTORCH: torch's own reading */
	/* Which torch's partitioner: major * 100 + minor as asked (--torch), 0: the graph's
	 * meta.torch, else the newest. ilpi_mincut_torch_rules resolves it. */
	int torch_version;
	/* treat_parameters_as_free_to_save (torch 2.7 on): a parameter or buffer primal
	 * ("param") weighs 0 in the cut. -1: the release's default (on from 2.7; torch 2.6
	 * has no such switch: off). */
	int treat_parameters_as_free_to_save;
	int ban_recompute_used_far_apart;
	int ban_recompute_long_fusible_chains;
	int ban_recompute_materialized_backward;
	int ban_recompute_not_in_allowlist;
	int ban_recompute_reductions;
	int recompute_views;
	int aggressive_recomputation;     /* clears the first four bans, as torch does */
	long max_dist_from_bw;
	int unsafe_allow_optimization_of_collectives;
	int check;                        /* run ilp_check on the result (default 1) */
	/* the memory-budget path (solver/mincut/mincut_budget.c, docs/mincut.md "Memory budget") */
	double activation_memory_budget;  /* 1: off; 0 <= F < 1: choose_saved_values_set */
	int activation_memory_budget_solver;            /* ilpi_knapsack_solver */
	int activation_memory_budget_runtime_estimator; /* ilpi_mc_estimator */
	ilp_device device;                /* for the cost fields of the result */
} ilpi_mincut_options;

/* activation_memory_budget_runtime_estimator: "flops" (torch's FlopCounterMode count,
 * at least 1), "testing" (1 per node) or "profile" (torch times each knapsack item on
 * the GPU, in ms; ilpart takes the graph's measured time_us / 1000 and fails naming the
 * option when an item has none). */
typedef enum ilpi_mc_estimator {
	ILPI_MC_EST_FLOPS = 0,
	ILPI_MC_EST_TESTING,
	ILPI_MC_EST_PROFILE
} ilpi_mc_estimator;

/* The five ban switches of one solve_min_cut call (torch's MinCutOptions). */
typedef struct ilpi_mc_switches {
	int far, chain, mat, allow, red;
} ilpi_mc_switches;

/* Why a node may not be recomputed (source -> node_in edge of infinite capacity). */
typedef enum ilpi_mc_ban {
	ILPI_MC_FREE = 0,
	ILPI_MC_PRIMAL,            /* _is_primal: inputs are never recomputed */
	ILPI_MC_MUST_SAVE,         /* recompute tag MUST_SAVE (PREFER_SAVE in hard mode) */
	ILPI_MC_REGION_END,        /* cleanup_recompute_tags turned it into MUST_SAVE */
	ILPI_MC_COLLECTIVE,        /* force_save_collectives */
	ILPI_MC_NOT_IN_ALLOWLIST,
	ILPI_MC_RANDOM,            /* denylist mode: random op */
	ILPI_MC_COMPUTE_INTENSIVE, /* denylist mode: matmul, convolution, attention */
	ILPI_MC_MATERIALIZED_BACKWARD,
	ILPI_MC_DIST_FROM_BW,
	ILPI_MC_REDUCTION,
	ILPI_MC_USED_FAR_APART,
	ILPI_MC_LONG_FUSIBLE_CHAIN,
	ILPI_MC_UNSAFE,            /* ilpart: random (RNG not functionalized) or effectful */
	ILPI_MC_RULE               /* ilpart's hard rules forbid recomputing it (rules.c) */
} ilpi_mc_ban;

/* What the heuristic derived per node (arrays of g->n entries, owned by the struct). */
typedef struct ilpi_mincut_info {
	size_t n;
	double *weight;            /* capacity of the node_in -> node_out edge; <0: no edge */
	uint8_t *ban;              /* ilpi_mc_ban */
	uint8_t *must_recompute;   /* node_in -> sink (backward node or recompute tag) */
	int64_t *dist_from_bw;
	double cut_value;          /* max-flow value */
	const char *budget_step;   /* budget path: which cut torch's choose_saved_values_set
	                            * returned ("knapsack", ...); NULL without a budget */
	size_t knapsack_items, knapsack_released; /* banned nodes offered, bans lifted */
	/* torch's normalisation (ilpi_mincut_budget_bounds), filled by ilpi_mincut_run and
	 * ilpi_mincut_budget from the cut at budget 1 they make anyway */
	double budget_min_bytes, budget_max_bytes;
} ilpi_mincut_info;

/* torch's defaults (those of 2.6 and 2.14 differ only where -1 says "the release's"),
 * prefer mode "pytorch", check on, device ILPI_DEVICE_DEFAULT (graph/cost.h), torch version
 * from the graph. */
void ilpi_mincut_options_init(ilpi_mincut_options *o);
/* The rule set min-cut follows on g with o: ILPI_TORCH_2_6 or ILPI_TORCH_2_14, the nearest
 * to o->torch_version, else to g's meta.torch, else the newest (a tie: the newer). */
int ilpi_mincut_torch_rules(const ilp_graph *g, const ilpi_mincut_options *o);
/* "2.6" or "2.14" for a rule set. */
const char *ilpi_mincut_torch_name(int rules);
/* Maps ilp_solve_options: prefer, device, budget_fraction (activation_memory_budget),
 * torch_version; bans NONE clears the five ban_recompute_* switches. */
void ilpi_mincut_options_from_solve(ilpi_mincut_options *o, const ilp_solve_options *so);
/* Sets a switch by its torch config name ("ban_recompute_reductions", ...) from
 * "true"/"false"/"1"/"0" (max_dist_from_bw: an integer). -1 for an unknown name or
 * a bad value. */
int ilpi_mincut_options_set(ilpi_mincut_options *o, const char *name, const char *value);
const char *ilpi_mc_ban_text(ilpi_mc_ban b);

/* The heuristic: partition with method "mincut", status "heuristic", costs filled.
 * With o->check, a partition that fails ilp_check (in o->prefer mode) is not
 * returned: -1 with ILP_ERR_VIOLATION naming the first violation. An infinite cut
 * (PyTorch's networkx raises NetworkXUnbounded) is -1 with ILP_ERR_CONFLICT.
 * info may be NULL; otherwise it is filled (free with ilpi_mincut_info_free). */
int ilpi_mincut_run(const ilp_graph *g, const ilpi_mincut_options *o, ilp_partition **out,
    ilpi_mincut_info *info, ilp_error *err);
void ilpi_mincut_info_free(ilpi_mincut_info *info);

/* One call of torch's solve_min_cut with switches sw and dont_ban (NULL: none; nonzero
 * entries are never banned, as torch's dont_ban set). saved gets the raw cut (before
 * the backward drops what it never reads), banned (may be NULL) torch's banned_nodes,
 * each as its ilpi_mc_ban reason (0: not banned); info (may be NULL) is filled. g->n + 1
 * entries each. */
int ilpi_mincut_cut(const ilp_graph *g, const ilpi_mincut_options *o,
    const ilpi_mc_switches *sw, const uint8_t *dont_ban, uint8_t *saved, uint8_t *banned,
    ilpi_mincut_info *info, ilp_error *err);
/* The switches of o (aggressive_recomputation applied). */
void ilpi_mincut_switches(const ilpi_mincut_options *o, ilpi_mc_switches *sw);
/* choose_saved_values_set with o->activation_memory_budget < 1 (solver/mincut/mincut_budget.c):
 * the raw saved set in saved; info (may be NULL) describes the final cut. */
int ilpi_mincut_budget(const ilp_graph *g, const ilpi_mincut_options *o, uint8_t *saved,
    ilpi_mincut_info *info, ilp_error *err);
/* torch's min_cut_rematerialization_partition (2.6 and 2.14): the first node whose
 * meta["memory_budget"] is a float (g->memory_budget) replaces
 * config.activation_memory_budget for the whole graph. Sets o's budget from g; returns
 * 1 if g has one, else 0 (o unchanged). */
int ilpi_mincut_budget_of_graph(const ilp_graph *g, ilpi_mincut_options *o);
/* PyTorch's normalisation of a budget fraction: the bytes torch's mem ratio compares F
 * against, min_bytes + F * (max_bytes - min_bytes), with min_bytes the inputs' bytes and
 * max_bytes the bytes of the saved set at budget 1 (o's switches). */
int ilpi_mincut_budget_bounds(const ilp_graph *g, const ilpi_mincut_options *o,
    double *min_bytes, double *max_bytes, ilp_error *err);
/* The same two numbers for a raw saved set at budget 1 (g->n entries). */
void ilpi_mincut_bounds_of(const ilp_graph *g, const uint8_t *saved_at_1, double *min_bytes,
    double *max_bytes);

/* The pure minimum cut on a given weight vector (for exact cross-checks): no tags,
 * no heuristics. weight[i] >= 0 (INFINITY allowed) for every non-backward node;
 * banned[i] != 0 forbids recomputing node i (primals are always banned). saved gets
 * the cut (before pruning), *value its weight. */
int ilpi_mincut_pure(const ilp_graph *g, const double *weight, const uint8_t *banned,
    uint8_t *saved, double *value, ilp_error *err);

#endif /* ILPART_SOLVER_MINCUT_H */
