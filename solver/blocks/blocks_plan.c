/*
 * blocks_plan.c - the decomposition's plan (blocks_plan.h): a row-topological order of
 * the active items, the narrow cuts, and the classes of identical segments. No GLPK.
 * blocks.c states the method.
 */
#include "config.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"
#include "solver/blocks/blocks_plan.h"

enum {
	MAX_WIDTH = 4,            /* state variables at a cut: 2^(in+out) sub-fronts */
	MAX_SEG = 400,            /* items in a segment */
	SEG_TARGET = 64,          /* items in a segment, when some width allows it */
	MAX_POINTS = 48000000     /* combination points over all cuts (8 bytes each) */
};

/* ---- plan: order ----------------------------------------------------------- */

static int
active(const ilpi_item *it)
{
	return it->can_save || it->can_recompute;
}

/* Row inputs of V: active inputs, when V can be recomputed. */
int
ilpi_blocks_row_input(const ilpi_reduced *red, const ilpi_item *v, int32_t u)
{
	return v->can_recompute && active(&red->item[u]);
}

typedef struct okey {
	double key;
	int32_t item;
} okey;

static int
cmp_okey(const void *a, const void *b)
{
	const okey *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->item > y->item) - (x->item < y->item);
}

/*
 * Item order: the reduction's topological order, except that items without row inputs
 * (weights, inputs) move to just before their first user, and every other item to just
 * after its last row input when that is earlier (as soon as possible). Values the
 * backward needs from one layer then stay next to that layer instead of keeping every
 * cut up to the end of the forward wide: transposed weights, and chains of forward
 * values the joint graph computes only in the backward region (the sigmoid a SwiGLU's
 * backward takes of the forward's activation, which sits in the reversed layer order).
 * Any topological order is exact; this one only makes cuts narrow.
 */
static int
order(ilpi_blocks *b)
{
	const ilpi_reduced *red = b->red;
	size_t n = red->n_items, m = 0;
	double *key = malloc((n + 1) * sizeof *key);
	double *first_user = malloc((n + 1) * sizeof *first_user);
	uint8_t *has_in = calloc(n + 1, 1), *has_user = calloc(n + 1, 1);
	okey *ok = malloc((n + 1) * sizeof *ok);
	int rc = -1;

	if (key == NULL || first_user == NULL || has_in == NULL || has_user == NULL ||
	    ok == NULL)
		goto out;
	for (size_t v = 0; v < n; v++) {
		const ilpi_item *it = &red->item[v];

		key[v] = (double)v;
		first_user[v] = DBL_MAX;
		for (uint32_t k = 0; k < it->in_count; k++) {
			int32_t u = red->in[it->in_begin + k];

			if (!active(it) || !ilpi_blocks_row_input(red, it, u))
				continue;
			has_in[v] = has_user[u] = 1;
			if ((double)v < first_user[u])
				first_user[u] = (double)v;
		}
	}
	for (size_t v = 0; v < n; v++)
		if (active(&red->item[v]) && !has_in[v] && has_user[v])
			key[v] = first_user[v] - 0.5;
	/* in topological order: an input's key is final when its users are keyed */
	for (size_t v = 0; v < n; v++) {
		const ilpi_item *it = &red->item[v];
		double last = -DBL_MAX;

		if (!active(it) || !has_in[v])
			continue;
		for (uint32_t k = 0; k < it->in_count; k++) {
			int32_t u = red->in[it->in_begin + k];

			if (ilpi_blocks_row_input(red, it, u) && key[u] > last)
				last = key[u];
		}
		if (last + 0.25 < key[v])
			key[v] = last + 0.25;
	}
	for (size_t v = 0; v < n; v++)
		if (active(&red->item[v]))
			ok[m].key = key[v], ok[m].item = (int32_t)v, m++;
	qsort(ok, m, sizeof *ok, cmp_okey);
	b->n = m;
	for (size_t v = 0; v < n; v++)
		b->pos[v] = -1;
	for (size_t p = 0; p < m; p++) {
		b->ord[p] = ok[p].item;
		b->pos[ok[p].item] = (int32_t)p;
	}
	rc = 0;
out:
	free(key);
	free(first_user);
	free(has_in);
	free(has_user);
	free(ok);
	return rc;
}

