/* bench-open.c: how fast a large recording opens and answers the query a
 * zoomed-out viewer makes: a 200-bucket summary of every stream over the
 * whole recording.  Prints the median of several runs of each step, and
 * beside it the reference way to get the same buckets without the index's
 * summaries: decoding every sample of a stream (mcz_read), measured on a
 * few streams and scaled to all.
 *
 *   bench-open FILE [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "../../format/mcz.h"
#include "bench-clock.h"

static double bench_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double bench_now(void)
{
	return bench_clock(CLOCK_MONOTONIC);
}

/* CPU time of this process: the machine is shared, so wall time includes
 * waiting for a core; both are printed. */
static double bench_cpu(void)
{
	return bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

static double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-open FILE [RUNS]\n");
		return 2;
	}
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	if (runs < 1)
		runs = 1;
	double t_open[64], t_all[64], c_open[64], c_all[64];
	if (runs > 64)
		runs = 64;
	mcz_bucket b[200];
	uint64_t nvalues = 0, check = 0;
	size_t ns = 0;
	for (int k = 0; k < runs; k++) {
		double t0 = bench_now(), u0 = bench_cpu();
		mcz_reader *r;
		int rc = mcz_open(&r, argv[1], 0);
		if (rc) {
			fprintf(stderr, "bench-open: %s: %s\n", argv[1], mcz_strerror(rc));
			return 1;
		}
		double t1 = bench_now(), u1 = bench_cpu();
		const mcz_file_info *fi = mcz_info(r);
		ns = mcz_stream_count(r);
		nvalues = fi->nvalues;
		for (size_t s = 0; s < ns; s++) {
			if ((rc = mcz_summary(r, (uint32_t)s, fi->t_first, fi->t_last + 1, 200, b))) {
				fprintf(stderr, "bench-open: summary: %s\n", mcz_strerror(rc));
				return 1;
			}
			check += b[199].count;
		}
		double t2 = bench_now(), u2 = bench_cpu();
		mcz_close(r);
		t_open[k] = t1 - t0;
		t_all[k] = t2 - t0;
		c_open[k] = u1 - u0;
		c_all[k] = u2 - u0;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru); /* before the reference maps the whole file in */
	/* reference: decode every sample of a few streams */
	mcz_reader *r;
	mcz_open(&r, argv[1], 0);
	const mcz_file_info *fi = mcz_info(r);
	size_t probe = ns < 2 ? ns : 2;
	double t0 = bench_now();
	for (size_t s = 0; s < probe; s++) {
		mcz_series ser;
		if (mcz_read(r, (uint32_t)s, fi->t_first, fi->t_last + 1, &ser) == 0) {
			check += ser.n;
			mcz_series_free(&ser);
		}
	}
	double t_dec = probe ? (bench_now() - t0) / (double)probe * (double)ns : 0;
	mcz_close(r);
	printf("%-50s %10s %10s\n", "step (median of runs)", "wall", "cpu");
	printf("%-50s %7.1f ms %7.1f ms\n", "mcz_open", 1e3 * bench_median(t_open, runs),
	       1e3 * bench_median(c_open, runs));
	printf("%-50s %7.1f ms %7.1f ms   bar: <= 100 ms\n",
	       "mcz_open + 200-bucket summary of every stream", 1e3 * bench_median(t_all, runs),
	       1e3 * bench_median(c_all, runs));
	printf("%-50s %7.0f ms %10s   (decode every sample; %zu of %zu streams timed)\n",
	       "reference: the same from the samples", 1e3 * t_dec, "", probe, ns);
	printf("file: %zu streams, %llu values; runs: %d; max RSS of open + summaries %.0f MB (check %llu)\n", ns,
	       (unsigned long long)nvalues, runs, (double)ru.ru_maxrss / 1024,
	       (unsigned long long)(check % 10));
	return 0;
}
