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
#include "solver/peak/peak_cuts.h"
#include "solver/model/reduce.h"

#define ABSENT INT32_MIN
#define HELD INT32_MAX
#define INF_THETA INT32_MAX

typedef struct family {
	int32_t theta;
	int *col;                 /* node -> column of c(node, theta), 0: always 0 */
} family;

struct ilpi_peak_cuts {
	const ilp_graph *g;
	ilpi_model *m;
	int col_peak;
	int *col_s, *col_r;       /* node -> its save / recompute column, 0: none */
	int32_t *kfix;            /* node -> batch root of a backward op, -1 */
	int32_t first;            /* graph index of the first tangent user; own turns after */
	int32_t *need_lo, *need_hi; /* node -> the least / largest batch root it can run in
	                           * (INT32_MAX / INT32_MIN: never in the backward) */
	int fallback;             /* torch keeps graph order: one batch */
	family *fam;
	size_t n_fam, cap_fam;
	int *ffam;                /* node -> column of "runs in the forward", 0: never;
	                           * NULL until the first forward point */
	int *pos;                 /* node -> step in the current trace, -1 */
	uint8_t *out_stor;        /* storage root -> shared with a forward output */
	/* the row being built */
	int *ind;
	double *val, *acc;
	size_t cap_row;
	int rows, cols, points;
	/* the last point's rows, for ilpi_peak_cuts_exact */
	int *zrow, *zcol, prow;
	size_t nz, cap_z;
	/* every point: its P row, first z row and column, and z count */
	int *pt_prow, *pt_z0, *pt_nz;  /* pt_z0: offset into zl_row/zl_col */
	int *zl_row, *zl_col;     /* every point's z rows and their z columns (a z column
	                           * may have several rows: its value is their largest) */
	size_t n_zl, cap_zl;
	int32_t *pt_op;           /* its op (graph index), -1 - op for a forward step */
	int32_t cur_op;           /* the op of the point being recorded */
	size_t cap_pt;
	double *colval;
	size_t cap_val;
	double floor;             /* bytes every partition has live at some general
	                           * row's step (the largest such constant) */
	int refused;              /* points refused: the rows reached PEAK_CUT_ROWS_MAX */
	/* the points' rows (P and z rows) as written, for row_value: row -> offset + 1
	 * into kept_ind/kept_val (0: not kept), kept_len its length */
	size_t *kept_at;
	int *kept_len;
	size_t n_kept_at, cap_kept_at;
	int *kept_ind;
	double *kept_val;
	size_t n_kept, cap_kept;
};

static int record_point(ilpi_peak_cuts *pc);

/* Rows the points may add in all: each point costs rows and columns in proportion to
 * the graph (a chain of 100,000 ops: about 700,000 rows a point, 400 bytes each), so
 * past this the points are refused (0: the caller cuts the answer off by a no-good cut
 * and the bound comes from the rows already there). The corpus's largest, the
 * 48-layer transformer, adds about 75,000. */
#define PEAK_CUT_ROWS_MAX 2000000

static int
full(ilpi_peak_cuts *pc)
{
	if (pc->rows < PEAK_CUT_ROWS_MAX)
		return 0;
	pc->refused++;
	return 1;
}

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
	if (fixed_order(pc) != 0 || need_range(pc) != 0)
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

/* ---- rows with merged coefficients --------------------------------------------- */

static int
row_room_n(ilpi_peak_cuts *pc, size_t extra)
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

static int
row_room(ilpi_peak_cuts *pc)
{
	return row_room_n(pc, 0);
}

typedef struct rowb {
	int len;
	double cst;               /* constant on the expression side */
} rowb;

static void
rb_add(ilpi_peak_cuts *pc, rowb *rb, int col, double coef)
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

static void
rb_emit(ilpi_peak_cuts *pc, rowb *rb, int type, double bound)
{
	rb_emit_row(pc, rb, type, bound, 0);
}

