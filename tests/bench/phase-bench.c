/* phase-bench.c: speed and accuracy of the phase detector (viewer/analysis/phases/phase.c)
 * beside two plain baselines run on the same data in the same process:
 * binary segmentation and PELT at full resolution, with the same scaling,
 * cost (multivariate Gaussian change in mean) and penalty.
 *
 *     phase-bench speed [quick]      table: time vs n, d, phases; re-detection
 *     phase-bench accuracy [quick]   table: precision/recall on synthetic cases
 *     phase-bench model FILE         detection through the viewer's model on a
 *                                    recording: cold, re-detection, cached
 *
 * Times are CPU seconds of this (single-threaded) process, medians of 3 runs
 * (1 with quick) for mcz, one run for the baselines.  PELT is skipped where
 * its quadratic cost would exceed ~20 s (inside a long phase it prunes
 * nothing).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../viewer/model/model.h"
#include "../../viewer/analysis/an.h"
#include "../../viewer/analysis/phases/phase.h"
#include "../unit/phase-synth.h"

static int quick;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median3d(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, dbl_cmp);
	return t[n / 2];
}

/* ---- baselines: full resolution, same scaling and penalty --------------------- */

typedef struct base {
	size_t d, n;
	double *pre; /* prefix sums of scaled values, pre[j * (n + 1) + i] */
	double pen;
	int64_t *cp;
	size_t ncp;
} base;

static double base_median(double *a, size_t n)
{
	qsort(a, n, sizeof *a, dbl_cmp);
	return a[n / 2];
}

/* Scale like the detector: NaN -> previous, unit noise (MAD of differences,
 * floored at 1/25 of the 0.5-99.5 % range); no clipping, no median (plain). */
static int base_init(base *b, const synth *s)
{
	size_t d = s->d, n = s->n;
	b->d = d;
	b->n = n;
	b->pre = malloc(d * (n + 1) * sizeof *b->pre);
	b->cp = malloc((n + 1) * sizeof *b->cp);
	double *tmp = malloc((n + 1) * sizeof *tmp), *y = malloc((n + 1) * sizeof *y);
	if (!b->pre || !b->cp || !tmp || !y)
		return -1;
	b->ncp = 0;
	for (size_t j = 0; j < d; j++) {
		double last = 0;
		for (size_t i = 0; i < n; i++) {
			y[i] = isnan(s->x[j][i]) ? last : s->x[j][i];
			last = y[i];
		}
		memcpy(tmp, y, n * sizeof *y); /* range without the rarest 1 % */
		qsort(tmp, n, sizeof *tmp, dbl_cmp);
		double lo = tmp[n / 200], hi = tmp[n - 1 - n / 200];
		for (size_t i = 0; i + 1 < n; i++)
			tmp[i] = fabs(y[i + 1] - y[i]);
		double noise = n > 1 ? 1.4826 * base_median(tmp, n - 1) / sqrt(2) : 1;
		double sc = fmax(noise, (hi - lo) / 25);
		double *p = b->pre + j * (n + 1);
		p[0] = 0;
		for (size_t i = 0; i < n; i++)
			p[i + 1] = p[i] + (sc > 0 ? y[i] / sc : 0);
	}
	free(tmp);
	free(y);
	double de = (double)d, x = 2 * log((double)n);
	b->pen = de + 2 * sqrt(de * x) + 2 * x;
	return 0;
}

static void base_free(base *b)
{
	free(b->pre);
	free(b->cp);
}

/* -sum_j S_j^2 / len: Gaussian cost of [s, e) up to a constant. */
static double base_cost(const base *b, size_t s, size_t e)
{
	double c = 0;
	for (size_t j = 0; j < b->d; j++) {
		const double *p = b->pre + j * (b->n + 1);
		double sum = p[e] - p[s];
		c -= sum * sum;
	}
	return c / (double)(e - s);
}

