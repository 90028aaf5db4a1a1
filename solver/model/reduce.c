/*
 * reduce.c - shrink the joint graph to what the ILP must decide.
 *
 * 1. Candidates: forward and unclaimed nodes from which a boundary value is reachable
 *    through forward and unclaimed nodes. Nothing else can be saved usefully or
 *    recomputed usefully. Every input of a candidate is a candidate: it is forward or
 *    unclaimed (graph/classify.c's invariant) and has a candidate user, so item_of[]
 *    is defined for every input the later steps look up.
 * 2. Fixings from the rules (NO_SAVE, NO_RECOMPUTE), primals (never recomputed) and
 *    tuples (nothing to save); a rules conflict is reported here.
 * 3. Free views: saving a zero-cost view whose inputs all share its storage is never
 *    better than saving those inputs, so the view's save variable is fixed to 0.
 * 4. Chain contraction: u merges into its only candidate user v when v reads u alone
 *    and saving u is dominated by saving v (u has its storage to itself and is at
 *    least as large); then u is recomputed exactly when v is.
 * 5. Items nobody can need (not boundary, no user that may recompute) are dropped.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"
#include "policies/rules.h"
#include "solver/model/reduce.h"

void
ilpi_reduced_free(ilpi_reduced *red)
{
	if (red == NULL)
		return;
	free(red->item);
	free(red->in);
	free(red->member);
	free(red->item_of);
	free(red->cand);
	free(red->boundary);
	free(red->stor_bytes);
	free(red->stor_root);
	free(red->stor_items);
	memset(red, 0, sizeof *red);
}

/* A boundary value no partition can provide. The rules-level search in
 * policies/conflict.c follows the same NO_SAVE/NO_RECOMPUTE chains, so it names the
 * shortest one; finding none would mean the two disagree. */
static int
conflict(const ilp_graph *g, const ilpi_rules *r, size_t b, ilp_error *err)
{
	if (ilpi_rules_find_conflict(g, r, err) == 0)
		ilpi_err(err, ILP_ERR_SOLVER, "%s: node '%s': internal error: no partition can "
		    "provide it, but no conflicting rule was found", g->path, g->node[b].name);
	return -1;
}

/* Steps 1 and 2, and the node-level conflict check. */
static int
candidates(const ilp_graph *g, const ilpi_rules *r, ilpi_reduced *red, uint8_t *cs,
    uint8_t *cr, ilp_error *err)
{
	uint8_t *avail = NULL;
	int rc = -1;

	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *us = ilpi_users(g, n);

		if (!ilpi_decided(n))
			continue;
		if (n->flags & ILPI_F_BOUNDARY) {
			red->boundary[i] = red->cand[i] = 1;
			red->n_boundary++;
		}
		for (uint32_t k = 0; k < n->use_count && !red->cand[i]; k++)
			red->cand[i] = red->cand[us[k]] && ilpi_decided(&g->node[us[k]]);
		red->n_candidates += red->cand[i];
	}
	if ((avail = calloc(g->n, 1)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);

		if (!red->cand[i])
			continue;
		cs[i] = !(r->bits[i] & ILPI_R_NO_SAVE) && !(n->flags & ILPI_F_TUPLE);
		cr[i] = n->kind == ILPI_OP && !(r->bits[i] & ILPI_R_NO_RECOMPUTE);
		avail[i] = cr[i];
		for (uint32_t k = 0; k < n->in_count; k++)
			avail[i] &= avail[in[k]];
		avail[i] |= cs[i];
	}
	for (size_t i = 0; i < g->n; i++)
		if (red->boundary[i] && !avail[i]) {
			conflict(g, r, i, err);
			goto out;
		}
	rc = 0;
out:
	free(avail);
	return rc;
}

/* Can node u be made available in the backward at no cost beyond storage k: saved
 * itself (its storage is k), or a free recomputable op (a view into k, or a tuple of
 * views such as unbind) whose inputs all can? */
