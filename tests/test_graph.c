/*
 * test_graph.c - the joint-graph model: reader (every field, sizes, defaults, views,
 * tuples, references), classification, user lists, interning, name lookup, the
 * canonical writer, and rejected inputs.
 *
 * JSON is written with single quotes for readability; t_q() turns them into double quotes.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/grow.h"
#include "graph/intern.h"
#include "graph/json_parse.h"
#include "tests/suites.h"
#include "tests/util.h"

#define HDR "{'format': 'ilpart-joint-graph', 'version': 1, "

/* Reads a graph that must be rejected; returns the message. */
static const char *
bad(const char *s, ilp_error *err)
{
	ilp_graph *g = (ilp_graph *)1;
	const char *j = t_q(s);

	ck_assert_int_eq(ilp_graph_read_buffer(j, strlen(j), "t.json", &g, err), -1);
	ck_assert_ptr_null(g);
	ck_assert_ptr_null(strchr(err->msg, '\n'));
	return err->msg;
}

/* A small joint graph: forward mm/relu, backward through a tangent, a weight transpose
 * that only the backward needs (unclaimed), a dead op, and a primal returned as grad. */
static const char *const joint =
    HDR "'description': 'mlp', 'nodes': ["
    "{'name': 'primals_1', 'kind': 'primal', 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 'primals_2', 'kind': 'primal', 'shape': [8, 8], 'dtype': 'f32'},"
    "{'name': 'primals_3', 'kind': 'primal', 'shape': [8], 'dtype': 'f32'},"
    "{'name': 'mm', 'kind': 'op', 'target': 'aten.mm.default',"
    " 'inputs': ['primals_1', 'primals_2'], 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 'relu', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['mm'],"
    " 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 'dead', 'kind': 'op', 'target': 'aten.neg.default', 'inputs': ['mm'],"
    " 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 't', 'kind': 'op', 'target': 'aten.t.default', 'inputs': ['primals_2'],"
    " 'shape': [8, 8], 'dtype': 'f32', 'view_of': 'primals_2'},"
    "{'name': 'tangents_1', 'kind': 'tangent', 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 'tb', 'kind': 'op', 'target': 'aten.threshold_backward.default',"
    " 'inputs': ['tangents_1', 'relu'], 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 'mm_1', 'kind': 'op', 'target': 'aten.mm.default', 'inputs': ['tb', 't'],"
    " 'shape': [4, 8], 'dtype': 'f32'},"
    "{'name': 'zeros', 'kind': 'op', 'target': 'aten.zeros_like.default',"
    " 'inputs': ['primals_3'], 'shape': [8], 'dtype': 'f32'}"
    "], 'outputs': {'forward': ['relu'], 'backward': ['mm_1', null, 'zeros', 'primals_3']}}";

/* ---- reader ---------------------------------------------------------------- */

/* ---- the fast JSON path builds the values cJSON reads ------------------------------ */

static void
same_tree(const ilpi_jv *a, const cJSON *b, const char *what)
{
	ck_assert_msg(ilpi_jv_same_as_cjson(a, b), "%s: the trees differ", what);
}

/* Parses s[0..len) both ways: the same verdict, tree or message. 1 when the fast
 * path built the tree. */
static int
fast_vs_cjson(const char *s, size_t len, const char *what)
{
	ilpi_json_doc d;
	ilp_error e1 = { 0 }, e2 = { 0 };
	cJSON *ref = ilpi_json_parse(s, len, "x", &e1);
	int rc = ilpi_json_doc_parse(&d, s, len, "x", &e2), fast = rc == 0 && d.cj == NULL;

	ck_assert_msg((rc == 0) == (ref != NULL), "%s: fast %d, cJSON %s", what, rc,
	    ref != NULL ? "parses" : e1.msg);
	if (ref != NULL)
		same_tree(d.root, ref, what);
	else
		ck_assert_str_eq(e2.msg, e1.msg);
	ilpi_json_doc_free(&d);
	/* in place: the same tree or message, and a text it gives up on is restored
	 * before cJSON reads it */
	{
		char *own = malloc(len + 1);
		ilp_error e3 = { 0 };
		int rc3;

		ck_assert_ptr_nonnull(own);
		memcpy(own, s, len);
		own[len] = '\0';
		rc3 = ilpi_json_doc_parse_in_place(&d, own, len, "x", &e3);
		ck_assert_msg(rc3 == rc && (rc3 == 0 && d.cj == NULL) == fast, "%s: in place %d",
		    what, rc3);
		if (ref != NULL)
			same_tree(d.root, ref, what);
		else
			ck_assert_str_eq(e3.msg, e1.msg);
		if (!fast)
			ck_assert_msg(memcmp(own, s, len) == 0, "%s: text not restored", what);
		ilpi_json_doc_free(&d);
		free(own);
	}
	cJSON_Delete(ref);
	return fast;
}

static long
corpus_fast(const char *path, ilp_graph *g, void *ctx)
{
	char *buf;
	size_t len;
	ilp_error err;

	(void)g;
	(void)ctx;
	ck_assert_int_eq(ilpi_read_file(path, &buf, &len, &err), 0);
	ck_assert_msg(fast_vs_cjson(buf, len, path), "%s: not on the fast path", path);
	free(buf);
	return 1;
}

START_TEST(test_json_fast_path)
{
	static const char *const docs[] = {
		"0", "-0", "1", "-1", "0.5", "-0.25", "1e3", "1E+3", "2e-3", "-12.5e-3", "1e22",
		"1e23", "9007199254740993", "9007199254740992", "123456789012345678901",
		"0.1", "0.30000000000000004", "5e-324", "1.7976931348623157e308", "1e309",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "1e400", "1.5e-400",
		"0.000000000000000000000000123", "12345678901234567890123456789012345678901234567890"
		"12345678901234567890", "1.", ".5", "01", "+1", "-", "1e", "1e+", "--1", "1.2.3",
		"0x10", "1-2", "true", "false", "null", "tru", "nul", "falsey", "[]", "{}", "[ ]",
		"{ }", "[1]", "[1,2,3]", "[1,]", "[,1]", "{\"a\":1}", "{\"a\":1,\"a\":2}",
		"{\"a\" : [ 1 , {\"b\" : null } ] , \"c\" : \"d\" }", "{\"a\"}", "{\"a\":}",
		"{1:2}", "\"\"", "\"abc\"", "\"a\\\"b\"", "\"a\\\\b\\/c\\n\\t\\r\\b\\f\"",
		"\"\\u0041\"", "\"\\ud83d\\ude00\"", "\"\\x\"", "\"abc", "\"a\\", "\"\x01\x7f\xc3\xa9\"",
		"\xef\xbb\xbf[1]", " [1] ", "\v[1]", "[1\f]", "[1]x", "[1] [2]", "[[[[[[]]]]]]",
		"{\"k\": [true, false, null, -0.0, 1e-7, \"s\"]}",
		/* in place: strings ended before the text is given up on (restored) */
		"{\"a\":\"b\",\"c\":\"\\u0041\"}", "[\"x\", \"y\\n\", 01]", "[\"x\", \"y\"",
	};
	char deep[2 * 600 + 1];
	t_rng rng;

	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
		fast_vs_cjson(docs[i], strlen(docs[i]), docs[i]);
	/* the fast path gives up past its depth; cJSON past 1000 */
	for (int n = 500; n <= 600; n += 100) {
		for (int k = 0; k < n; k++)
			deep[k] = '[', deep[2 * n - 1 - k] = ']';
		fast_vs_cjson(deep, 2 * (size_t)n, "deep");
	}
	/* the comparison tells different trees apart */
	{
		static const char *const pairs[][2] = { { "[1,2]", "[1,3]" }, { "[1]", "[1,2]" },
			{ "{\"a\":1}", "{\"b\":1}" }, { "{\"a\":1}", "[1]" }, { "\"x\"", "\"y\"" },
			{ "[null]", "[false]" }, { "[0]", "[-0]" }, { "[[]]", "[{}]" } };

		for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
			ilpi_json_doc d;
			ilp_error e = { 0 };
			cJSON *a = ilpi_json_parse(pairs[i][0], strlen(pairs[i][0]), "x", &e);
			cJSON *b = ilpi_json_parse(pairs[i][1], strlen(pairs[i][1]), "x", &e);

			ck_assert_int_eq(ilpi_json_doc_parse(&d, pairs[i][0], strlen(pairs[i][0]),
			    "x", &e), 0);
			ck_assert_msg(ilpi_jv_same_as_cjson(d.root, a), "%s", pairs[i][0]);
			ck_assert_msg(!ilpi_jv_same_as_cjson(d.root, b), "%s vs %s", pairs[i][0],
			    pairs[i][1]);
			ilpi_json_doc_free(&d);
			cJSON_Delete(a);
			cJSON_Delete(b);
		}
	}
	/* random decimals: every mantissa length and power of ten the exact path takes,
	 * and beyond it (strtod) */
	t_rng_seed(&rng, 7);
	for (int k = 0; k < 20000; k++) {
		char num[64];
		int digits = 1 + (int)t_below(&rng, 20), point = (int)t_below(&rng, (uint32_t)digits + 1);
		int exp = (int)t_below(&rng, 61) - 30, n = 0;

		if (t_below(&rng, 2))
			num[n++] = '-';
		for (int d = 0; d < digits; d++) {
			if (d == point && d > 0)
				num[n++] = '.';
			num[n++] = (char)('0' + (d == 0 && digits > 1 && point != 1 ?
			    1 + t_below(&rng, 9) : t_below(&rng, 10)));
		}
		if (k % 2)
			n += snprintf(num + n, sizeof num - (size_t)n, "e%d", exp);
		num[n] = '\0';
		ck_assert(fast_vs_cjson(num, (size_t)n, num) || num[0] == '0' || num[1] == '0');
	}
	/* plain graph files take the fast path, and build cJSON's tree */
	ck_assert_int_gt(t_each_corpus_graph(corpus_fast, NULL), 0);
	ck_assert(fast_vs_cjson(t_q(joint), strlen(t_q(joint)), "joint"));
	/* random damage to a document: the same verdict, tree or message */
	t_rng_seed(&rng, 11);
	for (int round = 0; round < 3000; round++) {
		static const char alphabet[] = "{}[]:,\"\\ \n\t0123456789.eE+-truefalsn\v\x01\xc3";
		char doc[1024];
		size_t len;
		int edits = 1 + (int)t_below(&rng, 3);

		snprintf(doc, sizeof doc, "%s", t_q(joint));
		len = strlen(doc);
		for (int k = 0; k < edits; k++) {
			size_t at = t_below(&rng, (uint32_t)len);
			char c = alphabet[t_below(&rng, sizeof alphabet - 1)];

			switch (t_below(&rng, 3)) {
			case 0: /* replace */
				doc[at] = c;
				break;
			case 1: /* delete */
				memmove(doc + at, doc + at + 1, len - at);
				len--;
				break;
			default: /* insert */
				if (len + 2 < sizeof doc) {
					memmove(doc + at + 1, doc + at, len - at + 1);
					doc[at] = c;
					len++;
				}
			}
		}
		fast_vs_cjson(doc, len, "damaged");
	}
}
END_TEST

