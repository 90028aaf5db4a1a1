/*
 * policy_file.c - SAC policy files (docs/policies.md): JSON -> ilp_policy, applying a
 * policy to a graph's tags, and the --prefer / --bans spellings.
 *
 * A policy file plays the part of the policy_fn a user hands to PyTorch's
 * create_selective_checkpoint_contexts: for every op in the chosen checkpoint regions
 * it answers MUST_SAVE / PREFER_RECOMPUTE / ... by the op's name. cJSON trees never
 * leave this file; every rejection is one line naming the file and the field.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/grow.h"
#include "graph/json_parse.h"
#include "graph/sha256.h"
#include "policies/policy_file.h"

/* ---- matching --------------------------------------------------------------------- */

static const char *
strip_torch_ops(const char *s)
{
	return strncmp(s, "torch.ops.", 10) == 0 ? s + 10 : s;
}

int
ilpi_op_matches(const char *pat, const char *target)
{
	size_t plen;

	if (target == NULL)
		return 0;
	pat = strip_torch_ops(pat);
	target = strip_torch_ops(target);
	if (strpbrk(pat, "*?[") != NULL)
		return fnmatch(pat, target, 0) == 0;
	if (strcmp(pat, target) == 0)
		return 1;
	/* An overload packet covers its overloads: "aten.mm" covers "aten.mm.default". */
	plen = strlen(pat);
	return strncmp(pat, target, plen) == 0 && target[plen] == '.' &&
	    strchr(target + plen + 1, '.') == NULL && strchr(pat, '.') != NULL;
}

int
ilpi_policy_tag(const ilp_policy *pol, const char *target)
{
	for (size_t i = 0; i < pol->n_pat; i++)
		if (ilpi_op_matches(pol->pat[i].text, target))
			return pol->pat[i].tag;
	return pol->has_default ? pol->default_tag : -1;
}

