/*
 * cmd_pareto.c - `ilpart pareto`: the memory / recompute trade-off. Budgets are swept
 * from the least feasible saved set (the ILP memory optimum) to the saved set of the
 * runtime optimum; each point is the least recompute time within that budget. The
 * min-cut, the graph's reference partitions and save-all are extra rows on the same
 * axes. CSV (default) or JSON; python3 -m ilpart.plot draws the CSV. With --offload
 * free, a second ILP curve (kind "ilp-offload") at the same budgets with offload
 * allowed, and a column offloaded_bytes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "graph/strbuf.h"

typedef struct point {
	const char *kind;       /* "ilp", "ilp-offload", "mincut", "reference", "save-all" */
	char name[128];
	int64_t budget;         /* < 0: none */
	ilp_partition *p;
	int violates;
	int64_t peak;           /* simulated peak, < 0 unknown */
	double exposed_us;      /* simulated exposed transfer time */
} point;

static int
solve_point(const ilp_graph *g, const ilp_solve_options *base, ilp_objective obj,
    int64_t budget, int peak_axis, point *pt, ilp_error *err)
{
	ilp_solve_options so = *base;

	so.objective = obj;
	if (peak_axis)
		so.peak_budget = budget;
	else
		so.budget_bytes = budget;
	pt->kind = "ilp";
	pt->budget = budget;
	snprintf(pt->name, sizeof pt->name, "ilp");
	if (ilp_solve(g, &so, &pt->p, err) != 0)
		return -1;
	return ilp_partition_evaluate(g, pt->p, &so.device, err);
}

/* The simulated peak of a point's partition, -1 when it does not run; its exposed
 * transfer time into pt. */
static int64_t
point_peak(const ilp_graph *g, point *pt)
{
	ilp_peak pk;

	if (pt->p == NULL || ilp_partition_peak(g, pt->p, &pk, NULL) != 0)
		return -1;
	pt->exposed_us = pk.exposed_us;
	return pk.peak_bytes;
}

/* Points of the offload curve below the least bytes without offload. */
#define OFFLOAD_BELOW 3

/* One point of the offload curve at budget b: off pa's front (pa not NULL: the saved
 * axis, one front with the offload state for every budget), else one ilp_solve. */
static int
offload_point(const ilp_graph *g, const ilp_solve_options *fo, ilp_pareto *pa, int64_t b,
    int peak_axis, point *pt, ilp_error *err)
{
	int rc;

	if (pa == NULL)
		rc = solve_point(g, fo, ILP_OBJ_RUNTIME, b, peak_axis, pt, err);
	else if ((rc = ilp_pareto_solve(pa, b, &pt->p, err)) == 0)
		rc = ilp_partition_evaluate(g, pt->p, &fo->device, err);
	pt->budget = b;
	pt->kind = "ilp-offload";
	snprintf(pt->name, sizeof pt->name, "ilp + offload");
	return rc;
}

/* --offload free: the ILP curve again at the budgets of its n points pts[0..n), with
 * offload allowed, appended; on the saved axis (the device's saved bytes) OFFLOAD_BELOW
 * more from the least device bytes with offload up to the curve's first budget. On the
 * saved axis every point comes off one ilp_pareto with offload (one front when the
 * model decomposes), unless each: one ilp_solve per point, as on the peak axis. */
