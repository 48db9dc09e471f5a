/* bundle.c: BUNDLE blocks (SPEC.md 5.8, since 1.4): the bodies of several
 * META, TOPO, STREAMS, COLSTREAMS and MARKS blocks in one block and one
 * zstd frame, compressed against the built-in dictionary (mdict.c) when
 * that is smaller.  A small file's metadata then pays one block's framing
 * and one frame's header, and the words every file repeats (metadata keys,
 * PCP's metric names and notes) cost a few bytes each.
 *
 *     mcz_buf items = {0};
 *     mcz_bundle_add(&items, MCZ_BT_META, &meta_body);
 *     mcz_bundle_add(&items, MCZ_BT_STREAMS, &streams_body);
 *     mcz_bundle_pack(&cx, &items, 2, 1, 0, &payload);   // writer
 *     mcz_block_unpack_as(&cx, payload, len, &tmp, &body, &blen, 2);  // reader
 *     mcz_bundle_next(&cur, &type, &p, &plen);            // each body
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCDict_advanced */
#include <zstd.h>

#include "../internal.h"

void mcz_bundle_add(mcz_buf *items, uint16_t type, const mcz_buf *body)
{
	if (body->err && !items->err)
		items->err = body->err;
	mcz_buf_uv(items, type);
	mcz_buf_uv(items, body->len);
	mcz_buf_put(items, body->p, body->len);
}

/* The dictionary loaded (ZSTD_CDict).  Loading 58 KB of dictionary at
 * level 15 costs as much as packing an import's metadata with it, every
 * time it is used: a batch writer has it loaded once, on a thread of
 * its own while it reads its first chunk, and every BUNDLE at that level
 * is packed against it.  A small body's level (MCZ_PACK_SMALL) loads it in
 * a tenth of that: loaded when first used, kept for the next. */
typedef struct mcz_mdict_prep {
	pthread_t th;
	int level, started, joined; /* the thread's */
	ZSTD_CDict *cd;
	ZSTD_CDict *small; /* at MCZ_PACK_SMALL */
} mcz_mdict_prep;

/* The dictionary loaded for bodies of up to body bytes.  A small body's
 * tables are a quarter of their size at MCZ_PACK_SMALL (2^15 and 2^16
 * entries for 58 KB of dictionary and 8 KiB of body, not 2^17): loading
 * full-size tables, half of it their pages first touched, is a large
 * share of a small archive's import, and the smaller tables cost a
 * fraction of a percent of its size, none nearer xz -9 than the worst of
 * pcp-testsuite (bench-pcp-all.sh). */
static ZSTD_CDict *bundle_load(int level, size_t body)
{
	size_t dl;
	const uint8_t *d = mcz_mdict(&dl);
	ZSTD_compressionParameters cp = ZSTD_getCParams(level, body, dl);
	if (body <= MCZ_PACK_SMALL_BYTES) {
		cp.hashLog = 15;
		cp.chainLog = 16;
	}
	return ZSTD_createCDict_advanced(d, dl, ZSTD_dlm_byRef, ZSTD_dct_rawContent, cp,
					 ZSTD_defaultCMem);
}

static void *bundle_prep_run(void *arg)
{
	mcz_mdict_prep *q = arg;
	/* parameters for bodies of up to 128 KB (an import's first BUNDLE of
	 * a few thousand streams), not for any size: those of an unknown
	 * size take five times as long to load */
	q->cd = bundle_load(q->level, 128u << 10);
	return NULL;
}

static void bundle_prep_free(mcz_codec_ctx *cx);

static mcz_mdict_prep *bundle_q(mcz_codec_ctx *cx)
{
	if (!cx->prep) {
		cx->prep = calloc(1, sizeof *cx->prep);
		cx->prep_free = bundle_prep_free;
	}
	return cx->prep;
}

void mcz_bundle_prepare(mcz_codec_ctx *cx, int level)
{
	mcz_mdict_prep *q = bundle_q(cx);
	if (!q || q->started)
		return;
	q->level = level;
	q->started = pthread_create(&q->th, NULL, bundle_prep_run, q) == 0;
}

/* The dictionary at level for a body of len bytes, once loaded; NULL if
 * it was not prepared.  The small one's parameters are for small bodies:
 * not for larger ones at that level (mcz import --level 9's). */
