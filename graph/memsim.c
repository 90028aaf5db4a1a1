/*
 * memsim.c - peak memory of a partition: the forward and the backward graphs run in
 * the order PyTorch 2.6 runs them, every value freed after its last use, and the
 * high-water mark of the bytes they allocate (docs/partition.md "Peak memory").
 *
 * Shares nothing with the solvers: it is the truth the peak objective is checked
 * against. Storage is counted per root (views share their base's bytes); primals and
 * tangents are the caller's and are not counted.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cost.h"
#include "graph/graph.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "graph/partition.h"

#define ABSENT INT32_MIN
#define HELD INT32_MAX

void
ilpi_memsim_free(ilpi_memsim *m)
{
	if (m == NULL)
		return;
	free(m->fw_order);
	free(m->fw_live);
	free(m->bw_order);
	free(m->bw_live);
	free(m->xfer);
	memset(m, 0, sizeof *m);
}

/* ---- the backward's order (torch 2.6 reordering_to_mimic_autograd_engine) ---- */

typedef struct placer {
	const ilp_graph *g;
	const int32_t *op;    /* bw->op */
	int32_t *pos;       /* node -> position in bw->op, -1 when not a backward op */
	uint8_t *state;     /* 1 placed, 2 collected in the current closure */
	int32_t *stack, *batch;
	int32_t *order;
	int32_t *root;      /* per placed position: the op whose place() placed it, or NULL */
	int32_t cur_root;
	size_t n_order;
} placer;

static int
cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Places `x` after every not yet placed op it needs, those in graph order. */
static void
place(placer *pl, int32_t x)
{
	size_t sp = 0, nb = 0;

	if (pl->pos[x] < 0 || pl->state[x] != 0)
		return;
	pl->stack[sp++] = x;
	while (sp > 0) {
		int32_t y = pl->stack[--sp];
		const ilpi_node *n = &pl->g->node[y];
		const int32_t *in = ilpi_inputs(pl->g, n);

		if (pl->state[y] != 0)
			continue;
		pl->state[y] = 2;
		pl->batch[nb++] = pl->pos[y];
		for (uint32_t k = 0; k < n->in_count; k++)
			if (pl->pos[in[k]] >= 0 && pl->state[in[k]] == 0)
				pl->stack[sp++] = in[k];
	}
	qsort(pl->batch, nb, sizeof *pl->batch, cmp_i32);
	for (size_t k = 0; k < nb; k++) {
		if (pl->root != NULL)
			pl->root[pl->n_order] = pl->cur_root;
		pl->order[pl->n_order++] = pl->batch[k];
		pl->state[pl->op[pl->batch[k]]] = 1;
	}
}

int
ilpi_autograd_order(const ilp_graph *g, const ilpi_side *bw, int32_t *order)
{
	return ilpi_autograd_batches(g, bw, order, NULL);
}

