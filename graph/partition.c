/*
 * partition.c - partitions: construction, the partition file reader (cJSON) and the
 * canonical writer. Format: docs/format.md "Partition" and docs/partition.md.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cost.h"
#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/grow.h"
#include "graph/json_parse.h"
#include "graph/partition.h"
#include "graph/strbuf.h"

ilp_partition *
ilp_partition_new(const ilp_graph *g)
{
	ilp_partition *p = calloc(1, sizeof *p);

	if (p == NULL)
		return NULL;
	p->n = g->n;
	p->state = calloc(g->n + 1, 1);
	if (p->state == NULL) {
		free(p);
		return NULL;
	}
	p->gap = -1;
	p->objective_value = -1;
	p->budget_bytes = -1;
	for (size_t k = 0; k < ILPI_OPT_COUNT; k++) {
		p->opt.v[k].i = -1;
		p->opt.v[k].num = -1;
		p->opt.v[k].num2 = -1;
	}
	p->peak_cap_bytes = -1;
	return p;
}

void
ilp_partition_free(ilp_partition *p)
{
	if (p == NULL)
		return;
	free(p->overrides);
	free(p->state);
	free(p);
}

ilp_partition *
ilpi_partition_clone(const ilp_graph *g, const ilp_partition *p)
{
	ilp_partition *q = ilp_partition_new(g);

	if (q == NULL || p->n != q->n) {
		ilp_partition_free(q);
		return NULL;
	}
	{
		uint8_t *state = q->state;

		*q = *p;
		q->state = state;
		q->overrides = NULL;
		q->n_overrides = q->cap_overrides = 0;
	}
	memcpy(q->state, p->state, p->n);
	return q;
}

int
ilp_partition_is_saved(const ilp_partition *p, size_t node)
{
	return node < p->n && ilpi_saved(p, node);
}

int
ilp_partition_is_recomputed(const ilp_partition *p, size_t node)
{
	return node < p->n && ilpi_recomputed(p, node);
}

size_t
ilp_partition_count_saved(const ilp_partition *p)
{
	return ilpi_partition_count(p, ILPI_P_SAVED);
}

size_t
ilp_partition_count_recomputed(const ilp_partition *p)
{
	return ilpi_partition_count(p, ILPI_P_RECOMPUTED);
}

int64_t
ilp_partition_saved_bytes(const ilp_partition *p)
{
	return p->has_cost ? p->saved_bytes : -1;
}

double
ilp_partition_recompute_flops(const ilp_partition *p)
{
	return p->has_cost ? p->recompute_flops : -1;
}

double
ilp_partition_recompute_time_us(const ilp_partition *p)
{
	return p->has_cost ? p->recompute_time_us : -1;
}

const char *
ilp_partition_note(const ilp_partition *p)
{
	return p->note;
}

const char *
ilp_partition_fingerprint(const ilp_partition *p)
{
	return p->graph_fp;
}

int
ilpi_partition_fits(const ilp_graph *g, const ilp_partition *p, ilp_error *err)
{
	if (p->n == g->n)
		return 0;
	ilpi_err(err, ILP_ERR_INPUT, "%s: the partition has %zu nodes, the graph %zu", g->path,
	    p->n, g->n);
	return -1;
}

int
ilpi_partition_add_override(ilp_partition *p, int32_t node, uint8_t tag, double gain)
{
	ilpi_override *o;

	if (ILPI_GROW(p->overrides, p->cap_overrides, p->n_overrides, 1) != 0)
		return -1;
	o = p->overrides;
	o[p->n_overrides].node = node;
	o[p->n_overrides].tag = tag;
	o[p->n_overrides].gain = gain;
	p->n_overrides++;
	return 0;
}

/* src truncated to fit size (with its '\0'); NULL leaves dst unchanged. */
static void
set_field(char *dst, size_t size, const char *src)
{
	size_t n;

	if (src == NULL)
		return;
	n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void
ilpi_partition_set_producer(ilp_partition *p, const char *method, const char *objective,
    const char *prefer, const char *status)
{
	set_field(p->method, sizeof p->method, method);
	set_field(p->objective, sizeof p->objective, objective);
	set_field(p->prefer, sizeof p->prefer, prefer);
	set_field(p->status, sizeof p->status, status);
}

static const char *
device_text(const ilp_device *d, char *out, size_t size)
{
	const char *name = ilpi_device_name(d);

	if (name != NULL)
		snprintf(out, size, "%s", name);
	else
		snprintf(out, size, "%.17g:%.17g", d->peak_flops, d->bandwidth);
	return out;
}

/* The RECORD column of graph/solve_options.h, three ways: recorded from the options
 * (REC_SET_), read from a partition file (REC_READ_), written (REC_WRITE_). A row's
 * scope: ILP (ILP partitions only) or ALL. */
#define ILP ilp
#define ALL 1

void
ilpi_partition_record(ilp_partition *p, const ilp_graph *g, const ilp_solve_options *o)
{
	ilpi_run_options *r = &p->opt;
	int ilp = strcmp(p->method, "ilp") == 0;
	char tmp[96];

	memcpy(p->graph_fp, g->fingerprint, sizeof p->graph_fp);
	r->known = 1;
#define REC_NONE
#define REC_NUM(key, scope, cmp, get) if (scope) v->num = (get);
#define REC_INT(key, scope, get) if (scope) v->i = (get);
#define REC_STR(key, scope, size, get) if (scope) set_field(v->str, size, (get));
#define REC_INT_OR_NUM(k1, k2, scope, get1, get2) \
	if (scope) { v->i = (get1); v->num = (get2); }
#define REC_NUM_OR_NUM(k1, k2, scope, get1, get2) \
	if (scope) { v->num = (get1); v->num2 = (get2); }
#define REC_POLICY \
	if (g->policy_name != NULL) { \
		set_field(r->policy_name, sizeof r->policy_name, g->policy_name); \
		memcpy(r->policy_sha256, g->policy_sha256, sizeof r->policy_sha256); \
	}
#define REC_SET_(id, flag, sh, arg, def, parse, check, rec, store, help) \
	{ ilpi_run_value *v = &r->v[ILPI_OPT_##id]; (void)v; rec }
	ILPI_SOLVE_OPTIONS(REC_SET_)
#undef REC_SET_
#include "graph/solve_options_rec_end.h"
	set_field(r->version, sizeof r->version, PACKAGE_VERSION);
}
#undef ILP
#undef ALL

int64_t
ilpi_partition_saved_bytes(const ilp_graph *g, const ilp_partition *p)
{
	uint8_t *seen = calloc(g->n + 1, 1);
	int64_t sum = 0;

	if (seen == NULL)
		return -1;
	for (size_t i = 0; i < g->n && i < p->n; i++) {
		int32_t s = g->node[i].storage;

		if (!ilpi_saved(p, i) || seen[s])
			continue;
		seen[s] = 1;
		sum += ilpi_charged_bytes(g, &g->node[s]);
	}
	for (size_t i = 0; i < g->n && i < p->n; i++)
		if (p->state[i] & ILPI_P_RNG_SAVED)
			sum += ilpi_rng_state_bytes(g);
	free(seen);
	return sum;
}

int64_t
ilpi_partition_offloaded_bytes(const ilp_graph *g, const ilp_partition *p)
{
	int64_t sum = 0;

	for (size_t i = 0; i < g->n && i < p->n; i++)
		if (ilpi_offloaded(p, i) && ilpi_saved(p, i))
			sum += ilpi_charged_bytes(g, &g->node[g->node[i].storage]);
	return sum;
}

void
ilpi_partition_transfer(const ilp_partition *p, ilp_device *dev, double *host_bw)
{
	const char *d = p->opt.v[ILPI_OPT_device].str;
	char *end;

	ilp_device_lookup(ILPI_DEVICE_DEFAULT, dev);
	if (ilp_device_lookup(d, dev) != 0 && d[0] >= '0' && d[0] <= '9') {
		double f = strtod(d, &end), b = *end == ':' ? strtod(end + 1, &end) : -1;

		if (*end == '\0' && f > 0 && b > 0) {
			dev->peak_flops = f;
			dev->bandwidth = b;
		}
	}
	*host_bw = p->opt.v[ILPI_OPT_offload_bw].num > 0 ? p->opt.v[ILPI_OPT_offload_bw].num :
	    ilpi_device_host_bw(dev);
}

void
ilpi_partition_mark_rng(const ilp_graph *g, ilp_partition *p)
{
	for (size_t i = 0; i < g->n && i < p->n; i++) {
		p->state[i] &= (uint8_t)~ILPI_P_RNG_SAVED;
		if (ilpi_recomputed(p, i) && (g->node[i].flags & ILPI_F_RANDOM) &&
		    !g->rng_functionalized)
			p->state[i] |= ILPI_P_RNG_SAVED;
	}
}

void
ilpi_partition_complete(const ilp_graph *g, ilp_partition *p, int prune)
{
	/* One reverse sweep: users come after their inputs, so a node's need is final
	 * when the sweep reaches it. A spare state bit is the "needed" mark. */
	enum { NEED = 1u << 7 };

	for (size_t i = 0; i < g->n; i++)
		p->state[i] &= (uint8_t)~ILPI_P_RECOMPUTED;
	for (size_t i = 0; i < g->n_bw_out; i++)
		if (g->bw_out[i] != ILPI_NONE)
			p->state[g->bw_out[i]] |= NEED;
	for (size_t i = g->n; i-- > 0;) {
		const ilpi_node *n = &g->node[i];
		const int32_t *in = ilpi_inputs(g, n);
		int need = (p->state[i] & NEED) != 0, runs = 0;

		if (n->kind == ILPI_OP && n->cls == ILPI_BACKWARD) {
			runs = 1;
		} else if (need && ilpi_decided(n) && n->kind == ILPI_OP && !ilpi_saved(p, i)) {
			p->state[i] |= ILPI_P_RECOMPUTED;
			runs = 1;
		}
		if (prune && !need && ilpi_saved(p, i))
			p->state[i] &= (uint8_t)~ILPI_P_SAVED;
		p->state[i] &= (uint8_t)~NEED;
		for (uint32_t k = 0; runs && k < n->in_count; k++)
			p->state[in[k]] |= NEED;
	}
}

static int
finish_fixed(const ilp_graph *g, ilp_partition *p, const char *method, ilp_partition **out)
{
	ilpi_partition_complete(g, p, 0);
	ilpi_partition_mark_rng(g, p);
	ilpi_partition_set_producer(p, method, "", "", "");
	*out = p;
	return 0;
}

int
ilpi_partition_from_ref(const ilp_graph *g, size_t k, ilp_partition **out, ilp_error *err)
{
	ilp_partition *p;

	*out = NULL;
	if (k >= g->n_ref || (p = ilp_partition_new(g)) == NULL) {
		ilpi_err(err, k >= g->n_ref ? ILP_ERR_INPUT : ILP_ERR_SYSTEM,
		    "%s: %s", g->path, k >= g->n_ref ? "no such reference" : "out of memory");
		return -1;
	}
	for (size_t j = 0; j < g->ref[k].n_saved; j++)
		p->state[g->ref[k].saved[j]] |= ILPI_P_SAVED;
	return finish_fixed(g, p, "reference", out);
}

int
ilpi_partition_save_all(const ilp_graph *g, ilp_partition **out, ilp_error *err)
{
	ilp_partition *p = ilp_partition_new(g);

	*out = NULL;
	if (p == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	for (size_t i = 0; i < g->n; i++)
		if ((g->node[i].flags & ILPI_F_BOUNDARY) && !(g->node[i].flags & ILPI_F_TUPLE))
			p->state[i] |= ILPI_P_SAVED;
	return finish_fixed(g, p, "save-all", out);
}

ilp_prefer_mode
ilpi_partition_prefer(const ilp_partition *p)
{
	ilp_prefer_mode m;

	return ilp_prefer_parse(p->prefer, &m, NULL) == 0 ? m : ILP_PREFER_HARD;
}

size_t
ilpi_partition_count(const ilp_partition *p, unsigned state_bit)
{
	size_t c = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->state[i] & state_bit)
			c++;
	return c;
}

/* ---- reader ---------------------------------------------------------------- */

typedef struct reader {
	const ilp_graph *g;
	const char *path;
	ilp_partition *p;
	ilp_error *err;
} reader;

static int
bad(reader *r, const char *field, const char *what)
{
	ilpi_err(r->err, ILP_ERR_INPUT, "%s: field '%s': %s", r->path, field, what);
	return -1;
}

static int
get_number(reader *r, const cJSON *obj, const char *key, const char *field, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL)
		return 1;
	if (!cJSON_IsNumber(v))
		return bad(r, field, "expected a number");
	if (!isfinite(v->valuedouble))
		return bad(r, field, "expected a finite number");
	*out = v->valuedouble;
	return 0;
}

static int
get_int64(reader *r, const cJSON *obj, const char *key, const char *field, int64_t *out)
{
	double d = 0;
	int rc = get_number(r, obj, key, field, &d);

	if (rc != 0)
		return rc;
	if (d != floor(d) || d < 0 || d > 4611686018427387904.0)
		return bad(r, field, "expected an integer between 0 and 2^62");
	*out = (int64_t)d;
	return 0;
}

static int
get_string(reader *r, const cJSON *obj, const char *key, const char *field, char *dst,
    size_t size)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL)
		return 1;
	if (!cJSON_IsString(v))
		return bad(r, field, "expected a string");
	if (strlen(v->valuestring) >= size)
		return bad(r, field, "string too long");
	snprintf(dst, size, "%s", v->valuestring);
	return 0;
}

