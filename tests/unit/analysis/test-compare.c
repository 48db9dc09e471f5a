/* test-compare.c: two runs compared (viewer/analysis/compare/compare.c) — marked
 * phases matched by text and occurrence, detected ones by figures and order,
 * a slowed phase found, ranked first (slower phases before faster ones)
 * and judged beyond noise, a run against
 * itself unchanged, nothing matched between unrelated runs, repeated runs'
 * spread as the noise, pieces of one phase coalesced, --fail-above's list;
 * and the Compare view's golden render (tests/unit/golden/compare-*.txt).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/model/model.h"
#include "../../../viewer/analysis/an.h"
#include "../../../viewer/analysis/compare/compare.h"
#include "../../../viewer/views/view.h"
#include "../golden.h"

/* A run of phases: marks[i] ("" = detected), dur[i] s, cpus[i] (figure). */
static vw_cmp_run mk_run(vw_cmp_phase *v, size_t n, const char *const *marks, const double *dur,
			 const double *cpus, int marked)
{
	double t = 0;
	for (size_t i = 0; i < n; i++) {
		memset(&v[i], 0, sizeof v[i]);
		snprintf(v[i].mark, sizeof v[i].mark, "%s", marks ? marks[i] : "");
		snprintf(v[i].label, sizeof v[i].label, "%s%zu", marks ? marks[i] : "#", i + 1);
		v[i].t0 = t;
		v[i].dur = dur[i];
		v[i].cls = (int)i;
		for (int f = 0; f < VW_CMP_NFIG; f++)
			v[i].fig[f] = NAN;
		v[i].fig[VW_CMP_CPUS] = cpus ? cpus[i] : 1;
		t += dur[i];
	}
	return (vw_cmp_run){v, n, 0.01, marked, t};
}

static const char *const six[] = {"triad", "gemm", "triad", "gemm", "idle", "chase"};

static void test_marked_slower(void **st)
{
	(void)st;
	double da[6] = {1, 1, 1, 1, 1, 1}, db[6] = {1.01, 0.99, 1, 1.3, 1, 1.015};
	vw_cmp_phase pa[6], pb[6];
	vw_cmp_run a = mk_run(pa, 6, six, da, NULL, 1), b = mk_run(pb, 6, six, db, NULL, 1);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 6);
	assert_int_equal(c.nonly_a + c.nonly_b, 0);
	const vw_cmp_match *x = &c.m[c.rank[0]];
	assert_int_equal(x->a, 3);
	assert_int_equal(x->b, 3);
	assert_true(fabs(x->delta_pct - 30) < 1e-9);
	assert_true(x->regressed && x->beyond);
	assert_int_equal(x->rank, 1);
	/* 0.3 s of 0.3 + 0.01 + 0.01 + 0.015 s moved */
	assert_true(fabs(x->share_pct - 100 * 0.3 / 0.335) < 1e-6);
	for (size_t k = 1; k < c.nm; k++) /* within the 2 % assumed for one run a side */
		assert_false(c.m[c.rank[k]].beyond);
	char names[256];
	assert_int_equal(vw_compare_slower(&c, 10, names, sizeof names), 1);
	assert_string_equal(names, "gemm4 (+30.0 %)");
	assert_int_equal(vw_compare_slower(&c, 40, names, sizeof names), 0);
	vw_compare_free(&c);
}

/* Slower phases rank first: gemm#1 0.133 s faster (noise), triad 0.12 s
 * slower, gemm#2 0.03 s faster: triad, then gemm#1, then gemm#2 (CI saw
 * this order inverted by a phase that merely ran faster). */
static void test_rank_slower_first(void **st)
{
	(void)st;
	static const char *const csc[] = {"gemm", "triad", "gemm"};
	double da[3] = {0.861, 0.36, 0.88}, db[3] = {0.728, 0.48, 0.85};
	vw_cmp_phase pa[3], pb[3];
	vw_cmp_run a = mk_run(pa, 3, csc, da, NULL, 1), b = mk_run(pb, 3, csc, db, NULL, 1);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 3);
	assert_int_equal(c.m[c.rank[0]].a, 1);
	assert_int_equal(c.m[c.rank[1]].a, 0);
	assert_int_equal(c.m[c.rank[2]].a, 2);
	assert_int_equal(c.m[1].rank, 1);
	vw_compare_free(&c);
}

