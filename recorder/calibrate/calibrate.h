/* calibrate.h: the door of recorder/calibrate/, mcrec --calibrate (the
 * roofline's ceilings measured, printed, cached) and the per-host ceiling
 * cache copied into every recording's metadata.
 *
 *   calibrate.c        mcrec --calibrate: measure, print, cache
 *   calibrate-team.c   a team of pinned threads in lock step
 *   calibrate-bw.c     streaming bandwidth (triad, read)
 *   calibrate-flops.c  peak FMA FLOP/s at each SIMD width
 *   ceilcache.c        the ceilings' per-host cache file and their metadata keys
 *
 *     rec_ceilings c;
 *     if (rec_ceilcache_path(path, sizeof path, 0, err, sizeof err) == 0 &&
 *         rec_ceilcache_read(path, &c, err, sizeof err) == 0)
 *             rec_ceilcache_meta(w, &c);
 */
#ifndef REC_CALIBRATE_H
#define REC_CALIBRATE_H

#include "../rec.h"

/* Work for a team of pinned threads: setup(i) once per thread (may be
 * NULL; allocations there are first-touched on the thread's node), then
 * run(i) every repetition. */
typedef struct rec_calib_work {
	void (*setup)(int i, void *arg);
	void (*run)(int i, void *arg);
	void *arg;
} rec_calib_work;
/* n threads, thread i pinned to cpus[i] (-1: not pinned); repetitions in
 * lock step until reps or max_s seconds; the shortest repetition (s), or
 * -1 when threads could not start. */
double rec_calibrate_team_run(const int *cpus, int n, const rec_calib_work *w, int reps,
			      double max_s);

typedef struct rec_calib_bw {
	double triad_Bps, read_Bps;
} rec_calib_bw;
/* Streaming bandwidth with n threads on cpus, each on its own 3 arrays of
 * bytes_per_array; 0, or -1 (out of memory). */
int rec_calibrate_bw(const int *cpus, int n, size_t bytes_per_array, double max_s, rec_calib_bw *out);

enum { REC_SIMD_SCALAR = 0, REC_SIMD_AVX2 = 1, REC_SIMD_AVX512 = 2 };
/* The widest SIMD this CPU runs (checked at run time). */
int rec_calibrate_flops_widest(void);
const char *rec_calibrate_flops_name(int simd); /* "avx512", "avx2", "scalar" */
int rec_calibrate_flops_lanes(int simd);         /* doubles per vector */
/* Peak double-precision FLOP/s of FMA at that width on n threads; -1 on failure. */
double rec_calibrate_flops(const int *cpus, int n, int simd, double max_s);

/* The measured ceilings (the metadata keys roof.*, format/SPEC.md 5.1). */
typedef struct rec_ceilings {
	double bw_triad, bw_read;           /* B/s, all CPUs */
	double flops, flops_1core;          /* FLOP/s, widest SIMD FMA */
	double flops_scalar, flops_scalar_1core;
	char simd[16];
	char numa[400];                     /* "numa0 triad 1.2e10 read 1.3e10; numa1 ..." */
	char method[480];
	char when[32];                      /* ISO 8601, UTC */
	char key[200];                      /* the host key of the cache */
} rec_ceilings;

/* "AMD_EPYC_7763_64_Core_Processor-128cpu-503GiB": CPU model, CPUs, memory. */
/* The CPU's model as /proc/cpuinfo names it ("" unknown). */
void rec_cpu_model(char *model, size_t len);
void rec_ceilcache_key(char *key, size_t len);
/* The cache file of this host ($XDG_CACHE_HOME/mcz/ceilings-KEY); create =
 * make its folder.  0, or -1 with err. */
int rec_ceilcache_path(char *path, size_t len, int create, char *err, size_t errlen);
int rec_ceilcache_write(const char *path, const rec_ceilings *c, char *err, size_t errlen);
/* 0 read, 1 no cache file, -1 unreadable or damaged (err: "PATH: line 3: ..."). */
int rec_ceilcache_read(const char *path, rec_ceilings *c, char *err, size_t errlen);
/* Write the roof.* keys. */
void rec_ceilcache_meta(mcz_writer *w, const rec_ceilings *c);

/* mcrec --calibrate: measure, print (unless quiet), cache.  Exit status. */
int rec_calibrate_run(FILE *out, int quiet);

#endif
