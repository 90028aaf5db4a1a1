/*
 * reduce.h - the graph as the ILP sees it (internal): candidates, fixed variables and
 * contracted chains. docs/solver.md proves each reduction safe.
 *
 * An item is a chain of candidate nodes that provably share one recompute decision;
 * its `rep` (the last node of the chain) is the value saving the item saves.
 */
#ifndef ILPART_SOLVER_REDUCE_H
#define ILPART_SOLVER_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "policies/rules.h"

typedef struct ilpi_item {
	int32_t rep;              /* node whose value saving the item saves */
	uint32_t mem_begin, mem_count; /* into red->member, ascending node order */
	uint32_t in_begin, in_count;   /* into red->in: distinct input items, ascending */
	int32_t stor;             /* storage class (dense) when can_save, else -1 */
	uint8_t can_save, can_recompute, boundary;
	uint8_t prefer;           /* ILPI_R_PREFER_* of rep (soft mode only) */
	double cost;              /* recompute cost of the chain (us), FORWARD members */
	int64_t rng_bytes;        /* saved bytes recomputing it adds: the RNG states of its
	                           * random members (graph RNG not functionalized) */
} ilpi_item;

typedef struct ilpi_reduced {
	size_t n_items;
	ilpi_item *item;          /* in topological order */
	int32_t *in;
	int32_t *member;
	int32_t *item_of;         /* per graph node: its item, or -1 */
	uint8_t *cand;            /* per graph node: 1 when a candidate */
	uint8_t *boundary;        /* per graph node: 1 when a boundary value the solver owns */
	size_t n_stor;
	int64_t *stor_bytes;      /* per storage class: bytes of its root as charged
	                           * (ilpi_charged_bytes: 0 for a parameter's) */
	int32_t *stor_root;       /* per storage class: graph node of its root */
	int32_t *stor_items;      /* per storage class: saveable items sharing it */
	/* statistics for the log */
	size_t n_candidates, n_boundary, n_contracted, n_view_fixed, n_dropped;
} ilpi_reduced;

/*
 * Builds the reduced problem from the graph and its rules. cost_us holds every node's
 * recompute cost (0 for nodes whose recompute is free). flags: ILPI_REDUCE_SOFT, PREFER
 * bits are objective penalties, so nodes carrying them are never fixed or contracted;
 * ILPI_REDUCE_PEAK, the simulated peak matters (peak objective or budget), so a
 * chain is contracted only where saving its head is dominated in the peak too (a
 * primal's storage costs nothing there). Returns -1 with
 * ILP_ERR_CONFLICT when the rules leave some boundary value neither savable nor
 * recomputable. red is caller-owned; release with ilpi_reduced_free (also on failure).
 */
enum { ILPI_REDUCE_SOFT = 1, ILPI_REDUCE_PEAK = 2 };

int ilpi_reduce(const ilp_graph *g, const ilpi_rules *r, const double *cost_us, int flags,
    ilpi_reduced *red, ilp_error *err);
void ilpi_reduced_free(ilpi_reduced *red);

#endif /* ILPART_SOLVER_REDUCE_H */
