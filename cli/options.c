/*
 * options.c - the command line as every command reads it: one option scanner
 * ("--name VALUE" or "--name=VALUE"), operands, and the option values more than one
 * command reads (numbers, memory budgets, device profiles), so that
 * `--memory-budget 0.3` or `--device 989e12:3.35e12` mean the same to solve, compare,
 * pareto and mincut, and a mistake gets the same message from each.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "graph/cost.h"
#include "graph/graph.h"

int
cli_parse_number(const char *s, double *out, const char **end)
{
	const char *d = s + (*s == '-' || *s == '+');
	char *e;

	/* decimal only: strtod would also take leading blanks, hexadecimal ("0x10" read
	 * as 16) and nan(...) */
	if (!((*d >= '0' && *d <= '9') || *d == '.') ||
	    (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')))
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (e == s || errno != 0 || !isfinite(*out))
		return -1;
	*end = e;
	return 0;
}

int
cli_parse_budget(const char *s, int64_t *bytes, double *fraction)
{
	static const struct {
		const char *sfx;
		double mul;
	} units[] = {
		{ "", 1 }, { "b", 1 }, { "k", 1e3 }, { "kb", 1e3 }, { "kib", 1024.0 },
		{ "m", 1e6 }, { "mb", 1e6 }, { "mib", 1048576.0 }, { "g", 1e9 }, { "gb", 1e9 },
		{ "gib", 1073741824.0 }, { "t", 1e12 }, { "tb", 1e12 },
		{ "tib", 1099511627776.0 },
	};
	const char *end;
	double v;

	if (cli_parse_number(s, &v, &end) != 0 || v < 0)
		return -1;
	if (*end == '\0' && strpbrk(s, ".eE") != NULL) {
		if (v > 1)
			return -1;
		*fraction = v;
		*bytes = -1;
		return 0;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcasecmp(end, units[i].sfx) == 0) {
			v = floor(v * units[i].mul);
			if (v > 4.6e18)
				return -1;
			*bytes = (int64_t)v;
			*fraction = -1;
			return 0;
		}
	return -1;
}

int
cli_parse_device(const char *s, ilp_device *dev)
{
	const char *end;

	if (ilp_device_lookup(s, dev) == 0)
		return 0;
	if (cli_parse_number(s, &dev->peak_flops, &end) != 0 || *end != ':' ||
	    cli_parse_number(end + 1, &dev->bandwidth, &end) != 0 || *end != '\0' ||
	    !(dev->peak_flops > 0) || !(dev->bandwidth > 0))
		return -1;
	return 0;
}

int
cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **v)
{
	const char *a = argv[*i];
	size_t len = strlen(name);

	if (strncmp(a, name, len) != 0 || (a[len] != '\0' && a[len] != '='))
		return 0;
	*v = NULL;
	if (a[len] == '=')
		*v = a + len + 1;
	else if (*i + 1 < argc)
		*v = argv[++*i];
	else
		cli_usage(cmd, "%s needs a value", name);
	return 1;
}

int
cli_operand(const char *cmd, const char *arg, const char **files, int max, int *n)
{
	if (arg[0] == '-' && arg[1] != '\0')
		return cli_usage(cmd, "unknown option '%s'", arg);
	if (*n >= max)
		return cli_usage(cmd, "unexpected argument '%s'", arg);
	files[(*n)++] = arg;
	return CLI_OK;
}

int
cli_opt_device(const char *cmd, const char *v, ilp_device *dev)
{
	if (v == NULL)
		return CLI_INPUT;
	if (cli_parse_device(v, dev) != 0)
		return cli_usage(cmd, "--device: expected " CLI_DEVICE_HELP ", not '%s'", v);
	return CLI_OK;
}

int
cli_opt_seconds(const char *cmd, const char *v, double *seconds)
{
	const char *end;

	if (v == NULL)
		return CLI_INPUT;
	if (cli_parse_number(v, seconds, &end) != 0 || *end != '\0' || !(*seconds > 0))
		return cli_usage(cmd, "--time-limit: expected seconds > 0, not '%s'", v);
	return CLI_OK;
}

/* A number from 1 to 100 without a unit, written where a fraction was likely meant:
 * the fraction it would be as a percentage ("30" -> 0.3), else -1. */
