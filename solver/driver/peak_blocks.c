/*
 * peak_blocks.c - incumbents for the peak search from the chain of repeated blocks
 * (docs/solver.md "Peak along the blocks").
 *
 * On a stack the backward peaks in each layer at what the layers below it left saved
 * plus what the layer holds while it runs. Each candidate decision of one layer is
 * copied into every layer and simulated once: the per-layer maxima of that uniform
 * partition give the decision's saved bytes S (their step from layer to layer) and its
 * local peak. The chain (solver/blocks/blocks_chain.c) then picks one decision per
 * layer for the least peak of that model; the mixed partition is simulated, and only
 * the simulator's peak counts. This is a source of incumbents, not a proof.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/clock.h"
#include "graph/lower.h"
#include "graph/memsim.h"
#include "solver/blocks/blocks_chain.h"
#include "solver/blocks/blocks_windows.h"
#include "solver/driver/answer.h"
#include "solver/driver/peak_answers.h"
#include "solver/driver/stage.h"
#include "solver/driver/peak_blocks.h"

/* Candidate decisions per layer (distinct), and picks tried per round. */
#define PB_MAX_DEC 512
#define PB_ROUNDS 3

typedef struct pb {
	solve_ctx *c;
	size_t n_win, per, n_dec;
	int32_t *win, *off;       /* per item */
	int32_t *at;              /* item at (window w, offset o): at[w * per + o] */
	int32_t *wnode;           /* per graph node: its window, -1 none */
	uint8_t *dec;             /* n_dec decisions of per save bits */
	int64_t *M;               /* n_win + 2 per simulation: the windows, head, tail */
	int64_t *S, *b, *bc, *head, *tail;
	double *t;
	double *mb;               /* per decision: the model's saved bytes (units) of it
	                           * copied into every window (a bytes cap: the chain's
	                           * price of bytes; a decision's share is mb / n_win) */
	int cap;                  /* the solve has a saved-bytes budget: mb counts */
	double *tp;               /* per decision: t with bytes priced (chain_of, when priced) */
	int priced;
	int32_t *pick, *pick2, *sig;
	uint8_t *exit;            /* per offset: read by the next window */
	uint8_t *xs, *xr;         /* a mixed partition */
} pb;

static void
pb_free(pb *p)
{
	free(p->win);
	free(p->off);
	free(p->at);
	free(p->wnode);
	free(p->dec);
	free(p->M);
	free(p->S);
	free(p->b);
	free(p->bc);
	free(p->head);
	free(p->tail);
	free(p->t);
	free(p->mb);
	free(p->tp);
	free(p->pick);
	free(p->pick2);
	free(p->sig);
	free(p->exit);
	free(p->xs);
}

/* Every graph node's window: an item's own, else (a view, a backward op) the least
 * window among its inputs' (a layer's backward reads that layer's values and the
 * gradient from the layer above). */
static void
node_windows(pb *p)
{
	const ilp_graph *g = p->c->g;
	const ilpi_reduced *red = &p->c->red;

	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);
		int32_t it = red->item_of[i], w = -1;

		if (it >= 0) {
			p->wnode[i] = p->win[it];
			continue;
		}
		for (uint32_t k = 0; k < n->in_count; k++)
			if (in[k] >= 0 && (size_t)in[k] < i && p->wnode[in[k]] >= 0 &&
			    (w < 0 || p->wnode[in[k]] < w))
				w = p->wnode[in[k]];
		p->wnode[i] = w;
	}
}

/* Per-window maxima of one side's live bytes: a step without a window belongs to the
 * last window met, before the first to `before`, after the last to `after` (the head
 * or the tail slot). */
static void
side_maxima(const pb *p, const int32_t *order, const int64_t *live, size_t n, size_t before,
    size_t after, int64_t *M)
{
	size_t first = n, last = n, cur;

	for (size_t k = 0; k < n; k++)
		if (p->wnode[order[k]] >= 0) {
			if (first == n)
				first = k;
			last = k;
		}
	cur = before;
	for (size_t k = 0; k < n; k++) {
		size_t slot = cur;

		if (first == n || k < first)
			slot = before;
		else if (k > last)
			slot = after;
		else if (p->wnode[order[k]] >= 0)
			slot = cur = (size_t)p->wnode[order[k]];
		if (live[k] > M[slot])
			M[slot] = live[k];
	}
}

