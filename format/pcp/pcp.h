/* pcp.h: the door to format/pcp/ (libmczpcp): PCP archives — local or over
 * ssh — converted into .mcz recordings, and pcp_open_any(), which opens
 * anything a user can name (.mcz, archive, folder, folio, ssh://) as a reader.
 *
 * A PCP archive is read only through libpcp's archive context (PMAPI): its
 * metric descriptors, instance domains, units, semantics, volumes (also
 * compressed), labels and <mark> records.  Every (metric, instance) with
 * numeric values becomes one mcz stream: name = PCP metric name, native =
 * "pcp:NAME", instance = PCP instance name, unit = SI base unit, scale = the
 * factor from PCP's units to it, note = PCP's own units and semantics.
 *
 *     pcp_import_opts o = PCP_IMPORT_OPTS_INIT;
 *     o.metrics = "kernel.*,mem.util";           // NULL = every metric
 *     pcp_import_stats st;
 *     char err[512];
 *     if (pcp_import("/var/log/pcp/pmlogger/node7/20261122", "run.mcz", &o, &st,
 *                    err, sizeof err) != 0)
 *             die("%s", err);                    // one line, no newline
 *
 * Sources (pcp_import_claims() says whether a path is one):
 *   - an archive by base name, by any volume ("x.0", "x.2.xz"), by "x.meta"
 *     or "x.index", a directory of archives, or a comma-separated list
 *     (libpcp's multi-archive context);
 *   - a pmafm folio (a file starting with "PCPFolio"): every archive it lists;
 *     archives of one host are read as one context, several hosts are merged
 *     on time and their streams' instances get a "HOST:" prefix;
 *   - ssh://[user@]host[:port]/path (see pcp-ssh.h): the archive's files are
 *     fetched with the system ssh into a private temporary folder (mode
 *     0700) that is removed before pcp_import() returns.  A path ending in
 *     .mcz is a recording, fetched as it is (pcp_open_all), not imported.
 *
 * Errors: functions return 0 or a negative mcz_err code and write one line
 * (no newline) into err.  The library never prints: progress lines go to
 * opts->progress, which the program may print (e.g. only on a tty).
 */
#ifndef MCZ_PCP_H
#define MCZ_PCP_H

#include <stddef.h>
#include <stdint.h>

#include "../mcz.h"

/* Called now and then with a one-line progress report ("" text and final=1
 * when done, so the program can clear its line). */
typedef void pcp_import_progress_fn(void *arg, const char *line, int final);

/* Mirrored field for field by python/mcz/_lib.py (PcpImportOpts): a field
 * added here is added there (tests/integration/py-abi.sh checks it). */
typedef struct pcp_import_opts {
	const char *metrics;                /* comma-separated globs on metric names; a
					       plain name also matches its subtree; NULL = all */
	const char *const *ssh_options;     /* "-o" values for ssh, NULL-terminated; may be NULL */
	pcp_import_progress_fn *progress;   /* NULL: no progress */
	void *progress_arg;
	int zstd_level;                     /* 0 = the writer's default */
	int view;                           /* 1: converted to be shown, not kept
					       (mcview): a fast zstd level, no
					       layout trials (mcz_write_opts.quick);
					       pcp_open_any keeps the result in the
					       user's cache folder (pcp-cache.c) */
	long long cache_max;                /* the cache's bound in bytes: 0 = the
					       default (PCP_CACHE_MAX_DEFAULT), < 0 = no
					       cache */
	char *note;                         /* not NULL: one line (notelen bytes)
					       about the cache, "" when all went well */
	size_t notelen;
	int first_ms;                       /* view: > 0 and pending set: an archive
					       not in the cache is read for about
					       this long, and that start shown (its
					       metadata "import_partial" says so)
					       while a process of its own converts
					       the whole into the cache (pcp-behind.c) */
	int *pending;                       /* out: that process's id, 0 when the
					       whole archive was read at once */
} pcp_import_opts;

#define PCP_IMPORT_OPTS_INIT { NULL, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL }
/* The default bound of the viewer's cache of converted archives: 1 GiB. */
#define PCP_CACHE_MAX_DEFAULT (1ull << 30)

