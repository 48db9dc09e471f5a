/* code.c: the `code` source — where the command runs.  The software event
 * cpu-clock (no PMU needed) samples the instruction pointer of the command
 * and of its threads and children (inherit, one event per CPU as the
 * kernel wants for an mmap'd inherited event, user space only as
 * perf_event_paranoid 2 allows), from its exec on.  A thread of this source
 * drains the perf ring buffers (samples, MMAP2, FORK, COMM records) into
 * the profile of code-prof.c; at the end of the recording the profile is
 * symbolized (code-sym.c) and written as the file's CODE block, so the file
 * names its code without the binaries.  Its one stream, code.samples,
 * counts the samples per tick.
 *
 * The thread drains when a ring passes its watermark, and every 100 ms
 * while the rings hold records: the sampling thread looks at their heads
 * after its row (idle(), memory reads) and wakes the thread through an
 * eventfd, so a command that runs no code (sleep, a wait on I/O) costs no
 * wake-up at all, where a poll timeout would wake it ten times a second.
 *
 *     mcrec --code-hz 1000 -- ./app          (default 1000 Hz per thread)
 *     mcrec --code-event cycles -- ./app     (where there is a PMU)
 *     mcrec --call-graph fp -- ./app         (callers, by frame pointers)
 *     mcrec --call-graph dwarf -- ./app      (callers of code without them:
 *                                             stacks copied, code-unwind.c)
 *     mcrec -g core,mem -- ./app             (no code: not in the groups)
 */
#include "../mcsrc.h"
#include "code-prof.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Data pages of each ring (a power of two), plus the header page.  Two
 * CPUs at 1 kHz fill 32 KiB/s each: 16 pages last 2 s, and the rings of 64
 * CPUs stay within the default perf_event_mlock_kb of an unprivileged user
 * only with fewer pages, which code_start tries next. */
#define CODE_PAGES 16
/* With --call-graph dwarf each sample is ~8 KiB (its stack copy): a CPU
 * at 1 kHz fills 8 MiB/s, and 128 pages (512 KiB, what
 * perf_event_mlock_kb's default 516 gives an unprivileged user per CPU,
 * and perf record's own rings) last 64 ms, drained each 16 ms at their
 * watermark. */
#define CODE_PAGES_DWARF 128
/* How often the rings are looked at (and drained when they hold records). */
#define CODE_LOOK_NS 100000000LL
/* code.samples counts the samples by their own times (code_late): in bins
 * of CODE_BIN_NS, a ring of CODE_BINS of them from the first bin not yet
 * written (26 s: the writer thread is never that far behind the drain). */
#define CODE_BIN_NS 100000LL
#define CODE_BINS (1 << 18)

typedef struct code_ring {
	int fd;
	void *base;
	size_t len;
	uint64_t tail;     /* data_tail once the round's records are parsed */
} code_ring;

/* A record of a drain round: in its ring, or at off in the round's buf. */
typedef struct code_rec {
	const uint8_t *at;
	size_t off;
} code_rec;

typedef struct code_priv {
	unsigned hz;
	const struct code_event *ev;
	code_ring *rings;
	int nrings;
	pthread_t thr;
	int thr_on;
	int kick;          /* eventfd: the sampling thread wakes the drain thread */
	int64_t due;       /* idle(): the next look at the rings, CLOCK_MONOTONIC */
	int failed;        /* start could not sample: the recording goes on without */
	volatile int stop;
	pthread_mutex_t lock; /* prof: the drain thread's rounds against the writer's parts */
	code_prof prof;
	size_t objs_parted; /* objects written in CODEPART blocks */
	size_t thr_parted;  /* threads written in CODEPART blocks */
	size_t frames_parted; /* stack frames written in CODEPARTSTACKS blocks */
	int64_t t_start, interval_ns;
	unsigned stack;    /* --call-graph dwarf: user stack bytes per sample */
	int pages;         /* data pages of each ring */
	uint64_t samples;  /* for read(): written by the drain thread */
	/* code.samples by the samples' times (code_late), the drain thread's
	 * rounds against the writer thread's rows */
	pthread_mutex_t cnt_lock;
	pthread_cond_t cnt_moved; /* a round has counted its samples */
	uint32_t *bins;           /* samples per CODE_BIN_NS, bin b at b % CODE_BINS */
	int64_t bin0;             /* the first bin not yet in a written row */
	uint64_t written;         /* samples before bin0 (and those drained late) */
	int64_t counted_at;       /* every sample before this time is in the bins */
	int cnt_done;             /* the rings are closed: nothing more will come */
	uint8_t *buf;      /* the records of one drain round that wrapped */
	size_t buflen, bufcap;
	code_rec *recs;    /* the records of one drain round */
	size_t nrecs, caprecs;
} code_priv;

