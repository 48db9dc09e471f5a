/* view-ranks.c: the Ranks view (mcview on the files of a parallel job) —
 * one row per rank (or per host: L), time across on the timeline's window,
 * each cell coloured by the chosen stream of that rank (m cycles; busy
 * CPUs by default) or, where the files hold a code profile (the default
 * then), by the rank's hot function there: its letter in its colour, as on
 * the timeline's code row (a host: the function most of its ranks ran);
 * the job phases across the top, the ranks sortable by
 * number, by their time in the cursor's phase or by the colouring stream's
 * mean over it (s), ranks that took more
 * than 10 % over the mean there marked.  The readout names the rank, its
 * host, the value under the cursor and the rank's time in the phase (with
 * code: the function under the cursor and the rank's top one in the phase;
 * coloured by what it did: its useful time, time in MPI and time off its
 * CPU there, and with call stacks the functions its MPI time waits in).
 *
 *     line 0      title: the job, the colouring stream and its scale, the order
 *     line 1      time ruler;  line 2  job phases (class letters and colours)
 *     lines 3..   one rank per line: label, then the heat cells
 *     last but 1  the job report's notes, if any
 *     last line   readout
 *
 * Zoom, pan and the cursor are the model's, shared with the timeline.  The
 * figures come from viewer/analysis/jobs/job.h (an->jobs); values from the model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks-rows.h"

static int rk_init(vw_ctx *ctx, void **state)
{
	(void)ctx;
	rk_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->sort = RK_SORT_RANK;
	*state = s;
	return 0;
}

static void rk_free(void *state)
{
	rk_state *s = state;
	rk_accs_free(s);
	free(s->rows);
	free(s->order);
	free(s->open);
	free(s);
}

/* Whether the job waits in MPI or OpenMP for 1 % of its code samples or
 * more: over every rank file up to 256 of them, else over 256 spread
 * evenly across the files, so that choosing the first colouring does not
 * walk every rank's profile before the first frame. */
static int rk_job_waits(vw_an *an)
{
	vw_model *m = an->m;
	uint64_t wait = 0, all = 0;
	size_t nf = m->nfiles, take = nf < 256 ? nf : 256;
	for (size_t i = 0; i < take; i++) {
		uint64_t n[VW_CC_N] = {0};
		all += vw_hotcode_file_classes(an, i * nf / take, m->t_min, m->t_max + 1, n);
		wait += n[VW_CC_MPI] + n[VW_CC_SYNC];
	}
	return all && (double)wait >= 0.01 * (double)all;
}

/* Stream names to colour by: every name of the first rank's streams but
 * marks, core.task_clock first (busy CPUs). */
static void rk_names(vw_an *an, rk_state *s)
{
	vw_model *m = an->m;
	if (s->nnames || !m->nfiles)
		return;
	for (size_t i = 0; i < m->nstreams && s->nnames < RK_MAXNAMES; i++) {
		const vw_stream *st = &m->streams[i];
		if (st->file_index != 0 || (st->desc->source && !strcmp(st->desc->source, "mark")))
			continue;
		int k = 0;
		while (k < s->nnames && strcmp(s->names[k], st->desc->name))
			k++;
		if (k == s->nnames)
			s->names[s->nnames++] = st->desc->name;
	}
	for (int k = 0; k < s->nnames; k++)
		if (!strcmp(s->names[k], "core.task_clock")) {
			const char *t = s->names[0];
			s->names[0] = s->names[k];
			s->names[k] = t;
		}
	if (vw_hotcode_has(an)) { /* the hot function first, then the streams */
		if (s->nnames >= RK_MAXNAMES - 1)
			s->nnames = RK_MAXNAMES - 2;
		memmove(s->names + 2, s->names, (size_t)s->nnames * sizeof *s->names);
		int waits = rk_job_waits(an);
		s->names[waits ? 1 : 0] = rk_code;
		s->names[waits ? 0 : 1] = rk_doing;
		s->nnames += 2;
	}
}