static int
sweep_offload(const ilp_graph *g, const ilp_solve_options *so, int peak_axis, int each,
    point *pts, size_t *n, ilp_error *err)
{
	ilp_solve_options fo = *so;
	ilp_pareto *pa = NULL;
	size_t n0 = *n;
	int rc = -1;

	fo.offload = ILP_OFFLOAD_FREE;
	if (!peak_axis && !each && ilp_pareto_new(g, &fo, &pa, err) != 0)
		return -1;
	/* saved axis: first down from the least device bytes with offload (below the
	 * least without offload: where only offload fits) to the curve's first budget */
	if (!peak_axis) {
		int64_t lo, hi, first = -1;

		if (pa != NULL) {
			if (ilp_pareto_range(pa, &lo, &hi, err) != 0)
				goto out;
		} else {
			ilp_solve_options ends = fo;
			point least;

			memset(&least, 0, sizeof least);
			ends.bans = ILP_BANS_NONE;
			if (ends.rng_replay == ILP_RNG_REPLAY_AUTO)
				ends.rng_replay = ILP_RNG_REPLAY_ALWAYS;
			if (solve_point(g, &ends, ILP_OBJ_MEMORY, -1, 0, &least, err) != 0)
				goto out;
			lo = least.p->saved_bytes - ilpi_partition_offloaded_bytes(g, least.p);
			ilp_partition_free(least.p);
		}
		for (size_t k = 0; k < n0; k++)
			if (strcmp(pts[k].kind, "ilp") == 0 && pts[k].budget >= 0 &&
			    (first < 0 || pts[k].budget < first))
				first = pts[k].budget;
		for (int k = 0; first > lo && k < OFFLOAD_BELOW; k++) {
			int64_t b = lo + (first - lo) * k / OFFLOAD_BELOW;

			if (offload_point(g, &fo, pa, b, 0, &pts[*n], err) != 0)
				goto out;
			(*n)++;
		}
	}
	for (size_t k = 0; k < n0; k++) {
		point *pt = &pts[*n];

		if (strcmp(pts[k].kind, "ilp") != 0 || pts[k].budget < 0)
			continue;
		if (offload_point(g, &fo, pa, pts[k].budget, peak_axis, pt, err) != 0) {
			if (err->kind != ILP_ERR_SOLVER)
				goto out;
			fprintf(stderr, "ilpart: warning: pareto: no offload point at budget %lld "
			    "bytes: %s\n", (long long)pts[k].budget, err->msg);
			ilp_partition_free(pt->p);
			pt->p = NULL;
			ilpi_err_clear(err);
			continue;
		}
		(*n)++;
	}
	rc = 0;
out:
	ilp_pareto_free(pa);
	return rc;
}

/* The sweep's ends, one solve each: the least bytes (peak: least peak) and the bytes
 * (peak) of the runtime optimum, under the rules a budget brings (PyTorch's bans
 * lifted, RNG replay: docs/solver.md, "Memory budgets"). */
static int
sweep_ends(const ilp_graph *g, const ilp_solve_options *so, int peak_axis, int64_t *lo,
    int64_t *hi, point *lo_pt, ilp_error *err)
{
	ilp_solve_options ends = *so;
	point pt;

	memset(&pt, 0, sizeof pt);
	ends.bans = ILP_BANS_NONE;
	if (ends.rng_replay == ILP_RNG_REPLAY_AUTO)
		ends.rng_replay = ILP_RNG_REPLAY_ALWAYS;
	if (solve_point(g, &ends, peak_axis ? ILP_OBJ_PEAK : ILP_OBJ_MEMORY, -1, 0, &pt,
	    err) != 0)
		goto fail;
	*lo = peak_axis ? point_peak(g, &pt) : pt.p->saved_bytes;
	if (lo_pt != NULL) {
		*lo_pt = pt; /* the caller's */
		lo_pt->budget = *lo;
	} else
		ilp_partition_free(pt.p);
	pt.p = NULL;
	if (solve_point(g, &ends, ILP_OBJ_RUNTIME, -1, 0, &pt, err) != 0)
		goto fail;
	*hi = peak_axis ? point_peak(g, &pt) : pt.p->saved_bytes;
	ilp_partition_free(pt.p);
	if (*hi < *lo)
		*hi = *lo;
	return 0;
fail:
	ilp_partition_free(pt.p);
	return -1;
}

/* --axis peak: peak budgets from the least peak to the runtime optimum's, one solve
 * each (the peak rows live in the whole model only). */
