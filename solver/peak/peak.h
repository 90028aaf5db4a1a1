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
} ilpi_peak_rows;

/* Adds P and its rows to m (after ilpi_model_build, inside ilpi_glpk_run). P has
 * objective coefficient 0 and no upper bound; the caller sets both. */
int ilpi_peak_rows_add(const ilp_graph *g, ilpi_model *m, ilpi_peak_rows *pr,
    ilp_error *err);

/* Nonzeros the peak rows may hold before they go through running sums (the same LP;
 * solver/peak/peak.c). Only tests change it. */
extern size_t ilpi_peak_dense_nz;

#endif /* ILPART_SOLVER_PEAK_H */
