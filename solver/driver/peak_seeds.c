/*
 * peak_seeds.c - the peak search's incumbents: seed partitions (ILP optima, min-cut,
 * the references, save-all), the blocks' front, descents, and the least-peak solves'
 * branching weights.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "graph/clock.h"
#include "solver/mincut/mincut.h"
#include "solver/driver/answer.h"
#include "solver/driver/peak_answers.h"
#include "solver/driver/reach.h"
#include "solver/driver/stage.h"
#include "solver/driver/peak_seeds.h"
#include "solver/driver/peak_blocks.h"

/* Whether a seed still fits before `until`: at least half of `dur` (what the last one
 * of its kind took; 0: none yet) is left; counted in *skipped when not. Half: the
 * runtime optima take their tenth of the limit each, so a whole one would not fit
 * after two in their share; a seed that overruns is slower than that. */
static int
seed_fits(solve_ctx *c, double dur, double until, int *skipped)
{
	double now = ilpi_now();

	if (!drv_peak_late(c) && now < until && now + dur / 2 < until)
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
int
drv_peak_seeds(solve_ctx *c, ilp_error *err)
{
	const ilp_graph *g = c->g;
	ilp_solve_options so = *c->o;
	ilpi_mincut_options mo;
	ilp_error e = { 0 };
	const ilpi_solve_hooks *h = c->hooks;
	size_t cap = g->n_ref + 16 + (h != NULL ? h->n_seeds : 0);
	double limit = drv_time_limit(c), t1, dur = 0;
	int skipped = 0;

	if ((c->seed = calloc(cap, sizeof *c->seed)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	/* the caller's (a peak budget at PyTorch's peak: its partition; dominate.c) */
	for (size_t k = 0; h != NULL && h->seeds != NULL && k < h->n_seeds; k++)
		if ((c->seed[c->n_seed] = ilpi_partition_clone(g, h->seeds[k])) != NULL)
			c->n_seed++;
	if (h != NULL && h->seeds_only)
		return 0;
	so.objective = ILP_OBJ_MEMORY;
	so.time_limit = fmax(1e-3, limit - (ilpi_now() - c->t0));
	so.peak_budget = -1;
	so.write_lp = so.write_mps = NULL;
	so.verbose = 0;
	so.log = NULL;
	t1 = ilpi_now();
	if (seed_fits(c, 0, c->t0 + limit, &skipped) &&
	    ilpi_solve_plain(g, &so, &c->seed[c->n_seed], &e) == 0)
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
		if (ilpi_solve_plain(g, &so, &c->seed[c->n_seed], &e) == 0)
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
		drv_note(c, "peak seeds: %d of 15 not made (cut short by the time limit)", skipped);
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
void
drv_best_seed(solve_ctx *c, int64_t *best, int64_t *sim, int note)
{
	size_t n = c->red.n_items;

	for (size_t k = 0; k < c->n_seed; k++) {
		int64_t v = -1;

		if (drv_seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) == 0 &&
		    (v = drv_simulate(c, c->ts, c->tr)) >= 0) {
			if (note)
				drv_note(c, "peak seed %s: simulated %lld bytes", c->seed[k]->method,
				    (long long)v);
			if (*best < 0 || v < *best) {
				*best = c->peak_best = v;
				memcpy(c->ws, c->ts, n);
				memcpy(c->wr, c->tr, n);
			}
		}
		if (sim != NULL)
			sim[k] = v;
	}
}

int
drv_peak_try_seeds(solve_ctx *c, int64_t *best, ilp_error *err)
{
	int64_t *sim = malloc((c->n_seed + 1) * sizeof *sim);
	int skipped = 0, cut = 0;
	double t1 = ilpi_now();

	if (sim == NULL)
		goto nomem;
	drv_best_seed(c, best, sim, 1);
	for (size_t k = 0; k < c->n_seed; k++) {
		if (sim[k] < 0 || (double)sim[k] > 1.05 * (double)*best)
			continue;
		if (drv_peak_late(c)) {
			skipped++;
			continue;
		}
		if (drv_seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) != 0 ||
		    drv_cut_answer(c, c->ts, c->tr, sim[k]) != 0)
			goto nomem;
		cut++;
	}
	drv_note(c, "peak seed cuts: %d seeds cut off, %.2fs%s", cut, ilpi_now() - t1,
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
	if (drv_to_nodes(c) != 0 || (p = drv_node_partition(c)) == NULL)
		return;
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
int
drv_valid_items(solve_ctx *c, uint8_t *s, uint8_t *r)
{
	for (size_t it = 0; it < c->red.n_items; it++)
		r[it] = !s[it];
	if (drv_canon_items(&c->red, s, r, c->node_s) != 0)
		return 0;
	for (size_t it = 0; it < c->red.n_items; it++)
		if ((r[it] && c->m.col_r[it] == 0) || (s[it] && c->m.col_s[it] == 0))
			return 0;
	return 1;
}

/* A candidate (ts, tr) simulated at `sim`: the new incumbent when strictly lower
 * (confirmed by drv_simulate(), the checked path). */
int
drv_peak_offer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim, int64_t *best)
{
	size_t n = c->red.n_items;

	if (sim < 0 || (*best >= 0 && sim >= *best))
		return 0;
	if (drv_simulate(c, s, r) != sim)
		return 0;
	*best = c->peak_best = sim;
	memcpy(c->ws, s, n);
	memcpy(c->wr, r, n);
	return 1;
}

void
drv_starts_offer(peak_starts *st, size_t n_items, const uint8_t *s, int64_t sim)
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
 * decomposition (solver/blocks/blocks.c, the same reduced model) is a candidate: lowered to
 * items and simulated. Points are tried coarse to fine (every 2^k-th), so a time
 * limit still leaves an even sample. */
void
drv_peak_front_seeds(solve_ctx *c, int64_t *best, peak_starts *st, double until,
    double pb_until)
{
	ilpi_blocks *b = NULL;
	ilp_error e = { 0 };
	size_t np, tried = 0, looked = 0, n = c->red.n_items;
	int64_t sim, first = *best;
	double mass, t1 = ilpi_now(), t0 = t1;
	uint8_t *seen = NULL;

	if (c->o->prefer == ILP_PREFER_SOFT || c->o->monolithic || n == 0)
		return;
	if (ilpi_blocks_plan_coarse(&c->red, 16, &b, &e) != 0 || b == NULL) {
		drv_note(c, "peak front: no block decomposition, %.2fs", ilpi_now() - t1);
		ilpi_blocks_free(b);
		return;
	}
	/* the chain of repeated layers first: it needs the plan only */
	drv_peak_blocks(c, b, best, st, pb_until);
	t1 = ilpi_now();
	until = until > t1 + (until - t0) / 2 ? until : t1 + (until - t0) / 2;
	ilpi_blocks_set_time_limit(b, until - t1 > 1e-3 ? until - t1 : 1e-3);
	if (ilpi_blocks_prepare(b, &e) != 0 || ilpi_blocks_front(b, &e) != 0) {
		drv_note(c, "peak front: the decomposition does not apply, %.2fs", ilpi_now() - t1);
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
			if (!drv_valid_items(c, c->ts, c->tr))
				continue;
			tried++;
			simulate_mass(c, c->ts, c->tr, 1, &sim, &mass);
			drv_starts_offer(st, n, c->ts, sim);
			(void)drv_peak_offer(c, c->ts, c->tr, sim, best);
		}
	drv_note(c, "peak front: %zu points, %zu simulated, best %lld bytes (seeds %lld), "
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
void
drv_descend(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t *cur, int64_t *best,
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
			if (!drv_valid_items(c, c->ts, c->tr) || memcmp(c->ts, cs, n) == 0)
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
			(void)drv_peak_offer(c, cs, cr, *cur, best);
		}
	}
}

typedef struct item_cost {
	double cost;
	int32_t it;
} item_cost;

static int
cmp_item_cost(const void *a, const void *b)
{
	const item_cost *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost < y->cost ? 1 : -1;
	return (x->it > y->it) - (x->it < y->it);
}

/* Drops tried with one save that does not fit the bytes cap alone (a swap). */
#define SWAP_DROPS 6

/* The recomputable items with bytes, by increasing recompute cost per byte: the
 * cheapest to stop saving first. Their number. */
static size_t
drops_by_cost(const solve_ctx *c, item_cost *drop)
{
	size_t n_drop = 0;

	for (size_t it = 0; it < c->red.n_items; it++) {
		const ilpi_item *v = &c->red.item[it];

		if (c->m.col_r[it] != 0 && v->stor >= 0 && c->red.stor_bytes[v->stor] > 0)
			drop[n_drop++] = (item_cost){ -v->cost /
			    (double)c->red.stor_bytes[v->stor], (int32_t)it };
	}
	qsort(drop, n_drop, sizeof *drop, cmp_item_cost);
	return n_drop;
}

/* c->ts = x with item it's save bit set to v, canonical in (c->ts, c->tr): whether
 * that is a valid answer. */
static int
with_save(solve_ctx *c, const uint8_t *x, size_t it, uint8_t v)
{
	memcpy(c->ts, x, c->red.n_items);
	c->ts[it] = v;
	return drv_valid_items(c, c->ts, c->tr);
}

/* (c->ts, c->tr) simulated (one of *budget) and, within P, copied to (cs, cr). */
static int
take_within(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t P, size_t *budget)
{
	int64_t sim;

	(*budget)--;
	if ((sim = drv_simulate(c, c->ts, c->tr)) < 0 || sim > P)
		return 0;
	memcpy(cs, c->ts, c->red.n_items);
	memcpy(cr, c->tr, c->red.n_items);
	return 1;
}

size_t
drv_descend_time(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t P, double cap,
    double until, size_t *budget)
{
	size_t n = c->red.n_items, n_cand = 0, n_drop, moves = 0;
	ilpi_terms tb = { 1, 0, NULL, NULL }, tc = drv_terms(c, 0, 1, 1);
	item_cost *cand = malloc((n + 1) * sizeof *cand), *drop = malloc((n + 1) * sizeof *drop);
	uint8_t *x = malloc(2 * n + 1);
	double cur = ilpi_model_value(&c->m, &tc, cs, cr);
	int improved = 1, swaps = 0;

	if (cand == NULL || drop == NULL || x == NULL)
		goto out;
	/* saves by decreasing recompute cost; drops (swaps) by increasing cost per byte */
	for (size_t it = 0; it < n; it++) {
		const ilpi_item *v = &c->red.item[it];

		if (c->m.col_s[it] != 0 && v->cost > 0)
			cand[n_cand++] = (item_cost){ v->cost, (int32_t)it };
	}
	qsort(cand, n_cand, sizeof *cand, cmp_item_cost);
	n_drop = drops_by_cost(c, drop);
	/* passes of single saves, then (when those are spent and a cap binds) of saves
	 * paired with a drop of the cheapest few values per byte */
	while ((improved || !swaps) && ilpi_now() < until && *budget > 0) {
		if (!improved)
			swaps = 1;
		improved = 0;
		for (size_t k = 0; k < n_cand && ilpi_now() < until && *budget > 0; k++) {
			size_t it = (size_t)cand[k].it;
			double v;
			int over;

			if (cs[it])
				continue;
			if (!with_save(c, cs, it, 1) || memcmp(c->ts, cs, n) == 0)
				continue;
			v = ilpi_model_value(&c->m, &tc, c->ts, c->tr);
			if (!(v < cur * (1 - 1e-12)))
				continue;
			over = cap >= 0 && ilpi_model_value(&c->m, &tb, c->ts, c->tr) > cap;
			if (over && !swaps)
				continue;
			if (over) {
				int tried = 0;

				memcpy(x, c->ts, n);
				for (size_t j = 0; j < n_drop && tried < SWAP_DROPS; j++) {
					size_t jt = (size_t)drop[j].it;

					if (!x[jt] || jt == it)
						continue;
					if (!with_save(c, x, jt, 0) || !c->ts[it])
						continue;
					tried++;
					v = ilpi_model_value(&c->m, &tc, c->ts, c->tr);
					if (v < cur * (1 - 1e-12) &&
					    ilpi_model_value(&c->m, &tb, c->ts, c->tr) <= cap)
						break;
					v = -1;
				}
				if (tried == 0 || v < 0)
					continue;
			}
			if (!take_within(c, cs, cr, P, budget))
				continue;
			cur = v;
			moves++;
			improved = 1;
		}
	}
out:
	free(cand);
	free(drop);
	free(x);
	return moves;
}

int
drv_repair_bytes(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t P, double cap,
    double until, size_t *budget)
{
	size_t n = c->red.n_items, n_drop;
	ilpi_terms tb = { 1, 0, NULL, NULL };
	item_cost *drop = malloc((n + 1) * sizeof *drop);
	double bytes = ilpi_model_value(&c->m, &tb, cs, cr);
	int progress = 1;

	if (drop == NULL)
		return 0;
	n_drop = drops_by_cost(c, drop);
	while (bytes > cap && progress && ilpi_now() < until && *budget > 0) {
		progress = 0;
		for (size_t j = 0; j < n_drop && bytes > cap && ilpi_now() < until &&
		    *budget > 0; j++) {
			size_t jt = (size_t)drop[j].it;
			double b;

			if (!cs[jt] || !with_save(c, cs, jt, 0) ||
			    !((b = ilpi_model_value(&c->m, &tb, c->ts, c->tr)) < bytes))
				continue;
			if (!take_within(c, cs, cr, P, budget))
				continue;
			bytes = b;
			progress = 1;
		}
	}
	free(drop);
	return bytes <= cap;
}

/* Descents from the incumbent and the front's best answers, then from random
 * perturbations of the best (a fixed-seed generator and a budget of simulations, so
 * the result does not depend on the machine's speed unless `until` cuts it short). */
void
drv_peak_descent(solve_ctx *c, int64_t *best, peak_starts *st, double until)
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
	drv_starts_offer(st, n, c->ws, *best);
	for (size_t k = 0; k < st->n && ilpi_now() < until && budget > 0; k++) {
		memcpy(cs, st->s + k * n, n);
		if (!drv_valid_items(c, cs, cr))
			continue;
		drv_descend(c, cs, cr, &cur, best, until, &budget, &moves);
	}
	while (n_var > 0 && ilpi_now() < until && budget > 0) {
		memcpy(cs, c->ws, n);
		for (int k = 0; k < 3; k++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			cs[var[(rng >> 33) % n_var]] = !cs[var[(rng >> 33) % n_var]];
		}
		if (!drv_valid_items(c, cs, cr))
			continue;
		drv_descend(c, cs, cr, &cur, best, until, &budget, &moves);
		rounds++;
	}
	spent = 20 * n + 2000 - budget;
	drv_note(c, "peak descent: %d perturbations, %zu moves, %zu simulated, best %lld bytes "
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
int
drv_peak_weights(solve_ctx *c)
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
void
drv_raise_peak_floor(solve_ctx *c, int64_t best)
{
	double unit = c->m.byte_unit, lb = glp_get_col_lb(c->m.lp, c->peak.col);
	double to = floor(fmin(c->peak_bound, (double)best - 1)) / unit;

	if (best >= 0 && to > lb)
		glp_set_col_bnds(c->m.lp, c->peak.col, GLP_LO, to, 0);
}

/* The peak search's second stage: the peak column bounded by the best simulated peak
 * (plus rounding) and out of the objective. */
void
drv_peak_stage2_model(solve_ctx *c, int64_t best)
{
	double unit = c->m.byte_unit, lb = glp_get_col_lb(c->m.lp, c->peak.col);
	double ub = (double)best / unit + 1e-9 * (1 + (double)best / unit);

	glp_set_obj_coef(c->m.lp, c->peak.col, 0);
	glp_set_col_bnds(c->m.lp, c->peak.col, ub > lb ? GLP_DB : GLP_FX, lb,
	    ub > lb ? ub : lb);
}
