/*
 * json_read.c - the joint-graph reader: JSON text -> ilp_graph (docs/format.md).
 *
 * Parsed documents (graph/json_parse.h) never leave this file. Every rejection is one line naming the file,
 * the node and the field. Nodes are added in a first pass so that inputs may be
 * resolved by name in a second; ilpi_graph_finish() then rejects forward references
 * (naming a cycle when there is one).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/json_parse.h"

#define MAX_BYTES 4611686018427387904.0 /* 2^62 */
#define MAX_DIMS 64

typedef struct reader {
	ilp_graph *g;
	ilp_error *err;
	const char *path;
	/* the last dtype string read, its interned canonical name and size: nodes mostly
	 * repeat the dtype before them */
	const char *dtype_raw, *dtype;
	int dtype_size;
} reader;

/* Appends s to buf (len bytes, *at used) as snprintf would, truncating at len - 1. */
static void
put(char *buf, size_t len, size_t *at, const char *s)
{
	while (*s != '\0' && *at + 1 < len)
		buf[(*at)++] = *s++;
	buf[*at] = '\0';
}

/* strcmp(a, b) == 0 for the short words of a node (keys, kinds): a call to the library's
 * strcmp costs more than the few bytes compared. */
static inline int
same_word(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return *a == *b;
}

/* "node 'x'" or "node #12" when the node has no usable name yet. */
static const char *
node_label(const ilpi_jv *obj, size_t idx, char *buf, size_t len)
{
	const ilpi_jv *name = ilpi_jv_get(obj, "name");
	size_t at = 0;

	if (ilpi_jv_is_string(name) && name->u.str[0] != '\0') {
		put(buf, len, &at, "node '");
		put(buf, len, &at, name->u.str);
		put(buf, len, &at, "'");
	} else {
		snprintf(buf, len, "node #%zu", idx);
	}
	return buf;
}

static int
fail(reader *r, const char *who, const char *field, const char *what)
{
	ilpi_err(r->err, ILP_ERR_INPUT, "%s: %s: field '%s': %s", r->path, who, field, what);
	return -1;
}

static int
get_count(reader *r, const char *who, const ilpi_jv *v, const char *field, double max,
    double *out)
{
	const char *why = ilpi_json_count_problem(ilpi_jv_is_number(v),
	    ilpi_jv_is_number(v) ? v->u.num : 0, max, 0);

	if (why != NULL)
		return fail(r, who, field, why);
	*out = v->u.num;
	return 0;
}

static int
get_int(reader *r, const char *who, const ilpi_jv *v, const char *field, double max, int64_t *out)
{
	double d;

	if (get_count(r, who, v, field, max, &d) != 0)
		return -1;
	if (d != floor(d))
		return fail(r, who, field, "expected an integer");
	*out = (int64_t)d;
	return 0;
}

static int
get_bool(reader *r, const char *who, const ilpi_jv *v, const char *field, int *out)
{
	if (!ilpi_jv_is_bool(v))
		return fail(r, who, field, "expected true or false");
	*out = ilpi_jv_is_true(v);
	return 0;
}

static int
read_shape(reader *r, const char *who, long idx, const ilpi_jv *v, int64_t *numel)
{
	int64_t dims[MAX_DIMS];
	double total = 1;
	int nd = 0;
	const ilpi_jv *d;

	if (!ilpi_jv_is_array(v))
		return fail(r, who, "shape", "expected an array of integers");
	ilpi_jv_each(d, v) {
		if (nd == MAX_DIMS)
			return fail(r, who, "shape", "more than 64 dimensions");
		if (get_int(r, who, d, "shape", MAX_BYTES, &dims[nd]) != 0)
			return -1;
		total *= (double)dims[nd++];
		if (total > MAX_BYTES)
			return fail(r, who, "shape", "element count overflows");
	}
	if (ilpi_graph_set_shape(r->g, idx, dims, nd) != 0) {
		ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
		return -1;
	}
	*numel = (int64_t)total;
	return 0;
}

static int
read_kind(reader *r, const char *who, const ilpi_jv *v, ilpi_kind *kind)
{
	if (v == NULL)
		return fail(r, who, "kind", "missing");
	if (!ilpi_jv_is_string(v))
		return fail(r, who, "kind", "expected a string");
	if (same_word(v->u.str, "op"))
		*kind = ILPI_OP;
	else if (same_word(v->u.str, "primal"))
		*kind = ILPI_PRIMAL;
	else if (same_word(v->u.str, "tangent"))
		*kind = ILPI_TANGENT;
	else {
		char msg[160];

		snprintf(msg, sizeof msg, "unknown kind '%.60s' (primal, tangent or op)",
		    v->u.str);
		return fail(r, who, "kind", msg);
	}
	return 0;
}

