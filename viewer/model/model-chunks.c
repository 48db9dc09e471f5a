/* model-chunks.c: column values of large recordings without decoding the
 * whole window.
 *
 * mcz_summary answers from the index alone while each bucket is wider than
 * a chunk; once buckets are narrower, it decodes every chunk it touches, for
 * every stream asked, which on a wide window costs seconds.  So, on a large
 * recording (more chunk decodes than a redraw can afford), each column
 * takes the summaries of the chunks its time overlaps, merged through a
 * pyramid (level k merges 2^k chunks) in O(log chunks): the envelope is
 * exact to chunk resolution and nothing is decoded.  A stream's per-chunk
 * summaries are read once (mcz_query_sums: the index's, or computed by the
 * reader where the file holds none) and kept: where every stream's would
 * take more than m->sums_large, the model keeps its
 * own compact copy, the reader none (a stream read at every row: 16 bytes
 * a chunk, its times and counts the file's chunks').
 * When the window holds only a few chunks, columns are exact: on a small
 * recording from mcz_summary, on a large one from raw samples (mcz_read)
 * kept around the window, so pans and zooms near it decode nothing again.
 * The last columns of each stream are kept too: a redraw of an unchanged
 * window costs a copy.
 *
 * A frame has a budget (vw_model_budget): once it is spent, a stream whose
 * raw samples are not at hand is drawn from its chunk summaries (exact to
 * chunk resolution, as at wider zoom), and a stream whose chunk summaries
 * are not read yet is left out; m->refining asks the loop for another
 * frame, which goes on where this one stopped.  So a key is answered within
 * the budget even when the window needs a million values decoded, and the
 * screen sharpens over the next frames unless another key comes first.
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
	size_t bytes;      /* what s holds */
} raw_ent;

/* The raw samples and last columns kept for every stream take at most this
 * much: past it, streams not used lately give theirs back (CLOCK).  A
 * 36,886-stream archive drawn at full resolution kept 0.7 GB of them, most
 * for members of groups whose band model-band.c keeps anyway. */
#define KEEP_BUDGET (96u << 20)

/* A pyramid over a stream's chunk summaries: level k node i merges chunks
 * [i << k, (i + 1) << k), so a column of any width merges O(log n) nodes.
 * Level 0 is the chunk summaries themselves; levels >= 1 are compact, and
 * only those from PYR_STORED on are kept: the two below are merged from
 * the chunk summaries when asked (at most 4 each), so that a stream's
 * pyramid takes 6 bytes a chunk, not 24: at 10^10 values the pyramids of
 * every stream must fit the viewer's memory beside the summaries. */
#define PYR_STORED 3
typedef struct pnode {
	float min, max; /* NaN when empty */
	double sum;
	uint32_t count;
} pnode;

/* A chunk's summary of a stream read at every row, in a large file: the
 * pyramid's node without its count (min and max as floats, as the pyramid
 * merges them), its count, first and last time the chunk's own (ctimes). */
typedef struct cnode {
	float min, max;
	double sum;
} cnode;

/* A file's chunks, for its streams read at every row. */
typedef struct ctimes {
	int64_t *first, *last;
	uint32_t *count;
	size_t n;          /* 0: not read */
} ctimes;

/* A stream's level 0 as the model holds it: the file's summaries (or a
 * copy of them), or compact ones with their file's chunk times. */
typedef struct lvl0 {
	const mcz_bucket *b; /* or NULL */
	const cnode *c;
	const ctimes *t;
	size_t n;            /* non-empty chunks */
} lvl0;

static int64_t l0_first(const lvl0 *L, size_t i)
{
	return L->b ? L->b[i].first : L->t->first[i];
}

static int64_t l0_last(const lvl0 *L, size_t i)
{
	return L->b ? L->b[i].last : L->t->last[i];
}

static uint64_t l0_count(const lvl0 *L, size_t i)
{
	return L->b ? L->b[i].count : L->t->count[i];
}

