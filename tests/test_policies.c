#include "config.h"

#include "tests/suites.h"

/* placeholder: the module's tests replace this */
Suite *
suite_policies(void)
{
	return suite_create("policies");
}
