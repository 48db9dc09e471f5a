/* test-format-bymetric.c: runs transposed by metric (SPEC.md 6.5 and 5.10,
 * since 1.5).  Per-CPU counters declared CPU by CPU (instructions, cycles,
 * misses of cpu0, then of cpu1...) put three metrics side by side in every
 * run; a 1.5 writer transposes such a run metric by metric, says so in the
 * run table (GCHUNK flags bit 2, entries 4n + t, t = 2), and writes one
 * REQUIRES block of 5 before the first such chunk, critical, so that
 * readers before 1.5 refuse the file.  Every value comes back bit for bit;
 * the layout is the one SPEC.md gives, byte for byte, on a small run;
 * MCZ_FORMAT=1.4 writes none of it and a larger file; a REQUIRES of a later
 * minor is refused with one line naming it; a run table whose flags claim
 * both layouts is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../../format/internal.h"
#include "../file-blocks.h"
#include "../file-bytes.h"
#include "../tmpdir.h"

TMPDIR_FIXTURE("mcz-test-bymetric")

#define NCPU 200
#define NS (3 * NCPU)
#define ROWS 32 /* two chunks of 16 */

static const char *bm_names[3] = {"core.instructions", "core.cycles", "core.llc_misses"};
static const double bm_rate[3] = {2.4e9, 2.6e9, 1.0e6};

static uint64_t bm_rng = 88172645463325252ull;
static double bm_noise(void)
{
	bm_rng ^= bm_rng << 13;
	bm_rng ^= bm_rng >> 7;
	bm_rng ^= bm_rng << 17;
	return (double)(bm_rng >> 11) / 4503599627370496.0 - 1.0; /* [-1, 1) */
}

/* The values written, row by row: busy counters with noise, 10 ms apart
 * with a jitter. */
static uint64_t bm_v[ROWS][NS];
static int64_t bm_t[ROWS];

static void bm_make(void)
{
	bm_rng = 88172645463325252ull;
	uint64_t acc[NS] = {0};
	for (int r = 0; r < ROWS; r++) {
		bm_t[r] = (int64_t)r * 10000000 + (int64_t)(50000 * (bm_noise() + 1));
		double sec = (double)(bm_t[r] - (r ? bm_t[r - 1] : -10000000)) / 1e9;
		for (int s = 0; s < NS; s++) {
			acc[s] += (uint64_t)(bm_rate[s % 3] * sec * (1 + 0.02 * bm_noise()));
			bm_v[r][s] = acc[s];
		}
	}
}

