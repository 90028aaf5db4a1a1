/* cli.h - the ilpart command: subcommands and shared helpers. Only cli/ prints. */
#ifndef ILPART_CLI_CLI_H
#define ILPART_CLI_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "ilpart.h"

/* Exit statuses, documented in `ilpart --help` (cli/main.c) and README.md "Commands". */
enum {
	CLI_OK = 0,
	CLI_VIOLATION = 1, /* check found a violation */
	CLI_INPUT = 2,     /* bad input, bad usage, I/O */
	CLI_CONFLICT = 3,  /* constraints cannot all hold */
	CLI_SOLVER = 4     /* no solution within limits */
};

int cmd_solve(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_mincut(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_pareto(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_remap(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_timeline(int argc, char **argv);

/* Prints "ilpart: MSG" on stderr and returns the exit status for err->kind. */
int cli_fail(const ilp_error *err);
/* Prints a usage error for `cmd` and returns CLI_INPUT. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_exit_code(ilp_error_kind kind);
/* This program's path (cli/self.c): /proc/self/exe, else argv[0] as given to
 * cli_self_init (a path, or found on PATH), made absolute. 0, or -1 when not found. */
void cli_self_init(const char *argv0);
int cli_self_path(char *buf, size_t size);

/* ---- option values (cli/options.c): 0 or -1 when malformed ---------------------- */
#define CLI_BUDGET_HELP "bytes (1024, 512MiB, 2GB) or a fraction in [0, 1] written with " \
	"a decimal point (0.3)"
#define CLI_DEVICE_HELP "h100, a100, cpu or FLOPS:BYTES_PER_S (989e12:3.35e12)"
/* strtod that rejects empty, out-of-range and non-finite numbers; *end after it. */
int cli_parse_number(const char *s, double *out, const char **end);
/* CLI_BUDGET_HELP: *bytes (and *fraction = -1) or *fraction (and *bytes = -1). */
int cli_parse_budget(const char *s, int64_t *bytes, double *fraction);
int cli_parse_device(const char *s, ilp_device *dev);

/* ---- the option scanner every command uses (cli/options.c) ---------------------- */
/* argv[*i] is option `name`, as "NAME VALUE" or "NAME=VALUE": 1 with *v the value and
 * *i advanced past it, or 1 with *v = NULL after printing "NAME needs a value" (the
 * caller returns CLI_INPUT). Any other argument: 0. */
int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **v);
/* An argument that is no known option: the next of `max` operands (files[(*n)++]), or
 * the usage error for an unknown option or one operand too many. CLI_OK or CLI_INPUT. */
int cli_operand(const char *cmd, const char *arg, const char **files, int max, int *n);
/* Values of --device, --time-limit and --memory-budget into their fields, with the one
 * usage message each has in every command. NULL `v` (cli_opt's missing value) and bad
 * values: CLI_INPUT. */
int cli_opt_device(const char *cmd, const char *v, ilp_device *dev);
int cli_opt_seconds(const char *cmd, const char *v, double *seconds);
int cli_opt_budget(const char *cmd, const char *v, int64_t *bytes, double *fraction);
/* --torch VERSION: the torch release whose partitioner min-cut reproduces
 * (ilp_solve_options.torch_version: major * 100 + minor). */
int cli_opt_torch(const char *cmd, const char *v, int *version);
/* --time-budget: seconds (2.5e-3, 2.5ms, 40us) into *us, or pytorch:F into *fraction
 * (the other set to -1). */
#define CLI_TIME_BUDGET_HELP "seconds (0.0025, 2.5ms, 40us) or pytorch:F (PyTorch's " \
	"recompute time at activation_memory_budget F)"
int cli_opt_time_budget(const char *cmd, const char *v, double *us, double *fraction);
/* --out-of-reach least|fail (ilp_solve_options.unreachable). */
int cli_opt_out_of_reach(const char *cmd, const char *v, ilp_unreachable *u);
/* The cost model's device when --device is not given: the profile of the device the
 * graph was captured on (ilp_graph_device: cpu, a100, h100), else h100. Fills *dev and
 * returns the profile's name. */
const char *cli_graph_device(const ilp_graph *g, ilp_device *dev);
/* --fraction-cap pytorch|normalised (ilp_solve_options.fraction_cap). */
int cli_opt_fraction_cap(const char *cmd, const char *v, ilp_fraction_cap *cap);

/* ---- ilpart solve's options (cli/solve_opts.c; the table: graph/solve_options.h) -- */
/* If argv[*i] is one of solve's options other than --policy, --prefer and --bans
 * (cli_policy_arg's), parses its value into o: its row + 1 (ILPI_OPT_NAME + 1), 0 when
 * argv[*i] is none of them, -1 after printing the usage error. */
int cli_solve_opt(const char *cmd, int argc, char **argv, int *i, ilp_solve_options *o);
/* 2: a partition store entry may carry option `a` with a value, 1: as a flag, 0: not. */
int cli_solve_opt_store(const char *a);
/* lead, then "[--flag ARG]" for every option into buf, wrapped before `width` columns
 * (the first line starting at column col0) with continuation lines indented (width 0:
 * one line). */
void cli_solve_synopsis(char *buf, size_t size, const char *lead, int col0, int width);
/* One line per option for --help: the flag and its help. */
void cli_solve_option_help(FILE *f);

/* ---- baselines beside the ILP optimum (cli/baselines.c) ---------------------- */
/* How many: the min-cut, each reference partition of g, save-all. */
size_t cli_baseline_count(const ilp_graph *g);
/* The activation_memory_budget a reference was recorded at ("pytorch-2.6-mincut-budget-
 * 0.3": 0.3), or -1. */
double cli_baseline_ref_budget(const char *name);
/* Baseline k (0 <= k < cli_baseline_count): its kind ("mincut", "reference",
 * "save-all"), display name, and partition (caller frees; not yet evaluated or
 * checked). */
int cli_baseline(const ilp_graph *g, const ilp_solve_options *so, size_t k, const char **kind,
    char *name, size_t name_len, ilp_partition **out, ilp_error *err);
/* The partition's canonical JSON written atomically to `path` ("-": stdout); 0 or -1
 * with err filled. */
int cli_write_partition(const char *path, const ilp_graph *g, const ilp_partition *p,
    ilp_error *err);
/* cli_fail() for a partition's error: the library says "partition: node ..."; only the
 * command knows the file, so "partition FILE: node ..." is printed. */
int cli_fail_partition(const char *path, const ilp_error *err);
/* "backward, at NODE": where the peak is (a static buffer, cli/peak.c). */
const char *cli_peak_where(const ilp_graph *g, const ilp_peak *pk);

/* ---- SAC options shared by solve, mincut, check, compare (cli/policy_opts.c) ---- */
typedef struct cli_policy_opts {
	const char *policy;      /* --policy FILE, or NULL */
	ilp_prefer_mode prefer;  /* --prefer hard|pytorch|soft (default hard) */
	int prefer_given;        /* --prefer was on the command line */
	ilp_bans bans;           /* --bans pytorch|none (default pytorch) */
} cli_policy_opts;

void cli_policy_opts_init(cli_policy_opts *o);
/* If argv[*i] is --policy/--prefer/--bans (VALUE as the next argument or after '='),
 * records it and advances *i past the value: 1. Not one of these: 0. A missing or
 * unknown value: prints the usage error for `cmd` and returns -1 (exit CLI_INPUT). */
int cli_policy_arg(cli_policy_opts *o, const char *cmd, int argc, char **argv, int *i);
/* Reads o->policy (if any) and applies it to g's tags; CLI_OK or the printed error's
 * exit status. */
int cli_policy_apply(const cli_policy_opts *o, ilp_graph *g);
/* Reads the graph at `path` and applies o->policy (if any) to its tags, before anything
 * solves or checks it: CLI_OK and *out (caller frees), or the printed error's exit
 * status and *out = NULL. */
int cli_read_graph(const char *path, const cli_policy_opts *o, ilp_graph **out);

#endif /* ILPART_CLI_CLI_H */
