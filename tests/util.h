/* util.h - helpers shared by the unit suites. */
#ifndef ILPART_TESTS_UTIL_H
#define ILPART_TESTS_UTIL_H

#include "ilpart.h"

/* Parses a JSON graph held in a string; fails the running test on error. */
ilp_graph *t_graph(const char *json);
/* `s` with every ' replaced by ", in a static buffer: tests write JSON with single
 * quotes for readability. */
const char *t_q(const char *s);
/* A joint graph from single-quoted parts: `extra` top-level members (may be ""), the
 * node list, and the forward and backward output lists. */
ilp_graph *t_graph_parts(const char *extra, const char *nodes, const char *fw,
    const char *bw);
/* Path of a file under the source tree (tests/data/...), in a static buffer. */
const char *t_srcpath(const char *rel);

#endif /* ILPART_TESTS_UTIL_H */
