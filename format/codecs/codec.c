/* codec.c: encoding of one column of a chunk (SPEC.md "Columns").
 *
 * A column is: codec id (u8), flags (u8: zstd, presence bitmap), the raw
 * length (varint), then the raw data, zstd-compressed when that is smaller.
 * The raw data start with the presence bitmap when some rows lack the
 * stream, then hold the present values only.
 *
 * Codecs were chosen by measurement (tests/bench/bench-storage.sh) and the
 * encoder tries the candidates of a column's kind and keeps the smallest,
 * so each chunk of each stream gets the codec that suits its data:
 *   counters  per-interval deltas modulo 2^64 after a head (first raw value,
 *             first delta, first interval), as varints or shuffled, plain
 *             or delta-of-delta;
 *   integers  zigzag differences, varints or shuffled;
 *   floats    XOR with the previous value, byte-shuffled; or, when every
 *             value is an exact decimal with at most 9 digits after the
 *             point (PCP's loads, percentages), integer differences.
 * Timestamps are zigzag delta-of-delta varints.  Each column decodes on its
 * own, so a reader decodes only the streams it shows.
 *
 *     mcz_codec_ctx cx = {.level = 3};
 *     mcz_codec_put_time(&cx, &out, t, n);
 *     mcz_codec_put_col(&cx, &out, desc, t, v, present, n, &prev, &sum);
 *     mcz_codec_get_col(&cx, p, len, desc, t, n, v, delta, present, NULL);
 *     mcz_codec_ctx_free(&cx);
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../internal.h"

static const double codec_p10[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* One zstd decompression context per thread, for every reader on it: a
 * context is about 95 KB, and a job's report opens a reader per rank.  Every decompression here is one frame in one call, so a
 * context carries nothing from one reader to the next; a reader is used
 * by one thread at a time (mcz.h), and takes its thread's context at each
 * use.  Freed when its thread ends. */
static pthread_key_t codec_dctx_key;
static pthread_once_t codec_dctx_once = PTHREAD_ONCE_INIT;
static int codec_dctx_ok;

static void codec_dctx_free(void *p)
{
	ZSTD_freeDCtx(p);
}

static void codec_dctx_init(void)
{
	codec_dctx_ok = pthread_key_create(&codec_dctx_key, codec_dctx_free) == 0;
}

void *mcz_codec_dctx(void)
{
	pthread_once(&codec_dctx_once, codec_dctx_init);
	if (!codec_dctx_ok)
		return NULL;
	ZSTD_DCtx *d = pthread_getspecific(codec_dctx_key);
	if (!d && (d = ZSTD_createDCtx()) && pthread_setspecific(codec_dctx_key, d) != 0) {
		ZSTD_freeDCtx(d);
		d = NULL;
	}
	return d;
}

void mcz_codec_ctx_free(mcz_codec_ctx *cx)
{
	if (cx->prep_free)
		cx->prep_free(cx);
	ZSTD_freeCCtx(cx->zc);
	cx->zc = cx->zd = NULL; /* zd: the thread's (mcz_codec_dctx) */
	mcz_buf_free(&cx->tmp);
	mcz_buf_free(&cx->tmp2);
	mcz_buf_free(&cx->best);
	mcz_buf_free(&cx->alt_best);
	mcz_buf_free(&cx->bm);
	free(cx->x);
	free(cx->y);
	cx->x = cx->y = NULL;
	cx->xcap = 0;
	if (cx->peer) {
		mcz_codec_ctx_free(cx->peer);
		free(cx->peer);
		cx->peer = NULL;
	}
}

int mcz_codec_scratch(mcz_codec_ctx *cx, size_t n)
{
	if (n <= cx->xcap)
		return 0;
	uint64_t *x = realloc(cx->x, n * sizeof *x);
	if (x)
		cx->x = x;
	uint64_t *y = realloc(cx->y, n * sizeof *y);
	if (y)
		cx->y = y;
	if (!x || !y)
		return MCZ_E_NOMEM;
	cx->xcap = n;
	return 0;
}

/* Frame raw as a column (compressed when that is smaller) and keep it in
 * cx->best if it is the smallest candidate so far (best_ok: one kept). */
