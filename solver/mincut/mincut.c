/*
 * mincut.c - PyTorch's min_cut_rematerialization_partition (the rules of
 * torch/_functorch/partitioners.py in torch 2.6 and in torch 2.14, chosen by the graph's
 * torch version or --torch) re-implemented over ilpart's graph model.
 *
 * The steps follow torch's own: classification (done by graph/classify.c, matching
 * classify_nodes), dist_from_bw, cleanup_recompute_tags, should_ban_recomputation
 * with its config switches, get_node_weight, the node_in/node_out flow network with
 * source and sink, the used-far-apart and long-fusible-chain bans, a maximum flow
 * (solver/mincut/maxflow.c), then the cut closest to the sink (what networkx.minimum_cut
 * returns; the cut is unique, so no tie-breaking is involved) becomes the saved set,
 * and the backward recomputes whatever it needs. docs/mincut.md lists the
 * differences from torch.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/grow.h"
#include "graph/partition.h"
#include "graph/region.h"
#include "policies/bans.h"
#include "policies/rules.h"
#include "graph/cost.h"
#include "solver/mincut/knapsack.h"
#include "solver/mincut/maxflow.h"
#include "solver/mincut/mincut.h"

/* ---- operator classes (policies/op_table.c) ----------------------------------- */

enum {
	OT_RECOMPUTABLE = ILPI_OPC_RECOMPUTABLE,
	OT_VIEW = ILPI_OPC_VIEW,
	OT_RANDOM = ILPI_OPC_RANDOM,
	OT_COMPUTE = ILPI_OPC_COMPUTE,  /* compute intensive */
	OT_CAT = ILPI_OPC_CAT,          /* aten.cat: memory fusion into it is free */
	OT_LIFT = ILPI_OPC_LIFT,        /* lift_fresh(_copy): never banned */
	OT_FUSIBLE = 1u << 6,           /* recomputable or random */
	OT_GETITEM = 1u << 7
};

/* "aten.split.Tensor" is of packet "aten.split": target without "torch.ops." and without
 * its overload. */
static int
of_packet(const char *target, const char *packet)
{
	size_t k = strlen(packet);

	if (strncmp(target, "torch.ops.", 10) == 0)
		target += 10;
	return strncmp(target, packet, k) == 0 &&
	    (target[k] == '\0' || (target[k] == '.' && strchr(target + k + 1, '.') == NULL));
}

/* torch 2.14's get_default_op_list beside 2.6's (policies/op_table.c): split is a view op,
 * prepare_softmax_online recomputable, the max-pool offsets op renamed, four more
 * ops tagged pointwise, and operator.xor among the magic methods. */
static unsigned
op_class_2_14(const char *target, unsigned cls)
{
	if (target == NULL)
		return cls;
	if (of_packet(target, "aten.split"))
		return cls | ILPI_OPC_VIEW | ILPI_OPC_RECOMPUTABLE;
	if (of_packet(target, "aten.leaky_relu") || of_packet(target, "aten.float_power") ||
	    of_packet(target, "aten.ldexp") || of_packet(target, "aten.equal") ||
	    of_packet(target, "operator.xor"))
		return cls | ILPI_OPC_RECOMPUTABLE; /* tagged pointwise in 2.14, not 2.6 */
	if (of_packet(target, "prims.prepare_softmax_online") ||
	    of_packet(target, "prims._low_memory_max_pool_offsets_to_indices"))
		return cls | ILPI_OPC_RECOMPUTABLE;
	if (of_packet(target, "prims._low_memory_max_pool2d_offsets_to_indices"))
		return cls & ~(unsigned)ILPI_OPC_RECOMPUTABLE;
	return cls;
}

/* A lifted constant (an fx get_attr node): torch's should_ban_recomputation passes over
 * everything but call_function nodes, and its weight is infinite (no "val" in its meta:
 * is_non_tensor_node), so it is always recomputed, in torch 2.6 as in 2.14. */
static int
is_get_attr(const ilpi_node *n)
{
	return n->kind == ILPI_OP && n->target != NULL && strcmp(n->target, "get_attr") == 0;
}

/* `cls` is the node's ilpi_op_class, computed once per graph by ilpi_op_classes. */
static uint8_t
op_flags(const ilpi_node *n, unsigned cls)
{
	uint8_t f;

	if (n->kind != ILPI_OP || n->target == NULL)
		return 0;
	f = (uint8_t)cls;
	if (n->flags & ILPI_F_GETITEM)
		f |= OT_GETITEM | OT_RECOMPUTABLE;
	if (f & (OT_RECOMPUTABLE | OT_RANDOM))
		f |= OT_FUSIBLE;
	return f;
}

/* ---- options ------------------------------------------------------------------ */

void
ilpi_mincut_options_init(ilpi_mincut_options *o)
{
	memset(o, 0, sizeof *o);
	o->prefer = ILP_PREFER_PYTORCH;
	o->torch_version = 0; /* the graph's */
	o->treat_parameters_as_free_to_save = -1;
	o->ban_recompute_used_far_apart = 1;
	o->ban_recompute_long_fusible_chains = 1;
	o->ban_recompute_materialized_backward = 1;
	o->ban_recompute_not_in_allowlist = 1;
	o->ban_recompute_reductions = 1;
	o->recompute_views = 0;
	o->aggressive_recomputation = 0;
	o->max_dist_from_bw = 1000;
	o->unsafe_allow_optimization_of_collectives = 0;
	o->check = 1;
	o->activation_memory_budget = 1.0;
	o->activation_memory_budget_solver = ILPI_KNAPSACK_DP;
	o->activation_memory_budget_runtime_estimator = ILPI_MC_EST_FLOPS;
	ilp_device_lookup(ILPI_DEVICE_DEFAULT, &o->device);
}

