#include "config.h"

#include "tests/suites.h"

/* placeholder: the module's tests replace this */
Suite *
suite_mincut(void)
{
	return suite_create("mincut");
}