const char *
ilp_policy_lookup(const ilp_policy *pol, const char *target)
{
	int t = ilpi_policy_tag(pol, target);

	return t < 0 ? NULL : ilpi_tag_name((ilpi_tag)t);
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct preader {
	ilp_policy *pol;
	ilp_error *err;
	const char *path;
} preader;

static int
pfail(preader *r, const char *field, const char *what)
{
	ilpi_err(r->err, ILP_ERR_INPUT, "%s: policy: field '%s': %s", r->path, field, what);
	return -1;
}

static int
nomem(preader *r)
{
	ilpi_err(r->err, ILP_ERR_SYSTEM, "%s: out of memory", r->path);
	return -1;
}

static int
read_tag(preader *r, const cJSON *v, const char *field, uint8_t *out)
{
	ilpi_tag t;
	char msg[200];

	if (!cJSON_IsString(v))
		return pfail(r, field, "expected a policy name (MUST_SAVE, PREFER_SAVE, "
		    "MUST_RECOMPUTE or PREFER_RECOMPUTE)");
	if (ilpi_tag_parse(v->valuestring, &t) != 0) {
		snprintf(msg, sizeof msg, "unknown policy '%.60s' (MUST_SAVE, PREFER_SAVE, "
		    "MUST_RECOMPUTE or PREFER_RECOMPUTE)", v->valuestring);
		return pfail(r, field, msg);
	}
	if (t == ILPI_TAG_MUST_CPU_OFFLOAD || t == ILPI_TAG_PREFER_CPU_OFFLOAD) {
		/* the offload itself is torch's (the bridge marks what the graph tags), so a
		 * policy file cannot ask for one; never read it as another tag */
		snprintf(msg, sizeof msg, "policy '%s' cannot be given in a policy file (tag the "
		    "op with torch's SAC policy instead)", ilpi_tag_name(t));
		return pfail(r, field, msg);
	}
	*out = (uint8_t)t;
	return 0;
}

static int
add_ops(preader *r, const cJSON *ops, const char *field, uint8_t tag, uint32_t rule)
{
	ilp_policy *p = r->pol;
	char f[96];
	const cJSON *o;
	size_t k = 0, n;

	if (!cJSON_IsArray(ops))
		return pfail(r, field, "expected an array of op names or patterns");
	n = (size_t)cJSON_GetArraySize(ops);
	if (n == 0)
		return pfail(r, field, "empty list of ops");
	if (ILPI_GROW(p->pat, p->cap_pat, p->n_pat, n) != 0)
		return nomem(r);
	cJSON_ArrayForEach(o, ops) {
		snprintf(f, sizeof f, "%s[%zu]", field, k++);
		if (!cJSON_IsString(o))
			return pfail(r, f, "expected a string (an op name such as "
			    "\"aten.mm.default\", or a pattern)");
		if (strip_torch_ops(o->valuestring)[0] == '\0')
			return pfail(r, f, "empty op name");
		p->pat[p->n_pat].text = strdup(strip_torch_ops(o->valuestring));
		if (p->pat[p->n_pat].text == NULL)
			return nomem(r);
		p->pat[p->n_pat].tag = tag;
		p->pat[p->n_pat].rule = rule;
		p->pat[p->n_pat].item = (uint32_t)(k - 1);
		p->n_pat++;
	}
	return 0;
}

static int
read_rules(preader *r, const cJSON *rules)
{
	const cJSON *rule;
	uint32_t i = 0;

	if (!cJSON_IsArray(rules))
		return pfail(r, "rules", "expected an array of {\"ops\": [...], \"policy\": ...}");
	cJSON_ArrayForEach(rule, rules) {
		char f[32], fo[96];
		const cJSON *ops, *pol, *k;
		uint8_t tag;

		snprintf(f, sizeof f, "rules[%u]", i);
		if (!cJSON_IsObject(rule))
			return pfail(r, f, "expected an object {\"ops\": [...], \"policy\": ...}");
		cJSON_ArrayForEach(k, rule)
			if (strcmp(k->string, "ops") != 0 && strcmp(k->string, "policy") != 0 &&
			    strcmp(k->string, "comment") != 0) {
				snprintf(fo, sizeof fo, "%s.%.40s", f, k->string);
				return pfail(r, fo, "unknown key (ops, policy, comment)");
			}
		ops = cJSON_GetObjectItemCaseSensitive(rule, "ops");
		pol = cJSON_GetObjectItemCaseSensitive(rule, "policy");
		snprintf(fo, sizeof fo, "%s.policy", f);
		if (pol == NULL)
			return pfail(r, fo, "missing");
		if (read_tag(r, pol, fo, &tag) != 0)
			return -1;
		snprintf(fo, sizeof fo, "%s.ops", f);
		if (ops == NULL)
			return pfail(r, fo, "missing");
		if (add_ops(r, ops, fo, tag, i) != 0)
			return -1;
		i++;
	}
	return 0;
}

static int
read_regions(preader *r, const cJSON *v, const cJSON *id)
{
	ilp_policy *p = r->pol;
	const cJSON *e;
	size_t k = 0;

	p->region_id = 1;
	if (v == NULL || (cJSON_IsString(v) && strcmp(v->valuestring, "all") == 0)) {
		p->scope = ILPI_SCOPE_ALL;
	} else if (cJSON_IsString(v) && strcmp(v->valuestring, "graph") == 0) {
		p->scope = ILPI_SCOPE_GRAPH;
	} else if (cJSON_IsArray(v)) {
		p->scope = ILPI_SCOPE_LIST;
		p->regions = malloc(((size_t)cJSON_GetArraySize(v) + 1) * sizeof *p->regions);
		if (p->regions == NULL)
			return nomem(r);
		cJSON_ArrayForEach(e, v) {
			char f[48];

			snprintf(f, sizeof f, "regions[%zu]", k++);
			if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
			    e->valuedouble > INT32_MAX - 1 || e->valuedouble != floor(e->valuedouble))
				return pfail(r, f, "expected an ac_graph_id (an integer >= 0)");
			p->regions[p->n_regions++] = (int32_t)e->valuedouble;
		}
		if (p->n_regions == 0)
			return pfail(r, "regions", "empty list (use \"all\" or list ac_graph_ids)");
	} else {
		return pfail(r, "regions", "expected \"all\", \"graph\" or a list of ac_graph_ids");
	}
	if (id != NULL) {
		if (p->scope != ILPI_SCOPE_GRAPH)
			return pfail(r, "region_id", "only meaningful with \"regions\": \"graph\"");
		if (!cJSON_IsNumber(id) || !isfinite(id->valuedouble) || id->valuedouble < 0 ||
		    id->valuedouble > INT32_MAX - 1 || id->valuedouble != floor(id->valuedouble))
			return pfail(r, "region_id", "expected an ac_graph_id (an integer >= 0)");
		p->region_id = (int32_t)id->valuedouble;
	}
	return 0;
}

