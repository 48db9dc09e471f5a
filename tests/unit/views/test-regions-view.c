/* test-regions-view.c: what the viewer makes of an application's own
 * regions and kernels (mcrec's regions source, recorder/sources/code/regions.c):
 * a recording written here as the source writes one — nested BEGIN/END
 * marks, "kokkos kernel: LABEL" point marks, the metadata regions.* and
 * ompt.* — opened with the model.  The application's regions are its
 * phases by default, the outermost at the coarse level and every region at
 * the fine one; the kernel marks are kept out of the marks, and the kernel
 * row's columns, legend and readout come from them; OMPT's thread figures
 * from the metadata; regions that only begin (mcmark.h's old habit) still
 * cut the run flat; a parallel job's ranks cut by their outermost regions.
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

#include "../tmpdir.h"

#include "../../../format/mcz.h"
#include "../../../viewer/analysis/analysis.h"
#include "../../../viewer/model/model.h"

#define DT 100000000LL /* 100 ms */
#define KM "kokkos kernel: "

TMPDIR_FIXTURE("mcz-test-regions")

/* 3 s of one gauge; regions assemble [0.2, 1.2) with boundary [0.9, 1.2)
 * inside, solve [1.2, 2.5); kernels: fill 0.2-0.9, bc 0.9-1.2, spmv
 * 1.2-2.5, none after.  ends = 0: the regions only begin. */
static void write_run(const char *path, int ends, int kokkos, int rank)
{
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_writer_meta(w, "interval_ns", "100000000");
	if (rank >= 0) { /* a rank of a parallel job of 2 */
		char r[8];
		snprintf(r, sizeof r, "%d", rank);
		mcz_writer_meta(w, "rank", r);
		mcz_writer_meta(w, "nranks", "2");
		mcz_writer_meta(w, "job", "42");
		mcz_writer_meta(w, "host", "n1");
	}
	if (kokkos) {
		mcz_writer_meta(w, "regions.kokkos", "Kokkos Tools interface 20210225");
		mcz_writer_meta(w, "regions.kernel_marks", KM);
		mcz_writer_meta(w, "ompt.threads", "2");
		mcz_writer_meta(w, "ompt.useful_s", "1.5 0.5");
		mcz_writer_meta(w, "ompt.sync_s", "0.0 1.0");
		mcz_writer_meta(w, "ompt.span_s", "1.5");
	}
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.load";
	d.kind = MCZ_GAUGE;
	d.type = MCZ_F64;
	uint32_t id;
	assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
	for (int64_t t = 0; t <= 30 * DT; t += DT) {
		mcz_value v = {.f = 1.0};
		uint8_t pres = 1;
		assert_int_equal(mcz_writer_append(w, t, &v, &pres), MCZ_OK);
	}
	mcz_writer_mark(w, 2 * DT, MCZ_MARK_BEGIN, 7, "assemble");
	mcz_writer_mark(w, 9 * DT, MCZ_MARK_BEGIN, 7, "boundary");
	if (ends) {
		mcz_writer_mark(w, 12 * DT, MCZ_MARK_END, 7, "");
		mcz_writer_mark(w, 12 * DT, MCZ_MARK_END, 7, "");
	}
	mcz_writer_mark(w, 12 * DT, MCZ_MARK_BEGIN, 7, "solve");
	if (ends)
		mcz_writer_mark(w, 25 * DT, MCZ_MARK_END, 7, "");
	mcz_writer_mark(w, 2 * DT, MCZ_MARK_POINT, 7, KM "fill");
	mcz_writer_mark(w, 9 * DT, MCZ_MARK_POINT, 7, KM "bc");
	mcz_writer_mark(w, 12 * DT, MCZ_MARK_POINT, 7, KM "spmv");
	mcz_writer_mark(w, 25 * DT, MCZ_MARK_POINT, 7, KM);
	mcz_writer_mark(w, 15 * DT, MCZ_MARK_POINT, 7, "deep_copy: y <- z (8 B)");
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static vw_model *open_run(const char *name, int ends, int kokkos)
{
	char path[128], err[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	write_run(path, ends, kokkos, -1);
	vw_model *m;
	const char *p[1] = {path};
	vw_open_opts o = {0};
	o.quiet = 1;
	assert_int_equal(vw_model_open(&m, p, 1, &o, err, sizeof err), 0);
	return m;
}

static void test_phases_nested(void **st)
{
	vw_model *m = open_run("nested.mcz", 1, 1);
	vw_an *an = vw_an_new(m);
	char err[256];
	assert_int_equal(vw_phases_app_regions(m), 1);
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_MARKS, err, sizeof err), 0);
	const struct vw_phases *ph = an->phases;
	/* the outermost: before, assemble, solve, after */
	assert_int_equal(vw_phases_count(ph), 4);
	assert_string_equal(ph->v[1].label, "assemble");
	assert_int_equal(ph->v[1].t0, 2 * DT);
	assert_int_equal(ph->v[1].t1, 12 * DT);
	assert_string_equal(ph->v[2].label, "solve");
	assert_int_equal(ph->v[2].t0, 12 * DT);
	assert_int_equal(ph->v[2].t1, 25 * DT);
	p.level = 1; /* every region */
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_MARKS, err, sizeof err), 0);
	ph = an->phases;
	assert_int_equal(vw_phases_count(ph), 5);
	assert_string_equal(ph->v[2].label, "boundary");
	assert_int_equal(ph->v[2].t0, 9 * DT);
	assert_int_equal(ph->v[1].t1, 9 * DT);
	vw_an_free(an);
	vw_model_free(m);
}

