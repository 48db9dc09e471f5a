/* test-phase.c: the phase detector (viewer/analysis/phases/phase.c, phase-class.c) on
 * synthetic streams with known change points, noise, outliers and NaN, and
 * on degenerate input (no sample, one sample, constant, all NaN, no stream);
 * a stream read far less often than the others (its readings no phases).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/analysis/phases/phase.h"
#include "../phase-synth.h"

/* Detect on s; boundaries into det (starts of segments 1..), returns count. */
static size_t detect(const synth *s, const vw_phase_params *p, int64_t *det, int *cls,
		     size_t *nseg)
{
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n;
	assert_int_equal(vw_phase_prep_arrays(&pp, s->d, s->n, (const double *const *)s->x, 0), 0);
	assert_int_equal(vw_phase_run(pp, p, &seg, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(seg[0].start, 0);
	assert_int_equal(seg[n - 1].end, (int64_t)s->n);
	for (size_t k = 0; k < n; k++) {
		assert_true(seg[k].end > seg[k].start);
		if (k)
			assert_int_equal(seg[k].start, seg[k - 1].end);
		if (k)
			det[k - 1] = seg[k].start;
		if (cls)
			cls[k] = seg[k].cls;
	}
	free(seg);
	vw_phase_prep_free(pp);
	if (nseg)
		*nseg = n;
	return n - 1;
}

/* Same truth class <=> same detected class, over every pair of segments. */
static void assert_classes_match(const synth *s, const int *cls, size_t n)
{
	assert_int_equal(n, s->nseg);
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++)
			assert_int_equal(s->cls[a] == s->cls[b], cls[a] == cls[b]);
}

static void run_case(const synth_opts *o, int64_t tol, double min_prec, double min_rec,
		     int check_cls)
{
	synth s;
	assert_int_equal(synth_make(&s, o), 0);
	int64_t det[1024];
	int cls[1024];
	size_t nseg;
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	size_t nd = detect(&s, &p, det, cls, &nseg);
	double prec, rec;
	synth_score(&s, det, nd, tol, &prec, &rec);
	print_message("d=%zu n=%zu segs=%zu noise=%.2f outl=%.3f nan=%.2f: %zu found, P=%.2f R=%.2f (+-%d)\n",
		      o->d, o->n, o->nseg, o->noise, o->outliers, o->nan, nd, prec, rec, (int)tol);
	assert_true(prec >= min_prec);
	assert_true(rec >= min_rec);
	if (check_cls)
		assert_classes_match(&s, cls, nseg);
	synth_free(&s);
}

static void test_clean_steps(void **st)
{
	synth_opts o = {.d = 4, .n = 2000, .nseg = 8, .ncls = 3, .minlen = 60, .noise = 0.05,
			.active = 0.5, .seed = 1};
	run_case(&o, 2, 1.0, 1.0, 1);
}

/* With noise of 0.3-0.5 of the level spread a boundary cannot be placed to the
 * sample (CUSUM's error grows as sigma^2 / jump^2): +-8 here; the benchmark
 * prints the table at +-2 and +-8.  Low noise must place them to +-2. */
static void test_noise_outliers_nan(void **st)
{
	synth_opts o = {.d = 8, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.3,
			.outliers = 0.002, .nan = 0.01, .active = 0.5, .seed = 2};
	run_case(&o, 8, 0.95, 0.95, 1);
}

static void test_coarse_refined(void **st)
{
	/* 400 000 samples: buckets of 49 samples, boundaries placed to +-2 samples */
	synth_opts o = {.d = 16, .n = 400000, .nseg = 30, .ncls = 5, .minlen = 2000,
			.noise = 0.5, .outliers = 0.001, .nan = 0.005, .active = 0.3, .seed = 3};
	run_case(&o, 8, 0.95, 0.95, 1);
	o.noise = 0.1;
	o.seed = 5;
	run_case(&o, 2, 1.0, 1.0, 1);
}

static void test_abab_classes(void **st)
{
	/* A B A B C with exact levels: classes must repeat */
	enum { N = 500 };
	double a[N], b[N];
	const double *x[2] = {a, b};
	for (int i = 0; i < N; i++) {
		int k = i / 100;                         /* A B A B C */
		a[i] = (k == 1 || k == 3) ? 5 : k == 4 ? 9 : 1;
		b[i] = (k == 4 ? 100 : 20) + (i % 3);    /* tiny deterministic wobble */
	}
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n;
	assert_int_equal(vw_phase_prep_arrays(&pp, 2, N, x, 0), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 5);
	int want[5] = {0, 1, 0, 1, 2};
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(seg[k].cls, want[k]);
		assert_true(llabs(seg[k].start - (int64_t)k * 100) <= 1);
	}
	char buf[8];
	assert_string_equal(vw_phase_class_name(seg[4].cls, buf, sizeof buf), "C");
	assert_string_equal(vw_phase_class_name(27, buf, sizeof buf), "AB");
	free(seg);
	vw_phase_prep_free(pp);
}

