/* rec.h: the recorder core's modules, for the files of recorder/ only
 * and their tests (sources see recorder/source.h; nothing else includes this).
 *
 *   clock.c    interval parsing, monotonic time, absolute-deadline sleeping
 *   spool.c    the ring between the sampling thread and the writer thread
 *   launch.c   fork / wait for the go / exec; exit status
 *   registry.c the source table, -e and -g distribution, rec_streams
 *   outname.c  -o patterns (%h %r %j %p %t, Slurm's %A %a %s ...) and the MPI rank
 *   endsig.c   the signal that ended a recording: its sender, Slurm's reason
 *   options.c  the command line
 *   sourceset.c the sources of one recording: select, probe, start, read, stop
 *   listing.c  --list
 *   view.c     --view: mcview on the file being written, the command's output to FILE.out
 *   topobind.c the topology and the rec_ctx.topo_* lookups, now or deferred
 *   calibrate/ mcrec --calibrate and the ceiling cache (door: calibrate/calibrate.h)
 *   mcrec.c    ties them together: mcrec_run()
 */
#ifndef REC_H
#define REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "source.h"

/* ---- clock.c ------------------------------------------------------------- */

/* CLOCK_MONOTONIC / CLOCK_REALTIME in ns. */
int64_t rec_clock_now(void);
int64_t rec_clock_wall(void);
/* Parse an interval: "100" (ms), "10ms", "0.5s", "500us", "2000000ns".
 * 0 or, with err filled ("interval '0': must be at least 1 ms"), -1. */
int rec_clock_parse_interval(const char *s, int64_t *ns, char *err, size_t errlen);
/* Sleep until the monotonic deadline; returns early (-1) on a signal. */
int rec_clock_sleep_until(int64_t deadline);
/* The next planned tick after `now`: planned + k*interval with k >= 1 the
 * smallest that lies in the future (a missed tick is skipped, never caught
 * up in a burst).  *missed gets the number of ticks skipped. */
int64_t rec_clock_next(int64_t planned, int64_t now, int64_t interval, uint64_t *missed);

/* ---- spool.c ------------------------------------------------------------- */

typedef struct rec_spool rec_spool;

/* Rows of nvals values; capacity rows in the ring.  The spool owns the
 * writer thread, which calls mcz_writer_append/mark/flush on w (no other
 * thread touches w until rec_spool_stop returns).  w may be NULL here and
 * attached later: rows and marks wait in the ring until the writer starts. */
int rec_spool_new(rec_spool **sp, mcz_writer *w, size_t nvals, size_t capacity,
		  int64_t t0_mono, int64_t flush_ns);
/* Attach the writer; first (may be NULL) runs on the writer thread before
 * any row or mark is written, and its non-zero return (an mcz_err) is the
 * writer's first error. */
void rec_spool_attach(rec_spool *sp, mcz_writer *w, int (*first)(void *arg), void *arg);
/* A function the writer thread runs before each flush or sync of the file
 * (the sources' blocks of what they gathered: rec_sourceset_sync).  Set
 * before rec_spool_start. */
void rec_spool_on_sync(rec_spool *sp, int (*fn)(void *arg, mcz_writer *w), void *arg);
/* fn(arg, t, v, present) on the writer thread for each row, in order,
 * before it is written (t: recording time, ns since t0): the sources'
 * late values (source.h, late). */
void rec_spool_on_row(rec_spool *sp, void (*fn)(void *arg, int64_t t, mcz_value *v, uint8_t *present),
		      void *arg);
/* Start the writer thread (w attached).  It sleeps until a sync is due
 * (REC_SYNC_NS, or flush_ns if shorter; a chunk every flush_ns), the ring
 * or the mark queue is half full, or the stop. */
int rec_spool_start(rec_spool *sp);
/* Sampling side: a row to fill (values, present bytes), or NULL when the
 * ring is full (the row is counted as dropped). */
int rec_spool_row(rec_spool *sp, mcz_value **v, uint8_t **present);
/* Publish the row obtained last, at recording time t (ns since t0). */
void rec_spool_commit(rec_spool *sp, int64_t t);
/* Marks at monotonic time t_mono; any thread (serialised inside). */
int rec_spool_mark(rec_spool *sp, int64_t t_mono, mcz_mark_kind kind, uint32_t src,
		   const char *text);
