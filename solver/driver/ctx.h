/*
 * ctx.h - the solve context: everything one solve allocates and decides, shared by
 * the files of solver/driver/ (internal to that folder; docs/architecture.md).
 *
 * The driver's files by concern: solve.c (entry points, setup, teardown, the
 * objective dispatch), stage.c (one MIP solve of the model and what every objective
 * shares), obj_*.c (one objective each), decomp.c (the block decomposition's side),
 * peak_answers.c and peak_seeds.c (the peak search), answer.c (item answers to a
 * checked partition), budget.c (a budget fraction in bytes), pareto.c (ilp_pareto).
 * Functions shared between these files carry the prefix drv_.
 */
#ifndef ILPART_SOLVER_DRIVER_CTX_H
#define ILPART_SOLVER_DRIVER_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "policies/rules.h"
#include "solver/blocks/blocks.h"
#include "solver/model/model.h"
#include "solver/model/reduce.h"
#include "solver/peak/peak.h"
#include "solver/peak/peak_bw_rows.h"
#include "solver/peak/peak_cuts.h"
#include "solver/peak/peak_fw_rows.h"
#include "solver/peak/peak_general_rows.h"

/* Relative MIP gap of each least-peak solve (docs/solver.md "Peak memory"). */
#define PEAK_LOOP_GAP 0.02
/* General rows (solver/peak/peak_cuts.c) before the first solve: at the incumbent's local
 * maxima of at least this share of its peak, at most this many. */
#define PEAK_GENERAL_FRAC 0.95
#define PEAK_GENERAL_FIRST 16
/* The least-peak loop's tie-break costs: kept; dropped when the root LP is within the
 * loop's gap of the best; kept, the solve cut at c->peak_tie_slice seconds
 * (docs/solver.md "Search"). */
enum { PEAK_TIE_KEEP = 0, PEAK_TIE_DROP = 1, PEAK_TIE_SLICE = 2 };
#define PEAK_TIE_SLICE_MIN 4.0
#define PEAK_TIE_SLICE_FRAC 0.2

/* What tests change in a solve, passed in (ilpi_solve_hooked, solver/driver/solve.h),
 * never global; ilp_solve uses the defaults. */
typedef struct ilpi_solve_hooks {
	/* seconds a peak-objective or peak-budget solve takes at most when the caller gives
	 * no time limit (docs/solver.md "Peak memory"): every stage, seed solve and descent
	 * of the search keeps to it; 60 by default */
	double peak_default_limit;
	/* when > 0, the peak search's clock checks between its phases and between the rows
	 * and points it adds (not the descents' and the front's own) count it down, and
	 * from the check that brings it to 0 on the time limit counts as spent whatever the
	 * clock says (a test stops the search at its Nth check without timing it); 0: the
	 * clock alone */
	long peak_checks;
	/* 1: the peak rows always go through running sums (the same LP as the dense rows,
	 * which ilpi_peak_rows_add writes below ILPI_PEAK_DENSE_NZ nonzeros); 0: by size */
	int peak_running_sums;
	/* when not NULL, a memory-budget conflict is reported here too, as numbers
	 * (solver/driver/reach.c answers it with the least partition) */
	struct ilpi_budget_report *report;
	/* ilp_solve sets it: at a budget fraction, an answer worse than PyTorch's own
	 * partition there on saved bytes, recompute time or simulated peak is solved again
	 * within that partition's peak (solver/driver/dominate.c); 0: never (the peak
	 * search's own seeds, which would recurse) */
	int dominate;
	/* when not NULL, n_seeds more partitions the peak search and a peak budget start
	 * from (copied; drv_peak_seeds), and with seeds_only the only ones */
	ilp_partition *const *seeds;
	size_t n_seeds;
	int seeds_only;
	/* when > 0, a peak budget whose search (the time descent, the chain) finds an
	 * answer recomputing less than every seed that fits gives its loop only that many
	 * seconds more (dominate.c without a time limit of the caller's: the loop's rows cut
	 * off one answer at a time, minutes at 100 layers); that answer stands when the
	 * loop proves none faster (status feasible); 0: the whole limit */
	double peak_budget_quick;
	/* when > 0, the bound along the layers (solver/driver/peak_relax.c) checks itself
	 * at the incumbent and at that many random s/r assignments, each with the model's
	 * least P there (its other 0/1 columns integral): every relaxed row, a front point
	 * at or below the assignment's own (sigma, local peak) per segment, and the chain
	 * fitting at its relaxed peak; the points checked and the failures come back in
	 * peak_relax_points and peak_relax_fails */
	int peak_relax_check;
	long peak_relax_points, peak_relax_fails;
	/* when > 0, the relaxation's local MIP of that number (1: the first) reports
	 * out of time, as GLPK does when the time limit passes inside it; set to -1 when
	 * it fired; peak_relax_solves counts the local MIPs solved */
	int peak_relax_timeout;
	long peak_relax_solves;
	/* when > 0, the least-peak loop's solve of that number (1: the first) fails as
	 * GLPK's did on a 100-layer GPT-2 ("LP relaxation failed", a basis singular to
	 * working precision): a test of the answer after such a failure; set to -1 when
	 * it fired */
	int peak_fail_solve;
} ilpi_solve_hooks;

