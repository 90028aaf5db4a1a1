/*
 * solve_options.h - every solve option, one row each: the one place an option is
 * defined. Each layer expands the columns it owns (X-macro):
 *   solver/options.c   DEFAULT (ilp_solve_options_init) and CHECK (its checks)
 *   cli/solve_opts.c   FLAG, SHORT, ARG, PARSE, HELP (ilpart solve's parsing, synopsis
 *                      and --help) and STORE (what a partition store entry may carry)
 *   graph/partition.c  RECORD (the partition file's "options": set, written, read)
 *
 * It lives at the bottom (graph/) because the partition file records options and
 * graph/ may include no solver/ header; it is data only (names and expressions over
 * the public ilp_solve_options of include/ilpart.h), no code of any layer.
 *
 * X(ID, FLAG, SHORT, ARG, DEFAULT, PARSE, CHECK, RECORD, STORE, HELP)
 *   ID       the row's name: ILPI_OPT_ID (the slot of its record)
 *   FLAG     the CLI flag; SHORT another spelling or NULL
 *   ARG      the value's metavariable in the synopsis, NULL for a flag
 *   DEFAULT  statements over `o` (ilp_solve_options *) setting its default, after the
 *            whole struct was zeroed; (void)0 when zero is the default
 *   PARSE    cli/solve_opts.c's parse_PARSE(cmd, v, o): the value into o (sac: by
 *            cli_policy_arg, shared with the other commands)
 *   CHECK    solver/options.c's check_CHECK(g, o, err), none: no check; run in row order
 *   RECORD   how the partition file records it (graph/partition.c): REC_NONE, or
 *            REC_NUM(key, scope, cmp, get) a number written when `get cmp 0`,
 *            REC_INT(key, scope, get) bytes written when >= 0,
 *            REC_STR(key, scope, size, get) a string written when not "",
 *            REC_INT_OR_NUM / REC_NUM_OR_NUM(key1, key2, scope, get1, get2) the first
 *            when set, else the second; REC_POLICY the graph's policy (name, sha256).
 *            scope ILP: recorded for ILP partitions only, ALL: for every method. `get`
 *            is an expression over o, p (the partition) and tmp (a char[96]).
 *            Rows are written, read and recorded in row order.
 *   STORE    1: an entry of a partition store may carry it (cli/store.c)
 *   HELP     its line in `ilpart solve --help`
 *
 * Adding an option: its field at the end of ilp_solve_options, a row here (at the
 * place its record should take in the file, if any), parse_/check_ functions when the
 * existing ones do not fit, and where the solver reads it (docs/architecture.md).
 */
#ifndef ILPART_GRAPH_SOLVE_OPTIONS_H
#define ILPART_GRAPH_SOLVE_OPTIONS_H

