/* topo-layout.c: the geometry of the topology sunburst (and of its icicle,
 * which uses the same numbers as fractions of its width): one ring per level
 * of the tree below the zoom root, the root itself as the centre disc, each
 * child's arc its parent's arc split in proportion to a weight (leaves, or
 * the colouring metric), siblings in table order.  Pure: no canvas, no model.
 *
 *     topo_layout L;
 *     topo_layout_build(&L, &tree, root, tree.leafw);
 *     int32_t s = topo_layout_at(&L, 2, 0.25);    // segment at 3 o'clock, ring 2
 *     int32_t up = topo_layout_move(&L, &tree, obj, 0, 1);   // its parent
 *     topo_layout_free(&L);
 *
 * The table lists parents before children, so one pass in index order over
 * the subtree places every object after its parent (no recursion: a hostile
 * file's million-deep chain costs a loop, not the stack).
 */
#include "topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void topo_layout_free(topo_layout *L)
{
	free(L->seg);
	free(L->ring_off);
	free(L->seg_of);
	free(L->arc);
	free(L->arc_off);
	memset(L, 0, sizeof *L);
}

/* A drawn segment at or below object o (through hidden objects), or -1. */
static int32_t topo_layout_below_drawn(const topo_layout *L, const topo_tree *t, int32_t o)
{
	while (L->seg_of[o] < 0 && t->hidden[o] && t->child_off[o + 1] - t->child_off[o] == 1)
		o = t->child[t->child_off[o]];
	return L->seg_of[o];
}

static int topo_layout_arc_cmp(const void *pa, const void *pb)
{
	const topo_arc *a = pa, *b = pb;
	return (a->a0 > b->a0) - (a->a0 < b->a0);
}

/* A leaf stops at its ring in the tree but is drawn out to the rim: a GPU
 * on a package is one ring deep, the PUs beside it five; as a stub it would
 * be a sliver near the centre, as a wedge it has the area its arc deserves.
 * Past a budget (a hostile table of many shallow leaves beside one deep
 * chain) leaves stay stubs. */
#define TOPO_LAYOUT_MAX_ARCS (1u << 22)

static int topo_layout_arcs(topo_layout *L, const topo_tree *t)
{
	size_t total = 0;
	for (size_t s = 0; s < L->nseg; s++) {
		topo_seg *g = &L->seg[s];
		int32_t o = g->node;
		int leaf = 1;
		for (uint32_t k = t->child_off[o]; leaf && k < t->child_off[o + 1]; k++)
			leaf = topo_layout_below_drawn(L, t, t->child[k]) < 0;
		g->ring_out = leaf && g->ring > 0 ? L->nrings : g->ring + 1;
		total += (size_t)(g->ring_out - g->ring);
	}
	if (total > TOPO_LAYOUT_MAX_ARCS) {
		total = L->nseg;
		for (size_t s = 0; s < L->nseg; s++)
			L->seg[s].ring_out = L->seg[s].ring + 1;
	}
	L->arc = malloc((total ? total : 1) * sizeof *L->arc);
	L->arc_off = calloc((size_t)L->nrings + 1, sizeof *L->arc_off);
	uint32_t *fill = calloc((size_t)L->nrings + 1, sizeof *fill);
	if (!L->arc || !L->arc_off || !fill) {
		free(fill);
		return MCZ_E_NOMEM;
	}
	for (size_t s = 0; s < L->nseg; s++)
		for (int r = L->seg[s].ring; r < L->seg[s].ring_out; r++)
			L->arc_off[r + 1]++;
	for (int r = 0; r < L->nrings; r++)
		L->arc_off[r + 1] += L->arc_off[r];
	for (size_t s = 0; s < L->nseg; s++)
		for (int r = L->seg[s].ring; r < L->seg[s].ring_out; r++)
			L->arc[L->arc_off[r] + fill[r]++] =
				(topo_arc){L->seg[s].a0, L->seg[s].a1, (int32_t)s};
	free(fill);
	for (int r = 0; r < L->nrings; r++)
		qsort(L->arc + L->arc_off[r], L->arc_off[r + 1] - L->arc_off[r], sizeof *L->arc,
		      topo_layout_arc_cmp);
	return MCZ_OK;
}

