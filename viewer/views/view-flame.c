/* view-flame.c: the flame graph of a span — the call stacks (mcrec
 * --call-graph) of the selected phase (n/p), else the selected time range,
 * else the timeline's window, as an icicle: the callers on top, each
 * frame as wide as its share of the span's samples, its name cut to fit;
 * frames of MPI and of OpenMP runtimes coloured as the Ranks view colours
 * them.  The tree is viewer/analysis/code/flame.c's; names are those of `mcz
 * dump --code --folded`, so the shares read here are the export's.
 *
 *     line 0      the span, the rank (r: all ranks, one after another), samples
 *     lines 1..   one line per depth: the zoomed frame's callers across the
 *                 width (dim), then it and its callees
 *     last but 1  the search: its matches' share (/: typed at the prompt)
 *     last line   readout: the selected frame, its self and total share
 *
 * Left/Right (h/l) go to the nearest frame of the same depth on screen,
 * Up/Down (k/j) to the caller, the heaviest callee; Enter zooms into the
 * selected frame (its subtree fills the width), Backspace/Esc out one
 * level (at the top: leaves the phase, as the Topology view does); a click
 * selects a frame; PgUp/PgDn, + - 0 move the timeline's window.  The
 * tree is built again when the span or the rank changes, the selection
 * and zoom kept by their names' path.  Without stacks, one line says how
 * to record them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw.h"
#include "view.h"

#define FL_MAXPATH 256

typedef struct fl_state {
	vw_flame fl;
	int built;                 /* fl holds the tree of the key below */
	int64_t t0, t1;
	size_t file;               /* SIZE_MAX: every file */
	const void *code;          /* the model's stack tables it was built from */
	uint32_t sel, zoom;
	int top;                   /* first depth shown */
	char search[VW_SEARCH_LEN];
	uint8_t *mark;
	char marked[VW_SEARCH_LEN]; /* the pattern mark was made for */
	uint64_t found;
	int *x0, *x1;               /* the layout last drawn */
	size_t nxy;
	int drawn;                  /* x0, x1 are the tree's as built */
} fl_state;

static int fl_init(vw_ctx *ctx, void **state)
{
	(void)ctx;
	fl_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->file = SIZE_MAX;
	*state = s;
	return 0;
}

static void fl_free(void *state)
{
	fl_state *s = state;
	if (!s)
		return;
	vw_flame_free(&s->fl);
	free(s->mark), free(s->x0), free(s->x1);
	free(s);
}

static char *fl_search(void *state)
{
	return ((fl_state *)state)->search;
}

/* The span (span.c's), the whole run as every sample, as the folded
 * export gives it without --from and --to. */
static void fl_range(const vw_an *an, int64_t *t0, int64_t *t1, char *what, size_t len)
{
	vw_span_of(an, t0, t1, what, len);
	if (!strcmp(what, "whole run"))
		*t0 = INT64_MIN, *t1 = INT64_MAX;
}

/* The names from the root to node k (the root left out), innermost last. */
static size_t fl_path(const vw_flame *fl, uint32_t k, uint32_t *out)
{
	size_t n = 0;
	for (uint32_t x = k; x && x < fl->n && n < FL_MAXPATH; x = fl->v[x].parent)
		out[n++] = fl->v[x].name;
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = out[i];
		out[i] = out[n - 1 - i], out[n - 1 - i] = t;
	}
	return n;
}

/* The node of that path in fl, as deep as it still goes. */
static uint32_t fl_find(const vw_flame *fl, const uint32_t *path, size_t n)
{
	uint32_t at = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = vw_flame_child_named(fl, at, path[i]);
		if (c == VW_FLAME_NONE)
			break;
		at = c;
	}
	return at;
}

/* The tree of the current span and rank, built again when they change. */
static int fl_update(vw_an *an, fl_state *s, int64_t t0, int64_t t1)
{
	const void *code = vw_stacktab_get(an);
	if (!code)
		return -1;
	if (s->built && s->t0 == t0 && s->t1 == t1 && s->code == code)
		return 0;
	uint32_t psel[FL_MAXPATH], pzoom[FL_MAXPATH];
	size_t nsel = s->built ? fl_path(&s->fl, s->sel, psel) : 0;
	size_t nzoom = s->built ? fl_path(&s->fl, s->zoom, pzoom) : 0;
	vw_flame_free(&s->fl);
	s->built = 0;
	if (vw_flame_build(an, s->file, SIZE_MAX, t0, t1, &s->fl))
		return -1;
	if (s->nxy < s->fl.n) {
		free(s->mark), free(s->x0), free(s->x1);
		s->mark = malloc(s->fl.n);
		s->x0 = malloc(s->fl.n * sizeof *s->x0);
		s->x1 = malloc(s->fl.n * sizeof *s->x1);
		s->nxy = s->mark && s->x0 && s->x1 ? s->fl.n : 0;
		if (!s->nxy) {
			vw_flame_free(&s->fl);
			return -1;
		}
	}
	s->built = 1;
	s->drawn = 0;
	s->t0 = t0, s->t1 = t1, s->code = code;
	s->zoom = fl_find(&s->fl, pzoom, nzoom);
	s->sel = fl_find(&s->fl, psel, nsel);
	if (!vw_flame_within(&s->fl, s->sel, s->zoom))
		s->sel = s->zoom;
	s->marked[0] = 1; /* the search marked again */
	return 0;
}