/* A point's row (its P row or a z row): kept for row_value. */
static void
rb_emit_kept(ilpi_peak_cuts *pc, rowb *rb, int type, double bound)
{
	rb_emit_row(pc, rb, type, bound, 1);
}

static int
new_col(ilpi_peak_cuts *pc)
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

static const int *
family_of(ilpi_peak_cuts *pc, int32_t theta)
{
	const ilp_graph *g = pc->g;
	family *f;
	const int *inf = NULL;
	rowb rb = { 0, 0 };

	for (size_t k = 0; k < pc->n_fam; k++)
		if (pc->fam[k].theta == theta)
			return pc->fam[k].col;
	/* Own turns (below) read c(X, inf): that family comes first. */
	if (theta != INF_THETA && !pc->fallback && family_of(pc, INF_THETA) == NULL)
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
		if (row_room(pc) != 0)
			return NULL;
		c = f->col[i] = new_col(pc);
		if (row_room(pc) != 0)
			return NULL;
		rb_add(pc, &rb, c, 1);
		rb_add(pc, &rb, pc->col_r[i], -1);
		rb_emit(pc, &rb, GLP_UP, 0);
		rb_add(pc, &rb, c, 1);
		for (uint32_t k = 0; k < n->use_count; k++) {
			int cj = pc->kfix[use[k]] < 0 ? f->col[use[k]] : 0;

			if (cj == 0)
				continue;
			rb_add(pc, &rb, cj, -1);
		}
		rb_emit(pc, &rb, GLP_UP, 0);
		/* A placed user needs X placed too, unless X is saved (then not recomputed):
		 * c >= c(J) - s, which dominates c >= c(J) + r - 1 as s + r <= 1. */
		for (uint32_t k = 0; k < n->use_count; k++) {
			int cj = pc->kfix[use[k]] < 0 ? f->col[use[k]] : 0;

			if (cj == 0)
				continue;
			rb_add(pc, &rb, c, 1);
			rb_add(pc, &rb, cj, -1);
			rb_add(pc, &rb, pc->col_s[i], 1);
			rb_emit(pc, &rb, GLP_LO, 0);
		}
	}
	return f->col;
}

/* ---- literals of one point ----------------------------------------------------- */

typedef struct point {
	int32_t kappa, o;         /* batch root and graph index of the op at the point */
	const ilpi_memtrace *tr;
	const ilpi_memsim *ms;
	int k;                    /* literals in the current term */
	int bad;                  /* a literal the rows cannot say */
} point;

static int
is_bw(const ilpi_peak_cuts *pc, int32_t v)
{
	return pc->kfix[v] >= 0;
}

/* X (recomputed) runs at or before the point: c(X, kappa) or c(X, kappa - 1). */
static int
lit_before(ilpi_peak_cuts *pc, point *pt, rowb *rb, int32_t x, int strict, double sign)
{
	int32_t theta = (strict ? x < pt->o : x <= pt->o) ? pt->kappa : pt->kappa - 1;
	const int *f = family_of(pc, theta);

	if (f == NULL)
		return -1;
	rb_add(pc, rb, f[x], sign);
	return 0;
}

static int
lit_runs(ilpi_peak_cuts *pc, rowb *rb, int32_t x, double sign)
{
	const int *f = family_of(pc, INF_THETA);

	if (f == NULL)
		return -1;
	rb_add(pc, rb, f[x], sign);
	return 0;
}

/* The literals that say storage `key` exists through value v and is read at or after
 * the point by user u (u < 0: v is held to the end). */
static int
key_literals(ilpi_peak_cuts *pc, point *pt, rowb *rb, int32_t v, int32_t u)
{
	const ilp_graph *g = pc->g;
	const ilpi_memtrace *tr = pt->tr;
	int32_t x = v;

	if (u >= 0 && !is_bw(pc, u)) {
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
			rb_add(pc, rb, pc->col_s[x], 1);
			pt->k++;
			return 0;
		}
		if (!is_bw(pc, x)) {
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
			if (is_bw(pc, a))
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
		if (!is_bw(pc, n->view_of)) {
			rb->cst += 1;
			rb_add(pc, rb, pc->col_s[n->view_of], -1);
			if (lit_runs(pc, rb, n->view_of, -1) != 0)
				return -1;
			pt->k++;
		}
		x = n->storage;
	}
	pt->bad = 1;
	return 0;
}

