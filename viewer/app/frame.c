/* frame.c: the screen around the current view.
 *
 *     line 0      tab bar: the views (current one highlighted), file, filter,
 *                 the rows' order (timeline: 's' cycles it)
 *     lines 1..   the current view, drawn into its own canvas
 *     last line   status: a warning (damaged file), the filter prompt, or
 *                 the key hints
 *
 * The help overlay (?) lists the global keys and the current view's. A
 * screen under VW_MIN_W x VW_MIN_H shows one line saying so instead.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "keys.h"

static const char *const global_help[] = {
	"q                quit",
	"?  F1            this help (any key closes it)",
	"Tab  S-Tab       next/previous view",
	"/                filter rows by name (Enter keeps, Esc restores)",
	"f                the flame graph of the span (call stacks)",
	NULL,
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

static void tab_bar(vw_app *a, vw_canvas *c)
{
	vw_model *m = a->m;
	vw_canvas_fill(c, 0, 0, c->w, 1, ' ', VW_C_TITLE, 0);
	int x = vw_canvas_text(c, 0, 0, c->w, VW_C_TITLE, VW_A_BOLD, " mcview ");
	for (int i = 0; i < a->nviews; i++) {
		if (!vw_views_shown(&a->ctx, i))
			continue;
		int cur = i == m->view;
		x += vw_canvas_printf(c, x, 0, c->w - x, cur ? VW_C_SELECT : VW_C_TITLE,
				      cur ? VW_A_REVERSE | VW_A_BOLD : 0, " %s ",
				      vw_views[i]->title);
		x += vw_canvas_text(c, x, 0, c->w - x, VW_C_TITLE, 0, " ");
	}
	char right[160];
	/* the members of one job file ("job.mcz:run.0.mcz", ...): the job
	 * file's name and how many it holds */
	const char *colon = strrchr(m->paths[0], ':');
	size_t pre = colon ? (size_t)(colon - m->paths[0]) + 1 : 0;
	int job = pre > 1 && m->nfiles > 1;
	for (size_t f = 1; f < m->nfiles && job; f++)
		job = !strncmp(m->paths[f], m->paths[0], pre);
	int n;
	if (job)
		n = snprintf(right, sizeof right, "%.*s (%zu recordings)",
			     (int)(colon - base_name(m->paths[0])), base_name(m->paths[0]),
			     m->nfiles);
	else
		n = snprintf(right, sizeof right, "%s", base_name(m->paths[0]));
	if (m->nfiles > 1 && !job)
		n += snprintf(right + n, sizeof right - (size_t)n, " +%zu", m->nfiles - 1);
	if (m->filter[0])
		n += snprintf(right + n, sizeof right - (size_t)n, "  /%s", m->filter);
	if (vw_views[m->view] == &view_timeline)
		n += snprintf(right + n, sizeof right - (size_t)n, "  sort:%s",
			      vw_model_sort_name(m->sort));
	/* a file still being written: whether the window follows its end */
	if (a->live)
		snprintf(right + n, sizeof right - (size_t)n, "  %s",
			 m->t1 > m->t_max ? "LIVE following" : "LIVE paused (F: follow)");
	int len = (int)strlen(right) + 1;
	if (c->w - len > x)
		vw_canvas_text(c, c->w - len, 0, len, VW_C_TITLE, 0, right);
}

static void status_line(vw_app *a, vw_canvas *c)
{
	vw_model *m = a->m;
	int y = c->h - 1;
	vw_canvas_fill(c, 0, y, c->w, 1, ' ', VW_C_STATUS, 0);
	const char *own = a->prompt ? vw_app_search(a) : NULL;
	if (own) {
		int x = vw_canvas_printf(c, 0, y, c->w, VW_C_STATUS, VW_A_BOLD, "search: /%s", own);
		vw_canvas_put(c, x, y, '_', VW_C_CURSOR, VW_A_BOLD);
		vw_canvas_printf(c, x + 2, y, c->w - x - 2, VW_C_DIM, 0,
				 "(Enter keeps, Esc cancels)");
	} else if (a->prompt) {
		int x = vw_canvas_printf(c, 0, y, c->w, VW_C_STATUS, VW_A_BOLD, "filter: /%s",
					 m->filter);
		vw_canvas_put(c, x, y, '_', VW_C_CURSOR, VW_A_BOLD);
		vw_canvas_printf(c, x + 2, y, c->w - x - 2, VW_C_DIM, 0,
				 "(%zu row%s; Enter keeps, Esc cancels)", m->nrows,
				 m->nrows == 1 ? "" : "s");
	} else if (a->status.text[0]) {
		vw_canvas_text(c, 0, y, c->w, a->status.warn ? VW_C_WARN : VW_C_STATUS,
			       a->status.warn ? VW_A_BOLD : 0, a->status.text);
	} else {
		vw_canvas_text(c, 0, y, c->w, VW_C_DIM, 0,
			       vw_app_search(a)
				       ? "?:help  q:quit  Tab:view  /:search  arrows:move  Enter:zoom  BS:out"
				       : "?:help  q:quit  Tab:view  /:filter  +/-:zoom  arrows:pan  0:reset");
	}
}

/* The help's lines cut to width columns at spaces, a long line going on
 * under its text (past the 17 columns of keys), into out[0..max): how
 * many.  A line's style: 1 the view's title, 0 the others. */
enum { HELP_KEYS = 17, HELP_MAX = 160 };
typedef struct help_line {
	char text[256];
	int title;
} help_line;

