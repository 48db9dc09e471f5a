/* test-rec-spool.c: the hand-off from the sampling thread to the writer
 * thread (recorder/spool.c) into a real .mcz file read back with libmcz:
 * every committed row arrives in order with its values and presence, marks
 * arrive with their times relative to t0, a full ring drops (and counts)
 * instead of blocking, the sleeping writer is woken at half a ring and at
 * the stop, and syncs the rows gathered to the file every REC_SYNC_NS
 * while a chunk is still due (a reader sees them); and the net source
 * reads InfiniBand port counters
 * from a fixture sysfs tree (MCREC_SYSFS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../recorder/rec.h"

/* A writer on a new temporary file (path: a mkstemp template). */
static mcz_writer *tmp_writer(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	return w;
}

static void test_rows_and_marks(void **state)
{
	char path[] = "/tmp/test-rec-spool-XXXXXX";
	mcz_writer *w = tmp_writer(path);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	uint32_t id;
	d.name = "c";
	d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
	d.name = "g";
	d.kind = MCZ_GAUGE;
	d.type = MCZ_F64;
	assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);

	rec_spool *sp;
	int64_t t0 = 1000000000LL;
	assert_int_equal(rec_spool_new(&sp, w, 2, 64, t0, 50000000LL), 0);
	assert_int_equal(rec_spool_start(sp), 0);
	const int N = 5000;
	int dropped = 0;
	for (int i = 0; i < N; i++) {
		mcz_value *v;
		uint8_t *pr;
		if (rec_spool_row(sp, &v, &pr) != 0) {
			dropped++;
			usleep(1000);
			i--;
			continue;
		}
		v[0].u = (uint64_t)i * 3;
		v[1].f = i * 0.5;
		pr[0] = 1;
		pr[1] = (uint8_t)(i % 7 != 0);
		rec_spool_commit(sp, (int64_t)(i + 1) * 1000);
		if (i == 100)
			rec_spool_mark(sp, t0 + 101000, MCZ_MARK_BEGIN, 7, "region");
	}
	rec_spool_mark(sp, t0 - 5, MCZ_MARK_POINT, 1, "before t0");
	uint64_t rows, drops;
	assert_int_equal(rec_spool_stop(sp), 0);
	rec_spool_stats(sp, &rows, &drops, NULL);
	assert_int_equal(rows, N);
	assert_int_equal(drops, dropped); /* a full ring counts, never blocks */
	rec_spool_free(sp);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);

	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, MCZ_OPEN_VERIFY), MCZ_OK);
	assert_int_equal(mcz_info(r)->nrows, N);
	mcz_series s = {0};
	assert_int_equal(mcz_read(r, 1, 0, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.n, N);
	for (int i = 0; i < N; i++) {
		assert_int_equal(s.t[i], (int64_t)(i + 1) * 1000);
		assert_int_equal(s.present[i], i % 7 != 0);
		if (s.present[i])
			assert_true(s.v[i].f == i * 0.5);
	}
	mcz_series_free(&s);
	assert_int_equal(mcz_read(r, 0, 0, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.v[N - 1].u, (uint64_t)(N - 1) * 3);
	mcz_series_free(&s);
	assert_int_equal(mcz_mark_count(r), 2);
	assert_int_equal(mcz_mark_at(r, 0)->t, 0); /* before t0: clamped to 0 */
	assert_string_equal(mcz_mark_at(r, 1)->text, "region");
	assert_int_equal(mcz_mark_at(r, 1)->t, 101000);
	assert_int_equal(mcz_mark_at(r, 1)->kind, MCZ_MARK_BEGIN);
	assert_int_equal(mcz_mark_at(r, 1)->source, 7);
	mcz_close(r);
	unlink(path);
}

/* The writer sleeps until a chunk is due (here 10 s away), so only the
 * sampler's kick at half a ring brings it to drain: rows committed slower
 * than the writer drains are never dropped; and a stop is answered at once,
 * not at the chunk's due time.  The header function runs on the writer
 * thread before any row (mcrec writes the file's header there). */
static int header_calls;
static int header_first(void *arg)
{
	mcz_writer *w = arg;
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	uint32_t id;
	d.name = "late";
	d.kind = MCZ_GAUGE;
	d.type = MCZ_F64;
	header_calls++;
	return mcz_writer_add_stream(w, &d, &id);
}

static void test_half_ring_and_stop(void **state)
{
	char path[] = "/tmp/test-rec-spool-XXXXXX";
	mcz_writer *w = tmp_writer(path);
	rec_spool *sp;
	assert_int_equal(rec_spool_new(&sp, NULL, 1, 64, 0, 10000000000LL), 0);
	/* rows before the writer exists wait in the ring */
	mcz_value *v;
	uint8_t *pr;
	assert_int_equal(rec_spool_row(sp, &v, &pr), 0);
	v[0].f = -1;
	pr[0] = 1;
	rec_spool_commit(sp, 1);
	rec_spool_attach(sp, w, header_first, w);
	assert_int_equal(rec_spool_start(sp), 0);
	const int N = 400; /* six rings' worth, 2 ms apart */
	for (int i = 0; i < N; i++) {
		assert_int_equal(rec_spool_row(sp, &v, &pr), 0); /* never full */
		v[0].f = i;
		pr[0] = 1;
		rec_spool_commit(sp, (int64_t)(i + 2) * 1000);
		usleep(2000);
	}
	int64_t t = rec_clock_now();
	assert_int_equal(rec_spool_stop(sp), 0);
	assert_true(rec_clock_now() - t < 1000000000LL); /* not the 10 s chunk */
	uint64_t rows, drops;
	rec_spool_stats(sp, &rows, &drops, NULL);
	assert_int_equal(rows, N + 1);
	assert_int_equal(drops, 0);
	assert_int_equal(header_calls, 1);
	assert_true(rec_spool_writer_cpu(sp) > 0);
	rec_spool_free(sp);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);

	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, MCZ_OPEN_VERIFY), MCZ_OK);
	assert_int_equal(mcz_info(r)->nrows, N + 1);
	mcz_series s = {0};
	assert_int_equal(mcz_read(r, 0, 0, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.n, N + 1);
	assert_true(s.v[0].f == -1 && s.v[N].f == N - 1);
	mcz_series_free(&s);
	mcz_close(r);
	unlink(path);
	(void)state;
}

