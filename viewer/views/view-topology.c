/* view-topology.c: the topology view: the machine tree recorded with the
 * run, drawn as a sunburst (MemAxes-style: the machine, or the zoomed
 * subtree, at the centre, packages, NUMA nodes, L3s, cores and PUs in rings
 * outwards, GPUs and NICs as their own segments) or as an icicle, each
 * segment coloured by a metric over the selected phase (n/p, handled by the
 * app for every view), else the selected time range, else the window.
 *
 * Layout of the view's canvas (w x h):
 *
 *     line 0        metric, how it aggregates, the time range, the span mode
 *     lines 1..h-3  the chart | the side panel (selected segment, children)
 *     line h-2      legend: colour ramp, its range and unit
 *     line h-1      keys
 *
 * Below 80 columns the panel moves under the chart; below 50 columns (or
 * when rings would be thinner than a glyph) the chart is an icicle.  Values
 * are recomputed only when the range changes; geometry on every draw (cheap:
 * one pass over the table).  The topology and its metrics come from the
 * first file of the dataset.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw.h"
#include "../model/model.h"
#include "../analysis/analysis.h"
#include "draw/topo-draw.h"
#include "view.h"

typedef struct tv_state {
	int ok;               /* a tree to draw */
	char why[256];        /* else: what to say instead */
	mcz_topo_obj *objs;   /* the file's table (names borrowed from the reader) */
	topo_tree tree;
	topo_layout L;
	int32_t root, sel;
	int shape;            /* -1 auto, else enum topo_shape */
	int by_metric;        /* span by the metric instead of by leaves */
	topo_metrics ms;
	size_t metric;
	double *vals, *own;   /* ms.n x n */
	double *level, *ringmax;
	/* values are for [vt0, vt1): metric k everywhere when have[k], else
	 * only at part[k] and below (the panel's other metrics), or not at all */
	int64_t vt0, vt1;
	int valid;
	int updating;         /* this frame's budget ran out before every value was read */
	uint8_t *have;
	int32_t *part;
	/* where the chart was last drawn, for the mouse */
	int cx, cy, cw, ch, drawn_shape, ascii, blocks;
} tv_state;

/* Default metric: instructions, else cycles or task clock (what ran where),
 * else a utilisation, else the first. */
static size_t tv_default_metric(const topo_metrics *ms)
{
	static const char *const pref[] = {"instructions", "cycles", "task_clock"};
	for (size_t p = 0; p < sizeof pref / sizeof pref[0]; p++)
		for (size_t i = 0; i < ms->n; i++)
			if (strstr(ms->v[i].name, pref[p]))
				return i;
	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->v[i].unit, "%"))
			return i;
	return 0;
}

