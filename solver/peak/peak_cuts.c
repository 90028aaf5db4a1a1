/*
 * peak_cuts.c - exact peak rows at the points where simulated answers peak
 * (docs/solver.md "Peak memory", "Exact rows at peak points").
 *
 * The backward's own ops run in a fixed order whatever the partition (torch 2.6's
 * autograd order over them does not depend on what is recomputed); each is placed at
 * the turn of some op (its batch root). A recomputed value X joins the batch of the
 * earliest turn that needs it: its own turn when it comes after the first tangent
 * user in graph order, a backward user's batch, or a recomputed user's batch, and
 * within a batch ops run in graph order. So "X runs, in a batch whose root is at most
 * theta" is c(X, theta), defined exactly by linear rows over the r columns:
 *   c = r when X has its own turn or a backward user within theta, else
 *   c <= r,  c >= c(J) - s and c <= sum c(J) over its recomputable users J,
 * continuous (integral whenever r is). A point (a step of the backward) is then a
 * root kappa and a graph index o; "X runs at or before it" is c(X, kappa) when X <= o,
 * c(X, kappa - 1) otherwise, and "X runs at or after it" is c(X, inf) minus the
 * strict version.
 *
 * At a simulated answer's peak step, every storage live there is live because some
 * value of it exists (a chain of views down to the saved or freshly computed value
 * that owns the storage) and some op at or after the step reads it: a conjunction of
 * such literals, all true at that answer, implies the storage is live at that step in
 * any partition. The row P >= constant + sum bytes * z, z >= sum(literals) - (k - 1)
 * is therefore a lower bound everywhere and exact at the answer. Its value at the
 * answer is checked against the simulator before the row is added.
 *
 * The rows: at a backward step peak_bw_rows.c, at a forward step peak_fw_rows.c, over
 * every partition peak_general_rows.c, what they share peak_rows.c; this file creates
 * and frees the cuts and checks a point's rows at the answer it was taken from.
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
#include "solver/peak/peak_cuts.h"
#include "solver/peak/peak_offload.h"
#include "solver/peak/peak_rows.h"

void
ilpi_peak_cuts_free(ilpi_peak_cuts *pc)
{
	if (pc == NULL)
		return;
	for (size_t k = 0; k < pc->n_fam; k++)
		free(pc->fam[k].col);
	free(pc->fam);
	free(pc->ffam);
	free(pc->col_s);
	free(pc->col_r);
	free(pc->col_o);
	free(pc->col_d);
	free(pc->off_fw_sure);
	free(pc->off_first);
	free(pc->kfix);
	free(pc->need_lo);
	free(pc->need_hi);
	free(pc->pos);
	free(pc->out_stor);
	free(pc->ind);
	free(pc->val);
	free(pc->acc);
	free(pc->zrow);
	free(pc->zcol);
	free(pc->colval);
	free(pc->pt_prow);
	free(pc->pt_z0);
	free(pc->zl_row);
	free(pc->zl_col);
	free(pc->pt_nz);
	free(pc->pt_op);
	free(pc->kept_at);
	free(pc->kept_len);
	free(pc->kept_ind);
	free(pc->kept_val);
	free(pc);
}

/* The backward ops' fixed order and batch roots: the backward of "recompute nothing". */
static int
fixed_order(ilpi_peak_cuts *pc)
{
	const ilp_graph *g = pc->g;
	ilpi_side bw;
	uint8_t *need = calloc(g->n + 1, 1);
	int32_t *order = NULL, *root = NULL;
	int rc = -1;

	memset(&bw, 0, sizeof bw);
	bw.op = malloc((g->n + 1) * sizeof *bw.op);
	order = malloc((g->n + 1) * sizeof *order);
	root = malloc((g->n + 1) * sizeof *root);
	if (need == NULL || bw.op == NULL || order == NULL || root == NULL)
		goto out;
	ilpi_backward_needed(g, need);
	for (size_t i = 0; i < g->n; i++)
		if (need[i] && g->node[i].cls == ILPI_BACKWARD && g->node[i].kind == ILPI_OP)
			bw.op[bw.n_op++] = (int32_t)i;
	bw.out = (int32_t *)g->bw_out;
	bw.n_out = g->n_bw_out;
	if (ilpi_autograd_batches(g, &bw, order, root) != 0)
		goto out;
	pc->fallback = 1;
	for (size_t k = 0; k < bw.n_op; k++) {
		pc->kfix[order[k]] = root[k];
		if (root[k] != 0)
			pc->fallback = 0;
	}
	pc->first = INT32_MAX;
	for (size_t k = 0; k < bw.n_op && pc->first == INT32_MAX; k++) {
		const ilpi_node *n = &g->node[bw.op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		for (uint32_t j = 0; j < n->in_count; j++)
			if (g->node[in[j]].kind == ILPI_TANGENT)
				pc->first = bw.op[k];
	}
	rc = 0;
out:
	free(need);
	free(bw.op);
	free(order);
	free(root);
	return rc;
}

/* The batch roots a value can run in, whatever the partition: a recomputed X runs in
 * the batch of the earliest turn that needs it, which is the batch of a backward op
 * reached from X through its users, or the own turn of X or of a user on the way (an
 * op after the first tangent user). Every user counts, run in the backward or not:
 * the range can only be too wide. */
static int
need_range(ilpi_peak_cuts *pc)
{
	const ilp_graph *g = pc->g;

	pc->need_lo = malloc((g->n + 1) * sizeof *pc->need_lo);
	pc->need_hi = malloc((g->n + 1) * sizeof *pc->need_hi);
	if (pc->need_lo == NULL || pc->need_hi == NULL)
		return -1;
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *use = ilpi_users(g, n);
		int32_t lo = INT32_MAX, hi = INT32_MIN;

		if ((int32_t)i > pc->first)
			lo = hi = (int32_t)i;
		for (uint32_t k = 0; k < n->use_count; k++) {
			int32_t u = use[k], ulo = pc->need_lo[u], uhi = pc->need_hi[u];

			if (pc->kfix[u] >= 0)
				ulo = uhi = pc->kfix[u];
			if (ulo < lo)
				lo = ulo;
			if (uhi > hi)
				hi = uhi;
		}
		pc->need_lo[i] = lo;
		pc->need_hi[i] = hi;
	}
	return 0;
}

