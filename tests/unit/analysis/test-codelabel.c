/* test-codelabel.c: the viewer's names of code (viewer/analysis/code/codelabel.c,
 * hotcode.c's keys) on a recording written with a code profile: a stripped
 * binary's code at two far offsets is one function, "hpcc (no symbols)",
 * while phase detection still sees two regions; a C++ member and its
 * `.isra.0` clone (symbol table names) are one function, full and brief
 * names demangled; anonymous code is named but left out of the hint; the
 * report's hint names the objects without symbols with their share, how
 * to get names, and the recorder's word on a debuginfod server; an inline
 * chain reads as brief names.
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
#include "../../../viewer/model/model.h"

#define CN_IV 100000000LL /* 100 ms */
#define CN_N 20

static char cn_path[64];

static vw_model *cn_model(void)
{
	snprintf(cn_path, sizeof cn_path, "/tmp/test-codelabel-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, cn_path, &o), MCZ_OK);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.cpu.busy";
	d.unit = "%";
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	for (int r = 0; r <= CN_N; r++) {
		mcz_value v = {.f = 100.0};
		assert_int_equal(mcz_writer_append(w, (int64_t)r * CN_IV, &v, NULL), MCZ_OK);
	}
	static const mcz_code_object objs[] = {
		{"/usr/bin/hpcc", "", "stripped (no symbols, no debug info)"},
		{"/bin/app", "", ""},
		{"[anon]", "", "no file (anonymous or JIT code)"},
	};
	static const mcz_code_loc locs[] = {
		{0, 0x14740, MCZ_CODE_ADDR, "", "", "", 0},
		{0, 0x20000, MCZ_CODE_ADDR, "", "", "", 0},
		{1, 0x1000, MCZ_CODE_SYMTAB, "_ZNK3qmc6WalkerIdE6branchEl", "", "", 0},
		{1, 0x1400, MCZ_CODE_SYMTAB, "_ZNK3qmc6WalkerIdE6branchEl.isra.0", "", "", 0},
		{2, 0x7000, MCZ_CODE_ADDR, "", "", "", 0},
	};
	/* per interval: hpcc 35 + 35, branch 10 + 10, anon 10 */
	static const uint32_t cnt[] = {35, 35, 10, 10, 10};
	int64_t t[CN_N];
	size_t first[CN_N + 1];
	mcz_code_hit hits[5 * CN_N];
	for (int i = 0; i < CN_N; i++) {
		t[i] = (int64_t)i * CN_IV;
		first[i] = (size_t)(5 * i);
		for (int k = 0; k < 5; k++)
			hits[5 * i + k] = (mcz_code_hit){(uint32_t)k, cnt[k]};
	}
	first[CN_N] = 5 * CN_N;
	mcz_code c = {"cpu-clock", 1000000, CN_IV,
		      "/usr/bin/hpcc: stripped; debuginfod: no answer within 5 s (DEBUGINFOD_TIMEOUT): "
		      "not asked for the other objects, named by their object; [anon]: no file",
		      3, objs, 5, locs, CN_N, t, first, 5 * CN_N, hits, 0, NULL,
		      0, NULL, 0, NULL, 0, NULL, 0, NULL};
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	vw_model *m;
	char err[256];
	const char *paths[1] = {cn_path};
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, 1, &oo, err, sizeof err), 0);
	return m;
}

static void test_names(void **state)
{
	(void)state;
	vw_model *m = cn_model();
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_hotcode_nfunctions(an), 3);
	assert_string_equal(vw_hotcode_name(an, 0), "hpcc (no symbols)");
	assert_string_equal(vw_hotcode_brief(an, 0), "hpcc (no symbols)");
	assert_string_equal(vw_hotcode_name(an, 1), "qmc::Walker<double>::branch(long) const");
	assert_string_equal(vw_hotcode_brief(an, 1), "qmc::Walker<double>::branch");
	assert_string_equal(vw_hotcode_name(an, 2), "[anon] (no symbols)");
	vw_hot h[4];
	uint64_t total;
	assert_int_equal(vw_hotcode_top(an, 0, CN_N * CN_IV, h, 4, &total), 3);
	assert_int_equal(h[0].samples, 70 * CN_N);
	assert_int_equal(total, 100 * CN_N);
	/* the detector's regions stay apart: hpcc's two offsets are two */
	size_t nr = vw_hotcode_regions(an, 16), hpcc = 0;
	for (size_t r = 0; r < nr; r++)
		hpcc += !strncmp(vw_hotcode_region_name(an, r), "code:hpcc+0x", 12);
	assert_int_equal(hpcc, 2);
	vw_an_free(an);
	vw_model_free(m);
	unlink(cn_path);
}

static void test_hint(void **state)
{
	(void)state;
	vw_model *m = cn_model();
	char hint[600];
	assert_int_equal(vw_codelabel_hint(m, hint, sizeof hint), 1);
	assert_string_equal(hint, "code: no symbols for hpcc (70 %): install the debug package "
				  "(Debian: -dbgsym), or record again with DEBUGINFOD_URLS set "
				  "(mcrec(1)); debuginfod: no answer within 5 s (DEBUGINFOD_TIMEOUT): "
				  "not asked for the other objects, named by their object");
	/* a short buffer: cut, terminated */
	char small[24];
	assert_int_equal(vw_codelabel_hint(m, small, sizeof small), 1);
	assert_true(strlen(small) < sizeof small);
	vw_model_free(m);
	unlink(cn_path);
}

static void test_chain(void **state)
{
	(void)state;
	char b[64];
	vw_codelabel_chain("_ZN3qmc6WalkerIdE5driftEd;main", b, sizeof b);
	assert_string_equal(b, "qmc::Walker<double>::drift, main");
	vw_codelabel_chain("", b, sizeof b);
	assert_string_equal(b, "");
	char s[8];
	vw_codelabel_chain("alpha;beta;gamma", s, sizeof s);
	assert_true(strlen(s) < sizeof s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
