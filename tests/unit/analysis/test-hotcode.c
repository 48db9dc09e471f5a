/* test-hotcode.c: the viewer's reading of a code profile (viewer/analysis/
 * hotcode.c) on a recording written with one: 6 s of one busy CPU, 3 s in
 * "alpha" then 3 s in "beta" (two locations each, one with DWARF file:line),
 * no counter telling them apart.  The top list of each half names the
 * right function with its share and file:line; the code row's columns
 * follow; the region rates are 1 thread where the region ran and 0
 * elsewhere; phase detection finds the boundary at 3 s from the code alone;
 * --report=json carries "code"; the class rule compares busy segments by
 * where their code ran; two spans' work compared (the same mix, other
 * code, half of it); two files' profiles (ranks) are merged; callers
 * are summed by function.
 */
#include <math.h>
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
#include "../../../viewer/model/model.h"

#define HC_IV 100000000LL /* 100 ms */
#define HC_N 60           /* intervals */

static char hc_path[64];

static void hc_write(void)
{
	snprintf(hc_path, sizeof hc_path, "/tmp/test-hotcode-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, hc_path, &o), MCZ_OK);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.cpu.busy";
	d.unit = "%";
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	for (int r = 0; r <= HC_N; r++) {
		mcz_value v = {.f = 100.0};
		assert_int_equal(mcz_writer_append(w, (int64_t)r * HC_IV, &v, NULL), MCZ_OK);
	}
	static const mcz_code_object objs[] = {{"/bin/app", "ab", ""}};
	static const mcz_code_loc locs[] = {
		{0, 0x1000, MCZ_CODE_DWARF, "alpha", "main", "src/app.c", 10},
		{0, 0x1040, MCZ_CODE_SYMTAB, "alpha", "", "", 0},
		{0, 0x2000, MCZ_CODE_DWARF, "beta", "main", "src/app.c", 20},
		{0, 0x2040, MCZ_CODE_SYMTAB, "beta", "", "", 0},
	};
	int64_t t[HC_N];
	size_t first[HC_N + 1];
	mcz_code_hit hits[2 * HC_N];
	for (int i = 0; i < HC_N; i++) {
		int b = i >= HC_N / 2;
		t[i] = (int64_t)i * HC_IV;
		first[i] = (size_t)(2 * i);
		hits[2 * i] = (mcz_code_hit){(uint32_t)(2 * b), 90};
		hits[2 * i + 1] = (mcz_code_hit){(uint32_t)(2 * b + 1), 10};
	}
	first[HC_N] = 2 * HC_N;
	static const mcz_code_edge callers[] = {{0, 1, 2000}, {2, 1, 1500}, {2, 3, 1200}};
	mcz_code c = {"cpu-clock", 1000000, HC_IV, "", 1, objs, 4, locs, HC_N, t, first,
		      2 * HC_N, hits, 3, callers, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static vw_model *hc_model(void)
{
	hc_write();
	vw_model *m;
	char err[256];
	const char *paths[1] = {hc_path};
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, 1, &oo, err, sizeof err), 0);
	return m;
}

static void test_top_and_columns(void **state)
{
	(void)state;
	vw_model *m = hc_model();
	vw_an *an = vw_an_new(m);
	assert_true(vw_hotcode_has(an));
	assert_int_equal(vw_hotcode_nfunctions(an), 2);
	vw_hot h[4];
	uint64_t total;
	size_t n = vw_hotcode_top(an, 0, 3000000000LL, h, 4, &total);
	assert_int_equal(n, 1);
	assert_int_equal(total, 3000);
	assert_string_equal(vw_hotcode_name(an, h[0].fn), "alpha");
	assert_true(h[0].share == 1.0);
	assert_string_equal(h[0].file, "src/app.c");
	assert_int_equal(h[0].line, 10);
	assert_string_equal(h[0].inlined, "main");
	n = vw_hotcode_top(an, 2500000000LL, 3500000000LL, h, 4, &total);
	assert_int_equal(n, 2); /* half and half */
	assert_true(h[0].share == 0.5 && h[1].share == 0.5);
	int fn[6];
	double sh[6];
	vw_model_set_window(m, 0, 6000000000LL);
	assert_int_equal(vw_hotcode_columns(an, 0, 6000000000LL, 6, fn, sh), 0);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(vw_hotcode_name(an, (size_t)fn[i]), i < 3 ? "alpha" : "beta");
		assert_true(sh[i] == 1.0);
	}
	assert_int_equal(vw_hotcode_columns(an, 6000000000LL, 7000000000LL, 2, fn, NULL), 0);
	assert_int_equal(fn[0], -1); /* no code ran after the end */
	/* callers over the run: beta from alpha 1500, from beta 1200 */
	size_t beta = strcmp(vw_hotcode_name(an, 0), "beta") ? 1 : 0;
	vw_hot c[4];
	assert_int_equal(vw_hotcode_callers(an, beta, c, 4), 2);
	assert_string_equal(vw_hotcode_name(an, c[0].fn), "alpha");
	assert_true(c[0].samples == 1500 && c[1].samples == 1200);
	assert_true(c[0].share > 0.555 && c[0].share < 0.556);
	assert_int_equal(vw_hotcode_callers(an, 1 - beta, c, 4), 1);
	assert_true(c[0].share == 1.0);
	vw_an_free(an);
	vw_model_free(m);
	unlink(hc_path);
}

