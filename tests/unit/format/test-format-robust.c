/* test-format-robust.c: damaged and foreign files.  A file cut at every
 * byte offset of its last chunks still opens with every complete chunk; a
 * flipped bit anywhere is detected by mcz_check; a newer major version is
 * refused naming both versions; unknown block types are skipped (or refused
 * when marked critical); reserved bits are enforced; mcz_repair turns a
 * damaged file into a clean one holding the same rows.
 *
 * The test walks blocks itself from the byte layout in format/SPEC.md
 * ("mczB" sync, type at +4, flags at +6, length at +8, header CRC at +12,
 * payload, payload CRC), so it also checks the spec against the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../../format/mcz.h"

#define NSTREAMS 4
#define NROWS 600
#define CHUNK_ROWS 64

static char rb_path[64], rb_path2[64];

static uint8_t *rb_file(size_t *len)
{
	snprintf(rb_path, sizeof rb_path, "/tmp/test-format-robust-%d.mcz", (int)getpid());
	snprintf(rb_path2, sizeof rb_path2, "/tmp/test-format-robust-%d.2.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = CHUNK_ROWS;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, rb_path, &o), MCZ_OK);
	mcz_writer_meta(w, "host", "h");
	for (int s = 0; s < NSTREAMS; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "x";
		d.kind = s % 2 ? MCZ_GAUGE : MCZ_COUNTER;
		d.type = s % 2 ? MCZ_F64 : MCZ_U64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	for (int r = 0; r < NROWS; r++) {
		mcz_value v[NSTREAMS];
		for (int s = 0; s < NSTREAMS; s++) {
			if (s % 2)
				v[s].f = r * 0.5 + s;
			else
				v[s].u = (uint64_t)r * r * 1000 + (uint64_t)s;
		}
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 10000000 + 7, v, NULL), MCZ_OK);
		if (r % 50 == 0)
			mcz_writer_mark(w, (int64_t)r * 10000000, MCZ_MARK_POINT, 0, "tick");
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	FILE *f = fopen(rb_path, "rb");
	assert_non_null(f);
	uint8_t *buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void rb_put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static uint32_t rb_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void rb_set32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Block boundaries from the spec's layout: end offset and type of each. */
typedef struct rb_block {
	size_t off, end;
	unsigned type;
} rb_block;

static size_t rb_blocks(const uint8_t *p, size_t len, rb_block *out, size_t max)
{
	size_t off = 20, n = 0;
	while (off + 16 <= len && !memcmp(p + off, "mczB", 4) && n < max) {
		size_t end = off + 16 + rb_le32(p + off + 8) + 4;
		out[n++] = (rb_block){off, end, (unsigned)(p[off + 4] | p[off + 5] << 8)};
		off = end;
	}
	return n;
}

