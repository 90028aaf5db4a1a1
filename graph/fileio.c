#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/fileio.h"
#include "graph/graph.h"
#include "graph/grow.h"

int
ilpi_read_file(const char *path, char **out, size_t *len, ilp_error *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	struct stat st;

	if (f == NULL) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	/* A regular file is read into a buffer of its size (and the NUL, and a byte for
	 * the read that meets the end): no growing, no copies. */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2 &&
	    (buf = malloc((size_t)st.st_size + 2)) != NULL)
		cap = (size_t)st.st_size + 2;
	for (;;) {
		size_t got;

		/* room to read 64 KiB at a time, and one byte for the NUL */
		if (cap - n < 2 && ilpi_grow(&buf, &cap, n, 65536 + 1, 1) != 0) {
			ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", path);
			goto fail;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		ilpi_err(err, ILP_ERR_INPUT, "%s: read error: %s", path, strerror(errno));
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
fail:
	if (f != stdin)
		fclose(f);
	free(buf);
	return -1;
}

int
ilpi_read_file_with(const char *path, ilpi_buffer_reader parse, void *ctx, ilp_error *err)
{
	char *buf;
	size_t len;
	int rc;

	ilpi_err_clear(err);
	if (ilpi_read_file(path, &buf, &len, err) != 0)
		return -1;
	rc = parse(buf, len, path, ctx, err);
	free(buf);
	return rc;
}

/* mkstemp creates 0600; give the file the mode a plain fopen would (or keep an
 * existing file's mode). */
static mode_t
output_mode(const char *path)
{
	struct stat st;
	mode_t mask;

	if (stat(path, &st) == 0)
		return st.st_mode & 07777;
	mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

/* Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written in place: renaming a
 * temporary file over them would replace the device node itself. */
static int
write_direct(const char *path, const char *data, size_t len, ilp_error *err)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (f == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	ok = fwrite(data, 1, len, f) == len;
	if (fclose(f) != 0 || !ok) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: write error: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
ilp_write_file_atomic(const char *path, const char *data, size_t len, ilp_error *err)
{
	size_t plen = strlen(path);
	char *tmp = NULL;
	struct stat st;
	FILE *f = NULL;
	int fd, ok;

	ilpi_err_clear(err);
	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
			ilpi_err(err, ILP_ERR_SYSTEM, "<stdout>: write error: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_direct(path, data, len, err);
	tmp = malloc(plen + 16);
	if (tmp == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: out of memory", path);
		return -1;
	}
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || (f = fdopen(fd, "wb")) == NULL) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: cannot create: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return -1;
	}
	ok = fchmod(fd, output_mode(path)) == 0 && fwrite(data, 1, len, f) == len;
	if (fclose(f) != 0 || !ok) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: write error: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		ilpi_err(err, ILP_ERR_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
