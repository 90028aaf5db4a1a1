/*
 * blocks_windows.h - the repeated layers of a decomposition's plan as windows
 * (internal; docs/solver.md "Peak along the blocks").
 */
#ifndef ILPART_SOLVER_BLOCKS_WINDOWS_H
#define ILPART_SOLVER_BLOCKS_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "solver/blocks/blocks.h"

/*
 * The longest run of consecutive copies of one group of segments (the same classes in
 * the same order: a layer of a stack), each copy a window. win[item] is the item's
 * window (0 for the first copy in the items' order, -1 outside the run) and off[item]
 * its place in its window: items with the same off in two windows are copies. Both
 * are per item of the plan's reduced model (caller-allocated). Of the run's possible
 * starts, the one whose cut has the fewest state variables is taken. Returns the
 * number of windows (0 when there are fewer than three), *per_win the items in each.
 */
size_t ilpi_blocks_windows(const ilpi_blocks *b, int32_t *win, int32_t *off,
    size_t *per_win);

#endif /* ILPART_SOLVER_BLOCKS_WINDOWS_H */
