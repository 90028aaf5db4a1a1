#include "config.h"

#include <stdio.h>

#include "cli/cli.h"

/* placeholder: the command's work replaces this */
int
cmd_compare(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ilpart compare: not built yet\n");
	return CLI_INPUT;
}
