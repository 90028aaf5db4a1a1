/* test_mincut.c - max-flow, the torch 2.6 min-cut heuristic and its ban rules, SAC
 * tags, partition completion, and cross-checks against brute force and the ILP. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/partition.h"
#include "policies/bans.h"
#include "solver/mincut/knapsack.h"
#include "solver/mincut/maxflow.h"
#include "solver/mincut/mincut.h"
#include "tests/suites.h"
#include "tests/util.h"

/* ---- max-flow ----------------------------------------------------------------------- */

static ilpi_flow *
net(size_t n, const int (*e)[3], size_t ne)
{
	ilpi_flow *f = ilpi_flow_new(n);

	ck_assert_ptr_nonnull(f);
	for (size_t k = 0; k < ne; k++)
		ck_assert_int_eq(ilpi_flow_add(f, e[k][0], e[k][1],
		    e[k][2] < 0 ? INFINITY : (double)e[k][2]), (long)k);
	return f;
}

START_TEST(flow_clrs)
{
	/* CLRS figure 26.6: max flow 23; min cut {s, v1, v2, v4} | {v3, t}. */
	static const int e[][3] = {
		{ 0, 1, 16 }, { 0, 2, 13 }, { 2, 1, 4 }, { 1, 3, 12 }, { 3, 2, 9 },
		{ 2, 4, 14 }, { 4, 3, 7 }, { 3, 5, 20 }, { 4, 5, 4 },
	};
	ilpi_flow *f = net(6, e, sizeof e / sizeof e[0]);
	uint8_t src[6], snk[6];
	double v = -1;

	ck_assert_int_eq(ilpi_flow_solve(f, 0, 5, &v), ILPI_FLOW_OK);
	ck_assert(v == 23);
	ck_assert_int_eq(ilpi_flow_source_side(f, src), 0);
	ck_assert_int_eq(ilpi_flow_sink_side(f, snk), 0);
	ck_assert(src[0] && src[1] && src[2] && src[4] && !src[3] && !src[5]);
	ck_assert(!snk[0] && !snk[1] && !snk[2] && !snk[4] && snk[3] && snk[5]);
	/* flow conservation at v3: in = out */
	ck_assert(ilpi_flow_edge_flow(f, 3) + ilpi_flow_edge_flow(f, 6) ==
	    ilpi_flow_edge_flow(f, 4) + ilpi_flow_edge_flow(f, 7));
	ilpi_flow_free(f);
}
END_TEST

START_TEST(flow_two_cuts)
{
	/* s -1-> a -1-> t has two minimum cuts; the sink side is the one closest to t. */
	static const int e[][3] = { { 0, 1, 1 }, { 1, 2, 1 } };
	ilpi_flow *f = net(3, e, 2);
	uint8_t src[3], snk[3];
	double v;

	ck_assert_int_eq(ilpi_flow_solve(f, 0, 2, &v), ILPI_FLOW_OK);
	ck_assert(v == 1);
	ilpi_flow_sink_side(f, snk);
	ilpi_flow_source_side(f, src);
	ck_assert(snk[2] && !snk[1] && !snk[0]);
	ck_assert(src[0] && !src[1] && !src[2]);
	ilpi_flow_free(f);
}
END_TEST

START_TEST(flow_infinite)
{
	/* infinite edges never saturate; an all-infinite path is reported */
	static const int ok[][3] = { { 0, 1, -1 }, { 1, 2, 5 }, { 1, 2, 2 }, { 2, 3, -1 } };
	static const int bad[][3] = { { 0, 1, -1 }, { 1, 2, 5 }, { 1, 3, -1 }, { 3, 2, -1 } };
	ilpi_flow *f = net(4, ok, 4);
	int32_t path[8];
	double v;

	ck_assert_int_eq(ilpi_flow_solve(f, 0, 3, &v), ILPI_FLOW_OK);
	ck_assert(v == 7); /* parallel edges add up */
	ilpi_flow_free(f);
	f = net(4, bad, 4);
	ck_assert_int_eq(ilpi_flow_solve(f, 0, 2, &v), ILPI_FLOW_UNBOUNDED);
	ck_assert_uint_eq(ilpi_flow_inf_path(f, path, 8), 4);
	ck_assert(path[0] == 0 && path[1] == 1 && path[2] == 3 && path[3] == 2);
	ilpi_flow_free(f);
}
END_TEST

/* util.h's generator, seeded by each test that draws from it */
static t_rng rng;

START_TEST(flow_brute_force)
{
	/* random networks: the max-flow value equals the cheapest s-t cut found by
	 * enumerating every vertex subset, and the reported sides are minimum cuts */
	t_rng_seed(&rng, 12345);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 3 + t_rand(&rng) % 6, ne = t_rand(&rng) % 16;
		int e[16][3];
		ilpi_flow *f;
		uint8_t snk[8];
		double v, best = INFINITY, side_cut = 0;

		for (size_t k = 0; k < ne; k++) {
			e[k][0] = (int)(t_rand(&rng) % n);
			e[k][1] = (int)(t_rand(&rng) % n);
			e[k][2] = t_rand(&rng) % 7 == 0 ? -1 : (int)(t_rand(&rng) % 10);
		}
		f = net(n, (const int (*)[3])e, ne);
		for (uint32_t mask = 0; mask < (1u << n); mask++) {
			double c = 0;

			if (!(mask & 1u) || (mask & (1u << (n - 1))))
				continue; /* source inside, sink outside */
			for (size_t k = 0; k < ne; k++)
				if ((mask >> e[k][0] & 1u) && !(mask >> e[k][1] & 1u))
					c += e[k][2] < 0 ? INFINITY : e[k][2];
			if (c < best)
				best = c;
		}
		if (isinf(best)) {
			ck_assert_int_eq(ilpi_flow_solve(f, 0, (int32_t)n - 1, &v),
			    ILPI_FLOW_UNBOUNDED);
		} else {
			ck_assert_int_eq(ilpi_flow_solve(f, 0, (int32_t)n - 1, &v), ILPI_FLOW_OK);
			ck_assert_msg(v == best, "trial %d: flow %g, cut %g", trial, v, best);
			ilpi_flow_sink_side(f, snk);
			ck_assert(!snk[0] && snk[n - 1]);
			for (size_t k = 0; k < ne; k++)
				if (!snk[e[k][0]] && snk[e[k][1]])
					side_cut += e[k][2];
			ck_assert(side_cut == best);
		}
		ilpi_flow_free(f);
	}
}
END_TEST

/* ---- graphs ---------------------------------------------------------------------- */

/* Runs the heuristic (no check unless asked) and keeps its info. */
static ilp_partition *
run(const ilp_graph *g, ilpi_mincut_options *o, ilpi_mincut_info *info)
{
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ck_assert_msg(ilpi_mincut_run(g, o, &p, info, &err) == 0, "mincut: %s", err.msg);
	return p;
}

/* "a b c": the saved (or recomputed) set, in graph order. */
static void
expect(const ilp_graph *g, const ilp_partition *p, unsigned bit, const char *want)
{
	char got[1024] = "";
	size_t len = 0;

	for (size_t i = 0; i < g->n; i++)
		if (p->state[i] & bit)
			len += (size_t)snprintf(got + len, sizeof got - len, "%s%s",
			    len ? " " : "", g->node[i].name);
	ck_assert_str_eq(got, want);
}

static int
ban_of(const ilp_graph *g, const ilpi_mincut_info *info, const char *name)
{
	return info->ban[t_node(g, name)];
}

static double
weight_of(const ilp_graph *g, const ilpi_mincut_info *info, const char *name)
{
	return info->weight[t_node(g, name)];
}

/* What one min-cut must give: node `who`'s ban (`who` NULL: not looked at), the saved
 * and recomputed sets as expect() reads them (NULL: not looked at), and with `checked`
 * a partition ilp_check accepts. */
typedef struct cut_want {
	const char *who;
	int ban;
	const char *saved, *recomputed;
	int checked;
} cut_want;

/* Runs the heuristic on g under o and asserts w; frees what it made. */
static void
cut(const ilp_graph *g, ilpi_mincut_options *o, cut_want w)
{
	ilpi_mincut_info info;
	ilp_partition *p = run(g, o, &info);
	ilp_error err = { 0 };

	if (w.who != NULL)
		ck_assert_int_eq(ban_of(g, &info, w.who), w.ban);
	if (w.saved != NULL)
		expect(g, p, ILPI_P_SAVED, w.saved);
	if (w.recomputed != NULL)
		expect(g, p, ILPI_P_RECOMPUTED, w.recomputed);
	if (w.checked)
		ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
}

/* y = cos(sin(x)); backward m1 = t * sin, m2 = m1 * x. `sx` is extra fields of sin. */
static ilp_graph *
sin_cos(const char *sin_target, const char *sx)
{
	char sin[256], nodes[2048];

	snprintf(sin, sizeof sin, OP("sin", "%s", "'x'", 400, "%s"), sin_target, sx);
	snprintf(nodes, sizeof nodes, "%s, %s, %s, %s, %s, %s", P("x", 1000), sin,
	    OP("cos", "aten.cos.default", "'sin'", 400, ""), T("t", 400),
	    OP("m1", "aten.mul.Tensor", "'t', 'sin'", 400, ""),
	    OP("m2", "aten.mul.Tensor", "'m1', 'x'", 1000, ""));
	return t_graph_parts("", nodes, "'cos'", "'m2'");
}

