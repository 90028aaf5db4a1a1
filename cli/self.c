/*
 * self.c - the path of this program, for commands that run it again (ilpart batch):
 * /proc/self/exe where /proc is mounted, else argv[0] as the shell found it: a path
 * when it has a slash, else the first executable of that name on PATH.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

static const char *self_argv0;

void
cli_self_init(const char *argv0)
{
	self_argv0 = argv0;
}

/* path, made absolute (a command may change directory before it runs itself), into
 * buf when it is an executable regular file: 0, else -1. */
static int
take(const char *path, char *buf, size_t size)
{
	struct stat st;
	char *abs;
	int rc = -1;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return -1;
	if ((abs = realpath(path, NULL)) == NULL)
		return -1;
	if (strlen(abs) < size) {
		memcpy(buf, abs, strlen(abs) + 1);
		rc = 0;
	}
	free(abs);
	return rc;
}

int
cli_self_path(char *buf, size_t size)
{
	const char *path, *p;
	char cand[PATH_MAX];
	ssize_t n;

	if ((n = readlink("/proc/self/exe", buf, size - 1)) > 0 && (size_t)n < size - 1) {
		buf[n] = '\0';
		return 0;
	}
	if (self_argv0 == NULL || self_argv0[0] == '\0')
		return -1;
	if (strchr(self_argv0, '/') != NULL)
		return take(self_argv0, buf, size);
	if ((path = getenv("PATH")) == NULL)
		return -1;
	/* each entry of PATH, an empty one meaning the current directory */
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
		int w = len == 0 ? snprintf(cand, sizeof cand, "%s", self_argv0) :
		    snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, self_argv0);

		if (w > 0 && (size_t)w < sizeof cand && take(cand, buf, size) == 0)
			return 0;
		if (end == NULL)
			return -1;
		p = end;
	}
}
