/*
 * rules.c - what the solvers must obey: per-node NO_SAVE / NO_RECOMPUTE (and, in soft
 * mode, PREFER_*) bits with the reason for each, derived from the graph's SAC tags, the
 * --prefer mode and the --bans rules. Every rule is documented in docs/policies.md next
 * to the PyTorch 2.6 behaviour it matches (torch/_functorch/partitioners.py).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/region.h"
#include "policies/bans.h"
#include "policies/rules.h"

void
ilpi_rule_options_init(ilpi_rule_options *o)
{
	o->prefer = ILP_PREFER_HARD;
	o->bans = ILP_BANS_PYTORCH;
	o->budget = 0;
	o->rng_replay = 0;
}

/* ---- reasons ------------------------------------------------------------------ */

const char *
ilpi_reason_text(ilpi_reason why)
{
	switch (why) {
	case ILPI_WHY_NONE:
		return "";
	case ILPI_WHY_TAG:
		return "SAC tag";
	case ILPI_WHY_GETITEM:
		return "getitem follows its multi-output parent";
	case ILPI_WHY_VIEW:
		return "view of a MUST_SAVE base";
	case ILPI_WHY_BOUNDARY:
		return "MUST_SAVE: region boundary, used by a recompute-tagged node of a later "
		    "region";
	case ILPI_WHY_RANDOM:
		return "random op: never recomputed (RNG state not functionalised)";
	case ILPI_WHY_EFFECTFUL:
		return "effectful op: never recomputed";
	case ILPI_WHY_COLLECTIVE:
		return "collective: never recomputed unless its tag asks to";
	case ILPI_WHY_PRIMAL:
		return "graph input: never recomputed";
	case ILPI_WHY_TUPLE:
		return "tuple: no storage to save";
	case ILPI_WHY_BAN_COMPUTE:
		return "compute-intensive op outside SAC regions (--bans pytorch)";
	case ILPI_WHY_BAN_REDUCTION:
		return "output 4x smaller than its inputs (--bans pytorch)";
	case ILPI_WHY_BAN_OTHER:
		return "random op (--bans pytorch)";
	case ILPI_WHY_BAN_ALLOWLIST:
		return "not in PyTorch's recomputable-op allowlist (--bans pytorch)";
	case ILPI_WHY_BAN_MATERIALIZED:
		return "materialised in the backward by a non-fusible user (--bans pytorch)";
	case ILPI_WHY_MUTATED:
		return "the forward writes this input in place (mutated): never saved";
	case ILPI_WHY_READS_MUTATED:
		return "reads an input the forward writes in place (mutated): never recomputed";
	case ILPI_WHY_GET_ATTR:
		return "get_attr: copied into each graph that uses it, never saved";
	}
	return "?";
}

const char *
ilpi_rules_explain(const ilp_graph *g, const ilpi_rules *r, size_t i, unsigned bit,
    char *buf, size_t len)
{
	ilpi_reason why = (ilpi_reason)(bit == ILPI_R_NO_SAVE ? r->why_no_save[i] :
	    r->why_no_recompute[i]);
	const ilpi_node *n = &g->node[i];

	if (why == ILPI_WHY_TAG)
		snprintf(buf, len, "%s", ilpi_tag_name(ilpi_sac_tag(g, i)));
	else if (why == ILPI_WHY_GETITEM && n->in_count > 0 && bit == ILPI_R_NO_SAVE)
		snprintf(buf, len, "%s, from its tuple '%s'", ilpi_tag_name((ilpi_tag)r->tag[i]),
		    g->node[g->in[n->in_begin]].name);
	else if (why == ILPI_WHY_GETITEM && n->in_count > 0) {
		/* the tuple's own reason: a tag, or a rule (it reads a mutated input, ...) */
		int32_t t = g->in[n->in_begin];
		ilpi_reason tw = (ilpi_reason)r->why_no_recompute[t];

		snprintf(buf, len, "not recomputable, from its tuple '%s': %s", g->node[t].name,
		    tw == ILPI_WHY_TAG ? ilpi_tag_name(ilpi_sac_tag(g, (size_t)t)) :
		    tw == ILPI_WHY_GETITEM ? "not recomputable" : ilpi_reason_text(tw));
	} else
		snprintf(buf, len, "%s", ilpi_reason_text(why));
	return buf;
}

/* ---- effective tags ------------------------------------------------------------ */

static int
recompute_tag(unsigned t)
{
	return t == ILPI_TAG_MUST_RECOMPUTE || t == ILPI_TAG_PREFER_RECOMPUTE;
}

/* Each node's tag and region as graph/region.c defines them (a getitem's are its
 * tuple's); a node that ends its region (PyTorch's cleanup_recompute_tags) becomes
 * MUST_SAVE. */
