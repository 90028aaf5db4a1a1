/* fuzz.c - helpers shared by the fuzz targets. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

void
fz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

char *
fz_exact(const uint8_t *data, size_t size)
{
	char *buf = malloc(size > 0 ? size : 1);

	FZ_ASSERT(buf != NULL, "out of memory");
	if (size > 0)
		memcpy(buf, data, size);
	return buf;
}

static const char fixed_graph[] =
    "{\"format\": \"ilpart-joint-graph\", \"version\": 1, \"rng_functionalized\": false,\n"
    "\"nodes\": [\n"
    "{\"name\": \"x\", \"kind\": \"primal\", \"shape\": [8, 16], \"dtype\": \"f32\"},\n"
    "{\"name\": \"w\", \"kind\": \"primal\", \"shape\": [16, 16], \"dtype\": \"bf16\"},\n"
    "{\"name\": \"t\", \"kind\": \"op\", \"target\": \"aten.t.default\", \"inputs\": [\"w\"],"
    " \"shape\": [16, 16], \"dtype\": \"bf16\", \"view_of\": \"w\"},\n"
    "{\"name\": \"mm\", \"kind\": \"op\", \"target\": \"aten.mm.default\", \"inputs\": [\"x\", \"t\"],"
    " \"bytes\": 512, \"flops\": 4096, \"recompute\": \"PREFER_RECOMPUTE\", \"ac_graph_id\": 1},\n"
    "{\"name\": \"relu\", \"kind\": \"op\", \"target\": \"aten.relu.default\", \"inputs\": [\"mm\"],"
    " \"bytes\": 512, \"recompute\": \"PREFER_RECOMPUTE\", \"ac_graph_id\": 1},\n"
    "{\"name\": \"drop\", \"kind\": \"op\", \"target\": \"aten.native_dropout.default\","
    " \"inputs\": [\"relu\"], \"tuple\": true, \"ac_graph_id\": 1},\n"
    "{\"name\": \"d0\", \"kind\": \"op\", \"target\": \"getitem\", \"inputs\": [\"drop\"],"
    " \"index\": 0, \"bytes\": 512, \"ac_graph_id\": 1},\n"
    "{\"name\": \"d1\", \"kind\": \"op\", \"target\": \"getitem\", \"inputs\": [\"drop\"],"
    " \"index\": 1, \"bytes\": 128, \"ac_graph_id\": 1},\n"
    "{\"name\": \"sum\", \"kind\": \"op\", \"target\": \"aten.sum.dim_IntList\", \"inputs\": [\"d0\"],"
    " \"bytes\": 32, \"time_us\": 2.5, \"ac_graph_id\": 2},\n"
    "{\"name\": \"ar\", \"kind\": \"op\", \"target\": \"_c10d_functional.all_reduce.default\","
    " \"inputs\": [\"sum\"], \"bytes\": 32, \"ac_graph_id\": 2},\n"
    "{\"name\": \"wait\", \"kind\": \"op\", \"target\": \"_c10d_functional.wait_tensor.default\","
    " \"inputs\": [\"ar\"], \"bytes\": 32, \"view_of\": \"ar\", \"ac_graph_id\": 2},\n"
    "{\"name\": \"rnd\", \"kind\": \"op\", \"target\": \"aten.rand_like.default\", \"inputs\": [\"x\"],"
    " \"bytes\": 512, \"random\": true},\n"
    "{\"name\": \"mul\", \"kind\": \"op\", \"target\": \"aten.mul.Tensor\", \"inputs\": [\"wait\", \"rnd\"],"
    " \"bytes\": 512, \"recompute\": \"MUST_SAVE\", \"ac_graph_id\": 2},\n"
    "{\"name\": \"t2\", \"kind\": \"op\", \"target\": \"aten.t.default\", \"inputs\": [\"t\"],"
    " \"bytes\": 512, \"view_of\": \"t\"},\n"
    "{\"name\": \"g\", \"kind\": \"tangent\", \"bytes\": 512},\n"
    "{\"name\": \"gm\", \"kind\": \"op\", \"target\": \"aten.mul.Tensor\", \"inputs\": [\"g\", \"d1\", \"mul\"],"
    " \"bytes\": 512},\n"
    "{\"name\": \"gt\", \"kind\": \"op\", \"target\": \"aten.threshold_backward.default\","
    " \"inputs\": [\"gm\", \"relu\"], \"bytes\": 512},\n"
    "{\"name\": \"gw\", \"kind\": \"op\", \"target\": \"aten.mm.default\", \"inputs\": [\"gt\", \"x\"],"
    " \"bytes\": 512, \"flops\": 4096},\n"
    "{\"name\": \"gx\", \"kind\": \"op\", \"target\": \"aten.mm.default\", \"inputs\": [\"gt\", \"t2\"],"
    " \"bytes\": 512, \"flops\": 4096}\n"
    "],\n"
    "\"outputs\": {\"forward\": [\"mul\", \"d0\"], \"backward\": [\"gx\", \"gw\", null, \"x\"]}}\n";

ilp_graph *
fz_fixed_graph(void)
{
	ilp_graph *g = NULL;
	ilp_error err;

	if (ilp_graph_read_buffer(fixed_graph, sizeof fixed_graph - 1, "fixed", &g, &err) != 0)
		fz_fail("the fixed graph does not read: %s", err.msg);
	return g;
}

const ilp_graph *
fz_fixed_graph_shared(void)
{
	static ilp_graph *g;

	if (g == NULL)
		g = fz_fixed_graph();
	return g;
}
