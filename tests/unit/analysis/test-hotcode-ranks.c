/* test-hotcode-ranks.c: the hot function per rank (viewer/analysis/
 * hotcode.c, vw_hotcode_file_*) and the Ranks view coloured by it
 * (viewer/views/view-ranks.c), on 4 generated rank files of one job with a
 * code profile each: 6 s of one busy CPU, ranks 0, 1 and 3 in "alpha" all
 * along, rank 2 in "alpha" for 3 s then in "beta" (its marks cut the same
 * two phases on every rank).  Each rank's top function of each half, its
 * columns, the job-wide letters (A alpha, B beta: by samples over the job)
 * and the view's cells and readout say so.
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

#include "../../../format/mcz.h"
#include "../../../viewer/analysis/analysis.h"
#include "../../../viewer/app/app.h"
#include "../../../viewer/model/model.h"

#define HR_IV 100000000LL /* 100 ms */
#define HR_N 60           /* intervals */
#define HR_RANKS 4

static char hr_path[HR_RANKS][80];

static void hr_write(int rank)
{
	snprintf(hr_path[rank], sizeof hr_path[rank], "/tmp/test-hotcode-ranks-%d.%d.mcz",
		 (int)getpid(), rank);
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 1790000000000000000LL + rank * 1000000LL;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, hr_path[rank], &o), MCZ_OK);
	char buf[16];
	snprintf(buf, sizeof buf, "%d", rank);
	mcz_writer_meta(w, "rank", buf);
	snprintf(buf, sizeof buf, "%d", HR_RANKS);
	mcz_writer_meta(w, "nranks", buf);
	mcz_writer_meta(w, "job", "99");
	mcz_writer_meta(w, "host", "node0");
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.cpu.busy";
	d.unit = "%";
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	for (int r = 0; r <= HR_N; r++) {
		mcz_value v = {.f = 100.0};
		assert_int_equal(mcz_writer_append(w, (int64_t)r * HR_IV, &v, NULL), MCZ_OK);
	}
	assert_int_equal(mcz_writer_mark(w, 0, MCZ_MARK_BEGIN, 0, "first"), MCZ_OK);
	assert_int_equal(mcz_writer_mark(w, HR_N / 2 * HR_IV, MCZ_MARK_END, 0, ""), MCZ_OK);
	assert_int_equal(mcz_writer_mark(w, HR_N / 2 * HR_IV, MCZ_MARK_BEGIN, 0, "second"), MCZ_OK);
	assert_int_equal(mcz_writer_mark(w, HR_N * HR_IV, MCZ_MARK_END, 0, ""), MCZ_OK);
	static const mcz_code_object objs[] = {{"/bin/app", "ab", ""}};
	static const mcz_code_loc locs[] = {
		{0, 0x1000, MCZ_CODE_DWARF, "alpha", "main", "src/app.c", 10},
		{0, 0x2000, MCZ_CODE_DWARF, "beta", "main", "src/app.c", 20},
	};
	int64_t t[HR_N];
	size_t first[HR_N + 1];
	mcz_code_hit hits[HR_N];
	for (int i = 0; i < HR_N; i++) {
		int beta = rank == 2 && i >= HR_N / 2;
		t[i] = (int64_t)i * HR_IV;
		first[i] = (size_t)i;
		hits[i] = (mcz_code_hit){(uint32_t)beta, 100};
	}
	first[HR_N] = HR_N;
	mcz_code c = {"cpu-clock", 1000000, HR_IV, "", 1, objs, 2, locs, HR_N, t, first,
		      HR_N, hits, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static vw_model *hr_model(void)
{
	const char *paths[HR_RANKS];
	for (int r = 0; r < HR_RANKS; r++) {
		hr_write(r);
		paths[r] = hr_path[r];
	}
	vw_model *m;
	char err[256];
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, HR_RANKS, &oo, err, sizeof err), 0);
	return m;
}

static void hr_unlink(void)
{
	for (int r = 0; r < HR_RANKS; r++)
		unlink(hr_path[r]);
}

/* Per rank file (given in rank order: file f is rank f). */
static void test_file_top_and_columns(void **state)
{
	(void)state;
	vw_model *m = hr_model();
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_hotcode_nfunctions(an), 2);
	assert_string_equal(vw_hotcode_name(an, 0), "alpha"); /* 210 of 240 samples x 100 */
	assert_string_equal(vw_hotcode_name(an, 1), "beta");
	int64_t half = m->t_min + (m->t_max - m->t_min) / 2;
	for (size_t f = 0; f < HR_RANKS; f++) {
		int64_t off = m->offsets[f];
		vw_hot h[2];
		uint64_t total;
		/* first half: alpha everywhere */
		assert_int_equal(vw_hotcode_file_top(an, f, off, off + HR_N / 2 * HR_IV, h, 2, &total), 1);
		assert_int_equal(h[0].fn, 0);
		assert_int_equal(total, HR_N / 2 * 100);
		/* second half: beta on rank 2 alone, all of its samples */
		assert_int_equal(vw_hotcode_file_top(an, f, off + HR_N / 2 * HR_IV, off + HR_N * HR_IV, h, 2,
						     &total), 1);
		assert_int_equal(h[0].fn, f == 2 ? 1 : 0);
		assert_true(h[0].share == 1.0);
		assert_int_equal(total, HR_N / 2 * 100);
		/* columns of the run: rank 2 turns to beta in the middle */
		int fn[20];
		double sh[20];
		assert_int_equal(vw_hotcode_file_columns(an, f, m->t_min, m->t_max, 20, fn, sh), 0);
		for (int i = 0; i < 20; i++) {
			int64_t mid = m->t_min + (m->t_max - m->t_min) * (2 * i + 1) / 40;
			if (mid < half - 2 * HR_IV || mid > half + 2 * HR_IV)
				assert_int_equal(fn[i], f == 2 && mid > half ? 1 : 0);
		}
	}
	/* the job's top list is unchanged: both, alpha first */
	vw_hot h[2];
	assert_int_equal(vw_hotcode_top(an, m->t_min, m->t_max + HR_IV, h, 2, NULL), 2);
	assert_int_equal(h[0].fn, 0);
	/* no such file */
	assert_int_equal(vw_hotcode_file_top(an, HR_RANKS, m->t_min, m->t_max, h, 2, NULL), 0);
	vw_an_free(an);
	vw_model_free(m);
	hr_unlink();
}

