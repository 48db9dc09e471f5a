/* view-timeline.c: the timeline — one sparkline row per stream or group.
 *
 * Layout of the view's canvas (w x h):
 *
 *     line 0        time ruler over the plot
 *     line 1        marks (ticks), the selected range, the cursor
 *     lines 2, 3    with a code profile: the code row (the hottest function
 *                   of each column as a letter, code-row.c) and its legend
 *     lines ..h-2   rows: label | sparkline (min/max envelope) | value at cursor
 *     line h-1      read-out: cursor time, the selected row's values, the
 *                   function at the cursor, the mark
 *
 * Rows come in the model's order (most active first by default; 's' cycles
 * activity, name, source), the folded row of constant streams first.  A
 * group's label ends with how its value combines the members: Σ (a sum:
 * bytes, counts, watts) or avg (a mean: %, temperatures, frequencies).
 *
 * Each row is scaled to its own range over the window ([min(0, lo), hi],
 * hi robust to a few spikes, which are clipped at the top).
 * Rows are 1 to 3 lines high, as the screen allows; when they do not fit,
 * the list scrolls to keep the selected row visible.  Drawing is a pure
 * function of the model; key() changes the model and returns VW_R_* bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw.h"
#include "../model/model.h"
#include "../analysis/analysis.h"
#include "view.h"

#define TL_OVER_KEEP 128 /* run B's rows kept (more than a screen shows) */

typedef struct tl_state {
	/* geometry of the last draw, for keys and the mouse */
	int plot_x, plot_w, rows_y, row_h, nvis;
	int code_y;       /* line of the code row, 0 when there is none */
	int kernel_y;     /* line of the kernel row (kernel-row.c), 0 when there is none */
	int wait_y;       /* line of the first "MPI %" row, 0 when there is none */
	int wait_n;       /* "MPI %" rows: one per host (wait-row.c), or 1 */
	int wait_all;     /* 1: one row for the whole job, though it has several */
	int waits;        /* -1 not yet known; 1 the dataset waits in MPI (wait-row.c) */
	const char *wait_label; /* "MPI", "sync" or "wait", known with waits */
	int64_t anchor;   /* selection anchor (shift-arrows, drag) */
	int selecting;
	int dragging;
	double sel_v, sel_mn, sel_mx; /* the selected row at the cursor, from draw_row */
	int sel_drawn;
	vw_bucket *b;
	size_t bcap;
	int pitch;        /* lines per row: row_h, twice that with run B overlaid */
	vw_bucket *ob, *fine; /* run B's columns, and its finer buckets before the warp */
	size_t ocap, obcap; /* fine holds ocap buckets, ob obcap columns */
	size_t *mem;      /* B's member streams of a row */
	/* run B's columns of the rows drawn, kept for the window they were
	 * computed for: a frame computes what its budget allows, the frames
	 * that refine it reuse them (each row's is one exact read of run B) */
	struct tl_over {
		size_t group, member;
		int depth;
		int64_t t0, t1;
		size_t nb;
		vw_bucket *b;
	} over[TL_OVER_KEEP];
	size_t nover, over_next;
} tl_state;

static int tl_init(vw_ctx *ctx, void **state)
{
	(void)ctx;
	tl_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->waits = -1;
	*state = s;
	return 0;
}

static void tl_free(void *state)
{
	tl_state *s = state;
	if (s) {
		free(s->b);
		free(s->ob);
		free(s->fine);
		for (size_t i = 0; i < s->nover; i++)
			free(s->over[i].b);
		free(s->mem);
	}
	free(s);
}

static void tl_resize(void *state, int w, int h)
{
	(void)state;
	(void)w;
	(void)h;
}

/* " Σ" or " avg" after a group's label; "" for other rows. */
static const char *rule_tag(const vw_row *r, int ascii)
{
	if (!r->is_group || r->constants || r->head)
		return "";
	return r->rule == VW_RULE_SUM ? (ascii ? " sum" : " \u03a3") : " avg";
}

/* "Σ" or "avg" (the read-out's word for a group's value). */
static const char *rule_word(const vw_row *r, int ascii)
{
	return r->rule == VW_RULE_SUM ? (ascii ? "sum" : "\u03a3") : "avg";
}

/* Label column width: the longest label (and Σ/avg tag), within [10, w/4]. */
static int label_width(const vw_model *m, int w, int ascii)
{
	int lw = 10;
	for (size_t i = 0; i < m->nrows; i++) {
		const vw_row *r = &m->rows[i];
		int tag = !r->is_group || r->constants || r->head ? 0
			  : r->rule == VW_RULE_SUM && !ascii	   ? 2
								   : 4;
		int n = (int)strlen(r->label) + 2 + 2 * r->depth + tag + (m->nhosts && !r->head);
		if (n > lw)
			lw = n;
	}
	return lw > w / 4 ? (w / 4 > 10 ? w / 4 : 10) : lw;
}

