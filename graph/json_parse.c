#include "config.h"

#include <stdio.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/json_parse.h"

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Ends inside a string or with open brackets: the file was cut short. Also gives the
 * deepest bracket nesting, which cJSON limits. */
static int
truncated(const char *buf, size_t len, long *max_depth)
{
	long depth = 0;
	int in_str = 0;

	*max_depth = 0;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (++depth > *max_depth)
				*max_depth = depth;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return in_str || depth > 0;
}

static void
position(const char *buf, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		*col = buf[i] == '\n' ? 1 : *col + 1;
		*line += buf[i] == '\n';
	}
}

/* How much of the text at an error to quote: up to 12 bytes, the rest of its line.
 * buf need not be NUL-terminated, so never past len. */
static int
quote_len(const char *s, size_t left)
{
	int n = 0;

	while ((size_t)n < left && n < 12 && s[n] != '\n' && s[n] != '\r')
		n++;
	return n;
}

static void
parse_error(const char *buf, size_t len, const char *path, ilp_error *err)
{
	const char *at = cJSON_GetErrorPtr();
	size_t off = at != NULL && at >= buf && at <= buf + len ? (size_t)(at - buf) : len;
	size_t line, col;
	long deepest;
	int cut = truncated(buf, len, &deepest);

	if (cut)
		off = len;
	position(buf, off, &line, &col);
	while (off < len && is_space(buf[off]))
		off++;
	if (deepest > CJSON_NESTING_LIMIT)
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON: nested more than %d "
		    "levels deep", path, line, col, CJSON_NESTING_LIMIT);
	else if (off >= len || cut)
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON: unexpected end of file "
		    "(truncated?)", path, line, col);
	else
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON near '%.*s'", path, line,
		    col, quote_len(buf + off, len - off), buf + off);
}

cJSON *
ilpi_json_parse(const char *buf, size_t len, const char *path, ilp_error *err)
{
	const char *end = NULL;
	size_t ws = 0, line, col;
	cJSON *root;

	while (ws < len && is_space(buf[ws]))
		ws++;
	if (ws == len) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: invalid JSON: empty file", path);
		return NULL;
	}
	if (memchr(buf, '\0', len) != NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: invalid JSON: contains a NUL byte", path);
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (root == NULL) {
		parse_error(buf, len, path, err);
		return NULL;
	}
	while (end != NULL && end < buf + len && is_space(*end))
		end++;
	if (end != NULL && end < buf + len) {
		position(buf, (size_t)(end - buf), &line, &col);
		ilpi_err(err, ILP_ERR_INPUT, "%s:%zu:%zu: invalid JSON: trailing characters after "
		    "the document", path, line, col);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

int
ilpi_json_header(const cJSON *root, const char *format, const char *path,
    const char *who, ilp_error *err)
{
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
	char where[160];

	snprintf(where, sizeof where, "%s%s", who != NULL ? who : "", who != NULL ? ": " : "");
	if (fmt == NULL || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, format) != 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'format': %s\"%s\"%s", path, where,
		    fmt == NULL ? "missing (expected " : "expected ", format, fmt == NULL ? ")" : "");
		return -1;
	}
	if (ver == NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': missing (expected 1)", path,
		    where);
		return -1;
	}
	if (!cJSON_IsNumber(ver)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': expected a number", path,
		    where);
		return -1;
	}
	if (ver->valuedouble != 1) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: %sfield 'version': unsupported version %g (this "
		    "ilpart reads version 1)", path, where, ver->valuedouble);
		return -1;
	}
	return 0;
}
