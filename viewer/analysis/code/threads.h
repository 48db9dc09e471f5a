/* threads.h: the threads of one process over a span — each thread's
 * useful, sync and MPI time from its own code samples, and the OpenMP
 * figures POP defines from them (load balance = mean / max useful over the
 * threads; communication efficiency = max useful / the span; parallel
 * efficiency = their product = mean useful / the span).  Needs a profile
 * split by thread (recorded with format 1.6 on); threads.c.
 *
 *     vw_threads th;
 *     if (vw_threads_of(an, file, t0, t1, &th) == 0 && th.n > 1)
 *         printf("%zu threads, load balance %.2f\n", th.n, th.load_balance);
 */
#ifndef VW_THREADS_H
#define VW_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../an.h"

/* The threads a figure is made of: at most this many per process. */
#define VW_THREADS_MAX 256

typedef struct vw_threads {
	size_t n;              /* threads that ran in the span (see threads.c) */
	double span_s;         /* the span's length */
	double useful_s[VW_THREADS_MAX]; /* per thread, in the order first sampled */
	double sync_s[VW_THREADS_MAX];
	double mpi_s[VW_THREADS_MAX];
	double off_s[VW_THREADS_MAX]; /* the span less its samples' CPU time: asleep
					 (a passive barrier), or its CPU taken */
	double useful_sum_s, sync_sum_s, mpi_sum_s, off_sum_s;
	size_t busiest, idlest; /* the threads of most and least useful time */
	double load_balance;   /* mean / max useful; NaN with fewer than 2 threads */
	double comm_eff;       /* max useful / span (the runtime's overhead and waits) */
	double par_eff;        /* load_balance * comm_eff */
	double sync_share;     /* sync samples / all samples of the span's threads */
} vw_threads;

/* The threads of file over [t0, t1).  0, or -1 when its profile is not
 * split by thread (or it has none). */
int vw_threads_of(vw_an *an, size_t file, int64_t t0, int64_t t1, vw_threads *out);
/* The same figures for the whole run, exact, from the OpenMP runtime's
 * own callbacks (mcrec's OMPT tool, recorder/connect/ompt-connect.c: the
 * metadata ompt.*): each thread's useful time (in parallel regions less its
 * waits; the initial thread's time outside them too) and its waits at
 * barriers, by the wall clock — a passive wait, asleep, is sync here and
 * off CPU in the samples.  mpi_s and off_s are 0.  0, or -1 when the file
 * has no such figures (GCC's libgomp has no OMPT; mcrec --no-ompt). */
int vw_threads_ompt(vw_model *m, size_t file, vw_threads *out);

/* One line for people: "2 threads: thread 0 does 3.0x the work of thread
 * 1; 33 % waiting at barriers (OpenMP efficiency 0.66)", "" when the
 * threads are balanced and do not wait.  Returns its length. */
size_t vw_threads_note(const vw_threads *th, char *buf, size_t len);

#endif
