/* logplot.c: a log-log chart in a box of cells — lines rasterised into
 * braille dots (2 x 4 per cell; with an ASCII canvas, one '*'-like glyph
 * per cell given by the caller), decade ticks labelled on both axes, and
 * data points mapped to cells.  Used by the roofline view; pure drawing
 * into a vw_canvas, no model.
 *
 *     vw_logplot p;
 *     vw_logplot_init(&p, c, 8, 1, 70, 18, 0.01, 100, 1e8, 1e12);
 *     vw_logplot_line(&p, 0.01, 1e8, 6.5, 8e10, '/');   // data coordinates
 *     vw_logplot_flush(&p, VW_C_SERIES1);
 *     vw_logplot_axes(&p, "flop/byte", "FLOP/s");
 *     int cx, cy; if (vw_logplot_cell(&p, 0.083, 1e9, &cx, &cy)) vw_canvas_put(c, cx, cy, 'B', ...);
 *     vw_logplot_free(&p);
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

int vw_logplot_init(vw_logplot *p, vw_canvas *c, int x, int y, int w, int h, double xmin,
		    double xmax, double ymin, double ymax)
{
	memset(p, 0, sizeof *p);
	if (w < 4 || h < 3 || !(xmin > 0) || !(xmax > xmin) || !(ymin > 0) || !(ymax > ymin))
		return -1;
	p->c = c, p->x = x, p->y = y, p->w = w, p->h = h;
	p->lx0 = log10(xmin), p->lx1 = log10(xmax), p->ly0 = log10(ymin), p->ly1 = log10(ymax);
	p->pw = 2 * w, p->ph = 4 * h;
	p->dots = calloc((size_t)p->pw * p->ph, 1);
	p->glyph = calloc((size_t)w * h, sizeof *p->glyph);
	if (!p->dots || !p->glyph) {
		vw_logplot_free(p);
		return -1;
	}
	return 0;
}

void vw_logplot_free(vw_logplot *p)
{
	free(p->dots);
	free(p->glyph);
	p->dots = NULL;
	p->glyph = NULL;
}

/* Data coordinates to pixels (y grows downwards); may lie outside. */
static void logplot_px(const vw_logplot *p, double xv, double yv, double *px, double *py)
{
	*px = (log10(xv) - p->lx0) / (p->lx1 - p->lx0) * p->pw;
	*py = p->ph - (log10(yv) - p->ly0) / (p->ly1 - p->ly0) * p->ph;
}

void vw_logplot_line(vw_logplot *p, double x0, double y0, double x1, double y1, int dashed,
		     uint32_t ascii)
{
	double ax, ay, bx, by;
	if (!p->dots || !(x0 > 0 && x1 > 0 && y0 > 0 && y1 > 0))
		return;
	logplot_px(p, x0, y0, &ax, &ay);
	logplot_px(p, x1, y1, &bx, &by);
	double dx = bx - ax, dy = by - ay;
	int steps = (int)(fabs(dx) > fabs(dy) ? fabs(dx) : fabs(dy)) * 2 + 1;
	if (steps > 100000)
		steps = 100000;
	for (int k = 0; k <= steps; k++) {
		if (dashed && (k / 4) % 2)
			continue;
		double fx = ax + dx * k / steps, fy = ay + dy * k / steps;
		if (fx < 0 || fy < 0 || fx >= p->pw || fy >= p->ph)
			continue;
		int px = (int)fx, py = (int)fy;
		p->dots[(size_t)py * p->pw + px] = 1;
		p->glyph[(size_t)(py / 4) * p->w + px / 2] = ascii;
	}
}

