/* source.h: the interface every mcrec source implements (one file each under
 * recorder/sources/), and the door between the recorder core and them.
 *
 * Life of a source, driven by recorder/mcrec.c (mcrec_run):
 *
 *     probe   -> says whether it can run here; if not, why and the fix
 *     streams -> declares its streams (rec_streams_add), bound to topology
 *     start   -> arms counters (called with the child stopped before exec,
 *                so counting starts at exec)
 *     read    -> every tick (a slow source: every period_ns): fills its
 *                slice of the row (values + present)
 *     stop    -> disarms
 *     free
 *
 * A source keeps its own state behind `priv`.  read() runs on the sampling
 * thread at every tick and must not allocate, block or print; it may be
 * called at 1 ms intervals.  Everything slow belongs in probe/start.
 *
 * Example (a source with one gauge):
 *
 *     static int probe(rec_source *s, const rec_ctx *c) {
 *         if (access("/proc/loadavg", R_OK)) return rec_unavailable(s, "no /proc/loadavg", "mount /proc");
 *         return 0;
 *     }
 *     static int streams(rec_source *s, const rec_ctx *c, rec_streams *out) {
 *         mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
 *         d.name = "os.load1"; d.source = "proc"; d.native = "proc:/proc/loadavg"; d.unit = "";
 *         return rec_streams_add(out, &d);
 *     }
 *     static int read1(rec_source *s, mcz_value *v, uint8_t *present) { ... v[0].f = load; present[0] = 1; return 0; }
 *     const rec_source_ops src_loadavg_ops = { "loadavg", "os", probe, streams, NULL, read1, NULL, NULL };
 */
#ifndef REC_SOURCE_H
#define REC_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../format/mcz.h"

/* Groups a user selects with -g; a source's streams each belong to one. */
enum rec_group {
	REC_G_CORE = 1u << 0,  /* per-core counters */
	REC_G_MEM = 1u << 1,   /* memory traffic */
	REC_G_NET = 1u << 2,   /* network */
	REC_G_OS = 1u << 3,    /* utilisation, RSS, I/O, context switches */
	REC_G_GPU = 1u << 4,   /* GPUs */
	REC_G_POWER = 1u << 5, /* RAPL, GPU power */
	REC_G_CODE = 1u << 6,  /* where the command runs: sampled instruction pointer */
	REC_G_ALL = 0x7f,
};

/* --call-graph: how the code source finds each sample's callers. */
enum rec_callgraph {
	REC_CG_FP = 1,    /* frame pointers: the kernel's chain */
	REC_CG_DWARF = 2, /* registers and user stack copied, unwound by CFI */
};
/* --call-graph dwarf's stack bytes per sample when SIZE is not given. */
#define REC_CG_STACK 8192
/* The connectors the regions source would load (rec_ctx.no_regions). */
enum { REC_NO_KOKKOS = 1u << 0, REC_NO_OMPT = 1u << 1 };
/* --region-rate's default: marks per second a connector sends at most */
#define REC_REGION_RATE_DEFAULT 1000.0

/* What the recorder tells every source. */
typedef struct rec_ctx {
	pid_t child;           /* the child (stopped before exec at start()); 0 with -a */
	int system_wide;       /* -a */
	int ncpus;             /* online CPUs */
	unsigned groups;       /* rec_group mask chosen with -g */
	int64_t interval_ns;
	/* --slow-interval: how often a slow source (the process tree and
	 * /proc's node-wide files, the network) is read; it sets its
	 * rec_source.period_ns from this (never below interval_ns) */
	int64_t slow_ns;
	/* -e items meant for this source, without the "source:" prefix, e.g.
	 * "instructions", "PAPI_TOT_INS", "kernel.all.load"; NULL-terminated,
	 * NULL when the user named none (use defaults for the groups). */
	const char *const *events;
	const char *pcp_host;  /* --pcp-host, NULL = local */
	/* Topology object ids (see recorder/topo/topology.h), -1 when unknown.  In a
	 * recording these are late ids that the recorder resolves once hwloc
	 * has run, after the command started (recorder/topo/topobind.c): store them
	 * in mcz_stream_desc.topo, do not compute with them.  A NIC, NUMA node
	 * or package that turns out not to exist becomes the machine. */
	int32_t (*topo_pu)(int cpu);
	int32_t (*topo_numa)(int node);
	int32_t (*topo_package)(int pkg);
	int32_t (*topo_machine)(void);
	int32_t (*topo_gpu)(int index);
	int32_t (*topo_nic)(const char *ifname);
	/* 1: this recorder records node-wide streams (CPU utilisation of every
	 * core, network, uncore memory...); 0 for all but one recorder per
	 * node under mpirun/srun (node-local rank > 0). */
	int node_streams;
	int papi_multiplex;    /* --papi-multiplex: PAPI event sets are multiplexed */
	unsigned code_hz;      /* --code-hz: code samples per second per thread, 0 default */
	const char *code_event; /* --code-event: "cpu-clock" (NULL: default), "cycles"... */
	int code_callgraph;    /* --call-graph: REC_CG_FP (frame pointers), REC_CG_DWARF (the
				  registers and a copy of the user stack, unwound), 0 none */
	unsigned code_stack;   /* REC_CG_DWARF: bytes of user stack per sample */
	int listing;           /* mcrec --list: say what each source could give, even
				  where a recording would not ask (pcp) */
	unsigned no_regions;   /* --no-kokkos (REC_NO_KOKKOS), --no-ompt (REC_NO_OMPT) */
	double region_rate;    /* --region-rate: marks per second from a connector */
	int quiet;             /* -q: a source says nothing at start */
} rec_ctx;

