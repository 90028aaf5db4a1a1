/*
 * peak_fw_rows.h - the exact row at a forward step of a simulated answer
 * (internal; docs/solver.md "Peak memory").
 */
#ifndef ILPART_SOLVER_PEAK_FW_ROWS_H
#define ILPART_SOLVER_PEAK_FW_ROWS_H

#include <stddef.h>

#include "graph/memsim.h"
#include "solver/peak/peak_cuts.h"

/* The same at forward step `pos` (forward ops run in graph order; an unclaimed op
 * runs there when a saved value needs it, f(X) >= s_X, f(X) >= f(J) for its users J,
 * f(X) <= s_X + sum f(J)). Only at steps of forward-class ops. */
int ilpi_peak_cuts_add_fw(ilpi_peak_cuts *pc, const ilpi_memsim *ms,
    const ilpi_memtrace *tr, size_t pos);

#endif /* ILPART_SOLVER_PEAK_FW_ROWS_H */
