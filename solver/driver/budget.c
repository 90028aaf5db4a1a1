/*
 * budget.c - a budget fraction in bytes: torch's normalisation, and with the
 * pytorch cap PyTorch's own partition at the fraction.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/mincut/mincut.h"
#include "solver/driver/answer.h"
#include "solver/driver/solve.h"
#include "solver/driver/stage.h"
#include "solver/driver/budget.h"

/* A fraction F means what torch's activation_memory_budget F means: the bytes its
 * memory ratio compares F against, B(F) = min + F * (max - min), with min the inputs'
 * bytes and max what torch's min-cut saves at budget 1 (docs/solver.md, worked
 * example). With the pytorch cap, PyTorch's own partition at F (the min-cut's budget
 * path, which makes the cut at budget 1 for the bounds anyway) lowers the budget to
 * its saved bytes when it obeys this solve's rules: that partition is then feasible,
 * so the optimum saves no more and recomputes no longer. When it saves more than
 * B(F), ilp_solve may solve again within its bytes (see there). */
/* Torch's normalisation with the whole boundary saved as its max. */
static int
boundary_bounds(const ilp_graph *g, double *lo, double *hi)
{
	uint8_t *set = calloc(g->n + 1, 1);

	if (set == NULL)
		return -1;
	for (size_t i = 0; i < g->n; i++)
		set[i] = (g->node[i].flags & ILPI_F_BOUNDARY) != 0;
	ilpi_mincut_bounds_of(g, set, lo, hi);
	free(set);
	return 0;
}

/* Bytes of every parameter or buffer primal (flag "param"): the solver's measure does
 * not charge them, so a fraction's bytes in torch's measure, which counts a saved
 * parameter, become B(F) minus all of them: a partition within that saves at most B(F)
 * in torch's measure even when it saves every parameter. */
static int64_t
param_bytes(const ilp_graph *g)
{
	int64_t sum = 0;

	for (size_t i = 0; i < g->n; i++)
		if (g->node[i].kind == ILPI_PRIMAL && (g->node[i].flags & ILPI_F_PARAM) &&
		    g->node[i].storage == (int32_t)i)
			sum += g->node[i].bytes;
	return sum;
}

int
drv_fraction_bytes(solve_ctx *c, ilp_error *err)
{
	ilpi_mincut_options mo;
	ilpi_mincut_info info;
	ilp_partition *p = NULL;
	ilp_error merr = { 0 };
	double lo, hi, f = c->o->budget_fraction;
	char why[sizeof merr.msg];
	const char *broke = NULL, *top = "min-cut at budget 1";
	int64_t bf, pb = param_bytes(c->g);

	ilpi_mincut_options_init(&mo);
	ilpi_mincut_options_from_solve(&mo, c->o);
	mo.prefer = ILP_PREFER_PYTORCH; /* torch's own reading of the tags */
	mo.check = 0;                   /* judged below by this solve's rules */
	if (c->o->fraction_cap == ILP_FRACTION_CAP_PYTORCH &&
	    ilpi_mincut_run(c->g, &mo, &p, &info, &merr) == 0) {
		lo = info.budget_min_bytes;
		hi = info.budget_max_bytes;
		ilpi_mincut_info_free(&info);
		broke = drv_breaks_rules(c, p, why, sizeof why);
	} else {
		if (merr.kind == ILP_ERR_SYSTEM) {
			*err = merr;
			return -1;
		}
		if (merr.kind != ILP_ERR_NONE)
			broke = strcpy(why, merr.msg);
		merr.kind = ILP_ERR_NONE;
		if (ilpi_mincut_budget_bounds(c->g, &mo, &lo, &hi, &merr) != 0) {
			if (merr.kind != ILP_ERR_CONFLICT) {
				*err = merr;
				return -1;
			}
			/* No finite cut at budget 1 (torch raises NetworkXUnbounded): the
			 * top of the scale is saving every value the backward needs. */
			if (boundary_bounds(c->g, &lo, &hi) != 0) {
				ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", c->g->path);
				return -1;
			}
			drv_note(c, "budget: min-cut has no finite cut at budget 1 (%.200s)",
			    merr.msg);
			top = "the boundary, all saved";
		}
	}
	bf = (int64_t)floor(hi > lo ? lo + f * (hi - lo) : hi);
	drv_note(c, "budget: %g in torch's normalisation [%.0f (inputs), %.0f (%s)] = %lld bytes",
	    f, lo, hi, top, (long long)bf);
	if (pb > 0) {
		drv_note(c, "budget: %lld bytes less the %lld bytes of every parameter and buffer "
		    "(not charged when saved) = %lld bytes", (long long)bf, (long long)pb,
		    (long long)(bf > pb ? bf - pb : 0));
		bf = bf > pb ? bf - pb : 0;
	}
	c->budget = bf;
	if (c->o->fraction_cap != ILP_FRACTION_CAP_PYTORCH) {
		drv_note(c, "budget: fraction cap normalised: %lld bytes", (long long)bf);
	} else if (broke != NULL) {
		drv_note(c, "budget: PyTorch's partition at %g does not bound it: %.300s", f, broke);
	} else {
		c->pt_bytes = p->saved_bytes;
		c->pt_us = p->recompute_time_us;
		if (p->saved_bytes < bf)
			c->budget = p->saved_bytes;
		drv_note(c, "budget: PyTorch's partition at %g obeys the rules and saves %lld bytes "
		    "(%.6g us recomputed): %lld bytes", f, (long long)p->saved_bytes,
		    p->recompute_time_us, (long long)c->budget);
		c->pt = p; /* a start for the runtime stage (obj_runtime) */
		p = NULL;
	}
	ilp_partition_free(p);
	return 0;
}

int
ilpi_budget_fraction_bytes(const ilp_graph *g, const ilp_solve_options *o, double f,
    int64_t *bytes, int64_t *pt_bytes, double *pt_us, ilp_error *err)
{
	ilp_solve_options fo = *o;
	solve_ctx c;
	int rc = -1;

	memset(&c, 0, sizeof c);
	fo.budget_fraction = f;
	fo.budget_bytes = -1;
	c.g = g;
	c.o = &fo;
	c.pt_bytes = -1;
	if (drv_build_rules(&c, err) == 0 && drv_fraction_bytes(&c, err) == 0) {
		*bytes = c.budget;
		*pt_bytes = c.pt_bytes;
		*pt_us = c.pt_us;
		rc = 0;
	}
	drv_release(&c, 0);
	return rc;
}