/* Simulates (s, r) (canonical, valid): per-window maxima of the forward into M
 * (n_win + 2 slots: the windows, head, tail), of the backward after them.
 * Returns the peak, -1 when it cannot be simulated. */
static int64_t
sim_windows(pb *p, const uint8_t *s, const uint8_t *r, int64_t *M)
{
	solve_ctx *c = p->c;
	ilp_partition *part;
	ilpi_split sp;
	ilpi_memsim ms;
	int64_t peak = -1;

	for (size_t k = 0; k < 2 * (p->n_win + 2); k++)
		M[k] = 0;
	memcpy(c->s, s, c->red.n_items);
	memcpy(c->r, r, c->red.n_items);
	if (drv_to_nodes(c) != 0 || (part = drv_node_partition(c)) == NULL)
		return -1;
	memset(&sp, 0, sizeof sp);
	memset(&ms, 0, sizeof ms);
	if (ilpi_lower_unchecked(c->g, part, &sp, NULL) == 0) {
		if (ilpi_memsim_run(c->g, part, &sp, &ms, NULL) == 0) {
			peak = ms.peak.peak_bytes;
			side_maxima(p, ms.fw_order, ms.fw_live, ms.n_fw, p->n_win + 1, p->n_win, M);
			side_maxima(p, ms.bw_order, ms.bw_live, ms.n_bw, p->n_win, p->n_win + 1,
			    M + p->n_win + 2);
			ilpi_memsim_free(&ms);
		}
		ilpi_split_free(&sp);
	}
	ilp_partition_free(part);
	return peak;
}

/* Adds the save bits of every window of the item answer s as candidate decisions. */
static void
add_decisions(pb *p, const uint8_t *s)
{
	for (size_t w = 0; w < p->n_win && p->n_dec < PB_MAX_DEC; w++) {
		uint8_t *d = p->dec + p->n_dec * p->per;
		size_t k;

		for (size_t o = 0; o < p->per; o++)
			d[o] = s[p->at[w * p->per + o]] != 0;
		for (k = 0; k < p->n_dec; k++)
			if (memcmp(p->dec + k * p->per, d, p->per) == 0)
				break;
		if (k == p->n_dec)
			p->n_dec++;
	}
}

