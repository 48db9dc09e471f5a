/* hotcode.c: the code profile as the viewer uses it (hotcode.h): functions
 * ranked over the run, top functions of a span, the hottest function per
 * column, and per code region a rate series for phase detection.
 *
 * Two groupings of the profile's locations are built once: by function
 * (its name as people read it, demangled with clones folded, or its
 * object alone without symbols: codelabel.c) for what people read, and
 * by region (the function where DWARF named it — inlined code has its own
 * name there — else a 256-byte region of the object) for what the phase
 * detector compares: at -O2 without -g every kernel is "main", but its
 * loops still sit at different addresses.
 *
 * Several files (the ranks of a job) have a profile each: their locations
 * are put in one table and their intervals on the dataset's axis in time
 * order, so that a phase's top functions are the job's; each interval
 * keeps its file, and the intervals of each file are listed apart (in
 * time order too), so that one rank's hot functions — named and ranked as
 * the job's, the same letter on every rank — cost only its own intervals.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeclass.h"
#include "codelabel.h"
#include "hotcode.h"

#define HC_REGION 256

/* One grouping of the locations: names ranked by samples. */
typedef struct hc_group {
	size_t n;
	char **name;
	char **brief;      /* by function: name without return type and parameters */
	uint64_t *total;
	uint32_t *of_loc;  /* per location: its group's rank */
} hc_group;

/* A hit of the merged profile: a location of the merged table (a file's
 * own hits have the same form, their locations from the file's base). */
typedef mcz_code_hit hc_hit;

/* Intervals of the merged table between two class checkpoints (hc_tab.ck):
 * a column's edge walks at most this many. */
#define HC_CK 64

/* Class columns last given for a window (vw_hotcode_file_class_columns). */
typedef struct hc_cls_memo {
	int64_t t0, t1;
	size_t n;
	uint32_t *cnt;
} hc_cls_memo;

typedef struct hc_tab {
	size_t nlocs;                /* every file's locations, one table */
	const mcz_code_loc **loc;
	const mcz_code **own;        /* the profile each comes from (its objects) */
	/* every file's intervals by middle, in one table: built when a query
	 * of every file's first asks (hc_timed); a query of one file walks
	 * that file's own profile */
	int timed;                   /* 1 built, -1 could not be */
	size_t niv;
	int64_t *mid;                /* per interval: its middle on the dataset axis */
	size_t nfiles;
	size_t *first;               /* niv + 1: hits of interval i */
	hc_hit *hits;
	mcz_code_edge *edges;        /* every file's callers, merged locations */
	size_t nedges;
	int64_t interval_ns;         /* the shortest of the files' */
	hc_group fn, reg;
	double hz;                   /* samples per second per thread */
	uint8_t *cls;                /* per location: its class (codeclass.h) */
	uint32_t *fbase;             /* per file: its first location in loc, UINT32_MAX none */
	uint8_t *fn_cls;             /* per function: its class */
	char cls_note[256];          /* the rules' note ("" none) */
	/* The last answers over every file, kept: the code row, its legend
	 * and the job's waiting row ask the same window on every frame, and
	 * a frame that refines the timeline's bands asks again; walking every
	 * rank's profile each time would leave the bands no budget. */
	struct {
		int64_t t0, t1;
		size_t n;
		int *fn;
		double *share;
	} last_cols;
	hc_cls_memo last_cls;        /* every file's */
	/* every file's class counts before interval k * HC_CK of the merged
	 * table (ck[k * VW_CC_N + class]), so that a window's class columns
	 * over every rank need not walk every interval in it */
	uint64_t *ck;
	hc_cls_memo *last_fcls;      /* per file (nfcls of them), made on first use */
	size_t nfcls;
	struct {
		int64_t t0, t1;
		size_t max, k;
		uint64_t total;
		vw_hot *out;
	} last_top[4];
	unsigned next_top;
} hc_tab;

static void hc_group_free(hc_group *g)
{
	for (size_t i = 0; g->name && i < g->n; i++)
		free(g->name[i]);
	for (size_t i = 0; g->brief && i < g->n; i++)
		free(g->brief[i]);
	free(g->name), free(g->brief), free(g->total), free(g->of_loc);
}

static void hc_free(void *p)
{
	hc_tab *t = p;
	if (!t)
		return;
	hc_group_free(&t->fn);
	hc_group_free(&t->reg);
	free(t->loc), free(t->own), free(t->mid), free(t->first), free(t->hits), free(t->edges);
	free(t->cls), free(t->fn_cls), free(t->fbase), free(t->ck);
	free(t->last_cols.fn), free(t->last_cols.share), free(t->last_cls.cnt);
	for (size_t f = 0; t->last_fcls && f < t->nfcls; f++)
		free(t->last_fcls[f].cnt);
	free(t->last_fcls);
	for (size_t i = 0; i < sizeof t->last_top / sizeof t->last_top[0]; i++)
		free(t->last_top[i].out);
	free(t);
}

static const char *hc_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The key of location l: by function (region = 0) or by region.  A
 * function is keyed by its name as people read it (format/code/code-name.c:
 * demangled, clones folded into their function); code without symbols by
 * its object alone ("hpcc (no symbols)"), one row for all of it, while its
 * regions stay 256-byte ones for the detector.  A region of class cls
 * other than work: the code of MPI or of an OpenMP runtime is one region
 * each, so that waiting, wherever it spins, is one series for detection. */
static char *hc_key(const mcz_code *c, const mcz_code_loc *l, int region, int cls)
{
	char buf[512], name[480];
	const char *obj = hc_base(c->objects[l->object].path);
	if (l->function[0])
		mcz_code_name(l->function, name, sizeof name, NULL, 0);
	if (region && cls != VW_CC_WORK)
		snprintf(buf, sizeof buf, "code:%s", vw_codeclass_name(cls));
	else if (region && l->how == MCZ_CODE_DWARF && l->function[0])
		snprintf(buf, sizeof buf, "code:%s", name);
	else if (region)
		snprintf(buf, sizeof buf, "code:%s+0x%" PRIx64, obj, l->offset - l->offset % HC_REGION);
	else if (l->function[0])
		snprintf(buf, sizeof buf, "%s", name);
	else
		vw_codelabel_object(obj, buf, sizeof buf);
	return strdup(buf);
}