static void
effective_tags(const ilp_graph *g, ilpi_rules *r, uint8_t *boundary, ilp_prefer_mode prefer)
{
	for (size_t i = 0; i < g->n; i++) {
		r->tag[i] = (uint8_t)ilpi_sac_tag(g, i);
		r->region[i] = ilpi_sac_region(g, i);
		boundary[i] = ilpi_region_end(g, i, prefer) >= 0;
		if (boundary[i])
			r->tag[i] = ILPI_TAG_MUST_SAVE;
	}
}

static void
set_bit(ilpi_rules *r, size_t i, unsigned bit, ilpi_reason why)
{
	if (bit == ILPI_R_NO_SAVE && !(r->bits[i] & ILPI_R_NO_SAVE))
		r->why_no_save[i] = (uint8_t)why;
	if (bit == ILPI_R_NO_RECOMPUTE && !(r->bits[i] & ILPI_R_NO_RECOMPUTE))
		r->why_no_recompute[i] = (uint8_t)why;
	r->bits[i] |= (uint8_t)bit;
}

/* The bits of node i's effective tag in each --prefer mode. */
static void
tag_rules(const ilp_graph *g, ilpi_rules *r, size_t i, ilp_prefer_mode prefer,
    const uint8_t *boundary)
{
	int view = g->node[i].view_of != ILPI_NONE;
	ilpi_reason why = boundary[i] ? ILPI_WHY_BOUNDARY :
	    ilpi_getitem_parent(g, i) != ILPI_NONE ? ILPI_WHY_GETITEM : ILPI_WHY_TAG;

	switch (r->tag[i]) {
	case ILPI_TAG_MUST_SAVE:
	case ILPI_TAG_MUST_CPU_OFFLOAD: /* saved, then offloaded: a save here */
		if (!view) /* a view is met by saving its base storage */
			set_bit(r, i, ILPI_R_NO_RECOMPUTE, why);
		break;
	case ILPI_TAG_MUST_RECOMPUTE:
		set_bit(r, i, ILPI_R_NO_SAVE, why);
		break;
	case ILPI_TAG_PREFER_RECOMPUTE:
		if (prefer == ILP_PREFER_SOFT)
			r->bits[i] |= ILPI_R_PREFER_RECOMPUTE;
		else
			set_bit(r, i, ILPI_R_NO_SAVE, why);
		break;
	case ILPI_TAG_PREFER_SAVE:
	case ILPI_TAG_PREFER_CPU_OFFLOAD:
		if (prefer == ILP_PREFER_SOFT)
			r->bits[i] |= ILPI_R_PREFER_SAVE;
		else if (prefer == ILP_PREFER_HARD && !view)
			set_bit(r, i, ILPI_R_NO_RECOMPUTE, why);
		break;
	default:
		break;
	}
}

/* ---- PyTorch's default recomputation bans (policies/bans.c) ------------------- */

/* The ILP's view exemption (ban_recomputation_if_allowed): torch's view ops, and any
 * value the graph marks as a view. */
static int
is_view(const ilp_graph *g, const unsigned *opc, size_t i)
{
	return g->node[i].view_of != ILPI_NONE || (opc[i] & ILPI_OPC_VIEW);
}

/* torch's reason, named as the rules name it: in allowlist mode an op outside the
 * allowlist is reported by what it is (compute-intensive, random) when it is one. */
static ilpi_reason
ban_reason(ilpi_ban_ctx *bans, size_t i)
{
	unsigned opc = bans->opc[i];

	switch (ilpi_should_ban(bans, i)) {
	case ILPI_BAN_NONE:
		break;
	case ILPI_BAN_NOT_IN_ALLOWLIST:
		return (opc & ILPI_OPC_COMPUTE) ? ILPI_WHY_BAN_COMPUTE :
		    (opc & ILPI_OPC_RANDOM) ? ILPI_WHY_BAN_OTHER : ILPI_WHY_BAN_ALLOWLIST;
	case ILPI_BAN_RANDOM:
		return ILPI_WHY_BAN_OTHER;
	case ILPI_BAN_COMPUTE_INTENSIVE:
		return ILPI_WHY_BAN_COMPUTE;
	case ILPI_BAN_MATERIALIZED_BACKWARD:
		return ILPI_WHY_BAN_MATERIALIZED;
	case ILPI_BAN_DIST_FROM_BW:
		return ILPI_WHY_BAN_OTHER;
	case ILPI_BAN_REDUCTION:
		return ILPI_WHY_BAN_REDUCTION;
	}
	return ILPI_WHY_NONE;
}

/* ---- building ------------------------------------------------------------------- */

void
ilpi_rules_free(ilpi_rules *r)
{
	if (r == NULL)
		return;
	free(r->bits);
	free(r->why_no_save);
	free(r->why_no_recompute);
	free(r->tag);
	free(r->region);
	memset(r, 0, sizeof *r);
}

static int
reads_mutated(const ilp_graph *g, const ilpi_node *n)
{
	const int32_t *in = ilpi_inputs(g, n);

	for (uint32_t k = 0; k < n->in_count; k++)
		if (g->node[g->node[in[k]].storage].flags & ILPI_F_MUTATED)
			return 1;
	return 0;
}

