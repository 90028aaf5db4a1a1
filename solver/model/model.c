/* model.c - the save/recompute ILP in GLPK: build, objective, limits, solve, write. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "solver/model/glpk_env.h"
#include "solver/model/model.h"

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* LP-format-safe column and row names: a prefix, the index, and the node name. */
/* Appends the decimal digits of v at buf + k; the new length. */
static size_t
put_uint(char *buf, size_t k, size_t v)
{
	char tmp[24];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		buf[k++] = tmp[--n];
	return k;
}

static void
set_name(char *buf, size_t len, const char *prefix, size_t idx, const char *node)
{
	size_t k = strlen(prefix);

	/* snprintf(buf, len, "%s%zu_", prefix, idx), which always fits in len (80) */
	memcpy(buf, prefix, k);
	k = put_uint(buf, k, idx);
	buf[k++] = '_';

	for (; *node != '\0' && k + 1 < len && k < 48; node++)
		buf[k++] = (*node >= 'a' && *node <= 'z') || (*node >= 'A' && *node <= 'Z') ||
		    (*node >= '0' && *node <= '9') || *node == '_' || *node == '.' ? *node : '_';
	buf[k] = '\0';
}

static int
add_row(glp_prob *lp, const char *name, int type, double bnd, int len, const int *ind,
    const double *val)
{
	int i = glp_add_rows(lp, 1);

	glp_set_row_name(lp, i, name);
	glp_set_row_bnds(lp, i, type, type == GLP_UP ? 0 : bnd, bnd);
	glp_set_mat_row(lp, i, len, ind, val);
	return i;
}

static void
add_columns(const ilp_graph *g, ilpi_model *m)
{
	const ilpi_reduced *red = m->red;
	char name[80];

	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];
		const char *nm = g->node[item->rep].name;

		if (item->can_save) {
			m->col_s[it] = glp_add_cols(m->lp, 1);
			set_name(name, sizeof name, "s", it, nm);
			glp_set_col_name(m->lp, m->col_s[it], name);
			glp_set_col_kind(m->lp, m->col_s[it], GLP_BV);
		}
		if (item->can_recompute) {
			m->col_r[it] = glp_add_cols(m->lp, 1);
			set_name(name, sizeof name, "r", it, nm);
			glp_set_col_name(m->lp, m->col_r[it], name);
			glp_set_col_kind(m->lp, m->col_r[it], GLP_BV);
		}
	}
	for (size_t k = 0; k < red->n_stor; k++)
		if (red->stor_items[k] >= 2) {
			m->col_y[k] = glp_add_cols(m->lp, 1);
			set_name(name, sizeof name, "y", k, g->node[red->stor_root[k]].name);
			glp_set_col_name(m->lp, m->col_y[k], name);
			glp_set_col_kind(m->lp, m->col_y[k], GLP_BV);
		}
	m->n_cols = glp_get_num_cols(m->lp);
}

static void
add_rows(const ilp_graph *g, ilpi_model *m)
{
	const ilpi_reduced *red = m->red;
	int ind[4];
	double val[4];
	char name[80];

	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];
		const char *nm = g->node[item->rep].name;
		int s = m->col_s[it], r = m->col_r[it];

		if (s && r) {
			ind[1] = s, ind[2] = r, val[1] = val[2] = 1;
			set_name(name, sizeof name, "a", it, nm);
			add_row(m->lp, name, item->boundary ? GLP_FX : GLP_UP, 1, 2, ind, val);
		} else if (item->boundary) {
			glp_set_col_bnds(m->lp, s ? s : r, GLP_FX, 1, 1);
		}
		for (uint32_t k = 0; r && k < item->in_count; k++) {
			int32_t j = red->in[item->in_begin + k];
			int len = 1;
			size_t nl;

			ind[1] = r, val[1] = 1;
			if (m->col_s[j])
				ind[++len] = m->col_s[j], val[len] = -1;
			if (m->col_r[j])
				ind[++len] = m->col_r[j], val[len] = -1;
			set_name(name, sizeof name, "d", it, nm);
			nl = strlen(name);
			name[nl++] = '_';
			name[put_uint(name, nl, k)] = '\0';
			add_row(m->lp, name, GLP_UP, 0, len, ind, val);
		}
		if (s && m->col_y[item->stor]) {
			ind[1] = s, val[1] = 1;
			ind[2] = m->col_y[item->stor], val[2] = -1;
			set_name(name, sizeof name, "k", it, nm);
			add_row(m->lp, name, GLP_UP, 0, 2, ind, val);
		}
	}
}

/* The per-column scratch (row building, warm starts, cuts) for `cols` columns, freed
 * first: the model grows it when it adds columns. -1 when out of memory. */