int
ilpi_mincut_torch_rules(const ilp_graph *g, const ilpi_mincut_options *o)
{
	static const int known[] = { ILPI_TORCH_2_6, ILPI_TORCH_2_14 };
	int v = o->torch_version > 0 ? o->torch_version :
	    g != NULL && g->torch_version > 0 ? g->torch_version : ILPI_TORCH_NEWEST;
	int best = known[0];

	if (v / 100 != 2)
		return v / 100 < 2 ? ILPI_TORCH_2_6 : ILPI_TORCH_NEWEST;
	for (size_t k = 1; k < sizeof known / sizeof known[0]; k++)
		if (abs(known[k] - v) <= abs(best - v)) /* a tie: the newer */
			best = known[k];
	return best;
}

const char *
ilpi_mincut_torch_name(int rules)
{
	return rules == ILPI_TORCH_2_6 ? "2.6" : "2.14";
}

void
ilpi_mincut_options_from_solve(ilpi_mincut_options *o, const ilp_solve_options *so)
{
	o->prefer = so->prefer;
	o->device = so->device;
	o->torch_version = so->torch_version;
	if (so->budget_fraction >= 0) /* the same fraction, in torch's budget path */
		o->activation_memory_budget = so->budget_fraction;
	if (so->bans == ILP_BANS_NONE) {
		o->ban_recompute_used_far_apart = 0;
		o->ban_recompute_long_fusible_chains = 0;
		o->ban_recompute_materialized_backward = 0;
		o->ban_recompute_not_in_allowlist = 0;
		o->ban_recompute_reductions = 0;
	}
}

static int
parse_bool(const char *v, int *out)
{
	if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "True") == 0)
		*out = 1;
	else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0 || strcmp(v, "False") == 0)
		*out = 0;
	else
		return -1;
	return 0;
}

int
ilpi_mincut_options_set(ilpi_mincut_options *o, const char *name, const char *value)
{
	const struct {
		const char *name;
		int *field;
	} b[] = {
		{ "ban_recompute_used_far_apart", &o->ban_recompute_used_far_apart },
		{ "ban_recompute_long_fusible_chains", &o->ban_recompute_long_fusible_chains },
		{ "ban_recompute_materialized_backward",
		    &o->ban_recompute_materialized_backward },
		{ "ban_recompute_not_in_allowlist", &o->ban_recompute_not_in_allowlist },
		{ "ban_recompute_reductions", &o->ban_recompute_reductions },
		{ "recompute_views", &o->recompute_views },
		{ "aggressive_recomputation", &o->aggressive_recomputation },
		{ "unsafe_allow_optimization_of_collectives",
		    &o->unsafe_allow_optimization_of_collectives },
		{ "treat_parameters_as_free_to_save", &o->treat_parameters_as_free_to_save },
	};

	if (strcmp(name, "activation_memory_budget") == 0) {
		char *end;
		double v = strtod(value, &end);

		if (*value == '\0' || *end != '\0' || !(v >= 0 && v <= 1))
			return -1;
		o->activation_memory_budget = v;
		return 0;
	}
	if (strcmp(name, "activation_memory_budget_solver") == 0) {
		int s = ilpi_knapsack_solver_parse(value);

		if (s < 0)
			return -1;
		o->activation_memory_budget_solver = s;
		return 0;
	}
	if (strcmp(name, "activation_memory_budget_runtime_estimator") == 0) {
		if (strcmp(value, "flops") == 0)
			o->activation_memory_budget_runtime_estimator = ILPI_MC_EST_FLOPS;
		else if (strcmp(value, "testing") == 0)
			o->activation_memory_budget_runtime_estimator = ILPI_MC_EST_TESTING;
		else if (strcmp(value, "profile") == 0)
			o->activation_memory_budget_runtime_estimator = ILPI_MC_EST_PROFILE;
		else
			return -1;
		return 0;
	}
	if (strcmp(name, "max_dist_from_bw") == 0) {
		char *end;
		long v = strtol(value, &end, 10);

		if (*value == '\0' || *end != '\0' || v < 0)
			return -1;
		o->max_dist_from_bw = v;
		return 0;
	}
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		if (strcmp(name, b[i].name) == 0)
			return parse_bool(value, b[i].field);
	return -1;
}

const char *
ilpi_mc_ban_text(ilpi_mc_ban b)
{
	switch (b) {
	case ILPI_MC_FREE:
		return "";
	case ILPI_MC_PRIMAL:
		return "primal";
	case ILPI_MC_MUST_SAVE:
		return "MUST_SAVE tag";
	case ILPI_MC_REGION_END:
		return "ends a checkpoint region (cleanup_recompute_tags)";
	case ILPI_MC_COLLECTIVE:
		return "collective (force_save_collectives)";
	case ILPI_MC_NOT_IN_ALLOWLIST:
		return "not in the recomputable allowlist";
	case ILPI_MC_RANDOM:
		return "random op";
	case ILPI_MC_COMPUTE_INTENSIVE:
		return "compute-intensive op";
	case ILPI_MC_MATERIALIZED_BACKWARD:
		return "materialized in the backward";
	case ILPI_MC_DIST_FROM_BW:
		return "farther than max_dist_from_bw from the backward";
	case ILPI_MC_REDUCTION:
		return "reduction (output 4x smaller than its inputs)";
	case ILPI_MC_USED_FAR_APART:
		return "used far apart";
	case ILPI_MC_LONG_FUSIBLE_CHAIN:
		return "ends a long fusible chain";
	case ILPI_MC_UNSAFE:
		return "random (RNG not functionalized) or effectful";
	case ILPI_MC_RULE:
		return "may not be recomputed (ilpart's hard rules: tag, random, effectful, "
		    "collective, getitem of such a tuple)";
	}
	return "?";
}

