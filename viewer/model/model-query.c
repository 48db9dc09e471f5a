/* model-query.c: values of streams and rows in display units.
 *
 * Column values come from mcz_summary (the file's per-chunk summaries, so a
 * zoomed-out screen decodes nothing); the value at the cursor comes from
 * mcz_read of the few samples around it.  Display units: a gauge's value
 * times its scale; a counter's per-second rate times its scale.  The mean
 * rate of a counter over a bucket of `count` samples spread over
 * [first, last] is sum x (count - 1) / (count x (last - first)): the deltas
 * cover count intervals of mean length (last - first) / (count - 1).  A
 * group row combines its members: min of minima, max of maxima, and as its
 * value the sum of their means (extensive quantities, VW_RULE_SUM) or the
 * mean of their means (VW_RULE_AVG), kept per group row and built across
 * frames (model-band.c).  The folded row of constant streams
 * has no values of its own.  The last query of each stream is cached, so a redraw that changed
 * nothing in the window costs no file access.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-int.h"

typedef struct cache_ent {
	int64_t t0, t1;
	size_t n, cap;
	vw_bucket *b;
	int vset, vrc;    /* the last vw_model_sample_at of this stream */
	int64_t vt, vts;
	double vv;
	int64_t per;      /* vw_model_stream_interval, for the file's rows... */
	size_t per_rows;  /* ...when it had this many (0: not known yet) */
} cache_ent;

struct vw_model_cache {
	cache_ent *e;  /* one per stream */
	mcz_bucket *raw;
	size_t rawcap;
	size_t kept;   /* bytes of the streams' last queries */
};

/* The last queries kept, at most: a redraw that changed nothing costs no
 * file access for the rows on screen, while a job of thousands of ranks
 * queries tens of thousands of streams once each. */
#define CACHE_KEPT_MAX (96u << 20)

int vw_model_cache_init(vw_model *m)
{
	m->cache = calloc(1, sizeof *m->cache);
	if (!m->cache)
		return -1;
	m->cache->e = calloc(m->nstreams ? m->nstreams : 1, sizeof *m->cache->e);
	return m->cache->e ? 0 : -1;
}

void vw_model_cache_free(vw_model *m)
{
	if (!m->cache)
		return;
	for (size_t i = 0; i < m->nstreams; i++)
		free(m->cache->e[i].b);
	free(m->cache->e);
	free(m->cache->raw);
	free(m->cache);
	m->cache = NULL;
}

int vw_model_grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return 0;
	void *q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

void vw_model_bucket_convert(const mcz_stream_desc *d, const mcz_bucket *in, vw_bucket *out)
{
	double sc = d->scale != 0 ? d->scale : 1.0;
	out->count = in->count;
	if (in->count == 0) {
		out->min = out->max = out->mean = NAN;
		return;
	}
	out->min = in->min * sc;
	out->max = in->max * sc;
	if (sc < 0) {
		double x = out->min;
		out->min = out->max;
		out->max = x;
	}
	if (d->kind != MCZ_COUNTER)
		out->mean = in->sum / (double)in->count * sc;
	else if (in->count > 1 && in->last > in->first)
		out->mean = in->sum * sc * (double)(in->count - 1) /
			    ((double)in->count * (double)(in->last - in->first) * 1e-9);
	else
		out->mean = out->min; /* one sample: its rate (NaN for the first) */
}

/* Keep stream's buckets of [t0, t1) as its last query, within
 * CACHE_KEPT_MAX of them all. */
static void cache_keep(struct vw_model_cache *c, cache_ent *e, int64_t t0, int64_t t1, size_t n,
		       const vw_bucket *b)
{
	size_t had = e->cap * sizeof *e->b;
	if (n > e->cap && c->kept - had + n * sizeof *b > CACHE_KEPT_MAX)
		return;
	if (vw_model_grow((void **)&e->b, &e->cap, n, sizeof *e->b) == 0) {
		c->kept = c->kept - had + e->cap * sizeof *e->b;
		memcpy(e->b, b, n * sizeof *b);
		e->n = n;
		e->t0 = t0;
		e->t1 = t1;
	}
}

static int cache_hit(const cache_ent *e, int64_t t0, int64_t t1, size_t n)
{
	return e->b && e->n == n && e->t0 == t0 && e->t1 == t1;
}

