/* test-format-live.c: a recording read while it is written (SPEC.md 6.4
 * PART blocks, mcz_reader_refresh).
 *
 * The writer syncs rows into PART blocks between whole chunks; a reader
 * opened on the file sees every synced row, bit for bit; after more rows
 * and a refresh it sees those too, its caches (decoded columns, computed
 * summaries) answer for the new chunks; after close the file has no PART
 * block left (copied and renamed), and a refresh notices the new file.
 * Every prefix of a file with PART blocks opens with the rows of every
 * whole block, and a reader refreshed from a shorter prefix agrees with a
 * reader opened on the longer one.  A damaged PART block hides only its
 * own rows.
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

#include <cmocka.h>

#include "../../../format/mcz.h"

#define CHUNK_ROWS 64
#define DT 10000000 /* 10 ms */

static char lv_path[64];

static uint64_t lv_counter(int r, int s)
{
	return (uint64_t)r * r * 977 + (uint64_t)s * 1000000007u + (r % 7 == 3 ? 5 : 0);
}

static void lv_append(mcz_writer *w, int from, int to, int nstreams)
{
	for (int r = from; r < to; r++) {
		mcz_value v[3];
		for (int s = 0; s < nstreams; s++) {
			if (s == 1)
				v[s].f = r * 0.25;
			else
				v[s].u = lv_counter(r, s);
		}
		assert_int_equal(mcz_writer_append(w, (int64_t)r * DT + 3, v, NULL), MCZ_OK);
	}
}

static mcz_writer *lv_writer(void)
{
	snprintf(lv_path, sizeof lv_path, "/tmp/test-format-live-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = CHUNK_ROWS;
	o.chunk_ns = 0;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, lv_path, &o), MCZ_OK);
	for (int s = 0; s < 2; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = s ? "g" : "c";
		d.kind = s ? MCZ_GAUGE : MCZ_COUNTER;
		d.type = s ? MCZ_F64 : MCZ_U64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	return w;
}

/* Every row 0 .. n-1 of stream s reads back as written. */
static void lv_rows(mcz_reader *r, uint32_t s, int first, int n)
{
	mcz_series se;
	assert_int_equal(mcz_read(r, s, INT64_MIN, INT64_MAX, &se), MCZ_OK);
	size_t k = 0;
	for (size_t i = 0; i < se.n; i++)
		k += se.present[i] != 0;
	assert_int_equal(k, (size_t)(n - first)); /* rows before `first` lack it */
	for (size_t i = 0, j = 0; i < se.n; i++) {
		if (!se.present[i])
			continue;
		int row = first + (int)j++;
		assert_int_equal(se.t[i], (int64_t)row * DT + 3);
		if (s == 1)
			assert_true(se.v[i].f == row * 0.25);
		else
			assert_int_equal(se.v[i].u, lv_counter(row, (int)s));
	}
	mcz_series_free(&se);
}

/* The count of stream s over the whole recording, from the summaries. */
static uint64_t lv_count(mcz_reader *r, uint32_t s)
{
	const mcz_file_info *fi = mcz_info(r);
	mcz_bucket b;
	assert_int_equal(mcz_summary(r, s, fi->t_first, fi->t_last + 1, 1, &b), MCZ_OK);
	return b.count;
}

