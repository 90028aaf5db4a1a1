/*
 * solve_opts.c - ilpart solve's options, from the table of graph/solve_options.h:
 * parsing each (the PARSE column: parse_NAME below), the synopsis and the option lines
 * of --help (FLAG, ARG, HELP), and which options a partition store entry may carry
 * (STORE).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/solve_options.h"
#include "solver/driver/objectives.h"

static int
parse_objective(const char *cmd, const char *v, ilp_solve_options *o)
{
	char list[256];

	if (ilpi_objective_parse(v, &o->objective) == 0)
		return CLI_OK;
	ilpi_objective_list(list, sizeof list);
	return cli_usage(cmd, "--objective: expected %s, not '%s'", list, v);
}

static int
parse_alpha(const char *cmd, const char *v, ilp_solve_options *o)
{
	const char *end;

	if (cli_parse_number(v, &o->alpha, &end) != 0 || *end != '\0' || o->alpha < 0)
		return cli_usage(cmd, "--alpha: expected a number >= 0, not '%s'", v);
	return CLI_OK;
}

static int
parse_gap(const char *cmd, const char *v, ilp_solve_options *o)
{
	const char *end;

	if (cli_parse_number(v, &o->gap, &end) != 0 || *end != '\0' || o->gap < 0)
		return cli_usage(cmd, "--gap: expected a relative gap >= 0, not '%s'", v);
	return CLI_OK;
}

static int
parse_memory_budget(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_budget(cmd, v, &o->budget_bytes, &o->budget_fraction);
}

static int
parse_peak_budget(const char *cmd, const char *v, ilp_solve_options *o)
{
	int64_t bytes;
	double frac;

	if (cli_parse_budget(v, &bytes, &frac) != 0 || bytes < 0)
		return cli_usage(cmd, "--peak-budget: expected bytes (e.g. 512MiB), not '%s'", v);
	o->peak_budget = bytes;
	return CLI_OK;
}

static int
parse_fraction_cap(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_fraction_cap(cmd, v, &o->fraction_cap);
}

static int
parse_torch(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_torch(cmd, v, &o->torch_version);
}

static int
parse_time_budget(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_time_budget(cmd, v, &o->time_budget_us, &o->time_budget_fraction);
}

static int
parse_out_of_reach(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_out_of_reach(cmd, v, &o->unreachable);
}

static int
parse_strict_budget(const char *cmd, const char *v, ilp_solve_options *o)
{
	(void)cmd, (void)v;
	o->unreachable = ILP_UNREACHABLE_FAIL;
	return CLI_OK;
}

static int
parse_offload(const char *cmd, const char *v, ilp_solve_options *o)
{
	if (ilp_offload_parse(v, &o->offload, NULL) != 0)
		return cli_usage(cmd, "--offload: expected tags, none or free, not '%s'", v);
	return CLI_OK;
}

static int
parse_offload_bw(const char *cmd, const char *v, ilp_solve_options *o)
{
	const char *end;

	if (cli_parse_number(v, &o->offload_bw, &end) != 0 || *end != '\0' ||
	    !(o->offload_bw > 0))
		return cli_usage(cmd, "--offload-bw: expected bytes per second > 0 (e.g. 25e9), "
		    "not '%s'", v);
	return CLI_OK;
}

static int
parse_rng_replay(const char *cmd, const char *v, ilp_solve_options *o)
{
	if (strcmp(v, "auto") == 0)
		o->rng_replay = ILP_RNG_REPLAY_AUTO;
	else if (strcmp(v, "yes") == 0)
		o->rng_replay = ILP_RNG_REPLAY_ALWAYS;
	else if (strcmp(v, "no") == 0)
		o->rng_replay = ILP_RNG_REPLAY_NEVER;
	else
		return cli_usage(cmd, "--rng-replay: expected auto, yes or no, not '%s'", v);
	return CLI_OK;
}

static int
parse_device(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_device(cmd, v, &o->device);
}

static int
parse_time_limit(const char *cmd, const char *v, ilp_solve_options *o)
{
	return cli_opt_seconds(cmd, v, &o->time_limit);
}

static int
parse_monolithic(const char *cmd, const char *v, ilp_solve_options *o)
{
	(void)cmd, (void)v;
	o->monolithic = 1;
	return CLI_OK;
}

static int
parse_write_lp(const char *cmd, const char *v, ilp_solve_options *o)
{
	(void)cmd;
	o->write_lp = v;
	return CLI_OK;
}

static int
parse_write_mps(const char *cmd, const char *v, ilp_solve_options *o)
{
	(void)cmd;
	o->write_mps = v;
	return CLI_OK;
}

static int
parse_verbose(const char *cmd, const char *v, ilp_solve_options *o)
{
	(void)cmd, (void)v;
	o->verbose = 1;
	return CLI_OK;
}

/* --policy, --prefer, --bans: cli_policy_arg's (every command that reads tags). */
#define parse_sac NULL