static long
lookup(reader *r, const char *name, const char *field)
{
	long i = ilp_graph_find(r->g, name);

	if (i < 0)
		ilpi_err(r->err, ILP_ERR_INPUT, "%s: node '%s': field '%s': no such node in %s",
		    r->path, name, field, r->g->path);
	return i;
}

/* "saved" / "recomputed": arrays of distinct node names. */
static int
read_list(reader *r, const cJSON *root, const char *key, unsigned bit, int required)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
	const cJSON *e;
	size_t k = 0;

	if (a == NULL)
		return required ? bad(r, key, "missing") : 0;
	if (!cJSON_IsArray(a))
		return bad(r, key, "expected an array of node names");
	cJSON_ArrayForEach(e, a) {
		long i;

		if (!cJSON_IsString(e)) {
			ilpi_err(r->err, ILP_ERR_INPUT, "%s: field '%s[%zu]': expected a string",
			    r->path, key, k);
			return -1;
		}
		if ((i = lookup(r, e->valuestring, key)) < 0)
			return -1;
		if (r->p->state[i] & bit) {
			ilpi_err(r->err, ILP_ERR_INPUT, "%s: node '%s': field '%s': listed twice",
			    r->path, e->valuestring, key);
			return -1;
		}
		r->p->state[i] |= (uint8_t)bit;
		k++;
	}
	return 0;
}