static void geometry(vw_an *an, tl_state *s, int w, int h, int ascii)
{
	vw_model *m = an->m;
	int vw = w >= 60 ? 12 : 11;
	s->plot_x = label_width(m, w, ascii);
	s->plot_w = w - s->plot_x - vw - 1;
	/* the code row and its legend, when there is a profile and room */
	s->code_y = h >= 10 && vw_hotcode_has(an) ? 2 : 0;
	if (s->code_y && s->waits < 0) {
		s->waits = vw_wait_row_wanted(an);
		s->wait_label = vw_wait_row_label(an); /* one pass over the profile, as waits */
	}
	s->wait_y = s->code_y && h >= 12 && s->waits > 0 ? 4 : 0;
	s->wait_n = s->wait_y ? vw_wait_rows(m) : 0;
	s->wait_all = 0;
	if (s->wait_n > 1 && h < 12 + 2 * s->wait_n) /* a row per host where rows still show */
		s->wait_n = 1, s->wait_all = 1;
	s->rows_y = s->wait_y ? s->wait_y + s->wait_n : s->code_y ? 4 : 2;
	/* the kernel row and its legend under them, for a Kokkos program */
	s->kernel_y = h >= 12 && vw_kernels_has(m) ? s->rows_y : 0;
	s->rows_y += s->kernel_y ? 2 : 0;
	int avail = h - 1 - s->rows_y;
	int per = an->compare_b ? 2 : 1; /* compare: each row, then run B's under it */
	s->row_h = m->nrows ? avail / (per * (int)m->nrows) : 1;
	s->row_h = s->row_h < 1 ? 1 : s->row_h > 3 ? 3 : s->row_h;
	s->pitch = per * s->row_h;
	s->nvis = avail / s->pitch;
}

static void scroll_to_sel(vw_model *m, const tl_state *s)
{
	if (s->nvis <= 0)
		return;
	if (m->row_sel < m->row_top)
		m->row_top = m->row_sel;
	if (m->row_sel >= m->row_top + (size_t)s->nvis)
		m->row_top = m->row_sel - (size_t)s->nvis + 1;
	if (m->row_top + (size_t)s->nvis > m->nrows)
		m->row_top = m->nrows > (size_t)s->nvis ? m->nrows - (size_t)s->nvis : 0;
}

/* Make room for nb buckets in s->b. */
static int reserve(tl_state *s, size_t nb)
{
	if (nb <= s->bcap)
		return 0;
	vw_bucket *b = realloc(s->b, nb * sizeof *b);
	if (!b)
		return -1;
	s->b = b;
	s->bcap = nb;
	return 0;
}

/* The value at the cursor of row ri: a stream's covering sample; for a
 * group, the mean over its members in the cursor's column (and their min
 * and max) — at fine zoom the members' samples at the cursor, without
 * reading every member's samples again.  have_buckets: s->b already holds
 * the row's columns. */
static double row_value(vw_model *m, tl_state *s, const vw_canvas *c, size_t ri,
			int have_buckets, double *mn, double *mx)
{
	const vw_row *r = &m->rows[ri];
	*mn = *mx = NAN;
	if (r->head)
		return NAN; /* a host's row: no value of its own */
	if (r->nmembers == 1) {
		double v = vw_model_value_at(m, r->members[0], m->cursor);
		*mn = *mx = v;
		return v;
	}
	size_t nb = vw_spark_buckets(c, s->plot_w);
	int col = vw_model_time_col(m, m->cursor, (int)nb);
	if (nb == 0 || col < 0 || (size_t)col >= nb || reserve(s, nb) != 0)
		return NAN;
	if (!have_buckets && vw_model_row_buckets(m, ri, nb, s->b) != 0)
		return NAN;
	/* Columns narrower than the sampling interval may hold no sample: the
	 * covering one is then in the next column (a counter's delta ends
	 * there) or the previous one (a gauge's value holds from there). */
	int dir = m->streams[r->members[0]].desc->kind == MCZ_COUNTER ? 1 : -1;
	for (int k = 0; k < 2 && s->b[col].count == 0; k++, dir = -dir)
		if (col + dir >= 0 && (size_t)(col + dir) < nb && s->b[col + dir].count)
			col += dir;
	if (s->b[col].count == 0)
		return NAN;
	*mn = s->b[col].min;
	*mx = s->b[col].max;
	return s->b[col].mean;
}

