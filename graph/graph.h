/*
 * graph.h - ilpart's joint-graph model (internal; shared by every module).
 *
 * Sized for 100k-node graphs: nodes live in one array in topological order, edges in
 * CSR arrays of node indices, names and strings are interned once in the graph's pool.
 * A graph is built by the JSON reader (or by tests through the builder below), then
 * frozen by ilpi_graph_finish(), which resolves storage roots, builds the user lists
 * and classifies nodes. After that it is read-only, except for tags that policies set.
 */
#ifndef ILPART_GRAPH_GRAPH_H
#define ILPART_GRAPH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "ilpart.h"
#include "graph/intern.h"

typedef enum ilpi_kind {
	ILPI_PRIMAL = 0,
	ILPI_TANGENT,
	ILPI_OP
} ilpi_kind;

typedef enum ilpi_tag {
	ILPI_TAG_NONE = 0,
	ILPI_TAG_MUST_SAVE,
	ILPI_TAG_PREFER_SAVE,
	ILPI_TAG_MUST_RECOMPUTE,
	ILPI_TAG_PREFER_RECOMPUTE,
	/* newer torch (2.14): saved and offloaded to CPU; for the partition, saved (graph/region.h) */
	ILPI_TAG_MUST_CPU_OFFLOAD,
	ILPI_TAG_PREFER_CPU_OFFLOAD
} ilpi_tag;

/*
 * Classification, docs/format.md "Classification": the one definition of forward,
 * backward and live that the rules, the reduction, min-cut and the checker share
 * (graph/classify.c). Invariants: the inputs of a live node are live; the inputs of a
 * forward or unclaimed node are forward or unclaimed. Primals are always forward,
 * tangents always backward, so only ops are ever dead.
 */
typedef enum ilpi_class {
	ILPI_DEAD = 0,   /* an op needed by no output: as if removed (PyTorch's DCE) */
	ILPI_FORWARD,    /* primal, or needed by the forward outputs */
	ILPI_BACKWARD,   /* tangent; live op using a backward node; backward output op */
	ILPI_UNCLAIMED   /* live op from primals only, needed only by the backward */
} ilpi_class;

enum {
	ILPI_F_RANDOM = 1u << 0,
	ILPI_F_EFFECTFUL = 1u << 1,
	ILPI_F_COLLECTIVE = 1u << 2,
	ILPI_F_TUPLE = 1u << 3,    /* returns a tuple, consumed through getitem */
	ILPI_F_GETITEM = 1u << 4,
	ILPI_F_BOUNDARY = 1u << 5, /* non-backward value used by the backward (set by classify) */
	ILPI_F_FW_OUTPUT = 1u << 6,
	ILPI_F_BW_OUTPUT = 1u << 7,
	ILPI_F_MUTATED = 1u << 8,  /* primal the forward writes in place (docs/format.md) */
	ILPI_F_PARAM = 1u << 9,    /* primal that is a module parameter or buffer: alive for
	                            * the whole run, so saving it costs no bytes */
	ILPI_F_NESTED = 1u << 10,  /* op with "nested_inputs": some inputs are not direct
	                            * positional arguments (ilpi_input_nested) */
	ILPI_F_SYM = 1u << 11,     /* a symbolic scalar (SymInt, SymBool, SymFloat): no tensor,
	                            * no storage (docs/format.md "sym") */
	ILPI_F_SYM_FLOAT = 1u << 12 /* with ILPI_F_SYM: a SymFloat */
};

#define ILPI_NONE (-1)
#define ILPI_UNKNOWN_COST (-1.0)
/* RNG state bytes when the graph does not say: a CUDA generator's (seed, offset). */
#define ILPI_RNG_STATE_BYTES 16

typedef struct ilpi_node {
	const char *name;     /* interned */
	const char *target;   /* interned; NULL for primals and tangents */
	const char *dtype;    /* interned canonical short name ("f32"), NULL if none */
	uint8_t kind;         /* ilpi_kind */
	uint8_t tag;          /* ilpi_tag */
	uint8_t cls;          /* ilpi_class */
	uint16_t flags;       /* ILPI_F_* */
	int32_t ac_graph_id;  /* ILPI_NONE outside any region */
	int32_t view_of;      /* node index or ILPI_NONE */
	int32_t storage;      /* root of the view_of chain; itself when not a view */
	int32_t index;        /* getitem index, ILPI_NONE otherwise */
	uint32_t in_begin, in_count;   /* into graph->in (ordered, may repeat) */
	uint32_t use_begin, use_count; /* into graph->use (distinct users, ascending) */
	uint32_t shape_begin;          /* into graph->shape */
	int32_t ndim;                  /* -1: no shape */
	int64_t bytes;                 /* size of this value */
	int64_t workspace;             /* bytes the op allocates and frees while it runs */
	double flops, bytes_read, bytes_written, time_us; /* ILPI_UNKNOWN_COST when absent */
} ilpi_node;

