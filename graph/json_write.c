/*
 * json_write.c - the joint-graph writer: ilp_graph -> canonical JSON (docs/format.md).
 *
 * Canonical means: top-level keys and node keys in the order of docs/format.md, nodes
 * in graph order, one node per line, sizes always written as "bytes" (so nothing depends
 * on how the size was given), defaults left out. Reading the output and writing it
 * again gives the same bytes. Per-node and top-level "meta" are not kept: the reader
 * ignores them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "graph/strbuf.h"

static void
key(ilpi_buf *b, const char *k)
{
	ilpi_buf_puts(b, ", \"");
	ilpi_buf_puts(b, k);
	ilpi_buf_puts(b, "\": ");
}

static void
cost(ilpi_buf *b, const char *k, double v)
{
	if (v == ILPI_UNKNOWN_COST)
		return;
	key(b, k);
	ilpi_buf_json_num(b, v);
}

static void
flag(ilpi_buf *b, const ilpi_node *n, unsigned f, const char *k)
{
	if (n->flags & f) {
		key(b, k);
		ilpi_buf_puts(b, "true");
	}
}

/* A JSON array of node names; ILPI_NONE is written as null. */
static void
name_list(ilpi_buf *b, const ilp_graph *g, const int32_t *v, size_t n)
{
	ilpi_buf_puts(b, "[");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			ilpi_buf_puts(b, ", ");
		if (v[i] == ILPI_NONE)
			ilpi_buf_puts(b, "null");
		else
			ilpi_buf_json_str(b, g->node[v[i]].name);
	}
	ilpi_buf_puts(b, "]");
}

static void
write_node(ilpi_buf *b, const ilp_graph *g, const ilpi_node *n)
{
	ilpi_buf_puts(b, "{\"name\": ");
	ilpi_buf_json_str(b, n->name);
	key(b, "kind");
	ilpi_buf_json_str(b, ilpi_kind_name((ilpi_kind)n->kind));
	if (n->kind == ILPI_OP) {
		key(b, "target");
		ilpi_buf_json_str(b, n->target);
		key(b, "inputs");
		name_list(b, g, ilpi_inputs(g, n), n->in_count);
	}
	if (n->ndim >= 0) {
		key(b, "shape");
		ilpi_buf_puts(b, "[");
		for (int d = 0; d < n->ndim; d++)
			ilpi_buf_printf(b, d > 0 ? ", %lld" : "%lld",
			    (long long)g->shape[n->shape_begin + (uint32_t)d]);
		ilpi_buf_puts(b, "]");
	}
	if (n->dtype != NULL) {
		key(b, "dtype");
		ilpi_buf_json_str(b, n->dtype);
	}
	key(b, "bytes");
	ilpi_buf_printf(b, "%lld", (long long)n->bytes);
	flag(b, n, ILPI_F_TUPLE, "tuple");
	if (n->index != ILPI_NONE) {
		key(b, "index");
		ilpi_buf_printf(b, "%ld", (long)n->index);
	}
	if (n->view_of != ILPI_NONE) {
		key(b, "view_of");
		ilpi_buf_json_str(b, g->node[n->view_of].name);
	}
	cost(b, "flops", n->flops);
	cost(b, "bytes_read", n->bytes_read);
	cost(b, "bytes_written", n->bytes_written);
	cost(b, "time_us", n->time_us);
	if (n->workspace > 0) {
		key(b, "workspace");
		ilpi_buf_printf(b, "%lld", (long long)n->workspace);
	}
	if (n->tag != ILPI_TAG_NONE) {
		key(b, "recompute");
		ilpi_buf_json_str(b, ilpi_tag_name((ilpi_tag)n->tag));
	}
	if (n->ac_graph_id != ILPI_NONE) {
		key(b, "ac_graph_id");
		ilpi_buf_printf(b, "%ld", (long)n->ac_graph_id);
	}
	flag(b, n, ILPI_F_RANDOM, "random");
	flag(b, n, ILPI_F_EFFECTFUL, "effectful");
	flag(b, n, ILPI_F_COLLECTIVE, "collective");
	flag(b, n, ILPI_F_MUTATED, "mutated");
	flag(b, n, ILPI_F_PARAM, "param");
	if (n->flags & ILPI_F_SYM) {
		key(b, "sym");
		ilpi_buf_json_str(b, (n->flags & ILPI_F_SYM_FLOAT) ? "float" : "int");
	}
	if (g->memory_budget >= 0 && n == &g->node[g->memory_budget_node]) {
		key(b, "memory_budget");
		ilpi_buf_printf(b, "%.17g", g->memory_budget);
	}
	ilpi_buf_puts(b, "}");
}

static void
write_refs(ilpi_buf *b, const ilp_graph *g)
{
	if (g->n_ref == 0)
		return;
	ilpi_buf_puts(b, ",\n  \"reference\": [");
	for (size_t i = 0; i < g->n_ref; i++) {
		const ilpi_refpart *p = &g->ref[i];

		ilpi_buf_puts(b, i == 0 ? "\n    {\"name\": " : ",\n    {\"name\": ");
		ilpi_buf_json_str(b, p->name);
		ilpi_buf_puts(b, ", \"saved\": ");
		name_list(b, g, p->saved, p->n_saved);
		if (p->recomputed != NULL) {
			ilpi_buf_puts(b, ", \"recomputed\": ");
			name_list(b, g, p->recomputed, p->n_recomputed);
		}
		ilpi_buf_puts(b, "}");
	}
	ilpi_buf_puts(b, "\n  ]");
}

int
ilp_graph_to_json(const ilp_graph *g, char **out, ilp_error *err)
{
	ilpi_buf b;

	*out = NULL;
	ilpi_err_clear(err);
	ilpi_buf_init(&b);
	ilpi_buf_puts(&b, "{\n  \"format\": \"ilpart-joint-graph\",\n  \"version\": 1");
	if (g->description != NULL) {
		ilpi_buf_puts(&b, ",\n  \"description\": ");
		ilpi_buf_json_str(&b, g->description);
	}
	if (g->device != NULL) {
		ilpi_buf_puts(&b, ",\n  \"device\": ");
		ilpi_buf_json_str(&b, g->device);
	}
	ilpi_buf_printf(&b, ",\n  \"rng_functionalized\": %s",
	    g->rng_functionalized ? "true" : "false");
	if (g->rng_state_bytes >= 0)
		ilpi_buf_printf(&b, ",\n  \"rng_state_bytes\": %lld", (long long)g->rng_state_bytes);
	ilpi_buf_puts(&b, ",\n  \"nodes\": [");
	for (size_t i = 0; i < g->n; i++) {
		ilpi_buf_puts(&b, i == 0 ? "\n    " : ",\n    ");
		write_node(&b, g, &g->node[i]);
	}
	ilpi_buf_puts(&b, g->n > 0 ? "\n  ],\n  \"outputs\": {\"forward\": " :
	    "],\n  \"outputs\": {\"forward\": ");
	name_list(&b, g, g->fw_out, g->n_fw_out);
	ilpi_buf_puts(&b, ", \"backward\": ");
	name_list(&b, g, g->bw_out, g->n_bw_out);
	ilpi_buf_puts(&b, "}");
	write_refs(&b, g);
	if (g->torch != NULL) { /* min-cut follows that torch: the one meta key kept */
		ilpi_buf_puts(&b, ",\n  \"meta\": {\"torch\": ");
		ilpi_buf_json_str(&b, g->torch);
		ilpi_buf_puts(&b, "}");
	}
	ilpi_buf_puts(&b, "\n}\n");
	if ((*out = ilpi_buf_take(&b)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	return 0;
}
