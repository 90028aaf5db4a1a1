/* test_check.c - partitions (reader, writer), the independent checker, and lowering. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/partition.h"
#include "tests/suites.h"
#include "tests/util.h"

/* Every value 16 bytes; every op the same target. */
#define P16(name) P(name, 16)
#define T16(name) T(name, 16)
#define OP16(name, inputs, x) OP(name, "aten.f.default", inputs, 16, x)

/* x -> a -> b -> out (forward); tangent g -> gb = bw(g, b) -> grad of x. */
static ilp_graph *
chain(const char *a_extra, const char *b_extra)
{
	char a[256], b[256], nodes[1024];

	snprintf(a, sizeof a, OP16("a", "'x'", "%s"), a_extra);
	snprintf(b, sizeof b, OP16("b", "'a'", "%s"), b_extra);
	snprintf(nodes, sizeof nodes, "%s, %s, %s, %s, %s, %s", P16("x"), a, b,
	    OP16("out", "'b'", ""), T16("g"), OP16("gb", "'g', 'b'", ""));
	return t_graph_parts("", nodes, "'out'", "'gb'");
}

static int
check_mode(const ilp_graph *g, const char *saved, const char *recomputed,
    ilp_prefer_mode mode, ilp_error *err)
{
	ilp_check_options o = { mode };
	ilp_partition *p = t_part(g, saved, recomputed);
	int rc;

	memset(err, 0, sizeof *err);
	rc = ilp_check(g, p, &o, err);
	ilp_partition_free(p);
	if (rc != 0)
		ck_assert_int_eq(err->kind, ILP_ERR_VIOLATION);
	return rc;
}

#define PASSES(g, s, r, mode) do { \
	ilp_error e_; \
	ck_assert_msg(check_mode(g, s, r, mode, &e_) == 0, "unexpected: %s", e_.msg); \
} while (0)

#define FAILS(g, s, r, mode, want) do { \
	ilp_error e_; \
	ck_assert_int_eq(check_mode(g, s, r, mode, &e_), -1); \
	ck_assert_str_eq(e_.msg, want); \
} while (0)

/* ---- checker: one partition of chain() each --------------------------------------- */

#define MS ", 'recompute': 'MUST_SAVE'"
#define MR ", 'recompute': 'MUST_RECOMPUTE'"
#define PS ", 'recompute': 'PREFER_SAVE'"
#define PR ", 'recompute': 'PREFER_RECOMPUTE'"
#define NOT_SAVED_NOR_RECOMPUTED ", but neither saved nor recomputed"
#define A_MUST_SAVE "partition: node 'a' (MUST_SAVE): recomputed, but its tag forbids recomputing"
#define A_MUST_RECOMPUTE "partition: node 'a' (MUST_RECOMPUTE): saved, but its tag forbids saving"
#define B_PREFER_RECOMPUTE "partition: node 'b' (PREFER_RECOMPUTE): saved, but its tag " \
	"forbids saving (prefer mode "