START_TEST(test_every_field)
{
	ilp_graph *g = t_graph_q(HDR "'description': 'd', 'rng_functionalized': true, 'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'shape': [2, 3], 'dtype': 'bf16'},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.native_dropout.default',"
	    " 'inputs': ['x'], 'shape': [2, 3], 'dtype': 'f32', 'bytes': 100, 'flops': 12.5,"
	    " 'bytes_read': 7, 'bytes_written': 9, 'time_us': 0.25, 'recompute': 'MUST_SAVE',"
	    " 'ac_graph_id': 3, 'random': true, 'effectful': true, 'collective': true,"
	    " 'memory_budget': 0.25, 'workspace': 4096, 'meta': {'anything': [1, 2]}}"
	    "], 'outputs': {'forward': ['y'], 'backward': [null]}, 'meta': {'k': 1}}");
	const ilpi_node *x = t_nd(g, "x"), *y = t_nd(g, "y");

	ck_assert_str_eq(g->description, "d");
	ck_assert_int_eq(g->rng_functionalized, 1);
	ck_assert_str_eq(g->path, "<test>");
	ck_assert_int_eq(x->kind, ILPI_PRIMAL);
	ck_assert_ptr_null(x->target);
	ck_assert_str_eq(x->dtype, "bf16");
	ck_assert_int_eq(x->bytes, 12);
	ck_assert_int_eq(x->ndim, 2);
	ck_assert_int_eq(g->shape[x->shape_begin], 2);
	ck_assert_int_eq(g->shape[x->shape_begin + 1], 3);
	ck_assert_int_eq(y->kind, ILPI_OP);
	ck_assert_str_eq(y->target, "aten.native_dropout.default");
	ck_assert_int_eq(y->bytes, 100); /* bytes overrides shape x itemsize */
	ck_assert_str_eq(y->dtype, "f32");
	ck_assert_double_eq(y->flops, 12.5);
	ck_assert_double_eq(y->bytes_read, 7);
	ck_assert_double_eq(y->bytes_written, 9);
	ck_assert_double_eq(y->time_us, 0.25);
	ck_assert_int_eq(y->workspace, 4096);
	ck_assert_int_eq(x->workspace, 0);
	ck_assert_int_eq(y->tag, ILPI_TAG_MUST_SAVE);
	ck_assert_int_eq(y->ac_graph_id, 3);
	ck_assert(y->flags & ILPI_F_RANDOM);
	ck_assert(y->flags & ILPI_F_EFFECTFUL);
	ck_assert(y->flags & ILPI_F_COLLECTIVE);
	ck_assert(!(y->flags & (ILPI_F_TUPLE | ILPI_F_GETITEM)));
	ck_assert_double_eq(g->memory_budget, 0.25);
	ck_assert_int_eq(g->memory_budget_node, t_node(g, "y"));
	ck_assert_uint_eq(y->in_count, 1);
	ck_assert_int_eq(ilpi_inputs(g, y)[0], t_node(g, "x"));
	ck_assert_uint_eq(g->n_fw_out, 1);
	ck_assert_int_eq(g->fw_out[0], t_node(g, "y"));
	ck_assert_uint_eq(g->n_bw_out, 1);
	ck_assert_int_eq(g->bw_out[0], ILPI_NONE);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_defaults)
{
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'bytes': 64},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['x'],"
	    " 'bytes': 64, 'recompute': null, 'ac_graph_id': null, 'dtype': null, 'shape': null}"
	    "], 'outputs': {'forward': ['y'], 'backward': []}}");

	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		ck_assert_int_eq(n->bytes, 64);
		ck_assert_int_eq(n->ndim, -1);
		ck_assert_ptr_null(n->dtype);
		ck_assert_int_eq(n->tag, ILPI_TAG_NONE);
		ck_assert_int_eq(n->ac_graph_id, ILPI_NONE);
		ck_assert_int_eq(n->view_of, ILPI_NONE);
		ck_assert_int_eq(n->storage, (int32_t)i);
		ck_assert_int_eq(n->index, ILPI_NONE);
		ck_assert_double_eq(n->flops, ILPI_UNKNOWN_COST);
		ck_assert_double_eq(n->bytes_read, ILPI_UNKNOWN_COST);
		ck_assert_double_eq(n->bytes_written, ILPI_UNKNOWN_COST);
		ck_assert_double_eq(n->time_us, ILPI_UNKNOWN_COST);
		ck_assert(!(n->flags & (ILPI_F_RANDOM | ILPI_F_EFFECTFUL | ILPI_F_COLLECTIVE |
		    ILPI_F_TUPLE | ILPI_F_GETITEM)));
	}
	ck_assert_ptr_null(g->description);
	ck_assert_int_eq(g->rng_functionalized, 0);
	ck_assert_uint_eq(g->n_ref, 0);
	ck_assert_uint_eq(g->n_bw_out, 0);
	ilp_graph_free(g);
}
END_TEST

/* Item sizes as PyTorch defines them, spelled every accepted way. */
static const struct {
	const char *spelling, *canon;
	int64_t size;
} dtype_cases[] = {
	{ "f64", "f64", 8 }, { "torch.float64", "f64", 8 }, { "double", "f64", 8 },
	{ "f32", "f32", 4 }, { "torch.float32", "f32", 4 }, { "float", "f32", 4 },
	{ "f16", "f16", 2 }, { "float16", "f16", 2 }, { "torch.half", "f16", 2 },
	{ "bf16", "bf16", 2 }, { "torch.bfloat16", "bf16", 2 },
	{ "f8e4m3fn", "f8e4m3fn", 1 }, { "torch.float8_e4m3fn", "f8e4m3fn", 1 },
	{ "f8e4m3fnuz", "f8e4m3fnuz", 1 }, { "f8e5m2", "f8e5m2", 1 },
	{ "torch.float8_e5m2fnuz", "f8e5m2fnuz", 1 },
	{ "c64", "c64", 8 }, { "torch.complex64", "c64", 8 },
	{ "c128", "c128", 16 }, { "complex128", "c128", 16 },
	{ "i64", "i64", 8 }, { "torch.int64", "i64", 8 }, { "torch.long", "i64", 8 },
	{ "i32", "i32", 4 }, { "int32", "i32", 4 }, { "i16", "i16", 2 },
	{ "i8", "i8", 1 }, { "u8", "u8", 1 }, { "torch.uint8", "u8", 1 },
	{ "b8", "b8", 1 }, { "torch.bool", "b8", 1 },
};