static int
sweep_peak(const ilp_graph *g, const ilp_solve_options *so, long points, point *pts,
    size_t *n, ilp_error *err)
{
	int64_t lo, hi;
	point least;

	memset(&least, 0, sizeof least);
	if (sweep_ends(g, so, 1, &lo, &hi, &least, err) != 0)
		return -1;
	for (long k = 0; k < points; k++) {
		int64_t b = lo + (int64_t)((double)(hi - lo) * (double)k / (double)(points - 1));

		if (k == points - 1)
			b = hi;
		int rc = solve_point(g, so, ILP_OBJ_RUNTIME, b, 1, &pts[*n], err);

		if (rc != 0 && k == 0 && err->kind == ILP_ERR_SOLVER && least.p != NULL) {
			/* The least peak is a point of the curve whatever the peak budget's
			 * search finds in its time: the least-peak answer itself (least
			 * recompute at that peak when proven). */
			fprintf(stderr, "ilpart: warning: pareto: peak budget %lld bytes (the least "
			    "peak): %s; the least-peak answer is the point\n", (long long)b, err->msg);
			ilp_partition_free(pts[*n].p);
			pts[*n] = least;
			least.p = NULL;
			ilpi_err_clear(err);
			if (ilp_partition_evaluate(g, pts[*n].p, &so->device, err) != 0)
				return -1;
		} else if (rc != 0) {
			/* A peak budget the search cannot meet in simulation (or not
			 * within the time limit): no point, and the user is told. */
			if (err->kind == ILP_ERR_SOLVER) {
				fprintf(stderr, "ilpart: warning: pareto: no point at peak budget "
				    "%lld bytes: %s\n", (long long)b, err->msg);
				ilp_partition_free(pts[*n].p);
				pts[*n].p = NULL;
				continue;
			}
			ilp_partition_free(least.p);
			return -1;
		}
		(*n)++;
	}
	ilp_partition_free(least.p);
	return 0;
}

/* Items in a --budgets list, -1 when one is not a budget. */
static long
budget_list(const char *v)
{
	long n = 0;

	for (const char *at = v;; n++) {
		size_t len = strcspn(at, ",");
		char item[64];
		int64_t b;
		double f;

		if (len == 0 || len > 63 || n == 10000)
			return -1;
		snprintf(item, sizeof item, "%.*s", (int)len, at);
		if (cli_parse_budget(item, &b, &f) != 0)
			return -1;
		if (at[len] == '\0')
			return n + 1;
		at += len + 1;
	}
}

/* The point at budget b bytes or fraction f >= 0: off pa's front, or (pa NULL) by
 * ilp_solve, which reads the fraction itself. */
static int
saved_point(const ilp_graph *g, const ilp_solve_options *so, ilp_pareto *pa, int64_t b,
    double f, point *pt, ilp_error *err)
{
	ilp_solve_options o = *so;

	pt->kind = "ilp";
	snprintf(pt->name, sizeof pt->name, "ilp");
	if (pa != NULL) {
		if (f >= 0 && ilp_pareto_fraction_bytes(pa, f, &b, err) != 0)
			return -1;
		pt->budget = b;
		if (ilp_pareto_solve(pa, b, &pt->p, err) != 0)
			return -1;
	} else {
		o.objective = ILP_OBJ_RUNTIME;
		o.budget_bytes = f >= 0 ? -1 : b;
		o.budget_fraction = f;
		if (ilp_solve(g, &o, &pt->p, err) != 0)
			return -1;
		pt->budget = pt->p->budget_bytes;
	}
	return ilp_partition_evaluate(g, pt->p, &so->device, err);
}

/* Saved-bytes budgets: the given ones (bytes, or fractions read as solve reads them),
 * else `points` evenly spaced from the least feasible bytes to the runtime optimum's.
 * ilp_pareto reads them all off one front when the model decomposes; each: one
 * ilp_solve per budget and per end, as before the front (for comparison). */
static int
sweep_saved(const ilp_graph *g, const ilp_solve_options *so, long points,
    const char *budgets, int each, point *pts, size_t *n, ilp_error *err)
{
	ilp_pareto *pa = NULL;
	int64_t lo = 0, hi = 0;
	const char *at = budgets;
	int rc = -1;

	if (!each && ilp_pareto_new(g, so, &pa, err) != 0)
		return -1;
	if (budgets == NULL && (each ? sweep_ends(g, so, 0, &lo, &hi, NULL, err) :
	    ilp_pareto_range(pa, &lo, &hi, err)) != 0)
		goto out;
	if (hi < lo)
		hi = lo;
	for (long k = 0; k < points; k++) {
		int64_t b = hi;
		double f = -1;

		if (budgets == NULL && k < points - 1)
			b = lo + (int64_t)((double)(hi - lo) * (double)k / (double)(points - 1));
		if (budgets != NULL) {
			char item[64];
			size_t len = strcspn(at, ",");

			snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), at);
			at += len + (at[len] == ',');
			if (cli_parse_budget(item, &b, &f) != 0) {
				ilpi_err(err, ILP_ERR_INPUT, "--budgets: expected " CLI_BUDGET_HELP
				    ", not '%s'", item);
				goto out;
			}
		}
		if (saved_point(g, so, pa, b, f, &pts[*n], err) != 0)
			goto out;
		(*n)++;
	}
	rc = 0;