static void base_binseg(base *b, size_t s, size_t e)
{
	if (e - s < 4)
		return;
	double whole = base_cost(b, s, e), best = 0;
	size_t bt = 0;
	for (size_t t = s + 2; t + 2 <= e; t++) {
		double g = whole - base_cost(b, s, t) - base_cost(b, t, e);
		if (g > best) {
			best = g;
			bt = t;
		}
	}
	if (best < b->pen)
		return;
	base_binseg(b, s, bt);
	b->cp[b->ncp++] = (int64_t)bt;
	base_binseg(b, bt, e);
}

static int base_pelt(base *b)
{
	size_t n = b->n, nr = 1;
	double *f = malloc((n + 1) * sizeof *f);
	size_t *last = malloc((n + 1) * sizeof *last), *r = malloc((n + 2) * sizeof *r);
	if (!f || !last || !r)
		return -1;
	f[0] = -b->pen;
	r[0] = 0;
	for (size_t t = 1; t <= n; t++) {
		double best = INFINITY;
		size_t bs = 0;
		for (size_t k = 0; k < nr; k++) {
			size_t s = r[k];
			if (t - s < 2)
				continue;
			double v = f[s] + base_cost(b, s, t) + b->pen;
			if (v < best) {
				best = v;
				bs = s;
			}
		}
		f[t] = best;
		last[t] = bs;
		size_t keep = 0; /* prune: F(s) + C(s, t) > F(t) can never win later */
		for (size_t k = 0; k < nr; k++) {
			size_t s = r[k];
			if (t - s < 2 || f[s] + base_cost(b, s, t) <= f[t])
				r[keep++] = s;
		}
		nr = keep;
		if (isfinite(f[t]))
			r[nr++] = t;
	}
	b->ncp = 0;
	for (size_t t = n; t > 0 && last[t] > 0; t = last[t])
		b->cp[b->ncp++] = (int64_t)last[t];
	for (size_t i = 0; i < b->ncp / 2; i++) { /* ascending */
		int64_t x = b->cp[i];
		b->cp[i] = b->cp[b->ncp - 1 - i];
		b->cp[b->ncp - 1 - i] = x;
	}
	free(f);
	free(last);
	free(r);
	return 0;
}

/* ---- runs ------------------------------------------------------------------- */

typedef struct result {
	double sec;
	size_t found;
	double p2, r2, p8, r8;
} result;

static void score(const synth *s, const int64_t *cp, size_t n, result *res)
{
	res->found = n;
	synth_score(s, cp, n, 2, &res->p2, &res->r2);
	synth_score(s, cp, n, 8, &res->p8, &res->r8);
}

static int run_mcz(const synth *s, result *res)
{
	double t[3];
	int reps = quick ? 1 : 3;
	vw_phase_seg *seg = NULL;
	size_t nseg = 0;
	for (int r = 0; r < reps; r++) {
		free(seg);
		double t0 = cpu_now();
		vw_phase_prep *pp;
		if (vw_phase_prep_arrays(&pp, s->d, s->n, (const double *const *)s->x, 0) ||
		    vw_phase_run(pp, NULL, &seg, &nseg))
			return -1;
		vw_phase_prep_free(pp);
		t[r] = cpu_now() - t0;
	}
	res->sec = median3d(t, reps);
	int64_t *cp = malloc((nseg + 1) * sizeof *cp);
	for (size_t k = 1; k < nseg; k++)
		cp[k - 1] = seg[k].start;
	score(s, cp, nseg ? nseg - 1 : 0, res);
	free(cp);
	free(seg);
	return 0;
}

static int run_base(const synth *s, int pelt, result *res)
{
	base b;
	double t0 = cpu_now();
	if (base_init(&b, s))
		return -1;
	if (pelt)
		base_pelt(&b);
	else
		base_binseg(&b, 0, s->n);
	res->sec = cpu_now() - t0;
	score(s, b.cp, b.ncp, res);
	base_free(&b);
	return 0;
}

