/* bans.c - PyTorch 2.6's should_ban_recomputation, one copy (bans.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policies/bans.h"
#include "policies/rules.h"

void
ilpi_ban_config_init(ilpi_ban_config *c)
{
	memset(c, 0, sizeof *c);
	c->not_in_allowlist = 1;
	c->materialized_backward = 1;
	c->reductions = 1;
	c->recompute_views = 0;
	c->max_dist_from_bw = 1000;
}

int
ilpi_ban_ctx_init(ilpi_ban_ctx *ctx, const ilp_graph *g, const unsigned *opc,
    const ilpi_ban_config *c, const int64_t *dist)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->g = g;
	ctx->opc = opc;
	ctx->c = c;
	ctx->dist = dist;
	ctx->stack = malloc((g->n + 1) * sizeof *ctx->stack);
	ctx->stamp = calloc(g->n + 1, sizeof *ctx->stamp);
	if (ctx->stack == NULL || ctx->stamp == NULL) {
		ilpi_ban_ctx_free(ctx);
		return -1;
	}
	return 0;
}

void
ilpi_ban_ctx_free(ilpi_ban_ctx *ctx)
{
	free(ctx->stack);
	free(ctx->stamp);
	ctx->stack = NULL;
	ctx->stamp = NULL;
}

int
ilpi_fusible(const unsigned *opc, size_t a, size_t b)
{
	const unsigned f = ILPI_OPC_RECOMPUTABLE | ILPI_OPC_RANDOM;

	return (opc[b] & ILPI_OPC_CAT) || ((opc[a] & f) && (opc[b] & f));
}

double
ilpi_size_of(const ilp_graph *g, size_t i)
{
	const ilpi_node *n = &g->node[i];
	const int32_t *use = ilpi_users(g, n);
	double sum = 0;

	if (n->flags & ILPI_F_SYM)
		return 1; /* a SymInt, SymBool or SymFloat: 1 (py_sym_types) */
	if (!(n->flags & ILPI_F_TUPLE))
		return (double)n->bytes;
	for (uint32_t k = 0; k < n->use_count; k++) {
		const ilpi_node *u = &g->node[use[k]];

		if ((u->flags & ILPI_F_GETITEM) && ilpi_live(u))
			sum += (double)u->bytes;
	}
	/* The exporter's bytes_written counts the tensors no getitem projects too, but
	 * is 0 for a tuple of views (split, unbind), which write nothing. */
	return n->bytes_written > sum ? n->bytes_written : sum;
}

static int
output_user(const ilpi_node *n)
{
	return (n->flags & (ILPI_F_FW_OUTPUT | ILPI_F_BW_OUTPUT)) != 0;
}

int
ilpi_materialized_backwards(ilpi_ban_ctx *ctx, size_t node)
{
	const ilp_graph *g = ctx->g;
	size_t top = 0;

	if (ctx->opc[node] & ILPI_OPC_VIEW)
		return 0;
	ctx->cur++;
	ctx->stack[top++] = (int32_t)node;
	ctx->stamp[node] = ctx->cur;
	while (top > 0) {
		size_t c = (size_t)ctx->stack[--top];
		const ilpi_node *n = &g->node[c];
		const int32_t *use = ilpi_users(g, n);

		if (output_user(n))
			return 1;
		for (uint32_t k = 0; k < n->use_count; k++) {
			size_t u = (size_t)use[k];

			if (!ilpi_live(&g->node[u]))
				continue;
			if (g->node[u].cls != ILPI_FORWARD && !ilpi_fusible(ctx->opc, c, u))
				return 1;
			if ((ctx->opc[u] & ILPI_OPC_VIEW) && ctx->stamp[u] != ctx->cur) {
				ctx->stamp[u] = ctx->cur;
				ctx->stack[top++] = (int32_t)u;
			}
		}
	}
	return 0;
}

ilpi_ban
ilpi_should_ban(ilpi_ban_ctx *ctx, size_t i)
{
	const ilp_graph *g = ctx->g;
	const ilpi_node *n = &g->node[i];
	const int32_t *in = ilpi_inputs(g, n);
	const unsigned opc = ctx->opc[i];
	double insum = 0;

	if (n->kind != ILPI_OP || n->target == NULL || (n->flags & ILPI_F_GETITEM))
		return ILPI_BAN_NONE;
	/* A lifted constant (fx get_attr): torch's should_ban_recomputation passes over all
	 * but call_function nodes, and its partitioner copies the constant into whichever
	 * graph uses it. */
	if (strcmp(n->target, "get_attr") == 0)
		return ILPI_BAN_NONE;
	if (ctx->c->recompute_views && (opc & ILPI_OPC_VIEW))
		return ILPI_BAN_NONE;
	if (opc & ILPI_OPC_LIFT)
		return ILPI_BAN_NONE;
	if (ctx->c->not_in_allowlist) {
		if (!(opc & ILPI_OPC_RECOMPUTABLE))
			return ILPI_BAN_NOT_IN_ALLOWLIST;
	} else {
		if (opc & ILPI_OPC_RANDOM)
			return ILPI_BAN_RANDOM;
		if (opc & ILPI_OPC_COMPUTE)
			return ILPI_BAN_COMPUTE_INTENSIVE;
	}
	if (ctx->c->materialized_backward && ilpi_materialized_backwards(ctx, i))
		return ILPI_BAN_MATERIALIZED_BACKWARD;
	if (ctx->dist != NULL && ctx->dist[i] < 1000 && ctx->dist[i] > ctx->c->max_dist_from_bw)
		return ILPI_BAN_DIST_FROM_BW;
	if (ctx->c->reductions) {
		/* torch sums the sizes of node.args that are fx.Nodes: not the tensors in a
		 * list argument (aten.index.Tensor's indices), nor keyword arguments */
		for (uint32_t k = 0; k < n->in_count; k++)
			if (!ilpi_input_nested(g, n, k))
				insum += ilpi_size_of(g, (size_t)in[k]);
		return ilpi_size_of(g, i) * 4 < insum ? ILPI_BAN_REDUCTION : ILPI_BAN_NONE;
	}
	return ILPI_BAN_NONE;
}
