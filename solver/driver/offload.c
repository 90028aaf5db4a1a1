/*
 * offload.c - `--offload free`: the offload columns' items and costs (docs/solver.md
 * "Offload").
 *
 * Saving an item offloaded takes its storage off the device's saved bytes and costs
 * the transfer time the compute cannot hide. The simulator (graph/memsim.c) times the
 * copies against the ops that actually run; here each item gets a cost that does not
 * depend on the rest of the partition and is never below the simulator's:
 *  - the copy out is hidden behind the forward-class ops after the last op that could
 *    read the value's storage in the forward (every forward-class op runs there, in
 *    graph order, whatever the partition; a saved unclaimed op only adds to it);
 *  - the copy back is hidden behind the backward-class ops of the autograd batches
 *    before the batch of the first backward-class op that could need the value
 *    (directly or through recomputed ops). The backward-class ops' order and batches do
 *    not depend on the partition: recomputed ops only join the batches (their inputs
 *    are never backward values), so the backward of the save-all partition gives them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cost.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "graph/partition.h"
#include "graph/region.h"
#include "solver/driver/offload.h"
#include "solver/driver/stage.h"

double
drv_offload_bw(const ilp_solve_options *o)
{
	return o->offload_bw > 0 ? o->offload_bw : ilpi_device_host_bw(&o->device);
}

/* What torch's activation offloading can move (graph/check.c's rule): a forward op's
 * own storage, not a view or getitem, not held by the caller as a forward output. */
static int
movable(const ilp_graph *g, int32_t v, const uint8_t *is_out)
{
	const ilpi_node *n = &g->node[v];

	return n->kind == ILPI_OP && n->view_of == ILPI_NONE && n->storage == v &&
	    !(n->flags & (ILPI_F_GETITEM | ILPI_F_TUPLE)) && !is_out[v] &&
	    ilpi_charged_bytes(g, n) > 0;
}

/* win_b[v]: the backward-class compute before the batch of the first backward-class op
 * that could need v, for every non-backward v (0 when none can). */