/* The base save set with window w taking decision pick[w] (every window: all). */
static void
mix(pb *p, const uint8_t *base, const int32_t *pick)
{
	memcpy(p->xs, base, p->c->red.n_items);
	for (size_t w = 0; w < p->n_win; w++)
		for (size_t o = 0; o < p->per; o++)
			p->xs[p->at[w * p->per + o]] = p->dec[(size_t)pick[w] * p->per + o];
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Recompute time of the window decision d on the model's costs (recomputed items). */
static double
dec_time(pb *p, size_t d)
{
	double t = 0;

	for (size_t o = 0; o < p->per; o++)
		if (!p->dec[d * p->per + o])
			t += p->c->red.item[p->at[o]].cost;
	return t;
}

/* The model's saved bytes of the item answer (s, r), in its byte units. */
static double
model_bytes(solve_ctx *c, const uint8_t *s, const uint8_t *r)
{
	ilpi_terms tb = { 1, 0, NULL, NULL };

	return ilpi_model_value(&c->m, &tb, s, r);
}

/* Decision d copied into every window on top of `base` and simulated: its S (the
 * median step of the windows' maxima), local peaks, head and tail; not allowed
 * anywhere when it is not valid there. When canon is not NULL, the canonical form of
 * d (the middle window's bits after canonicalization) is written there. */
static void
calibrate_one(pb *p, const uint8_t *base, size_t d, uint8_t *canon)
{
	size_t nw = p->n_win;
	int64_t *Mf = p->M, *Mb = p->M + (nw + 2), *steps = p->M + 2 * (nw + 2), pk;

	p->S[d] = 0;
	p->t[d] = dec_time(p, d);
	p->mb[d] = 0;
	p->head[d] = p->tail[d] = INT64_MAX;
	for (size_t w = 0; w < nw; w++) {
		p->b[w * PB_MAX_DEC + d] = INT64_MAX;
		p->pick[w] = (int32_t)d;
	}
	mix(p, base, p->pick);
	if (!drv_valid_items(p->c, p->xs, p->xr) ||
	    (pk = sim_windows(p, p->xs, p->xr, p->M)) < 0)
		return;
	if (canon != NULL)
		for (size_t o = 0; o < p->per; o++)
			canon[o] = p->xs[p->at[(nw / 2) * p->per + o]];
	if (p->cap)
		p->mb[d] = model_bytes(p->c, p->xs, p->xr);
	/* S: the median step of the backward's maxima from window to window; every
	 * window's local peak, head and tail relative to that prefix, the larger of the
	 * forward's and the backward's (the forward's steps are larger by what the
	 * backward holds per window that the forward does not, the same for every
	 * decision) */
	for (size_t w = 0; w + 1 < nw; w++)
		steps[w] = Mb[w + 1] - Mb[w];
	qsort(steps, nw - 1, sizeof *steps, cmp_i64);
	p->S[d] = steps[(nw - 1) / 2] > 0 ? steps[(nw - 1) / 2] : 0;
	for (size_t w = 0; w < nw; w++)
		p->b[w * PB_MAX_DEC + d] = (Mf[w] > Mb[w] ? Mf[w] : Mb[w]) - (int64_t)w * p->S[d];
	p->head[d] = (Mf[nw] > Mb[nw] ? Mf[nw] : Mb[nw]) - (int64_t)nw * p->S[d];
	p->tail[d] = Mf[nw + 1] > Mb[nw + 1] ? Mf[nw + 1] : Mb[nw + 1];
}

static size_t
calibrate(pb *p, const uint8_t *base, double until)
{
	size_t sims = 0;

	for (size_t d = 0; d < p->n_dec; d++) {
		if (ilpi_now() >= until) {
			p->head[d] = INT64_MAX;
			for (size_t w = 0; w < p->n_win; w++)
				p->b[w * PB_MAX_DEC + d] = INT64_MAX;
			continue;
		}
		calibrate_one(p, base, d, NULL);
		sims++;
	}
	return sims;
}

/* Whether decision e is no worse than d in S, time and every window's local peak. */
static int
dominates(const pb *p, size_t e, size_t d)
{
	if (p->S[e] > p->S[d] || p->head[e] > p->head[d] || p->tail[e] > p->tail[d] ||
	    p->t[e] > p->t[d] || (p->cap && p->mb[e] > p->mb[d]))
		return 0;
	for (size_t w = 0; w < p->n_win; w++)
		if (p->b[w * PB_MAX_DEC + e] > p->b[w * PB_MAX_DEC + d])
			return 0;
	return 1;
}

/* Removes decisions that are not allowed or dominated (the earlier of two equal ones
 * stays), keeping the order of the rest. */
static void
prune(pb *p)
{
	size_t kept = 0;

	for (size_t d = 0; d < p->n_dec; d++) {
		int out = p->head[d] == INT64_MAX;

		for (size_t e = 0; e < p->n_dec && !out; e++)
			if (e != d && p->head[e] != INT64_MAX && dominates(p, e, d) &&
			    (e < d || !dominates(p, d, e)))
				out = 1;
		if (out)
			continue;
		if (kept != d) {
			memcpy(p->dec + kept * p->per, p->dec + d * p->per, p->per);
			p->S[kept] = p->S[d];
			p->t[kept] = p->t[d];
			p->mb[kept] = p->mb[d];
			p->head[kept] = p->head[d];
			p->tail[kept] = p->tail[d];
			for (size_t w = 0; w < p->n_win; w++)
				p->b[w * PB_MAX_DEC + kept] = p->b[w * PB_MAX_DEC + d];
		}
		kept++;
	}
	p->n_dec = kept;
}

/* A local search over one layer's decisions: every undominated decision with one
 * item's save toggled, in canonical form, is calibrated and kept when no other
 * dominates it; until nothing new is kept, `until`, or *budget simulations. */
static size_t
explore(pb *p, const uint8_t *base, double until, size_t budget)
{
	size_t sims = 0;
	int grew = 1;

	while (grew && ilpi_now() < until && sims < budget) {
		size_t n0 = p->n_dec;

		grew = 0;
		for (size_t d = 0; d < n0 && ilpi_now() < until && sims < budget; d++)
			for (size_t o = 0; o < p->per && p->n_dec < PB_MAX_DEC &&
			    ilpi_now() < until && sims < budget; o++) {
				size_t nd = p->n_dec, k;
				uint8_t *x = p->dec + nd * p->per;

				if (p->c->m.col_s[p->at[o]] == 0)
					continue;
				memcpy(x, p->dec + d * p->per, p->per);
				x[o] ^= 1;
				for (k = 0; k < nd; k++)
					if (memcmp(p->dec + k * p->per, x, p->per) == 0)
						break;
				if (k < nd)
					continue;
				calibrate_one(p, base, nd, x);
				sims++;
				for (k = 0; k < nd; k++)
					if (memcmp(p->dec + k * p->per, x, p->per) == 0)
						break;
				if (k < nd || p->head[nd] == INT64_MAX)
					continue;
				for (k = 0; k < nd; k++)
					if (p->head[k] != INT64_MAX && dominates(p, k, nd))
						break;
				if (k < nd)
					continue;
				p->n_dec++;
				grew = 1;
			}
		prune(p);
	}
	return sims;
}

/* Simulates the chain's pick on top of base; offers it. Returns the simulated peak. */
static int64_t
try_pick(pb *p, const uint8_t *base, int64_t *best, peak_starts *st)
{
	int64_t sim;

	mix(p, base, p->pick);
	if (!drv_valid_items(p->c, p->xs, p->xr))
		return -1;
	sim = drv_simulate(p->c, p->xs, p->xr);
	drv_starts_offer(st, p->c->red.n_items, p->xs, sim);
	if (!drv_peak_offer(p->c, p->xs, p->xr, sim, best) && sim >= 0 && sim == *best) {
		/* the same peak with less recompute time is the better incumbent (the
		 * peak objective's second criterion) */
		solve_ctx *c = p->c;
		ilpi_terms tc = drv_terms(c, 0, 1, 1);
		size_t n = c->red.n_items;

		if (ilpi_model_value(&c->m, &tc, p->xs, p->xr) <
		    ilpi_model_value(&c->m, &tc, c->ws, c->wr) * (1 - 1e-12)) {
			memcpy(c->ws, p->xs, n);
			memcpy(c->wr, p->xr, n);
		}
	}
	return sim;
}

/* Whether decisions d and e save the same values that the next window reads (a
 * window's recomputation may reach into the one below it: decisions are mixed only
 * between windows that agree there, as in their calibration). */
static int
same_exit(const pb *p, size_t d, size_t e)
{
	for (size_t o = 0; o < p->per; o++)
		if (p->exit[o] && p->dec[d * p->per + o] != p->dec[e * p->per + o])
			return 0;
	return 1;
}

/* The chain of the decisions that agree with decision `sig` at the exit (b
 * compacted to n_dec per window in p->bc, the others not allowed). */
static ilpi_blocks_chain
chain_of(pb *p, size_t sig)
{
	for (size_t w = 0; w < p->n_win; w++)
		for (size_t d = 0; d < p->n_dec; d++)
			p->bc[w * p->n_dec + d] = same_exit(p, sig, d) ?
			    p->b[w * PB_MAX_DEC + d] : INT64_MAX;
	return (ilpi_blocks_chain){ p->n_win, p->n_dec, p->S, p->priced ? p->tp : p->t, p->bc,
	    p->head, p->tail };
}

/* The first decision of each exit signature: sig[0..) , their count. */
static size_t
signatures(pb *p, int32_t *sig)
{
	size_t n = 0;

	for (size_t d = 0; d < p->n_dec; d++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (same_exit(p, (size_t)sig[k], d))
				break;
		if (k == n)
			sig[n++] = (int32_t)d;
	}
	return n;
}

/* The least chain peak over the exit signatures, its pick in p->pick. */
static int64_t
chain_least(pb *p)
{
	size_t ns = signatures(p, p->sig);
	int64_t best = -1;

	for (size_t k = 0; k < ns; k++) {
		ilpi_blocks_chain ch = chain_of(p, (size_t)p->sig[k]);
		int64_t v = ilpi_blocks_chain_least(&ch, p->pick2);

		if (v >= 0 && (best < 0 || v < best)) {
			best = v;
			memcpy(p->pick, p->pick2, p->n_win * sizeof *p->pick);
		}
	}
	return best;
}

/* The least chain time within P over the exit signatures (0), its pick in p->pick. */
static int
chain_fastest(pb *p, int64_t P, double *tm)
{
	size_t ns = signatures(p, p->sig);
	int rc = 1;

	for (size_t k = 0; k < ns; k++) {
		ilpi_blocks_chain ch = chain_of(p, (size_t)p->sig[k]);
		double t;
		int r = ilpi_blocks_chain_fastest(&ch, P, p->pick2, &t);

		if (r < 0)
			return -1;
		if (r == 0 && (rc != 0 || t < *tm)) {
			*tm = t;
			rc = 0;
			memcpy(p->pick, p->pick2, p->n_win * sizeof *p->pick);
		}
	}
	return rc;
}

static int
pb_alloc(pb *p, size_t n, size_t ng)
{
	p->win = malloc((n + 1) * sizeof *p->win);
	p->off = malloc((n + 1) * sizeof *p->off);
	p->wnode = malloc((ng + 1) * sizeof *p->wnode);
	p->xs = malloc(2 * n + 2);
	return p->win != NULL && p->off != NULL && p->wnode != NULL && p->xs != NULL;
}

static int
pb_alloc_windows(pb *p)
{
	size_t nw = p->n_win, nd = PB_MAX_DEC;

	p->xr = p->xs + p->c->red.n_items + 1;
	p->at = malloc((nw * p->per + 1) * sizeof *p->at);
	p->dec = malloc(nd * p->per + 1);
	p->M = malloc(3 * (nw + 2) * sizeof *p->M);
	p->S = malloc(nd * sizeof *p->S);
	p->t = malloc(nd * sizeof *p->t);
	p->mb = calloc(nd, sizeof *p->mb);
	p->tp = malloc(nd * sizeof *p->tp);
	p->b = malloc(nw * nd * sizeof *p->b);   /* b[w * PB_MAX_DEC + d] */
	p->bc = malloc(nw * nd * sizeof *p->bc);
	p->head = malloc(nd * sizeof *p->head);
	p->tail = malloc(nd * sizeof *p->tail);
	p->pick = malloc(nw * sizeof *p->pick);
	p->pick2 = malloc(nw * sizeof *p->pick2);
	p->sig = malloc(nd * sizeof *p->sig);
	p->exit = calloc(p->per + 1, 1);
	if (p->at == NULL || p->dec == NULL || p->M == NULL || p->S == NULL || p->t == NULL ||
	    p->mb == NULL || p->tp == NULL || p->b == NULL || p->bc == NULL || p->head == NULL ||
	    p->tail == NULL || p->pick == NULL || p->pick2 == NULL || p->sig == NULL ||
	    p->exit == NULL)
		return 0;
	for (size_t it = 0; it < p->c->red.n_items; it++)
		if (p->win[it] >= 0)
			p->at[(size_t)p->win[it] * p->per + (size_t)p->off[it]] = (int32_t)it;
	/* exit offsets: window 0's items that an item of window 1 reads */
	for (size_t o = 0; o < p->per; o++) {
		const ilpi_item *v = &p->c->red.item[p->at[p->per + o]];

		for (uint32_t k = 0; k < v->in_count; k++) {
			int32_t u = p->c->red.in[v->in_begin + k];

			if (p->win[u] == 0)
				p->exit[p->off[u]] = 1;
		}
	}
	return 1;
}

void
drv_peak_blocks(solve_ctx *c, const ilpi_blocks *b, int64_t *best,
    peak_starts *st, double until)
{
	pb p = { 0 };
	ilpi_blocks *fine = NULL;
	ilp_error e = { 0 };
	size_t n = c->red.n_items, sims = 0;
	int64_t first = *best, model = -1, sim = -1;
	double t1 = ilpi_now();
	uint8_t *base = NULL;
	int rounds = 0;

	p.c = c;
	if (*best < 0 || !pb_alloc(&p, n, c->g->n))
		goto out;
	/* a small stack's layers fit in one coarse segment: every narrow cut then */
	if ((p.n_win = ilpi_blocks_windows(b, p.win, p.off, &p.per)) == 0 &&
	    ilpi_blocks_plan(&c->red, &fine, &e) == 0 && fine != NULL)
		p.n_win = ilpi_blocks_windows(b = fine, p.win, p.off, &p.per);
	if (p.n_win == 0 || p.per == 0) {
		drv_note(c, "peak blocks: no repeated layers, %.2fs", ilpi_now() - t1);
		goto out;
	}
	if (!pb_alloc_windows(&p) || (base = malloc(n + 1)) == NULL)
		goto out;
	node_windows(&p);
	/* Candidates: the incumbent's layers and the seeds'. */
	add_decisions(&p, c->ws);
	for (size_t k = 0; k < c->n_seed; k++)
		if (drv_seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) == 0)
			add_decisions(&p, c->ts);
	memcpy(base, c->ws, n);
	for (rounds = 0; rounds < PB_ROUNDS && ilpi_now() < until; rounds++) {
		int64_t before = *best;

		sims += calibrate(&p, base, until);
		prune(&p);
		sims += explore(&p, base, until, 40 * p.per + 400);
		model = chain_least(&p);
		if (model < 0)
			break;
		sim = try_pick(&p, base, best, st);
		sims++;
		/* the chain's least-time assignment at that peak too */
		{
			double tm;

			if (chain_fastest(&p, model, &tm) == 0) {
				(void)try_pick(&p, base, best, st);
				sims++;
			}
		}
		drv_note(c, "peak blocks: round %d, %zu decisions, model %lld bytes, "
		    "simulated %lld", rounds + 1, p.n_dec, (long long)model, (long long)sim);
		if (*best >= before)
			break;
		/* again around the new incumbent: its layers are candidates too */
		memcpy(base, c->ws, n);
		add_decisions(&p, c->ws);
	}
	drv_note(c, "peak blocks: %zu layers of %zu items, %zu simulated, best %lld bytes "
	    "(from %lld), %.2fs%s", p.n_win, p.per, sims, (long long)*best, (long long)first,
	    ilpi_now() - t1, ilpi_now() >= until ? " (cut short by its share of the time "
	    "limit: the answer may differ between runs)" : "");
out:
	free(base);
	pb_free(&p);
	ilpi_blocks_free(fine);
}

