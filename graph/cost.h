/*
 * cost.h - the recompute cost model: device profiles and each node's roofline cost
 * (internal; ilp_device_lookup and ilp_partition_evaluate are public, in ilpart.h).
 *
 * A node's cost is its measured `time_us` when the graph has one, otherwise the
 * roofline estimate max(flops / peak, (bytes_read + bytes_written) / bandwidth) in
 * microseconds. Missing traffic defaults to the bytes of the inputs (read) and the
 * node's own bytes (written); views and tuples move nothing. docs/solver.md has the
 * numbers of the device profiles.
 */
#ifndef ILPART_GRAPH_COST_H
#define ILPART_GRAPH_COST_H

#include "graph/graph.h"

/* The device of every solve and evaluation that names none. */
#define ILPI_DEVICE_DEFAULT "h100"

/* The host link of a device that is no named profile (FLOPS:BYTES_PER_S), bytes/s. */
#define ILPI_HOST_BW_DEFAULT 25e9

/* The device-host link bandwidth of `d`'s profile in bytes/s (offload transfers). */
double ilpi_device_host_bw(const ilp_device *d);

/* The name of the profile `d` is (ilp_device_lookup), or NULL when it is none. */
const char *ilpi_device_name(const ilp_device *d);

/* Flops of node i (0 when unknown). */
double ilpi_node_flops(const ilp_graph *g, size_t i);
/* Bytes moved by node i: read + written, defaults as above. */
double ilpi_node_traffic(const ilp_graph *g, size_t i);
/* Run time of node i in microseconds on `dev` (0 for primals and tangents). */
double ilpi_node_cost_us(const ilp_graph *g, size_t i, const ilp_device *dev);
/* True when recomputing node i costs run time: only FORWARD-class ops do. Unclaimed
 * ops run exactly once whatever the partition decides (at the end of the forward
 * when saved, in the backward otherwise), so deferring them is free. */
int ilpi_node_costs_recompute(const ilp_graph *g, size_t i);

#endif /* ILPART_GRAPH_COST_H */
