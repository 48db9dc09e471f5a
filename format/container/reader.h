/* reader.h: the reader's state, shared by the reader's files (reader.c,
 * query.c, check.c, repair). */
#ifndef MCZ_READER_H
#define MCZ_READER_H

#include <string.h>

#include "../internal.h"
#include "../meta/meta.h"

/* A MEMBER block: a whole recording at base[off, off + len). */
typedef struct reader_member {
	char *name;
	size_t off, len;
	size_t whole;   /* 0, or: cut short, the length its block declares */
} reader_member;

typedef struct reader_aux {
	char *name;
	const uint8_t *data;
	size_t len;
} reader_aux;

/* One chunk decoded for one stream (scratch owned by the reader). */
typedef struct reader_cols {
	size_t n, cap;
	int64_t *t;
	mcz_value *v;
	uint64_t *delta;
	uint8_t *present;
	int64_t first_dt;
} reader_cols;

/* A decoded column in the cache (dcache.c).  The chunk entry (col 0) holds
 * t[n] and the column directory off[nstreams + 2] (byte offsets into cols;
 * of a GCHUNK, offsets as if every run were decompressed, and the run
 * table); a stream's entry (col 1 + s) holds v[n], delta[n] (counters, else
 * NULL) and present[n]; a GCHUNK run's entry (col MCZ_DCACHE_RUN | k) its
 * decompressed bytes, raw[n]. */
#define MCZ_DCACHE_RUN 0x80000000u
typedef struct mcz_dcache_ent {
	size_t ci;
	uint32_t col;
	struct mcz_dcache_ent *hnext, *prev, *next;
	size_t bytes;
	size_t n;
	int64_t first_dt;
	const uint8_t *cols;
	uint32_t nstreams;
	int64_t *t;
	uint64_t *off;
	mcz_value *v;
	uint64_t *delta;
	uint8_t *present;
	uint32_t nruns;      /* GCHUNK: runs, else 0 */
	uint32_t *rfirst;    /* nruns + 1 */
	uint64_t *rdata, *rclen;
	uint8_t *raw;        /* a run's entry: its bytes */
	int pin;             /* not evicted while set */
} mcz_dcache_ent;

typedef struct mcz_dcache {
	mcz_dcache_ent **slot;
	size_t nslot, count;
	mcz_dcache_ent *head, *tail; /* most recently used first */
	size_t bytes, budget;
	uint64_t hits, misses;
} mcz_dcache;

/* Default bound of the decoded-column cache. */
#define MCZ_DCACHE_DEFAULT (8u << 20)

/* Entry (ci, col) made most recent, or NULL. */
mcz_dcache_ent *mcz_dcache_get(mcz_dcache *c, size_t ci, uint32_t col);
/* A new entry with `bytes` of payload after the struct, most recent; older
 * entries but the most recent are evicted to stay in budget.  NULL: no memory. */
mcz_dcache_ent *mcz_dcache_put(mcz_dcache *c, size_t ci, uint32_t col, size_t bytes);
void mcz_dcache_drop(mcz_dcache *c, mcz_dcache_ent *e);
void mcz_dcache_limit(mcz_dcache *c, size_t budget);
/* Empty it (the budget is kept). */
void mcz_dcache_free(mcz_dcache *c);

/* One chunk's column of one stream, decoded (pointers into the cache, valid
 * until the next query call). */
typedef struct reader_col {
	size_t n;
	const int64_t *t;
	const mcz_value *v;
	const uint64_t *delta; /* counters only */
	const uint8_t *present;
	int64_t first_dt;
} reader_col;

/* The first row at or after i that is present (n when none): absent rows
 * skipped 8 at a time, as the columns of wide PCP archives are mostly
 * absent rows (metrics logged at different intervals). */
static inline size_t reader_next_present(const uint8_t *present, size_t i, size_t n)
{
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, present + i, 8);
		if (w)
			break;
	}
	while (i < n && !present[i])
		i++;
	return i;
}

