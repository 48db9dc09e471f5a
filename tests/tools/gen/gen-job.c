/* gen-job.c: writes the rank files of a synthetic parallel job, as
 * `mpirun -n N mcrec -o DIR/run.%r.mcz` would leave them, for the job
 * analysis' scale benchmark and tests: per rank the metadata mcrec writes
 * under a launcher (rank, nranks, job, host: `--per-host` ranks a host),
 * the wall clock of its start (ranks start up to 20 ms apart), perf-like
 * task-clock counters per CPU and a few gauges sampled every --interval-ms,
 * and a marked region per phase.  Every rank's phase k lasts --phase-s
 * seconds, except --slow R:K:F (rank R, phase K, F times as long); ranks
 * wait for the slowest between phases (a barrier: idle, no CPU), so the
 * job's phases line up as a real job's do.
 *
 *   gen-job -d DIR [--ranks N] [--phases K] [--phase-s S] [--interval-ms M]
 *           [--cpus C] [--per-host H] [--slow R:K:F] [--job ID] [--seed N]
 *           [--host-skew-ms S] [--code] [--threads T]
 *
 * --host-skew-ms S: host k's clock is k x S ms ahead (its ranks' wall-clock
 * anchors say they started that much later than they did): what the job
 * analysis should estimate back.
 *
 * --code: ranks wait as MPI libraries make them wait, polling — busy CPUs
 * while they wait — and each rank file has a code profile (SPEC.md 5.6,
 * 1 ms samples per interval): its work in the application's "solve_kernel"
 * (two locations), its waiting in libmpi's opal_progress and
 * mca_btl_vader's component_progress, so that only the code samples tell
 * work from waiting.
 *
 * --threads T (with --code; T <= 62): each rank runs T threads and its
 * profile is split by thread (a CODETHREADS block, SPEC.md 5.12), as a
 * hybrid MPI + OpenMP code's: thread 0 as above; the others, while the
 * rank works, 3/5 of their samples in the outlined body
 * "solve_kernel._omp_fn.0" and the rest at libgomp's barriers (sync: the
 * team waits for thread 0), and while thread 0 waits in MPI, all at the
 * barrier.  Each thread has a CPU of its own: the rank has at least T
 * task-clock counters, its CPU time T CPUs'.
 *
 * Same arguments, same files (bit for bit).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../../format/mcz.h"

static uint64_t gj_state = 88172645463325252ull;

static double gj_unit(void) /* [0, 1) */
{
	gj_state ^= gj_state << 13;
	gj_state ^= gj_state >> 7;
	gj_state ^= gj_state << 17;
	return (double)(gj_state >> 11) / 9007199254740992.0;
}

/* The code profile of one rank: per interval its samples of work or of
 * waiting (busy[i]), 1 ms each, of nthr threads (1: not split by thread). */
