/* topo-render.c: draws a topology layout (topo-layout.c) into a canvas box
 * as a sunburst or an icicle, coloured by level, with labels where they fit.
 *
 * The chart is first rasterised into pixels finer than cells (braille: 2x4
 * dots per cell; --blocks: 2 half blocks; --ascii: the cell itself), each
 * pixel holding the segment it falls in; a pixel whose right or lower
 * neighbour is another segment is left blank, which draws one-dot outlines
 * between segments.  Each cell then takes the segment most of its pixels
 * belong to: its colour role and, in braille, the dots of that segment.
 * Terminal cells are about twice as tall as wide, so braille dots and half
 * blocks are square and an ASCII cell counts twice in height: circles stay
 * round (the aspect correction lives in topo_geom.yscale).
 *
 * In ASCII the glyph itself carries the level (a 10-step ramp), so a
 * monochrome terminal and the golden text tests still see the colours.
 */
#include "topo-draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_PI 3.14159265358979323846

static const char topo_ramp[] = "-:=+*oO#%@"; /* ASCII levels 0..9 */
#define TOPO_NODATA_ASCII '.'

/* The step 0..9 of a level on the colour ramp, clamped before the
 * conversion to int (a NaN or huge level converted first is undefined). */
static int topo_render_step(double level)
{
	double k = floor(level * 10);
	return !(k >= 0) ? 0 : k > 9 ? 9 : (int)k;
}

int topo_render_role(double level)
{
	if (isnan(level))
		return VW_C_DIM;
	return VW_C_SCALE0 + topo_render_step(level);
}

void topo_render_geom(const vw_canvas *c, int w, int h, int nrings, int shape, topo_geom *g)
{
	memset(g, 0, sizeof *g);
	if (c->ascii) {
		g->sx = 1, g->sy = 1, g->yscale = 2;
	} else if (c->blocks) {
		g->sx = 1, g->sy = 2, g->yscale = 1;
	} else {
		g->sx = 2, g->sy = 4, g->yscale = 1;
	}
	g->pw = w > 0 ? w * g->sx : 0;
	g->ph = h > 0 ? h * g->sy : 0;
	g->cx = g->pw / 2.0;
	g->cy = g->ph / 2.0;
	if (nrings < 1)
		nrings = 1;
	if (shape == TOPO_ICICLE) {
		g->ring = (double)g->ph / nrings; /* band height, pixels */
		return;
	}
	double phys_h = g->ph * g->yscale;
	double radius = (g->pw < phys_h ? g->pw : phys_h) / 2.0;
	g->ring = radius / nrings;
}

/* atan2(x, y) / 2pi in [0, 1): the angle clockwise from 12 o'clock, in
 * turns.  A minimax polynomial (max error 1e-5 rad, 0.001 pixel at radius
 * 100) instead of libm's atan2: the raster asks for one per pixel, and
 * libm's exactness costs a third of a 200x60 redraw. */
static double topo_render_turns(double x, double y)
{
	double ax = fabs(x), ay = fabs(y);
	if (ax == 0 && ay == 0)
		return 0;
	double a = ax < ay ? ax / ay : ay / ax, s = a * a;
	double r = ((-0.0464964749 * s + 0.15931422) * s - 0.327622764) * s * a + a;
	if (ax > ay)
		r = TOPO_PI / 2 - r; /* angle from the y axis */
	if (y < 0)
		r = TOPO_PI - r;
	double t = r / (2 * TOPO_PI);
	return x < 0 ? (t > 0 ? 1 - t : 0) : t;
}

/* Segment at ring, angle a; hint: the last answer (pixels in a row mostly
 * stay in one segment). */
static int32_t topo_render_seg(const topo_layout *L, int ring, double a, int32_t *hint)
{
	if (ring < 0 || ring >= L->nrings)
		return -1;
	if (*hint >= 0) {
		const topo_seg *h = &L->seg[*hint];
		if (h->ring <= ring && ring < h->ring_out && h->a0 <= a && a < h->a1)
			return *hint;
	}
	int32_t s = topo_layout_at(L, ring, a);
	if (s >= 0)
		*hint = s;
	return s;
}