/* Every key a node may have (docs/format.md), plus the ignored "meta". */
static const char *const node_keys[] = {
	"name", "kind", "target", "inputs", "shape", "dtype", "bytes", "tuple", "index",
	"view_of", "flops", "bytes_read", "bytes_written", "time_us", "recompute",
	"ac_graph_id", "random", "effectful", "collective", "mutated", "param", "memory_budget",
	"nested_inputs", "meta", "sym", "workspace"
};

enum {
	K_NAME, K_KIND, K_TARGET, K_INPUTS, K_SHAPE, K_DTYPE, K_BYTES, K_TUPLE, K_INDEX,
	K_VIEW_OF, K_FLOPS, K_BYTES_READ, K_BYTES_WRITTEN, K_TIME_US, K_RECOMPUTE,
	K_AC_GRAPH_ID, K_RANDOM, K_EFFECTFUL, K_COLLECTIVE, K_MUTATED, K_PARAM, K_MEMORY_BUDGET,
	K_NESTED_INPUTS, K_META, K_SYM, K_WORKSPACE, K_COUNT
};

/* node_keys[] index of key s, K_COUNT when unknown. */
static int
key_index(const char *s)
{
	/* the keys by first letter: a node's fields are compared with one or two keys */
	static signed char first[26][4];
	static int ready;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		signed char t[26][4];

		memset(t, -1, sizeof t);
		for (int k = 0; k < K_COUNT; k++) {
			int c = node_keys[k][0] - 'a', j = 0;

			while (t[c][j] >= 0)
				j++;
			t[c][j] = (signed char)k;
		}
		memcpy(first, t, sizeof t);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	if (s[0] < 'a' || s[0] > 'z')
		return K_COUNT;
	for (int j = 0; j < 4 && first[s[0] - 'a'][j] >= 0; j++) {
		int k = first[s[0] - 'a'][j];

		if (same_word(node_keys[k] + 1, s + 1))
			return k;
	}
	return K_COUNT;
}

/* Rejects unknown and repeated keys: cJSON keeps both copies of a repeated key, and
 * which one would win differs between lookups, so a second "recompute" could silently
 * drop a SAC tag. On success field[k] is the node's field of key k (NULL: absent) and
 * ids[] the keys in the order of the fields. */
static int
check_node_keys(reader *r, const ilpi_jv *obj, const char *who, const ilpi_jv **field,
    uint8_t *ids)
{
	uint32_t seen = 0;
	size_t nf = 0;
	const ilpi_jv *f;

	for (int k = 0; k < K_COUNT; k++)
		field[k] = NULL;
	ilpi_jv_each(f, obj) {
		int k = key_index(f->key);

		if (k == K_COUNT)
			return fail(r, who, f->key, "unknown field");
		if (seen & (1u << k))
			return fail(r, who, f->key, "repeated field");
		seen |= 1u << k;
		field[k] = f;
		ids[nf++] = (uint8_t)k;
	}
	return 0;
}

/* "sym": "int", "bool" or "float": the node's value is a symbolic scalar (torch's
 * SymInt, SymBool, SymFloat: a size of a dynamic shape, or arithmetic on sizes). */
static int
read_sym(reader *r, const char *who, const ilpi_jv *f, ilpi_node *n)
{
	if (!ilpi_jv_is_string(f))
		return fail(r, who, "sym", "expected \"int\", \"bool\" or \"float\"");
	if (strcmp(f->u.str, "float") == 0)
		n->flags |= ILPI_F_SYM | ILPI_F_SYM_FLOAT;
	else if (strcmp(f->u.str, "int") == 0 || strcmp(f->u.str, "bool") == 0)
		n->flags |= ILPI_F_SYM;
	else
		return fail(r, who, "sym", "expected \"int\", \"bool\" or \"float\"");
	return 0;
}

