/* code-row.c: the timeline's code row (issue 16) — where the command ran,
 * as one line of letters: each column shows the hottest function of its
 * time span (vw_hotcode_columns), its letter (A the hottest over the run,
 * B the next...) in one of the 8 series colours, a blank where no code
 * ran (idle, or not sampled); a legend line names the letters, and the
 * cursor readout names the function at the cursor and its share.  The
 * hot-code panel (the Phases view, for the selected phase) lists a span's
 * top functions with their share, file:line, inline chain and (with
 * callchains) their main caller over the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

static int code_row_role(size_t fn)
{
	return VW_C_SERIES0 + (int)(fn % 8);
}

int vw_code_row_draw(vw_canvas *c, vw_an *an, int x, int y, int w)
{
	vw_model *m = an->m;
	if (w <= 0 || !vw_hotcode_has(an))
		return -1;
	int *fn = malloc((size_t)w * sizeof *fn);
	double *sh = malloc((size_t)w * sizeof *sh);
	if (!fn || !sh || vw_hotcode_columns(an, m->t0, m->t1, (size_t)w, fn, sh)) {
		free(fn), free(sh);
		return -1;
	}
	for (int i = 0; i < w; i++) {
		if (fn[i] < 0)
			continue;
		/* a column where its function had under half the samples: dim */
		int attr = sh[i] >= 0.5 ? VW_A_BOLD : 0;
		vw_canvas_put(c, x + i, y, (uint32_t)vw_hotcode_letter((size_t)fn[i]),
			      code_row_role((size_t)fn[i]), attr);
	}
	free(fn), free(sh);
	return 0;
}

/* The legend names every letter the row draws (pw columns of plot): the
 * functions on top in some column, by their share of the window; when
 * they do not all fit in w, the names are cut, then the last that do not
 * fit are counted ("+2 more: the Phases view lists them"). */
void vw_code_row_legend(vw_canvas *c, vw_an *an, int x, int y, int w, int pw)
{
	vw_model *m = an->m;
	vw_hot top[64];
	size_t n = vw_hotcode_top(an, m->t0, m->t1, top, 64, NULL);
	if (!n) {
		vw_canvas_text(c, x, y, w, VW_C_DIM, 0, "no code ran in this window");
		return;
	}
	/* the letters drawn: those on top in a column */
	int *fn = pw > 0 ? malloc((size_t)pw * sizeof *fn) : NULL;
	size_t drawn = 0;
	if (fn && vw_hotcode_columns(an, m->t0, m->t1, (size_t)pw, fn, NULL) == 0) {
		for (size_t k = 0; k < n; k++) {
			int on = 0;
			for (int i = 0; i < pw && !on; i++)
				on = fn[i] == (int)top[k].fn;
			if (on)
				top[drawn++] = top[k];
		}
	}
	free(fn);
	if (!drawn) /* the row could not be read: the window's top functions */
		drawn = n < 8 ? n : 8;
	/* the longest names that let every letter fit, down to 12 columns */
	char item[160];
	int cut = 40;
	for (; cut > 12; cut -= 4) {
		int need = 0;
		for (size_t k = 0; k < drawn; k++)
			need += snprintf(item, sizeof item, "%c %.*s %.0f%%", vw_hotcode_letter(top[k].fn),
					 cut, vw_hotcode_brief(an, top[k].fn), 100 * top[k].share) + 2;
		if (need <= w)
			break;
	}
	int at = x;
	for (size_t k = 0; k < drawn; k++) {
		int len = snprintf(item, sizeof item, "%c %.*s %.0f%%", vw_hotcode_letter(top[k].fn),
				   cut, vw_hotcode_brief(an, top[k].fn), 100 * top[k].share);
		/* room for this one, and for the count of those after it */
		int after = k + 1 < drawn ? (int)strlen("  +99 more") : 0;
		if (at + len + after > x + w) {
			char more[64];
			snprintf(more, sizeof more, "+%zu more: the Phases view lists them", drawn - k);
			if ((int)strlen(more) > x + w - at)
				snprintf(more, sizeof more, "+%zu more", drawn - k);
			vw_canvas_text(c, at, y, x + w - at, VW_C_DIM, 0, more);
			return;
		}
		vw_canvas_text(c, at, y, x + w - at, code_row_role(top[k].fn), 0, item);
		at += len + 2;
	}
}

int vw_code_row_at(vw_an *an, int64_t t, char *buf, size_t len)
{
	int64_t iv = vw_hotcode_interval(an);
	vw_hot h;
	uint64_t total;
	buf[0] = '\0';
	if (iv <= 0 || iv > 1000000000000LL) /* an interval over 1000 s is no interval */
		return -1;
	int64_t a, b;
	if (__builtin_sub_overflow(t, iv / 2, &a) || __builtin_add_overflow(t, iv - iv / 2, &b))
		return -1;
	if (!vw_hotcode_top(an, a, b, &h, 1, &total))
		return -1;
	const char *base = strrchr(h.file, '/');
	base = base ? base + 1 : h.file;
	if (h.file[0])
		snprintf(buf, len, "%s %.0f%% (%s:%u)", vw_hotcode_name(an, h.fn), 100 * h.share, base,
			 h.line);
	else
		snprintf(buf, len, "%s %.0f%%", vw_hotcode_name(an, h.fn), 100 * h.share);
	return 0;
}

int vw_code_row_panel(vw_canvas *c, vw_an *an, int64_t t0, int64_t t1, const char *title,
		       int x, int y, int w, int h)
{
	if (h < 2 || w < 20 || !vw_hotcode_has(an))
		return 0;
	vw_hot top[16];
	uint64_t total;
	size_t n = vw_hotcode_top(an, t0, t1, top, (size_t)(h - 1 < 16 ? h - 1 : 16), &total);
	vw_canvas_printf(c, x, y, w, VW_C_AXIS, VW_A_BOLD, "%s: %llu samples%s", title,
			 (unsigned long long)total, n ? "" : " (no code ran)");
	for (size_t k = 0; k < n; k++) {
		char where[200] = "", line[400];
		const char *base = strrchr(top[k].file, '/');
		base = base ? base + 1 : top[k].file;
		if (top[k].file[0])
			snprintf(where, sizeof where, "%s:%u", base, top[k].line);
		vw_hot caller;
		char from[160] = "";
		if (vw_hotcode_callers(an, top[k].fn, &caller, 1))
			snprintf(from, sizeof from, "  called from %s (%.0f%%)",
				 vw_hotcode_brief(an, caller.fn), 100 * caller.share);
		char chain[200];
		vw_codelabel_chain(top[k].inlined, chain, sizeof chain);
		snprintf(line, sizeof line, "%c %-28s %5.1f%% %8llu  %-24s%s%s%s",
			 vw_hotcode_letter(top[k].fn), vw_hotcode_brief(an, top[k].fn), 100 * top[k].share,
			 (unsigned long long)top[k].samples, where, chain[0] ? " inlined into " : "",
			 chain, from);
		vw_canvas_text(c, x, y + 1 + (int)k, w, code_row_role(top[k].fn), 0, line);
	}
	return 1 + (int)n;
}
