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

/* The transfers of offloaded values around op `op` of a side (docs/partition.md
 * "Offload"): the copy out after the forward's last read, the copy back before the
 * backward's first use, as comments. */
static void
text_xfers(ilpi_buf *b, const ilp_graph *g, const ilpi_memsim *m, int bw, int32_t op)
{
	for (size_t j = 0; j < m->n_xfer; j++) {
		const ilpi_xfer *x = &m->xfer[j];
		const char *nm = g->node[x->node].name;

		if (!bw && x->fw_last >= 0 && m->fw_order[x->fw_last] == op) {
			ilpi_buf_printf(b, "    # offload %s to the host (%lld bytes, %.6g us)", nm,
			    (long long)x->bytes, x->xfer_us);
			if (x->fw_gone < (int32_t)m->n_fw)
				ilpi_buf_printf(b, ", off the device from %s\n",
				    g->node[m->fw_order[x->fw_gone]].name);
			else
				ilpi_buf_printf(b, ", the forward waits %.6g us at its end\n",
				    x->exposed_fw_us);
		}
		if (bw && x->bw_use < (int32_t)m->n_bw && m->bw_order[x->bw_use] == op) {
			ilpi_buf_printf(b, "    # reload %s from the host (%lld bytes, %.6g us), copy "
			    "started at %s", nm, (long long)x->bytes, x->xfer_us,
			    g->node[m->bw_order[x->bw_back]].name);
			if (x->exposed_bw_us > 0)
				ilpi_buf_printf(b, ", waits %.6g us", x->exposed_bw_us);
			ilpi_buf_puts(b, "\n");
		}
	}
}