START_TEST(test_dtype_size)
{
	char json[512];
	ilp_graph *g;
	const ilpi_node *x;

	snprintf(json, sizeof json, HDR "'nodes': [{'name': 'x', 'kind': 'primal', "
	    "'shape': [3, 5, 7], 'dtype': '%s'}], 'outputs': {'forward': ['x'], "
	    "'backward': []}}", dtype_cases[_i].spelling);
	g = t_graph_q(json);
	x = t_nd(g, "x");
	ck_assert_str_eq(x->dtype, dtype_cases[_i].canon);
	ck_assert_int_eq(x->bytes, 105 * dtype_cases[_i].size);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_shapes)
{
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'scalar', 'kind': 'primal', 'shape': [], 'dtype': 'f64'},"
	    "{'name': 'empty', 'kind': 'primal', 'shape': [16, 0, 4], 'dtype': 'f32'},"
	    "{'name': 'big', 'kind': 'primal', 'shape': [65536, 65536, 1024], 'dtype': 'bf16'},"
	    "{'name': 'b', 'kind': 'primal', 'bytes': 0}"
	    "], 'outputs': {'forward': [], 'backward': []}}");

	ck_assert_int_eq(t_nd(g, "scalar")->ndim, 0);
	ck_assert_int_eq(t_nd(g, "scalar")->bytes, 8);
	ck_assert_int_eq(t_nd(g, "empty")->ndim, 3);
	ck_assert_int_eq(t_nd(g, "empty")->bytes, 0);
	ck_assert_int_eq(t_nd(g, "big")->bytes, (int64_t)1 << 43);
	ck_assert_int_eq(g->shape[t_nd(g, "big")->shape_begin + 2], 1024);
	ck_assert_int_eq(t_nd(g, "b")->bytes, 0);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_views)
{
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'shape': [4, 4], 'dtype': 'f32'},"
	    "{'name': 'a', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['x'],"
	    " 'shape': [4, 4], 'dtype': 'f32'},"
	    "{'name': 'v1', 'kind': 'op', 'target': 'aten.view.default', 'inputs': ['a'],"
	    " 'shape': [16], 'dtype': 'f32', 'view_of': 'a'},"
	    "{'name': 'v2', 'kind': 'op', 'target': 'aten.slice.Tensor', 'inputs': ['v1'],"
	    " 'shape': [2], 'dtype': 'f32', 'view_of': 'v1'},"
	    "{'name': 'xv', 'kind': 'op', 'target': 'aten.t.default', 'inputs': ['x'],"
	    " 'shape': [4, 4], 'dtype': 'f32', 'view_of': 'x'}"
	    "], 'outputs': {'forward': ['v2', 'xv'], 'backward': []}}");
	const ilpi_node *v2 = t_nd(g, "v2");

	ck_assert_int_eq(t_nd(g, "a")->storage, t_node(g, "a"));
	ck_assert_int_eq(t_nd(g, "v1")->view_of, t_node(g, "a"));
	ck_assert_int_eq(t_nd(g, "v1")->storage, t_node(g, "a"));
	ck_assert_int_eq(v2->view_of, t_node(g, "v1"));
	ck_assert_int_eq(v2->storage, t_node(g, "a")); /* chains resolve to the root */
	ck_assert_int_eq(v2->bytes, 8);
	ck_assert_int_eq(ilpi_storage_bytes(g, v2), 64);
	ck_assert_int_eq(t_nd(g, "xv")->storage, t_node(g, "x"));
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_tuple_getitem)
{
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'shape': [4, 8], 'dtype': 'f32'},"
	    "{'name': 'max', 'kind': 'op', 'target': 'aten.max.dim', 'inputs': ['x'],"
	    " 'tuple': true},"
	    "{'name': 'values', 'kind': 'op', 'target': 'getitem', 'inputs': ['max'],"
	    " 'index': 0, 'shape': [4], 'dtype': 'f32'},"
	    "{'name': 'indices', 'kind': 'op', 'target': 'getitem', 'inputs': ['max'],"
	    " 'index': 1, 'shape': [4], 'dtype': 'i64'}"
	    "], 'outputs': {'forward': ['values', 'indices'], 'backward': []}}");
	const ilpi_node *m = t_nd(g, "max"), *v = t_nd(g, "values"), *i = t_nd(g, "indices");

	ck_assert(m->flags & ILPI_F_TUPLE);
	ck_assert(!(m->flags & ILPI_F_GETITEM));
	ck_assert_int_eq(m->bytes, 0);
	ck_assert_int_eq(m->ndim, -1);
	ck_assert(v->flags & ILPI_F_GETITEM);
	ck_assert_int_eq(v->index, 0);
	ck_assert_int_eq(v->bytes, 16);
	ck_assert(i->flags & ILPI_F_GETITEM);
	ck_assert_int_eq(i->index, 1);
	ck_assert_int_eq(i->bytes, 32);
	ck_assert_uint_eq(m->use_count, 2);
	ck_assert_int_eq(ilpi_users(g, m)[0], t_node(g, "values"));
	ck_assert_int_eq(ilpi_users(g, m)[1], t_node(g, "indices"));
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_reference)
{
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['x'],"
	    " 'bytes': 4},"
	    "{'name': 'z', 'kind': 'op', 'target': 'aten.cos.default', 'inputs': ['y'],"
	    " 'bytes': 4}"
	    "], 'outputs': {'forward': ['z'], 'backward': []}, 'reference': ["
	    "{'name': 'pytorch-2.6-mincut', 'saved': ['z', 'x']},"
	    "{'name': 'other', 'saved': [], 'recomputed': ['y']}]}");

	ck_assert_uint_eq(g->n_ref, 2);
	ck_assert_str_eq(g->ref[0].name, "pytorch-2.6-mincut");
	ck_assert_uint_eq(g->ref[0].n_saved, 2);
	ck_assert_int_eq(g->ref[0].saved[0], t_node(g, "z"));
	ck_assert_int_eq(g->ref[0].saved[1], t_node(g, "x"));
	ck_assert_ptr_null(g->ref[0].recomputed);
	ck_assert_str_eq(g->ref[1].name, "other");
	ck_assert_uint_eq(g->ref[1].n_saved, 0);
	ck_assert_ptr_nonnull(g->ref[1].recomputed);
	ck_assert_uint_eq(g->ref[1].n_recomputed, 1);
	ck_assert_int_eq(g->ref[1].recomputed[0], t_node(g, "y"));
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_duplicate_inputs)
{
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'sq', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['x', 'x'],"
	    " 'bytes': 4},"
	    "{'name': 'w', 'kind': 'op', 'target': 'aten.addcmul.default',"
	    " 'inputs': ['sq', 'x', 'sq'], 'bytes': 4}"
	    "], 'outputs': {'forward': ['w'], 'backward': []}}");
	const ilpi_node *sq = t_nd(g, "sq"), *w = t_nd(g, "w"), *x = t_nd(g, "x");

	ck_assert_uint_eq(sq->in_count, 2);
	ck_assert_int_eq(ilpi_inputs(g, sq)[0], t_node(g, "x"));
	ck_assert_int_eq(ilpi_inputs(g, sq)[1], t_node(g, "x"));
	ck_assert_uint_eq(w->in_count, 3);
	ck_assert_int_eq(ilpi_inputs(g, w)[0], t_node(g, "sq"));
	ck_assert_int_eq(ilpi_inputs(g, w)[1], t_node(g, "x"));
	ck_assert_int_eq(ilpi_inputs(g, w)[2], t_node(g, "sq"));
	/* Users are distinct. */
	ck_assert_uint_eq(x->use_count, 2);
	ck_assert_int_eq(ilpi_users(g, x)[0], t_node(g, "sq"));
	ck_assert_int_eq(ilpi_users(g, x)[1], t_node(g, "w"));
	ck_assert_uint_eq(sq->use_count, 1);
	ck_assert_int_eq(ilpi_users(g, sq)[0], t_node(g, "w"));
	ck_assert_uint_eq(w->use_count, 0);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_buffer_not_terminated)
{
	/* The reader must stop at len: what follows is not part of the document. */
	const char *j = t_q(HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 1}],"
	    " 'outputs': {'forward': ['x'], 'backward': []}}GARBAGE");
	ilp_graph *g = NULL;
	ilp_error err;

	ck_assert_int_eq(ilp_graph_read_buffer(j, strlen(j) - 7, NULL, &g, &err), 0);
	ck_assert_uint_eq(ilp_graph_node_count(g), 1);
	ck_assert_str_eq(g->path, "<graph>");
	ilp_graph_free(g);
	ck_assert_int_eq(ilp_graph_read_buffer(j, strlen(j), "g.json", &g, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "trailing characters"));
}
END_TEST

/* Every reader on every prefix of a document and on a few broken ones, each copied into
 * a buffer of exactly its length: no reader may look past len, even when it quotes the
 * text near a parse error (ASan turns an overread into a failure here). */
static int
read_exact(int which, const ilp_graph *g, const char *s, size_t len, ilp_error *err)
{
	char *buf = malloc(len > 0 ? len : 1);
	ilp_graph *rg = NULL;
	ilp_policy *pol = NULL;
	ilp_partition *p = NULL;
	int rc;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, s, len);
	if (which == 0)
		rc = ilp_graph_read_buffer(buf, len, "g", &rg, err);
	else if (which == 1)
		rc = ilp_policy_read_buffer(buf, len, "pol", &pol, err);
	else
		rc = ilp_partition_read_buffer(g, buf, len, "p", &p, err);
	free(buf);
	ilp_graph_free(rg);
	ilp_policy_free(pol);
	ilp_partition_free(p);
	return rc;
}

START_TEST(test_unterminated_buffers)
{
	const char *docs[3] = {
		HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4},"
		    " {'name': 'y', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['x'],"
		    " 'bytes': 4}, {'name': 't', 'kind': 'tangent', 'bytes': 4},"
		    " {'name': 'z', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'x'],"
		    " 'bytes': 4}], 'outputs': {'forward': ['y'], 'backward': ['z']}}",
		"{'format': 'ilpart-policy', 'version': 1, 'regions': 'all',"
		    " 'default': 'PREFER_RECOMPUTE',"
		    " 'rules': [{'ops': ['aten.mm.default'], 'policy': 'MUST_SAVE'}]}",
		"{'format': 'ilpart-partition', 'version': 1, 'saved': ['x'], 'recomputed': []}",
	};
	/* Invalid JSON whose error position is within 12 bytes of the end: the message
	 * quotes the text there (the fuzzer's " `\n\n" overread the buffer by 9 bytes). */
	const char *broken[] = { " `\n\n", "{\"a\" 1", "[1,]", "{}x", "nul", "\"\\u12" };
	ilp_graph *g = t_graph(t_q(docs[0]));
	ilp_error err;

	for (int w = 0; w < 3; w++) {
		char doc[1024];
		size_t n;

		snprintf(doc, sizeof doc, "%s", t_q(docs[w]));
		n = strlen(doc);
		for (size_t len = 0; len < n; len++)
			ck_assert_int_eq(read_exact(w, g, doc, len, &err), -1);
		ck_assert_msg(read_exact(w, g, doc, n, &err) == 0, "%d: %s", w, err.msg);
		for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
			ck_assert_int_eq(read_exact(w, g, broken[i], strlen(broken[i]), &err), -1);
			ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
		}
	}
	ck_assert_int_eq(read_exact(0, g, " `\n\n", 4, &err), -1);
	ck_assert_str_eq(err.msg, "g:1:2: invalid JSON near '`'");
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_read_file)
{
	char path[] = "/tmp/ilpart-test-graph-XXXXXX";
	const char *j = t_q(HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 1}],"
	    " 'outputs': {'forward': ['x'], 'backward': []}}\n");
	ilp_graph *g = NULL;
	ilp_error err;
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(j, f);
	fclose(f);
	ck_assert_int_eq(ilp_graph_read_file(path, &g, &err), 0);
	ck_assert_str_eq(g->path, path);
	ck_assert_str_eq(ilp_graph_node_name(g, 0), "x");
	ilp_graph_free(g);
	unlink(path);
	ck_assert_int_eq(ilp_graph_read_file(path, &g, &err), -1);
	ck_assert_ptr_null(g);
	ck_assert_ptr_nonnull(strstr(err.msg, path));
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
}
END_TEST

/* ---- classification ---------------------------------------------------------- */

