/*
 * peak_relax_conj.c - the bound along the layers' terms for saved values no backward op
 * reads (docs/solver.md "The bound along the layers", step 3): where they are live in
 * every partition, and what they count at a point (the self-check).
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "solver/driver/peak_relax_conj.h"

/* pp_conj: a saved value X that no backward op reads (so sigma cannot count it) stays
 * live from the backward's start until a recomputed user U of it runs. U runs early
 * only when something demands it, or an op computed from it, at a step up to T (the
 * latest step of the rows above X's segment): a backward reader, an op's own turn, or a
 * user in another segment (a pull). Those ops are the walk's terminals; every op the
 * pull recomputes on the way from U to one is computed by then, and one whose storage a
 * backward op of X's segment reads after T stays live through T. So in every partition
 * with s_X and r_U, at every row above, at least min(bytes of X, m(U)) bytes are live:
 * m(U) the least, over the paths from U to a terminal, of the largest such retained
 * storage on the path. Retained storages are the op's own (a recomputed op's storage is
 * a fresh one; the caller does not hold it; no segment above reads it as an entry).
 * Values whose retained storages meet form a group that counts the largest of its
 * active values (a pull may leave one storage standing in for several). */
typedef struct conj_ctx {
	const pp *p;
	const uint8_t *entry;
	int32_t *mark, stamp;
	uint8_t *term;            /* per node walked: a terminal (conj_terminal) */
	int32_t *walk;            /* the nodes walked from U, in the order met */
	size_t n_walk;
	double *m;                /* per node walked */
	int32_t first_tan;        /* node index of the first tangent user */
	int32_t *before;          /* per node: the backward ops before it in graph order */
	int32_t *last;            /* per node: its storage's last backward reader, -1 */
	uint8_t *excl;            /* per node: a storage retained ops may count */
	int32_t *owner;           /* per node: the value whose retained set holds it, -1 */
	int32_t *stack;
} conj_ctx;

typedef struct conj_cand {
	int32_t x;                /* X's item */
	int lit_r;                /* r_U */
	double bytes;
	size_t beg, n;            /* its retained nodes, in the pool */
} conj_cand;

/* Whether x's value may be demanded at a step up to T: a backward reader there, its
 * own turn, or a user that is an item of another segment. */
static int
conj_terminal(const conj_ctx *cx, int32_t x, int w, int32_t T)
{
	const pp *p = cx->p;
	const ilp_graph *g = p->c->g;
	const ilpi_node *n = &g->node[x];
	const int32_t *use = ilpi_users(g, n);

	if (x > cx->first_tan && cx->before[x] <= T)
		return 1;
	for (uint32_t k = 0; k < n->use_count; k++) {
		int32_t y = use[k], iy = p->c->red.item_of[y];

		if (g->node[y].cls == ILPI_BACKWARD) {
			if (p->bpos[y] >= 0 && p->bpos[y] <= T)
				return 1;
		} else if (iy >= 0 && p->iseg[iy] != w) {
			return 1;
		}
	}
	return 0;
}

/* The bytes a recomputed x keeps live through T. */
static double
conj_retained(const conj_ctx *cx, int32_t x, int32_t T)
{
	const pp *p = cx->p;
	const ilp_graph *g = p->c->g;
	int32_t ix = p->c->red.item_of[x];

	if (!cx->excl[x] || cx->last[x] < T || (ix >= 0 && ((p->c->m.col_s[ix] &&
	    cx->entry[p->c->m.col_s[ix]]) || (p->c->m.col_r[ix] && cx->entry[p->c->m.col_r[ix]]))))
		return 0;
	return (double)g->node[x].bytes / p->c->m.byte_unit;
}

/* m(u) over the walk from u (the ops computed from it within segment w, up to the
 * terminals); the walked nodes stay in cx->walk. */