out:
	ilp_pareto_free(pa);
	return rc;
}

/* Every row names the axis its budgets bound, so a plot labels the curve without
 * being told again. */
static char *
render(const point *pts, size_t n, int json, const ilp_graph *g, int peak_axis, int offload)
{
	const char *axis = peak_axis ? "peak" : "saved";

	ilpi_buf b;

	ilpi_buf_init(&b);
	if (json) {
		ilpi_buf_puts(&b, "{\n  \"graph\": ");
		ilpi_buf_json_str(&b, g->path);
		ilpi_buf_printf(&b, ",\n  \"axis\": \"%s\",\n  \"points\": [", axis);
	} else {
		ilpi_buf_puts(&b, "kind,name,budget_bytes,saved_bytes,peak_bytes,recompute_flops,"
		    "recompute_time_us,n_saved,n_recomputed,status,sac,axis");
		ilpi_buf_puts(&b, offload ? ",offloaded_bytes,exposed_us\n" : "\n");
	}
	for (size_t k = 0; k < n; k++) {
		const point *pt = &pts[k];
		const ilp_partition *p = pt->p;

		if (json) {
			ilpi_buf_puts(&b, k ? ",\n    {\"kind\": " : "\n    {\"kind\": ");
			ilpi_buf_json_str(&b, pt->kind);
			ilpi_buf_puts(&b, ", \"name\": ");
			ilpi_buf_json_str(&b, pt->name);
			ilpi_buf_puts(&b, ", \"budget_bytes\": ");
			if (pt->budget >= 0)
				ilpi_buf_printf(&b, "%lld", (long long)pt->budget);
			else
				ilpi_buf_puts(&b, "null");
			ilpi_buf_printf(&b, ", \"saved_bytes\": %lld, \"peak_bytes\": ",
			    (long long)p->saved_bytes);
			if (pt->peak >= 0)
				ilpi_buf_printf(&b, "%lld", (long long)pt->peak);
			else
				ilpi_buf_puts(&b, "null");
			ilpi_buf_puts(&b, ", \"recompute_flops\": ");
			ilpi_buf_json_num(&b, p->recompute_flops);
			ilpi_buf_puts(&b, ", \"recompute_time_us\": ");
			ilpi_buf_json_num(&b, p->recompute_time_us);
			ilpi_buf_printf(&b, ", \"n_saved\": %zu, \"n_recomputed\": %zu, "
			    "\"status\": ", ilpi_partition_count(p, ILPI_P_SAVED),
			    ilpi_partition_count(p, ILPI_P_RECOMPUTED));
			ilpi_buf_json_str(&b, p->status);
			ilpi_buf_printf(&b, ", \"sac\": \"%s\"", pt->violates ? "violation" : "ok");
			if (offload) {
				ilpi_buf_printf(&b, ", \"offloaded_bytes\": %lld, \"exposed_us\": ",
				    (long long)ilpi_partition_offloaded_bytes(g, p));
				ilpi_buf_json_num(&b, pt->exposed_us);
			}
			ilpi_buf_puts(&b, "}");
			continue;
		}
		ilpi_buf_csv_field(&b, pt->kind);
		ilpi_buf_puts(&b, ",");
		ilpi_buf_csv_field(&b, pt->name);
		if (pt->budget >= 0)
			ilpi_buf_printf(&b, ",%lld", (long long)pt->budget);
		else
			ilpi_buf_puts(&b, ",");
		ilpi_buf_printf(&b, ",%lld,", (long long)p->saved_bytes);
		if (pt->peak >= 0)
			ilpi_buf_printf(&b, "%lld", (long long)pt->peak);
		ilpi_buf_puts(&b, ",");
		ilpi_buf_json_num(&b, p->recompute_flops);
		ilpi_buf_puts(&b, ",");
		ilpi_buf_json_num(&b, p->recompute_time_us);
		ilpi_buf_printf(&b, ",%zu,%zu,", ilpi_partition_count(p, ILPI_P_SAVED),
		    ilpi_partition_count(p, ILPI_P_RECOMPUTED));
		ilpi_buf_csv_field(&b, p->status);
		ilpi_buf_printf(&b, ",%s,%s", pt->violates ? "violation" : "ok", axis);
		if (offload) {
			ilpi_buf_printf(&b, ",%lld,", (long long)ilpi_partition_offloaded_bytes(g, p));
			ilpi_buf_json_num(&b, pt->exposed_us);
		}
		ilpi_buf_puts(&b, "\n");
	}
	if (json)
		ilpi_buf_puts(&b, "\n  ]\n}\n");
	return ilpi_buf_take(&b);
}

