/* mcz.h: libmcz, the one public door to the .mcz recording format.
 *
 * A recording is: metadata (key/value strings), a topology tree, stream
 * descriptors, rows of samples (one timestamp, one value per stream), marks,
 * and auxiliary named blocks (e.g. the viewer's phase cache).  The byte
 * layout is format/SPEC.md; this header is the API.
 *
 * Writing:
 *
 *     mcz_writer *w;
 *     mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
 *     o.wall_epoch_ns = now_wall_ns();            // wall clock of t = 0
 *     if ((rc = mcz_writer_open(&w, "run.mcz", &o)) != MCZ_OK) die(mcz_strerror(rc));
 *     mcz_writer_meta(w, "host", "node7");
 *     mcz_writer_topology(w, objs, nobjs);
 *     uint32_t ins;
 *     mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
 *     d.name = "core.instructions"; d.source = "perf"; d.unit = "instructions";
 *     d.native = "perf:instructions"; d.kind = MCZ_COUNTER; d.type = MCZ_U64;
 *     mcz_writer_add_stream(w, &d, &ins);
 *     for (...) mcz_writer_append(w, t_ns, vals, NULL);   // one row
 *     mcz_writer_sync(w);              // every second: readable, crash-proof
 *     mcz_writer_mark(w, t_ns, MCZ_MARK_POINT, "DMC start");
 *     rc = mcz_writer_close(w);                   // flush, index, trailer
 *
 * Reading:
 *
 *     mcz_reader *r;
 *     if ((rc = mcz_open(&r, "run.mcz", 0)) != MCZ_OK) die(mcz_strerror(rc));
 *     const mcz_file_info *fi = mcz_info(r);
 *     for (size_t i = 0; i < mcz_stream_count(r); i++) puts(mcz_stream(r, i)->name);
 *     mcz_series s = {0};
 *     mcz_read(r, 0, fi->t_first, fi->t_last, &s);    // raw samples
 *     mcz_bucket b[200];
 *     mcz_summary(r, 0, fi->t_first, fi->t_last + 1, 200, b);  // zoomed out
 *     uint32_t ids[2] = {0, 1};
 *     mcz_bucket bb[2 * 200];                         // ids x buckets
 *     mcz_summary_multi(r, ids, 2, fi->t_first, fi->t_last + 1, 200, bb);
 *     mcz_series_free(&s);
 *     mcz_refresh f;                   // a file still being written:
 *     mcz_reader_refresh(r, &f);       // f.new_rows more, from chunk f.first_changed
 *     mcz_close(r);
 *
 * Ownership: every string and array returned by a reader belongs to the
 * reader and lives until mcz_close() (or mcz_reader_refresh()), except
 * mcz_series contents (caller frees with mcz_series_free) and buffers the
 * caller passed in.  The writer copies every string it is given.
 *
 * Errors: functions return MCZ_OK (0) or a negative mcz_err; mcz_strerror()
 * names it.  The library never prints and never exits.
 *
 * Threads: one writer or reader object per thread at a time; distinct
 * objects are independent.
 *
 * Python: python/mcz/_lib.py mirrors the structures and constants the
 * package reads with ctypes; a field added here is added there
 * (tests/integration/py-abi.sh fails until it is).
 */
#ifndef MCZ_H
#define MCZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCZ_VERSION_MAJOR 1
#define MCZ_VERSION_MINOR 7

/* ---- errors ------------------------------------------------------------ */

typedef enum mcz_err {
	MCZ_OK = 0,
	MCZ_E_IO = -1,          /* read/write/open failed; errno is left as the system set it */
	MCZ_E_NOMEM = -2,
	MCZ_E_NOTMCZ = -3,      /* wrong magic: not an mcz file */
	MCZ_E_VERSION = -4,     /* newer major version than this library */
	MCZ_E_CORRUPT = -5,     /* CRC mismatch or impossible field */
	MCZ_E_TRUNCATED = -6,   /* ended inside a block */
	MCZ_E_ARG = -7,         /* bad argument from the caller */
	MCZ_E_RANGE = -8,       /* stream id or index out of range */
	MCZ_E_STATE = -9,       /* call not allowed now (e.g. append after close) */
	MCZ_E_NOSPC = -10,      /* disk full while writing */
	MCZ_E_EMPTY = -11,      /* zero-length file */
	MCZ_E_ISDIR = -12,      /* path is a directory */
	MCZ_E_NOTFOUND = -13,   /* no such item (aux block name, meta key) */
} mcz_err;

/* A short English phrase for an error code, never NULL. */
const char *mcz_strerror(int err);

/* Detail of the last error returned in this thread, e.g. "file is version
 * 2.0; this mcz reads 1.x" or "chunk at offset 4096: CRC mismatch"; "" if
 * none.  Thread-local; valid until the next libmcz call in this thread. */
const char *mcz_errdetail(void);

/* ---- data model ---------------------------------------------------------- */

typedef enum mcz_kind {
	MCZ_COUNTER = 0, /* monotonic, wraps modulo 2^64; shown as a rate */
	MCZ_GAUGE = 1,   /* instantaneous value */
} mcz_kind;

typedef enum mcz_type {
	MCZ_U64 = 0,
	MCZ_I64 = 1,
	MCZ_F64 = 2, /* counters must be U64 */
} mcz_type;

/* One sample value; which member is meaningful is the stream's type. */
typedef union mcz_value {
	uint64_t u;
	int64_t i;
	double f;
} mcz_value;