/* Drain, stop the thread.  Returns the writer's first error (MCZ_OK, or an
 * mcz_err such as MCZ_E_NOSPC); w is the caller's again. */
int rec_spool_stop(rec_spool *sp);
/* First write error seen by the writer thread so far (0 = none); errno
 * value at that moment in *err_no. */
int rec_spool_failed(const rec_spool *sp, int *err_no);
/* Counters for the status line. */
void rec_spool_stats(const rec_spool *sp, uint64_t *rows, uint64_t *dropped, uint64_t *bytes);
/* CPU time of the writer thread, ns (known once rec_spool_stop returned). */
int64_t rec_spool_writer_cpu(const rec_spool *sp);
void rec_spool_free(rec_spool *sp);

/* ---- ownenv.c ------------------------------------------------------------ */

/* Set name=value for mcrec's own libraries unless the user set name;
 * 1 if set, 0 if left as it was.  At start only (one thread). */
int rec_env_own(const char *name, const char *value);
/* The environment without the variables rec_env_own set (for the command;
 * an array of the environment's own strings, never freed: it is exec'd). */
char **rec_env_for_child(void);

/* ---- launch.c ------------------------------------------------------------ */

typedef struct rec_child {
	pid_t pid;
	int gate_fd;  /* write end: closing it lets the child exec */
	int err_fd;   /* read end of the close-on-exec error pipe */
} rec_child;

/* Fork the child, which waits for rec_launch_go() and then execs argv. */
/* out_fd >= 0: the command's standard output and error (mcrec --view). */
int rec_launch_fork(rec_child *ch, char *const argv[], int out_fd, char *err, size_t errlen);
/* Let the child exec.  0 if it did; else its errno, and *status is the
 * shell's status (127 not found, 126 not executable) with err filled with
 * the shell's message ("nosuch: command not found"). */
int rec_launch_go(rec_child *ch, const char *cmd, int *status, char *err, size_t errlen);
/* Shell-style exit status of a wait status: code, or 128+signal. */
int rec_launch_status(int wstatus);
/* "exited with status 3", "killed by SIGSEGV (core dumped)". */
void rec_launch_describe(int wstatus, char *buf, size_t len);

/* ---- view.c ------------------------------------------------------------- */

/* Create path.out (its name in out) for the command's output; the fd, or -1
 * with one line in err. */
int rec_view_output(const char *path, char *out, size_t outlen, char *err, size_t errlen);
/* Start mcview on path in this terminal; its pid, or -1 with one line in err. */
pid_t rec_view_start(const char *path, char *err, size_t errlen);
/* Wait for the viewer (the user quits it); its exit status, -1 on error. */
int rec_view_wait(pid_t pid);

/* ---- registry.c ---------------------------------------------------------- */

struct rec_streams {
	mcz_stream_desc *d;
	size_t n, cap;
};
/* rec_streams_add is declared in source.h. */
void rec_streams_clear(rec_streams *s);

/* The compiled-in sources, NULL-terminated, in probe order. */
extern const rec_source_ops *const rec_registry[];
/* Group mask of a -g list ("core,mem") or of an ops->groups string; -1
 * with err on an unknown name. */
int rec_registry_groups(const char *list, unsigned *mask, char *err, size_t errlen);
/* Split the -e items (each "source:event", or a bare event = perf) by
 * source: out[i] is a NULL-terminated list for rec_registry[i] or NULL.
 * -1 with err on an unknown source. */
int rec_registry_split_events(char *const *items, size_t n, const char **out[],
			      char *err, size_t errlen);
void rec_registry_free_events(const char **lists[]);
size_t rec_registry_count(void);

/* ---- outname.c ----------------------------------------------------------- */

/* MPI rank and node-local rank from the launcher's environment
 * (OMPI_COMM_WORLD_*, PMI_*, SLURM_*, MPI_LOCALRANKID); -1 if none. */
int rec_outname_rank(void);
int rec_outname_local_rank(void);
/* The job's size (ranks) and id from the same environment: -1 if none;
 * the id is copied into buf (only [A-Za-z0-9._-@:], at most 64 bytes). */
