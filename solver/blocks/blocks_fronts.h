/*
 * blocks_fronts.h - a class's fronts: for every pair of entry and exit states, the
 * complete Pareto front of (saved bytes, recompute cost) of its segment (internal).
 */
#ifndef ILPART_SOLVER_BLOCKS_FRONTS_H
#define ILPART_SOLVER_BLOCKS_FRONTS_H

#include <stddef.h>

#include "solver/blocks/blocks_plan.h"

/* The fronts of class c into b->pt and the class: 0 done, 1 too wide (the caller falls
 * back), -1 out of memory. */
int ilpi_blocks_class_fronts(ilpi_blocks *b, size_t c);

#endif /* ILPART_SOLVER_BLOCKS_FRONTS_H */
