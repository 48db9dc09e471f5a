/* proc.c: the proc source — what /proc says about the machine and about the
 * recorded command's process tree.
 *
 * Node-wide (only the node's first recorder, see rec_ctx.node_streams):
 * os.cpu.busy per CPU (% of the interval not idle/iowait, /proc/stat),
 * os.ctxt_switches (/proc/stat ctxt), os.mem.used (MemTotal - MemAvailable).
 * The command's tree: app.rss (sum of resident set sizes), app.procs, and
 * app.io.{read_bytes,write_bytes,rchar,wchar} from /proc/PID/io.
 *
 * A slow source (source.h, rec_source.period_ns): the recorder calls
 * read() every --slow-interval (500 ms by default, or every tick when -i is
 * longer), and at the first and last rows; in the rows between, its streams
 * are absent.  /proc/stat counts CPU time in USER_HZ units (10 ms), so at
 * -i 10ms a CPU's busy share could only be 0 % or 100 %, and these reads
 * (kernel formatting of /proc/stat and /proc/meminfo, cold at every read)
 * were most of a tick's cost.  read() preads the files it keeps open
 * (/proc/stat, /proc/meminfo) and does one pass of the tree work, then
 * stores the tree's sums in the same row: the figures of a row were all
 * measured at that row.  The pass runs on the sampling thread while the
 * tree is small and a pass short, as waking a thread of its own costs more
 * than the pass on a VM (bench-sources.sh); a helper thread takes
 * it over, every --slow-interval, from the moment the tree outgrows the
 * kept descriptors, a pass takes over a tenth of the interval twice in a
 * row, or on the fallback scan below; a read then stores the sums of the
 * helper's latest pass once (absent until the next pass).  The work follows
 * the tree down from the root through /proc/PID/task/TID/children (every
 * thread's children: a fork from any thread is seen), skipping the walk
 * while no task was created anywhere (/proc/loadavg's newest PID unchanged
 * over two walks), and reads each tracked process's statm and io through
 * kept descriptors (pread; the first 32 processes, the rest by
 * open/read/close).  Only a kernel without the children files
 * (CONFIG_PROC_CHILDREN off) needs a scan of every /proc/PID/stat, which
 * costs milliseconds on a busy node: there the tree is rescanned after 1 s,
 * backing off to 8 s while it stays the same (MCREC_PROC_SCAN=1 forces
 * this path, for tests).
 *
 * The trade-off: a process that lives less than one helper period (or, on
 * the fallback, between two scans) is never seen, so its memory is not in
 * app.rss nor in app.procs.  Its I/O is not lost: when a child is reaped
 * the kernel adds its I/O counts to its parent's (wait_task_zombie), so the
 * root's /proc/PID/io holds every finished descendant's; the published
 * counters never go back.  The children file may miss a process being
 * created at the moment it is read (proc(5)); the next period finds it.
 * The helper sleeps on a condition variable, so stopping is immediate.
 */
#include "../source.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { PROC_MAX_TREE = 4096, PROC_NIO = 4, PROC_KEEP_FDS = 32, PROC_NFD = 4 };
enum { PROC_FD_STATM, PROC_FD_IO, PROC_FD_TASK, PROC_FD_KIDS };

struct proc_tracked {
	pid_t pid;
	int fd[PROC_NFD];      /* kept /proc/PID/statm, io, task/ and task/PID/children, or -1 */
	uint64_t io[PROC_NIO]; /* last seen read_bytes, write_bytes, rchar, wchar */
};

