/*
 * fingerprint.c - canonical graph fingerprints and the canonical node order
 * (docs/format.md "Fingerprint").
 *
 * Node names and the order of the file are arbitrary (PyTorch numbers nodes per
 * process), so nothing here reads them. Each node gets a 128-bit colour:
 *
 *   label   what the node is: kind, target, dtype, shape, bytes, flags, getitem index,
 *           costs, SAC tag, and its region as a rank among the graph's region ids
 *           (ids are counters; only their order and equality mean anything);
 *   down    label + the down colours of its inputs in argument order (+ its view base):
 *           the whole cone of ancestors, computed in topological order;
 *   up      down + the multiset of (up colour of a user, argument position) pairs, view
 *           users, and positions in outputs.forward / outputs.backward, in reverse order.
 *
 * Then colour refinement (Weisfeiler-Leman with ordered inputs) runs until the number
 * of distinct colours stops growing. The fingerprint is SHA-256 over the sorted
 * multiset of final colours, the colours of the output lists and the graph flags: a
 * function of the graph up to isomorphism, so renaming nodes or reordering the file
 * keeps it, while changing a label or an edge changes the colours.
 *
 * The canonical order sorts nodes by final colour. Colours that stay tied after
 * refinement belong (in every graph this project sees) to interchangeable nodes; the
 * order breaks such ties by individualising one node and refining again, and
 * ilpi_graph_match() proves the resulting correspondence an isomorphism before a
 * partition is carried across it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/fingerprint.h"
#include "graph/sha256.h"

typedef struct h128 {
	uint64_t a, b;
} h128;

/* ---- 2 x 64-bit hashing: two differently seeded chains of the murmur3 finalizer ---- */

static inline uint64_t
fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

static void
h_init(h128 *h, uint64_t domain)
{
	h->a = fmix64(0x243f6a8885a308d3ULL ^ domain);
	h->b = fmix64(0x13198a2e03707344ULL + domain);
}

/* Inlined: the colouring calls it about a hundred times per node. */
static inline __attribute__((always_inline)) void
h_word(h128 *h, uint64_t w)
{
	h->a = fmix64(h->a ^ w) + 0x9e3779b97f4a7c15ULL;
	h->b = fmix64(h->b + (w ^ 0xa4093822299f31d0ULL)) ^ (h->a >> 29);
}

static inline __attribute__((always_inline)) void
h_col(h128 *h, h128 c)
{
	h_word(h, c.a);
	h_word(h, c.b);
}

/* The words h_word absorbs for a string: its length (UINT64_MAX for none), then its
 * bytes eight at a time, little-endian. Returns how many. */
static size_t
str_words(const char *s, uint64_t *w)
{
	size_t len = s != NULL ? strlen(s) : 0, k = 0;

	w[k++] = s != NULL ? len : UINT64_MAX;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t x = 0;

		for (size_t j = 0; j < 8 && i + j < len; j++)
			x |= (uint64_t)(unsigned char)s[i + j] << (8 * j);
		w[k++] = x;
	}
	return k;
}

/* The word of a number: its bits, -0.0 as 0. */
static uint64_t
num_word(double d)
{
	uint64_t w;

	if (d == 0)
		d = 0; /* -0.0 */
	memcpy(&w, &d, sizeof w);
	return w;
}

