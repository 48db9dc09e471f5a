/* view-compare.c: the Compare view (mcview --compare A B) — the matched
 * phases of two runs ranked by the time each lost (slower first): each
 * phase's duration on either side, the delta, what noise explains, the
 * share as a bar, the verdict (slower beyond noise in the warning colour,
 * faster in the value colour); then the phases found on one side only.
 * Above the table: the two runs, what differs between the recordings
 * (host, CPU, kernel, interval...) and any run cut short.
 *
 * Up/Down select a phase, Enter zooms the timeline (run A) to it.  Drawing
 * is a pure function of an->compare (viewer/analysis/compare/compare.h) and this
 * view's state; without a comparison the view says how to get one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw.h"
#include "view.h"

typedef struct compare_state {
	int sel;  /* line selected (rank order) */
	int top;  /* first line shown */
} compare_state;

static int compare_init(vw_ctx *ctx, void **state)
{
	(void)ctx;
	compare_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	*state = s;
	return 0;
}

static void compare_free(void *state)
{
	free(state);
}

static unsigned compare_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	compare_state *s = state;
	const vw_compare *c = an->compare;
	if (!c || !c->nm)
		return VW_R_NONE;
	int n = (int)c->nm, line = s->sel;
	switch (in->act) {
	case VW_ACT_UP: line--; break;
	case VW_ACT_DOWN: line++; break;
	case VW_ACT_PAGE_UP: line -= 10; break;
	case VW_ACT_PAGE_DOWN: line += 10; break;
	case VW_ACT_HOME: line = 0; break;
	case VW_ACT_END: line = n - 1; break;
	case VW_ACT_ENTER: {
		const vw_cmp_match *x = &c->m[c->rank[s->sel]];
		int64_t t0 = m->t_min + (int64_t)(x->a_start * 1e9);
		int64_t t1 = t0 + (int64_t)(x->dur_a * 1e9), pad = (t1 - t0) / 20;
		vw_model_set_window(m, t0 - pad, t1 + pad);
		int i = vw_phases_find(an->phases, t0);
		m->phase_sel = i;
		vw_model_set_cursor(m, t0);
		int tl = vw_views_find("timeline");
		if (tl >= 0)
			m->view = tl;
		return VW_R_REDRAW | VW_R_RECOMPUTE;
	}
	default: return VW_R_NONE;
	}
	s->sel = line < 0 ? 0 : line >= n ? n - 1 : line;
	return VW_R_REDRAW;
}

/* "1.503s" with 3 decimals whatever the length (columns line up). */
static void compare_secs(char *b, size_t len, double s)
{
	snprintf(b, len, isfinite(s) ? "%.3fs" : "-", s);
}

