/* replay.c - runs files through a fuzz target's entry point without libFuzzer, so that
 * `make check` (tests/fuzz/replay.sh) replays the committed corpus and the regression
 * inputs with any compiler, under ASan/UBSan or valgrind. Arguments are files or
 * directories (their regular files, not recursively). A failing input aborts; with
 * REPLAY_VERBOSE set each file is named on stderr before it runs. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *q = realloc(data, cap = cap ? 2 * cap : 4096);

			if (q == NULL) {
				free(data);
				fclose(f);
				return -1;
			}
			data = q;
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	if (getenv("REPLAY_VERBOSE") != NULL)
		fprintf(stderr, "replay: %s\n", path);
	/* An exactly sized copy, as libFuzzer passes it. */
	(void)LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

static int
names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of a directory, in name order so that runs are repeatable. */
static int
run_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (d == NULL) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			char **q = realloc(list, (cap = cap ? 2 * cap : 64) * sizeof *list);

			if (q == NULL) {
				rc = -1;
				break;
			}
			list = q;
		}
		if ((list[n] = strdup(path)) == NULL) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(list, n, sizeof *list, names);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && run_file(list[i]) == 0)
			++*count;
		else
			rc = -1;
		free(list[i]);
	}
	free(list);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') != NULL ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t count = 0;
	int rc = 0;

	for (int i = 1; i < argc && rc == 0; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = run_dir(argv[i], &count);
		} else if (run_file(argv[i]) == 0) {
			count++;
		} else {
			rc = -1;
		}
	}
	printf("%s: %zu inputs\n", name, count);
	return rc == 0 && count > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