static void test_self_no_change(void **st)
{
	(void)st;
	double da[6] = {0.5, 1.2, 0.5, 1.2, 2, 0.7}, cpus[6] = {1, 1, 1, 1, 0, 0.9};
	vw_cmp_phase pa[6], pd[6];
	vw_cmp_run a = mk_run(pa, 6, six, da, cpus, 1), d = mk_run(pd, 6, NULL, da, cpus, 0);
	vw_compare c;
	for (int marked = 0; marked < 2; marked++) {
		const vw_cmp_run *r = marked ? &a : &d;
		assert_int_equal(vw_compare_runs(r, 1, r, 1, &c), 0);
		assert_int_equal(c.nm, 6);
		for (size_t k = 0; k < c.nm; k++) {
			assert_int_equal(c.m[k].a, (int)k);
			assert_int_equal(c.m[k].b, (int)k);
			assert_true(c.m[k].delta_pct == 0);
			assert_false(c.m[k].beyond);
		}
		assert_int_equal(vw_compare_slower(&c, 0, NULL, 0), 0);
		vw_compare_free(&c);
	}
}

/* Occurrence order: B lost its first "triad"; the second of A meets B's only one. */
static void test_marks_occurrence(void **st)
{
	(void)st;
	const char *const mb[] = {"gemm", "triad", "gemm", "idle", "chase", "extra"};
	double da[6] = {1, 1, 1, 1, 1, 1}, db[6] = {1, 1, 1, 1, 1, 1};
	vw_cmp_phase pa[6], pb[6];
	vw_cmp_run a = mk_run(pa, 6, six, da, NULL, 1), b = mk_run(pb, 6, mb, db, NULL, 1);
	int map[6];
	assert_int_equal(vw_compare_align(&a, &b, map), 5);
	int want[6] = {-1, 0, 1, 2, 3, 4};
	assert_memory_equal(map, want, sizeof want);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nonly_a, 1);
	assert_string_equal(c.only_a[0].mark, "triad");
	assert_int_equal(c.nonly_b, 1);
	assert_string_equal(c.only_b[0].mark, "extra");
	vw_compare_free(&c);
}

/* Detected phases: busy/idle by the CPUs figure; B has one busy phase 30 %
 * longer and an extra idle phase at the end. */
static void test_detected(void **st)
{
	(void)st;
	double da[5] = {1.5, 1, 1.5, 1, 1.5}, db[6] = {1.52, 0.99, 1.95, 1, 1.49, 0.5};
	double ca[5] = {1, 0, 0.95, 0, 1}, cb[6] = {0.98, 0.01, 1, 0, 0.97, 0.02};
	vw_cmp_phase pa[5], pb[6];
	vw_cmp_run a = mk_run(pa, 5, NULL, da, ca, 0), b = mk_run(pb, 6, NULL, db, cb, 0);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 5);
	assert_int_equal(c.nonly_b, 1);
	assert_true(fabs(c.only_b[0].dur - 0.5) < 1e-9);
	const vw_cmp_match *x = &c.m[c.rank[0]];
	assert_int_equal(x->a, 2);
	assert_true(fabs(x->delta_pct - 30) < 1e-9);
	assert_true(x->regressed);
	/* noise: 2 % + two intervals of 10 ms */
	assert_true(fabs(x->noise_pct - 100 * (0.02 * 1.5 + 0.02) / 1.5) < 1e-9);
	vw_compare_free(&c);
}

/* Unrelated: all busy against all idle. */
static void test_nothing_matched(void **st)
{
	(void)st;
	double da[2] = {1, 2}, db[1] = {3};
	double ca[2] = {1, 0.9}, cb[1] = {0};
	vw_cmp_phase pa[2], pb[1];
	vw_cmp_run a = mk_run(pa, 2, NULL, da, ca, 0), b = mk_run(pb, 1, NULL, db, cb, 0);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 0);
	assert_int_equal(c.nonly_a, 2);
	assert_int_equal(c.nonly_b, 1);
	vw_compare_free(&c);
	/* marks of other texts */
	const char *const ma[] = {"load", "solve"}, *const mb[] = {"read"};
	a = mk_run(pa, 2, ma, da, NULL, 1);
	b = mk_run(pb, 1, mb, db, NULL, 1);
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 0);
	vw_compare_free(&c);
}

/* Repeated runs: the spread is the noise.  A phase 3 % slower with a
 * spread of 0.5 % is beyond noise; one 3 % slower with a spread of 5 % is
 * not, and --fail-above 2 names only the first. */