static size_t lv_size(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/* Block types in file order, from the byte layout (SPEC.md 4). */
static int lv_has_part(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	int parts = 0;
	for (size_t off = 20; off + 20 <= n && !memcmp(buf + off, "mczB", 4);) {
		unsigned type = buf[off + 4] | buf[off + 5] << 8;
		uint32_t len = (uint32_t)buf[off + 8] | (uint32_t)buf[off + 9] << 8 |
			       (uint32_t)buf[off + 10] << 16 | (uint32_t)buf[off + 11] << 24;
		parts += type == 8;
		off += 20 + (size_t)len;
	}
	return parts;
}

static void test_refresh(void **state)
{
	(void)state;
	mcz_writer *w = lv_writer();
	lv_append(w, 0, 100, 2); /* one chunk of 64 rows, 36 rows gathered */
	mcz_writer_mark(w, 50 * DT, MCZ_MARK_POINT, 0, "half");
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	assert_int_equal(lv_has_part(lv_path), 1);

	mcz_reader *r;
	assert_int_equal(mcz_open(&r, lv_path, 0), MCZ_OK);
	const mcz_file_info *fi = mcz_info(r);
	assert_int_equal(fi->recovered, 1);
	assert_int_equal(fi->nrows, 100);
	assert_int_equal(fi->nchunks, 2);
	assert_int_equal(fi->nparts, 1);
	assert_int_equal(fi->part_rows, 36);
	assert_int_equal(mcz_mark_count(r), 1);
	lv_rows(r, 0, 0, 100);
	lv_rows(r, 1, 0, 100);
	assert_int_equal(lv_count(r, 0), 100); /* summaries computed and kept */

	mcz_refresh f;
	assert_int_equal(mcz_reader_refresh(r, &f), MCZ_OK);
	assert_int_equal(f.new_rows, 0);
	assert_int_equal(f.first_changed, 2);

	/* more rows, a new stream: chunk 64..127 replaces the PART block */
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "late";
	d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	lv_append(w, 100, 150, 3);
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	assert_int_equal(mcz_reader_refresh(r, &f), MCZ_OK);
	assert_int_equal(f.new_rows, 50);
	assert_int_equal(f.first_changed, 1);
	assert_int_equal(f.nchunks, 3);
	assert_int_equal(f.replaced, 0);
	fi = mcz_info(r);
	assert_int_equal(fi->nrows, 150);
	assert_int_equal(fi->nparts, 1);
	assert_int_equal(fi->part_rows, 22);
	assert_int_equal(mcz_stream_count(r), 3);
	lv_rows(r, 0, 0, 150);
	lv_rows(r, 1, 0, 150);
	lv_rows(r, 2, 100, 150);
	assert_int_equal(lv_count(r, 0), 150);
	assert_int_equal(lv_count(r, 2), 50);

	/* a second sync with nothing new writes nothing */
	size_t before = lv_size(lv_path);
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	assert_int_equal(lv_size(lv_path), before);

	/* close: the file is written again without its PART blocks */
	lv_append(w, 150, 170, 3);
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	assert_int_equal(lv_has_part(lv_path), 3);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	assert_int_equal(lv_has_part(lv_path), 0);
	assert_int_equal(mcz_reader_refresh(r, &f), MCZ_OK);
	assert_int_equal(f.replaced, 1);
	assert_int_equal(f.new_rows, 20);
	assert_int_equal(f.first_changed, 2); /* chunks 0 and 1 are the same */
	fi = mcz_info(r);
	assert_int_equal(fi->recovered, 0);
	assert_int_equal(fi->nrows, 170);
	assert_int_equal(fi->nparts, 0);
	lv_rows(r, 0, 0, 170);
	lv_rows(r, 2, 100, 170);
	assert_int_equal(lv_count(r, 0), 170);
	assert_int_equal(mcz_mark_count(r), 1);
	assert_int_equal(mcz_reader_refresh(r, &f), MCZ_OK); /* nothing new */
	assert_int_equal(f.new_rows, 0);
	assert_int_equal(f.replaced, 0);

	/* a closed file that grows (an appended aux block): read again */
	const void *aux;
	size_t alen;
	assert_int_equal(mcz_aux(r, "phases", &aux, &alen), MCZ_E_NOTFOUND);
	assert_int_equal(mcz_append_aux(lv_path, "phases", "abc", 3), MCZ_OK);
	assert_int_equal(mcz_reader_refresh(r, &f), MCZ_OK);
	assert_int_equal(f.new_rows, 0);
	assert_int_equal(f.first_changed, 3); /* every chunk the same */
	assert_int_equal(mcz_aux(r, "phases", &aux, &alen), MCZ_OK);
	assert_int_equal(alen, 3);
	assert_memory_equal(aux, "abc", 3);
	lv_rows(r, 0, 0, 170);
	mcz_close(r);

	mcz_check_report rep;
	assert_int_equal(mcz_check(lv_path, &rep), MCZ_OK);
	assert_int_equal(rep.index_ok, 1);
	assert_int_equal(rep.blocks_bad, 0);
	assert_int_equal(rep.rows_ok, 170);
	unlink(lv_path);
}

static uint8_t *lv_read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t *buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* A file cut anywhere (the recorder killed): every prefix opens; rows only
 * grow with the prefix; a reader refreshed along the way agrees with one
 * opened on the same bytes. */
static void test_cut_and_refresh_mem(void **state)
{
	(void)state;
	mcz_writer *w = lv_writer();
	int row = 0;
	for (int i = 0; i < 12; i++) { /* 12 syncs of 13 rows */
		lv_append(w, row, row + 13, 2);
		row += 13;
		assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	}
	size_t len;
	uint8_t *buf = lv_read_all(lv_path, &len); /* before close: as if killed */
	mcz_writer_close(w);
	unlink(lv_path);

	mcz_reader *all;
	assert_int_equal(mcz_open_mem(&all, buf, len, 0), MCZ_OK);
	assert_int_equal(mcz_info(all)->nrows, (uint64_t)row);
	lv_rows(all, 0, 0, row);
	mcz_close(all);

	mcz_reader *live;
	uint8_t *copy = malloc(len);
	memcpy(copy, buf, 20);
	assert_int_equal(mcz_open_mem(&live, copy, 20, 0), MCZ_OK);
	uint64_t prev_rows = 0;
	for (size_t cut = 21; cut <= len; cut += 7) {
		mcz_reader *r;
		assert_int_equal(mcz_open_mem(&r, buf, cut, 0), MCZ_OK);
		const mcz_file_info *fi = mcz_info(r);
		assert_true(fi->nrows >= prev_rows);
		prev_rows = fi->nrows;
		/* the live reader: same bytes, reached by refreshes */
		memcpy(copy, buf, cut);
		mcz_refresh f;
		assert_int_equal(mcz_reader_refresh_mem(live, copy, cut, &f), MCZ_OK);
		const mcz_file_info *li = mcz_info(live);
		assert_int_equal(li->nrows, fi->nrows);
		assert_int_equal(li->nchunks, fi->nchunks);
		assert_int_equal(li->nparts, fi->nparts);
		assert_int_equal(mcz_stream_count(live), mcz_stream_count(r));
		if (fi->nrows) {
			assert_int_equal(lv_count(live, 0), fi->nrows);
			lv_rows(live, 0, 0, (int)fi->nrows);
		}
		mcz_close(r);
	}
	memcpy(copy, buf, len);
	assert_int_equal(mcz_reader_refresh_mem(live, copy, len, NULL), MCZ_OK);
	assert_int_equal(mcz_info(live)->nrows, (uint64_t)row);
	lv_rows(live, 0, 0, row);
	lv_rows(live, 1, 0, row);
	mcz_close(live);
	free(copy);
	free(buf);
}

/* A damaged PART block hides nothing else: its rows are missing, the
 * PART blocks after it still read (their counters' values too). */
static void test_damaged_part(void **state)
{
	(void)state;
	mcz_writer *w = lv_writer();
	lv_append(w, 0, 70, 2); /* a chunk of 64 rows, then 6 gathered */
	assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	for (int r = 70; r < 100; r += 10) { /* three PART blocks of 10 rows */
		lv_append(w, r, r + 10, 2);
		assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	}
	size_t len;
	uint8_t *buf = lv_read_all(lv_path, &len);
	mcz_writer_close(w);
	unlink(lv_path);
	/* the second PART block: flip a byte of its payload */
	size_t off = 20, part = 0, hit = 0;
	while (off + 20 <= len) {
		unsigned type = buf[off + 4] | buf[off + 5] << 8;
		uint32_t plen = (uint32_t)buf[off + 8] | (uint32_t)buf[off + 9] << 8 |
				(uint32_t)buf[off + 10] << 16 | (uint32_t)buf[off + 11] << 24;
		if (type == 8 && part++ == 1)
			hit = off;
		off += 20 + (size_t)plen;
	}
	assert_int_equal(part, 4);
	assert_true(hit > 0);
	assert_int_equal(buf[hit + 16], 10); /* its nrows */
	buf[hit + 16 + 8] ^= 0x40;
	mcz_reader *r;
	assert_int_equal(mcz_open_mem(&r, buf, len, 0), MCZ_OK);
	const mcz_file_info *fi = mcz_info(r);
	assert_int_equal(fi->nrows, 90);
	assert_int_equal(fi->nparts, 3);
	mcz_series se;
	assert_int_equal(mcz_read(r, 0, INT64_MIN, INT64_MAX, &se), MCZ_OK);
	assert_int_equal(se.n, 90);
	for (size_t i = 0; i < se.n; i++) {
		int row = i < 70 ? (int)i : (int)i + 10; /* rows 70..79 are gone */
		assert_int_equal(se.t[i], (int64_t)row * DT + 3);
		assert_int_equal(se.v[i].u, lv_counter(row, 0));
	}
	mcz_series_free(&se);
	mcz_close(r);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refresh),
		cmocka_unit_test(test_cut_and_refresh_mem),
		cmocka_unit_test(test_damaged_part),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
