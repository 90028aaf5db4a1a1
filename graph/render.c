/*
 * render.c - ilp_split_render: the forward and backward graphs of a partition as JSON,
 * as text that reads like PyTorch's printed FX graphs, or as Graphviz DOT.
 * Formats: docs/partition.md "Split graphs". Output is canonical (graph order, no
 * timestamps, no file names).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "graph/partition.h"
#include "graph/strbuf.h"

static int
is_getitem(const ilpi_node *n)
{
	return n->index != ILPI_NONE && n->in_count == 1 &&
	    ((n->flags & ILPI_F_GETITEM) ||
	    (n->target != NULL && strcmp(n->target, "getitem") == 0));
}

static int
has_type(const ilpi_node *n)
{
	return n->dtype != NULL || n->ndim >= 0;
}

/* PyTorch's annotation without strides and device: f32[32, 32]. */
static void
put_type(ilpi_buf *b, const ilp_graph *g, const ilpi_node *n)
{
	ilpi_buf_puts(b, n->dtype != NULL ? n->dtype : "?");
	ilpi_buf_puts(b, "[");
	if (n->ndim < 0)
		ilpi_buf_puts(b, "?");
	for (int d = 0; d < n->ndim; d++)
		ilpi_buf_printf(b, "%s%lld", d > 0 ? ", " : "",
		    (long long)g->shape[n->shape_begin + (uint32_t)d]);
	ilpi_buf_puts(b, "]");
}

/* ---- text ------------------------------------------------------------------- */

/* The RNG states a partition saves (rng_states), as saved values: rng_state_NODE. */
static void
rng_states(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const char *sep)
{
	for (size_t i = 0; i < g->n; i++)
		if (p->state[i] & ILPI_P_RNG_SAVED) {
			ilpi_buf_printf(b, "%srng_state_%s", sep, g->node[i].name);
			sep = ", ";
		}
}