static void test_params(void **st)
{
	synth_opts o = {.d = 6, .n = 30000, .nseg = 25, .ncls = 6, .minlen = 300, .noise = 0.3,
			.active = 0.5, .seed = 4};
	synth s;
	assert_int_equal(synth_make(&s, &o), 0);
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n1, n2, n3, n4;
	assert_int_equal(vw_phase_prep_arrays(&pp, s.d, s.n, (const double *const *)s.x, 0), 0);
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	assert_int_equal(vw_phase_run(pp, &p, &seg, &n1), 0);
	free(seg);
	p.max_phases = 5; /* strongest boundaries only */
	assert_int_equal(vw_phase_run(pp, &p, &seg, &n2), 0);
	free(seg);
	assert_int_equal(n1, 25);
	assert_true(n2 <= 5 && n2 >= 2);
	p.max_phases = 0;
	p.min_len = 3000; /* longer than most segments: fewer phases, each >= 3000 */
	assert_int_equal(vw_phase_run(pp, &p, &seg, &n3), 0);
	assert_true(n3 < n1);
	for (size_t k = 0; k < n3; k++)
		assert_true(seg[k].end - seg[k].start >= 3000 - 8);
	free(seg);
	p.min_len = 0;
	p.penalty = 1e9; /* nothing passes */
	assert_int_equal(vw_phase_run(pp, &p, &seg, &n4), 0);
	assert_int_equal(n4, 1);
	free(seg);
	vw_phase_prep_free(pp);
	synth_free(&s);
}