static int
read_producer(reader *r, const cJSON *root)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "producer");
	ilp_partition *p = r->p;
	ilp_prefer_mode mode;

	if (o == NULL) {
		ilpi_partition_set_producer(p, "file", NULL, NULL, NULL);
		return 0;
	}
	if (!cJSON_IsObject(o))
		return bad(r, "producer", "expected an object");
	if (get_string(r, o, "method", "producer.method", p->method, sizeof p->method) < 0 ||
	    get_string(r, o, "objective", "producer.objective", p->objective,
	    sizeof p->objective) < 0 ||
	    get_string(r, o, "prefer", "producer.prefer", p->prefer, sizeof p->prefer) < 0 ||
	    get_string(r, o, "status", "producer.status", p->status, sizeof p->status) < 0 ||
	    get_number(r, o, "gap", "producer.gap", &p->gap) < 0 ||
	    get_number(r, o, "objective_value", "producer.objective_value",
	    &p->objective_value) < 0 ||
	    get_int64(r, o, "budget_bytes", "producer.budget_bytes", &p->budget_bytes) < 0 ||
	    get_int64(r, o, "peak_cap_bytes", "producer.peak_cap_bytes", &p->peak_cap_bytes) < 0 ||
	    get_string(r, o, "note", "producer.note", p->note, sizeof p->note) < 0)
		return -1;
	if (p->prefer[0] != '\0' && ilp_prefer_parse(p->prefer, &mode, NULL) != 0)
		return bad(r, "producer.prefer", "expected \"hard\", \"pytorch\" or \"soft\"");
	return 0;
}