static int topo_layout_cmp(const void *pa, const void *pb)
{
	const topo_seg *a = pa, *b = pb;
	if (a->ring != b->ring)
		return a->ring < b->ring ? -1 : 1;
	if (a->a0 != b->a0)
		return a->a0 < b->a0 ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

static double topo_layout_w(const double *w, int32_t i)
{
	return isnan(w[i]) || w[i] <= 0 ? 0 : w[i];
}

int topo_layout_build(topo_layout *L, const topo_tree *t, int32_t root, const double *weight)
{
	size_t n = t->n;

	memset(L, 0, sizeof *L);
	if (root < 0 || (size_t)root >= n)
		return MCZ_E_ARG;
	double *a0 = malloc(n * sizeof *a0), *a1 = malloc(n * sizeof *a1);
	int *ring = malloc(n * sizeof *ring);
	L->seg_of = malloc(n * sizeof *L->seg_of);
	L->seg = malloc(n * sizeof *L->seg);
	if (!a0 || !a1 || !ring || !L->seg_of || !L->seg) {
		free(a0), free(a1), free(ring);
		topo_layout_free(L);
		return MCZ_E_NOMEM;
	}
	/* the metric may weigh nothing at all (an idle window): then by leaves */
	double rootw = 0;
	for (uint32_t k = t->child_off[root]; k < t->child_off[root + 1]; k++)
		rootw += topo_layout_w(weight, t->child[k]);
	if (rootw <= 0)
		weight = t->leafw;

	for (size_t i = 0; i < n; i++) {
		L->seg_of[i] = -1;
		a0[i] = a1[i] = -1;
	}
	a0[root] = 0;
	a1[root] = 1;
	ring[root] = 0;
	int maxring = 0;
	for (size_t i = (size_t)root; i < n; i++) {
		if (a0[i] < 0 || a1[i] <= a0[i])
			continue; /* outside the subtree, or no arc */
		int drawn = (int32_t)i == root || !t->hidden[i];
		if (drawn) {
			L->seg_of[i] = (int32_t)L->nseg;
			L->seg[L->nseg++] = (topo_seg){(int32_t)i, ring[i], ring[i] + 1, a0[i], a1[i]};
			if (ring[i] > maxring)
				maxring = ring[i];
		}
		double sum = 0;
		for (uint32_t k = t->child_off[i]; k < t->child_off[i + 1]; k++)
			sum += topo_layout_w(weight, t->child[k]);
		double at = a0[i], span = a1[i] - a0[i], acc = 0;
		for (uint32_t k = t->child_off[i]; sum > 0 && k < t->child_off[i + 1]; k++) {
			int32_t c = t->child[k];
			acc += topo_layout_w(weight, c);
			a0[c] = at;
			/* from the running sum, so the last child ends exactly at a1 */
			a1[c] = a0[i] + span * (acc / sum);
			at = a1[c];
			ring[c] = drawn ? ring[i] + 1 : ring[i];
		}
	}
	free(a0), free(a1), free(ring);

	qsort(L->seg, L->nseg, sizeof *L->seg, topo_layout_cmp);
	L->nrings = maxring + 1;
	L->ring_off = calloc((size_t)L->nrings + 1, sizeof *L->ring_off);
	if (!L->ring_off) {
		topo_layout_free(L);
		return MCZ_E_NOMEM;
	}
	for (size_t s = 0; s < L->nseg; s++) {
		L->ring_off[L->seg[s].ring + 1]++;
		L->seg_of[L->seg[s].node] = (int32_t)s;
	}
	for (int r = 0; r < L->nrings; r++)
		L->ring_off[r + 1] += L->ring_off[r];
	L->root = root;
	if (topo_layout_arcs(L, t) != MCZ_OK) {
		topo_layout_free(L);
		return MCZ_E_NOMEM;
	}
	return MCZ_OK;
}

int32_t topo_layout_at(const topo_layout *L, int ring, double a)
{
	if (ring < 0 || ring >= L->nrings)
		return -1;
	uint32_t lo = L->arc_off[ring], hi = L->arc_off[ring + 1];
	while (lo < hi) { /* first arc with a1 > a */
		uint32_t mid = lo + (hi - lo) / 2;
		if (L->arc[mid].a1 <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < L->arc_off[ring + 1] && L->arc[lo].a0 <= a)
		return L->arc[lo].seg;
	return -1;
}

/* Is a an ancestor of (or equal to) b? */
static int topo_layout_below(const topo_tree *t, int32_t a, int32_t b)
{
	for (; b >= 0; b = t->objs[b].parent)
		if (b == a)
			return 1;
	return 0;
}

int32_t topo_layout_move(const topo_layout *L, const topo_tree *t, int32_t obj, int dir,
			 int wrap)
{
	if (obj < 0 || (size_t)obj >= t->n || L->seg_of[obj] < 0)
		return -1;
	const topo_seg *s = &L->seg[L->seg_of[obj]];
	if (dir == 0) {
		if (obj == L->root)
			return -1;
		int32_t p = topo_tree_parent(t, obj);
		while (p >= 0 && L->seg_of[p] < 0)
			p = topo_tree_parent(t, p);
		return p;
	}
	if (dir == 2) {
		if (s->ring + 1 >= L->nrings)
			return -1;
		for (uint32_t k = L->ring_off[s->ring + 1]; k < L->ring_off[s->ring + 2]; k++)
			if (L->seg[k].a0 >= s->a0 && topo_layout_below(t, obj, L->seg[k].node))
				return L->seg[k].node;
		return -1;
	}
	int64_t lo = L->ring_off[s->ring], hi = L->ring_off[s->ring + 1];
	int64_t k = (int64_t)L->seg_of[obj] + (dir < 0 ? -1 : 1);
	if (k < lo)
		k = wrap ? hi - 1 : -1;
	else if (k >= hi)
		k = wrap ? lo : -1;
	return k < 0 || k == L->seg_of[obj] ? -1 : L->seg[k].node;
}

void topo_layout_levels(const topo_layout *L, size_t n, const double *v, int per_ring,
			double fixed_max, double *level, double *maxv)
{
	double lo = 0, hi_all = -INFINITY;
	double *hi = calloc((size_t)L->nrings + 1, sizeof *hi);

	for (size_t i = 0; i < n; i++)
		level[i] = NAN;
	if (!hi)
		return;
	for (int r = 0; r < L->nrings; r++)
		hi[r] = -INFINITY;
	for (size_t s = 0; s < L->nseg; s++) {
		double x = v[L->seg[s].node];
		if (isnan(x))
			continue;
		hi[L->seg[s].ring] = fmax(hi[L->seg[s].ring], x);
		hi_all = fmax(hi_all, x);
		lo = fmin(lo, x);
	}
	for (int r = 0; maxv && r < L->nrings; r++)
		maxv[r] = isinf(hi[r]) ? NAN : hi[r];
	for (size_t s = 0; s < L->nseg; s++) {
		double x = v[L->seg[s].node];
		double top = fixed_max > 0 ? fixed_max : per_ring ? hi[L->seg[s].ring] : hi_all;
		if (isnan(x))
			continue;
		double l = top > lo ? (x - lo) / (top - lo) : 0;
		level[L->seg[s].node] = l < 0 ? 0 : l > 1 ? 1 : l;
	}
	free(hi);
}
