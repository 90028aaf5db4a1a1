/*
 * mck_fronts.h - the search by counts proper (internal): bundle fronts of 2^k copies,
 * their merges, and the two chains whose points are completed by binary search.
 */
#ifndef ILPART_SOLVER_MCK_FRONTS_H
#define ILPART_SOLVER_MCK_FRONTS_H

#include <stdint.h>

#include "solver/blocks/mck_ctx.h"

/*
 * The least cost of x's classes within x->cap, then the least bytes among the answers
 * within 1e-9 (relative, of fix + cost) of it: bundles, the chains (line classes, or
 * else the largest bundle, in the second), and each point of the first completed by a
 * binary search in the second. Counts in cnt (x's points). 0, 1 stopped or nothing
 * within ub (the caller keeps the first answer), -1 out of memory.
 */
int ilpi_mck_solve_classes(mctx *x, const uint8_t *line, double fix, int64_t *cnt,
    int64_t *cnt_least, int64_t *by, double *co);

#endif /* ILPART_SOLVER_MCK_FRONTS_H */
