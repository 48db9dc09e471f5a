/* cachedir.c: the user's cache folder, where the programs keep what they
 * learnt and may learn again — mcrec's topology and measured ceilings,
 * mcview's detected phases — and never in a recording (readers do not
 * write).  $XDG_CACHE_HOME/mcz, else ~/.cache/mcz (the XDG base directory
 * rules), made 0700 on first use, used only while it is a folder of the
 * user's own (never through a symbolic link).
 *
 *     char id[128];
 *     if (mcz_cachedir_identity("run.mcz", id, sizeof id) == MCZ_OK) {
 *         ... name = "phases-" + hash of (id, parameters) ...
 *         if (mcz_cachedir_load(name, &buf, &len) == MCZ_OK) use(buf), free(buf);
 *         else mcz_cachedir_store(name, buf2, len2);  // failure costs the cache only
 *     }
 *
 * A blob (load/store) is framed — magic, length, CRC32 — and written to a
 * temporary name in the folder, then renamed into place: readers of one
 * file at once (ranks of a job, two mcview) never see half of one, and a
 * damaged one is refused, never trusted in part.  Every cache file is
 * opened without blocking and must be a regular file: a FIFO or a device
 * in its place is refused at once (mcz_cachedir_open).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../internal.h"

#define BLOB_MAGIC "MCZCACH1"
#define BLOB_HEAD 20 /* magic 8, length 8, CRC32 4 (little-endian) */
#define BLOB_MAX (64u << 20)

/* The folder is the user's own: a folder (lstat: a symbolic link in its
 * place is not followed, wherever it points: a cache linked to a data
 * folder or to /etc writes and removes files there), owned by the user.
 * Absent is fine (nothing to read, made on the first write). */
static int cachedir_own(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) != 0)
		return errno == ENOENT ? MCZ_OK
				       : mcz_error_set(MCZ_E_IO, "%s: %s", dir, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return mcz_error_set(MCZ_E_IO, "%s: a symbolic link, not followed", dir);
	if (!S_ISDIR(st.st_mode))
		return mcz_error_set(MCZ_E_IO, "%s: not a folder", dir);
	if (st.st_uid != geteuid())
		return mcz_error_set(MCZ_E_IO, "%s: not owned by you", dir);
	return MCZ_OK;
}

int mcz_cachedir(char *dir, size_t len, int create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(dir, len, "%s/mcz", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dir, len, "%s/.cache/mcz", home);
	else
		return mcz_error_set(MCZ_E_NOTFOUND,
				     "no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
	if (n < 0 || (size_t)n >= len)
		return mcz_error_set(MCZ_E_ARG, "cache path too long");
	if (!create || mkdir(dir, 0700) == 0 || errno == EEXIST)
		return cachedir_own(dir);
	/* ~/.cache itself may be missing */
	char parent[4096];
	snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
	if (mkdir(parent, 0700) != 0 && errno != EEXIST)
		return mcz_error_set(MCZ_E_IO, "cannot create %s: %s", parent, strerror(errno));
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return mcz_error_set(MCZ_E_IO, "cannot create %s: %s", dir, strerror(errno));
	return cachedir_own(dir);
}

int mcz_cachedir_path(char *buf, size_t len, const char *name, int create)
{
	char dir[4096];
	int rc = mcz_cachedir(dir, sizeof dir, create);
	if (rc)
		return rc;
	int n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? mcz_error_set(MCZ_E_ARG, "cache path too long") : MCZ_OK;
}

int mcz_cachedir_open(const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return errno == ENOENT ? MCZ_E_NOTFOUND
				       : mcz_error_set(MCZ_E_IO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return mcz_error_set(MCZ_E_IO, "%s: not a regular file", path);
	}
	/* reads of a regular file never block; later ones as usual */
	fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
	return MCZ_OK;
}

int mcz_cachedir_write(const char *path, const void *buf, size_t len)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return mcz_error_set(MCZ_E_IO, "cannot write %s: %s", path, strerror(errno));
	const char *p = buf;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		left -= (size_t)w;
	}
	int e = errno;
	if (close(fd) != 0 && !left)
		left = 1, e = errno;
	if (left || rename(tmp, path) != 0) {
		if (!left)
			e = errno;
		unlink(tmp);
		return mcz_error_set(e == ENOSPC ? MCZ_E_NOSPC : MCZ_E_IO, "cannot write %s: %s", path,
				     strerror(e));
	}
	return MCZ_OK;
}

static void le_put(unsigned char *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_get(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

int mcz_cachedir_store(const char *name, const void *data, size_t len)
{
	const char *off = getenv("MCZ_NO_CACHE");
	char path[4200];
	if (off && *off && strcmp(off, "0"))
		return MCZ_E_NOTFOUND;
	if (len > BLOB_MAX)
		return MCZ_E_ARG;
	int rc = mcz_cachedir_path(path, sizeof path, name, 1);
	if (rc)
		return rc;
	unsigned char *b = malloc(BLOB_HEAD + len);
	if (!b)
		return MCZ_E_NOMEM;
	memcpy(b, BLOB_MAGIC, 8);
	le_put(b + 8, len, 8);
	le_put(b + 16, crc32(0, data, (uInt)len), 4);
	memcpy(b + BLOB_HEAD, data, len);
	rc = mcz_cachedir_write(path, b, BLOB_HEAD + len);
	free(b);
	return rc;
}

int mcz_cachedir_load(const char *name, void **data, size_t *len)
{
	const char *off = getenv("MCZ_NO_CACHE");
	char path[4200];
	*data = NULL;
	*len = 0;
	if (off && *off && strcmp(off, "0"))
		return MCZ_E_NOTFOUND;
	int fd, rc = mcz_cachedir_path(path, sizeof path, name, 0);
	if (rc || (rc = mcz_cachedir_open(path, &fd)))
		return rc;
	struct stat st;
	unsigned char head[BLOB_HEAD], *b = NULL;
	uint64_t n = 0;
	rc = MCZ_E_CORRUPT;
	if (fstat(fd, &st) == 0 && st.st_size >= BLOB_HEAD &&
	    pread(fd, head, BLOB_HEAD, 0) == BLOB_HEAD && !memcmp(head, BLOB_MAGIC, 8) &&
	    (n = le_get(head + 8, 8)) <= BLOB_MAX && (uint64_t)st.st_size == BLOB_HEAD + n &&
	    (b = malloc(n + 1)) && pread(fd, b, n, BLOB_HEAD) == (ssize_t)n &&
	    crc32(0, b, (uInt)n) == le_get(head + 16, 4))
		rc = MCZ_OK;
	close(fd);
	if (rc) {
		free(b);
		return mcz_error_set(rc, "%s: not a whole cache file", path);
	}
	*data = b;
	*len = (size_t)n;
	return MCZ_OK;
}

int mcz_cachedir_identity(const char *path, char *id, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return MCZ_E_IO;
	snprintf(id, len, "dev=%llx ino=%llu size=%lld mtime=%lld.%09ld",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		 (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	return MCZ_OK;
}
