/*
 * cmd_solve.c - `ilpart solve GRAPH [-o PARTITION] [--split DIR] [OPTIONS]`: the
 * optimal partition by ILP (solver/), checked, as JSON. The options are the table's
 * (graph/solve_options.h, parsed by cli/solve_opts.c).
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
#include "graph/solve_options.h"
#include "graph/fileio.h"
#include "graph/lower.h"

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

static int
parse_args(int argc, char **argv, ilp_solve_options *o, cli_policy_opts *po,
    const char **graph, const char **output, const char **split)
{
	int have_objective = 0, n_graph = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int pr, row;

		if ((pr = cli_policy_arg(po, "solve", argc, argv, &i)) != 0) {
			if (pr < 0)
				return -1;
			continue;
		}
		if ((row = cli_solve_opt("solve", argc, argv, &i, o)) != 0) {
			if (row < 0)
				return -1;
			have_objective |= row == ILPI_OPT_objective + 1;
			continue;
		}
		if (cli_opt("solve", argc, argv, &i, "-o", &v)) {
			if (v == NULL)
				return -1;
			*output = v;
		} else if (cli_opt("solve", argc, argv, &i, "--split", &v)) {
			if (v == NULL)
				return -1;
			*split = v;
		} else if (cli_operand("solve", a, graph, 1, &n_graph) != CLI_OK) {
			return -1;
		}
	}
	if (*graph == NULL) {
		char line[1024];

		cli_solve_synopsis(line, sizeof line, "GRAPH [-o PARTITION] [--split DIR]", 0, 0);
		return cli_usage("solve", "expected GRAPH; usage: ilpart solve %s", line), -1;
	}
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
