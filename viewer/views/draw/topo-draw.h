/* topo-draw.h: drawing the topology view into a canvas (view.h): the chart
 * (topo-render.c: sunburst or icicle from a topo_layout) and the text around
 * it (topo-panel.c: side panel, legend).  Pure functions of their inputs.
 *
 *     topo_render_opts ro = {TOPO_SUNBURST, level, selected, 1};
 *     topo_render(c, x, y, w, h, &tree, &layout, &ro);
 *     int32_t obj = topo_render_hit(c, x, y, w, h, &layout, ro.shape, mx, my);
 */
#ifndef VW_TOPO_DRAW_H
#define VW_TOPO_DRAW_H

#include "../../analysis/analysis.h"
#include "../view.h"

/* ---- topo-render.c: pixels and cells ------------------------------------ */

enum topo_shape { TOPO_SUNBURST = 0, TOPO_ICICLE = 1 };

typedef struct topo_render_opts {
	int shape;            /* enum topo_shape */
	const double *level;  /* per object: colour level in [0, 1], NaN = no data; NULL: none */
	int32_t selected;     /* object drawn as selected, -1 none */
	int labels;           /* draw labels where they fit */
} topo_render_opts;

/* Geometry of a sunburst in a w x h cell box, in pixels (braille dots, half
 * blocks or cells): centre and ring thickness.  Pixels are square except in
 * ASCII, where a cell is one pixel twice as tall as wide. */
typedef struct topo_geom {
	int pw, ph;           /* pixels across, down */
	int sx, sy;           /* pixels per cell */
	double cx, cy;        /* centre, pixels */
	double ring;          /* ring thickness in horizontal-pixel units */
	double yscale;        /* physical height of a pixel / its width */
} topo_geom;

void topo_render_geom(const vw_canvas *c, int w, int h, int nrings, int shape, topo_geom *g);
/* Object drawn at pixel (px, py), or -1. */
int32_t topo_render_pick(const topo_geom *g, const topo_layout *L, int shape, double px,
			 double py);
/* Draw the chart into the box (x, y, w, h) of c. */
void topo_render(vw_canvas *c, int x, int y, int w, int h, const topo_tree *t,
		 const topo_layout *L, const topo_render_opts *o);
/* Object under cell (cx, cy) of a chart drawn at (x, y, w, h), or -1. */
int32_t topo_render_hit(const vw_canvas *c, int x, int y, int w, int h, const topo_layout *L,
			int shape, int cx, int cy);
/* Colour role for a level in [0, 1] (NaN: VW_C_DIM). */
int topo_render_role(double level);

/* ---- topo-panel.c: side panel and legend -------------------------------- */

typedef struct topo_panel_in {
	const topo_tree *tree;
	int32_t sel;
	const topo_metric *metrics;
	size_t nmetrics, metric;  /* metric: the one colouring the chart */
	const double *vals;       /* nmetrics x tree->n aggregated values */
	const double *level;      /* colour level per object, or NULL */
} topo_panel_in;

/* The selected object: name, path, value in every metric (the current one
 * first, with its share of the parent for sums), then its children with
 * values and bars.  Returns the lines used. */
int topo_panel_draw(vw_canvas *c, int x, int y, int w, int h, const topo_panel_in *in);
/* One line: the colour ramp, the range [lo, hi] in the metric's unit, what
 * the top of the scale is ("largest PU"), and the no-data swatch. */
void topo_panel_legend(vw_canvas *c, int x, int y, int w, const topo_metric *mt, double lo,
		       double hi, const char *of);

#endif
