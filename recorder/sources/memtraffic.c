/* memtraffic.c: choosing the memory-traffic path (see memtraffic.h).
 *
 * The order is DESIGN.md's: (1) uncore memory-controller counters the
 * kernel exposes (uncore_imc*, amd_umc*: the boxes perf-event.c knows),
 * counted through perf when we may open them system-wide (root, CAP_PERFMON
 * or perf_event_paranoid <= 0).  PAPI's perf_event_uncore component reads
 * the very same kernel PMUs through the same system call, so "uncore via
 * PAPI" is this path; PAPI uncore events can still be named with -e
 * papi:...; (2) a pmcd
 * whose perfevent PMDA exports memory-controller events: pmcd reads them
 * with its privileges, which is how an ordinary user gets them (the paper's
 * Summit setup); (3) last-level-cache misses x 64 B from per-core counters,
 * an estimate (flagged so); (4) none.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "memtraffic.h"
#include "pcp/pcp-metrics.h"
#include "perf/perf-event.h"

/* snprintf that may truncate on purpose (long reasons are cut, not lost). */
__attribute__((format(printf, 3, 4))) static void mem_fmt(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, len, fmt, ap);
	va_end(ap);
}

static rec_mem_choice mem_cached;
static int mem_have;

const char *rec_memtraffic_path_name(rec_mem_path p)
{
	switch (p) {
	case REC_MEM_PERF_UNCORE: return "perf-uncore";
	case REC_MEM_PCP: return "pcp";
	case REC_MEM_LLC_ESTIMATE: return "llc-estimate";
	default: return "none";
	}
}

void rec_memtraffic_reset(void)
{
	mem_have = 0;
}

/* Lower-case copy with every run of non-alphanumerics turned into '_'. */
static void mem_norm(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (; *in && k + 1 < len; in++) {
		char ch = *in;
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
			ch = '_';
		if (ch == '_' && k && out[k - 1] == '_')
			continue;
		out[k++] = ch;
	}
	out[k] = '\0';
}

int rec_memtraffic_pcp_match(const char *metric, double *bytes)
{
	/* Intel server IMC (CAS per 64 B line), Intel client IMC
	 * (data_reads/data_writes, 64 B), IBM POWER9 nest MBA
	 * (PM_MBAx_READ_BYTES counts 64 B units, see the paper's Fig. 2). */
	static const char *const rd[] = { "cas_count_rd", "cas_count_read", "data_reads", "read_bytes" };
	static const char *const wr[] = { "cas_count_wr", "cas_count_write", "data_writes", "write_bytes" };
	char n[256];

	if (strncmp(metric, "perfevent.hwcounters.", 21) != 0)
		return 0;
	mem_norm(metric + 21, n, sizeof n);
	*bytes = 64.0;
	for (size_t i = 0; i < sizeof rd / sizeof rd[0]; i++)
		if (strstr(n, rd[i]))
			return 1;
	for (size_t i = 0; i < sizeof wr / sizeof wr[0]; i++)
		if (strstr(n, wr[i]))
			return 2;
	return 0;
}

/* Open ev once (system-wide on its first CPU for uncore, else on this
 * process) to see whether the kernel lets us count it; errno-style result. */
static int mem_try_open(const src_perf_ev *ev, int system_wide)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = ev->type;
	a.config = ev->config;
	a.config1 = ev->config1;
	a.config2 = ev->config2;
	a.disabled = 1;
	if (ev->uncore || system_wide)
		fd = (int)syscall(SYS_perf_event_open, &a, -1, ev->uncore ? ev->cpus[0] : 0, -1, PERF_FLAG_FD_CLOEXEC);
	else
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int mem_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

typedef struct mem_walk {
	rec_mem_choice *m;
} mem_walk;

static void mem_pcp_leaf(const char *name, void *arg)
{
	rec_mem_choice *m = ((mem_walk *)arg)->m;
	double bytes;
	int dir = rec_memtraffic_pcp_match(name, &bytes);

	if (!dir || m->npcp >= REC_MEM_MAX_METRICS)
		return;
	snprintf(m->pcp[m->npcp].name, sizeof m->pcp[0].name, "%s", name);
	m->pcp[m->npcp].write = dir == 2;
	m->pcp[m->npcp].bytes = bytes;
	m->npcp++;
}

/* Ask the pmcd (local, or --pcp-host) for memory metrics.  Returns 0 if
 * some were found, else -1 with a reason in why. */