static int
alloc_scratch(ilpi_model *m, size_t cols)
{
	free(m->coef), free(m->ind), free(m->warm), free(m->fixed), free(m->cut_ind);
	free(m->cut_a), free(m->cut_x), free(m->cut_v);
	m->coef = calloc(cols, sizeof *m->coef);
	m->ind = calloc(cols, sizeof *m->ind);
	m->warm = calloc(cols, sizeof *m->warm);
	m->cap_warm = cols;
	m->fixed = calloc(cols, 1);
	m->cut_ind = calloc(cols, sizeof *m->cut_ind);
	m->cut_a = calloc(cols, sizeof *m->cut_a);
	m->cut_x = calloc(cols, sizeof *m->cut_x);
	m->cut_v = calloc(cols, sizeof *m->cut_v);
	return m->coef == NULL || m->ind == NULL || m->warm == NULL || m->fixed == NULL ||
	    m->cut_ind == NULL || m->cut_a == NULL || m->cut_x == NULL || m->cut_v == NULL ?
	    -1 : 0;
}

int
ilpi_model_build(const ilp_graph *g, const ilpi_reduced *red, ilpi_model *m, ilp_error *err)
{
	int64_t unit = 0;

	size_t cols = 2 * red->n_items + red->n_stor + 1; /* more than there will be */

	memset(m, 0, sizeof *m);
	m->red = red;
	m->path = g->path;
	m->col_s = calloc(red->n_items + 1, sizeof *m->col_s);
	m->col_r = calloc(red->n_items + 1, sizeof *m->col_r);
	m->col_y = calloc(red->n_stor + 1, sizeof *m->col_y);
	m->seen = calloc(red->n_stor + 1, 1);
	if (m->col_s == NULL || m->col_r == NULL || m->col_y == NULL || m->seen == NULL ||
	    alloc_scratch(m, cols) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	/* Bytes in units of their gcd keep byte expressions integral and small. */
	for (size_t k = 0; k < red->n_stor; k++)
		if (red->stor_bytes[k] > 0)
			unit = gcd64(red->stor_bytes[k], unit);
	for (size_t it = 0; it < red->n_items; it++)
		if (red->item[it].rng_bytes > 0 && red->item[it].can_recompute)
			unit = gcd64(red->item[it].rng_bytes, unit);
	m->byte_unit = unit > 0 ? (double)unit : 1;
	m->lp = glp_create_prob();
	glp_set_prob_name(m->lp, "ilpart");
	glp_set_obj_name(m->lp, "objective");
	glp_set_obj_dir(m->lp, GLP_MIN);
	add_columns(g, m);
	add_rows(g, m);
	return 0;
}

void
ilpi_model_free(ilpi_model *m, int glpk_freed)
{
	if (m == NULL)
		return;
	if (m->lp != NULL && !glpk_freed)
		glp_delete_prob(m->lp);
	free(m->col_s);
	free(m->col_r);
	free(m->col_y);
	free(m->col_o);
	free(m->off_us);
	free(m->off_forced);
	free(m->off_xfer);
	free(m->off_kind);
	free(m->node_us);
	free(m->col_d);
	free(m->coef);
	free(m->ind);
	free(m->warm);
	free(m->fixed);
	free(m->cut_ind);
	free(m->cut_a);
	free(m->cut_x);
	free(m->cut_v);
	free(m->seen);
	memset(m, 0, sizeof *m);
}

int
ilpi_model_add_offload(ilpi_model *m, const uint8_t *kind, const double *exposed_us,
    const double *xfer_us, const double *node_us, size_t n_nodes, ilp_error *err)
{
	const ilpi_reduced *red = m->red;
	size_t cols = (size_t)m->n_cols + red->n_items + 1;
	int ind[3];
	double val[3];
	char name[80];

	m->col_o = calloc(red->n_items + 1, sizeof *m->col_o);
	m->off_us = calloc(red->n_items + 1, sizeof *m->off_us);
	m->off_forced = calloc(red->n_items + 1, 1);
	m->off_xfer = calloc(red->n_items + 1, sizeof *m->off_xfer);
	m->off_kind = calloc(red->n_items + 1, 1);
	m->node_us = calloc(n_nodes + 1, sizeof *m->node_us);
	m->col_d = calloc(red->n_items + 1, sizeof *m->col_d);
	if (m->col_o == NULL || m->off_us == NULL || m->off_forced == NULL ||
	    m->off_xfer == NULL || m->node_us == NULL || m->col_d == NULL ||
	    m->off_kind == NULL)
		goto nomem;
	memcpy(m->node_us, node_us, n_nodes * sizeof *node_us);
	m->n_nodes = n_nodes;
	/* the scratch grows with the columns */
	if (alloc_scratch(m, cols) != 0)
		goto nomem;
	for (size_t it = 0; it < red->n_items; it++) {
		int o;

		if (kind[it] == 0 || m->col_s[it] == 0 || m->col_y[red->item[it].stor] != 0)
			continue;
		o = m->col_o[it] = glp_add_cols(m->lp, 1);
		m->off_us[it] = exposed_us[it];
		m->off_xfer[it] = xfer_us[it];
		m->off_forced[it] = kind[it] == 2;
		m->off_kind[it] = kind[it];
		snprintf(name, sizeof name, "o%zu", it);
		glp_set_col_name(m->lp, o, name);
		glp_set_col_kind(m->lp, o, GLP_BV);
		ind[1] = o, val[1] = 1;
		ind[2] = m->col_s[it], val[2] = -1;
		snprintf(name, sizeof name, "of%zu", it);
		add_row(m->lp, name, kind[it] == 2 ? GLP_FX : GLP_UP, 0, 2, ind, val);
	}
	m->n_cols = glp_get_num_cols(m->lp);
	return 0;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", m->path);
	return -1;
}

/* Dense coefficients of an expression into m->coef[1..n_cols]. */
static void
expression(ilpi_model *m, const ilpi_terms *t)
{
	const ilpi_reduced *red = m->red;

	memset(m->coef, 0, ((size_t)m->n_cols + 1) * sizeof *m->coef);
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];
		int s = m->col_s[it], r = m->col_r[it];

		if (s) {
			if (!m->col_y[item->stor])
				m->coef[s] += t->bytes *
				    ((double)red->stor_bytes[item->stor] / m->byte_unit);
			if (t->pen_s != NULL)
				m->coef[s] += t->pen_s[it];
		}
		if (m->col_o != NULL && m->col_o[it])
			m->coef[m->col_o[it]] += t->cost * m->off_us[it] - t->bytes *
			    ((double)red->stor_bytes[item->stor] / m->byte_unit);
		if (r) {
			m->coef[r] += t->cost * item->cost +
			    t->bytes * ((double)item->rng_bytes / m->byte_unit);
			if (t->pen_r != NULL)
				m->coef[r] += t->pen_r[it];
		}
	}
	for (size_t k = 0; k < red->n_stor; k++)
		if (m->col_y[k])
			m->coef[m->col_y[k]] += t->bytes * ((double)red->stor_bytes[k] / m->byte_unit);
}

