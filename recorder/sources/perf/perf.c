/* perf.c: the perf source — per-CPU counters of the recorded command (or of
 * the whole machine with -a) through perf_event_open(2), and memory
 * read/write bytes from the memory controllers' uncore PMUs.
 *
 * Counters are opened on the child's pid, one per CPU, before it execs, with
 * `enable_on_exec` (they start at its exec) and `inherit` (its threads and
 * children count too).  Each tick reads every descriptor (value, time
 * enabled, time running; a multiplexed counter is scaled up as perf stat
 * does).  Memory traffic takes the best path there is: uncore IMC/UMC CAS
 * counts (64 B each), else an estimate from LLC load/store misses x 64 B
 * flagged MCZ_SF_ESTIMATED, else nothing and --list says why.
 *
 * Streams: core.<event> per CPU (instance "cpuN", bound to PU N), and
 * mem.read_bytes / mem.write_bytes for the machine.
 */
#include "../mcsrc.h"
#include "../memtraffic.h"
#include "perf-event.h"
#include "perf-scale.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { PERF_MAX_EV = 64, PERF_MAX_IMC = 32 };

/* One stream: the sum of nfd descriptors from fd[first]. */
struct perf_stream {
	int first, nfd;
	int want;       /* index in perf_priv.want */
	uint64_t last;
};

/* One event to open, on cpus (all, or the uncore cpumask). */
struct perf_want {
	src_perf_ev ev;
	int mem;        /* 1 read, 2 write: an aggregated mem.* stream */
	double scale;
	const char *note;
	uint16_t flags;
	int fd_first;   /* its first descriptor in perf_priv.fd (one per CPU) */
	int nfd;        /* how many */
};

struct perf_priv {
	struct perf_want want[PERF_MAX_EV + 2 * PERF_MAX_IMC];
	int nwant;
	int *fd;
	int nfd;
	uint64_t (*raw)[3]; /* per fd: value, time enabled, time running */
	double *factor;     /* per want: multiplexing correction of this tick */
	struct perf_stream *st;
	int nst;
	int ncpus, system_wide;
	/* Software events of one CPU form a group read with one read(2):
	 * per CPU the leader's fd, and the raw indexes of its members. */
	int ngrp, grpn;           /* groups, members per group */
	int *grp_leader;          /* [ngrp] */
	int *grp_idx;             /* [ngrp * grpn] raw index of each member */
	uint8_t *grouped;         /* [nfd] 1: read through its group */
	uint64_t *grpbuf;
};

static int perf_open_attr(const src_perf_ev *ev, pid_t pid, int cpu, int enable_on_exec,
			  int group_fd, int group)
{
	struct perf_event_attr a;
	src_perf_event_attr(ev, pid > 0, enable_on_exec, group_fd < 0, group, &a);
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int perf_open(const src_perf_ev *ev, pid_t pid, int cpu, int enable_on_exec)
{
	return perf_open_attr(ev, pid, cpu, enable_on_exec, -1, 0);
}

/* Software events never compete for PMU counters, so grouping them cannot
 * stop them counting: one read per CPU instead of one per event.  Hardware
 * events stay apart (a group larger than the counters would never count). */
static int perf_groupable(const struct perf_priv *p, const struct perf_want *w)
{
	return !w->ev.hw && !w->ev.uncore && !w->mem && w->ev.type == PERF_TYPE_SOFTWARE &&
	       w->nfd == p->ncpus;
}

/* Open the software events as one group per CPU; 0, or -1 (errno set) to
 * fall back to single events. */
static int perf_open_groups(struct perf_priv *p, const int *cpus, pid_t pid, int eoe)
{
	int nmem = 0;
	for (int i = 0; i < p->nwant; i++)
		nmem += perf_groupable(p, &p->want[i]);
	if (nmem < 2)
		return 0;
	p->grpn = nmem;
	p->ngrp = p->ncpus;
	p->grp_leader = malloc(sizeof *p->grp_leader * (size_t)p->ngrp);
	p->grp_idx = malloc(sizeof *p->grp_idx * (size_t)(p->ngrp * nmem));
	p->grouped = calloc((size_t)p->nfd, 1);
	p->grpbuf = malloc(sizeof *p->grpbuf * (size_t)(3 + nmem));
	if (!p->grp_leader || !p->grp_idx || !p->grouped || !p->grpbuf)
		return -1;
	for (int k = 0; k < p->ngrp; k++) {
		int m = 0, leader = -1;
		for (int i = 0; i < p->nwant; i++) {
			struct perf_want *w = &p->want[i];
			if (!perf_groupable(p, w))
				continue;
			int fd = perf_open_attr(&w->ev, pid, cpus[k], eoe, leader, 1);
			if (fd < 0)
				return -1;
			if (leader < 0)
				leader = fd;
			p->fd[w->fd_first + k] = fd;
			p->grouped[w->fd_first + k] = 1;
			p->grp_idx[k * nmem + m++] = w->fd_first + k;
		}
		p->grp_leader[k] = leader;
	}
	return 0;
}

static void perf_close_all(struct perf_priv *p)
{
	for (int i = 0; p && i < p->nfd; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]), p->fd[i] = -1;
	if (p)
		p->ngrp = 0;
}