static int mem_try_pcp(rec_mem_choice *m, const rec_ctx *c, char *why, size_t len)
{
	const char *host = (c && c->pcp_host) ? c->pcp_host : "local:";
	const char *user = getenv("MCREC_PCP_MEM_METRICS");
	mem_walk w = { m };
	char err[PM_MAXERRMSGLEN];
	int ctx, rc;

	/* the local pmcd's configuration runs no perfevent agent: it has no
	 * perfevent.hwcounters, known without libpcp (pcp-agents.c) */
	static const char *const pe[] = {"perfevent"};
	if (!(user && *user) && !strcmp(host, "local:") && src_pcp_local_agents(pe, 1) == 0) {
		snprintf(why, len, "pmcd at %s has no perfevent.hwcounters (its pmcd.conf runs no "
			 "perfevent agent; install the perfevent PMDA)", host);
		return -1;
	}
	if ((ctx = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
		snprintf(why, len, "no pmcd at %s (%s)", host, pmErrStr_r(ctx, err, sizeof err));
		return -1;
	}
	m->npcp = 0;
	if (user && *user) {
		m->npcp = rec_memtraffic_spec_parse(user, m->pcp, REC_MEM_MAX_METRICS);
	} else if ((rc = pmTraversePMNS_r("perfevent.hwcounters", mem_pcp_leaf, &w)) < 0) {
		snprintf(why, len, "pmcd at %s has no perfevent.hwcounters (%s; install the perfevent PMDA)",
			 host, pmErrStr_r(rc, err, sizeof err));
		pmDestroyContext(ctx);
		return -1;
	}
	pmDestroyContext(ctx);
	if (m->npcp == 0) {
		snprintf(why, len, "pmcd at %s exports no memory-controller events in perfevent.hwcounters", host);
		return -1;
	}
	mem_fmt(m->note, sizeof m->note, "pmcd at %s, sum of %d metrics (%s%s) x %g B", host, m->npcp, m->pcp[0].name,
		m->npcp > 1 ? ", ..." : "", m->pcp[0].bytes);
	return 0;
}

static void mem_append(char *why, size_t len, const char *line)
{
	size_t used = strlen(why);
	if (used < len)
		snprintf(why + used, len - used, "%s%s", used ? "; " : "", line);
}

const rec_mem_choice *rec_memtraffic_choose(const rec_ctx *c)
{
	rec_mem_choice *m = &mem_cached;
	const char *force = getenv("MCREC_MEM_PATH");
	char line[300], rejected[600] = "";

	if (mem_have)
		return m;
	memset(m, 0, sizeof *m);
	mem_have = 1;
	if (force && !*force)
		force = NULL;

	if (!force || !strcmp(force, "perf")) {
		/* the same boxes the perf source opens (perf-event.c) */
		src_perf_ev rd[4], wr[4];
		int n = src_perf_event_imc(getenv("MCREC_SYSFS"), rd, wr, 4), e = n ? mem_try_open(&rd[0], 1) : ENOENT;
		if (n && e == 0) {
			m->path = REC_MEM_PERF_UNCORE;
			snprintf(m->pmu, sizeof m->pmu, "%.*s", (int)strcspn(rd[0].name, "/"), rd[0].name);
			mem_fmt(m->note, sizeof m->note, "perf uncore memory controller %s (%d boxes) CAS x 64 B", m->pmu, n);
			mem_fmt(m->why, sizeof m->why, "memory traffic: perf-uncore (%s)", m->note);
			return m;
		}
		if (n)
			mem_fmt(line, sizeof line, "uncore %s refused (%s; perf_event_paranoid=%d: 'sysctl kernel.perf_event_paranoid=0' or CAP_PERFMON)",
				 rd[0].name, strerror(e), mem_paranoid());
		else
			snprintf(line, sizeof line, "no uncore memory-controller PMU (uncore_imc*, amd_umc*) in /sys/bus/event_source/devices");
		mem_append(rejected, sizeof rejected, line);
	}
	if (!force || !strcmp(force, "pcp")) {
		if (mem_try_pcp(m, c, line, sizeof line) == 0) {
			m->path = REC_MEM_PCP;
			mem_fmt(m->why, sizeof m->why, "memory traffic: pcp (%s)%s%s", m->note,
				 rejected[0] ? "; not uncore: " : "", rejected);
			return m;
		}
		mem_append(rejected, sizeof rejected, line);
	}
	if (!force || !strcmp(force, "llc")) {
		src_perf_ev lr;
		char err[200];
		int e = src_perf_event_parse("LLC-load-misses", getenv("MCREC_SYSFS"), &lr, err, sizeof err) == 0
				? mem_try_open(&lr, c ? c->system_wide : 0)
				: ENOENT;
		if (e == 0) {
			m->path = REC_MEM_LLC_ESTIMATE;
			snprintf(m->note, sizeof m->note, "estimate: LLC misses x 64 B");
			mem_fmt(m->why, sizeof m->why, "memory traffic: llc-estimate (%s)", rejected);
			return m;
		}
		mem_fmt(line, sizeof line, "no LLC-miss counter (%s)",
			 access("/sys/bus/event_source/devices/cpu", F_OK) ? "no hardware PMU: a VM?" : strerror(e));
		mem_append(rejected, sizeof rejected, line);
	}
	m->path = REC_MEM_NONE;
	mem_fmt(m->why, sizeof m->why, "memory traffic: none (%s)", rejected);
	return m;
}
