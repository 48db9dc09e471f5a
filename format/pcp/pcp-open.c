/* pcp-open.c: the one entry that opens anything a user can name — an .mcz
 * recording, a PCP archive (by name, volume, folder or folio) or an ssh://
 * URL to one — as an mcz reader (pcp.h: pcp_open_any).  The programs call
 * this instead of deciding themselves which of libmcz and the importer a
 * path is for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"
#include "pcp.h"

/* One line for an .mcz that did not open: the OS error, or libmcz's reason
 * with its detail ("newer major version (3.0)"). */
static void open_error(const char *path, int rc, char *err, size_t errlen)
{
	const char *detail = mcz_errdetail();
	if (rc == MCZ_E_IO) /* libmcz's detail names what the OS error cannot: "a pipe, ..." */
		snprintf(err, errlen, "%s: %s", path, detail && *detail ? detail : strerror(errno));
	else if (detail && *detail && rc != MCZ_E_ISDIR && rc != MCZ_E_EMPTY)
		snprintf(err, errlen, "%s: %s (%s)", path, mcz_strerror(rc), detail);
	else
		snprintf(err, errlen, "%s: %s", path, mcz_strerror(rc));
}

int pcp_open_all(const char *path, const pcp_import_opts *o, mcz_reader ***readers,
		 char ***names, size_t *n, char *err, size_t errlen)
{
	*readers = NULL;
	*names = NULL;
	*n = 0;
	if (!pcp_ssh_is_mcz(path)) {
		*readers = calloc(1, sizeof **readers);
		*names = calloc(1, sizeof **names);
		if (!*readers || !*names || !((*names)[0] = strdup(path))) {
			free(*readers);
			free(*names);
			snprintf(err, errlen, "out of memory");
			return MCZ_E_NOMEM;
		}
		int rc = pcp_open_any(&(*readers)[0], path, o, err, errlen);
		if (rc != MCZ_OK) {
			free((*names)[0]);
			free(*readers);
			free(*names);
			*readers = NULL;
			*names = NULL;
			return rc;
		}
		*n = 1;
		return MCZ_OK;
	}
	/* Remote recordings: fetched into a private folder, each opened (the
	 * reader maps it), the folder removed at once. */
	char *tmp, **files;
	size_t nf;
	int rc = pcp_ssh_fetch_files(path, o, &tmp, &files, &nf, err, errlen);
	if (rc == MCZ_OK && nf == 0) {
		snprintf(err, errlen, "%s: no such file", path);
		rc = MCZ_E_IO;
	}
	if (rc == MCZ_OK && (!(*readers = calloc(nf, sizeof **readers)) ||
			     !(*names = calloc(nf, sizeof **names)))) {
		snprintf(err, errlen, "out of memory");
		rc = MCZ_E_NOMEM;
	}
	/* names as the user reads them: ssh://host/dir/ + the file's name */
	const char *slash = strrchr(path, '/');
	size_t pre = slash ? (size_t)(slash - path + 1) : 0;
	for (size_t i = 0; rc == MCZ_OK && i < nf; i++) {
		const char *base = strrchr(files[i], '/') + 1;
		size_t len = pre + strlen(base) + 1;
		if (!((*names)[i] = malloc(len))) {
			rc = MCZ_E_NOMEM;
			break;
		}
		snprintf((*names)[i], len, "%.*s%s", (int)pre, path, base);
		if ((rc = mcz_open(&(*readers)[i], files[i], 0)) != MCZ_OK) {
			open_error((*names)[i], rc, err, errlen);
			free((*names)[i]);
			break;
		}
		*n = i + 1;
	}
	pcp_path_free_list(files, nf);
	pcp_ssh_cleanup(tmp);
	if (rc != MCZ_OK) {
		for (size_t i = 0; i < *n; i++) {
			mcz_close((*readers)[i]);
			free((*names)[i]);
		}
		free(*readers);
		free(*names);
		*readers = NULL;
		*names = NULL;
		*n = 0;
	}
	return rc;
}

