/* internal.h: what the files of libmcz share and nothing outside format/
 * may include: the growable output buffer and bounded input cursor, the
 * block framing, the chunk and index codecs, and the error setter.
 *
 * Byte order everywhere is little-endian (SPEC.md "Conventions").  Every
 * reading helper works on an mcz_cur, which never reads past its end: the
 * first out-of-bounds or malformed read sets a sticky error and later reads
 * return zeros, so a parser checks cur.err once at the end (rio.c style).
 */
#ifndef MCZ_INTERNAL_H
#define MCZ_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "mcz.h"

/* ---- error.c ------------------------------------------------------------ */
/* Record a detail for mcz_errdetail() and return err. */
int mcz_error_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcz_error_clear(void);

/* ---- buf.c: growable output buffer with a sticky error ----------------- */
typedef struct mcz_buf {
	uint8_t *p;
	size_t len, cap;
	int err; /* MCZ_E_NOMEM once an allocation failed */
} mcz_buf;

int mcz_buf_reserve(mcz_buf *b, size_t more);
void mcz_buf_put(mcz_buf *b, const void *src, size_t n);
void mcz_buf_u8(mcz_buf *b, uint8_t v);
void mcz_buf_u16(mcz_buf *b, uint16_t v);
void mcz_buf_u32(mcz_buf *b, uint32_t v);
void mcz_buf_u64(mcz_buf *b, uint64_t v);
void mcz_buf_f64(mcz_buf *b, double v);
void mcz_buf_uv(mcz_buf *b, uint64_t v); /* LEB128 varint */
void mcz_buf_sv(mcz_buf *b, int64_t v);  /* zigzag then varint */
void mcz_buf_str(mcz_buf *b, const char *s); /* varint length + bytes */
void mcz_buf_free(mcz_buf *b);
/* Grow an array *p of *cap elements of elem bytes to hold need (doubling). */
int mcz_buf_grow_array(void **p, size_t *cap, size_t need, size_t elem);
static inline uint64_t mcz_buf_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t mcz_buf_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
void mcz_buf_le32(uint8_t *p, uint32_t v);
void mcz_buf_le64(uint8_t *p, uint64_t v);

/* ---- cur.c: bounded input cursor with a sticky error -------------------- */
typedef struct mcz_cur {
	const uint8_t *p, *end;
	int err; /* MCZ_E_CORRUPT once a read went out of bounds */
} mcz_cur;

static inline mcz_cur mcz_cur_make(const void *p, size_t n)
{
	const uint8_t *b = p;
	mcz_cur c = {b, n ? b + n : b, 0}; /* an empty mcz_buf's p is NULL: NULL + 0 is undefined */
	return c;
}
static inline size_t mcz_cur_left(const mcz_cur *c)
{
	return (size_t)(c->end - c->p);
}
uint8_t mcz_cur_u8(mcz_cur *c);
uint16_t mcz_cur_u16(mcz_cur *c);
uint32_t mcz_cur_u32(mcz_cur *c);
uint64_t mcz_cur_u64(mcz_cur *c);
double mcz_cur_f64(mcz_cur *c);
uint64_t mcz_cur_uv_slow(mcz_cur *c);
/* Varints: the one- and two-byte cases inline, the rest in cur.c. */
static inline uint64_t mcz_cur_uv(mcz_cur *c)
{
	if (c->end - c->p >= 2 && !c->err) {
		uint8_t b0 = c->p[0];
		if (b0 < 0x80) {
			c->p++;
			return b0;
		}
		if (c->p[1] < 0x80) {
			c->p += 2;
			return (uint64_t)(b0 & 0x7f) | (uint64_t)c->p[-1] << 7;
		}
	}
	return mcz_cur_uv_slow(c);
}
/* Whether t0 + span (span read from the file) fits an int64_t: the
 * check itself must not overflow when t0 is negative. */
static inline int mcz_span_fits(int64_t t0, uint64_t span)
{
	if (span > (uint64_t)INT64_MAX)
		return 0;
	return t0 <= 0 || (int64_t)span <= INT64_MAX - t0;
}