static void print_res(const result *r, int skipped)
{
	if (skipped)
		printf(" %9s %5s %9s", "skipped", "", "");
	else
		printf(" %9.3f %5zu %4.2f/%4.2f", r->sec, r->found, r->p2, r->r2);
}

static int speed_row(size_t n, size_t d, size_t nseg, int with_pelt)
{
	synth s;
	synth_opts o = {.d = d, .n = n, .nseg = nseg, .ncls = nseg < 5 ? 2 : 5,
			.minlen = n / nseg / 2, .noise = 0.3, .active = 0.4, .seed = n + d + nseg};
	if (synth_make(&s, &o))
		return -1;
	result rm, rb, rp;
	if (run_mcz(&s, &rm) || run_base(&s, 0, &rb))
		return -1;
	/* PELT prunes nothing inside a phase: ~n^2 / (2 phases) costs of d streams */
	double pelt_est = (double)n * (double)n / (2.0 * (double)nseg) * (double)d * 2e-9;
	int skip = !with_pelt || pelt_est > 20;
	if (!skip && run_base(&s, 1, &rp))
		return -1;
	printf("%9zu %4zu %6zu  ", n, d, nseg);
	print_res(&rm, 0);
	print_res(&rb, 0);
	print_res(&rp, skip);
	printf("   %6.0fx\n", rb.sec / rm.sec);
	synth_free(&s);
	return 0;
}

static int speed(void)
{
	printf("phase detection speed, CPU seconds on one core (median of %d), synthetic streams\n",
	       quick ? 1 : 3);
	printf("noise 0.3 of the level spread (no outliers: the baselines are not robust to them,\n"
	       "see the accuracy table); P/R = precision/recall within 2 samples\n\n");
	printf("%9s %4s %6s   %9s %5s %9s %9s %5s %9s %9s %5s %9s %8s\n", "samples", "d",
	       "phases", "mcz s", "found", "P/R", "binseg s", "found", "P/R", "PELT s", "found",
	       "P/R", "binseg/mcz");
	size_t big = quick ? 300000 : 1000000;
	int rc = 0;
	rc |= speed_row(big, 32, 20, 0);
	rc |= speed_row(big, 32, 2, 0);
	rc |= speed_row(big, 32, 200, 0);
	printf("growth (d = 8, 20 phases):\n");
	for (size_t n = 10000; n <= (quick ? 1000000u : 10000000u); n *= 10)
		rc |= speed_row(n, 8, 20, 1);
	/* re-detection after a parameter change, on the prepared coarse level */
	synth s;
	synth_opts o = {.d = 32, .n = big, .nseg = 20, .ncls = 5, .minlen = big / 40,
			.noise = 0.3, .outliers = 0.001, .active = 0.4, .seed = 9};
	if (synth_make(&s, &o))
		return -1;
	vw_phase_prep *pp;
	vw_phase_seg *seg;
	size_t nseg;
	double t0 = cpu_now();
	if (vw_phase_prep_arrays(&pp, s.d, s.n, (const double *const *)s.x, 0))
		return -1;
	double tprep = cpu_now() - t0;
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	t0 = cpu_now();
	vw_phase_run(pp, &p, &seg, &nseg);
	double tfirst = cpu_now() - t0;
	free(seg);
	double tp[3], tm[3], tc[3];
	for (int r = 0; r < 3; r++) {
		p.penalty = 1.5 + r;
		t0 = cpu_now();
		vw_phase_run(pp, &p, &seg, &nseg);
		tp[r] = cpu_now() - t0;
		free(seg);
		p.penalty = 1;
		p.min_len = (int64_t)(big / 100 * (size_t)(r + 1));
		t0 = cpu_now();
		vw_phase_run(pp, &p, &seg, &nseg);
		tm[r] = cpu_now() - t0;
		free(seg);
		p.min_len = 0;
		p.class_tol = 0.1 + 0.1 * r;
		t0 = cpu_now();
		vw_phase_run(pp, &p, &seg, &nseg);
		tc[r] = cpu_now() - t0;
		free(seg);
		p.class_tol = 0.2;
	}
	printf("\nre-detection, %zu x 32 (bar: <= 0.050 s):\n", big);
	printf("  prepare coarse level %.3f s, first detection %.3f s\n", tprep, tfirst);
	printf("  penalty changed %.4f s, minimum length changed %.4f s, class tolerance changed "
	       "%.4f s\n",
	       median3d(tp, 3), median3d(tm, 3), median3d(tc, 3));
	vw_phase_prep_free(pp);
	synth_free(&s);
	return rc;
}

