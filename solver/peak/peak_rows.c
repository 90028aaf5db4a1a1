/*
 * peak_rows.c - what the peak rows of every kind share (peak_rows.h).
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
#include "solver/peak/peak_rows.h"

int
ilpi_pc_full(ilpi_peak_cuts *pc)
{
	if (pc->rows < PEAK_CUT_ROWS_MAX)
		return 0;
	pc->refused++;
	return 1;
}

/* Remembers the last point's rows (pc->prow, pc->zrow/zcol, pc->nz: each z row and
 * its z column; a z column may come with several rows). */
int
ilpi_pc_record_point(ilpi_peak_cuts *pc)
{
	if ((size_t)pc->points == pc->cap_pt) {
		size_t cap = pc->cap_pt ? 2 * pc->cap_pt : 16;
		int *a = realloc(pc->pt_prow, cap * sizeof *a), *b, *d;
		int32_t *e;

		if (a != NULL)
			pc->pt_prow = a;
		b = realloc(pc->pt_z0, cap * sizeof *b);
		if (b != NULL)
			pc->pt_z0 = b;
		d = realloc(pc->pt_nz, cap * sizeof *d);
		if (d != NULL)
			pc->pt_nz = d;
		e = realloc(pc->pt_op, cap * sizeof *e);
		if (e != NULL)
			pc->pt_op = e;
		if (a == NULL || b == NULL || d == NULL || e == NULL)
			return -1;
		pc->cap_pt = cap;
	}
	if (pc->n_zl + pc->nz > pc->cap_zl) {
		size_t cap = 2 * (pc->n_zl + pc->nz) + 64;
		int *a = realloc(pc->zl_row, cap * sizeof *a), *b;

		if (a != NULL)
			pc->zl_row = a;
		b = realloc(pc->zl_col, cap * sizeof *b);
		if (b != NULL)
			pc->zl_col = b;
		if (a == NULL || b == NULL)
			return -1;
		pc->cap_zl = cap;
	}
	if (pc->nz > 0) { /* else zl_row may still be NULL: no NULL + 0 */
		memcpy(pc->zl_row + pc->n_zl, pc->zrow, pc->nz * sizeof *pc->zrow);
		memcpy(pc->zl_col + pc->n_zl, pc->zcol, pc->nz * sizeof *pc->zcol);
	}
	pc->pt_prow[pc->points] = pc->prow;
	pc->pt_z0[pc->points] = (int)pc->n_zl;
	pc->pt_nz[pc->points] = (int)pc->nz;
	pc->pt_op[pc->points] = pc->cur_op;
	pc->n_zl += pc->nz;
	pc->points++;
	return 0;
}

/* Room for n z rows of the point being built (pc->zrow, pc->zcol), none recorded yet
 * (pc->nz = 0). -1: out of memory. */
int
ilpi_pc_z_room(ilpi_peak_cuts *pc, size_t n)
{
	pc->nz = 0;
	if (pc->cap_z < n + 1) {
		free(pc->zrow);
		free(pc->zcol);
		pc->zrow = malloc((n + 1) * sizeof *pc->zrow);
		pc->zcol = malloc((n + 1) * sizeof *pc->zcol);
		pc->cap_z = pc->zrow && pc->zcol ? n + 1 : 0;
		if (pc->cap_z == 0)
			return -1;
	}
	return 0;
}

/* ---- rows with merged coefficients --------------------------------------------- */

int
ilpi_pc_row_room_n(ilpi_peak_cuts *pc, size_t extra)
{
	size_t need = (size_t)glp_get_num_cols(pc->m->lp) + 2 + extra;

	if (need <= pc->cap_row)
		return 0;
	need *= 2;
	free(pc->ind);
	free(pc->val);
	free(pc->acc);
	pc->ind = malloc(need * sizeof *pc->ind);
	pc->val = malloc(need * sizeof *pc->val);
	pc->acc = calloc(need, sizeof *pc->acc);
	pc->cap_row = pc->ind && pc->val && pc->acc ? need : 0;
	return pc->cap_row ? 0 : -1;
}

int
ilpi_pc_row_room(ilpi_peak_cuts *pc)
{
	return ilpi_pc_row_room_n(pc, 0);
}

