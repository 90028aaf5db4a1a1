/*
 * store.h - the files of a partition store (docs/python.md "Partition store"), as
 * `ilpart batch` reads them: entries (what to solve) and the producer fields of stored
 * partitions (how good an answer is), without reading the graphs.
 */
#ifndef ILPART_CLI_STORE_H
#define ILPART_CLI_STORE_H

#include <stddef.h>

/* entries/KEY.json: one request, written once by whoever first compiled the graph. */
typedef struct cli_entry {
	char key[65];
	char fingerprint[65];
	char graph[96];          /* "graphs/FINGERPRINT.json", relative to the store */
	char **args;             /* `ilpart solve` options, store-relative paths */
	size_t n_args;
	long nodes;              /* -1 when not recorded */
} cli_entry;

/* Reads and validates entries/KEY.json at `path` (KEY: 64 hex digits). Only the options
 * of solve that change the question are allowed, and a policy must be a store file:
 * an entry cannot make solve write anywhere. 0, or -1 with a one-line reason in msg. */
int cli_entry_read(const char *path, const char *key, cli_entry *e, char *msg, size_t size);
void cli_entry_free(cli_entry *e);

/* What a partition file says about its own quality. */
typedef struct cli_result {
	int present;             /* the file exists and parses as a partition */
	char status[32];         /* producer.status: "optimal", "feasible", "time-limit" */
	double objective;        /* producer.objective_value, < 0 unknown */
	double gap;              /* producer.gap, < 0 unknown */
	char note[640];          /* producer.note: what the solve had to do ("" none) */
} cli_result;

void cli_result_peek(const char *path, cli_result *r);
/* 1 when `a` is a better answer than `b` to the same request: proven optimal beats not
 * proven; then the lower objective; then the smaller gap. Ties keep `b`. */
int cli_result_better(const cli_result *a, const cli_result *b);

/* 1 when s is 64 lowercase hex digits. */
int cli_is_key(const char *s);

#endif /* ILPART_CLI_STORE_H */
