/* peak_relax_conj.h - solver/driver/peak_relax_conj.c, internal to solver/driver/. */
#ifndef ILPART_SOLVER_DRIVER_PEAK_RELAX_CONJ_H
#define ILPART_SOLVER_DRIVER_PEAK_RELAX_CONJ_H

#include "solver/driver/peak_relax_pp.h"

/*
 * The relaxation's terms for saved values no backward op reads (docs/solver.md "The
 * bound along the layers", step 3): p->conj and p->n_group, given entry[] (bit 0: an
 * entry column) and top[u] (the latest step among the rows above segment u). Marks
 * entry bit 1 on the columns that could count what they count again in the rows above
 * (local_coef leaves those out). 0, or -1 out of memory.
 */
int drv_relax_conj_terms(pp *p, const uint8_t *entry, const int32_t *top);

/*
 * What the groups count at the point x (model columns): per segment in gs[] (each
 * group's largest active value); gmax[] is scratch, one per group.
 */
void drv_relax_conj_sums(const pp *p, const double *x, double *gs, double *gmax);

#endif /* ILPART_SOLVER_DRIVER_PEAK_RELAX_CONJ_H */