static int
is_hex64(const char *s)
{
	size_t i = 0;

	while (i < 64 && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i == 64 && s[64] == '\0';
}

/* graph.nodes, when given (nodes >= 0), is the graph's node count: a hand-edited or
 * foreign partition is refused as one made for another graph (it was never read). */
static int
nodes_match(reader *r, int64_t nodes)
{
	if (nodes < 0 || (uint64_t)nodes == (uint64_t)r->g->n)
		return 0;
	ilpi_err(r->err, ILP_ERR_INPUT, "%s: field 'graph.nodes': partition made for a graph of "
	    "%lld nodes (%s has %zu)", r->path, (long long)nodes, r->g->path, r->g->n);
	return -1;
}

/* "graph": {"fingerprint": HEX, "nodes": N}. A partition made for another graph is
 * refused before any name is looked up: its names would mislead. */
static int
read_graph(reader *r, const cJSON *root)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "graph");
	const cJSON *fp;
	int64_t nodes = -1;

	if (o == NULL)
		return 0;
	if (!cJSON_IsObject(o))
		return bad(r, "graph", "expected an object");
	if (get_int64(r, o, "nodes", "graph.nodes", &nodes) < 0)
		return -1;
	fp = cJSON_GetObjectItemCaseSensitive(o, "fingerprint");
	if (fp == NULL)
		return nodes_match(r, nodes);
	if (!cJSON_IsString(fp) || !is_hex64(fp->valuestring))
		return bad(r, "graph.fingerprint", "expected 64 lowercase hex digits");
	if (strcmp(fp->valuestring, r->g->fingerprint) != 0) {
		ilpi_err(r->err, ILP_ERR_INPUT, "%s: partition made for another graph (fingerprint %.16s, "
		    "%s has %.16s); map it with `ilpart remap` if only node names differ",
		    r->path, fp->valuestring, r->g->path, r->g->fingerprint);
		return -1;
	}
	memcpy(r->p->graph_fp, fp->valuestring, sizeof r->p->graph_fp);
	return nodes_match(r, nodes);
}