static int tv_init(vw_ctx *ctx, void **state)
{
	vw_model *m = ctx->m;
	tv_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	*state = s;
	s->shape = -1;
	s->sel = s->root = 0;
	mcz_reader *r = m->nfiles ? m->files[0] : NULL;
	size_t n = r ? mcz_topo_count(r) : 0;
	if (n == 0) {
		const char *name = m->nfiles ? m->paths[0] : "this dataset";
		if (r && mcz_meta(r, "pcp_archive"))
			snprintf(s->why, sizeof s->why,
				 "No topology in %s: it is a PCP archive, and PCP archives carry no "
				 "hardware topology. The timeline (Tab) has every metric.",
				 name);
		else
			snprintf(s->why, sizeof s->why,
				 "No topology in %s: it was recorded without one (a recorder that did "
				 "not capture it, or hwloc failed). The timeline (Tab) has every stream.",
				 name);
		return 0;
	}
	s->objs = malloc(n * sizeof *s->objs);
	if (!s->objs)
		return -1;
	for (size_t i = 0; i < n; i++)
		s->objs[i] = *mcz_topo(r, i);
	int rc = topo_tree_build(&s->tree, s->objs, n);
	if (rc == MCZ_E_NOMEM)
		return -1;
	if (rc != MCZ_OK) {
		snprintf(s->why, sizeof s->why,
			 "The topology table of %s is damaged (not a tree with its parents first): "
			 "nothing to draw.",
			 m->paths[0]);
		return 0;
	}
	if (topo_metric_list(&s->ms, m, 0, n) != 0)
		return -1;
	s->metric = tv_default_metric(&s->ms);
	s->vals = malloc((s->ms.n ? s->ms.n : 1) * n * sizeof *s->vals);
	s->own = malloc((s->ms.n ? s->ms.n : 1) * n * sizeof *s->own);
	s->level = malloc(n * sizeof *s->level);
	s->ringmax = malloc((n + 1) * sizeof *s->ringmax);
	s->have = calloc(s->ms.n ? s->ms.n : 1, 1);
	s->part = malloc((s->ms.n ? s->ms.n : 1) * sizeof *s->part);
	if (!s->vals || !s->own || !s->level || !s->ringmax || !s->have || !s->part)
		return -1;
	for (size_t i = 0; i < (s->ms.n ? s->ms.n : 1) * n; i++) /* nothing read yet */
		s->vals[i] = s->own[i] = NAN;
	s->ok = 1;
	return 0;
}

static void tv_free(void *state)
{
	tv_state *s = state;
	if (!s)
		return;
	topo_layout_free(&s->L);
	topo_tree_free(&s->tree);
	topo_metric_list_free(&s->ms);
	free(s->objs);
	free(s->vals);
	free(s->own);
	free(s->level);
	free(s->ringmax);
	free(s->have);
	free(s->part);
	free(s);
}

static void tv_resize(void *state, int w, int h)
{
	(void)state, (void)w, (void)h;
}

/* Metric k over the current range, everywhere (under < 0 or the machine) or
 * at under and below.  Reading the file's summaries is the costly part of a
 * redraw after the range changed (every stream's edge chunks are decoded),
 * so only the colouring metric is read everywhere; the panel's other
 * metrics only for the selected subtree, and each once per range. */
static void tv_metric(vw_model *m, tv_state *s, size_t k, int32_t under)
{
	size_t n = s->tree.n;
	if (under <= 0)
		under = -1;
	if (s->have[k] || (under >= 0 && s->part[k] == under))
		return;
	int rc = topo_metric_eval(m, &s->ms.v[k], &s->tree, under, s->vt0, s->vt1,
				  s->own + k * n, s->vals + k * n);
	if (rc == VW_PENDING) { /* the last range's values stay drawn meanwhile */
		s->updating = 1;
		return;
	}
	if (rc != 0)
		for (size_t i = 0; i < n; i++)
			s->vals[k * n + i] = s->own[k * n + i] = NAN;
	if (under < 0)
		s->have[k] = 1;
	else
		s->part[k] = under;
}

/* The range changed: forget every value; then the colouring metric. */
static void tv_values(vw_model *m, tv_state *s, int64_t t0, int64_t t1)
{
	if (!s->valid || s->vt0 != t0 || s->vt1 != t1) {
		for (size_t k = 0; k < s->ms.n; k++)
			s->have[k] = 0, s->part[k] = -1;
		s->vt0 = t0, s->vt1 = t1, s->valid = 1;
	}
	if (s->ms.n)
		tv_metric(m, s, s->metric, -1);
}

/* Geometry for the current root, span mode and values; keeps sel drawn. */
static void tv_layout(tv_state *s)
{
	const double *w = s->tree.leafw;
	if (s->by_metric && s->ms.n)
		w = s->vals + s->metric * s->tree.n;
	topo_layout_free(&s->L);
	if (topo_layout_build(&s->L, &s->tree, s->root, w) != MCZ_OK)
		return;
	if (s->sel < 0 || (size_t)s->sel >= s->tree.n || s->L.seg_of[s->sel] < 0)
		s->sel = s->root;
}

