/* main.c - `ilpart COMMAND ...`: dispatch and the helpers every command shares. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#ifdef ILPART_FAULT_INJECTION
#include "solver/model/glpk_env.h"
#endif

#define SAC_OPTS "[--policy FILE] [--prefer hard|pytorch|soft] [--bans pytorch|none]"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
	const char *synopsis;
	const char *details;   /* option notes for COMMAND --help, or "" */
} commands[] = {
	{ "solve", cmd_solve, "optimal partition by ILP (GLPK)",
	    NULL, /* the synopsis and option lines: the table (cli/solve_opts.c) */
	    "\nB is bytes (1024, 512MiB, 2GB) or a fraction written with a decimal point (0.3),\n"
	    "torch's activation_memory_budget: 0.0 = the inputs' bytes, 1.0 = what torch's\n"
	    "min-cut saves. A budget lifts PyTorch's bans as its budget path does.\n"
	    "--fraction-cap pytorch (default): a fraction's bytes are also capped at what\n"
	    "PyTorch's own partition at F saves when it obeys the rules, so the optimum\n"
	    "dominates it; normalised: torch's normalisation alone. --torch: whose\n"
	    "partitioner that is (2.6 or 2.14; default the graph's meta.torch, else 2.14).\n"
	    "--rng-replay (default auto: with a budget). Budgeted solves decompose along\n"
	    "repeated blocks when the graph allows. docs/solver.md.\n"
	    "--objective peak: least simulated peak memory, then least recompute time;\n"
	    "--peak-budget B (runtime objective): simulated peak <= B bytes. docs/solver.md\n"
	    "\"Peak memory\".\n"
	    "--time-budget T: least saved bytes with recompute time <= T, then least\n"
	    "recompute; T is seconds (0.0025, 2.5ms, 40us) or pytorch:F, the recompute time\n"
	    "of PyTorch's own partition at activation_memory_budget F.\n"
	    "A budget out of reach of every partition that obeys the tags: --out-of-reach\n"
	    "least answers with the least-bytes partition (a time budget: least recompute)\n"
	    "and a warning, fail exits 3. Default: least for a fraction and pytorch:F, fail\n"
	    "for bytes and seconds; --strict-budget is --out-of-reach fail.\n"
	    "docs/solver.md \"Budgets out of reach\", \"Time budgets\".\n"
	    "--offload free: each saved value may be offloaded to host memory (the memory\n"
	    "and runtime objectives: saved bytes are the device's, recompute time adds the\n"
	    "transfer time the compute cannot hide); MUST_CPU_OFFLOAD values are offloaded\n"
	    "when saved. tags (default) and none: nothing offloaded. --offload-bw: the host\n"
	    "link (default: the device's, 25e9 for h100). docs/solver.md \"Offload\".\n" },
	{ "mincut", cmd_mincut, "PyTorch's min-cut heuristic (torch 2.6 or 2.14 rules)",
	    "GRAPH [-o PARTITION] [--memory-budget F] [--torch VERSION] [--config NAME=VALUE]...\n"
	    "    [--device D] [--explain] [--no-check] " SAC_OPTS,
	    "  --torch     whose partitioner: 2.6 or 2.14 (another version: the nearest;\n"
	    "              default: the graph's meta.torch, else the newest, 2.14)\n"
	    "  --prefer    how PREFER_* tags bind (default pytorch: PREFER_RECOMPUTE binds,\n"
	    "              PREFER_SAVE does not; hard: both bind; soft: neither)\n"
	    "  --bans none clears the five ban_recompute_* switches\n"
	    "  --config    a torch._functorch.config switch: ban_recompute_used_far_apart,\n"
	    "              ban_recompute_long_fusible_chains, ban_recompute_materialized_backward,\n"
	    "              ban_recompute_not_in_allowlist, ban_recompute_reductions,\n"
	    "              recompute_views, aggressive_recomputation, max_dist_from_bw,\n"
	    "              unsafe_allow_optimization_of_collectives,\n"
	    "              treat_parameters_as_free_to_save (default: on with 2.14's rules),\n"
	    "              activation_memory_budget, activation_memory_budget_solver\n"
	    "              (dp, greedy, ilp, dp_knapsack_sliding_hirschberg),\n"
	    "              activation_memory_budget_runtime_estimator\n"
	    "              (flops, testing, profile: the graph's time_us)\n"
	    "  --memory-budget F  torch's budget path at F; --config activation_memory_budget=F\n"
	    "              is torch's config, which a node's memory_budget overrides\n"
	    "  --explain   print each node's weight, ban and decision instead of the partition\n"
	    "  --no-check  print the partition even when ilpart's checker rejects it\n"
	    "docs/mincut.md.\n" },
	{ "check", cmd_check, "prove a partition executable and SAC-clean",
	    "GRAPH PARTITION " SAC_OPTS,
	    "Without --prefer, the mode recorded in the partition's producer. docs/partition.md.\n" },
	{ "split", cmd_split, "the forward and backward graphs of a partition",
	    "GRAPH PARTITION [--format json|text|dot] [--detail full|summary] [-o FILE]\n"
	    "    [--policy FILE]",
	    "The partition must pass the checker first. --format dot of a graph of more\n"
	    "than 200 nodes is a summary (regions of consecutive ops, the saved values\n"
	    "between them) that dot lays out in seconds; --detail full draws every node.\n"
	    "docs/partition.md.\n" },
	{ "compare", cmd_compare, "ILP optimum vs min-cut vs PyTorch vs save-all",
	    "GRAPH [--memory-budget B] [--fraction-cap pytorch|normalised] [--peak] [--json]\n"
	    "    [--torch VERSION] [--device D] [--time-limit S] [--no-times]\n"
	    "    [--out-of-reach least|fail] [--strict-budget] [--offload free] [--offload-bw B]\n"
	    "    " SAC_OPTS,
	    "--offload free adds the ILP row solved with offload (docs/solver.md \"Offload\")\n"
	    "and says per row what is offloaded and the transfer time exposed.\n"
	    "Rows: the ILP optimum (least saved bytes; with --memory-budget, least recompute\n"
	    "time within B bytes), ilpart's min-cut (the rules of the graph's torch, 2.6 or\n"
	    "2.14, or of --torch VERSION; tags read as torch does), each reference partition\n"
	    "of the graph file, and save-everything-needed.\n"
	    "SAC is ilp_check's verdict in the --prefer mode (default hard). B is bytes\n"
	    "(1024, 512MiB, 2GB) or a fraction (0.3), as for solve. --no-times hides solve\n"
	    "times (for golden tests). D: " CLI_DEVICE_HELP ".\n"
	    "peak_bytes is the simulated peak (docs/partition.md \"Peak memory\"). --peak adds\n"
	    "the least-peak row and where it differs from the saved-bytes optimum.\n"
	    "--out-of-reach, --strict-budget: as for solve (a budget the tags put out of\n"
	    "reach: the least-bytes row with a note, or the conflict).\n" },
	{ "pareto", cmd_pareto, "memory budget against optimal recompute cost",
	    "GRAPH [--points N | --budgets B,B...] [--fraction-cap pytorch|normalised]\n"
	    "    [--torch VERSION] [--axis saved|peak] [-o FILE] [--json] [--device D]\n"
	    "    [--time-limit S] [--solve-each] [--offload free] [--offload-bw B] " SAC_OPTS,
	    "N budgets (default 10, at least 2) evenly spaced from the least feasible saved\n"
	    "bytes to the saved bytes of the runtime optimum, or the --budgets given (bytes\n"
	    "or fractions, as solve --memory-budget reads them); for each, the ILP's least\n"
	    "recompute time, as solve gives it: read off one combined front when the model\n"
	    "decomposes along repeated blocks, else one solve per budget (--solve-each:\n"
	    "always, as before the front; for comparison). Rows of kind\n"
	    "mincut, reference and save-all place the other\n"
	    "partitions on the same axes (a min-cut that refuses the graph is left out,\n"
	    "with a warning). Plot: python3 -m ilpart.plot FILE -o out.png (the axis\n"
	    "column says which budget the rows bound; the plot labels its x axis by it).\n"
	    "--axis peak: the budgets bound the simulated peak instead (from the least peak\n"
	    "to the runtime optimum's); every row has peak_bytes.\n"
	    "--time-limit: each solve's, not the sweep's (--axis peak: one solve a point).\n"
	    "--offload free: a second ILP curve (kind ilp-offload) at the same budgets, each\n"
	    "saved value allowed on the host (the saved axis: the device's saved bytes), one\n"
	    "solve per budget; a column offloaded_bytes says what each row offloads.\n" },
	{ "timeline", cmd_timeline, "live bytes at every step, the peak and what is live there",
	    "GRAPH [PART...] [--csv FILE] [--top N] [--memory-budget B]\n"
	    "    [--fraction-cap pytorch|normalised] [--device D] [--time-limit S]\n"
	    "    [--offload tags|none|free] [--offload-bw B]\n"
	    "    " SAC_OPTS,
	    "PART is a partition file or one of: ilp (the saved-bytes optimum; with\n"
	    "--memory-budget, least recompute time within B), peak (least simulated peak),\n"
	    "mincut, refs (every reference partition the graph records; with a fraction,\n"
	    "those at it), ref:NAME, save-all. Default: ilp mincut refs. A file called like\n"
	    "a keyword: ./ilp. Per partition: the simulated peak (what check prints), its\n"
	    "step, and the --top N (default 5) values live there, largest first.\n"
	    "--csv FILE: one row a step (forward 1.., backward 0 = its start, 1..), one\n"
	    "column of live bytes per partition. Picture: python3 -m ilpart.plot timeline\n"
	    "FILE -o out.svg. docs/partition.md \"Memory timeline\".\n" },
	{ "info", cmd_info, "validate and classify a joint graph", "GRAPH [--blocks]\n    " SAC_OPTS,
	    "Prints node counts per class, the boundary the partition must cover, and the\n"
	    "graph's fingerprint (independent of node names and order; docs/format.md).\n"
	    "--blocks: the repeated blocks a budgeted solve decomposes into (docs/solver.md):\n"
	    "segments, distinct classes, and each class's interface (entry and exit state).\n" },
	{ "batch", cmd_batch, "solve the pending graphs of a partition store",
	    "DIR [--time-limit S] [-j N] [--shard I/N] [--retry] [--force] [--dry-run]\n"
	    "    [--no-times]",
	    "Solves every entry of the store DIR (ilpart.backend(store=DIR) records them) that\n"
	    "has no proven-optimal partition yet, with the options recorded for it, and stores\n"
	    "the answer unless the stored one is better. One progress line per entry.\n"
	    "  -j N         N solves in parallel processes\n"
	    "  --shard I/N  only the entries of shard I (0 <= I < N), for job arrays\n"
	    "  --retry      also entries that failed before (conflict, bad input)\n"
	    "  --force      also entries already proven optimal (kept unless bettered)\n"
	    "  --dry-run    print what would be solved\n"
	    "docs/python.md \"Partition store\".\n" },
	{ "remap", cmd_remap, "carry a partition onto the same graph under other names",
	    "FROM_GRAPH PARTITION GRAPH [-o OUT] " SAC_OPTS,
	    "PARTITION was made for FROM_GRAPH; GRAPH has the same fingerprint (ilpart info)\n"
	    "but other node names or another order. The result is checked on GRAPH (with\n"
	    "--policy applied, in the partition's --prefer mode unless given).\n" },
};

