/*
 * blocks.c - exact budgeted solves by decomposition along narrow cuts (blocks.h).
 *
 * The model (docs/solver.md) couples items only through its rows: s_I + r_I <= 1,
 * r_V <= s_U + r_U for an input U of V, s_I <= y_k for a shared storage k; saved bytes
 * and recompute cost are sums over items and storages. In a row-topological order, the
 * rows crossing a cut see the left side only through a_U = s_U + r_U (0 or 1, the value
 * is available) of left items with a right user, and through y_k of storages with items
 * on both sides: the cut's state. Given the states at both ends, a segment's decisions
 * are independent of everything else, so the front of the whole model is the
 * Minkowski sum, state by state, of the segments' fronts: exact, whatever the graph.
 * Repetition (identical layers) only makes it cheap: identical segments share one
 * class, solved once.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/clock.h"
#include "graph/grow.h"
#include "graph/strbuf.h"
#include "solver/blocks/blocks.h"
#include "solver/blocks/mck.h"

enum {
	MAX_WIDTH = 4,            /* state variables at a cut: 2^(in+out) sub-fronts */
	MAX_SEG = 400,            /* items in a segment */
	SEG_TARGET = 64,          /* items in a segment, when some width allows it */
	MAX_POINTS = 48000000,    /* combination points over all cuts (8 bytes each) */
	MAX_COUNT_POINTS = 8000000,   /* points of the combination by counts (24 bytes) */
	NLAM = 17,                /* geometric multipliers around the budget's crossing */
	MAX_LAM = 192,            /* multipliers of the bounds, at most */
	BEAM = 128                /* points per state in the heuristic run */
};

typedef struct bpoint {       /* a point of a class front */
	int64_t bytes;
	double cost;
	int32_t sol;              /* into the class's solutions */
} bpoint;

typedef struct dtrace {       /* a point of the combination, for lowering: the point
	                           * at the previous cut (global index, -1 at cut 0) and
	                           * the class point of the segment just added */
	int32_t prev, seg;
} dtrace;

typedef struct dval {         /* what the next cut needs: only two cuts are kept */
	int64_t bytes;
	double cost;
} dval;

typedef struct bclass {
	int32_t rep;              /* segment that defined it */
	int32_t n_own, n_in, n_out;
	size_t *fbeg, *fcnt;      /* per combo (in | out << n_in): class points */
	uint8_t *sol;             /* 2 * n_own per solution: s then r */
	size_t n_sol, cap_sol;
	int done;
} bclass;

typedef struct bseg {
	int32_t lo, hi;           /* positions [lo, hi) */
	int32_t cls;
} bseg;

struct ilpi_blocks {
	const ilpi_reduced *red;
	int32_t *ord;             /* position -> item (active items only) */
	int32_t *pos;             /* item -> position, -1 when inactive */
	size_t n;                 /* active items */
	int32_t *sfirst, *slast;  /* per storage class: positions of its saveable items */
	/* cuts 0..n_seg: state variables sep[cbeg[c] .. cbeg[c+1]) */
	int32_t *sep;             /* item u >= 0, storage k as -(k + 1) */
	size_t *cbeg;
	bseg *seg;
	size_t n_seg;
	bclass *cls;
	size_t n_cls;
	int32_t *seg_key_len;
	bpoint *pt;               /* class points, all classes */
	size_t n_pt, cap_pt;
	/* combination: per global state (cut c's states start at soff[c]): points in dp */
	size_t *soff;
	size_t *lbeg, *lcnt;
	int64_t *minb;            /* per global state: least bytes of the rest */
	double *v0;               /* per global state: Lagrangian values, one multiplier */
	double *vt;               /* per global state, per multiplier (ascending): the same */
	double *lam;              /* the multipliers of vt */
	size_t n_lam;
	int32_t *path;            /* per segment: class point (scalar programmes) */
	dtrace *dp;               /* every point of the combination, global index */
	size_t n_dp, cap_dp;
	dval *val[2];             /* values of the points at cut c in val[c & 1], from cbase */
	size_t cap_val[2], cbase[2];
	size_t final_beg, final_cnt;
	ilpi_blocks_stats st;
	double deadline;          /* CLOCK_MONOTONIC seconds, 0: none */
	size_t min_seg;           /* least items between chosen cuts (1: every narrow one) */
	size_t max_points;        /* the combination's work limit (MAX_POINTS) */
	ilpi_blocks_extra x;      /* per-item extra terms (NULL arrays: none) */
};

/* Extra bytes and cost of item `it` saved (sv) or recomputed (rv): 0 without terms. */
static int64_t
x_bytes(const ilpi_blocks *b, int32_t it, int sv, int rv)
{
	return (sv && b->x.bytes_s != NULL ? b->x.bytes_s[it] : 0) +
	    (rv && b->x.bytes_r != NULL ? b->x.bytes_r[it] : 0);
}

static double
x_cost(const ilpi_blocks *b, int32_t it, int sv, int rv)
{
	return (sv && b->x.cost_s != NULL ? b->x.cost_s[it] : 0) +
	    (rv && b->x.cost_r != NULL ? b->x.cost_r[it] : 0);
}

/* ---- plan: order ----------------------------------------------------------- */

static int
active(const ilpi_item *it)
{
	return it->can_save || it->can_recompute;
}

/* Row inputs of V: active inputs, when V can be recomputed. */
static int
row_input(const ilpi_reduced *red, const ilpi_item *v, int32_t u)
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

			if (!active(it) || !row_input(red, it, u))
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

			if (row_input(red, it, u) && key[u] > last)
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

			if (row_input(red, it, u) && b->pos[u] >= (int32_t)p)
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

			if (row_input(red, it, u) && last[u] < (int32_t)p)
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

static size_t
cut_len(const ilpi_blocks *b, size_t c)
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

enum { REF_CONST = INT32_MIN, REF_BAD = INT32_MIN + 1 };

/* Reference, inside segment s, to item u (own: local index >= 0; in the entry state:
 * -(j + 1); always available: REF_CONST). */
