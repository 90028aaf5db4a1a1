/*
 * check.c - the independent partition checker (docs/partition.md "Checker rules").
 *
 * It re-derives every rule from the node fields alone and shares no code with the
 * solvers (policies/ and solver/ are off limits here), so that a bug in the rules the
 * solvers obey cannot hide itself. Nodes are visited in graph order and the first
 * violation is reported, naming the node and its SAC tag.
 */
#include "config.h"

#include <stdio.h>

#include "graph/graph.h"
#include "graph/partition.h"

typedef struct checker {
	const ilp_graph *g;
	const ilp_partition *p;
	ilp_prefer_mode mode;
	ilp_error *err;
} checker;

/* MUST_RECOMPUTE, or PREFER_RECOMPUTE when the mode makes it binding (PyTorch's
 * must_recompute()). */
static int
recompute_tagged(const checker *c, const ilpi_node *n)
{
	return n->tag == ILPI_TAG_MUST_RECOMPUTE ||
	    (n->tag == ILPI_TAG_PREFER_RECOMPUTE && c->mode != ILP_PREFER_SOFT);
}

static int
save_tagged(const checker *c, const ilpi_node *n)
{
	return n->tag == ILPI_TAG_MUST_SAVE ||
	    (n->tag == ILPI_TAG_PREFER_SAVE && c->mode == ILP_PREFER_HARD);
}

/* PyTorch's cleanup_recompute_tags: a recompute-tagged node used by a recompute-tagged
 * node of a later region ends its region and is stashed (MUST_SAVE). Returns that
 * user, or -1. */
static long
boundary_user(const checker *c, size_t i)
{
	const ilpi_node *n = &c->g->node[i];
	const int32_t *use = ilpi_users(c->g, n);

	if (!recompute_tagged(c, n) || n->ac_graph_id == ILPI_NONE)
		return -1;
	for (uint32_t k = 0; k < n->use_count; k++) {
		const ilpi_node *u = &c->g->node[use[k]];

		if (recompute_tagged(c, u) && u->ac_graph_id != ILPI_NONE &&
		    u->ac_graph_id > n->ac_graph_id)
			return use[k];
	}
	return -1;
}

static int
available(const checker *c, size_t i)
{
	return c->g->node[i].cls == ILPI_BACKWARD || ilpi_saved(c->p, i) ||
	    ilpi_recomputed(c->p, i);
}

/* Executed in the backward: a backward op or a recomputed node. */
static int
runs_in_backward(const checker *c, size_t i)
{
	const ilpi_node *n = &c->g->node[i];

	return (n->cls == ILPI_BACKWARD && n->kind == ILPI_OP) || ilpi_recomputed(c->p, i);
}

static int
violation(const checker *c, size_t i, const char *what)
{
	const ilpi_node *n = &c->g->node[i];

	if (n->tag != ILPI_TAG_NONE)
		ilpi_err(c->err, ILP_ERR_VIOLATION, "partition: node '%s' (%s): %s", n->name,
		    ilpi_tag_name((ilpi_tag)n->tag), what);
	else
		ilpi_err(c->err, ILP_ERR_VIOLATION, "partition: node '%s': %s", n->name, what);
	return -1;
}

/* "saved, but its tag forbids saving", naming the prefer mode when a PREFER_* tag
 * binds only because of it. */
static int
tag_violation(const checker *c, size_t i, const char *did, const char *doing,
    ilpi_tag prefer_tag)
{
	char why[200];

	if (c->g->node[i].tag == prefer_tag)
		snprintf(why, sizeof why, "%s, but its tag forbids %s (prefer mode %s)", did,
		    doing, ilp_prefer_name(c->mode));
	else
		snprintf(why, sizeof why, "%s, but its tag forbids %s", did, doing);
	return violation(c, i, why);
}

