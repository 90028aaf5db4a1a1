/* peak.c - how check, compare and pareto print where a partition's peak memory is. */
#include "config.h"

#include <stdio.h>

#include "cli/cli.h"

const char *
cli_peak_where(const ilp_graph *g, const ilp_peak *pk)
{
	static char buf[512];

	if (pk->node < 0)
		snprintf(buf, sizeof buf, "%s", ilp_phase_name(pk->phase));
	else
		snprintf(buf, sizeof buf, "%s, at %s", ilp_phase_name(pk->phase),
		    ilp_graph_node_name(g, (size_t)pk->node));
	return buf;
}
