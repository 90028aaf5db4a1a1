/* fuzz_graph.c - the graph reader and writer: any input is read (from an unterminated
 * buffer); a graph that reads is written as canonical JSON, read back, and written
 * again, and the two writes must be byte-identical. First, differentially, the arena
 * parser (ilpi_json_doc_parse) against cJSON's (ilpi_json_parse): both accept or both
 * reject the text, and an accepted text prints the same from both trees; and the file
 * reader's streamed nodes against its tree (same graph or same message). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/json_parse.h"
#include "tests/fuzz/fuzz.h"

static void
same_parse(const uint8_t *data, size_t size)
{
	char *buf = fz_exact(data, size);
	ilpi_json_doc d;
	ilp_error e1, e2;
	cJSON *ref = ilpi_json_parse(buf, size, "in", &e1);
	int rc = ilpi_json_doc_parse(&d, buf, size, "in", &e2);
	char *own = fz_exact(data, size);
	ilpi_json_doc d3;
	ilp_error e3;
	int rc3 = ilpi_json_doc_parse_in_place(&d3, own, size, "in", &e3);

	FZ_ASSERT((ref != NULL) == (rc == 0), "cJSON %s, the arena parser %s",
	    ref != NULL ? "accepts" : "rejects", rc == 0 ? "accepts" : "rejects");
	FZ_ASSERT(rc3 == rc, "in place %d, copying %d", rc3, rc);
	if (rc3 != 0 || d3.cj != NULL)
		FZ_ASSERT(memcmp(own, data, size) == 0, "in place: text not restored");
	if (ref == NULL) {
		FZ_ASSERT(strcmp(e1.msg, e2.msg) == 0, "messages differ: '%s' / '%s'", e1.msg,
		    e2.msg);
		FZ_ASSERT(strcmp(e1.msg, e3.msg) == 0, "messages differ: '%s' / in place '%s'",
		    e1.msg, e3.msg);
	} else {
		char *a = cJSON_PrintUnformatted(ref);

		FZ_ASSERT(a != NULL, "print failed");
		if (!ilpi_jv_same_as_cjson(d.root, ref))
			fz_fail("trees differ from cJSON's:\n%s", a);
		if (!ilpi_jv_same_as_cjson(d3.root, ref))
			fz_fail("trees differ from cJSON's (in place):\n%s", a);
		cJSON_free(a);
		cJSON_Delete(ref);
		ilpi_json_doc_free(&d);
		ilpi_json_doc_free(&d3);
	}
	free(own);
	free(buf);
}

static char *
write_graph(const ilp_graph *g, const char *what)
{
	char *json = NULL;
	ilp_error err;

	if (ilp_graph_to_json(g, &json, &err) != 0)
		fz_fail("%s: ilp_graph_to_json failed: %s", what, err.msg);
	return json;
}

/* The file reader's two ways, differentially: nodes read as the text is parsed
 * (falling back to the tree on anything it does not read) and the tree alone give the
 * same graph (its canonical JSON and fingerprint) or the same message. */
static void
same_graph(const uint8_t *data, size_t size)
{
	char *a = fz_exact(data, size), *b = fz_exact(data, size);
	ilp_graph *ga = NULL, *gb = NULL;
	ilp_error ea, eb;
	int ra = ilpi_graph_read_own(a, size, "in", 1, &ga, &ea);
	int rb = ilpi_graph_read_own(b, size, "in", 0, &gb, &eb);

	FZ_ASSERT(ra == rb, "streamed read %d, tree read %d", ra, rb);
	if (ra != 0) {
		FZ_ASSERT(ea.kind == eb.kind && strcmp(ea.msg, eb.msg) == 0,
		    "messages differ: streamed '%s' / tree '%s'", ea.msg, eb.msg);
	} else {
		char *ja = write_graph(ga, "streamed"), *jb = write_graph(gb, "tree");

		FZ_ASSERT(strcmp(ja, jb) == 0, "streamed and tree graphs differ:\n%s\n---\n%s",
		    ja, jb);
		FZ_ASSERT(strcmp(ilp_graph_fingerprint(ga), ilp_graph_fingerprint(gb)) == 0,
		    "fingerprints differ");
		free(ja);
		free(jb);
	}
	ilp_graph_free(ga);
	ilp_graph_free(gb);
	free(a);
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	char *j1, *j2, *copy;
	ilp_graph *g = NULL, *g2 = NULL;
	ilp_error err;
	size_t n1;
	int rc;

	same_parse(data, size);
	same_graph(data, size);
	buf = fz_exact(data, size);
	rc = ilp_graph_read_buffer(buf, size, "in", &g, &err);
	free(buf);
	if (rc != 0) {
		FZ_ASSERT(g == NULL, "failed read left a graph");
		FZ_ASSERT(err.kind == ILP_ERR_INPUT || err.kind == ILP_ERR_SYSTEM,
		    "read failed with kind %d: %s", err.kind, err.msg);
		FZ_ASSERT(strchr(err.msg, '\n') == NULL, "multi-line message: %s", err.msg);
		return 0;
	}
	for (size_t i = 0; i < ilp_graph_node_count(g); i++)
		FZ_ASSERT(ilp_graph_find(g, ilp_graph_node_name(g, i)) == (long)i,
		    "node %zu is not found by its name", i);
	j1 = write_graph(g, "first write");
	n1 = strlen(j1);
	copy = fz_exact((const uint8_t *)j1, n1);
	if (ilp_graph_read_buffer(copy, n1, "written", &g2, &err) != 0)
		fz_fail("the writer's output does not read back: %s\n%s", err.msg, j1);
	free(copy);
	FZ_ASSERT(ilp_graph_node_count(g2) == ilp_graph_node_count(g), "node count changed");
	j2 = write_graph(g2, "second write");
	if (strcmp(j1, j2) != 0)
		fz_fail("round trip differs:\n--- first\n%s\n--- second\n%s", j1, j2);
	free(j1);
	free(j2);
	ilp_graph_free(g);
	ilp_graph_free(g2);
	return 0;
}