START_TEST(mc_pointwise_recomputed)
{
	/* Hand-derived: dist_from_bw(x) = dist(sin) = 1; x weighs trunc(1000 * 1.1) = 1100
	 * (a placeholder is materialized); sin trunc(400 * 1.1) * 2 = 880 (all users fuse);
	 * cos is a forward output, so materialized in the backward and banned. Every
	 * source-sink path crosses x_in -> x_out: save x, recompute sin. */
	ilp_graph *g = sin_cos("aten.sin.default", "");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;
	ilp_error err = { 0 };

	ilpi_mincut_options_init(&o);
	p = run(g, &o, &info);
	expect(g, p, ILPI_P_SAVED, "x");
	expect(g, p, ILPI_P_RECOMPUTED, "sin");
	ck_assert(weight_of(g, &info, "x") == 1100);
	ck_assert(weight_of(g, &info, "sin") == 880);
	ck_assert(info.cut_value == 1100);
	ck_assert_int_eq(ban_of(g, &info, "x"), ILPI_MC_PRIMAL);
	ck_assert_int_eq(ban_of(g, &info, "sin"), ILPI_MC_FREE);
	ck_assert_int_eq(ban_of(g, &info, "cos"), ILPI_MC_MATERIALIZED_BACKWARD);
	ck_assert_int_eq(info.dist_from_bw[t_node(g, "sin")], 1);
	ck_assert_int_eq(info.dist_from_bw[t_node(g, "cos")], 1000000000);
	ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_allowlist_and_denylist)
{
	ilpi_mincut_options o;
	ilp_graph *g;

	/* a matmul is banned by the allowlist, and by the denylist as compute-intensive */
	g = sin_cos("aten.mm.default", "");
	ilpi_mincut_options_init(&o);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_NOT_IN_ALLOWLIST, "x sin", NULL, 0 });
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "ban_recompute_not_in_allowlist",
	    "false"), 0);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_COMPUTE_INTENSIVE, "x sin", NULL, 0 });
	ilp_graph_free(g);

	/* cumsum is not on the allowlist but neither random nor compute-intensive */
	g = sin_cos("aten.cumsum.default", "");
	ilpi_mincut_options_init(&o);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_NOT_IN_ALLOWLIST, NULL, NULL, 0 });
	/* denylist mode: cumsum cannot fuse into the backward's mul, so it is banned
	 * as materialized in the backward ... */
	o.ban_recompute_not_in_allowlist = 0;
	cut(g, &o, (cut_want){ "sin", ILPI_MC_MATERIALIZED_BACKWARD, NULL, NULL, 0 });
	/* ... and free without that ban */
	o.ban_recompute_materialized_backward = 0;
	cut(g, &o, (cut_want){ "sin", ILPI_MC_FREE, "x", "sin", 0 });
	/* aggressive_recomputation clears the allowlist ban too */
	ilpi_mincut_options_init(&o);
	o.aggressive_recomputation = 1;
	cut(g, &o, (cut_want){ "sin", ILPI_MC_FREE, NULL, NULL, 0 });
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_must_save_and_views)
{
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;
	ilp_graph *g;

	ilpi_mincut_options_init(&o);
	/* MUST_SAVE bans recomputation: sin is saved */
	g = sin_cos("aten.sin.default", ", 'recompute': 'MUST_SAVE'");
	cut(g, &o, (cut_want){ "sin", ILPI_MC_MUST_SAVE, "x sin", "", 1 });
	ilp_graph_free(g);

	/* ... except for views */
	g = sin_cos("aten.view.default", ", 'view_of': 'x', 'recompute': 'MUST_SAVE'");
	cut(g, &o, (cut_want){ "sin", ILPI_MC_FREE, "x", "sin", 1 });

	/* recompute_views gives views an infinite weight */
	o.recompute_views = 1;
	p = run(g, &o, &info);
	ck_assert(isinf(weight_of(g, &info, "sin")));
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);

	/* PREFER_SAVE binds only in hard mode */
	ilpi_mincut_options_init(&o);
	g = sin_cos("aten.sin.default", ", 'recompute': 'PREFER_SAVE'");
	cut(g, &o, (cut_want){ NULL, 0, "x", NULL, 0 });
	o.prefer = ILP_PREFER_HARD;
	cut(g, &o, (cut_want){ NULL, 0, "x sin", NULL, 0 });
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_must_recompute)
{
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;
	ilp_graph *g;
	ilp_error err = { 0 };

	/* a tagged matmul is recomputed even though the allowlist would ban it */
	g = sin_cos("aten.mm.default", ", 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 1");
	ilpi_mincut_options_init(&o);
	p = run(g, &o, &info);
	ck_assert(info.must_recompute[t_node(g, "sin")]);
	ck_assert(weight_of(g, &info, "sin") < 0);
	expect(g, p, ILPI_P_SAVED, "x");
	expect(g, p, ILPI_P_RECOMPUTED, "sin");
	ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	/* soft mode reads PREFER_RECOMPUTE as no tag */
	o.prefer = ILP_PREFER_SOFT;
	cut(g, &o, (cut_want){ NULL, 0, "x sin", NULL, 0 });
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_region_end)
{
	/* a (region 1) feeds b (region 2), both PREFER_RECOMPUTE: cleanup_recompute_tags
	 * makes a MUST_SAVE, so it is saved while b is recomputed from it */
	ilp_graph *g = t_graph_parts("", P("x", 400) ", "
	    OP("a", "aten.sin.default", "'x'", 400, ", 'recompute': 'PREFER_RECOMPUTE', "
	    "'ac_graph_id': 1") ", "
	    OP("b", "aten.cos.default", "'a'", 400, ", 'recompute': 'PREFER_RECOMPUTE', "
	    "'ac_graph_id': 2") ", "
	    OP("y", "aten.relu.default", "'b'", 400, "") ", " T("t", 400) ", "
	    OP("gb", "aten.mul.Tensor", "'t', 'b'", 400, ""), "'y'", "'gb'");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;
	ilp_error err = { 0 };

	ilpi_mincut_options_init(&o);
	p = run(g, &o, &info);
	ck_assert_int_eq(ban_of(g, &info, "a"), ILPI_MC_REGION_END);
	ck_assert(info.must_recompute[t_node(g, "b")]);
	expect(g, p, ILPI_P_SAVED, "a");
	expect(g, p, ILPI_P_RECOMPUTED, "b");
	ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_reduction)
{
	/* s = sum(x) is 1000x smaller than its input: banned as a reduction (only with
	 * the switch on), and then saved instead of x */
	ilp_graph *g = t_graph_parts("", P("x", 4000) ", "
	    OP("s", "aten.sum.default", "'x'", 4, "") ", "
	    OP("y", "aten.relu.default", "'s'", 4, "") ", " T("t", 4) ", "
	    OP("gs", "aten.mul.Tensor", "'t', 's'", 4, ""), "'y'", "'gs'");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;

	ilpi_mincut_options_init(&o);
	cut(g, &o, (cut_want){ "s", ILPI_MC_REDUCTION, "s", NULL, 0 });
	/* without the ban, s is still the cheaper cut (4 * 1.1 * 2 < 4000 * 1.1^2) */
	o.ban_recompute_reductions = 0;
	p = run(g, &o, &info);
	ck_assert_int_eq(ban_of(g, &info, "s"), ILPI_MC_FREE);
	ck_assert(weight_of(g, &info, "s") == 8);
	ck_assert(weight_of(g, &info, "x") == trunc(4000 * pow(1.1, 2)));
	expect(g, p, ILPI_P_SAVED, "s");
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_forward_op_as_gradient)
{
	/* s = sum(y) is a forward output and also returned as a gradient. torch 2.6 puts it
	 * in required_bw_nodes with X_in -> sink, so min-cut recomputes it in the backward
	 * from the saved input (never bans or saves it). torch 2.14 only asks for its value
	 * (X_out -> sink: it is not in the tangents' closure), bans it as any forward op
	 * (a forward output is materialized in the backward) and saves it. The ILP's rules
	 * do not ban it, so the ILP saves no more than min-cut under either (the fuzzer's
	 * ilp-saves-more-than-mincut input). _i: 0 torch 2.6, 1 torch 2.14. */
	ilp_graph *g = t_graph_parts("", P("x", 4000) ", "
	    OP("s", "aten.sum.default", "'x'", 4, "") ", " T("t", 4) ", "
	    OP("gx", "aten.mul.Tensor", "'t', 'x'", 4000, ""), "'s'", "'gx', 's'");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_solve_options so;
	ilp_partition *p, *q = NULL;
	ilp_error err;

	ilpi_mincut_options_init(&o);
	o.torch_version = _i == 0 ? 206 : 214;
	p = run(g, &o, &info);
	ck_assert_int_eq(ban_of(g, &info, "s"), _i == 0 ? ILPI_MC_FREE :
	    ILPI_MC_MATERIALIZED_BACKWARD);
	expect(g, p, ILPI_P_SAVED, _i == 0 ? "x" : "x s");
	expect(g, p, ILPI_P_RECOMPUTED, _i == 0 ? "s" : "");
	ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
	ilp_solve_options_init(&so);
	ck_assert_msg(ilp_solve(g, &so, &q, &err) == 0, "%s", err.msg);
	ck_assert_int_le(ilpi_partition_saved_bytes(g, q), ilpi_partition_saved_bytes(g, p));
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_partition_free(q);
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_materialized_backward)
{
	/* a is read by a backward matmul (not fusible): materialized, so banned */
	ilp_graph *g = t_graph_parts("", P("x", 400) ", "
	    OP("a", "aten.relu.default", "'x'", 400, "") ", "
	    OP("y", "aten.sin.default", "'a'", 400, "") ", " T("t", 400) ", "
	    OP("ga", "aten.mm.default", "'t', 'a'", 400, "") ", "
	    OP("gx", "aten.mul.Tensor", "'ga', 'x'", 400, ""), "'y'", "'gx'");
	ilpi_mincut_options o;

	ilpi_mincut_options_init(&o);
	cut(g, &o, (cut_want){ "a", ILPI_MC_MATERIALIZED_BACKWARD, "x a", NULL, 0 });
	o.ban_recompute_materialized_backward = 0;
	cut(g, &o, (cut_want){ "a", ILPI_MC_FREE, "x", "a", 0 });
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_used_far_apart)
{
	/* a's forward users: b (cumsum, unfusible, order 2), c = a + b (entered from b
	 * through an unfusible edge: order 3 is the first unfusible use), d = a * c
	 * (order 4 > 3, fusible with a): d is banned as used far apart */
	ilp_graph *g = t_graph_parts("", P("x", 400) ", "
	    OP("a", "aten.relu.default", "'x'", 400, "") ", "
	    OP("b", "aten.cumsum.default", "'a'", 400, "") ", "
	    OP("c", "aten.add.Tensor", "'a', 'b'", 400, "") ", "
	    OP("d", "aten.mul.Tensor", "'a', 'c'", 400, "") ", "
	    OP("y", "aten.sin.default", "'d'", 400, "") ", " T("t", 400) ", "
	    OP("gd", "aten.mul.Tensor", "'t', 'd'", 400, ""), "'y'", "'gd'");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;

	ilpi_mincut_options_init(&o);
	p = run(g, &o, &info);
	ck_assert_int_eq(ban_of(g, &info, "d"), ILPI_MC_USED_FAR_APART);
	ck_assert_int_eq(ban_of(g, &info, "c"), ILPI_MC_FREE);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	o.ban_recompute_used_far_apart = 0;
	cut(g, &o, (cut_want){ "d", ILPI_MC_FREE, NULL, NULL, 0 });
	ilp_graph_free(g);
}
END_TEST