/* The valid seed of least simulated peak into base; its peak, -1 when none. */
static int64_t
least_seed(solve_ctx *c, uint8_t *base)
{
	int64_t best = -1, sim;

	for (size_t k = 0; k < c->n_seed; k++) {
		if (drv_seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) != 0 ||
		    (sim = drv_simulate(c, c->ts, c->tr)) < 0 || (best >= 0 && sim >= best))
			continue;
		best = sim;
		memcpy(base, c->ts, c->red.n_items);
	}
	return best;
}

/* The plan and windows for a peak budget: the coarse plan, else one at every narrow
 * cut; p's window arrays allocated. NULL when there are no repeated layers. */
static ilpi_blocks *
budget_plan(pb *p)
{
	solve_ctx *c = p->c;
	ilpi_blocks *b = NULL;
	ilp_error e = { 0 };

	if (ilpi_blocks_plan_coarse(&c->red, 16, &b, &e) != 0 || b == NULL)
		return NULL;
	if ((p->n_win = ilpi_blocks_windows(b, p->win, p->off, &p->per)) == 0) {
		ilpi_blocks_free(b);
		b = NULL;
		if (ilpi_blocks_plan(&c->red, &b, &e) != 0 || b == NULL)
			return NULL;
		p->n_win = ilpi_blocks_windows(b, p->win, p->off, &p->per);
	}
	if (p->n_win == 0 || p->per == 0 || !pb_alloc_windows(p)) {
		ilpi_blocks_free(b);
		return NULL;
	}
	return b;
}

