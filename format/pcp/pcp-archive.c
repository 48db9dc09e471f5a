/* pcp-archive.c: PCP archives opened through libpcp's archive context and
 * read record by record, several archives merged in time order.
 *
 *     pcp_archive *a; size_t n;
 *     if (pcp_archive_open_all(names, k, &a, &n, err, sizeof err)) fail(err);
 *     for (int i; (i = pcp_archive_earliest(a, n)) >= 0; pcp_archive_advance(&a[i]))
 *             use(a[i].next);                 // a pmHighResResult; numpmid 0 = <mark>
 *     pcp_archive_close_all(a, n);
 *
 * Every archive is first opened alone, to read its label; archives from one
 * host are then reopened as one multi-archive context (libpcp's own
 * "a,b,c" form), which orders their volumes and inserts <mark> records
 * between them.  If libpcp refuses the joined form (e.g. overlapping
 * archives), each archive keeps its own context.  Archives of different hosts
 * are merged here on record time.
 *
 * A record libpcp cannot read (a truncated or corrupt volume) ends that
 * archive: everything before it is kept and `status` holds the error, so
 * the importer can warn.  The .index is optional (libpcp reads a folder
 * without one), but libpcp refuses an archive whose .index is there and
 * unusable: then it is read through a private folder of links to the
 * volumes and .meta only, and `note` says so.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"

int64_t pcp_archive_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/* Remove a folder of links made by noindex_context. */
static void noindex_remove(char *dir)
{
	if (!dir)
		return;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < sizeof p)
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

/* The archive name without its .index: a private folder (mode 0700) of
 * links to NAME.meta and NAME.<volume>, compressed or not; libpcp is given
 * FOLDER/BASE.  Returns the context, or a libpcp error. */
static int noindex_context(pcp_archive *a, const char *name)
{
	char *dir = NULL, *base = NULL, *tmp = pcp_path_temp("mcz-pcp-noindex-XXXXXX");
	int c = PM_ERR_LABEL, links = 0;
	if (!tmp || pcp_path_split(name, &dir, &base) != 0 || !mkdtemp(tmp))
		goto out;
	size_t bl = strlen(base);
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *rest = e->d_name + bl;
		if (strncmp(e->d_name, base, bl) != 0 || rest[0] != '.' ||
		    pcp_path_suffix_len(rest) != strlen(rest) || !strncmp(rest, ".index", 6))
			continue;
		char from[4096], to[4096], abs[4096];
		if (!realpath(*dir ? dir : ".", abs) ||
		    (size_t)snprintf(from, sizeof from, "%s/%s", abs, e->d_name) >= sizeof from ||
		    (size_t)snprintf(to, sizeof to, "%s/%s", tmp, e->d_name) >= sizeof to)
			continue;
		links += symlink(from, to) == 0;
	}
	if (d)
		closedir(d);
	char path[4096];
	if (links && (size_t)snprintf(path, sizeof path, "%s/%s", tmp, base) < sizeof path)
		c = pmNewContext(PM_CONTEXT_ARCHIVE, path);
out:
	free(dir);
	free(base);
	if (c >= 0)
		a->noindex_dir = tmp;
	else if (tmp && links)
		noindex_remove(tmp);
	else if (tmp) {
		rmdir(tmp);
		free(tmp);
	}
	return c;
}

void pcp_no_derived(void)
{
	setenv("PCP_DERIVED_CONFIG", "", 0);
}

static int open_one(pcp_archive *a, const char *name, char *err, size_t errlen)
{
	char eb[PM_MAXERRMSGLEN];
	memset(a, 0, sizeof *a);
	a->ctx = -1;
	if (!(a->name = strdup(name)))
		return MCZ_E_NOMEM;
	int c = pmNewContext(PM_CONTEXT_ARCHIVE, name);
	struct stat st;
	if (c == -ENOENT && stat(name, &st) == 0 && S_ISREG(st.st_mode)) {
		/* libpcp's "No such file or directory" about a file that is there:
		 * it looked for the archive's NAME.meta */
		snprintf(err, errlen, "%s: not a PCP archive (no %s.meta beside it)", name, name);
		return MCZ_E_IO;
	}
	if (c < 0 && c != -ENOENT) {
		/* an .index that is there but unusable (cut, corrupt): read the
		 * archive without it, as libpcp reads one that has none */
		int c2 = noindex_context(a, name);
		if (c2 >= 0) {
			snprintf(a->note, sizeof a->note,
				 "%s: its .index is unusable (%s): read without it", name,
				 pmErrStr_r(c, eb, sizeof eb));
			c = c2;
		}
	}
	if (c < 0) {
		snprintf(err, errlen, "%s: not a readable PCP archive: %s", name,
			 pmErrStr_r(c, eb, sizeof eb));
		return MCZ_E_IO;
	}
	a->ctx = c;
	pmHighResLogLabel l;
	int rc = pmGetHighResArchiveLabel(&l);
	if (rc < 0) {
		snprintf(err, errlen, "%s: PCP archive label unreadable: %s", name,
			 pmErrStr_r(rc, eb, sizeof eb));
		return MCZ_E_CORRUPT;
	}
	snprintf(a->host, sizeof a->host, "%s", l.hostname);
	snprintf(a->tz, sizeof a->tz, "%s", l.zoneinfo[0] ? l.zoneinfo : l.timezone);
	a->version = l.magic & 0xff;
	a->start_ns = pcp_archive_ns(&l.start);
	struct timespec end;
	a->end_ns = pmGetHighResArchiveEnd(&end) >= 0 ? pcp_archive_ns(&end) : a->start_ns;
	struct timespec zero = { 0, 0 };
	if ((rc = pmSetModeHighRes(PM_MODE_FORW, &l.start, &zero)) < 0) {
		snprintf(err, errlen, "%s: cannot position PCP archive: %s", name,
			 pmErrStr_r(rc, eb, sizeof eb));
		return MCZ_E_IO;
	}
	return MCZ_OK;
}

