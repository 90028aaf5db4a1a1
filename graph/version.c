/* version.c - the library's version, as configure set it (include/ilpart_version.h). */
#include "config.h"

#include "ilpart.h"

const char *
ilp_version(void)
{
	return ILPART_VERSION_STRING;
}