static void codec_try(mcz_codec_ctx *cx, uint8_t codec, uint8_t flags, const mcz_buf *raw,
		      int *best_ok)
{
	mcz_buf *f = &cx->tmp2;
	f->len = 0;
	if (raw->err || mcz_buf_reserve(f, 12 + ZSTD_compressBound(raw->len))) {
		cx->best.err = raw->err ? raw->err : MCZ_E_NOMEM;
		return;
	}
	mcz_buf_u8(f, codec);
	mcz_buf_u8(f, flags | MCZ_COL_ZSTD);
	mcz_buf_uv(f, raw->len);
	size_t z = 0;
	/* Small columns gain from a harder level, but not from the hardest:
	 * level 9 packs them as well as 3 to 8 do and nearly as well as 19,
	 * at a fraction of 19's time on a wide archive (bench-pcp.sh).  A
	 * batch writer (mcz import) packs its narrow columns together in
	 * shared runs (gchunk.c), so a column's own frame only ranks its
	 * codecs: level 3 there, and a wide column's winner compressed again
	 * at the writer's level (codec_repack). */
	int level = cx->thorough && !cx->fast && !cx->quick ? 3
		    : raw->len >= 1024 || cx->fast || cx->quick ? cx->level
		    : cx->level < 9				  ? 9
								  : cx->level;
	/* fast (PART blocks, replaced seconds later): zstd only where it pays;
	 * quick (a viewer's conversion): the candidates compared raw, the
	 * chosen one compressed once (codec_repack); thorough: candidates of
	 * under 64 bytes compared raw, as their bytes go into a shared run,
	 * where a zstd pass per candidate of a few bytes would cost more
	 * than the size it tells apart */
	unsigned least = cx->fast ? 256u : cx->thorough ? 64u : 16u;
	if (!cx->quick && raw->len >= least &&
	    (cx->zc || (cx->zc = ZSTD_createCCtx())))
		z = ZSTD_compressCCtx(cx->zc, f->p + f->len, f->cap - f->len, raw->p, raw->len,
				      level);
	if (z && !ZSTD_isError(z) && z < raw->len) {
		f->len += z;
	} else {
		f->p[1] = flags;
		mcz_buf_put(f, raw->p, raw->len);
	}
	/* the second choice (cx->alt): the best of the codecs whose values
	 * are shuffled, or that have no shuffled twin */
	if (cx->alt && codec != MCZ_CODEC_COUNTER && codec != MCZ_CODEC_COUNTER_DOD &&
	    codec != MCZ_CODEC_COUNTER_RATE && codec != MCZ_CODEC_INT &&
	    (!cx->alt_ok || f->len < cx->alt_best.len)) {
		cx->alt_best.len = 0;
		mcz_buf_put(&cx->alt_best, f->p, f->len);
		cx->alt_ok = 1;
	}
	if (!*best_ok || f->len < cx->best.len) {
		mcz_buf t = cx->best;
		cx->best = *f;
		*f = t;
		*best_ok = 1;
		cx->tried[codec]++;
	}
}

/* The chosen frame in b packed again at the writer's level, when that is
 * smaller and its bytes (unframed) are from `from` on:
 * - quick (a viewer's conversion) compares its candidates raw and packs
 *   only the chosen one: a conversion of a 36,886-stream archive spent
 *   20 % of its time compressing candidates it then dropped;
 * - a batch writer ranks them at level 3 (codec_try) and packs again a
 *   column that keeps its own frame in a GCHUNK (GCHUNK_NARROW bytes and
 *   more; the time column, from 16 bytes, codec_batch): ranking every
 *   candidate at level 9 was a third of an import of a narrow archive
 *   (count-mark: 104 level-9 passes over 5 KB columns for 11 chunks). */
static void codec_repack(mcz_codec_ctx *cx, mcz_buf *b, uint64_t from)
{
	mcz_cur c = mcz_cur_make(b->p, b->len);
	uint8_t codec = mcz_cur_u8(&c), flags = mcz_cur_u8(&c);
	uint64_t rl = mcz_cur_uv(&c);
	if (c.err || b->err || rl < from || rl > (64u << 20))
		return;
	const uint8_t *raw = c.p;
	if (flags & MCZ_COL_ZSTD) { /* ranked at level 3: its bytes again */
		mcz_buf *r = &cx->tmp;
		if (!(cx->zd = mcz_codec_dctx()) || mcz_buf_reserve(r, (size_t)rl))
			return;
		size_t z = ZSTD_decompressDCtx(cx->zd, r->p, (size_t)rl, c.p, mcz_cur_left(&c));
		if (ZSTD_isError(z) || z != rl)
			return;
		raw = r->p;
	} else if (rl != mcz_cur_left(&c)) {
		return;
	}
	mcz_buf *f = &cx->tmp2;
	f->len = 0;
	if ((!cx->zc && !(cx->zc = ZSTD_createCCtx())) ||
	    mcz_buf_reserve(f, 12 + ZSTD_compressBound((size_t)rl)))
		return;
	mcz_buf_u8(f, codec);
	mcz_buf_u8(f, flags | MCZ_COL_ZSTD);
	mcz_buf_uv(f, rl);
	size_t z = ZSTD_compressCCtx(cx->zc, f->p + f->len, f->cap - f->len, raw, (size_t)rl,
				     cx->level);
	if (ZSTD_isError(z) || f->len + z >= b->len)
		return;
	f->len += z;
	mcz_buf t = *b;
	*b = *f;
	*f = t;
}

/* A batch writer whose candidates were ranked at level 3 (codec_try). */
static int codec_batch(const mcz_codec_ctx *cx)
{
	return cx->thorough && !cx->fast && !cx->quick && cx->level > 3;
}

