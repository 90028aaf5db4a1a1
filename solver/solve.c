/*
 * solve.c - ilp_solve: rules, costs and reduction, then the objective's stages on one
 * GLPK model, then the partition: canonicalised, evaluated and checked.
 * docs/solver.md describes the model and the stages.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glpk.h>

#include "graph/clock.h"
#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "graph/partition.h"
#include "graph/region.h"
#include "graph/strbuf.h"
#include "policies/rules.h"
#include "solver/cost.h"
#include "solver/glpk_env.h"
#include "solver/mincut.h"
#include "solver/blocks.h"
#include "solver/model.h"
#include "solver/peak.h"
#include "solver/peak_cuts.h"
#include "solver/reduce.h"

/* Relative MIP gap of each least-peak solve (docs/solver.md "Peak memory"). */
#define PEAK_LOOP_GAP 0.02
/* General rows (solver/peak_cuts.c) before the first solve: at the incumbent's local
 * maxima of at least this share of its peak, at most this many. */
#define PEAK_GENERAL_FRAC 0.95
#define PEAK_GENERAL_FIRST 16

/* Everything a solve allocates lives here (the model's buffers in `m`, owned by
 * solver/model.c), so a GLPK error longjmp out of run_model loses nothing. */
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
	int64_t budget;           /* bytes, < 0 none */
	int64_t pt_bytes;         /* PyTorch's partition at the fraction, when it obeys the
	                           * rules (fraction_bytes): saved bytes, else -1 */
	double pt_us;             /* ... and its recompute time */
	ilp_partition *pt;        /* ... and the partition itself, else NULL */
	ilp_partition *soft_seed; /* --prefer soft, monolithic budgeted runtime: a partition
	                           * within the budget from a hard or pytorch-mode solve
	                           * (soft_seed()), the runtime stage's start, else NULL */
	int64_t least_bytes;      /* B0 when computed, else -1 */
	/* peak objective and peak budget (solver/peak.c) */
	ilpi_peak_rows peak;      /* peak.col == 0 when not used */
	double peak_bound;        /* bytes: proven lower bound of the least peak, < 0 none */
	int64_t peak_sim;         /* simulated peak of the answer, < 0 not simulated */
	double *keep_obj;         /* objective stage() must keep, or NULL (owned: a GLPK
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
	ilp_partition *const *audit; /* ilpi_peak_audit: the partitions, else NULL */
	size_t n_audit;
	double audit_excess;      /* the largest row value minus simulated peak */
	int audit_points;
	int cuts_invalid;         /* a row above some simulated answer's peak: no proof */
	int nofeas_ok;            /* the running stage may find its model infeasible */
	const char *stage_now;    /* the stage GLPK is solving, for its error messages */
	uint8_t *hist;            /* simulated answers (s then r), for checking the rows */
	int64_t *hist_sim;
	size_t n_hist, cap_hist;
	uint8_t *starts_buf;      /* peak objective: the descents' starts and scratch */
	int late;                 /* peak search: its time limit is spent (peak_late) */
	uint8_t *fb_buf;          /* peak budget: the best fitting seed (s, r) */
} solve_ctx;

double ilpi_peak_default_limit = 60;
long ilpi_peak_test_checks = 0;

/* The peak objective's and a peak budget's time limit: the caller's, else
 * ilpi_peak_default_limit. Their search ends by a proof or by the clock (docs/solver.md
 * "Peak memory"); every MIP solve and seed solve in it keeps to this, not only the loop
 * between solves (before, a stage had no limit of its own without --time-limit). */
static double
peak_limit(const ilp_solve_options *o)
{
	return o->time_limit > 0 ? o->time_limit : ilpi_peak_default_limit;
}

/* The peak search's time limit is spent (and stays so): every phase of the search
 * asks this between the rows, points and seeds it adds, so a graph whose every such
 * step is slow (an op with 200,000 inputs) still ends near the limit; what is cut short
 * only weakens the bound (docs/solver.md "Which answers depend on timing"). The test
 * hook ilpi_peak_test_checks stops it at a given check. */
static int
peak_late(solve_ctx *c)
{
	if (!c->late && ilpi_peak_test_checks > 0 && --ilpi_peak_test_checks == 0)
		c->late = 1;
	if (!c->late && ilpi_now() - c->t0 > peak_limit(c->o))
		c->late = 1;
	return c->late;
}

/* GLPK scales the model and builds its LP before it first reads its clock: about 1 us
 * of wall clock per nonzero at load 3 (an op with 50,000 inputs, 2.0 M nonzeros with
 * the rows of 16 points: 2.1 s; with 200,000 inputs a solve started 1.7 s before the
 * limit ended 5.8 s after it). This many seconds per nonzero, with a margin. */
#define PEAK_SETUP_PER_NZ 1.5e-6

enum { PEN_BYTES_S, PEN_BYTES_R, PEN_TIME_S, PEN_TIME_R };

static void
note(const solve_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
note(const solve_ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!c->o->verbose || c->o->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->o->log(c->o->log_ctx, buf);
}

/* Whether a solve of the peak model (stage `what`) can get past GLPK's scaling and LP
 * setup within the time left (PEAK_SETUP_PER_NZ); when not, the time limit counts as
 * spent (a solve started then overran the limit by its setup: 5.8 s on the
 * 200,000-input graph at --time-limit 20). */
static int
peak_room(solve_ctx *c, const char *what)
{
	double left = peak_limit(c->o) - (ilpi_now() - c->t0);
	double need = PEAK_SETUP_PER_NZ * (double)glp_get_num_nz(c->m.lp);

	if (peak_late(c))
		return 0;
	if (left >= need)
		return 1;
	note(c, "%s: not started, %.2fs left for about %.2fs of GLPK's setup (%d nonzeros) "
	    "(cut short by the time limit)", what, left, need, glp_get_num_nz(c->m.lp));
	c->late = 1;
	return 0;
}

void
ilp_solve_options_init(ilp_solve_options *o)
{
	memset(o, 0, sizeof *o);
	o->objective = ILP_OBJ_MEMORY;
	o->alpha = 0;
	o->budget_bytes = -1;
	o->budget_fraction = -1;
	o->peak_budget = -1;
	o->prefer = ILP_PREFER_HARD;
	o->bans = ILP_BANS_PYTORCH;
	ilp_device_lookup("h100", &o->device);
	o->time_limit = 0;
	o->gap = 0;
}

static int
check_options(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (o->objective != ILP_OBJ_MEMORY && o->objective != ILP_OBJ_RUNTIME &&
	    o->objective != ILP_OBJ_WEIGHTED && o->objective != ILP_OBJ_PEAK) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'objective': unknown objective %d",
		    g->path, (int)o->objective);
		return -1;
	}
	if (o->budget_bytes >= 0 && o->budget_fraction >= 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': give bytes or a "
		    "fraction, not both", g->path);
		return -1;
	}
	if (o->budget_fraction > 1 || isnan(o->budget_fraction)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': fraction %g is not "
		    "in [0, 1]", g->path, o->budget_fraction);
		return -1;
	}
	if (o->fraction_cap != ILP_FRACTION_CAP_PYTORCH &&
	    o->fraction_cap != ILP_FRACTION_CAP_NORMALISED) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'fraction-cap': unknown cap %d", g->path,
		    (int)o->fraction_cap);
		return -1;
	}
	if ((o->budget_bytes >= 0 || o->budget_fraction >= 0) &&
	    o->objective != ILP_OBJ_RUNTIME) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': only the runtime "
		    "objective takes a budget", g->path);
		return -1;
	}
	if (o->peak_budget >= 0 && o->objective != ILP_OBJ_RUNTIME) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'peak-budget': only the runtime "
		    "objective takes a peak budget", g->path);
		return -1;
	}
	if (!(o->alpha >= 0) || !isfinite(o->alpha)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'alpha': %g is not a finite number >= 0",
		    g->path, o->alpha);
		return -1;
	}
	if (!(o->device.peak_flops > 0) || !(o->device.bandwidth > 0) ||
	    !isfinite(o->device.peak_flops) || !isfinite(o->device.bandwidth)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'device': peak FLOP/s and bandwidth "
		    "must be positive", g->path);
		return -1;
	}
	if (!(o->gap >= 0) || !isfinite(o->gap)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'gap': %g is not a number >= 0", g->path,
		    o->gap);
		return -1;
	}
	if (isnan(o->time_limit)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'time-limit': not a number", g->path);
		return -1;
	}
	return 0;
}

/* ---- item-level solutions ---------------------------------------------------- */

/* Keeps only what the backward needs: a value is needed when it is a boundary value
 * or an input of a needed recomputed one; needed values are saved if the solution
 * saves them, else recomputed. Never adds a save; returns -1 if a needed value can be
 * neither (the input solution was infeasible). */
static int
canon_items(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need)
{
	for (size_t it = 0; it < red->n_items; it++)
		need[it] = red->item[it].boundary;
	for (size_t it = red->n_items; it-- > 0;) {
		const ilpi_item *item = &red->item[it];

		if (!need[it]) {
			s[it] = r[it] = 0;
			continue;
		}
		s[it] = s[it] && item->can_save;
		r[it] = !s[it];
		if (r[it] && !item->can_recompute)
			return -1;
		for (uint32_t k = 0; r[it] && k < item->in_count; k++)
			need[red->in[item->in_begin + k]] = 1;
	}
	return 0;
}

/* Save everything that can be saved: always feasible once reduce() succeeded. */
static void
save_all(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need)
{
	for (size_t it = 0; it < red->n_items; it++) {
		s[it] = red->item[it].can_save;
		r[it] = !s[it];
	}
	(void)canon_items(red, s, r, need);
}

/* Soft mode: the penalties in bytes (pen_b) and in time (PEN_TIME_*), before any
 * model exists (the decomposition and its report need them too). */
static void
penalties_raw(solve_ctx *c)
{
	const ilpi_reduced *red = &c->red;

	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];
		const ilpi_node *n = &c->g->node[item->rep];
		int64_t b = ilpi_charged_bytes(c->g, n);
		double t = item->cost > 1e-3 ? item->cost : 1e-3;

		/* A preference weighs twice what the value itself costs in that
		 * currency: the optimum overrides it only for a clear gain. */
		if (item->prefer & ILPI_R_PREFER_SAVE) {
			c->pen_b[1][it] = 2 * b;
			c->pen[PEN_TIME_R][it] = 2 * t;
		}
		if (item->prefer & ILPI_R_PREFER_RECOMPUTE) {
			c->pen_b[0][it] = 2 * b;
			c->pen[PEN_TIME_S][it] = 2 * t;
		}
	}
}

/* The byte penalties in model units (the same doubles as 2 * (bytes / unit)). */
static void
penalties(solve_ctx *c)
{
	for (size_t it = 0; it < c->red.n_items; it++) {
		c->pen[PEN_BYTES_S][it] = (double)c->pen_b[0][it] / c->m.byte_unit;
		c->pen[PEN_BYTES_R][it] = (double)c->pen_b[1][it] / c->m.byte_unit;
	}
}

static ilpi_terms
terms(const solve_ctx *c, double bytes, double cost, int with_pen)
{
	ilpi_terms t = { bytes, cost, NULL, NULL };

	if (!with_pen || c->o->prefer != ILP_PREFER_SOFT)
		return t;
	/* Weighted objectives get their penalties mixed per item by weighted_pen(). */
	if (bytes != 0) {
		t.pen_s = c->pen[PEN_BYTES_S];
		t.pen_r = c->pen[PEN_BYTES_R];
	} else {
		t.pen_s = c->pen[PEN_TIME_S];
		t.pen_r = c->pen[PEN_TIME_R];
	}
	return t;
}

/* ---- stages -------------------------------------------------------------------- */

static void
stage_status(solve_ctx *c, const ilpi_mip *mip)
{
	if (mip->timed_out)
		c->status = "time-limit";
	else if (mip->status == GLP_FEAS && strcmp(c->status, "time-limit") != 0)
		c->status = "feasible";
	c->gap = mip->gap_out;
}

/* One MIP solve of the model with objective t, starting from (ws, wr) when given;
 * the answer goes to (s, r). write: this is the model the caller asked to see. */
static int
stage(solve_ctx *c, const char *what, const ilpi_terms *t, const uint8_t *ws,
    const uint8_t *wr, uint8_t *s, uint8_t *r, ilpi_mip *mip, int write, ilp_error *err)
{
	const ilp_solve_options *o = c->o;
	double t1 = ilpi_now();
	int least_peak = strcmp(what, "least-peak") == 0;

	memset(mip, 0, sizeof *mip);
	if (c->peak.col != 0)
		ws = wr = NULL; /* a start knows nothing of the peak column */
	if (o->time_limit > 0 || c->peak.col != 0) {
		mip->time_limit = (c->peak.col != 0 ? peak_limit(o) : o->time_limit) -
		    (t1 - c->t0);
		if (mip->time_limit < 0.001)
			mip->time_limit = 0.001;
	}
	ilpi_model_set_objective(&c->m, t);
	for (int j = 1; c->keep_obj != NULL && j <= c->m.n_cols; j++)
		glp_set_obj_coef(c->m.lp, j, c->keep_obj[j]);
	if (write && o->write_lp != NULL && ilpi_model_write(&c->m, o->write_lp, 0, err) != 0)
		return -1;
	if (write && o->write_mps != NULL && ilpi_model_write(&c->m, o->write_mps, 1, err) != 0)
		return -1;
	mip->gap = o->gap;
	mip->what = what;
	c->stage_now = what;
	/* The least-peak loop needs an answer below the best, not the least: the proof is
	 * that none is left. */
	if (least_peak && mip->gap < PEAK_LOOP_GAP)
		mip->gap = PEAK_LOOP_GAP;
	mip->verbose = o->verbose;
	mip->warm_s = ws;
	mip->warm_r = wr;
	mip->presolve = least_peak;
	/* least-peak: P <= best - 1/2 byte and the tie-break costs add less than half a
	 * byte, so every answer's objective is below best (model units) */
	if (least_peak && c->peak_best >= 0) {
		mip->cutoff_on = 1;
		mip->cutoff = (double)c->peak_best / c->m.byte_unit;
	}
	if (least_peak && c->peak_w != NULL) {
		mip->weight = c->peak_w;
		mip->n_weight = c->n_peak_w;
		mip->weight_from = c->peak_w_from;
		mip->tie_drop = 1; /* from the same root LP as the weights */
	}
	mip->s = s;
	mip->r = r;
	if (ilpi_model_solve(&c->m, mip, err) != 0)
		return -1;
	if (mip->status != GLP_OPT && mip->status != GLP_FEAS && mip->status != GLP_NOFEAS &&
	    ws != NULL && mip->timed_out) {
		/* Out of time before GLPK took the start: the start is the best we have. */
		memcpy(s, ws, c->red.n_items);
		memcpy(r, wr, c->red.n_items);
		mip->status = GLP_FEAS;
		mip->obj = ilpi_model_value(&c->m, t, s, r);
		mip->gap_out = -1;
	}
	note(c, "stage %s: %s, objective %.10g, gap %.3g, %.2fs", what,
	    mip->status == GLP_OPT ? "optimal" : mip->status == GLP_FEAS ? "feasible" :
	    mip->status == GLP_NOFEAS ? "infeasible" : "no solution", mip->obj, mip->gap_out,
	    ilpi_now() - t1);
	if (mip->status == GLP_OPT || mip->status == GLP_FEAS)
		stage_status(c, mip);
	if (mip->status == GLP_NOFEAS && o->peak_budget >= 0 && c->peak.col != 0) {
		/* The peak rows bound every partition's simulated peak from below, and the
		 * no-good cuts remove only answers simulated over the budget: none is left. */
		if (strcmp(what, "runtime") == 0 && c->budget >= 0)
			ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'peak-budget': budget "
			    "conflict: no partition within the memory budget of %lld bytes has a "
			    "simulated peak within %lld bytes", c->g->path, (long long)c->budget,
			    (long long)o->peak_budget);
		else
			ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'peak-budget': budget "
			    "conflict: no partition has a simulated peak within %lld bytes",
			    c->g->path, (long long)o->peak_budget);
		return -1;
	}
	if (mip->status == GLP_NOFEAS && strcmp(what, "runtime") != 0 &&
	    !least_peak && !c->nofeas_ok) {
		/* Only the budget row can make the model infeasible. */
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: stage '%s' is infeasible",
		    c->g->path, what);
		return -1;
	}
	if (mip->status == GLP_UNDEF && c->peak.col != 0 && c->o->objective == ILP_OBJ_PEAK)
		return 0; /* obj_peak keeps what it has */
	if (mip->status == GLP_UNDEF) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: stage '%s': %s before any feasible partition "
		    "was found", c->g->path, what, mip->timed_out ? "time limit reached" :
		    "GLPK stopped");
		return -1;
	}
	return 0;
}