typedef struct pyramid {
	pnode *node;       /* levels 1.. concatenated */
	size_t lvl_off[48], lvl_n[48];
	int nlvl;          /* levels >= 1 */
} pyramid;

/* The last columns given for a stream: a redraw of the same window (a key
 * that changed nothing in it) costs a copy. */
typedef struct last_ent {
	int64_t t0, t1;
	size_t n, cap;
	vw_bucket *b;
} last_ent;

struct vw_chunk_cache {
	mcz_bucket **per;  /* per stream: summaries about one chunk each, or NULL */
	uint8_t *own;      /* per stream: per[] is a copy (else the reader's own array) */
	cnode **cn;        /* per stream: compact summaries (per[] NULL then), or NULL */
	ctimes *ct;        /* per file: its chunks' times, for compact summaries */
	size_t sums_bytes; /* in per[] copies and cn[] */
	size_t *n;
	raw_ent *raw;      /* per stream */
	pyramid *pyr;      /* per stream */
	last_ent *last;    /* per stream */
	mcz_bucket *mb;    /* raw_buckets' columns, kept: a frame of thousands of
			      streams allocates nothing */
	size_t mbcap;
	uint8_t *used;     /* per stream: its raw or last entry used since the hand passed */
	size_t kept;       /* bytes in raw and last entries */
	size_t hand;       /* the CLOCK hand */
};

void vw_model_chunks_free(vw_model *m)
{
	struct vw_chunk_cache *k = m->chunks;
	if (!k)
		return;
	for (size_t i = 0; i < m->nstreams; i++) {
		if (k->own[i])
			free(k->per[i]);
		free(k->cn[i]);
		mcz_series_free(&k->raw[i].s);
		free(k->pyr[i].node);
		free(k->last[i].b);
	}
	for (size_t f = 0; f < m->nfiles; f++) {
		free(k->ct[f].first);
		free(k->ct[f].last);
		free(k->ct[f].count);
	}
	free(k->ct);
	free(k->cn);
	free(k->last);
	free(k->used);
	free(k->mb);
	free(k->per);
	free(k->own);
	free(k->n);
	free(k->raw);
	free(k->pyr);
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
		    !(k->own = calloc(m->nstreams ? m->nstreams : 1, 1)) ||
		    !(k->n = calloc(m->nstreams, sizeof *k->n)) ||
		    !(k->raw = calloc(m->nstreams, sizeof *k->raw)) ||
		    !(k->pyr = calloc(m->nstreams, sizeof *k->pyr)) ||
		    !(k->last = calloc(m->nstreams, sizeof *k->last)) ||
		    !(k->used = calloc(m->nstreams ? m->nstreams : 1, 1)) ||
		    !(k->cn = calloc(m->nstreams ? m->nstreams : 1, sizeof *k->cn)) ||
		    !(k->ct = calloc(m->nfiles ? m->nfiles : 1, sizeof *k->ct))) {
			if (k) {
				free(k->per);
				free(k->own);
				free(k->n);
				free(k->raw);
				free(k->pyr);
				free(k->last);
				free(k->used);
				free(k->cn);
			}
			free(k);
			return NULL;
		}
		m->chunks = k;
	}
	return m->chunks;
}

/* Stream `keep` took `add` more bytes of raw samples or last columns: past
 * the budget, the hand frees the entries of streams not used since it last
 * passed (a second chance for those that were), never keep's. */
