#include "config.h"

#include "tests/suites.h"

/* placeholder: the module's tests replace this */
Suite *
suite_solver(void)
{
	return suite_create("solver");
}