/* Check that stream 0 (a counter) and stream 1 (a gauge) hold rows 0..n-1. */
static void rb_rows_ok(mcz_reader *r, size_t n)
{
	mcz_series s;
	assert_int_equal(mcz_read(r, 0, INT64_MIN, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s.t[i], (int64_t)i * 10000000 + 7);
		assert_true(s.v[i].u == (uint64_t)i * i * 1000);
	}
	mcz_series_free(&s);
	assert_int_equal(mcz_read(r, 1, INT64_MIN, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.n, n);
	for (size_t i = 0; i < n; i++)
		assert_true(s.v[i].f == i * 0.5 + 1);
	mcz_series_free(&s);
}

/* mcz_append_aux appends after the old trailer: a reader opened before the
 * append still reads every row (its mapping never changes under it), the
 * new aux block is found after reopening, and recovery by scanning (the
 * last index and trailer cut off) steps over the superseded trailer and
 * returns every row. */
static void test_append_aux_keeps_bytes(void **state)
{
	size_t len;
	uint8_t *orig = rb_file(&len);
	mcz_reader *before;
	assert_int_equal(mcz_open(&before, rb_path, 0), MCZ_OK);
	assert_int_equal(mcz_append_aux(rb_path, "phases", "one", 3), MCZ_OK);
	assert_int_equal(mcz_append_aux(rb_path, "phases", "two!", 4), MCZ_OK);
	rb_rows_ok(before, NROWS); /* opened before both appends */
	mcz_close(before);

	size_t len2;
	FILE *f = fopen(rb_path, "rb");
	assert_non_null(f);
	uint8_t *buf = malloc(1 << 20);
	len2 = fread(buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(len2 > len);
	assert_memory_equal(buf, orig, len); /* no byte of the old file changed */

	mcz_reader *r;
	const void *data;
	size_t n;
	assert_int_equal(mcz_open(&r, rb_path, 0), MCZ_OK);
	assert_false(mcz_info(r)->recovered);
	assert_int_equal(mcz_aux(r, "phases", &data, &n), MCZ_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(data, "two!", 4);
	rb_rows_ok(r, NROWS);
	mcz_close(r);

	mcz_check_report rep;
	assert_int_equal(mcz_check(rb_path, &rep), MCZ_OK);
	assert_int_equal(rep.blocks_bad, 0);
	assert_true(rep.index_ok);
	assert_string_equal(rep.first_problem, "");

	/* cut the newest trailer: recovery scans over both superseded ones */
	rb_put(rb_path2, buf, len2 - 24);
	assert_int_equal(mcz_open(&r, rb_path2, 0), MCZ_OK);
	assert_true(mcz_info(r)->recovered);
	assert_int_equal(mcz_aux(r, "phases", &data, &n), MCZ_OK);
	assert_memory_equal(data, "two!", 4);
	rb_rows_ok(r, NROWS);
	mcz_close(r);
	unlink(rb_path);
	unlink(rb_path2);
	free(buf);
	free(orig);
}

static void test_truncate_every_offset(void **state)
{
	size_t len;
	uint8_t *buf = rb_file(&len);
	rb_block b[64];
	size_t nb = rb_blocks(buf, len, b, 64);
	/* the last two chunks, their marks, the index and the trailer */
	size_t nchunk = 0, from = 0;
	for (size_t i = 0; i < nb; i++)
		if ((b[i].type == 4 || b[i].type == 10) && ++nchunk == NROWS / CHUNK_ROWS - 1)
			from = b[i].off;
	assert_true(from > 0);
	for (size_t cut = from; cut < len; cut++) {
		size_t rows = 0;
		for (size_t i = 0; i < nb; i++)
			if ((b[i].type == 4 || b[i].type == 10) && b[i].end <= cut)
				rows += CHUNK_ROWS;
		if (rows > NROWS)
			rows = NROWS;
		mcz_reader *r;
		int rc = mcz_open_mem(&r, buf, cut, 0);
		assert_int_equal(rc, MCZ_OK);
		assert_int_equal(mcz_info(r)->recovered, 1);
		assert_int_equal(mcz_info(r)->nrows, rows);
		rb_rows_ok(r, rows);
		mcz_close(r);
	}
	/* mcz check reports what is left, repair gives a clean file */
	size_t cut = from + 100;
	rb_put(rb_path, buf, cut);
	mcz_check_report rep;
	assert_int_equal(mcz_check(rb_path, &rep), MCZ_OK);
	assert_int_equal(rep.index_ok, 0);
	assert_true(rep.rows_ok == (NROWS / CHUNK_ROWS - 2) * CHUNK_ROWS);
	assert_true(rep.valid_bytes < cut);
	assert_string_not_equal(rep.first_problem, "");
	assert_int_equal(mcz_repair(rb_path, rb_path2), MCZ_OK);
	assert_int_equal(mcz_check(rb_path2, &rep), MCZ_OK);
	assert_int_equal(rep.index_ok, 1);
	assert_int_equal(rep.blocks_bad, 0);
	assert_string_equal(rep.first_problem, "");
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, rb_path2, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	assert_string_equal(mcz_meta(r, "host"), "h");
	rb_rows_ok(r, (NROWS / CHUNK_ROWS - 2) * CHUNK_ROWS);
	mcz_close(r);
	unlink(rb_path);
	unlink(rb_path2);
	free(buf);
}

static void test_flipped_bit_detected(void **state)
{
	size_t len;
	uint8_t *buf = rb_file(&len);
	mcz_check_report rep;
	assert_int_equal(mcz_check(rb_path, &rep), MCZ_OK);
	assert_int_equal(rep.index_ok, 1);
	assert_int_equal(rep.blocks_bad, 0);
	assert_true(rep.valid_bytes == len);
	for (size_t i = 0; i < len; i++) {
		buf[i] ^= (uint8_t)(1u << (i % 8));
		rb_put(rb_path, buf, len);
		int rc = mcz_check(rb_path, &rep);
		int detected = rc != MCZ_OK || !rep.index_ok || rep.blocks_bad > 0 ||
			       rep.first_problem[0] != 0;
		if (!detected)
			fail_msg("flipped bit at offset %zu was not detected", i);
		buf[i] ^= (uint8_t)(1u << (i % 8));
	}
	unlink(rb_path);
	free(buf);
}

static void rb_fix_header_crc(uint8_t *p)
{
	rb_set32(p + 16, (uint32_t)crc32(0, p, 16));
}

static void test_versions(void **state)
{
	size_t len;
	uint8_t *buf = rb_file(&len);
	mcz_reader *r;
	buf[8] = 2; /* major 2, minor 0 */
	buf[10] = 0;
	rb_fix_header_crc(buf);
	assert_int_equal(mcz_open_mem(&r, buf, len, 0), MCZ_E_VERSION);
	assert_non_null(strstr(mcz_errdetail(), "2.0"));
	assert_non_null(strstr(mcz_errdetail(), "1.x"));
	buf[8] = 1;
	buf[10] = 9; /* minor 9: a newer minor opens */
	rb_fix_header_crc(buf);
	assert_int_equal(mcz_open_mem(&r, buf, len, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->version_minor, 9);
	rb_rows_ok(r, NROWS);
	mcz_close(r);
	buf[12] = 1; /* reserved header flags */
	rb_fix_header_crc(buf);
	assert_int_equal(mcz_open_mem(&r, buf, len, 0), MCZ_E_CORRUPT);
	free(buf);
	unlink(rb_path);
}

/* Insert a block of type `type` and flags right after the header. */
static uint8_t *rb_insert(const uint8_t *buf, size_t len, unsigned type, unsigned flags,
			  size_t *out_len)
{
	const char payload[] = "future stuff";
	size_t bl = 16 + sizeof payload + 4;
	uint8_t *o = malloc(len + bl);
	memcpy(o, buf, 20);
	uint8_t *h = o + 20;
	memcpy(h, "mczB", 4);
	h[4] = (uint8_t)type;
	h[5] = (uint8_t)(type >> 8);
	h[6] = (uint8_t)flags;
	h[7] = (uint8_t)(flags >> 8);
	rb_set32(h + 8, sizeof payload);
	rb_set32(h + 12, (uint32_t)crc32(0, h, 12));
	memcpy(h + 16, payload, sizeof payload);
	rb_set32(h + 16 + sizeof payload, (uint32_t)crc32(0, (const uint8_t *)payload,
							  sizeof payload));
	memcpy(o + 20 + bl, buf + 20, len - 20);
	*out_len = len + bl;
	return o;
}

static void test_unknown_blocks(void **state)
{
	size_t len, l2;
	uint8_t *buf = rb_file(&len);
	mcz_reader *r;
	uint8_t *o = rb_insert(buf, len, 200, 0, &l2);
	assert_int_equal(mcz_open_mem(&r, o, l2, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->skipped_blocks, 1);
	rb_rows_ok(r, NROWS);
	mcz_close(r);
	free(o);
	o = rb_insert(buf, len, 200, 1, &l2); /* critical */
	assert_int_equal(mcz_open_mem(&r, o, l2, 0), MCZ_E_VERSION);
	assert_non_null(strstr(mcz_errdetail(), "200"));
	free(o);
	o = rb_insert(buf, len, 200, 4, &l2); /* a reserved flag bit */
	assert_int_equal(mcz_open_mem(&r, o, l2, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->skipped_blocks, 0); /* damaged, not "unknown" */
	rb_rows_ok(r, NROWS);
	mcz_close(r);
	free(o);
	free(buf);
	unlink(rb_path);
}

/* Timestamps are signed: a file whose rows lie before 0 (and near the
 * ends of the int64 range) opens and reads back; the span checks of the
 * chunk and index parsers must not overflow on them (UBSan found
 * INT64_MAX - t0 overflowing for a negative t0 in the fuzz-view run). */
static void test_negative_times(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof path, "/tmp/test-format-robust-%d.neg.mcz", (int)getpid());
	static const int64_t t0s[] = {-160095510, INT64_MIN + 1000, INT64_MAX - 1000};
	for (size_t k = 0; k < sizeof t0s / sizeof t0s[0]; k++) {
		mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
		o.chunk_rows = 4;
		mcz_writer *w;
		assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "g";
		d.kind = MCZ_GAUGE;
		d.type = MCZ_F64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
		for (int r = 0; r < 10; r++) {
			mcz_value v = {.f = r};
			assert_int_equal(mcz_writer_append(w, t0s[k] + r * 100, &v, NULL), MCZ_OK);
		}
		assert_int_equal(mcz_writer_close(w), MCZ_OK);
		mcz_reader *rd;
		assert_int_equal(mcz_open(&rd, path, 0), MCZ_OK);
		mcz_series s;
		assert_int_equal(mcz_read(rd, 0, INT64_MIN, INT64_MAX, &s), MCZ_OK);
		assert_int_equal(s.n, 10);
		assert_true(s.t[0] == t0s[k] && s.t[9] == t0s[k] + 900 && s.v[9].f == 9.0);
		mcz_series_free(&s);
		mcz_close(rd);
	}
	unlink(path);
}

static void test_bad_inputs(void **state)
{
	mcz_reader *r;
	assert_int_equal(mcz_open_mem(&r, "", 0, 0), MCZ_E_EMPTY);
	assert_int_equal(mcz_open_mem(&r, "hello world, not mcz", 20, 0), MCZ_E_NOTMCZ);
	assert_int_equal(mcz_open_mem(&r, "\x89MCZ\r\n\x1a\n\x01", 9, 0), MCZ_E_TRUNCATED);
	assert_int_equal(mcz_open(&r, "/nonexistent/file.mcz", 0), MCZ_E_IO);
	assert_int_equal(mcz_open(&r, "/tmp", 0), MCZ_E_ISDIR);
	snprintf(rb_path, sizeof rb_path, "/tmp/test-format-robust-%d.mcz", (int)getpid());
	rb_put(rb_path, (const uint8_t *)"", 0);
	assert_int_equal(mcz_open(&r, rb_path, 0), MCZ_E_EMPTY);
	mcz_check_report rep;
	assert_int_equal(mcz_check(rb_path, &rep), MCZ_E_EMPTY);
	unlink(rb_path);
	assert_string_equal(mcz_strerror(MCZ_E_VERSION), "unsupported format version");
	assert_string_equal(mcz_strerror(12345), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncate_every_offset),
		cmocka_unit_test(test_flipped_bit_detected),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_unknown_blocks),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_negative_times),
		cmocka_unit_test(test_append_aux_keeps_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