void
ilpi_pc_rb_add(ilpi_peak_cuts *pc, rowb *rb, int col, double coef)
{
	if (col == 0) {
		return;
	}
	if (pc->acc[col] == 0)
		pc->ind[++rb->len] = col;
	pc->acc[col] += coef;
	if (pc->acc[col] == 0)
		pc->acc[col] = 1e-300; /* keep its slot; dropped when written */
}

/* Keeps a copy of row `row` (pc->ind/val[1..len]) for row_value: evaluating the
 * points' rows through glp_get_mat_row was 28 % of a peak solve's CPU on an op with
 * 20,000 inputs. Out of memory: not kept (row_value asks GLPK). */
static void
keep_row(ilpi_peak_cuts *pc, int row, int len)
{
	size_t need = (size_t)row + 1;

	if (need > pc->cap_kept_at) {
		size_t cap = 2 * need + 64, *a = realloc(pc->kept_at, cap * sizeof *a);
		int *b;

		if (a == NULL)
			return;
		pc->kept_at = a;
		if ((b = realloc(pc->kept_len, cap * sizeof *b)) == NULL)
			return;
		pc->kept_len = b;
		pc->cap_kept_at = cap;
	}
	while (pc->n_kept_at < need)
		pc->kept_at[pc->n_kept_at++] = 0;
	if (pc->n_kept + (size_t)len > pc->cap_kept) {
		size_t cap = 2 * (pc->n_kept + (size_t)len) + 1024;
		int *a = realloc(pc->kept_ind, cap * sizeof *a);
		double *b;

		if (a == NULL)
			return;
		pc->kept_ind = a;
		if ((b = realloc(pc->kept_val, cap * sizeof *b)) == NULL)
			return;
		pc->kept_val = b;
		pc->cap_kept = cap;
	}
	memcpy(pc->kept_ind + pc->n_kept, pc->ind + 1, (size_t)len * sizeof *pc->ind);
	memcpy(pc->kept_val + pc->n_kept, pc->val + 1, (size_t)len * sizeof *pc->val);
	pc->kept_at[row] = pc->n_kept + 1;
	pc->kept_len[row] = len;
	pc->n_kept += (size_t)len;
}

/* Writes sum(expression) (type GLP_LO/GLP_UP against bound - cst) and clears; keep:
 * a point's row (keep_row). */
static void
rb_emit_row(ilpi_peak_cuts *pc, rowb *rb, int type, double bound, int keep)
{
	int len = 0, row;

	for (int k = 1; k <= rb->len; k++) {
		int col = pc->ind[k];
		double v = pc->acc[col];

		pc->acc[col] = 0;
		if (v > 1e-200 || v < -1e-200) {
			pc->ind[++len] = col;
			pc->val[len] = v;
		}
	}
	row = glp_add_rows(pc->m->lp, 1);
	glp_set_mat_row(pc->m->lp, row, len, pc->ind, pc->val);
	glp_set_row_bnds(pc->m->lp, row, type, type == GLP_LO ? bound - rb->cst : 0,
	    type == GLP_UP ? bound - rb->cst : 0);
	if (keep)
		keep_row(pc, row, len);
	pc->rows++;
	rb->len = 0;
	rb->cst = 0;
}

void
ilpi_pc_rb_emit(ilpi_peak_cuts *pc, rowb *rb, int type, double bound)
{
	rb_emit_row(pc, rb, type, bound, 0);
}

/* A point's row (its P row or a z row): kept for row_value. */
void
ilpi_pc_rb_emit_kept(ilpi_peak_cuts *pc, rowb *rb, int type, double bound)
{
	rb_emit_row(pc, rb, type, bound, 1);
}

int
ilpi_pc_new_col(ilpi_peak_cuts *pc)
{
	int col = glp_add_cols(pc->m->lp, 1);

	glp_set_col_kind(pc->m->lp, col, GLP_CV);
	glp_set_col_bnds(pc->m->lp, col, GLP_DB, 0, 1);
	pc->cols++;
	return col;
}

/* ---- c(X, theta) --------------------------------------------------------------- */

