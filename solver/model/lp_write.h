/* lp_write.h - the model as an LP or MPS file (solver/model/lp_write.c). Internal. */
#ifndef ILPART_SOLVER_MODEL_LP_WRITE_H
#define ILPART_SOLVER_MODEL_LP_WRITE_H

#include "solver/model/model.h"

/* Writes the model in CPLEX LP (mps == 0) or free MPS format, atomically. */
int ilpi_model_write(ilpi_model *m, const char *path, int mps, ilp_error *err);
/* GLPK's own writers (glp_write_lp, glp_write_mps) for lp, atomically. */
int ilpi_lp_write_glpk(struct glp_prob *lp, const char *path, int mps, ilp_error *err);
/* The LP text glp_write_lp writes for lp, without GLPK's writer: 0 with *text (malloc'd,
 * NUL-terminated) and *len, 1 when only GLPK can write this problem (a name the format
 * cannot carry as it stands, an empty problem), -1 out of memory. */
int ilpi_lp_text(struct glp_prob *lp, char **text, size_t *len);

#endif /* ILPART_SOLVER_MODEL_LP_WRITE_H */
