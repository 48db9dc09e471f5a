/* job.h: the files of a parallel job (one recording per MPI rank) as one
 * job — which files make a job, one phase structure for all its ranks, and
 * for each phase how the ranks spent their time in it.
 *
 *     vw_jobs *js;
 *     if (vw_jobs_build(an, VW_PHASES_MARKS, &params, &js, err, sizeof err) == 0) {
 *             const vw_job *j = &js->v[0];
 *             for (size_t p = 0; p < j->nph; p++)
 *                     printf("%s: slowest rank %d, load balance %.2f\n", j->ph[p].label,
 *                            j->ph[p].slowest_rank, j->ph[p].load_balance);
 *             vw_jobs_free(js);
 *     }
 *
 * A job is the files sharing the `job` metadata (mcrec writes the launcher's
 * job id); files without one, given together, are one job.  Each file's
 * rank is its `rank` metadata.  Job phases come from marks — every rank cut
 * by its own regions (or point marks), matched across ranks by name and
 * order, so the k-th "solve" of rank 3 is the k-th "solve" of rank 5 — or,
 * without marks, from the phases detected on the whole model.
 *
 * Useful time.  MPI libraries poll while a rank waits, so a waiting rank is
 * as busy as a computing one.  Where a rank's recording has code samples,
 * each sample is work, MPI or sync by its object and function (codeclass.h)
 * and a rank's useful time is its work samples times the sampling period;
 * without them (sampling off or refused), its CPU time (core.task_clock),
 * in which MPI waits count as work — the job says which (useful_from).
 *
 * Per phase, and for the whole run (the POP metrics, after Scalasca and the
 * BSC tools):
 *   useful_mean_s, useful_max_s  the ranks' useful time
 *   mpi_mean_s   the ranks' mean time in MPI (NaN without code samples)
 *   load_balance mean / max of the useful time; below 0.8 is worth a look
 *   comm_eff     max over the ranks of useful / (the phase's time less
 *                the time other processes took from the rank), per thread
 *                of a rank that ran several threads: time a rank spent
 *                waiting counts against it, time its CPU was taken does
 *                not (job-taken.c)
 *   par_eff      load_balance x comm_eff
 *   slowest_rank the rank with the most useful time (the one the others
 *                wait for)
 *   lost_s       max - mean useful: what each rank loses, on average,
 *                waiting for the slowest
 *   imbalance    max / mean of the ranks' time in the phase: the region's
 *                length with marks, the useful time for detected phases
 *   off_mean_s   the ranks' mean time off their CPUs (asleep, or taken)
 *   taken_mean_s of it, the mean time other processes had their CPUs
 *
 * Time off CPU is a class of its own, beside work, MPI and sync: a rank
 * off its CPU neither works nor waits, and time others took lowers
 * neither the load balance (useful time is time on CPU) nor comm_eff.
 */
#ifndef VW_JOB_H
#define VW_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vw_model;
struct vw_an;
struct vw_phase_params;

typedef struct vw_job_rank {
	size_t file;        /* index into m->files */
	int rank;           /* the file's `rank`; -1 when it has none */
	const char *host;   /* the file's `host` ("" if none); owned by its reader */
	size_t host_ix;     /* its index in the job's hosts */
	int64_t t_first, t_last; /* the file's samples on the dataset axis */
} vw_job_rank;