static int
has_turn(const ilpi_peak_cuts *pc, int32_t v, int32_t theta)
{
	const ilp_graph *g = pc->g;
	const ilpi_node *n = &g->node[v];
	const int32_t *use = ilpi_users(g, n);

	if (pc->fallback && theta < 0)
		return 0; /* one batch at root 0: nothing runs before it */
	for (uint32_t k = 0; k < n->use_count; k++)
		if (pc->kfix[use[k]] >= 0 && (pc->fallback || pc->kfix[use[k]] <= theta))
			return 1;
	return 0;
}

const int *
ilpi_pc_family_of(ilpi_peak_cuts *pc, int32_t theta)
{
	const ilp_graph *g = pc->g;
	family *f;
	const int *inf = NULL;
	rowb rb = { 0, 0 };

	for (size_t k = 0; k < pc->n_fam; k++)
		if (pc->fam[k].theta == theta)
			return pc->fam[k].col;
	/* Own turns (below) read c(X, inf): that family comes first. */
	if (theta != INF_THETA && !pc->fallback && ilpi_pc_family_of(pc, INF_THETA) == NULL)
		return NULL;
	for (size_t k = 0; k < pc->n_fam && !pc->fallback && theta != INF_THETA; k++)
		if (pc->fam[k].theta == INF_THETA)
			inf = pc->fam[k].col;
	if (ILPI_GROW(pc->fam, pc->cap_fam, pc->n_fam, 1) != 0)
		return NULL;
	f = &pc->fam[pc->n_fam];
	f->theta = theta;
	if ((f->col = calloc(g->n + 1, sizeof *f->col)) == NULL)
		return NULL;
	pc->n_fam++;
	/* Users come after their inputs: one reverse sweep. */
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *use = ilpi_users(g, n);
		int any = 0, c;

		if (pc->col_r[i] == 0)
			continue;
		/* It can run only in batches after theta: never by then; only in batches
		 * within theta: by then whenever it runs at all. */
		if (inf != NULL && pc->need_lo[i] > theta)
			continue;
		if (inf != NULL && pc->need_hi[i] <= theta) {
			f->col[i] = inf[i];
			continue;
		}
		/* Its own turn within theta: placed by then whenever it runs at all. */
		if (inf != NULL && (int32_t)i > pc->first && (int32_t)i <= theta) {
			f->col[i] = inf[i];
			continue;
		}
		if (has_turn(pc, (int32_t)i, theta)) {
			f->col[i] = pc->col_r[i];
			continue;
		}
		for (uint32_t k = 0; k < n->use_count; k++)
			any |= pc->kfix[use[k]] < 0 && f->col[use[k]] != 0;
		if (!any)
			continue;
		if (ilpi_pc_row_room(pc) != 0)
			return NULL;
		c = f->col[i] = ilpi_pc_new_col(pc);
		if (ilpi_pc_row_room(pc) != 0)
			return NULL;
		ilpi_pc_rb_add(pc, &rb, c, 1);
		ilpi_pc_rb_add(pc, &rb, pc->col_r[i], -1);
		ilpi_pc_rb_emit(pc, &rb, GLP_UP, 0);
		ilpi_pc_rb_add(pc, &rb, c, 1);
		for (uint32_t k = 0; k < n->use_count; k++) {
			int cj = pc->kfix[use[k]] < 0 ? f->col[use[k]] : 0;

			if (cj == 0)
				continue;
			ilpi_pc_rb_add(pc, &rb, cj, -1);
		}
		ilpi_pc_rb_emit(pc, &rb, GLP_UP, 0);
		/* A placed user needs X placed too, unless X is saved (then not recomputed):
		 * c >= c(J) - s, which dominates c >= c(J) + r - 1 as s + r <= 1. */
		for (uint32_t k = 0; k < n->use_count; k++) {
			int cj = pc->kfix[use[k]] < 0 ? f->col[use[k]] : 0;

			if (cj == 0)
				continue;
			ilpi_pc_rb_add(pc, &rb, c, 1);
			ilpi_pc_rb_add(pc, &rb, cj, -1);
			ilpi_pc_rb_add(pc, &rb, pc->col_s[i], 1);
			ilpi_pc_rb_emit(pc, &rb, GLP_LO, 0);
		}
	}
	return f->col;
}

/* ---- steps and storages ---------------------------------------------------------- */

