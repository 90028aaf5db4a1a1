/*
 * test_solver.c - the ILP partitioner against exhaustive enumeration on hundreds of
 * random small joint graphs (every objective, budgets in bytes and as fractions, hard
 * and soft preferences), plus GLPK error recovery, determinism, model files,
 * conflict reports and the CLI-facing option checks.
 *
 * The oracle enumerates every set of saved values, derives the least recompute set
 * that makes it executable, and scores it; it shares with the solver only the rules
 * (policies/rules.c) and the per-node cost (graph/cost.c), not the model.
 *
 * Debug switches (environment): T_SEEDS=N graphs per loop iteration (default 60),
 * T_ONE=SEED runs one graph, T_DUMP prints each graph's JSON, T_DEBUG each solve.
 */
#include "config.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glpk.h>

#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "policies/rules.h"
#include "solver/blocks/blocks.h"
#include "graph/cost.h"
#include "solver/model/glpk_env.h"
#include "solver/blocks/mck.h"
#include "solver/mincut/mincut.h"
#include "solver/model/model.h"
#include "solver/model/lp_write.h"
#include "solver/model/reduce.h"
#include "solver/driver/budget.h"
#include "solver/driver/decomp.h"
#include "solver/driver/reach.h"
#include "tests/suites.h"
#include "tests/util.h"

/* ---- random joint graphs ------------------------------------------------------- */

/* util.h's generator; random_graph seeds it, the tests draw on after it. */
static t_rng rng;

typedef struct jbuf {
	char s[32768];
	size_t len;
} jbuf;