static int help_wrap(const char *line, int width, int title, help_line *out, int n, int max)
{
	const char *p = line;
	int first = 1;
	while (n < max) {
		int ind = first ? 0 : HELP_KEYS, room = width - ind;
		size_t len = strlen(p);
		if (room < 8)
			room = 8;
		size_t cut = len;
		if ((int)len > room) {
			cut = (size_t)room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = (size_t)room;
		}
		snprintf(out[n].text, sizeof out[n].text, "%*s%.*s", ind, "", (int)cut, p);
		out[n++].title = title;
		p += cut;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		first = 0;
	}
	return n;
}

static void help_overlay(vw_app *a, vw_canvas *c)
{
	const vw_view *v = vw_views[a->m->view];
	/* as wide as the longest line, within the screen */
	int want = 0;
	for (int i = 0; global_help[i]; i++)
		want = (int)strlen(global_help[i]) > want ? (int)strlen(global_help[i]) : want;
	for (int i = 0; v->help && v->help[i]; i++)
		want = (int)strlen(v->help[i]) > want ? (int)strlen(v->help[i]) : want;
	int w = want + 4 < c->w - 4 ? want + 4 : c->w - 4;
	static help_line hl[HELP_MAX];
	int n = 0;
	for (int i = 0; global_help[i]; i++)
		n = help_wrap(global_help[i], w - 4, 0, hl, n, HELP_MAX);
	n = help_wrap(v->title, w - 4, 1, hl, n, HELP_MAX);
	for (int i = 0; v->help && v->help[i]; i++)
		n = help_wrap(v->help[i], w - 4, 0, hl, n, HELP_MAX);
	int h = n + 2 < c->h - 2 ? n + 2 : c->h - 2;
	int x0 = (c->w - w) / 2, y0 = (c->h - h) / 2;
	vw_canvas_fill(c, x0, y0, w, h, ' ', VW_C_NORMAL, 0);
	uint32_t hz = c->ascii ? '-' : 0x2500, vt = c->ascii ? '|' : 0x2502;
	for (int i = 1; i < w - 1; i++) {
		vw_canvas_put(c, x0 + i, y0, hz, VW_C_AXIS, 0);
		vw_canvas_put(c, x0 + i, y0 + h - 1, hz, VW_C_AXIS, 0);
	}
	for (int j = 1; j < h - 1; j++) {
		vw_canvas_put(c, x0, y0 + j, vt, VW_C_AXIS, 0);
		vw_canvas_put(c, x0 + w - 1, y0 + j, vt, VW_C_AXIS, 0);
	}
	static const uint32_t corner[2][4] = {{'+', '+', '+', '+'}, {0x250c, 0x2510, 0x2514, 0x2518}};
	const uint32_t *k = corner[!c->ascii];
	vw_canvas_put(c, x0, y0, k[0], VW_C_AXIS, 0);
	vw_canvas_put(c, x0 + w - 1, y0, k[1], VW_C_AXIS, 0);
	vw_canvas_put(c, x0, y0 + h - 1, k[2], VW_C_AXIS, 0);
	vw_canvas_put(c, x0 + w - 1, y0 + h - 1, k[3], VW_C_AXIS, 0);
	vw_canvas_text(c, x0 + 2, y0, w - 4, VW_C_TITLE, VW_A_BOLD, " mcview keys ");
	for (int i = 0; i < n && y0 + 1 + i < y0 + h - 1; i++)
		vw_canvas_text(c, x0 + 2, y0 + 1 + i, w - 4, hl[i].title ? VW_C_LABEL : VW_C_NORMAL,
			       hl[i].title ? VW_A_BOLD : 0, hl[i].text);
}

void vw_frame_draw(vw_app *a, vw_canvas *c)
{
	vw_model_budget(a->m, a->budget_ms);
	vw_canvas_clear(c);
	if (c->w < VW_MIN_W || c->h < VW_MIN_H) {
		char msg[96];
		snprintf(msg, sizeof msg, "%dx%d, needs %dx%d", c->w, c->h, VW_MIN_W, VW_MIN_H);
		vw_canvas_text(c, 0, c->h / 2 - 1, c->w, VW_C_WARN, VW_A_BOLD, "terminal too small");
		vw_canvas_text(c, 0, c->h / 2, c->w, VW_C_WARN, 0, msg);
		return;
	}
	if (!a->body || a->body->w != c->w || a->body->h != c->h - 2) {
		if (!a->body)
			a->body = vw_canvas_new(c->w, c->h - 2);
		else
			vw_canvas_resize(a->body, c->w, c->h - 2);
		if (!a->body)
			return;
		for (int i = 0; i < a->nviews; i++)
			if (vw_views[i]->resize)
				vw_views[i]->resize(a->states[i], c->w, c->h - 2);
	}
	vw_canvas *b = a->body;
	b->ascii = c->ascii;
	b->blocks = c->blocks;
	vw_canvas_clear(b);
	const vw_view *v = vw_views[a->m->view];
	v->draw(&a->ctx, a->states[a->m->view], b);
	memcpy(c->cells + c->w, b->cells, (size_t)b->w * (size_t)b->h * sizeof *b->cells);
	vw_model_damage(a->m); /* what this frame's reads found damaged, said once */
	vw_status_look(&a->status, a->m);
	tab_bar(a, c);
	if (a->m->refining) /* the next frames sharpen the screen (model.h) */
		vw_canvas_text(c, c->w - 12, 0, 12, VW_C_DIM, 0, " refining...");
	status_line(a, c);
	if (a->help)
		help_overlay(a, c);
}