static void rk_label(const vw_job *jb, const rk_state *s, const rk_row *row, char *b, size_t len)
{
	const vw_job_rank *rk = &jb->ranks[s->order[row->first]];
	char id[16];
	if (rk->rank >= 0)
		snprintf(id, sizeof id, "r%d", rk->rank);
	else
		snprintf(id, sizeof id, "f%zu", rk->file);
	if (row->kind == RK_ROW_HOST)
		snprintf(b, len, "%.8s x%zu", rk->host[0] ? rk->host : "?", row->n);
	else if (row->kind == RK_ROW_GROUP) /* its ranks, the slowest one's useful time */
		snprintf(b, len, "%s%zu %.4gs", rk_group_open(s, row->group) ? "-" : "+", row->n,
			 row->hi_s);
	else if (row->tag)
		snprintf(b, len, "%s %s", id, row->tag == RK_TAG_SLOWEST ? "slowest" : "fastest");
	else if (row->kind == RK_ROW_MEMBER)
		snprintf(b, len, " %s %.7s", id, rk->host);
	else
		snprintf(b, len, "%s %.8s", id, rk->host);
}

/* With call stacks: where the rank's MPI and sync time in the phase
 * comes from, after the readout's x cells ("| MPI 33 %: a 18 %, …"). */
static void rk_waiting(vw_canvas *c, vw_an *an, size_t file, const vw_job_cell *cl, int x)
{
	vw_waiting w;
	if (cl->t1 <= cl->t0 || vw_waitowner_of(an, file, SIZE_MAX, cl->t0, cl->t1, &w))
		return;
	for (int k = VW_CC_WORK + 1; k < VW_CC_N && x < c->w; k++) {
		char line[400];
		if (vw_waitowner_line(an, &w, k, 3, c->ascii, line, sizeof line))
			x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0, " | %s", line);
	}
	vw_waitowner_free(&w);
}

/* "A = f, B = g, C = h" for every letter in fn[0..n) (-1: none), in letter
 * order, within w columns: names cut, then "+2 more" for the last ones. */
static void rk_code_legend(vw_an *an, const int *fn, size_t n, int w, char *out, size_t len)
{
	int seen[52] = {0}, max = -1;
	for (size_t i = 0; i < n; i++)
		if (fn[i] >= 0 && fn[i] < 52 && !seen[fn[i]]++ && fn[i] > max)
			max = fn[i];
	int cut = 24, total = 0;
	for (; cut >= 8; cut -= 4) {
		total = 0;
		for (int f = 0; f <= max; f++)
			if (seen[f])
				total += 6 + (int)strnlen(vw_hotcode_brief(an, (size_t)f), (size_t)cut);
		if (total <= w)
			break;
	}
	size_t u = 0;
	out[0] = '\0';
	int left = 0;
	for (int f = 0; f <= max; f++)
		left += seen[f] != 0;
	for (int f = 0; f <= max && u + 1 < len; f++) {
		if (!seen[f])
			continue;
		char item[64];
		int k = snprintf(item, sizeof item, "%s%c = %.*s", u ? ", " : "",
				 vw_hotcode_letter((size_t)f), cut,
				 vw_hotcode_brief(an, (size_t)f));
		if ((int)u + k + (left > 1 ? 10 : 0) > w) {
			snprintf(out + u, len - u, "%s+%d more", u ? ", " : "", left);
			return;
		}
		u += (size_t)snprintf(out + u, len - u, "%s", item);
		left--;
	}
	if (!u)
		snprintf(out, len, "no code ran");
}

/* One frame of the Ranks view: what rk_draw works out once for its parts
 * (title, phase strip, rows, readout). */
typedef struct rk_frame {
	const vw_job *jsel; /* the selected row's job */
	size_t n;           /* columns of the plot */
	int nshow;          /* rows shown, from s->top */
	int cur_col;        /* the cursor's column, or out of the plot */
	int cph;            /* the job phase at the cursor, or -1 */
	int code, doing;    /* colouring by hot function, or by work and waiting */
	double *val;        /* per row shown and column: the value */
	int *fns;           /* per row shown and column: function or class */
	double hi;          /* the values' common maximum */
	char unit[32];      /* the colouring stream's unit */
} rk_frame;

/* The values of the rows shown (f->val, f->fns) and their common scale;
 * -1 when memory runs out. */