/* stage() for an objective the caller has set on the model itself. */
static int
stage_keep(solve_ctx *c, const char *what, uint8_t *s, uint8_t *r, ilpi_mip *mip,
    ilp_error *err)
{
	int nc = c->m.n_cols, rc;
	double *keep = malloc(((size_t)nc + 1) * sizeof *keep);
	ilpi_terms none = { 0, 0, NULL, NULL };

	if (keep == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	for (int j = 1; j <= nc; j++)
		keep[j] = glp_get_obj_coef(c->m.lp, j);
	/* stage() sets the model's own columns from terms: put ours back afterwards. */
	free(c->keep_obj);
	c->keep_obj = keep;
	rc = stage(c, what, &none, NULL, NULL, s, r, mip, 0, err);
	c->keep_obj = NULL;
	free(keep);
	return rc;
}

/* Level of a lexicographic stage: byte expressions are integral in model units. */
static double
level(double obj, int integral)
{
	return integral ? floor(obj + 0.5) + 0.5 : obj + 1e-9 * (fabs(obj) > 1 ? fabs(obj) : 1);
}

/* The budget is below what any partition needs: say how far, and which values that
 * cannot be recomputed force the least saved bytes (largest first). */
static int
budget_conflict(solve_ctx *c, const uint8_t *s0, int proven, ilp_error *err)
{
	const ilp_graph *g = c->g;
	char list[600], why[128];
	size_t len = 0, shown = 0;
	int32_t last = ILPI_NONE;
	int64_t last_b = INT64_MAX;

	list[0] = '\0';
	/* Up to 6 forced saves by decreasing bytes, ties in graph order: repeated scans
	 * for the next (bytes, index) below the previous one. */
	while (shown < 6) {
		int32_t best = ILPI_NONE;
		int64_t best_b = -1;

		for (size_t it = 0; it < c->red.n_items; it++) {
			int32_t v = c->red.item[it].rep;
			int64_t b = ilpi_charged_bytes(g, &g->node[v]);

			if (!s0[it] || c->red.item[it].can_recompute ||
			    (g->node[g->node[v].storage].flags & ILPI_F_PARAM))
				continue;
			if (b > last_b || (b == last_b && v <= last))
				continue;
			if (b > best_b || (b == best_b && v < best))
				best = v, best_b = b;
		}
		if (best == ILPI_NONE)
			break;
		ilpi_rules_explain(g, &c->rules, (size_t)best, ILPI_R_NO_RECOMPUTE, why,
		    sizeof why);
		if (why[0] == '\0') /* recomputable itself, but not from what is kept */
			snprintf(why, sizeof why, "recomputing it needs an input that "
			    "cannot be recomputed");
		len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0,
		    "%s'%s' (%lld bytes, %s)", shown ? ", " : "", g->node[best].name,
		    (long long)best_b, g->node[best].kind == ILPI_PRIMAL ? "forward input" : why);
		if (len >= sizeof list)
			break;
		shown++;
		last = best;
		last_b = best_b;
	}
	if (shown == 0)
		snprintf(list, sizeof list, "none (values whose recomputation needs saved "
		    "inputs)");
	ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'memory-budget': budget conflict: the budget "
	    "of %lld bytes is below the least achievable saved bytes %lld%s; values that cannot be "
	    "recomputed and force it: %s", g->path, (long long)c->budget,
	    (long long)c->least_bytes, proven ? "" : " (best found within the time limit)",
	    list);
	return -1;
}

static int lex_blocks(solve_ctx *c, int memory, ilp_error *err);

static int
obj_memory(solve_ctx *c, ilp_error *err)
{
	ilpi_terms t1 = terms(c, 1, 0, 1), t2 = terms(c, 0, 1, 1);
	ilpi_mip mip;
	size_t n = c->red.n_items;
	double best;
	int rc;

	if ((rc = lex_blocks(c, 1, err)) != 1)
		return rc;
	if (stage(c, "least-memory", &t1, c->ws, c->wr, c->ts, c->tr, &mip, 0, err) != 0)
		return -1;
	memcpy(c->s, c->ts, n);
	memcpy(c->r, c->tr, n);
	if (mip.timed_out)
		return 0;
	best = ilpi_model_value(&c->m, &t1, c->ts, c->tr);
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &t1, level(mip.obj, t1.pen_s == NULL));
	if (stage(c, "least-recompute", &t2, c->ts, c->tr, c->s, c->r, &mip, 1, err) != 0)
		return -1;
	/* GLPK keeps the level row within its tolerance; the bytes must not grow. */
	if (ilpi_model_value(&c->m, &t1, c->s, c->r) > best + 1e-9 * (1 + fabs(best))) {
		note(c, "least-recompute exceeded the least bytes by rounding: keeping stage 1");
		memcpy(c->s, c->ts, n);
		memcpy(c->r, c->tr, n);
	}
	return 0;
}

static int
obj_weighted(solve_ctx *c, ilp_error *err)
{
	ilpi_terms t = terms(c, 1, c->o->alpha / c->m.byte_unit, 0);
	ilpi_mip mip;

	if (c->o->prefer == ILP_PREFER_SOFT) {
		double a = c->o->alpha / c->m.byte_unit;

		for (size_t it = 0; it < c->red.n_items; it++) {
			c->pen[PEN_BYTES_S][it] += a * c->pen[PEN_TIME_S][it];
			c->pen[PEN_BYTES_R][it] += a * c->pen[PEN_TIME_R][it];
		}
		t.pen_s = c->pen[PEN_BYTES_S];
		t.pen_r = c->pen[PEN_BYTES_R];
	}
	return stage(c, "weighted", &t, c->ws, c->wr, c->s, c->r, &mip, 1, err);
}

static int level_stage(solve_ctx *c, const char *what, const ilpi_terms *t, int write,
    ilpi_mip *mip, ilp_error *err);

/* Lexicographic (recompute cost, then bytes): the runtime-optimal partition. */
static int
runtime_optimal(solve_ctx *c, int with_pen, int write, double *bytes, ilp_error *err)
{
	ilpi_terms tc = terms(c, 0, 1, with_pen), tb = terms(c, 1, 0, with_pen);
	ilpi_mip mip;
	size_t n = c->red.n_items;

	if (stage(c, "least-recompute", &tc, c->ws, c->wr, c->ts, c->tr, &mip, 0, err) != 0)
		return -1;
	memcpy(c->s, c->ts, n);
	memcpy(c->r, c->tr, n);
	if (!mip.timed_out) {
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, level(mip.obj, 0));
		if (level_stage(c, "runtime-optimal-memory", &tb, write, &mip, err) != 0)
			return -1;
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, -1);
	}
	*bytes = ilpi_model_value(&c->m, &(ilpi_terms){ 1, 0, NULL, NULL }, c->s, c->r);
	return 0;
}

/* A second lexicographic stage over (c->ts, c->tr), the first stage's answer, which
 * meets the level row set by the caller: its answer in (c->s, c->r). A time level
 * (recompute cost) is not integral, and with costs far apart (1e-3 to 1e21 us on a
 * random graph) GLPK can call the row infeasible though the first answer meets it;
 * the first answer is then kept (it is optimal for the first objective), as when the
 * stage finds nothing in time. */
static int
level_stage(solve_ctx *c, const char *what, const ilpi_terms *t, int write,
    ilpi_mip *mip, ilp_error *err)
{
	size_t n = c->red.n_items;
	int rc;

	c->nofeas_ok = 1;
	rc = stage(c, what, t, c->ts, c->tr, c->s, c->r, mip, write, err);
	c->nofeas_ok = 0;
	if (rc != 0)
		return -1;
	if (mip->status != GLP_OPT && mip->status != GLP_FEAS) {
		if (mip->status == GLP_NOFEAS)
			note(c, "stage %s: infeasible by GLPK's tolerances at the first stage's "
			    "level; keeping the first stage's answer", what);
		memcpy(c->s, c->ts, n);
		memcpy(c->r, c->tr, n);
	}
	return 0;
}

/* Among the partitions within the budget that are as fast as the one found, the
 * least saved bytes: a budget is a ceiling, and what stays under it is memory saved. */
static int
least_bytes_within(solve_ctx *c, const ilpi_mip *first, ilp_error *err)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	ilpi_mip mip;

	if (first->timed_out)
		return 0;
	memcpy(c->ts, c->s, n);
	memcpy(c->tr, c->r, n);
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, level(first->obj, 0));
	if (level_stage(c, "budget-least-memory", &tb, 0, &mip, err) != 0)
		return -1;
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, -1);
	return 0;
}

/* The model the caller asked to see, with objective t, as the monolithic path would
 * solve it last. */
static int
write_model(solve_ctx *c, const ilpi_terms *t, ilp_error *err)
{
	if (c->o->write_lp == NULL && c->o->write_mps == NULL)
		return 0;
	ilpi_model_set_objective(&c->m, t);
	if (c->o->write_lp != NULL && ilpi_model_write(&c->m, c->o->write_lp, 0, err) != 0)
		return -1;
	if (c->o->write_mps != NULL && ilpi_model_write(&c->m, c->o->write_mps, 1, err) != 0)
		return -1;
	return 0;
}

static int
write_budget_model(solve_ctx *c, ilp_error *err)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = terms(c, 0, 1, 1);

	if (c->o->write_lp == NULL && c->o->write_mps == NULL)
		return 0;
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_BUDGET, &tb,
	    floor((double)c->budget / c->m.byte_unit));
	return write_model(c, &tc, err);
}

/* rc 1 (over a limit of the decomposition): the monolithic model takes over. */
static int
blocks_fallback(solve_ctx *c, int rc)
{
	if (rc < 0)
		return -1;
	note(c, "blocks: over the work or time limit; solving the model as a whole");
	ilpi_blocks_free(c->blocks);
	c->blocks = NULL;
	c->blocks_none = 1;
	c->least_bytes = -1;
	return 1;
}

/*
 * Budgeted runtime solve by decomposition (solver/blocks.c): exact, and like the
 * monolithic path the least bytes among the partitions as fast as the optimum.
 * Returns 1 when the decomposition does not apply (the caller solves the monolithic
 * model), 0 with c->s, c->r set, -1 on error.
 */
/* Soft mode: the penalties as the decomposition's per-item terms, in the currencies
 * of the objectives it solves (docs/solver.md "Soft preferences"): time always (the
 * recompute cost it minimises), bytes unless the bytes are a budget's (a budget
 * bounds the saved bytes themselves; memory and runtime without a budget order by
 * bytes plus byte penalties). */
static const ilpi_blocks_extra *
soft_extra(const solve_ctx *c, ilpi_blocks_extra *x)
{
	const ilp_solve_options *o = c->o;

	if (o->prefer != ILP_PREFER_SOFT)
		return NULL;
	memset(x, 0, sizeof *x);
	x->cost_s = c->pen[PEN_TIME_S];
	x->cost_r = c->pen[PEN_TIME_R];
	if (!(o->objective == ILP_OBJ_RUNTIME && (o->budget_bytes >= 0 ||
	    o->budget_fraction >= 0))) {
		x->bytes_s = c->pen_b[0];
		x->bytes_r = c->pen_b[1];
	}
	return x;
}

/* The storages' and RNG states' bytes and the byte penalties together stay below 2^62
 * (each below it, summed in doubles). */
static int
soft_bytes_fit(const solve_ctx *c)
{
	const ilpi_reduced *red = &c->red;
	double sum = 0;

	for (size_t k = 0; k < red->n_stor; k++)
		sum += (double)red->stor_bytes[k];
	for (size_t it = 0; it < red->n_items; it++)
		sum += (double)red->item[it].rng_bytes + (double)c->pen_b[0][it] +
		    (double)c->pen_b[1][it];
	return sum < 4611686018427387904.0 / 2;
}

/* Plans and prepares the decomposition: 0 ready, 1 it does not apply, -1 error. */
static int
blocks_ready(solve_ctx *c, ilp_error *err)
{
	ilpi_blocks_extra x;
	int rc;

	/* The peak rows live in the whole model only. */
	if (c->o->monolithic || c->peak.col != 0 || c->blocks_none)
		return 1;
	if (c->blocks != NULL)
		return 0;
	if (soft_extra(c, &x) != NULL && x.bytes_s != NULL && !soft_bytes_fit(c)) {
		/* the fronts' bytes are int64: the graph's bytes are below 2^62, but the
		 * penalties count a storage once per preference on it */
		note(c, "blocks: saved bytes and byte penalties reach 2^61; solving the model "
		    "as a whole");
		c->blocks_none = 1;
		return 1;
	}
	if (ilpi_blocks_plan_extra(&c->red, soft_extra(c, &x), 1, &c->blocks, err) != 0)
		return -1;
	if (c->blocks == NULL) {
		note(c, "blocks: no narrow cuts; solving the model as a whole");
		c->blocks_none = 1;
		return 1;
	}
	if (c->o->time_limit > 0) {
		double left = c->o->time_limit - (ilpi_now() - c->t0);

		ilpi_blocks_set_time_limit(c->blocks, left > 1e-3 ? left : 1e-3);
	}
	if ((rc = ilpi_blocks_prepare(c->blocks, err)) != 0)
		return blocks_fallback(c, rc);
	return 0;
}

static void
blocks_note(solve_ctx *c, double t1)
{
	ilpi_blocks_stats st;

	ilpi_blocks_get_stats(c->blocks, &st);
	note(c, "blocks: %zu items in %zu segments, %zu distinct, cut width <= %zu, largest "
	    "%zu items; %zu class runs, %zu points%s, %.2fs", st.n_active, st.n_seg,
	    st.n_class, st.max_width, st.max_seg, st.n_subsolves, st.n_points,
	    st.counts ? " (by counts)" : "", ilpi_now() - t1);
}

/* The decomposition's answer in c->s, c->r: its bytes (the terms tb of the model:
 * saved bytes, plus the byte penalties where the front holds them) must be the
 * model's. */
static int
blocks_answer(solve_ctx *c, const ilpi_terms *tb, int64_t bytes, double cost, int proven,
    ilp_error *err)
{
	double used = ilpi_model_value(&c->m, tb, c->s, c->r) * c->m.byte_unit;

	if (fabs(used - (double)bytes) > 0.5) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the decomposition's answer "
		    "saves %.0f bytes, its front says %lld", c->g->path, used, (long long)bytes);
		return -1;
	}
	note(c, "blocks: %s, recompute %.10g us, saved %lld bytes", proven ? "optimal" :
	    "best found", cost, (long long)bytes);
	c->status = proven ? "optimal" : "time-limit";
	c->gap = 0;
	return 0;
}