/* ---- the heuristic's state ------------------------------------------------------ */

typedef struct mc {
	const ilp_graph *g;
	const ilpi_mincut_options *o;
	int torch;          /* ILPI_TORCH_2_6 or ILPI_TORCH_2_14 */
	int free_params;    /* treat_parameters_as_free_to_save in effect */
	size_t n;
	uint8_t *live;      /* needed by some output (torch runs DCE first) */
	uint8_t *ot;        /* OT_* */
	uint8_t *rc;        /* must_recompute after cleanup_recompute_tags */
	uint8_t *save;      /* ilpi_mc_ban reason of a MUST_SAVE-like tag, 0 none */
	uint8_t *ban;       /* ilpi_mc_ban; nonzero = in torch's banned_nodes */
	uint8_t *in_sink;   /* node_in -> sink */
	uint8_t *out_sink;  /* node_out -> sink (a primal returned as a gradient) */
	int32_t *order;     /* fw_order, -1 outside the forward */
	int64_t *dist;      /* dist_from_bw */
	unsigned *opc;      /* ilpi_op_class per node */
	ilpi_ban_config bc; /* should_ban_recomputation's switches (policies/bans.c) */
	ilpi_ban_ctx bans;
	ilpi_rules rules;   /* the hard rules (policies/rules.c, no bans): the ILP's */
	int have_rules;
	double *weight;     /* node_in -> node_out capacity, -1 when there is no edge */
	int32_t *heap;      /* scratch: binary min-heap of node indices (duplicates kept) */
	size_t nheap, cap_heap;
	uint32_t *stamp;    /* scratch marks */
	uint32_t cur;
	int32_t *stack;
	int oom;            /* a heap push failed */
	int far, chain;
	const uint8_t *dont_ban; /* torch's dont_ban set (budget path), or NULL */
} mc;

static void
mc_free(mc *m)
{
	free(m->live);
	free(m->ot);
	free(m->rc);
	free(m->save);
	free(m->ban);
	free(m->in_sink);
	free(m->out_sink);
	free(m->order);
	free(m->dist);
	free(m->opc);
	ilpi_ban_ctx_free(&m->bans);
	if (m->have_rules)
		ilpi_rules_free(&m->rules);
	free(m->weight);
	free(m->heap);
	free(m->stamp);
	free(m->stack);
}

static int
op_classes(mc *m)
{
	if ((m->opc = malloc((m->n + 1) * sizeof *m->opc)) == NULL ||
	    ilpi_op_classes(m->g, m->opc) != 0)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		if (m->torch == ILPI_TORCH_2_14)
			m->opc[i] = op_class_2_14(m->g->node[i].target, m->opc[i]);
		m->ot[i] = op_flags(&m->g->node[i], m->opc[i]);
	}
	return 0;
}

static int
mc_alloc(mc *m, const ilp_graph *g, int torch)
{
	size_t n = g->n + 1;

	memset(m, 0, sizeof *m);
	m->g = g;
	m->torch = torch;
	m->n = g->n;
	m->live = calloc(n, 1);
	m->ot = calloc(n, 1);
	m->rc = calloc(n, 1);
	m->save = calloc(n, 1);
	m->ban = calloc(n, 1);
	m->in_sink = calloc(n, 1);
	m->out_sink = calloc(n, 1);
	m->order = malloc(n * sizeof *m->order);
	m->dist = calloc(n, sizeof *m->dist);
	m->weight = malloc(n * sizeof *m->weight);
	m->stamp = calloc(n, sizeof *m->stamp);
	m->stack = malloc(n * sizeof *m->stack);
	m->cap_heap = n;
	m->heap = malloc(m->cap_heap * sizeof *m->heap);
	if (m->live == NULL || m->ot == NULL || m->rc == NULL || m->save == NULL ||
	    m->ban == NULL || m->in_sink == NULL || m->out_sink == NULL ||
	    m->order == NULL || m->dist == NULL || m->weight == NULL ||
	    m->stamp == NULL || m->stack == NULL || m->heap == NULL)
		return -1;
	for (size_t i = 0; i < g->n; i++) {
		m->order[i] = -1;
		m->weight[i] = -1;
	}
	return op_classes(m);
}

/* Live as graph/classify.c defines it (torch runs DCE first; placeholders stay). */
static void
mark_live(const ilp_graph *g, uint8_t *live)
{
	for (size_t i = 0; i < g->n; i++)
		live[i] = (uint8_t)ilpi_live(&g->node[i]);
}

static inline int
fw(const mc *m, size_t i)
{
	return m->live[i] && m->g->node[i].cls == ILPI_FORWARD;
}

static inline int
output_user(const mc *m, size_t i)
{
	return (m->g->node[i].flags & (ILPI_F_FW_OUTPUT | ILPI_F_BW_OUTPUT)) != 0;
}

/* torch's is_fusible(a, b) for a real user b. */
static inline int
fusible(const mc *m, size_t a, size_t b)
{
	return ilpi_fusible(m->opc, a, b);
}