typedef struct hc_sortent {
	char *key;
	uint32_t loc;
	uint64_t total;
} hc_sortent;

static int hc_by_key(const void *a, const void *b)
{
	return strcmp(((const hc_sortent *)a)->key, ((const hc_sortent *)b)->key);
}

static int hc_by_total(const void *a, const void *b)
{
	const hc_sortent *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int hc_group_build(const hc_tab *t, const uint64_t *loc_total, int region, hc_group *g)
{
	size_t n = t->nlocs;
	hc_sortent *e = calloc(n + 1, sizeof *e);
	g->of_loc = calloc(n + 1, sizeof *g->of_loc);
	uint32_t *gid = calloc(n + 1, sizeof *gid);
	hc_sortent *u = calloc(n + 1, sizeof *u);
	int rc = -1;
	if (!e || !g->of_loc || !gid || !u)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!(e[i].key = hc_key(t->own[i], t->loc[i], region, t->cls[i])))
			goto out;
	for (size_t i = 0; i < n; i++)
		e[i].loc = (uint32_t)i;
	if (n) /* an empty array may be NULL */
		qsort(e, n, sizeof *e, hc_by_key);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!k || strcmp(u[k - 1].key, e[i].key)) {
			u[k].key = e[i].key;
			u[k].loc = (uint32_t)k; /* its unranked id */
			u[k].total = 0;
			e[i].key = NULL; /* owned by u now */
			k++;
		}
		gid[e[i].loc] = (uint32_t)(k - 1);
		u[k - 1].total += loc_total[e[i].loc];
	}
	if (k) /* an empty array may be NULL */
		qsort(u, k, sizeof *u, hc_by_total);
	uint32_t *rank = calloc(k + 1, sizeof *rank);
	g->name = calloc(k + 1, sizeof *g->name);
	g->total = calloc(k + 1, sizeof *g->total);
	if (!rank || !g->name || !g->total) {
		free(rank);
		for (size_t i = 0; i < k; i++)
			free(u[i].key);
		goto out;
	}
	for (size_t r = 0; r < k; r++) {
		rank[u[r].loc] = (uint32_t)r;
		g->name[r] = u[r].key;
		g->total[r] = u[r].total;
	}
	g->n = k;
	for (size_t i = 0; i < n; i++)
		g->of_loc[i] = rank[gid[i]];
	free(rank);
	if (!region && vw_codelabel_briefs(g->name, k, &g->brief))
		goto out;
	rc = 0;
out:
	for (size_t i = 0; e && i < n; i++)
		free(e[i].key);
	free(e), free(gid), free(u);
	return rc;
}

/* An interval of one file, to sort them all by middle. */
typedef struct hc_ent {
	int64_t mid;
	const mcz_code *c;
	size_t i;
	uint32_t base; /* its file's first location in the merged table */
	size_t file;
} hc_ent;

int64_t vw_hotcode_mid(const mcz_code *c, size_t i, int64_t off)
{
	int64_t a, r;
	if (__builtin_add_overflow(c->t[i], c->interval_ns / 2, &a) ||
	    __builtin_add_overflow(a, off, &r))
		return c->t[i] < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

/* Every file's profile merged into t. */
/* The order of e[0..n) by middle, ties in e's order, into a malloc'd
 * array: a stable LSD radix sort of the middles (from the earliest, 16
 * bits a pass, the passes whose digit never changes skipped).  A qsort of
 * the entries (millions for a job of thousands of ranks) copies each one
 * log n times; a radix sort touches each a few times. */
typedef struct hc_mkey {
	uint64_t k;
	size_t i;
} hc_mkey;

static size_t *hc_merge_order(const hc_ent *e, size_t n)
{
	size_t *ord = malloc((n ? n : 1) * sizeof *ord);
	hc_mkey *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
	size_t *cnt = malloc(65537 * sizeof *cnt);
	if (!ord || !a || !b || !cnt) {
		free(ord), free(a), free(b), free(cnt);
		return NULL;
	}
	int64_t lo = n ? e[0].mid : 0;
	for (size_t i = 0; i < n; i++)
		lo = e[i].mid < lo ? e[i].mid : lo;
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++) {
		a[i] = (hc_mkey){(uint64_t)e[i].mid - (uint64_t)lo, i};
		all |= a[i].k;
	}
	for (int shift = 0; shift < 64 && (all >> shift); shift += 16) {
		memset(cnt, 0, 65537 * sizeof *cnt);
		for (size_t i = 0; i < n; i++)
			cnt[((a[i].k >> shift) & 0xffff) + 1]++;
		for (size_t d = 0; d < 65536; d++)
			cnt[d + 1] += cnt[d];
		for (size_t i = 0; i < n; i++)
			b[cnt[(a[i].k >> shift) & 0xffff]++] = a[i];
		hc_mkey *t = a;
		a = b, b = t;
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = a[i].i;
	free(a), free(b), free(cnt);
	return ord;
}

/* Every file's locations and callers merged into t, each file's from
 * t->fbase[file]. */
static int hc_merge(vw_model *m, hc_tab *t)
{
	size_t nl = 0, nh = 0, ne = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		const mcz_code *c = vw_model_code_at(m, f, NULL);
		if (!c || !c->nhits)
			continue;
		nl += c->nlocs, nh += c->nhits, ne += c->ncallers;
		if (!t->hz) {
			t->hz = c->period ? 1e9 / (double)c->period : 1000.0;
			t->interval_ns = c->interval_ns;
		}
		if (c->interval_ns < t->interval_ns)
			t->interval_ns = c->interval_ns;
	}
	if (!nh || nl > UINT32_MAX)
		return -1;
	t->loc = malloc(nl * sizeof *t->loc);
	t->own = malloc(nl * sizeof *t->own);
	t->edges = malloc((ne + 1) * sizeof *t->edges);
	t->fbase = malloc((m->nfiles + 1) * sizeof *t->fbase);
	if (!t->loc || !t->own || !t->edges || !t->fbase)
		return -1;
	for (size_t f = 0; f < m->nfiles; f++) {
		const mcz_code *c = vw_model_code_at(m, f, NULL);
		t->fbase[f] = UINT32_MAX;
		if (!c || !c->nhits)
			continue;
		uint32_t base = (uint32_t)t->nlocs;
		t->fbase[f] = base;
		for (size_t l = 0; l < c->nlocs; l++) {
			t->loc[t->nlocs] = &c->locs[l];
			t->own[t->nlocs++] = c;
		}
		for (size_t x = 0; x < c->ncallers; x++)
			t->edges[t->nedges++] = (mcz_code_edge){base + c->callers[x].loc,
								base + c->callers[x].caller,
								c->callers[x].count};
	}
	t->nfiles = m->nfiles;
	return 0;
}