enum mcz_stream_flags {
	MCZ_SF_ESTIMATED = 1u << 0, /* derived by a model, not measured directly */
	MCZ_SF_DERIVED = 1u << 1,   /* computed from other streams */
	MCZ_SF_PERCPU = 1u << 2,    /* one of a family of per-CPU streams */
};

typedef struct mcz_stream_desc {
	uint32_t id;        /* set by the writer: 0, 1, 2... in order added */
	const char *name;   /* dotted: "mem.read_bytes", "core.instructions" */
	const char *source; /* "perf", "papi", "pcp", "nvml", "net", "rapl", "proc", "mark" */
	const char *native; /* the native event: "papi:PAPI_TOT_INS", "pcp:kernel.all.load" */
	const char *unit;   /* SI base unit after scale: "B", "W", "J", "instructions", "%", "s" */
	const char *note;   /* provenance, free text: "uncore_imc", "estimate: LLC misses x 64 B" */
	const char *instance; /* instance name (PCP instance, CPU, interface), "" if none */
	uint8_t kind;       /* mcz_kind */
	uint8_t type;       /* mcz_type */
	uint16_t flags;     /* mcz_stream_flags */
	double scale;       /* stored value x scale = value in `unit` (1.0 usually) */
	int32_t topo;       /* topology object id, -1 = none / whole node */
} mcz_stream_desc;

#define MCZ_STREAM_DESC_INIT                                                   \
	{ 0, "", "", "", "", "", "", MCZ_GAUGE, MCZ_F64, 0, 1.0, -1 }

typedef enum mcz_topo_type {
	MCZ_TOPO_MACHINE = 0,
	MCZ_TOPO_PACKAGE = 1,
	MCZ_TOPO_NUMA = 2,
	MCZ_TOPO_L3 = 3,
	MCZ_TOPO_L2 = 4,
	MCZ_TOPO_L1 = 5,
	MCZ_TOPO_CORE = 6,
	MCZ_TOPO_PU = 7,
	MCZ_TOPO_GPU = 8,
	MCZ_TOPO_NIC = 9,
	MCZ_TOPO_OTHER = 10,
} mcz_topo_type;

/* A topology object.  Objects form a tree through `parent` (an index into
 * the same table, -1 for the root); a parent always comes before its
 * children in the table. */
typedef struct mcz_topo_obj {
	int32_t parent;   /* -1 for the root */
	uint8_t type;     /* mcz_topo_type */
	int32_t os_index; /* OS number (cpu 3, NUMA node 1), -1 unknown */
	uint64_t size;    /* memory / cache bytes, 0 unknown */
	const char *name; /* "PU#3", "GPU0 NVIDIA H100", "eth0" */
} mcz_topo_obj;

typedef enum mcz_mark_kind {
	MCZ_MARK_POINT = 0,
	MCZ_MARK_BEGIN = 1,
	MCZ_MARK_END = 2,
	MCZ_MARK_GAP = 3, /* data missing from here (e.g. a PCP <mark> record) */
} mcz_mark_kind;

typedef struct mcz_mark {
	int64_t t;        /* ns, recording time */
	uint8_t kind;     /* mcz_mark_kind */
	uint32_t source;  /* who sent it (rank, pid); 0 if unknown */
	const char *text;
} mcz_mark;

/* ---- writing ------------------------------------------------------------- */

typedef struct mcz_writer mcz_writer;

typedef struct mcz_write_opts {
	int64_t wall_epoch_ns;  /* wall-clock (CLOCK_REALTIME) ns of t = 0 */
	uint32_t chunk_rows;    /* flush a chunk after this many rows (default 1024) */
	int64_t chunk_ns;       /* ... or when it spans this long (default 30 s); 0 = no limit */
	int zstd_level;         /* default 3 */
	int fsync_chunks;       /* fsync after each chunk (default 0) */
	int batch;              /* 1: nobody reads the file before it is closed (an
				   import): the metadata and marks wait for the next
				   chunk, so that a small file's fit one block (1.4) */
	int quick;              /* 1: written to be shown at once, not kept (a
				   viewer's conversion): every zstd frame at
				   zstd_level, no layout trials */
} mcz_write_opts;

#define MCZ_WRITE_OPTS_INIT { 0, 1024, 30000000000LL, 3, 0, 0, 0 }

/* Create (truncate) path and write the file header.  opts may be NULL. */
int mcz_writer_open(mcz_writer **w, const char *path, const mcz_write_opts *opts);
/* Same, writing to an already open file descriptor (the writer does not close it). */
int mcz_writer_open_fd(mcz_writer **w, int fd, const mcz_write_opts *opts);

/* Continue the closed recording at path: its streams keep their ids (more
 * may be declared), rows go after its last row, and at close a new index
 * and trailer follow the old ones (SPEC.md 4: no byte already in the file
 * changes).  A file that is damaged, cut, still holds PART blocks, is a job
 * file, or has another format version than this writer writes is refused
 * (MCZ_E_CORRUPT, MCZ_E_VERSION). */
int mcz_writer_resume(mcz_writer **w, const char *path, const mcz_write_opts *opts);

/* Metadata: any time; a later value for a key replaces an earlier one.
 * Conventional keys: host, command, cwd, user, start_wall (ISO 8601),
 * interval_ns, recorder, kernel, cpu_model, rank, timezone. */
int mcz_writer_meta(mcz_writer *w, const char *key, const char *value);

/* The topology table (once; a second call replaces it). */
int mcz_writer_topology(mcz_writer *w, const mcz_topo_obj *objs, size_t n);

/* Declare a stream; its id (0, 1, ...) is stored in *id and in d->id is ignored.
 * Streams may be added after rows were appended: earlier rows lack them. */
