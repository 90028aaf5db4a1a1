/*
 * obj_peak.c - the peak objective (least simulated peak, then least recompute cost),
 * the runtime objective under a peak budget, and the rows' audit.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "graph/clock.h"
#include "solver/driver/answer.h"
#include "solver/driver/obj_runtime.h"
#include "solver/driver/peak_answers.h"
#include "solver/driver/peak_blocks.h"
#include "solver/driver/peak_relax.h"
#include "solver/driver/peak_seeds.h"
#include "solver/driver/stage.h"
#include "solver/driver/obj_peak.h"

/* The search's start: the cut set, the seeds' incumbent, better incumbents from the
 * blocks' front and a descent (a tenth of the time each), the general rows at the
 * incumbent's highest steps, and the peak column's floor as the first bound. The best
 * simulated peak in *best (< 0: none), the descents' starts in *st. */
static int
peak_start(solve_ctx *c, int64_t *best, peak_starts *st, ilp_error *err)
{
	size_t n = c->red.n_items;
	double unit = c->m.byte_unit, limit = drv_time_limit(c);
	int64_t seeded;
	double t1, floor0;

	c->peak_bound = 0;
	if (ilpi_peak_cuts_new(c->g, &c->m, c->peak.col, &c->cuts) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	if (drv_peak_try_seeds(c, best, err) != 0)
		return -1;
	/* A tenth of the time each for better incumbents: the blocks' front, then a
	 * descent (never past the limit). */
	seeded = *best;
	t1 = ilpi_now();
	st->n = 0;
	if ((st->s = c->starts_buf = malloc(PEAK_STARTS * n + 2 * n + 1)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	if (drv_peak_late(c))
		drv_note(c, "peak front: not made (cut short by the time limit)");
	else
		drv_peak_front_seeds(c, best, st, fmin(t1 + limit * 0.1, c->t0 + limit),
		    fmin(t1 + limit * 0.1, c->t0 + limit));
	if (drv_peak_late(c))
		drv_note(c, "peak descent: not run (cut short by the time limit)");
	else
		drv_peak_descent(c, best, st, fmin(ilpi_now() + limit * 0.15, c->t0 + limit));
	/* General rows at the incumbent's highest steps, before any solve (the rows and
	 * checks after the time limit are left out: they would only serve the loop). */
	if (*best >= 0 && (drv_general_rows(c, c->ws, c->wr, *best, PEAK_GENERAL_FRAC,
	    PEAK_GENERAL_FIRST) != 0 || (*best == seeded && !drv_peak_late(c) &&
	    drv_check_cuts(c, c->ws, c->wr, *best) != 0))) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	if (*best >= 0 && *best != seeded && !drv_peak_late(c) &&
	    drv_cut_answer(c, c->ws, c->wr, *best) != 0) {
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
	if (*best >= 0 && (double)(*best) < floor0) {
		drv_note(c, "peak floor %.0f bytes is above a simulated answer (%lld bytes)",
		    floor0, (long long)(*best));
		c->cuts_invalid = 1;
	} else {
		c->peak_bound = floor0;
		drv_note(c, "peak floor before the loop: %.0f bytes (model: %d rows, %d nonzeros)",
		    floor0, glp_get_num_rows(c->m.lp), glp_get_num_nz(c->m.lp));
	}
	return 0;
}

/* The least-peak loop: solves for an answer below the best simulated peak, simulates
 * it, cuts it off and descends from it, until none is left (the proof), the bound
 * meets the best or the time is spent. *best and the bound (c->peak_bound) improve;
 * the last solve in *mip, the solves made in *iter. */
static int
peak_loop(solve_ctx *c, int64_t *best, peak_starts *st, ilpi_mip *mip, int *iter,
    ilp_error *err)
{
	ilpi_terms none = { 0, 0, NULL, NULL };
	size_t n = c->red.n_items;
	/* The decisions' tiny costs add at most half a byte: bounds stay exact in bytes. */
	double unit = c->m.byte_unit, eps = 0.5 / unit / (double)(2 * n + 1);
	double limit = drv_time_limit(c);
	int64_t sim;
	int failed;

	for (*iter = 0;; (*iter)++) {
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
		if (*best >= 0) {
			double lb = glp_get_col_lb(c->m.lp, c->peak.col);
			double ub = ((double)(*best) - 0.5) / unit;

			if (ub < lb) {
				mip->status = GLP_NOFEAS;
				break;
			}
			/* GLPK refuses a double bound with lb == ub (near 2^60 bytes the
			 * half byte is lost in rounding) */
			glp_set_col_bnds(c->m.lp, c->peak.col, ub > lb ? GLP_DB : GLP_FX, lb,
			    ub > lb ? ub : lb);
		}
		if (!drv_peak_room(c, "least-peak"))
			break;
		if (drv_peak_weights(c) != 0) {
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
		c->peak_w_from = *best >= 0 && *iter == 0 ? ((double)(*best) - 0.5) / unit *
		    (1 - PEAK_LOOP_GAP) : DBL_MAX;
		if (c->hooks != NULL && c->hooks->peak_fail_solve == *iter + 1) {
			c->hooks->peak_fail_solve = -1;
			ilpi_err(err, ILP_ERR_SOLVER, "%s: stage 'least-peak': GLPK: LP relaxation "
			    "failed (the test hook peak_fail_solve)", c->g->path);
			failed = 1;
		} else {
			/* The tie-break costs decide nothing in a solve within the loop's gap
			 * of the best (it ends with the proof or one answer), and GLPK's proof
			 * that no answer is left can need them or not: gpt-4l's last solve
			 * closes in 0.6 s without them and not in 60 s with them, float8-sac's
			 * in 2 s with them and not in 24 s without (after answers found
			 * without them: other cuts). The first solve drops them (the 12-layer
			 * transformer's proof there takes 25 s); a later one keeps them for a
			 * slice of the time left and, ended there without an answer, runs
			 * again without them. */
			c->peak_tie = *iter == 0 ? PEAK_TIE_DROP : PEAK_TIE_SLICE;
			c->peak_tie_slice = fmax(PEAK_TIE_SLICE_MIN, PEAK_TIE_SLICE_FRAC *
			    (c->t0 + limit - ilpi_now()));
			failed = drv_stage_keep(c, "least-peak", DRV_STAGE_LEAST_PEAK |
			    DRV_STAGE_UNDEF_OK, c->ts, c->tr, mip, err) != 0;
			if (!failed && c->peak_tie == PEAK_TIE_SLICE && mip->timed_out &&
			    mip->status == GLP_UNDEF && !drv_peak_late(c)) {
				if (mip->bound > -DBL_MAX && *best >= 0)
					c->peak_bound = fmax(c->peak_bound, fmin((double)(*best) - 1,
					    mip->bound * unit - 0.5));
				drv_note(c, "least-peak: no end within %.1fs with the tie-break "
				    "costs: again without them", c->peak_tie_slice);
				c->peak_tie = PEAK_TIE_DROP;
				failed = drv_stage_keep(c, "least-peak", DRV_STAGE_LEAST_PEAK |
				    DRV_STAGE_UNDEF_OK, c->ts, c->tr, mip, err) != 0;
			}
		}
		if (failed) {
			/* GLPK gave up on a solve (a basis singular to working precision, on a
			 * 100-layer GPT-2 after 4 minutes): the best simulated answer, checked,
			 * stands, with the bound so far; no answer yet is an error. */
			if (err->kind != ILP_ERR_SOLVER || *best < 0)
				return -1;
			drv_note(c, "least-peak: %s; the best simulated answer stands (unproven)",
			    err->msg);
			ilpi_err_clear(err);
			c->peak_failed = 1;
			mip->status = GLP_UNDEF;
			break;
		}
		if (mip->status == GLP_NOFEAS)
			break; /* every answer cut off: the *best is proven */
		if (mip->status == GLP_UNDEF) {
			/* Out of time without an answer: its bound still holds for every
			 * answer below the best (never a proof from here). */
			if (mip->bound > -DBL_MAX && *best >= 0)
				c->peak_bound = fmax(c->peak_bound, fmin((double)(*best) - 1,
				    mip->bound * unit - 0.5));
			break;
		}
		/* Every solve's bound holds for every answer below its best (rows are only
		 * added): keep the largest, and start later solves there. */
		c->peak_bound = fmax(c->peak_bound, (mip->status == GLP_OPT ? mip->obj :
		    mip->bound) * unit - 0.5);
		drv_raise_peak_floor(c, *best);
		sim = drv_simulate(c, c->ts, c->tr);
		if (sim < 0) {
			ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the peak answer cannot "
			    "be simulated", c->g->path);
			return -1;
		}
		if (*best < 0 || sim < *best) {
			*best = c->peak_best = sim;
			memcpy(c->ws, c->ts, n);
			memcpy(c->wr, c->tr, n);
		}
		if ((mip->status != GLP_OPT && mip->status != GLP_FEAS) || mip->timed_out ||
		    (double)(*best) <= ceil(c->peak_bound - 1e-6) || drv_peak_late(c))
			break;
		if (drv_cut_answer(c, c->ts, c->tr, sim) != 0) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		/* The answers lie where the rows are still weak: a short descent from each
		 * may find a lower peak there. */
		{
			size_t budget = 2 * n + 200, moves = 0;
			int64_t cur, was = *best;

			memcpy(st->s, c->ts, n);
			memcpy(st->s + n, c->tr, n);
			drv_descend(c, st->s, st->s + n, &cur, best, fmin(ilpi_now() +
			    limit * 0.05, c->t0 + limit), &budget, &moves);
			if (*best < was)
				drv_note(c, "peak descent from the answer: %lld bytes", (long long)(*best));
		}
	}
	return 0;
}

/* Least simulated peak, then least recompute cost at that peak. The peak rows bound
 * the peak from below; the simulator (graph/memsim.c) is the truth. Each answer is
 * simulated and cut off by a no-good cut carrying its true peak, until the ILP's bound
 * meets the best simulated peak (proven optimal) or time runs out (the gap is
 * reported). docs/solver.md "Peak memory". */
int
drv_obj_peak(solve_ctx *c, ilp_error *err)
{
	ilpi_terms tc = drv_terms(c, 0, 1, 1);
	ilpi_mip mip;
	size_t n = c->red.n_items;
	int64_t best = -1, sim;
	peak_starts starts;
	int iter, rc, proven, tie_proven;

	/* Loop time: the caller's limit, else 60 s; stage 2 gets what is left. */
	memset(&mip, 0, sizeof mip);
	if (peak_start(c, &best, &starts, err) != 0)
		return -1;
	/* the rows relaxed along the repeated layers: a bound, often the proof */
	if (best >= 0 && !c->cuts_invalid && !c->o->monolithic && !drv_peak_late(c)) {
		double lb;
		int pr = drv_peak_relax_bound(c, c->t0 + drv_time_limit(c), &lb);

		if (pr < 0) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
			return -1;
		}
		if (pr == 0 && lb > c->peak_bound)
			c->peak_bound = fmin(lb, (double)best);
	}
	iter = 0;
	if ((best < 0 || (double)best > ceil(c->peak_bound - 1e-6)) &&
	    peak_loop(c, &best, &starts, &mip, &iter, err) != 0)
		return -1;
	/* no answer left below the best: that is the bound (the floor before the loop
	 * was printed here, 1,188,768,768 bytes on the proven 12-layer transformer) */
	drv_note(c, "least-peak: %d cuts, bound %.0f bytes, best simulated %lld bytes", iter,
	    mip.status == GLP_NOFEAS && best >= 0 && !c->cuts_invalid ? (double)best :
	    c->peak_bound, (long long)best);
	{
		int rows, cols, points;

		ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
		drv_note(c, "peak cuts: exact rows at %d points (%d rows, %d columns), %d inexact, "
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
	    !drv_peak_room(c, "least-recompute")) {
		/* unproven when the clock stopped it, also before or between the stages
		 * (a search that never ran one reported "feasible") */
		if (c->peak_failed) {
			if (strcmp(c->status, "optimal") != 0)
				c->status = "feasible";
		} else if (mip.status == GLP_UNDEF || mip.timed_out || (c->peak_bound < (double)best &&
		    drv_peak_late(c)))
			c->status = "time-limit";
		else if (strcmp(c->status, "optimal") == 0)
			drv_note(c, "least-recompute: not run, the time limit is spent (of the answers "
			    "at the proven peak, the one returned may differ between runs)");
		/* --write-lp/--write-mps: the model stage 2 would have solved */
		drv_peak_stage2_model(c, best);
		return drv_write_model(c, &tc, err);
	}
	/* Stage 2: least recompute cost among answers whose bound allows the best peak;
	 * kept only when its simulated peak is no worse. The answer's status is the
	 * peak's, not this stage's: a proven peak stays proven (status optimal, gap 0) and
	 * the note says what the tie-break did not prove. Before, a 413-node SwitchTransformers layer whose
	 * least peak was proven in 0.1 s reported "time-limit, gap 50 %" after 60 s: its
	 * least-recompute stage never closed. */
	drv_peak_stage2_model(c, best);
	proven = strcmp(c->status, "optimal") == 0;
	tie_proven = 0;
	/* An answer whose simulated peak is above the best is cut off (the exact row at its
	 * peak step, else a +-1 no-good row) and the stage runs again, as --peak-budget's
	 * rounds do: with one solve, transformer-2l's least-recompute answer peaked above
	 * the best and the least-peak answer stood at 2.2x the least recompute time at that
	 * peak. The first round whatever the clock: its stage keeps to the limit. */
	for (int round = 0; round < 200 && (round == 0 || !drv_peak_late(c)); round++) {
		rc = drv_stage(c, "least-recompute", DRV_STAGE_WRITE | DRV_STAGE_NOFEAS_OK |
		    DRV_STAGE_UNDEF_OK | DRV_STAGE_GOMORY, &tc, NULL, NULL, c->ts, c->tr, &mip,
		    err);
		if (rc != 0)
			return -1;
		if (mip.status == GLP_NOFEAS) {
			/* The rows cut off the best answer, which was simulated at that peak: a
			 * bound row is above a partition's peak (a bug), so nothing is proven;
			 * the best answer stands. */
			drv_note(c, "least-recompute: no answer at the best peak: A ROW CUT OFF A "
			    "SIMULATED ANSWER");
			c->cuts_invalid = 1;
			c->peak_bound = 0;
			c->status = "feasible";
			break;
		}
		if (mip.status != GLP_OPT && mip.status != GLP_FEAS) {
			drv_note(c, "least-recompute: no answer in the time left; the least-peak "
			    "answer stands (of the partitions at its peak it is not shown to "
			    "recompute least)");
			break;
		}
		sim = drv_simulate(c, c->ts, c->tr);
		if (sim >= 0 && sim <= best) {
			memcpy(c->ws, c->ts, n);
			memcpy(c->wr, c->tr, n);
			c->peak_sim = sim;
			tie_proven = mip.status == GLP_OPT;
			break;
		}
		drv_note(c, "least-recompute: simulated peak %lld above the best: cutting the "
		    "answer off", (long long)sim);
		if (sim < 0 || drv_general_rows(c, c->ts, c->tr, sim, PEAK_GENERAL_FRAC, 2) != 0 ||
		    drv_cut_answer_over(c, c->ts, c->tr, sim) != 0)
			break;
	}
	/* Also when the tie-break found no answer at all in its time (status still the
	 * peak's "optimal"): before, that answer carried no note. */
	if (proven && !tie_proven && !c->cuts_invalid) {
		int in_time = strcmp(c->status, "time-limit") == 0 || mip.status == GLP_UNDEF;

		snprintf(c->note, sizeof c->note, "the least peak is proven; of the partitions "
		    "at it, this one is not proven to recompute least (%sgap %.3g %%)",
		    in_time ? "the time limit ended that search, " : "",
		    c->gap >= 0 && mip.status != GLP_UNDEF && strcmp(c->status, "optimal") != 0 ?
		    100 * c->gap : 100.0);
		c->status = "optimal";
		c->gap = 0;
	}
	memcpy(c->s, c->ws, n);
	memcpy(c->r, c->wr, n);
	return 0;
}

/* The seeds (peak_seeds: min-cut, the references, save-all, ILP optima) whose simulated
 * peak is within the peak budget and whose saved bytes are within the memory budget
 * (any bytes: any_bytes): the least recompute cost among them goes to (s, r). 1:
 * found; 0: none. */
static int
peak_budget_seed(solve_ctx *c, uint8_t *s, uint8_t *r, int64_t *sim_out, double *cost,
    int any_bytes)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = drv_terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	int found = 0;

	for (size_t k = 0; k < c->n_seed; k++) {
		int64_t sim;
		double v;

		if (drv_seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) != 0)
			continue;
		if (!any_bytes && c->budget >= 0 && ilpi_model_value(&c->m, &tb, c->ts, c->tr) >
		    floor((double)c->budget / c->m.byte_unit) + 0.5)
			continue;
		v = ilpi_model_value(&c->m, &tc, c->ts, c->tr);
		if (found && v >= *cost)
			continue;
		if ((sim = drv_simulate(c, c->ts, c->tr)) < 0 || sim > c->o->peak_budget)
			continue;
		memcpy(s, c->ts, n);
		memcpy(r, c->tr, n);
		*sim_out = sim;
		*cost = v;
		found = 1;
	}
	return found;
}

/* No seed fits the peak budget (a budget at or near the least peak): the least-peak
 * search's incumbents, the best seed, the blocks' front and descents from them (a
 * quarter of the time limit), as `--objective peak` makes them before its loop. A
 * proven least peak P is usually found there, so `--peak-budget P` has an answer at
 * once. 1 with the best in (s, r) when its peak fits the budget and its bytes the
 * memory budget; 0 otherwise. */
static int
peak_budget_search(solve_ctx *c, uint8_t *s, uint8_t *r, int64_t *sim_out, double *cost)
{
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = drv_terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	double limit = drv_time_limit(c), until = fmin(ilpi_now() + 0.25 * limit, c->t0 + limit);
	int64_t best = -1;
	peak_starts st;

	if (c->starts_buf == NULL && (c->starts_buf = malloc(PEAK_STARTS * n + 2 * n + 1)) == NULL)
		return 0;
	st.s = c->starts_buf;
	st.n = 0;
	drv_best_seed(c, &best, NULL, 0);
	if (!drv_peak_late(c))
		drv_peak_front_seeds(c, &best, &st, until, until);
	if (best >= 0 && best > c->o->peak_budget && !drv_peak_late(c))
		drv_peak_descent(c, &best, &st, until);
	if (best < 0 || best > c->o->peak_budget || (c->budget >= 0 &&
	    ilpi_model_value(&c->m, &tb, c->ws, c->wr) > floor((double)c->budget /
	    c->m.byte_unit) + 0.5))
		return 0;
	memcpy(s, c->ws, n);
	memcpy(r, c->wr, n);
	*sim_out = best;
	*cost = ilpi_model_value(&c->m, &tc, s, r);
	drv_note(c, "peak budget: the least-peak search's incumbents fit (simulated %lld bytes, "
	    "recompute %.10g us)", (long long)best, *cost);
	return 1;
}

/* Whether the model's rows admit the item answer (s, r) within the peak budget: its
 * LP with every s/r column fixed there and P <= budget is feasible (1) or not (0).
 * The model is left as it was (bounds and objective). A GLPK conflict verdict on a
 * model that admits a known partition is GLPK's tolerance, not the rows. */
static int
rows_admit(solve_ctx *c, const uint8_t *s, const uint8_t *r)
{
	glp_prob *lp = c->m.lp;
	int nc = glp_get_num_cols(lp), ok = -1;
	double *save = malloc(3 * ((size_t)nc + 1) * sizeof *save);
	int *ty = malloc(((size_t)nc + 1) * sizeof *ty);
	glp_smcp smcp;

	if (save != NULL && ty != NULL) {
		for (int j = 1; j <= nc; j++) {
			save[3 * j] = glp_get_col_lb(lp, j);
			save[3 * j + 1] = glp_get_col_ub(lp, j);
			save[3 * j + 2] = glp_get_obj_coef(lp, j);
			ty[j] = glp_get_col_type(lp, j);
			glp_set_obj_coef(lp, j, 0);
		}
		for (size_t it = 0; it < c->red.n_items; it++) {
			if (c->m.col_s[it])
				glp_set_col_bnds(lp, c->m.col_s[it], GLP_FX, s[it], s[it]);
			if (c->m.col_r[it])
				glp_set_col_bnds(lp, c->m.col_r[it], GLP_FX, r[it], r[it]);
		}
		glp_init_smcp(&smcp);
		smcp.msg_lev = GLP_MSG_OFF;
		if (glp_simplex(lp, &smcp) == 0)
			ok = glp_get_status(lp) == GLP_OPT;
		for (int j = 1; j <= nc; j++) {
			glp_set_col_bnds(lp, j, ty[j], save[3 * j], save[3 * j + 1]);
			glp_set_obj_coef(lp, j, save[3 * j + 2]);
		}
	}
	free(save);
	free(ty);
	return ok;
}

/* A descent on recompute time (drv_descend_time) from the answer fb, within the peak
 * budget and the bytes budget: 15 % of the time at most; *sim and *cost follow. */
static void
budget_descent(solve_ctx *c, uint8_t *fb, int64_t *sim, double *cost)
{
	size_t n = c->red.n_items, budget = 4 * n + 400, moves;
	ilpi_terms tc = drv_terms(c, 0, 1, 1);
	double t1 = ilpi_now(), cap = c->budget < 0 ? -1 :
	    floor((double)c->budget / c->m.byte_unit) + 0.5;
	double until = fmin(t1 + drv_time_limit(c) * 0.15, c->t0 + drv_time_limit(c));

	if (drv_peak_late(c))
		return;
	moves = drv_descend_time(c, fb, fb + n, c->o->peak_budget, cap, until, &budget);
	if (moves > 0) {
		*sim = drv_simulate(c, fb, fb + n);
		*cost = ilpi_model_value(&c->m, &tc, fb, fb + n);
	}
	drv_note(c, "peak budget: time descent: %zu moves, %zu simulated, recompute %.10g us, "
	    "%.2fs%s", moves, 4 * n + 400 - budget, *cost, ilpi_now() - t1,
	    budget == 0 ? " (its simulations spent)" : ilpi_now() >= until ? " (cut short by its "
	    "share of the time limit: the answer may differ between runs)" : "");
}

/* --peak-budget with the runtime objective: the rows hold P <= budget; an answer whose
 * simulated peak still exceeds it is cut off (no-good cut with its true peak) and the
 * stages run again. The seeds within both budgets are the answer when the loop finds
 * none in time (or a dearer one): a verdict whenever a known partition fits. */
int
drv_obj_runtime_peak(solve_ctx *c, ilp_error *err)
{
	double unit = c->m.byte_unit, ub = (double)c->o->peak_budget / unit;
	double lb = glp_get_col_lb(c->m.lp, c->peak.col);
	double fb_cost = 0, seed_cost = 0;
	ilpi_terms tc = drv_terms(c, 0, 1, 1);
	size_t n = c->red.n_items;
	int64_t fb_sim = -1, pb_sim = -1;
	double pb_time = 0;
	uint8_t *fb;
	int have_fb, have_seed, beats, rc;
	int quick = c->hooks != NULL && c->hooks->peak_budget_quick > 0;
	double cap = c->budget < 0 ? -1 : floor((double)c->budget / c->m.byte_unit) + 0.5;

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
	/* An answer above the budget is cut off by the exact row at its peak step (every
	 * partition with the same storages live there), not only itself (a no-good cut):
	 * llama-2l at PyTorch's peak at 0.1 met the same 847,872-byte peak in 200 rounds. */
	if (c->cuts == NULL && ilpi_peak_cuts_new(c->g, &c->m, c->peak.col, &c->cuts) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
		return -1;
	}
	have_fb = have_seed = peak_budget_seed(c, fb, fb + n, &fb_sim, &fb_cost, 0);
	seed_cost = fb_cost;
	if (have_fb)
		drv_note(c, "peak budget: a seed fits (simulated %lld bytes, recompute %.10g us)",
		    (long long)fb_sim, fb_cost);
	/* None within the bytes too: the least-recompute seed within the peak, values it
	 * saves dropped (least recompute per byte first) while the peak stays within the
	 * budget, until its bytes fit. */
	if (!have_fb && cap >= 0 && peak_budget_seed(c, fb, fb + n, &fb_sim, &fb_cost, 1)) {
		size_t budget = 2 * n + 200;

		have_fb = drv_repair_bytes(c, fb, fb + n, c->o->peak_budget, cap,
		    fmin(ilpi_now() + drv_time_limit(c) * 0.05, c->t0 + drv_time_limit(c)), &budget);
		if (have_fb) {
			fb_sim = drv_simulate(c, fb, fb + n);
			fb_cost = ilpi_model_value(&c->m, &tc, fb, fb + n);
		}
		drv_note(c, "peak budget: a seed within the peak, its bytes cut to the budget: %s "
		    "(%zu simulated)", have_fb ? "fits" : "none", 2 * n + 200 - budget);
	}
	if (have_fb)
		budget_descent(c, fb, &fb_sim, &fb_cost);
	beats = have_fb && (!have_seed || fb_cost < seed_cost * (1 - 1e-9));
	/* the chain of repeated layers (solver/driver/peak_blocks.c): a tenth of the time,
	 * a quarter when no seed fits (without an answer the solve ends in exit 4); not
	 * when the caller takes the descent's answer (below) */
	if (!(quick && beats) && !drv_peak_late(c) &&
	    drv_peak_blocks_budget(c, c->o->peak_budget, c->ts, c->tr,
	    &pb_sim, &pb_time, fmin(ilpi_now() + drv_time_limit(c) * (have_fb ? 0.1 : 0.25),
	    c->t0 + drv_time_limit(c)))) {
		double v = ilpi_model_value(&c->m, &tc, c->ts, c->tr);

		drv_note(c, "peak budget: the chain's partition fits (simulated %lld bytes, "
		    "recompute %.10g us)", (long long)pb_sim, v);
		if (!have_fb || v < fb_cost) {
			memcpy(fb, c->ts, n);
			memcpy(fb + n, c->tr, n);
			fb_sim = pb_sim;
			fb_cost = v;
			have_fb = 1;
			budget_descent(c, fb, &fb_sim, &fb_cost);
		}
	}
	if (!have_fb && (have_fb = peak_budget_search(c, fb, fb + n, &fb_sim, &fb_cost)))
		budget_descent(c, fb, &fb_sim, &fb_cost);
	/* An answer faster than every seed: the caller may give the loop only a few
	 * seconds more (dominate.c without a time limit of the caller's). */
	if (quick && have_fb && (!have_seed || fb_cost < seed_cost * (1 - 1e-9))) {
		c->limit_cap = ilpi_now() - c->t0 + c->hooks->peak_budget_quick;
		drv_note(c, "peak budget: the search's partition recomputes less than every seed: "
		    "the loop gets %g s more", c->hooks->peak_budget_quick);
	}
	glp_set_col_bnds(c->m.lp, c->peak.col, ub > lb ? GLP_DB : GLP_FX, lb, ub);
	/* the first round whatever the clock: its stages keep to the limit */
	for (int round = 0; round < 200 && (round == 0 || !drv_peak_late(c)); round++) {
		ilp_error e = { 0 };

		if (drv_obj_runtime(c, &e) != 0) {
			/* Out of time (or GLPK stopped) without an answer: the seed is one. */
			/* A conflict the model reports while a known partition fits in
			 * simulation is the model's, not the budget's: its rows exclude that
			 * partition (the 48-layer transformer within 1.02 times its least
			 * peak, docs/solver.md "Peak along the blocks"). */
			if (!have_fb || (e.kind != ILP_ERR_SOLVER && e.kind != ILP_ERR_CONFLICT)) {
				*err = e;
				return -1;
			}
			if (e.kind == ILP_ERR_CONFLICT) {
				int admit;

				/* a lexicographic level left by the failed stage is no row */
				ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, -1);
				admit = rows_admit(c, fb, fb + n);

				drv_note(c, "peak budget: %s (but a known partition fits in "
				    "simulation: %s)", e.msg, admit == 1 ? "the model's rows admit "
				    "it, GLPK's verdict is its tolerance" : admit == 0 ?
				    "the model's rows exclude it" : "not checked against the rows");
			} else {
				drv_note(c, "peak budget: %s", e.msg);
			}
			break;
		}
		c->peak_sim = drv_simulate(c, c->s, c->r);
		if (c->peak_sim >= 0 && c->peak_sim <= c->o->peak_budget) {
			if (have_fb && strcmp(c->status, "optimal") != 0 &&
			    ilpi_model_value(&c->m, &tc, c->s, c->r) > fb_cost)
				break; /* a seed recomputes less than the unproven answer */
			return 0;
		}
		drv_note(c, "simulated peak %lld exceeds the peak budget: cutting the answer off",
		    (long long)c->peak_sim);
		if (c->peak_sim < 0 || drv_general_rows(c, c->s, c->r, c->peak_sim,
		    PEAK_GENERAL_FRAC, 2) != 0 ||
		    drv_cut_answer_over(c, c->s, c->r, c->peak_sim) != 0)
			break;
	}
	if (have_fb) {
		memcpy(c->s, fb, n);
		memcpy(c->r, fb + n, n);
		c->peak_sim = drv_simulate(c, c->s, c->r);
		rc = c->peak_sim == fb_sim ? 0 : -1;
		if (rc != 0)
			ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the peak budget's seed "
			    "simulates differently twice", c->g->path);
		/* the loop's share cut short by peak_budget_quick is no limit of the caller's */
		c->status = drv_peak_late(c) && c->limit_cap <= 0 ? "time-limit" : "feasible";
		c->gap = 1;   /* nothing proven about its recompute cost */
		drv_note(c, "peak budget: answering with the seed (%s)", c->status);
		return rc;
	}
	ilpi_err(err, ILP_ERR_SOLVER, "%s: no partition found whose simulated peak is within "
	    "%lld bytes (the peak rows are a lower bound; see docs/solver.md)", c->g->path,
	    (long long)c->o->peak_budget);
	return -1;
}

