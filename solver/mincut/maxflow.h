/*
 * maxflow.h - maximum flow / minimum s-t cut on flat arrays (internal; Dinic's
 * algorithm, used by the min-cut heuristic of solver/mincut/mincut.c).
 *
 * Capacities are doubles; INFINITY is allowed and never saturates. Finite capacities
 * are expected to be integer-valued (byte counts), so sums stay exact below 2^53.
 * Usage: ilpi_flow_new, ilpi_flow_add (any number of times), ilpi_flow_solve, then
 * ilpi_flow_sink_side or ilpi_flow_source_side to read the cut; ilpi_flow_free.
 */
#ifndef ILPART_SOLVER_MAXFLOW_H
#define ILPART_SOLVER_MAXFLOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct ilpi_flow ilpi_flow;

/* A network of n vertices (0 .. n-1) and no edges; NULL when out of memory.
 * The caller owns it and releases it with ilpi_flow_free. */
ilpi_flow *ilpi_flow_new(size_t n);
void ilpi_flow_free(ilpi_flow *f);
/* Adds the directed edge u -> v with capacity cap >= 0 (INFINITY allowed). Returns
 * the edge's id (0, 1, 2, ... in the order of the calls) or -1 when out of memory.
 * Parallel edges are allowed and add up. Not allowed after ilpi_flow_solve. */
long ilpi_flow_add(ilpi_flow *f, int32_t u, int32_t v, double cap);

enum {
	ILPI_FLOW_OK = 0,
	ILPI_FLOW_NOMEM = -1,
	ILPI_FLOW_UNBOUNDED = -2 /* a path of infinite edges joins s to t */
};

/* Maximum flow from s to t; *value gets its value. Returns an ILPI_FLOW_* code.
 * On ILPI_FLOW_UNBOUNDED, ilpi_flow_inf_path gives one such path. */
int ilpi_flow_solve(ilpi_flow *f, int32_t s, int32_t t, double *value);
/* After ILPI_FLOW_UNBOUNDED: the vertices of an infinite s-t path, s first; returns
 * their count (at most cap entries are written). */
size_t ilpi_flow_inf_path(const ilpi_flow *f, int32_t *path, size_t cap);
/* After a successful solve: side[v] = 1 for the vertices that can still reach t in
 * the residual network (the sink side of the minimum cut closest to t, which is what
 * networkx.minimum_cut returns), 0 for the others. side has n entries. */
int ilpi_flow_sink_side(const ilpi_flow *f, uint8_t *side);
/* side[v] = 1 for the vertices reachable from s in the residual network (the source
 * side of the minimum cut closest to s). */
int ilpi_flow_source_side(const ilpi_flow *f, uint8_t *side);
/* Flow on edge `id` after a solve (0 for an id that does not exist). */
double ilpi_flow_edge_flow(const ilpi_flow *f, long id);

#endif /* ILPART_SOLVER_MAXFLOW_H */