static void test_repeated(void **st)
{
	(void)st;
	const char *const mk[] = {"steady", "noisy"};
	double a1[2] = {1.000, 1.00}, a2[2] = {1.005, 1.05}, a3[2] = {0.995, 0.95};
	double b1[2] = {1.030, 1.03}, b2[2] = {1.035, 1.08}, b3[2] = {1.025, 0.98};
	vw_cmp_phase p[6][2];
	vw_cmp_run a[3] = {mk_run(p[0], 2, mk, a1, NULL, 1), mk_run(p[1], 2, mk, a2, NULL, 1),
			   mk_run(p[2], 2, mk, a3, NULL, 1)};
	vw_cmp_run b[3] = {mk_run(p[3], 2, mk, b1, NULL, 1), mk_run(p[4], 2, mk, b2, NULL, 1),
			   mk_run(p[5], 2, mk, b3, NULL, 1)};
	vw_compare c;
	assert_int_equal(vw_compare_runs(a, 3, b, 3, &c), 0);
	assert_int_equal(c.nm, 2);
	assert_int_equal(c.m[0].na, 3);
	assert_int_equal(c.m[0].nb, 3);
	assert_true(fabs(c.m[0].dur_a - 1.0) < 1e-9 && fabs(c.m[0].dur_b - 1.03) < 1e-9);
	assert_true(fabs(c.m[0].sd_a - 0.005) < 1e-9);
	assert_true(c.m[0].beyond && c.m[0].regressed);
	assert_true(fabs(c.m[1].delta_pct - 3) < 1e-6);
	assert_false(c.m[1].beyond);
	char names[128];
	assert_int_equal(vw_compare_slower(&c, 2, names, sizeof names), 1);
	assert_string_equal(names, "steady1 (+3.0 %)");
	vw_compare_free(&c);
	/* the same with one run of B: B borrows A's spread */
	assert_int_equal(vw_compare_runs(a, 3, b, 1, &c), 0);
	assert_true(c.m[0].beyond);
	assert_false(c.m[1].beyond);
	vw_compare_free(&c);
}

static void test_coalesce(void **st)
{
	(void)st;
	/* busy cut in three by noise, idle, busy */
	double d[5] = {0.5, 0.3, 0.7, 1, 1.5}, cpu[5] = {0.95, 0.8, 1, 0, 1};
	vw_cmp_phase v[5];
	mk_run(v, 5, NULL, d, cpu, 0);
	assert_int_equal(vw_compare_coalesce(v, 5), 3);
	assert_true(fabs(v[0].dur - 1.5) < 1e-9);
	assert_true(fabs(v[0].fig[VW_CMP_CPUS] - (0.5 * 0.95 + 0.3 * 0.8 + 0.7) / 1.5) < 1e-9);
	assert_int_equal(v[0].cls, 2); /* its longest piece's */
	assert_true(v[1].dur == 1 && v[1].fig[VW_CMP_CPUS] == 0);
	assert_true(fabs(v[2].t0 - 2.5) < 1e-9);
}

/* A prologue cut off in A only (detected), a gap between marked regions
 * in B only: absorbed into the matched neighbour, nothing left unmatched. */
static void test_absorb(void **st)
{
	(void)st;
	double da[4] = {0.25, 1.3, 1, 1.5}, db[3] = {1.535, 1, 1.95};
	double ca[4] = {0.83, 0.97, 0, 1}, cb[3] = {0.95, 0.01, 0.98};
	vw_cmp_phase pa[4], pb[3];
	vw_cmp_run a = mk_run(pa, 4, NULL, da, ca, 0), b = mk_run(pb, 3, NULL, db, cb, 0);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 3);
	assert_int_equal(c.nonly_a + c.nonly_b, 0);
	assert_true(fabs(c.m[0].dur_a - 1.55) < 1e-9 && c.m[0].a_start == 0);
	assert_string_equal(c.m[2].label, "#3 D");
	assert_true(fabs(c.m[2].delta_pct - 30) < 1e-9);
	assert_int_equal(c.m[c.rank[0]].a, 2);
	vw_compare_free(&c);
	const char *const ma[] = {"load", "solve"}, *const mb[] = {"load", "", "solve"};
	double ea[2] = {1, 2}, eb[3] = {0.8, 0.2, 2};
	a = mk_run(pa, 2, ma, ea, NULL, 1);
	b = mk_run(pb, 3, mb, eb, NULL, 1);
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 2);
	assert_int_equal(c.nonly_b, 0);
	assert_true(fabs(c.m[0].dur_b - 1.0) < 1e-9);
	vw_compare_free(&c);
}