static const struct chain_case {
	const char *a, *b;              /* extra fields of a and of b (chain()) */
	const char *saved, *recomputed; /* the partition */
	ilp_prefer_mode mode;
	const char *want;               /* the violation; NULL: the partition passes */
} chain_cases[] = {
	/* executability: every value the backward needs is saved or recomputed */
	{ "", "", "b", "", ILP_PREFER_HARD, NULL },
	{ "", "", "a", "b", ILP_PREFER_HARD, NULL },
	{ "", "", "x", "a b", ILP_PREFER_HARD, NULL },
	{ "", "", "", "", ILP_PREFER_HARD,
	  "partition: node 'b': needed by backward node 'gb'" NOT_SAVED_NOR_RECOMPUTED },
	{ "", "", "", "a b", ILP_PREFER_HARD,
	  "partition: node 'x': needed by recomputed node 'a'" NOT_SAVED_NOR_RECOMPUTED },
	/* what may be saved */
	{ "", "", "b gb", "", ILP_PREFER_HARD,
	  "partition: node 'gb': saved, but it is a backward node" },
	{ "", "", "b g", "", ILP_PREFER_HARD,
	  "partition: node 'g': saved, but it is a tangent (already a backward input)" },
	{ "", "", "a b", "b", ILP_PREFER_HARD, "partition: node 'b': both saved and recomputed" },
	/* what may be recomputed */
	{ "", "", "", "x a b", ILP_PREFER_HARD,
	  "partition: node 'x': recomputed, but it is a primal (inputs cannot be recomputed)" },
	{ "", "", "b", "g", ILP_PREFER_HARD,
	  "partition: node 'g': recomputed, but it is a tangent (inputs cannot be recomputed)" },
	{ "", "", "b", "gb", ILP_PREFER_HARD,
	  "partition: node 'gb': recomputed, but it is a backward node" },
	/* b saved (forbidden) and a recomputed (forbidden): a comes first in graph order */
	{ MS, MR, "x b", "a", ILP_PREFER_HARD, A_MUST_SAVE },
	/* MUST tags bind in every mode */
	{ MS, MR, "a", "b", ILP_PREFER_SOFT, NULL },
	{ MS, MR, "x", "a b", ILP_PREFER_SOFT, A_MUST_SAVE },
	{ MS, MR, "b", "", ILP_PREFER_SOFT,
	  "partition: node 'b' (MUST_RECOMPUTE): saved, but its tag forbids saving" },
	/* a MUST_SAVE view may be recomputed */
	{ MS ", 'view_of': 'x'", "", "x", "a b", ILP_PREFER_HARD, NULL },
	/* PREFER_SAVE binds in hard mode only */
	{ PS, "", "a", "b", ILP_PREFER_HARD, NULL },
	{ PS, "", "x", "a b", ILP_PREFER_HARD, "partition: node 'a' (PREFER_SAVE): recomputed, "
	  "but its tag forbids recomputing (prefer mode hard)" },
	{ PS, "", "x", "a b", ILP_PREFER_PYTORCH, NULL },
	{ PS, "", "x", "a b", ILP_PREFER_SOFT, NULL },
	/* PREFER_RECOMPUTE binds in hard and pytorch modes */
	{ "", PR, "a", "b", ILP_PREFER_HARD, NULL },
	{ "", PR, "b", "", ILP_PREFER_HARD, B_PREFER_RECOMPUTE "hard)" },
	{ "", PR, "b", "", ILP_PREFER_PYTORCH, B_PREFER_RECOMPUTE "pytorch)" },
	{ "", PR, "b", "", ILP_PREFER_SOFT, NULL },
	/* a ends region 0 and b of region 1 recomputes from it: a is stashed; in soft mode
	 * PREFER_RECOMPUTE binds nothing, so there is no boundary either */
	{ PR ", 'ac_graph_id': 0", MR ", 'ac_graph_id': 1", "a", "b", ILP_PREFER_HARD, NULL },
	{ PR ", 'ac_graph_id': 0", MR ", 'ac_graph_id': 1", "a", "b", ILP_PREFER_PYTORCH, NULL },
	{ PR ", 'ac_graph_id': 0", MR ", 'ac_graph_id': 1", "x", "a b", ILP_PREFER_HARD,
	  "partition: node 'a' (PREFER_RECOMPUTE): recomputed, but it ends checkpoint "
	  "region 0 and 'b' of region 1 recomputes from it, so it is treated as MUST_SAVE" },
	{ PR ", 'ac_graph_id': 0", MR ", 'ac_graph_id': 1", "x", "a b", ILP_PREFER_SOFT, NULL },
	{ PR ", 'ac_graph_id': 0", MR ", 'ac_graph_id': 1", "a", "b", ILP_PREFER_SOFT, NULL },
	/* ... only when b's region is a later one, and b is tagged */
	{ MR ", 'ac_graph_id': 1", MR ", 'ac_graph_id': 1", "a", "b", ILP_PREFER_HARD,
	  A_MUST_RECOMPUTE },
	{ MR ", 'ac_graph_id': 1", MR ", 'ac_graph_id': 1", "x", "a b", ILP_PREFER_HARD, NULL },
	{ MR ", 'ac_graph_id': 1", MR ", 'ac_graph_id': 0", "a", "b", ILP_PREFER_HARD,
	  A_MUST_RECOMPUTE },
	{ MR ", 'ac_graph_id': 0", ", 'ac_graph_id': 1", "a", "b", ILP_PREFER_HARD,
	  A_MUST_RECOMPUTE },
	/* random ops replay a saved RNG state ("a~"); effectful ops and collectives are
	 * never recomputed */
	{ ", 'random': true", "", "a", "b", ILP_PREFER_HARD, NULL },
	{ ", 'random': true", "", "x", "a b", ILP_PREFER_HARD,
	  "partition: node 'a': recomputed, but it is a random op, the graph's RNG state is "
	  "not functionalized (rng_functionalized is false) and the partition saves no RNG "
	  "state for it (rng_states)" },
	{ ", 'random': true", "", "x", "a~ b", ILP_PREFER_HARD, NULL },
	{ ", 'random': true", "", "x", "a~ b~", ILP_PREFER_HARD, "partition: node 'b': its RNG "
	  "state is saved (rng_states), but it is not a recomputed random op" },
	{ ", 'effectful': true", "", "x", "a b", ILP_PREFER_HARD,
	  "partition: node 'a': recomputed, but it is an effectful op" },
	{ ", 'collective': true", "", "x", "a b", ILP_PREFER_HARD,
	  "partition: node 'a': recomputed, but it is a collective op its tag does not ask to "
	  "recompute" },
	{ ", 'collective': true", "", "a", "b", ILP_PREFER_HARD, NULL },
	/* ... unless its own recompute tag binds (torch's must_recompute) */
	{ ", 'collective': true" PR, "", "x", "a b", ILP_PREFER_HARD, NULL },
	{ ", 'collective': true" PR, "", "x", "a b", ILP_PREFER_SOFT,
	  "partition: node 'a' (PREFER_RECOMPUTE): recomputed, but it is a collective op its "
	  "tag does not ask to recompute" },
	{ ", 'collective': true" MS, "", "x", "a b", ILP_PREFER_HARD,
	  "partition: node 'a' (MUST_SAVE): recomputed, but it is a collective op its tag does "
	  "not ask to recompute" },
};

START_TEST(check_chain_cases)
{
	const struct chain_case *c = &chain_cases[_i];
	ilp_graph *g = chain(c->a, c->b);
	ilp_error e;
	int rc = check_mode(g, c->saved, c->recomputed, c->mode, &e);

	if (c->want == NULL) {
		ck_assert_msg(rc == 0, "case %d: unexpected: %s", _i, e.msg);
	} else {
		ck_assert_msg(rc == -1, "case %d passes; want: %s", _i, c->want);
		ck_assert_str_eq(e.msg, c->want);
	}
	ilp_graph_free(g);
}
END_TEST

/* ---- checker: executability ---------------------------------------------------- */