static void
jadd(jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
jadd(jbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	b->len += (size_t)vsnprintf(b->s + b->len, sizeof b->s - b->len, fmt, ap);
	va_end(ap);
	ck_assert_uint_lt(b->len, sizeof b->s);
}

static const char *tags[] = { "MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE",
    "PREFER_RECOMPUTE" };

/*
 * A random joint graph: 1-3 primals, 2-7 forward ops (some views, some tuples read
 * through getitems, some tagged), a tangent and 2-4 backward ops that read random
 * forward values. At most 13 non-backward values, so 2^13 save sets at most.
 */
static ilp_graph *
random_graph(uint64_t seed)
{
	jbuf b = { .len = 0 };
	int np, nf, nb, n = 0;
	int64_t bytes[32];
	int tuple[32] = { 0 }, i, last_fw;

	t_rng_seed(&rng, seed);
	np = 1 + (int)t_below(&rng, 3);
	nf = 2 + (int)t_below(&rng, 7);
	nb = 2 + (int)t_below(&rng, 3);
	jadd(&b, "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": [");
	for (i = 0; i < np; i++, n++) {
		bytes[n] = 16 * (1 + t_below(&rng, 8));
		jadd(&b, "%s{\"name\": \"n%d\", \"kind\": \"primal\", \"bytes\": %lld}",
		    n ? ", " : "", n, (long long)bytes[n]);
	}
	for (i = 0; i < nf; i++, n++) {
		int a = (int)t_below(&rng, (uint32_t)n), c = (int)t_below(&rng, (uint32_t)n), view;

		while (tuple[a])
			a = (int)t_below(&rng, (uint32_t)n);
		while (tuple[c])
			c = (int)t_below(&rng, (uint32_t)n);
		view = t_below(&rng, 5) == 0;
		bytes[n] = view ? bytes[a] : 16 * (1 + t_below(&rng, 8));
		if (!view && i + 2 < nf && t_below(&rng, 8) == 0) {
			/* a tuple and two getitems */
			tuple[n] = 1;
			jadd(&b, ", {\"name\": \"n%d\", \"kind\": \"op\", \"target\": \"aten.t%d\", "
			    "\"inputs\": [\"n%d\"], \"tuple\": true, \"flops\": %u}", n, n, a,
			    1000 * t_below(&rng, 50));
			for (int k = 0; k < 2; k++) {
				n++, i++;
				bytes[n] = 16 * (1 + t_below(&rng, 4));
				jadd(&b, ", {\"name\": \"n%d\", \"kind\": \"op\", \"target\": "
				    "\"getitem\", \"inputs\": [\"n%d\"], \"index\": %d, \"bytes\": %lld}",
				    n, n - 1 - k, k, (long long)bytes[n]);
			}
			continue;
		}
		jadd(&b, ", {\"name\": \"n%d\", \"kind\": \"op\", \"target\": \"aten.op%d\", "
		    "\"inputs\": [\"n%d\"", n, (int)t_below(&rng, 4), a);
		if (!view && c != a && t_below(&rng, 2))
			jadd(&b, ", \"n%d\"", c);
		jadd(&b, "], \"bytes\": %lld", (long long)bytes[n]);
		if (view)
			jadd(&b, ", \"view_of\": \"n%d\"", a);
		if (t_below(&rng, 2) == 0)
			jadd(&b, ", \"time_us\": %u", t_below(&rng, 50));
		else
			jadd(&b, ", \"flops\": %ue9", t_below(&rng, 100));
		if (t_below(&rng, 6) == 0)
			jadd(&b, ", \"recompute\": \"%s\", \"ac_graph_id\": 1", tags[t_below(&rng, 4)]);
		jadd(&b, "}");
	}
	last_fw = n - 1;
	while (tuple[last_fw])
		last_fw--;
	jadd(&b, ", {\"name\": \"n%d\", \"kind\": \"tangent\", \"bytes\": 64}", n);
	n++;
	for (i = 0; i < nb; i++, n++) {
		int f = (int)t_below(&rng, (uint32_t)(np + nf));

		while (tuple[f])
			f = (int)t_below(&rng, (uint32_t)(np + nf));
		jadd(&b, ", {\"name\": \"n%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
		    "\"inputs\": [\"n%d\", \"n%d\"], \"bytes\": 64, \"flops\": 10}", n, n - 1, f);
	}
	jadd(&b, "], \"outputs\": {\"forward\": [\"n%d\"], \"backward\": [\"n%d\"",
	    last_fw, n - 1);
	for (i = 1; i < np; i++)
		jadd(&b, ", null");
	jadd(&b, "]}}");
	if (getenv("T_DUMP") != NULL)
		fprintf(stderr, "%s\n", b.s);
	return t_graph(b.s);
}

/* ---- the oracle --------------------------------------------------------------------- */

typedef struct oracle {
	int feasible;
	int64_t bytes;        /* of the lexicographic optimum for the objective */
	double cost, value;
} oracle;

typedef struct world {
	const ilp_graph *g;
	ilpi_rules r;
	double cost[64];
	int idx[64];          /* non-backward live nodes */
	int m;
} world;

/* budget: the rules under a memory budget (PyTorch's bans lifted, random ops replay a
 * saved RNG state, whose bytes count) */
static void
world_init(world *w, const ilp_graph *g, ilp_prefer_mode prefer, ilp_bans bans, int budget)
{
	ilpi_rule_options ro;
	ilp_error err = { 0 };
	ilp_device dev;

	ck_assert_int_eq(ilp_device_lookup("h100", &dev), 0);
	ilpi_rule_options_init(&ro);
	ro.prefer = prefer;
	ro.bans = bans;
	ro.budget = ro.rng_replay = budget;
	ck_assert_msg(ilpi_rules_build(g, &ro, &w->r, &err) == 0, "%s", err.msg);
	w->g = g;
	w->m = 0;
	ck_assert_uint_le(g->n, 64);
	for (size_t v = 0; v < g->n; v++) {
		w->cost[v] = ilpi_node_costs_recompute(g, v) ? ilpi_node_cost_us(g, v, &dev) : 0;
		if (g->node[v].cls == ILPI_FORWARD || g->node[v].cls == ILPI_UNCLAIMED)
			w->idx[w->m++] = (int)v;
	}
	ck_assert_int_le(w->m, 16);
}

/* Scores save set `mask` (over w->idx): -1 when not executable. pen: soft penalties
 * in bytes (pen_unit 1) or time units, as docs/solver.md defines them. */
static int
score_pen(const world *w, unsigned mask, int64_t *bytes, double *cost, double *pen_b,
    double *pen_t);

static int
score(const world *w, unsigned mask, int64_t *bytes, double *cost, int *prefs_broken)
{
	double pb, pt;
	int rc = score_pen(w, mask, bytes, cost, &pb, &pt);

	*prefs_broken = pb > 0 || pt > 0;
	return rc;
}

/* Soft-mode penalties of docs/solver.md: overriding a preference costs twice the
 * value's own bytes (byte objectives) or twice max(cost, 1e-3 us) (time objectives). */
static void
penalise(const world *w, int v, double *pen_b, double *pen_t)
{
	const ilp_graph *g = w->g;

	*pen_b += 2.0 * (double)ilpi_storage_bytes(g, &g->node[v]);
	*pen_t += 2.0 * (w->cost[v] > 1e-3 ? w->cost[v] : 1e-3);
}

static int
score_pen(const world *w, unsigned mask, int64_t *bytes, double *cost, double *pen_b,
    double *pen_t)
{
	const ilp_graph *g = w->g;
	uint8_t saved[64] = { 0 }, need[64] = { 0 }, root_seen[64] = { 0 };

	*bytes = 0;
	*cost = 0;
	*pen_b = *pen_t = 0;
	for (int k = 0; k < w->m; k++)
		if (mask & (1u << k)) {
			int v = w->idx[k];

			if ((w->r.bits[v] & ILPI_R_NO_SAVE) || (g->node[v].flags & ILPI_F_TUPLE))
				return -1;
			saved[v] = 1;
			if (w->r.bits[v] & ILPI_R_PREFER_RECOMPUTE)
				penalise(w, v, pen_b, pen_t);
			if (!root_seen[g->node[v].storage]) {
				root_seen[g->node[v].storage] = 1;
				*bytes += ilpi_storage_bytes(g, &g->node[v]);
			}
		}
	for (size_t v = 0; v < g->n; v++)
		if ((g->node[v].flags & ILPI_F_BOUNDARY) && (g->node[v].cls == ILPI_FORWARD ||
		    g->node[v].cls == ILPI_UNCLAIMED))
			need[v] = 1;
	for (size_t v = g->n; v-- > 0;) {
		const ilpi_node *n = &g->node[v];

		if (!need[v] || saved[v])
			continue;
		if (n->kind != ILPI_OP || (w->r.bits[v] & ILPI_R_NO_RECOMPUTE))
			return -1;
		*cost += w->cost[v];
		if ((n->flags & ILPI_F_RANDOM) && !g->rng_functionalized)
			*bytes += ilpi_rng_state_bytes(g);
		if (w->r.bits[v] & ILPI_R_PREFER_SAVE)
			penalise(w, (int)v, pen_b, pen_t);
		for (uint32_t k = 0; k < n->in_count; k++)
			need[ilpi_inputs(g, n)[k]] = 1;
	}
	return 0;
}

enum { O_MEMORY, O_RUNTIME_BUDGET, O_RUNTIME_FREE, O_WEIGHTED };

static int
better(double a1, double a2, double b1, double b2)
{
	double e1 = 1e-9 * (1 + fabs(b1)), e2 = 1e-9 * (1 + fabs(b2));

	return a1 < b1 - e1 || (a1 <= b1 + e1 && a2 < b2 - e2);
}

static oracle
solve_oracle(const world *w, int obj, int64_t budget, double alpha)
{
	oracle best = { 0, 0, 0, 0 };

	for (unsigned mask = 0; mask < (1u << w->m); mask++) {
		int64_t b;
		double c, k1, k2;
		int pb;

		if (score(w, mask, &b, &c, &pb) != 0)
			continue;
		switch (obj) {
		case O_MEMORY:
			k1 = (double)b, k2 = c;
			break;
		case O_RUNTIME_BUDGET:
			if (b > budget)
				continue;
			k1 = c, k2 = (double)b;
			break;
		case O_RUNTIME_FREE:
			k1 = c, k2 = (double)b;
			break;
		default:
			k1 = (double)b + alpha * c, k2 = 0;
			break;
		}
		if (!best.feasible || better(k1, k2, best.value, best.cost)) {
			best.feasible = 1;
			best.bytes = b;
			best.value = k1;
			best.cost = k2;
		}
	}
	return best;
}

static void
expect_close(double got, double want, const char *what, uint64_t seed)
{
	ck_assert_msg(fabs(got - want) <= 1e-6 * (1 + fabs(want)),
	    "seed %llu: %s: solver %.12g, enumeration %.12g", (unsigned long long)seed, what,
	    got, want);
}

/* The fraction cap (docs/solver.md, "Memory budgets"): PyTorch's partition at the
 * fraction (ilpart's min-cut, torch's reading of the tags) lowers *budget to its saved
 * bytes when the checker accepts it in the solve's mode and it obeys the rules of
 * world w. Returns it then (the ILP must dominate it), else NULL. Where it saves more
 * than B(F), the caller raises the budget to its bytes when the optimum within B(F)
 * is slower than it. */
static ilp_partition *
pytorch_at(const ilp_graph *g, const world *w, const ilp_solve_options *o, int64_t *budget)
{
	ilpi_mincut_options mo;
	ilp_check_options co = { o->prefer };
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilpi_mincut_options_init(&mo);
	ilpi_mincut_options_from_solve(&mo, o);
	mo.prefer = ILP_PREFER_PYTORCH;
	mo.check = 0;
	if (ilpi_mincut_run(g, &mo, &p, NULL, &err) != 0)
		return NULL;
	if (ilp_check(g, p, &co, &err) == 0) {
		for (size_t v = 0; v < g->n; v++)
			if ((ilpi_saved(p, v) && (w->r.bits[v] & ILPI_R_NO_SAVE)) ||
			    (ilpi_recomputed(p, v) && (w->r.bits[v] & ILPI_R_NO_RECOMPUTE))) {
				ilp_partition_free(p);
				return NULL;
			}
		if (p->saved_bytes < *budget)
			*budget = p->saved_bytes;
		return p;
	}
	ilp_partition_free(p);
	return NULL;
}

/* Solves with o and compares with the oracle's optimum for `obj`. */
/* At a fraction whose PyTorch partition pt obeys the rules: ilp_solve's answer is no
 * worse than pt on saved bytes, recompute time and simulated peak, and it is the least
 * time within the bytes (plain, the enumerated optimum) whenever that already was. */
static void
dominance_case(const ilp_graph *g, const ilp_solve_options *o, const ilp_partition *plain,
    const ilp_partition *pt, uint64_t seed)
{
	ilp_partition *q = NULL;
	ilp_error err = { 0 };
	ilp_peak a, b, c;

	if (ilp_partition_peak(g, pt, &b, &err) != 0 || ilp_partition_peak(g, plain, &c, &err) != 0)
		return; /* PyTorch's partition does not run: nothing to compare */
	ck_assert_msg(ilp_solve(g, o, &q, &err) == 0, "seed %llu: %s", (unsigned long long)seed,
	    err.msg);
	ck_assert_int_eq(ilp_partition_peak(g, q, &a, &err), 0);
	ck_assert_int_le(q->saved_bytes, pt->saved_bytes);
	ck_assert_msg(q->recompute_time_us <= pt->recompute_time_us * (1 + 1e-9) + 1e-12,
	    "seed %llu: %.12g us, PyTorch %.12g", (unsigned long long)seed, q->recompute_time_us,
	    pt->recompute_time_us);
	ck_assert_msg(a.peak_bytes <= b.peak_bytes, "seed %llu: peak %lld, PyTorch's %lld",
	    (unsigned long long)seed, (long long)a.peak_bytes, (long long)b.peak_bytes);
	if (c.peak_bytes <= b.peak_bytes)
		ck_assert(memcmp(q->state, plain->state, q->n) == 0);
	ilp_partition_free(q);
}

static void
compare(const ilp_graph *g, const world *w, const ilp_solve_options *o, int obj,
    uint64_t seed)
{
	oracle want;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	ilp_check_options co = { o->prefer };
	int rc;
	int64_t budget = o->budget_bytes;
	ilp_partition *pt = NULL;  /* PyTorch's partition at the fraction, when it binds */

	ilp_solve_options strict = *o;

	if (getenv("T_DEBUG"))
		fprintf(stderr, "solving obj %d budget %lld fraction %g alpha %g\n", obj,
		    (long long)o->budget_bytes, o->budget_fraction, o->alpha);
	/* the oracle's conflicts: a fraction out of reach fails (solver/driver/reach.c);
	 * the least time within the bytes, as enumerated: without the dominance step at a
	 * fraction (checked below on its own) */
	strict.unreachable = ILP_UNREACHABLE_FAIL;
	rc = ilpi_solve_plain(g, &strict, &p, &err);

	if (obj == O_RUNTIME_BUDGET && o->budget_fraction >= 0) {
		/* PyTorch's normalisation: inputs' bytes to torch's min-cut at budget 1 */
		ilpi_mincut_options mo;
		double lo, hi;

		ilpi_mincut_options_init(&mo);
		ilpi_mincut_options_from_solve(&mo, o);
		mo.prefer = ILP_PREFER_PYTORCH;
		if (ilpi_mincut_budget_bounds(g, &mo, &lo, &hi, &err) != 0) {
			ck_assert_msg(rc != 0, "seed %llu: solved where the min-cut fails: %s",
			    (unsigned long long)seed, err.msg);
			return;
		}
		budget = (int64_t)floor(hi > lo ? lo + o->budget_fraction * (hi - lo) : hi);
		if (o->fraction_cap == ILP_FRACTION_CAP_PYTORCH)
			pt = pytorch_at(g, w, o, &budget);
	}
	want = solve_oracle(w, obj, budget, o->alpha);
	if (pt != NULL && pt->saved_bytes > budget && (!want.feasible ||
	    want.value > pt->recompute_time_us * (1 + 1e-9))) {
		/* slower than PyTorch within B(F), or nothing fits: PyTorch's own bytes */
		budget = pt->saved_bytes;
		want = solve_oracle(w, obj, budget, o->alpha);
	}
	if (!want.feasible) {
		ck_assert_msg(pt == NULL, "seed %llu: PyTorch's partition obeys the rules, "
		    "enumeration finds none", (unsigned long long)seed);
		ck_assert_msg(rc != 0, "seed %llu: solver found a partition, enumeration none",
		    (unsigned long long)seed);
		ck_assert_msg(err.kind == ILP_ERR_CONFLICT, "seed %llu: kind %d: %s",
		    (unsigned long long)seed, err.kind, err.msg);
		ck_assert_msg(strstr(err.msg, "infeasible") == NULL, "bare status: %s", err.msg);
		return;
	}
	ck_assert_msg(rc == 0, "seed %llu: %s", (unsigned long long)seed, err.msg);
	if (getenv("T_DEBUG"))
		fprintf(stderr, "seed %llu obj %d bytes %lld cost %.17g want %lld %.17g %.17g\n",
		    (unsigned long long)seed, obj, (long long)p->saved_bytes, p->recompute_time_us,
		    (long long)want.bytes, want.value, want.cost);
	ck_assert_msg(ilp_check(g, p, &co, &err) == 0, "seed %llu: %s",
	    (unsigned long long)seed, err.msg);
	ck_assert_str_eq(p->status, "optimal");
	switch (obj) {
	case O_MEMORY:
		ck_assert_int_eq(p->saved_bytes, want.bytes);
		expect_close(p->recompute_time_us, want.cost, "recompute cost", seed);
		break;
	case O_RUNTIME_BUDGET:
		ck_assert_int_eq(p->budget_bytes, budget);
		ck_assert_int_le(p->saved_bytes, budget);
		if (pt != NULL) { /* PyTorch's partition at F obeys the rules: dominated */
			ck_assert_int_le(p->saved_bytes, pt->saved_bytes);
			ck_assert_msg(p->recompute_time_us <= pt->recompute_time_us * (1 + 1e-9) +
			    1e-12, "seed %llu: ILP %.12g us, PyTorch %.12g us",
			    (unsigned long long)seed, p->recompute_time_us, pt->recompute_time_us);
		}
		expect_close(p->recompute_time_us, want.value, "recompute cost", seed);
		/* then least bytes: the optimum's time is within the second stage's level */
		ck_assert_int_le(p->saved_bytes, (int64_t)want.cost);
		if (pt != NULL)
			dominance_case(g, &strict, p, pt, seed);
		break;
	case O_RUNTIME_FREE:
		expect_close(p->recompute_time_us, want.value, "recompute cost", seed);
		ck_assert_int_eq(p->saved_bytes, (int64_t)want.cost);
		break;
	default:
		expect_close((double)p->saved_bytes + o->alpha * p->recompute_time_us, want.value,
		    "weighted objective", seed);
		break;
	}
	ilp_partition_free(p);
	ilp_partition_free(pt);
}

static void
random_case(uint64_t seed, ilp_bans bans)
{
	ilp_graph *g = random_graph(seed);
	ilp_solve_options o;
	world w, wb;
	oracle lo, hi;

	world_init(&w, g, ILP_PREFER_HARD, bans, 0);
	world_init(&wb, g, ILP_PREFER_HARD, bans, 1);
	ilp_solve_options_init(&o);
	o.bans = bans;
	compare(g, &w, &o, O_MEMORY, seed);
	o.objective = ILP_OBJ_RUNTIME;
	compare(g, &w, &o, O_RUNTIME_FREE, seed);
	lo = solve_oracle(&wb, O_MEMORY, 0, 0);
	hi = solve_oracle(&wb, O_RUNTIME_FREE, 0, 0);
	if (lo.feasible) {
		/* a budget between least and runtime-optimal bytes, and one below least */
		o.budget_bytes = lo.bytes + (int64_t)t_below(&rng, (uint32_t)((int64_t)hi.cost -
		    lo.bytes + 1));
		compare(g, &wb, &o, O_RUNTIME_BUDGET, seed);
		if (lo.bytes > 0) {
			o.budget_bytes = lo.bytes - 1;
			compare(g, &wb, &o, O_RUNTIME_BUDGET, seed);
		}
		o.budget_bytes = -1;
		o.budget_fraction = t_below(&rng, 11) / 10.0;
		compare(g, &wb, &o, O_RUNTIME_BUDGET, seed);
		o.fraction_cap = ILP_FRACTION_CAP_NORMALISED;
		compare(g, &wb, &o, O_RUNTIME_BUDGET, seed);
		o.fraction_cap = ILP_FRACTION_CAP_PYTORCH;
		o.budget_fraction = -1;
	}
	o.objective = ILP_OBJ_WEIGHTED;
	o.alpha = t_below(&rng, 3) == 0 ? 0 : t_below(&rng, 2) ? 1e3 * t_below(&rng, 100) :
	    t_below(&rng, 100) * 0.37;
	compare(g, &w, &o, O_WEIGHTED, seed);
	ilpi_rules_free(&w.r);
	ilpi_rules_free(&wb.r);
	ilp_graph_free(g);
}

/* Soft preferences: the solver's partition, scored with the penalties, must be as good
 * as the best save set under the same penalised objective. */
static void
soft_compare(const ilp_graph *g, const world *w, const ilp_solve_options *o, uint64_t seed)
{
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	unsigned mine = 0;
	int64_t b;
	double c, pb, pt, k1, k2, best1 = 0, best2 = 0, tol;
	int have = 0;

	for (unsigned mask = 0; mask < (1u << w->m); mask++) {
		if (score_pen(w, mask, &b, &c, &pb, &pt) != 0)
			continue;
		if (o->objective == ILP_OBJ_MEMORY)
			k1 = (double)b + pb, k2 = c + pt;
		else
			k1 = (double)b + pb + o->alpha * (c + pt), k2 = 0;
		if (!have || better(k1, k2, best1, best2))
			best1 = k1, best2 = k2, have = 1;
	}
	if (!have) {
		ck_assert_int_eq(ilp_solve(g, o, &p, &err), -1);
		ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
		return;
	}
	ck_assert_msg(ilp_solve(g, o, &p, &err) == 0, "seed %llu: %s",
	    (unsigned long long)seed, err.msg);
	for (int k = 0; k < w->m; k++)
		if (ilp_partition_is_saved(p, (size_t)w->idx[k]))
			mine |= 1u << k;
	ck_assert_int_eq(score_pen(w, mine, &b, &c, &pb, &pt), 0);
	if (o->objective == ILP_OBJ_MEMORY)
		k1 = (double)b + pb, k2 = c + pt;
	else
		k1 = (double)b + pb + o->alpha * (c + pt), k2 = 0;
	tol = 1e-6 * (1 + fabs(best1));
	ck_assert_msg(fabs(k1 - best1) <= tol, "seed %llu: penalised objective %.12g, "
	    "enumeration %.12g", (unsigned long long)seed, k1, best1);
	ck_assert_msg(k2 <= best2 + 1e-6 * (1 + fabs(best2)), "seed %llu: second key %.12g, "
	    "enumeration %.12g", (unsigned long long)seed, k2, best2);
	ck_assert_str_eq(p->prefer, "soft");
	ilp_partition_free(p);
}

START_TEST(soft_vs_enumeration)
{
	for (uint64_t s = 0; s < 60; s++) {
		uint64_t seed = 900000 + (uint64_t)_i * 1000 + s;
		ilp_graph *g = random_graph(seed);
		ilp_solve_options o;
		world w;

		world_init(&w, g, ILP_PREFER_SOFT, ILP_BANS_NONE, 0);
		ilp_solve_options_init(&o);
		o.prefer = ILP_PREFER_SOFT;
		o.bans = ILP_BANS_NONE;
		soft_compare(g, &w, &o, seed);
		o.objective = ILP_OBJ_WEIGHTED;
		o.alpha = t_below(&rng, 2) ? 0.5 * t_below(&rng, 40) : 100.0 * t_below(&rng, 40);
		soft_compare(g, &w, &o, seed);
		ilpi_rules_free(&w.r);
		ilp_graph_free(g);
	}
}
END_TEST

START_TEST(random_vs_enumeration)
{
	/* 8 loop iterations x 60 seeds = 480 graphs, 6 solves each (T_SEEDS=N for more). */
	uint64_t per = getenv("T_SEEDS") != NULL ? strtoull(getenv("T_SEEDS"), NULL, 10) : 60;

	if (getenv("T_ONE") != NULL) {
		if (_i == 0)
			random_case(strtoull(getenv("T_ONE"), NULL, 10), getenv("T_PYTORCH_BANS") ?
			    ILP_BANS_PYTORCH : ILP_BANS_NONE);
		return;
	}
	for (uint64_t s = 0; s < per; s++)
		random_case((uint64_t)_i * 100000 + s, s % 3 == 0 ? ILP_BANS_PYTORCH : ILP_BANS_NONE);
}
END_TEST

/* ---- repeated blocks: decomposition, monolithic ILP and enumeration agree ---------- */

/*
 * A stack of k copies of one random block: 2-4 ops reading the block's input or
 * earlier ops of the block (some views, some tagged), the block's output feeding the
 * next block, optionally through a residual add; the first block may carry an extra
 * op. The backward reads the same random values of every block.
 */
static ilp_graph *
block_graph_tags(uint64_t seed, int k, uint32_t tag_one_in)
{
	static jbuf b;
	int nops, extra, n = 0, x, tgt[4], src[4][2], view[4], reads[2], res;
	int64_t by[4];
	unsigned fl[4];
	int tag[4];

	rng.s = seed * 0x2545F4914F6CDD1Dull + 7; /* this generator's own seeding */
	b.len = 0;
	nops = 2 + (int)t_below(&rng, 3);
	extra = t_below(&rng, 2);
	res = t_below(&rng, 2);
	for (int i = 0; i < nops; i++) {
		tgt[i] = (int)t_below(&rng, 3);
		src[i][0] = (int)t_below(&rng, (uint32_t)i + 1) - 1;   /* -1: block input */
		src[i][1] = t_below(&rng, 2) ? (int)t_below(&rng, (uint32_t)i + 1) - 1 : -2;
		view[i] = src[i][0] >= 0 && t_below(&rng, 5) == 0;
		by[i] = view[i] ? by[src[i][0]] : 16 * (1 + t_below(&rng, 8));
		fl[i] = t_below(&rng, 100);
		tag[i] = t_below(&rng, tag_one_in) == 0 ? (int)t_below(&rng, 4) : -1;
	}
	reads[0] = (int)t_below(&rng, (uint32_t)nops);
	reads[1] = (int)t_below(&rng, (uint32_t)nops);
	jadd(&b, "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": [");
	jadd(&b, "{\"name\": \"x\", \"kind\": \"primal\", \"bytes\": 64}");
	x = -1;
	for (int l = 0; l < k; l++) {
		int base = n;
		char in[16];

		snprintf(in, sizeof in, x < 0 ? "x" : "v%d", x);
		if (l == 0 && extra) {
			jadd(&b, ", {\"name\": \"v%d\", \"kind\": \"op\", \"target\": \"aten.pre\", "
			    "\"inputs\": [\"%s\"], \"bytes\": 64, \"flops\": 3e9}", n, in);
			snprintf(in, sizeof in, "v%d", n);
			n++, base++;
		}
		for (int i = 0; i < nops; i++, n++) {
			char a[16], c[16];

			if (src[i][0] >= 0)
				snprintf(a, sizeof a, "v%d", base + src[i][0]);
			else
				snprintf(a, sizeof a, "%s", in);
			if (src[i][1] >= 0)
				snprintf(c, sizeof c, "v%d", base + src[i][1]);
			else
				snprintf(c, sizeof c, "%s", in);
			jadd(&b, ", {\"name\": \"v%d\", \"kind\": \"op\", \"target\": \"aten.op%d\", "
			    "\"inputs\": [\"%s\"", n, tgt[i], a);
			if (!view[i] && src[i][1] != -2 && strcmp(a, c) != 0)
				jadd(&b, ", \"%s\"", c);
			if (view[i])
				jadd(&b, "], \"view_of\": \"%s\", \"bytes\": %lld", a,
				    (long long)by[i]);
			else
				jadd(&b, "], \"bytes\": %lld, \"flops\": %ue9", (long long)by[i], fl[i]);
			if (tag[i] >= 0)
				jadd(&b, ", \"recompute\": \"%s\", \"ac_graph_id\": 1", tags[tag[i]]);
			jadd(&b, "}");
		}
		x = n - 1;
		if (res) {
			jadd(&b, ", {\"name\": \"v%d\", \"kind\": \"op\", \"target\": \"aten.add\", "
			    "\"inputs\": [\"%s\", \"v%d\"], \"bytes\": 64, \"flops\": 1e9}", n, in, x);
			x = n++;
		}
	}
	jadd(&b, ", {\"name\": \"t\", \"kind\": \"tangent\", \"bytes\": 64}");
	jadd(&b, ", {\"name\": \"g%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
	    "\"inputs\": [\"t\", \"v%d\"], \"bytes\": 64, \"flops\": 10}", 0, x);
	for (int l = k - 1, gi = 1; l >= 0; l--)
		for (int j = 0; j < 2; j++, gi++) {
			int v = extra + l * (nops + res) + reads[j];

			jadd(&b, ", {\"name\": \"g%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
			    "\"inputs\": [\"g%d\", \"v%d\"], \"bytes\": 64, \"flops\": 10}", gi, gi - 1,
			    v);
		}
	jadd(&b, "], \"outputs\": {\"forward\": [\"v%d\"], \"backward\": [\"g%d\"]}}", x,
	    2 * k);
	if (getenv("T_DUMP") != NULL)
		fprintf(stderr, "%s\n", b.s);
	return t_graph(b.s);
}

/* One op in 8 tagged. */
static ilp_graph *
block_graph(uint64_t seed, int k)
{
	return block_graph_tags(seed, k, 8);
}

/* 1 when the decomposition answered; a fall-back to the monolithic model after the
 * plan succeeded never happens on graphs this small, so it fails the test. */
static void
note_blocks(void *ctx, const char *line)
{
	if (strncmp(line, "blocks: optimal", 15) == 0)
		*(int *)ctx = 1;
	ck_assert_msg(strstr(line, "blocks: over the work") == NULL, "%s", line);
}

/* Solves twice, decomposed and monolithic; both optimal, same cost, within budget.
 * Returns the decomposed partition's cost (-1 when both report a conflict). */
static double
both_ways(const ilp_graph *g, ilp_solve_options *o, uint64_t seed, int *decomposed,
    int64_t *budget)
{
	ilp_partition *p = NULL, *q = NULL;
	ilp_error e1 = { 0 }, e2 = { 0 };
	ilp_check_options co = { o->prefer };
	int r1, r2;
	double cost;

	*decomposed = 0;
	o->verbose = 1;
	o->log = note_blocks;
	o->log_ctx = decomposed;
	o->monolithic = 0;
	/* the least time within the budget both ways (no dominance step at a fraction:
	 * its peak-budget solve has no decomposition; dominance_case checks it) */
	r1 = ilpi_solve_plain(g, o, &p, &e1);
	o->monolithic = 1;
	o->log = NULL;
	r2 = ilpi_solve_plain(g, o, &q, &e2);
	o->monolithic = 0;
	o->verbose = 0;
	ck_assert_msg(r1 == r2, "seed %llu: decomposed %d (%s), monolithic %d (%s)",
	    (unsigned long long)seed, r1, e1.msg, r2, e2.msg);
	if (r1 != 0) {
		ck_assert_int_eq(e1.kind, ILP_ERR_CONFLICT);
		ck_assert_int_eq(e2.kind, ILP_ERR_CONFLICT);
		return -1;
	}
	ck_assert_msg(ilp_check(g, p, &co, &e1) == 0, "seed %llu: %s",
	    (unsigned long long)seed, e1.msg);
	ck_assert_str_eq(p->status, "optimal");
	ck_assert_str_eq(q->status, "optimal");
	ck_assert_int_eq(p->budget_bytes, q->budget_bytes);
	ck_assert_int_le(p->saved_bytes, p->budget_bytes);
	*budget = p->budget_bytes;
	expect_close(p->recompute_time_us, q->recompute_time_us, "decomposed vs monolithic",
	    seed);
	cost = p->recompute_time_us;
	ilp_partition_free(p);
	ilp_partition_free(q);
	return cost;
}

START_TEST(blocks_vs_monolithic_vs_enumeration)
{
	int used = 0, runs = 0;

	for (uint64_t s = 0; s < 40; s++) {
		uint64_t seed = 700000 + (uint64_t)_i * 1000 + s;
		int k = _i == 0 ? 2 : 3 + (int)(s % 10);
		ilp_graph *g = block_graph(seed, k);
		ilp_bans bans = s % 3 == 0 ? ILP_BANS_PYTORCH : ILP_BANS_NONE;
		ilp_solve_options o;
		world w;
		int dec, small = _i == 0;
		int64_t budget_used;

		ilp_solve_options_init(&o);
		o.objective = ILP_OBJ_RUNTIME;
		o.bans = bans;
		if (small)
			world_init(&w, g, ILP_PREFER_HARD, bans, 1);
		for (int t = 0; t < 4; t++) {
			double got;

			o.budget_bytes = -1, o.budget_fraction = -1;
			if (t < 3)
				o.budget_fraction = t == 0 ? 0.1 : t == 1 ? 0.3 : t_below(&rng, 11) / 10.0;
			else
				o.budget_bytes = 64 * (int64_t)t_below(&rng, (uint32_t)(8 * k + 1));
			got = both_ways(g, &o, seed, &dec, &budget_used);
			used += dec, runs++;
			if (!small || got < 0)
				continue;
			/* the oracle, at the byte budget both solves used */
			{
				oracle want = solve_oracle(&w, O_RUNTIME_BUDGET, budget_used, 0);

				ck_assert(want.feasible);
				expect_close(got, want.value, "decomposed vs enumeration", seed);
			}
		}
		if (small)
			ilpi_rules_free(&w.r);
		ilp_graph_free(g);
	}
	/* the decomposition must actually have been used on most of these stacks */
	ck_assert_msg(used * 2 > runs, "decomposed %d of %d solves", used, runs);
}
END_TEST

/* ---- --offload free: the blocks' third state against the monolithic model -------- */

/*
 * Random stacks with --offload free (each saved item that torch could move may be
 * offloaded: the fronts' third state, docs/solver.md "Offload"), at a host link where
 * some transfers hide and some do not: the memory objective (least device bytes, then
 * least recompute + transfer) and the runtime objective within byte budgets, decomposed
 * and monolithic, both optimal with the same objective value and device bytes. Fails
 * when the fronts count an offloaded item's storage or leave out its transfer time.
 */
START_TEST(offload_blocks_vs_monolithic)
{
	int used = 0, runs = 0, offloaded = 0;

	for (uint64_t s = 0; s < 30; s++) {
		uint64_t seed = 910000 + s;
		int k = 3 + (int)(s % 6);
		ilp_graph *g = block_graph(seed, k);
		ilp_solve_options o;

		ilp_solve_options_init(&o);
		o.bans = ILP_BANS_NONE;
		o.offload = ILP_OFFLOAD_FREE;
		o.offload_bw = 1e8;
		for (int t = 0; t < 3; t++) {
			ilp_partition *p = NULL, *q = NULL;
			ilp_error e1 = { 0 }, e2 = { 0 };
			int dec = 0, r1, r2;

			o.objective = t == 0 ? ILP_OBJ_MEMORY : ILP_OBJ_RUNTIME;
			o.budget_bytes = t == 0 ? -1 : 64 * (int64_t)t_below(&rng,
			    (uint32_t)(8 * k + 1));
			o.verbose = 1;
			o.log = note_blocks;
			o.log_ctx = &dec;
			o.monolithic = 0;
			r1 = ilpi_solve_plain(g, &o, &p, &e1);
			o.log = NULL;
			o.verbose = 0;
			o.monolithic = 1;
			r2 = ilpi_solve_plain(g, &o, &q, &e2);
			ck_assert_msg(r1 == r2, "seed %llu: decomposed %d (%s), monolithic %d (%s)",
			    (unsigned long long)seed, r1, e1.msg, r2, e2.msg);
			runs++;
			if (r1 != 0) {
				ck_assert_int_eq(e1.kind, ILP_ERR_CONFLICT);
				continue;
			}
			used += dec;
			ck_assert_str_eq(p->status, "optimal");
			ck_assert_str_eq(q->status, "optimal");
			expect_close(p->objective_value, q->objective_value,
			    "decomposed vs monolithic (objective)", seed);
			if (t == 0)
				ck_assert_int_eq(ilpi_partition_saved_bytes(g, p) -
				    ilpi_partition_offloaded_bytes(g, p),
				    ilpi_partition_saved_bytes(g, q) -
				    ilpi_partition_offloaded_bytes(g, q));
			else
				ck_assert_int_le(ilpi_partition_saved_bytes(g, p) -
				    ilpi_partition_offloaded_bytes(g, p), o.budget_bytes);
			offloaded += ilpi_partition_count(p, ILPI_P_OFFLOADED) > 0;
			ilp_partition_free(p);
			ilp_partition_free(q);
		}
		ilp_graph_free(g);
	}
	/* the decomposition answered most, and offload was chosen somewhere */
	ck_assert_msg(used * 2 > runs, "decomposed %d of %d solves", used, runs);
	ck_assert_int_gt(offloaded, 0);
}
END_TEST

/* ---- soft preferences: decomposition and monolithic ILP agree -------------------- */

/* The penalised keys of a soft solve's answer (docs/solver.md "Soft preferences"),
 * from its overrides: k1 the objective's first key (memory: bytes plus byte
 * penalties; runtime: recompute time plus time penalties), k2 the second (runtime
 * with a budget: the saved bytes alone, the budget bounds those). */
static void
soft_keys(const ilp_graph *g, const ilp_partition *p, const ilp_solve_options *o,
    double *k1, double *k2)
{
	ilp_device dev;
	double pen_b = 0, pen_t = 0;
	int budget = o->budget_bytes >= 0 || o->budget_fraction >= 0;

	ck_assert_int_eq(ilp_device_lookup("h100", &dev), 0);
	for (size_t i = 0; i < p->n_overrides; i++) {
		size_t v = (size_t)p->overrides[i].node;
		double t = ilpi_node_costs_recompute(g, v) ? ilpi_node_cost_us(g, v, &dev) : 0;

		pen_b += 2.0 * (double)ilpi_charged_bytes(g, &g->node[v]);
		pen_t += 2.0 * (t > 1e-3 ? t : 1e-3);
		/* the gain recorded is the penalty in the objective's currency */
		expect_close(p->overrides[i].gain, o->objective == ILP_OBJ_RUNTIME ?
		    2.0 * (t > 1e-3 ? t : 1e-3) : 2.0 * (double)ilpi_charged_bytes(g,
		    &g->node[v]), "override gain", 0);
	}
	if (o->objective == ILP_OBJ_MEMORY) {
		*k1 = (double)p->saved_bytes + pen_b;
		*k2 = p->recompute_time_us + pen_t;
	} else {
		*k1 = p->recompute_time_us + pen_t;
		*k2 = (double)p->saved_bytes + (budget ? 0 : pen_b);
	}
}

/*
 * --prefer soft on stacks of a block with half its ops tagged (PREFER_SAVE and
 * PREFER_RECOMPUTE among them): the decomposition (the penalties as per-item terms of
 * its fronts) and the monolithic ILP give the same penalised keys, both proven, for
 * memory, runtime without a budget, fractions and byte budgets. The decomposition
 * must answer most solves, and overrides must happen in some and not in others.
 */
START_TEST(soft_blocks_vs_monolithic)
{
	int used = 0, runs = 0, with_ov = 0, without_ov = 0;

	for (uint64_t s = 0; s < 30; s++) {
		uint64_t seed = 720000 + (uint64_t)_i * 1000 + s;
		int k = 2 + (int)(s % 7);
		ilp_graph *g = block_graph_tags(seed, k, 2);
		ilp_solve_options o;

		ilp_solve_options_init(&o);
		o.prefer = ILP_PREFER_SOFT;
		o.bans = s % 3 == 0 ? ILP_BANS_PYTORCH : ILP_BANS_NONE;
		for (int t = 0; t < 6; t++) {
			ilp_partition *p = NULL, *q = NULL;
			ilp_error e1 = { 0 }, e2 = { 0 };
			ilp_check_options co = { ILP_PREFER_SOFT };
			int r1, r2, dec = 0;
			double a1, a2, b1, b2;

			o.objective = t == 0 ? ILP_OBJ_MEMORY : ILP_OBJ_RUNTIME;
			o.budget_bytes = -1, o.budget_fraction = -1;
			if (t >= 2 && t <= 4)
				o.budget_fraction = t == 2 ? 0.1 : t == 3 ? 0.3 : t_below(&rng, 11) / 10.0;
			else if (t == 5)
				o.budget_bytes = 64 * (int64_t)t_below(&rng, (uint32_t)(8 * k + 1));
			o.verbose = 1;
			o.log = note_blocks;
			o.log_ctx = &dec;
			o.monolithic = 0;
			r1 = ilp_solve(g, &o, &p, &e1);
			o.verbose = 0;
			o.log = NULL;
			o.monolithic = 1;
			r2 = ilp_solve(g, &o, &q, &e2);
			o.monolithic = 0;
			ck_assert_msg(r1 == r2, "seed %llu t %d: decomposed %d (%s), monolithic %d "
			    "(%s)", (unsigned long long)seed, t, r1, e1.msg, r2, e2.msg);
			runs++;
			used += dec;
			if (r1 != 0) {
				ck_assert_int_eq(e1.kind, ILP_ERR_CONFLICT);
				ck_assert_int_eq(e2.kind, ILP_ERR_CONFLICT);
				continue;
			}
			ck_assert_msg(ilp_check(g, p, &co, &e1) == 0, "seed %llu: %s",
			    (unsigned long long)seed, e1.msg);
			ck_assert_str_eq(p->status, "optimal");
			ck_assert_str_eq(q->status, "optimal");
			ck_assert_str_eq(p->prefer, "soft");
			ck_assert_int_eq(p->budget_bytes, q->budget_bytes);
			if (p->budget_bytes >= 0)
				ck_assert_int_le(p->saved_bytes, p->budget_bytes);
			soft_keys(g, p, &o, &a1, &a2);
			soft_keys(g, q, &o, &b1, &b2);
			if (getenv("T_DEBUG"))
				fprintf(stderr, "seed %llu t %d dec %d: %.12g %.12g (%zu overrides) | "
				    "%.12g %.12g (%zu)\n", (unsigned long long)seed, t, dec, a1, a2,
				    p->n_overrides, b1, b2, q->n_overrides);
			expect_close(a1, b1, "first key, decomposed vs monolithic", seed);
			expect_close(a2, b2, "second key, decomposed vs monolithic", seed);
			if (p->n_overrides > 0)
				with_ov++;
			else
				without_ov++;
			ilp_partition_free(p);
			ilp_partition_free(q);
		}
		ilp_graph_free(g);
	}
	ck_assert_msg(used * 4 > runs * 3, "decomposed %d of %d solves", used, runs);
	ck_assert_msg(with_ov >= 10 && without_ov >= 10, "%d answers override a "
	    "preference, %d none", with_ov, without_ov);
}
END_TEST

/*
 * Byte penalties count a storage once per preference on it: four PREFER_RECOMPUTE views
 * of one 2^61-byte value weigh 2^64 in penalties, past the fronts' int64 bytes (the
 * graph's own bytes stay below 2^62). The decomposition declines such a model (the
 * monolithic one, in doubles, solves it), and the answer is the same either way.
 */
START_TEST(soft_byte_penalties_past_int64)
{
	ilp_graph *g = t_graph("{\"format\": \"ilpart-joint-graph\", \"version\": 1, "
	    "\"nodes\": [{\"name\": \"x\", \"kind\": \"primal\", \"bytes\": 64}, "
	    "{\"name\": \"a\", \"kind\": \"op\", \"target\": \"aten.exp\", \"inputs\": "
	    "[\"x\"], \"bytes\": 2305843009213693952, \"flops\": 1e9}, "
	    "{\"name\": \"v1\", \"kind\": \"op\", \"target\": \"aten.view\", \"inputs\": "
	    "[\"a\"], \"view_of\": \"a\", \"bytes\": 8, \"recompute\": \"PREFER_RECOMPUTE\", "
	    "\"ac_graph_id\": 1}, "
	    "{\"name\": \"v2\", \"kind\": \"op\", \"target\": \"aten.view\", \"inputs\": "
	    "[\"a\"], \"view_of\": \"a\", \"bytes\": 8, \"recompute\": \"PREFER_RECOMPUTE\", "
	    "\"ac_graph_id\": 1}, "
	    "{\"name\": \"v3\", \"kind\": \"op\", \"target\": \"aten.view\", \"inputs\": "
	    "[\"a\"], \"view_of\": \"a\", \"bytes\": 8, \"recompute\": \"PREFER_RECOMPUTE\", "
	    "\"ac_graph_id\": 1}, "
	    "{\"name\": \"v4\", \"kind\": \"op\", \"target\": \"aten.view\", \"inputs\": "
	    "[\"a\"], \"view_of\": \"a\", \"bytes\": 8, \"recompute\": \"PREFER_RECOMPUTE\", "
	    "\"ac_graph_id\": 1}, "
	    "{\"name\": \"t\", \"kind\": \"tangent\", \"bytes\": 64}, "
	    "{\"name\": \"g\", \"kind\": \"op\", \"target\": \"aten.bw\", \"inputs\": "
	    "[\"t\", \"v1\", \"v2\", \"v3\", \"v4\"], \"bytes\": 64, \"flops\": 10}], "
	    "\"outputs\": {\"forward\": [\"a\"], \"backward\": [\"g\"]}}");
	ilp_solve_options o;

	ilp_solve_options_init(&o);
	o.prefer = ILP_PREFER_SOFT;
	o.bans = ILP_BANS_NONE;
	for (int t = 0; t < 3; t++) {
		ilp_partition *p = NULL, *q = NULL;
		ilp_error e1 = { 0 }, e2 = { 0 };
		double a1, a2, b1, b2;

		o.objective = t == 0 ? ILP_OBJ_MEMORY : ILP_OBJ_RUNTIME;
		o.budget_fraction = t == 2 ? 0.5 : -1;
		o.monolithic = 0;
		ck_assert_msg(ilp_solve(g, &o, &p, &e1) == 0, "t %d: %s", t, e1.msg);
		o.monolithic = 1;
		ck_assert_msg(ilp_solve(g, &o, &q, &e2) == 0, "t %d: %s", t, e2.msg);
		ck_assert_str_eq(p->status, "optimal");
		soft_keys(g, p, &o, &a1, &a2);
		soft_keys(g, q, &o, &b1, &b2);
		expect_close(a1, b1, "first key, decomposed vs monolithic", (uint64_t)t);
		expect_close(a2, b2, "second key, decomposed vs monolithic", (uint64_t)t);
		ilp_partition_free(p);
		ilp_partition_free(q);
	}
	ilp_graph_free(g);
}
END_TEST

/* 1 when the monolithic runtime stage started from the hard or pytorch-mode seed. */
static void
note_seed(void *ctx, const char *line)
{
	if (strstr(line, "runtime: starting from the hard or pytorch-mode partition") != NULL)
		*(int *)ctx = 1;
}

/*
 * --prefer soft --monolithic with a budget and a time limit: the runtime stage starts
 * from a partition within the budget that obeys the preferences (a hard-mode solve, or
 * PyTorch's reading when hard is a conflict) when that recomputes less than its other
 * starts, so a time limit still ends with it (the 100k-node generator graph at 0.3:
 * exit 4 before). Corpus graphs at fractions where the seed is the better start: it
 * is used, and the answer is the one solved without a time limit (no seed).
 */
START_TEST(soft_monolithic_starts_from_seed)
{
	static const char *const files[] = { "tests/data/corpus/mixed-regions.json",
	    "tests/data/corpus/resnet-small.json", "tests/data/corpus/convnet.json" };
	ilp_graph *g = t_graph_file(t_srcpath(files[_i]));
	ilp_solve_options o;
	ilp_partition *p = NULL, *q = NULL;
	ilp_error err = { 0 };
	int seen = 0;

	ilp_solve_options_init(&o);
	o.prefer = ILP_PREFER_SOFT;
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.5;
	o.monolithic = 1;
	o.time_limit = 120;
	o.verbose = 1;
	o.log = note_seed;
	o.log_ctx = &seen;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_msg(seen, "%s: the seed was not the start", files[_i]);
	o.time_limit = 0;
	o.verbose = 0;
	o.log = NULL;
	ck_assert_msg(ilp_solve(g, &o, &q, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(p->status, "optimal");
	ck_assert_str_eq(q->status, "optimal");
	expect_close(p->recompute_time_us, q->recompute_time_us, "seeded vs not", 0);
	ck_assert_int_eq(p->saved_bytes, q->saved_bytes);
	ilp_partition_free(p);
	ilp_partition_free(q);
	ilp_graph_free(g);
}
END_TEST

/* ---- pareto: every budget off one front equals ilp_solve at that budget ----------- */

/* ilp_solve with the runtime objective at `budget` bytes (or fraction frac >= 0). */
static int
solve_at(const ilp_graph *g, const ilp_solve_options *base, int64_t budget, double frac,
    ilp_partition **out, ilp_error *err)
{
	ilp_solve_options o = *base;

	o.objective = ILP_OBJ_RUNTIME;
	o.budget_bytes = frac >= 0 ? -1 : budget;
	o.budget_fraction = frac;
	o.unreachable = ILP_UNREACHABLE_FAIL; /* as ilp_pareto_solve */
	/* a curve's point is the least time within the bytes: no dominance step */
	return ilpi_solve_plain(g, &o, out, err);
}

/* Saved bytes of ilp_solve's answer without a budget, under a budget's rules. */
static int64_t
end_bytes(const ilp_graph *g, const ilp_solve_options *base, ilp_objective obj)
{
	ilp_solve_options o = *base;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	int64_t by;

	o.objective = obj;
	o.bans = ILP_BANS_NONE;
	o.rng_replay = ILP_RNG_REPLAY_ALWAYS;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	by = p->saved_bytes;
	ilp_partition_free(p);
	return by;
}

/* ilp_pareto at budget b (fraction frac >= 0: converted first) against ilp_solve. */
static void
pareto_point(const ilp_graph *g, const ilp_solve_options *o, ilp_pareto *pa, int64_t b,
    double frac, const char *what)
{
	ilp_partition *p = NULL, *q = NULL;
	ilp_error e1 = { 0 }, e2 = { 0 };
	int r1, r2;

	if (frac >= 0)
		ck_assert_msg(ilp_pareto_fraction_bytes(pa, frac, &b, &e1) == 0, "%s", e1.msg);
	r1 = ilp_pareto_solve(pa, b, &p, &e1);
	r2 = solve_at(g, o, b, frac, &q, &e2);
	ck_assert_msg(r1 == r2, "%s %s at %lld: pareto %d (%s), solve %d (%s)", g->path,
	    what, (long long)b, r1, e1.msg, r2, e2.msg);
	if (r1 != 0) {
		ck_assert_int_eq(e1.kind, e2.kind);
		ck_assert_str_eq(e1.msg, e2.msg);
		return;
	}
	ck_assert_str_eq(p->status, "optimal");
	ck_assert_str_eq(q->status, "optimal");
	ck_assert_int_eq(p->budget_bytes, b);
	ck_assert_int_eq(q->budget_bytes, b);
	ck_assert_msg(p->saved_bytes == q->saved_bytes, "%s %s at %lld: pareto saves %lld, "
	    "solve %lld", g->path, what, (long long)b, (long long)p->saved_bytes,
	    (long long)q->saved_bytes);
	ck_assert_msg(fabs(p->recompute_time_us - q->recompute_time_us) <=
	    1e-9 * (1 + fabs(q->recompute_time_us)), "%s %s at %lld: pareto %.12g us, solve "
	    "%.12g us", g->path, what, (long long)b, p->recompute_time_us,
	    q->recompute_time_us);
	ilp_partition_free(p);
	ilp_partition_free(q);
}

/* The curve's ends, evenly spaced budgets, fractions, a random budget and one below
 * every partition: each equal to its own solve. Returns ilp_pareto_from_front. */
static int
pareto_vs_solve(const ilp_graph *g, const ilp_solve_options *o, int points)
{
	ilp_pareto *pa = NULL;
	ilp_error err = { 0 };
	int64_t lo, hi;
	int front;

	ck_assert_msg(ilp_pareto_new(g, o, &pa, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_pareto_range(pa, &lo, &hi, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(lo, end_bytes(g, o, ILP_OBJ_MEMORY));
	ck_assert_int_eq(hi, end_bytes(g, o, ILP_OBJ_RUNTIME));
	for (int k = 0; k < points; k++)
		pareto_point(g, o, pa, lo + (hi - lo) * k / (points - 1), -1, "sweep");
	pareto_point(g, o, pa, 0, 0.1, "fraction 0.1");
	pareto_point(g, o, pa, 0, 0.3, "fraction 0.3");
	pareto_point(g, o, pa, 0, t_below(&rng, 11) / 10.0, "random fraction");
	pareto_point(g, o, pa, lo + (int64_t)t_below(&rng, 1000) * (hi - lo + 1) / 1000, -1,
	    "random bytes");
	if (lo > 0)
		pareto_point(g, o, pa, lo - 1, -1, "below the least bytes");
	front = ilp_pareto_from_front(pa);
	ilp_pareto_free(pa);
	return front;
}

START_TEST(pareto_equals_solve_on_stacks)
{
	int fronts = 0;

	for (uint64_t s = 0; s < 24; s++) {
		uint64_t seed = 900000 + s;
		ilp_graph *g = block_graph(seed, 3 + (int)(s % 8));
		ilp_solve_options o;

		ilp_solve_options_init(&o);
		o.bans = s % 2 ? ILP_BANS_PYTORCH : ILP_BANS_NONE;
		fronts += pareto_vs_solve(g, &o, 7);
		ilp_graph_free(g);
	}
	ck_assert_msg(fronts >= 20, "front used on %d of 24 stacks", fronts);
}
END_TEST

/* ---- the Pareto curve with offload dominates the one without (issue 26) -------------- */

/* Device bytes of p: its saved bytes less the offloaded storages'. */
static int64_t
dev_bytes(const ilp_graph *g, const ilp_partition *p)
{
	return ilpi_partition_saved_bytes(g, p) - ilpi_partition_offloaded_bytes(g, p);
}

/* 1 when some saved value of p could be offloaded (the checker accepts it offloaded)
 * and its storage has bytes: then offloading it takes bytes off the device. */
static int
any_offloadable(const ilp_graph *g, const ilp_partition *p0)
{
	ilp_partition *p = ilpi_partition_clone(g, p0);
	ilp_error err = { 0 };
	int any = 0;

	ck_assert_ptr_nonnull(p);
	for (size_t v = 0; v < g->n && !any; v++) {
		if (!ilpi_saved(p, v) || ilpi_charged_bytes(g, &g->node[v]) <= 0)
			continue;
		p->state[v] |= ILPI_P_OFFLOADED;
		any = ilp_check(g, p, NULL, &err) == 0;
		p->state[v] &= (uint8_t)~ILPI_P_OFFLOADED;
	}
	ilp_partition_free(p);
	return any;
}

/* Time tolerance of the dominance: relative 1e-9 (the fronts' and GLPK's sums). */
static int
time_le(double a, double b)
{
	return a <= b + 1e-9 * (1 + fabs(b));
}

enum { CURVE_POINTS = 8, CURVE_BELOW = 3 };

/*
 * The two curves of `ilpart pareto --offload free` on g at host link bw (h100): without
 * offload, CURVE_POINTS budgets from its least bytes to its runtime optimum's (saved
 * bytes, recompute time); with offload, the same budgets and CURVE_BELOW from its least
 * device bytes up (device bytes, recompute + the model's transfer time). Asserts: every
 * point proven and within its budget, passes the checker, its bytes and time the
 * evaluator's and the simulator's (the simulated exposed transfer time never above the
 * model's, docs/solver.md "Offload"); each offload point the ilp_solve answer at its
 * budget; every point without offload weakly dominated by one with (device bytes <=,
 * time <= within time_le); where the least-bytes partition without offload saves a value
 * that could be offloaded, the offload curve reaches strictly fewer device bytes.
 * Returns 1 then, else 0.
 */
static int
offload_curves(const ilp_graph *g, double bw, int bans_none)
{
	ilp_solve_options o, fo;
	ilp_pareto *p0 = NULL, *p1 = NULL;
	ilp_error err = { 0 };
	int64_t lo0, hi0, lo1, hi1, by0[CURVE_POINTS], by1[CURVE_POINTS + CURVE_BELOW];
	double t0[CURVE_POINTS], t1[CURVE_POINTS + CURVE_BELOW];
	int n1 = 0, strict = 0;

	ilp_solve_options_init(&o);
	o.bans = bans_none ? ILP_BANS_NONE : ILP_BANS_PYTORCH;
	o.offload_bw = bw;
	fo = o;
	fo.offload = ILP_OFFLOAD_FREE;
	ck_assert_msg(ilp_pareto_new(g, &o, &p0, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_pareto_new(g, &fo, &p1, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_pareto_range(p0, &lo0, &hi0, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_pareto_range(p1, &lo1, &hi1, &err) == 0, "%s", err.msg);
	ck_assert_int_le(lo1, lo0);
	for (int k = 0; k < CURVE_POINTS; k++) {
		int64_t b = lo0 + (hi0 - lo0) * k / (CURVE_POINTS - 1);
		ilp_partition *p = NULL;

		ck_assert_msg(ilp_pareto_solve(p0, b, &p, &err) == 0, "%s at %lld: %s", g->path,
		    (long long)b, err.msg);
		ck_assert_str_eq(p->status, "optimal");
		ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
		ck_assert_int_eq(ilpi_partition_count(p, ILPI_P_OFFLOADED), 0);
		ck_assert_int_le(p->saved_bytes, b);
		by0[k] = p->saved_bytes;
		t0[k] = p->recompute_time_us;
		if (k == 0)
			strict = any_offloadable(g, p);
		ilp_partition_free(p);
	}
	for (int k = 0; k < CURVE_POINTS + CURVE_BELOW; k++) {
		int64_t b = k < CURVE_BELOW ? lo1 + (lo0 - lo1) * k / CURVE_BELOW :
		    lo0 + (hi0 - lo0) * (k - CURVE_BELOW) / (CURVE_POINTS - 1);
		ilp_partition *p = NULL, *q = NULL, *e;
		ilp_peak pk;

		ck_assert_msg(ilp_pareto_solve(p1, b, &p, &err) == 0, "%s at %lld: %s", g->path,
		    (long long)b, err.msg);
		ck_assert_str_eq(p->status, "optimal");
		ck_assert_int_eq(ilp_check(g, p, NULL, &err), 0);
		ck_assert_int_le(dev_bytes(g, p), b);
		/* the evaluator's bytes and time, the simulator's transfers */
		e = ilpi_partition_clone(g, p);
		ck_assert_int_eq(ilp_partition_evaluate(g, e, &fo.device, &err), 0);
		ck_assert_int_eq(e->saved_bytes, p->saved_bytes);
		ck_assert(e->recompute_time_us == p->recompute_time_us);
		ilp_partition_free(e);
		ck_assert_int_eq(ilp_partition_peak(g, p, &pk, &err), 0);
		ck_assert_msg(time_le(p->recompute_time_us + pk.exposed_us, p->objective_value),
		    "%s at %lld: simulated %.12g us, model %.12g", g->path, (long long)b,
		    p->recompute_time_us + pk.exposed_us, p->objective_value);
		if (ilpi_partition_count(p, ILPI_P_OFFLOADED) == 0)
			ck_assert(p->objective_value == p->recompute_time_us);
		/* the front's point is ilp_solve's at the same budget */
		ck_assert_msg(solve_at(g, &fo, b, -1, &q, &err) == 0, "%s", err.msg);
		ck_assert_int_eq(dev_bytes(g, q), dev_bytes(g, p));
		ck_assert_msg(fabs(q->objective_value - p->objective_value) <= 1e-9 *
		    (1 + fabs(q->objective_value)), "%s at %lld: pareto %.12g, solve %.12g",
		    g->path, (long long)b, p->objective_value, q->objective_value);
		by1[n1] = dev_bytes(g, p);
		t1[n1++] = p->objective_value;
		ilp_partition_free(p);
		ilp_partition_free(q);
	}
	for (int k = 0; k < CURVE_POINTS; k++) {
		int dom = 0;

		for (int j = 0; j < n1 && !dom; j++)
			dom = by1[j] <= by0[k] && time_le(t1[j], t0[k]);
		ck_assert_msg(dom, "%s at %g B/s: no offload point dominates (%lld bytes, %.12g "
		    "us)", g->path, bw, (long long)by0[k], t0[k]);
	}
	if (strict)
		ck_assert_msg(by1[0] < by0[0], "%s at %g B/s: a saved value could be offloaded, "
		    "but the least device bytes with offload are %lld, without %lld", g->path,
		    bw, (long long)by1[0], (long long)by0[0]);
	ilp_pareto_free(p0);
	ilp_pareto_free(p1);
	return strict;
}

START_TEST(pareto_offload_dominates)
{
	static const char *const files[] = { "tests/data/corpus/checkpoint-2l.json",
	    "tests/data/corpus/convnet.json", "tests/data/corpus/dropout-sac.json",
	    "tests/data/corpus/float8-sac.json", "tests/data/corpus/gpt-4l.json",
	    "tests/data/corpus/gpt-6l-sac-mm.json", "tests/data/corpus/llama-2l-sac-mm.json",
	    "tests/data/corpus/llama-2l.json", "tests/data/corpus/mixed-regions.json",
	    "tests/data/corpus/mlp-dropout.json", "tests/data/corpus/mlp.json",
	    "tests/data/corpus/resnet-small.json", "tests/data/corpus/sac-policies-2l.json",
	    "tests/data/corpus/transformer-2l.json", "bench/corpus/transformer-12l.json",
	    "bench/corpus/transformer-48l.json" };
	int strict = 0, runs = 0;

	/* small stacks, host links from one that hides nothing to one that hides much */
	for (uint64_t s = 0; s < 12; s++) {
		ilp_graph *g = block_graph(930000 + s, 3 + (int)(s % 6));

		strict += offload_curves(g, s % 2 ? 1e8 : 25e9, 1);
		runs++;
		ilp_graph_free(g);
	}
	/* every corpus graph and the 12/48-layer stacks: h100, 25 GB/s (issue 26's
	 * acceptance) */
	for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
		ilp_graph *g = t_graph_file(t_srcpath(files[k]));

		strict += offload_curves(g, 25e9, 1);
		strict += offload_curves(g, 25e9, 0);
		runs += 2;
		ilp_graph_free(g);
	}
	/* offloading changed the least bytes on most of them */
	ck_assert_msg(strict * 2 > runs, "offloadable on %d of %d", strict, runs);
}
END_TEST

/* Every budget from the least bytes to the runtime optimum's, 64 bytes apart (the
 * stacks' sizes), the knee included: each budgeted solve, decomposed and bounded,
 * equals the point the complete front gives. */
START_TEST(solve_equals_front_at_every_budget)
{
	for (uint64_t s = 0; s < 6; s++) {
		uint64_t seed = 950000 + (uint64_t)_i * 100 + s;
		ilp_graph *g = block_graph(seed, 4 + (int)((s * 5 + (uint64_t)_i * 3) % 12));
		ilp_solve_options o;
		ilp_pareto *pa = NULL;
		ilp_error err = { 0 };
		int64_t lo, hi;
		int dec = 0;

		ilp_solve_options_init(&o);
		o.bans = (s + (uint64_t)_i) % 2 ? ILP_BANS_PYTORCH : ILP_BANS_NONE;
		ck_assert_msg(ilp_pareto_new(g, &o, &pa, &err) == 0, "%s", err.msg);
		ck_assert_msg(ilp_pareto_range(pa, &lo, &hi, &err) == 0, "%s", err.msg);
		ck_assert_int_eq(ilp_pareto_from_front(pa), 1);
		/* a fall-back to the monolithic model fails (note_blocks) */
		o.verbose = 1, o.log = note_blocks, o.log_ctx = &dec;
		for (int64_t b = lo; b <= hi + 64; b += 64) {
			pareto_point(g, &o, pa, b, -1, "every budget");
			pareto_point(g, &o, pa, b + 63, -1, "every budget");
		}
		ck_assert(dec);
		ilp_pareto_free(pa);
		ilp_graph_free(g);
	}
}
END_TEST

/* ---- independent segments: combination by counts (solver/blocks/mck.c) ------------------- */

/* A front of (bytes, cost) for the oracle: ascending bytes, strictly descending cost. */
typedef struct kfront {
	int64_t b[4096];
	double c[4096];
	size_t n;
} kfront;

/* out = the Pareto points of f plus one point of class q: the segment-by-segment
 * combination without bounds, complete. */
static void
kfront_add(const kfront *f, const ilpi_mck_class *q, kfront *out)
{
	static int64_t b[4096 * 8];
	static double c[4096 * 8];
	size_t m = 0, k = 0;
	double best = DBL_MAX;

	for (size_t i = 0; i < f->n; i++)
		for (size_t j = 0; j < q->n; j++, m++) {
			ck_assert_uint_lt(m, 4096 * 8);
			b[m] = f->b[i] + q->bytes[j];
			c[m] = f->c[i] + q->cost[j];
		}
	for (size_t i = 1; i < m; i++)   /* insertion sort by bytes, then cost */
		for (size_t j = i; j > 0 && (b[j - 1] > b[j] || (b[j - 1] == b[j] &&
		    c[j - 1] > c[j])); j--) {
			int64_t tb = b[j];
			double tc = c[j];

			b[j] = b[j - 1], c[j] = c[j - 1], b[j - 1] = tb, c[j - 1] = tc;
		}
	for (size_t i = 0; i < m; i++)
		if (c[i] < best) {
			ck_assert_uint_lt(k, 4096);
			best = c[i];
			out->b[k] = b[i], out->c[k] = c[i], k++;
		}
	out->n = k;
}

/*
 * Random classes with many ties (bytes and cost steps from small sets, so hull edges
 * of equal slope within and across classes, collinear points, classes of one point,
 * classes without copies) and caps from below the least bytes to above the most: the
 * combination by counts against the complete segment-by-segment front (and, for the
 * smallest, every count vector): the same least cost, then the same least bytes among
 * the answers within 1e-9 of it, as blocks.c reads a front.
 */
START_TEST(counts_vs_complete_front)
{
	int lines = 0, solved = 0;

	for (uint64_t s = 0; s < 300; s++) {
		ilpi_mck_class cl[5];
		int64_t by[5][6], cnt[30], minb = 0, maxb = 0;
		double co[5][6];
		size_t ncl, tot = 0;
		static kfront f[2];
		int cur = 0;

		t_rng_seed(&rng, 860000 + (uint64_t)_i * 1000 + s);
		ncl = 1 + t_below(&rng, 5);
		f[0].n = 1, f[0].b[0] = 0, f[0].c[0] = 0;
		for (size_t c = 0; c < ncl; c++) {
			size_t n = 1 + t_below(&rng, 5);
			int64_t b = 16 * (int64_t)t_below(&rng, 4);
			double t = 0.5 * (1 + t_below(&rng, 4)) + 0.25 * (double)n * 4;

			for (size_t j = 0; j < n; j++) {
				by[c][j] = b, co[c][j] = t;
				b += 16 * (int64_t)(1 << t_below(&rng, 3));
				t -= 0.25 * (1 + t_below(&rng, 3));
			}
			cl[c].n = n;
			cl[c].bytes = by[c];
			cl[c].cost = co[c];
			cl[c].copies = t_below(&rng, 8) == 0 ? 0 : s % 4 == 0 ?
			    (int64_t)(1 + t_below(&rng, 40)) : (int64_t)(1 + t_below(&rng, 9));
			minb += cl[c].copies * by[c][0];
			maxb += cl[c].copies * by[c][n - 1];
			tot += n;
			for (int64_t k = 0; k < cl[c].copies; k++, cur ^= 1)
				kfront_add(&f[cur], &cl[c], &f[cur ^ 1]);
		}
		for (int t = 0; t < 8; t++) {
			int64_t cap = t == 0 ? minb - 1 : t == 1 ? minb : t == 2 ? maxb :
			    t == 3 ? maxb + 100 : minb + (int64_t)t_below(&rng,
			    (uint32_t)(maxb - minb + 1));
			const kfront *w = &f[cur];
			size_t hi = 0, pick;
			double least, lim, got_c, bound;
			int64_t got_b, sb = 0;
			double sc = 0;
			ilpi_mck_stats st;
			int rc;

			rc = ilpi_mck_solve(cl, ncl, cap, 0, 1000000, cnt, &got_b, &got_c, &bound,
			    &st);
			while (hi < w->n && w->b[hi] <= cap)
				hi++;
			if (hi == 0) {
				ck_assert_msg(rc == 2, "seed %llu cap %lld: rc %d, nothing fits",
				    (unsigned long long)s, (long long)cap, rc);
				continue;
			}
			ck_assert_msg(rc == 0, "seed %llu cap %lld: rc %d", (unsigned long long)s,
			    (long long)cap, rc);
			least = w->c[hi - 1];
			lim = least + 1e-9 * (fabs(least) > 1 ? fabs(least) : 1);
			for (pick = 0; w->c[pick] > lim; pick++)
				;
			ck_assert_msg(fabs(got_c - least) <= 1e-9 * (1 + fabs(least)) &&
			    got_b == w->b[pick], "seed %llu cap %lld: counts %lld B %.12g, front "
			    "%lld B %.12g", (unsigned long long)s, (long long)cap, (long long)got_b,
			    got_c, (long long)w->b[pick], w->c[pick]);
			ck_assert(bound == got_c);
			/* the counts are an answer with those bytes and that cost */
			for (size_t c = 0, o = 0; c < ncl; o += cl[c].n, c++) {
				int64_t m = 0;

				for (size_t j = 0; j < cl[c].n; j++) {
					m += cnt[o + j];
					sb += cnt[o + j] * cl[c].bytes[j];
					sc += (double)cnt[o + j] * cl[c].cost[j];
				}
				ck_assert_int_eq(m, cl[c].copies);
			}
			ck_assert_int_eq(sb, got_b);
			ck_assert(fabs(sc - got_c) <= 1e-9 * (1 + fabs(sc)));
			lines += st.lines > 0;
			solved++;
			/* the smallest: every point of every copy (at most 6 copies) */
			if (ncl <= 2 && cl[0].copies <= 3 && (ncl == 1 || cl[1].copies <= 3)) {
				int64_t all = 1;
				double e = DBL_MAX;

				for (size_t c = 0; c < ncl; c++)
					for (int64_t k = 0; k < cl[c].copies; k++)
						all *= 6;
				for (int64_t a = 0; a < all; a++) {
					int64_t x = a, b2 = 0;
					double c2 = 0;
					int ok = 1;

					for (size_t c = 0; c < ncl; c++)
						for (int64_t k = 0; k < cl[c].copies; k++, x /= 6) {
							size_t j = (size_t)(x % 6);

							if (j >= cl[c].n)
								ok = 0;
							else
								b2 += cl[c].bytes[j], c2 += cl[c].cost[j];
						}
					if (ok && b2 <= cap && c2 < e)
						e = c2;
				}
				ck_assert(fabs(e - got_c) <= 1e-9 * (1 + fabs(e)));
			}
		}
	}
	/* the relaxation (a line and moves) must have been used, and most caps solved */
	ck_assert_msg(lines > 50, "%d of %d solves split a class", lines, solved);
}
END_TEST

/*
 * k blocks, each of one of `types` random kinds: 2-3 ops reading the block's input or
 * earlier ops of the block (bytes and flops from small sets, so kinds and choices tie),
 * the last one the block's output, which the next block and the backward read: a
 * boundary value, always available, so no state crosses the cut after it. The backward
 * also reads one more op of each block.
 */
static ilp_graph *
indep_graph(uint64_t seed, int k, int types)
{
	static jbuf b;
	int nops[3], src[3][3][2], rd[3], n = 0, x = -1, outs[64], reads[64];
	int64_t by[3][3];
	unsigned fl[3][3];

	rng.s = seed * 0x9E3779B97F4A7C15ull + 11;
	b.len = 0;
	ck_assert_int_le(k, 64);
	for (int t = 0; t < types; t++) {
		nops[t] = 2 + (int)t_below(&rng, 2);
		for (int i = 0; i < nops[t]; i++) {
			src[t][i][0] = (int)t_below(&rng, (uint32_t)i + 1) - 1;   /* -1: input */
			src[t][i][1] = t_below(&rng, 2) ? (int)t_below(&rng, (uint32_t)i + 1) - 1 :
			    -2;
			by[t][i] = 16 << t_below(&rng, 3);
			fl[t][i] = 1 + t_below(&rng, 3);
		}
		rd[t] = (int)t_below(&rng, (uint32_t)nops[t] - 1);
	}
	jadd(&b, "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": [");
	jadd(&b, "{\"name\": \"x\", \"kind\": \"primal\", \"bytes\": 64}");
	for (int l = 0; l < k; l++) {
		int t = (int)t_below(&rng, (uint32_t)types), base = n;
		char in[16];

		snprintf(in, sizeof in, x < 0 ? "x" : "v%d", x);
		for (int i = 0; i < nops[t]; i++, n++) {
			char a[16], c[16];

			if (src[t][i][0] >= 0)
				snprintf(a, sizeof a, "v%d", base + src[t][i][0]);
			else
				snprintf(a, sizeof a, "%s", in);
			if (src[t][i][1] >= 0)
				snprintf(c, sizeof c, "v%d", base + src[t][i][1]);
			else
				snprintf(c, sizeof c, "%s", in);
			jadd(&b, ", {\"name\": \"v%d\", \"kind\": \"op\", \"target\": \"aten.op%d\", "
			    "\"inputs\": [\"%s\"", n, i, a);
			if (src[t][i][1] != -2 && strcmp(a, c) != 0)
				jadd(&b, ", \"%s\"", c);
			jadd(&b, "], \"bytes\": %lld, \"flops\": %ue9}", (long long)by[t][i],
			    fl[t][i]);
		}
		x = n - 1;
		outs[l] = x;
		reads[l] = base + rd[t];
	}
	jadd(&b, ", {\"name\": \"t\", \"kind\": \"tangent\", \"bytes\": 64}");
	jadd(&b, ", {\"name\": \"g0\", \"kind\": \"op\", \"target\": \"aten.bw\", "
	    "\"inputs\": [\"t\", \"v%d\"], \"bytes\": 64, \"flops\": 10}", x);
	for (int l = k - 1, gi = 1; l >= 0; l--, gi++)
		jadd(&b, ", {\"name\": \"g%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
		    "\"inputs\": [\"g%d\", \"v%d\", \"v%d\"], \"bytes\": 64, \"flops\": 10}", gi,
		    gi - 1, outs[l], reads[l]);
	jadd(&b, "], \"outputs\": {\"forward\": [\"v%d\"], \"backward\": [\"g%d\"]}}", x, k);
	if (getenv("T_DUMP") != NULL)
		fprintf(stderr, "%s\n", b.s);
	return t_graph(b.s);
}

/* Counts "(by counts)" decomposed solves; a fall-back fails (note_blocks). */
static void
note_counts(void *ctx, const char *line)
{
	if (strstr(line, "points (by counts)") != NULL)
		((int *)ctx)[1]++;
	note_blocks(ctx, line);
}

/*
 * Stacks of independent blocks of 2-3 kinds: every budget from the least bytes to the
 * runtime optimum's (16 bytes apart, the graphs' unit) solved by counts equals the
 * point of the complete front that ilp_pareto combines segment by segment (the
 * combination before counts), and the monolithic ILP at fractions and random budgets;
 * on the smallest stacks enumeration too.
 */
START_TEST(counts_vs_front_monolithic_enumeration)
{
	int used[2] = { 0, 0 }, runs = 0;

	for (uint64_t s = 0; s < 10; s++) {
		uint64_t seed = 870000 + (uint64_t)_i * 100 + s;
		int k = _i == 0 ? 2 + (int)(s % 2) : 4 + (int)((s * 7) % 20), small = _i == 0;
		ilp_graph *g = indep_graph(seed, k, small ? 2 : 2 + (int)(s % 2));
		ilp_bans bans = s % 2 ? ILP_BANS_PYTORCH : ILP_BANS_NONE;
		ilp_solve_options o;
		ilp_pareto *pa = NULL;
		ilp_error err = { 0 };
		int64_t lo, hi;
		world w;

		ilp_solve_options_init(&o);
		o.bans = bans;
		ck_assert_msg(ilp_pareto_new(g, &o, &pa, &err) == 0, "%s", err.msg);
		ck_assert_msg(ilp_pareto_range(pa, &lo, &hi, &err) == 0, "%s", err.msg);
		ck_assert_int_eq(ilp_pareto_from_front(pa), 1);
		o.verbose = 1, o.log = note_counts, o.log_ctx = used;
		for (int64_t b = lo - 16; b <= hi + 16; b += 16) {
			pareto_point(g, &o, pa, b, -1, "counts");
			runs += b >= lo;
		}
		ilp_pareto_free(pa);
		o.verbose = 0, o.log = NULL, o.log_ctx = NULL;
		o.objective = ILP_OBJ_RUNTIME;
		if (small)
			world_init(&w, g, ILP_PREFER_HARD, bans, 1);
		for (int t = 0; t < 4; t++) {
			int dec;
			int64_t budget_used;
			double got;

			o.budget_bytes = -1, o.budget_fraction = -1;
			if (t < 3)
				o.budget_fraction = t == 0 ? 0.1 : t == 1 ? 0.5 : t_below(&rng, 11) / 10.0;
			else
				o.budget_bytes = lo + (int64_t)t_below(&rng, (uint32_t)(hi - lo + 1));
			got = both_ways(g, &o, seed, &dec, &budget_used);
			if (!small || got < 0)
				continue;
			{
				oracle want = solve_oracle(&w, O_RUNTIME_BUDGET, budget_used, 0);

				ck_assert(want.feasible);
				expect_close(got, want.value, "counts vs enumeration", seed);
			}
		}
		if (small)
			ilpi_rules_free(&w.r);
		ilp_graph_free(g);
	}
	/* every budgeted solve within reach went by counts */
	ck_assert_msg(used[1] >= runs, "by counts: %d of %d", used[1], runs);
}
END_TEST

/* Multi-block corpus graphs: the front applies and gives every point. */
START_TEST(pareto_equals_solve_on_corpus)
{
	static const char *const files[] = { "tests/data/corpus/gpt-4l.json",
	    "tests/data/corpus/llama-2l.json", "tests/data/corpus/transformer-2l.json" };
	ilp_graph *g = t_graph_file(t_srcpath(files[_i]));
	ilp_solve_options o;

	ilp_solve_options_init(&o);
	ck_assert_int_eq(pareto_vs_solve(g, &o, 10), 1);
	ilp_graph_free(g);
}
END_TEST

/*
 * A stack of 16 layers as Inductor's decomposed joint graphs have them (train_bench's
 * gpt): each layer's residual stream h -> a -> b -> c -> h + c, and in the backward part
 * of the file a chain of ops on forward values only (u = f(a), w = f(u, b): a decomposed
 * GELU or layer-norm backward that no tangent reaches), read by the layer's backward op.
 * The plan must cut at every layer: the chains go next to their inputs (else a and b of
 * every layer stay live to the end, no cut of 4 variables exists), and the plan takes
 * width-1 cuts of 6-item layers over one width-0 segment of all 95 items (a 280-item
 * one cost the Llama's solve 6.7 s of CPU, docs/solver.md). Same optimum as the
 * monolithic model at 0.1, 0.3, 0.5.
 */
START_TEST(blocks_cut_every_layer)
{
	static jbuf b;
	const int k = 16;
	ilp_graph *g;
	ilp_solve_options o;
	ilp_error err = { 0 };
	char *text = NULL, *at;
	unsigned long most = 0, seg = 0, cnt, items;

	b.len = 0;
	jadd(&b, "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": [");
	jadd(&b, "{\"name\": \"h0\", \"kind\": \"primal\", \"bytes\": 64}");
	for (int l = 0; l < k; l++) {
		jadd(&b, ", {\"name\": \"a%d\", \"kind\": \"op\", \"target\": \"aten.mm\", "
		    "\"inputs\": [\"h%d\"], \"bytes\": 64, \"flops\": 8e9}", l, l);
		jadd(&b, ", {\"name\": \"b%d\", \"kind\": \"op\", \"target\": \"aten.mul\", "
		    "\"inputs\": [\"a%d\"], \"bytes\": 128, \"flops\": 1e9}", l, l);
		jadd(&b, ", {\"name\": \"c%d\", \"kind\": \"op\", \"target\": \"aten.mm\", "
		    "\"inputs\": [\"b%d\"], \"bytes\": 64, \"flops\": 8e9}", l, l);
		jadd(&b, ", {\"name\": \"h%d\", \"kind\": \"op\", \"target\": \"aten.add\", "
		    "\"inputs\": [\"h%d\", \"c%d\"], \"bytes\": 64, \"flops\": 1e9}", l + 1, l,
		    l);
	}
	jadd(&b, ", {\"name\": \"t\", \"kind\": \"tangent\", \"bytes\": 64}");
	for (int l = k - 1; l >= 0; l--) {
		jadd(&b, ", {\"name\": \"u%d\", \"kind\": \"op\", \"target\": \"aten.mul\", "
		    "\"inputs\": [\"a%d\"], \"bytes\": 64, \"flops\": 1e9}", l, l);
		jadd(&b, ", {\"name\": \"w%d\", \"kind\": \"op\", \"target\": \"aten.mul\", "
		    "\"inputs\": [\"u%d\", \"b%d\"], \"bytes\": 64, \"flops\": 1e9}", l, l, l);
		if (l == k - 1)
			jadd(&b, ", {\"name\": \"g%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
			    "\"inputs\": [\"t\", \"w%d\", \"c%d\"], \"bytes\": 64, \"flops\": 10}", l,
			    l, l);
		else
			jadd(&b, ", {\"name\": \"g%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
			    "\"inputs\": [\"g%d\", \"w%d\", \"c%d\"], \"bytes\": 64, \"flops\": 10}",
			    l, l + 1, l, l);
	}
	jadd(&b, "], \"outputs\": {\"forward\": [\"h%d\"], \"backward\": [\"g0\"]}}", k);
	g = t_graph(b.s);
	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.bans = ILP_BANS_NONE;
	ck_assert_msg(ilpi_blocks_report(g, &o, &text, &err) == 0, "%s", err.msg);
	/* "class C: N x M items, ...": the longest segment */
	for (at = text; (at = strstr(at, "class ")) != NULL; at++)
		if (sscanf(at, "class %*u: %lu x %lu items", &cnt, &items) == 2)
			seg += cnt, most = items > most ? items : most;
	ck_assert_msg(seg >= (unsigned long)k && most <= 8, "%s", text);
	free(text);
	for (int t = 0; t < 3; t++) {
		int dec;
		int64_t used;

		o.budget_fraction = t == 0 ? 0.1 : t == 1 ? 0.3 : 0.5;
		both_ways(g, &o, (uint64_t)t, &dec, &used);
		ck_assert_msg(dec, "fraction %g: not decomposed", o.budget_fraction);
	}
	ilp_graph_free(g);
}
END_TEST

/* Every node's recompute cost on `dev` (0 where nothing is recomputed): the cost array
 * ilpi_reduce takes, as solve makes it. */
static double *
recompute_costs(const ilp_graph *g, const ilp_device *dev)
{
	double *cost = calloc(g->n + 1, sizeof *cost);

	ck_assert_ptr_nonnull(cost);
	for (size_t v = 0; v < g->n; v++)
		if (ilpi_node_costs_recompute(g, v))
			cost[v] = ilpi_node_cost_us(g, v, dev);
	return cost;
}

/*
 * The complete front of independent segments (tests/data/blocks/llama-8l-d16.json, as
 * ilpi_front_new plans it) stops as soon as the points kept, and the last cut's for
 * each cut still to come, exceed the work limit: with the limit at a third of the
 * points the complete front keeps, it stops early (projected, fewer points kept than
 * the limit); with the limit at exactly those points it completes (the estimate never
 * exceeds what the front really keeps here: its fronts grow from cut to cut).
 */
START_TEST(front_stops_early_when_projected_over_limit)
{
	ilp_graph *g = t_graph_file(t_srcpath("tests/data/blocks/llama-8l-d16.json"));
	ilp_solve_options o;
	ilpi_rules r;
	ilpi_reduced red;
	ilp_error err = { 0 };
	size_t full = 0;
	double *cost;

	ilp_solve_options_init(&o);
	cost = recompute_costs(g, &o.device);
	ck_assert_int_eq(ilpi_rules_build(g, NULL, &r, &err), 0);
	ck_assert_msg(ilpi_reduce(g, &r, cost, 0, &red, &err) == 0, "%s", err.msg);
	for (int k = 0; k < 3; k++) {
		ilpi_blocks *b = NULL;
		ilpi_blocks_stats st;
		int rc;

		ck_assert_msg(ilpi_blocks_plan_coarse(&red, 16, &b, &err) == 0, "%s", err.msg);
		ck_assert_ptr_nonnull(b);
		if (k > 0)
			ilpi_blocks_set_max_points(b, k == 1 ? full : full / 3);
		rc = ilpi_blocks_front(b, &err);
		ilpi_blocks_get_stats(b, &st);
		if (k < 2) {
			ck_assert_int_eq(rc, 0);
			ck_assert_int_eq(st.projected, 0);
			if (k == 0)
				full = st.n_points;
			ck_assert_uint_eq(st.n_points, full);
			ck_assert_uint_gt(st.n_seg, 16);
		} else {
			ck_assert_int_eq(rc, 1);
			ck_assert_int_eq(st.projected, 1);
			ck_assert_uint_le(st.n_points, full / 3);
		}
		ilpi_blocks_free(b);
	}
	ilpi_reduced_free(&red);
	ilpi_rules_free(&r);
	free(cost);
	ilp_graph_free(g);
}
END_TEST

/* A budgeted solve by decomposition over its work limit with time left hands back the
 * answer it has (rc 4: the counts' first answer or the heuristic run's, a start for
 * the monolithic model; before, rc 1 and the monolithic runtime stage started from
 * nothing better than the least-memory partition): random stacks of 12 blocks at a
 * third of their byte range, the work limit halved from the points a proof needs down
 * to 1. Every rc 4 answer fits, is no better than the optimum, and its item decisions
 * cost what it says. */
START_TEST(blocks_over_work_limit_keep_an_answer)
{
	int fours = 0, stacks = 0;

	for (uint64_t seed = 730000; seed < 730020; seed++) {
		ilp_graph *g = block_graph(seed, 12);
		double *cost;
		ilp_solve_options o;
		ilpi_rule_options ro;
		ilpi_rules r;
		ilpi_reduced red;
		ilp_error err = { 0 };
		uint8_t *s, *rr;
		int64_t b0, cap = -1, by;
		double opt = 0, co, bound;
		size_t full = 0;

		ilp_solve_options_init(&o);
		cost = recompute_costs(g, &o.device);
		ilpi_rule_options_init(&ro);
		ro.bans = ILP_BANS_NONE;
		ro.budget = 1;
		ck_assert_int_eq(ilpi_rules_build(g, &ro, &r, &err), 0);
		ck_assert_msg(ilpi_reduce(g, &r, cost, 0, &red, &err) == 0, "%s", err.msg);
		s = calloc(red.n_items + 1, 1);
		rr = calloc(red.n_items + 1, 1);
		ck_assert(s != NULL && rr != NULL);
		for (size_t limit = 0;; limit = limit == 0 ? full : limit / 2) {
			ilpi_blocks *b = NULL;
			ilpi_blocks_stats st;
			int rc;

			ck_assert_msg(ilpi_blocks_plan(&red, &b, &err) == 0, "%s", err.msg);
			if (b == NULL || ilpi_blocks_prepare(b, &err) != 0 ||
			    (b0 = ilpi_blocks_least_bytes(b, s, rr)) < 0) {
				ilpi_blocks_free(b);
				break;
			}
			if (cap < 0) {
				int64_t hi;

				ck_assert_int_eq(ilpi_blocks_runtime_optimal(b, &hi, &co, s, rr, &err),
				    0);
				cap = b0 + (hi - b0) / 3;
			}
			if (limit > 0)
				ilpi_blocks_set_max_points(b, limit);
			rc = ilpi_blocks_solve(b, cap, &by, &co, &bound, s, rr, &err);
			ilpi_blocks_get_stats(b, &st);
			ilpi_blocks_free(b);
			if (getenv("T_DEBUG"))
				fprintf(stderr, "seed %llu limit %zu rc %d points %zu counts %d\n",
				    (unsigned long long)seed, limit, rc, st.n_points, st.counts);
			if (limit == 0) {
				ck_assert_int_eq(rc, 0);
				stacks++;
				opt = co;
				full = st.n_points;
				continue;
			}
			ck_assert_msg(rc == 0 || rc == 1 || rc == 4, "limit %zu: rc %d", limit, rc);
			if (rc == 4) {
				double sum = 0;

				for (size_t it = 0; it < red.n_items; it++)
					if (rr[it])
						sum += red.item[it].cost;
				fours++;
				ck_assert_int_le(by, cap);
				ck_assert(co >= opt - 1e-9 * (1 + fabs(opt)));
				ck_assert(bound <= opt + 1e-9 * (1 + fabs(opt)));
				expect_close(sum, co, "the answer's items", seed);
			}
			if (limit <= 1)
				break;
		}
		free(s);
		free(rr);
		ilpi_reduced_free(&red);
		ilpi_rules_free(&r);
		free(cost);
		ilp_graph_free(g);
	}
	ck_assert_msg(fours >= 10, "%d work limits left an answer (%d stacks)", fours, stacks);
}
END_TEST

/* A fan of 20 values that two ops read, 16 of them not read by the backward, so all
 * live at once: no class front can hold them (docs/solver.md), every point is its own
 * solve, and still equals it; a stack under --monolithic likewise. */
START_TEST(pareto_falls_back_without_blocks)
{
	static jbuf b;
	ilp_graph *g;
	ilp_solve_options o;

	b.len = 0;
	jadd(&b, "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": [");
	jadd(&b, "{\"name\": \"x\", \"kind\": \"primal\", \"bytes\": 64}");
	for (int i = 0; i < 20; i++)
		jadd(&b, ", {\"name\": \"b%d\", \"kind\": \"op\", \"target\": \"aten.op\", "
		    "\"inputs\": [\"x\"], \"bytes\": %d, \"flops\": %de9}", i, 16 * (1 + i % 5),
		    1 + (i * 7) % 11);
	for (int k = 0; k < 2; k++) {
		jadd(&b, ", {\"name\": \"s%d\", \"kind\": \"op\", \"target\": \"aten.sum\", "
		    "\"inputs\": [", k);
		for (int i = 0; i < 20; i++)
			jadd(&b, "%s\"b%d\"", i ? ", " : "", i);
		jadd(&b, "], \"bytes\": 64, \"flops\": 1e9}");
	}
	jadd(&b, ", {\"name\": \"y\", \"kind\": \"op\", \"target\": \"aten.add\", "
	    "\"inputs\": [\"s0\", \"s1\"], \"bytes\": 64, \"flops\": 1e9}");
	jadd(&b, ", {\"name\": \"t\", \"kind\": \"tangent\", \"bytes\": 64}");
	jadd(&b, ", {\"name\": \"g0\", \"kind\": \"op\", \"target\": \"aten.bw\", "
	    "\"inputs\": [\"t\", \"s0\"], \"bytes\": 64, \"flops\": 10}");
	jadd(&b, ", {\"name\": \"g1\", \"kind\": \"op\", \"target\": \"aten.bw\", "
	    "\"inputs\": [\"g0\", \"s1\"], \"bytes\": 64, \"flops\": 10}");
	for (int i = 0; i < 4; i++)
		jadd(&b, ", {\"name\": \"g%d\", \"kind\": \"op\", \"target\": \"aten.bw\", "
		    "\"inputs\": [\"g%d\", \"b%d\"], \"bytes\": 64, \"flops\": 10}", i + 2, i + 1,
		    i);
	jadd(&b, "], \"outputs\": {\"forward\": [\"y\"], \"backward\": [\"g5\"]}}");
	g = t_graph(b.s);
	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	ck_assert_int_eq(pareto_vs_solve(g, &o, 6), 0);
	ilp_graph_free(g);
	o.monolithic = 1;
	g = block_graph(900001, 4);
	ck_assert_int_eq(pareto_vs_solve(g, &o, 4), 0);
	ilp_graph_free(g);
}
END_TEST

/* ---- GLPK environment ------------------------------------------------------------------ */

static int
provoke(void *ctx, ilp_error *err)
{
	glp_prob *lp = glp_create_prob();

	(void)err;
	*(glp_prob **)ctx = lp;
	glp_set_col_bnds(lp, 5, GLP_FX, 1, 1); /* no column 5: glp_error */
	return 0;
}

static void
collect(void *ctx, const char *line)
{
	(*(int *)ctx)++;
	ck_assert_ptr_nonnull(line);
}

START_TEST(glpk_error_is_survived)
{
	ilp_error err = { 0 };
	glp_prob *lp = NULL;
	int freed = 0, lines = 0;
	ilpi_glpk_log lg = { collect, &lines, 1 };
	ilp_graph *g;
	ilp_partition *p = NULL;

	ck_assert_int_eq(ilpi_glpk_run(provoke, &lp, &lg, &freed, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_SOLVER);
	ck_assert_int_eq(freed, 1);
	ck_assert_msg(strstr(err.msg, "out of range") != NULL, "%s", err.msg);
	ck_assert_int_gt(lines, 0); /* GLPK's message went to the log, not stdout */
	/* GLPK works again afterwards. */
	g = random_graph(7);
	ck_assert_msg(ilp_solve(g, NULL, &p, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* The model owns every buffer a solve uses: after a GLPK error longjmp out of a run
 * that built it, ilpi_model_free releases them all (LeakSanitizer sees the rest). */
typedef struct built {
	ilp_graph *g;
	ilpi_reduced red;
	ilpi_model m;
	int solve;
} built;

static int
build_then_fail(void *ctx, ilp_error *err)
{
	built *b = ctx;
	ilpi_mip mip;
	uint8_t s[64], r[64];

	if (ilpi_model_build(b->g, &b->red, &b->m, err) != 0)
		return -1;
	if (b->solve) {
		memset(&mip, 0, sizeof mip);
		mip.s = s;
		mip.r = r;
		ck_assert_uint_lt(b->red.n_items, sizeof s);
		ck_assert_int_eq(ilpi_model_solve(&b->m, &mip, err), 0);
	}
	glp_set_col_bnds(b->m.lp, b->m.n_cols + 5, GLP_FX, 1, 1); /* no such column */
	return 0;
}

START_TEST(glpk_error_after_model_build_leaks_nothing)
{
	built b = { 0 };
	ilpi_rules r;
	ilp_error err = { 0 };
	double cost[64] = { 0 };
	int freed = 0;

	b.g = random_graph(11);
	b.solve = _i;
	ck_assert_uint_lt(b.g->n, sizeof cost / sizeof cost[0]);
	ck_assert_int_eq(ilpi_rules_build(b.g, NULL, &r, &err), 0);
	ck_assert_msg(ilpi_reduce(b.g, &r, cost, 0, &b.red, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilpi_glpk_run(build_then_fail, &b, NULL, &freed, &err), -1);
	ck_assert_int_eq(freed, 1);
	ck_assert_int_eq(err.kind, ILP_ERR_SOLVER);
	ilpi_model_free(&b.m, freed);
	ilpi_reduced_free(&b.red);
	ilpi_rules_free(&r);
	ilp_graph_free(b.g);
}
END_TEST

/* A GLPK failure (here glp_simplex's GLP_EBOUND on a column whose bounds cross) is
 * reported like every other error line: the graph's file, the stage, then GLPK's code. */
static int
build_then_bad_bounds(void *ctx, ilp_error *err)
{
	built *b = ctx;
	ilpi_mip mip;
	uint8_t s[64], r[64];
	int rc;

	if (ilpi_model_build(b->g, &b->red, &b->m, err) != 0)
		return -1;
	ck_assert_int_gt(b->m.n_cols, 0);
	ck_assert_uint_lt(b->red.n_items, sizeof s);
	glp_set_col_bnds(b->m.lp, 1, GLP_DB, 1, 0);
	memset(&mip, 0, sizeof mip);
	mip.what = "least-memory";
	mip.s = s;
	mip.r = r;
	rc = ilpi_model_solve(&b->m, &mip, err);
	ilpi_model_free(&b->m, 0);
	return rc;
}

START_TEST(glpk_failure_names_file_and_stage)
{
	built b = { 0 };
	ilpi_rules r;
	ilp_error err = { 0 };
	double cost[64] = { 0 };
	ilpi_glpk_log lg = { NULL, NULL, 0 };
	char want[300];

	b.g = random_graph(11);
	ck_assert_uint_lt(b.g->n, sizeof cost / sizeof cost[0]);
	ck_assert_int_eq(ilpi_rules_build(b.g, NULL, &r, &err), 0);
	ck_assert_msg(ilpi_reduce(b.g, &r, cost, 0, &b.red, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilpi_glpk_run(build_then_bad_bounds, &b, &lg, NULL, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_SOLVER);
	snprintf(want, sizeof want, "%s: stage 'least-memory': GLPK: LP relaxation failed "
	    "(glp_simplex code %d", b.g->path, GLP_EBOUND);
	ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
	ilpi_reduced_free(&b.red);
	ilpi_rules_free(&r);
	ilp_graph_free(b.g);
}
END_TEST

/* A GLPK internal error at every fault point of a solve (ilpi_glpk_fault: the start of
 * each GLPK run, each branch-and-bound callback), in every objective: ILP_ERR_SOLVER
 * with one line naming the file and the stage, nothing leaked (LeakSanitizer), and the
 * same partition as before from the next solve. */
START_TEST(glpk_fault_at_every_point)
{
	static const struct {
		const char *file;
		ilp_objective obj;
		double fraction;
		int64_t budget, peak_budget;
	} cases[] = {
		{ "tests/data/corpus/mlp.json", ILP_OBJ_MEMORY, -1, -1, -1 },
		{ "tests/data/corpus/mlp.json", ILP_OBJ_RUNTIME, 0.3, -1, -1 },
		{ "tests/data/corpus/mlp.json", ILP_OBJ_PEAK, -1, -1, -1 },
		{ "tests/data/corpus/mlp.json", ILP_OBJ_RUNTIME, -1, -1, 36000 },
		{ "tests/data/corpus/mlp.json", ILP_OBJ_WEIGHTED, -1, -1, -1 },
		{ "tests/data/corpus/checkpoint-2l.json", ILP_OBJ_MEMORY, -1, -1, -1 },
		{ "tests/data/corpus/checkpoint-2l.json", ILP_OBJ_RUNTIME, -1, 112000, -1 },
		{ "tests/data/corpus/checkpoint-2l.json", ILP_OBJ_WEIGHTED, -1, -1, -1 },
	};
	ilp_graph *g = t_graph_file(t_srcpath(cases[_i].file));
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	char *want = NULL, *got = NULL, prefix[512];
	unsigned n, raised_ok = 0, raised_err = 0;

	ilp_solve_options_init(&o);
	o.monolithic = 1;
	o.objective = cases[_i].obj;
	o.alpha = 1e-3;
	o.budget_fraction = cases[_i].fraction;
	o.budget_bytes = cases[_i].budget;
	o.peak_budget = cases[_i].peak_budget;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilp_partition_to_json(g, p, &want, &err), 0);
	ilp_partition_free(p);
	p = NULL;
	snprintf(prefix, sizeof prefix, "%s: stage '", g->path);
	for (n = 1; n < 4000; n += 1 + n / 5) { /* 1-6, then 20 % apart */
		ilpi_glpk_fault(n);
		if (ilp_solve(g, &o, &p, &err) == 0) {
			if (ilpi_glpk_fault(0) > 0)
				break; /* fewer than n fault points */
			/* a GLPK error in an optional step (a peak seed's solve: the peak
			 * objective and a peak budget make them) is survived */
			ilp_partition_free(p);
			p = NULL;
			raised_ok++;
			continue;
		}
		ck_assert_msg(err.kind == ILP_ERR_SOLVER, "point %u: %s", n, err.msg);
		ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0 &&
		    strstr(err.msg, "': GLPK internal error: fault injected") != NULL &&
		    strchr(err.msg, '\n') == NULL, "point %u: %s", n, err.msg);
		raised_err++;
	}
	ilpi_glpk_fault(0);
	ck_assert_msg(n < 4000 && raised_err > 0, "%u fault points, %u errors", n, raised_err);
	ck_assert_msg(raised_ok == 0 || o.objective == ILP_OBJ_PEAK || o.peak_budget >= 0,
	    "%u survived", raised_ok);
	ck_assert_int_eq(ilp_partition_to_json(g, p, &got, &err), 0);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

/* ---- fixed graphs ------------------------------------------------------------------------ */

/* x = mm(a, b); y = relu(x); out = sum(y); backward reads x and y. */
static const char *chain_graph =
    "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"nodes\": ["
    "{\"name\": \"a\", \"kind\": \"primal\", \"bytes\": 4096},"
    "{\"name\": \"b\", \"kind\": \"primal\", \"bytes\": 4096},"
    "{\"name\": \"x\", \"kind\": \"op\", \"target\": \"aten.mm.default\", \"inputs\": [\"a\", \"b\"],"
    " \"bytes\": 1024, \"flops\": 1e9 %s},"
    "{\"name\": \"y\", \"kind\": \"op\", \"target\": \"aten.relu.default\", \"inputs\": [\"x\"],"
    " \"bytes\": 1024},"
    "{\"name\": \"s\", \"kind\": \"op\", \"target\": \"aten.sum.default\", \"inputs\": [\"y\"],"
    " \"bytes\": 4},"
    "{\"name\": \"t\", \"kind\": \"tangent\", \"bytes\": 4},"
    "{\"name\": \"g1\", \"kind\": \"op\", \"target\": \"aten.mul.Tensor\", \"inputs\": [\"t\", \"y\"],"
    " \"bytes\": 1024},"
    "{\"name\": \"g2\", \"kind\": \"op\", \"target\": \"aten.mm.default\", \"inputs\": [\"g1\", \"x\"],"
    " \"bytes\": 4096}],"
    "\"outputs\": {\"forward\": [\"s\"], \"backward\": [\"g2\", null]}}";

static ilp_graph *
chain(const char *extra)
{
	char buf[4096];
	const char *hole = strstr(chain_graph, "%s");

	snprintf(buf, sizeof buf, "%.*s%s%s", (int)(hole - chain_graph), chain_graph, extra,
	    hole + 2);
	return t_graph(buf);
}

START_TEST(deterministic_bytes)
{
	ilp_graph *g = random_graph(12345);
	ilp_solve_options o;
	ilp_partition *p1 = NULL, *p2 = NULL;
	ilp_error err = { 0 };
	char *j1 = NULL, *j2 = NULL;

	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_WEIGHTED;
	o.alpha = 10;
	o.bans = ILP_BANS_NONE;
	ck_assert_msg(ilp_solve(g, &o, &p1, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_solve(g, &o, &p2, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilp_partition_to_json(g, p1, &j1, &err), 0);
	ck_assert_int_eq(ilp_partition_to_json(g, p2, &j2, &err), 0);
	ck_assert_str_eq(j1, j2);
	ck_assert_ptr_nonnull(strstr(j1, "\"method\": \"ilp\""));
	free(j1);
	free(j2);
	ilp_partition_free(p1);
	ilp_partition_free(p2);
	ilp_graph_free(g);
}
END_TEST

START_TEST(writes_lp_and_mps)
{
	ilp_graph *g = chain("");
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	char lp[] = "/tmp/ilpart-test-XXXXXX", path[64], *text = NULL;
	size_t len;

	ck_assert_ptr_nonnull(mkdtemp(lp));
	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_bytes = 5000;
	snprintf(path, sizeof path, "%s/m.lp", lp);
	o.write_lp = strdup(path);
	snprintf(path, sizeof path, "%s/m.mps", lp);
	o.write_mps = strdup(path);
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ilpi_read_file(o.write_lp, &text, &len, &err), 0);
	ck_assert_ptr_nonnull(strstr(text, "Minimize"));
	ck_assert_ptr_nonnull(strstr(text, "budget:"));
	free(text);
	ck_assert_int_eq(ilpi_read_file(o.write_mps, &text, &len, &err), 0);
	ck_assert_ptr_nonnull(strstr(text, "ROWS"));
	free(text);
	unlink(o.write_lp);
	unlink(o.write_mps);
	rmdir(lp);
	free((char *)o.write_lp);
	free((char *)o.write_mps);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST


/* ---- the LP text against glp_write_lp ---------------------------------------------- */

/* glp_write_lp's file and ilpi_lp_text's text for lp: byte for byte the same, or the
 * writer declines (1) and GLPK writes it. Returns ilpi_lp_text's code. */
static int
same_lp(glp_prob *lp, const char *what)
{
	char dir[] = "/tmp/ilpart-lp-XXXXXX", path[64], *want = NULL, *got = NULL;
	size_t wlen, glen;
	ilp_error err = { 0 };
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/g.lp", dir);
	ck_assert_int_eq(ilpi_lp_write_glpk(lp, path, 0, &err), 0);
	ck_assert_int_eq(ilpi_read_file(path, &want, &wlen, &err), 0);
	rc = ilpi_lp_text(lp, &got, &glen);
	ck_assert_int_ge(rc, 0);
	if (rc == 0) {
		size_t k = 0;

		while (k < wlen && k < glen && want[k] == got[k])
			k++;
		ck_assert_msg(glen == wlen && k == wlen, "%s: differs from glp_write_lp at byte "
		    "%zu: '%.40s' against '%.40s'", what, k, got + k, want + k);
	}
	free(want);
	free(got);
	unlink(path);
	rmdir(dir);
	return rc;
}

typedef struct lp_case {
	const ilp_graph *g;
	ilpi_reduced red;
	ilpi_model m;
	int written;
} lp_case;

static int
corpus_lp(void *ctx, ilp_error *err)
{
	lp_case *c = ctx;
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = { 0, 1, NULL, NULL };

	if (ilpi_model_build(c->g, &c->red, &c->m, err) != 0)
		return -1;
	if (c->m.n_cols == 0)
		return 0;
	ilpi_model_set_objective(&c->m, &tc);
	ck_assert_int_eq(same_lp(c->m.lp, c->g->path), 0);
	/* a budget row, a level row switched off again (a free row), the bytes objective */
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_BUDGET, &tb, 12345);
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, 1e6 / 3);
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, -1);
	ilpi_model_set_objective(&c->m, &tb);
	ck_assert_int_eq(same_lp(c->m.lp, c->g->path), 0);
	c->written++;
	return 0;
}

START_TEST(lp_text_is_glpks)
{
	size_t n;
	char **paths = t_corpus(&n);
	int written = 0;

	for (size_t k = 0; k < n; k++) {
		ilp_graph *g = t_graph_file(paths[k]);
		double *cost;
		ilp_device dev;
		ilpi_rules rules;
		ilp_error err = { 0 };
		lp_case c;
		int freed = 0;

		ck_assert_int_eq(ilp_device_lookup("h100", &dev), 0);
		cost = recompute_costs(g, &dev);
		ck_assert_int_eq(ilpi_rules_build(g, NULL, &rules, &err), 0);
		memset(&c, 0, sizeof c);
		c.g = g;
		ck_assert_msg(ilpi_reduce(g, &rules, cost, 0, &c.red, &err) == 0, "%s", err.msg);
		ck_assert_msg(ilpi_glpk_run(corpus_lp, &c, NULL, &freed, &err) == 0, "%s", err.msg);
		written += c.written;
		ilpi_model_free(&c.m, freed);
		ilpi_reduced_free(&c.red);
		ilpi_rules_free(&rules);
		free(cost);
		ilp_graph_free(g);
	}
	t_strs_free(paths, n);
	ck_assert_int_gt(written, 5);
}
END_TEST

static int
odd_lps(void *ctx, ilp_error *err)
{
	glp_prob *lp = glp_create_prob();
	int ind[8];
	double val[8];
	char name[400];

	(void)ctx;
	(void)err;
	/* every row and column type, kinds, signs, magnitudes, wrapping, a constant */
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_cols(lp, 7);
	glp_add_rows(lp, 6);
	for (int j = 1; j <= 7; j++) {
		snprintf(name, sizeof name, j == 3 ? "x[%d] - y %d" : "a_rather_long_column_name_%d"
		    "_to_make_lines_wrap.early", j, j);
		glp_set_col_name(lp, j, name);
	}
	glp_set_col_bnds(lp, 1, GLP_FR, 0, 0);
	glp_set_col_bnds(lp, 2, GLP_LO, 2.5, 0);
	glp_set_col_bnds(lp, 3, GLP_UP, 0, -7);
	glp_set_col_bnds(lp, 4, GLP_DB, -1e20, 1e15);
	glp_set_col_bnds(lp, 5, GLP_FX, -0.0, -0.0);
	glp_set_col_kind(lp, 6, GLP_BV);
	glp_set_col_kind(lp, 7, GLP_IV);
	glp_set_obj_coef(lp, 0, 3.25);
	glp_set_obj_coef(lp, 1, 1);
	glp_set_obj_coef(lp, 2, -1);
	glp_set_obj_coef(lp, 3, 1.0 / 3);
	glp_set_obj_coef(lp, 4, -123456789012345.0);
	glp_set_obj_coef(lp, 5, 1e15);
	glp_set_obj_coef(lp, 6, -5e-324);
	for (int i = 1; i <= 6; i++) {
		snprintf(name, sizeof name, "row %d", i);
		glp_set_row_name(lp, i, name);
	}
	for (int k = 1; k <= 7; k++)
		ind[k] = k, val[k] = k % 2 ? k * 1.5 : -k;
	glp_set_mat_row(lp, 1, 7, ind, val);
	glp_set_row_bnds(lp, 1, GLP_LO, -3.75, 0);
	glp_set_mat_row(lp, 2, 3, ind, val);
	glp_set_row_bnds(lp, 2, GLP_UP, 0, 1e300);
	glp_set_mat_row(lp, 3, 2, ind + 4, val + 4);
	glp_set_row_bnds(lp, 3, GLP_DB, -2, 8.125);
	glp_set_mat_row(lp, 4, 1, ind + 6, val + 6);
	glp_set_row_bnds(lp, 4, GLP_FX, 6, 6);
	glp_set_row_bnds(lp, 5, GLP_UP, 0, -0.0);   /* an empty row */
	glp_set_mat_row(lp, 6, 2, ind, val);        /* a free row */
	ck_assert_int_eq(same_lp(lp, "odd"), 0);
	/* an empty column, no objective term otherwise */
	glp_erase_prob(lp);
	glp_set_prob_name(lp, "p");
	glp_set_obj_name(lp, "o");
	glp_add_cols(lp, 2);
	glp_add_rows(lp, 1);
	glp_set_col_name(lp, 1, "u");
	glp_set_col_name(lp, 2, "v");
	glp_set_row_name(lp, 1, "r");
	ind[1] = 1, val[1] = 2;
	glp_set_mat_row(lp, 1, 1, ind, val);
	glp_set_row_bnds(lp, 1, GLP_UP, 0, 4);
	ck_assert_int_eq(same_lp(lp, "empty column"), 0);
	ind[2] = 2, val[2] = 1;
	glp_set_mat_row(lp, 1, 2, ind, val);
	ck_assert_int_eq(same_lp(lp, "empty objective"), 0);
	/* names the format cannot carry: GLPK's own writer */
	glp_set_col_name(lp, 2, "2v");
	ck_assert_int_eq(same_lp(lp, "digit"), 1);
	glp_set_col_name(lp, 2, "v*w");
	ck_assert_int_eq(same_lp(lp, "star"), 1);
	glp_set_col_name(lp, 2, NULL);
	ck_assert_int_eq(same_lp(lp, "no name"), 1);
	glp_set_col_name(lp, 2, "v");
	glp_set_row_name(lp, 1, ".r");
	ck_assert_int_eq(same_lp(lp, "dot"), 1);
	glp_delete_prob(lp);
	return 0;
}

START_TEST(lp_text_odd_problems)
{
	ilp_error err = { 0 };
	int freed = 0;

	ck_assert_msg(ilpi_glpk_run(odd_lps, NULL, NULL, &freed, &err) == 0, "%s", err.msg);
}
END_TEST

static ilp_partition *
solve_ok(const ilp_graph *g, const ilp_solve_options *o)
{
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ck_assert_msg(ilp_solve(g, o, &p, &err) == 0, "%s", err.msg);
	return p;
}

START_TEST(chain_objectives)
{
	ilp_graph *g = chain("");
	ilp_solve_options o;
	ilp_partition *p;
	size_t x = t_node(g, "x"), y = t_node(g, "y");

	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	/* least memory: save x, recompute the relu */
	p = solve_ok(g, &o);
	ck_assert_int_eq(p->saved_bytes, 1024);
	ck_assert(ilp_partition_is_saved(p, (size_t)x) && ilp_partition_is_recomputed(p, (size_t)y));
	ck_assert_str_eq(p->objective, "memory");
	ilp_partition_free(p);
	/* runtime with room for both: nothing recomputed */
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_bytes = 5000;
	p = solve_ok(g, &o);
	ck_assert_int_eq(p->saved_bytes, 2048);
	ck_assert(p->recompute_time_us == 0);
	ilp_partition_free(p);
	/* A fraction is torch's activation_memory_budget: between the inputs' bytes (8192)
	 * and what torch's min-cut saves at budget 1 (x: 1024). The inputs weigh more, so
	 * torch keeps its budget-1 cut at any fraction: 1024 bytes at 0 and at 1. */
	o.budget_bytes = -1;
	o.budget_fraction = 0;
	p = solve_ok(g, &o);
	ck_assert_int_eq(p->budget_bytes, 1024);
	ilp_partition_free(p);
	o.budget_fraction = 1;
	p = solve_ok(g, &o);
	ck_assert_int_eq(p->budget_bytes, 1024);
	ck_assert_int_eq(p->saved_bytes, 1024);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(public_costs)
{
	ilp_graph *g = chain("");
	ilp_solve_options o;
	ilp_partition *p, *e = ilp_partition_new(g);
	ilp_error err = { 0 };
	ilp_device dev;

	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	p = solve_ok(g, &o);
	/* least memory saves x and recomputes the relu (chain_objectives) */
	ck_assert_int_eq(ilp_partition_saved_bytes(p), 1024);
	ck_assert_uint_eq(ilp_partition_count_saved(p), 1);
	ck_assert_uint_eq(ilp_partition_count_recomputed(p), 1);
	ck_assert(ilp_partition_recompute_flops(p) == p->recompute_flops);
	ck_assert(ilp_partition_recompute_time_us(p) > 0);
	ck_assert(ilp_partition_recompute_time_us(p) == p->recompute_time_us);
	/* an empty partition has no costs until it is evaluated */
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(ilp_partition_saved_bytes(e), -1);
	ck_assert(ilp_partition_recompute_flops(e) == -1);
	ck_assert(ilp_partition_recompute_time_us(e) == -1);
	ck_assert_uint_eq(ilp_partition_count_saved(e), 0);
	ck_assert_uint_eq(ilp_partition_count_recomputed(e), 0);
	ck_assert_int_eq(ilp_device_lookup("cpu", &dev), 0);
	ck_assert_int_eq(ilp_partition_evaluate(g, e, &dev, &err), 0);
	ck_assert_int_eq(ilp_partition_saved_bytes(e), 0);
	ck_assert(ilp_partition_recompute_flops(e) == 0);
	ilp_partition_free(e);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(budget_conflict_names_forced_values)
{
	ilp_graph *g = chain(", \"recompute\": \"MUST_SAVE\", \"ac_graph_id\": 1");
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_bytes = 1000;
	ck_assert_int_eq(ilp_solve(g, &o, &p, &err), -1);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "least achievable saved bytes 1024") != NULL, "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "'x' (1024 bytes, MUST_SAVE") != NULL, "%s", err.msg);
	ilp_graph_free(g);
}
END_TEST

/* BatchNorm's running mean `rm`, written in place after the forward (AOTAutograd's
 * input mutation): saving x and rm (32 bytes) and recomputing bn would be cheapest, but
 * the backward would read the written rm. Every solver saves bn (64 bytes). `bad`: a
 * backward op reads rm's view directly, which nothing can provide. */
static ilp_graph *
mutated_input_graph(int bad)
{
	char nodes[1024];

	snprintf(nodes, sizeof nodes, "%s", t_q(P("x", 16) ", {'name': 'rm', 'kind': "
	    "'primal', 'bytes': 16, 'mutated': true}, "
	    OP("v", "aten.t.default", "'rm'", 16, ", 'view_of': 'rm'") ", "
	    OP("bn", "aten.f.default", "'x', 'v'", 64, "") ", "
	    OP("nrm", "aten.f.default", "'rm', 'bn'", 16, "") ", " T("g", 64) ", "
	    OP("gb", "aten.f.default", "'g', 'bn'", 16, "") ", "
	    OP("gv", "aten.f.default", "'g', 'v'", 16, "")));
	return t_graph_parts("", nodes, "'bn', 'nrm'", bad ? "'gb', 'gv'" : "'gb', null");
}

START_TEST(mutated_input_never_saved)
{
	ilp_graph *g = mutated_input_graph(0);
	ilpi_rules r;
	ilpi_rule_options ro;
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilpi_rule_options_init(&ro);
	ro.bans = ILP_BANS_NONE;
	ck_assert_msg(ilpi_rules_build(g, &ro, &r, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(r.bits[t_node(g, "rm")], ILPI_R_NO_SAVE | ILPI_R_NO_RECOMPUTE);
	ck_assert_int_eq(r.why_no_save[t_node(g, "rm")], ILPI_WHY_MUTATED);
	ck_assert_int_eq(r.why_no_save[t_node(g, "v")], ILPI_WHY_MUTATED);
	ck_assert_int_eq(r.why_no_recompute[t_node(g, "v")], ILPI_WHY_READS_MUTATED);
	ck_assert_int_eq(r.why_no_recompute[t_node(g, "bn")], ILPI_WHY_READS_MUTATED);
	ck_assert_uint_eq(r.bits[t_node(g, "bn")], ILPI_R_NO_RECOMPUTE);
	ilpi_rules_free(&r);
	for (int budget = 0; budget < 2; budget++) {
		ilp_solve_options_init(&o);
		o.bans = ILP_BANS_NONE;
		if (budget) {
			o.objective = ILP_OBJ_RUNTIME;
			o.budget_bytes = 1000;
		}
		ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
		for (size_t i = 0; i < g->n; i++)
			ck_assert_int_eq(ilpi_saved(p, i), i == t_node(g, "bn"));
		ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
		ilp_partition_free(p);
		p = NULL;
	}
	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	ck_assert_msg(ilp_mincut(g, &o, &p, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < g->n; i++)
		ck_assert_int_eq(ilpi_saved(p, i), i == t_node(g, "bn"));
	ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	ilp_graph_free(g);

	g = mutated_input_graph(1);
	p = NULL;
	ck_assert_int_eq(ilp_solve(g, NULL, &p, &err), -1);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "in place") != NULL, "%s", err.msg);
	ck_assert_int_eq(ilp_mincut(g, NULL, &p, &err), -1);
	ck_assert_ptr_null(p);
	ilp_graph_free(g);
}
END_TEST

/* A bias-add shape: m = mm(x, W), h = add(m, b), k = mm(m, W), the backward reads m, h
 * and k. W and b are parameters ("param" when `marked`): saving them costs nothing at
 * run time (they live for the whole run), so the solver does not charge them. */
static ilp_graph *
param_graph(int marked)
{
	char nodes[2048];
	const char *pm = marked ? ", 'param': true" : "";

	snprintf(nodes, sizeof nodes, "%s%s%s%s%s", P("x", 4096) ", {'name': 'W', 'kind': "
	    "'primal', 'bytes': 1024", pm, "}, {'name': 'b', 'kind': 'primal', 'bytes': 1024",
	    pm, "}, "
	    OP("m", "aten.mm.default", "'x', 'W'", 4096, ", 'time_us': 100") ", "
	    OP("h", "aten.add.Tensor", "'m', 'b'", 4096, ", 'time_us': 1") ", "
	    OP("k", "aten.mm.default", "'m', 'W'", 4096, ", 'time_us': 100") ", "
	    OP("o", "aten.mul.Tensor", "'h', 'k'", 4096, ", 'time_us': 1") ", " T("t", 4096) ", "
	    OP("gh", "aten.mul.Tensor", "'t', 'k'", 4096, ", 'time_us': 1") ", "
	    OP("gk", "aten.mul.Tensor", "'t', 'h'", 4096, ", 'time_us': 1") ", "
	    OP("gw", "aten.mm.default", "'m', 'gk'", 1024, ", 'time_us': 1") ", "
	    OP("gb", "aten.sum.dim_IntList", "'gh'", 1024, ", 'time_us': 1"));
	return t_graph_parts("", nodes, "'o'", "null, 'gw', 'gb'");
}

static ilp_partition *
param_solve(const ilp_graph *g, ilp_objective obj, int64_t budget)
{
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	o.objective = obj;
	o.budget_bytes = budget;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(p->status, "optimal");
	return p;
}

/* With W and b charged, 9,215 bytes hold m and one of W, b, h, k (4,096 each, or 1,024
 * for a parameter) but not two of them with m: the fastest saves m, W and b and
 * recomputes h and k (101 us). Not charged, saving b is free: m and k are saved and only
 * the bias-add is recomputed (1 us), as PyTorch's budget partitions do. The evaluator
 * counts what the model counts, the memory objective's optimum drops by the parameters'
 * bytes, and a fraction's bytes are B(F) less every parameter's while min-cut (torch's
 * own measure) is unchanged. */
START_TEST(params_not_charged)
{
	ilp_graph *g[2] = { param_graph(0), param_graph(1) };
	ilp_partition *p[2];
	ilp_solve_options o;
	ilp_error err = { 0 };
	int64_t by[2], pt[2];
	double us[2];

	for (int k = 0; k < 2; k++) {
		p[k] = param_solve(g[k], ILP_OBJ_RUNTIME, 9215);
		ck_assert(ilpi_saved(p[k], t_node(g[k], "m")));
		ck_assert(ilpi_saved(p[k], t_node(g[k], "b")));
		ck_assert(ilpi_recomputed(p[k], t_node(g[k], "h")));
	}
	ck_assert(ilpi_saved(p[0], t_node(g[0], "W")));
	ck_assert(ilpi_recomputed(p[0], t_node(g[0], "k")));
	ck_assert_int_eq(p[0]->saved_bytes, 4096 + 2048);
	ck_assert(fabs(p[0]->recompute_time_us - 101) < 1e-9);
	ck_assert(ilpi_saved(p[1], t_node(g[1], "k")));
	ck_assert_int_eq(p[1]->saved_bytes, 8192);
	ck_assert(fabs(p[1]->recompute_time_us - 1) < 1e-9);
	ilp_partition_free(p[0]);
	ilp_partition_free(p[1]);

	for (int k = 0; k < 2; k++) {
		p[k] = param_solve(g[k], ILP_OBJ_MEMORY, -1);
		ck_assert_int_eq(p[k]->saved_bytes, k ? 4096 : 6144);
		ck_assert(ilpi_saved(p[k], t_node(g[k], "m")));
		ilp_partition_free(p[k]);
	}

	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.bans = ILP_BANS_NONE;
	for (int cap = 0; cap < 2; cap++) {
		o.fraction_cap = cap ? ILP_FRACTION_CAP_PYTORCH : ILP_FRACTION_CAP_NORMALISED;
		for (int k = 0; k < 2; k++)
			ck_assert_msg(ilpi_budget_fraction_bytes(g[k], &o, 0.5, &by[k], &pt[k],
			    &us[k], &err) == 0, "%s", err.msg);
		if (!cap) {
			ck_assert_int_gt(by[0], 2048);
			ck_assert_int_eq(by[1], by[0] - 2048);
		} else if (pt[0] >= 0) {
			ck_assert_int_ge(pt[1], pt[0] - 2048);
			ck_assert_int_le(pt[1], pt[0]);
		}
	}
	for (int k = 0; k < 2; k++) {
		ck_assert_msg(ilp_mincut(g[k], &o, &p[k], &err) == 0, "%s", err.msg);
	}
	for (size_t i = 0; i < g[0]->n; i++)
		ck_assert_int_eq(ilpi_saved(p[0], i), ilpi_saved(p[1], i));
	ilp_partition_free(p[0]);
	ilp_partition_free(p[1]);
	ilp_graph_free(g[0]);
	ilp_graph_free(g[1]);
}
END_TEST

/* A budget fraction on a graph whose min-cut has no finite cut at budget 1 (torch 2.6's
 * NetworkXUnbounded): the normalisation's max is the boundary's bytes and the ILP solves;
 * the min-cut's conflict used to be solve's answer. torch 2.14 saves the forward output
 * returned as a gradient there (its X_out goes to the sink, not its X_in), a finite cut.
 * The forced-save list of a budget conflict names a reason for every value. */
START_TEST(fraction_without_mincut)
{
	ilp_graph *g = t_graph_file(t_srcpath("tests/data/regress/"
	    "S3-mincut-forward-gradient-tuple.json"));
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.prefer = ILP_PREFER_PYTORCH;
	o.budget_fraction = 0.3;
	o.torch_version = 214;
	ck_assert_msg(ilp_mincut(g, &o, &p, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	p = NULL;
	o.torch_version = 206;
	ck_assert_int_eq(ilp_mincut(g, &o, &p, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
	ilp_partition_free(p);
	ilp_graph_free(g);

	g = t_graph_file(t_srcpath("tests/data/regress/M1-batchnorm-running-stats-mutated.json"));
	p = NULL;
	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.1;
	o.unreachable = ILP_UNREACHABLE_FAIL;
	ck_assert_int_eq(ilp_solve(g, &o, &p, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "budget conflict") != NULL, "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "'relu' (3072 bytes, recomputing it needs an input that "
	    "cannot be recomputed)") != NULL, "%s", err.msg);
	ilp_graph_free(g);
}
END_TEST

/* A fraction's runtime solve cut short by its time limit answers no worse than PyTorch's
 * own partition at that fraction (when that partition obeys the rules it bounds the
 * budget, so it is a start for the search): before, a time limit spent before GLPK
 * improved on the least-memory start returned that start, recomputing nearly the whole
 * forward (bench/train_bench.py's gpt at 0.5 under load). */
START_TEST(time_limit_no_worse_than_pytorch)
{
	static const char *const files[] = { "tests/data/corpus/gpt-4l.json",
	    "tests/data/corpus/llama-2l.json", "tests/data/corpus/transformer-2l.json" };
	static const double fractions[] = { 0.1, 0.3, 0.5, 0.7, 0.9 };
	ilp_graph *g = t_graph_file(t_srcpath(files[_i]));
	ilp_pareto *pa = NULL;
	ilp_error e0 = { 0 };
	int compared = 0;

	ck_assert_msg(ilp_pareto_new(g, NULL, &pa, &e0) == 0, "%s", e0.msg);
	for (size_t k = 0; k < sizeof fractions / sizeof *fractions; k++) {
		ilp_solve_options o;
		ilp_partition *pt = NULL, *p = NULL;
		ilp_error err = { 0 };
		int64_t bytes;

		ilp_solve_options_init(&o);
		o.objective = ILP_OBJ_RUNTIME;
		o.budget_fraction = fractions[k];
		o.prefer = ILP_PREFER_PYTORCH;
		ck_assert_msg(ilp_pareto_fraction_bytes(pa, fractions[k], &bytes, &err) == 0,
		    "%s", err.msg);
		if (ilp_mincut(g, &o, &pt, &err) != 0 || ilp_check(g, pt, NULL, &err) != 0 ||
		    pt->saved_bytes > bytes) {
			ilp_partition_free(pt);
			continue; /* PyTorch's partition is not within the budget */
		}
		ilp_solve_options_init(&o);
		o.objective = ILP_OBJ_RUNTIME;
		o.budget_fraction = fractions[k];
		o.time_limit = 1e-3;
		ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s at %g: %s", files[_i],
		    fractions[k], err.msg);
		ck_assert_msg(ilp_check(g, p, NULL, &err) == 0, "%s", err.msg);
		ck_assert_int_le(p->saved_bytes, pt->saved_bytes);
		ck_assert_msg(p->recompute_time_us <= pt->recompute_time_us * (1 + 1e-9) + 1e-9,
		    "%s at %g: %.6f us recomputed, PyTorch's partition %.6f", files[_i],
		    fractions[k], p->recompute_time_us, pt->recompute_time_us);
		compared++;
		ilp_partition_free(p);
		ilp_partition_free(pt);
	}
	ck_assert_int_gt(compared, 0);
	ilp_pareto_free(pa);
	ilp_graph_free(g);
}
END_TEST

START_TEST(rules_conflict_is_reported)
{
	ilp_graph *g = chain(", \"random\": true, \"recompute\": \"MUST_RECOMPUTE\", "
	    "\"ac_graph_id\": 1");
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ck_assert_int_eq(ilp_solve(g, NULL, &p, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_msg(strstr(err.msg, "'x'") != NULL, "%s", err.msg);
	ilp_graph_free(g);
}
END_TEST

START_TEST(soft_preference_overridden_with_gain)
{
	ilp_graph *g = chain(", \"recompute\": \"PREFER_RECOMPUTE\", \"ac_graph_id\": 1");
	ilp_solve_options o;
	ilp_partition *p;
	size_t x = t_node(g, "x");

	ilp_solve_options_init(&o);
	o.bans = ILP_BANS_NONE;
	/* hard: x may not be saved, so a and b are */
	p = solve_ok(g, &o);
	ck_assert_int_eq(p->saved_bytes, 8192);
	ck_assert_uint_eq(p->n_overrides, 0);
	ilp_partition_free(p);
	/* soft: saving x (1024 + penalty 2048) beats saving a and b (8192) */
	o.prefer = ILP_PREFER_SOFT;
	p = solve_ok(g, &o);
	ck_assert_int_eq(p->saved_bytes, 1024);
	ck_assert(ilp_partition_is_saved(p, (size_t)x));
	ck_assert_uint_eq(p->n_overrides, 1);
	ck_assert_int_eq(p->overrides[0].node, x);
	ck_assert_int_eq(p->overrides[0].tag, ILPI_TAG_PREFER_RECOMPUTE);
	ck_assert(p->overrides[0].gain == 2048);
	ck_assert_str_eq(p->prefer, "soft");
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(bad_options_rejected)
{
	ilp_graph *g = chain("");
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.budget_fraction = 0.5; /* memory objective takes no budget */
	ck_assert_int_eq(ilp_solve(g, &o, &p, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 1.5;
	ck_assert_int_eq(ilp_solve(g, &o, &p, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "memory-budget"));
	o.budget_fraction = -1;
	o.objective = ILP_OBJ_WEIGHTED;
	o.alpha = -1;
	ck_assert_int_eq(ilp_solve(g, &o, &p, &err), -1);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_null(p);
	ilp_graph_free(g);
}
END_TEST

START_TEST(device_profiles)
{
	ilp_device h, a, c;

	ck_assert_int_eq(ilp_device_lookup("h100", &h), 0);
	ck_assert_int_eq(ilp_device_lookup("a100", &a), 0);
	ck_assert_int_eq(ilp_device_lookup("cpu", &c), 0);
	ck_assert_int_eq(ilp_device_lookup("tpu", &c), -1);
	ck_assert(h.peak_flops > a.peak_flops && a.peak_flops > c.peak_flops);
	ck_assert(h.bandwidth > a.bandwidth && a.bandwidth > c.bandwidth);
}
END_TEST

START_TEST(roofline_costs)
{
	ilp_graph *g = chain(", \"bytes_read\": 0, \"bytes_written\": 0");
	ilp_device dev = { 1e12, 1e9 };
	size_t x = t_node(g, "x"), y = t_node(g, "y");

	/* x: 1e9 flops at 1e12 FLOP/s = 1000 us, no traffic */
	ck_assert(fabs(ilpi_node_cost_us(g, (size_t)x, &dev) - 1000) < 1e-9);
	/* y: no flops; reads x (1024) and writes itself (1024) at 1e9 B/s = 2.048 us */
	ck_assert(fabs(ilpi_node_cost_us(g, (size_t)y, &dev) - 2.048) < 1e-9);
	ck_assert(ilpi_node_costs_recompute(g, (size_t)y));
	ilp_graph_free(g);
}
END_TEST

/* ---- issue 9's reproducers ----------------------------------------------------------- */

static const char *const regress[] = {
	"E1-nothing-to-save", "F2-dead-backward-op", "F3-getitem-later-region",
	"F4-bw-output-feeds-unclaimed", "F4b-bw-output-feeds-unclaimed-layout"
};

static ilp_graph *
regress_graph(int k)
{
	char rel[200];

	snprintf(rel, sizeof rel, "tests/data/regress/%s.json", regress[k]);
	return t_graph_file(t_srcpath(rel));
}

/* Each ends in a verdict in every mode and objective: an answer the checker accepts
 * (ilp_solve and ilp_mincut check their own; checked again here) or a conflict. */
START_TEST(reproducers_end_in_verdict)
{
	ilp_graph *g = regress_graph(_i);
	ilp_objective objs[] = { ILP_OBJ_MEMORY, ILP_OBJ_RUNTIME, ILP_OBJ_WEIGHTED };

	for (int mode = ILP_PREFER_HARD; mode <= ILP_PREFER_SOFT; mode++)
		for (size_t k = 0; k < sizeof objs / sizeof objs[0]; k++) {
			ilp_solve_options o;
			ilp_check_options co = { (ilp_prefer_mode)mode };
			ilp_partition *p = NULL;
			ilp_error err = { 0 };
			int rc;

			ilp_solve_options_init(&o);
			o.prefer = (ilp_prefer_mode)mode;
			o.objective = objs[k];
			o.alpha = 1;
			rc = ilp_solve(g, &o, &p, &err);
			ck_assert_msg(rc == 0 || err.kind == ILP_ERR_CONFLICT, "%s solve: %s",
			    regress[_i], err.msg);
			ck_assert_msg(p == NULL || ilp_check(g, p, &co, &err) == 0, "%s", err.msg);
			ilp_partition_free(p);
			p = NULL;
			rc = ilp_mincut(g, &o, &p, &err);
			ck_assert_msg(rc == 0 || err.kind == ILP_ERR_CONFLICT, "%s mincut: %s",
			    regress[_i], err.msg);
			ck_assert_msg(p == NULL || ilp_check(g, p, &co, &err) == 0, "%s", err.msg);
			ilp_partition_free(p);
		}
	ilp_graph_free(g);
}
END_TEST

/* The reduction's inputs are all items (F4 read item_of[-1]): every input of a
 * candidate is a candidate with an item. */
START_TEST(reduced_inputs_have_items)
{
	ilp_graph *g = regress_graph(_i);
	ilpi_rules r;
	ilpi_reduced red;
	ilp_error err = { 0 };
	double *cost = calloc(g->n + 1, sizeof *cost);

	ck_assert_ptr_nonnull(cost);
	ck_assert_int_eq(ilpi_rules_build(g, NULL, &r, &err), 0);
	ck_assert_msg(ilpi_reduce(g, &r, cost, 0, &red, &err) == 0, "%s", err.msg);
	for (size_t v = 0; v < g->n; v++) {
		const ilpi_node *n = &g->node[v];

		if (!red.cand[v])
			continue;
		ck_assert_int_ge(red.item_of[v], 0);
		for (uint32_t k = 0; k < n->in_count; k++)
			ck_assert_msg(red.cand[ilpi_inputs(g, n)[k]] &&
			    red.item_of[ilpi_inputs(g, n)[k]] >= 0, "%s: input %u of %s",
			    regress[_i], k, n->name);
	}
	ilpi_reduced_free(&red);
	ilpi_rules_free(&r);
	free(cost);
	ilp_graph_free(g);
}
END_TEST

/* E1: the backward needs no forward value: nothing saved, nothing recomputed. */
START_TEST(nothing_to_save_is_empty)
{
	ilp_graph *g = regress_graph(0);
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	ilp_solve_options o;

	ilp_solve_options_init(&o);
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(ilpi_partition_count(p, ILPI_P_SAVED | ILPI_P_RECOMPUTED), 0);
	ck_assert_str_eq(p->status, "optimal");
	ilp_partition_free(p);
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.5;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(ilpi_partition_count(p, ILPI_P_SAVED | ILPI_P_RECOMPUTED), 0);
	ilp_partition_free(p);
	ilp_graph_free(g);
}

/* ---- PyTorch's budget path against the ILP (docs/solver.md, "Memory budgets") ---- */

/* One corpus graph at fraction f against PyTorch's partition recorded at f: PyTorch's
 * SAC violations are reported by the checker; where PyTorch obeys the tags, the ILP
 * with PyTorch's saved bytes as the budget is proven optimal and saves no more and
 * recomputes no longer. At f itself (the default fraction cap) the ILP dominates
 * ilpart's min-cut at f whenever that partition passes the checker, and its budget
 * is min(B(f), the min-cut's bytes); otherwise the budget is B(f), torch's
 * normalisation. */
static void
budget_case(const char *path, const char *file, double f, int *dominated, int *violations,
    int *at_f_dominated, int *at_f_normalised)
{
	char ref_name[64];
	ilp_graph *g = t_graph_file(path);
	ilp_partition *ref = NULL, *p = NULL, *mc = NULL;
	ilp_solve_options o;
	ilp_check_options co = { ILP_PREFER_PYTORCH };
	ilpi_mincut_options mo;
	ilp_error err = { 0 };
	double lo, hi;
	int64_t bf;
	int mc_ok;
	long k;

	snprintf(ref_name, sizeof ref_name, "pytorch-2.6-mincut-budget-%g", f);
	if ((k = t_ref_find(g, ref_name)) < 0) {
		ilp_graph_free(g);
		return;
	}
	ck_assert_int_eq(ilpi_partition_from_ref(g, (size_t)k, &ref, &err), 0);
	ilp_solve_options_init(&o);
	ck_assert_int_eq(ilp_partition_evaluate(g, ref, &o.device, &err), 0);
	o.objective = ILP_OBJ_RUNTIME;
	o.prefer = ILP_PREFER_PYTORCH;
	o.unreachable = ILP_UNREACHABLE_FAIL; /* the conflicts below (solver/driver/reach.c) */
	if (ilp_check(g, ref, &co, &err) != 0) {
		ck_assert_int_eq(err.kind, ILP_ERR_VIOLATION);
		fprintf(stderr, "budget %-4g %-22s PyTorch breaks SAC: %.120s\n", f, file, err.msg);
		(*violations)++;
	} else {
		o.budget_bytes = ref->saved_bytes;
		ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s: %s", file, err.msg);
		ck_assert_str_eq(p->status, "optimal");
		ck_assert_int_le(p->saved_bytes, ref->saved_bytes);
		ck_assert_msg(p->recompute_time_us <= ref->recompute_time_us * (1 + 1e-9),
		    "%s at %g: ILP %.6g us, PyTorch %.6g us", file, f, p->recompute_time_us,
		    ref->recompute_time_us);
		fprintf(stderr, "budget %-4g %-22s PyTorch %9lld B %8.4f us, ILP within it "
		    "%9lld B %8.4f us\n", f, file, (long long)ref->saved_bytes,
		    ref->recompute_time_us, (long long)p->saved_bytes, p->recompute_time_us);
		(*dominated)++;
		ilp_partition_free(p);
		p = NULL;
	}
	/* ilpart's min-cut at f (equal to PyTorch's on the corpus) and B(f) */
	o.budget_bytes = -1;
	o.budget_fraction = f;
	ilpi_mincut_options_init(&mo);
	ilpi_mincut_options_from_solve(&mo, &o);
	mo.prefer = ILP_PREFER_PYTORCH;
	mo.check = 0;
	ck_assert_msg(ilpi_mincut_run(g, &mo, &mc, NULL, &err) == 0, "%s: %s", file, err.msg);
	mc_ok = ilp_check(g, mc, &co, &err) == 0;
	ck_assert_int_eq(ilpi_mincut_budget_bounds(g, &mo, &lo, &hi, &err), 0);
	bf = (int64_t)floor(hi > lo ? lo + f * (hi - lo) : hi);
	if (ilp_solve(g, &o, &p, &err) == 0) {
		ck_assert_int_le(p->saved_bytes, p->budget_bytes);
		/* proven, or read off the bytes/time front within PyTorch's simulated peak
		 * (solver/driver/dominate.c): no worse on the three numbers, not proven the
		 * least time within that peak */
		if (strcmp(p->status, "optimal") != 0) {
			ilp_peak pk;

			ck_assert_str_eq(p->status, "feasible");
			ck_assert_int_ge(p->peak_cap_bytes, 0);
			ck_assert_int_eq(ilp_partition_peak(g, p, &pk, &err), 0);
			ck_assert_int_le(pk.peak_bytes, p->peak_cap_bytes);
			fprintf(stderr, "budget %-4g %-22s at f: off the front within PyTorch's peak "
			    "%lld\n", f, file, (long long)p->peak_cap_bytes);
		}
		if (mc_ok) {
			/* min(B(f), min-cut's bytes), or the min-cut's bytes above B(f) when the
			 * optimum within B(f) was slower than the min-cut */
			if (p->budget_bytes != mc->saved_bytes)
				ck_assert_int_eq(p->budget_bytes, bf);
			ck_assert_int_le(p->budget_bytes, mc->saved_bytes > bf ? mc->saved_bytes : bf);
			ck_assert_int_le(p->saved_bytes, mc->saved_bytes);
			ck_assert_msg(p->recompute_time_us <= mc->recompute_time_us * (1 + 1e-9),
			    "%s at %g: ILP %.6g us, min-cut %.6g us", file, f, p->recompute_time_us,
			    mc->recompute_time_us);
			(*at_f_dominated)++;
		} else {
			ck_assert_int_eq(p->budget_bytes, bf);
			(*at_f_normalised)++;
		}
		fprintf(stderr, "budget %-4g %-22s at f: min-cut %9lld B %8.4f us %s, ILP %9lld B "
		    "%8.4f us (budget %lld, B(f) %lld)\n", f, file, (long long)mc->saved_bytes,
		    mc->recompute_time_us, mc_ok ? "ok" : "VIOLATION", (long long)p->saved_bytes,
		    p->recompute_time_us, (long long)p->budget_bytes, (long long)bf);
	} else {
		/* a tag-respecting partition cannot get down to B(f): PyTorch's breaks a tag */
		ck_assert_msg(err.kind == ILP_ERR_CONFLICT, "%s at %g: %s", file, f, err.msg);
		ck_assert_msg(!mc_ok, "%s at %g: conflict although min-cut obeys the rules",
		    file, f);
		(*at_f_normalised)++;
	}
	ilp_partition_free(p);
	ilp_partition_free(mc);
	ilp_partition_free(ref);
	ilp_graph_free(g);
}

/* The ILP's byte accounting (its budget row: each storage once, the RNG state of each
 * replayed random op) against the evaluator's (ilp_partition_evaluate, what compare,
 * check and the fraction cap read): on every corpus graph at F = 0.1 / 0.3 / 0.5 the
 * model counts exactly the evaluator's bytes for the ILP's answer. (PyTorch's
 * partitions are no point of the reduced model as they stand; that the model can do
 * as well within their evaluated bytes is budget_against_pytorch.) */
typedef struct agree {
	const ilp_graph *g;
	ilpi_reduced red;
	ilpi_model m;
	const ilp_partition *p;
	double bytes;
} agree;

static int
model_bytes(void *ctx, ilp_error *err)
{
	agree *a = ctx;
	ilpi_terms tb = { 1, 0, NULL, NULL };
	uint8_t *s = calloc(a->red.n_items + 1, 1), *r = calloc(a->red.n_items + 1, 1);

	ck_assert(s != NULL && r != NULL);
	if (ilpi_model_build(a->g, &a->red, &a->m, err) != 0) {
		free(s);
		free(r);
		return -1;
	}
	for (size_t it = 0; it < a->red.n_items; it++) {
		const ilpi_item *item = &a->red.item[it];

		s[it] = (uint8_t)ilpi_saved(a->p, (size_t)item->rep);
		for (uint32_t j = 0; j < item->mem_count; j++)
			r[it] |= (uint8_t)ilpi_recomputed(a->p,
			    (size_t)a->red.member[item->mem_begin + j]);
	}
	a->bytes = ilpi_model_value(&a->m, &tb, s, r) * a->m.byte_unit;
	free(s);
	free(r);
	return 0;
}

START_TEST(budget_bytes_agree_with_evaluator)
{
	static const double fr[] = { 0.1, 0.3, 0.5 };
	size_t n;
	char **paths = t_corpus(&n);
	int checked = 0, with_rng = 0;

	for (size_t k = 0; k < n; k++) {
		ilp_graph *g = t_graph_file(paths[k]);
		ilp_solve_options o;
		ilpi_rule_options ro;
		ilpi_rules rules;
		ilp_partition *p = NULL;
		ilp_error err = { 0 };
		double *cost = calloc(g->n + 1, sizeof *cost);
		agree a;
		int freed = 0;

		ck_assert_ptr_nonnull(cost);
		ilp_solve_options_init(&o);
		o.objective = ILP_OBJ_RUNTIME;
		o.prefer = ILP_PREFER_PYTORCH;
		o.budget_fraction = fr[_i];
		ilpi_rule_options_init(&ro);
		ro.prefer = o.prefer;
		ro.bans = o.bans;
		ro.budget = ro.rng_replay = 1;
		ck_assert_int_eq(ilpi_rules_build(g, &ro, &rules, &err), 0);
		memset(&a, 0, sizeof a);
		a.g = g;
		if (ilpi_reduce(g, &rules, cost, 0, &a.red, &err) != 0 ||
		    ilp_solve(g, &o, &p, &err) != 0) {
			ck_assert_msg(err.kind == ILP_ERR_CONFLICT, "%s: %s", paths[k], err.msg);
			goto next;
		}
		a.p = p;
		ck_assert_msg(ilpi_glpk_run(model_bytes, &a, NULL, &freed, &err) == 0, "%s",
		    err.msg);
		ck_assert_msg(a.bytes == (double)p->saved_bytes, "%s at %g: ILP answer: model "
		    "%.0f bytes, evaluator %lld", paths[k], fr[_i], a.bytes,
		    (long long)p->saved_bytes);
		checked++;
		with_rng += ilpi_partition_count(p, ILPI_P_RNG_SAVED) > 0;
next:
		ilpi_model_free(&a.m, freed);
		ilpi_reduced_free(&a.red);
		ilpi_rules_free(&rules);
		ilp_partition_free(p);
		free(cost);
		ilp_graph_free(g);
	}
	t_strs_free(paths, n);
	fprintf(stderr, "budget %g: model bytes = evaluator bytes on %d ILP answers (%d with "
	    "RNG states)\n", fr[_i], checked, with_rng);
	ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(budget_against_pytorch)
{
	static const double fr[] = { 0.1, 0.3, 0.5 };
	size_t n;
	char **paths = t_corpus(&n);
	int dominated = 0, violations = 0, at_f = 0, normalised = 0;

	for (size_t k = 0; k < n; k++)
		budget_case(paths[k], strrchr(paths[k], '/') + 1, fr[_i], &dominated,
		    &violations, &at_f, &normalised);
	t_strs_free(paths, n);
	fprintf(stderr, "budget %g: ILP dominates PyTorch on %d graphs, PyTorch breaks SAC on "
	    "%d; at F: ILP dominates min-cut on %d, B(F) on %d\n", fr[_i], dominated,
	    violations, at_f, normalised);
	ck_assert_int_gt(dominated, 0);
	ck_assert_int_eq(at_f, dominated);
	ck_assert_int_gt(normalised, 0);
}
END_TEST

/* A limit row (the level of a runtime optimum of 0, 1e-9) over costs from 3e-4 to 1e21
 * us: GLPK found no answer where one exists ("internal error: stage 'budget-least-
 * memory' is infeasible") until coefficients far above the bound were clamped. */
START_TEST(limit_row_extreme_costs)
{
	ilp_graph *g =
	    t_graph_file(t_srcpath("tests/data/solver/R4-level-row-extreme-costs.json"));
	ilp_solve_options o;
	ilp_partition *p = NULL;
	ilp_error err = { 0 };
	ilp_check_options co = { ILP_PREFER_HARD };

	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.1;
	o.monolithic = 1;
	o.bans = ILP_BANS_NONE;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_msg(ilp_check(g, p, &co, &err) == 0, "%s", err.msg);
	ck_assert_int_le(ilp_partition_saved_bytes(p), p->budget_bytes);
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_solver(void)
{
	Suite *s = suite_create("solver");
	TCase *tc = tcase_create("enumeration");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, random_vs_enumeration, 0, 8);
	tcase_add_loop_test(tc, soft_vs_enumeration, 0, 4);
	tcase_add_loop_test(tc, blocks_vs_monolithic_vs_enumeration, 0, 2);
	tcase_add_loop_test(tc, counts_vs_complete_front, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("offload-blocks");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, offload_blocks_vs_monolithic);
	tcase_add_test(tc, pareto_offload_dominates);
	suite_add_tcase(s, tc);
	tc = tcase_create("soft-blocks");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, soft_blocks_vs_monolithic, 0, 2);
	tcase_add_loop_test(tc, soft_monolithic_starts_from_seed, 0, 3);
	tcase_add_test(tc, soft_byte_penalties_past_int64);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, limit_row_extreme_costs);
	suite_add_tcase(s, tc);
	tc = tcase_create("pareto");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, pareto_equals_solve_on_stacks);
	tcase_add_loop_test(tc, solve_equals_front_at_every_budget, 0, 3);
	tcase_add_loop_test(tc, counts_vs_front_monolithic_enumeration, 0, 2);
	tcase_add_loop_test(tc, pareto_equals_solve_on_corpus, 0, 3);
	tcase_add_test(tc, pareto_falls_back_without_blocks);
	tcase_add_test(tc, front_stops_early_when_projected_over_limit);
	tcase_add_test(tc, blocks_over_work_limit_keep_an_answer);
	tcase_add_test(tc, blocks_cut_every_layer);
	suite_add_tcase(s, tc);
	tc = tcase_create("budget");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, budget_against_pytorch, 0, 3);
	tcase_add_loop_test(tc, budget_bytes_agree_with_evaluator, 0, 3);
	suite_add_tcase(s, tc);
	tc = tcase_create("solver");
	tcase_add_test(tc, glpk_error_is_survived);
	tcase_add_loop_test(tc, glpk_error_after_model_build_leaks_nothing, 0, 2);
	tcase_add_test(tc, glpk_failure_names_file_and_stage);
	tcase_add_test(tc, deterministic_bytes);
	tcase_add_test(tc, writes_lp_and_mps);
	tcase_add_test(tc, lp_text_is_glpks);
	tcase_add_test(tc, lp_text_odd_problems);
	tcase_add_test(tc, chain_objectives);
	tcase_add_test(tc, public_costs);
	tcase_add_test(tc, budget_conflict_names_forced_values);
	tcase_add_test(tc, rules_conflict_is_reported);
	tcase_add_test(tc, mutated_input_never_saved);
	tcase_add_test(tc, params_not_charged);
	tcase_add_test(tc, fraction_without_mincut);
	tcase_add_loop_test(tc, time_limit_no_worse_than_pytorch, 0, 3);
	tcase_add_test(tc, soft_preference_overridden_with_gain);
	tcase_add_test(tc, bad_options_rejected);
	tcase_add_test(tc, device_profiles);
	tcase_add_test(tc, roofline_costs);
	suite_add_tcase(s, tc);
	tc = tcase_create("faults");
	tcase_add_loop_test(tc, glpk_fault_at_every_point, 0, 8);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	tc = tcase_create("regress");
	tcase_add_loop_test(tc, reproducers_end_in_verdict, 0,
	    (int)(sizeof regress / sizeof regress[0]));
	tcase_add_loop_test(tc, reduced_inputs_have_items, 0,
	    (int)(sizeof regress / sizeof regress[0]));
	tcase_add_test(tc, nothing_to_save_is_empty);
	suite_add_tcase(s, tc);
	return s;
}
