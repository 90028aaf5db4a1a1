/*
 * lower.c - a checked partition becomes a forward graph and a backward graph, the way
 * AOTAutograd's partitioner splits a joint graph (docs/partition.md "Split graphs").
 * Both sides keep the joint graph's node names and graph order, so the output is
 * deterministic.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/partition.h"

void
ilpi_split_free(ilpi_split *s)
{
	if (s == NULL)
		return;
	free(s->fw.in);
	free(s->fw.op);
	free(s->fw.out);
	free(s->bw.in);
	free(s->bw.op);
	free(s->bw.out);
	memset(s, 0, sizeof *s);
}

/* Room for every node of the graph plus its outputs: no side can hold more. */
static int
side_alloc(ilpi_side *side, size_t n, size_t n_out)
{
	side->in = malloc((n + 1) * sizeof *side->in);
	side->op = malloc((n + 1) * sizeof *side->op);
	side->out = malloc((n_out + 1) * sizeof *side->out);
	return side->in != NULL && side->op != NULL && side->out != NULL ? 0 : -1;
}

static void
lower_forward(const ilp_graph *g, const ilp_partition *p, ilpi_split *s, uint8_t *need)
{
	ilpi_side *fw = &s->fw;

	memset(need, 0, g->n);
	for (size_t i = 0; i < g->n_fw_out; i++)
		need[g->fw_out[i]] = 1;
	for (size_t i = 0; i < g->n; i++)
		if (ilpi_saved(p, i))
			need[i] = 1;
	/* Ancestors, by a reverse sweep: inputs always come earlier. */
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);

		if (!need[i])
			continue;
		for (uint32_t k = 0; k < n->in_count; k++)
			need[in[k]] = 1;
	}
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		if (n->kind == ILPI_PRIMAL)
			fw->in[fw->n_in++] = (int32_t)i;
		else if (need[i] && n->kind == ILPI_OP)
			fw->op[fw->n_op++] = (int32_t)i;
	}
	for (size_t i = 0; i < g->n_fw_out; i++)
		fw->out[fw->n_out++] = g->fw_out[i];
	for (size_t i = 0; i < g->n; i++)
		if (ilpi_saved(p, i))
			fw->out[fw->n_out++] = (int32_t)i;
	s->n_saved = fw->n_out - g->n_fw_out;
}

/* Runs in the backward: not saved (saved values are inputs there), and a backward op or
 * a recomputed node. */
static int
bw_computes(const ilp_graph *g, const ilp_partition *p, size_t i)
{
	const ilpi_node *n = &g->node[i];

	if (ilpi_saved(p, i) || n->kind != ILPI_OP)
		return 0;
	return n->cls == ILPI_BACKWARD || ilpi_recomputed(p, i);
}

static void
lower_backward(const ilp_graph *g, const ilp_partition *p, ilpi_split *s, uint8_t *need)
{
	ilpi_side *bw = &s->bw;

	memset(need, 0, g->n);
	for (size_t i = 0; i < g->n_bw_out; i++)
		if (g->bw_out[i] != ILPI_NONE)
			need[g->bw_out[i]] = 1;
	/* Dead-code elimination: only what the gradients need, stopping at inputs. */
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);

		if (!need[i] || !bw_computes(g, p, i))
			continue;
		for (uint32_t k = 0; k < n->in_count; k++)
			need[in[k]] = 1;
	}
	for (size_t i = 0; i < g->n; i++)
		if (ilpi_saved(p, i))
			bw->in[bw->n_in++] = (int32_t)i;
	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind == ILPI_TANGENT)
			bw->in[bw->n_in++] = (int32_t)i;
	for (size_t i = 0; i < g->n; i++)
		if (need[i] && bw_computes(g, p, i))
			bw->op[bw->n_op++] = (int32_t)i;
	for (size_t i = 0; i < g->n_bw_out; i++)
		bw->out[bw->n_out++] = g->bw_out[i];
}

int
ilpi_lower(const ilp_graph *g, const ilp_partition *p, ilpi_split *s, ilp_error *err)
{
	ilp_check_options co = { ilpi_partition_prefer(p) };

	memset(s, 0, sizeof *s);
	if (ilp_check(g, p, &co, err) != 0)
		return -1;
	return ilpi_lower_unchecked(g, p, s, err);
}

int
ilpi_lower_unchecked(const ilp_graph *g, const ilp_partition *p, ilpi_split *s,
    ilp_error *err)
{
	uint8_t *need = NULL;

	memset(s, 0, sizeof *s);
	if (ilpi_partition_fits(g, p, err) != 0)
		return -1;
	need = malloc(g->n + 1);
	if (need == NULL || side_alloc(&s->fw, g->n, g->n_fw_out + g->n) != 0 ||
	    side_alloc(&s->bw, g->n, g->n_bw_out) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		free(need);
		ilpi_split_free(s);
		return -1;
	}
	lower_forward(g, p, s, need);
	lower_backward(g, p, s, need);
	free(need);
	return 0;
}

void
ilpi_backward_needed(const ilp_graph *g, uint8_t *need)
{
	memset(need, 0, g->n + 1);
	for (size_t k = 0; k < g->n_bw_out; k++)
		if (g->bw_out[k] != ILPI_NONE)
			need[g->bw_out[k]] = 1;
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);

		if (!need[i] || n->cls != ILPI_BACKWARD || n->kind != ILPI_OP)
			continue;
		for (uint32_t k = 0; k < n->in_count; k++)
			need[in[k]] = 1;
	}
}