int
ilpi_autograd_batches(const ilp_graph *g, const ilpi_side *bw, int32_t *order,
    int32_t *root)
{
	placer pl = { g, bw->op, NULL, NULL, NULL, NULL, order, root, 0, 0 };
	size_t first = bw->n_op, edges = 0;
	int rc = -1;

	pl.pos = malloc((g->n + 1) * sizeof *pl.pos);
	pl.state = calloc(g->n + 1, 1);
	pl.batch = malloc((bw->n_op + 1) * sizeof *pl.batch);
	for (size_t k = 0; k < bw->n_op; k++)
		edges += g->node[bw->op[k]].in_count;
	pl.stack = malloc((edges + bw->n_op + 1) * sizeof *pl.stack);
	if (pl.pos == NULL || pl.state == NULL || pl.batch == NULL || pl.stack == NULL)
		goto out;
	for (size_t i = 0; i < g->n; i++)
		pl.pos[i] = -1;
	for (size_t k = 0; k < bw->n_op; k++)
		pl.pos[bw->op[k]] = (int32_t)k;
	/* The first backward op is the first user of a tangent. */
	for (size_t k = 0; k < bw->n_op && first == bw->n_op; k++) {
		const ilpi_node *n = &g->node[bw->op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		for (uint32_t j = 0; j < n->in_count; j++)
			if (g->node[in[j]].kind == ILPI_TANGENT)
				first = k;
	}
	if (first == bw->n_op) {
		/* No op uses a tangent: torch leaves the graph as it is. */
		memcpy(order, bw->op, bw->n_op * sizeof *order);
		for (size_t k = 0; root != NULL && k < bw->n_op; k++)
			root[k] = 0;
		rc = 0;
		goto out;
	}
	/* Positions first, then the op node ids. A batch's root is the op whose turn
	 * placed it (graph index; the gradients after every op). */
	for (size_t k = first; k < bw->n_op; k++) {
		pl.cur_root = bw->op[k];
		place(&pl, bw->op[k]);
	}
	for (size_t k = 0; k < bw->n_out; k++)
		if (bw->out[k] != ILPI_NONE) {
			pl.cur_root = (int32_t)(g->n + k);
			place(&pl, bw->out[k]);
		}
	for (size_t k = 0; k < pl.n_order; k++)
		order[k] = bw->op[order[k]];
	/* Whatever the gradients do not need was dead code: torch drops it as well. */
	rc = pl.n_order == bw->n_op ? 0 : -1;
	if (rc != 0) {
		memcpy(order, bw->op, bw->n_op * sizeof *order);
		for (size_t k = 0; root != NULL && k < bw->n_op; k++)
			root[k] = 0;
		rc = 0;
	}
out:
	free(pl.pos);
	free(pl.state);
	free(pl.batch);
	free(pl.stack);
	return rc;
}

/* ---- one side ---------------------------------------------------------------- */

/* Storage is tracked by key: a value live at a side's start keeps its root's storage
 * (key = root); an op computed on the side makes fresh storage (key = n + op, so a
 * recomputed copy is not the forward's), and a view takes its base's key. */
typedef struct side_run {
	const ilp_graph *g;
	int32_t *prod;      /* node -> step it is produced; -1 live at the start; ABSENT */
	int32_t *die;       /* node -> last step it is needed; -1 before the first; HELD */
	int32_t *key;       /* node -> storage key */
	int32_t *st, *en;   /* key -> first and last step it is live (2n entries) */
	int32_t *present;   /* values of this side */
	size_t n_present;
	int64_t *alloc;     /* per step: bytes allocated */
	int64_t *release;   /* per step: bytes freed after it */
} side_run;

static void
add_value(side_run *r, int32_t v, int32_t prod, int32_t key)
{
	if (r->prod[v] != ABSENT)
		return;
	r->prod[v] = prod;
	r->die[v] = prod;
	r->key[v] = key;
	r->present[r->n_present++] = v;
}

/* The key of op v computed at a side's step: its base's when it is a view of a value
 * of this side, else fresh. */
static int32_t
op_key(const side_run *r, int32_t v)
{
	const ilpi_node *n = &r->g->node[v];

	if (n->view_of != ILPI_NONE && r->prod[n->view_of] != ABSENT)
		return r->key[n->view_of];
	if (n->view_of != ILPI_NONE && r->prod[n->storage] != ABSENT)
		return r->key[n->storage];
	return (int32_t)r->g->n + v;
}

/* Runs `ops` after `initial` (live at the start); `held` values are never freed on this
 * side. Fills live[t] (bytes live while step t runs: inputs and fresh outputs); returns
 * the bytes live at the start and at the end. */
static void
run_side(side_run *r, const int32_t *initial, size_t n_initial, const int32_t *held,
    size_t n_held, const int32_t *ops, size_t n_ops, int64_t *live, int64_t *start_live,
    int64_t *end_live, int32_t *t_prod, int32_t *t_die, int32_t *t_key)
{
	const ilp_graph *g = r->g;
	int64_t cur = 0, at_start = 0;

	r->n_present = 0;
	for (size_t k = 0; k < n_initial; k++)
		add_value(r, initial[k], -1, g->node[initial[k]].storage);
	for (size_t t = 0; t < n_ops; t++) {
		const ilpi_node *n = &g->node[ops[t]];
		const int32_t *in = ilpi_inputs(g, n);
		int32_t prod = (int32_t)t;

		/* A tuple op allocates its elements; getitem only names one. */
		if ((n->flags & ILPI_F_GETITEM) && n->in_count == 1 &&
		    (g->node[in[0]].flags & ILPI_F_TUPLE) && r->prod[in[0]] >= 0)
			prod = r->prod[in[0]];
		add_value(r, ops[t], prod, op_key(r, ops[t]));
		r->die[ops[t]] = (int32_t)t;
		for (uint32_t k = 0; k < n->in_count; k++)
			if (r->prod[in[k]] != ABSENT && r->die[in[k]] < (int32_t)t)
				r->die[in[k]] = (int32_t)t;
	}
	for (size_t k = 0; k < n_held; k++)
		if (r->prod[held[k]] != ABSENT)
			r->die[held[k]] = HELD;
	for (size_t k = 0; k < r->n_present; k++) {
		int32_t v = r->present[k], s = r->key[v];

		if (r->st[s] == ABSENT || r->prod[v] < r->st[s])
			r->st[s] = r->prod[v];
		if (r->en[s] == ABSENT || r->die[v] > r->en[s])
			r->en[s] = r->die[v];
	}
	memset(r->alloc, 0, (n_ops + 1) * sizeof *r->alloc);
	memset(r->release, 0, (n_ops + 1) * sizeof *r->release);
	for (size_t k = 0; k < r->n_present; k++) {
		int32_t s = r->key[r->present[k]];
		int64_t b = ilpi_live_bytes(g, s);

		if (r->st[s] == ABSENT)
			continue; /* already accounted */
		if (r->st[s] < 0) {
			at_start += b;
			cur += b;
		} else {
			r->alloc[r->st[s]] += b;
		}
		if (r->en[s] < 0)
			cur -= b;
		else if (r->en[s] != HELD)
			r->release[r->en[s]] += b;
		r->st[s] = ABSENT;
		r->en[s] = ABSENT;
	}
	for (size_t t = 0; t < n_ops; t++) {
		cur += r->alloc[t];
		/* the op's own workspace, freed before it returns */
		live[t] = cur + g->node[ops[t]].workspace;
		cur -= r->release[t];
	}
	for (size_t k = 0; k < r->n_present; k++) {
		int32_t v = r->present[k];

		if (t_prod != NULL) {
			t_prod[v] = r->prod[v];
			t_die[v] = r->die[v];
			t_key[v] = r->key[v];
		}
		r->prod[v] = ABSENT;
		r->die[v] = ABSENT;
	}
	*start_live = at_start;
	*end_live = cur;
}

static void
argmax(const int64_t *live, size_t n, const int32_t *order, int64_t *best, long *node)
{
	*best = 0;
	*node = -1;
	for (size_t t = 0; t < n; t++)
		if (live[t] > *best) {
			*best = live[t];
			*node = order[t];
		}
}

void
ilpi_memtrace_free(ilpi_memtrace *tr)
{
	if (tr == NULL)
		return;
	free(tr->root);
	free(tr->prod);
	free(tr->die);
	free(tr->key);
	free(tr->fprod);
	free(tr->fdie);
	free(tr->fkey);
	free(tr->outputs);
	memset(tr, 0, sizeof *tr);
}

static int memsim_run(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilpi_memtrace *tr);

int
ilpi_memsim_run(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilp_error *err)
{
	if (memsim_run(g, p, s, m, NULL) == 0)
		return 0;
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	return -1;
}

static int memsim_trace(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilpi_memtrace *tr, ilp_error *err);

int
ilpi_memsim_trace(const ilp_graph *g, const ilpi_split *s, ilpi_memsim *m,
    ilpi_memtrace *tr, ilp_error *err)
{
	return memsim_trace(g, NULL, s, m, tr, err);
}

int
ilpi_memsim_trace_part(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilpi_memtrace *tr, ilp_error *err)
{
	return memsim_trace(g, p, s, m, tr, err);
}

static int
memsim_trace(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s,
    ilpi_memsim *m, ilpi_memtrace *tr, ilp_error *err)
{
	memset(tr, 0, sizeof *tr);
	tr->root = malloc((s->bw.n_op + 1) * sizeof *tr->root);
	tr->prod = malloc((g->n + 1) * sizeof *tr->prod);
	tr->die = malloc((g->n + 1) * sizeof *tr->die);
	tr->key = malloc((g->n + 1) * sizeof *tr->key);
	tr->fprod = malloc((g->n + 1) * sizeof *tr->fprod);
	tr->fdie = malloc((g->n + 1) * sizeof *tr->fdie);
	tr->fkey = malloc((g->n + 1) * sizeof *tr->fkey);
	tr->outputs = malloc((g->n + 1) * sizeof *tr->outputs);
	if (tr->root != NULL && tr->prod != NULL && tr->die != NULL && tr->key != NULL &&
	    tr->fprod != NULL && tr->fdie != NULL && tr->fkey != NULL && tr->outputs != NULL) {
		for (size_t i = 0; i < g->n; i++)
			tr->prod[i] = tr->die[i] = tr->key[i] = tr->fprod[i] = tr->fdie[i] =
			    tr->fkey[i] = ABSENT;
		if (memsim_run(g, p, s, m, tr) == 0)
			return 0;
	}
	ilpi_memtrace_free(tr);
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	return -1;
}

/* ---- offloaded values (docs/partition.md "Offload") ------------------------------ */

/* Step durations of one side on the partition's device, in microseconds. */
static double *
durations(const ilp_graph *g, const int32_t *order, size_t n, const ilp_device *dev)
{
	double *d = malloc((n + 1) * sizeof *d);

	for (size_t t = 0; d != NULL && t < n; t++)
		d[t] = ilpi_node_cost_us(g, (size_t)order[t], dev);
	return d;
}

/* The first step of `order` that reads storage `root`, from `from` on; n when none. */
static int32_t
first_reader(const ilp_graph *g, const int32_t *order, size_t n, size_t from, int32_t root)
{
	for (size_t t = from; t < n; t++) {
		const ilpi_node *x = &g->node[order[t]];
		const int32_t *in = ilpi_inputs(g, x);

		for (uint32_t k = 0; k < x->in_count; k++)
			if (g->node[in[k]].storage == root)
				return (int32_t)t;
	}
	return (int32_t)n;
}

/*
 * The transfers of value v (the checker has made it a saved op's own storage that
 * nothing else saved shares and the caller does not hold). Forward: the copy out starts
 * when the last forward op reading v's storage ends and takes x = bytes / bw of compute
 * time to complete; v stays on the device through every later step that starts before
 * then, and the forward waits at its end for what is left. Backward: the copy back
 * starts at the latest step from whose start to the start of v's first use the compute
 * takes x, else at the backward's first step, the use waiting for what is left; v is
 * on the device from that step on.
 */
static void
plan_xfer(const ilp_graph *g, const ilpi_memsim *m, const double *dfw, const double *dbw,
    double bw, int32_t v, ilpi_xfer *x)
{
	int32_t fp = -1, t;
	double acc = 0;

	for (size_t k = 0; k < m->n_fw && fp < 0; k++)
		if (m->fw_order[k] == v)
			fp = (int32_t)k;
	x->node = v;
	x->bytes = ilpi_live_bytes(g, v);
	x->xfer_us = (double)x->bytes * 1e6 / bw;
	x->fw_last = fp;
	for (t = first_reader(g, m->fw_order, m->n_fw, (size_t)(fp + 1), v); t < (int32_t)m->n_fw;
	    t = first_reader(g, m->fw_order, m->n_fw, (size_t)t + 1, v))
		x->fw_last = t;
	for (t = x->fw_last + 1; t < (int32_t)m->n_fw && acc < x->xfer_us; t++)
		acc += dfw[t];
	x->fw_gone = acc >= x->xfer_us ? t : (int32_t)m->n_fw;
	x->exposed_fw_us = acc < x->xfer_us ? x->xfer_us - acc : 0;
	x->bw_use = first_reader(g, m->bw_order, m->n_bw, 0, v);
	if (x->bw_use >= (int32_t)m->n_bw) {
		/* nothing in the backward reads it: never copied back (and never live
		 * there but at its start) */
		x->bw_back = x->bw_use;
		x->exposed_bw_us = 0;
		return;
	}
	acc = 0;
	for (t = x->bw_use; t > 0 && acc < x->xfer_us; t--)
		acc += dbw[t - 1];
	x->bw_back = t;
	x->exposed_bw_us = acc < x->xfer_us ? x->xfer_us - acc : 0;
}

/* Takes the offloaded values off the device where the transfer model says they are
 * (fw_live, bw_live, *bw_start, held_bytes) and records their transfers in m. */
static int
apply_offload(const ilp_graph *g, const ilp_partition *p, ilpi_memsim *m, int64_t *bw_start)
{
	size_t n = p != NULL ? ilpi_partition_count(p, ILPI_P_OFFLOADED) : 0;
	double *dfw = NULL, *dbw = NULL, bw;
	ilp_device dev;
	int rc = -1;

	if (n == 0)
		return 0;
	ilpi_partition_transfer(p, &dev, &bw);
	m->xfer = calloc(n, sizeof *m->xfer);
	dfw = durations(g, m->fw_order, m->n_fw, &dev);
	dbw = durations(g, m->bw_order, m->n_bw, &dev);
	if (m->xfer == NULL || dfw == NULL || dbw == NULL)
		goto out;
	for (size_t i = 0; i < g->n && i < p->n; i++) {
		ilpi_xfer *x;

		if (!ilpi_offloaded(p, i) || !ilpi_saved(p, i))
			continue;
		x = &m->xfer[m->n_xfer++];
		plan_xfer(g, m, dfw, dbw, bw, (int32_t)i, x);
		for (int32_t t = x->fw_gone; t < (int32_t)m->n_fw; t++)
			m->fw_live[t] -= x->bytes;
		for (int32_t t = 0; t < x->bw_back && x->bw_use < (int32_t)m->n_bw; t++)
			m->bw_live[t] -= x->bytes;
		*bw_start -= x->bytes;
		m->peak.held_bytes -= x->bytes;
		m->peak.offloaded_bytes += x->bytes;
		m->peak.exposed_us += x->exposed_fw_us + x->exposed_bw_us;
	}
	rc = 0;
out:
	free(dfw);
	free(dbw);
	return rc;
}

static int
memsim_run(const ilp_graph *g, const ilp_partition *p, const ilpi_split *s, ilpi_memsim *m,
    ilpi_memtrace *tr)
{
	side_run r = { g, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL };
	size_t steps = (s->fw.n_op > s->bw.n_op ? s->fw.n_op : s->bw.n_op) + 1;
	int32_t *held = NULL, *initial = NULL;
	size_t n_held = 0, n_initial = 0;
	int64_t start, end, bw_start, outputs = 0;
	uint8_t *mark = NULL;
	long fw_node, bw_node;
	int rc = -1;

	memset(m, 0, sizeof *m);
	r.prod = malloc((g->n + 1) * sizeof *r.prod);
	r.die = malloc((g->n + 1) * sizeof *r.die);
	r.key = malloc((g->n + 1) * sizeof *r.key);
	r.st = malloc((2 * g->n + 1) * sizeof *r.st);
	r.en = malloc((2 * g->n + 1) * sizeof *r.en);
	r.present = malloc((g->n + 1) * sizeof *r.present);
	r.alloc = malloc(steps * sizeof *r.alloc);
	r.release = malloc(steps * sizeof *r.release);
	held = malloc((s->fw.n_out + s->bw.n_out + s->bw.n_in + 1) * sizeof *held);
	initial = malloc((s->bw.n_in + 1) * sizeof *initial);
	mark = malloc(g->n + 1);
	m->fw_order = malloc((s->fw.n_op + 1) * sizeof *m->fw_order);
	m->fw_live = malloc((s->fw.n_op + 1) * sizeof *m->fw_live);
	m->bw_order = malloc((s->bw.n_op + 1) * sizeof *m->bw_order);
	m->bw_live = malloc((s->bw.n_op + 1) * sizeof *m->bw_live);
	if (r.prod == NULL || r.die == NULL || r.key == NULL || r.st == NULL || r.en == NULL ||
	    r.present == NULL || r.alloc == NULL || r.release == NULL || held == NULL ||
	    initial == NULL || mark == NULL || m->fw_order == NULL || m->fw_live == NULL ||
	    m->bw_order == NULL || m->bw_live == NULL ||
	    ilpi_autograd_batches(g, &s->bw, m->bw_order, tr != NULL ? tr->root : NULL) != 0)
		goto out;
	for (size_t i = 0; i < g->n; i++)
		r.prod[i] = r.die[i] = ABSENT;
	for (size_t i = 0; i < 2 * g->n; i++)
		r.st[i] = r.en[i] = ABSENT;
	m->n_fw = s->fw.n_op;
	m->n_bw = s->bw.n_op;
	memcpy(m->fw_order, s->fw.op, s->fw.n_op * sizeof *m->fw_order);

	/* Forward: its outputs (user outputs, then the saved values) live to its end. */
	for (size_t k = 0; k < s->fw.n_out; k++)
		held[n_held++] = s->fw.out[k];
	run_side(&r, s->fw.in, s->fw.n_in, held, n_held, m->fw_order, m->n_fw, m->fw_live,
	    &start, &end, tr ? tr->fprod : NULL, tr ? tr->fdie : NULL,
	    tr ? tr->fkey : NULL);
	m->peak.held_bytes = end;

	/* Backward: starts with the saved values; the caller holds the forward's user
	 * outputs and the gradients to its end. An output that is not saved is a constant
	 * (a recomputed copy of it is fresh storage); a saved value sharing an output's
	 * storage is never freed. */
	n_held = 0;
	memset(mark, 0, g->n + 1);
	for (size_t k = 0; k < g->n_fw_out; k++)
		mark[g->node[g->fw_out[k]].storage] = 1;
	for (size_t k = 0; k < s->bw.n_in; k++) {
		int32_t v = s->bw.in[k], root = g->node[v].storage;

		initial[n_initial++] = v;
		if (mark[root] != 0) {
			held[n_held++] = v;
			mark[root] = 2;
		}
	}
	for (size_t i = 0; i < g->n; i++)
		if (mark[i] == 1) {
			outputs += ilpi_live_bytes(g, (int32_t)i);
			if (tr != NULL)
				tr->outputs[tr->n_outputs++] = (int32_t)i;
		}
	for (size_t k = 0; k < s->bw.n_out; k++)
		if (s->bw.out[k] != ILPI_NONE)
			held[n_held++] = s->bw.out[k];
	run_side(&r, initial, n_initial, held, n_held, m->bw_order, m->n_bw, m->bw_live,
	    &bw_start, &end, tr ? tr->prod : NULL, tr ? tr->die : NULL,
	    tr ? tr->key : NULL);
	bw_start += outputs;
	for (size_t t = 0; t < m->n_bw; t++)
		m->bw_live[t] += outputs;
	if (apply_offload(g, p, m, &bw_start) != 0)
		goto out;

	argmax(m->fw_live, m->n_fw, m->fw_order, &m->peak.forward_peak, &fw_node);
	argmax(m->bw_live, m->n_bw, m->bw_order, &m->peak.backward_peak, &bw_node);
	if (bw_start > m->peak.backward_peak)
		m->peak.backward_peak = bw_start;
	m->peak.peak_bytes = m->peak.forward_peak;
	m->peak.node = fw_node;
	m->peak.phase = fw_node >= 0 ? ILP_PHASE_FORWARD : ILP_PHASE_NONE;
	if (m->peak.backward_peak > m->peak.peak_bytes) {
		m->peak.peak_bytes = m->peak.backward_peak;
		m->peak.node = bw_node;
		m->peak.phase = ILP_PHASE_BACKWARD;
	}
	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind != ILPI_OP)
			m->peak.input_bytes += g->node[i].bytes;
	rc = 0;
out:
	if (rc != 0)
		ilpi_memsim_free(m);
	free(r.prod);
	free(r.die);
	free(r.key);
	free(r.st);
	free(r.en);
	free(r.present);
	free(r.alloc);
	free(r.release);
	free(held);
	free(initial);
	free(mark);
	return rc;
}

