/* graph.c - the joint-graph model: builder, name index, storages, users, classification. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/grow.h"

void
ilpi_err(ilp_error *err, ilp_error_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	/* One line, always: a name with a newline in it must not break the format. */
	for (char *p = err->msg; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

void
ilpi_err_clear(ilp_error *err)
{
	if (err != NULL) {
		err->kind = ILP_ERR_NONE;
		err->msg[0] = '\0';
	}
}

ilp_graph *
ilpi_graph_new(const char *path)
{
	ilp_graph *g = calloc(1, sizeof *g);

	if (g == NULL)
		return NULL;
	ilpi_intern_init(&g->pool);
	g->rng_state_bytes = -1;
	g->memory_budget = -1;
	g->memory_budget_node = ILPI_NONE;
	g->path = strdup(path != NULL ? path : "<graph>");
	if (g->path == NULL) {
		free(g);
		return NULL;
	}
	return g;
}

void
ilp_graph_free(ilp_graph *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n_ref; i++) {
		free(g->ref[i].saved);
		free(g->ref[i].recomputed);
	}
	free(g->ref);
	free(g->fw_out);
	free(g->bw_out);
	free(g->slot);
	free(g->shape);
	free(g->use);
	free(g->in);
	free(g->nested);
	free(g->node);
	free(g->description);
	free(g->torch);
	free(g->device);
	free(g->policy_name);
	free(g->path);
	ilpi_intern_free(&g->pool);
	free(g);
}

static int
index_grow(ilp_graph *g)
{
	size_t n = g->n_slot ? g->n_slot * 2 : 1024;
	int32_t *slot = malloc(n * sizeof *slot);

	if (slot == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		slot[i] = ILPI_NONE;
	for (size_t i = 0; i < g->n; i++) {
		const char *s = g->node[i].name;
		size_t j = ilpi_hash(s, strlen(s)) & (n - 1);

		while (slot[j] != ILPI_NONE)
			j = (j + 1) & (n - 1);
		slot[j] = (int32_t)i;
	}
	free(g->slot);
	g->slot = slot;
	g->n_slot = n;
	return 0;
}

long
ilp_graph_find(const ilp_graph *g, const char *name)
{
	size_t j;

	if (g->n_slot == 0)
		return -1;
	/* Names are interned, so a hit compares equal as a pointer too; strcmp keeps
	 * lookups of foreign strings correct. */
	j = ilpi_hash(name, strlen(name)) & (g->n_slot - 1);
	for (; g->slot[j] != ILPI_NONE; j = (j + 1) & (g->n_slot - 1))
		if (strcmp(g->node[g->slot[j]].name, name) == 0)
			return g->slot[j];
	return -1;
}

int
ilpi_graph_reserve(ilp_graph *g, size_t nodes)
{
	if (nodes > INT32_MAX || ILPI_GROW(g->node, g->cap, g->n, nodes) != 0)
		return -1;
	while ((g->n + nodes + 1) * 2 > g->n_slot)
		if (index_grow(g) != 0)
			return -1;
	return 0;
}

long
ilpi_graph_add(ilp_graph *g, const char *name, ilpi_kind kind, const char *target,
    ilp_error *err)
{
	ilpi_node *n;
	size_t j, len = strlen(name), hash = ilpi_hash(name, len);

	if (g->n >= INT32_MAX - 1) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: too many nodes", g->path);
		return -1;
	}
	/* the index first has room, so the probe that finds no duplicate ends at the slot
	 * the new node takes */
	if ((g->n + 1) * 2 > g->n_slot && index_grow(g) != 0)
		goto nomem;
	j = hash & (g->n_slot - 1);
	for (; g->slot[j] != ILPI_NONE; j = (j + 1) & (g->n_slot - 1))
		if (strcmp(g->node[g->slot[j]].name, name) == 0) {
			ilpi_err(err, ILP_ERR_INPUT, "%s: node '%s': field 'name': duplicate name "
			    "(nodes #%ld and #%zu)", g->path, name, (long)g->slot[j], g->n);
			return -1;
		}
	if (ILPI_GROW(g->node, g->cap, g->n, 1) != 0)
		goto nomem;
	n = &g->node[g->n];
	memset(n, 0, sizeof *n);
	n->name = ilpi_intern_hashed(&g->pool, name, len, hash);
	n->target = target != NULL ? ilpi_intern(&g->pool, target) : NULL;
	if (n->name == NULL || (target != NULL && n->target == NULL))
		goto nomem;
	n->kind = (uint8_t)kind;
	n->ac_graph_id = ILPI_NONE;
	n->view_of = ILPI_NONE;
	n->storage = (int32_t)g->n;
	n->index = ILPI_NONE;
	n->in_begin = (uint32_t)g->n_in;
	n->ndim = -1;
	n->flops = n->bytes_read = n->bytes_written = n->time_us = ILPI_UNKNOWN_COST;
	g->slot[j] = (int32_t)g->n;
	return (long)g->n++;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	return -1;
}