/* The time warp: B's phase 2 is 30 % longer, a gap of 0.5 s only in B. */
static void test_warp(void **st)
{
	(void)st;
	const char *const ma[] = {"x", "y", "z"}, *const mb[] = {"x", "y", "", "z"};
	double da[3] = {1, 2, 1}, db[4] = {1, 2.6, 0.5, 1};
	vw_cmp_phase pa[3], pb[4];
	vw_cmp_run a = mk_run(pa, 3, ma, da, NULL, 1), b = mk_run(pb, 4, mb, db, NULL, 1);
	b.marked = a.marked = 1;
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	assert_int_equal(c.nm, 3);
	assert_true(fabs(vw_compare_warp(&c, 0.5) - 0.5) < 1e-9);
	assert_true(fabs(vw_compare_warp(&c, 2.0) - 2.3) < 1e-9);  /* half of y */
	assert_true(fabs(vw_compare_warp(&c, 2.999999) - 3.6) < 1e-5); /* y's end */
	assert_true(fabs(vw_compare_warp(&c, 3.0) - 4.1) < 1e-9);  /* z, after the gap */
	assert_true(fabs(vw_compare_warp(&c, 3.5) - 4.6) < 1e-9);  /* half of z, after the gap */
	assert_true(fabs(vw_compare_warp(&c, 4.5) - 5.6) < 1e-9);  /* past the end */
	assert_true(fabs(vw_compare_warp(&c, -1) + 1) < 1e-9);
	vw_compare_free(&c);
}

static void test_view_golden(void **st)
{
	(void)st;
	double da[6] = {1, 1, 1, 1, 1, 1}, db[5] = {1.01, 0.95, 1, 1.3, 1};
	const char *const mb[] = {"triad", "gemm", "triad", "gemm", "idle"};
	vw_cmp_phase pa[6], pb[5];
	vw_cmp_run a = mk_run(pa, 6, six, da, NULL, 1), b = mk_run(pb, 5, mb, db, NULL, 1);
	vw_compare c;
	assert_int_equal(vw_compare_runs(&a, 1, &b, 1, &c), 0);
	snprintf(c.names[0], sizeof c.names[0], "a.mcz");
	snprintf(c.names[1], sizeof c.names[1], "b.mcz");
	snprintf(c.meta[c.nmeta++], sizeof c.meta[0], "interval: 100ms | 50ms");
	vw_model *m = calloc(1, sizeof *m);
	vw_an *an = vw_an_new(m);
	vw_ctx ctx = {.m = m, .an = an};
	an->compare = &c;
	m->phase_sel = -1;
	void *state;
	assert_int_equal(view_compare.init(&ctx, &state), 0);
	vw_canvas *cv = vw_canvas_new(100, 16);
	view_compare.draw(&ctx, state, cv);
	golden("compare-100x16", cv);
	/* one down: the second line selected; ASCII bars */
	vw_input in = {.act = VW_ACT_DOWN};
	assert_int_equal(view_compare.key(&ctx, state, &in), VW_R_REDRAW);
	cv->ascii = 1;
	view_compare.draw(&ctx, state, cv);
	golden("compare-100x16-ascii-down", cv);
	/* without a comparison: how to get one */
	an->compare = NULL;
	assert_false(view_compare.shown(&ctx));
	view_compare.draw(&ctx, state, cv);
	char *txt = vw_canvas_to_text(cv);
	assert_non_null(strstr(txt, "mcview --compare A.mcz B.mcz"));
	free(txt);
	vw_canvas_free(cv);
	view_compare.free(state);
	vw_an_free(an);
	free(m);
	vw_compare_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marked_slower),
		cmocka_unit_test(test_rank_slower_first),
		cmocka_unit_test(test_self_no_change),
		cmocka_unit_test(test_marks_occurrence),
		cmocka_unit_test(test_detected),
		cmocka_unit_test(test_nothing_matched),
		cmocka_unit_test(test_repeated),
		cmocka_unit_test(test_coalesce),
		cmocka_unit_test(test_absorb),
		cmocka_unit_test(test_warp),
		cmocka_unit_test(test_view_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
