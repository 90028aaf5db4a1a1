/* store.c - reading a partition store's entries and stored results (cli/store.h). */
#include "config.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store.h"
#include "graph/fileio.h"
#include "graph/json_parse.h"
#include "graph/sha256.h"
#include "graph/strbuf.h"

int
cli_is_key(const char *s)
{
	size_t i = 0;

	while (i < 64 && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i == 64 && s[64] == '\0';
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
			/* those of solve that change the question (STORE in
			 * graph/solve_options.h) */
			int kind = cli_solve_opt_store(v->valuestring);

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

/* s as Python's json.dumps writes it (ensure_ascii): '"' and '\\' escaped, the short
 * escapes, other control characters and every non-ASCII code point as \\u with four
 * lowercase hex digits (UTF-16 surrogate pairs above U+FFFF). -1 on invalid UTF-8,
 * which Python could not have written. */
static int
py_json_str(ilpi_buf *b, const char *s)
{
	static const char shortesc[0x20][3] = { ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n",
		['\f'] = "\\f", ['\r'] = "\\r" };
	const unsigned char *p = (const unsigned char *)s;

	ilpi_buf_add(b, "\"", 1);
	while (*p != '\0') {
		unsigned long cp;
		int more;

		if (*p < 0x80) {
			if (*p == '"' || *p == '\\')
				ilpi_buf_printf(b, "\\%c", *p);
			else if (*p < 0x20 && shortesc[*p][0] != '\0')
				ilpi_buf_puts(b, shortesc[*p]);
			else if (*p < 0x20)
				ilpi_buf_printf(b, "\\u%04x", *p);
			else
				ilpi_buf_add(b, (const char *)p, 1);
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0) {
			cp = *p & 0x1f;
			more = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			cp = *p & 0x0f;
			more = 2;
		} else if ((*p & 0xf8) == 0xf0) {
			cp = *p & 0x07;
			more = 3;
		} else {
			return -1;
		}
		for (p++; more > 0; more--, p++) {
			if ((*p & 0xc0) != 0x80)
				return -1;
			cp = cp << 6 | (*p & 0x3f);
		}
		if (cp < 0x80 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return -1;
		if (cp >= 0x10000)
			ilpi_buf_printf(b, "\\u%04lx\\u%04lx", 0xd800 + ((cp - 0x10000) >> 10),
			    0xdc00 + ((cp - 0x10000) & 0x3ff));
		else
			ilpi_buf_printf(b, "\\u%04lx", cp);
	}
	ilpi_buf_add(b, "\"", 1);
	return 0;
}

/* The key of an entry's request, as ilpart.store.entry_key computes it: the SHA-256 of
 * {"args":[...],"fingerprint":"...","ilpart":"..."} with sorted keys and no spaces
 * ("ilpart" only when the entry records it). 0, or -1 when it cannot be computed. */
static int
request_key(const cJSON *args, const char *fp, const cJSON *version, char key[65])
{
	ilpi_buf b;
	const cJSON *v;
	int rc = 0, first = 1;
	char *text;

	ilpi_buf_init(&b);
	ilpi_buf_puts(&b, "{\"args\":[");
	cJSON_ArrayForEach(v, args) {
		if (!first)
			ilpi_buf_puts(&b, ",");
		first = 0;
		rc |= py_json_str(&b, v->valuestring);
	}
	ilpi_buf_puts(&b, "],\"fingerprint\":");
	rc |= py_json_str(&b, fp);
	if (version != NULL) {
		ilpi_buf_puts(&b, ",\"ilpart\":");
		rc |= py_json_str(&b, version->valuestring);
	}
	ilpi_buf_puts(&b, "}");
	if ((text = ilpi_buf_take(&b)) == NULL)
		return -1;
	if (rc == 0)
		ilpi_sha256_buf(text, strlen(text), key);
	free(text);
	return rc;
}

int
cli_entry_read(const char *path, const char *key, cli_entry *e, char *msg, size_t size)
{
	ilp_error err = { 0 };
	char *buf = NULL, expect[96];
	size_t len = 0;
	cJSON *root = NULL;
	const cJSON *fmt, *ver, *fp, *graph, *nodes, *version;
	char actual[65];
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
	if (nodes != NULL) {
		/* the graph reader's checks, and at most its node count (graph/graph.c) */
		const char *why = ilpi_json_count_problem(cJSON_IsNumber(nodes),
		    cJSON_IsNumber(nodes) ? nodes->valuedouble : 0, (double)INT32_MAX, 1);

		if (why != NULL) {
			snprintf(msg, size, "field 'nodes': %s", why);
			goto out;
		}
		e->nodes = (long)nodes->valuedouble;
	}
	if (read_args(cJSON_GetObjectItemCaseSensitive(root, "args"), e, msg, size) != 0)
		goto out;
	version = cJSON_GetObjectItemCaseSensitive(root, "ilpart");
	if (version != NULL && !cJSON_IsString(version)) {
		bad(msg, size, "field 'ilpart': expected the version line of the ilpart that "
		    "recorded it");
		goto out;
	}
	/* The file name is the request's key: an entry under another name (copied,
	 * renamed, edited) would have its answer stored for, and returned to, a request
	 * it is not. */
	if (request_key(cJSON_GetObjectItemCaseSensitive(root, "args"), e->fingerprint,
	    version, actual) != 0) {
		bad(msg, size, "field 'args': not as ilpart.store writes them (invalid UTF-8)");
		goto out;
	}
	if (strcmp(actual, key) != 0) {
		snprintf(msg, size, "file name does not match the entry: its args, fingerprint and "
		    "ilpart version have the key %.12s...", actual);
		goto out;
	}
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
	/* a value that fails the graph reader's checks counts as absent (unknown) */
	if ((v = cJSON_GetObjectItemCaseSensitive(prod, "objective_value")) != NULL &&
	    ilpi_json_count_problem(cJSON_IsNumber(v), v->valuedouble, DBL_MAX, 0) == NULL)
		r->objective = v->valuedouble;
	if ((v = cJSON_GetObjectItemCaseSensitive(prod, "gap")) != NULL &&
	    ilpi_json_count_problem(cJSON_IsNumber(v), v->valuedouble, DBL_MAX, 0) == NULL)
		r->gap = v->valuedouble;
	if ((v = cJSON_GetObjectItemCaseSensitive(prod, "note")) != NULL && cJSON_IsString(v))
		snprintf(r->note, sizeof r->note, "%s", v->valuestring);
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
