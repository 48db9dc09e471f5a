/* phase-int.h: what the phase files share and nobody else includes: the
 * detector's state (phase-prep.c builds the coarse level, phase.c detects
 * on it) and the model layer's steps (phase-model.c, called by phases.c). */
#ifndef VW_PHASE_INT_H
#define VW_PHASE_INT_H

#include "phase.h"

struct vw_row;
/* phase-pick.c: on a recording made from PCP archives, the rows the
 * detector reads (at most max, into rows: m->groups indexes) among those
 * `wanted` allows; 0 when the recording is not from PCP (then the default). */
size_t phase_pick_pcp(struct vw_model *m, int (*wanted)(const struct vw_model *, const struct vw_row *),
		      size_t *rows, size_t max);

#define PHASE_COARSE_DEFAULT 8192
#define PHASE_FLOOR_REL (1.0 / 25.0) /* noise floor, fraction of a stream's range */
#define PHASE_SUBSAMPLE 16384        /* samples used to estimate clip bounds */
#define PHASE_MIN_SAMPLES 10         /* default minimum phase length, in samples */

typedef struct phase_cand {
	uint32_t s, e, t; /* interval [s, e), split t */
	double gain;
} phase_cand;

struct vw_phase_prep {
	size_t d, m;
	size_t used;       /* streams with scale > 0 */
	double *v;         /* coarse values in noise units, v[j * m + i] */
	double *pre;       /* prefix sums, pre[j * (m + 1) + i] */
	int64_t *edge;     /* m + 1 bucket edges */
	int64_t sample;    /* position units per sample */
	double *range;     /* robust range of each stream's coarse level, noise units */
	double *scale;     /* raw / scale = noise units; 0 = stream ignored */
	double *center;    /* subtracted before scaling */
	vw_phase_fine fine;
	int has_fine;
	uint8_t *code;     /* NULL, or per stream 1: a code region's rate (classes) */
	/* array input */
	const double *const *x;
	size_t n;
	double *clip_lo, *clip_hi;
	/* boundaries placed at full resolution, kept across runs: (c, cprev,
	 * cnext) -> position, so a re-run with another penalty reads no samples
	 * for the boundaries it keeps */
	struct phase_placed {
		size_t c, cprev, cnext;
		int64_t pos;
	} *placed;
	size_t nplaced, capplaced;
	/* candidates cached for one minimum length */
	size_t cand_minc;
	phase_cand *cand;
	size_t ncand;
};

/* Fill NaN gaps: each half with the mean of a few values on its side
 * (leading and trailing ones with the nearest mean); 0 if none. */
int vw_phase_prep_fill(double *y, size_t n);

/* phase-model.c, for phases.c: build the coarse level from the model's rows
 * (ph->prep, ph->fine), detect with ph->params into ph->v, or take the
 * marks as phases; 0 or -1 (out of memory). */
struct vw_model;
struct vw_an;
int vw_phase_model_prepare(struct vw_an *an, struct vw_phases *ph);
int vw_phase_model_run(struct vw_an *an, struct vw_phases *ph);
int vw_phase_model_marks(struct vw_model *m, struct vw_phases *ph);
/* The same on any marks (sorted by t) over samples [t_min, t_max] taken
 * every dt ns: the job analysis cuts each rank by its own marks. */
struct vw_mark;
int vw_phase_marks_cut(const struct vw_mark *marks, size_t nmarks, int64_t t_min, int64_t t_max,
		       int64_t dt, struct vw_phases *ph);
/* Regions that nest (an application's own, through Kokkos Tools or
 * mcmark.h: every BEGIN closed by an END, the innermost first, one left
 * open at the end at most): the marks of all but the outermost left out,
 * in place, for the default level; the new count (nmarks as it was when
 * the regions do not nest: then every region cuts the run). */
size_t vw_phase_marks_outer(struct vw_mark *marks, size_t nmarks);
void vw_phase_model_fine_free(void *fine);
/* The refinement context reads model m from now on (phases adopted from a
 * clone of m: the same files, streams and groups). */
void vw_phase_model_fine_rebind(void *fine, struct vw_an *an);
/* Sampling interval of the dataset, ns. */
int64_t vw_phase_model_interval(const struct vw_model *m);

#endif
