/* peak_relax_pp.h - the state peak_relax.c and peak_relax_conj.c share, internal to
 * solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_RELAX_PP_H
#define ILPART_SOLVER_DRIVER_PEAK_RELAX_PP_H

#include <stddef.h>
#include <stdint.h>

#include "solver/driver/ctx.h"

typedef struct pp_row {
	int loc;                  /* segment */
	int32_t op;               /* the op whose step it is at (backward), -1 unknown */
	int32_t at;               /* that op's place among the backward ops, -1 unknown */
	double cst;               /* model bytes */
	size_t beg, len;          /* into tcol/tval */
} pp_row;

/* A saved value no backward op reads: at least `bytes` live at every row above its
 * segment in every partition where the literals (s_X, r_U) hold
 * (drv_relax_conj_terms). */
#define PP_CONJ_LITS 2
typedef struct pp_conj {
	int seg;                  /* X's segment */
	int active;
	int n_lit;
	int lit[PP_CONJ_LITS];    /* model columns */
	double bytes;             /* model bytes */
	int group;                /* the values that share retained storages */
	int col;                  /* its column in the local model being built, 0 */
} pp_conj;

typedef struct pp {
	solve_ctx *c;
	size_t n_seg;             /* tail, windows, head */
	int ncol;
	int *seg;                 /* per column (1..ncol): segment, -1 none */
	int *item;                /* per column: its item (s or r), -1 aux */
	double *sigma;            /* per column */
	double *ub;               /* per column: upper bound */
	double *got;              /* per column: scratch */
	int32_t *iseg;            /* per item: segment, -1 none */
	pp_row *row;
	size_t n_row, cap_row;
	int *tcol;
	double *tval;
	size_t n_t, cap_t;
	int *side;                /* side rows (row numbers of the model) */
	int *side_seg;            /* per side row: the one segment it is local to, -1 none */
	size_t n_side;
	double floor;             /* model bytes: rows without any term */
	double sgscale;           /* model bytes per unit of a local model's sigma row */
	/* structural sigma (docs/solver.md "The bound along the layers"): */
	int structural;
	int32_t *bpos;            /* per node: place among the backward ops, -1 */
	int32_t *lastbw;          /* per item: place of its last backward reader, -1 */
	double *sbytes;           /* per item: model bytes sigma may count for s, 0 */
	int32_t *rowop;           /* per model row: its op, -1 unknown */
	int32_t *sfirst;          /* per storage root: its first item with an s column, -1 */
	int32_t *sseg;            /* per storage root: the one segment of those, INT32_MAX
	                           * when they lie in several */
	uint8_t *held;            /* per storage root: the caller holds it (a forward output) */
	uint8_t *ysave;           /* per column: 1 for a storage's saved column (y) */
	pp_conj *conj;            /* saved values no backward op reads */
	size_t n_conj;
	size_t n_group;           /* their groups (pp_conj.group) */
	int *gcol;                /* per group: its column in the local model being built */
	int n_solve;              /* local MIPs solved (ilpi_solve_hooks.peak_relax_timeout) */
} pp;

/* The place of the last backward reader met (ilpi_view_readers' visit). */
typedef struct last_reader {
	const int32_t *bpos;
	int32_t last;
} last_reader;

static inline int
drv_relax_later_reader(int32_t u, void *ctx)
{
	last_reader *lr = ctx;

	if (lr->bpos[u] > lr->last)
		lr->last = lr->bpos[u];
	return 0;
}

#endif /* ILPART_SOLVER_DRIVER_PEAK_RELAX_PP_H */