static uint64_t codec_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* TIME_LAG (1.4): q_i = (t_i - t_(i-1)) / g, stored as zigzag(q_i -
 * q_(i-lag)), q_j = 0 for j <= 0: microsecond clocks (PCP) lose their
 * three zero digits, and two interleaved sampling groups (a pair of rows
 * every minute) are predicted from the pair before. */
static void codec_time_lag(mcz_codec_ctx *cx, const int64_t *t, size_t n, int *ok)
{
	mcz_buf *r = &cx->tmp;
	uint64_t g = 0;
	for (size_t i = 1; i < n; i++)
		g = codec_gcd((uint64_t)t[i] - (uint64_t)t[i - 1], g);
	for (unsigned lag = 1; lag <= 2 && g && n > lag; lag++) {
		for (size_t i = 1; i < n; i++) {
			uint64_t q = ((uint64_t)t[i] - (uint64_t)t[i - 1]) / g;
			uint64_t p = i > lag ? ((uint64_t)t[i - lag] - (uint64_t)t[i - lag - 1]) / g : 0;
			cx->y[i - 1] = mcz_buf_zigzag((int64_t)(q - p));
		}
		r->len = 0;
		mcz_buf_sv(r, t[0]);
		mcz_buf_uv(r, g);
		mcz_buf_u8(r, (uint8_t)lag);
		mcz_pack_put(r, MCZ_PACK_VARINT, cx->y, n - 1);
		codec_try(cx, MCZ_CODEC_TIME_LAG, 0, r, ok);
	}
}

void mcz_codec_put_time(mcz_codec_ctx *cx, mcz_buf *out, const int64_t *t, size_t n)
{
	mcz_buf *r = &cx->tmp;
	int ok = 0;
	if (n == 0 || mcz_codec_scratch(cx, n)) {
		out->err = MCZ_E_NOMEM;
		return;
	}
	int64_t pd = 0;
	for (size_t i = 1; i < n; i++) {
		int64_t d = (int64_t)((uint64_t)t[i] - (uint64_t)t[i - 1]);
		cx->y[i - 1] = mcz_buf_zigzag((int64_t)((uint64_t)d - (uint64_t)pd));
		pd = d;
	}
	for (int shuf = 0; shuf < 2; shuf++) {
		r->len = 0;
		mcz_buf_sv(r, t[0]);
		mcz_pack_put(r, shuf ? MCZ_PACK_SHUFFLE : MCZ_PACK_VARINT, cx->y, n - 1);
		codec_try(cx, shuf ? MCZ_CODEC_TIME_SHUF : MCZ_CODEC_TIME, 0, r, &ok);
	}
	/* "only in a file that has a BUNDLE block before the chunk" */
	if (cx->v14)
		codec_time_lag(cx, t, n, &ok);
	if (cx->quick || codec_batch(cx))
		codec_repack(cx, &cx->best, 16); /* its own frame in every chunk */
	mcz_buf_put(out, cx->best.p, cx->best.len);
	if (cx->best.err)
		out->err = cx->best.err;
}

/* Raw data = bitmap (if any) + head + packed values; try it. */
static void codec_cand(mcz_codec_ctx *cx, uint8_t codec, uint8_t flags, const mcz_buf *head,
		       int packing, const uint64_t *x, size_t m, int *ok)
{
	mcz_buf *r = &cx->tmp;
	r->len = 0;
	mcz_buf_put(r, cx->bm.p, cx->bm.len);
	mcz_buf_put(r, head->p, head->len);
	mcz_pack_put(r, packing, x, m);
	codec_try(cx, codec, flags, r, ok);
}

/* "pred_j = (delta_(j-1) x dt_j + floor(dt_(j-1) / 2)) / dt_(j-1) in
 * unsigned 128-bit arithmetic, taken modulo 2^64; delta_(j-1) when
 * dt_(j-1) is 0" */
static uint64_t codec_pred(uint64_t pdelta, uint64_t pdt, uint64_t dt)
{
	if (pdt == 0)
		return pdelta;
	return (uint64_t)(((unsigned __int128)pdelta * dt + pdt / 2) / pdt);
}

static int codec_same(const uint64_t *x, size_t m)
{
	for (size_t j = 1; j < m; j++)
		if (x[j] != x[0])
			return 0;
	return 1;
}

/* Digits k (0..9) such that every value is exactly n / 10^k, or -1. */
static int codec_decimals(const uint64_t *bits, size_t m, int64_t *n)
{
	for (int k = 0; k <= 9; k++) {
		size_t j;
		for (j = 0; j < m; j++) {
			double f;
			memcpy(&f, &bits[j], 8);
			double s = f * codec_p10[k];
			if (!(fabs(s) < 9007199254740992.0))
				return -1; /* NaN, inf or too many digits */
			int64_t q = (int64_t)llround(s);
			double back = (double)q / codec_p10[k];
			uint64_t bb;
			memcpy(&bb, &back, 8);
			if (bb != bits[j])
				break;
			n[j] = q;
		}
		if (j == m)
			return k;
	}
	return -1;
}

