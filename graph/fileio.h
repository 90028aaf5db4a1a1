/* fileio.h - whole-file reads and atomic writes (internal). */
#ifndef ILPART_GRAPH_FILEIO_H
#define ILPART_GRAPH_FILEIO_H

#include <stddef.h>

#include "ilpart.h"

/* Reads `path` ("-" is stdin) into a NUL-terminated malloc'd buffer (*out, *len). */
int ilpi_read_file(const char *path, char **out, size_t *len, ilp_error *err);
/* ilp_write_file_atomic() is public: include/ilpart.h. */

#endif /* ILPART_GRAPH_FILEIO_H */
