/*
 * memsim.h - the memory simulator of the split graphs (internal; graph/memsim.c).
 * Model: docs/partition.md "Peak memory". Independent of the solvers: it reads only
 * the graph, the partition and its lowering.
 */
#ifndef ILPART_GRAPH_MEMSIM_H
#define ILPART_GRAPH_MEMSIM_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/partition.h"

/* A simulation: both sides' execution orders and the bytes live while each step runs
 * (its inputs and its freshly allocated outputs). */
typedef struct ilpi_memsim {
	int32_t *fw_order;   /* forward ops as executed (graph order) */
	int64_t *fw_live;
	size_t n_fw;
	int32_t *bw_order;   /* backward ops as PyTorch 2.6 runs them (autograd order) */
	int64_t *bw_live;
	size_t n_bw;
	ilp_peak peak;
} ilpi_memsim;

/* Backward ops of `bw` in the order torch 2.6's reordering_to_mimic_autograd_engine
 * gives them: each backward op in graph order, preceded by the not yet placed ops it
 * needs (recomputation just before first use). `order` has room for bw->n_op. */
int ilpi_autograd_order(const ilp_graph *g, const ilpi_side *bw, int32_t *order);

/* Simulates an already lowered (so checked) partition; *m is caller-owned, its arrays
 * released by ilpi_memsim_free. -1 only when out of memory. */
int ilpi_memsim_run(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilp_error *err);
void ilpi_memsim_free(ilpi_memsim *m);

#endif /* ILPART_GRAPH_MEMSIM_H */
