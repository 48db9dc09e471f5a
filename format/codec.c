/* codec.c: encoding of one column of a chunk (SPEC.md "Columns").
 *
 * A column is: codec id (u8), flags (u8: zstd, presence bitmap), the raw
 * length (varint), then the data, zstd-compressed when that is smaller.
 * Timestamps are delta-of-delta; counters are per-interval deltas modulo
 * 2^64 after the chunk's base value; integer gauges are zigzag deltas;
 * float gauges are XORed with the previous value and byte-shuffled (eight
 * planes) so that zstd sees long runs of zero bytes.  Each column decodes on
 * its own, so a reader decodes only the streams it shows.
 *
 *     mcz_codec_ctx cx = {.level = 3};
 *     mcz_codec_put_time(&cx, &out, t, n);
 *     mcz_codec_put_col(&cx, &out, desc, t, v, present, n, &prev, &sum);
 *     ...
 *     mcz_codec_get_col(&cx, p, len, desc, n, v, delta, present, NULL);
 *     mcz_codec_ctx_free(&cx);
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "internal.h"

void mcz_codec_ctx_free(mcz_codec_ctx *cx)
{
	ZSTD_freeCCtx(cx->zc);
	ZSTD_freeDCtx(cx->zd);
	cx->zc = cx->zd = NULL;
	mcz_buf_free(&cx->tmp);
	mcz_buf_free(&cx->tmp2);
}

/* Write codec, flags, raw length and data (compressed when it pays). */
static void codec_emit(mcz_codec_ctx *cx, mcz_buf *out, uint8_t codec, uint8_t flags,
		       const mcz_buf *raw)
{
	if (raw->err) {
		out->err = raw->err;
		return;
	}
	const void *data = raw->p;
	size_t len = raw->len;
	if (raw->len >= 16) {
		if (!cx->zc && !(cx->zc = ZSTD_createCCtx())) {
			out->err = MCZ_E_NOMEM;
			return;
		}
		size_t bound = ZSTD_compressBound(raw->len);
		cx->tmp2.len = 0;
		if (mcz_buf_reserve(&cx->tmp2, bound) == 0) {
			size_t z = ZSTD_compressCCtx(cx->zc, cx->tmp2.p, bound, raw->p, raw->len,
						     cx->level);
			if (!ZSTD_isError(z) && z < raw->len) {
				data = cx->tmp2.p;
				len = z;
				flags |= MCZ_COL_ZSTD;
			}
		}
	}
	mcz_buf_u8(out, codec);
	mcz_buf_u8(out, flags);
	mcz_buf_uv(out, raw->len);
	mcz_buf_put(out, data, len);
}

void mcz_codec_put_time(mcz_codec_ctx *cx, mcz_buf *out, const int64_t *t, size_t n)
{
	mcz_buf *r = &cx->tmp;
	r->len = 0;
	int64_t pd = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0) {
			mcz_buf_sv(r, t[0]);
		} else {
			int64_t d = (int64_t)((uint64_t)t[i] - (uint64_t)t[i - 1]);
			mcz_buf_sv(r, (int64_t)((uint64_t)d - (uint64_t)pd));
			pd = d;
		}
	}
	codec_emit(cx, out, MCZ_CODEC_TIME, 0, r);
}

static double codec_gauge_value(const mcz_stream_desc *d, mcz_value v)
{
	if (d->type == MCZ_U64)
		return (double)v.u;
	if (d->type == MCZ_I64)
		return (double)v.i;
	return v.f;
}

void mcz_bucket_init(mcz_bucket *b)
{
	b->min = b->max = NAN;
	b->sum = 0;
	b->count = 0;
	b->first = b->last = 0;
}

static void bucket_time(mcz_bucket *b, int64_t t)
{
	if (b->count == 0 || t < b->first)
		b->first = t;
	if (b->count == 0 || t > b->last)
		b->last = t;
}

/* One sample; x NaN counts the sample but not in min/max/sum (a counter's
 * first sample has no rate). */
void mcz_bucket_add(mcz_bucket *b, double x, int64_t t)
{
	bucket_time(b, t);
	b->count++;
	if (isnan(x))
		return;
	if (isnan(b->min) || x < b->min)
		b->min = x;
	if (isnan(b->max) || x > b->max)
		b->max = x;
}

