/*
 * peak_offload.h - where an offloaded value is on the device in every partition
 * (internal, solver/peak/ only; docs/solver.md "Offload" and "Peak memory").
 *
 * graph/memsim.c times an offloaded value's copies against the ops that run: after
 * its last forward reader it stays on the device until the copy out has had its
 * transfer time of compute behind it; in the backward it is on the device from the
 * step its copy back starts (the latest from which the compute up to its first use
 * takes the transfer time) to its last use. Both depend on what else the partition
 * runs (saved unclaimed ops in the forward, recomputed ops in the backward), so the
 * rows count it only where it is on the device in every partition that saves it
 * (the "sure" windows below) and take d = s - o elsewhere: a lower bound for every
 * partition; the simulator and the cuts decide the rest.
 */
#ifndef ILPART_SOLVER_PEAK_OFFLOAD_H
#define ILPART_SOLVER_PEAK_OFFLOAD_H

#include <stdint.h>

#include "graph/graph.h"
#include "solver/model/model.h"

/* The item with an offload column whose rep is node v, else -1. */
int32_t ilpi_pc_off_item(const ilpi_model *m, int32_t v);

/* The largest graph index o such that a forward step at o has the offloadable item
 * `it`'s value on the device in every partition that saves it: up to its last
 * forward-class reader, then while even every non-backward op between that reader and
 * o together takes less than the copy's time. */
int32_t ilpi_pc_off_fw_sure(const ilp_graph *g, const ilpi_model *m, size_t it);

/* The time every op that may be recomputed takes together (us): the most compute a
 * partition can add to the backward between two of its own ops. */
double ilpi_pc_off_recompute_all(const ilp_graph *g, const ilpi_model *m);

#endif /* ILPART_SOLVER_PEAK_OFFLOAD_H */