/* The class columns over every rank (from the merged table's checkpoints)
 * are the sums of each rank's own (walked), column by column, for windows
 * inside, across and past the run and any number of columns. */
static void test_class_columns_all_ranks(void **state)
{
	(void)state;
	vw_model *m = hr_model();
	vw_an *an = vw_an_new(m);
	int64_t span = m->t_max - m->t_min;
	const int64_t win[][2] = {{m->t_min, m->t_max}, {m->t_min - span / 3, m->t_max + span / 5},
				  {m->t_min + span / 7, m->t_min + span / 2 + 3}, {m->t_min + 1, m->t_min + 2},
				  {m->t_min + span / 3, m->t_min + span / 3 + HR_IV * 3 / 2}};
	static const size_t ncols[] = {1, 2, 7, 20, 59, 199, 240, 500};
	static uint32_t all[500 * VW_CC_N], one[500 * VW_CC_N], sum[500 * VW_CC_N];
	for (size_t w = 0; w < sizeof win / sizeof win[0]; w++)
		for (size_t k = 0; k < sizeof ncols / sizeof ncols[0]; k++) {
			size_t n = ncols[k];
			assert_int_equal(vw_hotcode_file_class_columns(an, SIZE_MAX, win[w][0], win[w][1], n, all), 0);
			memset(sum, 0, sizeof sum);
			for (size_t f = 0; f < HR_RANKS; f++) {
				assert_int_equal(vw_hotcode_file_class_columns(an, f, win[w][0], win[w][1], n, one), 0);
				for (size_t i = 0; i < n * VW_CC_N; i++)
					sum[i] += one[i];
			}
			assert_memory_equal(all, sum, n * VW_CC_N * sizeof *all);
		}
	/* the whole run: every sample, once */
	assert_int_equal(vw_hotcode_file_class_columns(an, SIZE_MAX, m->t_min, m->t_max + HR_IV, 3, all), 0);
	uint64_t total = 0;
	for (size_t i = 0; i < 3 * VW_CC_N; i++)
		total += all[i];
	assert_int_equal(total, HR_RANKS * HR_N * 100);
	vw_an_free(an);
	vw_model_free(m);
	hr_unlink();
}

/* The Ranks view: colour by the hot function by default; rank 2's row
 * turns from A to B, the others stay A; the readout names the function
 * and the rank's top one in the cursor's phase. */
static void test_ranks_view_code(void **state)
{
	(void)state;
	vw_model *m = hr_model();
	vw_an *an = vw_an_new(m);
	int v = vw_views_find("ranks");
	assert_true(v >= 0);
	vw_app a;
	assert_int_equal(vw_app_init(&a, an, v), 0);
	vw_canvas *c = vw_canvas_new(140, 14);
	assert_non_null(c);
	vw_model_set_cursor(m, m->t_min + (m->t_max - m->t_min) * 3 / 4);
	vw_frame_draw(&a, c);
	char *t = vw_canvas_to_text(c);
	/* every letter the rows draw: rank 2 in beta for its second half */
	assert_non_null(strstr(t, "colour hot function (A = alpha, B = beta)"));
	int seen = 0;
	for (char *line = t; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (line[0] != 'r' || line[1] < '0' || line[1] > '3' || strncmp(line + 2, " node0      ", 12))
			continue; /* a rank's row: its label, then its cells */
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		int has_b = memchr(line + 15, 'B', len - 15) != NULL;
		int has_a = memchr(line + 15, 'A', len - 15) != NULL;
		assert_true(has_a);
		char row[1024];
		snprintf(row, sizeof row, "%.*s", (int)len, line);
		/* gaps narrower than an interval filled (past the first cell: the
		 * first interval's middle may lie after it) */
		assert_null(strstr(row + 17, "\u00b7A"));
		assert_int_equal(has_b, line[1] == '2');
		seen++;
	}
	assert_int_equal(seen, HR_RANKS);
	free(t);
	/* rank 2 selected: beta under the cursor, its top in phase "second" */
	vw_app_key(&a, 'j');
	vw_app_key(&a, 'j');
	vw_frame_draw(&a, c);
	t = vw_canvas_to_text(c);
	assert_non_null(strstr(t, "code beta | phase top beta 100%"));
	free(t);
	vw_canvas_free(c);
	vw_app_free(&a);
	vw_an_free(an);
	vw_model_free(m);
	hr_unlink();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_top_and_columns),
		cmocka_unit_test(test_class_columns_all_ranks),
		cmocka_unit_test(test_ranks_view_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
