/* calibrate-flops.c: the double-precision compute ceiling — fused
 * multiply-adds (2 operations each) on 12 independent chains, enough to
 * keep two FMA pipes of 4-5 cycles' latency full, scalar and at the widest
 * SIMD width the CPU has.  The SIMD kernels are compiled for their target
 * with function attributes (target("avx2,fma"), target("avx512f")) and
 * chosen at run time with __builtin_cpu_supports, so one mcrec binary
 * measures AVX-512 where it exists and AVX2 elsewhere.  The scalar kernel
 * must stay scalar: the compiler is told not to vectorise it.
 */
#include "calibrate.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CAL_X86 1
#endif

#if defined(__clang__)
#define CAL_NOVEC
#define CAL_NOVEC_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#elif defined(__GNUC__)
#define CAL_NOVEC __attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
#define CAL_NOVEC_LOOP
#else
#define CAL_NOVEC
#define CAL_NOVEC_LOOP
#endif

enum { CAL_CHAINS = 12 };

/* Scalar x = x * m + a on 12 chains held in registers; the empty asm
 * (the values stay in xmm registers, untouched) keeps the compiler from
 * packing chains into vectors.  Fused where the CPU has FMA (the target),
 * else two operations: 2 flops per step either way. */
#define CAL_SCALAR_BODY(STEP)                                                                   \
	double x0 = 1.0, x1 = 1.001, x2 = 1.002, x3 = 1.003, x4 = 1.004, x5 = 1.005;          \
	double x6 = 1.006, x7 = 1.007, x8 = 1.008, x9 = 1.009, x10 = 1.01, x11 = 1.011;       \
	CAL_NOVEC_LOOP                                                                          \
	for (long i = 0; i < iters; i++) {                                                      \
		x0 = STEP(x0), x1 = STEP(x1), x2 = STEP(x2), x3 = STEP(x3);                     \
		x4 = STEP(x4), x5 = STEP(x5), x6 = STEP(x6), x7 = STEP(x7);                     \
		x8 = STEP(x8), x9 = STEP(x9), x10 = STEP(x10), x11 = STEP(x11);                 \
		__asm__ volatile("" : "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4), "+x"(x5), \
				 "+x"(x6), "+x"(x7), "+x"(x8), "+x"(x9), "+x"(x10), "+x"(x11)); \
	}                                                                                       \
	return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;

#define CAL_FMA(x) __builtin_fma(x, m, a)
#define CAL_MULADD(x) ((x) * m + a)

#ifdef CAL_X86
__attribute__((target("fma"))) CAL_NOVEC static double cal_scalar_fma(long iters, double m, double a)
{
	CAL_SCALAR_BODY(CAL_FMA)
}

/* The same 12 chains on vectors of type T with its set1 / fmadd / add.  The
 * chains start from different values: from equal ones the compiler proves
 * them equal and keeps one (which once made the "peak" a latency-bound
 * chain counted 12 times). */
#define CAL_VECTOR_BODY(T, SET1, FMADD, ADD)                                                     \
	T vm = SET1(m), va = SET1(a);                                                           \
	T x0 = SET1(1.0), x1 = SET1(1.001), x2 = SET1(1.002), x3 = SET1(1.003);                 \
	T x4 = SET1(1.004), x5 = SET1(1.005), x6 = SET1(1.006), x7 = SET1(1.007);               \
	T x8 = SET1(1.008), x9 = SET1(1.009), x10 = SET1(1.01), x11 = SET1(1.011);              \
	for (long i = 0; i < iters; i++) {                                                      \
		x0 = FMADD(x0, vm, va), x1 = FMADD(x1, vm, va), x2 = FMADD(x2, vm, va);         \
		x3 = FMADD(x3, vm, va), x4 = FMADD(x4, vm, va), x5 = FMADD(x5, vm, va);         \
		x6 = FMADD(x6, vm, va), x7 = FMADD(x7, vm, va), x8 = FMADD(x8, vm, va);         \
		x9 = FMADD(x9, vm, va), x10 = FMADD(x10, vm, va), x11 = FMADD(x11, vm, va);     \
	}                                                                                       \
	T s = ADD(ADD(ADD(x0, x1), ADD(x2, x3)), ADD(ADD(x4, x5), ADD(x6, x7)));                \
	s = ADD(s, ADD(ADD(x8, x9), ADD(x10, x11)));

__attribute__((target("avx2,fma"))) static double cal_avx2(long iters, double m, double a)
{
	CAL_VECTOR_BODY(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_add_pd)
	double o[4];
	_mm256_storeu_pd(o, s);
	return o[0] + o[1] + o[2] + o[3];
}

__attribute__((target("avx512f"))) static double cal_avx512(long iters, double m, double a)
{
	CAL_VECTOR_BODY(__m512d, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_add_pd)
	return _mm512_reduce_add_pd(s);
}
#endif

CAL_NOVEC static double cal_scalar(long iters, double m, double a)
{
#ifdef CAL_X86
	CAL_SCALAR_BODY(CAL_MULADD)
#else
	double x[CAL_CHAINS];
	for (int k = 0; k < CAL_CHAINS; k++)
		x[k] = 1.0 + k * 1e-3;
	for (long i = 0; i < iters; i++)
		for (int k = 0; k < CAL_CHAINS; k++)
			x[k] = x[k] * m + a;
	double s = 0;
	for (int k = 0; k < CAL_CHAINS; k++)
		s += x[k];
	return s;
#endif
}

int rec_calibrate_flops_widest(void)
{
#ifdef CAL_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return REC_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return REC_SIMD_AVX2;
#endif
	return REC_SIMD_SCALAR;
}

const char *rec_calibrate_flops_name(int simd)
{
	return simd == REC_SIMD_AVX512 ? "avx512" : simd == REC_SIMD_AVX2 ? "avx2" : "scalar";
}

int rec_calibrate_flops_lanes(int simd)
{
	return simd == REC_SIMD_AVX512 ? 8 : simd == REC_SIMD_AVX2 ? 4 : 1;
}

struct fl {
	int simd;
	long iters;
	double sink[64];
};

static double fl_kernel(int simd, long iters)
{
	const double m = 0.9999999, a = 1e-9;
#ifdef CAL_X86
	if (simd == REC_SIMD_AVX512)
		return cal_avx512(iters, m, a);
	if (simd == REC_SIMD_AVX2)
		return cal_avx2(iters, m, a);
	__builtin_cpu_init();
	if (__builtin_cpu_supports("fma"))
		return cal_scalar_fma(iters, m, a);
#endif
	return cal_scalar(iters, m, a);
}

static void fl_run(int i, void *arg)
{
	struct fl *f = arg;
	f->sink[i & 63] += fl_kernel(f->simd, f->iters);
}

double rec_calibrate_flops(const int *cpus, int n, int simd, double max_s)
{
	struct fl f;
	memset(&f, 0, sizeof f);
	f.simd = simd;
	/* size a repetition to about 50 ms on one core, from trials of at
	 * least 5 ms (the result goes to a volatile: the trial is not dropped) */
	volatile double sink = 0;
	double dt = 0;
	for (f.iters = 1 << 14; f.iters < (1L << 40); f.iters *= 4) {
		int64_t t0 = rec_clock_now();
		sink += fl_kernel(simd, f.iters);
		dt = (double)(rec_clock_now() - t0) * 1e-9;
		if (dt >= 0.005)
			break;
	}
	(void)sink;
	if (dt > 0)
		f.iters = (long)((double)f.iters * (0.05 / dt));
	if (f.iters < 1 << 12)
		f.iters = 1 << 12;
	rec_calib_work work = {NULL, fl_run, &f};
	double t = rec_calibrate_team_run(cpus, n, &work, 1000, max_s);
	if (!(t > 0))
		return -1;
	return 2.0 * CAL_CHAINS * rec_calibrate_flops_lanes(simd) * (double)f.iters * n / t;
}