typedef struct pcp_import_stats {
	uint64_t records;        /* pmResults read (marks included) */
	uint64_t rows;           /* mcz rows written (records of equal time merge) */
	uint64_t values;         /* values stored */
	uint64_t missing;        /* per-metric errors / no values in a record */
	uint64_t marks;          /* <mark> records -> MCZ_MARK_GAP */
	uint64_t streams;
	uint64_t metrics;        /* metrics imported */
	uint64_t skipped_metrics;/* string, aggregate, event: not numeric */
	uint64_t filtered;       /* metrics left out by --metrics */
	uint64_t out_of_order;   /* records older than the previous one: dropped */
	uint64_t out_bytes;      /* size of the .mcz written */
	int truncated;           /* 1: an archive ended early (damaged); see warning */
	int partial;             /* 1: stopped after first_ms, on purpose */
	char warning[256];       /* "" or one line about data that could not be read */
} pcp_import_stats;

/* A progress function for programs: prints the line on stderr (rewriting
 * it in place) when stderr is a terminal, nothing otherwise. */
void pcp_import_progress_tty(void *arg, const char *line, int final);

/* For a program whose only PCP contexts are the archives it reads through
 * this header (mcz import, mcview): sets PCP_DERIVED_CONFIG to "" unless it
 * is set.  libpcp otherwise loads the derived metrics of its default
 * configuration at the first pmNewContext (five files on Debian, a third
 * of a small archive's import), and records read as logged never hold one.
 * Call before any thread starts (setenv). */
void pcp_no_derived(void);

/* 1 if src names something pcp_import() reads (an archive, volume, .meta,
 * .index, folio, directory of archives, or an ssh:// URL); 0 otherwise (for
 * example an .mcz file). */
int pcp_import_claims(const char *src);

/* Convert src (see above) into the .mcz file out_path.  stats may be NULL.
 * Written to a temporary beside out_path, renamed over it only once whole:
 * on error an earlier file of that name is as it was.  A device is written
 * into; a folder, a FIFO, a socket, or one of src's own files is refused. */
int pcp_import(const char *src, const char *out_path, const pcp_import_opts *o,
	       pcp_import_stats *stats, char *err, size_t errlen);

/* The same into a new private temporary file ($TMPDIR or /tmp,
 * "mcz-pcp-XXXXXX.mcz", mode 0600) whose malloc'd name is stored in
 * *out_path; the caller opens it and unlinks it (the viewer's open path). */
int pcp_import_temp(const char *src, const pcp_import_opts *o, char **out_path,
		    pcp_import_stats *stats, char *err, size_t errlen);

/* Open path as a reader: an .mcz with libmcz; anything pcp_import_claims()
 * with pcp_import_temp() into a private temporary .mcz that is unlinked as
 * soon as it is open (o may be NULL).  Returns MCZ_OK, or a negative mcz_err
 * code with one line in err naming the path and the reason.
 *
 *     mcz_reader *r;
 *     if (pcp_open_any(&r, "ssh://me@node7/var/log/pcp/pmlogger/node7/20261122",
 *                      NULL, err, sizeof err) != MCZ_OK)
 *             die("%s", err);
 */
int pcp_open_any(mcz_reader **r, const char *path, const pcp_import_opts *o, char *err,
		 size_t errlen);

/* The conversion of a whole archive behind its first screen (first_ms):
 * 1 when it is in the cache (open the archive again to get it), 0 while it
 * runs, -1 when it failed or could not be kept (the start stays what is
 * shown).  The process is reaped by the call that returns 1 or -1. */
int pcp_pending_poll(int pid);
/* Stop it (the program ends, or the view closes): nothing is left behind. */
void pcp_pending_stop(int pid);
/* How far it has read: a percentage of the archive's time span, -1 before
 * its first progress or when not one of ours. */
int pcp_pending_progress(int pid);
/* Once pcp_pending_poll said 1: the entry that process made (from the
 * archive's files as they were when it started: a pmlogger may have
 * written more since), and, when stamp is not NULL, those files' stamp
 * (pcp_archive_stamp, malloc'd).  MCZ_OK, or MCZ_E_NOTFOUND / _CORRUPT
 * when the entry is gone (another mcview's cache bound). */
int pcp_pending_open(int pid, mcz_reader **r, char **stamp);
/* While it runs: what it has written so far, opened as a file being
 * written (its rows up to its last half second).  MCZ_OK, or
 * MCZ_E_NOTFOUND before its first rows and once it is done. */
int pcp_pending_peek(int pid, mcz_reader **r);
/* The bytes it has written so far, -1 when not known: a cheap look at
 * whether pcp_pending_peek would show more. */
long long pcp_pending_written(int pid);

/* A span of time as the status lines say it: "45 s", "13m 0s", "3h 14m". */
void pcp_span_text(int64_t ns, char *buf, size_t len);

