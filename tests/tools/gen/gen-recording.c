/* gen-recording.c: writes a realistic synthetic recording for tests and
 * benchmarks: per-core counters and node gauges following a phased
 * workload (compute, memory-bound, communication, idle phases that repeat),
 * with noise, a topology, metadata and phase marks.
 *
 *   gen-recording -o FILE [--streams N] [--rows N] [--interval-ms N]
 *                 [--phases] [--counters] [--seed N] [--chunk-rows N]
 *                 [--truth FILE] [--sync-rows N [--killed]] [--entropy]
 *                 [--metric-major] [--meta KEY=VALUE]... [--mark-text TEXT]
 *                 [--slow-every K]
 *
 * --phases   the workload goes through phases (else one steady phase) and
 *            a BEGIN mark "phase:NAME" is written at each boundary;
 * --counters every stream is a per-core hardware counter (U64, counter);
 *            otherwise streams mix counters, float gauges and integer gauges;
 * --truth    writes "row t_ns label" for every phase start (phase tests).
 * --sync-rows  mcz_writer_sync every N rows (PART blocks between chunks);
 * --killed   ... and end without closing the writer, as a recorder killed
 *            with SIGKILL leaves its file (no index, PART blocks at the end).
 * --entropy  prints the information the values carry, in bytes per value:
 *            each is drawn from a uniform noise over W integers (W = 2 x
 *            the noise's share x the step, given the row's time), so holds
 *            log2(W) bits that no lossless coder can store in less on
 *            average, whatever it knows of the model, short of replaying
 *            this program's random generator (the floor a storage bar on
 *            these values is set against: bench-wide.sh).
 * --metric-major  declares the streams metric by metric (every CPU's
 *            instructions, then every CPU's cycles...), as mcrec does, instead
 *            of CPU by CPU (cpu0's instructions, cycles and misses, then
 *            cpu1's...): the same streams and noise in another order.
 * --meta     adds (or replaces) a metadata key, --mark-text puts TEXT before
 *            each phase mark's name and each per-CPU stream's instance:
 *            hostile strings for the terminal tests.
 * --slow-every  the second half of the streams has a value every K rows
 *            only, as a source read less often than the others (mcrec's
 *            proc and net sources at 500 ms in a 20 ms recording).
 * Same seed, same file (bit for bit).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../format/mcz.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t gen_rand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Uniform in [-1, 1). */
static double gen_noise(void)
{
	return (double)(gen_rand() >> 11) / 4503599627370496.0 - 1.0;
}

static const char *phase_name[] = {"compute", "memory", "comm", "idle"};
/* Per phase: instructions/s per core, LLC misses/s per core, memory B/s,
 * network B/s, GPU W. */
static const double phase_level[4][5] = {
	{2.4e9, 1.0e6, 2.0e9, 1.0e5, 310},
	{0.6e9, 4.0e7, 9.5e10, 1.0e5, 180},
	{0.3e9, 2.0e6, 1.0e9, 9.0e9, 120},
	{0.01e9, 1.0e4, 1.0e8, 1.0e3, 60},
};

typedef struct gen_stream {
	int what; /* 0 instr, 1 cycles, 2 llc, 3 mem rd, 4 mem wr, 5 net, 6 gpu W, 7 rss */
	uint64_t acc;
} gen_stream;

static void usage(FILE *f)
{
	fputs("usage: gen-recording -o FILE [--streams N] [--rows N] [--interval-ms N]\n"
	      "                     [--phases] [--counters] [--seed N] [--chunk-rows N]\n"
	      "                     [--truth FILE] [--sync-rows N [--killed]] [--entropy]\n"
	      "                     [--metric-major] [--slow-every K]\n",
	      f);
}