/* One rank in one job phase. */
typedef struct vw_job_cell {
	int64_t t0, t1;     /* dataset time; t1 <= t0 when the rank lacks the phase */
	double time_s;      /* time in the phase: the region's length (marks), or busy
			       CPU time (auto phases); NaN when the rank lacks it */
	double useful_s;    /* useful time in [t0, t1) (see above); NaN if unknown */
	double mpi_s, sync_s; /* time in MPI and in OpenMP waits; NaN without code samples */
	double threads;     /* threads the rank ran at once there, >= 1 (code samples) */
	int from_code;      /* useful_s comes from code samples (else CPU time) */
	double off_s;       /* time off any CPU in [t0, t1) (asleep, or its CPU taken
			       by another process): the span less its CPU time, for a
			       rank of one thread; NaN otherwise */
	double cpu_s;       /* its CPU time in [t0, t1); NaN when unknown */
	double taken_s;     /* of off_s, the time other processes had its CPU
			       (job-taken.c); NaN when unknown */
	/* The profile split by thread (format 1.6), NaN otherwise: the time
	 * its main thread spent outside MPI (the span less its MPI time, as
	 * POP's hybrid figures read a process), and its threads' load
	 * balance (threads.h). */
	double outside_mpi_s, thread_lb;
} vw_job_cell;

/* A host's CPUs over a span: what the node ran, the job's part of it and
 * what other processes took from the job's ranks (job-taken.c). */
typedef struct vw_job_load {
	int ncpu;           /* CPUs with os.cpu.busy; 0 when the files lack it */
	double span_s;
	double busy_s;      /* the node's busy CPU seconds; NaN when unknown */
	double job_s;       /* the job's ranks' CPU seconds on it */
	double others_s;    /* busy_s - job_s: other processes' */
	double taken_s;     /* of that, time the job's ranks were off their CPUs for */
} vw_job_load;

typedef struct vw_job_phase {
	char label[48];     /* the mark's text; auto: "" */
	int cls;            /* class (same label, same class) */
	int64_t t0, t1;     /* earliest start and latest end over the ranks */
	size_t nranks;      /* ranks that have the phase */
	double mean_s, max_s;
	double imbalance;   /* max / mean; NaN when no rank has a time */
	int slowest_rank;   /* rank number; -1 none */
	size_t slowest;     /* its index into ranks */
	double useful_mean_s, useful_max_s; /* NaN when unknown */
	double mpi_mean_s;  /* NaN without code samples */
	double load_balance; /* mean / max of useful time; NaN when unknown */
	double comm_eff, par_eff; /* NaN when unknown */
	double lost_s;      /* max - mean of useful time (of time in the phase without it) */
	double off_mean_s, taken_mean_s; /* NaN when unknown */
	/* POP's hybrid split, where the ranks' profiles are split by thread
	 * (NaN otherwise): par_eff = mpi_par_eff x omp_par_eff; the MPI part
	 * from each rank's main thread outside MPI (mpi_lb = mean / max of
	 * it, mpi_comm_eff = its max / the phase), the OpenMP part what is
	 * left; thread_lb the mean over ranks of their threads' load balance. */
	double mpi_par_eff, mpi_lb, mpi_comm_eff, omp_par_eff, thread_lb;
	int threads_max;    /* the most threads a rank ran; 1 without the split */
	char code[72];      /* what ran, the job's samples: "dgemm_ 62%, MPI 35%"; "" none */
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
	int useful_from;    /* VW_USEFUL_CODE, _CPU, or _MIXED (some ranks each way) */
	size_t code_lost;   /* ranks recorded with the code source whose files hold no
			       code profile (a recorder killed before it wrote any) */
	vw_job_phase run;   /* the whole run: each rank from its first to its last sample */
	vw_job_cell *run_cell; /* run_cell[r] */
	vw_job_load *load;  /* per host, the whole run; load[h] for hosts[h] */
	double taken_from_s, taken_to_s; /* the phases where others took 5 % or more
					    of the ranks' time; NaN none */
	/* hosts (2 or more): each host's median offset of its ranks' phase
	 * starts from the job's (median over phases, ns) — the clock skew
	 * between hosts where phases start at a barrier */
	const char **hosts; /* owned by the readers */
	int64_t *host_offset;
	size_t nhosts;
	char notes[512];    /* missing or duplicate ranks, ranks lacking phases; "" */
	/* the signal that ended it, as a rank's recorder noted it (its
	 * `ended_by`, with Slurm's reason where that rank had one; else the
	 * mark of a recorder killed before it closed its file); "" none */
	char ended[192];
	int ended_rank;
} vw_job;

