/* test-format-wide.c: wide, short data (SPEC.md 6.5, GCHUNK, since 1.3).
 * Thousands of narrow streams (counters, integer and float gauges, absent
 * rows, identical columns) written in chunks of 16 rows: the chunks are
 * GCHUNK blocks with the critical flag, the index says so (flags bit 0),
 * the descriptors are one COLSTREAMS block (critical),
 * every value comes back, one stream is read without decompressing every
 * run, a run damaged behind a good CRC fails only the streams it holds, a
 * damaged block is a gap that hides nothing else, a recording of wide
 * columns (busy counters) is still written as CHUNK blocks, and rows given
 * sparsely (mcz_writer_append_sparse) are the same bytes as given whole,
 * and a file that turns wide after its first rows reads back whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../../format/mcz.h"
#include "../file-blocks.h"
#include "../file-bytes.h"
#include "../tmpdir.h"

TMPDIR_FIXTURE("mcz-test-wide")

#define NS 3000
#define ROWS 16
#define NCHUNK 3
#define WIDE_NS 20000 /* streams enough for several shared runs */

static mcz_value wd_value(int s, int r, int *present)
{
	mcz_value v;
	*present = !(s % 7 == 3 && r % 3 == 1); /* some absent rows */
	switch (s % 4) {
	case 0: /* counter */
		v.u = (uint64_t)s * 1000 + (uint64_t)r * (uint64_t)(s % 13);
		break;
	case 1: /* integer gauge, equal columns for many streams */
		v.u = (uint64_t)(s % 5) + (uint64_t)(r % 2);
		break;
	case 2: /* float gauge of decimals */
		v.f = (double)((s * 31 + r * 7) % 1000) / 100.0;
		break;
	default: /* float gauge, noisy */
		v.f = (double)s / 3.0 + (double)r * 1e-3;
		break;
	}
	return v;
}

static void wd_write_as(const char *path, int ns, int rows, int chunk_rows, int sparse);
static int wd_batch; /* 1: written as mcz import writes (mcz_write_opts.batch) */

static void wd_write(const char *path, int ns, int rows, int chunk_rows)
{
	wd_write_as(path, ns, rows, chunk_rows, 0);
}

/* sparse: each row given by the streams that have a value
 * (mcz_writer_append_sparse), in a scrambled order */
