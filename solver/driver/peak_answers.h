/* peak_answers.h - solver/driver/peak_answers.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_ANSWERS_H
#define ILPART_SOLVER_DRIVER_PEAK_ANSWERS_H

#include "solver/driver/ctx.h"

int64_t drv_simulate(solve_ctx *c, const uint8_t *s, const uint8_t *r);
int drv_nogood_cut(solve_ctx *c, const uint8_t *s, const uint8_t *r, double sim);
int drv_nogood_exclude(solve_ctx *c, const uint8_t *s, const uint8_t *r);
int drv_check_cuts(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim);
int drv_cut_answer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim);
/* The same for an answer over a hard peak budget: when no exact row is found, the
 * answer is excluded by a +-1 no-good row (drv_nogood_exclude), not the distance form
 * whose large coefficients GLPK's tolerance misreads (docs/solver.md). */
int drv_cut_answer_over(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim);
int
drv_general_rows(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim, double frac,
    int max_pts);

#endif /* ILPART_SOLVER_DRIVER_PEAK_ANSWERS_H */