/* x -> c0 -> c1 -> ... -> c{n-1} (relu chain) -> forward output; backward reads the
 * last link. */
static ilp_graph *
long_chain(int n)
{
	size_t cap = (size_t)n * 128 + 512, len = 0;
	char *nodes = malloc(cap), fw[32], bw[32];
	ilp_graph *g;

	ck_assert_ptr_nonnull(nodes);
	len += (size_t)snprintf(nodes + len, cap - len, "%s", P("x", 400));
	for (int i = 0; i < n; i++) {
		char prev[16];

		snprintf(prev, sizeof prev, i ? "c%d" : "x", i - 1);
		len += (size_t)snprintf(nodes + len, cap - len, ", {'name': 'c%d', 'kind': 'op', "
		    "'target': 'aten.relu.default', 'inputs': ['%s'], 'bytes': 400}", i, prev);
	}
	len += (size_t)snprintf(nodes + len, cap - len, ", " T("t", 400) ", {'name': 'g', "
	    "'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'c%d'], "
	    "'bytes': 400}", n - 1);
	snprintf(fw, sizeof fw, "'c%d'", n - 1);
	snprintf(bw, sizeof bw, "'g'");
	g = t_graph_parts("", nodes, fw, bw);
	free(nodes);
	return g;
}

START_TEST(mc_long_fusible_chain)
{
	/* x is a placeholder, not fusible, so the first chain starts at c0 (order 1) and
	 * reaches c101 (order 102 > 1 + 100) with an empty heap: c101 is banned and the
	 * search stops; the next start nodes up to c101 are visited already, and the
	 * chain from c102 is too short. */
	ilp_graph *g = long_chain(110);
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;
	size_t banned = 0;

	ilpi_mincut_options_init(&o);
	o.ban_recompute_materialized_backward = 0; /* keep the last link free */
	p = run(g, &o, &info);
	for (size_t i = 0; i < g->n; i++)
		banned += info.ban[i] == ILPI_MC_LONG_FUSIBLE_CHAIN;
	ck_assert_int_eq(ban_of(g, &info, "c101"), ILPI_MC_LONG_FUSIBLE_CHAIN);
	ck_assert_uint_eq(banned, 1);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	o.ban_recompute_long_fusible_chains = 0;
	cut(g, &o, (cut_want){ "c101", ILPI_MC_FREE, NULL, NULL, 0 });
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_other_bans)
{
	ilpi_mincut_options o;
	ilp_graph *g;

	/* max_dist_from_bw: sin is 1 away from the backward */
	g = sin_cos("aten.sin.default", "");
	ilpi_mincut_options_init(&o);
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "max_dist_from_bw", "0"), 0);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_DIST_FROM_BW, NULL, NULL, 0 });
	ilp_graph_free(g);

	/* a random op: not on the allowlist; random in denylist mode */
	g = t_graph_parts("'rng_functionalized': true,", P("x", 400) ", "
	    OP("sin", "aten.rand_like.default", "'x'", 400, ", 'random': true") ", "
	    OP("cos", "aten.cos.default", "'sin'", 400, "") ", " T("t", 400) ", "
	    OP("m1", "aten.mul.Tensor", "'t', 'sin'", 400, "") ", "
	    OP("m2", "aten.mul.Tensor", "'m1', 'x'", 400, ""), "'cos'", "'m2'");
	ilpi_mincut_options_init(&o);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_NOT_IN_ALLOWLIST, NULL, NULL, 0 });
	o.ban_recompute_not_in_allowlist = 0;
	cut(g, &o, (cut_want){ "sin", ILPI_MC_RANDOM, NULL, NULL, 0 });
	ilp_graph_free(g);

	/* a collective is forced saved unless unsafe_allow_optimization_of_collectives;
	 * an effectful op is never recomputed, even with every torch ban off */
	g = sin_cos("_c10d_functional.all_reduce.default", "");
	ilpi_mincut_options_init(&o);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_COLLECTIVE, "x sin", NULL, 0 });
	ck_assert_int_eq(ilpi_mincut_options_set(&o,
	    "unsafe_allow_optimization_of_collectives", "true"), 0);
	cut(g, &o, (cut_want){ "sin", ILPI_MC_NOT_IN_ALLOWLIST, NULL, NULL, 0 });
	ilp_graph_free(g);
	g = sin_cos("aten.sin.default", ", 'effectful': true");
	ilpi_mincut_options_init(&o);
	o.aggressive_recomputation = 1;
	o.ban_recompute_reductions = 0;
	cut(g, &o, (cut_want){ "sin", ILPI_MC_UNSAFE, NULL, NULL, 0 });
	ilp_graph_free(g);

	/* unknown switches and bad values are refused */
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "ban_recompute_everything", "1"), -1);
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "recompute_views", "maybe"), -1);
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "max_dist_from_bw", "-3"), -1);
}
END_TEST

