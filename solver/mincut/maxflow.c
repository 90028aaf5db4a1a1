/*
 * maxflow.c - Dinic's maximum flow on flat arrays (see maxflow.h).
 *
 * Edges are collected first; ilpi_flow_solve then lays the arcs out in CSR order
 * (a counting sort by tail, stable in the order of the ilpi_flow_add calls, so the
 * result never depends on memory layout). Arc 2k is edge k, arc 2k+1 its reverse.
 * The blocking-flow search is iterative: paths may be as long as the network.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"
#include "solver/mincut/maxflow.h"

struct ilpi_flow {
	size_t n;
	size_t m, cap_m;      /* edges */
	int32_t *eu, *ev;
	double *ecap;

	/* built by solve */
	int solved;
	uint32_t *start;      /* n + 1 */
	uint32_t *adj;        /* 2m arc ids, grouped by tail */
	double *res;          /* residual capacity per arc */
	int32_t *level;
	uint32_t *it;
	int32_t *queue;
	int32_t *parent_arc;  /* BFS tree, for the infinite path report */
	int32_t s, t;
};

static inline int32_t
arc_head(const ilpi_flow *f, uint32_t a)
{
	return (a & 1) ? f->eu[a >> 1] : f->ev[a >> 1];
}

static inline int32_t
arc_tail(const ilpi_flow *f, uint32_t a)
{
	return arc_head(f, a ^ 1u);
}

ilpi_flow *
ilpi_flow_new(size_t n)
{
	ilpi_flow *f = calloc(1, sizeof *f);

	if (f == NULL)
		return NULL;
	f->n = n;
	f->s = f->t = -1;
	return f;
}

void
ilpi_flow_free(ilpi_flow *f)
{
	if (f == NULL)
		return;
	free(f->eu);
	free(f->ev);
	free(f->ecap);
	free(f->start);
	free(f->adj);
	free(f->res);
	free(f->level);
	free(f->it);
	free(f->queue);
	free(f->parent_arc);
	free(f);
}

long
ilpi_flow_add(ilpi_flow *f, int32_t u, int32_t v, double cap)
{
	if (f->solved || u < 0 || v < 0 || (size_t)u >= f->n || (size_t)v >= f->n ||
	    !(cap >= 0))
		return -1;
	if (f->m == f->cap_m) {
		/* three parallel arrays, one capacity: each grows from the same cap_m */
		size_t cu = f->cap_m, cv = f->cap_m, cc = f->cap_m;

		if (ILPI_GROW(f->eu, cu, f->m, 1) != 0 || ILPI_GROW(f->ev, cv, f->m, 1) != 0 ||
		    ILPI_GROW(f->ecap, cc, f->m, 1) != 0)
			return -1;
		f->cap_m = cu < cc ? cu : cc;
	}
	f->eu[f->m] = u;
	f->ev[f->m] = v;
	f->ecap[f->m] = cap;
	return (long)f->m++;
}

static int
build(ilpi_flow *f)
{
	size_t n = f->n, arcs = 2 * f->m;

	f->start = calloc(n + 2, sizeof *f->start);
	f->adj = malloc((arcs + 1) * sizeof *f->adj);
	f->res = malloc((arcs + 1) * sizeof *f->res);
	f->level = malloc((n + 1) * sizeof *f->level);
	f->it = malloc((n + 1) * sizeof *f->it);
	f->queue = malloc((n + 1) * sizeof *f->queue);
	f->parent_arc = malloc((n + 1) * sizeof *f->parent_arc);
	if (f->start == NULL || f->adj == NULL || f->res == NULL || f->level == NULL ||
	    f->it == NULL || f->queue == NULL || f->parent_arc == NULL)
		return -1;
	for (uint32_t a = 0; a < arcs; a++)
		f->start[arc_tail(f, a) + 1]++;
	for (size_t v = 0; v < n; v++)
		f->start[v + 1] += f->start[v];
	memcpy(f->it, f->start, n * sizeof *f->it);
	for (uint32_t a = 0; a < arcs; a++)
		f->adj[f->it[arc_tail(f, a)]++] = a;
	for (size_t k = 0; k < f->m; k++) {
		f->res[2 * k] = f->ecap[k];
		f->res[2 * k + 1] = 0;
	}
	return 0;
}

/* BFS from s over arcs with residual > 0 (or == INFINITY when inf_only). Fills
 * level[] (-1 unreached) and parent_arc[]; returns whether t was reached. */
