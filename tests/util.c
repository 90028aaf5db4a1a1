/* util.c - helpers shared by the unit suites (see util.h). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"
#include "graph/partition.h"
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
t_graph_file(const char *path)
{
	ilp_graph *g = NULL;
	ilp_error err = { 0 };

	ck_assert_msg(ilp_graph_read_file(path, &g, &err) == 0, "%s", err.msg);
	return g;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
t_corpus(size_t *n)
{
	return t_corpus_in("tests/data/corpus", n);
}

char **
t_corpus_in(const char *rel, size_t *n)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	char **paths = NULL;
	size_t cap = 0;

	snprintf(dir, sizeof dir, "%s", t_srcpath(rel));
	d = opendir(dir);
	ck_assert_msg(d != NULL, "no corpus at %s", dir);
	*n = 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name), size = strlen(dir) + len + 2;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		ck_assert_int_eq(ILPI_GROW(paths, cap, *n, 1), 0);
		paths[*n] = malloc(size);
		ck_assert_ptr_nonnull(paths[*n]);
		snprintf(paths[(*n)++], size, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(paths, *n, sizeof *paths, cmp_str);
	return paths;
}

long
t_each_corpus_graph(long (*fn)(const char *path, ilp_graph *g, void *ctx), void *ctx)
{
	return t_each_graph_in("tests/data/corpus", fn, ctx);
}

long
t_each_graph_in(const char *rel, long (*fn)(const char *path, ilp_graph *g, void *ctx),
    void *ctx)
{
	size_t n;
	char **paths = t_corpus_in(rel, &n);
	long sum = 0;

	for (size_t f = 0; f < n; f++) {
		ilp_graph *g = t_graph_file(paths[f]);

		sum += fn(paths[f], g, ctx);
		ilp_graph_free(g);
	}
	t_strs_free(paths, n);
	return sum;
}

void
t_strs_free(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

ilp_graph *
t_graph_q(const char *s)
{
	return t_graph(t_q(s));
}

ilp_graph *
t_graph_outputs(const char *extra, const char *nodes, const char *outputs)
{
	size_t len = strlen(extra) + strlen(nodes) + strlen(outputs) + 256;
	char *s = malloc(len);
	ilp_graph *g;

	ck_assert_ptr_nonnull(s);
	snprintf(s, len, "{'format': 'ilpart-joint-graph', 'version': 1, %s 'nodes': [%s], "
	    "'outputs': %s}", extra, nodes, outputs);
	for (char *p = s; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	g = t_graph(s);
	free(s);
	return g;
}

ilp_graph *
t_graph_parts(const char *extra, const char *nodes, const char *fw, const char *bw)
{
	size_t len = strlen(fw) + strlen(bw) + 64;
	char *outputs = malloc(len);
	ilp_graph *g;

	ck_assert_ptr_nonnull(outputs);
	snprintf(outputs, len, "{'forward': [%s], 'backward': [%s]}", fw, bw);
	g = t_graph_outputs(extra, nodes, outputs);
	free(outputs);
	return g;
}

size_t
t_node(const ilp_graph *g, const char *name)
{
	long i = ilp_graph_find(g, name);

	ck_assert_msg(i >= 0, "no node '%s'", name);
	return (size_t)i;
}

const ilpi_node *
t_nd(const ilp_graph *g, const char *name)
{
	return &g->node[t_node(g, name)];
}

ilp_partition *
t_part(const ilp_graph *g, const char *saved, const char *recomputed)
{
	ilp_partition *p = ilp_partition_new(g);
	const char *lists[2] = { saved, recomputed };

	ck_assert_ptr_nonnull(p);
	for (int k = 0; k < 2; k++) {
		char buf[1024], *tok, *save = NULL;

		ck_assert_uint_lt(strlen(lists[k]), sizeof buf);
		snprintf(buf, sizeof buf, "%s", lists[k]);
		for (tok = strtok_r(buf, " ", &save); tok != NULL;
		    tok = strtok_r(NULL, " ", &save)) {
			size_t len = strlen(tok);
			int rng = len > 0 && tok[len - 1] == '~';

			if (rng)
				tok[len - 1] = '\0';
			p->state[t_node(g, tok)] |= k == 0 ? ILPI_P_SAVED : ILPI_P_RECOMPUTED;
			if (rng)
				p->state[t_node(g, tok)] |= ILPI_P_RNG_SAVED;
		}
	}
	return p;
}

ilp_partition *
t_ref_part(const ilp_graph *g, size_t r)
{
	ilp_partition *p = ilp_partition_new(g);
	const ilpi_refpart *ref;

	ck_assert_uint_lt(r, g->n_ref);
	ck_assert_ptr_nonnull(p);
	ref = &g->ref[r];
	for (size_t k = 0; k < ref->n_saved; k++)
		p->state[ref->saved[k]] |= ILPI_P_SAVED;
	for (size_t k = 0; k < ref->n_recomputed; k++)
		p->state[ref->recomputed[k]] |= ILPI_P_RECOMPUTED;
	if (ref->recomputed == NULL)
		ilpi_partition_complete(g, p, 0);
	return p;
}

long
t_ref_find(const ilp_graph *g, const char *name)
{
	for (size_t k = 0; k < g->n_ref; k++)
		if (strcmp(g->ref[k].name, name) == 0)
			return (long)k;
	return -1;
}

void
t_rng_seed(t_rng *r, uint64_t seed)
{
	r->s = seed * 0x9E3779B97F4A7C15ull + 1;
	if (r->s == 0) /* xorshift would stay at 0 forever */
		r->s = 1;
}

uint32_t
t_rand(t_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 2685821657736338717ull) >> 33);
}

uint32_t
t_below(t_rng *r, uint32_t n)
{
	return t_rand(r) % n;
}