static void draw_marks(vw_an *an, const tl_state *s, vw_canvas *c, int y)
{
	vw_model *m = an->m;
	int px = s->plot_x, pw = s->plot_w;
	vw_canvas_text(c, 0, y, px - 1, VW_C_DIM, 0, an->phases ? "phases" : m->nmarks ? "marks" : "");
	view_phases_band(an, c, px, y, s->plot_w); /* viewer/phase.h */
	if (m->sel1 > m->sel0) {
		int a = vw_model_time_col(m, m->sel0, pw), b = vw_model_time_col(m, m->sel1 - 1, pw);
		for (int x = a < 0 ? 0 : a; x <= b && x < pw; x++)
			vw_canvas_put(c, px + x, y, c->ascii ? '=' : 0x2501, VW_C_RANGE, 0);
	}
	for (size_t i = 0; i < m->nmarks; i++) {
		int x = vw_model_time_col(m, m->marks[i].t, pw);
		if (x >= 0 && x < pw)
			vw_canvas_put(c, px + x, y, c->ascii ? 'v' : 0x25be, VW_C_MARK, VW_A_BOLD);
	}
	int cx = vw_model_time_col(m, m->cursor, pw);
	if (cx >= 0 && cx < pw)
		vw_canvas_put(c, px + cx, y, c->ascii ? '|' : 0x2503, VW_C_CURSOR, VW_A_BOLD);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The value of rank q (0-based, ascending) among v[0..n): the k = n - q
 * highest kept in a small sorted array, as q is near the top (a row's 98th
 * percentile of 300 columns: the 7th highest), in one pass: it is asked
 * for every row on every frame, where a sort costs a row's columns times
 * their logarithm. */
static double rank_from_top(const double *v, size_t n, size_t q)
{
	size_t k = n - q, have = 0;
	double top[64]; /* descending */
	if (k > sizeof top / sizeof top[0])
		k = sizeof top / sizeof top[0];
	for (size_t i = 0; i < n; i++) {
		if (have == k && !(v[i] > top[k - 1]))
			continue;
		size_t j = have < k ? have++ : k - 1;
		for (; j > 0 && top[j - 1] < v[i]; j--)
			top[j] = top[j - 1];
		top[j] = v[i];
	}
	return top[have - 1];
}

/* The value range a row is drawn over: from min(0, lowest) to the highest
 * value, or to the 98th percentile of the column maxima when the highest is
 * over twice that: then a few isolated spikes (drawn clipped at the top) do
 * not flatten the rest of the row. */
static void row_range(tl_state *s, size_t nb, double *lo, double *hi)
{
	double *mx = malloc(nb * sizeof *mx);
	size_t n = 0;
	*lo = 0;
	*hi = 0;
	for (size_t i = 0; i < nb; i++) {
		const vw_bucket *b = &s->b[i];
		if (b->count == 0 || isnan(b->max))
			continue;
		*lo = b->min < *lo ? b->min : *lo;
		*hi = b->max > *hi ? b->max : *hi;
		if (mx)
			mx[n++] = b->max;
	}
	/* at 50 columns and more, the 98th percentile is within the 64
	 * highest up to 3,200 columns; wider, the sort */
	if (mx && n >= 50) {
		size_t q = n * 98 / 100;
		double p98;
		if (n - q <= 64) {
			p98 = rank_from_top(mx, n, q);
		} else {
			qsort(mx, n, sizeof *mx, cmp_double);
			p98 = mx[q];
		}
		if (*hi - *lo > 2 * (p98 - *lo))
			*hi = p98;
	}
	free(mx);
}

static int cells(const char *p)
{
	int n = 0;
	for (; *p; p++)
		n += (*p & 0xc0) != 0x80; /* UTF-8 lead bytes */
	return n;
}

/* A label wider than w cells keeps its end " (N)" (a group's member count)
 * and loses the end of its name instead: "core.cpu_migr… (2)". */
static int draw_label(vw_canvas *c, int x, int y, int w, int role, int attr, const char *label)
{
	const char *cnt = strrchr(label, '(');
	size_t len = strlen(label);
	if (cells(label) <= w || !cnt || cnt == label || cnt[-1] != ' ' || label[len - 1] != ')' ||
	    w - cells(cnt - 1) < 4)
		return vw_canvas_text(c, x, y, w, role, attr, label);
	int cw = cells(cnt - 1);
	char head[256];
	snprintf(head, sizeof head, "%.*s", (int)(cnt - 1 - label), label);
	int k = vw_canvas_text(c, x, y, w - cw - 1, role, attr, head);
	k += vw_canvas_text(c, x + k, y, 1, role, attr, c->ascii ? "~" : "\u2026");
	return k + vw_canvas_text(c, x + k, y, cw, role, attr, cnt - 1);
}

/* Run B's row of the same name (mcview --compare) under row ri at y, on
 * row ri's scale [lo, hi]: each column shows what B did where A's work at
 * that column was done (the phase-wise warp, vw_compare_warp): B's values
 * over a finer grid, then gathered per column.  A row B lacks says so. */
static void draw_overlay(vw_an *an, tl_state *s, vw_canvas *c, size_t ri, int y, size_t nb,
			 double lo, double hi)
{
	vw_model *m = an->m;
	vw_model *b = an->compare_b;
	const vw_row *r = &m->rows[ri];
	int role = VW_C_SERIES0 + (int)((r->group + 4) % 8);
	vw_canvas_text(c, 2 * r->depth + 2, y, s->plot_x - 3 - 2 * r->depth, VW_C_DIM, 0,
		       c->ascii ? "`- B" : "\u2514 B");
	const vw_row *rb = NULL;
	for (size_t i = 0; i < b->ngroups && !rb; i++)
		if (!strcmp(b->groups[i].label, r->is_group || r->depth == 0 ? r->label : "")) {
			rb = &b->groups[i];
		}
	size_t nmem = 0;
	if (!rb && r->nmembers == 1) /* a member shown alone: B's stream of that name */
		for (size_t i = 0; i < b->nstreams && !nmem; i++)
			if (!strcmp(b->streams[i].label, m->streams[r->members[0]].label)) {
				free(s->mem);
				s->mem = malloc(sizeof *s->mem);
				if (s->mem)
					s->mem[nmem++] = i;
			}
	if (rb) {
		free(s->mem);
		s->mem = malloc((rb->nmembers ? rb->nmembers : 1) * sizeof *s->mem);
		for (size_t i = 0; s->mem && i < rb->nmembers; i++)
			s->mem[nmem++] = rb->members[i];
	}
	if (!nmem) {
		vw_canvas_text(c, s->plot_x, y, s->plot_w, VW_C_DIM, 0, "not in run B");
		return;
	}
	struct tl_over key = {r->group, r->members[0], r->depth, m->t0, m->t1, nb, NULL};
	for (size_t i = 0; i < s->nover; i++) {
		const struct tl_over *o = &s->over[i];
		if (o->group == key.group && o->member == key.member && o->depth == key.depth &&
		    o->t0 == key.t0 && o->t1 == key.t1 && o->nb == key.nb) {
			vw_spark_draw(c, s->plot_x, y, s->plot_w, s->row_h, o->b, nb, lo, hi, role);
			return;
		}
	}
	if (vw_model_budget_spent(m)) { /* the next frame reads it */
		m->refining = 1;
		vw_canvas_text(c, s->plot_x, y, s->plot_w, VW_C_DIM, 0, "reading run B...");
		return;
	}
	/* B's span where A's window was done: warped ends, seconds from each start */
	const vw_compare *k = an->compare;
	double a0 = (m->t0 - m->t_min) * 1e-9, a1 = (m->t1 - m->t_min) * 1e-9;
	double b0 = vw_compare_warp(k, a0), b1 = vw_compare_warp(k, a1);
	if (!(b1 > b0))
		return;
	/* finer buckets than the columns before the warp (4 a column), but
	 * none narrower than B's sampling interval (they would be empty) */
	int64_t dt = vw_model_interval(b, s->mem[0]);
	size_t nf = nb * 4;
	if (dt > 0 && (b1 - b0) * 1e9 / (double)dt < (double)nf)
		nf = (size_t)((b1 - b0) * 1e9 / (double)dt);
	nf = nf < 1 ? 1 : nf;
	if (s->ocap < nf * nmem || s->obcap < nb || !s->ob) { /* B's grid, or the columns, grew */
		free(s->ob);
		free(s->fine);
		s->ob = malloc(nb * sizeof *s->ob);
		s->fine = malloc(nf * nmem * sizeof *s->fine);
		s->ocap = s->ob && s->fine ? nf * nmem : 0;
		s->obcap = s->ocap ? nb : 0;
		if (!s->ocap)
			return;
	}
	int64_t tb0 = b->t_min + (int64_t)(b0 * 1e9), tb1 = b->t_min + (int64_t)(b1 * 1e9);
	/* B's columns within this frame's budget, as A's rows: at chunk
	 * resolution first where exact ones would decode much (a run of 10^9
	 * values), refined by the next frames */
	b->budget_end = m->budget_end;
	b->budget_work = 0;
	b->refining = 0;
	size_t got = 0;
	for (size_t e = 0; e < nmem; e++) {
		vw_bucket *f = s->fine + e * nf;
		if (vw_model_draw_buckets(b, s->mem[e], tb0, tb1, nf, f) == 0) {
			got++;
			continue;
		}
		for (size_t j = 0; j < nf; j++)
			f[j] = (vw_bucket){NAN, NAN, NAN, 0};
	}
	int exact = !b->refining && got == nmem;
	m->refining |= b->refining;
	if (!got)
		return;
	int sum = (rb ? rb->rule : VW_RULE_AVG) == VW_RULE_SUM;
	for (size_t col = 0; col < nb; col++) {
		double ta = a0 + (a1 - a0) * (double)col / (double)nb;
		double tz = a0 + (a1 - a0) * (double)(col + 1) / (double)nb;
		double f0 = (vw_compare_warp(k, ta) - b0) / (b1 - b0) * (double)nf;
		double f1 = (vw_compare_warp(k, tz) - b0) / (b1 - b0) * (double)nf;
		size_t j0 = f0 < 0 ? 0 : (size_t)f0, j1 = f1 < 0 ? 0 : (size_t)ceil(f1);
		j1 = j1 > nf ? nf : j1;
		if (j1 <= j0)
			j1 = j0 + 1 <= nf ? j0 + 1 : nf;
		vw_bucket o = {NAN, NAN, NAN, 0};
		double msum = 0;
		size_t mcnt = 0;
		for (size_t j = j0; j < j1; j++) {
			double v = 0;
			int any = 0;
			for (size_t e = 0; e < nmem; e++) {
				const vw_bucket *q = &s->fine[e * nf + j];
				if (!q->count || isnan(q->mean))
					continue;
				v += q->mean;
				any++;
				o.min = isnan(o.min) || q->min < o.min ? q->min : o.min;
				o.max = isnan(o.max) || q->max > o.max ? q->max : o.max;
				o.count += q->count;
			}
			if (any) {
				msum += sum ? v : v / any;
				mcnt++;
			}
		}
		if (mcnt) {
			o.mean = msum / (double)mcnt;
			if (sum) /* a Σ row's envelope: its sums, not a member's extremes */
				o.min = o.max = o.mean;
		}
		s->ob[col] = o;
	}
	vw_spark_draw(c, s->plot_x, y, s->plot_w, s->row_h, s->ob, nb, lo, hi, role);
	if (!exact) /* drawn at chunk resolution: the next frame refines it */
		return;
	size_t slot = s->nover < TL_OVER_KEEP ? s->nover++ : s->over_next++ % TL_OVER_KEEP;
	free(s->over[slot].b);
	s->over[slot] = key;
	if ((s->over[slot].b = malloc(nb * sizeof *s->ob)) != NULL)
		memcpy(s->over[slot].b, s->ob, nb * sizeof *s->ob);
	else
		s->over[slot].nb = 0;
}

static void draw_row(vw_an *an, tl_state *s, vw_canvas *c, size_t ri, int y, int w)
{
	vw_model *m = an->m;
	const vw_row *r = &m->rows[ri];
	int sel = ri == m->row_sel;
	int role = VW_C_SERIES0 + (int)(r->group % 8);
	int lrole = sel ? VW_C_SELECT : VW_C_LABEL, lattr = sel ? VW_A_BOLD : 0;
	const char *open = c->ascii ? (r->expanded ? "-" : "+") : (r->expanded ? "\u25be" : "\u25b8");
	vw_canvas_fill(c, 0, y, s->plot_x - 1, 1, ' ', lrole, lattr);
	/* the label, cut where it must be so that the Σ/avg tag stays; a
	 * host's rows one cell in from its head */
	const char *tag = rule_tag(r, c->ascii);
	int ind = 2 * r->depth + (m->nhosts && !r->head && !r->constants);
	int aw = s->plot_x - 1 - ind, tw = cells(tag);
	int lx = ind + vw_canvas_text(c, ind, y, aw, lrole, lattr, r->is_group ? open : "");
	lx += draw_label(c, lx, y, s->plot_x - 1 - lx - tw, r->constants && !sel ? VW_C_DIM : lrole,
			 lattr, r->label);
	vw_canvas_text(c, lx, y, s->plot_x - 1 - lx, VW_C_DIM, lattr, tag);
	if (r->head) {
		/* a host: its name, how many rows, its clock against the first
		 * host's (the files' wall-clock anchors) */
		char what[128];
		int64_t off = m->offsets[r->host] - m->offsets[0];
		snprintf(what, sizeof what, "host %s: %s%s", r->expanded ? "shown" : "folded",
			 r->expanded ? "Enter folds its rows" : "Enter shows its rows",
			 r->host ? "" : "  (R folds or shows every host)");
		vw_canvas_text(c, s->plot_x, y, s->plot_w, VW_C_DIM, 0, what);
		if (r->host && (off >= 1000000 || off <= -1000000)) { /* 1 ms */
			char t[64], d[32];
			snprintf(t, sizeof t, "starts %s %s the first host",
				 vw_fmt_time(d, sizeof d, off < 0 ? -off : off, 1000000),
				 off < 0 ? "before" : "after");
			int tx = s->plot_x + s->plot_w - (int)strlen(t);
			if (tx > s->plot_x + (int)strlen(what) + 2)
				vw_canvas_text(c, tx, y, s->plot_w, VW_C_DIM, 0, t);
		}
		if (sel) {
			s->sel_v = s->sel_mn = s->sel_mx = NAN;
			s->sel_drawn = 1;
		}
		return;
	}
	if (r->constants && r->depth == 0) {
		/* streams of every unit: nothing to draw but what the row holds */
		vw_canvas_text(c, s->plot_x, y, s->plot_w, VW_C_DIM, 0,
			       r->expanded ? "values that never change over the run"
					   : "values that never change over the run (Enter lists them)");
		if (sel) {
			s->sel_v = s->sel_mn = s->sel_mx = NAN;
			s->sel_drawn = 1;
		}
		return;
	}
	size_t nb = vw_spark_buckets(c, s->plot_w);
	if (reserve(s, nb) != 0)
		return;
	char unit[32], val[48];
	vw_model_unit(m, r->members[0], unit, sizeof unit);
	int rc = vw_model_row_buckets(m, ri, nb, s->b), have = rc == 0;
	if (have) {
		double lo, hi;
		row_range(s, nb, &lo, &hi);
		vw_spark_draw(c, s->plot_x, y, s->plot_w, s->row_h, s->b, nb, lo, hi, role);
		if (an->compare_b && an->compare)
			draw_overlay(an, s, c, ri, y + s->row_h, nb, lo, hi);
	} else if (rc == VW_PENDING) {
		vw_canvas_text(c, s->plot_x, y, s->plot_w, VW_C_DIM, 0, "reading...");
	}
	double mn, mx, v = row_value(m, s, c, ri, have, &mn, &mx);
	if (sel) {
		s->sel_v = v;
		s->sel_mn = mn;
		s->sel_mx = mx;
		s->sel_drawn = 1;
	}
	vw_fmt_si(val, sizeof val, v, unit);
	int vx = s->plot_x + s->plot_w + 1;
	vw_canvas_text(c, vx, y, w - vx, VW_C_VALUE, sel ? VW_A_BOLD : 0, val);
	int cx = vw_model_time_col(m, m->cursor, s->plot_w);
	for (int k = 0; k < s->row_h && cx >= 0 && cx < s->plot_w; k++) {
		vw_cell *cell = &c->cells[(size_t)(y + k) * (size_t)c->w + (size_t)(s->plot_x + cx)];
		if (cell->ch == ' ')
			cell->ch = c->ascii ? ':' : 0x2502;
		cell->role = VW_C_CURSOR;
	}
}

/* The bottom line: cursor time, the selected row at the cursor, a mark. */
static void draw_readout(vw_an *an, tl_state *s, vw_canvas *c, int y)
{
	vw_model *m = an->m;
	char t[32], a[48], b[48], d[48], unit[32], line[512];
	int64_t step = (m->t1 - m->t0) / (s->plot_w > 0 ? s->plot_w : 1);
	int n = snprintf(line, sizeof line, "%s", vw_fmt_time(t, sizeof t, m->cursor, step / 10));
	if (m->sel1 > m->sel0)
		n += snprintf(line + n, sizeof line - (size_t)n, "  sel %s",
			      vw_fmt_time(a, sizeof a, m->sel1 - m->sel0, step / 10));
	if (m->row_sel < m->nrows) {
		const vw_row *r = &m->rows[m->row_sel];
		double mn = s->sel_mn, mx = s->sel_mx, v = s->sel_v;
		if (!s->sel_drawn)
			v = row_value(m, s, c, m->row_sel, 0, &mn, &mx);
		vw_model_unit(m, r->members[0], unit, sizeof unit);
		if (r->head)
			n += snprintf(line + n, sizeof line - (size_t)n,
				      "  host %s rows %s (Enter %s them; R: every host's)", r->label,
				      r->expanded ? "shown" : "folded", r->expanded ? "folds" : "shows");
		else if (r->constants && r->depth == 0)
			n += snprintf(line + n, sizeof line - (size_t)n,
				      "  %s: the same value all along (Enter %s them)", r->label,
				      r->expanded ? "folds" : "lists");
		else if (r->is_group)
			n += snprintf(line + n, sizeof line - (size_t)n,
				      "  %s: %s %s  (members: min %s  max %s)", r->label,
				      rule_word(r, c->ascii), vw_fmt_si(b, sizeof b, v, unit),
				      vw_fmt_si(a, sizeof a, mn, unit), vw_fmt_si(d, sizeof d, mx, unit));
		else {
			int64_t ts;
			vw_model_sample_at(m, r->members[0], m->cursor, &v, &ts);
			n += snprintf(line + n, sizeof line - (size_t)n, "  %s = %s @ %s",
				      m->streams[r->members[0]].label,
				      vw_fmt_si(a, sizeof a, v, unit),
				      isnan(v) ? "-" : vw_fmt_time(d, sizeof d, ts, 1000));
		}
	}
	char code[160];
	if (s->code_y && n < (int)sizeof line && vw_code_row_at(an, m->cursor, code, sizeof code) == 0)
		n += snprintf(line + n, sizeof line - (size_t)n, "  code: %s", code);
	if (s->kernel_y && n < (int)sizeof line && vw_kernel_row_at(m, m->cursor, code, sizeof code) == 0)
		n += snprintf(line + n, sizeof line - (size_t)n, "  kernel: %s", code);
	/* "MPI 35%", or per host "MPI node1 35% node2 80%" ("sync 35%" where
	 * only an OpenMP runtime waited) */
	const char *wl = s->wait_n && s->wait_label ? s->wait_label : "";
	for (int g = 0, said = 0; g < s->wait_n && n < (int)sizeof line; g++) {
		int row = s->wait_all ? -1 : g;
		const char *host = row < 0 ? "" : vw_wait_row_host(m, row);
		if (vw_wait_row_at(an, row, m->cursor, code, sizeof code) == 0) {
			n += snprintf(line + n, sizeof line - (size_t)n, "%s%s%s%.16s %s",
				      said ? "" : "  ", said ? "" : wl, *host ? " " : "",
				      vw_fmt_safe(host), code);
			said = 1;
		}
	}
	int64_t tol = (m->t1 - m->t0) / (s->plot_w > 0 ? s->plot_w : 1);
	const vw_mark *k = vw_model_mark_near(m, m->cursor, tol);
	if (k && n < (int)sizeof line) {
		const char *kind = k->kind == MCZ_MARK_END	? "end "
				   : k->kind == MCZ_MARK_GAP	? "gap "
				   : k->kind == MCZ_MARK_BEGIN ? "begin "
							       : "";
		snprintf(line + n, sizeof line - (size_t)n, "  mark: %s%s", kind, k->text);
	}
	vw_canvas_fill(c, 0, y, c->w, 1, ' ', VW_C_STATUS, 0);
	vw_canvas_text(c, 0, y, c->w, VW_C_STATUS, 0, line);
}

static void tl_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	tl_state *s = state;
	int w = c->w, h = c->h;
	vw_model_rows_settle(m); /* a large recording's rows take their order */
	geometry(an, s, w, h, c->ascii);
	if (s->plot_w < 4 || h < 4)
		return;
	char lab[64];
	vw_canvas_printf(c, 0, 0, s->plot_x - 1, VW_C_AXIS, 0, "win %s",
			 vw_fmt_time(lab, sizeof lab, m->t1 - m->t0, (m->t1 - m->t0) / 100));
	vw_ruler_draw(c, s->plot_x, 0, s->plot_w, m->t0, m->t1);
	/* damaged chunks met so far: an x over their span on the time axis */
	int64_t d0, d1;
	for (size_t i = 0; vw_model_damaged_span(m, i, &d0, &d1) == 0; i++) {
		int x0 = vw_model_time_col(m, d0, s->plot_w), x1 = vw_model_time_col(m, d1, s->plot_w);
		for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < s->plot_w; x++)
			vw_canvas_put(c, s->plot_x + x, 0, c->ascii ? 'x' : 0x00d7, VW_C_WARN, VW_A_BOLD);
	}
	draw_marks(an, s, c, 1);
	if (s->code_y) {
		vw_canvas_text(c, 0, s->code_y, s->plot_x - 1, VW_C_LABEL, 0, "code");
		vw_code_row_draw(c, an, s->plot_x, s->code_y, s->plot_w);
		vw_code_row_legend(c, an, s->plot_x, s->code_y + 1, w - s->plot_x, s->plot_w);
		for (int g = 0; g < s->wait_n; g++) {
			int row = s->wait_all ? -1 : g;
			const char *host = row < 0 ? "" : vw_fmt_safe(vw_wait_row_host(m, row));
			vw_canvas_printf(c, 0, s->wait_y + g, s->plot_x - 1, VW_C_LABEL, 0, "%s %%%s%s",
					 s->wait_label ? s->wait_label : "MPI", *host ? " " : "", host);
			vw_wait_row_draw(c, an, row, s->plot_x, s->wait_y + g, s->plot_w);
		}
		int cx = vw_model_time_col(m, m->cursor, s->plot_w);
		if (cx >= 0 && cx < s->plot_w) {
			vw_cell *cell = &c->cells[(size_t)s->code_y * (size_t)c->w + (size_t)(s->plot_x + cx)];
			if (cell->ch == ' ')
				cell->ch = c->ascii ? ':' : 0x2502;
			cell->attr |= VW_A_REVERSE;
		}
	}
	if (s->kernel_y) {
		vw_canvas_text(c, 0, s->kernel_y, s->plot_x - 1, VW_C_LABEL, 0, "kernel");
		vw_kernel_row_draw(c, m, s->plot_x, s->kernel_y, s->plot_w);
		vw_kernel_row_legend(c, m, s->plot_x, s->kernel_y + 1, w - s->plot_x);
	}
	scroll_to_sel(m, s);
	if (m->nrows == 0)
		vw_canvas_text(c, 2, s->rows_y, w - 2, VW_C_DIM, 0,
			       m->filter[0] ? "no stream matches the filter" : "no streams");
	s->sel_drawn = 0;
	vw_model_rows_prefetch(m, m->row_top, (size_t)(s->nvis > 0 ? s->nvis : 0),
			       vw_spark_buckets(c, s->plot_w));
	for (int i = 0; i < s->nvis && m->row_top + (size_t)i < m->nrows; i++)
		draw_row(an, s, c, m->row_top + (size_t)i, s->rows_y + i * s->pitch, w);
	draw_readout(an, s, c, h - 1);
}

