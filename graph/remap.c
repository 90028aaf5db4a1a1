/*
 * remap.c - carrying a partition from one graph onto another with the same fingerprint:
 * the same joint graph under other node names or in another file order, as PyTorch
 * produces in another process. The correspondence comes from the canonical orders of
 * both graphs and is proven node by node before anything is carried across.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/fingerprint.h"
#include "graph/graph.h"
#include "graph/partition.h"

static int
same_costs(const ilpi_node *a, const ilpi_node *b)
{
	return a->flops == b->flops && a->bytes_read == b->bytes_read &&
	    a->bytes_written == b->bytes_written && a->time_us == b->time_us &&
	    a->workspace == b->workspace;
}

/* Everything about node i of `a` and node j of `b` except names and edges. Interned
 * strings of two graphs are different pools, so strings compare by content. */
static int
same_label(const ilp_graph *a, size_t i, const ilp_graph *b, size_t j)
{
	const ilpi_node *x = &a->node[i], *y = &b->node[j];
	const unsigned flags = ILPI_F_TUPLE | ILPI_F_RANDOM | ILPI_F_EFFECTFUL |
	    ILPI_F_COLLECTIVE | ILPI_F_GETITEM;

	if (x->kind != y->kind || x->tag != y->tag || x->ndim != y->ndim ||
	    x->bytes != y->bytes || (x->flags & flags) != (y->flags & flags) ||
	    x->index != y->index || x->in_count != y->in_count || !same_costs(x, y) ||
	    (x->ac_graph_id == ILPI_NONE) != (y->ac_graph_id == ILPI_NONE) ||
	    (x->view_of == ILPI_NONE) != (y->view_of == ILPI_NONE))
		return 0;
	if ((x->target == NULL) != (y->target == NULL) ||
	    (x->target != NULL && strcmp(x->target, y->target) != 0) ||
	    (x->dtype == NULL) != (y->dtype == NULL) ||
	    (x->dtype != NULL && strcmp(x->dtype, y->dtype) != 0))
		return 0;
	for (int d = 0; d < x->ndim; d++)
		if (a->shape[x->shape_begin + (uint32_t)d] != b->shape[y->shape_begin + (uint32_t)d])
			return 0;
	return 1;
}

typedef struct idpair {
	int32_t a, b;
} idpair;

static int
cmp_idpair(const void *x, const void *y)
{
	const idpair *p = x, *q = y;

	if (p->a != q->a)
		return (p->a > q->a) - (p->a < q->a);
	return (p->b > q->b) - (p->b < q->b);
}

/* Region ids may be numbered differently; the mapping must preserve their equality
 * and order: sorted by a's id, b's ids are equal exactly where a's are and grow where
 * a's grow. 1 yes, 0 no, -1 out of memory. */
static int
regions_agree(const ilp_graph *a, const ilp_graph *b, const int32_t *map)
{
	idpair *v = malloc((a->n + 1) * sizeof *v);
	size_t m = 0;
	int ok = 1;

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < a->n; i++)
		if (a->node[i].ac_graph_id != ILPI_NONE) {
			v[m].a = a->node[i].ac_graph_id;
			v[m++].b = b->node[map[i]].ac_graph_id;
		}
	qsort(v, m, sizeof *v, cmp_idpair);
	for (size_t k = 1; k < m && ok; k++)
		ok = v[k].a == v[k - 1].a ? v[k].b == v[k - 1].b : v[k].b > v[k - 1].b;
	free(v);
	return ok;
}

static int
mismatch(const ilp_graph *a, const ilp_graph *b, size_t i, const char *what, ilp_error *err)
{
	ilpi_err(err, ILP_ERR_INPUT, "%s and %s: node '%s' has no counterpart (%s); the graphs "
	    "differ in more than node names and order", a->path, b->path, a->node[i].name, what);
	return -1;
}

