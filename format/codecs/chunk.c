/* chunk.c: sample chunk blocks (SPEC.md "CHUNK block").
 *
 * A chunk holds consecutive rows: a small header (row count, stream count,
 * first and last time), a directory of column lengths, then the time column
 * and one column per stream.  The directory lets a reader jump to one
 * stream's column without decoding the others.
 *
 *     mcz_chunk_encode(&cx, &payload, t, n, descs, cols, nstreams, prev, sums);
 *     mcz_chunk_info ci;
 *     if (mcz_chunk_parse(payload, len, &ci) == 0 && mcz_chunk_col(&ci, 1 + s, &p, &l) == 0)
 *         mcz_codec_get_col(&cx, p, l, desc, t, ci.nrows, v, delta, present, NULL);
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "chunk.h"

/* A chunk's columns being gathered: their bytes back to back, with the
 * identical ones stored once (PCP's mem.freemem and mem.util.free...): a
 * table of column hashes finds earlier equal bytes. */
typedef struct chunk_cols {
	mcz_buf body;
	size_t *lens, *start, tsize;
	uint32_t *table; /* 1 + stream, 0 empty */
} chunk_cols;

static int chunk_cols_init(chunk_cols *c, size_t nstreams)
{
	memset(c, 0, sizeof *c);
	c->tsize = 16;
	while (c->tsize < 2 * nstreams)
		c->tsize *= 2;
	c->lens = malloc((nstreams + 1) * sizeof *c->lens);
	c->start = malloc((nstreams + 1) * sizeof *c->start);
	c->table = calloc(c->tsize, sizeof *c->table);
	return c->lens && c->start && c->table ? 0 : MCZ_E_NOMEM;
}

static void chunk_cols_free(chunk_cols *c)
{
	mcz_buf_free(&c->body);
	free(c->lens);
	free(c->start);
	free(c->table);
}

/* Stream s's column, the bytes from at to the body's end, made a SAME
 * column when an earlier one has the same bytes. */
static void chunk_cols_add(chunk_cols *c, size_t s, size_t at)
{
	mcz_buf *body = &c->body;
	c->start[s] = at;
	c->lens[s + 1] = body->len - at;
	if (body->err || c->lens[s + 1] < 8)
		return;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = at; i < body->len; i++)
		h = (h ^ body->p[i]) * 1099511628211ull;
	size_t slot = (size_t)h & (c->tsize - 1);
	for (; c->table[slot]; slot = (slot + 1) & (c->tsize - 1)) {
		size_t o = c->table[slot] - 1;
		if (c->lens[o + 1] == c->lens[s + 1] &&
		    !memcmp(body->p + c->start[o], body->p + at, c->lens[s + 1])) {
			body->len = at; /* a SAME column instead */
			mcz_buf_u8(body, MCZ_CODEC_SAME);
			mcz_buf_u8(body, 0);
			mcz_buf_uv(body, 0);
			mcz_buf_uv(body, o);
			c->lens[s + 1] = body->len - at;
			break;
		}
	}
	if (!c->table[slot] && c->lens[s + 1] >= 8 && body->p[at] != MCZ_CODEC_SAME)
		c->table[slot] = (uint32_t)s + 1;
}

/* The payload: header, directory, columns. */
static int chunk_cols_put(const chunk_cols *c, mcz_buf *out, const int64_t *t, size_t n,
			  size_t nstreams, uint64_t nvalues)
{
	mcz_buf_uv(out, n);
	mcz_buf_uv(out, nstreams);
	mcz_buf_sv(out, t[0]);
	mcz_buf_uv(out, (uint64_t)(t[n - 1] - t[0]));
	mcz_buf_uv(out, nvalues);
	mcz_buf_u8(out, 0);
	for (size_t s = 0; s <= nstreams; s++)
		mcz_buf_uv(out, c->lens[s]);
	mcz_buf_put(out, c->body.p, c->body.len);
	return c->body.err ? c->body.err : out->err;
}