static int gj_code(mcz_writer *w, int64_t dt, const uint8_t *busy, size_t n, int rank, int nthr)
{
	static const mcz_code_object objs[] = {
		{"/home/user/app/solver", "5a17", ""},
		{"/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2", "", ""},
		{"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so", "", ""},
		{"/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0", "", ""},
	};
	static const mcz_code_loc locs[] = {
		{0, 0x1400, MCZ_CODE_DWARF, "solve_kernel", "", "solver.c", 42},
		{0, 0x1480, MCZ_CODE_DWARF, "solve_kernel", "", "solver.c", 44},
		{1, 0x2fe00, MCZ_CODE_SYMTAB, "opal_progress", "", "", 0},
		{2, 0x4e00, MCZ_CODE_ADDR, "", "", "", 0},
		{0, 0x1600, MCZ_CODE_DWARF, "solve_kernel._omp_fn.0", "", "solver.c", 51},
		{3, 0x1d2c0, MCZ_CODE_SYMTAB, "gomp_barrier_wait_end", "", "", 0},
	};
	/* per interval and thread at most two locations; each interval's hits
	 * the threads' summed, by location */
	size_t nt = (size_t)nthr, per_i = nt > 1 ? 4 : 2;
	int64_t *t = malloc((n + 1) * sizeof *t);
	size_t *first = malloc((n + 1) * sizeof *first);
	mcz_code_hit *hits = malloc((per_i * n + 1) * sizeof *hits);
	mcz_code_thit *th = nt > 1 ? malloc((2 * nt * n + 1) * sizeof *th) : NULL;
	mcz_code_thread *thr = nt > 1 ? malloc(nt * sizeof *thr) : NULL;
	if (!t || !first || !hits || (nt > 1 && (!th || !thr))) {
		free(t), free(first), free(hits), free(th), free(thr);
		return -1;
	}
	for (size_t k = 0; k < nt && thr; k++)
		thr[k] = (mcz_code_thread){(uint32_t)(10000 + rank), (uint32_t)(10000 + rank) + (uint32_t)k};
	uint32_t per = (uint32_t)(dt / 1000000); /* samples an interval, per thread */
	size_t nh = 0, nth = 0;
	for (size_t i = 0; i < n; i++) {
		t[i] = (int64_t)i * dt;
		first[i] = nh;
		uint32_t a = per * 3 / 5, cnt[6] = {0};
		cnt[busy[i] ? 0 : 2] = a;
		cnt[busy[i] ? 1 : 3] = per - a;
		/* thread 0's hits, then the team's: locations increasing in each */
		if (nt > 1) {
			for (uint32_t l = 0; l < 4; l++)
				if (cnt[l])
					th[nth++] = (mcz_code_thit){(uint32_t)i, 0, l, cnt[l]};
			uint32_t work = busy[i] ? a : 0, sync = per - work;
			for (size_t k = 1; k < nt; k++) {
				if (work)
					th[nth++] = (mcz_code_thit){(uint32_t)i, (uint32_t)k, 4, work};
				th[nth++] = (mcz_code_thit){(uint32_t)i, (uint32_t)k, 5, sync};
			}
			cnt[4] = work * (uint32_t)(nt - 1);
			cnt[5] = sync * (uint32_t)(nt - 1);
		}
		for (uint32_t l = 0; l < 6; l++)
			if (cnt[l])
				hits[nh++] = (mcz_code_hit){l, cnt[l]};
	}
	first[n] = nh;
	mcz_code c = {"cpu-clock", 1000000, dt, "", nt > 1 ? 4 : 3, objs, nt > 1 ? 6 : 4, locs, n,
		      t, first, nh, hits, 0, NULL, nt > 1 ? nt : 0, thr, nth, th, 0, NULL, 0, NULL};
	int rc = mcz_writer_code(w, &c);
	free(t), free(first), free(hits), free(th), free(thr);
	return rc == MCZ_OK ? 0 : -1;
}

