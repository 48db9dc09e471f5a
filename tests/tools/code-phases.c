/* code-phases.c: a workload of five phases for the code source's tests —
 * compute, stream, idle, stream, compute, each SECONDS long (default 3) —
 * whose two kernels are static functions that -O2 inlines into main, so
 * that only DWARF's inline records tell them apart (as in issue 16).
 * Prints on stderr, for the tests to compare with, its start on both
 * clocks ("start MONO REAL", seconds) and the phase boundaries ("phase
 * NAME START END", seconds since that start).
 *
 *     cc -O2 -g -o code-phases tests/tools/code-phases.c       (and without -g)
 *     mcrec -o run.mcz -- ./code-phases 3
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double phases_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double phases_now(void)
{
	return phases_clock(CLOCK_MONOTONIC);
}

/* Arithmetic on registers: no memory traffic. */
static inline double compute_kernel(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9 / (x + 1.0);
	return x;
}

/* A STREAM triad over arrays larger than the caches. */
static inline double stream_kernel(double *a, const double *b, const double *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + 3.0 * c[i];
	return a[n / 2];
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	if (secs <= 0) {
		fprintf(stderr, "usage: code-phases [SECONDS per phase]\n");
		return 2;
	}
	size_t n = 4u << 20; /* 3 x 32 MiB */
	double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
	if (!a || !b || !c)
		return 1;
	for (size_t i = 0; i < n; i++)
		a[i] = 0, b[i] = (double)i, c[i] = 1.0 / (double)(i + 1);
	volatile double sink = 0;
	const char *names[5] = {"compute", "stream", "idle", "stream", "compute"};
	double t0 = phases_now();
	fprintf(stderr, "start %.6f %.6f\n", t0, phases_clock(CLOCK_REALTIME));
	for (int ph = 0; ph < 5; ph++) {
		double start = phases_now(), end = start + secs;
		if (ph == 2) {
			while (phases_now() < end)
				usleep(10000);
		} else {
			while (phases_now() < end)
				sink = ph == 0 || ph == 4 ? compute_kernel(sink + 1.0, 2000000)
							  : stream_kernel(a, b, c, n);
		}
		fprintf(stderr, "phase %s %.3f %.3f\n", names[ph], start - t0, phases_now() - t0);
	}
	free(a), free(b), free(c);
	return sink == 12345.0;
}
