/*
 * blocks_fronts.c - the class fronts of the decomposition (blocks_fronts.h).
 */
#include "config.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"
#include "solver/blocks/blocks_fronts.h"

/*
 * A class's fronts come from a second, finer dynamic programme over its own items in
 * order, exact in integers: a label is a partial assignment's (bytes, cost) under a
 * mask of the variables still needed later (entry-state values, availabilities of own
 * items with later users, shared storages), one bit each in a slot reused once the
 * variable is dead. Labels with the same mask are pruned by dominance after each item.
 */
enum { MAX_SLOTS = 14 };

typedef struct label {
	int64_t bytes;
	double cost;
	int32_t parent;           /* label of the previous item, -1 for the start */
	uint16_t mask;
	uint8_t dec;              /* s | r << 1 | y << 2 | o << 3 (offloaded) */
} label;

typedef struct cvar {
	int32_t end;              /* last item reading it; n_own: kept to the exit */
	int8_t slot;              /* -1: never live after its item */
} cvar;

typedef struct cplan {
	int no, nin, nout, nvar;
	cvar *var;                /* in-state j, then own item i (nin + i), own y (nin + no + t) */
	int32_t *yfirst;          /* per own item: own-y index when it is the first item of
	                           * a shared storage, else -1 */
	uint16_t *dead;           /* per item: slots freed after it */
	int32_t *outvar;          /* per exit-state variable: its var */
} cplan;

static int
cmp_label(const void *x, const void *y)
{
	const label *a = x, *b = y;

	if (a->mask != b->mask)
		return a->mask < b->mask ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	return 0;
}

static void
cplan_free(cplan *cp)
{
	free(cp->var);
	free(cp->yfirst);
	free(cp->dead);
	free(cp->outvar);
}

static void
reads(cvar *v, int i)
{
	if (v->end < i)
		v->end = i;
}

/* Variables, their lifetimes and slots for class c. Returns 1 when more than
 * MAX_SLOTS would be live at once. */
