/* job.h: the files of a parallel job (one recording per MPI rank) as one
 * job — which files make a job, one phase structure for all its ranks, and
 * for each phase how unevenly the ranks spent their time in it.
 *
 *     vw_jobs *js;
 *     if (vw_jobs_build(m, VW_PHASES_MARKS, &params, &js, err, sizeof err) == 0) {
 *             const vw_job *j = &js->v[0];
 *             for (size_t p = 0; p < j->nph; p++)
 *                     printf("%s: slowest rank %d, imbalance %.2f\n", j->ph[p].label,
 *                            j->ph[p].slowest_rank, j->ph[p].imbalance);
 *             vw_jobs_free(js);
 *     }
 *
 * A job is the files sharing the `job` metadata (mcrec writes the launcher's
 * job id); files without one, given together, are one job.  Each file's
 * rank is its `rank` metadata.  Job phases come from marks — every rank cut
 * by its own regions (or point marks), matched across ranks by name and
 * order, so the k-th "solve" of rank 3 is the k-th "solve" of rank 5 — or,
 * without marks, from the phases detected on the whole model, each rank's
 * time in a phase then being its busy CPU time there.
 *
 * Per phase (the POP metrics, after mpiP and Scalasca):
 *   imbalance    max over ranks / mean over ranks of the time in the phase
 *   slowest_rank the rank with that max
 *   load_balance mean / max of the ranks' useful time (CPU time of the
 *                rank's command, core.task_clock); below 0.8 is worth a look
 *   lost_s       max - mean of the time in the phase: what the job loses,
 *                per rank, waiting for the slowest
 */
#ifndef VW_JOB_H
#define VW_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vw_model;
struct vw_phase_params;

typedef struct vw_job_rank {
	size_t file;        /* index into m->files */
	int rank;           /* the file's `rank`; -1 when it has none */
	const char *host;   /* the file's `host` ("" if none); owned by its reader */
	int64_t t_first, t_last; /* the file's samples on the dataset axis */
} vw_job_rank;

/* One rank in one job phase. */
typedef struct vw_job_cell {
	int64_t t0, t1;     /* dataset time; t1 <= t0 when the rank lacks the phase */
	double time_s;      /* time in the phase: the region's length (marks), or busy
			       CPU time (auto phases); NaN when the rank lacks it */
	double useful_s;    /* CPU time of the rank's command in [t0, t1); NaN if unknown */
} vw_job_cell;

typedef struct vw_job_phase {
	char label[48];     /* the mark's text; auto: "" */
	int cls;            /* class (same label, same class) */
	int64_t t0, t1;     /* earliest start and latest end over the ranks */
	size_t nranks;      /* ranks that have the phase */
	double mean_s, max_s;
	double imbalance;   /* max / mean; NaN when no rank has a time */
	int slowest_rank;   /* rank number; -1 none */
	size_t slowest;     /* its index into ranks */
	double load_balance; /* mean / max of useful time; NaN when unknown */
	double lost_s;      /* max - mean */
} vw_job_phase;

typedef struct vw_job {
	char id[72];        /* the `job` metadata, "" when the files have none */
	vw_job_rank *ranks; /* sorted by rank number */
	size_t nranks;
	int size;           /* the job's size from `nranks`, or -1 */
	vw_job_phase *ph;
	size_t nph;
	vw_job_cell *cell;  /* cell[p * nranks + r] */
	int source;         /* vw_phases_source the phases came from */
	/* hosts (2 or more): each host's median offset of its ranks' phase
	 * starts from the job's (median over phases, ns) — the clock skew
	 * between hosts where phases start at a barrier */
	const char **hosts; /* owned by the readers */
	int64_t *host_offset;
	size_t nhosts;
	char notes[512];    /* missing or duplicate ranks, ranks lacking phases; "" */
} vw_job;

typedef struct vw_jobs {
	vw_job *v;
	size_t n;
	char note[256];     /* "files of 2 jobs given together: shown as separate jobs"; "" */
} vw_jobs;

/* Whether the model's files are ranks of parallel jobs: more than one file
 * and some file carries a `rank`. */
int vw_jobs_applies(const struct vw_model *m);

/* Build the jobs of m.  source VW_PHASES_MARKS cuts by marks (ranks
 * without marks have no cells); VW_PHASES_AUTO uses m->phases, detecting
 * them with p first when m has none.  0, or -1 with a one-line reason in
 * err. */
int vw_jobs_build(struct vw_model *m, int source, const struct vw_phase_params *p,
		  vw_jobs **out, char *err, size_t errlen);
void vw_jobs_free(vw_jobs *js);

/* m->jobs for the views: built once (marks when every file has some,
 * else the detected phases), freed with the model.  0 (m->jobs set, or
 * m is not a job), or -1 with a reason in err. */
int vw_jobs_ensure(struct vw_model *m, char *err, size_t errlen);
/* The job phase of job j containing t, or -1. */
int vw_job_phase_at(const vw_job *j, int64_t t);

/* Whether every file of m carries region or point marks. */
int vw_jobs_all_marked(const struct vw_model *m);

/* The job report (`mcview --report` on rank files): per job a line of what
 * it is, a table of its phases and the notes; json = 1 gives one object
 * {"jobs": [{"job", "ranks", "size", "hosts", "source", "notes",
 * "host_offset_ms": {host: ms}, "phases":
 * [{"label", "class", "start_s", "duration_s", "ranks", "mean_s", "max_s",
 * "imbalance", "slowest_rank", "slowest_host", "load_balance", "lost_s",
 * "per_rank": [{"rank", "start_s", "time_s", "useful_s"}]}]}],
 * "note"}.  0, or -1 on a write error. */
int vw_jobs_print(const vw_jobs *js, FILE *f, int json);

#endif
