/* fuzz_partition.c - the partition reader and the checker on the fixed graph: any
 * input is read (from an unterminated buffer); a partition that reads is checked in
 * every prefer mode, written, read back and written again (byte-identical), evaluated,
 * and, when the checker accepts it in its own prefer mode, lowered and rendered in every
 * split format. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/partition.h"
#include "tests/fuzz/fuzz.h"

static char *
write_partition(const ilp_graph *g, const ilp_partition *p, const char *what)
{
	char *json = NULL;
	ilp_error err;

	if (ilp_partition_to_json(g, p, &json, &err) != 0)
		fz_fail("%s: ilp_partition_to_json failed: %s", what, err.msg);
	return json;
}

static void
round_trip(const ilp_graph *g, const ilp_partition *p)
{
	char *j1 = write_partition(g, p, "first write"), *j2, *buf;
	size_t n1 = strlen(j1);
	ilp_partition *q = NULL;
	ilp_error err;

	buf = fz_exact((const uint8_t *)j1, n1);
	if (ilp_partition_read_buffer(g, buf, n1, "written", &q, &err) != 0)
		fz_fail("the writer's output does not read back: %s\n%s", err.msg, j1);
	free(buf);
	j2 = write_partition(g, q, "second write");
	if (strcmp(j1, j2) != 0)
		fz_fail("round trip differs:\n--- first\n%s\n--- second\n%s", j1, j2);
	for (size_t i = 0; i < ilp_graph_node_count(g); i++)
		FZ_ASSERT(ilp_partition_is_saved(p, i) == ilp_partition_is_saved(q, i) &&
		    ilp_partition_is_recomputed(p, i) == ilp_partition_is_recomputed(q, i),
		    "round trip changed node %zu", i);
	free(j1);
	free(j2);
	ilp_partition_free(q);
}

static void
render(const ilp_graph *g, const ilp_partition *p)
{
	for (int f = ILP_SPLIT_JSON; f <= ILP_SPLIT_DOT; f++) {
		char *out = NULL;
		ilp_error err;

		if (ilp_split_render(g, p, (ilp_split_format)f, &out, &err) != 0)
			fz_fail("a checked partition does not render (format %d): %s", f, err.msg);
		free(out);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ilp_graph *g = fz_fixed_graph_shared();
	char *buf = fz_exact(data, size);
	ilp_partition *p = NULL;
	ilp_error err;
	ilp_device dev;
	int rc = ilp_partition_read_buffer(g, buf, size, "p", &p, &err), accepted = 0;
	ilp_prefer_mode own;

	free(buf);
	if (rc != 0) {
		FZ_ASSERT(p == NULL, "failed read left a partition");
		FZ_ASSERT(err.kind == ILP_ERR_INPUT || err.kind == ILP_ERR_SYSTEM,
		    "read failed with kind %d: %s", err.kind, err.msg);
		FZ_ASSERT(strchr(err.msg, '\n') == NULL, "multi-line message: %s", err.msg);
		return 0;
	}
	/* Lowering checks in the mode the partition names (producer.prefer). */
	own = ilpi_partition_prefer(p);
	for (int m = ILP_PREFER_HARD; m <= ILP_PREFER_SOFT; m++) {
		ilp_check_options o = { (ilp_prefer_mode)m };

		if (ilp_check(g, p, &o, &err) == 0)
			accepted |= m == (int)own;
		else
			FZ_ASSERT(err.kind == ILP_ERR_VIOLATION, "check failed with kind %d: %s",
			    err.kind, err.msg);
	}
	FZ_ASSERT(ilp_check(g, p, NULL, &err) == 0 || err.kind == ILP_ERR_VIOLATION,
	    "check (default options) failed with kind %d: %s", err.kind, err.msg);
	FZ_ASSERT(ilp_device_lookup("h100", &dev) == 0, "no h100 profile");
	if (ilp_partition_evaluate(g, p, &dev, &err) != 0)
		fz_fail("evaluate failed: %s", err.msg);
	FZ_ASSERT(p->saved_bytes == ilpi_partition_saved_bytes(g, p), "saved bytes differ");
	round_trip(g, p);
	if (accepted)
		render(g, p);
	ilp_partition_free(p);
	return 0;
}
