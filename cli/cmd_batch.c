/*
 * cmd_batch.c - `ilpart batch DIR [--time-limit S] [-j N] [--shard I/N] [--retry]
 * [--dry-run] [--no-times]`: solve the pending entries of a partition store
 * (docs/python.md "Partition store").
 *
 * Each entry is solved by a child process running this same binary's `ilpart solve`
 * on the stored graph with the entry's options, inside the store directory, its output
 * to a temporary file. The parent keeps up to N children running and, as each ends,
 * replaces the stored partition only with a better answer, under a per-entry lock, by
 * rename: readers never see a partial file, and a concurrent batch (another shard,
 * another host on a shared file system) or a compiling process never loses a better
 * answer. A second per-entry lock, held while solving, keeps two batches from solving
 * the same entry at once.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/store.h"
#include "graph/clock.h"
#include "graph/fileio.h"
#include "graph/grow.h"
#include "graph/strbuf.h"

typedef struct batch_opts {
	const char *dir;
	double time_limit;     /* <= 0: none */
	long jobs;
	long shard, shards;
	int retry, force, dry_run, no_times;
} batch_opts;

typedef struct job {
	pid_t pid;
	cli_entry e;
	int lock_fd;           /* locks/KEY.solve.lock, held while solving */
	double t0;
	char tmp[128], log[128]; /* store-relative */
} job;

typedef struct batch {
	batch_opts o;
	char self[4096];
	char **keys;
	size_t n_keys, done, total;
	size_t solved, optimal, kept, failed, skipped;
	int worst;             /* exit status */
	job *jobs;
} batch;

static void
path_in(const batch *b, char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", b->o.dir, rel);
}

/* ---- options ------------------------------------------------------------------- */

static int
parse_count(const char *v, long lo, long hi, long *out)
{
	char *e;

	if (v == NULL || *v == '\0')
		return -1;
	*out = strtol(v, &e, 10);
	return *e != '\0' || *out < lo || *out > hi ? -1 : 0;
}

static int
parse_args(int argc, char **argv, batch_opts *o)
{
	int n = 0;

	memset(o, 0, sizeof *o);
	o->jobs = 1;
	o->shards = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char *e;

		if (strcmp(a, "--retry") == 0) {
			o->retry = 1;
		} else if (strcmp(a, "--force") == 0) {
			o->force = o->retry = 1;
		} else if (strcmp(a, "--dry-run") == 0) {
			o->dry_run = 1;
		} else if (strcmp(a, "--no-times") == 0) {
			o->no_times = 1;
		} else if (cli_opt("batch", argc, argv, &i, "--time-limit", &v)) {
			if (cli_opt_seconds("batch", v, &o->time_limit) != CLI_OK)
				return -1;
		} else if (strncmp(a, "-j", 2) == 0) {
			/* -j N, -jN */
			v = a[2] != '\0' ? a + 2 : i + 1 < argc ? argv[++i] : NULL;
			if (parse_count(v, 1, 1024, &o->jobs) != 0)
				return cli_usage("batch", "-j: expected 1 to 1024 processes, not '%s'",
				    v != NULL ? v : "");
		} else if (cli_opt("batch", argc, argv, &i, "--shard", &v)) {
			if (v == NULL)
				return -1;
			o->shard = strtol(v, &e, 10);
			if (e == v || *e != '/' || parse_count(e + 1, 1, 1L << 30, &o->shards) != 0 ||
			    o->shard < 0 || o->shard >= o->shards)
				return cli_usage("batch", "--shard: expected I/N with 0 <= I < N, not "
				    "'%s'", v);
		} else if (cli_operand("batch", a, &o->dir, 1, &n) != CLI_OK) {
			return -1;
		}
	}
	if (o->dir == NULL)
		return cli_usage("batch", "expected the store DIR");
	return 0;
}

/* ---- the entries ------------------------------------------------------------------ */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shard of a key: its first 8 hex digits modulo the number of shards. */
static long
shard_of(const char *key, long shards)
{
	char head[9];

	memcpy(head, key, 8);
	head[8] = '\0';
	return (long)(strtoul(head, NULL, 16) % (unsigned long)shards);
}

/* Keys of entries/KEY.json in this shard, sorted. Sharding by the key itself keeps an
 * entry in the same shard however many entries are added. */
