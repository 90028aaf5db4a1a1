/*
 * peak_fw_rows.c - the exact row at a forward step of a simulated answer
 * (peak_fw_rows.h). peak_cuts.c states the method.
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
#include "solver/peak/peak_fw_rows.h"
#include "solver/peak/peak_rows.h"

/* Forward ops run in graph order; a forward-class op always runs there, an unclaimed
 * one when a saved value needs it: f(X) >= s_X, f(X) >= f(J), f(X) <= s_X + sum f(J)
 * over its unclaimed users J. */
static int
fw_family(ilpi_peak_cuts *pc)
{
	const ilp_graph *g = pc->g;
	rowb rb = { 0, 0 };

	if (pc->ffam != NULL)
		return 0;
	if ((pc->ffam = calloc(g->n + 1, sizeof *pc->ffam)) == NULL)
		return -1;
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *use = ilpi_users(g, n);
		int any = 0, c;

		if (n->cls != ILPI_UNCLAIMED || n->kind != ILPI_OP)
			continue;
		for (uint32_t k = 0; k < n->use_count; k++)
			any |= pc->ffam[use[k]] != 0 && g->node[use[k]].cls == ILPI_UNCLAIMED;
		if (!any) {
			pc->ffam[i] = pc->col_s[i];
			continue;
		}
		if (ilpi_pc_row_room(pc) != 0)
			return -1;
		c = pc->ffam[i] = ilpi_pc_new_col(pc);
		if (ilpi_pc_row_room(pc) != 0)
			return -1;
		ilpi_pc_rb_add(pc, &rb, c, 1);
		ilpi_pc_rb_add(pc, &rb, pc->col_s[i], -1);
		for (uint32_t k = 0; k < n->use_count; k++)
			if (g->node[use[k]].cls == ILPI_UNCLAIMED)
				ilpi_pc_rb_add(pc, &rb, pc->ffam[use[k]], -1);
		ilpi_pc_rb_emit(pc, &rb, GLP_UP, 0);
		ilpi_pc_rb_add(pc, &rb, c, 1);
		ilpi_pc_rb_add(pc, &rb, pc->col_s[i], -1);
		ilpi_pc_rb_emit(pc, &rb, GLP_LO, 0);
		for (uint32_t k = 0; k < n->use_count; k++) {
			if (g->node[use[k]].cls != ILPI_UNCLAIMED || pc->ffam[use[k]] == 0)
				continue;
			ilpi_pc_rb_add(pc, &rb, c, 1);
			ilpi_pc_rb_add(pc, &rb, pc->ffam[use[k]], -1);
			ilpi_pc_rb_emit(pc, &rb, GLP_LO, 0);
		}
	}
	return 0;
}

/* A term's literals, one column each (f(x) or s_x): appended to tcol. */
typedef struct fwterm {
	int32_t *tcol;
	size_t n, cap;
	int bad;
} fwterm;

static int
fw_lit(fwterm *t, int col)
{
	if (col == 0) {
		t->bad = 1;
		return 0;
	}
	if (ILPI_GROW(t->tcol, t->cap, t->n, 1) != 0)
		return -1;
	t->tcol[t->n++] = col;
	return 0;
}

/* "x runs in the forward": nothing for a forward op, else f(x). */
static int
fw_runs(ilpi_peak_cuts *pc, fwterm *t, int32_t x)
{
	return pc->g->node[x].cls == ILPI_FORWARD ? 0 : fw_lit(t, pc->ffam[x]);
}

/* The witness of a forward storage live at step `at`: a held value (an output: no
 * literal; saved: s), else a reader at or after the step, forward readers first. */
static int32_t
fw_witness(const ilp_graph *g, const ilpi_memtrace *tr, const int32_t *pos,
    const int32_t *head, const int32_t *next, size_t key, size_t at, int32_t *reader)
{
	int32_t v = -1;
	int best = INT_MAX;

	*reader = -1;
	for (int32_t w = head[key]; w >= 0; w = next[w]) {
		const ilpi_node *n = &g->node[w];
		const int32_t *use = ilpi_users(g, n);

		if (tr->fdie[w] == HELD) {
			int score = (n->flags & ILPI_F_FW_OUTPUT) ? 0 : 1;

			if (score < best) {
				best = score;
				v = w;
				*reader = -1;
			}
			continue;
		}
		for (uint32_t j = 0; j < n->use_count; j++) {
			int score;

			if (pos[use[j]] < (int32_t)at)
				continue;
			score = g->node[use[j]].cls == ILPI_FORWARD ? 0 : 2;
			if (score < best) {
				best = score;
				v = w;
				*reader = use[j];
			}
		}
	}
	return v;
}

/* Whole (124 lines): the terms of every storage are built in place in the shared row
 * buffers, then the z rows and the peak row read them; one cleanup path. */