START_TEST(check_tuple_not_saved)
{
	ilp_graph *g = t_graph_parts("", P16("x") ", "
	    "{'name': 'split', 'kind': 'op', 'target': 'aten.split.Tensor', 'inputs': ['x'], "
	    "'tuple': true}, "
	    "{'name': 'getitem', 'kind': 'op', 'target': 'getitem', 'inputs': ['split'], "
	    "'index': 0, 'bytes': 8}, "
	    T16("g") ", " OP16("gb", "'g', 'getitem'", ""), "'getitem'", "'gb'");

	PASSES(g, "getitem", "", ILP_PREFER_HARD);
	PASSES(g, "x", "split getitem", ILP_PREFER_HARD);
	FAILS(g, "split", "getitem", ILP_PREFER_HARD,
	    "partition: node 'split': saved, but it is a tuple with no storage (save its "
	    "getitem projections)");
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_get_attr_not_saved)
{
	/* A get_attr (a torch.cond branch's subgraph, a lifted constant): torch's extraction
	 * copies it into each graph that uses it; saved, it would reach the backward as a
	 * placeholder without a value. */
	ilp_graph *g = t_graph_parts("", P16("x") ", "
	    OP("sub", "get_attr", "", 0, "") ", " OP16("y", "'x', 'sub'", "") ", "
	    T16("g") ", " OP16("gb", "'g', 'sub'", ""), "'y'", "'gb'");

	PASSES(g, "", "sub", ILP_PREFER_HARD);
	FAILS(g, "sub", "", ILP_PREFER_HARD,
	    "partition: node 'sub': saved, but it is a get_attr (a constant or subgraph of the "
	    "module): each graph that uses it reads it itself");
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_primal_gradient_saved)
{
	/* The gradient of x is x itself: PyTorch returns the primal from the backward. */
	ilp_graph *g = t_graph_parts("", P16("x") ", " OP16("y", "'x'", "") ", " T16("g"), "'y'",
	    "'x', null");

	PASSES(g, "x", "", ILP_PREFER_HARD);
	FAILS(g, "", "", ILP_PREFER_HARD,
	    "partition: node 'x': returned as a gradient (outputs.backward), but not saved");
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_forward_gradient_available)
{
	/* A forward value returned as a gradient must reach the backward. */
	ilp_graph *g = t_graph_parts("", P16("x") ", " OP16("y", "'x'", "") ", " T16("g"), "'y'",
	    "'y'");

	PASSES(g, "y", "", ILP_PREFER_HARD);
	PASSES(g, "x", "y", ILP_PREFER_HARD);
	FAILS(g, "", "", ILP_PREFER_HARD,
	    "partition: node 'y': returned as a gradient (outputs.backward), but neither "
	    "saved nor recomputed");
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_size_mismatch)
{
	ilp_graph *g = chain("", ""), *h = t_graph_parts("", P16("x"), "'x'", "");
	ilp_partition *p = ilp_partition_new(h);
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_check(g, p, NULL, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ilp_partition_free(p);
	ilp_graph_free(h);
	ilp_graph_free(g);
}
END_TEST

/* ---- checker: SAC tags ------------------------------------------------------------ */

/* A batch norm's running mean: `rm` is written in place after the forward (AOTAutograd's
 * input mutation), so neither it nor its view `v` may be saved, and `bn`, which reads it,
 * can only be saved. */
static ilp_graph *
mutated_graph(void)
{
	return t_graph_parts("", P16("x") ", {'name': 'rm', 'kind': 'primal', 'bytes': 16, "
	    "'mutated': true}, " OP16("v", "'rm'", ", 'view_of': 'rm'") ", "
	    OP16("bn", "'x', 'v'", "") ", " OP16("nrm", "'rm', 'bn'", "") ", " T16("g") ", "
	    OP16("gb", "'g', 'bn'", ""), "'bn', 'nrm'", "'gb', null");
}

START_TEST(check_mutated_input_never_saved)
{
	ilp_graph *g = mutated_graph();

	PASSES(g, "bn", "", ILP_PREFER_HARD);
	FAILS(g, "x rm", "v bn", ILP_PREFER_HARD, "partition: node 'rm': saved, but the forward "
	    "writes its storage in place (mutated input 'rm'): the backward would read the "
	    "written value");
	FAILS(g, "x v", "bn", ILP_PREFER_HARD, "partition: node 'v': saved, but the forward "
	    "writes its storage in place (mutated input 'rm'): the backward would read the "
	    "written value");
	FAILS(g, "x", "bn", ILP_PREFER_HARD, "partition: node 'v': needed by recomputed node "
	    "'bn', but neither saved nor recomputed");
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_dead_nodes)
{
	/* issue 9's F2: dead reads the tangent but feeds no output; u feeds only dead. Both
	 * are dead (PyTorch eliminates them before partitioning): nothing needs u, and
	 * neither may be saved or recomputed. */
	ilp_graph *g = t_graph_parts("", P16("x") ", " OP16("y", "'x'", "") ", "
	    OP16("u", "'x'", "") ", " T16("t") ", " OP16("dead", "'t', 'u'", "") ", "
	    OP16("gx", "'t', 'y'", ""), "'y'", "'gx'");

	ck_assert_int_eq(t_nd(g, "dead")->cls, ILPI_DEAD);
	ck_assert_int_eq(t_nd(g, "u")->cls, ILPI_DEAD);
	PASSES(g, "y", "", ILP_PREFER_HARD);
	FAILS(g, "y u", "", ILP_PREFER_HARD,
	    "partition: node 'u': saved, but it is dead (needed by no output)");
	FAILS(g, "y dead", "", ILP_PREFER_HARD,
	    "partition: node 'dead': saved, but it is dead (needed by no output)");
	FAILS(g, "x", "y u dead", ILP_PREFER_HARD,
	    "partition: node 'u': recomputed, but it is dead (needed by no output)");
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_getitem_region_is_tuples)
{
	/* issue 9's F3: g0's own ac_graph_id (2) is later than its tuple's (1), but a
	 * getitem is in its tuple's region, so tup ends no region and may be recomputed. */
	ilp_graph *g = t_graph_parts("", P16("x") ", "
	    "{'name': 'tup', 'kind': 'op', 'target': 'aten.f.default', 'inputs': ['x'], "
	    "'tuple': true, 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 1}, "
	    "{'name': 'g0', 'kind': 'op', 'target': 'getitem', 'inputs': ['tup'], 'index': 0, "
	    "'bytes': 16, 'recompute': 'MUST_SAVE', 'ac_graph_id': 2}, "
	    OP16("y", "'g0'", ", 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': 1") ", "
	    T16("t") ", " OP16("gx", "'t', 'y'", ""), "'y'", "'gx'");

	/* g0 carries tup's tag, PREFER_RECOMPUTE: its own MUST_SAVE is not read */
	PASSES(g, "x", "tup g0 y", ILP_PREFER_HARD);
	FAILS(g, "g0", "y", ILP_PREFER_HARD, "partition: node 'g0' (PREFER_RECOMPUTE): saved, "
	    "but its tag forbids saving (prefer mode hard)");
	PASSES(g, "g0", "y", ILP_PREFER_SOFT);
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_tags_bind_ops_only)
{
	/* PyTorch tags only call_function nodes: a tag on a primal binds nothing. */
	ilp_graph *g = t_graph_parts("", "{'name': 'x', 'kind': 'primal', 'bytes': 16, "
	    "'recompute': 'MUST_RECOMPUTE', 'ac_graph_id': 0}, "
	    OP16("y", "'x'", ", 'recompute': 'MUST_RECOMPUTE', 'ac_graph_id': 1") ", "
	    T16("t") ", " OP16("gx", "'t', 'y'", ""), "'y'", "'gx'");

	PASSES(g, "x", "y", ILP_PREFER_HARD);
	ilp_graph_free(g);
}
END_TEST

START_TEST(check_rng_functionalized)
{
	/* a random op may be recomputed when the graph's RNG state is functionalized */
	ilp_graph *rng = t_graph_parts("'rng_functionalized': true,", P16("x") ", "
	    OP16("a", "'x'", ", 'random': true") ", " OP16("b", "'a'", "") ", "
	    OP16("out", "'b'", "") ", " T16("g") ", " OP16("gb", "'g', 'b'", ""), "'out'", "'gb'");

	PASSES(rng, "x", "a b", ILP_PREFER_HARD);
	ilp_graph_free(rng);
}
END_TEST

/* ---- partition files ------------------------------------------------------------- */

static int
read_part(const ilp_graph *g, const char *text, ilp_partition **p, ilp_error *err)
{
	char buf[2048];

	snprintf(buf, sizeof buf, "%s", text);
	for (char *s = buf; *s != '\0'; s++)
		if (*s == '\'')
			*s = '"';
	memset(err, 0, sizeof *err);
	return ilp_partition_read_buffer(g, buf, strlen(buf), "p.json", p, err);
}

#define READ_FAILS(g, text, want) do { \
	ilp_partition *p_ = NULL; \
	ilp_error e_; \
	ck_assert_int_eq(read_part(g, text, &p_, &e_), -1); \
	ck_assert_ptr_null(p_); \
	ck_assert_int_eq(e_.kind, ILP_ERR_INPUT); \
	ck_assert_str_eq(e_.msg, want); \
} while (0)

