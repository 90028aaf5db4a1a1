/*
 * peak_general_rows.c - rows over every partition at one backward op's step
 * (peak_general_rows.h). peak_cuts.c states the method.
 */
#include "config.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/grow.h"
#include "graph/lower.h"
#include "graph/region.h"
#include "solver/model/reduce.h"
#include "solver/peak/peak_general_rows.h"
#include "solver/peak/peak_rows.h"

/* Storage `key` is held by the caller whatever the partition (a forward output). */
static int
held_storage(const ilpi_peak_cuts *pc, size_t key)
{
	const ilp_graph *g = pc->g;

	if (key >= g->n)
		return 0;
	return (g->node[key].flags & ILPI_F_FW_OUTPUT) || pc->out_stor[key];
}

/* One conjunction of a general row: storage `z` (its index among the row's storages)
 * is live when its literals hold; lit b may be absent (col_b1 == 0), and so may e. */
typedef struct conj {
	size_t z;
	int a;                /* column of the first literal (s or c(X, theta)) */
	int b1, b0;           /* second literal c(u, inf) - c(u, theta'): b1 - b0, or none */
	int e;                /* a getitem allocated at its tuple's step: r of the getitem */
} conj;

/* "u runs at or after the point", at most: c(u, inf) - c(u, kappa) (exact for u
 * before o in graph order, else c(u, kappa - 1) would be); 0 in *b1 when u never
 * runs. */
static int
after_cols(ilpi_peak_cuts *pc, int32_t kappa, int32_t o, int32_t u, int *b1, int *b0)
{
	const int *inf = ilpi_pc_family_of(pc, INF_THETA), *f;

	(void)o;
	if (inf == NULL || (f = ilpi_pc_family_of(pc, kappa)) == NULL)
		return -1;
	*b1 = inf[u];
	*b0 = f[u];
	return 0;
}

/* The conjunctions of storage `key` (bytes b) whose value v exists when literal `a`
 * (and `e`, when not 0) holds: one per reader of v, or of a view of v that follows it
 * (not a saved rep of its own), that runs at or after the point: a backward op there
 * gives `a` (and `e`) alone. A tuple of views (split, unbind) is not a view itself: its
 * getitems name v as their base, and they are followed as v's views are (GPT-NeoX's
 * fused q/k/v projection reaches the attention backward through split's getitems;
 * without them its storage was in no general row). */
typedef struct conjs {
	int32_t *slot;        /* key -> index among the row's storages, -1 */
	int64_t *sbytes;      /* per storage: bytes */
	size_t n_st;
	conj *cj;
	size_t n_cj, cap_cj;
} conjs;

/* What reader_conjs' walk needs at each reader: the storage, its literals, the point. */
typedef struct reader_walk {
	ilpi_peak_cuts *pc;
	conjs *cs;
	int32_t kappa, o;
	size_t at, key;
	int a, e;
	int64_t b;
} reader_walk;

/* A view with a column of its own is an item of its own: its readers are its own. */
static int
unsaved_view(int32_t w, void *ctx)
{
	const reader_walk *rw = ctx;

	return rw->pc->col_s[w] == 0;
}

static int
reader_conj(int32_t u, void *ctx)
{
	reader_walk *rw = ctx;
	ilpi_peak_cuts *pc = rw->pc;
	conjs *cs = rw->cs;
	conj c = { 0, rw->a, 0, 0, rw->e };

	if (ilpi_pc_is_bw(pc, u)) {
		if (pc->pos[u] < (int32_t)rw->at)
			return 0;
	} else if (pc->col_r[u] == 0) {
		return 0;
	} else {
		if (after_cols(pc, rw->kappa, rw->o, u, &c.b1, &c.b0) != 0)
			return -1;
		/* u never runs, or never after the point (c(u, kappa) is c(u, inf) itself,
		 * the same column): the conjunction is 0 in every partition, and its row
		 * would only make the model larger (2.6 times the rows on a 100-layer
		 * GPT-2's first least-peak solve) */
		if (c.b1 == 0 || c.b1 == c.b0)
			return 0;
	}
	if (cs->slot[rw->key] < 0) {
		cs->slot[rw->key] = (int32_t)cs->n_st;
		cs->sbytes[cs->n_st++] = rw->b;
	}
	c.z = (size_t)cs->slot[rw->key];
	if (ILPI_GROW(cs->cj, cs->cap_cj, cs->n_cj, 1) != 0)
		return -1;
	cs->cj[cs->n_cj++] = c;
	return 0;
}