static void test_phases_begin_only(void **st)
{
	vw_model *m = open_run("begins.mcz", 0, 0);
	vw_an *an = vw_an_new(m);
	char err[256];
	assert_int_equal(vw_phases_app_regions(m), 0); /* mcmark.h's: not the default */
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_MARKS, err, sizeof err), 0);
	/* each begin cuts the run, as before: before, assemble, boundary, solve */
	assert_int_equal(vw_phases_count(an->phases), 4);
	assert_string_equal(an->phases->v[2].label, "boundary");
	assert_int_equal(an->phases->v[3].t1, m->t_max + 1);
	/* without regions.kernel_marks, the kernel marks are marks */
	assert_int_equal(m->nkmarks, 0);
	assert_false(vw_kernels_has(m));
	vw_an_free(an);
	vw_model_free(m);
}

static void test_kernels(void **st)
{
	vw_model *m = open_run("kernels.mcz", 1, 1);
	assert_int_equal(m->nkmarks, 4);
	assert_int_equal(m->nmarks, 7); /* 3 begins, 3 ends, the deep copy */
	for (size_t i = 0; i < m->nmarks; i++)
		assert_null(strstr(m->marks[i].text, "kokkos kernel"));
	assert_true(vw_kernels_has(m));
	vw_kernel_top top[8];
	size_t n = vw_kernels_top(m, m->t_min, m->t_max + 1, top, 8);
	assert_int_equal(n, 3);
	assert_string_equal(top[0].label, "spmv"); /* 1.3 s */
	assert_int_equal(top[0].ns, 13 * DT);
	assert_string_equal(top[1].label, "fill");
	assert_string_equal(top[2].label, "bc");
	assert_true(fabs(top[2].share - 3.0 / 30.1) < 0.01);
	/* within a window: its own ranking, the run's index */
	n = vw_kernels_top(m, 8 * DT, 12 * DT, top, 8);
	assert_int_equal(n, 2);
	assert_string_equal(top[0].label, "bc");
	assert_int_equal(top[0].idx, 2);
	/* 30 columns of 100 ms: each its kernel, none after 2.5 s */
	int idx[30];
	double sh[30];
	assert_int_equal(vw_kernels_columns(m, 0, 30 * DT, 30, idx, sh), 0);
	assert_int_equal(idx[0], -1);
	assert_int_equal(idx[3], 1);  /* fill */
	assert_int_equal(idx[10], 2); /* bc */
	assert_int_equal(idx[20], 0); /* spmv */
	assert_int_equal(idx[27], -1);
	assert_true(fabs(sh[20] - 1.0) < 1e-9);
	assert_string_equal(vw_kernels_label(m, 2), "bc");
	assert_string_equal(vw_kernels_at(m, 13 * DT), "spmv");
	assert_null(vw_kernels_at(m, 26 * DT));
	assert_null(vw_kernels_at(m, DT));
	vw_model_free(m);
}

/* A parallel job's ranks, each with the nested regions: the job's phases
 * are the outermost regions, every region at the fine level. */
static void test_job_nested(void **st)
{
	char path[2][128], err[256];
	const char *p[2] = {path[0], path[1]};
	for (int r = 0; r < 2; r++) {
		snprintf(path[r], sizeof path[r], "%s/rank%d.mcz", dir, r);
		write_run(path[r], 1, 1, r);
	}
	vw_model *m;
	vw_open_opts o = {0};
	o.quiet = 1;
	assert_int_equal(vw_model_open(&m, p, 2, &o, err, sizeof err), 0);
	vw_an *an = vw_an_new(m);
	assert_true(vw_model_is_job(m));
	vw_phase_params par = VW_PHASE_PARAMS_INIT;
	vw_jobs *js;
	assert_int_equal(vw_jobs_build(an, VW_PHASES_MARKS, &par, &js, err, sizeof err), 0);
	assert_int_equal(js->n, 1);
	size_t named = 0;
	for (size_t k = 0; k < js->v[0].nph; k++)
		if (js->v[0].ph[k].label[0]) {
			assert_string_not_equal(js->v[0].ph[k].label, "boundary");
			named++;
		}
	assert_int_equal(named, 2); /* assemble, solve */
	vw_jobs_free(js);
	par.level = 1;
	assert_int_equal(vw_jobs_build(an, VW_PHASES_MARKS, &par, &js, err, sizeof err), 0);
	int boundary = 0;
	for (size_t k = 0; k < js->v[0].nph; k++)
		boundary += !strcmp(js->v[0].ph[k].label, "boundary");
	assert_int_equal(boundary, 1);
	vw_jobs_free(js);
	vw_an_free(an);
	vw_model_free(m);
}

static void test_ompt_threads(void **st)
{
	vw_model *m = open_run("ompt.mcz", 1, 1);
	vw_threads th;
	assert_int_equal(vw_threads_ompt(m, 0, &th), 0);
	assert_int_equal(th.n, 2);
	assert_true(fabs(th.load_balance - 1.0 / 1.5) < 1e-9);
	assert_true(fabs(th.sync_share - 1.0 / 3.0) < 1e-9);
	assert_true(fabs(th.comm_eff - 1.0) < 1e-9);
	assert_int_equal(th.busiest, 0);
	vw_model_free(m);
	m = open_run("no-ompt.mcz", 1, 0);
	assert_int_equal(vw_threads_ompt(m, 0, &th), -1);
	vw_model_free(m);
}

int main(void)
{
	setenv("MCVIEW_PHASE_CACHE", "0", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases_nested),
		cmocka_unit_test(test_phases_begin_only),
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_job_nested),
		cmocka_unit_test(test_ompt_threads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
