/*
 * region.h - SAC tags and checkpoint regions as PyTorch 2.6 reads them (internal).
 *
 * The one definition of a node's tag, its region and where a region ends that the
 * rules (policies/), min-cut (solver/) and the checker (graph/check.c) share, so that
 * they cannot disagree about which node is in which region. docs/partition.md states
 * the rules.
 */
#ifndef ILPART_GRAPH_REGION_H
#define ILPART_GRAPH_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"

/* The tuple node i projects when it is a getitem, else ILPI_NONE. */
int32_t ilpi_getitem_parent(const ilp_graph *g, size_t i);

/* Node i's SAC tag: ops only (PyTorch tags call_function nodes), and a getitem's is
 * its tuple's, as PyTorch creates the projections under the tuple op's metadata. */
ilpi_tag ilpi_sac_tag(const ilp_graph *g, size_t i);

/* Node i's checkpoint region (ac_graph_id), ILPI_NONE outside any; a getitem's is its
 * tuple's, like its tag. */
int32_t ilpi_sac_region(const ilp_graph *g, size_t i);

/* PyTorch's must_recompute(): MUST_RECOMPUTE, or PREFER_RECOMPUTE unless soft. */
int ilpi_tag_binds_recompute(ilpi_tag t, ilp_prefer_mode mode);

/* Never recomputed by its tag: MUST_SAVE, or PREFER_SAVE in hard mode. The CPU-offload
 * tags are saves as torch's CheckpointPolicy defines them (saved in the forward, then
 * offloaded): MUST_CPU_OFFLOAD binds as MUST_SAVE, PREFER_CPU_OFFLOAD as PREFER_SAVE. */
int ilpi_tag_binds_save(ilpi_tag t, ilp_prefer_mode mode);

/*
 * PyTorch's cleanup_recompute_tags: node i has a binding recompute tag and a live user
 * with a binding recompute tag in a later region, so it ends its region and is stashed
 * (treated as MUST_SAVE). Returns that user (the first in graph order), or -1. A
 * getitem of a tuple that ends its region ends it too (then the tuple's user is
 * returned), since the tuple itself has nothing to save.
 */
long ilpi_region_end(const ilp_graph *g, size_t i, ilp_prefer_mode mode);

/*
 * Whether collective op i may be recomputed: torch never recomputes a collective
 * (force_save_collectives, and min-cut's bans) unless it is must-recompute, its own tag
 * asking for recomputation as `mode` reads it, and it ends no region. Under a SAC
 * policy that saves only matmuls, tensor parallelism's all-reduce is PREFER_RECOMPUTE:
 * torch runs it again in the backward, on every rank alike.
 */
int ilpi_collective_recomputable(const ilp_graph *g, size_t i, ilp_prefer_mode mode);

#endif /* ILPART_GRAPH_REGION_H */
