/* util.h - helpers shared by the unit suites. */
#ifndef ILPART_TESTS_UTIL_H
#define ILPART_TESTS_UTIL_H

#include "ilpart.h"

/* Parses a JSON graph held in a string; fails the running test on error. */
ilp_graph *t_graph(const char *json);
/* Path of a file under the source tree (tests/data/...), in a static buffer. */
const char *t_srcpath(const char *rel);

#endif /* ILPART_TESTS_UTIL_H */