/* Lexicographic objectives by decomposition: memory (least bytes, then least cost) or
 * runtime without a budget (least cost, then least bytes). 1: does not apply. */
static int
lex_blocks(solve_ctx *c, int memory, ilp_error *err)
{
	/* as obj_memory's and runtime_optimal's stages: penalised bytes and cost */
	ilpi_terms tb = terms(c, 1, 0, 1), tc = terms(c, 0, 1, 1);
	double t1 = ilpi_now(), cost, bound;
	int64_t bytes, b0;
	int rc;

	if ((rc = blocks_ready(c, err)) != 0)
		return rc;
	if (memory) {
		if ((b0 = ilpi_blocks_least_bytes(c->blocks, c->ws, c->wr)) < 0)
			return blocks_fallback(c, 1);
		rc = ilpi_blocks_solve(c->blocks, b0, &bytes, &cost, &bound, c->s, c->r, err);
		if (rc == 3 || rc == 4)
			rc = 1;   /* the lexicographic stages take the rest of the time */
	} else {
		rc = ilpi_blocks_runtime_optimal(c->blocks, &bytes, &cost, c->s, c->r, err);
	}
	blocks_note(c, t1);
	if (rc != 0)
		return blocks_fallback(c, rc == 2 ? 1 : rc);
	if (memory)
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tb,
		    level((double)bytes / c->m.byte_unit, tb.pen_s == NULL));
	else
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, level(cost, 0));
	if (write_model(c, memory ? &tc : &tb, err) != 0)
		return -1;
	return blocks_answer(c, &tb, bytes, cost, 1, err);
}

static int
runtime_blocks(solve_ctx *c, ilp_error *err)
{
	ilpi_terms tb = { 1, 0, NULL, NULL };
	double t1 = ilpi_now(), cost, bound;
	int64_t bytes;
	int rc;

	if ((rc = blocks_ready(c, err)) != 0)
		return rc;
	c->least_bytes = ilpi_blocks_least_bytes(c->blocks, c->ws, c->wr);
	if (write_budget_model(c, err) != 0)
		return -1;
	rc = ilpi_blocks_solve(c->blocks, c->budget, &bytes, &cost, &bound, c->s, c->r, err);
	blocks_note(c, t1);
	if (rc == 2)
		return budget_conflict(c, c->ws, 1, err);
	if (rc == 3 && bytes <= c->budget) {
		/* out of time: the heuristic run's answer and the Lagrangian bound */
		if (blocks_answer(c, &tb, bytes, cost, 0, err) != 0)
			return -1;
		c->gap = cost > 0 ? (cost - bound) / cost : 0;
		note(c, "blocks: time limit; best found %.10g us, bound %.10g", cost, bound);
		return 0;
	}
	if (rc == 4 && bytes <= c->budget) {
		/* over the work limit with time left: the monolithic model starts from it */
		size_t n = c->red.n_items;

		if ((c->ds = malloc(n + 1)) == NULL || (c->dr = malloc(n + 1)) == NULL) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		memcpy(c->ds, c->s, n);
		memcpy(c->dr, c->r, n);
		note(c, "blocks: best found %.10g us, bound %.10g, not proven", cost, bound);
	}
	if (rc != 0)
		return blocks_fallback(c, rc == 3 || rc == 4 ? 1 : rc);
	if (bytes > c->budget) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the decomposition's answer "
		    "exceeds the budget", c->g->path);
		return -1;
	}
	return blocks_answer(c, &tb, bytes, cost, 1, err);
}

static int seed_items(solve_ctx *c, const ilp_partition *p, uint8_t *s, uint8_t *r,
    uint8_t *need);

/* PyTorch's partition at the fraction (c->pt), carried onto the items in (ts, tr), when
 * it is valid here, within `ub` budget units and recomputes less than the start (ws, wr)
 * (NULL: none): the runtime stage then starts from it, so an answer cut short by the
 * time limit is never worse than PyTorch's own (without it, the least-memory start,
 * which recomputes nearly everything). 1 when it is the better start. */
static int
pt_start(solve_ctx *c, const ilpi_terms *tb, const ilpi_terms *tc, double ub,
    const uint8_t *ws, const uint8_t *wr)
{
	double v;

	if (c->pt == NULL || seed_items(c, c->pt, c->ts, c->tr, c->node_s) != 0)
		return 0;
	if (ilpi_model_value(&c->m, tb, c->ts, c->tr) > ub + 1e-6)
		return 0;
	v = ilpi_model_value(&c->m, tc, c->ts, c->tr);
	if (ws != NULL && v >= ilpi_model_value(&c->m, tc, ws, wr))
		return 0;
	note(c, "runtime: starting from PyTorch's partition at the fraction (objective %.10g)",
	    v);
	return 1;
}

static int
obj_runtime(solve_ctx *c, ilp_error *err)
{
	const ilp_solve_options *o = c->o;
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = terms(c, 0, 1, 1);
	ilpi_mip mip;
	uint8_t *s0 = c->ws, *r0 = c->wr;  /* becomes the least-memory partition */
	double unit = c->m.byte_unit, b1, ub, used;
	int proven;

	if (o->budget_bytes < 0 && o->budget_fraction < 0) {
		if ((proven = lex_blocks(c, 0, err)) != 1)
			return proven;
		return runtime_optimal(c, 1, 1, &b1, err);
	}
	if ((proven = runtime_blocks(c, err)) != 1)
		return proven;
	if (c->ds == NULL && c->soft_seed != NULL) {
		/* the soft seed as the decomposition's answer would be: a start */
		size_t n = c->red.n_items;

		if ((c->ds = malloc(n + 1)) == NULL || (c->dr = malloc(n + 1)) == NULL) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		if (seed_items(c, c->soft_seed, c->ds, c->dr, c->node_s) != 0) {
			free(c->ds);
			free(c->dr);
			c->ds = c->dr = NULL;
		}
	}
	if (stage(c, "least-memory", &tb, c->ws, c->wr, c->ts, c->tr, &mip, 0, err) != 0)
		return -1;
	proven = mip.status == GLP_OPT;
	memcpy(s0, c->ts, c->red.n_items);
	memcpy(r0, c->tr, c->red.n_items);
	c->least_bytes = (int64_t)llround(mip.obj * unit);
	if (c->budget < c->least_bytes && proven)
		return budget_conflict(c, s0, 1, err);
	ub = floor((double)c->budget / unit);
	for (int round = 0;; round++) {
		const uint8_t *ws = c->budget >= c->least_bytes ? s0 : NULL, *wr = r0;

		if (pt_start(c, &tb, &tc, ub, ws, wr)) {
			ws = c->ts;
			wr = c->tr;
		}
		if (c->ds != NULL && ilpi_model_value(&c->m, &tb, c->ds, c->dr) <= ub + 1e-6 &&
		    (ws == NULL || ilpi_model_value(&c->m, &tc, c->ds, c->dr) <
		    ilpi_model_value(&c->m, &tc, ws, wr))) {
			note(c, "runtime: starting from the %s", c->soft_seed != NULL ?
			    "hard or pytorch-mode partition" : "decomposition's answer");
			ws = c->ds;
			wr = c->dr;
		}
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_BUDGET, &tb, ub);
		if (stage(c, "runtime", &tc, ws, wr, c->s, c->r, &mip, round == 0, err) != 0)
			return -1;
		if (mip.status == GLP_NOFEAS)
			return budget_conflict(c, s0, proven, err);
		/* GLPK accepts a row within its tolerance; bytes must hold exactly. */
		used = ilpi_model_value(&c->m, &tb, c->s, c->r);
		if (used <= floor((double)c->budget / unit) + 0.5)
			return least_bytes_within(c, &mip, err);
		note(c, "budget exceeded by %g units within GLPK's tolerance: tightening",
		    used - floor((double)c->budget / unit));
		ub -= used - floor((double)c->budget / unit);
		if (round == 3 || ub < 0) {
			ilpi_err(err, ILP_ERR_SOLVER, "%s: GLPK's answers keep exceeding the budget "
			    "of %lld bytes by rounding", c->g->path, (long long)c->budget);
			return -1;
		}
	}
}

static int to_nodes(solve_ctx *c);

/* The simulated peak (graph/memsim.c, the truth) of the item answer (s, r); -1 when it
 * cannot be simulated. Leaves the node answer in c->node_s/node_r. */
static int64_t
simulate(solve_ctx *c, const uint8_t *s, const uint8_t *r)
{
	ilp_partition *p;
	ilp_peak pk;
	int64_t out = -1;

	if (s != c->s) {
		memcpy(c->s, s, c->red.n_items);
		memcpy(c->r, r, c->red.n_items);
	}
	if (to_nodes(c) != 0 || (p = ilp_partition_new(c->g)) == NULL)
		return -1;
	for (size_t v = 0; v < c->g->n; v++)
		p->state[v] = (uint8_t)((c->node_s[v] ? ILPI_P_SAVED : 0) |
		    (c->node_r[v] ? ILPI_P_RECOMPUTED : 0));
	if (ilp_partition_peak(c->g, p, &pk, NULL) == 0)
		out = pk.peak_bytes;
	ilp_partition_free(p);
	return out;
}

/* No-good cut: any answer other than (s, r) may be anything down to P's floor; (s, r)
 * itself peaks at `sim` (model units). P + d * (distance to (s, r)) >= sim. */
static int
nogood_cut(solve_ctx *c, const uint8_t *s, const uint8_t *r, double sim)
{
	glp_prob *lp = c->m.lp;
	double d = sim - glp_get_col_lb(lp, c->peak.col), rhs = sim;
	int *ind = malloc((2 * c->red.n_items + 2) * sizeof *ind), len = 0, row;
	double *val = malloc((2 * c->red.n_items + 2) * sizeof *val);

	if (ind == NULL || val == NULL) {
		free(ind);
		free(val);
		return -1;
	}

	ind[++len] = c->peak.col;
	val[len] = 1;
	for (size_t it = 0; it < c->red.n_items; it++) {
		int cols[2] = { c->m.col_s[it], c->m.col_r[it] };
		int on[2] = { s[it], r[it] };

		for (int k = 0; k < 2; k++) {
			if (cols[k] == 0)
				continue;
			ind[++len] = cols[k];
			val[len] = on[k] ? -d : d;
			if (on[k])
				rhs -= d;
		}
	}
	row = glp_add_rows(lp, 1);
	glp_set_mat_row(lp, row, len, ind, val);
	glp_set_row_bnds(lp, row, GLP_LO, rhs, 0);
	free(ind);
	free(val);
	return 0;
}

/* The rows must bound every partition from below: each simulated answer is checked
 * against every point's row, each new point against every answer simulated so far.
 * A violation (a bug) only costs the proof. -1 only when out of memory. */
static int
check_cuts(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim)
{
	size_t n = c->red.n_items;
	int rows, cols, points;

	ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
	if (ilpi_peak_cuts_eval(c->cuts, s, r) != 0)
		return -1;
	for (int k = 0; k < points; k++)
		if (ilpi_peak_cuts_point_value(c->cuts, k) > (double)sim + 0.5) {
			c->cuts_invalid = 1;
			note(c, "peak cut %d exceeds a simulated answer's peak", k);
		}
	for (size_t h = 0; points > c->pts_checked && h < c->n_hist; h++) {
		const uint8_t *hs = c->hist + 2 * n * h;

		if (ilpi_peak_cuts_eval(c->cuts, hs, hs + n) != 0)
			return -1;
		for (int k = c->pts_checked; k < points; k++)
			if (ilpi_peak_cuts_point_value(c->cuts, k) > (double)c->hist_sim[h] + 0.5) {
				c->cuts_invalid = 1;
				note(c, "peak cut %d exceeds a simulated answer's peak", k);
			}
	}
	c->pts_checked = points;
	if (c->n_hist == c->cap_hist) {
		size_t cap = c->cap_hist ? 2 * c->cap_hist : 16;
		uint8_t *a = realloc(c->hist, cap * 2 * n + 1);
		int64_t *b;

		if (a == NULL)
			return -1;
		c->hist = a;
		if ((b = realloc(c->hist_sim, cap * sizeof *b)) == NULL)
			return -1;
		c->hist_sim = b;
		c->cap_hist = cap;
	}
	memcpy(c->hist + 2 * n * c->n_hist, s, n);
	memcpy(c->hist + 2 * n * c->n_hist + n, r, n);
	c->hist_sim[c->n_hist++] = sim;
	return 0;
}

/* The item answer (s, r) as the simulator runs it, for the peak rows: 1 when there are
 * rows (c->cuts), its simulated peak is `sim` and its node partition (*p), split (*sp)
 * and trace (*ms, *tr) were made, else 0. The four are zeroed first; the caller frees
 * them either way. */
static int
trace_answer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim,
    ilp_partition **p, ilpi_split *sp, ilpi_memsim *ms, ilpi_memtrace *tr)
{
	*p = NULL;
	memset(sp, 0, sizeof *sp);
	memset(ms, 0, sizeof *ms);
	memset(tr, 0, sizeof *tr);
	if (c->cuts == NULL || simulate(c, s, r) != sim || (*p = ilp_partition_new(c->g)) == NULL)
		return 0;
	for (size_t v = 0; v < c->g->n; v++)
		(*p)->state[v] = (uint8_t)((c->node_s[v] ? ILPI_P_SAVED : 0) |
		    (c->node_r[v] ? ILPI_P_RECOMPUTED : 0));
	return ilpi_lower_unchecked(c->g, *p, sp, NULL) == 0 &&
	    ilpi_memsim_trace(c->g, sp, ms, tr, NULL) == 0;
}

/* Cuts off the item answer (s, r), whose simulated peak is `sim` bytes: by the exact
 * row at its backward peak step (solver/peak_cuts.c) when that row reaches the
 * simulated bytes there, else by a no-good cut. -1 only when out of memory. */
static int
cut_answer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim)
{
	ilp_partition *p = NULL;
	ilpi_split sp;
	ilpi_memsim ms;
	ilpi_memtrace tr;
	int rc = 0, exact = 0, fam_ok = 1, have = 0;

	have = trace_answer(c, s, r, sim, &p, &sp, &ms, &tr);
	if (have && ms.peak.phase == ILP_PHASE_BACKWARD && ms.peak.peak_bytes == sim) {
		size_t at = 0;

		for (size_t k = 0; k < ms.n_bw; k++)
			if (ms.bw_live[k] > ms.bw_live[at])
				at = k;
		rc = ilpi_peak_cuts_add(c->cuts, &ms, &tr, at);
		if (rc == 0)
			note(c, "peak cut at %s: none (a storage the rows cannot explain, or a "
			    "recomputed op's step)", c->g->node[ms.bw_order[at]].name);
		if (rc == 1) {
			rc = ilpi_peak_cuts_exact(c->cuts, s, r, &ms, &tr, 0, at, &fam_ok);
			exact = rc == 1 && fam_ok;
			if (rc >= 0 && !exact) {
				c->cuts_inexact++;
				note(c, "peak cut at %s: not exact (%s)",
				    c->g->node[ms.bw_order[at]].name,
				    fam_ok ? "row short of the simulation" : "placement differs");
			}
		}
	}
	if (have && ms.peak.phase == ILP_PHASE_FORWARD && ms.peak.peak_bytes == sim) {
		size_t at = 0;

		for (size_t k = 0; k < ms.n_fw; k++)
			if (ms.fw_live[k] > ms.fw_live[at])
				at = k;
		rc = ilpi_peak_cuts_add_fw(c->cuts, &ms, &tr, at);
		if (rc == 0)
			note(c, "peak cut at %s (forward): none", c->g->node[ms.fw_order[at]].name);
		if (rc == 1) {
			rc = ilpi_peak_cuts_exact(c->cuts, s, r, &ms, &tr, 1, at, &fam_ok);
			exact = rc == 1 && fam_ok;
			if (rc >= 0 && !exact) {
				c->cuts_inexact++;
				note(c, "peak cut at %s (forward): not exact (%s)",
				    c->g->node[ms.fw_order[at]].name,
				    fam_ok ? "row short of the simulation" : "placement differs");
			}
		}
	}
	ilpi_memtrace_free(&tr);
	ilpi_memsim_free(&ms);
	if (have || p != NULL)
		ilpi_split_free(&sp);
	ilp_partition_free(p);
	if (rc < 0 || (c->cuts != NULL && check_cuts(c, s, r, sim) != 0))
		return -1;
	if (!exact)
		return nogood_cut(c, s, r, (double)sim / c->m.byte_unit);
	return 0;
}