static void
text_side(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_side *s,
    int bw, const ilpi_memsim *m)
{
	ilp_phase here = bw ? ILP_PHASE_BACKWARD : ILP_PHASE_FORWARD;
	const ilp_peak *pk = &m->peak;
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

		if (bw)
			text_xfers(b, g, m, 1, s->op[k]);
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
		if (!bw)
			text_xfers(b, g, m, 0, s->op[k]);
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
	text_side(b, g, p, &s->fw, 0, &m);
	ilpi_buf_puts(b, "\n");
	text_side(b, g, p, &s->bw, 1, &m);
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

/* "offloaded": each offloaded value's transfers as the simulator times them. */
static int
json_xfers(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_split *s)
{
	ilpi_memsim m;
	ilp_error err;

	if (ilpi_memsim_run(g, p, s, &m, &err) != 0) {
		b->failed = 1;
		return -1;
	}
	ilpi_buf_puts(b, ",\n  \"offloaded\": [");
	for (size_t j = 0; j < m.n_xfer; j++) {
		const ilpi_xfer *x = &m.xfer[j];

		ilpi_buf_puts(b, j > 0 ? ",\n    {\"name\": " : "\n    {\"name\": ");
		ilpi_buf_json_str(b, g->node[x->node].name);
		ilpi_buf_printf(b, ", \"bytes\": %lld, \"offload_after\": ", (long long)x->bytes);
		ilpi_buf_json_str(b, g->node[m.fw_order[x->fw_last]].name);
		ilpi_buf_puts(b, ", \"reload_before\": ");
		if (x->bw_use < (int32_t)m.n_bw)
			ilpi_buf_json_str(b, g->node[m.bw_order[x->bw_use]].name);
		else
			ilpi_buf_puts(b, "null");
		ilpi_buf_puts(b, ", \"transfer_us\": ");
		ilpi_buf_json_num(b, x->xfer_us);
		ilpi_buf_puts(b, ", \"exposed_us\": ");
		ilpi_buf_json_num(b, x->exposed_fw_us + x->exposed_bw_us);
		ilpi_buf_puts(b, "}");
	}
	ilpi_buf_puts(b, "\n  ]");
	ilpi_memsim_free(&m);
	return 0;
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
	if (ilpi_partition_count(p, ILPI_P_OFFLOADED) > 0 && json_xfers(b, g, p, s) != 0)
		return;
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

/* ---- dot, summarised: regions of consecutive ops, the saved boundary between them ---- */

/* Regions of one side: runs of consecutive ops (the side's order) of at most `cap` ops,
 * also cut where the checkpoint region (ac_graph_id) changes, so blocks of a SAC model
 * come out whole. reg[node] is its region, first[r] the region's first op position
 * (first[n_reg] = n_op). Returns the number of regions. */
static size_t
side_regions(const ilp_graph *g, const ilpi_side *s, size_t cap, int32_t *reg, size_t *first)
{
	size_t n = 0, len = 0;

	for (size_t k = 0; k < s->n_op; k++) {
		const ilpi_node *nd = &g->node[s->op[k]];
		int cut = k == 0 || len == cap ||
		    (nd->ac_graph_id != g->node[s->op[k - 1]].ac_graph_id && len >= cap / 4);

		if (cut) {
			first[n++] = k;
			len = 0;
		}
		reg[s->op[k]] = (int32_t)(n - 1);
		len++;
	}
	first[n] = s->n_op;
	return n;
}

static void
region_node(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const ilpi_side *s,
    const char *side, size_t r, const size_t *first)
{
	size_t lo = first[r], hi = first[r + 1], recomputed = 0;
	int32_t ac = g->node[s->op[lo]].ac_graph_id;
	int one_ac = 1;

	for (size_t k = lo; k < hi; k++) {
		recomputed += side[0] == 'b' && ilpi_recomputed(p, (size_t)s->op[k]);
		one_ac &= g->node[s->op[k]].ac_graph_id == ac;
	}
	ilpi_buf_printf(b, "\t\t\"%s/%zu\" [label=\"%s ops %zu-%zu (%zu)\\n", side, r,
	    side[0] == 'f' ? "forward" : "backward", lo + 1, hi, hi - lo);
	dot_esc(b, g->node[s->op[lo]].name);
	if (hi - lo > 1) {
		ilpi_buf_puts(b, " .. ");
		dot_esc(b, g->node[s->op[hi - 1]].name);
	}
	if (one_ac && ac != ILPI_NONE)
		ilpi_buf_printf(b, "\\ncheckpoint region %d", (int)ac);
	if (recomputed > 0)
		ilpi_buf_printf(b, "\\n%zu recomputed", recomputed);
	ilpi_buf_printf(b, "\"%s];\n", recomputed > 0 ?
	    ", style=filled, fillcolor=\"#fff2cc\"" : "");
}

/* Edges between regions of one side, one per pair, with how many values cross. */
static void
region_edges(ilpi_buf *b, const ilp_graph *g, const ilpi_side *s, const char *side,
    const int32_t *reg, size_t n_reg, uint32_t *count)
{
	memset(count, 0, n_reg * n_reg * sizeof *count);
	for (size_t k = 0; k < s->n_op; k++) {
		const ilpi_node *n = &g->node[s->op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		for (uint32_t j = 0; j < n->in_count; j++) {
			int32_t a = reg[in[j]], c = reg[s->op[k]];

			if (a >= 0 && a != c && !in_list(in, j, in[j]))
				count[(size_t)a * n_reg + (size_t)c]++;
		}
	}
	for (size_t a = 0; a < n_reg; a++)
		for (size_t c = 0; c < n_reg; c++)
			if (count[a * n_reg + c] > 0)
				ilpi_buf_printf(b, "\t\t\"%s/%zu\" -> \"%s/%zu\" [label=\"%u\"];\n",
				    side, a, side, c, count[a * n_reg + c]);
}

static void
render_dot_summary(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p,
    const ilpi_split *s)
{
	size_t cap_fw = s->fw.n_op / 16 + 1, cap_bw = s->bw.n_op / 16 + 1, n_fw, n_bw;
	int32_t *fw_reg = malloc((g->n + 1) * sizeof *fw_reg);
	int32_t *bw_reg = malloc((g->n + 1) * sizeof *bw_reg);
	size_t *fw_first = malloc((s->fw.n_op + 2) * sizeof *fw_first);
	size_t *bw_first = malloc((s->bw.n_op + 2) * sizeof *bw_first);
	uint32_t *count = NULL, *saved_n = NULL;
	int64_t *saved_b = NULL;

	if (fw_reg == NULL || bw_reg == NULL || fw_first == NULL || bw_first == NULL)
		goto fail;
	for (size_t i = 0; i < g->n; i++)
		fw_reg[i] = bw_reg[i] = -1;
	n_fw = side_regions(g, &s->fw, cap_fw < 8 ? 8 : cap_fw, fw_reg, fw_first);
	n_bw = side_regions(g, &s->bw, cap_bw < 8 ? 8 : cap_bw, bw_reg, bw_first);
	{
		size_t m = n_fw > n_bw ? n_fw : n_bw;

		count = malloc((m * m + 1) * sizeof *count);
		/* saved: from forward region a (n_fw: the inputs) to backward region c */
		saved_n = calloc((n_fw + 1) * n_bw + 1, sizeof *saved_n);
		saved_b = calloc((n_fw + 1) * n_bw + 1, sizeof *saved_b);
	}
	if (count == NULL || saved_n == NULL || saved_b == NULL)
		goto fail;
	ilpi_buf_printf(b, "// ilpart split: summary of %zu nodes (%zu forward and %zu backward "
	    "ops in regions of consecutive ops);\n// every node: ilpart split --format dot "
	    "--detail full\n", g->n, s->fw.n_op, s->bw.n_op);
	ilpi_buf_puts(b, "digraph split {\n\tnewrank=true;\n"
	    "\tnode [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
	    "\tedge [fontname=\"Helvetica\", fontsize=9];\n");
	ilpi_buf_puts(b, "\tsubgraph cluster_fw {\n\t\tlabel=\"forward\";\n");
	for (size_t r = 0; r < n_fw; r++)
		region_node(b, g, p, &s->fw, "fw", r, fw_first);
	ilpi_buf_puts(b, "\t\t\"fw/inputs\" [label=\"inputs (primals)\", shape=ellipse];\n");
	region_edges(b, g, &s->fw, "fw", fw_reg, n_fw, count);
	ilpi_buf_puts(b, "\t}\n\tsubgraph cluster_bw {\n\t\tlabel=\"backward\";\n");
	for (size_t r = 0; r < n_bw; r++)
		region_node(b, g, p, &s->bw, "bw", r, bw_first);
	region_edges(b, g, &s->bw, "bw", bw_reg, n_bw, count);
	ilpi_buf_puts(b, "\t}\n");
	/* The saved boundary: each saved value from where the forward makes it to the
	 * backward region that first uses it. */
	for (size_t k = 0; k < s->n_saved; k++) {
		int32_t v = s->bw.in[k], a = fw_reg[v] >= 0 ? fw_reg[v] : (int32_t)n_fw, c = -1;

		for (size_t j = 0; j < s->bw.n_op && c < 0; j++) {
			const ilpi_node *n = &g->node[s->bw.op[j]];

			if (in_list(ilpi_inputs(g, n), n->in_count, v))
				c = bw_reg[s->bw.op[j]];
		}
		if (c < 0)
			continue;
		saved_n[(size_t)a * n_bw + (size_t)c]++;
		saved_b[(size_t)a * n_bw + (size_t)c] += ilpi_charged_bytes(g, &g->node[v]);
	}
	for (size_t a = 0; a <= n_fw; a++)
		for (size_t c = 0; c < n_bw; c++) {
			size_t i = a * n_bw + c;

			if (saved_n[i] == 0)
				continue;
			if (a == n_fw)
				ilpi_buf_puts(b, "\t\"fw/inputs\"");
			else
				ilpi_buf_printf(b, "\t\"fw/%zu\"", a);
			ilpi_buf_printf(b, " -> \"bw/%zu\" [color=\"#cc0000\", penwidth=2, "
			    "fontcolor=\"#cc0000\", label=\"%u saved, %lld B\"];\n", c, saved_n[i],
			    (long long)saved_b[i]);
		}
	ilpi_buf_puts(b, "}\n");
	goto out;
fail:
	b->failed = 1;
out:
	free(fw_reg);
	free(bw_reg);
	free(fw_first);
	free(bw_first);
	free(count);
	free(saved_n);
	free(saved_b);
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
	case ILP_SPLIT_DOT_SUMMARY:
		render_dot_summary(&b, g, p, sp);
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