int
ilpi_graph_add_input(ilp_graph *g, long node, int32_t input)
{
	ilpi_node *n = &g->node[node];

	if (ILPI_GROW(g->in, g->cap_in, g->n_in, 1) != 0)
		return -1;
	/* Inputs are appended node by node, in node order: keep the CSR contiguous. */
	if (n->in_count == 0)
		n->in_begin = (uint32_t)g->n_in;
	g->in[g->n_in++] = input;
	n->in_count++;
	return 0;
}

int
ilpi_graph_add_nested(ilp_graph *g, long node, uint32_t k)
{
	ilpi_node *n = &g->node[node];

	if (ILPI_GROW(g->nested, g->cap_nested, g->n_nested, 1) != 0)
		return -1;
	g->nested[g->n_nested++] = n->in_begin + k;
	n->flags |= ILPI_F_NESTED;
	return 0;
}

int
ilpi_input_nested(const ilp_graph *g, const ilpi_node *n, uint32_t k)
{
	uint32_t pos = n->in_begin + k;
	size_t lo = 0, hi = g->n_nested;

	if (!(n->flags & ILPI_F_NESTED))
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->nested[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n_nested && g->nested[lo] == pos;
}

int
ilpi_graph_set_shape(ilp_graph *g, long node, const int64_t *dims, int ndim)
{
	ilpi_node *n = &g->node[node];

	if (ILPI_GROW(g->shape, g->cap_shape, g->n_shape, (size_t)ndim + 1) != 0)
		return -1;
	n->shape_begin = (uint32_t)g->n_shape;
	n->ndim = ndim;
	if (ndim > 0)
		memcpy(g->shape + g->n_shape, dims, (size_t)ndim * sizeof *dims);
	g->n_shape += (size_t)ndim;
	return 0;
}

int
ilpi_graph_set_outputs(ilp_graph *g, const int32_t *fw, size_t n_fw, const int32_t *bw,
    size_t n_bw)
{
	int32_t *f = malloc((n_fw + 1) * sizeof *f), *b = malloc((n_bw + 1) * sizeof *b);

	if (f == NULL || b == NULL) {
		free(f);
		free(b);
		return -1;
	}
	if (n_fw > 0)
		memcpy(f, fw, n_fw * sizeof *f);
	if (n_bw > 0)
		memcpy(b, bw, n_bw * sizeof *b);
	free(g->fw_out);
	free(g->bw_out);
	g->fw_out = f;
	g->n_fw_out = n_fw;
	g->bw_out = b;
	g->n_bw_out = n_bw;
	return 0;
}

size_t
ilp_graph_node_count(const ilp_graph *g)
{
	return g->n;
}

const char *
ilp_graph_node_name(const ilp_graph *g, size_t i)
{
	return i < g->n ? g->node[i].name : NULL;
}

int
ilpi_torch_version_parse(const char *s)
{
	long v[2] = { 0, 0 };

	for (int k = 0; k < 2; k++) {
		int digits = 0;

		if (k == 1 && *s++ != '.')
			return -1;
		while (*s >= '0' && *s <= '9' && digits < 4) {
			v[k] = 10 * v[k] + (*s++ - '0');
			digits++;
		}
		if (digits == 0 || (*s >= '0' && *s <= '9'))
			return -1;
	}
	/* what may follow: ".patch", a pre-release ("a0", "rc1") or a local tag ("+cpu") */
	if (*s != '\0' && *s != '.' && *s != '+' && *s != 'a' && *s != 'b' && *s != 'r' &&
	    *s != 'd')
		return -1;
	return v[1] < 100 && v[0] < 100 ? (int)(v[0] * 100 + v[1]) : -1;
}

/* Pushes view w when the stack has room and follow takes it. */
static void
push_view(int32_t *stack, size_t *sp, size_t cap, int32_t w,
    int (*follow)(int32_t w, void *ctx), void *ctx)
{
	if (*sp < cap && (follow == NULL || follow(w, ctx)))
		stack[(*sp)++] = w;
}

int
ilpi_view_readers(const ilp_graph *g, int32_t v, int32_t *stack, size_t cap,
    int (*follow)(int32_t w, void *ctx), int (*visit)(int32_t u, void *ctx), void *ctx)
{
	size_t sp = 0;

	if (cap == 0)
		return 0;
	stack[sp++] = v;
	while (sp > 0) {
		int32_t x = stack[--sp];
		const ilpi_node *n = &g->node[x];
		const int32_t *use = ilpi_users(g, n);

		for (uint32_t j = 0; j < n->use_count; j++) {
			int32_t u = use[j];
			int rc;

			if (g->node[u].view_of == x)
				push_view(stack, &sp, cap, u, follow, ctx);
			if ((g->node[u].flags & ILPI_F_TUPLE) && g->node[u].view_of == ILPI_NONE) {
				const ilpi_node *t = &g->node[u];
				const int32_t *tu = ilpi_users(g, t);

				for (uint32_t k = 0; k < t->use_count; k++)
					if (g->node[tu[k]].view_of == x)
						push_view(stack, &sp, cap, tu[k], follow, ctx);
			}
			if ((rc = visit(u, ctx)) != 0)
				return rc;
		}
	}
	return 0;
}
