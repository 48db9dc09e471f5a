/* test-model-budget.c: the redraw budget of the viewer's model
 * (viewer/model/model-chunks.c, vw_model_budget): past the budget, a stream
 * needing decoding is drawn to chunk resolution — an envelope that holds
 * the exact columns — and m->refining is set; a stream whose chunk
 * summaries are not read yet is VW_PENDING, and a group with such a member
 * too; the next frames finish the work, and without a budget every answer
 * is exact.  The samples kept for deep zoom stay within m->keep_budget:
 * streams read long ago give theirs back, and are read again, to the same
 * columns, when drawn again.  Where every stream's chunk summaries would
 * take more than m->sums_large, the model's compact copies draw the same
 * columns.  On a wide window each column merges the
 * summaries of every chunk its time overlaps, through the pyramid, at any
 * column count: the same figures as merging them one by one.
 *
 * The recording: 200 counters (enough that the model does not decode every
 * chunk of a wide window), 4000 rows every 10 ms in chunks of 64 rows; the
 * rate of stream s at row r is (s + 1) x (1000 + (r x 37) % 1000) per s.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"
#include "../../../viewer/model/model.h"
#include "../../../viewer/model/model-int.h"

#define NS 200
#define ROWS 4000
#define DT 10000000LL

static char path[96];

static int setup(void **st)
{
	(void)st;
	snprintf(path, sizeof path, "/tmp/mcz-test-budget-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 64;
	mcz_writer *w;
	if (mcz_writer_open(&w, path, &o) != MCZ_OK)
		return -1;
	for (int s = 0; s < NS; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		char name[32];
		snprintf(name, sizeof name, "test.s%03d", s);
		d.name = name;
		d.unit = "B";
		d.kind = MCZ_COUNTER;
		d.type = MCZ_U64;
		uint32_t id;
		if (mcz_writer_add_stream(w, &d, &id) != MCZ_OK)
			return -1;
	}
	static mcz_value v[NS];
	for (long r = 0; r < ROWS; r++) {
		for (int s = 0; s < NS; s++) /* per 10 ms: rate / 100 */
			v[s].u += (uint64_t)(s + 1) * (uint64_t)(1000 + (r * 37) % 1000) / 100;
		if (mcz_writer_append(w, r * DT, v, NULL) != MCZ_OK)
			return -1;
	}
	return mcz_writer_close(w) == MCZ_OK ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	unlink(path);
	return 0;
}

static vw_model *open_model(void)
{
	vw_model *m;
	char err[256];
	const char *p[1] = {path};
	assert_int_equal(vw_model_open(&m, p, 1, NULL, err, sizeof err), 0);
	assert_int_equal(m->nstreams, NS);
	return m;
}

/* The columns of stream s as the timeline draws it, through a one-stream row. */
static int stream_row(vw_model *m, size_t s, size_t n, vw_bucket *out)
{
	vw_row r = {.nmembers = 1, .members = &s};
	vw_row *saved = m->rows;
	size_t saved_n = m->nrows;
	m->rows = &r;
	m->nrows = 1;
	int rc = vw_model_row_buckets(m, 0, n, out);
	m->rows = saved;
	m->nrows = saved_n;
	return rc;
}

/* A budget already spent when the frame starts. */
static void spent_budget(vw_model *m)
{
	vw_model_budget(m, 0);
	m->budget_end = 1; /* CLOCK_MONOTONIC ns 1: long past */
	m->budget_work = 1; /* and this frame has already worked */
}

