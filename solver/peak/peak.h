/*
 * peak.h - peak-memory rows for the ILP (internal; solver/peak/peak.c, docs/solver.md
 * "Peak memory"). A column P and rows P >= a lower bound of the memory live at the
 * steps where the peak can be, over the fixed order of the backward ops.
 */
#ifndef ILPART_SOLVER_PEAK_H
#define ILPART_SOLVER_PEAK_H

#include "solver/model/model.h"
#include "solver/model/reduce.h"

typedef struct ilpi_peak_rows {
	int col;            /* the column P (model bytes) */
	int n_rows;         /* rows added */
	int n_steps;        /* forward + backward steps the rows were chosen from */
	int n_sums;         /* running-sum columns the rows go through, 0: dense rows */
	/* per row added (n_rows): its model row and the op whose step it is at (graph
	 * index; -1 for a forward step), for the bound along the layers */
	int *row_no;
	int32_t *row_op;
} ilpi_peak_rows;

/* Nonzeros the peak rows may hold before they go through running sums (the same LP;
 * solver/peak/peak.c): a value saved early in a chain is live at every later step, so
 * n values give O(n^2) nonzeros (a chain of 10,000 ops: 11.5 GB). The 96-layer
 * transformer's rows are dense. */
#define ILPI_PEAK_DENSE_NZ ((size_t)4000000)

/* Adds P and its rows to m (after ilpi_model_build, inside ilpi_glpk_run): dense while
 * they hold at most dense_nz nonzeros (ILPI_PEAK_DENSE_NZ; tests give 0 to force the
 * running sums). P has objective coefficient 0 and no upper bound; the caller sets
 * both. */
int ilpi_peak_rows_add(const ilp_graph *g, ilpi_model *m, ilpi_peak_rows *pr,
    size_t dense_nz, ilp_error *err);

/* Releases pr's arrays (pr itself is the caller's); safe on a zeroed struct. */
void ilpi_peak_rows_free(ilpi_peak_rows *pr);

#endif /* ILPART_SOLVER_PEAK_H */