/* --offload free: per offloadable rep its o column, a new d = s - o column (continuous,
 * integral with s and o), its forward sure window and its first backward-class reader
 * (peak_offload.h). Nothing without offload columns. */
static int
offload_cols(ilpi_peak_cuts *pc)
{
	const ilp_graph *g = pc->g;
	ilpi_model *m = pc->m;
	const ilpi_reduced *red = m->red;
	rowb rb = { 0, 0 };

	if (m->col_o == NULL)
		return 0;
	pc->col_o = calloc(g->n + 1, sizeof *pc->col_o);
	pc->col_d = calloc(g->n + 1, sizeof *pc->col_d);
	pc->off_fw_sure = malloc((g->n + 1) * sizeof *pc->off_fw_sure);
	pc->off_first = malloc((g->n + 1) * sizeof *pc->off_first);
	if (pc->col_o == NULL || pc->col_d == NULL || pc->off_fw_sure == NULL ||
	    pc->off_first == NULL || ilpi_pc_row_room_n(pc, 4) != 0)
		return -1;
	for (size_t i = 0; i < g->n; i++)
		pc->off_first[i] = -1;
	for (size_t it = 0; it < red->n_items; it++) {
		int32_t v = red->item[it].rep;
		int d;

		if (m->col_o[it] == 0)
			continue;
		pc->col_o[v] = m->col_o[it];
		if (m->col_d[it] == 0) {
			d = m->col_d[it] = glp_add_cols(m->lp, 1);
			glp_set_col_kind(m->lp, d, GLP_CV);
			glp_set_col_bnds(m->lp, d, GLP_DB, 0, 1);
			if (ilpi_pc_row_room_n(pc, 4) != 0)
				return -1;
			ilpi_pc_rb_add(pc, &rb, d, 1);
			ilpi_pc_rb_add(pc, &rb, m->col_s[it], -1);
			ilpi_pc_rb_add(pc, &rb, m->col_o[it], 1);
			ilpi_pc_rb_emit(pc, &rb, GLP_FX, 0);
		}
		pc->col_d[v] = m->col_d[it];
		pc->off_fw_sure[v] = ilpi_pc_off_fw_sure(g, m, it);
	}
	for (size_t q = 0; q < g->n; q++) {
		const ilpi_node *n = &g->node[q];
		const int32_t *in = ilpi_inputs(g, n);

		if (pc->kfix[q] < 0)
			continue;
		for (uint32_t k = 0; k < n->in_count; k++) {
			int32_t r = g->node[in[k]].storage, f;

			if (r < 0 || pc->col_o[r] == 0)
				continue;
			f = pc->off_first[r];
			if (f < 0 || pc->kfix[q] < pc->kfix[f] ||
			    (pc->kfix[q] == pc->kfix[f] && (int32_t)q < f))
				pc->off_first[r] = (int32_t)q;
		}
	}
	pc->off_r_all = ilpi_pc_off_recompute_all(g, m);
	return 0;
}