static void wide_window_pending_then_exact(void **st)
{
	(void)st;
	vw_model *m = open_model();
	vw_bucket b[120], ex[120];
	spent_budget(m);
	assert_int_equal(stream_row(m, 7, 120, b), VW_PENDING);
	assert_int_equal(m->refining, 1);
	/* a group with an unread member is pending as a whole */
	size_t mem[3] = {7, 8, 9};
	vw_row g = {.nmembers = 3, .members = mem, .is_group = 1};
	vw_row *saved = m->rows;
	size_t saved_n = m->nrows;
	m->rows = &g;
	m->nrows = 1;
	assert_int_equal(vw_model_row_buckets(m, 0, 120, b), VW_PENDING);
	/* the next frame with time to work: exact, and the rate is stream 7's */
	vw_model_budget(m, 0);
	assert_int_equal(vw_model_row_buckets(m, 0, 120, b), 0);
	assert_int_equal(m->refining, 0);
	m->rows = saved;
	m->nrows = saved_n;
	assert_int_equal(stream_row(m, 7, 120, ex), 0);
	for (size_t i = 0; i < 120; i++) {
		assert_true(ex[i].count > 0);
		assert_true(ex[i].min >= 8 * 1000.0 - 1e-6 && ex[i].max <= 8 * 1999.0 + 1e-6);
		/* the group band holds its members: 8, 9 and 10 x the same pattern */
		assert_true(b[i].min <= ex[i].min + 1e-6 && b[i].max >= ex[i].max * 10 / 8 - 200); /* truncated deltas */
	}
	/* read once, a spent budget no longer holds the stream back */
	spent_budget(m);
	assert_int_equal(stream_row(m, 7, 120, b), 0);
	assert_int_equal(m->refining, 0);
	for (size_t i = 0; i < 120; i++)
		assert_true(b[i].min == ex[i].min && b[i].max == ex[i].max);
	vw_model_free(m);
}

static void deep_zoom_coarse_then_exact(void **st)
{
	(void)st;
	vw_model *m = open_model();
	vw_bucket b[100], ex[100];
	/* chunk summaries read (a wide frame without budget) */
	vw_model_budget(m, 0);
	assert_int_equal(stream_row(m, 3, 100, b), 0);
	/* a window of 1.5 chunks: exact columns need the samples decoded */
	vw_model_set_window(m, 1000 * DT, 1096 * DT);
	spent_budget(m);
	assert_int_equal(stream_row(m, 3, 100, b), 0);
	assert_int_equal(m->refining, 1);
	vw_model_budget(m, 0);
	assert_int_equal(stream_row(m, 3, 100, ex), 0);
	assert_int_equal(m->refining, 0);
	int coarser = 0;
	/* the columns with a sample of their own (96 samples over 100
	 * columns): the 4 others are drawn with the sample that covers them,
	 * the next one (a counter's delta covers the time before it), which
	 * may lie in the next chunk */
	int own[100] = {0};
	for (long r = 1000; r < 1096; r++)
		own[(r - 1000) * 100 / 96] = 1;
	for (size_t i = 0; i < 100; i++) {
		/* the coarse column covers whole chunks: it holds the exact one */
		if (ex[i].count == 0 || !own[i])
			continue;
		assert_true(b[i].count >= ex[i].count);
		assert_true(b[i].min <= ex[i].min && b[i].max >= ex[i].max);
		coarser += b[i].max - b[i].min > ex[i].max - ex[i].min;
	}
	/* exact: each column holds one sample, whose rate is its delta per 10 ms */
	for (long r = 1000; r < 1096; r++) {
		size_t j = (size_t)((r - 1000) * 100 / 96);
		double want = (double)(4 * (1000 + (r * 37) % 1000) / 100) * 100;
		assert_int_equal(ex[j].count, 1);
		assert_true(fabs(ex[j].min - want) < 1e-6 && fabs(ex[j].max - want) < 1e-6);
	}
	assert_true(coarser > 50); /* it was coarse, and was not kept as the answer */
	/* the samples are kept: a pan inside them is exact at once */
	vw_model_set_window(m, 1010 * DT, 1106 * DT);
	spent_budget(m);
	assert_int_equal(stream_row(m, 3, 100, b), 0);
	assert_int_equal(m->refining, 0);
	vw_model_free(m);
}

static void kept_samples_within_budget(void **st)
{
	(void)st;
	vw_model *m = open_model();
	static vw_bucket ref[NS][100], b[100];
	vw_model_set_window(m, 1000 * DT, 1096 * DT); /* deep zoom: samples kept */
	vw_model_budget(m, 0);
	for (size_t s = 0; s < NS; s++)
		assert_int_equal(stream_row(m, s, 100, ref[s]), 0);
	size_t all = vw_model_kept_bytes(m);
	assert_true(all > 0);
	vw_model_free(m);
	/* a tenth of that: most streams give their samples back */
	m = open_model();
	m->keep_budget = all / 10;
	vw_model_set_window(m, 1000 * DT, 1096 * DT);
	vw_model_budget(m, 0);
	for (int pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < NS; s++) {
			assert_int_equal(stream_row(m, s, 100, b), 0);
			assert_memory_equal(b, ref[s], sizeof b);
			/* within the budget, but for the stream just read */
			assert_true(vw_model_kept_bytes(m) <= all / 10 + all / NS * 2);
		}
	vw_model_free(m);
}