/* A batch writer (mcz import: cx->thorough) encodes the second half of a
 * wide chunk's columns on a second thread: each column's codecs are tried
 * and compressed on their own, two thirds of the CPU of importing PCP
 * archive 20180102 when this was written (level 9 on small columns then,
 * level 3 now: codec.c).  The helper writes its
 * columns back to back into its own buffers; they are then appended in
 * stream order, where equal columns become SAME ones as before, so the
 * bytes do not depend on the thread. */
#define CHUNK_HALF_VALUES 20000 /* rows x streams from which a helper pays */
typedef struct chunk_half {
	mcz_codec_ctx *cx;
	mcz_buf body, alt;
	size_t *off, *aoff; /* column k (stream h + k): off[k] .. off[k + 1] */
	size_t h, nstreams, n;
	int shuf;
	const int64_t *t;
	const mcz_stream_desc *descs;
	const mcz_chunk_input *cols;
	mcz_codec_prev *prev;
	mcz_bucket *sums;
} chunk_half;

static void *chunk_half_run(void *arg)
{
	chunk_half *q = arg;
	q->cx->alt = q->shuf ? &q->alt : NULL;
	for (size_t s = q->h; s < q->nstreams; s++) {
		q->off[s - q->h] = q->body.len;
		q->aoff[s - q->h] = q->alt.len;
		mcz_codec_put_col(q->cx, &q->body, &q->descs[s], q->t, q->cols[s].v,
				  q->cols[s].present, q->n, &q->prev[s], &q->sums[s]);
	}
	q->off[q->nstreams - q->h] = q->body.len;
	q->aoff[q->nstreams - q->h] = q->alt.len;
	q->cx->alt = NULL;
	return NULL;
}

mcz_codec_ctx *mcz_codec_peer(mcz_codec_ctx *cx)
{
	if (!cx->peer && (cx->peer = calloc(1, sizeof *cx->peer))) {
		cx->peer->level = cx->level;
		cx->peer->fast = cx->fast;
		cx->peer->thorough = cx->thorough;
		cx->peer->quick = cx->quick;
	}
	if (cx->peer) {
		cx->peer->v14 = cx->v14;
		cx->peer->v15 = cx->v15;
	}
	return cx->peer;
}

int mcz_chunk_encode2(mcz_codec_ctx *cx, mcz_buf *out, mcz_buf *shuf, const int64_t *t, size_t n,
		      const mcz_stream_desc *descs, const mcz_chunk_input *cols, size_t nstreams,
		      mcz_codec_prev *prev, mcz_bucket *sums)
{
	chunk_half q = {.h = nstreams / 2, .nstreams = nstreams, .n = n, .shuf = shuf != NULL,
			.t = t, .descs = descs, .cols = cols, .prev = prev, .sums = sums};
	pthread_t th;
	int helper = 0;
	if (cx->thorough && nstreams >= 64 && n * nstreams >= CHUNK_HALF_VALUES &&
	    (q.cx = mcz_codec_peer(cx)) && (q.off = malloc((nstreams - q.h + 1) * sizeof *q.off)) &&
	    (q.aoff = malloc((nstreams - q.h + 1) * sizeof *q.aoff)))
		helper = pthread_create(&th, NULL, chunk_half_run, &q) == 0;
	size_t mine = helper ? q.h : nstreams;
	chunk_cols c, a;
	int rc = chunk_cols_init(&c, nstreams) || (shuf && chunk_cols_init(&a, nstreams))
			 ? MCZ_E_NOMEM
			 : 0;
	if (!rc) {
		mcz_codec_put_time(cx, &c.body, t, n);
		c.lens[0] = c.body.len;
		if (shuf) {
			mcz_buf_put(&a.body, c.body.p, c.body.len);
			a.lens[0] = c.body.len;
		}
	}
	cx->alt = shuf ? &a.body : NULL;
	for (size_t s = 0; !rc && s < mine; s++) {
		size_t at = c.body.len, at2 = shuf ? a.body.len : 0;
		mcz_codec_put_col(cx, &c.body, &descs[s], t, cols[s].v, cols[s].present, n, &prev[s],
				  &sums[s]);
		chunk_cols_add(&c, s, at);
		if (shuf)
			chunk_cols_add(&a, s, at2);
	}
	cx->alt = NULL;
	if (helper) {
		pthread_join(th, NULL);
		for (size_t s = q.h; !rc && s < nstreams; s++) {
			size_t k = s - q.h, at = c.body.len, at2 = shuf ? a.body.len : 0;
			mcz_buf_put(&c.body, q.body.p + q.off[k], q.off[k + 1] - q.off[k]);
			chunk_cols_add(&c, s, at);
			if (shuf) {
				mcz_buf_put(&a.body, q.alt.p + q.aoff[k], q.aoff[k + 1] - q.aoff[k]);
				chunk_cols_add(&a, s, at2);
			}
		}
		if (!rc && (q.body.err || q.alt.err))
			rc = q.body.err ? q.body.err : q.alt.err;
		for (size_t k = 0; k <= MCZ_CODEC_MAX; k++)
			cx->tried[k] += q.cx->tried[k], q.cx->tried[k] = 0;
	}
	free(q.off);
	free(q.aoff);
	mcz_buf_free(&q.body);
	mcz_buf_free(&q.alt);
	uint64_t nvalues = 0;
	for (size_t s = 0; s < nstreams; s++)
		nvalues += sums[s].count;
	if (!rc)
		rc = chunk_cols_put(&c, out, t, n, nstreams, nvalues);
	if (!rc && shuf)
		rc = chunk_cols_put(&a, shuf, t, n, nstreams, nvalues);
	chunk_cols_free(&c);
	if (shuf)
		chunk_cols_free(&a);
	return rc;
}