void
ilpi_model_set_objective(ilpi_model *m, const ilpi_terms *t)
{
	expression(m, t);
	for (int j = 1; j <= m->n_cols; j++)
		glp_set_obj_coef(m->lp, j, m->coef[j]);
}

#define LIMIT_CLAMP 1e6

void
ilpi_model_set_limit(ilpi_model *m, int which, const ilpi_terms *t, double ub)
{
	int len = 0;

	if (m->row_limit[which] == 0) {
		if (ub < 0)
			return;
		m->row_limit[which] = glp_add_rows(m->lp, 1);
		glp_set_row_name(m->lp, m->row_limit[which],
		    which == ILPI_LIMIT_BUDGET ? "budget" : "level");
	}
	if (ub < 0) {
		glp_set_row_bnds(m->lp, m->row_limit[which], GLP_FR, 0, 0);
		return;
	}
	expression(m, t);
	for (int j = 1; j <= m->n_cols; j++)
		if (m->coef[j] != 0) {
			len++;
			m->ind[len] = j;
			m->coef[len] = m->coef[j];
		}
	/* Every term is a column in [0, 1] that some 0/1 decision forces to 0 or 1, with a
	 * coefficient >= 0: one above LIMIT_CLAMP * ub keeps its column at 0 in every
	 * answer whatever its size, so it is clamped there. A row spanning 1e-4 to 1e21
	 * against a bound of 1e-9 (the level of a runtime optimum of 0) left GLPK with no
	 * answer where one exists ("stage 'budget-least-memory' is infeasible"). */
	for (int k = 1; k <= len; k++)
		if (m->coef[k] < 0)
			goto set;
	for (int k = 1; k <= len; k++)
		if (ub > 0 && m->coef[k] > LIMIT_CLAMP * ub)
			m->coef[k] = LIMIT_CLAMP * ub;
set:
	glp_set_mat_row(m->lp, m->row_limit[which], len, m->ind, m->coef);
	/* Byte expressions are in byte units (the budget is converted by the caller). */
	glp_set_row_bnds(m->lp, m->row_limit[which], GLP_UP, 0, ub);
}

double
ilpi_model_value(ilpi_model *m, const ilpi_terms *t, const uint8_t *s, const uint8_t *r)
{
	const ilpi_reduced *red = m->red;
	uint8_t *seen = m->seen;
	double v = 0;

	memset(seen, 0, red->n_stor + 1);
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];

		if (s[it] && item->can_save) {
			if (!seen[item->stor])
				v += t->bytes * ((double)red->stor_bytes[item->stor] / m->byte_unit);
			seen[item->stor] = 1;
			if (t->pen_s != NULL)
				v += t->pen_s[it];
			if (ilpi_model_offloaded(m, s, it))
				v += t->cost * m->off_us[it] - t->bytes *
				    ((double)red->stor_bytes[item->stor] / m->byte_unit);
		}
		if (r[it] && item->can_recompute) {
			v += t->cost * item->cost + t->bytes * ((double)item->rng_bytes / m->byte_unit);
			if (t->pen_r != NULL)
				v += t->pen_r[it];
		}
	}
	return v;
}

