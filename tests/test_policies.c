/*
 * test_policies.c - SAC rules (every tag rule in every --prefer mode, region
 * boundaries, getitem, views, primals, tuples, random/effectful/collective ops, the
 * PyTorch bans), conflict chains, policy files (good ones and each error), applying
 * policies, and the seed float8 example under the seed's policy.
 *
 * JSON is written with single quotes for readability; t_q() turns them into double quotes.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/region.h"
#include "policies/policy_file.h"
#include "policies/rules.h"
#include "tests/suites.h"
#include "tests/util.h"

/* ---- helpers ------------------------------------------------------------------------ */

static void
build(const ilp_graph *g, ilp_prefer_mode prefer, ilp_bans bans, ilpi_rules *r)
{
	ilpi_rule_options o;
	ilp_error err = { 0 };

	ilpi_rule_options_init(&o);
	o.prefer = prefer;
	o.bans = bans;
	ck_assert_msg(ilpi_rules_build(g, &o, r, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(r->n, ilp_graph_node_count(g));
}

static unsigned
bits(const ilp_graph *g, const ilpi_rules *r, const char *name)
{
	return r->bits[t_node(g, name)];
}

static ilpi_reason
why_ns(const ilp_graph *g, const ilpi_rules *r, const char *name)
{
	return (ilpi_reason)r->why_no_save[t_node(g, name)];
}

static ilpi_reason
why_nr(const ilp_graph *g, const ilpi_rules *r, const char *name)
{
	return (ilpi_reason)r->why_no_recompute[t_node(g, name)];
}

/* Nodes sized by shape (f32) instead of util.h's bytes: a primal, a tangent, an op;
 * `extra` is more keys, starting with ", " or empty. */
#define PS(name, shape) "{'name': '" name "', 'kind': 'primal', 'shape': " shape \
	", 'dtype': 'f32'}"
#define TS(name, shape) "{'name': '" name "', 'kind': 'tangent', 'shape': " shape \
	", 'dtype': 'f32'}"
#define OPS(name, target, inputs, shape, extra) "{'name': '" name "', 'kind': 'op', " \
	"'target': '" target "', 'inputs': " inputs ", 'shape': " shape ", 'dtype': 'f32'" \
	extra "}"

/*
 * The basic tagged chain: x -> a -> b -> (forward output b), backward uses a and b.
 *   a = relu(x), b = relu(a); bw: g = threshold_backward(t, b); g2 = mul(g, a)
 */
static ilp_graph *
chain_graph(const char *tag_a, const char *tag_b)
{
	char nodes[4096];

	snprintf(nodes, sizeof nodes, "%s, %s, %s, %s, %s, %s",
	    PS("x", "[4, 4]"),
	    tag_a, tag_b,
	    TS("t", "[4, 4]"),
	    OPS("g", "aten.threshold_backward.default", "['t', 'b']", "[4, 4]", ""),
	    OPS("g2", "aten.mul.Tensor", "['g', 'a']", "[4, 4]", ""));
	return t_graph_outputs("", nodes, "{'forward': ['b'], 'backward': ['g2']}");
}

#define A(extra) OPS("a", "aten.relu.default", "['x']", "[4, 4]", extra)
#define B(extra) OPS("b", "aten.relu.default", "['a']", "[4, 4]", extra)
#define IN1(tag) ", 'recompute': '" tag "', 'ac_graph_id': 1"

/* ---- tag rules per mode --------------------------------------------------------------- */

START_TEST(must_save_forbids_recompute)
{
	ilp_graph *g = chain_graph(A(IN1("MUST_SAVE")), B(""));
	ilpi_rules r;

	for (int m = 0; m < 3; m++) {
		build(g, (ilp_prefer_mode)m, ILP_BANS_NONE, &r);
		ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
		ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_TAG);
		ck_assert_uint_eq(bits(g, &r, "b"), 0);
		ilpi_rules_free(&r);
	}
	ilp_graph_free(g);
}
END_TEST

START_TEST(must_save_view_is_exempt)
{
	ilp_graph *g = chain_graph(A(""),
	    OPS("b", "aten.view.default", "['a']", "[4, 4]", ", 'view_of': 'a'" IN1("MUST_SAVE")));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "b") & ILPI_R_NO_RECOMPUTE, 0);
	ck_assert_uint_eq(bits(g, &r, "b") & ILPI_R_NO_SAVE, 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(must_recompute_forbids_save)
{
	ilp_graph *g = chain_graph(A(IN1("MUST_RECOMPUTE")), B(""));
	ilpi_rules r;

	for (int m = 0; m < 3; m++) {
		build(g, (ilp_prefer_mode)m, ILP_BANS_NONE, &r);
		ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_SAVE);
		ck_assert_int_eq(why_ns(g, &r, "a"), ILPI_WHY_TAG);
		ilpi_rules_free(&r);
	}
	ilp_graph_free(g);
}
END_TEST