/* "options": informational, kept so that remapping and rewriting preserve it. */
static int
read_options(reader *r, const cJSON *root)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "options");
	const cJSON *pol;
	ilpi_run_options *x = &r->p->opt;

	if (o == NULL)
		return 0;
	if (!cJSON_IsObject(o))
		return bad(r, "options", "expected an object");
	x->known = 1;
#define REC_NONE 0
#define REC_NUM(key, scope, cmp, get) get_number(r, o, key, "options." key, &v->num) < 0
#define REC_INT(key, scope, get) get_int64(r, o, key, "options." key, &v->i) < 0
#define REC_STR(key, scope, size, get) \
	get_string(r, o, key, "options." key, v->str, size) < 0
#define REC_INT_OR_NUM(k1, k2, scope, get1, get2) \
	(get_int64(r, o, k1, "options." k1, &v->i) < 0 || \
	get_number(r, o, k2, "options." k2, &v->num) < 0)
#define REC_NUM_OR_NUM(k1, k2, scope, get1, get2) \
	(get_number(r, o, k1, "options." k1, &v->num) < 0 || \
	get_number(r, o, k2, "options." k2, &v->num2) < 0)
#define REC_POLICY \
	((pol = cJSON_GetObjectItemCaseSensitive(o, "policy")) != NULL && \
	(!cJSON_IsObject(pol) ? bad(r, "options.policy", "expected an object") < 0 : \
	get_string(r, pol, "name", "options.policy.name", x->policy_name, \
	sizeof x->policy_name) < 0 || \
	get_string(r, pol, "sha256", "options.policy.sha256", x->policy_sha256, \
	sizeof x->policy_sha256) < 0))
#define REC_READ_(id, flag, sh, arg, def, parse, check, rec, store, help) \
	{ ilpi_run_value *v = &x->v[ILPI_OPT_##id]; (void)v; if (rec) return -1; }
	ILPI_SOLVE_OPTIONS(REC_READ_)
#undef REC_READ_
#include "graph/solve_options_rec_end.h"
	return get_string(r, o, "ilpart", "options.ilpart", x->version,
	    sizeof x->version) < 0 ? -1 : 0;
}

static int
read_cost(reader *r, const cJSON *root)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "cost");
	ilp_partition *p = r->p;

	if (o == NULL)
		return 0;
	if (!cJSON_IsObject(o))
		return bad(r, "cost", "expected an object");
	p->has_cost = 1;
	if (get_int64(r, o, "saved_bytes", "cost.saved_bytes", &p->saved_bytes) < 0 ||
	    get_number(r, o, "recompute_flops", "cost.recompute_flops",
	    &p->recompute_flops) < 0 ||
	    get_number(r, o, "recompute_time_us", "cost.recompute_time_us",
	    &p->recompute_time_us) < 0)
		return -1;
	return 0;
}

