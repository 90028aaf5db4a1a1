/* region.c - SAC tags and checkpoint regions as PyTorch 2.6 reads them (region.h). */
#include "config.h"

#include "graph/region.h"

int32_t
ilpi_getitem_parent(const ilp_graph *g, size_t i)
{
	const ilpi_node *n = &g->node[i];

	return (n->flags & ILPI_F_GETITEM) && n->in_count == 1 ? g->in[n->in_begin] :
	    ILPI_NONE;
}

/* The node whose metadata node i carries: its tuple for a getitem, else itself. */
static size_t
meta_node(const ilp_graph *g, size_t i)
{
	int32_t p = ilpi_getitem_parent(g, i);

	return p != ILPI_NONE ? (size_t)p : i;
}

ilpi_tag
ilpi_sac_tag(const ilp_graph *g, size_t i)
{
	const ilpi_node *n = &g->node[meta_node(g, i)];

	return g->node[i].kind == ILPI_OP && n->kind == ILPI_OP ? (ilpi_tag)n->tag :
	    ILPI_TAG_NONE;
}

int32_t
ilpi_sac_region(const ilp_graph *g, size_t i)
{
	return g->node[meta_node(g, i)].ac_graph_id;
}

int
ilpi_tag_binds_recompute(ilpi_tag t, ilp_prefer_mode mode)
{
	return t == ILPI_TAG_MUST_RECOMPUTE ||
	    (t == ILPI_TAG_PREFER_RECOMPUTE && mode != ILP_PREFER_SOFT);
}

int
ilpi_tag_binds_save(ilpi_tag t, ilp_prefer_mode mode)
{
	return t == ILPI_TAG_MUST_SAVE || t == ILPI_TAG_MUST_CPU_OFFLOAD ||
	    ((t == ILPI_TAG_PREFER_SAVE || t == ILPI_TAG_PREFER_CPU_OFFLOAD) &&
	    mode == ILP_PREFER_HARD);
}

/* The region end judged on node i's own users. */
static long
own_region_end(const ilp_graph *g, size_t i, ilp_prefer_mode mode)
{
	const ilpi_node *n = &g->node[i];
	const int32_t *use = ilpi_users(g, n);
	int32_t region = ilpi_sac_region(g, i);

	if (region == ILPI_NONE || !ilpi_tag_binds_recompute(ilpi_sac_tag(g, i), mode))
		return -1;
	for (uint32_t k = 0; k < n->use_count; k++) {
		size_t u = (size_t)use[k];
		int32_t ur = ilpi_sac_region(g, u);

		if (ilpi_live(&g->node[u]) && ur != ILPI_NONE && ur > region &&
		    ilpi_tag_binds_recompute(ilpi_sac_tag(g, u), mode))
			return (long)u;
	}
	return -1;
}

long
ilpi_region_end(const ilp_graph *g, size_t i, ilp_prefer_mode mode)
{
	int32_t p = ilpi_getitem_parent(g, i);
	long u = p != ILPI_NONE ? own_region_end(g, (size_t)p, mode) : -1;

	return u >= 0 ? u : own_region_end(g, i, mode);
}

int
ilpi_collective_recomputable(const ilp_graph *g, size_t i, ilp_prefer_mode mode)
{
	return ilpi_tag_binds_recompute(ilpi_sac_tag(g, i), mode) &&
	    ilpi_region_end(g, i, mode) < 0;
}
