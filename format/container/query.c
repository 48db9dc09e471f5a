/* query.c: reading samples and summaries out of an open recording
 * (mcz_read, mcz_summary, mcz_summary_multi).
 *
 * A chunk is decoded column by column: its CRC is checked once, its time
 * column and directory decoded once, then only the columns of the streams
 * asked.  Decoded columns are kept in a bounded cache (dcache.c), so
 * queries of several streams, zooms and pans over the same chunks decode
 * each column once.  mcz_summary_multi() walks the chunks once for many
 * streams; mcz_summary() is it for one stream.  It answers
 * from the index's per-chunk summaries wherever a chunk is narrower than a
 * bucket and lies wholly inside the window, and decodes only chunks that
 * are wider than a bucket or cut by the window's ends.
 *
 *     mcz_bucket b[200];
 *     mcz_summary(r, id, t0, t1, 200, b);
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "reader.h"

/* Index groups from this size on leave the resident set once decompressed
 * (reader_drop_pages). */
#define QUERY_DROP_BYTES (64u << 10)

/* rc, said of chunk ci's column (a failed decode or no memory). */
static int query_col_error(const mcz_reader *r, size_t ci, int rc)
{
	return mcz_error_set(rc, "chunk at offset %llu: %s", (unsigned long long)r->ix.chunks[ci].off,
			     rc == MCZ_E_NOMEM ? "out of memory" : "bad column data");
}

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

/* Chunk ci failed its CRC or its columns: skipped as a gap from now on,
 * counted once (mcz_damaged_count is asked on every redraw). */
static void query_mark_damaged(mcz_reader *r, size_t ci)
{
	if (r->verified[ci] != 2)
		r->ndamaged++;
	r->verified[ci] = 2;
}

/* Chunk ci's entry in the cache: its CRC checked (once), its header matched
 * against the index, its timestamps decoded and its column directory read. */
static int query_chunk(mcz_reader *r, size_t ci, mcz_dcache_ent **out)
{
	if ((*out = mcz_dcache_get(&r->dc, ci, 0)))
		return 0;
	const mcz_index_chunk *k = &r->ix.chunks[ci];
	mcz_block_hdr h;
	const uint8_t *p = r->base + k->off;
	if (r->nverified < r->ix.nchunks) { /* a refresh may add chunks */
		uint8_t *v = realloc(r->verified, r->ix.nchunks);
		if (!v)
			return MCZ_E_NOMEM;
		memset(v + r->nverified, 0, r->ix.nchunks - r->nverified);
		r->verified = v;
		r->nverified = r->ix.nchunks;
	}
	/* the CRC covers every column: check it once per chunk, not per stream */
	if (r->verified[ci] == 2 || k->off > r->size ||
	    mcz_block_parse(p, r->size - k->off, &h) || !mcz_block_is_chunk(h.type) ||
	    (!r->verified[ci] && mcz_block_verify(p, &h))) {
		query_mark_damaged(r, ci);
		return mcz_error_set(MCZ_E_CORRUPT, "chunk at offset %llu: CRC mismatch",
				     (unsigned long long)k->off);
	}
	r->verified[ci] = 1;
	mcz_chunk_info info;
	const uint8_t *cp;
	size_t cl;
	mcz_dcache_ent *e = NULL;
	int rc = h.type == MCZ_BT_GCHUNK ? mcz_gchunk_parse(p + MCZ_BLOCK_HDR, h.len, &info)
					 : mcz_chunk_parse(p + MCZ_BLOCK_HDR, h.len, &info);
	if (!rc && (info.nrows != k->nrows || info.t_first != k->t_first ||
		    info.t_last != k->t_last || info.nstreams != k->nstreams))
		rc = MCZ_E_CORRUPT;
	size_t n = info.nrows, nr = info.nruns;
	/* a GCHUNK's run table: rfirst (nr + 1), rdata and rclen (nr each) */
	size_t extra = nr ? (nr + 1) * 4 + nr * 16 + 8 : 0;
	if (!rc && !(e = mcz_dcache_put(&r->dc, ci, 0, (n + (size_t)info.nstreams + 2) * 8 + extra)))
		rc = MCZ_E_NOMEM;
	if (!rc) {
		e->n = n;
		e->t = (int64_t *)(e + 1);
		e->off = (uint64_t *)(e->t + n);
		e->cols = info.cols;
		e->nstreams = info.nstreams;
		rc = mcz_gchunk_dir(&r->cx, &info, e->off);
	}
	if (!rc && nr) {
		e->nruns = (uint32_t)nr;
		e->rdata = e->off + info.nstreams + 2;
		e->rclen = e->rdata + nr;
		e->rfirst = (uint32_t *)(e->rclen + nr);
		rc = mcz_gchunk_runs(&info, e->off, e->rfirst, e->rdata, e->rclen);
	}
	if (!rc)
		rc = mcz_chunk_col_at(e->cols, 0, e->off, 0, &cp, &cl);
	if (!rc)
		rc = mcz_codec_get_time(&r->cx, cp, cl, e->t, n);
	if (!rc && (e->t[0] != k->t_first || e->t[n - 1] != k->t_last))
		rc = MCZ_E_CORRUPT;
	for (size_t i = 1; !rc && i < n; i++)
		if (e->t[i] <= e->t[i - 1])
			rc = MCZ_E_CORRUPT;
	if (rc) {
		if (e)
			mcz_dcache_drop(&r->dc, e);
		if (rc == MCZ_E_CORRUPT)
			query_mark_damaged(r, ci);
		return query_col_error(r, ci, rc);
	}
	*out = e;
	return 0;
}