static void
text_side(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_side *s,
    int bw, const ilp_peak *pk)
{
	ilp_phase here = bw ? ILP_PHASE_BACKWARD : ILP_PHASE_FORWARD;
	int rng_done = 0;

	ilpi_buf_printf(b, "def %s(self", bw ? "backward" : "forward");
	for (size_t k = 0; k < s->n_in; k++) {
		const ilpi_node *n = &g->node[s->in[k]];

		/* the RNG states the forward saved come after the saved values, as in
		 * PyTorch's functionalize_rng_ops */
		if (bw && n->kind == ILPI_TANGENT && !rng_done) {
			rng_states(b, g, p, ", ");
			rng_done = 1;
		}
		ilpi_buf_printf(b, ", %s", n->name);
		if (has_type(n)) {
			ilpi_buf_puts(b, ": \"");
			put_type(b, g, n);
			ilpi_buf_puts(b, "\"");
		}
	}
	ilpi_buf_puts(b, "):\n");
	for (size_t k = 0; k < s->n_op; k++) {
		const ilpi_node *n = &g->node[s->op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		ilpi_buf_printf(b, "    %s", n->name);
		if (has_type(n) && !(n->flags & ILPI_F_TUPLE)) {
			ilpi_buf_puts(b, ": \"");
			put_type(b, g, n);
			ilpi_buf_puts(b, "\"");
		}
		if (is_getitem(n)) {
			ilpi_buf_printf(b, " = %s[%d]", g->node[in[0]].name, (int)n->index);
		} else {
			ilpi_buf_printf(b, " = %s(", n->target != NULL ? n->target : "?");
			for (uint32_t j = 0; j < n->in_count; j++)
				ilpi_buf_printf(b, "%s%s", j > 0 ? ", " : "", g->node[in[j]].name);
			ilpi_buf_puts(b, ")");
		}
		if (bw && (p->state[s->op[k]] & ILPI_P_RNG_SAVED))
			ilpi_buf_printf(b, "  # recomputed, replays rng_state_%s", n->name);
		else if (bw && ilpi_recomputed(p, (size_t)s->op[k]))
			ilpi_buf_puts(b, "  # recomputed");
		if (pk->phase == here && pk->node == s->op[k])
			ilpi_buf_printf(b, "  # peak: %lld bytes live", (long long)pk->peak_bytes);
		ilpi_buf_puts(b, "\n");
	}
	ilpi_buf_puts(b, "    return (");
	for (size_t k = 0; k < s->n_out; k++)
		ilpi_buf_printf(b, "%s%s", k > 0 ? ", " : "",
		    s->out[k] == ILPI_NONE ? "None" : g->node[s->out[k]].name);
	if (!bw)
		rng_states(b, g, p, s->n_out > 0 ? ", " : "");
	ilpi_buf_puts(b, s->n_out == 1 ? ",)\n" : ")\n");
}

static void
render_text(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_split *s)
{
	ilpi_memsim m;
	ilp_error err;

	/* The peak is marked on the op that runs when it is reached (docs/partition.md
	 * "Peak memory"). */
	if (ilpi_memsim_run(g, p, s, &m, &err) != 0) {
		b->failed = 1;
		return;
	}
	text_side(b, g, p, &s->fw, 0, &m.peak);
	ilpi_buf_puts(b, "\n");
	text_side(b, g, p, &s->bw, 1, &m.peak);
	ilpi_memsim_free(&m);
}

/* ---- json ------------------------------------------------------------------- */

/* An input (placeholder: name and type only) or an op of one side. */
static void
json_value(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, int32_t i, int bw,
    int is_op)
{
	const ilpi_node *n = &g->node[i];

	ilpi_buf_puts(b, "{\"name\": ");
	ilpi_buf_json_str(b, n->name);
	if (is_op) {
		const int32_t *in = ilpi_inputs(g, n);

		ilpi_buf_puts(b, ", \"target\": ");
		ilpi_buf_json_str(b, n->target != NULL ? n->target : "");
		ilpi_buf_puts(b, ", \"inputs\": [");
		for (uint32_t j = 0; j < n->in_count; j++) {
			if (j > 0)
				ilpi_buf_puts(b, ", ");
			ilpi_buf_json_str(b, g->node[in[j]].name);
		}
		ilpi_buf_puts(b, "]");
		if (n->index != ILPI_NONE)
			ilpi_buf_printf(b, ", \"index\": %d", (int)n->index);
	}
	if (n->dtype != NULL) {
		ilpi_buf_puts(b, ", \"dtype\": ");
		ilpi_buf_json_str(b, n->dtype);
	}
	if (n->ndim >= 0) {
		ilpi_buf_puts(b, ", \"shape\": [");
		for (int d = 0; d < n->ndim; d++)
			ilpi_buf_printf(b, "%s%lld", d > 0 ? ", " : "",
			    (long long)g->shape[n->shape_begin + (uint32_t)d]);
		ilpi_buf_puts(b, "]");
	}
	ilpi_buf_printf(b, ", \"bytes\": %lld", (long long)n->bytes);
	if (n->flags & ILPI_F_TUPLE)
		ilpi_buf_puts(b, ", \"tuple\": true");
	if (is_op && n->view_of != ILPI_NONE) {
		ilpi_buf_puts(b, ", \"view_of\": ");
		ilpi_buf_json_str(b, g->node[n->view_of].name);
	}
	if (bw && is_op && ilpi_recomputed(p, (size_t)i))
		ilpi_buf_puts(b, ", \"recomputed\": true");
	if (bw && is_op && (p->state[i] & ILPI_P_RNG_SAVED))
		ilpi_buf_puts(b, ", \"replays_rng_state\": true");
	ilpi_buf_puts(b, "}");
}

static void
json_values(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const char *key,
    const int32_t *v, size_t n, int bw)
{
	ilpi_buf_printf(b, "    \"%s\": [", key);
	for (size_t k = 0; k < n; k++) {
		ilpi_buf_puts(b, k > 0 ? ",\n      " : "\n      ");
		json_value(b, g, p, v[k], bw, strcmp(key, "nodes") == 0);
	}
	ilpi_buf_puts(b, n > 0 ? "\n    ],\n" : "],\n");
}

static void
json_names(ilpi_buf *b, const ilp_graph *g, const int32_t *v, size_t n)
{
	ilpi_buf_puts(b, "[");
	for (size_t k = 0; k < n; k++) {
		if (k > 0)
			ilpi_buf_puts(b, ", ");
		if (v[k] == ILPI_NONE)
			ilpi_buf_puts(b, "null");
		else
			ilpi_buf_json_str(b, g->node[v[k]].name);
	}
	ilpi_buf_puts(b, "]");
}

static void
json_side(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_side *s,
    int bw)
{
	ilpi_buf_puts(b, "{\n");
	json_values(b, g, p, "inputs", s->in, s->n_in, bw);
	json_values(b, g, p, "nodes", s->op, s->n_op, bw);
	ilpi_buf_puts(b, "    \"outputs\": ");
	json_names(b, g, s->out, s->n_out);
	ilpi_buf_puts(b, "\n  }");
}

static void
render_json(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_split *s)
{
	ilpi_buf_puts(b, "{\n  \"format\": \"ilpart-split\",\n  \"version\": 1,\n"
	    "  \"saved\": ");
	json_names(b, g, s->bw.in, s->n_saved);
	if (ilpi_partition_count(p, ILPI_P_RNG_SAVED) > 0) {
		/* saved values too: the RNG state of each random op the backward replays */
		const char *sep = "";

		ilpi_buf_puts(b, ",\n  \"rng_states\": [");
		for (size_t i = 0; i < g->n; i++)
			if (p->state[i] & ILPI_P_RNG_SAVED) {
				ilpi_buf_printf(b, "%s", sep);
				ilpi_buf_json_str(b, g->node[i].name);
				sep = ", ";
			}
		ilpi_buf_puts(b, "]");
	}
	ilpi_buf_puts(b, ",\n  \"forward\": ");
	json_side(b, g, p, &s->fw, 0);
	ilpi_buf_puts(b, ",\n  \"backward\": ");
	json_side(b, g, p, &s->bw, 1);
	ilpi_buf_puts(b, "\n}\n");
}

/* ---- dot -------------------------------------------------------------------- */

/* A DOT string body: quotes and backslashes escaped, control characters dropped. */
static void
dot_esc(ilpi_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			ilpi_buf_add(b, "\\", 1);
		if ((unsigned char)*s >= 0x20)
			ilpi_buf_add(b, s, 1);
	}
}

