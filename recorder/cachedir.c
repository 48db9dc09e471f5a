/* cachedir.c: where mcrec keeps what it learnt about this machine between
 * runs — the hwloc topology (topology.c) and the measured ceilings
 * (ceilcache.c): $XDG_CACHE_HOME/mcz, else ~/.cache/mcz (the XDG base
 * directory rules), made on first use with mode 0700.
 *
 * A cached file is written to a temporary name in the same folder and
 * renamed into place, so that ranks of a job starting together on one
 * node never read half a file.
 */
#include "rec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rec_cache_dir(char *dir, size_t len, int create, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(dir, len, "%s/mcz", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dir, len, "%s/.cache/mcz", home);
	else {
		snprintf(err, errlen, "no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "cache path too long");
		return -1;
	}
	if (!create || mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	/* ~/.cache itself may be missing */
	char parent[4096];
	snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
	if (mkdir(parent, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", parent, strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int rec_cache_path(char *buf, size_t len, const char *name)
{
	const char *off = getenv("MCZ_NO_CACHE");
	char dir[4096], err[160];
	if ((off && *off && strcmp(off, "0")) || rec_cache_dir(dir, sizeof dir, 1, err, sizeof err))
		return -1;
	int n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