static void keep_account(vw_model *m, size_t keep, size_t add)
{
	struct vw_chunk_cache *k = m->chunks;
	k->kept += add;
	k->used[keep] = 1;
	size_t budget = m->keep_budget ? m->keep_budget : KEEP_BUDGET;
	for (size_t steps = 0; k->kept > budget && steps < 2 * m->nstreams; steps++) {
		size_t i = k->hand;
		k->hand = i + 1 < m->nstreams ? i + 1 : 0;
		if (i == keep)
			continue;
		if (k->used[i]) {
			k->used[i] = 0;
			continue;
		}
		raw_ent *r = &k->raw[i];
		last_ent *l = &k->last[i];
		if (r->have || r->s.t) {
			mcz_series_free(&r->s);
			r->have = 0;
			k->kept -= r->bytes;
			r->bytes = 0;
		}
		if (l->b) {
			free(l->b);
			k->kept -= l->cap * sizeof *l->b;
			*l = (last_ent){0};
		}
	}
}

size_t vw_model_kept_bytes(const vw_model *m)
{
	return m->chunks ? m->chunks->kept : 0;
}

size_t vw_model_sums_bytes(const vw_model *m)
{
	return m->chunks ? m->chunks->sums_bytes : 0;
}

/* File f's chunk times (read once); NULL out of memory. */
static const ctimes *file_times(vw_model *m, size_t f)
{
	ctimes *t = &m->chunks->ct[f];
	if (t->n)
		return t;
	const mcz_reader *r = m->files[f];
	size_t nc = mcz_info(r)->nchunks;
	if (!(t->first = malloc(nc * sizeof *t->first)) || !(t->last = malloc(nc * sizeof *t->last)) ||
	    !(t->count = malloc(nc * sizeof *t->count))) {
		free(t->first), free(t->last), free(t->count);
		*t = (ctimes){0};
		return NULL;
	}
	for (size_t i = 0; i < nc; i++) {
		uint64_t rows = 0;
		if (mcz_chunk_span(r, i, &t->first[i], &t->last[i], &rows) != MCZ_OK)
			t->first[i] = t->last[i] = 0;
		t->count[i] = (uint32_t)rows;
	}
	t->n = nc;
	return t;
}

/* Did the stream of summaries cs (nc chunks, none empty) have a sample at
 * every row of every chunk of file f? */
static int every_row(vw_model *m, size_t f, const mcz_bucket *cs, size_t nc)
{
	const ctimes *t = file_times(m, f);
	if (!t || t->n != nc)
		return 0;
	for (size_t i = 0; i < nc; i++)
		if (cs[i].count != t->count[i] || cs[i].first != t->first[i] || cs[i].last != t->last[i])
			return 0;
	return 1;
}

/* The stream's chunk summaries into *L: 0, or -1 (no memory, a failed read). */
static int chunk_sums(vw_model *m, size_t stream, lvl0 *L)
{
	struct vw_chunk_cache *k = cache(m);
	if (!k)
		return -1;
	const vw_stream *s = &m->streams[stream];
	if (!k->per[stream] && !k->cn[stream]) {
		/* the file's own summary of each chunk: from its index, or
		 * computed once by the reader where the index holds none */
		const mcz_bucket *cs;
		size_t nb = mcz_info(s->file)->nchunks, empty = 0;
		int large = vw_model_sums_large(m, s->file);
		if (mcz_query_sums(s->file, s->id, &cs) != MCZ_OK)
			return -1;
		for (size_t i = 0; i < nb; i++)
			empty += cs[i].count == 0;
		/* Searches want the non-empty ones: the reader's own array when
		 * every chunk holds the stream (it stays while the file does not
		 * change, and the cache goes when it does: vw_model_follow), a
		 * copy of them otherwise, so that they are not held twice.  In a
		 * large file, a copy always, compact where the stream was read
		 * at every row, and the reader gives its own back. */
		if (large && !empty && nb && every_row(m, s->file_index, cs, nb)) {
			cnode *c = malloc(nb * sizeof *c);
			if (!c)
				return -1;
			for (size_t i = 0; i < nb; i++)
				c[i] = (cnode){(float)cs[i].min, (float)cs[i].max, cs[i].sum};
			k->cn[stream] = c;
			k->sums_bytes += nb * sizeof *c;
		} else if (!empty && !large) {
			k->per[stream] = (mcz_bucket *)cs;
			k->own[stream] = 0;
		} else {
			mcz_bucket *b = malloc((nb - empty ? nb - empty : 1) * sizeof *b);
			if (!b)
				return -1;
			size_t j = 0;
			for (size_t i = 0; i < nb; i++)
				if (cs[i].count)
					b[j++] = cs[i];
			k->per[stream] = b;
			k->own[stream] = 1;
			k->sums_bytes += (nb - empty) * sizeof *b;
		}
		k->n[stream] = nb - empty;
		if (large)
			mcz_query_sums_release(s->file, s->id);
	}
	*L = (lvl0){k->per[stream], k->cn[stream], &k->ct[s->file_index], k->n[stream]};
	return 0;
}

