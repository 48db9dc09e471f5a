/* bench-wide.c: random access in a wide recording (issue 21): open a file
 * of many streams and read one stream whole (its samples, then its
 * one-bucket summary), closing it after, as a tool answering one question
 * would; the median wall and CPU time of RUNS such rounds, each on another
 * stream.  The bar: 100,000 streams open and yield one stream in <= 10 ms.
 *
 *   bench-wide FILE [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../format/mcz.h"
#include "bench-clock.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-wide FILE [RUNS]\n");
		return 2;
	}
	int runs = argc > 2 ? atoi(argv[2]) : 9;
	if (runs < 1 || runs > 1000)
		runs = 9;
	double *wall = calloc((size_t)runs, sizeof *wall), *cpu = calloc((size_t)runs, sizeof *cpu);
	size_t ns = 0, nvals = 0;
	for (int i = 0; i < runs; i++) {
		double w0 = bench_wall_ms(), c0 = bench_cpu_ms();
		mcz_reader *r;
		int rc = mcz_open(&r, argv[1], 0);
		if (rc) {
			fprintf(stderr, "bench-wide: %s: %s\n", argv[1], mcz_strerror(rc));
			return 1;
		}
		ns = mcz_stream_count(r);
		const mcz_file_info *fi = mcz_info(r);
		/* another stream each round: no run is read twice */
		uint32_t s = (uint32_t)((size_t)(i + 1) * 7919u % (ns ? ns : 1));
		mcz_series x;
		mcz_bucket b;
		if (ns && (mcz_read(r, s, fi->t_first, fi->t_last + 1, &x) ||
			   mcz_summary(r, s, fi->t_first, fi->t_last + 1, 1, &b))) {
			fprintf(stderr, "bench-wide: stream %u does not read\n", s);
			return 1;
		}
		if (ns) {
			nvals = x.n;
			mcz_series_free(&x);
		}
		mcz_close(r);
		wall[i] = bench_wall_ms() - w0;
		cpu[i] = bench_cpu_ms() - c0;
	}
	qsort(wall, (size_t)runs, sizeof *wall, bench_cmp_double);
	qsort(cpu, (size_t)runs, sizeof *cpu, bench_cmp_double);
	printf("%zu streams: open + one stream (%zu rows) + close: %.2f ms wall, %.2f ms CPU "
	       "(median of %d; max %.2f ms wall)\n",
	       ns, nvals, wall[runs / 2], cpu[runs / 2], runs, wall[runs - 1]);
	free(wall);
	free(cpu);
	return 0;
}
