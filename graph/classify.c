/*
 * classify.c - freezing a built graph: topological order (naming a cycle when there is
 * one), storage roots, user lists, and the forward/backward/unclaimed classification of
 * docs/format.md, which follows PyTorch's classify_nodes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/fingerprint.h"
#include "graph/graph.h"

/* Iterative DFS for a cycle through forward references; names up to 8 of its nodes.
 * 1: a cycle was reported; 0: none (just out of order); -1: out of memory (reported). */
static int
report_cycle(const ilp_graph *g, ilp_error *err)
{
	uint8_t *state = calloc(g->n, 1); /* 0 new, 1 on stack, 2 done */
	int32_t *stack = malloc(g->n * sizeof *stack), *pos = malloc(g->n * sizeof *pos);
	char buf[600];
	size_t len = 0;
	int found = -1;

	if (state == NULL || stack == NULL || pos == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	for (size_t s = 0; s < g->n; s++) {
		size_t top = 0;

		if (state[s] != 0)
			continue;
		stack[top] = (int32_t)s;
		pos[top++] = 0;
		state[s] = 1;
		while (top > 0) {
			const ilpi_node *n = &g->node[stack[top - 1]];

			if ((uint32_t)pos[top - 1] < n->in_count) {
				int32_t v = g->in[n->in_begin + (uint32_t)pos[top - 1]++];

				if (state[v] == 1) {
					size_t k = top;

					while (k > 0 && stack[k - 1] != v)
						k--;
					for (size_t i = k - 1; i < top && len < 400; i++)
						len += (size_t)snprintf(buf + len, sizeof buf - len,
						    "%s'%s'", i + 1 == k ? "" : " -> ",
						    g->node[stack[i]].name);
					ilpi_err(err, ILP_ERR_INPUT,
					    "%s: node '%s': field 'inputs': cycle: %s -> '%s'",
					    g->path, g->node[v].name, buf, g->node[v].name);
					found = 1;
					goto out;
				}
				if (state[v] == 0) {
					state[v] = 1;
					stack[top] = v;
					pos[top++] = 0;
				}
			} else {
				state[stack[--top]] = 2;
			}
		}
	}
	found = 0;
out:
	free(state);
	free(stack);
	free(pos);
	return found;
}

static int
check_order(const ilp_graph *g, ilp_error *err)
{
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		for (uint32_t k = 0; k < n->in_count; k++) {
			int32_t v = g->in[n->in_begin + k];

			if (v == (int32_t)i) {
				ilpi_err(err, ILP_ERR_INPUT,
				    "%s: node '%s': field 'inputs': cycle: '%s' uses itself",
				    g->path, n->name, n->name);
				return -1;
			}
			if (v > (int32_t)i) {
				if (report_cycle(g, err) == 0)
					ilpi_err(err, ILP_ERR_INPUT,
					    "%s: node '%s': field 'inputs': '%s' is defined later "
					    "(nodes must be in topological order)",
					    g->path, n->name, g->node[v].name);
				return -1;
			}
		}
		if (n->view_of != ILPI_NONE && n->view_of >= (int32_t)i) {
			ilpi_err(err, ILP_ERR_INPUT,
			    "%s: node '%s': field 'view_of': base '%s' must be an earlier node",
			    g->path, n->name, g->node[n->view_of].name);
			return -1;
		}
	}
	return 0;
}

static int
build_users(ilp_graph *g)
{
	uint32_t *cnt = calloc(g->n + 1, sizeof *cnt);
	int32_t *last = malloc(g->n * sizeof *last);
	size_t total = 0;

	if (cnt == NULL || last == NULL)
		goto fail;
	for (size_t i = 0; i < g->n; i++)
		last[i] = ILPI_NONE;
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		for (uint32_t k = 0; k < n->in_count; k++) {
			int32_t v = g->in[n->in_begin + k];

			if (last[v] != (int32_t)i) {
				last[v] = (int32_t)i;
				cnt[v]++;
				total++;
			}
		}
	}
	free(g->use);
	g->use = malloc((total + 1) * sizeof *g->use);
	if (g->use == NULL)
		goto fail;
	total = 0;
	for (size_t i = 0; i < g->n; i++) {
		g->node[i].use_begin = (uint32_t)total;
		g->node[i].use_count = 0;
		total += cnt[i];
		last[i] = ILPI_NONE;
	}
	/* Users in ascending order, each once, because we sweep users in node order. */
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		for (uint32_t k = 0; k < n->in_count; k++) {
			int32_t v = g->in[n->in_begin + k];
			ilpi_node *m = &g->node[v];

			if (last[v] != (int32_t)i) {
				last[v] = (int32_t)i;
				g->use[m->use_begin + m->use_count++] = (int32_t)i;
			}
		}
	}
	free(cnt);
	free(last);
	return 0;
