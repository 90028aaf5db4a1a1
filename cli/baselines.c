/*
 * baselines.c - the partitions compare and pareto put beside the ILP optimum: ilpart's
 * min-cut (the rules of the graph's torch, or --torch's; tags read as torch reads them),
 * every reference partition
 * the graph file records, and save-everything-needed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "solver/mincut/mincut.h"

double
cli_baseline_ref_budget(const char *name)
{
	const char *s = strstr(name, "-budget-");
	char *end;
	double f;

	if (s == NULL)
		return -1;
	f = strtod(s + 8, &end);
	return *end == '\0' && end != s + 8 && f >= 0 && f <= 1 ? f : -1;
}

size_t
cli_baseline_count(const ilp_graph *g)
{
	return g->n_ref + 2;
}

int
cli_baseline(const ilp_graph *g, const ilp_solve_options *so, size_t k, const char **kind,
    char *name, size_t name_len, ilp_partition **out, ilp_error *err)
{
	ilpi_mincut_options mo;

	*out = NULL;
	if (k == 0) {
		*kind = "mincut";
		ilpi_mincut_options_init(&mo);
		ilpi_mincut_options_from_solve(&mo, so);
		if (mo.activation_memory_budget < 1)
			snprintf(name, name_len, "mincut (torch %s, budget %g)",
			    ilpi_mincut_torch_name(ilpi_mincut_torch_rules(g, &mo)),
			    mo.activation_memory_budget);
		else
			snprintf(name, name_len, "mincut (torch %s)",
			    ilpi_mincut_torch_name(ilpi_mincut_torch_rules(g, &mo)));
		mo.prefer = ILP_PREFER_PYTORCH; /* the heuristic reads the tags as torch does */
		mo.check = 0;                   /* callers report what the checker says */
		return ilpi_mincut_run(g, &mo, out, NULL, err);
	}
	if (k - 1 < g->n_ref) {
		*kind = "reference";
		snprintf(name, name_len, "ref:%s", g->ref[k - 1].name);
		return ilpi_partition_from_ref(g, k - 1, out, err);
	}
	*kind = "save-all";
	snprintf(name, name_len, "save-all");
	return ilpi_partition_save_all(g, out, err);
}