/* How many rows of lp from `first` on, among those without the column `skip` and with
 * every column bounded on both sides, hold whatever values the columns take within
 * their bounds. ind, val: room for every column. */
static int
vacuous_rows(glp_prob *lp, int first, int skip, int *ind, double *val)
{
	int count = 0, last = glp_get_num_rows(lp);

	for (int i = first; i <= last; i++) {
		int type = glp_get_row_type(lp, i), len = glp_get_mat_row(lp, i, ind, val);
		int open = 0;
		double lo = 0, hi = 0;

		for (int k = 1; k <= len; k++) {
			double a = val[k], l = glp_get_col_lb(lp, ind[k]), u = glp_get_col_ub(lp, ind[k]);
			int t = glp_get_col_type(lp, ind[k]);

			if (ind[k] == skip || (t != GLP_DB && t != GLP_FX))
				open = 1;
			lo += fmin(a * l, a * u);
			hi += fmax(a * l, a * u);
		}
		if (open)
			continue;
		if ((type == GLP_LO && lo >= glp_get_row_lb(lp, i) - 1e-9) ||
		    (type == GLP_UP && hi <= glp_get_row_ub(lp, i) + 1e-9))
			count++;
	}
	return count;
}

/* ilpi_peak_audit's model: general and exact rows at every step of every partition
 * that is an item answer here, each evaluated at every such answer. */
