/* stage.h - solver/driver/stage.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_STAGE_H
#define ILPART_SOLVER_DRIVER_STAGE_H

#include "solver/driver/ctx.h"

double drv_time_limit(const solve_ctx *c);
int drv_peak_late(solve_ctx *c);
/* A -v line to o->log (nothing without -v). */
void drv_note(const solve_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int drv_peak_room(solve_ctx *c, const char *what);
int drv_canon_items(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need);
void drv_save_all(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need);
void drv_penalties_raw(solve_ctx *c);
void drv_penalties(solve_ctx *c);
ilpi_terms drv_terms(const solve_ctx *c, double bytes, double cost, int with_pen);
/* What a stage does besides solving (drv_stage's flags; never chosen by its label). */
enum {
	DRV_STAGE_WRITE = 1,       /* its model is the one --write-lp/--write-mps show */
	DRV_STAGE_LEAST_PEAK = 2,  /* a least-peak loop solve: presolve, the loop's gap, a
	                            * cutoff below the best peak, the branching weights; no
	                            * answer left is the proof, not an error */
	DRV_STAGE_BUDGET = 4,      /* the model holds the budget row: infeasible is a budget
	                            * conflict the caller reports */
	DRV_STAGE_NOFEAS_OK = 8,   /* infeasible is the caller's to handle (a level row) */
	DRV_STAGE_UNDEF_OK = 16,   /* no answer in time is the caller's to handle */
	DRV_STAGE_GOMORY = 32      /* Gomory cuts and pseudo-cost branching (ilpi_mip.gomory) */
};

int drv_stage(solve_ctx *c, const char *what, unsigned flags, const ilpi_terms *t,
    const uint8_t *ws, const uint8_t *wr, uint8_t *s, uint8_t *r, ilpi_mip *mip,
    ilp_error *err);
int drv_stage_keep(solve_ctx *c, const char *what, unsigned flags, uint8_t *s, uint8_t *r,
    ilpi_mip *mip, ilp_error *err);
double drv_level(double obj, int integral);
int drv_level_stage(solve_ctx *c, const char *what, const ilpi_terms *t, int write,
    ilpi_mip *mip, ilp_error *err);
int drv_write_model(solve_ctx *c, const ilpi_terms *t, ilp_error *err);
int drv_write_budget_model(solve_ctx *c, ilp_error *err);


#endif /* ILPART_SOLVER_DRIVER_STAGE_H */
