/* grow.c - growable arrays (see grow.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grow.h"

int
ilpi_grow_cap(size_t cap, size_t used, size_t more, size_t elem, size_t *out)
{
	size_t need, max = elem > 0 ? SIZE_MAX / elem : SIZE_MAX;
	size_t n = cap > 0 ? cap : 16;

	if (more > SIZE_MAX - used || (need = used + more) > max)
		return -1;
	if (need <= cap) {
		*out = cap;
		return 0;
	}
	while (n < need)
		n = n > max / 2 ? max : 2 * n;
	*out = n;
	return 0;
}

int
ilpi_grow(void *pp, size_t *cap, size_t used, size_t more, size_t elem)
{
	void *p, *q;
	size_t n;

	if (ilpi_grow_cap(*cap, used, more, elem, &n) != 0)
		return -1;
	if (n == *cap)
		return 0;
	/* *pp is some T *; memcpy reads and writes it without a type-punned void **. */
	memcpy(&p, pp, sizeof p);
	if ((q = realloc(p, n * elem)) == NULL)
		return -1;
	memcpy(pp, &q, sizeof q);
	*cap = n;
	return 0;
}