static void wd_write_as(const char *path, int ns, int rows, int chunk_rows, int sparse)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = (uint32_t)chunk_rows;
	o.batch = wd_batch;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	char name[32], inst[32];
	for (int s = 0; s < ns; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		snprintf(name, sizeof name, "m%d.x", s / 10);
		snprintf(inst, sizeof inst, "disk%d", s % 10);
		d.name = name;
		d.instance = inst;
		d.source = "pcp";
		d.note = "pcp: instant, U64";
		d.kind = s % 4 == 0 ? MCZ_COUNTER : MCZ_GAUGE;
		d.type = s % 4 < 2 ? MCZ_U64 : MCZ_F64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value *v = calloc((size_t)ns, sizeof *v);
	uint8_t *p = calloc((size_t)ns, 1);
	uint32_t *ids = calloc((size_t)ns, sizeof *ids);
	for (int r = 0; r < rows; r++) {
		size_t n = 0;
		for (int k = 0; k < ns; k++) {
			int s = sparse ? (int)(((uint64_t)k * 7919) % (uint64_t)ns) : k, pr;
			mcz_value x = wd_value(s, r, &pr);
			p[s] = (uint8_t)pr;
			if (!sparse)
				v[s] = x;
			else if (pr) {
				ids[n] = (uint32_t)s;
				v[n++] = x;
			}
		}
		int64_t t = (int64_t)r * 1000000000 + 5;
		assert_int_equal(sparse ? mcz_writer_append_sparse(w, t, ids, v, n)
					: mcz_writer_append(w, t, v, p),
				 MCZ_OK);
	}
	if (sparse) { /* a stream not declared: refused, the file unharmed */
		ids[0] = (uint32_t)ns;
		assert_int_equal(mcz_writer_append_sparse(w, (int64_t)rows * 1000000000, ids, v, 1),
				 MCZ_E_ARG);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	free(v);
	free(p);
	free(ids);
}

/* Stream s reads back as written: rows rows, absent before row first
 * (declared then), then wd_value's. */
static void wd_check_from(mcz_reader *r, int s, int rows, int first)
{
	mcz_series x;
	assert_int_equal(mcz_read(r, (uint32_t)s, INT64_MIN / 2, INT64_MAX / 2, &x), MCZ_OK);
	assert_int_equal(x.n, rows);
	for (int i = 0; i < rows; i++) {
		int pr;
		mcz_value v = wd_value(s, i, &pr);
		assert_int_equal(x.t[i], (int64_t)i * 1000000000 + 5);
		assert_int_equal(x.present[i], i >= first && pr);
		if (i >= first && pr)
			assert_int_equal(x.v[i].u, v.u);
	}
	mcz_series_free(&x);
}

/* Stream s reads back as written, every row. */
static void wd_check_stream(mcz_reader *r, int s, int rows)
{
	wd_check_from(r, s, rows, 0);
}

static void test_round_trip(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/wide.mcz", dir);
	wd_write(path, NS, ROWS * NCHUNK, ROWS);
	size_t len, off[8] = {0};
	unsigned flags = 0;
	uint8_t *b = file_bytes(path, &len);
	/* "A GCHUNK block has the critical flag" */
	assert_int_equal(file_blocks(b, len, 10, off, 8, &flags), NCHUNK);
	assert_int_equal(flags, 1);
	assert_int_equal(file_blocks(b, len, 4, off, 8, NULL), 0);
	/* INDEX flags bit 0: "the index lists GCHUNK blocks"; bit 1: short
	 * chunks have no summaries */
	assert_int_equal(file_blocks(b, len, 7, off, 8, NULL), 1);
	assert_int_equal(b[off[0] + 16], 3);
	assert_int_equal(b[10], 3); /* minor 3: MCZ_FORMAT=1.3, as this test sets it */
	/* the descriptors column by column (COLSTREAMS, 5.7), critical too */
	assert_int_equal(file_blocks(b, len, 11, off, 8, &flags), 1);
	assert_int_equal(flags, 1);
	assert_int_equal(file_blocks(b, len, 3, off, 8, NULL), 0);
	free(b);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	assert_int_equal(mcz_info(r)->nrows, ROWS * NCHUNK);
	assert_int_equal(mcz_stream_count(r), NS);
	for (int s = 0; s < NS; s++) {
		char name[32];
		snprintf(name, sizeof name, "m%d.x", s / 10);
		const mcz_stream_desc *d = mcz_stream(r, (size_t)s);
		assert_string_equal(d->name, name);
		snprintf(name, sizeof name, "disk%d", s % 10);
		assert_string_equal(d->instance, name);
		assert_string_equal(d->note, "pcp: instant, U64");
		assert_int_equal(d->kind, s % 4 == 0 ? MCZ_COUNTER : MCZ_GAUGE);
		assert_int_equal(d->type, s % 4 < 2 ? MCZ_U64 : MCZ_F64);
		wd_check_stream(r, s, ROWS * NCHUNK);
	}
	/* summaries from the index agree with the values */
	mcz_bucket bk;
	assert_int_equal(mcz_summary(r, 2, 0, (int64_t)ROWS * NCHUNK * 1000000000, 1, &bk), MCZ_OK);
	assert_int_equal(bk.count, ROWS * NCHUNK);
	mcz_close(r);
	/* by scanning (no index) the same, summaries included (computed from
	 * the samples in both cases) */
	mcz_reader *r2;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_open(&r2, path, MCZ_OPEN_VERIFY), MCZ_OK);
	for (int s = 0; s < NS; s += 97) {
		wd_check_stream(r2, s, ROWS * NCHUNK);
		mcz_bucket b1[4], b2[4];
		int64_t t1 = (int64_t)ROWS * NCHUNK * 1000000000;
		assert_int_equal(mcz_summary(r, (uint32_t)s, 0, t1, 4, b1), MCZ_OK);
		assert_int_equal(mcz_summary(r2, (uint32_t)s, 0, t1, 4, b2), MCZ_OK);
		assert_memory_equal(b1, b2, sizeof b1);
	}
	mcz_close(r);
	mcz_close(r2);
	mcz_check_report rep;
	assert_int_equal(mcz_check(path, &rep), MCZ_OK);
	assert_int_equal(rep.index_ok, 1);
	assert_int_equal(rep.blocks_bad, 0);
	assert_string_equal(rep.first_problem, "");
	/* repair writes GCHUNK blocks again, same values */
	char p2[96];
	snprintf(p2, sizeof p2, "%s/wide2.mcz", dir);
	assert_int_equal(mcz_repair(path, p2), MCZ_OK);
	assert_int_equal(mcz_open(&r, p2, 0), MCZ_OK);
	for (int s = 0; s < NS; s += 13)
		wd_check_stream(r, s, ROWS * NCHUNK);
	mcz_close(r);
}