/* ---- accuracy table ------------------------------------------------------------ */

static int accuracy(void)
{
	struct {
		const char *name;
		synth_opts o;
	} cases[] = {
		{"clean steps", {.d = 8, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.05, .active = 0.5}},
		{"noise 0.3", {.d = 8, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.3, .active = 0.5}},
		{"noise 0.6", {.d = 8, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.6, .active = 0.5}},
		{"noise 0.3 + 0.5% outliers", {.d = 8, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.3, .outliers = 0.005, .active = 0.5}},
		{"noise 0.3 + 5% NaN", {.d = 8, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.3, .nan = 0.05, .active = 0.5}},
		{"one stream of 32 changes", {.d = 32, .n = 20000, .nseg = 20, .ncls = 4, .minlen = 200, .noise = 0.3, .active = 0.0}},
		{"short phases (20 samples)", {.d = 8, .n = 4000, .nseg = 100, .ncls = 4, .minlen = 20, .noise = 0.2, .active = 0.5}},
		{"10^6 samples, 200 phases", {.d = 8, .n = 1000000, .nseg = 200, .ncls = 6, .minlen = 2000, .noise = 0.3, .outliers = 0.001, .active = 0.5}},
	};
	int seeds = quick ? 3 : 10;
	printf("phase detection accuracy on synthetic streams (%d seeds each); noise, as a\n"
	       "fraction of the level spread; precision/recall of boundaries within 2 and 8 samples\n\n",
	       seeds);
	printf("%-28s %8s  %-21s %-21s %-21s\n", "case", "true", "mcz P/R +-2 | +-8",
	       "binseg P/R +-2 | +-8", "PELT P/R +-2 | +-8");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double sm[4] = {0}, sb[4] = {0}, sp[4] = {0};
		size_t tot = 0;
		int pelt = cases[c].o.n <= 20000;
		for (int k = 0; k < seeds; k++) {
			synth s;
			synth_opts o = cases[c].o;
			o.seed = 100 + (uint64_t)k;
			if (synth_make(&s, &o))
				return -1;
			result rm, rb, rp = {0};
			if (run_mcz(&s, &rm) || run_base(&s, 0, &rb) || (pelt && run_base(&s, 1, &rp)))
				return -1;
			double *acc[3] = {sm, sb, sp};
			result *rr[3] = {&rm, &rb, &rp};
			for (int i = 0; i < 3; i++) {
				acc[i][0] += rr[i]->p2;
				acc[i][1] += rr[i]->r2;
				acc[i][2] += rr[i]->p8;
				acc[i][3] += rr[i]->r8;
			}
			tot += s.nseg - 1;
			synth_free(&s);
		}
		printf("%-28s %8zu ", cases[c].name, tot);
		double *acc[3] = {sm, sb, sp};
		for (int i = 0; i < 3; i++) {
			if (i == 2 && !pelt)
				printf(" %-21s", "(too slow)");
			else
				printf(" %4.2f/%4.2f | %4.2f/%4.2f", acc[i][0] / seeds, acc[i][1] / seeds,
				       acc[i][2] / seeds, acc[i][3] / seeds);
		}
		printf("\n");
	}
	return 0;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Detection on a recording, as mcview does it: summaries at the coarse
 * level, refinement on samples; then re-detection after a parameter change
 * (the coarse level kept), and the second open (the file's cache). */
static int model_bench(const char *path)
{
	vw_model *m;
	char err[256];
	const char *p[1] = {path};
	vw_open_opts o = {0};
	o.quiet = 1;
	double t0 = wall_now();
	if (vw_model_open(&m, p, 1, &o, err, sizeof err)) {
		fprintf(stderr, "phase-bench: %s\n", err);
		return -1;
	}
	double topen = wall_now() - t0;
	vw_an *an = vw_an_new(m);
	const mcz_file_info *fi = mcz_info(m->files[0]);
	vw_phase_params par = VW_PHASE_PARAMS_INIT;
	setenv("MCVIEW_PHASE_CACHE", "0", 1);
	t0 = wall_now();
	double c0 = cpu_now();
	if (vw_phases_detect(an, &par, VW_PHASES_AUTO, err, sizeof err))
		return -1;
	double tcold = wall_now() - t0, ccold = cpu_now() - c0;
	size_t n1 = vw_phases_count(an->phases);
	double tp[3], tm[3];
	for (int r = 0; r < 3; r++) { /* CPU time: the machine may be shared */
		par.penalty = 1.5 + r;
		t0 = cpu_now();
		vw_phases_detect(an, &par, VW_PHASES_AUTO, err, sizeof err);
		tp[r] = cpu_now() - t0;
		par.penalty = 1;
		par.min_len = (int64_t)(r + 2) * 1000000000LL;
		t0 = cpu_now();
		vw_phases_detect(an, &par, VW_PHASES_AUTO, err, sizeof err);
		tm[r] = cpu_now() - t0;
		par.min_len = 0;
	}
	vw_an_free(an);
	vw_model_free(m);
	/* with the cache: one detection writes it, the next open reads it */
	setenv("MCVIEW_PHASE_CACHE", "1", 1);
	if (vw_model_open(&m, p, 1, &o, err, sizeof err) || !(an = vw_an_new(m)) ||
	    vw_phases_detect(an, &par, VW_PHASES_AUTO, err, sizeof err))
		return -1;
	vw_an_free(an);
	vw_model_free(m);
	t0 = wall_now();
	if (vw_model_open(&m, p, 1, &o, err, sizeof err) || !(an = vw_an_new(m)) ||
	    vw_phases_detect(an, &par, VW_PHASES_AUTO, err, sizeof err))
		return -1;
	double tcache = wall_now() - t0;
	int cached = an->phases->from_cache;
	vw_an_free(an);
	vw_model_free(m);
	printf("recording %s: %llu rows x %zu streams (%.0f MB), %zu phases found\n", path,
	       (unsigned long long)fi->nrows, (size_t)(fi->nvalues / (fi->nrows ? fi->nrows : 1)),
	       (double)fi->file_bytes / 1e6, n1);
	printf("  open %.3f s; detection from the file %.3f s wall (%.3f s CPU)\n", topen, tcold,
	       ccold);
	printf("  re-detection (CPU): penalty changed %.4f s, minimum length changed %.4f s (bar 0.050 s)\n",
	       median3d(tp, 3), median3d(tm, 3));
	printf("  second open with the cache: open + phases %.4f s (%s)\n", tcache,
	       cached ? "from the cache" : "NOT from the cache");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "model"))
		return model_bench(argv[2]) ? 1 : 0;
	quick = (argc > 2 && !strcmp(argv[2], "quick")) || getenv("BENCH_QUICK");
	if (argc > 1 && !strcmp(argv[1], "speed"))
		return speed() ? 1 : 0;
	if (argc > 1 && !strcmp(argv[1], "accuracy"))
		return accuracy() ? 1 : 0;
	fprintf(stderr, "usage: phase-bench speed|accuracy [quick] | model FILE\n");
	return 2;
}