void mcz_bucket_merge(mcz_bucket *into, const mcz_bucket *from)
{
	if (from->count == 0)
		return;
	if (into->count == 0 || from->first < into->first)
		into->first = from->first;
	if (into->count == 0 || from->last > into->last)
		into->last = from->last;
	into->count += from->count;
	into->sum += from->sum;
	if (!isnan(from->min) && (isnan(into->min) || from->min < into->min))
		into->min = from->min;
	if (!isnan(from->max) && (isnan(into->max) || from->max > into->max))
		into->max = from->max;
}

void mcz_codec_put_col(mcz_codec_ctx *cx, mcz_buf *out, const mcz_stream_desc *d,
		       const int64_t *t, const mcz_value *v, const uint8_t *present, size_t n,
		       mcz_codec_prev *prev, mcz_bucket *sum)
{
	mcz_buf *r = &cx->tmp;
	r->len = 0;
	mcz_bucket_init(sum);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += !present || present[i];
	if (m == 0) {
		mcz_buf_u8(out, MCZ_CODEC_EMPTY);
		mcz_buf_u8(out, 0);
		mcz_buf_uv(out, 0);
		return;
	}
	uint8_t flags = 0;
	if (m < n) {
		flags |= MCZ_COL_BITMAP;
		size_t nb = (n + 7) / 8;
		if (mcz_buf_reserve(r, nb))
			return;
		memset(r->p, 0, nb);
		for (size_t i = 0; i < n; i++)
			if (present[i])
				r->p[i / 8] |= (uint8_t)(1u << (i % 8));
		r->len = nb;
	}
	uint8_t codec;
	if (d->kind == MCZ_COUNTER) {
		codec = MCZ_CODEC_COUNTER;
		int first = 1;
		for (size_t i = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			uint64_t delta = prev->have ? v[i].u - prev->raw : 0;
			int64_t dt = prev->have ? t[i] - prev->t : 0;
			if (first) {
				mcz_buf_uv(r, v[i].u);
				mcz_buf_uv(r, delta);
				mcz_buf_uv(r, (uint64_t)dt);
				first = 0;
			} else {
				mcz_buf_uv(r, delta);
			}
			double rate = prev->have && dt > 0 ? (double)delta * 1e9 / (double)dt : NAN;
			mcz_bucket_add(sum, rate, t[i]);
			sum->sum += (double)delta;
			prev->raw = v[i].u;
			prev->t = t[i];
			prev->have = 1;
		}
	} else if (d->type == MCZ_F64) {
		codec = MCZ_CODEC_FLOAT;
		size_t base = r->len;
		if (mcz_buf_reserve(r, 8 * m))
			return;
		uint64_t pb = 0;
		size_t j = 0;
		for (size_t i = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			uint64_t b = v[i].u, x = b ^ pb;
			pb = b;
			for (int k = 0; k < 8; k++)
				r->p[base + (size_t)k * m + j] = (uint8_t)(x >> (8 * k));
			j++;
			/* "A NaN value is counted but takes no part in min, max, sum." */
			double f = v[i].f;
			mcz_bucket_add(sum, f, t[i]);
			if (!isnan(f))
				sum->sum += f;
		}
		r->len = base + 8 * m;
	} else {
		codec = MCZ_CODEC_INT;
		uint64_t pv = 0;
		for (size_t i = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			mcz_buf_sv(r, (int64_t)(v[i].u - pv));
			pv = v[i].u;
			double x = codec_gauge_value(d, v[i]);
			mcz_bucket_add(sum, x, t[i]);
			sum->sum += x;
		}
	}
	codec_emit(cx, out, codec, flags, r);
}

/* Parse a column's framing; returns the raw data in *raw (possibly cx->tmp). */
static int codec_open(mcz_codec_ctx *cx, const uint8_t *p, size_t len, size_t max_raw,
		      uint8_t *codec, uint8_t *flags, const uint8_t **raw, size_t *rawlen)
{
	mcz_cur c = mcz_cur_make(p, len);
	*codec = mcz_cur_u8(&c);
	*flags = mcz_cur_u8(&c);
	uint64_t rl = mcz_cur_uv(&c);
	if (c.err || (*flags & MCZ_COL_RESERVED) || rl > max_raw)
		return MCZ_E_CORRUPT;
	size_t clen = mcz_cur_left(&c);
	if (!(*flags & MCZ_COL_ZSTD)) {
		if (clen != rl)
			return MCZ_E_CORRUPT;
		*raw = c.p;
		*rawlen = (size_t)rl;
		return 0;
	}
	if (!cx->zd && !(cx->zd = ZSTD_createDCtx()))
		return MCZ_E_NOMEM;
	cx->tmp.len = 0;
	if (mcz_buf_reserve(&cx->tmp, (size_t)rl + 1))
		return MCZ_E_NOMEM;
	size_t z = ZSTD_decompressDCtx(cx->zd, cx->tmp.p, (size_t)rl, c.p, clen);
	if (ZSTD_isError(z) || z != rl)
		return MCZ_E_CORRUPT;
	*raw = cx->tmp.p;
	*rawlen = (size_t)rl;
	return 0;
}