static const char *tv_agg_name(int agg)
{
	return agg == TOPO_AGG_MEAN ? "mean" : agg == TOPO_AGG_RATIO ? "ratio" : "sum";
}

static void tv_draw_header(vw_canvas *c, const vw_model *m, const tv_state *s, const char *range)
{
	int x = vw_canvas_text(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD, "Topology  ");
	if (m->nfiles > 1) /* streams of the other files are bound to their own tables */
		x += vw_canvas_printf(c, x, 0, c->w - x, VW_C_WARN, 0, "file 1 of %zu  ", m->nfiles);
	if (s->ms.n) {
		const topo_metric *mt = &s->ms.v[s->metric];
		x += vw_canvas_printf(c, x, 0, c->w - x, VW_C_NORMAL, VW_A_BOLD, "%s", mt->name);
		x += vw_canvas_printf(c, x, 0, c->w - x, VW_C_DIM, 0, " [%s, %s%s]", mt->unit,
				      tv_agg_name(mt->agg), mt->estimated ? ", estimated" : "");
		/* whole or not at all: "1/17" cut to "1/1" reads as the last metric */
		char cnt[48];
		int cl = snprintf(cnt, sizeof cnt, " %zu/%zu", (size_t)s->metric + 1, s->ms.n);
		if (cl <= c->w - x)
			x += vw_canvas_text(c, x, 0, c->w - x, VW_C_DIM, 0, cnt);
		x += vw_canvas_text(c, x, 0, c->w - x, VW_C_DIM, 0, "  ");
	} else {
		x += vw_canvas_text(c, x, 0, c->w - x, VW_C_WARN, 0,
				    "no stream is bound to a topology object: structure only  ");
	}
	x += vw_canvas_printf(c, x, 0, c->w - x, VW_C_LABEL, 0, "over %s", range);
	x += vw_canvas_printf(c, x, 0, c->w - x, VW_C_DIM, 0, "  span: %s",
			      s->by_metric && s->ms.n ? "metric" : "leaves");
	if (s->root != 0) {
		char lab[96];
		topo_tree_label(&s->tree, s->root, 0, lab, sizeof lab);
		x += vw_canvas_printf(c, x, 0, c->w - x, VW_C_WARN, 0, "  zoom: %s", lab);
	}
	if (s->updating) /* values of the last range until this one is read */
		vw_canvas_text(c, x, 0, c->w - x, VW_C_WARN, VW_A_BOLD, "  updating...");
}

static void tv_draw_message(vw_canvas *c, const char *msg)
{
	int w = c->w - 4 > 20 ? c->w - 4 : c->w, y = c->h / 2 - 1;
	vw_canvas_text(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD, "Topology");
	/* wrap at spaces */
	for (const char *p = msg; *p && y < c->h; y++) {
		size_t n = strlen(p);
		if ((int)n > w) {
			n = (size_t)w;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = (size_t)w;
		}
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)n, p);
		int x = (c->w - (int)strlen(line)) / 2;
		vw_canvas_text(c, x > 0 ? x : 0, y, c->w, y == c->h / 2 - 1 ? VW_C_WARN : VW_C_NORMAL,
			       0, line);
		p += n;
		while (*p == ' ')
			p++;
	}
}