void mcz_codec_put_col(mcz_codec_ctx *cx, mcz_buf *out, const mcz_stream_desc *d,
		       const int64_t *t, const mcz_value *v, const uint8_t *present, size_t n,
		       mcz_codec_prev *prev, mcz_bucket *sum)
{
	mcz_bucket_init(sum);
	cx->alt_ok = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += !present || present[i];
	if (m == 0) {
		mcz_buf_u8(out, MCZ_CODEC_EMPTY);
		mcz_buf_u8(out, 0);
		mcz_buf_uv(out, 0);
		if (cx->alt)
			mcz_buf_put(cx->alt, out->p + out->len - 3, 3);
		return;
	}
	if (mcz_codec_scratch(cx, m)) {
		out->err = MCZ_E_NOMEM;
		return;
	}
	uint8_t flags = 0;
	cx->bm.len = 0;
	if (m < n) {
		flags |= MCZ_COL_BITMAP;
		size_t nb = (n + 7) / 8;
		if (mcz_buf_reserve(&cx->bm, nb)) {
			out->err = MCZ_E_NOMEM;
			return;
		}
		memset(cx->bm.p, 0, nb);
		for (size_t i = 0; i < n; i++)
			if (present[i])
				cx->bm.p[i / 8] |= (uint8_t)(1u << (i % 8));
		cx->bm.len = nb;
	}
	uint64_t *x = cx->x, *y = cx->y;
	mcz_buf head = {0};
	int ok = 0;
	size_t j = 0;
	if (d->kind == MCZ_COUNTER) {
		int64_t first_dt = 0;
		for (size_t i = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			uint64_t delta = prev->have ? v[i].u - prev->raw : 0;
			int64_t dt = prev->have ? t[i] - prev->t : 0;
			if (j == 0) {
				mcz_buf_uv(&head, v[i].u);
				mcz_buf_uv(&head, delta);
				mcz_buf_uv(&head, (uint64_t)dt);
				first_dt = dt;
			}
			x[j] = delta;
			if (j > 0)
				y[j - 1] = mcz_buf_zigzag((int64_t)(delta - x[j - 1]));
			j++;
			double rate = prev->have ? mcz_counter_rate(delta, dt) : NAN;
			mcz_bucket_add(sum, rate, t[i]);
			sum->sum += mcz_counter_step(delta);
			prev->raw = v[i].u;
			prev->t = t[i];
			prev->have = 1;
		}
		size_t same = 1;
		while (same < m - 1 && x[same + 1] == x[1])
			same++;
		if (m > 2 && same == m - 1)
			codec_cand(cx, MCZ_CODEC_CONST, flags, &head, MCZ_PACK_VARINT, x + 1, 1, &ok);
		codec_cand(cx, MCZ_CODEC_COUNTER, flags, &head, MCZ_PACK_VARINT, x + 1, m - 1, &ok);
		codec_cand(cx, MCZ_CODEC_COUNTER_SHUF, flags, &head, MCZ_PACK_SHUFFLE, x + 1, m - 1,
			   &ok);
		codec_cand(cx, MCZ_CODEC_COUNTER_DOD, flags, &head, MCZ_PACK_VARINT, y, m - 1, &ok);
		codec_cand(cx, MCZ_CODEC_COUNTER_DOD_SHUF, flags, &head, MCZ_PACK_SHUFFLE, y, m - 1,
			   &ok);
		/* rate x dt prediction: cycles, task-clock and busy counters grow
		 * with the length of the interval, which jitters */
		uint64_t pdt = 0, pdelta = x[0];
		int64_t pt = 0;
		for (size_t i = 0, k = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			if (k == 0) {
				pdt = (uint64_t)first_dt;
			} else {
				uint64_t dt = (uint64_t)(t[i] - pt);
				y[k - 1] = mcz_buf_zigzag((int64_t)(x[k] - codec_pred(pdelta, pdt, dt)));
				pdt = dt;
				pdelta = x[k];
			}
			pt = t[i];
			k++;
		}
		codec_cand(cx, MCZ_CODEC_COUNTER_RATE, flags, &head, MCZ_PACK_VARINT, y, m - 1, &ok);
		codec_cand(cx, MCZ_CODEC_COUNTER_RATE_SHUF, flags, &head, MCZ_PACK_SHUFFLE, y, m - 1,
			   &ok);
	} else if (d->type == MCZ_F64) {
		for (size_t i = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			x[j] = v[i].u;
			y[j] = x[j] ^ (j ? x[j - 1] : 0);
			j++;
			/* "A NaN value is counted but takes no part in min, max, sum." */
			mcz_bucket_add(sum, v[i].f, t[i]);
			if (!isnan(v[i].f))
				sum->sum += v[i].f;
		}
		if (m > 1 && codec_same(x, m))
			codec_cand(cx, MCZ_CODEC_CONST, flags, &head, MCZ_PACK_VARINT, x, 1, &ok);
		codec_cand(cx, MCZ_CODEC_FLOAT, flags, &head, MCZ_PACK_SHUFFLE, y, m, &ok);
		int64_t *q = (int64_t *)y;
		int k = codec_decimals(x, m, q);
		if (k >= 0) {
			int64_t pq = 0;
			for (size_t a = 0; a < m; a++) {
				int64_t cur = q[a];
				y[a] = mcz_buf_zigzag((int64_t)((uint64_t)cur - (uint64_t)pq));
				pq = cur;
			}
			mcz_buf_u8(&head, (uint8_t)k);
			codec_cand(cx, MCZ_CODEC_FLOAT_DEC, flags, &head, MCZ_PACK_VARINT, y, m, &ok);
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			if (present && !present[i])
				continue;
			y[j] = mcz_buf_zigzag((int64_t)(v[i].u - (j ? x[j - 1] : 0)));
			x[j++] = v[i].u;
			double g = d->type == MCZ_U64 ? (double)v[i].u : (double)v[i].i;
			mcz_bucket_add(sum, g, t[i]);
			sum->sum += g;
		}
		if (m > 1 && codec_same(x, m))
			codec_cand(cx, MCZ_CODEC_CONST, flags, &head, MCZ_PACK_VARINT, x, 1, &ok);
		codec_cand(cx, MCZ_CODEC_INT, flags, &head, MCZ_PACK_VARINT, y, m, &ok);
		codec_cand(cx, MCZ_CODEC_INT_SHUF, flags, &head, MCZ_PACK_SHUFFLE, y, m, &ok);
	}
	if (head.err || cx->best.err)
		out->err = head.err ? head.err : cx->best.err;
	if (cx->quick || codec_batch(cx))
		codec_repack(cx, &cx->best, cx->quick ? 16 : GCHUNK_NARROW);
	mcz_buf_put(out, cx->best.p, cx->best.len);
	if (cx->alt) {
		if (cx->alt_ok && codec_batch(cx))
			codec_repack(cx, &cx->alt_best, GCHUNK_NARROW);
		const mcz_buf *a = cx->alt_ok ? &cx->alt_best : &cx->best;
		mcz_buf_put(cx->alt, a->p, a->len);
		if (cx->alt_best.err && !cx->alt->err)
			cx->alt->err = cx->alt_best.err;
	}
	mcz_buf_free(&head);
}