typedef struct ilpi_refpart {
	const char *name;     /* interned */
	int32_t *saved;       /* node indices, graph order */
	size_t n_saved;
	int32_t *recomputed;  /* NULL when the file gave none */
	size_t n_recomputed;
} ilpi_refpart;

struct ilp_graph {
	char *path;           /* file name used in messages */
	char *description;
	char *device;         /* "device": where it was captured ("cpu", "cuda:NAME"), or NULL */
	int rng_functionalized;
	int64_t rng_state_bytes; /* bytes of one saved RNG state (replaying a random op);
	                          * < 0: not given, ILPI_RNG_STATE_BYTES */
	/* The first node's (file order) "memory_budget", torch's node.meta["memory_budget"]
	 * (min-cut budget; ilpi_mincut_budget_of_graph); < 0: no node has one. */
	double memory_budget;
	int32_t memory_budget_node;
	/* meta.torch: the torch release that exported the graph, as written ("2.14.1"), or
	 * NULL; torch_version is its major * 100 + minor (214), 0 without one. min-cut
	 * follows that release's partitioner (docs/mincut.md "Which PyTorch"). */
	char *torch;
	int torch_version;
	ilpi_pool pool;

	ilpi_node *node;
	size_t n, cap;
	int32_t *in;          /* CSR inputs */
	size_t n_in, cap_in;
	/* Ascending positions into in[] of the inputs a node's "nested_inputs" names: inside
	 * a list, tuple or dict argument, or a keyword argument (docs/format.md); their
	 * nodes carry ILPI_F_NESTED. */
	uint32_t *nested;
	size_t n_nested, cap_nested;
	int32_t *use;         /* CSR users, built by finish */
	int64_t *shape;
	size_t n_shape, cap_shape;

	int32_t *fw_out;      /* forward outputs (node indices) */
	size_t n_fw_out;
	int32_t *bw_out;      /* backward outputs; ILPI_NONE for null */
	size_t n_bw_out;

	ilpi_refpart *ref;
	size_t n_ref;

	/* name -> index hash (open addressing over node indices) */
	int32_t *slot;
	size_t n_slot;
	size_t counts[4];     /* nodes per ilpi_class */

	/* Fingerprint of the graph as read or built (graph/fingerprint.c), computed by
	 * ilpi_graph_finish; policies retag the graph but leave it alone. */
	char fingerprint[65];
	/* The policy file last applied by ilp_policy_apply (recorded in partitions). */
	char *policy_name;
	char policy_sha256[65];
};

/* ---- builder (used by the reader and by tests) ---------------------------- */

ilp_graph *ilpi_graph_new(const char *path);
/* Room for `nodes` more nodes (array and name index), so adding them neither moves nor
 * rehashes anything: 0, or -1 when out of memory. */
int ilpi_graph_reserve(ilp_graph *g, size_t nodes);
/* Append a node; returns its index or -1 (duplicate name: err names it; or no memory).
 * Every field but inputs/shape is set afterwards through ilpi_graph_node(). */
long ilpi_graph_add(ilp_graph *g, const char *name, ilpi_kind kind, const char *target,
    ilp_error *err);
int ilpi_graph_add_input(ilp_graph *g, long node, int32_t input);
/* Input k of node (0 <= k < in_count) is nested (docs/format.md "nested_inputs"); the
 * node's positions must come in ascending order, nodes in the order of their inputs. */
int ilpi_graph_add_nested(ilp_graph *g, long node, uint32_t k);
/* Whether input k of n is nested: not a direct positional argument of its op. */
int ilpi_input_nested(const ilp_graph *g, const ilpi_node *n, uint32_t k);
int ilpi_graph_set_shape(ilp_graph *g, long node, const int64_t *dims, int ndim);
int ilpi_graph_set_outputs(ilp_graph *g, const int32_t *fw, size_t n_fw, const int32_t *bw,
    size_t n_bw);
/* Resolve storages, build users, classify, check cross-node rules. */
int ilpi_graph_finish(ilp_graph *g, ilp_error *err);

/* ilp_graph_read_buffer of a writable buffer (graph/json_read.c), which the reader may
 * change and which must outlive nothing it returns: what ilp_graph_read_file does with
 * the file's bytes. stream: the nodes are read as the text is parsed, the whole tree
 * only when that fails (the same graph or message either way; the fuzzer compares the
 * two); 0: the tree only. */