static void tv_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	tv_state *s = state;
	char range[96];
	int64_t t0, t1;

	vw_canvas_clear(c);
	if (!s->ok) {
		tv_draw_message(c, s->why);
		return;
	}
	vw_span_of(an, &t0, &t1, range, sizeof range);
	s->updating = 0;
	tv_values(m, s, t0, t1);
	tv_layout(s);

	int side = c->w >= 80, panel_w = side ? (c->w / 3 < 44 ? c->w / 3 : 44) : c->w;
	int panel_h = side ? c->h - 3 : (c->h - 3) / 3;
	s->cx = 0, s->cy = 1;
	s->cw = side ? c->w - panel_w - 1 : c->w;
	s->ch = side ? c->h - 3 : c->h - 3 - panel_h;
	int shape = s->shape;
	if (shape < 0) {
		topo_geom g;
		topo_render_geom(c, s->cw, s->ch, s->L.nrings, TOPO_SUNBURST, &g);
		shape = c->w < 50 || g.ring < 1.5 * g.sx ? TOPO_ICICLE : TOPO_SUNBURST;
	}
	s->drawn_shape = shape;
	s->ascii = c->ascii, s->blocks = c->blocks;

	const topo_metric *mt = s->ms.n ? &s->ms.v[s->metric] : NULL;
	const double *v = mt ? s->vals + s->metric * s->tree.n : NULL;
	int per_ring = mt && mt->agg == TOPO_AGG_SUM;
	double fixed = mt && !strcmp(mt->unit, "%") ? 100 : 0;
	if (v)
		topo_layout_levels(&s->L, s->tree.n, v, per_ring, fixed, s->level, s->ringmax);
	topo_render_opts ro = {shape, v ? s->level : NULL, s->sel, 1};
	topo_render(c, s->cx, s->cy, s->cw, s->ch, &s->tree, &s->L, &ro);

	for (size_t k = 0; k < s->ms.n; k++) /* the panel's other metrics: at sel */
		tv_metric(m, s, k, s->sel);
	tv_draw_header(c, m, s, range); /* after every read: it says if one is pending */
	topo_panel_in pin = {&s->tree, s->sel, s->ms.v, s->ms.n, s->metric, s->vals,
			     v ? s->level : NULL};
	if (side)
		topo_panel_draw(c, c->w - panel_w, 1, panel_w, panel_h, &pin);
	else
		topo_panel_draw(c, 0, 1 + s->ch, c->w, panel_h, &pin);

	/* legend: the scale's top is the selected segment's ring for sums */
	double lo = 0, hi = NAN;
	char of[96] = "";
	if (v) {
		int ring = s->L.seg[s->L.seg_of[s->sel]].ring;
		for (size_t k = 0; k < s->L.nseg; k++)
			if (!isnan(v[s->L.seg[k].node]))
				lo = fmin(lo, v[s->L.seg[k].node]);
		if (fixed > 0) {
			hi = fixed;
		} else if (per_ring) {
			char lab[32];
			hi = s->ringmax[ring];
			topo_tree_label(&s->tree, s->sel, 0, lab, sizeof lab);
			lab[strcspn(lab, "# ")] = '\0';
			snprintf(of, sizeof of, "top: largest in the %s ring", lab);
		} else {
			for (int r = 0; r < s->L.nrings; r++)
				hi = isnan(hi) ? s->ringmax[r] : fmax(hi, s->ringmax[r]);
		}
	}
	topo_panel_legend(c, 0, c->h - 2, c->w, mt, lo, hi, of);
	vw_canvas_text(c, 0, c->h - 1, c->w, VW_C_DIM, 0,
		       "arrows/hjkl move  Enter zoom in  Bksp out  m metric  L layout  w span  "
		       "+/- time  ? help");
}