int mcz_writer_add_stream(mcz_writer *w, const mcz_stream_desc *d, uint32_t *id);

/* Append one row at time t (ns, strictly increasing).  vals has one entry
 * per stream declared so far (stream id order).  present may be NULL (all
 * present) or a byte per stream, 0 = missing.  Counters are given as raw
 * cumulative values; they are stored as per-interval deltas modulo 2^64. */
int mcz_writer_append(mcz_writer *w, int64_t t, const mcz_value *vals,
		      const uint8_t *present);

/* The same row given by the streams that have a value: vals[i] is stream
 * ids[i]'s, every other stream is missing.  For wide files where each row
 * has few of many streams (a PCP archive's records): the cost is that of n
 * values, not of every stream. */
int mcz_writer_append_sparse(mcz_writer *w, int64_t t, const uint32_t *ids, const mcz_value *vals,
			     size_t n);

int mcz_writer_mark(mcz_writer *w, int64_t t, mcz_mark_kind kind, uint32_t source,
		    const char *text);

/* An auxiliary named block (opaque bytes) e.g. "phases". */
int mcz_writer_aux(mcz_writer *w, const char *name, const void *data, size_t len);

/* Write the pending chunk now (the recorder calls this on a timer). */
int mcz_writer_flush(mcz_writer *w);

/* Make every row appended so far readable from the file without ending the
 * chunk: the rows not yet in the file go into a PART block (SPEC.md 6.4),
 * with the pending descriptors, metadata and marks.  The chunk keeps
 * gathering rows and is written whole later (mcz_writer_flush or when
 * full), so small PART blocks do not make the file larger for good: when
 * the writer was opened by path and wrote PART blocks, mcz_writer_close
 * writes the file again without them and renames it over the path (readers
 * that have the old file open keep a consistent view).  The recorder calls
 * this every second: a SIGKILL or a full disk loses at most that. */
int mcz_writer_sync(mcz_writer *w);

/* Bytes written so far (for progress lines). */
uint64_t mcz_writer_bytes(const mcz_writer *w);

/* Flush, write the index and trailer, close the file, free w.  Returns the
 * first error met during the writer's life (sticky), or MCZ_OK.  Always frees. */
int mcz_writer_close(mcz_writer *w);

/* Append an aux block to an existing, closed file (rewrites the index and
 * trailer at the end; earlier bytes untouched). */
int mcz_append_aux(const char *path, const char *name, const void *data, size_t len);

/* ---- reading ------------------------------------------------------------- */

typedef struct mcz_reader mcz_reader;

typedef struct mcz_file_info {
	uint16_t version_major, version_minor;
	uint64_t file_bytes;
	uint64_t nrows;         /* rows in readable chunks */
	uint64_t nchunks;
	uint64_t nvalues;       /* present values stored */
	int64_t t_first, t_last; /* ns; both 0 when nrows == 0 */
	int64_t wall_epoch_ns;
	int recovered;          /* 1: no valid index; rebuilt by scanning */
	uint64_t valid_bytes;   /* bytes up to the end of the last good block */
	uint64_t skipped_blocks;/* unknown optional blocks skipped */
	uint64_t sample_bytes;  /* bytes in chunk blocks (for bytes/value) */
	uint64_t nparts;        /* of nchunks, PART blocks: rows of a chunk still being
				   gathered (a file being written, or cut) */
	uint64_t part_rows;     /* rows in those PART blocks */
} mcz_file_info;

enum mcz_open_flags {
	MCZ_OPEN_VERIFY = 1u << 0, /* check every block's CRC at open (mcz check) */
};

/* Open a file.  A file whose index is missing or damaged (killed recorder,
 * full disk) is opened by scanning and info->recovered is set; a file that
 * is not mcz, of a newer major version, or empty is refused. */
int mcz_open(mcz_reader **r, const char *path, unsigned flags);
/* Open the recording that fills the open file fd from byte off to its end
 * (a cache entry behind its own header): mapped read-only, fd may be closed
 * afterwards; never refreshed (the file is not expected to change). */
int mcz_open_fd(mcz_reader **r, int fd, uint64_t off, unsigned flags);
/* Open from memory (the buffer must outlive the reader; used by fuzzers). */
int mcz_open_mem(mcz_reader **r, const void *buf, size_t len, unsigned flags);
void mcz_close(mcz_reader *r);
/* A second reader over the bytes r has read (its caches its own, so that
 * another thread may use it while r is used), valid for as long as it is
 * open: r's bytes stay mapped until both are closed.  Not for a file being
 * followed (mcz_reader_refresh may map it anew). */
int mcz_reader_clone(mcz_reader *r, mcz_reader **out);

/* What mcz_reader_refresh found. */
typedef struct mcz_refresh {
	int64_t new_rows;      /* rows now minus rows before (negative only for a
				  file that is not the reference writer's) */
	size_t nchunks;        /* chunks now */
	size_t first_changed;  /* chunks from this one on are new or replaced (a
				  whole chunk replaces the PART blocks it repeats);
				  those before are unchanged: caches keyed by chunk
				  number stay valid below it */
	int replaced;          /* the path names a new file now (the recorder's
				  final copy, written at close); the reader reopened it */
} mcz_refresh;

/* See what was appended to the file since it was opened or last refreshed
 * (a recording still being written): new blocks are read with the same
 * checks as at open, new streams, marks and metadata are added.  out may be
 * NULL.  Pointers returned earlier by mcz_stream(), mcz_mark_at(),
 * mcz_aux() and mcz_topo() are invalid afterwards.  MCZ_E_STATE if the
 * file shrank.  Readers opened from memory use mcz_reader_refresh_mem. */