/* 1 when a seccomp filter is on this process (containers). */
static int code_seccomp(void)
{
	char line[128];
	int on = 0;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			on = atoi(line + 8) == 2;
	if (f)
		fclose(f);
	return on;
}

/* The events --code-event may name: the clocks count ns and are sampled
 * every 1e9 / hz of them; the hardware ones at hz per second (the kernel
 * adjusts their period), where there is a PMU. */
static const struct code_event {
	const char *name;
	uint32_t type;
	uint64_t config;
	int hw;
} code_events[] = {
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1},
};

static const struct code_event *code_event_of(const char *name)
{
	for (size_t i = 0; i < sizeof code_events / sizeof code_events[0]; i++)
		if (!strcmp(code_events[i].name, name ? name : "cpu-clock"))
			return &code_events[i];
	return NULL;
}

static void code_attr(struct perf_event_attr *a, const struct code_event *ev, unsigned hz,
		      int task, size_t data_bytes, int callgraph, unsigned stack)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = ev->type;
	a->config = ev->config;
	if (ev->hw) {
		a->freq = 1;
		a->sample_freq = hz ? hz : 1;
	} else {
		a->sample_period = 1000000000ULL / (hz ? hz : 1); /* the clocks count ns */
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (callgraph == REC_CG_DWARF) {
		/* the registers the call frame information names, and the top
		 * of the user stack from sp: unwound by code-unwind.c */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = CODE_UNWIND_REGS;
		a->sample_stack_user = stack;
	} else if (callgraph) {
		/* frame pointers: the whole user-space chain, for the stacks */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = 1;
		a->sample_max_stack = 127; /* RING_MAX_STACK of code-prof.c */
	}
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (task) {
		a->disabled = 1;
		a->enable_on_exec = 1;
		a->inherit = 1;
	}
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data_bytes / 4);
}

static int code_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int code_probe(rec_source *s, const rec_ctx *c)
{
	unsigned hz = c->code_hz ? c->code_hz : 1000;
	const struct code_event *ev = code_event_of(c->code_event);
	char why[256];
	if (!ev) {
		snprintf(why, sizeof why, "unknown --code-event '%s'", c->code_event);
		return rec_unavailable(s, why, "cpu-clock, task-clock, cycles or instructions");
	}
	struct perf_event_attr a;
	code_attr(&a, ev, hz, 0, 4096, c->code_callgraph, c->code_stack);
	int fd = code_open(&a, 0, -1);
	if (fd < 0) {
		int e = errno;
		int par = src_mcsrc_paranoid();
		if (ev->hw && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL)) {
			snprintf(why, sizeof why, "--code-event %s: no hardware PMU here (%s)", ev->name,
				 strerror(e));
			return rec_unavailable(s, why, "sample with the default --code-event cpu-clock "
					       "(a software event: no PMU needed)");
		}
		if ((e == EACCES || e == EPERM) && par > 2) {
			snprintf(why, sizeof why, "kernel.perf_event_paranoid=%d forbids sampling (at most "
				 "2 lets a user sample their own programs)", par);
			return rec_unavailable(s, why, "run 'sysctl kernel.perf_event_paranoid=2' as root");
		}
		if ((e == EACCES || e == EPERM || e == ENOSYS) && code_seccomp()) {
			snprintf(why, sizeof why, "perf_event_open: %s (a seccomp filter forbids it: "
				 "Seccomp: 2 in /proc/self/status)", strerror(e));
			return rec_unavailable(s, why, "allow perf_event_open in the container's seccomp "
					       "profile (docker: --security-opt seccomp=unconfined, or "
					       "--cap-add PERFMON on a profile that allows it)");
		}
		if (e == EACCES || e == EPERM) {
			snprintf(why, sizeof why, "perf_event_open: %s (kernel.perf_event_paranoid=%d)",
				 strerror(e), par);
			return rec_unavailable(s, why, "run 'sysctl kernel.perf_event_paranoid=2' as root");
		}
		if (c->code_callgraph == REC_CG_DWARF && e == EINVAL) {
			snprintf(why, sizeof why, "--call-graph dwarf: the kernel does not copy user "
				 "registers and stacks (%s)", strerror(e));
			return rec_unavailable(s, why, "--call-graph fp, on code built with "
					       "-fno-omit-frame-pointer");
		}
		snprintf(why, sizeof why, "perf_event_open(%s): %s", ev->name, strerror(e));
		return rec_unavailable(s, why, "see 'perf record -e cpu-clock true'");
	}
	close(fd);
	if (c->system_wide && !c->child)
		s->why[0] = 0;
	long max = src_mcsrc_read_long("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	if (max > 0 && hz > (unsigned long)max)
		src_mcsrc_fmt(s->why, sizeof s->why, "--code-hz %u is above "
			      "kernel.perf_event_max_sample_rate=%ld: the kernel may throttle it", hz, max);
	return 0;
}