int
cli_exit_code(ilp_error_kind kind)
{
	switch (kind) {
	case ILP_ERR_NONE:
		return CLI_OK;
	case ILP_ERR_VIOLATION:
		return CLI_VIOLATION;
	case ILP_ERR_CONFLICT:
		return CLI_CONFLICT;
	case ILP_ERR_SOLVER:
		return CLI_SOLVER;
	case ILP_ERR_INPUT:
	case ILP_ERR_SYSTEM:
		break;
	}
	return CLI_INPUT;
}

int
cli_fail(const ilp_error *err)
{
	fprintf(stderr, "ilpart: %s\n", err->msg[0] != '\0' ? err->msg : "unknown error");
	return cli_exit_code(err->kind);
}

int
cli_fail_partition(const char *path, const ilp_error *err)
{
	ilp_error e = *err;

	if (strncmp(err->msg, "partition: ", 11) == 0)
		snprintf(e.msg, sizeof e.msg, "partition %s: %s", path, err->msg + 11);
	return cli_fail(&e);
}

int
cli_write_partition(const char *path, const ilp_graph *g, const ilp_partition *p,
    ilp_error *err)
{
	char *json = NULL;
	int rc = -1;

	if (ilp_partition_to_json(g, p, &json, err) == 0)
		rc = ilp_write_file_atomic(path, json, strlen(json), err);
	free(json);
	return rc;
}

