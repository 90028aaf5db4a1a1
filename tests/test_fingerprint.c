/* test_fingerprint.c - SHA-256, graph fingerprints, canonical order and remapping. */
#include "config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "graph/sha256.h"
#include "tests/suites.h"
#include "tests/util.h"

static const char *const corpus[] = {
	"mlp", "mlp-dropout", "convnet", "transformer-2l", "dropout-sac", "float8-sac",
	"checkpoint-2l", "sac-policies-2l", "mixed-regions", "resnet-small", "gpt-4l",
	"llama-2l-sac-mm",
};

/* ---- SHA-256 against FIPS 180-4's examples ---------------------------------------- */

/* The SHA extensions' compression equals the portable one on random blocks and states
 * (where the CPU has them; elsewhere both calls are the portable code). */
START_TEST(sha256_accelerated_same)
{
	uint8_t blk[64 * 9];
	t_rng rng;

	t_rng_seed(&rng, 5);
	fprintf(stderr, "sha256: SHA extensions %s\n", ilpi_sha256_accelerated() ? "used" :
	    "not available");
	for (int round = 0; round < 2000; round++) {
		uint32_t h1[8], h2[8];
		size_t nblk = 1 + t_below(&rng, 9);

		for (int i = 0; i < 8; i++)
			h1[i] = h2[i] = (uint32_t)t_rand(&rng) << 1 ^ t_rand(&rng);
		for (size_t i = 0; i < 64 * nblk; i++)
			blk[i] = (uint8_t)t_rand(&rng);
		ilpi_sha256_blocks(h1, blk, nblk, 0);
		ilpi_sha256_blocks(h2, blk, nblk, 1);
		ck_assert_mem_eq(h1, h2, sizeof h1);
	}
}
END_TEST

START_TEST(sha256_vectors)
{
	static const struct {
		const char *msg, *hex;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char out[65];
	ilpi_sha256 s;
	char *a = malloc(1000000);

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		ilpi_sha256_buf(v[i].msg, strlen(v[i].msg), out);
		ck_assert_str_eq(out, v[i].hex);
	}
	/* a million 'a', absorbed in uneven pieces */
	ck_assert_ptr_nonnull(a);
	memset(a, 'a', 1000000);
	ilpi_sha256_init(&s);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 997 + 1)
		ilpi_sha256_update(&s, a + off, off + step > 1000000 ? 1000000 - off : step);
	ilpi_sha256_hex(&s, out);
	ck_assert_str_eq(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}
END_TEST

/* ---- renaming and reordering a graph file ------------------------------------------ */

typedef struct shuffled {
	char *json;        /* the rewritten graph */
	char **old_name;   /* old_name[k], new_name[k]: the renaming */
	char **new_name;
	size_t n;
} shuffled;

static void
shuffled_free(shuffled *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->old_name[i]);
		free(s->new_name[i]);
	}
	free(s->old_name);
	free(s->new_name);
	free(s->json);
}

static long
index_of(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (long)i;
	return -1;
}

static const char *
renamed(const shuffled *s, const char *old)
{
	long i = index_of(s->old_name, s->n, old);

	ck_assert_msg(i >= 0, "no node %s", old);
	return s->new_name[i];
}

static void
rename_list(const shuffled *s, cJSON *list)
{
	cJSON *e;

	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e))
			cJSON_SetValuestring(e, renamed(s, e->valuestring));
}

/* The graph file at `path` with every node renamed and the nodes in another random
 * topological order; drops "reference", "meta" and "description", which the
 * fingerprint ignores. */