static void bm_write(const char *path)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 16;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	char inst[16];
	for (int s = 0; s < NS; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		snprintf(inst, sizeof inst, "cpu%d", s / 3);
		d.name = bm_names[s % 3];
		d.instance = inst;
		d.source = "perf";
		d.kind = MCZ_COUNTER;
		d.type = MCZ_U64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value v[NS];
	for (int r = 0; r < ROWS; r++) {
		for (int s = 0; s < NS; s++)
			v[s].u = bm_v[r][s];
		assert_int_equal(mcz_writer_append(w, bm_t[r], v, NULL), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static void bm_check_values(const char *path)
{
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_stream_count(r), NS);
	for (int s = 0; s < NS; s++) {
		mcz_series x;
		assert_int_equal(mcz_read(r, (uint32_t)s, INT64_MIN / 2, INT64_MAX / 2, &x), MCZ_OK);
		assert_int_equal(x.n, ROWS);
		for (int i = 0; i < ROWS; i++) {
			assert_int_equal(x.t[i], bm_t[i]);
			assert_int_equal(x.v[i].u, bm_v[i][s]);
		}
		mcz_series_free(&x);
	}
	mcz_close(r);
}

static uint64_t bm_uv(const uint8_t **p)
{
	uint64_t x = 0;
	for (int sh = 0;; sh += 7) {
		uint8_t c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return x;
	}
}

/* A GCHUNK's flags byte (at *flags_at, from the payload) and how many of
 * its runs are transposed by metric (t = 2 in a 4n + t entry). */
static int bm_runs_by_metric(const uint8_t *payload, size_t *flags_at)
{
	const uint8_t *p = payload;
	bm_uv(&p); /* nrows */
	uint64_t ns = bm_uv(&p);
	for (int i = 0; i < 3; i++)
		bm_uv(&p); /* t_first, span, nvalues */
	*flags_at = (size_t)(p - payload);
	uint8_t flags = *p++;
	if (flags & 1) {
		uint64_t dl = bm_uv(&p);
		p += dl;
	} else {
		for (uint64_t s = 0; s <= ns; s++)
			bm_uv(&p);
	}
	uint64_t nruns = bm_uv(&p);
	int by = 0;
	for (uint64_t k = 0; k < nruns; k++) {
		uint64_t e = bm_uv(&p);
		bm_uv(&p);
		by += (flags & 4) && (e & 3) == 2;
	}
	return by;
}

/* "a run transposed by metric: its columns in groups of the same stream
 * name, in the order of each group's first column; each group transposed
 * on its own; the groups back to back" */
static void test_layout(void **state)
{
	(void)state;
	mcz_stream_desc d[3] = {MCZ_STREAM_DESC_INIT, MCZ_STREAM_DESC_INIT, MCZ_STREAM_DESC_INIT};
	d[0].name = "a.x";
	d[1].name = "b.y";
	d[2].name = "a.x";
	uint32_t grp[3];
	assert_int_equal(mcz_gchunk_groups(d, 3, grp), 2);
	assert_int_equal(grp[0], 0);
	assert_int_equal(grp[1], 1);
	assert_int_equal(grp[2], 0);
	const uint8_t cols[] = "abcdef"; /* "ab" (a.x), "cde" (b.y), "f" (a.x) */
	const uint64_t off[4] = {0, 2, 5, 6};
	uint8_t t[6], back[6];
	assert_int_equal(mcz_gchunk_transpose_groups(cols, t, off, 3, grp, 0), 0);
	assert_memory_equal(t, "afbcde", 6);
	assert_int_equal(mcz_gchunk_transpose_groups(t, back, off, 3, grp, 1), 0);
	assert_memory_equal(back, cols, 6);
	/* one group: the transposition of 1.4 */
	assert_int_equal(mcz_gchunk_transpose(cols, t, off, 3, 0), 0);
	assert_memory_equal(t, "acfbde", 6);
}

static void test_round_trip(void **state)
{
	(void)state;
	char path[96], old[96];
	snprintf(path, sizeof path, "%s/bymetric.mcz", dir);
	snprintf(old, sizeof old, "%s/as-1.4.mcz", dir);
	bm_make();
	bm_write(path);
	bm_check_values(path);
	size_t len, off[4] = {0};
	unsigned flags = 0;
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(b[10], MCZ_VERSION_MINOR); /* the header's minor */
	/* one REQUIRES block, critical, its payload the varint 5, before the
	 * first GCHUNK with a run by metric (t = 2, flags bit 2); a GCHUNK
	 * before it has none (here the first: by metric it would save less
	 * than the 1 KiB that leaving readers before 1.5 behind must pay) */
	assert_int_equal(file_blocks(b, len, MCZ_BT_REQUIRES, off, 4, &flags), 1);
	assert_int_equal(flags, MCZ_BF_CRITICAL);
	assert_int_equal(file_le32(b + off[0] + 8), 1);
	assert_int_equal(b[off[0] + 16], 5);
	size_t req = off[0], g[4] = {0}, fa = 0;
	assert_int_equal(file_blocks(b, len, MCZ_BT_GCHUNK, g, 4, NULL), 2);
	int by_metric = 0;
	for (int k = 0; k < 2; k++) {
		int by = bm_runs_by_metric(b + g[k] + 16, &fa);
		uint8_t f = b[g[k] + 16 + fa];
		assert_int_equal(g[k] > req, by > 0);
		assert_int_equal(f & MCZ_GCHUNK_MRUNS ? 1 : 0, by > 0);
		if (by)
			assert_int_equal(f & MCZ_GCHUNK_TRUNS, 0);
		by_metric += by > 0;
	}
	assert_int_equal(by_metric, 1);
	/* MCZ_FORMAT=1.4: no REQUIRES, no run by metric, a larger file */
	setenv("MCZ_FORMAT", "1.4", 1);
	bm_write(old);
	unsetenv("MCZ_FORMAT");
	bm_check_values(old);
	size_t olen;
	uint8_t *ob = file_bytes(old, &olen);
	assert_int_equal(ob[10], 4);
	assert_int_equal(file_blocks(ob, olen, MCZ_BT_REQUIRES, NULL, 0, NULL), 0);
	assert_int_equal(file_blocks(ob, olen, MCZ_BT_GCHUNK, g, 4, NULL), 2);
	assert_int_equal(bm_runs_by_metric(ob + g[0] + 16, &fa), 0);
	assert_int_equal(ob[g[0] + 16 + fa] & MCZ_GCHUNK_MRUNS, 0);
	print_message("%d streams x %d rows: %zu B as 1.4, %zu B as 1.5\n", NS, ROWS, olen, len);
	assert_true(len < olen);
	free(ob);
	free(b);
}

static void bm_put(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* The file written afresh, its bytes (to damage a copy of, at bad). */
static uint8_t *bm_fresh(char *bad, size_t cap, const char *name, size_t *len)
{
	char path[96];
	snprintf(path, sizeof path, "%s/bymetric.mcz", dir);
	snprintf(bad, cap, "%s/%s", dir, name);
	bm_make();
	bm_write(path);
	return file_bytes(path, len);
}

/* The file written afresh and the offset of its one REQUIRES block. */
static uint8_t *bm_requires(char *bad, size_t cap, const char *name, size_t *len, size_t *req)
{
	size_t off[1] = {0};
	uint8_t *b = bm_fresh(bad, cap, name, len);
	assert_int_equal(file_blocks(b, *len, MCZ_BT_REQUIRES, off, 1, NULL), 1);
	*req = off[0];
	return b;
}

/* A REQUIRES of a later minor: "the file needs format 1.8", one line,
 * whether the reader opens the file by its index or by scanning it. */
static void test_newer_minor(void **state)
{
	(void)state;
	char bad[96];
	size_t len, o;
	uint8_t *b = bm_requires(bad, sizeof bad, "needs-1.8.mcz", &len, &o);
	b[o + 16] = 8;
	file_block_fix_crc(b, o);
	bm_put(bad, b, len);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, bad, 0), MCZ_E_VERSION);
	assert_non_null(strstr(mcz_errdetail(), "needs format 1.8"));
	assert_null(strchr(mcz_errdetail(), '\n'));
	/* without its trailer, by scanning */
	bm_put(bad, b, len - 24);
	assert_int_equal(mcz_open(&r, bad, 0), MCZ_E_VERSION);
	assert_non_null(strstr(mcz_errdetail(), "needs format 1.8"));
	/* a REQUIRES of this minor or an older one is read */
	b[o + 16] = 4;
	file_block_fix_crc(b, o);
	bm_put(bad, b, len);
	assert_int_equal(mcz_open(&r, bad, 0), MCZ_OK);
	mcz_close(r);
	free(b);
}

/* "A payload with bytes after the varint is invalid" (SPEC 5.10): a
 * REQUIRES of 5 followed by one more byte, its length and both CRCs made
 * right again.  The insertion moves every later block, so the index would
 * point wrong: the file is cut before its trailer and read by scanning.
 * There, as every block whose payload is invalid (SPEC 8, opening 3), it
 * is a damaged block, counted and named by mcz check, and what it guards
 * is still read (this reader knows runs by metric). */
static void test_requires_trailing(void **state)
{
	(void)state;
	char bad[96];
	size_t len, o;
	uint8_t *b = bm_requires(bad, sizeof bad, "requires-trailing.mcz", &len, &o);
	size_t pl = file_le32(b + o + 8);
	assert_int_equal(pl, 1);
	assert_int_equal(b[o + 16], 5);
	uint8_t *c = malloc(len + 1);
	assert_non_null(c);
	memcpy(c, b, o + 16 + pl);
	c[o + 16 + pl] = 0; /* the extra byte */
	memcpy(c + o + 16 + pl + 1, b + o + 16 + pl, len - (o + 16 + pl));
	file_block_set_len(c, o, (uint32_t)pl + 1);
	file_block_fix_crc(c, o);
	bm_put(bad, c, len + 1 - 24);
	mcz_reader *r = NULL;
	assert_int_equal(mcz_open(&r, bad, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 1);
	mcz_close(r);
	bm_check_values(bad);
	mcz_check_report rep;
	assert_int_equal(mcz_check(bad, &rep), MCZ_OK);
	assert_int_equal(rep.blocks_bad, 1);
	assert_non_null(strstr(rep.first_problem, "bad payload"));
	/* the same bytes without the extra one: no damage */
	memcpy(c + o + 16 + pl, b + o + 16 + pl, len - (o + 16 + pl));
	file_block_set_len(c, o, (uint32_t)pl);
	bm_put(bad, c, len - 24);
	assert_int_equal(mcz_check(bad, &rep), MCZ_OK);
	assert_int_equal(rep.blocks_bad, 0);
	bm_check_values(bad);
	free(c);
	free(b);
}

/* "bits 1 and 2 together are invalid": that chunk is a gap (a damaged
 * chunk), the other one still read. */
static void test_both_layouts(void **state)
{
	(void)state;
	char bad[96];
	size_t len, g[2] = {0}, fa = 0;
	uint8_t *b = bm_fresh(bad, sizeof bad, "both.mcz", &len);
	assert_int_equal(file_blocks(b, len, MCZ_BT_GCHUNK, g, 2, NULL), 2);
	/* the second chunk's runs are by metric (test_round_trip) */
	assert_true(bm_runs_by_metric(b + g[1] + 16, &fa) >= 1);
	b[g[1] + 16 + fa] |= MCZ_GCHUNK_TRUNS;
	file_block_fix_crc(b, g[1]);
	bm_put(bad, b, len);
	mcz_reader *r;
	mcz_series x;
	assert_int_equal(mcz_open(&r, bad, 0), MCZ_OK);
	assert_int_equal(mcz_read(r, 0, INT64_MIN / 2, INT64_MAX / 2, &x), MCZ_OK);
	assert_int_equal(x.n, 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(x.v[i].u, bm_v[i][0]);
	assert_int_equal(mcz_damaged_count(r), 1);
	mcz_series_free(&x);
	mcz_close(r);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_newer_minor),
		cmocka_unit_test(test_requires_trailing),
		cmocka_unit_test(test_both_layouts),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
