/* roof-unseen.c: a workload the roofline code has never seen, for
 * tests/integration/roofline.sh: two marked phases that report their own
 * work with mcmark_count, counted from their arithmetic:
 *
 *   sumsq   s += x[i] * x[i] over 48 MiB: 2 flop per 8-byte load,
 *           0.25 flop/byte, streaming from memory (memory-bound)
 *   horner  a degree-24 polynomial by Horner's rule on a 32 KiB array
 *           read and written back: 48 flop per 16 bytes, 3 flop/byte,
 *           in cache
 *
 *   roof-unseen [SECONDS per phase, default 2]
 *   roof-unseen --bad     only bad calls: a name with a space, a negative
 *                         amount, NaN, a name of 60 characters, an
 *                         undeclared name (mcrec must note them, not crash)
 *
 * Prints, per phase, its intensity and the GFLOP/s it measured itself
 * ("phase NAME INTENSITY GFLOPS"), for the test to compare with mcview.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../recorder/mcmark.h"

enum { SUMSQ_N = 6 << 20, HORNER_N = 4096, DEGREE = 24 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bad")) {
		mcmark_count("fl ops", 1);
		mcmark_count("flops", -1);
		mcmark_count("bytes", 0.0 / 0.0);
		mcmark_count("a_name_that_is_much_longer_than_forty_eight_characters", 1);
		mcmark_count(NULL, 1);
		mcmark_count("items", 3);
		mcmark_work(1, -1); /* one bad amount: neither count recorded */
		return 0;
	}
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	if (!(secs > 0 && secs < 3600)) {
		fprintf(stderr, "roof-unseen: SECONDS must be in (0, 3600)\n");
		return 2;
	}
	double *x = malloc(SUMSQ_N * sizeof *x), *y = malloc(HORNER_N * sizeof *y);
	if (!x || !y)
		return 1;
	for (long i = 0; i < SUMSQ_N; i++)
		x[i] = 1.0 + (double)(i % 97) * 1e-3;
	for (long i = 0; i < HORNER_N; i++)
		y[i] = (double)(i % 89) * 1e-3;
	volatile double sink = 0;

	/* sumsq: 2 flop and 8 bytes per element */
	mcmark_begin("sumsq");
	double t0 = now(), t, flops = 0;
	do {
		double s0 = 0, s1 = 0;
		for (long i = 0; i < SUMSQ_N; i += 2)
			s0 += x[i] * x[i], s1 += x[i + 1] * x[i + 1];
		sink += s0 + s1;
		mcmark_count("flops", 2.0 * SUMSQ_N);
		mcmark_count("bytes", 8.0 * SUMSQ_N);
		flops += 2.0 * SUMSQ_N;
		t = now();
	} while (t - t0 < secs);
	mcmark_end();
	printf("phase sumsq %.6g %.6g\n", 2.0 / 8.0, flops / (t - t0) * 1e-9);

	/* horner: DEGREE multiply-adds per element, 8 bytes read + 8 written */
	mcmark_begin("horner");
	t0 = now(), flops = 0;
	long pass = 0;
	do {
		for (int rep = 0; rep < 64; rep++) {
			for (long i = 0; i < HORNER_N; i++) {
				double v = y[i], p = 0.5;
				for (int k = 0; k < DEGREE; k++)
					p = p * v + 0.25;
				y[i] = p * 1e-3;
			}
		}
		pass++;
		mcmark_count("flops", 64.0 * 2 * DEGREE * HORNER_N);
		mcmark_count("bytes", 64.0 * 16 * HORNER_N);
		flops += 64.0 * 2 * DEGREE * HORNER_N;
		t = now();
	} while (t - t0 < secs);
	mcmark_end();
	sink += y[7];
	printf("phase horner %.6g %.6g\n", 2.0 * DEGREE / 16.0, flops / (t - t0) * 1e-9);
	free(x);
	free(y);
	return sink == 12345.678 ? 3 : 0;
}
