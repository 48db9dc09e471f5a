/* app-run.c: the interactive loop.
 *
 * Input only changes the model; the screen is drawn once after all pending
 * input has been taken (tmux PANE_REDRAW, htop ScreenManager_run), so a burst
 * of keys or wheel events costs one redraw.  A resize is handled here and
 * nowhere else: the canvas takes the new size and the frame is drawn again.
 * A frame may decode for VW_FRAME_BUDGET_MS; what it could not reach is
 * drawn coarsely (model.h) and the loop draws again while no key waits, so
 * a key is answered at once and the screen sharpens after it.  Phase
 * detection (a->phases_later) runs after the first screen is shown: the
 * first time a large recording is opened it reads the whole run's summaries
 * (about a second for 10^9 values; later opens find them in the file), on
 * a thread of its own (phase-bg.c) while the loop answers keys.
 *
 * A recording still being written (no trailer yet) is followed, as `less +F`:
 * every VW_FOLLOW_MS the loop asks the model for what was appended
 * (vw_model_follow); a window at the end of the data grows with it, phases
 * are extended at most every VW_FOLLOW_PHASES_MS without moving the ones
 * that ended (vw_phases_extend).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "keys.h"
#include "../analysis/analysis.h"
#include "../term/term.h"

/* Decoding one frame may do: half a 60 Hz frame, the rest is drawing. */
#define VW_FRAME_BUDGET_MS 8
/* An archive read behind its first screen is asked after this often
 * (behind.c: what it has read so far is shown once a second). */
#define VW_BEHIND_MS 100
/* A local PCP archive (a pmlogger may still write it) is looked at this
 * often, and at most every 4 times its last reading took: its files' sizes
 * and times; when it grew it is read again behind the screen. */
#define VW_PCP_FOLLOW_MS 2000
/* A followed file is looked at this often; phases are extended at most this
 * often; "LIVE" goes after the file has not grown for this long. */
#define VW_FOLLOW_MS 250
#define VW_FOLLOW_PHASES_MS 2000
#define VW_FOLLOW_STALE_MS 5000

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Phases after the first screen: on their own thread when that is worth
 * it (the status line says so meanwhile), else here at once.  before: the
 * status line to give back when they are found. */
static void phases_start(vw_app *a, vw_canvas *c, int keys, vw_phase_bg **bg, char *before)
{
	vw_status *st = &a->status;
	int had_warning = st->warn;
	memcpy(before, st->text, sizeof st->text);
	if (a->phases_later && !keys && vw_phase_bg_start(a, a->phases_later, bg) == 0) {
		vw_status_detecting(st, 1);
	} else if (a->phases_later) {
		char perr[256];
		vw_status_detecting(st, 0);
		vw_frame_draw(a, c);
		vw_term_draw(c);
		int rc = vw_phase_cli_run(a->an, a->phases_later, perr, sizeof perr);
		vw_status_look(st, a->m); /* what the detection found damaged */
		if (rc < 0)
			vw_status_failed(st, "phases", perr);
		else if (!had_warning)
			vw_status_restore(st, before);
		vw_frame_draw(a, c);
	}
}

/* Archives shown from their start: what has been read of them so far,
 * and once the whole of each is in the cache, the model opened again from
 * there, put in place, and its phases detected.  1 when the screen
 * changed. */
static int behind_tick(vw_app *a, vw_canvas *c, vw_phase_bg **bg, char *before)
{
	vw_status *st = &a->status;
	vw_model *n;
	char was[sizeof st->text], err[256];
	memcpy(was, st->text, sizeof was);
	unsigned r = vw_behind_tick(a->behind, a->m, now_ms(), &n, err, sizeof err);
	if (r & VW_BEHIND_FAILED)
		vw_status_behind_failed(st, a->behind, a->m);
	if (r & VW_BEHIND_ERROR) {
		vw_status_failed(st, "warning", err);
		return 1;
	}
	if (!(r & VW_BEHIND_MODEL)) {
		vw_status_behind(st, a->behind, a->m); /* how far they have read */
		return memcmp(was, st->text, sizeof was) != 0;
	}
	vw_behind_state was_read;
	vw_behind_note(a->behind, a->m, &was_read);
	if (vw_app_swap(a, n) != 0) {
		vw_behind_swapped(a->behind, 0);
		vw_model_free(n);
		if (!(r & VW_BEHIND_PEEK))
			return 0;
		vw_status_behind(st, a->behind, a->m);
		return memcmp(was, st->text, sizeof was) != 0;
	}
	vw_behind_swapped(a->behind, 1);
	/* the new model's words (vw_app_swap), what is read of it behind, and
	 * that it is in place; what was read so far says only how far */
	if (r & VW_BEHIND_PEEK)
		vw_status_clear(st);
	vw_status_behind(st, a->behind, a->m);
	vw_status_swapped(st, was_read.grew, vw_behind_reading(a->behind));
	/* the whole (had the cache lost it, it is read behind again) */
	if (!(r & VW_BEHIND_PEEK) && !vw_behind_reading(a->behind))
		phases_start(a, c, 0, bg, before);
	return 1;
}

