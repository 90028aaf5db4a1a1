/*
 * heap.h - a binary min-heap in (bytes, cost) order, for the merges of fronts in
 * blocks_combine.c and mck.c (internal). Header only: the functions are static inline,
 * so each merge keeps its own element type and its compiled loop.
 *
 * An element is any struct whose first member is an ilpi_heap_key (its head point);
 * the heap is an array of them, h[0] the least: least bytes, then least cost.
 */
#ifndef ILPART_SOLVER_HEAP_H
#define ILPART_SOLVER_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ilpi_heap_key {
	int64_t bytes;
	double cost;
} ilpi_heap_key;

enum { ILPI_HEAP_MAX_SIZE = 64 };   /* bytes per element, at most */

static inline int
ilpi_heap_less(const unsigned char *a, const unsigned char *b)
{
	const ilpi_heap_key *x = (const ilpi_heap_key *)(const void *)a;
	const ilpi_heap_key *y = (const ilpi_heap_key *)(const void *)b;

	return x->bytes < y->bytes || (x->bytes == y->bytes && x->cost < y->cost);
}

static inline void
ilpi_heap_swap(unsigned char *a, unsigned char *b, size_t size)
{
	unsigned char t[ILPI_HEAP_MAX_SIZE];

	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

/* Heap h[0..n) of size-byte elements: sift the last element up. */
static inline void
ilpi_heap_up(void *h, size_t n, size_t size)
{
	unsigned char *e = h;

	for (size_t i = n - 1; i > 0;) {
		size_t p = (i - 1) / 2;

		if (!ilpi_heap_less(e + i * size, e + p * size))
			break;
		ilpi_heap_swap(e + i * size, e + p * size, size);
		i = p;
	}
}

/* Sift h[0] down. */
static inline void
ilpi_heap_down(void *h, size_t n, size_t size)
{
	unsigned char *e = h;

	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && ilpi_heap_less(e + l * size, e + m * size))
			m = l;
		if (l + 1 < n && ilpi_heap_less(e + (l + 1) * size, e + m * size))
			m = l + 1;
		if (m == i)
			break;
		ilpi_heap_swap(e + i * size, e + m * size, size);
		i = m;
	}
}

#endif /* ILPART_SOLVER_HEAP_H */