static int
class_plan(const ilpi_blocks *b, size_t c, cplan *cp)
{
	const ilpi_reduced *red = b->red;
	const bclass *cl = &b->cls[c];
	size_t s = (size_t)cl->rep;
	const bseg *sg = &b->seg[s];
	int no = cl->n_own, nowny = 0, used[MAX_SLOTS];
	int32_t *yvar = NULL;

	memset(cp, 0, sizeof *cp);
	cp->no = no, cp->nin = cl->n_in, cp->nout = cl->n_out;
	cp->nvar = cl->n_in + 2 * no;
	cp->var = malloc((size_t)cp->nvar * sizeof *cp->var);
	cp->yfirst = malloc((size_t)no * sizeof *cp->yfirst);
	cp->dead = calloc((size_t)no, sizeof *cp->dead);
	cp->outvar = malloc(((size_t)cl->n_out + 1) * sizeof *cp->outvar);
	yvar = malloc(((size_t)red->n_stor + 1) * sizeof *yvar);
	if (cp->var == NULL || cp->yfirst == NULL || cp->dead == NULL || cp->outvar == NULL ||
	    yvar == NULL) {
		free(yvar);
		return -1;
	}
	for (int v = 0; v < cp->nvar; v++)
		cp->var[v].end = -1, cp->var[v].slot = -1;
	for (int i = 0; i < no; i++) {
		const ilpi_item *it = &red->item[b->ord[sg->lo + i]];

		cp->yfirst[i] = -1;
		if (it->can_save && red->stor_items[it->stor] >= 2) {
			int64_t ref = ilpi_blocks_stor_ref(b, s, it->stor);

			if (ref < 0) {
				reads(&cp->var[-ref - 1], i);
			} else if (b->sfirst[it->stor] == sg->lo + i) {
				cp->yfirst[i] = nowny;
				yvar[it->stor] = cp->nin + no + nowny++;
			} else {
				reads(&cp->var[yvar[it->stor]], i);
			}
		}
		for (uint32_t k = 0; it->can_recompute && k < it->in_count; k++) {
			int32_t u = red->in[it->in_begin + k];
			int64_t ref;

			if (!ilpi_blocks_row_input(red, it, u) ||
			    (ref = ilpi_blocks_item_ref(b, s, u)) == ILPI_BLOCKS_REF_CONST)
				continue;
			reads(&cp->var[ref >= 0 ? cp->nin + ref : -ref - 1], i);
		}
	}
	for (int j = 0; j < cl->n_out; j++) {
		int32_t v = b->sep[b->cbeg[s + 1] + (size_t)j];
		int64_t ref = v >= 0 ? ilpi_blocks_item_ref(b, s, v) : ilpi_blocks_stor_ref(b, s, -v - 1);

		cp->outvar[j] = ref < 0 ? (int32_t)(-ref - 1) : v >= 0 ? cp->nin + (int32_t)ref :
		    cp->nin + no + (int32_t)ref;
		cp->var[cp->outvar[j]].end = no;
	}
	free(yvar);
	/* Slots: entry-state variables from the start, own ones after their item. */
	memset(used, 0, sizeof used);
	for (int v = -1; v < no; v++) {
		int from = v < 0 ? 0 : cp->nin + v, to = v < 0 ? cp->nin : cp->nin + v + 1;

		if (v >= 0) {
			/* free the slots of variables last read by item v */
			for (int x = 0; x < cp->nvar; x++)
				if (cp->var[x].slot >= 0 && cp->var[x].end == v) {
					used[cp->var[x].slot] = 0;
					cp->dead[v] |= (uint16_t)(1u << cp->var[x].slot);
				}
		}
		for (int pass = 0; pass < 2; pass++) {
			if (v >= 0 && pass == 1) {
				if (cp->yfirst[v] < 0)
					break;
				from = cp->nin + no + cp->yfirst[v];
				to = from + 1;
			} else if (pass == 1) {
				break;
			}
			for (int x = from; x < to; x++) {
				int k = 0;

				if (cp->var[x].end <= v)
					continue;
				while (k < MAX_SLOTS && used[k])
					k++;
				if (k == MAX_SLOTS)
					return 1;
				used[k] = 1;
				cp->var[x].slot = (int8_t)k;
			}
		}
	}
	return 0;
}

static int
bit(uint16_t mask, const cvar *v)
{
	return v->slot >= 0 && (mask >> v->slot & 1);
}

