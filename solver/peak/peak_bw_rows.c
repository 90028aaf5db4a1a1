/*
 * peak_bw_rows.c - the exact row at a backward step of a simulated answer
 * (peak_bw_rows.h). peak_cuts.c states the method.
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
#include "solver/peak/peak_bw_rows.h"
#include "solver/peak/peak_rows.h"

typedef struct point {
	int32_t kappa, o;         /* batch root and graph index of the op at the point */
	const ilpi_memtrace *tr;
	const ilpi_memsim *ms;
	int k;                    /* literals in the current term */
	int bad;                  /* a literal the rows cannot say */
} point;

/* X (recomputed) runs at or before the point: c(X, kappa) or c(X, kappa - 1). */
static int
lit_before(ilpi_peak_cuts *pc, point *pt, rowb *rb, int32_t x, int strict, double sign)
{
	int32_t theta = (strict ? x < pt->o : x <= pt->o) ? pt->kappa : pt->kappa - 1;
	const int *f = ilpi_pc_family_of(pc, theta);

	if (f == NULL)
		return -1;
	ilpi_pc_rb_add(pc, rb, f[x], sign);
	return 0;
}

static int
lit_runs(ilpi_peak_cuts *pc, rowb *rb, int32_t x, double sign)
{
	const int *f = ilpi_pc_family_of(pc, INF_THETA);

	if (f == NULL)
		return -1;
	ilpi_pc_rb_add(pc, rb, f[x], sign);
	return 0;
}

/* An offloadable saved x whose on-device column at the point is d (a partition may
 * have it on the host there): an op the answer recomputes at or before the point that
 * reads x's storage, else -1. */
static int32_t
early_reader(const ilpi_peak_cuts *pc, const point *pt, int32_t x)
{
	const ilp_graph *g = pc->g;
	int32_t at = pc->pos[pt->o];

	if (pc->col_o == NULL || pc->col_o[x] == 0 ||
	    ilpi_pc_saved_col_bw(pc, x, pt->kappa, pt->o) != pc->col_d[x])
		return -1;
	for (size_t u = 0; u < g->n; u++) {
		const ilpi_node *n = &g->node[u];
		const int32_t *in = ilpi_inputs(g, n);

		if (ilpi_pc_is_bw(pc, (int32_t)u) || pc->col_r[u] == 0 || pc->pos[u] < 0 ||
		    pc->pos[u] > at || pt->tr->prod[u] < 0)
			continue;
		for (uint32_t k = 0; k < n->in_count; k++)
			if (g->node[in[k]].storage == x)
				return (int32_t)u;
	}
	return -1;
}

/* The literals that say storage `key` exists through value v and is read at or after
 * the point by user u (u < 0: v is held to the end). */
static int
key_literals(ilpi_peak_cuts *pc, point *pt, rowb *rb, int32_t v, int32_t u)
{
	const ilp_graph *g = pc->g;
	const ilpi_memtrace *tr = pt->tr;
	int32_t x = v, e;

	if (u >= 0 && !ilpi_pc_is_bw(pc, u)) {
		/* u runs at or after the point: runs, and not strictly before it. */
		if (lit_runs(pc, rb, u, 1) != 0 || lit_before(pc, pt, rb, u, 1, -1) != 0)
			return -1;
		pt->k++;
	}
	for (int guard = 0; guard < 64; guard++) {
		const ilpi_node *n = &g->node[x];

		if (tr->prod[x] == -1) {
			/* a backward input: saved, owning its root's storage from the start */
			if (pc->col_s[x] == 0) {
				pt->bad = 1;
				return 0;
			}
			if ((e = early_reader(pc, pt, x)) >= 0) {
				/* offloaded or not, x is on the device from its first use on:
				 * saved and read by u at or before the point */
				ilpi_pc_rb_add(pc, rb, pc->col_s[x], 1);
				if (lit_before(pc, pt, rb, e, 0, 1) != 0)
					return -1;
				pt->k += 2;
				return 0;
			}
			if (ilpi_pc_saved_lit_bw(pc, rb, x, pt->kappa, pt->o, u, tr) != 0)
				return -1;
			pt->k++;
			return 0;
		}
		if (!ilpi_pc_is_bw(pc, x)) {
			if (lit_runs(pc, rb, x, 1) != 0)
				return -1;
			pt->k++;
		}
		if (tr->key[x] == (int32_t)g->n + x) {
			int32_t a = x;

			/* fresh storage, allocated at its step (a getitem: at its tuple's) */
			if ((n->flags & ILPI_F_GETITEM) && n->in_count == 1 &&
			    tr->prod[ilpi_inputs(g, n)[0]] >= 0 &&
			    tr->prod[ilpi_inputs(g, n)[0]] == tr->prod[x])
				a = ilpi_inputs(g, n)[0];
			if (ilpi_pc_is_bw(pc, a))
				return 0;
			if (lit_before(pc, pt, rb, a, 0, 1) != 0)
				return -1;
			pt->k++;
			return 0;
		}
		if (n->view_of != ILPI_NONE && tr->prod[n->view_of] != ABSENT &&
		    tr->key[n->view_of] == tr->key[x]) {
			x = n->view_of;
			continue;
		}
		if (n->view_of == ILPI_NONE || tr->prod[n->storage] == ABSENT) {
			pt->bad = 1;
			return 0;
		}
		/* the view's base is absent: it takes its root's storage */
		if (!ilpi_pc_is_bw(pc, n->view_of)) {
			rb->cst += 1;
			ilpi_pc_rb_add(pc, rb, pc->col_s[n->view_of], -1);
			if (lit_runs(pc, rb, n->view_of, -1) != 0)
				return -1;
			pt->k++;
		}
		x = n->storage;
	}
	pt->bad = 1;
	return 0;
}

