/* test-format-bundle.c: small and wide files of format 1.4 (SPEC.md 5.8,
 * 6.3, 6.5, 7.2).  A batch writer (mcz import) puts a small file's
 * metadata, descriptors, topology and marks into one BUNDLE block,
 * compressed against the built-in dictionary, with an index of no sections
 * and a head as is; every value, time, key, descriptor and mark comes back
 * bit for bit and the summaries computed equal a scan's.  Microsecond
 * times in pairs take the TIME_LAG codec; a wide chunk compresses its
 * directory and transposes its runs; MCZ_FORMAT=1.3 writes none of it.
 * Frames packed against the dictionary at a small body's level and at the
 * packing level, loaded early on a thread or late, decode alike.
 * Damaged 1.4 structures (a bundle's item type, its packing, the index's
 * stream count, a compressed directory) are refused or recovered from,
 * never trusted.
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

TMPDIR_FIXTURE("mcz-test-bundle")

#define SM_NS 6
#define SM_ROWS 24

static const char *const sm_names[SM_NS] = {"kernel.all.load", "kernel.all.load", "kernel.all.load",
					    "disk.dev.read",   "disk.dev.read",	  "hinv.ncpu"};
static const char *const sm_inst[SM_NS] = {"1 minute", "5 minute", "15 minute", "sda", "sdb", ""};

/* Row r's time: a pair of records every minute, microseconds (PCP). */
static int64_t sm_time(int r)
{
	return (int64_t)(r / 2) * 60000000000LL + (r % 2) * 77009000LL +
	       (int64_t)(r * 37 % 11) * 1000;
}

static mcz_value sm_value(int s, int r, int *present)
{
	mcz_value v;
	*present = !(s == 4 && r % 5 == 2);
	if (s < 3)
		v.f = (double)((r * 7 + s * 3) % 50) / 100.0;
	else if (s < 5)
		v.u = 1000000007ULL * (uint64_t)(s + 1) + (uint64_t)r * (uint64_t)(s * 311);
	else
		v.u = 4;
	return v;
}

