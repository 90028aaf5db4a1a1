/*
 * ilpart.h - public API of libilpart: optimal save/recompute partitioning of
 * autograd joint graphs.
 *
 * Ownership, once for every function below:
 *  - A function that hands back a new object through an `out` pointer (or returns
 *    a non-const pointer) gives it to the caller, who releases it with the matching
 *    `*_free`. `*_free(NULL)` is a no-op. Strings returned as `char *` are freed with free().
 *  - Pointer parameters are borrowed for the duration of the call; nothing is
 *    retained afterwards unless the comment says so. A partition is only meaningful
 *    together with the graph it was made for; the graph must outlive it.
 *  - `const char *` results (names, messages) point into the object they came from and
 *    live as long as it does.
 * Errors: functions return 0 on success and -1 on failure (NULL for constructors) and,
 * when `err` is not NULL, fill it with a one-line message that names the file, the node
 * and the field. The library never prints and never exits.
 */
#ifndef ILPART_ILPART_H
#define ILPART_ILPART_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------------- */

typedef enum ilp_error_kind {
	ILP_ERR_NONE = 0,
	ILP_ERR_INPUT,     /* malformed or inconsistent input file or option (CLI exit 2) */
	ILP_ERR_VIOLATION, /* a partition fails the checker (CLI exit 1) */
	ILP_ERR_CONFLICT,  /* tags, bans and budgets cannot all hold (CLI exit 3) */
	ILP_ERR_SOLVER,    /* solver gave no usable answer, e.g. time limit without a solution (exit 4) */
	ILP_ERR_SYSTEM     /* I/O or memory (CLI exit 2) */
} ilp_error_kind;

typedef struct ilp_error {
	ilp_error_kind kind;
	char msg[1024];
} ilp_error;

/* ---- graphs ---------------------------------------------------------------- */

typedef struct ilp_graph ilp_graph;

int ilp_graph_read_file(const char *path, ilp_graph **out, ilp_error *err);
/* `name` is used in messages in place of a file name. */
int ilp_graph_read_buffer(const char *buf, size_t len, const char *name, ilp_graph **out,
    ilp_error *err);
void ilp_graph_free(ilp_graph *g);
/* Canonical JSON of the graph (docs/format.md); caller frees *out. */
int ilp_graph_to_json(const ilp_graph *g, char **out, ilp_error *err);

size_t ilp_graph_node_count(const ilp_graph *g);
const char *ilp_graph_node_name(const ilp_graph *g, size_t i);
/* Index of the node called `name`, or -1. */
long ilp_graph_find(const ilp_graph *g, const char *name);

/* ---- partitions ------------------------------------------------------------ */

typedef struct ilp_partition ilp_partition;

/* An empty partition (nothing saved, nothing recomputed) for `g`. */
ilp_partition *ilp_partition_new(const ilp_graph *g);
void ilp_partition_free(ilp_partition *p);
int ilp_partition_read_file(const ilp_graph *g, const char *path, ilp_partition **out,
    ilp_error *err);
int ilp_partition_read_buffer(const ilp_graph *g, const char *buf, size_t len,
    const char *name, ilp_partition **out, ilp_error *err);
/* Canonical JSON; caller frees *out. */
int ilp_partition_to_json(const ilp_graph *g, const ilp_partition *p, char **out,
    ilp_error *err);
int ilp_partition_is_saved(const ilp_partition *p, size_t node);
int ilp_partition_is_recomputed(const ilp_partition *p, size_t node);

/* ---- policies -------------------------------------------------------------- */

typedef enum ilp_prefer_mode {
	ILP_PREFER_HARD = 0, /* PREFER_* bind like MUST_* (eager SAC) */
	ILP_PREFER_PYTORCH,  /* torch >= 2.4 compile: PREFER_RECOMPUTE hard, PREFER_SAVE untagged */
	ILP_PREFER_SOFT      /* preferences are objective penalties */
} ilp_prefer_mode;

typedef enum ilp_bans {
	ILP_BANS_PYTORCH = 0, /* PyTorch's default recomputation bans */
	ILP_BANS_NONE
} ilp_bans;

/* Policy files, option parsing and SAC-rule helpers are declared below by policies/. */
/* @@policies-api@@ */

/* ---- solvers (solver/) ------------------------------------------------------ */
/* @@solver-api@@ */

/* ---- checker --------------------------------------------------------------- */

typedef struct ilp_check_options {
	ilp_prefer_mode prefer;
} ilp_check_options;

/* 0 when `p` is executable on `g` and obeys every hard tag; otherwise -1 with
 * err->kind == ILP_ERR_VIOLATION and the first violation in err->msg. Shares no code
 * with the solvers. `o` may be NULL (defaults). */
int ilp_check(const ilp_graph *g, const ilp_partition *p, const ilp_check_options *o,
    ilp_error *err);

/* ---- lowering -------------------------------------------------------------- */

typedef enum ilp_split_format {
	ILP_SPLIT_JSON = 0,
	ILP_SPLIT_TEXT,
	ILP_SPLIT_DOT
} ilp_split_format;

/* Forward and backward graphs of `p` rendered in `fmt`; caller frees *out. */
int ilp_split_render(const ilp_graph *g, const ilp_partition *p, ilp_split_format fmt,
    char **out, ilp_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ILPART_ILPART_H */