/* Everything but inputs and view_of, which name other nodes (second pass). */
/* Whole (141 lines): one case per node field, each a few lines; the fields are many. */
static int
read_node_fields(reader *r, const ilpi_jv *obj, long idx, const char *who,
    const uint8_t *ids)
{
	ilpi_node *n = ilpi_graph_node(r->g, idx);
	int64_t numel = -1, bytes = -1, ival;
	const char *dtype = NULL;
	const ilpi_jv *f;
	int b, is_tuple = 0, dsize = 0;
	size_t nf = 0;

	ilpi_jv_each(f, obj) {
		const char *k = f->key;
		int id = ids[nf++];
		ilpi_tag tag;

		if (id == K_NAME || id == K_KIND || id == K_TARGET || id == K_INPUTS ||
		    id == K_VIEW_OF || id == K_NESTED_INPUTS || id == K_META) {
			continue; /* handled elsewhere */
		} else if (id == K_SHAPE) {
			if (!ilpi_jv_is_null(f) && read_shape(r, who, idx, f, &numel) != 0)
				return -1;
		} else if (id == K_DTYPE) {
			if (ilpi_jv_is_null(f))
				continue;
			if (!ilpi_jv_is_string(f))
				return fail(r, who, k, "expected a string");
			if (r->dtype_raw != NULL && same_word(r->dtype_raw, f->u.str)) {
				n->dtype = r->dtype;
				dsize = r->dtype_size;
				continue;
			}
			dtype = ilpi_dtype_canonical(f->u.str);
			if (dtype == NULL) {
				char msg[160];

				snprintf(msg, sizeof msg, "unknown dtype '%.60s'", f->u.str);
				return fail(r, who, k, msg);
			}
			n->dtype = ilpi_intern(&r->g->pool, dtype);
			dsize = ilpi_dtype_size(n->dtype);
			if (n->dtype != NULL) {
				r->dtype_raw = f->u.str;
				r->dtype = n->dtype;
				r->dtype_size = dsize;
			}
		} else if (id == K_BYTES) {
			if (get_int(r, who, f, k, MAX_BYTES, &bytes) != 0)
				return -1;
		} else if (id == K_TUPLE) {
			if (get_bool(r, who, f, k, &is_tuple) != 0)
				return -1;
			if (is_tuple)
				n->flags |= ILPI_F_TUPLE;
		} else if (id == K_WORKSPACE) {
			if (n->kind != ILPI_OP)
				return fail(r, who, k, "only op nodes run (and allocate workspace)");
			if (get_int(r, who, f, k, MAX_BYTES, &n->workspace) != 0)
				return -1;
		} else if (id == K_INDEX) {
			if (get_int(r, who, f, k, 1e9, &ival) != 0)
				return -1;
			n->index = (int32_t)ival;
		} else if (id == K_FLOPS) {
			if (get_count(r, who, f, k, 1e30, &n->flops) != 0)
				return -1;
		} else if (id == K_BYTES_READ) {
			if (get_count(r, who, f, k, MAX_BYTES, &n->bytes_read) != 0)
				return -1;
		} else if (id == K_BYTES_WRITTEN) {
			if (get_count(r, who, f, k, MAX_BYTES, &n->bytes_written) != 0)
				return -1;
		} else if (id == K_TIME_US) {
			if (get_count(r, who, f, k, 1e15, &n->time_us) != 0)
				return -1;
		} else if (id == K_MEMORY_BUDGET) {
			/* torch's node.meta["memory_budget"]; torch rejects one outside [0, 1] */
			if (!ilpi_jv_is_number(f) || !(f->u.num >= 0 && f->u.num <= 1))
				return fail(r, who, k, "expected a fraction from 0 to 1");
			if (r->g->memory_budget < 0) {
				r->g->memory_budget = f->u.num;
				r->g->memory_budget_node = (int32_t)idx;
			}
		} else if (id == K_RECOMPUTE) {
			if (ilpi_jv_is_null(f))
				continue;
			if (!ilpi_jv_is_string(f))
				return fail(r, who, k, "expected a string");
			if (ilpi_tag_parse(f->u.str, &tag) != 0) {
				char msg[200];

				snprintf(msg, sizeof msg, "unknown tag '%.60s' (MUST_SAVE, PREFER_SAVE, "
				    "MUST_RECOMPUTE, PREFER_RECOMPUTE, MUST_CPU_OFFLOAD or "
				    "PREFER_CPU_OFFLOAD)", f->u.str);
				return fail(r, who, k, msg);
			}
			n->tag = (uint8_t)tag;
		} else if (id == K_AC_GRAPH_ID) {
			if (ilpi_jv_is_null(f))
				continue;
			if (get_int(r, who, f, k, 2e9, &ival) != 0)
				return -1;
			n->ac_graph_id = (int32_t)ival;
		} else if (id == K_MUTATED) {
			if (get_bool(r, who, f, k, &b) != 0)
				return -1;
			if (b && n->kind != ILPI_PRIMAL)
				return fail(r, who, k, "only a primal (a graph input) can be mutated");
			if (b)
				n->flags |= ILPI_F_MUTATED;
		} else if (id == K_PARAM) {
			if (get_bool(r, who, f, k, &b) != 0)
				return -1;
			if (b && n->kind != ILPI_PRIMAL)
				return fail(r, who, k, "only a primal (a graph input) can be a "
				    "parameter or buffer");
			if (b)
				n->flags |= ILPI_F_PARAM;
		} else if (id == K_SYM) {
			if (read_sym(r, who, f, n) != 0)
				return -1;
		} else if (id == K_RANDOM || id == K_EFFECTFUL || id == K_COLLECTIVE) {
			if (get_bool(r, who, f, k, &b) != 0)
				return -1;
			if (b)
				n->flags |= k[0] == 'r' ? ILPI_F_RANDOM :
				    k[0] == 'e' ? ILPI_F_EFFECTFUL : ILPI_F_COLLECTIVE;
		}
		/* any other key was rejected by check_node_keys */
	}
	if ((n->flags & ILPI_F_SYM) && (is_tuple || numel >= 0 || n->dtype != NULL))
		return fail(r, who, "sym", "a symbolic scalar has no shape, dtype or tuple");
	if (bytes >= 0) {
		n->bytes = bytes;
	} else if (n->flags & ILPI_F_SYM) {
		n->bytes = 8; /* the exporter's size of a symbolic scalar */
	} else if (is_tuple) {
		n->bytes = 0;
	} else if (numel >= 0 && n->dtype != NULL) {
		double total = (double)numel * dsize;

		if (total > MAX_BYTES)
			return fail(r, who, "shape", "size in bytes overflows");
		n->bytes = numel * dsize;
	} else if (numel >= 0) {
		return fail(r, who, "dtype", "missing (needed with shape when bytes is absent)");
	} else {
		return fail(r, who, "bytes", "missing (give shape and dtype, bytes, tuple or sym)");
	}
	if (n->target != NULL && same_word(n->target, "getitem")) {
		n->flags |= ILPI_F_GETITEM;
		if (n->index == ILPI_NONE)
			return fail(r, who, "index", "missing (getitem needs the tuple index)");
	}
	return 0;
}