/* General rows (solver/peak_cuts.c, ilpi_peak_cuts_add_general) at the backward steps
 * where the item answer (s, r), simulated at `sim`, has a local maximum of at least
 * frac * sim bytes, highest first, at most `max_pts` new ones (one per op). -1 only
 * when out of memory. */
typedef struct live_at {
	int64_t live;             /* bytes live at the step */
	size_t at;                /* the backward step */
} live_at;

static int
cmp_live_at(const void *pa, const void *pb)
{
	const live_at *a = pa, *b = pb;

	if (a->live != b->live)
		return a->live > b->live ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

static int
general_rows(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim, double frac,
    int max_pts)
{
	ilp_partition *p = NULL;
	ilpi_split sp;
	ilpi_memsim ms;
	ilpi_memtrace tr;
	int rc = 0, have = 0, added = 0;
	live_at *cand = NULL;
	size_t n_cand = 0;

	if (c->cuts == NULL)
		return 0;
	if (peak_late(c)) {
		note(c, "peak general rows: none (cut short by the time limit)");
		return 0;
	}
	if (c->general_at == NULL && (c->general_at = calloc(c->g->n + 1, 1)) == NULL)
		return -1;
	have = trace_answer(c, s, r, sim, &p, &sp, &ms, &tr);
	if (have && (cand = malloc((ms.n_bw + 1) * sizeof *cand)) == NULL)
		rc = -1;
	for (size_t k = 0; have && cand != NULL && k < ms.n_bw; k++) {
		int64_t v = ms.bw_live[k];

		if ((double)v < frac * (double)sim || c->general_at[ms.bw_order[k]] ||
		    (k > 0 && ms.bw_live[k - 1] > v) || (k + 1 < ms.n_bw && ms.bw_live[k + 1] > v))
			continue;
		cand[n_cand++] = (live_at){ v, k };
	}
	/* highest first, earlier first among equals (a chain has a local maximum at
	 * nearly every step: no pairwise sort) */
	qsort(cand, n_cand, sizeof *cand, cmp_live_at);
	for (size_t i = 0; rc == 0 && i < n_cand && added < max_pts; i++) {
		int32_t op = ms.bw_order[cand[i].at];
		int k;

		if (c->general_at[op])
			continue;
		if (peak_late(c)) {
			note(c, "peak general rows: %d points (cut short by the time limit)", added);
			break;
		}
		k = ilpi_peak_cuts_add_general(c->cuts, &ms, &tr, cand[i].at);
		if (k < 0)
			rc = -1;
		if (k == 1) {
			int rows, cols, points;

			c->general_at[op] = 1;
			added++;
			ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
			if (ilpi_peak_cuts_eval(c->cuts, s, r) != 0)
				rc = -1;
			else
				note(c, "peak general row at %s: %.0f of %lld bytes there",
				    c->g->node[op].name, ilpi_peak_cuts_point_value(c->cuts,
				    points - 1), (long long)cand[i].live);
		}
	}
	free(cand);
	ilpi_memtrace_free(&tr);
	ilpi_memsim_free(&ms);
	if (have || p != NULL)
		ilpi_split_free(&sp);
	ilp_partition_free(p);
	return rc;
}

/* The item answer of a node partition `p`: an item is saved when its rep is, else
 * recomputed when the backward needs it. 0 when that answer is valid under this
 * solve's rules (every needed value saved or recomputed where the model allows). */
static int
seed_items(solve_ctx *c, const ilp_partition *p, uint8_t *s, uint8_t *r, uint8_t *need)
{
	const ilpi_reduced *red = &c->red;

	memset(s, 0, red->n_items);
	/* A saved view saves its base's storage: the nearest base that is a saveable
	 * item's rep. */
	for (size_t v = 0; v < c->g->n; v++) {
		int32_t u = (int32_t)v, it;

		if (!(p->state[v] & ILPI_P_SAVED))
			continue;
		while ((it = red->item_of[u]) < 0 || red->item[it].rep != u ||
		    c->m.col_s[it] == 0) {
			if ((u = c->g->node[u].view_of) == ILPI_NONE)
				break;
		}
		if (u != ILPI_NONE)
			s[it] = 1;
	}
	for (size_t it = 0; it < red->n_items; it++)
		r[it] = !s[it];
	if (canon_items(red, s, r, need) != 0)
		return -1;
	for (size_t it = 0; it < red->n_items; it++)
		if (r[it] && c->m.col_r[it] == 0)
			return -1;
	return 0;
}

/* Whether a seed still fits before `until`: at least half of `dur` (what the last one
 * of its kind took; 0: none yet) is left; counted in *skipped when not. Half: the
 * runtime optima take their tenth of the limit each, so a whole one would not fit
 * after two in their share; a seed that overruns is slower than that. */
static int
seed_fits(solve_ctx *c, double dur, double until, int *skipped)
{
	double now = ilpi_now();

	if (!peak_late(c) && now < until && now + dur / 2 < until)
		return 1;
	(*skipped)++;
	return 0;
}

/* The partitions the other rows of `ilpart compare` show (the saved-bytes optimum,
 * the runtime optima at budgets 0.1, 0.3, 0.5, min-cut with and without budgets, the
 * graph's references, save-all), made before
 * the peak model is built: the search starts from the best of those that are valid
 * here, so it never answers worse than any of them. Min-cut without a budget, the
 * references and save-all are always made; the others while the time limit allows:
 * the runtime optima within 40 % of it, min-cut's budget path within half of it, each
 * only when half of what the last one of its kind took is left (on an op with
 * 200,000 inputs one runtime seed took 6.7 s of CPU for its 2 s, one budget path 2 s;
 * the search after them needs time too). */
static int
peak_seeds(solve_ctx *c, ilp_error *err)
{
	const ilp_graph *g = c->g;
	ilp_solve_options so = *c->o;
	ilpi_mincut_options mo;
	ilp_error e = { 0 };
	size_t cap = g->n_ref + 16;
	double limit = peak_limit(c->o), t1, dur = 0;
	int skipped = 0;

	if ((c->seed = calloc(cap, sizeof *c->seed)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	so.objective = ILP_OBJ_MEMORY;
	so.time_limit = fmax(1e-3, limit - (ilpi_now() - c->t0));
	so.peak_budget = -1;
	so.write_lp = so.write_mps = NULL;
	so.verbose = 0;
	so.log = NULL;
	t1 = ilpi_now();
	if (seed_fits(c, 0, c->t0 + limit, &skipped) &&
	    ilp_solve(g, &so, &c->seed[c->n_seed], &e) == 0)
		c->n_seed++;
	/* a runtime optimum solves at least two models of this one's size (its
	 * least-memory and runtime stages): the first is expected to take twice as long */
	dur = 2 * (ilpi_now() - t1);
	/* The runtime optima at PyTorch's budget fractions (compare --memory-budget F),
	 * each with a tenth of the time (its whole tenth once started: capped at the share,
	 * the third got 1.3 s at 20,000 inputs under load and missed the answer main
	 * found). */
	for (int k = 0; k < 3; k++) {
		static const double frac[3] = { 0.1, 0.3, 0.5 };
		/* their three tenths and some slack (under load two took 5.1 s of 20 s and
		 * the third, which finds the proven peak at 20,000 inputs, was left out):
		 * the share stops seeds that overrun their tenth, not those that keep it */
		double until = c->t0 + 0.4 * limit;

		if (!seed_fits(c, dur, until, &skipped))
			continue;
		so.objective = ILP_OBJ_RUNTIME;
		so.budget_bytes = -1;
		so.budget_fraction = frac[k];
		so.time_limit = fmax(1e-3, fmin(limit / 10, c->t0 + limit - ilpi_now()));
		t1 = ilpi_now();
		if (ilp_solve(g, &so, &c->seed[c->n_seed], &e) == 0)
			c->n_seed++;
		dur = ilpi_now() - t1;
	}
	/* PyTorch's min-cut, then its budget path at every tenth (torch reads the tags
	 * its own way: a seed that breaks this solve's rules is dropped later). */
	dur = 0;
	for (int k = 0; k <= 10; k++) {
		if (k > 0 && !seed_fits(c, dur, c->t0 + 0.5 * limit, &skipped))
			continue;
		ilpi_mincut_options_init(&mo);
		ilpi_mincut_options_from_solve(&mo, c->o);
		mo.prefer = ILP_PREFER_PYTORCH;
		mo.check = 0;
		mo.activation_memory_budget = k == 0 ? 1 : (k - 1) / 10.0;
		t1 = ilpi_now();
		if (ilpi_mincut_run(g, &mo, &c->seed[c->n_seed], NULL, &e) == 0)
			c->n_seed++;
		dur = ilpi_now() - t1; /* the first budget path: as long as min-cut, at least */
	}
	if (skipped > 0)
		note(c, "peak seeds: %d of 15 not made (cut short by the time limit)", skipped);
	for (size_t k = 0; k < g->n_ref; k++)
		if (ilpi_partition_from_ref(g, k, &c->seed[c->n_seed], &e) == 0)
			c->n_seed++;
	if (ilpi_partition_save_all(g, &c->seed[c->n_seed], &e) == 0)
		c->n_seed++;
	return 0;
}

/* Each seed valid under this solve's rules is simulated; the best one is the
 * incumbent in (ws, wr). Those within 5 % of it are cut off (the others are far from
 * the answer: rows for them would only slow the solves down). */
static int
peak_try_seeds(solve_ctx *c, int64_t *best, ilp_error *err)
{
	size_t n = c->red.n_items;
	int64_t *sim = malloc((c->n_seed + 1) * sizeof *sim);
	int skipped = 0, cut = 0;
	double t1 = ilpi_now();

	if (sim == NULL)
		goto nomem;
	for (size_t k = 0; k < c->n_seed; k++) {
		sim[k] = -1;
		if (seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) != 0)
			continue;
		if ((sim[k] = simulate(c, c->ts, c->tr)) < 0)
			continue;
		note(c, "peak seed %s: simulated %lld bytes", c->seed[k]->method,
		    (long long)sim[k]);
		if (*best < 0 || sim[k] < *best) {
			*best = c->peak_best = sim[k];
			memcpy(c->ws, c->ts, n);
			memcpy(c->wr, c->tr, n);
		}
	}
	for (size_t k = 0; k < c->n_seed; k++) {
		if (sim[k] < 0 || (double)sim[k] > 1.05 * (double)*best)
			continue;
		if (peak_late(c)) {
			skipped++;
			continue;
		}
		if (seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) != 0 ||
		    cut_answer(c, c->ts, c->tr, sim[k]) != 0)
			goto nomem;
		cut++;
	}
	note(c, "peak seed cuts: %d seeds cut off, %.2fs%s", cut, ilpi_now() - t1,
	    skipped > 0 ? " (cut short by the time limit)" : "");
	free(sim);
	return 0;
nomem:
	free(sim);
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
	return -1;
}

/* ---- incumbents from the block decomposition and a descent (docs/solver.md
 * "Peak memory", "Incumbents from the blocks' front") ---- */

/* The simulation of the item answer (s, r) (must be canonical and valid): its peak and
 * the bytes above `floor` summed over its steps (the tie-break of the descent: an
 * answer whose peak is tied but with less mass near it is a step towards a lower
 * peak). peak -1 when it cannot be simulated. */
static void
simulate_mass(solve_ctx *c, const uint8_t *s, const uint8_t *r, double frac,
    int64_t *peak, double *mass)
{
	ilp_partition *p;
	ilpi_split sp;
	ilpi_memsim ms;

	*peak = -1;
	*mass = 0;
	memcpy(c->s, s, c->red.n_items);
	memcpy(c->r, r, c->red.n_items);
	if (to_nodes(c) != 0 || (p = ilp_partition_new(c->g)) == NULL)
		return;
	for (size_t v = 0; v < c->g->n; v++)
		p->state[v] = (uint8_t)((c->node_s[v] ? ILPI_P_SAVED : 0) |
		    (c->node_r[v] ? ILPI_P_RECOMPUTED : 0));
	memset(&sp, 0, sizeof sp);
	memset(&ms, 0, sizeof ms);
	if (ilpi_lower_unchecked(c->g, p, &sp, NULL) == 0) {
		if (ilpi_memsim_run(c->g, p, &sp, &ms, NULL) == 0) {
			double floor = frac * (double)ms.peak.peak_bytes;

			*peak = ms.peak.peak_bytes;
			for (size_t k = 0; k < ms.n_fw; k++)
				if ((double)ms.fw_live[k] > floor)
					*mass += (double)ms.fw_live[k] - floor;
			for (size_t k = 0; k < ms.n_bw; k++)
				if ((double)ms.bw_live[k] > floor)
					*mass += (double)ms.bw_live[k] - floor;
			ilpi_memsim_free(&ms);
		}
		ilpi_split_free(&sp);
	}
	ilp_partition_free(p);
}

/* (ts, tr) from the save set ts: canonical, and allowed by the model's columns. */
static int
valid_items(solve_ctx *c, uint8_t *s, uint8_t *r)
{
	for (size_t it = 0; it < c->red.n_items; it++)
		r[it] = !s[it];
	if (canon_items(&c->red, s, r, c->node_s) != 0)
		return 0;
	for (size_t it = 0; it < c->red.n_items; it++)
		if ((r[it] && c->m.col_r[it] == 0) || (s[it] && c->m.col_s[it] == 0))
			return 0;
	return 1;
}

/* A candidate (ts, tr) simulated at `sim`: the new incumbent when strictly lower
 * (confirmed by simulate(), the checked path). */
static int
peak_offer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim, int64_t *best)
{
	size_t n = c->red.n_items;

	if (sim < 0 || (*best >= 0 && sim >= *best))
		return 0;
	if (simulate(c, s, r) != sim)
		return 0;
	*best = c->peak_best = sim;
	memcpy(c->ws, s, n);
	memcpy(c->wr, r, n);
	return 1;
}

/* The best few distinct answers met so far (save sets, ascending simulated peak):
 * the descent's starting points. */
#define PEAK_STARTS 8

typedef struct peak_starts {
	uint8_t *s;               /* PEAK_STARTS save sets of n items */
	int64_t sim[PEAK_STARTS];
	size_t n;
} peak_starts;

static void
starts_offer(peak_starts *st, size_t n_items, const uint8_t *s, int64_t sim)
{
	size_t k;

	if (sim < 0 || (st->n == PEAK_STARTS && sim >= st->sim[PEAK_STARTS - 1]))
		return;
	for (k = 0; k < st->n; k++)
		if (memcmp(st->s + k * n_items, s, n_items) == 0)
			return;
	k = st->n < PEAK_STARTS ? st->n++ : PEAK_STARTS - 1;
	for (; k > 0 && st->sim[k - 1] > sim; k--) {
		st->sim[k] = st->sim[k - 1];
		memcpy(st->s + k * n_items, st->s + (k - 1) * n_items, n_items);
	}
	st->sim[k] = sim;
	memcpy(st->s + k * n_items, s, n_items);
}

