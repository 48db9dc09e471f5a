/* inpaths.c: the recordings a user names on a command line, each folder and
 * list file replaced by the paths it names, so that the 65,536 rank files
 * of a job are given in one word (the shell's argument list holds far fewer:
 * ARG_MAX), and mcview and mcz merge read the same set from the same words.
 *
 *     char **p;
 *     size_t n;
 *     if ((rc = mcz_inpaths_expand(argv + i, argc - i, 0, &p, &n)) != MCZ_OK)
 *             die("%s", mcz_errdetail());      // "runs: no .mcz file in this folder"
 *     for (size_t k = 0; k < n; k++) open_recording(p[k]);
 *     mcz_inpaths_free(p);
 *
 *  - DIR, a folder: its regular files (or links to one) whose names end in
 *    ".mcz", hidden ones (.NAME) left out as a glob leaves them, in
 *    name order with runs of digits compared as numbers (strverscmp):
 *    run.2.mcz before run.10.mcz, as ranks count.  Its subfolders are not
 *    looked into.  A folder with none is refused, and when it holds PCP
 *    archive files the line says how one is opened (by its base name); with
 *    MCZ_INPATHS_PCP_DIR such a folder is kept as one word instead, for the
 *    viewer, which opens a folder of archives.
 *  - @FILE: the paths FILE lists, one a line, as compilers take response
 *    files: blanks around a path are not part of it, blank lines and lines
 *    starting with '#' are skipped, "@-" reads the list from standard input.
 *    A relative path is relative to the current folder, as on the command
 *    line.  A path listed may be a folder or a list itself, at most
 *    INPATHS_DEPTH deep (a list that names itself is refused).  A word
 *    starting with '@' that names a file itself is that file.
 *  - Any other word stays as it is (a file, JOB.mcz:NAME, a PCP archive's
 *    name, an ssh:// URL): what opens it says what is wrong with it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../internal.h"

/* Lists within lists: deeper than this is a list that names itself. */
#define INPATHS_DEPTH 8

typedef struct inpaths {
	char **v;
	size_t n, cap;
} inpaths;

static int inpaths_push(inpaths *a, char *s)
{
	if (!s)
		return MCZ_E_NOMEM;
	if (a->n + 1 >= a->cap) { /* room for the NULL at the end */
		size_t nc = a->cap ? 2 * a->cap : 64;
		char **v = realloc(a->v, nc * sizeof *v);
		if (!v) {
			free(s);
			return MCZ_E_NOMEM;
		}
		a->v = v;
		a->cap = nc;
	}
	a->v[a->n++] = s;
	return MCZ_OK;
}

static int inpaths_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int inpaths_suffix(const char *name, const char *suf)
{
	size_t n = strlen(name), k = strlen(suf);
	return n > k && !strcmp(name + n - k, suf);
}

/* Length of name without a PCP metadata file's suffix (".meta", maybe
 * compressed), 0 when it is not one. */
static size_t inpaths_pcp_meta(const char *name)
{
	static const char *const sufs[] = {".meta",	".meta.xz",  ".meta.gz",
					   ".meta.bz2", ".meta.zst", ".meta.lzma"};
	for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++)
		if (inpaths_suffix(name, sufs[i]))
			return strlen(name) - strlen(sufs[i]);
	return 0;
}

static char *inpaths_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), len = dl + strlen(name) + 2;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", name);
	return s;
}

/* 1: dir/name is a regular file, or a link to one. */
static int inpaths_regular(const char *dir, const struct dirent *e)
{
	if (e->d_type == DT_REG)
		return 1;
	if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
		return 0;
	char *p = inpaths_join(dir, e->d_name);
	struct stat st;
	int reg = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return reg;
}

