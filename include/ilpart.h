/*
 * ilpart.h - public API of libilpart: optimal save/recompute partitioning of
 * autograd joint graphs.
 *
 * Ownership, once for every function below:
 *  - A function that hands back a new object through an `out` pointer (or returns
 *    a non-const pointer) gives it to the caller, who releases it with the matching
 *    `*_free`. `*_free(NULL)` is a no-op. Strings returned as `char *` are freed with free().
 *  - Pointer parameters are borrowed for the duration of the call; nothing is
 *    retained afterwards unless the comment says so. A partition is only meaningful
 *    together with the graph it was made for; the graph must outlive it. Given a
 *    partition made for a graph with another node count, every function that takes
 *    both fails with ILP_ERR_INPUT before reading any node.
 *  - `const char *` results (names, messages) point into the object they came from and
 *    live as long as it does.
 * Errors: functions return 0 on success and -1 on failure (NULL for constructors) and,
 * when `err` is not NULL, fill it with a one-line message that names the file, the node
 * and the field. Every function that takes `err` first clears it (ILP_ERR_NONE, empty
 * message), so after a success it holds no stale error. The library never prints and
 * never exits.
 */
#ifndef ILPART_ILPART_H
#define ILPART_ILPART_H

#include <stddef.h>
#include <stdint.h>

#include "ilpart_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version --------------------------------------------------------------- */

/* The version of the library loaded at run time ("0.1.0"); compare it with
 * ILPART_VERSION_STRING, the version of the headers compiled against. */
const char *ilp_version(void);

/* ---- errors ---------------------------------------------------------------- */

typedef enum ilp_error_kind {
	ILP_ERR_NONE = 0,
	ILP_ERR_INPUT,     /* malformed or inconsistent input file or option (CLI exit 2) */
	ILP_ERR_VIOLATION, /* a partition fails the checker (CLI exit 1) */
	ILP_ERR_CONFLICT,  /* tags, bans and budgets cannot all hold (CLI exit 3) */
	ILP_ERR_SOLVER,    /* solver gave no usable answer, e.g. time limit without a solution (exit 4) */
	ILP_ERR_SYSTEM     /* I/O or memory (CLI exit 2) */
} ilp_error_kind;

typedef struct ilp_error {
	ilp_error_kind kind;
	char msg[1024];
} ilp_error;

/* ---- graphs ---------------------------------------------------------------- */

typedef struct ilp_graph ilp_graph;

int ilp_graph_read_file(const char *path, ilp_graph **out, ilp_error *err);
/* `name` is used in messages in place of a file name. */
int ilp_graph_read_buffer(const char *buf, size_t len, const char *name, ilp_graph **out,
    ilp_error *err);
void ilp_graph_free(ilp_graph *g);
/* Canonical JSON of the graph (docs/format.md); caller frees *out. */
int ilp_graph_to_json(const ilp_graph *g, char **out, ilp_error *err);

size_t ilp_graph_node_count(const ilp_graph *g);
const char *ilp_graph_node_name(const ilp_graph *g, size_t i);
/* Index of the node called `name`, or -1. */
long ilp_graph_find(const ilp_graph *g, const char *name);

/* Writes `len` bytes to `path` through a temporary file in the same directory and a
 * rename, so a failure never leaves a partial file behind. "-" writes to stdout. */
int ilp_write_file_atomic(const char *path, const char *data, size_t len, ilp_error *err);

/* ---- partitions ------------------------------------------------------------ */

typedef struct ilp_partition ilp_partition;

/* An empty partition (nothing saved, nothing recomputed) for `g`. */
ilp_partition *ilp_partition_new(const ilp_graph *g);
void ilp_partition_free(ilp_partition *p);
int ilp_partition_read_file(const ilp_graph *g, const char *path, ilp_partition **out,
    ilp_error *err);
int ilp_partition_read_buffer(const ilp_graph *g, const char *buf, size_t len,
    const char *name, ilp_partition **out, ilp_error *err);
/* Canonical JSON; caller frees *out. */
int ilp_partition_to_json(const ilp_graph *g, const ilp_partition *p, char **out,
    ilp_error *err);
