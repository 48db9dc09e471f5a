/* meta.h: decoders of the small blocks, shared by the reader and repair. */
#ifndef MCZ_META_H
#define MCZ_META_H

#include "../internal.h"

typedef struct mcz_meta_kv {
	char **keys, **vals;
	size_t n, cap;
} mcz_meta_kv;

int mcz_meta_encode_kv(mcz_buf *b, const char *const *keys, const char *const *vals, size_t n);
int mcz_meta_decode_kv(const uint8_t *p, size_t len, mcz_meta_kv *kv);
void mcz_meta_free_kv(mcz_meta_kv *kv);
int mcz_meta_decode_streams(const uint8_t *p, size_t len, mcz_stream_desc **arr, size_t *n,
			    size_t *cap);
/* scols.c: the COLSTREAMS body (SPEC.md 5.7), column by column. */
/* refs: values met before in a column given by number (x even); without,
 * as the bytes shared with the previous value and the rest (zstd finds the
 * repeats of instance lists better so: the writer tries both). */
int mcz_scols_encode(mcz_buf *b, uint32_t first_id, const mcz_stream_desc *d, size_t n, int refs);
/* The descriptors' strings point into *arena (one malloc, the caller's
 * to free with them; never free them one by one). */
int mcz_scols_decode(const uint8_t *p, size_t len, mcz_stream_desc **arr, size_t *n, size_t *cap,
		     char **arena);
/* Whether the body b of descriptors d[n] keeps the bounds a reader checks. */
int mcz_scols_fits(const mcz_buf *b, const mcz_stream_desc *d, size_t n);
int mcz_meta_decode_topo(const uint8_t *p, size_t len, mcz_topo_obj **arr, size_t *n);
void mcz_meta_free_topo(mcz_topo_obj *o, size_t n);
int mcz_meta_decode_marks(const uint8_t *p, size_t len, mcz_mark **arr, size_t *n, size_t *cap);

#endif