int
ilpi_peak_cuts_new(const ilp_graph *g, ilpi_model *m, int col_peak, ilpi_peak_cuts **out)
{
	ilpi_peak_cuts *pc = calloc(1, sizeof *pc);
	const ilpi_reduced *red = m->red;

	*out = NULL;
	if (pc == NULL)
		return -1;
	pc->g = g;
	pc->m = m;
	pc->col_peak = col_peak;
	pc->col_s = calloc(g->n + 1, sizeof *pc->col_s);
	pc->col_r = calloc(g->n + 1, sizeof *pc->col_r);
	pc->kfix = malloc((g->n + 1) * sizeof *pc->kfix);
	pc->pos = malloc((g->n + 1) * sizeof *pc->pos);
	pc->out_stor = calloc(g->n + 1, 1);
	if (pc->col_s == NULL || pc->col_r == NULL || pc->kfix == NULL || pc->pos == NULL ||
	    pc->out_stor == NULL)
		goto fail;
	for (size_t k = 0; k < g->n_fw_out; k++)
		pc->out_stor[g->node[g->fw_out[k]].storage] = 1;
	for (size_t i = 0; i < g->n; i++) {
		int32_t it = red->item_of[i];

		pc->kfix[i] = -1;
		pc->pos[i] = -1;
		if (it < 0 || !red->cand[i])
			continue;
		if (red->item[it].rep == (int32_t)i)
			pc->col_s[i] = m->col_s[it];
		pc->col_r[i] = m->col_r[it];
	}
	if (fixed_order(pc) != 0 || need_range(pc) != 0 || offload_cols(pc) != 0)
		goto fail;
	*out = pc;
	return 0;
fail:
	ilpi_peak_cuts_free(pc);
	return -1;
}

int
ilpi_peak_cuts_refused(const ilpi_peak_cuts *pc)
{
	return pc->refused;
}

double
ilpi_peak_cuts_floor(const ilpi_peak_cuts *pc)
{
	return pc->floor;
}

void
ilpi_peak_cuts_stats(const ilpi_peak_cuts *pc, int *rows, int *cols, int *points)
{
	*rows = pc->rows;
	*cols = pc->cols;
	*points = pc->points;
}

/* ---- exactness at the answer a point was taken from ---------------------------- */

/* Value of row `row` without column `skip`, at pc->colval. */
static double
row_value(ilpi_peak_cuts *pc, int row, int skip, double *coef_skip)
{
	const int *ind = pc->ind + 1;
	const double *val = pc->val + 1;
	double sum = 0;
	int len, k, step = 1;

	if ((size_t)row < pc->n_kept_at && pc->kept_at[row] != 0) {
		/* in GLPK's order (it lists a row's last element first): the same sum */
		ind = pc->kept_ind + pc->kept_at[row] - 1;
		val = pc->kept_val + pc->kept_at[row] - 1;
		len = pc->kept_len[row];
		step = -1;
	} else {
		len = glp_get_mat_row(pc->m->lp, row, pc->ind, pc->val);
	}
	*coef_skip = 0;
	for (int j = 0; j < len; j++) {
		k = step > 0 ? j : len - 1 - j;
		if (ind[k] == skip)
			*coef_skip = val[k];
		else
			sum += val[k] * pc->colval[ind[k]];
	}
	return sum;
}

int
ilpi_peak_cuts_eval(ilpi_peak_cuts *pc, const uint8_t *s, const uint8_t *r)
{
	const ilp_graph *g = pc->g;
	const ilpi_model *m = pc->m;
	const ilpi_reduced *red = m->red;
	size_t nc = (size_t)glp_get_num_cols(m->lp) + 1;

	if (nc > pc->cap_val) {
		free(pc->colval);
		if ((pc->colval = malloc(2 * nc * sizeof *pc->colval)) == NULL) {
			pc->cap_val = 0;
			return -1;
		}
		pc->cap_val = 2 * nc;
	}
	if (ilpi_pc_row_room(pc) != 0)
		return -1;
	memset(pc->colval, 0, nc * sizeof *pc->colval);
	for (size_t it = 0; it < red->n_items; it++) {
		if (m->col_s[it])
			pc->colval[m->col_s[it]] = s[it] != 0;
		if (m->col_o != NULL && m->col_o[it]) {
			pc->colval[m->col_o[it]] = ilpi_model_offloaded(m, s, it);
			if (m->col_d[it])
				pc->colval[m->col_d[it]] = s[it] != 0 &&
				    !ilpi_model_offloaded(m, s, it);
		}
		if (m->col_r[it])
			pc->colval[m->col_r[it]] = r[it];
		if (s[it] && red->item[it].stor >= 0 && m->col_y[red->item[it].stor])
			pc->colval[m->col_y[red->item[it].stor]] = 1;
	}
	/* f(X) by its definition */
	for (size_t i = g->n; pc->ffam != NULL && i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *use = ilpi_users(g, n);
		int c = pc->ffam[i], any = 0;

		if (c == 0 || c == pc->col_s[i])
			continue;
		for (uint32_t k = 0; k < n->use_count; k++)
			any |= g->node[use[k]].cls == ILPI_UNCLAIMED && pc->ffam[use[k]] != 0 &&
			    pc->colval[pc->ffam[use[k]]] > 0.5;
		pc->colval[c] = pc->colval[pc->col_s[i]] > 0.5 || any;
	}
	/* c(X, theta) by its definition (c(X, inf) first: other families share it) */
	for (size_t f = 0; f < pc->n_fam; f++) {
		const family *fa = &pc->fam[f];
		const int *inf = NULL;

		for (size_t k = 0; k < f && !pc->fallback; k++)
			if (pc->fam[k].theta == INF_THETA)
				inf = pc->fam[k].col;

		for (size_t i = g->n; i-- > 0;) {
			const ilpi_node *n = &g->node[i];
			const int32_t *use = ilpi_users(g, n);
			int c = fa->col[i], any = 0;

			/* an own turn within theta shares c(X, inf), evaluated before */
			if (c == 0 || c == pc->col_r[i] || (inf != NULL && c == inf[i]) ||
			    (fa->theta != INF_THETA &&
			    !pc->fallback && (int32_t)i > pc->first && (int32_t)i <= fa->theta))
				continue;
			for (uint32_t k = 0; k < n->use_count; k++)
				any |= pc->kfix[use[k]] < 0 && fa->col[use[k]] != 0 &&
				    pc->colval[fa->col[use[k]]] > 0.5;
			pc->colval[c] = pc->colval[pc->col_r[i]] > 0.5 && any;
		}
	}
	return 0;
}

