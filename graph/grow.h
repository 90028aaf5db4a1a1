/* grow.h - growable arrays (internal): every array that grows by appending grows here,
 * geometrically and with the size arithmetic checked for overflow. */
#ifndef ILPART_GRAPH_GROW_H
#define ILPART_GRAPH_GROW_H

#include <stddef.h>

/* Capacity (in elements of `elem` bytes) that holds `used + more` elements: `cap`
 * when it already does, else `cap` (at least 16) doubled until it does. 0 with the
 * result in *out, or -1 when `used + more` or its size in bytes overflows size_t. */
int ilpi_grow_cap(size_t cap, size_t used, size_t more, size_t elem, size_t *out);

/* Makes room in the array at *pp (a pointer to any object pointer, capacity *cap
 * elements of `elem` bytes, `used` in use) for `more` elements. 0, or -1 on overflow
 * or out of memory, leaving the array and *cap unchanged. */
int ilpi_grow(void *pp, size_t *cap, size_t used, size_t more, size_t elem);

/* ilpi_grow for an array variable `arr` and its capacity variable `cap`, with the
 * common case (room already) inline for hot loops. Evaluates its arguments more than
 * once: pass no side effects. */
#define ILPI_GROW(arr, cap, used, more) \
	((used) <= (cap) && (more) <= (cap) - (used) ? 0 : \
	    ilpi_grow(&(arr), &(cap), (used), (more), sizeof *(arr)))

#endif /* ILPART_GRAPH_GROW_H */