START_TEST(test_classify)
{
	ilp_graph *g = t_graph_q(joint);

	ck_assert_int_eq(t_nd(g, "primals_1")->cls, ILPI_FORWARD);
	ck_assert_int_eq(t_nd(g, "primals_2")->cls, ILPI_FORWARD);
	ck_assert_int_eq(t_nd(g, "primals_3")->cls, ILPI_FORWARD); /* placeholder */
	ck_assert_int_eq(t_nd(g, "mm")->cls, ILPI_FORWARD);
	ck_assert_int_eq(t_nd(g, "relu")->cls, ILPI_FORWARD);
	ck_assert_int_eq(t_nd(g, "dead")->cls, ILPI_DEAD);
	ck_assert_int_eq(t_nd(g, "t")->cls, ILPI_UNCLAIMED);
	ck_assert_int_eq(t_nd(g, "tangents_1")->cls, ILPI_BACKWARD);
	ck_assert_int_eq(t_nd(g, "tb")->cls, ILPI_BACKWARD);
	ck_assert_int_eq(t_nd(g, "mm_1")->cls, ILPI_BACKWARD);
	/* A backward output op that needs no tangent is still backward (as in PyTorch). */
	ck_assert_int_eq(t_nd(g, "zeros")->cls, ILPI_BACKWARD);
	ck_assert_uint_eq(g->counts[ILPI_FORWARD], 5);
	ck_assert_uint_eq(g->counts[ILPI_BACKWARD], 4);
	ck_assert_uint_eq(g->counts[ILPI_UNCLAIMED], 1);
	ck_assert_uint_eq(g->counts[ILPI_DEAD], 1);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_boundary_flags)
{
	ilp_graph *g = t_graph_q(joint);
	static const struct {
		const char *name;
		unsigned flags;
	} want[] = {
		{ "primals_1", 0 },
		{ "primals_2", 0 },               /* used only through t and mm */
		{ "primals_3", ILPI_F_BOUNDARY | ILPI_F_BW_OUTPUT },
		{ "mm", 0 },
		{ "relu", ILPI_F_BOUNDARY | ILPI_F_FW_OUTPUT },
		{ "dead", 0 },
		{ "t", ILPI_F_BOUNDARY },         /* unclaimed, used by mm_1 */
		{ "tangents_1", 0 },
		{ "tb", 0 },
		{ "mm_1", ILPI_F_BW_OUTPUT },
		{ "zeros", ILPI_F_BW_OUTPUT },
	};
	const unsigned mask = ILPI_F_BOUNDARY | ILPI_F_FW_OUTPUT | ILPI_F_BW_OUTPUT;

	ck_assert_uint_eq(ilp_graph_node_count(g), sizeof want / sizeof want[0]);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_assert_msg((t_nd(g, want[i].name)->flags & mask) == want[i].flags,
		    "node %s: flags %#x, want %#x", want[i].name,
		    t_nd(g, want[i].name)->flags & mask, want[i].flags);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_classify_primal_used_by_backward)
{
	/* A primal the backward reads directly is on the boundary; a forward op feeding
	 * only a dead node is not. */
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'w', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['w'],"
	    " 'bytes': 4},"
	    "{'name': 'u', 'kind': 'op', 'target': 'aten.cos.default', 'inputs': ['y'],"
	    " 'bytes': 4},"
	    "{'name': 'g', 'kind': 'tangent', 'bytes': 4},"
	    "{'name': 'gw', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['g', 'w'],"
	    " 'bytes': 4}"
	    "], 'outputs': {'forward': ['y'], 'backward': ['gw']}}");

	ck_assert(t_nd(g, "w")->flags & ILPI_F_BOUNDARY);
	ck_assert(!(t_nd(g, "y")->flags & ILPI_F_BOUNDARY));
	ck_assert_int_eq(t_nd(g, "u")->cls, ILPI_DEAD);
	ck_assert_int_eq(t_nd(g, "y")->cls, ILPI_FORWARD);
	ck_assert_int_eq(t_nd(g, "gw")->cls, ILPI_BACKWARD);
	ck_assert_uint_eq(g->counts[ILPI_UNCLAIMED], 0);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_classify_dead_backward_op)
{
	/* issue 9's F2: an op reading a tangent that no output needs is dead, not
	 * backward, and so is the forward value only it reads. */
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'x', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['x'], 'bytes': 4},"
	    "{'name': 'u', 'kind': 'op', 'target': 'aten.neg.default', 'inputs': ['x'], 'bytes': 4},"
	    "{'name': 't', 'kind': 'tangent', 'bytes': 4},"
	    "{'name': 'dead_bw', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'u'],"
	    " 'bytes': 4},"
	    "{'name': 'gx', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'y'],"
	    " 'bytes': 4}"
	    "], 'outputs': {'forward': ['y'], 'backward': ['gx']}}");

	ck_assert_int_eq(t_nd(g, "dead_bw")->cls, ILPI_DEAD);
	ck_assert_int_eq(t_nd(g, "u")->cls, ILPI_DEAD);
	ck_assert(!(t_nd(g, "u")->flags & ILPI_F_BOUNDARY));
	ck_assert(t_nd(g, "y")->flags & ILPI_F_BOUNDARY);
	ck_assert_int_eq(t_nd(g, "t")->cls, ILPI_BACKWARD);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_classify_backward_output_closure)
{
	/* issue 9's F4: a, computed from primals, is a gradient: backward. b uses it, so
	 * b can only run after it, in the backward: backward too (not unclaimed), and w,
	 * which a reads, is the boundary. */
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'w', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'x', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['x'], 'bytes': 4},"
	    "{'name': 'a', 'kind': 'op', 'target': 'aten.neg.default', 'inputs': ['w'], 'bytes': 4},"
	    "{'name': 'b', 'kind': 'op', 'target': 'aten.add.Tensor', 'inputs': ['a', 'w'],"
	    " 'bytes': 4},"
	    "{'name': 't', 'kind': 'tangent', 'bytes': 4},"
	    "{'name': 'gx', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'b'],"
	    " 'bytes': 4}"
	    "], 'outputs': {'forward': ['y'], 'backward': ['a', 'gx']}}");

	ck_assert_int_eq(t_nd(g, "a")->cls, ILPI_BACKWARD);
	ck_assert_int_eq(t_nd(g, "b")->cls, ILPI_BACKWARD);
	ck_assert(t_nd(g, "w")->flags & ILPI_F_BOUNDARY);
	ck_assert(!(t_nd(g, "a")->flags & ILPI_F_BOUNDARY));
	ck_assert_uint_eq(g->counts[ILPI_UNCLAIMED], 0);
	ilp_graph_free(g);
}
END_TEST

static char *random_graph(uint32_t seed, int n);

/* The invariants the modules rely on (graph.h), on random graphs: inputs of a live
 * node are live; inputs of a forward or unclaimed node are forward or unclaimed. */
START_TEST(test_classify_invariants)
{
	char *json = random_graph(777u + (uint32_t)_i * 104729u, 200);
	ilp_graph *g = t_graph(json);

	for (size_t v = 0; v < g->n; v++) {
		const ilpi_node *n = &g->node[v];

		for (uint32_t k = 0; k < n->in_count; k++) {
			const ilpi_node *m = &g->node[ilpi_inputs(g, n)[k]];

			if (ilpi_live(n))
				ck_assert_msg(ilpi_live(m), "%s live, input %s dead", n->name, m->name);
			if (ilpi_decided(n))
				ck_assert_msg(ilpi_decided(m), "%s %s, input %s %s", n->name,
				    ilpi_class_name((ilpi_class)n->cls), m->name,
				    ilpi_class_name((ilpi_class)m->cls));
		}
	}
	ilp_graph_free(g);
	free(json);
}
END_TEST

START_TEST(test_classify_unclaimed_chain)
{
	/* Unclaimed: needed by an output, from primals only, not needed by the forward.
	 * A backward op downstream of a tangent makes everything after it backward. */
	ilp_graph *g = t_graph_q(HDR "'nodes': ["
	    "{'name': 'w', 'kind': 'primal', 'bytes': 4},"
	    "{'name': 'a', 'kind': 'op', 'target': 'aten.t.default', 'inputs': ['w'], 'bytes': 4},"
	    "{'name': 'b', 'kind': 'op', 'target': 'aten.neg.default', 'inputs': ['a'], 'bytes': 4},"
	    "{'name': 'f', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['w'], 'bytes': 4},"
	    "{'name': 'g', 'kind': 'tangent', 'bytes': 4},"
	    "{'name': 'c', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['g', 'b'],"
	    " 'bytes': 4},"
	    "{'name': 'd', 'kind': 'op', 'target': 'aten.add.Tensor', 'inputs': ['c', 'a'],"
	    " 'bytes': 4}"
	    "], 'outputs': {'forward': ['f'], 'backward': ['d']}}");

	ck_assert_int_eq(t_nd(g, "a")->cls, ILPI_UNCLAIMED);
	ck_assert_int_eq(t_nd(g, "b")->cls, ILPI_UNCLAIMED);
	ck_assert_int_eq(t_nd(g, "f")->cls, ILPI_FORWARD);
	ck_assert_int_eq(t_nd(g, "c")->cls, ILPI_BACKWARD);
	ck_assert_int_eq(t_nd(g, "d")->cls, ILPI_BACKWARD);
	ck_assert(t_nd(g, "a")->flags & ILPI_F_BOUNDARY); /* used by d */
	ck_assert(t_nd(g, "b")->flags & ILPI_F_BOUNDARY); /* used by c */
	ck_assert(!(t_nd(g, "w")->flags & ILPI_F_BOUNDARY));
	ck_assert(!(t_nd(g, "f")->flags & ILPI_F_BOUNDARY));
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_class_names)
{
	ck_assert_str_eq(ilpi_class_name(ILPI_DEAD), "dead");
	ck_assert_str_eq(ilpi_class_name(ILPI_FORWARD), "forward");
	ck_assert_str_eq(ilpi_class_name(ILPI_BACKWARD), "backward");
	ck_assert_str_eq(ilpi_class_name(ILPI_UNCLAIMED), "unclaimed");
	ck_assert_str_eq(ilpi_kind_name(ILPI_TANGENT), "tangent");
}
END_TEST

/* A random DAG in JSON: two primals, a tangent in the middle (so the forward output
 * n/2 cannot depend on it), op inputs drawn from earlier nodes, with repeats. */
static char *
random_graph(uint32_t seed, int n)
{
	size_t cap = (size_t)n * 200 + 256, len = 0;
	char *s = malloc(cap);
	int tangent = n / 2 + 1;
	t_rng r;

	t_rng_seed(&r, seed);
	ck_assert_ptr_nonnull(s);
	len += (size_t)snprintf(s + len, cap - len, "{\"format\": \"ilpart-joint-graph\", "
	    "\"version\": 1, \"nodes\": [");
	for (int i = 0; i < n; i++) {
		int nin = (int)(t_rand(&r) % 4) + 1;
		unsigned op = t_rand(&r) % 5, bytes = t_rand(&r) % 1000;

		if (i < 2 || i == tangent) {
			len += (size_t)snprintf(s + len, cap - len, "%s{\"name\": \"n%d\", \"kind\": "
			    "\"%s\", \"bytes\": %u}", i ? ", " : "", i,
			    i == tangent ? "tangent" : "primal", bytes);
			continue;
		}
		len += (size_t)snprintf(s + len, cap - len, ", {\"name\": \"n%d\", \"kind\": "
		    "\"op\", \"target\": \"aten.t%u.default\", \"bytes\": %u, \"inputs\": [", i,
		    op, bytes);
		for (int k = 0; k < nin; k++) {
			/* Prefer recent nodes, like real graphs, but reach back sometimes. */
			int v = t_rand(&r) % 3 ? i - 1 - (int)(t_rand(&r) % (unsigned)(i < 6 ? i : 6)) :
			    (int)(t_rand(&r) % (unsigned)i);

			len += (size_t)snprintf(s + len, cap - len, "%s\"n%d\"", k ? ", " : "", v);
		}
		len += (size_t)snprintf(s + len, cap - len, "]}");
	}
	/* n / 3 comes before the tangent: a gradient computed from primals alone. */
	snprintf(s + len, cap - len, "], \"outputs\": {\"forward\": [\"n%d\"], "
	    "\"backward\": [\"n%d\", null, \"n%d\", \"n%d\"]}}", n / 2, n - 1, n - 3,
	    n / 3);
	return s;
}