static const char *const top_keys[] = {
	"format", "version", "description", "regions", "region_id", "default", "save", "rules",
	"meta", NULL
};

static int
read_policy(preader *r, const cJSON *root)
{
	ilp_policy *p = r->pol;
	const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
	const cJSON *def = cJSON_GetObjectItemCaseSensitive(root, "default");
	const cJSON *save = cJSON_GetObjectItemCaseSensitive(root, "save");
	const cJSON *rules = cJSON_GetObjectItemCaseSensitive(root, "rules");
	const cJSON *k;

	if (!cJSON_IsObject(root))
		return pfail(r, "(top)", "expected a JSON object");
	cJSON_ArrayForEach(k, root) {
		int known = 0;

		for (int i = 0; top_keys[i] != NULL; i++)
			known |= strcmp(k->string, top_keys[i]) == 0;
		if (!known) {
			char f[64];

			snprintf(f, sizeof f, "%.60s", k->string);
			return pfail(r, f, "unknown key (format, version, description, regions, "
			    "region_id, default, save, rules, meta)");
		}
	}
	if (ilpi_json_header(root, "ilpart-policy", r->path, "policy", r->err) != 0)
		return -1;
	if (desc != NULL && !cJSON_IsNull(desc)) {
		if (!cJSON_IsString(desc))
			return pfail(r, "description", "expected a string");
		if ((p->description = strdup(desc->valuestring)) == NULL)
			return nomem(r);
	}
	if (read_regions(r, cJSON_GetObjectItemCaseSensitive(root, "regions"),
	    cJSON_GetObjectItemCaseSensitive(root, "region_id")) != 0)
		return -1;
	/* Like PyTorch's list form, unlisted ops default to PREFER_RECOMPUTE; "default":
	 * null leaves their tags as the graph has them. */
	p->has_default = 1;
	p->default_tag = ILPI_TAG_PREFER_RECOMPUTE;
	if (def != NULL && cJSON_IsNull(def))
		p->has_default = 0;
	else if (def != NULL && read_tag(r, def, "default", &p->default_tag) != 0)
		return -1;
	if (save == NULL && rules == NULL)
		return pfail(r, "rules", "missing (give \"save\": [ops] or \"rules\": [...])");
	if (save != NULL && add_ops(r, save, "save", ILPI_TAG_MUST_SAVE, UINT32_MAX) != 0)
		return -1;
	if (rules != NULL && read_rules(r, rules) != 0)
		return -1;
	return 0;
}

void
ilp_policy_free(ilp_policy *pol)
{
	if (pol == NULL)
		return;
	for (size_t i = 0; i < pol->n_pat; i++)
		free(pol->pat[i].text);
	free(pol->pat);
	free(pol->regions);
	free(pol->description);
	free(pol->path);
	free(pol);
}