/* Rounds towards the least peak (the layers outside the windows come from the base: a
 * lower base lets the chain reach lower budgets), until the base fits B (one at least). The base's
 * simulated peak; the chain's last least peak in *least. */
static int64_t
budget_rounds(pb *p, uint8_t *base, int64_t bsim, int64_t B, double until, size_t *sims,
    int64_t *least)
{
	solve_ctx *c = p->c;

	/* the first round whatever the budget and the clock: it calibrates the decisions
	 * (calibrate() leaves those it has no time for not allowed) */
	for (int round = 0; round < PB_ROUNDS && (round == 0 || (bsim > B &&
	    ilpi_now() < until)); round++) {
		int64_t sim;

		*sims += calibrate(p, base, until);
		prune(p);
		*sims += explore(p, base, until, 40 * p->per + 400);
		if ((*least = chain_least(p)) < 0)
			break;
		mix(p, base, p->pick);
		if (!drv_valid_items(c, p->xs, p->xr) || (sim = drv_simulate(c, p->xs, p->xr)) < 0 ||
		    sim >= bsim)
			break;
		(*sims)++;
		bsim = sim;
		memcpy(base, p->xs, c->red.n_items);
		add_decisions(p, base);
	}
	return bsim;
}

/* The solve's saved-bytes budget in model units (the rows' right-hand side), < 0 none. */
static double
cap_units(const solve_ctx *c)
{
	return c->budget < 0 ? -1 : floor((double)c->budget / c->m.byte_unit) + 0.5;
}

