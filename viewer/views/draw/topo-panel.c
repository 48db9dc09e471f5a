/* topo-panel.c: the text around the topology chart: the side panel (the
 * selected segment's path, its value in every metric, its children's values
 * with bars) and the legend (colour scale, its range and unit).  Pure
 * drawing into a canvas box from values the view computed.
 */
#include "topo-draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"

/* "Machine (4.5 GiB) > Package#0 > ... > Core#3", cut from the left to fit. */
static void topo_panel_path(vw_canvas *c, int x, int y, int w, const topo_tree *t, int32_t sel)
{
	char buf[512] = "", tmp[512];
	for (int32_t i = t->objs[sel].parent; i >= 0; i = t->objs[i].parent) {
		char lab[96];
		topo_tree_label(t, i, i != 0, lab, sizeof lab);
		snprintf(tmp, sizeof tmp, "%s%s%s", lab, buf[0] ? " > " : "", buf);
		memcpy(buf, tmp, sizeof buf);
	}
	size_t len = strlen(buf);
	const char *s = buf;
	if ((int)len > w && w > 3) {
		s = buf + len - (size_t)(w - 3);
		vw_canvas_text(c, x, y, 3, VW_C_DIM, 0, "...");
		x += 3, w -= 3;
	}
	vw_canvas_text(c, x, y, w, VW_C_DIM, 0, s);
}

static void topo_panel_bar(vw_canvas *c, int x, int y, int w, double frac, int role)
{
	int n = isnan(frac) ? 0 : (int)lround(frac * w);
	if (frac > 0 && n == 0)
		n = 1;
	for (int i = 0; i < n && i < w; i++)
		vw_canvas_put(c, x + i, y, c->ascii ? '#' : 0x2588, role, 0);
}

int topo_panel_draw(vw_canvas *c, int x, int y, int w, int h, const topo_panel_in *in)
{
	const topo_tree *t = in->tree;
	int32_t sel = in->sel;
	int row = y, bottom = y + h;
	char lab[128], val[48];

	if (w < 8 || h < 1 || sel < 0)
		return 0;
	vw_canvas_text(c, x, row++, w, VW_C_TITLE, VW_A_BOLD, t->objs[sel].name);
	if (row < bottom && sel != 0)
		topo_panel_path(c, x, row++, w, t, sel);
	/* this object in every metric, the current one first and bold */
	for (size_t k = 0; k < in->nmetrics && row < bottom; k++) {
		size_t mi = (in->metric + k) % in->nmetrics;
		const topo_metric *mt = &in->metrics[mi];
		double v = in->vals[mi * t->n + (size_t)sel];
		if (k > 0 && isnan(v))
			continue;
		vw_fmt_si(val, sizeof val, v, mt->unit);
		int vw = (int)strlen(val);
		vw_canvas_text(c, x, row, w - vw - 1, k ? VW_C_LABEL : VW_C_NORMAL, k ? 0 : VW_A_BOLD,
			       mt->name);
		vw_canvas_text(c, x + w - vw, row, vw, VW_C_VALUE, k ? 0 : VW_A_BOLD, val);
		row++;
		if (k == 0 && row < bottom && mt->agg == TOPO_AGG_SUM && !isnan(v)) {
			int32_t p = topo_tree_parent(t, sel);
			double pv = p >= 0 ? in->vals[mi * t->n + (size_t)p] : NAN;
			if (!isnan(pv) && pv > 0) {
				topo_tree_label(t, p, 0, lab, sizeof lab);
				vw_canvas_printf(c, x + 2, row++, w - 2, VW_C_DIM, 0, "%.1f%% of %s",
						 100 * v / pv, lab);
			}
		}
	}
	if (in->nmetrics == 0 && row < bottom)
		vw_canvas_text(c, x, row++, w, VW_C_DIM, 0, "no stream bound to this object");

	/* children: one line each, value and a bar scaled to the largest */
	const double *cur = in->nmetrics ? in->vals + in->metric * t->n : NULL;
	size_t nkids = 0;
	double top = 0;
	for (size_t i = (size_t)sel + 1; i < t->n; i++) {
		if (t->hidden[i] || topo_tree_parent(t, (int32_t)i) != sel)
			continue;
		nkids++;
		if (cur && !isnan(cur[i]))
			top = fmax(top, fabs(cur[i]));
	}
	if (nkids == 0 || row + 2 > bottom)
		return row - y;
	row++;
	vw_canvas_printf(c, x, row++, w, VW_C_TITLE, 0, "%zu %s", nkids,
			 nkids == 1 ? "child" : "children");
	const char *unit = in->nmetrics ? in->metrics[in->metric].unit : "";
	int namew = w / 3 > 6 ? w / 3 : 6, valw = 12, barw = w - namew - valw - 2;
	size_t shown = 0;
	for (size_t i = (size_t)sel + 1; i < t->n && row < bottom; i++) {
		if (t->hidden[i] || topo_tree_parent(t, (int32_t)i) != sel)
			continue;
		if (row == bottom - 1 && shown + 1 < nkids) {
			vw_canvas_printf(c, x, row++, w, VW_C_DIM, 0, "... %zu more", nkids - shown);
			break;
		}
		double v = cur ? cur[i] : NAN;
		topo_tree_label(t, (int32_t)i, 0, lab, sizeof lab);
		if ((int)strlen(lab) > namew) /* "GPU#4 NVIDIA H100 ..." -> "G4" */
			topo_tree_label(t, (int32_t)i, 1, lab, sizeof lab);
		vw_canvas_text(c, x, row, namew, VW_C_LABEL, 0, lab);
		vw_fmt_si(val, sizeof val, v, unit);
		vw_canvas_text(c, x + namew + 1 + valw - (int)strlen(val), row, valw, VW_C_VALUE, 0,
			       val);
		if (barw > 0 && top > 0)
			topo_panel_bar(c, x + namew + valw + 2, row, barw, fabs(v) / top,
				       topo_render_role(in->level ? in->level[i] : NAN));
		row++;
		shown++;
	}
	return row - y;
}

void topo_panel_legend(vw_canvas *c, int x, int y, int w, const topo_metric *mt, double lo,
		       double hi, const char *of)
{
	char a[48], b[48];
	int at = x;

	if (w < 20)
		return;
	at += vw_canvas_text(c, at, y, w, VW_C_LABEL, 0, "low ");
	for (int k = 0; k < 10; k++)
		vw_canvas_put(c, at++, y, c->ascii ? (uint32_t)"-:=+*oO#%@"[k] : 0x2588,
			      VW_C_SCALE0 + k, 0);
	at += vw_canvas_text(c, at, y, x + w - at, VW_C_LABEL, 0, " high  ");
	if (!mt) {
		vw_canvas_text(c, at, y, x + w - at, VW_C_DIM, 0, "no metric");
		return;
	}
	vw_fmt_si(a, sizeof a, lo, "");
	vw_fmt_si(b, sizeof b, hi, mt->unit);
	at += vw_canvas_printf(c, at, y, x + w - at, VW_C_VALUE, 0, "%s .. %s", a, b);
	if (of && *of)
		at += vw_canvas_printf(c, at, y, x + w - at, VW_C_DIM, 0, " (%s)", of);
	at += vw_canvas_text(c, at, y, x + w - at, VW_C_DIM, 0, "  ");
	vw_canvas_put(c, at, y, c->ascii ? '.' : 0x2588, VW_C_DIM, 0);
	vw_canvas_text(c, at + 1, y, x + w - at - 1, VW_C_DIM, 0, " no data");
}
