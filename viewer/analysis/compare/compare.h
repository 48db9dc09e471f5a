/* compare.h: two runs compared phase by phase — which phase got slower, by
 * how much, and whether that is beyond run-to-run noise (`mcview --compare`,
 * the Compare view, the CI exit code of --fail-above).
 *
 * Pure layer (compare.c): each run is a list of phases (label, class, start,
 * duration, a few figures); the phases of two runs are aligned in time order
 * (Needleman-Wunsch: a match scores by similarity, a phase left out scores
 * 0) — marked phases match when their mark texts are equal (so the k-th
 * "triad" of one run meets the k-th of the other), detected phases when
 * every figure (IPC, bandwidth, CPUs busy, instruction rate, GPU power,
 * network) is within 30 % of that figure's range over both runs or within
 * a factor of 2 of the other and, where both have code samples, their
 * hottest function is the same (on a machine without a PMU, a compute and
 * a streaming phase differ only there), the same
 * class and a similar duration breaking ties.  Several runs per side: each
 * is aligned to the side's first run, and the spread of a phase's duration
 * over a side's runs is that side's noise.
 *
 *     vw_cmp_run a = {pa, na, 0.1, 1}, b = {pb, nb, 0.1, 1};
 *     vw_compare c;
 *     if (vw_compare_runs(&a, 1, &b, 1, &c) == 0) {
 *             for (size_t k = 0; k < c.nm; k++)
 *                     printf("%s %+.1f %%\n", c.m[c.rank[k]].label, c.m[c.rank[k]].delta_pct);
 *             vw_compare_free(&c);
 *     }
 *
 * Noise: with repeated runs, a delta is beyond noise when it exceeds twice
 * the standard error of the difference of the two means (a side of one run
 * borrows the other side's spread) plus the boundary resolution (two
 * sampling intervals for detected phases, 0 for marks); with one run a
 * side, an assumed 2 % of the phase plus that resolution.
 *
 * Model layer (compare-model.c): a model's phases as a vw_cmp_run, the
 * metadata that differs between two recordings, the report (text or JSON).
 */
#ifndef VW_COMPARE_H
#define VW_COMPARE_H

#include <stddef.h>
#include <stdio.h>

struct vw_model;
struct vw_an;

enum vw_cmp_fig {
	VW_CMP_IPC,   /* instructions per cycle */
	VW_CMP_BW,    /* memory read + write, B/s */
	VW_CMP_CPUS,  /* CPUs busy */
	VW_CMP_INS,   /* instructions per second */
	VW_CMP_GPU,   /* GPU power, W */
	VW_CMP_NET,   /* network rx + tx, B/s */
	VW_CMP_NFIG
};

/* The smallest difference of figure f that is a difference at all (0.2
 * IPC, 100 MB/s, half a CPU, 10 W, 1 MB/s of network...): the network's
 * background chatter tells no phase from another. */
double vw_compare_fig_floor(int f);

/* One phase of one run. */
typedef struct vw_cmp_phase {
	char mark[48];            /* marks: the mark's text; detected: "" */
	char label[64];           /* "triad", "triad#2" (repeated text), "B1" (class B, first) */
	int cls;
	double t0, dur;           /* s from the run's start */
	double fig[VW_CMP_NFIG];  /* NaN: the recording lacks the streams */
	char code[64];            /* detected: the phase's hottest work function; "" none */
} vw_cmp_phase;

typedef struct vw_cmp_run {
	const vw_cmp_phase *v;
	size_t n;
	double interval;          /* s: sampling interval (boundary resolution) */
	int marked;               /* the phases are the run's marks */
	double total;             /* s: the run's length */
} vw_cmp_run;

typedef struct vw_cmp_match {
	int a, b;                 /* index in the first run of A, of B */
	char label[64];           /* A's label */
	double a_start;           /* s, A's first run */
	double a_len, b_start, b_len; /* s, the first runs: the time warp */
	double dur_a, dur_b;      /* s, mean over the side's runs */
	double sd_a, sd_b;        /* s, spread over the runs (0: one run) */
	int na, nb;               /* runs of each side that have the phase */
	double delta_s, delta_pct;
	double share_pct;         /* delta_s over the sum of |delta_s| of all matches */
	double noise_pct;         /* what noise explains, % of dur_a */
	int beyond;               /* |delta| > noise */
	int regressed;            /* beyond and slower */
	int rank;                 /* 1 = most time lost (slower phases first) */
	double fig_a[VW_CMP_NFIG], fig_b[VW_CMP_NFIG];
} vw_cmp_match;