/* Is v a backward op (it has a batch root)? */
int
ilpi_pc_is_bw(const ilpi_peak_cuts *pc, int32_t v)
{
	return pc->kfix[v] >= 0;
}

/* Each storage key's span over the steps of one side: st[key] the first step a value
 * with that key is produced, en[key] the last step one is needed (ABSENT when no value
 * has the key). With head and next, also the values of each key as a list. */
void
ilpi_pc_storage_spans(size_t n, const int32_t *key, const int32_t *prod,
    const int32_t *die, size_t nk, int32_t *st, int32_t *en, int32_t *head,
    int32_t *next)
{
	for (size_t k = 0; k < nk; k++) {
		st[k] = en[k] = ABSENT;
		if (head != NULL)
			head[k] = -1;
	}
	for (size_t v = 0; v < n; v++) {
		int32_t kv = key[v];

		if (prod[v] == ABSENT)
			continue;
		if (st[kv] == ABSENT || prod[v] < st[kv])
			st[kv] = prod[v];
		if (en[kv] == ABSENT || die[v] > en[kv])
			en[kv] = die[v];
		if (head != NULL) {
			next[v] = head[kv];
			head[kv] = (int32_t)v;
		}
	}
}

int
ilpi_pc_spans_alloc(ilpi_pc_spans *sp, const ilp_graph *g)
{
	size_t nk = 2 * g->n + 1;

	sp->nk = nk;
	sp->st = malloc(nk * sizeof *sp->st);
	sp->en = malloc(nk * sizeof *sp->en);
	sp->head = malloc(nk * sizeof *sp->head);
	sp->next = malloc((g->n + 1) * sizeof *sp->next);
	return sp->st != NULL && sp->en != NULL && sp->head != NULL && sp->next != NULL ?
	    0 : -1;
}

void
ilpi_pc_spans_fill(ilpi_pc_spans *sp, const ilp_graph *g, const int32_t *key,
    const int32_t *prod, const int32_t *die)
{
	ilpi_pc_storage_spans(g->n, key, prod, die, sp->nk, sp->st, sp->en, sp->head,
	    sp->next);
}

int
ilpi_pc_spans_live(const ilpi_pc_spans *sp, size_t key, size_t at)
{
	return !(sp->st[key] == ABSENT || sp->st[key] > (int32_t)at ||
	    sp->en[key] < (int32_t)at);
}

void
ilpi_pc_spans_free(ilpi_pc_spans *sp)
{
	free(sp->st);
	free(sp->en);
	free(sp->head);
	free(sp->next);
	memset(sp, 0, sizeof *sp);
}

/* ---- offloaded values (peak_offload.h) ------------------------------------------ */

int
ilpi_pc_saved_col_fw(const ilpi_peak_cuts *pc, int32_t x, int32_t o)
{
	if (pc->col_o == NULL || pc->col_o[x] == 0 || o <= pc->off_fw_sure[x])
		return pc->col_s[x];
	return pc->col_d[x];
}

/* (kappa, o) before (kb, ob) in the backward's order: batch roots, then graph order. */
static int
bw_before(int32_t kappa, int32_t o, int32_t kb, int32_t ob)
{
	return kappa != kb ? kappa < kb : o < ob;
}

int
ilpi_pc_saved_col_bw(const ilpi_peak_cuts *pc, int32_t x, int32_t kappa, int32_t o)
{
	const ilp_graph *g = pc->g;
	const ilpi_model *m = pc->m;
	int32_t f, it;
	double acc;

	if (pc->col_o == NULL || pc->col_o[x] == 0)
		return pc->col_s[x];
	f = pc->off_first[x];
	if (f < 0)
		return pc->col_d[x];
	if (!bw_before(kappa, o, pc->kfix[f], f))
		return pc->col_s[x]; /* at or after its first backward-class reader */
	/* before it: sure when even every op that may be recomputed, with the backward's
	 * own strictly between the step and that reader, takes less than the copy */
	it = m->red->item_of[x];
	acc = pc->off_r_all;
	for (size_t q = 0; q < g->n && acc < m->off_xfer[it]; q++)
		if (pc->kfix[q] >= 0 && bw_before(kappa, o, pc->kfix[q], (int32_t)q) &&
		    bw_before(pc->kfix[q], (int32_t)q, pc->kfix[f], f))
			acc += q < m->n_nodes ? m->node_us[q] : 0;
	return acc < m->off_xfer[it] ? pc->col_s[x] : pc->col_d[x];
}

