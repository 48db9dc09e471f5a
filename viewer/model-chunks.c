/* model-chunks.c: column values from whole-chunk summaries, when exact
 * ones would mean decoding every chunk of the window.
 *
 * mcz_summary answers from the index alone while each bucket is wider than
 * a chunk; once buckets are narrower, it decodes every chunk it touches, for
 * every stream asked, which on a wide window costs seconds.  Between those
 * zooms (a column narrower than a chunk, and more chunks in the window than
 * a redraw can decode) each column takes the summaries of the chunks its
 * time overlaps: the
 * envelope is exact to chunk resolution, and nothing is decoded.  The
 * per-chunk summaries of a stream are read once (one mcz_summary over the
 * whole file with buckets a little wider than a chunk) and kept.  When the
 * window holds only a few chunks, columns are exact again: from mcz_summary
 * on a small recording, and on a large one from raw samples (mcz_read) kept
 * around the window, so pans and zooms near it decode nothing again.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-int.h"

/* Exact values (decoding the chunks) when the window holds at most this many
 * chunks, or when all streams together would decode at most DECODE_BUDGET
 * chunks (a small recording). */
#define EXACT_CHUNKS 3
#define DECODE_BUDGET 512

/* Raw samples of one stream around the window (deep zoom). */
typedef struct raw_ent {
	int64_t a, b;      /* file time covered: [a, b) */
	int have;
	mcz_series s;
} raw_ent;

struct vw_chunk_cache {
	mcz_bucket **per;  /* per stream: summaries about one chunk each, or NULL */
	size_t *n;
	raw_ent *raw;      /* per stream */
};

void vw_model_chunks_free(vw_model *m)
{
	struct vw_chunk_cache *k = m->chunks;
	if (!k)
		return;
	for (size_t i = 0; i < m->nstreams; i++) {
		free(k->per[i]);
		mcz_series_free(&k->raw[i].s);
	}
	free(k->per);
	free(k->n);
	free(k->raw);
	free(k);
	m->chunks = NULL;
}

/* Mean span of a chunk in the stream's file (ns), 0 if one chunk or none. */
static int64_t chunk_span(const vw_model *m, size_t stream)
{
	const mcz_file_info *fi = mcz_info(m->streams[stream].file);
	if (fi->nchunks < 2 || fi->t_last <= fi->t_first)
		return 0;
	return (fi->t_last - fi->t_first) / (int64_t)fi->nchunks;
}

static struct vw_chunk_cache *cache(vw_model *m)
{
	if (!m->chunks) {
		struct vw_chunk_cache *k = calloc(1, sizeof *k);
		if (!k || !(k->per = calloc(m->nstreams, sizeof *k->per)) ||
		    !(k->n = calloc(m->nstreams, sizeof *k->n)) ||
		    !(k->raw = calloc(m->nstreams, sizeof *k->raw))) {
			if (k) {
				free(k->per);
				free(k->n);
			}
			free(k);
			return NULL;
		}
		m->chunks = k;
	}
	return m->chunks;
}

static const mcz_bucket *chunk_sums(vw_model *m, size_t stream, size_t *n)
{
	struct vw_chunk_cache *k = cache(m);
	if (!k)
		return NULL;
	if (!k->per[stream]) {
		const vw_stream *s = &m->streams[stream];
		const mcz_file_info *fi = mcz_info(s->file);
		int64_t span = chunk_span(m, stream);
		size_t nb = (size_t)((double)(fi->t_last + 1 - fi->t_first) / ((double)span * 1.05));
		if (nb == 0)
			nb = 1;
		mcz_bucket *b = malloc(nb * sizeof *b);
		if (!b || mcz_summary(s->file, s->id, fi->t_first, fi->t_last + 1, nb, b) != MCZ_OK) {
			free(b);
			return NULL;
		}
		k->per[stream] = b;
		k->n[stream] = nb;
	}
	*n = k->n[stream];
	return k->per[stream];
}

/* Merge the chunk summaries overlapping [a, b) (file time) into *out;
 * *from is where to start looking (columns come in time order) and is moved
 * to the first summary that may overlap the next column. */
static void merge_range(const mcz_bucket *cb, size_t n, size_t *from, int64_t a, int64_t b,
			mcz_bucket *out)
{
	size_t i = *from;
	while (i < n && (cb[i].count == 0 || cb[i].last < a))
		i++;
	*from = i;
	*out = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	for (; i < n && (cb[i].count == 0 || cb[i].first < b); i++) {
		const mcz_bucket *c = &cb[i];
		if (c->count == 0)
			continue;
		if (out->count == 0)
			out->first = c->first;
		if (!isnan(c->min) && (isnan(out->min) || c->min < out->min))
			out->min = c->min;
		if (!isnan(c->max) && (isnan(out->max) || c->max > out->max))
			out->max = c->max;
		out->sum += c->sum;
		out->count += c->count;
		out->last = c->last;
	}
}

