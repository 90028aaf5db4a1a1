/*
 * cmd_solve.c - `ilpart solve GRAPH [-o PARTITION] [--split DIR] [--objective O]
 * [--memory-budget B] [--fraction-cap C] [--torch V] [--alpha A] [--device D] [--time-limit S] [--gap G]
 * [--write-lp F] [--write-mps F] [-v] [--policy F] [--prefer M] [--bans M]`:
 * the optimal partition by ILP (solver/), checked, as JSON.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "solver/driver/objectives.h"
#include "graph/fileio.h"
#include "graph/lower.h"

static const char *usage_line =
    "GRAPH [-o PARTITION] [--split DIR] [--objective memory|runtime|weighted|peak] "
    "[--memory-budget B] [--fraction-cap pytorch|normalised] [--torch VERSION] "
    "[--peak-budget B] [--alpha A] "
    "[--device h100|a100|cpu|FLOPS:BW] [--time-limit S] "
    "[--gap G] [--rng-replay auto|yes|no] [--write-lp F] [--write-mps F] [--monolithic] [-v] "
    "[--policy F] "
    "[--prefer M] [--bans M] [--time-budget SECONDS|pytorch:F] [--out-of-reach least|fail] "
    "[--offload tags|none|free] [--offload-bw BYTES_PER_S] "
    "[--strict-budget]";

static void
log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "ilpart solve: %s\n", line);
}

/* An output file as it was before the command ran: a failed command removes what it
 * wrote there (a new file, or a new inode: every file is written by rename), never a
 * file it did not write. */
typedef struct out_file {
	const char *path;
	int existed;
	dev_t dev;
	ino_t ino;
} out_file;

static void
out_mark(out_file *f, const char *path)
{
	struct stat st;

	f->path = path != NULL && strcmp(path, "-") != 0 ? path : NULL;
	f->existed = f->path != NULL && stat(f->path, &st) == 0;
	f->dev = f->existed ? st.st_dev : 0;
	f->ino = f->existed ? st.st_ino : 0;
}

