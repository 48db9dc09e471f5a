/* tool-merge.c: `mcz merge FILE... -o JOB.mcz` and `mcz split JOB.mcz`: the
 * rank files of a parallel job into one job file (SPEC.md 5.9: each rank's
 * recording kept byte for byte in a MEMBER block, so every stream and mark
 * keeps its rank, host and clock); tool-split.c gives them back.
 *
 * One file instead of 1,024 is what a parallel file system and a copy to a
 * laptop want; mcview reads the ranks inside it as it reads the rank files.
 * What the files say about their job is checked and said in one line each
 * (ranks of several jobs, a rank twice, ranks missing, a recording cut by a
 * crash), never silently fixed: every input is kept as it is.  The job file
 * is written beside its name and renamed into place, so a failed merge
 * leaves nothing half-written; an older file of that name is kept as
 * NAME.old, as mcrec does.
 *
 *     mcz merge run.*.mcz -o job.mcz
 *     mcz split job.mcz -o ranks/
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

/* One recording to merge: a file, or a member of a job file given. */
typedef struct merge_in {
	mcz_reader *r;       /* the recording (a member's reader, or the file's) */
	const char *name;    /* its name in the job file */
	char *own_name;      /* name made unique ("run.1.mcz#2"), else NULL */
	const char *path;    /* as given (with ":NAME" for a member) */
	char *own_path;
	uint64_t dev, ino;   /* a file given: to take it once */
	const void *bytes;   /* its bytes */
	size_t len;
	int member;          /* 1: a member of a job file given; 2: a member named JOB:NAME
				(files[]'s reader); 0: a file, bytes our mapping */
	long rank;           /* -1: none in its metadata */
	const char *job;     /* "" none */
	size_t order;        /* as given */
} merge_in;

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

/* The bytes of a file given, mapped (the reader keeps its mapping to
 * itself): written into the job file from the page cache, never copied
 * into memory, so merging 1,024 ranks holds none of them whole. */
static const void *merge_map(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
		*len = (size_t)st.st_size;
		p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	if (fd >= 0)
		close(fd);
	return p;
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
			fprintf(stderr, "%s %s (%zu)", i ? "," : "", *in[i].job ? in[i].job : "no job id",
				k - i);
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
		const char *sz = mcz_meta(in[i].r, "nranks");
		long size = sz ? strtol(sz, NULL, 10) : 0;
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
	for (size_t i = 0; i < n; i++) {
		const mcz_file_info *fi = mcz_info(in[i].r);
		if (fi->recovered)
			fprintf(stderr,
				"mcz merge: note: %s has no index (its recorder was killed, or it "
				"is damaged): kept as it is, %" PRIu64 " rows readable\n",
				in[i].name, fi->nrows);
	}
}

/* Write the job file to a new name beside out, then rename it into place
 * (an earlier regular file kept as out.old); a device is written into and
 * never renamed; a folder or a pipe (the writer seeks) is refused
 * (format/container/outpath.c). */
