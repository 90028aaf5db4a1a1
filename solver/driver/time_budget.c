/*
 * time_budget.c - the dual budget: the least saved bytes with recompute time at most T,
 * then the least recompute time at those bytes ("save less memory than PyTorch at the
 * same step time"; docs/solver.md "Time budgets").
 *
 * The least recompute time within a byte budget B, R(B) (ilp_pareto_solve: read off the
 * combined front when the model decomposes along repeated blocks, else one proven
 * ilp_solve), does not grow with B. The answer's bytes are the least B with R(B) <= T:
 * a bisection over B between the least saved bytes and the runtime optimum's, each step
 * exact, so the result is exact whenever every step was proven. The partition at that
 * B saves exactly B (it saves at most B and meets T, so B would not be least otherwise)
 * and recomputes least among those. On a front the steps are look-ups; without one they
 * are solves (at most about log2 of the byte range; a recompute-time row in the GLPK
 * model would do it in one: solver/driver/stage.c could take it).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "solver/mincut/mincut.h"
#include "solver/driver/reach.h"

/* Recompute time within the budget, with the rounding of sums of doubles. */
static int
meets(const ilp_partition *p, double t)
{
	return p->recompute_time_us <= t * (1 + 1e-9) + 1e-12;
}

/* PyTorch's recompute time at activation_memory_budget f: ilpart's reproduction of its
 * budget path (torch's reading of the tags, this solve's bans and device), as the
 * fraction cap runs it. */
static int
pytorch_time(const ilp_graph *g, const ilp_solve_options *o, double f, double *us,
    int64_t *bytes, ilp_error *err)
{
	ilpi_mincut_options mo;
	ilp_solve_options so = *o;
	ilp_partition *p = NULL;

	so.budget_fraction = f;
	so.budget_bytes = -1;
	ilpi_mincut_options_init(&mo);
	ilpi_mincut_options_from_solve(&mo, &so);
	mo.prefer = ILP_PREFER_PYTORCH;
	mo.check = 0;
	if (ilpi_mincut_run(g, &mo, &p, NULL, err) != 0) {
		if (err->kind != ILP_ERR_SYSTEM)
			ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'time-budget': PyTorch's "
			    "partition at %g has no recompute time: %.700s", g->path, f, err->msg);
		return -1;
	}
	*us = p->recompute_time_us;
	*bytes = p->saved_bytes;
	ilp_partition_free(p);
	return 0;
}

static int
check_time_options(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	const char *why = NULL;

	if (o->time_budget_us >= 0 && o->time_budget_fraction >= 0)
		why = "give seconds or PyTorch's time at a fraction, not both";
	else if (o->time_budget_fraction > 1 || isnan(o->time_budget_fraction))
		why = "the fraction is not in [0, 1]";
	else if (isnan(o->time_budget_us) || isinf(o->time_budget_us))
		why = "not a finite time";
	else if (o->budget_bytes >= 0 || o->budget_fraction >= 0)
		why = "a memory budget and a time budget cannot both bound one solve";
	else if (o->peak_budget >= 0)
		why = "a peak budget and a time budget cannot both bound one solve";
	else if (o->objective != ILP_OBJ_MEMORY)
		why = "only the memory objective takes a time budget (least saved bytes)";
	else if (o->offload == ILP_OFFLOAD_FREE)
		why = "--offload free does not model a time budget yet (docs/solver.md "
		    "\"Offload\")";
	if (why == NULL)
		return 0;
	ilpi_err(err, ILP_ERR_INPUT, "%s: option 'time-budget': %s", g->path, why);
	return -1;
}

/* Replaces *best by p (taking it). */
static void
keep(ilp_partition **best, ilp_partition *p)
{
	ilp_partition_free(*best);
	*best = p;
}

/* The answer: p, recorded as the request o made, with its status and note. */
static void
finish(const ilp_graph *g, const ilp_solve_options *o, ilp_partition *p, int proven,
    int timed_out, const char *note)
{
	ilpi_partition_record(p, g, o);
	ilpi_partition_set_producer(p, "ilp", "memory", ilp_prefer_name(o->prefer),
	    proven ? "optimal" : timed_out ? "time-limit" : "feasible");
	p->gap = proven ? 0 : -1;
	p->objective_value = (double)p->saved_bytes;
	snprintf(p->note, sizeof p->note, "%s", note != NULL ? note : "");
}

/* A -v line: "time budget: " and the text. */
static void
say(const ilp_solve_options *o, const char *text)
{
	char line[700];

	if (!o->verbose || o->log == NULL)
		return;
	snprintf(line, sizeof line, "time budget: %s", text);
	o->log(o->log_ctx, line);
}