static int rk_frame_values(vw_an *an, rk_state *s, rk_frame *f)
{
	vw_model *m = an->m;
	size_t n = f->n, rows = (size_t)(f->nshow > 0 ? f->nshow : 1);
	f->val = malloc(rows * n * sizeof *f->val);
	f->fns = f->code || f->doing ? malloc(rows * n * sizeof *f->fns) : NULL;
	int rc = !f->val || ((f->code || f->doing) && !f->fns) ? -1 : 0;
	int mode = f->doing ? RK_MODE_DOING : f->code ? RK_MODE_CODE : RK_MODE_VALUES;
	f->hi = 0;
	rk_accs_trim(s, (size_t)s->top, (size_t)(f->nshow > 0 ? f->nshow : 0));
	for (int r = 0; r < f->nshow && rc >= 0; r++) {
		double *v = f->val + (size_t)r * n;
		int *fn = f->fns ? f->fns + (size_t)r * n : NULL;
		if (rk_row_columns(an, s, (size_t)(s->top + r), n, mode, v, fn) < 0)
			rc = -1;
		for (size_t k = 0; mode == RK_MODE_VALUES && k < n; k++)
			if (v[k] > f->hi)
				f->hi = v[k];
	}
	/* the unit of the colouring stream, from the first rank that has it */
	for (size_t i = 0; i < m->nstreams && !rc; i++)
		if (!strcmp(m->streams[i].desc->name, s->names[s->metric])) {
			vw_model_unit(m, i, f->unit, sizeof f->unit);
			break;
		}
	return rc;
}

static const char *rk_sort_name(int sort)
{
	return sort == RK_SORT_RANK ? "rank" : sort == RK_SORT_TIME ? "time in phase" : "value in phase";
}

/* Line 0, the title: what the rows are, sorted how, coloured by what and
 * its scale or legend; line 1, the time ruler. */
static void rk_draw_title(vw_an *an, rk_state *s, const rk_frame *f, vw_canvas *c)
{
	vw_model *m = an->m;
	char hib[512];
	vw_fmt_si(hib, sizeof hib, f->hi, f->unit);
	if (f->code) /* the letters the rows draw, as on the timeline's code row */
		rk_code_legend(an, f->fns, (size_t)(f->nshow > 0 ? f->nshow : 0) * f->n, c->w / 2, hib,
			       sizeof hib);
	if (f->doing)
		snprintf(hib, sizeof hib, c->ascii ? "# m s ." : "\u2588 \u2592 \u2591 \u00b7");
	char what[96];
	if (s->layout == RK_BY_GROUP) /* slowest first, in quantiles */
		snprintf(what, sizeof what, "%zu %s in %zu groups, by useful time %s",
			 f->jsel->nranks, f->jsel->nranks == 1 ? "rank" : "ranks", s->ngroup,
			 f->cph >= 0 ? "in phase" : "over the run");
	else if (s->layout == RK_BY_HOST)
		snprintf(what, sizeof what, "%zu %s, by %s", s->nrows,
			 s->nrows == 1 ? "host" : "hosts", rk_sort_name(s->sort));
	else
		snprintf(what, sizeof what, "%zu %s, by %s", f->jsel->nranks,
			 f->jsel->nranks == 1 ? "rank" : "ranks", rk_sort_name(s->sort));
	vw_canvas_printf(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD,
			 f->code || f->doing ? "%s | colour %s (%s) | job %s%s"
					     : "%s | colour %s (max %s) | job %s%s",
			 what, s->names[s->metric], hib, f->jsel->id[0] ? f->jsel->id : "-",
			 an->jobs->n > 1 ? " (of several)" : "");
	vw_ruler_draw(c, s->plot_x, 1, s->plot_w, m->t0, m->t1);
}

/* Line 2: the job phases of the selected row's job. */
static void rk_draw_phases(vw_model *m, rk_state *s, const rk_frame *f, vw_canvas *c)
{
	int prev = -2;
	vw_canvas_text(c, 0, 2, RK_LABEL, VW_C_LABEL, 0, "phases");
	for (int x = 0; x < s->plot_w; x++) {
		int ph = vw_job_phase_at(f->jsel, vw_model_col_time(m, x, s->plot_w));
		char cls[8];
		uint32_t g = ' ';
		int role = VW_C_DIM;
		if (ph >= 0) {
			role = VW_C_PHASE0 + vw_phases_color(f->jsel->ph[ph].cls);
			g = ph != prev ? (uint32_t)vw_phase_class_name(f->jsel->ph[ph].cls, cls, sizeof cls)[0]
				       : (c->ascii ? '=' : 0x2500);
		}
		vw_canvas_put(c, s->plot_x + x, 2, g, role, x == f->cur_col ? VW_A_REVERSE : 0);
		prev = ph;
	}
}