static double
conj_walk_m(conj_ctx *cx, int32_t u, int w, int32_t T)
{
	const pp *p = cx->p;
	const ilp_graph *g = p->c->g;
	size_t qh = 0;

	cx->stamp++;
	cx->n_walk = 0;
	cx->mark[u] = cx->stamp;
	cx->walk[cx->n_walk++] = u;
	while (qh < cx->n_walk) {
		int32_t x = cx->walk[qh++];
		const ilpi_node *n = &g->node[x];
		const int32_t *use = ilpi_users(g, n);

		if ((cx->term[x] = (uint8_t)conj_terminal(cx, x, w, T)) != 0)
			continue;
		for (uint32_t k = 0; k < n->use_count; k++) {
			int32_t y = use[k], iy = p->c->red.item_of[y];

			if (g->node[y].cls == ILPI_BACKWARD || (iy >= 0 && p->iseg[iy] != w) ||
			    cx->mark[y] == cx->stamp)
				continue;
			cx->mark[y] = cx->stamp;
			cx->walk[cx->n_walk++] = y;
		}
	}
	/* graph order is topological: users after their inputs */
	for (size_t i = cx->n_walk; i-- > 0;) {
		int32_t x = cx->walk[i];
		const ilpi_node *n = &g->node[x];
		const int32_t *use = ilpi_users(g, n);
		double ret = conj_retained(cx, x, T), best = DBL_MAX;

		if (cx->term[x]) {
			cx->m[x] = ret;
			continue;
		}
		for (uint32_t k = 0; k < n->use_count; k++) {
			int32_t y = use[k];

			if (cx->mark[y] == cx->stamp && g->node[y].cls != ILPI_BACKWARD &&
			    cx->m[y] < best && y > x)
				best = cx->m[y];
		}
		cx->m[x] = best == DBL_MAX ? DBL_MAX : fmax(ret, best);
	}
	return cx->m[u];
}

typedef struct conj_users {
	const pp *p;
	int32_t *u;
	size_t n, cap;
} conj_users;

static int
conj_user(int32_t u, void *ctx)
{
	conj_users *cu = ctx;
	const ilp_graph *g = cu->p->c->g;
	int32_t iu = cu->p->c->red.item_of[u];

	if (g->node[u].cls != ILPI_BACKWARD && iu >= 0 && cu->p->c->m.col_r[iu] != 0 &&
	    cu->n < cu->cap)
		cu->u[cu->n++] = u;
	return 0;
}

/* Marks (entry bit 2: left out of the local rows above, local_coef) the columns that
 * can count a storage the pp_conj terms count: the marked s and r columns, the
 * auxiliary columns a side row ties to one (c(X, theta) = or <= r_X), and the
 * auxiliary columns a side row pushes up with one of those (a z over c(X, kappa)). */
static int
conj_mark(pp *p, const uint8_t *entry_in, uint8_t *mark)
{
	glp_prob *lp = p->c->m.lp;
	uint8_t *entry = (uint8_t *)entry_in;
	int *ind = malloc(((size_t)p->ncol + 1) * sizeof *ind);
	double *val = malloc(((size_t)p->ncol + 1) * sizeof *val);

	if (ind == NULL || val == NULL) {
		free(ind);
		free(val);
		return -1;
	}
	for (int hop = 0; hop < 2; hop++)
		for (size_t t = 0; t < p->n_side; t++) {
			int i = p->side[t], len = glp_get_mat_row(lp, i, ind, val), type, hit = 0;

			type = glp_get_row_type(lp, i);
			for (int k = 1; k <= len; k++)
				if (mark[ind[k]] == (hop == 0 ? 1 : 2) &&
				    (hop == 0 || (val[k] < 0 && type != GLP_UP)))
					hit = 1;
			for (int k = 1; k <= len && hit; k++)
				if (p->item[ind[k]] < 0 && mark[ind[k]] == 0 && (hop == 0 || val[k] > 0))
					mark[ind[k]] = (uint8_t)(hop == 0 ? 2 : 3);
		}
	for (int j = 1; j <= p->ncol; j++)
		if (mark[j])
			entry[j] |= 2;
	free(ind);
	free(val);
	return 0;
}