struct proc_priv {
	int ncpus, node, stat_fd, mem_fd;
	uint64_t *prev_busy, *prev_total;
	int have_prev;
	char *buf;
	size_t buflen;
	/* tree, owned by the helper thread */
	pid_t root;
	int64_t period_ns;
	struct proc_tracked *tr;
	int ntr, nkept;
	int load_fd;                   /* /proc/loadavg: the newest PID */
	long walked_pid;               /* the newest PID at the last walk */
	int walk_settled;              /* the last two walks saw the same */
	int children;                  /* the children files are there (else scans) */
	int64_t since_scan, every;     /* the fallback's scans */
	int inline_pass;               /* passes on the sampling thread (read) */
	int slow;                      /* its passes in a row over interval / 10 */
	int64_t interval_ns;
	pthread_t thread;
	int running;
	pthread_mutex_t lock;          /* the published sums, stopping */
	pthread_cond_t wake;           /* the helper's sleep */
	int stopping;
	uint64_t pub_rss, pub_io[PROC_NIO], pub_procs; /* published under lock */
	uint64_t pub_seq;              /* passes published (under lock) */
	uint64_t read_seq;             /* the pass the last row stored */
};

static int src_proc_probe(rec_source *s, const rec_ctx *c)
{
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rec_unavailable(s, "cannot read /proc/stat", "mount /proc (mount -t proc proc /proc)");
	struct proc_priv *p = calloc(1, sizeof *p);
	if (!p) {
		close(fd);
		return rec_unavailable(s, "out of memory", "");
	}
	p->stat_fd = fd;
	p->mem_fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	p->load_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	p->walked_pid = -1;
	p->ncpus = c->ncpus;
	p->node = c->node_streams;
	s->period_ns = c->slow_ns; /* a slow source (sourceset.c) */
	p->buflen = 4096 + 256 * (size_t)c->ncpus;
	p->buf = malloc(p->buflen);
	p->prev_busy = calloc((size_t)c->ncpus + 1, sizeof *p->prev_busy);
	p->prev_total = calloc((size_t)c->ncpus + 1, sizeof *p->prev_total);
	p->tr = calloc(PROC_MAX_TREE, sizeof *p->tr);
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	s->priv = p;
	if (!p->buf || !p->prev_busy || !p->prev_total || !p->tr)
		return rec_unavailable(s, "out of memory", "");
	return 0;
}

static int proc_add(rec_streams *out, const char *name, const char *native, const char *unit,
		    int kind, int type, const char *inst, int32_t topo, uint16_t flags)
{
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = name;
	d.source = "proc";
	d.native = native;
	d.unit = unit;
	d.kind = (uint8_t)kind;
	d.type = (uint8_t)type;
	d.instance = inst;
	d.topo = topo;
	d.flags = flags;
	return rec_streams_add(out, &d);
}

static int src_proc_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	struct proc_priv *p = s->priv;
	int rc = 0;
	if (!(c->groups & REC_G_OS))
		return rec_unavailable(s, "group os not selected", "add -g os");
	int32_t node = c->topo_machine ? c->topo_machine() : -1;
	if (p->node) {
		for (int i = 0; i < p->ncpus; i++) {
			char inst[32], native[64];
			snprintf(inst, sizeof inst, "cpu%d", i);
			snprintf(native, sizeof native, "proc:/proc/stat cpu%d", i);
			rc |= proc_add(out, "os.cpu.busy", native, "%", MCZ_GAUGE, MCZ_F64, inst,
				       c->topo_pu ? c->topo_pu(i) : -1, MCZ_SF_PERCPU);
		}
		rc |= proc_add(out, "os.ctxt_switches", "proc:/proc/stat ctxt", "switches", MCZ_COUNTER,
			       MCZ_U64, "", node, 0);
		rc |= proc_add(out, "os.mem.used", "proc:/proc/meminfo MemTotal-MemAvailable", "B",
			       MCZ_GAUGE, MCZ_U64, "", node, 0);
	}
	rc |= proc_add(out, "app.rss", "proc:/proc/PID/statm resident", "B", MCZ_GAUGE, MCZ_U64, "",
		       node, 0);
	rc |= proc_add(out, "app.procs", "proc:/proc/PID/stat ppid", "processes", MCZ_GAUGE, MCZ_U64,
		       "", node, 0);
	rc |= proc_add(out, "app.io.read_bytes", "proc:/proc/PID/io read_bytes", "B", MCZ_COUNTER,
		       MCZ_U64, "", node, 0);
	rc |= proc_add(out, "app.io.write_bytes", "proc:/proc/PID/io write_bytes", "B", MCZ_COUNTER,
		       MCZ_U64, "", node, 0);
	rc |= proc_add(out, "app.io.rchar", "proc:/proc/PID/io rchar", "B", MCZ_COUNTER, MCZ_U64, "",
		       node, 0);
	rc |= proc_add(out, "app.io.wchar", "proc:/proc/PID/io wchar", "B", MCZ_COUNTER, MCZ_U64, "",
		       node, 0);
	return rc ? rec_unavailable(s, "out of memory", "") : 0;
}