/* Every row input before its user: the segments' rows then only look left. */
static int
topological(const ilpi_blocks *b)
{
	const ilpi_reduced *red = b->red;

	for (size_t p = 0; p < b->n; p++) {
		const ilpi_item *it = &red->item[b->ord[p]];

		for (uint32_t k = 0; k < it->in_count; k++) {
			int32_t u = red->in[it->in_begin + k];

			if (ilpi_blocks_row_input(red, it, u) && b->pos[u] >= (int32_t)p)
				return 0;
		}
	}
	return 1;
}

/* ---- plan: cuts -------------------------------------------------------------- */

/* State variable v is live at cuts lo..hi (cut c lies between positions c-1 and c). */
typedef struct live {
	int32_t var, lo, hi;
} live;

/* Position of a state variable's owner, then items before storages: the canonical
 * order of a cut's state. */
static int32_t
var_pos(const ilpi_blocks *b, int32_t var)
{
	return var >= 0 ? b->pos[var] : b->sfirst[-var - 1];
}

static size_t
lives(const ilpi_blocks *b, live *lv)
{
	const ilpi_reduced *red = b->red;
	size_t nl = 0;
	int32_t *last = malloc((red->n_items + 1) * sizeof *last);

	if (last == NULL)
		return (size_t)-1;
	for (size_t v = 0; v < red->n_items; v++)
		last[v] = -1;
	for (size_t p = 0; p < b->n; p++) {
		const ilpi_item *it = &red->item[b->ord[p]];

		for (uint32_t k = 0; k < it->in_count; k++) {
			int32_t u = red->in[it->in_begin + k];

			if (ilpi_blocks_row_input(red, it, u) && last[u] < (int32_t)p)
				last[u] = (int32_t)p;
		}
	}
	for (size_t p = 0; p < b->n; p++) {
		int32_t u = b->ord[p];

		/* A boundary value is always available: a constant, not a state. */
		if (!red->item[u].boundary && last[u] > (int32_t)p)
			lv[nl].var = u, lv[nl].lo = (int32_t)p + 1, lv[nl].hi = last[u], nl++;
	}
	for (size_t k = 0; k < red->n_stor; k++)
		if (red->stor_items[k] >= 2 && b->slast[k] > b->sfirst[k])
			lv[nl].var = -(int32_t)k - 1, lv[nl].lo = b->sfirst[k] + 1,
			    lv[nl].hi = b->slast[k], nl++;
	free(last);
	return nl;
}

/* Chooses the cuts: every position of width <= w for the least w that keeps segments
 * at most MAX_SEG items. Fills seg[], sep[], cbeg[]. Returns 1 when none fits. */
/* Whole (125 lines): one sweep over the live intervals whose buckets and active set
 * carry from the width search into the cut states. */