typedef struct rec_streams rec_streams; /* owned by the recorder */

/* Append a descriptor (copied).  Returns 0 or -1 (out of memory). */
int rec_streams_add(rec_streams *out, const mcz_stream_desc *d);

typedef struct rec_source rec_source;

typedef struct rec_source_ops {
	const char *name;   /* "perf", "proc", "net", "mark", "papi", "pcp", "nvml", "rapl", "code", "regions" */
	const char *groups; /* human list for --list: "core,mem" */
	/* 0 = available; else call rec_unavailable() and return -1. */
	int (*probe)(rec_source *s, const rec_ctx *c);
	/* Declare streams.  0 ok; -1 with rec_unavailable() (e.g. an unknown
	 * -e event: the recorder then stops with that message). */
	int (*streams)(rec_source *s, const rec_ctx *c, rec_streams *out);
	int (*start)(rec_source *s, const rec_ctx *c);   /* may be NULL */
	/* Fill v[0..n) and present[0..n) for this source's n streams. */
	int (*read)(rec_source *s, mcz_value *v, uint8_t *present);
	void (*stop)(rec_source *s);                     /* may be NULL */
	void (*free)(rec_source *s);                     /* may be NULL */
	/* After stop, before the file is closed (the writer is the caller's
	 * again): blocks made from what the source gathered, e.g. the code
	 * profile, symbolized.  t0_mono is recording time 0 on
	 * CLOCK_MONOTONIC.  msg gets one line for the user ("" none); 0, or
	 * -1 when the block could not be written.  May be NULL. */
	int (*finish)(rec_source *s, mcz_writer *w, int64_t t0_mono, char *msg, size_t msglen);
	/* On the sampling thread after a tick's row is handed to the writer,
	 * before it sleeps: periodic work that no sample may wait for, done
	 * here instead of waking a thread of its own (code's look at its rings).
	 * Not after the row taken before the command's exec.  May be NULL. */
	void (*idle)(rec_source *s);
	/* On the writer thread before each sync of the file (and once on the
	 * main thread after stop, before finish): blocks of what the source
	 * gathered since the last call, so that a recorder killed before
	 * finish keeps them (code's CODEPART blocks).  0, or the mcz error of
	 * the block that could not be written.  May be NULL. */
	int (*sync)(rec_source *s, mcz_writer *w, int64_t t0_mono);
	/* On the writer thread, for each row in order, before it is written:
	 * the source's values in it (as read() left them) made final, for a
	 * value known only after its tick (code.samples counts the samples
	 * taken before the row's time t_mono, which the drain thread finds in
	 * the rings later).  May wait a little, never on the sampling thread.
	 * May be NULL. */
	void (*late)(rec_source *s, int64_t t_mono, mcz_value *v, uint8_t *present);
} rec_source_ops;

struct rec_source {
	const rec_source_ops *ops;
	void *priv;
	size_t first, n;     /* its slice of the row, set by the recorder */
	/* A slow source sets this (in probe or streams): its read() is called
	 * only at the ticks at least period_ns apart (a multiple of the
	 * interval, rec_sourceset_period) and at the first and last rows; in
	 * the rows between, its streams are absent, never repeated, so a
	 * counter's deltas cover exactly the time between two reads.  0: every
	 * tick. */
	int64_t period_ns;
	char why[512];       /* unavailable: the reason */
	char fix[512];       /* unavailable: what the user can do */
	int fatal;           /* the user asked for it by name (-e): failing is an error;
				a source may clear it when its failure must not stop
				the recording (pcp: pmcd down, host unknown) */
	int absent;          /* unavailable only because the hardware or its
				library is not on this machine (no GPU, no RAPL,
				no local pmcd): --list says why, a recording
				does not repeat it on every run */
	const char *on_request; /* set by streams() of a source whose streams
				are (mostly) named with -e, or that records
				marks instead: what --list says of them, e.g.
				"streams chosen with -e papi:EVENT (...)" */
};

/* Record why a source cannot run and how to fix it; returns -1.  An
 * available source may also fill why/fix (directly) to say what part of it
 * is missing, e.g. perf without hardware counters; --list prints it. */
int rec_unavailable(rec_source *s, const char *why, const char *fix);

/* For sources that receive marks (the mark source): hand one to the
 * recorder.  t_mono is CLOCK_MONOTONIC ns when the mark was made.  Never
 * blocks; returns -1 when the mark was dropped (queue full, no recording). */
int rec_mark_post(int64_t t_mono, mcz_mark_kind kind, uint32_t source, const char *text);

/* The sources compiled in, in the order they are probed. */
extern const rec_source_ops src_perf_ops, src_proc_ops, src_net_ops, src_mark_ops,
	src_papi_ops, src_pcp_ops, src_nvml_ops, src_rapl_ops, src_code_ops, src_regions_ops;

#endif
