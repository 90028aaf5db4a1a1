/*
 * fingerprint.h - canonical fingerprints and node order of a joint graph (internal;
 * graph/fingerprint.c), and matching two graphs with one fingerprint (graph/remap.c).
 */
#ifndef ILPART_GRAPH_FINGERPRINT_H
#define ILPART_GRAPH_FINGERPRINT_H

#include <stdint.h>

#include "graph/graph.h"

/* Computes g->fingerprint (called by ilpi_graph_finish); -1 when out of memory. */
int ilpi_graph_compute_fingerprint(ilp_graph *g);
/* order[k] = the node at canonical position k (g->n entries): nodes sorted by their
 * refined colours, ties broken by individualisation. Depends on the tags as they are
 * now. -1 when out of memory. */
int ilpi_graph_canonical_order(const ilp_graph *g, int32_t *order);
/* map[i] = the node of `to` that corresponds to node i of `from` (from->n entries),
 * proven: same labels, same inputs in the same order, same views and outputs. -1 with
 * ILP_ERR_INPUT when the graphs are not the same up to names and order. */
int ilpi_graph_match(const ilp_graph *from, const ilp_graph *to, int32_t *map,
    ilp_error *err);

#endif /* ILPART_GRAPH_FINGERPRINT_H */
