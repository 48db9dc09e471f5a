/* view-phases.c: the phases view — one line per phase: class, start,
 * duration, memory read and write bytes and their ratio, bandwidth, GPU
 * power, network rate, IPC, the mean of a stream the user picks (m), the
 * mark nearest to each detected boundary, and the description.
 *
 * Up/Down select a phase (m->phase_sel, shared with every view), n/p go to
 * the next/previous phase in time, s sorts by the next column (start
 * ascending, figures descending), m cycles the extra stream column through
 * the rows, Enter zooms the timeline to the phase and shows it, ] and [
 * ask for fewer or more phases (penalty x1.5, /1.5; re-detected at once).  Columns
 * that no phase has a value for are left out, and a line says which
 * streams were missing.  With a code profile, a panel below the table
 * lists the selected phase's hottest functions (code-row.c), and with
 * call stacks, above it, which functions its MPI and sync time wait in
 * (waitowner.h).  Drawing is a pure function of the model and this
 * view's state; the table's text is also what `mcview --report` prints
 * (report.c: vw_report_layout, vw_report_cell).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw.h"
#include "../model/model.h"
#include "../analysis/analysis.h"
#include "view.h"

typedef struct phases_state {
	int sort;          /* a vw_phase_col */
	int extra_row;     /* group row for the extra column, -1 none */
	int top;           /* first line shown */
	const struct vw_phases *seen; /* phases the cached column belongs to */
	double *extra;     /* per phase: mean of extra_row */
	size_t nextra;
	int *order;
	size_t norder;
} phases_state;

static int phases_init(vw_ctx *ctx, void **state)
{
	phases_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->sort = VW_PCOL_START;
	s->extra_row = -1;
	*state = s;
	return 0;
}

static void phases_free(void *state)
{
	phases_state *s = state;
	if (!s)
		return;
	free(s->extra);
	free(s->order);
	free(s);
}

/* The extra column's values, recomputed when the phases or the row change. */
static void phases_extra(vw_an *an, phases_state *s)
{
	vw_model *m = an->m;
	size_t n = vw_phases_count(an->phases);
	if (s->seen == an->phases && s->nextra == n)
		return;
	free(s->extra);
	s->extra = NULL;
	s->nextra = 0;
	s->seen = an->phases;
	if (s->extra_row < 0 || (size_t)s->extra_row >= m->ngroups || !n)
		return;
	s->extra = malloc(n * sizeof *s->extra);
	if (!s->extra)
		return;
	s->nextra = n;
	const vw_row *r = &m->groups[s->extra_row];
	for (size_t i = 0; i < n; i++) {
		double sum = NAN;
		for (size_t k = 0; k < r->nmembers; k++) {
			double v = vw_phases_stream_mean(an, i, r->members[k]);
			if (!isnan(v))
				sum = isnan(sum) ? v : sum + v;
		}
		s->extra[i] = sum;
	}
}

static phases_state *sort_state;
static vw_an *sort_an;

static int phases_cmp(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	double x = vw_report_sortval(sort_an, i, sort_state->sort, sort_state->extra);
	double y = vw_report_sortval(sort_an, j, sort_state->sort, sort_state->extra);
	int asc = sort_state->sort == VW_PCOL_START || sort_state->sort == VW_PCOL_CLASS;
	if (isnan(x) != isnan(y))
		return isnan(x) ? 1 : -1; /* missing values last */
	if (x != y && !isnan(x))
		return (x < y) == asc ? -1 : 1;
	return i - j;
}

static void phases_order(vw_an *an, phases_state *s)
{
	size_t n = vw_phases_count(an->phases);
	if (s->norder != n) {
		free(s->order);
		s->order = malloc((n + 1) * sizeof *s->order);
		s->norder = s->order ? n : 0;
	}
	for (size_t i = 0; i < s->norder; i++)
		s->order[i] = (int)i;
	sort_state = s; /* qsort has no context argument; draw is single-threaded */
	sort_an = an;
	qsort(s->order, s->norder, sizeof *s->order, phases_cmp);
}

