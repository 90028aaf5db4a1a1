/*
 * cmd_compare.c - `ilpart compare`: one table, one row per partition of the same
 * graph: the ILP optimum, ilpart's min-cut (the graph's torch's rules), each reference
 * partition recorded in the graph file, and save-everything-needed.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "graph/clock.h"
#include "graph/cost.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "graph/strbuf.h"

typedef struct row {
	char name[128];
	const char *kind;          /* "ilp", "mincut", "reference", "save-all" */
	ilp_partition *p;          /* NULL when it could not be made */
	char error[1024];          /* why p is NULL */
	ilp_error_kind error_kind; /* ... and its kind (the ILP rows' exit status) */
	char violation[1024];      /* ilp_check's first violation, "" when clean */
	double seconds;
	ilp_peak peak;             /* simulated; peak.phase == ILP_PHASE_NONE when unknown */
	int has_peak;
} row;

typedef struct compare_opts {
	cli_policy_opts pol;
	ilp_solve_options so;
	const char *device;        /* the profile's name (or --device's text) */
	char device_why[160];      /* why that device: "--device", the graph's, default */
	int json, no_times;
	int peak;                  /* --peak: add the least-peak row */
	int offload;               /* --offload free: add the row with offload */
} compare_opts;

static int
parse_args(compare_opts *c, const char *cmd, int argc, char **argv, const char **graph)
{
	int n_graph = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int k = cli_policy_arg(&c->pol, cmd, argc, argv, &i);

		if (k < 0)
			return CLI_INPUT;
		if (k > 0)
			continue;
		if (cli_opt(cmd, argc, argv, &i, "--memory-budget", &v)) {
			if (cli_opt_budget(cmd, v, &c->so.budget_bytes, &c->so.budget_fraction) !=
			    CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--torch", &v)) {
			if (cli_opt_torch(cmd, v, &c->so.torch_version) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--fraction-cap", &v)) {
			if (cli_opt_fraction_cap(cmd, v, &c->so.fraction_cap) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--device", &v)) {
			if (cli_opt_device(cmd, v, &c->so.device) != CLI_OK)
				return CLI_INPUT;
			c->device = v;
		} else if (cli_opt(cmd, argc, argv, &i, "--time-limit", &v)) {
			if (cli_opt_seconds(cmd, v, &c->so.time_limit) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--out-of-reach", &v)) {
			if (cli_opt_out_of_reach(cmd, v, &c->so.unreachable) != CLI_OK)
				return CLI_INPUT;
		} else if (strcmp(a, "--strict-budget") == 0) {
			c->so.unreachable = ILP_UNREACHABLE_FAIL;
		} else if (strcmp(a, "--json") == 0) {
			c->json = 1;
		} else if (strcmp(a, "--no-times") == 0) {
			c->no_times = 1;
		} else if (strcmp(a, "--peak") == 0) {
			c->peak = 1;
		} else if (cli_opt(cmd, argc, argv, &i, "--offload", &v)) {
			if (v == NULL || strcmp(v, "free") != 0)
				return cli_usage(cmd, "--offload: expected free (a row with offload "
				    "beside the one without), not '%s'", v != NULL ? v : "");
			c->offload = 1;
		} else if (cli_opt(cmd, argc, argv, &i, "--offload-bw", &v)) {
			const char *end;

			if (v == NULL || cli_parse_number(v, &c->so.offload_bw, &end) != 0 ||
			    *end != '\0' || !(c->so.offload_bw > 0))
				return cli_usage(cmd, "--offload-bw: expected bytes per second > 0, "
				    "not '%s'", v != NULL ? v : "");
		} else if (cli_operand(cmd, a, graph, 1, &n_graph) != CLI_OK) {
			return CLI_INPUT;
		}
	}
	if (*graph == NULL)
		return cli_usage(cmd, "missing GRAPH");
	c->so.prefer = c->pol.prefer;
	c->so.bans = c->pol.bans;
	return CLI_OK;
}

/* An ilp row: g solved with so, timed; a failure is the row's error. */
static void
solve_row(const ilp_graph *g, const ilp_solve_options *so, row *r)
{
	ilp_error err = { 0 };
	double t0 = ilpi_now();

	r->kind = "ilp";
	if (ilp_solve(g, so, &r->p, &err) != 0) {
		snprintf(r->error, sizeof r->error, "%s", err.msg);
		r->error_kind = err.kind;
	}
	r->seconds = ilpi_now() - t0;
}

static void
row_ilp(const ilp_graph *g, const compare_opts *c, row *r)
{
	ilp_solve_options so = c->so;

	if (so.budget_bytes >= 0 || so.budget_fraction >= 0) {
		so.objective = ILP_OBJ_RUNTIME;
		if (so.budget_bytes >= 0)
			snprintf(r->name, sizeof r->name, "ilp (runtime, budget %lld B)",
			    (long long)so.budget_bytes);
		else
			snprintf(r->name, sizeof r->name, "ilp (runtime, budget %g)",
			    so.budget_fraction);
	} else {
		so.objective = ILP_OBJ_MEMORY;
		snprintf(r->name, sizeof r->name, "ilp (memory)");
	}
	solve_row(g, &so, r);
	if (r->p != NULL && ilp_partition_note(r->p)[0] != '\0') { /* solver/driver/reach.c */
		if (so.budget_bytes >= 0)
			snprintf(r->name, sizeof r->name, "ilp (least bytes: budget %lld B out of "
			    "reach)", (long long)so.budget_bytes);
		else
			snprintf(r->name, sizeof r->name, "ilp (least bytes: budget %g out of "
			    "reach)", so.budget_fraction);
	} else if (r->p != NULL && so.budget_fraction >= 0) /* the bytes the fraction became */
		snprintf(r->name, sizeof r->name, "ilp (runtime, budget %g = %lld B)",
		    so.budget_fraction, (long long)r->p->budget_bytes);
}

/* --offload free: the ilp row's request with offload (docs/solver.md "Offload"). */
static void
row_ilp_offload(const ilp_graph *g, const compare_opts *c, row *r)
{
	compare_opts o = *c;
	char name[sizeof r->name];

	o.so.offload = ILP_OFFLOAD_FREE;
	row_ilp(g, &o, r);
	snprintf(name, sizeof name, "%.100s + offload", r->name);
	memcpy(r->name, name, sizeof r->name);
}

/* --peak: the least simulated peak (then least recompute time), no byte budget. */
static void
row_ilp_peak(const ilp_graph *g, const compare_opts *c, row *r)
{
	ilp_solve_options so = c->so;

	so.objective = ILP_OBJ_PEAK;
	so.budget_bytes = -1;
	so.budget_fraction = -1;
	snprintf(r->name, sizeof r->name, "ilp (peak)");
	solve_row(g, &so, r);
}

/* Where the saved-bytes optimum and the peak optimum differ: both figures, and the
 * values one saves or recomputes and the other does not. */
static void
print_peak_diff(const ilp_graph *g, const row *mem, const row *pk)
{
	size_t shown = 0, differ = 0;

	if (mem->p == NULL || pk->p == NULL || !mem->has_peak || !pk->has_peak)
		return;
	printf("peak optimum vs saved-bytes optimum: peak %lld -> %lld bytes (%+lld), saved "
	    "%lld -> %lld bytes (%+lld)\n", (long long)mem->peak.peak_bytes,
	    (long long)pk->peak.peak_bytes,
	    (long long)(pk->peak.peak_bytes - mem->peak.peak_bytes),
	    (long long)mem->p->saved_bytes, (long long)pk->p->saved_bytes,
	    (long long)(pk->p->saved_bytes - mem->p->saved_bytes));
	/* Primals cost nothing to save (the caller holds them): only ops are listed. */
	for (size_t v = 0; v < g->n; v++)
		if (g->node[v].kind == ILPI_OP && (mem->p->state[v] & 3) != (pk->p->state[v] & 3))
			differ++;
	printf("  %zu values decided differently%s", differ, differ ? ":" : "\n");
	for (size_t v = 0; v < g->n && differ; v++) {
		static const char *const what[4] = { "-", "saved", "recomputed", "?" };

		if (g->node[v].kind != ILPI_OP ||
		    (mem->p->state[v] & 3) == (pk->p->state[v] & 3))
			continue;
		if (shown++ == 8) {
			printf(" ...");
			break;
		}
		printf(" %s (%s -> %s)", g->node[v].name, what[mem->p->state[v] & 3],
		    what[pk->p->state[v] & 3]);
	}
	if (differ)
		printf("\n");
}

static void
row_baseline(const ilp_graph *g, const compare_opts *c, size_t k, row *r)
{
	ilp_error err = { 0 };
	double t0 = ilpi_now();

	if (cli_baseline(g, &c->so, k, &r->kind, r->name, sizeof r->name, &r->p, &err) != 0)
		snprintf(r->error, sizeof r->error, "%s", err.msg);
	r->seconds = ilpi_now() - t0;
}

/* Costs on the chosen device and the checker's verdict. */
static void
judge(const ilp_graph *g, const compare_opts *c, row *r)
{
	ilp_check_options co;
	ilp_error err = { 0 };

	if (r->p == NULL)
		return;
	if (ilp_partition_evaluate(g, r->p, &c->so.device, &err) != 0) {
		snprintf(r->error, sizeof r->error, "%s", err.msg);
		ilp_partition_free(r->p);
		r->p = NULL;
		return;
	}
	co.prefer = c->pol.prefer;
	if (ilp_check(g, r->p, &co, &err) != 0)
		snprintf(r->violation, sizeof r->violation, "%s", err.msg);
	/* Lowering checks in the partition's own mode: a row that is not executable
	 * has no peak. */
	r->has_peak = ilp_partition_peak(g, r->p, &r->peak, &err) == 0;
}

static void
fmt_peak(char *buf, size_t size, const row *r)
{
	if (r->has_peak)
		snprintf(buf, size, "%lld", (long long)r->peak.peak_bytes);
	else
		snprintf(buf, size, "-");
}

static void
fmt_distance(char *buf, size_t size, const row *r, int64_t opt)
{
	int64_t d;

	if (r->p == NULL || opt < 0) {
		snprintf(buf, size, "-");
		return;
	}
	d = r->p->saved_bytes - opt;
	if (opt == 0)
		snprintf(buf, size, "%s%lld B", d >= 0 ? "+" : "", (long long)d);
	else
		snprintf(buf, size, "x%.3f (%s%lld B)", (double)r->p->saved_bytes / (double)opt,
		    d >= 0 ? "+" : "", (long long)d);
}

static void
print_table(const ilp_graph *g, const compare_opts *c, const row *rows, size_t n,
    int64_t opt)
{
	int w = 9;

	for (size_t k = 0; k < n; k++)
		if ((int)strlen(rows[k].name) > w)
			w = (int)strlen(rows[k].name);
	printf("graph %s: %zu nodes; check mode %s, bans %s, device %s (%s)\n", g->path, g->n,
	    ilp_prefer_name(c->pol.prefer), ilp_bans_name(c->pol.bans),
	    c->device, c->device_why);
	printf("%-*s %14s %14s %16s %14s %7s %7s %-9s %9s %8s  %s\n", w, "partition",
	    "saved_bytes", "peak_bytes", "recompute_flops", "recompute_us", "#saved", "#recomp", "SAC", "solve_s", "gap",
	    "vs_optimum");
	for (size_t k = 0; k < n; k++) {
		const row *r = &rows[k];
		char t[32], gap[32], dist[64], pk[32];

		if (r->p == NULL) {
			printf("%-*s failed: %s\n", w, r->name, r->error);
			continue;
		}
		if (c->no_times)
			snprintf(t, sizeof t, "-");
		else
			snprintf(t, sizeof t, "%.3f", r->seconds);
		if (strcmp(r->kind, "ilp") == 0 && r->p->gap >= 0)
			snprintf(gap, sizeof gap, "%.3g", r->p->gap);
		else
			snprintf(gap, sizeof gap, "-");
		fmt_distance(dist, sizeof dist, r, opt);
		fmt_peak(pk, sizeof pk, r);
		printf("%-*s %14lld %14s %16.6g %14.6g %7zu %7zu %-9s %9s %8s  %s\n", w, r->name,
		    (long long)r->p->saved_bytes, pk, r->p->recompute_flops,
		    r->p->recompute_time_us,
		    ilpi_partition_count(r->p, ILPI_P_SAVED),
		    ilpi_partition_count(r->p, ILPI_P_RECOMPUTED),
		    r->violation[0] ? "VIOLATION" : "ok", t, gap, dist);
	}
	for (size_t k = 0; k < n; k++)
		if (rows[k].p != NULL && rows[k].violation[0])
			printf("%s: %s\n", rows[k].name, rows[k].violation);
	for (size_t k = 0; k < n; k++)
		if (rows[k].p != NULL && ilp_partition_note(rows[k].p)[0] != '\0')
			printf("%s: note: %s\n", rows[k].name, ilp_partition_note(rows[k].p));
	for (size_t k = 0; k < n; k++)
		if (rows[k].p != NULL && rows[k].has_peak && rows[k].peak.offloaded_bytes > 0)
			printf("%s: offloaded %zu values (%lld bytes): %lld saved bytes on the "
			    "device; transfer time exposed %.6g us (simulated)\n", rows[k].name,
			    ilpi_partition_count(rows[k].p, ILPI_P_OFFLOADED),
			    (long long)rows[k].peak.offloaded_bytes,
			    (long long)(rows[k].p->saved_bytes - rows[k].peak.offloaded_bytes),
			    rows[k].peak.exposed_us);
}

static char *
to_json(const ilp_graph *g, const compare_opts *c, const row *rows, size_t n, int64_t opt)
{
	ilpi_buf b;

	ilpi_buf_init(&b);
	ilpi_buf_puts(&b, "{\n  \"graph\": ");
	ilpi_buf_json_str(&b, g->path);
	ilpi_buf_printf(&b, ",\n  \"prefer\": \"%s\",\n  \"bans\": \"%s\",\n  \"device\": ",
	    ilp_prefer_name(c->pol.prefer), ilp_bans_name(c->pol.bans));
	ilpi_buf_json_str(&b, c->device);
	ilpi_buf_puts(&b, ",\n  \"device_why\": ");
	ilpi_buf_json_str(&b, c->device_why);
	ilpi_buf_puts(&b, ",\n  \"memory_budget\": ");
	if (c->so.budget_bytes >= 0)
		ilpi_buf_printf(&b, "%lld", (long long)c->so.budget_bytes);
	else if (c->so.budget_fraction >= 0)
		ilpi_buf_json_num(&b, c->so.budget_fraction);
	else
		ilpi_buf_puts(&b, "null");
	ilpi_buf_puts(&b, ",\n  \"optimum_saved_bytes\": ");
	if (opt >= 0)
		ilpi_buf_printf(&b, "%lld", (long long)opt);
	else
		ilpi_buf_puts(&b, "null");
	ilpi_buf_puts(&b, ",\n  \"rows\": [");
	for (size_t k = 0; k < n; k++) {
		const row *r = &rows[k];

		ilpi_buf_puts(&b, k ? ",\n    {" : "\n    {");
		ilpi_buf_puts(&b, "\"name\": ");
		ilpi_buf_json_str(&b, r->name);
		ilpi_buf_printf(&b, ", \"kind\": \"%s\"", r->kind);
		if (r->p == NULL) {
			ilpi_buf_puts(&b, ", \"error\": ");
			ilpi_buf_json_str(&b, r->error);
			ilpi_buf_puts(&b, "}");
			continue;
		}
		ilpi_buf_puts(&b, ", \"status\": ");
		ilpi_buf_json_str(&b, r->p->status);
		if (ilp_partition_note(r->p)[0] != '\0') {
			ilpi_buf_puts(&b, ", \"note\": ");
			ilpi_buf_json_str(&b, ilp_partition_note(r->p));
		}
		ilpi_buf_printf(&b, ", \"saved_bytes\": %lld", (long long)r->p->saved_bytes);
		if (strcmp(r->kind, "ilp") == 0 && r->p->budget_bytes >= 0)
			ilpi_buf_printf(&b, ", \"budget_bytes\": %lld",
			    (long long)r->p->budget_bytes);
		if (strcmp(r->kind, "ilp") == 0 && r->p->peak_cap_bytes >= 0) /* dominate.c */
			ilpi_buf_printf(&b, ", \"peak_cap_bytes\": %lld",
			    (long long)r->p->peak_cap_bytes);
		if (r->has_peak) {
			ilpi_buf_printf(&b, ", \"peak_bytes\": %lld, \"peak_phase\": \"%s\", "
			    "\"peak_at\": ", (long long)r->peak.peak_bytes,
			    ilp_phase_name(r->peak.phase));
			if (r->peak.node >= 0)
				ilpi_buf_json_str(&b, g->node[r->peak.node].name);
			else
				ilpi_buf_puts(&b, "null");
		} else {
			ilpi_buf_puts(&b, ", \"peak_bytes\": null");
		}
		if (r->has_peak && r->peak.offloaded_bytes > 0) {
			ilpi_buf_printf(&b, ", \"offloaded_bytes\": %lld, \"exposed_us\": ",
			    (long long)r->peak.offloaded_bytes);
			ilpi_buf_json_num(&b, r->peak.exposed_us);
		}
		ilpi_buf_puts(&b, ", \"recompute_flops\": ");
		ilpi_buf_json_num(&b, r->p->recompute_flops);
		ilpi_buf_puts(&b, ", \"recompute_time_us\": ");
		ilpi_buf_json_num(&b, r->p->recompute_time_us);
		ilpi_buf_printf(&b, ", \"n_saved\": %zu, \"n_recomputed\": %zu",
		    ilpi_partition_count(r->p, ILPI_P_SAVED),
		    ilpi_partition_count(r->p, ILPI_P_RECOMPUTED));
		ilpi_buf_puts(&b, ", \"violation\": ");
		if (r->violation[0])
			ilpi_buf_json_str(&b, r->violation);
		else
			ilpi_buf_puts(&b, "null");
		if (!c->no_times) {
			ilpi_buf_puts(&b, ", \"solve_time_s\": ");
			ilpi_buf_json_num(&b, r->seconds);
		}
		ilpi_buf_puts(&b, ", \"gap\": ");
		if (strcmp(r->kind, "ilp") == 0 && r->p->gap >= 0)
			ilpi_buf_json_num(&b, r->p->gap);
		else
			ilpi_buf_puts(&b, "null");
		if (opt >= 0) {
			ilpi_buf_printf(&b, ", \"saved_bytes_delta\": %lld",
			    (long long)(r->p->saved_bytes - opt));
			ilpi_buf_puts(&b, ", \"saved_bytes_ratio\": ");
			if (opt > 0)
				ilpi_buf_json_num(&b, (double)r->p->saved_bytes / (double)opt);
			else
				ilpi_buf_puts(&b, "null");
		}
		ilpi_buf_puts(&b, "}");
	}
	ilpi_buf_puts(&b, "\n  ]\n}\n");
	return ilpi_buf_take(&b);
}

int
cmd_compare(int argc, char **argv)
{
	compare_opts c;
	const char *graph = NULL;
	ilp_graph *g = NULL;
	row *rows = NULL;
	size_t n = 0;
	int64_t opt = -1;
	int rc;

	memset(&c, 0, sizeof c);
	cli_policy_opts_init(&c.pol);
	ilp_solve_options_init(&c.so);
	if ((rc = parse_args(&c, "compare", argc, argv, &graph)) != CLI_OK)
		return rc;
	if ((rc = cli_read_graph(graph, &c.pol, &g)) != CLI_OK)
		return rc;
	if (c.device != NULL) {
		snprintf(c.device_why, sizeof c.device_why, "--device");
	} else {
		c.device = cli_graph_device(g, &c.so.device);
		if (ilp_device_profile_for(ilp_graph_device(g)) != NULL)
			snprintf(c.device_why, sizeof c.device_why, "the graph was captured on %.120s",
			    ilp_graph_device(g));
		else if (ilp_graph_device(g) != NULL)
			snprintf(c.device_why, sizeof c.device_why, "default: the graph was captured "
			    "on %.80s, no profile", ilp_graph_device(g));
		else
			snprintf(c.device_why, sizeof c.device_why, "default: the graph names no "
			    "device");
	}
	rows = calloc(3 + cli_baseline_count(g), sizeof *rows);
	if (rows == NULL) {
		fprintf(stderr, "ilpart compare: out of memory\n");
		rc = CLI_INPUT;
		goto out;
	}
	row_ilp(g, &c, &rows[n++]);
	if (c.peak)
		row_ilp_peak(g, &c, &rows[n++]);
	if (c.offload)
		row_ilp_offload(g, &c, &rows[n++]);
	for (size_t k = 0; k < cli_baseline_count(g); k++) {
		double f = k >= 1 && k - 1 < g->n_ref ?
		    cli_baseline_ref_budget(g->ref[k - 1].name) : -1;

		/* with a fraction, PyTorch's references at other budgets say nothing */
		if (c.so.budget_fraction >= 0 && f >= 0 && f != c.so.budget_fraction)
			continue;
		row_baseline(g, &c, k, &rows[n++]);
	}
	for (size_t k = 0; k < n; k++)
		judge(g, &c, &rows[k]);
	if (rows[0].p != NULL && !rows[0].violation[0])
		opt = rows[0].p->saved_bytes;
	if (c.json) {
		char *s = to_json(g, &c, rows, n, opt);

		if (s == NULL) {
			fprintf(stderr, "ilpart compare: out of memory\n");
			rc = CLI_INPUT;
			goto out;
		}
		fputs(s, stdout);
		free(s);
	} else {
		print_table(g, &c, rows, n, opt);
		if (c.peak)
			print_peak_diff(g, &rows[0], &rows[1]);
	}
	/* The table is printed either way; a failed ILP row is the command's status (a
	 * budget out of reach is no failure: solver/driver/reach.c answers it with the least). */
	rc = CLI_OK;
	for (size_t k = 0; k < n && rc == CLI_OK; k++)
		if (strcmp(rows[k].kind, "ilp") == 0 && rows[k].p == NULL)
			rc = cli_exit_code(rows[k].error_kind != ILP_ERR_NONE ?
			    rows[k].error_kind : ILP_ERR_INPUT);
out:
	for (size_t k = 0; k < n; k++)
		ilp_partition_free(rows[k].p);
	free(rows);
	ilp_graph_free(g);
	return rc;
}
