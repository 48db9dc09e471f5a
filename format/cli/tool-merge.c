/* tool-merge.c: `mcz merge FILE... -o JOB.mcz` and `mcz split JOB.mcz`: the
 * rank files of a parallel job into one job file (SPEC.md 5.9: each rank's
 * recording kept byte for byte in a MEMBER block, so every stream and mark
 * keeps its rank, host and clock); tool-split.c gives them back.
 *
 * One file instead of 1,024 is what a parallel file system and a copy to a
 * laptop want; mcview reads the ranks inside it as it reads the rank files.
 * What the files say about their job is checked and said in one line each
 * (ranks of several jobs, a rank twice, ranks missing, a recording cut by a
 * crash), never silently fixed: every input is kept as it is.
 *
 * A FILE may be a folder (its .mcz files) or @LIST (the paths it lists):
 * format/container/inpaths.c.  Each input is opened, what the merge needs
 * is kept (rank, job, nranks, index state, clock, a job file's member
 * names and where their bytes are), and it is closed before the next, so
 * that 65,536 ranks are merged with one file open and mapped at a time;
 * the job file is then written from them in order (tool-merge-out.c).
 * Every step is linear or n log n in the inputs: a file given twice found
 * by sorting identities, names made unique by hashing
 * (tool-merge-names.c).
 *
 *     mcz merge run.*.mcz -o job.mcz
 *     mcz merge ranks/ -o job.mcz
 *     mcz split job.mcz -o ranks/
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool-merge.h"
#include "tool.h"

static int merge_cmp(const void *a, const void *b)
{
	const merge_in *x = a, *y = b;
	int c = strcmp(x->job, y->job);
	if (c)
		return c;
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const char *merge_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Say, one line each, what the set of recordings looks like as a job. */
static void merge_notes(const merge_in *in, size_t n)
{
	size_t njobs = 0;
	for (size_t i = 0; i < n; i++)
		njobs += i == 0 || strcmp(in[i].job, in[i - 1].job) != 0;
	if (njobs > 1) {
		fprintf(stderr, "mcz merge: note: recordings of %zu jobs:", njobs);
		for (size_t i = 0, k = 0; i < n; i = k) {
			for (k = i; k < n && !strcmp(in[k].job, in[i].job); k++)
				;
			fprintf(stderr, "%s %s (%zu)", i ? "," : "",
				*in[i].job ? in[i].job : "no job id", k - i);
		}
		fprintf(stderr, "; merged together, mcview shows them as separate jobs\n");
	}
	for (size_t i = 0, k = 0; i < n; i = k) {
		for (k = i; k < n && !strcmp(in[k].job, in[i].job); k++)
			if (k > i && in[k].rank >= 0 && in[k].rank == in[k - 1].rank)
				fprintf(stderr,
					"mcz merge: note: rank %ld twice (%s and %s): both kept\n",
					in[k].rank, in[k - 1].name, in[k].name);
		/* ranks missing: against nranks where the files say it */
		long size = in[i].nranks;
		if (size <= 0 || size > 1 << 24)
			continue;
		size_t missing = 0;
		long first = -1;
		for (long rk = 0, j = (long)i; rk < size; rk++) {
			while (j < (long)k && in[j].rank >= 0 && in[j].rank < rk)
				j++;
			if (j < (long)k && in[j].rank == rk)
				continue;
			if (!missing++)
				first = rk;
		}
		if (missing)
			fprintf(stderr,
				"mcz merge: note: %zu of %ld ranks missing%s%s (first: rank %ld)\n",
				missing, size, *in[i].job ? " in job " : "", in[i].job, first);
	}
	for (size_t i = 0; i < n; i++)
		if (in[i].recovered)
			fprintf(stderr,
				"mcz merge: note: %s has no index (its recorder was killed, or it "
				"is damaged): kept as it is, %" PRIu64 " rows readable\n",
				in[i].name, in[i].nrows);
}

/* A path given: what it is, found before any is opened. */
typedef struct merge_given {
	uint64_t dev, ino, size;
	size_t i;  /* its place in the order given */
	int have;  /* stat found it (not so for JOB.mcz:NAME) */
	int twice; /* the same file as one given before it: taken once */
} merge_given;