/* "A damaged chunk hides nothing else": a read that meets one (its CRC or
 * columns failed, now marked 2 in verified[]) goes on past it as a gap;
 * mcz_damaged_count() tells the caller, who says so once. */
static int query_damaged(const mcz_reader *r, size_t ci, int rc)
{
	return rc == MCZ_E_CORRUPT && ci < r->nverified && r->verified[ci] == 2;
}

size_t mcz_damaged_count(const mcz_reader *r)
{
	return r ? r->ndamaged : 0;
}

uint64_t mcz_damaged_blocks(const mcz_reader *r, char *problem, size_t len)
{
	if (problem && len)
		snprintf(problem, len, "%s", r && r->bad_blocks ? r->problem : "");
	return r ? r->bad_blocks : 0;
}

int mcz_damaged_span(const mcz_reader *r, size_t i, int64_t *t0, int64_t *t1)
{
	for (size_t ci = 0; r && ci < r->nverified && ci < r->ix.nchunks; ci++)
		if (r->verified[ci] == 2 && i-- == 0) {
			*t0 = r->ix.chunks[ci].t_first;
			*t1 = r->ix.chunks[ci].t_last;
			return 0;
		}
	return MCZ_E_RANGE;
}

/* Column col of the chunk whose entry is ch, its own bytes (a SAME column
 * not resolved): in the chunk, or in its run, decompressed once into the
 * cache ("one stream is found by decompressing one run"). */
static int query_col_bytes(mcz_reader *r, size_t ci, const mcz_dcache_ent *ch, uint32_t col,
			   const uint8_t **p, size_t *len)
{
	*p = NULL;
	*len = 0;
	if (col > ch->nstreams)
		return 0; /* stream added after this chunk */
	*len = (size_t)(ch->off[col + 1] - ch->off[col]);
	if (!ch->nruns || col == 0) {
		*p = ch->cols + ch->off[col];
		return 0;
	}
	uint32_t k = mcz_gchunk_run_of(ch->rfirst, ch->nruns, col);
	uint64_t first = ch->off[ch->rfirst[k]], at = ch->off[col] - first;
	if (!ch->rclen[k]) {
		*p = ch->cols + ch->rdata[k] + at;
		return 0;
	}
	mcz_dcache_ent *g = mcz_dcache_get(&r->dc, ci, MCZ_DCACHE_RUN | k);
	if (!g) {
		size_t rl = (size_t)(ch->off[ch->rfirst[k + 1]] - first);
		const uint8_t *f = ch->cols + ch->rdata[k];
		size_t fl = (size_t)(ch->rclen[k] & ~(MCZ_RUN_TRANSPOSED | MCZ_RUN_BYNAME));
		if (ZSTD_getFrameContentSize(f, fl) != (unsigned long long)rl)
			return MCZ_E_CORRUPT;
		if (!(g = mcz_dcache_put(&r->dc, ci, MCZ_DCACHE_RUN | k, rl + 1)) ||
		    !(r->cx.zd = mcz_codec_dctx())) {
			if (g)
				mcz_dcache_drop(&r->dc, g);
			return MCZ_E_NOMEM;
		}
		g->raw = (uint8_t *)(g + 1);
		size_t z = ZSTD_decompressDCtx(r->cx.zd, g->raw, rl, f, fl);
		if (ZSTD_isError(z) || z != rl) {
			mcz_dcache_drop(&r->dc, g);
			return MCZ_E_CORRUPT;
		}
		/* a transposed run (1.4), or by metric (1.5): its columns put
		 * back end to end once */
		uint8_t *c = ch->rclen[k] & MCZ_RUN_TRANSPOSED ? malloc(rl + 1) : NULL;
		if (ch->rclen[k] & MCZ_RUN_TRANSPOSED) {
			const uint64_t *o = ch->off + ch->rfirst[k];
			size_t nc = ch->rfirst[k + 1] - ch->rfirst[k];
			uint32_t *grp = ch->rclen[k] & MCZ_RUN_BYNAME ? malloc((nc + 1) * sizeof *grp)
								      : NULL;
			int bad = !c || ((ch->rclen[k] & MCZ_RUN_BYNAME) &&
					 (!grp || !mcz_gchunk_groups(r->streams + ch->rfirst[k] - 1,
								     nc, grp)));
			if (bad || mcz_gchunk_transpose_groups(g->raw, c, o, nc, grp, 1)) {
				free(c);
				free(grp);
				mcz_dcache_drop(&r->dc, g);
				return MCZ_E_NOMEM;
			}
			memcpy(g->raw, c, rl);
			free(c);
			free(grp);
		}
	}
	*p = g->raw + at;
	return 0;
}