/* A node's label, made on first use: only a rejection needs it. */
typedef struct lazy_label {
	const ilpi_jv *obj;
	size_t idx;
	int done;
	char buf[160];
} lazy_label;

static const char *
label_of(lazy_label *l)
{
	if (!l->done) {
		node_label(l->obj, l->idx, l->buf, sizeof l->buf);
		l->done = 1;
	}
	return l->buf;
}

static long
resolve_node(reader *r, lazy_label *who, const ilpi_jv *v, const char *field)
{
	long idx;
	char msg[200];

	if (!ilpi_jv_is_string(v))
		return fail(r, label_of(who), field, "expected a node name");
	idx = ilp_graph_find(r->g, v->u.str);
	if (idx < 0) {
		snprintf(msg, sizeof msg, "no node named '%.80s'", v->u.str);
		return fail(r, label_of(who), field, msg);
	}
	return idx;
}

static long
resolve(reader *r, const char *who, const ilpi_jv *v, const char *field)
{
	long idx;
	char msg[200];

	if (!ilpi_jv_is_string(v))
		return fail(r, who, field, "expected a node name");
	idx = ilp_graph_find(r->g, v->u.str);
	if (idx < 0) {
		snprintf(msg, sizeof msg, "no node named '%.80s'", v->u.str);
		return fail(r, who, field, msg);
	}
	return idx;
}

/* "nested_inputs": ascending positions into the node's inputs (docs/format.md). */
static int
read_nested(reader *r, const ilpi_jv *nested, long idx, lazy_label *who)
{
	const ilpi_node *n = &r->g->node[idx];
	const ilpi_jv *v;
	double prev = -1;

	if (!ilpi_jv_is_array(nested))
		return fail(r, label_of(who), "nested_inputs", "expected an array of positions");
	if (n->kind != ILPI_OP && ilpi_jv_size(nested) > 0)
		return fail(r, label_of(who), "nested_inputs", "only op nodes have inputs");
	ilpi_jv_each(v, nested) {
		if (!ilpi_jv_is_number(v) || v->u.num != floor(v->u.num) || v->u.num < 0 ||
		    v->u.num >= (double)n->in_count)
			return fail(r, label_of(who), "nested_inputs",
			    "expected positions into the node's inputs (0 to their count - 1)");
		if (v->u.num <= prev)
			return fail(r, label_of(who), "nested_inputs",
			    "positions must be in ascending order, each once");
		prev = v->u.num;
		if (ilpi_graph_add_nested(r->g, idx, (uint32_t)v->u.num) != 0) {
			ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
			return -1;
		}
	}
	return 0;
}

