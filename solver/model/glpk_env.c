/* glpk_env.c - GLPK error and terminal hooks, with recovery from glp_error. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "graph/graph.h"
#include "solver/model/glpk_env.h"

/* One frame per active ilpi_glpk_run; GLPK's environment is per thread, and so is this. */
typedef struct frame {
	jmp_buf jb;
	const ilpi_glpk_log *lg;
	char line[512];        /* partial terminal line being assembled */
	size_t len;
	char last[2][512];     /* the last two complete lines, for error messages */
	struct frame *up;
} frame;

static _Thread_local frame *top;

/* ilpi_glpk_fault: fault points left to pass before the one that raises (0: none). */
static _Thread_local unsigned fault_countdown;

unsigned
ilpi_glpk_fault(unsigned nth)
{
	unsigned left = fault_countdown;

	fault_countdown = nth;
	return left;
}

void
ilpi_glpk_fault_point(void)
{
	if (top == NULL || fault_countdown == 0 || --fault_countdown != 0)
		return;
	/* As GLPK raises its own errors: the message, then glp_error's hook. */
	glp_error("fault injected for a test (ilpi_glpk_fault)\n");
}

static void
emit_line(frame *f)
{
	f->line[f->len] = '\0';
	memcpy(f->last[0], f->last[1], sizeof f->last[0]);
	memcpy(f->last[1], f->line, f->len + 1);
	if (f->lg != NULL && f->lg->verbose && f->lg->log != NULL)
		f->lg->log(f->lg->log_ctx, f->line);
	f->len = 0;
}

static int
term_hook(void *info, const char *s)
{
	frame *f = info;

	for (; *s != '\0'; s++) {
		if (*s == '\n') {
			emit_line(f);
			continue;
		}
		if (f->len + 1 < sizeof f->line)
			f->line[f->len++] = *s;
	}
	return 1; /* nothing on stdout, ever */
}

static void
error_hook(void *info)
{
	frame *f = info;

	longjmp(f->jb, 1);
}

static void
install(frame *f)
{
	if (f != NULL) {
		glp_term_hook(term_hook, f);
		glp_error_hook(error_hook, f);
	} else {
		glp_term_hook(NULL, NULL);
		glp_error_hook(NULL, NULL);
	}
}

int
ilpi_glpk_run(int (*fn)(void *ctx, ilp_error *err), void *ctx, const ilpi_glpk_log *lg,
    int *glpk_objects_freed, ilp_error *err)
{
	/* On the heap: its fields change between setjmp and longjmp. */
	frame *const f = calloc(1, sizeof *f);
	int rc;

	if (glpk_objects_freed != NULL)
		*glpk_objects_freed = 0;
	if (f == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "out of memory");
		return -1;
	}
	f->lg = lg;
	f->up = top;
	if (setjmp(f->jb) != 0) {
		char what[sizeof f->line];

		if (f->len > 0)
			emit_line(f);
		/* GLPK prints the message, then "Error detected in file ...". */
		snprintf(what, sizeof what, "%s",
		    strncmp(f->last[1], "Error detected", 14) == 0 ? f->last[0] : f->last[1]);
		top = f->up;
		free(f);
		/* The environment is in an undefined state after glp_error: only freeing
		 * it is allowed. That also frees the objects of enclosing runs. */
		glp_free_env();
		if (top != NULL)
			install(top);
		if (glpk_objects_freed != NULL)
			*glpk_objects_freed = 1;
		ilpi_err(err, ILP_ERR_SOLVER, "GLPK internal error: %s", what);
		return -1;
	}
	top = f;
	install(f);
	ilpi_glpk_fault_point();
	rc = fn(ctx, err);
	if (f->len > 0)
		emit_line(f);
	top = f->up;
	install(top);
	free(f);
	return rc;
}

void
ilpi_glpk_progress(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (top == NULL || top->lg == NULL || top->lg->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	top->lg->log(top->lg->log_ctx, buf);
}

void
ilpi_glpk_note(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (top == NULL || top->lg == NULL || top->lg->log == NULL || !top->lg->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	top->lg->log(top->lg->log_ctx, buf);
}