/* Labels of one entry state a, item by item; pool holds every item's labels. */
static int
class_run(ilpi_blocks *b, bclass *cl, const cplan *cp, size_t a, label **pool_out,
    size_t *beg, size_t *cnt)
{
	const ilpi_reduced *red = b->red;
	const bseg *sg = &b->seg[cl->rep];
	size_t n = 0, cap = 1024;
	label *pool = malloc(cap * sizeof *pool);
	uint16_t m0 = 0;

	if (pool == NULL)
		return -1;
	for (int j = 0; j < cp->nin; j++)
		if ((a >> j & 1) && cp->var[j].slot >= 0)
			m0 |= (uint16_t)(1u << cp->var[j].slot);
	pool[n++] = (label){ 0, 0, -1, m0, 0 };
	beg[0] = 0, cnt[0] = 1;
	for (int i = 0; i < cp->no; i++) {
		int32_t item = b->ord[sg->lo + i];
		const ilpi_item *it = &red->item[item];
		const cvar *iv = &cp->var[cp->nin + i];
		int shared = it->can_save && red->stor_items[it->stor] >= 2;
		const cvar *yv = NULL;
		int64_t yb = 0;
		size_t from = beg[i], to = beg[i] + cnt[i], start = n;

		if (shared) {
			int64_t ref = ilpi_blocks_stor_ref(b, cl->rep, it->stor);

			yv = ref < 0 ? &cp->var[-ref - 1] : &cp->var[cp->nin + cp->no + ref];
			yb = red->stor_bytes[it->stor];
		}
		for (size_t l = from; l < to; l++) {
			uint16_t m = pool[l].mask;
			int inputs = 1;

			for (uint32_t k = 0; it->can_recompute && k < it->in_count && inputs; k++) {
				int32_t u = red->in[it->in_begin + k];
				int64_t ref;

				if (!ilpi_blocks_row_input(red, it, u) || (ref =
				    ilpi_blocks_item_ref(b, cl->rep, u)) == ILPI_BLOCKS_REF_CONST)
					continue;
				inputs = bit(m, &cp->var[ref >= 0 ? cp->nin + ref : -ref - 1]);
			}
			for (int d = 0; d < 12; d++) {
				int sv = d & 1, rv = d >> 1 & 1, y = d >> 2 & 1, first = cp->yfirst[i] >= 0;
				int ov = d >= 6, kind = b->x.off_kind != NULL ? b->x.off_kind[item] : 0;
				uint16_t nm;
				int64_t by = pool[l].bytes;

				if (ov) {
					/* the same decisions, saved and offloaded */
					sv = (d - 6) & 1, rv = (d - 6) >> 1 & 1, y = (d - 6) >> 2 & 1;
					if (!sv || kind == 0 || shared)
						continue;
				} else if (sv && kind == 2) {
					continue; /* offloaded whenever saved */
				}
				if (rv && sv)
					continue;
				if ((sv && !it->can_save) || (rv && (!it->can_recompute || !inputs)))
					continue;
				if (it->boundary && !sv && !rv)
					continue;
				if (y && !first)
					continue;
				if (sv && shared && !(first ? y : bit(m, yv)))
					continue;
				if (sv && !shared && !ov)
					by += red->stor_bytes[it->stor];
				if (first && y)
					by += yb;
				if (rv)
					by += it->rng_bytes;   /* the RNG states replaying needs */
				by += ilpi_blocks_x_bytes(b, item, sv, rv);
				nm = (uint16_t)(m & ~cp->dead[i]);
				if ((sv || rv) && iv->slot >= 0 && iv->end > i)
					nm |= (uint16_t)(1u << iv->slot);
				if (first && y && yv->slot >= 0 && yv->end > i)
					nm |= (uint16_t)(1u << yv->slot);
				if (ILPI_GROW(pool, cap, n, 1) != 0) {
					free(pool);
					return -1;
				}
				pool[n++] = (label){ by, pool[l].cost + (rv ? it->cost : 0) +
				    ilpi_blocks_x_cost(b, item, sv, rv) + (ov ? b->x.off_cost[item] : 0),
				    (int32_t)l, nm, (uint8_t)(sv | rv << 1 | y << 2 | ov << 3) };
			}
		}
		qsort(pool + start, n - start, sizeof *pool, cmp_label);
		{
			size_t k = start;
			double best = DBL_MAX;

			for (size_t l = start; l < n; l++) {
				if (l == start || pool[l].mask != pool[l - 1].mask)
					best = DBL_MAX;
				if (pool[l].cost < best) {
					best = pool[l].cost;
					pool[k++] = pool[l];
				}
			}
			n = k;
		}
		beg[i + 1] = start, cnt[i + 1] = n - start;
	}
	*pool_out = pool;
	return 0;
}

static int
add_point(ilpi_blocks *b, int64_t bytes, double cost, int32_t sol)
{
	if (ILPI_GROW(b->pt, b->cap_pt, b->n_pt, 1) != 0)
		return -1;
	b->pt[b->n_pt].bytes = bytes;
	b->pt[b->n_pt].cost = cost;
	b->pt[b->n_pt].sol = sol;
	b->n_pt++;
	return 0;
}