static ZSTD_CDict *bundle_cdict(mcz_codec_ctx *cx, int level, size_t len)
{
	int small = level == MCZ_PACK_SMALL && len < MCZ_PACK_SMALL_BYTES;
	mcz_mdict_prep *q = small ? bundle_q(cx) : cx->prep;
	if (q && small) {
		if (!q->small)
			q->small = bundle_load(level, MCZ_PACK_SMALL_BYTES);
		return q->small;
	}
	/* a batch writer's packing level: loaded now if the writer did not
	 * have it loaded early (the same dictionary either way) */
	if (cx->thorough && level == mcz_pack_level(cx))
		mcz_bundle_prepare(cx, level);
	q = cx->prep;
	if (!q || !q->started || q->level != level)
		return NULL;
	if (!q->joined) {
		pthread_join(q->th, NULL);
		q->joined = 1;
	}
	return q->cd;
}

static void bundle_prep_free(mcz_codec_ctx *cx)
{
	mcz_mdict_prep *q = cx->prep;
	if (!q)
		return;
	if (q->started && !q->joined)
		pthread_join(q->th, NULL);
	ZSTD_freeCDict(q->cd);
	ZSTD_freeCDict(q->small);
	free(q);
	cx->prep = NULL;
}

/* packing 1 or 2 (the dictionary): the frame into out after the packing
 * byte and rawlen; 0 when it is not smaller than the body itself. */
static size_t bundle_z(mcz_codec_ctx *cx, const mcz_buf *body, int dict, int level, mcz_buf *out)
{
	size_t bound = ZSTD_compressBound(body->len);
	/* level 19 with the dictionary loaded is too slow for every flush:
	 * a live writer packs a few KB at its own level (mcz_meta_level) */
	if (!level)
		level = mcz_meta_level(cx, body->len);
	out->len = 0;
	if (mcz_buf_reserve(out, 12 + bound))
		return 0;
	mcz_buf_u8(out, (uint8_t)(dict ? 2 : 1));
	mcz_buf_uv(out, body->len);
	size_t z;
	if (dict) {
		size_t dl;
		const uint8_t *d = mcz_mdict(&dl);
		/* a raw-content dictionary has no id: no dictionary id in the
		 * frame header, and no checksum (the block CRC covers it) */
		ZSTD_CDict *cd = bundle_cdict(cx, level, body->len);
		z = cd ? ZSTD_compress_usingCDict(cx->zc, out->p + out->len, out->cap - out->len,
						  body->p, body->len, cd)
		       : ZSTD_compress_usingDict(cx->zc, out->p + out->len, out->cap - out->len,
						 body->p, body->len, d, dl, level);
	} else {
		z = ZSTD_compressCCtx(cx->zc, out->p + out->len, out->cap - out->len, body->p,
				      body->len, level);
	}
	/* "A packed body may not be longer than 256 times its compressed
	 * size plus 65536 bytes": the reader's bound, kept */
	if (ZSTD_isError(z) || body->len > 256 * (uint64_t)z + 65536)
		return 0;
	out->len += z;
	return out->len;
}

int mcz_bundle_pack(mcz_codec_ctx *cx, const mcz_buf *items, size_t n, int dict, int level,
		    mcz_buf *out)
{
	mcz_buf body = {0}, alt = {0};
	mcz_buf_uv(&body, n);
	mcz_buf_put(&body, items->p, items->len);
	int rc = items->err ? items->err : body.err;
	if (!rc && !cx->zc && !(cx->zc = ZSTD_createCCtx()))
		rc = MCZ_E_NOMEM;
	out->len = 0;
	if (!rc) {
		mcz_buf_u8(out, 0);
		mcz_buf_put(out, body.p, body.len);
		for (int d = dict == 2; d <= (dict != 0); d++) {
			size_t z = bundle_z(cx, &body, d, level, &alt);
			if (z && z < out->len) {
				mcz_buf t = *out;
				*out = alt;
				alt = t;
			}
		}
		rc = out->err;
	}
	mcz_buf_free(&body);
	mcz_buf_free(&alt);
	return rc;
}

int mcz_bundle_next(mcz_cur *c, uint16_t *type, const uint8_t **p, size_t *len)
{
	uint64_t t = mcz_cur_uv(c), n = mcz_cur_uv(c);
	/* "type is 1, 2, 3, 5 or 11" */
	if (!c->err && t != MCZ_BT_META && t != MCZ_BT_TOPO && t != MCZ_BT_STREAMS &&
	    t != MCZ_BT_MARKS && t != MCZ_BT_COLSTREAMS)
		c->err = MCZ_E_CORRUPT;
	if (c->err || n > mcz_cur_left(c))
		return c->err ? c->err : (c->err = MCZ_E_CORRUPT);
	*type = (uint16_t)t;
	*len = (size_t)n;
	*p = mcz_cur_bytes(c, (size_t)n);
	return c->err;
}
