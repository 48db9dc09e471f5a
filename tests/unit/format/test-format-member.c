/* test-format-member.c: job files (SPEC.md 5.9, MEMBER blocks, since 1.4).
 *
 * Three recordings (ranks 0..2, each with its own streams, values, marks
 * and metadata; one of them cut short as a killed recorder leaves it) are
 * written into a job file through mcz_writer_member, then read back: the
 * members in order with their names, each member's bytes identical to the
 * recording merged and its values identical to the recording's read
 * directly; a member outlives its job file's handle; mcz check of every
 * member; the job file cut inside its last member (scanning keeps the
 * members before it); a flipped byte in a member (mcz_check_member finds it,
 * the other members stay clean); the critical flag; a writer held to 1.3
 * refuses members.
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

#include "../file-bytes.h"

#include "../../../format/mcz.h"

#define NREC 3
#define ROWS 300

static char mb_dir[] = "/tmp/mcz-member-XXXXXX";
static uint8_t *mb_rec[NREC];
static size_t mb_len[NREC];

static void mb_spit(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* Rank k's recording: a counter and a gauge, ROWS rows at 10 ms from a
 * per-rank start, two marks; rank 2 is left without its index (cut). */
static void mb_record(int k)
{
	char path[96];
	snprintf(path, sizeof path, "%s/run.%d.mcz", mb_dir, k);
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 1790000000000000000LL + k * 1000;
	o.chunk_rows = 64;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	char rk[16];
	snprintf(rk, sizeof rk, "%d", k);
	assert_int_equal(mcz_writer_meta(w, "rank", rk), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "job", "77"), MCZ_OK);
	mcz_stream_desc d[2] = {
		{.name = "core.task_clock", .source = "perf", .native = "", .unit = "ns", .note = "",
		 .instance = "", .kind = MCZ_COUNTER, .type = MCZ_U64, .scale = 1, .topo = -1},
		{.name = "app.level", .source = "proc", .native = "", .unit = "%", .note = "",
		 .instance = "", .kind = MCZ_GAUGE, .type = MCZ_F64, .scale = 1, .topo = -1},
	};
	for (int s = 0; s < 2; s++)
		assert_int_equal(mcz_writer_add_stream(w, &d[s], NULL), MCZ_OK);
	for (int r = 0; r < ROWS; r++) {
		mcz_value v[2];
		v[0].u = (uint64_t)r * (9000000 + (uint64_t)k * 100000) + (uint64_t)(r % 5);
		v[1].f = (r * 7 + k) % 100 * 0.5;
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 10000000 + 5 + k, v, NULL), MCZ_OK);
		if (r == 100)
			assert_int_equal(mcz_writer_mark(w, (int64_t)r * 10000000, MCZ_MARK_BEGIN,
							 (uint32_t)k, "solve"),
					 MCZ_OK);
	}
	assert_int_equal(mcz_writer_flush(w), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mb_rec[k] = file_bytes(path, &mb_len[k]);
	if (k == 2) /* no index nor trailer: a recorder killed at the end */
		mb_len[k] -= 200;
}

static int mb_setup(void **state)
{
	(void)state;
	if (!mkdtemp(mb_dir))
		return -1;
	for (int k = 0; k < NREC; k++)
		mb_record(k);
	return 0;
}

static int mb_teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", mb_dir);
	for (int k = 0; k < NREC; k++)
		free(mb_rec[k]);
	return system(cmd) == 0 ? 0 : -1;
}