/* State of one branch-and-bound run, seen by the MIP callback. */
typedef struct cb_state {
	ilpi_model *m;
	ilpi_mip *mip;
	double *warm;             /* column values of the start solution, or NULL */
	int warm_given;
	double bound;             /* best bound seen, -DBL_MAX until known */
	long nodes, node_limit;   /* subproblems selected; stop after node_limit (0: none) */
	int *cut_ind;             /* scratch for budget_cuts, n_cols + 1 each */
	double *cut_a, *cut_x, *cut_v;
	double t_start, t_last;   /* glp_time() ms */
	double deadline;          /* glp_time() ms at which to stop, 0: none */
	int out_of_time;          /* the callback stopped the search at the deadline */
	double lp_ms;             /* the first LP relaxation's wall clock, ms */
	int weighted;             /* branch by mip->weight (branch_weighted) */
	int presolve;             /* GLPK's MIP presolver is on (ilpi_mip.presolve) */
	int cut_off;              /* the bound reached ilpi_mip.cutoff without an answer */
} cb_state;

static void
progress(glp_tree *tree, cb_state *st)
{
	glp_prob *lp = glp_ios_get_prob(tree);
	int best = glp_ios_best_node(tree), a_cnt, n_cnt, t_cnt;
	double now = glp_time();

	if (best != 0)
		st->bound = glp_ios_node_bound(tree, best);
	if (now - st->t_last < 2000)
		return;
	st->t_last = now;
	glp_ios_tree_size(tree, &a_cnt, &n_cnt, &t_cnt);
	if (glp_mip_status(lp) == GLP_FEAS)
		ilpi_glpk_progress("solve: %.1fs incumbent %.6g bound %.6g gap %.3g%% nodes %d "
		    "active %d", (now - st->t_start) / 1000, glp_mip_obj_val(lp), st->bound,
		    100 * glp_ios_mip_gap(tree), t_cnt, a_cnt);
	else
		ilpi_glpk_progress("solve: %.1fs no incumbent yet, bound %.6g nodes %d active %d",
		    (now - st->t_start) / 1000, st->bound, t_cnt, a_cnt);
}

/*
 * Complemented MIR cuts of the budget row (Marchand and Wolsey): binaries at 1 in the
 * LP point are complemented, then for divisors d (each fractional column's coefficient,
 * halved up to three times) F(t) = floor(t) + max(0, frac(t) - f) / (1 - f), with f the
 * fractional part of the right-hand side over d, gives a valid inequality; the most
 * violated few are added.
 */
enum { MAXCUTS = 4, HALVE = 4 };

static void
budget_cuts(glp_tree *tree, cb_state *st)
{
	ilpi_model *m = st->m;
	glp_prob *lp = glp_ios_get_prob(tree);
	int row = m->row_limit[ILPI_LIMIT_BUDGET], len, added = 0;
	int *ind = st->cut_ind;
	double *a = st->cut_a, *x = st->cut_x, *cv = st->cut_v, b, beta;

	if (row == 0 || glp_get_row_type(lp, row) != GLP_UP)
		return;
	b = glp_get_row_ub(lp, row);
	len = glp_get_mat_row(lp, row, ind, a);
	beta = b;
	for (int k = 1; k <= len; k++) {
		x[k] = glp_get_col_prim(lp, ind[k]);
		if (x[k] > 0.5)
			beta -= a[k];   /* complemented: -a x' with x' = 1 - x */
	}
	for (int k = 1; k <= len && added < MAXCUTS; k++) {
		double d0 = a[k];

		/* the divisor must be positive: an offload column's coefficient is the
		 * negative of its storage's bytes (with it, gpt-6l-sac-mm at 0.1 with
		 * --offload free "proved" 386.5 us where 376.8 us fits) */
		if (x[k] < 1e-6 || x[k] > 1 - 1e-6 || d0 <= 0)
			continue;
		for (int h = 0; h < HALVE && added < MAXCUTS; h++) {
			double d = d0 / (double)(1 << h), q = beta / d, f = q - floor(q);
			double rhs = floor(q), lhs = 0;

			if (f < 1e-4 || f > 1 - 1e-4)
				continue;
			for (int j = 1; j <= len; j++) {
				double c = (x[j] > 0.5 ? -a[j] : a[j]) / d, fc = c - floor(c);
				double F = floor(c) + (fc > f ? (fc - f) / (1 - f) : 0);

				if (x[j] > 0.5) {
					/* F x' = F - F x */
					cv[j] = -F;
					rhs -= F;
				} else {
					cv[j] = F;
				}
				lhs += cv[j] * x[j];
			}
			if (lhs > rhs + 1e-6 * (1 + fabs(rhs))) {
				glp_ios_add_row(tree, NULL, GLP_RF_CUT, 0, len, ind, cv, GLP_UP, rhs);
				added++;
			}
		}
	}
}