/* Every partition on the (saved bytes, recompute time) front of the block
 * decomposition (solver/blocks.c, the same reduced model) is a candidate: lowered to
 * items and simulated. Points are tried coarse to fine (every 2^k-th), so a time
 * limit still leaves an even sample. */
static void
peak_front_seeds(solve_ctx *c, int64_t *best, peak_starts *st, double until)
{
	ilpi_blocks *b = NULL;
	ilp_error e = { 0 };
	size_t np, tried = 0, looked = 0, n = c->red.n_items;
	int64_t sim, first = *best;
	double mass, t1 = ilpi_now();
	uint8_t *seen = NULL;

	if (c->o->prefer == ILP_PREFER_SOFT || c->o->monolithic || n == 0)
		return;
	if (ilpi_blocks_plan_coarse(&c->red, 16, &b, &e) != 0 || b == NULL) {
		note(c, "peak front: no block decomposition, %.2fs", ilpi_now() - t1);
		ilpi_blocks_free(b);
		return;
	}
	ilpi_blocks_set_time_limit(b, until - t1 > 1e-3 ? until - t1 : 1e-3);
	if (ilpi_blocks_prepare(b, &e) != 0 || ilpi_blocks_front(b, &e) != 0) {
		note(c, "peak front: the decomposition does not apply, %.2fs", ilpi_now() - t1);
		ilpi_blocks_free(b);
		return;
	}
	np = ilpi_blocks_front_size(b);
	if ((seen = calloc(np + 1, 1)) == NULL) {
		ilpi_blocks_free(b);
		return;
	}
	for (size_t step = (size_t)1 << 20; step >= 1 && ilpi_now() < until; step /= 2)
		for (size_t i = 0; i < np && ilpi_now() < until; i += step) {
			if (seen[i])
				continue;
			seen[i] = 1;
			looked++;
			ilpi_blocks_lower(b, i, c->ts, c->tr);
			if (!valid_items(c, c->ts, c->tr))
				continue;
			tried++;
			simulate_mass(c, c->ts, c->tr, 1, &sim, &mass);
			starts_offer(st, n, c->ts, sim);
			(void)peak_offer(c, c->ts, c->tr, sim, best);
		}
	note(c, "peak front: %zu points, %zu simulated, best %lld bytes (seeds %lld), "
	    "%.2fs%s", np, tried, (long long)*best, (long long)first, ilpi_now() - t1,
	    looked < np ? " (cut short by its share of the time limit: the answer "
	    "may differ between runs)" : "");
	free(seen);
	ilpi_blocks_free(b);
}

/* First-improvement descent from (cs, cr), simulated at *cur: toggle one item's save
 * (the rest follows canonically); keep a move when the simulated peak drops, or stays
 * and the bytes within 5 % of it over all steps shrink. Until no move helps, `until`
 * or *budget simulations are spent. */
static void
descend(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t *cur, int64_t *best,
    double until, size_t *budget, size_t *moves)
{
	size_t n = c->red.n_items;
	int64_t sim;
	double cmass, mass;
	int improved = 1;

	simulate_mass(c, cs, cr, 0.95, cur, &cmass);
	if (*cur < 0)
		return;
	while (improved && ilpi_now() < until && *budget > 0) {
		improved = 0;
		for (size_t it = 0; it < n && ilpi_now() < until && *budget > 0; it++) {
			if (c->m.col_s[it] == 0 || (!cs[it] && !cr[it]))
				continue;
			memcpy(c->ts, cs, n);
			c->ts[it] = !c->ts[it];
			if (!valid_items(c, c->ts, c->tr) || memcmp(c->ts, cs, n) == 0)
				continue;
			(*budget)--;
			simulate_mass(c, c->ts, c->tr, 0.95, &sim, &mass);
			if (sim < 0 || sim > *cur || (sim == *cur && !(mass < cmass * (1 - 1e-12))))
				continue;
			if (sim < *cur)
				simulate_mass(c, c->ts, c->tr, 0.95, &sim, &mass);
			memcpy(cs, c->ts, n);
			memcpy(cr, c->tr, n);
			*cur = sim;
			cmass = mass;
			(*moves)++;
			improved = 1;
			(void)peak_offer(c, cs, cr, *cur, best);
		}
	}
}

/* Descents from the incumbent and the front's best answers, then from random
 * perturbations of the best (a fixed-seed generator and a budget of simulations, so
 * the result does not depend on the machine's speed unless `until` cuts it short). */
static void
peak_descent(solve_ctx *c, int64_t *best, peak_starts *st, double until)
{
	size_t n = c->red.n_items, moves = 0, budget = 20 * n + 2000, spent, n_var = 0;
	uint8_t *cs = malloc(2 * n + 1), *cr;
	int32_t *var = malloc((n + 1) * sizeof *var);
	int64_t cur, first = *best;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	double t1 = ilpi_now();
	int rounds = 0;

	if (cs == NULL || var == NULL || *best < 0)
		goto out;
	cr = cs + n;
	for (size_t it = 0; it < n; it++)
		if (c->m.col_s[it] != 0)
			var[n_var++] = (int32_t)it;
	starts_offer(st, n, c->ws, *best);
	for (size_t k = 0; k < st->n && ilpi_now() < until && budget > 0; k++) {
		memcpy(cs, st->s + k * n, n);
		if (!valid_items(c, cs, cr))
			continue;
		descend(c, cs, cr, &cur, best, until, &budget, &moves);
	}
	while (n_var > 0 && ilpi_now() < until && budget > 0) {
		memcpy(cs, c->ws, n);
		for (int k = 0; k < 3; k++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			cs[var[(rng >> 33) % n_var]] ^= 1;
		}
		if (!valid_items(c, cs, cr))
			continue;
		descend(c, cs, cr, &cur, best, until, &budget, &moves);
		rounds++;
	}
	spent = 20 * n + 2000 - budget;
	note(c, "peak descent: %d perturbations, %zu moves, %zu simulated, best %lld bytes "
	    "(from %lld), %.2fs%s", rounds, moves, spent, (long long)*best, (long long)first,
	    ilpi_now() - t1, budget > 0 && n_var > 0 ? " (cut short by its share of the time "
	    "limit: the answer may differ between runs)" : "");
out:
	free(cs);
	free(var);
}

/* Branching weights of the least-peak solves: an integer column's weight is 1 plus the
 * sum of its coefficients' magnitudes over the rows with the peak column (bytes in
 * model units). A saved value of a lower layer of a stack is live at the peak steps of
 * every layer above it, so it weighs in each of their rows: branching on it first
 * decides what the tied rows share (on the 12-layer transformer the bound of the first
 * loop solve rose faster than with GLPK's Driebeck-Tomlin rule; docs/solver.md). */
static int
peak_weights(solve_ctx *c)
{
	glp_prob *lp = c->m.lp;
	int nc = glp_get_num_cols(lp), nr, *ind, *rows;
	double *val, *rval, *w;

	w = realloc(c->peak_w, ((size_t)nc + 1) * sizeof *w);
	if (w == NULL)
		return -1;
	c->peak_w = w;
	c->n_peak_w = nc;
	ind = malloc(((size_t)nc + 1) * sizeof *ind);
	val = malloc(((size_t)nc + 1) * sizeof *val);
	rows = malloc(((size_t)glp_get_num_rows(lp) + 1) * sizeof *rows);
	rval = malloc(((size_t)glp_get_num_rows(lp) + 1) * sizeof *rval);
	if (ind == NULL || val == NULL || rows == NULL || rval == NULL) {
		free(ind);
		free(val);
		free(rows);
		free(rval);
		return -1;
	}
	for (int j = 0; j <= nc; j++)
		w[j] = 1;
	nr = glp_get_mat_col(lp, c->peak.col, rows, rval);
	for (int k = 1; k <= nr; k++) {
		int len = glp_get_mat_row(lp, rows[k], ind, val);

		for (int i = 1; i <= len; i++)
			if (ind[i] != c->peak.col && glp_get_col_kind(lp, ind[i]) != GLP_CV)
				w[ind[i]] += fabs(val[i]);
	}
	free(ind);
	free(val);
	free(rows);
	free(rval);
	return 0;
}

/* The peak column's floor rises to the proven bound (below the best peak, so an
 * answer with a lower peak keeps its place): later solves start from it. */
static void
raise_peak_floor(solve_ctx *c, int64_t best)
{
	double unit = c->m.byte_unit, lb = glp_get_col_lb(c->m.lp, c->peak.col);
	double to = floor(fmin(c->peak_bound, (double)best - 1)) / unit;

	if (best >= 0 && to > lb)
		glp_set_col_bnds(c->m.lp, c->peak.col, GLP_LO, to, 0);
}

/* The peak search's second stage: the peak column bounded by the best simulated peak
 * (plus rounding) and out of the objective. */
static void
peak_stage2_model(solve_ctx *c, int64_t best)
{
	double unit = c->m.byte_unit, lb = glp_get_col_lb(c->m.lp, c->peak.col);
	double ub = (double)best / unit + 1e-9 * (1 + (double)best / unit);

	glp_set_obj_coef(c->m.lp, c->peak.col, 0);
	glp_set_col_bnds(c->m.lp, c->peak.col, ub > lb ? GLP_DB : GLP_FX, lb,
	    ub > lb ? ub : lb);
}

/* Least simulated peak, then least recompute cost at that peak. The peak rows bound
 * the peak from below; the simulator (graph/memsim.c) is the truth. Each answer is
 * simulated and cut off by a no-good cut carrying its true peak, until the ILP's bound
 * meets the best simulated peak (proven optimal) or time runs out (the gap is
 * reported). docs/solver.md "Peak memory". */