int ilp_partition_is_saved(const ilp_partition *p, size_t node);
int ilp_partition_is_recomputed(const ilp_partition *p, size_t node);
/* Numbers of saved and of recomputed nodes. */
size_t ilp_partition_count_saved(const ilp_partition *p);
size_t ilp_partition_count_recomputed(const ilp_partition *p);
/* The costs ilp_partition_evaluate filled in (the results of ilp_solve and ilp_mincut
 * come evaluated; a partition file may carry them in its "cost" object): saved bytes
 * with shared storage counted once, recompute flops, and recompute roofline time in
 * microseconds on the device it was evaluated for. Each is -1 while `p` has no costs. */
int64_t ilp_partition_saved_bytes(const ilp_partition *p);
double ilp_partition_recompute_flops(const ilp_partition *p);
double ilp_partition_recompute_time_us(const ilp_partition *p);
/* What the solve had to do that the request did not say, in one line ("" when
 * nothing): a budget out of reach answered with the least partition that obeys the
 * rules (docs/solver.md "Budgets out of reach"). Lives as long as p; written as
 * producer.note. */
const char *ilp_partition_note(const ilp_partition *p);

/* ---- fingerprints ----------------------------------------------------------- */

/* The graph's canonical fingerprint, 64 lowercase hex digits (SHA-256; docs/format.md
 * "Fingerprint"): structure, ops, shapes, dtypes, costs, SAC tags and regions, outputs,
 * independent of node names and of the order of the file. It is the fingerprint of the
 * graph as read or built; ilp_policy_apply does not change it. Lives as long as g. */
const char *ilp_graph_fingerprint(const ilp_graph *g);
/* The fingerprint of the graph `p` was made for, "" when its file does not say (files
 * from before fingerprints). Reading a partition file that names another graph's
 * fingerprint fails with ILP_ERR_INPUT. */
const char *ilp_partition_fingerprint(const ilp_partition *p);
/* `p`, made for `from`, carried onto `to`: the same graph (same fingerprint) under other
 * node names or in another file order. The correspondence is proven node by node
 * (labels, inputs in order, views, outputs) first. Call it on the graphs as read, or
 * after applying the same policy to both. -1 with ILP_ERR_INPUT when they differ. */
int ilp_partition_remap(const ilp_graph *from, const ilp_partition *p, const ilp_graph *to,
    ilp_partition **out, ilp_error *err);

/* ---- policies -------------------------------------------------------------- */

typedef enum ilp_prefer_mode {
	ILP_PREFER_HARD = 0, /* PREFER_* bind like MUST_* (eager SAC) */
	ILP_PREFER_PYTORCH,  /* torch >= 2.4 compile: PREFER_RECOMPUTE hard, PREFER_SAVE untagged */
	ILP_PREFER_SOFT      /* preferences are objective penalties */
} ilp_prefer_mode;

typedef enum ilp_bans {
	ILP_BANS_PYTORCH = 0, /* PyTorch's default recomputation bans */
	ILP_BANS_NONE
} ilp_bans;

/* Spellings of the modes: "hard", "pytorch", "soft" and "pytorch", "none". The parsers
 * return 0, or -1 with ILP_ERR_INPUT and a message naming the option and the choices. */
int ilp_prefer_parse(const char *s, ilp_prefer_mode *out, ilp_error *err);
int ilp_bans_parse(const char *s, ilp_bans *out, ilp_error *err);
const char *ilp_prefer_name(ilp_prefer_mode m);
const char *ilp_bans_name(ilp_bans b);

/* Where the library hands progress and warning lines; it never prints them itself. */
typedef void (*ilp_log_fn)(void *ctx, const char *line);

/* A SAC policy file (docs/policies.md): rules mapping op names or patterns to a
 * CheckpointPolicy, a default, and the regions it applies to. */
typedef struct ilp_policy ilp_policy;

int ilp_policy_read_file(const char *path, ilp_policy **out, ilp_error *err);
/* `name` is used in messages in place of a file name. */
int ilp_policy_read_buffer(const char *buf, size_t len, const char *name, ilp_policy **out,
    ilp_error *err);
void ilp_policy_free(ilp_policy *pol);
/* Sets the SAC tag (and, for "regions": "graph", the region id) of every op of `g`
 * that the policy covers; getitem nodes take their parent's tag. `pol` is borrowed. */