struct mcz_reader {
	const uint8_t *base;
	size_t size;
	void *map;
	unsigned flags;
	mcz_file_info info;
	mcz_meta_kv meta;
	mcz_topo_obj *topo;
	size_t ntopo;
	mcz_stream_desc *streams;
	size_t nstreams, cap_streams;
	/* COLSTREAMS blocks: their strings, one arena each; stream i's strings
	 * are in one when i < cap_shared and shared[i] (not freed one by one) */
	char **arenas;
	size_t narenas;
	uint8_t *shared;
	size_t cap_shared;
	mcz_mark *marks;
	size_t nmarks, cap_marks;
	reader_aux *aux;
	size_t naux, cap_aux;
	const uint8_t *code_p; /* the last CODE block's payload, NULL none */
	size_t code_len;
	mcz_code *code;        /* decoded on first mcz_code_get */
	int code_bad;          /* its decoding failed: the error */
	int code_stale;        /* code was made from fewer CODEPART blocks than now */
	const uint8_t *thr_p;  /* the CODETHREADS block after the last CODE block */
	size_t thr_len;
	const uint8_t *stk_p;  /* the CODESTACKS block after the last CODE block */
	size_t stk_len;
	const uint8_t **part_p; /* CODEPART payloads in file order (code-part.c) */
	size_t *part_len;
	const uint8_t **part_stk_p; /* each part's CODEPARTSTACKS payload, NULL none */
	size_t *part_stk_len;
	size_t nparts_code, cap_parts_code;
	mcz_code_raw *raw;     /* the parts merged, on first use */
	size_t raw_parts;      /* parts that raw holds */
	int raw_bad;           /* parts that did not decode (left out) */
	mcz_index ix;
	mcz_index_sec *secs; /* NULL when recovered: summaries computed */
	size_t nsecs;
	mcz_codec_ctx cx;
	reader_cols cols;
	mcz_dcache dc;       /* decoded columns, bounded */
	uint8_t *verified;  /* per chunk: 0 not read yet, 1 CRC checked, 2 damaged (CRC or
			       columns failed: reads skip it as a gap) */
	uint64_t data_end;  /* where an appended block would go */
	uint64_t bad_blocks; /* damaged blocks met while scanning */
	char problem[160];   /* first problem met, "" if none */
	/* reading a file while it is written (mcz_reader_refresh) */
	int fd;              /* the open file, -1 for memory */
	char *path;          /* to notice the recorder's final copy (rename) */
	uint64_t dev, ino;
	size_t map_len;      /* mapped bytes, >= size: the file may grow into them */
	size_t scan_off;     /* where the scan stopped (a cut block, or size) */
	uint64_t scan_good;  /* the end of the last good block then */
	int cut;             /* problem[] says the scan stopped in a cut block */
	int scan_resync;     /* it stopped looking for a block header at scan_off */
	size_t nparts;       /* the last nparts chunks are PART blocks */
	size_t nverified;    /* entries of verified[] */
	size_t ndamaged;     /* entries of verified[] that are 2 (mcz_damaged_count) */
	size_t *sums_n;      /* scan mode: chunks whose summaries ix.sums[s] holds */
	size_t cap_sums_n;
	/* a job file's MEMBER blocks (member.c) */
	reader_member *members;
	size_t nmembers, cap_members;
	int requires;        /* a REQUIRES block was applied */
	int refs;            /* holders: the opener, and each member open (mcz_member_open) */
	struct mcz_reader *owner; /* a member's job file, whose bytes it reads; else NULL */
	const char *member_name;  /* a member's name there (owner's string); else NULL */
};

/* member.c: apply a MEMBER block's payload at p (len bytes, in base). */
int mcz_member_apply(mcz_reader *r, const uint8_t *p, size_t len);
/* The MEMBER block at p was cut short: only avail of its declared len
 * payload bytes are in the file.  Listed by name (when the name is
 * there), never opened. */
int mcz_member_cut(mcz_reader *r, const uint8_t *p, size_t avail, size_t len);
void mcz_member_reset(mcz_reader *r);
/* "JOB:NAME": the shortest prefix before a ':' that is a file names the
 * job file, the rest (':' and all) the member.  MCZ_E_NOTMCZ when no
 * prefix is a file; MCZ_E_NOTFOUND when the job file has no such member. */
int mcz_member_open_path(mcz_reader **out, const char *path, unsigned flags);

/* reader.c, for refresh.c: forget what blocks loaded; load base[0, size)
 * (index, else scan); scan on from `off`; sort the marks; bytes to map. */
void mcz_reader_reset(mcz_reader *r);
int mcz_reader_load(mcz_reader *r);
int mcz_reader_scan_from(mcz_reader *r, size_t off, uint64_t good_end);
void mcz_reader_sort_marks(mcz_reader *r);
size_t mcz_reader_map_len(size_t n);
/* Drop the cache entries of chunks ci >= from. */
void mcz_dcache_drop_from(mcz_dcache *c, size_t from);

/* Chunk ci's column of stream s, decoded or from the cache. */
int mcz_query_col(mcz_reader *r, size_t ci, uint32_t s, reader_col *c);
/* Decode chunk ci for stream s into r->cols (a copy the caller may keep
 * across further queries). */
int mcz_query_decode(mcz_reader *r, size_t ci, uint32_t s);
/* mcz_query_sums and mcz_query_col_bytes are in mcz.h (mcz info uses them). */
/* reader.c: the pages of the file's mapping under [p, p + len) leave this
 * process's resident set (MADV_DONTNEED of a shared read-only mapping: the
 * page cache keeps them, a later read faults them in again); nothing for
 * bytes not in a mapping (mcz_open_mem). */
void reader_drop_pages(const mcz_reader *r, const uint8_t *p, size_t len);


#endif
