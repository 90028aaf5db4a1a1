/*
 * peak_rows.h - what the peak rows of every kind share (internal, solver/peak/ only):
 * the cuts' state, the row builder (merged coefficients, rows kept for evaluation),
 * the c(X, theta) families, the storages' spans over the steps, and recording a
 * point's rows. peak_cuts.c states the method.
 */
#ifndef ILPART_SOLVER_PEAK_ROWS_H
#define ILPART_SOLVER_PEAK_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "solver/peak/peak_cuts.h"

#define ABSENT INT32_MIN
#define HELD INT32_MAX
#define INF_THETA INT32_MAX

typedef struct family {
	int32_t theta;
	int *col;                 /* node -> column of c(node, theta), 0: always 0 */
} family;

struct ilpi_peak_cuts {
	const ilp_graph *g;
	ilpi_model *m;
	int col_peak;
	int *col_s, *col_r;       /* node -> its save / recompute column, 0: none */
	/* --offload free (peak_offload.h): node (an offloadable item's rep) -> its o and
	 * d = s - o columns (0: not offloadable), the last graph index of its forward
	 * sure window, its first backward-class reader (-1: none); every recomputable
	 * op's time; NULL / 0 without offload */
	int *col_o, *col_d;
	int32_t *off_fw_sure, *off_first;
	double off_r_all;
	int32_t *kfix;            /* node -> batch root of a backward op, -1 */
	int32_t first;            /* graph index of the first tangent user; own turns after */
	int32_t *need_lo, *need_hi; /* node -> the least / largest batch root it can run in
	                           * (INT32_MAX / INT32_MIN: never in the backward) */
	int fallback;             /* torch keeps graph order: one batch */
	family *fam;
	size_t n_fam, cap_fam;
	int *ffam;                /* node -> column of "runs in the forward", 0: never;
	                           * NULL until the first forward point */
	int *pos;                 /* node -> step in the current trace, -1 */
	uint8_t *out_stor;        /* storage root -> shared with a forward output */
	/* the row being built */
	int *ind;
	double *val, *acc;
	size_t cap_row;
	int rows, cols, points;
	/* the last point's rows, for ilpi_peak_cuts_exact */
	int *zrow, *zcol, prow;
	size_t nz, cap_z;
	/* every point: its P row, first z row and column, and z count */
	int *pt_prow, *pt_z0, *pt_nz;  /* pt_z0: offset into zl_row/zl_col */
	int *zl_row, *zl_col;     /* every point's z rows and their z columns (a z column
	                           * may have several rows: its value is their largest) */
	size_t n_zl, cap_zl;
	int32_t *pt_op;           /* its op (graph index), -1 - op for a forward step */
	int32_t cur_op;           /* the op of the point being recorded */
	size_t cap_pt;
	double *colval;
	size_t cap_val;
	double floor;             /* bytes every partition has live at some general
	                           * row's step (the largest such constant) */
	int refused;              /* points refused: the rows reached PEAK_CUT_ROWS_MAX */
	/* the points' rows (P and z rows) as written, for row_value: row -> offset + 1
	 * into kept_ind/kept_val (0: not kept), kept_len its length */
	size_t *kept_at;
	int *kept_len;
	size_t n_kept_at, cap_kept_at;
	int *kept_ind;
	double *kept_val;
	size_t n_kept, cap_kept;
};

/* Rows the points may add in all: each point costs rows and columns in proportion to
 * the graph (a chain of 100,000 ops: about 700,000 rows a point, 400 bytes each), so
 * past this the points are refused (0: the caller cuts the answer off by a no-good cut
 * and the bound comes from the rows already there). The corpus's largest, the
 * 48-layer transformer, adds about 75,000. */
#define PEAK_CUT_ROWS_MAX 2000000

typedef struct rowb {
	int len;
	double cst;               /* constant on the expression side */
} rowb;

/* The rows reached PEAK_CUT_ROWS_MAX: counts the point refused. */
int ilpi_pc_full(ilpi_peak_cuts *pc);

/* Remembers the last point's rows (pc->prow, pc->zrow/zcol, pc->nz: each z row and
 * its z column; a z column may come with several rows). */
int ilpi_pc_record_point(ilpi_peak_cuts *pc);

/* Room for n z rows of the point being built (pc->zrow, pc->zcol), none recorded yet
 * (pc->nz = 0). -1: out of memory. */