/* Parse a column's framing; returns the raw data in *raw (possibly cx->tmp). */
static int codec_open(mcz_codec_ctx *cx, const uint8_t *p, size_t len, size_t max_raw,
		      uint8_t *codec, uint8_t *flags, const uint8_t **raw, size_t *rawlen)
{
	mcz_cur c = mcz_cur_make(p, len);
	*codec = mcz_cur_u8(&c);
	*flags = mcz_cur_u8(&c);
	uint64_t rl = mcz_cur_uv(&c);
	if (c.err || (*flags & MCZ_COL_RESERVED) || rl > max_raw || *codec > MCZ_CODEC_MAX)
		return MCZ_E_CORRUPT;
	size_t clen = mcz_cur_left(&c);
	if (!(*flags & MCZ_COL_ZSTD)) {
		if (clen != rl)
			return MCZ_E_CORRUPT;
		*raw = c.p;
		*rawlen = (size_t)rl;
		return 0;
	}
	if (!(cx->zd = mcz_codec_dctx()))
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
	int rc = codec_open(cx, p, len, 10 * n + 21, &codec, &flags, &raw, &rl);
	if (rc)
		return rc;
	if ((codec != MCZ_CODEC_TIME && codec != MCZ_CODEC_TIME_SHUF &&
	     codec != MCZ_CODEC_TIME_LAG) ||
	    flags & MCZ_COL_BITMAP || n == 0 || mcz_codec_scratch(cx, n))
		return MCZ_E_CORRUPT;
	mcz_cur c = mcz_cur_make(raw, rl);
	t[0] = mcz_cur_sv(&c);
	uint64_t g = 1, lag = 0;
	if (codec == MCZ_CODEC_TIME_LAG) {
		/* "g >= 1, lag 1 to 8" */
		g = mcz_cur_uv(&c);
		lag = mcz_cur_u8(&c);
		if (c.err || g == 0 || lag == 0 || lag > 8)
			return MCZ_E_CORRUPT;
	}
	if (mcz_pack_get(&c, codec == MCZ_CODEC_TIME_SHUF ? MCZ_PACK_SHUFFLE : MCZ_PACK_VARINT,
			 cx->y, n - 1))
		return MCZ_E_CORRUPT;
	uint64_t pd = 0;
	for (size_t i = 1; i < n; i++) {
		if (lag) {
			/* y[i - 1] becomes q_i, the interval in units of g */
			cx->y[i - 1] = (uint64_t)mcz_buf_unzigzag(cx->y[i - 1]) +
				       (i > lag ? cx->y[i - 1 - lag] : 0);
			pd = cx->y[i - 1] * g;
		} else {
			pd += (uint64_t)mcz_buf_unzigzag(cx->y[i - 1]);
		}
		t[i] = (int64_t)((uint64_t)t[i - 1] + pd);
	}
	if (c.err || mcz_cur_left(&c))
		return MCZ_E_CORRUPT;
	return 0;
}

