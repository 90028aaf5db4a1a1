/*
 * dominate.c - at a budget fraction, an answer no worse than PyTorch's own partition
 * there on saved bytes, recompute time and simulated peak at once (docs/solver.md
 * "Memory budgets", "No worse on all three numbers").
 *
 * The fraction cap (budget.c, solve.c) already makes the least-time answer save no more
 * and recompute no longer than PyTorch's partition at F whenever that partition obeys
 * the rules. Its simulated peak is a third number the runtime objective does not see:
 * on llama-2l at 0.1 the least-time answer peaks 20 % above PyTorch's. PyTorch's
 * partition fits its own bytes and its own peak, so the least recompute time within
 * the bytes and within that peak (a peak-budget solve, obj_peak.c) is never worse on
 * any of the three; PyTorch's partition is that solve's seed, its answer when the loop
 * finds none in time.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/partition.h"
#include "solver/driver/dominate.h"
#include "solver/driver/solve.h"

static void
say(const ilp_solve_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(const ilp_solve_options *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!o->verbose || o->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	o->log(o->log_ctx, line);
}

/* "Time" is the cost model's recompute time (graph/cost.c: measured time_us, else the
 * roofline on the solve's device), as both partitions' costs were evaluated; a
 * relative 1e-9 absorbs the sums' rounding. */
static int
time_le(double a, double b)
{
	return a <= b * (1 + 1e-9) + 1e-12;
}

/* Which of the three numbers `p` (simulated at pk) is worse on than `pt` (at pp): a
 * bit set (1 bytes, 2 time, 4 peak); 0 when no worse on any. */
static int
worse_on(const ilp_partition *p, int64_t pk, const ilp_partition *pt, int64_t pp)
{
	return (p->saved_bytes > pt->saved_bytes ? 1 : 0) |
	    (!time_le(p->recompute_time_us, pt->recompute_time_us) ? 2 : 0) |
	    (pk > pp ? 4 : 0);
}

static const char *
worse_names(int w)
{
	static const char *name[8] = { "none", "saved bytes", "recompute time",
	    "saved bytes and recompute time", "simulated peak", "saved bytes and peak",
	    "recompute time and peak", "all three" };

	return name[w & 7];
}

/* Without a time limit of the caller's, the seconds the peak-budget loop gets after
 * its search found an answer faster than PyTorch's partition (ilpi_solve_hooks
 * peak_budget_quick): llama-2l proves its optimum in about 1 s, transformers'
 * 100-layer Llama finds none in minutes. */
#define QUICK_LOOP 10.0

/* The seconds a pass may take: what is left of the caller's limit (counted from the
 * solve's start t0), else of the peak search's default counted from the first pass's
 * start td (both passes together keep to it: DistilBERT at 0.5 took 120 s, two passes
 * of the 60 s default each; the runtime solve before them may have used the default
 * already: transformers' 100-layer Llama at 0.1 with --bans none, 56 s); half of it
 * when another pass follows. */
static double
pass_limit(const ilp_solve_options *o, const ilpi_solve_hooks *h, double t0, double td,
    int another)
{
	double left = o->time_limit > 0 ? o->time_limit - (ilpi_now() - t0) :
	    (h->peak_default_limit > 0 ? h->peak_default_limit : ILPI_PEAK_DEFAULT_LIMIT) -
	    (ilpi_now() - td);

	if (another)
		left /= 2;
	return left < 1e-3 ? 1e-3 : left;
}

/* Least recompute time within `bytes` and PyTorch's peak pp, PyTorch's partition the
 * seed (and fq, the front's answer, when not NULL), within `limit` seconds. 0 with *q
 * the answer (or NULL when none was found), -1 on a system error. */
