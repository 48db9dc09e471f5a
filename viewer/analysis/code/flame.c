/* flame.c: a span's call stacks as one tree of named frames (flame.h):
 * each file's frames with samples mapped onto nodes keyed by (caller
 * node, name), totals summed up from the leaves, siblings ordered by
 * samples; the layout of a zoomed tree across a width, and the search. */
#include <stdlib.h>
#include <string.h>

#include "codeclass.h"
#include "flame.h"
#include "stacktab.h"

/* Nodes by (parent, name): open addressing over node indexes. */
typedef struct fl_map {
	uint32_t *slot;
	size_t n; /* a power of two */
} fl_map;

static uint64_t fl_key(uint32_t parent, uint32_t name)
{
	uint64_t k = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;
	return k ^ k >> 29;
}

typedef struct fl_build {
	vw_flame *fl;
	size_t cap;
	fl_map map;
} fl_build;

static int fl_grow_map(fl_build *b)
{
	size_t ns = b->map.n ? 2 * b->map.n : 1024;
	uint32_t *sl = malloc(ns * sizeof *sl);
	if (!sl)
		return -1;
	memset(sl, 0xff, ns * sizeof *sl);
	for (size_t i = 1; i < b->fl->n; i++) {
		size_t k = fl_key(b->fl->v[i].parent, b->fl->v[i].name) & (ns - 1);
		while (sl[k] != VW_FLAME_NONE)
			k = (k + 1) & (ns - 1);
		sl[k] = (uint32_t)i;
	}
	free(b->map.slot);
	b->map.slot = sl;
	b->map.n = ns;
	return 0;
}

/* The child of parent named name, made when new; VW_FLAME_NONE: no memory. */
static uint32_t fl_child(fl_build *b, uint32_t parent, uint32_t name, int cls)
{
	vw_flame *fl = b->fl;
	if ((2 * (fl->n + 1) > b->map.n && fl_grow_map(b)) || fl->n >= UINT32_MAX - 1)
		return VW_FLAME_NONE;
	size_t k = fl_key(parent, name) & (b->map.n - 1);
	for (; b->map.slot[k] != VW_FLAME_NONE; k = (k + 1) & (b->map.n - 1)) {
		vw_flame_node *x = &fl->v[b->map.slot[k]];
		if (x->parent == parent && x->name == name) {
			if (x->cls == VW_CC_WORK) /* one name, two classes: the waiting shows */
				x->cls = (uint8_t)cls;
			return b->map.slot[k];
		}
	}
	if (fl->n == b->cap) {
		size_t nc = 2 * b->cap;
		vw_flame_node *nv = realloc(fl->v, nc * sizeof *nv);
		if (!nv)
			return VW_FLAME_NONE;
		fl->v = nv, b->cap = nc;
	}
	uint32_t id = (uint32_t)fl->n++;
	fl->v[id] = (vw_flame_node){name, parent, VW_FLAME_NONE, VW_FLAME_NONE,
				    fl->v[parent].depth + 1, (uint8_t)cls, 0, 0};
	if (fl->v[id].depth > fl->maxdepth)
		fl->maxdepth = fl->v[id].depth;
	b->map.slot[k] = id;
	return id;
}

/* File f's stacks of the span added to the tree. */
static int fl_file(fl_build *b, const vw_stacktab *st, size_t f, size_t thread, int64_t t0,
		   int64_t t1)
{
	const vw_stk_file *sf = &st->f[f];
	const mcz_code *c = sf->c;
	size_t a, e;
	vw_stacktab_span(st, f, t0, t1, &a, &e);
	if (a == e)
		return 0;
	uint64_t *cnt = calloc(c->nframes, sizeof *cnt), *tot = calloc(c->nframes, sizeof *tot);
	uint32_t *node = malloc(c->nframes * sizeof *node);
	int rc = -1;
	if (!cnt || !tot || !node)
		goto out;
	for (size_t i = a; i < e; i++)
		if (thread == SIZE_MAX || c->stackhits[i].thread == thread)
			cnt[c->stackhits[i].frame] += c->stackhits[i].count;
	/* children after parents: the frames with samples below them, leaves up */
	for (size_t i = c->nframes; i-- > 0;) {
		tot[i] += cnt[i];
		uint32_t p = c->frames[i].parent;
		if (tot[i] && p < i)
			tot[p] += tot[i];
	}
	for (size_t i = 0; i < c->nframes; i++) {
		node[i] = VW_FLAME_NONE;
		if (!tot[i])
			continue;
		uint32_t p = c->frames[i].parent, l = c->frames[i].loc;
		uint32_t at = p < i ? node[p] : 0;
		for (uint32_t k = sf->lfirst[l]; k < sf->lfirst[l + 1]; k++)
			if ((at = fl_child(b, at, sf->lnames[k], sf->cls[i])) == VW_FLAME_NONE)
				goto out;
		node[i] = at;
		b->fl->v[at].self += cnt[i];
	}
	rc = 0;
out:
	free(cnt), free(tot), free(node);
	return rc;
}

static const vw_flame *fl_sorting; /* qsort has no context argument */

