/*
 * blocks_plan.h - the decomposition's plan and state, shared by the files of
 * solver/blocks/ (internal): the order of the active items, the cuts, the segments
 * and their classes (blocks_plan.c), and what the class fronts (blocks_fronts.c) and
 * the combination (blocks_combine.c) fill in.
 */
#ifndef ILPART_SOLVER_BLOCKS_PLAN_H
#define ILPART_SOLVER_BLOCKS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "solver/blocks/blocks.h"

typedef struct bpoint {       /* a point of a class front */
	int64_t bytes;
	double cost;
	int32_t sol;              /* into the class's solutions */
} bpoint;

typedef struct dtrace {       /* a point of the combination, for lowering: the point
	                           * at the previous cut (global index, -1 at cut 0) and
	                           * the class point of the segment just added */
	int32_t prev, seg;
} dtrace;

typedef struct dval {         /* what the next cut needs: only two cuts are kept */
	int64_t bytes;
	double cost;
} dval;

typedef struct bclass {
	int32_t rep;              /* segment that defined it */
	int32_t n_own, n_in, n_out;
	size_t *fbeg, *fcnt;      /* per combo (in | out << n_in): class points */
	uint8_t *sol;             /* 2 * n_own per solution: s then r */
	size_t n_sol, cap_sol;
	int done;
} bclass;

typedef struct bseg {
	int32_t lo, hi;           /* positions [lo, hi) */
	int32_t cls;
} bseg;

struct ilpi_blocks {
	const ilpi_reduced *red;
	int32_t *ord;             /* position -> item (active items only) */
	int32_t *pos;             /* item -> position, -1 when inactive */
	size_t n;                 /* active items */
	int32_t *sfirst, *slast;  /* per storage class: positions of its saveable items */
	/* cuts 0..n_seg: state variables sep[cbeg[c] .. cbeg[c+1]) */
	int32_t *sep;             /* item u >= 0, storage k as -(k + 1) */
	size_t *cbeg;
	bseg *seg;
	size_t n_seg;
	bclass *cls;
	size_t n_cls;
	int32_t *seg_key_len;
	bpoint *pt;               /* class points, all classes */
	size_t n_pt, cap_pt;
	/* combination: per global state (cut c's states start at soff[c]): points in dp */
	size_t *soff;
	size_t *lbeg, *lcnt;
	int64_t *minb;            /* per global state: least bytes of the rest */
	double *v0;               /* per global state: Lagrangian values, one multiplier */
	double *vt;               /* per global state, per multiplier (ascending): the same */
	double *lam;              /* the multipliers of vt */
	size_t n_lam;
	int32_t *path;            /* per segment: class point (scalar programmes) */
	dtrace *dp;               /* every point of the combination, global index */
	size_t n_dp, cap_dp;
	dval *val[2];             /* values of the points at cut c in val[c & 1], from cbase */
	size_t cap_val[2], cbase[2];
	size_t final_beg, final_cnt;
	ilpi_blocks_stats st;
	double deadline;          /* CLOCK_MONOTONIC seconds, 0: none */
	size_t min_seg;           /* least items between chosen cuts (1: every narrow one) */
	size_t max_points;        /* the combination's work limit (MAX_POINTS) */
	ilpi_blocks_extra x;      /* per-item extra terms (NULL arrays: none) */
};

/* Extra bytes and cost of item `it` saved (sv) or recomputed (rv): 0 without terms. */
static inline int64_t
ilpi_blocks_x_bytes(const ilpi_blocks *b, int32_t it, int sv, int rv)
{
	return (sv && b->x.bytes_s != NULL ? b->x.bytes_s[it] : 0) +
	    (rv && b->x.bytes_r != NULL ? b->x.bytes_r[it] : 0);
}

static inline double
ilpi_blocks_x_cost(const ilpi_blocks *b, int32_t it, int sv, int rv)
{
	return (sv && b->x.cost_s != NULL ? b->x.cost_s[it] : 0) +
	    (rv && b->x.cost_r != NULL ? b->x.cost_r[it] : 0);
}
/* Variables in the state of cut c. */
size_t ilpi_blocks_cut_len(const ilpi_blocks *b, size_t c);

/* Row inputs of V: active inputs, when V can be recomputed. */
int ilpi_blocks_row_input(const ilpi_reduced *red, const ilpi_item *v, int32_t u);

enum { ILPI_BLOCKS_REF_CONST = INT32_MIN, ILPI_BLOCKS_REF_BAD = INT32_MIN + 1 };

/* Reference, inside segment s, to item u (own: local index >= 0; in the entry state:
 * -(j + 1); always available: ILPI_BLOCKS_REF_CONST; ILPI_BLOCKS_REF_BAD when the cuts
 * missed a link). */
int64_t ilpi_blocks_item_ref(const ilpi_blocks *b, size_t s, int32_t u);

/* Local index of storage k among segment s's own shared storages, -(j + 1) when it is
 * in the entry state. */
int64_t ilpi_blocks_stor_ref(const ilpi_blocks *b, size_t s, int32_t k);

#endif /* ILPART_SOLVER_BLOCKS_PLAN_H */