void vw_model_stream_cache_drop(vw_model *m, size_t stream)
{
	if (stream >= m->nstreams)
		return;
	cache_ent *e = &m->cache->e[stream];
	m->cache->kept -= e->cap * sizeof *e->b;
	free(e->b);
	e->b = NULL;
	e->cap = e->n = 0;
}

int vw_model_stream_buckets(vw_model *m, size_t stream, int64_t t0, int64_t t1, size_t n,
			    vw_bucket *out)
{
	if (stream >= m->nstreams || n == 0 || t1 <= t0)
		return -1;
	struct vw_model_cache *c = m->cache;
	cache_ent *e = &c->e[stream];
	if (cache_hit(e, t0, t1, n)) {
		memcpy(out, e->b, n * sizeof *out);
		return 0;
	}
	const vw_stream *s = &m->streams[stream];
	int64_t off = m->offsets[s->file_index];
	if (vw_model_grow((void **)&c->raw, &c->rawcap, n, sizeof *c->raw) != 0)
		return -1;
	int rc = mcz_summary(s->file, s->id, t0 - off, t1 - off, n, c->raw);
	if (rc != MCZ_OK)
		return -1;
	for (size_t i = 0; i < n; i++)
		vw_model_bucket_convert(s->desc, &c->raw[i], &out[i]);
	/* a group's member: its band is kept, not its columns (model-band.c) */
	if (!m->band_member)
		cache_keep(c, e, t0, t1, n, out);
	return 0;
}

/* The streams of one file not in the cache, in one mcz_summary_multi; their
 * buckets go to the cache.  Streams whose query fails are left out. */
static void streams_of_file(vw_model *m, const size_t *streams, size_t ns, size_t file,
			    int64_t t0, int64_t t1, size_t n, uint8_t *done)
{
	size_t k = 0;
	uint32_t *ids = malloc(ns * sizeof *ids);
	size_t *which = malloc(ns * sizeof *which);
	mcz_bucket *raw = NULL;
	vw_bucket *conv = malloc(n * sizeof *conv);
	for (size_t j = 0; ids && which && j < ns; j++) {
		const vw_stream *s = &m->streams[streams[j]];
		if (done[j] || s->file_index != file)
			continue;
		done[j] = 2; /* this file's turn */
		if (!cache_hit(&m->cache->e[streams[j]], t0, t1, n))
			ids[k] = s->id, which[k++] = streams[j];
	}
	int64_t off = m->offsets[file];
	if (k && conv && (raw = malloc(k * n * sizeof *raw)) &&
	    mcz_summary_multi(m->streams[which[0]].file, ids, k, t0 - off, t1 - off, n, raw) == 0)
		for (size_t j = 0; j < k; j++) {
			for (size_t i = 0; i < n; i++)
				vw_model_bucket_convert(m->streams[which[j]].desc, &raw[j * n + i],
							&conv[i]);
			cache_keep(m->cache, &m->cache->e[which[j]], t0, t1, n, conv);
		}
	free(ids), free(which), free(raw), free(conv);
}

int vw_model_streams_buckets(vw_model *m, const size_t *streams, size_t ns, int64_t t0,
			     int64_t t1, size_t n, vw_bucket *out, uint8_t *ok)
{
	if (n == 0 || t1 <= t0)
		return -1;
	uint8_t *done = calloc(ns + 1, 1);
	if (!done)
		return -1;
	for (size_t j = 0; j < ns; j++)
		if (streams[j] >= m->nstreams)
			done[j] = 1; /* fails below */
	for (size_t j = 0; j < ns; j++)
		if (!done[j])
			streams_of_file(m, streams, ns, m->streams[streams[j]].file_index, t0, t1, n,
					done);
	free(done);
	if (!out && !ok)
		return 0; /* a prefetch: the cache is filled (copying every stream out
			   * of it again would cost a wide archive much of a frame) */
	/* from the cache now; what missed it (a failed query) tries alone and fails
	 * as vw_model_stream_buckets fails */
	int rc = 0;
	vw_bucket *tmp = out ? NULL : malloc(n * sizeof *tmp);
	for (size_t j = 0; j < ns; j++) {
		int r = (out || tmp) && vw_model_stream_buckets(m, streams[j], t0, t1, n,
								 out ? out + j * n : tmp) == 0;
		if (ok)
			ok[j] = (uint8_t)r;
		if (!r)
			rc = -1;
	}
	free(tmp);
	return rc;
}

