/*
 * stage.c - one MIP solve of the model (a stage) and what every objective shares:
 * the item answers, soft penalties, objective terms, lexicographic levels, the
 * written model, and the peak search's clock.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "graph/clock.h"
#include "solver/model/lp_write.h"
#include "solver/driver/stage.h"

/* A solve's time limit: the caller's, else the hooks' peak_default_limit when set, else
 * 60 s. The peak search ends by a proof or by the clock (docs/solver.md "Peak memory");
 * every MIP solve and seed solve keeps to this, not only the loop between solves. */
double
drv_time_limit(const solve_ctx *c)
{
	double l = c->o->time_limit > 0 ? c->o->time_limit : c->hooks != NULL &&
	    c->hooks->peak_default_limit > 0 ? c->hooks->peak_default_limit :
	    ILPI_PEAK_DEFAULT_LIMIT;

	return c->limit_cap > 0 && c->limit_cap < l ? c->limit_cap : l;
}

/* The peak search's time limit is spent (and stays so): every phase of the search
 * asks this between the rows, points and seeds it adds, so a graph whose every such
 * step is slow (an op with 200,000 inputs) still ends near the limit; what is cut short
 * only weakens the bound (docs/solver.md "Which answers depend on timing"). The test
 * hook peak_checks (ilpi_solve_hooks) stops it at a given check. */
int
drv_peak_late(solve_ctx *c)
{
	if (!c->late && c->hooks != NULL && c->hooks->peak_checks > 0 &&
	    --c->hooks->peak_checks == 0)
		c->late = 1;
	if (!c->late && ilpi_now() - c->t0 > drv_time_limit(c))
		c->late = 1;
	return c->late;
}

/* GLPK scales the model and builds its LP before it first reads its clock: about 1 us
 * of wall clock per nonzero at load 3 (an op with 50,000 inputs, 2.0 M nonzeros with
 * the rows of 16 points: 2.1 s; with 200,000 inputs a solve started 1.7 s before the
 * limit ended 5.8 s after it). This many seconds per nonzero, with a margin. */
#define PEAK_SETUP_PER_NZ 1.5e-6

void
drv_note(const solve_ctx *c, const char *fmt, ...)
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
int
drv_peak_room(solve_ctx *c, const char *what)
{
	double left = drv_time_limit(c) - (ilpi_now() - c->t0);
	double need = PEAK_SETUP_PER_NZ * (double)glp_get_num_nz(c->m.lp);

	if (drv_peak_late(c))
		return 0;
	if (left >= need)
		return 1;
	drv_note(c, "%s: not started, %.2fs left for about %.2fs of GLPK's setup (%d nonzeros) "
	    "(cut short by the time limit)", what, left, need, glp_get_num_nz(c->m.lp));
	c->late = 1;
	return 0;
}

/* ---- item-level solutions ---------------------------------------------------- */

/* Keeps only what the backward needs: a value is needed when it is a boundary value
 * or an input of a needed recomputed one; needed values are saved if the solution
 * saves them, else recomputed. Never adds a save; returns -1 if a needed value can be
 * neither (the input solution was infeasible). */
int
drv_canon_items(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need)
{
	for (size_t it = 0; it < red->n_items; it++)
		need[it] = red->item[it].boundary;
	for (size_t it = red->n_items; it-- > 0;) {
		const ilpi_item *item = &red->item[it];

		if (!need[it]) {
			s[it] = r[it] = 0;
			continue;
		}
		s[it] = item->can_save ? s[it] : 0; /* 2: saved and offloaded, kept */
		r[it] = !s[it];
		if (r[it] && !item->can_recompute)
			return -1;
		for (uint32_t k = 0; r[it] && k < item->in_count; k++)
			need[red->in[item->in_begin + k]] = 1;
	}
	return 0;
}