static inline int64_t mcz_cur_sv(mcz_cur *c)
{
	uint64_t v = mcz_cur_uv(c);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
/* A count that must not exceed the bytes left divided by min_bytes_each
 * (each item takes at least that many bytes): the guard against hostile
 * counts asking for huge allocations. */
uint64_t mcz_cur_count(mcz_cur *c, size_t min_bytes_each);
const uint8_t *mcz_cur_bytes(mcz_cur *c, size_t n);
/* A string, copied and NUL-terminated (malloc); NULL with err set on failure. */
char *mcz_cur_strdup(mcz_cur *c);
uint32_t mcz_cur_le32(const uint8_t *p);
uint64_t mcz_cur_le64(const uint8_t *p);

/* ---- block.c: block framing -------------------------------------------- */
#define MCZ_MAGIC "\x89MCZ\r\n\x1a\n"
#define MCZ_HEADER_SIZE 20
#define MCZ_BLOCK_HDR 16
#define MCZ_BLOCK_OVERHEAD 20 /* header + payload CRC */
#define MCZ_TRAILER_SIZE 24
#define MCZ_TRAILER_MAGIC "mczTRAIL"
#define MCZ_BLOCK_SYNC "mczB"
#define MCZ_BLOCK_MAX_PAYLOAD 0x7fffffffu

enum mcz_block_type {
	MCZ_BT_META = 1,
	MCZ_BT_TOPO = 2,
	MCZ_BT_STREAMS = 3,
	MCZ_BT_CHUNK = 4,
	MCZ_BT_MARKS = 5,
	MCZ_BT_AUX = 6,
	MCZ_BT_INDEX = 7,
	MCZ_BT_PART = 8, /* since 1.1: rows of the chunk being gathered */
	MCZ_BT_CODE = 9, /* since 1.2: the code profile (code-block.c) */
	MCZ_BT_GCHUNK = 10, /* since 1.3: rows of samples, narrow columns grouped (gchunk.c); critical */
	MCZ_BT_COLSTREAMS = 11, /* since 1.3: stream descriptors column by column (scols.c); critical */
	MCZ_BT_MEMBER = 12, /* since 1.4: a whole recording inside a job file (member.c); critical */
	MCZ_BT_BUNDLE = 13, /* since 1.4: several metadata bodies in one frame (bundle.c); critical */
	MCZ_BT_REQUIRES = 14, /* since 1.5: the minor version the file's blocks need (block.c); critical */
	MCZ_BT_CODEPART = 15, /* since 1.6: code samples written while recording (code-part.c) */
	MCZ_BT_CODETHREADS = 16, /* since 1.6: the code profile's hits by thread (code-threads.c) */
	MCZ_BT_CODESTACKS = 17, /* since 1.7: the code profile's call stacks (code-stacks.c) */
	MCZ_BT_CODEPARTSTACKS = 18, /* since 1.7: the call stacks of a CODEPART block (code-part.c) */
};
/* A block of rows: CHUNK, PART or GCHUNK. */
static inline int mcz_block_is_chunk(uint16_t type)
{
	return type == 4 || type == 8 || type == 10;
}
#define MCZ_BF_CRITICAL 0x0001u
#define MCZ_BF_RESERVED 0xfffeu

typedef struct mcz_block_hdr {
	uint16_t type, flags;
	uint32_t len; /* payload bytes */
} mcz_block_hdr;

void mcz_block_header(uint8_t out[MCZ_HEADER_SIZE], uint16_t minor);
/* 0, MCZ_E_NOTMCZ, MCZ_E_VERSION, MCZ_E_CORRUPT, MCZ_E_TRUNCATED. */
int mcz_block_check_header(const uint8_t *p, size_t avail, uint16_t *major, uint16_t *minor);
/* Append a framed block (header, payload, CRC) to out. */
void mcz_block_frame(mcz_buf *out, uint16_t type, uint16_t flags, const void *payload,
		     size_t len);
/* Parse the block header at p with `avail` bytes from p to the end of the
 * data; checks sync, header CRC, reserved flags and that the whole block
 * fits.  MCZ_E_CORRUPT / MCZ_E_TRUNCATED on failure. */
int mcz_block_parse(const uint8_t *p, size_t avail, mcz_block_hdr *h);
/* Verify the payload CRC of a block whose header parsed. */
int mcz_block_verify(const uint8_t *p, const mcz_block_hdr *h);
void mcz_block_trailer(uint8_t out[MCZ_TRAILER_SIZE], uint64_t index_off);
int mcz_block_parse_trailer(const uint8_t *p, uint64_t *index_off);
uint32_t mcz_block_crc(const void *p, size_t n);
struct mcz_codec_ctx;
/* META, TOPO, STREAMS and MARKS payloads are a packing byte (0 raw, 1 zstd)
 * and the body (SPEC.md 5). */
int mcz_block_small(uint16_t type);
int mcz_block_pack(struct mcz_codec_ctx *cx, const mcz_buf *body, mcz_buf *out);
/* The same at a given zstd level (a CODE block: 19, it is written once). */
int mcz_block_pack_at(struct mcz_codec_ctx *cx, const mcz_buf *body, mcz_buf *out, int level);
/* The zstd level of a metadata block (STREAMS, COLSTREAMS, BUNDLE) of len
 * bytes: the packing level (mcz_pack_level) for a batch writer or from
 * 32 KiB on (where a hard level saves kilobytes), the writer's own level
 * below that (a live writer's few KB: level 19 saves tens of bytes for
 * more CPU than the rest of its metadata); a batch writer's own level from 512 KiB on, and
 * MCZ_PACK_SMALL below MCZ_PACK_SMALL_BYTES. */
int mcz_meta_level(const struct mcz_codec_ctx *cx, size_t len);
/* A batch writer's metadata bodies under MCZ_PACK_SMALL_BYTES are packed at
 * MCZ_PACK_SMALL: its strategy (lazy2) loads the built-in dictionary ten
 * times faster than the binary trees of MCZ_PACK_BATCH, whose loading
 * alone outlasts `pmdumplog -a` on a small archive.  The archives whose
 * metadata is that small grow by about a percent (tens of bytes), none
 * nearer xz -9 than the worst of pcp-testsuite (bench-pcp-all.sh,
 * bench-storage.sh). */
#define MCZ_PACK_SMALL 9
#define MCZ_PACK_SMALL_BYTES (8u << 10)
/* The level frames and large metadata are packed at: 19, or
 * MCZ_PACK_BATCH for a batch writer (mcz import).  Over pcp-testsuite's
 * archives level 15 gives the same median size against xz -9 as 19 and
 * nearly the same worst, for much less of the import's CPU: on
 * repetitive text 19's optimal parser costs far more than it saves. */
#define MCZ_PACK_BATCH 15
int mcz_pack_level(const struct mcz_codec_ctx *cx);
int mcz_block_unpack(struct mcz_codec_ctx *cx, const uint8_t *p, size_t len, mcz_buf *tmp,
		     const uint8_t **body, size_t *blen);
/* The same with packings up to max_packing (2 in a BUNDLE: the frame
 * compressed against the built-in dictionary). */
int mcz_block_unpack_as(struct mcz_codec_ctx *cx, const uint8_t *p, size_t len, mcz_buf *tmp,
			const uint8_t **body, size_t *blen, int max_packing);

/* ---- bundle.c: BUNDLE blocks (since 1.4) --------------------------------- */
/* Append one body of a META, TOPO, STREAMS, COLSTREAMS or MARKS block. */
void mcz_bundle_add(mcz_buf *items, uint16_t type, const mcz_buf *body);
/* The BUNDLE payload of n items: as is, zstd, or (dict 1) zstd with the
 * built-in dictionary, whichever is smallest; dict 2: as is or with the
 * dictionary only.  At zstd level level (0: mcz_meta_level's). */
int mcz_bundle_pack(struct mcz_codec_ctx *cx, const mcz_buf *items, size_t n, int dict, int level,
		    mcz_buf *out);
/* The next item of a body: its block type and bytes. */
int mcz_bundle_next(mcz_cur *c, uint16_t *type, const uint8_t **p, size_t *len);
/* mdict.c: the built-in dictionary number 1 (raw content). */
const uint8_t *mcz_mdict(size_t *len);
/* Load the dictionary for BUNDLE frames at zstd level on a thread while
 * the writer gathers its first chunk (a batch writer: mcz import, once its
 * descriptors pass MCZ_PACK_SMALL_BYTES); once per cx, freed with cx
 * (mcz_codec_ctx_free).  At MCZ_PACK_SMALL it is loaded when first used. */
void mcz_bundle_prepare(struct mcz_codec_ctx *cx, int level);

/* ---- codec.c: one column of a chunk ------------------------------------- */
enum mcz_codec_id {
	MCZ_CODEC_EMPTY = 0,        /* no present value */
	MCZ_CODEC_TIME = 1,         /* timestamps: zigzag delta-of-delta, varints */
	MCZ_CODEC_COUNTER = 2,      /* counter head, deltas as varints */
	MCZ_CODEC_INT = 3,          /* integer gauge: zigzag differences, varints */
	MCZ_CODEC_FLOAT = 4,        /* float gauge: XOR with previous, 8 planes */
	MCZ_CODEC_COUNTER_DOD = 5,  /* counter head, zigzag delta-of-delta, varints */
	MCZ_CODEC_COUNTER_SHUF = 6, /* counter head, deltas shuffled */
	MCZ_CODEC_INT_SHUF = 7,     /* integer gauge: zigzag differences shuffled */
	MCZ_CODEC_FLOAT_DEC = 8,    /* float gauge of decimals: digits, integer differences */
	MCZ_CODEC_COUNTER_DOD_SHUF = 9, /* counter head, zigzag delta-of-delta shuffled */
	MCZ_CODEC_CONST = 10,       /* one value (gauges) or one delta (counters) for all */
	MCZ_CODEC_SAME = 11,        /* the same bytes as an earlier stream's column */
	MCZ_CODEC_COUNTER_RATE = 12, /* counter head, deltas predicted from rate x dt */
	MCZ_CODEC_COUNTER_RATE_SHUF = 13, /* the same, shuffled */
	MCZ_CODEC_TIME_SHUF = 14,   /* timestamps: first, then zigzag delta-of-deltas shuffled */
	MCZ_CODEC_TIME_LAG = 15,    /* since 1.4: timestamps: intervals in units of their gcd,
				       each against the one lag rows before */
	MCZ_CODEC_MAX = 15,         /* highest codec id */
};
#define MCZ_COL_ZSTD 0x01u
#define MCZ_COL_BITMAP 0x02u
#define MCZ_COL_RESERVED 0xfcu

/* Per-stream state a counter column carries across chunks. */
typedef struct mcz_codec_prev {
	uint64_t raw; /* last present raw value */
	int64_t t;    /* its time */
	int have;
} mcz_codec_prev;

/* A column whose codec's bytes are narrower than this may join a shared
 * zstd frame of a GCHUNK (gchunk.c); a wider one keeps its own frame. */
#define GCHUNK_NARROW 4096u

typedef struct mcz_codec_ctx {
	void *zc, *zd; /* ZSTD_CCtx; the ZSTD_DCtx of the thread that last decoded
			  (mcz_codec_dctx: shared by a thread's readers) */
	int level;
	int fast;      /* PART blocks: no zstd, the codecs alone */
	int v14;       /* codecs of 1.4 allowed (a file that holds a BUNDLE block) */
	int v15;       /* runs transposed by metric allowed (1.5): 1, a REQUIRES
			  block of 5 to be written before the chunk; 2, written */
	mcz_buf *alt;  /* not NULL: each column also appended here in its best
			  shuffled packing, or CONST (mcz_chunk_encode2) */
	mcz_buf alt_best;
	int alt_ok;
	int thorough;  /* a batch writer (mcz import): metadata blocks packed at
			  level 19 and GCHUNK runs tried transposed; a live one
			  (mcrec) does so only for large metadata and runs of many
			  columns (wide data): on a recorder's few dozen streams
			  the trials would cost more CPU than they save bytes
			  (mcz_meta_level) */
	int quick;     /* a viewer's conversion (mcz_write_opts.quick): every
			  frame at `level`, one layout, no second grouping */
	mcz_buf tmp, tmp2, best, bm;
	struct mcz_codec_ctx *peer; /* a batch writer's second thread's own
				       (mcz_chunk_encode2), made at its first chunk */
	struct mcz_mdict_prep *prep; /* the dictionary prepared (bundle.c) */
	/* frees prep: set by bundle.c with it, so that the codecs, below the
	 * metadata blocks, never call up into them */
	void (*prep_free)(struct mcz_codec_ctx *cx);
	uint64_t *x, *y; /* scratch values */
	size_t xcap;
	unsigned long long tried[MCZ_CODEC_MAX + 1]; /* columns won per codec (stats) */
} mcz_codec_ctx;
/* codec.c: the calling thread's zstd decompression context (ZSTD_DCtx *),
 * made at its first use, shared by every reader on that thread; NULL when
 * out of memory. */
void *mcz_codec_dctx(void);

void mcz_codec_ctx_free(mcz_codec_ctx *cx);
/* A batch writer's second thread's context (cx->peer, made at its first
 * use): the writer's settings, scratch of its own (chunk.c). */
mcz_codec_ctx *mcz_codec_peer(mcz_codec_ctx *cx);
/* code-block.c: a decoded profile and the arrays it owns (pub first:
 * freed by its address, mcz_code_free); code-threads.c adds the threads. */
typedef struct code_owned {
	mcz_code pub;
	mcz_code_object *objs;
	mcz_code_loc *locs;
	int64_t *t;
	size_t *first;
	mcz_code_hit *hits;
	mcz_code_edge *callers;
	char **strs; /* every string, for freeing */
	size_t nstrs;
	mcz_code_thread *threads;
	mcz_code_thit *thits;
	mcz_code_frame *frames;
	mcz_code_stackhit *stackhits;
} code_owned;

/* code-block.c: the payload fn makes of c, into a malloc'd buffer (the
 * public encoders). */
int mcz_code_encode_with(int (*fn)(mcz_codec_ctx *, const mcz_code *, mcz_buf *),
			 const mcz_code *c, void **buf, size_t *len);

/* code-threads.c: a CODETHREADS payload (packed, SPEC.md 5.12) of c into
 * out; MCZ_E_NOTFOUND when c has no threads. */
int mcz_code_threads_payload(mcz_codec_ctx *cx, const mcz_code *c, mcz_buf *out);
/* code-stacks.c: a CODESTACKS payload (packed, SPEC.md 5.13) of c into
 * out; MCZ_E_NOTFOUND when c has no stacks. */
int mcz_code_stacks_payload(mcz_codec_ctx *cx, const mcz_code *c, mcz_buf *out);

/* code-part.c: a CODEPART payload (packed, SPEC.md 5.11); a block's
 * payload kept by the reader (merged when asked for); the parts as a code
 * profile (mcz_code_get without a CODE block); the merged parts freed. */
int mcz_code_part_payload(mcz_codec_ctx *cx, const mcz_code_raw *part, mcz_buf *out);
int mcz_code_part_apply(mcz_reader *r, const uint8_t *p, size_t len);
/* The CODEPARTSTACKS payload of a part (MCZ_E_NOTFOUND when its cells
 * have no stacks), and the block kept by the reader for the part before. */
int mcz_code_part_stacks_payload(mcz_codec_ctx *cx, const mcz_code_raw *part, mcz_buf *out);
int mcz_code_part_stacks_apply(mcz_reader *r, const uint8_t *p, size_t len);
int mcz_code_part_profile(mcz_reader *r, mcz_code **out);
void mcz_code_raw_free(mcz_code_raw *raw);
/* code-block.c: the CODE block payload of c (packed, SPEC.md 5.6) into out. */
int mcz_code_payload(mcz_codec_ctx *cx, const mcz_code *c, struct mcz_buf *out);
/* Make cx->x and cx->y hold at least n values each. */
int mcz_codec_scratch(mcz_codec_ctx *cx, size_t n);
/* Encode the timestamp column of n rows into out. */
void mcz_codec_put_time(mcz_codec_ctx *cx, mcz_buf *out, const int64_t *t, size_t n);
/* Encode one stream's column; fills sum (summary of the chunk). */
void mcz_codec_put_col(mcz_codec_ctx *cx, mcz_buf *out, const mcz_stream_desc *d,
		       const int64_t *t, const mcz_value *v, const uint8_t *present, size_t n,
		       mcz_codec_prev *prev, mcz_bucket *sum);
int mcz_codec_get_time(mcz_codec_ctx *cx, const uint8_t *p, size_t len, int64_t *t, size_t n);
/* A gauge column whose summaries need no decoding: EMPTY (no value), or
 * CONST (one value, in the rows its bitmap says or in every row).  1 with
 * the value in *v0 and *bm the bitmap of present rows (bit i of byte i/8;
 * NULL: every row; valid until the next call on cx), and *empty set for
 * an EMPTY column; 0 for any other column, or one with a fault (decoding
 * it names the fault). */
int mcz_codec_col_const(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
			size_t n, mcz_value *v0, const uint8_t **bm, int *empty);
/* Decode a column of n rows: v, present (both n), delta (n, may be NULL).
 * For counters, first_dt (ns from the previous present sample to the first
 * present one, 0 if none) is returned through *first_dt when non-NULL. */
int mcz_codec_get_col(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
		      const int64_t *t, size_t n, mcz_value *v, uint64_t *delta, uint8_t *present, int64_t *first_dt);
/* Decode only the present rows of a column of n rows: *m of them (0: the
 * column is EMPTY), their times *pt, values *x (mcz_value's bits) and, for
 * a counter, deltas *dl, in cx's scratch (valid until cx is used again):
 * a chunk's summary needs no more, and spreading a sparse column over its
 * rows cost most of computing the summaries of a wide PCP archive. */
int mcz_codec_get_present(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
			  const int64_t *t, size_t n, size_t *m, const int64_t **pt,
			  const uint64_t **x, const uint64_t **dl, int64_t *first_dt);

/* ---- pack.c: packings of u64 sequences --------------------------------- */
enum { MCZ_PACK_VARINT = 0, MCZ_PACK_SHUFFLE = 1 };
void mcz_pack_put(mcz_buf *out, int packing, const uint64_t *x, size_t m);
int mcz_pack_get(mcz_cur *c, int packing, uint64_t *x, size_t m);

/* ---- bucket.c: the bucket arithmetic -------------------------------------- */
void mcz_bucket_init(mcz_bucket *b);
/* One sample x at time t (count, first, last; min and max unless NaN);
 * the caller adds to sum.  Inline: the readers' inner loop. */
static inline void mcz_bucket_add(mcz_bucket *b, double x, int64_t t)
{
	if (b->count == 0 || t < b->first)
		b->first = t;
	if (b->count == 0 || t > b->last)
		b->last = t;
	b->count++;
	if (isnan(x))
		return;
	if (isnan(b->min) || x < b->min)
		b->min = x;
	if (isnan(b->max) || x > b->max)
		b->max = x;
}
void mcz_bucket_merge(mcz_bucket *into, const mcz_bucket *from);

/* ---- chunk.c: chunk blocks --------------------------------------------- */
#define MCZ_MAX_CHUNK_ROWS (1u << 16) /* SPEC: "nrows is 1 to 65536" */
typedef struct mcz_chunk_info {
	uint32_t nrows, nstreams;
	uint64_t nvalues;
	int64_t t_first, t_last;
	const uint8_t *cols; /* column area */
	size_t cols_len;
	const uint8_t *dir; /* column directory (varint lengths) */
	size_t dir_len;
	/* GCHUNK (grouped): the run table; cols holds the time column, then
	 * the runs (plain columns or one zstd frame each) */
	int grouped;
	const uint8_t *runs;
	size_t runs_len;
	uint32_t nruns;
	/* GCHUNK flags bit 0 (since 1.4): dir is one zstd frame of dir_len
	 * bytes (read with mcz_gchunk_dir) */
	int zdir;
	/* flags bit 1 (since 1.4): the run table says which shared runs are
	 * transposed (their entries are 2n + t) */
	int truns;
	/* flags bit 2 (since 1.5): entries are 4n + t, t = 2 transposed by
	 * metric */
	int mruns;
} mcz_chunk_info;
#define MCZ_GCHUNK_ZDIR 0x01u
#define MCZ_GCHUNK_TRUNS 0x02u
/* flags bit 2 (since 1.5): run entries are 4n + t, t = 2 for a run
 * transposed by metric */
#define MCZ_GCHUNK_MRUNS 0x04u
/* In rclen from mcz_gchunk_runs: the run's content is transposed; with
 * MCZ_RUN_BYNAME too, by metric (1.5). */
#define MCZ_RUN_TRANSPOSED (1ull << 63)
#define MCZ_RUN_BYNAME (1ull << 62)

/* The header shared by CHUNK and GCHUNK (rows, streams, times, values,
 * flags), checked, into ci (the rest zeroed). */
int mcz_chunk_head(mcz_cur *c, mcz_chunk_info *ci, unsigned allow_flags);
int mcz_chunk_parse(const uint8_t *payload, size_t len, mcz_chunk_info *ci);
/* nvalues: present values in the chunk, from its header. */
/* Locate column c (0 = time, 1 + stream id); *len 0 when absent.  A SAME
 * column is resolved to the column it refers to. */
int mcz_chunk_col(const mcz_chunk_info *ci, uint32_t c, const uint8_t **p, size_t *len);
/* The column's own bytes (SAME not resolved). */
int mcz_chunk_col_raw(const mcz_chunk_info *ci, uint32_t c, const uint8_t **p, size_t *len);
/* Byte offset of every column in ci->cols: off[c] for c = 0..nstreams, and
 * off[nstreams + 1] the end (nstreams + 2 entries), read once per chunk. */
int mcz_chunk_dir(const mcz_chunk_info *ci, uint64_t *off);
/* The column a SAME column (p, len) of column col refers to, in *ref. */
int mcz_chunk_same_ref(const uint8_t *p, size_t len, uint32_t col, uint32_t *ref);
/* mcz_chunk_col through the offsets of mcz_chunk_dir, in constant time. */
int mcz_chunk_col_at(const uint8_t *cols, uint32_t nstreams, const uint64_t *off, uint32_t col,
		     const uint8_t **p, size_t *len);

/* ---- gchunk.c: grouped chunks (GCHUNK, since 1.3) ------------------------ */
/* Parse a GCHUNK payload: header, directory (the lengths of the columns
 * as a reader sees them, runs decompressed), run table. */
int mcz_gchunk_parse(const uint8_t *payload, size_t len, mcz_chunk_info *ci);
/* mcz_chunk_dir for a GCHUNK: its directory decompressed first when it is
 * a frame, every length checked. */
int mcz_gchunk_dir(struct mcz_codec_ctx *cx, const mcz_chunk_info *ci, uint64_t *off);
/* With off from mcz_chunk_dir: run k holds columns [rfirst[k], rfirst[k+1])
 * (rfirst has nruns + 1 entries), its bytes at ci->cols + rdata[k], rclen[k]
 * bytes of zstd frame, or 0: the columns as they are. */
int mcz_gchunk_runs(const mcz_chunk_info *ci, const uint64_t *off, uint32_t *rfirst,
		    uint64_t *rdata, uint64_t *rclen);
/* A transposed run's content from its columns back to back (back = 0),
 * or back: byte k of every column longer than k, for k = 0, 1, ...; the
 * n columns' offsets in off (n + 1 of them, off[0] the run's start). */
int mcz_gchunk_transpose(const uint8_t *src, uint8_t *dst, const uint64_t *off, size_t n,
			 int back);
/* The same by metric (1.5): grp[j] is column j's group (mcz_gchunk_groups),
 * each group transposed on its own, the groups back to back. */
int mcz_gchunk_transpose_groups(const uint8_t *src, uint8_t *dst, const uint64_t *off, size_t n,
				const uint32_t *grp, int back);
/* The groups of a run's n streams (descriptors d[0 .. n-1]): streams of the
 * same name share one, numbered 0, 1, ... in the order of their first
 * stream; returns the number of groups, 0 when out of memory. */
size_t mcz_gchunk_groups(const mcz_stream_desc *d, size_t n, uint32_t *grp);
/* The run of column col (>= 1): bisection over rfirst. */
static inline uint32_t mcz_gchunk_run_of(const uint32_t *rfirst, uint32_t nruns, uint32_t col)
{
	uint32_t lo = 0, hi = nruns;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rfirst[mid] <= col)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ---- index.c ------------------------------------------------------------ */
typedef struct mcz_index_block {
	uint16_t type;
	uint64_t off;  /* of the block header */
	uint64_t size; /* whole block, overhead included */
} mcz_index_block;

typedef struct mcz_index_chunk {
	uint64_t off, size;
	int64_t t_first, t_last;
	uint32_t nrows, nstreams;
	uint64_t nvalues;
} mcz_index_chunk;

typedef struct mcz_index {
	mcz_index_block *blocks; /* non-chunk blocks, in file order */
	size_t nblocks, cap_blocks;
	mcz_index_chunk *chunks;
	size_t nchunks, cap_chunks;
	size_t nstreams;
	mcz_bucket **sums; /* [stream][chunk], level 0; NULL rows allowed */
	size_t cached_group; /* 1 + the section group held in cx->best, 0 none */
	int grouped; /* some chunk is a GCHUNK: INDEX flags bits 0 and 1 (since 1.3) */
	int unsummed; /* decoded: bit 1 was set */
	int bundled; /* the file holds BUNDLE blocks (readers before 1.4 refuse it) */
	int nosecs;  /* INDEX flags bit 3 (since 1.4): no sections, no chunk summed */
	uint64_t head_streams; /* decoded without sections: the head's nstreams */
} mcz_index;
/* "When flags bit 1 is set, the chunks of fewer than 256 rows have no
 * summaries in the sections": readers compute them by decoding. */
#define MCZ_INDEX_SUM_ROWS 256
static inline int mcz_index_unsummed(const mcz_index *ix, size_t ci)
{
	return ix->nosecs || (ix->unsummed && ix->chunks[ci].nrows < MCZ_INDEX_SUM_ROWS);
}

int mcz_index_add_block(mcz_index *ix, uint16_t type, uint64_t off, uint64_t size);
int mcz_index_add_chunk(mcz_index *ix, const mcz_index_chunk *c, const mcz_bucket *sums,
			size_t nsums);
int mcz_index_set_streams(mcz_index *ix, size_t n);
void mcz_index_free(mcz_index *ix);
/* -1 when a and b list the same chunks (offsets, sizes, times, rows,
 * streams, values), else the first chunk where they differ (a file's
 * index beside what a scan of its blocks found: mcz check, resume). */
long mcz_index_diff_chunks(const mcz_index *a, const mcz_index *b);
/* Serialise as an INDEX block payload. */
int mcz_index_encode(mcz_index *ix, mcz_codec_ctx *cx, mcz_buf *out);
/* Parse the head of an index payload (blocks, chunks) into ix; sums are
 * left NULL and the per-stream sections recorded for mcz_index_load. */
typedef struct mcz_index_sec {
	const uint8_t *p;   /* the zstd frame of the stream's group */
	size_t clen, grlen; /* its compressed and raw length */
	size_t group, off, rlen; /* the stream's section inside the group */
} mcz_index_sec;
int mcz_index_decode(const uint8_t *payload, size_t len, uint64_t file_size, mcz_codec_ctx *cx,
		     mcz_index *ix, mcz_index_sec **secs);
/* Decode one stream's level-0 summaries (nchunks entries). */
int mcz_index_load(mcz_index *ix, const mcz_index_sec *sec, mcz_codec_ctx *cx,
		   mcz_bucket *out);

/* ---- writer.c: shared with append and repair ---------------------------- */
/* Write the INDEX block for ix at offset `at` of fd, then the trailer;
 * *end is the new end of file. */
int mcz_writer_finish_index(int fd, uint64_t at, mcz_index *ix, mcz_codec_ctx *cx,
			    uint64_t *end);

/* ---- resume.c: a closed file's state, for mcz_writer_resume ------------- */
typedef struct mcz_resume {
	mcz_reader *r;	      /* the file, open: its streams */
	mcz_index ix;	      /* its index, every stream's summaries loaded */
	mcz_codec_prev *prev; /* per stream: a counter's last sample */
	int64_t last_t;
	int have_t;	      /* it has rows */
	int minor;	      /* its version */
	int requires;	      /* it holds a REQUIRES block of 5 */
	uint64_t size;
} mcz_resume;
int mcz_resume_load(const char *path, mcz_resume *rs);
void mcz_resume_free(mcz_resume *rs);
/* Every stream's summaries made as large as mcz_index_add_chunk expects of
 * arrays it made (a reader sizes them to nchunks). */
int mcz_index_fit_sums(mcz_index *ix);

/* ---- meta.c: the small blocks (meta, topology, streams, marks, aux) ---- */
int mcz_meta_encode_streams(mcz_buf *b, uint32_t first_id, const mcz_stream_desc *d, size_t n);
int mcz_meta_encode_topo(mcz_buf *b, const mcz_topo_obj *o, size_t n);
int mcz_meta_encode_marks(mcz_buf *b, const mcz_mark *m, size_t n);
/* Free the strings of a descriptor / object / mark copied by the library. */
void mcz_meta_free_desc(mcz_stream_desc *d);
int mcz_meta_copy_desc(mcz_stream_desc *dst, const mcz_stream_desc *src);

#endif
