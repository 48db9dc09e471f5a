/* query.c: reading samples and summaries out of an open recording
 * (mcz_read, mcz_summary).
 *
 * A chunk is decoded for one stream at a time: its CRC is checked, then
 * the time column and that stream's column only.  mcz_summary() answers
 * from the index's per-chunk summaries wherever a chunk is narrower than a
 * bucket and lies wholly inside the window, and decodes only chunks that
 * are wider than a bucket or cut by the window's ends.
 *
 *     mcz_bucket b[200];
 *     mcz_summary(r, id, t0, t1, 200, b);
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

static int query_cols_reserve(reader_cols *c, size_t n)
{
	if (n <= c->cap)
		return 0;
	int64_t *t = realloc(c->t, n * sizeof *t);
	if (t)
		c->t = t;
	mcz_value *v = realloc(c->v, n * sizeof *v);
	if (v)
		c->v = v;
	uint64_t *d = realloc(c->delta, n * sizeof *d);
	if (d)
		c->delta = d;
	uint8_t *p = realloc(c->present, n);
	if (p)
		c->present = p;
	if (!t || !v || !d || !p)
		return MCZ_E_NOMEM;
	c->cap = n;
	return 0;
}

int mcz_query_decode(mcz_reader *r, size_t ci, uint32_t s)
{
	const mcz_index_chunk *k = &r->ix.chunks[ci];
	mcz_block_hdr h;
	const uint8_t *p = r->base + k->off;
	if (!r->verified) {
		r->verified = calloc(r->ix.nchunks ? r->ix.nchunks : 1, 1);
		if (!r->verified)
			return MCZ_E_NOMEM;
	}
	/* the CRC covers every column: check it once per chunk, not per stream */
	if (k->off > r->size || mcz_block_parse(p, r->size - k->off, &h) ||
	    h.type != MCZ_BT_CHUNK || (!r->verified[ci] && mcz_block_verify(p, &h)))
		return mcz_error_set(MCZ_E_CORRUPT, "chunk at offset %llu: CRC mismatch",
				     (unsigned long long)k->off);
	r->verified[ci] = 1;
	mcz_chunk_info info;
	const uint8_t *cp;
	size_t cl;
	int rc = mcz_chunk_parse(p + MCZ_BLOCK_HDR, h.len, &info);
	if (!rc && (info.nrows != k->nrows || info.t_first != k->t_first ||
		    info.t_last != k->t_last || info.nstreams != k->nstreams))
		rc = MCZ_E_CORRUPT;
	if (!rc)
		rc = query_cols_reserve(&r->cols, info.nrows);
	if (!rc)
		rc = mcz_chunk_col(&info, 0, &cp, &cl);
	if (!rc)
		rc = mcz_codec_get_time(&r->cx, cp, cl, r->cols.t, info.nrows);
	if (!rc && (info.nrows && (r->cols.t[0] != k->t_first ||
				   r->cols.t[info.nrows - 1] != k->t_last)))
		rc = MCZ_E_CORRUPT;
	for (size_t i = 1; !rc && i < info.nrows; i++)
		if (r->cols.t[i] <= r->cols.t[i - 1])
			rc = MCZ_E_CORRUPT;
	if (!rc)
		rc = mcz_chunk_col(&info, 1 + s, &cp, &cl);
	if (!rc)
		rc = mcz_codec_get_col(&r->cx, cp, cl, &r->streams[s], r->cols.t, info.nrows, r->cols.v,
				       r->cols.delta, r->cols.present, &r->cols.first_dt);
	if (rc)
		return mcz_error_set(rc, "chunk at offset %llu: %s", (unsigned long long)k->off,
				     rc == MCZ_E_NOMEM ? "out of memory" : "bad column data");
	r->cols.n = info.nrows;
	return 0;
}

void mcz_query_sample(const mcz_reader *r, uint32_t s, size_t i, int64_t prev_t, mcz_bucket *b)
{
	const mcz_stream_desc *d = &r->streams[s];
	const reader_cols *c = &r->cols;
	double x;
	if (d->kind == MCZ_COUNTER) {
		int64_t dt = prev_t == INT64_MIN ? c->first_dt : c->t[i] - prev_t;
		x = dt > 0 ? (double)c->delta[i] * 1e9 / (double)dt : NAN;
		mcz_bucket_add(b, x, c->t[i]);
		b->sum += (double)c->delta[i];
		return;
	}
	x = d->type == MCZ_U64 ? (double)c->v[i].u : d->type == MCZ_I64 ? (double)c->v[i].i
									: c->v[i].f;
	mcz_bucket_add(b, x, c->t[i]);
	if (!isnan(x))
		b->sum += x;
}

int mcz_query_sums(mcz_reader *r, uint32_t s, const mcz_bucket **sums)
{
	if (!r->ix.sums[s]) {
		mcz_bucket *b = malloc((r->ix.nchunks ? r->ix.nchunks : 1) * sizeof *b);
		if (!b)
			return MCZ_E_NOMEM;
		int rc = 0;
		if (r->secs) {
			rc = mcz_index_load(&r->ix, &r->secs[s], &r->cx, b);
		} else {
			for (size_t ci = 0; ci < r->ix.nchunks && !rc; ci++) {
				mcz_bucket_init(&b[ci]);
				if (r->ix.chunks[ci].nstreams <= s)
					continue;
				if ((rc = mcz_query_decode(r, ci, s)))
					break;
				int64_t prev = INT64_MIN;
				for (size_t i = 0; i < r->cols.n; i++)
					if (r->cols.present[i]) {
						mcz_query_sample(r, s, i, prev, &b[ci]);
						prev = r->cols.t[i];
					}
			}
		}
		if (rc) {
			free(b);
			return rc;
		}
		r->ix.sums[s] = b;
	}
	*sums = r->ix.sums[s];
	return 0;
}

