/* chunk.h: the chunk encoder's input, shared by the writer and repair. */
#ifndef MCZ_CHUNK_H
#define MCZ_CHUNK_H

#include "../internal.h"

typedef struct mcz_chunk_col {
	const mcz_value *v;
	const uint8_t *present; /* NULL: all present */
} mcz_chunk_input;

/* Encode n rows (n >= 1) as a CHUNK payload; fills sums[nstreams]. */
int mcz_chunk_encode(mcz_codec_ctx *cx, mcz_buf *out, const int64_t *t, size_t n,
		     const mcz_stream_desc *descs, const mcz_chunk_input *cols, size_t nstreams,
		     mcz_codec_prev *prev, mcz_bucket *sums);

/* mcz_chunk_encode, and (shuf not NULL) a second payload of the same rows
 * whose counter and integer columns take the best of the shuffled
 * packings (or CONST), each column's codecs tried once for both. */
int mcz_chunk_encode2(mcz_codec_ctx *cx, mcz_buf *out, mcz_buf *shuf, const int64_t *t, size_t n,
		      const mcz_stream_desc *descs, const mcz_chunk_input *cols, size_t nstreams,
		      mcz_codec_prev *prev, mcz_bucket *sums);

/* The same rows as a GCHUNK payload when that is smaller (*grouped = 1),
 * else as the CHUNK payload of mcz_chunk_encode (gchunk.c).  zdir_ok: the
 * directory may be compressed (1.4, flags bit 0: a file that readers
 * before 1.4 refuse already, by its BUNDLE blocks). */
int mcz_gchunk_encode(mcz_codec_ctx *cx, mcz_buf *out, int *grouped, int zdir_ok,
		      const int64_t *t, size_t n, const mcz_stream_desc *descs,
		      const mcz_chunk_input *cols, size_t nstreams, mcz_codec_prev *prev,
		      mcz_bucket *sums);

#endif