static int phases_line_of(const phases_state *s, int phase)
{
	for (size_t i = 0; i < s->norder; i++)
		if (s->order[i] == phase)
			return (int)i;
	return -1;
}

static unsigned phases_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	phases_state *s = state;
	int n = (int)vw_phases_count(an->phases);
	if (!n)
		return VW_R_NONE;
	phases_extra(an, s);
	phases_order(an, s);
	int line = m->phase_sel >= 0 ? phases_line_of(s, m->phase_sel) : -1;
	switch (in->act) {
	case VW_ACT_UP:
	case VW_ACT_DOWN:
	case VW_ACT_PAGE_UP:
	case VW_ACT_PAGE_DOWN:
	case VW_ACT_HOME:
	case VW_ACT_END: {
		int step = in->act == VW_ACT_UP ? -1 : in->act == VW_ACT_DOWN ? 1
			   : in->act == VW_ACT_PAGE_UP ? -10 : in->act == VW_ACT_PAGE_DOWN ? 10
			   : in->act == VW_ACT_HOME ? -n : n;
		line = line < 0 ? (step > 0 ? 0 : n - 1) : line + step;
		line = line < 0 ? 0 : line >= n ? n - 1 : line;
		vw_phases_select(an, s->order[line]);
		return VW_R_REDRAW;
	}
	case VW_ACT_NEXT_PHASE:
	case VW_ACT_PREV_PHASE:
		return vw_phases_step(an, in->act == VW_ACT_NEXT_PHASE ? 1 : -1) ? VW_R_REDRAW
										 : VW_R_NONE;
	case VW_ACT_SORT:
		s->sort = vw_report_next_col(an, s->sort, s->extra != NULL);
		return VW_R_REDRAW;
	case VW_ACT_METRIC:
		s->extra_row = s->extra_row + 1 < (int)m->ngroups ? s->extra_row + 1 : -1;
		s->seen = NULL;
		if (s->extra_row < 0 && s->sort == VW_PCOL_EXTRA)
			s->sort = VW_PCOL_START;
		return VW_R_REDRAW;
	case VW_ACT_ENTER: {
		vw_phases_zoom(an, m->phase_sel >= 0 ? m->phase_sel : 0);
		int tl = vw_views_find("timeline");
		if (tl >= 0)
			m->view = tl;
		return VW_R_REDRAW | VW_R_RECOMPUTE;
	}
	default:
		break;
	}
	if (in->key == 'c' && an->phases->source == VW_PHASES_MARKS) {
		/* nested regions: the outermost, or every region */
		vw_phase_params p = an->phases->params;
		char err[128];
		p.level = !p.level;
		if (vw_phases_detect(an, &p, VW_PHASES_MARKS, err, sizeof err) != 0)
			snprintf(ctx->say, sizeof ctx->say, "%s", err);
		else
			snprintf(ctx->say, sizeof ctx->say, "%s: %zu phase%s",
				 p.level ? "every region a phase" : "outermost regions",
				 vw_phases_count(an->phases), vw_phases_count(an->phases) == 1 ? "" : "s");
		s->seen = NULL;
		return VW_R_REDRAW | VW_R_RECOMPUTE | VW_R_SAY;
	}
	if ((in->key == '[' || in->key == ']' || in->key == 'c') &&
	    an->phases->source == VW_PHASES_AUTO) {
		/* fewer / more boundaries, or cycles of steps merged or cut:
		 * re-detection on the kept coarse level */
		vw_phase_params p = an->phases->params;
		char err[128];
		if (in->key == 'c')
			p.level = !p.level;
		else
			p.penalty *= in->key == ']' ? 1.5 : 1 / 1.5;
		if (vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err) != 0)
			snprintf(ctx->say, sizeof ctx->say, "%s", err);
		else if (in->key == 'c')
			snprintf(ctx->say, sizeof ctx->say, "%s: %zu phase%s",
				 p.level ? "every step a phase" : "cycles of steps merged",
				 vw_phases_count(an->phases), vw_phases_count(an->phases) == 1 ? "" : "s");
		else
			snprintf(ctx->say, sizeof ctx->say, "penalty %.3g: %zu phase%s", p.penalty,
				 vw_phases_count(an->phases), vw_phases_count(an->phases) == 1 ? "" : "s");
		s->seen = NULL;
		return VW_R_REDRAW | VW_R_RECOMPUTE | VW_R_SAY;
	}
	return VW_R_NONE;
}