int
cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ilpart %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see ilpart --help)\n");
	return CLI_INPUT;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: ilpart COMMAND [OPTIONS]   (ilpart COMMAND --help for its options)\n\n"
	    "commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nexit status: 0 ok, 1 check violation (check, split, timeline), 2 bad input or usage, "
	    "3 constraints conflict, 4 no solution within limits\n");
}

/* COMMAND --help. solve's synopsis and option lines come from its options' table. */
static void
help(size_t i)
{
	char synopsis[2048];

	if (commands[i].synopsis != NULL) {
		printf("usage: ilpart %s %s\n\n%s.\n%s", commands[i].name,
		    commands[i].synopsis, commands[i].summary, commands[i].details);
		return;
	}
	cli_solve_synopsis(synopsis, sizeof synopsis, "GRAPH [-o PARTITION] [--split DIR]",
	    (int)strlen("usage: ilpart solve "), 86);
	printf("usage: ilpart %s %s\n\n%s.\n", commands[i].name, synopsis,
	    commands[i].summary);
	printf("  %-24s %s\n  %-24s %s\n", "-o PARTITION",
	    "write the partition there (default: stdout)", "--split DIR",
	    "also write DIR/split.json and DIR/split.txt");
	cli_solve_option_help(stdout);
	printf("%s", commands[i].details);
}