START_TEST(test_users_csr)
{
	char *json = random_graph(0x9e3779b9u + (uint32_t)_i, 400);
	ilp_graph *g = t_graph(json);
	size_t total = 0;

	for (size_t v = 0; v < g->n; v++) {
		const ilpi_node *n = &g->node[v];
		const int32_t *u = ilpi_users(g, n);
		size_t want = 0;

		/* Users: exactly the distinct nodes that list v as input, ascending. */
		for (size_t i = 0; i < g->n; i++) {
			const ilpi_node *m = &g->node[i];
			int uses = 0;

			for (uint32_t k = 0; k < m->in_count; k++)
				uses |= ilpi_inputs(g, m)[k] == (int32_t)v;
			if (uses) {
				ck_assert_uint_lt(want, n->use_count);
				ck_assert_int_eq(u[want], (int32_t)i);
				want++;
			}
		}
		ck_assert_uint_eq(want, n->use_count);
		total += want;
		/* Spans tile the use array in node order. */
		if (v > 0)
			ck_assert_uint_eq(n->use_begin, g->node[v - 1].use_begin +
			    g->node[v - 1].use_count);
	}
	ck_assert_uint_gt(total, 400);
	ilp_graph_free(g);
	free(json);
}
END_TEST

/* Classification by its definition, with explicit reachability per node: slow but
 * written independently of classify.c's sweeps. */
static int
reaches(const ilp_graph *g, size_t from, size_t to, uint8_t *seen)
{
	const ilpi_node *n = &g->node[to];

	if (from == to)
		return 1;
	if (seen[to])
		return 0;
	seen[to] = 1;
	for (uint32_t k = 0; k < n->in_count; k++)
		if (reaches(g, from, (size_t)ilpi_inputs(g, n)[k], seen))
			return 1;
	return 0;
}

static int
depends(const ilp_graph *g, size_t anc, size_t node)
{
	uint8_t *seen = calloc(g->n, 1);
	int r;

	ck_assert_ptr_nonnull(seen);
	r = reaches(g, anc, node, seen);
	free(seen);
	return r;
}

START_TEST(test_classify_random)
{
	char *json = random_graph(12345u + (uint32_t)_i * 7919u, 120);
	ilp_graph *g = t_graph(json);

	for (size_t v = 0; v < g->n; v++) {
		const ilpi_node *n = &g->node[v];
		int on_bw = 0, fw = 0, need = 0, want;

		for (size_t i = 0; i < g->n_fw_out; i++)
			fw |= depends(g, v, (size_t)g->fw_out[i]);
		for (size_t i = 0; i < g->n_bw_out; i++)
			if (g->bw_out[i] != ILPI_NONE)
				need |= depends(g, v, (size_t)g->bw_out[i]);
		/* Downstream of a tangent, or of a backward output the forward does not
		 * need (on_bw: such a node is an ancestor of v). */
		for (size_t t = 0; t < g->n; t++) {
			int fw_t = 0;

			for (size_t i = 0; i < g->n_fw_out; i++)
				fw_t |= depends(g, t, (size_t)g->fw_out[i]);
			if ((g->node[t].kind == ILPI_TANGENT || (g->node[t].kind == ILPI_OP &&
			    (g->node[t].flags & ILPI_F_BW_OUTPUT) && !fw_t)) && depends(g, t, v))
				on_bw = 1;
		}
		if (n->kind == ILPI_PRIMAL)
			want = ILPI_FORWARD;
		else if (n->kind == ILPI_TANGENT)
			want = ILPI_BACKWARD;
		else if (!fw && !need)
			want = ILPI_DEAD;
		else if (on_bw)
			want = ILPI_BACKWARD;
		else if (fw)
			want = ILPI_FORWARD;
		else
			want = ILPI_UNCLAIMED;
		ck_assert_msg(n->cls == want, "node %s: class %s, want %s", n->name,
		    ilpi_class_name((ilpi_class)n->cls), ilpi_class_name((ilpi_class)want));
	}
	ilp_graph_free(g);
	free(json);
}
END_TEST

/* ---- interning and lookup ---------------------------------------------------- */

START_TEST(test_intern)
{
	ilpi_pool p;
	const char *a, *b, *c, *ptrs[5000];
	char big[100000], key[32];

	ilpi_intern_init(&p);
	a = ilpi_intern(&p, "aten.mm.default");
	b = ilpi_intern_n(&p, "aten.mm.default and more", 15);
	c = ilpi_intern(&p, "aten.mm");
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_ne(a, c);
	ck_assert_str_eq(b, "aten.mm.default");
	ck_assert_str_eq(c, "aten.mm");
	ck_assert_ptr_eq(ilpi_intern_n(&p, "aten.mm.default", 7), c);
	ck_assert_str_eq(ilpi_intern(&p, ""), "");
	/* Many strings: the table grows, earlier pointers stay valid and unique. */
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "node_%d", i);
		ptrs[i] = ilpi_intern(&p, key);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "node_%d", i);
		ck_assert_ptr_eq(ilpi_intern(&p, key), ptrs[i]);
		ck_assert_str_eq(ptrs[i], key);
	}
	/* Longer than an arena chunk. */
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_ptr_eq(ilpi_intern(&p, big), ilpi_intern(&p, big));
	ck_assert_uint_eq(strlen(ilpi_intern(&p, big)), sizeof big - 1);
	ck_assert_ptr_eq(ilpi_intern(&p, "aten.mm.default"), a);
	ck_assert_uint_eq(p.count, 5000 + 4);
	ilpi_intern_free(&p);
	ilpi_intern_free(NULL);
}
END_TEST

START_TEST(test_graph_interns_names)
{
	ilp_graph *g = t_graph_q(joint);

	/* Equal strings share storage, so modules may compare targets by pointer. */
	ck_assert_ptr_eq(t_nd(g, "mm")->target, t_nd(g, "mm_1")->target);
	ck_assert_ptr_eq(t_nd(g, "mm")->dtype, t_nd(g, "relu")->dtype);
	ck_assert_ptr_ne(t_nd(g, "mm")->target, t_nd(g, "relu")->target);
	ck_assert_ptr_eq(ilpi_intern(&g->pool, "relu"), t_nd(g, "relu")->name);
	ilp_graph_free(g);
}
END_TEST

START_TEST(test_find)
{
	char *json = random_graph(77u, 5000);
	ilp_graph *g = t_graph(json);
	char key[32];

	ck_assert_uint_eq(ilp_graph_node_count(g), 5000);
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "n%d", i); /* a foreign, non-interned string */
		ck_assert_int_eq(ilp_graph_find(g, key), i);
		ck_assert_str_eq(ilp_graph_node_name(g, (size_t)i), key);
	}
	ck_assert_int_eq(ilp_graph_find(g, "n5000"), -1);
	ck_assert_int_eq(ilp_graph_find(g, ""), -1);
	ck_assert_int_eq(ilp_graph_find(g, "n"), -1);
	ck_assert_ptr_null(ilp_graph_node_name(g, 5000));
	ilp_graph_free(g);
	ilp_graph_free(NULL);
	free(json);
}
END_TEST

START_TEST(test_builder)
{
	ilp_graph *g = ilpi_graph_new("built");
	ilp_error err = { 0 };
	int32_t fw[1];
	int64_t shape[2] = { 3, 4 };
	long x, y;

	ck_assert_ptr_nonnull(g);
	x = ilpi_graph_add(g, "x", ILPI_PRIMAL, NULL, &err);
	y = ilpi_graph_add(g, "y", ILPI_OP, "aten.relu.default", &err);
	ck_assert_int_eq(x, 0);
	ck_assert_int_eq(y, 1);
	ck_assert_int_eq(ilpi_graph_add(g, "x", ILPI_OP, "aten.neg.default", &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "built: node 'x': field 'name': duplicate"));
	ck_assert_int_eq(ilpi_graph_add_input(g, y, (int32_t)x), 0);
	ck_assert_int_eq(ilpi_graph_set_shape(g, y, shape, 2), 0);
	fw[0] = (int32_t)y;
	ck_assert_int_eq(ilpi_graph_set_outputs(g, fw, 1, NULL, 0), 0);
	ck_assert_int_eq(ilpi_graph_finish(g, &err), 0);
	ck_assert_uint_eq(ilp_graph_node_count(g), 2);
	ck_assert_int_eq(g->node[1].cls, ILPI_FORWARD);
	ck_assert_int_eq(g->node[1].ndim, 2);
	ck_assert_uint_eq(g->node[0].use_count, 1);
	ilp_graph_free(g);
}
END_TEST

/* ---- writer -------------------------------------------------------------------- */

/* write(read(json)) must be a fixed point: read -> write -> read -> write is stable. */
static char *
round_trip(const char *json)
{
	ilp_graph *g = t_graph(json), *h;
	ilp_error err;
	char *a, *b;

	ck_assert_int_eq(ilp_graph_to_json(g, &a, &err), 0);
	h = t_graph(a);
	ck_assert_int_eq(ilp_graph_to_json(h, &b, &err), 0);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(g->n, h->n);
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *m = &g->node[i], *n = &h->node[i];

		ck_assert_str_eq(m->name, n->name);
		ck_assert_int_eq(m->kind, n->kind);
		ck_assert_int_eq(m->cls, n->cls);
		ck_assert_int_eq(m->flags, n->flags);
		ck_assert_int_eq(m->bytes, n->bytes);
		ck_assert_int_eq(m->tag, n->tag);
		ck_assert_int_eq(m->view_of, n->view_of);
		ck_assert_int_eq(m->storage, n->storage);
		ck_assert_int_eq(m->index, n->index);
		ck_assert_int_eq(m->ac_graph_id, n->ac_graph_id);
		ck_assert_int_eq(m->ndim, n->ndim);
		ck_assert_uint_eq(m->in_count, n->in_count);
		ck_assert(m->flops == n->flops && m->time_us == n->time_us);
		ck_assert(m->bytes_read == n->bytes_read && m->bytes_written == n->bytes_written);
		ck_assert_int_eq(memcmp(ilpi_inputs(g, m), ilpi_inputs(h, n),
		    m->in_count * sizeof(int32_t)), 0);
		if (m->ndim > 0)
			ck_assert_int_eq(memcmp(g->shape + m->shape_begin, h->shape + n->shape_begin,
			    (size_t)m->ndim * sizeof(int64_t)), 0);
	}
	ck_assert_uint_eq(g->n_ref, h->n_ref);
	ck_assert_uint_eq(g->n_bw_out, h->n_bw_out);
	ck_assert_int_eq(memcmp(g->bw_out, h->bw_out, g->n_bw_out * sizeof(int32_t)), 0);
	ilp_graph_free(g);
	ilp_graph_free(h);
	free(b);
	return a;
}