/* First summary whose last sample is at or after a. */
static size_t first_at(const mcz_bucket *cb, size_t n, int64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cb[mid].count == 0 || cb[mid].last < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Deep zoom: the window's columns from raw samples kept around it, so the
 * pans and zooms that stay near it decode nothing again.  The statistics
 * are mcz_summary's, per sample: a counter's rate over the interval since
 * the previous present sample, a gauge's value. */
static int raw_buckets(vw_model *m, size_t stream, size_t n, vw_bucket *out)
{
	struct vw_chunk_cache *k = cache(m);
	if (!k)
		return -1;
	const vw_stream *st = &m->streams[stream];
	int64_t off = m->offsets[st->file_index], a = m->t0 - off, b = m->t1 - off;
	raw_ent *e = &k->raw[stream];
	if (!e->have || a < e->a || b > e->b) {
		mcz_series_free(&e->s);
		e->have = 0;
		/* Room for pans of half the window, and the sample before it. */
		int64_t margin = (b - a) / 2 + 2 * vw_model_interval(m, stream);
		e->a = a - margin;
		e->b = b + margin;
		if (mcz_read(st->file, st->id, e->a, e->b, &e->s) != MCZ_OK)
			return -1;
		e->have = 1;
	}
	const mcz_series *s = &e->s;
	const mcz_stream_desc *d = st->desc;
	int counter = d->kind == MCZ_COUNTER;
	mcz_bucket *mb = calloc(n, sizeof *mb);
	if (!mb)
		return -1;
	for (size_t i = 0; i < n; i++)
		mb[i] = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	double w = (double)(b - a);
	long prev = -1;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->present[i])
			continue;
		int64_t t = s->t[i];
		double x;
		if (counter)
			x = prev >= 0 && t > s->t[prev]
				    ? (double)s->delta[i] * 1e9 / (double)(t - s->t[prev])
				    : NAN;
		else
			x = d->type == MCZ_F64	 ? s->v[i].f
			    : d->type == MCZ_I64 ? (double)s->v[i].i
						 : (double)s->v[i].u;
		prev = (long)i;
		if (t < a || t >= b)
			continue;
		size_t j = (size_t)((double)(t - a) * (double)n / w);
		mcz_bucket *o = &mb[j < n ? j : n - 1];
		if (o->count == 0)
			o->first = t;
		o->last = t;
		o->count++;
		o->sum += counter ? (double)s->delta[i] : (isnan(x) ? 0 : x);
		if (!isnan(x)) {
			o->min = isnan(o->min) || x < o->min ? x : o->min;
			o->max = isnan(o->max) || x > o->max ? x : o->max;
		}
	}
	for (size_t i = 0; i < n; i++)
		vw_model_bucket_convert(d, &mb[i], &out[i]);
	free(mb);
	return 0;
}

int vw_model_display_buckets(vw_model *m, size_t stream, size_t n, vw_bucket *out)
{
	int64_t span = chunk_span(m, stream), w = m->t1 - m->t0;
	double colw = (double)w / (double)n;
	size_t nc;
	const mcz_bucket *cb;
	double chunks = (double)w / (double)(span ? span : 1);
	int big = chunks * (double)m->nstreams > DECODE_BUDGET;
	if (span && chunks <= EXACT_CHUNKS && (double)m->nstreams * EXACT_CHUNKS > DECODE_BUDGET &&
	    raw_buckets(m, stream, n, out) == 0)
		return 0;
	if (span == 0 || colw >= (double)span || chunks <= EXACT_CHUNKS || !big ||
	    !(cb = chunk_sums(m, stream, &nc)))
		return vw_model_stream_buckets(m, stream, m->t0, m->t1, n, out);
	const vw_stream *s = &m->streams[stream];
	int64_t off = m->offsets[s->file_index];
	size_t from = first_at(cb, nc, m->t0 - off);
	for (size_t i = 0; i < n; i++) {
		int64_t a = m->t0 + (int64_t)((double)i * colw) - off;
		int64_t b = m->t0 + (int64_t)((double)(i + 1) * colw) - off;
		mcz_bucket mb;
		merge_range(cb, nc, &from, a, b, &mb);
		vw_model_bucket_convert(s->desc, &mb, &out[i]);
	}
	return 0;
}
