/*
 * lower.h - lowering a checked partition to a forward and a backward graph
 * (internal; graph/lower.c builds the split, graph/render.c prints it).
 */
#ifndef ILPART_GRAPH_LOWER_H
#define ILPART_GRAPH_LOWER_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "graph/partition.h"

/* One side of the split: node indices into the joint graph. */
typedef struct ilpi_side {
	int32_t *in;          /* placeholders, in order */
	size_t n_in;
	int32_t *op;          /* operations, topological (graph order) */
	size_t n_op;
	int32_t *out;         /* outputs; ILPI_NONE for a None gradient */
	size_t n_out;
} ilpi_side;

/*
 * Forward: inputs the primals; ops every node needed by the forward outputs and the
 * saved values; outputs the forward outputs, then the saved values (graph order).
 * Backward: inputs the saved values, then the tangents; ops the recomputed and backward
 * ops the gradients need (dead code removed); outputs the gradients.
 */
typedef struct ilpi_split {
	ilpi_side fw, bw;
	size_t n_saved;       /* the last n_saved fw outputs == the first n_saved bw inputs */
} ilpi_split;

/* Checks `p` with ilp_check (prefer mode from p->prefer, "hard" when unset) and fills
 * *s (caller-owned struct, arrays released by ilpi_split_free). A partition that fails
 * the check is refused with ILP_ERR_VIOLATION. */
int ilpi_lower(const ilp_graph *g, const ilp_partition *p, ilpi_split *s, ilp_error *err);
/* The same without the checker: the split of any partition, executable or not (the
 * memory simulator checks executability itself, tags do not matter to it). */
int ilpi_lower_unchecked(const ilp_graph *g, const ilp_partition *p, ilpi_split *s,
    ilp_error *err);
void ilpi_split_free(ilpi_split *s);
/* ilp_split_render of an already lowered (so already checked) partition: several
 * formats from one lowering. */
int ilpi_split_render_lowered(const ilp_graph *g, const ilp_partition *p,
    const ilpi_split *s, ilp_split_format fmt, char **out, ilp_error *err);

/* need[v] (n + 1 bytes) = 1 when the backward's outputs need value v through backward
 * ops whatever the partition (the backward's own liveness: the peak rows and cuts). */
void ilpi_backward_needed(const ilp_graph *g, uint8_t *need);

#endif /* ILPART_GRAPH_LOWER_H */