static int
free_in_storage(const ilp_graph *g, const ilpi_rules *r, const double *cost_us, int soft,
    const uint8_t *cs, const uint8_t *cr, int32_t u, int32_t k, int depth)
{
	const uint8_t pref = ILPI_R_PREFER_SAVE | ILPI_R_PREFER_RECOMPUTE;
	const ilpi_node *n = &g->node[u];
	const int32_t *in = ilpi_inputs(g, n);

	if (soft && (r->bits[u] & pref))
		return 0;
	if (n->storage == k && cs[u])
		return 1;
	if (depth == 0 || !cr[u] || cost_us[u] != 0 || n->in_count == 0 ||
	    !(n->storage == k || (n->flags & ILPI_F_TUPLE)))
		return 0;
	for (uint32_t j = 0; j < n->in_count; j++)
		if (!free_in_storage(g, r, cost_us, soft, cs, cr, in[j], k, depth - 1))
			return 0;
	return 1;
}

/* Step 3, descending so that a view of a view reduces to the base: saving a free view
 * is replaced by saving what it is derived from in the same storage (same bytes) and
 * recomputing the free ops in between (no cost). */
static void
free_views(const ilp_graph *g, const ilpi_rules *r, const double *cost_us, int soft,
    ilpi_reduced *red, uint8_t *cs, const uint8_t *cr)
{
	const uint8_t pref = ILPI_R_PREFER_SAVE | ILPI_R_PREFER_RECOMPUTE;

	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);
		int ok;

		if (!red->cand[i] || n->view_of == ILPI_NONE || !cs[i] || !cr[i] ||
		    cost_us[i] != 0 || n->in_count == 0 || (soft && (r->bits[i] & pref)))
			continue;
		ok = 1;
		for (uint32_t k = 0; k < n->in_count && ok; k++)
			ok = free_in_storage(g, r, cost_us, soft, cs, cr, in[k], n->storage, 8);
		if (ok) {
			cs[i] = 0;
			red->n_view_fixed++;
		}
	}
}

static int32_t
only_candidate_user(const ilp_graph *g, const ilpi_reduced *red, size_t u)
{
	const ilpi_node *n = &g->node[u];
	const int32_t *us = ilpi_users(g, n);
	int32_t only = ILPI_NONE;

	for (uint32_t k = 0; k < n->use_count; k++)
		if (red->cand[us[k]]) {
			if (only != ILPI_NONE)
				return ILPI_NONE;
			only = us[k];
		}
	return only;
}

typedef struct chain {
	int32_t first, last;      /* member nodes, linked through next[] */
	double cost;
	uint8_t can_save, can_recompute;
} chain;

/* Storage the caller owns: a primal's or a tangent's, or a view's of one. */
static int
caller_owned(const ilp_graph *g, int32_t v)
{
	for (int hops = 0; g->node[v].view_of != ILPI_NONE && hops < 1 << 20; hops++)
		v = g->node[v].view_of;
	return g->node[v].kind != ILPI_OP;
}

/* Step 4: builds the chains; returns their count. peak: saving must also be
 * dominated in the simulated peak (docs/partition.md "Peak memory"). */