/* Each storage key's span over the steps of one side: st[key] the first step a value
 * with that key is produced, en[key] the last step one is needed (ABSENT when no value
 * has the key). With head and next, also the values of each key as a list. */
static void
storage_spans(size_t n, const int32_t *key, const int32_t *prod, const int32_t *die,
    size_t nk, int32_t *st, int32_t *en, int32_t *head, int32_t *next)
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

static int64_t
key_bytes(const ilp_graph *g, int32_t key)
{
	const ilpi_node *r = &g->node[(size_t)key % g->n];

	return r->kind == ILPI_OP && !(r->flags & ILPI_F_TUPLE) ? r->bytes : 0;
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
			score = (is_bw(pc, u) ? 0 : 1000) + (pt->tr->key[v] == (int32_t)g->n + v ||
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

int
ilpi_peak_cuts_add(ilpi_peak_cuts *pc, const ilpi_memsim *ms, const ilpi_memtrace *tr,
    size_t at)
{
	const ilp_graph *g = pc->g;
	size_t nk = 2 * g->n + 1;
	int32_t *st = NULL, *en = NULL, *head = NULL, *next = NULL, *vals = NULL;
	point pt;
	rowb rb = { 0, 0 }, prow = { 0, 0 };
	double cst = 0;
	int rc = -1, *zc = NULL, *dc = NULL;
	double *zb = NULL, *dv = NULL;
	size_t nz = 0, nd = 0;
	int32_t o = ms->bw_order[at];

	if (full(pc))
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
	if (is_bw(pc, o) ? !pc->fallback && pc->kfix[o] != pt.kappa : pc->col_r[o] == 0)
		return 0;
	st = malloc(nk * sizeof *st);
	en = malloc(nk * sizeof *en);
	head = malloc(nk * sizeof *head);
	next = malloc((g->n + 1) * sizeof *next);
	vals = malloc((g->n + 1) * sizeof *vals);
	zc = malloc((nk + 1) * sizeof *zc);
	zb = malloc((nk + 1) * sizeof *zb);
	dc = malloc((4 * nk + 1) * sizeof *dc);
	dv = malloc((4 * nk + 1) * sizeof *dv);
	if (st == NULL || en == NULL || head == NULL || next == NULL || vals == NULL ||
	    zc == NULL || zb == NULL || dc == NULL || dv == NULL)
		goto out;
	pc->nz = 0;
	if (pc->cap_z < nk + 1) {
		free(pc->zrow);
		free(pc->zcol);
		pc->zrow = malloc((nk + 1) * sizeof *pc->zrow);
		pc->zcol = malloc((nk + 1) * sizeof *pc->zcol);
		pc->cap_z = pc->zrow && pc->zcol ? nk + 1 : 0;
		if (pc->cap_z == 0)
			goto out;
	}
	/* Every literal of this point reads one of three families: build them first, then
	 * reserve room for the row and its z columns (terms are built in place). */
	if (family_of(pc, pt.kappa) == NULL || family_of(pc, pt.kappa - 1) == NULL ||
	    family_of(pc, INF_THETA) == NULL || row_room_n(pc, nk) != 0)
		goto out;
	for (size_t k = 0; k < g->n; k++)
		pc->pos[k] = -1;
	for (size_t k = 0; k < ms->n_bw; k++)
		pc->pos[ms->bw_order[k]] = (int)k;
	storage_spans(g->n, tr->key, tr->prod, tr->die, nk, st, en, head, next);
	/* The forward's outputs the caller holds: bytes whatever is saved. */
	cst = (double)(ms->bw_live[at]);
	for (size_t key = 0; key < nk; key++) {
		int64_t b = key_bytes(g, (int32_t)key);
		int32_t creator = key >= g->n ? (int32_t)(key - g->n) : (int32_t)key, v, u;
		size_t nv = 0;

		if (st[key] == ABSENT || b == 0 || st[key] > (int32_t)at || en[key] < (int32_t)at)
			continue;
		if (key >= g->n && is_bw(pc, creator))
			continue; /* the backward's own storage: the same in every partition */
		if (key < g->n && (g->node[key].flags & ILPI_F_FW_OUTPUT))
			continue; /* held by the caller either way */
		if (key < g->n && pc->out_stor[key])
			continue;
		cst -= (double)b;
		for (int32_t w = head[key]; w >= 0; w = next[w])
			vals[nv++] = w;
		v = witness(pc, &pt, vals, nv, at, &u);
		if (v < 0)
			goto skip;
		pt.k = 0;
		if (key_literals(pc, &pt, &rb, v, u) != 0)
			goto out;
		if (pt.bad)
			goto skip;
		if (!is_bw(pc, o)) {
			const int *fk = family_of(pc, pt.kappa), *fk1 = family_of(pc, pt.kappa - 1);

			rb_add(pc, &rb, fk[o], 1);
			rb_add(pc, &rb, fk1[o], -1);
			pt.k++;
		}
		if (pt.k == 1) {
			/* one literal bounds the storage's liveness by itself: no z */
			for (int j = 1; j <= rb.len; j++) {
				int col = pc->ind[j];

				dc[nd] = col;
				dv[nd++] = (double)b * pc->acc[col];
				pc->acc[col] = 0;
			}
			cst += (double)b * rb.cst;
			rb.len = 0;
			rb.cst = 0;
			continue;
		}
		/* z >= sum(literals) - (k - 1) */
		zc[nz] = new_col(pc);
		zb[nz] = (double)b;
		{
			/* move the literal sum into z - sum >= -(k - 1) */
			rowb t = rb;

			for (int j = 1; j <= t.len; j++)
				pc->acc[pc->ind[j]] = -pc->acc[pc->ind[j]];
			rb_add(pc, &t, zc[nz], 1);
			t.cst = -t.cst;
			rb_emit_kept(pc, &t, GLP_LO, -(double)(pt.k - 1));
			pc->zrow[nz] = glp_get_num_rows(pc->m->lp);
			pc->zcol[nz] = zc[nz];
			rb.len = 0;
			rb.cst = 0;
		}
		nz++;
		continue;
skip:
		/* unexplained: drop the whole row (its value would not be exact) */
		for (int j = 1; j <= rb.len; j++)
			pc->acc[pc->ind[j]] = 0;
		rc = 0;
		goto out;
	}
	rb_add(pc, &prow, pc->col_peak, 1);
	for (size_t k = 0; k < nz; k++)
		rb_add(pc, &prow, zc[k], -zb[k] / pc->m->byte_unit);
	for (size_t k = 0; k < nd; k++)
		rb_add(pc, &prow, dc[k], -dv[k] / pc->m->byte_unit);
	rb_emit_kept(pc, &prow, GLP_LO, cst / pc->m->byte_unit);
	pc->prow = glp_get_num_rows(pc->m->lp);
	pc->nz = nz;
	pc->cur_op = o;
	if (record_point(pc) != 0)
		goto out;
	rc = 1;
out:
	free(st);
	free(en);
	free(head);
	free(next);
	free(vals);
	free(zc);
	free(zb);
	free(dc);
	free(dv);
	return rc;
}

/* ---- rows over every partition at one backward op's step --------------------- */

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
	const int *inf = family_of(pc, INF_THETA), *f;

	(void)o;
	if (inf == NULL || (f = family_of(pc, kappa)) == NULL)
		return -1;
	*b1 = inf[u];
	*b0 = f[u];
	return 0;
}

/* The conjunctions of storage `key` (bytes b) whose value v exists when literal `a`
 * (and `e`, when not 0) holds: one per reader of v, or of a view of v that follows it
 * (not a saved rep of its own), that runs at or after the point: a backward op there
 * gives `a` (and `e`) alone. */
typedef struct conjs {
	int32_t *slot;        /* key -> index among the row's storages, -1 */
	int64_t *sbytes;      /* per storage: bytes */
	size_t n_st;
	conj *cj;
	size_t n_cj, cap_cj;
} conjs;

static int
reader_conjs(ilpi_peak_cuts *pc, conjs *cs, int32_t kappa, int32_t o, size_t at,
    int32_t v, int a, int e, size_t key, int64_t b)
{
	const ilp_graph *g = pc->g;
	int32_t stack[64];
	int sp = 0;

	stack[sp++] = v;
	while (sp > 0) {
		int32_t x = stack[--sp];
		const ilpi_node *n = &g->node[x];
		const int32_t *use = ilpi_users(g, n);

		for (uint32_t j = 0; j < n->use_count; j++) {
			int32_t u = use[j];
			conj c = { 0, a, 0, 0, e };

			if (g->node[u].view_of == x && pc->col_s[u] == 0 && sp < 64)
				stack[sp++] = u;
			if (is_bw(pc, u)) {
				if (pc->pos[u] < (int32_t)at)
					continue;
			} else if (pc->col_r[u] == 0) {
				continue;
			} else {
				if (after_cols(pc, kappa, o, u, &c.b1, &c.b0) != 0)
					return -1;
				if (c.b1 == 0)
					continue;
			}
			if (cs->slot[key] < 0) {
				cs->slot[key] = (int32_t)cs->n_st;
				cs->sbytes[cs->n_st++] = b;
			}
			c.z = (size_t)cs->slot[key];
			if (ILPI_GROW(cs->cj, cs->cap_cj, cs->n_cj, 1) != 0)
				return -1;
			cs->cj[cs->n_cj++] = c;
		}
	}
	return 0;
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

int
ilpi_peak_cuts_add_general(ilpi_peak_cuts *pc, const ilpi_memsim *ms,
    const ilpi_memtrace *tr, size_t at)
{
	const ilp_graph *g = pc->g;
	const ilpi_model *m = pc->m;
	const ilpi_reduced *red = m->red;
	size_t nk = 2 * g->n + 1;
	int32_t o = ms->bw_order[at], kappa = tr->root[at];
	int32_t *st = NULL, *en = NULL;
	conjs cs = { NULL, NULL, 0, NULL, 0, 0 };
	conj *cj;
	int *ncj = NULL, *single = NULL;
	const int *fk;
	rowb rb = { 0, 0 };
	double cst;
	int rc = -1;

	if (!is_bw(pc, o) || (!pc->fallback && pc->kfix[o] != kappa) || full(pc))
		return 0;
	/* One family, c(X, kappa): for an op X after o in graph order "runs at or
	 * before the point" is c(X, kappa - 1) <= c(X, kappa); the rows drop such X's
	 * own storage and take c(X, kappa) for "X runs strictly before the point" in a
	 * reader's literal (so "the reader runs at or after it" is at most the truth). */
	if ((fk = family_of(pc, kappa)) == NULL || family_of(pc, INF_THETA) == NULL)
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
	/* The constant: what the answer has live there minus its storages that some
	 * partition may not have (the rest is the backward's own and held storage). */
	for (size_t k = 0; k < nk; k++)
		cs.slot[k] = -1;
	storage_spans(g->n, tr->key, tr->prod, tr->die, nk, st, en, NULL, NULL);
	cst = (double)ms->bw_live[at];
	for (size_t key = 0; key < nk; key++) {
		int64_t b = key_bytes(g, (int32_t)key);

		if (st[key] == ABSENT || b == 0 || st[key] > (int32_t)at || en[key] < (int32_t)at)
			continue;
		if (key >= g->n && is_bw(pc, (int32_t)(key - g->n)))
			continue;
		if (held_storage(pc, key))
			continue;
		cst -= (double)b;
	}
	/* What is left is live there in every partition: the backward's own storage
	 * (its ops run, and read, in the same order whatever is recomputed) and the
	 * held storage. */
	pc->floor = fmax(pc->floor, cst);
	/* Conjunctions, storage by storage: saved storage (key: its root) read at or
	 * after the point through a saved item's rep; fresh storage (key: g->n + X) of a
	 * recomputed X that runs at or before the point, read at or after it. */
	for (size_t it = 0; it < red->n_items; it++) {
		int32_t rep = red->item[it].rep, key;
		int64_t b;

		if (pc->col_s[rep] == 0)
			continue;
		key = g->node[rep].storage;
		b = key_bytes(g, key);
		if (b == 0 || held_storage(pc, (size_t)key))
			continue;
		if (reader_conjs(pc, &cs, kappa, o, at, rep, pc->col_s[rep], 0, (size_t)key,
		    b) != 0)
			goto out;
	}
	for (size_t v = 0; v < g->n; v++) {
		const ilpi_node *n = &g->node[v];
		size_t key = g->n + v;
		int64_t b = key_bytes(g, (int32_t)key);
		int a;

		if (pc->col_r[v] == 0 || is_bw(pc, (int32_t)v) || n->kind != ILPI_OP ||
		    n->view_of != ILPI_NONE || b == 0)
			continue;
		a = (int32_t)v <= o ? fk[v] : 0;
		if (a != 0 && reader_conjs(pc, &cs, kappa, o, at, (int32_t)v, a, 0, key, b) != 0)
			goto out;
		/* A recomputed getitem's storage is allocated when its tuple runs (the
		 * simulator's rule), which may be in an earlier batch than the getitem's
		 * own need: "the tuple runs at or before the point" and "the getitem is
		 * recomputed" (transformer-12l: the layer norms' mean and rstd, 64 KiB a
		 * layer that the rows missed). */
		{
			int32_t x = ilpi_getitem_parent(g, v);

			a = x != ILPI_NONE && x <= o && (g->node[x].flags & ILPI_F_TUPLE) &&
			    !is_bw(pc, x) ? fk[x] : 0;
			if (a != 0 && reader_conjs(pc, &cs, kappa, o, at, (int32_t)v, a,
			    pc->col_r[v], key, b) != 0)
				goto out;
		}
	}
	/* A storage with one one-literal conjunction enters the row by that literal;
	 * the others get z in [0, 1], z >= each conjunction. */
	cj = cs.cj;
	ncj = calloc(cs.n_st + 1, sizeof *ncj);
	single = calloc(cs.n_st + 1, sizeof *single);
	if (ncj == NULL || single == NULL)
		goto out;
	/* A one-literal conjunction dominates the two-literal ones with the same first
	 * literal (a storage's first literal is one column, but a saved storage shared by
	 * items has one per item: keep the others); repeats go too. */
	for (size_t k = 0; k < cs.n_cj; k++)
		if (cj[k].b1 == 0 && cj[k].e == 0)
			single[cj[k].z] = single[cj[k].z] == 0 || single[cj[k].z] == cj[k].a ?
			    cj[k].a : -1;
	if (drop_repeats(&cs, single) != 0)
		goto out;
	for (size_t k = 0; k < cs.n_cj; k++)
		ncj[cj[k].z]++;
	if (pc->cap_z < cs.n_cj + 1) {
		free(pc->zrow);
		free(pc->zcol);
		pc->zrow = malloc((cs.n_cj + 1) * sizeof *pc->zrow);
		pc->zcol = malloc((cs.n_cj + 1) * sizeof *pc->zcol);
		pc->cap_z = pc->zrow && pc->zcol ? cs.n_cj + 1 : 0;
		if (pc->cap_z == 0)
			goto out;
	}
	pc->nz = 0;
	for (size_t z = 0; z < cs.n_st; z++) {
		if (ncj[z] == 1 && single[z] > 0)
			continue;
		ncj[z] = -new_col(pc); /* now: minus its z column */
	}
	if (row_room_n(pc, cs.n_st + 2) != 0)
		goto out;
	for (size_t k = 0; k < cs.n_cj; k++) {
		int zc = -ncj[cj[k].z];

		if (zc <= 0)
			continue;
		rb_add(pc, &rb, zc, 1);
		rb_add(pc, &rb, cj[k].a, -1);
		if (cj[k].b1 != 0) {
			rb_add(pc, &rb, cj[k].b1, -1);
			rb_add(pc, &rb, cj[k].b0, 1);
		}
		rb_add(pc, &rb, cj[k].e, -1);
		rb_emit_kept(pc, &rb, GLP_LO, -(double)((cj[k].b1 != 0) + (cj[k].e != 0)));
		pc->zrow[pc->nz] = glp_get_num_rows(pc->m->lp);
		pc->zcol[pc->nz++] = zc;
	}
	rb_add(pc, &rb, pc->col_peak, 1);
	for (size_t z = 0; z < cs.n_st; z++)
		rb_add(pc, &rb, ncj[z] < 0 ? -ncj[z] : single[z],
		    -(double)cs.sbytes[z] / pc->m->byte_unit);
	rb_emit_kept(pc, &rb, GLP_LO, cst / pc->m->byte_unit);
	pc->prow = glp_get_num_rows(pc->m->lp);
	pc->cur_op = o;
	rc = record_point(pc) == 0 ? 1 : -1;
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

/* Remembers the last point's rows (pc->prow, pc->zrow/zcol, pc->nz: each z row and
 * its z column; a z column may come with several rows). */
static int
record_point(ilpi_peak_cuts *pc)
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

/* ---- forward points -------------------------------------------------------------- */

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
		if (row_room(pc) != 0)
			return -1;
		c = pc->ffam[i] = new_col(pc);
		if (row_room(pc) != 0)
			return -1;
		rb_add(pc, &rb, c, 1);
		rb_add(pc, &rb, pc->col_s[i], -1);
		for (uint32_t k = 0; k < n->use_count; k++)
			if (g->node[use[k]].cls == ILPI_UNCLAIMED)
				rb_add(pc, &rb, pc->ffam[use[k]], -1);
		rb_emit(pc, &rb, GLP_UP, 0);
		rb_add(pc, &rb, c, 1);
		rb_add(pc, &rb, pc->col_s[i], -1);
		rb_emit(pc, &rb, GLP_LO, 0);
		for (uint32_t k = 0; k < n->use_count; k++) {
			if (g->node[use[k]].cls != ILPI_UNCLAIMED || pc->ffam[use[k]] == 0)
				continue;
			rb_add(pc, &rb, c, 1);
			rb_add(pc, &rb, pc->ffam[use[k]], -1);
			rb_emit(pc, &rb, GLP_LO, 0);
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

int
ilpi_peak_cuts_add_fw(ilpi_peak_cuts *pc, const ilpi_memsim *ms, const ilpi_memtrace *tr,
    size_t at)
{
	const ilp_graph *g = pc->g;
	size_t nk = 2 * g->n + 1, nz = 0, *tbeg = NULL, *tlen = NULL;
	int64_t *tb = NULL;
	int32_t *st = NULL, *en = NULL, *head = NULL, *next = NULL, *pos = NULL;
	int32_t o = ms->fw_order[at];
	fwterm t = { NULL, 0, 0, 0 };
	rowb rb = { 0, 0 };
	double cst;
	int rc = -1, cond = 0;

	if (full(pc))
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
	st = malloc(nk * sizeof *st);
	en = malloc(nk * sizeof *en);
	head = malloc(nk * sizeof *head);
	next = malloc((g->n + 1) * sizeof *next);
	pos = malloc((g->n + 1) * sizeof *pos);
	tbeg = malloc(nk * sizeof *tbeg);
	tlen = malloc(nk * sizeof *tlen);
	tb = malloc(nk * sizeof *tb);
	if (st == NULL || en == NULL || head == NULL || next == NULL || pos == NULL ||
	    tbeg == NULL || tlen == NULL || tb == NULL)
		goto out;
	for (size_t k = 0; k < g->n; k++)
		pos[k] = -1;
	for (size_t k = 0; k < ms->n_fw; k++)
		pos[ms->fw_order[k]] = (int32_t)k;
	storage_spans(g->n, tr->fkey, tr->fprod, tr->fdie, nk, st, en, head, next);
	cst = (double)ms->fw_live[at];
	for (size_t key = 0; key < nk; key++) {
		int64_t b = key_bytes(g, (int32_t)key);
		int32_t u, v;
		size_t n0 = t.n;

		if (st[key] == ABSENT || b == 0 || st[key] > (int32_t)at || en[key] < (int32_t)at)
			continue;
		if ((v = fw_witness(g, tr, pos, head, next, key, at, &u)) < 0) {
			rc = 0;
			goto out;
		}
		if (u >= 0 ? fw_runs(pc, &t, u) != 0 : !(g->node[v].flags & ILPI_F_FW_OUTPUT) &&
		    fw_lit(&t, pc->col_s[v]) != 0)
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
		cst -= (double)b;
		tbeg[nz] = n0;
		tlen[nz] = t.n - n0;
		tb[nz++] = b;
	}
	if (row_room_n(pc, nz + 2) != 0)
		goto out;
	pc->nz = 0;
	if (pc->cap_z < nz + 1) {
		free(pc->zrow);
		free(pc->zcol);
		pc->zrow = malloc((nz + 1) * sizeof *pc->zrow);
		pc->zcol = malloc((nz + 1) * sizeof *pc->zcol);
		pc->cap_z = pc->zrow && pc->zcol ? nz + 1 : 0;
		if (pc->cap_z == 0)
			goto out;
	}
	/* z >= sum(literals) - (k - 1) for the terms of two or more literals */
	for (size_t k = 0; k < nz; k++) {
		if (tlen[k] == 1)
			continue;
		pc->zcol[pc->nz] = new_col(pc);
		rb_add(pc, &rb, pc->zcol[pc->nz], 1);
		for (size_t j = 0; j < tlen[k]; j++)
			rb_add(pc, &rb, t.tcol[tbeg[k] + j], -1);
		rb_emit_kept(pc, &rb, GLP_LO, -(double)(tlen[k] - 1));
		pc->zrow[pc->nz] = glp_get_num_rows(pc->m->lp);
		tbeg[k] = (size_t)pc->zcol[pc->nz++]; /* now: the z column */
	}
	rb_add(pc, &rb, pc->col_peak, 1);
	for (size_t k = 0; k < nz; k++)
		rb_add(pc, &rb, tlen[k] == 1 ? t.tcol[tbeg[k]] : (int)tbeg[k],
		    -(double)tb[k] / pc->m->byte_unit);
	rb_emit_kept(pc, &rb, GLP_LO, cst / pc->m->byte_unit);
	pc->prow = glp_get_num_rows(pc->m->lp);
	pc->cur_op = -1 - o;
	rc = record_point(pc) == 0 ? 1 : -1;
out:
	free(t.tcol);
	free(st);
	free(en);
	free(head);
	free(next);
	free(pos);
	free(tbeg);
	free(tlen);
	free(tb);
	return rc;
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
	if (row_room(pc) != 0)
		return -1;
	memset(pc->colval, 0, nc * sizeof *pc->colval);
	for (size_t it = 0; it < red->n_items; it++) {
		if (m->col_s[it])
			pc->colval[m->col_s[it]] = s[it];
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

			if (pc->col_r[i] == 0 || is_bw(pc, (int32_t)i))
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
