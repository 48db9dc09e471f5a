/* model-band.c: a group row's band — its members' min, mean (or sum) and
 * max per column — kept while the window and the column count stay, and
 * built across frames within the frame's budget.
 *
 * A group of a job's ranks folded has thousands of members (a per-CPU
 * stream over 1,024 rank files: 2,048); combining them costs members x
 * columns.  So the band of each group is kept (per group row, keyed on the
 * window, the column count and the members) and a frame that leaves the
 * window as it was (cursor, selection, filter, a group opened) copies it.
 * When the window moves, the members are combined in their order from
 * where the last frame stopped, one member at a time while the budget
 * (vw_model_budget) lasts; until the last one, the row shows the previous
 * band put on the new window's columns (coarser, blank where it did not
 * reach), m->refining asks for the next frame, and the band then built is
 * exactly the one combined in one go: the same members in the same order,
 * the same operations.  Without a budget (reports, tests) it is built at
 * once.
 *
 * Every row's columns are asked here (vw_model_row_buckets: a stream's
 * from model-chunks.c, a group's band), and the prefetch before drawing
 * rows reads the members no band holds yet.  The order of the files is
 * model-query.c <- model-chunks.c <- model-band.c: each calls only those
 * to its left, never back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-int.h"

/* Streams the prefetch reads in one call, between looks at the budget. */
#define PREFETCH_BATCH 32

typedef struct band_ent {
	const size_t *members;  /* the group's members (identity of the row) */
	size_t nmembers;
	int rule;
	int64_t t0, t1;         /* window and columns of b */
	size_t n, cap, ncap;    /* columns; capacities of b and nmean */
	size_t next;            /* members combined into b so far */
	int done;               /* b is the band (all members combined) */
	vw_bucket *b;           /* accumulators, then the band */
	size_t *nmean;
	/* the last complete band, drawn on a new window until its own is done */
	int64_t p0, p1;
	size_t pn, pcap;
	vw_bucket *prev;
} band_ent;

struct vw_band_cache {
	band_ent *e;            /* per group row, m->groups[0 .. ngroups] */
	size_t n;
	vw_bucket *tmp;         /* one member's columns */
	size_t tmpcap;
};

void vw_model_bands_free(vw_model *m)
{
	struct vw_band_cache *c = m->bands;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].b);
		free(c->e[i].nmean);
		free(c->e[i].prev);
	}
	free(c->e);
	free(c->tmp);
	free(c);
	m->bands = NULL;
}

/* The entry of group row r, or NULL (a row not of m->groups, or no memory). */
static band_ent *entry(vw_model *m, const vw_row *r)
{
	if (r->group > m->ngroups || !m->groups)
		return NULL;
	if (!m->bands) {
		struct vw_band_cache *c = calloc(1, sizeof *c);
		if (!c || !(c->e = calloc(m->ngroups + 1, sizeof *c->e))) {
			free(c);
			return NULL;
		}
		c->n = m->ngroups + 1;
		m->bands = c;
	}
	return r->group < m->bands->n ? &m->bands->e[r->group] : NULL;
}

static int same(const band_ent *e, const vw_model *m, const vw_row *r, size_t n)
{
	return e->b && e->members == r->members && e->nmembers == r->nmembers &&
	       e->rule == r->rule && e->n == n && e->t0 == m->t0 && e->t1 == m->t1;
}

/* The band held becomes the previous one (shown only when it was
 * complete), and the previous one's buffer the band's. */
static void swap_prev(band_ent *e)
{
	vw_bucket *x = e->prev;
	size_t xc = e->pcap;
	e->prev = e->b, e->pcap = e->cap;
	e->b = x, e->cap = xc;
	e->p0 = e->t0, e->p1 = e->t1, e->pn = e->done ? e->n : 0;
}

/* Start e over for row r on the window in n columns; the band it held, if
 * complete, becomes the one shown meanwhile. */