static int
obj_peak(solve_ctx *c, ilp_error *err)
{
	ilpi_terms none = { 0, 0, NULL, NULL }, tc = terms(c, 0, 1, 1);
	ilpi_mip mip;
	size_t n = c->red.n_items;
	/* The decisions' tiny costs add at most half a byte: bounds stay exact in bytes. */
	double unit = c->m.byte_unit, eps = 0.5 / unit / (double)(2 * n + 1), limit;
	int64_t best = -1, sim, seeded;
	peak_starts starts;
	double t1, floor0;
	int iter, rc;

	/* Loop time: the caller's limit, else 60 s; stage 2 gets what is left. */
	memset(&mip, 0, sizeof mip);
	limit = peak_limit(c->o);
	c->peak_bound = 0;
	if (ilpi_peak_cuts_new(c->g, &c->m, c->peak.col, &c->cuts) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	if (peak_try_seeds(c, &best, err) != 0)
		return -1;
	/* A tenth of the time each for better incumbents: the blocks' front, then a
	 * descent (never past the limit). */
	seeded = best;
	t1 = ilpi_now();
	starts.n = 0;
	if ((starts.s = c->starts_buf = malloc(PEAK_STARTS * n + 2 * n + 1)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	if (peak_late(c))
		note(c, "peak front: not made (cut short by the time limit)");
	else
		peak_front_seeds(c, &best, &starts, fmin(t1 + limit * 0.1, c->t0 + limit));
	if (peak_late(c))
		note(c, "peak descent: not run (cut short by the time limit)");
	else
		peak_descent(c, &best, &starts, fmin(ilpi_now() + limit * 0.15, c->t0 + limit));
	/* General rows at the incumbent's highest steps, before any solve (the rows and
	 * checks after the time limit are left out: they would only serve the loop). */
	if (best >= 0 && (general_rows(c, c->ws, c->wr, best, PEAK_GENERAL_FRAC,
	    PEAK_GENERAL_FIRST) != 0 || (best == seeded && !peak_late(c) &&
	    check_cuts(c, c->ws, c->wr, best) != 0))) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	if (best >= 0 && best != seeded && !peak_late(c) &&
	    cut_answer(c, c->ws, c->wr, best) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	/* The peak column's floor is the rows' largest constant: an answer simulated
	 * below it means a bound row is wrong (a bug). Nothing is proven then, and the
	 * second stage, which bounds the column by the best peak, is not run. */
	/* Before any solve the bound is what every partition has live at some step:
	 * the column's floor and the general rows' constants (the backward's own and
	 * held storage there). A loop whose first LP does not finish in time (the
	 * 48-layer transformer under load) still reports that, not 0. */
	floor0 = fmax(glp_get_col_lb(c->m.lp, c->peak.col) * unit - 0.5,
	    ilpi_peak_cuts_floor(c->cuts));
	if (best >= 0 && (double)best < floor0) {
		note(c, "peak floor %.0f bytes is above a simulated answer (%lld bytes)",
		    floor0, (long long)best);
		c->cuts_invalid = 1;
	} else {
		c->peak_bound = floor0;
		note(c, "peak floor before the loop: %.0f bytes (model: %d rows, %d nonzeros)",
		    floor0, glp_get_num_rows(c->m.lp), glp_get_num_nz(c->m.lp));
	}
	for (iter = 0;; iter++) {
		ilpi_model_set_objective(&c->m, &none);
		/* A tiny cost on every decision keeps answers canonical (nothing needless
		 * saved or recomputed), so cuts are not spent on equivalent answers (the
		 * solve that ends with the proof or one answer drops them: ilpi_mip.tie_drop). */
		for (size_t it = 0; it < n; it++) {
			if (c->m.col_s[it])
				glp_set_obj_coef(c->m.lp, c->m.col_s[it], eps);
			if (c->m.col_r[it])
				glp_set_obj_coef(c->m.lp, c->m.col_r[it], eps);
		}
		glp_set_obj_coef(c->m.lp, c->peak.col, 1);
		/* Only a strictly lower peak is worth finding: no answer left below the best
		 * is the proof. */
		if (best >= 0) {
			double lb = glp_get_col_lb(c->m.lp, c->peak.col);
			double ub = ((double)best - 0.5) / unit;

			if (ub < lb) {
				mip.status = GLP_NOFEAS;
				break;
			}
			/* GLPK refuses a double bound with lb == ub (near 2^60 bytes the
			 * half byte is lost in rounding) */
			glp_set_col_bnds(c->m.lp, c->peak.col, ub > lb ? GLP_DB : GLP_FX, lb,
			    ub > lb ? ub : lb);
		}
		if (!peak_room(c, "least-peak"))
			break;
		if (peak_weights(c) != 0) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		/* Only in the first solve (the general rows at the incumbent's tied steps,
		 * no answer of the loop cut yet) and only where its relaxation is already
		 * within the loop's gap of the best: such a solve ends with an answer just
		 * below the best or with the proof, and the weights raise the bound.
		 * Elsewhere GLPK's rule finds answers sooner (llama-2l: the first answer
		 * after 14 s instead of 3 s) and closed llama-2l's last solve (no answer
		 * left) where the weights did not in 42 s. */
		c->peak_w_from = best >= 0 && iter == 0 ? ((double)best - 0.5) / unit *
		    (1 - PEAK_LOOP_GAP) : DBL_MAX;
		if (stage_keep(c, "least-peak", c->ts, c->tr, &mip, err) != 0)
			return -1;
		if (mip.status == GLP_NOFEAS)
			break; /* every answer cut off: the best is proven */
		if (mip.status == GLP_UNDEF) {
			/* Out of time without an answer: its bound still holds for every
			 * answer below the best (never a proof from here). */
			if (mip.bound > -DBL_MAX && best >= 0)
				c->peak_bound = fmax(c->peak_bound, fmin((double)best - 1,
				    mip.bound * unit - 0.5));
			break;
		}
		/* Every solve's bound holds for every answer below its best (rows are only
		 * added): keep the largest, and start later solves there. */
		c->peak_bound = fmax(c->peak_bound, (mip.status == GLP_OPT ? mip.obj :
		    mip.bound) * unit - 0.5);
		raise_peak_floor(c, best);
		sim = simulate(c, c->ts, c->tr);
		if (sim < 0) {
			ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the peak answer cannot "
			    "be simulated", c->g->path);
			return -1;
		}
		if (best < 0 || sim < best) {
			best = c->peak_best = sim;
			memcpy(c->ws, c->ts, n);
			memcpy(c->wr, c->tr, n);
		}
		if ((mip.status != GLP_OPT && mip.status != GLP_FEAS) || mip.timed_out ||
		    (double)best <= ceil(c->peak_bound - 1e-6) || peak_late(c))
			break;
		if (cut_answer(c, c->ts, c->tr, sim) != 0) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		/* The answers lie where the rows are still weak: a short descent from each
		 * may find a lower peak there. */
		{
			size_t budget = 2 * n + 200, moves = 0;
			int64_t cur, was = best;

			memcpy(starts.s, c->ts, n);
			memcpy(starts.s + n, c->tr, n);
			descend(c, starts.s, starts.s + n, &cur, &best, fmin(ilpi_now() +
			    limit * 0.05, c->t0 + limit), &budget, &moves);
			if (best < was)
				note(c, "peak descent from the answer: %lld bytes", (long long)best);
		}
	}
	/* no answer left below the best: that is the bound (the floor before the loop
	 * was printed here, 1,188,768,768 bytes on the proven 12-layer transformer) */
	note(c, "least-peak: %d cuts, bound %.0f bytes, best simulated %lld bytes", iter,
	    mip.status == GLP_NOFEAS && best >= 0 && !c->cuts_invalid ? (double)best :
	    c->peak_bound, (long long)best);
	{
		int rows, cols, points;

		ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
		note(c, "peak cuts: exact rows at %d points (%d rows, %d columns), %d inexact, "
		    "%zu answers checked%s%s", points, rows, cols, c->cuts_inexact, c->n_hist,
		    ilpi_peak_cuts_refused(c->cuts) ? ", points refused at the rows' cap" : "",
		    c->cuts_invalid ? ", A ROW CUT OFF A SIMULATED ANSWER" : "");
	}
	if (best < 0) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: time limit reached before any partition was "
		    "simulated", c->g->path);
		return -1;
	}
	if (c->cuts_invalid) {
		c->peak_bound = 0; /* a row cut off some partition: nothing is proven */
		if (strcmp(c->status, "time-limit") != 0)
			c->status = "feasible";
	} else if ((double)best <= ceil(c->peak_bound - 1e-6) || mip.status == GLP_NOFEAS) {
		c->peak_bound = (double)best;
		c->status = "optimal"; /* the loop's solves stop at a gap: the proof is here */
		c->gap = 0;            /* not the last loop solve's gap (2 %) */
	}
	memcpy(c->s, c->ws, n);
	memcpy(c->r, c->wr, n);
	c->peak_sim = best;
	if (mip.status == GLP_UNDEF || mip.timed_out || c->peak_bound < (double)best ||
	    !peak_room(c, "least-recompute")) {
		/* unproven when the clock stopped it, also before or between the stages
		 * (a search that never ran one reported "feasible") */
		if (mip.status == GLP_UNDEF || mip.timed_out || (c->peak_bound < (double)best &&
		    peak_late(c)))
			c->status = "time-limit";
		else if (strcmp(c->status, "optimal") == 0)
			note(c, "least-recompute: not run, the time limit is spent (of the answers "
			    "at the proven peak, the one returned may differ between runs)");
		/* --write-lp/--write-mps: the model stage 2 would have solved */
		peak_stage2_model(c, best);
		return write_model(c, &tc, err);
	}
	/* Stage 2: least recompute cost among answers whose bound allows the best peak;
	 * kept only when its simulated peak is no worse. */
	peak_stage2_model(c, best);
	c->nofeas_ok = 1;
	rc = stage(c, "least-recompute", &tc, NULL, NULL, c->ts, c->tr, &mip, 1, err);
	c->nofeas_ok = 0;
	if (rc != 0)
		return -1;
	if (mip.status == GLP_NOFEAS) {
		/* The rows cut off the best answer, which was simulated at that peak: a bound
		 * row is above a partition's peak (a bug), so nothing is proven; the best
		 * answer stands. */
		note(c, "least-recompute: no answer at the best peak: A ROW CUT OFF A "
		    "SIMULATED ANSWER");
		c->cuts_invalid = 1;
		c->peak_bound = 0;
		c->status = "feasible";
	}
	if (mip.status == GLP_OPT || mip.status == GLP_FEAS) {
		sim = simulate(c, c->ts, c->tr);
		if (sim >= 0 && sim <= best) {
			memcpy(c->ws, c->ts, n);
			memcpy(c->wr, c->tr, n);
			c->peak_sim = sim;
		}
	}
	if (mip.status == GLP_UNDEF)
		note(c, "least-recompute: no answer in the time left; the least-peak answer "
		    "stands (of the partitions at its peak it is not shown to recompute least)");
	memcpy(c->s, c->ws, n);
	memcpy(c->r, c->wr, n);
	return 0;
}

/* The seeds (peak_seeds: min-cut, the references, save-all, ILP optima) whose simulated
 * peak is within the peak budget and whose saved bytes are within the memory budget:
 * the least recompute cost among them goes to (s, r). 1: found; 0: none. */
static int
peak_budget_seed(solve_ctx *c, uint8_t *s, uint8_t *r, int64_t *sim_out, double *cost)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	int found = 0;

	for (size_t k = 0; k < c->n_seed; k++) {
		int64_t sim;
		double v;

		if (seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) != 0)
			continue;
		if (c->budget >= 0 && ilpi_model_value(&c->m, &tb, c->ts, c->tr) >
		    floor((double)c->budget / c->m.byte_unit) + 0.5)
			continue;
		v = ilpi_model_value(&c->m, &tc, c->ts, c->tr);
		if (found && v >= *cost)
			continue;
		if ((sim = simulate(c, c->ts, c->tr)) < 0 || sim > c->o->peak_budget)
			continue;
		memcpy(s, c->ts, n);
		memcpy(r, c->tr, n);
		*sim_out = sim;
		*cost = v;
		found = 1;
	}
	return found;
}

/* --peak-budget with the runtime objective: the rows hold P <= budget; an answer whose
 * simulated peak still exceeds it is cut off (no-good cut with its true peak) and the
 * stages run again. The seeds within both budgets are the answer when the loop finds
 * none in time (or a dearer one): a verdict whenever a known partition fits. */
static int
obj_runtime_peak(solve_ctx *c, ilp_error *err)
{
	double unit = c->m.byte_unit, ub = (double)c->o->peak_budget / unit;
	double lb = glp_get_col_lb(c->m.lp, c->peak.col);
	double fb_cost = 0;
	ilpi_terms tc = terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	int64_t fb_sim = -1;
	uint8_t *fb;
	int have_fb, rc;

	if (ub < lb) {
		ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'peak-budget': budget conflict: %lld bytes "
		    "is below the least peak any partition can have (at least %.0f bytes)", c->g->path,
		    (long long)c->o->peak_budget, lb * unit);
		return -1;
	}
	/* the context owns it: a GLPK error leaves this function by longjmp */
	free(c->fb_buf);
	if ((fb = c->fb_buf = malloc(2 * n + 1)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	have_fb = peak_budget_seed(c, fb, fb + n, &fb_sim, &fb_cost);
	if (have_fb)
		note(c, "peak budget: a seed fits (simulated %lld bytes, recompute %.10g us)",
		    (long long)fb_sim, fb_cost);
	glp_set_col_bnds(c->m.lp, c->peak.col, ub > lb ? GLP_DB : GLP_FX, lb, ub);
	/* the first round whatever the clock: its stages keep to the limit */
	for (int round = 0; round < 200 && (round == 0 || !peak_late(c)); round++) {
		ilp_error e = { 0 };

		if (obj_runtime(c, &e) != 0) {
			/* Out of time (or GLPK stopped) without an answer: the seed is one. */
			if (!have_fb || e.kind != ILP_ERR_SOLVER) {
				*err = e;
				return -1;
			}
			note(c, "peak budget: %s", e.msg);
			break;
		}
		c->peak_sim = simulate(c, c->s, c->r);
		if (c->peak_sim >= 0 && c->peak_sim <= c->o->peak_budget) {
			if (have_fb && strcmp(c->status, "optimal") != 0 &&
			    ilpi_model_value(&c->m, &tc, c->s, c->r) > fb_cost)
				break; /* a seed recomputes less than the unproven answer */
			return 0;
		}
		note(c, "simulated peak %lld exceeds the peak budget: cutting the answer off",
		    (long long)c->peak_sim);
		if (c->peak_sim < 0 || nogood_cut(c, c->s, c->r, (double)c->peak_sim / unit) != 0)
			break;
	}
	if (have_fb) {
		memcpy(c->s, fb, n);
		memcpy(c->r, fb + n, n);
		c->peak_sim = simulate(c, c->s, c->r);
		rc = c->peak_sim == fb_sim ? 0 : -1;
		if (rc != 0)
			ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the peak budget's seed "
			    "simulates differently twice", c->g->path);
		c->status = peak_late(c) ? "time-limit" : "feasible";
		c->gap = 1;   /* nothing proven about its recompute cost */
		note(c, "peak budget: answering with the seed (%s)", c->status);
		return rc;
	}
	ilpi_err(err, ILP_ERR_SOLVER, "%s: no partition found whose simulated peak is within "
	    "%lld bytes (the peak rows are a lower bound; see docs/solver.md)", c->g->path,
	    (long long)c->o->peak_budget);
	return -1;
}

/* ilpi_peak_audit's model: general and exact rows at every step of every partition
 * that is an item answer here, each evaluated at every such answer. */
static int
peak_audit(solve_ctx *c, ilp_error *err)
{
	size_t n = c->red.n_items, m = 0;
	uint8_t *sr = malloc(2 * n * c->n_audit + 1), *need = malloc(c->g->n + 1);
	int64_t *sim = malloc((c->n_audit + 1) * sizeof *sim);
	int rc = -1, rows, cols, points;

	c->audit_excess = -1e300;
	if (sr == NULL || need == NULL || sim == NULL ||
	    ilpi_peak_cuts_new(c->g, &c->m, c->peak.col, &c->cuts) != 0)
		goto nomem;
	for (size_t k = 0; k < c->n_audit; k++) {
		uint8_t *s = sr + 2 * n * m, *r = s + n;
		ilpi_split sp;
		ilpi_memsim ms;
		ilpi_memtrace tr;

		if (seed_items(c, c->audit[k], s, r, need) != 0 || (sim[m] = simulate(c, s, r)) < 0)
			continue;
		memset(&sp, 0, sizeof sp);
		memset(&ms, 0, sizeof ms);
		memset(&tr, 0, sizeof tr);
		{
			ilp_partition *p = ilp_partition_new(c->g);

			if (p == NULL)
				goto nomem;
			for (size_t v = 0; v < c->g->n; v++)
				p->state[v] = (uint8_t)((c->node_s[v] ? ILPI_P_SAVED : 0) |
				    (c->node_r[v] ? ILPI_P_RECOMPUTED : 0));
			if (ilpi_lower_unchecked(c->g, p, &sp, NULL) == 0 &&
			    ilpi_memsim_trace(c->g, &sp, &ms, &tr, NULL) == 0) {
				for (size_t at = 0; at < ms.n_bw; at++)
					if (ilpi_peak_cuts_add_general(c->cuts, &ms, &tr, at) < 0 ||
					    ilpi_peak_cuts_add(c->cuts, &ms, &tr, at) < 0)
						rc = -2;
				for (size_t at = 0; at < ms.n_fw; at++)
					if (ilpi_peak_cuts_add_fw(c->cuts, &ms, &tr, at) < 0)
						rc = -2;
			}
			ilpi_memtrace_free(&tr);
			ilpi_memsim_free(&ms);
			ilpi_split_free(&sp);
			ilp_partition_free(p);
			if (rc == -2)
				goto nomem;
		}
		m++;
	}
	ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
	c->audit_points = points;
	for (size_t h = 0; h < m; h++) {
		if (ilpi_peak_cuts_eval(c->cuts, sr + 2 * n * h, sr + 2 * n * h + n) != 0)
			goto nomem;
		for (int k = 0; k < points; k++)
			c->audit_excess = fmax(c->audit_excess,
			    ilpi_peak_cuts_point_value(c->cuts, k) - (double)sim[h]);
		/* the general rows' common floor bounds every partition too */
		c->audit_excess = fmax(c->audit_excess, ilpi_peak_cuts_floor(c->cuts) -
		    (double)sim[h]);
	}
	rc = 0;
nomem:
	if (rc != 0)
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
	free(sr);
	free(need);
	free(sim);
	return rc;
}

static int
run_model(void *ctx, ilp_error *err)
{
	solve_ctx *c = ctx;

	if (ilpi_model_build(c->g, &c->red, &c->m, err) != 0)
		return -1;
	if ((c->o->objective == ILP_OBJ_PEAK || c->o->peak_budget >= 0) &&
	    ilpi_peak_rows_add(c->g, &c->m, &c->peak, err) != 0)
		return -1;
	note(c, "model: %d columns, %d rows, byte unit %g", glp_get_num_cols(c->m.lp),
	    glp_get_num_rows(c->m.lp), c->m.byte_unit);
	if (c->peak.col != 0)
		note(c, "peak rows: %d at %d steps%s", c->peak.n_rows, c->peak.n_steps,
		    c->peak.n_sums ? " (through running sums: the dense rows would be too "
		    "large)" : "");
	if (c->o->prefer == ILP_PREFER_SOFT)
		penalties(c);
	if (c->audit != NULL)
		return peak_audit(c, err);
	switch (c->o->objective) {
	case ILP_OBJ_MEMORY:
		return obj_memory(c, err);
	case ILP_OBJ_RUNTIME:
		return c->o->peak_budget >= 0 ? obj_runtime_peak(c, err) : obj_runtime(c, err);
	case ILP_OBJ_PEAK:
		return obj_peak(c, err);
	case ILP_OBJ_WEIGHTED:
		return obj_weighted(c, err);
	}
	return -1;
}

/* ---- from items to a checked partition ----------------------------------------- */

/* Node-level answer: an item's save is its rep's, its recompute all its members';
 * then the canonical form (only what the backward needs, saved ones not recomputed). */
static int
to_nodes(solve_ctx *c)
{
	const ilp_graph *g = c->g;
	const ilpi_reduced *red = &c->red;
	uint8_t *need;

	memset(c->node_s, 0, g->n);
	memset(c->node_r, 0, g->n);
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];

		if (c->s[it])
			c->node_s[item->rep] = 1;
		for (uint32_t k = 0; c->r[it] && k < item->mem_count; k++)
			c->node_r[red->member[item->mem_begin + k]] = 1;
	}
	need = calloc(g->n + 1, 1);
	if (need == NULL)
		return -1;
	for (size_t v = g->n; v-- > 0;) {
		const ilpi_node *n = &g->node[v];
		const int32_t *in = ilpi_inputs(g, n);

		if (!red->cand[v])
			continue;
		if (!need[v] && !red->boundary[v]) {
			c->node_s[v] = c->node_r[v] = 0;
			continue;
		}
		if (c->node_s[v])
			c->node_r[v] = 0;
		else if (!c->node_r[v]) {
			free(need);
			return -2;
		}
		for (uint32_t k = 0; c->node_r[v] && k < n->in_count; k++)
			need[in[k]] = 1;
	}
	free(need);
	return 0;
}

