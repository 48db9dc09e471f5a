/* test-roofline.c: the roofline analysis on recordings written here with
 * libmcz — the hardware path that no machine at hand can record (a PCP
 * archive's perfevent FP_ARITH_INST_RETIRED.* and CAS events, as the
 * documented event names go), preferred to the application's app.flops /
 * app.bytes; ceilings from metadata and their absence; the placement
 * arithmetic (attainable, % of it, bound); the names the work matcher
 * takes and refuses.  And the recorder's side: the ceiling cache read back,
 * damaged caches refused with a line, the count datagram parser.
 */
#include <math.h>
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

#include "../roof-fixture.h"
#include "../tmpdir.h"

#include "../../../format/mcz.h"
#include "../../../recorder/rec.h"
#include "../../../recorder/calibrate/calibrate.h"
#include "../../../recorder/sources/mark-wire.h"
#include "../../../viewer/analysis/analysis.h"
#include "../../../viewer/model/model.h"
#include "../../../viewer/views/view.h"

TMPDIR_FIXTURE("mcz-test-roof")

static char *write_rec(const char *name, int hw, int app, int ceil)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s.mcz", dir, name);
	assert_int_equal(roof_fixture_write(path, (hw ? ROOF_FX_HW : 0) | (app ? ROOF_FX_APP : 0) |
							  (ceil ? ROOF_FX_CEIL : 0)), 0);
	return path;
}

/* The recording at path with its phases from marks: its analyses (an->m
 * the model); close_marks frees both. */
static vw_an *open_marks(const char *path)
{
	vw_model *m;
	char err[256];
	const char *paths[1] = {path};
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, 1, &oo, err, sizeof err), 0);
	vw_an *an = vw_an_new(m);
	assert_non_null(an);
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_MARKS, err, sizeof err), 0);
	return an;
}

static void close_marks(vw_an *an)
{
	vw_model *m = an->m;
	vw_an_free(an);
	vw_model_free(m);
}

static const vw_phase *phase_named(vw_an *an, const char *label)
{
	for (size_t i = 0; i < vw_phases_count(an->phases); i++)
		if (!strcmp(vw_phases_at(an->phases, i)->label, label))
			return vw_phases_at(an->phases, i);
	fail_msg("no phase %s", label);
	return NULL;
}

static void near(double got, double want, double rel)
{
	if (!(fabs(got / want - 1) <= rel))
		fail_msg("got %.6g, want %.6g (+-%.1f %%)", got, want, rel * 100);
}

/* FP events and CAS counts (the PMU path, synthetic) win over app.*. */
static void hardware_counts(void **st)
{
	vw_an *an = open_marks(write_rec("hw", 1, 1, 1));
	vw_model *m = an->m;
	vw_roof_ceil c;
	vw_roof_ceilings(m, &c);
	assert_true(c.known);
	near(c.bw, 1e10, 1e-9);
	near(vw_roof_ridge(&c), 10, 1e-9);
	assert_string_equal(c.simd, "avx512");

	vw_roof_point pt;
	const vw_phase *s = phase_named(an, "stream");
	vw_roof_place(&c, &s->st, &pt);
	double flops = 4 * roof_fx_r256[0] + roof_fx_rscalar[0], bytes = 64 * (roof_fx_rcas_rd[0] + roof_fx_rcas_wr[0]);
	near(pt.intensity, flops / bytes, 0.01);
	near(pt.gflops, flops * 1e-9, 0.01);
	near(pt.attainable, 10 * flops / bytes, 0.01);
	near(pt.pct, 100 * flops * 1e-9 / (10 * flops / bytes), 0.01);
	assert_int_equal(pt.bound, VW_BOUND_MEMORY);
	assert_string_equal(pt.flops_prov, "hardware FP events");
	assert_string_equal(pt.bytes_prov, "memory-controller events (perfevent)");

	const vw_phase *k = phase_named(an, "compute");
	vw_roof_place(&c, &k->st, &pt);
	near(pt.intensity, 4 * roof_fx_r256[1] / (64 * roof_fx_rcas_rd[1]), 0.01);
	near(pt.gflops, 20, 0.01);
	near(pt.attainable, 100, 1e-6);
	assert_int_equal(pt.bound, VW_BOUND_COMPUTE);
	assert_string_equal(vw_roof_bound_name(pt.bound), "compute");

	/* the report: columns and JSON keys */
	char buf[1 << 14];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	assert_int_equal(vw_report_print(an, f, 1), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"bound\":\"memory\""));
	assert_non_null(strstr(buf, "\"bound\":\"compute\""));
	assert_non_null(strstr(buf, "\"attainable_gflops\":100,"));
	assert_non_null(strstr(buf, "\"flops_source\":\"hardware FP events\""));
	close_marks(an);
}