static int reset(band_ent *e, const vw_model *m, const vw_row *r, size_t n)
{
	int mine = e->b && e->members == r->members && e->nmembers == r->nmembers;
	/* Back on the previous band's window (a zoom out and in again): that
	 * band, complete, is this window's (the bands go when the file grows,
	 * model.c). */
	if (mine && e->prev && e->rule == r->rule && e->pn == n && e->p0 == m->t0 &&
	    e->p1 == m->t1) {
		swap_prev(e);
		e->t0 = m->t0, e->t1 = m->t1, e->n = n;
		e->next = e->nmembers;
		e->done = 1;
		return 0;
	}
	if (mine && e->done)
		swap_prev(e);
	else if (e->members != r->members || e->nmembers != r->nmembers)
		e->pn = 0; /* another row's band */
	if (vw_model_grow((void **)&e->b, &e->cap, n, sizeof *e->b) != 0 ||
	    vw_model_grow((void **)&e->nmean, &e->ncap, n, sizeof *e->nmean) != 0) {
		e->n = 0; /* matches no window */
		e->done = 0;
		return -1;
	}
	e->members = r->members;
	e->nmembers = r->nmembers;
	e->rule = r->rule;
	e->t0 = m->t0;
	e->t1 = m->t1;
	e->n = n;
	e->next = 0;
	e->done = 0;
	for (size_t i = 0; i < n; i++) {
		e->b[i] = (vw_bucket){NAN, NAN, 0, 0};
		e->nmean[i] = 0;
	}
	return 0;
}

static void combine(band_ent *e, const vw_bucket *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const vw_bucket *b = &src[i];
		vw_bucket *o = &e->b[i];
		if (b->count == 0)
			continue;
		if (o->count == 0 || b->min < o->min)
			o->min = b->min;
		if (o->count == 0 || b->max > o->max)
			o->max = b->max;
		o->mean += b->mean;
		o->count += b->count;
		e->nmean[i]++;
	}
}

static void finish(band_ent *e)
{
	for (size_t i = 0; i < e->n; i++)
		e->b[i].mean = !e->nmean[i]		  ? NAN
			       : e->rule == VW_RULE_SUM ? e->b[i].mean
							: e->b[i].mean / (double)e->nmean[i];
	e->done = 1;
}

/* Member k's columns combined into e; 1 when done, 0 when the frame's
 * budget stops it first (m->refining set), -1 when the member has no
 * values (left out, as it was). */
static int add_member(vw_model *m, band_ent *e, size_t st, vw_bucket *tmp)
{
	size_t n = e->n;
	const vw_bucket *src = vw_model_display_cached(m, st, n);
	if (!src && vw_model_window_empty(m, st))
		return 1; /* no value in the window: its columns would all be empty */
	if (!src || vw_model_needs_fill(m, st, n)) {
		/* The first piece of a frame's work is the member's own (its
		 * columns may ask the budget too); each member after it asks. */
		if (!src && m->budget_work && vw_model_budget_spent(m)) {
			m->refining = 1;
			return 0;
		}
		m->band_member = 1;
		int rc = vw_model_display_columns(m, st, n, tmp);
		m->band_member = 0;
		if (!src)
			m->budget_work = 1; /* a piece of this frame's work was done */
		if (rc == VW_PENDING || rc == VW_COARSE) {
			m->refining = 1;
			return 0;
		}
		if (rc != 0)
			return -1;
		vw_model_fill_gaps(m, st, tmp, n);
		src = tmp;
	}
	combine(e, src, n);
	/* The band is kept: the member's own columns would only hold memory
	 * (26,000 members of a wide archive: 250 MB at 300 columns). */
	vw_model_stream_cache_drop(m, st);
	return 1;
}

/* While the band of the window is not done: the previous one on the new
 * columns, each column taking the previous columns its time overlaps;
 * none when it has nothing on the window. */
static int interim(const band_ent *e, const vw_model *m, size_t n, vw_bucket *out)
{
	if (!e->pn || e->p1 <= e->p0 || e->p1 <= m->t0 || e->p0 >= m->t1)
		return -1;
	double w = (double)(m->t1 - m->t0) / (double)n;
	double pw = (double)(e->p1 - e->p0) / (double)e->pn;
	for (size_t i = 0; i < n; i++) {
		double a = (double)m->t0 + (double)i * w - (double)e->p0;
		double b = a + w;
		long j0 = (long)floor(a / pw), j1 = (long)ceil(b / pw);
		vw_bucket o = {NAN, NAN, 0, 0};
		double sum = 0;
		size_t k = 0;
		for (long j = j0 < 0 ? 0 : j0; j < j1 && j < (long)e->pn; j++) {
			const vw_bucket *p = &e->prev[j];
			if (p->count == 0)
				continue;
			if (o.count == 0 || p->min < o.min)
				o.min = p->min;
			if (o.count == 0 || p->max > o.max)
				o.max = p->max;
			o.count += p->count;
			if (!isnan(p->mean))
				sum += p->mean, k++;
		}
		o.mean = k ? sum / (double)k : NAN;
		out[i] = o;
	}
	return 0;
}