static size_t
contract(const ilp_graph *g, const ilpi_rules *r, const double *cost_us, int soft, int peak,
    ilpi_reduced *red, const uint8_t *cs, const uint8_t *cr, chain *ch, int32_t *next,
    int32_t *stor_count)
{
	const uint8_t pref = ILPI_R_PREFER_SAVE | ILPI_R_PREFER_RECOMPUTE;
	size_t m = 0;

	for (size_t i = 0; i < g->n; i++)
		if (red->cand[i] && cs[i])
			stor_count[g->node[i].storage]++;
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);
		int32_t u = n->in_count > 0 ? in[0] : ILPI_NONE, it;
		int merge = u != ILPI_NONE;
		int64_t bu, bi;

		if (!red->cand[i])
			continue;
		next[i] = ILPI_NONE;
		for (uint32_t k = 1; k < n->in_count && merge; k++)
			merge = in[k] == u;
		if (merge) {
			it = red->item_of[u];
			merge = ch[it].last == u && !red->boundary[u] &&
			    only_candidate_user(g, red, (size_t)u) == (int32_t)i &&
			    !(soft && ((r->bits[u] | r->bits[i]) & pref)) &&
			    (!cs[u] || (stor_count[g->node[u].storage] == 1 && cs[i] &&
			    ilpi_charged_bytes(g, &g->node[u]) >= ilpi_charged_bytes(g, n)));
			/* The peak counts no caller-owned storage (primals, tangents and their
			 * views): saving such a u is free there, and not dominated. */
			if (merge && peak && cs[u]) {
				bu = caller_owned(g, u) ? 0 : ilpi_live_bytes(g, g->node[u].storage);
				bi = caller_owned(g, (int32_t)i) ? 0 : ilpi_live_bytes(g, n->storage);
				merge = bu >= bi;
			}
		}
		if (merge) {
			next[ch[it].last] = (int32_t)i;
			ch[it].last = (int32_t)i;
			ch[it].cost += cost_us[i];
			ch[it].can_save = cs[i];
			ch[it].can_recompute &= cr[i];
			red->item_of[i] = it;
			red->n_contracted++;
			continue;
		}
		ch[m].first = ch[m].last = (int32_t)i;
		ch[m].cost = cost_us[i];
		ch[m].can_save = cs[i];
		ch[m].can_recompute = cr[i];
		red->item_of[i] = (int32_t)m++;
	}
	return m;
}

/* Lays the chains out as items with member and distinct input lists. */
static int
layout(const ilp_graph *g, const ilpi_rules *r, ilpi_reduced *red, const chain *ch,
    size_t m, const int32_t *next, int32_t *mark)
{
	size_t n_mem = 0, n_in = 0, cap_in = 0;

	red->n_items = m;
	red->item = calloc(m + 1, sizeof *red->item);
	red->member = malloc((red->n_candidates + 1) * sizeof *red->member);
	if (red->item == NULL || red->member == NULL)
		return -1;
	for (size_t i = 0; i < m; i++)
		mark[i] = ILPI_NONE;
	for (size_t it = 0; it < m; it++) {
		ilpi_item *item = &red->item[it];

		item->rep = ch[it].last;
		item->mem_begin = (uint32_t)n_mem;
		item->in_begin = (uint32_t)n_in;
		item->cost = ch[it].cost;
		item->can_save = ch[it].can_save;
		item->can_recompute = ch[it].can_recompute;
		item->boundary = red->boundary[item->rep];
		item->prefer = r->bits[item->rep] & (ILPI_R_PREFER_SAVE | ILPI_R_PREFER_RECOMPUTE);
		item->stor = -1;
		for (int32_t v = ch[it].first; v != ILPI_NONE; v = next[v]) {
			const ilpi_node *n = &g->node[v];
			const int32_t *in = ilpi_inputs(g, n);

			red->member[n_mem++] = v;
			if ((n->flags & ILPI_F_RANDOM) && !g->rng_functionalized)
				item->rng_bytes += ilpi_rng_state_bytes(g);
			for (uint32_t k = 0; k < n->in_count; k++) {
				int32_t j = red->item_of[in[k]];

				if (j == (int32_t)it || mark[j] == (int32_t)it)
					continue;
				mark[j] = (int32_t)it;
				if (ILPI_GROW(red->in, cap_in, n_in, 1) != 0)
					return -1;
				red->in[n_in++] = j;
			}
		}
		item->mem_count = (uint32_t)n_mem - item->mem_begin;
		item->in_count = (uint32_t)n_in - item->in_begin;
		/* ascending input order keeps the model's rows in a canonical order */
		for (uint32_t a = 1; a < item->in_count; a++)
			for (uint32_t b = a; b > 0 && red->in[item->in_begin + b - 1] >
			    red->in[item->in_begin + b]; b--) {
				int32_t t = red->in[item->in_begin + b];

				red->in[item->in_begin + b] = red->in[item->in_begin + b - 1];
				red->in[item->in_begin + b - 1] = t;
			}
	}
	return 0;
}

