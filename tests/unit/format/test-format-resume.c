/* test-format-resume.c: a closed recording continued (mcz_writer_resume;
 * SPEC.md 4, "Writer rules").
 *
 * The same rows written twice: in one go, and as a file closed after its
 * first part, then resumed twice (more rows, a stream declared late, a
 * mark).  Each way, for a live writer and for a batch viewer's conversion
 * (the cache's): the continued file passes mcz check with its index; the
 * bytes of the closed file are its first bytes, unchanged; every stream
 * reads back the same times, values, presence and counter deltas as the
 * file written in one go (a counter's first delta after the resume is its
 * step from the last sample before it, not 0); the chunks' summaries
 * before the resume are those the closed file had.  Continued and synced
 * (PART blocks after the old trailer): readable while written, the same
 * once closed.  A file of one row continued by one row, as a cache entry
 * of a short archive is.  Refused: a file whose index is cut off, one with
 * PART blocks, one of an older format, one whose index misplaces a chunk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "../file-blocks.h"
#include "../file-bytes.h"

#include "../../../format/mcz.h"

#define ROWS 700
#define CUT1 300 /* the first close */
#define CUT2 450 /* the second */
#define LATE 380 /* a stream declared from this row on */

static char rs_dir[] = "/tmp/mcz-resume-XXXXXX";

static int rs_setup(void **state)
{
	(void)state;
	return mkdtemp(rs_dir) ? 0 : -1;
}

static int rs_teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", rs_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const mcz_stream_desc rs_desc[3] = {
	{.name = "kernel.all.cpu.user", .source = "pcp", .native = "pcp:kernel.all.cpu.user",
	 .unit = "s", .note = "", .instance = "", .kind = MCZ_COUNTER, .type = MCZ_U64,
	 .scale = 1e-3, .topo = -1},
	{.name = "mem.util.used", .source = "pcp", .native = "pcp:mem.util.used", .unit = "B",
	 .note = "", .instance = "", .kind = MCZ_GAUGE, .type = MCZ_F64, .scale = 1, .topo = -1},
	{.name = "disk.dev.read", .source = "pcp", .native = "pcp:disk.dev.read", .unit = "",
	 .note = "", .instance = "sda", .kind = MCZ_COUNTER, .type = MCZ_U64, .scale = 1,
	 .topo = -1},
};

/* Row r's values: streams 0 and 1 in every third row but one, stream 2
 * from LATE on. */
static size_t rs_row(int r, uint32_t *ids, mcz_value *v)
{
	size_t n = 0;
	if (r % 3 != 1) {
		ids[n] = 0;
		v[n++].u = (uint64_t)r * 2500 + (uint64_t)(r * r % 7) * 100;
		ids[n] = 1;
		v[n++].f = 1e9 + (r % 17) * 4096.0;
	}
	if (r >= LATE) {
		ids[n] = 2;
		v[n++].u = (uint64_t)(r - LATE) * 31 + (uint64_t)(r % 2);
	}
	return n;
}

static int64_t rs_t(int r)
{
	return (int64_t)r * 1000000000LL + (r % 4) * 1000;
}

/* Rows [from, to) into w; stream 2 declared at LATE. */
static void rs_rows(mcz_writer *w, int from, int to)
{
	for (int r = from; r < to; r++) {
		if (r == LATE)
			assert_int_equal(mcz_writer_add_stream(w, &rs_desc[2], NULL), MCZ_OK);
		uint32_t ids[3];
		mcz_value v[3];
		size_t n = rs_row(r, ids, v);
		assert_int_equal(mcz_writer_append_sparse(w, rs_t(r), ids, v, n), MCZ_OK);
		if (r == 320)
			assert_int_equal(mcz_writer_mark(w, rs_t(r), MCZ_MARK_POINT, 0, "resumed"),
					 MCZ_OK);
	}
}

static mcz_write_opts rs_opts(int batch)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 1790000000000000000LL;
	o.chunk_rows = 128;
	o.chunk_ns = 0;
	o.batch = o.quick = batch;
	if (batch)
		o.zstd_level = 1;
	return o;
}

static mcz_writer *rs_open(const char *path, int batch)
{
	mcz_write_opts o = rs_opts(batch);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "host", "node7"), MCZ_OK);
	for (int s = 0; s < 2; s++)
		assert_int_equal(mcz_writer_add_stream(w, &rs_desc[s], NULL), MCZ_OK);
	return w;
}