/* Which codecs a stream of this kind and type may use. */
static int codec_allowed(const mcz_stream_desc *d, uint8_t codec)
{
	if (codec == MCZ_CODEC_CONST)
		return 1;
	if (d->kind == MCZ_COUNTER)
		return codec == MCZ_CODEC_COUNTER || codec == MCZ_CODEC_COUNTER_SHUF ||
		       codec == MCZ_CODEC_COUNTER_DOD || codec == MCZ_CODEC_COUNTER_DOD_SHUF ||
		       codec == MCZ_CODEC_COUNTER_RATE || codec == MCZ_CODEC_COUNTER_RATE_SHUF;
	if (d->type == MCZ_F64)
		return codec == MCZ_CODEC_FLOAT || codec == MCZ_CODEC_FLOAT_DEC;
	return codec == MCZ_CODEC_INT || codec == MCZ_CODEC_INT_SHUF;
}

/* Decode the m present values of a column body into x (bits of each). */
static int codec_values(mcz_codec_ctx *cx, const mcz_stream_desc *d, mcz_cur *c, uint8_t codec,
			size_t m, const int64_t *pt, uint64_t *x, uint64_t *dl, int64_t *first_dt)
{
	uint64_t *y = cx->y;
	int shuf = codec == MCZ_CODEC_COUNTER_SHUF || codec == MCZ_CODEC_COUNTER_DOD_SHUF ||
		   codec == MCZ_CODEC_INT_SHUF || codec == MCZ_CODEC_FLOAT ||
		   codec == MCZ_CODEC_COUNTER_RATE_SHUF;
	int packing = shuf ? MCZ_PACK_SHUFFLE : MCZ_PACK_VARINT;
	if (codec == MCZ_CODEC_CONST && d->kind != MCZ_COUNTER) {
		uint64_t v0 = mcz_cur_uv(c);
		for (size_t j = 0; j < m; j++)
			x[j] = v0;
		return c->err;
	}
	if (codec == MCZ_CODEC_INT || codec == MCZ_CODEC_INT_SHUF || codec == MCZ_CODEC_FLOAT_DEC) {
		int k = codec == MCZ_CODEC_FLOAT_DEC ? mcz_cur_u8(c) : 0;
		if (k > 9 || mcz_pack_get(c, packing, y, m))
			return MCZ_E_CORRUPT;
		uint64_t acc = 0;
		for (size_t j = 0; j < m; j++) {
			acc += (uint64_t)mcz_buf_unzigzag(y[j]);
			if (codec == MCZ_CODEC_FLOAT_DEC) {
				double f = (double)(int64_t)acc / codec_p10[k];
				memcpy(&x[j], &f, 8);
			} else {
				x[j] = acc;
			}
		}
		return 0;
	}
	if (codec == MCZ_CODEC_FLOAT) {
		if (mcz_pack_get(c, packing, y, m))
			return MCZ_E_CORRUPT;
		for (size_t j = 0; j < m; j++)
			x[j] = y[j] ^ (j ? x[j - 1] : 0);
		return 0;
	}
	/* counters: head, then m - 1 deltas or delta-of-deltas */
	x[0] = mcz_cur_uv(c);
	dl[0] = mcz_cur_uv(c);
	*first_dt = (int64_t)mcz_cur_uv(c);
	if (codec == MCZ_CODEC_CONST) {
		/* "m is at least 3 for a CONST counter column" */
		uint64_t d0 = mcz_cur_uv(c);
		if (m < 3)
			return MCZ_E_CORRUPT;
		for (size_t j = 0; j + 1 < m; j++)
			y[j] = d0;
	} else if (mcz_pack_get(c, packing, y, m - 1)) {
		return MCZ_E_CORRUPT;
	}
	if (c->err || *first_dt < 0)
		return MCZ_E_CORRUPT;
	int dod = codec == MCZ_CODEC_COUNTER_DOD || codec == MCZ_CODEC_COUNTER_DOD_SHUF;
	int rate = codec == MCZ_CODEC_COUNTER_RATE || codec == MCZ_CODEC_COUNTER_RATE_SHUF;
	uint64_t pdt = (uint64_t)*first_dt;
	for (size_t j = 1; j < m; j++) {
		if (rate) {
			uint64_t dt = (uint64_t)(pt[j] - pt[j - 1]);
			dl[j] = codec_pred(dl[j - 1], pdt, dt) + (uint64_t)mcz_buf_unzigzag(y[j - 1]);
			pdt = dt;
		} else {
			dl[j] = dod ? dl[j - 1] + (uint64_t)mcz_buf_unzigzag(y[j - 1]) : y[j - 1];
		}
		x[j] = x[j - 1] + dl[j];
	}
	return 0;
}