static void mb_job(const char *path)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 1790000000000000000LL;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	assert_int_equal(mcz_writer_meta(w, "members", "3"), MCZ_OK);
	for (int k = 0; k < NREC; k++) {
		char name[32];
		snprintf(name, sizeof name, "run.%d.mcz", k);
		assert_int_equal(mcz_writer_member(w, name, mb_rec[k], mb_len[k]), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

/* Every value of every stream of a and b, the same bits. */
static void mb_same(mcz_reader *a, mcz_reader *b)
{
	assert_int_equal(mcz_stream_count(a), mcz_stream_count(b));
	assert_int_equal(mcz_info(a)->nrows, mcz_info(b)->nrows);
	assert_int_equal(mcz_mark_count(a), mcz_mark_count(b));
	for (uint32_t s = 0; s < mcz_stream_count(a); s++) {
		mcz_series x = {0}, y = {0};
		assert_int_equal(mcz_read(a, s, INT64_MIN, INT64_MAX, &x), MCZ_OK);
		assert_int_equal(mcz_read(b, s, INT64_MIN, INT64_MAX, &y), MCZ_OK);
		assert_int_equal(x.n, y.n);
		assert_memory_equal(x.t, y.t, x.n * sizeof *x.t);
		assert_memory_equal(x.v, y.v, x.n * sizeof *x.v);
		mcz_series_free(&x);
		mcz_series_free(&y);
	}
}

static void test_members_read_in_place(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/job.mcz", mb_dir);
	mb_job(path);
	mcz_reader *j;
	assert_int_equal(mcz_open(&j, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(j)->recovered, 0);
	assert_int_equal(mcz_info(j)->version_minor, MCZ_VERSION_MINOR);
	assert_int_equal(mcz_stream_count(j), 0);
	assert_string_equal(mcz_meta(j, "members"), "3");
	assert_int_equal(mcz_member_count(j), NREC);
	mcz_reader *m[NREC];
	for (int k = 0; k < NREC; k++) {
		char name[32];
		snprintf(name, sizeof name, "run.%d.mcz", k);
		assert_string_equal(mcz_member_name(j, (size_t)k), name);
		size_t len;
		const void *b = mcz_member_bytes(j, (size_t)k, &len);
		assert_int_equal(len, mb_len[k]);
		assert_memory_equal(b, mb_rec[k], len); /* byte for byte */
		assert_int_equal(mcz_member_open(j, (size_t)k, 0, &m[k]), MCZ_OK);
	}
	assert_null(mcz_member_name(j, NREC));
	mcz_reader *bad;
	assert_int_equal(mcz_member_open(j, NREC, 0, &bad), MCZ_E_RANGE);
	mcz_close(j); /* the members still hold the job file's bytes */
	for (int k = 0; k < NREC; k++) {
		char rp[96], rk[16];
		snprintf(rp, sizeof rp, "%s/run.%d.mcz", mb_dir, k);
		snprintf(rk, sizeof rk, "%d", k);
		assert_string_equal(mcz_meta(m[k], "rank"), rk);
		assert_int_equal(mcz_info(m[k])->wall_epoch_ns, 1790000000000000000LL + k * 1000);
		assert_int_equal(mcz_info(m[k])->recovered, k == 2); /* cut: scanned */
		mcz_reader *direct;
		mb_spit(rp, mb_rec[k], mb_len[k]);
		assert_int_equal(mcz_open(&direct, rp, 0), MCZ_OK);
		mb_same(m[k], direct);
		assert_true(mcz_info(m[k])->nrows >= (k == 2 ? 256 : ROWS));
		mcz_close(direct);
		mcz_close(m[k]);
	}
}

static void test_check_and_damage(void **state)
{
	(void)state;
	char path[96], cut[96];
	snprintf(path, sizeof path, "%s/job2.mcz", mb_dir);
	snprintf(cut, sizeof cut, "%s/job-cut.mcz", mb_dir);
	mb_job(path);
	mcz_check_report rep;
	assert_int_equal(mcz_check(path, &rep), MCZ_OK);
	assert_int_equal(rep.index_ok, 1);
	assert_int_equal(rep.blocks_bad, 0);
	assert_int_equal(rep.blocks_ok, 1 + 1 + NREC + 1); /* META x2, members, INDEX */
	mcz_reader *j;
	assert_int_equal(mcz_open(&j, path, 0), MCZ_OK);
	for (size_t k = 0; k < NREC; k++) {
		assert_int_equal(mcz_check_member(j, k, &rep), MCZ_OK);
		assert_int_equal(rep.blocks_bad, 0);
		assert_int_equal(rep.index_ok, k != 2);
		assert_true(rep.rows_ok >= (k == 2 ? 256 : ROWS));
	}
	/* the MEMBER blocks carry the critical flag (a reader before 1.4
	 * would show an empty file) */
	uint64_t off, len;
	assert_int_equal(mcz_member_span(j, 1, &off, &len), MCZ_OK);
	size_t flen;
	uint8_t *b = file_bytes(path, &flen);
	mcz_close(j);
	/* a member's block starts with its header and the name "run.1.mcz" */
	size_t hdr = (size_t)off - 10 - 16;
	assert_memory_equal(b + hdr, "mczB", 4);
	assert_int_equal(b[hdr + 4], 12);
	assert_int_equal(b[hdr + 6], 1);
	/* a byte flipped inside member 1's samples: its check says so, the
	 * others stay clean, and the job file opens by its index */
	b[off + len / 2] ^= 0x40;
	mb_spit(cut, b, flen);
	assert_int_equal(mcz_open(&j, cut, 0), MCZ_OK);
	assert_int_equal(mcz_member_count(j), NREC);
	assert_int_equal(mcz_check_member(j, 0, &rep), MCZ_OK);
	assert_int_equal(rep.blocks_bad, 0);
	assert_int_equal(mcz_check_member(j, 1, &rep), MCZ_OK);
	assert_true(rep.blocks_bad > 0);
	assert_true(rep.first_problem[0] != '\0');
	mcz_close(j);
	assert_int_equal(mcz_check(cut, &rep), MCZ_OK); /* the MEMBER block's own CRC */
	assert_int_equal(rep.blocks_bad, 1);
	/* cut inside the last member: scanning keeps the two before it, and
	 * names the one cut (listed, never opened); the count the job file
	 * states says none is missing beyond it */
	b[off + len / 2] ^= 0x40;
	uint64_t off2;
	mb_spit(cut, b, flen);
	assert_int_equal(mcz_open(&j, cut, 0), MCZ_OK);
	assert_int_equal(mcz_member_span(j, 2, &off2, NULL), MCZ_OK);
	mcz_close(j);
	mb_spit(cut, b, (size_t)off2 + 100);
	assert_int_equal(mcz_open(&j, cut, 0), MCZ_OK);
	assert_int_equal(mcz_info(j)->recovered, 1);
	assert_int_equal(mcz_member_count(j), 3);
	assert_int_equal(mcz_member_expected(j), NREC);
	assert_false(mcz_member_is_cut(j, 1));
	assert_true(mcz_member_is_cut(j, 2));
	mcz_reader *m;
	assert_int_equal(mcz_member_open(j, 2, 0, &m), MCZ_E_TRUNCATED);
	assert_null(m);
	assert_non_null(strstr(mcz_errdetail(), "cut short"));
	assert_int_equal(mcz_member_open(j, 1, 0, &m), MCZ_OK);
	assert_string_equal(mcz_meta(m, "rank"), "1");
	assert_int_equal(mcz_info(m)->nrows, ROWS);
	mcz_close(m);
	mcz_close(j);
	free(b);
}

static void test_older_format_refuses_members(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/old.mcz", mb_dir);
	setenv("MCZ_FORMAT", "1.3", 1);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_member(w, "run.0.mcz", mb_rec[0], mb_len[0]), MCZ_E_ARG);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	unsetenv("MCZ_FORMAT");
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->version_minor, 3);
	assert_int_equal(mcz_member_count(r), 0);
	mcz_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members_read_in_place),
		cmocka_unit_test(test_check_and_damage),
		cmocka_unit_test(test_older_format_refuses_members),
	};
	return cmocka_run_group_tests(tests, mb_setup, mb_teardown);
}
