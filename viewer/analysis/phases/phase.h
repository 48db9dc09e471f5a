/* phase.h: phase detection — the run cut into phases, grouped into classes.
 *
 * Two layers.  The detector (phase.c, phase-class.c) is pure: it works on
 * d streams x n samples given as plain arrays, or as a coarse matrix of bucket
 * means plus a callback that fetches full-resolution samples around a
 * boundary.  It knows nothing of files, terminals or the model.  The model
 * layer (phase-model.c, phase-desc.c, phase-cache.c) picks the streams that
 * matter from a vw_model, runs the detector on summaries, computes each
 * phase's statistics and description, and caches the result in the file.
 *
 * Detector on arrays:
 *
 *     vw_phase_prep *pp;
 *     vw_phase_params p = VW_PHASE_PARAMS_INIT;
 *     vw_phase_seg *seg; size_t nseg;
 *     if (vw_phase_prep_arrays(&pp, d, n, x, 0) == 0 &&
 *         vw_phase_run(pp, &p, &seg, &nseg) == 0) {
 *             for (size_t k = 0; k < nseg; k++)
 *                     printf("%c [%ld, %ld)\n", 'A' + seg[k].cls, seg[k].start, seg[k].end);
 *             free(seg);
 *     }
 *     p.penalty = 2;                   // a parameter changed: cheap re-run
 *     vw_phase_run(pp, &p, &seg, &nseg);
 *     vw_phase_prep_free(pp);
 *
 * Model layer:
 *
 *     vw_phase_params p = VW_PHASE_PARAMS_INIT;
 *     vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err); // sets an->phases
 *     for (size_t i = 0; i < vw_phases_count(an->phases); i++)
 *             puts(vw_phases_at(an->phases, i)->desc);
 *
 * Method (why it is fast when phases are few and long): the streams are
 * reduced to at most `coarse` buckets (8192 by default) of bucket means,
 * outliers clipped, isolated spikes removed by a running median of 3, each
 * stream scaled to unit noise (noise = MAD of first differences, floored
 * at 1/25 of the stream's range so that no near-constant stream dominates).
 * Seeded binary segmentation (Kovacs, Li, Buehlmann, Munk 2020) finds the
 * candidate change points on this coarse level in O(m log m) per stream,
 * whatever the number of phases; a greedy selection keeps those whose
 * multivariate CUSUM gain passes a chi-square penalty computed from the
 * number of streams and buckets; weak ones are pruned against their final
 * neighbours; each survivor is then placed at full resolution within +-2
 * buckets.  Segments are grouped into classes by their levels relative to
 * each stream's range.
 */
#ifndef VW_PHASE_H
#define VW_PHASE_H

#include <stddef.h>
#include <stdint.h>

struct vw_model;
struct vw_an;

struct vw_canvas;

/* ---- the detector ---------------------------------------------------------- */

typedef struct vw_phase_params {
	int64_t min_len;   /* minimum phase length in position units (samples, ns); 0 = 10 samples */
	double penalty;    /* multiplier of the automatic penalty (1 = default; more = fewer phases) */
	double class_tol;  /* classes: largest level difference, fraction of a stream's range */
	size_t max_phases; /* keep at most this many phases (strongest boundaries); 0 = no cap */
	double min_effect; /* a boundary moves some stream by >= this fraction of its range */
	char streams[96];  /* model layer: rows whose name contains one of these comma-separated
			      words ("" = every row but marks and byte-sized gauges) */
	int level;         /* model layer: 0 a cycle of short alternating steps is one
			      phase (vw_phase_cycles), 1 every step a phase */
} vw_phase_params;

#define VW_PHASE_PARAMS_INIT { 0, 1.0, 0.2, 0, 0.1, "", 0 }

/* One detected segment [start, end) in position units. */
typedef struct vw_phase_seg {
	int64_t start, end;
	int cls;           /* class: 0 = A, 1 = B, ... in order of first appearance */
	double gain;       /* strength of the boundary at start in penalty units (0: first) */
} vw_phase_seg;