#define FOR_USERS(m, i, u)							\
	for (uint32_t u##_k = 0, u = 0; u##_k < (m)->g->node[i].use_count; u##_k++)	\
		if ((u = (uint32_t)ilpi_users((m)->g, &(m)->g->node[i])[u##_k]), \
		    !(m)->live[u]) {						\
		} else

/* must_recompute after cleanup_recompute_tags (graph/region.c) and
 * force_save_collectives. */
static void
read_tags(mc *m)
{
	const ilp_graph *g = m->g;

	for (size_t i = 0; i < m->n; i++) {
		const ilpi_node *n = &g->node[i];
		ilpi_tag t = ilpi_sac_tag(g, i);

		if (!m->live[i])
			continue;
		m->rc[i] = (uint8_t)ilpi_tag_binds_recompute(t, m->o->prefer);
		if (ilpi_tag_binds_save(t, m->o->prefer))
			m->save[i] = ILPI_MC_MUST_SAVE;
		if (m->rc[i] && ilpi_region_end(g, i, m->o->prefer) >= 0) {
			m->rc[i] = 0;
			m->save[i] = ILPI_MC_REGION_END;
		}
		if (!m->rc[i] && !m->save[i] && n->kind == ILPI_OP &&
		    !m->o->unsafe_allow_optimization_of_collectives &&
		    ((n->flags & ILPI_F_COLLECTIVE) ||
		    (n->target != NULL && strncmp(n->target, "_c10d_functional.", 17) == 0)))
			m->save[i] = ILPI_MC_COLLECTIVE;
	}
}

static void
classify_ops(mc *m)
{
	const ilp_graph *g = m->g;
	int32_t cnt = 0;

	(void)g;
	for (size_t i = 0; i < m->n; i++)
		if (fw(m, i))
			m->order[i] = cnt++;
}

static void
compute_dist(mc *m)
{
	for (size_t i = m->n; i-- > 0;) {
		int64_t d = 1000000000;

		if (!m->live[i])
			continue;
		if (!fw(m, i)) {
			m->dist[i] = 0;
			continue;
		}
		FOR_USERS(m, i, u)
			if (m->dist[u] + 1 < d)
				d = m->dist[u] + 1;
		m->dist[i] = d;
	}
}

/* torch's is_materialized (for the weight): a placeholder, or a node some user
 * cannot fuse. */
static int
materialized(const mc *m, size_t i)
{
	if (m->g->node[i].kind != ILPI_OP || output_user(m, i))
		return 1;
	FOR_USERS(m, i, u)
		if (!fusible(m, i, u))
			return 1;
	return 0;
}

/* should_ban_recomputation: the tag checks, then torch's op rules (policies/bans.c). */
static ilpi_mc_ban
should_ban(mc *m, size_t i)
{
	const ilpi_node *n = &m->g->node[i];

	if (n->kind != ILPI_OP || (m->ot[i] & OT_GETITEM) || is_get_attr(n))
		return ILPI_MC_FREE;
	if (m->save[i])
		return (ilpi_mc_ban)m->save[i];
	switch (ilpi_should_ban(&m->bans, i)) {
	case ILPI_BAN_NONE:
		break;
	case ILPI_BAN_NOT_IN_ALLOWLIST:
		return ILPI_MC_NOT_IN_ALLOWLIST;
	case ILPI_BAN_RANDOM:
		return ILPI_MC_RANDOM;
	case ILPI_BAN_COMPUTE_INTENSIVE:
		return ILPI_MC_COMPUTE_INTENSIVE;
	case ILPI_BAN_MATERIALIZED_BACKWARD:
		return ILPI_MC_MATERIALIZED_BACKWARD;
	case ILPI_BAN_DIST_FROM_BW:
		return ILPI_MC_DIST_FROM_BW;
	case ILPI_BAN_REDUCTION:
		return ILPI_MC_REDUCTION;
	}
	return ILPI_MC_FREE;
}

/* torch's ban_recomputation_if_allowed. */
static int
ban_if_allowed(mc *m, size_t i, ilpi_mc_ban why)
{
	if ((m->ot[i] & OT_VIEW) || m->rc[i])
		return 0;
	if (m->dont_ban != NULL && m->dont_ban[i] && why != ILPI_MC_UNSAFE)
		return 0;
	if (m->g->node[i].flags & ILPI_F_SYM_FLOAT)
		return 0; /* torch never bans a SymFloat */
	if (!m->ban[i])
		m->ban[i] = (uint8_t)why;
	return 1;
}

static double
node_weight(const mc *m, size_t i)
{
	const ilpi_node *n = &m->g->node[i];
	int64_t k = m->dist[i];
	double w;

	if (n->flags & ILPI_F_SYM) /* is_sym_node: sym_node_size, whatever the distance */
		return (n->flags & ILPI_F_SYM_FLOAT) ? 4 : 1;
	if (m->free_params && n->kind == ILPI_PRIMAL && (n->flags & ILPI_F_PARAM))
		return 0; /* treat_parameters_as_free_to_save: a static-lifetime input */
	if ((n->flags & ILPI_F_TUPLE) || is_get_attr(n))
		return INFINITY; /* is_non_tensor_node */
	if (m->o->recompute_views && (m->ot[i] & OT_VIEW))
		return INFINITY;
	k = k > 100 ? 100 : k;
	k = k < 1 ? 1 : k;
	w = trunc((double)n->bytes * pow(1.1, (double)k));
	return materialized(m, i) ? w : 2 * w;
}

/* A hard rule that comes from a SAC tag as ilpart reads it (graph/region.c): the node's
 * tag, a getitem's tuple's, a view's MUST_SAVE base, a region end. */
static int
tag_reason(uint8_t why)
{
	return why == ILPI_WHY_TAG || why == ILPI_WHY_GETITEM || why == ILPI_WHY_VIEW ||
	    why == ILPI_WHY_BOUNDARY;
}

/* torch 2.14's rules: the tags bind as torch reads them, not as ilpart's hard rules do,
 * so that min-cut gives torch's own partition and the checker names where it breaks a
 * tag (torch's should_ban_recomputation passes over a getitem before its MUST_SAVE
 * check: a region ending in a LayerNorm output, a getitem, is recomputed). The other
 * hard rules (mutated inputs, random and effectful ops, primals, tuples) stay. */
static void
torch_reads_tags(mc *m)
{
	for (size_t i = 0; i < m->n; i++) {
		if ((m->rules.bits[i] & ILPI_R_NO_SAVE) && tag_reason(m->rules.why_no_save[i]))
			m->rules.bits[i] &= (uint8_t)~ILPI_R_NO_SAVE;
		if ((m->rules.bits[i] & ILPI_R_NO_RECOMPUTE) &&
		    tag_reason(m->rules.why_no_recompute[i]))
			m->rules.bits[i] &= (uint8_t)~ILPI_R_NO_RECOMPUTE;
	}
}

/* The main loop of solve_min_cut, before the edges. */
static void
main_loop(mc *m)
{
	const ilp_graph *g = m->g;

	for (size_t i = 0; i < m->n; i++) {
		const ilpi_node *n = &g->node[i];
		unsigned hard = m->have_rules ?
		    m->rules.bits[i] & (ILPI_R_NO_SAVE | ILPI_R_NO_RECOMPUTE) : 0;
		ilpi_mc_ban why;

		if (!m->live[i])
			continue;
		if (n->cls == ILPI_BACKWARD) {
			m->in_sink[i] = 1;
			continue;
		}
		/* torch's required_bw_nodes also hold the backward outputs, a forward op
		 * among them too: in torch 2.6 it runs in the backward, unbanned and never
		 * saved (torch 2.14 only asks for its value, as for a primal: it is not in
		 * the tangents' closure); and a must-recompute node goes to the sink.
		 * Unless the hard rules forbid recomputing it: then it must be saved (a
		 * gradient) or is banned and unsaveable, a conflict exactly when the
		 * backward needs it, as for the ILP (torch would recompute it against the
		 * rule, or fail). */
		if (n->kind == ILPI_OP && (n->flags & ILPI_F_BW_OUTPUT) &&
		    m->torch == ILPI_TORCH_2_6 && !(hard & ILPI_R_NO_RECOMPUTE)) {
			m->in_sink[i] = 1;
			continue;
		}
		if (n->flags & ILPI_F_BW_OUTPUT)
			m->out_sink[i] = 1;
		if (m->rc[i] && !(hard & ILPI_R_NO_RECOMPUTE)) {
			m->in_sink[i] = 1;
			continue;
		}
		if (n->kind == ILPI_PRIMAL)
			ban_if_allowed(m, i, ILPI_MC_PRIMAL);
		if (fw(m, i) && (why = should_ban(m, i)) != ILPI_MC_FREE)
			ban_if_allowed(m, i, why);
		/* Under a memory budget torch's rules alone decide on random ops: one they
		 * let be recomputed replays its RNG state (docs/mincut.md, "Memory budget"). */
		if (n->kind == ILPI_OP && !m->ban[i] &&
		    (((n->flags & ILPI_F_RANDOM) && !g->rng_functionalized &&
		    !(m->o->activation_memory_budget < 1)) ||
		    (n->flags & ILPI_F_EFFECTFUL)))
			ban_if_allowed(m, i, ILPI_MC_UNSAFE);
		/* The hard rules hold whatever torch's exemptions (views, dont_ban). */
		if ((hard & ILPI_R_NO_RECOMPUTE) && !m->ban[i])
			m->ban[i] = n->kind == ILPI_PRIMAL ? ILPI_MC_PRIMAL : ILPI_MC_RULE;
		m->weight[i] = (hard & ILPI_R_NO_SAVE) ? INFINITY : node_weight(m, i);
	}
}

static void
heap_push(mc *m, int32_t v)
{
	size_t k;

	if (ILPI_GROW(m->heap, m->cap_heap, m->nheap, 1) != 0) {
		m->oom = 1;
		return;
	}
	k = m->nheap++;
	while (k > 0 && m->heap[(k - 1) / 2] > v) {
		m->heap[k] = m->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	m->heap[k] = v;
}

static int32_t
heap_pop(mc *m)
{
	int32_t top = m->heap[0], v = m->heap[--m->nheap];
	size_t k = 0;

	for (;;) {
		size_t c = 2 * k + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && m->heap[c + 1] < m->heap[c])
			c++;
		if (m->heap[c] >= v)
			break;
		m->heap[k] = m->heap[c];
		k = c;
	}
	if (m->nheap > 0)
		m->heap[k] = v;
	return top;
}

/* find_first_unfusible: the first forward order (<= max_range) reached from the
 * start nodes through fusible edges and entered through an unfusible one. Node
 * indices order the heap, as fw_order does (both follow graph order). */
static int32_t
first_unfusible(mc *m, size_t used, int32_t max_range)
{
	int32_t best = max_range;

	m->cur++;
	m->nheap = 0;
	FOR_USERS(m, used, s)
		if (fw(m, s) && m->stamp[s] != m->cur) {
			m->stamp[s] = m->cur;
			heap_push(m, (int32_t)s);
		}
	while (m->nheap > 0) {
		size_t c = (size_t)heap_pop(m);

		if (m->order[c] >= best)
			break;
		FOR_USERS(m, c, u) {
			if (!fw(m, u) || m->order[u] > max_range)
				continue;
			if (!fusible(m, c, u)) {
				if (m->order[u] < best)
					best = m->order[u];
			} else if (m->stamp[u] != m->cur) {
				m->stamp[u] = m->cur;
				heap_push(m, (int32_t)u);
			}
		}
	}
	return best;
}

static void
ban_used_far_apart(mc *m)
{
	for (size_t i = 0; i < m->n; i++) {
		int32_t max_order = -1, first;

		if (!fw(m, i))
			continue;
		FOR_USERS(m, i, u)
			if (fw(m, u) && m->order[u] > max_order)
				max_order = m->order[u];
		if (max_order < 0)
			continue;
		first = first_unfusible(m, i, max_order);
		FOR_USERS(m, i, u)
			if (fw(m, u) && m->order[u] > first && fusible(m, i, u) && !m->ban[u])
				ban_if_allowed(m, u, ILPI_MC_USED_FAR_APART);
	}
}

/* Breaks fusible chains longer than 100 forward nodes; the visited set is shared
 * by all start nodes and the heap keeps duplicates, as torch's does. */
static void
ban_long_chains(mc *m)
{
	uint8_t *visited = (uint8_t *)m->stack; /* free scratch of n bytes at least */

	memset(visited, 0, m->n);
	for (size_t s = 0; s < m->n; s++) {
		int32_t start_order;

		if (!fw(m, s))
			continue;
		start_order = m->order[s];
		m->nheap = 0;
		heap_push(m, (int32_t)s);
		while (m->nheap > 0) {
			size_t c = (size_t)heap_pop(m);

			if (visited[c])
				continue;
			visited[c] = 1;
			if (m->order[c] > start_order + 100 && m->nheap == 0) {
				ban_if_allowed(m, c, ILPI_MC_LONG_FUSIBLE_CHAIN);
				break;
			}
			FOR_USERS(m, c, u)
				if (fw(m, u) && fusible(m, c, u) && !m->ban[u])
					heap_push(m, (int32_t)u);
		}
	}
}

/* ---- network, cut, completion --------------------------------------------------- */

static void
vertex_name(const ilp_graph *g, int32_t v, char *buf, size_t size)
{
	size_t n = g->n;

	if ((size_t)v == 2 * n)
		snprintf(buf, size, "source");
	else if ((size_t)v == 2 * n + 1)
		snprintf(buf, size, "sink");
	else
		snprintf(buf, size, "'%s'_%s", g->node[v / 2].name, (v & 1) ? "out" : "in");
}

static void
report_unbounded(const ilp_graph *g, const ilpi_flow *f, ilp_error *err)
{
	int32_t path[16];
	size_t len = ilpi_flow_inf_path(f, path, 16);
	char buf[700];
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < len && k < 16 && pos < 500; k++) {
		char name[200];

		vertex_name(g, path[k], name, sizeof name);
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%s", k ? " -> " : "",
		    name);
	}
	ilpi_err(err, ILP_ERR_CONFLICT, "%s: min-cut: conflict: no finite cut (torch's networkx "
	    "raises NetworkXUnbounded): infinite path %s%s", g->path, buf, len > 16 ? " ..." : "");
}

/* Builds the network from live/weight/ban/in_sink/out_sink, solves, and sets
 * saved[i] for the cut nodes. */
static int
cut(const ilp_graph *g, const uint8_t *live, const double *weight, const uint8_t *ban,
    const uint8_t *in_sink, const uint8_t *out_sink, uint8_t *saved, double *value,
    ilp_error *err)
{
	size_t n = g->n;
	int32_t s = (int32_t)(2 * n), t = (int32_t)(2 * n + 1);
	ilpi_flow *f = ilpi_flow_new(2 * n + 2);
	uint8_t *side = malloc(2 * n + 2);
	int rc = -1, fr;

	if (f == NULL || side == NULL)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const ilpi_node *nd = &g->node[i];
		int32_t vin = (int32_t)(2 * i), vout = vin + 1;

		if (!live[i])
			continue;
		if (in_sink[i] && ilpi_flow_add(f, vin, t, INFINITY) < 0)
			goto nomem;
		if (out_sink[i] && ilpi_flow_add(f, vout, t, INFINITY) < 0)
			goto nomem;
		if (ban[i] && ilpi_flow_add(f, s, vin, INFINITY) < 0)
			goto nomem;
		if (weight[i] < 0)
			continue;
		if (ilpi_flow_add(f, vin, vout, weight[i]) < 0)
			goto nomem;
		for (uint32_t k = 0; k < nd->use_count; k++) {
			int32_t u = ilpi_users(g, nd)[k];

			if (live[u] && ilpi_flow_add(f, vout, (int32_t)(2 * u), INFINITY) < 0)
				goto nomem;
		}
	}
	fr = ilpi_flow_solve(f, s, t, value);
	if (fr == ILPI_FLOW_UNBOUNDED) {
		report_unbounded(g, f, err);
		goto out;
	}
	if (fr != ILPI_FLOW_OK || ilpi_flow_sink_side(f, side) != 0)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		saved[i] = live[i] && weight[i] >= 0 && !side[2 * i] && side[2 * i + 1];
	rc = 0;
	goto out;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: min-cut: out of memory", g->path);
out:
	ilpi_flow_free(f);
	free(side);
	return rc;
}