int mcz_reader_refresh(mcz_reader *r, mcz_refresh *out);
/* The same for a reader opened by mcz_open_mem: buf (len bytes) holds the
 * bytes given before, then the new ones. */
int mcz_reader_refresh_mem(mcz_reader *r, const void *buf, size_t len, mcz_refresh *out);


const mcz_file_info *mcz_info(const mcz_reader *r);

size_t mcz_meta_count(const mcz_reader *r);
/* i-th key and value; returns MCZ_E_RANGE past the end. */
int mcz_meta_at(const mcz_reader *r, size_t i, const char **key, const char **value);
/* Value of key, or NULL. */
const char *mcz_meta(const mcz_reader *r, const char *key);

size_t mcz_topo_count(const mcz_reader *r);
const mcz_topo_obj *mcz_topo(const mcz_reader *r, size_t i);

size_t mcz_stream_count(const mcz_reader *r);
const mcz_stream_desc *mcz_stream(const mcz_reader *r, size_t id);

size_t mcz_mark_count(const mcz_reader *r);
const mcz_mark *mcz_mark_at(const mcz_reader *r, size_t i); /* sorted by t */

/* Raw samples of one stream in [t0, t1).  Counters come back as the raw
 * cumulative values given to the writer (bit-identical), and delta[] holds
 * the per-interval increment (0 for the first sample of the recording).
 * present[i] is 0 where the row lacked the stream. */
typedef struct mcz_series {
	size_t n;
	int64_t *t;
	mcz_value *v;
	uint64_t *delta;   /* counters only, else NULL */
	uint8_t *present;
} mcz_series;

int mcz_read(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, mcz_series *out);

/* A counter's per-second rate from its delta over dt_ns, and its delta as
 * a part of a sum (SPEC.md 7.3).  A delta of 2^63 and more went backwards
 * (a reset, a restarted source, a value logged as a counter that is not
 * one): no rate (NaN) and nothing to a sum, as PCP's tools show no value
 * ("!") rather than 2^64 - k per interval. */
static inline double mcz_counter_rate(uint64_t delta, int64_t dt_ns)
{
	return dt_ns > 0 && delta < (UINT64_C(1) << 63) ? (double)delta * 1e9 / (double)dt_ns
							: __builtin_nan("");
}
static inline double mcz_counter_step(uint64_t delta)
{
	return delta < (UINT64_C(1) << 63) ? (double)delta : 0.0;
}
/* The same rows' values and presence only, into the caller's arrays (at
 * most cap rows; *n says how many): no times, no deltas, nothing
 * allocated.  For readers that fill one array per stream window by window
 * (python/mcz's to_pandas).  MCZ_E_RANGE when the rows pass cap. */
int mcz_read_into(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, mcz_value *v,
		  uint8_t *present, size_t cap, size_t *n);
void mcz_series_free(mcz_series *s);

/* Summary of one stream over a time bucket.  For gauges: min/max/sum over
 * values.  For counters: min/max over per-second rates (delta/dt), sum of
 * deltas.  count = present samples (0: min/max are NaN).  first/last are the
 * times of the first and last sample in the bucket. */
typedef struct mcz_bucket {
	double min, max, sum;
	uint64_t count;
	int64_t first, last;
} mcz_bucket;

/* Chunks found damaged so far: their CRC or columns failed when a read
 * reached them.  Reads (mcz_read, mcz_summary...) go on past a damaged
 * chunk as if it held no samples, so that it hides nothing else; the
 * caller asks here afterwards and says so once.  mcz_damaged_span gives the
 * i-th one's first and last row times (MCZ_E_RANGE past the end).  To know
 * every damaged chunk up front, run mcz_check(). */
size_t mcz_damaged_count(const mcz_reader *r);
/* Blocks found damaged when the file was opened by scanning (a CRC that
 * fails, a header or payload that does not decode), which the reader left
 * out: what they held (marks, descriptors, rows) is missing.  The first
 * one's problem, "CRC mismatch in the block at offset N", into problem
 * (may be NULL).  0 for a file whose blocks are all whole. */
uint64_t mcz_damaged_blocks(const mcz_reader *r, char *problem, size_t len);
int mcz_damaged_span(const mcz_reader *r, size_t i, int64_t *t0, int64_t *t1);

/* Level-0 summaries of stream s, one per chunk (loaded from the index or
 * computed on first use; owned by the reader, and kept at the same address
 * until mcz_query_sums_release of s, mcz_reader_refresh or mcz_close). */
int mcz_query_sums(mcz_reader *r, uint32_t s, const mcz_bucket **sums);
/* Give back stream s's level-0 summaries where the file has an index
 * (info->recovered 0): the next mcz_query_sums loads them from it again.
 * A viewer that keeps its own compact copy need not hold them twice (at
 * 10^10 values they would not fit its memory).  A recovered file's
 * were computed from every chunk's samples, too dear to compute twice:
 * they are kept. */
void mcz_query_sums_release(mcz_reader *r, uint32_t s);
/* Chunk ci's first and last row times and its rows (MCZ_E_RANGE past the
 * last chunk): a stream whose level-0 summaries have these in every chunk
 * was read at every row. */
int mcz_chunk_span(const mcz_reader *r, size_t ci, int64_t *t_first, int64_t *t_last,
		   uint64_t *nrows);
/* Bytes of stream s's column summed over every chunk (s = UINT32_MAX: the
 * time column): what each stream costs on disk. */
int mcz_query_col_bytes(const mcz_reader *r, uint32_t s, uint64_t *bytes);