static int
read_links(reader *r, const ilpi_jv *inputs, const ilpi_jv *view, const ilpi_jv *nested,
    long idx, lazy_label *who)
{
	ilpi_node *n = ilpi_graph_node(r->g, idx);
	const ilpi_jv *v;

	if (n->kind != ILPI_OP) {
		if (inputs != NULL && (!ilpi_jv_is_array(inputs) || ilpi_jv_size(inputs) > 0))
			return fail(r, label_of(who), "inputs", "only op nodes have inputs");
	} else if (inputs == NULL) {
		return fail(r, label_of(who), "inputs", "missing");
	} else if (!ilpi_jv_is_array(inputs)) {
		return fail(r, label_of(who), "inputs", "expected an array of node names");
	} else {
		ilpi_jv_each(v, inputs) {
			long in = resolve_node(r, who, v, "inputs");

			if (in < 0)
				return -1;
			if (ilpi_graph_add_input(r->g, idx, (int32_t)in) != 0) {
				ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
				return -1;
			}
		}
	}
	if ((n->flags & ILPI_F_GETITEM) &&
	    (n->in_count != 1 || !(r->g->node[r->g->in[n->in_begin]].flags & ILPI_F_TUPLE)))
		return fail(r, label_of(who), "inputs", "getitem takes exactly one tuple-valued input");
	if (nested != NULL && read_nested(r, nested, idx, who) != 0)
		return -1;
	if (view != NULL && !ilpi_jv_is_null(view)) {
		long base = resolve_node(r, who, view, "view_of");

		if (base < 0)
			return -1;
		if (base == idx)
			return fail(r, label_of(who), "view_of", "a node cannot be a view of itself");
		n->view_of = (int32_t)base;
	}
	return 0;
}

/* A node's first pass: the node added to the graph with its fields, except the inputs
 * and view_of that name other nodes (field[] and ids[] hold them for the second pass). */
static int
read_node(reader *r, const ilpi_jv *obj, const char *who, const ilpi_jv **field,
    uint8_t *ids)
{
	const ilpi_jv *name, *target;
	ilpi_kind kind;
	long idx;

	if (!ilpi_jv_is_object(obj))
		return fail(r, who, "nodes", "expected an object");
	if (check_node_keys(r, obj, who, field, ids) != 0)
		return -1;
	name = field[K_NAME];
	if (name == NULL)
		return fail(r, who, "name", "missing");
	if (!ilpi_jv_is_string(name) || name->u.str[0] == '\0')
		return fail(r, who, "name", "expected a non-empty string");
	if (read_kind(r, who, field[K_KIND], &kind) != 0)
		return -1;
	target = field[K_TARGET];
	if (kind == ILPI_OP && target == NULL)
		return fail(r, who, "target", "missing (op nodes name their operation)");
	if (target != NULL && (!ilpi_jv_is_string(target) || target->u.str[0] == '\0'))
		return fail(r, who, "target", "expected a non-empty string");
	idx = ilpi_graph_add(r->g, name->u.str, kind,
	    kind == ILPI_OP ? target->u.str : NULL, r->err);
	if (idx < 0)
		return -1;
	return read_node_fields(r, obj, idx, who, ids);
}

