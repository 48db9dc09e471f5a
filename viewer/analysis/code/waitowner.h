/* waitowner.h: who waits — each sample spent in MPI or in an OpenMP
 * runtime (codeclass.h) charged to the application frame that called it,
 * the innermost one above the runtime on the sample's call stack
 * (stacktab.h), so that "MPI 33 %" becomes "MPI 33 %: Comm::reverse_comm
 * 18 %, Neighbor::build 9 %, …".  Needs call stacks (mcrec --call-graph);
 * without them vw_waitowner_of says so and the reports say nothing new.
 *
 *     vw_waiting w;
 *     if (vw_waitowner_of(an, SIZE_MAX, SIZE_MAX, p->t0, p->t1, &w) == 0) {
 *         char line[256];
 *         if (vw_waitowner_line(an, &w, VW_CC_MPI, 3, 0, line, sizeof line))
 *             puts(line);                  // "MPI 33 %: a 18 %, b 9 %, …"
 *         vw_waitowner_free(&w);
 *     }
 *
 * Off-CPU time (asleep, or the CPU taken) has no samples: it is no class
 * here (job.h measures it from the task clock).
 */
#ifndef VW_WAITOWNER_H
#define VW_WAITOWNER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../model/model.h"
#include "../an.h"
#include "codeclass.h"

/* An owner: an application function (a name of stacktab.h), or the
 * samples whose stack reaches no application frame (name "[no application frame]":
 * a stack cut short in a library without frame pointers). */
typedef struct vw_wait_owner {
	uint32_t name;    /* stacktab name id, VW_STK_NONE: no caller */
	uint64_t samples;
	double share;     /* of every sample of the span */
} vw_wait_owner;

typedef struct vw_wait_class {
	uint64_t samples;        /* of the class in the span */
	double share;            /* of every sample of the span */
	size_t nowners;
	vw_wait_owner *owners;   /* by samples, most first (ties by name) */
} vw_wait_class;

typedef struct vw_waiting {
	uint64_t total;              /* every sample of the span with a stack */
	vw_wait_class cls[VW_CC_N];  /* [VW_CC_MPI], [VW_CC_SYNC]; work has no owners */
} vw_waiting;

/* The waiting of [t0, t1) (an interval counts where its middle lies) in
 * file (SIZE_MAX: every file, the ranks of a job added up), of its thread
 * (an index into the file's threads; SIZE_MAX: all).  0, or -1 when no
 * file holds call stacks or out of memory (*w zeroed, nothing to free). */
int vw_waitowner_of(vw_an *an, size_t file, size_t thread, int64_t t0, int64_t t1,
		    vw_waiting *w);
/* The same over the files whose use[file] is 1 (use NULL: all). */
int vw_waitowner_set(vw_an *an, const uint8_t *use, size_t file, size_t thread, int64_t t0,
		     int64_t t1, vw_waiting *w);
void vw_waitowner_free(vw_waiting *w);
/* Owner o's name as people read it. */
const char *vw_waitowner_name(vw_an *an, const vw_wait_owner *o);
/* "MPI 33 %: a 18 %, b 9 %, …" with the top owners (… when there are
 * more; "..." when ascii) into buf; 0 (buf "") when the class has no
 * samples. */
int vw_waitowner_line(vw_an *an, const vw_waiting *w, int cls, size_t top, int ascii, char *buf,
		      size_t len);
/* {"MPI": {"samples": N, "share": x, "owners": [{"name": .., "samples": ..,
 * "share": ..}, ...]}, "sync": ...} with every class that has samples and
 * its first max owners. */
void vw_waitowner_json(vw_an *an, const vw_waiting *w, size_t max, FILE *f);

/* wait-report.c: the reports' words for it.  Job j's ranks (NULL: every
 * file) over [t0, t1): a line "PREFIX: MPI 33 %: a 18 %, b 9 %, …" per
 * class with samples (the top 3 owners), of at least min_share of the
 * span's samples; returns how many lines, 0 without stacks. */
struct vw_job;
int vw_wait_report_text(vw_an *an, const struct vw_job *j, int64_t t0, int64_t t1,
			double min_share, const char *prefix, FILE *f);
/* `, "waiting": {...}` (vw_waitowner_json, the top 10 owners) after a
 * JSON object's last key, or nothing without stacks: of file (one rank),
 * or with file SIZE_MAX of job j's ranks as above. */
void vw_wait_report_json(vw_an *an, const struct vw_job *j, size_t file, int64_t t0, int64_t t1,
			 FILE *f);

#endif
