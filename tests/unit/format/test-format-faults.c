/* test-format-faults.c: the writer on a disk that fills at every byte.
 *
 * RLIMIT_FSIZE makes a write past a chosen size fail (EFBIG, SIGXFSZ
 * ignored) exactly as a full disk does, part-way through whatever block is
 * being written: a chunk, a PART block, the marks, the index at close.  For
 * limits from the header's end to past the whole file (every byte, then
 * every third), a recording
 * (chunks of 32 rows, a sync every 5 rows, marks) is written until the
 * first error and closed, and the file must be one "whose every block was
 * written whole" (SPEC.md 4.1: the writer cuts a failed write back): mcz
 * check finds no damaged block and every byte readable, and the file holds
 * the first rows written, bit for bit, never fewer than were synced before
 * the error, and more room never gives fewer rows.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"

#define ROWS 200
#define DT 10000000 /* 10 ms */

static char ft_path[64];
static uint64_t ft_bytes; /* the file's size before its close */

static uint64_t ft_counter(int r)
{
	return (uint64_t)r * r * 977 + (r % 7 == 3 ? 5 : 0);
}

static void ft_limit(rlim_t n)
{
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = n == RLIM_INFINITY || n > rl.rlim_max ? rl.rlim_max : n;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/* Write the recording under a file size limit; returns the rows synced
 * (or flushed) before the first error, -1 when even opening failed. */
static int ft_record(rlim_t limit, int *closed_ok)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 32;
	o.chunk_ns = 0;
	mcz_writer *w;
	unlink(ft_path);
	ft_limit(limit);
	int rc = mcz_writer_open(&w, ft_path, &o);
	if (rc != MCZ_OK) {
		ft_limit(RLIM_INFINITY);
		return -1;
	}
	mcz_stream_desc d[2] = {
		{.name = "c.ops", .source = "test", .native = "", .unit = "ops", .note = "",
		 .instance = "", .kind = MCZ_COUNTER, .type = MCZ_U64, .scale = 1, .topo = -1},
		{.name = "g.level", .source = "test", .native = "", .unit = "%", .note = "",
		 .instance = "", .kind = MCZ_GAUGE, .type = MCZ_F64, .scale = 1, .topo = -1},
	};
	for (int s = 0; s < 2 && rc == MCZ_OK; s++)
		rc = mcz_writer_add_stream(w, &d[s], NULL);
	int safe = 0;
	for (int r = 0; r < ROWS && rc == MCZ_OK; r++) {
		mcz_value v[2];
		v[0].u = ft_counter(r);
		v[1].f = r * 0.25;
		rc = mcz_writer_append(w, (int64_t)r * DT + 3, v, NULL);
		if (rc == MCZ_OK && (r + 1) % 32 == 0)
			safe = r + 1; /* a chunk was written */
		if (rc == MCZ_OK && r % 50 == 7)
			rc = mcz_writer_mark(w, (int64_t)r * DT + 3, MCZ_MARK_POINT, 0, "step");
		if (rc == MCZ_OK && (r + 1) % 5 == 0 && (rc = mcz_writer_sync(w)) == MCZ_OK)
			safe = r + 1;
	}
	ft_bytes = mcz_writer_bytes(w);
	*closed_ok = mcz_writer_close(w) == MCZ_OK;
	if (*closed_ok)
		safe = ROWS;
	ft_limit(RLIM_INFINITY);
	return safe;
}

static void test_full_at_every_byte(void **state)
{
	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	snprintf(ft_path, sizeof ft_path, "/tmp/test-format-faults-%d.mcz", (int)getpid());
	int closed;
	assert_int_equal(ft_record(RLIM_INFINITY, &closed), ROWS);
	assert_true(closed);
	/* the file with its PART blocks, then its index: the most it takes */
	rlim_t whole = (rlim_t)ft_bytes + 4096;
	uint64_t prev_rows = 0;
	int opened = 0, incomplete = 0, clean = 0;
	/* every byte of the header and first blocks, then every third byte (a
	 * cut at each byte of each kind of block), past the close a few */
	rlim_t step;
	for (rlim_t lim = 20; lim <= whole; lim += step) {
		step = lim < 256 ? 1 : lim < (rlim_t)ft_bytes + 600 ? 3 : 97;
		int synced = ft_record(lim, &closed);
		if (synced < 0) {
			assert_false(opened); /* only the smallest limits fail to open */
			continue;
		}
		opened = 1;
		mcz_check_report rep;
		assert_int_equal(mcz_check(ft_path, &rep), MCZ_OK);
		if (rep.blocks_bad || rep.valid_bytes != rep.file_bytes)
			fail_msg("limit %llu: damaged: %s (%llu of %llu bytes)", (unsigned long long)lim,
				 rep.first_problem, (unsigned long long)rep.valid_bytes,
				 (unsigned long long)rep.file_bytes);
		assert_true(rep.file_bytes <= lim);
		if (closed) {
			assert_true(rep.index_ok);
			clean++;
		} else
			incomplete += !rep.index_ok;
		mcz_reader *r;
		int orc = mcz_open(&r, ft_path, 0);
		if (orc != MCZ_OK)
			fail_msg("limit %llu: the file does not open: %s (%s)", (unsigned long long)lim,
				 mcz_strerror(orc), mcz_errdetail());
		uint64_t n = mcz_info(r)->nrows;
		if (n < (uint64_t)synced || n < prev_rows)
			fail_msg("limit %llu: %llu rows readable, %d synced, %llu with less room",
				 (unsigned long long)lim, (unsigned long long)n, synced,
				 (unsigned long long)prev_rows);
		prev_rows = n;
		if (mcz_stream_count(r) == 0) { /* cut before the streams were written */
			assert_int_equal(n, 0);
			mcz_close(r);
			continue;
		}
		mcz_series ser;
		assert_int_equal(mcz_read(r, 0, INT64_MIN, INT64_MAX, &ser), MCZ_OK);
		assert_int_equal(ser.n, n);
		for (size_t i = 0; i < ser.n; i++) {
			assert_int_equal(ser.t[i], (int64_t)i * DT + 3);
			assert_int_equal(ser.v[i].u, ft_counter((int)i));
		}
		mcz_series_free(&ser);
		mcz_close(r);
	}
	unlink(ft_path);
	/* both outcomes were met: cut short (INCOMPLETE) and closed */
	assert_true(incomplete > 100);
	assert_true(clean > 0);
	print_message("%d closed, %d incomplete, none damaged\n", clean, incomplete);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_at_every_byte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