/* Split [t0, t1) into n equal buckets and summarise each.  Uses the index's
 * summaries where a bucket covers whole chunks, decoding only the chunks that
 * straddle bucket edges (so a zoomed-out query decodes nothing).  Bucket
 * boundaries fall on chunk boundaries when zoomed out: a chunk is counted in
 * the bucket holding its first sample time, so results are exact to chunk
 * resolution, and exact per sample when a bucket is smaller than a chunk. */
int mcz_summary(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, size_t n,
		mcz_bucket *out);

/* mcz_summary of several streams at once, with exactly the same results as
 * calling it for each: out[j * n + b] is bucket b of streams[j] (out holds
 * nstreams x n buckets).  The chunks are walked once: a decoded chunk's
 * timestamps serve every stream, and only the requested columns are
 * decoded.  Streams may repeat.  MCZ_E_RANGE if any id is out of range. */
int mcz_summary_multi(mcz_reader *r, const uint32_t *streams, size_t nstreams, int64_t t0,
		      int64_t t1, size_t n, mcz_bucket *out);

/* The reader keeps decoded columns (timestamps, values) of recently read
 * chunks, so repeated queries (zoom, pan, stream after stream) decode a
 * column once.  Bound of that cache in bytes (default 8 MiB; 0: keep only
 * what the current query needs).  Results never depend on it. */
void mcz_cache_limit(mcz_reader *r, size_t bytes);

/* Aux blocks: the most recent one named `name`.  *data points into reader
 * memory. */
int mcz_aux(const mcz_reader *r, const char *name, const void **data, size_t *len);

/* ---- code profiles (SPEC.md 5.6, since 1.2) ------------------------------ */

/* Where the recorded command ran: per interval, a sparse histogram
 * (location -> samples of the sampled instruction pointer) and the table
 * of locations, symbolized at the end of the recording so that the file
 * needs no binary to be read.  At most one per file (the last CODE block
 * wins).
 *
 *     mcz_code c = {0};                  // fill the tables, then
 *     mcz_writer_code(w, &c);            // before mcz_writer_close
 *     const mcz_code *rc;
 *     if (mcz_code_get(r, &rc) == MCZ_OK)
 *         for (size_t i = 0; i < rc->nintervals; i++)
 *             for (size_t h = rc->first[i]; h < rc->first[i + 1]; h++)
 *                 use(rc->t[i], &rc->locs[rc->hits[h].loc], rc->hits[h].count);
 */
typedef struct mcz_code_object {
	const char *path;     /* "/usr/bin/app", "[anon]", "[unknown]" */
	const char *build_id; /* lowercase hex, "" unknown */
	const char *note;     /* "no symbols", "deleted during the run", "" */
} mcz_code_object;

enum mcz_code_how {
	MCZ_CODE_ADDR = 0,   /* object + offset only */
	MCZ_CODE_SYMTAB = 1, /* function from the symbol table */
	MCZ_CODE_DWARF = 2,  /* function, inline chain, file:line from DWARF */
};

typedef struct mcz_code_loc {
	uint32_t object;      /* index into objects */
	uint64_t offset;      /* address in the object (ELF virtual address) */
	uint8_t how;          /* mcz_code_how */
	const char *function; /* innermost function, "" unknown */
	const char *inlined;  /* the functions it is inlined into, innermost
				 first, ';' between them; "" none */
	const char *file;     /* source file, "" unknown */
	uint32_t line;        /* 0 unknown */
} mcz_code_loc;

typedef struct mcz_code_hit {
	uint32_t loc;   /* index into locs */
	uint32_t count; /* samples, >= 1 */
} mcz_code_hit;

/* Who called a location (with callchains): samples at loc whose caller's
 * return address lies at location caller, over the whole run. */
typedef struct mcz_code_edge {
	uint32_t loc, caller;
	uint32_t count; /* >= 1 */
} mcz_code_edge;

/* A thread of the recorded command (SPEC.md 5.12, since 1.6). */
typedef struct mcz_code_thread {
	uint32_t pid, tid;
} mcz_code_thread;

/* Samples of one thread at one location in one interval. */
typedef struct mcz_code_thit {
	uint32_t interval; /* index into t */
	uint32_t thread;   /* index into threads */
	uint32_t loc;      /* index into locs */
	uint32_t count;    /* >= 1 */
} mcz_code_thit;

/* A frame of the call stacks (a CODESTACKS block, SPEC.md 5.13, since
 * 1.7): a location called from its parent frame.  The frames form a tree
 * whose roots (parent MCZ_CODE_ROOT) are the outermost callers; the path
 * from a root to a frame is one call stack, its last frame the sampled
 * location.  Parents come before their children. */
#define MCZ_CODE_ROOT UINT32_MAX
typedef struct mcz_code_frame {
	uint32_t parent; /* index into frames, MCZ_CODE_ROOT: outermost */
	uint32_t loc;    /* index into locs */
} mcz_code_frame;

/* Samples of one thread in one interval whose stack is the path to frame. */
typedef struct mcz_code_stackhit {
	uint32_t interval; /* index into t */
	uint32_t thread;   /* index into threads (0 when the file names none) */
	uint32_t frame;    /* index into frames */
	uint32_t count;    /* >= 1 */
} mcz_code_stackhit;