enum { VW_USEFUL_CODE = 0, VW_USEFUL_CPU = 1, VW_USEFUL_MIXED = 2 };

typedef struct vw_jobs {
	vw_job *v;
	size_t n;
	char note[256];     /* "files of 2 jobs given together: shown as separate jobs"; "" */
} vw_jobs;


/* Build the jobs of an's model.  source VW_PHASES_MARKS cuts by marks
 * (ranks without marks have no cells); VW_PHASES_AUTO uses an->phases,
 * detecting them with p first when there are none.  0, or -1 with a one-line reason in
 * err. */
int vw_jobs_build(struct vw_an *an, int source, const struct vw_phase_params *p,
		  vw_jobs **out, char *err, size_t errlen);
void vw_jobs_free(vw_jobs *js);

/* an->jobs for the views: built once (marks when every file has some,
 * else the detected phases), freed with an.  0 (an->jobs set, or the
 * model is not a job), or -1 with a reason in err. */
int vw_jobs_ensure(struct vw_an *an, char *err, size_t errlen);
/* The job phase of job j containing t, or -1. */
int vw_job_phase_at(const vw_job *j, int64_t t);

/* Whether some file of m marks regions: begin marks, or point marks other
 * than the recorder's own exit mark (the default source of a job's phases:
 * marks when some rank marks, else detection). */
int vw_jobs_any_marked(const struct vw_model *m);

/* For the first n files of m (n <= nfiles), the share of [t0, t1) other
 * processes had each file's CPU (job-taken.c), from the files' code
 * samples: 0 where unknown (no profile, no os.cpu.busy, several threads). */
void vw_job_taken_files(struct vw_an *an, int64_t t0, int64_t t1, double *share, size_t n);

/* The job report (`mcview --report` on rank files): per job a line of what
 * it is, a table of its phases and the notes; json = 1 gives one object
 * {"jobs": [{"job", "ranks", "size", "hosts", "source", "notes",
 * "host_offset_ms": {host: ms}, "phases":
 * [{"label", "class", "start_s", "duration_s", "ranks", "mean_s", "max_s",
 * "imbalance", "slowest_rank", "slowest_host", "useful_mean_s", "useful_max_s",
 * "mpi_mean_s", "load_balance", "comm_eff", "par_eff", "lost_s", "code",
 * "off_cpu_mean_s", "taken_mean_s",
 * "per_rank": [{"rank", "start_s", "time_s", "useful_s", "mpi_s", "sync_s",
 * "off_cpu_s", "taken_s", "threads"}]}], "run": {the same for the whole
 * run}, "useful_from": "code samples" | "cpu time" | "mixed", "contention":
 * {"from_s", "to_s", "hosts": [{"host", "cpus", "busy_cpu_s", "job_cpu_s",
 * "others_cpu_s", "taken_s"}]}, "ended_by": "SIGTERM at 61.2 s from
 * slurmstepd (pid 42): Slurm time limit" | null, "ended_rank"}], "note"}.
 * With call stacks (mcrec --call-graph) each phase, the run and each rank
 * there also have "waiting" (waitowner.h: the MPI and sync samples by the
 * application function that waited), and the text report a line per
 * waiting class.  0, or -1 on a write error. */
int vw_jobs_print(struct vw_an *an, const vw_jobs *js, FILE *f, int json);

/* The job's own summary (`mcview --report --brief`, job-brief.c): a few
 * lines for the end of a batch job's output, every figure one of the
 * report's (the whole run's row): ranks and nodes, wall time, how it
 * ended, load balance and the slowest rank, MPI, sync and off-CPU shares,
 * peak memory per node, the hottest code, the phases in one line, the
 * files.  0, or -1 on a write error. */
int vw_jobs_print_brief(struct vw_model *m, const vw_jobs *js, FILE *f);

#endif