START_TEST(test_write_canonical)
{
	/* Key order of docs/format.md, whatever the input order; sizes as bytes. */
	char *out = round_trip(t_q("{'nodes': ["
	    "{'kind': 'primal', 'dtype': 'torch.float16', 'name': 'x', 'shape': [2, 2]},"
	    "{'collective': true, 'effectful': true, 'random': true, 'ac_graph_id': 1,"
	    " 'recompute': 'PREFER_RECOMPUTE', 'time_us': 1.5, 'bytes_written': 8,"
	    " 'bytes_read': 8, 'flops': 4, 'view_of': 'x', 'inputs': ['x', 'x'],"
	    " 'target': 'aten.view.default', 'kind': 'op', 'name': 'v', 'shape': [4],"
	    " 'dtype': 'f16', 'meta': {'dropped': 1}},"
	    "{'name': 'm', 'kind': 'op', 'target': 'aten.max.dim', 'inputs': ['v'], 'tuple': true,"
	    " 'workspace': 32},"
	    "{'name': 'i', 'kind': 'op', 'target': 'getitem', 'inputs': ['m'], 'index': 1,"
	    " 'bytes': 3}],"
	    " 'outputs': {'backward': [null], 'forward': ['v', 'i']},"
	    " 'reference': [{'recomputed': [], 'saved': ['v'], 'name': 'r'}],"
	    " 'version': 1, 'format': 'ilpart-joint-graph', 'meta': {'x': 1}}"));
	const char *want =
	    "{\n"
	    "  \"format\": \"ilpart-joint-graph\",\n"
	    "  \"version\": 1,\n"
	    "  \"rng_functionalized\": false,\n"
	    "  \"nodes\": [\n"
	    "    {\"name\": \"x\", \"kind\": \"primal\", \"shape\": [2, 2], \"dtype\": \"f16\","
	    " \"bytes\": 8},\n"
	    "    {\"name\": \"v\", \"kind\": \"op\", \"target\": \"aten.view.default\","
	    " \"inputs\": [\"x\", \"x\"], \"shape\": [4], \"dtype\": \"f16\", \"bytes\": 8,"
	    " \"view_of\": \"x\", \"flops\": 4, \"bytes_read\": 8, \"bytes_written\": 8,"
	    " \"time_us\": 1.5, \"recompute\": \"PREFER_RECOMPUTE\", \"ac_graph_id\": 1,"
	    " \"random\": true, \"effectful\": true, \"collective\": true},\n"
	    "    {\"name\": \"m\", \"kind\": \"op\", \"target\": \"aten.max.dim\","
	    " \"inputs\": [\"v\"], \"bytes\": 0, \"tuple\": true, \"workspace\": 32},\n"
	    "    {\"name\": \"i\", \"kind\": \"op\", \"target\": \"getitem\", \"inputs\": [\"m\"],"
	    " \"bytes\": 3, \"index\": 1}\n"
	    "  ],\n"
	    "  \"outputs\": {\"forward\": [\"v\", \"i\"], \"backward\": [null]},\n"
	    "  \"reference\": [\n"
	    "    {\"name\": \"r\", \"saved\": [\"v\"], \"recomputed\": []}\n"
	    "  ]\n"
	    "}\n";

	ck_assert_str_eq(out, want);
	free(out);
}
END_TEST

/* "param" (a parameter or buffer primal) is read as a flag, written after "mutated"
 * and read back; the reader refuses it on an op and as a non-boolean. */
START_TEST(test_write_param)
{
	static const char *bad[][2] = {
		{ "{'name': 'y', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['w'], "
		  "'bytes': 64, 'param': true}", "node 'y': field 'param': only a primal (a graph "
		  "input) can be a parameter or buffer" },
		{ "{'name': 'y', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['w'], "
		  "'bytes': 64}", NULL },
	};
	char *out = round_trip(t_q(HDR "'nodes': ["
	    "{'name': 'w', 'kind': 'primal', 'bytes': 64, 'param': true, 'mutated': true},"
	    "{'name': 'x', 'kind': 'primal', 'bytes': 64, 'param': false},"
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['w', 'x'],"
	    " 'bytes': 64}], 'outputs': {'forward': ['y'], 'backward': [null, null]}}"));
	ilp_graph *g;
	ilp_error err;
	char doc[1024];

	ck_assert_ptr_nonnull(strstr(out, "{\"name\": \"w\", \"kind\": \"primal\", "
	    "\"bytes\": 64, \"mutated\": true, \"param\": true}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"name\": \"x\", \"kind\": \"primal\", "
	    "\"bytes\": 64}"));
	g = t_graph(out);
	ck_assert_uint_eq(t_nd(g, "w")->flags & ILPI_F_PARAM, ILPI_F_PARAM);
	ck_assert_uint_eq(t_nd(g, "x")->flags & ILPI_F_PARAM, 0);
	ilp_graph_free(g);
	free(out);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		snprintf(doc, sizeof doc, "%s", t_q(HDR "'nodes': [{'name': 'w', 'kind': "
		    "'primal', 'bytes': 64, 'param': 1}, "));
		if (bad[k][1] != NULL)
			snprintf(doc, sizeof doc, "%s", t_q(HDR "'nodes': [{'name': 'w', 'kind': "
			    "'primal', 'bytes': 64}, "));
		snprintf(doc + strlen(doc), sizeof doc - strlen(doc), "%s",
		    t_q(bad[k][0]));
		snprintf(doc + strlen(doc), sizeof doc - strlen(doc), "%s",
		    t_q("], 'outputs': {'forward': ['y'], 'backward': [null]}}"));
		g = NULL;
		ck_assert_int_eq(ilp_graph_read_buffer(doc, strlen(doc), "p.json", &g, &err), -1);
		ck_assert_ptr_null(g);
		ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
		ck_assert_str_eq(err.msg, bad[k][1] != NULL ? "p.json: node 'y': field 'param': "
		    "only a primal (a graph input) can be a parameter or buffer" :
		    "p.json: node 'w': field 'param': expected true or false");
	}
}
END_TEST

START_TEST(test_write_round_trip)
{
	char *out = round_trip(t_q(joint));

	ck_assert_ptr_nonnull(strstr(out, "\"description\": \"mlp\""));
	ck_assert_ptr_nonnull(strstr(out, "\"backward\": [\"mm_1\", null, \"zeros\", "
	    "\"primals_3\"]"));
	free(out);
}
END_TEST

START_TEST(test_write_random)
{
	char *json = random_graph(4242u + (uint32_t)_i, 300);

	free(round_trip(json));
	free(json);
}
END_TEST

START_TEST(test_write_escapes_and_numbers)
{
	/* Names needing escapes, non-ASCII, and doubles that must survive exactly. */
	const char *json = "{\"format\": \"ilpart-joint-graph\", \"version\": 1,"
	    " \"description\": \"line1\\nline2 \\\"q\\\" \\\\ tab\\t \\u00e9\","
	    " \"rng_functionalized\": true, \"nodes\": ["
	    "{\"name\": \"a\\\"b\\\\c\", \"kind\": \"primal\", \"bytes\": 4611686018427386880},"
	    "{\"name\": \"\\u00fcber\", \"kind\": \"op\", \"target\": \"aten.x\\u0001\","
	    " \"inputs\": [\"a\\\"b\\\\c\"], \"bytes\": 1, \"flops\": 1.2345678901234567e-7,"
	    " \"time_us\": 0.1, \"bytes_read\": 3.5e18, \"bytes_written\": 123456789012.5}],"
	    " \"outputs\": {\"forward\": [\"\\u00fcber\"], \"backward\": []}}";
	char *out = round_trip(json);
	ilp_graph *g = t_graph(out);
	const ilpi_node *u = &g->node[1];

	ck_assert_str_eq(g->description, "line1\nline2 \"q\" \\ tab\t \xc3\xa9");
	ck_assert_int_eq(g->rng_functionalized, 1);
	ck_assert_str_eq(g->node[0].name, "a\"b\\c");
	/* 1 KiB below 2^62 (exact as a double): the graph's bytes together stay below it */
	ck_assert_int_eq(g->node[0].bytes, ((int64_t)1 << 62) - 1024);
	ck_assert_str_eq(u->name, "\xc3\xbc" "ber");
	ck_assert_str_eq(u->target, "aten.x\x01");
	ck_assert(u->flops == 1.2345678901234567e-7);
	ck_assert(u->time_us == 0.1);
	ck_assert(u->bytes_read == 3.5e18);
	ck_assert(u->bytes_written == 123456789012.5);
	ck_assert_ptr_null(strstr(out, "\n\n"));
	ilp_graph_free(g);
	free(out);
}
END_TEST

START_TEST(test_write_empty)
{
	char *out = round_trip(t_q(HDR "'nodes': [], 'outputs': {'forward': [], 'backward': []}}"));

	ck_assert_ptr_nonnull(strstr(out, "\"nodes\": [],"));
	free(out);
}
END_TEST

/* ---- rejected inputs ------------------------------------------------------------ */

#define NODE_X "{'name': 'x', 'kind': 'primal', 'bytes': 4}"
#define OUTS "'outputs': {'forward': ['x'], 'backward': []}"

