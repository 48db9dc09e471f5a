/* view-roofline.c: the roofline view — every phase as a point (its class
 * letter) at its arithmetic intensity (flop/byte) and FLOP/s on log-log
 * axes, under the machine's roofs as the recording's calibration measured
 * them: the bandwidth roof (slope) up to the ridge point, the SIMD FMA peak
 * (flat), the scalar FMA peak dashed; each labelled with its value.  The
 * cursor's phase (the selected one, else the one under the time cursor) is
 * highlighted and read out below: intensity, GFLOP/s, % of the attainable
 * ceiling, the bound and where the counts come from.  A recording without
 * ceilings says "no ceilings: run mcrec --calibrate"; one without work
 * counts says which are missing.  The figures are the analysis's
 * (viewer/analysis/roofline/roofline.h); this file only draws them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw.h"
#include "../model/model.h"
#include "../analysis/analysis.h"
#include "view.h"

static int roofline_init(vw_ctx *ctx, void **state)
{
	*state = NULL;
	return 0;
}

static int roofline_current(vw_an *an)
{
	vw_model *m = an->m;
	if (m->phase_sel >= 0)
		return m->phase_sel;
	return an->phases ? vw_phases_find(an->phases, m->cursor) : -1;
}

static unsigned roofline_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	if (!vw_phases_count(an->phases))
		return VW_R_NONE;
	switch (in->act) {
	case VW_ACT_UP:
	case VW_ACT_LEFT:
	case VW_ACT_PREV_PHASE:
		return vw_phases_step(an, -1) ? VW_R_REDRAW : VW_R_NONE;
	case VW_ACT_DOWN:
	case VW_ACT_RIGHT:
	case VW_ACT_NEXT_PHASE:
		return vw_phases_step(an, 1) ? VW_R_REDRAW : VW_R_NONE;
	case VW_ACT_ENTER: {
		int i = roofline_current(an);
		vw_phases_zoom(an, i >= 0 ? i : 0);
		int tl = vw_views_find("timeline");
		if (tl >= 0)
			m->view = tl;
		return VW_R_REDRAW | VW_R_RECOMPUTE;
	}
	default:
		return VW_R_NONE;
	}
}

/* Decade-aligned range holding lo..hi, at least `min` decades wide. */
static void roofline_range(double lo, double hi, int min, double *a, double *b)
{
	double la = floor(log10(lo)), lb = ceil(log10(hi));
	while (lb - la < min)
		la--, lb += lb - la < min;
	*a = pow(10, la), *b = pow(10, lb);
}

static void roofline_roofs(vw_logplot *p, const vw_roof_ceil *rc, double xmin, double xmax,
			   double ymin)
{
	double bw = rc->bw * 1e-9, peak = rc->flops * 1e-9, ridge = vw_roof_ridge(rc);
	double x0 = ymin / bw > xmin ? ymin / bw : xmin;
	if (x0 < ridge)
		vw_logplot_line(p, x0, bw * x0, ridge, peak, 0, '/');
	vw_logplot_line(p, ridge > xmin ? ridge : xmin, peak, xmax, peak, 0, '-');
	vw_logplot_flush(p, VW_C_SERIES0 + 1);
	if (!isnan(rc->flops_scalar)) {
		double sc = rc->flops_scalar * 1e-9, xs = sc / bw;
		vw_logplot_line(p, xs > xmin ? xs : xmin, sc, xmax, sc, 1, '.');
		vw_logplot_flush(p, VW_C_DIM);
	}
}