/* The cell of column x at (px, y): the class (work, MPI, sync, off CPU),
 * the hot function's letter, or the value on the frame's scale. */
static void rk_draw_cell(const rk_frame *f, vw_canvas *c, int x, int px, int y, size_t at)
{
	double v = f->val[at];
	int attr = x == f->cur_col ? VW_A_REVERSE : 0;
	uint32_t dot = c->ascii ? '.' : 0x00B7;
	if (f->doing) { /* work, MPI, sync: three shades, three colours */
		static const uint32_t g[2][VW_CC_N] = {{'#', 'm', 's'}, {0x2588, 0x2592, 0x2591}};
		static const int role[VW_CC_N] = {VW_C_SERIES0 + 1, VW_C_SERIES0 + 5,
						  VW_C_SERIES0 + 2};
		int k = f->fns[at];
		if (k == RK_OFF) /* its own colour: neither work nor waiting */
			vw_canvas_put(c, px, y, c->ascii ? 'o' : 0x00B7, VW_C_WARN, attr);
		else if (k < 0)
			vw_canvas_put(c, px, y, dot, VW_C_DIM, attr);
		else
			vw_canvas_put(c, px, y, g[!c->ascii][k], role[k], attr);
	} else if (f->code) { /* the hot function's letter; dim under half the samples */
		int fn = f->fns[at];
		if (fn < 0)
			vw_canvas_put(c, px, y, dot, VW_C_DIM, attr);
		else
			vw_canvas_put(c, px, y, (uint32_t)vw_hotcode_letter((size_t)fn),
				      VW_C_SERIES0 + fn % 8, attr | (v >= 0.5 ? VW_A_BOLD : 0));
	} else if (isnan(v)) {
		vw_canvas_put(c, px, y, dot, VW_C_DIM, attr);
	} else {
		int k = f->hi > 0 ? (int)(v / f->hi * 9.999) : 0;
		k = k < 0 ? 0 : k > 9 ? 9 : k;
		vw_canvas_put(c, px, y, c->ascii ? " .:-=+*#%@"[k] : 0x2588, VW_C_SCALE0 + k, attr);
	}
}

/* The rows shown, from line y0: label (marked when slow in the phase at
 * the cursor), then a cell per column. */
static void rk_draw_rows(vw_an *an, rk_state *s, const rk_frame *f, vw_canvas *c, int y0)
{
	vw_model *m = an->m;
	for (int r = 0; r < f->nshow; r++) {
		const rk_row *row = &s->rows[s->top + r];
		const vw_job *jb = rk_job(an, row->job);
		int y = y0 + r, on = s->top + r == s->sel;
		char lab[32];
		rk_label(jb, s, row, lab, sizeof lab);
		int ph = vw_job_phase_at(jb, m->cursor);
		int slow = ph >= 0 && !isnan(row->phase_s) && row->phase_s > 1.1 * jb->ph[ph].mean_s;
		vw_canvas_printf(c, 0, y, RK_LABEL, on ? VW_C_SELECT : VW_C_LABEL,
				 on ? VW_A_REVERSE : 0, "%-*s", RK_LABEL, lab);
		if (slow)
			vw_canvas_put(c, RK_LABEL - 1, y, c->ascii ? '!' : 0x25B2, VW_C_WARN, VW_A_BOLD);
		for (int x = 0; x < s->plot_w; x++)
			rk_draw_cell(f, c, x, s->plot_x + x, y, (size_t)r * f->n + (size_t)x);
	}
}

/* The selected rank's cell of the phase at the cursor, or NULL (a host's
 * row, or no phase there). */
static const vw_job_cell *rk_sel_cell(const rk_state *s, const rk_frame *f, const rk_row *row)
{
	return f->cph >= 0 && row->n == 1
		       ? &f->jsel->cell[(size_t)f->cph * f->jsel->nranks + s->order[row->first]]
		       : NULL;
}