/* A presence bitmap's byte as 8 bytes of 0 or 1, the first row lowest (a
 * little-endian word, so that one 8-byte store writes 8 rows). */
#define BITS1(b)                                                                               \
	((uint64_t)((b) & 1) | (uint64_t)(((b) >> 1) & 1) << 8 |                                 \
	 (uint64_t)(((b) >> 2) & 1) << 16 | (uint64_t)(((b) >> 3) & 1) << 24 |                   \
	 (uint64_t)(((b) >> 4) & 1) << 32 | (uint64_t)(((b) >> 5) & 1) << 40 |                   \
	 (uint64_t)(((b) >> 6) & 1) << 48 | (uint64_t)(((b) >> 7) & 1) << 56)
#define BITS4(b) BITS1(b), BITS1((b) + 1), BITS1((b) + 2), BITS1((b) + 3)
#define BITS16(b) BITS4(b), BITS4((b) + 4), BITS4((b) + 8), BITS4((b) + 12)
#define BITS64(b) BITS16(b), BITS16((b) + 16), BITS16((b) + 32), BITS16((b) + 48)
static const uint64_t codec_bits[256] = {BITS64(0), BITS64(64), BITS64(128), BITS64(192)};

/* The bitmap bm of n rows into present[n] (0 or 1 each); the rows present.
 * A byte at a time (a table, one store of 8 rows where the machine is
 * little-endian) rather than a bit: sparse columns of wide PCP archives
 * are decoded by the hundred thousand when a view opens. */
static size_t codec_unpack_bits(const uint8_t *bm, size_t n, uint8_t *present)
{
	size_t m = 0, i = 0;
	for (; i + 8 <= n; i += 8) {
		uint8_t b = bm[i / 8];
		m += (size_t)((codec_bits[b] * 0x0101010101010101ULL) >> 56); /* its bits set */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(present + i, &codec_bits[b], 8);
#else
		for (int k = 0; k < 8; k++)
			present[i + k] = (b >> k) & 1;
#endif
	}
	for (; i < n; i++)
		m += present[i] = (bm[i / 8] >> (i % 8)) & 1;
	return m;
}

int mcz_codec_col_const(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
			size_t n, mcz_value *v0, const uint8_t **bm, int *empty)
{
	/* the codec and flags bytes come first, uncompressed: most columns
	 * are told apart without opening them */
	*bm = NULL;
	*empty = 0;
	if (d->kind == MCZ_COUNTER || n == 0 || len < 2 ||
	    (p[0] != MCZ_CODEC_CONST && p[0] != MCZ_CODEC_EMPTY))
		return 0;
	uint8_t codec, flags;
	const uint8_t *raw = NULL;
	size_t rl = 0, nb = (n + 7) / 8;
	if (codec_open(cx, p, len, nb + 32 + 10 * n, &codec, &flags, &raw, &rl))
		return 0;
	if (codec == MCZ_CODEC_EMPTY)
		return (*empty = rl == 0 && flags == 0);
	if (!codec_allowed(d, codec))
		return 0;
	mcz_cur c = mcz_cur_make(raw, rl);
	if (flags & MCZ_COL_BITMAP) {
		/* as mcz_codec_get_col checks it: no bit past the last row, and
		 * at least one set */
		const uint8_t *b = mcz_cur_bytes(&c, nb);
		int any = 0;
		for (size_t i = 0; b && i < nb && !any; i++)
			any = b[i] != 0;
		if (!b || !any || (n % 8 && b[nb - 1] >> (n % 8)))
			return 0;
		*bm = b;
	}
	v0->u = mcz_cur_uv(&c);
	if (c.err || mcz_cur_left(&c)) {
		*bm = NULL;
		return 0;
	}
	return 1;
}

/* The present rows of a column of n rows decoded: *m of them (0: EMPTY),
 * their times *pt, values *x (mcz_value's bits) and a counter's deltas
 * *dl, and the bitmap *bm (NULL: every row).  With v given and every row
 * present, into v[n] and delta[n] (or scratch for a counter's deltas when
 * delta is NULL); otherwise into cx's scratch, valid until cx is used
 * again.  present[n] is filled when given. */