static void
dot_id(ilpi_buf *b, const char *side, const char *name)
{
	ilpi_buf_printf(b, "\"%s/", side);
	dot_esc(b, name);
	ilpi_buf_puts(b, "\"");
}

static int
in_list(const int32_t *v, size_t n, int32_t x)
{
	for (size_t k = 0; k < n; k++)
		if (v[k] == x)
			return 1;
	return 0;
}

static void
dot_node(ilpi_buf *b, const ilp_graph *g, const uint8_t *is_out, const char *side, int32_t i,
    int is_op, const char *attrs)
{
	const ilpi_node *n = &g->node[i];

	ilpi_buf_puts(b, "\t\t");
	dot_id(b, side, n->name);
	ilpi_buf_puts(b, " [label=\"");
	dot_esc(b, n->name);
	if (is_op && is_getitem(n)) {
		ilpi_buf_puts(b, "\\n");
		dot_esc(b, g->node[ilpi_inputs(g, n)[0]].name);
		ilpi_buf_printf(b, "[%d]", (int)n->index);
	} else if (is_op && n->target != NULL) {
		ilpi_buf_puts(b, "\\n");
		dot_esc(b, n->target);
	}
	if (has_type(n)) {
		ilpi_buf_puts(b, "\\n");
		put_type(b, g, n);
	}
	ilpi_buf_printf(b, "\"%s%s];\n", attrs,
	    is_out[i] ? ", peripheries=2" : "");
}

