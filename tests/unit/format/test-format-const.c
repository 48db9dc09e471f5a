/* test-format-const.c: summaries of columns that hold one value (CONST,
 * in every row or in the rows of a bitmap) or none (EMPTY), which the
 * reader answers without decoding their rows (SPEC.md "Summaries").
 *
 * The same rows are written twice: with the index's sections (each
 * chunk's summary from the writer, value by value) and as an import of a
 * few rows writes them, with no sections (the reader computes them).  The
 * computed summaries equal the writer's bit for bit, and buckets narrower
 * than a chunk equal those added up here from the samples mcz_read gives.
 * Values: an integer in every row, an integer in two rows of three, 0.1
 * (a sum that is not a product), NaN, a negative integer, a stream absent
 * from the first chunk, and a varying gauge and a counter beside them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../format/mcz.h"
#include "../tmpdir.h"

TMPDIR_FIXTURE("mcz-test-const")

#define NS 8
#define ROWS 900
#define CHUNK 300

static int64_t row_time(int r)
{
	return 1000000000LL + (int64_t)r * 100000000LL + (r % 7) * 1000; /* 100 ms, jittered */
}

static mcz_value value(int s, int r, int *present)
{
	mcz_value v = {0};
	*present = 1;
	switch (s) {
	case 0: v.u = 7; break;
	case 1: *present = r % 3 != 0, v.u = 5; break;
	case 2: *present = r % 4 != 1, v.f = 0.1; break;
	case 3: v.f = NAN; break;
	case 4: *present = r % 5 != 0, v.i = -3; break;
	case 5: *present = r >= 350, v.u = 1u << 20; break;
	case 6: v.u = (uint64_t)(r * 37 % 101); break;
	default: v.u = 1000 + (uint64_t)r * 8; break; /* a counter of 8 per row */
	}
	return v;
}