/* Only the application's counts: used, and said so. */
static void app_counts(void **st)
{
	vw_an *an = open_marks(write_rec("app", 0, 1, 1));
	vw_model *m = an->m;
	vw_roof_ceil c;
	vw_roof_ceilings(m, &c);
	vw_roof_point pt;
	vw_roof_place(&c, &phase_named(an, "stream")->st, &pt);
	near(pt.intensity, 1, 0.01);
	near(pt.gflops, 7, 0.01);
	assert_int_equal(pt.bound, VW_BOUND_MEMORY);
	assert_string_equal(pt.flops_prov, "app.flops (mcmark_count)");
	close_marks(an);
}

/* No ceilings, no counts: null figures with the reasons. */
static void missing(void **st)
{
	vw_an *an = open_marks(write_rec("nociel", 1, 0, 0));
	vw_model *m = an->m;
	vw_ctx ctx = {.m = m, .an = an};
	vw_roof_ceil c;
	vw_roof_ceilings(m, &c);
	assert_false(c.known);
	assert_string_equal(c.why, "no ceilings: run mcrec --calibrate");
	vw_roof_point pt;
	vw_roof_place(&c, &phase_named(an, "stream")->st, &pt);
	assert_true(pt.intensity > 0);
	assert_true(isnan(pt.attainable) && isnan(pt.pct));
	assert_int_equal(pt.bound, VW_BOUND_UNKNOWN);
	assert_null(vw_roof_bound_name(pt.bound));
	assert_string_equal(pt.why, "no ceilings: run mcrec --calibrate");
	char view[1 << 15];
	vw_canvas *cv = vw_canvas_new(80, 22);
	view_roofline.draw(&ctx, NULL, cv);
	char *txt = vw_canvas_to_text(cv);
	snprintf(view, sizeof view, "%s", txt);
	free(txt);
	vw_canvas_free(cv);
	assert_non_null(strstr(view, "Roofline: no ceilings: run mcrec --calibrate"));
	close_marks(an);

	an = open_marks(write_rec("none", 0, 0, 1));
	m = an->m;
	char buf[256];
	vw_roof_work_missing(an, buf, sizeof buf);
	assert_string_equal(buf, "no FP operation counts (FP events or app.flops); "
				 "no memory byte counts (memory counters or app.bytes)");
	vw_roof_place(&c, &phase_named(an, "stream")->st, &pt);
	assert_true(isnan(pt.intensity) && isnan(pt.gflops));
	assert_string_equal(pt.why, "no FP operation counts");
	close_marks(an);
}

/* The roofline view at 80x22 (the body of an 80x24 screen), hardware counts. */
static void view_render(void **st)
{
	vw_an *an = open_marks(write_rec("view", 1, 0, 1));
	vw_model *m = an->m;
	vw_ctx ctx = {.m = m, .an = an};
	vw_canvas *cv = vw_canvas_new(80, 22);
	view_roofline.draw(&ctx, NULL, cv);
	char *txt = vw_canvas_to_text(cv);
	assert_non_null(strstr(txt, "Roofline: 2 phases; ceilings 10.0 GB/s, 100 GFLOP/s (avx512)"));
	assert_non_null(strstr(txt, "100 GFLOP/s avx512 FMA"));
	assert_non_null(strstr(txt, "10.0 GB/s"));
	assert_non_null(strstr(txt, "scalar 25.0 GFLOP/s"));
	assert_non_null(strstr(txt, "flop/byte"));
	assert_non_null(strstr(txt, "flops: hardware FP events; bytes: memory-controller events"));
	free(txt);
	/* ASCII: the roofs as '/' and '-' */
	cv->ascii = 1;
	view_roofline.draw(&ctx, NULL, cv);
	txt = vw_canvas_to_text(cv);
	assert_non_null(strstr(txt, "//"));
	assert_non_null(strstr(txt, "---"));
	free(txt);
	vw_canvas_free(cv);
	close_marks(an);
}

