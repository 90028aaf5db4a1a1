/*
 * options.c - the solve options: their defaults (ilp_solve_options_init) and their
 * checks, the DEFAULT and CHECK columns of graph/solve_options.h. Below the min-cut and
 * the driver, both of which start from the defaults.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "graph/cost.h"
#include "graph/solve_options.h"
#include "solver/options.h"

void
ilp_solve_options_init(ilp_solve_options *o)
{
	memset(o, 0, sizeof *o);
#define DEFAULT_(id, flag, sh, arg, def, parse, check, rec, store, help) def;
	ILPI_SOLVE_OPTIONS(DEFAULT_)
#undef DEFAULT_
}

static int
check_none(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	(void)g, (void)o, (void)err;
	return 0;
}

static int
check_memory_budget(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (o->budget_bytes >= 0 && o->budget_fraction >= 0) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': give bytes or a "
		    "fraction, not both", g->path);
		return -1;
	}
	if (o->budget_fraction > 1 || isnan(o->budget_fraction)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': fraction %g is not "
		    "in [0, 1]", g->path, o->budget_fraction);
		return -1;
	}
	if ((o->budget_bytes >= 0 || o->budget_fraction >= 0) &&
	    o->objective != ILP_OBJ_RUNTIME) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'memory-budget': only the runtime "
		    "objective takes a budget", g->path);
		return -1;
	}
	return 0;
}

static int
check_fraction_cap(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (o->fraction_cap != ILP_FRACTION_CAP_PYTORCH &&
	    o->fraction_cap != ILP_FRACTION_CAP_NORMALISED) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'fraction-cap': unknown cap %d", g->path,
		    (int)o->fraction_cap);
		return -1;
	}
	return 0;
}

static int
check_peak_budget(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (o->peak_budget >= 0 && o->objective != ILP_OBJ_RUNTIME) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'peak-budget': only the runtime "
		    "objective takes a peak budget", g->path);
		return -1;
	}
	return 0;
}

static int
check_alpha(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (!(o->alpha >= 0) || !isfinite(o->alpha)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'alpha': %g is not a finite number >= 0",
		    g->path, o->alpha);
		return -1;
	}
	return 0;
}

static int
check_device(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (!(o->device.peak_flops > 0) || !(o->device.bandwidth > 0) ||
	    !isfinite(o->device.peak_flops) || !isfinite(o->device.bandwidth)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'device': peak FLOP/s and bandwidth "
		    "must be positive", g->path);
		return -1;
	}
	return 0;
}

static int
check_offload(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if ((unsigned)o->offload > ILP_OFFLOAD_FREE || isnan(o->offload_bw) ||
	    isinf(o->offload_bw)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'offload': unknown mode %d or bandwidth "
		    "%g", g->path, (int)o->offload, o->offload_bw);
		return -1;
	}
	if (o->offload == ILP_OFFLOAD_FREE && (o->objective == ILP_OBJ_WEIGHTED ||
	    o->time_budget_us >= 0 || o->time_budget_fraction >= 0)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'offload': free takes the memory, "
		    "runtime (with a memory or peak budget: the device's saved bytes, the "
		    "simulated peak) and peak objectives; a time budget and the weighted "
		    "objective do not model offload yet", g->path);
		return -1;
	}
	return 0;
}

static int
check_gap(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (!(o->gap >= 0) || !isfinite(o->gap)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'gap': %g is not a number >= 0", g->path,
		    o->gap);
		return -1;
	}
	return 0;
}

static int
check_time_limit(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
	if (isnan(o->time_limit)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: option 'time-limit': not a number", g->path);
		return -1;
	}
	return 0;
}

int
ilpi_solve_options_check(const ilp_graph *g, const ilp_solve_options *o, ilp_error *err)
{
#define CHECK_(id, flag, sh, arg, def, parse, check, rec, store, help) \
	if (check_##check(g, o, err) != 0) \
		return -1;
	ILPI_SOLVE_OPTIONS(CHECK_)
#undef CHECK_
	return 0;
}