START_TEST(mc_unbounded)
{
	/* a tuple cannot be saved (infinite weight) and a random op cannot be
	 * recomputed: the backward reading the tuple has no finite cut */
	ilp_graph *g = t_graph_parts("", P("x", 400) ", "
	    "{'name': 'd', 'kind': 'op', 'target': 'aten.native_dropout.default', "
	    "'inputs': ['x'], 'tuple': true, 'random': true}, "
	    OP("d0", "getitem", "'d'", 400, ", 'index': 0") ", " T("t", 400) ", "
	    OP("gd", "aten.mul.Tensor", "'t', 'd'", 400, ""), "'d0'", "'gd'");
	ilpi_mincut_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilpi_mincut_options_init(&o);
	ck_assert_int_eq(ilpi_mincut_run(g, &o, &p, NULL, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "NetworkXUnbounded") && strstr(err.msg, "'d'_in"),
	    "%s", err.msg);
	ck_assert_ptr_null(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(mc_seed_float8)
{
	/* Every forward op of the seed is PREFER_RECOMPUTE in one region: with torch's
	 * reading only the primals can be cut, so they are all PyTorch 2.6 saves; the
	 * recorded reference (the bug report's saved set) breaks the tags. */
	ilp_graph *g = t_graph_file(t_srcpath("examples/seed_float8_sac.json"));
	ilp_partition *p = NULL, *ref;
	ilpi_mincut_options o;
	ilp_error err = { 0 };

	ilpi_mincut_options_init(&o);
	ck_assert_msg(ilpi_mincut_run(g, &o, &p, NULL, &err) == 0, "%s", err.msg);
	expect(g, p, ILPI_P_SAVED, "primals_1 primals_2 primals_3");
	ck_assert(ilpi_recomputed(p, t_node(g, "convert_element_type_4")));
	ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
	ilp_partition_free(p);
	/* the public entry point: the same answer, costs filled, checked in hard mode */
	p = NULL;
	ck_assert_msg(ilp_mincut(g, NULL, &p, &err) == 0, "%s", err.msg);
	expect(g, p, ILPI_P_SAVED, "primals_1 primals_2 primals_3");
	ck_assert(p->has_cost && p->saved_bytes == 2048 + 64 + 2048);
	ck_assert_str_eq(p->method, "mincut");
	ck_assert_str_eq(p->status, "heuristic");

	ck_assert_uint_ge(g->n_ref, 1);
	ref = ilp_partition_new(g);
	for (size_t k = 0; k < g->ref[0].n_saved; k++)
		ref->state[g->ref[0].saved[k]] |= ILPI_P_SAVED;
	ilpi_partition_complete(g, ref, 0);
	ck_assert_int_eq(ilp_check(g, ref, NULL, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_VIOLATION);
	ck_assert_msg(strstr(err.msg, "convert_element_type_4") != NULL, "%s", err.msg);
	ilp_partition_free(ref);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* torch 2.14's dp_knapsack_sliding_hirschberg on 300 random instances (memories in
 * thousandths, small integer runtimes, some all alike), recorded by
 * scripts/gen_knapsack214.py: ilpart keeps the same items saved on every one. */
START_TEST(knapsack_hirschberg_torch)
{
	FILE *f = fopen(t_srcpath("tests/data/knapsack/hirschberg-2.14.txt"), "r");
	char line[4096];
	int cases = 0, differ = 0, over = 0;
	ilp_error err = { 0 };

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f) != NULL) {
		double mem[16], rt[16], cap, used = 0;
		uint8_t want[16] = { 0 }, save[16];
		char *p = line, *end;
		long n;

		if (line[0] == '#')
			continue;
		cap = strtod(p, &end);
		n = strtol(end, &p, 10);
		ck_assert(n >= 1 && n <= 16);
		for (long i = 0; i < n; i++)
			mem[i] = strtod(p, &p);
		for (long i = 0; i < n; i++)
			rt[i] = strtod(p, &p);
		for (;;) {
			long k = strtol(p, &end, 10);

			if (end == p)
				break;
			ck_assert(k >= 0 && k < n);
			want[k] = 1;
			p = end;
		}
		ck_assert_int_eq(ilpi_knapsack((ilpi_knapsack_solver)ilpi_knapsack_solver_parse(
		    "dp_knapsack_sliding_hirschberg"), mem, rt, (size_t)n, cap, save, &err), 0);
		for (long i = 0; i < n; i++) {
			differ += save[i] != want[i];
			used += save[i] ? mem[i] : 0;
		}
		over += used > cap + 1e-9;
		cases++;
	}
	fclose(f);
	fprintf(stderr, "knapsack hirschberg: %d instances, %d items differ from torch 2.14; "
	    "%d over capacity (torch's too)\n", cases, differ, over);
	ck_assert_int_eq(cases, 300);
	ck_assert_int_eq(differ, 0);
}
END_TEST

/* ---- torch 2.14's rules beside torch 2.6's, on the same hand-made graphs -------------- */

/* Runs min-cut under torch `torch` (206 or 214) with o, no check; asserts the saved and
 * recomputed sets (NULL: not looked at); returns whether ilp_check accepts the result. */
static int
cut_torch(const ilp_graph *g, ilpi_mincut_options *o, int torch, const char *saved,
    const char *recomputed)
{
	ilpi_mincut_info info;
	ilp_partition *p;
	ilp_error err = { 0 };
	int ok;

	o->torch_version = torch;
	o->check = 0;
	p = run(g, o, &info);
	if (saved != NULL)
		expect(g, p, ILPI_P_SAVED, saved);
	if (recomputed != NULL)
		expect(g, p, ILPI_P_RECOMPUTED, recomputed);
	ok = ilp_check(g, p, &(ilp_check_options){ ILP_PREFER_PYTORCH }, &err) == 0;
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	return ok;
}

/* y = x @ t(w) with w a parameter ("param"); the backward needs t(w) and x. torch 2.6
 * weighs w as any input: trunc(4000 * 1.1^2) against the transpose's 4000 * 1.1, so it
 * saves the transpose. torch 2.14 (treat_parameters_as_free_to_save) weighs w 0 and
 * saves w itself, recomputing the transpose; without the "param" flag, or with the
 * switch off, it saves the transpose as 2.6 does. */
static ilp_graph *
linear_graph(const char *wflag)
{
	char nodes[2048];

	snprintf(nodes, sizeof nodes, "%s, {'name': 'w', 'kind': 'primal', 'bytes': 4000%s}, "
	    "%s, %s, %s, %s, %s", P("x", 4000), wflag,
	    OP("t", "aten.t.default", "'w'", 4000, ", 'view_of': 'w'"),
	    OP("mm", "aten.mm.default", "'x', 't'", 4000, ""), T("g", 4000),
	    OP("gx", "aten.mm.default", "'g', 't'", 4000, ""),
	    OP("gw", "aten.mm.default", "'g', 'x'", 4000, ""));
	return t_graph_parts("", nodes, "'mm'", "'gx', 'gw'");
}

START_TEST(mc214_parameters_free_to_save)
{
	ilp_graph *g = linear_graph(", 'param': true");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;

	ilpi_mincut_options_init(&o);
	ck_assert(cut_torch(g, &o, 206, "x t", ""));
	ck_assert(cut_torch(g, &o, 214, "x w", "t"));
	/* the weight torch 2.14 gives the parameter */
	p = run(g, &o, &info);
	ck_assert(weight_of(g, &info, "w") == 0);
	ck_assert(weight_of(g, &info, "t") == trunc(4000 * 1.1));
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "treat_parameters_as_free_to_save",
	    "false"), 0);
	ck_assert(cut_torch(g, &o, 214, "x t", ""));
	/* torch 2.6 has no such switch; asked for, it acts as 2.14's */
	ck_assert_int_eq(ilpi_mincut_options_set(&o, "treat_parameters_as_free_to_save",
	    "true"), 0);
	ck_assert(cut_torch(g, &o, 206, "x w", "t"));
	ilp_graph_free(g);
	g = linear_graph("");
	ilpi_mincut_options_init(&o);
	ck_assert(cut_torch(g, &o, 214, "x t", ""));
	ilp_graph_free(g);
}
END_TEST

/* A constant lifted into the graph (fx get_attr, e.g. the tensor of torch.tensor([...]) in
 * forward), copied by lift_fresh_copy and indexed by gather: torch (2.6 and 2.14 alike)
 * never bans a get_attr node (not a call_function) and cannot save it (no "val" meta:
 * infinite weight), so all three are recomputed in the backward and only x is saved.
 * ilpart used to ban it as an op outside the allowlist and save it. */
START_TEST(mc214_lifted_constant_recomputed)
{
	ilp_graph *g = t_graph_parts("", P("x", 400) ", "
	    OP("_tensor_constant0", "get_attr", "", 400, "") ", "
	    OP("lift_fresh_copy", "aten.lift_fresh_copy.default", "'_tensor_constant0'", 400,
	    "") ", " P("idx", 8) ", "
	    OP("gather", "aten.gather.default", "'lift_fresh_copy', 'idx'", 400, "") ", "
	    OP("y", "aten.mul.Tensor", "'x', 'gather'", 400, "") ", " T("t", 400) ", "
	    OP("gx", "aten.mul.Tensor", "'t', 'gather'", 400, ""), "'y'", "'gx', null");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;

	ilpi_mincut_options_init(&o);
	for (int torch = 206; torch <= 214; torch += 8) {
		ck_assert(cut_torch(g, &o, torch, "idx",
		    "_tensor_constant0 lift_fresh_copy gather"));
		p = run(g, &o, &info);
		ck_assert_int_eq(ban_of(g, &info, "_tensor_constant0"), ILPI_MC_FREE);
		ck_assert(isinf(weight_of(g, &info, "_tensor_constant0")));
		ilpi_mincut_info_free(&info);
		ilp_partition_free(p);
	}
	ilp_graph_free(g);
}
END_TEST

/* aten.split is a view op in torch 2.14: its tuple is never banned and the getitems can
 * be recomputed from the saved input (trunc(1000 * 1.1^2) = 1210 against two chunks of
 * 500 * 1.1 * 2 each). torch 2.6 bans the split (not in the allowlist), so both chunks
 * must be saved. */
START_TEST(mc214_split_is_a_view)
{
	ilp_graph *g = t_graph_parts("", P("x", 1000) ", "
	    OP("split", "aten.split.Tensor", "'x'", 0, ", 'tuple': true") ", "
	    OP("g0", "getitem", "'split'", 500, ", 'index': 0, 'view_of': 'x'") ", "
	    OP("g1", "getitem", "'split'", 500, ", 'index': 1, 'view_of': 'x'") ", "
	    OP("y", "aten.add.Tensor", "'g0', 'g1'", 500, "") ", " T("t", 500) ", "
	    OP("m0", "aten.mul.Tensor", "'t', 'g0'", 500, "") ", "
	    OP("m1", "aten.mul.Tensor", "'t', 'g1'", 500, "") ", "
	    OP("gx", "aten.cat.default", "'m0', 'm1'", 1000, ""), "'y'", "'gx'");
	ilpi_mincut_options o;

	ilpi_mincut_options_init(&o);
	ck_assert(cut_torch(g, &o, 206, "g0 g1", ""));
	ck_assert(cut_torch(g, &o, 214, "x", "split g0 g1"));
	ilp_graph_free(g);
}
END_TEST

