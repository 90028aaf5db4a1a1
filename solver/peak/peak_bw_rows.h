/*
 * peak_bw_rows.h - the exact row at a backward step of a simulated answer
 * (internal; docs/solver.md "Peak memory").
 */
#ifndef ILPART_SOLVER_PEAK_BW_ROWS_H
#define ILPART_SOLVER_PEAK_BW_ROWS_H

#include <stddef.h>

#include "graph/memsim.h"
#include "solver/peak/peak_cuts.h"

/* The row at backward step `pos` of a traced simulation (ms, tr) of a canonical
 * answer. 1: added, exact at that answer (its value there is ms->bw_live[pos]);
 * 0: not added (the answer's structure is outside what the rows express); -1: out
 * of memory. */
int ilpi_peak_cuts_add(ilpi_peak_cuts *pc, const ilpi_memsim *ms, const ilpi_memtrace *tr,
    size_t pos);

#endif /* ILPART_SOLVER_PEAK_BW_ROWS_H */