static void
node_rules(const ilp_graph *g, const ilpi_rule_options *o, ilpi_rules *r, size_t i,
    const uint8_t *boundary, ilpi_ban_ctx *bans)
{
	const ilpi_node *n = &g->node[i];
	ilpi_reason ban;

	if (!ilpi_decided(n))
		return; /* backward nodes run in the backward, dead ones nowhere */
	/* A mutated input (AOTAutograd applies the write after the forward): neither it
	 * nor a view of it holds the forward's value in the backward. */
	if (g->node[n->storage].flags & ILPI_F_MUTATED)
		set_bit(r, i, ILPI_R_NO_SAVE, ILPI_WHY_MUTATED);
	if (n->kind == ILPI_PRIMAL) {
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ILPI_WHY_PRIMAL);
		return;
	}
	if (n->kind != ILPI_OP)
		return;
	if (reads_mutated(g, n))
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ILPI_WHY_READS_MUTATED);
	tag_rules(g, r, i, o->prefer, boundary);
	if (n->flags & ILPI_F_TUPLE)
		set_bit(r, i, ILPI_R_NO_SAVE, ILPI_WHY_TUPLE);
	/* A get_attr (a lifted constant, a torch.cond branch's subgraph): torch's
	 * extraction copies it into each graph that uses it, and its min-cut weighs it
	 * infinite (no "val": is_non_tensor_node). Saved, it would reach the backward as
	 * a placeholder without a value, which AOTAutograd fails on. */
	if (n->target != NULL && strcmp(n->target, "get_attr") == 0)
		set_bit(r, i, ILPI_R_NO_SAVE, ILPI_WHY_GET_ATTR);
	if ((n->flags & ILPI_F_RANDOM) && !g->rng_functionalized && !o->rng_replay)
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ILPI_WHY_RANDOM);
	if (n->flags & ILPI_F_EFFECTFUL)
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ILPI_WHY_EFFECTFUL);
	if ((n->flags & ILPI_F_COLLECTIVE) && !ilpi_collective_recomputable(g, i, o->prefer))
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ILPI_WHY_COLLECTIVE);
	if (ilpi_getitem_parent(g, i) != ILPI_NONE &&
	    (r->bits[ilpi_getitem_parent(g, i)] & ILPI_R_NO_RECOMPUTE))
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ILPI_WHY_GETITEM);
	/* Bans: forward ops that no recompute tag covers, views exempt (PyTorch's
	 * ban_recomputation_if_allowed), only where nothing else already forbids it. A
	 * forward op returned as a gradient is one of torch's required_bw_nodes, which it
	 * never bans (min-cut recomputes it in the backward). */
	if (o->bans != ILP_BANS_PYTORCH || o->budget || n->cls != ILPI_FORWARD ||
	    (n->flags & ILPI_F_BW_OUTPUT) ||
	    recompute_tag(r->tag[i]) || is_view(g, bans->opc, i) ||
	    (r->bits[i] & ILPI_R_NO_RECOMPUTE))
		return;
	ban = ban_reason(bans, i);
	if (ban != ILPI_WHY_NONE)
		set_bit(r, i, ILPI_R_NO_RECOMPUTE, ban);
}

int
ilpi_rules_build(const ilp_graph *g, const ilpi_rule_options *o, ilpi_rules *r,
    ilp_error *err)
{
	ilpi_rule_options def;
	ilpi_ban_config bc;
	ilpi_ban_ctx bans = { 0 };
	uint8_t *boundary = NULL;
	unsigned *opc = NULL;
	size_t n = g->n ? g->n : 1;

	if (o == NULL) {
		ilpi_rule_options_init(&def);
		o = &def;
	}
	memset(r, 0, sizeof *r);
	r->n = g->n;
	r->bits = calloc(n, 1);
	r->why_no_save = calloc(n, 1);
	r->why_no_recompute = calloc(n, 1);
	r->tag = calloc(n, 1);
	r->region = calloc(n, sizeof *r->region);
	boundary = calloc(n, 1);
	opc = calloc(n, sizeof *opc);
	ilpi_ban_config_init(&bc); /* --bans pytorch: torch 2.6's defaults */
	if (r->bits == NULL || r->why_no_save == NULL || r->why_no_recompute == NULL ||
	    r->tag == NULL || r->region == NULL || boundary == NULL || opc == NULL ||
	    ilpi_op_classes(g, opc) != 0 || ilpi_ban_ctx_init(&bans, g, opc, &bc, NULL) != 0)
		goto fail;
	effective_tags(g, r, boundary, o->prefer);
	for (size_t i = 0; i < g->n; i++)
		node_rules(g, o, r, i, boundary, &bans);
	free(boundary);
	free(opc);
	ilpi_ban_ctx_free(&bans);
	return 0;
fail:
	free(boundary);
	free(opc);
	ilpi_ban_ctx_free(&bans);
	ilpi_rules_free(r);
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
	return -1;
}