static const double budget_points[] = { 0.1, 0.3, 0.5 };

/* A baseline that refuses the graph (min-cut: no finite cut, or a partition the
 * checker rejects, as torch would fail) is left out with a warning, as compare shows
 * it failed: the ILP's curve stands without it. Other errors stop pareto. */
static int
refused(point *pt, size_t *n, ilp_error *err)
{
	if (err->kind != ILP_ERR_CONFLICT && err->kind != ILP_ERR_VIOLATION)
		return 0;
	fprintf(stderr, "ilpart: warning: pareto: no row '%s': %s\n", pt->name, err->msg);
	ilp_partition_free(pt->p);
	pt->p = NULL;
	(*n)--;
	ilpi_err_clear(err);
	return 1;
}

/* The baselines (cli/baselines.c), evaluated and checked like the sweep. */
static int
extra_points(const ilp_graph *g, const ilp_solve_options *so, const cli_policy_opts *pol,
    point *pts, size_t *n, ilp_error *err)
{
	ilp_check_options co = { pol->prefer };
	ilp_error cerr;

	for (size_t k = 0; k < cli_baseline_count(g); k++) {
		point *pt = &pts[(*n)++];

		pt->budget = -1;
		if (cli_baseline(g, so, k, &pt->kind, pt->name, sizeof pt->name, &pt->p,
		    err) != 0 && refused(pt, n, err))
			continue;
		if (pt->p == NULL || ilp_partition_evaluate(g, pt->p, &so->device, err) != 0)
			return -1;
		pt->violates = ilp_check(g, pt->p, &co, &cerr) != 0;
	}
	/* PyTorch's budget points: its min-cut at activation_memory_budget F */
	for (size_t k = 0; k < sizeof budget_points / sizeof budget_points[0]; k++) {
		ilp_solve_options fo = *so;
		point *pt = &pts[(*n)++];

		fo.budget_bytes = -1;
		fo.budget_fraction = budget_points[k];
		pt->budget = -1;
		if (cli_baseline(g, &fo, 0, &pt->kind, pt->name, sizeof pt->name, &pt->p,
		    err) != 0 && refused(pt, n, err))
			continue;
		if (pt->p == NULL || ilp_partition_evaluate(g, pt->p, &so->device, err) != 0)
			return -1;
		pt->violates = ilp_check(g, pt->p, &co, &cerr) != 0;
	}
	return 0;
}