static const char *
objective_name(ilp_objective o)
{
	return o == ILP_OBJ_RUNTIME ? "runtime" : o == ILP_OBJ_WEIGHTED ? "weighted" :
	    o == ILP_OBJ_PEAK ? "peak" : "memory";
}

/* Soft mode: every preference the optimum overrode, with the penalty it accepted for
 * doing so (the objective gains at least that much by overriding). */
static int
record_overrides(solve_ctx *c, ilp_partition *p)
{
	const ilpi_reduced *red = &c->red;
	int time_units = c->o->objective == ILP_OBJ_RUNTIME;

	if (c->o->prefer != ILP_PREFER_SOFT)
		return 0;
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];
		int32_t v = item->rep;
		double gain;

		if ((item->prefer & ILPI_R_PREFER_SAVE) && c->node_r[v]) {
			gain = time_units ? c->pen[PEN_TIME_R][it] :
			    c->pen[PEN_BYTES_R][it] * c->m.byte_unit;
			/* named by its own tag: a PREFER_CPU_OFFLOAD binds as PREFER_SAVE */
			if (ilpi_partition_add_override(p, v, ilpi_sac_tag(c->g, (size_t)v) ==
			    ILPI_TAG_PREFER_CPU_OFFLOAD ? ILPI_TAG_PREFER_CPU_OFFLOAD :
			    ILPI_TAG_PREFER_SAVE, gain) != 0)
				return -1;
		}
		if ((item->prefer & ILPI_R_PREFER_RECOMPUTE) && c->node_s[v]) {
			gain = time_units ? c->pen[PEN_TIME_S][it] :
			    c->pen[PEN_BYTES_S][it] * c->m.byte_unit;
			if (ilpi_partition_add_override(p, v, ILPI_TAG_PREFER_RECOMPUTE, gain) != 0)
				return -1;
		}
	}
	return 0;
}

static int
make_partition(solve_ctx *c, ilp_partition **out, ilp_error *err)
{
	const ilp_graph *g = c->g;
	ilp_partition *p;
	ilp_check_options co;
	ilp_error cerr = { 0 };
	int rc;

	if ((rc = to_nodes(c)) != 0) {
		ilpi_err(err, rc == -1 ? ILP_ERR_SYSTEM : ILP_ERR_SOLVER, rc == -1 ?
		    "%s: out of memory" : "%s: internal error: the ILP solution leaves a needed "
		    "value unavailable", g->path);
		return -1;
	}
	if ((p = ilp_partition_new(g)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	for (size_t v = 0; v < g->n; v++)
		p->state[v] = (uint8_t)((c->node_s[v] ? ILPI_P_SAVED : 0) |
		    (c->node_r[v] ? ILPI_P_RECOMPUTED : 0));
	ilpi_partition_mark_rng(g, p);
	ilpi_partition_set_producer(p, "ilp", objective_name(c->o->objective),
	    ilp_prefer_name(c->o->prefer), c->status);
	ilpi_partition_record(p, g, c->o);
	p->gap = c->gap;
	p->budget_bytes = c->budget;
	if (ilp_partition_evaluate(g, p, &c->o->device, err) != 0 ||
	    record_overrides(c, p) != 0)
		goto fail;
	switch (c->o->objective) {
	case ILP_OBJ_MEMORY:
		p->objective_value = (double)p->saved_bytes;
		break;
	case ILP_OBJ_RUNTIME:
		p->objective_value = p->recompute_time_us;
		break;
	case ILP_OBJ_WEIGHTED:
		p->objective_value = (double)p->saved_bytes + c->o->alpha * p->recompute_time_us;
		break;
	case ILP_OBJ_PEAK:
		/* Proven: the bound; the answer's truth: its simulated peak. */
		p->objective_value = (double)c->peak_sim;
		if (c->peak_sim > 0 && c->peak_bound >= 0 &&
		    (double)c->peak_sim > ceil(c->peak_bound - 1e-6)) {
			ilpi_partition_set_producer(p, NULL, NULL, NULL,
			    strcmp(c->status, "time-limit") == 0 ? "time-limit" : "feasible");
			p->gap = ((double)c->peak_sim - c->peak_bound) / (double)c->peak_sim;
		}
		break;
	}
	co.prefer = c->o->prefer;
	if (ilp_check(g, p, &co, &cerr) != 0) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the ILP partition fails the "
		    "checker: %s", g->path, cerr.msg);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	if (err != NULL && err->kind == ILP_ERR_NONE)
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	ilp_partition_free(p);
	return -1;
}

static int
build_rules(solve_ctx *c, ilp_error *err)
{
	ilpi_rule_options ro;

	if (c->have_rules)
		return 0;
	ilpi_rule_options_init(&ro);
	ro.prefer = c->o->prefer;
	ro.bans = c->o->bans;
	/* PyTorch's budget path may lift any of its bans and replays the RNG state of the
	 * random ops it then recomputes (docs/solver.md, "Memory budgets"). */
	ro.budget = c->o->budget_bytes >= 0 || c->o->budget_fraction >= 0;
	/* The peak objective and a peak budget are memory budgets too: the same rules,
	 * so PyTorch's budget partitions are among the answers they choose from. */
	ro.budget = ro.budget || c->o->objective == ILP_OBJ_PEAK || c->o->peak_budget >= 0;
	ro.rng_replay = c->o->rng_replay == ILP_RNG_REPLAY_ALWAYS ||
	    (c->o->rng_replay == ILP_RNG_REPLAY_AUTO && ro.budget);
	if (ilpi_rules_build(c->g, &ro, &c->rules, err) != 0)
		return -1;
	c->have_rules = 1;
	return 0;
}

/* Recompute costs below this many microseconds count as free in the model. */
#define COST_FLOOR_US 1e-9

static int
prepare(solve_ctx *c, ilp_error *err)
{
	const ilp_graph *g = c->g;
	size_t n;

	if (build_rules(c, err) != 0)
		return -1;
	if ((c->cost = calloc(g->n + 1, sizeof *c->cost)) == NULL)
		goto nomem;
	/* A cost below the lexicographic stages' tolerance (level(): 1e-9 us) cannot
	 * change an answer, and next to large costs in one row it breaks GLPK's scaling:
	 * a node of 1e-10 flops got a boundary value neither saved nor recomputed. */
	for (size_t v = 0; v < g->n; v++)
		if (ilpi_node_costs_recompute(g, v)) {
			c->cost[v] = ilpi_node_cost_us(g, v, &c->o->device);
			if (c->cost[v] < COST_FLOOR_US)
				c->cost[v] = 0;
		}
	if (ilpi_reduce(g, &c->rules, c->cost, (c->o->prefer == ILP_PREFER_SOFT ?
	    ILPI_REDUCE_SOFT : 0) | (c->o->objective == ILP_OBJ_PEAK || c->o->peak_budget >= 0 ?
	    ILPI_REDUCE_PEAK : 0), &c->red, err) != 0)
		return -1;
	note(c, "reduce: %zu nodes, %zu candidates, %zu boundary, %zu items (%zu contracted, "
	    "%zu views fixed, %zu dropped), %zu storages", g->n, c->red.n_candidates,
	    c->red.n_boundary, c->red.n_items, c->red.n_contracted, c->red.n_view_fixed,
	    c->red.n_dropped, c->red.n_stor);
	n = c->red.n_items + 1;
	c->s = calloc(n, 1), c->r = calloc(n, 1), c->ws = calloc(n, 1), c->wr = calloc(n, 1);
	c->ts = calloc(n > g->n ? n : g->n + 1, 1), c->tr = calloc(n, 1);
	c->node_s = calloc(g->n + 1, 1), c->node_r = calloc(g->n + 1, 1);
	for (int k = 0; k < 4; k++)
		if ((c->pen[k] = calloc(n, sizeof *c->pen[k])) == NULL)
			goto nomem;
	for (int k = 0; k < 2; k++)
		if ((c->pen_b[k] = calloc(n, sizeof *c->pen_b[k])) == NULL)
			goto nomem;
	if (c->o->prefer == ILP_PREFER_SOFT)
		penalties_raw(c);
	if (c->s == NULL || c->r == NULL || c->ws == NULL || c->wr == NULL || c->ts == NULL ||
	    c->tr == NULL || c->node_s == NULL || c->node_r == NULL)
		goto nomem;
	save_all(&c->red, c->ws, c->wr, c->ts);
	return 0;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	return -1;
}

static void
release(solve_ctx *c, int glpk_freed)
{
	ilpi_model_free(&c->m, glpk_freed);
	ilpi_blocks_free(c->blocks);
	ilpi_reduced_free(&c->red);
	if (c->have_rules)
		ilpi_rules_free(&c->rules);
	free(c->cost);
	free(c->s);
	free(c->r);
	free(c->ws);
	free(c->wr);
	free(c->ts);
	free(c->tr);
	free(c->ds);
	free(c->dr);
	free(c->node_s);
	free(c->node_r);
	for (int k = 0; k < 4; k++)
		free(c->pen[k]);
	for (int k = 0; k < 2; k++)
		free(c->pen_b[k]);
	for (size_t k = 0; k < c->n_seed; k++)
		ilp_partition_free(c->seed[k]);
	free(c->seed);
	ilpi_peak_cuts_free(c->cuts);
	free(c->hist);
	free(c->hist_sim);
	free(c->starts_buf);
	free(c->fb_buf);
	free(c->general_at);
	free(c->peak_w);
	free(c->keep_obj);
	ilp_partition_free(c->pt);
	ilp_partition_free(c->soft_seed);
}

/* Why partition p may not be an answer of this solve (the checker in the solve's prefer
 * mode, then the solve's own rules: bans under a budget, RNG replay), or NULL. */
static const char *
breaks_rules(const solve_ctx *c, const ilp_partition *p, char *buf, size_t len)
{
	const ilp_graph *g = c->g;
	ilp_check_options co;
	ilp_error cerr = { 0 };
	char why[128];

	co.prefer = c->o->prefer;
	if (ilp_check(g, p, &co, &cerr) != 0) {
		snprintf(buf, len, "%s", cerr.msg);
		return buf;
	}
	for (size_t v = 0; v < g->n; v++) {
		unsigned bit = ilpi_saved(p, v) ? ILPI_R_NO_SAVE :
		    ilpi_recomputed(p, v) ? ILPI_R_NO_RECOMPUTE : 0;

		if (bit == 0 || !(c->rules.bits[v] & bit))
			continue;
		snprintf(buf, len, "node '%s' is %s, which this solve forbids (%s)",
		    g->node[v].name, bit == ILPI_R_NO_SAVE ? "saved" : "recomputed",
		    ilpi_rules_explain(g, &c->rules, v, bit, why, sizeof why));
		return buf;
	}
	return NULL;
}

/* A fraction F means what torch's activation_memory_budget F means: the bytes its
 * memory ratio compares F against, B(F) = min + F * (max - min), with min the inputs'
 * bytes and max what torch's min-cut saves at budget 1 (docs/solver.md, worked
 * example). With the pytorch cap, PyTorch's own partition at F (the min-cut's budget
 * path, which makes the cut at budget 1 for the bounds anyway) lowers the budget to
 * its saved bytes when it obeys this solve's rules: that partition is then feasible,
 * so the optimum saves no more and recomputes no longer. When it saves more than
 * B(F), ilp_solve may solve again within its bytes (see there). */
/* Torch's normalisation with the whole boundary saved as its max. */
static int
boundary_bounds(const ilp_graph *g, double *lo, double *hi)
{
	uint8_t *set = calloc(g->n + 1, 1);

	if (set == NULL)
		return -1;
	for (size_t i = 0; i < g->n; i++)
		set[i] = (g->node[i].flags & ILPI_F_BOUNDARY) != 0;
	ilpi_mincut_bounds_of(g, set, lo, hi);
	free(set);
	return 0;
}

/* Bytes of every parameter or buffer primal (flag "param"): the solver's measure does
 * not charge them, so a fraction's bytes in torch's measure, which counts a saved
 * parameter, become B(F) minus all of them: a partition within that saves at most B(F)
 * in torch's measure even when it saves every parameter. */
static int64_t
param_bytes(const ilp_graph *g)
{
	int64_t sum = 0;

	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind == ILPI_PRIMAL && (g->node[i].flags & ILPI_F_PARAM) &&
		    g->node[i].storage == (int32_t)i)
			sum += g->node[i].bytes;
	return sum;
}

static int
fraction_bytes(solve_ctx *c, ilp_error *err)
{
	ilpi_mincut_options mo;
	ilpi_mincut_info info;
	ilp_partition *p = NULL;
	ilp_error merr = { 0 };
	double lo, hi, f = c->o->budget_fraction;
	char why[sizeof merr.msg];
	const char *broke = NULL, *top = "min-cut at budget 1";
	int64_t bf, pb = param_bytes(c->g);

	ilpi_mincut_options_init(&mo);
	ilpi_mincut_options_from_solve(&mo, c->o);
	mo.prefer = ILP_PREFER_PYTORCH; /* torch's own reading of the tags */
	mo.check = 0;                   /* judged below by this solve's rules */
	if (c->o->fraction_cap == ILP_FRACTION_CAP_PYTORCH &&
	    ilpi_mincut_run(c->g, &mo, &p, &info, &merr) == 0) {
		lo = info.budget_min_bytes;
		hi = info.budget_max_bytes;
		ilpi_mincut_info_free(&info);
		broke = breaks_rules(c, p, why, sizeof why);
	} else {
		if (merr.kind == ILP_ERR_SYSTEM) {
			*err = merr;
			return -1;
		}
		if (merr.kind != ILP_ERR_NONE)
			broke = strcpy(why, merr.msg);
		merr.kind = ILP_ERR_NONE;
		if (ilpi_mincut_budget_bounds(c->g, &mo, &lo, &hi, &merr) != 0) {
			if (merr.kind != ILP_ERR_CONFLICT) {
				*err = merr;
				return -1;
			}
			/* No finite cut at budget 1 (torch raises NetworkXUnbounded): the
			 * top of the scale is saving every value the backward needs. */
			if (boundary_bounds(c->g, &lo, &hi) != 0) {
				ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
				return -1;
			}
			note(c, "budget: min-cut has no finite cut at budget 1 (%.200s)",
			    merr.msg);
			top = "the boundary, all saved";
		}
	}
	bf = (int64_t)floor(hi > lo ? lo + f * (hi - lo) : hi);
	note(c, "budget: %g in torch's normalisation [%.0f (inputs), %.0f (%s)] = %lld bytes",
	    f, lo, hi, top, (long long)bf);
	if (pb > 0) {
		note(c, "budget: %lld bytes less the %lld bytes of every parameter and buffer "
		    "(not charged when saved) = %lld bytes", (long long)bf, (long long)pb,
		    (long long)(bf > pb ? bf - pb : 0));
		bf = bf > pb ? bf - pb : 0;
	}
	c->budget = bf;
	if (c->o->fraction_cap != ILP_FRACTION_CAP_PYTORCH) {
		note(c, "budget: fraction cap normalised: %lld bytes", (long long)bf);
	} else if (broke != NULL) {
		note(c, "budget: PyTorch's partition at %g does not bound it: %.300s", f, broke);
	} else {
		c->pt_bytes = p->saved_bytes;
		c->pt_us = p->recompute_time_us;
		if (p->saved_bytes < bf)
			c->budget = p->saved_bytes;
		note(c, "budget: PyTorch's partition at %g obeys the rules and saves %lld bytes "
		    "(%.6g us recomputed): %lld bytes", f, (long long)p->saved_bytes,
		    p->recompute_time_us, (long long)c->budget);
		c->pt = p; /* a start for the runtime stage (obj_runtime) */
		p = NULL;
	}
	ilp_partition_free(p);
	return 0;
}

