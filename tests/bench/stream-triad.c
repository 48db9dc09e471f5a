/* stream-triad.c: an independent STREAM triad (McCalpin's kernel and
 * counting, written apart from mcrec's calibration) for bench-roofline.sh:
 * T threads (default: every online CPU), unpinned, each owning a slice of
 * three shared arrays of N doubles (default 3 x 80 Mi elements... scaled to
 * fit: 2 GiB at most), initialised in parallel; NTIMES = 10 repetitions,
 * the first left out, the best rate reported as STREAM does (24 bytes per
 * element).
 *
 *   stream-triad [THREADS [ELEMENTS]]   prints "triad_Bps VALUE"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NTIMES 10

static double *a, *b, *c;
static long n;
static int nthreads;
static pthread_barrier_t bar;
static double best = 1e30;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	long id = (long)arg, lo = n * id / nthreads, hi = n * (id + 1) / nthreads;
	for (long j = lo; j < hi; j++)
		a[j] = 1.0, b[j] = 2.0, c[j] = 0.0;
	const double scalar = 3.0;
	for (int k = 0; k < NTIMES; k++) {
		pthread_barrier_wait(&bar);
		double t = now();
		for (long j = lo; j < hi; j++)
			a[j] = b[j] + scalar * c[j];
		pthread_barrier_wait(&bar);
		t = now() - t;
		if (id == 0 && k > 0 && t < best)
			best = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	n = argc > 2 ? atol(argv[2]) : 80L << 20;
	if (nthreads < 1 || nthreads > 1024 || n < 1024) {
		fprintf(stderr, "usage: stream-triad [THREADS [ELEMENTS]]\n");
		return 2;
	}
	a = malloc(n * sizeof *a), b = malloc(n * sizeof *b), c = malloc(n * sizeof *c);
	pthread_t *t = malloc(nthreads * sizeof *t);
	if (!a || !b || !c || !t || pthread_barrier_init(&bar, NULL, (unsigned)nthreads))
		return 1;
	for (long i = 1; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	worker((void *)0);
	for (long i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("triad_Bps %.6g\n", 24.0 * n / best);
	double check = a[n / 2] + a[n - 1];
	free(a), free(b), free(c), free(t);
	return check == 0 ? 3 : 0;
}