START_TEST(partition_read_and_canonical_write)
{
	ilp_graph *g = chain("", "");
	ilp_partition *p = NULL, *q = NULL;
	ilp_error err;
	char *j1 = NULL, *j2 = NULL;

	/* Out of graph order in the file; canonical output is in graph order. */
	ck_assert_int_eq(read_part(g, "{'format': 'ilpart-partition', 'version': 1, "
	    "'producer': {'method': 'ilp', 'prefer': 'soft', 'gap': 0}, "
	    "'saved': ['b', 'x'], 'recomputed': ['a'], 'extra': 1}", &p, &err), 0);
	ck_assert(ilp_partition_is_saved(p, t_node(g, "b")));
	ck_assert(ilp_partition_is_saved(p, t_node(g, "x")));
	ck_assert(!ilp_partition_is_saved(p, t_node(g, "a")));
	ck_assert(ilp_partition_is_recomputed(p, t_node(g, "a")));
	ck_assert(!ilp_partition_is_saved(p, 1000));
	ck_assert(!ilp_partition_is_recomputed(p, 1000));
	ck_assert_int_eq(ilpi_partition_prefer(p), ILP_PREFER_SOFT);
	ck_assert_int_eq(ilp_partition_to_json(g, p, &j1, &err), 0);
	ck_assert_str_eq(j1, "{\n  \"format\": \"ilpart-partition\",\n  \"version\": 1,\n"
	    "  \"producer\": {\"method\": \"ilp\", \"prefer\": \"soft\", \"gap\": 0},\n"
	    "  \"saved\": [\n    \"x\",\n    \"b\"\n  ],\n"
	    "  \"recomputed\": [\n    \"a\"\n  ]\n}\n");
	ck_assert_int_eq(ilp_partition_read_buffer(g, j1, strlen(j1), "j1", &q, &err), 0);
	ck_assert_int_eq(ilp_partition_to_json(g, q, &j2, &err), 0);
	ck_assert_str_eq(j1, j2);
	free(j1);
	free(j2);
	ilp_partition_free(p);
	ilp_partition_free(q);
	ilp_graph_free(g);
}
END_TEST

/* Without a "recomputed" list (PyTorch's saved sets), the backward recomputes what it
 * needs; an explicit empty list means nothing is recomputed. */
