/* sample-kernels.h: the sample workloads' kernels, after the listings of
 * ../shared/papers/000_ce5670fb1eee487d.txt (capped GEMV, batched GEMM, the
 * 3D-FFT resort loop nests S1CF/S2CF, plus STREAM triad and a pointer chase),
 * each sized by its caller and timed by the phase driver.
 *
 *     kernels_opts o = KERNELS_OPTS_INIT;                 // sizes, threads
 *     kernels_state *k = kernels_new(KERNELS_TRIAD, &o);     // allocate + first touch
 *     while (kernels_elapsed(t0) < 1.5) kernels_step(k);  // one short repetition
 *     kernels_free(k);
 *
 * kernels_step() does one repetition of a few milliseconds to a few tens of
 * milliseconds, so that a driver can stop a phase on time.
 */
#ifndef SAMPLES_KERNELS_H
#define SAMPLES_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef enum kernels_id {
	KERNELS_GEMV,    /* Listing 2: batched, capped GEMV (memory streaming, read-heavy) */
	KERNELS_GEMM,    /* Listings 3-4: batched reference GEMM, cache resident (compute) */
	KERNELS_S1CF,    /* Listings 5 and 7: resort into tmp, then strided copy out */
	KERNELS_S1CF_1,  /* Listing 8: combined single loop nest (strided writes) */
	KERNELS_S2CF,    /* Listing 9: contiguous copy */
	KERNELS_TRIAD,   /* STREAM triad a = b + s*c (memory bandwidth) */
	KERNELS_CHASE,   /* dependent loads through a random cycle (latency bound) */
	KERNELS_IDLE,    /* sleeps: the machine idle */
	KERNELS_COUNT
} kernels_id;

typedef struct kernels_opts {
	int threads;       /* independent copies (the "batched" of the listings) */
	size_t mem_mib;    /* working set per thread for the streaming kernels */
	int gemm_n;        /* GEMM matrix order (cache resident by default) */
	int fft_n;         /* S1CF/S2CF: N (planes = rows = cols = N) */
} kernels_opts;

#define KERNELS_OPTS_INIT { 1, 64, 96, 96 }

typedef struct kernels_state kernels_state;

/* Name ("triad"), and a one-line description, of a kernel. */
const char *kernels_name(kernels_id id);
const char *kernels_describe(kernels_id id);
/* Kernel by name, or -1. */
int kernels_lookup(const char *name);

kernels_state *kernels_new(kernels_id id, const kernels_opts *o);
/* One repetition on every thread.  Returns a checksum (keeps the work live). */
double kernels_step(kernels_state *k);
/* Bytes moved and floating-point operations of one repetition (all threads),
 * as the paper counts them: what a reader of the recording should expect. */
void kernels_expect(const kernels_state *k, double *bytes, double *flops);
void kernels_free(kernels_state *k);

/* Seconds on CLOCK_MONOTONIC. */
double kernels_now(void);

/* The command line shared by every sample program: runs the phases named
 * in `phases` (comma list of kernel names, each optionally ":SECONDS"), or
 * those of --phases, each phase a marked region (mcmark.h) lasting its
 * duration x --scale.  prog and what are for --help. */
int kernels_main(int argc, char **argv, const char *prog, const char *what, const char *phases);

#endif