static int
cuts(ilpi_blocks *b, const live *lv, size_t nl)
{
	size_t n = b->n, w, nseg, ns, best = MAX_WIDTH + 1, best_big = 0;
	int32_t *width = calloc(n + 2, sizeof *width);
	uint8_t *chosen = calloc(n + 2, 1);
	int rc = -1;

	if (width == NULL || chosen == NULL)
		goto out;
	for (size_t i = 0; i < nl; i++) {
		width[lv[i].lo]++;
		width[lv[i].hi + 1]--;
	}
	for (size_t c = 1; c <= n; c++)
		width[c] += width[c - 1];
	/* The least width whose segments have at most SEG_TARGET items, else the width
	 * (least first) of the smallest largest segment, if at most MAX_SEG: a segment's
	 * front costs far more with its length than with its states (gpt, Inductor's
	 * decomposed graph: 323 items at width 0 took 15 s of CPU, 16 at width 1 none). */
	for (size_t x = 0; x <= MAX_WIDTH; x++) {
		size_t lo = 0, big = 0;

		for (size_t c = 1; c < n; c++)
			if (width[c] <= (int32_t)x) {
				if (c - lo > big)
					big = c - lo;
				lo = c;
			}
		if (n - lo > big)
			big = n - lo;
		if (big <= MAX_SEG && (best == MAX_WIDTH + 1 || big < best_big))
			best = x, best_big = big;
		if (big <= SEG_TARGET)
			break;
	}
	w = best;
	if (w > MAX_WIDTH || n == 0) {
		rc = 1;
		goto out;
	}
	b->st.max_width = w;
	nseg = 1;
	for (size_t c = 1, last = 0; c < n; c++)
		if (width[c] <= (int32_t)w && c - last >= b->min_seg)
			chosen[c] = 1, nseg++, last = c;
	b->seg = calloc(nseg, sizeof *b->seg);
	b->cbeg = calloc(nseg + 2, sizeof *b->cbeg);
	b->sep = malloc((nseg * w + 1) * sizeof *b->sep);
	if (b->seg == NULL || b->cbeg == NULL || b->sep == NULL)
		goto out;
	b->n_seg = nseg;
	/* Cut states by a sweep over the live intervals, sorted by lo (they come in lo
	 * order per kind; a counting pass keeps it linear). */
	{
		size_t *start = calloc(n + 2, sizeof *start), *end = calloc(n + 2, sizeof *end);
		int32_t *by_lo = malloc((nl + 1) * sizeof *by_lo);
		int32_t *act = malloc((nl + 1) * sizeof *act), *slot = NULL;
		size_t n_act = 0, at = 0;

		slot = malloc((nl + 1) * sizeof *slot);
		if (start == NULL || end == NULL || by_lo == NULL || act == NULL || slot == NULL) {
			free(start), free(end), free(by_lo), free(act), free(slot);
			goto out;
		}
		for (size_t i = 0; i < nl; i++)
			start[lv[i].lo + 1]++;
		for (size_t c = 1; c <= n + 1; c++)
			start[c] += start[c - 1];
		for (size_t i = 0; i < nl; i++)
			by_lo[start[lv[i].lo]++] = (int32_t)i;
		/* start[c] is now the end of bucket c; rebuild beginnings */
		memset(end, 0, (n + 2) * sizeof *end);
		for (size_t i = 0; i < nl; i++)
			end[lv[i].lo + 1]++;
		for (size_t c = 1; c <= n + 1; c++)
			end[c] += end[c - 1];
		ns = 0;
		b->cbeg[0] = 0;
		b->seg[0].lo = 0;
		for (size_t c = 1; c <= n; c++) {
			/* drop intervals that ended at c - 1, add those starting at c */
			for (size_t i = 0; i < n_act;) {
				if (lv[act[i]].hi < (int32_t)c) {
					act[i] = act[--n_act];
					continue;
				}
				i++;
			}
			for (size_t i = end[c]; i < end[c + 1]; i++)
				act[n_act++] = by_lo[i];
			if (c < n && !chosen[c])
				continue;
			b->seg[ns].hi = (int32_t)c;
			ns++;
			b->cbeg[ns] = at;
			if (c < n) {
				size_t from = at;

				for (size_t i = 0; i < n_act; i++)
					b->sep[at++] = lv[act[i]].var;
				/* canonical: by owner position, items first */
				for (size_t i = from + 1; i < at; i++)
					for (size_t j = i; j > from; j--) {
						int32_t x = b->sep[j - 1], y = b->sep[j];
						int32_t px = var_pos(b, x), py = var_pos(b, y);

						if (px < py || (px == py && x >= 0))
							break;
						b->sep[j - 1] = y, b->sep[j] = x;
					}
				b->seg[ns].lo = (int32_t)c;
			}
			b->cbeg[ns + 1] = at;
		}
		(void)slot;
		free(start), free(end), free(by_lo), free(act), free(slot);
	}
	for (size_t s = 0; s < nseg; s++)
		if ((size_t)(b->seg[s].hi - b->seg[s].lo) > b->st.max_seg)
			b->st.max_seg = (size_t)(b->seg[s].hi - b->seg[s].lo);
	rc = 0;
out:
	free(width);
	free(chosen);
	return rc;
}

