/*
 * bans.h - PyTorch 2.6's should_ban_recomputation (internal): the one copy of torch's
 * recomputation bans, read by the ILP's rules (policies/rules.c, --bans pytorch) and by
 * min-cut (solver/mincut/mincut.c). docs/policies.md lists the rules.
 */
#ifndef ILPART_POLICIES_BANS_H
#define ILPART_POLICIES_BANS_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"

/* The torch._functorch.config switches should_ban_recomputation reads. */
typedef struct ilpi_ban_config {
	int not_in_allowlist;        /* ban_recompute_not_in_allowlist */
	int materialized_backward;   /* ban_recompute_materialized_backward */
	int reductions;              /* ban_recompute_reductions */
	int recompute_views;         /* recompute_views: views are never banned */
	long max_dist_from_bw;
} ilpi_ban_config;

/* Why torch bans recomputing an op. */
typedef enum ilpi_ban {
	ILPI_BAN_NONE = 0,
	ILPI_BAN_NOT_IN_ALLOWLIST,   /* allowlist mode: not a recomputable op */
	ILPI_BAN_RANDOM,             /* denylist mode: random op */
	ILPI_BAN_COMPUTE_INTENSIVE,  /* denylist mode: matmul, convolution, attention */
	ILPI_BAN_MATERIALIZED_BACKWARD,
	ILPI_BAN_DIST_FROM_BW,
	ILPI_BAN_REDUCTION           /* output 4x smaller than its inputs */
} ilpi_ban;

/* What the checks read: the graph, its op classes (ilpi_op_classes), the switches,
 * dist_from_bw per node (NULL: that check is off) and scratch of g->n entries. */
typedef struct ilpi_ban_ctx {
	const ilp_graph *g;
	const unsigned *opc;
	const ilpi_ban_config *c;
	const int64_t *dist;
	int32_t *stack;
	uint32_t *stamp;
	uint32_t cur;
} ilpi_ban_ctx;

/* torch 2.6's defaults. */
void ilpi_ban_config_init(ilpi_ban_config *c);
/* Scratch for ctx (stack and stamp of g->n + 1 entries); -1 when out of memory. Free
 * with ilpi_ban_ctx_free. */
int ilpi_ban_ctx_init(ilpi_ban_ctx *ctx, const ilp_graph *g, const unsigned *opc,
    const ilpi_ban_config *c, const int64_t *dist);
void ilpi_ban_ctx_free(ilpi_ban_ctx *ctx);

/* torch's is_fusible(a, b) for a real user b: memory fusion into cat, or both ops
 * recomputable or random. */
int ilpi_fusible(const unsigned *opc, size_t a, size_t b);
/* torch's _size_of: a value's bytes; a tuple's is the sum of its tensors (its live
 * getitems', or the exporter's bytes_written when larger: it counts the tensors no
 * getitem projects). */
double ilpi_size_of(const ilp_graph *g, size_t i);
/* torch's is_materialized_backwards: some live user outside the forward (looking
 * through views; the graph's output node counts) cannot fuse with it. */
int ilpi_materialized_backwards(ilpi_ban_ctx *ctx, size_t i);
/* should_ban_recomputation's op rules for a live forward op, after its tag checks
 * (MUST_SAVE and the like are the caller's): getitem and lift_fresh are never banned,
 * views not when recompute_views. */
ilpi_ban ilpi_should_ban(ilpi_ban_ctx *ctx, size_t i);

#endif /* ILPART_POLICIES_BANS_H */
