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

/* One offloaded value's transfers (docs/partition.md "Offload"), steps as in
 * ilpi_memsim: the copy out starts after forward step fw_last and has completed by the
 * start of forward step fw_gone (n_fw: not within the forward, which waits for it); the
 * copy back starts at backward step bw_back, in time for bw_use (its first backward
 * use; n_bw: none). Times in microseconds on the partition's device. */
typedef struct ilpi_xfer {
	int32_t node;
	int64_t bytes;
	int32_t fw_last, fw_gone, bw_back, bw_use;
	double xfer_us;                    /* bytes / host-link bandwidth */
	double exposed_fw_us, exposed_bw_us; /* what the compute could not hide */
} ilpi_xfer;

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
	ilpi_xfer *xfer;      /* the offloaded values, graph order (none: NULL) */
	size_t n_xfer;
} ilpi_memsim;

/* What the backward side did with each value (for solver/peak/peak_cuts.c): per graph node
 * its step of production, last step needed (INT32_MAX: held to the end) and storage
 * key (root for a backward input, g->n + op for fresh storage); INT32_MIN when absent.
 * root[k]: the op whose turn placed backward step k (ilpi_autograd_batches). */
typedef struct ilpi_memtrace {
	int32_t *root;
	int32_t *prod, *die, *key;
	int32_t *fprod, *fdie, *fkey;   /* the same for the forward side */
	int32_t *outputs;   /* storage roots of the forward's user outputs that no saved
	                     * value shares: the caller holds them through the backward */
	size_t n_outputs;
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
/* The same with p's offloaded values' transfers (m->xfer; the trace itself does not
 * depend on them: an offloaded value's steps are its saved value's). */
int ilpi_memsim_trace_part(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilpi_memtrace *tr, ilp_error *err);
void ilpi_memtrace_free(ilpi_memtrace *tr);

/* ---- the memory timeline (`ilpart timeline`, docs/partition.md "Memory timeline") ---- */

/* What a storage live at a step is to the run. */
typedef enum ilpi_live_how {
	ILPI_LIVE_COMPUTED,    /* made on this side: a forward op, or a backward op */
	ILPI_LIVE_SAVED,       /* saved by the forward for the backward */
	ILPI_LIVE_RECOMPUTED,  /* a forward value recomputed in the backward */
	ILPI_LIVE_OUTPUT,      /* a forward output the caller holds through the backward */
	ILPI_LIVE_WORKSPACE    /* the running op's workspace (the node "workspace" field) */
} ilpi_live_how;

typedef struct ilpi_live_value {
	int32_t node;          /* the op whose storage it is (graph index) */
	int64_t bytes;
	ilpi_live_how how;
} ilpi_live_value;

/* Every step of a partition's run, exactly as the simulator counts it: the forward's ops,
 * then the backward's start (the saved values and the held outputs before its first op;
 * node -1), then the backward's ops in autograd order. live[k]: the bytes live while step
 * k runs. The maximum of live is the simulated peak (peak.peak_bytes, ilp_partition_peak),
 * first reached at peak_step; at_peak: the storage live there, largest first (ties in
 * graph order), whose bytes sum to the peak. */
typedef struct ilpi_timeline {
	size_t n_fw, n_bw;     /* n_steps = n_fw + 1 + n_bw */
	size_t n_steps;
	int32_t *node;         /* per step: the op that runs (graph index), -1 at the start */
	int64_t *live;
	size_t peak_step;
	ilp_peak peak;         /* what ilp_partition_peak gives for the same partition */
	ilpi_live_value *at_peak;
	size_t n_at_peak;
} ilpi_timeline;

/* The timeline of any executable partition (tags do not matter to memory, as for
 * ilp_partition_peak). Ownership: *tl is the caller's struct; its arrays are allocated
 * here and released by ilpi_timeline_free, which is also safe after a failure and on a
 * zeroed struct. -1: p is not executable (ILP_ERR_VIOLATION, the node named) or out of
 * memory. Prints nothing. */
int ilpi_memsim_timeline(const ilp_graph *g, const ilp_partition *p, ilpi_timeline *tl,
    ilp_error *err);
void ilpi_timeline_free(ilpi_timeline *tl);

#endif /* ILPART_GRAPH_MEMSIM_H */
