/*
 * policy_opts.c - the SAC options every command that reads tags shares:
 * `--policy FILE`, `--prefer hard|pytorch|soft`, `--bans pytorch|none`
 * (also spelled `--opt=VALUE`), and the graph read with the policy applied.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

void
cli_policy_opts_init(cli_policy_opts *o)
{
	o->policy = NULL;
	o->prefer = ILP_PREFER_HARD;
	o->prefer_given = 0;
	o->bans = ILP_BANS_PYTORCH;
}

int
cli_policy_arg(cli_policy_opts *o, const char *cmd, int argc, char **argv, int *i)
{
	static const char *const names[] = { "--policy", "--prefer", "--bans" };
	ilp_error err = { 0 };

	for (int k = 0; k < 3; k++) {
		const char *v;

		if (!cli_opt(cmd, argc, argv, i, names[k], &v))
			continue;
		if (v == NULL)
			return -1;
		if (k == 0)
			o->policy = v;
		else if ((k == 1 && ilp_prefer_parse(v, &o->prefer, &err) != 0) ||
		    (k == 2 && ilp_bans_parse(v, &o->bans, &err) != 0)) {
			cli_usage(cmd, "%s", err.msg);
			return -1;
		}
		o->prefer_given |= k == 1;
		return 1;
	}
	return 0;
}

static void
print_warning(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "ilpart: warning: %s\n", line);
}

int
cli_policy_apply(const cli_policy_opts *o, ilp_graph *g)
{
	ilp_error err = { 0 };
	ilp_policy *pol = NULL;
	int rc;

	if (o->policy == NULL)
		return CLI_OK;
	if (ilp_policy_read_file(o->policy, &pol, &err) != 0)
		return cli_fail(&err);
	ilp_policy_set_warnings(pol, print_warning, NULL);
	rc = ilp_policy_apply(pol, g, &err);
	ilp_policy_free(pol);
	return rc != 0 ? cli_fail(&err) : CLI_OK;
}

int
cli_read_graph(const char *path, const cli_policy_opts *o, ilp_graph **out)
{
	ilp_error err = { 0 };
	int rc;

	if (ilp_graph_read_file(path, out, &err) != 0)
		return cli_fail(&err);
	if ((rc = cli_policy_apply(o, *out)) != CLI_OK) {
		ilp_graph_free(*out);
		*out = NULL;
	}
	return rc;
}
