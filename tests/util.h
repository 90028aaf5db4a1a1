/* util.h - helpers shared by the unit suites: graphs from JSON text, node literals,
 * node lookup, partitions from name lists, and one random number generator. */
#ifndef ILPART_TESTS_UTIL_H
#define ILPART_TESTS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ilpart.h"
#include "graph/graph.h"

/* ---- graphs from JSON text ------------------------------------------------------ */

/* Parses a JSON graph held in a string; fails the running test on error. */
ilp_graph *t_graph(const char *json);
/* `s` with every ' replaced by ", in a static buffer: tests write JSON with single
 * quotes for readability. */
const char *t_q(const char *s);
/* The graph file at `path`; fails the running test when it does not read. */
ilp_graph *t_graph_file(const char *path);
/* The graph files of tests/data/corpus, sorted by name: *n paths, freed with
 * t_strs_free. Fails the running test when the directory cannot be read. */
char **t_corpus(size_t *n);
/* The same for another directory of graphs, `rel` to the source root. */
char **t_corpus_in(const char *rel, size_t *n);
void t_strs_free(char **s, size_t n);
/* Reads each corpus graph (t_corpus order), calls fn(path, g, ctx) on it and frees it;
 * returns the sum of fn's answers (say, how many graphs it looked at). */
long t_each_corpus_graph(long (*fn)(const char *path, ilp_graph *g, void *ctx), void *ctx);
/* The same over the graphs of t_corpus_in(rel). */
long t_each_graph_in(const char *rel, long (*fn)(const char *path, ilp_graph *g, void *ctx),
    void *ctx);
/* t_graph(t_q(s)): a whole graph document written with single quotes. */
ilp_graph *t_graph_q(const char *s);
/* A joint graph from single-quoted parts: `extra` top-level members, each followed by a
 * comma (may be ""), the node list, and the "outputs" object. */
ilp_graph *t_graph_outputs(const char *extra, const char *nodes, const char *outputs);
/* The same with the forward and backward output lists given apart. */
ilp_graph *t_graph_parts(const char *extra, const char *nodes, const char *fw,
    const char *bw);

/* Node literals for those node lists: a primal or a tangent of `b` bytes, an op with
 * its target, inputs ("'x', 'y'"), bytes and `x`, more fields starting with ", " or
 * empty. */
#define P(name, b) "{'name': '" name "', 'kind': 'primal', 'bytes': " #b "}"
#define T(name, b) "{'name': '" name "', 'kind': 'tangent', 'bytes': " #b "}"
#define OP(name, target, inputs, b, x) "{'name': '" name "', 'kind': 'op', 'target': '" \
	target "', 'inputs': [" inputs "], 'bytes': " #b x "}"

/* Path of a file under the source tree (tests/data/...), in a static buffer. */
const char *t_srcpath(const char *rel);

/* ---- nodes and partitions ------------------------------------------------------- */

/* Index of the node called `name`; fails the running test when there is none. */
size_t t_node(const ilp_graph *g, const char *name);
const ilpi_node *t_nd(const ilp_graph *g, const char *name);
/* A partition of g saving and recomputing the nodes named in two space-separated
 * lists; a recomputed name ending in '~' also saves its RNG state (rng_states).
 * Caller frees. */
ilp_partition *t_part(const ilp_graph *g, const char *saved, const char *recomputed);
/* Reference partition r of the graph file (PyTorch's saved set): its recomputed list,
 * or, when it gives none, what the backward then recomputes, derived as for a
 * partition file without "recomputed". Caller frees. */
ilp_partition *t_ref_part(const ilp_graph *g, size_t r);
/* Index of the reference partition called `name`, or -1. */
long t_ref_find(const ilp_graph *g, const char *name);

/* ---- random numbers ------------------------------------------------------------- */

/* xorshift64*: the same sequence on every platform and run. */
typedef struct t_rng {
	uint64_t s;
} t_rng;

void t_rng_seed(t_rng *r, uint64_t seed);
/* A random number in [0, 2^31). */
uint32_t t_rand(t_rng *r);
/* A random number in [0, n), n > 0. */
uint32_t t_below(t_rng *r, uint32_t n);

#endif /* ILPART_TESTS_UTIL_H */