int
ilpi_mincut_pure(const ilp_graph *g, const double *weight, const uint8_t *banned,
    uint8_t *saved, double *value, ilp_error *err)
{
	mc m;
	int rc = -1;

	if (mc_alloc(&m, g, ILPI_TORCH_NEWEST) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		goto out;
	}
	mark_live(g, m.live);
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];

		if (!m.live[i])
			continue;
		if (n->cls == ILPI_BACKWARD) {
			m.in_sink[i] = 1;
			continue;
		}
		m.out_sink[i] = n->kind == ILPI_PRIMAL && (n->flags & ILPI_F_BW_OUTPUT);
		m.ban[i] = n->kind == ILPI_PRIMAL || (banned != NULL && banned[i]);
		m.weight[i] = weight[i] < 0 ? 0 : weight[i];
	}
	rc = cut(g, m.live, m.weight, m.ban, m.in_sink, m.out_sink, saved, value, err);
out:
	mc_free(&m);
	return rc;
}

static int
fill_info(const mc *m, ilpi_mincut_info *info, double value)
{
	size_t n = m->n + 1;

	memset(info, 0, sizeof *info);
	info->n = m->n;
	info->weight = malloc(n * sizeof *info->weight);
	info->ban = malloc(n);
	info->must_recompute = malloc(n);
	info->dist_from_bw = malloc(n * sizeof *info->dist_from_bw);
	if (info->weight == NULL || info->ban == NULL || info->must_recompute == NULL ||
	    info->dist_from_bw == NULL)
		return -1;
	memcpy(info->weight, m->weight, m->n * sizeof *info->weight);
	memcpy(info->ban, m->ban, m->n);
	memcpy(info->must_recompute, m->in_sink, m->n);
	memcpy(info->dist_from_bw, m->dist, m->n * sizeof *info->dist_from_bw);
	info->cut_value = value;
	return 0;
}