static double
percent_like(const char *v)
{
	const char *end;
	double x;

	if (cli_parse_number(v, &x, &end) != 0 || *end != '\0' || !(x > 1 && x <= 100))
		return -1;
	return x / 100;
}

int
cli_opt_budget(const char *cmd, const char *v, int64_t *bytes, double *fraction)
{
	double pct;

	if (v == NULL)
		return CLI_INPUT;
	if (cli_parse_budget(v, bytes, fraction) != 0) {
		if ((pct = percent_like(v)) >= 0)
			return cli_usage(cmd, "--memory-budget: '%s' is no fraction in [0, 1]; "
			    "did you mean %g?", v, pct);
		return cli_usage(cmd, "--memory-budget: expected " CLI_BUDGET_HELP ", not '%s'",
		    v);
	}
	/* "30" is 30 bytes, which no graph can meet: most likely a percentage */
	if ((pct = percent_like(v)) >= 0 && strpbrk(v, ".eE") == NULL)
		fprintf(stderr, "ilpart %s: warning: --memory-budget %s means %s bytes; did you "
		    "mean %g (a fraction is written with a decimal point)?\n", cmd, v, v, pct);
	return CLI_OK;
}

int
cli_opt_time_budget(const char *cmd, const char *v, double *us, double *fraction)
{
	static const struct {
		const char *sfx;
		double us;
	} units[] = { { "", 1e6 }, { "s", 1e6 }, { "ms", 1e3 }, { "us", 1 } };
	const char *end;
	double x;

	if (v == NULL)
		return CLI_INPUT;
	if (strncmp(v, "pytorch:", 8) == 0) {
		if (cli_parse_number(v + 8, &x, &end) != 0 || *end != '\0' || x < 0 || x > 1)
			return cli_usage(cmd, "--time-budget: expected pytorch:F with a fraction F "
			    "in [0, 1], not '%s'", v);
		*fraction = x;
		*us = -1;
		return CLI_OK;
	}
	if (cli_parse_number(v, &x, &end) == 0 && x >= 0)
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strcmp(end, units[i].sfx) == 0) {
				*us = x * units[i].us;
				*fraction = -1;
				return CLI_OK;
			}
	return cli_usage(cmd, "--time-budget: expected " CLI_TIME_BUDGET_HELP ", not '%s'", v);
}

int
cli_opt_out_of_reach(const char *cmd, const char *v, ilp_unreachable *u)
{
	if (v == NULL)
		return CLI_INPUT;
	if (strcmp(v, "least") == 0)
		*u = ILP_UNREACHABLE_LEAST;
	else if (strcmp(v, "fail") == 0)
		*u = ILP_UNREACHABLE_FAIL;
	else
		return cli_usage(cmd, "--out-of-reach: expected least or fail, not '%s'", v);
	return CLI_OK;
}

int
cli_opt_fraction_cap(const char *cmd, const char *v, ilp_fraction_cap *cap)
{
	if (v == NULL)
		return CLI_INPUT;
	if (strcmp(v, "pytorch") == 0)
		*cap = ILP_FRACTION_CAP_PYTORCH;
	else if (strcmp(v, "normalised") == 0)
		*cap = ILP_FRACTION_CAP_NORMALISED;
	else
		return cli_usage(cmd, "--fraction-cap: expected pytorch or normalised, not '%s'",
		    v);
	return CLI_OK;
}

int
cli_opt_torch(const char *cmd, const char *v, int *version)
{
	int t;

	if (v == NULL)
		return CLI_INPUT;
	if ((t = ilpi_torch_version_parse(v)) < 0)
		return cli_usage(cmd, "--torch: expected a torch version such as 2.6 or 2.14 "
		    "(MAJOR.MINOR, as torch.__version__ starts), not '%s'", v);
	*version = t;
	return CLI_OK;
}

const char *
cli_graph_device(const ilp_graph *g, ilp_device *dev)
{
	const char *prof = ilp_device_profile_for(ilp_graph_device(g));

	if (prof == NULL)
		prof = ILPI_DEVICE_DEFAULT;
	ilp_device_lookup(prof, dev);
	return prof;
}
