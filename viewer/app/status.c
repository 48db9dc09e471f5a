/* status.c: the status line's one owner.  What it says comes from the
 * model's warnings (data: a damaged or cut file, a PCP archive read with a
 * workaround, a job file's member left out, the cache's note, damaged
 * chunks met while drawing), from the conversions behind the screen
 * (behind.c: how far they have read, a failure), and from the app's and the
 * views' messages (phases being detected, an error, a key's result).  Every
 * text is worded here.  A warning stays until something replaces it
 * outright: the messages that wait their turn (progress, "detecting
 * phases...") are not shown over one.
 *
 *     vw_status_open(&a->status, m);     // a model put on the screen
 *     vw_model_damage(m);
 *     vw_status_look(&a->status, m);     // after anything that reads chunks
 *     draw a->status.text, as a warning when a->status.warn
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

__attribute__((format(printf, 3, 4))) static void set(vw_status *st, int warn, const char *fmt,
						      ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->text, sizeof st->text, fmt, ap);
	va_end(ap);
	st->warn = warn;
}

/* How the first file read by recovery stands (vw_model_warnings). */
static void trouble(vw_status *st, const vw_model *m)
{
	const vw_model_warnings *w = &m->warnings;
	const char *name = w->trouble ? base_name(m->paths[w->trouble_file]) : "";
	unsigned long long rows = w->trouble_rows;
	switch (w->trouble) {
	case VW_TROUBLE_EMPTY:
		set(st, 1, "warning: %s holds nothing readable: %s", name, w->trouble_why);
		break;
	case VW_TROUBLE_INCOMPLETE:
		set(st, 1,
		    "%s is incomplete (still recording, or its recorder was killed): showing its "
		    "%llu rows",
		    name, rows);
		break;
	case VW_TROUBLE_BLOCKS:
		set(st, 1,
		    "warning: %s is damaged: %llu block%s left out (mcz check names them); showing "
		    "the rest (%llu rows)",
		    name, (unsigned long long)w->trouble_blocks, w->trouble_blocks == 1 ? "" : "s",
		    rows);
		break;
	case VW_TROUBLE_CUT:
		set(st, 1,
		    "warning: %s is damaged: showing what it holds (%llu rows, %llu of %llu bytes "
		    "readable)",
		    name, rows, (unsigned long long)w->trouble_valid,
		    (unsigned long long)w->trouble_bytes);
		break;
	default:
		break;
	}
}

void vw_status_open(vw_status *st, const vw_model *m)
{
	const vw_model_warnings *w = &m->warnings;
	*st = (vw_status){0};
	/* a PCP archive read only in part, or with a workaround (a cut volume,
	 * an unusable .index): the importer's note, as mcz import prints it */
	if (w->import_warning)
		set(st, 1, "warning: %s", w->import_warning);
	trouble(st, m); /* a file's own state says more */
	if (w->left_out && !st->warn) {
		char why[256];
		snprintf(why, sizeof why, "%s left out: %s%s%s", w->left_out,
			 mcz_strerror(w->left_out_err), w->left_out_detail[0] ? ": " : "",
			 w->left_out_detail);
		set(st, 1, "warning: %s", why);
	}
	if (w->cache_note[0] && !st->text[0]) /* the cache costs a note, never the view */
		set(st, 0, "note: %s", w->cache_note);
}

void vw_status_follow(vw_status *st, const vw_model *m)
{
	/* the file's state line ("incomplete: N rows") is said again */
	st->text[0] = '\0';
	st->warn = 0;
	trouble(st, m);
}

void vw_status_look(vw_status *st, const vw_model *m)
{
	const vw_model_warnings *w = &m->warnings;
	if (w->ndamaged <= st->damaged)
		return;
	st->damaged = w->ndamaged;
	set(st, 1, "warning: %s: %zu damaged chunk%s not shown (x on the time axis); see mcz check",
	    base_name(m->paths[w->damaged_file]), w->ndamaged, w->ndamaged == 1 ? "" : "s");
}

void vw_status_behind(vw_status *st, const vw_behind *b, const vw_model *m)
{
	vw_behind_state s;
	if (!b)
		return;
	vw_behind_note(b, m, &s);
	const char *p = s.reading ? s.partial : NULL;
	/* an archive that grew since its last open: shown as it was then (its
	 * cache entry), its new records read behind (not when followed: that
	 * says so itself) */
	int added = !p && s.reading && !s.grew && s.first;
	if ((!p && !added) || st->warn)
		return;
	if (added)
		set(st, 0, "reading what %.80s added since it was last opened: %d%%", s.first,
		    s.pct < 0 ? 0 : s.pct);
	else if (s.pct >= 0)
		set(st, 0, "reading the whole of %.80s: %d%%, %.80s shown", s.name, s.pct, p);
	else
		set(st, 0, "reading the whole of %.80s: %.80s shown", s.name, p);
}

void vw_status_behind_failed(vw_status *st, const vw_behind *b, const vw_model *m)
{
	vw_behind_state s;
	if (!b || st->warn)
		return;
	vw_behind_note(b, m, &s);
	if (s.partial)
		set(st, 1,
		    "warning: the whole of %.80s could not be read into the cache: %.80s shown",
		    s.name, s.partial);
	else
		set(st, 1, "warning: an archive that grew could not be read again");
}

void vw_status_grows(vw_status *st)
{
	if (!st->warn)
		set(st, 0, "following the archive: it grew, reading it again...");
}

void vw_status_swapped(vw_status *st, int grew, int reading)
{
	if (grew && !st->warn)
		set(st, st->warn, "following the archive: it grew, its new records are in");
	else if (!reading && (!st->text[0] || !strncmp(st->text, "reading the whole", 17)))
		set(st, st->warn, "the whole archive is read");
}

void vw_status_detecting(vw_status *st, int thread)
{
	if (!st->warn)
		set(st, 0, "%s", thread ? "detecting phases... (keys work meanwhile)"
				      : "detecting phases...");
}

int vw_status_detecting_shown(const vw_status *st)
{
	return !st->warn && !strncmp(st->text, "detecting phases", 16);
}

void vw_status_failed(vw_status *st, const char *what, const char *err)
{
	set(st, 1, "%s: %.200s", what, err);
}

void vw_status_say(vw_status *st, const char *text)
{
	snprintf(st->text, sizeof st->text, "%s", text);
}

void vw_status_clear(vw_status *st)
{
	st->text[0] = '\0';
	st->warn = 0;
}

void vw_status_restore(vw_status *st, const char *text)
{
	snprintf(st->text, sizeof st->text, "%s", text);
}