/* Merge the chunk summaries overlapping [a, b) (file time) into *out;
 * *from is where to start looking (columns come in time order) and is moved
 * to the first summary that may overlap the next column. */
static void merge_range(const lvl0 *L, size_t *from, int64_t a, int64_t b, mcz_bucket *out)
{
	size_t i = *from, n = L->n;
	while (i < n && l0_last(L, i) < a)
		i++;
	*from = i;
	*out = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	for (; i < n && l0_first(L, i) < b; i++) {
		double mn = L->b ? L->b[i].min : L->c[i].min, mx = L->b ? L->b[i].max : L->c[i].max;
		if (out->count == 0)
			out->first = l0_first(L, i);
		if (!isnan(mn) && (isnan(out->min) || mn < out->min))
			out->min = mn;
		if (!isnan(mx) && (isnan(out->max) || mx > out->max))
			out->max = mx;
		out->sum += L->b ? L->b[i].sum : L->c[i].sum;
		out->count += l0_count(L, i);
		out->last = l0_last(L, i);
	}
}

/* Index of the first summary whose last (by_first: first) sample is at or
 * after t; the summaries are non-empty and in time order. */
static size_t search(const lvl0 *L, int64_t t, int by_first)
{
	size_t lo = 0, hi = L->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((by_first ? l0_first(L, mid) : l0_last(L, mid)) < t)
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
static int raw_ready(const vw_model *m, size_t stream)
{
	const raw_ent *e = &m->chunks->raw[stream];
	int64_t off = m->offsets[m->streams[stream].file_index];
	return e->have && m->t0 - off >= e->a && m->t1 - off <= e->b;
}

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
		k->kept -= e->bytes;
		e->bytes = 0;
		/* Room for pans of a quarter of the window (arrows pan 1/8), and the
		 * sample before it. */
		int64_t margin = (b - a) / 4 + 2 * vw_model_interval(m, stream);
		e->a = a - margin;
		e->b = b + margin;
		if (mcz_read(st->file, st->id, e->a, e->b, &e->s) != MCZ_OK)
			return -1;
		e->have = 1;
		/* mcz_read's arrays hold at least 1,024 entries */
		e->bytes = (e->s.n < 1024 ? 1024 : e->s.n) *
			   (sizeof *e->s.t + sizeof *e->s.v + 1 +
			    (e->s.delta ? sizeof *e->s.delta : 0));
		keep_account(m, stream, e->bytes);
	}
	k->used[stream] = 1;
	const mcz_series *s = &e->s;
	const mcz_stream_desc *d = st->desc;
	int counter = d->kind == MCZ_COUNTER;
	if (vw_model_grow((void **)&k->mb, &k->mbcap, n, sizeof *k->mb) != 0)
		return -1;
	mcz_bucket *mb = k->mb;
	for (size_t i = 0; i < n; i++)
		mb[i] = (mcz_bucket){NAN, NAN, 0, 0, 0, 0};
	double w = (double)(b - a);
	/* The samples from the window's start (the kept ones may reach far
	 * beyond it), and the present one before them for a counter's rate. */
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->t[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	long prev = (long)lo - 1;
	while (prev >= 0 && !s->present[prev])
		prev--;
	for (size_t i = lo; i < s->n && s->t[i] < b; i++) {
		if (!s->present[i])
			continue;
		int64_t t = s->t[i];
		double x;
		if (counter)
			x = prev >= 0 ? mcz_counter_rate(s->delta[i], t - s->t[prev]) : NAN;
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
		o->sum += counter ? mcz_counter_step(s->delta[i]) : (isnan(x) ? 0 : x);
		if (!isnan(x)) {
			o->min = isnan(o->min) || x < o->min ? x : o->min;
			o->max = isnan(o->max) || x > o->max ? x : o->max;
		}
	}
	for (size_t i = 0; i < n; i++)
		vw_model_bucket_convert(d, &mb[i], &out[i]);
	return 0;
}