static void compare_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_an *an = ctx->an;
	compare_state *s = state;
	const vw_compare *k = an->compare;
	vw_canvas_clear(c);
	if (!k) {
		vw_canvas_text(c, 1, 1, c->w - 2, VW_C_DIM, 0,
			       "no comparison: mcview --compare A.mcz B.mcz");
		return;
	}
	int y = 0;
	vw_canvas_printf(c, 0, y++, c->w, VW_C_TITLE, VW_A_BOLD,
			 "%zu phase%s matched (%s), %zu only in A, %zu only in B; run %.3fs -> %.3fs (%+.1f%%)",
			 k->nm, k->nm == 1 ? "" : "s", vw_compare_how(k), k->nonly_a, k->nonly_b, k->total_a,
			 k->total_b, k->total_a > 0 ? 100 * (k->total_b / k->total_a - 1) : 0.0);
	vw_canvas_printf(c, 0, y++, c->w, VW_C_LABEL, 0, "A: %s", k->names[0]);
	vw_canvas_printf(c, 0, y++, c->w, VW_C_LABEL, 0, "B: %s", k->names[1]);
	for (size_t i = 0; i < k->nmeta && y < c->h - 2; i++)
		vw_canvas_printf(c, 0, y++, c->w, VW_C_WARN, 0, "differs: %s", k->meta[i]);
	for (int i = 0; i < 2 && y < c->h - 2; i++)
		if (k->warn[i][0])
			vw_canvas_printf(c, 0, y++, c->w, VW_C_WARN, 0, "warning: %s", k->warn[i]);
	/* rank phase start A B delta noise share bar verdict */
	const int wl = 16, fixed = 4 + 1 + wl + 1 + 8 + 1 + 9 + 1 + 9 + 1 + 8 + 1 + 6 + 1 + 5 + 1;
	int bar = c->w - fixed - 8;
	bar = bar > 20 ? 20 : bar < 0 ? 0 : bar;
	vw_canvas_printf(c, 0, y++, c->w, VW_C_AXIS, VW_A_BOLD, "%4s %-*s %8s %9s %9s %8s %6s %5s %-*s %s",
			 "rank", wl, "phase", "start", "A", "B", "delta", "noise", "share", bar, "",
			 "verdict");
	int rows = c->h - y - (k->nonly_a + k->nonly_b ? 1 : 0);
	int n = (int)k->nm;
	if (s->sel >= n)
		s->sel = n ? n - 1 : 0;
	if (s->sel < s->top)
		s->top = s->sel;
	if (rows > 0 && s->sel >= s->top + rows)
		s->top = s->sel - rows + 1;
	for (int l = s->top; l < n && y < c->h && l < s->top + rows; l++, y++) {
		const vw_cmp_match *x = &k->m[k->rank[l]];
		int on = l == s->sel;
		int role = x->regressed ? VW_C_WARN : x->beyond ? VW_C_VALUE : VW_C_NORMAL;
		int attr = on ? VW_A_REVERSE | VW_A_BOLD : x->regressed ? VW_A_BOLD : 0;
		if (on)
			vw_canvas_fill(c, 0, y, c->w, 1, ' ', role, attr);
		char st[24], da[24], db[24], d[24], no[24];
		compare_secs(st, sizeof st, x->a_start);
		compare_secs(da, sizeof da, x->dur_a);
		compare_secs(db, sizeof db, x->dur_b);
		snprintf(d, sizeof d, "%+.1f%%", x->delta_pct);
		snprintf(no, sizeof no, "%.1f%%", x->noise_pct);
		int cx = vw_canvas_printf(c, 0, y, c->w, role, attr, "%4d %-*.*s %8s %9s %9s %8s %6s %4.0f%% ",
					  x->rank, wl, wl, x->label, st, da, db, d, no, x->share_pct);
		int cells = (int)lround(fabs(x->share_pct) / 100 * bar);
		for (int b = 0; b < bar; b++)
			vw_canvas_put(c, cx + b, y, b < cells ? (c->ascii ? '#' : 0x2588) : ' ',
				      b < cells ? role : VW_C_DIM, attr);
		vw_canvas_text(c, cx + bar + 1, y, c->w - cx - bar - 1, role, attr,
			       x->regressed ? "SLOWER" : x->beyond ? "faster" : "same");
	}
	if (y < c->h && k->nonly_a + k->nonly_b) {
		char line[512];
		size_t u = 0;
		line[0] = '\0';
		for (int side = 0; side < 2; side++) {
			const vw_cmp_phase *v = side ? k->only_b : k->only_a;
			size_t nv = side ? k->nonly_b : k->nonly_a;
			for (size_t i = 0; i < nv && u < sizeof line; i++) {
				int w = snprintf(line + u, sizeof line - u, "%s%s (%.3fs)",
						 i ? ", " : side && k->nonly_a ? "; only in B: "
							  : side ? "only in B: " : "only in A: ",
						 v[i].label, v[i].dur);
				u += w > 0 ? (size_t)w : 0;
			}
		}
		vw_canvas_text(c, 0, c->h - 1, c->w, VW_C_DIM, 0, line);
	}
}

static int compare_shown(vw_ctx *ctx)
{
	vw_an *an = ctx->an;
	return an->compare != NULL;
}

static const char *const compare_help[] = {
	"Up/Down  select a phase (most time lost first)",
	"Enter    zoom run A's timeline to the phase",
	NULL,
};

const vw_view view_compare = {
	.name = "compare",
	.title = "Compare",
	.init = compare_init,
	.free = compare_free,
	.resize = NULL,
	.key = compare_key,
	.draw = compare_draw,
	.help = compare_help,
	.shown = compare_shown,
};