/* Segment under pixel (px, py), or -1. */
static int32_t topo_render_seg_at(const topo_geom *g, const topo_layout *L, int shape, double px,
				  double py, int32_t *hint)
{
	if (L->nrings == 0 || g->ring <= 0 || px < 0 || py < 0 || px >= g->pw || py >= g->ph)
		return -1;
	if (shape == TOPO_ICICLE)
		return topo_render_seg(L, (int)floor(py / g->ring), px / g->pw, hint);
	double dx = px - g->cx, dy = (py - g->cy) * g->yscale;
	int ring = (int)floor(sqrt(dx * dx + dy * dy) / g->ring);
	if (ring >= L->nrings)
		return -1;
	if (ring == 0) /* the centre: the root, whatever the angle */
		return topo_render_seg(L, 0, 0, hint);
	double a = topo_render_turns(dx, -dy);
	return topo_render_seg(L, ring, a >= 1 ? 0 : a, hint);
}

int32_t topo_render_pick(const topo_geom *g, const topo_layout *L, int shape, double px,
			 double py)
{
	int32_t hint = -1, s = topo_render_seg_at(g, L, shape, px, py, &hint);
	return s < 0 ? -1 : L->seg[s].node;
}

/* Segment index per pixel, then blank the pixels on an edge between two. */
static int32_t *topo_render_raster(const topo_geom *g, const topo_layout *L, int shape)
{
	int32_t *px = malloc((size_t)g->pw * (size_t)g->ph * sizeof *px);
	if (!px)
		return NULL;
	for (int y = 0; y < g->ph; y++) {
		int32_t hint = -1;
		for (int x = 0; x < g->pw; x++)
			px[(size_t)y * g->pw + x] = topo_render_seg_at(g, L, shape, x + 0.5, y + 0.5, &hint);
	}
	for (int y = 0; y < g->ph; y++)
		for (int x = 0; x < g->pw; x++) {
			int32_t *p = &px[(size_t)y * g->pw + x];
			int32_t r = x + 1 < g->pw ? p[1] : -1;
			int32_t d = y + 1 < g->ph ? p[g->pw] : -1;
			if (*p >= 0 && ((r >= 0 && r != *p) || (d >= 0 && d != *p)))
				*p = -2 - *p; /* edge: remembers its segment, drawn blank */
		}
	return px;
}

