/* test_budgets.c - budgets out of reach (solver/driver/reach.c) and the time budget
 * (solver/driver/time_budget.c) on the corpus. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/partition.h"
#include "solver/mincut/mincut.h"
#include "tests/suites.h"
#include "tests/util.h"

/* PyTorch's partition at f as the time budget reads it (ilpart's min-cut at f, torch's
 * reading of the tags, unchecked), and whether it obeys the hard tags. */
static ilp_partition *
pytorch_at(const ilp_graph *g, double f, int *obeys)
{
	ilp_solve_options o;
	ilpi_mincut_options mo;
	ilp_check_options co = { ILP_PREFER_HARD };
	ilp_partition *p = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.budget_fraction = f;
	ilpi_mincut_options_init(&mo);
	ilpi_mincut_options_from_solve(&mo, &o);
	mo.prefer = ILP_PREFER_PYTORCH;
	mo.check = 0;
	if (ilpi_mincut_run(g, &mo, &p, NULL, &err) != 0)
		return NULL;
	*obeys = ilp_check(g, p, &co, &err) == 0;
	return p;
}

/* On every corpus graph at T = PyTorch's recompute time at F: the answer meets T, no
 * partition of fewer bytes meets it (the Pareto curve read one byte below), and where
 * PyTorch's partition obeys the tags the answer saves no more than it. */
START_TEST(time_budget_least_bytes)
{
	static const double fr[] = { 0.1, 0.3, 0.5 };
	size_t n;
	char **paths = t_corpus(&n);
	int cases = 0, fewer = 0, obeyed = 0;

	for (size_t k = 0; k < n; k++) {
		ilp_graph *g = t_graph_file(paths[k]);
		ilp_solve_options o, po;
		ilp_partition *p = NULL, *pt, *below = NULL;
		ilp_pareto *pp = NULL;
		ilp_error err = { 0 };
		int obeys = 0, rc;

		pt = pytorch_at(g, fr[_i], &obeys);
		ilp_solve_options_init(&o);
		o.time_budget_fraction = fr[_i];
		rc = ilp_solve(g, &o, &p, &err);
		if (pt == NULL) {
			/* no finite min-cut: no time to read */
			ck_assert_msg(rc != 0, "%s: solved without PyTorch's time", paths[k]);
			ilp_graph_free(g);
			continue;
		}
		ck_assert_msg(rc == 0, "%s at %g: %s", paths[k], fr[_i], err.msg);
		ck_assert_str_eq(p->status, "optimal");
		if (p->note[0] != '\0') {
			/* T out of reach: the least recompute of all, which PyTorch beat only by
			 * breaking a tag */
			ck_assert_msg(!obeys, "%s: %s", paths[k], p->note);
			ck_assert(p->recompute_time_us > pt->recompute_time_us);
		} else {
			ck_assert_msg(p->recompute_time_us <= pt->recompute_time_us * (1 + 1e-9),
			    "%s at %g: %.9g us > %.9g", paths[k], fr[_i], p->recompute_time_us,
			    pt->recompute_time_us);
			ilp_solve_options_init(&po);
			ck_assert_int_eq(ilp_pareto_new(g, &po, &pp, &err), 0);
			if (ilp_pareto_solve(pp, p->saved_bytes - 1, &below, &err) == 0)
				ck_assert_msg(below->recompute_time_us >
				    pt->recompute_time_us * (1 + 1e-9), "%s at %g: %lld bytes "
				    "also meet the time", paths[k], fr[_i],
				    (long long)below->saved_bytes);
			else
				ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
			cases++;
		}
		if (obeys) {
			obeyed++;
			ck_assert_int_le(p->saved_bytes, pt->saved_bytes);
			fewer += p->saved_bytes < pt->saved_bytes;
		}
		ilp_partition_free(below);
		ilp_pareto_free(pp);
		ilp_partition_free(pt);
		ilp_partition_free(p);
		ilp_graph_free(g);
	}
	t_strs_free(paths, n);
	fprintf(stderr, "time budget at PyTorch's time at %g: %d graphs met it at the least "
	    "bytes; PyTorch obeys the tags on %d, ilpart saves fewer bytes on %d\n", fr[_i],
	    cases, obeyed, fewer);
	ck_assert_int_gt(cases, 0);
	ck_assert_int_gt(fewer, 0);
}
END_TEST