static unsigned tv_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	tv_state *s = state;
	int wrap = s->drawn_shape == TOPO_SUNBURST;
	int32_t to = -1;

	if (!s->ok)
		return VW_R_NONE;
	if (s->L.nseg == 0)
		tv_layout(s);
	switch (in->act) {
	case VW_ACT_LEFT: to = topo_layout_move(&s->L, &s->tree, s->sel, -1, wrap); break;
	case VW_ACT_RIGHT: to = topo_layout_move(&s->L, &s->tree, s->sel, 1, wrap); break;
	case VW_ACT_UP: to = topo_layout_move(&s->L, &s->tree, s->sel, 0, wrap); break;
	case VW_ACT_DOWN: to = topo_layout_move(&s->L, &s->tree, s->sel, 2, wrap); break;
	case VW_ACT_HOME: to = s->root; break;
	case VW_ACT_ENTER: {
		int32_t target = topo_layout_move(&s->L, &s->tree, s->sel, 2, 0) >= 0
					 ? s->sel
					 : topo_tree_parent(&s->tree, s->sel);
		if (target < 0 || target == s->root)
			return VW_R_NONE;
		s->root = target;
		tv_layout(s);
		return VW_R_REDRAW;
	}
	case VW_ACT_BACK:
		if (s->root == 0 && m->phase_sel >= 0) { /* out of the phase: the window again */
			m->phase_sel = -1;
			return VW_R_REDRAW;
		}
		if (s->root == 0)
			return VW_R_NONE;
		s->root = topo_tree_parent(&s->tree, s->root);
		if (s->root < 0)
			s->root = 0;
		tv_layout(s);
		return VW_R_REDRAW;
	case VW_ACT_METRIC:
		if (s->ms.n < 2)
			return VW_R_NONE;
		s->metric = (s->metric + 1) % s->ms.n;
		return VW_R_REDRAW;
	case VW_ACT_LAYOUT:
		s->shape = s->drawn_shape == TOPO_SUNBURST ? TOPO_ICICLE : TOPO_SUNBURST;
		return VW_R_REDRAW;
	case VW_ACT_ZOOM_IN: vw_model_zoom(m, 0.5, (m->t0 + m->t1) / 2); return VW_R_REDRAW;
	case VW_ACT_ZOOM_OUT: vw_model_zoom(m, 2.0, (m->t0 + m->t1) / 2); return VW_R_REDRAW;
	case VW_ACT_PAGE_LEFT: vw_model_pan(m, -0.5); return VW_R_REDRAW;
	case VW_ACT_PAGE_RIGHT: vw_model_pan(m, 0.5); return VW_R_REDRAW;
	case VW_ACT_RESET:
		vw_model_reset(m);
		m->phase_sel = -1;
		s->root = 0;
		tv_layout(s);
		return VW_R_REDRAW;
	case VW_ACT_MOUSE:
		if (in->mouse_button != 1)
			return VW_R_NONE;
		to = topo_render_hit(&(vw_canvas){.ascii = s->ascii, .blocks = s->blocks}, s->cx, s->cy, s->cw, s->ch,
				     &s->L, s->drawn_shape, in->mouse_x, in->mouse_y);
		break;
	default:
		if (in->key == 'M' && s->ms.n > 1) {
			s->metric = (s->metric + s->ms.n - 1) % s->ms.n;
			return VW_R_REDRAW;
		}
		if (in->key == 'w') {
			s->by_metric = !s->by_metric;
			tv_layout(s);
			return VW_R_REDRAW;
		}
		return VW_R_NONE;
	}
	if (to < 0 || to == s->sel)
		return VW_R_NONE;
	s->sel = to;
	return VW_R_REDRAW;
}

static const char *const tv_help[] = {
	"Left/Right h/l  previous/next segment on the same ring",
	"Up/k Down/j     parent (inwards) / first child (outwards)",
	"Home g          select the centre",
	"Enter           zoom into the selected subtree (the new centre)",
	"Bksp Esc        zoom out one level; at the machine, leave the phase",
	"n p             next / previous phase: colours over that phase",
	"m M             next / previous colouring metric",
	"L               sunburst <-> icicle",
	"w               span by leaves <-> span by the metric",
	"+ - PgUp PgDn 0 time window: zoom, pan, reset (recolours)",
	"click           select a segment",
	NULL,
};

const vw_view view_topology = {
	.name = "topology",
	.title = "Topology",
	.init = tv_init,
	.free = tv_free,
	.resize = tv_resize,
	.key = tv_key,
	.draw = tv_draw,
	.help = tv_help,
};