int
drv_relax_conj_terms(pp *p, const uint8_t *entry, const int32_t *top)
{
	solve_ctx *c = p->c;
	const ilp_graph *g = c->g;
	const ilpi_reduced *red = &c->red;
	size_t n = g->n, ni = red->n_items, n_cand = 0, n_pool = 0, cap_pool = 0;
	conj_ctx cx;
	conj_users cu = { p, NULL, 0, 64 };
	const int32_t *first = p->sfirst;
	const uint8_t *held = p->held;
	int32_t *pool = NULL;
	conj_cand *cand = malloc((ni + 1) * sizeof *cand);
	uint8_t *mark = calloc((size_t)p->ncol + 1, 1);
	int rc = -1;

	memset(&cx, 0, sizeof cx);
	cx.p = p;
	cx.entry = entry;
	cx.first_tan = INT32_MAX;
	cx.mark = calloc(n + 1, sizeof *cx.mark);
	cx.term = malloc(n + 1);
	cx.walk = malloc((n + 1) * sizeof *cx.walk);
	cx.m = malloc((n + 1) * sizeof *cx.m);
	cx.before = malloc((n + 1) * sizeof *cx.before);
	cx.last = malloc((n + 1) * sizeof *cx.last);
	cx.excl = calloc(n + 1, 1);
	cx.owner = malloc((n + 1) * sizeof *cx.owner);
	cx.stack = malloc((n + 1) * sizeof *cx.stack);
	cu.u = malloc(cu.cap * sizeof *cu.u);
	p->conj = malloc((ni + 1) * sizeof *p->conj);
	p->n_conj = 0;
	if (first == NULL || held == NULL || cand == NULL || mark == NULL || cx.mark == NULL ||
	    cx.term == NULL || cx.walk == NULL || cx.m == NULL || cx.before == NULL || cx.last == NULL ||
	    cx.excl == NULL || cx.owner == NULL || cx.stack == NULL || cu.u == NULL ||
	    p->conj == NULL)
		goto out;
	for (size_t i = 0, k = 0; i < n; i++) {
		const ilpi_node *nd = &g->node[i];
		const int32_t *in = ilpi_inputs(g, nd);

		cx.before[i] = (int32_t)k;
		k += p->bpos[i] >= 0;
		cx.owner[i] = -1;
		for (uint32_t j = 0; j < nd->in_count && nd->kind == ILPI_OP &&
		     nd->cls == ILPI_BACKWARD && (int32_t)i < cx.first_tan; j++)
			if (g->node[in[j]].kind == ILPI_TANGENT)
				cx.first_tan = (int32_t)i;
	}
	for (size_t i = 0; i < n; i++) {
		const ilpi_node *nd = &g->node[i];
		last_reader lr = { p->bpos, -1 };

		cx.last[i] = -1;
		/* a recomputed op's storage is a fresh one, whoever else saves the old */
		if (nd->kind != ILPI_OP || nd->cls == ILPI_BACKWARD || nd->storage != (int32_t)i ||
		    ilpi_live_bytes(g, (int32_t)i) <= 0 || held[i])
			continue;
		(void)ilpi_view_readers(g, (int32_t)i, cx.stack, n, NULL, drv_relax_later_reader, &lr);
		cx.last[i] = lr.last;
		cx.excl[i] = 1;
	}
	for (size_t it = 0; it < ni; it++) {
		const ilpi_item *v = &red->item[it];
		const ilpi_node *rn = &g->node[v->rep], *root = &g->node[rn->storage];
		int w = p->iseg[it], js = c->m.col_s[it];
		conj_cand best;

		if (js == 0 || p->lastbw[it] >= 0 || first[rn->storage] != (int32_t)it ||
		    w <= 0 || (size_t)w + 1 >= p->n_seg || top[w] < 0 || held[rn->storage] ||
		    ilpi_live_bytes(g, rn->storage) <= 0 ||
		    p->sseg[rn->storage] == INT32_MAX || entry[js])
			continue;
		cu.n = 0;
		(void)ilpi_view_readers(g, v->rep, cx.stack, n, NULL, conj_user, &cu);
		best.bytes = 0;
		for (size_t k = 0; k < cu.n; k++) {
			int32_t u = cu.u[k], iu = red->item_of[u];
			double b;

			if (p->iseg[iu] != w)
				continue;
			b = fmin((double)root->bytes / c->m.byte_unit, conj_walk_m(&cx, u, w, top[w]));
			if (b <= best.bytes)
				continue;
			best.x = (int32_t)it;
			best.lit_r = c->m.col_r[iu];
			best.bytes = b;
			best.beg = n_pool;
			best.n = 0;
			for (size_t q = 0; q < cx.n_walk; q++) {
				int32_t y = cx.walk[q];

				if (conj_retained(&cx, y, top[w]) <= 0)
					continue;
				if (n_pool == cap_pool) {
					size_t cap = 2 * cap_pool + 1024;
					int32_t *np = realloc(pool, cap * sizeof *np);

					if (np == NULL)
						goto out;
					pool = np;
					cap_pool = cap;
				}
				pool[n_pool++] = y;
				best.n++;
			}
		}
		if (best.bytes > 0)
			cand[n_cand++] = best;
	}
	/* values whose retained storages meet form one group (union-find over the
	 * candidates): a pull may leave one storage standing in for several of them, so a
	 * group counts the largest of its active values, a lone value its own bytes */
	{
		int32_t *par = malloc((n_cand + 1) * sizeof *par), *gid = malloc((n_cand + 1) *
		    sizeof *gid), *gseg = malloc((n_cand + 1) * sizeof *gseg);

		if (par == NULL || gid == NULL || gseg == NULL) {
			free(par);
			free(gid);
			free(gseg);
			goto out;
		}
		for (size_t k = 0; k < n_cand; k++)
			par[k] = (int32_t)k;
		for (size_t k = 0; k < n_cand; k++)
			for (size_t q = 0; q < cand[k].n; q++) {
				int32_t r = pool[cand[k].beg + q], a = (int32_t)k, b;

				if (cx.owner[r] < 0) {
					cx.owner[r] = (int32_t)k;
					continue;
				}
				b = cx.owner[r];
				while (par[a] != a)
					a = par[a] = par[par[a]];
				while (par[b] != b)
					b = par[b] = par[par[b]];
				if (a != b)
					par[a > b ? a : b] = a < b ? a : b;
			}
		/* a group spanning segments is left out */
		for (size_t k = 0; k < n_cand; k++) {
			int32_t a = (int32_t)k;

			while (par[a] != a)
				a = par[a];
			par[k] = a;
			gid[k] = -1;
			gseg[k] = INT32_MIN;
		}
		for (size_t k = 0; k < n_cand; k++) {
			int32_t a = par[k], sg = p->iseg[cand[k].x];

			gseg[a] = gseg[a] == INT32_MIN || gseg[a] == sg ? sg : -1;
		}
		p->n_group = 0;
		for (size_t k = 0; k < n_cand; k++) {
			conj_cand *cd = &cand[k];
			pp_conj *cj = &p->conj[p->n_conj];
			int32_t a = par[k];

			if (gseg[a] < 0)
				continue;
			if (gid[a] < 0)
				gid[a] = (int32_t)p->n_group++;
			memset(cj, 0, sizeof *cj);
			cj->seg = p->iseg[cd->x];
			cj->active = 1;
			cj->group = gid[a];
			cj->n_lit = 2;
			cj->lit[0] = c->m.col_s[cd->x];
			cj->lit[1] = cd->lit_r;
			/* whole model bytes keep the front's sigma integral (a fraction is
			 * dropped: a lower bound stays one) */
			cj->bytes = floor(cd->bytes + 1e-9);
			p->n_conj++;
			/* what sigma now counts is left out of the rows above: X's saved
			 * storage and its retained storages, in every column that can
			 * count one (conj_mark) */
			mark[c->m.col_s[cd->x]] = 1;
			for (size_t q = 0; q < cd->n; q++) {
				int32_t ir = red->item_of[pool[cd->beg + q]];

				if (ir >= 0 && c->m.col_r[ir] != 0)
					mark[c->m.col_r[ir]] = 1;
			}
		}
		free(par);
		free(gid);
		free(gseg);
	}
	if (conj_mark(p, entry, mark) != 0)
		goto out;
	rc = 0;
out:
	free(mark);
	free(pool);
	free(cand);
	free(cx.mark);
	free(cx.term);
	free(cx.walk);
	free(cx.m);
	free(cx.before);
	free(cx.last);
	free(cx.excl);
	free(cx.owner);
	free(cx.stack);
	free(cu.u);
	return rc;
}

void
drv_relax_conj_sums(const pp *p, const double *x, double *gs, double *gmax)
{
	for (size_t w = 0; w < p->n_seg; w++)
		gs[w] = 0;
	for (size_t q = 0; q < p->n_group; q++)
		gmax[q] = 0;
	for (size_t q = 0; q < p->n_conj; q++) {
		const pp_conj *cj = &p->conj[q];
		double v = 1 - cj->n_lit;

		for (int k = 0; k < cj->n_lit; k++)
			v += x[cj->lit[k]];
		if (cj->active && v > 0.5 && cj->bytes > gmax[cj->group])
			gmax[cj->group] = cj->bytes;
	}
	for (size_t q = 0; q < p->n_conj; q++)
		if (gmax[p->conj[q].group] > 0) {
			gs[p->conj[q].seg] += gmax[p->conj[q].group];
			gmax[p->conj[q].group] = 0;
		}
}