int
ilpi_solve_time_budget(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err)
{
	ilp_solve_options po = *o;
	ilp_pareto *pp = NULL;
	ilp_partition *best = NULL, *p = NULL;
	int64_t lo, hi, pt_bytes = -1;
	double t, t0 = ilpi_now();
	int proven = 1, timed_out = 0, rc = -1, steps = 0;
	char note[640];

	*out = NULL;
	ilpi_err_clear(err);
	if (check_time_options(g, o, err) != 0)
		return -1;
	if (o->time_budget_us >= 0) {
		t = o->time_budget_us;
	} else {
		if (pytorch_time(g, o, o->time_budget_fraction, &t, &pt_bytes, err) != 0)
			return -1;
		snprintf(note, sizeof note, "PyTorch's partition at %g recomputes %.6g us",
		    o->time_budget_fraction, t);
		say(o, note);
	}
	po.time_budget_us = po.time_budget_fraction = -1;
	po.unreachable = ILP_UNREACHABLE_FAIL;
	if (ilp_pareto_new(g, &po, &pp, err) != 0 || ilp_pareto_range(pp, &lo, &hi, err) != 0)
		goto out;
	/* the least recompute time of all: is T within reach? */
	if (ilp_pareto_solve(pp, hi, &best, err) != 0)
		goto out;
	proven = strcmp(best->status, "optimal") == 0;
	if (!meets(best, t)) {
		if (!ilpi_reach_least(o)) {
			ilpi_err(err, ILP_ERR_CONFLICT, "%s: option 'time-budget': budget conflict: "
			    "the budget of %.6g us is below the least achievable recompute time "
			    "%.6g us of a partition that obeys the rules", g->path, t,
			    best->recompute_time_us);
			goto out;
		}
		char what[80];

		if (o->time_budget_fraction >= 0)
			snprintf(what, sizeof what, " (PyTorch's recompute time at %g)",
			    o->time_budget_fraction);
		else
			what[0] = '\0';
		snprintf(note, sizeof note, "time budget %.6g us%s is out of reach: the least "
		    "recompute time of a partition that obeys the tags is %.6g us; answered with "
		    "that least (then least bytes)", t, what, best->recompute_time_us);
		finish(g, o, best, proven, 0, note);
		*out = best;
		best = NULL;
		rc = 0;
		goto out;
	}
	/* the least bytes of all may already meet T (a loose T): one look */
	if (lo < hi) {
		steps++;
		if (ilp_pareto_solve(pp, lo, &p, err) != 0)
			goto out;
		proven &= strcmp(p->status, "optimal") == 0;
		if (meets(p, t)) {
			hi = lo;
			keep(&best, p);
		} else {
			lo++;
			ilp_partition_free(p);
		}
		p = NULL;
	}
	/* invariant: R(lo - 1) > T (none below lo), R(hi) <= T with `best` its answer. The
	 * first step probes PyTorch's own bytes (pytorch:F): where its partition obeys the
	 * rules R(its bytes) <= T, which cuts the range to them at once. */
	for (int first = pt_bytes > lo && pt_bytes < hi; lo < hi; first = 0) {
		int64_t mid = first ? pt_bytes : lo + (hi - lo) / 2;

		steps++;
		if (o->time_limit > 0 && ilpi_now() - t0 > o->time_limit) {
			timed_out = 1;
			proven = 0;
			break;
		}
		if (ilp_pareto_solve(pp, mid, &p, err) != 0) {
			if (err->kind != ILP_ERR_CONFLICT)
				goto out;
			ilpi_err_clear(err);   /* nothing within mid bytes */
			lo = mid + 1;
			continue;
		}
		proven &= strcmp(p->status, "optimal") == 0;
		if (meets(p, t)) {
			hi = p->saved_bytes < mid ? p->saved_bytes : mid;
			keep(&best, p);
		} else {
			lo = mid + 1;
			ilp_partition_free(p);
		}
		p = NULL;
	}
	if (pt_bytes >= 0)
		snprintf(note, sizeof note, "%.6g us met saving %lld bytes (PyTorch's partition: "
		    "%lld); %d bisection steps%s", t, (long long)best->saved_bytes,
		    (long long)pt_bytes, steps, ilp_pareto_from_front(pp) ? " on the front" : "");
	else
		snprintf(note, sizeof note, "%.6g us met saving %lld bytes; %d bisection steps%s", t,
		    (long long)best->saved_bytes, steps, ilp_pareto_from_front(pp) ?
		    " on the front" : "");
	say(o, note);
	finish(g, o, best, proven, timed_out, NULL);
	*out = best;
	best = NULL;
	rc = 0;
out:
	ilp_partition_free(best);
	ilp_pareto_free(pp);
	return rc;
}
