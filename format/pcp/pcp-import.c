/* pcp-import.c: the entry points of libmczpcp (pcp.h) — decide what
 * a source name is (ssh URL, folio, archive), fetch or expand it, and hand
 * the local archive names to pcp_convert().  Also the progress printer
 * programs may pass as opts->progress (the only output of the library, and
 * only when a program asks for it).
 *
 *     if (pcp_import_claims(path))
 *             rc = pcp_import(path, "run.mcz", &opts, &stats, err, sizeof err);
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"

void pcp_import_progress_tty(void *arg, const char *line, int final)
{
	(void)arg;
	if (!isatty(2))
		return;
	if (final)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
}

/* 1 if the last dot-part(s) of name are a PCP file suffix. */
static int has_pcp_suffix(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *b = slash ? slash + 1 : name;
	for (const char *p = b + 1; *p; p++)
		if (*p == '.' && pcp_path_suffix_len(p) == strlen(p))
			return 1;
	return 0;
}

static int exists_with(const char *base, const char *suffix)
{
	char path[4096];
	struct stat st;
	return snprintf(path, sizeof path, "%s%s", base, suffix) < (int)sizeof path &&
	       stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int dir_has_archive(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int found = 0;
	while (!found && (e = readdir(d)) != NULL) {
		const char *m = strstr(e->d_name, ".meta");
		found = m && m != e->d_name && pcp_path_suffix_len(m) == strlen(m);
	}
	closedir(d);
	return found;
}

int pcp_import_claims(const char *src)
{
	if (!src || !*src)
		return 0;
	if (pcp_path_is_ssh(src))
		return !pcp_ssh_is_mcz(src); /* remote .mcz files are fetched, not imported */
	const char *comma = strchr(src, ',');
	if (comma) { /* libpcp's "a,b,c" list: claimed if its first member is */
		char first[4096];
		size_t n = (size_t)(comma - src);
		if (n == 0 || n >= sizeof first)
			return 0;
		memcpy(first, src, n);
		first[n] = '\0';
		return pcp_import_claims(first);
	}
	struct stat st;
	if (stat(src, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return dir_has_archive(src);
		if (!S_ISREG(st.st_mode))
			return 0;
		char **a;
		size_t n;
		char e[8];
		int f = pcp_path_folio(src, NULL, &a, &n, e, sizeof e);
		if (f == 1)
			pcp_path_free_list(a, n);
		return f != 0 || has_pcp_suffix(src);
	}
	static const char *const meta[] = { ".meta", ".meta.xz", ".meta.gz", ".meta.bz2",
					    ".meta.zst", ".meta.lzma" };
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++)
		if (exists_with(src, meta[i]))
			return 1;
	return 0;
}

static int import_to(const char *src, const char *out_path, int out_fd, const pcp_import_opts *o,
		     pcp_import_stats *stats, char *err, size_t errlen)
{
	char **a = NULL;
	size_t n = 0;
	int rc;
	if (pcp_path_is_ssh(src)) {
		char *tmp = NULL;
		rc = pcp_ssh_fetch(src, o, &tmp, &a, &n, err, errlen);
		if (rc == MCZ_OK)
			rc = pcp_convert(a, n, src, out_path, out_fd, o, stats, err, errlen);
		pcp_path_free_list(a, n);
		pcp_ssh_cleanup(tmp);
		return rc;
	}
	rc = pcp_path_folio(src, NULL, &a, &n, err, errlen);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		rc = pcp_convert(a, n, src, out_path, out_fd, o, stats, err, errlen);
		pcp_path_free_list(a, n);
		return rc;
	}
	char *one[] = { (char *)src };
	return pcp_convert(one, 1, src, out_path, out_fd, o, stats, err, errlen);
}

/* While an import runs, SIGINT, SIGTERM and SIGHUP only set pcp_import_stop:
 * the loops stop, the temporary folder and files are removed, the caller's
 * own handling is restored, and then the signal is raised again, so that
 * mcz or mcview end as they would have, leaving nothing behind. */