static void rs_same_series(mcz_reader *a, mcz_reader *b, uint32_t s)
{
	mcz_series x, y;
	assert_int_equal(mcz_read(a, s, INT64_MIN, INT64_MAX, &x), MCZ_OK);
	assert_int_equal(mcz_read(b, s, INT64_MIN, INT64_MAX, &y), MCZ_OK);
	assert_int_equal(x.n, y.n);
	assert_true(x.n > 100);
	for (size_t i = 0; i < x.n; i++) {
		assert_int_equal(x.t[i], y.t[i]);
		assert_int_equal(x.present[i], y.present[i]);
		if (!x.present[i])
			continue;
		assert_memory_equal(&x.v[i], &y.v[i], sizeof x.v[i]);
		if (x.delta)
			assert_int_equal(x.delta[i], y.delta[i]);
	}
	/* the counter's step across each resume (rows CUT1 and CUT2 have it),
	 * from its last sample before */
	if (s == 0)
		for (size_t i = 1; i < y.n; i++)
			if (y.t[i] == rs_t(CUT1) || y.t[i] == rs_t(CUT2))
				assert_true(y.delta[i] > 0);
	mcz_series_free(&x);
	mcz_series_free(&y);
}

/* The continued file two reads as file one, written in one go: indexed,
 * every row, every stream the same. */
static void rs_same_file(const char *one, const char *two)
{
	mcz_reader *a, *c;
	assert_int_equal(mcz_open(&a, one, 0), MCZ_OK);
	assert_int_equal(mcz_open(&c, two, 0), MCZ_OK);
	assert_false(mcz_info(c)->recovered);
	assert_int_equal(mcz_info(a)->nrows, ROWS);
	assert_int_equal(mcz_info(c)->nrows, ROWS);
	assert_int_equal(mcz_info(a)->nvalues, mcz_info(c)->nvalues);
	assert_int_equal(mcz_stream_count(c), 3);
	for (uint32_t s = 0; s < 3; s++)
		rs_same_series(a, c, s);
	mcz_close(a);
	mcz_close(c);
}

static void rs_check_clean(const char *path)
{
	mcz_check_report rep;
	assert_int_equal(mcz_check(path, &rep), MCZ_OK);
	assert_true(rep.index_ok);
	assert_int_equal(rep.blocks_bad, 0);
	assert_string_equal(rep.first_problem, "");
}

static void rs_case(int batch)
{
	char one[96], two[96];
	snprintf(one, sizeof one, "%s/one-%d.mcz", rs_dir, batch);
	snprintf(two, sizeof two, "%s/two-%d.mcz", rs_dir, batch);
	mcz_writer *w = rs_open(one, batch);
	rs_rows(w, 0, ROWS);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);

	w = rs_open(two, batch);
	rs_rows(w, 0, CUT1);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	size_t len1;
	uint8_t *closed = file_bytes(two, &len1);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, two, 0), MCZ_OK);
	size_t nch = mcz_info(r)->nchunks;
	const mcz_bucket *b;
	assert_int_equal(mcz_query_sums(r, 0, &b), MCZ_OK);
	mcz_bucket *before = malloc(nch * sizeof *before);
	memcpy(before, b, nch * sizeof *before);
	mcz_close(r);

	mcz_write_opts o = rs_opts(batch);
	assert_int_equal(mcz_writer_resume(&w, two, &o), MCZ_OK);
	/* a row not after the last one is refused, as in any file */
	uint32_t id0 = 0;
	mcz_value v0 = {.u = 1};
	assert_int_equal(mcz_writer_append_sparse(w, rs_t(CUT1 - 1), &id0, &v0, 1), MCZ_E_ARG);
	mcz_writer_close(w);
	/* that writer's error left the file as it was closed, a trailer
	 * after it or not: resumed again, properly */
	assert_int_equal(mcz_writer_resume(&w, two, &o), MCZ_OK);
	rs_rows(w, CUT1, CUT2);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	assert_int_equal(mcz_writer_resume(&w, two, &o), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "note", "extended"), MCZ_OK);
	rs_rows(w, CUT2, ROWS);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);

	size_t len2;
	uint8_t *grown = file_bytes(two, &len2);
	assert_true(len2 > len1);
	assert_memory_equal(grown, closed, len1);
	rs_check_clean(two);

	rs_same_file(one, two);
	mcz_reader *c;
	assert_int_equal(mcz_open(&c, two, 0), MCZ_OK);
	for (uint32_t s = 0; s < 3; s++) {
		assert_string_equal(mcz_stream(c, s)->name, rs_desc[s].name);
		assert_string_equal(mcz_stream(c, s)->instance, rs_desc[s].instance);
	}
	assert_string_equal(mcz_meta(c, "host"), "node7");
	assert_string_equal(mcz_meta(c, "note"), "extended");
	assert_int_equal(mcz_mark_count(c), 1);
	assert_int_equal(mcz_mark_at(c, 0)->t, rs_t(320));
	assert_int_equal(mcz_query_sums(c, 0, &b), MCZ_OK);
	for (size_t i = 0; i < nch; i++) {
		assert_int_equal(b[i].count, before[i].count);
		assert_true(b[i].sum == before[i].sum);
	}
	mcz_close(c);
	free(before);
	free(closed);
	free(grown);
}