int mcz_chunk_encode(mcz_codec_ctx *cx, mcz_buf *out, const int64_t *t, size_t n,
		     const mcz_stream_desc *descs, const mcz_chunk_input *cols, size_t nstreams,
		     mcz_codec_prev *prev, mcz_bucket *sums)
{
	return mcz_chunk_encode2(cx, out, NULL, t, n, descs, cols, nstreams, prev, sums);
}

int mcz_chunk_head(mcz_cur *c, mcz_chunk_info *ci, unsigned allow_flags)
{
	uint64_t nrows = mcz_cur_uv(c);
	uint64_t nstreams = mcz_cur_uv(c);
	size_t left = mcz_cur_left(c);
	int64_t t0 = mcz_cur_sv(c);
	uint64_t span = mcz_cur_uv(c);
	uint64_t nvalues = mcz_cur_uv(c);
	uint8_t flags = mcz_cur_u8(c);
	/* each stream takes at least one directory byte; a compressed
	 * directory (GCHUNK flags bit 0, since 1.4) at most 256 times its
	 * frame plus 65536 */
	uint64_t most = (flags & MCZ_GCHUNK_ZDIR) ? 256 * (uint64_t)left + 65536 : left;
	if (c->err || nrows == 0 || nrows > MCZ_MAX_CHUNK_ROWS || nstreams > UINT32_MAX ||
	    nstreams > most || (flags & ~allow_flags) ||
	    !mcz_span_fits(t0, span) ||
	    (nrows == 1 && span != 0) || (nrows > 1 && span < nrows - 1) ||
	    nvalues > nrows * nstreams)
		return MCZ_E_CORRUPT;
	memset(ci, 0, sizeof *ci);
	ci->nvalues = nvalues;
	ci->nrows = (uint32_t)nrows;
	ci->nstreams = (uint32_t)nstreams;
	ci->t_first = t0;
	ci->t_last = t0 + (int64_t)span;
	ci->zdir = (flags & MCZ_GCHUNK_ZDIR) != 0;
	ci->truns = (flags & MCZ_GCHUNK_TRUNS) != 0;
	ci->mruns = (flags & MCZ_GCHUNK_MRUNS) != 0;
	return 0;
}

int mcz_chunk_parse(const uint8_t *payload, size_t len, mcz_chunk_info *ci)
{
	mcz_cur c = mcz_cur_make(payload, len);
	if (mcz_chunk_head(&c, ci, 0))
		return MCZ_E_CORRUPT;
	uint64_t nstreams = ci->nstreams;
	ci->dir = c.p;
	uint64_t total = 0;
	for (uint64_t s = 0; s <= nstreams; s++) {
		uint64_t l = mcz_cur_uv(&c);
		if (l > len)
			return MCZ_E_CORRUPT;
		total += l;
	}
	if (c.err)
		return MCZ_E_CORRUPT;
	ci->dir_len = (size_t)(c.p - ci->dir);
	ci->cols = c.p;
	ci->cols_len = mcz_cur_left(&c);
	if (total != ci->cols_len)
		return MCZ_E_CORRUPT;
	return 0;
}

