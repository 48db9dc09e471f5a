/* pcp-ssh.c: fetch a PCP archive's files from another host with the
 * system ssh, for ssh://[user@]host[:port]/path sources.
 *
 *     char *tmp, **archives; size_t n;
 *     if (pcp_ssh_fetch("ssh://me@node7/var/log/pcp/pmlogger/node7/20261122",
 *                       &opts, &tmp, &archives, &n, err, sizeof err) == 0) {
 *             ... open archives[0..n) ...
 *     }
 *     pcp_path_free_list(archives, n);
 *     pcp_ssh_cleanup(tmp);                      // removes the private folder
 *
 * Safety: ssh is started with execvp and an argument vector, the host after
 * "--" (a host or user starting with '-' is refused anyway, so it can never
 * become an option).  ssh hands its command to the remote login shell as one
 * string, so that string is fixed — `sh -c SCRIPT mcz-fetch DIR BASE MODE`
 * — and the user's folder and base name enter it only as single-quoted
 * arguments (pcp_pull_quote in pcp-pull.c; names with control characters are
 * refused).  The
 * script never evaluates them: it cd's into DIR and lists "$BASE".meta*,
 * "$BASE".index*, "$BASE".[0-9]* (quoted, so only the '*' globs).  The
 * remote login shell must be POSIX-like (sh, bash, dash, ksh, zsh).
 *
 * Stream, on the remote stdout (a small framing of our own, so that no
 * local tar has to trust names coming from the remote):
 *
 *     MCZ-FETCH 1 NFILES TOTALBYTES\n
 *     F SIZE NAME\n  then exactly SIZE bytes (padded/cut if the file changes)
 *     ...
 *     END\n
 *
 * Lines before "MCZ-FETCH" (login banners) are skipped.  Every NAME must be
 * BASE plus a PCP suffix (or, for a folio, exactly the folio's name); files
 * are created with O_EXCL|O_NOFOLLOW in a mkdtemp folder (mode 0700).  ssh
 * reads ~/.ssh/config and uses the agent as usual; --ssh-option values are
 * passed as "-o OPT"; BatchMode=yes is added only when there is no terminal
 * to ask for a password or host key.
 *
 * Recordings (.mcz) are fetched as they are, not imported: the last part
 * of the path may be a shell pattern ("ssh://node7/scratch/run.*.mcz", the
 * rank files of a job), expanded by the remote shell with IFS empty
 * (pathname expansion only); every name sent back must match the pattern
 * (fnmatch) and hold no '/'.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"

static int bad_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int name_ok(const char *s, const char *extra)
{
	if (!*s || *s == '-')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-", *s) || strchr(extra, *s)))
			return 0;
	return 1;
}

int pcp_ssh_parse(const char *url, pcp_ssh_url *u, char *err, size_t errlen)
{
	memset(u, 0, sizeof *u);
	if (strncmp(url, "ssh://", 6) != 0) {
		snprintf(err, errlen, "%s: not an ssh:// URL", url);
		return MCZ_E_ARG;
	}
	const char *p = url + 6, *slash = strchr(p, '/');
	if (!slash || slash[1] == '\0') {
		snprintf(err, errlen, "%s: no path (expected ssh://[user@]host[:port]/path)", url);
		return MCZ_E_ARG;
	}
	char auth[400];
	size_t al = (size_t)(slash - p);
	if (al == 0 || al >= sizeof auth) {
		snprintf(err, errlen, "%s: no host (expected ssh://[user@]host[:port]/path)", url);
		return MCZ_E_ARG;
	}
	memcpy(auth, p, al);
	auth[al] = '\0';
	char *host = auth, *at = strrchr(auth, '@');
	if (at) {
		*at = '\0';
		if (!name_ok(auth, "") || strlen(auth) >= sizeof u->user) {
			snprintf(err, errlen, "%s: bad user name \"%s\"", url, auth);
			return MCZ_E_ARG;
		}
		snprintf(u->user, sizeof u->user, "%s", auth);
		host = at + 1;
	}
	char *port = NULL;
	if (host[0] == '[') { /* [IPv6] */
		char *close = strchr(host, ']');
		if (!close || (close[1] && close[1] != ':')) {
			snprintf(err, errlen, "%s: bad host", url);
			return MCZ_E_ARG;
		}
		*close = '\0';
		port = close[1] ? close + 2 : NULL;
		host++;
		if (!name_ok(host, ":%")) {
			snprintf(err, errlen, "%s: bad host \"%s\"", url, host);
			return MCZ_E_ARG;
		}
	} else {
		port = strchr(host, ':');
		if (port)
			*port++ = '\0';
		if (!name_ok(host, "")) {
			snprintf(err, errlen, "%s: bad host \"%s\"", url, host);
			return MCZ_E_ARG;
		}
	}
	snprintf(u->host, sizeof u->host, "%s", host);
	if (port) {
		char *end;
		long v = strtol(port, &end, 10);
		if (!*port || *end || v < 1 || v > 65535) {
			snprintf(err, errlen, "%s: bad port \"%s\"", url, port);
			return MCZ_E_ARG;
		}
		u->port = (int)v;
	}
	const char *path = slash;
	if (strncmp(path, "/~/", 3) == 0)
		path += 3; /* home-relative, as scp does */
	if (!*path || bad_chars(path) || strlen(path) >= sizeof u->path) {
		snprintf(err, errlen, "%s: bad path (empty, too long, or control characters)", url);
		return MCZ_E_ARG;
	}
	snprintf(u->path, sizeof u->path, "%s", path);
	return MCZ_OK;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void pcp_ssh_cleanup(char *tmpdir)
{
	if (!tmpdir)
		return;
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmpdir);
}