int
drv_peak_audit(solve_ctx *c, ilp_error *err)
{
	size_t n = c->red.n_items, m = 0;
	int first_row = glp_get_num_rows(c->m.lp) + 1;
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

		if (drv_seed_items(c, c->audit[k], s, r, need) != 0 || (sim[m] = drv_simulate(c, s, r)) < 0)
			continue;
		memset(&sp, 0, sizeof sp);
		memset(&ms, 0, sizeof ms);
		memset(&tr, 0, sizeof tr);
		{
			ilp_partition *p = drv_node_partition(c);

			if (p == NULL)
				goto nomem;
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
	{
		int nc = glp_get_num_cols(c->m.lp) + 1, *ind = malloc(nc * sizeof *ind);
		double *val = malloc(nc * sizeof *val);

		if (ind != NULL && val != NULL)
			c->audit_vacuous = vacuous_rows(c->m.lp, first_row, c->peak.col, ind, val);
		free(ind);
		free(val);
		if (ind == NULL || val == NULL)
			goto nomem;
	}
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

/* The peak objective's value: the answer's simulated peak (its truth); unproven, with
 * the gap to the bound, when the bound (what is proven) is below it. */
double
drv_obj_peak_value(const solve_ctx *c, ilp_partition *p)
{
	if (c->peak_sim > 0 && c->peak_bound >= 0 &&
	    (double)c->peak_sim > ceil(c->peak_bound - 1e-6)) {
		ilpi_partition_set_producer(p, NULL, NULL, NULL,
		    strcmp(c->status, "time-limit") == 0 ? "time-limit" : "feasible");
		p->gap = ((double)c->peak_sim - c->peak_bound) / (double)c->peak_sim;
	}
	return (double)c->peak_sim;
}
