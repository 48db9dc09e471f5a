/* bench-clock.h: the clocks and the sort comparator the benchmark programs
 * share (wall time and this process's CPU time in ms; the machine may be
 * shared, so benchmarks print both).  Header-only: each benchmark is its own
 * program (tests/bench/X.c -> build/bench/X).
 *
 *     double w0 = bench_wall_ms(), c0 = bench_cpu_ms();
 *     ...
 *     qsort(v, n, sizeof *v, bench_cmp_double);
 */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <time.h>

static inline double bench_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline double bench_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