static void sm_write(const char *path, int batch)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 870911678625190000LL;
	o.chunk_ns = 0;
	o.batch = batch;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "host", "gonzo"), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "pcp_archive", "/var/log/pcp/pmlogger/gonzo/19970807"),
			 MCZ_OK);
	mcz_topo_obj topo[2] = {{-1, MCZ_TOPO_MACHINE, -1, 0, "gonzo"},
				{0, MCZ_TOPO_PU, 0, 0, "PU#0"}};
	assert_int_equal(mcz_writer_topology(w, topo, 2), MCZ_OK);
	for (int s = 0; s < SM_NS; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = sm_names[s];
		d.instance = sm_inst[s];
		d.source = "pcp";
		d.native = s < 3   ? "pcp:kernel.all.load"
			   : s < 5 ? "pcp:disk.dev.read"
				   : "pcp:hinv.ncpu";
		d.note = s < 3 ? "pcp: instant, FLOAT" : "pcp: count, counter, U64";
		d.unit = s < 3 ? "" : "count";
		d.kind = s == 3 || s == 4 ? MCZ_COUNTER : MCZ_GAUGE;
		d.type = s < 3 ? MCZ_F64 : MCZ_U64;
		d.scale = s == 5 ? 1.0 : 0.5;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value v[SM_NS];
	uint8_t p[SM_NS];
	for (int r = 0; r < SM_ROWS; r++) {
		for (int s = 0; s < SM_NS; s++) {
			int pr;
			v[s] = sm_value(s, r, &pr);
			p[s] = (uint8_t)pr;
		}
		assert_int_equal(mcz_writer_append(w, sm_time(r), v, p), MCZ_OK);
		if (r == 5 || r == 17)
			assert_int_equal(
			    mcz_writer_mark(w, sm_time(r) + 1, MCZ_MARK_GAP, 0, "<mark>"), MCZ_OK);
	}
	assert_int_equal(mcz_writer_meta(w, "import_skipped", "2 metrics not numeric"), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

/* The small file reads back bit for bit, its summaries equal a scan's. */
static void sm_check(mcz_reader *r)
{
	assert_string_equal(mcz_meta(r, "wall_epoch_ns"), "870911678625190000");
	assert_string_equal(mcz_meta(r, "host"), "gonzo");
	assert_string_equal(mcz_meta(r, "pcp_archive"), "/var/log/pcp/pmlogger/gonzo/19970807");
	assert_string_equal(mcz_meta(r, "import_skipped"), "2 metrics not numeric");
	assert_int_equal(mcz_info(r)->wall_epoch_ns, 870911678625190000LL);
	assert_int_equal(mcz_topo_count(r), 2);
	assert_string_equal(mcz_topo(r, 1)->name, "PU#0");
	assert_int_equal(mcz_mark_count(r), 2);
	assert_int_equal(mcz_mark_at(r, 1)->t, sm_time(17) + 1);
	assert_string_equal(mcz_mark_at(r, 1)->text, "<mark>");
	assert_int_equal(mcz_stream_count(r), SM_NS);
	for (int s = 0; s < SM_NS; s++) {
		const mcz_stream_desc *d = mcz_stream(r, (size_t)s);
		assert_string_equal(d->name, sm_names[s]);
		assert_string_equal(d->instance, sm_inst[s]);
		assert_string_equal(d->note,
				    s < 3 ? "pcp: instant, FLOAT" : "pcp: count, counter, U64");
		assert_true(d->scale == (s == 5 ? 1.0 : 0.5));
		mcz_series x;
		assert_int_equal(mcz_read(r, (uint32_t)s, INT64_MIN / 2, INT64_MAX / 2, &x),
				 MCZ_OK);
		assert_int_equal(x.n, SM_ROWS);
		for (int i = 0; i < SM_ROWS; i++) {
			int pr;
			mcz_value v = sm_value(s, i, &pr);
			assert_int_equal(x.t[i], sm_time(i));
			assert_int_equal(x.present[i], pr);
			if (pr)
				assert_memory_equal(&x.v[i], &v, sizeof v);
		}
		mcz_series_free(&x);
	}
}

/* The small file written (batch or not) to dir/name, its bytes. */
static uint8_t *sm_file(const char *name, int batch, char *path, size_t plen, size_t *len)
{
	snprintf(path, plen, "%s/%s", dir, name);
	sm_write(path, batch);
	return file_bytes(path, len);
}

static void test_small_batch(void **state)
{
	(void)state;
	char path[96];
	size_t len, o = 0;
	unsigned flags = 0;
	uint8_t *b = sm_file("small.mcz", 1, path, sizeof path, &len);
	assert_int_equal(b[10], MCZ_VERSION_MINOR); /* written by this version */
	/* one BUNDLE, the first block, critical, against the dictionary */
	assert_int_equal(file_blocks(b, len, MCZ_BT_BUNDLE, &o, 1, &flags), 1);
	assert_int_equal(o, 20);
	assert_int_equal(flags, 1);
	assert_int_equal(b[o + 16], 2);
	for (unsigned t = 1; t <= 11; t++)
		if (t != MCZ_BT_CHUNK && t != MCZ_BT_GCHUNK && t != MCZ_BT_INDEX)
			assert_int_equal(file_blocks(b, len, t, NULL, 1, NULL), 0);
	/* INDEX flags bits 2 and 3: head as is, no sections */
	assert_int_equal(file_blocks(b, len, MCZ_BT_INDEX, &o, 1, NULL), 1);
	assert_int_equal(b[o + 16] & 12, 12);
	assert_true(len < 600);
	/* the time column: TIME_LAG (pairs of records, microseconds) */
	size_t co = 0;
	int grouped = file_blocks(b, len, MCZ_BT_GCHUNK, &co, 1, NULL) == 1;
	if (!grouped)
		assert_int_equal(file_blocks(b, len, MCZ_BT_CHUNK, &co, 1, NULL), 1);
	mcz_chunk_info ci;
	uint32_t cl = mcz_cur_le32(b + co + 8);
	assert_int_equal(grouped ? mcz_gchunk_parse(b + co + 16, cl, &ci)
				 : mcz_chunk_parse(b + co + 16, cl, &ci),
			 MCZ_OK);
	uint64_t off[SM_NS + 2];
	mcz_codec_ctx cx = {0};
	assert_int_equal(mcz_gchunk_dir(&cx, &ci, off), MCZ_OK);
	assert_int_equal(ci.cols[off[0]], MCZ_CODEC_TIME_LAG);
	mcz_codec_ctx_free(&cx);
	free(b);

	mcz_reader *r, *rs;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	sm_check(r);
	/* summaries computed (no sections) equal a scan's */
	assert_int_equal(mcz_open(&rs, path, MCZ_OPEN_VERIFY), MCZ_OK);
	sm_check(rs);
	for (uint32_t s = 0; s < SM_NS; s++) {
		mcz_bucket b1[3], b2[3];
		assert_int_equal(mcz_summary(r, s, 0, sm_time(SM_ROWS - 1) + 1, 3, b1), MCZ_OK);
		assert_int_equal(mcz_summary(rs, s, 0, sm_time(SM_ROWS - 1) + 1, 3, b2), MCZ_OK);
		uint64_t n = 0;
		for (int k = 0; k < 3; k++) {
			assert_int_equal(b1[k].count, b2[k].count);
			assert_memory_equal(&b1[k].sum, &b2[k].sum, sizeof b1[k].sum);
			assert_memory_equal(&b1[k].min, &b2[k].min, sizeof b1[k].min);
			n += b1[k].count;
		}
		assert_int_equal(n, s == 4 ? SM_ROWS - 5 : SM_ROWS);
	}
	mcz_close(rs);
	mcz_close(r);
	mcz_check_report rep;
	assert_int_equal(mcz_check(path, &rep), MCZ_OK);
	assert_true(rep.index_ok);
	assert_int_equal(rep.blocks_bad, 0);
	/* an AUX block appended (the viewer's phase cache): a new index,
	 * still without sections, everything else as it was */
	assert_int_equal(mcz_append_aux(path, "phases", "abc", 3), MCZ_OK);
	size_t len2;
	b = file_bytes(path, &len2);
	assert_true(len2 > len);
	/* the trailer names the new index, after the old one: flags bits 2
	 * and 3 again */
	uint64_t io = mcz_cur_le64(b + len2 - 24);
	assert_true(io > len - 24);
	assert_int_equal(b[io + 4], MCZ_BT_INDEX);
	assert_int_equal(b[io + 16] & 12, 12);
	free(b);
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	const void *aux;
	size_t alen;
	assert_int_equal(mcz_aux(r, "phases", &aux, &alen), MCZ_OK);
	assert_int_equal(alen, 3);
	assert_memory_equal(aux, "abc", 3);
	sm_check(r);
	mcz_close(r);
}

/* Not batch: the first META is a block of its own at once, the rest
 * bundled at the first chunk; MCZ_FORMAT=1.3: no 1.4 structure at all. */
static void test_formats(void **state)
{
	(void)state;
	char path[96];
	size_t len, o = 0;
	uint8_t *b = sm_file("live.mcz", 0, path, sizeof path, &len);
	assert_int_equal(file_blocks(b, len, MCZ_BT_META, &o, 1, NULL), 1);
	assert_int_equal(o, 20);
	assert_int_equal(file_blocks(b, len, MCZ_BT_BUNDLE, NULL, 1, NULL), 1);
	free(b);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	sm_check(r);
	mcz_close(r);

	setenv("MCZ_FORMAT", "1.3", 1);
	b = sm_file("v13.mcz", 1, path, sizeof path, &len);
	unsetenv("MCZ_FORMAT");
	assert_int_equal(b[10], 3);
	assert_int_equal(file_blocks(b, len, MCZ_BT_BUNDLE, NULL, 1, NULL), 0);
	assert_int_equal(file_blocks(b, len, MCZ_BT_META, &o, 1, NULL), 2);
	assert_int_equal(o, 20); /* "written immediately after the header" */
	assert_int_equal(file_blocks(b, len, MCZ_BT_INDEX, &o, 1, NULL), 1);
	assert_int_equal(b[o + 16] & 12, 0);
	free(b);
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->version_minor, 3);
	sm_check(r);
	mcz_close(r);
}

#define WD_NS 3000
#define WD_ROWS 5

static uint64_t wd_value(int s, int r)
{
	return 7000000000ULL + (uint64_t)s * 104729ULL + (uint64_t)r * (uint64_t)(s % 3) * 1000;
}

/* Thousands of narrow counters: a GCHUNK with its directory compressed
 * and its run transposed, read back bit for bit. */
static void test_wide(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/wide.mcz", dir);
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.batch = 1;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	char inst[32];
	for (int s = 0; s < WD_NS; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		snprintf(inst, sizeof inst, "disk%d", s % 1000);
		d.name = s < 1000   ? "disk.dev.read"
			 : s < 2000 ? "disk.dev.write"
				    : "disk.dev.total";
		d.instance = inst;
		d.source = "pcp";
		d.kind = MCZ_COUNTER;
		d.type = MCZ_U64;
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value *v = calloc(WD_NS, sizeof *v);
	for (int r = 0; r < WD_ROWS; r++) {
		for (int s = 0; s < WD_NS; s++)
			v[s].u = wd_value(s, r);
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 1000000000 + 5, v, NULL),
				 MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	free(v);
	size_t len, co = 0;
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, MCZ_BT_GCHUNK, &co, 1, NULL), 1);
	mcz_chunk_info ci;
	assert_int_equal(mcz_gchunk_parse(b + co + 16, mcz_cur_le32(b + co + 8), &ci), MCZ_OK);
	assert_int_equal(ci.zdir, 1);
	assert_int_equal(ci.truns, 1);
	/* the directory as a frame: fewer bytes than streams */
	assert_true(ci.dir_len < WD_NS / 4);

	mcz_reader *r;
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	for (int s = WD_NS - 1; s >= 0; s -= 7) {
		mcz_series x;
		assert_int_equal(mcz_read(r, (uint32_t)s, INT64_MIN / 2, INT64_MAX / 2, &x),
				 MCZ_OK);
		assert_int_equal(x.n, WD_ROWS);
		for (int i = 0; i < WD_ROWS; i++)
			assert_int_equal(x.v[i].u, wd_value(s, i));
		mcz_series_free(&x);
	}
	/* its share of the run's frame: a few bytes, of a compressed run */
	uint64_t bytes = 99;
	assert_int_equal(mcz_query_col_bytes(r, 17, &bytes), MCZ_OK);
	assert_true(bytes < 4);
	mcz_close(r);

	/* a byte of the compressed directory flipped behind a good CRC:
	 * the chunk is a gap, nothing is read from it */
	size_t at = (size_t)(ci.dir - b) + ci.dir_len / 2;
	b[at] ^= 0x5a;
	file_block_fix_crc(b, co);
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	mcz_series x;
	int rc = mcz_read(r, 5, INT64_MIN / 2, INT64_MAX / 2, &x);
	if (rc == MCZ_OK) {
		assert_int_equal(x.n, 0);
		mcz_series_free(&x);
	}
	mcz_close(r);
	free(b);
}