static void pnode_add(pnode *o, float mn, float mx, double sum, uint32_t count)
{
	if (count == 0)
		return;
	if (!isnan(mn) && (isnan(o->min) || mn < o->min))
		o->min = mn;
	if (!isnan(mx) && (isnan(o->max) || mx > o->max))
		o->max = mx;
	o->sum += sum;
	o->count += count;
}

/* Node i of level k (0: chunk i), as the pyramid holds it or merged from
 * its two children below PYR_STORED, in the same order either way. */
static pnode pyramid_node(const pyramid *p, const lvl0 *L, int k, size_t i)
{
	pnode o = {NAN, NAN, 0, 0};
	if (k == 0) {
		if (i < L->n && L->b)
			pnode_add(&o, (float)L->b[i].min, (float)L->b[i].max, L->b[i].sum,
				  (uint32_t)L->b[i].count);
		else if (i < L->n)
			pnode_add(&o, L->c[i].min, L->c[i].max, L->c[i].sum, L->t->count[i]);
		return o;
	}
	if (k >= PYR_STORED)
		return i < p->lvl_n[k - 1] ? p->node[p->lvl_off[k - 1] + i] : o;
	for (size_t c = 2 * i; c < 2 * i + 2; c++) {
		pnode q = pyramid_node(p, L, k - 1, c);
		pnode_add(&o, q.min, q.max, q.sum, q.count);
	}
	return o;
}

static const pyramid *pyramid_of(vw_model *m, size_t stream, const lvl0 *L)
{
	pyramid *p = &m->chunks->pyr[stream];
	size_t nc = L->n;
	if (p->node || nc < 2)
		return p->node ? p : NULL;
	/* lvl_n[k - 1], lvl_off[k - 1]: level k's nodes and where they are
	 * (levels below PYR_STORED take no room) */
	size_t total = 0, n = nc;
	int l = 0;
	while (n > 1 && l < 47) {
		n = (n + 1) / 2;
		p->lvl_off[l] = total;
		p->lvl_n[l] = n;
		total += l + 1 >= PYR_STORED ? n : 0;
		l++;
	}
	p->nlvl = l;
	if (!(p->node = malloc((total ? total : 1) * sizeof *p->node)))
		return NULL;
	for (int k = PYR_STORED; k <= l; k++)
		for (size_t i = 0; i < p->lvl_n[k - 1]; i++) {
			pnode *o = &p->node[p->lvl_off[k - 1] + i];
			*o = (pnode){NAN, NAN, 0, 0};
			for (size_t c = 2 * i; c < 2 * i + 2; c++) {
				pnode q = pyramid_node(p, L, k - 1, c);
				pnode_add(o, q.min, q.max, q.sum, q.count);
			}
		}
	return p;
}

/* Merge chunks [lo, hi) through the pyramid (bottom-up segment tree). */
static void pyramid_merge(const pyramid *p, const lvl0 *L, size_t lo, size_t hi, mcz_bucket *out)
{
	pnode acc = {NAN, NAN, 0, 0};
	for (int k = 0; lo < hi; k++) {
		if (lo & 1) {
			pnode q = pyramid_node(p, L, k, lo);
			pnode_add(&acc, q.min, q.max, q.sum, q.count);
			lo++;
		}
		if (hi & 1) {
			hi--;
			pnode q = pyramid_node(p, L, k, hi);
			pnode_add(&acc, q.min, q.max, q.sum, q.count);
		}
		lo >>= 1;
		hi >>= 1;
	}
	out->min = acc.min;
	out->max = acc.max;
	out->sum = acc.sum;
	out->count = acc.count;
}