static char *subdir(const char *tmp, const char *name)
{
	size_t n = strlen(tmp) + strlen(name) + 2;
	char *s = malloc(n);
	if (s) {
		snprintf(s, n, "%s/%s", tmp, name);
		if (mkdir(s, 0700) != 0) {
			free(s);
			s = NULL;
		}
	}
	return s;
}

/* Fetch archive rpath (remote) into tmp/aK; its local name goes to out[k]. */
static int fetch_archive(const pcp_ssh_url *u, const pcp_import_opts *o, const char *rpath,
			 const char *tmp, size_t k, char **out, const char *what, char *err,
			 size_t errlen)
{
	char *dir, *base, sub[32];
	if (pcp_path_split(rpath, &dir, &base))
		return MCZ_E_NOMEM;
	snprintf(sub, sizeof sub, "a%zu", k);
	char *local = subdir(tmp, sub), chosen[1024];
	const char *slash = strrchr(rpath, '/');
	int rc = local ? pcp_pull_run(u, o, dir, base, slash ? slash + 1 : rpath, local, what,
				       chosen, sizeof chosen, err, errlen)
		       : MCZ_E_IO;
	if (!local)
		snprintf(err, errlen, "%s: cannot create %s/%s: %s", what, tmp, sub, strerror(errno));
	if (rc == MCZ_OK) {
		size_t n = strlen(local) + strlen(chosen) + 2;
		if ((*out = malloc(n)))
			snprintf(*out, n, "%s/%s", local, chosen);
		else
			rc = MCZ_E_NOMEM;
	}
	free(local);
	free(dir);
	free(base);
	return rc;
}

