/* refresh.c: reading a recording while it is written (mcz_reader_refresh).
 *
 * A recorder appends blocks and never changes a byte it wrote (SPEC.md 4.1),
 * so an open reader catches up by scanning on from where its scan stopped:
 * the new blocks get every check a scan at open gives them.  A reader that
 * had the index (a closed file that grew: an appended AUX block) loads the
 * file again.  When the path names a new file (the recorder's final copy
 * without PART blocks, renamed over the old one at close) the reader opens
 * it and takes its place.  In every case the caller learns from which
 * chunk number on its caches are stale: a CHUNK replaces the PART blocks
 * it repeats, so the last chunks may change, the earlier ones never do.
 *
 *     mcz_refresh f;
 *     if (mcz_reader_refresh(r, &f) == MCZ_OK && f.new_rows > 0)
 *         redraw from chunk f.first_changed on;
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"

/* The first chunk whose entry differs (offsets compared unless a new file
 * holds the same chunks elsewhere). */
static size_t refresh_first_changed(const mcz_index_chunk *old, size_t nold,
				    const mcz_reader *r, int same_file)
{
	size_t n = nold < r->ix.nchunks ? nold : r->ix.nchunks;
	for (size_t i = 0; i < n; i++) {
		const mcz_index_chunk *a = &old[i], *b = &r->ix.chunks[i];
		if (a->t_first != b->t_first || a->t_last != b->t_last || a->nrows != b->nrows ||
		    a->nstreams != b->nstreams || a->nvalues != b->nvalues ||
		    (same_file && (a->off != b->off || a->size != b->size)))
			return i;
	}
	return n;
}

/* Continue the scan over the bytes appended since (scan mode).  The
 * computed summaries are kept aside so that adding chunks does not touch
 * them, then given back. */
static int refresh_scan(mcz_reader *r)
{
	mcz_bucket **saved = r->ix.sums;
	size_t nsaved = r->ix.nstreams;
	r->ix.sums = NULL;
	r->ix.nstreams = 0;
	if (r->cut) { /* the block it stopped in may be whole now */
		r->problem[0] = '\0';
		r->cut = 0;
		/* a member listed as cut short (that block) is read again */
		if (r->nmembers && r->members[r->nmembers - 1].whole) {
			free(r->members[r->nmembers - 1].name);
			r->nmembers--;
		}
	}
	int rc = mcz_reader_scan_from(r, r->scan_off, r->scan_good);
	if (mcz_index_set_streams(&r->ix, nsaved > r->nstreams ? nsaved : r->nstreams) && !rc)
		rc = MCZ_E_NOMEM;
	for (size_t s = 0; s < nsaved; s++) {
		if (!rc && r->ix.sums[s] == NULL)
			r->ix.sums[s] = saved[s];
		else
			free(saved[s]);
	}
	free(saved);
	if (!rc)
		mcz_reader_sort_marks(r);
	return rc;
}

/* Forget what was derived from chunks >= fc. */
static void refresh_invalidate(mcz_reader *r, size_t fc)
{
	mcz_dcache_drop_from(&r->dc, fc);
	if (r->nverified > fc) {
		r->nverified = fc; /* query.c clears the entries it adds back */
		r->ndamaged = 0;
		for (size_t ci = 0; ci < fc; ci++)
			r->ndamaged += r->verified[ci] == 2;
	}
	for (size_t s = 0; r->sums_n && s < r->cap_sums_n; s++)
		if (r->sums_n[s] > fc)
			r->sums_n[s] = fc;
}

