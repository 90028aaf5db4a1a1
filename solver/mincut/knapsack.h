/*
 * knapsack.h - the 0-1 knapsack solvers of torch's memory-budget path
 * (torch/_functorch/_activation_checkpointing/knapsack.py: 2.6's three, and the
 * memory-saving DP torch 2.14 adds), internal.
 *
 * Items are the banned nodes the budget path may release; memory[i] is an item's
 * normalised size, runtime[i] its estimated runtime. Each solver maximises the runtime
 * of the items kept saved within max_memory, as torch does, and sets save[i] = 1 for a
 * kept item, 0 for an item that may be recomputed. Arithmetic follows torch's so that
 * the same inputs give the same choice (docs/mincut.md, "Memory budget").
 */
#ifndef ILPART_SOLVER_KNAPSACK_H
#define ILPART_SOLVER_KNAPSACK_H

#include <stddef.h>
#include <stdint.h>

#include "ilpart.h"

typedef enum ilpi_knapsack_solver {
	ILPI_KNAPSACK_DP = 0,   /* torch's default: quantised DP in float32 */
	ILPI_KNAPSACK_GREEDY,
	ILPI_KNAPSACK_ILP,      /* torch uses scipy's milp; ilpart GLPK (ties may differ) */
	ILPI_KNAPSACK_HIRSCHBERG /* torch 2.14's dp_knapsack_sliding_hirschberg */
} ilpi_knapsack_solver;

/* "dp", "greedy", "ilp", "dp_knapsack_sliding_hirschberg" -> the solver; -1 for another
 * name. */
int ilpi_knapsack_solver_parse(const char *name);
const char *ilpi_knapsack_solver_name(ilpi_knapsack_solver s);

/* dp_knapsack: memory quantised to round(m * 10000) (half to even, as Python's round),
 * runtimes and table in float32, backtracking from the last item. */
int ilpi_knapsack_dp(const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save, ilp_error *err);
/* greedy_knapsack: by runtime/memory descending (stable), keep what still fits. */
void ilpi_knapsack_greedy(const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save);
/* ilp_knapsack: an optimal 0-1 solution (GLPK). */
int ilpi_knapsack_ilp(const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save, ilp_error *err);
/* dp_knapsack_sliding_hirschberg (torch 2.14): the same quantised DP in float32 over
 * halves of the items, splitting the capacity where the two halves' profiles sum
 * highest (the first such split), down to single items; the choice may differ from
 * dp's where several are equally good. */
int ilpi_knapsack_hirschberg(const double *memory, const double *runtime, size_t n,
    double max_memory, uint8_t *save, ilp_error *err);
/* Dispatch on s. */
int ilpi_knapsack(ilpi_knapsack_solver s, const double *memory, const double *runtime,
    size_t n, double max_memory, uint8_t *save, ilp_error *err);

#endif /* ILPART_SOLVER_KNAPSACK_H */