/* A = x @ w tagged MUST_SAVE, B = relu(A) tagged PREFER_RECOMPUTE, the backward reads B.
 * At budget 1 both torches save A. At 0.1 torch 2.6's knapsack offers A (a banned node
 * like any other), cannot keep it within the budget and lifts its ban: A is recomputed,
 * against its tag, and the inputs are saved. torch 2.14 keeps MUST_SAVE nodes out of the
 * knapsack; with nothing left to offer it keeps the aggressive cut, which saves A: more
 * than B(0.1), but the tag holds. */
START_TEST(mc214_must_save_kept_under_budget)
{
	ilp_graph *g = t_graph_parts("", P("x", 400) ", " P("w", 40) ", "
	    OP("a", "aten.mm.default", "'x', 'w'", 4000,
	    ", 'recompute': 'MUST_SAVE', 'ac_graph_id': 1") ", "
	    OP("b", "aten.relu.default", "'a'", 4000,
	    ", 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 1") ", "
	    OP("y", "aten.sum.default", "'b'", 4, "") ", " T("t", 4) ", "
	    OP("gb", "aten.mul.Tensor", "'t', 'b'", 4000, ""), "'y'", "'gb', null");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;

	ilpi_mincut_options_init(&o);
	ck_assert(cut_torch(g, &o, 206, "a", "b"));
	ck_assert(cut_torch(g, &o, 214, "a", "b"));
	o.activation_memory_budget = 0.1;
	ck_assert(!cut_torch(g, &o, 206, "x w", "a b"));
	ck_assert(cut_torch(g, &o, 214, "a", "b"));
	p = run(g, &o, &info);
	ck_assert_str_eq(info.budget_step, "aggressive (no banned node to lift)");
	ck_assert_uint_eq(info.knapsack_items, 0);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	o.torch_version = 206;
	p = run(g, &o, &info);
	ck_assert_str_eq(info.budget_step, "knapsack");
	ck_assert_uint_eq(info.knapsack_items, 1);
	ck_assert_uint_eq(info.knapsack_released, 1);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* Two banned matmuls of equal size and runtime, "zz" before "aa" in the graph; the budget
 * keeps one. The DP keeps the first item of equal worth: torch 2.6 orders the items by
 * name before sorting by size (keeps aa), torch 2.14 by graph order (keeps zz). */
START_TEST(mc214_knapsack_ties_in_graph_order)
{
	ilp_graph *g = t_graph_parts("", P("x", 100) ", "
	    OP("zz", "aten.mm.default", "'x', 'x'", 1000, ", 'flops': 64") ", "
	    OP("aa", "aten.mm.default", "'x', 'x'", 1000, ", 'flops': 64") ", "
	    OP("y", "aten.add.Tensor", "'zz', 'aa'", 1000, "") ", " T("t", 1000) ", "
	    OP("g1", "aten.mul.Tensor", "'t', 'zz'", 1000, "") ", "
	    OP("g2", "aten.mul.Tensor", "'g1', 'aa'", 100, ""), "'y'", "'g2'");
	ilpi_mincut_options o;

	ilpi_mincut_options_init(&o);
	ck_assert(cut_torch(g, &o, 206, "zz aa", ""));
	o.activation_memory_budget = 0.6;
	ck_assert(cut_torch(g, &o, 206, "x aa", "zz"));
	ck_assert(cut_torch(g, &o, 214, "x zz", "aa"));
	ilp_graph_free(g);
}
END_TEST

/* A graph compiled with dynamic shapes has a SymInt primal ("sym"), whose fx value has
 * no storage: torch's get_recomputable_banned_nodes then finds None among the inputs'
 * storages, so a banned node without storage (here the dropout tuple d) is never a
 * knapsack item; only the matmul is, and the backward keeps the mask d1. Without the
 * flag (s an 8-byte tensor) both are items and both bans are lifted. Also torch's
 * sym_node_size: the SymInt weighs 1 whatever its distance, and _size_of counts it 1.
 * (transformers' BART, compiled with dynamic shapes, at budgets 0.5, 0.3, 0.1.) */
static ilp_graph *
sym_dropout_graph(const char *s_extra)
{
	char nodes[2048];

	snprintf(nodes, sizeof nodes, "{'name': 's', 'kind': 'primal', 'bytes': 8%s}, %s",
	    s_extra, P("x", 400) ", " P("w", 400) ", "
	    OP("mm", "aten.mm.default", "'x', 'w'", 4000, ", 'flops': 64") ", "
	    "{'name': 'd', 'kind': 'op', 'target': 'aten.native_dropout.default', "
	    "'inputs': ['mm'], 'tuple': true, 'random': true, 'bytes_written': 5000}, "
	    OP("d0", "getitem", "'d'", 4000, ", 'index': 0") ", "
	    OP("d1", "getitem", "'d'", 1000, ", 'index': 1") ", "
	    OP("y", "aten.sum.default", "'d0'", 4, "") ", " T("t", 4) ", "
	    OP("ge", "aten.mul.Tensor", "'t', 'd1'", 4000, "") ", "
	    OP("gx", "aten.mm.default", "'ge', 'w'", 400, "") ", "
	    OP("gw", "aten.mm.default", "'x', 'ge'", 400, ""));
	return t_graph_parts("'meta': {'torch': '2.14.1'}, ", nodes, "'y'", "null, 'gx', 'gw'");
}

START_TEST(mc_sym_input_knapsack)
{
	ilp_graph *g = sym_dropout_graph(", 'sym': 'int'");
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p;

	ck_assert(t_nd(g, "s")->flags & ILPI_F_SYM);
	ck_assert(ilpi_size_of(g, t_node(g, "s")) == 1);
	ilpi_mincut_options_init(&o);
	o.activation_memory_budget = 0.1;
	p = run(g, &o, &info);
	expect(g, p, ILPI_P_SAVED, "x w d1");
	ck_assert_uint_eq(info.knapsack_items, 1);
	ck_assert(weight_of(g, &info, "s") == 1);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);

	g = sym_dropout_graph("");
	ck_assert(!(t_nd(g, "s")->flags & ILPI_F_SYM));
	p = run(g, &o, &info);
	expect(g, p, ILPI_P_SAVED, "x w");
	expect(g, p, ILPI_P_RECOMPUTED, "mm d d1");
	ck_assert_uint_eq(info.knapsack_items, 2);
	ck_assert(weight_of(g, &info, "s") > 1);
	ilpi_mincut_info_free(&info);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* Which rules a version gets: the nearest of 2.6 and 2.14 (a tie: the newer), from
 * --torch, else the graph's meta.torch, else the newest. */
START_TEST(mc214_version_choice)
{
	static const struct {
		const char *v;
		int want;
	} cases[] = { { "2.6", 206 }, { "2.6.0+debian", 206 }, { "2.7.1", 206 },
	    { "2.9.0a0+git1234", 206 }, { "2.10", 214 }, { "2.14.1", 214 }, { "2.15", 214 },
	    { "3.0", 214 }, { "1.13.1", 206 } };
	static const char *const bad[] = { "", "2", "2.", ".6", "x2.6", "2.6x", "2.100",
	    "nightly" };
	ilp_graph *g = sin_cos("aten.sin.default", "");
	ilpi_mincut_options o;

	ilpi_mincut_options_init(&o);
	ck_assert_int_eq(ilpi_mincut_torch_rules(g, &o), 214); /* no meta.torch */
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		o.torch_version = ilpi_torch_version_parse(cases[k].v);
		ck_assert_msg(ilpi_mincut_torch_rules(g, &o) == cases[k].want, "%s", cases[k].v);
	}
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		ck_assert_msg(ilpi_torch_version_parse(bad[k]) < 0, "'%s'", bad[k]);
	ilp_graph_free(g);
	/* the graph's meta.torch, kept by the writer; --torch over it */
	g = t_graph_q("{'format': 'ilpart-joint-graph', 'version': 1, 'nodes': ["
	    P("x", 8) ", " OP("s", "aten.sin.default", "'x'", 8, "") ", " T("t", 8) ", "
	    OP("m", "aten.mul.Tensor", "'t', 's'", 8, "") "], 'outputs': {'forward': ['s'], "
	    "'backward': ['m']}, 'meta': {'torch': '2.6.0+debian', 'other': [1]}}");
	o.torch_version = 0;
	ck_assert_str_eq(g->torch, "2.6.0+debian");
	ck_assert_int_eq(ilpi_mincut_torch_rules(g, &o), 206);
	o.torch_version = 214;
	ck_assert_int_eq(ilpi_mincut_torch_rules(g, &o), 214);
	{
		ilp_graph *h = NULL;
		ilp_error err = { 0 };
		char *json = NULL;

		ck_assert_int_eq(ilp_graph_to_json(g, &json, &err), 0);
		ck_assert_int_eq(ilp_graph_read_buffer(json, strlen(json), "x", &h, &err), 0);
		ck_assert_str_eq(h->torch, "2.6.0+debian");
		ck_assert_int_eq(h->torch_version, 206);
		free(json);
		ilp_graph_free(h);
	}
	ilp_graph_free(g);
}
END_TEST

