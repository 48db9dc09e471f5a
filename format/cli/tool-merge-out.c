/* tool-merge-out.c: the job file of `mcz merge` written, member by member:
 * each recording's bytes mapped from the file they are in (a rank file, or
 * a job file given), written into the job file from the page cache, and
 * unmapped before the next, so that merging 65,536 ranks maps one input at
 * a time (Linux maps at most vm.max_map_count regions, 65,530 by default)
 * and holds none of them in memory.  The file mapped is the one that was
 * read (its device and inode): one replaced since stops the merge.
 *
 * The job file is written beside its name and renamed into place, so a
 * failed merge leaves nothing half-written; an older file of that name is
 * kept as NAME.old, as mcrec does.  A device is written into and never
 * renamed; a folder or a pipe (the writer seeks) is refused
 * (format/container/outpath.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool-merge.h"
#include "tool.h"

/* A recording's bytes, mapped for as long as they are written. */
typedef struct out_bytes {
	const void *p;
	size_t len;
	void *map; /* what to unmap */
	size_t map_len;
	mcz_reader *r; /* self: the reader of JOB.mcz:NAME, its bytes the job file's */
} out_bytes;

/* Map e's bytes; 0, or non-zero with the reason said. */
static int out_map(const merge_in *e, out_bytes *b)
{
	*b = (out_bytes){0};
	if (e->self) {
		if (tool_common_open("merge", e->from, 0, &b->r))
			return 1;
		if (!mcz_member_self(b->r, &b->p, &b->len)) {
			fprintf(stderr, "mcz merge: %s: no longer a member of a job file\n",
				tool_common_esc(e->from));
			mcz_close(b->r);
			return 1;
		}
		return 0;
	}
	int fd = open(e->from, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "mcz merge: %s: %s\n", tool_common_esc(e->from), strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if ((uint64_t)st.st_dev != e->dev || (uint64_t)st.st_ino != e->ino ||
	    (uint64_t)st.st_size < e->off + e->len) {
		fprintf(stderr,
			"mcz merge: %s: replaced or cut while merged (%" PRIu64
			" bytes read, %lld now): nothing written\n",
			tool_common_esc(e->from), e->off + e->len, (long long)st.st_size);
		close(fd);
		return 1;
	}
	/* mmap wants an offset on a page: from the page that holds off */
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), at = e->off - e->off % page;
	b->map_len = (size_t)(e->off + e->len - at);
	b->map = mmap(NULL, b->map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)at);
	int err = errno;
	close(fd);
	if (b->map == MAP_FAILED) {
		fprintf(stderr, "mcz merge: %s: %s\n", tool_common_esc(e->from), strerror(err));
		b->map = NULL;
		return 1;
	}
	b->p = (const char *)b->map + (e->off - at);
	b->len = (size_t)e->len;
	return 0;
}

static void out_unmap(out_bytes *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	mcz_close(b->r);
	*b = (out_bytes){0};
}

int tool_merge_out_write(const merge_in *in, size_t n, const char *out, int quiet)
{
	mcz_outpath op;
	int rc = mcz_outpath_begin(&op, out);
	if (rc) {
		fprintf(stderr, "mcz merge: %s: %s\n", tool_common_esc(out), mcz_errdetail());
		return 1;
	}
	int64_t epoch = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t e = in[i].wall_epoch_ns;
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
	int said = 0; /* an input's failure, said by out_map */
	for (size_t i = 0; i < n && !rc && !said; i++) {
		out_bytes b;
		if ((said = out_map(&in[i], &b)) != 0)
			break;
		rc = mcz_writer_member(w, in[i].name, b.p, b.len);
		out_unmap(&b);
	}
	int rc2 = mcz_writer_close(w);
	rc = rc ? rc : rc2;
	if (rc || said) {
		if (rc)
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
