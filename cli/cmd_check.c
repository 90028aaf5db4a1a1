/* cmd_check.c - `ilpart check GRAPH PARTITION [--prefer hard|pytorch|soft]`: prove a
 * partition executable and SAC-clean with the independent checker (graph/check.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "graph/partition.h"

int
cmd_check(int argc, char **argv)
{
	cli_policy_opts po;
	const char *files[2] = { NULL, NULL };
	ilp_check_options co = { ILP_PREFER_HARD };
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	ilp_partition *p = NULL;
	ilp_peak pk;
	int nfiles = 0, rc;

	cli_policy_opts_init(&po);
	for (int i = 1; i < argc; i++) {
		int pr = cli_policy_arg(&po, "check", argc, argv, &i);

		if (pr < 0)
			return CLI_INPUT;
		if (pr > 0)
			continue;
		if (cli_operand("check", argv[i], files, 2, &nfiles) != CLI_OK)
			return CLI_INPUT;
	}
	if (nfiles != 2)
		return cli_usage("check", "expected GRAPH and PARTITION");
	/* The policy retags g before the partition is checked against the tags. */
	if ((rc = cli_read_graph(files[0], &po, &g)) != CLI_OK)
		return rc;
	if (ilp_partition_read_file(g, files[1], &p, &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	/* Without --prefer, the mode the partition says it was made under. */
	co.prefer = po.prefer_given ? po.prefer : ilpi_partition_prefer(p);
	if (ilp_check(g, p, &co, &err) != 0) {
		rc = cli_fail_partition(files[1], &err);
		goto out;
	}
	printf("ok: %zu saved (%lld bytes), %zu recomputed",
	    ilpi_partition_count(p, ILPI_P_SAVED), (long long)ilpi_partition_saved_bytes(g, p),
	    ilpi_partition_count(p, ILPI_P_RECOMPUTED));
	/* The peak needs the lowering, which checks in the partition's own mode. */
	if (ilp_partition_peak(g, p, &pk, &err) == 0 && pk.offloaded_bytes > 0)
		printf("; peak %lld bytes (%s); offloaded %zu (%lld bytes), transfer time "
		    "exposed %.6g us\n", (long long)pk.peak_bytes, cli_peak_where(g, &pk),
		    ilpi_partition_count(p, ILPI_P_OFFLOADED), (long long)pk.offloaded_bytes,
		    pk.exposed_us);
	else if (err.kind == ILP_ERR_NONE)
		printf("; peak %lld bytes (%s)\n", (long long)pk.peak_bytes, cli_peak_where(g, &pk));
	else
		printf("; peak -\n");
	rc = CLI_OK;
out:
	ilp_partition_free(p);
	ilp_graph_free(g);
	return rc;
}