static int gj_rank(const char *dir, int rank, int nranks, int nph, double phase_s,
		   int64_t dt, int cpus, int per_host, int slow_r, int slow_k, double slow_f,
		   const char *job, double skew_ms, int code, int nthr)
{
	char path[4200], buf[64];
	snprintf(path, sizeof path, "%s/run.%d.mcz", dir, rank);
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	int64_t skew = skew_ms > 0 ? (int64_t)(gj_unit() * 1e6 + (rank / per_host) * skew_ms * 1e6)
				   : (int64_t)(gj_unit() * 20e6);
	o.wall_epoch_ns = 1790000000000000000LL + skew;
	mcz_writer *w;
	int rc = mcz_writer_open(&w, path, &o);
	if (rc != MCZ_OK) {
		fprintf(stderr, "gen-job: %s: %s\n", path, mcz_strerror(rc));
		return -1;
	}
	snprintf(buf, sizeof buf, "%d", rank);
	mcz_writer_meta(w, "rank", buf);
	snprintf(buf, sizeof buf, "%d", nranks);
	mcz_writer_meta(w, "nranks", buf);
	mcz_writer_meta(w, "job", job);
	snprintf(buf, sizeof buf, "node%03d", rank / per_host);
	mcz_writer_meta(w, "host", buf);
	mcz_writer_meta(w, "command", "gen-job");
	snprintf(buf, sizeof buf, "%lld", (long long)dt);
	mcz_writer_meta(w, "interval_ns", buf);
	uint32_t id;
	for (int c = 0; c < cpus; c++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		char inst[16];
		snprintf(inst, sizeof inst, "cpu%d", c);
		d.name = "core.task_clock";
		d.instance = inst;
		d.kind = MCZ_COUNTER;
		d.type = MCZ_U64;
		d.unit = "s";
		d.scale = 1e-9;
		d.source = "perf";
		if (mcz_writer_add_stream(w, &d, &id) != MCZ_OK)
			return -1;
	}
	static const char *const gauges[][2] = {{"app.rss", "B"}, {"app.procs", "processes"}};
	for (int g = 0; g < 2; g++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = gauges[g][0];
		d.unit = gauges[g][1];
		d.kind = MCZ_GAUGE;
		d.type = MCZ_U64;
		d.source = "proc";
		if (mcz_writer_add_stream(w, &d, &id) != MCZ_OK)
			return -1;
	}
	/* phase k of every rank starts when the slowest rank ended phase k - 1 */
	int64_t t = 0, ns = (int64_t)(phase_s * 1e9);
	mcz_value v[64];
	uint64_t tc[64] = {0};
	size_t nb = 0, capb = 0;
	uint8_t *busyv = NULL;
	for (int k = 1; k <= nph; k++) {
		double f = rank == slow_r && k == slow_k ? slow_f : 1.0;
		int64_t mine = (int64_t)((double)ns * f), all = (int64_t)((double)ns * (k == slow_k ? (slow_f > 1 ? slow_f : 1) : 1));
		char label[16];
		snprintf(label, sizeof label, "phase%d", k);
		mcz_writer_mark(w, t, MCZ_MARK_BEGIN, 0, label);
		for (int64_t s = 0; s < all; s += dt) {
			int busy = s < mine;
			if (code && nb == capb) {
				uint8_t *nbv = realloc(busyv, (capb = capb ? 2 * capb : 1024));
				if (!nbv)
					return free(busyv), -1;
				busyv = nbv;
			}
			if (code)
				busyv[nb++] = (uint8_t)busy;
			for (int c = 0; c < cpus; c++) { /* --code: polling ranks are busy */
				tc[c] += busy || code ? (uint64_t)((double)dt * (0.9 + 0.1 * gj_unit())) : 0;
				v[c].u = tc[c];
			}
			v[cpus].u = 200u << 20;
			v[cpus + 1].u = 1;
			if ((rc = mcz_writer_append(w, t + s + dt, v, NULL)) != MCZ_OK)
				return -1;
			if (s + dt >= mine && s < mine)
				mcz_writer_mark(w, t + mine, MCZ_MARK_END, 0, "");
		}
		t += all;
	}
	if (code && gj_code(w, dt, busyv, nb, rank, nthr))
		return free(busyv), -1;
	free(busyv);
	return mcz_writer_close(w) == MCZ_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"dir", required_argument, 0, 'd'}, {"ranks", required_argument, 0, 'n'},
		{"phases", required_argument, 0, 'k'}, {"phase-s", required_argument, 0, 'p'},
		{"interval-ms", required_argument, 0, 'i'}, {"cpus", required_argument, 0, 'c'},
		{"per-host", required_argument, 0, 'H'}, {"slow", required_argument, 0, 'w'},
		{"job", required_argument, 0, 'j'}, {"seed", required_argument, 0, 's'},
		{"host-skew-ms", required_argument, 0, 'K'}, {"code", no_argument, 0, 'C'},
		{"threads", required_argument, 0, 'T'}, {0, 0, 0, 0}};
	const char *dir = NULL, *job = "4242";
	int nranks = 8, nph = 4, cpus = 2, per_host = 64, slow_r = -1, slow_k = 0, c, code = 0, nthr = 1;
	double phase_s = 1.0, interval_ms = 100, slow_f = 1, skew_ms = 0;
	while ((c = getopt_long(argc, argv, "d:", lo, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'n': nranks = atoi(optarg); break;
		case 'k': nph = atoi(optarg); break;
		case 'p': phase_s = atof(optarg); break;
		case 'i': interval_ms = atof(optarg); break;
		case 'c': cpus = atoi(optarg); break;
		case 'H': per_host = atoi(optarg); break;
		case 'j': job = optarg; break;
		case 'K': skew_ms = atof(optarg); break;
		case 'C': code = 1; break;
		case 'T': nthr = atoi(optarg); break;
		case 's': gj_state ^= strtoull(optarg, NULL, 10) * 2654435761u; break;
		case 'w':
			if (sscanf(optarg, "%d:%d:%lf", &slow_r, &slow_k, &slow_f) != 3 || slow_f <= 0) {
				fprintf(stderr, "gen-job: --slow wants R:K:F\n");
				return 2;
			}
			break;
		default: return 2;
		}
	}
	if (!dir || nranks < 1 || nph < 1 || cpus < 1 || cpus > 62 || per_host < 1 ||
	    !(phase_s > 0) || !(interval_ms >= 1) || nthr < 1 || nthr > 62 || (nthr > 1 && !code)) {
		fprintf(stderr, "usage: gen-job -d DIR [--ranks N] [--phases K] [--phase-s S] "
				"[--interval-ms M] [--cpus C<=62] [--per-host H] [--slow R:K:F] [--job ID] "
				"[--code [--threads T<=62]]\n");
		return 2;
	}
	if (nthr > cpus)
		cpus = nthr;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen-job: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (int r = 0; r < nranks; r++)
		if (gj_rank(dir, r, nranks, nph, phase_s, (int64_t)(interval_ms * 1e6), cpus, per_host,
			    slow_r, slow_k, slow_f, job, skew_ms, code, nthr) != 0) {
			fprintf(stderr, "gen-job: rank %d failed\n", r);
			return 1;
		}
	return 0;
}
