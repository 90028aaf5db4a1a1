#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/util.h"

ilp_graph *
t_graph(const char *json)
{
	ilp_graph *g = NULL;
	ilp_error err = { 0 };

	if (ilp_graph_read_buffer(json, strlen(json), "<test>", &g, &err) != 0)
		ck_abort_msg("graph did not parse: %s", err.msg);
	return g;
}

const char *
t_srcpath(const char *rel)
{
	static char buf[4096];
	const char *src = getenv("srcdir");

	snprintf(buf, sizeof buf, "%s/%s", src != NULL ? src : ".", rel);
	return buf;
}
