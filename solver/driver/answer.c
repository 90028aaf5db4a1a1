/*
 * answer.c - from item answers to a checked partition: node answers, seeds
 * carried onto items, the producer record, and whether a partition obeys this
 * solve's rules.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/region.h"
#include "solver/driver/stage.h"
#include "solver/driver/objectives.h"
#include "solver/driver/answer.h"

/* The item answer of a node partition `p`: an item is saved when its rep is, else
 * recomputed when the backward needs it. 0 when that answer is valid under this
 * solve's rules (every needed value saved or recomputed where the model allows). */
int
drv_seed_items(solve_ctx *c, const ilp_partition *p, uint8_t *s, uint8_t *r, uint8_t *need)
{
	const ilpi_reduced *red = &c->red;

	memset(s, 0, red->n_items);
	/* A saved view saves its base's storage: the nearest base that is a saveable
	 * item's rep. */
	for (size_t v = 0; v < c->g->n; v++) {
		int32_t u = (int32_t)v, it;

		if (!(p->state[v] & ILPI_P_SAVED))
			continue;
		while ((it = red->item_of[u]) < 0 || red->item[it].rep != u ||
		    c->m.col_s[it] == 0) {
			if ((u = c->g->node[u].view_of) == ILPI_NONE)
				break;
		}
		if (u != ILPI_NONE)
			s[it] = 1;
	}
	for (size_t it = 0; it < red->n_items; it++)
		r[it] = !s[it];
	if (drv_canon_items(red, s, r, need) != 0)
		return -1;
	for (size_t it = 0; it < red->n_items; it++)
		if (r[it] && c->m.col_r[it] == 0)
			return -1;
	return 0;
}

/* ---- from items to a checked partition ----------------------------------------- */

/* Node-level answer: an item's save is its rep's, its recompute all its members';
 * then the canonical form (only what the backward needs, saved ones not recomputed). */
int
drv_to_nodes(solve_ctx *c)
{
	const ilp_graph *g = c->g;
	const ilpi_reduced *red = &c->red;
	uint8_t *need;

	memset(c->node_s, 0, g->n);
	memset(c->node_r, 0, g->n);
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];

		if (c->s[it])
			c->node_s[item->rep] = ilpi_model_offloaded(&c->m, c->s, it) ? 2 : 1;
		for (uint32_t k = 0; c->r[it] && k < item->mem_count; k++)
			c->node_r[red->member[item->mem_begin + k]] = 1;
	}
	need = calloc(g->n + 1, 1);
	if (need == NULL)
		return -1;
	for (size_t v = g->n; v-- > 0;) {
		const ilpi_node *n = &g->node[v];
		const int32_t *in = ilpi_inputs(g, n);

		if (!red->cand[v])
			continue;
		if (!need[v] && !red->boundary[v]) {
			c->node_s[v] = c->node_r[v] = 0;
			continue;
		}
		if (c->node_s[v])
			c->node_r[v] = 0;
		else if (!c->node_r[v]) {
			free(need);
			return -2;
		}
		for (uint32_t k = 0; c->node_r[v] && k < n->in_count; k++)
			need[in[k]] = 1;
	}
	free(need);
	return 0;
}

/* Soft mode: every preference the optimum overrode, with the penalty it accepted for
 * doing so (the objective gains at least that much by overriding). */
static int
record_overrides(solve_ctx *c, ilp_partition *p)
{
	const ilpi_reduced *red = &c->red;
	int time_units = (drv_objective_of(c->o->objective)->flags & DRV_OBJ_TIME_UNITS) != 0;

	if (c->o->prefer != ILP_PREFER_SOFT)
		return 0;
	for (size_t it = 0; it < red->n_items; it++) {
		const ilpi_item *item = &red->item[it];
		int32_t v = item->rep;
		double gain;

		if ((item->prefer & ILPI_R_PREFER_SAVE) && c->node_r[v]) {
			gain = time_units ? c->pen[PEN_TIME_R][it] :
			    c->pen[PEN_BYTES_R][it] * c->m.byte_unit;
			/* named by its own tag: a PREFER_CPU_OFFLOAD binds as PREFER_SAVE */
			if (ilpi_partition_add_override(p, v, ilpi_sac_tag(c->g, (size_t)v) ==
			    ILPI_TAG_PREFER_CPU_OFFLOAD ? ILPI_TAG_PREFER_CPU_OFFLOAD :
			    ILPI_TAG_PREFER_SAVE, gain) != 0)
				return -1;
		}
		if ((item->prefer & ILPI_R_PREFER_RECOMPUTE) && c->node_s[v]) {
			gain = time_units ? c->pen[PEN_TIME_S][it] :
			    c->pen[PEN_BYTES_S][it] * c->m.byte_unit;
			if (ilpi_partition_add_override(p, v, ILPI_TAG_PREFER_RECOMPUTE, gain) != 0)
				return -1;
		}
	}
	return 0;
}