/*
 * At the end of the first round: a restart after reduced-cost fixing throws the tree
 * away with the bound it has proven. When that bound is already within 1e-4 of the
 * incumbent the tree is about to close and goes on; otherwise the fixing and the
 * fresh start from the incumbent pay. Deterministic: decided at a node count.
 */
static int
restart_pays(glp_tree *tree)
{
	glp_prob *lp = glp_ios_get_prob(tree);
	double gap;

	if (glp_mip_status(lp) != GLP_FEAS)
		return 0; /* nothing to fix against */
	gap = glp_ios_mip_gap(tree);
	ilpi_glpk_note("first round: incumbent %.10g, gap %.3g%%: %s", glp_mip_obj_val(lp),
	    100 * gap, gap < 1e-4 ? "going on" : "restarting after reduced-cost fixing");
	return !(gap < 1e-4);
}

/* The caller's branching rule (ilpi_mip.weight): deterministic, no clock. */
static void
branch_weighted(glp_tree *tree, const ilpi_mip *mip)
{
	glp_prob *lp = glp_ios_get_prob(tree);
	int n = glp_get_num_cols(lp), best = 0;
	double best_sc = 0;

	if (n > mip->n_weight)
		n = mip->n_weight;
	for (int j = 1; j <= n; j++) {
		double x, f, sc;

		if (!glp_ios_can_branch(tree, j))
			continue;
		x = glp_get_col_prim(lp, j);
		f = x - floor(x);
		sc = mip->weight[j] * (f > 0.5 ? 1 - f : f);
		if (best == 0 || sc > best_sc) {
			best = j;
			best_sc = sc;
		}
	}
	if (best != 0)
		glp_ios_branch_upon(tree, best, GLP_NO_BRNCH);
}

static void
callback(glp_tree *tree, void *info)
{
	cb_state *st = info;

	ilpi_glpk_fault_point();
	/* GLPK checks tm_lim only between nodes: cut generation and the LP after it on
	 * a large model run past it. The clock is checked at every call instead. */
	if (st->deadline > 0 && glp_time() >= st->deadline) {
		st->out_of_time = 1;
		glp_ios_terminate(tree);
		return;
	}
	switch (glp_ios_reason(tree)) {
	case GLP_IHEUR:
		/* The start solution, offered once at the root. */
		if (st->warm != NULL && st->warm[0] == 0 && !st->warm_given) {
			st->warm_given = 1;
			glp_ios_heur_sol(tree, st->warm);
		}
		break;
	case GLP_ISELECT:
		/* A node budget, not a clock, ends the first round: deterministic. */
		if (st->node_limit > 0 && ++st->nodes > st->node_limit) {
			if (restart_pays(tree)) {
				glp_ios_terminate(tree);
				break;
			}
			st->node_limit = 0; /* go on in this tree */
		}
		progress(tree, st);
		/* Every open node's relaxation is at the cutoff: no answer is left below it
		 * (GLPK itself prunes by bound only against an incumbent). */
		if (st->mip->cutoff_on && st->bound >= st->mip->cutoff &&
		    glp_mip_status(glp_ios_get_prob(tree)) != GLP_FEAS) {
			st->cut_off = 1;
			glp_ios_terminate(tree);
		}
		break;
	case GLP_IBINGO:
		progress(tree, st);
		break;
	case GLP_ICUTGEN:
		if (st->cut_ind != NULL)
			budget_cuts(tree, st);
		break;
	case GLP_IBRANCH:
		if (st->weighted)
			branch_weighted(tree, st->mip);
		break;
	default:
		break;
	}
}

static double *
warm_columns(ilpi_model *m, const ilpi_mip *mip)
{
	const ilpi_reduced *red = m->red;
	double *x = m->warm;

	memset(x, 0, ((size_t)glp_get_num_cols(m->lp) + 1) * sizeof *x);
	if (mip->warm_s == NULL || mip->warm_r == NULL) {
		x[0] = -1; /* no start solution */
		return x;
	}
	for (size_t it = 0; it < red->n_items; it++) {
		if (m->col_s[it] && mip->warm_s[it]) {
			x[m->col_s[it]] = 1;
			if (ilpi_model_offloaded(m, mip->warm_s, it))
				x[m->col_o[it]] = 1;
			else if (m->col_d != NULL && m->col_d[it])
				x[m->col_d[it]] = 1;
			if (m->col_y[red->item[it].stor])
				x[m->col_y[red->item[it].stor]] = 1;
		}
		if (m->col_r[it] && mip->warm_r[it])
			x[m->col_r[it]] = 1;
	}
	return x;
}

