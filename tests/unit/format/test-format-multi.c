/* test-format-multi.c: mcz_summary_multi gives, bit for bit, what
 * mcz_summary gives stream by stream, and the reader's decoded-column cache
 * changes no result.
 *
 * Random recordings (counters, unsigned, signed and float gauges with NaN,
 * missing values, streams added part way, irregular intervals, chunks of
 * a few rows) are queried over windows zoomed out (the index answers),
 * zoomed in (buckets narrower than a chunk: decoding), cut on chunk edges,
 * partly or wholly outside the data, with stream lists in random order
 * and with repeats; on one reader per way of asking (so that the cache
 * holds different things), with the cache at its default size and at 0,
 * and on a file whose index was cut off (summaries rebuilt by decoding).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"

static uint64_t mt_seed = 0x243f6a8885a308d3ull;
static uint64_t mt_rand(void)
{
	mt_seed ^= mt_seed << 13;
	mt_seed ^= mt_seed >> 7;
	mt_seed ^= mt_seed << 17;
	return mt_seed;
}

static char mt_path[64];

typedef struct mt_file {
	size_t nstreams, nrows;
	int64_t t_first, t_last;
	uint64_t bytes;
} mt_file;

/* A random recording: nstreams streams (a quarter added part way), nrows rows. */
static void mt_write(mt_file *f, size_t nstreams, size_t nrows, uint32_t chunk_rows)
{
	snprintf(mt_path, sizeof mt_path, "/tmp/test-format-multi-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = chunk_rows;
	o.chunk_ns = 0;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, mt_path, &o), MCZ_OK);
	mcz_value *row = calloc(nstreams, sizeof *row);
	uint8_t *pres = calloc(nstreams, 1);
	size_t added = 0, initial = nstreams - nstreams / 4;
	int64_t t = 1000;
	f->nstreams = nstreams;
	f->nrows = nrows;
	for (size_t r = 0; r < nrows; r++) {
		while (added < nstreams && (added < initial || mt_rand() % 20 == 0)) {
			mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
			char name[32];
			snprintf(name, sizeof name, "s.%zu", added);
			d.name = name;
			d.kind = added % 4 == 0 ? MCZ_COUNTER : MCZ_GAUGE;
			d.type = d.kind == MCZ_COUNTER ? MCZ_U64 : (uint8_t)(added % 3);
			uint32_t id;
			assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
			assert_int_equal(id, added);
			added++;
		}
		for (size_t s = 0; s < added; s++) {
			uint64_t x = mt_rand();
			pres[s] = x % 7 != 0; /* missing values */
			if (s % 4 == 0)
				row[s].u += x % 3 == 0 ? 0 : x % 100000; /* counter */
			else if (s % 3 == 2)
				row[s].f = x % 11 == 0 ? NAN : (double)(int64_t)(x % 20001) / 7.0 - 1000;
			else if (s % 3 == 1)
				row[s].i = (int64_t)(x % 2001) - 1000;
			else
				row[s].u = x % 5000;
		}
		if (r == 0)
			f->t_first = t;
		f->t_last = t;
		assert_int_equal(mcz_writer_append(w, t, row, pres), MCZ_OK);
		t += 10000 + (int64_t)(mt_rand() % 3 == 0 ? mt_rand() % 40000 : 0);
	}
	f->nstreams = added; /* late streams may not all have come */
	f->bytes = mcz_writer_bytes(w);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	free(row);
	free(pres);
}

/* Windows: whole file, zoomed in and out, chunk-edge cuts, outside. */
static void mt_window(const mt_file *f, int k, int64_t *t0, int64_t *t1, size_t *n)
{
	int64_t span = f->t_last - f->t_first + 1;
	switch (k % 6) {
	case 0: *t0 = f->t_first, *t1 = f->t_last + 1, *n = 1 + mt_rand() % 8; break;
	case 1: *t0 = f->t_first, *t1 = f->t_last + 1, *n = 200 + mt_rand() % 2000; break;
	case 2: /* a narrow window, buckets far narrower than a chunk */
		*t0 = f->t_first + (int64_t)(mt_rand() % (uint64_t)span);
		*t1 = *t0 + 1 + (int64_t)(mt_rand() % 300000);
		*n = 1 + mt_rand() % 300;
		break;
	case 3: /* starts before the data, ends inside */
		*t0 = f->t_first - 50000, *t1 = f->t_first + span / 3, *n = 1 + mt_rand() % 64;
		break;
	case 4: /* wholly after the data */
		*t0 = f->t_last + 1, *t1 = f->t_last + 100000, *n = 5;
		break;
	default:
		*t0 = f->t_first + (int64_t)(mt_rand() % (uint64_t)span);
		*t1 = *t0 + 1 + (int64_t)(mt_rand() % (uint64_t)span);
		*n = 1 + mt_rand() % 500;
	}
}

