/* reader.h: the reader's state, shared by the reader's files (reader.c,
 * query.c, check.c, repair). */
#ifndef MCZ_READER_H
#define MCZ_READER_H

#include "internal.h"
#include "meta.h"

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
	mcz_mark *marks;
	size_t nmarks, cap_marks;
	reader_aux *aux;
	size_t naux, cap_aux;
	mcz_index ix;
	mcz_index_sec *secs; /* NULL when recovered: summaries computed */
	size_t nsecs;
	mcz_codec_ctx cx;
	reader_cols cols;
	uint8_t *verified;  /* per chunk: CRC checked once (1) */
	uint64_t data_end;  /* where an appended block would go */
	uint64_t bad_blocks; /* damaged blocks met while scanning */
	char problem[160];   /* first problem met, "" if none */
};

/* Decode chunk ci for stream s into r->cols. */
int mcz_query_decode(mcz_reader *r, size_t ci, uint32_t s);
/* Level-0 summaries of stream s (loaded or computed on first use). */
int mcz_query_sums(mcz_reader *r, uint32_t s, const mcz_bucket **sums);
/* Bucket of one decoded sample i of r->cols for stream s. */
void mcz_query_sample(const mcz_reader *r, uint32_t s, size_t i, int64_t prev_t,
		       mcz_bucket *b);

/* Bytes of stream s's column summed over every chunk (s = UINT32_MAX: the
 * time column). */
int mcz_query_col_bytes(const mcz_reader *r, uint32_t s, uint64_t *bytes);

#endif