int pcp_open_any(mcz_reader **r, const char *path, const pcp_import_opts *o, char *err,
		 size_t errlen)
{
	*r = NULL;
	if (pcp_ssh_is_mcz(path)) { /* one remote recording */
		mcz_reader **rs;
		char **names;
		size_t n;
		int rc = pcp_open_all(path, o, &rs, &names, &n, err, errlen);
		if (rc != MCZ_OK)
			return rc;
		if (n == 1)
			*r = rs[0];
		else
			snprintf(err, errlen, "%s: matches %zu recordings; this takes one", path, n);
		for (size_t i = 0; i < n; i++) {
			if (n > 1)
				mcz_close(rs[i]);
			free(names[i]);
		}
		free(rs);
		free(names);
		return n == 1 ? MCZ_OK : MCZ_E_ARG;
	}
	if (!pcp_import_claims(path)) {
		int rc = mcz_open(r, path, 0);
		if (rc != MCZ_OK)
			open_error(path, rc, err, errlen);
		return rc;
	}
	if (o && o->view && pcp_path_is_ssh(path))
		return pcp_ssh_view(path, o, r, err, errlen);
	/* The viewer's conversion of a local archive, kept from an earlier
	 * open: used when the archive's files are those it was made from. */
	char *key = NULL, *ident = NULL;
	if (o && o->note && o->notelen)
		o->note[0] = '\0';
	if (o && o->view && pcp_cache_identity(path, o, &key, &ident) == MCZ_OK &&
	    pcp_cache_get(key, ident, o, r) == MCZ_OK) {
		free(key);
		free(ident);
		return MCZ_OK;
	}
	/* The entry of the archive as it was before it grew (today's
	 * pmlogger archive, opened again): shown at once, and continued
	 * behind the screen with the records added since (pcp-behind.c),
	 * not converted again. */
	int keep = key && pcp_cache_writable(o) == MCZ_OK;
	if (keep && o->pending && o->first_ms > 0) {
		/* the entry checked once (its CRC): not grown, converted below */
		keep = pcp_cache_grown(key, ident, o, -1, r) == MCZ_OK;
		if (keep && (*o->pending = pcp_behind_start(path, o, key, ident)) != 0) {
			free(key);
			free(ident);
			return MCZ_OK;
		}
		mcz_close(*r); /* no process to continue it: continued here */
		*r = NULL;
	}
	/* the same here, whole, for a snapshot or a report */
	char *ext = NULL;
	if (keep && pcp_import_extend(path, key, ident, o, &ext, err, errlen) == MCZ_OK) {
		int rc = mcz_open(r, ext, 0);
		if (rc == MCZ_OK)
			pcp_cache_put(key, ident, ext, o, o->note, o->notelen);
		unlink(ext);
		free(ext);
		if (rc == MCZ_OK) {
			free(key);
			free(ident);
			return MCZ_OK;
		}
	}
	if (errlen)
		err[0] = '\0'; /* not continued: converted whole below */
	/* A PCP source is converted into a private temporary .mcz, opened and
	 * unlinked at once: the reader maps it, so nothing is left behind
	 * however the program ends. */
	char *tmp;
	pcp_import_stats st;
	pcp_import_opts part = PCP_IMPORT_OPTS_INIT;
	if (o)
		part = *o;
	if (o && o->pending)
		*o->pending = 0;
	/* the first screen from the archive's start only when the whole can
	 * be kept in the cache and found there again (pcp-behind.c) */
	if (!key || !o || !o->pending || pcp_cache_writable(o) != MCZ_OK)
		part.first_ms = 0;
	int rc = pcp_import_temp(path, &part, &tmp, &st, err, errlen);
	if (rc != 0) {
		free(key);
		free(ident);
		return rc < 0 ? rc : MCZ_E_IO;
	}
	rc = mcz_open(r, tmp, 0);
	if (rc == MCZ_OK && st.partial && (*o->pending = pcp_behind_start(path, o, key, ident)) == 0) {
		/* no process to read the rest (fork refused): the whole, here */
		mcz_close(*r);
		*r = NULL;
		unlink(tmp);
		free(tmp);
		part.first_ms = 0;
		if ((rc = pcp_import_temp(path, &part, &tmp, &st, err, errlen)) != 0) {
			free(key);
			free(ident);
			return rc < 0 ? rc : MCZ_E_IO;
		}
		rc = mcz_open(r, tmp, 0);
		st.partial = 0;
	}
	if (rc == MCZ_OK && st.partial)
		; /* the whole goes into the cache from the process */
	else if (rc == MCZ_OK && key)
		pcp_cache_put(key, ident, tmp, o, o->note, o->notelen);
	unlink(tmp);
	free(tmp);
	free(key);
	free(ident);
	if (rc != MCZ_OK)
		open_error(path, rc, err, errlen);
	return rc;
}

char *pcp_archive_stamp(const char *src, const pcp_import_opts *o)
{
	if (!pcp_import_claims(src) || pcp_path_is_ssh(src))
		return NULL;
	return pcp_cache_stamp(src, o);
}

int pcp_convert_behind(const char *src, const pcp_import_opts *o)
{
	char *key = NULL, *ident = NULL;
	int pid = 0;
	if (!pcp_path_is_ssh(src) && pcp_cache_writable(o) == MCZ_OK &&
	    pcp_cache_identity(src, o, &key, &ident) == MCZ_OK)
		pid = pcp_behind_start(src, o, key, ident);
	free(key);
	free(ident);
	return pid;
}