/* "MPI 33 %: a 18 %, b 9 %, …" per waiting class of [t0, t1) at line y,
 * at most max lines (call stacks: waitowner.h); how many were drawn. */
static int phases_waiting(vw_canvas *c, vw_an *an, int64_t t0, int64_t t1, int y, int max)
{
	vw_waiting w;
	if (max <= 0 || vw_waitowner_of(an, SIZE_MAX, SIZE_MAX, t0, t1, &w))
		return 0;
	int n = 0;
	for (int k = VW_CC_WORK + 1; k < VW_CC_N && n < max; k++) {
		char line[400];
		if (vw_waitowner_line(an, &w, k, 3, c->ascii, line, sizeof line))
			vw_canvas_printf(c, 0, y + n++, c->w, VW_C_LABEL, 0, "waiting in %s", line);
	}
	vw_waitowner_free(&w);
	return n;
}

static void phases_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	phases_state *s = state;
	vw_canvas_clear(c);
	size_t n = vw_phases_count(an->phases);
	if (!n) {
		vw_canvas_text(c, 1, 1, c->w - 2, VW_C_DIM, 0,
			       an->phases ? "no phases: the recording holds no samples"
					 : "phases not detected (mcview --phases auto|marks)");
		return;
	}
	phases_extra(an, s);
	phases_order(an, s);
	vw_report_table t;
	vw_report_layout(an, s->extra_row >= 0 ? m->groups[s->extra_row].label : NULL, s->extra,
			 c->w, &t);
	char title[256];
	vw_report_title(an, title, sizeof title);
	vw_canvas_printf(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD, "%s", title);
	int x = 0, y = 1;
	if (t.missing[0]) { /* above the header, which stays on top of its rows */
		vw_canvas_text(c, 0, y, c->w, VW_C_DIM, 0, t.missing);
		y++;
	}
	for (int k = 0; k < t.ncols; k++) {
		const char *arrow = t.col[k] == s->sort ? (c->ascii ? "v" : "\u25be") : "";
		const char *h = vw_report_head(&t, k);
		int cells = (int)strlen(h) + (*arrow ? 1 : 0), pad = t.width[k] - cells;
		int hx = x + (t.right[k] && pad > 0 ? pad : 0);
		vw_canvas_printf(c, hx, y, t.width[k] + 1 - (hx - x), VW_C_AXIS, VW_A_BOLD, "%s%s", h,
				 arrow); /* a full-width name: the arrow takes the gap */
		x += t.width[k] + 1;
	}
	y++;
	/* the hot-code panel of the selected phase (or the run) below, when
	 * the table leaves room for it */
	int panel = 0;
	if (vw_hotcode_has(an) && c->h - y - (int)n >= 5) {
		panel = c->h - y - (int)n - 1;
		panel = panel > 8 ? 8 : panel;
		const vw_phase *p = m->phase_sel >= 0 ? vw_phases_at(an->phases, (size_t)m->phase_sel) : NULL;
		char ptitle[64], cls[8];
		if (p)
			snprintf(ptitle, sizeof ptitle, "code of phase %zu (class %s)",
				 (size_t)m->phase_sel + 1, vw_phase_class_name(p->cls, cls, sizeof cls));
		else
			snprintf(ptitle, sizeof ptitle, "code of the run");
		int64_t t0 = p ? p->t0 : m->t_min, t1 = p ? p->t1 : m->t_max + 1;
		/* with call stacks: who waits, a line per class, above the panel */
		int wl = phases_waiting(c, an, t0, t1, c->h - panel, panel - 3);
		vw_code_row_panel(c, an, t0, t1, ptitle, 0, c->h - panel + wl, c->w, panel - wl);
	}
	int rows = c->h - y - (panel ? panel + 1 : 0);
	int sel = m->phase_sel >= 0 ? phases_line_of(s, m->phase_sel) : -1;
	if (sel >= 0 && sel < s->top)
		s->top = sel;
	if (sel >= 0 && sel >= s->top + rows)
		s->top = sel - rows + 1;
	if (s->top > (int)n - rows)
		s->top = (int)n - rows > 0 ? (int)n - rows : 0;
	for (int l = s->top; l < (int)n && y < c->h - (panel ? panel + 1 : 0); l++, y++) {
		int i = s->order[l], on = i == m->phase_sel;
		int role = on ? VW_C_SELECT : VW_C_NORMAL, attr = on ? VW_A_BOLD | VW_A_REVERSE : 0;
		if (on)
			vw_canvas_fill(c, 0, y, c->w, 1, ' ', role, attr);
		x = 0;
		for (int k = 0; k < t.ncols; k++) {
			char cell[160];
			vw_report_cell(an, &t, k, (size_t)i, cell, sizeof cell);
			int r = role;
			if (t.col[k] == VW_PCOL_CLASS && !on)
				r = VW_C_PHASE0 + vw_phases_color(an->phases->v[i].cls);
			vw_canvas_printf(c, x, y, t.width[k], r, attr, "%*s",
					 t.right[k] ? t.width[k] : -t.width[k], cell);
			x += t.width[k] + 1;
		}
	}
}