/* Read base[0, len), which begins with the bytes read so far. */
static int refresh_to(mcz_reader *r, const uint8_t *base, size_t len, mcz_refresh *out)
{
	if (len < r->size)
		return mcz_error_set(MCZ_E_STATE, "the file shrank from %zu to %zu bytes", r->size,
				     len);
	if (len == r->size && base == r->base)
		return 0;
	size_t nold = r->ix.nchunks;
	uint64_t rows = r->info.nrows;
	mcz_index_chunk *old = malloc((nold ? nold : 1) * sizeof *old);
	if (!old)
		return MCZ_E_NOMEM;
	if (nold)
		memcpy(old, r->ix.chunks, nold * sizeof *old);
	if (base != r->base) {
		/* pointers into the old bytes: the aux blocks' data, the
		 * decoded columns' directory */
		for (size_t i = 0; i < r->naux; i++)
			r->aux[i].data = base + (r->aux[i].data - r->base);
		/* the code blocks' payloads too (their decoded copies own
		 * their bytes): a recording followed while it writes parts */
		if (r->code_p)
			r->code_p = base + (r->code_p - r->base);
		if (r->thr_p)
			r->thr_p = base + (r->thr_p - r->base);
		if (r->stk_p)
			r->stk_p = base + (r->stk_p - r->base);
		for (size_t i = 0; i < r->nparts_code; i++) {
			r->part_p[i] = base + (r->part_p[i] - r->base);
			if (r->part_stk_p[i])
				r->part_stk_p[i] = base + (r->part_stk_p[i] - r->base);
		}
		mcz_dcache_free(&r->dc);
		r->base = base;
	}
	r->size = len;
	int rc;
	if (r->info.recovered || (r->flags & MCZ_OPEN_VERIFY)) {
		r->info.file_bytes = len;
		rc = refresh_scan(r);
	} else {
		/* a closed file that grew: load it again */
		mcz_reader_reset(r); /* the index sections, caches and verified too */
		rc = mcz_reader_load(r);
	}
	size_t fc = refresh_first_changed(old, nold, r, 1);
	free(old);
	refresh_invalidate(r, fc);
	if (out) {
		out->new_rows = (int64_t)(r->info.nrows - rows);
		out->nchunks = r->ix.nchunks;
		out->first_changed = fc;
	}
	return rc;
}

int mcz_reader_refresh_mem(mcz_reader *r, const void *buf, size_t len, mcz_refresh *out)
{
	if (out)
		*out = (mcz_refresh){0, r ? r->ix.nchunks : 0, r ? r->ix.nchunks : 0, 0};
	if (!r || !buf || r->path)
		return MCZ_E_ARG;
	mcz_error_clear();
	return refresh_to(r, buf, len, out);
}

/* The path names another file, or a closed file changed: open it and take
 * its place. */
static int refresh_replace(mcz_reader *r, mcz_refresh *out)
{
	mcz_reader *nr;
	int rc = mcz_open(&nr, r->path, r->flags);
	if (rc)
		return rc;
	size_t fc = refresh_first_changed(r->ix.chunks, r->ix.nchunks, nr, 0);
	uint64_t rows = r->info.nrows;
	mcz_dcache_limit(&nr->dc, r->dc.budget);
	mcz_reader tmp = *r;
	*r = *nr;
	*nr = tmp;
	mcz_close(nr);
	if (out) {
		out->new_rows = (int64_t)(r->info.nrows - rows);
		out->nchunks = r->ix.nchunks;
		out->first_changed = fc;
		out->replaced = 1;
	}
	return 0;
}

int mcz_reader_refresh(mcz_reader *r, mcz_refresh *out)
{
	if (out)
		*out = (mcz_refresh){0, r ? r->ix.nchunks : 0, r ? r->ix.nchunks : 0, 0};
	if (!r || (!r->path && !r->owner))
		return MCZ_E_ARG;
	mcz_error_clear();
	/* a job file is written whole by mcz merge and renamed into place; its
	 * members are read in place: neither grows */
	if (r->owner || r->nmembers)
		return 0;
	struct stat st;
	int named = stat(r->path, &st) == 0 && S_ISREG(st.st_mode);
	if (named && ((uint64_t)st.st_dev != r->dev || (uint64_t)st.st_ino != r->ino))
		return refresh_replace(r, out);
	if (r->fd < 0) /* a closed file (index read): opened again if it grew */
		return named && (size_t)st.st_size != r->size ? refresh_replace(r, out) : 0;
	if (fstat(r->fd, &st) != 0)
		return mcz_error_set(MCZ_E_IO, "%s", strerror(errno));
	size_t len = (size_t)st.st_size;
	if (len == r->size)
		return 0;
	if (len < r->size)
		return mcz_error_set(MCZ_E_STATE, "the file shrank from %zu to %zu bytes", r->size,
				     len);
	if (len <= r->map_len)
		return refresh_to(r, r->base, len, out);
	/* past the room mapped at open: map it again, bigger */
	size_t ml = mcz_reader_map_len(len);
	void *m = mmap(NULL, ml, PROT_READ, MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED)
		return mcz_error_set(MCZ_E_IO, "mmap: %s", strerror(errno));
	void *old = r->map;
	size_t old_len = r->map_len;
	int rc = refresh_to(r, m, len, out);
	r->map = m;
	r->map_len = ml;
	munmap(old, old_len);
	return rc;
}
