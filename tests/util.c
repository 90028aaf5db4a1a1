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

const char *
t_q(const char *s)
{
	static char buf[16384];
	size_t i;

	ck_assert_uint_lt(strlen(s), sizeof buf);
	for (i = 0; s[i] != '\0'; i++)
		buf[i] = s[i] == '\'' ? '"' : s[i];
	buf[i] = '\0';
	return buf;
}

ilp_graph *
t_graph_parts(const char *extra, const char *nodes, const char *fw, const char *bw)
{
	size_t len = strlen(extra) + strlen(nodes) + strlen(fw) + strlen(bw) + 256;
	char *s = malloc(len);
	ilp_graph *g;

	ck_assert_ptr_nonnull(s);
	snprintf(s, len, "{'format': 'ilpart-joint-graph', 'version': 1, %s 'nodes': [%s], "
	    "'outputs': {'forward': [%s], 'backward': [%s]}}", extra, nodes, fw, bw);
	for (char *p = s; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	g = t_graph(s);
	free(s);
	return g;
}