/* Every file's intervals in one table by middle (t->mid, first, hits),
 * for the queries of every file's at once; 0, or -1 out of memory. */
static int hc_timed(vw_model *m, hc_tab *t)
{
	if (t->timed)
		return t->timed > 0 ? 0 : -1;
	t->timed = -1;
	size_t ni = 0, nh = 0;
	for (size_t f = 0; f < t->nfiles && f < m->nfiles; f++) {
		const mcz_code *c = t->fbase[f] != UINT32_MAX ? vw_model_code_at(m, f, NULL) : NULL;
		if (c)
			ni += c->nintervals, nh += c->nhits;
	}
	hc_ent *e = malloc((ni + 1) * sizeof *e);
	t->mid = malloc((ni + 1) * sizeof *t->mid);
	t->first = malloc((ni + 1) * sizeof *t->first);
	t->hits = malloc((nh + 1) * sizeof *t->hits);
	if (!e || !t->mid || !t->first || !t->hits) {
		free(e);
		return -1;
	}
	size_t k = 0;
	for (size_t f = 0; f < t->nfiles && f < m->nfiles; f++) {
		int64_t off = 0;
		const mcz_code *c = t->fbase[f] != UINT32_MAX ? vw_model_code_at(m, f, &off) : NULL;
		for (size_t i = 0; c && i < c->nintervals; i++)
			e[k++] = (hc_ent){vw_hotcode_mid(c, i, off), c, i, t->fbase[f], f};
	}
	size_t *ord = hc_merge_order(e, k);
	if (!ord) {
		free(e);
		return -1;
	}
	size_t h = 0;
	for (size_t i = 0; i < k; i++) {
		const hc_ent *x = &e[ord[i]];
		const mcz_code *c = x->c;
		t->mid[i] = x->mid;
		t->first[i] = h;
		for (size_t y = c->first[x->i]; y < c->first[x->i + 1]; y++)
			t->hits[h++] = (hc_hit){x->base + c->hits[y].loc, c->hits[y].count};
	}
	t->first[k] = h;
	t->niv = k;
	free(ord);
	free(e);
	t->timed = 1;
	return 0;
}

/* Each location's class, by the rules of codeclass.h (before the groups:
 * the regions group by it). */
static int hc_classes(hc_tab *t)
{
	vw_codeclass *cc = vw_codeclass_load();
	t->cls = calloc(t->nlocs + 1, 1);
	t->fn_cls = calloc(t->nlocs + 1, 1); /* per function: there are no more */
	if (!cc || !t->cls || !t->fn_cls) {
		vw_codeclass_free(cc);
		return -1;
	}
	for (size_t i = 0; i < t->nlocs; i++)
		t->cls[i] = (uint8_t)vw_codeclass_of(cc, t->own[i]->objects[t->loc[i]->object].path,
						     t->loc[i]->function);
	snprintf(t->cls_note, sizeof t->cls_note, "%s", vw_codeclass_note(cc));
	vw_codeclass_free(cc);
	return 0;
}

/* The tables, built on first use; NULL without a profile. */
static hc_tab *hc_get(vw_an *an)
{
	vw_model *m = an->m;
	if (an->code_cache && an->code_cache_free == hc_free)
		return an->code_cache;
	hc_tab *t = calloc(1, sizeof *t);
	uint64_t *lt = NULL;
	if (!t || hc_merge(m, t))
		goto fail;
	if (!(lt = calloc(t->nlocs + 1, sizeof *lt)))
		goto fail;
	for (size_t f = 0; f < t->nfiles; f++) {
		const mcz_code *c = t->fbase[f] != UINT32_MAX ? vw_model_code_at(an->m, f, NULL) : NULL;
		for (size_t h = 0; c && h < c->nhits; h++)
			lt[t->fbase[f] + c->hits[h].loc] += c->hits[h].count;
	}
	if (hc_classes(t) || hc_group_build(t, lt, 0, &t->fn) || hc_group_build(t, lt, 1, &t->reg))
		goto fail;
	for (size_t i = 0; i < t->nlocs; i++) /* a name is of one class: MPI's own wins */
		if (t->cls[i] != VW_CC_WORK)
			t->fn_cls[t->fn.of_loc[i]] = t->cls[i];
	free(lt);
	if (an->code_cache && an->code_cache_free) /* the code tables only */
		an->code_cache_free(an->code_cache);
	an->code_cache = t;
	an->code_cache_free = hc_free;
	return t;
fail:
	free(lt);
	hc_free(t);
	return NULL;
}

int vw_hotcode_has(vw_an *an)
{
	return hc_get(an) != NULL;
}

size_t vw_hotcode_nfunctions(vw_an *an)
{
	hc_tab *t = hc_get(an);
	return t ? t->fn.n : 0;
}