/* ---- plan: classes -------------------------------------------------------------- */

size_t
ilpi_blocks_cut_len(const ilpi_blocks *b, size_t c)
{
	return b->cbeg[c + 1] - b->cbeg[c];
}

/* Index of var in the state of cut c, or -1. */
static int
in_state(const ilpi_blocks *b, size_t c, int32_t var)
{
	for (size_t i = b->cbeg[c]; i < b->cbeg[c + 1]; i++)
		if (b->sep[i] == var)
			return (int)(i - b->cbeg[c]);
	return -1;
}

typedef struct keybuf {
	int64_t *v;
	size_t n, cap;
} keybuf;

static int
kput(keybuf *k, int64_t x)
{
	if (ILPI_GROW(k->v, k->cap, k->n, 1) != 0)
		return -1;
	k->v[k->n++] = x;
	return 0;
}

/* Reference, inside segment s, to item u (own: local index >= 0; in the entry state:
 * -(j + 1); always available: ILPI_BLOCKS_REF_CONST). */
int64_t
ilpi_blocks_item_ref(const ilpi_blocks *b, size_t s, int32_t u)
{
	const bseg *sg = &b->seg[s];
	int32_t p = b->pos[u];

	if (p >= sg->lo && p < sg->hi)
		return p - sg->lo;
	if (b->red->item[u].boundary)
		return ILPI_BLOCKS_REF_CONST;
	if (p >= sg->hi || in_state(b, s, u) < 0)
		return ILPI_BLOCKS_REF_BAD;   /* the cuts missed a link: never happens when
		                               * they are right */
	return -(int64_t)in_state(b, s, u) - 1;
}

/* Local index of storage k among the segment's own shared storages, -(j + 1) when it
 * is in the entry state. */
int64_t
ilpi_blocks_stor_ref(const ilpi_blocks *b, size_t s, int32_t k)
{
	const bseg *sg = &b->seg[s];
	int64_t idx = 0;

	if (b->sfirst[k] < sg->lo)
		return in_state(b, s, -k - 1) < 0 ? ILPI_BLOCKS_REF_BAD :
		    -(int64_t)in_state(b, s, -k - 1) - 1;
	/* own: count own shared storages first seen before k's first item */
	for (int32_t p = sg->lo; p < b->sfirst[k]; p++) {
		const ilpi_item *it = &b->red->item[b->ord[p]];

		if (it->can_save && b->red->stor_items[it->stor] >= 2 &&
		    b->sfirst[it->stor] == p)
			idx++;
	}
	return idx;
}