/* ---- the helper thread: the process tree ------------------------------- */

static int proc_slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Parent of pid from /proc/PID/stat ("pid (comm) S ppid ..."), or -1. */
static pid_t proc_ppid(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (proc_slurp(path, buf, sizeof buf) < 0)
		return -1;
	char *rp = strrchr(buf, ')');
	int ppid;
	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

static int proc_find(struct proc_priv *p, pid_t pid)
{
	for (int i = 0; i < p->ntr; i++)
		if (p->tr[i].pid == pid)
			return i;
	return -1;
}

static void proc_track(struct proc_priv *p, pid_t pid)
{
	if (pid > 0 && p->ntr < PROC_MAX_TREE && proc_find(p, pid) < 0)
		p->tr[p->ntr++] = (struct proc_tracked){.pid = pid, .fd = {-1, -1, -1, -1}};
}

static void proc_untrack(struct proc_priv *p, int i)
{
	for (int k = 0; k < PROC_NFD; k++)
		if (p->tr[i].fd[k] >= 0)
			close(p->tr[i].fd[k]), p->nkept--;
	p->tr[i] = p->tr[--p->ntr];
}

/* Full scan of /proc: add every descendant of root not tracked yet. */
static void proc_rescan(struct proc_priv *p)
{
	static pid_t pids[65536], ppids[65536];
	int n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) && n < 65536) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		pid_t pp = proc_ppid(pid);
		if (pp >= 0)
			pids[n] = pid, ppids[n++] = pp;
	}
	closedir(d);
	/* Grow the set from the root until nothing changes. */
	proc_track(p, p->root);
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < n; i++)
			if (proc_find(p, pids[i]) < 0 && proc_find(p, ppids[i]) >= 0 &&
			    p->ntr < PROC_MAX_TREE) {
				proc_track(p, pids[i]);
				changed = 1;
			}
	}
}

/* A kept descriptor of t (k: PROC_FD_*), opened at first use while the
 * budget of PROC_KEEP_FDS lasts; -1 when there is none. */
static int proc_kept(struct proc_priv *p, struct proc_tracked *t, int k)
{
	static const char *const names[PROC_NFD] = {"statm", "io", "task", "children"};
	if (t->fd[k] < 0 && p->nkept < PROC_KEEP_FDS) {
		char path[96];
		if (k == PROC_FD_KIDS)
			snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)t->pid, (int)t->pid);
		else
			snprintf(path, sizeof path, "/proc/%d/%s", (int)t->pid, names[k]);
		t->fd[k] = open(path, O_RDONLY | O_CLOEXEC | (k == PROC_FD_TASK ? O_DIRECTORY : 0));
		p->nkept += t->fd[k] >= 0;
	}
	return t->fd[k];
}

/* The children of one thread (tid) of t into buf: its children file,
 * through the kept descriptor for the main thread. */
