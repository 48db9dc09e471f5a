/* app.c: what the viewer does with input, apart from any terminal.
 *
 * Global actions (quit, help, next view, the '/' filter prompt) are handled
 * here (the prompt edits the view's own search where it has one: the
 * flame graph's); the rest goes to the current view's key().  While the filter prompt
 * is open, keys edit the pattern and the rows follow as it is typed; Enter
 * keeps it, Esc restores the previous one.  Mouse rows are given to the
 * view relative to its canvas (the tab bar is line 0 of the screen).
 * Nothing here draws: the result bits tell the loop to redraw once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "keys.h"
#include "../analysis/analysis.h"

int vw_app_init(vw_app *a, vw_an *an, int view)
{
	memset(a, 0, sizeof *a);
	vw_model *m = a->m = an->m;
	a->an = an;
	a->ctx = (vw_ctx){.m = m, .an = an};
	/* what the model's files call for, and what was found damaged
	 * before the screen (phases detected for a snapshot, a comparison) */
	vw_status_open(&a->status, m);
	vw_status_look(&a->status, m);
	while (vw_views[a->nviews])
		a->nviews++;
	a->states = calloc((size_t)a->nviews, sizeof *a->states);
	if (!a->states)
		return -1;
	for (int i = 0; i < a->nviews; i++)
		if (vw_views[i]->init && vw_views[i]->init(&a->ctx, &a->states[i]) != 0)
			return -1;
	m->view = view >= 0 && view < a->nviews && vw_views_shown(&a->ctx, view) ? view : 0;
	return 0;
}

void vw_app_free(vw_app *a)
{
	for (int i = 0; a->states && i < a->nviews; i++)
		if (vw_views[i]->free)
			vw_views[i]->free(a->states[i]);
	free(a->states);
	a->states = NULL;
	vw_canvas_free(a->body);
	a->body = NULL;
}

int vw_app_swap(vw_app *a, vw_model *n)
{
	vw_model *old = a->m;
	vw_an *old_an = a->an, *an = vw_an_new(n);
	vw_app na;
	if (!an || vw_app_init(&na, an, old->view) != 0) {
		if (an)
			vw_app_free(&na);
		vw_an_free(an);
		return -1;
	}
	na.help = a->help;
	na.prompt = a->prompt;
	memcpy(na.before, a->before, sizeof na.before);
	na.quit = a->quit;
	na.budget_ms = a->budget_ms;
	na.phases_later = a->phases_later;
	na.live = a->live;
	na.behind = a->behind;
	vw_app_free(a);
	*a = na;
	vw_model_set_sort(n, old->sort);
	vw_model_set_filter(n, old->filter);
	if (!(old->t0 <= old->t_min && old->t1 > old->t_max)) { /* zoomed in: kept */
		int64_t shift = old->t1 > old->t_max ? n->t_max - old->t_max : 0; /* at the end */
		vw_model_set_window(n, old->t0 + shift, old->t1 + shift);
		vw_model_set_cursor(n, old->cursor + shift);
	}
	vw_an_free(old_an);
	vw_model_free(old);
	return 0;
}

char *vw_app_search(vw_app *a)
{
	const vw_view *v = vw_views[a->m->view];
	return v->search ? v->search(a->states[a->m->view]) : NULL;
}

/* The pattern the prompt edits: the view's own search, or the rows' filter. */
static void prompt_set(vw_app *a, const char *s)
{
	char *own = vw_app_search(a);
	if (own)
		snprintf(own, VW_SEARCH_LEN, "%s", s);
	else
		vw_model_set_filter(a->m, s);
}

static unsigned prompt_key(vw_app *a, int key)
{
	vw_model *m = a->m;
	char f[64], *own = vw_app_search(a);
	size_t n = strlen(own ? own : m->filter);
	memcpy(f, own ? own : m->filter, n + 1);
	if (key == VW_KEY_ENTER) {
		a->prompt = 0;
	} else if (key == VW_KEY_ESC) {
		a->prompt = 0;
		prompt_set(a, a->before);
	} else if (key == VW_KEY_BACKSPACE || key == 0x7f || key == 8) {
		if (n == 0)
			return VW_R_NONE;
		f[n - 1] = '\0';
		prompt_set(a, f);
	} else if (key == VW_CTRL('u')) {
		prompt_set(a, "");
	} else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof f) {
		f[n] = (char)key;
		f[n + 1] = '\0';
		prompt_set(a, f);
	} else {
		return VW_R_NONE;
	}
	return VW_R_REDRAW;
}

unsigned vw_app_input(vw_app *a, const vw_input *in)
{
	vw_model *m = a->m;
	if (a->prompt)
		return prompt_key(a, in->key);
	if (a->help) {
		/* Any key closes the help; q still quits. */
		a->help = 0;
		if (in->act == VW_ACT_QUIT)
			a->quit = 1;
		return VW_R_REDRAW | (a->quit ? VW_R_QUIT : 0);
	}
	switch (in->act) {
	case VW_ACT_QUIT: a->quit = 1; return VW_R_QUIT;
	case VW_ACT_HELP: a->help = 1; return VW_R_REDRAW;
	case VW_ACT_NEXT_VIEW: m->view = vw_views_step(&a->ctx, m->view, 1); return VW_R_REDRAW;
	case VW_ACT_PREV_VIEW: m->view = vw_views_step(&a->ctx, m->view, -1); return VW_R_REDRAW;
	case VW_ACT_FLAME: { /* every view */
		int fl = vw_views_find("flame");
		if (fl < 0 || fl == m->view)
			return VW_R_NONE;
		m->view = fl;
		return VW_R_REDRAW;
	}
	case VW_ACT_NEXT_PHASE: /* every view: viewer/phase.h */
	case VW_ACT_PREV_PHASE:
		return vw_phases_step(a->an, in->act == VW_ACT_NEXT_PHASE ? 1 : -1) ? VW_R_REDRAW
										    : VW_R_NONE;
	case VW_ACT_FILTER: {
		char *own = vw_app_search(a);
		a->prompt = 1;
		snprintf(a->before, sizeof a->before, "%s", own ? own : m->filter);
		return VW_R_REDRAW;
	}
	default: break;
	}
	const vw_view *v = vw_views[m->view];
	if (!v->key)
		return VW_R_NONE;
	vw_input vin = *in;
	if (in->act == VW_ACT_MOUSE)
		vin.mouse_y = in->mouse_y - 1;
	a->ctx.say[0] = '\0';
	unsigned r = v->key(&a->ctx, a->states[m->view], &vin);
	vw_status_look(&a->status, m); /* what a detection the key asked for found damaged */
	if (r & VW_R_SAY)
		vw_status_say(&a->status, a->ctx.say);
	if (r & VW_R_QUIT)
		a->quit = 1;
	if (r & VW_R_HELP)
		a->help = 1;
	if (r & VW_R_NEXT_VIEW)
		m->view = vw_views_step(&a->ctx, m->view, 1);
	return r;
}

unsigned vw_app_key(vw_app *a, int key)
{
	vw_input in = {.act = vw_keys_action(key), .key = key};
	return vw_app_input(a, &in);
}