/* The canonical description of segment s's sub-model: equal keys, equal sub-models. */
static int
seg_key(const ilpi_blocks *b, size_t s, keybuf *k)
{
	const ilpi_reduced *red = b->red;
	const bseg *sg = &b->seg[s];
	int rc = 0;

	k->n = 0;
	rc |= kput(k, sg->hi - sg->lo);
	rc |= kput(k, (int64_t)ilpi_blocks_cut_len(b, s));
	rc |= kput(k, (int64_t)ilpi_blocks_cut_len(b, s + 1));
	for (size_t i = b->cbeg[s]; i < b->cbeg[s + 1]; i++)
		rc |= kput(k, b->sep[i] >= 0 ? 1 : 2);
	for (int32_t p = sg->lo; p < sg->hi; p++) {
		const ilpi_item *it = &red->item[b->ord[p]];
		int64_t cb;

		memcpy(&cb, &it->cost, sizeof cb);
		rc |= kput(k, it->can_save | it->can_recompute << 1 | it->boundary << 2);
		rc |= kput(k, it->can_recompute ? cb : 0);
		rc |= kput(k, it->can_recompute ? it->rng_bytes : 0);
		if (b->x.off_kind != NULL) {
			int32_t iv = b->ord[p];
			int64_t oc;

			memcpy(&oc, &b->x.off_cost[iv], sizeof oc);
			rc |= kput(k, b->x.off_kind[iv]);
			rc |= kput(k, b->x.off_kind[iv] ? oc : 0);
		}
		if (b->x.bytes_s != NULL || b->x.bytes_r != NULL || b->x.cost_s != NULL ||
		    b->x.cost_r != NULL) {
			int32_t iv = b->ord[p];
			double xs = ilpi_blocks_x_cost(b, iv, it->can_save, 0), xr = ilpi_blocks_x_cost(b, iv, 0,
			    it->can_recompute);
			int64_t bs, br;

			memcpy(&bs, &xs, sizeof bs);
			memcpy(&br, &xr, sizeof br);
			rc |= kput(k, ilpi_blocks_x_bytes(b, iv, it->can_save, 0));
			rc |= kput(k, ilpi_blocks_x_bytes(b, iv, 0, it->can_recompute));
			rc |= kput(k, bs);
			rc |= kput(k, br);
		}
		if (it->can_save) {
			if (red->stor_items[it->stor] >= 2) {
				rc |= kput(k, 1);
				rc |= kput(k, ilpi_blocks_stor_ref(b, s, it->stor));
				if (b->sfirst[it->stor] == p)
					rc |= kput(k, red->stor_bytes[it->stor]);
			} else {
				rc |= kput(k, 0);
				rc |= kput(k, red->stor_bytes[it->stor]);
			}
		}
		if (!it->can_recompute)
			continue;
		for (uint32_t j = 0; j < it->in_count; j++) {
			int32_t u = red->in[it->in_begin + j];

			if (ilpi_blocks_row_input(red, it, u))
				rc |= kput(k, ilpi_blocks_item_ref(b, s, u));
		}
		rc |= kput(k, INT64_MAX);
	}
	for (size_t i = b->cbeg[s + 1]; i < b->cbeg[s + 2]; i++) {
		int32_t v = b->sep[i];

		rc |= kput(k, v >= 0 ? ilpi_blocks_item_ref(b, s, v) :
		    ilpi_blocks_stor_ref(b, s, -v - 1));
		rc |= kput(k, v >= 0 ? 1 : 2);
	}
	for (size_t i = 0; rc == 0 && i < k->n; i++)
		if (k->v[i] == ILPI_BLOCKS_REF_BAD)
			return 1;
	return rc;
}