/* rm: asked stream by stream; rs: many at once. */
static void mt_compare(const mt_file *f, mcz_reader *rm, mcz_reader *rs, int rounds)
{
	size_t cap = 2 * f->nstreams + 4;
	uint32_t *ids = calloc(cap, sizeof *ids);
	for (int k = 0; k < rounds; k++) {
		int64_t t0, t1;
		size_t n, ns = 1 + mt_rand() % cap;
		mt_window(f, k, &t0, &t1, &n);
		for (size_t j = 0; j < ns; j++) /* random order, repeats */
			ids[j] = (uint32_t)(mt_rand() % f->nstreams);
		mcz_bucket *multi = calloc(ns * n, sizeof *multi), *one = calloc(n, sizeof *one);
		assert_int_equal(mcz_summary_multi(rs, ids, ns, t0, t1, n, multi), MCZ_OK);
		for (size_t j = 0; j < ns; j++) {
			assert_int_equal(mcz_summary(rm, ids[j], t0, t1, n, one), MCZ_OK);
			/* bit for bit, NaN included (both come from the same NaN constant) */
			if (memcmp(one, multi + j * n, n * sizeof *one) != 0)
				fail_msg("round %d stream %u [%lld, %lld) / %zu: multi differs", k,
					 ids[j], (long long)t0, (long long)t1, n);
		}
		free(multi);
		free(one);
	}
	free(ids);
}

static void mt_case(size_t nstreams, size_t nrows, uint32_t chunk_rows, size_t cache)
{
	mt_file f;
	mt_write(&f, nstreams, nrows, chunk_rows);
	mcz_reader *rm, *rs;
	assert_int_equal(mcz_open(&rm, mt_path, 0), MCZ_OK);
	assert_int_equal(mcz_open(&rs, mt_path, 0), MCZ_OK);
	mcz_cache_limit(rs, cache);
	mt_compare(&f, rm, rs, 60);
	mcz_close(rm);
	mcz_close(rs);
}

static void test_multi_small_chunks(void **state)
{
	(void)state;
	mt_case(9, 3000, 16, 8u << 20);
}

static void test_multi_no_cache(void **state)
{
	(void)state;
	mt_case(13, 4000, 100, 0);
}

static void test_multi_many_streams(void **state)
{
	(void)state;
	mt_case(300, 1500, 256, 64u << 10); /* a cache far smaller than a query */
}

/* The index cut off: the reader scans, and summaries come from decoding. */
static void test_multi_recovered(void **state)
{
	(void)state;
	mt_file f;
	mt_write(&f, 7, 2500, 64);
	FILE *fp = fopen(mt_path, "r+");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long len = ftell(fp);
	fclose(fp);
	assert_int_equal(truncate(mt_path, len - 40), 0);
	mcz_reader *rm, *rs;
	assert_int_equal(mcz_open(&rm, mt_path, 0), MCZ_OK);
	assert_int_equal(mcz_open(&rs, mt_path, 0), MCZ_OK);
	assert_int_equal(mcz_info(rs)->recovered, 1);
	f.t_last = mcz_info(rs)->t_last;
	mt_compare(&f, rm, rs, 40);
	mcz_close(rm);
	mcz_close(rs);
}

/* Samples read through the cache equal those read with it off, before and
 * after the cache filled up, and the same query twice gives the same. */