static void test_resume_live(void **state)
{
	(void)state;
	rs_case(0);
}

static void test_resume_batch(void **state)
{
	(void)state;
	rs_case(1);
}

/* Continued, then synced (PART blocks after the old trailer, as the
 * viewer's conversion behind the screen writes them): read while it is
 * written, every row up to the sync; closed, the same as in one go. */
static void test_resume_synced(void **state)
{
	(void)state;
	char one[96], two[96];
	snprintf(one, sizeof one, "%s/one-s.mcz", rs_dir);
	snprintf(two, sizeof two, "%s/two-s.mcz", rs_dir);
	mcz_writer *w = rs_open(one, 1);
	rs_rows(w, 0, ROWS);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	w = rs_open(two, 1);
	rs_rows(w, 0, CUT1);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mcz_write_opts o = rs_opts(1);
	assert_int_equal(mcz_writer_resume(&w, two, &o), MCZ_OK);
	rs_rows(w, CUT1, CUT2);
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, two, 0), MCZ_OK);
	assert_true(mcz_info(r)->recovered); /* a file being written: scanned */
	assert_int_equal(mcz_info(r)->nrows, CUT2);
	assert_int_equal(mcz_info(r)->t_last, rs_t(CUT2 - 1));
	mcz_close(r);
	rs_rows(w, CUT2, ROWS);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	rs_check_clean(two);
	rs_same_file(one, two);
}

static void test_resume_refused(void **state)
{
	(void)state;
	char path[96];
	mcz_writer *w;
	mcz_write_opts o = rs_opts(0);
	/* no index: a recorder killed before its close */
	snprintf(path, sizeof path, "%s/cut.mcz", rs_dir);
	w = rs_open(path, 0);
	rs_rows(w, 0, 200);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	size_t len;
	uint8_t *bytes = file_bytes(path, &len);
	assert_int_equal(truncate(path, (off_t)len - 30), 0);
	assert_int_equal(mcz_writer_resume(&w, path, &o), MCZ_E_CORRUPT);
	assert_null(w);
	free(bytes);
	/* PART blocks: a file being written, read as it is */
	snprintf(path, sizeof path, "%s/part.mcz", rs_dir);
	w = rs_open(path, 0);
	rs_rows(w, 0, 50);
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	assert_int_equal(mcz_writer_resume(&(mcz_writer *){NULL}, path, &o), MCZ_E_CORRUPT);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	/* an older format: its readers would refuse the new blocks */
	snprintf(path, sizeof path, "%s/old.mcz", rs_dir);
	setenv("MCZ_FORMAT", "1.4", 1);
	w = rs_open(path, 0);
	rs_rows(w, 0, 50);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	unsetenv("MCZ_FORMAT");
	assert_int_equal(mcz_writer_resume(&w, path, &o), MCZ_E_VERSION);
	/* not a file */
	snprintf(path, sizeof path, "%s/none.mcz", rs_dir);
	assert_int_not_equal(mcz_writer_resume(&w, path, &o), MCZ_OK);
}

/* One row, continued by one (batch, not quick: mcz import's writer).  The
 * new chunk of one row made its GCHUNK's run table from an empty buffer,
 * NULL + 0 in mcz_cur_make (undefined; clang's UBSan stopped fuzz-resume
 * on every seed). */