static void
shuffle_graph(const char *path, unsigned long seed, shuffled *s)
{
	char *buf = NULL;
	size_t len = 0, n, placed = 0;
	ilp_error err = { 0 };
	cJSON *root, *nodes, *out, *node, **item;
	size_t *pending, *ready, nready = 0;
	t_rng rng;

	t_rng_seed(&rng, seed);
	ck_assert_msg(ilpi_read_file(path, &buf, &len, &err) == 0, "%s", err.msg);
	root = cJSON_Parse(buf);
	free(buf);
	ck_assert_ptr_nonnull(root);
	nodes = cJSON_GetObjectItem(root, "nodes");
	n = (size_t)cJSON_GetArraySize(nodes);
	s->n = n;
	s->old_name = calloc(n, sizeof *s->old_name);
	s->new_name = calloc(n, sizeof *s->new_name);
	item = calloc(n, sizeof *item);
	pending = calloc(n, sizeof *pending);
	ready = calloc(n, sizeof *ready);
	n = 0;
	cJSON_ArrayForEach(node, nodes) {
		item[n] = node;
		s->old_name[n++] = strdup(cJSON_GetObjectItem(node, "name")->valuestring);
	}
	/* pending[i]: inputs and view base of node i not yet placed (repeats count) */
	for (size_t i = 0; i < n; i++) {
		cJSON *in = cJSON_GetObjectItem(item[i], "inputs"), *e;

		cJSON_ArrayForEach(e, in)
			pending[i]++;
		if (cJSON_GetObjectItem(item[i], "view_of") != NULL)
			pending[i]++;
		if (pending[i] == 0)
			ready[nready++] = i;
	}
	out = cJSON_CreateArray();
	while (nready > 0) {
		size_t pick = t_below(&rng, (uint32_t)nready), i = ready[pick];
		char name[64];

		ready[pick] = ready[--nready];
		snprintf(name, sizeof name, "v%lu_%zu", seed, placed++);
		s->new_name[i] = strdup(name);
		cJSON_AddItemToArray(out, cJSON_Duplicate(item[i], 1));
		for (size_t u = 0; u < n; u++) {
			cJSON *in = cJSON_GetObjectItem(item[u], "inputs"), *e, *v;

			if (pending[u] == 0)
				continue;
			cJSON_ArrayForEach(e, in)
				if (strcmp(e->valuestring, s->old_name[i]) == 0)
					pending[u]--;
			v = cJSON_GetObjectItem(item[u], "view_of");
			if (v != NULL && strcmp(v->valuestring, s->old_name[i]) == 0)
				pending[u]--;
			if (pending[u] == 0)
				ready[nready++] = u;
		}
	}
	ck_assert_uint_eq(placed, n);
	cJSON_ArrayForEach(node, out) {
		cJSON *v = cJSON_GetObjectItem(node, "view_of");

		cJSON_SetValuestring(cJSON_GetObjectItem(node, "name"),
		    renamed(s, cJSON_GetObjectItem(node, "name")->valuestring));
		rename_list(s, cJSON_GetObjectItem(node, "inputs"));
		if (v != NULL)
			cJSON_SetValuestring(v, renamed(s, v->valuestring));
	}
	cJSON_ReplaceItemInObject(root, "nodes", out);
	rename_list(s, cJSON_GetObjectItem(cJSON_GetObjectItem(root, "outputs"), "forward"));
	rename_list(s, cJSON_GetObjectItem(cJSON_GetObjectItem(root, "outputs"), "backward"));
	cJSON_DeleteItemFromObject(root, "reference");
	cJSON_DeleteItemFromObject(root, "meta");
	cJSON_DeleteItemFromObject(root, "description");
	s->json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	free(item);
	free(pending);
	free(ready);
}

static ilp_graph *
read_corpus(const char *name, char *path, size_t size)
{
	char rel[128];

	snprintf(rel, sizeof rel, "tests/data/corpus/%s.json", name);
	snprintf(path, size, "%s", t_srcpath(rel));
	return t_graph_file(path);
}

/* Renaming every node and reordering the file keeps the fingerprint, and a partition
 * carried across lands on the renamed nodes and passes the checker there. */