/* The value of storage `key` (live at the point) to explain it by, and its reader at
 * or after the point (-1: held): a backward reader first, then the shortest chain. */
static int32_t
witness(const ilpi_peak_cuts *pc, const point *pt, const int32_t *vals, size_t nv,
    size_t at, int32_t *reader)
{
	const ilp_graph *g = pc->g;
	int32_t best = -1, best_u = -1;
	int best_score = INT_MAX;

	for (size_t k = 0; k < nv; k++) {
		int32_t v = vals[k];
		const ilpi_node *n = &g->node[v];
		const int32_t *use = ilpi_users(g, n);

		if (pt->tr->die[v] == HELD) {
			*reader = -1;
			return v;
		}
		if (pt->tr->die[v] < (int32_t)at)
			continue;
		for (uint32_t j = 0; j < n->use_count; j++) {
			int32_t u = use[j];
			int score;

			if (pc->pos[u] < (int32_t)at)
				continue;
			score = (ilpi_pc_is_bw(pc, u) ? 0 : 1000) + (pt->tr->key[v] == (int32_t)g->n + v ||
			    pt->tr->prod[v] == -1 ? 0 : 10);
			if (score < best_score) {
				best_score = score;
				best = v;
				best_u = u;
			}
		}
	}
	*reader = best_u;
	return best;
}

/* The peak row's terms as the storages enter it: through z columns (zc, zb: bytes) or
 * directly (dc, dv: bytes times coefficient), and its constant. */
typedef struct bw_terms {
	int *zc, *dc;
	double *zb, *dv;
	size_t nz, nd;
	double cst;
} bw_terms;

/* The k literals in rb bound a storage of b bytes live: one enters the peak row by
 * itself; more through a new z column, z >= sum(literals) - (k - 1). rb is left empty. */
static void
enter_storage(ilpi_peak_cuts *pc, rowb *rb, int k, double b, bw_terms *t)
{
	rowb z = *rb;

	if (k == 1) {
		for (int j = 1; j <= rb->len; j++) {
			int col = pc->ind[j];

			t->dc[t->nd] = col;
			t->dv[t->nd++] = b * pc->acc[col];
			pc->acc[col] = 0;
		}
		t->cst += b * rb->cst;
		rb->len = 0;
		rb->cst = 0;
		return;
	}
	t->zc[t->nz] = ilpi_pc_new_col(pc);
	t->zb[t->nz] = b;
	/* move the literal sum into z - sum >= -(k - 1) */
	for (int j = 1; j <= z.len; j++)
		pc->acc[pc->ind[j]] = -pc->acc[pc->ind[j]];
	ilpi_pc_rb_add(pc, &z, t->zc[t->nz], 1);
	z.cst = -z.cst;
	ilpi_pc_rb_emit_kept(pc, &z, GLP_LO, -(double)(k - 1));
	pc->zrow[t->nz] = glp_get_num_rows(pc->m->lp);
	pc->zcol[t->nz] = t->zc[t->nz];
	t->nz++;
	rb->len = 0;
	rb->cst = 0;
}