/* Columns from the pyramid: each takes every chunk its time overlaps. */
static void pyramid_columns(vw_model *m, size_t stream, const lvl0 *L, size_t n, vw_bucket *out)
{
	const vw_stream *s = &m->streams[stream];
	const pyramid *p = pyramid_of(m, stream, L);
	int64_t off = m->offsets[s->file_index];
	double colw = (double)(m->t1 - m->t0) / (double)n;
	size_t nc = L->n, lo = search(L, m->t0 - off, 0), hi = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t a = m->t0 + (int64_t)((double)i * colw) - off;
		int64_t b = m->t0 + (int64_t)((double)(i + 1) * colw) - off;
		/* Columns come in time order: both ends only move forward. */
		while (lo < nc && l0_last(L, lo) < a)
			lo++;
		if (hi < lo)
			hi = lo;
		while (hi < nc && l0_first(L, hi) < b)
			hi++;
		mcz_bucket mb = {NAN, NAN, 0, 0, 0, 0};
		if (lo < hi) {
			if (p)
				pyramid_merge(p, L, lo, hi, &mb);
			else
				merge_range(L, &lo, a, b, &mb);
			size_t f = lo, l = hi - 1;
			while (f < hi && l0_count(L, f) == 0)
				f++;
			while (l > f && l0_count(L, l) == 0)
				l--;
			mb.first = f < hi ? l0_first(L, f) : 0;
			mb.last = f < hi ? l0_last(L, l) : 0;
		}
		vw_model_bucket_convert(s->desc, &mb, &out[i]);
	}
}

/* columns(): drawn to chunk resolution for want of budget (model-int.h). */
enum { COARSE = VW_COARSE };

static int columns(vw_model *m, size_t stream, size_t n, vw_bucket *out);

int vw_model_draw_buckets(vw_model *m, size_t stream, int64_t t0, int64_t t1, size_t n,
			  vw_bucket *out)
{
	if (stream >= m->nstreams || n == 0 || t1 <= t0)
		return -1;
	int64_t w0 = m->t0, w1 = m->t1;
	m->t0 = t0; /* the window these columns are drawn for, for this call only */
	m->t1 = t1;
	int rc = vw_model_display_buckets(m, stream, n, out);
	m->t0 = w0;
	m->t1 = w1;
	return rc;
}

int vw_model_window_empty(vw_model *m, size_t stream)
{
	/* only from the chunk summaries already read (the first screen's
	 * pyramid reads them): reading them here would be work outside the
	 * frame's budget */
	if (!m->chunks || (!m->chunks->per[stream] && !m->chunks->cn[stream]))
		return 0;
	lvl0 L;
	if (chunk_sums(m, stream, &L) != 0)
		return 0;
	int64_t off = m->offsets[m->streams[stream].file_index];
	size_t i = search(&L, m->t0 - off, 0);
	return i == L.n || l0_first(&L, i) >= m->t1 - off;
}

const vw_bucket *vw_model_display_cached(vw_model *m, size_t stream, size_t n)
{
	struct vw_chunk_cache *k = cache(m);
	const last_ent *e = k ? &k->last[stream] : NULL;
	return e && e->b && e->n == n && e->t0 == m->t0 && e->t1 == m->t1 ? e->b : NULL;
}

int vw_model_display_buckets(vw_model *m, size_t stream, size_t n, vw_bucket *out)
{
	int rc = vw_model_display_columns(m, stream, n, out);
	return rc == COARSE ? 0 : rc; /* drawn, not kept: the next frame refines it */
}

