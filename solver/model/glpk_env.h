/*
 * glpk_env.h - the one place where ilpart talks to GLPK's environment (internal).
 *
 * GLPK reports internal errors by printing and calling abort(); its terminal output
 * goes to stdout. ilpi_glpk_run() installs an error hook that longjmps back, frees the
 * whole GLPK environment (every glp_prob made inside the call is gone afterwards) and
 * turns the error into ILP_ERR_SOLVER with GLPK's own message; and a terminal hook
 * that keeps the output off stdout, handing complete lines to the log when verbose.
 */
#ifndef ILPART_SOLVER_GLPK_ENV_H
#define ILPART_SOLVER_GLPK_ENV_H

#include "ilpart.h"

typedef struct ilpi_glpk_log {
	ilp_log_fn log;        /* may be NULL */
	void *log_ctx;
	int verbose;           /* hand GLPK's lines to log */
} ilpi_glpk_log;

/*
 * Runs fn(ctx) with the hooks installed and returns what it returns. When GLPK
 * raises an internal error inside, returns -1 with ILP_ERR_SOLVER in err; fn must then
 * forget every GLPK object it created (they were freed with the environment) and
 * `*glpk_objects_freed` (when not NULL) is set to 1. fn may call ilpi_glpk_run again.
 */
int ilpi_glpk_run(int (*fn)(void *ctx, ilp_error *err), void *ctx, const ilpi_glpk_log *lg,
    int *glpk_objects_freed, ilp_error *err);

/* Sends one progress line to the log of the innermost ilpi_glpk_run (no-op outside). */
void ilpi_glpk_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Same, only when the run is verbose. */
void ilpi_glpk_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Fault injection for the tests (tests/test_solver.c, the tests/ilpart_fault command):
 * the nth fault point passed from now in this thread, inside an ilpi_glpk_run, raises a
 * GLPK error through glp_error as GLPK's own internal errors do; 0 disarms. The fault
 * points are the start of every ilpi_glpk_run and every call of the branch-and-bound
 * callback (solver/model/model.c). Disarmed, a fault point costs one comparison. Returns
 * the fault points that were still to pass (0: the fault was raised, or none armed).
 */
unsigned ilpi_glpk_fault(unsigned nth);
void ilpi_glpk_fault_point(void);

#endif /* ILPART_SOLVER_GLPK_ENV_H */