/* A command's report printed to stdout (info, check, compare, mincut --explain, ...)
 * that did not all reach it (a full disk, a closed pipe) is an error, not exit 0 with
 * the output cut short. */
static int
stdout_flushed(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (rc == CLI_OK) {
		fprintf(stderr, "ilpart: <stdout>: write error: %s\n", strerror(errno));
		rc = CLI_INPUT;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	/* One short process: memory freed is kept for what is allocated next (no mmap per
	 * large block, no trimming of the heap), so it is not faulted in again. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	cli_self_init(argv[0]);
#ifdef ILPART_FAULT_INJECTION
	/* tests/ilpart_fault only (never the installed command): ILPART_FAULT_GLPK=N
	 * raises a GLPK error at the Nth fault point (solver/model/glpk_env.h). */
	if (getenv("ILPART_FAULT_GLPK") != NULL)
		ilpi_glpk_fault((unsigned)strtoul(getenv("ILPART_FAULT_GLPK"), NULL, 10));
#endif
	if (argc < 2) {
		usage(stderr);
		return CLI_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ilpart %s\n", ilp_version());
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		for (int k = 2; k < argc; k++)
			if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
				help(i);
				return CLI_OK;
			}
		return stdout_flushed(commands[i].run(argc - 1, argv + 1));
	}
	fprintf(stderr, "ilpart: unknown command '%s' (see ilpart --help)\n", argv[1]);
	return CLI_INPUT;
}
