/*
 * decomp.c - the driver's side of the block decomposition (solver/blocks/): the
 * lexicographic and budgeted solves by decomposition, the report of `info --blocks`
 * and the whole front every budget is read off (ilp_pareto).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/strbuf.h"
#include "solver/options.h"
#include "solver/model/glpk_env.h"
#include "solver/driver/answer.h"
#include "solver/driver/obj_runtime.h"
#include "solver/driver/solve.h"
#include "solver/driver/stage.h"
#include "solver/driver/objectives.h"
#include "solver/driver/offload.h"
#include "solver/driver/decomp.h"

/* rc 1 (over a limit of the decomposition): the monolithic model takes over. */
static int
blocks_fallback(solve_ctx *c, int rc)
{
	if (rc < 0)
		return -1;
	drv_note(c, "blocks: over the work or time limit; solving the model as a whole%s",
	    c->o->time_limit > 0 ? "" : " (within the default time limit)");
	c->blocks_over = 1;
	ilpi_blocks_free(c->blocks);
	c->blocks = NULL;
	c->blocks_none = 1;
	c->least_bytes = -1;
	return 1;
}

/*
 * Budgeted runtime solve by decomposition (solver/blocks/blocks.c): exact, and like the
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

/* The decomposition's per-item terms: soft mode's (soft_extra) and, with --offload
 * free, the offload columns' (each saved item's third state: offloaded, its storage off
 * the bytes and its exposed transfer time on the cost). NULL: none. */
static const ilpi_blocks_extra *
blocks_extra(const solve_ctx *c, ilpi_blocks_extra *x)
{
	if (soft_extra(c, x) == NULL)
		memset(x, 0, sizeof *x);
	if (c->m.col_o != NULL) {
		x->off_kind = c->m.off_kind;
		x->off_cost = c->m.off_us;
	}
	return x->bytes_s != NULL || x->cost_s != NULL || x->off_kind != NULL ? x : NULL;
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
int
drv_blocks_ready(solve_ctx *c, ilp_error *err)
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
		drv_note(c, "blocks: saved bytes and byte penalties reach 2^61; solving the model "
		    "as a whole");
		c->blocks_none = 1;
		return 1;
	}
	if (ilpi_blocks_plan_extra(&c->red, blocks_extra(c, &x), 1, &c->blocks, err) != 0)
		return -1;
	if (c->blocks == NULL) {
		drv_note(c, "blocks: no narrow cuts; solving the model as a whole");
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
	drv_note(c, "blocks: %zu items in %zu segments, %zu distinct, cut width <= %zu, largest "
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
	drv_note(c, "blocks: %s, recompute %.10g us, saved %lld bytes", proven ? "optimal" :
	    "best found", cost, (long long)bytes);
	c->status = proven ? "optimal" : "time-limit";
	c->gap = 0;
	return 0;
}

/* Lexicographic objectives by decomposition: memory (least bytes, then least cost) or
 * runtime without a budget (least cost, then least bytes). 1: does not apply. */
int
drv_lex_blocks(solve_ctx *c, int memory, ilp_error *err)
{
	/* as obj_memory's and runtime_optimal's stages: penalised bytes and cost */
	ilpi_terms tb = drv_terms(c, 1, 0, 1), tc = drv_terms(c, 0, 1, 1);
	double t1 = ilpi_now(), cost, bound;
	int64_t bytes, b0;
	int rc;

	if ((rc = drv_blocks_ready(c, err)) != 0)
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
		    drv_level((double)bytes / c->m.byte_unit, tb.pen_s == NULL));
	else
		ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &tc, drv_level(cost, 0));
	if (drv_write_model(c, memory ? &tc : &tb, err) != 0)
		return -1;
	return blocks_answer(c, &tb, bytes, cost, 1, err);
}

