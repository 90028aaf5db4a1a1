/* test_memsim.c - the memory simulator (graph/memsim.c): peaks computed by hand on
 * small graphs, the backward's autograd order, views, tuples, and the corpus. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "graph/partition.h"
#include "tests/suites.h"
#include "tests/util.h"

/* Ops all of one target (util.h's OP names it). */
#define OPF(name, inputs, b, x) OP(name, "aten.f.default", inputs, b, x)

static ilp_peak
peak_of(const ilp_graph *g, const char *saved, const char *recomputed)
{
	ilp_partition *p = t_part(g, saved, recomputed);
	ilp_error err = { 0 };
	ilp_peak pk;

	ck_assert_msg(ilp_partition_peak(g, p, &pk, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	return pk;
}

#define PEAK_AT(pk, g, bytes, name, ph) do { \
	ck_assert_int_eq((pk).peak_bytes, bytes); \
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)(pk).node), name); \
	ck_assert_int_eq((pk).phase, ph); \
} while (0)

/* x(100) -> a(10) -> b(20) -> out(40); g(40) -> gb = f(g, b) (80) -> gx = f(gb) (10). */
static ilp_graph *
chain(void)
{
	return t_graph_parts("", P("x", 100) ", " OPF("a", "'x'", 10, "") ", "
	    OPF("b", "'a'", 20, "") ", " OPF("out", "'b'", 40, "") ", " T("g", 40) ", "
	    OPF("gb", "'g', 'b'", 80, "") ", " OPF("gx", "'gb'", 10, ""), "'out'", "'gx'");
}

START_TEST(memsim_chain_by_hand)
{
	ilp_graph *g = chain();
	ilp_peak pk;

	/* Save b. Forward: a 10; b 30, a freed -> 20; out 60 (b saved, out held).
	 * Backward from b + out = 60: gb 140, b freed -> 120; gx 130. */
	pk = peak_of(g, "b", "");
	PEAK_AT(pk, g, 140, "gb", ILP_PHASE_BACKWARD);
	ck_assert_int_eq(pk.forward_peak, 60);
	ck_assert_int_eq(pk.held_bytes, 60);
	ck_assert_int_eq(pk.input_bytes, 140);

	/* Save a, recompute b. Forward: a 10; b 30; out 70, b freed -> 50.
	 * Backward from a + out = 50: b 70, a freed -> 60; gb 140 -> 120; gx 130. */
	pk = peak_of(g, "a", "b");
	PEAK_AT(pk, g, 140, "gb", ILP_PHASE_BACKWARD);
	ck_assert_int_eq(pk.forward_peak, 70);
	ck_assert_int_eq(pk.held_bytes, 50);

	/* Save x (a primal: the caller's), recompute a and b. Forward: a 10; b 30, a freed
	 * -> 20; out 60, b freed -> 40. Backward from out = 40: a 50; b 70, a freed -> 60;
	 * gb 140. */
	/* Nothing saved: the backward cannot run, so there is no peak. */
	{
		ilp_partition *p = t_part(g, "", "");
		ilp_error err = { 0 };

		ck_assert_int_eq(ilp_partition_peak(g, p, &pk, &err), -1);
		ck_assert_int_eq(err.kind, ILP_ERR_VIOLATION);
		ck_assert_str_eq(err.msg, "partition: node 'b': needed by gb, but neither saved "
		    "nor recomputed (not executable)");
		ilp_partition_free(p);
	}
	pk = peak_of(g, "x", "a b");
	ck_assert_int_eq(pk.peak_bytes, 140);
	ck_assert_int_eq(pk.forward_peak, 60);
	ck_assert_int_eq(pk.held_bytes, 40);
	ilp_graph_free(g);
}
END_TEST

/* The forward can be where the peak is: a big temporary. */
START_TEST(memsim_forward_peak)
{
	ilp_graph *g = t_graph_parts("", P("x", 8) ", " OPF("big", "'x'", 1000, "") ", "
	    OPF("out", "'big'", 4, "") ", " T("g", 4) ", " OPF("gx", "'g', 'x'", 8, ""),
	    "'out'", "'gx'");
	ilp_peak pk = peak_of(g, "x", "");

	/* big 1000; out 1004, big freed -> 4. Backward: 4 + gx 8 = 12. */
	PEAK_AT(pk, g, 1004, "out", ILP_PHASE_FORWARD);
	ck_assert_int_eq(pk.backward_peak, 12);
	ilp_graph_free(g);
}
END_TEST

/* Recomputation is placed just before its first backward use, not in graph order:
 * c (a forward op, earlier in the graph) runs after g1. */