int ilpi_graph_read_own(char *buf, size_t len, const char *name, int stream,
    ilp_graph **out, ilp_error *err);

static inline ilpi_node *ilpi_graph_node(ilp_graph *g, long i) { return &g->node[i]; }
/* A graph without edges has no in/use arrays: NULL + 0 is undefined behaviour. */
static inline const int32_t *ilpi_inputs(const ilp_graph *g, const ilpi_node *n)
{
	return g->in != NULL ? g->in + n->in_begin : NULL;
}
static inline const int32_t *ilpi_users(const ilp_graph *g, const ilpi_node *n)
{
	return g->use != NULL ? g->use + n->use_begin : NULL;
}
/*
 * The readers of v's storage through views: every user of v and of each view walked
 * from it. A view w of x is walked when it is a user of x, or a user of a tuple op that
 * x feeds whose getitems name x as their base (split, unbind), and follow(w, ctx) is
 * not 0 (follow may be NULL: every such view). visit(u, ctx) sees every user of every
 * node walked, in the walk's order; a nonzero return stops the walk with that value.
 * stack holds cap entries; a view past it is not walked.
 */
int ilpi_view_readers(const ilp_graph *g, int32_t v, int32_t *stack, size_t cap,
    int (*follow)(int32_t w, void *ctx), int (*visit)(int32_t u, void *ctx), void *ctx);
/* Live: not removed by dead-code elimination. */
static inline int ilpi_live(const ilpi_node *n)
{
	return n->cls != ILPI_DEAD;
}
/* What a partition decides about: forward or unclaimed values, the only ones that
 * may be saved or executed again in the backward. */
static inline int ilpi_decided(const ilpi_node *n)
{
	return n->cls == ILPI_FORWARD || n->cls == ILPI_UNCLAIMED;
}
static inline int64_t ilpi_rng_state_bytes(const ilp_graph *g)
{
	return g->rng_state_bytes >= 0 ? g->rng_state_bytes : ILPI_RNG_STATE_BYTES;
}
static inline int64_t ilpi_storage_bytes(const ilp_graph *g, const ilpi_node *n)
{
	return g->node[n->storage].bytes;
}
/* The bytes storage root `key` (a node index, taken modulo n: a recomputed copy is
 * key + n) holds in memory while live, as the simulator counts them: an op's, not a
 * tuple's (its getitems own the storage) nor a symbolic scalar's (a Python number at
 * run time, never allocated; its `bytes` are what saving it is charged). Primals and
 * tangents belong to the caller: 0. */
static inline int64_t ilpi_live_bytes(const ilp_graph *g, int32_t key)
{
	const ilpi_node *r = &g->node[(size_t)key % g->n];

	return r->kind == ILPI_OP && !(r->flags & (ILPI_F_TUPLE | ILPI_F_SYM)) ? r->bytes : 0;
}
/* What saving n's storage costs in the solver's saved-bytes measure: its bytes, or 0
 * when the storage is a parameter's or buffer's (a "param" primal or a view of one),
 * which lives for the whole run whether saved or not (docs/solver.md "Memory budgets"). */
static inline int64_t ilpi_charged_bytes(const ilp_graph *g, const ilpi_node *n)
{
	const ilpi_node *r = &g->node[n->storage];

	return (r->flags & ILPI_F_PARAM) ? 0 : r->bytes;
}

/* ---- shared helpers ------------------------------------------------------- */

/* A torch version string ("2.6", "2.14.1", "2.7.0a0+git1234", "2.6.0+debian") ->
 * major * 100 + minor; -1 when it does not start with MAJOR.MINOR (digits, minor < 100). */
int ilpi_torch_version_parse(const char *s);
/* Bytes per element of a canonical dtype name, 0 when unknown. */
int ilpi_dtype_size(const char *dtype);
/* Canonical short name for a dtype spelling ("torch.float32" -> "f32"), NULL if unknown. */
const char *ilpi_dtype_canonical(const char *name);
const char *ilpi_kind_name(ilpi_kind k);
const char *ilpi_class_name(ilpi_class c);
const char *ilpi_tag_name(ilpi_tag t);          /* "MUST_SAVE" ..., "" for none */
int ilpi_tag_parse(const char *s, ilpi_tag *out); /* 0 ok, -1 unknown */

/* Error record helpers: printf-style, kind set, message truncated to one line. */
void ilpi_err(ilp_error *err, ilp_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ILP_ERR_NONE and an empty message; `err` may be NULL. Every public function that
 * takes an `err` calls it first (include/ilpart.h). */
void ilpi_err_clear(ilp_error *err);

#endif /* ILPART_GRAPH_GRAPH_H */