START_TEST(complete_walks_back)
{
	/* saving only x: the backward recomputes sin (for m1) and nothing else; saving
	 * x and cos: cos is never read by the backward and is pruned */
	ilp_graph *g = sin_cos("aten.sin.default", "");
	ilp_partition *p = ilp_partition_new(g);

	p->state[t_node(g, "x")] |= ILPI_P_SAVED;
	p->state[t_node(g, "cos")] |= ILPI_P_SAVED;
	ilpi_partition_complete(g, p, 0);
	expect(g, p, ILPI_P_RECOMPUTED, "sin");
	expect(g, p, ILPI_P_SAVED, "x cos");
	ilpi_partition_complete(g, p, 1);
	expect(g, p, ILPI_P_SAVED, "x");
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* Parity on the corpora of real joint graphs exported with PyTorch's own saved set as
 * reference "pytorch-X.Y-mincut": tests/data/corpus from torch 2.6, tests/data/corpus214
 * from torch 2.14 (scripts/gen_corpus214.py). ilpart's saved set, under the rules the
 * graph's meta.torch picks, must equal PyTorch's, graph by graph. */
typedef struct parity_run {
	const char *ref_name; /* PyTorch's saved set, recorded in the graph */
	double budget;        /* torch's activation_memory_budget */
	int via_graph;        /* the budget as the graph's memory_budget, config at 1 */
	int equal;
	int torch;            /* --torch (0: the graph's meta.torch) */
	int quiet;            /* count only: no checker assertion */
	int same_verdict;     /* budget 1: the checker judges ilpart's partition as it judges
	                       * PyTorch's (torch 2.14 may break a tag; 0: must be clean) */
	int rejected;         /* budget 1: partitions the checker rejects */
} parity_run;

/* g with memory_budget `budget` on its last node, written and read back. */
static ilp_graph *
with_budget_field(ilp_graph *g, double budget)
{
	ilp_graph *h = NULL;
	ilp_error err = { 0 };
	char *json = NULL;

	g->memory_budget = budget;
	g->memory_budget_node = (int32_t)(g->n - 1);
	ck_assert_int_eq(ilp_graph_to_json(g, &json, &err), 0);
	ck_assert_int_eq(ilp_graph_read_buffer(json, strlen(json), g->path, &h, &err), 0);
	ck_assert(h->memory_budget == budget);
	ck_assert_int_eq(h->memory_budget_node, (int32_t)(h->n - 1));
	free(json);
	return h;
}

static long
parity_one(const char *path, ilp_graph *g, void *ctx)
{
	parity_run *pr = ctx;
	const char *name = strrchr(path, '/') + 1;
	char diff[1024] = "";
	size_t len = 0;
	ilp_graph *h = NULL;
	ilp_partition *p = NULL;
	ilpi_mincut_options o;
	ilp_error err = { 0 };
	long ref = t_ref_find(g, pr->ref_name);
	uint8_t *want;

	if (ref < 0)
		return 0;
	ilpi_mincut_options_init(&o);
	o.check = 0;
	o.torch_version = pr->torch;
	o.activation_memory_budget = pr->budget;
	/* no memory_budget field: the configured budget stands */
	ck_assert_int_eq(ilpi_mincut_budget_of_graph(g, &o), 0);
	ck_assert(o.activation_memory_budget == pr->budget);
	if (pr->via_graph) {
		h = with_budget_field(g, pr->budget);
		o.activation_memory_budget = 1.0;
		ck_assert_int_eq(ilpi_mincut_budget_of_graph(h, &o), 1);
		g = h;
	}
	ck_assert_msg(ilpi_mincut_run(g, &o, &p, NULL, &err) == 0, "%s: %s", name, err.msg);
	want = calloc(g->n + 1, 1);
	for (size_t k = 0; k < g->ref[ref].n_saved; k++)
		want[g->ref[ref].saved[k]] = 1;
	for (size_t i = 0; i < g->n && len < 900; i++)
		if ((want[i] != 0) != (ilpi_saved(p, i) != 0))
			len += (size_t)snprintf(diff + len, sizeof diff - len, " %s%s",
			    want[i] ? "-" : "+", g->node[i].name);
	if (!pr->quiet)
		fprintf(stderr, "mincut parity %-5g %-28s %s%s%s\n", pr->budget, name,
		    diff[0] ? "DIFFERS (+ilpart only, -torch only):" : "equal", diff,
		    pr->via_graph ? " (memory_budget field)" : "");
	pr->equal += diff[0] == '\0';
	if (pr->budget >= 1 && !pr->quiet && !pr->same_verdict)
		ck_assert_int_eq(ilp_check(g, p, &(ilp_check_options){ ILP_PREFER_PYTORCH },
		    &err), 0);
	if (pr->budget >= 1 && !pr->quiet && pr->same_verdict) {
		ilp_partition *r = NULL;
		int mine = ilp_check(g, p, &(ilp_check_options){ ILP_PREFER_PYTORCH }, &err) != 0;

		ck_assert_int_eq(ilpi_partition_from_ref(g, (size_t)ref, &r, &err), 0);
		ck_assert_msg(mine == (ilp_check(g, r, &(ilp_check_options){
		    ILP_PREFER_PYTORCH }, &err) != 0), "%s: the checker judges ilpart's and "
		    "PyTorch's partitions apart", name);
		if (mine)
			fprintf(stderr, "mincut parity %-5g %-28s torch breaks a tag, as ilpart's "
			    "partition does: %s\n", pr->budget, name, err.msg);
		pr->rejected += mine;
		ilp_partition_free(r);
	}
	free(want);
	ilp_partition_free(p);
	ilp_graph_free(h);
	return 1;
}

/* ilpart's min-cut against PyTorch's saved set recorded as reference `ref` in every
 * corpus graph, at torch's activation_memory_budget `budget`; reports graph by graph. */
static void
corpus_parity(const char *ref_name, double budget, int via_graph)
{
	parity_run pr = { ref_name, budget, via_graph, 0, 0, 0, 0, 0 };
	long graphs = t_each_corpus_graph(parity_one, &pr);

	ck_assert_int_gt(graphs, 0);
	ck_assert_msg(pr.equal == graphs, "%s: parity on %d of %ld corpus graphs", ref_name,
	    pr.equal, graphs);
}

/* Tensor-parallel graphs with collectives (scripts/gen_distributed.py, torch 2.14, two
 * ranks): saved sets equal to torch's at budget 1, and checked. In tp-sac.json each
 * sublayer's all-reduce is PREFER_RECOMPUTE in a SAC region: torch recomputes the
 * first in the backward (its must_recompute exempts it from force_save_collectives),
 * and keeps the MUST_SAVE matmul before the second saved although no gradient needs it
 * (the all-reduce and its wait_tensor stay in the backward graph it extracts until
 * dead-code elimination, which keeps the wait). Both fail without the matching rule. */
START_TEST(parity_distributed)
{
	parity_run pr = { "pytorch-2.14-mincut", 1.0, 0, 0, 0, 0, 0, 0 };
	long graphs = t_each_graph_in("tests/data/distributed", parity_one, &pr);

	ck_assert_int_ge(graphs, 2);
	ck_assert_msg(pr.equal == graphs, "parity on %d of %ld tensor-parallel graphs",
	    pr.equal, graphs);
}
END_TEST

/* The torch 2.14 corpus at budget 1, 0.1, 0.3 and 0.5 (_i), under the graphs' own
 * meta.torch: every saved set equal to torch 2.14's, and at budget 1 the checker's
 * verdict on it the same as on PyTorch's (torch 2.14 recomputes a getitem that ends a
 * checkpoint region of BERT, against the MUST_SAVE its own cleanup_recompute_tags gave
 * it: ilpart reproduces it, and `ilpart mincut` reports the broken tag). The same
 * references under torch 2.6's rules (--torch 2.6) are counted too: the corpus must tell
 * the two apart (most of its graphs save parameters, which 2.6 saves as their
 * transposes). */
START_TEST(parity_corpus214)
{
	static const double f[] = { 1.0, 0.1, 0.3, 0.5 };
	char name[64];
	parity_run pr = { name, f[_i], 0, 0, 0, 0, 1, 0 }, old;
	long graphs;

	if (f[_i] >= 1)
		snprintf(name, sizeof name, "pytorch-2.14-mincut");
	else
		snprintf(name, sizeof name, "pytorch-2.14-mincut-budget-%g", f[_i]);
	graphs = t_each_graph_in("tests/data/corpus214", parity_one, &pr);
	old = pr;
	old.equal = 0;
	old.torch = 206;
	old.quiet = 1;
	ck_assert_int_eq(t_each_graph_in("tests/data/corpus214", parity_one, &old), graphs);
	fprintf(stderr, "mincut parity %-5g torch 2.14 corpus: %d of %ld equal (with torch "
	    "2.6's rules instead: %d)%s\n", f[_i], pr.equal, graphs, old.equal,
	    f[_i] >= 1 && pr.rejected ? "; PyTorch's partition breaks a tag on some (above)" :
	    "");
	ck_assert_int_ge(graphs, 8);
	ck_assert_msg(pr.equal == graphs, "%s: parity on %d of %ld corpus graphs", name,
	    pr.equal, graphs);
	ck_assert_msg(old.equal < graphs / 2, "%s: torch 2.6's rules give torch 2.14's saved "
	    "set on %d of %ld graphs: the corpus does not tell the rules apart", name,
	    old.equal, graphs);
}
END_TEST

START_TEST(parity_corpus)
{
	corpus_parity("pytorch-2.6-mincut", 1.0, 0);
}
END_TEST

/* torch's memory-budget path (knapsack over banned nodes), docs/mincut.md */
START_TEST(parity_corpus_budget)
{
	static const double f[] = { 0.1, 0.3, 0.5 };
	char name[64];

	snprintf(name, sizeof name, "pytorch-2.6-mincut-budget-%g", f[_i]);
	corpus_parity(name, f[_i], 0);
}
END_TEST

/* torch 2.6 takes the first node's float meta["memory_budget"] over
 * config.activation_memory_budget: a corpus graph given the node field (written and
 * read back) reaches PyTorch's saved set at 0.3 with the config at 1. */
START_TEST(mc_budget_of_graph)
{
	corpus_parity("pytorch-2.6-mincut-budget-0.3", 0.3, 1);
}
END_TEST

/* activation_memory_budget_runtime_estimator=profile takes each knapsack item's
 * time_us: with none it fails naming the option; with time_us = 1 ms everywhere it cuts
 * as "testing" does, with time_us = 1000 * max(flops, 1) as "flops" does. Counts the
 * graphs whose cut at 0.1 reaches the knapsack. */
static long
profile_one(const char *path, ilp_graph *g, void *ctx)
{
	ilpi_mincut_options o;
	ilpi_mincut_info info;
	ilp_partition *p = NULL, *q = NULL;
	ilp_error err = { 0 };

	(void)ctx;
	ilpi_mincut_options_init(&o);
	o.check = 0;
	o.activation_memory_budget = 0.1;
	ck_assert_int_eq(ilpi_mincut_options_set(&o,
	    "activation_memory_budget_runtime_estimator", "profile"), 0);
	for (size_t i = 0; i < g->n; i++)
		g->node[i].time_us = ILPI_UNKNOWN_COST;
	if (ilpi_mincut_run(g, &o, &p, &info, &err) == 0) {
		/* the knapsack was not reached (an earlier cut met the budget) */
		ck_assert_int_eq(info.knapsack_items, 0);
		ilpi_mincut_info_free(&info);
		ilp_partition_free(p);
		return 0;
	}
	ck_assert_msg(strstr(err.msg, "activation_memory_budget_runtime_estimator"
	    "=profile") != NULL && strstr(err.msg, "time_us") != NULL, "%s", err.msg);
	for (int pass = 0; pass < 2; pass++) {
		const char *as = pass == 0 ? "testing" : "flops";

		for (size_t i = 0; i < g->n; i++) {
			const ilpi_node *nd = &g->node[i];
			double fl = nd->flops > 1 ? nd->flops : 1;

			if (nd->target != NULL && strstr(nd->target, "_for_cpu") != NULL)
				fl = 1;
			g->node[i].time_us = pass == 0 ? 1000 : 1000 * fl;
		}
		ck_assert_int_eq(ilpi_mincut_options_set(&o,
		    "activation_memory_budget_runtime_estimator", "profile"), 0);
		ck_assert_msg(ilpi_mincut_run(g, &o, &p, NULL, &err) == 0, "%s", err.msg);
		ck_assert_int_eq(ilpi_mincut_options_set(&o,
		    "activation_memory_budget_runtime_estimator", as), 0);
		ck_assert_int_eq(ilpi_mincut_run(g, &o, &q, NULL, &err), 0);
		for (size_t i = 0; i < g->n; i++)
			ck_assert_msg(!ilpi_saved(p, i) == !ilpi_saved(q, i), "%s as %s: %s",
			    path, as, g->node[i].name);
		ilp_partition_free(p);
		ilp_partition_free(q);
	}
	return 1;
}

START_TEST(mc_profile_estimator)
{
	ck_assert_int_gt(t_each_corpus_graph(profile_one, NULL), 0);
}
END_TEST

/* ---- knapsack (torch's budget path) ---------------------------------------------- */

/* The best runtime kept within max over all subsets (memory on the 1e-4 grid, so the
 * DP's quantisation is exact). */
static double
knap_brute(const double *mem, const double *rt, size_t n, double max)
{
	double best = 0;

	for (unsigned s = 0; s < (1u << n); s++) {
		double m = 0, r = 0;

		for (size_t i = 0; i < n; i++)
			if (s & (1u << i)) {
				m += mem[i];
				r += rt[i];
			}
		if (m <= max + 1e-12 && r > best)
			best = r;
	}
	return best;
}

START_TEST(knapsack_optimal)
{
	ilp_error err = { 0 };

	t_rng_seed(&rng, 1);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + (size_t)(trial % 10);
		double mem[10], rt[10], max, best, got[2];
		uint8_t save[10];

		for (size_t i = 0; i < n; i++) {
			mem[i] = (double)(t_rand(&rng) % 400) / 1000;   /* 0 .. 0.399 */
			rt[i] = (double)(1 + t_rand(&rng) % 64);         /* exact in float32 */
		}
		max = (double)(t_rand(&rng) % 1000) / 1000;
		best = knap_brute(mem, rt, n, max);
		for (int solver = 0; solver < 2; solver++) {
			double m = 0;

			if (solver == 0)
				ck_assert_int_eq(ilpi_knapsack_dp(mem, rt, n, max, save, &err), 0);
			else
				ck_assert_int_eq(ilpi_knapsack_ilp(mem, rt, n, max, save, &err), 0);
			got[solver] = 0;
			for (size_t i = 0; i < n; i++)
				if (save[i]) {
					m += mem[i];
					got[solver] += rt[i];
				}
			ck_assert_msg(m <= max + 1e-9, "trial %d solver %d over budget", trial,
			    solver);
			ck_assert_msg(got[solver] == best, "trial %d solver %d: %g, best %g", trial,
			    solver, got[solver], best);
		}
	}
}
END_TEST