int
drv_runtime_blocks(solve_ctx *c, ilp_error *err)
{
	ilpi_terms tb = { 1, 0, NULL, NULL };
	double t1 = ilpi_now(), cost, bound;
	int64_t bytes;
	int rc;

	if ((rc = drv_blocks_ready(c, err)) != 0)
		return rc;
	c->least_bytes = ilpi_blocks_least_bytes(c->blocks, c->ws, c->wr);
	if (drv_write_budget_model(c, err) != 0)
		return -1;
	rc = ilpi_blocks_solve(c->blocks, c->budget, &bytes, &cost, &bound, c->s, c->r, err);
	blocks_note(c, t1);
	if (rc == 2)
		return drv_budget_conflict(c, c->ws, 1, err);
	if (rc == 3 && bytes <= c->budget) {
		/* out of time: the heuristic run's answer and the Lagrangian bound */
		if (blocks_answer(c, &tb, bytes, cost, 0, err) != 0)
			return -1;
		c->gap = cost > 0 ? (cost - bound) / cost : 0;
		drv_note(c, "blocks: time limit; best found %.10g us, bound %.10g", cost, bound);
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
		drv_note(c, "blocks: best found %.10g us, bound %.10g, not proven", cost, bound);
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
	if (drv_options_check(g, o, err) != 0 || drv_prepare(&c, err) != 0)
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
	drv_release(&c, 0);
	return rc;
}

/* ---- every budget from one front (ilp_pareto, solver/driver/pareto.c) ------------------ */

enum { FRONT_MIN_SEG = 16 };    /* items between the front's cuts, at least */

struct ilpi_front {
	ilp_solve_options o;      /* the runtime objective with a budget: its rules */
	solve_ctx c;              /* c.o points to o */
	size_t n;                 /* points on the front */
	int glpk_freed;           /* a GLPK error freed c.m's objects */
};

void
ilpi_front_free(ilpi_front *f)
{
	if (f == NULL)
		return;
	drv_release(&f->c, f->glpk_freed);
	free(f);
}

/* --offload free: the model with its offload columns, for their items, kinds and
 * transfer costs (the fronts' third state) and the answers' offloaded values. */
static int
front_offload_model(void *ctx, ilp_error *err)
{
	solve_ctx *c = ctx;

	if (ilpi_model_build(c->g, &c->red, &c->m, err) != 0)
		return -1;
	return drv_offload_setup(c, err);
}

int
ilpi_front_new(const ilp_graph *g, const ilp_solve_options *o, ilpi_front **out,
    ilp_error *err)
{
	ilpi_front *f;
	solve_ctx *c;
	ilpi_blocks_extra x;
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
	if (drv_options_check(g, &f->o, err) != 0 || drv_prepare(c, err) != 0)
		goto fail;
	if (f->o.offload == ILP_OFFLOAD_FREE) {
		ilpi_glpk_log lg = { f->o.log, f->o.log_ctx, f->o.verbose };

		if (ilpi_glpk_run(front_offload_model, c, &lg, &f->glpk_freed, err) != 0)
			goto fail;
	}
	/* Longer segments than ilp_solve's: the unbounded combination keeps every cut's
	 * front, so fewer cuts keep fewer points (the 96-layer transformer: 0.4 GB at every
	 * narrow cut, 0.12 GB at 16 items or more). Inside a segment as many variables are
	 * live as at the narrow cuts it spans, so class fronts fit as they do for ilp_solve. */
	/* --offload free: the fronts' third state (offloaded), so the front's bytes are the
	 * device's and its cost recompute plus the model's transfer time */
	if (ilpi_blocks_plan_extra(&c->red, blocks_extra(c, &x), FRONT_MIN_SEG, &c->blocks,
	    err) != 0)
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
		drv_note(c, "front: no narrow cuts, or over the work or time limit; one solve per "
		    "budget");
		ilpi_front_free(f);
		return 0;
	}
	blocks_note(c, c->t0);
	drv_note(c, "front: %zu points", f->n);
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
	int64_t by, dev;
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
	if (drv_make_partition(c, out, err) != 0)
		return -1;
	/* the device's saved bytes: offloaded storages are off the device */
	dev = (*out)->saved_bytes - ilpi_partition_offloaded_bytes(c->g, *out);
	if (dev != by) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the front's point at %lld "
		    "bytes lowers to a partition that saves %lld on the device", c->g->path,
		    (long long)by, (long long)dev);
		ilp_partition_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