static int fetch_folio(const pcp_ssh_url *u, const pcp_import_opts *o, const char *tmp,
		       const char *url, char ***archives, size_t *n, char *err, size_t errlen)
{
	char *dir, *base;
	if (pcp_path_split(u->path, &dir, &base))
		return MCZ_E_NOMEM;
	char *local = subdir(tmp, "folio");
	char chosen[1024];
	int rc = local ? pcp_pull_run(u, o, dir, base, NULL, local, url, chosen, sizeof chosen,
				       err, errlen)
		       : MCZ_E_IO;
	char **remote = NULL;
	size_t nr = 0;
	if (rc == MCZ_OK) {
		size_t len = strlen(local) + strlen(base) + 2;
		char *path = malloc(len);
		if (path) {
			snprintf(path, len, "%s/%s", local, base);
			rc = pcp_path_folio(path, dir, &remote, &nr, err, errlen);
			if (rc == 0) {
				snprintf(err, errlen, "%s: not a PCP folio", url);
				rc = MCZ_E_CORRUPT;
			}
			rc = rc == 1 ? MCZ_OK : rc;
			free(path);
		} else
			rc = MCZ_E_NOMEM;
	}
	if (rc == MCZ_OK && !(*archives = calloc(nr, sizeof **archives)))
		rc = MCZ_E_NOMEM;
	for (size_t i = 0; rc == MCZ_OK && i < nr; i++) {
		char what[4200];
		snprintf(what, sizeof what, "%s:%s", u->host, remote[i]);
		rc = fetch_archive(u, o, remote[i], tmp, i, &(*archives)[i], what, err, errlen);
		*n = i + 1;
	}
	pcp_path_free_list(remote, nr);
	free(local);
	free(dir);
	free(base);
	return rc;
}

int pcp_ssh_fetch(const char *url, const pcp_import_opts *o, char **tmpdir, char ***archives,
		  size_t *n, char *err, size_t errlen)
{
	*tmpdir = NULL;
	*archives = NULL;
	*n = 0;
	pcp_ssh_url u;
	int rc = pcp_ssh_parse(url, &u, err, errlen);
	if (rc)
		return rc;
	char *tmp = pcp_path_temp("mcz-ssh-XXXXXX");
	if (!tmp)
		return MCZ_E_NOMEM;
	if (!mkdtemp(tmp)) { /* mkdtemp makes it mode 0700 */
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return MCZ_E_IO;
	}
	*tmpdir = tmp;
	size_t pl = strlen(u.path);
	if (pl > 6 && strcmp(u.path + pl - 6, ".folio") == 0)
		return fetch_folio(&u, o, tmp, url, archives, n, err, errlen);
	if (!(*archives = calloc(1, sizeof **archives)))
		return MCZ_E_NOMEM;
	*n = 1;
	return fetch_archive(&u, o, u.path, tmp, 0, &(*archives)[0], url, err, errlen);
}

int pcp_ssh_is_mcz(const char *url)
{
	if (!pcp_path_is_ssh(url))
		return 0;
	size_t n = strlen(url);
	return n > 4 && strcmp(url + n - 4, ".mcz") == 0;
}

static int cmp_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b); /* run.9 before run.10 */
}

int pcp_ssh_fetch_files(const char *url, const pcp_import_opts *o, char **tmpdir, char ***files,
			size_t *n, char *err, size_t errlen)
{
	*tmpdir = NULL;
	*files = NULL;
	*n = 0;
	pcp_ssh_url u;
	int rc = pcp_ssh_parse(url, &u, err, errlen);
	if (rc)
		return rc;
	char *slash = strrchr(u.path, '/');
	const char *base = slash ? slash + 1 : u.path;
	char dir[sizeof u.path];
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - u.path) : 1, slash ? u.path : ".");
	if (!dir[0])
		snprintf(dir, sizeof dir, "/");
	char *tmp = pcp_path_temp("mcz-ssh-XXXXXX");
	if (!tmp)
		return MCZ_E_NOMEM;
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return MCZ_E_IO;
	}
	*tmpdir = tmp;
	char chosen[1024];
	rc = pcp_pull_run_mode(&u, o, dir, base, NULL, PCP_FETCH_GLOB, tmp, url, chosen,
				sizeof chosen, err, errlen);
	if (rc != MCZ_OK)
		return rc;
	DIR *d = opendir(tmp);
	if (!d) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return MCZ_E_IO;
	}
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			char **nv = realloc(*files, nc * sizeof *nv);
			if (!nv)
				break;
			*files = nv;
			cap = nc;
		}
		size_t len = strlen(tmp) + strlen(e->d_name) + 2;
		if (!((*files)[*n] = malloc(len)))
			break;
		snprintf((*files)[(*n)++], len, "%s/%s", tmp, e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*files, *n, sizeof **files, cmp_version);
	return MCZ_OK;
}
