/*
 * clock.c - monotonic wall time (clock.h).
 */
#include "config.h"

#include <time.h>

#include "graph/clock.h"

double
ilpi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