static void write_file(const char *path, int batch)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = CHUNK;
	o.chunk_ns = 0;
	o.batch = batch;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	for (int s = 0; s < NS; s++) {
		char name[16];
		snprintf(name, sizeof name, "s%d", s);
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = name;
		d.unit = "B";
		d.kind = s == 7 ? MCZ_COUNTER : MCZ_GAUGE;
		d.type = s == 2 || s == 3 ? MCZ_F64 : s == 4 ? MCZ_I64 : MCZ_U64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value v[NS];
	uint8_t p[NS];
	for (int r = 0; r < ROWS; r++) {
		for (int s = 0; s < NS; s++) {
			int pr;
			v[s] = value(s, r, &pr);
			p[s] = (uint8_t)pr;
		}
		assert_int_equal(mcz_writer_append(w, row_time(r), v, p), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

/* Equal buckets; with near, sums within 1e-12 of each other, relatively:
 * a bucket the index answers adds whole chunks' sums, in another order
 * than sample by sample (0.1 x 300 is not 30). */
static void same_bucket(const mcz_bucket *a, const mcz_bucket *b, int near)
{
	assert_int_equal(a->count, b->count);
	if (a->count == 0)
		return;
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->last, b->last);
	if (near)
		assert_true(fabs(a->sum - b->sum) <= 1e-12 * fabs(b->sum));
	else
		assert_memory_equal(&a->sum, &b->sum, sizeof a->sum);
	assert_true((isnan(a->min) && isnan(b->min)) || a->min == b->min);
	assert_true((isnan(a->max) && isnan(b->max)) || a->max == b->max);
}

/* Stream s's n buckets over [t0, t1) added up from its samples: the
 * bucket of t is (t - t0) * n / (t1 - t0); a NaN is counted but has no
 * part in min, max or sum; a counter adds its rate to min and max and its
 * delta to the sum. */
static void expected(mcz_reader *r, uint32_t s, int64_t t0, int64_t t1, size_t n, mcz_bucket *b)
{
	mcz_series x;
	assert_int_equal(mcz_read(r, s, INT64_MIN / 2, INT64_MAX / 2, &x), MCZ_OK);
	const mcz_stream_desc *d = mcz_stream(r, s);
	for (size_t k = 0; k < n; k++)
		b[k] = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	int64_t prev = INT64_MIN;
	for (size_t i = 0; i < x.n; i++) {
		if (!x.present[i])
			continue;
		int64_t t = x.t[i];
		double v, add;
		if (d->kind == MCZ_COUNTER) {
			v = prev == INT64_MIN ? NAN : (double)x.delta[i] * 1e9 / (double)(t - prev);
			add = (double)x.delta[i];
		} else {
			v = d->type == MCZ_F64 ? x.v[i].f
			    : d->type == MCZ_I64 ? (double)x.v[i].i
						 : (double)x.v[i].u;
			add = isnan(v) ? 0 : v;
		}
		prev = t;
		if (t < t0 || t >= t1)
			continue;
		mcz_bucket *o = &b[(size_t)((unsigned __int128)(t - t0) * n / (uint64_t)(t1 - t0))];
		if (o->count++ == 0)
			o->first = t;
		o->last = t;
		o->sum += add;
		if (!isnan(v)) {
			o->min = isnan(o->min) || v < o->min ? v : o->min;
			o->max = isnan(o->max) || v > o->max ? v : o->max;
		}
	}
	mcz_series_free(&x);
}

static void test_const_summaries(void **state)
{
	(void)state;
	char a[96], b[96];
	snprintf(a, sizeof a, "%s/sections.mcz", dir);
	snprintf(b, sizeof b, "%s/import.mcz", dir);
	write_file(a, 0);
	write_file(b, 1);
	mcz_reader *ra, *rb;
	assert_int_equal(mcz_open(&ra, a, 0), MCZ_OK);
	assert_int_equal(mcz_open(&rb, b, 0), MCZ_OK);
	size_t nc = mcz_info(ra)->nchunks;
	assert_int_equal(nc, ROWS / CHUNK);
	assert_int_equal(mcz_info(rb)->nchunks, nc);
	for (uint32_t s = 0; s < NS; s++) {
		const mcz_bucket *sa, *sb;
		assert_int_equal(mcz_query_sums(ra, s, &sa), MCZ_OK);
		assert_int_equal(mcz_query_sums(rb, s, &sb), MCZ_OK);
		for (size_t c = 0; c < nc; c++)
			same_bucket(&sa[c], &sb[c], 0);
	}
	/* the writer's figures, as a person counts them */
	const mcz_bucket *sums;
	assert_int_equal(mcz_query_sums(rb, 1, &sums), MCZ_OK);
	assert_int_equal(sums[0].count, 200); /* rows 1, 2, 4, 5 ... of 0..299 */
	assert_int_equal(sums[0].first, row_time(1));
	assert_int_equal(sums[0].last, row_time(299));
	assert_true(sums[0].sum == 1000.0 && sums[0].min == 5.0 && sums[0].max == 5.0);
	assert_int_equal(mcz_query_sums(rb, 3, &sums), MCZ_OK);
	assert_int_equal(sums[1].count, CHUNK);
	assert_true(isnan(sums[1].min) && isnan(sums[1].max) && sums[1].sum == 0);
	assert_int_equal(mcz_query_sums(rb, 5, &sums), MCZ_OK);
	assert_int_equal(sums[0].count, 0);
	assert_int_equal(sums[1].count, 250);
	assert_int_equal(sums[1].first, row_time(350));
	assert_int_equal(mcz_query_sums(rb, 4, &sums), MCZ_OK);
	assert_true(sums[2].sum == -3.0 * 240 && sums[2].min == -3.0);
	/* buckets narrower than a chunk, over a window that cuts chunks */
	int64_t t0 = row_time(123) + 5, t1 = row_time(777);
	for (uint32_t s = 0; s < NS; s++)
		for (size_t n = 1; n <= 64; n = n * 3 + 1) {
			mcz_bucket got[64], want[64];
			expected(rb, s, t0, t1, n, want);
			assert_int_equal(mcz_summary(rb, s, t0, t1, n, got), MCZ_OK);
			for (size_t k = 0; k < n; k++)
				same_bucket(&got[k], &want[k], s == 2);
			assert_int_equal(mcz_summary(ra, s, t0, t1, n, got), MCZ_OK);
			for (size_t k = 0; k < n; k++)
				same_bucket(&got[k], &want[k], s == 2);
		}
	mcz_close(ra);
	mcz_close(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_const_summaries),
	};
	unsetenv("MCZ_FORMAT");
	return cmocka_run_group_tests(tests, setup, teardown);
}
