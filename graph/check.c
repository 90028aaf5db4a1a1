/*
 * check.c - the independent partition checker (docs/partition.md "Checker rules").
 *
 * It re-derives every rule from the node fields and shares no code with the solvers'
 * rules (policies/ and solver/ are off limits here), so that a bug in the rules the
 * solvers obey cannot hide itself. What a node is — its class and liveness
 * (graph/classify.c), its SAC tag and region (graph/region.c) — has one definition
 * that the checker and the solvers share. Nodes are visited in graph order and the
 * first violation is reported, naming the node and its SAC tag.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/partition.h"
#include "graph/region.h"

typedef struct checker {
	const ilp_graph *g;
	const ilp_partition *p;
	ilp_prefer_mode mode;
	ilp_error *err;
} checker;

static ilpi_tag
tag(const checker *c, size_t i)
{
	return ilpi_sac_tag(c->g, i);
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

	if (tag(c, i) != ILPI_TAG_NONE)
		ilpi_err(c->err, ILP_ERR_VIOLATION, "partition: node '%s' (%s): %s", n->name,
		    ilpi_tag_name(tag(c, i)), what);
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

	if (tag(c, i) == prefer_tag)
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
	char why[300];

	if (n->kind == ILPI_TANGENT)
		return violation(c, i, "saved, but it is a tangent (already a backward input)");
	if (n->cls == ILPI_BACKWARD)
		return violation(c, i, "saved, but it is a backward node");
	if (!ilpi_live(n))
		return violation(c, i, "saved, but it is dead (needed by no output)");
	if (n->flags & ILPI_F_TUPLE)
		return violation(c, i, "saved, but it is a tuple with no storage "
		    "(save its getitem projections)");
	if (n->kind == ILPI_OP && n->target != NULL && strcmp(n->target, "get_attr") == 0)
		return violation(c, i, "saved, but it is a get_attr (a constant or subgraph of "
		    "the module): each graph that uses it reads it itself");
	/* Then no op reading it can be recomputed either: its input is not available. */
	if (c->g->node[n->storage].flags & ILPI_F_MUTATED) {
		snprintf(why, sizeof why, "saved, but the forward writes its storage in place "
		    "(mutated input '%s'): the backward would read the written value",
		    c->g->node[n->storage].name);
		return violation(c, i, why);
	}
	if (ilpi_tag_binds_recompute(tag(c, i), c->mode) &&
	    ilpi_region_end(c->g, i, c->mode) < 0)
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
	if (!ilpi_live(n))
		return violation(c, i, "recomputed, but it is dead (needed by no output)");
	if ((n->flags & ILPI_F_RANDOM) && !c->g->rng_functionalized &&
	    !(c->p->state[i] & ILPI_P_RNG_SAVED))
		return violation(c, i, "recomputed, but it is a random op, the graph's RNG "
		    "state is not functionalized (rng_functionalized is false) and the partition "
		    "saves no RNG state for it (rng_states)");
	if (n->flags & ILPI_F_EFFECTFUL)
		return violation(c, i, "recomputed, but it is an effectful op");
	if ((n->flags & ILPI_F_COLLECTIVE) && !ilpi_collective_recomputable(c->g, i, c->mode))
		return violation(c, i, "recomputed, but it is a collective op its tag does not "
		    "ask to recompute");
	/* PyTorch may recompute a view of a saved value whatever its tag. */
	if (n->view_of != ILPI_NONE)
		return 0;
	if (ilpi_tag_binds_save(tag(c, i), c->mode))
		return tag_violation(c, i, "recomputed", "recomputing",
		    tag(c, i) == ILPI_TAG_PREFER_CPU_OFFLOAD ? ILPI_TAG_PREFER_CPU_OFFLOAD :
		    ILPI_TAG_PREFER_SAVE);
	if ((u = ilpi_region_end(c->g, i, c->mode)) >= 0) {
		snprintf(why, sizeof why, "recomputed, but it ends checkpoint region %d and "
		    "'%s' of region %d recomputes from it, so it is treated as MUST_SAVE",
		    (int)ilpi_sac_region(c->g, i), c->g->node[u].name,
		    (int)ilpi_sac_region(c->g, (size_t)u));
		return violation(c, i, why);
	}
	return 0;
}

/* An offloaded value (docs/partition.md "Offload") is a saved value the forward copies
 * to the host and the backward copies back: what torch's activation offloading can
 * move (its can_offload): a forward op's own storage, no view or getitem, no output the
 * caller holds, and no other saved value shares its storage (which would stay on the
 * device). holders[root]: how many saved values use that storage. */
static int
check_offloaded(const checker *c, size_t i, const uint32_t *holders)
{
	const ilpi_node *n = &c->g->node[i];

	if (!ilpi_saved(c->p, i))
		return violation(c, i, "offloaded, but not saved (only saved values are "
		    "offloaded)");
	if (n->kind != ILPI_OP)
		return violation(c, i, "offloaded, but it is an input (the caller's, not the "
		    "forward's to move)");
	if (n->view_of != ILPI_NONE)
		return violation(c, i, "offloaded, but it is a view (offload its base)");
	if (n->flags & ILPI_F_GETITEM)
		return violation(c, i, "offloaded, but it is a getitem (torch's offloading "
		    "does not move tuple elements)");
	for (size_t k = 0; k < c->g->n_fw_out; k++)
		if (c->g->node[c->g->fw_out[k]].storage == n->storage)
			return violation(c, i, "offloaded, but its storage is a forward output "
			    "the caller holds");
	if (holders[n->storage] > 1)
		return violation(c, i, "offloaded, but another saved value shares its storage "
		    "(a saved view keeps it on the device)");
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
	uint32_t *holders = NULL;
	int rc = -1;

	ilpi_err_clear(err);
	if (ilpi_partition_fits(g, p, err) != 0)
		return -1;
	if (ilpi_partition_count(p, ILPI_P_OFFLOADED) > 0) {
		if ((holders = calloc(g->n + 1, sizeof *holders)) == NULL) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
			return -1;
		}
		for (size_t i = 0; i < g->n; i++)
			if (ilpi_saved(p, i))
				holders[g->node[i].storage]++;
	}
	for (size_t i = 0; i < g->n; i++) {
		if (ilpi_offloaded(p, i) && check_offloaded(&c, i, holders) != 0)
			goto out;
		if (ilpi_saved(p, i) && ilpi_recomputed(p, i)) {
			violation(&c, i, "both saved and recomputed");
			goto out;
		}
		if ((p->state[i] & ILPI_P_RNG_SAVED) && (!ilpi_recomputed(p, i) ||
		    !(g->node[i].flags & ILPI_F_RANDOM))) {
			violation(&c, i, "its RNG state is saved (rng_states), but it is "
			    "not a recomputed random op");
			goto out;
		}
		if (ilpi_saved(p, i) && check_saved(&c, i) != 0)
			goto out;
		if (ilpi_recomputed(p, i) && check_recomputed(&c, i) != 0)
			goto out;
		if (check_available(&c, i) != 0)
			goto out;
	}
	rc = 0;
out:
	free(holders);
	return rc;
}