/* Steps 5 and the final availability pass, then storage classes. */
static int
finish(const ilp_graph *g, ilpi_reduced *red, int32_t *root_class)
{
	uint8_t *useful = calloc(red->n_items + 1, 1), *avail = calloc(red->n_items + 1, 1);
	int rc = -1;

	if (useful == NULL || avail == NULL)
		goto out;
	for (size_t it = 0; it < red->n_items; it++) {
		ilpi_item *item = &red->item[it];

		for (uint32_t k = 0; k < item->in_count; k++)
			if (!avail[red->in[item->in_begin + k]])
				item->can_recompute = 0;
		avail[it] = item->can_save || item->can_recompute;
	}
	for (size_t it = red->n_items; it-- > 0;) {
		ilpi_item *item = &red->item[it];

		if (!useful[it] && !item->boundary) {
			if (item->can_save || item->can_recompute)
				red->n_dropped++;
			item->can_save = item->can_recompute = 0;
			continue;
		}
		if (item->can_recompute)
			for (uint32_t k = 0; k < item->in_count; k++)
				useful[red->in[item->in_begin + k]] = 1;
	}
	for (size_t i = 0; i < g->n; i++)
		root_class[i] = ILPI_NONE;
	red->stor_bytes = malloc((red->n_items + 1) * sizeof *red->stor_bytes);
	red->stor_root = malloc((red->n_items + 1) * sizeof *red->stor_root);
	red->stor_items = calloc(red->n_items + 1, sizeof *red->stor_items);
	if (red->stor_bytes == NULL || red->stor_root == NULL || red->stor_items == NULL)
		goto out;
	for (size_t it = 0; it < red->n_items; it++) {
		ilpi_item *item = &red->item[it];
		int32_t root = g->node[item->rep].storage;

		if (!item->can_save)
			continue;
		if (root_class[root] == ILPI_NONE) {
			root_class[root] = (int32_t)red->n_stor;
			red->stor_root[red->n_stor] = root;
			red->stor_bytes[red->n_stor] = ilpi_charged_bytes(g, &g->node[root]);
			red->n_stor++;
		}
		item->stor = root_class[root];
		red->stor_items[item->stor]++;
	}
	rc = 0;
out:
	free(useful);
	free(avail);
	return rc;
}

int
ilpi_reduce(const ilp_graph *g, const ilpi_rules *r, const double *cost_us, int flags,
    ilpi_reduced *red, ilp_error *err)
{
	int soft = (flags & ILPI_REDUCE_SOFT) != 0, peak = (flags & ILPI_REDUCE_PEAK) != 0;
	uint8_t *cs = calloc(g->n + 1, 1), *cr = calloc(g->n + 1, 1);
	chain *ch = malloc((g->n + 1) * sizeof *ch);
	int32_t *next = malloc((g->n + 1) * sizeof *next);
	int32_t *scratch = calloc(g->n + 1, sizeof *scratch);
	size_t m;
	int rc = -1;

	memset(red, 0, sizeof *red);
	red->item_of = malloc((g->n + 1) * sizeof *red->item_of);
	red->cand = calloc(g->n + 1, 1);
	red->boundary = calloc(g->n + 1, 1);
	if (cs == NULL || cr == NULL || ch == NULL || next == NULL || scratch == NULL ||
	    red->item_of == NULL || red->cand == NULL || red->boundary == NULL)
		goto nomem;
	for (size_t i = 0; i < g->n; i++)
		red->item_of[i] = ILPI_NONE;
	if (candidates(g, r, red, cs, cr, err) != 0)
		goto out;
	free_views(g, r, cost_us, soft, red, cs, cr);
	m = contract(g, r, cost_us, soft, peak, red, cs, cr, ch, next, scratch);
	if (layout(g, r, red, ch, m, next, scratch) != 0 || finish(g, red, scratch) != 0)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
out:
	free(cs);
	free(cr);
	free(ch);
	free(next);
	free(scratch);
	return rc;
}