int ilp_policy_apply(const ilp_policy *pol, ilp_graph *g, ilp_error *err);
/* Warnings of ilp_policy_apply (a rule that matches no op the policy covers, with the
 * graph's closest op names) go to `fn(ctx, line)`, one line each; fn NULL (the
 * default): none. The library never prints them. */
void ilp_policy_set_warnings(ilp_policy *pol, ilp_log_fn fn, void *ctx);
/* The policy's tag for an op target ("aten.mm.default"), ignoring regions: the first
 * matching rule's, else the default. For tests and `--explain`-style output. */
const char *ilp_policy_lookup(const ilp_policy *pol, const char *target);

/* 0 when the graph's tags, `prefer` and `bans` can all hold (every value the backward
 * needs can be saved or recomputed); otherwise -1 with ILP_ERR_CONFLICT and the
 * shortest chain of nodes and tags that forces the conflict in err->msg. */
int ilp_rules_check(const ilp_graph *g, ilp_prefer_mode prefer, ilp_bans bans,
    ilp_error *err);

/* ---- solvers (solver/) ------------------------------------------------------ */
typedef enum ilp_objective {
	ILP_OBJ_MEMORY = 0, /* least saved bytes; among those, least recompute cost */
	ILP_OBJ_RUNTIME,    /* least recompute cost with saved bytes <= budget */
	ILP_OBJ_WEIGHTED,   /* saved bytes + alpha * recompute cost (us) */
	ILP_OBJ_PEAK        /* least simulated peak memory; among those, least recompute cost */
} ilp_objective;

/* Device profile for the roofline cost max(flops / peak, bytes / bandwidth). */
typedef struct ilp_device {
	double peak_flops;    /* FLOP/s */
	double bandwidth;     /* bytes/s */
} ilp_device;

/* Named profiles: "h100", "a100", "cpu"; -1 when unknown. */
int ilp_device_lookup(const char *name, ilp_device *out);
/* The device the graph file says it was captured on ("device": "cpu", "cuda:NVIDIA
 * A100-SXM4-80GB"), NULL when it does not say. Lives as long as g. */
const char *ilp_graph_device(const ilp_graph *g);
/* The named profile for such a device: "cpu" for cpu, "a100" for a CUDA device named
 * A100 or A800, "h100" for other CUDA devices; NULL for others (meta) and NULL. */
const char *ilp_device_profile_for(const char *device);

/* May a random op be recomputed when the graph's RNG is not functionalized? Then the
 * forward saves its RNG state ("rng_states" in the partition, counted in the saved
 * bytes) and the backward replays it, as PyTorch's run_and_save_rng_state does. */
typedef enum ilp_rng_replay {
	ILP_RNG_REPLAY_AUTO = 0, /* with a memory budget (PyTorch's budget path), else not */
	ILP_RNG_REPLAY_NEVER,
	ILP_RNG_REPLAY_ALWAYS
} ilp_rng_replay;

/* How a budget fraction F becomes bytes (docs/solver.md, "Memory budgets"). */
typedef enum ilp_fraction_cap {
	ILP_FRACTION_CAP_PYTORCH = 0, /* when PyTorch's own partition at F obeys the solve's
	                               * rules, the optimum saves no more and recomputes no
	                               * longer than it: the budget is min(B(F), its bytes),
	                               * or its bytes when the optimum within B(F) is slower */
	ILP_FRACTION_CAP_NORMALISED   /* B(F), torch's normalisation alone */
} ilp_fraction_cap;

/* A budget below every partition that obeys the rules (docs/solver.md "Budgets out of
 * reach"). */
typedef enum ilp_unreachable {
	ILP_UNREACHABLE_AUTO = 0, /* LEAST for budgets PyTorch derives (budget_fraction,
	                           * time_budget_fraction), FAIL for bytes and seconds */
	ILP_UNREACHABLE_LEAST,    /* the least-bytes partition that obeys the rules (then
	                           * least recompute), or for a time budget the least-
	                           * recompute one (then least bytes), with a note */
	ILP_UNREACHABLE_FAIL      /* -1 with ILP_ERR_CONFLICT */
} ilp_unreachable;

