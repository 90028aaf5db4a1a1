#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/intern.h"

#define CHUNK_MIN 65536

struct ilpi_chunk {
	ilpi_chunk *next;
	size_t used, cap;
	char data[];
};

void
ilpi_intern_init(ilpi_pool *t)
{
	memset(t, 0, sizeof *t);
}

void
ilpi_intern_free(ilpi_pool *t)
{
	ilpi_chunk *c, *next;

	if (t == NULL)
		return;
	for (c = t->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slot);
	memset(t, 0, sizeof *t);
}

/* Eight bytes a step (a multiply and a shift each), then a final mix: the names of a
 * graph are hashed several times each while it is read. Only tables use the value. */
size_t
ilpi_hash(const char *s, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = k ^ (len * 0xff51afd7ed558ccdull), w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 31;
	}
	w = 0;
	for (size_t i = 0; i < len; i++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	h *= k;
	h ^= h >> 29;
	return (size_t)h;
}

static char *
arena_copy(ilpi_pool *t, const char *s, size_t len)
{
	ilpi_chunk *c = t->chunks;
	char *p;

	if (c == NULL || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > CHUNK_MIN ? len + 1 : CHUNK_MIN;

		c = malloc(sizeof *c + cap);
		if (c == NULL)
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		c->cap = cap;
		t->chunks = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static int
grow(ilpi_pool *t)
{
	size_t n = t->n_slot ? t->n_slot * 2 : 1024;
	const char **slot = calloc(n, sizeof *slot);

	if (slot == NULL)
		return -1;
	for (size_t i = 0; i < t->n_slot; i++) {
		const char *s = t->slot[i];
		size_t j;

		if (s == NULL)
			continue;
		j = ilpi_hash(s, strlen(s)) & (n - 1);
		while (slot[j] != NULL)
			j = (j + 1) & (n - 1);
		slot[j] = s;
	}
	free(t->slot);
	t->slot = slot;
	t->n_slot = n;
	return 0;
}

const char *
ilpi_intern_n(ilpi_pool *t, const char *s, size_t len)
{
	return ilpi_intern_hashed(t, s, len, ilpi_hash(s, len));
}

const char *
ilpi_intern_hashed(ilpi_pool *t, const char *s, size_t len, size_t hash)
{
	size_t j;
	char *p;

	if ((t->count + 1) * 2 > t->n_slot && grow(t) != 0)
		return NULL;
	j = hash & (t->n_slot - 1);
	for (; t->slot[j] != NULL; j = (j + 1) & (t->n_slot - 1)) {
		const char *e = t->slot[j];

		if (strncmp(e, s, len) == 0 && e[len] == '\0')
			return e;
	}
	p = arena_copy(t, s, len);
	if (p == NULL)
		return NULL;
	t->slot[j] = p;
	t->count++;
	return p;
}

const char *
ilpi_intern(ilpi_pool *t, const char *s)
{
	return ilpi_intern_n(t, s, strlen(s));
}