typedef struct mcz_code {
	const char *event;   /* "cpu-clock" */
	uint64_t period;     /* ns of CPU time per sample (1e9 / frequency for an event
				sampled at a frequency, e.g. cycles) */
	int64_t interval_ns; /* length of a histogram interval */
	const char *note;    /* what was missing, free text, "" */
	size_t nobjects;
	const mcz_code_object *objects;
	size_t nlocs;
	const mcz_code_loc *locs;
	size_t nintervals;
	const int64_t *t;    /* start of interval i (recording time), increasing */
	const size_t *first; /* nintervals + 1 entries: the hits of interval i are
				hits[first[i] .. first[i + 1]), locs increasing */
	size_t nhits;
	const mcz_code_hit *hits;
	size_t ncallers;     /* 0 without callchains */
	const mcz_code_edge *callers; /* sorted by (loc, caller), each pair once */
	/* The hits split by thread (a CODETHREADS block, since 1.6); 0 and
	 * NULL when the file does not say (recorded before 1.6).  Sorted by
	 * (interval, thread, loc), each triple once. */
	size_t nthreads;
	const mcz_code_thread *threads; /* in the order they were first sampled */
	size_t nthits;
	const mcz_code_thit *thits;
	/* The call stacks (a CODESTACKS block, since 1.7; recorded with
	 * --call-graph); 0 and NULL otherwise.  stackhits sorted by
	 * (interval, thread, frame), each triple once. */
	size_t nframes;
	const mcz_code_frame *frames;
	size_t nstackhits;
	const mcz_code_stackhit *stackhits;
} mcz_code;

/* The name people read for a location's function (code-name.c): sym as
 * stored (a C++ or Rust linkage name, a clone "f.isra.0") demangled by
 * libstdc++'s __cxa_demangle and its clone suffixes folded, as `perf
 * report` prints it.  full (fullsz > 0) gets the signature
 * ("ns::C<double>::f(long)"), brief (may be NULL) the qualified name alone
 * ("ns::C<double>::f"); a plain C name goes to both as it is, without its
 * clone suffix.  Truncated to fit, always terminated.  1 when demangled. */
int mcz_code_name(const char *sym, char *full, size_t fullsz, char *brief, size_t briefsz);
/* The brief form of a full name (mcz_code_name's): its return type and
 * parameter list dropped.  1 when something was dropped. */
int mcz_code_name_brief(const char *full, char *out, size_t len);

/* The frames location loc of c stands for in a call stack, as folded
 * stacks write them (mcz dump --code --folded, the flame view): outermost
 * first, ';' between them, each a function's brief name (mcz_code_name);
 * a location inlined into others is one frame per function, one without a
 * function its object's base name in brackets ("[libfoo.so]"); ';' inside
 * a name becomes ':', a line break a space.  Into buf (always terminated,
 * cut to fit); returns how many frames. */
size_t mcz_code_loc_frames(const mcz_code *c, size_t loc, char *buf, size_t len);

/* Write c as a CODE block now (the recorder does it once, at the end). */
int mcz_writer_code(mcz_writer *w, const mcz_code *c);
/* The file's code profile (decoded on first call, owned by the reader);
 * MCZ_E_NOTFOUND when it has none, MCZ_E_CORRUPT when its block is bad
 * (the rest of the file reads as usual). */
int mcz_code_get(mcz_reader *r, const mcz_code **c);
/* The CODE payload codec itself (tests, fuzzers): encode into a malloc'd
 * buffer; decode into one allocation freed by mcz_code_free. */
int mcz_code_encode(const mcz_code *c, void **buf, size_t *len);
int mcz_code_decode(const void *buf, size_t len, mcz_code **c);
/* The CODETHREADS payload of c's per-thread hits (MCZ_E_NOTFOUND when c
 * has no threads), and its decoding into a profile mcz_code_decode made
 * (checked against its intervals and locations). */
int mcz_code_encode_threads(const mcz_code *c, void **buf, size_t *len);
int mcz_code_decode_threads(mcz_code *c, const void *buf, size_t len);
/* The same for the CODESTACKS payload of c's stacks (MCZ_E_NOTFOUND when
 * c has none). */
int mcz_code_encode_stacks(const mcz_code *c, void **buf, size_t *len);
int mcz_code_decode_stacks(mcz_code *c, const void *buf, size_t len);
void mcz_code_free(mcz_code *c);

/* The code samples as the recorder gathered them, unsymbolized: written
 * while it records (CODEPART blocks, SPEC.md 5.11, since 1.6), so that a
 * recorder killed before its CODE block keeps its code profile.  A cell is
 * the samples of one interval at one (object, file offset), with the
 * place its caller returns to when callchains were sampled. */
typedef struct mcz_code_raw_object {
	const char *path;     /* as the kernel named the mapping */
	const char *build_id; /* lowercase hex, "" unknown */
	uint8_t file;         /* 1: a file to read symbols from */
} mcz_code_raw_object;

typedef struct mcz_code_cell {
	int64_t t;     /* the interval's start, recording time */
	uint32_t thr;  /* index into threads */
	uint32_t obj;  /* index into objects */
	uint64_t off;  /* file offset in the object (its address if not a file) */
	uint32_t cobj; /* the caller's place (return address - 1); UINT32_MAX none */
	uint64_t coff;
	uint32_t count; /* >= 1 */
	uint32_t stk;   /* since 1.7: the callers' frame (the innermost caller's;
			   its path to a root is the whole chain), MCZ_CODE_ROOT none */
} mcz_code_cell;

/* A frame of the parts' call stacks (a CODEPARTSTACKS block, SPEC.md
 * 5.14, since 1.7): a caller's place (its return address - 1) called from
 * its parent frame (MCZ_CODE_ROOT: an outermost caller). */
typedef struct mcz_code_rawframe {
	uint32_t parent;
	uint32_t obj;
	uint64_t off;
} mcz_code_rawframe;