static uint64_t
hash_key(const keybuf *k)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < k->n; i++) {
		h ^= (uint64_t)k->v[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static int
classes(ilpi_blocks *b)
{
	size_t cap = 64, nh = 1;
	int32_t *tab = NULL;       /* open addressing: class index + 1 */
	int64_t **keys = NULL;
	size_t *klen = NULL;
	keybuf k = { NULL, 0, 0 };
	int rc = -1;

	while (nh < 2 * b->n_seg + 2)
		nh *= 2;
	tab = calloc(nh, sizeof *tab);
	b->cls = calloc(cap, sizeof *b->cls);
	keys = calloc(cap, sizeof *keys);
	klen = calloc(cap, sizeof *klen);
	if (tab == NULL || b->cls == NULL || keys == NULL || klen == NULL)
		goto out;
	for (size_t s = 0; s < b->n_seg; s++) {
		uint64_t h;
		size_t at;

		if ((rc = seg_key(b, s, &k)) != 0)
			goto out;
		h = hash_key(&k);
		for (at = h & (nh - 1); tab[at] != 0; at = (at + 1) & (nh - 1)) {
			size_t c = (size_t)tab[at] - 1;

			if (klen[c] == k.n && memcmp(keys[c], k.v, k.n * sizeof *k.v) == 0)
				break;
		}
		if (tab[at] == 0) {
			bclass *cl;

			if (b->n_cls == cap) {
				/* three parallel arrays, one capacity: each grows from cap */
				size_t c1 = cap, c2 = cap, c3 = cap;

				if (ILPI_GROW(b->cls, c1, b->n_cls, 1) != 0 ||
				    ILPI_GROW(keys, c2, b->n_cls, 1) != 0 ||
				    ILPI_GROW(klen, c3, b->n_cls, 1) != 0)
					goto out;
				cap = c1 < c2 ? c1 : c2;
				cap = cap < c3 ? cap : c3;
			}
			cl = &b->cls[b->n_cls];
			memset(cl, 0, sizeof *cl);
			cl->rep = (int32_t)s;
			cl->n_own = b->seg[s].hi - b->seg[s].lo;
			cl->n_in = (int32_t)ilpi_blocks_cut_len(b, s);
			cl->n_out = (int32_t)ilpi_blocks_cut_len(b, s + 1);
			if ((keys[b->n_cls] = malloc(k.n * sizeof *k.v)) == NULL)
				goto out;
			memcpy(keys[b->n_cls], k.v, k.n * sizeof *k.v);
			klen[b->n_cls] = k.n;
			tab[at] = (int32_t)++b->n_cls;
		}
		b->seg[s].cls = tab[at] - 1;
	}
	rc = 0;
out:
	for (size_t c = 0; keys != NULL && c < b->n_cls; c++)
		free(keys[c]);
	free(keys);
	free(klen);
	free(tab);
	free(k.v);
	return rc;
}

int
ilpi_blocks_plan(const ilpi_reduced *red, ilpi_blocks **out, ilp_error *err)
{
	return ilpi_blocks_plan_coarse(red, 1, out, err);
}

int
ilpi_blocks_plan_coarse(const ilpi_reduced *red, size_t min_seg, ilpi_blocks **out,
    ilp_error *err)
{
	return ilpi_blocks_plan_extra(red, NULL, min_seg, out, err);
}

int
ilpi_blocks_plan_extra(const ilpi_reduced *red, const ilpi_blocks_extra *x,
    size_t min_seg, ilpi_blocks **out, ilp_error *err)
{
	ilpi_blocks *b = calloc(1, sizeof *b);
	live *lv = NULL;
	size_t nl;
	int rc;

	*out = NULL;
	if (b == NULL)
		goto nomem;
	b->red = red;
	if (x != NULL)
		b->x = *x;
	b->min_seg = min_seg > 0 ? min_seg : 1;
	b->max_points = MAX_POINTS;
	b->ord = malloc((red->n_items + 1) * sizeof *b->ord);
	b->pos = malloc((red->n_items + 1) * sizeof *b->pos);
	b->sfirst = malloc((red->n_stor + 1) * sizeof *b->sfirst);
	b->slast = malloc((red->n_stor + 1) * sizeof *b->slast);
	lv = malloc((red->n_items + red->n_stor + 1) * sizeof *lv);
	if (b->ord == NULL || b->pos == NULL || b->sfirst == NULL || b->slast == NULL ||
	    lv == NULL || order(b) != 0)
		goto nomem;
	b->st.n_active = b->n;
	if (b->n == 0 || !topological(b))
		goto none;
	for (size_t k = 0; k < red->n_stor; k++)
		b->sfirst[k] = INT32_MAX, b->slast[k] = -1;
	for (size_t p = 0; p < b->n; p++) {
		const ilpi_item *it = &red->item[b->ord[p]];

		if (!it->can_save)
			continue;
		if (b->sfirst[it->stor] > (int32_t)p)
			b->sfirst[it->stor] = (int32_t)p;
		b->slast[it->stor] = (int32_t)p;
	}
	if ((nl = lives(b, lv)) == (size_t)-1)
		goto nomem;
	if ((rc = cuts(b, lv, nl)) < 0)
		goto nomem;
	if (rc == 1)
		goto none;
	if ((rc = classes(b)) < 0)
		goto nomem;
	if (rc == 1)
		goto none;
	b->st.n_seg = b->n_seg;
	b->st.n_class = b->n_cls;
	free(lv);
	*out = b;
	return 0;
none:
	free(lv);
	ilpi_blocks_free(b);
	return 0;
nomem:
	free(lv);
	ilpi_blocks_free(b);
	ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
	return -1;
}