int ilpi_pc_z_room(ilpi_peak_cuts *pc, size_t n);

/* Room in the row buffers (pc->ind, val, acc) for every column and extra more. */
int ilpi_pc_row_room_n(ilpi_peak_cuts *pc, size_t extra);

/* The same with no extra. */
int ilpi_pc_row_room(ilpi_peak_cuts *pc);

/* Adds coef * column col to the row being built (coefficients merged). */
void ilpi_pc_rb_add(ilpi_peak_cuts *pc, rowb *rb, int col, double coef);

/* Writes the row being built (type GLP_LO/GLP_UP against bound - cst) and clears it. */
void ilpi_pc_rb_emit(ilpi_peak_cuts *pc, rowb *rb, int type, double bound);

/* A point's row (its P row or a z row): kept for row_value. */
void ilpi_pc_rb_emit_kept(ilpi_peak_cuts *pc, rowb *rb, int type, double bound);

/* A new continuous column in [0, 1]. */
int ilpi_pc_new_col(ilpi_peak_cuts *pc);

/* The columns of c(X, theta), node -> column (0: always 0), built on first use;
 * NULL: out of memory. */
const int *ilpi_pc_family_of(ilpi_peak_cuts *pc, int32_t theta);

/* Is v a backward op (it has a batch root)? */
int ilpi_pc_is_bw(const ilpi_peak_cuts *pc, int32_t v);

/* Each storage key's span over the steps of one side: st[key] the first step a value
 * with that key is produced, en[key] the last step one is needed (ABSENT when no value
 * has the key). With head and next, also the values of each key as a list. */
void ilpi_pc_storage_spans(size_t n, const int32_t *key, const int32_t *prod,
    const int32_t *die, size_t nk, int32_t *st, int32_t *en, int32_t *head,
    int32_t *next);

/* One side's storage spans (ilpi_pc_storage_spans) with their value lists, over the
 * 2n + 1 storage keys of a graph of n nodes: what a point's row at a step walks. */
typedef struct ilpi_pc_spans {
	int32_t *st, *en, *head, *next;
	size_t nk;
} ilpi_pc_spans;

/* Allocates sp's arrays for graph g; -1: out of memory (free sp with
 * ilpi_pc_spans_free either way). */
int ilpi_pc_spans_alloc(ilpi_pc_spans *sp, const ilp_graph *g);
/* Fills sp from one side's key, prod and die (ilpi_pc_storage_spans). */
void ilpi_pc_spans_fill(ilpi_pc_spans *sp, const ilp_graph *g, const int32_t *key,
    const int32_t *prod, const int32_t *die);
/* Storage key is live at step at: produced by then and needed at or after it. */
int ilpi_pc_spans_live(const ilpi_pc_spans *sp, size_t key, size_t at);
void ilpi_pc_spans_free(ilpi_pc_spans *sp);

/* The column that says saved value x (a rep) is on the device at a step, for a row
 * that must bound every partition: s_x, or d_x = s_x - o_x where a partition that
 * offloads x may have it on the host there (peak_offload.h). At a backward step: batch
 * root kappa, graph index o; at a forward step: graph index o. */
int ilpi_pc_saved_col_bw(const ilpi_peak_cuts *pc, int32_t x, int32_t kappa, int32_t o);
int ilpi_pc_saved_col_fw(const ilpi_peak_cuts *pc, int32_t x, int32_t o);

/* The literal "saved value x, read at or after the backward step (kappa, o) by u (-1:
 * held; a recomputed u: the row's other literals say u runs there), is on the device
 * there" into rb: ilpi_pc_saved_col_bw's column, or, where that is d_x but the answer
 * tr recomputes too little between the step and x's first use (at the latest its first
 * backward-class reader, or u's last possible batch) to delay its copy back past it,
 * s_x less the r of every other op that could run there (exact at tr). */
int ilpi_pc_saved_lit_bw(ilpi_peak_cuts *pc, rowb *rb, int32_t x, int32_t kappa,
    int32_t o, int32_t u, const ilpi_memtrace *tr);

/* Is storage key `key` on the device at step `at` of the answer ms (forward: fw)? Only
 * offloading takes a live key off it (graph/memsim.c). */
int ilpi_pc_resident(const ilp_graph *g, const ilpi_memsim *ms, int fw, size_t at,
    size_t key);

#endif /* ILPART_SOLVER_PEAK_ROWS_H */