/* Why an open failed, for the user, and what to do. */
static void perf_explain(const src_perf_ev *ev, int err, char *why, size_t wl, char *fix, size_t fl)
{
	int paranoid = src_mcsrc_paranoid();
	if (err == EACCES || err == EPERM) {
		snprintf(why, wl, "%s: kernel.perf_event_paranoid=%d forbids it", ev->name, paranoid);
		snprintf(fix, fl, "run 'sysctl kernel.perf_event_paranoid=%d' as root, or use the pcp "
			 "source (pmcd's perfevent agent)", ev->uncore ? 0 : 1);
	} else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || (err == EINVAL && ev->hw)) {
		if (ev->hw && access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
		    access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0)
			snprintf(why, wl, "%s: no hardware PMU (this CPU or virtual machine exposes "
				 "no hardware counters: /sys/bus/event_source/devices/cpu is missing)",
				 ev->name);
		else
			snprintf(why, wl, "%s: not supported here (%s)", ev->name, strerror(err));
		snprintf(fix, fl, "on a VM, ask for a virtual PMU (e.g. KVM '-cpu host,pmu=on'); "
			 "software events (task-clock, page-faults...) still work");
	} else if (err == EMFILE) {
		snprintf(why, wl, "%s: too many open files", ev->name);
		snprintf(fix, fl, "raise the limit ('ulimit -n 65536') or choose fewer events with -e");
	} else {
		snprintf(why, wl, "%s: perf_event_open: %s", ev->name, strerror(err));
		snprintf(fix, fl, "see 'perf stat -e %s true'", ev->name);
	}
}