/* One look at a followed file: 1 when the screen changed. */
static int follow_tick(vw_app *a, int64_t now, int64_t *grew, int64_t *detected, int *stale)
{
	vw_model *m = a->m;
	int rc = vw_model_follow(m);
	if (rc != 0) /* the readers' data changed: the tables made of it go */
		vw_an_code_drop(a->an);
	if (rc == 1) {
		vw_status_follow(&a->status, m);
		*grew = now;
		*stale = 1;
	}
	if (*stale && a->an->phases && now - *detected >= VW_FOLLOW_PHASES_MS) {
		char perr[256];
		int pe = vw_phases_extend(a->an, perr, sizeof perr);
		vw_status_look(&a->status, m); /* what the detection found damaged */
		if (pe != 0)
			vw_status_failed(&a->status, "phases", perr);
		*detected = now;
		*stale = 0;
		rc = 1;
	}
	int live = m->live && now - *grew < VW_FOLLOW_STALE_MS;
	if (live != a->live) {
		a->live = live;
		rc = 1;
	}
	return rc == 1;
}

int vw_app_run(vw_app *a, const vw_term_opts *o, const char *keys, char *err, size_t errlen)
{
	/* MCVIEW_FRAME_BUDGET_MS: another budget; 0 draws every frame exactly */
	const char *e = getenv("MCVIEW_FRAME_BUDGET_MS");
	a->budget_ms = e && *e ? atoi(e) : VW_FRAME_BUDGET_MS;
	if (vw_term_open(o, err, errlen) != 0)
		return -1;
	int w, h;
	vw_term_size(&w, &h);
	vw_canvas *c = vw_canvas_new(w, h);
	if (!c) {
		vw_term_close();
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->ascii = o->ascii;
	c->blocks = o->blocks;
	vw_frame_draw(a, c);
	vw_phase_bg *bg = NULL;
	char before[sizeof a->status.text];
	/* phases of an archive's start would be the start's: detected on the
	 * whole, once it is read (behind_tick) */
	if (!vw_behind_reading(a->behind))
		phases_start(a, c, keys != NULL, &bg, before);
	if (keys) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", keys);
		for (char *sv, *k = strtok_r(buf, ",", &sv); k; k = strtok_r(NULL, ",", &sv))
			vw_app_key(a, vw_keys_parse(k));
	}
	int dirty = 1, stale = 0;
	int64_t grew = now_ms(), detected = grew, looked = grew;
	int64_t pcp_started = grew, pcp_next = grew + VW_PCP_FOLLOW_MS;
	a->live = a->m->live;
	while (!a->quit) {
		if (bg && vw_phase_bg_done(bg)) {
			char perr[256];
			int rc = vw_phase_bg_finish(a, bg, perr, sizeof perr);
			vw_status_look(&a->status, a->m); /* detected here again: what it found */
			if (rc < 0)
				vw_status_failed(&a->status, "phases", perr);
			else if (vw_status_detecting_shown(&a->status))
				vw_status_restore(&a->status, before);
			bg = NULL;
			dirty = 1;
		}
		if (a->m->live && now_ms() - looked >= VW_FOLLOW_MS) {
			looked = now_ms();
			dirty |= follow_tick(a, looked, &grew, &detected, &stale);
		}
		if (vw_behind_reading(a->behind) && !bg && behind_tick(a, c, &bg, before)) {
			dirty = 1;
			/* read: the next look after 4 times as long */
			if (!vw_behind_reading(a->behind)) {
				int64_t took = now_ms() - pcp_started;
				pcp_next = now_ms() + (4 * took > VW_PCP_FOLLOW_MS ? 4 * took
										: VW_PCP_FOLLOW_MS);
			}
		}
		if (!vw_behind_reading(a->behind) && !bg && now_ms() >= pcp_next &&
		    vw_behind_followed(a->behind)) {
			pcp_next = now_ms() + VW_PCP_FOLLOW_MS;
			if (vw_behind_grow(a->behind)) {
				pcp_started = now_ms();
				vw_status_grows(&a->status);
				dirty = 1;
			}
		}
		if (dirty) {
			vw_frame_draw(a, c);
			vw_term_draw(c);
			dirty = 0;
		}
		vw_input in;
		/* A coarse frame is drawn again, sharper, unless a key waits; a
		 * followed file is looked at again after VW_FOLLOW_MS. */
		/* while phases are detected, looked at every 50 ms */
		int wait = a->m->refining ? 0 : a->m->live ? VW_FOLLOW_MS : bg ? 50
			   : vw_behind_reading(a->behind) ? VW_BEHIND_MS
			   : vw_behind_followed(a->behind) ? VW_PCP_FOLLOW_MS : -1;
		if (!vw_term_read(&in, wait)) {
			dirty = a->m->refining;
			continue;
		}
		do {
			if (in.key == VW_KEY_RESIZE) {
				vw_term_size(&w, &h);
				if (vw_canvas_resize(c, w, h) == 0)
					dirty = 1;
				continue;
			}
			in.act = in.key == VW_KEY_MOUSE ? VW_ACT_MOUSE : vw_keys_action(in.key);
			if (vw_app_input(a, &in) != VW_R_NONE)
				dirty = 1;
		} while (!a->quit && vw_term_read(&in, 0));
	}
	vw_phase_bg_abandon(bg);
	vw_canvas_free(c);
	vw_term_close();
	return 0;
}
