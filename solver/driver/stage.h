/* stage.h - solver/driver/stage.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_STAGE_H
#define ILPART_SOLVER_DRIVER_STAGE_H

#include "solver/driver/ctx.h"

double drv_peak_limit(const ilp_solve_options *o);
int drv_peak_late(solve_ctx *c);
/* A -v line to o->log (nothing without -v). */
void drv_note(const solve_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int drv_peak_room(solve_ctx *c, const char *what);
int drv_canon_items(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need);
void drv_save_all(const ilpi_reduced *red, uint8_t *s, uint8_t *r, uint8_t *need);
void drv_penalties_raw(solve_ctx *c);
void drv_penalties(solve_ctx *c);
ilpi_terms drv_terms(const solve_ctx *c, double bytes, double cost, int with_pen);
int drv_stage(solve_ctx *c, const char *what, const ilpi_terms *t, const uint8_t *ws,
    const uint8_t *wr, uint8_t *s, uint8_t *r, ilpi_mip *mip, int write, ilp_error *err);
int drv_stage_keep(solve_ctx *c, const char *what, uint8_t *s, uint8_t *r, ilpi_mip *mip,
    ilp_error *err);
double drv_level(double obj, int integral);
int drv_level_stage(solve_ctx *c, const char *what, const ilpi_terms *t, int write,
    ilpi_mip *mip, ilp_error *err);
int drv_write_model(solve_ctx *c, const ilpi_terms *t, ilp_error *err);
int drv_write_budget_model(solve_ctx *c, ilp_error *err);

/* Seconds a peak-objective or peak-budget solve takes at most when the caller gives no
 * time limit (solver/driver/stage.c; docs/solver.md "Peak memory": 60). Every stage, seed
 * solve and descent of the search keeps to it. Only tests change it. */
extern double ilpi_peak_default_limit;

/* Test hook (tests/test_peak.c): when > 0, the peak search's clock checks between its
 * phases and between the rows and points it adds (not the descents' and the front's
 * own) count it down, and from the check that brings it to 0 on the time limit counts
 * as spent whatever the clock says; so a test can stop the search at its Nth check
 * without timing it. 0: the clock alone. */
extern long ilpi_peak_test_checks;

#endif /* ILPART_SOLVER_DRIVER_STAGE_H */
