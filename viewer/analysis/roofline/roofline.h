/* roofline.h: each phase placed under the machine's roofs — arithmetic
 * intensity (flop/byte), GFLOP/s, the attainable ceiling at that intensity
 * and the bound (memory or compute) — for the roofline view, the phases
 * table and `mcview --report` (../shared/papers/003 and 004).
 *
 *     vw_roof_ceil c;
 *     vw_roof_ceilings(m, &c);                 // from the recording's metadata
 *     if (!c.known) puts(c.why);               // "no ceilings: run mcrec --calibrate"
 *     const vw_phase *p = vw_phases_at(an->phases, i);
 *     vw_roof_point pt;
 *     vw_roof_place(&c, &p->st, &pt);          // pt.intensity, pt.gflops, pt.bound ...
 *
 * Work counts, best source first (roofline-work.c): floating-point
 * operations from hardware FP events (Intel FP_ARITH_INST_RETIRED.*, AMD
 * RETIRED_SSE_AVX_FLOPS, PAPI_DP_OPS; recorded by perf/PAPI or found in a
 * PCP archive's perfevent metrics), else the application's app.flops
 * (mcmark_count; an app.* counter that stayed 0 all run counts as absent); bytes from the memory counters (mem.read_bytes +
 * mem.write_bytes, or perfevent CAS counts in a PCP archive), else
 * app.bytes.  Each phase's figures say which (provenance).
 *
 * Ceilings (roofline-ceil.c) are the metadata keys roof.* that mcrec writes
 * from its calibration (mcrec --calibrate, format/SPEC.md section 5.1):
 * measured figures only; a recording without them has none.
 */
#ifndef VW_ROOFLINE_H
#define VW_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

struct vw_model;
struct vw_an;
struct vw_phase_stats;

/* ---- work streams (roofline-work.c) ------------------------------------------ */

enum vw_roof_kind { VW_ROOF_NONE = 0, VW_ROOF_FLOPS = 1, VW_ROOF_BYTES = 2 };
enum vw_roof_rank { VW_ROOF_APP = 1, VW_ROOF_HW = 2 }; /* higher is better */

/* Is a stream (its name, native event, unit) a work count?  Returns a
 * vw_roof_kind, with the operations or bytes per counted unit in *weight
 * (8 for a 512-bit packed-double FP event), the rank of its source and its
 * provenance ("hardware FP events", "app.flops (mcmark_count)"). */
int vw_roof_work_match(const char *name, const char *native, double *weight, int *rank,
		       const char **prov);

/* Rates over [t0, t1) of the model (flop/s, B/s; NaN where the recording
 * has no such stream), each from its best source, and that source's
 * provenance (NULL when none).  For phases of 5 sampling intervals or more
 * the samples whose intervals reach within one interval of t0 or t1 are
 * left out: the first samples hold the work the phase before reported when
 * its last piece ended (an application reports work once done), and a
 * boundary a sample or two off the truth (detection, or marks snapped to
 * the start of the run) mixes the neighbour's work into both ends. */
void vw_roof_work_rates(struct vw_an *an, int64_t t0, int64_t t1, double *flops_ps,
			double *bytes_ps, const char **flops_prov, const char **bytes_prov);

/* What the recording lacks for a roofline ("" when nothing): "no FP
 * operation counts (FP events or app.flops)", "no memory byte counts
 * (memory counters or app.bytes)", or both separated by "; ". */
void vw_roof_work_missing(struct vw_an *an, char *buf, size_t len);

/* ---- ceilings (roofline-ceil.c) -------------------------------------------- */

typedef struct vw_roof_ceil {
	int known;              /* bw and flops both measured */
	double bw;              /* B/s: streaming triad, all cores, node total */
	double bw_read;         /* B/s: streaming read, all cores (NaN unknown) */
	double flops;           /* flop/s: FMA at the widest SIMD, all cores */
	double flops_scalar;    /* flop/s: scalar FMA, all cores (NaN unknown) */
	double flops_1core;     /* flop/s: widest SIMD, one core (NaN unknown) */
	char simd[16];          /* "avx2", "avx512", "sse2", "scalar" */
	char method[240];       /* how they were measured (roof.method) */
	char when[32];          /* roof.calibrated */
	char why[96];           /* known == 0: "no ceilings: run mcrec --calibrate" */
} vw_roof_ceil;

/* The ceilings of the model's first file that has them. */
void vw_roof_ceilings(struct vw_model *m, vw_roof_ceil *c);

/* ---- a phase under the roofs (roofline.c) -------------------------------------- */

enum vw_roof_bound { VW_BOUND_UNKNOWN = 0, VW_BOUND_MEMORY = 1, VW_BOUND_COMPUTE = 2 };

typedef struct vw_roof_point {
	double intensity;       /* flop/byte; NaN unknown */
	double gflops;          /* GFLOP/s achieved; NaN unknown */
	double attainable;      /* GFLOP/s the roofs allow at this intensity; NaN unknown */
	double pct;             /* gflops / attainable x 100; NaN unknown */
	int bound;              /* vw_roof_bound */
	const char *flops_prov, *bytes_prov; /* NULL when none */
	char why[96];           /* why a figure is unknown ("" when all are known) */
} vw_roof_point;

/* Place a phase (its stats: flops_ps, bytes_ps and provenance) under c. */
void vw_roof_place(const vw_roof_ceil *c, const struct vw_phase_stats *s, vw_roof_point *pt);
/* "memory", "compute", or NULL for unknown. */
const char *vw_roof_bound_name(int bound);
/* The ridge point: intensity where the roofs meet (flop/byte), NaN unknown. */
double vw_roof_ridge(const vw_roof_ceil *c);

#endif
