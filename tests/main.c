/* main.c - runs every unit suite; exits non-zero when any test failed. */
#include "config.h"

#include <stdlib.h>

#include "tests/suites.h"

int
main(void)
{
	SRunner *sr = srunner_create(suite_graph());
	int failed;

	srunner_add_suite(sr, suite_check());
	srunner_add_suite(sr, suite_policies());
	srunner_add_suite(sr, suite_solver());
	srunner_add_suite(sr, suite_mincut());
	srunner_add_suite(sr, suite_memsim());
	srunner_add_suite(sr, suite_offload());
	srunner_add_suite(sr, suite_peak());
	srunner_add_suite(sr, suite_peak_blocks());
	srunner_add_suite(sr, suite_fingerprint());
	srunner_add_suite(sr, suite_budgets());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
