/*
 * peak_cuts.h - exact peak rows at simulated peak points (internal; solver/peak/peak_cuts.c,
 * docs/solver.md "Peak memory"). Added lazily: at the backward step where a simulated
 * answer peaks, a row P >= the bytes live there, written over the s/r columns and a
 * few continuous columns that say where recomputation is placed, a lower bound for
 * every partition and exact at the simulated one.
 */
#ifndef ILPART_SOLVER_PEAK_CUTS_H
#define ILPART_SOLVER_PEAK_CUTS_H

#include "graph/memsim.h"
#include "solver/model/model.h"

typedef struct ilpi_peak_cuts ilpi_peak_cuts;

/* For model m (inside ilpi_glpk_run) and its peak column; *out owned by the caller,
 * released by ilpi_peak_cuts_free. -1 only when out of memory. */
int ilpi_peak_cuts_new(const ilp_graph *g, ilpi_model *m, int col_peak,
    ilpi_peak_cuts **out);
void ilpi_peak_cuts_free(ilpi_peak_cuts *pc);

/* 1 when the last point's row (fw: a forward step), at the item answer (s, r) it was
 * taken from, equals the bytes the simulation has live there; 0 when it falls short. *families_ok: every
 * c(X, theta) at that answer says what the simulation did. -1: out of memory. */
int ilpi_peak_cuts_exact(ilpi_peak_cuts *pc, const uint8_t *s, const uint8_t *r,
    const ilpi_memsim *ms, const ilpi_memtrace *tr, int fw, size_t at, int *families_ok);
/* Evaluates every column the rows use at the item answer (s, r); then
 * ilpi_peak_cuts_point_value(pc, k) is point k's row's bound in bytes there (a lower
 * bound of that answer's simulated peak, if the rows are right). -1: out of memory. */
int ilpi_peak_cuts_eval(ilpi_peak_cuts *pc, const uint8_t *s, const uint8_t *r);
double ilpi_peak_cuts_point_value(ilpi_peak_cuts *pc, int k);
/* Point k's op (graph index) for a backward step, -1 - op for a forward step. */
int32_t ilpi_peak_cuts_point_op(const ilpi_peak_cuts *pc, int k);
/* Point k's P row (model row number). */
int ilpi_peak_cuts_point_row(const ilpi_peak_cuts *pc, int k);
/* The largest bytes some general row's step has live in every partition (the
 * backward's own and held storage there): a lower bound of every partition's peak,
 * 0 before the first general row. */
double ilpi_peak_cuts_floor(const ilpi_peak_cuts *pc);
/* Points refused because the rows added reached their cap (a graph-sized row set a
 * point: see PEAK_CUT_ROWS_MAX in solver/peak/peak_rows.h). */
int ilpi_peak_cuts_refused(const ilpi_peak_cuts *pc);
/* Rows and columns added so far. */
void ilpi_peak_cuts_stats(const ilpi_peak_cuts *pc, int *rows, int *cols, int *points);

#endif /* ILPART_SOLVER_PEAK_CUTS_H */