/* One stream of a wide file is read by decompressing one run: the cache
 * bound is far below what every run decompressed would take. */
static void test_random_access(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/wide-ra.mcz", dir);
	wd_write(path, WIDE_NS, ROWS, ROWS);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	mcz_cache_limit(r, 1);
	wd_check_stream(r, 12345, ROWS);
	wd_check_stream(r, 19999, ROWS);
	wd_check_stream(r, 0, ROWS);
	mcz_close(r);
}

/* A run damaged behind a good CRC: its streams fail, the others read. */
static void test_damaged_run(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/wide-bad.mcz", dir);
	wd_write(path, WIDE_NS, ROWS * NCHUNK, ROWS); /* several runs a chunk */
	size_t len, off[8] = {0};
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 10, off, 8, NULL), NCHUNK);
	/* the middle chunk: a byte near the end of its payload (the last run's
	 * frame), the block CRC made good again */
	size_t o = off[1], plen = file_le32(b + o + 8);
	b[o + 16 + plen - 6] ^= 0x5a;
	uint32_t crc = (uint32_t)crc32(0, b + o + 16, (uInt)plen);
	for (int i = 0; i < 4; i++)
		b[o + 16 + plen + i] = (uint8_t)(crc >> (8 * i));
	mcz_reader *r;
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	mcz_series x;
	int failed = 0;
	for (int s = 0; s < WIDE_NS; s++) {
		int rc = mcz_read(r, (uint32_t)s, INT64_MIN / 2, INT64_MAX / 2, &x);
		if (rc == MCZ_OK)
			mcz_series_free(&x);
		else
			failed++;
	}
	/* the last run's streams only */
	assert_true(failed > 0 && failed < WIDE_NS);
	wd_check_stream(r, 0, ROWS * NCHUNK);
	mcz_close(r);
	/* the CRC left bad: the chunk is a gap, the others read */
	b[o + 16 + plen] ^= 1;
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_read(r, 5, INT64_MIN / 2, INT64_MAX / 2, &x), MCZ_OK);
	assert_int_equal(x.n, ROWS * (NCHUNK - 1));
	mcz_series_free(&x);
	assert_int_equal(mcz_damaged_count(r), 1);
	mcz_close(r);
	free(b);
}

/* Many short chunks (a recorder's 50-row chunks of a long run): GCHUNK
 * blocks, but the summaries stay in the index (flags bit 1 unset). */
static void test_many_short_chunks_keep_summaries(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/wide-short.mcz", dir);
	wd_write(path, 600, 8 * 40, 8);
	size_t len, off[64] = {0};
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 10, off, 64, NULL), 40);
	assert_int_equal(file_blocks(b, len, 7, off, 64, NULL), 1);
	assert_int_equal(b[off[0] + 16], 1);
	free(b);
	mcz_reader *r, *r2;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_open(&r2, path, MCZ_OPEN_VERIFY), MCZ_OK);
	for (int s = 0; s < 600; s += 41) {
		wd_check_stream(r, s, 8 * 40);
		mcz_bucket b1[7], b2[7];
		int64_t t1 = (int64_t)8 * 40 * 1000000000;
		assert_int_equal(mcz_summary(r, (uint32_t)s, 0, t1, 7, b1), MCZ_OK);
		assert_int_equal(mcz_summary(r2, (uint32_t)s, 0, t1, 7, b2), MCZ_OK);
		for (int k = 0; k < 7; k++) {
			assert_int_equal(b1[k].count, b2[k].count);
			assert_true(b1[k].sum == b2[k].sum || (isnan(b1[k].sum) && isnan(b2[k].sum)));
		}
	}
	mcz_close(r);
	mcz_close(r2);
}

/* Wide columns (1024 rows of busy counters) stay CHUNK blocks. */
/* A row given sparsely is the row given whole: the same bytes, over
 * chunks (the absent rows of each are cleared after it) and past the
 * writer's first 4096 rows (the arrays grown). */