static int
read_nodes(reader *r, const ilpi_jv *nodes)
{
	const ilpi_jv *obj, *field[K_COUNT], **links = NULL;
	uint8_t ids[K_COUNT];
	char who[160];
	size_t i = 0, count;
	int rc = -1;

	if (!ilpi_jv_is_array(nodes))
		return fail(r, "graph", "nodes", nodes == NULL ? "missing" : "expected an array");
	/* each node's inputs and view_of, for the second pass */
	count = ilpi_jv_size(nodes);
	links = malloc((count + 1) * 3 * sizeof *links);
	if (links == NULL) {
		ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
		return -1;
	}
	/* a hint: without the room, adding the nodes grows the arrays as before */
	(void)ilpi_graph_reserve(r->g, count);
	ilpi_jv_each(obj, nodes) {
		node_label(obj, i, who, sizeof who);
		if (read_node(r, obj, who, field, ids) != 0)
			goto out;
		links[3 * i] = field[K_INPUTS];
		links[3 * i + 1] = field[K_VIEW_OF];
		links[3 * i + 2] = field[K_NESTED_INPUTS];
		i++;
	}
	i = 0;
	ilpi_jv_each(obj, nodes) {
		lazy_label lw;

		lw.obj = obj;
		lw.idx = i;
		lw.done = 0;
		if (read_links(r, links[3 * i], links[3 * i + 1], links[3 * i + 2], (long)i,
		    &lw) != 0)
			goto out;
		i++;
	}
	rc = 0;
out:
	free(links);
	return rc;
}

/* The streamed reader's nodes (read_graph_stream): each node read whole as the text
 * is parsed, its inputs and view_of too, which in a graph that reads name earlier
 * nodes (ilpi_graph_finish rejects any other). */
typedef struct streamer {
	reader *r;
	size_t n;               /* nodes read */
} streamer;

static int
stream_node(void *ctx, const ilpi_jv *obj)
{
	streamer *s = ctx;
	const ilpi_jv *field[K_COUNT];
	uint8_t ids[K_COUNT];
	lazy_label lw;

	/* no labels: a failure here is read again by the tree reader, which names it */
	if (read_node(s->r, obj, "", field, ids) != 0)
		return -1;
	lw.obj = NULL;
	lw.idx = s->n;
	lw.done = 0;
	if (read_links(s->r, field[K_INPUTS], field[K_VIEW_OF], field[K_NESTED_INPUTS],
	    (long)s->n, &lw) != 0)
		return -1;
	s->n++;
	return 0;
}

static int
read_name_list(reader *r, const char *who, const ilpi_jv *v, const char *field, int allow_null,
    int32_t **out, size_t *n)
{
	size_t cnt = 0;
	const ilpi_jv *e;

	if (!ilpi_jv_is_array(v))
		return fail(r, who, field, v == NULL ? "missing" : "expected an array of node names");
	*out = malloc((ilpi_jv_size(v) + 1) * sizeof **out);
	if (*out == NULL) {
		ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
		return -1;
	}
	ilpi_jv_each(e, v) {
		long idx;

		if (allow_null && ilpi_jv_is_null(e)) {
			(*out)[cnt++] = ILPI_NONE;
			continue;
		}
		idx = resolve(r, who, e, field);
		if (idx < 0)
			return -1;
		(*out)[cnt++] = (int32_t)idx;
	}
	*n = cnt;
	return 0;
}

static int
read_outputs(reader *r, const ilpi_jv *outs)
{
	int32_t *fw = NULL, *bw = NULL;
	size_t nfw = 0, nbw = 0;
	int rc = -1;

	if (!ilpi_jv_is_object(outs))
		return fail(r, "graph", "outputs", outs == NULL ? "missing" : "expected an object");
	if (read_name_list(r, "graph", ilpi_jv_get(outs, "forward"),
	    "outputs.forward", 0, &fw, &nfw) != 0)
		goto out;
	if (read_name_list(r, "graph", ilpi_jv_get(outs, "backward"),
	    "outputs.backward", 1, &bw, &nbw) != 0)
		goto out;
	if (ilpi_graph_set_outputs(r->g, fw, nfw, bw, nbw) != 0) {
		ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
		goto out;
	}
	rc = 0;
out:
	free(fw);
	free(bw);
	return rc;
}

static int
read_refs(reader *r, const ilpi_jv *refs)
{
	const ilpi_jv *e;
	size_t i = 0;

	if (refs == NULL || ilpi_jv_is_null(refs))
		return 0;
	if (!ilpi_jv_is_array(refs))
		return fail(r, "graph", "reference", "expected an array");
	r->g->ref = calloc(ilpi_jv_size(refs) + 1, sizeof *r->g->ref);
	if (r->g->ref == NULL) {
		ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
		return -1;
	}
	ilpi_jv_each(e, refs) {
		ilpi_refpart *p = &r->g->ref[i];
		const ilpi_jv *name = ilpi_jv_get(e, "name");
		const ilpi_jv *rec = ilpi_jv_get(e, "recomputed");
		char who[160];

		if (!ilpi_jv_is_object(e) || !ilpi_jv_is_string(name)) {
			snprintf(who, sizeof who, "reference #%zu", i);
			return fail(r, who, "name", "each reference needs a string 'name'");
		}
		snprintf(who, sizeof who, "reference '%.80s'", name->u.str);
		p->name = ilpi_intern(&r->g->pool, name->u.str);
		r->g->n_ref = ++i;
		if (read_name_list(r, who, ilpi_jv_get(e, "saved"),
		    "saved", 0, &p->saved, &p->n_saved) != 0)
			return -1;
		if (rec != NULL && read_name_list(r, who, rec, "recomputed", 0,
		    &p->recomputed, &p->n_recomputed) != 0)
			return -1;
	}
	return 0;
}