int
ilpi_blocks_report(const ilp_graph *g, const ilp_solve_options *o, char **text,
    ilp_error *err)
{
	solve_ctx c;
	ilpi_buf out;
	ilpi_blocks_extra x;
	int rc = -1;

	*text = NULL;
	memset(&c, 0, sizeof c);
	c.g = g;
	c.o = o;
	c.budget = -1;
	ilpi_buf_init(&out);
	if (check_options(g, o, err) != 0 || prepare(&c, err) != 0)
		goto done;
	if (ilpi_blocks_plan_extra(&c.red, soft_extra(&c, &x), 1, &c.blocks, err) != 0)
		goto done;
	if (c.blocks == NULL)
		ilpi_buf_printf(&out, "blocks: none (%zu items; no cut of at most 4 variables "
		    "splits them into segments of at most 400)\n", c.red.n_items);
	else
		ilpi_blocks_describe(g, c.blocks, &out);
	if ((*text = ilpi_buf_take(&out)) == NULL)
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
	else
		rc = 0;
done:
	ilpi_buf_free(&out);
	release(&c, 0);
	return rc;
}

/* GLPK's own internal errors (solver/glpk_env.c) know neither the file nor the stage:
 * name them as every other error line does. */
static void
glpk_failure(const solve_ctx *c, ilp_error *err)
{
	char msg[sizeof err->msg];

	if (err == NULL || err->kind != ILP_ERR_SOLVER || strncmp(err->msg, "GLPK", 4) != 0)
		return;
	snprintf(msg, sizeof msg, "%s", err->msg);
	if (c->stage_now != NULL)
		ilpi_err(err, ILP_ERR_SOLVER, "%s: stage '%s': %s", c->g->path, c->stage_now, msg);
	else
		ilpi_err(err, ILP_ERR_SOLVER, "%s: %s", c->g->path, msg);
}

/* A fresh context for one solve of g under o, byte budget `budget` (-1: none). */
static void
ctx_init(solve_ctx *c, const ilp_graph *g, const ilp_solve_options *o, int64_t budget)
{
	memset(c, 0, sizeof *c);
	c->g = g;
	c->o = o;
	c->t0 = ilpi_now();
	c->status = "optimal";
	c->budget = budget;
	c->least_bytes = -1;
	c->peak_bound = -1;
	c->peak_sim = -1;
	c->peak_best = -1;
	c->pt_bytes = -1;
}

/* run_model inside GLPK's guarded environment, its messages to o's log. */
static int
run_glpk(solve_ctx *c, int *freed, ilp_error *err)
{
	ilpi_glpk_log lg;

	lg.log = c->o->log;
	lg.log_ctx = c->o->log_ctx;
	lg.verbose = c->o->verbose;
	c->stage_now = "model"; /* until the first stage: building the model */
	return ilpi_glpk_run(run_model, c, &lg, freed, err);
}

/*
 * --prefer soft, a budgeted runtime solve with a time limit that the monolithic model
 * will solve (--monolithic, or the decomposition does not apply): the least-memory
 * partition, its only start within the budget, may not be found in time, and the
 * solve would end without a partition. A partition within the same bytes under
 * --prefer hard (it obeys every preference: no penalty), else, when that is a
 * conflict, under PyTorch's reading (--prefer pytorch), is a start: solved first, the
 * decomposition allowed, each in a third of the time left. Any failure leaves no seed
 * (the solve goes on as before).
 */
static void
soft_seed(solve_ctx *c)
{
	ilp_solve_options so = *c->o;
	ilp_error e = { 0 };

	so.budget_bytes = c->budget;
	so.budget_fraction = -1;
	so.monolithic = 0;
	so.verbose = 0;
	so.log = NULL;
	so.write_lp = so.write_mps = NULL;
	/* PyTorch's reading only when the hard one is a conflict (not out of time) */
	for (int k = 0; k < 2 && c->soft_seed == NULL && (k == 0 ||
	    e.kind == ILP_ERR_CONFLICT); k++) {
		double left = c->o->time_limit - (ilpi_now() - c->t0);

		so.time_limit = left / 3 > 1e-3 ? left / 3 : 1e-3;
		so.prefer = k == 0 ? ILP_PREFER_HARD : ILP_PREFER_PYTORCH;
		ilpi_err_clear(&e);
		if (ilp_solve(c->g, &so, &c->soft_seed, &e) != 0)
			c->soft_seed = NULL;
	}
	note(c, "soft: %s", c->soft_seed == NULL ? "no hard or pytorch-mode partition within "
	    "the budget to start from" : "a start from a hard or pytorch-mode partition "
	    "within the budget");
}

/* One solve. forced >= 0: the byte budget of a fraction, already decided (no second
 * fraction_bytes). *pt gets PyTorch's partition's bytes and time at the fraction when
 * it bounds the budget (fraction_bytes), *budget the budget used. */
static int
solve_pass(const ilp_graph *g, const ilp_solve_options *o, int64_t forced,
    ilp_partition **out, int64_t *pt_bytes, double *pt_us, int64_t *budget,
    ilp_partition **pt, ilp_error *err)
{
	solve_ctx c;
	int freed = 0, rc = -1;

	ctx_init(&c, g, o, o->budget_bytes);
	if (forced >= 0) {
		c.budget = forced;
		c.pt = *pt; /* the first pass's: a start within `forced` */
		*pt = NULL;
	} else if (o->budget_fraction >= 0 &&
	    (build_rules(&c, err) != 0 || fraction_bytes(&c, err) != 0))
		goto out;
	*pt_bytes = c.pt_bytes;
	*pt_us = c.pt_us;
	*budget = c.budget;
	if (prepare(&c, err) != 0)
		goto out;
	if ((o->objective == ILP_OBJ_PEAK || o->peak_budget >= 0) && peak_seeds(&c, err) != 0)
		goto out;
	if (o->prefer == ILP_PREFER_SOFT && o->objective == ILP_OBJ_RUNTIME && c.budget >= 0 &&
	    o->peak_budget < 0 && o->time_limit > 0) {
		/* the decomposition planned now (no GLPK), so the seed is made only for
		 * the monolithic model */
		int b = blocks_ready(&c, err);

		if (b < 0)
			goto out;
		if (b == 1)
			soft_seed(&c);
	}
	if (run_glpk(&c, &freed, err) != 0) {
		glpk_failure(&c, err);
		goto out;
	}
	rc = make_partition(&c, out, err);
out:
	if (forced < 0) {
		*pt = c.pt;
		c.pt = NULL;
	}
	release(&c, freed);
	return rc;
}

int
ilpi_peak_audit(const ilp_graph *g, const ilp_solve_options *o, ilp_partition *const *parts,
    size_t n, double *excess, int *points, ilp_error *err)
{
	solve_ctx c;
	int freed = 0, rc = -1;

	ctx_init(&c, g, o, -1);
	c.audit = parts;
	c.n_audit = n;
	if (o->objective != ILP_OBJ_PEAK) {
		ilpi_err(err, ILP_ERR_INPUT, "peak audit: the peak objective only");
		return -1;
	}
	if (check_options(g, o, err) != 0 || prepare(&c, err) != 0)
		goto out;
	if (run_glpk(&c, &freed, err) != 0) {
		glpk_failure(&c, err);
		goto out;
	}
	*excess = c.audit_excess;
	*points = c.audit_points;
	rc = 0;
out:
	release(&c, freed);
	return rc;
}

/* ---- every budget from one front (ilp_pareto, solver/pareto.c) ------------------ */

enum { FRONT_MIN_SEG = 16 };    /* items between the front's cuts, at least */

struct ilpi_front {
	ilp_solve_options o;      /* the runtime objective with a budget: its rules */
	solve_ctx c;              /* c.o points to o */
	size_t n;                 /* points on the front */
};

void
ilpi_front_free(ilpi_front *f)
{
	if (f == NULL)
		return;
	release(&f->c, 0);
	free(f);
}

int
ilpi_front_new(const ilp_graph *g, const ilp_solve_options *o, ilpi_front **out,
    ilp_error *err)
{
	ilpi_front *f;
	solve_ctx *c;
	int rc;

	*out = NULL;
	if (o->monolithic || o->prefer == ILP_PREFER_SOFT || o->peak_budget >= 0)
		return 0;
	if ((f = calloc(1, sizeof *f)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	f->o = *o;
	f->o.objective = ILP_OBJ_RUNTIME;
	f->o.budget_bytes = 0;    /* any budget: the rules a budget brings */
	f->o.budget_fraction = -1;
	f->o.write_lp = f->o.write_mps = NULL;
	c = &f->c;
	c->g = g;
	c->o = &f->o;
	c->t0 = ilpi_now();
	c->status = "optimal";
	c->budget = -1;
	c->least_bytes = -1;
	c->peak_bound = -1;
	c->peak_sim = -1;
	c->peak_best = -1;
	if (check_options(g, &f->o, err) != 0 || prepare(c, err) != 0)
		goto fail;
	/* Longer segments than ilp_solve's: the unbounded combination keeps every cut's
	 * front, so fewer cuts keep fewer points (the 96-layer transformer: 0.4 GB at every
	 * narrow cut, 0.12 GB at 16 items or more). Inside a segment as many variables are
	 * live as at the narrow cuts it spans, so class fronts fit as they do for ilp_solve. */
	if (ilpi_blocks_plan_coarse(&c->red, FRONT_MIN_SEG, &c->blocks, err) != 0)
		goto fail;
	if (c->blocks != NULL) {
		if (o->time_limit > 0)
			ilpi_blocks_set_time_limit(c->blocks, o->time_limit);
		if ((rc = ilpi_blocks_front(c->blocks, err)) < 0)
			goto fail;
		if (rc != 0 || (f->n = ilpi_blocks_front_size(c->blocks)) == 0) {
			ilpi_blocks_free(c->blocks);
			c->blocks = NULL;
		}
	}
	if (c->blocks == NULL) {
		note(c, "front: no narrow cuts, or over the work or time limit; one solve per "
		    "budget");
		ilpi_front_free(f);
		return 0;
	}
	blocks_note(c, c->t0);
	note(c, "front: %zu points", f->n);
	*out = f;
	return 0;
fail:
	ilpi_front_free(f);
	return -1;
}

/* The point a budgeted solve picks among those within cap: least cost, then the least
 * bytes within 1e-9 (relative) of it (best_final in blocks.c); n when none fits. */
static size_t
front_pick(const ilpi_front *f, int64_t cap)
{
	size_t lo = 0, hi = f->n, i;
	int64_t by;
	double cost, least, lim;

	while (lo < hi) {         /* first point over the cap: ascending bytes */
		size_t mid = lo + (hi - lo) / 2;

		ilpi_blocks_point(f->c.blocks, mid, &by, &cost);
		if (by <= cap)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return f->n;
	ilpi_blocks_point(f->c.blocks, lo - 1, &by, &least);
	lim = least + 1e-9 * (fabs(least) > 1 ? fabs(least) : 1);
	for (i = 0;; i++) {
		ilpi_blocks_point(f->c.blocks, i, &by, &cost);
		if (cost <= lim)
			return i;
	}
}

int64_t
ilpi_front_least_bytes(const ilpi_front *f)
{
	int64_t by;
	double cost;

	ilpi_blocks_point(f->c.blocks, 0, &by, &cost);
	return by;
}

int64_t
ilpi_front_runtime_bytes(const ilpi_front *f)
{
	int64_t by;
	double cost;

	ilpi_blocks_point(f->c.blocks, front_pick(f, INT64_MAX), &by, &cost);
	return by;
}

int
ilpi_front_solve(ilpi_front *f, int64_t budget, ilp_partition **out, ilp_error *err)
{
	solve_ctx *c = &f->c;
	size_t i = front_pick(f, budget);
	int64_t by;
	double cost;

	*out = NULL;
	if (i == f->n)
		return 1;
	ilpi_blocks_point(c->blocks, i, &by, &cost);
	ilpi_blocks_lower(c->blocks, i, c->s, c->r);
	f->o.budget_bytes = budget;
	c->budget = budget;
	c->status = "optimal";
	c->gap = 0;
	if (make_partition(c, out, err) != 0)
		return -1;
	if ((*out)->saved_bytes != by) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the front's point at %lld "
		    "bytes lowers to a partition that saves %lld", c->g->path, (long long)by,
		    (long long)(*out)->saved_bytes);
		ilp_partition_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int
ilpi_budget_fraction_bytes(const ilp_graph *g, const ilp_solve_options *o, double f,
    int64_t *bytes, int64_t *pt_bytes, double *pt_us, ilp_error *err)
{
	ilp_solve_options fo = *o;
	solve_ctx c;
	int rc = -1;

	memset(&c, 0, sizeof c);
	fo.budget_fraction = f;
	fo.budget_bytes = -1;
	c.g = g;
	c.o = &fo;
	c.pt_bytes = -1;
	if (build_rules(&c, err) == 0 && fraction_bytes(&c, err) == 0) {
		*bytes = c.budget;
		*pt_bytes = c.pt_bytes;
		*pt_us = c.pt_us;
		rc = 0;
	}
	release(&c, 0);
	return rc;
}

int
ilp_solve(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err)
{
	ilp_solve_options def, o2;
	ilp_partition *pt = NULL;
	int64_t pt_bytes = -1, budget = -1, b2;
	double pt_us = 0, t0 = ilpi_now(), u2;
	int rc;

	*out = NULL;
	if (o == NULL) {
		ilp_solve_options_init(&def);
		o = &def;
	}
	ilpi_err_clear(err);
	if (check_options(g, o, err) != 0)
		return -1;
	rc = solve_pass(g, o, -1, out, &pt_bytes, &pt_us, &budget, &pt, err);
	/* PyTorch's partition at the fraction obeys the rules but saves more than B(F):
	 * when the optimum within B(F) is slower than it (or none fits), the fastest
	 * partition within PyTorch's own bytes dominates it instead. */
	if (pt_bytes <= budget || (rc == 0 && (*out)->recompute_time_us <= pt_us * (1 + 1e-9)) ||
	    (rc != 0 && err->kind != ILP_ERR_CONFLICT)) {
		ilp_partition_free(pt);
		return rc;
	}
	/* Out of time, the second pass still runs: it starts from PyTorch's partition, so
	 * its answer is never slower than that. */
	o2 = *o;
	if (o->time_limit > 0 && (o2.time_limit = o->time_limit - (ilpi_now() - t0)) < 1e-3)
		o2.time_limit = 1e-3;
	if (o->verbose && o->log != NULL) {
		char line[256];

		snprintf(line, sizeof line, "budget: %s within %lld bytes; PyTorch's partition "
		    "at %g saves %lld bytes in %.6g us: solving within its bytes", rc == 0 ?
		    "the optimum is slower" : "no partition fits", (long long)budget,
		    o->budget_fraction, (long long)pt_bytes, pt_us);
		o->log(o->log_ctx, line);
	}
	ilp_partition_free(*out);
	*out = NULL;
	ilpi_err_clear(err);
	if ((rc = solve_pass(g, &o2, pt_bytes, out, &b2, &u2, &budget, &pt, err)) == 0)
		ilpi_partition_record(*out, g, o);
	ilp_partition_free(pt);
	return rc;
}