static void test_regions_and_phases(void **state)
{
	(void)state;
	vw_model *m = hc_model();
	vw_an *an = vw_an_new(m);
	/* regions: the DWARF places by function, the others by 256-byte region */
	size_t nr = vw_hotcode_regions(an, 8);
	assert_int_equal(nr, 4);
	double r[6];
	size_t alpha = 99;
	for (size_t k = 0; k < nr; k++)
		if (!strcmp(vw_hotcode_region_name(an, k), "code:alpha"))
			alpha = k;
	assert_true(alpha < nr);
	assert_int_equal(vw_hotcode_region_rate(an, alpha, 0, 6000000000LL, 6, r), 0);
	for (int i = 0; i < 6; i++) /* 90 of 100 samples a 100 ms interval at 1 kHz: 0.9 threads */
		assert_true(i < 3 ? r[i] > 0.89 && r[i] < 0.91 : r[i] == 0);
	/* no counter differs: the code alone cuts the run at 3 s */
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	char err[256];
	setenv("MCVIEW_PHASE_CACHE", "0", 1);
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_int_equal(vw_phases_count(an->phases), 2);
	int64_t b = vw_phases_at(an->phases, 1)->t0;
	assert_true(b >= 2900000000LL && b <= 3100000000LL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(vw_report_print(an, f, 1), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"code\":[{\"function\":\"alpha\",\"share\":1,\"samples\":"));
	assert_non_null(strstr(buf, "\"file\":\"src/app.c\",\"line\":20,\"brief\":\"beta\"}"));
	free(buf);
	vw_an_free(an);
	vw_model_free(m);
	unlink(hc_path);
}

/* How alike two spans' work is: the same mix 1, other code 0, half of
 * it 0.5; no samples -1. */
static void test_work_overlap(void **state)
{
	(void)state;
	vw_model *m = hc_model();
	vw_an *an = vw_an_new(m);
	const int64_t s = 1000000000LL;
	assert_true(fabs(vw_hotcode_work_overlap(an, 0, 3 * s, 0, s + s / 2) - 1) < 1e-9);
	assert_true(fabs(vw_hotcode_work_overlap(an, 0, 3 * s, 3 * s, 6 * s)) < 1e-9);
	assert_true(fabs(vw_hotcode_work_overlap(an, 0, 6 * s, 0, 3 * s) - 0.5) < 1e-9);
	assert_true(vw_hotcode_work_overlap(an, 0, 3 * s, 100 * s, 101 * s) < 0);
	vw_an_free(an);
	vw_model_free(m);
	unlink(hc_path);
}

/* Two busy segments with the same code but a counter that wavered share a
 * class; a busy one with other code does not; idle ones compare on all. */
static void test_class_by_code(void **state)
{
	(void)state;
	/* streams: 0 a counter (noise units), 1 and 2 code regions */
	const double mean[4 * 3] = {0, 10, 0.5, 10, 0, 0, 10, 10, 0.5, 10, 0, 0};
	const double raw[4 * 3] = {0, 1.0, 0.02, 0, 0, 1.0, 0, 0.98, 0.02, 0, 0, 1.0};
	const double len[4] = {30, 30, 30, 30};
	const double range[3] = {10, 10, 10};
	const uint8_t code[3] = {0, 1, 1}, busy[4] = {1, 1, 1, 1};
	int cls[4];
	int nc = vw_phase_class_assign_code(4, 3, mean, len, range, 0.2, code, busy, raw, cls);
	assert_int_equal(nc, 2);
	assert_int_equal(cls[0], cls[2]); /* the counter differs (0 vs 10), the code is the same */
	assert_int_equal(cls[1], cls[3]);
	assert_int_not_equal(cls[0], cls[1]);
	/* without the code rule, the counter splits them */
	nc = vw_phase_class_assign(4, 3, mean, len, range, 0.2, cls);
	assert_int_not_equal(cls[0], cls[2]);
}

/* Two ranks' files: their profiles are one job's — functions merged by
 * name, samples added. */
static void test_two_files(void **state)
{
	(void)state;
	hc_write();
	char second[80];
	snprintf(second, sizeof second, "%s.rank1", hc_path);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "cp %s %s", hc_path, second);
	assert_int_equal(system(cmd), 0);
	vw_model *m;
	char err[256];
	const char *paths[2] = {hc_path, second};
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, 2, &oo, err, sizeof err), 0);
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_hotcode_nfunctions(an), 2);
	vw_hot h[4];
	uint64_t total;
	assert_int_equal(vw_hotcode_top(an, m->t_min, m->t_max + HC_IV, h, 4, &total), 2);
	assert_int_equal(total, 2 * 6000);
	assert_true(h[0].share == 0.5);
	vw_an_free(an);
	vw_model_free(m);
	unlink(second);
	unlink(hc_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_and_columns),
		cmocka_unit_test(test_regions_and_phases),
		cmocka_unit_test(test_work_overlap),
		cmocka_unit_test(test_class_by_code),
		cmocka_unit_test(test_two_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
