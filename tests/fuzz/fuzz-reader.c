/* fuzz-reader.c: libFuzzer target for the whole reader path: open from
 * memory (as a normal open and as `mcz check` does, verifying every block),
 * the file info, metadata, topology, every stream's descriptor, a raw read
 * and a summary of each stream, marks and aux blocks, a job file's members;
 * then the same file
 * read while it is written: opened on a prefix, walked, refreshed
 * (mcz_reader_refresh_mem) to the whole, walked again — a scanning reader
 * refreshed must see what a scanning reader opened on the whole sees.  Any
 * input must give an error code or a consistent reader, never a crash, a
 * leak or a huge allocation.  `make check` replays tests/fuzz/corpus-reader/ through
 * tests/fuzz/replay.c.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/mcz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t fuzz_sink;

static void fuzz_walk(mcz_reader *r)
{
	const mcz_file_info *fi = mcz_info(r);
	fuzz_sink += fi->nrows + fi->nvalues + (uint64_t)fi->t_first;
	for (size_t i = 0; i < mcz_meta_count(r); i++) {
		const char *k, *v;
		if (mcz_meta_at(r, i, &k, &v) == 0)
			fuzz_sink += strlen(k) + strlen(v);
	}
	for (size_t i = 0; i < mcz_topo_count(r); i++)
		fuzz_sink += strlen(mcz_topo(r, i)->name) + (uint64_t)mcz_topo(r, i)->parent;
	for (size_t i = 0; i < mcz_mark_count(r); i++)
		fuzz_sink += strlen(mcz_mark_at(r, i)->text);
	const void *a;
	size_t alen;
	if (mcz_aux(r, "phases", &a, &alen) == 0 && alen)
		fuzz_sink += ((const uint8_t *)a)[alen - 1];
	size_t ns = mcz_stream_count(r);
	/* the first streams, and a few of a wide file's (other GCHUNK runs) */
	for (size_t s = 0; s < ns; s = s < 64 ? s + 1 : s + 97) {
		const mcz_stream_desc *d = mcz_stream(r, s);
		fuzz_sink += strlen(d->name) + strlen(d->unit) + strlen(d->source);
		mcz_series ser;
		if (mcz_read(r, (uint32_t)s, INT64_MIN, INT64_MAX, &ser) == 0) {
			for (size_t i = 0; i < ser.n; i++)
				fuzz_sink += ser.v[i].u + ser.present[i];
			mcz_series_free(&ser);
		}
		mcz_bucket b[16];
		int64_t t0 = fi->t_first, t1 = fi->t_last + (fi->t_last < INT64_MAX);
		if (t1 > t0 && mcz_summary(r, (uint32_t)s, t0, t1, 16, b) == 0)
			for (int i = 0; i < 16; i++)
				fuzz_sink += b[i].count + (isnan(b[i].min) ? 1 : 0);
	}
}

/* mcz_summary_multi over the first streams (reversed, one repeated) must
 * give what mcz_summary gives stream by stream. */
static void fuzz_multi(mcz_reader *r, int64_t t0, int64_t t1, size_t n)
{
	enum { MAXS = 65, MAXN = 64 };
	static mcz_bucket multi[MAXS * MAXN];
	uint32_t ids[MAXS];
	size_t ns = mcz_stream_count(r), k = 0;
	if (ns > MAXS - 1)
		ns = MAXS - 1;
	for (size_t s = ns; s-- > 0;)
		ids[k++] = (uint32_t)s;
	if (ns)
		ids[k++] = 0;
	if (t1 <= t0 || n > MAXN || mcz_summary_multi(r, ids, k, t0, t1, n, multi) != 0)
		return;
	for (size_t j = 0; j < k; j++) {
		mcz_bucket one[MAXN];
		if (mcz_summary(r, ids[j], t0, t1, n, one) == 0 &&
		    memcmp(one, multi + j * n, n * sizeof *one) != 0)
			__builtin_trap(); /* the two must agree bit for bit */
		fuzz_sink += multi[j * n].count;
	}
}

static void fuzz_summaries(mcz_reader *r)
{
	const mcz_file_info *fi = mcz_info(r);
	int64_t t0 = fi->t_first, t1 = fi->t_last + (fi->t_last < INT64_MAX);
	fuzz_multi(r, t0, t1, 16);
	uint64_t span = (uint64_t)t1 - (uint64_t)t0;
	int64_t z0 = (int64_t)((uint64_t)t0 + span / 2);
	int64_t z1 = (int64_t)((uint64_t)z0 + span / 100 + 1);
	if (z1 > z0)
		fuzz_multi(r, z0, z1, 64);
}

/* Open data[0, cut), walk, refresh to data[0, size), walk; a VERIFY
 * (scanning) reader must then agree with one opened on the whole. */
static void fuzz_live(const uint8_t *data, size_t size, size_t cut, unsigned flags)
{
	mcz_reader *r, *all;
	if (mcz_open_mem(&r, data, cut, flags) != MCZ_OK)
		return;
	fuzz_walk(r);
	mcz_refresh f;
	int rc = mcz_reader_refresh_mem(r, data, size, &f);
	if (rc == MCZ_OK && f.first_changed > f.nchunks)
		__builtin_trap();
	fuzz_summaries(r);
	fuzz_walk(r);
	if (rc == MCZ_OK && (flags & MCZ_OPEN_VERIFY) &&
	    mcz_open_mem(&all, data, size, flags) == MCZ_OK) {
		const mcz_file_info *a = mcz_info(r), *b = mcz_info(all);
		if (a->nrows != b->nrows || a->nchunks != b->nchunks || a->nparts != b->nparts ||
		    a->nvalues != b->nvalues || a->t_last != b->t_last ||
		    mcz_stream_count(r) != mcz_stream_count(all) ||
		    mcz_mark_count(r) != mcz_mark_count(all))
			__builtin_trap(); /* refreshing must read what opening reads */
		mcz_close(all);
	}
	mcz_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mcz_reader *r;
	if (mcz_open_mem(&r, data, size, 0) == MCZ_OK) {
		fuzz_walk(r);
		fuzz_summaries(r);
		/* a job file's members (SPEC.md 5.9), the first few; the last
		 * one outlives the job file's handle */
		mcz_reader *m = NULL;
		for (size_t i = 0; i < mcz_member_count(r) && i < 4; i++) {
			mcz_close(m);
			m = NULL;
			uint64_t off, len;
			if (mcz_member_span(r, i, &off, &len) != MCZ_OK || off + len > size)
				__builtin_trap(); /* a member's bytes lie in the file */
			fuzz_sink += strlen(mcz_member_name(r, i));
			if (mcz_member_open(r, i, i & 1 ? MCZ_OPEN_VERIFY : 0, &m) == MCZ_OK)
				fuzz_walk(m);
		}
		mcz_close(r);
		if (m) {
			fuzz_summaries(m);
			mcz_close(m);
		}
	}
	if (mcz_open_mem(&r, data, size, MCZ_OPEN_VERIFY) == MCZ_OK) {
		mcz_cache_limit(r, 4096);
		fuzz_summaries(r);
		fuzz_walk(r);
		mcz_close(r);
	}
	/* a prefix chosen by the input's last byte */
	if (size > 21) {
		size_t cut = 20 + (size - 20) * data[size - 1] / 256;
		fuzz_live(data, size, cut, MCZ_OPEN_VERIFY);
		fuzz_live(data, size, cut, 0);
	}
	return 0;
}
