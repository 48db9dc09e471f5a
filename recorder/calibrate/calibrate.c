/* calibrate.c: mcrec --calibrate — measure the machine's ceilings for the
 * roofline (memory bandwidth and double-precision FLOP/s), print them as a
 * table, and keep them in the per-host cache (ceilcache.c) from which every
 * later recording takes them into its metadata.
 *
 * What is measured, in under 30 s (../shared/papers/004: the "throughput
 * mode" microbenchmarks): bandwidth with every allowed CPU streaming its
 * own arrays (triad and read, calibrate-bw.c), per NUMA domain (the CPUs
 * of that node) and for the node as a whole; peak FLOP/s with FMA chains
 * (calibrate-flops.c), scalar and at the widest SIMD width, on one core
 * and on all.  Nothing comes from a vendor table: a figure that could not
 * be measured is not written.
 */
#include "calibrate.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { CAL_MAX_CPUS = 4096, CAL_MAX_NODES = 64 };

/* The CPUs this process may run on, in order. */
static int cal_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;
	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		for (int i = 0; i < c && n < max; i++)
			cpus[n++] = i;
		return n;
	}
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

/* CPUs of NUMA node `node` that are also in all[0..n): from sysfs cpulist
 * ("0-3,8-11"; under $MCREC_SYSFS instead of /sys when set, as the
 * sources do).  Returns how many, 0 when the node does not exist. */
static int cal_node_cpus(int node, const int *all, int n, int *out)
{
	char path[1200], buf[4096];
	const char *root = getenv("MCREC_SYSFS"); /* tests: a fixture tree for /sys */
	snprintf(path, sizeof path, "%.1100s/devices/system/node/node%d/cpulist", root ? root : "/sys",
		 node);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int k = 0;
	if (fgets(buf, sizeof buf, f)) {
		for (char *p = buf; *p && *p != '\n';) {
			char *end;
			long a = strtol(p, &end, 10), b = a;
			if (end == p)
				break;
			p = end;
			if (*p == '-') {
				b = strtol(p + 1, &end, 10);
				p = end;
			}
			for (long c = a; c <= b && c < CAL_MAX_CPUS; c++)
				for (int i = 0; i < n; i++)
					if (all[i] == c)
						out[k++] = (int)c;
			if (*p == ',')
				p++;
		}
	}
	fclose(f);
	return k;
}

static char *cal_si(char *buf, size_t len, double v, const char *unit)
{
	static const char pre[] = " kMGTP";
	int k = 0;
	while (v >= 1000 && k < 5)
		v /= 1000, k++;
	snprintf(buf, len, "%.3g %c%s", v, pre[k], unit);
	return buf;
}