/* The bits of a value drawn uniformly from w integers (0 below 2). */
static double noise_bits(double w)
{
	return w > 1 ? log2(floor(w)) : 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *truth = NULL;
	long nstreams = 16, rows = 10000, chunk_rows = 1024, sync_rows = 0, slow_every = 0;
	int killed = 0, entropy = 0;
	double interval_ms = 10, bits = 0;
	int phases = 0, counters = 0, metric_major = 0;
	static const struct option opts[] = {
		{"streams", 1, 0, 's'}, {"rows", 1, 0, 'r'},	   {"interval-ms", 1, 0, 'i'},
		{"phases", 0, 0, 'p'},	{"counters", 0, 0, 'c'},  {"seed", 1, 0, 'S'},
		{"chunk-rows", 1, 0, 'C'}, {"truth", 1, 0, 'T'}, {"help", 0, 0, 'h'},
		{"sync-rows", 1, 0, 'Y'}, {"killed", 0, 0, 'K'}, {"entropy", 0, 0, 'E'},
		{"metric-major", 0, 0, 'M'}, {"meta", 1, 0, 'm'}, {"mark-text", 1, 0, 'x'},
		{"slow-every", 1, 0, 'L'}, {0, 0, 0, 0}};
	const char *meta[16], *mark_text = NULL;
	int nmeta = 0;
	int c;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': nstreams = atol(optarg); break;
		case 'r': rows = atol(optarg); break;
		case 'i': interval_ms = atof(optarg); break;
		case 'p': phases = 1; break;
		case 'c': counters = 1; break;
		case 'S': rng_state = strtoull(optarg, NULL, 0) * 2654435761u + 1; break;
		case 'C': chunk_rows = atol(optarg); break;
		case 'T': truth = optarg; break;
		case 'Y': sync_rows = atol(optarg); break;
		case 'K': killed = 1; break;
		case 'E': entropy = 1; break;
		case 'M': metric_major = 1; break;
		case 'm':
			if (nmeta < 16 && strchr(optarg, '='))
				meta[nmeta++] = optarg;
			break;
		case 'x': mark_text = optarg; break;
		case 'L': slow_every = atol(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!out || nstreams < 0 || rows < 0 || interval_ms <= 0 || chunk_rows <= 0) {
		usage(stderr);
		return 2;
	}
	FILE *tf = truth ? fopen(truth, "w") : NULL;
	if (truth && !tf) {
		perror(truth);
		return 1;
	}
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 1795000000000000000LL;
	o.chunk_rows = (uint32_t)chunk_rows;
	o.chunk_ns = 0;
	mcz_writer *w;
	int rc = mcz_writer_open(&w, out, &o);
	if (rc) {
		fprintf(stderr, "gen-recording: %s: %s\n", out, mcz_strerror(rc));
		return 1;
	}
	long ncpu = counters ? (nstreams + 2) / 3 : (nstreams + 7) / 8;
	if (ncpu < 1)
		ncpu = 1;
	mcz_writer_meta(w, "host", "gen-node");
	mcz_writer_meta(w, "command", "gen-recording (synthetic phased workload)");
	mcz_writer_meta(w, "recorder", "gen-recording");
	char buf[64];
	snprintf(buf, sizeof buf, "%.0f", interval_ms * 1e6);
	mcz_writer_meta(w, "interval_ns", buf);
	for (int i = 0; i < nmeta; i++) {
		char *k = strdup(meta[i]);
		*strchr(k, '=') = '\0';
		mcz_writer_meta(w, k, k + strlen(k) + 1);
		free(k);
	}
	/* machine > package > cores > PUs */
	size_t ntopo = 2 + 2 * (size_t)ncpu;
	mcz_topo_obj *topo = calloc(ntopo, sizeof *topo);
	char (*names)[32] = calloc(ntopo, 32);
	topo[0] = (mcz_topo_obj){-1, MCZ_TOPO_MACHINE, -1, 64ull << 30, "Machine"};
	topo[1] = (mcz_topo_obj){0, MCZ_TOPO_PACKAGE, 0, 0, "Package#0"};
	for (long i = 0; i < ncpu; i++) {
		snprintf(names[2 + 2 * i], 32, "Core#%ld", i);
		snprintf(names[3 + 2 * i], 32, "PU#%ld", i);
		topo[2 + 2 * i] = (mcz_topo_obj){1, MCZ_TOPO_CORE, (int32_t)i, 0, names[2 + 2 * i]};
		topo[3 + 2 * i] = (mcz_topo_obj){(int32_t)(2 + 2 * i), MCZ_TOPO_PU, (int32_t)i, 0,
						 names[3 + 2 * i]};
	}
	mcz_writer_topology(w, topo, ntopo);
	gen_stream *gs = calloc((size_t)nstreams + 1, sizeof *gs);
	static const char *what_name[] = {"core.instructions", "core.cycles", "core.llc_misses",
					  "mem.read_bytes",    "mem.write_bytes", "net.rx_bytes",
					  "gpu.power",	       "proc.rss"};
	static const char *what_unit[] = {"instructions", "cycles", "misses", "B",
					  "B",		  "B",	    "W",      "B"};
	static const char *what_src[] = {"perf", "perf", "perf", "pcp", "pcp", "net", "nvml", "proc"};
	/* the stream declared at position id is stream by[id] of the CPU-by-CPU
	 * order (--metric-major), or stream id */
	long *by = calloc((size_t)nstreams + 1, sizeof *by);
	for (int what = 0, k = 0; what < 8 && metric_major; what++)
		for (long s = 0; s < nstreams; s++)
			if ((counters ? s % 3 : s < 3 * ncpu ? s % 3 : 3 + s % 5) == what)
				by[k++] = s;
	for (long id = 0; id < nstreams; id++) {
		long s = metric_major ? by[id] : id;
		int what = counters ? (int)(s % 3) : (s < 3 * ncpu ? (int)(s % 3) : 3 + (int)(s % 5));
		long cpu = counters || s < 3 * ncpu ? s / 3 : -1;
		gs[id].what = what;
		char inst[300] = "", native[64];
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = what_name[what];
		d.unit = what_unit[what];
		d.source = what_src[what];
		snprintf(native, sizeof native, "%s:%s", what_src[what], what_name[what]);
		d.native = native;
		if (cpu >= 0) {
			snprintf(inst, sizeof inst, "%.200scpu%ld", mark_text ? mark_text : "", cpu);
			d.instance = inst;
			d.topo = (int32_t)(3 + 2 * cpu);
			d.flags = MCZ_SF_PERCPU;
		}
		d.kind = what == 6 || what == 7 ? MCZ_GAUGE : MCZ_COUNTER;
		d.type = what == 6 ? MCZ_F64 : MCZ_U64;
		if ((rc = mcz_writer_add_stream(w, &d, NULL)))
			break;
	}
	mcz_value *v = calloc((size_t)nstreams + 1, sizeof *v);
	uint8_t *present = calloc((size_t)nstreams + 1, 1);
	int64_t dt = (int64_t)(interval_ms * 1e6);
	long phase_rows = rows / 10 > 0 ? rows / 10 : 1;
	int phase = phases ? -1 : 0;
	long next_change = 0;
	int64_t prev_t = -dt;
	static const double noise[] = {0.02, 0.002, 0.10, 0.03, 0.03, 0.05};
	for (long r = 0; r < rows && !rc; r++) {
		int64_t t = r * dt + (int64_t)((gen_noise() + 1) * (double)dt * 0.005);
		if (phases && r == next_change) {
			phase = (phase + 1) % 4;
			/* irregular lengths: 0.5 to 1.5 of the nominal */
			next_change = r + phase_rows / 2 + (long)(gen_rand() % (uint64_t)phase_rows) + 1;
			char label[256];
			snprintf(label, sizeof label, "%s%s", mark_text ? mark_text : "phase:",
				 phase_name[phase]);
			mcz_writer_mark(w, t, MCZ_MARK_BEGIN, 0, label);
			if (tf)
				fprintf(tf, "%ld %lld %s\n", r, (long long)t, phase_name[phase]);
		}
		const double *lv = phase_level[phase];
		/* counters advance with the real elapsed time (rate x dt), with a
		 * noise that depends on the event: cycles are steady, cache misses
		 * are not */
		double sec = (double)(t - prev_t) / 1e9;
		prev_t = t;
		for (long s = 0; s < nstreams; s++) {
			gen_stream *g = &gs[s];
			double x;
			switch (g->what) {
			case 0: x = lv[0] * sec; break;
			case 1: x = 2.6e9 * sec * (phase == 3 ? 0.02 : 1); break;
			case 2: x = lv[1] * sec; break;
			case 3: x = lv[2] * sec; break;
			case 4: x = lv[2] * 0.4 * sec; break;
			case 5: x = lv[3] * sec; break;
			case 6: /* NVML reports milliwatts */
				v[s].f = round(lv[4] * (1 + 0.03 * gen_noise()) * 1000) / 1000;
				bits += noise_bits(2 * 0.03 * lv[4] * 1000);
				continue;
			default: v[s].u = (uint64_t)(2e9 + 1e6 * (double)(r / 100)); continue;
			}
			g->acc += (uint64_t)(x * (1 + noise[g->what] * gen_noise()));
			bits += noise_bits(2 * noise[g->what] * x);
			v[s].u = g->acc;
		}
		for (long s = 0; s < nstreams; s++)
			present[s] = slow_every <= 1 || s < nstreams / 2 || r % slow_every == 0;
		rc = mcz_writer_append(w, t, v, present);
		if (!rc && sync_rows > 0 && (r + 1) % sync_rows == 0)
			rc = mcz_writer_sync(w);
	}
	if (killed) {
		if (tf)
			fclose(tf);
		_Exit(rc ? 1 : 0); /* the file as SIGKILL leaves it */
	}
	if (entropy && rows && nstreams)
		printf("entropy %.3f bytes/value (values alone, the timestamps and metadata not counted)\n",
		       bits / 8 / ((double)rows * (double)nstreams));
	int rc2 = mcz_writer_close(w);
	if (tf)
		fclose(tf);
	free(v);
	free(present);
	free(gs);
	free(by);
	free(topo);
	free(names);
	if (rc || rc2) {
		fprintf(stderr, "gen-recording: %s: %s\n", out, mcz_strerror(rc ? rc : rc2));
		return 1;
	}
	return 0;
}