int
ilpi_peak_cuts_add_fw(ilpi_peak_cuts *pc, const ilpi_memsim *ms, const ilpi_memtrace *tr,
    size_t at)
{
	const ilp_graph *g = pc->g;
	size_t nk = 2 * g->n + 1, nz = 0, *tbeg = NULL, *tlen = NULL;
	int64_t *tb = NULL;
	int32_t *pos = NULL;
	ilpi_pc_spans sp = { NULL, NULL, NULL, NULL, 0 };
	int32_t o = ms->fw_order[at];
	fwterm t = { NULL, 0, 0, 0 };
	rowb rb = { 0, 0 };
	double cst;
	int rc = -1, cond = 0;

	if (ilpi_pc_full(pc))
		return 0;
	if (fw_family(pc) != 0)
		return -1;
	/* An unclaimed op's step exists where it runs, f(o): every term says so too.
	 * Where it does not run, the storages live in every partition (a forward op's
	 * value read by a forward op after o, or a held output) are live at the next
	 * forward op's step, or with none after o at the last one's (a held output is
	 * allocated by then), so the constant still bounds the peak; there must be one. */
	if (g->node[o].cls != ILPI_FORWARD) {
		size_t k = 0;

		while (k < g->n && !(g->node[k].cls == ILPI_FORWARD && g->node[k].kind == ILPI_OP))
			k++;
		if (pc->ffam[o] == 0 || k >= g->n)
			return 0;
		cond = pc->ffam[o];
	}
	pos = malloc((g->n + 1) * sizeof *pos);
	tbeg = malloc((nk + 1) * sizeof *tbeg);
	tlen = malloc((nk + 1) * sizeof *tlen);
	tb = malloc((nk + 1) * sizeof *tb);
	if (ilpi_pc_spans_alloc(&sp, g) != 0 || pos == NULL ||
	    tbeg == NULL || tlen == NULL || tb == NULL)
		goto out;
	for (size_t k = 0; k < g->n; k++)
		pos[k] = -1;
	for (size_t k = 0; k < ms->n_fw; k++)
		pos[ms->fw_order[k]] = (int32_t)k;
	ilpi_pc_spans_fill(&sp, g, tr->fkey, tr->fprod, tr->fdie);
	cst = (double)ms->fw_live[at];
	for (size_t key = 0; key < nk; key++) {
		int64_t b = ilpi_live_bytes(g, (int32_t)key);
		int32_t u, v;
		size_t n0 = t.n;

		if (b == 0 || !ilpi_pc_spans_live(&sp, key, at))
			continue;
		if ((v = fw_witness(g, tr, pos, sp.head, sp.next, key, at, &u)) < 0) {
			rc = 0;
			goto out;
		}
		if (u >= 0 ? fw_runs(pc, &t, u) != 0 : !(g->node[v].flags & ILPI_F_FW_OUTPUT) &&
		    fw_lit(&t, ilpi_pc_saved_col_fw(pc, v, o)) != 0)
			goto out;
		/* the chain of views from v down to the op that allocated the storage */
		for (int32_t x = v; !t.bad;) {
			const ilpi_node *n = &g->node[x];

			if (tr->fprod[x] < 0 || fw_runs(pc, &t, x) != 0) {
				t.bad = 1;
				break;
			}
			if (tr->fkey[x] == (int32_t)g->n + x)
				break;
			if (n->view_of == ILPI_NONE || tr->fkey[n->view_of] != tr->fkey[x])
				t.bad = 1;
			else
				x = n->view_of;
		}
		if (t.bad) {
			rc = 0;
			goto out;
		}
		if (t.n == n0)
			continue; /* live in every partition */
		if (cond != 0) {
			int has = 0;

			for (size_t j = n0; j < t.n; j++)
				has |= t.tcol[j] == cond;
			if (!has && fw_lit(&t, cond) != 0)
				goto out;
		}
		/* an offloaded value on the host there: not in the answer's bytes */
		if (ilpi_pc_resident(g, ms, 1, at, key))
			cst -= (double)b;
		tbeg[nz] = n0;
		tlen[nz] = t.n - n0;
		tb[nz++] = b;
	}
	/* An unclaimed op's workspace (memsim counts it in its step) is there only where
	 * the op runs: f(o) times its bytes. */
	if (cond != 0 && g->node[o].workspace > 0) {
		size_t n0 = t.n;

		if (fw_lit(&t, cond) != 0)
			goto out;
		cst -= (double)g->node[o].workspace;
		tbeg[nz] = n0;
		tlen[nz] = 1;
		tb[nz++] = g->node[o].workspace;
	}
	if (ilpi_pc_row_room_n(pc, nz + 2) != 0)
		goto out;
	if (ilpi_pc_z_room(pc, nz) != 0)
		goto out;
	/* z >= sum(literals) - (k - 1) for the terms of two or more literals */
	for (size_t k = 0; k < nz; k++) {
		if (tlen[k] == 1)
			continue;
		pc->zcol[pc->nz] = ilpi_pc_new_col(pc);
		ilpi_pc_rb_add(pc, &rb, pc->zcol[pc->nz], 1);
		for (size_t j = 0; j < tlen[k]; j++)
			ilpi_pc_rb_add(pc, &rb, t.tcol[tbeg[k] + j], -1);
		ilpi_pc_rb_emit_kept(pc, &rb, GLP_LO, -(double)(tlen[k] - 1));
		pc->zrow[pc->nz] = glp_get_num_rows(pc->m->lp);
		tbeg[k] = (size_t)pc->zcol[pc->nz++]; /* now: the z column */
	}
	ilpi_pc_rb_add(pc, &rb, pc->col_peak, 1);
	for (size_t k = 0; k < nz; k++)
		ilpi_pc_rb_add(pc, &rb, tlen[k] == 1 ? t.tcol[tbeg[k]] : (int)tbeg[k],
		    -(double)tb[k] / pc->m->byte_unit);
	ilpi_pc_rb_emit_kept(pc, &rb, GLP_LO, cst / pc->m->byte_unit);
	pc->prow = glp_get_num_rows(pc->m->lp);
	pc->cur_op = -1 - o;
	rc = ilpi_pc_record_point(pc) == 0 ? 1 : -1;
out:
	free(t.tcol);
	ilpi_pc_spans_free(&sp);
	free(pos);
	free(tbeg);
	free(tlen);
	free(tb);
	return rc;
}