/* Every byte count ilpart forms (saved bytes, with RNG states; a simulated peak, which
 * may hold an op's forward copy and its recomputed one) stays within int64 and the
 * partition reader's 2^62 when the nodes' bytes, plus one RNG state per random op, are
 * below 2^62 together. */
static int
check_total_bytes(reader *r)
{
	const int64_t limit = (int64_t)1 << 62, rng = ilpi_rng_state_bytes(r->g);
	int64_t total = 0;
	char who[160];

	for (size_t i = 0; i < r->g->n; i++) {
		const ilpi_node *n = &r->g->node[i];
		int random = n->kind == ILPI_OP && (n->flags & ILPI_F_RANDOM);

		if (n->bytes >= limit - total || (random && rng >= limit - total - n->bytes)) {
			snprintf(who, sizeof who, "node '%.80s'", n->name);
			return fail(r, who, "bytes", random ? "the graph's values (and one RNG "
			    "state per random op) add up to 2^62 bytes or more" : "the graph's "
			    "values add up to 2^62 bytes or more");
		}
		total += n->bytes + (random ? rng : 0);
	}
	return 0;
}

/* meta is free-form, but for "torch": the torch release that exported the graph, whose
 * partitioner min-cut reproduces (docs/mincut.md "Which PyTorch"). */
static int
read_meta(reader *r, const ilpi_jv *meta)
{
	const ilpi_jv *t = meta != NULL && ilpi_jv_is_object(meta) ?
	    ilpi_jv_get(meta, "torch") : NULL;

	if (t == NULL || ilpi_jv_is_null(t))
		return 0;
	if (!ilpi_jv_is_string(t) || (r->g->torch_version = ilpi_torch_version_parse(
	    t->u.str)) < 0) {
		r->g->torch_version = 0;
		return fail(r, "graph", "meta.torch", "expected torch's version string, such "
		    "as \"2.6.0\" or \"2.14.1\" (torch.__version__)");
	}
	if ((r->g->torch = strdup(t->u.str)) == NULL)
		return fail(r, "graph", "meta.torch", "out of memory");
	return 0;
}

/* s: the nodes were streamed (read whole already; the root's "nodes" is empty). */
static int
read_top(reader *r, const ilpi_jv *root, const streamer *s)
{
	const ilpi_jv *desc = ilpi_jv_get(root, "description");
	const ilpi_jv *rng = ilpi_jv_get(root, "rng_functionalized");
	const ilpi_jv *rsb = ilpi_jv_get(root, "rng_state_bytes");
	const ilpi_jv *dev = ilpi_jv_get(root, "device");

	if (!ilpi_jv_is_object(root))
		return fail(r, "graph", "(top level)", "expected a JSON object");
	for (const ilpi_jv *a = root->u.child; a != NULL; a = a->next)
		for (const ilpi_jv *b = root->u.child; b != a; b = b->next)
			if (strcmp(a->key, b->key) == 0)
				return fail(r, "graph", a->key, "repeated field");
	if (ilpi_jv_header(root, "ilpart-joint-graph", r->path, "graph", r->err) != 0)
		return -1;
	if (desc != NULL && !ilpi_jv_is_null(desc)) {
		if (!ilpi_jv_is_string(desc))
			return fail(r, "graph", "description", "expected a string");
		r->g->description = strdup(desc->u.str);
		if (r->g->description == NULL)
			return fail(r, "graph", "description", "out of memory");
	}
	if (dev != NULL && !ilpi_jv_is_null(dev)) {
		if (!ilpi_jv_is_string(dev) || dev->u.str[0] == '\0')
			return fail(r, "graph", "device", "expected a non-empty string (\"cpu\", "
			    "\"cuda:NAME\")");
		if ((r->g->device = strdup(dev->u.str)) == NULL)
			return fail(r, "graph", "device", "out of memory");
	}
	if (rng != NULL && get_bool(r, "graph", rng, "rng_functionalized",
	    &r->g->rng_functionalized) != 0)
		return -1;
	if (rsb != NULL && get_int(r, "graph", rsb, "rng_state_bytes", MAX_BYTES,
	    &r->g->rng_state_bytes) != 0)
		return -1;
	if (read_meta(r, ilpi_jv_get(root, "meta")) != 0)
		return -1;
	if ((s == NULL && read_nodes(r, ilpi_jv_get(root, "nodes")) != 0) ||
	    check_total_bytes(r) != 0)
		return -1;
	if (read_outputs(r, ilpi_jv_get(root, "outputs")) != 0)
		return -1;
	return read_refs(r, ilpi_jv_get(root, "reference"));
}

