/*
 * cmd_timeline.c - `ilpart timeline GRAPH [PART...] [--csv FILE]`: live bytes at every
 * step of the forward and the backward for one or more partitions of a graph, as the
 * memory simulator counts them (graph/memsim.c, ilpi_memsim_timeline): where each peak
 * is and what is live there, largest first. The CSV has one column per partition; the
 * picture is `python3 -m ilpart.plot timeline FILE -o out.svg`.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/cost.h"
#include "graph/graph.h"
#include "graph/memsim.h"
#include "graph/partition.h"
#include "graph/strbuf.h"

typedef struct column {
	char name[160];
	int from_file;             /* a partition file the user named */
	ilp_partition *p;          /* NULL when it could not be made */
	char error[1200];          /* why p or the timeline is missing */
	char violation[1024];      /* the checker's first violation, "" when clean */
	ilpi_timeline tl;
	int has_tl;
} column;

typedef struct timeline_opts {
	cli_policy_opts pol;
	ilp_solve_options so;
	const char *device, *csv;
	const char *parts[64];
	int n_parts;
	long top;
} timeline_opts;

static int
parse_args(timeline_opts *t, int argc, char **argv, const char **graph)
{
	const char *cmd = "timeline";
	int n_graph = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int k = cli_policy_arg(&t->pol, cmd, argc, argv, &i);
		char *end;

		if (k < 0)
			return CLI_INPUT;
		if (k > 0)
			continue;
		if (cli_opt(cmd, argc, argv, &i, "--csv", &v)) {
			if ((t->csv = v) == NULL)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--top", &v)) {
			if (v == NULL)
				return CLI_INPUT;
			t->top = strtol(v, &end, 10);
			if (*v == '\0' || *end != '\0' || t->top < 0 || t->top > 1000000)
				return cli_usage(cmd, "--top: expected a count, not '%s'", v);
		} else if (cli_opt(cmd, argc, argv, &i, "--memory-budget", &v)) {
			if (cli_opt_budget(cmd, v, &t->so.budget_bytes, &t->so.budget_fraction) !=
			    CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--fraction-cap", &v)) {
			if (cli_opt_fraction_cap(cmd, v, &t->so.fraction_cap) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--device", &v)) {
			if (cli_opt_device(cmd, v, &t->so.device) != CLI_OK)
				return CLI_INPUT;
			t->device = v;
		} else if (cli_opt(cmd, argc, argv, &i, "--time-limit", &v)) {
			if (cli_opt_seconds(cmd, v, &t->so.time_limit) != CLI_OK)
				return CLI_INPUT;
		} else if (cli_opt(cmd, argc, argv, &i, "--offload", &v)) {
			if (v == NULL || ilp_offload_parse(v, &t->so.offload, NULL) != 0)
				return cli_usage(cmd, "--offload: expected tags, none or free, not "
				    "'%s'", v != NULL ? v : "");
		} else if (cli_opt(cmd, argc, argv, &i, "--offload-bw", &v)) {
			const char *rest;

			if (v == NULL || cli_parse_number(v, &t->so.offload_bw, &rest) != 0 ||
			    *rest != '\0' || !(t->so.offload_bw > 0))
				return cli_usage(cmd, "--offload-bw: expected bytes per second > 0, "
				    "not '%s'", v != NULL ? v : "");
		} else if (a[0] == '-' && a[1] != '\0') {
			return cli_usage(cmd, "unknown option '%s'", a);
		} else if (n_graph == 0) {
			*graph = a;
			n_graph = 1;
		} else if (t->n_parts < (int)(sizeof t->parts / sizeof t->parts[0])) {
			t->parts[t->n_parts++] = a;
		} else {
			return cli_usage(cmd, "at most %zu partitions",
			    sizeof t->parts / sizeof t->parts[0]);
		}
	}
	if (*graph == NULL)
		return cli_usage(cmd, "missing GRAPH");
	t->so.prefer = t->pol.prefer;
	t->so.bans = t->pol.bans;
	return CLI_OK;
}

/* "ilp" and "peak": ilpart's optima, named as compare names them. */
static void
col_solve(const ilp_graph *g, const timeline_opts *t, int peak, column *c)
{
	ilp_solve_options so = t->so;
	ilp_error err = { 0 };

	if (peak) {
		so.objective = ILP_OBJ_PEAK;
		so.budget_bytes = -1;
		so.budget_fraction = -1;
		snprintf(c->name, sizeof c->name, "ilp (peak)");
	} else if (so.budget_bytes >= 0 || so.budget_fraction >= 0) {
		so.objective = ILP_OBJ_RUNTIME;
		if (so.budget_bytes >= 0)
			snprintf(c->name, sizeof c->name, "ilp (runtime, budget %lld B)",
			    (long long)so.budget_bytes);
		else
			snprintf(c->name, sizeof c->name, "ilp (runtime, budget %g)",
			    so.budget_fraction);
	} else {
		so.objective = ILP_OBJ_MEMORY;
		snprintf(c->name, sizeof c->name, "ilp (memory)");
	}
	if (ilp_solve(g, &so, &c->p, &err) != 0) {
		snprintf(c->error, sizeof c->error, "%s", err.msg);
		return;
	}
	if (!peak && so.budget_fraction >= 0) /* the bytes the fraction became */
		snprintf(c->name, sizeof c->name, "ilp (runtime, budget %g = %lld B)",
		    so.budget_fraction, (long long)c->p->budget_bytes);
	if (so.offload == ILP_OFFLOAD_FREE)
		strncat(c->name, " + offload", sizeof c->name - strlen(c->name) - 1);
}

static void
col_baseline(const ilp_graph *g, const timeline_opts *t, size_t k, column *c)
{
	ilp_error err = { 0 };
	const char *kind;

	if (cli_baseline(g, &t->so, k, &kind, c->name, sizeof c->name, &c->p, &err) != 0)
		snprintf(c->error, sizeof c->error, "%s", err.msg);
}

/* The columns PART names: a keyword, or a partition file (read here: a file that does
 * not read ends the command). */
static int
add_part(const ilp_graph *g, const timeline_opts *t, const char *part, column *cols,
    size_t *n)
{
	ilp_error err = { 0 };

	if (strcmp(part, "ilp") == 0 || strcmp(part, "peak") == 0) {
		col_solve(g, t, part[0] == 'p', &cols[(*n)++]);
	} else if (strcmp(part, "mincut") == 0) {
		col_baseline(g, t, 0, &cols[(*n)++]);
	} else if (strcmp(part, "save-all") == 0) {
		col_baseline(g, t, g->n_ref + 1, &cols[(*n)++]);
	} else if (strcmp(part, "refs") == 0) {
		for (size_t r = 0; r < g->n_ref; r++) {
			double f = cli_baseline_ref_budget(g->ref[r].name);

			/* with a fraction, PyTorch's references at other budgets say nothing */
			if (t->so.budget_fraction >= 0 && f >= 0 && f != t->so.budget_fraction)
				continue;
			col_baseline(g, t, r + 1, &cols[(*n)++]);
		}
	} else if (strncmp(part, "ref:", 4) == 0) {
		size_t r;

		for (r = 0; r < g->n_ref && strcmp(g->ref[r].name, part + 4) != 0; r++)
			;
		if (r == g->n_ref)
			return cli_usage("timeline", "%s: the graph records no reference "
			    "partition '%s'", g->path, part + 4);
		col_baseline(g, t, r + 1, &cols[(*n)++]);
	} else {
		column *c = &cols[(*n)++];

		snprintf(c->name, sizeof c->name, "%s", part);
		c->from_file = 1;
		if (ilp_partition_read_file(g, part, &c->p, &err) != 0)
			return cli_fail(&err);
	}
	return CLI_OK;
}

static void
judge(const ilp_graph *g, const timeline_opts *t, column *c)
{
	ilp_check_options co;
	ilp_error err = { 0 };

	if (c->p == NULL)
		return;
	co.prefer = t->pol.prefer_given || !c->from_file ? t->pol.prefer :
	    ilpi_partition_prefer(c->p);
	if (ilp_check(g, c->p, &co, &err) != 0)
		snprintf(c->violation, sizeof c->violation, "%s", err.msg);
	if (ilpi_memsim_timeline(g, c->p, &c->tl, &err) == 0)
		c->has_tl = 1;
	else if (c->from_file && strncmp(err.msg, "partition: ", 11) == 0)
		snprintf(c->error, sizeof c->error, "partition %.150s: %.1000s", c->name,
		    err.msg + 11);
	else
		snprintf(c->error, sizeof c->error, "%s", err.msg);
}

static const char *
human(int64_t b)
{
	static char buf[4][48];
	static int next;
	char *s = buf[next++ & 3];

	if (b >= (int64_t)1 << 30)
		snprintf(s, sizeof buf[0], "%lld bytes (%.2f GiB)", (long long)b,
		    (double)b / (1 << 30));
	else if (b >= 1 << 20)
		snprintf(s, sizeof buf[0], "%lld bytes (%.2f MiB)", (long long)b,
		    (double)b / (1 << 20));
	else
		snprintf(s, sizeof buf[0], "%lld bytes", (long long)b);
	return s;
}

static const char *
how_name(ilpi_live_how how)
{
	switch (how) {
	case ILPI_LIVE_SAVED:
		return "saved";
	case ILPI_LIVE_RECOMPUTED:
		return "recomputed";
	case ILPI_LIVE_OUTPUT:
		return "forward output, held";
	case ILPI_LIVE_WORKSPACE:
		return "workspace, while it runs";
	default:
		return "computed";
	}
}

static void
print_column(const ilp_graph *g, const column *c, long top)
{
	const ilpi_timeline *tl = &c->tl;
	size_t ps = tl->peak_step, shown;
	int64_t rest = 0, by_how[5] = { 0, 0, 0, 0, 0 };

	if (!c->has_tl) {
		printf("%s: no timeline: %s\n", c->name, c->error);
		return;
	}
	printf("%s: peak %s", c->name, human(tl->live[ps]));
	if (ps < tl->n_fw)
		printf(" in the forward, step %zu of %zu (%s)", ps + 1, tl->n_fw,
		    g->node[tl->node[ps]].name);
	else if (ps == tl->n_fw)
		printf(" at the backward's start (before its first op)");
	else
		printf(" in the backward, step %zu of %zu (%s)", ps - tl->n_fw, tl->n_bw,
		    g->node[tl->node[ps]].name);
	printf("; forward peak %s; saved %lld bytes", human(tl->peak.forward_peak),
	    (long long)ilpi_partition_saved_bytes(g, c->p));
	if (tl->peak.offloaded_bytes > 0)
		printf(", offloaded %lld (transfer time exposed %.6g us)",
		    (long long)tl->peak.offloaded_bytes, tl->peak.exposed_us);
	printf("; SAC %s\n", c->violation[0] ? "VIOLATION" : "ok");
	if (c->violation[0])
		printf("  %s\n", c->violation);
	for (shown = 0; shown < tl->n_at_peak; shown++)
		by_how[tl->at_peak[shown].how] += tl->at_peak[shown].bytes;
	printf("  live at the peak: %zu values; saved %lld, recomputed %lld, computed %lld, "
	    "held outputs %lld bytes", tl->n_at_peak,
	    (long long)by_how[ILPI_LIVE_SAVED], (long long)by_how[ILPI_LIVE_RECOMPUTED],
	    (long long)by_how[ILPI_LIVE_COMPUTED], (long long)by_how[ILPI_LIVE_OUTPUT]);
	if (by_how[ILPI_LIVE_WORKSPACE] > 0)
		printf(", the op's workspace %lld", (long long)by_how[ILPI_LIVE_WORKSPACE]);
	printf("; largest first:\n");
	for (shown = 0; shown < tl->n_at_peak; shown++) {
		const ilpi_live_value *v = &tl->at_peak[shown];

		if ((long)shown >= top) {
			rest += v->bytes;
			continue;
		}
		printf("  %14lld  %s (%s)\n", (long long)v->bytes, g->node[v->node].name,
		    how_name(v->how));
	}
	if ((long)tl->n_at_peak > top)
		printf("  %14lld  (%zu more values)\n", (long long)rest,
		    tl->n_at_peak - (size_t)top);
}

/* One row a step, aligned across the columns: forward steps 1.., the backward's start
 * (step 0), backward steps 1..; an empty cell where a partition has fewer steps. */
static char *
to_csv(const column *cols, size_t n)
{
	size_t max_fw = 0, max_bw = 0;
	ilpi_buf b;

	ilpi_buf_init(&b);
	ilpi_buf_puts(&b, "phase,step");
	for (size_t k = 0; k < n; k++) {
		char head[200];

		if (!cols[k].has_tl)
			continue;
		snprintf(head, sizeof head, "%s [live bytes]", cols[k].name);
		ilpi_buf_puts(&b, ",");
		ilpi_buf_csv_field(&b, head);
		if (cols[k].tl.n_fw > max_fw)
			max_fw = cols[k].tl.n_fw;
		if (cols[k].tl.n_bw > max_bw)
			max_bw = cols[k].tl.n_bw;
	}
	ilpi_buf_puts(&b, "\n");
	for (size_t s = 0; s < max_fw + 1 + max_bw; s++) {
		int fw = s < max_fw;
		size_t i = fw ? s : s - max_fw;   /* backward: 0 is its start */

		ilpi_buf_printf(&b, "%s,%zu", fw ? "forward" : "backward", fw ? i + 1 : i);
		for (size_t k = 0; k < n; k++) {
			const ilpi_timeline *tl = &cols[k].tl;

			if (!cols[k].has_tl)
				continue;
			if (fw && i < tl->n_fw)
				ilpi_buf_printf(&b, ",%lld", (long long)tl->live[i]);
			else if (!fw && i <= tl->n_bw)
				ilpi_buf_printf(&b, ",%lld", (long long)tl->live[tl->n_fw + i]);
			else
				ilpi_buf_puts(&b, ",");
		}
		ilpi_buf_puts(&b, "\n");
	}
	return ilpi_buf_take(&b);
}

int
cmd_timeline(int argc, char **argv)
{
	static const char *const dflt[] = { "ilp", "mincut", "refs" };
	timeline_opts t;
	const char *graph = NULL;
	ilp_graph *g = NULL;
	column *cols = NULL;
	ilp_error err = { 0 };
	size_t n = 0, cap;
	int rc, bad_file = 0;

	memset(&t, 0, sizeof t);
	cli_policy_opts_init(&t.pol);
	ilp_solve_options_init(&t.so);
	t.device = ILPI_DEVICE_DEFAULT;
	t.top = 5;
	ilp_device_lookup(t.device, &t.so.device);
	if ((rc = parse_args(&t, argc, argv, &graph)) != CLI_OK)
		return rc;
	if (t.n_parts == 0)
		for (size_t k = 0; k < sizeof dflt / sizeof dflt[0]; k++)
			t.parts[t.n_parts++] = dflt[k];
	if ((rc = cli_read_graph(graph, &t.pol, &g)) != CLI_OK)
		return rc;
	cap = (size_t)t.n_parts * (g->n_ref + 1);
	if ((cols = calloc(cap, sizeof *cols)) == NULL) {
		fprintf(stderr, "ilpart timeline: out of memory\n");
		rc = CLI_INPUT;
		goto out;
	}
	for (int k = 0; k < t.n_parts; k++)
		if ((rc = add_part(g, &t, t.parts[k], cols, &n)) != CLI_OK)
			goto out;
	for (size_t k = 0; k < n; k++) {
		judge(g, &t, &cols[k]);
		bad_file |= cols[k].from_file && !cols[k].has_tl;
	}
	printf("graph %s: %zu nodes; %zu partition%s; live bytes as the simulator counts "
	    "them (docs/partition.md \"Peak memory\")\n", g->path, g->n, n, n == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++) {
		if (cols[k].p == NULL)
			printf("%s: failed: %s\n", cols[k].name, cols[k].error);
		else
			print_column(g, &cols[k], t.top);
	}
	if (t.csv != NULL) {
		char *s = to_csv(cols, n);

		if (s == NULL) {
			fprintf(stderr, "ilpart timeline: out of memory\n");
			rc = CLI_INPUT;
			goto out;
		}
		if (ilp_write_file_atomic(t.csv, s, strlen(s), &err) != 0) {
			free(s);
			rc = cli_fail(&err);
			goto out;
		}
		free(s);
	}
	rc = bad_file ? CLI_VIOLATION : CLI_OK;
out:
	for (size_t k = 0; k < n; k++) {
		ilpi_timeline_free(&cols[k].tl);
		ilp_partition_free(cols[k].p);
	}
	free(cols);
	ilp_graph_free(g);
	return rc;
}