typedef struct vw_compare {
	vw_cmp_match *m;          /* in A's time order */
	size_t nm;
	size_t nwork;             /* matches that are work: not the unmarked gaps
				     between marked regions (0: nothing in common) */
	size_t *rank;             /* indexes of m: slower phases first, most
				     seconds lost first; then the faster ones,
				     most seconds gained first */
	vw_cmp_phase *only_a, *only_b; /* phases of the first runs left unmatched */
	size_t nonly_a, nonly_b;
	size_t nruns_a, nruns_b;
	int marked;               /* phases from marks on both sides */
	int by_code;              /* detected, and the first runs both name their hot code */
	double total_a, total_b;  /* s, mean run length */
	/* set by the model layer (vw_compare_models) */
	char names[2][160];       /* "a.mcz", "a1.mcz,a2.mcz (2 runs)" */
	char meta[8][160];        /* "interval: 100 ms | 10 ms" (what differs) */
	size_t nmeta;
	char warn[2][160];        /* per side: "truncated: recovered ...", "" */
} vw_compare;

/* Similarity of two phases, > 0 when they may be matched (higher is more
 * alike), 0 when they may not.  scale[f]: figure f's range over both runs
 * (0: ignored).  Marked phases: same mark text, or 0. */
double vw_compare_similar(const vw_cmp_phase *x, const vw_cmp_phase *y, int marked,
			  const double *scale);
/* Detected phases: merge each phase into the one before it when every
 * figure is within 40 % of its range over the run and their hottest
 * functions are the same (the detector cuts one piece of work where noise
 * moves a stream; compared, it is one phase).
 * The merged phase has the pieces' duration-weighted figures and its
 * longest piece's class.  Returns the new count; labels are not touched. */
size_t vw_compare_coalesce(vw_cmp_phase *v, size_t n);
/* A detected phase's label from its place i and what it is: "#3 C dgemm_"
 * (the third phase, of class C, its hottest code). */
void vw_compare_label(vw_cmp_phase *p, size_t i);
/* Align y to x in time order: map[i] = index in y matched with x's phase i,
 * or -1.  Returns the number matched, or -1 out of memory. */
int vw_compare_align(const vw_cmp_run *x, const vw_cmp_run *y, int *map);
/* Compare na runs of A with nb runs of B (na, nb >= 1).  Returns 0, or -1
 * out of memory; out is zeroed first and freed with vw_compare_free. */
int vw_compare_runs(const vw_cmp_run *a, size_t na, const vw_cmp_run *b, size_t nb,
		    vw_compare *out);
void vw_compare_free(vw_compare *c);

/* The phase-wise time warp: the time of B's first run (s from its start)
 * where the work A's first run did at ta (s from its start) was done —
 * linear within each matched phase, and between the end of one match and
 * the start of the next; offset before the first and after the last. */
double vw_compare_warp(const vw_compare *c, double ta);

/* The matches slower than pct % (and beyond noise when a side has several
 * runs): their count; names them, comma separated, in buf. */
size_t vw_compare_slower(const vw_compare *c, double pct, char *buf, size_t len);

/* ---- on models (compare-model.c) --------------------------------------------------- */

/* The phases of a model whose phases are detected (an->phases), as a run;
 * *v is malloc'd. 0, or -1 out of memory. */
int vw_compare_run_of(struct vw_an *an, vw_cmp_run *run, vw_cmp_phase **v);
/* Detect the phases of every model (marks when every model has begin/end
 * marks, else detected, with the default parameters) and compare; fills
 * names, meta (the differences of host, CPU, kernel, recorder, format
 * version, interval), warn.  0, or -1 with a one-line reason in err. */
int vw_compare_models(struct vw_an **a, size_t na, struct vw_an **b, size_t nb,
		      vw_compare *out, char *err, size_t errlen);
/* How the phases were matched: "marks" (by their text), "detected; by
 * figures and hottest code" (both runs have code samples), "detected; by
 * figures". */
const char *vw_compare_how(const vw_compare *c);
/* The report: text (json = 0) or one JSON object.  0, or -1 on a write error. */
int vw_compare_print(const vw_compare *c, FILE *f, int json);

#endif