static int code_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	unsigned hz = c->code_hz ? c->code_hz : 1000;
	code_priv *p = calloc(1, sizeof *p);
	if (!p)
		return rec_unavailable(s, "out of memory", "");
	p->hz = hz;
	p->ev = code_event_of(c->code_event);
	/* callchain: the profile has stacks, from the kernel's chain or unwound */
	p->prof.callchain = c->code_callgraph != 0;
	p->prof.dwarf = c->code_callgraph == REC_CG_DWARF;
	p->stack = c->code_stack;
	p->interval_ns = c->interval_ns;
	p->prof.unknown_obj = UINT32_MAX;
	p->prof.keep_fresh = 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->cnt_lock, NULL);
	pthread_cond_init(&p->cnt_moved, NULL);
	p->kick = -1;
	s->priv = p;
	char note[200], native[64];
	snprintf(note, sizeof note, "instruction pointer sampled at %u Hz per thread (%s, "
		 "user space); where: the CODE block, symbolized at the end", hz, p->ev->name);
	snprintf(native, sizeof native, "perf:%s", p->ev->name);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "code.samples";
	d.source = "code";
	d.native = native;
	d.unit = "samples";
	d.note = note;
	d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	d.topo = c->topo_machine ? c->topo_machine() : -1;
	if (rec_streams_add(out, &d))
		return rec_unavailable(s, "out of memory", "");
	return 0;
}

/* The records of one ring, read where they are: a record that wraps
 * around the ring's end is copied into p->buf (as an offset until the
 * round's copies are done), the others are parsed in place, and the ring's
 * tail moves past them only after (code_drain): with --call-graph dwarf a
 * sample is 8 KiB, and a copy of each cost the command 1 % more time at
 * 1 kHz in its caches (phased, table 4 of bench-code.sh). */
static void code_drain_ring(code_priv *p, code_ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	const uint8_t *data = (const uint8_t *)r->base + sysconf(_SC_PAGESIZE);
	uint64_t size = r->len - (size_t)sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof h; i++)
			((uint8_t *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof h || h.size > head - tail)
			break;
		if (p->nrecs == p->caprecs) {
			size_t nc = p->caprecs ? p->caprecs * 2 : 4096;
			code_rec *nr = realloc(p->recs, nc * sizeof *nr);
			if (!nr)
				break;
			p->recs = nr, p->caprecs = nc;
		}
		uint64_t at = tail % size;
		if (at + h.size <= size) {
			p->recs[p->nrecs++] = (code_rec){data + at, 0};
		} else {
			if (p->buflen + h.size > p->bufcap) {
				size_t nc = p->bufcap ? p->bufcap * 2 : 65536;
				while (nc < p->buflen + h.size)
					nc *= 2;
				uint8_t *nb = realloc(p->buf, nc);
				if (!nb)
					break;
				p->buf = nb, p->bufcap = nc;
			}
			size_t first = (size_t)(size - at);
			memcpy(p->buf + p->buflen, data + at, first);
			memcpy(p->buf + p->buflen + first, data, h.size - first);
			p->recs[p->nrecs++] = (code_rec){NULL, p->buflen};
			p->buflen += h.size;
		}
		tail += h.size;
	}
	r->tail = tail;
}