static void
out_undo(const out_file *f)
{
	struct stat st;

	if (f->path == NULL || stat(f->path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if (!f->existed || st.st_dev != f->dev || st.st_ino != f->ino)
		unlink(f->path);
}

/* DIR/split.json and DIR/split.txt; on failure, no file of them is left, nor DIR
 * when it was made here. */
static int
write_split(const char *dir, const ilp_graph *g, const ilp_partition *p, ilp_error *err)
{
	static const struct {
		const char *file;
		ilp_split_format fmt;
	} outs[] = { { "split.json", ILP_SPLIT_JSON }, { "split.txt", ILP_SPLIT_TEXT } };
	enum { N_OUTS = sizeof outs / sizeof outs[0] };
	char path[N_OUTS][4096];
	out_file was[N_OUTS];
	ilpi_split s;
	int rc = 0, made;

	for (size_t i = 0; i < N_OUTS; i++) {
		snprintf(path[i], sizeof path[i], "%s/%s", dir, outs[i].file);
		out_mark(&was[i], path[i]);
	}
	made = mkdir(dir, 0777) == 0;
	if (!made && errno != EEXIST) {
		snprintf(err->msg, sizeof err->msg, "%s: %s", dir, strerror(errno));
		err->kind = ILP_ERR_SYSTEM;
		return -1;
	}
	if (ilpi_lower(g, p, &s, err) != 0) {
		if (made)
			rmdir(dir);
		return -1;
	}
	for (size_t i = 0; rc == 0 && i < N_OUTS; i++) {
		char *text = NULL;

		rc = ilpi_split_render_lowered(g, p, &s, outs[i].fmt, &text, err);
		if (rc == 0)
			rc = ilp_write_file_atomic(path[i], text, strlen(text), err);
		free(text);
	}
	ilpi_split_free(&s);
	if (rc != 0) {
		for (size_t i = 0; i < N_OUTS; i++)
			out_undo(&was[i]);
		if (made)
			rmdir(dir);
	}
	return rc;
}

/* The options that take a value; parse_args dispatches on the one it found. */
static const char *const value_opts[] = { "-o", "--split", "--objective",
    "--memory-budget", "--peak-budget", "--alpha", "--device", "--time-limit", "--gap", "--rng-replay",
    "--write-lp", "--write-mps", "--fraction-cap", "--torch",
    /* budgets out of reach and the time budget (solver/driver/reach.c, time_budget.c) */
    "--time-budget", "--out-of-reach",
    /* offloading saved values to the host (docs/solver.md "Offload") */
    "--offload", "--offload-bw" };

static int
parse_args(int argc, char **argv, ilp_solve_options *o, cli_policy_opts *po,
    const char **graph, const char **output, const char **split)
{
	int have_objective = 0, n_graph = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *name = NULL, *end;
		int pr;

		if ((pr = cli_policy_arg(po, "solve", argc, argv, &i)) != 0) {
			if (pr < 0)
				return -1;
			continue;
		}
		if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o->verbose = 1;
			continue;
		}
		if (strcmp(a, "--monolithic") == 0) {
			o->monolithic = 1;
			continue;
		}
		if (strcmp(a, "--strict-budget") == 0) {
			o->unreachable = ILP_UNREACHABLE_FAIL;
			continue;
		}
		for (size_t k = 0; name == NULL && k < sizeof value_opts / sizeof *value_opts; k++)
			if (cli_opt("solve", argc, argv, &i, value_opts[k], &v))
				name = value_opts[k];
		if (name == NULL) {
			if (cli_operand("solve", a, graph, 1, &n_graph) != CLI_OK)
				return -1;
			continue;
		}
		if (v == NULL)
			return -1;
		if (strcmp(name, "-o") == 0) {
			*output = v;
		} else if (strcmp(name, "--split") == 0) {
			*split = v;
		} else if (strcmp(name, "--objective") == 0) {
			have_objective = 1;
			if (ilpi_objective_parse(v, &o->objective) != 0) {
				char list[256];

				ilpi_objective_list(list, sizeof list);
				return cli_usage("solve", "--objective: expected %s, not '%s'", list,
				    v), -1;
			}
		} else if (strcmp(name, "--peak-budget") == 0) {
			int64_t bytes;
			double frac;

			if (v == NULL)
				return -1;
			if (cli_parse_budget(v, &bytes, &frac) != 0 || bytes < 0)
				return cli_usage("solve", "--peak-budget: expected bytes (e.g. 512MiB), "
				    "not '%s'", v), -1;
			o->peak_budget = bytes;
		} else if (strcmp(name, "--memory-budget") == 0) {
			if (cli_opt_budget("solve", v, &o->budget_bytes, &o->budget_fraction) !=
			    CLI_OK)
				return -1;
		} else if (strcmp(name, "--alpha") == 0) {
			if (cli_parse_number(v, &o->alpha, &end) != 0 || *end != '\0' || o->alpha < 0)
				return cli_usage("solve", "--alpha: expected a number >= 0, not '%s'",
				    v), -1;
		} else if (strcmp(name, "--device") == 0) {
			if (cli_opt_device("solve", v, &o->device) != CLI_OK)
				return -1;
		} else if (strcmp(name, "--time-limit") == 0) {
			if (cli_opt_seconds("solve", v, &o->time_limit) != CLI_OK)
				return -1;
		} else if (strcmp(name, "--gap") == 0) {
			if (cli_parse_number(v, &o->gap, &end) != 0 || *end != '\0' || o->gap < 0)
				return cli_usage("solve", "--gap: expected a relative gap >= 0, not "
				    "'%s'", v), -1;
		} else if (strcmp(name, "--rng-replay") == 0) {
			if (strcmp(v, "auto") == 0)
				o->rng_replay = ILP_RNG_REPLAY_AUTO;
			else if (strcmp(v, "yes") == 0)
				o->rng_replay = ILP_RNG_REPLAY_ALWAYS;
			else if (strcmp(v, "no") == 0)
				o->rng_replay = ILP_RNG_REPLAY_NEVER;
			else
				return cli_usage("solve", "--rng-replay: expected auto, yes or no, "
				    "not '%s'", v), -1;
		} else if (strcmp(name, "--fraction-cap") == 0) {
			if (cli_opt_fraction_cap("solve", v, &o->fraction_cap) != CLI_OK)
				return -1;
		} else if (strcmp(name, "--torch") == 0) {
			if (cli_opt_torch("solve", v, &o->torch_version) != CLI_OK)
				return -1;
		} else if (strcmp(name, "--time-budget") == 0) {
			if (cli_opt_time_budget("solve", v, &o->time_budget_us,
			    &o->time_budget_fraction) != CLI_OK)
				return -1;
		} else if (strcmp(name, "--out-of-reach") == 0) {
			if (cli_opt_out_of_reach("solve", v, &o->unreachable) != CLI_OK)
				return -1;
		} else if (strcmp(name, "--offload") == 0) {
			if (ilp_offload_parse(v, &o->offload, NULL) != 0)
				return cli_usage("solve", "--offload: expected tags, none or free, "
				    "not '%s'", v), -1;
		} else if (strcmp(name, "--offload-bw") == 0) {
			if (cli_parse_number(v, &o->offload_bw, &end) != 0 || *end != '\0' ||
			    !(o->offload_bw > 0))
				return cli_usage("solve", "--offload-bw: expected bytes per second "
				    "> 0 (e.g. 25e9), not '%s'", v), -1;
		} else if (strcmp(name, "--write-lp") == 0) {
			o->write_lp = v;
		} else {
			o->write_mps = v;
		}
	}
	if (*graph == NULL)
		return cli_usage("solve", "expected GRAPH; usage: ilpart solve %s", usage_line),
		    -1;
	/* A budget only means something to the runtime objective. */
	if (!have_objective && (o->budget_bytes >= 0 || o->budget_fraction >= 0 ||
	    o->peak_budget >= 0))
		o->objective = ILP_OBJ_RUNTIME;
	if (o->objective == ILP_OBJ_WEIGHTED && o->alpha == 0 && o->verbose)
		fprintf(stderr, "ilpart solve: --alpha 0: recomputation is free\n");
	o->prefer = po->prefer;
	o->bans = po->bans;
	return 0;
}