START_TEST(knapsack_torch_arithmetic)
{
	/* greedy: by runtime/memory, stable on ties; 3 (ratio 10) then 0 and 2 (ratio 5,
	 * kept in index order), 1 no longer fits */
	const double mem[] = { 0.2, 0.5, 0.2, 0.1 }, rt[] = { 1, 1, 1, 1 };
	const double mem2[] = { 0.2, 0.5, 0.2, 0.1 }, rt2[] = { 1, 4, 1, 1 };
	/* dp quantises round(m * 10000) half to even, as Python does: 0.00025 -> 2 fits in
	 * 0.0002 -> 2; 0.00045 -> 4 fits in 0.00035 -> 4, not in 0.00034 -> 3 */
	const double qm[] = { 0.00025, 0.00045 }, qr[] = { 1, 1 };
	uint8_t save[4];
	ilp_error err = { 0 };

	ilpi_knapsack_greedy(mem, rt, 4, 0.5, save);
	ck_assert(save[3] && save[0] && save[2] && !save[1]);
	ilpi_knapsack_greedy(mem2, rt2, 4, 0.5, save);
	ck_assert(save[3] && save[0] && !save[1] && save[2]);
	ck_assert_int_eq(ilpi_knapsack_dp(qm, qr, 1, 0.0002, save, &err), 0);
	ck_assert(save[0]);
	ck_assert_int_eq(ilpi_knapsack_dp(qm + 1, qr, 1, 0.00035, save, &err), 0);
	ck_assert(save[0]);
	ck_assert_int_eq(ilpi_knapsack_dp(qm + 1, qr, 1, 0.00034, save, &err), 0);
	ck_assert(!save[0]);
	ck_assert_int_eq(ilpi_knapsack_solver_parse("greedy"), ILPI_KNAPSACK_GREEDY);
	ck_assert_int_eq(ilpi_knapsack_solver_parse("scipy"), -1);
}
END_TEST

/* ---- cross-checks ------------------------------------------------------------------ */

/* A random joint graph: np primals, nf forward ops, one tangent, nb backward ops;
 * every op reads one or two earlier values; sizes 1..9 * 8 bytes. */