/* Time of a record: a sample's TIME field, else the sample_id's (last 8 bytes). */
static uint64_t code_rec_time(const uint8_t *r)
{
	struct perf_event_header h;
	uint64_t t = 0;
	memcpy(&h, r, sizeof h);
	if (h.type == PERF_RECORD_SAMPLE && h.size >= 32)
		memcpy(&t, r + 8 + 16, 8);
	else if (h.type != PERF_RECORD_SAMPLE && h.type != PERF_RECORD_LOST && h.size >= 24)
		memcpy(&t, r + h.size - 8, 8);
	return t;
}

static int code_rec_cmp(const void *a, const void *b)
{
	uint64_t x = code_rec_time(((const code_rec *)a)->at);
	uint64_t y = code_rec_time(((const code_rec *)b)->at);
	return x < y ? -1 : x > y;
}

/* The round's samples into code.samples' bins by their times; every
 * sample taken before `at` (when the round looked at the rings) is in. */
static void code_count(code_priv *p, int64_t at)
{
	pthread_mutex_lock(&p->cnt_lock);
	for (size_t i = 0; p->bins && i < p->nrecs; i++) {
		const uint8_t *r = p->recs[i].at;
		if (((const struct perf_event_header *)r)->type != PERF_RECORD_SAMPLE)
			continue;
		int64_t b = (int64_t)(code_rec_time(r) / CODE_BIN_NS);
		if (b < p->bin0) /* its row is written: it counts in the next */
			p->written++;
		else
			p->bins[(b < p->bin0 + CODE_BINS ? b : p->bin0 + CODE_BINS - 1) % CODE_BINS]++;
	}
	if (at > p->counted_at)
		p->counted_at = at;
	pthread_cond_broadcast(&p->cnt_moved);
	pthread_mutex_unlock(&p->cnt_lock);
}

/* One round: every ring, records in time order (a mapping seen on one CPU
 * before a sample of it on another), then the rings' tails released. */
static void code_drain(code_priv *p)
{
	int64_t at = src_mcsrc_now_ns();
	p->buflen = p->nrecs = 0;
	for (int i = 0; i < p->nrings; i++)
		code_drain_ring(p, &p->rings[i]);
	for (size_t i = 0; i < p->nrecs; i++)
		if (!p->recs[i].at)
			p->recs[i].at = p->buf + p->recs[i].off;
	if (p->nrecs) /* qsort with no records may be given a NULL array */
		qsort(p->recs, p->nrecs, sizeof *p->recs, code_rec_cmp);
	code_count(p, at);
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->nrecs; i++) {
		const uint8_t *r = p->recs[i].at;
		struct perf_event_header h;
		memcpy(&h, r, sizeof h);
		code_prof_record(&p->prof, r, h.size, p->t_start, p->interval_ns);
	}
	code_prof_open_files(&p->prof);
	__atomic_store_n(&p->samples, p->prof.samples, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nrings; i++) {
		struct perf_event_mmap_page *mp = p->rings[i].base;
		__atomic_store_n(&mp->data_tail, p->rings[i].tail, __ATOMIC_RELEASE);
	}
}

/* Wake the drain thread (an eventfd's write fails only past 2^64 - 2). */
static void code_kick(code_priv *p)
{
	uint64_t one = 1;
	while (p->kick >= 0 && write(p->kick, &one, sizeof one) < 0 && errno == EINTR)
		;
}

static void *code_thread(void *arg)
{
	code_priv *p = arg;
	struct pollfd *pf = calloc((size_t)p->nrings + 1, sizeof *pf);
	for (int i = 0; pf && i < p->nrings; i++)
		pf[i] = (struct pollfd){p->rings[i].fd, POLLIN, 0};
	if (pf)
		pf[p->nrings] = (struct pollfd){p->kick, POLLIN, 0};
	while (!p->stop) {
		if (pf) {
			/* without the eventfd, a look every 100 ms */
			poll(pf, (nfds_t)p->nrings + 1, p->kick >= 0 ? -1 : 100);
			uint64_t n; /* the eventfd back to 0 (non-blocking) */
			while ((pf[p->nrings].revents & POLLIN) && read(p->kick, &n, sizeof n) < 0 &&
			       errno == EINTR)
				;
			/* A ring whose task has exited polls POLLHUP at once, for
			 * ever: it is drained below and no longer waited on (a
			 * negative fd is skipped), else the thread spun from the
			 * command's exit to the end of the recording. */
			for (int i = 0; i < p->nrings; i++)
				if (pf[i].fd >= 0 && (pf[i].revents & (POLLHUP | POLLERR | POLLNVAL)))
					pf[i].fd = -1;
		} else {
			usleep(100000);
		}
		code_drain(p);
	}
	free(pf);
	return NULL;
}