/* The table's rows as cli/ reads them; parse NULL: a SAC option. */
static const struct {
	const char *flag, *shrt, *arg, *help;
	int store;
	int (*parse)(const char *cmd, const char *v, ilp_solve_options *o);
} rows[ILPI_OPT_COUNT] = {
#define ROW_(id, flag, sh, arg, def, parse, check, rec, store, help) \
	[ILPI_OPT_##id] = { flag, sh, arg, help, store, parse_##parse },
	ILPI_SOLVE_OPTIONS(ROW_)
#undef ROW_
};

int
cli_solve_opt(const char *cmd, int argc, char **argv, int *i, ilp_solve_options *o)
{
	const char *a = argv[*i], *v = NULL;

	for (int k = 0; k < ILPI_OPT_COUNT; k++) {
		if (rows[k].parse == NULL)
			continue;
		if (rows[k].arg == NULL) {
			if (strcmp(a, rows[k].flag) != 0 &&
			    (rows[k].shrt == NULL || strcmp(a, rows[k].shrt) != 0))
				continue;
		} else if (!cli_opt(cmd, argc, argv, i, rows[k].flag, &v)) {
			continue;
		} else if (v == NULL) {
			return -1;
		}
		return rows[k].parse(cmd, v, o) == CLI_OK ? k + 1 : -1;
	}
	return 0;
}

int
cli_solve_opt_store(const char *a)
{
	for (int k = 0; k < ILPI_OPT_COUNT; k++)
		if (rows[k].store && strcmp(a, rows[k].flag) == 0)
			return rows[k].arg != NULL ? 2 : 1;
	return 0;
}

/* "[--flag ARG]" or "[-v]" of row k. */
static void
synopsis_item(int k, char *out, size_t size)
{
	const char *flag = rows[k].shrt != NULL ? rows[k].shrt : rows[k].flag;

	if (rows[k].arg != NULL)
		snprintf(out, size, "[%s %s]", flag, rows[k].arg);
	else
		snprintf(out, size, "[%s]", flag);
}

void
cli_solve_synopsis(char *buf, size_t size, const char *lead, int col0, int width)
{
	size_t len = 0;
	int col;

	snprintf(buf, size, "%s", lead);
	len = strlen(buf);
	col = col0 + (int)len;
	for (int k = 0; k < ILPI_OPT_COUNT && len < size; k++) {
		char item[128];
		int n = 0;

		synopsis_item(k, item, sizeof item);
		if (width > 0 && col + 1 + (int)strlen(item) > width) {
			n = snprintf(buf + len, size - len, "\n   ");
			col = 3;
		}
		if (n >= 0 && (size_t)n < size - len)
			len += (size_t)n;
		n = snprintf(buf + len, size - len, " %s", item);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
		col += n;
	}
}

void
cli_solve_option_help(FILE *f)
{
	for (int k = 0; k < ILPI_OPT_COUNT; k++) {
		char name[128];

		if (rows[k].shrt != NULL)
			snprintf(name, sizeof name, "%s, %s", rows[k].shrt, rows[k].flag);
		else if (rows[k].arg != NULL)
			snprintf(name, sizeof name, "%s %s", rows[k].flag, rows[k].arg);
		else
			snprintf(name, sizeof name, "%s", rows[k].flag);
		if (strlen(name) > 24)
			fprintf(f, "  %s\n  %-24s %s\n", name, "", rows[k].help);
		else
			fprintf(f, "  %-24s %s\n", name, rows[k].help);
	}
}
