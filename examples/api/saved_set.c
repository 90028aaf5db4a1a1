/* saved_set.c - libilpart from C: read a joint graph, solve it, check it, print what is
 * saved. Build against an installed ilpart:
 *     cc saved_set.c $(pkg-config --cflags --libs ilpart) -o saved_set
 *     ./saved_set examples/seed_float8_sac.json
 */
#include <stdio.h>
#include <stdlib.h>

#include <ilpart.h>

int
main(int argc, char **argv)
{
	ilp_solve_options opts;
	ilp_error err = { 0 };
	ilp_graph *g = NULL;
	ilp_partition *p = NULL;
	int rc = EXIT_FAILURE;

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
	rc = EXIT_SUCCESS;
out:
	ilp_partition_free(p);
	ilp_graph_free(g);
	return rc;
}