/* Sampling could not start: the rest of the recording goes on, and the
 * end of it says why (code_finish). */
static int code_start_failed(rec_source *s, const char *why, const char *fix)
{
	code_priv *p = s->priv;
	rec_unavailable(s, why, fix);
	p->failed = 1;
	return 0;
}

static int code_start(rec_source *s, const rec_ctx *c)
{
	code_priv *p = s->priv;
	long page = sysconf(_SC_PAGESIZE);
	int ncpu = c->ncpus > 0 ? c->ncpus : 1;
	p->rings = calloc((size_t)ncpu, sizeof *p->rings);
	if (!p->rings)
		return code_start_failed(s, "out of memory", "");
	pid_t pid = c->child > 0 ? c->child : -1;
	/* the unwinder holds a descriptor per object per process (64
	 * processes of 70 objects for Open MPI's): as perf record, the soft
	 * limit up to the hard one, for mcrec only (the command is forked) */
	struct rlimit nofile;
	if (p->prof.dwarf && getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		rlim_t up = nofile.rlim_max < 65536 ? nofile.rlim_max : 65536;
		if (up > nofile.rlim_cur) {
			nofile.rlim_cur = up;
			setrlimit(RLIMIT_NOFILE, &nofile);
		}
	}
	int want = p->prof.dwarf ? CODE_PAGES_DWARF : CODE_PAGES;
	for (int pages = want; pages >= 1 && p->nrings == 0; pages /= 2) {
		p->pages = pages;
		size_t len = (size_t)(pages + 1) * (size_t)page;
		int err = 0;
		for (int cpu = 0; cpu < ncpu; cpu++) {
			struct perf_event_attr a;
			code_attr(&a, p->ev, p->hz, pid > 0, (size_t)pages * (size_t)page,
				  p->prof.dwarf ? REC_CG_DWARF : p->prof.callchain ? REC_CG_FP : 0,
				  p->stack);
			a.build_id = 1;
			int fd = code_open(&a, pid, cpu);
			if (fd < 0 && errno == EINVAL) {
				a.build_id = 0; /* before Linux 5.12 */
				fd = code_open(&a, pid, cpu);
			}
			if (fd < 0 && errno == EINVAL && a.sample_max_stack) {
				a.sample_max_stack = 0; /* before Linux 4.8 */
				fd = code_open(&a, pid, cpu);
			}
			if (fd < 0) {
				if (errno == ENODEV || errno == EINVAL)
					continue; /* an offline CPU */
				err = errno;
				break;
			}
			void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (m == MAP_FAILED) {
				err = errno;
				close(fd);
				break;
			}
			p->rings[p->nrings++] = (code_ring){fd, m, len, 0};
		}
		if (!err)
			break;
		for (int i = 0; i < p->nrings; i++)
			munmap(p->rings[i].base, p->rings[i].len), close(p->rings[i].fd);
		p->nrings = 0;
		if (err != EPERM && err != ENOMEM) {
			char why[200];
			snprintf(why, sizeof why, "perf_event_open/mmap: %s", strerror(err));
			return code_start_failed(s, why, "see 'perf record -e cpu-clock true'");
		}
	}
	if (p->nrings == 0)
		return code_start_failed(s, "no perf ring buffer could be mapped "
					 "(kernel.perf_event_mlock_kb)",
					 "raise kernel.perf_event_mlock_kb (as root)");
	p->t_start = src_mcsrc_now_ns();
	p->due = p->t_start + CODE_LOOK_NS;
	p->bins = calloc(CODE_BINS, sizeof *p->bins); /* without: code.samples as drained */
	p->bin0 = p->t_start / CODE_BIN_NS;
	p->counted_at = p->t_start;
	p->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pthread_create(&p->thr, NULL, code_thread, p) == 0)
		p->thr_on = 1;
	return 0;
}

static int code_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	code_priv *p = s->priv;
	v[0].u = __atomic_load_n(&p->samples, __ATOMIC_RELAXED);
	present[0] = 1;
	return 0;
}