static size_t file_first_stream(const vw_model *m, size_t file)
{
	size_t lo = 0, hi = m->nstreams;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->streams[mid].file_index < file)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void vw_model_file_streams(const vw_model *m, size_t file, size_t *first, size_t *end)
{
	*first = file_first_stream(m, file);
	*end = file_first_stream(m, file + 1);
}

int64_t vw_model_interval(const vw_model *m, size_t stream)
{
	if (stream >= m->nstreams)
		return 0;
	const mcz_file_info *fi = mcz_info(m->streams[stream].file);
	return fi->nrows > 1 ? (fi->t_last - fi->t_first) / (int64_t)(fi->nrows - 1) : 0;
}

/* Every stream's chunk summaries past this many bytes: the model keeps
 * compact copies of them (model-chunks.c), the reader none. */
#define SUMS_LARGE (128u << 20)

int vw_model_sums_large(const vw_model *m, const mcz_reader *r)
{
	const mcz_file_info *fi = mcz_info(r);
	size_t large = m->sums_large ? m->sums_large : SUMS_LARGE;
	return !fi->recovered &&
	       (double)fi->nchunks * (double)mcz_stream_count(r) * sizeof(mcz_bucket) > (double)large;
}

int64_t vw_model_stream_interval(const vw_model *m, size_t stream)
{
	if (stream >= m->nstreams)
		return 0;
	const vw_stream *s = &m->streams[stream];
	const mcz_file_info *fi = mcz_info(s->file);
	cache_ent *e = m->cache ? &m->cache->e[stream] : NULL;
	if (e && e->per_rows == fi->nrows && fi->nrows)
		return e->per;
	/* the stream's own samples over the file's span: a source read every
	 * 500 ms in a recording of 100 ms rows has a sample every 5th row */
	int64_t per = vw_model_interval(m, stream);
	mcz_bucket b;
	if (fi->nrows > 1 &&
	    mcz_summary(s->file, s->id, fi->t_first, fi->t_last + 1, 1, &b) == MCZ_OK &&
	    b.count > 1) {
		int64_t own = (fi->t_last - fi->t_first) / (int64_t)(b.count - 1);
		if (own > per)
			per = own;
	}
	/* the summaries that answered, given back in a large file (the
	 * model keeps its own copy of those it draws) */
	if (vw_model_sums_large(m, s->file))
		mcz_query_sums_release(s->file, s->id);
	if (e) {
		e->per = per;
		e->per_rows = fi->nrows;
	}
	return per;
}

/* Zoomed in closer than the sampling, columns hold no sample: draw each
 * sample over the time it stands for (a counter's rate over the interval
 * before it, a gauge's value until the next sample), so the row reads as a
 * line, at any zoom and for a stream read less often than the file's rows
 * (a 500 ms source in a 20 ms recording).  Gaps up to 2.5 of the stream's
 * mean intervals are filled for a gauge (a tick late by a whole interval
 * is no missing data), 4 for a counter (its delta covers the time since
 * the sample before, however late it comes); longer ones are missing
 * data and stay blank. */
int vw_model_needs_fill(const vw_model *m, size_t stream, size_t nb)
{
	int64_t per = vw_model_stream_interval(m, stream);
	double colw = (double)(m->t1 - m->t0) / (double)nb;
	return per > 0 && 4 * (double)per >= colw;
}

void vw_model_fill_gaps(const vw_model *m, size_t stream, vw_bucket *b, size_t nb)
{
	if (!vw_model_needs_fill(m, stream, nb))
		return;
	int64_t per = vw_model_stream_interval(m, stream);
	double colw = (double)(m->t1 - m->t0) / (double)nb;
	int counter = m->streams[stream].desc->kind == MCZ_COUNTER;
	size_t maxrun = (size_t)((counter ? 4 : 2.5) * (double)per / colw);
	for (size_t i = 0; i < nb;) {
		if (b[i].count) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < nb && !b[j].count)
			j++;
		if (i > 0 && j < nb && j - i <= maxrun) {
			const vw_bucket *src = counter ? &b[j] : &b[i - 1];
			double v = counter ? src->min : src->max;
			if (!isnan(v))
				for (size_t k = i; k < j; k++)
					b[k] = (vw_bucket){v, v, v, 1};
		}
		i = j;
	}
}