int
cmd_pareto(int argc, char **argv)
{
	const char *graph = NULL, *outpath = "-";
	cli_policy_opts pol;
	ilp_solve_options so;
	ilp_graph *g = NULL;
	ilp_error err = { 0 };
	point *pts = NULL;
	size_t n = 0, cap = 0;
	long points = 10;
	int json = 0, n_graph = 0, rc, peak_axis = 0, each = 0, offload = 0;
	const char *budgets = NULL;
	char *out = NULL;

	cli_policy_opts_init(&pol);
	ilp_solve_options_init(&so);
	so.device.peak_flops = 0; /* not given: the graph's own, once read */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int k = cli_policy_arg(&pol, "pareto", argc, argv, &i);
		char *end;

		if (k < 0)
			return CLI_INPUT;
		if (k > 0)
			continue;
		if (cli_opt("pareto", argc, argv, &i, "--points", &v)) {
			if (v == NULL)
				return CLI_INPUT;
			points = strtol(v, &end, 10);
			if (end == v || *end != '\0' || points < 2 || points > 10000)
				return cli_usage("pareto", "--points: expected 2..10000, not '%s'", v);
		} else if (cli_opt("pareto", argc, argv, &i, "--budgets", &v)) {
			if (v == NULL)
				return CLI_INPUT;
			if ((points = budget_list(v)) < 0)
				return cli_usage("pareto", "--budgets: expected a comma-separated "
				    "list of " CLI_BUDGET_HELP ", not '%s'", v);
			budgets = v;
		} else if (cli_opt("pareto", argc, argv, &i, "-o", &v)) {
			if ((outpath = v) == NULL)
				return CLI_INPUT;
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (strcmp(a, "--solve-each") == 0) {
			each = 1;
		} else if (cli_opt("pareto", argc, argv, &i, "--axis", &v)) {
			if (v == NULL)
				return CLI_INPUT;
			if (strcmp(v, "peak") != 0 && strcmp(v, "saved") != 0)
				return cli_usage("pareto", "--axis: expected saved or peak, not '%s'",
				    v);
			peak_axis = strcmp(v, "peak") == 0;
		} else if (cli_opt("pareto", argc, argv, &i, "--torch", &v)) {
			if (cli_opt_torch("pareto", v, &so.torch_version) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt("pareto", argc, argv, &i, "--fraction-cap", &v)) {
			if (cli_opt_fraction_cap("pareto", v, &so.fraction_cap) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt("pareto", argc, argv, &i, "--device", &v)) {
			if (cli_opt_device("pareto", v, &so.device) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt("pareto", argc, argv, &i, "--offload", &v)) {
			if (v == NULL || strcmp(v, "free") != 0)
				return cli_usage("pareto", "--offload: expected free (a curve with "
				    "offload beside the one without), not '%s'", v ? v : "");
			offload = 1;
		} else if (cli_opt("pareto", argc, argv, &i, "--offload-bw", &v)) {
			const char *rest;

			if (v == NULL || cli_parse_number(v, &so.offload_bw, &rest) != 0 ||
			    *rest != '\0' || !(so.offload_bw > 0))
				return cli_usage("pareto", "--offload-bw: expected bytes per second > 0, "
				    "not '%s'", v ? v : "");
		} else if (cli_opt("pareto", argc, argv, &i, "--time-limit", &v)) {
			if (cli_opt_seconds("pareto", v, &so.time_limit) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_operand("pareto", a, &graph, 1, &n_graph) != CLI_OK) {
			return CLI_INPUT;
		}
	}
	if (graph == NULL)
		return cli_usage("pareto", "missing GRAPH");
	if (budgets != NULL && peak_axis)
		return cli_usage("pareto", "--budgets: only with --axis saved");
	if (budgets != NULL)
		points = budget_list(budgets);
	so.prefer = pol.prefer;
	so.bans = pol.bans;
	if ((rc = cli_read_graph(graph, &pol, &g)) != CLI_OK)
		return rc;
	if (so.device.peak_flops == 0) /* no --device: the graph's own */
		cli_graph_device(g, &so.device);
	cap = (size_t)points * (offload ? 2 : 1) + (offload ? OFFLOAD_BELOW : 0) +
	    cli_baseline_count(g) +
	    sizeof budget_points / sizeof budget_points[0];
	pts = calloc(cap, sizeof *pts);
	if (pts == NULL) {
		ilpi_err(&err, ILP_ERR_SYSTEM, "out of memory");
		goto fail;
	}
	if ((peak_axis ? sweep_peak(g, &so, points, pts, &n, &err) :
	    sweep_saved(g, &so, points, budgets, each, pts, &n, &err)) != 0)
		goto fail;
	if (offload && sweep_offload(g, &so, peak_axis, each, pts, &n, &err) != 0)
		goto fail;
	if (extra_points(g, &so, &pol, pts, &n, &err) != 0)
		goto fail;
	for (size_t k = 0; k < n; k++)
		pts[k].peak = point_peak(g, &pts[k]);
	if ((out = render(pts, n, json, g, peak_axis, offload)) == NULL) {
		ilpi_err(&err, ILP_ERR_SYSTEM, "out of memory");
		goto fail;
	}
	if (ilp_write_file_atomic(outpath, out, strlen(out), &err) != 0)
		goto fail;
	rc = CLI_OK;
	goto out;
fail:
	rc = cli_fail(&err);
out:
	free(out);
	if (pts != NULL)
		for (size_t k = 0; k < cap; k++)
			ilp_partition_free(pts[k].p);
	free(pts);
	ilp_graph_free(g);
	return rc;
}