/* Save everything that can be saved: always feasible once reduce() succeeded. */
void
drv_save_all(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need)
{
	for (size_t it = 0; it < red->n_items; it++) {
		s[it] = red->item[it].can_save;
		r[it] = !s[it];
	}
	(void)drv_canon_items(red, s, r, need);
}

/* Soft mode: the penalties in bytes (pen_b) and in time (PEN_TIME_*), before any
 * model exists (the decomposition and its report need them too). */
void
drv_penalties_raw(solve_ctx *c)
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
void
drv_penalties(solve_ctx *c)
{
	for (size_t it = 0; it < c->red.n_items; it++) {
		c->pen[PEN_BYTES_S][it] = (double)c->pen_b[0][it] / c->m.byte_unit;
		c->pen[PEN_BYTES_R][it] = (double)c->pen_b[1][it] / c->m.byte_unit;
	}
}

ilpi_terms
drv_terms(const solve_ctx *c, double bytes, double cost, int with_pen)
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
 * the answer goes to (s, r). `what` names the stage in messages only; what it does
 * follows `flags` (DRV_STAGE_*). */
int
drv_stage(solve_ctx *c, const char *what, unsigned flags, const ilpi_terms *t,
    const uint8_t *ws, const uint8_t *wr, uint8_t *s, uint8_t *r, ilpi_mip *mip,
    ilp_error *err)
{
	const ilp_solve_options *o = c->o;
	double t1 = ilpi_now();
	int least_peak = (flags & DRV_STAGE_LEAST_PEAK) != 0;
	int write = (flags & DRV_STAGE_WRITE) != 0;

	memset(mip, 0, sizeof *mip);
	if (c->peak.col != 0)
		ws = wr = NULL; /* a start knows nothing of the peak column */
	/* Without a limit of the caller's, every solve keeps to the default of
	 * drv_time_limit (60 s), as the peak search does: a model the decomposition gave
	 * up on (transformers' 100-layer Llama at 0.1, whose whole model ran for more than
	 * 9 minutes) or does not apply to (transformers' RWKV at 0.3: no narrow cut, GLPK
	 * at a 0.03 % gap after 18 minutes) would otherwise hold a compile indefinitely. */
	mip->time_limit = (o->time_limit > 0 && c->peak.col == 0 && !c->blocks_over ?
	    o->time_limit : drv_time_limit(c)) - (t1 - c->t0);
	if (mip->time_limit < 0.001)
		mip->time_limit = 0.001;
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
	mip->gomory = (flags & DRV_STAGE_GOMORY) != 0;
	/* least-peak: P <= best - 1/2 byte and the tie-break costs add less than half a
	 * byte, so every answer's objective is below best (model units) */
	if (least_peak && c->peak_best >= 0) {
		mip->cutoff_on = 1;
		mip->cutoff = (double)c->peak_best / c->m.byte_unit;
		/* a solve of the loop within its gap of the best ends with the proof or one
		 * answer: the tie-break costs decide nothing there (obj_peak.c) */
		mip->tie_drop = c->peak_tie == PEAK_TIE_DROP;
		mip->tie_from = (mip->cutoff - 0.5 / c->m.byte_unit) * (1 - PEAK_LOOP_GAP);
		if (c->peak_tie == PEAK_TIE_SLICE && (mip->time_limit <= 0 ||
		    mip->time_limit > c->peak_tie_slice))
			mip->time_limit = c->peak_tie_slice;
	}
	if (least_peak && c->peak_w != NULL) {
		mip->weight = c->peak_w;
		mip->n_weight = c->n_peak_w;
		mip->weight_from = c->peak_w_from;
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
	drv_note(c, "stage %s: %s, objective %.10g, gap %.3g, %.2fs", what,
	    mip->status == GLP_OPT ? "optimal" : mip->status == GLP_FEAS ? "feasible" :
	    mip->status == GLP_NOFEAS ? "infeasible" : "no solution", mip->obj, mip->gap_out,
	    ilpi_now() - t1);
	if (mip->status == GLP_OPT || mip->status == GLP_FEAS)
		stage_status(c, mip);
	if (mip->status == GLP_NOFEAS && o->peak_budget >= 0 && c->peak.col != 0) {
		/* The peak rows bound every partition's simulated peak from below, and the
		 * no-good cuts remove only answers simulated over the budget: none is left. */
		if ((flags & DRV_STAGE_BUDGET) && c->budget >= 0)
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
	if (mip->status == GLP_NOFEAS &&
	    !(flags & (DRV_STAGE_BUDGET | DRV_STAGE_LEAST_PEAK | DRV_STAGE_NOFEAS_OK))) {
		/* Only the budget row can make the model infeasible. */
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: stage '%s' is infeasible",
		    c->g->path, what);
		return -1;
	}
	if (mip->status == GLP_UNDEF && (flags & DRV_STAGE_UNDEF_OK))
		return 0; /* the caller keeps what it has */
	if (mip->status == GLP_UNDEF) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: stage '%s': %s before any feasible partition "
		    "was found", c->g->path, what, mip->timed_out ? "time limit reached" :
		    "GLPK stopped");
		return -1;
	}
	return 0;
}

