/*
 * peak_answers.c - the peak search's answers: simulated (graph/memsim.c, the truth),
 * cut off by exact rows at their peak step or by no-good cuts, and the general rows
 * at an answer's highest steps (solver/peak/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "solver/driver/answer.h"
#include "solver/driver/stage.h"
#include "solver/driver/peak_answers.h"

/* The simulated peak (graph/memsim.c, the truth) of the item answer (s, r); -1 when it
 * cannot be simulated. Leaves the node answer in c->node_s/node_r. */
int64_t
drv_simulate(solve_ctx *c, const uint8_t *s, const uint8_t *r)
{
	ilp_partition *p;
	ilp_peak pk;
	int64_t out = -1;

	if (s != c->s) {
		memcpy(c->s, s, c->red.n_items);
		memcpy(c->r, r, c->red.n_items);
	}
	if (drv_to_nodes(c) != 0 || (p = drv_node_partition(c)) == NULL)
		return -1;
	if (ilp_partition_peak(c->g, p, &pk, NULL) == 0)
		out = pk.peak_bytes;
	ilp_partition_free(p);
	return out;
}

/* The no-good row over the item columns: coef * (distance to (s, r)) + (peak_coef * P)
 * >= rhs, the distance being the columns (s, r and o) where an answer differs from
 * (s, r). */
static int
nogood_row(solve_ctx *c, const uint8_t *s, const uint8_t *r, double peak_coef, double coef,
    double rhs)
{
	glp_prob *lp = c->m.lp;
	int *ind = malloc((3 * c->red.n_items + 2) * sizeof *ind), len = 0, row;
	double *val = malloc((3 * c->red.n_items + 2) * sizeof *val);

	if (ind == NULL || val == NULL) {
		free(ind);
		free(val);
		return -1;
	}
	if (peak_coef != 0) {
		ind[++len] = c->peak.col;
		val[len] = peak_coef;
	}
	for (size_t it = 0; it < c->red.n_items; it++) {
		/* with offload, o too: the same save with the other offload is another
		 * answer (forced offloads follow s) */
		int cols[3] = { c->m.col_s[it], c->m.col_r[it], c->m.col_o != NULL &&
		    !c->m.off_forced[it] ? c->m.col_o[it] : 0 };
		int on[3] = { s[it] != 0, r[it] != 0, ilpi_model_offloaded(&c->m, s, it) };

		for (int k = 0; k < 3; k++) {
			if (cols[k] == 0)
				continue;
			ind[++len] = cols[k];
			val[len] = on[k] ? -coef : coef;
			if (on[k])
				rhs -= coef;
		}
	}
	row = glp_add_rows(lp, 1);
	glp_set_mat_row(lp, row, len, ind, val);
	glp_set_row_bnds(lp, row, GLP_LO, rhs, 0);
	free(ind);
	free(val);
	return 0;
}

/* No-good cut: any answer other than (s, r) may be anything down to P's floor; (s, r)
 * itself peaks at `sim` (model units). P + d * (distance to (s, r)) >= sim. */
int
drv_nogood_cut(solve_ctx *c, const uint8_t *s, const uint8_t *r, double sim)
{
	return nogood_row(c, s, r, 1, sim - glp_get_col_lb(c->m.lp, c->peak.col), sim);
}

/* (s, r) excluded outright: distance to (s, r) >= 1, coefficients +-1. For an answer
 * over a hard peak budget (P <= budget): there drv_nogood_cut's row is the same cut on
 * 0/1 answers, but its coefficients (the answer's peak in model bytes, 1.6e9 on the
 * 48-layer transformer) made GLPK's LP relaxation end infeasible by its tolerance. */
int
drv_nogood_exclude(solve_ctx *c, const uint8_t *s, const uint8_t *r)
{
	return nogood_row(c, s, r, 0, 1, 1);
}

/* The rows must bound every partition from below: each simulated answer is checked
 * against every point's row, each new point against every answer simulated so far.
 * A violation (a bug) only costs the proof. -1 only when out of memory. */
