/*
 * rules.h - what every solver must obey, derived from a graph's SAC tags, the
 * PREFER_* mode and the ban rules (internal; implemented in policies/rules.c).
 *
 * The ILP reads only this; the checker (graph/check.c) re-derives the hard tag rules on
 * its own so that it shares no rule code with the solvers. Classes, liveness, tags and
 * regions come from graph/ (classify.c, region.c), one definition for all of them.
 */
#ifndef ILPART_POLICIES_RULES_H
#define ILPART_POLICIES_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"

enum {
	ILPI_R_NO_SAVE = 1u << 0,          /* may not be saved for the backward */
	ILPI_R_NO_RECOMPUTE = 1u << 1,     /* may not be executed in the backward */
	ILPI_R_PREFER_SAVE = 1u << 2,      /* soft mode: penalise recomputing it */
	ILPI_R_PREFER_RECOMPUTE = 1u << 3  /* soft mode: penalise saving it */
};

/* Why a bit is set: for conflict reports and check messages. */
typedef enum ilpi_reason {
	ILPI_WHY_NONE = 0,
	ILPI_WHY_TAG,            /* the node's own SAC tag */
	ILPI_WHY_GETITEM,        /* getitem follows its multi-output parent */
	ILPI_WHY_VIEW,           /* view of a MUST_SAVE base */
	ILPI_WHY_BOUNDARY,       /* region boundary: used by a later region's recompute */
	ILPI_WHY_RANDOM,         /* random op, RNG state not functionalised */
	ILPI_WHY_EFFECTFUL,
	ILPI_WHY_COLLECTIVE,
	ILPI_WHY_PRIMAL,         /* inputs cannot be recomputed */
	ILPI_WHY_TUPLE,          /* a tuple has no storage to save */
	ILPI_WHY_BAN_COMPUTE,    /* compute-intensive op outside SAC regions */
	ILPI_WHY_BAN_REDUCTION,  /* reduction much smaller than its input */
	ILPI_WHY_BAN_OTHER,
	ILPI_WHY_BAN_ALLOWLIST,  /* not in PyTorch's recomputable-op allowlist */
	ILPI_WHY_BAN_MATERIALIZED, /* a non-fusible backward user materialises it anyway */
	ILPI_WHY_MUTATED,        /* its storage is an input the forward writes in place */
	ILPI_WHY_READS_MUTATED,  /* reads such a storage: would see the written value */
	ILPI_WHY_GET_ATTR        /* a get_attr: copied into each graph that uses it */
} ilpi_reason;

typedef struct ilpi_rule_options {
	ilp_prefer_mode prefer;
	ilp_bans bans;
	int budget;       /* a memory budget: PyTorch's budget path lifts its bans */
	int rng_replay;   /* random ops may be recomputed, replaying a saved RNG state */
} ilpi_rule_options;

typedef struct ilpi_rules {
	size_t n;
	uint8_t *bits;           /* ILPI_R_* per node */
	uint8_t *why_no_save;    /* ilpi_reason per node */
	uint8_t *why_no_recompute;
	uint8_t *tag;            /* effective ilpi_tag per node: after getitem and boundary rules */
	int32_t *region;         /* effective ac_graph_id per node (getitem: its parent's) */
} ilpi_rules;

void ilpi_rule_options_init(ilpi_rule_options *o);
/* Fills *r (caller-owned struct, arrays released by ilpi_rules_free). */
int ilpi_rules_build(const ilp_graph *g, const ilpi_rule_options *o, ilpi_rules *r,
    ilp_error *err);
void ilpi_rules_free(ilpi_rules *r);
const char *ilpi_reason_text(ilpi_reason why);
/* "MUST_RECOMPUTE", "random op: never recomputed", ...: why node i may not be saved
 * (bit ILPI_R_NO_SAVE) or recomputed (ILPI_R_NO_RECOMPUTE), written into buf. */
const char *ilpi_rules_explain(const ilp_graph *g, const ilpi_rules *r, size_t i,
    unsigned bit, char *buf, size_t len);

/* Op classes of PyTorch 2.6's get_default_op_list(), by target ("aten.mm.default"). */
enum {
	ILPI_OPC_RECOMPUTABLE = 1u << 0, /* recomputable_ops allowlist */
	ILPI_OPC_COMPUTE = 1u << 1,      /* compute_intensive_ops */
	ILPI_OPC_RANDOM = 1u << 2,       /* random_ops */
	ILPI_OPC_VIEW = 1u << 3,         /* view_ops */
	ILPI_OPC_CAT = 1u << 4,          /* aten.cat: fusible as a consumer */
	ILPI_OPC_LIFT = 1u << 5          /* lift_fresh(_copy): never banned */
};
/* policies/op_table.c */
unsigned ilpi_op_class(const char *target);
/* ilpi_op_class of every node into opc[0..g->n); -1 when out of memory. */
int ilpi_op_classes(const ilp_graph *g, unsigned *opc);

/* Propagation over the rules alone (no budget): when some boundary value can be
 * neither saved nor recomputed, -1 with ILP_ERR_CONFLICT and the smallest chain of
 * nodes and tags that forces it in err->msg. */
int ilpi_rules_find_conflict(const ilp_graph *g, const ilpi_rules *r, ilp_error *err);

#endif /* ILPART_POLICIES_RULES_H */
