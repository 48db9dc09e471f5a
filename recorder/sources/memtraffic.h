/* memtraffic.h: the one place that decides where mem.read_bytes and
 * mem.write_bytes come from (DESIGN.md, "Memory read/write bytes is the
 * headline stream"): uncore/nest counters through perf (or PAPI), else the
 * PCP pmcd's perfevent.hwcounters (the unprivileged path), else an estimate
 * from per-core LLC misses.  The source that owns the chosen path emits the
 * two streams; the others do not.
 *
 *     const rec_mem_choice *m = rec_memtraffic_choose(ctx);
 *     if (m->path == REC_MEM_PCP) ... add m->pcp[] metrics as mem.* streams
 *     d.note = m->note; if (m->path == REC_MEM_LLC_ESTIMATE) d.flags |= MCZ_SF_ESTIMATED;
 *
 * MCREC_MEM_PATH=perf|pcp|llc|none forces a path (to compare them, or
 * on a platform where the automatic choice is wrong); MCREC_PCP_MEM_METRICS
 * = "read:METRIC[*BYTES],...;write:METRIC[*BYTES],..." names the PCP metrics
 * where the built-in patterns do not know the platform's names.
 */
#ifndef REC_MEMTRAFFIC_H
#define REC_MEMTRAFFIC_H

#include "../source.h"

typedef enum rec_mem_path {
	REC_MEM_NONE = 0,
	REC_MEM_PERF_UNCORE,  /* perf source: uncore_imc*, amd_umc* (PAPI's uncore component reads the same PMUs) */
	REC_MEM_PCP,          /* pcp source: perfevent.hwcounters.* of a pmcd */
	REC_MEM_LLC_ESTIMATE, /* perf source: LLC misses x 64 B (MCZ_SF_ESTIMATED) */
} rec_mem_path;

#define REC_MEM_MAX_METRICS 32

typedef struct rec_mem_metric {
	char name[200];   /* full PCP metric name */
	int write;        /* 0 read, 1 write */
	double bytes;     /* bytes per count (64 for CAS / 64 B-line events) */
} rec_mem_metric;

typedef struct rec_mem_choice {
	rec_mem_path path;
	char pmu[64];          /* perf path: the uncore PMU found */
	rec_mem_metric pcp[REC_MEM_MAX_METRICS]; /* PCP path: metrics to sum */
	int npcp;
	char note[200];        /* for the stream descriptors' note */
	char why[1024];        /* for --list: the choice and why earlier paths were not taken */
} rec_mem_choice;

/* Decide once (cached; the first caller's ctx counts).  Never NULL. */
const rec_mem_choice *rec_memtraffic_choose(const rec_ctx *c);
/* Forget the cached choice (tests). */
void rec_memtraffic_reset(void);
/* Short name of a path: "perf-uncore", "pcp", "llc-estimate", "none". */
const char *rec_memtraffic_path_name(rec_mem_path p);
/* Parse MCREC_PCP_MEM_METRICS ("read:METRIC[*BYTES],...;write:...") into
 * out[0..max); returns how many (memtraffic-spec.c).  Items that are not
 * "read:"/"write:" lists, empty names and byte factors that are not finite
 * and positive are skipped. */
int rec_memtraffic_spec_parse(const char *spec, rec_mem_metric *out, int max);
/* Does a PCP metric name look like a memory read (1) / write (2) counter of
 * the perfevent PMDA?  *bytes gets the bytes per count.  0 otherwise. */
int rec_memtraffic_pcp_match(const char *metric, double *bytes);

#endif
