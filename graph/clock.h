/*
 * clock.h - monotonic wall time for time limits and the times reports print.
 */
#ifndef ILPART_GRAPH_CLOCK_H
#define ILPART_GRAPH_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double ilpi_now(void);

#endif /* ILPART_GRAPH_CLOCK_H */