int mcz_codec_get_time(mcz_codec_ctx *cx, const uint8_t *p, size_t len, int64_t *t, size_t n)
{
	uint8_t codec, flags;
	const uint8_t *raw;
	size_t rl;
	int rc = codec_open(cx, p, len, 10 * n, &codec, &flags, &raw, &rl);
	if (rc)
		return rc;
	if (codec != MCZ_CODEC_TIME || flags & MCZ_COL_BITMAP)
		return MCZ_E_CORRUPT;
	mcz_cur c = mcz_cur_make(raw, rl);
	uint64_t pd = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0) {
			t[0] = mcz_cur_sv(&c);
		} else {
			pd += (uint64_t)mcz_cur_sv(&c);
			t[i] = (int64_t)((uint64_t)t[i - 1] + pd);
		}
	}
	if (c.err || mcz_cur_left(&c))
		return MCZ_E_CORRUPT;
	return 0;
}

int mcz_codec_get_col(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
		      size_t n, mcz_value *v, uint64_t *delta, uint8_t *present, int64_t *first_dt)
{
	memset(present, 0, n);
	memset(v, 0, n * sizeof *v);
	if (delta)
		memset(delta, 0, n * sizeof *delta);
	if (first_dt)
		*first_dt = 0;
	if (len == 0)
		return 0; /* stream absent from this chunk */
	uint8_t codec, flags;
	const uint8_t *raw;
	size_t rl, nb = (n + 7) / 8;
	int rc = codec_open(cx, p, len, nb + 30 + 10 * n, &codec, &flags, &raw, &rl);
	if (rc)
		return rc;
	if (codec == MCZ_CODEC_EMPTY)
		return rl == 0 && flags == 0 ? 0 : MCZ_E_CORRUPT;
	mcz_cur c = mcz_cur_make(raw, rl);
	size_t m = n;
	if (flags & MCZ_COL_BITMAP) {
		const uint8_t *bm = mcz_cur_bytes(&c, nb);
		if (!bm)
			return MCZ_E_CORRUPT;
		m = 0;
		for (size_t i = 0; i < n; i++)
			m += present[i] = (bm[i / 8] >> (i % 8)) & 1;
		/* "Bits of the bitmap past the last row must be zero." */
		if (n % 8 && bm[nb - 1] >> (n % 8))
			return MCZ_E_CORRUPT;
	} else {
		memset(present, 1, n);
	}
	int want = d->kind == MCZ_COUNTER ? MCZ_CODEC_COUNTER
		   : d->type == MCZ_F64	   ? MCZ_CODEC_FLOAT
					   : MCZ_CODEC_INT;
	if (codec != want)
		return MCZ_E_CORRUPT;
	if (codec == MCZ_CODEC_FLOAT) {
		const uint8_t *planes = mcz_cur_bytes(&c, 8 * m);
		if (!planes || mcz_cur_left(&c))
			return MCZ_E_CORRUPT;
		uint64_t pb = 0;
		for (size_t i = 0, j = 0; i < n; i++) {
			if (!present[i])
				continue;
			uint64_t x = 0;
			for (int k = 0; k < 8; k++)
				x |= (uint64_t)planes[(size_t)k * m + j] << (8 * k);
			pb ^= x;
			v[i].u = pb;
			j++;
		}
		return 0;
	}
	uint64_t acc = 0;
	int first = 1;
	for (size_t i = 0; i < n && !c.err; i++) {
		if (!present[i])
			continue;
		if (codec == MCZ_CODEC_INT) {
			acc += (uint64_t)mcz_cur_sv(&c);
			v[i].u = acc;
			continue;
		}
		uint64_t dl;
		if (first) {
			acc = mcz_cur_uv(&c);
			dl = mcz_cur_uv(&c);
			int64_t dt = (int64_t)mcz_cur_uv(&c);
			if (first_dt)
				*first_dt = dt;
			first = 0;
		} else {
			dl = mcz_cur_uv(&c);
			acc += dl;
		}
		v[i].u = acc;
		if (delta)
			delta[i] = dl;
	}
	if (c.err || mcz_cur_left(&c))
		return MCZ_E_CORRUPT;
	return 0;
}
