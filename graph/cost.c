/* cost.c - roofline recompute costs, device profiles and partition evaluation (the
 * graph layer: the solvers, the checker and the commands all cost partitions so). */
#include "config.h"

#include <string.h>

#include "graph/graph.h"
#include "graph/partition.h"
#include "graph/cost.h"

/*
 * Dense 16-bit tensor-core peak and HBM bandwidth from the vendors' data sheets
 * (H100 SXM5, A100 SXM4 80GB); "cpu" is a generic 2-socket server. These are the
 * numbers docs/solver.md documents; change both together.
 */
/*
 * host_bw: the device-host link of the offload transfer model (docs/partition.md
 * "Offload"): 25 GB/s, what a PCIe 4.0 x16 link delivers in practice and the figure
 * issue 26 names for an H100-class machine; for "cpu" the "host" is the same memory,
 * so a copy runs at its bandwidth.
 */
static const struct {
	const char *name;
	double peak_flops, bandwidth, host_bw;
} profiles[] = {
	{ "h100", 989.4e12, 3.35e12, 25e9 },
	{ "a100", 312.0e12, 2.039e12, 25e9 },
	{ "cpu", 2.0e12, 0.2e12, 0.2e12 },
};

int
ilp_device_lookup(const char *name, ilp_device *out)
{
	if (name == NULL)
		return -1;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (strcmp(name, profiles[i].name) == 0) {
			if (out != NULL) {
				out->peak_flops = profiles[i].peak_flops;
				out->bandwidth = profiles[i].bandwidth;
			}
			return 0;
		}
	return -1;
}

const char *
ilpi_device_name(const ilp_device *d)
{
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (profiles[i].peak_flops == d->peak_flops &&
		    profiles[i].bandwidth == d->bandwidth)
			return profiles[i].name;
	return NULL;
}

double
ilpi_device_host_bw(const ilp_device *d)
{
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (profiles[i].peak_flops == d->peak_flops &&
		    profiles[i].bandwidth == d->bandwidth)
			return profiles[i].host_bw;
	return ILPI_HOST_BW_DEFAULT;
}

const char *
ilp_graph_device(const ilp_graph *g)
{
	return g->device;
}

const char *
ilp_device_profile_for(const char *device)
{
	if (device == NULL)
		return NULL;
	if (strcmp(device, "cpu") == 0 || strncmp(device, "cpu:", 4) == 0)
		return "cpu";
	if (strcmp(device, "cuda") != 0 && strncmp(device, "cuda:", 5) != 0)
		return NULL;
	/* the bridge's choice too (python/ilpart/device.py) */
	if (strstr(device, "A100") != NULL || strstr(device, "A800") != NULL)
		return "a100";
	return "h100";
}

double
ilpi_node_flops(const ilp_graph *g, size_t i)
{
	double f = g->node[i].flops;

	return f >= 0 ? f : 0;
}

double
ilpi_node_traffic(const ilp_graph *g, size_t i)
{
	const ilpi_node *n = &g->node[i];
	double rd = n->bytes_read, wr = n->bytes_written;

	/* A view or a tuple only rearranges metadata: nothing is read or written. */
	int moves = n->view_of == ILPI_NONE && !(n->flags & ILPI_F_TUPLE);

	if (rd < 0) {
		rd = 0;
		if (moves) {
			const int32_t *in = ilpi_inputs(g, n);

			for (uint32_t k = 0; k < n->in_count; k++)
				rd += (double)g->node[in[k]].bytes;
		}
	}
	if (wr < 0)
		wr = moves ? (double)n->bytes : 0;
	return rd + wr;
}

double
ilpi_node_cost_us(const ilp_graph *g, size_t i, const ilp_device *dev)
{
	const ilpi_node *n = &g->node[i];
	double t_flops = 0, t_mem = 0;

	if (n->kind != ILPI_OP)
		return 0;
	if (n->time_us >= 0)
		return n->time_us;
	if (dev->peak_flops > 0)
		t_flops = ilpi_node_flops(g, i) / dev->peak_flops;
	if (dev->bandwidth > 0)
		t_mem = ilpi_node_traffic(g, i) / dev->bandwidth;
	return 1e6 * (t_flops > t_mem ? t_flops : t_mem);
}

int
ilpi_node_costs_recompute(const ilp_graph *g, size_t i)
{
	return g->node[i].cls == ILPI_FORWARD && g->node[i].kind == ILPI_OP;
}

int
ilp_partition_evaluate(const ilp_graph *g, ilp_partition *p, const ilp_device *dev,
    ilp_error *err)
{
	ilp_device def;
	double flops = 0, us = 0;
	int64_t bytes;

	ilpi_err_clear(err);
	if (ilpi_partition_fits(g, p, err) != 0)
		return -1;
	if (dev == NULL) {
		ilp_device_lookup(ILPI_DEVICE_DEFAULT, &def);
		dev = &def;
	}
	for (size_t i = 0; i < g->n; i++)
		if (ilpi_recomputed(p, i) && ilpi_node_costs_recompute(g, i)) {
			flops += ilpi_node_flops(g, i);
			us += ilpi_node_cost_us(g, i, dev);
		}
	if ((bytes = ilpi_partition_saved_bytes(g, p)) < 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", g->path);
		return -1;
	}
	p->saved_bytes = bytes;
	p->recompute_flops = flops;
	p->recompute_time_us = us;
	p->has_cost = 1;
	return 0;
}