static void
dot_side(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_side *s,
    const char *side, size_t n_saved, uint8_t *is_out)
{
	memset(is_out, 0, g->n);
	for (size_t k = 0; k < s->n_out; k++)
		if (s->out[k] != ILPI_NONE)
			is_out[s->out[k]] = 1;
	ilpi_buf_printf(b, "\tsubgraph cluster_%s {\n\t\tlabel=\"%s\";\n", side,
	    side[0] == 'f' ? "forward" : "backward");
	for (size_t k = 0; k < s->n_in; k++)
		dot_node(b, g, is_out, side, s->in[k], 0, side[0] == 'b' && k < n_saved ?
		    ", shape=ellipse, style=filled, fillcolor=\"#f4cccc\"" : ", shape=ellipse");
	for (size_t k = 0; k < s->n_op; k++)
		dot_node(b, g, is_out, side, s->op[k], 1, side[0] == 'b' &&
		    ilpi_recomputed(p, (size_t)s->op[k]) ?
		    ", style=filled, fillcolor=\"#fff2cc\"" : "");
	for (size_t k = 0; k < s->n_op; k++) {
		const ilpi_node *n = &g->node[s->op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		for (uint32_t j = 0; j < n->in_count; j++) {
			if (in_list(in, j, in[j]))
				continue; /* one edge per distinct input */
			ilpi_buf_puts(b, "\t\t");
			dot_id(b, side, g->node[in[j]].name);
			ilpi_buf_puts(b, " -> ");
			dot_id(b, side, n->name);
			ilpi_buf_puts(b, ";\n");
		}
	}
	ilpi_buf_puts(b, "\t}\n");
}

static void
render_dot(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_split *s)
{
	uint8_t *is_out = malloc(g->n + 1);

	if (is_out == NULL) {
		b->failed = 1;
		return;
	}
	ilpi_buf_puts(b, "digraph split {\n\tnewrank=true;\n"
	    "\tnode [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
	dot_side(b, g, p, &s->fw, "fw", s->n_saved, is_out);
	dot_side(b, g, p, &s->bw, "bw", s->n_saved, is_out);
	free(is_out);
	/* The saved values: what the forward hands to the backward. */
	for (size_t k = 0; k < s->n_saved; k++) {
		const char *name = g->node[s->bw.in[k]].name;

		ilpi_buf_puts(b, "\t");
		dot_id(b, "fw", name);
		ilpi_buf_puts(b, " -> ");
		dot_id(b, "bw", name);
		ilpi_buf_puts(b, " [color=\"#cc0000\", penwidth=2, style=bold, "
		    "label=\"saved\", fontcolor=\"#cc0000\"];\n");
	}
	ilpi_buf_puts(b, "}\n");
}

int
ilp_split_render(const ilp_graph *g, const ilp_partition *p, ilp_split_format fmt,
    char **out, ilp_error *err)
{
	ilpi_split s;
	int rc;

	*out = NULL;
	ilpi_err_clear(err);
	if (ilpi_lower(g, p, &s, err) != 0)
		return -1;
	rc = ilpi_split_render_lowered(g, p, &s, fmt, out, err);
	ilpi_split_free(&s);
	return rc;
}

int
ilpi_split_render_lowered(const ilp_graph *g, const ilp_partition *p, const ilpi_split *sp,
    ilp_split_format fmt, char **out, ilp_error *err)
{
	ilpi_buf b;

	*out = NULL;
	ilpi_buf_init(&b);
	switch (fmt) {
	case ILP_SPLIT_JSON:
		render_json(&b, g, p, sp);
		break;
	case ILP_SPLIT_TEXT:
		render_text(&b, g, p, sp);
		break;
	case ILP_SPLIT_DOT:
		render_dot(&b, g, p, sp);
		break;
	default:
		ilpi_err(err, ILP_ERR_INPUT, "%s: unknown split format %d", g->path, (int)fmt);
		return -1;
	}
	if ((*out = ilpi_buf_take(&b)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	return 0;
}
