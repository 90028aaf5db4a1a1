/*
 * obj_memory.c - the memory objective: least saved bytes, then least recompute cost.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "graph/partition.h"
#include "solver/driver/decomp.h"
#include "solver/driver/stage.h"
#include "solver/driver/obj_memory.h"

int
drv_obj_memory(solve_ctx *c, ilp_error *err)
{
	ilpi_terms t1 = drv_terms(c, 1, 0, 1), t2 = drv_terms(c, 0, 1, 1);
	ilpi_mip mip;
	size_t n = c->red.n_items;
	double best;
	int rc;

	if ((rc = drv_lex_blocks(c, 1, err)) != 1)
		return rc;
	if (drv_stage(c, "least-memory", 0, &t1, c->ws, c->wr, c->ts, c->tr, &mip, err) != 0)
		return -1;
	memcpy(c->s, c->ts, n);
	memcpy(c->r, c->tr, n);
	if (mip.timed_out)
		return 0;
	best = ilpi_model_value(&c->m, &t1, c->ts, c->tr);
	ilpi_model_set_limit(&c->m, ILPI_LIMIT_LEVEL, &t1, drv_level(mip.obj, t1.pen_s == NULL));
	if (drv_stage(c, "least-recompute", DRV_STAGE_WRITE, &t2, c->ts, c->tr, c->s, c->r, &mip,
	    err) != 0)
		return -1;
	/* GLPK keeps the level row within its tolerance; the bytes must not grow. */
	if (ilpi_model_value(&c->m, &t1, c->s, c->r) > best + 1e-9 * (1 + fabs(best))) {
		drv_note(c, "least-recompute exceeded the least bytes by rounding: keeping stage 1");
		memcpy(c->s, c->ts, n);
		memcpy(c->r, c->tr, n);
	}
	return 0;
}

/* The memory objective's value: the saved bytes (on the device: offloaded ones are
 * not, docs/solver.md "Offload"). */
double
drv_obj_memory_value(const solve_ctx *c, ilp_partition *p)
{
	return (double)(p->saved_bytes - ilpi_partition_offloaded_bytes(c->g, p));
}