int rec_outname_size(void);
int rec_outname_job(char *buf, size_t len);
/* SLURM_JOB_ID (sbatch's %j), -1 outside Slurm */
int rec_outname_slurm_job(char *buf, size_t len);
/* Expand -o's pattern; NULL pattern = "<cmd>-<host>-<time>.mcz".  The time
 * is start_wall (s).  0, or -1 with err ("-o: unknown %x"). */
int rec_outname_expand(const char *pattern, const char *cmd, int64_t start_wall_s,
		       char *out, size_t outlen, char *err, size_t errlen);

/* ---- endsig.c ------------------------------------------------------------ */

/* "ended by SIGTERM at 61.2 s from slurmstepd (pid 4242)": sig sent by pid
 * (0: the kernel) at_s into the recording. */
void rec_endsig_from(int sig, int pid, double at_s, char *buf, size_t len);
/* Why Slurm sent it, asked of scontrol without waiting, under Slurm by
 * rank 0 alone and only when sender is a slurmstepd; rec_endsig_why
 * collects the answer (3 s at most): "Slurm time limit", "Slurm: scancel",
 * or "" unknown. */
typedef struct rec_endsig_query {
	int pid, fd;
} rec_endsig_query;
void rec_endsig_ask(rec_endsig_query *q, int sender);
void rec_endsig_why(rec_endsig_query *q, char *buf, size_t len);

/* ---- options.c ----------------------------------------------------------- */

/* Default --chunk: longer chunks compress better (see
 * tests/bench/bench-storage.sh); what SIGKILL may lose is REC_SYNC_NS. */
#define REC_CHUNK_NS_DEFAULT 5000000000LL
/* The writer thread puts the rows gathered so far into the file (a PART
 * block) at least this often: a SIGKILL or a full disk loses at most about
 * this much (DESIGN.md: "at most the last second"). */
#define REC_SYNC_NS 500000000LL
/* Default --slow-interval: the process tree, /proc's node-wide files and
 * the network are read every 500 ms (or every tick when -i is longer):
 * their reads are most of a tick's cost (tests/bench/bench-rec-overhead.sh)
 * and they change slowly, /proc/stat's CPU times in 10 ms steps. */
#define REC_SLOW_NS_DEFAULT 500000000LL
/* mcrec's exit status when the command succeeded (0) but the recording
 * was cut short by a failed write (a full disk): the file holds what was
 * written before, as mcz check's INCOMPLETE (also 3) says. */
#define MCREC_EXIT_CUT 3

typedef struct rec_options {
	int64_t interval_ns;     /* -i, default 100 ms */
	int64_t chunk_ns;        /* --chunk: longest time between chunk writes */
	int64_t slow_ns;         /* --slow-interval: the slow sources' (proc, net) */
	const char *output;      /* -o pattern, NULL = default name */
	char **events;           /* -e items split at commas (owned) */
	size_t nevents;
	unsigned groups;         /* -g mask; REC_G_ALL when not given */
	int groups_given;
	int system_wide;         /* -a */
	int quiet;               /* -q */
	int view;                /* --view: mcview follows the file in this terminal */
	int force;               /* --force: overwrite an existing output (else NAME.old) */
	int list;                /* --list */
	int realtime;            /* -r: SCHED_FIFO priority of the sampling thread, 0 = off */
	const char *pcp_host;    /* --pcp-host */
	int papi_multiplex;      /* --papi-multiplex */
	unsigned code_hz;        /* --code-hz, 0 = default (1000) */
	int calibrate;           /* --calibrate: measure the roofline's ceilings first */
	const char *code_event;  /* --code-event, NULL = cpu-clock */
	int code_callgraph;      /* --call-graph: 0 none, REC_CG_FP, REC_CG_DWARF */
	unsigned code_stack;      /* --call-graph dwarf,SIZE: user stack bytes per sample */
	unsigned no_regions;     /* --no-kokkos, --no-ompt: REC_NO_KOKKOS | REC_NO_OMPT */
	double region_rate;      /* --region-rate N: marks per second from a connector */
	char **argv;             /* the command (points into main's argv) */
} rec_options;