static void work_names(void **st)
{
	double w;
	int rank;
	const char *prov;
	assert_int_equal(vw_roof_work_match("core.fp_arith_inst_retired.512b_packed_double", "", &w,
					    &rank, &prov), VW_ROOF_FLOPS);
	assert_true(w == 8 && rank == VW_ROOF_HW);
	assert_int_equal(vw_roof_work_match("papi.x", "papi:FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE",
					    &w, &rank, &prov), VW_ROOF_FLOPS);
	assert_true(w == 2);
	assert_int_equal(vw_roof_work_match("core.retired_sse_avx_flops", "", &w, &rank, &prov),
			 VW_ROOF_FLOPS);
	assert_int_equal(vw_roof_work_match("x", "papi:PAPI_DP_OPS", &w, &rank, &prov), VW_ROOF_FLOPS);
	assert_int_equal(vw_roof_work_match("mem.read_bytes", "", &w, &rank, &prov), VW_ROOF_BYTES);
	assert_int_equal(vw_roof_work_match("app.bytes", "", &w, &rank, &prov), VW_ROOF_BYTES);
	assert_int_equal(rank, VW_ROOF_APP);
	/* Intel's raw encoding as mcrec -e perf:... records it (event C7H, umask = width) */
	assert_int_equal(vw_roof_work_match("pmu.cpu.event_0xc7_umask_0x10", "perf:cpu/event=0xc7,umask=0x10/",
					    &w, &rank, &prov), VW_ROOF_FLOPS);
	assert_true(w == 4);
	assert_int_equal(vw_roof_work_match("core.raw_40c7", "perf:r40c7", &w, &rank, &prov), VW_ROOF_FLOPS);
	assert_true(w == 8);
	assert_int_equal(vw_roof_work_match("core.raw_01c7", "perf:r01c7:u", &w, &rank, &prov), VW_ROOF_FLOPS);
	assert_true(w == 1);
	assert_int_equal(vw_roof_work_match("core.raw_01c7", "perf:r01c70", &w, &rank, &prov), VW_ROOF_NONE);
	assert_int_equal(vw_roof_work_match("x", "perf:cpu/event=0xc7,umask=0x20/", &w, &rank, &prov),
			 VW_ROOF_NONE); /* 256-bit packed single */
	assert_int_equal(vw_roof_work_match("x", "perf:cpu/event=0xc70,umask=0x10/", &w, &rank, &prov),
			 VW_ROOF_NONE);
	assert_int_equal(vw_roof_work_match("core.fp_ret_sse_avx_ops.all", "", &w, &rank, &prov),
			 VW_ROOF_FLOPS);
	/* single precision, duty cycles and look-alikes are not work counts */
	assert_int_equal(vw_roof_work_match("core.fp_arith_inst_retired.256b_packed_single", "", &w,
					    &rank, &prov), VW_ROOF_NONE);
	assert_int_equal(vw_roof_work_match(
		"perfevent.hwcounters.FP_ARITH_INST_RETIRED_SCALAR_DOUBLE.dutycycle", "", &w, &rank,
		&prov), VW_ROOF_NONE);
	assert_int_equal(vw_roof_work_match("app.flops_total", "", &w, &rank, &prov), VW_ROOF_NONE);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The recorder's cache: written, read back; damaged ones refused. */
static void ceiling_cache(void **st)
{
	char path[128], err[512];
	rec_ceilings c, back;
	memset(&c, 0, sizeof c);
	c.bw_triad = 1.5e10, c.bw_read = 1.7e10, c.flops = 1e11, c.flops_1core = 5e10;
	c.flops_scalar = 2e10, c.flops_scalar_1core = 1e10;
	snprintf(c.simd, sizeof c.simd, "avx2");
	snprintf(c.method, sizeof c.method, "measured");
	snprintf(path, sizeof path, "%s/cache", dir);
	assert_int_equal(rec_ceilcache_write(path, &c, err, sizeof err), 0);
	assert_int_equal(rec_ceilcache_read(path, &back, err, sizeof err), 0);
	near(back.bw_triad, 1.5e10, 1e-5);
	near(back.flops_scalar_1core, 1e10, 1e-5);
	assert_string_equal(back.simd, "avx2");

	static const struct {
		const char *text, *why;
	} bad[] = {
		{"", "empty"},
		{"hello\n", "line 1: not a ceiling cache"},
		{"# mcz ceilings 1\nroof.flops = -3\n", "line 2: roof.flops = -3 is not a plausible rate"},
		{"# mcz ceilings 1\nroof.flops = 1e400\n", "line 2: roof.flops = 1e400 is not a plausible"},
		/* finding 8 of issue 34: tiny, huge, twice, one core above all */
		{"# mcz ceilings 1\nroof.flops = 1e-300\n", "roof.flops = 1e-300 is not a plausible"},
		{"# mcz ceilings 1\nroof.bw_read_Bps = 1e20\n", "is not a plausible bandwidth"},
		{"# mcz ceilings 1\nroof.flops = 1e11\nroof.flops = 2e11\n",
		 "line 3: roof.flops given twice"},
		{"# mcz ceilings 1\nroof.simd = avx\nroof.simd = sse\n", "roof.simd given twice"},
		{"# mcz ceilings 1\nroof.bw_triad_Bps = 1e10\nroof.bw_read_Bps = 1e10\n"
		 "roof.flops = 1e9\nroof.flops_1core = 5e10\nroof.flops_scalar = 2e10\n"
		 "roof.flops_scalar_1core = 1e10\n", "roof.flops is below roof.flops_1core"},
		{"# mcz ceilings 1\nroof.flops 12\n", "line 2: not 'key = value'"},
		{"# mcz ceilings 1\nroof.flops = 1e11\n", "no roof.bw_triad_Bps"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_file(path, bad[i].text);
		err[0] = '\0';
		assert_int_equal(rec_ceilcache_read(path, &back, err, sizeof err), -1);
		if (!strstr(err, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].why);
		assert_null(strchr(err, '\n'));
	}
	snprintf(path, sizeof path, "%s/absent", dir);
	assert_int_equal(rec_ceilcache_read(path, &back, err, sizeof err), 1);
	/* a FIFO in its place: refused at once, never waited on */
	snprintf(path, sizeof path, "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(rec_ceilcache_read(path, &back, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	char key[256];
	rec_ceilcache_key(key, sizeof key);
	assert_non_null(strstr(key, "cpu-"));
	assert_non_null(strstr(key, "GiB"));
	assert_null(strchr(key, '/'));
	assert_null(strchr(key, ' '));
}

static void count_datagram(void **st)
{
	char ok[] = "C 123 45 1.5e9 flops", *name[4];
	int64_t t;
	uint32_t pid;
	double a[4];
	assert_int_equal(src_mark_wire_count(ok, &t, &pid, a, name, 4), 1);
	assert_true(t == 123 && pid == 45 && a[0] == 1.5e9);
	assert_string_equal(name[0], "flops");
	/* mcmark_work's: two pairs, both names cut at their ends */
	char two[] = "C 7 8 2 flops 24 bytes";
	assert_int_equal(src_mark_wire_count(two, &t, &pid, a, name, 4), 2);
	assert_true(t == 7 && pid == 8 && a[0] == 2 && a[1] == 24);
	assert_string_equal(name[0], "flops");
	assert_string_equal(name[1], "bytes");
	char three[] = "C 7 8 1 a 2 b 3 c";
	assert_int_equal(src_mark_wire_count(three, &t, &pid, a, name, 2), -1); /* past max */
	static const char *const bad[] = {"C 1 2 -1 flops", "C 1 2 nan flops", "C 1 2 inf flops",
					  "C 1 2 1e999 flops", "C 1 2 5 fl ops", "C 1 2 5 ",
					  "C 1 2 5 a/b", "P 1 2 5 flops", "C x 2 5 flops",
					  "C 1 2 5", "C 1 2", "C 1 2 5 flops ", "C 1 2 5 flops 6",
					  "C 1 2 5 flops -6 bytes", "C 1 2 5 flops 6 by/tes",
					  "C 1 2 5 flops  6 bytes", "C 1 2 bad"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char b[64];
		snprintf(b, sizeof b, "%s", bad[i]);
		if (src_mark_wire_count(b, &t, &pid, a, name, 4) >= 0)
			fail_msg("accepted '%s'", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hardware_counts), cmocka_unit_test(app_counts),
		cmocka_unit_test(missing),         cmocka_unit_test(view_render),
		cmocka_unit_test(work_names),      cmocka_unit_test(ceiling_cache),
		cmocka_unit_test(count_datagram),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