static int merge_given_cmp(const void *a, const void *b)
{
	const merge_given *x = a, *y = b;
	if (x->have != y->have)
		return x->have ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int merge_given_order(const void *a, const void *b)
{
	const merge_given *x = a, *y = b;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The same file twice (run.*.mcz run.1.mcz, job.mcz job.mcz, a link to
 * it): by identity, sorted, each after the first marked twice. */
static merge_given *merge_identities(char *const *paths, size_t n)
{
	merge_given *g = calloc(n ? n : 1, sizeof *g);
	if (!g)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		g[i].i = i;
		if ((g[i].have = stat(paths[i], &st) == 0)) {
			g[i].dev = (uint64_t)st.st_dev;
			g[i].ino = (uint64_t)st.st_ino;
			g[i].size = (uint64_t)st.st_size;
		}
	}
	qsort(g, n, sizeof *g, merge_given_cmp);
	for (size_t i = 1; i < n; i++)
		g[i].twice = g[i].have && g[i - 1].have && g[i].dev == g[i - 1].dev &&
			     g[i].ino == g[i - 1].ino;
	qsort(g, n, sizeof *g, merge_given_order);
	return g;
}

/* What the merge needs of the recording r reads, into e. */
static int merge_keep(merge_in *e, const mcz_reader *r)
{
	const char *rk = mcz_meta(r, "rank"), *jb = mcz_meta(r, "job"), *sz = mcz_meta(r, "nranks");
	char *end = NULL;
	e->rank = rk ? strtol(rk, &end, 10) : -1;
	if (rk && (end == rk || *end || e->rank < 0))
		e->rank = -1;
	e->nranks = sz ? strtol(sz, NULL, 10) : 0;
	const mcz_file_info *fi = mcz_info(r);
	e->recovered = fi->recovered;
	e->nrows = fi->nrows;
	e->wall_epoch_ns = fi->wall_epoch_ns;
	return (e->job = strdup(jb ? jb : "")) ? 0 : 1;
}

/* Room for k more in *in. */
static int merge_room(merge_in **in, size_t n, size_t *cap, size_t k)
{
	if (n + k <= *cap)
		return 0;
	size_t nc = (n + k) * 2;
	merge_in *m2 = realloc(*in, nc * sizeof *m2);
	if (!m2)
		return 1;
	*in = m2;
	*cap = nc;
	return 0;
}

/* The recordings of path (g: what it is) appended to in: the file, a job
 * file's members, or the member JOB.mcz:NAME names; opened and closed. */
static int merge_read(const char *path, const merge_given *g, merge_in **in, size_t *n, size_t *cap)
{
	mcz_reader *f;
	if (tool_common_open("merge", path, 0, &f))
		return 1;
	size_t k = mcz_member_count(f);
	int job_file = k > 0, status = 0;
	const void *bytes;
	size_t len;
	if (merge_room(in, *n, cap, job_file ? k : 1)) {
		mcz_close(f);
		return 1;
	}
	for (size_t j = 0; j < (job_file ? k : 1) && !status; j++) {
		merge_in *e = &(*in)[*n];
		memset(e, 0, sizeof *e);
		e->order = *n;
		e->from = path;
		e->dev = g->dev;
		e->ino = g->ino;
		if (job_file) { /* a job file given: its members, not itself */
			mcz_reader *m;
			int rc = mcz_member_open(f, j, 0, &m);
			if (rc) {
				fprintf(stderr, "mcz merge: %s: member %s: %s\n", path,
					mcz_member_name(f, j), mcz_strerror(rc));
				status = 1;
				break;
			}
			status = merge_keep(e, m);
			mcz_close(m);
			const char *mn = mcz_member_name(f, j);
			size_t pl = strlen(path) + strlen(mn) + 2;
			if (!status && (e->own_path = malloc(pl)) && (e->own_member = strdup(mn))) {
				snprintf(e->own_path, pl, "%s:%s", path, mn);
				e->path = e->own_path;
				e->name = e->own_member;
				status = mcz_member_span(f, j, &e->off, &e->len) != MCZ_OK;
			} else
				status = 1;
		} else if (mcz_member_self(f, &bytes, &len)) { /* JOB.mcz:NAME */
			e->self = 1;
			e->path = path;
			e->len = len;
			status = merge_keep(e, f) ||
				 !(e->own_member = strdup(mcz_member_self(f, &bytes, &len)));
			e->name = e->own_member;
		} else {
			e->name = merge_base(path);
			e->path = path;
			e->len = g->size;
			status = merge_keep(e, f);
		}
		if (!status)
			(*n)++;
		else { /* e is not counted: its strings freed here */
			free(e->own_member);
			free(e->own_path);
			free(e->job);
		}
	}
	mcz_close(f);
	return status;
}

static int merge_summary(const merge_in *in, size_t n, const char *out)
{
	struct stat st;
	char b[32];
	tool_common_bytes(b, sizeof b, stat(out, &st) == 0 ? (uint64_t)st.st_size : 0);
	long lo = -1, hi = -1;
	size_t ranked = 0;
	for (size_t i = 0; i < n; i++)
		if (in[i].rank >= 0) {
			ranked++;
			lo = lo < 0 || in[i].rank < lo ? in[i].rank : lo;
			hi = in[i].rank > hi ? in[i].rank : hi;
		}
	const char *rec = n == 1 ? "recording" : "recordings";
	if (ranked && lo == hi)
		printf("%s: %zu %s (rank %ld), %s\n", out, n, rec, lo, b);
	else if (ranked)
		printf("%s: %zu %s (ranks %ld-%ld), %s\n", out, n, rec, lo, hi, b);
	else
		printf("%s: %zu %s, %s\n", out, n, rec, b);
	return 0;
}

int tool_merge(int argc, char **argv)
{
	const char *out = NULL;
	int quiet = 0;
	const char **words = calloc((size_t)argc, sizeof *words);
	size_t nw = 0;
	if (!words)
		return 1;
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (!strncmp(argv[i], "--output=", 9))
			out = argv[i] + 9;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			quiet = 1;
		else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			free(words);
			return tool_common_usage_error("merge", "%s needs the job file's name",
						       argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(words);
			return tool_common_usage_error("merge", "unknown option '%s'", argv[i]);
		} else
			words[nw++] = argv[i];
	}
	if (!out || nw == 0) {
		free(words);
		return tool_common_usage_error("merge",
					       !nw ? "no recordings to merge"
						   : "no job file to write: give -o JOB.mcz");
	}
	/* folders and @lists: the paths they name */
	char **paths;
	size_t np;
	int rc = mcz_inpaths_expand(words, nw, 0, &paths, &np);
	free(words);
	if (rc) {
		fprintf(stderr, "mcz merge: %s\n", tool_common_esc(mcz_errdetail()));
		return 1;
	}
	struct stat ost;
	int out_exists = stat(out, &ost) == 0;
	merge_given *given = merge_identities(paths, np);
	merge_in *in = NULL;
	size_t n = 0, cap = 0;
	int status = given ? 0 : 1;
	for (size_t i = 0; i < np && !status; i++) {
		const merge_given *g = &given[i];
		if (out_exists && g->have && g->dev == (uint64_t)ost.st_dev &&
		    g->ino == (uint64_t)ost.st_ino) {
			fprintf(stderr,
				"mcz merge: %s is one of the files to merge; give another -o\n",
				out);
			status = 1;
		} else if (g->twice) {
			if (!quiet)
				fprintf(stderr, "mcz merge: note: %s given twice: taken once\n",
					tool_common_esc(paths[i]));
		} else
			status = merge_read(paths[i], g, &in, &n, &cap);
	}
	if (!status)
		status = tool_merge_names_unique(in, n, quiet);
	if (!status) {
		qsort(in, n, sizeof *in, merge_cmp);
		if (!quiet)
			merge_notes(in, n);
		status = tool_merge_out_write(in, n, out, quiet);
	}
	if (!status && !quiet)
		merge_summary(in, n, out);
	for (size_t i = 0; i < n; i++) {
		free(in[i].own_name);
		free(in[i].own_member);
		free(in[i].own_path);
		free(in[i].job);
	}
	free(in);
	free(given);
	mcz_inpaths_free(paths);
	return status;
}