/* With 10 s chunks, rows reach the file within REC_SYNC_NS (as a PART
 * block): a reader opening the file meanwhile sees them. */
static void test_sync_before_chunk(void **state)
{
	char path[] = "/tmp/test-rec-spool-XXXXXX";
	mcz_writer *w = tmp_writer(path);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "g";
	d.kind = MCZ_GAUGE;
	d.type = MCZ_F64;
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	rec_spool *sp;
	assert_int_equal(rec_spool_new(&sp, w, 1, 1024, 0, 10000000000LL), 0);
	assert_int_equal(rec_spool_start(sp), 0);
	int64_t start = rec_clock_now();
	int n = 0;
	while (rec_clock_now() - start < REC_SYNC_NS + REC_SYNC_NS / 2) {
		mcz_value *v;
		uint8_t *pr;
		assert_int_equal(rec_spool_row(sp, &v, &pr), 0);
		v[0].f = n;
		pr[0] = 1;
		rec_spool_commit(sp, (int64_t)(n + 1) * 1000000);
		n++;
		usleep(10000);
	}
	/* a loaded machine may delay the writer thread: wait up to 2 s more,
	 * far from the 10 s chunk */
	mcz_reader *r;
	const mcz_file_info *fi;
	for (int tries = 0;; tries++) {
		assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
		fi = mcz_info(r);
		if (fi->nrows > 0 || tries == 20)
			break;
		mcz_close(r);
		usleep(100000);
	}
	assert_int_equal(fi->nchunks, fi->nparts); /* no whole chunk yet */
	assert_true(fi->nrows > 0); /* the rows of the first sync at least */
	assert_true(fi->nrows <= (uint64_t)n);
	mcz_close(r);
	assert_int_equal(rec_spool_stop(sp), 0);
	rec_spool_free(sp);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->nrows, (uint64_t)n);
	assert_int_equal(mcz_info(r)->nparts, 0);
	mcz_close(r);
	unlink(path);
	(void)state;
}

static void test_net_infiniband(void **state)
{
	rec_source s;
	rec_streams st = {0};
	rec_ctx c;
	const char *ev[] = {"mlx5_0", NULL};
	memset(&s, 0, sizeof s);
	memset(&c, 0, sizeof c);
	c.node_streams = 1;
	c.groups = REC_G_ALL;
	c.events = ev;
	setenv("MCREC_SYSFS", "tests/data/rec-sysfs", 1);
	s.ops = &src_net_ops;
	assert_int_equal(src_net_ops.probe(&s, &c), 0);
	assert_int_equal(src_net_ops.streams(&s, &c, &st), 0);
	assert_int_equal(st.n, 4);
	assert_string_equal(st.d[0].name, "ib.rx_bytes");
	assert_string_equal(st.d[0].instance, "mlx5_0:1");
	assert_true(st.d[0].scale == 4.0); /* port_rcv_data counts 4-byte words */
	assert_true(st.d[2].scale == 1.0);
	mcz_value v[4];
	uint8_t pr[4] = {0};
	assert_int_equal(src_net_ops.read(&s, v, pr), 0);
	assert_int_equal(v[0].u, 1000);
	assert_int_equal(v[1].u, 2000);
	assert_int_equal(v[2].u, 10);
	assert_int_equal(v[3].u, 20);
	assert_memory_equal(pr, "\1\1\1\1", 4);
	src_net_ops.free(&s);
	rec_streams_clear(&st);
	/* An interface that does not exist is an error naming it. */
	const char *bad[] = {"mlx9_9", NULL};
	c.events = bad;
	memset(&s, 0, sizeof s);
	assert_int_equal(src_net_ops.probe(&s, &c), 0);
	assert_int_equal(src_net_ops.streams(&s, &c, &st), -1);
	assert_non_null(strstr(s.why, "no network interface 'mlx9_9'"));
	src_net_ops.free(&s);
	rec_streams_clear(&st);
	unsetenv("MCREC_SYSFS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_marks),
		cmocka_unit_test(test_half_ring_and_stop),
		cmocka_unit_test(test_sync_before_chunk),
		cmocka_unit_test(test_net_infiniband),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