/* A local archive's files as they are now (real paths, sizes, times): a
 * malloc'd text that changes when the archive grows or is replaced (a
 * pmlogger writing it), or NULL (ssh://, not an archive, unreadable). */
char *pcp_archive_stamp(const char *src, const pcp_import_opts *o);
/* Convert src into the cache by a process of its own, as behind a first
 * screen (first_ms): its id for pcp_pending_poll, 0 when it could not be
 * started (ssh://, no cache). */
int pcp_convert_behind(const char *src, const pcp_import_opts *o);

/* Every recording path names, opened: as pcp_open_any, except that an
 * ssh:// URL whose last part is an .mcz file or a shell pattern of them
 * ("ssh://node7/scratch/run.*.mcz": the rank files of a job) gives every
 * matching file, fetched as it is into a private folder that is removed
 * before this returns (the readers map the files).  *readers and *names
 * ("ssh://node7/scratch/run.3.mcz") are malloc'd lists of *n, in natural
 * order (run.9 before run.10).  MCZ_OK, or an error with one line in err. */
int pcp_open_all(const char *path, const pcp_import_opts *o, mcz_reader ***readers,
		 char ***names, size_t *n, char *err, size_t errlen);

/* Split an archive name into its folder and base name, dropping a volume,
 * .meta or .index suffix: "/a/b/x.0.xz" -> "/a/b", "x".  Both malloc'd. */
int pcp_path_split(const char *path, char **dir, char **base);

/* ---- one PCP metric descriptor as an mcz stream (pcp-metric.c) ----------
 * The one mapping of PCP semantics, types and units to mcz kinds, types and
 * units, shared by this importer and mcrec's live pcp source, so that a
 * metric recorded from pmcd and the same metric read from pmlogger's archive
 * become the same stream.
 *   - values are stored raw, exactly as libpcp returns them; `scale` turns
 *     them into SI base units: bytes (PCP Kbyte x 1024 ...), seconds (msec x
 *     1e-3 ...) and counts (count x 10^n); a time dimension of -1 alone is
 *     a frequency, "Hz" (hinv.cpu.clock is in / usec).
 *   - PM_SEM_COUNTER with an integer type -> MCZ_COUNTER (U64), shown as a
 *     rate.  A 32-bit counter wraps at 2^32 and mcz counters at 2^64, so the
 *     reader unwraps it (wrap32): stored = raw + k x 2^32, k counting the
 *     decreases seen.
 *   - a counter of type float/double cannot be an mcz counter (U64 only, and
 *     rounding would lose a seconds counter's fractions): stored as an F64
 *     gauge of its cumulative value, and the note says so.
 *   - instant and discrete metrics -> MCZ_GAUGE: signed integers I64,
 *     unsigned U64, float/double F64.
 *   - string, aggregate and event metrics are not numeric: skip, with why.
 *
 *     pmLookupDesc(pmid, &desc);
 *     pcp_metric_kind k;
 *     pcp_metric_kind_of(&desc, &k);
 *     if (k.skip) fail("metric %s %s", name, k.why);
 *     d.kind = k.kind; d.type = k.type; d.unit = k.unit; d.scale = k.scale; d.note = k.note;
 */
struct pmDesc; /* <pcp/pmapi.h> */

typedef struct pcp_metric_kind {
	int skip;          /* 1: not numeric (string, aggregate, event...) */
	const char *why;   /* skip: "is a string metric; only numeric metrics are kept" */
	uint8_t kind;      /* mcz_kind */
	uint8_t type;      /* mcz_type */
	int wrap32;        /* 32-bit counter: to be unwrapped into 64 bits */
	double scale;      /* stored value x scale = SI base unit */
	char unit[32];     /* "B", "s", "count", "B/s", "Hz", "" (dimensionless) */
	char note[256];    /* "pcp: Kbyte, counter, U32 (unwrapped: ...)" */
} pcp_metric_kind;

void pcp_metric_kind_of(const struct pmDesc *d, pcp_metric_kind *k);

/* The same mapping backwards (mcz export --pcp): the PCP type, semantics
 * and units of stream s, chosen so that pcp_metric_kind_of() of them gives
 * s's kind, unit and scale again where PCP can say them:
 *   - units: bytes, seconds, counts and Hz as PCP dimensions, with the PCP
 *     scale codes whose 1.0 is s->scale SI units (KB, msec, count x 10^3...),
 *     so values are exported as stored; a unit PCP has no dimension for (W,
 *     J, instructions) becomes a count dimension, "%" none (returns 0 and
 *     why says so: mcz export names the unit in a label); a scale no PCP code gives sets *mul to
 *     it: values x *mul, in SI units, as doubles;
 *   - counters: PM_SEM_COUNTER, U64 (the raw cumulative values mcz keeps);
 *     gauges: PM_SEM_INSTANT of U64, 64 or DOUBLE, or what an imported PCP
 *     metric's note says it was (discrete; a floating-point counter);
 *   - pmid and indom are left PM_ID_NULL and PM_INDOM_NULL for the caller.
 * Returns 1 when PCP names the unit, 0 when it does not (counted, or "%"). */