int vw_model_display_columns(vw_model *m, size_t stream, size_t n, vw_bucket *out)
{
	struct vw_chunk_cache *k = cache(m);
	last_ent *e = k ? &k->last[stream] : NULL;
	if (e && e->b && e->n == n && e->t0 == m->t0 && e->t1 == m->t1) {
		memcpy(out, e->b, n * sizeof *out);
		return 0;
	}
	int rc = columns(m, stream, n, out);
	/* A group's member: its band keeps the columns combined (model-band.c),
	 * so they are not kept here too: copying them (36,886 members of a
	 * wide archive, at every new window) cost a seventh of a zoom. */
	if (rc != 0 || m->band_member)
		return rc;
	if (e && n > e->cap) {
		vw_bucket *nb = realloc(e->b, n * sizeof *nb);
		if (nb) {
			e->b = nb;
			k->kept += (n - e->cap) * sizeof *nb;
			e->cap = n;
			keep_account(m, stream, 0);
		}
	}
	if (e)
		k->used[stream] = 1;
	if (e && n <= e->cap) {
		memcpy(e->b, out, n * sizeof *out);
		e->n = n;
		e->t0 = m->t0;
		e->t1 = m->t1;
	}
	return 0;
}

/* How a stream's columns of the window are computed. */
enum { COL_RAW, COL_SUMMARY, COL_PYRAMID };

static int column_path(const vw_model *m, size_t stream)
{
	int64_t span = chunk_span(m, stream), w = m->t1 - m->t0;
	double chunks = (double)w / (double)(span ? span : 1);
	int big = chunks * (double)m->nstreams > DECODE_BUDGET;
	if (span && chunks <= EXACT_CHUNKS && (double)m->nstreams * EXACT_CHUNKS > DECODE_BUDGET)
		return COL_RAW;
	/* Even where the index alone answers (columns wider than a chunk), the
	 * pyramid answers faster: it is built on the first screen (a one-time
	 * cost) so that every later redraw is quick. */
	return span == 0 || chunks <= EXACT_CHUNKS || !big ? COL_SUMMARY : COL_PYRAMID;
}

int vw_model_summary_columns(const vw_model *m, size_t stream)
{
	return column_path(m, stream) == COL_SUMMARY;
}

/* 0 exact (or to chunk resolution where that is the path), -1, VW_PENDING,
 * or COARSE: to chunk resolution for want of budget, to be drawn again. */
static int columns(vw_model *m, size_t stream, size_t n, vw_bucket *out)
{
	lvl0 L;
	int path = column_path(m, stream);
	struct vw_chunk_cache *k = cache(m);
	if (path == COL_RAW && k && !raw_ready(m, stream) && vw_model_budget_spent(m)) {
		m->refining = 1;
		if (!k->per[stream] && !k->cn[stream])
			return VW_PENDING;
		if (chunk_sums(m, stream, &L) != 0)
			return -1;
		pyramid_columns(m, stream, &L, n, out);
		return COARSE;
	}
	/* a member of a group whose band is kept: its columns once, from the
	 * decoded chunks, without copying its samples out to keep them (the
	 * same figures: mcz_summary's per sample, SPEC.md 7.3) */
	if (path == COL_RAW && m->band_member && !raw_ready(m, stream))
		return vw_model_stream_buckets(m, stream, m->t0, m->t1, n, out);
	if (path == COL_RAW && raw_buckets(m, stream, n, out) == 0)
		return 0;
	if (path == COL_PYRAMID && k && !k->per[stream] && !k->cn[stream] &&
	    vw_model_budget_spent(m)) {
		m->refining = 1;
		return VW_PENDING;
	}
	if (path != COL_PYRAMID || chunk_sums(m, stream, &L) != 0)
		return vw_model_stream_buckets(m, stream, m->t0, m->t1, n, out);
	pyramid_columns(m, stream, &L, n, out);
	return 0;
}