static int64_t
item_ref(const ilpi_blocks *b, size_t s, int32_t u)
{
	const bseg *sg = &b->seg[s];
	int32_t p = b->pos[u];

	if (p >= sg->lo && p < sg->hi)
		return p - sg->lo;
	if (b->red->item[u].boundary)
		return REF_CONST;
	if (p >= sg->hi || in_state(b, s, u) < 0)
		return REF_BAD;   /* the cuts missed a link: never happens when they are right */
	return -(int64_t)in_state(b, s, u) - 1;
}

/* Local index of storage k among the segment's own shared storages, -(j + 1) when it
 * is in the entry state. */
static int64_t
stor_ref(const ilpi_blocks *b, size_t s, int32_t k)
{
	const bseg *sg = &b->seg[s];
	int64_t idx = 0;

	if (b->sfirst[k] < sg->lo)
		return in_state(b, s, -k - 1) < 0 ? REF_BAD :
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
	rc |= kput(k, (int64_t)cut_len(b, s));
	rc |= kput(k, (int64_t)cut_len(b, s + 1));
	for (size_t i = b->cbeg[s]; i < b->cbeg[s + 1]; i++)
		rc |= kput(k, b->sep[i] >= 0 ? 1 : 2);
	for (int32_t p = sg->lo; p < sg->hi; p++) {
		const ilpi_item *it = &red->item[b->ord[p]];
		int64_t cb;

		memcpy(&cb, &it->cost, sizeof cb);
		rc |= kput(k, it->can_save | it->can_recompute << 1 | it->boundary << 2);
		rc |= kput(k, it->can_recompute ? cb : 0);
		rc |= kput(k, it->can_recompute ? it->rng_bytes : 0);
		if (b->x.bytes_s != NULL || b->x.bytes_r != NULL || b->x.cost_s != NULL ||
		    b->x.cost_r != NULL) {
			int32_t iv = b->ord[p];
			double xs = x_cost(b, iv, it->can_save, 0), xr = x_cost(b, iv, 0,
			    it->can_recompute);
			int64_t bs, br;

			memcpy(&bs, &xs, sizeof bs);
			memcpy(&br, &xr, sizeof br);
			rc |= kput(k, x_bytes(b, iv, it->can_save, 0));
			rc |= kput(k, x_bytes(b, iv, 0, it->can_recompute));
			rc |= kput(k, bs);
			rc |= kput(k, br);
		}
		if (it->can_save) {
			if (red->stor_items[it->stor] >= 2) {
				rc |= kput(k, 1);
				rc |= kput(k, stor_ref(b, s, it->stor));
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

			if (row_input(red, it, u))
				rc |= kput(k, item_ref(b, s, u));
		}
		rc |= kput(k, INT64_MAX);
	}
	for (size_t i = b->cbeg[s + 1]; i < b->cbeg[s + 2]; i++) {
		int32_t v = b->sep[i];

		rc |= kput(k, v >= 0 ? item_ref(b, s, v) : stor_ref(b, s, -v - 1));
		rc |= kput(k, v >= 0 ? 1 : 2);
	}
	for (size_t i = 0; rc == 0 && i < k->n; i++)
		if (k->v[i] == REF_BAD)
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
			cl->n_in = (int32_t)cut_len(b, s);
			cl->n_out = (int32_t)cut_len(b, s + 1);
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

/* ---- class fronts ------------------------------------------------------------ */

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
	uint8_t dec;              /* s | r << 1 | y << 2 */
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
			int64_t ref = stor_ref(b, s, it->stor);

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

			if (!row_input(red, it, u) || (ref = item_ref(b, s, u)) == REF_CONST)
				continue;
			reads(&cp->var[ref >= 0 ? cp->nin + ref : -ref - 1], i);
		}
	}
	for (int j = 0; j < cl->n_out; j++) {
		int32_t v = b->sep[b->cbeg[s + 1] + (size_t)j];
		int64_t ref = v >= 0 ? item_ref(b, s, v) : stor_ref(b, s, -v - 1);

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
			int64_t ref = stor_ref(b, cl->rep, it->stor);

			yv = ref < 0 ? &cp->var[-ref - 1] : &cp->var[cp->nin + cp->no + ref];
			yb = red->stor_bytes[it->stor];
		}
		for (size_t l = from; l < to; l++) {
			uint16_t m = pool[l].mask;
			int inputs = 1;

			for (uint32_t k = 0; it->can_recompute && k < it->in_count && inputs; k++) {
				int32_t u = red->in[it->in_begin + k];
				int64_t ref;

				if (!row_input(red, it, u) || (ref = item_ref(b, cl->rep, u)) == REF_CONST)
					continue;
				inputs = bit(m, &cp->var[ref >= 0 ? cp->nin + ref : -ref - 1]);
			}
			for (int d = 0; d < 6; d++) {
				int sv = d & 1, rv = d >> 1 & 1, y = d >> 2 & 1, first = cp->yfirst[i] >= 0;
				uint16_t nm;
				int64_t by = pool[l].bytes;

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
				if (sv && !shared)
					by += red->stor_bytes[it->stor];
				if (first && y)
					by += yb;
				if (rv)
					by += it->rng_bytes;   /* the RNG states replaying needs */
				by += x_bytes(b, item, sv, rv);
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
				    x_cost(b, item, sv, rv),
				    (int32_t)l, nm, (uint8_t)(sv | rv << 1 | y << 2) };
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
				sol[i] = pool[at].dec & 1;
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

/* 0 done, 1 too wide (the caller falls back), -1 out of memory. */
static int
class_fronts(ilpi_blocks *b, size_t c)
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

/* ---- combination ----------------------------------------------------------------- */

/*
 * Pruning of one combination. A point at cut c in state o with bytes B_p and cost C_p
 * is dropped when B_p plus the least bytes of the rest exceeds cap, or when C_p plus a
 * Lagrangian bound of the rest exceeds ub: for any lambda >= 0 and remaining budget
 * beta = cap - B_p, every completion costs at least V_lambda(c, o) - lambda * beta,
 * where V_lambda is the least cost + lambda * bytes of the rest (a scalar programme
 * backwards over the same fronts). A point on an optimal path is never dropped.
 */
typedef struct bounds {
	int64_t cap;              /* < 0: none */
	double ub;                /* DBL_MAX: none */
	size_t nlam;
	const double *lam;        /* ascending, lam[0] = 0 */
	const double *vt;         /* per global state, per lambda: V_lambda */
	const int64_t *minb;      /* per global state: least bytes of the rest */
	size_t beam;              /* > 0: a heuristic run keeping this many points per state */
} bounds;

/* V_lambda(at) - lambda * (cap - by): concave in lambda (V_lambda is a least of
 * functions linear in lambda), so its largest value over the ascending grid is found
 * by bisection; any value is a valid bound, so rounding cannot make it wrong. */
static double
lagrange(const bounds *bd, size_t at, size_t l, int64_t by)
{
	double v = bd->vt[at * bd->nlam + l];

	return bd->lam[l] == 0 ? v : v - bd->lam[l] * (double)(bd->cap - by);
}

/* Lower bound on the cost of completing a point with by bytes at global state at:
 * DBL_MAX when no completion fits the cap. */
static double
rest_bound(const bounds *bd, size_t at, int64_t by)
{
	size_t lo = 0, hi = bd->nlam - 1;

	if (bd->minb != NULL && (bd->minb[at] == INT64_MAX ||
	    (bd->cap >= 0 && by + bd->minb[at] > bd->cap)))
		return DBL_MAX;
	if (bd->vt[at * bd->nlam] == DBL_MAX)
		return DBL_MAX;   /* no completion, whatever lambda */
	if (bd->cap < 0)
		return bd->vt[at * bd->nlam];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lagrange(bd, at, mid, by) < lagrange(bd, at, mid + 1, by))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lagrange(bd, at, lo, by);
}

