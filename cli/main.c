/* main.c - `ilpart COMMAND ...`: dispatch and the helpers every command shares. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *help;
} commands[] = {
	{ "solve", cmd_solve, "GRAPH [-o PARTITION] [--split DIR]  optimal partition (ILP)" },
	{ "mincut", cmd_mincut, "GRAPH [-o PARTITION]  PyTorch's min-cut heuristic" },
	{ "check", cmd_check, "GRAPH PARTITION  prove a partition executable and SAC-clean" },
	{ "split", cmd_split, "GRAPH PARTITION [--format json|text|dot]  forward/backward graphs" },
	{ "compare", cmd_compare, "GRAPH [--memory-budget B] [--json]  ILP vs min-cut vs PyTorch" },
	{ "pareto", cmd_pareto, "GRAPH [--points N] [-o CSV]  memory/recompute trade-off" },
	{ "info", cmd_info, "GRAPH  validate and classify a joint graph" },
};

int
cli_exit_code(ilp_error_kind kind)
{
	switch (kind) {
	case ILP_ERR_NONE:
		return CLI_OK;
	case ILP_ERR_VIOLATION:
		return CLI_VIOLATION;
	case ILP_ERR_CONFLICT:
		return CLI_CONFLICT;
	case ILP_ERR_SOLVER:
		return CLI_SOLVER;
	case ILP_ERR_INPUT:
	case ILP_ERR_SYSTEM:
		break;
	}
	return CLI_INPUT;
}

int
cli_fail(const ilp_error *err)
{
	fprintf(stderr, "ilpart: %s\n", err->msg[0] != '\0' ? err->msg : "unknown error");
	return cli_exit_code(err->kind);
}

int
cli_fail_partition(const char *path, const ilp_error *err)
{
	ilp_error e = *err;

	if (strncmp(err->msg, "partition: ", 11) == 0)
		snprintf(e.msg, sizeof e.msg, "partition %s: %s", path, err->msg + 11);
	return cli_fail(&e);
}

int
cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ilpart %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see ilpart --help)\n");
	return CLI_INPUT;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: ilpart COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nexit status: 0 ok, 1 check violation, 2 bad input or usage, "
	    "3 constraints conflict, 4 no solution within limits\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_INPUT;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ilpart %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ilpart: unknown command '%s' (see ilpart --help)\n", argv[1]);
	return CLI_INPUT;
}
