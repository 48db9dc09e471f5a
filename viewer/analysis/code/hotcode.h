/* hotcode.h: what the code profile of a recording (SPEC.md 5.6, through
 * vw_model_code) means for the viewer: the functions by rank (letter and
 * colour of the timeline's code row), the top functions of any time span
 * with their share and file:line (cursor readout, Phases view, --report),
 * the hottest function of each column, and per code region a rate series
 * for phase detection (function where DWARF names it, else a 256-byte
 * region of its object: works without symbols).
 *
 *     vw_hot top[5];
 *     uint64_t total;
 *     size_t n = vw_hotcode_top(an, p->t0, p->t1, top, 5, &total);
 *     for (size_t i = 0; i < n; i++)
 *         printf("%s %.0f%%\n", vw_hotcode_name(an, top[i].fn), 100 * top[i].share);
 *
 * The tables are built on first use and kept beside the model
 * (an->code_cache, viewer/analysis/an.h).
 */
#ifndef VW_HOTCODE_H
#define VW_HOTCODE_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../an.h"
#include "codeclass.h"

/* One function of the top list of a span. */
typedef struct vw_hot {
	size_t fn;          /* function rank over the whole run: 0 hottest */
	double share;       /* of the span's samples, 0..1 */
	uint64_t samples;
	const char *file;   /* of its hottest place in the span, "" unknown */
	uint32_t line;      /* 0 unknown */
	const char *inlined; /* that place's inline chain ("main"), "" none */
} vw_hot;

/* The middle of interval i of profile c on the dataset axis (off: its
 * file's offset, vw_model_code_at's): where an interval counts in a span.
 * A file's times may lie anywhere in int64 (a hostile one too): it
 * saturates, never wraps. */
int64_t vw_hotcode_mid(const mcz_code *c, size_t i, int64_t off);
/* 1 when the dataset has a code profile with samples. */
int vw_hotcode_has(vw_an *an);
/* Functions over the whole run (ranked by samples). */
size_t vw_hotcode_nfunctions(vw_an *an);
/* Name of function fn as `perf report` gives it, for the readout and
 * JSON: "compute_kernel", "LAMMPS_NS::PairLJCut::compute(int, int)"
 * (demangled, clones folded), or "app (no symbols)" for all of an
 * object's code without symbols. */
const char *vw_hotcode_name(vw_an *an, size_t fn);
/* The same without return type and parameters, for narrow columns:
 * "LAMMPS_NS::PairLJCut::compute". */
const char *vw_hotcode_brief(vw_an *an, size_t fn);
/* Length of the profile's intervals (ns); 0 without a profile. */
int64_t vw_hotcode_interval(vw_an *an);
/* The letter of function fn on the code row: 'A'.. 'Z', then 'a'..'z', then '*'. */
char vw_hotcode_letter(size_t fn);

/* The top functions of [t0, t1) (an interval counts where its middle
 * lies), at most max, by samples; *total (may be NULL) gets every sample
 * of the span.  Returns how many. */
size_t vw_hotcode_top(vw_an *an, int64_t t0, int64_t t1, vw_hot *out, size_t max,
		      uint64_t *total);
/* How many threads ran code over [t0, t1) on average: its samples over
 * the span's length times the sampling rate (0 without a profile). */
double vw_hotcode_threads(vw_an *an, int64_t t0, int64_t t1);
/* [t0, t1) in n columns: fn[i] the hottest function of column i (-1: no
 * sample), share[i] its share there (share may be NULL).  0, or -1 when
 * there is no profile. */
int vw_hotcode_columns(vw_an *an, int64_t t0, int64_t t1, size_t n, int *fn, double *share);

/* The same for one file of the dataset (a rank of a job): its samples
 * only, its functions named and ranked as the whole dataset's (the same
 * letter on every rank).  A file without a profile has none. */
size_t vw_hotcode_file_top(vw_an *an, size_t file, int64_t t0, int64_t t1, vw_hot *out,
			   size_t max, uint64_t *total);
int vw_hotcode_file_columns(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n, int *fn,
			    double *share);
