/*
 * obj_weighted.c - the weighted objective: saved bytes + alpha * recompute cost.
 */
#include "config.h"

#include "solver/driver/stage.h"
#include "solver/driver/obj_weighted.h"

int
drv_obj_weighted(solve_ctx *c, ilp_error *err)
{
	ilpi_terms t = drv_terms(c, 1, c->o->alpha / c->m.byte_unit, 0);
	ilpi_mip mip;

	if (c->o->prefer == ILP_PREFER_SOFT) {
		double a = c->o->alpha / c->m.byte_unit;

		for (size_t it = 0; it < c->red.n_items; it++) {
			c->pen[PEN_BYTES_S][it] += a * c->pen[PEN_TIME_S][it];
			c->pen[PEN_BYTES_R][it] += a * c->pen[PEN_TIME_R][it];
		}
		t.pen_s = c->pen[PEN_BYTES_S];
		t.pen_r = c->pen[PEN_BYTES_R];
	}
	return drv_stage(c, "weighted", DRV_STAGE_WRITE, &t, c->ws, c->wr, c->s, c->r, &mip, err);
}

/* The weighted objective's value: saved bytes + alpha * recompute time. */
double
drv_obj_weighted_value(const solve_ctx *c, ilp_partition *p)
{
	return (double)p->saved_bytes + c->o->alpha * p->recompute_time_us;
}