static int proc_children(struct proc_priv *p, struct proc_tracked *t, long tid, char *buf,
			 size_t len)
{
	int fd = tid == t->pid ? proc_kept(p, t, PROC_FD_KIDS) : -1;
	if (fd < 0) {
		char path[96];
		snprintf(path, sizeof path, "/proc/%d/task/%ld/children", (int)t->pid, tid);
		return proc_slurp(path, buf, len);
	}
	ssize_t n = pread(fd, buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Follow the tree down from the root through the children files of every
 * thread of every tracked process (new entries are walked in turn); the
 * task directories are re-read through kept descriptors (lseek, getdents)
 * rather than opened each time. */
static void proc_walk_children(struct proc_priv *p)
{
	char buf[4096];
	_Alignas(struct dirent64) char dents[4096];
	proc_track(p, p->root);
	for (int i = 0; i < p->ntr; i++) {
		int fd = proc_kept(p, &p->tr[i], PROC_FD_TASK), own = fd < 0;
		if (own) {
			char path[64];
			snprintf(path, sizeof path, "/proc/%d/task", (int)p->tr[i].pid);
			fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else if (lseek(fd, 0, SEEK_SET) != 0) {
			continue;
		}
		if (fd < 0)
			continue;
		ssize_t n;
		while ((n = getdents64(fd, dents, sizeof dents)) > 0)
			for (ssize_t at = 0; at < n;) {
				const struct dirent64 *e = (const struct dirent64 *)(dents + at);
				at += e->d_reclen;
				if (!isdigit((unsigned char)e->d_name[0]) ||
				    proc_children(p, &p->tr[i], strtol(e->d_name, NULL, 10), buf,
						  sizeof buf) <= 0)
					continue;
				for (char *c = buf, *end; *c; c = end) {
					long kid = strtol(c, &end, 10);
					if (end == c)
						break;
					proc_track(p, (pid_t)kid);
				}
			}
		if (own)
			close(fd);
	}
}

/* /proc/PID/statm (k = PROC_FD_STATM) or io (PROC_FD_IO) of a tracked
 * process into buf: through a kept descriptor (one pread) while the budget
 * lasts, by open/read/close for the rest. */
static int proc_read_file(struct proc_priv *p, struct proc_tracked *t, int k, char *buf,
			  size_t len)
{
	if (proc_kept(p, t, k) < 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/%s", (int)t->pid, k ? "io" : "statm");
		return proc_slurp(path, buf, len);
	}
	ssize_t n = pread(t->fd[k], buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

static void proc_measure(struct proc_priv *p)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t rss = 0, io[PROC_NIO] = {0}, procs = 0;
	char buf[1024];
	for (int i = 0; i < p->ntr; i++) {
		struct proc_tracked *t = &p->tr[i];
		/* "size resident shared ...": strtoul, as sscanf costs more than
		 * the read */
		char *end = buf, *at = buf;
		unsigned long res = 0, size = 0;
		if (proc_read_file(p, t, PROC_FD_STATM, buf, sizeof buf) > 0) {
			size = strtoul(buf, &end, 10);
			if (end != buf)
				res = strtoul(at = end, &end, 10);
		}
		if (end == at) {
			/* Gone.  Its I/O is not lost: when a process is reaped the
			 * kernel adds its I/O counts to its parent's (wait_task_zombie),
			 * which /proc/PID/io includes. */
			proc_untrack(p, i--);
			continue;
		}
		/* a zombie (no memory: the command exited, not reaped yet, at
		 * the last row) is no process, but its I/O counts are final */
		rss += (uint64_t)res * (uint64_t)page;
		procs += size > 0;
		if (proc_read_file(p, t, PROC_FD_IO, buf, sizeof buf) > 0) {
			static const char *const keys[PROC_NIO] = {"read_bytes:", "write_bytes:",
								   "rchar:", "wchar:"};
			for (int k = 0; k < PROC_NIO; k++) {
				const char *key = strstr(buf, keys[k]);
				if (!key)
					continue;
				key += strlen(keys[k]);
				unsigned long long v = strtoull(key, &end, 10);
				if (end != key && v >= t->io[k])
					t->io[k] = v;
			}
		}
		for (int k = 0; k < PROC_NIO; k++)
			io[k] += t->io[k];
	}
	pthread_mutex_lock(&p->lock);
	p->pub_rss = rss;
	p->pub_procs = procs;
	for (int k = 0; k < PROC_NIO; k++) {
		uint64_t v = io[k];
		if (v > p->pub_io[k])
			p->pub_io[k] = v;
	}
	p->pub_seq++;
	pthread_mutex_unlock(&p->lock);
}

/* The PID given to the newest task on the machine: /proc/loadavg's last
 * field ("0.20 0.18 0.12 1/80 11206"), or -1. */
static long proc_last_pid(struct proc_priv *p)
{
	char buf[128];
	ssize_t n = p->load_fd >= 0 ? pread(p->load_fd, buf, sizeof buf - 1, 0) : -1;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *sp = strrchr(buf, ' ');
	return sp ? strtol(sp + 1, NULL, 10) : -1;
}

/* One period of the tree work: new processes, then the sums published. */
static void proc_pass(struct proc_priv *p)
{
	if (p->children) {
		/* No task created anywhere since the last two walks (the newest
		 * PID is the same): no new child either.  Two: a fork takes its
		 * PID a moment before the child shows in its parent's children
		 * file, so the walk right after a change may miss it; the next
		 * one cannot. */
		long last = proc_last_pid(p);
		if (last < 0 || last != p->walked_pid || !p->walk_settled) {
			proc_walk_children(p);
			p->walk_settled = last >= 0 && last == p->walked_pid;
			p->walked_pid = last;
		}
	} else if (p->since_scan >= p->every) {
		/* A scan reads every /proc/PID/stat (~1 ms on a quiet node):
		 * back off to 8 s while the tree stays the same. */
		int before = p->ntr;
		proc_rescan(p);
		p->every = p->ntr > before ? 1000000000LL
			 : p->every < 8000000000LL ? p->every * 2 : p->every;
		p->since_scan = 0;
	}
	proc_measure(p);
	p->since_scan += p->period_ns;
}

static void *proc_main(void *arg)
{
	struct proc_priv *p = arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&p->lock);
	while (!p->stopping) {
		pthread_mutex_unlock(&p->lock);
		proc_pass(p);
		int64_t ns = next.tv_nsec + p->period_ns;
		next.tv_sec += (time_t)(ns / 1000000000LL);
		next.tv_nsec = (long)(ns % 1000000000LL);
		pthread_mutex_lock(&p->lock);
		/* Sleep a period; src_proc_stop wakes us at once. */
		while (!p->stopping && pthread_cond_timedwait(&p->wake, &p->lock, &next) == 0)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* The helper thread, with every signal blocked: they are the sampling
 * thread's (mcrec.c), and the helper's reads are never interrupted. */
static void proc_thread_start(struct proc_priv *p)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&p->thread, NULL, proc_main, p) == 0)
		p->running = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int64_t proc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int src_proc_start(rec_source *s, const rec_ctx *c)
{
	struct proc_priv *p = s->priv;
	char path[64];
	p->root = c->child;
	p->interval_ns = c->interval_ns;
	p->period_ns = c->interval_ns < c->slow_ns ? c->slow_ns : c->interval_ns;
	if (p->root <= 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)p->root, (int)p->root);
	/* MCREC_PROC_SCAN=1: the fallback even here (tests) */
	p->children = access(path, R_OK) == 0 && !getenv("MCREC_PROC_SCAN");
	p->since_scan = 1LL << 62;
	p->every = 1000000000LL;
	if (p->children)
		p->inline_pass = 1; /* the first pass with the first row */
	else
		proc_thread_start(p);
	return 0;
}

/* A pass of the tree work for this row, on the sampling thread while the
 * tree is small and the pass short, else handed to the helper for good. */
static void proc_tree_inline(struct proc_priv *p)
{
	if (!p->inline_pass)
		return;
	int64_t t = proc_now();
	proc_pass(p);
	int64_t end = proc_now();
	p->slow = end - t > p->interval_ns / 10 ? p->slow + 1 : 0;
	if (p->slow >= 2 || p->ntr > PROC_KEEP_FDS / 2) {
		p->inline_pass = 0;
		proc_thread_start(p);
	}
}

/* ---- the sampling thread ------------------------------------------------ */

static ssize_t proc_pread(struct proc_priv *p, int fd)
{
	ssize_t n = fd >= 0 ? pread(fd, p->buf, p->buflen - 1, 0) : -1;
	p->buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* One "cpuN user nice system idle iowait irq softirq steal ..." line:
 * strtoull by hand, as sscanf costs more than the rest of the tick. */
static int proc_cpu_line(const char *line, int *cpu, uint64_t *busy, uint64_t *total)
{
	char *end;
	if (line[0] != 'c' || line[1] != 'p' || line[2] != 'u' || line[3] < '0' || line[3] > '9')
		return -1;
	*cpu = (int)strtol(line + 3, &end, 10);
	uint64_t f[8] = {0};
	for (int k = 0; k < 8; k++) {
		const char *at = end;
		f[k] = strtoull(at, &end, 10);
		if (end == at)
			return -1;
	}
	*total = 0;
	for (int k = 0; k < 8; k++)
		*total += f[k];
	*busy = *total - f[3] - f[4];
	return 0;
}

static int proc_read_stat(struct proc_priv *p, mcz_value *v, uint8_t *present)
{
	if (proc_pread(p, p->stat_fd) <= 0)
		return 0;
	char *line = strchr(p->buf, '\n'); /* skip the "cpu " total line */
	while (line && *++line) {
		int cpu;
		uint64_t busy, total;
		if (proc_cpu_line(line, &cpu, &busy, &total) == 0 && cpu >= 0 && cpu < p->ncpus) {
			uint64_t dt = total - p->prev_total[cpu], db = busy - p->prev_busy[cpu];
			if (p->have_prev && total >= p->prev_total[cpu] && busy >= p->prev_busy[cpu]) {
				v[cpu].f = dt ? 100.0 * (double)db / (double)dt : 0.0;
				present[cpu] = 1;
			}
			p->prev_total[cpu] = total;
			p->prev_busy[cpu] = busy;
		} else if (strncmp(line, "ctxt ", 5) == 0) {
			v[p->ncpus].u = strtoull(line + 5, NULL, 10);
			present[p->ncpus] = 1;
			break; /* the per-CPU lines and ctxt are all we need */
		}
		line = strchr(line, '\n');
	}
	p->have_prev = 1;
	return 0;
}

static int src_proc_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	struct proc_priv *p = s->priv;
	size_t at = 0;
	if (p->node) {
		proc_read_stat(p, v, present);
		at = (size_t)p->ncpus + 1;
		if (proc_pread(p, p->mem_fd) > 0) {
			const char *t = strstr(p->buf, "MemTotal:"), *a = strstr(p->buf, "MemAvailable:");
			if (t && a) {
				uint64_t total = strtoull(t + 9, NULL, 10), avail = strtoull(a + 13, NULL, 10);
				v[at].u = (total > avail ? total - avail : 0) * 1024;
				present[at] = 1;
			}
		}
		at++;
	}
	proc_tree_inline(p);
	/* a pass's sums in one row only: a row the tree was not measured for
	 * holds none */
	pthread_mutex_lock(&p->lock);
	if (p->pub_seq != p->read_seq) {
		p->read_seq = p->pub_seq;
		v[at].u = p->pub_rss;
		v[at + 1].u = p->pub_procs;
		for (int k = 0; k < PROC_NIO; k++)
			v[at + 2 + k].u = p->pub_io[k];
		memset(present + at, 1, 2 + PROC_NIO);
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static void src_proc_stop(rec_source *s)
{
	struct proc_priv *p = s->priv;
	if (p && p->running) {
		pthread_mutex_lock(&p->lock);
		p->stopping = 1;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		p->running = 0;
	}
}

static void src_proc_free(rec_source *s)
{
	struct proc_priv *p = s->priv;
	if (!p)
		return;
	src_proc_stop(s);
	if (p->stat_fd >= 0)
		close(p->stat_fd);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	if (p->load_fd >= 0)
		close(p->load_fd);
	while (p->ntr)
		proc_untrack(p, 0);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p->buf), free(p->prev_busy), free(p->prev_total), free(p->tr);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_proc_ops = {
	"proc", "os", src_proc_probe, src_proc_streams, src_proc_start,
	src_proc_read, src_proc_stop, src_proc_free, NULL, NULL, NULL, NULL,
};
