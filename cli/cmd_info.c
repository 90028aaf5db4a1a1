/* cmd_info.c - `ilpart info GRAPH [--blocks]`: validate, classify, and summarise a joint
 * graph; --blocks adds the decomposition a budgeted solve would use (solver/blocks/blocks.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "solver/driver/decomp.h"

int
cmd_info(int argc, char **argv)
{
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	int64_t boundary_bytes = 0;
	size_t boundary = 0;
	const char *path = NULL;
	int blocks = 0, n_graph = 0, rc;
	cli_policy_opts pol;

	cli_policy_opts_init(&pol);
	for (int i = 1; i < argc; i++) {
		int k = cli_policy_arg(&pol, "info", argc, argv, &i);

		if (k < 0)
			return CLI_INPUT;
		if (k > 0)
			continue;
		if (strcmp(argv[i], "--blocks") == 0)
			blocks = 1;
		else if (cli_operand("info", argv[i], &path, 1, &n_graph) != CLI_OK)
			return CLI_INPUT;
	}
	if (path == NULL)
		return cli_usage("info", "expected one GRAPH argument");
	/* the policy too: its errors and warnings, and its tags in the blocks' rules */
	if ((rc = cli_read_graph(path, &pol, &g)) != CLI_OK)
		return rc;
	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].flags & ILPI_F_BOUNDARY) {
			boundary++;
			boundary_bytes += g->node[i].bytes;
		}
	printf("%s: %zu nodes: %zu forward, %zu backward, %zu unclaimed, %zu dead\n",
	    g->path, g->n, g->counts[ILPI_FORWARD], g->counts[ILPI_BACKWARD],
	    g->counts[ILPI_UNCLAIMED], g->counts[ILPI_DEAD]);
	printf("boundary: %zu values, %lld bytes if all saved\n", boundary,
	    (long long)boundary_bytes);
	printf("fingerprint: %s\n", ilp_graph_fingerprint(g));
	if (blocks) {
		ilp_solve_options o;
		char *text = NULL;

		/* as a budgeted solve sees the graph: its rules and costs */
		ilp_solve_options_init(&o);
		o.objective = ILP_OBJ_RUNTIME;
		o.budget_bytes = INT64_MAX;
		o.prefer = pol.prefer;
		o.bans = pol.bans;
		if (ilpi_blocks_report(g, &o, &text, &err) != 0) {
			ilp_graph_free(g);
			return cli_fail(&err);
		}
		fputs(text, stdout);
		free(text);
	}
	ilp_graph_free(g);
	return CLI_OK;
}