/* One file's span, [t0, t1) of file: a rank's own time in a phase. */
typedef struct vw_hot_span {
	size_t file;
	int64_t t0, t1;
} vw_hot_span;
/* The top functions as vw_hotcode_top gives them, over spans of files,
 * each of its own file (a job's phase: each rank in its own region);
 * *total the samples, and (cls not NULL) the samples per class of
 * codeclass.h, cls[VW_CC_N]. */
size_t vw_hotcode_spans_top(vw_an *an, const vw_hot_span *sp, size_t nsp, vw_hot *out,
			    size_t max, uint64_t *total, uint64_t *cls);

/* The functions that called fn (recorded with callchains: mcrec
 * --call-graph fp) over the whole run, by samples, at most max; share is
 * of fn's samples with a known caller.  0 without callchains. */
size_t vw_hotcode_callers(vw_an *an, size_t fn, vw_hot *out, size_t max);

/* For phase detection: code regions ranked by samples (at most max are
 * worth a series); *names their labels ("code:compute_kernel"). */
size_t vw_hotcode_regions(vw_an *an, size_t max);
const char *vw_hotcode_region_name(vw_an *an, size_t region);
/* Samples per second of region r over [a, b) in n buckets, divided by the
 * sampling rate (so 1.0 = one thread always there): 0 where nothing of it
 * ran, including idle buckets. */
int vw_hotcode_region_rate(vw_an *an, size_t r, int64_t a, int64_t b, size_t n, double *out);

/* What the code was doing (codeclass.h: work, MPI, sync), for a job's
 * ranks.  CPU seconds one sample of file's profile stands for (0: none). */
double vw_hotcode_file_period(vw_model *m, size_t file);
/* Samples of file (SIZE_MAX: every file) over [t0, t1) by class into
 * n[VW_CC_N]; returns them all. */
/* File file's samples in [t0, t1) by thread and class: n[thread * VW_CC_N
 * + class] for its first max threads (in the order they were first
 * sampled); returns how many threads it filled, 0 when the file's profile
 * is not split by thread (recorded before format 1.6). */
size_t vw_hotcode_file_threads(vw_an *an, size_t file, int64_t t0, int64_t t1, uint64_t *n,
			       size_t max);
uint64_t vw_hotcode_file_classes(vw_an *an, size_t file, int64_t t0, int64_t t1,
				 uint64_t n[VW_CC_N]);
/* The same in n columns: cnt[col * VW_CC_N + class] samples.  0, or -1
 * without a profile. */
/* Whether that answer for one file is at hand (kept from the last ask of
 * the same window): no profile to walk, within any frame's budget. */
int vw_hotcode_file_class_kept(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n);
int vw_hotcode_file_class_columns(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n,
				  uint32_t *cnt);
/* What ran most in [t0, t1) among the work (not MPI, not sync), as an
 * identity for comparing spans: a named function's name, or where no
 * symbol names the code its region ("code:app+0x1400", finer than the
 * names people read for stripped code); *share its share of the work
 * samples.  0, or -1 when no work ran there. */
int vw_hotcode_top_code(vw_an *an, int64_t t0, int64_t t1, char *buf, size_t len,
			double *share);
/* The same for a phase that is busy, into buf: code ran a fifth of a
 * thread or more over [t0, t1) and what ran most has a fifth of the work
 * samples; "" otherwise (idle: a few samples name a function by chance;
 * no profile; no code stands out). */
void vw_hotcode_busy_code(vw_an *an, int64_t t0, int64_t t1, char *buf, size_t len);
/* How alike the work of two spans is: the overlap of their work samples'
 * shares over the same keys (named functions; code without symbols by its
 * object, as the reports name it), from 0 (nothing in common) to 1 (the
 * same mix); -1 when either span has no work samples or there is no
 * profile. */
double vw_hotcode_work_overlap(vw_an *an, int64_t a0, int64_t a1, int64_t b0, int64_t b1);
/* For phase detection on a job: the rate of class cls in file's samples
 * (one rank) over [a, b) in n buckets, in threads, as region rates. */
int vw_hotcode_file_class_rate(vw_an *an, size_t file, int cls, int64_t a, int64_t b, size_t n,
			       double *out);
/* The class of function fn (ranked as vw_hotcode_name's). */
int vw_hotcode_fn_class(vw_an *an, size_t fn);
/* The code classes' note (a user rules file with lines left out); "" none. */
const char *vw_hotcode_class_note(vw_an *an);

#endif