#define ILPI_SOLVE_OPTIONS(X) \
	X(objective, "--objective", NULL, "memory|runtime|weighted|peak", \
	    o->objective = ILP_OBJ_MEMORY, objective, none, \
	    REC_STR("objective", ILP, 16, p->objective), 1, \
	    "default memory (least saved bytes); runtime with a budget") \
	X(alpha, "--alpha", NULL, "A", \
	    (void)0, alpha, alpha, \
	    REC_NUM("alpha", ILP, >=, o->objective == ILP_OBJ_WEIGHTED ? o->alpha : -1), 1, \
	    "weighted: saved bytes + A * recompute microseconds") \
	X(memory_budget, "--memory-budget", NULL, "B", \
	    (o->budget_bytes = -1, o->budget_fraction = -1), memory_budget, memory_budget, \
	    REC_INT_OR_NUM("memory_budget_bytes", "memory_budget_fraction", ILP, \
	    o->budget_bytes, o->budget_bytes >= 0 ? -1 : o->budget_fraction), 1, \
	    "saved bytes at most B (see B below)") \
	X(fraction_cap, "--fraction-cap", NULL, "pytorch|normalised", \
	    (void)0, fraction_cap, fraction_cap, REC_NONE, 1, \
	    "how a fraction is read as bytes (see below)") \
	X(torch, "--torch", NULL, "VERSION", \
	    (void)0, torch, none, REC_NONE, 0, \
	    "whose partitioner the cap follows: 2.6 or 2.14") \
	X(peak_budget, "--peak-budget", NULL, "B", \
	    o->peak_budget = -1, peak_budget, peak_budget, \
	    REC_INT("peak_budget_bytes", ILP, o->peak_budget), 1, \
	    "simulated peak at most B bytes (runtime objective)") \
	X(time_budget, "--time-budget", NULL, "T", \
	    (o->time_budget_us = -1, o->time_budget_fraction = -1), time_budget, none, \
	    REC_NUM_OR_NUM("time_budget_us", "time_budget_pytorch_fraction", ILP, \
	    o->time_budget_us, o->time_budget_us >= 0 ? -1 : o->time_budget_fraction), 1, \
	    "least saved bytes with recompute time <= T (below)") \
	X(out_of_reach, "--out-of-reach", NULL, "least|fail", \
	    (void)0, out_of_reach, none, REC_NONE, 1, \
	    "a budget out of reach: least partition, or exit 3") \
	X(strict_budget, "--strict-budget", NULL, NULL, \
	    (void)0, strict_budget, none, REC_NONE, 1, \
	    "the same as --out-of-reach fail") \
	X(offload, "--offload", NULL, "tags|none|free", \
	    o->offload = ILP_OFFLOAD_TAGS, offload, offload, \
	    REC_STR("offload", ALL, 8, o->offload != ILP_OFFLOAD_TAGS ? \
	    ilp_offload_name(o->offload) : ""), 1, \
	    "free: saved values may be offloaded to host memory") \
	X(offload_bw, "--offload-bw", NULL, "BYTES_PER_S", \
	    o->offload_bw = -1, offload_bw, none, \
	    REC_NUM("offload_bw", ALL, >, o->offload != ILP_OFFLOAD_FREE ? -1 : \
	    o->offload_bw > 0 ? o->offload_bw : ilpi_device_host_bw(&o->device)), 1, \
	    "host link of the transfer model (default: the device's)") \
	X(rng_replay, "--rng-replay", NULL, "auto|yes|no", \
	    (void)0, rng_replay, none, \
	    REC_STR("rng_replay", ILP, 8, o->rng_replay == ILP_RNG_REPLAY_ALWAYS ? "yes" : \
	    o->rng_replay == ILP_RNG_REPLAY_NEVER ? "no" : ""), 1, \
	    "recompute random ops by replaying their RNG state") \
	X(prefer, "--prefer", NULL, "hard|pytorch|soft", \
	    o->prefer = ILP_PREFER_HARD, sac, none, \
	    REC_STR("prefer", ALL, 16, ilp_prefer_name(o->prefer)), 1, \
	    "how PREFER_* tags bind (default hard)") \
	X(bans, "--bans", NULL, "pytorch|none", \
	    o->bans = ILP_BANS_PYTORCH, sac, none, \
	    REC_STR("bans", ALL, 16, ilp_bans_name(o->bans)), 1, \
	    "PyTorch's recompute bans (a budget lifts them)") \
	X(device, "--device", NULL, "h100|a100|cpu|FLOPS:BW", \
	    ilp_device_lookup(ILPI_DEVICE_DEFAULT, &o->device), device, device, \
	    REC_STR("device", ALL, 96, device_text(&o->device, tmp, sizeof tmp)), 1, \
	    "cost model (default: the graph's device, else h100)") \
	X(policy, "--policy", NULL, "FILE", \
	    (void)0, sac, none, REC_POLICY, 1, \
	    "SAC tags from a policy file (docs/policies.md)") \
	X(time_limit, "--time-limit", NULL, "S", \
	    (void)0, time_limit, time_limit, \
	    REC_NUM("time_limit", ILP, >, o->time_limit > 0 ? o->time_limit : -1), 0, \
	    "stop after S seconds with the best partition found (default 60)") \
	X(gap, "--gap", NULL, "G", \
	    (void)0, gap, gap, REC_NUM("gap", ILP, >, o->gap > 0 ? o->gap : -1), 1, \
	    "stop at a proven relative gap G (default 0)") \
	X(monolithic, "--monolithic", NULL, NULL, \
	    (void)0, monolithic, none, REC_NONE, 1, \
	    "never decompose along repeated blocks") \
	X(write_lp, "--write-lp", NULL, "F", \
	    (void)0, write_lp, none, REC_NONE, 0, \
	    "write the model in CPLEX LP format to F") \
	X(write_mps, "--write-mps", NULL, "F", \
	    (void)0, write_mps, none, REC_NONE, 0, \
	    "write the model in free MPS format to F") \
	X(verbose, "--verbose", "-v", NULL, \
	    (void)0, verbose, none, REC_NONE, 0, \
	    "GLPK's progress on stderr")

/* ILPI_OPT_objective, ...: a row's index (its slot in ilpi_run_options). */
enum {
#define ILPI_OPT_ENUM_(id, ...) ILPI_OPT_##id,
	ILPI_SOLVE_OPTIONS(ILPI_OPT_ENUM_)
#undef ILPI_OPT_ENUM_
	ILPI_OPT_COUNT
};

#endif /* ILPART_GRAPH_SOLVE_OPTIONS_H */
