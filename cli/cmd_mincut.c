/* cmd_mincut.c - `ilpart mincut`: PyTorch's min-cut heuristic (the rules of the graph's
 * torch, 2.6 or 2.14, or of --torch VERSION). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "solver/mincut/mincut.h"

static int
set_config(ilpi_mincut_options *o, const char *arg)
{
	char name[128];
	const char *eq = strchr(arg, '=');

	if (eq == NULL || (size_t)(eq - arg) >= sizeof name)
		return -1;
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	return ilpi_mincut_options_set(o, name, eq + 1);
}

static void
explain(const ilp_graph *g, const ilpi_mincut_options *o, const ilp_partition *p,
    const ilpi_mincut_info *info)
{
	printf("# torch %s rules (%s)\n", ilpi_mincut_torch_name(ilpi_mincut_torch_rules(g, o)),
	    o->torch_version > 0 ? "--torch" : g->torch != NULL ? "the graph's meta.torch" :
	    "no meta.torch: the newest");
	printf("# min-cut value %.17g\n", info->cut_value);
	if (info->budget_step != NULL)
		printf("# memory budget: %s (knapsack over %zu banned nodes, %zu bans lifted)\n",
		    info->budget_step, info->knapsack_items, info->knapsack_released);
	printf("%-32s %-9s %12s %22s  %-8s %s\n", "node", "class", "dist_from_bw", "weight",
	    "decision", "ban");
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const char *dec = ilpi_saved(p, i) ? "saved" : ilpi_recomputed(p, i) ?
		    "recompute" : "";
		char w[40];

		if (n->cls == ILPI_DEAD && n->kind == ILPI_OP)
			continue;
		if (info->weight[i] < 0)
			snprintf(w, sizeof w, "%s", info->must_recompute[i] ? "-> sink" : "-");
		else
			snprintf(w, sizeof w, "%.17g", info->weight[i]);
		printf("%-32s %-9s %12lld %22s  %-8s %s\n", n->name,
		    ilpi_class_name((ilpi_class)n->cls), (long long)info->dist_from_bw[i], w,
		    dec, ilpi_mc_ban_text((ilpi_mc_ban)info->ban[i]));
	}
}

/* What the partition file records as the options that produced it. */
static void
record(ilp_partition *p, const ilp_graph *g, const ilpi_mincut_options *o, ilp_bans bans)
{
	ilp_solve_options so;

	ilp_solve_options_init(&so);
	so.prefer = o->prefer;
	so.torch_version = o->torch_version;
	so.bans = bans;
	so.device = o->device;
	ilpi_partition_record(p, g, &so);
}

int
cmd_mincut(int argc, char **argv)
{
	const char *graph = NULL, *outpath = "-";
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	cli_policy_opts pol;
	ilp_graph *g = NULL;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	int do_explain = 0, n_graph = 0, budget_given = 0, rc;

	ilpi_mincut_options_init(&o);
	o.device.peak_flops = 0; /* not given: the graph's own, once read */
	cli_policy_opts_init(&pol);
	pol.prefer = ILP_PREFER_PYTORCH; /* torch's own reading of the tags */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int k = cli_policy_arg(&pol, "mincut", argc, argv, &i);

		if (k < 0)
			return CLI_INPUT;
		if (k > 0)
			continue;
		if (cli_opt("mincut", argc, argv, &i, "-o", &v)) {
			if ((outpath = v) == NULL)
				return CLI_INPUT;
		} else if (cli_opt("mincut", argc, argv, &i, "--config", &v)) {
			if (v == NULL)
				return CLI_INPUT;
			if (set_config(&o, v) != 0)
				return cli_usage("mincut", "--config: bad setting '%s'", v);
		} else if (cli_opt("mincut", argc, argv, &i, "--torch", &v)) {
			if (cli_opt_torch("mincut", v, &o.torch_version) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt("mincut", argc, argv, &i, "--device", &v)) {
			if (cli_opt_device("mincut", v, &o.device) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt("mincut", argc, argv, &i, "--memory-budget", &v)) {
			int64_t bytes;
			double f;

			if (v == NULL)
				return CLI_INPUT;
			if (cli_parse_budget(v, &bytes, &f) != 0 || bytes >= 0)
				return cli_usage("mincut", "--memory-budget: expected a fraction "
				    "in [0, 1] written with a decimal point (torch's "
				    "activation_memory_budget), not '%s'", v);
			o.activation_memory_budget = f;
			budget_given = 1;
		} else if (strcmp(a, "--explain") == 0) {
			do_explain = 1;
		} else if (strcmp(a, "--no-check") == 0) {
			o.check = 0;
		} else if (cli_operand("mincut", a, &graph, 1, &n_graph) != CLI_OK) {
			return CLI_INPUT;
		}
	}
	if (graph == NULL)
		return cli_usage("mincut", "missing GRAPH");
	o.prefer = pol.prefer;
	if (pol.bans == ILP_BANS_NONE) {
		o.ban_recompute_used_far_apart = 0;
		o.ban_recompute_long_fusible_chains = 0;
		o.ban_recompute_materialized_backward = 0;
		o.ban_recompute_not_in_allowlist = 0;
		o.ban_recompute_reductions = 0;
	}
	if ((rc = cli_read_graph(graph, &pol, &g)) != CLI_OK)
		return rc;
	if (o.device.peak_flops == 0) /* no --device: the graph's own */
		cli_graph_device(g, &o.device);
	/* a node's memory_budget overrides torch's config, not an explicit --memory-budget */
	if (!budget_given && ilpi_mincut_budget_of_graph(g, &o) && do_explain)
		printf("# memory budget %g: node '%s' memory_budget\n", g->memory_budget,
		    g->node[g->memory_budget_node].name);
	if (ilpi_mincut_run(g, &o, &p, do_explain ? &info : NULL, &err) != 0) {
		/* torch's heuristic breaks a rule here (a SAC tag, a region end, a mutated
		 * input): no checked partition exists from min-cut, a conflict between its
		 * rules and the graph's, named by the checker (docs/mincut.md). */
		if (err.kind == ILP_ERR_VIOLATION)
			err.kind = ILP_ERR_CONFLICT;
		rc = cli_fail(&err);
		goto out;
	}
	if (do_explain) {
		explain(g, &o, p, &info);
		ilpi_mincut_info_free(&info);
		rc = CLI_OK;
		goto out;
	}
	record(p, g, &o, pol.bans);
	if (cli_write_partition(outpath, g, p, &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = CLI_OK;
out:
	ilp_partition_free(p);
	ilp_graph_free(g);
	return rc;
}