int
ilpi_graph_match(const ilp_graph *a, const ilp_graph *b, int32_t *map, ilp_error *err)
{
	int32_t *oa = NULL, *ob = NULL;
	int rc = -1;

	if (strcmp(a->fingerprint, b->fingerprint) != 0 || a->n != b->n ||
	    a->n_fw_out != b->n_fw_out || a->n_bw_out != b->n_bw_out) {
		ilpi_err(err, ILP_ERR_INPUT, "%s and %s are different graphs (fingerprints %.16s "
		    "and %.16s)", a->path, b->path, a->fingerprint, b->fingerprint);
		return -1;
	}
	oa = malloc((a->n + 1) * sizeof *oa);
	ob = malloc((b->n + 1) * sizeof *ob);
	if (oa == NULL || ob == NULL || ilpi_graph_canonical_order(a, oa) != 0 ||
	    ilpi_graph_canonical_order(b, ob) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", b->path);
		goto out;
	}
	for (size_t k = 0; k < a->n; k++)
		map[oa[k]] = ob[k];
	for (size_t i = 0; i < a->n; i++) {
		const ilpi_node *x = &a->node[i], *y = &b->node[map[i]];

		if (!same_label(a, i, b, (size_t)map[i])) {
			mismatch(a, b, i, "label", err);
			goto out;
		}
		for (uint32_t k = 0; k < x->in_count; k++)
			if (map[a->in[x->in_begin + k]] != b->in[y->in_begin + k]) {
				mismatch(a, b, i, "inputs", err);
				goto out;
			}
		if (x->view_of != ILPI_NONE && map[x->view_of] != y->view_of) {
			mismatch(a, b, i, "view_of", err);
			goto out;
		}
	}
	for (size_t j = 0; j < a->n_fw_out; j++)
		if (map[a->fw_out[j]] != b->fw_out[j]) {
			mismatch(a, b, (size_t)a->fw_out[j], "outputs.forward", err);
			goto out;
		}
	for (size_t j = 0; j < a->n_bw_out; j++)
		if ((a->bw_out[j] == ILPI_NONE) != (b->bw_out[j] == ILPI_NONE) ||
		    (a->bw_out[j] != ILPI_NONE && map[a->bw_out[j]] != b->bw_out[j])) {
			ilpi_err(err, ILP_ERR_INPUT, "%s and %s: outputs.backward[%zu] differs",
			    a->path, b->path, j);
			goto out;
		}
	if ((rc = regions_agree(a, b, map)) != 1) {
		if (rc < 0)
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", b->path);
		else
			ilpi_err(err, ILP_ERR_INPUT, "%s and %s: checkpoint regions are ordered "
			    "differently", a->path, b->path);
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	free(oa);
	free(ob);
	return rc;
}

int
ilp_partition_remap(const ilp_graph *from, const ilp_partition *p, const ilp_graph *to,
    ilp_partition **out, ilp_error *err)
{
	ilp_partition *q = NULL;
	int32_t *map = NULL;

	ilpi_err_clear(err);
	*out = NULL;
	if (ilpi_partition_fits(from, p, err) != 0)
		return -1;
	if ((map = malloc((from->n + 1) * sizeof *map)) == NULL ||
	    (q = ilp_partition_new(to)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", to->path);
		goto fail;
	}
	if (ilpi_graph_match(from, to, map, err) != 0)
		goto fail;
	{
		uint8_t *state = q->state;
		ilpi_override *ov = NULL;

		if (p->n_overrides > 0 &&
		    (ov = malloc(p->n_overrides * sizeof *ov)) == NULL) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", to->path);
			goto fail;
		}
		*q = *p; /* producer, costs, provenance */
		q->state = state;
		q->overrides = ov;
		q->cap_overrides = p->n_overrides;
		for (size_t k = 0; k < p->n_overrides; k++) {
			ov[k] = p->overrides[k];
			ov[k].node = map[p->overrides[k].node];
		}
	}
	for (size_t i = 0; i < from->n; i++)
		q->state[map[i]] = p->state[i];
	memcpy(q->graph_fp, to->fingerprint, sizeof q->graph_fp);
	free(map);
	*out = q;
	return 0;
fail:
	free(map);
	ilp_partition_free(q);
	return -1;
}