const char *vw_hotcode_name(vw_an *an, size_t fn)
{
	hc_tab *t = hc_get(an);
	return t && fn < t->fn.n ? t->fn.name[fn] : "?";
}

const char *vw_hotcode_brief(vw_an *an, size_t fn)
{
	hc_tab *t = hc_get(an);
	return t && fn < t->fn.n ? t->fn.brief[fn] : "?";
}

int64_t vw_hotcode_interval(vw_an *an)
{
	hc_tab *t = hc_get(an);
	return t ? t->interval_ns : 0;
}

char vw_hotcode_letter(size_t fn)
{
	return fn < 26 ? (char)('A' + fn) : fn < 52 ? (char)('a' + fn - 26) : '*';
}

/* First interval whose middle is at or after t. */
static size_t hc_first(const hc_tab *t, int64_t at)
{
	size_t lo = 0, hi = t->niv;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->mid[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The intervals a query walks, in time order: every file's, in the
 * merged table (built on first use, hc_timed), or one file's, in its own
 * profile (no merged table: a job's per-rank figures never build it). */
typedef struct hc_walk {
	const hc_tab *t;
	const mcz_code *c; /* one file's profile, or NULL: every file's */
	int64_t off;       /* its offset on the dataset axis */
	uint32_t base;     /* its first location in t (every file's: 0) */
	size_t at, end;    /* positions: c's intervals, or the merged table's */
} hc_walk;

/* The walk of file's intervals (file SIZE_MAX: every file's) from the
 * first whose middle is at or after t0; an empty walk without them. */
static hc_walk hc_walk_from(vw_an *an, hc_tab *t, size_t file, int64_t t0)
{
	hc_walk w = {t, NULL, 0, 0, 0, 0};
	if (file == SIZE_MAX) {
		if (hc_timed(an->m, t) == 0)
			w.at = hc_first(t, t0), w.end = t->niv;
		return w;
	}
	if (file >= t->nfiles || t->fbase[file] == UINT32_MAX)
		return w;
	w.c = vw_model_code_at(an->m, file, &w.off);
	if (!w.c)
		return w;
	w.base = t->fbase[file];
	size_t lo = 0, hi = w.c->nintervals;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (vw_hotcode_mid(w.c, mid, w.off) < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	w.at = lo, w.end = w.c->nintervals;
	return w;
}

/* The walk's next interval if its middle is before t1: its middle, its
 * hits (locations from w->base) and how many; 0 past its end or at t1. */
static int hc_walk_next(hc_walk *w, int64_t t1, int64_t *mid, const hc_hit **hits, size_t *nh)
{
	if (w->at >= w->end)
		return 0;
	size_t i = w->at;
	int64_t m = w->c ? vw_hotcode_mid(w->c, i, w->off) : w->t->mid[i];
	if (m >= t1)
		return 0;
	*mid = m;
	if (w->c) {
		*hits = w->c->hits + w->c->first[i];
		*nh = w->c->first[i + 1] - w->c->first[i];
	} else {
		*hits = w->t->hits + w->t->first[i];
		*nh = w->t->first[i + 1] - w->t->first[i];
	}
	w->at++;
	return 1;
}

static int hc_by_samples(const void *a, const void *b)
{
	const vw_hot *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* The samples of walk w up to t1 added to lc (per location) and cls (per
 * class, may be NULL); their number. */
static uint64_t hc_count(const hc_tab *t, hc_walk *w, int64_t t1, uint64_t *lc, uint64_t *cls)
{
	int64_t mid;
	const hc_hit *hs;
	size_t nh;
	uint64_t all = 0;
	while (hc_walk_next(w, t1, &mid, &hs, &nh))
		for (size_t h = 0; h < nh; h++) {
			uint32_t l = w->base + hs[h].loc;
			lc[l] += hs[h].count;
			if (cls)
				cls[t->cls[l]] += hs[h].count;
			all += hs[h].count;
		}
	return all;
}

/* The functions of the samples per location lc (all of them), ranked, the
 * first max into out; how many. */
static size_t hc_rank(const hc_tab *t, const uint64_t *lc, uint64_t all, vw_hot *out, size_t max)
{
	vw_hot *fn = calloc(t->fn.n + 1, sizeof *fn);
	uint32_t *best = calloc(t->fn.n + 1, sizeof *best);
	size_t k = 0;
	if (!fn || !best)
		goto out;
	for (size_t l = 0; l < t->nlocs; l++) {
		if (!lc[l])
			continue;
		uint32_t f = t->fn.of_loc[l];
		if (!fn[f].samples || lc[l] > lc[best[f]])
			best[f] = (uint32_t)l;
		fn[f].samples += lc[l];
	}
	for (size_t f = 0; f < t->fn.n; f++) {
		if (!fn[f].samples)
			continue;
		const mcz_code_loc *l = t->loc[best[f]];
		fn[k] = (vw_hot){f, (double)fn[f].samples / (double)all, fn[f].samples, l->file,
				 l->line, l->inlined};
		k++;
	}
	if (k) /* an empty array may be NULL */
		qsort(fn, k, sizeof *fn, hc_by_samples);
	k = k < max ? k : max;
	memcpy(out, fn, k * sizeof *out);
out:
	free(fn), free(best);
	return k;
}

static size_t hc_top(vw_an *an, size_t file, int64_t t0, int64_t t1, vw_hot *out, size_t max,
		     uint64_t *total)
{
	if (total)
		*total = 0;
	hc_tab *t = hc_get(an);
	if (!t || t1 <= t0)
		return 0;
	uint64_t *lc = calloc(t->nlocs + 1, sizeof *lc);
	if (!lc)
		return 0;
	hc_walk w = hc_walk_from(an, t, file, t0);
	uint64_t all = hc_count(t, &w, t1, lc, NULL);
	size_t k = hc_rank(t, lc, all, out, max);
	if (total)
		*total = all;
	free(lc);
	return k;
}

size_t vw_hotcode_spans_top(vw_an *an, const vw_hot_span *sp, size_t nsp, vw_hot *out,
			    size_t max, uint64_t *total, uint64_t *cls)
{
	*total = 0;
	if (cls)
		memset(cls, 0, VW_CC_N * sizeof *cls);
	hc_tab *t = hc_get(an);
	uint64_t *lc = t ? calloc(t->nlocs + 1, sizeof *lc) : NULL;
	if (!lc)
		return 0;
	uint64_t all = 0;
	for (size_t i = 0; i < nsp; i++) {
		if (sp[i].t1 <= sp[i].t0 || sp[i].file == SIZE_MAX)
			continue;
		hc_walk w = hc_walk_from(an, t, sp[i].file, sp[i].t0);
		all += hc_count(t, &w, sp[i].t1, lc, cls);
	}
	size_t k = hc_rank(t, lc, all, out, max);
	*total = all;
	free(lc);
	return k;
}

size_t vw_hotcode_top(vw_an *an, int64_t t0, int64_t t1, vw_hot *out, size_t max,
		      uint64_t *total)
{
	/* the same spans are asked on every frame (the code row's legend,
	 * the readout): the last few answers kept */
	hc_tab *t = hc_get(an);
	size_t nk = t ? sizeof t->last_top / sizeof t->last_top[0] : 0;
	for (size_t i = 0; i < nk; i++)
		if (t->last_top[i].out && t->last_top[i].t0 == t0 && t->last_top[i].t1 == t1 &&
		    t->last_top[i].max == max) {
			memcpy(out, t->last_top[i].out, t->last_top[i].k * sizeof *out);
			if (total)
				*total = t->last_top[i].total;
			return t->last_top[i].k;
		}
	uint64_t all = 0;
	size_t k = hc_top(an, SIZE_MAX, t0, t1, out, max, &all);
	if (total)
		*total = all;
	vw_hot *keep = nk && k ? malloc(k * sizeof *keep) : NULL;
	if (keep) {
		unsigned i = t->next_top++ % nk;
		free(t->last_top[i].out);
		memcpy(keep, out, k * sizeof *keep);
		t->last_top[i].out = keep;
		t->last_top[i].t0 = t0, t->last_top[i].t1 = t1;
		t->last_top[i].max = max, t->last_top[i].k = k, t->last_top[i].total = all;
	}
	return k;
}

size_t vw_hotcode_file_top(vw_an *an, size_t file, int64_t t0, int64_t t1, vw_hot *out,
			   size_t max, uint64_t *total)
{
	return hc_top(an, file, t0, t1, out, max, total);
}

double vw_hotcode_threads(vw_an *an, int64_t t0, int64_t t1)
{
	hc_tab *t = hc_get(an);
	uint64_t total = 0;
	vw_hot h;
	if (!t || t1 <= t0 || !vw_hotcode_top(an, t0, t1, &h, 1, &total))
		return 0;
	return (double)total / ((double)(t1 - t0) * 1e-9 * t->hz);
}

static int hc_columns(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n, int *fnout,
		      double *share)
{
	hc_tab *t = hc_get(an);
	for (size_t i = 0; i < n; i++) {
		fnout[i] = -1;
		if (share)
			share[i] = 0;
	}
	if (!t || t1 <= t0 || !n)
		return t ? 0 : -1;
	uint64_t *cnt = calloc(t->fn.n + 1, sizeof *cnt);
	uint32_t *touched = calloc(t->fn.n + 1, sizeof *touched);
	if (!cnt || !touched) {
		free(cnt), free(touched);
		return -1;
	}
	double w = (double)(t1 - t0) / (double)n;
	hc_walk wk = hc_walk_from(an, t, file, t0);
	int64_t mid;
	const hc_hit *hs;
	size_t nh;
	for (size_t col = 0; col < n; col++) {
		int64_t b = col + 1 == n ? t1 : t0 + (int64_t)((double)(col + 1) * w);
		size_t nt = 0;
		uint64_t all = 0;
		while (hc_walk_next(&wk, b, &mid, &hs, &nh))
			for (size_t h = 0; h < nh; h++) {
				uint32_t f = t->fn.of_loc[wk.base + hs[h].loc];
				if (!cnt[f])
					touched[nt++] = f;
				cnt[f] += hs[h].count;
				all += hs[h].count;
			}
		uint32_t top = 0;
		uint64_t tc = 0;
		for (size_t k = 0; k < nt; k++) {
			uint32_t f = touched[k];
			if (cnt[f] > tc || (cnt[f] == tc && f < top))
				top = f, tc = cnt[f];
			cnt[f] = 0;
		}
		if (tc) {
			fnout[col] = (int)top;
			if (share)
				share[col] = (double)tc / (double)all;
		}
	}
	free(cnt), free(touched);
	/* an interval's samples stand for its whole length: zoomed in closer
	 * than the intervals (100 ms of code at 50 ms a column), the columns
	 * after the one it starts in show it too, not a blank as if no code
	 * ran */
	for (size_t col = 1, last = 0; col < n && t->interval_ns > 0; col++) {
		if (fnout[col] >= 0) {
			last = col;
			continue;
		}
		/* the interval may start as late as the end of column last */
		if (fnout[last] >= 0 && (double)(col - last - 1) * w < (double)t->interval_ns) {
			fnout[col] = fnout[last];
			if (share)
				share[col] = share[last];
		}
	}
	return 0;
}

int vw_hotcode_columns(vw_an *an, int64_t t0, int64_t t1, size_t n, int *fn, double *share)
{
	hc_tab *t = hc_get(an);
	if (t && n && t->last_cols.fn && t->last_cols.t0 == t0 && t->last_cols.t1 == t1 &&
	    t->last_cols.n == n) {
		memcpy(fn, t->last_cols.fn, n * sizeof *fn);
		if (share)
			memcpy(share, t->last_cols.share, n * sizeof *share);
		return 0;
	}
	double *sh = t && n ? malloc(n * sizeof *sh) : NULL;
	int rc = hc_columns(an, SIZE_MAX, t0, t1, n, fn, sh ? sh : share);
	if (sh && share)
		memcpy(share, sh, n * sizeof *share);
	int *keep = !rc && sh ? malloc(n * sizeof *keep) : NULL;
	if (keep) {
		memcpy(keep, fn, n * sizeof *keep);
		free(t->last_cols.fn), free(t->last_cols.share);
		t->last_cols.fn = keep;
		t->last_cols.share = sh;
		t->last_cols.t0 = t0, t->last_cols.t1 = t1, t->last_cols.n = n;
	} else {
		free(sh);
	}
	return rc;
}

int vw_hotcode_file_columns(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n, int *fn,
			    double *share)
{
	return hc_columns(an, file, t0, t1, n, fn, share);
}

size_t vw_hotcode_callers(vw_an *an, size_t fn, vw_hot *out, size_t max)
{
	hc_tab *t = hc_get(an);
	if (!t || fn >= t->fn.n || !t->nedges)
		return 0;
	vw_hot *c = calloc(t->fn.n + 1, sizeof *c);
	size_t k = 0;
	uint64_t all = 0;
	if (!c)
		return 0;
	for (size_t e = 0; e < t->nedges; e++) {
		if (t->fn.of_loc[t->edges[e].loc] != fn)
			continue;
		uint32_t g = t->fn.of_loc[t->edges[e].caller];
		c[g].samples += t->edges[e].count;
		all += t->edges[e].count;
	}
	for (size_t g = 0; g < t->fn.n; g++)
		if (c[g].samples)
			c[k++] = (vw_hot){g, (double)c[g].samples / (double)all, c[g].samples, "", 0, ""};
	if (k) /* an empty array may be NULL */
		qsort(c, k, sizeof *c, hc_by_samples);
	k = k < max ? k : max;
	memcpy(out, c, k * sizeof *out);
	free(c);
	return k;
}

size_t vw_hotcode_regions(vw_an *an, size_t max)
{
	hc_tab *t = hc_get(an);
	if (!t)
		return 0;
	/* a region with under 1 % of the samples cannot mark a phase */
	uint64_t all = 0;
	for (size_t r = 0; r < t->reg.n; r++)
		all += t->reg.total[r];
	size_t k = 0;
	while (k < t->reg.n && k < max && t->reg.total[k] * 100 >= all)
		k++;
	return k;
}

const char *vw_hotcode_region_name(vw_an *an, size_t r)
{
	hc_tab *t = hc_get(an);
	return t && r < t->reg.n ? t->reg.name[r] : "code:?";
}

/* Samples per second over [a, b) in n buckets, in threads, of file's
 * locations (SIZE_MAX: every file's) in region key (by_class 0) or of
 * class key (by_class 1); out zeroed first.  0, or -1 without a profile. */
static int hc_rate(vw_an *an, size_t file, int by_class, uint32_t key, int64_t a, int64_t b,
		   size_t n, double *out)
{
	hc_tab *t = hc_get(an);
	for (size_t i = 0; i < n; i++)
		out[i] = 0;
	if (!t || key >= (by_class ? (uint32_t)VW_CC_N : t->reg.n) || b <= a || !n)
		return -1;
	double w = (double)(b - a) / (double)n;
	hc_walk wk = hc_walk_from(an, t, file, a);
	int64_t mid;
	const hc_hit *hs;
	size_t nh;
	while (hc_walk_next(&wk, b, &mid, &hs, &nh)) {
		size_t col = (size_t)(((double)mid - (double)a) / w);
		col = col < n ? col : n - 1;
		for (size_t h = 0; h < nh; h++) {
			uint32_t l = wk.base + hs[h].loc;
			if ((by_class ? t->cls[l] : t->reg.of_loc[l]) == key)
				out[col] += hs[h].count;
		}
	}
	/* per second of the bucket, in threads: samples / (seconds x hz) */
	double norm = w * 1e-9 * t->hz;
	for (size_t i = 0; i < n; i++)
		out[i] = norm > 0 ? out[i] / norm : 0;
	return 0;
}

int vw_hotcode_region_rate(vw_an *an, size_t r, int64_t a, int64_t b, size_t n, double *out)
{
	return hc_rate(an, SIZE_MAX, 0, r > UINT32_MAX ? UINT32_MAX : (uint32_t)r, a, b, n, out);
}

/* ---- work, MPI and sync (codeclass.h) ------------------------------------------ */

double vw_hotcode_file_period(vw_model *m, size_t file)
{
	const mcz_code *c = file < m->nfiles ? vw_model_code_at(m, file, NULL) : NULL;
	return c && c->nhits ? (double)(c->period ? c->period : 1000000) / 1e9 : 0;
}

uint64_t vw_hotcode_file_classes(vw_an *an, size_t file, int64_t t0, int64_t t1,
				 uint64_t n[VW_CC_N])
{
	hc_tab *t = hc_get(an);
	uint64_t all = 0;
	for (int k = 0; k < VW_CC_N; k++)
		n[k] = 0;
	if (!t || t1 <= t0)
		return 0;
	hc_walk w = hc_walk_from(an, t, file, t0);
	int64_t mid;
	const hc_hit *hs;
	size_t nh;
	while (hc_walk_next(&w, t1, &mid, &hs, &nh))
		for (size_t h = 0; h < nh; h++) {
			n[t->cls[w.base + hs[h].loc]] += hs[h].count;
			all += hs[h].count;
		}
	return all;
}

size_t vw_hotcode_file_threads(vw_an *an, size_t file, int64_t t0, int64_t t1, uint64_t *n,
			       size_t max)
{
	vw_model *m = an->m;
	hc_tab *t = hc_get(an);
	int64_t off = 0;
	const mcz_code *c = t && file < t->nfiles && t->fbase[file] != UINT32_MAX
				    ? vw_model_code_at(m, file, &off)
				    : NULL;
	if (!c || !c->nthreads || t1 <= t0)
		return 0;
	size_t nt = c->nthreads < max ? c->nthreads : max;
	memset(n, 0, nt * VW_CC_N * sizeof *n);
	/* the thits are in interval order: the first interval whose middle is
	 * at or after t0, then on to t1 */
	size_t lo = 0, hi = c->nthits;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (vw_hotcode_mid(c, c->thits[mid].interval, off) < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t base = t->fbase[file];
	for (size_t h = lo; h < c->nthits && vw_hotcode_mid(c, c->thits[h].interval, off) < t1; h++) {
		const mcz_code_thit *x = &c->thits[h];
		if (x->thread < nt)
			n[x->thread * VW_CC_N + t->cls[base + x->loc]] += x->count;
	}
	return nt;
}

int vw_hotcode_file_class_kept(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n)
{
	hc_tab *t = hc_get(an);
	const hc_cls_memo *last = !t || n < 2 ? NULL : file == SIZE_MAX ? &t->last_cls
						     : file < t->nfcls ? &t->last_fcls[file] : NULL;
	return last && last->cnt && last->t0 == t0 && last->t1 == t1 && last->n == n;
}

/* Every file's class counts of the merged table's intervals [0, i) into
 * out[VW_CC_N]: the checkpoint before i, and the intervals after it. */
static void hc_cls_before(const hc_tab *t, size_t i, uint64_t *out)
{
	size_t k = i / HC_CK;
	memcpy(out, t->ck + k * VW_CC_N, VW_CC_N * sizeof *out);
	for (size_t j = k * HC_CK; j < i; j++)
		for (size_t h = t->first[j]; h < t->first[j + 1]; h++)
			out[t->cls[t->hits[h].loc]] += t->hits[h].count;
}

/* The checkpoints of every file's class counts (one pass over the hits);
 * 0, or -1 without them. */
static int hc_cls_checkpoints(vw_model *m, hc_tab *t)
{
	if (t->ck)
		return 0;
	if (hc_timed(m, t) != 0 || !(t->ck = calloc((t->niv / HC_CK + 1) * VW_CC_N, sizeof *t->ck)))
		return -1;
	uint64_t run[VW_CC_N] = {0};
	for (size_t j = 0; j < t->niv; j++) {
		if (j % HC_CK == 0)
			memcpy(t->ck + j / HC_CK * VW_CC_N, run, sizeof run);
		for (size_t h = t->first[j]; h < t->first[j + 1]; h++)
			run[t->cls[t->hits[h].loc]] += t->hits[h].count;
	}
	if (t->niv % HC_CK == 0)
		memcpy(t->ck + t->niv / HC_CK * VW_CC_N, run, sizeof run);
	return 0;
}

/* Every file's class columns from the checkpoints: each column's counts
 * are the difference of the counts before its first and past its last
 * interval, the intervals placed in columns by their middles as a walk
 * places them (the same arithmetic, monotone in the middle). */
static void hc_cls_columns_all(const hc_tab *t, int64_t t0, int64_t t1, size_t n, uint32_t *cnt)
{
	double w = (double)(t1 - t0) / (double)n;
	size_t at = hc_first(t, t0), end = hc_first(t, t1);
	uint64_t prev[VW_CC_N], cur[VW_CC_N];
	hc_cls_before(t, at, prev);
	for (size_t col = 0; col < n && at < end; col++) {
		/* the first interval of a later column */
		size_t lo = at, hi = end;
		while (col + 1 < n && lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			size_t c = (size_t)(((double)t->mid[mid] - (double)t0) / w);
			if (c <= col)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t past = col + 1 < n ? lo : end;
		if (past == at)
			continue;
		hc_cls_before(t, past, cur);
		for (int k = 0; k < VW_CC_N; k++)
			cnt[col * VW_CC_N + k] = (uint32_t)(cur[k] - prev[k]);
		memcpy(prev, cur, sizeof prev);
		at = past;
	}
}

int vw_hotcode_file_class_columns(vw_an *an, size_t file, int64_t t0, int64_t t1, size_t n,
				  uint32_t *cnt)
{
	hc_tab *t = hc_get(an);
	memset(cnt, 0, n * VW_CC_N * sizeof *cnt);
	if (!t || t1 <= t0 || !n)
		return t ? 0 : -1;
	int all = file == SIZE_MAX;
	if (!all && !t->last_fcls && an->m->nfiles &&
	    (t->last_fcls = calloc(an->m->nfiles, sizeof *t->last_fcls)))
		t->nfcls = an->m->nfiles;
	/* one column is a readout's (another window every frame): not kept,
	 * so that it does not push out the row's columns */
	hc_cls_memo *last = n < 2 ? NULL : all ? &t->last_cls : file < t->nfcls ? &t->last_fcls[file] : NULL;
	if (last && last->cnt && last->t0 == t0 && last->t1 == t1 && last->n == n) {
		memcpy(cnt, last->cnt, n * VW_CC_N * sizeof *cnt);
		return 0;
	}
	if (all && hc_cls_checkpoints(an->m, t) == 0) {
		hc_cls_columns_all(t, t0, t1, n, cnt);
	} else {
		double w = (double)(t1 - t0) / (double)n;
		hc_walk wk = hc_walk_from(an, t, file, t0);
		int64_t mid;
		const hc_hit *hs;
		size_t nh;
		while (hc_walk_next(&wk, t1, &mid, &hs, &nh)) {
			size_t col = (size_t)(((double)mid - (double)t0) / w);
			col = col < n ? col : n - 1;
			for (size_t h = 0; h < nh; h++)
				cnt[col * VW_CC_N + t->cls[wk.base + hs[h].loc]] += hs[h].count;
		}
	}
	uint32_t *keep = last ? realloc(last->cnt, n * VW_CC_N * sizeof *keep) : NULL;
	if (keep) {
		memcpy(keep, cnt, n * VW_CC_N * sizeof *keep);
		last->cnt = keep;
		last->t0 = t0, last->t1 = t1, last->n = n;
	}
	return 0;
}

/* The work samples of [t0, t1) per key: fk[function] for a named
 * function, rk[region] for code no symbol names (regions name DWARF
 * functions; else 256-byte blocks).  The total, or 0. */
static uint64_t hc_work_keys(vw_an *an, hc_tab *t, int64_t t0, int64_t t1, uint64_t *fk,
			     uint64_t *rk)
{
	uint64_t *lc = calloc(t->nlocs + 1, sizeof *lc), all = 0;
	if (!lc)
		return 0;
	hc_walk w = hc_walk_from(an, t, SIZE_MAX, t0);
	int64_t mid;
	const hc_hit *hs;
	size_t nh;
	while (hc_walk_next(&w, t1, &mid, &hs, &nh))
		for (size_t h = 0; h < nh; h++)
			if (t->cls[hs[h].loc] == VW_CC_WORK)
				lc[hs[h].loc] += hs[h].count;
	for (size_t l = 0; l < t->nlocs; l++) {
		if (!lc[l])
			continue;
		all += lc[l];
		if (t->loc[l]->function[0])
			fk[t->fn.of_loc[l]] += lc[l];
		else
			rk[t->reg.of_loc[l]] += lc[l];
	}
	free(lc);
	return all;
}

int vw_hotcode_top_code(vw_an *an, int64_t t0, int64_t t1, char *buf, size_t len,
			double *share)
{
	hc_tab *t = hc_get(an);
	buf[0] = '\0';
	*share = 0;
	if (!t || t1 <= t0)
		return -1;
	uint64_t *fk = calloc(t->fn.n + 1, sizeof *fk), *rk = calloc(t->reg.n + 1, sizeof *rk);
	uint64_t all = fk && rk ? hc_work_keys(an, t, t0, t1, fk, rk) : 0, best = 0;
	for (size_t f = 0; all && f < t->fn.n; f++)
		if (fk[f] > best) {
			best = fk[f];
			snprintf(buf, len, "%s", t->fn.name[f]);
		}
	for (size_t r = 0; all && r < t->reg.n; r++)
		if (rk[r] > best) {
			best = rk[r];
			snprintf(buf, len, "%s", t->reg.name[r]);
		}
	*share = all ? (double)best / (double)all : 0;
	free(fk), free(rk);
	return best ? 0 : -1;
}

/* The object part of a region's name ("code:hpcc" of "code:hpcc+0x19c00"). */
static size_t hc_region_obj_len(const char *name)
{
	const char *plus = strrchr(name, '+');
	return plus ? (size_t)(plus - name) : strlen(name);
}

static int hc_region_obj_cmp(const void *x, const void *y, void *tab)
{
	const hc_tab *t = tab;
	const char *a = t->reg.name[*(const size_t *)x];
	const char *b = t->reg.name[*(const size_t *)y];
	size_t la = hc_region_obj_len(a), lb = hc_region_obj_len(b);
	int c = strncmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

double vw_hotcode_work_overlap(vw_an *an, int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	hc_tab *t = hc_get(an);
	if (!t || a1 <= a0 || b1 <= b0)
		return -1;
	size_t nf = t->fn.n, nr = t->reg.n;
	uint64_t *ka = calloc(nf + nr + 2, sizeof *ka), *kb = calloc(nf + nr + 2, sizeof *kb);
	size_t *ord = malloc((nr + 1) * sizeof *ord);
	double ov = -1;
	if (ka && kb && ord) {
		uint64_t na = hc_work_keys(an, t, a0, a1, ka, ka + nf + 1);
		uint64_t nb = hc_work_keys(an, t, b0, b1, kb, kb + nf + 1);
		if (na && nb) {
			ov = 0;
			for (size_t k = 0; k < nf; k++)
				ov += fmin((double)ka[k] / (double)na, (double)kb[k] / (double)nb);
			/* code without symbols by its object, as people read it
			 * ("hpcc (no symbols)"): its 256-byte regions are finer than
			 * a step of the application (an update loop and its check) */
			for (size_t r = 0; r < nr; r++)
				ord[r] = r;
			qsort_r(ord, nr, sizeof *ord, hc_region_obj_cmp, t);
			for (size_t i = 0; i < nr;) {
				uint64_t sa = 0, sb = 0;
				size_t j = i;
				for (; j < nr && hc_region_obj_cmp(&ord[i], &ord[j], t) == 0; j++) {
					sa += ka[nf + 1 + ord[j]];
					sb += kb[nf + 1 + ord[j]];
				}
				ov += fmin((double)sa / (double)na, (double)sb / (double)nb);
				i = j;
			}
		}
	}
	free(ka), free(kb), free(ord);
	return ov;
}

void vw_hotcode_busy_code(vw_an *an, int64_t t0, int64_t t1, char *buf, size_t len)
{
	double share;
	if (vw_hotcode_threads(an, t0, t1) < 0.2 ||
	    vw_hotcode_top_code(an, t0, t1, buf, len, &share) || share < 0.2)
		buf[0] = '\0';
}

int vw_hotcode_file_class_rate(vw_an *an, size_t file, int cls, int64_t a, int64_t b, size_t n,
			       double *out)
{
	return hc_rate(an, file, 1, cls < 0 ? UINT32_MAX : (uint32_t)cls, a, b, n, out);
}

int vw_hotcode_fn_class(vw_an *an, size_t fn)
{
	hc_tab *t = hc_get(an);
	return t && fn < t->fn.n ? t->fn_cls[fn] : VW_CC_WORK;
}

const char *vw_hotcode_class_note(vw_an *an)
{
	hc_tab *t = hc_get(an);
	return t ? t->cls_note : "";
}
