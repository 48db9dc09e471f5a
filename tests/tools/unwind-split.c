/* unwind-split.c: the workload of tests/integration/code-unwind.sh: leaf()
 * does the same work at every call, and is called through mid() three
 * times as often from caller_a() as from caller_b(), so that 3/4 of its
 * samples have caller_a above them and 1/4 caller_b, and only a whole
 * chain tells them apart (leaf's caller is always mid).  The test builds it as distributions build
 * (-O2 -g -fomit-frame-pointer), leaf() in a shared library of its own
 * (-DSPLIT_LEAF -shared), the rest against it (-DSPLIT_MAIN): only the
 * call frame information says who called leaf().  Built whole (the
 * Makefile's tools), it is one program.
 *
 *     unwind-split SECONDS      (prints the calls made, a: b:)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* no inlining, cloning or tail calls: each function keeps its frame */
#define SPLIT_FN __attribute__((noinline, noipa))

#ifndef SPLIT_MAIN
/* The work of one call: ~40 us of dependent multiplies and adds. */
SPLIT_FN double split_leaf(double x);
SPLIT_FN double split_leaf(double x)
{
	for (int i = 0; i < 40000; i++)
		x = x * 0.999999 + 1e-6;
	return x;
}
#else
double split_leaf(double x);
#endif

#ifndef SPLIT_LEAF
static volatile double split_sink;

SPLIT_FN static double split_mid(double x)
{
	double s = split_leaf(x);
	split_sink += 1;
	return s;
}

SPLIT_FN static void split_caller_a(double x)
{
	double s = 0;
	for (int k = 0; k < 3; k++)
		s += split_mid(x + k);
	split_sink += s;
}

SPLIT_FN static void split_caller_b(double x)
{
	split_sink += split_mid(x);
}

static double split_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0 = split_now();
	long rounds = 0;
	while (split_now() - t0 < secs) {
		split_caller_a(1.0);
		split_caller_b(2.0);
		rounds++;
	}
	printf("a: %ld b: %ld\n", 3 * rounds, rounds);
	return 0;
}
#endif