/* Offloading saved values to host memory (docs/solver.md "Offload"). */
typedef enum ilp_offload {
	ILP_OFFLOAD_TAGS = 0, /* the CPU-offload tags bind as saves; nothing is offloaded
	                       * in the partition (the bridge marks the tagged values) */
	ILP_OFFLOAD_NONE,     /* the same in the partition; the bridge marks nothing */
	ILP_OFFLOAD_FREE      /* the solve chooses per saved value: on the device or
	                       * offloaded (MUST_CPU_OFFLOAD values: offloaded when saved) */
} ilp_offload;

/* "tags", "none", "free"; the parser returns 0, or -1 with ILP_ERR_INPUT. */
int ilp_offload_parse(const char *s, ilp_offload *out, ilp_error *err);
const char *ilp_offload_name(ilp_offload mode);

typedef struct ilp_solve_options {
	ilp_objective objective;
	double alpha;              /* ILP_OBJ_WEIGHTED */
	int64_t budget_bytes;      /* < 0: none */
	double budget_fraction;    /* < 0: none; PyTorch's activation_memory_budget scale */
	int64_t peak_budget;       /* < 0: none; ILP_OBJ_RUNTIME: simulated peak <= this */
	ilp_prefer_mode prefer;
	ilp_bans bans;
	ilp_device device;
	double time_limit;         /* seconds, <= 0: the default, 60 */
	double gap;                /* relative MIP gap to stop at, 0: prove optimal */
	int verbose;               /* route GLPK's terminal output to log */
	ilp_log_fn log;            /* progress and verbose lines; may be NULL */
	void *log_ctx;
	const char *write_lp;      /* write the exact model (CPLEX LP format) here, or NULL */
	const char *write_mps;     /* ... and/or free MPS here, or NULL */
	ilp_rng_replay rng_replay; /* default AUTO */
	int monolithic;            /* 1: never decompose along repeated blocks (docs/solver.md) */
	ilp_fraction_cap fraction_cap; /* with budget_fraction; default PYTORCH */
	int torch_version;         /* the torch whose min-cut partitioner the min-cut (and the
	                            * pytorch fraction cap) reproduces: major * 100 + minor
	                            * (214 = 2.14); 0 (default): the graph's meta.torch, else
	                            * the newest ilpart knows (docs/mincut.md) */
	/* The dual budget (solver/driver/time_budget.c): least saved bytes, then least recompute,
	 * with recompute time <= the budget; memory objective only, no memory budget. */
	double time_budget_us;       /* < 0: none; microseconds on `device` */
	double time_budget_fraction; /* < 0: none; the recompute time of PyTorch's own
	                              * partition at activation_memory_budget F */
	ilp_unreachable unreachable; /* default AUTO */
	ilp_offload offload;         /* default TAGS */
	double offload_bw;           /* host link, bytes/s; <= 0: the device profile's */
} ilp_solve_options;

/* Defaults: memory objective, hard preferences, PyTorch bans, "h100", no budgets; no
 * time_limit, which a solve reads as 60 s. */
void ilp_solve_options_init(ilp_solve_options *o);

/* Optimal partition by ILP (GLPK). The result has passed ilp_check. On conflicting
 * constraints: -1 with ILP_ERR_CONFLICT and the conflicting nodes in err->msg. */
int ilp_solve(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err);
/*
 * The memory / recompute trade-off: least-recompute partitions at many memory budgets
 * of one graph (o's objective and budgets are ignored; NULL: defaults). When the model
 * decomposes along repeated blocks (docs/solver.md), ilp_pareto_new combines the whole
 * front of (saved bytes, recompute cost) once and every budget's optimum is read off
 * it; otherwise each budget is one ilp_solve. With o->offload ILP_OFFLOAD_FREE the
 * bytes (budgets, range) are the device's saved bytes and the time recompute plus
 * transfer (docs/solver.md "Offload"). g must outlive the result.
 */
typedef struct ilp_pareto ilp_pareto;

int ilp_pareto_new(const ilp_graph *g, const ilp_solve_options *o, ilp_pareto **out,
    ilp_error *err);
/* 1 when the points come off one combined front, 0 when each is solved on its own. */
int ilp_pareto_from_front(const ilp_pareto *p);
/* lo: the least saved bytes of any partition; hi: the saved bytes of the runtime
 * optimum; both under the rules a budget brings (docs/solver.md "Memory budgets"). */