static void roofline_labels(vw_logplot *p, const vw_roof_ceil *rc, double xmin, double ymin)
{
	char a[32], t[64];
	int cx, cy;
	double bw = rc->bw * 1e-9, peak = rc->flops * 1e-9, ridge = vw_roof_ridge(rc);
	double x0 = ymin / bw > xmin ? ymin / bw : xmin, xm = sqrt(x0 * ridge);
	if (vw_logplot_cell(p, xm, bw * xm, &cx, &cy)) {
		vw_fmt_si(a, sizeof a, rc->bw, "B/s");
		int l = (int)strlen(a), lx = cx - 1 - l < p->x ? p->x : cx - 1 - l;
		vw_canvas_printf(p->c, lx, cy - 1 > p->y ? cy - 1 : p->y, l, VW_C_LABEL, VW_A_BOLD, "%s", a);
	}
	if (vw_logplot_cell(p, ridge > xmin ? ridge : xmin, peak, &cx, &cy) || cy >= 0) {
		snprintf(t, sizeof t, "%s %s FMA", vw_fmt_si(a, sizeof a, rc->flops, "FLOP/s"),
			 rc->simd[0] ? rc->simd : "SIMD");
		int l = (int)strlen(t);
		vw_canvas_printf(p->c, p->x + p->w - l, cy > p->y ? cy - 1 : p->y, l, VW_C_LABEL,
				 VW_A_BOLD, "%s", t);
	}
	if (!isnan(rc->flops_scalar) && vw_logplot_cell(p, ridge, rc->flops_scalar * 1e-9, &cx, &cy)) {
		snprintf(t, sizeof t, "scalar %s", vw_fmt_si(a, sizeof a, rc->flops_scalar, "FLOP/s"));
		int l = (int)strlen(t);
		if (cy + 1 < p->y + p->h)
			vw_canvas_printf(p->c, p->x + p->w - l, cy + 1, l, VW_C_DIM, 0, "%s", t);
	}
}

/* The readout of phase i under the chart, rows y to y + 2. */
static void roofline_readout(vw_an *an, vw_canvas *c, int y, int i, const vw_roof_ceil *rc)
{
	vw_model *m = an->m;
	char a[32], b[32], name[8], line[320];
	if (i < 0) {
		vw_canvas_text(c, 0, y, c->w, VW_C_DIM, 0, "no phase at the cursor (n/p select one)");
		return;
	}
	const vw_phase *ph = vw_phases_at(an->phases, (size_t)i);
	vw_roof_point pt;
	vw_roof_place(rc, &ph->st, &pt);
	vw_phase_class_name(ph->cls, name, sizeof name);
	int x = vw_canvas_printf(c, 0, y, c->w, VW_C_PHASE0 + vw_phases_color(ph->cls),
				 VW_A_BOLD | VW_A_REVERSE, "%s", name);
	vw_fmt_time(a, sizeof a, ph->t0 - m->t_min, 0);
	vw_fmt_time(b, sizeof b, ph->t1 - ph->t0, 0);
	x += vw_canvas_printf(c, x, y, c->w - x, VW_C_NORMAL, 0, " phase %d at %s for %s%s%s  ", i + 1,
			      a, b, ph->label[0] ? ": " : "", ph->label);
	if (pt.bound)
		vw_canvas_printf(c, x, y, c->w - x, pt.bound == VW_BOUND_MEMORY ? VW_C_WARN : VW_C_VALUE,
				 VW_A_BOLD, "%s-bound", vw_roof_bound_name(pt.bound));
	if (isnan(pt.intensity) && isnan(pt.gflops))
		snprintf(line, sizeof line, "%s", pt.why);
	else if (isnan(pt.intensity))
		snprintf(line, sizeof line, "%.3g GFLOP/s; %s", pt.gflops, pt.why);
	else if (!pt.bound)
		snprintf(line, sizeof line, "%.3g flop/byte  %.3g GFLOP/s  (%s)", pt.intensity,
			 pt.gflops, pt.why);
	else
		snprintf(line, sizeof line, "%.3g flop/byte  %.3g GFLOP/s  %.0f%% of the attainable %.3g GFLOP/s",
			 pt.intensity, pt.gflops, pt.pct, pt.attainable);
	vw_canvas_text(c, 0, y + 1, c->w, VW_C_VALUE, VW_A_BOLD, line);
	snprintf(line, sizeof line, "flops: %s; bytes: %s", pt.flops_prov ? pt.flops_prov : "none",
		 pt.bytes_prov ? pt.bytes_prov : "none");
	vw_canvas_text(c, 0, y + 2, c->w, VW_C_DIM, 0, line);
}

