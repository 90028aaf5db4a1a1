#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "tests/suites.h"
#include "tests/util.h"

START_TEST(test_minimal)
{
	ilp_graph *g = t_graph("{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": "
	    "[{\"name\": \"x\", \"kind\": \"primal\", \"shape\": [2], \"dtype\": \"f32\"}], "
	    "\"outputs\": {\"forward\": [\"x\"], \"backward\": []}}");

	ck_assert_uint_eq(ilp_graph_node_count(g), 1);
	ck_assert_int_eq(g->node[0].bytes, 8);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_graph(void)
{
	Suite *s = suite_create("graph");
	TCase *tc = tcase_create("reader");

	tcase_add_test(tc, test_minimal);
	suite_add_tcase(s, tc);
	return s;
}