static int merge_write(const merge_in *in, size_t n, const char *out, int quiet)
{
	mcz_outpath op;
	int rc = mcz_outpath_begin(&op, out);
	if (rc) {
		fprintf(stderr, "mcz merge: %s: %s\n", tool_common_esc(out), mcz_errdetail());
		return 1;
	}
	int64_t epoch = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t e = mcz_info(in[i].r)->wall_epoch_ns;
		if (e && (!epoch || e < epoch))
			epoch = e;
	}
	mcz_write_opts wo = MCZ_WRITE_OPTS_INIT;
	wo.wall_epoch_ns = epoch;
	mcz_writer *w;
	rc = mcz_writer_open(&w, op.write, &wo);
	if (rc) {
		/* the temporary name is ours: dropped from the detail */
		const char *d = mcz_errdetail();
		size_t tl = strlen(op.write);
		if (!strncmp(d, op.write, tl) && !strncmp(d + tl, ": ", 2))
			d += tl + 2;
		fprintf(stderr, "mcz merge: %s: %s\n", out, *d ? d : mcz_strerror(rc));
		mcz_outpath_abort(&op);
		return 1;
	}
	char buf[32];
	snprintf(buf, sizeof buf, "%zu", n);
	rc = mcz_writer_meta(w, "members", buf);
	if (!rc && n && !strcmp(in[0].job, in[n - 1].job) && *in[0].job)
		rc = mcz_writer_meta(w, "job", in[0].job);
	for (size_t i = 0; i < n && !rc; i++)
		rc = mcz_writer_member(w, in[i].name, in[i].bytes, in[i].len);
	int rc2 = mcz_writer_close(w);
	rc = rc ? rc : rc2;
	if (rc) {
		tool_common_error("merge", out, rc);
		mcz_outpath_abort(&op);
		return 1;
	}
	if ((rc = mcz_outpath_commit(&op, 1)) != MCZ_OK) {
		fprintf(stderr, "mcz merge: %s: %s\n", out, mcz_errdetail());
		return 1;
	}
	if (op.kept_old && !quiet)
		fprintf(stderr, "mcz merge: kept the earlier %s as %s.old\n", out, out);
	return 0;
}

/* Names are unique in a job file (mcz split writes them back, and
 * "job.mcz:NAME" names one): of recordings of one name (dir1/run.1.mcz and
 * dir2/run.1.mcz), the later ones become NAME#2, NAME#3..., the first
 * number no recording given is named already, each said in a note. */
static int merge_unique_names(merge_in *in, size_t n, int quiet)
{
	for (size_t i = 0; i < n; i++) {
		int taken = 0;
		for (size_t j = 0; j < i && !taken; j++)
			taken = !strcmp(in[j].name, in[i].name);
		if (!taken)
			continue;
		size_t len = strlen(in[i].name) + 16;
		char *own = malloc(len);
		if (!own)
			return 1;
		for (unsigned k = 2; taken; k++) {
			snprintf(own, len, "%s#%u", in[i].name, k);
			taken = 0;
			for (size_t j = 0; j < n && !taken; j++)
				taken = j != i && !strcmp(in[j].name, own);
		}
		if (!quiet)
			fprintf(stderr, "mcz merge: note: %s is a second recording named %s: kept as %s\n",
				tool_common_esc(in[i].path), tool_common_esc(in[i].name),
				tool_common_esc(own));
		in[i].name = in[i].own_name = own;
	}
	return 0;
}