int pcp_metric_desc_of(const mcz_stream_desc *s, struct pmDesc *d, double *mul, char *why,
		       size_t whylen);

/* ---- the topology object of an instance (pcp-topo.c) --------------------
 * Which kind of topology object the stream of a metric's instance belongs
 * to; the one rule of mcrec's live pcp source and of the importer:
 *   - "cpuN" -> the PU of OS index N (and the stream is per-CPU,
 *     MCZ_SF_PERCPU);
 *   - "nodeN" -> the NUMA node of OS index N;
 *   - "gpuN", "nvidiaN" -> GPU N;
 *   - an instance of a network.interface.* or infiniband.* metric -> the
 *     NIC of that name, but for "lo" (a loopback has no device);
 *   - anything else, and no instance: the whole machine (MCZ_TOPO_MACHINE).
 * *index is N, -1 for a NIC or the machine.  Whether the machine has that
 * object is the caller's to say: mcrec binds to its hwloc objects (an
 * interface hwloc lists no device for, a virtual one, is the machine's);
 * the importer makes the object under the machine ("PU#3", "NUMA#1",
 * "GPU#0", "eth0") for an archive of one host (several hosts' streams
 * have none), a NIC only for an interface the archive says is a device
 * (network.interface.virtual 0, where it was logged: of devices a PCP
 * archive says no more). */
mcz_topo_type pcp_topo_of(const char *metric, const char *inst, int *index);

/* ---- writing PCP archives (pcp-export.c, mcz export --pcp) --------------
 * A recording r becomes the PCP archive `out` (out.0, out.meta, out.index)
 * through libpcp_import:
 *   - each stream name becomes a PCP metric name as it is ("mem.read_bytes"),
 *     so that mcz import gives it back; bytes PCP does not allow in a name
 *     become '_', a component starting with a digit gets an 'x' in front;
 *     streams of one name whose units or kinds differ become NAME_2...;
 *   - the streams of one name are the instances of one metric (their
 *     instance names: "cpu3" gets instance id 3, as PCP's per-CPU metrics);
 *     a name with one stream and no instance is a singular metric; an
 *     instance name whose first word another has ("action 7 queue" after
 *     "action 1 queue": PCP tells them apart by it) gets '_' for spaces;
 *   - descriptors from pcp_metric_desc_of(); values as stored (counters:
 *     the raw cumulative values, as mcz dump prints them), at wall-clock
 *     time to the microsecond (libpcp_import's pmiWrite);
 *   - host, job, rank and command as context labels, the host also as the
 *     archive's host name; a unit PCP only counts as an item label mcz_unit;
 *     the stream's source, native event and note as its help text;
 *   - marks as the string metric mcz.mark ("text", "begin text", "end
 *     text"; a point mark's text starting "begin " or "end " gets "point "
 *     in front), gap marks as PCP <mark> records;
 *   - a job file (mcz merge): one archive per host (out when the job ran on
 *     one host, else out-HOST each), its ranks' streams as instances
 *     "rankR:INSTANCE" (or "rankR") of the same metrics.
 * Refused with one line in err: out an existing folder, an archive of that
 * name there already, a folder that cannot be made or written.  Chunks the
 * reader finds damaged are left out and named in st->damaged (rc 0). */
typedef struct pcp_export_stats {
	uint64_t archives, metrics, instances, records, values, marks;
	char paths[512];   /* the archives written, ", " between them */
	char damaged[512]; /* "" or what could not be read (the rest was exported) */
	/* names PCP could not take as they are (PCPIntro(1): "app.my-count"
	 * becomes app.my_count, an instance with a space or a second of one
	 * name "a_b", "a#2"): renamed, the original kept as the label
	 * mcz_name (metric) or mcz_instance (instance), which mcz import reads
	 * back; "ORIGINAL -> PCP NAME" a line each, as many as fit */
	uint64_t renamed;
	char renames[4096];
} pcp_export_stats;

int pcp_export(mcz_reader *r, const char *out, pcp_export_stats *st, char *err, size_t errlen);

#endif