typedef struct bkey {
	double key;
	size_t i;
} bkey;

static int
cmp_bkey(const void *x, const void *y)
{
	const bkey *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Heuristic run: keeps the `beam` points of least cost plus bound of the rest, among
 * the kept points of state at (global indices from..from+kept, values in v). */
static int
beam_select(ilpi_blocks *b, const bounds *bd, size_t at, size_t from, dval *v,
    size_t kept)
{
	dtrace *t = b->dp + from, *tt;
	dval *tv;
	bkey *k = malloc(kept * sizeof *k);

	tt = malloc(bd->beam * sizeof *tt);
	tv = malloc(bd->beam * sizeof *tv);
	if (k == NULL || tt == NULL || tv == NULL) {
		free(k), free(tt), free(tv);
		return -1;
	}
	for (size_t i = 0; i < kept; i++) {
		double lb = rest_bound(bd, at, v[i].bytes);

		k[i].key = lb == DBL_MAX ? DBL_MAX : v[i].cost + lb;
		k[i].i = i;
	}
	qsort(k, kept, sizeof *k, cmp_bkey);
	/* the chosen ones, back in ascending bytes (their original order) */
	for (size_t i = 1; i < bd->beam; i++)
		for (size_t j = i; j > 0 && k[j - 1].i > k[j].i; j--) {
			bkey x = k[j];

			k[j] = k[j - 1], k[j - 1] = x;
		}
	for (size_t i = 0; i < bd->beam; i++)
		tt[i] = t[k[i].i], tv[i] = v[k[i].i];
	memcpy(t, tt, bd->beam * sizeof *tt);
	memcpy(v, tv, bd->beam * sizeof *tv);
	free(k), free(tt), free(tv);
	return 0;
}

static int
val_reserve(ilpi_blocks *b, int w, size_t n)
{
	if (n <= b->cap_val[w])
		return 0;
	return ilpi_grow(&b->val[w], &b->cap_val[w], 0, n, sizeof *b->val[w]);
}

static int
dp_reserve(ilpi_blocks *b, size_t more)
{
	return ILPI_GROW(b->dp, b->cap_dp, b->n_dp, more);
}

/* Backward scalar programme: v[state] = least cost + lam * bytes of the rest (lam < 0:
 * least bytes, into minb). DBL_MAX / INT64_MAX: no completion. */
static void
rest_values(const ilpi_blocks *b, double lam, double *v, int64_t *minb)
{
	size_t last = b->soff[b->n_seg];

	if (v != NULL)
		v[last] = 0;
	if (minb != NULL)
		minb[last] = 0;
	for (size_t s = b->n_seg; s-- > 0;) {
		const bclass *cl = &b->cls[b->seg[s].cls];
		size_t nin = (size_t)1 << cl->n_in, nout = (size_t)1 << cl->n_out;

		for (size_t a = 0; a < nin; a++) {
			double best = DBL_MAX;
			int64_t bb = INT64_MAX;

			for (size_t o = 0; o < nout; o++) {
				size_t k = a | o << cl->n_in, at = b->soff[s + 1] + o;

				for (size_t j = 0; j < cl->fcnt[k]; j++) {
					const bpoint *q = &b->pt[cl->fbeg[k] + j];

					if (v != NULL && v[at] < DBL_MAX &&
					    q->cost + lam * (double)q->bytes + v[at] < best)
						best = q->cost + lam * (double)q->bytes + v[at];
					if (minb != NULL && minb[at] < INT64_MAX &&
					    q->bytes + minb[at] < bb)
						bb = q->bytes + minb[at];
				}
			}
			if (v != NULL)
				v[b->soff[s] + a] = best;
			if (minb != NULL)
				minb[b->soff[s] + a] = bb;
		}
	}
}

/* The path that attains rest_values from cut 0: class point per segment in path[];
 * returns its bytes and cost. lam < 0 follows minb (least bytes, then least cost). */
static void
rest_path(const ilpi_blocks *b, double lam, const double *v, const int64_t *minb,
    int32_t *path, int64_t *bytes, double *cost)
{
	size_t a = 0;

	*bytes = 0, *cost = 0;
	for (size_t s = 0; s < b->n_seg; s++) {
		const bclass *cl = &b->cls[b->seg[s].cls];
		size_t nout = (size_t)1 << cl->n_out, next = 0;
		double best = DBL_MAX, bc = DBL_MAX;
		int64_t bb = INT64_MAX;

		path[s] = -1;
		for (size_t o = 0; o < nout; o++) {
			size_t k = a | o << cl->n_in, at = b->soff[s + 1] + o;

			for (size_t j = 0; j < cl->fcnt[k]; j++) {
				const bpoint *q = &b->pt[cl->fbeg[k] + j];
				int take;

				if (lam >= 0)
					take = v[at] < DBL_MAX &&
					    q->cost + lam * (double)q->bytes + v[at] < best;
				else
					take = minb[at] < INT64_MAX && (q->bytes + minb[at] < bb ||
					    (q->bytes + minb[at] == bb && q->cost < bc));
				if (take) {
					best = lam >= 0 ? q->cost + lam * (double)q->bytes + v[at] : 0;
					bb = lam >= 0 ? 0 : q->bytes + minb[at];
					bc = q->cost;
					path[s] = (int32_t)(cl->fbeg[k] + j);
					next = o;
				}
			}
		}
		if (path[s] < 0)
			return;
		*bytes += b->pt[path[s]].bytes;
		*cost += b->pt[path[s]].cost;
		a = next;
	}
}

static int
keep(const bounds *bd, size_t at, int64_t by, double cost)
{
	double lb;

	if (bd == NULL)
		return 1;
	if ((lb = rest_bound(bd, at, by)) == DBL_MAX)
		return 0;
	if (bd->ub == DBL_MAX)
		return 1;
	return cost + lb <= bd->ub + 1e-9 * (1 + fabs(bd->ub));
}

static void
dp_reset(ilpi_blocks *b)
{
	b->n_dp = 0;
	b->final_beg = b->final_cnt = 0;
}

void
ilpi_blocks_set_time_limit(ilpi_blocks *b, double seconds)
{
	b->deadline = seconds > 0 ? ilpi_now() + seconds : 0;
}

void
ilpi_blocks_set_max_points(ilpi_blocks *b, size_t points)
{
	b->max_points = points;
}

/* No state at any cut: the segments are independent. */
static int
independent(const ilpi_blocks *b)
{
	for (size_t c = 0; c <= b->n_seg; c++)
		if (cut_len(b, c) != 0)
			return 0;
	return 1;
}

/* A run of the merge: points pi..pend of an entry state plus class point q. */
typedef struct brun {
	int64_t bytes;            /* of the current head */
	double cost;
	const bpoint *q;
	int32_t qi;
	size_t pi, pend;
} brun;

static int
run_less(const brun *a, const brun *b)
{
	return a->bytes < b->bytes || (a->bytes == b->bytes && a->cost < b->cost);
}

/* Min-heap over run[0..n): sift the last element up. */
static void
heap_push(brun *run, size_t n)
{
	for (size_t i = n - 1; i > 0;) {
		size_t p = (i - 1) / 2;
		brun t;

		if (!run_less(&run[i], &run[p]))
			break;
		t = run[i], run[i] = run[p], run[p] = t;
		i = p;
	}
}

/* Sift run[0] down. */
static void
heap_down(brun *run, size_t n)
{
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, m = i;
		brun t;

		if (l < n && run_less(&run[l], &run[m]))
			m = l;
		if (l + 1 < n && run_less(&run[l + 1], &run[m]))
			m = l + 1;
		if (m == i)
			break;
		t = run[i], run[i] = run[m], run[m] = t;
		i = m;
	}
}

