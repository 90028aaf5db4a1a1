/* cmd_remap.c - `ilpart remap FROM PARTITION GRAPH [-o OUT] [--policy F] [--prefer M]`:
 * a partition made for graph FROM, carried onto GRAPH, the same graph (same fingerprint)
 * under other node names or in another file order, then checked there. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "graph/partition.h"

int
cmd_remap(int argc, char **argv)
{
	cli_policy_opts po;
	const char *files[3] = { NULL, NULL, NULL }, *output = "-";
	ilp_check_options co = { ILP_PREFER_HARD };
	ilp_error err = { 0 };
	ilp_graph *from = NULL, *to = NULL;
	ilp_partition *p = NULL, *q = NULL;
	int nfiles = 0, rc;

	cli_policy_opts_init(&po);
	for (int i = 1; i < argc; i++) {
		int pr = cli_policy_arg(&po, "remap", argc, argv, &i);

		if (pr < 0)
			return CLI_INPUT;
		if (pr > 0)
			continue;
		if (cli_opt("remap", argc, argv, &i, "-o", &output)) {
			if (output == NULL)
				return CLI_INPUT;
		} else if (cli_operand("remap", argv[i], files, 3, &nfiles) != CLI_OK) {
			return CLI_INPUT;
		}
	}
	if (nfiles != 3)
		return cli_usage("remap", "expected FROM_GRAPH, PARTITION and GRAPH");
	/* Both graphs as read: the correspondence is made before any policy retags. */
	if (ilp_graph_read_file(files[0], &from, &err) != 0 ||
	    ilp_partition_read_file(from, files[1], &p, &err) != 0 ||
	    ilp_graph_read_file(files[2], &to, &err) != 0 ||
	    ilp_partition_remap(from, p, to, &q, &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if ((rc = cli_policy_apply(&po, to)) != CLI_OK)
		goto out;
	co.prefer = po.prefer_given ? po.prefer : ilpi_partition_prefer(q);
	if (ilp_check(to, q, &co, &err) != 0) {
		rc = cli_fail_partition(files[1], &err);
		goto out;
	}
	if (cli_write_partition(output, to, q, &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = CLI_OK;
out:
	ilp_partition_free(q);
	ilp_partition_free(p);
	ilp_graph_free(to);
	ilp_graph_free(from);
	return rc;
}