/* The final labels of entry state a become the fronts of the combos (a, o). */
static int
class_collect(ilpi_blocks *b, bclass *cl, const cplan *cp, size_t a, label *pool,
    const size_t *beg, const size_t *cnt)
{
	size_t from = beg[cp->no], n = cnt[cp->no];
	size_t *o = malloc((n + 1) * sizeof *o);

	if (o == NULL)
		return -1;
	for (size_t l = 0; l < n; l++) {
		o[l] = 0;
		for (int j = 0; j < cp->nout; j++)
			if (bit(pool[from + l].mask, &cp->var[cp->outvar[j]]))
				o[l] |= (size_t)1 << j;
	}
	/* labels are sorted by mask, but several masks can give one exit state */
	for (size_t out = 0; out < ((size_t)1 << cp->nout); out++) {
		size_t combo = a | out << cp->nin, first = b->n_pt;

		for (size_t l = 0; l < n; l++) {
			const label *lb = &pool[from + l];
			uint8_t *sol;
			int32_t at;

			if (o[l] != out)
				continue;
			/* a solution is 2 * cp->no bytes */
			if (ilpi_grow(&cl->sol, &cl->cap_sol, cl->n_sol, 1, 2 * (size_t)cp->no) != 0)
				goto fail;
			sol = cl->sol + cl->n_sol * 2 * (size_t)cp->no;
			at = (int32_t)(from + l);
			for (int i = cp->no; i-- > 0;) {
				sol[i] = (uint8_t)((pool[at].dec & 1) + (pool[at].dec >> 3 & 1));
				sol[cp->no + i] = pool[at].dec >> 1 & 1;
				at = pool[at].parent;
			}
			if (add_point(b, lb->bytes, lb->cost, (int32_t)cl->n_sol++) != 0)
				goto fail;
		}
		/* merge masks: ascending bytes, strictly descending cost */
		{
			bpoint *p = b->pt + first;
			size_t k = 0, m = b->n_pt - first;
			double best = DBL_MAX;

			for (size_t x = 1; x < m; x++)
				for (size_t y = x; y > 0 && (p[y - 1].bytes > p[y].bytes ||
				    (p[y - 1].bytes == p[y].bytes && p[y - 1].cost > p[y].cost)); y--) {
					bpoint t = p[y];

					p[y] = p[y - 1], p[y - 1] = t;
				}
			for (size_t x = 0; x < m; x++)
				if (p[x].cost < best)
					best = p[x].cost, p[k++] = p[x];
			b->n_pt = first + k;
		}
		cl->fbeg[combo] = first;
		cl->fcnt[combo] = b->n_pt - first;
	}
	free(o);
	return 0;
fail:
	free(o);
	return -1;
}

int
ilpi_blocks_class_fronts(ilpi_blocks *b, size_t c)
{
	bclass *cl = &b->cls[c];
	size_t ncombo = (size_t)1 << (cl->n_in + cl->n_out);
	size_t *beg = malloc(((size_t)cl->n_own + 1) * sizeof *beg);
	size_t *cnt = malloc(((size_t)cl->n_own + 1) * sizeof *cnt);
	cplan cp;
	int rc = -1;

	memset(&cp, 0, sizeof cp);
	cl->fbeg = calloc(ncombo, sizeof *cl->fbeg);
	cl->fcnt = calloc(ncombo, sizeof *cl->fcnt);
	if (beg == NULL || cnt == NULL || cl->fbeg == NULL || cl->fcnt == NULL)
		goto out;
	if ((rc = class_plan(b, c, &cp)) != 0)
		goto out;
	for (size_t a = 0; a < ((size_t)1 << cl->n_in); a++) {
		label *pool = NULL;

		b->st.n_subsolves++;
		if (class_run(b, cl, &cp, a, &pool, beg, cnt) != 0 ||
		    class_collect(b, cl, &cp, a, pool, beg, cnt) != 0) {
			free(pool);
			rc = -1;
			goto out;
		}
		free(pool);
	}
	cl->done = 1;
	rc = 0;
out:
	cplan_free(&cp);
	free(beg);
	free(cnt);
	return rc;
}
