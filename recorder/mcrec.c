/* mcrec.c: one recording from start to end (mcrec_run).
 *
 *  1. topology (hwloc, recorder/topo/topology.h) and the sources: probe, streams
 *  2. fork the command, stopped before exec; start the sources on its pid
 *  3. open the .mcz file: metadata, topology, stream descriptors
 *  4. let the command exec; sample at t0 + k*interval on the main thread;
 *     a writer thread (spool.c) encodes and writes
 *  5. when the command ends: one last sample, its exit status in the file
 *     (metadata and a mark), stop, close (index, trailer)
 *
 * SIGINT/SIGTERM/SIGHUP sent to mcrec are forwarded to the command (a
 * terminal's Ctrl-C already reaches it through the process group, so those
 * are not sent twice), and recording goes on until it exits.  The first
 * such signal is noted in the file, a mark at once and the metadata
 * ended_by at the end, with its sender and, under Slurm, why (endsig.c).  A full disk
 * stops the recording with one message while the command keeps running.
 */
#include "rec.h"
#include "calibrate/calibrate.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static rec_spool *mcrec_spool;
static volatile sig_atomic_t mcrec_child_pid;
static volatile sig_atomic_t mcrec_forwarded; /* last signal passed on to the command */
static volatile sig_atomic_t mcrec_chld;      /* a SIGCHLD came: time to waitpid */
/* The first INT/TERM/HUP: its number (set last), sender and time */
static volatile sig_atomic_t mcrec_endsig, mcrec_endsig_pid;
static volatile int64_t mcrec_endsig_ns;

static void mcrec_base_ctx(const rec_options *o, rec_ctx *c)
{
	memset(c, 0, sizeof *c);
	long n = sysconf(_SC_NPROCESSORS_CONF);
	c->ncpus = n > 0 ? (int)n : 1;
	c->system_wide = o->system_wide;
	c->groups = o->groups;
	c->interval_ns = o->interval_ns;
	c->slow_ns = o->slow_ns;
	c->pcp_host = o->pcp_host;
	c->papi_multiplex = o->papi_multiplex;
	c->code_hz = o->code_hz;
	c->code_event = o->code_event;
	c->code_callgraph = o->code_callgraph;
	c->code_stack = o->code_stack;
	c->no_regions = o->no_regions;
	c->region_rate = o->region_rate;
	c->quiet = o->quiet;
	rec_topobind_ctx(c);
	c->node_streams = rec_outname_local_rank() <= 0;
}

void mcrec_context(const rec_options *o, rec_ctx *c, const char *const *events)
{
	char err[256];
	if (rec_topobind_load(err, sizeof err) != 0 && !o->quiet)
		fprintf(stderr, "mcrec: no topology (%s); streams are not bound to CPUs\n", err);
	mcrec_base_ctx(o, c);
	c->events = events;
}

int rec_mark_post(int64_t t_mono, mcz_mark_kind kind, uint32_t source, const char *text)
{
	return mcrec_spool ? rec_spool_mark(mcrec_spool, t_mono, kind, source, text) : -1;
}

/* ---- signals -------------------------------------------------------------- */

static void mcrec_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!mcrec_endsig) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts); /* rec_clock_now's clock */
		mcrec_endsig_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		mcrec_endsig_pid = si && si->si_code != SI_KERNEL ? si->si_pid : 0;
		mcrec_endsig = sig;
	}
	/* Forward what another process sent; a terminal's signal (SI_KERNEL)
	 * has reached the command already through the process group. */
	if (mcrec_child_pid > 0 && si && si->si_code != SI_KERNEL) {
		kill((pid_t)mcrec_child_pid, sig);
		mcrec_forwarded = sig;
	}
}

static void mcrec_on_chld(int sig)
{
	(void)sig; /* interrupts the sleep too */
	mcrec_chld = 1;
}

static void mcrec_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = mcrec_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = mcrec_on_chld;
	sa.sa_flags = 0;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- the file ------------------------------------------------------------ */