static int codec_present_values(mcz_codec_ctx *cx, const uint8_t *p, size_t len,
				const mcz_stream_desc *d, const int64_t *t, size_t n, mcz_value *v,
				uint64_t *delta, uint8_t *present, size_t *m, const uint8_t **bm,
				const int64_t **pt, const uint64_t **x, const uint64_t **dl,
				int64_t *first_dt)
{
	*m = 0;
	*bm = NULL;
	*first_dt = 0;
	uint8_t codec = MCZ_CODEC_EMPTY, flags = 0;
	const uint8_t *raw = NULL;
	size_t rl = 0, nb = (n + 7) / 8;
	int rc = len ? codec_open(cx, p, len, nb + 32 + 10 * n, &codec, &flags, &raw, &rl) : 0;
	if (rc)
		return rc;
	if (codec == MCZ_CODEC_EMPTY) /* or len 0: stream absent from this chunk */
		return rl == 0 && flags == 0 ? 0 : MCZ_E_CORRUPT;
	if (!codec_allowed(d, codec))
		return MCZ_E_CORRUPT;
	mcz_cur c = mcz_cur_make(raw, rl);
	size_t k = n;
	if (flags & MCZ_COL_BITMAP) {
		if (!(*bm = mcz_cur_bytes(&c, nb)))
			return MCZ_E_CORRUPT;
		if (present) {
			k = codec_unpack_bits(*bm, n, present);
		} else {
			k = 0;
			for (size_t i = 0; i < nb; i++)
				k += (size_t)__builtin_popcount((*bm)[i]);
		}
		/* "Bits of the bitmap past the last row must be zero; a bitmap with
		 * no bit set is invalid (such a column is EMPTY)." */
		if ((n % 8 && (*bm)[nb - 1] >> (n % 8)) || k == 0)
			return MCZ_E_CORRUPT;
	} else if (present) {
		memset(present, 1, n);
	}
	/* Every row present and v given: values and deltas are decoded in
	 * place, else into scratch (xs values, ds deltas, g the present rows'
	 * times). */
	int direct = k == n && v;
	if (mcz_codec_scratch(cx, direct ? k : 3 * k))
		return MCZ_E_NOMEM;
	uint64_t *xs = direct ? &v[0].u : cx->x;
	uint64_t *ds = direct ? (delta ? delta : cx->x) : cx->x + k;
	const int64_t *g = t;
	if (k < n) { /* the present rows, from the bitmap's set bits */
		int64_t *gt = (int64_t *)(cx->x + 2 * k);
		for (size_t i = 0, j = 0; i < nb; i++)
			for (unsigned b = (*bm)[i]; b; b &= b - 1)
				gt[j++] = t[8 * i + (size_t)__builtin_ctz(b)];
		g = gt;
	}
	if (codec_values(cx, d, &c, codec, k, g, xs, ds, first_dt) || c.err || mcz_cur_left(&c))
		return MCZ_E_CORRUPT;
	*m = k;
	*pt = g;
	*x = xs;
	*dl = ds;
	return 0;
}

int mcz_codec_get_present(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
			  const int64_t *t, size_t n, size_t *m, const int64_t **pt,
			  const uint64_t **x, const uint64_t **dl, int64_t *first_dt)
{
	const uint8_t *bm;
	int64_t fdt;
	int rc = codec_present_values(cx, p, len, d, t, n, NULL, NULL, NULL, m, &bm, pt, x, dl, &fdt);
	if (first_dt)
		*first_dt = rc ? 0 : fdt;
	return rc;
}

int mcz_codec_get_col(mcz_codec_ctx *cx, const uint8_t *p, size_t len, const mcz_stream_desc *d,
		      const int64_t *t, size_t n, mcz_value *v, uint64_t *delta, uint8_t *present, int64_t *first_dt)
{
	/* every row of v, delta and present is written below: on success the
	 * absent rows read 0 (the content after an error is unspecified) */
	size_t m;
	const uint8_t *bm;
	const int64_t *pt;
	const uint64_t *x, *dl;
	int64_t fdt;
	int rc = codec_present_values(cx, p, len, d, t, n, v, delta, present, &m, &bm, &pt, &x, &dl,
				      &fdt);
	if (first_dt)
		*first_dt = rc ? 0 : fdt;
	if (rc)
		return rc;
	int counter = d->kind == MCZ_COUNTER;
	if (m == 0) { /* EMPTY */
		memset(present, 0, n);
		memset(v, 0, n * sizeof *v);
		if (delta)
			memset(delta, 0, n * sizeof *delta);
		return 0;
	}
	if (m == n) { /* decoded in place */
		if (delta && !counter)
			memset(delta, 0, n * sizeof *delta);
		return 0;
	}
	memset(v, 0, n * sizeof *v);
	if (delta)
		memset(delta, 0, n * sizeof *delta);
	for (size_t i = 0, j = 0; i < (n + 7) / 8; i++)
		for (unsigned b = bm[i]; b; b &= b - 1, j++) {
			size_t r = 8 * i + (size_t)__builtin_ctz(b);
			v[r].u = x[j];
			if (delta && counter)
				delta[r] = dl[j];
		}
	return 0;
}