/* drv_stage() for an objective the caller has set on the model itself. */
int
drv_stage_keep(solve_ctx *c, const char *what, unsigned flags, uint8_t *s, uint8_t *r,
    ilpi_mip *mip, ilp_error *err)
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
	/* drv_stage() sets the model's own columns from terms: put ours back afterwards. */
	free(c->keep_obj);
	c->keep_obj = keep;
	rc = drv_stage(c, what, flags & ~DRV_STAGE_WRITE, &none, NULL, NULL, s, r, mip, err);
	c->keep_obj = NULL;
	free(keep);
	return rc;
}

/* Level of a lexicographic stage: byte expressions are integral in model units. */
double
drv_level(double obj, int integral)
{
	return integral ? floor(obj + 0.5) + 0.5 : obj + 1e-9 * (fabs(obj) > 1 ? fabs(obj) : 1);
}

/* A second lexicographic stage over (c->ts, c->tr), the first stage's answer, which
 * meets the level row set by the caller: its answer in (c->s, c->r). A time level
 * (recompute cost) is not integral, and with costs far apart (1e-3 to 1e21 us on a
 * random graph) GLPK can call the row infeasible though the first answer meets it;
 * the first answer is then kept (it is optimal for the first objective), as when the
 * stage finds nothing in time. */
int
drv_level_stage(solve_ctx *c, const char *what, const ilpi_terms *t, int write,
    ilpi_mip *mip, ilp_error *err)
{
	size_t n = c->red.n_items;
	int rc;

	rc = drv_stage(c, what, DRV_STAGE_NOFEAS_OK | (write ? DRV_STAGE_WRITE : 0), t, c->ts,
	    c->tr, c->s, c->r, mip, err);
	if (rc != 0)
		return -1;
	if (mip->status != GLP_OPT && mip->status != GLP_FEAS) {
		if (mip->status == GLP_NOFEAS)
			drv_note(c, "stage %s: infeasible by GLPK's tolerances at the first stage's "
			    "level; keeping the first stage's answer", what);
		memcpy(c->s, c->ts, n);
		memcpy(c->r, c->tr, n);
	}
	return 0;
}

/* The model the caller asked to see, with objective t, as the monolithic path would
 * solve it last. */
int
drv_write_model(solve_ctx *c, const ilpi_terms *t, ilp_error *err)
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

int
drv_write_budget_model(solve_ctx *c, ilp_error *err)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = drv_terms(c, 0, 1, 1);

	if (c->o->write_lp == NULL && c->o->write_mps == NULL)
		return 0;
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_BUDGET, &tb,
	    floor((double)c->budget / c->m.byte_unit));
	return drv_write_model(c, &tc, err);
}