static void close_one(pcp_archive *a)
{
	if (a->next)
		pmFreeHighResResult(a->next);
	if (a->ctx >= 0)
		pmDestroyContext(a->ctx);
	noindex_remove(a->noindex_dir);
	a->noindex_dir = NULL;
	free(a->name);
	a->next = NULL;
	a->ctx = -1;
	a->name = NULL;
}

void pcp_archive_advance(pcp_archive *a)
{
	if (a->next) {
		pmFreeHighResResult(a->next);
		a->next = NULL;
	}
	if (a->status || a->ctx < 0)
		return;
	pmUseContext(a->ctx);
	pmHighResResult *r;
	int rc = pmFetchHighResArchive(&r);
	if (rc < 0) {
		if (rc != PM_ERR_EOL)
			a->status = rc;
		return;
	}
	a->next = r;
	a->last_ns = pcp_archive_ns(&r->timestamp);
}

int pcp_archive_seek(pcp_archive *a, int64_t after_ns)
{
	if (a->ctx < 0 || a->status)
		return MCZ_OK;
	pmUseContext(a->ctx);
	struct timespec at = { (time_t)(after_ns / 1000000000LL), (long)(after_ns % 1000000000LL) };
	struct timespec zero = { 0, 0 };
	/* libpcp finds the place by the archive's .index, not by reading */
	int rc = pmSetModeHighRes(PM_MODE_FORW, &at, &zero);
	if (rc < 0)
		return MCZ_E_IO;
	do
		pcp_archive_advance(a);
	while (a->next && pcp_archive_ns(&a->next->timestamp) <= after_ns);
	return a->status ? MCZ_E_IO : MCZ_OK;
}

int pcp_archive_earliest(const pcp_archive *a, size_t n)
{
	int best = -1;
	int64_t bt = 0;
	for (size_t i = 0; i < n; i++) {
		if (!a[i].next)
			continue;
		int64_t t = pcp_archive_ns(&a[i].next->timestamp);
		if (best < 0 || t < bt) {
			best = (int)i;
			bt = t;
		}
	}
	return best;
}

void pcp_archive_close_all(pcp_archive *a, size_t n)
{
	if (!a)
		return;
	for (size_t i = 0; i < n; i++)
		close_one(&a[i]);
	free(a);
}

/* Reopen the archives of a[from..] that share a[from]'s host as one
 * context at a[from]; the others are closed and marked (ctx -2). */
static void join_host(pcp_archive *a, size_t n, size_t from)
{
	size_t len = 0, count = 0;
	for (size_t j = from; j < n; j++)
		if (a[j].ctx >= 0 && strcmp(a[j].host, a[from].host) == 0) {
			len += strlen(a[j].name) + 1;
			count++;
		}
	if (count < 2)
		return;
	char *list = malloc(len);
	if (!list)
		return;
	list[0] = '\0';
	for (size_t j = from; j < n; j++)
		if (a[j].ctx >= 0 && strcmp(a[j].host, a[from].host) == 0) {
			if (list[0])
				strcat(list, ",");
			strcat(list, a[j].name);
		}
	pcp_archive joined;
	char e[256];
	if (open_one(&joined, list, e, sizeof e) != MCZ_OK) {
		close_one(&joined); /* libpcp refused the join: keep separate contexts */
		free(list);
		return;
	}
	free(list);
	for (size_t j = from; j < n; j++)
		if (a[j].ctx >= 0 && strcmp(a[j].host, joined.host) == 0) {
			close_one(&a[j]);
			a[j].ctx = -2;
		}
	a[from] = joined;
}

int pcp_archive_open_all(char *const *names, size_t n, pcp_archive **out, size_t *nout,
			 char *err, size_t errlen)
{
	*out = NULL;
	*nout = 0;
	pcp_archive *a = calloc(n ? n : 1, sizeof *a);
	if (!a)
		return MCZ_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		int rc = open_one(&a[i], names[i], err, errlen);
		if (rc) {
			pcp_archive_close_all(a, i + 1);
			return rc;
		}
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (a[i].ctx >= 0)
			join_host(a, n, i);
	size_t k = 0; /* compact away the archives folded into a joined one */
	for (size_t i = 0; i < n; i++)
		if (a[i].ctx != -2)
			a[k++] = a[i];
	for (size_t i = 0; i < k; i++)
		pcp_archive_advance(&a[i]);
	*out = a;
	*nout = k;
	return MCZ_OK;
}