static void test_read_cache(void **state)
{
	(void)state;
	mt_file f;
	mt_write(&f, 11, 3000, 50);
	mcz_reader *a, *b;
	assert_int_equal(mcz_open(&a, mt_path, 0), MCZ_OK);
	assert_int_equal(mcz_open(&b, mt_path, 0), MCZ_OK);
	mcz_cache_limit(b, 0);
	for (int k = 0; k < 40; k++) {
		uint32_t s = (uint32_t)(mt_rand() % f.nstreams);
		int64_t t0, t1;
		size_t n;
		mt_window(&f, k, &t0, &t1, &n);
		mcz_series x, y;
		assert_int_equal(mcz_read(a, s, t0, t1, &x), MCZ_OK);
		assert_int_equal(mcz_read(b, s, t0, t1, &y), MCZ_OK);
		assert_int_equal(x.n, y.n);
		if (x.n) {
			assert_memory_equal(x.t, y.t, x.n * sizeof *x.t);
			assert_memory_equal(x.v, y.v, x.n * sizeof *x.v);
			assert_memory_equal(x.present, y.present, x.n);
			if (x.delta)
				assert_memory_equal(x.delta, y.delta, x.n * sizeof *x.delta);
		}
		mcz_series_free(&x);
		mcz_series_free(&y);
	}
	mcz_close(a);
	mcz_close(b);
}

/* Buckets narrower than every chunk (each chunk decoded), edges on sample
 * times: mcz_summary_multi against the rule computed from the samples —
 * bucket floor((t - t0) n / (t1 - t0)); a counter's rate over the interval
 * since the stream's previous present sample (NaN for its first), its sum
 * the deltas; a gauge's value, NaN counted but not in min, max or sum. */
static void mt_brute(const mcz_series *se, const mcz_stream_desc *d, int64_t t0, int64_t t1,
		     size_t n, mcz_bucket *b)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	int64_t prev = INT64_MIN;
	for (size_t i = 0; i < se->n; i++) {
		if (!se->present[i])
			continue;
		int64_t t = se->t[i];
		double x;
		/* SPEC.md 7.3: a delta of 2^63 and more went backwards */
		int back = d->kind == MCZ_COUNTER && se->delta[i] >= (UINT64_C(1) << 63);
		if (d->kind == MCZ_COUNTER)
			x = prev != INT64_MIN && !back ? (double)se->delta[i] * 1e9 / (double)(t - prev)
						       : NAN;
		else
			x = d->type == MCZ_U64 ? (double)se->v[i].u
			    : d->type == MCZ_I64 ? (double)se->v[i].i : se->v[i].f;
		prev = t;
		if (t < t0 || t >= t1)
			continue;
		mcz_bucket *o = &b[(size_t)((t - t0) * (int64_t)n / (t1 - t0))];
		if (o->count == 0)
			o->first = t;
		o->last = t;
		o->count++;
		if (d->kind == MCZ_COUNTER)
			o->sum += back ? 0 : (double)se->delta[i];
		else if (!isnan(x))
			o->sum += x;
		if (!isnan(x)) {
			o->min = isnan(o->min) || x < o->min ? x : o->min;
			o->max = isnan(o->max) || x > o->max ? x : o->max;
		}
	}
}

static void test_multi_brute(void **state)
{
	(void)state;
	mt_file f;
	mt_write(&f, 10, 4000, 64);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, mt_path, 0), MCZ_OK);
	mcz_series *se = calloc(f.nstreams, sizeof *se);
	uint32_t *ids = calloc(f.nstreams, sizeof *ids);
	for (size_t s = 0; s < f.nstreams; s++) {
		assert_int_equal(mcz_read(r, (uint32_t)s, INT64_MIN, INT64_MAX, &se[s]), MCZ_OK);
		ids[s] = (uint32_t)(f.nstreams - 1 - s);
	}
	for (int k = 0; k < 200; k++) {
		size_t n = 1 + mt_rand() % 60;
		int64_t t0 = se[0].t[mt_rand() % se[0].n], t1 = t0 + (int64_t)n * 10000;
		mcz_bucket *got = calloc(f.nstreams * n, sizeof *got), *want = calloc(n, sizeof *want);
		assert_int_equal(mcz_summary_multi(r, ids, f.nstreams, t0, t1, n, got), MCZ_OK);
		for (size_t j = 0; j < f.nstreams; j++) {
			mt_brute(&se[ids[j]], mcz_stream(r, ids[j]), t0, t1, n, want);
			if (memcmp(want, got + j * n, n * sizeof *want) != 0)
				fail_msg("stream %u [%lld, %lld) / %zu differs from the samples' rule",
					 ids[j], (long long)t0, (long long)t1, n);
		}
		free(got);
		free(want);
	}
	for (size_t s = 0; s < f.nstreams; s++)
		mcz_series_free(&se[s]);
	free(se);
	free(ids);
	mcz_close(r);
}