/* Full-resolution samples for refining a boundary: every sample whose
 * position lies in [lo, hi), all d streams.  Sets *pos (n positions,
 * increasing) and *val (val[j * n + k], NaN = missing), both malloc'd (the
 * detector frees them); returns n >= 0, or < 0 on error. */
typedef struct vw_phase_fine {
	long (*fetch)(void *ctx, int64_t lo, int64_t hi, int64_t **pos, double **val);
	void *ctx;
} vw_phase_fine;

typedef struct vw_phase_prep vw_phase_prep;

/* A detector over plain arrays x[j][i] (j < d streams, i < n samples, NaN
 * = missing); positions are sample indexes.  x is not copied: it must live
 * as long as *pp.  coarse = number of buckets of the coarse level (0 = 8192).
 * Returns 0, or -1 when out of memory. */
int vw_phase_prep_arrays(vw_phase_prep **pp, size_t d, size_t n, const double *const *x,
			 size_t coarse);

/* A detector over a coarse matrix already reduced by the caller: v[j * m +
 * i] = mean of stream j over bucket i (NaN = no data), bucket i covering
 * positions [edge[i], edge[i + 1]); one sample spans `sample` position
 * units (the sampling interval in ns).  v and edge are copied.  fine may be
 * NULL (boundaries then stay on bucket edges). */
int vw_phase_prep_coarse(vw_phase_prep **pp, size_t d, size_t m, const double *v,
			 const int64_t *edge, int64_t sample, const vw_phase_fine *fine);

/* Detect.  *segs (malloc'd, caller frees) covers the whole position range in
 * order; *nsegs is 0 only when there is no data.  A second call with other
 * parameters reuses the coarse level.  Returns 0, or -1 out of memory. */
int vw_phase_run(vw_phase_prep *pp, const vw_phase_params *p, vw_phase_seg **segs,
		 size_t *nsegs);

void vw_phase_prep_free(vw_phase_prep *pp);
/* Stream j is the rate of a code region (threads running it): classes
 * then compare busy segments by where the code ran (vw_phase_class_assign). */
int vw_phase_prep_code(vw_phase_prep *pp, size_t j);

/* Number of streams the detector used (not constant, not empty). */
size_t vw_phase_prep_used(const vw_phase_prep *pp);

/* Classes (phase-class.c).  mean[s * d + j] is segment s's level of stream
 * j in noise units, len[s] its length in buckets, range[j] stream j's range
 * in the same units (0: stream ignored).  Two segments share a class when
 * every stream's level differs by at most tol x range beyond what noise
 * explains.  Writes cls[s] (0, 1, ... in order of first appearance) and
 * returns the number of classes, or -1 out of memory.
 * With code (per stream 1: a code region's rate), busy (per segment 1:
 * some code ran) and raw (the segments' levels in the streams' own units,
 * threads for code), two busy segments compare on the code streams alone,
 * as distributions (total variation <= tol): the same code is the same
 * phase, whatever else wavered. */
int vw_phase_class_assign(size_t nseg, size_t d, const double *mean, const double *len,
			  const double *range, double tol, int *cls);
int vw_phase_class_assign_code(size_t nseg, size_t d, const double *mean, const double *len,
			       const double *range, double tol, const uint8_t *code,
			       const uint8_t *busy, const double *raw, int *cls);

/* The default level (phase-cycle.c): each maximal run of 5 or more
 * segments over 2 or 3 classes, one recurring 3 times or more (or 6
 * segments or more, each class twice or more), none longer than a quarter
 * of the run nor a twentieth of the whole span, merged into one segment of
 * a new class (the same for runs of the same classes); then two segments
 * of one class with others between them that last together no more than
 * half the shorter of the two (each no more than a twentieth of the whole
 * span) merged into one of that class.  Classes renumbered in order of
 * first appearance.  In place; returns the new count. */
size_t vw_phase_cycles(vw_phase_seg *s, size_t n);

/* Letter(s) of a class: 0 -> "A", 25 -> "Z", 26 -> "AA". buf >= 4 bytes. */
const char *vw_phase_class_name(int cls, char *buf, size_t len);

/* ---- phases of a model (phase-model.c) ---------------------------------------- */