START_TEST(partition_derives_recomputed)
{
	ilp_graph *g = t_graph_parts("", P16("x") ", " OP16("a", "'x'", "") ", "
	    OP16("b", "'a'", "") ", " OP16("out", "'b'", "") ", " OP16("u", "'x'", "") ", "
	    OP16("unused", "'x'", "") ", " T16("g") ", " OP16("gb", "'g', 'b', 'u'", ""), "'out'",
	    "'gb', null");
	const struct {
		const char *file, *want;
		int check; /* ilp_check's result */
	} cases[] = {
		/* u still needs x, which is not saved: derived, then refused by the check. */
		{ "{'format': 'ilpart-partition', 'version': 1, 'saved': ['a']}",
		    "\"recomputed\": [\n    \"b\",\n    \"u\"\n  ]", -1 },
		{ "{'format': 'ilpart-partition', 'version': 1, 'saved': ['x']}",
		    "\"recomputed\": [\n    \"a\",\n    \"b\",\n    \"u\"\n  ]", 0 },
		{ "{'format': 'ilpart-partition', 'version': 1, 'saved': ['x', 'b', 'u']}",
		    "\"recomputed\": []", 0 },
		{ "{'format': 'ilpart-partition', 'version': 1, 'saved': ['x'], 'recomputed': []}",
		    "\"recomputed\": []", -1 },
	};

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		ilp_partition *p = NULL;
		ilp_error err;
		char *j = NULL;

		ck_assert_int_eq(read_part(g, cases[k].file, &p, &err), 0);
		ck_assert_int_eq(ilp_partition_to_json(g, p, &j, &err), 0);
		ck_assert_msg(strstr(j, cases[k].want) != NULL, "case %zu: %s", k, j);
		/* The work marks must not leak into the partition. */
		for (size_t i = 0; i < g->n; i++)
			ck_assert_int_eq(p->state[i] & ~(ILPI_P_SAVED | ILPI_P_RECOMPUTED), 0);
		ck_assert_int_eq(ilp_check(g, p, NULL, &err), cases[k].check);
		free(j);
		ilp_partition_free(p);
	}
	ilp_graph_free(g);
}
END_TEST

START_TEST(partition_cost_and_overrides)
{
	ilp_graph *g = chain("", "");
	ilp_partition *p = t_part(g, "b", ""), *q = NULL;
	ilp_error err;
	char *j1 = NULL, *j2 = NULL;

	ck_assert_int_eq(ilp_partition_to_json(g, p, &j1, &err), 0);
	ck_assert_ptr_null(strstr(j1, "cost"));
	ck_assert_ptr_null(strstr(j1, "overrides"));
	ck_assert_ptr_nonnull(strstr(j1, "\"producer\": {}"));
	free(j1);
	p->has_cost = 1;
	p->saved_bytes = 16;
	p->recompute_flops = 0;
	p->recompute_time_us = 0.5;
	ilpi_partition_set_producer(p, "ilp", "memory", "soft", "optimal");
	/* Added out of graph order: written in graph order. */
	ck_assert_int_eq(ilpi_partition_add_override(p, (int32_t)t_node(g, "b"),
	    ILPI_TAG_PREFER_RECOMPUTE, 1.5), 0);
	ck_assert_int_eq(ilpi_partition_add_override(p, (int32_t)t_node(g, "a"),
	    ILPI_TAG_PREFER_SAVE, 2), 0);
	ck_assert_int_eq(ilp_partition_to_json(g, p, &j1, &err), 0);
	ck_assert_ptr_nonnull(strstr(j1, "  \"cost\": {\"saved_bytes\": 16, "
	    "\"recompute_flops\": 0, \"recompute_time_us\": 0.5}"));
	ck_assert_ptr_nonnull(strstr(j1, "  \"overrides\": [\n"
	    "    {\"node\": \"a\", \"tag\": \"PREFER_SAVE\", \"gain\": 2},\n"
	    "    {\"node\": \"b\", \"tag\": \"PREFER_RECOMPUTE\", \"gain\": 1.5}\n  ]"));
	ck_assert_int_eq(ilp_partition_read_buffer(g, j1, strlen(j1), "j1", &q, &err), 0);
	ck_assert_int_eq(q->has_cost, 1);
	ck_assert_int_eq(q->n_overrides, 2);
	ck_assert_int_eq(ilp_partition_to_json(g, q, &j2, &err), 0);
	ck_assert_str_eq(j1, j2);
	free(j1);
	free(j2);
	ilp_partition_free(p);
	ilp_partition_free(q);
	ilp_graph_free(g);
}
END_TEST

START_TEST(partition_saved_bytes_counts_storage_once)
{
	ilp_graph *g = chain(", 'view_of': 'x'", ", 'view_of': 'a'");
	ilp_partition *p = t_part(g, "x a b", "");

	ck_assert_int_eq(ilpi_partition_saved_bytes(g, p), 16);
	ck_assert_int_eq(ilpi_partition_count(p, ILPI_P_SAVED), 3);
	ck_assert_int_eq(ilpi_partition_count(p, ILPI_P_RECOMPUTED), 0);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(partition_bad_files)
{
	ilp_graph *g = chain("", "");

	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': ['nope']}",
	    "p.json: node 'nope': field 'saved': no such node in <test>");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': [], "
	    "'recomputed': ['a', 'zz']}",
	    "p.json: node 'zz': field 'recomputed': no such node in <test>");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 2, 'saved': []}",
	    "p.json: field 'version': unsupported version 2 (this ilpart reads version 1)");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': '1', 'saved': []}",
	    "p.json: field 'version': expected a number");
	READ_FAILS(g, "{'format': 'ilpart-joint-graph', 'version': 1, 'saved': []}",
	    "p.json: field 'format': expected \"ilpart-partition\"");
	READ_FAILS(g, "{'version': 1, 'saved': []}",
	    "p.json: field 'format': missing (expected \"ilpart-partition\")");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1}",
	    "p.json: field 'saved': missing");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': 'a'}",
	    "p.json: field 'saved': expected an array of node names");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': ['a', 3]}",
	    "p.json: field 'saved[1]': expected a string");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': ['a', 'a']}",
	    "p.json: node 'a': field 'saved': listed twice");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': [], "
	    "'producer': {'gap': 'x'}}", "p.json: field 'producer.gap': expected a number");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': [], "
	    "'producer': {'prefer': 'maybe'}}",
	    "p.json: field 'producer.prefer': expected \"hard\", \"pytorch\" or \"soft\"");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': [], "
	    "'cost': {'saved_bytes': -1}}",
	    "p.json: field 'cost.saved_bytes': expected an integer between 0 and 2^62");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': [], "
	    "'overrides': [{'node': 'a', 'tag': 'SOMETIMES', 'gain': 1}]}",
	    "p.json: node 'a': field 'overrides.tag': expected a SAC tag");
	READ_FAILS(g, "[1, 2]", "p.json: field '(top level)': expected an object");
	READ_FAILS(g, "{'format': 'ilpart-partition', 'version': 1, 'saved': []} x",
	    "p.json:1:59: invalid JSON: trailing characters after the document");
	READ_FAILS(g, "{'format': 'ilpart-partition',\n  'version': 1,,}",
	    "p.json:2:17: invalid JSON near '}'");
	READ_FAILS(g, "{'format': 'ilpart-partition', ",
	    "p.json:1:32: invalid JSON: unexpected end of file (truncated?)");
	ilp_graph_free(g);
}
END_TEST