static const struct {
	const char *json, *want;
} bad_cases[] = {
	{ "{'format': 'ilpart-joint-graph', 'version': 1,", ": invalid JSON: unexpected end" },
	{ "", "t.json: invalid JSON: empty file" },
	{ "[1]", "t.json: graph: field '(top level)': expected a JSON object" },
	{ "{'version': 1}", "t.json: graph: field 'format': missing" },
	{ "{'format': 'ilpart-joint-graph'}", "t.json: graph: field 'version': missing" },
	{ "{'format': 'ilpart-joint-graph', 'version': 1.5}", "field 'version': unsupported" },
	{ HDR OUTS "}", "t.json: graph: field 'nodes': missing" },
	{ HDR "'nodes': [" NODE_X "]}", "t.json: graph: field 'outputs': missing" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'x', 'kind': 'primal', 'bytes': 4}], " OUTS "}",
	  "t.json: node 'x': field 'name': duplicate name (nodes #0 and #1)" },
	{ HDR "'nodes': [" NODE_X ", {'kind': 'primal', 'bytes': 4}], " OUTS "}",
	  "t.json: node #1: field 'name': missing" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'Primal', 'bytes': 4}], " OUTS "}",
	  "node 'x': field 'kind': unknown kind 'Primal'" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'inputs': [], 'bytes': 4}], "
	  OUTS "}", "node 'y': field 'target': missing" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'bytes': 4}], "
	  OUTS "}", "node 'y': field 'inputs': missing" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['z'],"
	  " 'bytes': 4}], " OUTS "}", "node 'y': field 'inputs': no node named 'z'" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['z'],"
	  " 'bytes': 4}, {'name': 'z', 'kind': 'op', 'target': 'f', 'inputs': ['y'],"
	  " 'bytes': 4}], " OUTS "}", "node 'y': field 'inputs': cycle: 'y' -> 'z' -> 'y'" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['z'],"
	  " 'bytes': 4}, {'name': 'z', 'kind': 'op', 'target': 'f', 'inputs': ['x'],"
	  " 'bytes': 4}], " OUTS "}", "node 'y': field 'inputs': 'z' is defined later" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': -1}], " OUTS "}",
	  "node 'x': field 'bytes': must not be negative" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'workspace': 8}], " OUTS "}",
	  "node 'x': field 'workspace': only op nodes run (and allocate workspace)" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['x'],"
	  " 'bytes': 4, 'workspace': -8}], " OUTS "}",
	  "node 'y': field 'workspace': must not be negative" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['x'],"
	  " 'bytes': 4, 'workspace': 2.5}], " OUTS "}",
	  "node 'y': field 'workspace': expected an integer" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 2.5}], " OUTS "}",
	  "node 'x': field 'bytes': expected an integer" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 1e999}], " OUTS "}",
	  "node 'x': field 'bytes': not a finite number" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4611686018427387905000}], "
	  OUTS "}", "node 'x': field 'bytes': too large" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'shape': [4294967296, 4294967296],"
	  " 'dtype': 'f32'}], " OUTS "}", "node 'x': field 'shape': element count overflows" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'shape': [2147483648, 2147483648],"
	  " 'dtype': 'f32'}], " OUTS "}", "node 'x': field 'shape': size in bytes overflows" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'shape': [4], 'dtype': 'float128'}], "
	  OUTS "}", "node 'x': field 'dtype': unknown dtype 'float128'" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'shape': [4]}], " OUTS "}",
	  "node 'x': field 'dtype': missing" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal'}], " OUTS "}",
	  "node 'x': field 'bytes': missing" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'recompute': 'SAVE'}], "
	  OUTS "}", "node 'x': field 'recompute': unknown tag 'SAVE'" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'ac_graph_id': 0.5}], "
	  OUTS "}", "node 'x': field 'ac_graph_id': expected an integer" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'flop': 1}], " OUTS "}",
	  "node 'x': field 'flop': unknown field" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'flops': '1'}], " OUTS "}",
	  "node 'x': field 'flops': expected a number" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'bytes': 8}], " OUTS "}",
	  "node 'x': field 'bytes': repeated field" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'tuple': 'yes'}], " OUTS "}",
	  "node 'x': field 'tuple': expected true or false" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'g', 'kind': 'op', 'target': 'getitem',"
	  " 'inputs': ['x'], 'bytes': 4}], " OUTS "}",
	  "node 'g': field 'index': missing (getitem needs the tuple index)" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'g', 'kind': 'op', 'target': 'getitem',"
	  " 'inputs': ['x'], 'index': 0, 'bytes': 4}], " OUTS "}",
	  "node 'g': field 'inputs': getitem takes exactly one tuple-valued input" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'v', 'kind': 'op', 'target': 'f', 'inputs': [],"
	  " 'bytes': 4, 'view_of': 'w'}], " OUTS "}", "node 'v': field 'view_of': no node named 'w'" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'v', 'kind': 'op', 'target': 'f', 'inputs': [],"
	  " 'bytes': 4, 'view_of': 'w'}, {'name': 'w', 'kind': 'primal', 'bytes': 4}], " OUTS "}",
	  "node 'v': field 'view_of': base 'w' must be an earlier node" },
	{ HDR "'nodes': [" NODE_X ", {'name': 't', 'kind': 'tangent', 'bytes': 4},"
	  " {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['x', 't'], 'bytes': 4}],"
	  " 'outputs': {'forward': ['y'], 'backward': []}}",
	  "node 'y': field 'outputs.forward': a forward output depends on a tangent" },
	{ HDR "'nodes': [" NODE_X "], 'outputs': {'forward': ['y'], 'backward': []}}",
	  "graph: field 'outputs.forward': no node named 'y'" },
	{ HDR "'nodes': [" NODE_X "], 'outputs': {'forward': ['x'], 'backward': [3]}}",
	  "graph: field 'outputs.backward': expected a node name" },
	{ HDR "'nodes': [" NODE_X "], " OUTS ", 'reference': [{'name': 'p', 'saved': ['q']}]}",
	  "t.json: reference 'p': field 'saved': no node named 'q'" },
	{ HDR "'nodes': [" NODE_X "], " OUTS ", 'nodes': []}", "graph: field 'nodes': repeated" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'memory_budget': 1.5}], "
	  OUTS "}", "node 'x': field 'memory_budget': expected a fraction from 0 to 1" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'memory_budget': '0.5'}], "
	  OUTS "}", "node 'x': field 'memory_budget': expected a fraction from 0 to 1" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['x'],"
	  " 'bytes': 4, 'nested_inputs': [1]}], " OUTS "}", "node 'y': field 'nested_inputs': "
	  "expected positions into the node's inputs (0 to their count - 1)" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['x',"
	  " 'x'], 'bytes': 4, 'nested_inputs': [1, 1]}], " OUTS "}", "node 'y': field "
	  "'nested_inputs': positions must be in ascending order, each once" },
	{ HDR "'nodes': [" NODE_X ", {'name': 'y', 'kind': 'op', 'target': 'f', 'inputs': ['x'],"
	  " 'bytes': 4, 'nested_inputs': 0}], " OUTS "}",
	  "node 'y': field 'nested_inputs': expected an array of positions" },
	{ HDR "'nodes': [{'name': 'x', 'kind': 'primal', 'bytes': 4, 'nested_inputs': [0]}], "
	  OUTS "}", "node 'x': field 'nested_inputs': only op nodes have inputs" },
};

START_TEST(test_bad)
{
	ilp_error err;
	const char *msg = bad(bad_cases[_i].json, &err);

	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_msg(strstr(msg, bad_cases[_i].want) != NULL, "case %d: got '%s', want '%s'",
	    _i, msg, bad_cases[_i].want);
	ck_assert_msg(strncmp(msg, "t.json", 6) == 0, "message does not name the file: %s", msg);
}
END_TEST

START_TEST(test_bad_null_err)
{
	const char *j = t_q(HDR "'nodes': []}");
	ilp_graph *g = NULL;

	ck_assert_int_eq(ilp_graph_read_buffer(j, strlen(j), "t.json", &g, NULL), -1);
	ck_assert_ptr_null(g);
	ck_assert_int_eq(ilp_graph_read_buffer("{", 1, "t.json", &g, NULL), -1);
}
END_TEST

START_TEST(test_bad_long_name)
{
	/* A very long name is cut, not overflowed, and the message stays one line. */
	static char json[9000];
	char name[4000];
	ilp_error err;

	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	snprintf(json, sizeof json, HDR "'nodes': [{'name': '%s', 'kind': 'primal'}], " OUTS "}",
	    name);
	bad(json, &err);
	ck_assert_uint_lt(strlen(err.msg), sizeof err.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "t.json: node 'nnnn"));
}
END_TEST

/* ---- growable arrays, version, error records ---------------------------------- */

START_TEST(test_grow)
{
	int32_t *a = NULL;
	size_t cap = 0, out, max16 = SIZE_MAX / 16;

	for (size_t i = 0; i < 1000; i++) {
		ck_assert_int_eq(ILPI_GROW(a, cap, i, 1), 0);
		a[i] = (int32_t)i;
	}
	ck_assert_uint_ge(cap, 1000);
	ck_assert_uint_lt(cap, 2048);
	for (size_t i = 0; i < 1000; i++)
		ck_assert_int_eq(a[i], (int32_t)i);
	/* enough room already: nothing changes */
	out = cap;
	ck_assert_int_eq(ILPI_GROW(a, cap, 10, 5), 0);
	ck_assert_uint_eq(cap, out);
	free(a);
	/* used + more, or its size in bytes, past SIZE_MAX */
	ck_assert_int_eq(ilpi_grow_cap(0, SIZE_MAX, 1, 1, &out), -1);
	ck_assert_int_eq(ilpi_grow_cap(0, SIZE_MAX - 1, 1, 1, &out), 0);
	ck_assert_uint_eq(out, SIZE_MAX);
	ck_assert_int_eq(ilpi_grow_cap(0, max16, 1, 16, &out), -1);
	ck_assert_int_eq(ilpi_grow_cap(64, 64, SIZE_MAX - 10, 1, &out), -1);
	/* doubling stops at the largest size that fits instead of wrapping around */
	ck_assert_int_eq(ilpi_grow_cap(max16 / 2 + 1, max16 / 2 + 1, 1, 16, &out), 0);
	ck_assert_uint_eq(out, max16);
	/* a failed grow leaves the array and its capacity alone */
	a = malloc(4 * sizeof *a);
	ck_assert_ptr_nonnull(a);
	cap = 4;
	a[3] = 7;
	ck_assert_int_eq(ILPI_GROW(a, cap, 4, SIZE_MAX / 2), -1);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(a[3], 7);
	free(a);
}
END_TEST

START_TEST(test_version)
{
	char buf[64];

	ck_assert_str_eq(ilp_version(), ILPART_VERSION_STRING);
	ck_assert_str_eq(ILPART_VERSION_STRING, PACKAGE_VERSION);
	snprintf(buf, sizeof buf, "%d.%d.%d", ILPART_VERSION_MAJOR, ILPART_VERSION_MINOR,
	    ILPART_VERSION_PATCH);
	ck_assert_str_eq(buf, ILPART_VERSION_STRING);
	ck_assert_int_eq(ILPART_VERSION_NUMBER, ILPART_VERSION_MAJOR * 10000 +
	    ILPART_VERSION_MINOR * 100 + ILPART_VERSION_PATCH);
}
END_TEST

