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

/* Least recompute time within `bytes` and PyTorch's peak pp, PyTorch's partition the
 * seed. 0 with *q the answer (or NULL when none was found), -1 on a system error. */
static int
solve_within(const ilp_graph *g, const ilp_solve_options *o, const ilpi_solve_hooks *h,
    const ilp_partition *pt, int64_t bytes, int64_t pp, double t0, ilp_partition **q,
    ilp_error *err)
{
	ilp_solve_options so = *o;
	ilp_partition *const seeds[1] = { (ilp_partition *)pt };
	ilpi_solve_hooks hk = { .peak_default_limit = h->peak_default_limit,
	    .seeds = seeds, .n_seeds = 1, .seeds_only = 1 };
	ilp_error e = { 0 };

	so.objective = ILP_OBJ_RUNTIME;
	so.budget_bytes = bytes;
	so.budget_fraction = -1;
	so.peak_budget = pp;
	so.unreachable = ILP_UNREACHABLE_FAIL;
	so.write_lp = so.write_mps = NULL; /* they hold the fraction's model */
	if (o->time_limit > 0 && (so.time_limit = o->time_limit - (ilpi_now() - t0)) < 1e-3)
		so.time_limit = 1e-3;
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

int
drv_dominate(const ilp_graph *g, const ilp_solve_options *o, const ilpi_solve_hooks *h,
    const ilp_partition *pt, int64_t budget, double t0, ilp_partition **out, ilp_error *err)
{
	ilp_peak pa, pp, pq;
	ilp_error e = { 0 };
	ilp_partition *q = NULL;
	int w;

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
		ilpi_partition_set_producer(q, "ilp", "runtime", ilp_prefer_name(o->prefer),
		    "time-limit");
		q->gap = 1;
		q->objective_value = q->recompute_time_us;
		q->budget_bytes = pt->saved_bytes;
		q->note[0] = '\0';
		ilpi_partition_record(q, g, o);
		q->peak_cap_bytes = pp.peak_bytes;
		say(o, "dominance: the time limit is spent: PyTorch's partition is the answer");
		ilp_partition_free(*out);
		*out = q;
		return 0;
	}
	/* Within the fraction's bytes first; when PyTorch's partition saves more than them
	 * (it does not fit) and nothing there is as fast, within its own bytes. */
	for (int k = 0; k < 2; k++) {
		int64_t bytes = k == 0 ? budget : pt->saved_bytes;

		if (k == 1 && bytes <= budget)
			break;
		if (k == 1)
			say(o, "dominance: within PyTorch's own %lld bytes", (long long)bytes);
		if (solve_within(g, o, h, pt, bytes, pp.peak_bytes, t0, &q, err) != 0)
			return -1;
		if (q == NULL)
			continue;
		w = ilp_partition_peak(g, q, &pq, &e) != 0 ? 7 :
		    worse_on(q, pq.peak_bytes, pt, pp.peak_bytes);
		if (w == 0) {
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