/* Can this event be opened here (on ourselves, or system-wide)? 0 or errno. */
static int perf_try_once(const src_perf_ev *ev, int system_wide)
{
	int fd = (ev->uncore || system_wide) ? perf_open(ev, -1, ev->uncore ? ev->cpus[0] : 0, 0)
					     : perf_open(ev, 0, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static const char *perf_user_note(void)
{
	return "user space only (kernel.perf_event_paranoid forbids kernel counts)";
}

/* Events counted on the kernel's side: nothing left of them in user space. */
static int perf_kernel_side(const src_perf_ev *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
						  ev->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/* Can this event be opened here?  0 or errno.  Refused to an unprivileged
 * user (perf_event_paranoid 2), a counter of the command falls back to user
 * space only, as perf stat does (":u"), and ev->user_only says so. */
static int perf_try(src_perf_ev *ev, int system_wide)
{
	int e = perf_try_once(ev, system_wide);
	if ((e == EACCES || e == EPERM) && !ev->user_only && !ev->uncore && !system_wide &&
	    !perf_kernel_side(ev)) {
		ev->user_only = 1;
		int e2 = perf_try_once(ev, system_wide);
		if (e2 == 0)
			return 0;
		ev->user_only = 0;
		if (e2 != EACCES && e2 != EPERM)
			return e2; /* the real reason (e.g. no such counter here) */
	}
	return e;
}

/* Append a sentence to the source's note (why) or fix, cut to fit. */
static void perf_note(char *dst, size_t len, const char *fmt, ...)
{
	size_t at = strlen(dst);
	va_list ap;
	if (at && at + 3 < len)
		memcpy(dst + at, "; ", 3), at += 2;
	va_start(ap, fmt);
	vsnprintf(dst + at, len - at, fmt, ap);
	va_end(ap);
}

static int perf_add_want(struct perf_priv *p, const src_perf_ev *ev, int mem, double scale,
			 const char *note, uint16_t flags)
{
	if (p->nwant == (int)(sizeof p->want / sizeof p->want[0]))
		return -1;
	p->want[p->nwant++] = (struct perf_want){*ev, mem, scale, note, flags, 0, 0};
	return 0;
}

static int src_perf_probe(rec_source *s, const rec_ctx *c)
{
	src_perf_ev tc;
	char err[200];
	src_perf_event_parse("task-clock", NULL, &tc, err, sizeof err);
	int e = perf_try(&tc, c->system_wide);
	if (e) {
		char why[256], fix[256];
		perf_explain(&tc, e, why, sizeof why, fix, sizeof fix);
		return rec_unavailable(s, why, fix);
	}
	struct perf_priv *p = calloc(1, sizeof *p);
	if (!p)
		return rec_unavailable(s, "out of memory", "");
	p->ncpus = c->ncpus;
	p->system_wide = c->system_wide;
	s->priv = p;
	return 0;
}

/* Memory traffic: uncore, else the LLC-miss estimate, else a note why not. */
static void perf_want_mem(rec_source *s, struct perf_priv *p, const rec_ctx *c)
{
	static src_perf_ev rd[PERF_MAX_IMC], wr[PERF_MAX_IMC];
	/* recorder/sources/memtraffic.c decides the path for every source */
	const rec_mem_choice *mc = rec_memtraffic_choose(c);
	if (mc->path == REC_MEM_PCP || (mc->path == REC_MEM_NONE && getenv("MCREC_MEM_PATH"))) {
		perf_note(s->why, sizeof s->why, "mem.read_bytes/mem.write_bytes: not from perf (%s)", mc->why);
		return;
	}
	/* Uncore counts the whole node: only the node's first recorder takes it. */
	int n = mc->path == REC_MEM_LLC_ESTIMATE || !c->node_streams
			? 0 : src_perf_event_imc(getenv("MCREC_SYSFS"), rd, wr, PERF_MAX_IMC);
	int e = n ? perf_try(&rd[0], 1) : ENOENT;
	if (n && e == 0) {
		for (int i = 0; i < n; i++) {
			/* cas_count_* carry .scale in MiB per CAS; a CAS moves 64 B. */
			perf_add_want(p, &rd[i], 1, 64.0, "uncore memory controller CAS x 64 B", 0);
			perf_add_want(p, &wr[i], 2, 64.0, "uncore memory controller CAS x 64 B", 0);
		}
		return;
	}
	char why[256], fix[256];
	if (n) {
		perf_explain(&rd[0], e, why, sizeof why, fix, sizeof fix);
		perf_note(s->why, sizeof s->why, "mem.read_bytes: uncore counters refused (%s); "
			  "using the estimate if it exists", why);
	}
	src_perf_ev lr, ls;
	char err[200];
	src_perf_event_parse("LLC-load-misses", NULL, &lr, err, sizeof err);
	src_perf_event_parse("LLC-store-misses", NULL, &ls, err, sizeof err);
	lr.group = ls.group = REC_G_MEM;
	if ((e = perf_try(&lr, c->system_wide)) == 0) {
		const char *note = "estimate: LLC load misses x 64 B (no uncore memory-controller PMU)";
		perf_add_want(p, &lr, 1, 64.0, note, MCZ_SF_ESTIMATED);
		if (perf_try(&ls, c->system_wide) == 0)
			perf_add_want(p, &ls, 2, 64.0,
				      "estimate: LLC store misses x 64 B (no uncore memory-controller PMU)",
				      MCZ_SF_ESTIMATED);
		return;
	}
	perf_explain(&lr, e, why, sizeof why, fix, sizeof fix);
	perf_note(s->why, sizeof s->why, "mem.read_bytes/mem.write_bytes not recorded: no uncore "
		  "memory-controller PMU and no LLC-miss counter");
	perf_note(s->fix, sizeof s->fix, "for memory traffic use the pcp source (perfevent)");
}

static int perf_want_defaults(rec_source *s, struct perf_priv *p, const rec_ctx *c)
{
	int n;
	const src_perf_ev *def = src_perf_event_defaults(&n);
	int hw_missing = 0, first_err = 0;
	int user_only = 0, kernel_side = 0;
	for (int i = 0; i < n; i++) {
		src_perf_ev ev = def[i];
		if (!(ev.group & c->groups))
			continue;
		int e = perf_try(&ev, c->system_wide);
		if (e) {
			if (ev.hw)
				hw_missing++, first_err = first_err ? first_err : e;
			else if ((e == EACCES || e == EPERM) && perf_kernel_side(&ev))
				kernel_side++;
			continue;
		}
		user_only |= ev.user_only;
		perf_add_want(p, &ev, 0, ev.scale, ev.user_only ? perf_user_note() : "",
			      MCZ_SF_PERCPU);
	}
	if (user_only || kernel_side) {
		perf_note(s->why, sizeof s->why, "counting user space only (kernel.perf_event_paranoid="
			  "%d)%s", src_mcsrc_paranoid(), kernel_side ? "; context switches and CPU "
			  "migrations, counted in the kernel, not recorded" : "");
		perf_note(s->fix, sizeof s->fix, "'sysctl kernel.perf_event_paranoid=1' (as root) "
			  "counts the kernel side too");
	}
	if (hw_missing) {
		char why[256], fix[256];
		src_perf_ev probe;
		char err[200];
		src_perf_event_parse("instructions", NULL, &probe, err, sizeof err);
		perf_explain(&probe, first_err, why, sizeof why, fix, sizeof fix);
		perf_note(s->why, sizeof s->why, "hardware events (cycles, instructions, cache and "
			  "branch misses) not recorded: %s", why + strlen("instructions: "));
		perf_note(s->fix, sizeof s->fix, "%s", fix);
	}
	if (c->groups & REC_G_MEM)
		perf_want_mem(s, p, c);
	return 0;
}

static int perf_want_named(rec_source *s, struct perf_priv *p, const rec_ctx *c)
{
	for (const char *const *e = c->events; *e; e++) {
		src_perf_ev ev;
		char err[256], why[256], fix[256];
		if (src_perf_event_parse(*e, getenv("MCREC_SYSFS"), &ev, err, sizeof err))
			return rec_unavailable(s, err, "see 'mcrec --list' and 'perf list'");
		int rc = perf_try(&ev, c->system_wide);
		/* A PMU without per-task counting (msr, uncore without cpumask):
		 * count it system-wide on every CPU. */
		if (rc && !ev.hw && perf_try(&ev, 1) == 0) {
			ev.uncore = 1; /* count system-wide on every CPU */
			ev.ncpus = 0;
			rc = 0;
		}
		if (rc) {
			perf_explain(&ev, rc, why, sizeof why, fix, sizeof fix);
			return rec_unavailable(s, why, fix);
		}
		perf_add_want(p, &ev, 0, ev.scale,
			      ev.uncore ? "system-wide" : ev.user_only ? perf_user_note() : "",
			      ev.uncore ? 0 : MCZ_SF_PERCPU);
	}
	return 0;
}

/* The CPUs a wanted event is opened on. */
static int perf_cpus(const struct perf_priv *p, const struct perf_want *w, int *cpus)
{
	if (w->ev.uncore && w->ev.ncpus > 0) {
		memcpy(cpus, w->ev.cpus, sizeof(int) * (size_t)w->ev.ncpus);
		return w->ev.ncpus;
	}
	for (int i = 0; i < p->ncpus && i < SRC_PERF_MAXCPU; i++)
		cpus[i] = i;
	return p->ncpus < SRC_PERF_MAXCPU ? p->ncpus : SRC_PERF_MAXCPU;
}

static int src_perf_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	struct perf_priv *p = s->priv;
	int rc = c->events ? perf_want_named(s, p, c) : perf_want_defaults(s, p, c);
	if (rc)
		return rc;
	static int cpus[SRC_PERF_MAXCPU];
	int nst = 0, nfd = 0;
	for (int i = 0; i < p->nwant; i++) {
		int n = perf_cpus(p, &p->want[i], cpus);
		nfd += n;
		nst += p->want[i].mem ? 0 : (p->want[i].ev.uncore ? 1 : n);
	}
	nst += 2;
	p->fd = malloc(sizeof *p->fd * (size_t)(nfd ? nfd : 1));
	p->raw = calloc((size_t)(nfd ? nfd : 1), sizeof *p->raw);
	p->factor = calloc((size_t)(p->nwant ? p->nwant : 1), sizeof *p->factor);
	p->st = calloc((size_t)nst, sizeof *p->st);
	if (!p->fd || !p->st || !p->raw || !p->factor)
		return rec_unavailable(s, "out of memory", "");
	for (int i = 0; i < nfd; i++)
		p->fd[i] = -1;
	p->nfd = nfd;

	/* Pass 0: per-CPU and uncore events; passes 1 and 2: mem.read_bytes
	 * and mem.write_bytes, each the sum of its boxes' adjacent fds. */
	int at = 0;
	for (int pass = 0; pass < 3; pass++) {
		struct perf_stream *memst = NULL;
		for (int i = 0; i < p->nwant; i++) {
			struct perf_want *w = &p->want[i];
			if (w->mem != pass)
				continue;
			int n = perf_cpus(p, w, cpus);
			mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
			char native[128], inst[32];
			snprintf(native, sizeof native, "perf:%s%s", w->ev.name, w->ev.user_only ? ":u" : "");
			w->fd_first = at;
			w->nfd = n;
			d.source = "perf";
			d.native = native;
			d.kind = MCZ_COUNTER;
			d.type = MCZ_U64;
			d.note = w->note ? w->note : "";
			d.flags = w->flags;
			d.name = pass == 1 ? "mem.read_bytes" : pass == 2 ? "mem.write_bytes" : w->ev.stream;
			d.unit = pass ? "B" : w->ev.unit;
			d.scale = w->scale;
			if (!pass && strcmp(w->ev.unit, "MiB") == 0)
				d.unit = "B", d.scale *= 1048576.0;
			d.topo = c->topo_machine ? c->topo_machine() : -1;
			if (pass && memst) { /* another box of the same stream */
				memst->nfd += n;
				at += n;
				continue;
			}
			if (pass || w->ev.uncore) {
				struct perf_stream *m = &p->st[p->nst++];
				m->first = at, m->nfd = n, m->want = i, at += n;
				memst = pass ? m : NULL;
				if (rec_streams_add(out, &d))
					return rec_unavailable(s, "out of memory", "");
				continue;
			}
			for (int k = 0; k < n; k++) {
				struct perf_stream *m = &p->st[p->nst++];
				m->first = at++, m->nfd = 1, m->want = i;
				snprintf(inst, sizeof inst, "cpu%d", cpus[k]);
				d.instance = inst;
				d.topo = c->topo_pu ? c->topo_pu(cpus[k]) : -1;
				if (rec_streams_add(out, &d))
					return rec_unavailable(s, "out of memory", "");
			}
		}
	}
	return 0;
}

static int src_perf_start(rec_source *s, const rec_ctx *c)
{
	struct perf_priv *p = s->priv;
	static int cpus[SRC_PERF_MAXCPU];
	int sw_all = p->system_wide || !c->child;
	perf_cpus(p, &(struct perf_want){0}, cpus);
	if (perf_open_groups(p, cpus, sw_all ? -1 : c->child, !sw_all) != 0) {
		perf_close_all(p); /* a kernel refusing groups: one fd per event */
		free(p->grouped);
		p->grouped = NULL;
	}
	for (int i = 0; i < p->nwant; i++) {
		struct perf_want *w = &p->want[i];
		int n = perf_cpus(p, w, cpus);
		int sw = sw_all || w->ev.uncore;
		for (int k = 0; k < n; k++) {
			if (p->fd[w->fd_first + k] >= 0)
				continue; /* opened in a group */
			int fd = perf_open(&w->ev, sw ? -1 : c->child, cpus[k], !sw);
			if (fd < 0) {
				char why[256], fix[256];
				perf_explain(&w->ev, errno, why, sizeof why, fix, sizeof fix);
				return rec_unavailable(s, why, fix);
			}
			p->fd[w->fd_first + k] = fd;
		}
	}
	return 0;
}

/* Multiplexing correction of one event this tick: system-wide and uncore
 * counters each fd alone (0), counters of the command one factor over their
 * CPUs (perf-scale.h). */
static double perf_factor(const struct perf_priv *p, const struct perf_want *w, int n)
{
	if (p->system_wide || w->ev.uncore)
		return 0;
	return src_perf_task_factor((const uint64_t(*)[3])p->raw + w->fd_first, n);
}

static int src_perf_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	struct perf_priv *p = s->priv;
	for (int i = 0; i < p->nfd; i++)
		if (p->grouped && p->grouped[i])
			continue;
		else if (p->fd[i] < 0 || read(p->fd[i], p->raw[i], sizeof p->raw[i]) != (ssize_t)sizeof p->raw[i])
			p->raw[i][0] = p->raw[i][1] = p->raw[i][2] = UINT64_MAX;
	/* Group layout: nr, time enabled, time running, then one value each. */
	ssize_t glen = (ssize_t)(sizeof *p->grpbuf * (size_t)(3 + p->grpn));
	for (int k = 0; k < p->ngrp; k++) {
		int ok = read(p->grp_leader[k], p->grpbuf, (size_t)glen) == glen &&
			 p->grpbuf[0] == (uint64_t)p->grpn;
		for (int j = 0; j < p->grpn; j++) {
			uint64_t *r = p->raw[p->grp_idx[k * p->grpn + j]];
			r[0] = ok ? p->grpbuf[3 + j] : UINT64_MAX;
			r[1] = ok ? p->grpbuf[1] : UINT64_MAX;
			r[2] = ok ? p->grpbuf[2] : UINT64_MAX;
		}
	}
	for (int i = 0; i < p->nwant; i++)
		p->factor[i] = perf_factor(p, &p->want[i], p->want[i].nfd);
	for (int k = 0; k < p->nst; k++) {
		struct perf_stream *m = &p->st[k];
		double f = p->factor[m->want];
		uint64_t sum = 0;
		int ok = 1;
		for (int j = 0; j < m->nfd; j++) {
			uint64_t c;
			if (src_perf_scaled(p->raw[m->first + j], f, &c) < 0) {
				ok = 0;
				continue;
			}
			sum += c;
		}
		if (sum < m->last) /* a scaled estimate may step back: keep it monotonic */
			sum = m->last;
		m->last = sum;
		v[k].u = sum;
		present[k] = (uint8_t)ok;
	}
	return 0;
}

static void src_perf_stop(rec_source *s)
{
	perf_close_all(s->priv);
}

static void src_perf_free(rec_source *s)
{
	struct perf_priv *p = s->priv;
	if (!p)
		return;
	src_perf_stop(s);
	free(p->fd);
	free(p->grp_leader), free(p->grp_idx), free(p->grouped), free(p->grpbuf);
	free(p->raw);
	free(p->factor);
	free(p->st);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_perf_ops = {
	"perf", "core,mem", src_perf_probe, src_perf_streams, src_perf_start,
	src_perf_read, src_perf_stop, src_perf_free, NULL, NULL, NULL, NULL,
};
