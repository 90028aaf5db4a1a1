/* json_parse.h - cJSON parsing with located one-line errors, shared by every ilpart
 * reader (graphs, partitions, policy files). Internal. */
#ifndef ILPART_GRAPH_JSON_PARSE_H
#define ILPART_GRAPH_JSON_PARSE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "ilpart.h"

/* Parses exactly one JSON document from buf[0..len). On failure NULL and an
 * ILP_ERR_INPUT message "PATH:LINE:COL: invalid JSON: ..." that tells an empty file, a
 * truncated one, nesting beyond cJSON's limit, a NUL byte and trailing text apart.
 * The caller owns the tree (cJSON_Delete). */
cJSON *ilpi_json_parse(const char *buf, size_t len, const char *path, ilp_error *err);

/* The "format" and "version" members every ilpart file carries: 0 when "format" is
 * `format` and "version" is 1; else -1 with the same ILP_ERR_INPUT message from every
 * reader, "PATH: WHO: field 'version': ..." (no "WHO: " when `who` is NULL). */
int ilpi_json_header(const cJSON *root, const char *format, const char *path,
    const char *who, ilp_error *err);

#endif /* ILPART_GRAPH_JSON_PARSE_H */