static int
cmp_h128(const void *x, const void *y)
{
	const h128 *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

static int
h_eq(h128 x, h128 y)
{
	return x.a == y.a && x.b == y.b;
}

static int
h_lt(const h128 *x, const h128 *y)
{
	return x->a < y->a || (x->a == y->a && x->b < y->b);
}

/* Sorts a[0..n) ascending as qsort with cmp_h128 would (equal colours are equal
 * values, so every correct sort gives the same array): insertion sort for short
 * runs, merging through tmp (n entries) above them. */
static void
sort_h128(h128 *a, size_t n, h128 *tmp)
{
	size_t mid, i, j, k;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			h128 x = a[i];

			for (j = i; j > 0 && h_lt(&x, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	mid = n / 2;
	sort_h128(a, mid, tmp);
	sort_h128(a + mid, n - mid, tmp);
	if (!h_lt(&a[mid], &a[mid - 1]))
		return;
	memcpy(tmp, a, mid * sizeof *a);
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		a[k++] = h_lt(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
	while (i < mid)
		a[k++] = tmp[i++];
}

/* sort_h128 for many colours (a graph's, a node's many users'): colours are hashes,
 * so their top bits spread them evenly; a counting pass by the top bits (about one
 * colour per bucket), then each bucket sorted by sort_h128 (so no input costs more than
 * it did), give the same array (equal colours are equal values). tmp holds n entries. */
static void
sort_colours(h128 *a, size_t n, h128 *tmp)
{
	unsigned bits = 4, shift;
	size_t *cnt, start = 0;

	while (bits < 20 && ((size_t)1 << bits) < n)
		bits++;
	if (n <= 64 || (cnt = calloc(((size_t)1 << bits) + 1, sizeof *cnt)) == NULL) {
		sort_h128(a, n, tmp);
		return;
	}
	shift = 64 - bits;
	for (size_t i = 0; i < n; i++)
		cnt[(a[i].a >> shift) + 1]++;
	for (size_t b = 0; b < (size_t)1 << bits; b++)
		cnt[b + 1] += cnt[b];
	for (size_t i = 0; i < n; i++)
		tmp[cnt[a[i].a >> shift]++] = a[i];
	/* cnt[b] is now the end of bucket b; a is the scratch of the buckets' sorts */
	for (size_t b = 0; b < (size_t)1 << bits; b++) {
		if (cnt[b] - start > 1)
			sort_h128(tmp + start, cnt[b] - start, a);
		start = cnt[b];
	}
	free(cnt);
	memcpy(a, tmp, n * sizeof *a);
}

/* Four hash states absorbing a word sequence each, as h_word would one word at a time:
 * h[l] takes w[l][0..len[l]). One chain of h_word is a dozen dependent multiplies and
 * shifts per word; four chains advanced together keep the multiplier busy. */
enum { LANES = 4 };

static void
h_lanes(h128 *h, uint64_t *const *w, const size_t *len)
{
	size_t common = len[0];
	h128 x0 = h[0], x1 = h[1], x2 = h[2], x3 = h[3];

	for (int l = 1; l < LANES; l++)
		if (len[l] < common)
			common = len[l];
	for (size_t t = 0; t < common; t++) {
		h_word(&x0, w[0][t]);
		h_word(&x1, w[1][t]);
		h_word(&x2, w[2][t]);
		h_word(&x3, w[3][t]);
	}
	h[0] = x0;
	h[1] = x1;
	h[2] = x2;
	h[3] = x3;
	for (int l = 0; l < LANES; l++)
		for (size_t t = common; t < len[l]; t++)
			h_word(&h[l], w[l][t]);
}

/* ---- the colouring ------------------------------------------------------------ */

enum { K_VIEW = 0xffffffffu };  /* argument position of a view user */
enum { U_FW = -1, U_BW = -2 };  /* pseudo users: output lists */

typedef struct fp {
	const ilp_graph *g;
	size_t n;
	h128 *col, *next, *sorted, *scratch, *tmp;
	int32_t *region;        /* dense rank of ac_graph_id, -1 outside regions */
	uint32_t *rbeg;         /* reverse edges of node i: [rbeg[i], rbeg[i + 1]) */
	int32_t *ru;            /* user index, or U_FW / U_BW */
	uint32_t *rk;           /* argument position, K_VIEW, or output position */
	uint64_t *words;        /* LANES word sequences of `wmax` words each */
	size_t wmax;
} fp;

static void
fp_free(fp *f)
{
	free(f->col);
	free(f->next);
	free(f->sorted);
	free(f->scratch);
	free(f->tmp);
	free(f->region);
	free(f->rbeg);
	free(f->ru);
	free(f->rk);
	free(f->words);
}

static int
cmp_i32(const void *x, const void *y)
{
	int32_t p = *(const int32_t *)x, q = *(const int32_t *)y;

	return (p > q) - (p < q);
}

/* Region ids as dense ranks: only their order and equality reach the colours. */
static int
rank_regions(fp *f)
{
	const ilp_graph *g = f->g;
	int32_t *ids = malloc((f->n + 1) * sizeof *ids);
	size_t m = 0, u = 0;

	if (ids == NULL)
		return -1;
	for (size_t i = 0; i < f->n; i++)
		if (g->node[i].ac_graph_id != ILPI_NONE)
			ids[m++] = g->node[i].ac_graph_id;
	qsort(ids, m, sizeof *ids, cmp_i32);
	for (size_t i = 0; i < m; i++)
		if (u == 0 || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	for (size_t i = 0; i < f->n; i++) {
		int32_t id = g->node[i].ac_graph_id;
		const int32_t *hit;

		f->region[i] = -1;
		if (id != ILPI_NONE && (hit = bsearch(&id, ids, u, sizeof *ids, cmp_i32)) != NULL)
			f->region[i] = (int32_t)(hit - ids);
	}
	free(ids);
	return 0;
}

/* Reverse edges (users with argument positions, view users, output positions), CSR. */
static int
build_reverse(fp *f)
{
	const ilp_graph *g = f->g;
	size_t total = g->n_in + g->n_fw_out + g->n_bw_out + f->n, *fill;

	f->rbeg = calloc(f->n + 2, sizeof *f->rbeg);
	f->ru = malloc((total + 1) * sizeof *f->ru);
	f->rk = malloc((total + 1) * sizeof *f->rk);
	fill = calloc(f->n + 1, sizeof *fill);
	if (f->rbeg == NULL || f->ru == NULL || f->rk == NULL || fill == NULL) {
		free(fill);
		return -1;
	}
#define EACH_EDGE(ADD) \
	for (size_t u = 0; u < f->n; u++) { \
		const ilpi_node *nu = &g->node[u]; \
		for (uint32_t k = 0; k < nu->in_count; k++) \
			ADD(g->in[nu->in_begin + k], (int32_t)u, k); \
		if (nu->view_of != ILPI_NONE) \
			ADD(nu->view_of, (int32_t)u, K_VIEW); \
	} \
	for (size_t j = 0; j < g->n_fw_out; j++) \
		ADD(g->fw_out[j], U_FW, (uint32_t)j); \
	for (size_t j = 0; j < g->n_bw_out; j++) \
		if (g->bw_out[j] != ILPI_NONE) \
			ADD(g->bw_out[j], U_BW, (uint32_t)j);
#define COUNT(t, u, k) (f->rbeg[(t) + 1]++)
#define PLACE(t, u, k) do { size_t at = f->rbeg[t] + fill[t]++; \
	f->ru[at] = (u); f->rk[at] = (k); } while (0)
	EACH_EDGE(COUNT)
	for (size_t i = 0; i < f->n; i++)
		f->rbeg[i + 1] += f->rbeg[i];
	EACH_EDGE(PLACE)
#undef PLACE
#undef COUNT
#undef EACH_EDGE
	free(fill);
	return 0;
}

/* The words of a node's label (after h_init(1)): what the node is. Returns how many
 * (at most label_max). */
static size_t
label_words(const fp *f, size_t i, uint64_t *w)
{
	const ilpi_node *n = &f->g->node[i];
	size_t k = 0;

	w[k++] = n->kind;
	k += str_words(n->target, w + k);
	k += str_words(n->dtype, w + k);
	w[k++] = (uint64_t)(int64_t)n->ndim;
	for (int d = 0; d < n->ndim; d++)
		w[k++] = (uint64_t)f->g->shape[n->shape_begin + (uint32_t)d];
	w[k++] = (uint64_t)n->bytes;
	w[k++] = n->flags & (ILPI_F_TUPLE | ILPI_F_RANDOM | ILPI_F_EFFECTFUL |
	    ILPI_F_COLLECTIVE | ILPI_F_MUTATED | ILPI_F_PARAM | ILPI_F_SYM | ILPI_F_SYM_FLOAT);
	w[k++] = (uint64_t)(int64_t)n->index;
	w[k++] = num_word(n->flops);
	w[k++] = num_word(n->bytes_read);
	w[k++] = num_word(n->bytes_written);
	w[k++] = num_word(n->time_us);
	w[k++] = n->tag;
	w[k++] = (uint64_t)(int64_t)f->region[i];
	/* "nested_inputs" (torch's reduction ban counts only direct arguments): only when
	 * given, so that a graph without them keeps its fingerprint */
	if (n->flags & ILPI_F_NESTED) {
		w[k++] = 0x6e65737465640000ull; /* "nested" */
		for (uint32_t j = 0; j < n->in_count; j++)
			if (ilpi_input_nested(f->g, n, j))
				w[k++] = j;
	}
	/* "workspace": only when given, as "nested_inputs" */
	if (n->workspace > 0) {
		w[k++] = 0x776f726b73700000ull; /* "worksp" */
		w[k++] = (uint64_t)n->workspace;
	}
	return k;
}

static size_t
label_max(const ilpi_node *n)
{
	size_t t = n->target != NULL ? strlen(n->target) : 0;
	size_t d = n->dtype != NULL ? strlen(n->dtype) : 0;

	return 12 + (n->ndim > 0 ? (size_t)n->ndim : 0) + 1 + (t + 7) / 8 + 1 + (d + 7) / 8 +
	    ((n->flags & ILPI_F_NESTED) ? 1 + (size_t)n->in_count : 0) + 2;
}

/* Absorbs the colours of i's inputs in argument order, then its view base. */
static void
absorb_inputs(const fp *f, h128 *h, const h128 *c, size_t i)
{
	const ilpi_node *n = &f->g->node[i];

	h_word(h, n->in_count);
	for (uint32_t k = 0; k < n->in_count; k++)
		h_col(h, c[f->g->in[n->in_begin + k]]);
	if (n->view_of != ILPI_NONE)
		h_col(h, c[n->view_of]);
	else
		h_word(h, 0x5eed);
}

/* The (user colour, position) pairs over i's reverse edges, hashed one by one into
 * f->scratch and sorted: their count. */
static size_t
user_colours(fp *f, const h128 *c, size_t i)
{
	size_t m = 0;

	for (uint32_t e = f->rbeg[i]; e < f->rbeg[i + 1]; e++) {
		h128 x;

		h_init(&x, 2);
		if (f->ru[e] >= 0)
			h_col(&x, c[f->ru[e]]);
		else
			h_word(&x, (uint64_t)(int64_t)f->ru[e]);
		h_word(&x, f->rk[e]);
		f->scratch[m++] = x;
	}
	sort_colours(f->scratch, m, f->tmp);
	return m;
}

/* Absorbs the sorted multiset of (user colour, position) over i's reverse edges. */
static void
absorb_users(fp *f, h128 *h, const h128 *c, size_t i)
{
	size_t m = user_colours(f, c, i);

	h_word(h, m);
	for (size_t k = 0; k < m; k++)
		h_col(h, f->scratch[k]);
}

/* The number of distinct colours in c[0..n), by hashing (no sort: the sorted multiset
 * is needed once, by the fingerprint). The slots, n indices in a power-of-two table of
 * at least 2n, live in f->sorted (16 bytes per node, 4 per slot, fewer than 4n slots). */
static size_t
distinct(fp *f, const h128 *c)
{
	uint32_t *slot = (uint32_t *)(void *)f->sorted;
	size_t mask = 1, d = 0;

	while (mask < 2 * f->n)
		mask <<= 1;
	memset(slot, 0xff, mask * sizeof *slot);
	mask--;
	for (size_t i = 0; i < f->n; i++) {
		size_t at = (size_t)(c[i].a ^ c[i].b) & mask;

		while (slot[at] != UINT32_MAX && !h_eq(c[slot[at]], c[i]))
			at = (at + 1) & mask;
		if (slot[at] == UINT32_MAX) {
			slot[at] = (uint32_t)i;
			d++;
		}
	}
	return d;
}

/* The words a refinement round absorbs for node i (after h_init(4)): its colour, then
 * absorb_inputs' and absorb_users' words over colours c. Returns how many (at most
 * 6 + 2 inputs + 2 reverse edges). */
static size_t
refine_words(fp *f, const h128 *c, size_t i, uint64_t *w)
{
	const ilpi_node *n = &f->g->node[i];
	size_t k = 0, m = 0;

	w[k++] = c[i].a;
	w[k++] = c[i].b;
	w[k++] = n->in_count;
	for (uint32_t j = 0; j < n->in_count; j++) {
		h128 x = c[f->g->in[n->in_begin + j]];

		w[k++] = x.a;
		w[k++] = x.b;
	}
	if (n->view_of != ILPI_NONE) {
		w[k++] = c[n->view_of].a;
		w[k++] = c[n->view_of].b;
	} else {
		w[k++] = 0x5eed;
	}
	m = user_colours(f, c, i);
	w[k++] = m;
	for (size_t j = 0; j < m; j++) {
		w[k++] = f->scratch[j].a;
		w[k++] = f->scratch[j].b;
	}
	return k;
}

/* h[l] = the hash of gen's words for node i + l, from h_init(domain), for LANES nodes
 * (or one when i + LANES > n). Returns how many nodes it did. */
#define LANE_STEP(f, i, domain, out, GEN) do { \
	h128 h_[LANES]; \
	uint64_t *w_[LANES]; \
	size_t len_[LANES]; \
	if ((i) + LANES <= (f)->n) { \
		for (int l_ = 0; l_ < LANES; l_++) { \
			h_init(&h_[l_], (domain)); \
			w_[l_] = (f)->words + (size_t)l_ * (f)->wmax; \
			len_[l_] = GEN((i) + (size_t)l_, w_[l_]); \
		} \
		h_lanes(h_, w_, len_); \
		for (int l_ = 0; l_ < LANES; l_++) \
			(out)[(i) + (size_t)l_] = h_[l_]; \
		(i) += LANES; \
	} else { \
		size_t n_ = GEN((i), (f)->words); \
		h_init(&h_[0], (domain)); \
		for (size_t t_ = 0; t_ < n_; t_++) \
			h_word(&h_[0], (f)->words[t_]); \
		(out)[(i)] = h_[0]; \
		(i)++; \
	} \
} while (0)

/* Rounds of refinement until the number of colour classes stops growing. Every node's
 * new colour depends on the last round's colours only: LANES nodes are hashed at once. */
static void
refine(fp *f)
{
	size_t classes = distinct(f, f->col);

	for (;;) {
		size_t now;
		h128 *t;

#define GEN_REFINE(i, w) refine_words(f, f->col, (i), (w))
		for (size_t i = 0; i < f->n;)
			LANE_STEP(f, i, 4, f->next, GEN_REFINE);
#undef GEN_REFINE
		now = distinct(f, f->next);
		t = f->col, f->col = f->next, f->next = t;
		if (now <= classes)
			return;
		classes = now;
	}
}

static int
colour(fp *f, const ilp_graph *g)
{
	size_t maxdeg = 1;

	memset(f, 0, sizeof *f);
	f->g = g;
	f->n = g->n;
	f->col = malloc((f->n + 1) * sizeof *f->col);
	f->next = malloc((f->n + 1) * sizeof *f->next);
	f->sorted = malloc((f->n + 1) * sizeof *f->sorted);
	f->region = malloc((f->n + 1) * sizeof *f->region);
	if (f->col == NULL || f->next == NULL || f->sorted == NULL || f->region == NULL ||
	    rank_regions(f) != 0 || build_reverse(f) != 0)
		return -1;
	for (size_t i = 0; i < f->n; i++)
		if (f->rbeg[i + 1] - f->rbeg[i] > maxdeg)
			maxdeg = f->rbeg[i + 1] - f->rbeg[i];
	for (size_t i = 0; i < f->n; i++) {
		const ilpi_node *n = &g->node[i];
		size_t lw = label_max(n);
		size_t rw = 6 + 2 * (size_t)n->in_count + 2 * (size_t)(f->rbeg[i + 1] - f->rbeg[i]);

		if (lw > f->wmax)
			f->wmax = lw;
		if (rw > f->wmax)
			f->wmax = rw;
	}
	if ((f->scratch = malloc(maxdeg * sizeof *f->scratch)) == NULL ||
	    (f->tmp = malloc(((maxdeg > f->n ? maxdeg : f->n) + 1) * sizeof *f->tmp)) == NULL ||
	    (f->words = malloc(LANES * f->wmax * sizeof *f->words)) == NULL)
		return -1;
	/* down, in topological order: inputs come first. The labels depend on nothing
	 * else, so they are hashed LANES at a time first; each node's chain then goes on
	 * with its inputs' down colours, node by node. */
#define GEN_LABEL(i, w) label_words(f, (i), (w))
	for (size_t i = 0; i < f->n;)
		LANE_STEP(f, i, 1, f->next, GEN_LABEL);
#undef GEN_LABEL
	for (size_t i = 0; i < f->n; i++) {
		h128 h = f->next[i];

		absorb_inputs(f, &h, f->next, i);
		f->next[i] = h;
	}
	/* up, in reverse order: users come later; next[] still holds down */
	for (size_t i = f->n; i-- > 0;) {
		h128 h;

		h_init(&h, 3);
		h_col(&h, f->next[i]);
		absorb_users(f, &h, f->col, i);
		f->col[i] = h;
	}
	refine(f);
	return 0;
}

/* Little-endian, so the hashed bytes do not depend on the machine. */
static void
put64(ilpi_sha256 *s, uint64_t w)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(w >> (8 * i));
	ilpi_sha256_update(s, b, 8);
}

int
ilpi_graph_compute_fingerprint(ilp_graph *g)
{
	static const char magic[] = "ilpart-graph-fingerprint 1";
	ilpi_sha256 s;
	fp f;
	int rc = -1;

	if (colour(&f, g) != 0)
		goto out;
	ilpi_sha256_init(&s);
	ilpi_sha256_update(&s, magic, sizeof magic);
#define PUT(x) put64(&s, (x))
#define PUTC(c) do { PUT((c).a); PUT((c).b); } while (0)
	PUT((uint64_t)g->rng_functionalized);
	PUT(g->n);
	PUT(g->n_fw_out);
	PUT(g->n_bw_out);
	if (g->rng_state_bytes >= 0) /* absent in older files: their fingerprints stay */
		PUT(0x7265706c61790000ULL ^ (uint64_t)g->rng_state_bytes);
	memcpy(f.sorted, f.col, f.n * sizeof *f.col);
	sort_colours(f.sorted, f.n, f.tmp);
	for (size_t i = 0; i < f.n; i++)
		PUTC(f.sorted[i]);
	for (size_t j = 0; j < g->n_fw_out; j++)
		PUTC(f.col[g->fw_out[j]]);
	for (size_t j = 0; j < g->n_bw_out; j++) {
		if (g->bw_out[j] == ILPI_NONE) {
			PUT(0);
			PUT(0);
		} else {
			PUTC(f.col[g->bw_out[j]]);
		}
	}
#undef PUTC
#undef PUT
	ilpi_sha256_hex(&s, g->fingerprint);
	rc = 0;
out:
	fp_free(&f);
	return rc;
}

const char *
ilp_graph_fingerprint(const ilp_graph *g)
{
	return g->fingerprint;
}

/* ---- canonical order ----------------------------------------------------------- */

typedef struct ranked {
	h128 c;
	int32_t i;
} ranked;

static int
cmp_ranked(const void *x, const void *y)
{
	const ranked *p = x, *q = y;
	int c = cmp_h128(&p->c, &q->c);

	return c != 0 ? c : (p->i > q->i) - (p->i < q->i);
}

static int
isolated(const fp *f, int32_t i)
{
	return f->g->node[i].in_count == 0 && f->g->node[i].view_of == ILPI_NONE &&
	    f->rbeg[i] == f->rbeg[i + 1];
}

int
ilpi_graph_canonical_order(const ilp_graph *g, int32_t *order)
{
	ranked *r = NULL;
	fp f;
	int rc = -1;

	if (colour(&f, g) != 0 || (r = malloc((f.n + 1) * sizeof *r)) == NULL)
		goto out;
	for (;;) {
		size_t run = 0, end;

		for (size_t i = 0; i < f.n; i++) {
			r[i].c = f.col[i];
			r[i].i = (int32_t)i;
		}
		qsort(r, f.n, sizeof *r, cmp_ranked);
		while (run + 1 < f.n && !h_eq(r[run].c, r[run + 1].c))
			run++;
		if (run + 1 >= f.n)
			break;
		/* The first tied class: individualise its first member (all of them when
		 * they touch nothing, as unused placeholders do) and refine again. */
		for (end = run + 1; end < f.n && h_eq(r[end].c, r[run].c); end++)
			;
		for (size_t k = run; k < end; k++) {
			h_word(&f.col[r[k].i], 0x1d1d0000u + (k - run));
			if (!isolated(&f, r[k].i))
				break;
		}
		refine(&f);
	}
	for (size_t i = 0; i < f.n; i++)
		order[i] = r[i].i;
	rc = 0;
out:
	free(r);
	fp_free(&f);
	return rc;
}