/* Where every stream's chunk summaries would take more than m->sums_large,
 * the model keeps compact copies of those of streams read at every row (16
 * bytes a chunk, not the reader's 48), and draws the same columns. */
static void compact_sums_same_columns(void **st)
{
	(void)st;
	vw_model *m = open_model();
	static vw_bucket ref[2][NS][120], b[120];
	/* two wide windows (a redraw of the same window copies the columns
	 * kept: it reads no summaries) */
	int64_t w[2][2] = {{m->t0, m->t1}, {m->t0 + (m->t1 - m->t0) / 4, m->t1 - (m->t1 - m->t0) / 3}};
	size_t nc = mcz_info(m->files[0])->nchunks;
	assert_false(vw_model_sums_large(m, m->files[0]));
	for (int v = 0; v < 2; v++) {
		vw_model_set_window(m, w[v][0], w[v][1]);
		vw_model_budget(m, 0);
		for (size_t s = 0; s < NS; s++)
			assert_int_equal(stream_row(m, s, 120, ref[v][s]), 0);
	}
	assert_int_equal(vw_model_sums_bytes(m), 0); /* the reader's own */
	vw_model_free(m);
	m = open_model();
	m->sums_large = 1;
	assert_true(vw_model_sums_large(m, m->files[0]));
	for (int v = 0; v < 2; v++) {
		vw_model_set_window(m, w[v][0], w[v][1]);
		vw_model_budget(m, 0);
		for (size_t s = 0; s < NS; s++) {
			assert_int_equal(stream_row(m, s, 120, b), 0);
			assert_memory_equal(b, ref[v][s], sizeof b);
		}
	}
	assert_int_equal(vw_model_sums_bytes(m), NS * nc * 16);
	vw_model_free(m);
}

/* Wide window, no budget: each column is the merge of the chunks its time
 * overlaps (chunk resolution), min and max as the pyramid keeps them (as
 * floats), the count exact, the mean within rounding of the sums' order. */
static void pyramid_columns_merge_their_chunks(void **st)
{
	(void)st;
	vw_model *m = open_model();
	const mcz_bucket *cs;
	size_t nc = mcz_info(m->files[0])->nchunks;
	assert_true(nc > 32);
	static const size_t widths[] = {7, 60, 113, 250};
	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
		for (size_t s = 0; s < NS; s += 37) {
			size_t n = widths[w];
			vw_bucket b[250];
			vw_model_budget(m, 0);
			assert_int_equal(stream_row(m, s, n, b), 0);
			assert_int_equal(mcz_query_sums(m->files[0], m->streams[s].id, &cs), MCZ_OK);
			double colw = (double)(m->t1 - m->t0) / (double)n;
			int64_t off = m->offsets[0];
			for (size_t i = 0; i < n; i++) {
				int64_t a = m->t0 + (int64_t)((double)i * colw) - off;
				int64_t e = m->t0 + (int64_t)((double)(i + 1) * colw) - off;
				double lo = NAN, hi = NAN, sum = 0;
				uint64_t count = 0;
				int64_t first = 0, last = 0;
				for (size_t c = 0; c < nc; c++) {
					if (cs[c].last < a || cs[c].first >= e)
						continue;
					float mn = (float)cs[c].min, mx = (float)cs[c].max;
					lo = isnan(lo) || mn < lo ? mn : lo;
					hi = isnan(hi) || mx > hi ? mx : hi;
					sum += cs[c].sum;
					first = count ? first : cs[c].first;
					last = cs[c].last;
					count += cs[c].count;
				}
				assert_int_equal(b[i].count, count);
				if (!count)
					continue;
				assert_true(b[i].min == lo && b[i].max == hi);
				double mean = sum * (double)(count - 1) /
					      ((double)count * (double)(last - first) * 1e-9);
				assert_true(fabs(b[i].mean - mean) <= 1e-9 * fabs(mean));
			}
		}
	vw_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wide_window_pending_then_exact),
		cmocka_unit_test(deep_zoom_coarse_then_exact),
		cmocka_unit_test(kept_samples_within_budget),
		cmocka_unit_test(compact_sums_same_columns),
		cmocka_unit_test(pyramid_columns_merge_their_chunks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