/* Every input of a backward op, and every gradient, is a backward input or computed
 * there; the forward never needs a backward value. */
static int
executable(const ilp_graph *g, const ilpi_split *s, ilp_error *err)
{
	uint8_t *have = calloc(g->n + 1, 1);
	const char *bad = NULL, *user = NULL;

	if (have == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	for (size_t k = 0; k < s->fw.n_op && bad == NULL; k++)
		if (g->node[s->fw.op[k]].cls == ILPI_BACKWARD) {
			bad = g->node[s->fw.op[k]].name;
			user = "the forward";
		}
	for (size_t k = 0; k < s->bw.n_in; k++)
		have[s->bw.in[k]] = 1;
	for (size_t k = 0; k < s->bw.n_op && bad == NULL; k++) {
		const ilpi_node *n = &g->node[s->bw.op[k]];
		const int32_t *in = ilpi_inputs(g, n);

		for (uint32_t j = 0; j < n->in_count && bad == NULL; j++)
			if (!have[in[j]]) {
				bad = g->node[in[j]].name;
				user = n->name;
			}
		have[s->bw.op[k]] = 1;
	}
	for (size_t k = 0; k < s->bw.n_out && bad == NULL; k++)
		if (s->bw.out[k] != ILPI_NONE && !have[s->bw.out[k]]) {
			bad = g->node[s->bw.out[k]].name;
			user = "the gradients";
		}
	free(have);
	if (bad == NULL)
		return 0;
	ilpi_err(err, ILP_ERR_VIOLATION, "partition: node '%s': needed by %s, but neither "
	    "saved nor recomputed (not executable)", bad, user);
	return -1;
}

int
ilp_partition_peak(const ilp_graph *g, const ilp_partition *p, ilp_peak *out,
    ilp_error *err)
{
	ilpi_split s;
	ilpi_memsim m;

	ilpi_err_clear(err);
	memset(out, 0, sizeof *out);
	out->node = -1;
	/* Memory does not depend on tags: a partition that breaks one still runs. */
	if (ilpi_lower_unchecked(g, p, &s, err) != 0)
		return -1;
	if (executable(g, &s, err) != 0) {
		ilpi_split_free(&s);
		return -1;
	}
	if (ilpi_memsim_run(g, p, &s, &m, err) != 0) {
		ilpi_split_free(&s);
		return -1;
	}
	*out = m.peak;
	ilpi_memsim_free(&m);
	ilpi_split_free(&s);
	return 0;
}

const char *
ilp_phase_name(ilp_phase ph)
{
	switch (ph) {
	case ILP_PHASE_FORWARD:
		return "forward";
	case ILP_PHASE_BACKWARD:
		return "backward";
	default:
		return "none";
	}
}

/* ---- the memory timeline ---------------------------------------------------------- */

void
ilpi_timeline_free(ilpi_timeline *tl)
{
	if (tl == NULL)
		return;
	free(tl->node);
	free(tl->live);
	free(tl->at_peak);
	memset(tl, 0, sizeof *tl);
}

/* The storage one side holds while its step t runs (t = -1: its start), from the
 * values' steps of production and last use as run_side saw them: a key is live from its
 * first value's production to its last value's last use, as run_side counts it. st and
 * en are scratch of 2n entries. Appends to out[*n]. */
/* Is storage key k on the device at step t of its side, as far as offloading goes? */
static int
resident(const ilp_graph *g, const ilpi_memsim *m, int backward, int32_t t, size_t k)
{
	for (size_t j = 0; j < m->n_xfer; j++) {
		const ilpi_xfer *x = &m->xfer[j];

		if (!backward && k == g->n + (size_t)x->node)
			return t < x->fw_gone;
		if (backward && k == (size_t)x->node)
			return t >= x->bw_back;
	}
	return 1;
}

static void
live_on_side(const ilp_graph *g, const ilpi_memsim *m, const int32_t *prod, const int32_t *die,
    const int32_t *key, int backward, int32_t t, int32_t *st, int32_t *en,
    ilpi_live_value *out, size_t *n)
{
	for (size_t i = 0; i < 2 * g->n; i++)
		st[i] = en[i] = ABSENT;
	for (size_t v = 0; v < g->n; v++) {
		int32_t k = key[v];

		if (prod[v] == ABSENT)
			continue;
		if (st[k] == ABSENT || prod[v] < st[k])
			st[k] = prod[v];
		if (en[k] == ABSENT || die[v] > en[k])
			en[k] = die[v];
	}
	for (size_t k = 0; k < 2 * g->n; k++) {
		int64_t b;
		int live;

		if (st[k] == ABSENT || (b = ilpi_live_bytes(g, (int32_t)k)) == 0)
			continue;
		live = t < 0 ? st[k] < 0 : st[k] <= t && en[k] >= t;
		if (!live || !resident(g, m, backward, t, k))
			continue;
		out[*n].node = (int32_t)(k % g->n);
		out[*n].bytes = b;
		if (!backward || k >= g->n)
			out[*n].how = backward && g->node[k - g->n].cls != ILPI_BACKWARD ?
			    ILPI_LIVE_RECOMPUTED : ILPI_LIVE_COMPUTED;
		else
			out[*n].how = ILPI_LIVE_SAVED;
		++*n;
	}
}

static int
cmp_live(const void *a, const void *b)
{
	const ilpi_live_value *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->how > y->how) - (x->how < y->how);
}