static void test_resume_one_row(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/one-row.mcz", rs_dir);
	mcz_write_opts o = rs_opts(1);
	o.quick = 0;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	mcz_stream_desc d = rs_desc[0];
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	d.name = "kernel.all.cpu.sys";
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	mcz_value v[3] = {{.u = 23790547}, {.u = 26090623}};
	assert_int_equal(mcz_writer_append(w, 47425, v, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	assert_int_equal(mcz_writer_resume(&w, path, &o), MCZ_OK);
	mcz_stream_desc g = rs_desc[1];
	assert_int_equal(mcz_writer_add_stream(w, &g, NULL), MCZ_OK);
	v[0].u += 1000;
	v[1].u += 2000;
	v[2].f = 1.5;
	assert_int_equal(mcz_writer_append(w, 47426, v, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	rs_check_clean(path);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->nrows, 2);
	assert_int_equal(mcz_stream_count(r), 3);
	mcz_series ser;
	assert_int_equal(mcz_read(r, 1, INT64_MIN, INT64_MAX, &ser), MCZ_OK);
	assert_int_equal(ser.n, 2);
	assert_int_equal(ser.v[1].u, 26092623);
	assert_int_equal(ser.delta[1], 2000);
	mcz_series_free(&ser);
	assert_int_equal(mcz_read(r, 2, 47426, 47427, &ser), MCZ_OK);
	assert_int_equal(ser.n, 1);
	assert_true(ser.present[0] && ser.v[0].f == 1.5);
	mcz_series_free(&ser);
	mcz_close(r);
}

/* A varint at p, its length in *n. */
static uint64_t rs_varint(const uint8_t *p, size_t *n)
{
	uint64_t v = 0;
	size_t i = 0;
	do
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
	while (p[i++] & 0x80);
	*n = i;
	return v;
}

/* An index whose CRC holds but whose first chunk entry points 2 bytes
 * before the chunk (a writer's bug, or a crafted file; fuzz-resume's
 * corpus-resume/found-index-chunk-off): by its index the chunk reads as
 * damaged, and summarises as empty, so that resume took no last sample
 * for the counters and wrote their next delta as 0; a scan finds the
 * chunk whole.  Refused. */
static void test_resume_index_misplaced(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/misplaced.mcz", rs_dir);
	mcz_write_opts o = rs_opts(1);
	o.quick = 0; /* an index head stored as is (SPEC.md 7.2, flags bit 2) */
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	for (int s = 0; s < 2; s++)
		assert_int_equal(mcz_writer_add_stream(w, &rs_desc[s], NULL), MCZ_OK);
	rs_rows(w, 0, 10);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	size_t len, ix = 0, n;
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 7, &ix, 1, NULL), 1);
	const uint8_t *p = b + ix + 16;
	assert_true(p[0] & 4);
	p++;
	rs_varint(p, &n); /* head_rlen */
	p += n;
	assert_int_equal(rs_varint(p, &n), 0); /* head_clen: as is */
	p += n;
	uint64_t nblocks = rs_varint(p, &n);
	p += n;
	for (uint64_t i = 0; i < 3 * nblocks; i++) {
		rs_varint(p, &n);
		p += n;
	}
	assert_int_equal(rs_varint(p, &n), 1); /* nchunks */
	p += n;
	uint8_t *q = b + (p - b); /* the entry's offset, written below */
	uint64_t off = rs_varint(q, &n), to = off - 2;
	assert_memory_equal(b + off, "mczB", 4);
	assert_true(n == 1 ? to < 128 : n == 2 && to >= 128 && to < 16384); /* as long */
	q[0] = n == 1 ? (uint8_t)to : (uint8_t)((to & 0x7f) | 0x80);
	if (n == 2)
		q[1] = (uint8_t)(to >> 7);
	file_block_fix_crc(b, ix);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(b);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_false(mcz_info(r)->recovered);
	mcz_close(r);
	assert_int_equal(mcz_writer_resume(&w, path, &o), MCZ_E_CORRUPT);
	assert_null(w);
	/* mcz check says so, and its repair is a whole file that resumes */
	mcz_check_report rep;
	assert_int_equal(mcz_check(path, &rep), MCZ_OK);
	assert_false(rep.index_ok);
	assert_int_equal(rep.blocks_bad, 1); /* the INDEX block: DAMAGED, not INCOMPLETE */
	assert_int_equal(rep.chunks_ok, 1);
	assert_non_null(strstr(rep.first_problem, "the index does not list the chunk at offset"));
	char fixed[128];
	snprintf(fixed, sizeof fixed, "%s/misplaced-fixed.mcz", rs_dir);
	assert_int_equal(mcz_repair(path, fixed), MCZ_OK);
	assert_int_equal(mcz_check(fixed, &rep), MCZ_OK);
	assert_true(rep.index_ok);
	assert_string_equal(rep.first_problem, "");
	assert_int_equal(mcz_writer_resume(&w, fixed, &o), MCZ_OK);
	rs_rows(w, 10, 12);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	assert_int_equal(mcz_check(fixed, &rep), MCZ_OK);
	assert_true(rep.index_ok);
	assert_int_equal(rep.rows_ok, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_live),
		cmocka_unit_test(test_resume_batch),
		cmocka_unit_test(test_resume_synced),
		cmocka_unit_test(test_resume_one_row),
		cmocka_unit_test(test_resume_refused),
		cmocka_unit_test(test_resume_index_misplaced),
	};
	return cmocka_run_group_tests(tests, rs_setup, rs_teardown);
}