static int
reader_conjs(ilpi_peak_cuts *pc, conjs *cs, int32_t kappa, int32_t o, size_t at,
    int32_t v, int a, int e, size_t key, int64_t b)
{
	reader_walk rw = { pc, cs, kappa, o, at, key, a, e, b };
	int32_t stack[64];

	return ilpi_view_readers(pc->g, v, stack, 64, unsaved_view, reader_conj, &rw);
}

typedef struct conj_at {
	conj c;
	size_t at;            /* its index in the list */
} conj_at;

static int
cmp_conj_at(const void *pa, const void *pb)
{
	const conj_at *a = pa, *b = pb;

	if (a->c.z != b->c.z)
		return a->c.z < b->c.z ? -1 : 1;
	if (a->c.a != b->c.a)
		return a->c.a < b->c.a ? -1 : 1;
	if (a->c.b1 != b->c.b1)
		return a->c.b1 < b->c.b1 ? -1 : 1;
	if (a->c.b0 != b->c.b0)
		return a->c.b0 < b->c.b0 ? -1 : 1;
	if (a->c.e != b->c.e)
		return a->c.e < b->c.e ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* Drops the longer conjunctions a one-literal one of the same storage and first
 * literal dominates, and repeats (the first of each stays), keeping the list's order:
 * sorted copies, not a pairwise scan (a chain of n values has O(n) conjunctions at
 * every point). */
static int
drop_repeats(conjs *cs, const int *single)
{
	conj_at *srt = malloc((cs->n_cj + 1) * sizeof *srt);
	uint8_t *keep = calloc(cs->n_cj + 1, 1);
	size_t n = 0, w = 0;

	if (srt == NULL || keep == NULL) {
		free(srt);
		free(keep);
		return -1;
	}
	for (size_t k = 0; k < cs->n_cj; k++)
		if (!(single[cs->cj[k].z] == cs->cj[k].a && (cs->cj[k].b1 != 0 ||
		    cs->cj[k].e != 0)))
			srt[n++] = (conj_at){ cs->cj[k], k };
	qsort(srt, n, sizeof *srt, cmp_conj_at);
	for (size_t k = 0; k < n; k++)
		keep[srt[k].at] = k == 0 || cmp_conj_at(&(conj_at){ srt[k].c, 0 },
		    &(conj_at){ srt[k - 1].c, 0 }) != 0;
	for (size_t k = 0; k < cs->n_cj; k++)
		if (keep[k])
			cs->cj[w++] = cs->cj[k];
	cs->n_cj = w;
	free(srt);
	free(keep);
	return 0;
}

/* The row's constant: what the answer has live at step `at` minus its storages that
 * some partition may not have (the rest is the backward's own and held storage). st, en:
 * scratch of nk entries. */
static double
general_constant(ilpi_peak_cuts *pc, const ilpi_memsim *ms, const ilpi_memtrace *tr,
    size_t at, int32_t *st, int32_t *en, size_t nk)
{
	const ilp_graph *g = pc->g;
	double cst = (double)ms->bw_live[at];

	ilpi_pc_storage_spans(g->n, tr->key, tr->prod, tr->die, nk, st, en, NULL, NULL);
	for (size_t key = 0; key < nk; key++) {
		int64_t b = ilpi_live_bytes(g, (int32_t)key);

		if (st[key] == ABSENT || b == 0 || st[key] > (int32_t)at || en[key] < (int32_t)at)
			continue;
		if (key >= g->n && ilpi_pc_is_bw(pc, (int32_t)(key - g->n)))
			continue;
		if (held_storage(pc, key) || !ilpi_pc_resident(g, ms, 0, at, key))
			continue; /* held either way; or offloaded, not in the answer's bytes */
		cst -= (double)b;
	}
	return cst;
}

/* Conjunctions, storage by storage: saved storage (key: its root) read at or after the
 * point through a saved item's rep; fresh storage (key: g->n + X) of a recomputed X
 * that runs at or before the point, read at or after it. */
static int
general_conjs(ilpi_peak_cuts *pc, conjs *cs, int32_t kappa, int32_t o, size_t at,
    const int *fk)
{
	const ilp_graph *g = pc->g;
	const ilpi_reduced *red = pc->m->red;

	for (size_t it = 0; it < red->n_items; it++) {
		int32_t rep = red->item[it].rep, key;
		int64_t b;

		if (pc->col_s[rep] == 0)
			continue;
		key = g->node[rep].storage;
		b = ilpi_live_bytes(g, key);
		if (b == 0 || held_storage(pc, (size_t)key))
			continue;
		if (reader_conjs(pc, cs, kappa, o, at, rep,
		    ilpi_pc_saved_col_bw(pc, rep, kappa, o), 0, (size_t)key,
		    b) != 0)
			return -1;
	}
	for (size_t v = 0; v < g->n; v++) {
		const ilpi_node *n = &g->node[v];
		size_t key = g->n + v;
		int64_t b = ilpi_live_bytes(g, (int32_t)key);
		int32_t x;
		int a;

		if (pc->col_r[v] == 0 || ilpi_pc_is_bw(pc, (int32_t)v) || n->kind != ILPI_OP ||
		    n->view_of != ILPI_NONE || b == 0)
			continue;
		a = (int32_t)v <= o ? fk[v] : 0;
		if (a != 0 && reader_conjs(pc, cs, kappa, o, at, (int32_t)v, a, 0, key, b) != 0)
			return -1;
		/* A recomputed getitem's storage is allocated when its tuple runs (the
		 * simulator's rule), which may be in an earlier batch than the getitem's
		 * own need: "the tuple runs at or before the point" and "the getitem is
		 * recomputed" (transformer-12l: the layer norms' mean and rstd, 64 KiB a
		 * layer that the rows missed). */
		x = ilpi_getitem_parent(g, v);
		a = x != ILPI_NONE && x <= o && (g->node[x].flags & ILPI_F_TUPLE) &&
		    !ilpi_pc_is_bw(pc, x) ? fk[x] : 0;
		if (a != 0 && reader_conjs(pc, cs, kappa, o, at, (int32_t)v, a,
		    pc->col_r[v], key, b) != 0)
			return -1;
	}
	return 0;
}

/* The rows of the conjunctions: a storage with one one-literal conjunction enters the
 * peak row by that literal; the others get z in [0, 1], z >= each conjunction. Then the
 * peak row, P >= cst + the storages' bytes. ncj, single: scratch of cs->n_st + 1. */
static int
general_rows(ilpi_peak_cuts *pc, conjs *cs, double cst, int *ncj, int *single)
{
	conj *cj = cs->cj;
	rowb rb = { 0, 0 };

	/* A one-literal conjunction dominates the two-literal ones with the same first
	 * literal (a storage's first literal is one column, but a saved storage shared by
	 * items has one per item: keep the others); repeats go too. */
	for (size_t k = 0; k < cs->n_cj; k++)
		if (cj[k].b1 == 0 && cj[k].e == 0)
			single[cj[k].z] = single[cj[k].z] == 0 || single[cj[k].z] == cj[k].a ?
			    cj[k].a : -1;
	if (drop_repeats(cs, single) != 0)
		return -1;
	cj = cs->cj;
	for (size_t k = 0; k < cs->n_cj; k++)
		ncj[cj[k].z]++;
	if (pc->cap_z < cs->n_cj + 1) {
		free(pc->zrow);
		free(pc->zcol);
		pc->zrow = malloc((cs->n_cj + 1) * sizeof *pc->zrow);
		pc->zcol = malloc((cs->n_cj + 1) * sizeof *pc->zcol);
		pc->cap_z = pc->zrow && pc->zcol ? cs->n_cj + 1 : 0;
		if (pc->cap_z == 0)
			return -1;
	}
	pc->nz = 0;
	for (size_t z = 0; z < cs->n_st; z++) {
		if (ncj[z] == 1 && single[z] > 0)
			continue;
		ncj[z] = -ilpi_pc_new_col(pc); /* now: minus its z column */
	}
	if (ilpi_pc_row_room_n(pc, cs->n_st + 2) != 0)
		return -1;
	for (size_t k = 0; k < cs->n_cj; k++) {
		int zc = -ncj[cj[k].z];

		if (zc <= 0)
			continue;
		ilpi_pc_rb_add(pc, &rb, zc, 1);
		ilpi_pc_rb_add(pc, &rb, cj[k].a, -1);
		if (cj[k].b1 != 0) {
			ilpi_pc_rb_add(pc, &rb, cj[k].b1, -1);
			ilpi_pc_rb_add(pc, &rb, cj[k].b0, 1);
		}
		ilpi_pc_rb_add(pc, &rb, cj[k].e, -1);
		ilpi_pc_rb_emit_kept(pc, &rb, GLP_LO, -(double)((cj[k].b1 != 0) + (cj[k].e != 0)));
		pc->zrow[pc->nz] = glp_get_num_rows(pc->m->lp);
		pc->zcol[pc->nz++] = zc;
	}
	ilpi_pc_rb_add(pc, &rb, pc->col_peak, 1);
	for (size_t z = 0; z < cs->n_st; z++)
		ilpi_pc_rb_add(pc, &rb, ncj[z] < 0 ? -ncj[z] : single[z],
		    -(double)cs->sbytes[z] / pc->m->byte_unit);
	ilpi_pc_rb_emit_kept(pc, &rb, GLP_LO, cst / pc->m->byte_unit);
	return 0;
}

int
ilpi_peak_cuts_add_general(ilpi_peak_cuts *pc, const ilpi_memsim *ms,
    const ilpi_memtrace *tr, size_t at)
{
	const ilp_graph *g = pc->g;
	size_t nk = 2 * g->n + 1;
	int32_t o = ms->bw_order[at], kappa = tr->root[at];
	int32_t *st = NULL, *en = NULL;
	conjs cs = { NULL, NULL, 0, NULL, 0, 0 };
	int *ncj = NULL, *single = NULL;
	const int *fk;
	double cst;
	int rc = -1;

	if (!ilpi_pc_is_bw(pc, o) || (!pc->fallback && pc->kfix[o] != kappa) ||
	    ilpi_pc_full(pc))
		return 0;
	/* One family, c(X, kappa): for an op X after o in graph order "runs at or
	 * before the point" is c(X, kappa - 1) <= c(X, kappa); the rows drop such X's
	 * own storage and take c(X, kappa) for "X runs strictly before the point" in a
	 * reader's literal (so "the reader runs at or after it" is at most the truth). */
	if ((fk = ilpi_pc_family_of(pc, kappa)) == NULL ||
	    ilpi_pc_family_of(pc, INF_THETA) == NULL)
		return -1;
	st = malloc(nk * sizeof *st);
	en = malloc(nk * sizeof *en);
	cs.slot = malloc(nk * sizeof *cs.slot);
	cs.sbytes = malloc(nk * sizeof *cs.sbytes);
	if (st == NULL || en == NULL || cs.slot == NULL || cs.sbytes == NULL)
		goto out;
	for (size_t k = 0; k < g->n; k++)
		pc->pos[k] = -1;
	for (size_t k = 0; k < ms->n_bw; k++)
		pc->pos[ms->bw_order[k]] = (int)k;
	for (size_t k = 0; k < nk; k++)
		cs.slot[k] = -1;
	cst = general_constant(pc, ms, tr, at, st, en, nk);
	/* What is left is live there in every partition: the backward's own storage
	 * (its ops run, and read, in the same order whatever is recomputed) and the
	 * held storage. */
	pc->floor = fmax(pc->floor, cst);
	if (general_conjs(pc, &cs, kappa, o, at, fk) != 0)
		goto out;
	ncj = calloc(cs.n_st + 1, sizeof *ncj);
	single = calloc(cs.n_st + 1, sizeof *single);
	if (ncj == NULL || single == NULL || general_rows(pc, &cs, cst, ncj, single) != 0)
		goto out;
	pc->prow = glp_get_num_rows(pc->m->lp);
	pc->cur_op = o;
	rc = ilpi_pc_record_point(pc) == 0 ? 1 : -1;
out:
	free(st);
	free(en);
	free(cs.slot);
	free(cs.sbytes);
	free(cs.cj);
	free(ncj);
	free(single);
	return rc;
}