int
ilpi_pc_resident(const ilp_graph *g, const ilpi_memsim *ms, int fw, size_t at, size_t key)
{
	for (size_t j = 0; j < ms->n_xfer; j++) {
		const ilpi_xfer *x = &ms->xfer[j];

		if (fw && key == g->n + (size_t)x->node)
			return (int32_t)at < x->fw_gone;
		if (!fw && key == (size_t)x->node)
			return (int32_t)at >= x->bw_back;
	}
	return 1;
}

/* Can recomputed op q run strictly between the steps (kappa, o) and (fk, fo) in some
 * partition? It runs in a batch between need_lo and need_hi, in graph order there. */
static int
between(const ilpi_peak_cuts *pc, int32_t q, int32_t kappa, int32_t o, int32_t fk,
    int32_t fo)
{
	return pc->need_lo[q] != INT32_MAX && bw_before(kappa, o, pc->need_hi[q], q) &&
	    bw_before(pc->need_lo[q], q, fk, fo);
}

int
ilpi_pc_saved_lit_bw(ilpi_peak_cuts *pc, rowb *rb, int32_t x, int32_t kappa, int32_t o,
    int32_t u, const ilpi_memtrace *tr)
{
	const ilp_graph *g = pc->g;
	const ilpi_model *m = pc->m;
	int col = ilpi_pc_saved_col_bw(pc, x, kappa, o);
	int32_t f = pc->col_o != NULL ? pc->off_first[x] : -1, fk = INT32_MAX, fo = INT32_MAX;
	int32_t it;
	double acc = 0;

	if (pc->col_o == NULL || col != pc->col_d[x]) {
		ilpi_pc_rb_add(pc, rb, col, 1);
		return 0;
	}
	/* (fk, fo): x's first use in the backward is at or before it in every partition
	 * where the literal's reader u runs: x's first backward-class reader, or the end
	 * of the last batch u can run in */
	if (f >= 0) {
		fk = pc->kfix[f];
		fo = f;
	}
	if (u >= 0 && !ilpi_pc_is_bw(pc, u) && pc->need_hi[u] != INT32_MIN &&
	    bw_before(pc->need_hi[u], INT32_MAX, fk, fo)) {
		fk = pc->need_hi[u];
		fo = INT32_MAX;
	}
	if (fk == INT32_MAX) {
		ilpi_pc_rb_add(pc, rb, col, 1);
		return 0;
	}
	/* Before that, where a partition may still have x on the host: with the ops the
	 * answer recomputes that could run between the step and (fk, fo) (A), the compute
	 * there and the backward's own is below the copy's time, so x is on the device in
	 * every partition that saves it, runs u and recomputes no other op that could run
	 * there: s_x - the sum of those others' r (<= 0 when one is). */
	it = m->red->item_of[x];
	for (size_t q = 0; q < g->n && acc < m->off_xfer[it]; q++) {
		int bw = pc->kfix[q] >= 0;

		if (bw ? bw_before(kappa, o, pc->kfix[q], (int32_t)q) &&
		    bw_before(pc->kfix[q], (int32_t)q, fk, fo) :
		    pc->col_r[q] != 0 && tr->prod[q] >= 0 &&
		    between(pc, (int32_t)q, kappa, o, fk, fo))
			acc += q < m->n_nodes ? m->node_us[q] : 0;
	}
	if (!(acc < m->off_xfer[it])) {
		ilpi_pc_rb_add(pc, rb, col, 1);
		return 0;
	}
	ilpi_pc_rb_add(pc, rb, pc->col_s[x], 1);
	for (size_t q = 0; q < g->n; q++)
		if (pc->kfix[q] < 0 && pc->col_r[q] != 0 && tr->prod[q] < 0 &&
		    q < m->n_nodes && m->node_us[q] > 0 &&
		    between(pc, (int32_t)q, kappa, o, fk, fo))
			ilpi_pc_rb_add(pc, rb, pc->col_r[q], -1);
	return 0;
}