START_TEST(fingerprint_ignores_names_and_order)
{
	char path[4096];
	ilp_graph *g = read_corpus(corpus[_i], path, sizeof path);
	ilp_error err = { 0 };
	ilp_partition *p = NULL, *q = NULL;

	ck_assert_uint_eq(strlen(ilp_graph_fingerprint(g)), 64);
	ck_assert_msg(ilp_mincut(g, NULL, &p, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(ilp_partition_fingerprint(p), ilp_graph_fingerprint(g));
	for (unsigned long seed = 1; seed <= 3; seed++) {
		shuffled s = { 0 };
		ilp_graph *h;

		shuffle_graph(path, seed, &s);
		h = t_graph(s.json);
		ck_assert_str_eq(ilp_graph_fingerprint(h), ilp_graph_fingerprint(g));
		ck_assert_msg(ilp_partition_remap(g, p, h, &q, &err) == 0, "%s", err.msg);
		for (size_t i = 0; i < g->n; i++) {
			size_t j = t_node(h, renamed(&s, g->node[i].name));

			ck_assert_int_eq(ilp_partition_is_saved(q, j),
			    ilp_partition_is_saved(p, i));
			ck_assert_int_eq(ilp_partition_is_recomputed(q, j),
			    ilp_partition_is_recomputed(p, i));
		}
		ck_assert_msg(ilp_check(h, q, NULL, &err) == 0, "%s", err.msg);
		ilp_partition_free(q);
		ilp_graph_free(h);
		shuffled_free(&s);
	}
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* ---- every kind of change changes it -------------------------------------------------- */

#define NODES(a_extra, b_in, sh) NODES_ALL("aten.mm.default", a_extra, b_in, sh, "f32")
#define NODES_ALL(a_op, a_extra, b_in, sh, bdt) \
	"{'name': 'x', 'kind': 'primal', 'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'w', 'kind': 'primal', 'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'a', 'kind': 'op', 'target': '" a_op "', 'inputs': ['x', 'w'], " \
	"'shape': [4, 4], 'dtype': 'f32'" a_extra "}, " \
	"{'name': 'b', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': [" b_in "], " \
	"'shape': " sh ", 'dtype': '" bdt "'}, " \
	"{'name': 't', 'kind': 'tangent', 'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'gb', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'b'], " \
	"'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'gw', 'kind': 'op', 'target': 'aten.mm.default', 'inputs': ['x', 'gb'], " \
	"'shape': [4, 4], 'dtype': 'f32'}"

/* The base with w a parameter ("param"). */
#define NODES_PARAM \
	"{'name': 'x', 'kind': 'primal', 'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'w', 'kind': 'primal', 'shape': [4, 4], 'dtype': 'f32', 'param': true}, " \
	"{'name': 'a', 'kind': 'op', 'target': 'aten.mm.default', 'inputs': ['x', 'w'], " \
	"'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'b', 'kind': 'op', 'target': 'aten.relu.default', 'inputs': ['a'], " \
	"'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 't', 'kind': 'tangent', 'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'gb', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t', 'b'], " \
	"'shape': [4, 4], 'dtype': 'f32'}, " \
	"{'name': 'gw', 'kind': 'op', 'target': 'aten.mm.default', 'inputs': ['x', 'gb'], " \
	"'shape': [4, 4], 'dtype': 'f32'}"

static const char *
fp_of(const char *extra, const char *nodes, const char *fw, const char *bw, char out[65])
{
	ilp_graph *g = t_graph_parts(extra, nodes, fw, bw);

	memcpy(out, ilp_graph_fingerprint(g), 65);
	ilp_graph_free(g);
	return out;
}

START_TEST(fingerprint_sees_every_change)
{
	static const struct {
		const char *what, *extra, *nodes, *fw, *bw;
	} v[] = {
		{ "base", "", NODES("", "'a'", "[4, 4]"), "'b'", "null, 'gw'" },
		{ "shape", "", NODES("", "'a'", "[16]"), "'b'", "null, 'gw'" },
		{ "op", "", NODES_ALL("aten.bmm.default", "", "'a'", "[4, 4]", "f32"), "'b'",
		  "null, 'gw'" },
		{ "dtype", "", NODES_ALL("aten.mm.default", "", "'a'", "[4, 4]", "f16"), "'b'", "null, 'gw'" },
		{ "tag", "", NODES(", 'recompute': 'MUST_SAVE'", "'a'", "[4, 4]"), "'b'",
		  "null, 'gw'" },
		{ "edge", "", NODES("", "'x'", "[4, 4]"), "'b'", "null, 'gw'" },
		{ "outputs", "", NODES("", "'a'", "[4, 4]"), "'b'", "'gw', null" },
		{ "flops", "", NODES(", 'flops': 128", "'a'", "[4, 4]"), "'b'", "null, 'gw'" },
		{ "rng state", "'rng_state_bytes': 16,", NODES("", "'a'", "[4, 4]"), "'b'",
		  "null, 'gw'" },
		{ "rng", "'rng_functionalized': true,", NODES("", "'a'", "[4, 4]"), "'b'",
		  "null, 'gw'" },
		{ "region", "", NODES(", 'recompute': 'MUST_SAVE', 'ac_graph_id': 1", "'a'",
		  "[4, 4]"), "'b'", "null, 'gw'" },
		{ "param", "", NODES_PARAM, "'b'", "null, 'gw'" },
		{ "nested", "", NODES(", 'nested_inputs': [1]", "'a'", "[4, 4]"), "'b'",
		  "null, 'gw'" },
		{ "nested first", "", NODES(", 'nested_inputs': [0]", "'a'", "[4, 4]"), "'b'",
		  "null, 'gw'" },
	};
	char fp[sizeof v / sizeof v[0]][65];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		fp_of(v[i].extra, v[i].nodes, v[i].fw, v[i].bw, fp[i]);
		for (size_t k = 0; k < i; k++)
			ck_assert_msg(strcmp(fp[i], fp[k]) != 0, "%s and %s give one fingerprint",
			    v[i].what, v[k].what);
	}
}
END_TEST

/* Argument order is structure: mm(x, w) is not mm(w, x). */
START_TEST(fingerprint_sees_argument_order)
{
	char a[65], b[65];
	const char *n1 = "{'name': 'x', 'kind': 'primal', 'shape': [4, 8], 'dtype': 'f32'}, "
	    "{'name': 'w', 'kind': 'primal', 'shape': [4, 8], 'dtype': 'f32'}, "
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.sub.Tensor', 'inputs': ['x', 'w'], "
	    "'shape': [4, 8], 'dtype': 'f32'}";
	const char *n2 = "{'name': 'x', 'kind': 'primal', 'shape': [4, 8], 'dtype': 'f32'}, "
	    "{'name': 'w', 'kind': 'primal', 'shape': [4, 8], 'dtype': 'f32'}, "
	    "{'name': 'y', 'kind': 'op', 'target': 'aten.sub.Tensor', 'inputs': ['w', 'x'], "
	    "'shape': [4, 8], 'dtype': 'f32'}";

	/* with x's gradient listed first, sub(x, w) and sub(w, x) differ ... */
	fp_of("", n1, "'y'", "'x', 'w'", a);
	fp_of("", n2, "'y'", "'x', 'w'", b);
	ck_assert_str_ne(a, b);
	/* ... but renaming x and w into each other is the same graph */
	fp_of("", n2, "'y'", "'w', 'x'", b);
	ck_assert_str_eq(a, b);
}
END_TEST

/* Region ids are counters: renumbering them in the same order keeps the fingerprint,
 * swapping their order does not. */
START_TEST(fingerprint_region_ids_by_order)
{
#define RN(r1, r2) \
	"{'name': 'x', 'kind': 'primal', 'shape': [4], 'dtype': 'f32'}, " \
	"{'name': 'a', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['x'], " \
	"'shape': [4], 'dtype': 'f32', 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': " r1 "}, " \
	"{'name': 'b', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['a'], " \
	"'shape': [4], 'dtype': 'f32', 'recompute': 'PREFER_RECOMPUTE', 'ac_graph_id': " r2 "}"
	char a[65], b[65], c[65];

	fp_of("", RN("1", "2"), "'b'", "", a);
	fp_of("", RN("7", "30"), "'b'", "", b);
	fp_of("", RN("2", "1"), "'b'", "", c);
	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
#undef RN
}
END_TEST

/* Symmetric parts (two unused tangents, two identical branches) still map. */
START_TEST(remap_symmetric_nodes)
{
	const char *nodes =
	    "{'name': 'x', 'kind': 'primal', 'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 'a1', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['x'], "
	    "'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 'a2', 'kind': 'op', 'target': 'aten.sin.default', 'inputs': ['x'], "
	    "'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 's', 'kind': 'op', 'target': 'aten.add.Tensor', 'inputs': ['a1', 'a2'], "
	    "'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 't1', 'kind': 'tangent', 'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 't2', 'kind': 'tangent', 'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 't3', 'kind': 'tangent', 'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 'g', 'kind': 'op', 'target': 'aten.cos.default', 'inputs': ['a1'], "
	    "'shape': [4], 'dtype': 'f32'}, "
	    "{'name': 'h', 'kind': 'op', 'target': 'aten.mul.Tensor', 'inputs': ['t1', 'g'], "
	    "'shape': [4], 'dtype': 'f32'}";
	ilp_graph *g = t_graph_parts("", nodes, "'s'", "'h'");
	ilp_partition *p = ilp_partition_new(g), *q = NULL;
	ilp_error err = { 0 };

	p->state[t_node(g, "g")] = ILPI_P_SAVED;
	ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
	memcpy(p->graph_fp, ilp_graph_fingerprint(g), 65);
	ck_assert_msg(ilp_partition_remap(g, p, g, &q, &err) == 0, "%s", err.msg);
	ck_assert(ilp_partition_is_saved(q, t_node(g, "g")));
	ck_assert_int_eq(ilp_check(g, q, NULL, &err), 0);
	ilp_partition_free(q);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* ---- partition files: provenance written, read back, and checked ------------------- */

START_TEST(partition_records_graph_and_options)
{
	char path[4096], *json = NULL, *again = NULL;
	ilp_graph *g = read_corpus("mlp", path, sizeof path), *other;
	ilp_solve_options o;
	ilp_partition *p = NULL, *r = NULL;
	ilp_error err = { 0 };
	char expect[128];

	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.3;
	o.bans = ILP_BANS_NONE;
	o.rng_replay = ILP_RNG_REPLAY_NEVER;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilp_partition_to_json(g, p, &json, &err), 0);
	snprintf(expect, sizeof expect, "\"graph\": {\"fingerprint\": \"%s\"",
	    ilp_graph_fingerprint(g));
	ck_assert_ptr_nonnull(strstr(json, expect));
	ck_assert_ptr_nonnull(strstr(json, "\"options\": {\"objective\": \"runtime\", "
	    "\"memory_budget_fraction\": 0.3, \"rng_replay\": \"no\", \"prefer\": \"hard\", "
	    "\"bans\": \"none\", "
	    "\"device\": \"h100\", \"ilpart\": \"" PACKAGE_VERSION "\"}"));
	/* read back and written again: the same bytes */
	ck_assert_msg(ilp_partition_read_buffer(g, json, strlen(json), "p.json", &r, &err) == 0,
	    "%s", err.msg);
	ck_assert_int_eq(ilp_partition_to_json(g, r, &again, &err), 0);
	ck_assert_str_eq(again, json);
	ilp_partition_free(r);
	/* another graph refuses it before looking at names */
	other = read_corpus("mlp-dropout", path, sizeof path);
	ck_assert_int_eq(ilp_partition_read_buffer(other, json, strlen(json), "p.json", &r, &err),
	    -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "p.json: partition made for another graph") != NULL, "%s", err.msg);
	ilp_graph_free(other);
	free(json);
	free(again);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(policy_leaves_fingerprint_and_is_recorded)
{
	char path[4096], before[65], *json = NULL;
	const char *pol_json = "{\"format\": \"ilpart-policy\", \"version\": 1, "
	    "\"regions\": \"graph\", \"save\": [\"aten.mm\"], \"default\": \"PREFER_RECOMPUTE\"}";
	ilp_graph *g = read_corpus("mlp", path, sizeof path);
	ilp_policy *pol = NULL;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	char sha[65], expect[200];

	memcpy(before, ilp_graph_fingerprint(g), 65);
	ck_assert_msg(ilp_policy_read_buffer(pol_json, strlen(pol_json), "dir/mm.json", &pol,
	    &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_policy_apply(pol, g, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(ilp_graph_fingerprint(g), before);
	ck_assert_msg(ilp_mincut(g, NULL, &p, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilp_partition_to_json(g, p, &json, &err), 0);
	ilpi_sha256_buf(pol_json, strlen(pol_json), sha);
	snprintf(expect, sizeof expect, "\"policy\": {\"name\": \"mm.json\", \"sha256\": \"%s\"}",
	    sha);
	ck_assert_msg(strstr(json, expect) != NULL, "%s", json);
	free(json);
	ilp_partition_free(p);
	ilp_policy_free(pol);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_fingerprint(void)
{
	Suite *s = suite_create("fingerprint");
	TCase *tc = tcase_create("fingerprint");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, sha256_accelerated_same);
	tcase_add_loop_test(tc, fingerprint_ignores_names_and_order, 0,
	    (int)(sizeof corpus / sizeof corpus[0]));
	tcase_add_test(tc, fingerprint_sees_every_change);
	tcase_add_test(tc, fingerprint_sees_argument_order);
	tcase_add_test(tc, fingerprint_region_ids_by_order);
	tcase_add_test(tc, remap_symmetric_nodes);
	tcase_add_test(tc, partition_records_graph_and_options);
	tcase_add_test(tc, policy_leaves_fingerprint_and_is_recorded);
	suite_add_tcase(s, tc);
	return s;
}