int
ilpi_peak_cuts_add(ilpi_peak_cuts *pc, const ilpi_memsim *ms, const ilpi_memtrace *tr,
    size_t at)
{
	const ilp_graph *g = pc->g;
	size_t nk = 2 * g->n + 1;
	int32_t *vals = NULL;
	ilpi_pc_spans sp = { NULL, NULL, NULL, NULL, 0 };
	point pt;
	rowb rb = { 0, 0 }, prow = { 0, 0 };
	bw_terms t = { NULL, NULL, NULL, NULL, 0, 0, 0 };
	int rc = -1;
	int32_t o = ms->bw_order[at];

	if (ilpi_pc_full(pc))
		return 0;
	memset(&pt, 0, sizeof pt);
	pt.kappa = tr->root[at];
	pt.o = o;
	pt.tr = tr;
	pt.ms = ms;
	/* A backward op's step exists in every partition; a recomputed op's only where it
	 * runs in that batch: then every term also says so, c(o, kappa) - c(o, kappa - 1),
	 * and the constant (storage the backward owns, outputs) is live at the next
	 * backward op anyway. */
	if (ilpi_pc_is_bw(pc, o) ? !pc->fallback && pc->kfix[o] != pt.kappa : pc->col_r[o] == 0)
		return 0;
	vals = malloc((g->n + 1) * sizeof *vals);
	t.zc = malloc((nk + 1) * sizeof *t.zc);
	t.zb = malloc((nk + 1) * sizeof *t.zb);
	t.dc = malloc((4 * nk + 1) * sizeof *t.dc);
	t.dv = malloc((4 * nk + 1) * sizeof *t.dv);
	if (ilpi_pc_spans_alloc(&sp, g) != 0 || vals == NULL ||
	    t.zc == NULL || t.zb == NULL || t.dc == NULL || t.dv == NULL)
		goto out;
	if (ilpi_pc_z_room(pc, nk) != 0)
		goto out;
	/* Every literal of this point reads one of three families: build them first, then
	 * reserve room for the row and its z columns (terms are built in place). */
	if (ilpi_pc_family_of(pc, pt.kappa) == NULL ||
	    ilpi_pc_family_of(pc, pt.kappa - 1) == NULL ||
	    ilpi_pc_family_of(pc, INF_THETA) == NULL || ilpi_pc_row_room_n(pc, nk) != 0)
		goto out;
	for (size_t k = 0; k < g->n; k++)
		pc->pos[k] = -1;
	for (size_t k = 0; k < ms->n_bw; k++)
		pc->pos[ms->bw_order[k]] = (int)k;
	ilpi_pc_spans_fill(&sp, g, tr->key, tr->prod, tr->die);
	/* The forward's outputs the caller holds: bytes whatever is saved. */
	t.cst = (double)(ms->bw_live[at]);
	/* A recomputed op's workspace (memsim counts it in its step) is there only where
	 * the op runs in this batch, as its own storage. */
	if (!ilpi_pc_is_bw(pc, o) && g->node[o].workspace > 0) {
		const int *fk = ilpi_pc_family_of(pc, pt.kappa);
		const int *fk1 = ilpi_pc_family_of(pc, pt.kappa - 1);

		t.cst -= (double)g->node[o].workspace;
		ilpi_pc_rb_add(pc, &rb, fk[o], 1);
		ilpi_pc_rb_add(pc, &rb, fk1[o], -1);
		enter_storage(pc, &rb, 1, (double)g->node[o].workspace, &t);
	}
	for (size_t key = 0; key < nk; key++) {
		int64_t b = ilpi_live_bytes(g, (int32_t)key);
		int32_t creator = key >= g->n ? (int32_t)(key - g->n) : (int32_t)key, v, u;
		size_t nv = 0;

		if (b == 0 || !ilpi_pc_spans_live(&sp, key, at))
			continue;
		if (key >= g->n && ilpi_pc_is_bw(pc, creator))
			continue; /* the backward's own storage: the same in every partition */
		if (key < g->n && (g->node[key].flags & ILPI_F_FW_OUTPUT))
			continue; /* held by the caller either way */
		if (key < g->n && pc->out_stor[key])
			continue;
		/* an offloaded value on the host there: not in the answer's bytes */
		if (ilpi_pc_resident(g, ms, 0, at, key))
			t.cst -= (double)b;
		for (int32_t w = sp.head[key]; w >= 0; w = sp.next[w])
			vals[nv++] = w;
		v = witness(pc, &pt, vals, nv, at, &u);
		if (v < 0)
			goto skip;
		pt.k = 0;
		if (key_literals(pc, &pt, &rb, v, u) != 0)
			goto out;
		if (pt.bad)
			goto skip;
		if (!ilpi_pc_is_bw(pc, o)) {
			const int *fk = ilpi_pc_family_of(pc, pt.kappa);
			const int *fk1 = ilpi_pc_family_of(pc, pt.kappa - 1);

			ilpi_pc_rb_add(pc, &rb, fk[o], 1);
			ilpi_pc_rb_add(pc, &rb, fk1[o], -1);
			pt.k++;
		}
		enter_storage(pc, &rb, pt.k, (double)b, &t);
		continue;
skip:
		/* unexplained: drop the whole row (its value would not be exact) */
		for (int j = 1; j <= rb.len; j++)
			pc->acc[pc->ind[j]] = 0;
		rc = 0;
		goto out;
	}
	ilpi_pc_rb_add(pc, &prow, pc->col_peak, 1);
	for (size_t k = 0; k < t.nz; k++)
		ilpi_pc_rb_add(pc, &prow, t.zc[k], -t.zb[k] / pc->m->byte_unit);
	for (size_t k = 0; k < t.nd; k++)
		ilpi_pc_rb_add(pc, &prow, t.dc[k], -t.dv[k] / pc->m->byte_unit);
	ilpi_pc_rb_emit_kept(pc, &prow, GLP_LO, t.cst / pc->m->byte_unit);
	pc->prow = glp_get_num_rows(pc->m->lp);
	pc->nz = t.nz;
	pc->cur_op = o;
	if (ilpi_pc_record_point(pc) != 0)
		goto out;
	rc = 1;
out:
	ilpi_pc_spans_free(&sp);
	free(vals);
	free(t.zc);
	free(t.zb);
	free(t.dc);
	free(t.dv);
	return rc;
}