/* Column col, a SAME column resolved to the one it refers to. */
static int query_col_resolved(mcz_reader *r, size_t ci, const mcz_dcache_ent *ch, uint32_t col,
			      const uint8_t **p, size_t *len)
{
	int rc = query_col_bytes(r, ci, ch, col, p, len);
	if (rc || *len == 0 || (*p)[0] != MCZ_CODEC_SAME)
		return rc;
	uint32_t ref;
	if ((rc = mcz_chunk_same_ref(*p, *len, col, &ref)) ||
	    (rc = query_col_bytes(r, ci, ch, ref, p, len)))
		return rc;
	return *len == 0 || (*p)[0] == MCZ_CODEC_SAME ? MCZ_E_CORRUPT : 0;
}

int mcz_query_col(mcz_reader *r, size_t ci, uint32_t s, reader_col *c)
{
	mcz_dcache_ent *ch, *e;
	int rc = query_chunk(r, ci, &ch);
	if (rc)
		return rc;
	size_t n = ch->n;
	if (!(e = mcz_dcache_get(&r->dc, ci, 1 + s))) {
		const mcz_stream_desc *d = &r->streams[s];
		size_t nd = d->kind == MCZ_COUNTER ? n : 0;
		const uint8_t *cp;
		size_t cl;
		/* the chunk's entry stays while its runs and the column come in;
		 * the run last read is the most recent entry, kept too */
		ch->pin = 1;
		rc = query_col_resolved(r, ci, ch, 1 + s, &cp, &cl);
		if (!rc && !(e = mcz_dcache_put(&r->dc, ci, 1 + s, (n + nd) * 8 + n)))
			rc = MCZ_E_NOMEM;
		if (!rc) {
			e->n = n;
			e->v = (mcz_value *)(e + 1);
			e->delta = nd ? (uint64_t *)(e->v + n) : NULL;
			e->present = (uint8_t *)(e->v + n + nd);
			rc = mcz_codec_get_col(&r->cx, cp, cl, d, ch->t, n, e->v, e->delta,
					       e->present, &e->first_dt);
		}
		ch->pin = 0;
		if (rc) {
			if (e)
				mcz_dcache_drop(&r->dc, e);
			return query_col_error(r, ci, rc);
		}
	}
	c->n = n;
	c->t = ch->t;
	c->v = e->v;
	c->delta = e->delta;
	c->present = e->present;
	c->first_dt = e->first_dt;
	return 0;
}

int mcz_query_decode(mcz_reader *r, size_t ci, uint32_t s)
{
	reader_col c;
	int rc = mcz_query_col(r, ci, s, &c);
	if (!rc && query_cols_reserve(&r->cols, c.n))
		rc = MCZ_E_NOMEM;
	if (rc)
		return rc;
	memcpy(r->cols.t, c.t, c.n * sizeof *c.t);
	memcpy(r->cols.v, c.v, c.n * sizeof *c.v);
	if (c.delta)
		memcpy(r->cols.delta, c.delta, c.n * sizeof *c.delta);
	else
		memset(r->cols.delta, 0, c.n * sizeof *c.delta);
	memcpy(r->cols.present, c.present, c.n);
	r->cols.first_dt = c.first_dt;
	r->cols.n = c.n;
	return 0;
}