/* Braille dot bit of the dot at column dx, row dy of a cell. */
static unsigned topo_render_dot(int dx, int dy)
{
	static const unsigned bits[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
	return bits[dy][dx];
}

/* Majority segment of a cell (edges count for their segment, so a thin
 * segment still owns its cells) and the glyph showing its pixels. */
static int32_t topo_render_cell(const topo_geom *g, const int32_t *px, int cx, int cy,
				const vw_canvas *c, uint32_t *glyph)
{
	int32_t segs[8];
	int cnt[8], ns = 0, best = -1;

	for (int dy = 0; dy < g->sy; dy++)
		for (int dx = 0; dx < g->sx; dx++) {
			int32_t s = px[(size_t)(cy * g->sy + dy) * g->pw + cx * g->sx + dx];
			if (s == -1)
				continue;
			if (s < -1)
				s = -2 - s;
			int k = 0;
			while (k < ns && segs[k] != s)
				k++;
			if (k == ns)
				segs[ns] = s, cnt[ns++] = 0;
			cnt[k]++;
			if (best < 0 || cnt[k] > cnt[best])
				best = k;
		}
	*glyph = ' ';
	if (best < 0)
		return -1;
	int32_t seg = segs[best];
	unsigned bits = 0, n = 0;
	for (int dy = 0; dy < g->sy; dy++)
		for (int dx = 0; dx < g->sx; dx++)
			if (px[(size_t)(cy * g->sy + dy) * g->pw + cx * g->sx + dx] == seg) {
				bits |= topo_render_dot(dx, dy);
				n++;
			}
	if (!n)
		*glyph = ' ';
	else if (c->ascii)
		*glyph = '*'; /* the caller puts the level's ramp glyph here */
	else if (c->blocks) /* half blocks: bit 0x01 the top pixel, 0x02 the bottom */
		*glyph = (bits & 0x03) == 0x03 ? 0x2588 : (bits & 0x01) ? 0x2580 : 0x2584;
	else
		*glyph = 0x2800 + bits;
	return seg;
}

/* Where a segment's label is centred, in cells of the box. */
static void topo_render_anchor(const topo_geom *g, const topo_seg *s, int shape, int *x, int *y)
{
	double mid = (s->a0 + s->a1) / 2, px, py;
	if (shape == TOPO_ICICLE) {
		px = mid * g->pw;
		py = (s->ring + s->ring_out) / 2.0 * g->ring;
	} else if (s->ring == 0) {
		px = g->cx, py = g->cy;
	} else { /* mid-way through the rings it covers */
		double r = (s->ring + s->ring_out) / 2.0 * g->ring;
		px = g->cx + r * sin(2 * TOPO_PI * mid);
		py = g->cy - r * cos(2 * TOPO_PI * mid) / g->yscale;
	}
	*x = (int)floor(px / g->sx);
	*y = (int)floor(py / g->sy);
}

static void topo_render_labels(vw_canvas *c, int x, int y, int w, int h, const topo_tree *t,
			       const topo_layout *L, const topo_render_opts *o, const topo_geom *g,
			       const int32_t *cellseg, uint8_t *used)
{
	char buf[2][96];

	for (size_t s = 0; s < L->nseg; s++) {
		const topo_seg *sg = &L->seg[s];
		int ax, ay;
		topo_render_anchor(g, sg, o->shape, &ax, &ay);
		if (ay < 0 || ay >= h)
			continue;
		topo_tree_label(t, sg->node, 0, buf[0], sizeof buf[0]);
		topo_tree_label(t, sg->node, 1, buf[1], sizeof buf[1]);
		for (int f = 0; f < 2; f++) {
			int len = (int)strlen(buf[f]), x0 = ax - len / 2, ok = len > 0;
			for (int i = 0; ok && i < len; i++)
				ok = x0 + i >= 0 && x0 + i < w && cellseg[ay * w + x0 + i] == (int32_t)s &&
				     !used[ay * w + x0 + i];
			/* a cell of space from any other label, so two never read as one */
			if (ok && ((x0 > 0 && used[ay * w + x0 - 1]) ||
				   (x0 + len < w && used[ay * w + x0 + len])))
				ok = 0;
			if (!ok)
				continue;
			int32_t node = sg->node;
			int role = node == o->selected ? VW_C_SELECT
						       : topo_render_role(o->level ? o->level[node] : NAN);
			vw_canvas_text(c, x + x0, y + ay, len, role, VW_A_REVERSE | VW_A_BOLD, buf[f]);
			memset(used + ay * w + x0, 1, (size_t)len);
			break;
		}
	}
}

void topo_render(vw_canvas *c, int x, int y, int w, int h, const topo_tree *t,
		 const topo_layout *L, const topo_render_opts *o)
{
	topo_geom g;

	if (w <= 0 || h <= 0 || L->nrings == 0)
		return;
	topo_render_geom(c, w, h, L->nrings, o->shape, &g);
	int32_t *px = topo_render_raster(&g, L, o->shape);
	int32_t *cellseg = malloc((size_t)w * h * sizeof *cellseg);
	uint8_t *used = calloc((size_t)w * h, 1);
	if (!px || !cellseg || !used)
		goto out;
	for (int cy = 0; cy < h; cy++)
		for (int cx = 0; cx < w; cx++) {
			uint32_t glyph;
			int32_t s = topo_render_cell(&g, px, cx, cy, c, &glyph);
			cellseg[cy * w + cx] = s;
			if (s < 0)
				continue;
			int32_t node = L->seg[s].node;
			double lv = o->level ? o->level[node] : NAN;
			int role = node == o->selected ? VW_C_SELECT : topo_render_role(lv);
			if (c->ascii && glyph != ' ') {
				glyph = isnan(lv) ? TOPO_NODATA_ASCII
						  : (uint32_t)topo_ramp[topo_render_step(lv)];
			}
			vw_canvas_put(c, x + cx, y + cy, glyph, role,
				      node == o->selected ? VW_A_BOLD : 0);
		}
	if (o->labels)
		topo_render_labels(c, x, y, w, h, t, L, o, &g, cellseg, used);
out:
	free(px);
	free(cellseg);
	free(used);
}

int32_t topo_render_hit(const vw_canvas *c, int x, int y, int w, int h, const topo_layout *L,
			int shape, int cx, int cy)
{
	topo_geom g;

	if (cx < x || cy < y || cx >= x + w || cy >= y + h)
		return -1;
	topo_render_geom(c, w, h, L->nrings, shape, &g);
	return topo_render_pick(&g, L, shape, (cx - x + 0.5) * g.sx, (cy - y + 0.5) * g.sy);
}
