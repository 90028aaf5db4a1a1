/*
 * knapsack.c - torch's knapsack solvers for the memory-budget path
 * (_activation_checkpointing/knapsack.py): dp_knapsack, greedy_knapsack, ilp_knapsack
 * (torch 2.6 and 2.14 alike) and dp_knapsack_sliding_hirschberg (torch 2.14).
 */
#include "config.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "solver/model/glpk_env.h"
#include "solver/mincut/knapsack.h"

int
ilpi_knapsack_solver_parse(const char *name)
{
	if (strcmp(name, "dp") == 0)
		return ILPI_KNAPSACK_DP;
	if (strcmp(name, "greedy") == 0)
		return ILPI_KNAPSACK_GREEDY;
	if (strcmp(name, "ilp") == 0)
		return ILPI_KNAPSACK_ILP;
	if (strcmp(name, "dp_knapsack_sliding_hirschberg") == 0)
		return ILPI_KNAPSACK_HIRSCHBERG;
	return -1;
}

const char *
ilpi_knapsack_solver_name(ilpi_knapsack_solver s)
{
	return s == ILPI_KNAPSACK_GREEDY ? "greedy" : s == ILPI_KNAPSACK_ILP ? "ilp" :
	    s == ILPI_KNAPSACK_HIRSCHBERG ? "dp_knapsack_sliding_hirschberg" : "dp";
}

/* Python's int(round(x)) for the values torch quantises: nearest, ties to even
 * (nearbyint in the default rounding mode). */
static long
py_round(double x)
{
	return (long)nearbyint(x);
}

int
ilpi_knapsack_dp(const double *memory, const double *runtime, size_t n, double max_memory,
    uint8_t *save, ilp_error *err)
{
	const double S = 10000;
	long qmax = py_round(max_memory * S), *qm = NULL;
	size_t w, row;
	float *prev = NULL, *cur = NULL;
	uint8_t *took = NULL; /* dp[i][j] != dp[i-1][j], one byte per cell */
	int rc = -1;

	if (qmax < 0)
		qmax = 0;
	w = (size_t)qmax + 1;
	qm = malloc((n + 1) * sizeof *qm);
	prev = calloc(w, sizeof *prev);
	cur = calloc(w, sizeof *cur);
	took = calloc(n * w + 1, 1);
	if (qm == NULL || prev == NULL || cur == NULL || took == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "knapsack: out of memory (%zu x %zu table)", n, w);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		qm[i] = py_round(memory[i] * S);
	for (size_t i = 0; i < n; i++) {
		float rt = (float)runtime[i];
		long c = qm[i];
		uint8_t *t = took + i * w;

		for (size_t j = 0; j < w; j++) {
			float v = prev[j];

			if (c == 0)
				v = prev[j] + rt;
			else if ((long)j >= c && c > 0) {
				float with = prev[j - (size_t)c] + rt;

				v = with > v ? with : v;
			}
			cur[j] = v;
			t[j] = v != prev[j];
		}
		memcpy(prev, cur, w * sizeof *prev);
	}
	row = (size_t)qmax;
	for (size_t i = n; i-- > 0;) {
		save[i] = took[i * w + row];
		if (save[i]) {
			/* c <= row whenever the cell changed */
			row -= (size_t)qm[i];
		}
	}
	rc = 0;
out:
	free(qm);
	free(prev);
	free(cur);
	free(took);
	return rc;
}

typedef struct ratio_item {
	double key;
	size_t i;
} ratio_item;

static int
by_ratio_desc(const void *a, const void *b)
{
	const ratio_item *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i; /* Python's sort is stable */
}

