/*
 * peak_offload.c - where an offloaded value is on the device in every partition
 * (peak_offload.h).
 */
#include "config.h"

#include "graph/graph.h"
#include "graph/region.h"
#include "solver/model/reduce.h"
#include "solver/peak/peak_offload.h"

int32_t
ilpi_pc_off_item(const ilpi_model *m, int32_t v)
{
	int32_t it;

	if (m->col_o == NULL || v < 0 || (it = m->red->item_of[v]) < 0 ||
	    m->red->item[it].rep != v || m->col_o[it] == 0)
		return -1;
	return it;
}

int32_t
ilpi_pc_off_fw_sure(const ilp_graph *g, const ilpi_model *m, size_t it)
{
	int32_t v = m->red->item[it].rep, last = v, sure;
	double acc = 0, x = m->off_xfer[it];

	/* the last forward-class op reading v's storage (v owns it: no other saved
	 * value shares it, but views of it may be read) */
	for (size_t u = (size_t)v + 1; u < g->n; u++) {
		const ilpi_node *n = &g->node[u];
		const int32_t *in = ilpi_inputs(g, n);

		if (n->cls != ILPI_FORWARD || n->kind != ILPI_OP || !ilpi_live(n))
			continue;
		for (uint32_t k = 0; k < n->in_count; k++)
			if (g->node[in[k]].storage == v)
				last = (int32_t)u;
	}
	sure = last;
	for (size_t o = (size_t)last + 1; o < g->n; o++) {
		const ilpi_node *n = &g->node[o];

		if (n->cls == ILPI_BACKWARD || n->kind != ILPI_OP || !ilpi_live(n))
			continue;
		if (!(acc < x))
			break;
		sure = (int32_t)o;
		acc += o < m->n_nodes ? m->node_us[o] : 0;
	}
	return sure;
}

double
ilpi_pc_off_recompute_all(const ilp_graph *g, const ilpi_model *m)
{
	const ilpi_reduced *red = m->red;
	double sum = 0;

	for (size_t v = 0; v < g->n && v < m->n_nodes; v++) {
		int32_t it = red->item_of[v];

		if (it >= 0 && red->cand[v] && m->col_r[it] && g->node[v].kind == ILPI_OP &&
		    g->node[v].cls != ILPI_BACKWARD)
			sum += m->node_us[v];
	}
	return sum;
}