/* The readout's tail when colouring by work and waiting: the class at the
 * cursor, the share of waiting, and the rank's figures in the phase. */
static void rk_readout_doing(vw_an *an, rk_state *s, const rk_frame *f, vw_canvas *c, int x,
			     const char *tb, int at, double v)
{
	const rk_row *row = &s->rows[s->sel];
	int k = at >= 0 ? f->fns[at] : -2;
	x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0, "%s %s", tb,
			      k == -2 || k == -1 ? "-" : k == RK_OFF ? "off CPU" : vw_codeclass_name(k));
	if (!isnan(v))
		x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0, " (waiting %.0f%%)",
				      100 * v);
	const vw_job_cell *cl = rk_sel_cell(s, f, row);
	if (!cl || isnan(cl->mpi_s))
		return;
	x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0,
			      " | in phase: useful %.3fs, MPI %.3fs", cl->useful_s, cl->mpi_s);
	/* asleep, or its CPU taken: neither work nor MPI (job.h) */
	double span = (double)(cl->t1 - cl->t0) / 1e9;
	if (!isnan(cl->off_s) && span > 0)
		x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0,
				      ", off CPU %.3fs (%.0f%%)", cl->off_s, 100 * cl->off_s / span);
	if (!isnan(cl->taken_s) && cl->taken_s >= 0.005)
		x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0,
				      ", taken by others %.3fs", cl->taken_s);
	rk_waiting(c, an, f->jsel->ranks[s->order[row->first]].file, cl, x);
}

/* The readout's tail when colouring by hot function: the function at the
 * cursor and the rank's top function in the phase. */
static void rk_readout_code(vw_an *an, rk_state *s, const rk_frame *f, vw_canvas *c, int x,
			    const char *tb, int at)
{
	const rk_row *row = &s->rows[s->sel];
	int fn = at >= 0 ? f->fns[at] : -1;
	x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0, "%s code %s", tb,
			      fn >= 0 ? vw_hotcode_brief(an, (size_t)fn) : "-");
	vw_hot h;
	const vw_job_cell *cl = rk_sel_cell(s, f, row);
	if (cl && cl->t1 > cl->t0 &&
	    vw_hotcode_file_top(an, f->jsel->ranks[s->order[row->first]].file, cl->t0, cl->t1, &h,
				1, NULL))
		vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0, " | phase top %s %.0f%%",
				 vw_hotcode_brief(an, h.fn), 100 * h.share);
}

/* The last line: the selected row at the cursor, its phase's figures, and
 * what the colouring says there. */
static void rk_draw_readout(vw_an *an, rk_state *s, const rk_frame *f, vw_canvas *c)
{
	vw_model *m = an->m;
	const rk_row *row = &s->rows[s->sel];
	char lab[32], vb[32], tb[32];
	rk_label(f->jsel, s, row, lab, sizeof lab);
	/* the selected row's cell at the cursor, where both are shown */
	int at = f->cur_col >= 0 && f->cur_col < s->plot_w && s->sel >= s->top &&
			 s->sel < s->top + f->nshow
		     ? (s->sel - s->top) * (int)f->n + f->cur_col
		     : -1;
	double v = at >= 0 ? f->val[at] : NAN;
	vw_fmt_si(vb, sizeof vb, v, f->unit);
	vw_fmt_time(tb, sizeof tb, m->cursor - m->t_min, 0);
	int x = vw_canvas_printf(c, 0, c->h - 1, c->w, VW_C_STATUS, VW_A_BOLD, "%s ", lab);
	if (row->kind == RK_ROW_GROUP && !isnan(row->lo_s))
		x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0,
				      "(%zu ranks, useful %.3f-%.3fs) ", row->n, row->lo_s, row->hi_s);
	if (f->cph >= 0) {
		const vw_job_phase *p = &f->jsel->ph[f->cph];
		char cls[8];
		x += vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0,
				      "%s %.3fs (LB %.2f, CE %.2f, slowest r%d) | ",
				      p->label[0] ? p->label : vw_phase_class_name(p->cls, cls, sizeof cls),
				      row->phase_s, p->load_balance, p->comm_eff, p->slowest_rank);
	}
	if (f->doing)
		rk_readout_doing(an, s, f, c, x, tb, at, v);
	else if (f->code)
		rk_readout_code(an, s, f, c, x, tb, at);
	else
		vw_canvas_printf(c, x, c->h - 1, c->w - x, VW_C_STATUS, 0, "%s %s %s", tb,
				 s->names[s->metric], vb);
}

