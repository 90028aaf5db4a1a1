/*
 * model.h - the ILP over a reduced graph, in GLPK (internal). docs/solver.md states
 * the model. Every function that touches GLPK must run inside ilpi_glpk_run().
 *
 * Columns per item I: s_I (saved) when I can be saved, r_I (executed in the backward)
 * when it can be recomputed; y_k per storage class k that two or more items share.
 * Rows: s_I + r_I = 1 (boundary) or <= 1; r_I <= s_J + r_J per input item J;
 * s_I <= y_k; and up to two limit rows (budget, lexicographic level).
 */
#ifndef ILPART_SOLVER_MODEL_H
#define ILPART_SOLVER_MODEL_H

#include <stdint.h>

#include "solver/model/reduce.h"

struct glp_prob;

typedef struct ilpi_model {
	struct glp_prob *lp;
	const ilpi_reduced *red;
	const char *path;         /* the graph's file, for error messages */
	int *col_s, *col_r;       /* per item; 0 when the variable is fixed at 0 */
	int *col_y;               /* per storage class; 0 when one item owns the class */
	int *col_o;               /* per item: offloaded (ilpi_model_add_offload), else 0 */
	double *off_us;           /* per item: the transfer time an offload exposes */
	uint8_t *off_forced;      /* per item: offloaded whenever saved */
	uint8_t *off_kind;        /* per item: 0 no o column, 1 o <= s, 2 o = s (the blocks'
	                           * fronts' ilpi_blocks_extra.off_kind) */
	double *off_xfer;         /* per item with col_o: one copy's time, bytes / host
	                           * link (us); the peak rows' transfer windows */
	double *node_us;          /* per graph node (n_nodes): its time on the device (us),
	                           * 0 for what never runs; the peak rows' windows */
	size_t n_nodes;
	int *col_d;               /* per item with col_o: d_I = s_I - o_I, the value kept
	                           * on the device (the peak rows add it), else 0 */
	int n_cols;
	double byte_unit;         /* bytes per model byte (gcd of the storage sizes) */
	int row_limit[2];         /* ILPI_LIMIT_* rows, 0 until first used */
	/* Scratch of n_cols + 1 entries each, owned here (not by a solve) so that a GLPK
	 * error longjmp out of ilpi_model_solve leaks nothing: ilpi_model_free frees it. */
	double *coef;
	int *ind;
	double *warm;             /* start solution's column values; warm[0] < 0: none */
	size_t cap_warm;          /* entries of warm: every column of lp, also those added
	                           * after the build (the peak rows'), plus one */
	char *fixed;              /* columns fixed by reduced cost in this solve */
	int *cut_ind;             /* budget cuts */
	double *cut_a, *cut_x, *cut_v;
	uint8_t *seen;            /* per storage class, for ilpi_model_value */
} ilpi_model;

/* A linear expression over the model: bytes * saved bytes + cost * recompute cost (us)
 * + per-item penalties on s and r (NULL: none). Bytes are in real bytes. */
typedef struct ilpi_terms {
	double bytes, cost;
	const double *pen_s, *pen_r;
} ilpi_terms;

enum { ILPI_LIMIT_BUDGET = 0, ILPI_LIMIT_LEVEL = 1 };