static int
check_saved(const checker *c, size_t i)
{
	const ilpi_node *n = &c->g->node[i];

	if (n->kind == ILPI_TANGENT)
		return violation(c, i, "saved, but it is a tangent (already a backward input)");
	if (n->cls == ILPI_BACKWARD)
		return violation(c, i, "saved, but it is a backward node");
	if (n->flags & ILPI_F_TUPLE)
		return violation(c, i, "saved, but it is a tuple with no storage "
		    "(save its getitem projections)");
	if (recompute_tagged(c, n) && boundary_user(c, i) < 0)
		return tag_violation(c, i, "saved", "saving", ILPI_TAG_PREFER_RECOMPUTE);
	return 0;
}

static int
check_recomputed(const checker *c, size_t i)
{
	const ilpi_node *n = &c->g->node[i];
	char why[600];
	long u;

	if (n->kind != ILPI_OP)
		return violation(c, i, n->kind == ILPI_PRIMAL ?
		    "recomputed, but it is a primal (inputs cannot be recomputed)" :
		    "recomputed, but it is a tangent (inputs cannot be recomputed)");
	if (n->cls == ILPI_BACKWARD)
		return violation(c, i, "recomputed, but it is a backward node");
	if ((n->flags & ILPI_F_RANDOM) && !c->g->rng_functionalized)
		return violation(c, i, "recomputed, but it is a random op and the graph's RNG "
		    "state is not functionalized (rng_functionalized is false)");
	if (n->flags & ILPI_F_EFFECTFUL)
		return violation(c, i, "recomputed, but it is an effectful op");
	if (n->flags & ILPI_F_COLLECTIVE)
		return violation(c, i, "recomputed, but it is a collective op");
	/* PyTorch may recompute a view of a saved value whatever its tag. */
	if (n->view_of != ILPI_NONE)
		return 0;
	if (save_tagged(c, n))
		return tag_violation(c, i, "recomputed", "recomputing", ILPI_TAG_PREFER_SAVE);
	if ((u = boundary_user(c, i)) >= 0) {
		snprintf(why, sizeof why, "recomputed, but it ends checkpoint region %d and "
		    "'%s' of region %d recomputes from it, so it is treated as MUST_SAVE",
		    (int)n->ac_graph_id, c->g->node[u].name, (int)c->g->node[u].ac_graph_id);
		return violation(c, i, why);
	}
	return 0;
}

/* Every value the backward executes from, and every gradient, must be available. */
static int
check_available(const checker *c, size_t i)
{
	const ilpi_node *n = &c->g->node[i];
	const int32_t *use = ilpi_users(c->g, n);
	char why[600];

	if (available(c, i))
		return 0;
	for (uint32_t k = 0; k < n->use_count; k++) {
		if (!runs_in_backward(c, (size_t)use[k]))
			continue;
		snprintf(why, sizeof why, "needed by %s node '%s', but neither saved nor "
		    "recomputed", ilpi_recomputed(c->p, (size_t)use[k]) ? "recomputed" :
		    "backward", c->g->node[use[k]].name);
		return violation(c, i, why);
	}
	if (n->flags & ILPI_F_BW_OUTPUT)
		return violation(c, i, n->kind == ILPI_PRIMAL ?
		    "returned as a gradient (outputs.backward), but not saved" :
		    "returned as a gradient (outputs.backward), but neither saved nor "
		    "recomputed");
	return 0;
}

int
ilp_check(const ilp_graph *g, const ilp_partition *p, const ilp_check_options *o,
    ilp_error *err)
{
	checker c = { g, p, o != NULL ? o->prefer : ILP_PREFER_HARD, err };

	ilpi_err_clear(err);
	if (p->n != g->n) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: partition has %zu nodes, graph has %zu",
		    g->path, p->n, g->n);
		return -1;
	}
	for (size_t i = 0; i < g->n; i++) {
		if (ilpi_saved(p, i) && ilpi_recomputed(p, i))
			return violation(&c, i, "both saved and recomputed");
		if (ilpi_saved(p, i) && check_saved(&c, i) != 0)
			return -1;
		if (ilpi_recomputed(p, i) && check_recomputed(&c, i) != 0)
			return -1;
		if (check_available(&c, i) != 0)
			return -1;
	}
	return 0;
}