static void rk_draw(vw_ctx *ctx, void *state, vw_canvas *c)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	rk_state *s = state;
	vw_canvas_clear(c);
	if (vw_jobs_ensure(an, s->err, sizeof s->err) != 0 || !an->jobs || !an->jobs->n) {
		vw_canvas_text(c, 1, 1, c->w - 2, s->err[0] ? VW_C_ERROR : VW_C_DIM, 0,
			       s->err[0] ? s->err : "no job: open the rank files together, "
						    "mcview run.*.mcz");
		return;
	}
	rk_names(an, s);
	/* more ranks than rows on the screen: groups by default, as many as
	 * fit between the slowest and the fastest rank */
	size_t total = 0;
	for (size_t j = 0; j < an->jobs->n; j++)
		total += an->jobs->v[j].nranks;
	if (!s->layout_set) {
		s->layout = total > (size_t)(c->h > 5 ? c->h - 5 : 1) ? RK_BY_GROUP : RK_BY_RANK;
		s->layout_set = 1;
	}
	s->gwant = c->h - 7 < 1 ? 1 : c->h - 7 > 64 ? 64 : c->h - 7;
	if (!s->nnames || rk_rows(an, s) != 0 || c->w < RK_LABEL + 8 || c->h < 6) {
		vw_canvas_text(c, 0, 0, c->w, VW_C_DIM, 0, "ranks: nothing to draw");
		return;
	}
	s->plot_x = RK_LABEL + 1;
	s->plot_w = c->w - s->plot_x;
	if (s->sel >= (int)s->nrows)
		s->sel = (int)s->nrows - 1;
	rk_frame f = {.jsel = rk_job(an, s->rows[s->sel].job), .n = (size_t)s->plot_w};
	/* the report's notes (ranks missing, cut, off their CPU) on the line
	 * above the readout, where the screen has room for them */
	int note = f.jsel->notes[0] && c->h >= 8;
	int y0 = 3, nvis = c->h - y0 - 1 - note;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + nvis)
		s->top = s->sel - nvis + 1;
	if (note)
		vw_canvas_printf(c, 0, c->h - 2, c->w, VW_C_WARN, 0, "note: %s", f.jsel->notes);
	f.nshow = (int)s->nrows - s->top < nvis ? (int)s->nrows - s->top : nvis;
	f.code = s->names[s->metric] == rk_code;
	f.doing = s->names[s->metric] == rk_doing;
	f.cur_col = vw_model_time_col(m, m->cursor, s->plot_w);
	f.cph = vw_job_phase_at(f.jsel, m->cursor);
	if (rk_frame_values(an, s, &f) == 0) {
		rk_draw_title(an, s, &f, c);
		rk_draw_phases(m, s, &f, c);
		rk_draw_rows(an, s, &f, c, y0);
		rk_draw_readout(an, s, &f, c);
	}
	free(f.fns);
	free(f.val);
}

