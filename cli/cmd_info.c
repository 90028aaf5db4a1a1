/* cmd_info.c - `ilpart info GRAPH`: validate, classify, and summarise a joint graph. */
#include "config.h"

#include <stdio.h>

#include "cli/cli.h"
#include "graph/graph.h"

int
cmd_info(int argc, char **argv)
{
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	int64_t boundary_bytes = 0;
	size_t boundary = 0;

	if (argc != 2)
		return cli_usage("info", "expected one GRAPH argument");
	if (ilp_graph_read_file(argv[1], &g, &err) != 0)
		return cli_fail(&err);
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
	ilp_graph_free(g);
	return CLI_OK;
}