/* Every public function that takes an error record clears a stale one on success. */
static ilp_error *
stale(ilp_error *err)
{
	err->kind = ILP_ERR_SYSTEM;
	snprintf(err->msg, sizeof err->msg, "stale");
	return err;
}

static void
assert_clear(const ilp_error *err, const char *what)
{
	ck_assert_msg(err->kind == ILP_ERR_NONE && err->msg[0] == '\0',
	    "%s left a stale error: %d %s", what, (int)err->kind, err->msg);
}

#define CLEARS(call) do { \
	stale(&err); \
	ck_assert_msg((call) == 0, "%s: %s", #call, err.msg); \
	assert_clear(&err, #call); \
} while (0)

START_TEST(test_err_cleared)
{
	const char *pol_json = "{\"format\": \"ilpart-policy\", \"version\": 1, "
	    "\"regions\": \"all\", \"save\": [\"aten.mm\"]}";
	char dir[] = "/tmp/ilpart-test-XXXXXX", path[64], *json = NULL;
	ilp_graph *g = NULL, *g2 = NULL;
	ilp_partition *p = NULL, *q = NULL, *r = NULL;
	ilp_policy *pol = NULL, *pol2 = NULL;
	ilp_peak pk;
	ilp_prefer_mode pm;
	ilp_bans bm;
	ilp_error err;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.json", dir);
	CLEARS(ilp_graph_read_file(t_srcpath("examples/seed_float8_sac.json"), &g, &err));
	CLEARS(ilp_graph_to_json(g, &json, &err));
	CLEARS(ilp_graph_read_buffer(json, strlen(json), "b", &g2, &err));
	CLEARS(ilp_write_file_atomic(path, json, strlen(json), &err));
	free(json);
	CLEARS(ilp_prefer_parse("soft", &pm, &err));
	CLEARS(ilp_bans_parse("none", &bm, &err));
	CLEARS(ilp_policy_read_buffer(pol_json, strlen(pol_json), "p", &pol, &err));
	CLEARS(ilp_write_file_atomic(path, pol_json, strlen(pol_json), &err));
	CLEARS(ilp_policy_read_file(path, &pol2, &err));
	CLEARS(ilp_policy_apply(pol, g, &err));
	CLEARS(ilp_rules_check(g, ILP_PREFER_HARD, ILP_BANS_PYTORCH, &err));
	CLEARS(ilp_solve(g, NULL, &p, &err));
	ilp_partition_free(p);
	CLEARS(ilp_mincut(g, NULL, &p, &err));
	CLEARS(ilp_partition_evaluate(g, p, NULL, &err));
	CLEARS(ilp_check(g, p, NULL, &err));
	CLEARS(ilp_partition_to_json(g, p, &json, &err));
	CLEARS(ilp_partition_read_buffer(g, json, strlen(json), "p", &q, &err));
	ilp_partition_free(q);
	CLEARS(ilp_write_file_atomic(path, json, strlen(json), &err));
	free(json);
	CLEARS(ilp_partition_read_file(g, path, &q, &err));
	CLEARS(ilp_split_render(g, q, ILP_SPLIT_TEXT, &json, &err));
	free(json);
	CLEARS(ilp_partition_peak(g, q, &pk, &err));
	ilp_partition_free(r);
	CLEARS(ilp_partition_remap(g, q, g2, &r, &err));
	unlink(path);
	rmdir(dir);
	ilp_partition_free(p);
	ilp_partition_free(q);
	ilp_partition_free(r);
	ilp_policy_free(pol);
	ilp_policy_free(pol2);
	ilp_graph_free(g);
	ilp_graph_free(g2);
}
END_TEST

/* ilpi_view_readers: the readers of a storage through views and through the getitems
 * of a tuple of views (split names its input as the getitems' base); follow declines a
 * view, visit stops the walk. */
typedef struct readers_seen {
	const ilp_graph *g;
	uint8_t seen[16];
	size_t n;
	int32_t stop_at, decline;
} readers_seen;

static int
seen_reader(int32_t u, void *ctx)
{
	readers_seen *rs = ctx;

	rs->seen[u] = 1;
	rs->n++;
	return u == rs->stop_at ? 7 : 0;
}

static int
follow_view(int32_t w, void *ctx)
{
	const readers_seen *rs = ctx;

	return w != rs->decline;
}

START_TEST(test_view_readers)
{
	ilp_graph *g = t_graph_parts("", P("x", 8) ", "
	    OP("a", "aten.f.default", "'x'", 64, "") ", "
	    OP("v", "aten.f.default", "'a'", 64, ", 'view_of': 'a'") ", "
	    "{'name': 't', 'kind': 'op', 'target': 'aten.split.default', 'inputs': ['v'], "
	    "'tuple': true}, "
	    "{'name': 't0', 'kind': 'op', 'target': 'getitem', 'inputs': ['t'], 'index': 0, "
	    "'view_of': 'v', 'bytes': 32}, "
	    "{'name': 't1', 'kind': 'op', 'target': 'getitem', 'inputs': ['t'], 'index': 1, "
	    "'view_of': 'v', 'bytes': 32}, "
	    OP("out", "aten.f.default", "'a'", 2, "") ", " T("g", 2) ", "
	    OP("gx", "aten.f.default", "'g', 't1'", 8, "") ", "
	    OP("gy", "aten.f.default", "'gx', 't0'", 8, ""), "'out'", "'gy'");
	int32_t stack[16];
	readers_seen rs;
	int32_t gx = (int32_t)t_node(g, "gx"), gy = (int32_t)t_node(g, "gy");

	ck_assert_int_le(g->n, 16);
	memset(&rs, 0, sizeof rs);
	rs.g = g;
	rs.stop_at = rs.decline = -1;
	ck_assert_int_eq(ilpi_view_readers(g, (int32_t)t_node(g, "a"), stack, 16, follow_view,
	    seen_reader, &rs), 0);
	/* users of a (v, out), of v (t), of t0 (gy) and t1 (gx); t's getitems are walked
	 * as views of v, never visited as v's users */
	ck_assert(rs.seen[t_node(g, "v")] && rs.seen[t_node(g, "out")] && rs.seen[t_node(g, "t")]);
	ck_assert(rs.seen[gx] && rs.seen[gy]);
	ck_assert(!rs.seen[t_node(g, "t0")] && !rs.seen[t_node(g, "t1")]);
	ck_assert_int_eq(rs.n, 5);
	/* a declined getitem: its reader is not met */
	memset(rs.seen, 0, sizeof rs.seen);
	rs.n = 0;
	rs.decline = (int32_t)t_node(g, "t1");
	ck_assert_int_eq(ilpi_view_readers(g, (int32_t)t_node(g, "a"), stack, 16, follow_view,
	    seen_reader, &rs), 0);
	ck_assert(!rs.seen[gx] && rs.seen[gy]);
	/* a declined view: nothing behind it */
	memset(rs.seen, 0, sizeof rs.seen);
	rs.decline = (int32_t)t_node(g, "v");
	ck_assert_int_eq(ilpi_view_readers(g, (int32_t)t_node(g, "a"), stack, 16, follow_view,
	    seen_reader, &rs), 0);
	ck_assert(rs.seen[t_node(g, "v")] && !rs.seen[t_node(g, "t")] && !rs.seen[gx]);
	/* a stack of one entry: the walk goes on one view at a time, the second getitem
	 * does not fit beside the first */
	memset(rs.seen, 0, sizeof rs.seen);
	rs.decline = -1;
	ck_assert_int_eq(ilpi_view_readers(g, (int32_t)t_node(g, "a"), stack, 1, NULL,
	    seen_reader, &rs), 0);
	ck_assert(rs.seen[t_node(g, "out")] && rs.seen[t_node(g, "t")] && rs.seen[gy] &&
	    !rs.seen[gx]);
	/* visit's nonzero return stops the walk with it */
	rs.stop_at = gx;
	ck_assert_int_eq(ilpi_view_readers(g, (int32_t)t_node(g, "a"), stack, 16, NULL,
	    seen_reader, &rs), 7);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_graph(void)
{
	Suite *s = suite_create("graph");
	TCase *tc;
	const int ndtypes = (int)(sizeof dtype_cases / sizeof dtype_cases[0]);
	const int nbad = (int)(sizeof bad_cases / sizeof bad_cases[0]);

	tc = tcase_create("reader");
	tcase_add_test(tc, test_every_field);
	tcase_add_test(tc, test_defaults);
	tcase_add_loop_test(tc, test_dtype_size, 0, ndtypes);
	tcase_add_test(tc, test_shapes);
	tcase_add_test(tc, test_views);
	tcase_add_test(tc, test_tuple_getitem);
	tcase_add_test(tc, test_reference);
	tcase_add_test(tc, test_duplicate_inputs);
	tcase_add_test(tc, test_buffer_not_terminated);
	tcase_add_test(tc, test_read_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("classify");
	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_boundary_flags);
	tcase_add_test(tc, test_classify_primal_used_by_backward);
	tcase_add_test(tc, test_classify_unclaimed_chain);
	tcase_add_test(tc, test_classify_dead_backward_op);
	tcase_add_test(tc, test_classify_backward_output_closure);
	tcase_add_loop_test(tc, test_classify_invariants, 0, 20);
	tcase_add_test(tc, test_class_names);
	tcase_add_loop_test(tc, test_users_csr, 0, 3);
	tcase_add_test(tc, test_view_readers);
	tcase_add_loop_test(tc, test_classify_random, 0, 8);
	suite_add_tcase(s, tc);

	tc = tcase_create("intern");
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_graph_interns_names);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_builder);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_test(tc, test_grow);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_err_cleared);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer");
	tcase_add_test(tc, test_write_canonical);
	tcase_add_test(tc, test_write_round_trip);
	tcase_add_test(tc, test_write_param);
	tcase_add_loop_test(tc, test_write_random, 0, 4);
	tcase_add_test(tc, test_write_escapes_and_numbers);
	tcase_add_test(tc, test_write_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_bad, 0, nbad);
	tcase_add_test(tc, test_bad_null_err);
	tcase_add_test(tc, test_bad_long_name);
	tcase_add_test(tc, test_unterminated_buffers);
	tcase_add_test(tc, test_json_fast_path);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tc, 30);
	return s;
}