/* First chunk whose t_last >= t. */
static size_t query_first_chunk(const mcz_reader *r, int64_t t)
{
	size_t lo = 0, hi = r->ix.nchunks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->ix.chunks[mid].t_last < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int query_series_grow(mcz_series *o, size_t need, int counter)
{
	size_t cap = need < 1024 ? 1024 : need;
	int64_t *t = realloc(o->t, cap * sizeof *t);
	if (t)
		o->t = t;
	mcz_value *v = realloc(o->v, cap * sizeof *v);
	if (v)
		o->v = v;
	uint8_t *p = realloc(o->present, cap);
	if (p)
		o->present = p;
	uint64_t *d = NULL;
	if (counter && (d = realloc(o->delta, cap * sizeof *d)))
		o->delta = d;
	if (!t || !v || !p || (counter && !d))
		return MCZ_E_NOMEM;
	return 0;
}

int mcz_read(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, mcz_series *out)
{
	if (!r || !out)
		return MCZ_E_ARG;
	memset(out, 0, sizeof *out);
	if (stream >= r->nstreams)
		return MCZ_E_RANGE;
	if (t1 <= t0)
		return 0;
	int counter = r->streams[stream].kind == MCZ_COUNTER;
	size_t total = 0, cap = 0;
	for (size_t ci = query_first_chunk(r, t0);
	     ci < r->ix.nchunks && r->ix.chunks[ci].t_first < t1; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		size_t n = k->nrows;
		int rc;
		if (k->nstreams > stream) {
			rc = mcz_query_decode(r, ci, stream);
		} else {
			/* the stream did not exist yet: rows without it */
			rc = mcz_query_decode(r, ci, 0);
			if (!rc)
				memset(r->cols.present, 0, n);
		}
		if (rc) {
			mcz_series_free(out);
			return rc;
		}
		if (total + n > cap) {
			cap = 2 * (total + n);
			if (query_series_grow(out, cap, counter)) {
				mcz_series_free(out);
				return MCZ_E_NOMEM;
			}
		}
		for (size_t i = 0; i < n; i++) {
			if (r->cols.t[i] < t0 || r->cols.t[i] >= t1)
				continue;
			out->t[total] = r->cols.t[i];
			out->present[total] = r->cols.present[i];
			out->v[total] = r->cols.present[i] ? r->cols.v[i] : (mcz_value){0};
			if (counter)
				out->delta[total] = r->cols.present[i] ? r->cols.delta[i] : 0;
			total++;
		}
	}
	out->n = total;
	return 0;
}

void mcz_series_free(mcz_series *s)
{
	if (!s)
		return;
	free(s->t);
	free(s->v);
	free(s->delta);
	free(s->present);
	memset(s, 0, sizeof *s);
}

static size_t query_bucket(int64_t t, int64_t t0, int64_t t1, size_t n)
{
	if (t < t0)
		return 0;
	uint64_t span = (uint64_t)t1 - (uint64_t)t0, at = (uint64_t)t - (uint64_t)t0;
	uint64_t k;
	if (span < (1ull << 40) && n < (1u << 23)) /* no overflow: 64-bit division */
		k = at * n / span;
	else
		k = (uint64_t)((unsigned __int128)at * n / span);
	return k >= n ? n - 1 : (size_t)k;
}

int mcz_summary(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, size_t n,
		mcz_bucket *out)
{
	if (!r || !out || n == 0 || t1 <= t0)
		return MCZ_E_ARG;
	if (stream >= r->nstreams)
		return MCZ_E_RANGE;
	for (size_t b = 0; b < n; b++)
		mcz_bucket_init(&out[b]);
	const mcz_bucket *sums;
	int rc = mcz_query_sums(r, stream, &sums);
	if (rc)
		return rc;
	__int128 width = ((__int128)t1 - t0) / (__int128)n;
	for (size_t ci = query_first_chunk(r, t0);
	     ci < r->ix.nchunks && r->ix.chunks[ci].t_first < t1; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		if (sums[ci].count == 0)
			continue;
		int inside = k->t_first >= t0 && k->t_last < t1;
		if (inside && (__int128)k->t_last - k->t_first < width) {
			mcz_bucket_merge(&out[query_bucket(sums[ci].first, t0, t1, n)], &sums[ci]);
			continue;
		}
		if ((rc = mcz_query_decode(r, ci, stream)))
			return rc;
		int64_t prev = INT64_MIN;
		for (size_t i = 0; i < r->cols.n; i++) {
			if (!r->cols.present[i])
				continue;
			int64_t t = r->cols.t[i];
			if (t >= t0 && t < t1)
				mcz_query_sample(r, stream, i, prev,
						  &out[query_bucket(t, t0, t1, n)]);
			prev = t;
		}
	}
	return 0;
}

int mcz_query_col_bytes(const mcz_reader *r, uint32_t s, uint64_t *bytes)
{
	*bytes = 0;
	for (size_t ci = 0; ci < r->ix.nchunks; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		mcz_block_hdr h;
		mcz_chunk_info info;
		const uint8_t *p = r->base + k->off, *cp;
		size_t cl;
		if (mcz_block_parse(p, r->size - k->off, &h) ||
		    mcz_chunk_parse(p + MCZ_BLOCK_HDR, h.len, &info) ||
		    mcz_chunk_col_raw(&info, s == UINT32_MAX ? 0 : s + 1, &cp, &cl))
			return MCZ_E_CORRUPT;
		*bytes += cl;
	}
	return 0;
}