void
ilpi_knapsack_greedy(const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save)
{
	ratio_item *it = malloc((n + 1) * sizeof *it);
	double total = 0;

	if (it == NULL) { /* degrade to the unsorted order rather than fail */
		for (size_t i = 0; i < n; i++) {
			save[i] = total + memory[i] <= max_memory;
			total += save[i] ? memory[i] : 0;
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		it[i].key = memory[i] == 0 ? INFINITY : runtime[i] / memory[i];
		it[i].i = i;
	}
	qsort(it, n, sizeof *it, by_ratio_desc);
	for (size_t k = 0; k < n; k++) {
		size_t i = it[k].i;

		save[i] = total + memory[i] <= max_memory;
		if (save[i])
			total += memory[i];
	}
	free(it);
}

/* Allocated before GLPK runs and freed after, so a GLPK error longjmp leaks nothing. */
typedef struct ilp_ctx {
	const double *memory, *runtime;
	size_t n;
	double max_memory;
	uint8_t *save;
	int *ind;
	double *val;
} ilp_ctx;

static int
ilp_run(void *vctx, ilp_error *err)
{
	ilp_ctx *c = vctx;
	glp_prob *lp = glp_create_prob();
	int *ind = c->ind;
	double *val = c->val;
	glp_iocp parm;
	int rc = -1, r;

	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, 1, GLP_UP, 0, c->max_memory);
	if (c->n > 0)
		glp_add_cols(lp, (int)c->n);
	for (size_t i = 0; i < c->n; i++) {
		glp_set_col_kind(lp, (int)i + 1, GLP_BV);
		glp_set_obj_coef(lp, (int)i + 1, c->runtime[i]);
		ind[i + 1] = (int)i + 1;
		val[i + 1] = c->memory[i];
	}
	glp_set_mat_row(lp, 1, (int)c->n, ind, val);
	glp_init_iocp(&parm);
	parm.presolve = GLP_ON;
	parm.msg_lev = GLP_MSG_OFF;
	r = c->n > 0 ? glp_intopt(lp, &parm) : 0;
	if (r != 0 || (c->n > 0 && glp_mip_status(lp) != GLP_OPT)) {
		ilpi_err(err, ILP_ERR_SOLVER, "knapsack: GLPK found no optimum (code %d)", r);
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		c->save[i] = glp_mip_col_val(lp, (int)i + 1) > 0.5;
	rc = 0;
out:
	glp_delete_prob(lp);
	return rc;
}

int
ilpi_knapsack_ilp(const double *memory, const double *runtime, size_t n, double max_memory,
    uint8_t *save, ilp_error *err)
{
	ilp_ctx c = { memory, runtime, n, max_memory, save, NULL, NULL };
	ilpi_glpk_log lg = { NULL, NULL, 0 };
	int rc = -1;

	c.ind = malloc((n + 1) * sizeof *c.ind);
	c.val = malloc((n + 1) * sizeof *c.val);
	if (c.ind == NULL || c.val == NULL)
		ilpi_err(err, ILP_ERR_SYSTEM, "knapsack: out of memory");
	else
		rc = ilpi_glpk_run(ilp_run, &c, &lg, NULL, err);
	free(c.ind);
	free(c.val);
	return rc;
}

/* One half's DP profile over capacities 0..cap-1 (float32, as torch's tensors): items of
 * quantised memory 0 add to every capacity, items of cap or more are skipped. */
static void
hb_profile(const long *qm, const double *runtime, size_t from, size_t to, size_t cap,
    float *dp, float *cand)
{
	memset(dp, 0, cap * sizeof *dp);
	for (size_t i = from; i < to; i++) {
		float rt = (float)runtime[i];
		long m = qm[i];

		if (m == 0) {
			for (size_t j = 0; j < cap; j++)
				dp[j] += rt;
			continue;
		}
		if (m < 0 || (size_t)m >= cap)
			continue;
		for (size_t j = 0; j + (size_t)m < cap; j++)
			cand[j] = dp[j] + rt;
		for (size_t j = (size_t)m; j < cap; j++)
			dp[j] = dp[j] > cand[j - (size_t)m] ? dp[j] : cand[j - (size_t)m];
	}
}

typedef struct hb_seg {
	size_t start, end;
	long cap;
} hb_seg;

int
ilpi_knapsack_hirschberg(const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save, ilp_error *err)
{
	const double S = 10000;
	long qmax = py_round(max_memory * S), *qm = NULL;
	float *dp = NULL, *cand = NULL, *left = NULL;
	hb_seg *stack = NULL;
	size_t w, top = 0;
	int rc = -1;

	if (n == 0)
		return 0;
	if (qmax < 0)
		qmax = 0;
	w = (size_t)qmax + 2; /* a segment's profile has capacity + 1 entries */
	qm = malloc(n * sizeof *qm);
	dp = malloc(w * sizeof *dp);
	cand = malloc(w * sizeof *cand);
	left = malloc(w * sizeof *left);
	stack = malloc((2 * n + 2) * sizeof *stack); /* depth-first: at most 2 log2 n */
	if (qm == NULL || dp == NULL || cand == NULL || left == NULL || stack == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "knapsack: out of memory (%zu items, capacity %ld)",
		    n, qmax);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		qm[i] = py_round(memory[i] * S);
	stack[top++] = (hb_seg){ 0, n, qmax };
	while (top > 0) {
		hb_seg sg = stack[--top];
		size_t len = sg.end - sg.start, mid, cap, best = 0;
		long lc, rcap;

		if (len == 0)
			continue;
		if (len == 1) {
			save[sg.start] = qm[sg.start] <= sg.cap && runtime[sg.start] > 0.0;
			continue;
		}
		/* torch: the left half is the upper one, the right the lower one */
		mid = sg.start + len / 2;
		cap = (size_t)sg.cap + 1;
		hb_profile(qm, runtime, mid, sg.end, cap, dp, cand);
		memcpy(left, dp, cap * sizeof *left);
		hb_profile(qm, runtime, sg.start, mid, cap, dp, cand);
		for (size_t j = 0; j < cap; j++) {
			left[j] += dp[cap - 1 - j];
			if (left[j] > left[best])
				best = j; /* torch.argmax: the first maximum */
		}
		/* the right half gets the incremented capacity less the split, as torch does */
		lc = (long)best;
		rcap = (long)cap - (long)best;
		lc = lc < 0 ? 0 : lc > qmax ? qmax : lc;
		rcap = rcap < 0 ? 0 : rcap > qmax ? qmax : rcap;
		stack[top++] = (hb_seg){ sg.start, mid, rcap };
		stack[top++] = (hb_seg){ mid, sg.end, lc };
	}
	rc = 0;
out:
	free(qm);
	free(dp);
	free(cand);
	free(left);
	free(stack);
	return rc;
}

int
ilpi_knapsack(ilpi_knapsack_solver s, const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save, ilp_error *err)
{
	switch (s) {
	case ILPI_KNAPSACK_GREEDY:
		ilpi_knapsack_greedy(memory, runtime, n, max_memory, save);
		return 0;
	case ILPI_KNAPSACK_ILP:
		return ilpi_knapsack_ilp(memory, runtime, n, max_memory, save, err);
	case ILPI_KNAPSACK_HIRSCHBERG:
		return ilpi_knapsack_hirschberg(memory, runtime, n, max_memory, save, err);
	case ILPI_KNAPSACK_DP:
		break;
	}
	return ilpi_knapsack_dp(memory, runtime, n, max_memory, save, err);
}