void
ilpi_mincut_info_free(ilpi_mincut_info *info)
{
	if (info == NULL)
		return;
	free(info->weight);
	free(info->ban);
	free(info->must_recompute);
	free(info->dist_from_bw);
	memset(info, 0, sizeof *info);
}

void
ilpi_mincut_switches(const ilpi_mincut_options *o, ilpi_mc_switches *sw)
{
	sw->far = o->ban_recompute_used_far_apart && !o->aggressive_recomputation;
	sw->chain = o->ban_recompute_long_fusible_chains && !o->aggressive_recomputation;
	sw->mat = o->ban_recompute_materialized_backward && !o->aggressive_recomputation;
	sw->allow = o->ban_recompute_not_in_allowlist && !o->aggressive_recomputation;
	sw->red = o->ban_recompute_reductions;
}

int
ilpi_mincut_cut(const ilp_graph *g, const ilpi_mincut_options *o, const ilpi_mc_switches *sw,
    const uint8_t *dont_ban, uint8_t *saved, uint8_t *banned, ilpi_mincut_info *info,
    ilp_error *err)
{
	ilpi_rule_options ro;
	double value = 0;
	mc m;
	int rc = -1;

	if (info != NULL)
		memset(info, 0, sizeof *info);
	if (mc_alloc(&m, g, ilpi_mincut_torch_rules(g, o)) != 0)
		goto nomem;
	m.o = o;
	m.free_params = o->treat_parameters_as_free_to_save >= 0 ?
	    o->treat_parameters_as_free_to_save != 0 : m.torch >= ILPI_TORCH_2_14;
	m.far = sw->far;
	m.chain = sw->chain;
	m.dont_ban = dont_ban;
	m.bc.not_in_allowlist = sw->allow;
	m.bc.materialized_backward = sw->mat;
	m.bc.reductions = sw->red;
	m.bc.recompute_views = o->recompute_views;
	m.bc.max_dist_from_bw = o->max_dist_from_bw;
	if (ilpi_ban_ctx_init(&m.bans, g, m.opc, &m.bc, m.dist) != 0)
		goto nomem;
	/* Without a budget the ILP's hard rules hold in the network too; torch's budget
	 * path lifts tag bans (its knapsack), which is reproduced as is. */
	ilpi_rule_options_init(&ro);
	ro.prefer = o->prefer;
	ro.bans = ILP_BANS_NONE;
	ro.rng_replay = 1; /* torch functionalises the RNG of random ops it recomputes */
	if (!(o->activation_memory_budget < 1)) {
		if (ilpi_rules_build(g, &ro, &m.rules, err) != 0)
			goto out;
		m.have_rules = 1;
		if (m.torch >= ILPI_TORCH_2_14)
			torch_reads_tags(&m);
	}
	mark_live(g, m.live);
	classify_ops(&m);
	read_tags(&m);
	compute_dist(&m);
	main_loop(&m);
	if (m.far)
		ban_used_far_apart(&m);
	if (m.chain)
		ban_long_chains(&m);
	if (m.oom)
		goto nomem;
	if (cut(g, m.live, m.weight, m.ban, m.in_sink, m.out_sink, saved, &value, err) != 0)
		goto out;
	if (banned != NULL)
		for (size_t i = 0; i < g->n; i++)
			banned[i] = m.ban[i] != ILPI_MC_UNSAFE && m.ban[i] != ILPI_MC_RULE ?
			    m.ban[i] : ILPI_MC_FREE;
	if (info != NULL && fill_info(&m, info, value) != 0)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	ilpi_err(err, ILP_ERR_SYSTEM, "%s: min-cut: out of memory", g->path);
out:
	if (rc != 0 && info != NULL)
		ilpi_mincut_info_free(info);
	mc_free(&m);
	return rc;
}