/* Whether the pick on top of base is valid and saves at most the cap; its model
 * recompute cost in *cost. */
static int
pick_fits_cap(pb *p, const uint8_t *base, double cap, double *cost)
{
	solve_ctx *c = p->c;
	ilpi_terms tc = drv_terms(c, 0, 1, 1);

	mix(p, base, p->pick);
	if (!drv_valid_items(c, p->xs, p->xr) || model_bytes(c, p->xs, p->xr) > cap)
		return 0;
	*cost = ilpi_model_value(&c->m, &tc, p->xs, p->xr);
	return 1;
}

/* The chain's least time within P whose partition also saves at most the solve's
 * bytes budget (none: chain_fastest): when the least-time pick saves more, the
 * decisions' time is priced at lambda per saved byte (t + lambda mb / n_win, the
 * Lagrangian of the cap), lambda doubled until a pick fits, then bisected towards
 * the least price that fits; of the picks that fit, the least model recompute cost
 * is kept. 0 with it in p->pick (its chain time in *tm), 1 none, -1 out of memory. */
static int
chain_fastest_capped(pb *p, const uint8_t *base, int64_t P, double *tm, double until)
{
	size_t nw = p->n_win, nd = p->n_dec;
	double cap = cap_units(p->c), lo = 0, hi, tmax = 0, mlo = 0, mhi = 0, cost, best = 0;
	int32_t *keep;
	int rc, found = 0, have = 0;

	if ((rc = chain_fastest(p, P, tm)) != 0 || !p->cap || cap < 0 ||
	    pick_fits_cap(p, base, cap, &cost))
		return rc;
	for (size_t d = 0; d < nd; d++) {
		if (p->head[d] == INT64_MAX)
			continue;
		tmax = p->t[d] > tmax ? p->t[d] : tmax;
		if (!have || p->mb[d] < mlo)
			mlo = p->mb[d];
		if (!have || p->mb[d] > mhi)
			mhi = p->mb[d];
		have = 1;
	}
	if (mhi <= mlo || (keep = malloc(nw * sizeof *keep)) == NULL)
		return 1;
	/* at hi a byte of every window is priced as the largest time difference */
	hi = (tmax > 0 ? tmax : 1) * (double)nw / (mhi - mlo);
	p->priced = 1;
	for (int k = 0; k < 60 && ilpi_now() < until; k++) {
		double lam = found || k >= 30 ? (lo + hi) / 2 : hi, t;
		int fits;

		if (!found && k >= 30)
			break;
		for (size_t d = 0; d < nd; d++)
			p->tp[d] = p->t[d] + lam * p->mb[d] / (double)nw;
		if ((rc = chain_fastest(p, P, &t)) < 0)
			break;
		fits = rc == 0 && pick_fits_cap(p, base, cap, &cost);
		if (fits && (!found || cost < best)) {
			memcpy(keep, p->pick, nw * sizeof *keep);
			best = cost;
		}
		if (fits) {
			found = 1;
			hi = lam;
		} else if (found) {
			lo = lam;
		} else {
			lo = hi;
			hi *= 2;
		}
		if (found && hi - lo <= 1e-9 * hi)
			break;
	}
	p->priced = 0;
	if (rc >= 0 && found) {
		memcpy(p->pick, keep, nw * sizeof *keep);
		*tm = 0;
		for (size_t w = 0; w < nw; w++)
			*tm += p->t[p->pick[w]];
	}
	free(keep);
	return rc < 0 ? -1 : found ? 0 : 1;
}