/* A batch file of ns streams and a META value of vlen bytes (words every
 * PCP archive has: the dictionary's), packed against the dictionary (2)
 * and read back: below MCZ_PACK_SMALL_BYTES at MCZ_PACK_SMALL, the
 * dictionary loaded when first used; above it through the descriptors,
 * loaded on a thread as they came; above it through the META value alone,
 * loaded when the BUNDLE is packed. */
static void dict_case(int ns, size_t vlen)
{
	char path[96], inst[32];
	snprintf(path, sizeof path, "%s/dict-%d-%zu.mcz", dir, ns, vlen);
	char *val = malloc(vlen + 1);
	static const char words[] = "kernel.all.load mem.util.used network.interface.in.bytes ";
	for (size_t i = 0; i < vlen; i++)
		val[i] = words[(i * 7 / 5) % (sizeof words - 1)];
	val[vlen] = 0;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.batch = 1;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "import_note", val), MCZ_OK);
	for (int s = 0; s < ns; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		snprintf(inst, sizeof inst, "cpu%d", s);
		d.name = "kernel.percpu.cpu.user";
		d.instance = inst;
		d.source = "pcp";
		d.unit = "s";
		assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	}
	mcz_value *v = calloc((size_t)ns, sizeof *v);
	for (int r = 0; r < 3; r++) {
		for (int s = 0; s < ns; s++)
			v[s].f = r * 0.25 + s;
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 1000000000, v, NULL), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	size_t len, off = 0;
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, MCZ_BT_BUNDLE, &off, 1, NULL), 1);
	assert_int_equal(b[off + 16], 2);
	free(b);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, MCZ_OPEN_VERIFY), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 0);
	assert_string_equal(mcz_meta(r, "import_note"), val);
	assert_int_equal(mcz_stream_count(r), ns);
	mcz_series x;
	assert_int_equal(mcz_read(r, (uint32_t)ns - 1, INT64_MIN / 2, INT64_MAX / 2, &x), MCZ_OK);
	assert_int_equal(x.n, 3);
	assert_true(x.v[2].f == 0.5 + (ns - 1));
	mcz_series_free(&x);
	mcz_close(r);
	free(v);
	free(val);
}

