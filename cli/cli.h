/* cli.h - the ilpart command: subcommands and shared helpers. Only cli/ prints. */
#ifndef ILPART_CLI_CLI_H
#define ILPART_CLI_CLI_H

#include "ilpart.h"

/* Exit statuses, documented in `ilpart --help` and docs/cli.md. */
enum {
	CLI_OK = 0,
	CLI_VIOLATION = 1, /* check found a violation */
	CLI_INPUT = 2,     /* bad input, bad usage, I/O */
	CLI_CONFLICT = 3,  /* constraints cannot all hold */
	CLI_SOLVER = 4     /* no solution within limits */
};

int cmd_solve(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_mincut(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_pareto(int argc, char **argv);
int cmd_info(int argc, char **argv);

/* Prints "ilpart: MSG" on stderr and returns the exit status for err->kind. */
int cli_fail(const ilp_error *err);
/* Prints a usage error for `cmd` and returns CLI_INPUT. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_exit_code(ilp_error_kind kind);

#endif /* ILPART_CLI_CLI_H */
