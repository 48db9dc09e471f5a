/* topo.h: the topology view's pure core, inside the viewer: the display tree
 * built from a recording's topology table, values aggregated up that tree,
 * and the sunburst / icicle geometry.  Only format/mcz.h types: no model, no
 * canvas.  topo-draw.h draws it, topo-metric.h computes values from the
 * model, view-topology.c joins them.
 *
 *     topo_tree t;
 *     topo_tree_build(&t, objs, n);                  // from mcz_topo(r, i)
 *     double *v = ...;                               // own value per object, NaN = none
 *     topo_tree_aggregate(&t, v, NULL, TOPO_AGG_SUM, agg);
 *     topo_layout L;
 *     topo_layout_build(&L, &t, root, t.leafw);      // span by leaves (or by agg)
 *     topo_render_opts ro = {...};
 *     topo_render(c, x, y, w, h, &t, &L, &ro);       // sunburst or icicle
 *     topo_layout_free(&L); topo_tree_free(&t);
 *
 * Angles are in turns ([0, 1), clockwise from 12 o'clock); the icicle uses the
 * same numbers as fractions of its width, so one layout serves both.
 */
#ifndef VW_TOPO_H
#define VW_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "../../../format/mcz.h"

/* ---- topo-tree.c: the display tree and aggregation ---------------------- */

typedef struct topo_tree {
	size_t n;
	const mcz_topo_obj *objs; /* borrowed: the reader's table */
	uint32_t *child_off;      /* children of i: child[child_off[i] .. child_off[i+1]) */
	int32_t *child;
	uint8_t *hidden;          /* 1: private L1/L2 with one child, not a ring of its own */
	double *leafw;            /* span weight: leaves 1 (devices more, see topo-tree.c), summed up */
	int npu, ndev;
} topo_tree;

/* Fails (MCZ_E_CORRUPT) on a table that is not a tree with parents first and
 * one root at 0, MCZ_E_EMPTY on n == 0, MCZ_E_NOMEM. */
int topo_tree_build(topo_tree *t, const mcz_topo_obj *objs, size_t n);
void topo_tree_free(topo_tree *t);
/* Nearest ancestor of i that is not hidden, or -1 at the root. */
int32_t topo_tree_parent(const topo_tree *t, int32_t i);
/* Label for a segment: long ("Core#3", "L3#0 (32 MiB)") or short ("C3", "3"). */
const char *topo_tree_label(const topo_tree *t, int32_t i, int shortform, char *buf, size_t len);

enum topo_agg {
	TOPO_AGG_SUM = 0,   /* counters, bytes, energy, power: parent = sum of children */
	TOPO_AGG_MEAN = 1,  /* utilisation, percentages: parent = mean of the values below */
	TOPO_AGG_RATIO = 2, /* IPC: parent = sum(num) / sum(den) */
};

/* own[i]: the value bound to object i itself (NaN = none); for RATIO, den[i]
 * the denominator (else NULL).  out[i]: the aggregate of the values found
 * at and below i (SUM: own + everything below; MEAN, RATIO: own when
 * present, else the mean / ratio of sums below); NaN when there are none. */
void topo_tree_aggregate(const topo_tree *t, const double *own, const double *den, int agg,
			 double *out);

/* ---- topo-layout.c: geometry ------------------------------------------- */

typedef struct topo_seg {
	int32_t node;   /* object index */
	int ring;       /* 0 = the centre (the zoom root), 1, 2, ... outwards */
	int ring_out;   /* drawn over rings [ring, ring_out): ring + 1, or the
			 * outer edge for a leaf (a GPU's wedge reaches the rim) */
	double a0, a1;  /* turns: [a0, a1) */
} topo_seg;

/* What is drawn in one ring over one arc: a segment of that ring, or a leaf
 * of an inner ring reaching out through it. */
typedef struct topo_arc {
	double a0, a1;
	int32_t seg;    /* index in seg[] */
} topo_arc;

typedef struct topo_layout {
	topo_seg *seg;      /* grouped by ring, each ring in angular order */
	size_t nseg;
	int nrings;         /* rings including the centre */
	uint32_t *ring_off; /* segments of ring r: seg[ring_off[r] .. ring_off[r+1]) */
	int32_t *seg_of;    /* object -> segment, -1 when not drawn */
	int32_t root;
	topo_arc *arc;      /* per ring, in angular order: everything drawn there */
	uint32_t *arc_off;  /* arcs of ring r: arc[arc_off[r] .. arc_off[r+1]) */
} topo_layout;

/* Segments of the subtree of root: each child's span is its parent's span
 * split in proportion to weight[] (NaN or <= 0: not drawn).  Falls back to
 * the tree's leaf weights when the root's children weigh nothing. */
int topo_layout_build(topo_layout *L, const topo_tree *t, int32_t root, const double *weight);
void topo_layout_free(topo_layout *L);
/* Segment drawn in ring r at angle a (turns): the ring's own, or a leaf of
 * an inner ring reaching the rim; -1 for none. */
int32_t topo_layout_at(const topo_layout *L, int ring, double a);
/* Navigation: the segment's object's neighbour.  dir: -1/+1 along its ring
 * (wrapping when wrap), 0 = parent (inwards), 2 = first child (outwards).
 * Returns an object index, or -1 when there is none. */
int32_t topo_layout_move(const topo_layout *L, const topo_tree *t, int32_t obj, int dir,
			 int wrap);

/* Colour level in [0, 1] of every drawn object (others NaN): v / max, with
 * max the largest value of the object's ring (per_ring: sums, where a parent
 * always outweighs its child), or of all segments, or fixed_max when > 0
 * (100 for percentages).  Negative values widen the scale down to the
 * smallest.  maxv[r] (L->nrings entries, may be NULL) gets each ring's max. */
void topo_layout_levels(const topo_layout *L, size_t n, const double *v, int per_ring,
			double fixed_max, double *level, double *maxv);

#endif