/*
 * The run's next point not dominated by the last point kept (cost best): the entry
 * state's costs strictly descend, so the points that cannot beat best form a prefix
 * of the rest of the run; galloping skips it without touching the heap for each.
 */
static size_t
skip_dominated(const dval *pv, size_t pbase, const brun *r, double best)
{
	size_t lo = r->pi + 1, hi, step = 1;
	double qc = r->q->cost;

	if (lo >= r->pend || pv[lo - pbase].cost + qc < best)
		return lo;
	/* pv[lo] cannot beat best; find hi > lo that can (or pend) */
	while (lo + step < r->pend && pv[lo + step - pbase].cost + qc >= best) {
		lo += step;
		step *= 2;
	}
	hi = lo + step < r->pend ? lo + step : r->pend;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (pv[mid - pbase].cost + qc >= best)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Forward combination of the fronts; with bd, only points that can still be optimal. */
static int
combine(ilpi_blocks *b, const bounds *bd)
{
	brun *run = NULL;
	size_t ncap = 0;
	int rc = -1;
	/* The complete front of independent segments: its front after a segment is the
	 * Pareto set of a sum of fronts, which in practice only grows from cut to cut. So
	 * the points kept so far, plus the current cut's for each cut still to come, are
	 * an estimate (from below) of the total; past the work limit, the combination
	 * stops at once instead of at the limit (the 100k-node graph: after 125 of 1,956
	 * segments and 1.15 M points, not 663 and 48 M). */
	int project = bd == NULL && independent(b);

	dp_reset(b);
	b->st.projected = 0;
	if (dp_reserve(b, 1) != 0 || val_reserve(b, 0, 1) != 0)
		goto out;
	memset(b->lcnt, 0, b->soff[b->n_seg + 1] * sizeof *b->lcnt);
	b->dp[0] = (dtrace){ -1, -1 };
	b->val[0][0] = (dval){ 0, 0 };
	b->cbase[0] = 0;
	b->n_dp = 1;
	b->lbeg[0] = 0, b->lcnt[0] = 1;
	for (size_t s = 0; s < b->n_seg; s++) {
		const bclass *cl = &b->cls[b->seg[s].cls];
		size_t nin = (size_t)1 << cl->n_in, nout = (size_t)1 << cl->n_out;
		const dval *pv = b->val[s & 1];
		size_t pbase = b->cbase[s & 1];
		int w = (s + 1) & 1;

		b->cbase[w] = b->n_dp;
		/* every segment (not every 64th: on 20,000 one-item segments of a very wide
		 * op, 64 of them took more than a second) */
		if (b->deadline > 0 && ilpi_now() > b->deadline) {
			rc = 1;   /* out of time: the caller falls back and reports the limit */
			goto out;
		}
		for (size_t o = 0; o < nout; o++) {
			size_t nr = 0, kept = 0, at = b->soff[s + 1] + o;
			double best = DBL_MAX;
			dval *cv;

			/* One run per (entry state, class point): the entry state's points
			 * plus that point, ascending in bytes. A heap merges the runs in
			 * (bytes, cost) order, so dominance is decided as they come and the
			 * bound is only evaluated for points that are not dominated. */
			for (size_t a = 0; a < nin; a++) {
				size_t k = a | o << cl->n_in, from = b->soff[s] + a;

				if (b->lcnt[from] == 0)
					continue;
				if (ILPI_GROW(run, ncap, nr, cl->fcnt[k]) != 0)
					goto out;
				for (size_t j = 0; j < cl->fcnt[k]; j++) {
					brun *r = &run[nr];

					r->q = &b->pt[cl->fbeg[k] + j];
					r->qi = (int32_t)(cl->fbeg[k] + j);
					r->pi = b->lbeg[from];
					r->pend = b->lbeg[from] + b->lcnt[from];
					r->bytes = pv[r->pi - pbase].bytes + r->q->bytes;
					r->cost = pv[r->pi - pbase].cost + r->q->cost;
					heap_push(run, ++nr);
				}
			}
			b->lbeg[at] = b->n_dp;
			while (nr > 0) {
				brun *r = &run[0];
				int64_t by = r->bytes;
				double co = r->cost;
				int drop = 0;

				if (bd != NULL && bd->cap >= 0 && bd->minb != NULL &&
				    bd->minb[at] < INT64_MAX && by + bd->minb[at] > bd->cap)
					drop = 1;   /* ascending bytes: the rest of the run too */
				else if (co < best && keep(bd, at, by, co)) {
					if (dp_reserve(b, 1) != 0 ||
					    val_reserve(b, w, b->n_dp + 1 - b->cbase[w]) != 0)
						goto out;
					best = co;
					b->dp[b->n_dp] = (dtrace){ (int32_t)r->pi, r->qi };
					b->val[w][b->n_dp - b->cbase[w]] = (dval){ by, co };
					b->n_dp++;
					kept++;
				}
				if (!drop && (r->pi = skip_dominated(pv, pbase, r, best)) < r->pend) {
					r->bytes = pv[r->pi - pbase].bytes + r->q->bytes;
					r->cost = pv[r->pi - pbase].cost + r->q->cost;
				} else {
					run[0] = run[--nr];
				}
				heap_down(run, nr);
			}
			cv = b->val[w] + (b->lbeg[at] - b->cbase[w]);
			if (bd != NULL && bd->beam > 0 && kept > bd->beam) {
				if (beam_select(b, bd, at, b->lbeg[at], cv, kept) != 0)
					goto out;
				kept = bd->beam;
				b->n_dp = b->lbeg[at] + kept;
			}
			b->lcnt[at] = kept;
			if (b->n_dp > b->max_points) {
				rc = 1;
				goto out;
			}
		}
		if (project && (double)b->n_dp + (double)(b->n_seg - 1 - s) *
		    (double)(b->n_dp - b->cbase[w]) > (double)b->max_points) {
			b->st.n_points = b->n_dp;
			b->st.projected = 1;
			rc = 1;
			goto out;
		}
	}
	b->final_beg = b->lbeg[b->soff[b->n_seg]];
	b->final_cnt = b->lcnt[b->soff[b->n_seg]];
	b->st.n_points = b->n_dp;
	b->st.front = b->final_cnt;
	rc = 0;
out:
	free(run);
	return rc;
}

int
ilpi_blocks_prepare(ilpi_blocks *b, ilp_error *err)
{
	size_t nst;
	int rc;

	for (size_t c = 0; c < b->n_cls; c++)
		if (!b->cls[c].done && (rc = class_fronts(b, c)) != 0) {
			if (rc < 0)
				ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
			return rc;
		}
	if (b->soff != NULL)
		return 0;
	b->soff = malloc((b->n_seg + 2) * sizeof *b->soff);
	if (b->soff == NULL)
		goto nomem;
	b->soff[0] = 0;
	for (size_t c = 0; c <= b->n_seg; c++)
		b->soff[c + 1] = b->soff[c] + ((size_t)1 << cut_len(b, c));
	nst = b->soff[b->n_seg + 1];
	b->lbeg = calloc(nst, sizeof *b->lbeg);
	b->lcnt = calloc(nst, sizeof *b->lcnt);
	b->minb = malloc(nst * sizeof *b->minb);
	b->path = malloc((b->n_seg + 1) * sizeof *b->path);
	b->v0 = malloc(nst * sizeof *b->v0);
	b->vt = malloc(nst * MAX_LAM * sizeof *b->vt);
	b->lam = malloc(MAX_LAM * sizeof *b->lam);
	if (b->v0 == NULL || b->vt == NULL || b->lam == NULL || b->lbeg == NULL || b->lcnt == NULL || b->minb == NULL || b->path == NULL)
		goto nomem;
	rest_values(b, -1, NULL, b->minb);
	return 0;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
	return -1;
}

int
ilpi_blocks_front(ilpi_blocks *b, ilp_error *err)
{
	int rc;

	if ((rc = ilpi_blocks_prepare(b, err)) != 0)
		return rc;
	if ((rc = combine(b, NULL)) < 0)
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
	return rc;
}

/* Lowers a path (class point per segment). */
static void
lower_path(const ilpi_blocks *b, const int32_t *path, uint8_t *s, uint8_t *r)
{
	memset(s, 0, b->red->n_items);
	memset(r, 0, b->red->n_items);
	for (size_t sg = 0; sg < b->n_seg; sg++) {
		const bclass *cl = &b->cls[b->seg[sg].cls];
		const uint8_t *sol = cl->sol + (size_t)b->pt[path[sg]].sol * 2 * (size_t)cl->n_own;

		for (int k = 0; k < cl->n_own; k++) {
			int32_t it = b->ord[b->seg[sg].lo + k];

			s[it] = sol[k];
			r[it] = sol[cl->n_own + k];
		}
	}
}

int64_t
ilpi_blocks_least_bytes(ilpi_blocks *b, uint8_t *s, uint8_t *r)
{
	int64_t bytes;
	double cost;

	if (b->minb[0] == INT64_MAX)
		return -1;
	rest_path(b, -1, NULL, b->minb, b->path, &bytes, &cost);
	lower_path(b, b->path, s, r);
	return bytes;
}

static const dval *
final_val(const ilpi_blocks *b, size_t i)
{
	int w = (int)(b->n_seg & 1);

	return &b->val[w][b->final_beg + i - b->cbase[w]];
}

/* The best point of the last combination: least cost, then the least bytes among the
 * points within 1e-9 (relative) of it, as the monolithic path's level rows. */
static int
best_final(ilpi_blocks *b, int64_t *bytes, double *cost, uint8_t *s, uint8_t *r)
{
	size_t i = 0;
	double least, lim;

	if (b->final_cnt == 0)
		return 1;
	least = final_val(b, b->final_cnt - 1)->cost;
	lim = least + 1e-9 * (fabs(least) > 1 ? fabs(least) : 1);
	while (final_val(b, i)->cost > lim)
		i++;
	ilpi_blocks_point(b, i, bytes, cost);
	ilpi_blocks_lower(b, i, s, r);
	return 0;
}

int
ilpi_blocks_runtime_optimal(ilpi_blocks *b, int64_t *bytes, double *cost, uint8_t *s,
    uint8_t *r, ilp_error *err)
{
	double lam0 = 0, c0;
	int64_t b0;
	bounds bd;
	int rc;

	rest_values(b, 0, b->v0, NULL);
	if (b->v0[0] == DBL_MAX)
		return 1;
	rest_path(b, 0, b->v0, NULL, b->path, &b0, &c0);
	/* least bytes among the partitions within 1e-9 of the least cost, as the
	 * monolithic path's second stage */
	bd.cap = -1;
	bd.ub = b->v0[0] + 1e-9 * (fabs(b->v0[0]) > 1 ? fabs(b->v0[0]) : 1);
	bd.nlam = 1;
	bd.beam = 0;
	bd.lam = &lam0;
	bd.vt = b->v0;
	bd.minb = b->minb;
	if ((rc = combine(b, &bd)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	if (rc != 0 || b->final_cnt == 0)
		return 1;
	/* the front is ascending in bytes: its first point has the least bytes */
	ilpi_blocks_point(b, 0, bytes, cost);
	ilpi_blocks_lower(b, 0, s, r);
	return 0;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, c = *(const double *)y;

	return (a > c) - (a < c);
}

/* Appends to lam the slopes of the lower convex hull of every class front: where the
 * least of cost + lambda * bytes of a segment changes point. With cuts of no state
 * variables the Lagrangian bound of any rest, at any budget, is attained at one of
 * them (or at 0); with state variables they are still good ones. */
static int
hull_slopes(const ilpi_blocks *b, double **lam, size_t *n, size_t *cap)
{
	for (size_t c = 0; c < b->n_cls; c++) {
		const bclass *cl = &b->cls[c];
		size_t ncombo = (size_t)1 << (cl->n_in + cl->n_out);

		for (size_t k = 0; k < ncombo; k++) {
			const bpoint *q = b->pt + cl->fbeg[k];
			size_t i = 0, m = cl->fcnt[k];

			/* from hull vertex i, the next vertex is the point of steepest descent */
			while (i + 1 < m) {
				size_t nx = i + 1;
				double sl = (q[i].cost - q[nx].cost) / (double)(q[nx].bytes - q[i].bytes);

				for (size_t j = i + 2; j < m; j++) {
					double t = (q[i].cost - q[j].cost) / (double)(q[j].bytes - q[i].bytes);

					if (t >= sl)
						sl = t, nx = j;
				}
				if (ILPI_GROW(*lam, *cap, *n, 1) != 0)
					return -1;
				(*lam)[(*n)++] = sl;
				i = nx;
			}
		}
	}
	return 0;
}

/*
 * The multipliers of a budgeted combination, ascending from 0: a geometric grid around
 * mid (where the Lagrangian optimum's bytes cross the cap) and the class fronts' hull
 * slopes, the ones nearest mid (in ratio) when there are too many. Into b->lam.
 */
static int
lam_grid(ilpi_blocks *b, double mid)
{
	double *c = NULL;
	size_t n = 0, cap = 0, u = 0, lo, hi, k = 0;

	b->lam[k++] = 0;
	if (mid == 0)
		goto done;
	for (int l = 0; l < NLAM; l++)
		b->lam[k++] = mid * pow(2, (l - NLAM / 2) / 2.0);
	if (hull_slopes(b, &c, &n, &cap) != 0)
		return -1;
	qsort(c, n, sizeof *c, cmp_double);
	for (size_t i = 0; i < n; i++)
		if (c[i] > 0 && (u == 0 || c[i] > c[u - 1] * (1 + 1e-12)))
			c[u++] = c[i];
	for (hi = 0; hi < u && c[hi] < mid; hi++)
		;
	lo = hi;
	while (k < MAX_LAM && (lo > 0 || hi < u)) {
		if (hi >= u || (lo > 0 && mid / c[lo - 1] < c[hi] / mid))
			b->lam[k++] = c[--lo];
		else
			b->lam[k++] = c[hi++];
	}
	free(c);
	qsort(b->lam, k, sizeof *b->lam, cmp_double);
done:
	b->n_lam = k;
	return 0;
}

/*
 * With no state at any cut the segments are independent: only how many segments of a
 * class take each point of its front matters, and solver/blocks/mck.c combines them by
 * counts. Returns as ilpi_blocks_solve (3: its first answer, out of time or over its
 * work limit); the segments of a class take its points in front order.
 */
static int
solve_counts(ilpi_blocks *b, int64_t cap, int64_t *bytes, double *cost, double *bound,
    uint8_t *s, uint8_t *r)
{
	ilpi_mck_class *mc = calloc(b->n_cls + 1, sizeof *mc);
	size_t *off = calloc(b->n_cls + 1, sizeof *off), n = 0;
	int64_t *by = NULL, *cnt = NULL;
	double *co = NULL;
	ilpi_mck_stats st;
	int rc = -1;

	if (mc == NULL || off == NULL)
		goto out;
	for (size_t c = 0; c < b->n_cls; c++)
		off[c] = n, n += b->cls[c].fcnt[0];
	by = malloc((n + 1) * sizeof *by);
	co = malloc((n + 1) * sizeof *co);
	cnt = calloc(n + 1, sizeof *cnt);
	if (by == NULL || co == NULL || cnt == NULL)
		goto out;
	for (size_t c = 0; c < b->n_cls; c++) {
		const bclass *cl = &b->cls[c];

		for (size_t j = 0; j < cl->fcnt[0]; j++) {
			by[off[c] + j] = b->pt[cl->fbeg[0] + j].bytes;
			co[off[c] + j] = b->pt[cl->fbeg[0] + j].cost;
		}
		mc[c].n = cl->fcnt[0];
		mc[c].bytes = by + off[c];
		mc[c].cost = co + off[c];
	}
	for (size_t sg = 0; sg < b->n_seg; sg++)
		mc[b->seg[sg].cls].copies++;
	for (size_t c = 0; c < b->n_cls; c++)
		if (mc[c].n == 0) {
			rc = 2;   /* a segment without any partition */
			goto out;
		}
	rc = ilpi_mck_solve(mc, b->n_cls, cap, b->deadline, b->max_points < MAX_COUNT_POINTS ?
	    b->max_points : MAX_COUNT_POINTS, cnt, bytes, cost, bound, &st);
	b->st.n_points = st.points;
	b->st.counts = 1;
	if (rc != 0 && rc != 3)
		goto out;
	for (size_t sg = 0; sg < b->n_seg; sg++) {
		size_t c = (size_t)b->seg[sg].cls, j = 0;

		while (cnt[off[c] + j] == 0)
			j++;
		cnt[off[c] + j]--;
		b->path[sg] = (int32_t)(b->cls[c].fbeg[0] + j);
	}
	lower_path(b, b->path, s, r);
out:
	free(mc);
	free(off);
	free(by);
	free(co);
	free(cnt);
	return rc;
}

int
ilpi_blocks_solve(ilpi_blocks *b, int64_t cap, int64_t *bytes, double *cost,
    double *bound, uint8_t *s, uint8_t *r, ilp_error *err)
{
	int have = 0;
	double lo = 0, hi = 1, ub = DBL_MAX;
	int64_t pb;
	double pc;
	bounds bd;
	int rc;

	if (b->minb[0] == INT64_MAX || b->minb[0] > cap)
		return 2;
	/* independent segments: by counts; the combination below only when that one
	 * stopped short of a proof with time left */
	if (b->cbeg[b->n_seg + 1] == 0) {
		if ((rc = solve_counts(b, cap, bytes, cost, bound, s, r)) != 3)
			return rc;
		if (b->deadline > 0 && ilpi_now() > b->deadline)
			return 3;
		b->st.counts = 0;
		have = 1;     /* its first answer, in bytes, cost, s, r */
		ub = *cost;
	}
	/* lambda where the Lagrangian optimum's bytes cross the cap: bisection */
	for (int it = 0; it < 200; it++) {
		rest_values(b, hi, b->v0, NULL);
		rest_path(b, hi, b->v0, NULL, b->path, &pb, &pc);
		if (pb <= cap)
			break;
		lo = hi, hi *= 16;
	}
	rest_values(b, 0, b->v0, NULL);
	rest_path(b, 0, b->v0, NULL, b->path, &pb, &pc);
	if (pb <= cap) {
		hi = 0;
		ub = pc;
	}
	for (int it = 0; hi > 0 && it < 60; it++) {
		double mid = lo > 0 ? sqrt(lo * hi) : hi / 1024;

		if (lo == 0 && hi < 1e-30)
			break;
		rest_values(b, mid, b->v0, NULL);
		rest_path(b, mid, b->v0, NULL, b->path, &pb, &pc);
		if (pb <= cap) {
			hi = mid;
			if (pc < ub)
				ub = pc;
		} else {
			lo = mid;
		}
		if (lo > 0 && hi / lo < 1 + 1e-6)
			break;
	}
	/* bounds at multipliers around the crossing; the feasible ones give ub */
	if (lam_grid(b, hi) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	for (size_t l = 0; l < b->n_lam; l++) {
		size_t nst = b->soff[b->n_seg + 1];

		rest_values(b, b->lam[l], b->v0, NULL);
		rest_path(b, b->lam[l], b->v0, NULL, b->path, &pb, &pc);
		if (pb <= cap && pc < ub)
			ub = pc;
		for (size_t at = 0; at < nst; at++)
			b->vt[at * b->n_lam + l] = b->v0[at];
	}
	bd.cap = cap;
	bd.ub = ub;
	bd.nlam = b->n_lam;
	bd.lam = b->lam;
	bd.vt = b->vt;
	bd.minb = b->minb;
	/* a narrow heuristic run first: its answer is feasible, a far better ub than the
	 * Lagrangian paths (identical blocks switch all at once at the same multiplier) */
	bd.beam = BEAM;
	if ((rc = combine(b, &bd)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	if (rc == 0 && b->final_cnt > 0) {
		ilpi_blocks_point(b, b->final_cnt - 1, &pb, &pc);
		if (pb <= cap && pc < bd.ub) {
			bd.ub = pc;
			have = best_final(b, bytes, cost, s, r) == 0 || have;
		}
	}
	/* the proven bound: the best Lagrangian value at the root */
	*bound = -DBL_MAX;
	for (size_t l = 0; l < b->n_lam; l++)
		if (b->vt[l] < DBL_MAX && b->vt[l] - b->lam[l] * (double)cap > *bound)
			*bound = b->vt[l] - b->lam[l] * (double)cap;
	bd.beam = 0;
	if ((rc = combine(b, &bd)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	if (rc == 0 && best_final(b, bytes, cost, s, r) == 0) {
		*bound = *cost;
		return 0;
	}
	/* out of time: the heuristic run's answer, or the counts' first one (its bytes,
	 * cost, s, r are still in place) with the Lagrangian bound; over the work limit
	 * with time left, the same answer for the caller's next method to start from */
	if (have && b->deadline > 0 && ilpi_now() > b->deadline)
		return 3;
	return have ? 4 : 1;
}

size_t
ilpi_blocks_front_size(const ilpi_blocks *b)
{
	return b->final_cnt;
}

void
ilpi_blocks_point(const ilpi_blocks *b, size_t i, int64_t *bytes, double *cost)
{
	*bytes = final_val(b, i)->bytes;
	*cost = final_val(b, i)->cost;
}

void
ilpi_blocks_lower(const ilpi_blocks *b, size_t i, uint8_t *s, uint8_t *r)
{
	int32_t at = (int32_t)(b->final_beg + i);

	memset(s, 0, b->red->n_items);
	memset(r, 0, b->red->n_items);
	for (size_t sg = b->n_seg; sg-- > 0 && at >= 0;) {
		const dtrace *d = &b->dp[at];
		const bclass *cl = &b->cls[b->seg[sg].cls];
		const uint8_t *sol = cl->sol + (size_t)b->pt[d->seg].sol * 2 * (size_t)cl->n_own;

		for (int k = 0; k < cl->n_own; k++) {
			int32_t it = b->ord[b->seg[sg].lo + k];

			s[it] = sol[k];
			r[it] = sol[cl->n_own + k];
		}
		at = d->prev;
	}
}

void
ilpi_blocks_get_stats(const ilpi_blocks *b, ilpi_blocks_stats *st)
{
	*st = b->st;
}

void
ilpi_blocks_free(ilpi_blocks *b)
{
	if (b == NULL)
		return;
	free(b->ord);
	free(b->pos);
	free(b->sfirst);
	free(b->slast);
	free(b->sep);
	free(b->cbeg);
	free(b->seg);
	for (size_t c = 0; c < b->n_cls; c++) {
		free(b->cls[c].fbeg);
		free(b->cls[c].fcnt);
		free(b->cls[c].sol);
	}
	free(b->cls);
	free(b->pt);
	free(b->soff);
	free(b->lbeg);
	free(b->lcnt);
	free(b->minb);
	free(b->path);
	free(b->v0);
	free(b->vt);
	free(b->lam);
	free(b->dp);
	free(b->val[0]);
	free(b->val[1]);
	free(b);
}

/* ---- description (ilpart info --blocks) ------------------------------------------ */

static void
describe_var(const ilp_graph *g, const ilpi_blocks *b, int32_t v, ilpi_buf *out)
{
	if (v >= 0)
		ilpi_buf_printf(out, " '%s'", g->node[b->red->item[v].rep].name);
	else
		ilpi_buf_printf(out, " storage of '%s'",
		    g->node[b->red->stor_root[-v - 1]].name);
}

void
ilpi_blocks_describe(const ilp_graph *g, const ilpi_blocks *b, ilpi_buf *out)
{
	size_t *count = calloc(b->n_cls + 1, sizeof *count), repeated = 0, in_repeated = 0;

	if (count == NULL)
		return;
	for (size_t s = 0; s < b->n_seg; s++)
		count[b->seg[s].cls]++;
	for (size_t c = 0; c < b->n_cls; c++)
		if (count[c] > 1) {
			repeated++;
			in_repeated += count[c];
		}
	ilpi_buf_printf(out, "blocks: %zu items in %zu segments of %zu distinct classes; ",
	    b->n, b->n_seg, b->n_cls);
	if (repeated == 0)
		ilpi_buf_puts(out, "no class repeats (no repeated blocks found)");
	else
		ilpi_buf_printf(out, "%zu class%s repeat%s, %zu segments in all", repeated,
		    repeated == 1 ? "" : "es", repeated == 1 ? "s" : "", in_repeated);
	if (b->st.max_width == 0)
		ilpi_buf_puts(out, "; no state crosses a cut (the segments are independent)\n");
	else
		ilpi_buf_printf(out, "; states of at most %zu variables at the cuts\n",
		    b->st.max_width);
	for (size_t c = 0; c < b->n_cls; c++) {
		const bclass *cl = &b->cls[c];
		const bseg *sg = &b->seg[cl->rep];
		size_t s = (size_t)cl->rep;

		ilpi_buf_printf(out, "class %zu: %zu x %d items, first '%s' .. '%s'", c, count[c],
		    cl->n_own, g->node[b->red->item[b->ord[sg->lo]].rep].name,
		    g->node[b->red->item[b->ord[sg->hi - 1]].rep].name);
		if (b->cbeg[s] == b->cbeg[s + 2]) {
			ilpi_buf_puts(out, "; no interface\n");
			continue;
		}
		ilpi_buf_puts(out, "; in:");
		for (size_t i = b->cbeg[s]; i < b->cbeg[s + 1]; i++)
			describe_var(g, b, b->sep[i], out);
		if (b->cbeg[s] == b->cbeg[s + 1])
			ilpi_buf_puts(out, " -");
		ilpi_buf_puts(out, "; out:");
		for (size_t i = b->cbeg[s + 1]; i < b->cbeg[s + 2]; i++)
			describe_var(g, b, b->sep[i], out);
		if (b->cbeg[s + 1] == b->cbeg[s + 2])
			ilpi_buf_puts(out, " -");
		ilpi_buf_puts(out, "\n");
	}
	free(count);
}