/* The fast reader of a text in a writable buffer: the nodes are read as the text is
 * parsed (ilpi_json_doc_stream), without a tree of the whole text. 0 with *out, or 1
 * when it did not read the graph: then nothing is set, err is clear and buf is as it
 * was, and the tree reader reads it (and names what is wrong). */
static int
read_graph_stream(char *buf, size_t len, const char *path, ilp_graph **out, ilp_error *err)
{
	reader r = { NULL, err, path, NULL, NULL, 0 };
	ilpi_json_doc doc;
	streamer s = { &r, 0 };
	int rc = 1;

	r.g = ilpi_graph_new(r.path);
	if (r.g == NULL)
		return 1;
	/* a hint (a graph file takes 60-250 bytes per node): too little room grows */
	(void)ilpi_graph_reserve(r.g, len / 160 + 16);
	if (ilpi_json_doc_stream(&doc, buf, len, "nodes", stream_node, &s) == 0) {
		if (read_top(&r, doc.root, &s) == 0)
			rc = 0;
		ilpi_json_doc_free(&doc);
		if (rc == 0 && ilpi_graph_finish(r.g, err) != 0)
			rc = 1;
		if (rc != 0)
			ilpi_json_undo_in_place(buf, len);
	}
	if (rc != 0) {
		ilp_graph_free(r.g);
		ilpi_err_clear(err);
		return 1;
	}
	*out = r.g;
	return 0;
}

/* own: buf itself when the parser may keep the strings in it (ilp_graph_read_file's
 * buffer), else NULL; stream: try read_graph_stream first (own only). */
static int
read_graph(const char *buf, char *own, size_t len, const char *name, int stream,
    ilp_graph **out, ilp_error *err)
{
	reader r = { NULL, err, name != NULL ? name : "<graph>", NULL, NULL, 0 };
	ilpi_json_doc doc;

	*out = NULL;
	ilpi_err_clear(err);
	if (own != NULL && stream && read_graph_stream(own, len, r.path, out, err) == 0)
		return 0;
	if ((own != NULL ? ilpi_json_doc_parse_in_place(&doc, own, len, r.path, err) :
	    ilpi_json_doc_parse(&doc, buf, len, r.path, err)) != 0)
		return -1;
	r.g = ilpi_graph_new(r.path);
	if (r.g == NULL) {
		ilpi_json_doc_free(&doc);
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", r.path);
		return -1;
	}
	/* the tree is done with before the graph is finished: its memory is reused */
	if (read_top(&r, doc.root, NULL) != 0) {
		ilpi_json_doc_free(&doc);
		ilp_graph_free(r.g);
		return -1;
	}
	ilpi_json_doc_free(&doc);
	if (ilpi_graph_finish(r.g, err) != 0) {
		ilp_graph_free(r.g);
		return -1;
	}
	*out = r.g;
	return 0;
}

int
ilp_graph_read_buffer(const char *buf, size_t len, const char *name, ilp_graph **out,
    ilp_error *err)
{
	return read_graph(buf, NULL, len, name, 0, out, err);
}

int
ilpi_graph_read_own(char *buf, size_t len, const char *name, int stream, ilp_graph **out,
    ilp_error *err)
{
	return read_graph(buf, buf, len, name, stream, out, err);
}

/* The file's buffer is the reader's own: its strings are not copied again. */
static int
graph_reader(char *buf, size_t len, const char *name, void *ctx, ilp_error *err)
{
	return read_graph(buf, buf, len, name, 1, ctx, err);
}

int
ilp_graph_read_file(const char *path, ilp_graph **out, ilp_error *err)
{
	*out = NULL;
	return ilpi_read_file_with(path, graph_reader, out, err);
}