static void mcrec_meta(mcz_writer *w, const rec_options *o, int64_t wall0)
{
	char buf[4096], host[256];
	struct utsname u;
	size_t at = 0;
	for (char **a = o->argv; *a && at < sizeof buf - 1; a++)
		at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", a == o->argv ? "" : " ", *a);
	mcz_writer_meta(w, "command", buf);
	if (gethostname(host, sizeof host) == 0) {
		host[sizeof host - 1] = '\0';
		mcz_writer_meta(w, "host", host);
	}
	if (getcwd(buf, sizeof buf))
		mcz_writer_meta(w, "cwd", buf);
	if (getenv("USER"))
		mcz_writer_meta(w, "user", getenv("USER"));
	time_t t = (time_t)(wall0 / 1000000000LL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	mcz_writer_meta(w, "start_wall", buf);
	snprintf(buf, sizeof buf, "%lld", (long long)o->interval_ns);
	mcz_writer_meta(w, "interval_ns", buf);
	mcz_writer_meta(w, "recorder", "mcrec 1.0");
	if (uname(&u) == 0) {
		snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
		mcz_writer_meta(w, "kernel", buf);
	}
	rec_cpu_model(buf, sizeof buf);
	if (buf[0])
		mcz_writer_meta(w, "cpu_model", buf);
	int rank = rec_outname_rank();
	if (rank >= 0) {
		snprintf(buf, sizeof buf, "%d", rank);
		mcz_writer_meta(w, "rank", buf);
	}
	int nranks = rec_outname_size();
	if (nranks > 0) {
		snprintf(buf, sizeof buf, "%d", nranks);
		mcz_writer_meta(w, "nranks", buf);
	}
	if (rec_outname_job(buf, sizeof buf) == 0)
		mcz_writer_meta(w, "job", buf);
	mcz_writer_meta(w, "mode", o->system_wide ? "system-wide" : "command");
	/* the roofline's ceilings: the host's cache only (mcrec --calibrate
	 * measures them); a damaged cache is said once and left out */
	char path[4096], err[512];
	rec_ceilings c;
	if (rec_ceilcache_path(path, sizeof path, 0, err, sizeof err) == 0) {
		int rc = rec_ceilcache_read(path, &c, err, sizeof err);
		if (rc == 0)
			rec_ceilcache_meta(w, &c);
		else if (rc < 0)
			fprintf(stderr, "mcrec: ignoring the ceiling cache %s (run mcrec --calibrate "
					"again)\n", err);
	}
}

/* On the writer thread, before its first chunk: the topology (deferred so
 * that the command did not wait for hwloc), each stream bound to its object,
 * and the rest of the file's header (the metadata went first). */
struct mcrec_header {
	mcz_writer *w;
	const rec_options *o;
	rec_sourceset *ss;
};

static int mcrec_header(void *arg)
{
	struct mcrec_header *h = arg;
	char err[256];
	if (rec_topobind_load(err, sizeof err) != 0 && !h->o->quiet)
		fprintf(stderr, "%smcrec: no topology (%s); streams are not bound to CPUs\n",
			isatty(2) ? "\r\033[K" : "", err);
	size_t ntopo;
	const mcz_topo_obj *topo = rec_topobind_objects(&ntopo);
	int rc = ntopo ? mcz_writer_topology(h->w, topo, ntopo) : MCZ_OK;
	for (size_t i = 0; rc == MCZ_OK && i < h->ss->n; i++)
		for (size_t k = 0; h->ss->state[i] == 1 && k < h->ss->st[i].n; k++) {
			uint32_t id;
			mcz_stream_desc *d = &h->ss->st[i].d[k];
			d->topo = rec_topobind_resolve(d->topo);
			if ((rc = mcz_writer_add_stream(h->w, d, &id)) != MCZ_OK)
				break;
		}
	/* Metadata, topology and streams on disk now: a recorder killed before
	 * its first chunk still leaves a file that says what it was recording. */
	return rc == MCZ_OK ? mcz_writer_flush(h->w) : rc;
}

/* ---- the run ------------------------------------------------------------- */

struct mcrec_run {
	const rec_options *o;
	rec_sourceset ss;
	mcz_writer *w;
	rec_spool *sp;
	rec_child ch;
	int viewing;           /* --view: mcview has the terminal (no status line) */
	int64_t t_end;         /* the command's end (the summary's duration) */
	pid_t viewer;          /* --view: mcview's pid once started */
	uint64_t view_bytes0;  /* --view: the file's size once its header was written */
	struct mcrec_header hdr;
	char path[4096];
	int64_t t0, ticks;
	int64_t read_ns;       /* time spent reading sources, all ticks */
	int64_t startup_ns;    /* mcrec_run to the command's exec */
	int64_t loop_cpu_ns;   /* CPU time of the sampling loop */
	uint64_t missed;
	int recording, wstatus, child_done, last_status_s;
	int cut_short;         /* a write failed: the file holds less than was sampled */
	int endsig_noted;      /* the ending signal's mark is posted */
	char endsig[160];      /* its words, "ended by SIGTERM at ... (pid N)" */
	rec_endsig_query why;  /* Slurm's reason for it, asked */
};

/* The signal that ends the recording, once, from the sampling loop: a
 * mark at its time, and Slurm asked why. */
static void mcrec_endsig_note(struct mcrec_run *r)
{
	if (!mcrec_endsig || r->endsig_noted)
		return;
	r->endsig_noted = 1;
	int64_t t = mcrec_endsig_ns;
	rec_endsig_from(mcrec_endsig, mcrec_endsig_pid, (double)(t - r->t0) * 1e-9, r->endsig,
			sizeof r->endsig);
	rec_spool_mark(r->sp, t, MCZ_MARK_POINT, (uint32_t)r->ch.pid, r->endsig);
	rec_endsig_ask(&r->why, mcrec_endsig_pid);
}

/* One row: all = every source (the first and last rows), else the slow
 * sources only when due (sourceset.c). */
static void mcrec_sample(struct mcrec_run *r, int all)
{
	mcz_value *v;
	uint8_t *present;
	int64_t t = rec_clock_now();
	/* A full ring (writer far behind) drops this row, counted. */
	if (rec_spool_row(r->sp, &v, &present) == 0) {
		rec_sourceset_read(&r->ss, v, present, t, all);
		rec_spool_commit(r->sp, t - r->t0);
	}
	r->read_ns += rec_clock_now() - t;
	r->ticks++;
}

static void mcrec_status(struct mcrec_run *r, int final)
{
	uint64_t rows, dropped, bytes;
	rec_spool_stats(r->sp, &rows, &dropped, &bytes);
	double el = (double)((r->t_end ? r->t_end : rec_clock_now()) - r->t0) * 1e-9;
	if (!final) {
		fprintf(stderr, "\rmcrec: %6.1f s  %llu samples  %zu streams  %.1f %s%s\033[K", el,
			(unsigned long long)r->ticks, r->ss.nstreams,
			bytes < 1048576 ? (double)bytes / 1024.0 : (double)bytes / 1048576.0,
			bytes < 1048576 ? "KiB" : "MiB", dropped ? "  (dropping: disk slow)" : "");
		return;
	}
	char how[128], kept[96] = "";
	struct stat st;
	rec_launch_describe(r->wstatus, how, sizeof how);
	if (stat(r->path, &st) == 0)
		bytes = (uint64_t)st.st_size;
	else
		st.st_mode = 0;
	/* What the file holds, read back (a full disk keeps fewer rows than
	 * were sampled: the count says what a reader gets, not what was meant) */
	mcz_reader *rd;
	if (S_ISREG(st.st_mode)) { /* (/dev/null: the rows written to it) */
		rows = 0;
		if (mcz_open(&rd, r->path, 0) == MCZ_OK) {
			rows = mcz_info(rd)->nrows;
			mcz_close(rd);
		}
	}
	if (r->cut_short && rows < (uint64_t)r->ticks)
		snprintf(kept, sizeof kept, " (of %llu taken: the rest could not be written)",
			 (unsigned long long)r->ticks);
	fprintf(stderr, "%smcrec: %s: %llu samples x %zu streams%s in %.1f s, %.1f KiB; %s %s\n",
		isatty(2) ? "\r\033[K" : "", r->path, (unsigned long long)rows, r->ss.nstreams,
		kept, el, (double)bytes / 1024.0, r->o->argv[0], how);
	if (mcrec_forwarded)
		fprintf(stderr, "mcrec: SIG%s was passed on to %s\n",
			sigabbrev_np(mcrec_forwarded) ? sigabbrev_np(mcrec_forwarded) : "?",
			r->o->argv[0]);
	if (dropped || r->missed)
		fprintf(stderr, "mcrec: %llu samples dropped (writer behind), %llu ticks missed "
			"(machine busy)\n", (unsigned long long)dropped, (unsigned long long)r->missed);
}

/* The writer failed (disk full): say it once, stop sampling. */
static void mcrec_check_writer(struct mcrec_run *r)
{
	int e;
	int rc = r->recording ? rec_spool_failed(r->sp, &e) : 0;
	if (!rc)
		return;
	r->recording = 0;
	if (rc == MCZ_E_NOSPC || (rc == MCZ_E_IO && e == ENOSPC))
		fprintf(stderr, "%smcrec: %s: disk full; recording stopped at %.1f s (the file keeps "
			"what was written); %s keeps running\n", isatty(2) ? "\r\033[K" : "", r->path,
			(double)(rec_clock_now() - r->t0) * 1e-9, r->o->argv[0]);
	else
		fprintf(stderr, "%smcrec: %s: write failed: %s%s%s; recording stopped, %s keeps "
			"running\n", isatty(2) ? "\r\033[K" : "", r->path, mcz_strerror(rc),
			e ? ": " : "", e ? strerror(e) : "", r->o->argv[0]);
}

/* Has the command ended?  waitid only after a SIGCHLD: no system call
 * per tick.  A SIGCHLD that lands between this check and the sleep is seen
 * at the next tick.  The command is left a zombie (WNOWAIT) until the last
 * row is taken (mcrec_loop): its /proc files still hold its final counts,
 * its I/O and its children's, which a slow source last read up to
 * --slow-interval before. */
static int mcrec_reaped(struct mcrec_run *r)
{
	if (!mcrec_chld)
		return 0;
	mcrec_chld = 0;
	siginfo_t si;
	si.si_pid = 0;
	if (waitid(P_PID, (id_t)r->ch.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == r->ch.pid)
		r->child_done = 1;
	return r->child_done;
}

/* --view: start mcview once the file has rows (or now, at the end). */
static void mcrec_view_start(struct mcrec_run *r, int now)
{
	uint64_t rows, dropped, bytes;
	rec_spool_stats(r->sp, &rows, &dropped, &bytes);
	/* the first size seen is the header's; rows are in once it grows */
	if (!now && (bytes == 0 || !r->view_bytes0 || bytes <= r->view_bytes0)) {
		if (!r->view_bytes0)
			r->view_bytes0 = bytes;
		return;
	}
	char err[256];
	r->viewer = rec_view_start(r->path, err, sizeof err);
	if (r->viewer < 0) {
		r->viewing = 0;
		fprintf(stderr, "mcrec: %s; recording without it\n", err);
	}
}

static void mcrec_loop(struct mcrec_run *r)
{
	int64_t planned = rec_clock_now();
	while (!r->child_done) {
		if (r->recording) {
			mcrec_sample(r, 0);
			rec_sourceset_idle(&r->ss);
		}
		mcrec_endsig_note(r);
		if (mcrec_reaped(r))
			break;
		mcrec_check_writer(r);
		if (r->viewing && r->viewer <= 0)
			mcrec_view_start(r, 0);
		if (r->recording && !r->o->quiet && !r->viewing) {
			int el = (int)((rec_clock_now() - r->t0) / 1000000000LL);
			if (el != r->last_status_s && isatty(2)) {
				r->last_status_s = el;
				mcrec_status(r, 0);
			}
		}
		uint64_t missed;
		planned = rec_clock_next(planned, rec_clock_now(), r->o->interval_ns, &missed);
		r->missed += missed;
		/* Sleep to the deadline; a signal (SIGCHLD) wakes us to check the child. */
		while (rec_clock_sleep_until(planned) != 0)
			if (mcrec_reaped(r))
				break;
	}
	/* The last sample: final counts, the marks the command sent last;
	 * then the command is reaped. */
	mcrec_endsig_note(r);
	if (r->recording)
		mcrec_sample(r, 1);
	while (waitpid(r->ch.pid, &r->wstatus, 0) < 0 && errno == EINTR)
		;
}

static int64_t mcrec_thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void mcrec_meta_num(mcz_writer *w, const char *key, int decimals, double v)
{
	char num[32];
	snprintf(num, sizeof num, "%.*f", decimals, v);
	mcz_writer_meta(w, key, num);
}

/* What recording cost (tests/bench/bench-rec-overhead.sh reads these). */
static void mcrec_costs(struct mcrec_run *r)
{
	struct rusage ru;
	/* CPU time of mcrec's own threads (not the command's), start-up included */
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		mcrec_meta_num(r->w, "recorder_cpu_s", 6,
			       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
			       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
	/* the sampling thread while the command ran, and the writer thread */
	mcrec_meta_num(r->w, "sampler_cpu_s", 6, (double)r->loop_cpu_ns * 1e-9);
	mcrec_meta_num(r->w, "writer_cpu_s", 6, (double)rec_spool_writer_cpu(r->sp) * 1e-9);
	/* mean wall time of one tick's reads */
	mcrec_meta_num(r->w, "tick_read_us", 1,
		       r->ticks ? (double)r->read_ns / (double)r->ticks / 1e3 : 0.0);
	/* from mcrec_run to the command let go (its exec), on mcrec's clock */
	mcrec_meta_num(r->w, "startup_ms", 3, (double)r->startup_ns * 1e-6);
}

/* The writer thread's hook before each sync: the sources' blocks. */
static int mcrec_sync(void *arg, mcz_writer *w)
{
	struct mcrec_run *r = arg;
	return rec_sourceset_sync(&r->ss, w, r->t0);
}

/* Each row on the writer thread: the sources' late values (source.h). */
static void mcrec_row(void *arg, int64_t t, mcz_value *v, uint8_t *present)
{
	struct mcrec_run *r = arg;
	rec_sourceset_late(&r->ss, v, present, t + r->t0);
}

static int mcrec_fail(struct mcrec_run *r, int status)
{
	if (r->ch.pid > 0) {
		kill(r->ch.pid, SIGKILL);
		waitpid(r->ch.pid, NULL, 0);
	}
	rec_spool_free(r->sp);
	if (r->w) {
		mcz_writer_close(r->w);
		unlink(r->path);
	}
	rec_sourceset_free(&r->ss);
	return status;
}

int mcrec_run(const rec_options *o)
{
	struct mcrec_run r;
	char err[512];
	rec_ctx base;
	memset(&r, 0, sizeof r);
	int64_t start = rec_clock_now();
	r.o = o;
	r.ch.pid = -1;
	r.why.pid = r.why.fd = -1;

	/* Streams are bound to the topology later, on the writer thread: the
	 * command does not wait for hwloc (topobind.c). */
	rec_topobind_defer();
	mcrec_base_ctx(o, &base);
	if (rec_sourceset_open(&r.ss, o, &base, 0, err, sizeof err)) {
		fprintf(stderr, "mcrec: %s\n", err);
		rec_sourceset_free(&r.ss);
		return 2;
	}
	int64_t wall0 = rec_clock_wall();
	if (rec_outname_expand(o->output, o->argv[0], wall0 / 1000000000LL, r.path, sizeof r.path,
			       err, sizeof err)) {
		fprintf(stderr, "mcrec: %s\n", err);
		return mcrec_fail(&r, 2);
	}
	/* Signals go to the sampling thread only: blocked while the writer and
	 * source threads are created (they inherit the mask, so their I/O is
	 * never interrupted), unblocked below.  The child unblocks its own. */
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT), sigaddset(&sigs, SIGTERM), sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	mcrec_signals();
	int out_fd = -1;
	char out_name[sizeof r.path + 8];
	if (o->view && (out_fd = rec_view_output(r.path, out_name, sizeof out_name, err,
						  sizeof err)) < 0) {
		fprintf(stderr, "mcrec: %s\n", err);
		return mcrec_fail(&r, 2);
	}
	int frc = rec_launch_fork(&r.ch, o->argv, out_fd, err, sizeof err);
	if (out_fd >= 0)
		close(out_fd);
	if (frc) {
		fprintf(stderr, "mcrec: %s\n", err);
		return mcrec_fail(&r, 1);
	}
	mcrec_child_pid = r.ch.pid;
	if (rec_sourceset_start(&r.ss, r.ch.pid, err, sizeof err)) {
		fprintf(stderr, "mcrec: %s\n", err);
		return mcrec_fail(&r, 2);
	}
	r.t0 = rec_clock_now();
	wall0 = rec_clock_wall();
	mcz_write_opts wo = MCZ_WRITE_OPTS_INIT;
	wo.wall_epoch_ns = wall0;
	wo.chunk_ns = o->chunk_ns; /* SIGKILL loses REC_SYNC_NS at most (spool.c) */
	/* An earlier recording of the same name is kept, as perf record keeps
	 * perf.data.old; --force overwrites it. */
	struct stat old_st;
	if (!o->force && stat(r.path, &old_st) == 0 && S_ISREG(old_st.st_mode)) {
		char old_path[sizeof r.path + 8];
		snprintf(old_path, sizeof old_path, "%s.old", r.path);
		if (rename(r.path, old_path) != 0) {
			fprintf(stderr, "mcrec: %s exists and cannot be kept as %s: %s (--force "
				"overwrites it)\n", r.path, old_path, strerror(errno));
			return mcrec_fail(&r, 2);
		}
		if (!o->quiet)
			fprintf(stderr, "mcrec: kept the earlier %s as %s\n", r.path, old_path);
	}
	int rc = mcz_writer_open(&r.w, r.path, &wo);
	if (rc != MCZ_OK) {
		fprintf(stderr, "mcrec: cannot write %s: %s\n", r.path,
			rc == MCZ_E_IO		 ? strerror(errno)
			: *mcz_errdetail() ? mcz_errdetail()
					   : mcz_strerror(rc));
		if (r.w)
			mcz_writer_close(r.w), r.w = NULL, unlink(r.path);
		return mcrec_fail(&r, 2);
	}
	size_t cap = (size_t)(4000000000LL / o->interval_ns) + 64;
	if (rec_spool_new(&r.sp, r.w, r.ss.nstreams, cap, r.t0, o->chunk_ns)) {
		fprintf(stderr, "mcrec: out of memory\n");
		return mcrec_fail(&r, 1);
	}
	r.hdr = (struct mcrec_header){r.w, o, &r.ss};
	rec_spool_attach(r.sp, r.w, mcrec_header, &r.hdr);
	rec_spool_on_sync(r.sp, mcrec_sync, &r);
	rec_spool_on_row(r.sp, mcrec_row, &r);
	mcrec_spool = r.sp;
	/* The first row before the command runs: every counter's starting
	 * point (perf counters are still 0 until its exec). */
	mcrec_sample(&r, 1);
	int status;
	if (rec_launch_go(&r.ch, o->argv[0], &status, err, sizeof err)) {
		fprintf(stderr, "mcrec: %s\n", err);
		waitpid(r.ch.pid, NULL, 0);
		r.ch.pid = -1;
		mcrec_spool = NULL;
		return mcrec_fail(&r, status);
	}
	r.startup_ns = rec_clock_now() - start;
	/* Said once the command runs, so that a failed start is one line. */
	if (!o->quiet)
		for (size_t i = 0; i < r.ss.n; i++)
			if (r.ss.state[i] == -1 && !r.ss.src[i].absent &&
			    strncmp(r.ss.src[i].why, "group", 5) != 0)
				fprintf(stderr, "mcrec: not recording %s: %s\n", r.ss.src[i].ops->name,
					r.ss.src[i].why);
	/* The metadata now (no hwloc in it, a write of a few hundred bytes), so
	 * that a recorder killed before the writer thread's header still leaves
	 * a file that says what ran; the writer thread owns w from here on (an
	 * error sticks to w and the writer reports it). */
	mcrec_meta(r.w, o, wall0);
	/* each slow source's own interval (SPEC.md 5.1: interval_ns.SOURCE) */
	for (size_t i = 0; i < r.ss.n; i++)
		if (r.ss.state[i] == 1 && r.ss.src[i].n &&
		    rec_sourceset_period(&r.ss, i) > o->interval_ns) {
			char key[64], num[32];
			snprintf(key, sizeof key, "interval_ns.%s", r.ss.src[i].ops->name);
			snprintf(num, sizeof num, "%lld", (long long)rec_sourceset_period(&r.ss, i));
			mcz_writer_meta(r.w, key, num);
		}
	mcz_writer_flush(r.w);
	if (rec_spool_start(r.sp)) {
		fprintf(stderr, "mcrec: cannot start the writer thread\n");
		return mcrec_fail(&r, 1);
	}
	/* The sampling thread alone: the writer and helper threads exist now
	 * and keep their normal policy.  A 1 us timer slack instead of 50 us
	 * lets clock_nanosleep wake closer to the deadline. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (o->realtime) {
		struct sched_param sp = {.sched_priority = o->realtime};
		int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (e && !o->quiet)
			fprintf(stderr, "mcrec: --realtime: %s; sampling at normal priority\n",
				strerror(e));
	}
	/* --view: the viewer takes the terminal once the writer's first rows
	 * are in the file (its header, with the streams bound to the topology,
	 * comes first); mcrec's status line would write over it, so mcrec
	 * speaks again only once the viewer is gone. */
	r.viewing = o->view;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	r.recording = 1;
	int64_t cpu0 = mcrec_thread_cpu();
	mcrec_loop(&r);
	r.t_end = rec_clock_now();
	r.loop_cpu_ns = mcrec_thread_cpu() - cpu0;
	mcrec_child_pid = 0;

	char how[128];
	rec_launch_describe(r.wstatus, how, sizeof how);
	rec_spool_mark(r.sp, rec_clock_now(), MCZ_MARK_POINT, (uint32_t)r.ch.pid, how);
	rec_sourceset_stop(&r.ss);
	rc = rec_spool_stop(r.sp);
	/* what the sources gathered since the writer's last sync, in the file
	 * before finish symbolizes it (a kill then loses nothing of it) */
	if (rc == MCZ_OK && rec_sourceset_sync(&r.ss, r.w, r.t0) == MCZ_OK)
		mcz_writer_sync(r.w);
	mcrec_check_writer(&r);
	mcrec_spool = NULL;
	char num[32];
	snprintf(num, sizeof num, "%d", rec_launch_status(r.wstatus));
	mcz_writer_meta(r.w, "exit_status", num);
	mcz_writer_meta(r.w, "exit", how);
	if (r.endsig_noted) {
		char why[96], ended[sizeof r.endsig + sizeof why + 2];
		rec_endsig_why(&r.why, why, sizeof why);
		snprintf(ended, sizeof ended, "%s%s%s", r.endsig, why[0] ? ": " : "", why);
		mcz_writer_meta(r.w, "ended_by", ended);
	}
	char finish_msg[2048];
	rec_sourceset_finish(&r.ss, r.w, r.t0, finish_msg, sizeof finish_msg);
	mcrec_costs(&r);
	int crc = mcz_writer_close(r.w);
	int cerr = errno;
	r.w = NULL;
	r.cut_short = rc != MCZ_OK || crc != MCZ_OK;
	if (r.viewing && r.viewer <= 0) /* the command ended before the first rows */
		mcrec_view_start(&r, 1);
	if (r.viewer > 0) {
		rec_view_wait(r.viewer);
		r.viewing = 0;
		if (!o->quiet)
			fprintf(stderr, "mcrec: the command's output is in %s\n", out_name);
	}
	if (!o->quiet)
		fputs(finish_msg, stderr);
	if (!o->quiet)
		mcrec_status(&r, 1);
	/* Close is error-free when the writer already failed and said so. */
	if (crc != MCZ_OK && rc == MCZ_OK)
		fprintf(stderr, "mcrec: %s: %s while closing; the file opens with what was written "
			"(see mcz check)\n", r.path,
			crc == MCZ_E_NOSPC || (crc == MCZ_E_IO && cerr == ENOSPC) ? "disk full"
										 : mcz_strerror(crc));
	rec_spool_free(r.sp);
	rec_sourceset_free(&r.ss);
	/* The command's status, unless it succeeded and the recording did
	 * not: a script sees a cut recording (mcrec.1 EXIT STATUS) */
	status = rec_launch_status(r.wstatus);
	return status == 0 && r.cut_short ? MCREC_EXIT_CUT : status;
}