static void code_stop(rec_source *s)
{
	code_priv *p = s->priv;
	if (!p)
		return;
	for (int i = 0; i < p->nrings; i++)
		ioctl(p->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	if (p->thr_on) {
		p->stop = 1;
		code_kick(p);
		pthread_join(p->thr, NULL);
		p->thr_on = 0;
	}
	/* under cnt_lock: the writer thread kicks from code_late */
	pthread_mutex_lock(&p->cnt_lock);
	if (p->kick >= 0)
		close(p->kick);
	p->kick = -1;
	pthread_mutex_unlock(&p->cnt_lock);
	if (p->nrings)
		code_drain(p); /* what came after the thread's last round */
	for (int i = 0; i < p->nrings; i++)
		munmap(p->rings[i].base, p->rings[i].len), close(p->rings[i].fd);
	p->nrings = 0;
	pthread_mutex_lock(&p->cnt_lock);
	p->cnt_done = 1;
	pthread_cond_broadcast(&p->cnt_moved);
	pthread_mutex_unlock(&p->cnt_lock);
}

/* code.samples of the row at t_mono: the samples taken before it, by
 * their own times.  read() could give only those drained by then, and
 * the drain runs at its own times (a ring's watermark, a look every
 * CODE_LOOK_NS), so a steady rate came out in bursts.  A row newer than
 * the last round waits for one (kicked now; the writer thread only). */
static void code_late(rec_source *s, int64_t t_mono, mcz_value *v, uint8_t *present)
{
	code_priv *p = s->priv;
	if (!p || !p->bins || !present[0])
		return;
	pthread_mutex_lock(&p->cnt_lock);
	if (p->counted_at < t_mono && !p->cnt_done) {
		code_kick(p);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 2 * CODE_LOOK_NS;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (p->counted_at < t_mono && !p->cnt_done &&
		       pthread_cond_timedwait(&p->cnt_moved, &p->cnt_lock, &until) == 0)
			;
	}
	int64_t end = t_mono / CODE_BIN_NS;
	for (int64_t b = p->bin0; b < end && b < p->bin0 + CODE_BINS; b++) {
		p->written += p->bins[b % CODE_BINS];
		p->bins[b % CODE_BINS] = 0;
	}
	if (end > p->bin0)
		p->bin0 = end;
	v[0].u = p->written;
	pthread_mutex_unlock(&p->cnt_lock);
}

/* After the tick's row, every CODE_LOOK_NS: records waiting in a ring wake
 * the drain thread (an empty ring needs no drain: nothing would change). */
static void code_idle(rec_source *s)
{
	code_priv *p = s->priv;
	if (!p || !p->thr_on || p->kick < 0)
		return;
	int64_t now = src_mcsrc_now_ns();
	if (now < p->due)
		return;
	while (p->due <= now)
		p->due += CODE_LOOK_NS;
	for (int i = 0; i < p->nrings; i++) {
		struct perf_event_mmap_page *mp = p->rings[i].base;
		if (__atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE) !=
		    __atomic_load_n(&mp->data_tail, __ATOMIC_RELAXED)) {
			code_kick(p);
			return;
		}
	}
}

/* The samples since the last part, written unsymbolized as a CODEPART
 * block: the file keeps its code profile however mcrec ends (SIGKILL, a
 * job's time limit, a kill while it symbolizes). */
static int code_sync(rec_source *s, mcz_writer *w, int64_t t0_mono)
{
	code_priv *p = s->priv;
	/* not p->nrings: after stop (0 then) the last cells are still to go */
	if (!p || p->failed)
		return 0;
	pthread_mutex_lock(&p->lock);
	size_t n;
	code_cell *cells = code_prof_take_fresh(&p->prof, &n);
	mcz_code_raw part;
	int rc = n && code_part_make(&p->prof, cells, n, p->t_start - t0_mono, p->interval_ns,
				     &part)
			 ? MCZ_E_NOMEM
			 : 0;
	/* the objects' strings are the profile's: written before they can change */
	if (n && !rc) {
		part.event = p->ev->name;
		part.period = 1000000000ULL / p->hz;
		part.obj_base = p->objs_parted;
		part.thr_base = p->thr_parted;
		part.frame_base = p->frames_parted;
		rc = mcz_writer_code_part(w, &part);
		if (!rc) {
			p->objs_parted = part.nobjects;
			p->thr_parted = part.nthreads;
			p->frames_parted = part.nframes;
		}
		code_part_free(&part);
	}
	pthread_mutex_unlock(&p->lock);
	free(cells);
	return rc;
}

