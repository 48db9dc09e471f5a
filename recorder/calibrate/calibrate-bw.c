/* calibrate-bw.c: the memory bandwidth ceiling — STREAM's triad
 * (a[i] = b[i] + s * c[i], 24 bytes per element: two reads and a write,
 * write-allocate not counted, as STREAM counts) and a streaming read (a sum,
 * 8 bytes per element), every thread on its own arrays, first touched by
 * itself so that they live on its NUMA node.  The figure is the best
 * repetition (rec_calibrate_team_run).
 */
#include "calibrate.h"

#include <stdlib.h>
#include <string.h>

struct bw_part {
	double *a, *b, *c;
	double sum;
	char pad[64];
};

struct bw {
	struct bw_part *p;
	size_t n;   /* elements per array */
	int read;   /* 1: the read kernel, 0: triad */
	int failed; /* an allocation failed */
};

static void bw_setup(int i, void *arg)
{
	struct bw *w = arg;
	struct bw_part *p = &w->p[i];
	size_t bytes = w->n * sizeof(double);
	if (posix_memalign((void **)&p->a, 64, bytes) || posix_memalign((void **)&p->b, 64, bytes) ||
	    posix_memalign((void **)&p->c, 64, bytes)) {
		w->failed = 1;
		p->a = p->b = p->c = NULL;
		return;
	}
	for (size_t k = 0; k < w->n; k++)
		p->a[k] = 0.0, p->b[k] = 1.0 + (double)(k & 7), p->c[k] = 2.0;
}

static void bw_run(int i, void *arg)
{
	struct bw *w = arg;
	struct bw_part *p = &w->p[i];
	if (!p->a)
		return;
	size_t n = w->n;
	if (w->read) {
		double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
		const double *a = p->b;
		for (size_t k = 0; k + 3 < n; k += 4)
			s0 += a[k], s1 += a[k + 1], s2 += a[k + 2], s3 += a[k + 3];
		p->sum += s0 + s1 + s2 + s3;
	} else {
		double *restrict a = p->a;
		const double *restrict b = p->b, *restrict c = p->c;
		const double s = 3.0;
		for (size_t k = 0; k < n; k++)
			a[k] = b[k] + s * c[k];
		p->sum += a[n / 2];
	}
}

int rec_calibrate_bw(const int *cpus, int n, size_t bytes_per_array, double max_s, rec_calib_bw *out)
{
	struct bw w;
	memset(&w, 0, sizeof w);
	w.n = bytes_per_array / sizeof(double) / 4 * 4;
	w.p = calloc((size_t)n, sizeof *w.p);
	if (!w.p || w.n == 0) {
		free(w.p);
		return -1;
	}
	rec_calib_work work = {bw_setup, bw_run, &w};
	double total = (double)w.n * n;
	/* setup happens in the first team: triad there, then read in a second
	 * team that reuses the arrays (setup only once per thread) */
	w.read = 0;
	double t = rec_calibrate_team_run(cpus, n, &work, 20, max_s);
	out->triad_Bps = t > 0 && !w.failed ? 24.0 * total / t : -1;
	work.setup = NULL;
	w.read = 1;
	t = rec_calibrate_team_run(cpus, n, &work, 20, max_s);
	out->read_Bps = t > 0 && !w.failed ? 8.0 * total / t : -1;
	volatile double sink = 0;
	for (int i = 0; i < n; i++) {
		sink += w.p[i].sum;
		free(w.p[i].a), free(w.p[i].b), free(w.p[i].c);
	}
	(void)sink;
	free(w.p);
	return out->triad_Bps > 0 && out->read_Bps > 0 ? 0 : -1;
}