START_TEST(prefer_recompute_by_mode)
{
	ilp_graph *g = chain_graph(A(IN1("PREFER_RECOMPUTE")), B(""));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_PYTORCH, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_SOFT, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_PREFER_RECOMPUTE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(prefer_save_by_mode)
{
	ilp_graph *g = chain_graph(A(IN1("PREFER_SAVE")), B(""));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_TAG);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_PYTORCH, ILP_BANS_NONE, &r); /* treated as untagged */
	ck_assert_uint_eq(bits(g, &r, "a"), 0);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_SOFT, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_PREFER_SAVE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(prefer_save_pytorch_mode_is_subject_to_bans)
{
	/* a = mm(x, x) tagged PREFER_SAVE: untagged in pytorch mode, so the compute ban
	 * applies; tagged PREFER_RECOMPUTE instead, no ban. */
	ilp_graph *g = chain_graph(OPS("a", "aten.mm.default", "['x', 'x']", "[4, 4]",
	    IN1("PREFER_SAVE")), B(""));
	ilp_graph *h = chain_graph(OPS("a", "aten.mm.default", "['x', 'x']", "[4, 4]",
	    IN1("PREFER_RECOMPUTE")), B(""));
	ilpi_rules r;

	build(g, ILP_PREFER_PYTORCH, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_BAN_COMPUTE);
	ilpi_rules_free(&r);
	build(h, ILP_PREFER_PYTORCH, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(h, &r, "a"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
	ilp_graph_free(h);
}
END_TEST

/* ---- region boundary, getitem, primals, tuples, flags -------------------------------- */

START_TEST(boundary_between_regions_is_saved)
{
	ilp_graph *g = chain_graph(A(IN1("PREFER_RECOMPUTE")),
	    B(", 'recompute': 'MUST_RECOMPUTE', 'ac_graph_id': 2"));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_BOUNDARY);
	ck_assert_int_eq(r.tag[t_node(g, "a")], ILPI_TAG_MUST_SAVE);
	ck_assert_uint_eq(bits(g, &r, "b"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	/* soft mode: a PREFER_RECOMPUTE value does not bind, so it ends no region */
	build(g, ILP_PREFER_SOFT, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_PREFER_RECOMPUTE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(boundary_of_must_recompute_in_soft_mode)
{
	ilp_graph *g = chain_graph(A(IN1("MUST_RECOMPUTE")),
	    B(", 'recompute': 'MUST_RECOMPUTE', 'ac_graph_id': 2"));
	ilp_graph *h = chain_graph(A(", 'recompute': 'MUST_RECOMPUTE'"), /* no region */
	    B(", 'recompute': 'MUST_RECOMPUTE', 'ac_graph_id': 2"));
	ilpi_rules r;

	build(g, ILP_PREFER_SOFT, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_BOUNDARY);
	ilpi_rules_free(&r);
	build(h, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(h, &r, "a"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
	ilp_graph_free(h);
}
END_TEST

START_TEST(boundary_needs_later_region_and_recompute_user)
{
	/* user in an earlier region, and an untagged user: no boundary */
	ilp_graph *g = chain_graph(OPS("a", "aten.relu.default", "['x']", "[4, 4]",
	    ", 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 2"), B(IN1("PREFER_RECOMPUTE")));
	ilp_graph *h = chain_graph(A(IN1("PREFER_RECOMPUTE")), B(""));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	build(h, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(h, &r, "a"), ILPI_R_NO_SAVE);
	ck_assert_int_eq(r.tag[t_node(h, "a")], ILPI_TAG_PREFER_RECOMPUTE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
	ilp_graph_free(h);
}
END_TEST

#define TUPLE_GRAPH(tup_extra, get_extra) \
	PS("x", "[4, 4]") ", " \
	"{'name': 'tup', 'kind': 'op', 'target': 'aten.native_layer_norm.default', " \
	"'inputs': ['x'], 'tuple': true" tup_extra "}, " \
	"{'name': 'gi', 'kind': 'op', 'target': 'getitem', 'inputs': ['tup'], 'index': 0, " \
	"'shape': [4, 4], 'dtype': 'f32'" get_extra "}, " \
	OPS("y", "aten.relu.default", "['gi']", "[4, 4]", "") ", " \
	TS("t", "[4, 4]") ", " \
	OPS("gy", "aten.mul.Tensor", "['t', 'gi']", "[4, 4]", "")

START_TEST(getitem_follows_parent)
{
	ilp_graph *g = t_graph_outputs("", TUPLE_GRAPH(IN1("MUST_RECOMPUTE"), ""),
	    "{'forward': ['y'], 'backward': ['gy']}");
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "tup"), ILPI_R_NO_SAVE);
	ck_assert_uint_eq(bits(g, &r, "gi"), ILPI_R_NO_SAVE);
	ck_assert_int_eq(why_ns(g, &r, "gi"), ILPI_WHY_GETITEM);
	ck_assert_int_eq(r.tag[t_node(g, "gi")], ILPI_TAG_MUST_RECOMPUTE);
	ck_assert_int_eq(r.region[t_node(g, "gi")], 1);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(getitem_own_tag_and_region_ignored)
{
	/* PyTorch creates a getitem under its tuple op's metadata, so the tuple's tag and
	 * region are the getitem's (graph/region.c); a different tag or ac_graph_id given
	 * to the getitem itself is not read. parent MUST_SAVE: the getitem may not be
	 * recomputed but may be saved, so the backward's need of it is no conflict. */
	ilp_graph *g = t_graph_outputs("", TUPLE_GRAPH(IN1("MUST_SAVE"),
	    ", 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 2"),
	    "{'forward': ['y'], 'backward': ['gy']}");
	ilpi_rules r;
	ilp_error err = { 0 };

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "tup"), ILPI_R_NO_SAVE | ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_ns(g, &r, "tup"), ILPI_WHY_TUPLE);
	ck_assert_uint_eq(bits(g, &r, "gi"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "gi"), ILPI_WHY_GETITEM);
	ck_assert_int_eq(r.tag[t_node(g, "gi")], ILPI_TAG_MUST_SAVE);
	ck_assert_int_eq(r.region[t_node(g, "gi")], 1);
	ck_assert_int_eq(ilpi_sac_tag(g, (size_t)t_node(g, "gi")), ILPI_TAG_MUST_SAVE);
	ck_assert_int_eq(ilpi_sac_region(g, (size_t)t_node(g, "gi")), 1);
	ck_assert_int_eq(ilpi_rules_find_conflict(g, &r, &err), 0);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_SOFT, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "gi"), ILPI_R_NO_RECOMPUTE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(getitem_later_region_reproducer_f3)
{
	/* issue 9's F3: a getitem whose own ac_graph_id (2) is later than its tuple's (1).
	 * In the tuple's region, nothing ends a region: no node is stashed, and the rules
	 * agree with the checker (which reads the same definitions). */
	ilp_graph *g = t_graph_outputs("", PS("x", "[4]") ", "
	    "{'name': 'tup', 'kind': 'op', 'target': 'aten.native_dropout.default', "
	    "'inputs': ['x'], 'tuple': true, 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 1}, "
	    "{'name': 'g0', 'kind': 'op', 'target': 'getitem', 'inputs': ['tup'], 'index': 0, "
	    "'shape': [4], 'dtype': 'f32', 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 2}, "
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['g0'], "
	    "'shape': [4], 'dtype': 'f32', 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 1}, "
	    TS("t", "[4]") ", "
	    OPS("gx", "aten.threshold_backward.default", "['t', 'y']", "[4]", ""),
	    "{'forward': ['y'], 'backward': ['gx']}");
	ilpi_rules r;
	ilp_error err = { 0 };

	for (int mode = ILP_PREFER_HARD; mode <= ILP_PREFER_SOFT; mode++) {
		for (size_t i = 0; i < g->n; i++)
			ck_assert_int_lt(ilpi_region_end(g, i, (ilp_prefer_mode)mode), 0);
		build(g, (ilp_prefer_mode)mode, ILP_BANS_PYTORCH, &r);
		ck_assert_int_eq(r.region[t_node(g, "g0")], 1);
		ck_assert(!(bits(g, &r, "tup") & ILPI_R_NO_RECOMPUTE));
		ck_assert_int_eq(ilpi_rules_find_conflict(g, &r, &err), 0);
		ilpi_rules_free(&r);
	}
	ilp_graph_free(g);
}
END_TEST

START_TEST(get_attr_cannot_be_saved)
{
	/* A get_attr (here a lifted constant read by the forward and the backward) is
	 * never saved: torch copies it into each graph that uses it. */
	ilp_graph *g = t_graph_outputs("", "{'name': 'x', 'kind': 'primal', 'shape': [4, 4], "
	    "'dtype': 'f32'}, " OPS("k", "get_attr", "[]", "[4, 4]", "") ", "
	    OPS("a", "aten.mul.Tensor", "['x', 'k']", "[4, 4]", "") ", " TS("g", "[4, 4]") ", "
	    OPS("g2", "aten.mul.Tensor", "['g', 'k']", "[4, 4]", ""),
	    "{'forward': ['a'], 'backward': ['g2']}");
	ilpi_rules r;

	for (int b = 0; b < 2; b++) {
		build(g, ILP_PREFER_HARD, b ? ILP_BANS_PYTORCH : ILP_BANS_NONE, &r);
		ck_assert_uint_eq(bits(g, &r, "k"), ILPI_R_NO_SAVE);
		ck_assert_int_eq(why_ns(g, &r, "k"), ILPI_WHY_GET_ATTR);
		ilpi_rules_free(&r);
	}
	ilp_graph_free(g);
}
END_TEST

START_TEST(tuple_cannot_be_saved_and_getitem_inherits_bans)
{
	/* untagged tuple op outside any region: no save (tuple); not in the allowlist,
	 * so banned, and its getitem cannot be recomputed without it */
	ilp_graph *g = t_graph_outputs("", TUPLE_GRAPH("", ""),
	    "{'forward': ['y'], 'backward': ['gy']}");
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "tup"), ILPI_R_NO_SAVE | ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "tup"), ILPI_WHY_BAN_ALLOWLIST);
	ck_assert_uint_eq(bits(g, &r, "gi"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "gi"), ILPI_WHY_GETITEM);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "tup"), ILPI_R_NO_SAVE);
	ck_assert_uint_eq(bits(g, &r, "gi"), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(primals_are_never_recomputed)
{
	ilp_graph *g = chain_graph(A(""), B(""));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "x"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "x"), ILPI_WHY_PRIMAL);
	ck_assert_uint_eq(bits(g, &r, "t"), 0); /* backward: nothing to decide */
	ck_assert_uint_eq(bits(g, &r, "g"), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(random_ops)
{
	const char *nodes = PS("x", "[4, 4]") ", "
	    OPS("a", "aten.native_dropout.default", "['x']", "[4, 4]", ", 'random': true") ", "
	    OPS("b", "aten.relu.default", "['a']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.mul.Tensor", "['t', 'a']", "[4, 4]", "");
	const char *tagged = PS("x", "[4, 4]") ", "
	    OPS("a", "aten.native_dropout.default", "['x']", "[4, 4]", ", 'random': true"
	    IN1("PREFER_RECOMPUTE")) ", "
	    OPS("b", "aten.relu.default", "['a']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.mul.Tensor", "['t', 'a']", "[4, 4]", "");
	const char *out = "{'forward': ['b'], 'backward': ['g']}";
	const char *rng = "'rng_functionalized': true,";
	ilp_graph *g = t_graph_outputs("", nodes, out), *f = t_graph_outputs(rng, nodes, out);
	ilp_graph *ft = t_graph_outputs(rng, tagged, out);
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_RANDOM);
	ilpi_rules_free(&r);
	build(f, ILP_PREFER_HARD, ILP_BANS_NONE, &r); /* functionalised RNG */
	ck_assert_uint_eq(bits(f, &r, "a"), 0);
	ilpi_rules_free(&r);
	build(f, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r); /* but PyTorch bans random ops */
	ck_assert_uint_eq(bits(f, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(f, &r, "a"), ILPI_WHY_BAN_OTHER);
	ilpi_rules_free(&r);
	build(ft, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r); /* ... outside SAC regions */
	ck_assert_uint_eq(bits(ft, &r, "a"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
	ilp_graph_free(f);
	ilp_graph_free(ft);
}
END_TEST

START_TEST(effectful_and_collective_ops)
{
	ilp_graph *g = chain_graph(
	    OPS("a", "aten.relu.default", "['x']", "[4, 4]", ", 'effectful': true"),
	    OPS("b", "_c10d_functional.all_reduce.default", "['a']", "[4, 4]",
	    ", 'collective': true" IN1("PREFER_RECOMPUTE")));
	ilpi_rules r;

	build(g, ILP_PREFER_SOFT, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_EFFECTFUL);
	ck_assert_uint_eq(bits(g, &r, "b"), ILPI_R_NO_RECOMPUTE | ILPI_R_PREFER_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "b"), ILPI_WHY_COLLECTIVE);
	ilpi_rules_free(&r);
	/* Where the collective's own PREFER_RECOMPUTE binds (torch's must_recompute), it
	 * may be recomputed as torch does: only saving is forbidden. */
	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "b"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_PYTORCH, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "b"), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

/* A collective tagged for recomputation that ends its region (a later region's
 * must-recompute op reads it) is stashed, as torch's cleanup_recompute_tags makes it
 * MUST_SAVE before force_save_collectives: never recomputed. */
START_TEST(collective_ending_a_region_stays_saved)
{
	ilp_graph *g = chain_graph(
	    OPS("a", "_c10d_functional.all_reduce.default", "['x']", "[4, 4]",
	    ", 'collective': true" IN1("PREFER_RECOMPUTE")),
	    OPS("b", "aten.relu.default", "['a']", "[4, 4]",
	    ", 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 2"));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert(bits(g, &r, "a") & ILPI_R_NO_RECOMPUTE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

/* ---- bans ----------------------------------------------------------------------------- */

START_TEST(ban_compute_intensive_outside_regions)
{
	ilp_graph *g = chain_graph(OPS("a", "aten.mm.default", "['x', 'x']", "[4, 4]", ""),
	    OPS("b", "aten._scaled_mm.default", "['a', 'x']", "[4, 4]", IN1("MUST_RECOMPUTE")));
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(why_nr(g, &r, "a"), ILPI_WHY_BAN_COMPUTE);
	ck_assert_uint_eq(bits(g, &r, "b"), ILPI_R_NO_SAVE); /* in a region: not banned */
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "a"), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(ban_reduction_allowlist_materialized)
{
	/* s = sum(x) [] from [64, 64]: output 4 B * 4 < 16 KiB -> reduction ban; amax to
	 * [16, 64] is exactly 4x smaller (allowed), to [15, 64] more (banned).
	 * u = aten.foo(x): not in the allowlist. m = relu(x) used by a backward mm: not
	 * fusible -> materialised. k = relu(x) used by threshold_backward only: fusible, ok.
	 * v = permute(x) used by the backward mm: a view, never banned. p = relu(x) is a
	 * forward output: the graph's output node cannot fuse it, so it is materialised
	 * (torch's is_materialized_backwards); s, q4, q3 reach the outputs through fo. */
	const char *nodes = PS("x", "[64, 64]") ", "
	    OPS("s", "aten.sum.default", "['x']", "[]", "") ", "
	    OPS("q4", "aten.amax.default", "['x']", "[16, 64]", "") ", "
	    OPS("q3", "aten.amax.default", "['x']", "[15, 64]", "") ", "
	    OPS("u", "aten.foo.default", "['x']", "[64, 64]", "") ", "
	    OPS("m", "aten.relu.default", "['x']", "[64, 64]", "") ", "
	    OPS("k", "aten.relu.default", "['x']", "[64, 64]", "") ", "
	    OPS("v", "aten.permute.default", "['x']", "[64, 64]", ", 'view_of': 'x'") ", "
	    OPS("o", "aten.add.Tensor", "['k', 'v']", "[64, 64]", "") ", "
	    OPS("fo", "aten.add.Tensor", "['o', 's', 'q4', 'q3']", "[64, 64]", "") ", "
	    OPS("p", "aten.relu.default", "['x']", "[64, 64]", "") ", "
	    TS("t", "[64, 64]") ", "
	    OPS("g1", "aten.mm.default", "['t', 'm']", "[64, 64]", "") ", "
	    OPS("g2", "aten.threshold_backward.default", "['g1', 'k']", "[64, 64]", "") ", "
	    OPS("g3", "aten.mm.default", "['g2', 'v']", "[64, 64]", "") ", "
	    OPS("g4", "aten.mul.Tensor", "['g3', 's']", "[64, 64]", "") ", "
	    OPS("g5", "aten.mul.Tensor", "['g4', 'u']", "[64, 64]", "");
	ilp_graph *g = t_graph_outputs("", nodes,
	    "{'forward': ['fo', 'u', 'm', 'p'], 'backward': ['g5']}");
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_int_eq(why_nr(g, &r, "s"), ILPI_WHY_BAN_REDUCTION);
	ck_assert_uint_eq(bits(g, &r, "q4"), 0); /* exactly 4x smaller: allowed */
	ck_assert_int_eq(why_nr(g, &r, "q3"), ILPI_WHY_BAN_REDUCTION);
	ck_assert_int_eq(why_nr(g, &r, "u"), ILPI_WHY_BAN_ALLOWLIST);
	ck_assert_int_eq(why_nr(g, &r, "m"), ILPI_WHY_BAN_MATERIALIZED);
	ck_assert_uint_eq(bits(g, &r, "k"), 0);
	ck_assert_uint_eq(bits(g, &r, "v"), 0);
	ck_assert_uint_eq(bits(g, &r, "o"), 0);
	ck_assert_int_eq(why_nr(g, &r, "p"), ILPI_WHY_BAN_MATERIALIZED);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_HARD, ILP_BANS_NONE, &r);
	ck_assert_uint_eq(bits(g, &r, "s") | bits(g, &r, "u") | bits(g, &r, "m"), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

/*
 * torch's reduction ban sums the sizes of the node.args that are fx.Nodes: the index
 * tensors of aten.index.Tensor sit in a list argument, so they do not count (BLOOM's
 * causal mask, a [2, 1, 1, 16] bool index of a [2, 16] mask by two int64 aranges: 32
 * bytes out, 32 + 16 + 128 in, which ilpart banned and saved where torch recomputes it).
 * With "nested_inputs" the list's tensors are left out of the sum; without it, as before.
 */
#define INDEX_MASK(extra) \
	"{'name': 'm', 'kind': 'primal', 'shape': [2, 16], 'dtype': 'b8'}, " \
	"{'name': 'i', 'kind': 'primal', 'shape': [2, 1, 1, 1], 'dtype': 'i64'}, " \
	"{'name': 'j', 'kind': 'primal', 'shape': [1, 1, 1, 16], 'dtype': 'i64'}, " \
	"{'name': 'x', 'kind': 'primal', 'shape': [2, 1, 16, 16], 'dtype': 'b8'}, " \
	"{'name': 'y', 'kind': 'op', 'target': 'aten.index.Tensor', " \
	"'inputs': ['m', 'i', 'j'], 'shape': [2, 1, 1, 16], 'dtype': 'b8'" extra "}, " \
	"{'name': 'z', 'kind': 'op', 'target': 'aten.bitwise_and.Tensor', " \
	"'inputs': ['x', 'y'], 'shape': [2, 1, 16, 16], 'dtype': 'b8'}, " \
	"{'name': 'w', 'kind': 'primal', 'shape': [16, 16], 'dtype': 'f32'}, " \
	"{'name': 'f', 'kind': 'op', 'target': 'aten.where.self', " \
	"'inputs': ['z', 'w', 'w'], 'shape': [2, 1, 16, 16], 'dtype': 'f32'}, " \
	TS("t", "[2, 1, 16, 16]") ", " \
	OPS("g", "aten.where.self", "['z', 't', 't']", "[2, 1, 16, 16]", "")

START_TEST(ban_reduction_counts_direct_arguments)
{
	const char *outs = "{'forward': ['f'], 'backward': [null, null, null, null, 'g']}";
	ilp_graph *g = t_graph_outputs("", INDEX_MASK(", 'nested_inputs': [1, 2]"), outs);
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "y"), 0);
	ck_assert(ilpi_input_nested(g, &g->node[t_node(g, "y")], 1));
	ck_assert(!ilpi_input_nested(g, &g->node[t_node(g, "y")], 0));
	ck_assert(!ilpi_input_nested(g, &g->node[t_node(g, "z")], 1));
	ilpi_rules_free(&r);
	ilp_graph_free(g);
	/* without it every input counts: 176 bytes in, 32 out, banned (files of before) */
	g = t_graph_outputs("", INDEX_MASK(""), outs);
	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_int_eq(why_nr(g, &r, "y"), ILPI_WHY_BAN_REDUCTION);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(bans_skip_unclaimed_ops)
{
	/* w_t = mm(x, x) computed only for the backward: unclaimed, so not banned */
	const char *nodes = PS("x", "[4, 4]") ", "
	    OPS("y", "aten.relu.default", "['x']", "[4, 4]", "") ", "
	    OPS("w", "aten.mm.default", "['x', 'x']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.mul.Tensor", "['t', 'w']", "[4, 4]", "");
	ilp_graph *g = t_graph_outputs("", nodes, "{'forward': ['y'], 'backward': ['g']}");
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "w"), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

/* A constant lifted into the graph (fx get_attr), copied by lift_fresh_copy and indexed
 * in the forward and the backward (transformers' Falcon does this with its rotary
 * indices): torch never bans a get_attr node (should_ban_recomputation passes over all
 * but call_function nodes) and copies it into whichever graph uses it, so with PyTorch's
 * bans the constant and its copy are recomputable at no cost. The ILP used to ban it as
 * an op outside the allowlist, and so saved the copy (test_mincut.c's
 * mc214_lifted_constant_recomputed is the min-cut's side). */
START_TEST(bans_pass_over_lifted_constants)
{
	const char *nodes = PS("x", "[4, 4]") ", "
	    "{'name': 'c', 'kind': 'op', 'target': 'get_attr', 'inputs': [], 'shape': [4], "
	    "'dtype': 'i64'}, "
	    "{'name': 'l', 'kind': 'op', 'target': 'aten.lift_fresh_copy.default', "
	    "'inputs': ['c'], 'shape': [4], 'dtype': 'i64'}, "
	    OPS("y", "aten.index.Tensor", "['x', 'l']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.index_put.default", "['t', 'l', 't']", "[4, 4]", "");
	ilp_graph *g = t_graph_outputs("", nodes, "{'forward': ['y'], 'backward': ['g']}");
	ilpi_rules r;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_uint_eq(bits(g, &r, "c"), ILPI_R_NO_SAVE); /* never saved: get_attr */
	ck_assert_uint_eq(bits(g, &r, "l"), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(op_classes)
{
	ck_assert_uint_eq(ilpi_op_class("aten.mm.default"), ILPI_OPC_COMPUTE);
	ck_assert_uint_eq(ilpi_op_class("torch.ops.aten._scaled_mm.default"), ILPI_OPC_COMPUTE);
	ck_assert_uint_eq(ilpi_op_class("aten.bmm.out"), ILPI_OPC_COMPUTE);
	ck_assert_uint_eq(ilpi_op_class("prims.convert_element_type.default"),
	    ILPI_OPC_RECOMPUTABLE);
	ck_assert(ilpi_op_class("aten.permute.default") & ILPI_OPC_VIEW);
	ck_assert_uint_eq(ilpi_op_class("aten.native_dropout.default"), ILPI_OPC_RANDOM);
	ck_assert_uint_eq(ilpi_op_class("getitem"), ILPI_OPC_RECOMPUTABLE);
	ck_assert_uint_eq(ilpi_op_class("aten.mmm.default"), 0);
	ck_assert_uint_eq(ilpi_op_class("aten.m.default"), 0);
	ck_assert_uint_eq(ilpi_op_class(NULL), 0);
	/* the ends of the table in name order, and a row with two classes */
	ck_assert_uint_eq(ilpi_op_class("aten.__and__.Tensor"), ILPI_OPC_RECOMPUTABLE);
	ck_assert_uint_eq(ilpi_op_class("prims.var.default"), ILPI_OPC_RECOMPUTABLE);
	ck_assert_uint_eq(ilpi_op_class("aten.lift_fresh_copy.default"),
	    ILPI_OPC_RECOMPUTABLE | ILPI_OPC_LIFT);
	ck_assert_uint_eq(ilpi_op_class("aten.cat.default"), ILPI_OPC_CAT);
	ck_assert_uint_eq(ilpi_op_class("aaa"), 0);
	ck_assert_uint_eq(ilpi_op_class("zzz"), 0);
}
END_TEST

/* torch's get_default_op_list() (2.6 and 2.14 alike, pointwise_ops() read off each):
 * hardswish and the pointwise backward ops are not tagged pointwise, so not recomputable
 * (torch bans them outside the allowlist: torchvision's MobileNetV3 saves hardswish's
 * output); relu6, selu, celu, hardshrink, softshrink, logit_backward and
 * native_dropout_backward are, and so is SymInt arithmetic (operator.mul of a graph
 * compiled with dynamic shapes). */
START_TEST(op_classes_follow_torch)
{
	const char *not_rec[] = { "aten.hardswish.default", "aten.hardswish_backward.default",
		"aten.hardsigmoid_backward.default", "aten.hardtanh_backward.default",
		"aten.elu_backward.default", "aten.leaky_relu_backward.default",
		"aten.mish_backward.default", "aten.softplus_backward.default",
		"aten.floor_divide.default", "aten.fill.Scalar", "aten.abs_.default",
		"aten.leaky_relu.default", "aten.float_power.Tensor_Scalar" };
	const char *rec[] = { "aten.relu6.default", "aten.selu.default", "aten.celu.default",
		"aten.hardshrink.default", "aten.softshrink.default", "aten.clip.default",
		"aten.logit_backward.default", "aten.native_dropout_backward.default",
		"aten.special_i1.default", "aten.gcd.default", "aten.angle.default",
		/* method_to_operator(magic_methods): arithmetic on symbolic sizes */
		"operator.mul", "operator.floordiv", "torch.sym_max", "math.floor" };

	for (size_t i = 0; i < sizeof not_rec / sizeof not_rec[0]; i++)
		ck_assert_msg(!(ilpi_op_class(not_rec[i]) & ILPI_OPC_RECOMPUTABLE), "%s",
		    not_rec[i]);
	for (size_t i = 0; i < sizeof rec / sizeof rec[0]; i++)
		ck_assert_msg(ilpi_op_class(rec[i]) == ILPI_OPC_RECOMPUTABLE, "%s", rec[i]);
}
END_TEST

/* ---- conflicts -------------------------------------------------------------------------- */

START_TEST(conflict_chain_is_named)
{
	/* b (MUST_RECOMPUTE) is needed by the backward; it needs r, a random op that is
	 * also MUST_RECOMPUTE: neither saved nor recomputed. */
	const char *nodes = PS("x", "[4, 4]") ", "
	    OPS("r", "aten.rand_like.default", "['x']", "[4, 4]", ", 'random': true"
	    IN1("MUST_RECOMPUTE")) ", "
	    OPS("b", "aten.mul.Tensor", "['x', 'r']", "[4, 4]", IN1("MUST_RECOMPUTE")) ", "
	    OPS("y", "aten.relu.default", "['b']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.mul.Tensor", "['t', 'b']", "[4, 4]", "");
	ilp_graph *g = t_graph_outputs("", nodes, "{'forward': ['y'], 'backward': ['g']}");
	ilpi_rules r;
	ilp_error err = { 0 };

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_int_eq(ilpi_rules_find_conflict(g, &r, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "<test>: conflict: 'b' (MUST_RECOMPUTE) must be "
	    "recomputed in the backward for 'g', which needs 'r' (random op: never "
	    "recomputed") != NULL, "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "which may not be saved (MUST_RECOMPUTE)") != NULL,
	    "%s", err.msg);
	ck_assert_ptr_null(strchr(err.msg, '\n'));
	ilpi_rules_free(&r);
	/* the public check says the same */
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(ilp_rules_check(g, ILP_PREFER_HARD, ILP_BANS_NONE, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ilp_graph_free(g);
}
END_TEST

START_TEST(conflict_single_node)
{
	ilp_graph *g = chain_graph(A(", 'effectful': true" IN1("MUST_RECOMPUTE")), B(""));
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_rules_check(g, ILP_PREFER_HARD, ILP_BANS_NONE, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "'a' is needed by the backward ('g2') but may not be "
	    "saved (MUST_RECOMPUTE) and may not be recomputed (effectful op") != NULL,
	    "%s", err.msg);
	ilp_graph_free(g);
}
END_TEST

START_TEST(conflict_shortest_chain_wins)
{
	/* Two forced chains from the backward's needs: c1 -> c2 -> bad1 (length 3) and
	 * d1 -> bad2 (length 2). The shorter is reported. */
	const char *nodes = PS("x", "[4, 4]") ", "
	    OPS("bad1", "aten.relu.default", "['x']", "[4, 4]", ", 'effectful': true"
	    IN1("MUST_RECOMPUTE")) ", "
	    OPS("c2", "aten.relu.default", "['bad1']", "[4, 4]", IN1("MUST_RECOMPUTE")) ", "
	    OPS("c1", "aten.relu.default", "['c2']", "[4, 4]", IN1("MUST_RECOMPUTE")) ", "
	    OPS("bad2", "aten.relu.default", "['x']", "[4, 4]", ", 'effectful': true"
	    IN1("MUST_RECOMPUTE")) ", "
	    OPS("d1", "aten.relu.default", "['bad2']", "[4, 4]", IN1("MUST_RECOMPUTE")) ", "
	    OPS("y", "aten.add.Tensor", "['c1', 'd1']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.add.Tensor", "['t', 'c1']", "[4, 4]", "") ", "
	    OPS("g2", "aten.add.Tensor", "['g', 'd1']", "[4, 4]", "");
	ilp_graph *g = t_graph_outputs("", nodes, "{'forward': ['y'], 'backward': ['g2']}");
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_rules_check(g, ILP_PREFER_HARD, ILP_BANS_NONE, &err), -1);
	ck_assert_msg(strstr(err.msg, "'d1' (MUST_RECOMPUTE)") != NULL &&
	    strstr(err.msg, "'bad2' (effectful") != NULL && strstr(err.msg, "c1") == NULL,
	    "%s", err.msg);
	ilp_graph_free(g);
}
END_TEST

START_TEST(no_conflict_when_values_can_be_saved)
{
	/* same chain, soft mode: PREFER tags are not binding */
	ilp_graph *g = chain_graph(A(", 'effectful': true" IN1("PREFER_RECOMPUTE")), B(""));
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_rules_check(g, ILP_PREFER_SOFT, ILP_BANS_PYTORCH, &err), 0);
	ck_assert_int_eq(ilp_rules_check(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &err), -1);
	ilp_graph_free(g);
}
END_TEST

START_TEST(long_conflict_chain_is_elided)
{
	char nodes[12000];
	size_t off = 0;
	ilp_graph *g;
	ilp_error err = { 0 };

	off += (size_t)snprintf(nodes + off, sizeof nodes - off, "%s, %s", PS("x", "[2]"),
	    "{'name': 'n0', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['x'], "
	    "'shape': [2], 'dtype': 'f32', 'effectful': true, 'recompute': 'MUST_RECOMPUTE'}");
	for (int i = 1; i < 40; i++)
		off += (size_t)snprintf(nodes + off, sizeof nodes - off, ", {'name': 'n%d', "
		    "'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['n%d'], "
		    "'shape': [2], 'dtype': 'f32', 'recompute': 'MUST_RECOMPUTE'}", i, i - 1);
	snprintf(nodes + off, sizeof nodes - off, ", %s, %s", TS("t", "[2]"),
	    OPS("g", "aten.mul.Tensor", "['t', 'n39']", "[2]", ""));
	g = t_graph_outputs("", nodes, "{'forward': ['n39'], 'backward': ['g']}");
	ck_assert_int_eq(ilp_rules_check(g, ILP_PREFER_HARD, ILP_BANS_NONE, &err), -1);
	ck_assert_msg(strstr(err.msg, "'n39' (MUST_RECOMPUTE) must be recomputed") != NULL &&
	    strstr(err.msg, "more values that may not be saved") != NULL &&
	    strstr(err.msg, "'n0' (effectful op") != NULL, "%s", err.msg);
	ilp_graph_free(g);
}
END_TEST

/* ---- policy files ------------------------------------------------------------------------ */

static ilp_policy *
pol_ok(const char *json)
{
	ilp_policy *p = NULL;
	ilp_error err = { 0 };
	const char *j = t_q(json);

	ck_assert_msg(ilp_policy_read_buffer(j, strlen(j), "p.json", &p, &err) == 0, "%s",
	    err.msg);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* A policy that must be rejected: ILP_ERR_INPUT, one line, containing `want`. */
static void
pol_bad(const char *json, const char *want)
{
	ilp_policy *p = (ilp_policy *)1;
	ilp_error err = { 0 };
	const char *j = t_q(json);

	ck_assert_int_eq(ilp_policy_read_buffer(j, strlen(j), "p.json", &p, &err), -1);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_null(strchr(err.msg, '\n'));
	ck_assert_msg(strncmp(err.msg, "p.json", 6) == 0, "%s", err.msg);
	ck_assert_msg(strstr(err.msg, want) != NULL, "expected '%s' in: %s", want, err.msg);
}

#define PH "{'format': 'ilpart-policy', 'version': 1, "

START_TEST(policy_examples_parse)
{
	static const char *const files[] = {
		"examples/policies/seed_mm_only.json",
		"examples/policies/seed_mm_and_scaled_mm.json",
		"examples/policies/list_form.json",
		"examples/policies/llm_save_matmuls_attention.json",
		"examples/policies/whole_graph_mm_only.json",
	};
	ilp_policy *p;
	ilp_error err = { 0 };

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		ck_assert_msg(ilp_policy_read_file(t_srcpath(files[i]), &p, &err) == 0, "%s",
		    err.msg);
		ck_assert_str_eq(ilp_policy_lookup(p, "aten.mm.default"), "MUST_SAVE");
		ck_assert_str_eq(ilp_policy_lookup(p, "aten.relu.default"), "PREFER_RECOMPUTE");
		ck_assert_str_eq(ilp_policy_lookup(p, "aten._scaled_mm.default"),
		    i == 1 || i == 3 ? "MUST_SAVE" : "PREFER_RECOMPUTE");
		ilp_policy_free(p);
	}
	ck_assert_int_eq(ilp_policy_read_file(t_srcpath("examples/policies/nonexistent.json"),
	    &p, &err), -1);
	ck_assert_ptr_null(p);
}
END_TEST

START_TEST(policy_patterns)
{
	ilp_policy *p = pol_ok(PH "'default': 'PREFER_RECOMPUTE', 'rules': ["
	    "{'ops': ['torch.ops.aten.mm', 'aten._scaled_dot_product_*'], 'policy': 'MUST_SAVE'},"
	    "{'ops': ['aten.add.Tensor'], 'policy': 'CheckpointPolicy.PREFER_SAVE'},"
	    "{'ops': ['aten.add*'], 'policy': 'MUST_RECOMPUTE'}]}");

	ck_assert_str_eq(ilp_policy_lookup(p, "aten.mm.default"), "MUST_SAVE");
	ck_assert_str_eq(ilp_policy_lookup(p, "aten.mm.out"), "MUST_SAVE");
	ck_assert_str_eq(ilp_policy_lookup(p, "torch.ops.aten.mm.default"), "MUST_SAVE");
	ck_assert_str_eq(ilp_policy_lookup(p, "aten.mmx.default"), "PREFER_RECOMPUTE");
	ck_assert_str_eq(ilp_policy_lookup(p,
	    "aten._scaled_dot_product_flash_attention.default"), "MUST_SAVE");
	/* first matching rule wins */
	ck_assert_str_eq(ilp_policy_lookup(p, "aten.add.Tensor"), "PREFER_SAVE");
	ck_assert_str_eq(ilp_policy_lookup(p, "aten.add.Scalar"), "MUST_RECOMPUTE");
	ck_assert_str_eq(ilp_policy_lookup(p, "aten.addmm.default"), "MUST_RECOMPUTE");
	ilp_policy_free(p);
	p = pol_ok(PH "'default': null, 'save': ['aten.mm.default']}");
	ck_assert_ptr_null(ilp_policy_lookup(p, "aten.relu.default"));
	ck_assert_str_eq(ilp_policy_lookup(p, "aten.mm.default"), "MUST_SAVE");
	ilp_policy_free(p);
	ck_assert(ilpi_op_matches("aten.mm", "aten.mm.default"));
	ck_assert(!ilpi_op_matches("aten", "aten.mm"));
	ck_assert(!ilpi_op_matches("aten.mm", "aten.mm.default.extra"));
	ilp_policy_free(NULL);
}
END_TEST

START_TEST(policy_errors)
{
	pol_bad("{'format': 'ilpart-policy', 'version': 1, 'save': [}", "p.json:1:");
	pol_bad("{'format': 'ilpart-policy', 'version': 1, 'save': ['aten.mm'", "unexpected end");
	pol_bad(PH "'save': []} x", "trailing characters");
	pol_bad("[1]", "field '(top)': expected a JSON object");
	pol_bad("{'version': 1, 'save': ['a.b']}", "field 'format': missing");
	pol_bad("{'format': 'ilpart-graph', 'version': 1, 'save': ['a.b']}",
	    "field 'format': expected \"ilpart-policy\"");
	pol_bad("{'format': 'ilpart-policy', 'save': ['a.b']}", "field 'version': missing");
	pol_bad("{'format': 'ilpart-policy', 'version': 2, 'save': ['a.b']}",
	    "field 'version': unsupported");
	pol_bad(PH "'save': ['a.b'], 'rulez': []}", "field 'rulez': unknown key");
	pol_bad(PH "'default': 'PREFER_RECOMPUTE'}", "field 'rules': missing");
	pol_bad(PH "'rules': {}}", "field 'rules': expected an array");
	pol_bad(PH "'rules': [{'ops': ['a.b'], 'policy': 'MUST_SAVE'}, 3]}",
	    "field 'rules[1]': expected an object");
	pol_bad(PH "'rules': [{'ops': ['a.b']}]}", "field 'rules[0].policy': missing");
	pol_bad(PH "'rules': [{'policy': 'MUST_SAVE'}]}", "field 'rules[0].ops': missing");
	pol_bad(PH "'rules': [{'ops': ['a.b'], 'policy': 'MUST_SAVE'}, "
	    "{'ops': ['a.c'], 'policy': 'MUST_SAV'}]}",
	    "field 'rules[1].policy': unknown policy 'MUST_SAV'");
	pol_bad(PH "'rules': [{'ops': ['a.b'], 'policy': 3}]}",
	    "field 'rules[0].policy': expected a policy name");
	pol_bad(PH "'rules': [{'ops': ['a.b', 7], 'policy': 'MUST_SAVE'}]}",
	    "field 'rules[0].ops[1]': expected a string");
	pol_bad(PH "'rules': [{'ops': [''], 'policy': 'MUST_SAVE'}]}",
	    "field 'rules[0].ops[0]': empty op name");
	pol_bad(PH "'rules': [{'ops': [], 'policy': 'MUST_SAVE'}]}",
	    "field 'rules[0].ops': empty list");
	pol_bad(PH "'rules': [{'ops': 'aten.mm', 'policy': 'MUST_SAVE'}]}",
	    "field 'rules[0].ops': expected an array");
	pol_bad(PH "'rules': [{'ops': ['a.b'], 'policy': 'MUST_SAVE', 'op': 1}]}",
	    "field 'rules[0].op': unknown key");
	pol_bad(PH "'save': 'aten.mm'}", "field 'save': expected an array");
	pol_bad(PH "'save': ['a.b'], 'default': 'SAVE'}", "field 'default': unknown policy");
	pol_bad(PH "'save': ['a.b'], 'regions': 'some'}", "field 'regions': expected");
	pol_bad(PH "'save': ['a.b'], 'regions': []}", "field 'regions': empty list");
	pol_bad(PH "'save': ['a.b'], 'regions': [1, -2]}", "field 'regions[1]': expected");
	pol_bad(PH "'save': ['a.b'], 'regions': [1.5]}", "field 'regions[0]': expected");
	pol_bad(PH "'save': ['a.b'], 'region_id': 3}", "field 'region_id': only meaningful");
	pol_bad(PH "'save': ['a.b'], 'regions': 'graph', 'region_id': 'x'}",
	    "field 'region_id': expected");
	pol_bad(PH "'save': ['a.b'], 'description': 5}", "field 'description': expected");
	pol_bad("", "empty file");
}
END_TEST

START_TEST(prefer_and_bans_options)
{
	ilp_prefer_mode m = ILP_PREFER_SOFT;
	ilp_bans b = ILP_BANS_NONE;
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_prefer_parse("hard", &m, &err), 0);
	ck_assert_int_eq(m, ILP_PREFER_HARD);
	ck_assert_int_eq(ilp_prefer_parse("pytorch", &m, &err), 0);
	ck_assert_int_eq(m, ILP_PREFER_PYTORCH);
	ck_assert_int_eq(ilp_prefer_parse("soft", &m, &err), 0);
	ck_assert_int_eq(m, ILP_PREFER_SOFT);
	ck_assert_int_eq(ilp_prefer_parse("Hard", &m, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "'--prefer'"));
	ck_assert_int_eq(ilp_bans_parse("pytorch", &b, &err), 0);
	ck_assert_int_eq(b, ILP_BANS_PYTORCH);
	ck_assert_int_eq(ilp_bans_parse("none", &b, &err), 0);
	ck_assert_int_eq(b, ILP_BANS_NONE);
	ck_assert_int_eq(ilp_bans_parse("all", &b, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "'--bans'"));
	ck_assert_str_eq(ilp_prefer_name(ILP_PREFER_PYTORCH), "pytorch");
	ck_assert_str_eq(ilp_bans_name(ILP_BANS_NONE), "none");
}
END_TEST

/* ---- applying policies ------------------------------------------------------------------- */

/* x -> m1 = mm (region 1) -> r1 = relu (region 1) -> m2 = mm (region 2) -> r2 = relu
 * (no region) -> tuple op tup (region 2) -> getitem gi; backward mm/mul. */
static ilp_graph *
regions_graph(void)
{
	const char *nodes = PS("x", "[4, 4]") ", "
	    OPS("m1", "aten.mm.default", "['x', 'x']", "[4, 4]", ", 'ac_graph_id': 1") ", "
	    OPS("r1", "aten.relu.default", "['m1']", "[4, 4]", ", 'ac_graph_id': 1") ", "
	    OPS("m2", "aten.mm.default", "['r1', 'x']", "[4, 4]", ", 'ac_graph_id': 2") ", "
	    OPS("r2", "aten.relu.default", "['m2']", "[4, 4]", ", 'recompute': 'MUST_SAVE'") ", "
	    "{'name': 'tup', 'kind': 'op', 'target': 'aten._scaled_mm.default', "
	    "'inputs': ['r2', 'x'], 'tuple': true, 'ac_graph_id': 2}, "
	    "{'name': 'gi', 'kind': 'op', 'target': 'getitem', 'inputs': ['tup'], 'index': 0, "
	    "'shape': [4, 4], 'dtype': 'f32'}, " TS("t", "[4, 4]") ", "
	    OPS("g", "aten.mm.default", "['t', 'gi']", "[4, 4]", "") ", "
	    OPS("g2", "aten.mul.Tensor", "['g', 'r1']", "[4, 4]", "");
	return t_graph_outputs("", nodes, "{'forward': ['gi'], 'backward': ['g2']}");
}

static const char *
tag_of(const ilp_graph *g, const char *name)
{
	return ilpi_tag_name((ilpi_tag)g->node[t_node(g, name)].tag);
}

START_TEST(apply_to_all_regions)
{
	ilp_graph *g = regions_graph();
	ilp_policy *p = pol_ok(PH "'save': ['aten.mm.default', 'aten._scaled_mm']}");
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_str_eq(tag_of(g, "m1"), "MUST_SAVE");
	ck_assert_str_eq(tag_of(g, "r1"), "PREFER_RECOMPUTE");
	ck_assert_str_eq(tag_of(g, "m2"), "MUST_SAVE");
	ck_assert_str_eq(tag_of(g, "r2"), "MUST_SAVE"); /* outside regions: untouched */
	ck_assert_str_eq(tag_of(g, "tup"), "MUST_SAVE");
	ck_assert_str_eq(tag_of(g, "gi"), "MUST_SAVE"); /* follows its parent */
	ck_assert_int_eq(g->node[t_node(g, "gi")].ac_graph_id, 2);
	ck_assert_str_eq(tag_of(g, "g"), "");         /* backward: untouched */
	ck_assert_int_eq(g->node[t_node(g, "r2")].ac_graph_id, ILPI_NONE);
	ilp_policy_free(p);
	ilp_graph_free(g);
}
END_TEST

typedef struct warnings {
	int n;
	char last[1024];
} warnings;

static void
collect_warning(void *ctx, const char *line)
{
	warnings *w = ctx;

	w->n++;
	snprintf(w->last, sizeof w->last, "%s", line);
}

/* A rule that matches no covered op is reported with the rule's field and the graph's
 * closest op names; rules that match, and policies without a handler, say nothing. */
START_TEST(apply_warns_of_unmatched_rules)
{
	ilp_graph *g = regions_graph();
	ilp_policy *p = pol_ok(PH "'save': ['aten.mm.default'], 'rules': [{'ops': "
	    "['aten._scaled_mm.default', 'aten.mmm.default'], 'policy': 'PREFER_SAVE'}]}");
	ilp_error err = { 0 };
	warnings w = { 0 };

	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0); /* no handler: silent */
	ilp_policy_set_warnings(p, collect_warning, &w);
	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_int_eq(w.n, 1);
	ck_assert_msg(strstr(w.last, "field 'rules[0].ops[1]': 'aten.mmm.default' matches no op")
	    != NULL, "%s", w.last);
	ck_assert_msg(strstr(w.last, "; closest covered ops: aten.mm.default, ") != NULL, "%s", w.last);
	ilp_policy_free(p);

	/* In scope means in the policy's regions: relu of region 1 does not count for [2]. */
	p = pol_ok(PH "'regions': [2], 'rules': [{'ops': ['aten.relu.default'], "
	    "'policy': 'PREFER_SAVE'}]}");
	w.n = 0;
	ilp_policy_set_warnings(p, collect_warning, &w);
	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_int_eq(w.n, 1);
	ck_assert_msg(strstr(w.last, "'rules[0].ops[0]': 'aten.relu.default' matches no op the "
	    "policy covers in ") != NULL, "%s", w.last);
	ck_assert_msg(strstr(w.last, " (2 matching ops are in the backward or outside its "
	    "regions); closest covered ops: aten.mm.default") != NULL, "%s", w.last);
	ilp_policy_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(apply_to_listed_regions)
{
	ilp_graph *g = regions_graph();
	ilp_policy *p = pol_ok(PH "'regions': [2], 'default': 'MUST_RECOMPUTE', "
	    "'rules': [{'ops': ['aten.relu.default'], 'policy': 'PREFER_SAVE'}]}");
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_str_eq(tag_of(g, "m1"), "");
	ck_assert_str_eq(tag_of(g, "r1"), "");
	ck_assert_str_eq(tag_of(g, "m2"), "MUST_RECOMPUTE");
	ck_assert_str_eq(tag_of(g, "tup"), "MUST_RECOMPUTE");
	ck_assert_str_eq(tag_of(g, "gi"), "MUST_RECOMPUTE");
	ck_assert_str_eq(tag_of(g, "r2"), "MUST_SAVE");
	ilp_policy_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(apply_to_whole_graph)
{
	ilp_graph *g = regions_graph();
	ilp_policy *p = pol_ok(PH "'regions': 'graph', 'region_id': 7, 'default': null, "
	    "'save': ['aten.mm.default']}");
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_str_eq(tag_of(g, "m1"), "MUST_SAVE");
	ck_assert_int_eq(g->node[t_node(g, "m1")].ac_graph_id, 1); /* keeps its region */
	ck_assert_str_eq(tag_of(g, "r1"), "");                 /* default null: kept */
	ck_assert_str_eq(tag_of(g, "r2"), "MUST_SAVE");
	ck_assert_str_eq(tag_of(g, "x"), "");
	ilp_policy_free(p);
	p = pol_ok(PH "'regions': 'graph', 'region_id': 7, 'save': ['aten.mm.default']}");
	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_str_eq(tag_of(g, "r2"), "PREFER_RECOMPUTE");
	ck_assert_int_eq(g->node[t_node(g, "r2")].ac_graph_id, 7);
	ilp_policy_free(p);
	ilp_graph_free(g);
	/* unclaimed ops (w: only the backward needs it) stay untagged */
	g = t_graph_outputs("", PS("x", "[4, 4]") ", "
	    OPS("y", "aten.relu.default", "['x']", "[4, 4]", "") ", "
	    OPS("w", "aten.mm.default", "['x', 'x']", "[4, 4]", "") ", " TS("t", "[4, 4]") ", "
	    OPS("gw", "aten.mul.Tensor", "['t', 'w']", "[4, 4]", ""),
	    "{'forward': ['y'], 'backward': ['gw']}");
	p = pol_ok(PH "'regions': 'graph', 'save': ['aten.mm.default']}");
	ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
	ck_assert_str_eq(tag_of(g, "y"), "PREFER_RECOMPUTE");
	ck_assert_str_eq(tag_of(g, "w"), "");
	ck_assert_int_eq(ilp_policy_apply(NULL, g, &err), -1);
	ilp_policy_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(apply_covering_nothing_is_an_error)
{
	ilp_graph *g = regions_graph();
	ilp_graph *h = chain_graph(A(""), B(""));
	ilp_policy *p = pol_ok(PH "'regions': [5], 'save': ['aten.mm.default']}");
	ilp_policy *all = pol_ok(PH "'save': ['aten.mm.default']}");
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_policy_apply(p, g, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "p.json: policy: field 'regions': covers no op of "
	    "<test> (no forward op is in the listed regions") != NULL, "%s", err.msg);
	ck_assert_int_eq(ilp_policy_apply(all, h, &err), -1);
	ck_assert_msg(strstr(err.msg, "any checkpoint region") != NULL, "%s", err.msg);
	ck_assert_str_eq(tag_of(g, "m1"), ""); /* nothing changed */
	ilp_policy_free(p);
	ilp_policy_free(all);
	ilp_graph_free(g);
	ilp_graph_free(h);
}
END_TEST

/* ---- the seed example ---------------------------------------------------------------------- */

static const char *const seed_recomputed[] = {
	"convert_element_type_4", "permute_2", "reciprocal_2", "reciprocal_3"
};

static ilp_graph *
seed(const char *policy)
{
	ilp_graph *g = t_graph_file(t_srcpath("examples/seed_float8_sac.json"));
	ilp_policy *p = NULL;
	ilp_error err = { 0 };

	if (policy != NULL) {
		ck_assert_msg(ilp_policy_read_file(t_srcpath(policy), &p, &err) == 0, "%s",
		    err.msg);
		ck_assert_int_eq(ilp_policy_apply(p, g, &err), 0);
		ilp_policy_free(p);
	}
	return g;
}

START_TEST(seed_graph_tags)
{
	ilp_graph *g = seed(NULL);
	size_t fw_ops = 0;

	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		if (n->kind != ILPI_OP || n->cls != ILPI_FORWARD)
			continue;
		fw_ops++;
		ck_assert_msg(n->tag == ILPI_TAG_PREFER_RECOMPUTE && n->ac_graph_id == 1,
		    "%s: tag %s region %d", n->name, ilpi_tag_name((ilpi_tag)n->tag),
		    n->ac_graph_id);
	}
	ck_assert_uint_eq(fw_ops, 38); /* the report's forward graph, op for op */
	ck_assert(g->node[t_node(g, "_scaled_mm")].flags & ILPI_F_TUPLE);
	ck_assert_str_eq(g->node[t_node(g, "_scaled_mm")].target, "aten._scaled_mm.default");
	ck_assert_str_eq(g->node[t_node(g, "convert_element_type_4")].dtype, "f8e4m3fn");
	ck_assert_uint_eq(g->n_bw_out, 3);
	ilp_graph_free(g);
}
END_TEST

START_TEST(seed_mm_only_hard)
{
	ilp_graph *g = seed("examples/policies/seed_mm_only.json");
	ilpi_rules r;
	ilp_error err = { 0 };
	size_t ref_forbidden = 0;

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	for (size_t k = 0; k < 4; k++) {
		ck_assert_msg(bits(g, &r, seed_recomputed[k]) == ILPI_R_NO_SAVE, "%s: %u",
		    seed_recomputed[k], bits(g, &r, seed_recomputed[k]));
		ck_assert_int_eq(why_ns(g, &r, seed_recomputed[k]), ILPI_WHY_TAG);
	}
	ck_assert_uint_eq(bits(g, &r, "relu"), ILPI_R_NO_SAVE);
	ck_assert_uint_eq(bits(g, &r, "_scaled_mm"), ILPI_R_NO_SAVE);
	ck_assert_uint_eq(bits(g, &r, "getitem"), ILPI_R_NO_SAVE);
	ck_assert_uint_eq(bits(g, &r, "primals_3"), ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(ilpi_rules_find_conflict(g, &r, &err), 0);
	/* PyTorch's saved set from the bug report breaks four of these rules */
	ck_assert_uint_eq(g->n_ref, 1);
	for (size_t k = 0; k < g->ref[0].n_saved; k++)
		ref_forbidden += (r.bits[g->ref[0].saved[k]] & ILPI_R_NO_SAVE) != 0;
	ck_assert_uint_eq(ref_forbidden, 4);
	ilpi_rules_free(&r);
	/* pytorch mode: PREFER_RECOMPUTE stays hard; soft mode: only preferences */
	build(g, ILP_PREFER_PYTORCH, ILP_BANS_PYTORCH, &r);
	for (size_t k = 0; k < 4; k++)
		ck_assert_uint_eq(bits(g, &r, seed_recomputed[k]), ILPI_R_NO_SAVE);
	ilpi_rules_free(&r);
	build(g, ILP_PREFER_SOFT, ILP_BANS_PYTORCH, &r);
	for (size_t k = 0; k < 4; k++)
		ck_assert_uint_eq(bits(g, &r, seed_recomputed[k]), ILPI_R_PREFER_RECOMPUTE);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

START_TEST(seed_mm_and_scaled_mm_hard)
{
	ilp_graph *g = seed("examples/policies/seed_mm_and_scaled_mm.json");
	ilpi_rules r;
	ilp_error err = { 0 };

	ck_assert_str_eq(tag_of(g, "_scaled_mm"), "MUST_SAVE");
	ck_assert_str_eq(tag_of(g, "getitem"), "MUST_SAVE");
	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	/* the tuple has nothing to save and may not be recomputed; its getitem holds the
	 * matmul's output and is what gets saved */
	ck_assert_uint_eq(bits(g, &r, "_scaled_mm"), ILPI_R_NO_SAVE | ILPI_R_NO_RECOMPUTE);
	ck_assert_uint_eq(bits(g, &r, "getitem"), ILPI_R_NO_RECOMPUTE);
	ck_assert_uint_eq(bits(g, &r, "view"), ILPI_R_NO_SAVE);
	ck_assert_uint_eq(bits(g, &r, "relu"), ILPI_R_NO_SAVE);
	for (size_t k = 0; k < 4; k++)
		ck_assert_uint_eq(bits(g, &r, seed_recomputed[k]), ILPI_R_NO_SAVE);
	ck_assert_int_eq(ilpi_rules_find_conflict(g, &r, &err), 0);
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

/* End to end with the ILP (solver/): what is saved under each seed policy. */
static void
solve_seed(const char *policy, const char *const *want, size_t n_want)
{
	ilp_graph *g = seed(policy);
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	size_t n_saved = 0;

	ilp_solve_options_init(&o);
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < g->n; i++)
		n_saved += ilp_partition_is_saved(p, i) != 0;
	ck_assert_uint_eq(n_saved, n_want);
	for (size_t k = 0; k < n_want; k++)
		ck_assert_msg(ilp_partition_is_saved(p, t_node(g, want[k])), "%s not saved", want[k]);
	for (size_t k = 0; k < 4; k++) {
		ck_assert(!ilp_partition_is_saved(p, t_node(g, seed_recomputed[k])));
		ck_assert(ilp_partition_is_recomputed(p, t_node(g, seed_recomputed[k])));
	}
	ilp_partition_free(p);
	ilp_graph_free(g);
}

START_TEST(seed_solved_under_policies)
{
	static const char *const mm_only[] = { "primals_1", "primals_2", "primals_3" };
	static const char *const with_scaled_mm[] = { "primals_1", "primals_3", "getitem" };

	solve_seed("examples/policies/seed_mm_only.json", mm_only, 3);
	solve_seed("examples/policies/seed_mm_and_scaled_mm.json", with_scaled_mm, 3);
}
END_TEST

START_TEST(explain_texts)
{
	ilp_graph *g = seed("examples/policies/seed_mm_and_scaled_mm.json");
	ilpi_rules r;
	char buf[200];

	build(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &r);
	ck_assert_str_eq(ilpi_rules_explain(g, &r, t_node(g, "relu"), ILPI_R_NO_SAVE, buf,
	    sizeof buf), "PREFER_RECOMPUTE");
	ck_assert_str_eq(ilpi_rules_explain(g, &r, t_node(g, "_scaled_mm"), ILPI_R_NO_SAVE, buf,
	    sizeof buf), "tuple: no storage to save");
	ck_assert_str_eq(ilpi_rules_explain(g, &r, t_node(g, "getitem"), ILPI_R_NO_RECOMPUTE, buf,
	    sizeof buf), "not recomputable, from its tuple '_scaled_mm': MUST_SAVE");
	for (int w = ILPI_WHY_TAG; w <= ILPI_WHY_BAN_MATERIALIZED; w++)
		ck_assert_str_ne(ilpi_reason_text((ilpi_reason)w), "");
	ilpi_rules_free(&r);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_policies(void)
{
	Suite *s = suite_create("policies");
	TCase *tags = tcase_create("tags"), *bans = tcase_create("bans");
	TCase *conf = tcase_create("conflicts"), *files = tcase_create("files");
	TCase *seeds = tcase_create("seed");

	tcase_add_test(tags, must_save_forbids_recompute);
	tcase_add_test(tags, must_save_view_is_exempt);
	tcase_add_test(tags, must_recompute_forbids_save);
	tcase_add_test(tags, prefer_recompute_by_mode);
	tcase_add_test(tags, prefer_save_by_mode);
	tcase_add_test(tags, prefer_save_pytorch_mode_is_subject_to_bans);
	tcase_add_test(tags, boundary_between_regions_is_saved);
	tcase_add_test(tags, boundary_needs_later_region_and_recompute_user);
	tcase_add_test(tags, boundary_of_must_recompute_in_soft_mode);
	tcase_add_test(tags, getitem_follows_parent);
	tcase_add_test(tags, getitem_own_tag_and_region_ignored);
	tcase_add_test(tags, getitem_later_region_reproducer_f3);
	tcase_add_test(tags, tuple_cannot_be_saved_and_getitem_inherits_bans);
	tcase_add_test(tags, get_attr_cannot_be_saved);
	tcase_add_test(tags, primals_are_never_recomputed);
	tcase_add_test(tags, random_ops);
	tcase_add_test(tags, effectful_and_collective_ops);
	tcase_add_test(tags, collective_ending_a_region_stays_saved);
	tcase_add_test(bans, ban_compute_intensive_outside_regions);
	tcase_add_test(bans, ban_reduction_allowlist_materialized);
	tcase_add_test(bans, ban_reduction_counts_direct_arguments);
	tcase_add_test(bans, bans_skip_unclaimed_ops);
	tcase_add_test(bans, bans_pass_over_lifted_constants);
	tcase_add_test(bans, op_classes);
	tcase_add_test(bans, op_classes_follow_torch);
	tcase_add_test(conf, conflict_chain_is_named);
	tcase_add_test(conf, conflict_single_node);
	tcase_add_test(conf, conflict_shortest_chain_wins);
	tcase_add_test(conf, no_conflict_when_values_can_be_saved);
	tcase_add_test(conf, long_conflict_chain_is_elided);
	tcase_add_test(files, policy_examples_parse);
	tcase_add_test(files, policy_patterns);
	tcase_add_test(files, policy_errors);
	tcase_add_test(files, prefer_and_bans_options);
	tcase_add_test(files, apply_to_all_regions);
	tcase_add_test(files, apply_to_listed_regions);
	tcase_add_test(files, apply_warns_of_unmatched_rules);
	tcase_add_test(files, apply_to_whole_graph);
	tcase_add_test(files, apply_covering_nothing_is_an_error);
	tcase_add_test(seeds, seed_graph_tags);
	tcase_add_test(seeds, seed_mm_only_hard);
	tcase_add_test(seeds, seed_mm_and_scaled_mm_hard);
	tcase_add_test(seeds, explain_texts);
	tcase_add_test(seeds, seed_solved_under_policies);
	suite_add_tcase(s, tags);
	suite_add_tcase(s, bans);
	suite_add_tcase(s, conf);
	suite_add_tcase(s, files);
	suite_add_tcase(s, seeds);
	return s;
}
