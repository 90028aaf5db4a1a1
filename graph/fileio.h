/* fileio.h - whole-file reads and atomic writes (internal). */
#ifndef ILPART_GRAPH_FILEIO_H
#define ILPART_GRAPH_FILEIO_H

#include <stddef.h>

#include "ilpart.h"

/* Reads `path` ("-" is stdin) into a NUL-terminated malloc'd buffer (*out, *len). */
int ilpi_read_file(const char *path, char **out, size_t *len, ilp_error *err);
/* Writes `len` bytes to `path` through a temporary file in the same directory and a
 * rename, so a failure never leaves a partial file. "-" writes to stdout. */
int ilp_write_file_atomic(const char *path, const char *data, size_t len, ilp_error *err);

#endif /* ILPART_GRAPH_FILEIO_H */