int vw_model_band_buckets(vw_model *m, const vw_row *r, size_t n, vw_bucket *out)
{
	band_ent one = {0}, *e = entry(m, r);
	if (!e)
		e = &one; /* not kept: built at once */
	if (!same(e, m, r, n) && reset(e, m, r, n) != 0) {
		free(one.b), free(one.nmean), free(one.prev);
		return -1;
	}
	struct vw_band_cache *c = m->bands;
	vw_bucket *tmp = NULL;
	if (c ? vw_model_grow((void **)&c->tmp, &c->tmpcap, n, sizeof *c->tmp) != 0
	      : !(tmp = malloc(n * sizeof *tmp))) {
		free(one.b), free(one.nmean), free(one.prev);
		return -1;
	}
	if (c)
		tmp = c->tmp;
	int rc = 0;
	while (!e->done && e->next < e->nmembers) {
		int a = add_member(m, e, r->members[e->next], tmp);
		if (a == 0) {
			rc = VW_PENDING;
			break;
		}
		e->next++;
	}
	if (!e->done && e->next == e->nmembers)
		finish(e);
	if (e->done)
		memcpy(out, e->b, n * sizeof *out);
	else if (interim(e, m, n, out) == 0)
		rc = 0; /* drawn coarsely; m->refining asks for the rest */
	if (!c)
		free(tmp);
	free(one.b), free(one.nmean), free(one.prev);
	return rc;
}

int vw_model_band_ready(vw_model *m, const vw_row *r, size_t n)
{
	return r->nmembers && vw_model_band_done(m, r, n) == r->nmembers;
}

size_t vw_model_band_done(const vw_model *m, const vw_row *r, size_t n)
{
	const band_ent *e = m->bands && r->group < m->bands->n ? &m->bands->e[r->group] : NULL;
	if (!e || !same(e, m, r, n))
		return 0;
	return e->done ? r->nmembers : e->next;
}

int vw_model_row_buckets(vw_model *m, size_t row, size_t n, vw_bucket *out)
{
	if (row >= m->nrows || n == 0)
		return -1;
	const vw_row *r = &m->rows[row];
	if ((r->constants && r->depth == 0) || r->head)
		return -1; /* streams of every unit, or a host's row: no band, no value */
	if (r->nmembers == 1) {
		int rc = vw_model_display_buckets(m, r->members[0], n, out);
		if (rc != 0)
			return rc;
		vw_model_fill_gaps(m, r->members[0], out, n);
		return 0;
	}
	return vw_model_band_buckets(m, r, n, out);
}

void vw_model_rows_prefetch(vw_model *m, size_t first, size_t count, size_t n)
{
	size_t ns = 0, cap = 0, *ss = NULL;
	if (n == 0 || m->t1 <= m->t0)
		return;
	/* how a stream's columns are read is the same for every stream of a
	 * file (model-chunks.c): asked once per file met, not per member */
	size_t last_file = SIZE_MAX;
	int last_summary = 0;
	for (size_t ri = first; ri < m->nrows && ri - first < count; ri++) {
		const vw_row *r = &m->rows[ri];
		if ((r->constants && r->depth == 0) || (r->nmembers > 1 && vw_model_band_ready(m, r, n)))
			continue; /* drawn without values, or the band is kept */
		/* a band's members already combined are not read again (their
		 * columns are not kept: model-band.c) */
		for (size_t j = r->nmembers > 1 ? vw_model_band_done(m, r, n) : 0; j < r->nmembers; j++) {
			size_t st = r->members[j];
			if (m->streams[st].file_index != last_file) {
				last_file = m->streams[st].file_index;
				last_summary = vw_model_summary_columns(m, st);
			}
			if (!last_summary || vw_model_display_cached(m, st, n) ||
			    vw_model_needs_fill(m, st, n) || vw_model_window_empty(m, st))
				continue; /* kept, or read otherwise: zoomed in past its
					   * sampling, a stream is drawn from its samples */
			if (ns == cap) {
				size_t *nss = realloc(ss, (cap = cap ? 2 * cap : 64) * sizeof *ss);
				if (!nss)
					break;
				ss = nss;
			}
			ss[ns++] = st;
		}
	}
	/* in batches, within the frame's budget: where each stream's window
	 * must be decoded (a recording of one chunk), thousands of streams in
	 * one call outlast many frames; what is left is read by the rows' own
	 * columns, which ask the budget too */
	for (size_t i = 0; i < ns; i += PREFETCH_BATCH) {
		if (i && vw_model_budget_spent(m)) {
			m->refining = 1;
			break;
		}
		vw_model_streams_buckets(m, ss + i, ns - i < PREFETCH_BATCH ? ns - i : PREFETCH_BATCH,
					 m->t0, m->t1, n, NULL, NULL);
	}
	free(ss);
}
