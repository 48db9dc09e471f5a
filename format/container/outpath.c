/* outpath.c: where a program writes the file a user named (mcz import -o,
 * mcz merge -o, mcz check --repair, mcz split's files): no tool deletes,
 * truncates or replaces what it did not write.
 *
 *     mcz_outpath o;
 *     if ((rc = mcz_outpath_begin(&o, "run.mcz")) != MCZ_OK) report(rc);
 *     if (mcz_outpath_is(&o, input)) refuse("run.mcz is the input");
 *     rc = write_everything(o.write);
 *     rc = rc ? (mcz_outpath_abort(&o), rc) : mcz_outpath_commit(&o, 0);
 *
 *  - A name that does not exist, or names a regular file (a symlink: the
 *    file it points at), is written under a new temporary name in the
 *    folder of the file it replaces, and renamed over that file only once
 *    whole: whatever fails before, the earlier file is as it was, and the
 *    temporary is removed.  A file replaced keeps its permission bits.
 *  - A character or block device (/dev/null, /dev/full, a tape) is written
 *    into, as mcrec -o does: never renamed, never removed.
 *  - A folder, a FIFO or a socket is refused (the writer seeks).
 *  - mcz_outpath_is: the output is one of the inputs, by st_dev and st_ino
 *    (through ./F, a symlink or a hard link alike): the caller refuses it
 *    before anything is written, since writing the file it reads would
 *    destroy it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../internal.h"

/* A new file beside target, made O_EXCL (never one that was there). */
static int outpath_temp(mcz_outpath *o, const char *target, mode_t mode, int keep_mode)
{
	size_t n = strlen(target) + 32;
	if (!(o->write = malloc(n)))
		return MCZ_E_NOMEM;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long r = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16);
	for (int i = 0; i < 100; i++, r = r * 1103515245ul + 12345ul) {
		snprintf(o->write, n, "%s.mcz-%06lx", target, r & 0xfffffful);
		int fd = open(o->write, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			break;
		if (keep_mode)
			fchmod(fd, mode & 07777);
		close(fd);
		return MCZ_OK;
	}
	int e = errno;
	free(o->write);
	o->write = NULL;
	return mcz_error_set(e == ENOSPC ? MCZ_E_NOSPC : MCZ_E_IO, "%s", strerror(e));
}

int mcz_outpath_begin(mcz_outpath *o, const char *path)
{
	memset(o, 0, sizeof *o);
	if (!path || !*path)
		return MCZ_E_ARG;
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return mcz_error_set(MCZ_E_IO, "%s", strerror(errno));
		struct stat l;
		if (lstat(path, &l) == 0) /* a symlink to nothing: not replaced by a file */
			return mcz_error_set(MCZ_E_ARG, "a symbolic link to a file that does not exist");
		if (!(o->target = strdup(path)))
			return MCZ_E_NOMEM;
		int rc = outpath_temp(o, path, 0, 0);
		if (rc) {
			free(o->target);
			o->target = NULL;
		}
		return rc;
	}
	o->exists = 1;
	o->dev = (uint64_t)st.st_dev;
	o->ino = (uint64_t)st.st_ino;
	if (S_ISDIR(st.st_mode))
		return mcz_error_set(MCZ_E_ISDIR, "a folder; name the file to write");
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return mcz_error_set(MCZ_E_ARG, "a pipe or socket; a recording is written to a "
						"file or a device");
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return (o->write = strdup(path)) ? MCZ_OK : MCZ_E_NOMEM;
	if (!S_ISREG(st.st_mode))
		return mcz_error_set(MCZ_E_ARG, "not a regular file or a device");
	if (!(o->target = realpath(path, NULL)))
		return mcz_error_set(MCZ_E_IO, "%s", strerror(errno));
	int rc = outpath_temp(o, o->target, st.st_mode, 1);
	if (rc) {
		free(o->target);
		o->target = NULL;
	}
	return rc;
}

int mcz_outpath_is(const mcz_outpath *o, const char *input)
{
	struct stat st;
	if (!o->exists || !input)
		return 0;
	if (stat(input, &st) != 0) { /* "JOB.mcz:NAME": the job file */
		const char *c = strrchr(input, ':');
		char p[PATH_MAX];
		if (!c || c == input || (size_t)(c - input) >= sizeof p)
			return 0;
		snprintf(p, sizeof p, "%.*s", (int)(c - input), input);
		if (stat(p, &st) != 0)
			return 0;
	}
	return (uint64_t)st.st_dev == o->dev && (uint64_t)st.st_ino == o->ino;
}

int mcz_outpath_commit(mcz_outpath *o, int keep_old)
{
	int rc = MCZ_OK;
	if (o->target) {
		struct stat st;
		if (keep_old && stat(o->target, &st) == 0 && S_ISREG(st.st_mode)) {
			size_t n = strlen(o->target) + 5;
			char *old = malloc(n);
			if (old) {
				snprintf(old, n, "%s.old", o->target);
				if (rename(o->target, old) == 0)
					o->kept_old = 1;
				free(old);
			}
		}
		if (rename(o->write, o->target) != 0) {
			rc = mcz_error_set(MCZ_E_IO, "%s", strerror(errno));
			unlink(o->write);
		}
	}
	free(o->write);
	free(o->target);
	o->write = o->target = NULL;
	return rc;
}

void mcz_outpath_abort(mcz_outpath *o)
{
	if (o->target && o->write) /* ours: the device is never removed */
		unlink(o->write);
	free(o->write);
	free(o->target);
	o->write = o->target = NULL;
}