int
cmd_solve(int argc, char **argv)
{
	const char *graph = NULL, *output = "-", *split = NULL;
	ilp_solve_options o;
	cli_policy_opts po;
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	ilp_partition *p = NULL;
	out_file was_out, was_lp, was_mps;
	int rc;

	ilp_solve_options_init(&o);
	cli_policy_opts_init(&po);
	o.log = log_line;
	o.device.peak_flops = 0; /* not given: the graph's own device below */
	if (parse_args(argc, argv, &o, &po, &graph, &output, &split) != 0)
		return CLI_INPUT;
	if ((rc = cli_read_graph(graph, &po, &g)) != CLI_OK)
		return rc;
	if (o.device.peak_flops == 0)
		cli_graph_device(g, &o.device);
	out_mark(&was_out, output);
	out_mark(&was_lp, o.write_lp);
	out_mark(&was_mps, o.write_mps);
	if (ilp_solve(g, &o, &p, &err) != 0 || cli_write_partition(output, g, p, &err) != 0 ||
	    (split != NULL && write_split(split, g, p, &err) != 0)) {
		/* No output of a failed command: the model files written before the solve
		 * failed, and the partition when the split could not be written, go too. */
		out_undo(&was_out);
		out_undo(&was_lp);
		out_undo(&was_mps);
		rc = cli_fail(&err);
		goto out;
	}
	/* a budget out of reach, answered with the least (solver/driver/reach.c) */
	if (ilp_partition_note(p)[0] != '\0')
		fprintf(stderr, "ilpart: warning: %s\n", ilp_partition_note(p));
	rc = CLI_OK;
out:
	ilp_partition_free(p);
	ilp_graph_free(g);
	return rc;
}
