/* kernels.h: the sample workloads' kernels, after the listings of
 * ../shared/papers/000_ce5670fb1eee487d.txt (capped GEMV, batched GEMM, the
 * 3D-FFT resort loop nests S1CF/S2CF, plus STREAM triad and a pointer chase),
 * each sized by its caller and timed by the phase driver.
 *
 *     kern_opts o = KERN_OPTS_INIT;                 // sizes, threads
 *     kern_state *k = kern_new(KERN_TRIAD, &o);     // allocate + first touch
 *     while (kern_elapsed(t0) < 1.5) kern_step(k);  // one short repetition
 *     kern_free(k);
 *
 * kern_step() does one repetition of a few milliseconds to a few tens of
 * milliseconds, so that a driver can stop a phase on time.
 */
#ifndef SAMPLES_KERNELS_H
#define SAMPLES_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef enum kern_id {
	KERN_GEMV,    /* Listing 2: batched, capped GEMV (memory streaming, read-heavy) */
	KERN_GEMM,    /* Listings 3-4: batched reference GEMM, cache resident (compute) */
	KERN_S1CF,    /* Listings 5 and 7: resort into tmp, then strided copy out */
	KERN_S1CF_1,  /* Listing 8: combined single loop nest (strided writes) */
	KERN_S2CF,    /* Listing 9: contiguous copy */
	KERN_TRIAD,   /* STREAM triad a = b + s*c (memory bandwidth) */
	KERN_CHASE,   /* dependent loads through a random cycle (latency bound) */
	KERN_IDLE,    /* sleeps: the machine idle */
	KERN_COUNT
} kern_id;

typedef struct kern_opts {
	int threads;       /* independent copies (the "batched" of the listings) */
	size_t mem_mib;    /* working set per thread for the streaming kernels */
	int gemm_n;        /* GEMM matrix order (cache resident by default) */
	int fft_n;         /* S1CF/S2CF: N (planes = rows = cols = N) */
} kern_opts;

#define KERN_OPTS_INIT { 1, 64, 96, 96 }

typedef struct kern_state kern_state;

/* Name ("triad"), and a one-line description, of a kernel. */
const char *kern_name(kern_id id);
const char *kern_describe(kern_id id);
/* Kernel by name, or -1. */
int kern_lookup(const char *name);

kern_state *kern_new(kern_id id, const kern_opts *o);
/* One repetition on every thread.  Returns a checksum (keeps the work live). */
double kern_step(kern_state *k);
/* Bytes moved and floating-point operations of one repetition (all threads),
 * as the paper counts them: what a reader of the recording should expect. */
void kern_expect(const kern_state *k, double *bytes, double *flops);
void kern_free(kern_state *k);

/* Seconds on CLOCK_MONOTONIC. */
double kern_now(void);

/* The command line shared by every sample program: runs the phases named
 * in `phases` (comma list of kernel names, each optionally ":SECONDS"), or
 * those of --phases, each phase a marked region (mcmark.h) lasting its
 * duration x --scale.  prog and what are for --help. */
int kern_main(int argc, char **argv, const char *prog, const char *what, const char *phases);

#endif