int
drv_check_cuts(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim)
{
	size_t n = c->red.n_items;
	int rows, cols, points;

	ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
	if (ilpi_peak_cuts_eval(c->cuts, s, r) != 0)
		return -1;
	for (int k = 0; k < points; k++)
		if (ilpi_peak_cuts_point_value(c->cuts, k) > (double)sim + 0.5) {
			c->cuts_invalid = 1;
			drv_note(c, "peak cut %d exceeds a simulated answer's peak", k);
		}
	for (size_t h = 0; points > c->pts_checked && h < c->n_hist; h++) {
		const uint8_t *hs = c->hist + 2 * n * h;

		if (ilpi_peak_cuts_eval(c->cuts, hs, hs + n) != 0)
			return -1;
		for (int k = c->pts_checked; k < points; k++)
			if (ilpi_peak_cuts_point_value(c->cuts, k) > (double)c->hist_sim[h] + 0.5) {
				c->cuts_invalid = 1;
				drv_note(c, "peak cut %d exceeds a simulated answer's peak", k);
			}
	}
	c->pts_checked = points;
	if (c->n_hist == c->cap_hist) {
		size_t cap = c->cap_hist ? 2 * c->cap_hist : 16;
		uint8_t *a = realloc(c->hist, cap * 2 * n + 1);
		int64_t *b;

		if (a == NULL)
			return -1;
		c->hist = a;
		if ((b = realloc(c->hist_sim, cap * sizeof *b)) == NULL)
			return -1;
		c->hist_sim = b;
		c->cap_hist = cap;
	}
	memcpy(c->hist + 2 * n * c->n_hist, s, n);
	memcpy(c->hist + 2 * n * c->n_hist + n, r, n);
	c->hist_sim[c->n_hist++] = sim;
	return 0;
}

/* The item answer (s, r) as the simulator runs it, for the peak rows: 1 when there are
 * rows (c->cuts), its simulated peak is `sim` and its node partition (*p), split (*sp)
 * and trace (*ms, *tr) were made, else 0. The four are zeroed first; the caller frees
 * them either way. */
static int
trace_answer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim,
    ilp_partition **p, ilpi_split *sp, ilpi_memsim *ms, ilpi_memtrace *tr)
{
	*p = NULL;
	memset(sp, 0, sizeof *sp);
	memset(ms, 0, sizeof *ms);
	memset(tr, 0, sizeof *tr);
	if (c->cuts == NULL || drv_simulate(c, s, r) != sim || (*p = drv_node_partition(c)) == NULL)
		return 0;
	return ilpi_lower_unchecked(c->g, *p, sp, NULL) == 0 &&
	    ilpi_memsim_trace_part(c->g, *p, sp, ms, tr, NULL) == 0;
}

/* Cuts off the item answer (s, r), whose simulated peak is `sim` bytes: by the exact
 * row at its backward peak step (solver/peak/peak_cuts.c) when that row reaches the
 * simulated bytes there, else by a no-good cut. -1 only when out of memory. */
static int
cut_answer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim, int exclude)
{
	ilp_partition *p = NULL;
	ilpi_split sp;
	ilpi_memsim ms;
	ilpi_memtrace tr;
	int rc = 0, exact = 0, fam_ok = 1, have = 0;

	have = trace_answer(c, s, r, sim, &p, &sp, &ms, &tr);
	if (have && ms.peak.phase == ILP_PHASE_BACKWARD && ms.peak.peak_bytes == sim) {
		size_t at = 0;

		for (size_t k = 0; k < ms.n_bw; k++)
			if (ms.bw_live[k] > ms.bw_live[at])
				at = k;
		rc = ilpi_peak_cuts_add(c->cuts, &ms, &tr, at);
		if (rc == 0)
			drv_note(c, "peak cut at %s: none (a storage the rows cannot explain, or a "
			    "recomputed op's step)", c->g->node[ms.bw_order[at]].name);
		if (rc == 1) {
			rc = ilpi_peak_cuts_exact(c->cuts, s, r, &ms, &tr, 0, at, &fam_ok);
			exact = rc == 1 && fam_ok;
			if (rc >= 0 && !exact) {
				c->cuts_inexact++;
				drv_note(c, "peak cut at %s: not exact (%s)",
				    c->g->node[ms.bw_order[at]].name,
				    fam_ok ? "row short of the simulation" : "placement differs");
			}
		}
	}
	if (have && ms.peak.phase == ILP_PHASE_FORWARD && ms.peak.peak_bytes == sim) {
		size_t at = 0;

		for (size_t k = 0; k < ms.n_fw; k++)
			if (ms.fw_live[k] > ms.fw_live[at])
				at = k;
		rc = ilpi_peak_cuts_add_fw(c->cuts, &ms, &tr, at);
		if (rc == 0)
			drv_note(c, "peak cut at %s (forward): none", c->g->node[ms.fw_order[at]].name);
		if (rc == 1) {
			rc = ilpi_peak_cuts_exact(c->cuts, s, r, &ms, &tr, 1, at, &fam_ok);
			exact = rc == 1 && fam_ok;
			if (rc >= 0 && !exact) {
				c->cuts_inexact++;
				drv_note(c, "peak cut at %s (forward): not exact (%s)",
				    c->g->node[ms.fw_order[at]].name,
				    fam_ok ? "row short of the simulation" : "placement differs");
			}
		}
	}
	ilpi_memtrace_free(&tr);
	ilpi_memsim_free(&ms);
	if (have || p != NULL)
		ilpi_split_free(&sp);
	ilp_partition_free(p);
	if (rc < 0 || (c->cuts != NULL && drv_check_cuts(c, s, r, sim) != 0))
		return -1;
	if (!exact)
		return exclude ? drv_nogood_exclude(c, s, r) :
		    drv_nogood_cut(c, s, r, (double)sim / c->m.byte_unit);
	return 0;
}