static int
read_overrides(reader *r, const cJSON *root)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "overrides");
	const cJSON *e;

	if (a == NULL)
		return 0;
	if (!cJSON_IsArray(a))
		return bad(r, "overrides", "expected an array");
	cJSON_ArrayForEach(e, a) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "node");
		const cJSON *tag = cJSON_GetObjectItemCaseSensitive(e, "tag");
		double gain = 0;
		ilpi_tag t;
		long i;

		if (!cJSON_IsObject(e))
			return bad(r, "overrides", "expected objects");
		if (!cJSON_IsString(name))
			return bad(r, "overrides.node", "expected a node name");
		if ((i = lookup(r, name->valuestring, "overrides")) < 0)
			return -1;
		if (!cJSON_IsString(tag) || ilpi_tag_parse(tag->valuestring, &t) != 0) {
			ilpi_err(r->err, ILP_ERR_INPUT, "%s: node '%s': field 'overrides.tag': "
			    "expected a SAC tag", r->path, name->valuestring);
			return -1;
		}
		if (get_number(r, e, "gain", "overrides.gain", &gain) < 0)
			return -1;
		if (ilpi_partition_add_override(r->p, (int32_t)i, (uint8_t)t, gain) != 0) {
			ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
			return -1;
		}
	}
	return 0;
}

static int
read_header(reader *r, const cJSON *root)
{
	return ilpi_json_header(root, "ilpart-partition", r->path, NULL, r->err);
}

int
ilp_partition_read_buffer(const ilp_graph *g, const char *buf, size_t len, const char *name,
    ilp_partition **out, ilp_error *err)
{
	reader r = { g, name != NULL ? name : "<partition>", NULL, err };
	cJSON *root;

	*out = NULL;
	ilpi_err_clear(err);
	if ((root = ilpi_json_parse(buf, len, r.path, err)) == NULL)
		return -1;
	if (!cJSON_IsObject(root)) {
		bad(&r, "(top level)", "expected an object");
		goto fail;
	}
	if ((r.p = ilp_partition_new(g)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", r.path);
		goto fail;
	}
	if (read_header(&r, root) != 0 || read_graph(&r, root) != 0 ||
	    read_producer(&r, root) != 0 || read_options(&r, root) != 0 ||
	    read_list(&r, root, "saved", ILPI_P_SAVED, 1) != 0 ||
	    read_list(&r, root, "recomputed", ILPI_P_RECOMPUTED, 0) != 0 ||
	    read_list(&r, root, "rng_states", ILPI_P_RNG_SAVED, 0) != 0 ||
	    read_list(&r, root, "offloaded", ILPI_P_OFFLOADED, 0) != 0 ||
	    read_cost(&r, root) != 0 || read_overrides(&r, root) != 0)
		goto fail;
	if (cJSON_GetObjectItemCaseSensitive(root, "recomputed") == NULL)
		ilpi_partition_complete(g, r.p, 0);
	cJSON_Delete(root);
	*out = r.p;
	return 0;
fail:
	cJSON_Delete(root);
	ilp_partition_free(r.p);
	return -1;
}

typedef struct partition_target {
	const ilp_graph *g;
	ilp_partition **out;
} partition_target;

static int
partition_reader(char *buf, size_t len, const char *name, void *ctx, ilp_error *err)
{
	partition_target *t = ctx;

	return ilp_partition_read_buffer(t->g, buf, len, name, t->out, err);
}

int
ilp_partition_read_file(const ilp_graph *g, const char *path, ilp_partition **out,
    ilp_error *err)
{
	partition_target t = { g, out };

	*out = NULL;
	return ilpi_read_file_with(path, partition_reader, &t, err);
}

/* ---- writer ---------------------------------------------------------------- */

static void
write_list(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p, const char *key,
    unsigned bit)
{
	int first = 1;

	ilpi_buf_printf(b, ",\n  \"%s\": [", key);
	for (size_t i = 0; i < p->n && i < g->n; i++) {
		if (!(p->state[i] & bit))
			continue;
		ilpi_buf_puts(b, first ? "\n    " : ",\n    ");
		ilpi_buf_json_str(b, g->node[i].name);
		first = 0;
	}
	ilpi_buf_puts(b, first ? "]" : "\n  ]");
}

static void
write_producer(ilpi_buf *b, const ilp_partition *p)
{
	const char *sep = "";
	const struct {
		const char *key, *val;
	} s[] = {
		{ "method", p->method }, { "objective", p->objective },
		{ "prefer", p->prefer }, { "status", p->status },
	};

	ilpi_buf_puts(b, ",\n  \"producer\": {");
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		if (s[i].val[0] == '\0')
			continue;
		ilpi_buf_printf(b, "%s\"%s\": ", sep, s[i].key);
		ilpi_buf_json_str(b, s[i].val);
		sep = ", ";
	}
	if (p->gap >= 0) {
		ilpi_buf_printf(b, "%s\"gap\": ", sep);
		ilpi_buf_json_num(b, p->gap);
		sep = ", ";
	}
	if (p->objective_value >= 0) {
		ilpi_buf_printf(b, "%s\"objective_value\": ", sep);
		ilpi_buf_json_num(b, p->objective_value);
		sep = ", ";
	}
	if (p->budget_bytes >= 0) {
		ilpi_buf_printf(b, "%s\"budget_bytes\": %lld", sep, (long long)p->budget_bytes);
		sep = ", ";
	}
	if (p->peak_cap_bytes >= 0) {
		ilpi_buf_printf(b, "%s\"peak_cap_bytes\": %lld", sep, (long long)p->peak_cap_bytes);
		sep = ", ";
	}
	if (p->note[0] != '\0') {
		ilpi_buf_printf(b, "%s\"note\": ", sep);
		ilpi_buf_json_str(b, p->note);
	}
	ilpi_buf_puts(b, "}");
}