enum vw_phases_source {
	VW_PHASES_AUTO = 0,  /* detected from the streams */
	VW_PHASES_MARKS = 1, /* the recording's marks: begin/end regions, or point to point */
};

/* Figures of one phase, display units; NaN where the recording lacks the streams. */
typedef struct vw_phase_stats {
	double read_bps, write_bps;     /* memory traffic, B/s (mem.read_bytes, mem.write_bytes) */
	double read_bytes, write_bytes; /* over the phase */
	double rw_ratio;                /* reads per write */
	double gpu_w;                   /* GPU power, W, all GPUs (gpu.power) */
	double net_rx_bps, net_tx_bps;  /* B/s, all interfaces (net.rx_bytes, net.tx_bytes) */
	double ipc;                     /* core.instructions / core.cycles */
	double ins_rate;                /* instructions per second, all CPUs */
	double cpus;                    /* CPUs busy: core.task_clock, else os.cpu.* / 100 */
	double flops_ps, bytes_ps;      /* work rates for the roofline: flop/s, B/s (roofline.h) */
	const char *flops_prov, *bytes_prov; /* where they come from; NULL: none */
} vw_phase_stats;

typedef struct vw_phase {
	int64_t t0, t1;     /* [t0, t1), ns on the model's time axis */
	int cls;            /* class: 0 = A, ... */
	double gain;        /* strength of the boundary at t0 (penalty units); 0 first or marks */
	char label[48];     /* marks: the mark's text; auto: "" */
	int64_t mark_dt;    /* auto: from t0 to the first named mark inside the phase (ns), INT64_MAX if none */
	vw_phase_stats st;
	char desc[112];     /* "memory-bound: 38 GB/s read, 2.1 reads per write" */
} vw_phase;

struct vw_phases {
	vw_phase *v;
	size_t n;
	int nclasses;
	int source;             /* vw_phases_source */
	vw_phase_params params; /* what they were detected with */
	int from_cache;         /* read from the file's "phases" block */
	size_t nused;           /* streams (rows) the detector used */
	char used[512];         /* their names, comma separated (report, help) */
	vw_phase_prep *prep;    /* kept for cheap re-detection (NULL for marks / cache) */
	void *fine;             /* refinement context (phase-model.c) */
};

/* 1 if every file of m was converted from a PCP archive (phase-pick.c). */
/* 1 for a PCP name of what the collector says of itself or of hardware
 * that does not change (pmcd.*, hinv.*, pmda.*...): never what a phase did. */
int vw_phase_pick_metadata(const char *name);
/* 1 for a PCP name of the host's utilisation, memory, disk or network. */
int vw_phase_pick_host(const char *name);
int vw_phase_pick_is_pcp(const struct vw_model *m);
/* How the detector chose its streams, for the report's header: "PCP: the
 * host's utilisation, memory, disk and network streams that change", or
 * NULL (the default choice, or --phase-streams). */
const char *vw_phase_pick_basis(const struct vw_model *m, const struct vw_phases *ph);

/* Detect (or take from marks) the phases of an's model m; replaces
 * an->phases, sets m->phase_sel to -1.  Uses the file's cache when the parameters match and
 * writes it after a detection (single writable file; failure to write is
 * not an error).  Returns 0, or -1 with a one-line reason in err. */
int vw_phases_detect(struct vw_an *an, const vw_phase_params *p, int source, char *err,
		     size_t errlen);
void vw_phases_free(struct vw_phases *ph);
/* Take the phases detected on `from`, the analyses of a clone of an's
 * model (vw_model_clone: the same files, streams and groups), as an's: 0,
 * or -1 (nothing taken) when from has none or its rows are not an's model's
 * (ranks folded in one, not the other). */
int vw_phases_adopt(struct vw_an *an, struct vw_an *from);
/* The recording grew (a file being written): detect again, keeping every
 * phase that had ended as it was, so that old boundaries never move; only
 * the last, open phase may be cut.  0, or -1 with a reason in err. */
int vw_phases_extend(struct vw_an *an, char *err, size_t errlen);

