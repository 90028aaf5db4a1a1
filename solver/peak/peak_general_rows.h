/*
 * peak_general_rows.h - rows over every partition at one backward op's step
 * (internal; docs/solver.md "Peak memory").
 */
#ifndef ILPART_SOLVER_PEAK_GENERAL_ROWS_H
#define ILPART_SOLVER_PEAK_GENERAL_ROWS_H

#include <stddef.h>

#include "graph/memsim.h"
#include "solver/peak/peak_cuts.h"

/* A row at backward step `pos` of a traced simulation that bounds every partition's
 * bytes there from below (not only near that answer): each saved or recomputed
 * storage enters with the conjunction "exists by the step, read at or after it" over
 * every reader. Only at steps of backward ops. 1: added; 0: not; -1: out of memory. */
int ilpi_peak_cuts_add_general(ilpi_peak_cuts *pc, const ilpi_memsim *ms,
    const ilpi_memtrace *tr, size_t pos);

#endif /* ILPART_SOLVER_PEAK_GENERAL_ROWS_H */
