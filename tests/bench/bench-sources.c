/* bench-sources.c: what one tick costs in each mcrec source, so a user can
 * see what a 1 ms interval costs: every source of the registry is set up as
 * mcrec sets it up (probe, streams, start on a child that sleeps), then its
 * read() is timed over many ticks paced at a 2 ms interval ($BENCH_INTERVAL_MS);
 * the table gives
 * the median, mean and p99 µs per tick on the sampling thread, the mean's
 * share of a 1 ms and a 10 ms interval (the mean: a source may do its slow
 * reads only every few ticks), and the share of values present (the pcp source
 * drops a pmcd answer that misses its tick's budget).  Beside the pcp
 * source, the bare libpcp pmFetch of the same metrics (the reference: the
 * round trip any PMAPI client such as pmval pays) shows where its time goes.
 *
 *   bench-sources [TICKS]        (default 1000; BENCH_QUICK=1: 200)
 *   BENCH_INTERVAL_MS=10 bench-sources
 *
 * Events: the sources' defaults with every group, plus
 * pcp:$BENCH_PCP_METRICS (default four kernel/network/memory metrics) and
 * papi:perf::TASK-CLOCK,perf::PAGE-FAULTS.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "../../recorder/rec.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void row(const char *name, const char *nstreams, int64_t *t, int n, double present)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += (double)t[i];
	qsort(t, (size_t)n, sizeof *t, cmp64);
	double med = (double)t[n / 2] / 1e3, p99 = (double)t[(n * 99) / 100] / 1e3, mean = sum / n / 1e3;
	printf("%-34s %8s %10.1f %10.1f %10.1f %9.2f%% %9.3f%% %8.1f%%\n", name, nstreams, med, mean, p99,
	       mean / 10.0, mean / 100.0, present * 100);
}

static long long bench_interval_ns = 2000000LL; /* $BENCH_INTERVAL_MS, default 2 */
#define BENCH_INTERVAL_NS bench_interval_ns