/* The summary of stream s over its m present samples of a chunk (times pt,
 * values x as mcz_value's bits, a counter's deltas dl), into b
 * (initialised): SPEC.md "Summaries" (mcz_bucket_add's rule), a loop per
 * kind and type so that the per-sample work is a compare and an add.
 * Times increase within a chunk: first and last are pt[0] and pt[m - 1]. */
static void query_chunk_sum(const mcz_reader *r, uint32_t s, size_t m, const int64_t *pt,
			    const uint64_t *x, const uint64_t *dl, int64_t first_dt, mcz_bucket *b)
{
	const mcz_stream_desc *d = &r->streams[s];
	if (m == 0)
		return;
	double lo = INFINITY, hi = -INFINITY, sum = 0;
	if (d->kind == MCZ_COUNTER) {
		for (size_t j = 0; j < m; j++) {
			int64_t dt = j ? pt[j] - pt[j - 1] : first_dt;
			double v = mcz_counter_rate(dl[j], dt);
			sum += mcz_counter_step(dl[j]);
			if (v == v) {
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
		}
	} else if (d->type == MCZ_U64 || d->type == MCZ_I64) {
		int sgn = d->type == MCZ_I64;
		for (size_t j = 0; j < m; j++) {
			double v = sgn ? (double)(int64_t)x[j] : (double)x[j];
			sum += v;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	} else {
		for (size_t j = 0; j < m; j++) {
			double v;
			memcpy(&v, &x[j], sizeof v);
			if (v == v) {
				sum += v;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
		}
	}
	b->first = pt[0];
	b->last = pt[m - 1];
	b->count = m;
	b->sum = sum;
	b->min = lo <= hi ? lo : NAN;
	b->max = lo <= hi ? hi : NAN;
}

/* Chunk ci's summary of stream s from its present samples alone, decoded
 * into the reader's scratch, not kept: the summaries are computed once, and
 * spreading a sparse column over the chunk's rows and caching it costs
 * more than decoding it. */
static int query_present_sum(mcz_reader *r, size_t ci, uint32_t s, mcz_bucket *b)
{
	mcz_dcache_ent *ch;
	int rc = query_chunk(r, ci, &ch);
	if (rc)
		return rc;
	const uint8_t *cp;
	size_t cl, m;
	const int64_t *pt;
	const uint64_t *x, *dl;
	int64_t fdt;
	ch->pin = 1; /* the chunk's entry stays while its runs come in */
	rc = query_col_resolved(r, ci, ch, 1 + s, &cp, &cl);
	if (!rc)
		rc = mcz_codec_get_present(&r->cx, cp, cl, &r->streams[s], ch->t, ch->n, &m, &pt, &x,
					   &dl, &fdt);
	ch->pin = 0;
	if (rc)
		return query_col_error(r, ci, rc);
	query_chunk_sum(r, s, m, pt, x, dl, fdt, b);
	return 0;
}

/* Chunk ci's column of stream s when its summaries need no decoding
 * (mcz_codec_col_const): 2 when it holds no value, 1 when it is one value
 * x in the rows of bitmap *bm (NULL: every row) of chunk entry *ch, 0 when
 * it must be decoded (any other column, or a fault the decoder will name).
 * *ch and *bm are valid until the next query. */
static int query_const_col(mcz_reader *r, size_t ci, uint32_t s, const mcz_dcache_ent **ch,
			   double *x, const uint8_t **bm)
{
	mcz_dcache_ent *e;
	const uint8_t *cp;
	size_t cl;
	mcz_value v0;
	int empty;
	if (query_chunk(r, ci, &e))
		return 0;
	e->pin = 1; /* a run decompressed below must not evict it */
	int rc = query_col_resolved(r, ci, e, 1 + s, &cp, &cl);
	e->pin = 0;
	*ch = e;
	if (!rc && cl == 0)
		return 2; /* a stream added after this chunk */
	const mcz_stream_desc *d = &r->streams[s];
	if (rc || mcz_codec_col_const(&r->cx, cp, cl, d, e->n, &v0, bm, &empty) != 1)
		return 0;
	if (empty)
		return 2;
	*x = d->type == MCZ_U64 ? (double)v0.u : d->type == MCZ_I64 ? (double)v0.i : v0.f;
	return 1;
}

/* Row i of a chunk of n rows after row i (or the first, i = SIZE_MAX) that
 * bitmap bm holds (NULL: every row); n when none. */
static size_t query_bm_next(const uint8_t *bm, size_t i, size_t n)
{
	i = i == SIZE_MAX ? 0 : i + 1;
	if (!bm || i >= n)
		return i < n ? i : n;
	size_t byte = i / 8;
	unsigned w = bm[byte] & (0xffu << (i % 8));
	while (!w) {
		if (++byte >= (n + 7) / 8)
			return n;
		w = bm[byte];
	}
	return 8 * byte + (size_t)__builtin_ctz(w);
}

/* Chunk ci's summary of stream s when its column needs no decoding: 1 and
 * b filled (left as initialised when it holds no value), else 0. */
static int query_const_sum(mcz_reader *r, size_t ci, uint32_t s, mcz_bucket *b)
{
	const mcz_dcache_ent *ch;
	const uint8_t *bm;
	double x;
	int k = query_const_col(r, ci, s, &ch, &x, &bm);
	if (k != 1)
		return k == 2;
	size_t n = ch->n, i0 = query_bm_next(bm, SIZE_MAX, n), i1 = n - 1, count = n;
	if (bm) {
		count = 0;
		for (size_t i = 0; i < (n + 7) / 8; i++)
			if (bm[i]) {
				count += (size_t)__builtin_popcount(bm[i]);
				i1 = 8 * i + 31 - (size_t)__builtin_clz(bm[i]);
			}
	}
	b->first = ch->t[i0];
	b->last = ch->t[i1];
	b->count = count;
	b->min = b->max = x; /* NaN stays NaN: no min or max */
	b->sum = 0;
	if (x != x)
		return 1;
	/* the sum as the writer adds it, sample by sample; for an integer
	 * whose sums are exact in a double, the product is the same number */
	if (fabs(x) * (double)count < 9007199254740992.0 && x == floor(x))
		b->sum = x * (double)count;
	else
		for (size_t i = 0; i < count; i++)
			b->sum += x;
	return 1;
}

int mcz_query_sums(mcz_reader *r, uint32_t s, const mcz_bucket **sums)
{
	/* scan mode: summaries computed for chunks [0, sums_n[s]); a refresh
	 * adds chunks or lowers sums_n[s] */
	if (!r->secs && r->cap_sums_n < r->ix.nstreams) {
		size_t *n = realloc(r->sums_n, r->ix.nstreams * sizeof *n);
		if (!n)
			return MCZ_E_NOMEM;
		memset(n + r->cap_sums_n, 0, (r->ix.nstreams - r->cap_sums_n) * sizeof *n);
		r->sums_n = n;
		r->cap_sums_n = r->ix.nstreams;
	}
	size_t from = r->ix.sums[s] && !r->secs ? r->sums_n[s] : 0;
	if (!r->ix.sums[s] || (!r->secs && from < r->ix.nchunks)) {
		mcz_bucket *b = realloc(r->ix.sums[s], (r->ix.nchunks ? r->ix.nchunks : 1) * sizeof *b);
		if (!b)
			return MCZ_E_NOMEM;
		r->ix.sums[s] = NULL;
		int rc = 0;
		if (r->secs) {
			size_t g = r->ix.cached_group;
			rc = mcz_index_load(&r->ix, &r->secs[s], &r->cx, b);
			/* a large group just decompressed (it stays so in cx) is
			 * not read again soon: its pages out of the resident set,
			 * so that a viewer's memory does not grow with the index;
			 * a small one is not worth the system call */
			if (r->ix.cached_group != g && r->secs[s].clen >= QUERY_DROP_BYTES)
				reader_drop_pages(r, r->secs[s].p, r->secs[s].clen);
		}
		/* recovered, or the index's short chunks (INDEX flags bit 1):
		 * summaries computed from the samples */
		if (!r->secs || r->ix.unsummed) {
			for (size_t ci = from; ci < r->ix.nchunks && !rc; ci++) {
				if (r->secs && !mcz_index_unsummed(&r->ix, ci))
					continue;
				mcz_bucket_init(&b[ci]);
				if (r->ix.chunks[ci].nstreams <= s)
					continue;
				if (query_const_sum(r, ci, s, &b[ci]))
					continue;
				if ((rc = query_present_sum(r, ci, s, &b[ci]))) {
					mcz_bucket_init(&b[ci]);
					if (query_damaged(r, ci, rc)) {
						rc = 0; /* no summary: a gap */
						continue;
					}
					break;
				}
			}
		}
		if (rc) {
			free(b);
			return rc;
		}
		r->ix.sums[s] = b;
		if (!r->secs)
			r->sums_n[s] = r->ix.nchunks;
	}
	*sums = r->ix.sums[s];
	return 0;
}

void mcz_query_sums_release(mcz_reader *r, uint32_t s)
{
	if (!r->secs || s >= r->ix.nstreams)
		return;
	free(r->ix.sums[s]);
	r->ix.sums[s] = NULL;
}

int mcz_chunk_span(const mcz_reader *r, size_t ci, int64_t *t_first, int64_t *t_last,
		   uint64_t *nrows)
{
	if (ci >= r->ix.nchunks)
		return MCZ_E_RANGE;
	*t_first = r->ix.chunks[ci].t_first;
	*t_last = r->ix.chunks[ci].t_last;
	*nrows = r->ix.chunks[ci].nrows;
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
		reader_col c;
		/* a chunk older than the stream has it absent from every row */
		int rc = mcz_query_col(r, ci, stream, &c);
		if (rc && query_damaged(r, ci, rc))
			continue;
		if (rc) {
			mcz_series_free(out);
			return rc;
		}
		size_t n = c.n;
		if (total + n > cap) {
			cap = 2 * (total + n);
			if (query_series_grow(out, cap, counter)) {
				mcz_series_free(out);
				return MCZ_E_NOMEM;
			}
		}
		for (size_t i = 0; i < n; i++) {
			if (c.t[i] < t0 || c.t[i] >= t1)
				continue;
			out->t[total] = c.t[i];
			out->present[total] = c.present[i];
			out->v[total] = c.present[i] ? c.v[i] : (mcz_value){0};
			if (counter)
				out->delta[total] = c.present[i] ? c.delta[i] : 0;
			total++;
		}
	}
	out->n = total;
	return 0;
}

int mcz_read_into(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, mcz_value *v,
		  uint8_t *present, size_t cap, size_t *n)
{
	if (!r || !n || (cap && (!v || !present)))
		return MCZ_E_ARG;
	*n = 0;
	if (stream >= r->nstreams)
		return MCZ_E_RANGE;
	size_t total = 0;
	for (size_t ci = query_first_chunk(r, t0);
	     t1 > t0 && ci < r->ix.nchunks && r->ix.chunks[ci].t_first < t1; ci++) {
		reader_col c;
		int rc = mcz_query_col(r, ci, stream, &c);
		if (rc && query_damaged(r, ci, rc))
			continue;
		if (rc)
			return rc;
		/* the chunk's rows in the window: one run (times increase) */
		size_t i = 0, e = c.n;
		while (i < e && c.t[i] < t0)
			i++;
		while (e > i && c.t[e - 1] >= t1)
			e--;
		if (total + (e - i) > cap)
			return mcz_error_set(MCZ_E_RANGE, "%zu rows in the window, room for %zu",
					     total + (e - i), cap);
		memcpy(present + total, c.present + i, e - i);
		for (size_t k = i; k < e; k++)
			v[total++] = c.present[k] ? c.v[k] : (mcz_value){0};
	}
	*n = total;
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
	if (span <= UINT64_MAX / n) /* no overflow: 64-bit division */
		k = at * n / span;
	else
		k = (uint64_t)((unsigned __int128)at * n / span);
	return k >= n ? n - 1 : (size_t)k;
}

int mcz_summary(mcz_reader *r, uint32_t stream, int64_t t0, int64_t t1, size_t n,
		mcz_bucket *out)
{
	if (!out)
		return MCZ_E_ARG;
	return mcz_summary_multi(r, &stream, 1, t0, t1, n, out);
}

/* Start of the bucket after bucket k, as an offset from t0: the smallest
 * at with at * n / span >= k + 1 (query_bucket's rule), so that samples in
 * time order change bucket on a compare instead of a division each. */
static uint64_t query_bucket_end(size_t k, int64_t t0, int64_t t1, size_t n)
{
	uint64_t span = (uint64_t)t1 - (uint64_t)t0;
	if (k + 1 >= n)
		return UINT64_MAX;
	if (span <= (UINT64_MAX - n) / n) /* no overflow: 64-bit division */
		return ((k + 1) * span + n - 1) / n;
	return (uint64_t)(((unsigned __int128)(k + 1) * span + n - 1) / n);
}

/* Sample time t (in [t0, t1), times in order) enters its bucket of o[n]:
 * the bucket being added to (*b, its sums in *acc while its samples come)
 * is written back when t is past its end, and t's bucket taken up. */
static inline void query_bucket_enter(int64_t t, int64_t t0, int64_t t1, size_t n, mcz_bucket *o,
				      mcz_bucket **b, mcz_bucket *acc, uint64_t *end)
{
	uint64_t at = (uint64_t)t - (uint64_t)t0;
	if (*b && at < *end)
		return;
	if (*b)
		**b = *acc;
	size_t k = query_bucket(t, t0, t1, n);
	*b = &o[k];
	*acc = **b;
	*end = query_bucket_end(k, t0, t1, n);
}

/* Stream s's samples of a decoded chunk in [t0, t1) into its buckets
 * o[n]: the arithmetic of mcz_bucket_add, kind by kind, in time order. */
static void query_chunk_buckets(const mcz_reader *r, uint32_t s, const reader_col *c,
				int64_t t0, int64_t t1, size_t n, mcz_bucket *o)
{
	const mcz_stream_desc *d = &r->streams[s];
	int counter = d->kind == MCZ_COUNTER, type = d->type;
	int64_t prev = INT64_MIN;
	mcz_bucket *b = NULL, acc; /* acc: bucket *b while its samples come */
	uint64_t end = 0;
	/* the rows from t0 on (times increase within a chunk); a counter's
	 * first one there has its interval from the present row before it */
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->t[mid] < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; counter && i-- > 0;)
		if (c->present[i]) {
			prev = c->t[i];
			break;
		}
	for (size_t i = reader_next_present(c->present, lo, c->n); i < c->n;
	     i = reader_next_present(c->present, i + 1, c->n)) {
		int64_t t = c->t[i];
		if (t >= t1)
			break;
		query_bucket_enter(t, t0, t1, n, o, &b, &acc, &end);
		double x;
		if (counter) {
			int64_t dt = prev == INT64_MIN ? c->first_dt : t - prev;
			x = mcz_counter_rate(c->delta[i], dt);
			mcz_bucket_add(&acc, x, t);
			acc.sum += mcz_counter_step(c->delta[i]);
		} else {
			x = type == MCZ_U64   ? (double)c->v[i].u
			    : type == MCZ_I64 ? (double)c->v[i].i
					      : c->v[i].f;
			mcz_bucket_add(&acc, x, t);
			if (!isnan(x))
				acc.sum += x;
		}
		prev = t;
	}
	if (b)
		*b = acc;
}

/* Stream s's samples of chunk ci into its buckets o[n] when its column
 * needs no decoding (one value, or none): query_chunk_buckets' arithmetic
 * on the rows the bitmap holds.  1 when done, 0 when it must be decoded. */
static int query_const_buckets(mcz_reader *r, size_t ci, uint32_t s, int64_t t0, int64_t t1,
			       size_t n, mcz_bucket *o)
{
	const mcz_dcache_ent *ch;
	const uint8_t *bm;
	double x;
	int k = query_const_col(r, ci, s, &ch, &x, &bm);
	if (k != 1)
		return k == 2;
	mcz_bucket *b = NULL, acc;
	uint64_t end = 0;
	for (size_t i = query_bm_next(bm, SIZE_MAX, ch->n); i < ch->n; i = query_bm_next(bm, i, ch->n)) {
		int64_t t = ch->t[i];
		if (t < t0)
			continue;
		if (t >= t1)
			break; /* times increase within a chunk */
		query_bucket_enter(t, t0, t1, n, o, &b, &acc, &end);
		mcz_bucket_add(&acc, x, t);
		if (x == x)
			acc.sum += x;
	}
	if (b)
		*b = acc;
	return 1;
}

int mcz_summary_multi(mcz_reader *r, const uint32_t *streams, size_t ns, int64_t t0, int64_t t1,
		      size_t n, mcz_bucket *out)
{
	if (!r || n == 0 || t1 <= t0 || (ns && (!streams || !out)) || (ns && n > SIZE_MAX / ns))
		return MCZ_E_ARG;
	for (size_t j = 0; j < ns; j++)
		if (streams[j] >= r->nstreams)
			return MCZ_E_RANGE;
	mcz_bucket empty;
	mcz_bucket_init(&empty);
	for (size_t b = 0; b < ns * n; b++)
		out[b] = empty;
	if (ns == 0)
		return 0;
	const mcz_bucket **sums = malloc(ns * sizeof *sums);
	if (!sums)
		return MCZ_E_NOMEM;
	__int128 width = ((__int128)t1 - t0) / (__int128)n;
	/* The summaries answer for the chunks narrower than a bucket; where
	 * none is, every chunk of the window is decoded, an empty column to no
	 * sample: a stream's summaries not read yet are not read for it (a
	 * viewer that gave them back, zoomed in on a 10^10-value file, would
	 * read every chunk's again at each frame). */
	int want = 0;
	for (size_t ci = query_first_chunk(r, t0); !want && ci < r->ix.nchunks &&
						  r->ix.chunks[ci].t_first < t1; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		want = k->t_first >= t0 && k->t_last < t1 && (__int128)k->t_last - k->t_first < width;
	}
	int rc = 0;
	for (size_t j = 0; j < ns && !rc; j++) {
		sums[j] = NULL;
		if (want || (streams[j] < r->ix.nstreams && r->ix.sums[streams[j]]))
			rc = mcz_query_sums(r, streams[j], &sums[j]);
	}
	/* chunk by chunk, then stream by stream: a chunk's timestamps and
	 * directory are decoded once for all the streams, each bucket sees its
	 * chunks in the same order as a query of its stream alone */
	for (size_t ci = query_first_chunk(r, t0);
	     !rc && ci < r->ix.nchunks && r->ix.chunks[ci].t_first < t1; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		int inside = k->t_first >= t0 && k->t_last < t1;
		int narrow = inside && (__int128)k->t_last - k->t_first < width;
		for (size_t j = 0; j < ns && !rc; j++) {
			const mcz_bucket *cs = sums[j] ? &sums[j][ci] : NULL;
			mcz_bucket *o = out + j * n;
			reader_col c;
			if (cs && cs->count == 0)
				continue;
			if (narrow)
				mcz_bucket_merge(&o[query_bucket(cs->first, t0, t1, n)], cs);
			else if (query_const_buckets(r, ci, streams[j], t0, t1, n, o))
				continue;
			else if (!(rc = mcz_query_col(r, ci, streams[j], &c)))
				query_chunk_buckets(r, streams[j], &c, t0, t1, n, o);
			else if (query_damaged(r, ci, rc))
				rc = 0;
		}
	}
	free(sums);
	return rc;
}

void mcz_cache_limit(mcz_reader *r, size_t bytes)
{
	if (r)
		mcz_dcache_limit(&r->dc, bytes);
}

int mcz_query_col_bytes(const mcz_reader *r, uint32_t s, uint64_t *bytes)
{
	*bytes = 0;
	mcz_codec_ctx cx = {0}; /* a compressed directory (r is const) */
	uint64_t *off = NULL, *rdata = NULL;
	uint32_t *rfirst = NULL;
	int rc = 0;
	for (size_t ci = 0; ci < r->ix.nchunks && !rc; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		mcz_block_hdr h;
		mcz_chunk_info info;
		const uint8_t *p = r->base + k->off, *cp;
		size_t cl;
		uint32_t col = s == UINT32_MAX ? 0 : s + 1;
		if (mcz_block_parse(p, r->size - k->off, &h)) {
			rc = MCZ_E_CORRUPT;
		} else if (h.type != MCZ_BT_GCHUNK) {
			if (mcz_chunk_parse(p + MCZ_BLOCK_HDR, h.len, &info) ||
			    mcz_chunk_col_raw(&info, col, &cp, &cl))
				rc = MCZ_E_CORRUPT;
			else
				*bytes += cl;
		} else if (mcz_gchunk_parse(p + MCZ_BLOCK_HDR, h.len, &info)) {
			rc = MCZ_E_CORRUPT;
		} else if (col <= info.nstreams) {
			/* a column in a shared run: its share of the run's frame */
			size_t ns = info.nstreams, nr = info.nruns;
			free(off);
			free(rdata);
			free(rfirst);
			off = malloc((ns + 2) * sizeof *off);
			rdata = malloc((2 * nr + 1) * sizeof *rdata);
			rfirst = malloc((nr + 1) * sizeof *rfirst);
			if (!off || !rdata || !rfirst)
				rc = MCZ_E_NOMEM;
			else if (mcz_gchunk_dir(&cx, &info, off) ||
				 mcz_gchunk_runs(&info, off, rfirst, rdata, rdata + nr))
				rc = MCZ_E_CORRUPT;
			else if (col == 0)
				*bytes += off[1];
			else {
				uint32_t g = mcz_gchunk_run_of(rfirst, (uint32_t)nr, col);
				uint64_t len = off[col + 1] - off[col];
				uint64_t content = off[rfirst[g + 1]] - off[rfirst[g]];
				uint64_t clen = rdata[nr + g] & ~(MCZ_RUN_TRANSPOSED | MCZ_RUN_BYNAME);
				*bytes += clen && content ? (len * clen + content / 2) / content : len;
			}
		}
	}
	free(off);
	free(rdata);
	free(rfirst);
	mcz_codec_ctx_free(&cx);
	return rc;
}