int
drv_cut_answer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim)
{
	return cut_answer(c, s, r, sim, 0);
}

int
drv_cut_answer_over(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim)
{
	return cut_answer(c, s, r, sim, 1);
}

/* General rows (solver/peak/peak_cuts.c, ilpi_peak_cuts_add_general) at the backward steps
 * where the item answer (s, r), simulated at `sim`, has a local maximum of at least
 * frac * sim bytes, highest first, at most `max_pts` new ones (one per op). -1 only
 * when out of memory. */
typedef struct live_at {
	int64_t live;             /* bytes live at the step */
	size_t at;                /* the backward step */
} live_at;

static int
cmp_live_at(const void *pa, const void *pb)
{
	const live_at *a = pa, *b = pb;

	if (a->live != b->live)
		return a->live > b->live ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

int
drv_general_rows(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim, double frac,
    int max_pts)
{
	ilp_partition *p = NULL;
	ilpi_split sp;
	ilpi_memsim ms;
	ilpi_memtrace tr;
	int rc = 0, have = 0, added = 0;
	live_at *cand = NULL;
	size_t n_cand = 0;

	if (c->cuts == NULL)
		return 0;
	if (drv_peak_late(c)) {
		drv_note(c, "peak general rows: none (cut short by the time limit)");
		return 0;
	}
	if (c->general_at == NULL && (c->general_at = calloc(c->g->n + 1, 1)) == NULL)
		return -1;
	have = trace_answer(c, s, r, sim, &p, &sp, &ms, &tr);
	if (have && (cand = malloc((ms.n_bw + 1) * sizeof *cand)) == NULL)
		rc = -1;
	for (size_t k = 0; have && cand != NULL && k < ms.n_bw; k++) {
		int64_t v = ms.bw_live[k];

		if ((double)v < frac * (double)sim || c->general_at[ms.bw_order[k]] ||
		    (k > 0 && ms.bw_live[k - 1] > v) || (k + 1 < ms.n_bw && ms.bw_live[k + 1] > v))
			continue;
		cand[n_cand++] = (live_at){ v, k };
	}
	/* highest first, earlier first among equals (a chain has a local maximum at
	 * nearly every step: no pairwise sort) */
	qsort(cand, n_cand, sizeof *cand, cmp_live_at);
	for (size_t i = 0; rc == 0 && i < n_cand && added < max_pts; i++) {
		int32_t op = ms.bw_order[cand[i].at];
		int k;

		if (c->general_at[op])
			continue;
		if (drv_peak_late(c)) {
			drv_note(c, "peak general rows: %d points (cut short by the time limit)", added);
			break;
		}
		k = ilpi_peak_cuts_add_general(c->cuts, &ms, &tr, cand[i].at);
		if (k < 0)
			rc = -1;
		if (k == 1) {
			int rows, cols, points;

			c->general_at[op] = 1;
			added++;
			ilpi_peak_cuts_stats(c->cuts, &rows, &cols, &points);
			if (ilpi_peak_cuts_eval(c->cuts, s, r) != 0)
				rc = -1;
			else
				drv_note(c, "peak general row at %s: %.0f of %lld bytes there",
				    c->g->node[op].name, ilpi_peak_cuts_point_value(c->cuts,
				    points - 1), (long long)cand[i].live);
		}
	}
	free(cand);
	ilpi_memtrace_free(&tr);
	ilpi_memsim_free(&ms);
	if (have || p != NULL)
		ilpi_split_free(&sp);
	ilp_partition_free(p);
	return rc;
}