static void test_sparse_same_bytes(void **state)
{
	(void)state;
	char a[96], b[96];
	snprintf(a, sizeof a, "%s/dense.mcz", dir);
	snprintf(b, sizeof b, "%s/sparse.mcz", dir);
	for (int pass = 0; pass < 2; pass++) {
		int rows = pass ? 4100 : 40, chunk = pass ? 8192 : 16, ns = pass ? 40 : NS;
		wd_write_as(a, ns, rows, chunk, 0);
		wd_write_as(b, ns, rows, chunk, 1);
		size_t la, lb;
		uint8_t *x = file_bytes(a, &la), *y = file_bytes(b, &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(x, y, la);
		free(x);
		free(y);
	}
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, b, 0), MCZ_OK);
	for (int s = 0; s < 40; s++)
		wd_check_stream(r, s, 4100);
	mcz_close(r);
}

/* A batch writer (mcz import) encodes the second half of a wide chunk's
 * columns on a second thread (format/codecs/chunk.c): every value comes back,
 * the columns of the second half equal to one of the first (integer
 * gauges, s % 4 == 1) included. */
static void test_batch_round_trip(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/batch.mcz", dir);
	wd_batch = 1;
	setenv("MCZ_FORMAT", "1.5", 1); /* a batch writer writes 1.4 on */
	wd_write(path, NS, 64, 64); /* 3000 x 64: both threads */
	setenv("MCZ_FORMAT", "1.3", 1);
	wd_batch = 0;
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	for (int s = 0; s < NS; s++)
		wd_check_stream(r, s, 64);
	mcz_close(r);
}

/* rows rows of wd_value, chunk_rows a chunk (0: the writer's default),
 * batch, streams declared in waves: before row at[k], up to upto[k]. */
static void wd_waves_write(const char *path, uint32_t chunk_rows, int rows, const int *at,
			   const int *upto, int nw)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = chunk_rows;
	o.batch = 1;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	char name[32], inst[32];
	mcz_value *v = calloc((size_t)upto[nw - 1], sizeof *v);
	uint8_t *p = calloc((size_t)upto[nw - 1], 1);
	int ns = 0, k = 0, want = 0;
	for (int r = 0; r < rows; r++) {
		while (k < nw && at[k] <= r)
			want = upto[k++];
		for (; ns < want; ns++) {
			mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
			snprintf(name, sizeof name, "m%d.x", ns / 10);
			snprintf(inst, sizeof inst, "disk%d", ns % 10);
			d.name = name;
			d.instance = inst;
			d.kind = ns % 4 == 0 ? MCZ_COUNTER : MCZ_GAUGE;
			d.type = ns % 4 < 2 ? MCZ_U64 : MCZ_F64;
			assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
		}
		for (int s = 0; s < ns; s++) {
			int pr;
			v[s] = wd_value(s, r, &pr);
			p[s] = (uint8_t)pr;
		}
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 1000000000 + 5, v, p), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	free(v);
	free(p);
}

/* A batch writer whose streams come in waves, a wave before each chunk
 * (PCP instances that appear as an archive goes on): each chunk is encoded
 * on a thread while the wave's descriptors are packed, its counters
 * continuing from the chunk before; the runs of a chunk of WIDE_NS
 * streams are packed on two threads.  Every value reads back, and the
 * bytes are the same when the chunk thread's guess that the descriptors
 * become a BUNDLE is made wrong (MCZ_TEST_GUESS=0), so that each chunk is
 * encoded again after them. */
static void wd_waves(const char *path)
{
	/* waves of 2,000, 8,000 and 10,000 streams, before rows 0, 8, 16 */
	static const int at[] = {0, 8, 16}, upto[] = {2000, 10000, WIDE_NS};
	wd_waves_write(path, 8, 24, at, upto, 3);
}

static void test_batch_waves(void **state)
{
	(void)state;
	char a[96], b[96];
	snprintf(a, sizeof a, "%s/waves.mcz", dir);
	snprintf(b, sizeof b, "%s/waves-again.mcz", dir);
	setenv("MCZ_FORMAT", "1.5", 1);
	wd_waves(a);
	setenv("MCZ_TEST_GUESS", "0", 1);
	wd_waves(b);
	unsetenv("MCZ_TEST_GUESS");
	setenv("MCZ_FORMAT", "1.3", 1);
	size_t la, lb, off[4] = {0};
	uint8_t *ba = file_bytes(a, &la), *bb = file_bytes(b, &lb);
	assert_int_equal(file_blocks(ba, la, 10, off, 4, NULL), 3); /* three GCHUNKs */
	assert_int_equal(la, lb);
	assert_memory_equal(ba, bb, la);
	free(ba);
	free(bb);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, a, 0), MCZ_OK);
	assert_int_equal(mcz_stream_count(r), WIDE_NS);
	for (int s = 0; s < WIDE_NS; s += 7)
		wd_check_from(r, s, 24, s < 2000 ? 0 : s < 10000 ? 8 : 16);
	mcz_close(r);
}

