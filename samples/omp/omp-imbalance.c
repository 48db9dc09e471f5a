/* omp-imbalance.c: an OpenMP program with a known thread load balance,
 * for the analysis of threads that work against threads that wait at a
 * barrier (the OpenMP runtime's own code: libgomp, libomp).
 *
 *     OMP_WAIT_POLICY=active mcrec -o omp.mcz -- omp-imbalance --k 3
 *     mcview --report omp.mcz        # 2 threads, load balance 0.67
 *
 * --reps parallel regions of 2 threads (--threads T); in each, thread 0
 * does --k times the iterations (--base, times --scale) of every other
 * thread, then all meet at
 * the region's implicit barrier.  The work is counted, not timed: the load
 * balance injected (mean over the threads of the work / its max) is
 * (T - 1 + K) / (T K), and with active waiting the share of the threads'
 * time spent at the barrier is 1 minus that ((K - 1) / (2 K) for 2
 * threads).  Each thread also times its own work in CPU time
 * (CLOCK_THREAD_CPUTIME_ID), as an application's own timers would, and
 * the program prints the load balance by those timers.
 *
 * Built with gcc (libgomp) as omp-imbalance and, where clang has
 * libomp, with clang as omp-imbalance-clang (the Makefile).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;

/* n iterations of a dependent multiply-add: CPU time, no memory traffic */
static double work(long n)
{
	double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 0.999999 + 1e-9;
	return x;
}

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double k = 3, scale = 1;
	int reps = 40, nt = 2, quiet = 0;
	long base = 10000000;
	for (int i = 1; i < argc; i += 2) {
		/* -q and --scale as every sample takes them (rec-samples.sh) */
		if (!strcmp(argv[i], "-q")) {
			quiet = 1;
			i--;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "omp-imbalance: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--scale"))
			scale = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--k"))
			k = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--reps"))
			reps = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			nt = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--base"))
			base = atol(argv[i + 1]);
		else {
			fprintf(stderr, "usage: omp-imbalance [--k K] [--reps N] [--threads T] "
				"[--base ITERATIONS] [--scale S] [-q]\n");
			return 2;
		}
	}
	base = (long)((double)base * scale);
	if (k < 1 || reps < 1 || nt < 2 || nt > 64 || base < 1) {
		fprintf(stderr, "omp-imbalance: --k >= 1, --reps >= 1, --threads 2..64, --scale > 0\n");
		return 2;
	}
	double cpu[64] = {0};
	double t0 = omp_get_wtime();
	for (int r = 0; r < reps; r++) {
#pragma omp parallel num_threads(nt)
		{
			int t = omp_get_thread_num();
			double c0 = thread_cpu();
			sink += work(t == 0 ? (long)((double)base * k) : base);
			cpu[t] += thread_cpu() - c0;
		}
	}
	double wall = omp_get_wtime() - t0, sum = 0, max = 0;
	for (int t = 0; t < nt; t++) {
		sum += cpu[t];
		max = cpu[t] > max ? cpu[t] : max;
	}
	if (!quiet)
		printf("omp-imbalance: %d threads, k %.2f, %d regions in %.3f s; injected load balance "
	       "%.3f; by the threads' own CPU timers %.3f\n",
	       nt, k, reps, wall, (nt - 1 + k) / (nt * k), max > 0 ? sum / nt / max : 0);
	return 0;
}