START_TEST(memsim_autograd_order)
{
	ilp_graph *g = t_graph_parts("", P("x", 4) ", " OPF("a", "'x'", 4, "") ", "
	    OPF("c", "'x'", 100, "") ", " OPF("out", "'a', 'c'", 4, "") ", " T("g", 4) ", "
	    OPF("g1", "'g', 'a'", 50, "") ", " OPF("g2", "'g1', 'c'", 4, ""), "'out'", "'g2'");
	ilp_partition *p = t_part(g, "x a", "c");
	ilp_error err = { 0 };
	ilpi_split s;
	ilpi_memsim m;

	ck_assert_int_eq(ilpi_lower(g, p, &s, &err), 0);
	ck_assert_int_eq(ilpi_memsim_run(g, p, &s, &m, &err), 0);
	ck_assert_uint_eq(m.n_bw, 3);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)m.bw_order[0]), "g1");
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)m.bw_order[1]), "c");
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)m.bw_order[2]), "g2");
	/* Backward from a + out = 8: g1 58, a freed -> 54; c 154; g2 158. In graph order
	 * (c first) g1 would run at 162. Forward: a 4, c 104, out 108, c freed -> 8. */
	ck_assert_int_eq(m.bw_live[0], 58);
	ck_assert_int_eq(m.bw_live[1], 154);
	ck_assert_int_eq(m.bw_live[2], 158);
	PEAK_AT(m.peak, g, 158, "g2", ILP_PHASE_BACKWARD);
	ck_assert_int_eq(m.peak.forward_peak, 108);
	ilpi_memsim_free(&m);
	ilpi_split_free(&s);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* Views share their base's storage; a tuple op allocates its elements at once. */
START_TEST(memsim_views_and_tuples)
{
	ilp_graph *g = t_graph_parts("", P("x", 8) ", " OPF("a", "'x'", 64, "") ", "
	    OPF("v", "'a'", 64, ", 'view_of': 'a'") ", "
	    "{'name': 't', 'kind': 'op', 'target': 'aten.split.default', 'inputs': ['v'], "
	    "'tuple': true}, "
	    "{'name': 't0', 'kind': 'op', 'target': 'getitem', 'inputs': ['t'], 'index': 0, "
	    "'bytes': 16}, "
	    "{'name': 't1', 'kind': 'op', 'target': 'getitem', 'inputs': ['t'], 'index': 1, "
	    "'bytes': 32}, "
	    OPF("out", "'t0'", 2, "") ", " T("g", 2) ", " OPF("gx", "'g', 'v', 't1'", 8, ""),
	    "'out'", "'gx'");
	ilp_peak pk;

	/* Save v and t1. Forward: a 64; v 64 (a view); t allocates t0 and t1: 112; getitems
	 * nothing; out 114, t0 freed -> 98. Backward from v + t1 + out = 98: gx 106. */
	pk = peak_of(g, "v t1", "");
	ck_assert_int_eq(pk.forward_peak, 114);
	ck_assert_int_eq(pk.held_bytes, 98);
	ck_assert_int_eq(pk.backward_peak, 106);
	ilp_graph_free(g);
}
END_TEST

/* Every reference partition of the corpus simulates, also those that break a tag; its
 * peak is at least what the backward holds at its start. */
static long
references_simulate(const char *path, ilp_graph *g, void *tag_breakers)
{
	ilp_error err = { 0 };
	ilp_check_options soft = { ILP_PREFER_SOFT };

	for (size_t r = 0; r < g->n_ref; r++) {
		ilp_partition *p = t_ref_part(g, r);
		ilp_peak pk;

		ilpi_partition_set_producer(p, NULL, NULL, "pytorch", NULL);
		/* PyTorch's budget path recomputes MUST_SAVE values (the corpus' budget
		 * references): they break a tag but run, and memory does not care. */
		if (ilp_check(g, p, &soft, &err) != 0)
			++*(int *)tag_breakers;
		ck_assert_msg(ilp_partition_peak(g, p, &pk, &err) == 0, "%s: %s", path, err.msg);
		ck_assert_int_ge(pk.peak_bytes, pk.held_bytes);
		ck_assert_int_ge(pk.peak_bytes, pk.forward_peak);
		ck_assert_int_gt(pk.peak_bytes, 0);
		ck_assert_int_eq(pk.phase == ILP_PHASE_NONE, 0);
		ilp_partition_free(p);
	}
	return (long)g->n_ref;
}

START_TEST(memsim_corpus_references)
{
	int tag_breakers = 0;

	ck_assert_int_gt(t_each_corpus_graph(references_simulate, &tag_breakers), 10);
	ck_assert_int_gt(tag_breakers, 0);
}
END_TEST

Suite *
suite_memsim(void)
{
	Suite *s = suite_create("memsim");
	TCase *tc = tcase_create("peak");

	tcase_add_test(tc, memsim_chain_by_hand);
	tcase_add_test(tc, memsim_forward_peak);
	tcase_add_test(tc, memsim_autograd_order);
	tcase_add_test(tc, memsim_views_and_tuples);
	tcase_add_test(tc, memsim_corpus_references);
	suite_add_tcase(s, tc);
	return s;
}