/* The step of the peak, the simulator's choice: the forward's first maximum unless the
 * backward holds more; there its ops' first maximum unless its start holds more. */
static size_t
peak_step(const ilpi_timeline *tl)
{
	size_t fw = 0, bw = tl->n_fw, k;

	for (k = 1; k < tl->n_fw; k++)
		if (tl->live[k] > tl->live[fw])
			fw = k;
	if (tl->n_bw > 0) {
		size_t ops = tl->n_fw + 1;

		for (k = ops + 1; k < tl->n_steps; k++)
			if (tl->live[k] > tl->live[ops])
				ops = k;
		if (tl->live[ops] >= tl->live[bw])
			bw = ops;
	}
	return tl->n_fw > 0 && tl->live[fw] >= tl->live[bw] ? fw : bw;
}

static int
timeline_fill(const ilp_graph *g, const ilpi_memsim *m, const ilpi_memtrace *tr,
    ilpi_timeline *tl)
{
	int32_t *st = malloc((2 * g->n + 1) * sizeof *st);
	int32_t *en = malloc((2 * g->n + 1) * sizeof *en);
	int64_t start = 0;
	size_t k, ps;
	int rc = -1;

	tl->n_fw = m->n_fw;
	tl->n_bw = m->n_bw;
	tl->n_steps = m->n_fw + 1 + m->n_bw;
	tl->peak = m->peak;
	tl->node = malloc(tl->n_steps * sizeof *tl->node);
	tl->live = malloc(tl->n_steps * sizeof *tl->live);
	tl->at_peak = malloc((2 * g->n + 2) * sizeof *tl->at_peak);
	if (st == NULL || en == NULL || tl->node == NULL || tl->live == NULL ||
	    tl->at_peak == NULL)
		goto out;
	/* The backward's start: what it was handed (saved values that share no output's
	 * storage are counted by key) and the outputs the caller holds. */
	live_on_side(g, m, tr->prod, tr->die, tr->key, 1, -1, st, en, tl->at_peak,
	    &tl->n_at_peak);
	for (k = 0; k < tl->n_at_peak; k++)
		start += tl->at_peak[k].bytes;
	for (k = 0; k < tr->n_outputs; k++)
		start += ilpi_live_bytes(g, tr->outputs[k]);
	tl->n_at_peak = 0;
	for (k = 0; k < m->n_fw; k++) {
		tl->node[k] = m->fw_order[k];
		tl->live[k] = m->fw_live[k];
	}
	tl->node[m->n_fw] = -1;
	tl->live[m->n_fw] = start;
	for (k = 0; k < m->n_bw; k++) {
		tl->node[m->n_fw + 1 + k] = m->bw_order[k];
		tl->live[m->n_fw + 1 + k] = m->bw_live[k];
	}
	tl->peak_step = ps = peak_step(tl);
	if (ps < m->n_fw) {
		live_on_side(g, m, tr->fprod, tr->fdie, tr->fkey, 0, (int32_t)ps, st, en,
		    tl->at_peak, &tl->n_at_peak);
	} else {
		live_on_side(g, m, tr->prod, tr->die, tr->key, 1,
		    ps == m->n_fw ? -1 : (int32_t)(ps - m->n_fw - 1), st, en, tl->at_peak,
		    &tl->n_at_peak);
		for (k = 0; k < tr->n_outputs; k++)
			if (ilpi_live_bytes(g, tr->outputs[k]) > 0) {
				ilpi_live_value *o = &tl->at_peak[tl->n_at_peak++];

				o->node = tr->outputs[k];
				o->bytes = ilpi_live_bytes(g, tr->outputs[k]);
				o->how = ILPI_LIVE_OUTPUT;
			}
	}
	if (ps != m->n_fw && g->node[tl->node[ps]].workspace > 0) {
		ilpi_live_value *o = &tl->at_peak[tl->n_at_peak++];

		o->node = tl->node[ps];
		o->bytes = g->node[tl->node[ps]].workspace;
		o->how = ILPI_LIVE_WORKSPACE;
	}
	qsort(tl->at_peak, tl->n_at_peak, sizeof *tl->at_peak, cmp_live);
	rc = 0;
out:
	free(st);
	free(en);
	return rc;
}

int
ilpi_memsim_timeline(const ilp_graph *g, const ilp_partition *p, ilpi_timeline *tl,
    ilp_error *err)
{
	ilpi_split s;
	ilpi_memsim m;
	ilpi_memtrace tr;
	int rc;

	ilpi_err_clear(err);
	memset(tl, 0, sizeof *tl);
	if (ilpi_lower_unchecked(g, p, &s, err) != 0)
		return -1;
	if (executable(g, &s, err) != 0) {
		ilpi_split_free(&s);
		return -1;
	}
	if (memsim_trace(g, p, &s, &m, &tr, err) != 0) {
		ilpi_split_free(&s);
		return -1;
	}
	rc = timeline_fill(g, &m, &tr, tl);
	if (rc != 0) {
		ilpi_timeline_free(tl);
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	}
	ilpi_memtrace_free(&tr);
	ilpi_memsim_free(&m);
	ilpi_split_free(&s);
	return rc;
}