static int64_t col_step(const vw_model *m, const tl_state *s)
{
	int64_t d = (m->t1 - m->t0) / (s->plot_w > 0 ? s->plot_w : 80);
	return d > 0 ? d : 1;
}

/* Move the cursor by dt, panning when it leaves the window. */
static void move_cursor(vw_model *m, int64_t dt)
{
	int64_t t = m->cursor + dt;
	if (t < m->t0)
		vw_model_set_window(m, t, t + (m->t1 - m->t0));
	else if (t >= m->t1)
		vw_model_set_window(m, t + 1 - (m->t1 - m->t0), t + 1);
	vw_model_set_cursor(m, t);
}

static void extend_selection(vw_model *m, tl_state *s, int64_t dt)
{
	if (m->sel1 <= m->sel0)
		s->anchor = m->cursor;
	move_cursor(m, dt);
	m->sel0 = s->anchor < m->cursor ? s->anchor : m->cursor;
	m->sel1 = (s->anchor < m->cursor ? m->cursor : s->anchor) + 1;
}

static unsigned tl_mouse(vw_model *m, tl_state *s, const vw_input *in)
{
	int col = in->mouse_x - s->plot_x;
	int inplot = col >= 0 && col < s->plot_w;
	int64_t t = vw_model_col_time(m, col, s->plot_w);
	switch (in->mouse_button) {
	case 4:
	case 5:
		vw_model_zoom(m, in->mouse_button == 4 ? 0.5 : 2.0, inplot ? t : m->cursor);
		return VW_R_REDRAW;
	case 1:
		if (in->mouse_y >= s->rows_y && in->mouse_y < s->rows_y + s->nvis * s->pitch &&
		    !inplot) {
			size_t r = m->row_top + (size_t)((in->mouse_y - s->rows_y) / s->pitch);
			if (r < m->nrows)
				m->row_sel = r;
			return VW_R_REDRAW;
		}
		if (!inplot)
			return VW_R_NONE;
		vw_model_set_cursor(m, t);
		s->anchor = m->cursor;
		s->dragging = 1;
		m->sel0 = m->sel1 = 0;
		return VW_R_REDRAW;
	case 6:
	case 2:
		if (!s->dragging)
			return VW_R_NONE;
		if (in->mouse_button == 2)
			s->dragging = 0;
		col = col < 0 ? 0 : col >= s->plot_w ? s->plot_w - 1 : col;
		vw_model_set_cursor(m, vw_model_col_time(m, col, s->plot_w));
		if (m->cursor != s->anchor) {
			m->sel0 = s->anchor < m->cursor ? s->anchor : m->cursor;
			m->sel1 = (s->anchor < m->cursor ? m->cursor : s->anchor) + 1;
		}
		return VW_R_REDRAW;
	}
	return VW_R_NONE;
}

