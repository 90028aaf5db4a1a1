/* store.c - reading a partition store's entries and stored results (cli/store.h). */
#include "config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/store.h"
#include "graph/fileio.h"

int
cli_is_key(const char *s)
{
	size_t i = 0;

	while (i < 64 && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i == 64 && s[64] == '\0';
}

/* Options an entry may carry: those of solve that change the question. Each takes one
 * value except the flags. */
static const char *const allowed[] = {
	"--objective", "--memory-budget", "--peak-budget", "--alpha", "--device", "--gap",
	"--rng-replay", "--policy", "--prefer", "--bans", "--fraction-cap",
};
static const char *const flags[] = { "--monolithic" };

/* 2: an option with a value, 1: a flag, 0: not allowed. */
static int
allowed_option(const char *a)
{
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
		if (strcmp(a, allowed[i]) == 0)
			return 2;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (strcmp(a, flags[i]) == 0)
			return 1;
	return 0;
}

/* "policies/HEX.json": a policy the store holds, by content hash. */
static int
store_policy(const char *v)
{
	char hex[65];

	if (strncmp(v, "policies/", 9) != 0 || strlen(v) != 9 + 64 + 5 ||
	    strcmp(v + 9 + 64, ".json") != 0)
		return 0;
	memcpy(hex, v + 9, 64);
	hex[64] = '\0';
	return cli_is_key(hex);
}

static int
bad(char *msg, size_t size, const char *what)
{
	snprintf(msg, size, "%s", what);
	return -1;
}

static int
read_args(const cJSON *a, cli_entry *e, char *msg, size_t size)
{
	const cJSON *v;
	size_t n = 0;
	int want_value = 0;

	if (!cJSON_IsArray(a))
		return bad(msg, size, "field 'args': expected an array of strings");
	e->args = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *e->args);
	if (e->args == NULL)
		return bad(msg, size, "out of memory");
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v))
			return bad(msg, size, "field 'args': expected an array of strings");
		if (want_value) {
			if (strcmp(e->args[n - 1], "--policy") == 0 && !store_policy(v->valuestring))
				return bad(msg, size, "field 'args': --policy must name "
				    "policies/SHA256.json");
			want_value = 0;
		} else {
			int kind = allowed_option(v->valuestring);

			if (kind == 0) {
				snprintf(msg, size, "field 'args': option '%.60s' is not allowed in a "
				    "store entry", v->valuestring);
				return -1;
			}
			want_value = kind == 2;
		}
		if ((e->args[n] = strdup(v->valuestring)) == NULL)
			return bad(msg, size, "out of memory");
		e->n_args = ++n;
	}
	if (want_value)
		return bad(msg, size, "field 'args': an option without its value");
	return 0;
}

int
cli_entry_read(const char *path, const char *key, cli_entry *e, char *msg, size_t size)
{
	ilp_error err = { 0 };
	char *buf = NULL, expect[96];
	size_t len = 0;
	cJSON *root = NULL;
	const cJSON *fmt, *ver, *fp, *graph, *nodes;
	int rc = -1;

	memset(e, 0, sizeof *e);
	e->nodes = -1;
	if (!cli_is_key(key))
		return bad(msg, size, "file name is not KEY.json with a 64-digit hex KEY");
	snprintf(e->key, sizeof e->key, "%s", key);
	if (ilpi_read_file(path, &buf, &len, &err) != 0)
		return bad(msg, size, err.msg);
	if ((root = cJSON_ParseWithLength(buf, len)) == NULL || !cJSON_IsObject(root)) {
		bad(msg, size, "not a JSON object");
		goto out;
	}
	fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	ver = cJSON_GetObjectItemCaseSensitive(root, "version");
	fp = cJSON_GetObjectItemCaseSensitive(root, "fingerprint");
	graph = cJSON_GetObjectItemCaseSensitive(root, "graph");
	nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "ilpart-store-entry") != 0) {
		bad(msg, size, "field 'format': expected \"ilpart-store-entry\"");
		goto out;
	}
	if (!cJSON_IsNumber(ver) || ver->valuedouble != 1) {
		bad(msg, size, "field 'version': unsupported (this ilpart reads 1)");
		goto out;
	}
	if (!cJSON_IsString(fp) || !cli_is_key(fp->valuestring)) {
		bad(msg, size, "field 'fingerprint': expected 64 lowercase hex digits");
		goto out;
	}
	snprintf(e->fingerprint, sizeof e->fingerprint, "%s", fp->valuestring);
	snprintf(expect, sizeof expect, "graphs/%s.json", e->fingerprint);
	if (!cJSON_IsString(graph) || strcmp(graph->valuestring, expect) != 0) {
		bad(msg, size, "field 'graph': expected \"graphs/FINGERPRINT.json\"");
		goto out;
	}
	snprintf(e->graph, sizeof e->graph, "%s", expect);
	if (cJSON_IsNumber(nodes))
		e->nodes = (long)nodes->valuedouble;
	if (read_args(cJSON_GetObjectItemCaseSensitive(root, "args"), e, msg, size) != 0)
		goto out;
	rc = 0;
out:
	cJSON_Delete(root);
	free(buf);
	if (rc != 0)
		cli_entry_free(e);
	return rc;
}

void
cli_entry_free(cli_entry *e)
{
	for (size_t i = 0; e->args != NULL && i < e->n_args; i++)
		free(e->args[i]);
	free(e->args);
	e->args = NULL;
	e->n_args = 0;
}

void
cli_result_peek(const char *path, cli_result *r)
{
	ilp_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	cJSON *root = NULL;
	const cJSON *fmt, *prod, *v;

	memset(r, 0, sizeof *r);
	r->objective = -1;
	r->gap = -1;
	if (ilpi_read_file(path, &buf, &len, &err) != 0)
		return;
	root = cJSON_ParseWithLength(buf, len);
	free(buf);
	fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "ilpart-partition") != 0 ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "saved"))) {
		cJSON_Delete(root);
		return;
	}
	r->present = 1;
	prod = cJSON_GetObjectItemCaseSensitive(root, "producer");
	if ((v = cJSON_GetObjectItemCaseSensitive(prod, "status")) != NULL && cJSON_IsString(v))
		snprintf(r->status, sizeof r->status, "%s", v->valuestring);
	if ((v = cJSON_GetObjectItemCaseSensitive(prod, "objective_value")) != NULL &&
	    cJSON_IsNumber(v))
		r->objective = v->valuedouble;
	if ((v = cJSON_GetObjectItemCaseSensitive(prod, "gap")) != NULL && cJSON_IsNumber(v))
		r->gap = v->valuedouble;
	cJSON_Delete(root);
}

int
cli_result_better(const cli_result *a, const cli_result *b)
{
	int ao = strcmp(a->status, "optimal") == 0, bo = strcmp(b->status, "optimal") == 0;

	if (!a->present)
		return 0;
	if (!b->present)
		return 1;
	if (ao != bo)
		return ao;
	if (a->objective >= 0 && b->objective >= 0 && a->objective != b->objective)
		return a->objective < b->objective;
	if (a->objective >= 0 && b->objective < 0)
		return 1;
	if (a->gap >= 0 && (b->gap < 0 || a->gap < b->gap))
		return 1;
	return 0;
}