void vw_logplot_flush(vw_logplot *p, int role)
{
	/* braille dot bits: column 0 rows 0-3 = 0x01 0x02 0x04 0x40, column 1 = 0x08 0x10 0x20 0x80 */
	static const uint8_t bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
	if (!p->dots)
		return;
	for (int cy = 0; cy < p->h; cy++)
		for (int cx = 0; cx < p->w; cx++) {
			unsigned b = 0;
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 4; j++)
					if (p->dots[(size_t)(cy * 4 + j) * p->pw + cx * 2 + i])
						b |= bit[i][j];
			if (!b)
				continue;
			uint32_t g = p->c->ascii ? p->glyph[(size_t)cy * p->w + cx] : 0x2800 + b;
			vw_canvas_put(p->c, p->x + cx, p->y + cy, g ? g : '.', role, 0);
		}
	memset(p->dots, 0, (size_t)p->pw * p->ph);
}

int vw_logplot_cell(const vw_logplot *p, double xv, double yv, int *cx, int *cy)
{
	double px, py;
	if (!(xv > 0) || !(yv > 0))
		return 0;
	logplot_px(p, xv, yv, &px, &py);
	if (px < 0 || py < 0 || px >= p->pw || py >= p->ph)
		return 0;
	*cx = p->x + (int)px / 2;
	*cy = p->y + (int)py / 4;
	return 1;
}

/* "0.01", "0.1", "1", "10", "100", "1k"... for a power of ten. */
static void logplot_decade(char *buf, size_t len, int e, const char *unit)
{
	if (unit) {
		vw_fmt_si(buf, len, pow(10, e), unit);
		return;
	}
	if (e >= 0 && e < 4)
		snprintf(buf, len, "%.0f", pow(10, e));
	else if (e < 0 && e > -4)
		snprintf(buf, len, "%.*f", -e, pow(10, e));
	else
		snprintf(buf, len, "1e%d", e);
}

void vw_logplot_axes(vw_logplot *p, const char *xname, const char *yunit)
{
	vw_canvas *c = p->c;
	int vbar = c->ascii ? '|' : 0x2502, hbar = c->ascii ? '-' : 0x2500, corner = c->ascii ? '+' : 0x2514;
	for (int y = 0; y < p->h; y++)
		vw_canvas_put(c, p->x - 1, p->y + y, vbar, VW_C_AXIS, 0);
	for (int x = 0; x < p->w; x++)
		vw_canvas_put(c, p->x + x, p->y + p->h, hbar, VW_C_AXIS, 0);
	vw_canvas_put(c, p->x - 1, p->y + p->h, corner, VW_C_AXIS, 0);
	char b[32];
	for (int e = (int)ceil(p->ly0 - 1e-9); e <= (int)floor(p->ly1 + 1e-9); e++) {
		int cy = p->y + (int)((p->ly1 - e) / (p->ly1 - p->ly0) * p->ph) / 4;
		if (cy >= p->y + p->h)
			cy = p->y + p->h - 1;
		logplot_decade(b, sizeof b, e, yunit);
		vw_canvas_printf(c, p->x - 1 - (int)strlen(b), cy, (int)strlen(b), VW_C_LABEL, 0, "%s", b);
		vw_canvas_put(c, p->x - 1, cy, c->ascii ? '+' : 0x2524, VW_C_AXIS, 0);
	}
	int last = -100, name_x = xname ? p->x + p->w - (int)strlen(xname) : c->w;
	if (xname)
		vw_canvas_printf(c, name_x, p->y + p->h + 1, (int)strlen(xname), VW_C_AXIS, VW_A_BOLD,
				 "%s", xname);
	for (int e = (int)ceil(p->lx0 - 1e-9); e <= (int)floor(p->lx1 + 1e-9); e++) {
		int cx = p->x + (int)((e - p->lx0) / (p->lx1 - p->lx0) * p->pw) / 2;
		logplot_decade(b, sizeof b, e, NULL);
		int lx = cx - (int)strlen(b) / 2;
		if (cx < p->x + p->w)
			vw_canvas_put(c, cx, p->y + p->h, c->ascii ? '+' : 0x252c, VW_C_AXIS, 0);
		if (lx <= last || lx + (int)strlen(b) >= name_x)
			continue; /* the label would run into the previous one or the name */
		vw_canvas_printf(c, lx, p->y + p->h + 1, (int)strlen(b), VW_C_LABEL, 0, "%s", b);
		last = lx + (int)strlen(b);
	}
}