/* Options are what a user typed: 0.3, not 0.29999999999999999. */
static void
short_num(ilpi_buf *b, double v)
{
	char t[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(t, sizeof t, "%.*g", prec, v);
		if (strtod(t, NULL) == v)
			break;
	}
	ilpi_buf_puts(b, t);
}

/* One number under "options": `"key": N, `. */
static void
put_num(ilpi_buf *b, const char *key, double x)
{
	ilpi_buf_printf(b, "\"%s\": ", key);
	short_num(b, x);
	ilpi_buf_puts(b, ", ");
}

static void
put_str(ilpi_buf *b, const char *key, const char *s)
{
	ilpi_buf_printf(b, "\"%s\": ", key);
	ilpi_buf_json_str(b, s);
	ilpi_buf_puts(b, ", ");
}

static void
write_provenance(ilpi_buf *b, const ilp_graph *g, const ilp_partition *p)
{
	const ilpi_run_options *o = &p->opt;

	if (p->graph_fp[0] != '\0')
		ilpi_buf_printf(b, ",\n  \"graph\": {\"fingerprint\": \"%s\", \"nodes\": %zu}",
		    p->graph_fp, g->n);
	if (!o->known)
		return;
	ilpi_buf_puts(b, ",\n  \"options\": {");
#define REC_NONE
#define REC_NUM(key, scope, cmp, get) if (v->num cmp 0) put_num(b, key, v->num);
#define REC_INT(key, scope, get) \
	if (v->i >= 0) ilpi_buf_printf(b, "\"%s\": %lld, ", key, (long long)v->i);
#define REC_STR(key, scope, size, get) if (v->str[0] != '\0') put_str(b, key, v->str);
#define REC_INT_OR_NUM(k1, k2, scope, get1, get2) \
	if (v->i >= 0) ilpi_buf_printf(b, "\"%s\": %lld, ", k1, (long long)v->i); \
	else if (v->num >= 0) put_num(b, k2, v->num);
#define REC_NUM_OR_NUM(k1, k2, scope, get1, get2) \
	if (v->num >= 0) put_num(b, k1, v->num); \
	else if (v->num2 >= 0) put_num(b, k2, v->num2);
#define REC_POLICY \
	if (o->policy_sha256[0] != '\0') { \
		ilpi_buf_puts(b, "\"policy\": {\"name\": "); \
		ilpi_buf_json_str(b, o->policy_name); \
		ilpi_buf_puts(b, ", \"sha256\": "); \
		ilpi_buf_json_str(b, o->policy_sha256); \
		ilpi_buf_puts(b, "}, "); \
	}
#define REC_WRITE_(id, flag, sh, arg, def, parse, check, rec, store, help) \
	{ const ilpi_run_value *v = &o->v[ILPI_OPT_##id]; (void)v; rec }
	ILPI_SOLVE_OPTIONS(REC_WRITE_)
#undef REC_WRITE_
#include "graph/solve_options_rec_end.h"
	ilpi_buf_puts(b, "\"ilpart\": ");
	ilpi_buf_json_str(b, o->version[0] != '\0' ? o->version : "unknown");
	ilpi_buf_puts(b, "}");
}

static int
cmp_override(const void *a, const void *b)
{
	const ilpi_override *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (int)x->tag - (int)y->tag;
}

int
ilp_partition_to_json(const ilp_graph *g, const ilp_partition *p, char **out, ilp_error *err)
{
	ilpi_override *sorted = NULL;
	ilpi_buf b;

	*out = NULL;
	ilpi_err_clear(err);
	if (ilpi_partition_fits(g, p, err) != 0)
		return -1;
	ilpi_buf_init(&b);
	ilpi_buf_puts(&b, "{\n  \"format\": \"ilpart-partition\",\n  \"version\": 1");
	write_producer(&b, p);
	write_provenance(&b, g, p);
	write_list(&b, g, p, "saved", ILPI_P_SAVED);
	write_list(&b, g, p, "recomputed", ILPI_P_RECOMPUTED);
	if (ilpi_partition_count(p, ILPI_P_RNG_SAVED) > 0)
		write_list(&b, g, p, "rng_states", ILPI_P_RNG_SAVED);
	if (ilpi_partition_count(p, ILPI_P_OFFLOADED) > 0)
		write_list(&b, g, p, "offloaded", ILPI_P_OFFLOADED);
	if (p->has_cost) {
		ilpi_buf_printf(&b, ",\n  \"cost\": {\"saved_bytes\": %lld, \"recompute_flops\": ",
		    (long long)p->saved_bytes);
		ilpi_buf_json_num(&b, p->recompute_flops);
		ilpi_buf_puts(&b, ", \"recompute_time_us\": ");
		ilpi_buf_json_num(&b, p->recompute_time_us);
		if (ilpi_partition_offloaded_bytes(g, p) > 0)
			ilpi_buf_printf(&b, ", \"offloaded_bytes\": %lld",
			    (long long)ilpi_partition_offloaded_bytes(g, p));
		ilpi_buf_puts(&b, "}");
	}
	if (p->n_overrides > 0 && (sorted = malloc(p->n_overrides * sizeof *sorted)) == NULL)
		b.failed = 1;
	if (sorted != NULL) {
		/* Graph order, whatever order the solver found them in. */
		memcpy(sorted, p->overrides, p->n_overrides * sizeof *sorted);
		qsort(sorted, p->n_overrides, sizeof *sorted, cmp_override);
		ilpi_buf_puts(&b, ",\n  \"overrides\": [");
		for (size_t i = 0; i < p->n_overrides; i++) {
			const ilpi_override *o = &sorted[i];

			ilpi_buf_puts(&b, i == 0 ? "\n    {\"node\": " : ",\n    {\"node\": ");
			ilpi_buf_json_str(&b, g->node[o->node].name);
			ilpi_buf_printf(&b, ", \"tag\": \"%s\", \"gain\": ",
			    ilpi_tag_name((ilpi_tag)o->tag));
			ilpi_buf_json_num(&b, o->gain);
			ilpi_buf_puts(&b, "}");
		}
		ilpi_buf_puts(&b, "\n  ]");
		free(sorted);
	}
	ilpi_buf_puts(&b, "\n}\n");
	if ((*out = ilpi_buf_take(&b)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	return 0;
}
