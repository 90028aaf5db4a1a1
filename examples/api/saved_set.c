/* saved_set.c - libilpart from C: read a joint graph, solve it, check it, print what is
 * saved, then a summary line with the costs (lines starting with '#': the library's
 * version, the optimum's costs). Build against an installed ilpart:
 *     cc saved_set.c $(pkg-config --cflags --libs ilpart) -o saved_set
 *     ./saved_set examples/seed_float8_sac.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ilpart.h>

int
main(int argc, char **argv)
{
	ilp_solve_options opts;
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	ilp_partition *p = NULL;
	int rc = EXIT_FAILURE;

	if (strcmp(ilp_version(), ILPART_VERSION_STRING) != 0)
		fprintf(stderr, "saved_set: built against ilpart %s, running with %s\n",
		    ILPART_VERSION_STRING, ilp_version());
	if (argc != 2) {
		fprintf(stderr, "usage: %s GRAPH\n", argv[0]);
		return 2;
	}
	ilp_solve_options_init(&opts);
	if (ilp_graph_read_file(argv[1], &g, &err) != 0 || ilp_solve(g, &opts, &p, &err) != 0 ||
	    ilp_check(g, p, NULL, &err) != 0) {
		fprintf(stderr, "saved_set: %s\n", err.msg);
		goto out;
	}
	for (size_t i = 0; i < ilp_graph_node_count(g); i++)
		if (ilp_partition_is_saved(p, i))
			printf("%s\n", ilp_graph_node_name(g, i));
	printf("# ilpart %s\n", ilp_version());
	printf("# saved %zu values, %lld bytes; recomputed %zu ops, %.0f flops, %g us\n",
	    ilp_partition_count_saved(p), (long long)ilp_partition_saved_bytes(p),
	    ilp_partition_count_recomputed(p), ilp_partition_recompute_flops(p),
	    ilp_partition_recompute_time_us(p));
	rc = EXIT_SUCCESS;
out:
	ilp_partition_free(p);
	ilp_graph_free(g);
	return rc;
}
