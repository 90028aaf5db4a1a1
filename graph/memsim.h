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

/* What the backward side did with each value (for solver/peak/peak_cuts.c): per graph node
 * its step of production, last step needed (INT32_MAX: held to the end) and storage
 * key (root for a backward input, g->n + op for fresh storage); INT32_MIN when absent.
 * root[k]: the op whose turn placed backward step k (ilpi_autograd_batches). */
typedef struct ilpi_memtrace {
	int32_t *root;
	int32_t *prod, *die, *key;
	int32_t *fprod, *fdie, *fkey;   /* the same for the forward side */
} ilpi_memtrace;

/* Backward ops of `bw` in the order torch 2.6's reordering_to_mimic_autograd_engine
 * gives them: each backward op in graph order, preceded by the not yet placed ops it
 * needs (recomputation just before first use). `order` has room for bw->n_op. */
int ilpi_autograd_order(const ilp_graph *g, const ilpi_side *bw, int32_t *order);
/* The same, and root[k] (room for bw->n_op, or NULL): the graph index of the op whose
 * turn placed step k (g->n + j for the j-th gradient's turn; 0 for every step when
 * torch keeps graph order). Steps placed at one turn run in graph order. */
int ilpi_autograd_batches(const ilp_graph *g, const ilpi_side *bw, int32_t *order,
    int32_t *root);

/* Simulates an already lowered (so checked) partition; *m is caller-owned, its arrays
 * released by ilpi_memsim_free. -1 only when out of memory. */
int ilpi_memsim_run(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilp_error *err);
void ilpi_memsim_free(ilpi_memsim *m);
/* ilpi_memsim_run, and the backward's trace in *tr (allocated here, released by
 * ilpi_memtrace_free, also on failure). */
int ilpi_memsim_trace(const ilp_graph *g, const ilpi_split *s, ilpi_memsim *m,
    ilpi_memtrace *tr, ilp_error *err);
void ilpi_memtrace_free(ilpi_memtrace *tr);

#endif /* ILPART_GRAPH_MEMSIM_H */
