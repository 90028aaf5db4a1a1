/* fileio.h - whole-file reads and atomic writes (internal). */
#ifndef ILPART_GRAPH_FILEIO_H
#define ILPART_GRAPH_FILEIO_H

#include <stddef.h>

#include "ilpart.h"

/* Reads `path` ("-" is stdin) into a NUL-terminated malloc'd buffer (*out, *len). */
int ilpi_read_file(const char *path, char **out, size_t *len, ilp_error *err);

/* Parses a whole file's bytes (buf is NUL-terminated, len bytes, from file `name`) into
 * what `ctx` points at; 0 or -1 with err filled. buf is the reader's to parse in place
 * until it returns (then freed). */
typedef int (*ilpi_buffer_reader)(char *buf, size_t len, const char *name, void *ctx,
    ilp_error *err);
/* Reads `path` as ilpi_read_file does, hands its bytes to `parse` and frees them: the
 * one body behind every ilp_*_read_file. */
int ilpi_read_file_with(const char *path, ilpi_buffer_reader parse, void *ctx,
    ilp_error *err);
/* ilp_write_file_atomic() is public: include/ilpart.h. */

#endif /* ILPART_GRAPH_FILEIO_H */
