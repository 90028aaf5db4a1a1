/*
 * intern.h - string interning: each distinct string is stored once, in arena chunks
 * that never move, so the returned pointers stay valid until ilpi_intern_free().
 */
#ifndef ILPART_GRAPH_INTERN_H
#define ILPART_GRAPH_INTERN_H

#include <stddef.h>

typedef struct ilpi_chunk ilpi_chunk;

typedef struct ilpi_pool {
	ilpi_chunk *chunks;    /* newest first */
	const char **slot;     /* open-addressing table of interned pointers */
	size_t n_slot, count;
} ilpi_pool;

void ilpi_intern_init(ilpi_pool *t);
void ilpi_intern_free(ilpi_pool *t);
/* Interned copy of `s` (len bytes, need not be NUL-terminated); NULL when out of memory. */
const char *ilpi_intern_n(ilpi_pool *t, const char *s, size_t len);
const char *ilpi_intern(ilpi_pool *t, const char *s);
/* ilpi_intern_n of a string whose ilpi_hash the caller has already. */
const char *ilpi_intern_hashed(ilpi_pool *t, const char *s, size_t len, size_t hash);
/* The strings' hash, shared by the graph's name index. */
size_t ilpi_hash(const char *s, size_t len);

#endif /* ILPART_GRAPH_INTERN_H */