static int fl_by_place(const void *x, const void *y)
{
	const vw_flame_node *a = &fl_sorting->v[*(const uint32_t *)x];
	const vw_flame_node *b = &fl_sorting->v[*(const uint32_t *)y];
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(vw_flame_name(fl_sorting, *(const uint32_t *)x),
		      vw_flame_name(fl_sorting, *(const uint32_t *)y));
}

/* Totals from the leaves up, then each node's children linked in order. */
static int fl_finish(vw_flame *fl)
{
	for (size_t i = fl->n; i-- > 0;) {
		fl->v[i].total += fl->v[i].self;
		if (i)
			fl->v[fl->v[i].parent].total += fl->v[i].total;
	}
	if (fl->n < 2)
		return 0;
	uint32_t *o = malloc((fl->n - 1) * sizeof *o);
	if (!o)
		return -1;
	for (size_t i = 1; i < fl->n; i++)
		o[i - 1] = (uint32_t)i;
	fl_sorting = fl;
	qsort(o, fl->n - 1, sizeof *o, fl_by_place);
	for (size_t i = fl->n - 1; i-- > 0;) {
		vw_flame_node *x = &fl->v[o[i]];
		x->next = fl->v[x->parent].child;
		fl->v[x->parent].child = o[i];
	}
	free(o);
	return 0;
}

int vw_flame_build(vw_an *an, size_t file, size_t thread, int64_t t0, int64_t t1, vw_flame *fl)
{
	memset(fl, 0, sizeof *fl);
	const vw_stacktab *st = vw_stacktab_get(an);
	if (!st)
		return -1;
	fl_build b = {fl, 256, {NULL, 0}};
	if (!(fl->v = malloc(b.cap * sizeof *fl->v)))
		return -1;
	fl->v[0] = (vw_flame_node){VW_FLAME_NONE, VW_FLAME_NONE, VW_FLAME_NONE, VW_FLAME_NONE,
				   0, VW_CC_WORK, 0, 0};
	fl->n = 1;
	fl->st = st;
	for (size_t f = 0; f < st->nfiles; f++)
		if (st->f[f].c && (file == SIZE_MAX || f == file) &&
		    fl_file(&b, st, f, thread, t0, t1)) {
			free(b.map.slot);
			vw_flame_free(fl);
			return -1;
		}
	free(b.map.slot);
	if (fl_finish(fl)) {
		vw_flame_free(fl);
		return -1;
	}
	return 0;
}

void vw_flame_free(vw_flame *fl)
{
	free(fl->v);
	memset(fl, 0, sizeof *fl);
}

const char *vw_flame_name(const vw_flame *fl, uint32_t k)
{
	if (k >= fl->n || fl->v[k].name == VW_FLAME_NONE)
		return "all";
	return vw_stacktab_name(fl->st, fl->v[k].name);
}

int vw_flame_within(const vw_flame *fl, uint32_t k, uint32_t a)
{
	for (; k < fl->n; k = fl->v[k].parent)
		if (k == a)
			return 1;
	return 0;
}

void vw_flame_layout(const vw_flame *fl, uint32_t zoom, int w, int *x0, int *x1)
{
	uint64_t *s0 = malloc((fl->n ? fl->n : 1) * sizeof *s0);
	for (size_t i = 0; i < fl->n; i++)
		x0[i] = x1[i] = -1;
	if (!s0 || zoom >= fl->n) {
		free(s0);
		return;
	}
	for (uint32_t k = zoom; k < fl->n; k = fl->v[k].parent)
		x0[k] = 0, x1[k] = w;
	uint64_t z = fl->v[zoom].total;
	s0[zoom] = 0;
	/* parents before children: each child placed after its elder siblings */
	for (size_t p = zoom; p < fl->n; p++) {
		if (x0[p] < 0) /* outside the subtree (its callers come before zoom) */
			continue;
		uint64_t at = s0[p];
		for (uint32_t c = fl->v[p].child; c != VW_FLAME_NONE; c = fl->v[c].next) {
			s0[c] = at;
			x0[c] = z ? (int)((double)at * w / (double)z) : 0;
			at += fl->v[c].total;
			x1[c] = z ? (int)((double)at * w / (double)z) : 0;
		}
	}
	free(s0);
}

uint64_t vw_flame_search(const vw_flame *fl, const char *pat, uint8_t *mark)
{
	uint64_t n = 0;
	for (size_t k = 0; k < fl->n; k++) {
		mark[k] = k && pat[0] && strcasestr(vw_flame_name(fl, (uint32_t)k), pat);
		int under = 0; /* a match under a match: its samples counted there */
		for (uint32_t a = fl->v[k].parent; mark[k] && a < fl->n && !under; a = fl->v[a].parent)
			under = mark[a];
		if (mark[k] && !under)
			n += fl->v[k].total;
	}
	return n;
}

uint32_t vw_flame_child_named(const vw_flame *fl, uint32_t k, uint32_t name)
{
	if (k >= fl->n)
		return VW_FLAME_NONE;
	for (uint32_t c = fl->v[k].child; c != VW_FLAME_NONE; c = fl->v[c].next)
		if (fl->v[c].name == name)
			return c;
	return VW_FLAME_NONE;
}