static void test_dict_levels(void **state)
{
	(void)state;
	dict_case(4, 600);			       /* small */
	dict_case(1200, 300);			       /* descriptors */
	dict_case(4, MCZ_PACK_SMALL_BYTES * 3 / 2); /* the META value */
}

/* A BUNDLE that does not hold: an item of a type it may not hold, a
 * packing above 2.  The scan counts it damaged; nothing is declared. */
static void test_bad_bundle(void **state)
{
	(void)state;
	for (int bad = 0; bad < 3; bad++) {
		mcz_buf items = {0}, body = {0}, pl = {0}, f = {0};
		mcz_meta_encode_streams(&body, 0, &(mcz_stream_desc)MCZ_STREAM_DESC_INIT, 1);
		mcz_bundle_add(&items, bad == 0 ? MCZ_BT_CHUNK : MCZ_BT_STREAMS, &body);
		mcz_codec_ctx cx = {0};
		assert_int_equal(mcz_bundle_pack(&cx, &items, bad == 2 ? 2 : 1, 1, 0, &pl), MCZ_OK);
		if (bad == 1)
			pl.p[0] = 3;
		uint8_t h[20];
		mcz_block_header(h, 4);
		mcz_buf_put(&f, h, 20);
		mcz_block_frame(&f, MCZ_BT_BUNDLE, MCZ_BF_CRITICAL, pl.p, pl.len);
		mcz_reader *r;
		assert_int_equal(mcz_open_mem(&r, f.p, f.len, 0), MCZ_OK);
		assert_int_equal(mcz_info(r)->recovered, 1);
		assert_int_equal(mcz_stream_count(r), 0);
		mcz_close(r);
		mcz_codec_ctx_free(&cx);
		mcz_buf_free(&items);
		mcz_buf_free(&body);
		mcz_buf_free(&pl);
		mcz_buf_free(&f);
	}
}