int ilp_pareto_range(ilp_pareto *p, int64_t *lo, int64_t *hi, ilp_error *err);
/* The bytes ilp_solve reads budget_fraction frac as (torch's normalisation, and with
 * the pytorch fraction cap PyTorch's own partition at frac: docs/solver.md). */
int ilp_pareto_fraction_bytes(ilp_pareto *p, double frac, int64_t *bytes,
    ilp_error *err);
/* The optimum ilp_solve gives with the runtime objective and budget_bytes = budget
 * (the same saved bytes and recompute time; of several partitions equal in both it may
 * be another), checked; below every partition the same conflict as ilp_solve. */
int ilp_pareto_solve(ilp_pareto *p, int64_t budget, ilp_partition **out,
    ilp_error *err);
void ilp_pareto_free(ilp_pareto *p);
/* PyTorch's min-cut heuristic (the rules of o->torch_version's release, or of the graph's
 * torch) on the same cost model. */
int ilp_mincut(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err);
/* Fills the cost fields of `p` (saved bytes with shared storage counted once,
 * recompute flops and roofline time; read them with ilp_partition_saved_bytes and its
 * neighbours) for device `dev`, "h100" when NULL. -1 with ILP_ERR_INPUT when `p` was
 * made for a graph with another node count. */
int ilp_partition_evaluate(const ilp_graph *g, ilp_partition *p, const ilp_device *dev,
    ilp_error *err);

/* ---- checker --------------------------------------------------------------- */

typedef struct ilp_check_options {
	ilp_prefer_mode prefer;
} ilp_check_options;

/* 0 when `p` is executable on `g` and obeys every hard tag; otherwise -1 with
 * err->kind == ILP_ERR_VIOLATION and the first violation in err->msg, or with
 * ILP_ERR_INPUT when `p` was made for a graph with another node count (nothing is
 * checked then). Shares no code with the solvers. `o` may be NULL (defaults). */
int ilp_check(const ilp_graph *g, const ilp_partition *p, const ilp_check_options *o,
    ilp_error *err);

/* ---- lowering -------------------------------------------------------------- */

typedef enum ilp_split_format {
	ILP_SPLIT_JSON = 0,
	ILP_SPLIT_TEXT,
	ILP_SPLIT_DOT,
	ILP_SPLIT_DOT_SUMMARY  /* regions of consecutive ops and the saved values between
	                        * them: what `dot` lays out for large graphs */
} ilp_split_format;

/* Forward and backward graphs of `p` rendered in `fmt`; caller frees *out. */
int ilp_split_render(const ilp_graph *g, const ilp_partition *p, ilp_split_format fmt,
    char **out, ilp_error *err);

/* ---- peak memory (graph/memsim.c, docs/partition.md "Peak memory") ------------ */

typedef enum ilp_phase {
	ILP_PHASE_NONE = 0,  /* nothing is ever allocated */
	ILP_PHASE_FORWARD,
	ILP_PHASE_BACKWARD
} ilp_phase;

/* Bytes the split graphs allocate, run as PyTorch 2.6 runs them. Primals and tangents
 * are the caller's and are not counted (input_bytes says how much they are). */
typedef struct ilp_peak {
	int64_t peak_bytes;    /* high-water mark over the forward and the backward */
	long node;             /* op running at the peak (graph index), -1 when none */
	ilp_phase phase;       /* where that op runs */
	int64_t forward_peak, backward_peak;
	int64_t held_bytes;    /* live between the two: saved values and forward outputs */
	int64_t input_bytes;   /* primals and tangents */
	int64_t offloaded_bytes;  /* saved values offloaded to the host ("offloaded") */
	double exposed_us;     /* transfer time the compute does not hide (microseconds on
	                        * the partition's device; docs/partition.md "Offload") */
} ilp_peak;

/* Lowers `p` and simulates both sides. Tags do not matter to memory: any executable
 * partition has a peak (-1 with ILP_ERR_VIOLATION when `p` is not executable). */
int ilp_partition_peak(const ilp_graph *g, const ilp_partition *p, ilp_peak *out,
    ilp_error *err);
const char *ilp_phase_name(ilp_phase ph); /* "forward", "backward", "none" */

#ifdef __cplusplus
}
#endif

#endif /* ILPART_ILPART_H */