/* Summaries given back (mcz_query_sums_release) between queries change no
 * result: loaded again, they are the same, bit for bit, and a window that
 * decodes every chunk it touches answers without them.  mcz_chunk_span
 * gives each chunk's times and rows: the file's rows in all. */
static void test_multi_release(void **state)
{
	(void)state;
	mt_file f;
	mt_write(&f, 7, 4000, 64);
	mcz_reader *rm, *rs;
	assert_int_equal(mcz_open(&rm, mt_path, 0), MCZ_OK);
	assert_int_equal(mcz_open(&rs, mt_path, 0), MCZ_OK);
	for (int round = 0; round < 8; round++) {
		for (uint32_t s = 0; s < f.nstreams; s++)
			if (mt_rand() % 2)
				mcz_query_sums_release(rs, s);
		mt_compare(&f, rm, rs, 10);
	}
	size_t nc = mcz_info(rm)->nchunks;
	for (uint32_t s = 0; s < f.nstreams; s++) {
		const mcz_bucket *a, *b;
		assert_int_equal(mcz_query_sums(rm, s, &a), MCZ_OK);
		mcz_query_sums_release(rs, s);
		assert_int_equal(mcz_query_sums(rs, s, &b), MCZ_OK);
		assert_memory_equal(a, b, nc * sizeof *a);
	}
	int64_t t0, t1;
	uint64_t rows, all = 0;
	for (size_t ci = 0; ci < nc; ci++) {
		assert_int_equal(mcz_chunk_span(rm, ci, &t0, &t1, &rows), MCZ_OK);
		assert_true(t0 <= t1 && rows > 0);
		all += rows;
	}
	assert_int_equal(all, mcz_info(rm)->nrows);
	assert_int_equal(mcz_chunk_span(rm, nc, &t0, &t1, &rows), MCZ_E_RANGE);
	mcz_close(rm);
	mcz_close(rs);
}

static void test_multi_args(void **state)
{
	(void)state;
	mt_file f;
	mt_write(&f, 3, 100, 10);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, mt_path, 0), MCZ_OK);
	uint32_t ids[2] = {0, 3};
	mcz_bucket b[8];
	assert_int_equal(mcz_summary_multi(r, ids, 2, 0, 1000000, 4, b), MCZ_E_RANGE);
	assert_int_equal(mcz_summary_multi(r, ids, 1, 0, 1000000, 0, b), MCZ_E_ARG);
	assert_int_equal(mcz_summary_multi(r, ids, 1, 10, 10, 4, b), MCZ_E_ARG);
	assert_int_equal(mcz_summary_multi(r, NULL, 1, 0, 10, 4, b), MCZ_E_ARG);
	assert_int_equal(mcz_summary_multi(r, ids, 1, 0, 10, 4, NULL), MCZ_E_ARG);
	assert_int_equal(mcz_summary_multi(r, NULL, 0, 0, 10, 4, NULL), MCZ_OK);
	assert_int_equal(mcz_summary_multi(NULL, ids, 1, 0, 10, 4, b), MCZ_E_ARG);
	/* the one valid stream's buckets, as mcz_summary's */
	mcz_bucket one[4];
	assert_int_equal(mcz_summary_multi(r, ids, 1, f.t_first, f.t_last + 1, 4, b), MCZ_OK);
	assert_int_equal(mcz_summary(r, 0, f.t_first, f.t_last + 1, 4, one), MCZ_OK);
	assert_memory_equal(b, one, sizeof one);
	uint64_t count = 0;
	for (int i = 0; i < 4; i++)
		count += b[i].count;
	assert_true(count > 70 && count <= 100); /* stream 0 present in about 6 rows of 7 */
	mcz_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multi_small_chunks), cmocka_unit_test(test_multi_no_cache),
		cmocka_unit_test(test_multi_many_streams), cmocka_unit_test(test_multi_recovered),
		cmocka_unit_test(test_read_cache),         cmocka_unit_test(test_multi_brute),
		cmocka_unit_test(test_multi_args),         cmocka_unit_test(test_multi_release),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(mt_path);
	return rc;
}
