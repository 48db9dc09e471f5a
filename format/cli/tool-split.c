/* tool-split.c: `mcz split JOB.mcz [-o DIR] [--force]`: each recording of a
 * job file (tool-merge.c writes them) back into a file of its own, byte for
 * byte, under the name it was merged with.
 *
 * Every name is checked before anything is written: a name that is not a
 * file name, or a file of that name already in DIR (without --force), stops
 * the split with nothing written, each named.  Then every member that can
 * be is written — to a temporary name, linked (or, with --force, renamed)
 * into place, so no file is ever half-written — and every one that cannot
 * (cut short in a damaged job file, or not in it at all) is named; any of
 * those makes the exit status 1.
 *
 *     mcz split job.mcz -o ranks/
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

/* A member's name is a file name, never a path. */
static int split_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static int split_put(int fd, const uint8_t *b, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t k = write(fd, b + done, len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	int e = done < len ? (errno ? errno : EIO) : 0;
	if (close(fd) != 0 && !e)
		e = errno;
	return e;
}

/* Write len bytes at b into DIR/NAME (p) whole or not at all; 0 or errno.
 * A new name is linked into place (link refuses a name taken since the
 * check); --force writes through format/container/outpath.c: a file replaced by
 * rename once whole (a symlink's target, not the link), a device written
 * into, never removed. */
static int split_write(const char *p, const uint8_t *b, size_t len, int force)
{
	if (force) {
		mcz_outpath op;
		if (mcz_outpath_begin(&op, p))
			return errno ? errno : EINVAL;
		int fd = open(op.write, O_WRONLY | O_TRUNC | O_CLOEXEC);
		int e = fd < 0 ? errno : split_put(fd, b, len);
		if (e)
			mcz_outpath_abort(&op);
		else if (mcz_outpath_commit(&op, 0))
			e = errno ? errno : EIO;
		return e;
	}
	char tmp[PATH_MAX + 16];
	const char *slash = strrchr(p, '/');
	snprintf(tmp, sizeof tmp, "%.*s.mcz-split-XXXXXX", slash ? (int)(slash - p + 1) : 0, p);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return errno;
	fchmod(fd, 0644);
	int e = split_put(fd, b, len);
	if (!e && link(tmp, p) != 0)
		e = errno;
	unlink(tmp);
	return e;
}

/* With --force, DIR/NAME may be replaced only by a file of the job: not
 * the job file itself (a member named as it, in its folder), nor a
 * folder, a FIFO or a socket.  1 when p must not be written. */
static int split_refused(const char *p, const struct stat *job)
{
	struct stat st;
	if (stat(p, &st) != 0)
		return 0;
	if (st.st_dev == job->st_dev && st.st_ino == job->st_ino) {
		fprintf(stderr, "mcz split: %s is the job file being split; give another -o\n",
			tool_common_esc(p));
		return 1;
	}
	if (S_ISDIR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "mcz split: %s: not a file (--force replaces files only)\n",
			tool_common_esc(p));
		return 1;
	}
	return 0;
}

int tool_split(int argc, char **argv)
{
	const char *path = NULL, *dir = ".";
	int force = 0;
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			dir = argv[++i];
		else if (!strncmp(argv[i], "--output=", 9))
			dir = argv[i] + 9;
		else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			force = 1;
		else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			return tool_common_usage_error("split", "%s needs a folder", argv[i]);
		else if (argv[i][0] == '-' && argv[i][1])
			return tool_common_usage_error("split", "unknown option '%s'", argv[i]);
		else if (path)
			return tool_common_usage_error("split", "one job file at a time ('%s' is a second)",
						       argv[i]);
		else
			path = argv[i];
	}
	if (!path)
		return tool_common_usage_error("split", "no job file given");
	mcz_reader *r;
	if (tool_common_open("split", path, 0, &r))
		return 1;
	size_t n = mcz_member_count(r), want = mcz_member_expected(r);
	if (n == 0 && want == 0) {
		fprintf(stderr, "mcz split: %s is one recording, not a job file (mcz merge writes those)\n",
			tool_common_esc(path));
		mcz_close(r);
		return 1;
	}
	/* the folder made as mkdir -p would, as mcz export makes an archive's;
	 * one line when it cannot be, not one per rank */
	char mk[4096];
	snprintf(mk, sizeof mk, "%s", dir);
	for (char *q = mk + 1; *q; q++)
		if (*q == '/') {
			*q = '\0';
			mkdir(mk, 0777);
			*q = '/';
		}
	struct stat ds;
	if (mkdir(mk, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "mcz split: %s: cannot make the folder: %s\n", tool_common_esc(dir),
			strerror(errno));
		mcz_close(r);
		return 1;
	}
	if (stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode)) {
		fprintf(stderr, "mcz split: %s: not a folder\n", tool_common_esc(dir));
		mcz_close(r);
		return 1;
	}
	/* every name first: nothing is written when one cannot be */
	struct stat job;
	int stop = 0;
	if (stat(path, &job) != 0) /* "JOB.mcz:NAME" is refused above */
		memset(&job, 0, sizeof job);
	char p[PATH_MAX];
	for (size_t i = 0; i < n; i++) {
		const char *name = mcz_member_name(r, i);
		struct stat st;
		if (!split_name_ok(name)) {
			fprintf(stderr, "mcz split: %s: member %zu's name '%s' is not a file name\n",
				tool_common_esc(path), i + 1, tool_common_esc(name));
			stop = 1;
		} else if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p) {
			fprintf(stderr, "mcz split: %s/%s: name too long\n", tool_common_esc(dir),
				tool_common_esc(name));
			stop = 1;
		} else if (!force && lstat(p, &st) == 0) {
			fprintf(stderr, "mcz split: %s exists (--force overwrites it)\n",
				tool_common_esc(p));
			stop = 1;
		} else if (force && split_refused(p, &job)) {
			stop = 1;
		}
	}
	if (stop) {
		fprintf(stderr, "mcz split: %s: nothing written\n", tool_common_esc(path));
		mcz_close(r);
		return 1;
	}
	size_t wrote = 0, lost = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = mcz_member_name(r, i);
		size_t len;
		const uint8_t *b = mcz_member_bytes(r, i, &len);
		snprintf(p, sizeof p, "%s/%s", dir, name);
		if (mcz_member_is_cut(r, i)) {
			mcz_reader *m;
			mcz_member_open(r, i, 0, &m); /* for its reason */
			const char *d = mcz_errdetail(), *c = strstr(d, ": ");
			fprintf(stderr, "mcz split: %s:%s: not written: %s\n", tool_common_esc(path),
				tool_common_esc(name), c ? tool_common_esc(c + 2) : "cut short");
			lost++;
			continue;
		}
		int e = split_write(p, b, len, force);
		if (e) {
			fprintf(stderr, "mcz split: %s: %s\n", tool_common_esc(p), strerror(e));
			lost++;
		} else
			wrote++;
	}
	size_t absent = want > n ? want - n : 0;
	if (absent)
		fprintf(stderr, "mcz split: %s: %zu more recording%s not in the file (it ends before %s)\n",
			tool_common_esc(path), absent, absent == 1 ? "" : "s",
			absent == 1 ? "it" : "them");
	printf("%s: wrote %zu of %zu recording%s into %s\n", tool_common_esc(path), wrote,
	       n + absent, n + absent == 1 ? "" : "s", tool_common_esc(dir));
	mcz_close(r);
	return lost || absent ? 1 : 0;
}