/* The chain's least-time assignment within P = B; when its simulation overshoots, P
 * comes down by the overshoot (at most 8 tries, the first whatever the clock). 1 with
 * the partition in (s, r). */
static int
budget_fastest(pb *p, const uint8_t *base, int64_t B, uint8_t *s, uint8_t *r,
    int64_t *sim_out, double *time_out, double until, size_t *sims, int *tries)
{
	solve_ctx *c = p->c;
	int64_t P = B, sim;
	double tm;

	for (*tries = 0; *tries < 8 && (*tries == 0 || ilpi_now() < until);) {
		if (chain_fastest_capped(p, base, P, &tm, until) != 0)
			return 0;
		mix(p, base, p->pick);
		if (!drv_valid_items(c, p->xs, p->xr) || (sim = drv_simulate(c, p->xs, p->xr)) < 0)
			return 0;
		(*sims)++;
		(*tries)++;
		drv_note(c, "peak blocks: least time within %lld bytes: simulated %lld", (long long)P,
		    (long long)sim);
		if (sim <= B) {
			memcpy(s, p->xs, c->red.n_items);
			memcpy(r, p->xr, c->red.n_items);
			*sim_out = sim;
			*time_out = tm;
			return 1;
		}
		P -= sim - B;
	}
	return 0;
}