typedef struct mcz_code_raw {
	const char *event;
	uint64_t period;
	int64_t interval_ns;
	size_t nobjects;
	const mcz_code_raw_object *objects;
	size_t obj_base;            /* writing: objects[0..obj_base) are in earlier parts
				       (only the others are written); merged: 0 */
	size_t nthreads;            /* the threads so far, as the objects */
	const mcz_code_thread *threads;
	size_t thr_base;            /* writing: threads[0..thr_base) are in earlier parts */
	size_t ncells;
	const mcz_code_cell *cells; /* merged: sorted by t, obj, off, cobj, coff */
	size_t nparts;              /* CODEPART blocks merged */
	size_t bad_parts;           /* CODEPART blocks that did not decode, left out */
	size_t nframes;             /* the frames of the cells' stacks, as the objects */
	const mcz_code_rawframe *frames;
	size_t frame_base;          /* writing: frames[0..frame_base) are in earlier parts */
} mcz_code_raw;

/* Write the cells gathered since the last part as a CODEPART block; the
 * objects are the recorder's whole table so far (indexes never change),
 * of which those from obj_base on are written. */
int mcz_writer_code_part(mcz_writer *w, const mcz_code_raw *part);
/* The file's CODEPART blocks merged (owned by the reader); MCZ_E_NOTFOUND
 * when it has none. */
int mcz_code_raw_get(mcz_reader *r, const mcz_code_raw **raw);
/* A file without a CODE block but with parts (its recorder was killed):
 * mcz_code_get gives the parts as a profile, its locations named by the
 * symbolizer set here (mcview and mcz set one that reads this host's
 * binaries, matched by build-id), or by object and offset alone.  The
 * symbolizer returns a CODE payload (mcz_code_encode's) in malloc'd
 * memory (and the CODETHREADS payload in *tpayload, the CODESTACKS one in
 * *spayload, NULL when none), or
 * non-zero to leave the locations unnamed.  Process-wide; set
 * it before opening files. */
typedef int (*mcz_code_symbolizer)(const mcz_code_raw *raw, void **payload, size_t *len,
				   void **tpayload, size_t *tlen, void **spayload, size_t *slen);
void mcz_code_set_symbolizer(mcz_code_symbolizer fn);
/* 1 when mcz_code_get's profile was made from CODEPART blocks (no CODE
 * block: the recording was cut before its end). */
int mcz_code_from_parts(const mcz_reader *r);

/* ---- job files (since 1.4) ---------------------------------------------- */

/* A job file (`mcz merge`) holds the rank files of a parallel job, each a
 * whole recording kept byte for byte in a MEMBER block (SPEC.md 5.9); it
 * has no streams of its own.  A member is opened as a reader over the job
 * file's bytes; the job file stays open until its last member is closed. */
size_t mcz_member_count(const mcz_reader *r);
/* Members the job file says it holds (its "members" key), 0 if unknown: more
 * than mcz_member_count when the file was cut before some of them. */
size_t mcz_member_expected(const mcz_reader *r);
/* 1: member i is cut short (the file ends inside it): listed by name,
 * mcz_member_open refuses it (MCZ_E_TRUNCATED). */
int mcz_member_is_cut(const mcz_reader *r, size_t i);
/* The member's name (the rank file's name when merged), NULL past the end. */
const char *mcz_member_name(const mcz_reader *r, size_t i);
/* Where its bytes are in the job file. */
int mcz_member_span(const mcz_reader *r, size_t i, uint64_t *off, uint64_t *len);
/* Its bytes (valid while r is open), NULL past the end. */
const void *mcz_member_bytes(const mcz_reader *r, size_t i, size_t *len);
int mcz_member_open(mcz_reader *r, size_t i, unsigned flags, mcz_reader **out);
/* A reader of a member (mcz_member_open, or mcz_open of "JOB:NAME"): its
 * name in the job file, and its bytes there (valid while r is open); NULL
 * for a reader of a file of its own. */
const char *mcz_member_self(const mcz_reader *r, const void **bytes, size_t *len);
/* Append a member: a whole recording's bytes, under a name.  At most 2 GiB
 * each. */
int mcz_writer_member(mcz_writer *w, const char *name, const void *file, size_t len);

/* ---- verification (mcz check) ------------------------------------------- */

typedef struct mcz_check_report {
	uint64_t blocks_ok, blocks_bad, chunks_ok, rows_ok;
	uint64_t valid_bytes, file_bytes;
	int index_ok;      /* trailer and index present and consistent */
	char first_problem[160]; /* "" when clean */
} mcz_check_report;

int mcz_check(const char *path, mcz_check_report *rep);
/* The same for member i of a job file (the job file's own blocks are
 * mcz_check's). */
int mcz_check_member(mcz_reader *job, size_t i, mcz_check_report *rep);

/* Write a clean copy of everything readable in `in` to `out` (through
 * mcz_outpath: an earlier out survives a failure; out being in itself is
 * MCZ_E_ARG, refused before anything is written). */
int mcz_repair(const char *in, const char *out);

/* ---- the roofline's ceilings in metadata (roof.c, SPEC.md 5.1) ------------ */

/* The value of roof.KEY: MCZ_OK with *v, MCZ_E_NOTFOUND when text is NULL
 * or empty, MCZ_E_RANGE (detail: "roof.flops = 1e-300 is not a plausible
 * rate (1e6 to 1e18 FLOP/s)") when it is not a plausible figure of one
 * node: 1e6 to 1e15 B/s for the bandwidths (keys ending Bps), 1e6 to 1e18
 * FLOP/s for the rates.  *v is NaN unless MCZ_OK. */