/* An explicit time below every partition's (the SAC regions recompute what their
 * tags say): a conflict; with LEAST, the least
 * recompute time with a note. */
START_TEST(time_budget_out_of_reach)
{
	ilp_graph *g = t_graph_file(t_srcpath("tests/data/corpus/gpt-6l-sac-mm.json"));
	ilp_solve_options o;
	ilp_partition *p = NULL, *q = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.time_budget_us = 0;
	ck_assert_int_ne(ilp_solve(g, &o, &p, &err), 0);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(err.msg, "option 'time-budget': budget conflict"));
	o.unreachable = ILP_UNREACHABLE_LEAST;
	ck_assert_int_eq(ilp_solve(g, &o, &p, &err), 0);
	ck_assert_ptr_nonnull(strstr(ilp_partition_note(p), "out of reach"));
	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.bans = ILP_BANS_NONE;
	o.rng_replay = ILP_RNG_REPLAY_ALWAYS;
	ck_assert_int_eq(ilp_solve(g, &o, &q, &err), 0);
	ck_assert(p->recompute_time_us <= q->recompute_time_us * (1 + 1e-9));
	ilp_partition_free(p);
	ilp_partition_free(q);
	/* bad combinations are input errors naming the option */
	ilp_solve_options_init(&o);
	o.time_budget_us = 1;
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.3;
	ck_assert_int_ne(ilp_solve(g, &o, &p, &err), 0);
	ck_assert_int_eq(err.kind, ILP_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "option 'time-budget'"));
	ilp_graph_free(g);
}
END_TEST

/* A fraction below what the tags allow: the least-bytes partition that obeys them, then
 * least recompute, with a note; the same as solving at those bytes. FAIL keeps the
 * conflict; a byte budget is refused by default. */
START_TEST(fraction_out_of_reach_least)
{
	ilp_graph *g = t_graph_file(t_srcpath("tests/data/corpus/gpt-6l-sac-mm.json"));
	ilp_solve_options o;
	ilp_partition *p = NULL, *q = NULL;
	ilp_error err = { 0 };

	ilp_solve_options_init(&o);
	o.objective = ILP_OBJ_RUNTIME;
	o.budget_fraction = 0.3;
	ck_assert_msg(ilp_solve(g, &o, &p, &err) == 0, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(ilp_partition_note(p), "memory budget 0.3"));
	ck_assert_str_eq(p->status, "optimal");
	o.budget_fraction = -1;
	o.budget_bytes = p->saved_bytes;
	ck_assert_int_eq(ilp_solve(g, &o, &q, &err), 0);
	ck_assert_int_eq(q->saved_bytes, p->saved_bytes);
	ck_assert(q->recompute_time_us == p->recompute_time_us);
	ck_assert_str_eq(ilp_partition_note(q), "");
	ilp_partition_free(q);
	/* a byte below the least: refused unless LEAST */
	o.budget_bytes = p->saved_bytes - 1;
	ck_assert_int_ne(ilp_solve(g, &o, &q, &err), 0);
	ck_assert_int_eq(err.kind, ILP_ERR_CONFLICT);
	o.unreachable = ILP_UNREACHABLE_LEAST;
	ck_assert_int_eq(ilp_solve(g, &o, &q, &err), 0);
	ck_assert_int_eq(q->saved_bytes, p->saved_bytes);
	ilp_partition_free(q);
	o.unreachable = ILP_UNREACHABLE_FAIL;
	o.budget_bytes = -1;
	o.budget_fraction = 0.3;
	ck_assert_int_ne(ilp_solve(g, &o, &q, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "budget conflict"));
	ilp_partition_free(p);
	ilp_graph_free(g);
}
END_TEST

Suite *
suite_budgets(void)
{
	Suite *s = suite_create("budgets");
	TCase *tc = tcase_create("budgets");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, time_budget_least_bytes, 0, 3);
	tcase_add_test(tc, time_budget_out_of_reach);
	tcase_add_test(tc, fraction_out_of_reach_least);
	suite_add_tcase(s, tc);
	return s;
}