volatile sig_atomic_t pcp_import_stop;
int pcp_sync_ms;
char *pcp_sync_name;
size_t pcp_sync_len;
static const int guarded[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	pcp_import_stop = sig;
}

static void guard(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	pcp_import_stop = 0;
	for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++)
		if (sigaction(guarded[i], &sa, &old[i]) == 0 && old[i].sa_handler == SIG_IGN)
			sigaction(guarded[i], &old[i], NULL); /* ignored by the caller: stays so */
}

static void unguard(const struct sigaction *old)
{
	for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++)
		sigaction(guarded[i], &old[i], NULL);
	int sig = pcp_import_stop;
	pcp_import_stop = 0;
	if (sig)
		raise(sig);
}

/* The output is one of src's files (x.0 -o x.0, through a link alike):
 * refused, since writing it would destroy what is read. */
static int import_is_input(const mcz_outpath *op, const char *src, const char *out_path,
			   char *err, size_t errlen)
{
	char *files = op->exists ? pcp_cache_files(src) : NULL;
	int same = 0;
	for (char *p = files, *nl; p && *p && !same; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = '\0';
		same = mcz_outpath_is(op, p);
	}
	free(files);
	if (same)
		snprintf(err, errlen, "%s: a file of the archive %s; give another -o", out_path,
			 src);
	return same;
}

/* The temporary name is ours: err names the file as the user named it. */
static void name_as_given(char *err, size_t errlen, const char *tmp, const char *given)
{
	char *at = strstr(err, tmp);
	size_t tl = strlen(tmp), gl = strlen(given), rest = at ? strlen(at + tl) : 0;
	if (!at || (size_t)(at - err) + gl + rest >= errlen)
		return;
	memmove(at + gl, at + tl, rest + 1);
	memcpy(at, given, gl);
}

/* Written beside out_path and renamed over it only once whole
 * (format/container/outpath.c): an earlier file survives every failure, a device is
 * written into and never removed. */
int pcp_import(const char *src, const char *out_path, const pcp_import_opts *o,
	       pcp_import_stats *stats, char *err, size_t errlen)
{
	mcz_outpath op;
	int rc = mcz_outpath_begin(&op, out_path);
	if (rc) {
		snprintf(err, errlen, "%s: %s", out_path,
			 *mcz_errdetail() ? mcz_errdetail() : mcz_strerror(rc));
		return rc;
	}
	if (import_is_input(&op, src, out_path, err, errlen)) {
		mcz_outpath_abort(&op);
		return MCZ_E_ARG;
	}
	struct sigaction old[3];
	guard(old);
	rc = import_to(src, op.write, -1, o, stats, err, errlen);
	if (!rc && pcp_import_stop) {
		snprintf(err, errlen, "interrupted");
		rc = MCZ_E_IO;
	}
	if (rc) {
		name_as_given(err, errlen, op.write, out_path);
		mcz_outpath_abort(&op);
	} else if ((rc = mcz_outpath_commit(&op, 0)) != MCZ_OK)
		snprintf(err, errlen, "%s: %s", out_path, mcz_errdetail());
	unguard(old);
	return rc;
}

/* A new private temporary .mcz (see pcp_import_temp): its name in *path. */
static int temp_out(char **path, int *fd, char *err, size_t errlen)
{
	*path = pcp_path_temp("mcz-pcp-XXXXXX.mcz");
	if (!*path)
		return MCZ_E_NOMEM;
	*fd = mkstemps(*path, 4);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", *path, strerror(errno));
		free(*path);
		*path = NULL;
		return MCZ_E_IO;
	}
	return MCZ_OK;
}