/* The .mcz files of a folder, in number order, appended to out. */
static int inpaths_dir(const char *dir, unsigned flags, inpaths *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return mcz_error_set(MCZ_E_IO, "%s: %s", dir, strerror(errno));
	inpaths names = {0};
	char *pcp = NULL; /* the first PCP metadata file, in name order */
	int rc = MCZ_OK;
	struct dirent *e;
	while (rc == MCZ_OK && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (inpaths_suffix(e->d_name, ".mcz")) {
			if (inpaths_regular(dir, e))
				rc = inpaths_push(&names, strdup(e->d_name));
		} else if (inpaths_pcp_meta(e->d_name) &&
			   (!pcp || strverscmp(e->d_name, pcp) < 0)) {
			free(pcp);
			if (!(pcp = strdup(e->d_name)))
				rc = MCZ_E_NOMEM;
		}
	}
	closedir(d);
	if (rc == MCZ_OK && names.n == 0) {
		if (pcp && (flags & MCZ_INPATHS_PCP_DIR))
			rc = inpaths_push(out, strdup(dir));
		else if (pcp) {
			size_t dl = strlen(dir);
			rc =
			    mcz_error_set(MCZ_E_NOTFOUND,
					  "%s: no .mcz file in this folder (it holds PCP archives, "
					  "which open by their base name: %s%s%.*s)",
					  dir, dir, dl && dir[dl - 1] == '/' ? "" : "/",
					  (int)inpaths_pcp_meta(pcp), pcp);
		} else
			rc = mcz_error_set(MCZ_E_NOTFOUND, "%s: no .mcz file in this folder", dir);
	}
	free(pcp);
	if (rc == MCZ_OK && names.n > 1)
		qsort(names.v, names.n, sizeof *names.v, inpaths_cmp);
	for (size_t i = 0; i < names.n; i++) {
		if (rc == MCZ_OK)
			rc = inpaths_push(out, inpaths_join(dir, names.v[i]));
		free(names.v[i]);
	}
	free(names.v);
	return rc;
}

static int inpaths_word(const char *w, unsigned flags, int depth, inpaths *out);

/* The paths list (its name as typed, with its '@') names, appended to out;
 * a failure within it is said with the line that named it. */
static int inpaths_list(const char *at, unsigned flags, int depth, inpaths *out)
{
	const char *name = at + 1;
	if (depth >= INPATHS_DEPTH)
		return mcz_error_set(MCZ_E_ARG,
				     "%s: lists within lists more than %d deep (a list "
				     "that names itself?)",
				     at, INPATHS_DEPTH);
	int std = !strcmp(name, "-");
	FILE *f = std ? stdin : fopen(name, "r");
	if (!f)
		return mcz_error_set(MCZ_E_IO, "%s: %s", at, strerror(errno));
	char *line = NULL;
	size_t cap = 0, lineno = 0, before = out->n;
	ssize_t len;
	int rc = MCZ_OK;
	while (rc == MCZ_OK && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		char *s = line, *end = line + len;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		while (end > s &&
		       (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (!*s || *s == '#')
			continue;
		rc = inpaths_word(s, flags, depth + 1, out);
		/* the line that named it; a list too deep is said once, by the outermost */
		if (rc != MCZ_OK && rc != MCZ_E_NOMEM && (rc != MCZ_E_ARG || depth == 0)) {
			char why[1024];
			snprintf(why, sizeof why, "%s", mcz_errdetail());
			mcz_error_set(rc, "%s, line %zu: %s", at, lineno, why);
		}
	}
	if (rc == MCZ_OK && ferror(f))
		rc = mcz_error_set(MCZ_E_IO, "%s: %s", at, strerror(errno));
	if (rc == MCZ_OK && out->n == before)
		rc = mcz_error_set(MCZ_E_NOTFOUND, "%s: lists no recording", at);
	free(line);
	if (!std)
		fclose(f);
	return rc;
}

static int inpaths_word(const char *w, unsigned flags, int depth, inpaths *out)
{
	struct stat st;
	int there = stat(w, &st) == 0;
	if (w[0] == '@' && w[1] && !there)
		return inpaths_list(w, flags, depth, out);
	if (there && S_ISDIR(st.st_mode))
		return inpaths_dir(w, flags, out);
	return inpaths_push(out, strdup(w));
}

int mcz_inpaths_expand(const char *const *words, size_t nwords, unsigned flags, char ***paths,
		       size_t *n)
{
	*paths = NULL;
	*n = 0;
	mcz_error_clear();
	inpaths out = {0};
	int rc = MCZ_OK;
	for (size_t i = 0; i < nwords && rc == MCZ_OK; i++)
		rc = inpaths_word(words[i], flags, 0, &out);
	if (rc == MCZ_OK && !out.v && !(out.v = calloc(1, sizeof *out.v)))
		rc = MCZ_E_NOMEM;
	if (out.v) /* inpaths_push keeps room for it */
		out.v[out.n] = NULL;
	if (rc != MCZ_OK) {
		if (rc == MCZ_E_NOMEM)
			mcz_error_set(rc, "out of memory");
		mcz_inpaths_free(out.v);
		return rc;
	}
	*paths = out.v;
	*n = out.n;
	return MCZ_OK;
}

void mcz_inpaths_free(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}
