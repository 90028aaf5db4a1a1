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

/* A symbolic scalar (a SymInt: a size given as an input, arithmetic on it) is a Python
 * number when the graphs run: it holds no memory, saved, recomputed or live, though
 * saving it is charged its 8 bytes. Measured: transformers' SwitchTransformers compiled
 * with dynamic shapes simulated 8 bytes above the allocator's peak while a saved
 * `operator.mul` of sizes was counted. */
START_TEST(memsim_symbolic_scalars_hold_no_memory)
{
	ilp_graph *g = t_graph_parts("", P("x", 100) ", "
	    "{'name': 's', 'kind': 'primal', 'sym': 'int'}, "
	    "{'name': 'm', 'kind': 'op', 'target': 'operator.mul', 'inputs': ['s'], "
	    "'sym': 'int'}, " OPF("a", "'x', 'm'", 10, "") ", " OPF("out", "'a'", 40, "") ", "
	    T("g", 40) ", " OPF("ga", "'g', 'a', 'm'", 80, "") ", " OPF("gx", "'ga', 'm'", 10, ""),
	    "'out'", "'gx', null");
	ilp_peak pk;

	/* Save a and m. Forward: a 10; out 50 (a saved, out held). Backward from a + out =
	 * 50: ga 130, a freed -> 120; gx 130. m counts nowhere. */
	pk = peak_of(g, "a m", "");
	ck_assert_int_eq(pk.forward_peak, 50);
	ck_assert_int_eq(pk.peak_bytes, 130);
	ck_assert_int_eq(pk.held_bytes, 50);
	/* Recompute m in the backward from s instead: the same. */
	pk = peak_of(g, "a s", "m");
	ck_assert_int_eq(pk.peak_bytes, 130);
	ck_assert_int_eq(pk.held_bytes, 50);
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

/* An op's workspace counts at its step only, wherever the op runs: in the forward, in
 * the backward, and again where the backward recomputes it. */
START_TEST(memsim_workspace_at_the_ops_step)
{
	ilp_graph *g = t_graph_parts("", P("x", 100) ", " OPF("a", "'x'", 10, "") ", "
	    OPF("b", "'a'", 20, ", 'workspace': 100") ", " OPF("out", "'b'", 40, "") ", "
	    T("g", 40) ", " OPF("gb", "'g', 'b'", 80, ", 'workspace': 5") ", "
	    OPF("gx", "'gb'", 10, ""), "'out'", "'gx'");
	ilpi_timeline tl;
	ilp_error err = { 0 };
	ilp_partition *p;
	ilp_peak pk;

	/* Save b (memsim_chain_by_hand: forward peak 60 at out, 140 at gb): b's step
	 * 30 + 100; gb's 140 + 5. */
	pk = peak_of(g, "b", "");
	PEAK_AT(pk, g, 145, "gb", ILP_PHASE_BACKWARD);
	ck_assert_int_eq(pk.forward_peak, 130);
	/* Save a, recompute b: b runs again in the backward, from a + out = 50: 70 + 100. */
	pk = peak_of(g, "a", "b");
	PEAK_AT(pk, g, 170, "b", ILP_PHASE_BACKWARD);
	/* The timeline names the workspace among what is live at the peak. */
	p = t_part(g, "a", "b");
	ck_assert_msg(ilpi_memsim_timeline(g, p, &tl, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(tl.live[tl.peak_step], 170);
	ck_assert_uint_eq(tl.n_at_peak, 4);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)tl.at_peak[0].node), "b");
	ck_assert_int_eq(tl.at_peak[0].how, ILPI_LIVE_WORKSPACE);
	ck_assert_int_eq(tl.at_peak[0].bytes, 100);
	ilpi_timeline_free(&tl);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* ---- the timeline ---------------------------------------------------------------- */

START_TEST(memsim_timeline_by_hand)
{
	static const int64_t want[] = { 10, 30, 70, 50, 70, 140, 130 };
	ilp_graph *g = chain();
	ilp_partition *p = t_part(g, "a", "b");
	ilp_error err = { 0 };
	ilpi_timeline tl;

	/* Save a, recompute b (memsim_chain_by_hand): forward a b out, the backward's
	 * start (a + out), then b gb gx. */
	ck_assert_msg(ilpi_memsim_timeline(g, p, &tl, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(tl.n_fw, 3);
	ck_assert_uint_eq(tl.n_bw, 3);
	ck_assert_uint_eq(tl.n_steps, 7);
	for (size_t k = 0; k < 7; k++)
		ck_assert_int_eq(tl.live[k], want[k]);
	ck_assert_int_eq(tl.node[3], -1);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)tl.node[4]), "b");
	ck_assert_uint_eq(tl.peak_step, 5);
	ck_assert_int_eq(tl.peak.peak_bytes, 140);
	/* At gb: gb itself, the output the caller holds, the recomputed b; a was freed
	 * after b ran. */
	ck_assert_uint_eq(tl.n_at_peak, 3);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)tl.at_peak[0].node), "gb");
	ck_assert_int_eq(tl.at_peak[0].how, ILPI_LIVE_COMPUTED);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)tl.at_peak[1].node), "out");
	ck_assert_int_eq(tl.at_peak[1].how, ILPI_LIVE_OUTPUT);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)tl.at_peak[2].node), "b");
	ck_assert_int_eq(tl.at_peak[2].how, ILPI_LIVE_RECOMPUTED);
	ck_assert_int_eq(tl.at_peak[2].bytes, 20);
	ilpi_timeline_free(&tl);
	ilp_partition_free(p);

	/* Nothing saved: not executable, named as ilp_partition_peak names it. */
	p = t_part(g, "", "");
	ck_assert_int_eq(ilpi_memsim_timeline(g, p, &tl, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_VIOLATION);
	ck_assert_ptr_null(tl.live);
	ilpi_timeline_free(&tl);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* A saved value the backward never uses is freed before its first op: live at the
 * backward's start only. The forward's last step holds as much (everything it hands
 * over), so the peak is there, as the simulator says. */
START_TEST(memsim_timeline_unused_saved)
{
	ilp_graph *g = t_graph_parts("", P("x", 8) ", " OPF("big", "'x'", 1000, "") ", "
	    OPF("out", "'x'", 4, "") ", " T("g", 4) ", " OPF("gx", "'g', 'x'", 8, ""),
	    "'out'", "'gx'");
	ilp_partition *p = t_part(g, "x big", "");
	ilp_error err = { 0 };
	ilp_peak pk;
	ilpi_timeline tl;

	ck_assert_msg(ilpi_memsim_timeline(g, p, &tl, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilp_partition_peak(g, p, &pk, &err), 0);
	ck_assert_uint_eq(tl.n_fw, 2);
	ck_assert_int_eq(tl.live[1], 1004);
	ck_assert_int_eq(tl.live[2], 1004);   /* the backward's start: big + out */
	ck_assert_int_eq(tl.live[3], 12);     /* gx: out + gx, big already freed */
	ck_assert_uint_eq(tl.peak_step, 1);
	ck_assert_int_eq(pk.phase, ILP_PHASE_FORWARD);
	ck_assert_uint_eq(tl.n_at_peak, 2);
	ck_assert_str_eq(ilp_graph_node_name(g, (size_t)tl.at_peak[0].node), "big");
	ck_assert_int_eq(tl.at_peak[0].how, ILPI_LIVE_COMPUTED);
	ilpi_timeline_free(&tl);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* On every corpus graph and every partition compare shows (min-cut, PyTorch's references,
 * save-all): the timeline's maximum is the simulated peak, and the storage it names at
 * the peak adds up to it. */
static void
timeline_agrees(const char *path, const ilp_graph *g, ilp_partition *p, const char *what)
{
	ilp_error err = { 0 };
	ilpi_timeline tl;
	ilp_peak pk;
	int64_t max = 0, sum = 0;

	ck_assert_msg(ilp_partition_peak(g, p, &pk, &err) == 0, "%s %s: %s", path, what,
	    err.msg);
	ck_assert_msg(ilpi_memsim_timeline(g, p, &tl, &err) == 0, "%s %s: %s", path, what,
	    err.msg);
	for (size_t k = 0; k < tl.n_steps; k++)
		if (tl.live[k] > max)
			max = tl.live[k];
	for (size_t k = 0; k < tl.n_at_peak; k++) {
		sum += tl.at_peak[k].bytes;
		ck_assert_int_gt(tl.at_peak[k].bytes, 0);
		if (k > 0)
			ck_assert_int_ge(tl.at_peak[k - 1].bytes, tl.at_peak[k].bytes);
	}
	ck_assert_msg(max == pk.peak_bytes, "%s %s: timeline max %lld, peak %lld", path, what,
	    (long long)max, (long long)pk.peak_bytes);
	ck_assert_int_eq(tl.live[tl.peak_step], pk.peak_bytes);
	ck_assert_int_eq(tl.peak.peak_bytes, pk.peak_bytes);
	ck_assert_msg(sum == pk.peak_bytes, "%s %s: live at the peak %lld, peak %lld", path,
	    what, (long long)sum, (long long)pk.peak_bytes);
	if (pk.phase == ILP_PHASE_FORWARD)
		ck_assert_uint_lt(tl.peak_step, tl.n_fw);
	else
		ck_assert_uint_ge(tl.peak_step, tl.n_fw);
	ck_assert_uint_eq(tl.n_steps, tl.n_fw + 1 + tl.n_bw);
	ilpi_timeline_free(&tl);
}

static long
timeline_corpus(const char *path, ilp_graph *g, void *ctx)
{
	ilp_error err = { 0 };
	ilp_partition *p;
	long n = 0;

	(void)ctx;
	for (size_t r = 0; r < g->n_ref; r++, n++) {
		p = t_ref_part(g, r);
		timeline_agrees(path, g, p, g->ref[r].name);
		ilp_partition_free(p);
	}
	ck_assert_int_eq(ilpi_partition_save_all(g, &p, &err), 0);
	timeline_agrees(path, g, p, "save-all");
	ilp_partition_free(p);
	return n + 1;
}

START_TEST(memsim_timeline_corpus)
{
	ck_assert_int_gt(t_each_corpus_graph(timeline_corpus, NULL), 30);
}
END_TEST

Suite *
suite_memsim(void)
{
	Suite *s = suite_create("memsim");
	TCase *tc = tcase_create("peak");

	tcase_add_test(tc, memsim_chain_by_hand);
	tcase_add_test(tc, memsim_forward_peak);
	tcase_add_test(tc, memsim_symbolic_scalars_hold_no_memory);
	tcase_add_test(tc, memsim_autograd_order);
	tcase_add_test(tc, memsim_views_and_tuples);
	tcase_add_test(tc, memsim_corpus_references);
	tcase_add_test(tc, memsim_workspace_at_the_ops_step);
	tcase_add_test(tc, memsim_timeline_by_hand);
	tcase_add_test(tc, memsim_timeline_unused_saved);
	tcase_add_test(tc, memsim_timeline_corpus);
	suite_add_tcase(s, tc);
	return s;
}