static int
solve_within(const ilp_graph *g, const ilp_solve_options *o, const ilp_partition *pt,
    const ilp_partition *fq, int64_t bytes, int64_t pp, double limit, ilp_partition **q,
    ilp_error *err)
{
	ilp_solve_options so = *o;
	ilp_partition *const seeds[2] = { (ilp_partition *)pt, (ilp_partition *)fq };
	ilpi_solve_hooks hk = { .peak_default_limit = limit,
	    .seeds = seeds, .n_seeds = fq != NULL ? 2 : 1, .seeds_only = 1,
	    .peak_budget_quick = o->time_limit <= 0 ? QUICK_LOOP : 0 };
	ilp_error e = { 0 };

	so.objective = ILP_OBJ_RUNTIME;
	so.budget_bytes = bytes;
	so.budget_fraction = -1;
	so.peak_budget = pp;
	so.unreachable = ILP_UNREACHABLE_FAIL;
	so.write_lp = so.write_mps = NULL; /* they hold the fraction's model */
	if (o->time_limit > 0)
		so.time_limit = limit;
	*q = NULL;
	if (ilpi_solve_hooked(g, &so, &hk, q, &e) == 0)
		return 0;
	*q = NULL;
	say(o, "dominance: none within %lld bytes and peak %lld: %.300s", (long long)bytes,
	    (long long)pp, e.msg);
	if (e.kind == ILP_ERR_SYSTEM) {
		*err = e;
		return -1;
	}
	return 0;
}

/* Where the model decomposes along repeated blocks, the front of (saved bytes,
 * recompute time) is read downward from `bytes` at FRONT_STEPS even steps to the least
 * bytes: the first point no worse than pt on all three numbers (simulated) has the
 * least recompute time of the points read, and bisection between it and the point
 * above (whose simulated peak was over pt's) looks for a faster one. Time only grows
 * as the bytes fall, so the walk stops at the first point slower than pt. Each point
 * is ilp_solve's optimum at its bytes, checked; the answer is not proven the least
 * time within the peak (the peak rows are a lower bound of the simulated peak, and a
 * solve under them cuts off one answer at a time: 60 s on a 12-layer stack). 0 with
 * *q the answer or NULL, -1 on a system error. */
enum { FRONT_STEPS = 32, FRONT_BISECT = 12 };

static int
front_point(ilp_pareto *par, const ilp_graph *g, int64_t b, const ilp_partition *pt,
    int64_t pp, ilp_partition **q, int *w, ilp_error *err)
{
	ilp_peak pk;
	ilp_error e = { 0 };

	*q = NULL;
	*w = 7;
	if (ilp_pareto_solve(par, b, q, &e) != 0) {
		*q = NULL;
		if (e.kind == ILP_ERR_SYSTEM) {
			*err = e;
			return -1;
		}
		return 0;
	}
	if (ilp_partition_peak(g, *q, &pk, &e) == 0)
		*w = worse_on(*q, pk.peak_bytes, pt, pp);
	return 0;
}

static int
front_walk(const ilp_graph *g, const ilp_solve_options *o, const ilp_partition *pt,
    int64_t bytes, int64_t pp, ilp_partition **best, ilp_error *err)
{
	ilp_solve_options po = *o;
	ilp_pareto *par = NULL;
	ilp_partition *q;
	ilp_error e = { 0 };
	int64_t lo, hi, top, over, fits = -1;
	int w, rc = -1;

	*best = NULL;
	po.verbose = 0;
	po.write_lp = po.write_mps = NULL;
	if (ilp_pareto_new(g, &po, &par, &e) != 0 || !ilp_pareto_from_front(par) ||
	    ilp_pareto_range(par, &lo, &hi, &e) != 0) {
		ilp_pareto_free(par);
		if (e.kind == ILP_ERR_SYSTEM) {
			*err = e;
			return -1;
		}
		return 0;
	}
	top = over = bytes < hi ? bytes : hi;
	for (int k = 1; k <= FRONT_STEPS && lo < top; k++) {
		int64_t b = top - (int64_t)((double)(top - lo) * k / FRONT_STEPS);

		if (front_point(par, g, b, pt, pp, &q, &w, err) != 0)
			goto out;
		if (q != NULL && w == 0) {
			*best = q;
			fits = b;
			break;
		}
		ilp_partition_free(q);
		if (w & 2) /* slower than pt: every point below is too */
			break;
		over = b;
	}
	for (int k = 0; *best != NULL && k < FRONT_BISECT && fits + 1 < over; k++) {
		int64_t b = fits + (over - fits) / 2;

		if (front_point(par, g, b, pt, pp, &q, &w, err) != 0)
			goto out;
		if (q != NULL && w == 0 && q->recompute_time_us < (*best)->recompute_time_us) {
			ilp_partition_free(*best);
			*best = q;
			fits = b;
		} else {
			ilp_partition_free(q);
			over = b;
		}
	}
	rc = 0;
out:
	if (rc != 0) {
		ilp_partition_free(*best);
		*best = NULL;
	}
	ilp_pareto_free(par);
	return rc;
}