size_t vw_phases_count(const struct vw_phases *ph);           /* 0 for NULL */
const vw_phase *vw_phases_at(const struct vw_phases *ph, size_t i);
/* Index of the phase containing t, or -1. */
int vw_phases_find(const struct vw_phases *ph, int64_t t);
/* Phase colour: VW_C_PHASE0 + vw_phases_color(cls) (8 colours, view.h). */
int vw_phases_color(int cls);

/* 1 when every file's regions came from the application's runtime (a
 * Kokkos program under mcrec: metadata regions.kokkos) and it has some:
 * then its phases are its regions by default. */
int vw_phases_app_regions(const struct vw_model *m);

/* Select phase i (clamped) and put the cursor at its start; for n/p. */
void vw_phases_select(struct vw_an *an, int i);
/* n/p from any view: next/previous phase after/before the selected one (or
 * the cursor when none is).  Returns 1 if the selection moved. */
int vw_phases_step(struct vw_an *an, int dir);
/* Zoom the window to phase i with a small margin either side. */
void vw_phases_zoom(struct vw_an *an, int i);
/* Mean of any stream over phase i, display units (NaN if none). */
double vw_phases_stream_mean(struct vw_an *an, size_t i, size_t stream);

/* phase-cli.c: mcview's phase options (--phases, --report, --phase-*), and
 * what to do with them once the model is open. */
enum vw_phase_cli_opt {
	VW_CLI_PHASES,  /* --phases auto|marks|off */
	VW_CLI_REPORT,  /* --report[=text|json] */
	VW_CLI_PENALTY, /* --phase-penalty X */
	VW_CLI_MIN,     /* --phase-min TIME */
	VW_CLI_STREAMS, /* --phase-streams WORD,... */
	VW_CLI_LEVEL,   /* --phase-level coarse|fine */
	VW_CLI_BRIEF,   /* --brief: the job's summary (report 3) */
	VW_CLI_COUNT
};

typedef struct vw_phase_cli {
	int mode;            /* -1 off, else vw_phases_source */
	int mode_given;      /* --phases was given (else a job's marks are used when every rank has some) */
	int report;          /* 0 none, 1 text, 2 json, 3 brief (the job's summary) */
	vw_phase_params p;
} vw_phase_cli;

#define VW_PHASE_CLI_INIT { VW_PHASES_AUTO, 0, 0, VW_PHASE_PARAMS_INIT }

/* The help lines for these options (for mcview --help). */
extern const char vw_phase_cli_help[];
/* Take option opt's argument; 0, or -1 with a one-line reason in err. */
int vw_phase_cli_opt(vw_phase_cli *c, int opt, const char *arg, char *err, size_t len);
/* After the model is open: detect the phases (unless off); with --report,
 * print it to stdout and return 1 (the program exits 0), or 2 when a file
 * had damaged blocks left out (exits 1); 0 = go on to the screen; -1 =
 * error, one line in err. */
int vw_phase_cli_run(struct vw_an *an, const vw_phase_cli *c, char *err, size_t len);

/* view-phases.c: the phases as a band of class colours over w cells at
 * (x, y) for the current window, each phase's letter in its middle, the
 * selected phase underlined (the timeline draws it above its rows). */
void view_phases_band(struct vw_an *an, struct vw_canvas *c, int x, int y, int w);

/* phase-desc.c: the figures of phase i, then the descriptions of all phases
 * (a description compares a phase with the others of the run). */
void vw_phase_stats_compute(struct vw_an *an, vw_phase *ph);
void vw_phase_describe(struct vw_an *an, vw_phase *v, size_t n);

/* phase-cache.c: the "phases" aux block.  The key names everything the
 * result depends on (parameters, source, streams, time range). */
void vw_phase_cache_key(const struct vw_model *m, const vw_phase_params *p, int source,
			char *key, size_t len);
/* Serialise / parse the phases (boundaries, classes, labels, gains): 0 or -1. */
int vw_phase_cache_encode(const struct vw_phases *ph, const char *key, unsigned char **buf,
			  size_t *len);
int vw_phase_cache_decode(const void *buf, size_t len, const char *key, struct vw_phases *ph);

#endif