int rec_calibrate_run(FILE *out, int quiet)
{
	static int cpus[CAL_MAX_CPUS], node[CAL_MAX_CPUS];
	rec_ceilings c;
	char path[4096], err[512], a[32], b[32];
	memset(&c, 0, sizeof c);
	if (rec_ceilcache_path(path, sizeof path, 1, err, sizeof err)) {
		fprintf(stderr, "mcrec: --calibrate: %s\n", err);
		return 1;
	}
	int64_t t0 = rec_clock_now();
	int n = cal_cpus(cpus, CAL_MAX_CPUS);
	if (n < 1) {
		fprintf(stderr, "mcrec: --calibrate: no CPU to run on\n");
		return 1;
	}
	int simd = rec_calibrate_flops_widest(), nnodes = 0;
	for (int d = 0; d < CAL_MAX_NODES; d++)
		nnodes += cal_node_cpus(d, cpus, n, node) > 0;
	rec_ceilcache_key(c.key, sizeof c.key);
	if (!quiet)
		fprintf(out, "mcrec --calibrate: %d CPUs, %d NUMA domain%s, widest SIMD %s (%s)\n", n,
			nnodes, nnodes == 1 ? "" : "s", rec_calibrate_flops_name(simd), c.key);

	/* compute: 4 x at most 0.6 s */
	c.flops_1core = rec_calibrate_flops(cpus, 1, simd, 0.6);
	c.flops = rec_calibrate_flops(cpus, n, simd, 0.6);
	c.flops_scalar_1core = rec_calibrate_flops(cpus, 1, REC_SIMD_SCALAR, 0.6);
	c.flops_scalar = rec_calibrate_flops(cpus, n, REC_SIMD_SCALAR, 0.6);
	/* All CPUs do at least what one does (the others idle): on a machine
	 * shared while measuring, the all-CPU run may come out below the
	 * one-core run, which a reader refuses (format/meta/roof.c) */
	if (c.flops < c.flops_1core)
		c.flops = c.flops_1core;
	if (c.flops_scalar < c.flops_scalar_1core)
		c.flops_scalar = c.flops_scalar_1core;

	/* memory: arrays far larger than the caches, within a memory budget */
	double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	double budget = mem / 4 < 3.0 * (1 << 30) ? mem / 4 : 3.0 * (1 << 30);
	size_t per = (size_t)(budget / 3 / n);
	if (per > (size_t)64 << 20)
		per = (size_t)64 << 20;
	if (per < (size_t)8 << 20)
		per = (size_t)8 << 20;
	double bw_s = 20.0 / (2.0 * (nnodes > 1 ? nnodes + 1 : 1));
	if (bw_s > 1.5)
		bw_s = 1.5;
	rec_calib_bw all = {-1, -1};
	size_t at = 0;
	for (int d = 0; nnodes > 1 && d < CAL_MAX_NODES; d++) {
		int k = cal_node_cpus(d, cpus, n, node);
		rec_calib_bw nb = {-1, -1};
		if (k < 1 || rec_calibrate_bw(node, k, per, bw_s, &nb))
			continue;
		int w = snprintf(c.numa + at, sizeof c.numa - at, "%snuma%d triad %.4g read %.4g", at ? "; " : "",
				 d, nb.triad_Bps, nb.read_Bps);
		at += w > 0 && (size_t)w < sizeof c.numa - at ? (size_t)w : 0;
	}
	if (rec_calibrate_bw(cpus, n, per, bw_s, &all) == 0) {
		c.bw_triad = all.triad_Bps;
		c.bw_read = all.read_Bps;
		if (nnodes <= 1)
			snprintf(c.numa, sizeof c.numa, "numa0 triad %.4g read %.4g (the only domain)",
				 all.triad_Bps, all.read_Bps);
	}
	if (!(c.bw_triad > 0) || !(c.flops > 0) || !(c.flops_1core > 0) || !(c.flops_scalar > 0) ||
	    !(c.flops_scalar_1core > 0) || !(c.bw_read > 0)) {
		fprintf(stderr, "mcrec: --calibrate: a measurement failed (out of memory or threads); "
				"nothing cached\n");
		return 1;
	}
	snprintf(c.simd, sizeof c.simd, "%s", rec_calibrate_flops_name(simd));
	snprintf(c.method, sizeof c.method,
		 "measured by mcrec --calibrate: memory = STREAM triad a=b+s*c (24 B/element) and "
		 "read (8 B/element), %d threads pinned one per CPU, 3 x %zu MiB arrays each, best "
		 "repetition; FP = FMA on 12 independent chains (2 flop each), %s and scalar, 1 "
		 "thread and %d, best repetition",
		 n, per >> 20, c.simd, n);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(c.when, sizeof c.when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	double took = (double)(rec_clock_now() - t0) * 1e-9;
	if (rec_ceilcache_write(path, &c, err, sizeof err)) {
		fprintf(stderr, "mcrec: --calibrate: %s\n", err);
		return 1;
	}
	if (!quiet) {
		fprintf(out, "  memory   triad, all %d CPUs        %12s\n", n, cal_si(a, sizeof a, c.bw_triad, "B/s"));
		fprintf(out, "           read, all %d CPUs         %12s\n", n, cal_si(a, sizeof a, c.bw_read, "B/s"));
		fprintf(out, "           per domain: %s\n", c.numa);
		fprintf(out, "  compute  %-6s FMA, 1 core         %12s\n", c.simd,
			cal_si(a, sizeof a, c.flops_1core, "FLOP/s"));
		fprintf(out, "           %-6s FMA, all %d CPUs     %12s\n", c.simd, n,
			cal_si(a, sizeof a, c.flops, "FLOP/s"));
		fprintf(out, "           scalar FMA, 1 core         %12s\n",
			cal_si(a, sizeof a, c.flops_scalar_1core, "FLOP/s"));
		fprintf(out, "           scalar FMA, all %d CPUs     %12s\n", n,
			cal_si(b, sizeof b, c.flops_scalar, "FLOP/s"));
		fprintf(out, "  ridge point %.3g flop/byte; took %.1f s; cached in %s\n", c.flops / c.bw_triad,
			took, path);
		fprintf(out, "  (measured while this machine runs whatever else it runs: calibrate on an "
			     "idle node)\n");
	}
	return 0;
}
