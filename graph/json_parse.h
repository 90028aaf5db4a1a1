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
/* A parsed document: the same tree as ilpi_json_parse's, built by a faster parser
 * into one arena when the text is plain JSON (no \u escapes, whitespace only of the
 * four JSON kinds, numbers as JSON writes them, nesting below 512), else by cJSON.
 * Read it with cJSON's accessors only (never detach, add or delete items); free it
 * with ilpi_json_doc_free. */
typedef struct ilpi_json_doc {
	cJSON *root;
	struct ilpi_json_chunk *chunks; /* the arena's items, NULL when cJSON built it */
	char *strings;                  /* the arena's strings */
} ilpi_json_doc;

/* ilpi_json_parse into d: 0, or -1 with the same error ilpi_json_parse gives. */
int ilpi_json_doc_parse(ilpi_json_doc *d, const char *buf, size_t len, const char *path,
    ilp_error *err);
/* The same tree, but the strings without escapes stay in buf (their closing quotes
 * become NULs): buf must outlive the tree. When the text is not plain JSON, buf is
 * restored before cJSON parses it. */
int ilpi_json_doc_parse_in_place(ilpi_json_doc *d, char *buf, size_t len, const char *path,
    ilp_error *err);
void ilpi_json_doc_free(ilpi_json_doc *d);

int ilpi_json_header(const cJSON *root, const char *format, const char *path,
    const char *who, ilp_error *err);

#endif /* ILPART_GRAPH_JSON_PARSE_H */