static int code_finish(rec_source *s, mcz_writer *w, int64_t t0_mono, char *msg, size_t msglen)
{
	code_priv *p = s->priv;
	if (!p)
		return 0;
	if (p->failed) {
		snprintf(msg, msglen, "code: not recorded: %s%s%s", s->why, s->fix[0] ? " — " : "",
			 s->fix);
		return 0;
	}
	mcz_code c;
	code_sym_out out;
	if (code_sym_run(&p->prof, p->t_start - t0_mono, p->interval_ns, &c, &out)) {
		code_sym_free(&out);
		snprintf(msg, msglen, "code: out of memory while symbolizing");
		return -1;
	}
	char note[700], lost[200] = "";
	if (p->prof.lost && p->prof.dwarf && p->pages < CODE_PAGES_DWARF)
		snprintf(lost, sizeof lost, "; samples were lost (ring buffer full: %d KiB per CPU, "
			 "fewer than the %d KiB --call-graph dwarf wants; raise "
			 "kernel.perf_event_mlock_kb)", p->pages * 4, CODE_PAGES_DWARF * 4);
	else if (p->prof.lost)
		snprintf(lost, sizeof lost, "; samples were lost (ring buffer full)");
	snprintf(note, sizeof note, "%s%s", out.note, lost);
	c.event = p->ev->name;
	c.period = 1000000000ULL / p->hz; /* ns of CPU time per sample (SPEC.md 5.6) */
	c.note = note[0] == ';' ? note + 2 : note;
	int rc = mcz_writer_code(w, &c);
	char fig[64];
	snprintf(fig, sizeof fig, "%.3f", out.seconds);
	mcz_writer_meta(w, "code_symbolize_s", fig);
	snprintf(fig, sizeof fig, "%llu", (unsigned long long)p->prof.samples);
	mcz_writer_meta(w, "code_samples", fig);
	char dbg[160] = "";
	if (out.dbg_asked) {
		snprintf(dbg, sizeof dbg, " (DEBUGINFOD_URLS: %u debug file%s fetched, %u objects "
			 "opened in %.2f s)", out.dbg_found, out.dbg_found == 1 ? "" : "s", out.dbg_asked,
			 out.dbg_seconds);
		snprintf(fig, sizeof fig, "%.3f", out.dbg_seconds);
		mcz_writer_meta(w, "code_debuginfod_s", fig);
	}
	/* names come only now, from this host: say how, while it can be done */
	const char *urls = getenv("DEBUGINFOD_URLS");
	int how = strstr(c.note, ": stripped") && !(urls && urls[0]);
	/* how far the stacks went: a code without CFI stops them */
	char unw[120] = "";
	uint64_t un, deep, frames;
	code_unwind_figures(p->prof.unwind, &un, &deep, &frames);
	if (p->prof.dwarf && un)
		snprintf(unw, sizeof unw, "; unwound: %.1f %% of the samples to a caller, %.1f "
			 "callers each", 100.0 * (double)deep / (double)un,
			 (double)frames / (double)un);
	snprintf(msg, msglen, "code: %llu samples, %zu addresses, %zu locations, symbolized in "
		 "%.2f s%s%s%s%s%s", (unsigned long long)p->prof.samples, out.naddrs, c.nlocs,
		 out.seconds, dbg, unw, c.note[0] ? "; " : "", c.note,
		 how ? " (to name a stripped object's functions: its debug package, or "
		       "DEBUGINFOD_URLS, see mcrec(1))" : "");
	code_sym_free(&out);
	return rc ? -1 : 0;
}

static void code_free(rec_source *s)
{
	code_priv *p = s->priv;
	if (!p)
		return;
	code_stop(s);
	code_prof_free(&p->prof);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->cnt_lock);
	pthread_cond_destroy(&p->cnt_moved);
	free(p->rings), free(p->buf), free(p->recs), free(p->bins);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_code_ops = {"code", "code", code_probe, code_streams, code_start,
				     code_read, code_stop, code_free, code_finish, code_idle,
				     code_sync, code_late};