static int
bfs(ilpi_flow *f, int inf_only)
{
	size_t head = 0, tail = 0;

	for (size_t v = 0; v < f->n; v++) {
		f->level[v] = -1;
		f->parent_arc[v] = -1;
	}
	f->level[f->s] = 0;
	f->queue[tail++] = f->s;
	while (head < tail) {
		int32_t v = f->queue[head++];

		for (uint32_t k = f->start[v]; k < f->start[v + 1]; k++) {
			uint32_t a = f->adj[k];
			int32_t w = arc_head(f, a);
			double r = f->res[a];

			if (f->level[w] >= 0 || !(inf_only ? isinf(r) : r > 0))
				continue;
			f->level[w] = f->level[v] + 1;
			f->parent_arc[w] = (int32_t)a;
			f->queue[tail++] = w;
		}
	}
	return f->level[f->t] >= 0;
}

/* One blocking flow on the level graph; returns the amount pushed. */
static double
blocking_flow(ilpi_flow *f)
{
	uint32_t *path = (uint32_t *)f->queue; /* BFS queue is free now; path < n arcs */
	size_t top = 0;
	int32_t v = f->s;
	double total = 0;

	memcpy(f->it, f->start, f->n * sizeof *f->it);
	for (;;) {
		if (v == f->t) {
			double b = INFINITY;
			size_t cut = 0;

			for (size_t k = 0; k < top; k++)
				if (f->res[path[k]] < b)
					b = f->res[path[k]];
			for (size_t k = 0; k < top; k++) {
				f->res[path[k]] -= b;
				f->res[path[k] ^ 1u] += b;
			}
			total += b;
			/* Retreat to the first arc that is now saturated. */
			while (cut < top && f->res[path[cut]] > 0)
				cut++;
			top = cut;
			v = top == 0 ? f->s : arc_head(f, path[top - 1]);
			continue;
		}
		while (f->it[v] < f->start[v + 1]) {
			uint32_t a = f->adj[f->it[v]];
			int32_t w = arc_head(f, a);

			if (f->res[a] > 0 && f->level[w] == f->level[v] + 1)
				break;
			f->it[v]++;
		}
		if (f->it[v] < f->start[v + 1]) {
			uint32_t a = f->adj[f->it[v]];

			path[top++] = a;
			v = arc_head(f, a);
			continue;
		}
		/* Dead end: no flow passes v in this phase. */
		f->level[v] = -1;
		if (top == 0)
			break;
		v = arc_tail(f, path[--top]);
		f->it[v]++;
	}
	return total;
}

int
ilpi_flow_solve(ilpi_flow *f, int32_t s, int32_t t, double *value)
{
	double total = 0;

	if (f->solved || s < 0 || t < 0 || (size_t)s >= f->n || (size_t)t >= f->n || s == t)
		return ILPI_FLOW_NOMEM;
	if (build(f) != 0)
		return ILPI_FLOW_NOMEM;
	f->solved = 1;
	f->s = s;
	f->t = t;
	if (bfs(f, 1))
		return ILPI_FLOW_UNBOUNDED;
	while (bfs(f, 0))
		total += blocking_flow(f);
	if (value != NULL)
		*value = total;
	return ILPI_FLOW_OK;
}

size_t
ilpi_flow_inf_path(const ilpi_flow *f, int32_t *path, size_t cap)
{
	size_t len = 0;

	if (!f->solved || f->level[f->t] < 0)
		return 0;
	len = (size_t)f->level[f->t] + 1;
	for (int32_t v = f->t, k = (int32_t)len - 1; k >= 0; k--) {
		if ((size_t)k < cap)
			path[k] = v;
		if (f->parent_arc[v] >= 0)
			v = arc_tail(f, (uint32_t)f->parent_arc[v]);
	}
	return len;
}

static int
residual_reach(const ilpi_flow *f, uint8_t *side, int32_t from, int reverse)
{
	int32_t *q = malloc((f->n + 1) * sizeof *q);
	size_t head = 0, tail = 0;

	if (q == NULL || !f->solved) {
		free(q);
		return -1;
	}
	memset(side, 0, f->n);
	side[from] = 1;
	q[tail++] = from;
	while (head < tail) {
		int32_t v = q[head++];

		for (uint32_t k = f->start[v]; k < f->start[v + 1]; k++) {
			uint32_t a = f->adj[k];
			int32_t w = arc_head(f, a);
			/* forward: v -> w has room; reverse: w -> v has room (arc a ^ 1) */
			double r = reverse ? f->res[a ^ 1u] : f->res[a];

			if (!side[w] && r > 0) {
				side[w] = 1;
				q[tail++] = w;
			}
		}
	}
	free(q);
	return 0;
}

int
ilpi_flow_sink_side(const ilpi_flow *f, uint8_t *side)
{
	return residual_reach(f, side, f->t, 1);
}

int
ilpi_flow_source_side(const ilpi_flow *f, uint8_t *side)
{
	return residual_reach(f, side, f->s, 0);
}

double
ilpi_flow_edge_flow(const ilpi_flow *f, long id)
{
	if (!f->solved || id < 0 || (size_t)id >= f->m)
		return 0;
	return f->res[2 * (size_t)id + 1];
}