/* Index of the covering sample in s for file time ft, or -1 (see model.h). */
static long covering(const mcz_series *s, int counter, int64_t ft)
{
	long best = -1;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->present[i])
			continue;
		if (counter) {
			if (s->t[i] >= ft)
				return (long)i;
		} else if (s->t[i] <= ft || best < 0) {
			best = (long)i;
			if (s->t[i] > ft)
				return best;
		}
	}
	return best;
}

static int sample_at(vw_model *m, size_t stream, int64_t t, double *v, int64_t *ts);

int vw_model_sample_at(vw_model *m, size_t stream, int64_t t, double *v, int64_t *ts)
{
	*v = NAN;
	*ts = 0;
	if (stream >= m->nstreams)
		return -1;
	cache_ent *e = &m->cache->e[stream];
	if (!e->vset || e->vt != t) {
		e->vrc = sample_at(m, stream, t, &e->vv, &e->vts);
		e->vt = t;
		e->vset = 1;
	}
	*v = e->vv;
	*ts = e->vts;
	return e->vrc;
}

static int sample_at(vw_model *m, size_t stream, int64_t t, double *v, int64_t *ts)
{
	*v = NAN;
	*ts = 0;
	const vw_stream *s = &m->streams[stream];
	const mcz_file_info *fi = mcz_info(s->file);
	if (fi->nrows == 0)
		return -1;
	int64_t off = m->offsets[s->file_index], ft = t - off;
	int counter = s->desc->kind == MCZ_COUNTER;
	double sc = s->desc->scale != 0 ? s->desc->scale : 1.0;
	int64_t per = fi->nrows > 1 ? (fi->t_last - fi->t_first) / (int64_t)(fi->nrows - 1) : 1;
	for (int64_t span = 4 * per + 1;; span *= 4) {
		int64_t a = ft - span, b = ft + span + 1;
		int whole = a <= fi->t_first && b > fi->t_last;
		mcz_series se = {0};
		if (mcz_read(s->file, s->id, a, b, &se) != MCZ_OK)
			return -1;
		long i = covering(&se, counter, ft);
		long prev = i - 1;
		while (counter && prev >= 0 && !se.present[prev])
			prev--;
		int done = i >= 0 && (!counter || prev >= 0 || whole || a <= fi->t_first);
		if (done) {
			*ts = se.t[i] + off;
			if (!counter)
				*v = (s->desc->type == MCZ_F64   ? se.v[i].f
				      : s->desc->type == MCZ_I64 ? (double)se.v[i].i
								 : (double)se.v[i].u) *
				     sc;
			else if (prev >= 0)
				*v = mcz_counter_rate(se.delta[i], se.t[i] - se.t[prev]) * sc;
		}
		mcz_series_free(&se);
		if (done)
			return isnan(*v) ? -1 : 0;
		if (whole)
			return -1;
	}
}

double vw_model_value_at(vw_model *m, size_t stream, int64_t t)
{
	double v;
	int64_t ts;
	vw_model_sample_at(m, stream, t, &v, &ts);
	return v;
}

const char *vw_model_unit(const vw_model *m, size_t stream, char *buf, size_t len)
{
	const mcz_stream_desc *d = m->streams[stream].desc;
	const char *u = d->unit ? d->unit : "";
	static const char *const abbrev[][2] = {
		{"instructions", "ins"}, {"cycles", "cyc"},    {"packets", "pkt"},
		{"bytes", "B"},          {"events", "ev"},     {"misses", "miss"},
		{"switches", "sw"},      {"migrations", "mig"}, {"faults", "flt"},
		{"processes", "proc"},   {"process", "proc"},  {"requests", "req"},
		{"interrupts", "irq"},   {"operations", "op"}, {"seconds", "s"},
	};
	for (size_t i = 0; i < sizeof abbrev / sizeof abbrev[0]; i++)
		if (strcmp(u, abbrev[i][0]) == 0)
			u = abbrev[i][1];
	/* The value column is narrow: long unit names are cut to 5 letters. */
	snprintf(buf, len, "%.5s%s", u, d->kind == MCZ_COUNTER ? "/s" : "");
	return buf;
}