void view_phases_band(vw_an *an, vw_canvas *c, int x, int y, int w)
{
	vw_model *m = an->m;
	size_t n = vw_phases_count(an->phases);
	if (!n || w <= 0)
		return;
	double span = (double)(m->t1 - m->t0);
	for (int col = 0; col < w; col++) {
		int64_t a = m->t0 + (int64_t)(span * col / w);
		int64_t b = m->t0 + (int64_t)(span * (col + 1) / w);
		int i = vw_phases_find(an->phases, b - 1); /* a boundary inside: the new phase */
		if (i < 0)
			i = vw_phases_find(an->phases, a);
		if (i < 0)
			continue;
		vw_canvas_put(c, x + col, y, ' ', VW_C_PHASE0 + vw_phases_color(an->phases->v[i].cls),
			      i == m->phase_sel ? VW_A_BOLD | VW_A_UNDERLINE : 0);
	}
	/* each phase's letter in the middle of its part of the band, away from
	 * the marks that sit at its ends */
	for (size_t i = 0; i < n; i++) {
		const vw_phase *p = &an->phases->v[i];
		if (p->t1 <= m->t0 || p->t0 >= m->t1)
			continue;
		int64_t t0 = p->t0 > m->t0 ? p->t0 : m->t0, t1 = p->t1 < m->t1 ? p->t1 : m->t1;
		int col = (int)((double)((t0 + t1) / 2 - m->t0) / span * w);
		char name[8];
		if (col >= 0 && col < w)
			vw_canvas_put(c, x + col, y,
				      (uint32_t)vw_phase_class_name(p->cls, name, sizeof name)[0],
				      VW_C_PHASE0 + vw_phases_color(p->cls),
				      (int)i == m->phase_sel ? VW_A_BOLD | VW_A_UNDERLINE : 0);
	}
}

static const char *const phases_help[] = {
	"Up/Down  select a phase",
	"n/p      next/previous phase (every view)",
	"Enter    zoom the timeline to the phase",
	"s        sort by the next column",
	"m        add a column: the mean of a stream (cycles)",
	"[ ]      more / fewer phases (penalty /1.5 / x1.5)",
	"c        a cycle of short steps: one phase, or one per step",
	NULL,
};

const vw_view view_phases = {
	.name = "phases",
	.title = "Phases",
	.init = phases_init,
	.free = phases_free,
	.resize = NULL,
	.key = phases_key,
	.draw = phases_draw,
	.help = phases_help,
};