static void test_degenerate(void **st)
{
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n;
	double one[1] = {3.0}, cst[300], nan[300], gap[300];
	const double *x1[1] = {one}, *xc[2] = {cst, nan}, *xg[1] = {gap};
	for (int i = 0; i < 300; i++) {
		cst[i] = 7.25;
		nan[i] = NAN;
		gap[i] = (i >= 100 && i < 180) ? NAN : i < 150 ? 1.0 : 4.0; /* gap over the change */
	}
	/* no sample */
	assert_int_equal(vw_phase_prep_arrays(&pp, 1, 0, x1, 0), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 0);
	free(seg);
	vw_phase_prep_free(pp);
	/* one sample, one phase */
	assert_int_equal(vw_phase_prep_arrays(&pp, 1, 1, x1, 0), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(seg[0].start, 0);
	assert_int_equal(seg[0].end, 1);
	free(seg);
	vw_phase_prep_free(pp);
	/* a constant stream and an all-NaN stream: one phase, no stream used */
	assert_int_equal(vw_phase_prep_arrays(&pp, 2, 300, xc, 0), 0);
	assert_int_equal(vw_phase_prep_used(pp), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(seg[0].end, 300);
	free(seg);
	vw_phase_prep_free(pp);
	/* a gap over the change: one boundary, inside the gap */
	assert_int_equal(vw_phase_prep_arrays(&pp, 1, 300, xg, 0), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 2);
	assert_true(seg[1].start >= 100 && seg[1].start <= 181);
	free(seg);
	vw_phase_prep_free(pp);
	/* no stream at all */
	assert_int_equal(vw_phase_prep_arrays(&pp, 0, 50, NULL, 0), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 1);
	free(seg);
	vw_phase_prep_free(pp);
}

/* A stream read every 50 buckets (mcrec's slow sources at 10 ms rows), its
 * readings noisy (+-20 %) but with no change, beside a busy/idle stream
 * read every bucket: one boundary, the busy stream's; the sparse one's
 * readings are not each a phase. */
static void test_sparse_stream(void **st)
{
	(void)st;
	enum { M = 2000, G = 50 };
	double *v = malloc(2 * M * sizeof *v);
	int64_t *edge = malloc((M + 1) * sizeof *edge);
	assert_non_null(v);
	assert_non_null(edge);
	uint64_t r = 12345;
	for (int i = 0; i < M; i++) {
		v[i] = i < 1200 ? 1.0 : 0.01;
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		v[M + i] = i % G == 0 ? 100.0 * (0.8 + 0.4 * (double)(r >> 11) / 9007199254740992.0) : NAN;
	}
	for (int i = 0; i <= M; i++)
		edge[i] = 10 * (int64_t)i;
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n;
	assert_int_equal(vw_phase_prep_coarse(&pp, 2, M, v, edge, 10, NULL), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(seg[1].start, 10 * 1200);
	free(seg);
	vw_phase_prep_free(pp);
	free(v);
	free(edge);
}

static void test_coarse_input(void **st)
{
	/* the coarse entry point: bucket means given, boundaries on bucket edges */
	enum { M = 64 };
	double v[2 * M];
	int64_t edge[M + 1];
	for (int i = 0; i < M; i++) {
		v[i] = i < 20 ? 1 : i < 40 ? 3 : 1;
		v[M + i] = i % 7 == 3 ? NAN : (i < 40 ? 10.0 : 11.0) + 0.01 * (i % 2);
	}
	for (int i = 0; i <= M; i++)
		edge[i] = 1000 + 50 * (int64_t)i;
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n;
	assert_int_equal(vw_phase_prep_coarse(&pp, 2, M, v, edge, 50, NULL), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(seg[1].start, 1000 + 50 * 20);
	assert_int_equal(seg[2].start, 1000 + 50 * 40);
	assert_int_equal(seg[2].end, 1000 + 50 * M);
	assert_int_not_equal(seg[0].cls, seg[2].cls); /* stream 2 differs by its whole range */
	free(seg);
	vw_phase_prep_free(pp);
}

/* Changes next to a stronger one or to the run's start (phase-truth on a
 * loaded machine): a kernel whose context switches drop 11 samples before
 * it ends (another tenant's load leaving), then idle; a kernel starting 5
 * samples into the run.  Every boundary where the levels change, within a
 * sample, with the default minimum of 10 samples. */
static void test_close_changes(void **st)
{
	enum { N = 400 };
	static double busy[N], ctx[N];
	const double *x[2] = {busy, ctx};
	uint32_t r = 12345;
	for (int i = 0; i < N; i++) {
		r = r * 1103515245u + 12345u;
		double u = (double)(r >> 8) / (double)(1u << 24) - 0.5;
		int kern = (i >= 5 && i < 150) || (i >= 250 && i < 311);
		busy[i] = (kern ? 48.0 : 0.2) + u;
		ctx[i] = (i >= 250 && i < 300 ? 120.0 : kern ? 2.0 : 5.0) + 4 * u;
	}
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t n;
	assert_int_equal(vw_phase_prep_arrays(&pp, 2, N, x, 0), 0);
	assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
	const int64_t want[] = {5, 150, 250, 311};
	for (size_t w = 0; w < 4; w++) {
		int64_t best = N;
		for (size_t k = 1; k < n; k++)
			best = llabs(seg[k].start - want[w]) < best ? llabs(seg[k].start - want[w]) : best;
		if (best > 1)
			fprintf(stderr, "boundary %lld: nearest found %lld away\n", (long long)want[w],
				(long long)best);
		assert_true(best <= 1);
	}
	free(seg);
	vw_phase_prep_free(pp);
}

/* A burst at a kernel's start (phase-truth in CI: gemm's first 100 ms
 * switched context 3 samples long, another tenant's doing): the burst
 * joins the kernel and the boundary between idle and the kernel stays
 * where the levels change — a short segment is never widened back into
 * the idle phase before it, which moved that clear boundary 146 ms. */
static void test_burst_at_start(void **st)
{
	enum { N = 300 };
	static double busy[N], ctx[N], flt[N];
	const double *x[3] = {busy, ctx, flt};
	uint32_t r = 777;
	for (int b = 2; b <= 3; b++) {
		for (int i = 0; i < N; i++) {
			r = r * 1103515245u + 12345u;
			double u = (double)(r >> 8) / (double)(1u << 24) - 0.5;
			int kern = i >= 100 && i < 200;
			busy[i] = (kern ? 48.0 : 0.2) + u;
			ctx[i] = (i >= 100 && i < 100 + b ? 400.0 : kern ? 2.0 : 8.0) + 2 * u;
			flt[i] = (kern ? 0.5 : 3.0) + u;
		}
		vw_phase_prep *pp;
		vw_phase_seg *seg;
		size_t n;
		assert_int_equal(vw_phase_prep_arrays(&pp, 3, N, x, 0), 0);
		assert_int_equal(vw_phase_run(pp, NULL, &seg, &n), 0);
		const int64_t want[] = {100, 200};
		for (size_t w = 0; w < 2; w++) {
			int64_t best = N;
			for (size_t k = 1; k < n; k++)
				best = llabs(seg[k].start - want[w]) < best ? llabs(seg[k].start - want[w])
									     : best;
			if (best > 1)
				fprintf(stderr, "burst of %d: boundary %lld: nearest found %lld away\n", b,
					(long long)want[w], (long long)best);
			assert_true(best <= 1);
		}
		for (size_t k = 1; k < n; k++) /* nothing inside the idle phases */
			assert_false(seg[k].start < 99 || (seg[k].start > 201 && seg[k].start < N));
		free(seg);
		vw_phase_prep_free(pp);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_steps),
		cmocka_unit_test(test_noise_outliers_nan),
		cmocka_unit_test(test_coarse_refined),
		cmocka_unit_test(test_abab_classes),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_coarse_input),
		cmocka_unit_test(test_sparse_stream),
		cmocka_unit_test(test_close_changes),
		cmocka_unit_test(test_burst_at_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