fail:
	free(cnt);
	free(last);
	return -1;
}

/*
 * docs/format.md "Classification", PyTorch 2.6's min_cut_rematerialization_partition:
 * dead-code elimination first (live: an output or an input of a live op; placeholders
 * stay), then classify_nodes on what is left. Backward is closed under users here,
 * where PyTorch adds the backward outputs after propagating from the tangents: an op
 * using a backward output can only run after it, in the backward, in both readings
 * (torch's min-cut puts that output's node_in on the sink side, so nothing downstream
 * of it can be cut). The closure gives the invariants every module relies on: the
 * inputs of a live node are live, and the inputs of a forward or unclaimed node are
 * forward or unclaimed.
 */
static int
classify(ilp_graph *g, ilp_error *err)
{
	uint8_t *fw = calloc(g->n, 1), *live = calloc(g->n, 1);
	int rc = -1;

	if (fw == NULL || live == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	for (size_t i = 0; i < g->n; i++)
		g->node[i].flags &= (uint16_t)~(ILPI_F_BOUNDARY | ILPI_F_FW_OUTPUT |
		    ILPI_F_BW_OUTPUT);
	for (size_t i = 0; i < g->n_fw_out; i++) {
		fw[g->fw_out[i]] = live[g->fw_out[i]] = 1;
		g->node[g->fw_out[i]].flags |= ILPI_F_FW_OUTPUT;
	}
	for (size_t i = 0; i < g->n_bw_out; i++)
		if (g->bw_out[i] != ILPI_NONE) {
			live[g->bw_out[i]] = 1;
			g->node[g->bw_out[i]].flags |= ILPI_F_BW_OUTPUT;
		}
	/* Live and forward: ancestors of the outputs and of the forward outputs. */
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];

		for (uint32_t k = 0; k < n->in_count; k++) {
			int32_t v = g->in[n->in_begin + k];

			fw[v] |= fw[i];
			live[v] |= live[i];
		}
	}
	/* Classes in graph order: inputs are classified before their users. */
	for (size_t i = 0; i < g->n; i++) {
		ilpi_node *n = &g->node[i];
		int on_bw = 0;

		for (uint32_t k = 0; k < n->in_count; k++)
			on_bw |= g->node[g->in[n->in_begin + k]].cls == ILPI_BACKWARD;
		if (n->kind == ILPI_PRIMAL)
			n->cls = ILPI_FORWARD; /* placeholders are always part of the forward */
		else if (n->kind == ILPI_TANGENT)
			n->cls = ILPI_BACKWARD;
		else if (!live[i])
			n->cls = ILPI_DEAD;
		else if (on_bw || (!fw[i] && (n->flags & ILPI_F_BW_OUTPUT)))
			n->cls = ILPI_BACKWARD; /* PyTorch's required_bw_nodes */
		else
			n->cls = fw[i] ? ILPI_FORWARD : ILPI_UNCLAIMED;
	}
	/* Only a tangent can make an ancestor of a forward output backward (a backward
	 * output the forward needs is forward); name the last such node. */
	for (size_t i = g->n; i-- > 0;)
		if (fw[i] && g->node[i].cls == ILPI_BACKWARD) {
			ilpi_err(err, ILP_ERR_INPUT,
			    "%s: node '%s': field 'outputs.forward': a forward output depends on a "
			    "tangent", g->path, g->node[i].name);
			goto out;
		}
	/* Boundary: non-backward values the backward uses (and those returned as grads). */
	for (size_t i = 0; i < g->n; i++) {
		ilpi_node *n = &g->node[i];

		if (n->cls == ILPI_BACKWARD) {
			for (uint32_t k = 0; k < n->in_count; k++) {
				ilpi_node *m = &g->node[g->in[n->in_begin + k]];

				if (m->cls != ILPI_BACKWARD)
					m->flags |= ILPI_F_BOUNDARY;
			}
		} else if (n->flags & ILPI_F_BW_OUTPUT) {
			n->flags |= ILPI_F_BOUNDARY;
		}
	}
	memset(g->counts, 0, sizeof g->counts);
	for (size_t i = 0; i < g->n; i++)
		g->counts[g->node[i].cls]++;
	rc = 0;
out:
	free(fw);
	free(live);
	return rc;
}

int
ilpi_graph_finish(ilp_graph *g, ilp_error *err)
{
	if (check_order(g, err) != 0)
		return -1;
	for (size_t i = 0; i < g->n; i++) {
		ilpi_node *n = &g->node[i];

		n->storage = n->view_of == ILPI_NONE ? (int32_t)i : g->node[n->view_of].storage;
	}
	if (build_users(g) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	if (classify(g, err) != 0)
		return -1;
	if (ilpi_graph_compute_fingerprint(g) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	return 0;
}