int tool_merge(int argc, char **argv)
{
	const char *out = NULL;
	int quiet = 0;
	const char **paths = calloc((size_t)argc, sizeof *paths);
	size_t np = 0;
	if (!paths)
		return 1;
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (!strncmp(argv[i], "--output=", 9))
			out = argv[i] + 9;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			quiet = 1;
		else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			free(paths);
			return tool_common_usage_error("merge", "%s needs the job file's name", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(paths);
			return tool_common_usage_error("merge", "unknown option '%s'", argv[i]);
		} else
			paths[np++] = argv[i];
	}
	if (!out || np == 0) {
		free(paths);
		return tool_common_usage_error("merge", !np ? "no recordings to merge"
							    : "no job file to write: give -o JOB.mcz");
	}
	struct stat ost;
	int out_exists = stat(out, &ost) == 0;
	mcz_reader **files = calloc(np, sizeof *files);
	struct stat *given = calloc(np, sizeof *given); /* each file's identity */
	merge_in *in = NULL;
	size_t n = 0, cap = 0;
	int status = files && given ? 0 : 1;
	for (size_t i = 0; i < np && !status; i++) {
		struct stat st;
		int have = stat(paths[i], &st) == 0;
		if (out_exists && have && st.st_dev == ost.st_dev && st.st_ino == ost.st_ino) {
			fprintf(stderr, "mcz merge: %s is one of the files to merge; give another -o\n",
				out);
			status = 1;
			break;
		}
		/* the same file twice (run.*.mcz run.1.mcz, job.mcz job.mcz, a
		 * link to it): taken once, by its identity */
		int again = 0;
		for (size_t j = 0; j < i && have && !again; j++)
			again = files[j] && given[j].st_dev == st.st_dev && given[j].st_ino == st.st_ino;
		if (again) {
			if (!quiet)
				fprintf(stderr, "mcz merge: note: %s given twice: taken once\n",
					tool_common_esc(paths[i]));
			continue;
		}
		if (have)
			given[i] = st;
		if (tool_common_open("merge", paths[i], 0, &files[i])) {
			status = 1;
			break;
		}
		mcz_reader *f = files[i];
		size_t k = mcz_member_count(f);
		int job_file = k > 0;
		if (!job_file)
			k = 1;
		if (n + k > cap) {
			size_t nc = (n + k) * 2;
			merge_in *m2 = realloc(in, nc * sizeof *m2);
			if (!m2) {
				status = 1;
				break;
			}
			in = m2;
			cap = nc;
		}
		for (size_t j = 0; j < k && !status; j++) {
			merge_in *e = &in[n];
			memset(e, 0, sizeof *e);
			e->order = n;
			if (job_file) { /* a job file given: its members, not itself */
				int rc = mcz_member_open(f, j, 0, &e->r);
				if (rc) {
					fprintf(stderr, "mcz merge: %s: member %s: %s\n", paths[i],
						mcz_member_name(f, j), mcz_strerror(rc));
					status = 1;
					break;
				}
				e->member = 1;
				e->name = mcz_member_name(f, j);
				size_t pl = strlen(paths[i]) + strlen(e->name) + 2;
				if ((e->own_path = malloc(pl)))
					snprintf(e->own_path, pl, "%s:%s", paths[i], e->name);
				e->path = e->own_path ? e->own_path : paths[i];
				e->bytes = mcz_member_bytes(f, j, &e->len);
			} else if (mcz_member_self(f, &e->bytes, &e->len)) { /* JOB.mcz:NAME */
				e->r = f;
				e->name = mcz_member_self(f, &e->bytes, &e->len);
				e->path = paths[i];
				e->member = 2; /* its reader is files[i]'s, its bytes the job file's */
			} else {
				e->r = f;
				e->name = merge_base(paths[i]);
				e->path = paths[i];
				e->dev = (uint64_t)st.st_dev;
				e->ino = (uint64_t)st.st_ino;
				if (!(e->bytes = merge_map(paths[i], &e->len))) {
					fprintf(stderr, "mcz merge: %s: %s\n", paths[i], strerror(errno));
					status = 1;
					break;
				}
			}
			const char *rk = mcz_meta(e->r, "rank"), *jb = mcz_meta(e->r, "job");
			char *end = NULL;
			e->rank = rk ? strtol(rk, &end, 10) : -1;
			if (rk && (end == rk || *end || e->rank < 0))
				e->rank = -1;
			e->job = jb ? jb : "";
			n++;
		}
	}
	if (!status)
		status = merge_unique_names(in, n, quiet);
	if (!status) {
		qsort(in, n, sizeof *in, merge_cmp);
		if (!quiet)
			merge_notes(in, n);
		status = merge_write(in, n, out, quiet);
	}
	if (!status && !quiet) {
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
	}
	for (size_t i = 0; i < n; i++) {
		free(in[i].own_name);
		free(in[i].own_path);
		if (in[i].member == 1)
			mcz_close(in[i].r);
		else if (!in[i].member) /* the file's own reader is closed with files[] */
			munmap((void *)in[i].bytes, in[i].len);
	}
	for (size_t i = 0; files && i < np; i++)
		mcz_close(files[i]);
	free(files);
	free(given);
	free(in);
	free(paths);
	return status;
}