/* torch's _extract_fwd_bwd_modules keeps a saved value when the backward graph it
 * extracts still reads it after dead-code elimination. That graph holds every op whose
 * arguments the backward has (the saved values, the tangents, what it computes from
 * them), in graph order, and FX's elimination keeps impure ops: a wait_tensor of a
 * collective (both torches) stays, with the collective and the saved value that feeds
 * it, though no gradient needs them. Torch 2.14 then drops a saved value whose only
 * users are such waits with no users themselves (its "dead activation" peek, one node
 * deep). A forward all-reduce the backward does not need, whose input min-cut saves
 * (a MUST_SAVE matmul before a PREFER_RECOMPUTE collective in a SAC region under tensor
 * parallelism), so stays saved in torch's partition: ilpart's completion, which drops
 * every saved value no gradient needs, gives those back. Random ops, impure for
 * torch 2.14's elimination too, are not followed (no graph here has shown one). */
static int
is_wait(const ilpi_node *n)
{
	return n->kind == ILPI_OP && n->target != NULL &&
	    of_packet(n->target, "_c10d_functional.wait_tensor");
}

static int
keep_dead_saves(const ilp_graph *g, int rules, const uint8_t *cut, ilp_partition *p)
{
	uint8_t *valid = calloc(g->n + 1, 1), *live = calloc(g->n + 1, 1);

	if (valid == NULL || live == NULL) {
		free(valid);
		free(live);
		return -1;
	}
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);

		if (cut[i] || n->kind == ILPI_TANGENT) {
			valid[i] = 1;
			continue;
		}
		if (n->kind != ILPI_OP || n->cls == ILPI_DEAD)
			continue;
		valid[i] = 1;
		for (uint32_t k = 0; k < n->in_count && valid[i]; k++)
			valid[i] = valid[in[k]];
	}
	for (size_t k = 0; k < g->n_bw_out; k++)
		if (g->bw_out[k] != ILPI_NONE && valid[g->bw_out[k]])
			live[g->bw_out[k]] = 1;
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];

		if (!valid[i] || cut[i] || n->kind == ILPI_TANGENT)
			continue; /* placeholders of the backward graph end the walk */
		if (is_wait(n))
			live[i] = 1;
		for (uint32_t k = 0; k < n->use_count && !live[i]; k++)
			live[i] = live[ilpi_users(g, n)[k]] && !cut[ilpi_users(g, n)[k]];
	}
	for (size_t i = 0; i < g->n; i++) {
		const ilpi_node *n = &g->node[i];
		int users = 0, dead_waits = 0;

		if (!cut[i] || ilpi_saved(p, i))
			continue;
		for (uint32_t k = 0; k < n->use_count; k++) {
			int32_t u = ilpi_users(g, n)[k];
			int u_users = 0;

			if (!valid[u] || !live[u] || cut[u])
				continue;
			users++;
			for (uint32_t j = 0; j < g->node[u].use_count; j++) {
				int32_t w = ilpi_users(g, &g->node[u])[j];

				u_users += live[w] && !cut[w]; /* a saved w is an input there */
			}
			dead_waits += is_wait(&g->node[u]) && u_users == 0;
		}
		if (users > 0 && !(rules >= ILPI_TORCH_2_14 && dead_waits == users))
			p->state[i] |= ILPI_P_SAVED;
	}
	free(valid);
	free(live);
	return 0;
}