/* Sleep until the next tick of a 2 ms clock (absolute deadlines). */
static void tick_wait(struct timespec *next)
{
	next->tv_nsec += BENCH_INTERVAL_NS;
	while (next->tv_nsec >= 1000000000L) {
		next->tv_nsec -= 1000000000L;
		next->tv_sec++;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

/* The reference: pmFetch alone, on the same metrics, n times. */
static void bench_pmfetch(const char *list, int n, int64_t *t)
{
	char buf[1024], *save = NULL;
	const char *names[32];
	pmID ids[32];
	int k = 0, ctx = pmNewContext(PM_CONTEXT_HOST, "local:");

	if (ctx < 0) {
		printf("%-34s unavailable: no pmcd\n", "libpcp pmFetch alone");
		return;
	}
	snprintf(buf, sizeof buf, "%s", list);
	for (char *m = strtok_r(buf, ",", &save); m && k < 32; m = strtok_r(NULL, ",", &save))
		names[k++] = m;
	if (pmLookupName(k, names, ids) < 0) {
		printf("%-34s unavailable: names\n", "libpcp pmFetch alone");
		pmDestroyContext(ctx);
		return;
	}
	struct timespec next;
	int ok = 0;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int i = 0; i < n; i++) {
		pmResult *r;
		tick_wait(&next);
		int64_t a = now_ns();
		if (pmFetch(k, ids, &r) >= 0) {
			pmFreeResult(r);
			ok++;
		}
		t[i] = now_ns() - a;
	}
	pmDestroyContext(ctx);
	row("  reference: bare pmFetch, same", "-", t, n, (double)ok / n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : (getenv("BENCH_QUICK") ? 200 : 1000);
	const char *pcpm = getenv("BENCH_PCP_METRICS");
	char pcpbuf[1024];
	const char *pcpev[33], *papiev[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS", NULL };
	int64_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof *t);
	mcz_value *v = calloc(65536, sizeof *v);
	uint8_t *pr = calloc(65536, 1);
	int np = 0;
	pid_t child;

	if (n <= 0 || !t || !v || !pr)
		return 2;
	if (getenv("BENCH_INTERVAL_MS") && atof(getenv("BENCH_INTERVAL_MS")) > 0)
		bench_interval_ns = (long long)(atof(getenv("BENCH_INTERVAL_MS")) * 1e6);
	if (!pcpm)
		pcpm = "kernel.percpu.cpu.user,network.interface.in.bytes,kernel.all.load,mem.util.used";
	snprintf(pcpbuf, sizeof pcpbuf, "%s", pcpm);
	for (char *save = NULL, *m = strtok_r(pcpbuf, ",", &save); m && np < 32; m = strtok_r(NULL, ",", &save))
		pcpev[np++] = m;
	pcpev[np] = NULL;

	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	printf("cost of one tick per source on the sampling thread, %d ticks at %.3g ms (median, mean, p99;\n"
	       "the mean's share of a 1 ms / 10 ms interval; values present)\n", n, (double)bench_interval_ns / 1e6);
	printf("%-34s %8s %10s %10s %10s %10s %10s %9s\n", "source", "streams", "med us", "mean us", "p99 us", "of 1ms",
	       "of 10ms", "present");
	for (size_t i = 0; rec_registry[i]; i++) {
		const rec_source_ops *ops = rec_registry[i];
		rec_source s;
		rec_ctx c;
		rec_streams st = { 0 };
		char label[64];
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		memset(&s, 0, sizeof s);
		memset(&c, 0, sizeof c);
		s.ops = ops;
		c.ncpus = ncpu > 0 ? (int)ncpu : 1;
		c.groups = REC_G_ALL;
		c.interval_ns = BENCH_INTERVAL_NS;
		c.node_streams = 1;
		if (!strcmp(ops->name, "pcp"))
			c.events = pcpev;
		if (!strcmp(ops->name, "papi"))
			c.events = papiev;
		if (ops->probe(&s, &c) != 0 || ops->streams(&s, &c, &st) != 0) {
			printf("%-34s unavailable here: %.90s\n", ops->name, s.why);
			if (ops->free && s.priv)
				ops->free(&s);
			rec_streams_clear(&st);
			continue;
		}
		c.child = child;
		if (ops->start && ops->start(&s, &c) != 0) {
			printf("%-34s cannot start: %.90s\n", ops->name, s.why);
		} else if (st.n == 0) {
			printf("%-34s %8d (nothing to read by default)\n", ops->name, 0);
		} else {
			struct timespec next;
			uint64_t have = 0;
			clock_gettime(CLOCK_MONOTONIC, &next);
			for (int k = 0; k < n; k++) {
				tick_wait(&next);
				memset(pr, 0, st.n); /* as the recorder's rows: present only if set */
				int64_t a = now_ns();
				ops->read(&s, v, pr);
				t[k] = now_ns() - a;
				for (size_t j = 0; j < st.n; j++)
					have += pr[j];
			}
			char ns[24];
			snprintf(label, sizeof label, "%s%s", ops->name,
				 !strcmp(ops->name, "rapl") && getenv("MCREC_POWERCAP_DIR") ? " (tmpfs files, not sysfs)"
				 : !strcmp(ops->name, "nvml") && getenv("MCREC_NVML_LIB") ? " (stand-in lib, no driver)" : "");
			snprintf(ns, sizeof ns, "%zu", st.n);
			row(label, ns, t, n, (double)have / ((double)n * (double)st.n));
			if (!strcmp(ops->name, "pcp"))
				bench_pmfetch(pcpm, n, t);
		}
		if (ops->stop)
			ops->stop(&s);
		if (ops->free)
			ops->free(&s);
		rec_streams_clear(&st);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	free(t), free(v), free(pr);
	return 0;
}