/* An index without sections whose stream count disagrees with the
 * streams declared is not trusted: the file is recovered by scanning. */
static void test_bad_index(void **state)
{
	(void)state;
	char path[96];
	size_t len, o = 0;
	uint8_t *b = sm_file("small.mcz", 1, path, sizeof path, &len);
	assert_int_equal(file_blocks(b, len, MCZ_BT_INDEX, &o, 1, NULL), 1);
	uint32_t l = mcz_cur_le32(b + o + 8);
	/* the head as is ends with nstreams, the payload's last byte */
	assert_int_equal(b[o + 16 + l - 1], SM_NS);
	b[o + 16 + l - 1] = SM_NS + 1;
	mcz_reader *r;
	/* the payload CRC fails first: the head is not used */
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 1);
	sm_check(r);
	mcz_close(r);
	file_block_fix_crc(b, o);
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->recovered, 1);
	sm_check(r);
	mcz_close(r);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_batch), cmocka_unit_test(test_formats),
	    cmocka_unit_test(test_wide),	cmocka_unit_test(test_bad_bundle),
	    cmocka_unit_test(test_bad_index),	cmocka_unit_test(test_dict_levels),
	};
	unsetenv("MCZ_FORMAT");
	return cmocka_run_group_tests(tests, setup, teardown);
}