int
ilp_policy_read_buffer(const char *buf, size_t len, const char *name, ilp_policy **out,
    ilp_error *err)
{
	preader r = { NULL, err, name != NULL ? name : "<policy>" };
	cJSON *root;

	*out = NULL;
	ilpi_err_clear(err);
	if ((root = ilpi_json_parse(buf, len, r.path, err)) == NULL)
		return -1;
	r.pol = calloc(1, sizeof *r.pol);
	if (r.pol == NULL || (r.pol->path = strdup(r.path)) == NULL) {
		cJSON_Delete(root);
		ilp_policy_free(r.pol);
		return nomem(&r);
	}
	if (read_policy(&r, root) != 0) {
		cJSON_Delete(root);
		ilp_policy_free(r.pol);
		return -1;
	}
	cJSON_Delete(root);
	ilpi_sha256_buf(buf, len, r.pol->sha256);
	*out = r.pol;
	return 0;
}

static int
policy_reader(char *buf, size_t len, const char *name, void *out, ilp_error *err)
{
	return ilp_policy_read_buffer(buf, len, name, out, err);
}

int
ilp_policy_read_file(const char *path, ilp_policy **out, ilp_error *err)
{
	*out = NULL;
	return ilpi_read_file_with(path, policy_reader, out, err);
}

/* ---- applying -------------------------------------------------------------------- */

static int
in_scope(const ilp_policy *pol, const ilpi_node *n)
{
	switch (pol->scope) {
	case ILPI_SCOPE_ALL:
		return n->ac_graph_id != ILPI_NONE;
	case ILPI_SCOPE_GRAPH: /* unclaimed ops are traced with the backward: untagged */
		return n->cls == ILPI_FORWARD;
	case ILPI_SCOPE_LIST:
		for (size_t i = 0; i < pol->n_regions; i++)
			if (pol->regions[i] == n->ac_graph_id)
				return 1;
		return 0;
	}
	return 0;
}

/* Partitions made for g record which policy tagged it: file name (without its
 * directory: the same policy may live anywhere) and content hash. */
static int
record_policy(const ilp_policy *pol, ilp_graph *g, ilp_error *err)
{
	const char *base = strrchr(pol->path, '/');

	free(g->policy_name);
	if ((g->policy_name = strdup(base != NULL ? base + 1 : pol->path)) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", pol->path);
		return -1;
	}
	memcpy(g->policy_sha256, pol->sha256, sizeof g->policy_sha256);
	return 0;
}

void
ilp_policy_set_warnings(ilp_policy *pol, ilp_log_fn fn, void *ctx)
{
	if (pol == NULL)
		return;
	pol->warn = fn;
	pol->warn_ctx = ctx;
}

/* Edit distance (insert, delete, substitute) of a and b, capped at 255 characters. */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 255), lb = strnlen(b, 255), row[256];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

#define CLOSEST 3

static int
policy_covers(const ilp_policy *pol, const ilpi_node *n)
{
	return n->kind == ILPI_OP && n->cls != ILPI_BACKWARD && n->target != NULL &&
	    in_scope(pol, n);
}

/* Up to CLOSEST distinct targets of the ops `pol` covers in g nearest to `pat` by edit
 * distance, as "a, b, c" in `out` (empty when it covers no op). */
static void
closest_targets(const ilp_policy *pol, const ilp_graph *g, const char *pat, char *out,
    size_t size)
{
	const char *best[CLOSEST] = { NULL };
	size_t dist[CLOSEST], used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < g->n; i++) {
		const char *t = g->node[i].target;
		size_t d, k;
		int dup = 0;

		if (!policy_covers(pol, &g->node[i]))
			continue;
		for (k = 0; k < used; k++)
			dup |= best[k] == t; /* interned: one pointer per name */
		if (dup)
			continue;
		d = edit_distance(pat, t);
		for (k = used; k > 0 && dist[k - 1] > d; k--)
			if (k < CLOSEST) {
				best[k] = best[k - 1];
				dist[k] = dist[k - 1];
			}
		if (k < CLOSEST) {
			best[k] = t;
			dist[k] = d;
			if (used < CLOSEST)
				used++;
		}
	}
	for (size_t k = 0; k < used; k++) {
		size_t len = strlen(out);

		snprintf(out + len, size - len, "%s%s", k ? ", " : "", best[k]);
	}
}