/* Solver controls and results for one MIP solve. */
typedef struct ilpi_mip {
	const char *what;         /* the stage being solved, for error messages; or NULL */
	double time_limit;        /* seconds, <= 0: none */
	double gap;               /* relative gap to stop at */
	int verbose;
	const uint8_t *warm_s, *warm_r; /* a feasible item solution to start from, or NULL */
	/* Branching: on the branchable column j (1..n_weight) with the largest
	 * weight[j] * distance to the nearest integer (ties: the first), when the root LP
	 * relaxation's objective is at least weight_from; else (or NULL) GLPK's rule */
	const double *weight;
	int n_weight;
	double weight_from;
	/* GLPK's MIP presolver (only without warm_s; the weights and the budget row's
	 * cuts name the model's own columns, so neither is used with it): on the
	 * least-peak loop's models its coefficient reduction closes what branching alone
	 * did not (docs/solver.md "Peak memory"). Left off when the root LP took more
	 * than a third of the time left: the presolved model's LP has no clock check. */
	int presolve;
	/* GLPK's Gomory mixed-integer cuts and hybrid pseudo-cost branching: the least
	 * recompute at a proven peak, whose LP half-saves storages that share their
	 * views' bytes (the bound stays at the root LP's under GLPK's defaults: 50 % on
	 * SwitchTransformers' 413-node layer after minutes; with them proven in 6 s). */
	int gomory;
	/* The s and r columns' objective costs only break ties (the least-peak loop's):
	 * when the root LP is at least tie_from (the solve ends with the proof or with
	 * one answer just below the best) they are set to 0 for the rest of this solve
	 * (the caller sets the objective again before the next). On the 12-layer
	 * transformer's first loop solve they made GLPK's proof 5-7x slower; on gpt-4l's
	 * last one (no answer left) it closed in 1 s without them and not in 50 s with. */
	int tie_drop;
	double tie_from;
	int tie_dropped;          /* result: they were dropped in this solve */
	/* With cutoff_on: every answer the caller wants has an objective below cutoff, so
	 * once the search's bound reaches it without an answer the solve ends with status
	 * GLP_NOFEAS (GLPK prunes by bound only against an incumbent; without one a node
	 * whose relaxation is over the peak column's bound by less than its tolerances
	 * stays open: the 12-layer transformer's first loop solve had its bound 14 KB past
	 * that column's bound and 49 nodes open when its time ran out). */
	int cutoff_on;
	double cutoff;
	/* results */
	int status;               /* GLP_OPT, GLP_FEAS, GLP_NOFEAS or GLP_UNDEF */
	int timed_out;
	double obj;               /* objective of the incumbent */
	double bound;             /* best proven bound (also when the search stopped
	                           * without an incumbent; -DBL_MAX when none) */
	double gap_out;           /* proven relative gap, 0 when optimal */
	uint8_t *s, *r;           /* per item, caller-allocated: the incumbent */
} ilpi_mip;

int ilpi_model_build(const ilp_graph *g, const ilpi_reduced *red, ilpi_model *m,
    ilp_error *err);
/*
 * Offload columns (docs/solver.md "Offload"): per item with kind[it] != 0 a column o_I
 * <= s_I (kind 2: o_I = s_I, the value is offloaded whenever saved). An offloaded item's
 * storage leaves the byte terms of every expression (the device's saved bytes) and
 * exposed_us[it] joins its cost terms. In item answers, s[it] == 2 means saved and
 * offloaded. kind, exposed_us and xfer_us (one copy's time) are per item, node_us (each
 * node's time on the device) per graph node; all copied for the peak rows' transfer
 * windows. -1 when out of memory.
 */
int ilpi_model_add_offload(ilpi_model *m, const uint8_t *kind, const double *exposed_us,
    const double *xfer_us, const double *node_us, size_t n_nodes, ilp_error *err);
/* Is item `it` offloaded in the item answer s (s[it] == 2, or saved and forced)? */
static inline int
ilpi_model_offloaded(const ilpi_model *m, const uint8_t *s, size_t it)
{
	return m->col_o != NULL && m->col_o[it] && s[it] &&
	    (s[it] == 2 || m->off_forced[it]);
}
/* glpk_freed: GLPK's environment was freed after an error, so lp is already gone. */
void ilpi_model_free(ilpi_model *m, int glpk_freed);
void ilpi_model_set_objective(ilpi_model *m, const ilpi_terms *t);
/* Row `which`: expression <= ub; ub < 0 switches the row off. */
void ilpi_model_set_limit(ilpi_model *m, int which, const ilpi_terms *t, double ub);
/* Value of the expression on an item solution. Cannot fail: its scratch is the
 * model's, allocated by ilpi_model_build (whose out-of-memory is ILP_ERR_SYSTEM). */
double ilpi_model_value(ilpi_model *m, const ilpi_terms *t, const uint8_t *s,
    const uint8_t *r);
int ilpi_model_solve(ilpi_model *m, ilpi_mip *mip, ilp_error *err);

#endif /* ILPART_SOLVER_MODEL_H */