static unsigned tl_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	tl_state *s = state;
	int64_t w = m->t1 - m->t0;
	switch (in->act) {
	case VW_ACT_LEFT: vw_model_pan(m, -0.125); break;
	case VW_ACT_RIGHT: vw_model_pan(m, 0.125); break;
	case VW_ACT_PAGE_LEFT: vw_model_pan(m, -1.0); break;
	case VW_ACT_PAGE_RIGHT: vw_model_pan(m, 1.0); break;
	case VW_ACT_HOME: vw_model_set_window(m, m->t_min, m->t_min + w); break;
	case VW_ACT_END: vw_model_set_window(m, m->t_max + 1 - w, m->t_max + 1); break;
	case VW_ACT_CURSOR_LEFT: move_cursor(m, -col_step(m, s)); break;
	case VW_ACT_CURSOR_RIGHT: move_cursor(m, col_step(m, s)); break;
	case VW_ACT_SEL_LEFT: extend_selection(m, s, -col_step(m, s)); break;
	case VW_ACT_SEL_RIGHT: extend_selection(m, s, col_step(m, s)); break;
	case VW_ACT_ZOOM_IN: vw_model_zoom(m, 0.5, m->cursor); break;
	case VW_ACT_ZOOM_OUT: vw_model_zoom(m, 2.0, m->cursor); break;
	case VW_ACT_RESET: vw_model_reset(m); break;
	case VW_ACT_UP:
		if (m->row_sel > 0)
			m->row_sel--;
		break;
	case VW_ACT_DOWN:
		if (m->row_sel + 1 < m->nrows)
			m->row_sel++;
		break;
	case VW_ACT_PAGE_UP:
		m->row_sel = m->row_sel > (size_t)s->nvis ? m->row_sel - (size_t)s->nvis : 0;
		break;
	case VW_ACT_PAGE_DOWN:
		m->row_sel += (size_t)s->nvis;
		if (m->row_sel >= m->nrows)
			m->row_sel = m->nrows ? m->nrows - 1 : 0;
		break;
	case VW_ACT_ZOOM_SEL:
	case VW_ACT_ENTER:
		if (m->sel1 > m->sel0) {
			int64_t a = m->sel0, b = m->sel1;
			m->sel0 = m->sel1 = 0;
			vw_model_set_window(m, a, b);
		} else if (in->act == VW_ACT_ENTER) {
			vw_model_toggle_group(m, m->row_sel);
		} else {
			return VW_R_NONE;
		}
		break;
	case VW_ACT_BACK:
		if (m->sel1 <= m->sel0)
			return VW_R_NONE;
		m->sel0 = m->sel1 = 0;
		break;
	case VW_ACT_SORT: vw_model_set_sort(m, (m->sort + 1) % VW_SORT_COUNT); break;
	case VW_ACT_FOLD:
		if (m->nhosts) /* several hosts: fold or show every host's rows */
			return vw_model_fold_hosts(m) == 0 ? VW_R_REDRAW : VW_R_NONE;
		if (m->nfiles < 2 || vw_model_set_fold(m, !m->fold_ranks) != 0)
			return VW_R_NONE;
		return VW_R_REDRAW | VW_R_RECOMPUTE;
	case VW_ACT_MOUSE: return tl_mouse(m, s, in);
	default: return VW_R_NONE;
	}
	return VW_R_REDRAW;
}

static const char *const tl_help[] = {
	"Left/Right h/l   pan by 1/8 of the window",
	"PgUp/PgDn        pan by a whole window",
	"Home  End F      start, end of the run (a live one: follow it)",
	", .              move the cursor one column",
	"Shift-Left/Right select a range (or drag); Esc drops it",
	"+ - wheel  0     zoom in/out around the cursor; 0: the whole run",
	"Enter z          zoom to the selection; Enter: open/close a group",
	"Up/Down j/k      select a row; Ctrl-U/Ctrl-D a page",
	"s                sort: activity (most varying first), name, source",
	"\u03a3 avg            a group's value: sum (bytes, counts, W) or mean (%)",
	"n p              next/previous phase (every view)",
	"R                rank files: all ranks in one row per stream, or apart;",
	"                 several hosts: fold every host's rows, or show them",
	"Enter on a host  fold or show that host's rows",
	NULL,
};

const vw_view view_timeline = {
	.name = "timeline",
	.title = "Timeline",
	.init = tl_init,
	.free = tl_free,
	.resize = tl_resize,
	.key = tl_key,
	.draw = tl_draw,
	.help = tl_help,
};