/* The next file with stacks after file (SIZE_MAX: every file, first). */
static size_t fl_next_file(vw_an *an, size_t file)
{
	const vw_stacktab *st = vw_stacktab_get(an);
	size_t from = file == SIZE_MAX ? 0 : file + 1;
	for (size_t f = from; st && f < st->nfiles; f++)
		if (st->f[f].c)
			return f;
	return SIZE_MAX;
}

static unsigned fl_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	fl_state *s = state;
	if (in->key == 'r') { /* the ranks one after another, then all */
		s->file = fl_next_file(an, s->file);
		s->code = NULL; /* built again, the selection kept */
		return VW_R_REDRAW;
	}
	switch (in->act) { /* the timeline's window, as the Ranks view moves it */
	case VW_ACT_PAGE_LEFT: vw_model_pan(m, -1.0); return VW_R_REDRAW;
	case VW_ACT_PAGE_RIGHT: vw_model_pan(m, 1.0); return VW_R_REDRAW;
	case VW_ACT_ZOOM_IN: vw_model_zoom(m, 0.5, m->cursor); return VW_R_REDRAW;
	case VW_ACT_ZOOM_OUT: vw_model_zoom(m, 2.0, m->cursor); return VW_R_REDRAW;
	case VW_ACT_RESET: vw_model_reset(m); return VW_R_REDRAW;
	default: break;
	}
	if (!s->built)
		return VW_R_NONE;
	const vw_flame *fl = &s->fl;
	const vw_flame_node *n = &fl->v[s->sel];
	uint32_t to = VW_FLAME_NONE;
	switch (in->act) {
	case VW_ACT_UP:
		if (s->sel != s->zoom)
			to = n->parent;
		break;
	case VW_ACT_DOWN:
		to = n->child; /* the heaviest callee */
		break;
	case VW_ACT_LEFT:
	case VW_ACT_RIGHT: /* the nearest frame of the same depth as last drawn */
		for (uint32_t k = 0; s->drawn && k < fl->n; k++) {
			if (fl->v[k].depth != n->depth || s->x1[k] <= s->x0[k] || k == s->sel)
				continue;
			int d = s->x0[k] - s->x0[s->sel];
			if ((in->act == VW_ACT_LEFT ? d < 0 : d > 0) &&
			    (to == VW_FLAME_NONE || abs(d) < abs(s->x0[to] - s->x0[s->sel])))
				to = k;
		}
		break;
	case VW_ACT_HOME:
		to = s->zoom;
		break;
	case VW_ACT_MOUSE: /* a click selects the frame under it */
		for (uint32_t k = 0; in->mouse_button == 1 && s->drawn && k < fl->n; k++)
			if ((int)fl->v[k].depth == in->mouse_y - 1 + s->top && s->x0[k] <= in->mouse_x &&
			    in->mouse_x < s->x1[k])
				to = k;
		break;
	case VW_ACT_ENTER:
		s->zoom = s->sel;
		return VW_R_REDRAW;
	case VW_ACT_BACK:
		if (s->zoom) {
			s->zoom = fl->v[s->zoom].parent;
			return VW_R_REDRAW;
		}
		if (m->phase_sel >= 0) { /* at the top: out of the phase, to the window */
			m->phase_sel = -1;
			return VW_R_REDRAW;
		}
		return VW_R_NONE;
	default:
		return VW_R_NONE;
	}
	if (to == VW_FLAME_NONE || to >= fl->n)
		return VW_R_NONE;
	s->sel = to;
	return VW_R_REDRAW;
}

/* The colour of a frame: MPI and sync as the Ranks view's "doing"
 * colours (view-ranks.c), work in the work colour. */
static int fl_role(int cls)
{
	static const int role[VW_CC_N] = {VW_C_SERIES0 + 1, VW_C_SERIES0 + 5, VW_C_SERIES0 + 2};
	return cls >= 0 && cls < VW_CC_N ? role[cls] : VW_C_NORMAL;
}

static double fl_pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