static void
take_solution(ilpi_model *m, ilpi_mip *mip)
{
	for (size_t it = 0; it < m->red->n_items; it++) {
		mip->s[it] = m->col_s[it] && glp_mip_col_val(m->lp, m->col_s[it]) > 0.5;
		if (mip->s[it] && m->col_o != NULL && m->col_o[it] &&
		    glp_mip_col_val(m->lp, m->col_o[it]) > 0.5)
			mip->s[it] = 2;
		mip->r[it] = m->col_r[it] && glp_mip_col_val(m->lp, m->col_r[it]) > 0.5;
	}
	mip->obj = glp_mip_obj_val(m->lp);
}

static int
ms_limit(double seconds)
{
	if (seconds <= 0)
		return INT32_MAX;
	return seconds * 1000 < INT32_MAX ? (int)ceil(seconds * 1000) : INT32_MAX;
}

/* A solver failure, named like every other error line: the graph's file, then the
 * stage being solved (when known), then what GLPK did. */
static void solver_fail(const ilpi_model *m, const ilpi_mip *mip, ilp_error *err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
solver_fail(const ilpi_model *m, const ilpi_mip *mip, ilp_error *err, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (mip->what != NULL)
		ilpi_err(err, ILP_ERR_SOLVER, "%s: stage '%s': %s", m->path != NULL ? m->path :
		    "<graph>", mip->what, what);
	else
		ilpi_err(err, ILP_ERR_SOLVER, "%s: %s", m->path != NULL ? m->path : "<graph>",
		    what);
}

/* LP relaxation to optimality (needed before glp_intopt without presolve). Returns
 * 0 solved, 1 infeasible, 2 out of time, -1 error. */
static int
solve_lp(ilpi_model *m, const ilpi_mip *mip, double left, ilp_error *err)
{
	glp_smcp smcp;
	int ret;

	glp_init_smcp(&smcp);
	smcp.msg_lev = mip->verbose ? GLP_MSG_ON : GLP_MSG_ERR;
	smcp.tm_lim = ms_limit(left);
	ret = glp_simplex(m->lp, &smcp);
	if (ret == GLP_ETMLIM)
		return 2;
	if (glp_get_status(m->lp) == GLP_NOFEAS)
		return 1;
	if (ret != 0 || glp_get_status(m->lp) != GLP_OPT) {
		solver_fail(m, mip, err, "GLPK: LP relaxation failed (glp_simplex code %d, "
		    "status %d)", ret, glp_get_status(m->lp));
		return -1;
	}
	return 0;
}

/*
 * Reduced-cost fixing at the root: with an incumbent of value z and the LP optimum
 * z_lp, a binary nonbasic at 0 with reduced cost d > z - z_lp is 0 in every solution
 * better than z (and one at 1 with -d > z - z_lp is 1). Fixed for this solve only;
 * fixed[j] remembers what to restore.
 */
static int
fix_by_reduced_cost(ilpi_model *m, double z, char *fixed)
{
	double slack = z - glp_get_obj_val(m->lp), tol = 1e-7 * (1 + fabs(z));
	int n = 0;

	if (!(slack >= 0))
		return 0;
	for (int j = 1; j <= m->n_cols; j++) {
		int st = glp_get_col_stat(m->lp, j);
		double d = glp_get_col_dual(m->lp, j);

		if (fixed[j] || glp_get_col_type(m->lp, j) != GLP_DB)
			continue;
		if (st == GLP_NL && d > slack + tol) {
			glp_set_col_bnds(m->lp, j, GLP_FX, 0, 0);
			fixed[j] = 1, n++;
		} else if (st == GLP_NU && -d > slack + tol) {
			glp_set_col_bnds(m->lp, j, GLP_FX, 1, 1);
			fixed[j] = 1, n++;
		}
	}
	return n;
}

static void
init_iocp(glp_iocp *iocp, const ilpi_mip *mip, cb_state *st, double left)
{
	glp_init_iocp(iocp);
	iocp->msg_lev = mip->verbose ? GLP_MSG_ON : GLP_MSG_ERR;
	iocp->presolve = GLP_OFF;  /* the start solution is in the model's own columns */
	iocp->br_tech = GLP_BR_DTH;
	iocp->bt_tech = GLP_BT_BLB;
	iocp->mir_cuts = GLP_ON;
	iocp->cov_cuts = GLP_ON;
	iocp->mip_gap = mip->gap > 0 ? mip->gap : 0;
	iocp->cb_func = callback;
	iocp->cb_info = st;
	iocp->tm_lim = ms_limit(left);
	if (mip->gomory) {
		iocp->gmi_cuts = GLP_ON;
		iocp->br_tech = GLP_BR_PCH;
	}
	/* The presolver's coefficient reduction tightens the peak rows (byte
	 * coefficients over binaries, P bounded by the best peak); its cut generators
	 * took longer than the search they saved there (ilpi_mip.presolve). */
	if (st->presolve) {
		iocp->presolve = GLP_ON;
		iocp->mir_cuts = GLP_OFF;
		iocp->cov_cuts = GLP_OFF;
	}
	/* GLPK's node preprocessing, cut generators and Driebeck-Tomlin branching run
	 * without a callback or a clock check: on a model whose LP took more than a
	 * third of the time left (the 48-layer transformer's 114k-row loop model: LP
	 * about 33 s, then 5-10 s of preprocessing and cuts at the root and 20-40 s
	 * choosing each branch) they overrun the limit, so there they are left out or
	 * replaced by the cheap most-fractional rule. */
	if (left > 0 && 3 * st->lp_ms > 1000 * left) {
		iocp->br_tech = GLP_BR_MFV;
		iocp->pp_tech = GLP_PP_NONE;
		iocp->mir_cuts = GLP_OFF;
		iocp->cov_cuts = GLP_OFF;
		iocp->gmi_cuts = GLP_OFF;
	}
}

static double
seconds_left(const ilpi_mip *mip, double t0)
{
	double left;

	if (mip->time_limit <= 0)
		return 0;
	left = mip->time_limit - (glp_time() - t0) / 1000;
	return left > 0.001 ? left : 0.001;
}

/*
 * Two rounds of branch and bound: a short one for a good incumbent, then, after
 * reduced-cost fixing against it, the full search started from that incumbent.
 */
static int
branch_and_bound(ilpi_model *m, ilpi_mip *mip, cb_state *st, double t0, char *fixed,
    ilp_error *err)
{
	glp_iocp iocp;
	double z;
	int ret, nfix = 0, lp;

	init_iocp(&iocp, mip, st, seconds_left(mip, t0));
	if (st->presolve) {
		/* one round: no start, nothing to fix against */
		ret = glp_intopt(m->lp, &iocp);
		return st->out_of_time ? GLP_ETMLIM : ret;
	}
	st->node_limit = 500;
	ret = glp_intopt(m->lp, &iocp);
	st->node_limit = 0;
	if (st->out_of_time)
		return GLP_ETMLIM;
	if (st->cut_off)
		return GLP_ESTOP; /* no answer below the cutoff: no second round */
	if (ret != 0 && ret != GLP_ETMLIM && ret != GLP_ESTOP)
		return ret;
	if (ret == 0 || ret == GLP_ETMLIM)
		return ret;
	if (glp_mip_status(m->lp) == GLP_FEAS) {
		z = glp_mip_obj_val(m->lp);
		/* every column: GLPK reads the start's value of each, also of the columns
		 * added after the build (peak rows), and does not check them */
		for (int j = 1; j <= glp_get_num_cols(m->lp); j++)
			st->warm[j] = glp_mip_col_val(m->lp, j);
		st->warm[0] = 0;
		st->warm_given = 0;
		for (int round = 0; round < 3; round++) {
			if ((lp = solve_lp(m, mip, seconds_left(mip, t0), err)) != 0)
				return lp < 0 ? -1 : GLP_ETMLIM;
			ret = fix_by_reduced_cost(m, z, fixed);
			nfix += ret;
			if (ret == 0)
				break;
		}
		ilpi_glpk_note("reduced-cost fixing: %d of %d columns "
		    "fixed against incumbent %.10g", nfix, m->n_cols, z);
	}
	if ((lp = solve_lp(m, mip, seconds_left(mip, t0), err)) != 0)
		return lp < 0 ? -1 : lp == 1 ? GLP_ENOPFS : GLP_ETMLIM;
	init_iocp(&iocp, mip, st, seconds_left(mip, t0));
	ret = glp_intopt(m->lp, &iocp);
	return st->out_of_time ? GLP_ETMLIM : ret;
}

/* Whole (151 lines): its steps (scaling, the LP, the presolver's choice, the MIP, the
 * fixings undone) share the callback state and one cleanup that restores the model. */
int
ilpi_model_solve(ilpi_model *m, ilpi_mip *mip, ilp_error *err)
{
	cb_state st;
	int ret, rc = -1;
	double t0 = glp_time();
	char *fixed = m->fixed;
	double lp_obj = -DBL_MAX;

	memset(&st, 0, sizeof st);
	st.m = m;
	st.mip = mip;
	st.bound = -DBL_MAX;
	st.t_start = st.t_last = t0;
	st.deadline = mip->time_limit > 0 ? t0 + 1000 * mip->time_limit : 0;
	mip->status = GLP_UNDEF;
	mip->timed_out = 0;
	mip->gap_out = -1;
	mip->bound = -DBL_MAX;
	if (m->n_cols == 0) {
		/* Nothing to decide (a backward that needs no forward value): the empty
		 * solution is optimal, and GLPK's glp_intopt rejects a problem without
		 * columns. */
		memset(mip->s, 0, m->red->n_items);
		memset(mip->r, 0, m->red->n_items);
		mip->status = GLP_OPT;
		mip->obj = mip->bound = mip->gap_out = 0;
		return 0;
	}
	memset(fixed, 0, (size_t)m->n_cols + 1);
	/* The start (warm_columns, and the first round's incumbent for the second) has a
	 * value for every column GLPK reads: the peak rows add columns after the build
	 * (before, the second round read past the buffer on llama-2l's least-recompute
	 * stage of the peak objective). */
	if ((size_t)glp_get_num_cols(m->lp) + 1 > m->cap_warm) {
		size_t cap = (size_t)glp_get_num_cols(m->lp) + 1;
		double *w = realloc(m->warm, cap * sizeof *w);

		if (w == NULL) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", m->path != NULL ?
			    m->path : "<graph>");
			return -1;
		}
		m->warm = w;
		m->cap_warm = cap;
	}
	/* Byte coefficients reach 1e7 next to 0/1 links: scaling matters. */
	glp_scale_prob(m->lp, GLP_SF_AUTO);
	/* Scaling a large model takes seconds: the LP gets what is left after it. */
	st.lp_ms = glp_time();
	for (int pass = 0;; pass++) {
		switch (solve_lp(m, mip, seconds_left(mip, t0), err)) {
		case 0:
			break;
		case 1:
			mip->status = GLP_NOFEAS;
			rc = 0;
			goto out;
		case 2:
			mip->timed_out = 1;
			rc = 0;
			goto out;
		default:
			goto out;
		}
		if (pass == 0)
			st.lp_ms = glp_time() - st.lp_ms;
		lp_obj = glp_get_obj_val(m->lp);
		if (pass > 0 || !mip->tie_drop || lp_obj < mip->tie_from)
			break;
		/* again without the tie-break costs (from this basis) */
		for (size_t it = 0; it < m->red->n_items; it++) {
			if (m->col_s[it])
				glp_set_obj_coef(m->lp, m->col_s[it], 0);
			if (m->col_r[it])
				glp_set_obj_coef(m->lp, m->col_r[it], 0);
		}
		ilpi_glpk_note("tie-break costs dropped: LP relaxation %.10g, from %.10g",
		    lp_obj, mip->tie_from);
		mip->tie_dropped = 1;
	}
	/* The presolver when asked for and when GLPK's own root LP (the presolved model's,
	 * without a clock check) fits in the time left as this one did. */
	st.presolve = mip->presolve && mip->warm_s == NULL && !(mip->time_limit > 0 &&
	    3 * st.lp_ms > 1000 * seconds_left(mip, t0));
	st.weighted = !st.presolve && mip->weight != NULL && lp_obj >= mip->weight_from;
	if (st.presolve)
		ilpi_glpk_note("MIP presolver on");
	if (st.weighted)
		ilpi_glpk_note("branching by weight: LP relaxation %.10g, from %.10g", lp_obj,
		    mip->weight_from);
	st.warm = warm_columns(m, mip);
	st.cut_ind = st.presolve ? NULL : m->cut_ind; /* they name the model's columns */
	st.cut_a = m->cut_a;
	st.cut_x = m->cut_x;
	st.cut_v = m->cut_v;
	ret = branch_and_bound(m, mip, &st, t0, fixed, err);
	if (st.cut_off) {
		ilpi_glpk_note("bound %.10g reached the cutoff %.10g: no answer below it",
		    st.bound, mip->cutoff);
		mip->status = GLP_NOFEAS;
		rc = 0;
		goto out;
	}
	switch (ret) {
	case 0:
	case GLP_ETMLIM:
	case GLP_EMIPGAP:
	case GLP_ESTOP:
		break;
	case GLP_ENOPFS:
		mip->status = GLP_NOFEAS;
		rc = 0;
		goto out;
	case -1:
		goto out;
	default:
		solver_fail(m, mip, err, "GLPK: branch-and-bound failed (glp_intopt code %d)",
		    ret);
		goto out;
	}
	mip->timed_out = ret == GLP_ETMLIM;
	mip->status = glp_mip_status(m->lp);
	switch (mip->status) {
	case GLP_OPT:
		take_solution(m, mip);
		mip->bound = mip->obj;
		mip->gap_out = 0;
		break;
	case GLP_FEAS:
		take_solution(m, mip);
		mip->bound = st.bound;
		if (st.bound > -DBL_MAX)
			mip->gap_out = fabs(mip->obj - st.bound) / (fabs(mip->obj) + DBL_EPSILON);
		break;
	case GLP_UNDEF:
		/* No incumbent (so no reduced-cost fixing either): the search's bound, or
		 * at least the relaxation's, still holds for every integer solution. */
		mip->bound = st.bound > lp_obj ? st.bound : lp_obj;
		break;
	case GLP_NOFEAS:
		break;
	default:
		solver_fail(m, mip, err, "GLPK: unexpected MIP status %d", mip->status);
		goto out;
	}
	rc = 0;
out:
	/* Fixings hold for this solve only: the model is reused by later stages. */
	for (int j = 1; j <= m->n_cols; j++)
		if (fixed[j])
			glp_set_col_bnds(m->lp, j, GLP_DB, 0, 1);
	return rc;
}