static unsigned rk_key(vw_ctx *ctx, void *state, const vw_input *in)
{
	vw_model *m = ctx->m;
	vw_an *an = ctx->an;
	rk_state *s = state;
	switch (in->act) {
	case VW_ACT_UP: s->sel = s->sel > 0 ? s->sel - 1 : 0; break;
	case VW_ACT_DOWN: s->sel++; break; /* clamped when drawn */
	case VW_ACT_PAGE_UP: s->sel = s->sel > 10 ? s->sel - 10 : 0; break;
	case VW_ACT_PAGE_DOWN: s->sel += 10; break;
	case VW_ACT_LEFT: vw_model_pan(m, -0.125); break;
	case VW_ACT_RIGHT: vw_model_pan(m, 0.125); break;
	case VW_ACT_PAGE_LEFT: vw_model_pan(m, -1.0); break;
	case VW_ACT_PAGE_RIGHT: vw_model_pan(m, 1.0); break;
	case VW_ACT_ZOOM_IN: vw_model_zoom(m, 0.5, m->cursor); break;
	case VW_ACT_ZOOM_OUT: vw_model_zoom(m, 2.0, m->cursor); break;
	case VW_ACT_RESET: vw_model_reset(m); break;
	case VW_ACT_CURSOR_LEFT:
	case VW_ACT_CURSOR_RIGHT: {
		int64_t step = s->plot_w > 0 ? (m->t1 - m->t0) / s->plot_w : 1;
		vw_model_set_cursor(m, m->cursor + (in->act == VW_ACT_CURSOR_LEFT ? -step : step));
		break;
	}
	case VW_ACT_SORT: s->sort = (s->sort + 1) % RK_SORT_COUNT; break;
	case VW_ACT_METRIC: s->metric = s->nnames ? (s->metric + 1) % s->nnames : 0; break;
	case VW_ACT_LAYOUT: /* ranks, hosts, groups */
		s->layout = (s->layout + 1) % RK_LAYOUTS;
		s->layout_set = 1;
		s->sel = s->top = 0;
		break;
	case VW_ACT_ENTER: { /* a group opened or closed; else zoom to the cursor's job phase */
		const rk_row *row = s->nrows && s->sel < (int)s->nrows ? &s->rows[s->sel] : NULL;
		if (row && row->kind == RK_ROW_GROUP) {
			size_t g = row->group;
			if (g >= s->nopen) {
				uint8_t *o = realloc(s->open, s->ngroup > g ? s->ngroup : g + 1);
				if (!o)
					return VW_R_NONE;
				memset(o + s->nopen, 0, (s->ngroup > g ? s->ngroup : g + 1) - s->nopen);
				s->open = o;
				s->nopen = s->ngroup > g ? s->ngroup : g + 1;
			}
			s->open[g] = !s->open[g];
			s->open_version++;
			break;
		}
		const vw_job *jb = row ? rk_job(an, row->job) : NULL;
		int ph = jb ? vw_job_phase_at(jb, m->cursor) : -1;
		if (ph < 0)
			return VW_R_NONE;
		int64_t a = jb->ph[ph].t0, b = jb->ph[ph].t1, pad = (b - a) / 20;
		vw_model_set_window(m, a - pad, b + pad);
		vw_model_set_cursor(m, a);
		break;
	}
	default: return VW_R_NONE;
	}
	return VW_R_REDRAW;
}

static int rk_shown(vw_ctx *ctx)
{
	vw_model *m = ctx->m;
	return vw_model_is_job(m);
}

static const char *const rk_help[] = {
	"Up/Down j/k      select a rank (a host with L)",
	"Left/Right , .   pan; move the cursor one column",
	"+ - 0            zoom in/out around the cursor; the whole run",
	"Enter            zoom to the job phase under the cursor (a rank's row)",
	"s                order (rows of ranks or hosts): rank number, time in the",
	"                 cursor's phase, or the colouring stream's mean over it",
	"                 (largest first)",
	"m                colour by the next stream (where the files hold a code",
	"                 profile: what each rank did, \u2588 work \u2592 MPI \u2591 sync",
	"                 \u00b7 off CPU (its own colour), first when the job waits in MPI; the hot",
	"                 function; then busy CPUs)",
	"L                a row per rank, per host (its ranks' mean), or groups:",
	"                 the slowest and the fastest rank, between them groups of",
	"                 ranks of similar useful time (+N: N ranks, the slowest one's",
	"                 time); the default with more ranks than rows",
	"Enter            on a group: open it (its ranks under it) or close it",
	"\u25b2                more than 10 % over the mean time in the phase",
	"readout          the rank's time in the cursor's phase; LB load balance",
	"                 (mean / max useful time), CE communication efficiency",
	"                 (max useful / phase time), the slowest rank (mcview(1))",
	NULL,
};

const vw_view view_ranks = {
	.name = "ranks",
	.title = "Ranks",
	.init = rk_init,
	.free = rk_free,
	.resize = NULL,
	.key = rk_key,
	.draw = rk_draw,
	.help = rk_help,
	.shown = rk_shown,
};
