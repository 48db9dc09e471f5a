/* fuzz-topo.c: libFuzzer target for the topology view's handling of a
 * topology table read from a file (viewer/analysis/topology/topo-tree.c, topo-layout.c,
 * topo-render.c): any table must be refused or laid out, drawn, hit-tested
 * and walked without a crash, and a layout must stay consistent (arcs inside
 * [0, 1], in their ring, the object-to-segment map both ways).
 *
 * Input: byte 0 picks the glyph mode, the shape, the canvas size and the
 * zoom root; then 3 bytes per object: parent, type, flags.  The parent is
 * taken modulo the objects before it (a valid table) unless flags bit 7 asks
 * for the raw byte (an invalid one); flags give the span weight (bit 6: NaN,
 * else bits 0-5 minus 8, so some are negative) and the colour level.
 * Seeds (tests/fuzz/corpus-topo/): machine-2x2x4x2 (a real tree: machine,
 * 2 packages, 2 NUMA each, 4 cores, 2 PUs), chain, star, bad-parent,
 * nan-weights; written by the python in tests/fuzz/corpus-topo/README.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../viewer/views/draw/topo-draw.h"
#include "../../viewer/analysis/topology/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAXOBJ 2048

static void fuzz_check_layout(const topo_layout *L, const topo_tree *t)
{
	for (size_t s = 0; s < L->nseg; s++) {
		const topo_seg *g = &L->seg[s];
		if (!(g->a0 >= 0 && g->a0 < g->a1 && g->a1 <= 1 + 1e-9))
			abort();
		if (g->ring < 0 || g->ring >= L->nrings || g->node < 0 || (size_t)g->node >= t->n)
			abort();
		if (L->seg_of[g->node] != (int32_t)s)
			abort();
		if (s < L->ring_off[g->ring] || s >= L->ring_off[g->ring + 1])
			abort();
		if (g->ring_out <= g->ring || g->ring_out > L->nrings)
			abort();
	}
	for (int r = 0; r < L->nrings; r++)
		for (uint32_t k = L->arc_off[r]; k < L->arc_off[r + 1]; k++) {
			const topo_arc *a = &L->arc[k];
			if (a->seg < 0 || (size_t)a->seg >= L->nseg || L->seg[a->seg].ring > r ||
			    L->seg[a->seg].ring_out <= r)
				abort();
			if (k > L->arc_off[r] && a->a0 < L->arc[k - 1].a1 - 1e-9)
				abort(); /* arcs of a ring do not overlap */
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static mcz_topo_obj objs[FUZZ_MAXOBJ];
	static double weight[FUZZ_MAXOBJ], level[FUZZ_MAXOBJ];
	static const char *const names[] = {"Machine (1 GiB)", "Package#0", "NUMA#1 (2 GiB)",
					    "L3#0 (32 MiB)", "L2#3", "L1d#3", "Core#12", "PU#255",
					    "GPU#0 NVIDIA H100", "mlx5_0 (ib0)", "", "#", "x#9"};
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	size_t n = (size - 1) / 3;
	if (n > FUZZ_MAXOBJ)
		n = FUZZ_MAXOBJ;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *b = data + 1 + 3 * i;
		int32_t parent = i == 0 ? -1 : (int32_t)(b[0] % i);
		if (b[2] & 0x80)
			parent = (int32_t)b[0] - 1;
		objs[i] = (mcz_topo_obj){parent, (uint8_t)(b[1] % 12), b[1], 0,
					 names[b[1] % (sizeof names / sizeof names[0])]};
		weight[i] = (b[2] & 0x40) ? NAN : (double)(b[2] & 0x3f) - 8;
		level[i] = (b[2] & 0x40) ? NAN : (double)(b[2] & 0x3f) / 40.0;
	}
	topo_tree t;
	if (topo_tree_build(&t, objs, n) != MCZ_OK)
		return 0;
	int32_t root = (int32_t)((mode >> 4) % n);
	topo_layout L;
	const double *w = (mode & 8) ? weight : t.leafw;
	if (topo_layout_build(&L, &t, root, w) != MCZ_OK) {
		topo_tree_free(&t);
		return 0;
	}
	fuzz_check_layout(&L, &t);
	double *agg = malloc(n * sizeof *agg), *lv = malloc(n * sizeof *lv);
	if (agg && lv) {
		int how = (mode & 1) ? TOPO_AGG_RATIO : (mode & 2) ? TOPO_AGG_MEAN : TOPO_AGG_SUM;
		topo_tree_aggregate(&t, weight, how == TOPO_AGG_RATIO ? level : NULL, how, agg);
		topo_layout_levels(&L, n, agg, mode & 2, 0, lv, NULL);
		vw_canvas *c = vw_canvas_new(10 + (int)(mode % 37), 5 + (int)(mode % 23));
		if (c) {
			c->ascii = (mode & 1) != 0;
			c->blocks = (mode & 2) != 0;
			int shape = (mode & 4) ? TOPO_ICICLE : TOPO_SUNBURST;
			topo_render_opts o = {shape, (mode & 32) ? level : lv, root, 1};
			topo_render(c, 1, 1, c->w - 2, c->h - 2, &t, &L, &o);
			for (int y = 0; y < c->h; y += 2)
				for (int x = 0; x < c->w; x += 3) {
					int32_t h = topo_render_hit(c, 1, 1, c->w - 2, c->h - 2, &L, shape, x, y);
					if (h < -1 || (h >= 0 && (size_t)h >= n))
						abort();
				}
			vw_canvas_free(c);
		}
		int32_t at = root;
		for (size_t k = 1; k < size && k < 64; k++) {
			int dir = (int)(data[k] % 4) - 1; /* -1, 0 (parent), +1, 2 (child) */
			int32_t to = topo_layout_move(&L, &t, at, dir, data[k] & 4);
			if (to < -1 || (to >= 0 && ((size_t)to >= n || L.seg_of[to] < 0)))
				abort();
			if (to >= 0)
				at = to;
		}
		char buf[64];
		for (size_t i = 0; i < n; i++)
			topo_tree_label(&t, (int32_t)i, (int)(i & 1), buf, sizeof buf);
	}
	free(agg);
	free(lv);
	topo_layout_free(&L);
	topo_tree_free(&t);
	return 0;
}