/* A file that turns out very wide after its first rows: the writer keeps
 * fewer rows' room per stream as its streams grow (20,000 streams for 2
 * rows, then 70,000: from 64 rows to 16, the first streams' rows moved),
 * then more again as rows come; every value comes back where it was
 * written. */
#define SLAB_NS 70000
#define SLAB_ROWS 20
static void test_slab_narrows(void **state)
{
	(void)state;
	char a[96];
	snprintf(a, sizeof a, "%s/narrows.mcz", dir);
	static const int at[] = {0, 2}, upto[] = {20000, SLAB_NS};
	wd_waves_write(a, 0, SLAB_ROWS, at, upto, 2);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, a, MCZ_OPEN_VERIFY), MCZ_OK);
	assert_int_equal(mcz_stream_count(r), SLAB_NS);
	for (int s = 0; s < SLAB_NS; s = s < 64 ? s + 1 : s + 307)
		wd_check_from(r, s, SLAB_ROWS, s < 20000 ? 0 : 2);
	mcz_close(r);
}

/* mcz_read_into gives mcz_read's values and presence, window by window,
 * into the caller's arrays; a window larger than the room is refused. */
static void test_read_into(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/into.mcz", dir);
	wd_write(path, 200, 3 * ROWS + 5, ROWS);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	const int64_t w[][2] = {{INT64_MIN / 2, INT64_MAX / 2}, {5, 17000000005}, {3000000000, 3000000001},
				{40000000000, 41000000000}, {7, 6}};
	for (int s = 0; s < 200; s += 7)
		for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) {
			mcz_series x;
			assert_int_equal(mcz_read(r, (uint32_t)s, w[k][0], w[k][1], &x), MCZ_OK);
			mcz_value v[3 * ROWS + 5];
			uint8_t p[3 * ROWS + 5];
			size_t n = 99;
			assert_int_equal(mcz_read_into(r, (uint32_t)s, w[k][0], w[k][1], v, p, 3 * ROWS + 5,
						       &n),
					 MCZ_OK);
			assert_int_equal(n, x.n);
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(p[i], x.present[i]);
				assert_int_equal(v[i].u, x.v[i].u);
			}
			if (x.n > 1)
				assert_int_equal(mcz_read_into(r, (uint32_t)s, w[k][0], w[k][1], v, p,
							       x.n - 1, &n),
						 MCZ_E_RANGE);
			mcz_series_free(&x);
		}
	mcz_close(r);
}

static void test_wide_columns_unchanged(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/busy.mcz", dir);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	for (int s = 0; s < 8; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "core.cycles";
		d.type = MCZ_U64;
		d.kind = MCZ_COUNTER;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	uint64_t acc[8] = {0}, seed = 1;
	for (int r = 0; r < 2048; r++) {
		mcz_value v[8];
		for (int s = 0; s < 8; s++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			acc[s] += 20000000 + (seed >> 40);
			v[s].u = acc[s];
		}
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 10000000, v, NULL), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	size_t len, off[8] = {0};
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 4, off, 8, NULL), 2);
	assert_int_equal(file_blocks(b, len, 10, off, 8, NULL), 0);
	assert_int_equal(file_blocks(b, len, 7, off, 8, NULL), 1);
	assert_int_equal(b[off[0] + 16], 0); /* a 1.2 reader reads this index */
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_random_access),
		cmocka_unit_test(test_damaged_run),
		cmocka_unit_test(test_many_short_chunks_keep_summaries),
		cmocka_unit_test(test_wide_columns_unchanged),
		cmocka_unit_test(test_sparse_same_bytes),
		cmocka_unit_test(test_read_into),
		cmocka_unit_test(test_batch_round_trip),
		cmocka_unit_test(test_batch_waves),
		cmocka_unit_test(test_slab_narrows),
	};
	/* the 1.3 layouts: a 1.4 writer would put the descriptors in a BUNDLE
	 * and leave out the sections (test-format-bundle.c) */
	setenv("MCZ_FORMAT", "1.3", 1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