int pcp_ssh_view(const char *url, const pcp_import_opts *o, mcz_reader **r, char *err,
		 size_t errlen)
{
	*r = NULL;
	struct sigaction old[3];
	guard(old);
	char *tmp = NULL, **a = NULL, *key = NULL, *ident = NULL, *out = NULL;
	size_t n = 0;
	int fd = -1, rc = pcp_ssh_fetch(url, o, &tmp, &a, &n, err, errlen);
	if (rc == MCZ_OK && pcp_cache_identity_fetched(url, tmp, o, &key, &ident) == MCZ_OK &&
	    pcp_cache_get(key, ident, o, r) == MCZ_OK)
		goto out; /* fetched again, converted once */
	if (rc == MCZ_OK && (rc = temp_out(&out, &fd, err, errlen)) == MCZ_OK &&
	    (rc = pcp_convert(a, n, url, out, fd, o, NULL, err, errlen)) == MCZ_OK &&
	    (rc = mcz_open(r, out, 0)) != MCZ_OK)
		snprintf(err, errlen, "%s: %s", url, mcz_strerror(rc));
	if (rc == MCZ_OK && key)
		pcp_cache_put(key, ident, out, o, o->note, o->notelen);
out:
	if (fd >= 0)
		close(fd);
	if (out)
		unlink(out);
	free(out);
	free(key);
	free(ident);
	pcp_path_free_list(a, n);
	pcp_ssh_cleanup(tmp);
	unguard(old);
	return rc;
}

int pcp_import_temp(const char *src, const pcp_import_opts *o, char **out_path,
		    pcp_import_stats *stats, char *err, size_t errlen)
{
	char *path;
	int fd, rc0 = temp_out(&path, &fd, err, errlen);
	if (rc0)
		return rc0;
	if (pcp_sync_name && pcp_sync_len)
		snprintf(pcp_sync_name, pcp_sync_len, "%s", path);
	struct sigaction old[3];
	guard(old);
	int rc = import_to(src, path, fd, o, stats, err, errlen);
	close(fd);
	if (!rc && pcp_import_stop) { /* stopped as it ended (its copy without
					 PART blocks, pcp_sync_ms): nothing is left */
		snprintf(err, errlen, "interrupted");
		rc = MCZ_E_IO;
	}
	if (rc) {
		unlink(path);
		free(path);
		unguard(old);
		return rc;
	}
	unguard(old);
	*out_path = path;
	return MCZ_OK;
}

int pcp_import_extend(const char *src, const char *key, const char *ident,
		      const pcp_import_opts *o, char **out_path, char *err, size_t errlen)
{
	*out_path = NULL;
	if (pcp_path_is_ssh(src))
		return MCZ_E_NOTFOUND;
	char *path;
	int fd, rc = temp_out(&path, &fd, err, errlen);
	if (rc)
		return rc;
	rc = pcp_cache_grown(key, ident, o, fd, NULL);
	close(fd);
	/* the rest whole: an entry is never the start of what was added */
	pcp_import_opts w = o ? *o : (pcp_import_opts)PCP_IMPORT_OPTS_INIT;
	w.first_ms = 0;
	struct sigaction old[3];
	guard(old);
	if (rc == MCZ_OK) {
		if (pcp_sync_name && pcp_sync_len)
			snprintf(pcp_sync_name, pcp_sync_len, "%s", path);
		char **a = NULL, *one[] = { (char *)src };
		size_t n = 0;
		int f = pcp_path_folio(src, NULL, &a, &n, err, errlen);
		rc = f < 0 ? f
		     : pcp_convert_resume(f == 1 ? a : one, f == 1 ? n : 1, src, path, &w, NULL, err,
					  errlen);
		if (f == 1)
			pcp_path_free_list(a, n);
		if (!rc && pcp_import_stop) {
			snprintf(err, errlen, "interrupted");
			rc = MCZ_E_IO;
		}
	}
	if (rc) {
		unlink(path);
		free(path);
	} else {
		*out_path = path;
	}
	unguard(old);
	return rc;
}
