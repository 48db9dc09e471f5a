/* fuzz-reader.c: libFuzzer target for the whole reader path: open from
 * memory (as a normal open and as `mcz check` does, verifying every block),
 * the file info, metadata, topology, every stream's descriptor, a raw read
 * and a summary of each stream, marks and aux blocks.  Any input must give
 * an error code or a consistent reader, never a crash, a leak or a huge
 * allocation.  `make check` replays tests/fuzz/corpus-reader/ through
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
	for (size_t s = 0; s < ns && s < 64; s++) {
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mcz_reader *r;
	if (mcz_open_mem(&r, data, size, 0) == MCZ_OK) {
		fuzz_walk(r);
		fuzz_summaries(r);
		mcz_close(r);
	}
	if (mcz_open_mem(&r, data, size, MCZ_OPEN_VERIFY) == MCZ_OK) {
		mcz_cache_limit(r, 4096);
		fuzz_summaries(r);
		fuzz_walk(r);
		mcz_close(r);
	}
	return 0;
}