int
ilpi_mincut_run(const ilp_graph *g, const ilpi_mincut_options *o, ilp_partition **out,
    ilpi_mincut_info *info, ilp_error *err)
{
	ilp_partition *p = NULL;
	ilp_check_options co;
	ilpi_mc_switches sw;
	ilpi_mincut_info own;
	uint8_t *saved = NULL;
	int rc = -1;

	*out = NULL;
	if (info == NULL)
		info = &own; /* for the cut value */
	memset(info, 0, sizeof *info);
	if ((saved = calloc(g->n + 1, 1)) == NULL || (p = ilp_partition_new(g)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: min-cut: out of memory", g->path);
		goto fail;
	}
	ilpi_mincut_switches(o, &sw);
	if (o->activation_memory_budget < 1) {
		if (ilpi_mincut_budget(g, o, saved, info, err) != 0)
			goto fail;
	} else if (ilpi_mincut_cut(g, o, &sw, NULL, saved, NULL, info, err) != 0) {
		goto fail;
	} else {
		ilpi_mincut_bounds_of(g, saved, &info->budget_min_bytes, &info->budget_max_bytes);
	}
	for (size_t i = 0; i < g->n; i++)
		if (saved[i])
			p->state[i] |= ILPI_P_SAVED;
	ilpi_partition_complete(g, p, 1);
	if (keep_dead_saves(g, ilpi_mincut_torch_rules(g, o), saved, p) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: min-cut: out of memory", g->path);
		goto fail;
	}
	ilpi_partition_mark_rng(g, p);
	ilpi_partition_set_producer(p, "mincut", "", ilp_prefer_name(o->prefer), "heuristic");
	p->objective_value = info->cut_value;
	if (ilp_partition_evaluate(g, p, &o->device, err) != 0)
		goto fail;
	if (o->check) {
		co.prefer = o->prefer;
		if (ilp_check(g, p, &co, err) != 0) {
			char msg[sizeof err->msg];

			snprintf(msg, sizeof msg, "%s", err->msg);
			/* ILP_ERR_VIOLATION: the heuristic's answer breaks a rule the ILP
			 * keeps (the CLI reports it as a conflict, exit 3). */
			ilpi_err(err, ILP_ERR_VIOLATION, "%s: min-cut: conflict: torch %s's rules "
			    "give a partition that ilpart's checker rejects in prefer mode %s: %s",
			    g->path, ilpi_mincut_torch_name(ilpi_mincut_torch_rules(g, o)),
			    ilp_prefer_name(o->prefer), msg);
			goto fail;
		}
	}
	*out = p;
	p = NULL;
	rc = 0;
fail:
	if (rc != 0 || info == &own)
		ilpi_mincut_info_free(info);
	ilp_partition_free(p);
	free(saved);
	return rc;
}

int
ilp_mincut(const ilp_graph *g, const ilp_solve_options *o, ilp_partition **out,
    ilp_error *err)
{
	ilpi_mincut_options mo;
	ilp_solve_options def;

	ilpi_err_clear(err);
	ilpi_mincut_options_init(&mo);
	if (o == NULL) {
		ilp_solve_options_init(&def);
		def.prefer = mo.prefer;
		o = &def;
	}
	ilpi_mincut_options_from_solve(&mo, o);
	if (ilpi_mincut_run(g, &mo, out, NULL, err) != 0)
		return -1;
	ilpi_partition_record(*out, g, o);
	return 0;
}