static int
backward_windows(const ilp_graph *g, const double *d, double *win_b, ilp_error *err)
{
	ilp_partition *all = NULL;
	ilpi_split s;
	int32_t *order = NULL, *root = NULL, *step = NULL;
	double *before = NULL, acc = 0;
	int rc = -1;

	memset(&s, 0, sizeof s);
	if (ilpi_partition_save_all(g, &all, err) != 0 ||
	    ilpi_lower_unchecked(g, all, &s, err) != 0)
		goto out;
	order = malloc((s.bw.n_op + 1) * sizeof *order);
	root = malloc((s.bw.n_op + 1) * sizeof *root);
	step = malloc((g->n + 1) * sizeof *step);
	before = malloc((s.bw.n_op + 1) * sizeof *before);
	if (order == NULL || root == NULL || step == NULL || before == NULL ||
	    ilpi_autograd_batches(g, &s.bw, order, root) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	/* before[k]: backward-class compute of the batches before step k's */
	for (size_t k = 0; k < s.bw.n_op; k++) {
		if (k > 0 && root[k] != root[k - 1])
			before[k] = acc;
		else
			before[k] = k > 0 ? before[k - 1] : 0;
		if (g->node[order[k]].cls == ILPI_BACKWARD)
			acc += d[order[k]];
	}
	/* a batch's first step has the sum before it; the rest share it */
	for (size_t i = 0; i < g->n; i++)
		step[i] = -1;
	for (size_t k = 0; k < s.bw.n_op; k++)
		if (g->node[order[k]].cls == ILPI_BACKWARD)
			step[order[k]] = (int32_t)k;
	/* users come after their inputs: one reverse sweep gives each value the earliest
	 * step of a backward-class op reachable through non-backward ops */
	for (size_t v = g->n; v-- > 0;) {
		const ilpi_node *n = &g->node[v];
		const int32_t *use = ilpi_users(g, n);
		int32_t best = -1;

		win_b[v] = 0;
		if (n->cls == ILPI_BACKWARD || !ilpi_live(n))
			continue;
		for (uint32_t k = 0; k < n->use_count; k++) {
			const ilpi_node *u = &g->node[use[k]];
			int32_t t = u->cls == ILPI_BACKWARD ? step[use[k]] :
			    ilpi_live(u) ? step[use[k]] : -1;

			if (t >= 0 && (best < 0 || t < best))
				best = t;
		}
		step[v] = best;
		if (best >= 0)
			win_b[v] = before[best];
	}
	rc = 0;
out:
	free(order);
	free(root);
	free(step);
	free(before);
	ilpi_split_free(&s);
	ilp_partition_free(all);
	return rc;
}

int
drv_offload_setup(solve_ctx *c, ilp_error *err)
{
	const ilp_graph *g = c->g;
	const ilpi_reduced *red = &c->red;
	double bw = drv_offload_bw(c->o);
	double *d = calloc(g->n + 1, sizeof *d), *suf = calloc(g->n + 2, sizeof *suf);
	double *win_b = calloc(g->n + 1, sizeof *win_b), *cost = NULL, *xfer = NULL;
	int32_t *last = malloc((g->n + 1) * sizeof *last);
	uint8_t *is_out = calloc(g->n + 1, 1), *kind = NULL;
	size_t n_off = 0, n_forced = 0;
	int rc = -1;

	kind = calloc(red->n_items + 1, 1);
	cost = calloc(red->n_items + 1, sizeof *cost);
	xfer = calloc(red->n_items + 1, sizeof *xfer);
	if (d == NULL || suf == NULL || win_b == NULL || last == NULL || is_out == NULL ||
	    kind == NULL || cost == NULL || xfer == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	for (size_t v = 0; v < g->n; v++)
		d[v] = g->node[v].kind == ILPI_OP && ilpi_live(&g->node[v]) ?
		    ilpi_node_cost_us(g, v, &c->o->device) : 0;
	for (size_t k = 0; k < g->n_fw_out; k++)
		is_out[g->node[g->fw_out[k]].storage] = 1;
	/* suf[i]: forward-class compute from node i on; last[root]: the last non-backward
	 * op reading that storage (or the root itself) */
	for (size_t v = g->n; v-- > 0;)
		suf[v] = suf[v + 1] + (g->node[v].cls == ILPI_FORWARD ? d[v] : 0);
	for (size_t v = 0; v < g->n; v++)
		last[v] = (int32_t)v;
	for (size_t u = 0; u < g->n; u++) {
		const ilpi_node *n = &g->node[u];
		const int32_t *in = ilpi_inputs(g, n);

		if (n->cls == ILPI_BACKWARD || !ilpi_live(n))
			continue;
		for (uint32_t k = 0; k < n->in_count; k++)
			last[g->node[in[k]].storage] = (int32_t)u;
	}
	if (backward_windows(g, d, win_b, err) != 0)
		goto out;
	for (size_t it = 0; it < red->n_items; it++) {
		int32_t v = red->item[it].rep;
		double x, wf = suf[last[v] + 1], wb = win_b[v];

		if (!red->item[it].can_save || !movable(g, v, is_out))
			continue;
		x = xfer[it] = (double)ilpi_charged_bytes(g, &g->node[v]) * 1e6 / bw;
		cost[it] = (x > wf ? x - wf : 0) + (x > wb ? x - wb : 0);
		kind[it] = ilpi_sac_tag(g, (size_t)v) == ILPI_TAG_MUST_CPU_OFFLOAD ? 2 : 1;
		n_off++;
		n_forced += kind[it] == 2;
	}
	if (ilpi_model_add_offload(&c->m, kind, cost, xfer, d, g->n, err) != 0)
		goto out;
	drv_note(c, "offload: %zu items may be offloaded (%zu tagged MUST_CPU_OFFLOAD), host "
	    "link %g bytes/s", n_off, n_forced, bw);
	rc = 0;
out:
	free(d);
	free(suf);
	free(win_b);
	free(last);
	free(is_out);
	free(kind);
	free(cost);
	free(xfer);
	return rc;
}

double
drv_offload_exposed(const solve_ctx *c, const ilp_partition *p)
{
	double sum = 0;

	for (size_t it = 0; c->m.col_o != NULL && it < c->red.n_items; it++)
		if (c->m.col_o[it] && ilpi_offloaded(p, (size_t)c->red.item[it].rep))
			sum += c->m.off_us[it];
	return sum;
}