START_TEST(partition_read_file_missing)
{
	ilp_graph *g = chain("", "");
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_partition_read_file(g, "/nonexistent/p.json", &p, &err), -1);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/p.json"));
	ilp_graph_free(g);
}
END_TEST

/* ---- lowering --------------------------------------------------------------------- */

static char *
render(const ilp_graph *g, const char *saved, const char *recomputed, ilp_split_format fmt)
{
	ilp_partition *p = t_part(g, saved, recomputed);
	ilp_error err = { 0 };
	char *out = NULL;

	ck_assert_msg(ilp_split_render(g, p, fmt, &out, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	return out;
}

START_TEST(split_text_chain)
{
	ilp_graph *g = chain(", 'shape': [2, 2], 'dtype': 'f32'", "");
	char *s = render(g, "a", "b", ILP_SPLIT_TEXT);

	ck_assert_str_eq(s,
	    "def forward(self, x):\n"
	    "    a: \"f32[2, 2]\" = aten.f.default(x)\n"
	    "    b = aten.f.default(a)\n"
	    "    out = aten.f.default(b)  # peak: 48 bytes live\n"
	    "    return (out, a)\n"
	    "\n"
	    "def backward(self, a: \"f32[2, 2]\", g):\n"
	    "    b = aten.f.default(a)  # recomputed\n"
	    "    gb = aten.f.default(g, b)\n"
	    "    return (gb,)\n");
	free(s);
	ilp_graph_free(g);
}
END_TEST

START_TEST(split_dead_code_and_unclaimed)
{
	/* u is unclaimed (from x, only for the backward); dead is a backward op nobody
	 * needs; gnone is a None gradient. */
	ilp_graph *g = t_graph_parts("", P16("x") ", " P16("w") ", " OP16("y", "'x', 'w'", "") ", "
	    OP16("u", "'w'", "") ", " T16("g") ", " OP16("gx", "'g', 'u'", "") ", "
	    OP16("dead", "'g', 'y'", ""), "'y'", "'gx', null");
	char *s;

	/* dead is dead (it reads the tangent but feeds no output): it is not run, and its
	 * input y need not be available; saving y is allowed all the same. */
	s = render(g, "w y", "u", ILP_SPLIT_TEXT);
	ck_assert_str_eq(s,
	    "def forward(self, x, w):\n"
	    "    y = aten.f.default(x, w)\n"
	    "    return (y, w, y)\n"
	    "\n"
	    "def backward(self, w, y, g):\n"
	    "    u = aten.f.default(w)  # recomputed\n"
	    "    gx = aten.f.default(g, u)  # peak: 48 bytes live\n"
	    "    return (gx, None)\n");
	free(s);
	/* Saving the unclaimed u moves it to the end of the forward. */
	s = render(g, "y u", "", ILP_SPLIT_TEXT);
	ck_assert_str_eq(s,
	    "def forward(self, x, w):\n"
	    "    y = aten.f.default(x, w)\n"
	    "    u = aten.f.default(w)\n"
	    "    return (y, y, u)\n"
	    "\n"
	    "def backward(self, y, u, g):\n"
	    "    gx = aten.f.default(g, u)  # peak: 48 bytes live\n"
	    "    return (gx, None)\n");
	free(s);
	ilp_graph_free(g);
}
END_TEST

START_TEST(split_getitem_text)
{
	ilp_graph *g = t_graph_parts("", P16("x") ", "
	    "{'name': 'split', 'kind': 'op', 'target': 'aten.split.Tensor', 'inputs': ['x'], "
	    "'tuple': true}, "
	    "{'name': 'getitem', 'kind': 'op', 'target': 'getitem', 'inputs': ['split'], "
	    "'index': 1, 'shape': [4], 'dtype': 'bf16'}, "
	    T16("g") ", " OP16("gb", "'g', 'getitem'", ""), "'getitem'", "'gb'");
	char *s = render(g, "x", "split getitem", ILP_SPLIT_TEXT);

	ck_assert_str_eq(s,
	    "def forward(self, x):\n"
	    "    split = aten.split.Tensor(x)\n"
	    "    getitem: \"bf16[4]\" = split[1]\n"
	    "    return (getitem, x)\n"
	    "\n"
	    "def backward(self, x, g):\n"
	    "    split = aten.split.Tensor(x)  # recomputed\n"
	    "    getitem: \"bf16[4]\" = split[1]  # recomputed\n"
	    "    gb = aten.f.default(g, getitem)  # peak: 32 bytes live\n"
	    "    return (gb,)\n");
	free(s);
	ilp_graph_free(g);
}
END_TEST

START_TEST(split_json_and_dot)
{
	ilp_graph *g = chain("", "");
	char *j = render(g, "a", "b", ILP_SPLIT_JSON), *j2 = render(g, "a", "b", ILP_SPLIT_JSON);
	char *d = render(g, "a", "b", ILP_SPLIT_DOT);

	ck_assert_str_eq(j, j2); /* deterministic */
	ck_assert_ptr_nonnull(strstr(j, "\"format\": \"ilpart-split\""));
	ck_assert_ptr_nonnull(strstr(j, "\"saved\": [\"a\"]"));
	ck_assert_ptr_nonnull(strstr(j, "{\"name\": \"b\", \"target\": \"aten.f.default\", "
	    "\"inputs\": [\"a\"], \"bytes\": 16, \"recomputed\": true}"));
	ck_assert_ptr_nonnull(strstr(j, "\"outputs\": [\"out\", \"a\"]"));
	ck_assert_ptr_nonnull(strstr(j, "\"outputs\": [\"gb\"]"));
	ck_assert_ptr_nonnull(strstr(d, "subgraph cluster_fw {"));
	ck_assert_ptr_nonnull(strstr(d, "subgraph cluster_bw {"));
	ck_assert_ptr_nonnull(strstr(d, "\"fw/a\" -> \"bw/a\" [color="));
	free(j);
	free(j2);
	free(d);
	ilp_graph_free(g);
}
END_TEST

START_TEST(split_refuses_violations)
{
	ilp_graph *g = chain("", ", 'recompute': 'MUST_RECOMPUTE'");
	ilp_partition *p = t_part(g, "b", "");
	ilp_error err = { 0 };
	char *out = NULL;

	ck_assert_int_eq(ilp_split_render(g, p, ILP_SPLIT_TEXT, &out, &err), -1);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(err.kind, ILP_ERR_VIOLATION);
	ck_assert_str_eq(err.msg,
	    "partition: node 'b' (MUST_RECOMPUTE): saved, but its tag forbids saving");
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(split_uses_partition_prefer_mode)
{
	ilp_graph *g = chain("", ", 'recompute': 'PREFER_RECOMPUTE'");
	ilp_partition *p = t_part(g, "b", "");
	ilp_error err = { 0 };
	char *out = NULL;

	ck_assert_int_eq(ilp_split_render(g, p, ILP_SPLIT_TEXT, &out, &err), -1);
	ilpi_partition_set_producer(p, NULL, NULL, "soft", NULL);
	ck_assert_msg(ilp_split_render(g, p, ILP_SPLIT_TEXT, &out, &err) == 0, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(out, "def backward(self, b, g):"));
	free(out);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(split_bytes_only_and_escapes)
{
	ilp_graph *g = t_graph_parts("", P16("x\\\"q") ", " OP16("y", "'x\\\"q'", "") ", " T16("g"),
	    "'y'", "'x\\\"q'");
	char *d = render(g, "x\"q", "", ILP_SPLIT_DOT);

	ck_assert_ptr_nonnull(strstr(d, "\"fw/x\\\"q\" -> \"bw/x\\\"q\""));
	free(d);
	ilp_graph_free(g);
}
END_TEST

/* Every op of a side reads only the side's inputs and earlier ops; outputs are defined. */
static void
assert_closed(const ilp_graph *g, const ilpi_side *side, uint8_t *def)
{
	memset(def, 0, g->n);
	for (size_t k = 0; k < side->n_in; k++)
		def[side->in[k]] = 1;
	for (size_t k = 0; k < side->n_op; k++) {
		const ilpi_node *n = &g->node[side->op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		for (uint32_t j = 0; j < n->in_count; j++)
			ck_assert_msg(def[in[j]], "'%s' reads undefined '%s'", n->name,
			    g->node[in[j]].name);
		def[side->op[k]] = 1;
	}
	for (size_t k = 0; k < side->n_out; k++)
		ck_assert(side->out[k] == ILPI_NONE || def[side->out[k]]);
}

/* Every assignment of {none, saved, recomputed} to the non-backward nodes of a graph:
 * whatever the checker accepts lowers to two self-contained graphs. */
static void
exhaustive(const char *rel, ilp_prefer_mode mode, size_t *n_ok, size_t *n_bad)
{
	ilp_graph *g = t_graph_file(t_srcpath(rel));
	ilp_error err = { 0 };
	ilp_check_options o = { mode };
	int32_t var[16];
	size_t nv = 0, total = 1;
	uint8_t *def;

	def = malloc(g->n);
	ck_assert_ptr_nonnull(def);
	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].cls != ILPI_BACKWARD && nv < 16)
			var[nv++] = (int32_t)i;
	for (size_t v = 0; v < nv; v++)
		total *= 3;
	*n_ok = *n_bad = 0;
	for (size_t code = 0; code < total; code++) {
		ilp_partition *p = ilp_partition_new(g);
		ilpi_split sp;
		size_t c = code;

		for (size_t v = 0; v < nv; v++, c /= 3)
			p->state[var[v]] = c % 3 == 1 ? ILPI_P_SAVED :
			    c % 3 == 2 ? ILPI_P_RECOMPUTED : 0;
		if (ilp_check(g, p, &o, &err) != 0) {
			ck_assert_int_eq(err.kind, ILP_ERR_VIOLATION);
			(*n_bad)++;
		} else {
			ilpi_partition_set_producer(p, NULL, NULL,
			    mode == ILP_PREFER_SOFT ? "soft" : mode == ILP_PREFER_PYTORCH ?
			    "pytorch" : "hard", NULL);
			ck_assert_msg(ilpi_lower(g, p, &sp, &err) == 0, "%s", err.msg);
			assert_closed(g, &sp.fw, def);
			assert_closed(g, &sp.bw, def);
			ck_assert_int_eq(sp.fw.n_out, g->n_fw_out + sp.n_saved);
			ck_assert_int_eq(sp.n_saved, ilpi_partition_count(p, ILPI_P_SAVED));
			ilpi_split_free(&sp);
			(*n_ok)++;
		}
		ilp_partition_free(p);
	}
	free(def);
	ilp_graph_free(g);
}

START_TEST(split_exhaustive_partitions_are_closed)
{
	size_t ok_hard, bad_hard, ok_soft, bad_soft;

	exhaustive("tests/golden/split-text/graph.json", ILP_PREFER_HARD, &ok_hard, &bad_hard);
	exhaustive("tests/golden/split-text/graph.json", ILP_PREFER_SOFT, &ok_soft, &bad_soft);
	ck_assert_uint_gt(ok_hard, 0);
	ck_assert_uint_gt(bad_hard, 0);
	/* Soft mode drops constraints, so it accepts strictly more. */
	ck_assert_uint_gt(ok_soft, ok_hard);
	exhaustive("tests/golden/split-seed-text/graph.json", ILP_PREFER_HARD, &ok_hard,
	    &bad_hard);
	ck_assert_uint_gt(ok_hard, 0);
	ck_assert_uint_gt(bad_hard, 0);
}
END_TEST

/* Real torch 2.6 joint graphs: the partitions PyTorch ran are executable. */
static long
pytorch_partition_executable(const char *path, ilp_graph *g, void *ctx)
{
	ilp_check_options o = { ILP_PREFER_SOFT };
	ilp_partition *p;
	ilp_error err = { 0 };
	ilpi_split sp;

	(void)ctx;
	if (g->n_ref == 0)
		return 0;
	/* the first reference: PyTorch's saved set without a memory budget */
	p = t_ref_part(g, 0);
	ck_assert_msg(ilp_check(g, p, &o, &err) == 0, "%s: %s", path, err.msg);
	ilpi_partition_set_producer(p, "pytorch", NULL, "soft", NULL);
	ck_assert_msg(ilpi_lower(g, p, &sp, &err) == 0, "%s", err.msg);
	ilpi_split_free(&sp);
	ilp_partition_free(p);
	return 1;
}

START_TEST(corpus_pytorch_partitions_are_executable)
{
	ck_assert_int_gt(t_each_corpus_graph(pytorch_partition_executable, NULL), 0);
}
END_TEST

/* The seed bug: PyTorch saved the float8 cast that the SAC policy says to recompute. */
START_TEST(seed_pytorch_partition_violates_sac)
{
	ilp_graph *g = t_graph_file(t_srcpath("tests/golden/check-seed-example/graph.json"));
	ilp_partition *p = t_ref_part(g, 0);
	ilp_error err = { 0 };
	ilp_check_options hard = { ILP_PREFER_HARD }, soft = { ILP_PREFER_SOFT };

	ck_assert_int_eq(ilp_check(g, p, &hard, &err), -1);
	ck_assert_str_eq(err.msg, "partition: node 'convert_element_type_4' (PREFER_RECOMPUTE): "
	    "saved, but its tag forbids saving (prefer mode hard)");
	ck_assert_msg(ilp_check(g, p, &soft, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* A partition of another graph is refused by every entry point that reads it by node,
 * before any node is read (ilp_partition_peak used to read past its state array). */
START_TEST(partition_of_another_graph)
{
	ilp_graph *g = chain("", ""), *small = t_graph_parts("", P16("x") ", " OP16("y", "'x'",
	    "") ", " T16("t") ", " OP16("gx", "'t'", ""), "'y'", "'gx'");
	ilp_partition *p = t_part(small, "x", ""), *q = NULL;
	ilp_error err;
	ilp_peak pk;
	char *text = NULL;
	const char *want = "<test>: the partition has 4 nodes, the graph 6";

#define REFUSED(call) do { \
	ck_assert_int_eq((call), -1); \
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT); \
	ck_assert_str_eq(err.msg, want); \
} while (0)
	REFUSED(ilp_check(g, p, NULL, &err));
	REFUSED(ilp_partition_evaluate(g, p, NULL, &err));
	REFUSED(ilp_partition_to_json(g, p, &text, &err));
	REFUSED(ilp_split_render(g, p, ILP_SPLIT_TEXT, &text, &err));
	REFUSED(ilp_partition_peak(g, p, &pk, &err));
	REFUSED(ilp_partition_remap(g, p, small, &q, &err));
#undef REFUSED
	ck_assert_ptr_null(text);
	ck_assert_ptr_null(q);
	ilp_partition_free(p);
	ilp_graph_free(small);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_check(void)
{
	Suite *s = suite_create("check");
	TCase *c = tcase_create("checker"), *t = tcase_create("tags");
	TCase *f = tcase_create("files"), *l = tcase_create("lower");

	tcase_add_loop_test(c, check_chain_cases, 0,
	    (int)(sizeof chain_cases / sizeof chain_cases[0]));
	tcase_add_test(c, check_tuple_not_saved);
	tcase_add_test(c, check_get_attr_not_saved);
	tcase_add_test(c, check_primal_gradient_saved);
	tcase_add_test(c, check_forward_gradient_available);
	tcase_add_test(c, check_size_mismatch);
	tcase_add_test(t, check_mutated_input_never_saved);
	tcase_add_test(t, check_getitem_region_is_tuples);
	tcase_add_test(t, check_tags_bind_ops_only);
	tcase_add_test(c, check_dead_nodes);
	tcase_add_test(t, check_rng_functionalized);
	tcase_add_test(f, partition_of_another_graph);
	tcase_add_test(f, partition_read_and_canonical_write);
	tcase_add_test(f, partition_derives_recomputed);
	tcase_add_test(f, partition_cost_and_overrides);
	tcase_add_test(f, partition_saved_bytes_counts_storage_once);
	tcase_add_test(f, partition_bad_files);
	tcase_add_test(f, partition_read_file_missing);
	tcase_add_test(l, split_text_chain);
	tcase_add_test(l, split_dead_code_and_unclaimed);
	tcase_add_test(l, split_getitem_text);
	tcase_add_test(l, split_json_and_dot);
	tcase_add_test(l, split_refuses_violations);
	tcase_add_test(l, split_uses_partition_prefer_mode);
	tcase_add_test(l, split_bytes_only_and_escapes);
	tcase_add_test(l, split_exhaustive_partitions_are_closed);
	tcase_add_test(l, corpus_pytorch_partitions_are_executable);
	tcase_add_test(l, seed_pytorch_partition_violates_sac);
	tcase_set_timeout(l, 60);
	suite_add_tcase(s, c);
	suite_add_tcase(s, t);
	suite_add_tcase(s, f);
	suite_add_tcase(s, l);
	return s;
}