/* An answer not proven by a solve of its own (PyTorch's partition, a front point):
 * the fraction's runtime producer with `status` and `gap`, within `bytes` and the peak
 * cap pp. */
static void
mark_answer(ilp_partition *q, const ilp_graph *g, const ilp_solve_options *o,
    const char *status, double gap, int64_t bytes, int64_t pp)
{
	ilpi_partition_set_producer(q, "ilp", "runtime", ilp_prefer_name(o->prefer), status);
	q->gap = gap;
	q->objective_value = q->recompute_time_us;
	q->budget_bytes = bytes;
	q->note[0] = '\0';
	ilpi_partition_record(q, g, o);
	q->peak_cap_bytes = pp;
}

/* The gap of an unproven answer q against lb, the least recompute time within the
 * bytes alone (-1: none known). */
static double
gap_over(const ilp_partition *q, double lb)
{
	return lb < 0 ? -1 : q->recompute_time_us > 0 ?
	    (q->recompute_time_us - lb) / q->recompute_time_us : 0;
}

int
drv_dominate(const ilp_graph *g, const ilp_solve_options *o, const ilpi_solve_hooks *h,
    const ilp_partition *pt, int64_t budget, double t0, ilp_partition **out, ilp_error *err)
{
	ilp_peak pa, pp, pq;
	ilp_error e = { 0 };
	ilp_partition *q = NULL, *fq = NULL;
	double td = ilpi_now();
	int w, rc;

	if (ilp_partition_peak(g, pt, &pp, &e) != 0 || ilp_partition_peak(g, *out, &pa, &e) != 0) {
		say(o, "dominance: not checked, a partition cannot be simulated: %.300s", e.msg);
		return 0;
	}
	w = worse_on(*out, pa.peak_bytes, pt, pp.peak_bytes);
	if (w == 0) {
		say(o, "dominance: no worse than PyTorch's partition at %g on saved bytes (%lld <= "
		    "%lld), recompute time (%.6g <= %.6g us) and simulated peak (%lld <= %lld)",
		    o->budget_fraction, (long long)(*out)->saved_bytes, (long long)pt->saved_bytes,
		    (*out)->recompute_time_us, pt->recompute_time_us, (long long)pa.peak_bytes,
		    (long long)pp.peak_bytes);
		return 0;
	}
	say(o, "dominance: the answer (%lld bytes, %.6g us, peak %lld) is worse than PyTorch's "
	    "partition at %g (%lld bytes, %.6g us, peak %lld) on %s: least recompute time within "
	    "%lld bytes and peak %lld", (long long)(*out)->saved_bytes, (*out)->recompute_time_us,
	    (long long)pa.peak_bytes, o->budget_fraction, (long long)pt->saved_bytes,
	    pt->recompute_time_us, (long long)pp.peak_bytes, worse_names(w), (long long)budget,
	    (long long)pp.peak_bytes);
	/* No time left: PyTorch's partition itself (it obeys the rules; checked when it
	 * was judged), the last resort. */
	if (o->time_limit > 0 && ilpi_now() - t0 >= o->time_limit &&
	    (q = ilpi_partition_clone(g, pt)) != NULL) {
		mark_answer(q, g, o, "time-limit", 1, pt->saved_bytes, pp.peak_bytes);
		say(o, "dominance: the time limit is spent: PyTorch's partition is the answer");
		ilp_partition_free(*out);
		*out = q;
		return 0;
	}
	/* Within the fraction's bytes first; when PyTorch's partition saves more than them
	 * (it does not fit) and nothing there is as fast, within its own bytes. */
	for (int k = 0; k < 2; k++) {
		int64_t bytes = k == 0 ? budget : pt->saved_bytes;
		/* the least time within the fraction's bytes alone bounds an answer from below */
		double lb = k == 0 && strcmp((*out)->status, "optimal") == 0 ?
		    (*out)->recompute_time_us : -1;

		if (k == 1 && bytes <= budget)
			break;
		if (k == 1)
			say(o, "dominance: within PyTorch's own %lld bytes", (long long)bytes);
		if (front_walk(g, o, pt, bytes, pp.peak_bytes, &fq, err) != 0)
			return -1;
		if (fq != NULL) {
			mark_answer(fq, g, o, "feasible", gap_over(fq, lb), bytes, pp.peak_bytes);
			say(o, "dominance: off the bytes/time front: %lld bytes, %.6g us, peak within "
			    "%lld", (long long)fq->saved_bytes, fq->recompute_time_us,
			    (long long)pp.peak_bytes);
			/* Without a time limit of the caller's, that answer stands (a search
			 * under the peak rows cuts off one answer at a time: 60 s on a 12-layer
			 * stack); with one, the search starts from it and may prove a faster one
			 * within the limit. */
			if (o->time_limit <= 0) {
				say(o, "dominance: not proven the least time within that peak (give "
				    "--time-limit to search for it)");
				ilp_partition_free(*out);
				*out = fq;
				return 0;
			}
		}
		rc = solve_within(g, o, pt, fq, bytes, pp.peak_bytes,
		    pass_limit(o, h, t0, td, k == 0 && pt->saved_bytes > budget), &q, err);
		if (rc != 0 || (q == NULL && fq != NULL)) {
			if (rc == 0) {
				ilp_partition_free(*out);
				*out = fq;
			} else {
				ilp_partition_free(fq);
			}
			return rc;
		}
		if (q == NULL)
			continue;
		w = ilp_partition_peak(g, q, &pq, &e) != 0 ? 7 :
		    worse_on(q, pq.peak_bytes, pt, pp.peak_bytes);
		if (w != 0 && fq != NULL) { /* the front's answer stands */
			ilp_partition_free(q);
			q = fq;
			fq = NULL;
			w = ilp_partition_peak(g, q, &pq, &e) != 0 ? 7 : 0;
		}
		ilp_partition_free(fq);
		fq = NULL;
		if (w == 0) {
			/* unproven: its gap against the least time within the bytes alone */
			double gq = gap_over(q, lb);

			if (strcmp(q->status, "optimal") != 0 && lb >= 0 && q->recompute_time_us > 0 &&
			    (q->gap < 0 || gq < q->gap))
				q->gap = gq;
			ilpi_partition_record(q, g, o);
			q->peak_cap_bytes = pp.peak_bytes;
			say(o, "dominance: %lld bytes, %.6g us, peak %lld (%s)",
			    (long long)q->saved_bytes, q->recompute_time_us, (long long)pq.peak_bytes,
			    q->status);
			ilp_partition_free(*out);
			*out = q;
			return 0;
		}
		say(o, "dominance: that answer is still worse on %s", worse_names(w));
		ilp_partition_free(q);
		q = NULL;
	}
	say(o, "dominance: no partition found no worse than PyTorch's; the answer stands");
	return 0;
}