int mcz_roof_parse(const char *key, const char *text, double *v);
/* All CPUs do at least what one core does: MCZ_OK, or MCZ_E_RANGE. */
int mcz_roof_consistent(double flops, double flops_1core, double scalar, double scalar_1core);

/* v with an SI prefix (n u m, k M G T P E) and 3 significant digits, then the
 * unit: "12.3 GB/s", "950 mW", "0", "-" for NaN; a unit starting with '%'
 * gets no prefix (units.c).  Returns the length written. */
size_t mcz_units_si(char *buf, size_t len, double v, const char *unit);

/* ---- strings from a file, shown on a terminal (termsafe.c) ---------------- */

/* src with every byte a terminal would obey escaped as git and ls -b do:
 * \n \t \r, other controls, DEL, C1 and bytes not UTF-8 as \ooo (ESC:
 * \033); other text unchanged.  Written into dst as snprintf does (never
 * half an escape); returns the length of the whole escaped string. */
size_t mcz_termsafe(char *dst, size_t len, const char *src);
/* src as the body of a JSON string (no quotes) that is valid UTF-8: '"'
 * and '\\' escaped, controls, DEL and C1 as \u00XX, and each byte that is
 * not UTF-8 as the code point of its number (\u009b for 0x9b); other text
 * unchanged.  Written as mcz_termsafe writes; returns the whole length. */
size_t mcz_json_escape(char *dst, size_t len, const char *src);

/* ---- the user's cache folder (cachedir.c) --------------------------------- */

/* What the programs learnt and may learn again (topology, ceilings, phases)
 * lives in $XDG_CACHE_HOME/mcz, else ~/.cache/mcz — never in a recording.
 * The folder (create: made 0700 if missing); MCZ_E_NOTFOUND without a home;
 * MCZ_E_IO when it is a symbolic link (never followed), not a folder, or
 * not the user's own. */
int mcz_cachedir(char *dir, size_t len, int create);
/* Path of `name` in it. */
int mcz_cachedir_path(char *buf, size_t len, const char *name, int create);
/* Open path for reading without ever blocking: a FIFO or device in its
 * place is MCZ_E_IO ("not a regular file"); MCZ_E_NOTFOUND when absent. */
int mcz_cachedir_open(const char *path, int *fd);
/* Write path whole or not at all (a temporary name in its folder, renamed). */
int mcz_cachedir_write(const char *path, const void *buf, size_t len);
/* A verified blob of the cache under `name` (framed with its length and a
 * CRC32): store replaces it atomically, load gives a malloc'd copy or
 * MCZ_E_NOTFOUND (none, or MCZ_NO_CACHE set) or MCZ_E_CORRUPT (not whole). */
int mcz_cachedir_store(const char *name, const void *data, size_t len);
int mcz_cachedir_load(const char *name, void **data, size_t *len);
/* A regular file's identity as text: device, inode, size, mtime (ns). */
int mcz_cachedir_identity(const char *path, char *id, size_t len);

/* ---- the recordings a user named on a command line (inpaths.c) ---------- */

enum mcz_inpaths_flags {
	/* a folder without .mcz files but with PCP archives stays one word (the
	 * viewer opens a folder of archives), instead of being refused */
	MCZ_INPATHS_PCP_DIR = 1u << 0,
};
/* The words given, each folder replaced by its .mcz files (in name order,
 * digit runs compared as numbers: run.2.mcz before run.10.mcz) and each
 * @FILE by the paths FILE lists, one a line ('#' comments, blank lines
 * skipped; @- standard input; a folder or @list listed is expanded too);
 * any other word as it is.  *paths: *n strings then NULL, freed with
 * mcz_inpaths_free.  A folder with no .mcz file is MCZ_E_NOTFOUND (and
 * names how a PCP archive in it opens), a list that cannot be read
 * MCZ_E_IO, a list naming itself MCZ_E_ARG; mcz_errdetail() is then the
 * whole line, starting with the path. */
int mcz_inpaths_expand(const char *const *words, size_t nwords, unsigned flags, char ***paths,
		       size_t *n);
void mcz_inpaths_free(char **paths);

/* ---- where a program writes what a user named (outpath.c) --------------- */

/* An output path: `write` is the name to write (a new temporary beside the
 * file it replaces, or a device itself); commit renames it over the file
 * only once whole, abort removes it.  A device is written into, never
 * renamed or removed; a folder (MCZ_E_ISDIR), a FIFO or a socket
 * (MCZ_E_ARG) is refused by begin, with the reason in mcz_errdetail(). */
typedef struct mcz_outpath {
	char *write;        /* the name to write */
	char *target;       /* what commit renames over; NULL: a device, written in place */
	int exists;         /* the path named a file already: dev, ino are its */
	int kept_old;       /* commit(keep_old) kept the earlier file as NAME.old */
	uint64_t dev, ino;
} mcz_outpath;
int mcz_outpath_begin(mcz_outpath *o, const char *path);
/* 1 when the output is the file `input` names (by st_dev and st_ino, after
 * symlinks; "JOB.mcz:NAME": the job file): the caller refuses, before
 * anything is written. */
int mcz_outpath_is(const mcz_outpath *o, const char *input);
/* Rename the whole file into place (keep_old: an earlier regular file kept
 * as NAME.old, as mcrec does); frees o.  abort: the temporary removed. */
int mcz_outpath_commit(mcz_outpath *o, int keep_old);
void mcz_outpath_abort(mcz_outpath *o);

#ifdef __cplusplus
}
#endif
#endif
