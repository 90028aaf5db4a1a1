/* cmd_split.c - `ilpart split GRAPH PARTITION [--format json|text|dot] [--detail
 * full|summary] [-o FILE]`: the forward and backward graphs of a checked partition
 * (graph/lower.c, graph/render.c). DOT of a graph above DOT_FULL_MAX nodes is summarised
 * (regions and the saved values between them) unless --detail full: Graphviz takes
 * minutes on a thousand-node graph. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/fileio.h"
#include "graph/graph.h"

#define DOT_FULL_MAX 200

static int
parse_format(const char *s, ilp_split_format *out)
{
	if (strcmp(s, "json") == 0)
		*out = ILP_SPLIT_JSON;
	else if (strcmp(s, "text") == 0)
		*out = ILP_SPLIT_TEXT;
	else if (strcmp(s, "dot") == 0)
		*out = ILP_SPLIT_DOT;
	else
		return -1;
	return 0;
}

int
cmd_split(int argc, char **argv)
{
	cli_policy_opts po;
	const char *files[2] = { NULL, NULL }, *format = "text", *output = "-", *v;
	const char *detail = NULL;
	ilp_split_format fmt = ILP_SPLIT_TEXT;
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	ilp_partition *p = NULL;
	char *text = NULL;
	int nfiles = 0, rc;

	cli_policy_opts_init(&po);
	for (int i = 1; i < argc; i++) {
		int pr = cli_policy_arg(&po, "split", argc, argv, &i);

		if (pr < 0)
			return CLI_INPUT;
		if (pr > 0) {
			/* The partition records the prefer mode it was made under. */
			if (po.prefer_given || po.bans != ILP_BANS_PYTORCH)
				return cli_usage("split", "only --policy applies to split");
			continue;
		}
		if (cli_opt("split", argc, argv, &i, "--format", &v)) {
			if ((format = v) == NULL)
				return CLI_INPUT;
		} else if (cli_opt("split", argc, argv, &i, "--detail", &v)) {
			if ((detail = v) == NULL)
				return CLI_INPUT;
			if (strcmp(v, "full") != 0 && strcmp(v, "summary") != 0)
				return cli_usage("split", "--detail: expected full or summary, "
				    "not '%s'", v);
		} else if (cli_opt("split", argc, argv, &i, "-o", &v)) {
			if ((output = v) == NULL)
				return CLI_INPUT;
		} else if (cli_operand("split", argv[i], files, 2, &nfiles) != CLI_OK) {
			return CLI_INPUT;
		}
	}
	if (nfiles != 2)
		return cli_usage("split", "expected GRAPH and PARTITION");
	if (parse_format(format, &fmt) != 0)
		return cli_usage("split", "--format: expected json, text or dot, not '%s'",
		    format);
	if (detail != NULL && fmt != ILP_SPLIT_DOT)
		return cli_usage("split", "--detail: only with --format dot");
	if ((rc = cli_read_graph(files[0], &po, &g)) != CLI_OK)
		return rc;
	if (fmt == ILP_SPLIT_DOT && (detail != NULL ? strcmp(detail, "summary") == 0 :
	    g->n > DOT_FULL_MAX))
		fmt = ILP_SPLIT_DOT_SUMMARY;
	if (ilp_partition_read_file(g, files[1], &p, &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (ilp_split_render(g, p, fmt, &text, &err) != 0) {
		rc = cli_fail_partition(files[1], &err);
		goto out;
	}
	if (ilp_write_file_atomic(output, text, strlen(text), &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = CLI_OK;
out:
	free(text);
	ilp_partition_free(p);
	ilp_graph_free(g);
	return rc;
}
