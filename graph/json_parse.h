/* json_parse.h - cJSON parsing with located one-line errors, shared by every ilpart
 * reader (graphs, partitions, policy files). Internal. */
#ifndef ILPART_GRAPH_JSON_PARSE_H
#define ILPART_GRAPH_JSON_PARSE_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "ilpart.h"

/* Parses exactly one JSON document from buf[0..len). On failure NULL and an
 * ILP_ERR_INPUT message "PATH:LINE:COL: invalid JSON: ..." that tells an empty file, a
 * truncated one, nesting beyond cJSON's limit, a NUL byte and trailing text apart.
 * The caller owns the tree (cJSON_Delete). */
cJSON *ilpi_json_parse(const char *buf, size_t len, const char *path, ilp_error *err);

/* The "format" and "version" members every ilpart file carries: 0 when "format" is
 * `format` and "version" is 1; else -1 with the same ILP_ERR_INPUT message from every
 * reader, "PATH: WHO: field 'version': ..." (no "WHO: " when `who` is NULL). */
/* A value of a parsed document (ilpi_json_doc): what cJSON's item of the same text
 * holds, in 32 bytes instead of 64 (a graph file has about one value per 18 bytes). */
typedef enum ilpi_jv_type {
	ILPI_JV_NULL, ILPI_JV_FALSE, ILPI_JV_TRUE, ILPI_JV_NUMBER, ILPI_JV_STRING,
	ILPI_JV_ARRAY, ILPI_JV_OBJECT
} ilpi_jv_type;

typedef struct ilpi_jv {
	struct ilpi_jv *next;     /* the next element or member, NULL after the last */
	const char *key;          /* a member's name; NULL in an array and at the top */
	union {
		struct ilpi_jv *child; /* array, object: the first element or member */
		const char *str;       /* string */
		double num;            /* number (as cJSON reads it) */
	} u;
	uint32_t type;            /* ilpi_jv_type */
	uint32_t count;           /* array, object: elements or members */
} ilpi_jv;

/* A parsed document: the tree of ilpi_json_parse's cJSON tree, made by a faster parser
 * into one arena when the text is plain JSON (no \u escapes, whitespace only of the
 * four JSON kinds, numbers as JSON writes them, nesting below 512), else copied from
 * cJSON's (so what is accepted and every error message stay cJSON's). Free it with
 * ilpi_json_doc_free. */
typedef struct ilpi_json_doc {
	ilpi_jv *root;
	struct ilpi_json_chunk *chunks; /* the arena's values */
	char *strings;                  /* the arena's strings (copies, escapes) */
	cJSON *cj;                      /* cJSON's tree when it parsed the text, else NULL */
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
/* Turns the NULs an in-place parse wrote back into the quotes they were (the text had
 * none of its own, or the parse would not have written any). */
void ilpi_json_undo_in_place(char *buf, size_t len);

/* A reader that keeps no tree of the bulk of the text: an in-place parse by the fast
 * path only, except that the root object's member `key`, when it is an array, is not
 * kept: each of its elements is parsed into a small scratch arena, emptied for the
 * next, and handed to each(ctx, element), which takes what it needs (the element's
 * strings stay valid with buf, its values do not) and returns 0. The member stays in
 * d->root as an array of no elements. 0: read so, exactly one such array was
 * streamed; d->root is the rest of the document. 1: not read so (the text is not plain
 * JSON, not an object, has no or two such arrays, or each() returned nonzero): no
 * error is set, d is empty and buf is as it was, for ilpi_json_doc_parse_in_place to
 * read from the start. */
int ilpi_json_doc_stream(ilpi_json_doc *d, char *buf, size_t len, const char *key,
    int (*each)(void *ctx, const ilpi_jv *v), void *ctx);
/* The checks every count read from an ilpart file gets (a graph's bytes and shapes, a
 * store entry's node count): NULL when the value is a finite number in [0, max], and
 * an integer when `integral`; else what is wrong with it ("expected a number", "not a
 * finite number", "must not be negative", "too large", "expected an integer"), for the
 * caller's "field 'F': ..." message. is_number: the value is a JSON number at all. */
const char *ilpi_json_count_problem(int is_number, double v, double max, int integral);

/* 1 when a and the cJSON tree b hold the same values (types, numbers bit for bit,
 * strings, keys, order): the tests' and the fuzzer's comparison. */
int ilpi_jv_same_as_cjson(const ilpi_jv *a, const cJSON *b);

/* cJSON's accessors for ilpi_jv: NULL or another type is "not". */
static inline int
ilpi_jv_is(const ilpi_jv *v, ilpi_jv_type t)
{
	return v != NULL && v->type == (uint32_t)t;
}
#define ilpi_jv_is_null(v) ilpi_jv_is((v), ILPI_JV_NULL)
#define ilpi_jv_is_number(v) ilpi_jv_is((v), ILPI_JV_NUMBER)
#define ilpi_jv_is_string(v) ilpi_jv_is((v), ILPI_JV_STRING)
#define ilpi_jv_is_array(v) ilpi_jv_is((v), ILPI_JV_ARRAY)
#define ilpi_jv_is_object(v) ilpi_jv_is((v), ILPI_JV_OBJECT)
#define ilpi_jv_is_true(v) ilpi_jv_is((v), ILPI_JV_TRUE)
#define ilpi_jv_is_bool(v) (ilpi_jv_is((v), ILPI_JV_TRUE) || ilpi_jv_is((v), ILPI_JV_FALSE))

/* The first element or member of an array or object, else NULL. */
static inline const ilpi_jv *
ilpi_jv_first(const ilpi_jv *v)
{
	return ilpi_jv_is_array(v) || ilpi_jv_is_object(v) ? v->u.child : NULL;
}
#define ilpi_jv_each(e, v) for ((e) = ilpi_jv_first(v); (e) != NULL; (e) = (e)->next)

/* Elements or members (cJSON_GetArraySize). */
static inline size_t
ilpi_jv_size(const ilpi_jv *v)
{
	return ilpi_jv_is_array(v) || ilpi_jv_is_object(v) ? v->count : 0;
}

/* The first member named key of an object, else NULL
 * (cJSON_GetObjectItemCaseSensitive). */
const ilpi_jv *ilpi_jv_get(const ilpi_jv *obj, const char *key);

int ilpi_json_header(const cJSON *root, const char *format, const char *path,
    const char *who, ilp_error *err);
/* The same for a document's root. */
int ilpi_jv_header(const ilpi_jv *root, const char *format, const char *path,
    const char *who, ilp_error *err);

#endif /* ILPART_GRAPH_JSON_PARSE_H */
