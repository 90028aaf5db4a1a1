/* suites.h - one Check suite per module; tests/main.c runs them all. */
#ifndef ILPART_TESTS_SUITES_H
#define ILPART_TESTS_SUITES_H

#include <check.h>

Suite *suite_graph(void);
Suite *suite_check(void);
Suite *suite_policies(void);
Suite *suite_solver(void);
Suite *suite_mincut(void);
Suite *suite_memsim(void);
Suite *suite_offload(void);
Suite *suite_peak(void);
Suite *suite_peak_blocks(void);
Suite *suite_fingerprint(void);
Suite *suite_budgets(void);

#endif /* ILPART_TESTS_SUITES_H */
