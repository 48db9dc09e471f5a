/* fma-peak.c: an independent FMA loop for bench-roofline.sh, written apart
 * from mcrec's calibration: inline assembly (AT&T), so no compiler choice
 * changes it — 12 independent vfmadd231pd on ymm registers per iteration
 * (AVX2, 4 doubles, 2 flops each), on T threads (default every online CPU,
 * unpinned); ITER iterations per thread, the best of 5 runs.
 *
 *   fma-peak [THREADS]      prints "fma_avx2_flops VALUE" (or why not)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ITER 1200000000L

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *loop(void *arg)
{
#if defined(__x86_64__)
	long n = ITER / 12;
	static const double one = 1.0, tiny = 1e-9;
	__asm__ volatile(
		"vxorpd %%ymm0, %%ymm0, %%ymm0\n\t"
		"vxorpd %%ymm1, %%ymm1, %%ymm1\n\t"
		"vxorpd %%ymm2, %%ymm2, %%ymm2\n\t"
		"vxorpd %%ymm3, %%ymm3, %%ymm3\n\t"
		"vxorpd %%ymm4, %%ymm4, %%ymm4\n\t"
		"vxorpd %%ymm5, %%ymm5, %%ymm5\n\t"
		"vxorpd %%ymm6, %%ymm6, %%ymm6\n\t"
		"vxorpd %%ymm7, %%ymm7, %%ymm7\n\t"
		"vxorpd %%ymm8, %%ymm8, %%ymm8\n\t"
		"vxorpd %%ymm9, %%ymm9, %%ymm9\n\t"
		"vxorpd %%ymm10, %%ymm10, %%ymm10\n\t"
		"vxorpd %%ymm11, %%ymm11, %%ymm11\n\t"
		"vbroadcastsd %1, %%ymm14\n\t"
		"vbroadcastsd %2, %%ymm15\n\t"
		"1:\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm0\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm1\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm2\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm3\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm4\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm5\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm6\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm7\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm8\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm9\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm10\n\t"
		"vfmadd231pd %%ymm14, %%ymm15, %%ymm11\n\t"
		"dec %0\n\t"
		"jnz 1b\n\t"
		"vzeroupper\n\t"
		: "+r"(n)
		: "m"(one), "m"(tiny)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
		  "xmm10", "xmm11", "xmm14", "xmm15", "cc");
#endif
	return arg;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
#if !defined(__x86_64__)
	puts("fma_avx2_flops - (not x86-64)");
	return 0;
#else
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
		puts("fma_avx2_flops - (no AVX2/FMA)");
		return 0;
	}
	if (nt < 1 || nt > 1024)
		return 2;
	pthread_t *t = malloc(nt * sizeof *t);
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double t0 = now();
		for (int i = 1; i < nt; i++)
			pthread_create(&t[i], NULL, loop, NULL);
		loop(NULL);
		for (int i = 1; i < nt; i++)
			pthread_join(t[i], NULL);
		double dt = now() - t0;
		best = dt < best ? dt : best;
	}
	printf("fma_avx2_flops %.6g\n", (double)(ITER / 12 * 12) * 4 * 2 * nt / best);
	free(t);
	return 0;
#endif
}
