/* fuzz.h - shared by the fuzz targets (tests/fuzz/fuzz_*.c, docs/testing.md).
 *
 * Each target defines libFuzzer's entry point. Built with --enable-fuzz (clang) it links
 * libFuzzer; otherwise it links tests/fuzz/replay.c, which runs the committed corpus and
 * regression inputs through the same entry point under `make check`. */
#ifndef ILPART_TESTS_FUZZ_FUZZ_H
#define ILPART_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "ilpart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A copy of data in a buffer of exactly `size` bytes, not NUL-terminated, so that a
 * reader looking past its length trips ASan. Never NULL (aborts). */
char *fz_exact(const uint8_t *data, size_t size);

/* A fresh copy of the fixed graph the policy and partition targets run against: two
 * checkpoint regions, a tuple with getitems, views, a random op, a collective, an
 * unclaimed transpose and a primal returned as a gradient. The caller frees it. */
ilp_graph *fz_fixed_graph(void);
/* The same graph, read once and shared by every run (still reachable at exit, so no
 * leak): for targets that only read it. */
const ilp_graph *fz_fixed_graph_shared(void);

/* Stops the run with a message: libFuzzer records the input as a crash. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define FZ_ASSERT(cond, ...) do { if (!(cond)) fz_fail(__VA_ARGS__); } while (0)

#endif /* ILPART_TESTS_FUZZ_FUZZ_H */