static const char *fl_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void fl_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	fl_state *s = state;
	vw_canvas_clear(c);
	if (!vw_stacktab_has(an)) {
		vw_canvas_text(c, 1, 1, c->w - 2, VW_C_DIM, 0,
			       "no call stacks in this recording: record them with "
			       "mcrec --call-graph fp|dwarf -- ./app");
		return;
	}
	int64_t t0, t1;
	char what[128], who[48] = "all ranks";
	fl_range(an, &t0, &t1, what, sizeof what);
	if (fl_update(an, s, t0, t1)) {
		vw_canvas_text(c, 1, 1, c->w - 2, VW_C_ERROR, 0, "flame graph: out of memory");
		return;
	}
	const vw_flame *fl = &s->fl;
	uint64_t all = fl->v[0].total;
	if (s->file != SIZE_MAX) {
		const char *rk = mcz_meta(m->files[s->file], "rank");
		if (rk && *rk)
			snprintf(who, sizeof who, "rank %.20s", rk);
		else
			snprintf(who, sizeof who, "file %zu", s->file + 1);
	} else if (m->nfiles < 2) {
		snprintf(who, sizeof who, "all threads");
	}
	vw_canvas_printf(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD, "flame graph of %s, %s: %llu sample%s",
			 what, who, (unsigned long long)all, fl_s(all));
	if (!all) {
		vw_canvas_text(c, 1, 2, c->w - 2, VW_C_DIM, 0,
			       "no stack was sampled in this span (n/p: a phase; 0: the whole run)");
		return;
	}
	if (strcmp(s->marked, s->search)) {
		s->found = vw_flame_search(fl, s->search, s->mark);
		snprintf(s->marked, sizeof s->marked, "%s", s->search);
	}
	vw_flame_layout(fl, s->zoom, c->w, s->x0, s->x1);
	s->drawn = 1;
	int search = s->search[0] != 0;
	int rows = c->h - 2 - search;
	int dsel = (int)fl->v[s->sel].depth;
	if (dsel < s->top)
		s->top = dsel;
	if (dsel >= s->top + rows)
		s->top = dsel - rows + 1;
	for (size_t k = 0; k < fl->n; k++) {
		const vw_flame_node *n = &fl->v[k];
		int y = 1 + (int)n->depth - s->top, x0 = s->x0[k], x1 = s->x1[k];
		if (y < 1 || y > rows || x0 < 0 || x1 <= x0)
			continue;
		int above = n->depth < fl->v[s->zoom].depth; /* the zoomed frame's callers */
		int on = k == s->sel;
		int role = on ? VW_C_SELECT : s->mark[k] ? VW_C_MARK : above ? VW_C_DIM : fl_role(n->cls);
		int attr = VW_A_REVERSE | (on || s->mark[k] ? VW_A_BOLD : 0);
		int w = x1 - x0 > 1 ? x1 - x0 - 1 : 1; /* a gap between neighbours */
		vw_canvas_fill(c, x0, y, w, 1, ' ', role, attr);
		if (w >= 2)
			vw_canvas_text(c, x0, y, w, role, attr, vw_flame_name(fl, (uint32_t)k));
	}
	if (search)
		vw_canvas_printf(c, 0, c->h - 2, c->w, VW_C_MARK, VW_A_BOLD,
				 "search /%s: %.1f %% (%llu of %llu sample%s)", s->search,
				 fl_pct(s->found, all), (unsigned long long)s->found,
				 (unsigned long long)all, fl_s(all));
	const vw_flame_node *n = &fl->v[s->sel];
	int x = vw_canvas_printf(c, 0, c->h - 1, c->w, VW_C_STATUS, VW_A_BOLD, "%s",
				 vw_flame_name(fl, s->sel));
	vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0,
			 "  total %.1f %% (%llu sample%s)  self %.1f %% (%llu)%s%s",
			 fl_pct(n->total, all), (unsigned long long)n->total, fl_s(n->total),
			 fl_pct(n->self, all),
			 (unsigned long long)n->self, n->cls != VW_CC_WORK ? "  " : "",
			 n->cls != VW_CC_WORK ? vw_codeclass_name(n->cls) : "");
}

/* In the tab bar where the files hold a code profile; f opens it anyway
 * (to say how to record stacks). */
static int fl_shown(vw_ctx *ctx)
{
	vw_an *an = ctx->an;
	return vw_hotcode_has(an);
}

static const char *const fl_help[] = {
	"f               the flame graph (every view)",
	"Left/Right h/l  the frame left/right of it (the same depth)",
	"Up/Down k/j     the caller; the heaviest callee",
	"Enter           zoom into the frame (it fills the width)",
	"Backspace Esc   zoom out (at the top: leave the phase)",
	"/               search: matching frames highlighted, their share",
	"r               one rank after another, then all",
	"n/p             a phase's stacks (else the selection, else the window)",
	"PgUp PgDn + - 0 pan, zoom the window; the whole run",
	NULL,
};

const vw_view view_flame = {
	.name = "flame",
	.title = "Flame",
	.init = fl_init,
	.free = fl_free,
	.resize = NULL,
	.key = fl_key,
	.draw = fl_draw,
	.help = fl_help,
	.shown = fl_shown,
	.search = fl_search,
};