/* 0: run; 1: done (help/version printed); 2: bad usage, err filled. */
int rec_options_parse(int argc, char **argv, rec_options *o, char *err, size_t errlen);
void rec_options_free(rec_options *o);
void rec_options_usage(FILE *f);

/* ---- sourceset.c ----------------------------------------------------------- */

/* The sources of one recording (or of --list), in registry order. */
typedef struct rec_sourceset {
	size_t n;                /* = rec_registry_count() */
	rec_source *src;
	rec_streams *st;         /* each source's declared streams */
	rec_ctx *ctx;            /* each source's context (its -e items) */
	int *state;              /* 0 not selected, 1 recording, -1 unavailable */
	const char ***events;    /* -e items per source */
	size_t nstreams;         /* total, = row width */
	int64_t interval_ns;     /* -i */
	int64_t *due;            /* a slow source's next read, CLOCK_MONOTONIC */
} rec_sourceset;

/* Probe and declare streams of the selected sources (all of them with
 * everything = 1, for --list).  A source named with -e that cannot run is
 * fatal: -1 with err "perf: unknown perf event 'foo' (...)". */
int rec_sourceset_open(rec_sourceset *ss, const rec_options *o, const rec_ctx *base,
		       int everything, char *err, size_t errlen);
/* Start the recording sources (the child exists, before exec). */
int rec_sourceset_start(rec_sourceset *ss, pid_t child, char *err, size_t errlen);
/* Read the recording sources into one row taken at now (CLOCK_MONOTONIC):
 * every source when all is set (the first and the last rows), else those
 * due (a slow source every rec_sourceset_period); the others' streams
 * stay absent from the row. */
void rec_sourceset_read(rec_sourceset *ss, mcz_value *v, uint8_t *present, int64_t now, int all);
/* How often source i is read (ns): its period_ns rounded to a whole number
 * of intervals, or the interval. */
int64_t rec_sourceset_period(const rec_sourceset *ss, size_t i);
/* After a tick's row is committed: each recording source's idle(). */
void rec_sourceset_idle(rec_sourceset *ss);
/* The writer thread's call for each row (rec_spool_on_row): every
 * recording source's late values, t_mono the row's time. */
void rec_sourceset_late(rec_sourceset *ss, mcz_value *v, uint8_t *present, int64_t t_mono);
/* Before each sync of the file, on the thread that owns w: each recording
 * source's sync() (the code samples since the last).  0, or the first
 * mcz error of a block that could not be written. */
int rec_sourceset_sync(rec_sourceset *ss, mcz_writer *w, int64_t t0_mono);
void rec_sourceset_stop(rec_sourceset *ss);
/* After stop: each recording source's finish() (the code profile); its
 * lines for the user ("mcrec: code: ...\n" each) into msg, said by the
 * caller when the terminal is its own again (after --view's viewer). */
void rec_sourceset_finish(rec_sourceset *ss, mcz_writer *w, int64_t t0_mono, char *msg,
			  size_t msglen);
void rec_sourceset_free(rec_sourceset *ss);

/* ---- listing.c ----------------------------------------------------------- */

/* --list: every source, its streams, and for each unavailable one why and
 * the fix.  Returns the exit status. */
int rec_listing_print(const rec_options *o, FILE *f);

/* ---- topobind.c ---------------------------------------------------------- */

/* Set c's topo_* lookups. */
void rec_topobind_ctx(rec_ctx *c);
/* Load the topology (hwloc, or $MCREC_TOPOLOGY); once.  0, or -1 with err. */
int rec_topobind_load(char *err, size_t errlen);
/* From now on the lookups hand out late ids, which rec_topobind_resolve
 * turns into object indexes once the topology is loaded (or -1 without). */
void rec_topobind_defer(void);
int32_t rec_topobind_resolve(int32_t id);
/* The loaded table (NULL, *n = 0 when none). */
const mcz_topo_obj *rec_topobind_objects(size_t *n);

/* ---- mcrec.c ------------------------------------------------------------- */

/* Record o->argv; returns mcrec's exit status (the child's). */
int mcrec_run(const rec_options *o);
/* The context handed to sources, topology loaded (shared with --list). */
void mcrec_context(const rec_options *o, rec_ctx *c, const char *const *events);

#endif
