/* pcp-path.c: naming PCP archives — volume and compression suffixes, the
 * split of a name into folder and base name (for fetching over ssh), and
 * pmafm folios.
 *
 *     char *dir, *base;
 *     pcp_path_split("/var/log/pcp/x/20261122.0.xz", &dir, &base);  // "/var/log/pcp/x", "20261122"
 *     char **a; size_t n;
 *     if (pcp_path_folio("run.folio", NULL, &a, &n, err, sizeof err) == 1) ...  // archives listed
 *
 * libpcp itself opens an archive by base name, volume, .meta or .index, so
 * local names are handed to it unchanged.  Folios are text files written by
 * pmlogger/pmchart and read by the pmafm shell script; libpcp has no API for
 * them, hence this small parser of the documented format:
 *
 *     PCPFolio
 *     Version: 1
 *     # comments
 *     Archive:  HOST  BASENAME     (relative to the folio's folder)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"

#define FOLIO_MAX (1 << 20) /* a folio lists archives: 1 MiB is plenty */

int pcp_path_is_ssh(const char *path)
{
	return strncmp(path, "ssh://", 6) == 0;
}

static size_t compress_len(const char *s)
{
	static const char *const ext[] = { ".xz", ".gz", ".bz2", ".zst", ".lzma" };
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (strcmp(s, ext[i]) == 0)
			return strlen(ext[i]);
	return 0;
}

size_t pcp_path_suffix_len(const char *s)
{
	size_t n = 0;
	if (strncmp(s, ".meta", 5) == 0)
		n = 5;
	else if (strncmp(s, ".index", 6) == 0)
		n = 6;
	else if (s[0] == '.' && s[1] >= '0' && s[1] <= '9') {
		n = 1; /* volumes are numbered "%d": no leading zero */
		while (s[n] >= '0' && s[n] <= '9')
			n++;
		if (s[1] == '0' && n > 2)
			return 0;
	} else
		return 0;
	if (s[n] == '\0')
		return n;
	size_t c = compress_len(s + n);
	return c ? n + c : 0;
}

int pcp_path_split(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	*dir = slash ? (slash == path ? strdup("/") : strndup(path, (size_t)(slash - path)))
		     : strdup(".");
	size_t bl = strlen(b);
	/* the suffix is the last ".meta", ".index" or ".N" (+ compression) */
	for (size_t i = 1; i < bl; i++)
		if (b[i] == '.' && pcp_path_suffix_len(b + i) == bl - i) {
			bl = i;
			break;
		}
	*base = strndup(b, bl);
	if (!*dir || !*base) {
		free(*dir);
		free(*base);
		*dir = *base = NULL;
		return MCZ_E_NOMEM;
	}
	return MCZ_OK;
}

char *pcp_path_temp(const char *pattern)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	size_t len = strlen(dir) + strlen(pattern) + 2;
	char *path = malloc(len);
	if (path)
		snprintf(path, len, "%s/%s", dir, pattern);
	return path;
}

void pcp_path_free_list(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static char *join(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir || !*dir || strcmp(dir, ".") == 0)
		return strdup(name);
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", dir, name);
	return s;
}

int pcp_path_folio_parse(const char *text, size_t len, const char *dir, char ***archives,
			 size_t *n, char *err, size_t errlen)
{
	*archives = NULL;
	*n = 0;
	if (len < 8 || memcmp(text, "PCPFolio", 8) != 0) {
		snprintf(err, errlen, "not a PCP folio (no \"PCPFolio\" first line)");
		return MCZ_E_CORRUPT;
	}
	char **v = NULL;
	size_t nv = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char line[1024];
		size_t ll = (size_t)(le - p);
		const char *start = p;
		p = nl ? nl + 1 : end;
		if (ll >= sizeof line)
			continue;
		memcpy(line, start, ll);
		line[ll] = '\0';
		char host[256], name[768];
		if (strncmp(line, "Archive:", 8) != 0 ||
		    sscanf(line + 8, "%255s %767s", host, name) != 2)
			continue;
		char **nvv = realloc(v, (nv + 1) * sizeof *v);
		char *full = nvv ? join(dir, name) : NULL;
		if (!full) {
			pcp_path_free_list(nvv ? nvv : v, nv);
			return MCZ_E_NOMEM;
		}
		v = nvv;
		v[nv++] = full;
	}
	if (nv == 0) {
		snprintf(err, errlen, "PCP folio lists no archive (no \"Archive:\" line)");
		return MCZ_E_CORRUPT;
	}
	*archives = v;
	*n = nv;
	return MCZ_OK;
}

int pcp_path_folio(const char *path, const char *join_dir, char ***archives, size_t *n, char *err,
		   size_t errlen)
{
	/* one open and read of 8 bytes for a file that is no folio, without
	 * stdio's buffer: a job of thousands of rank files asks it of each */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	char head[8];
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, head, 8, 0) != 8 ||
	    memcmp(head, "PCPFolio", 8) != 0) {
		close(fd);
		return 0;
	}
	if (st.st_size > FOLIO_MAX) {
		close(fd);
		snprintf(err, errlen, "%s: PCP folio larger than 1 MiB", path);
		return MCZ_E_CORRUPT;
	}
	size_t len = (size_t)st.st_size, got = 0;
	char *text = malloc(len + 1);
	if (!text) {
		close(fd);
		return MCZ_E_NOMEM;
	}
	for (ssize_t k; got < len && (k = pread(fd, text + got, len - got, (off_t)got)) > 0;)
		got += (size_t)k;
	close(fd);
	len = got;
	char *dir, *base;
	int rc = pcp_path_split(path, &dir, &base);
	if (rc == MCZ_OK) {
		char e[256];
		rc = pcp_path_folio_parse(text, len, join_dir ? join_dir : dir, archives, n, e,
					  sizeof e);
		if (rc)
			snprintf(err, errlen, "%s: %s", path, e);
		free(dir);
		free(base);
	}
	free(text);
	return rc ? rc : 1;
}