int
drv_peak_blocks_budget(solve_ctx *c, int64_t B, uint8_t *s, uint8_t *r, int64_t *sim_out,
    double *time_out, double until)
{
	ilpi_blocks *b = NULL;
	pb p = { 0 };
	size_t n = c->red.n_items, sims = 0;
	uint8_t *base = NULL;
	double t1 = ilpi_now();
	int64_t bsim, least = -1;
	int found = 0, tries = 0;

	p.c = c;
	p.cap = c->budget >= 0;
	if (c->o->prefer == ILP_PREFER_SOFT || c->o->monolithic || n == 0 ||
	    !pb_alloc(&p, n, c->g->n) || (b = budget_plan(&p)) == NULL ||
	    (base = malloc(n + 1)) == NULL || (bsim = least_seed(c, base)) < 0)
		goto out;
	node_windows(&p);
	add_decisions(&p, base);
	for (size_t k = 0; k < c->n_seed; k++)
		if (drv_seed_items(c, c->seed[k], c->ts, c->tr, c->node_s) == 0)
			add_decisions(&p, c->ts);
	bsim = budget_rounds(&p, base, bsim, B, until, &sims, &least);
	/* the least-peak partition fits: the answer unless a faster one does */
	if (bsim <= B) {
		memcpy(s, base, n);
		if (drv_valid_items(c, s, r) && (cap_units(c) < 0 || model_bytes(c, s, r) <=
		    cap_units(c)) && drv_simulate(c, s, r) == bsim) {
			*sim_out = bsim;
			*time_out = 0;
			found = 1;
		}
	}
	if (p.n_dec > 0 && budget_fastest(&p, base, B, s, r, sim_out, time_out, until, &sims,
	    &tries))
		found = 1;
	drv_note(c, "peak blocks: budget %lld bytes: %s, %d least-time tries (the chain's "
	    "least peak %lld bytes, base simulated %lld), %zu decisions, %zu simulated, %.2fs",
	    (long long)B, found ? "a partition fits" : "none fits", tries, (long long)least,
	    (long long)bsim, p.n_dec, sims, ilpi_now() - t1);
out:
	free(base);
	pb_free(&p);
	ilpi_blocks_free(b);
	return found;
}