int32_t
ilpi_peak_cuts_point_op(const ilpi_peak_cuts *pc, int k)
{
	return pc->pt_op[k];
}

int
ilpi_peak_cuts_point_row(const ilpi_peak_cuts *pc, int k)
{
	return pc->pt_prow[k];
}

double
ilpi_peak_cuts_point_value(ilpi_peak_cuts *pc, int k)
{
	/* zl_row/zl_col stay NULL while no point has a literal: no NULL + 0 */
	const int *zr = pc->pt_nz[k] > 0 ? pc->zl_row + pc->pt_z0[k] : NULL;
	const int *zc = pc->pt_nz[k] > 0 ? pc->zl_col + pc->pt_z0[k] : NULL;
	double coef, p;

	for (int j = 0; j < pc->pt_nz[k]; j++)
		pc->colval[zc[j]] = 0;
	for (int j = 0; j < pc->pt_nz[k]; j++) {
		double v = row_value(pc, zr[j], zc[j], &coef);
		double lb = glp_get_row_lb(pc->m->lp, zr[j]);

		if (lb - v > 0 && (lb - v) / coef > pc->colval[zc[j]])
			pc->colval[zc[j]] = (lb - v) / coef;
	}
	p = glp_get_row_lb(pc->m->lp, pc->pt_prow[k]) -
	    row_value(pc, pc->pt_prow[k], pc->col_peak, &coef);
	return p * pc->m->byte_unit;
}

int
ilpi_peak_cuts_exact(ilpi_peak_cuts *pc, const uint8_t *s, const uint8_t *r,
    const ilpi_memsim *ms, const ilpi_memtrace *tr, int fw, size_t at, int *families_ok)
{
	const ilp_graph *g = pc->g;

	*families_ok = 1;
	if (ilpi_peak_cuts_eval(pc, s, r) != 0)
		return -1;
	for (size_t k = 0; k < g->n; k++)
		pc->pos[k] = -1;
	for (size_t k = 0; k < ms->n_bw; k++)
		pc->pos[ms->bw_order[k]] = (int)k;
	/* ... and against where the simulator placed X */
	for (size_t f = 0; f < pc->n_fam; f++) {
		const family *fa = &pc->fam[f];

		for (size_t i = 0; i < g->n; i++) {
			int c = fa->col[i], truth;

			if (pc->col_r[i] == 0 || ilpi_pc_is_bw(pc, (int32_t)i))
				continue;
			truth = pc->pos[i] >= 0 && tr->prod[i] != -1 &&
			    (pc->fallback ? fa->theta >= 0 : tr->root[pc->pos[i]] <= fa->theta);
			if ((c != 0 && pc->colval[c] > 0.5) != truth)
				*families_ok = 0;
		}
	}
	for (size_t i = 0; pc->ffam != NULL && i < g->n; i++)
		if (pc->ffam[i] != 0 && (pc->colval[pc->ffam[i]] > 0.5) !=
		    (tr->fprod[i] != ABSENT))
			*families_ok = 0;
	return ilpi_peak_cuts_point_value(pc, pc->points - 1) >=
	    (double)(fw ? ms->fw_live[at] : ms->bw_live[at]) - 0.5 ? 1 : 0;
}