/* Each rule of `pol` that matches no op it covers in g is reported through pol->warn,
 * naming the rule and the closest op names of the graph: a typo such as
 * "aten.mmm.default" otherwise silently leaves every matmul to the default. */
static void
warn_unmatched(const ilp_policy *pol, const ilp_graph *g)
{
	for (size_t p = 0; p < pol->n_pat && pol->warn != NULL; p++) {
		const ilpi_pattern *pat = &pol->pat[p];
		char field[48], near[512], elsewhere[96] = "", line[1024];
		size_t hit = 0, outside = 0;

		for (size_t i = 0; i < g->n && !hit; i++) {
			const ilpi_node *n = &g->node[i];

			if (n->kind != ILPI_OP || !ilpi_op_matches(pat->text, n->target))
				continue;
			if (policy_covers(pol, n))
				hit++;
			else
				outside++;
		}
		if (hit)
			continue;
		if (outside)
			snprintf(elsewhere, sizeof elsewhere, " (%zu matching op%s in the backward or "
			    "outside its regions)", outside, outside == 1 ? " is" : "s are");
		if (pat->rule == UINT32_MAX)
			snprintf(field, sizeof field, "save[%u]", pat->item);
		else
			snprintf(field, sizeof field, "rules[%u].ops[%u]", pat->rule, pat->item);
		closest_targets(pol, g, pat->text, near, sizeof near);
		snprintf(line, sizeof line, "%s: policy: field '%s': '%.200s' matches no op the "
		    "policy covers in %s%s%s%s", pol->path, field, pat->text, g->path, elsewhere,
		    near[0] ? "; closest covered ops: " : "", near);
		pol->warn(pol->warn_ctx, line);
	}
}

int
ilp_policy_apply(const ilp_policy *pol, ilp_graph *g, ilp_error *err)
{
	size_t i, covered = 0;

	ilpi_err_clear(err);
	if (pol == NULL || g == NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "policy: nothing to apply");
		return -1;
	}
	/* Ops in graph order; a getitem comes after its parent and takes its tag and
	 * region, as PyTorch's SAC mode tags the projections of a multi-output op. */
	for (i = 0; i < g->n; i++) {
		ilpi_node *n = &g->node[i];
		int tag;

		if (n->kind != ILPI_OP || n->cls == ILPI_BACKWARD)
			continue;
		if ((n->flags & ILPI_F_GETITEM) && n->in_count == 1) {
			const ilpi_node *p = &g->node[g->in[n->in_begin]];

			n->tag = p->tag;
			n->ac_graph_id = p->ac_graph_id;
			continue;
		}
		if (!in_scope(pol, n))
			continue;
		covered++;
		tag = ilpi_policy_tag(pol, n->target);
		if (tag < 0)
			continue;
		n->tag = (uint8_t)tag;
		if (n->ac_graph_id == ILPI_NONE)
			n->ac_graph_id = pol->region_id;
	}
	/* A policy that reaches nothing is a mistake worth stopping for (typically a
	 * graph exported without checkpoint regions). */
	if (covered == 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: policy: field 'regions': covers no op of %s "
		    "(no forward op is in %s; \"regions\": \"graph\" covers the whole forward)",
		    pol->path, g->path, pol->scope == ILPI_SCOPE_ALL ? "any checkpoint region" :
		    "the listed regions");
		return -1;
	}
	warn_unmatched(pol, g);
	return record_policy(pol, g, err);
}