static int
list_entries(batch *b)
{
	char path[4096];
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	path_in(b, path, sizeof path, "entries");
	if ((dir = opendir(path)) == NULL) {
		fprintf(stderr, "ilpart: %s: %s (not a partition store?)\n", path, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		size_t len = strlen(d->d_name);
		char key[65];

		if (len != 64 + 5 || strcmp(d->d_name + 64, ".json") != 0)
			continue;
		memcpy(key, d->d_name, 64);
		key[64] = '\0';
		if (!cli_is_key(key))
			continue;
		b->total++;
		if (shard_of(key, b->o.shards) != b->o.shard)
			continue;
		if (ILPI_GROW(b->keys, cap, b->n_keys, 1) != 0 ||
		    (b->keys[b->n_keys] = strdup(key)) == NULL) {
			fprintf(stderr, "ilpart: %s: out of memory\n", path);
			closedir(dir);
			return -1;
		}
		b->n_keys++;
	}
	closedir(dir);
	if (b->keys != NULL)
		qsort(b->keys, b->n_keys, sizeof *b->keys, cmp_str);
	return 0;
}

/* ---- progress and status ---------------------------------------------------------- */

static void
progress(batch *b, const cli_entry *e, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
progress(batch *b, const cli_entry *e, const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("batch: [%zu/%zu] %.12s", ++b->done, b->n_keys, key);
	if (e != NULL && e->fingerprint[0] != '\0') {
		printf(" (graph %.12s", e->fingerprint);
		if (e->nodes >= 0)
			printf(", %ld nodes", e->nodes);
		printf(")");
	}
	printf(": ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static const char *
seconds(const batch *b, double s, char *buf, size_t size)
{
	if (b->o.no_times)
		return "";
	snprintf(buf, size, ", %.2f s", s);
	return buf;
}

static void
describe(const cli_result *r, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s", r->status[0] != '\0' ? r->status : "?");

	if (r->gap >= 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, ", gap %.4g", r->gap);
	if (r->objective >= 0 && n < size)
		snprintf(buf + n, size - n, ", objective %.10g", r->objective);
}

/* status/KEY.json: what the last attempt did (a log, not a result: it has seconds). */
static void
write_status(const batch *b, const char *key, const cli_result *r, int code, int stored,
    double secs, const char *msg)
{
	static const char *const failures[] = { "ok", "violation", "input", "conflict",
		"no-solution" };
	char path[4096], rel[128], *text;
	ilpi_buf s;
	ilp_error err = { 0 };

	ilpi_buf_init(&s);
	ilpi_buf_puts(&s, "{\"format\": \"ilpart-store-status\", \"version\": 1, \"status\": ");
	ilpi_buf_json_str(&s, code == 0 ? r->status : code > 0 && code <= 4 ? failures[code] :
	    "crashed");
	if (code == 0 && r->gap >= 0) {
		ilpi_buf_puts(&s, ", \"gap\": ");
		ilpi_buf_json_num(&s, r->gap);
	}
	if (code == 0 && r->objective >= 0) {
		ilpi_buf_puts(&s, ", \"objective_value\": ");
		ilpi_buf_json_num(&s, r->objective);
	}
	ilpi_buf_printf(&s, ", \"exit\": %d, \"stored\": %s, \"seconds\": ", code,
	    stored ? "true" : "false");
	ilpi_buf_json_num(&s, secs);
	if (b->o.time_limit > 0) {
		ilpi_buf_puts(&s, ", \"time_limit\": ");
		ilpi_buf_json_num(&s, b->o.time_limit);
	}
	ilpi_buf_puts(&s, ", \"message\": ");
	ilpi_buf_json_str(&s, msg);
	ilpi_buf_puts(&s, "}\n");
	snprintf(rel, sizeof rel, "status/%s.json", key);
	path_in(b, path, sizeof path, rel);
	if ((text = ilpi_buf_take(&s)) == NULL ||
	    ilp_write_file_atomic(path, text, strlen(text), &err) != 0)
		fprintf(stderr, "ilpart batch: %s: %s\n", path, err.msg);
	free(text);
}

/* The exit status a previous attempt recorded, 0 when none. */
static int
previous_failure(const batch *b, const char *key, char *msg, size_t size)
{
	char path[4096], rel[128], *buf = NULL, *p;
	size_t len = 0;
	ilp_error err = { 0 };
	int code = 0;

	snprintf(rel, sizeof rel, "status/%s.json", key);
	path_in(b, path, sizeof path, rel);
	if (ilpi_read_file(path, &buf, &len, &err) != 0)
		return 0;
	if ((p = strstr(buf, "\"exit\": ")) != NULL)
		code = atoi(p + 8);
	msg[0] = '\0';
	if ((p = strstr(buf, "\"message\": \"")) != NULL) {
		size_t n = strcspn(p + 12, "\"");

		snprintf(msg, size, "%.*s", (int)(n < size ? n : size - 1), p + 12);
	}
	free(buf);
	return code;
}

/* ---- solving ---------------------------------------------------------------------- */

/* locks/KEY SUFFIX locked with flock(how): its descriptor; -2 when LOCK_NB found it held
 * by another process; -1 when it cannot be locked at all, with why in `why` (a file
 * system without flock, such as Lustre mounted without -o flock: not "busy"). The kernel
 * drops the lock when the holder exits, however it ends. */
static int
lock_file(const batch *b, const char *key, const char *suffix, int how, char *why,
    size_t why_len)
{
	char path[4096], rel[128];
	int fd, e;

	snprintf(rel, sizeof rel, "locks/%s%s", key, suffix);
	path_in(b, path, sizeof path, rel);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0) {
		snprintf(why, why_len, "cannot open %s: %s", rel, strerror(errno));
		return -1;
	}
	if (flock(fd, how) != 0) {
		e = errno;
		close(fd);
		if (e == EWOULDBLOCK)
			return -2;
		snprintf(why, why_len, "cannot lock %s: %s (the store's file system must "
		    "support flock)", rel, strerror(e));
		return -1;
	}
	return fd;
}

static void
child(const batch *b, const job *j)
{
	const char *argv[64];
	char tl[64];
	size_t n = 0;
	int fd;

	if (chdir(b->o.dir) != 0 ||
	    (fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
		_exit(127);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	argv[n++] = "ilpart";
	argv[n++] = "solve";
	argv[n++] = j->e.graph;
	argv[n++] = "-o";
	argv[n++] = j->tmp;
	for (size_t k = 0; k < j->e.n_args && n < 58; k++)
		argv[n++] = j->e.args[k];
	if (b->o.time_limit > 0) {
		snprintf(tl, sizeof tl, "%.17g", b->o.time_limit);
		argv[n++] = "--time-limit";
		argv[n++] = tl;
	}
	argv[n] = NULL;
	execv(b->self, (char *const *)argv);
	fprintf(stderr, "ilpart: cannot run %s: %s\n", b->self, strerror(errno));
	_exit(127);
}

static int
start(batch *b, job *j, const char *key)
{
	static unsigned serial;
	char path[4096], msg[300];

	path_in(b, path, sizeof path, "entries/");
	snprintf(path + strlen(path), sizeof path - strlen(path), "%s.json", key);
	if (cli_entry_read(path, key, &j->e, msg, sizeof msg) != 0) {
		/* Named like every other error line: the file, then the field. A read
		 * error's message names the file already. */
		if (strncmp(msg, path, strlen(path)) == 0)
			progress(b, NULL, key, "bad entry: %s", msg);
		else
			progress(b, NULL, key, "bad entry: entries/%s.json: %s", key, msg);
		b->failed++;
		if (b->worst < CLI_INPUT)
			b->worst = CLI_INPUT;
		return -1;
	}
	if ((j->lock_fd = lock_file(b, key, ".solve.lock", LOCK_EX | LOCK_NB, msg,
	    sizeof msg)) < 0) {
		if (j->lock_fd == -2) {
			progress(b, &j->e, key, "busy (another batch is solving it): skipped");
			b->skipped++;
		} else {
			progress(b, &j->e, key, "failed: %s", msg);
			b->failed++;
			if (b->worst < CLI_INPUT)
				b->worst = CLI_INPUT;
		}
		cli_entry_free(&j->e);
		return -1;
	}
	snprintf(j->tmp, sizeof j->tmp, "tmp/%s.%ld.%u.json", key, (long)getpid(), serial);
	snprintf(j->log, sizeof j->log, "tmp/%s.%ld.%u.log", key, (long)getpid(), serial++);
	fflush(stdout);
	j->t0 = ilpi_now();
	if ((j->pid = fork()) == 0)
		child(b, j);
	if (j->pid < 0) {
		progress(b, &j->e, key, "cannot start a process: %s", strerror(errno));
		close(j->lock_fd);
		cli_entry_free(&j->e);
		b->failed++;
		b->worst = CLI_INPUT;
		return -1;
	}
	return 0;
}

/* The last line the solve printed (its one-line error). */
static void
last_line(const batch *b, const job *j, char *out, size_t size)
{
	char path[4096], *buf = NULL, *p;
	size_t len = 0;
	ilp_error err = { 0 };

	out[0] = '\0';
	path_in(b, path, sizeof path, j->log);
	if (ilpi_read_file(path, &buf, &len, &err) != 0)
		return;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	p = strrchr(buf, '\n');
	snprintf(out, size, "%s", p != NULL ? p + 1 : buf);
	free(buf);
}

static void
finish(batch *b, job *j, int wstatus)
{
	char tmp[4096], final[4096], rel[128], msg[700], what[200], was[200], t[32];
	int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	double secs = ilpi_now() - j->t0;
	const char *key = j->e.key;
	cli_result got, have;
	int stored = 0, lock;

	path_in(b, tmp, sizeof tmp, j->tmp);
	snprintf(rel, sizeof rel, "partitions/%s.json", key);
	path_in(b, final, sizeof final, rel);
	memset(&got, 0, sizeof got);
	if (code != 0) {
		last_line(b, j, msg, sizeof msg);
		unlink(tmp);
		progress(b, &j->e, key, "failed (exit %d%s): %s", code,
		    seconds(b, secs, t, sizeof t), msg);
		b->failed++;
		if (code > b->worst)
			b->worst = code < CLI_INPUT || code > CLI_SOLVER ? CLI_INPUT : code;
		write_status(b, key, &got, code, 0, secs, msg);
		goto out;
	}
	cli_result_peek(tmp, &got);
	describe(&got, what, sizeof what);
	/* Compare and replace under the entry's lock: a compiling process or another
	 * batch may store an answer meanwhile. */
	lock = lock_file(b, key, ".lock", LOCK_EX, msg, sizeof msg);
	if (lock < 0) {
		unlink(tmp);
		progress(b, &j->e, key, "%s%s: not stored: %s", what,
		    seconds(b, secs, t, sizeof t), msg);
		b->failed++;
		if (b->worst < CLI_INPUT)
			b->worst = CLI_INPUT;
		goto out; /* no status: the store's fault, not the entry's; tried again */
	}
	cli_result_peek(final, &have);
	if (cli_result_better(&got, &have) && rename(tmp, final) == 0)
		stored = 1;
	close(lock);
	if (!stored)
		unlink(tmp);
	b->solved++;
	b->optimal += strcmp(got.status, "optimal") == 0;
	if (stored) {
		progress(b, &j->e, key, "%s%s: stored%s%s", what, seconds(b, secs, t, sizeof t),
		    got.note[0] != '\0' ? "; note: " : "", got.note);
	} else {
		describe(&have, was, sizeof was);
		b->kept++;
		progress(b, &j->e, key, "%s%s: kept the stored answer (%s)", what,
		    seconds(b, secs, t, sizeof t), was);
	}
	write_status(b, key, &got, 0, stored, secs, got.note);
out:
	path_in(b, tmp, sizeof tmp, j->log);
	unlink(tmp);
	close(j->lock_fd);
	cli_entry_free(&j->e);
	j->pid = 0;
}

static void
reap(batch *b, size_t *running)
{
	int st;
	pid_t pid = waitpid(-1, &st, 0);

	if (pid < 0) {
		if (errno != EINTR)
			*running = 0; /* no children left: nothing to wait for */
		return;
	}
	for (long k = 0; k < b->o.jobs; k++)
		if (b->jobs[k].pid == pid) {
			finish(b, &b->jobs[k], st);
			(*running)--;
			return;
		}
}

/* Whether the entry asks for a memory budget as a fraction (`--memory-budget 0.5`):
 * one that an ilpart before solver/driver/reach.c refused as out of reach (exit 3), which
 * this one answers with the least partition, so it is solved again. */
static int
fraction_entry(const batch *b, const char *key)
{
	char path[4096], msg[300];
	cli_entry e;
	int yes = 0;

	path_in(b, path, sizeof path, "entries/");
	snprintf(path + strlen(path), sizeof path - strlen(path), "%s.json", key);
	if (cli_entry_read(path, key, &e, msg, sizeof msg) != 0)
		return 0;
	for (size_t k = 0; k + 1 < e.n_args; k++)
		if (strcmp(e.args[k], "--memory-budget") == 0)
			yes = strpbrk(e.args[k + 1], ".eE") != NULL;
	for (size_t k = 0; k < e.n_args; k++)
		if (strcmp(e.args[k], "--strict-budget") == 0 ||
		    strcmp(e.args[k], "--out-of-reach") == 0)
			yes = 0;
	cli_entry_free(&e);
	return yes;
}

/* Whether key needs solving; prints why not. */
static int
wanted(batch *b, const char *key)
{
	char path[4096], rel[128], msg[400], what[200];
	cli_result have;
	int prev;

	snprintf(rel, sizeof rel, "partitions/%s.json", key);
	path_in(b, path, sizeof path, rel);
	cli_result_peek(path, &have);
	if (have.present && strcmp(have.status, "optimal") == 0 && !b->o.force) {
		describe(&have, what, sizeof what);
		progress(b, NULL, key, "%s (stored): skipped", what);
		b->skipped++;
		return 0;
	}
	prev = previous_failure(b, key, msg, sizeof msg);
	if (prev == CLI_CONFLICT && strstr(msg, "option 'memory-budget': budget conflict") !=
	    NULL && fraction_entry(b, key))
		prev = 0;
	if (!b->o.retry && (prev == CLI_INPUT || prev == CLI_CONFLICT)) {
		progress(b, NULL, key, "failed before (exit %d: %s): skipped; --retry tries again",
		    prev, msg);
		b->skipped++;
		return 0;
	}
	if (b->o.dry_run) {
		if (have.present)
			describe(&have, what, sizeof what);
		progress(b, NULL, key, "pending (%s)", have.present ? what : "no partition");
		return 0;
	}
	return 1;
}

static int
make_dirs(const batch *b)
{
	static const char *const sub[] = { "partitions", "status", "locks", "tmp" };
	char path[4096];

	for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		path_in(b, path, sizeof path, sub[i]);
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "ilpart: %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int
cmd_batch(int argc, char **argv)
{
	batch b;
	size_t running = 0;

	memset(&b, 0, sizeof b);
	if (parse_args(argc, argv, &b.o) != 0)
		return CLI_INPUT;
	if (cli_self_path(b.self, sizeof b.self) != 0) {
		fprintf(stderr, "ilpart batch: cannot find this program (/proc/self/exe, "
		    "argv[0], PATH)\n");
		return CLI_INPUT;
	}
	if (list_entries(&b) != 0 || (!b.o.dry_run && make_dirs(&b) != 0))
		return CLI_INPUT;
	if ((b.jobs = calloc((size_t)b.o.jobs, sizeof *b.jobs)) == NULL)
		return CLI_INPUT;
	for (size_t i = 0; i < b.n_keys; i++) {
		long slot = 0;

		if (!wanted(&b, b.keys[i]))
			continue;
		while (running == (size_t)b.o.jobs)
			reap(&b, &running);
		while (b.jobs[slot].pid != 0)
			slot++;
		if (start(&b, &b.jobs[slot], b.keys[i]) == 0)
			running++;
	}
	while (running > 0)
		reap(&b, &running);
	printf("batch: %zu of %zu entries in this shard: %zu solved (%zu optimal), %zu kept a "
	    "better stored answer, %zu failed, %zu skipped\n", b.n_keys, b.total, b.solved,
	    b.optimal, b.kept, b.failed, b.skipped);
	for (size_t i = 0; i < b.n_keys; i++)
		free(b.keys[i]);
	free(b.keys);
	free(b.jobs);
	return b.worst;
}
