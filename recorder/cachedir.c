/* cachedir.c: where mcrec keeps what it learnt about this machine between
 * runs (the hwloc topology, measured ceilings): $XDG_CACHE_HOME/mcz, else
 * ~/.cache/mcz (the XDG base directory rules), made on first use with mode
 * 0700.  MCZ_NO_CACHE=1 turns the cache off (every run discovers afresh).
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

int rec_cache_path(char *buf, size_t len, const char *name)
{
	const char *off = getenv("MCZ_NO_CACHE");
	if (off && *off && strcmp(off, "0"))
		return -1;
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[4096];
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(dir, sizeof dir, "%s/mcz", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dir, sizeof dir, "%s/.cache/mcz", home);
	else
		return -1;
	if (n < 0 || (size_t)n >= sizeof dir)
		return -1;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		/* ~/.cache itself may be missing */
		char parent[4096];
		snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
		if (mkdir(parent, 0700) != 0 && errno != EEXIST)
			return -1;
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
	}
	n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