static ilp_graph *
random_graph(int np, int nf, int nb)
{
	char *nodes = malloc(16384), fw[64], bw[256];
	size_t len = 0, blen = 0;
	int total = np + nf;
	ilp_graph *g;

	ck_assert_ptr_nonnull(nodes);
	nodes[0] = '\0';
	for (int i = 0; i < np; i++)
		len += (size_t)snprintf(nodes + len, 16384 - len, "%s{'name': 'p%d', 'kind': "
		    "'primal', 'bytes': %u}", i ? ", " : "", i, 8 * (1 + t_rand(&rng) % 9));
	for (int i = 0; i < nf; i++) {
		int a = (int)t_below(&rng, (uint32_t)(np + i));
		int b = (int)t_below(&rng, (uint32_t)(np + i));
		char na[16], nbuf[16];

		snprintf(na, sizeof na, a < np ? "p%d" : "f%d", a < np ? a : a - np);
		snprintf(nbuf, sizeof nbuf, b < np ? "p%d" : "f%d", b < np ? b : b - np);
		len += (size_t)snprintf(nodes + len, 16384 - len, ", {'name': 'f%d', 'kind': "
		    "'op', 'target': 'aten.add.Tensor', 'inputs': ['%s', '%s'], 'bytes': %u}",
		    i, na, nbuf, 8 * (1 + t_rand(&rng) % 9));
	}
	len += (size_t)snprintf(nodes + len, 16384 - len, ", {'name': 't', 'kind': "
	    "'tangent', 'bytes': 8}");
	for (int i = 0; i < nb; i++) {
		int a = (int)(t_rand(&rng) % (unsigned)total);
		char na[16], prev[16];

		snprintf(na, sizeof na, a < np ? "p%d" : "f%d", a < np ? a : a - np);
		snprintf(prev, sizeof prev, i ? "b%d" : "t", i - 1);
		len += (size_t)snprintf(nodes + len, 16384 - len, ", {'name': 'b%d', 'kind': "
		    "'op', 'target': 'aten.mul.Tensor', 'inputs': ['%s', '%s'], 'bytes': 8}",
		    i, prev, na);
	}
	snprintf(fw, sizeof fw, "'f%d'", nf - 1);
	blen += (size_t)snprintf(bw, sizeof bw, "'b%d'", nb - 1);
	g = t_graph_parts("", nodes, fw, bw);
	free(nodes);
	return g;
}

/* Cheapest saved set by enumeration: every value the backward needs is saved or
 * recomputable from saved values; primals and banned ops cannot be recomputed. */
static int
feasible_needs(const ilp_graph *g, const uint8_t *banned, uint32_t mask, const int32_t *idx,
    size_t i, uint8_t *seen)
{
	const ilpi_node *n = &g->node[i];

	if (n->cls == ILPI_BACKWARD || seen[i])
		return 1;
	seen[i] = 1;
	for (size_t k = 0; idx[k] >= 0; k++)
		if ((size_t)idx[k] == i && (mask >> k & 1u))
			return 1;
	if (n->kind != ILPI_OP || banned[i])
		return 0;
	for (uint32_t k = 0; k < n->in_count; k++)
		if (!feasible_needs(g, banned, mask, idx, (size_t)ilpi_inputs(g, n)[k], seen))
			return 0;
	return 1;
}

static double
brute_force(const ilp_graph *g, const double *w, const uint8_t *banned)
{
	int32_t idx[24];
	size_t m = 0;
	double best = INFINITY;
	uint8_t *seen = malloc(g->n);

	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].cls != ILPI_BACKWARD && g->node[i].cls != ILPI_DEAD)
			idx[m++] = (int32_t)i;
	idx[m] = -1;
	ck_assert_uint_le(m, 20);
	for (uint32_t mask = 0; mask < (1u << m); mask++) {
		double c = 0;
		int ok = 1;

		memset(seen, 0, g->n);
		for (size_t k = 0; k < m; k++)
			if (mask >> k & 1u)
				c += w[idx[k]];
		if (c >= best)
			continue;
		for (size_t i = 0; i < g->n && ok; i++) {
			const ilpi_node *n = &g->node[i];

			if (n->cls != ILPI_BACKWARD || n->kind != ILPI_OP)
				continue;
			for (uint32_t k = 0; k < n->in_count && ok; k++)
				ok = feasible_needs(g, banned, mask, idx,
				    (size_t)ilpi_inputs(g, n)[k], seen);
		}
		if (ok)
			best = c;
	}
	free(seen);
	return best;
}

START_TEST(pure_equals_brute_force)
{
	t_rng_seed(&rng, 777);
	for (int trial = 0; trial < 60; trial++) {
		ilp_graph *g = random_graph(2 + (int)t_below(&rng, 3), 3 + (int)t_below(&rng, 8),
		    1 + (int)t_below(&rng, 4));
		double *w = malloc(g->n * sizeof *w), v = -1, sum = 0;
		uint8_t *banned = calloc(g->n, 1), *saved = calloc(g->n, 1);
		ilp_error err = { 0 };

		for (size_t i = 0; i < g->n; i++) {
			w[i] = (double)(1 + t_rand(&rng) % 50);
			banned[i] = t_rand(&rng) % 5 == 0;
		}
		ck_assert_msg(ilpi_mincut_pure(g, w, banned, saved, &v, &err) == 0, "%s",
		    err.msg);
		for (size_t i = 0; i < g->n; i++)
			if (saved[i])
				sum += w[i];
		ck_assert_msg(v == brute_force(g, w, banned), "trial %d: cut %g", trial, v);
		ck_assert(sum == v);
		free(w);
		free(banned);
		free(saved);
		ilp_graph_free(g);
	}
}
END_TEST

START_TEST(pure_equals_ilp_memory_optimum)
{
	/* With no bans, no tags, no views and each node weighted by its bytes, the
	 * minimum cut and the ILP's least saved bytes solve the same problem. */
	t_rng_seed(&rng, 4242);
	for (int trial = 0; trial < 25; trial++) {
		ilp_graph *g = random_graph(2 + (int)t_below(&rng, 3), 3 + (int)t_below(&rng, 10),
		    1 + (int)t_below(&rng, 4));
		double *w = malloc(g->n * sizeof *w), v = -1;
		uint8_t *saved = calloc(g->n, 1);
		ilp_solve_options so;
		ilp_partition *p = NULL;
		ilp_error err = { 0 };

		for (size_t i = 0; i < g->n; i++)
			w[i] = (double)g->node[i].bytes;
		ck_assert_msg(ilpi_mincut_pure(g, w, NULL, saved, &v, &err) == 0, "%s", err.msg);
		ilp_solve_options_init(&so);
		so.objective = ILP_OBJ_MEMORY;
		so.bans = ILP_BANS_NONE;
		ck_assert_msg(ilp_solve(g, &so, &p, &err) == 0, "ilp: %s", err.msg);
		ck_assert_int_eq(ilp_partition_evaluate(g, p, NULL, &err), 0);
		ck_assert_msg((double)p->saved_bytes == v, "trial %d: ilp %lld, min-cut %g", trial,
		    (long long)p->saved_bytes, v);
		ilp_partition_free(p);
		free(w);
		free(saved);
		ilp_graph_free(g);
	}
}
END_TEST

Suite *
suite_mincut(void)
{
	Suite *s = suite_create("mincut");
	TCase *tc = tcase_create("maxflow");

	tcase_add_test(tc, flow_clrs);
	tcase_add_test(tc, flow_two_cuts);
	tcase_add_test(tc, flow_infinite);
	tcase_add_test(tc, flow_brute_force);
	suite_add_tcase(s, tc);
	tc = tcase_create("heuristic");
	tcase_add_test(tc, mc_pointwise_recomputed);
	tcase_add_test(tc, mc_allowlist_and_denylist);
	tcase_add_test(tc, mc_must_save_and_views);
	tcase_add_test(tc, mc_must_recompute);
	tcase_add_test(tc, mc_region_end);
	tcase_add_test(tc, mc_reduction);
	tcase_add_test(tc, mc_materialized_backward);
	tcase_add_loop_test(tc, mc_forward_op_as_gradient, 0, 2);
	tcase_add_test(tc, mc214_parameters_free_to_save);
	tcase_add_test(tc, mc214_lifted_constant_recomputed);
	tcase_add_test(tc, mc214_split_is_a_view);
	tcase_add_test(tc, mc214_must_save_kept_under_budget);
	tcase_add_test(tc, mc214_knapsack_ties_in_graph_order);
	tcase_add_test(tc, mc_sym_input_knapsack);
	tcase_add_test(tc, mc214_version_choice);
	tcase_add_test(tc, knapsack_hirschberg_torch);
	tcase_add_test(tc, mc_used_far_apart);
	tcase_add_test(tc, mc_long_fusible_chain);
	tcase_add_test(tc, mc_other_bans);
	tcase_add_test(tc, mc_unbounded);
	tcase_add_test(tc, mc_seed_float8);
	tcase_add_test(tc, complete_walks_back);
	tcase_add_test(tc, knapsack_optimal);
	tcase_add_test(tc, knapsack_torch_arithmetic);
	suite_add_tcase(s, tc);
	tc = tcase_create("parity");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, parity_corpus);
	tcase_add_loop_test(tc, parity_corpus_budget, 0, 3);
	tcase_add_loop_test(tc, parity_corpus214, 0, 4);
	tcase_add_test(tc, parity_distributed);
	tcase_add_test(tc, mc_budget_of_graph);
	tcase_add_test(tc, mc_profile_estimator);
	suite_add_tcase(s, tc);
	tc = tcase_create("cross-check");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pure_equals_brute_force);
	tcase_add_test(tc, pure_equals_ilp_memory_optimum);
	suite_add_tcase(s, tc);
	return s;
}