/* A memory-budget conflict as the solve found it: the budget in bytes, the least saved
 * bytes of a partition that obeys the rules, and whether that least is proven (else the
 * best found within the time limit). budget is -1 when the solve met no such conflict. */
typedef struct ilpi_budget_report {
	int64_t budget;
	int64_t least;
	int proven;
} ilpi_budget_report;

#define ILPI_PEAK_DEFAULT_LIMIT 60

/* Everything a solve allocates lives here (the model's buffers in `m`, owned by
 * solver/model/model.c), so a GLPK error longjmp out of run_model loses nothing. */
typedef struct solve_ctx {
	const ilp_graph *g;
	const ilp_solve_options *o;
	ilpi_rules rules;
	int have_rules;
	double *cost;             /* per node: recompute cost in us, 0 when free */
	ilpi_reduced red;
	ilpi_model m;
	ilpi_blocks *blocks;      /* the decomposition, when it applies */
	int blocks_none;          /* blocks_ready found it does not apply */
	int peak_failed;          /* a least-peak loop solve failed in GLPK: the best
	                           * simulated answer stands, unproven (obj_peak.c) */
	int blocks_over;          /* the decomposition stopped over its work limit: the
	                           * whole model's stages get the peak search's default
	                           * time limit when the caller gave none (stage.c) */
	uint8_t *s, *r;           /* per item: the answer */
	uint8_t *ws, *wr;         /* per item: a feasible start */
	uint8_t *ts, *tr;         /* per item: scratch */
	uint8_t *ds, *dr;         /* per item: the decomposition's unproven answer within
	                           * the budget (over its work limit), a start for the
	                           * monolithic runtime stage; else NULL */
	double *pen[4];           /* per item: soft penalties (PEN_*) */
	int64_t *pen_b[2];        /* per item: the byte penalties in bytes, on s and on r */
	uint8_t *node_s, *node_r; /* per node: canonical answer */
	double t0;                /* CLOCK_MONOTONIC seconds at start */
	/* outcome */
	const char *status;       /* "optimal", "feasible", "time-limit" */
	double gap;
	char note[640];           /* the answer's producer note ("" none; reach.c writes its
	                           * own) */
	int64_t budget;           /* bytes, < 0 none */
	int64_t pt_bytes;         /* PyTorch's partition at the fraction, when it obeys the
	                           * rules (fraction_bytes): saved bytes, else -1 */
	double pt_us;             /* ... and its recompute time */
	ilp_partition *pt;        /* ... and the partition itself, else NULL */
	ilp_partition *soft_seed; /* --prefer soft, monolithic budgeted runtime: a partition
	                           * within the budget from a hard or pytorch-mode solve
	                           * (soft_seed()), the runtime stage's start, else NULL */
	int64_t least_bytes;      /* B0 when computed, else -1 */
	/* peak objective and peak budget (solver/peak/peak.c) */
	ilpi_peak_rows peak;      /* peak.col == 0 when not used */
	double peak_bound;        /* bytes: proven lower bound of the least peak, < 0 none */
	int64_t peak_sim;         /* simulated peak of the answer, < 0 not simulated */
	double *keep_obj;         /* objective drv_stage() must keep, or NULL (owned: a GLPK
	                           * error longjmps past stage_keep's free) */
	int64_t peak_best;        /* best simulated peak so far, < 0 none */
	ilp_partition **seed;     /* peak objective: known partitions to start from */
	size_t n_seed;
	ilpi_peak_cuts *cuts;     /* exact rows at simulated peak points, or NULL */
	int cuts_inexact;         /* points whose row fell short of the simulation */
	int pts_checked;          /* points checked against every answer simulated before */
	uint8_t *general_at;      /* per node: a general row at its step exists */
	double *peak_w;           /* least-peak solves: branching weights (peak_weights) */
	int n_peak_w;
	double peak_w_from;       /* ... used when the root LP is at least this */
	int peak_tie;             /* least-peak solves' tie-break costs: PEAK_TIE_* */
	double peak_tie_slice;    /* PEAK_TIE_SLICE: seconds */
	ilp_partition *const *audit; /* ilpi_peak_audit: the partitions, else NULL */
	size_t n_audit;
	double audit_excess;      /* the largest row value minus simulated peak */
	int audit_points;
	int audit_vacuous;        /* rows the cuts added that no partition can bind */
	int cuts_invalid;         /* a row above some simulated answer's peak: no proof */
	const char *stage_now;    /* the stage GLPK is solving, for its error messages */
	uint8_t *hist;            /* simulated answers (s then r), for checking the rows */
	int64_t *hist_sim;
	size_t n_hist, cap_hist;
	uint8_t *starts_buf;      /* peak objective: the descents' starts and scratch */
	int late;                 /* peak search: its time limit is spent (peak_late) */
	double limit_cap;         /* > 0: the peak search's limit (s after t0) at most that
	                           * (peak_budget_quick) */
	ilpi_solve_hooks *hooks;  /* the caller's, or NULL: the defaults */
	uint8_t *fb_buf;          /* peak budget: the best fitting seed (s, r) */
} solve_ctx;

enum { PEN_BYTES_S, PEN_BYTES_R, PEN_TIME_S, PEN_TIME_R };

#endif /* ILPART_SOLVER_DRIVER_CTX_H */