int
drv_make_partition(solve_ctx *c, ilp_partition **out, ilp_error *err)
{
	const drv_objective *obj = drv_objective_of(c->o->objective);
	const ilp_graph *g = c->g;
	ilp_partition *p;
	ilp_check_options co;
	ilp_error cerr = { 0 };
	int rc;

	if ((rc = drv_to_nodes(c)) != 0) {
		ilpi_err(err, rc == -1 ? ILP_ERR_SYSTEM : ILP_ERR_SOLVER, rc == -1 ?
		    "%s: out of memory" : "%s: internal error: the ILP solution leaves a needed "
		    "value unavailable", g->path);
		return -1;
	}
	if ((p = drv_node_partition(c)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	ilpi_partition_mark_rng(g, p);
	ilpi_partition_set_producer(p, "ilp", obj->name, ilp_prefer_name(c->o->prefer),
	    c->status);
	ilpi_partition_record(p, g, c->o);
	p->gap = c->gap;
	p->budget_bytes = c->budget;
	if (c->note[0] != '\0')
		snprintf(p->note, sizeof p->note, "%s", c->note);
	if (ilp_partition_evaluate(g, p, &c->o->device, err) != 0 ||
	    record_overrides(c, p) != 0)
		goto fail;
	p->objective_value = obj->value(c, p);
	co.prefer = c->o->prefer;
	if (ilp_check(g, p, &co, &cerr) != 0) {
		ilpi_err(err, ILP_ERR_SOLVER, "%s: internal error: the ILP partition fails the "
		    "checker: %s", g->path, cerr.msg);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	if (err != NULL && err->kind == ILP_ERR_NONE)
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	ilp_partition_free(p);
	return -1;
}

/* Why partition p may not be an answer of this solve (the checker in the solve's prefer
 * mode, then the solve's own rules: bans under a budget, RNG replay), or NULL. */
const char *
drv_breaks_rules(const solve_ctx *c, const ilp_partition *p, char *buf, size_t len)
{
	const ilp_graph *g = c->g;
	ilp_check_options co;
	ilp_error cerr = { 0 };
	char why[128];

	co.prefer = c->o->prefer;
	if (ilp_check(g, p, &co, &cerr) != 0) {
		snprintf(buf, len, "%s", cerr.msg);
		return buf;
	}
	for (size_t v = 0; v < g->n; v++) {
		unsigned bit = ilpi_saved(p, v) ? ILPI_R_NO_SAVE :
		    ilpi_recomputed(p, v) ? ILPI_R_NO_RECOMPUTE : 0;

		if (bit == 0 || !(c->rules.bits[v] & bit))
			continue;
		snprintf(buf, len, "node '%s' is %s, which this solve forbids (%s)",
		    g->node[v].name, bit == ILPI_R_NO_SAVE ? "saved" : "recomputed",
		    ilpi_rules_explain(g, &c->rules, v, bit, why, sizeof why));
		return buf;
	}
	return NULL;
}

ilp_partition *
drv_node_partition(const solve_ctx *c)
{
	ilp_partition *p = ilp_partition_new(c->g);

	for (size_t v = 0; p != NULL && v < c->g->n; v++)
		p->state[v] = (uint8_t)((c->node_s[v] ? ILPI_P_SAVED : 0) |
		    (c->node_s[v] == 2 ? ILPI_P_OFFLOADED : 0) |
		    (c->node_r[v] ? ILPI_P_RECOMPUTED : 0));
	/* the simulator times transfers on the solve's device and host link */
	if (p != NULL && c->m.col_o != NULL)
		ilpi_partition_record(p, c->g, c->o);
	return p;
}