int mcz_chunk_col_raw(const mcz_chunk_info *ci, uint32_t col, const uint8_t **p, size_t *len)
{
	*p = NULL;
	*len = 0;
	if (col > ci->nstreams)
		return 0; /* stream added after this chunk */
	mcz_cur c = mcz_cur_make(ci->dir, ci->dir_len);
	size_t off = 0;
	for (uint32_t i = 0; i < col; i++)
		off += (size_t)mcz_cur_uv(&c);
	size_t l = (size_t)mcz_cur_uv(&c);
	if (c.err || off + l > ci->cols_len)
		return MCZ_E_CORRUPT;
	*p = ci->cols + off;
	*len = l;
	return 0;
}

/* "A SAME column: codec 11, flags 0, rawlen 0, then a varint: the id of
 * an earlier stream of the chunk whose column is not SAME; it decodes as
 * that column's bytes would."  The column number that one is, in *ref. */
int mcz_chunk_same_ref(const uint8_t *p, size_t len, uint32_t col, uint32_t *ref)
{
	mcz_cur c = mcz_cur_make(p, len);
	mcz_cur_u8(&c);
	uint8_t flags = mcz_cur_u8(&c);
	uint64_t rl = mcz_cur_uv(&c), id = mcz_cur_uv(&c);
	if (c.err || flags || rl || mcz_cur_left(&c) || col == 0 || id + 1 >= col)
		return MCZ_E_CORRUPT;
	*ref = (uint32_t)id + 1;
	return 0;
}

int mcz_chunk_col(const mcz_chunk_info *ci, uint32_t col, const uint8_t **p, size_t *len)
{
	int rc = mcz_chunk_col_raw(ci, col, p, len);
	if (rc || *len == 0 || (*p)[0] != MCZ_CODEC_SAME)
		return rc;
	uint32_t ref;
	if ((rc = mcz_chunk_same_ref(*p, *len, col, &ref)) || (rc = mcz_chunk_col_raw(ci, ref, p, len)))
		return rc;
	if (*len == 0 || (*p)[0] == MCZ_CODEC_SAME)
		return MCZ_E_CORRUPT;
	return 0;
}

int mcz_chunk_dir(const mcz_chunk_info *ci, uint64_t *off)
{
	mcz_cur c = mcz_cur_make(ci->dir, ci->dir_len);
	uint64_t at = 0;
	for (uint64_t s = 0; s <= ci->nstreams; s++) {
		off[s] = at;
		at += mcz_cur_uv(&c);
		/* a GCHUNK's columns are counted decompressed (its runs checked
		 * by mcz_gchunk_runs) */
		if (!ci->grouped && at > ci->cols_len)
			return MCZ_E_CORRUPT;
	}
	off[ci->nstreams + 1] = at;
	return c.err ? MCZ_E_CORRUPT : 0;
}

int mcz_chunk_col_at(const uint8_t *cols, uint32_t nstreams, const uint64_t *off, uint32_t col,
		     const uint8_t **p, size_t *len)
{
	*p = NULL;
	*len = 0;
	if (col > nstreams)
		return 0; /* stream added after this chunk */
	*p = cols + off[col];
	*len = (size_t)(off[col + 1] - off[col]);
	if (*len == 0 || (*p)[0] != MCZ_CODEC_SAME)
		return 0;
	uint32_t ref;
	int rc = mcz_chunk_same_ref(*p, *len, col, &ref);
	if (rc)
		return rc;
	*p = cols + off[ref];
	*len = (size_t)(off[ref + 1] - off[ref]);
	if (*len == 0 || (*p)[0] == MCZ_CODEC_SAME)
		return MCZ_E_CORRUPT;
	return 0;
}
