/* peak_seeds.h - solver/driver/peak_seeds.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_SEEDS_H
#define ILPART_SOLVER_DRIVER_PEAK_SEEDS_H

#include "solver/driver/ctx.h"

/* The best few distinct answers met so far (save sets, ascending simulated peak):
 * the descent's starting points. */
#define PEAK_STARTS 8

typedef struct peak_starts {
	uint8_t *s;               /* PEAK_STARTS save sets of n items */
	int64_t sim[PEAK_STARTS];
	size_t n;
} peak_starts;

int drv_peak_seeds(solve_ctx *c, ilp_error *err);
/* (s, r) from the save set s: canonical, and allowed by the model's columns (1). */
int drv_valid_items(solve_ctx *c, uint8_t *s, uint8_t *r);
/* A candidate simulated at `sim`: the new incumbent when strictly lower (confirmed by
 * drv_simulate(), the checked path); 1 when taken. */
int drv_peak_offer(solve_ctx *c, const uint8_t *s, const uint8_t *r, int64_t sim,
    int64_t *best);
/* The save set s, simulated at sim, among the descents' starts when it is one of the
 * best few. */
void drv_starts_offer(peak_starts *st, size_t n_items, const uint8_t *s, int64_t sim);
/* Every seed carried onto the items and simulated; the least peak goes to (ws, wr) and
 * *best (when below it), each seed's peak to sim[k] (-1: none; sim may be NULL), a
 * `-v` line per seed when note is set. */
void drv_best_seed(solve_ctx *c, int64_t *best, int64_t *sim, int note);
int drv_peak_try_seeds(solve_ctx *c, int64_t *best, ilp_error *err);
/* The chain of repeated layers (solver/driver/peak_blocks.c, until `pb_until`),
 * then the blocks' front (until `until`, at least half of its share after the chain). */
void drv_peak_front_seeds(solve_ctx *c, int64_t *best, peak_starts *st, double until,
    double pb_until);
void drv_descend(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t *cur, int64_t *best,
    double until, size_t *budget, size_t *moves);
/* A descent on recompute time within the peak P and the saved-bytes cap (model
 * units, < 0 none): from (cs, cr) (canonical, valid, within both), one more item
 * saved (the rest follows canonically) when the model's recompute cost drops, the
 * bytes stay within cap and the simulated peak within P; candidates by decreasing
 * recompute cost, first improvement, passes until none helps, `until` or *budget
 * simulations. Returns the moves taken; the result in (cs, cr). */
size_t drv_descend_time(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t P, double cap,
    double until, size_t *budget);
/* From (cs, cr) (canonical, valid, simulated within P), values it saves dropped one at
 * a time (least recompute cost per byte first; the rest follows canonically) when the
 * saved bytes fall and the simulated peak stays within P, until the bytes are within
 * cap (model units), `until` or *budget simulations. 1 when they are. */
int drv_repair_bytes(solve_ctx *c, uint8_t *cs, uint8_t *cr, int64_t P, double cap,
    double until, size_t *budget);
void drv_peak_descent(solve_ctx *c, int64_t *best, peak_starts *st, double until);
int drv_peak_weights(solve_ctx *c);
void drv_raise_peak_floor(solve_ctx *c, int64_t best);
void drv_peak_stage2_model(solve_ctx *c, int64_t best);

#endif /* ILPART_SOLVER_DRIVER_PEAK_SEEDS_H */