static void roofline_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	vw_canvas_clear(c);
	size_t n = vw_phases_count(an->phases);
	vw_roof_ceil rc;
	vw_roof_ceilings(m, &rc);
	char a[32], b[32], work[200];
	if (rc.known)
		vw_canvas_printf(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD,
				 "Roofline: %zu phase%s; ceilings %s, %s (%s), ridge %.3g flop/B", n,
				 n == 1 ? "" : "s",
				 vw_fmt_si(a, sizeof a, rc.bw, "B/s"), vw_fmt_si(b, sizeof b, rc.flops, "FLOP/s"),
				 rc.simd, vw_roof_ridge(&rc));
	else
		vw_canvas_printf(c, 0, 0, c->w, VW_C_WARN, VW_A_BOLD, "Roofline: %s", rc.why);
	if (c->w < 30 || c->h < 12) {
		vw_canvas_text(c, 0, 1, c->w, VW_C_DIM, 0, "terminal too small for the roofline");
		return;
	}
	if (!n) {
		vw_canvas_text(c, 1, 2, c->w - 2, VW_C_DIM, 0,
			       an->phases ? "no phases: the recording holds no samples"
					 : "phases not detected (mcview --phases auto|marks)");
		return;
	}
	/* the points, and the ranges that hold them and the roofs */
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	int npts = 0;
	for (size_t i = 0; i < n; i++) {
		vw_roof_point pt;
		vw_roof_place(&rc, &vw_phases_at(an->phases, i)->st, &pt);
		if (!(pt.intensity > 0) || !(pt.gflops > 0))
			continue;
		npts++;
		xlo = fmin(xlo, pt.intensity), xhi = fmax(xhi, pt.intensity);
		ylo = fmin(ylo, pt.gflops), yhi = fmax(yhi, pt.gflops);
	}
	if (rc.known) {
		double r = vw_roof_ridge(&rc);
		xlo = fmin(xlo, r / 16), xhi = fmax(xhi, r * 4);
		yhi = fmax(yhi, rc.flops * 1e-9);
		ylo = fmin(ylo, isnan(rc.flops_scalar) ? rc.flops * 1e-11 : rc.flops_scalar * 1e-9 / 10);
	}
	if (!npts && !rc.known)
		xlo = 0.01, xhi = 100, ylo = 0.1, yhi = 100;
	ylo = fmax(ylo / 2, yhi * 1e-6);
	double xmin, xmax, ymin, ymax;
	roofline_range(xlo, xhi, 2, &xmin, &xmax);
	roofline_range(ylo, yhi * 1.5, 2, &ymin, &ymax);
	int bx = 7, by = 2, bw = c->w - bx - 1, bh = c->h - by - 5;
	vw_logplot p;
	if (vw_logplot_init(&p, c, bx, by, bw, bh, xmin, xmax, ymin, ymax) != 0)
		return;
	vw_canvas_text(c, 0, 1, bx + 10, VW_C_AXIS, VW_A_BOLD, "GFLOP/s");
	if (rc.known) {
		roofline_roofs(&p, &rc, xmin, xmax, ymin);
		roofline_labels(&p, &rc, xmin, ymin);
	}
	vw_logplot_axes(&p, "flop/byte", NULL);
	int cur = roofline_current(an);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const vw_phase *ph = vw_phases_at(an->phases, i);
			vw_roof_point pt;
			int cx, cy, on = (int)i == cur;
			if (on != pass)
				continue; /* the cursor's phase last, on top */
			vw_roof_place(&rc, &ph->st, &pt);
			if (!vw_logplot_cell(&p, pt.intensity, pt.gflops, &cx, &cy))
				continue;
			char name[8];
			vw_phase_class_name(ph->cls, name, sizeof name);
			vw_canvas_put(c, cx, cy, (uint32_t)name[0], VW_C_PHASE0 + vw_phases_color(ph->cls),
				      on ? VW_A_BOLD | VW_A_REVERSE : VW_A_BOLD);
		}
	vw_logplot_free(&p);
	int ry = by + bh + 2;
	if (npts) {
		roofline_readout(an, c, ry, cur, &rc);
		return;
	}
	/* nothing to place: say what the recording lacks, one item a line */
	vw_roof_work_missing(an, work, sizeof work);
	vw_canvas_text(c, 0, ry, c->w, VW_C_WARN, VW_A_BOLD, "no roofline points:");
	char *semi = strstr(work, "; ");
	if (semi)
		*semi = '\0';
	vw_canvas_text(c, 2, ry + 1, c->w - 2, VW_C_WARN, 0,
		       work[0] ? work : "no phase has both FP operations and bytes counted");
	if (semi)
		vw_canvas_text(c, 2, ry + 2, c->w - 2, VW_C_WARN, 0, semi + 2);
}

static const char *const roofline_help[] = {
	"n/p      next/previous phase (also arrows)",
	"Enter    zoom the timeline to the phase",
	"         roofs: mcrec --calibrate; counts: mcmark_count or FP events",
	NULL,
};

const vw_view view_roofline = {
	.name = "roofline",
	.title = "Roofline",
	.init = roofline_init,
	.free = NULL,
	.resize = NULL,
	.key = roofline_key,
	.draw = roofline_draw,
	.help = roofline_help,
};
