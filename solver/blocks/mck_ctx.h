/*
 * mck_ctx.h - one search by counts (mck.c): its classes, fronts and Lagrangian bounds
 * (internal, solver/blocks/mck*.c only).
 */
#ifndef ILPART_SOLVER_MCK_CTX_H
#define ILPART_SOLVER_MCK_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "solver/blocks/mck.h"


typedef struct mpt {          /* a point of a bundle front or of the combination */
	int64_t bytes;
	double cost;
	int32_t a, b;             /* bundle of level 0: the class point, -1; level k: two
	                           * points of level k - 1; combination: the previous
	                           * stage's point and the bundle's */
} mpt;

typedef struct mfront {
	mpt *p;
	size_t n, cap;
} mfront;

typedef struct mbundle {      /* 2^level copies of active class c */
	size_t c;
	int level;
} mbundle;

/* A chain of bundles combined one after the other: st[v] is the front after bundle v. */
typedef struct mchain {
	mbundle *bu;
	size_t n;
	mfront *st;
} mchain;

typedef struct mctx {
	const ilpi_mck_class **cl;   /* the active classes: two points or more */
	size_t *coff;             /* per active class: its first point in count */
	size_t n;                 /* active classes */
	int64_t cap;              /* the cap less the other classes' bytes */
	double ub, tol;           /* the best answer's cost (active classes only), slack */
	double *lam;              /* ascending, lam[0] = 0 */
	size_t nlam, ls;          /* multipliers; the one of the root bound */
	double *mu;               /* per active class and multiplier: least cost + lam * bytes */
	int64_t *rest;            /* per active class: copies outside the front being built */
	double *v;                /* per multiplier: the rest's Lagrangian value */
	int64_t minb;             /* least bytes of the rest */
	double thr;               /* cost + lam[ls] * bytes above it: the point cannot be kept */
	double deadline;
	size_t max_points, n_points, ticks;
	int stop;                 /* out of time or over the work limit */
	mfront **lv;              /* per active class: bundle fronts by level */
	int *nlv;
	const uint8_t *line;      /* per class: a line (its fronts and chain are built
	                           * once, against ub_line, and kept while ub grows) */
	double ub_line;
	mchain lines;             /* the lines' chain, once built */
	int lines_done;
} mctx;

/* The rest's Lagrangian values and least bytes, from x->rest. */
void ilpi_mck_set_rest(mctx *x);

/* The rest's Lagrangian bound at multiplier l for a point of by bytes. */
double ilpi_mck_lagr(const mctx *x, size_t l, int64_t by);

/* Can a point of by bytes and this cost still be completed within the cap at a cost
 * within ub? The bound V_lam(rest) - lam * (cap - by) is concave in lam: bisection. */
int ilpi_mck_keep(const mctx *x, int64_t by, double cost);

/* Drops the bundle fronts (a search with a larger bound starts afresh), but the
 * lines' and their chain unless all. */
void ilpi_mck_fronts_free(mctx *x, int all);

/* Classes cl[0..n) into x (counts from offset 0, or the given offsets). */
int ilpi_mck_ctx_init(mctx *x, const ilpi_mck_class *const *cl, size_t n,
    const size_t *coff, int64_t cap, double deadline, size_t max_points);

/* Frees what x holds and zeroes it. */
void ilpi_mck_ctx_free(mctx *x);

#endif /* ILPART_SOLVER_MCK_CTX_H */
