#include "config.h"

#include <stdio.h>

#include "cli/cli.h"

/* placeholder: the command's work replaces this */
int
cmd_mincut(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ilpart mincut: not built yet\n");
	return CLI_INPUT;
}
