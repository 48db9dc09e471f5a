/* app.h: the door to viewer/app/, mcview itself (its options and main,
 * the loop, keys, the frame, the status line, the PCP conversions behind
 * the screen) — the top of the viewer's layers: it uses the model, the
 * analyses, the views and the terminal, and nothing uses it.  It holds
 * the model and the analyses' state of it side by side (vw_an), and gives
 * the views both (vw_ctx).
 *
 * The viewer application — the views' states, the overlays (help,
 * filter prompt) and the screen frame around the current view.  Shared by
 * the interactive loop (app.c), the snapshot mode and the tests; knows
 * nothing of the terminal.
 *
 *     vw_app a;
 *     vw_app_init(&a, an, 0);            // an = vw_an_new(model)
 *     vw_app_input(&a, &(vw_input){.act = VW_ACT_ZOOM_IN, .key = '+'});
 *     vw_frame_draw(&a, canvas);         // the whole screen
 *     vw_app_free(&a);
 */
#ifndef VW_APP_H
#define VW_APP_H

#include "../model/model.h"
#include "../analysis/compare/compare.h"
#include "../views/view.h"
#include "../analysis/analysis.h"
#include "../term/term.h"

/* How long a large PCP archive is read before its first screen (ms; the
 * rest is read behind it: behind.c). */
#define VW_FIRST_MS 30

/* behind.c: PCP archives converted behind the shown model, by processes of
 * their own; the model is opened through it (vw_model_open_with).
 * open: the model of paths, as vw_model_open, but a large archive (with
 * first_ms > 0) shown from what was read of it in about first_ms while a
 * process converts the whole into the cache; 0 with *b and *m (free both),
 * or -1 with err.  reading: processes still convert; followed: local
 * archives whose growth is looked at (vw_behind_grow).
 * tick: the processes polled (VW_BEHIND_FAILED: one failed, the start
 * stays), what they wrote so far opened once a second; VW_BEHIND_MODEL
 * with *out, a new model of the paths (the whole, or more of it) to put in
 * place of m (VW_BEHIND_PEEK: what was read so far, the processes go on),
 * then say with vw_behind_swapped whether it was (ok: its processes
 * become the shown model's; not: the caller frees it);
 * VW_BEHIND_ERROR: opening the whole failed, the reason in err.
 * note: what the status line says of them (status.c words it).
 * grow: the local archives looked at: 1 when one grew since it was read,
 * and a process now reads it again (the next ticks say when it is done).
 * free: the processes stopped. */
typedef struct vw_behind vw_behind;
enum { VW_BEHIND_MODEL = 1, VW_BEHIND_PEEK = 2, VW_BEHIND_ERROR = 4, VW_BEHIND_FAILED = 8 };
typedef struct vw_behind_state {
	size_t reading;         /* processes still converting */
	int grew;               /* they read again archives that grew */
	const char *first;      /* the first path's base name */
	const char *name;       /* the file shown in part, with partial */
	const char *partial;    /* what of it is shown: "the first 1m 5s of 13m 0s";
				   NULL: none is shown in part */
	int pct;                /* how far the least advanced has read (%), -1 unknown */
} vw_behind_state;
int vw_behind_open(vw_behind **b, vw_model **m, const char *const *paths, size_t npaths,
		   const vw_open_opts *o, int first_ms, char *err, size_t errlen);
int vw_behind_reading(const vw_behind *b);
int vw_behind_followed(const vw_behind *b);
unsigned vw_behind_tick(vw_behind *b, const vw_model *m, int64_t now, vw_model **out,
			char *err, size_t errlen);
void vw_behind_swapped(vw_behind *b, int ok);
void vw_behind_note(const vw_behind *b, const vw_model *m, vw_behind_state *s);
int vw_behind_grow(vw_behind *b);
void vw_behind_free(vw_behind *b);

/* status.c: the status line, its one owner.  open: what m's warnings say
 * (a model put on the screen); follow: a followed file grew (its state said
 * again, the rest cleared); look: the damaged chunks found since the last
 * look (after anything that may have read chunks: vw_model_damage raises
 * the count); behind, behind_failed: the conversions' progress, a failure;
 * grows: a growing archive read again; swapped: a new model of the paths
 * in place (grew: of archives that grew; reading: conversions go on);
 * detecting: phases detected (thread: on their own thread), and whether
 * that is what it still says; failed: "what: err" as a warning; say: a
 * view's message (VW_R_SAY); clear, restore: the text as it was.  Progress
 * and "detecting" wait while a warning is shown. */
typedef struct vw_status {
	char text[256];
	int warn;           /* drawn as a warning */
	size_t damaged;     /* the damaged chunks said (m->warnings.ndamaged then) */
} vw_status;
void vw_status_open(vw_status *st, const vw_model *m);
void vw_status_follow(vw_status *st, const vw_model *m);
void vw_status_look(vw_status *st, const vw_model *m);
void vw_status_behind(vw_status *st, const vw_behind *b, const vw_model *m);
void vw_status_behind_failed(vw_status *st, const vw_behind *b, const vw_model *m);
void vw_status_grows(vw_status *st);
void vw_status_swapped(vw_status *st, int grew, int reading);
void vw_status_detecting(vw_status *st, int thread);
int vw_status_detecting_shown(const vw_status *st);
void vw_status_failed(vw_status *st, const char *what, const char *err);
void vw_status_say(vw_status *st, const char *text);
void vw_status_clear(vw_status *st);
void vw_status_restore(vw_status *st, const char *text);

#define VW_MIN_W 40
#define VW_MIN_H 12

typedef struct vw_app {
	vw_model *m;
	vw_an *an;         /* the analyses of m (an->m == m) */
	vw_ctx ctx;        /* what the views are given: m, an */
	void **states;     /* one per view in vw_views[] */
	int nviews;
	int help;          /* the help overlay is shown */
	int prompt;        /* the '/' filter (or the view's search) prompt is open */
	char before[64];   /* filter before the prompt opened (Esc restores it) */
	int quit;
	vw_canvas *body;   /* the current view's canvas (frame.c) */
	int budget_ms;     /* work a frame may do before drawing coarsely (model.h);
			    * 0: every frame exact (snapshots, tests) */
	const struct vw_phase_cli *phases_later; /* detect after the first screen
			    * (app-run.c); an error goes to the status line */
	int live;          /* following a file being written: it grew lately (app-run.c) */
	vw_behind *behind; /* the PCP archives' conversions behind m, NULL none (app-run.c) */
	vw_status status;  /* the status line (status.c) */
} vw_app;

/* The app of an's model, in view (an index of vw_views[]).  The caller
 * keeps a->m and a->an (they change with vw_app_swap) and frees them
 * after vw_app_free. */
int vw_app_init(vw_app *a, vw_an *an, int view);
void vw_app_free(vw_app *a);
/* Put model n in place of a->m (the whole of archives shown from their
 * start): the view, sort, filter, and a zoomed window with its cursor stay
 * (else the whole is shown as at open); the old model and what the
 * analyses kept of it (a->an: phases, jobs, tables, a comparison) are
 * freed, n's analyses start anew.  0, or -1 (out of memory) with a->m
 * unchanged. */
int vw_app_swap(vw_app *a, vw_model *n);
/* Turn one input into model changes; returns VW_R_* bits (never draws). */
unsigned vw_app_input(vw_app *a, const vw_input *in);
/* Feed a raw key (VW_KEY_* or a character) through the key table. */
unsigned vw_app_key(vw_app *a, int key);
/* The current view's own search pattern the '/' prompt edits (its
 * vw_view.search), or NULL: the prompt edits the rows' filter. */
char *vw_app_search(vw_app *a);

/* frame.c: draw the whole screen (tab bar, view, status line, overlays)
 * into c; a canvas under VW_MIN_W x VW_MIN_H gets a "too small" line.
 * Within a->budget_ms where set: a->m->refining then says whether another
 * frame would draw more exactly. */
void vw_frame_draw(vw_app *a, vw_canvas *c);

/* phase-bg.c: phase detection on its own thread, on a clone of the model.
 * start: 0 started, -1 not worth it or not possible (detect on this
 * thread then); done: 1 when finish will not wait; finish: the thread
 * joined and its phases taken (0, or -1 with a reason in err); abandon: at
 * the end of mcview, while it still runs. */
typedef struct vw_phase_bg vw_phase_bg;
struct vw_phase_cli;
int vw_phase_bg_start(vw_app *a, const struct vw_phase_cli *spec, vw_phase_bg **out);
int vw_phase_bg_done(vw_phase_bg *b);
int vw_phase_bg_finish(vw_app *a, vw_phase_bg *b, char *err, size_t len);
void vw_phase_bg_abandon(vw_phase_bg *b);

/* app-run.c: the interactive loop; keys (may be NULL) are fed first, as
 * with --keys. Returns 0, or -1 with a reason in err. */
struct vw_term_opts;
int vw_app_run(vw_app *a, const struct vw_term_opts *o, const char *keys, char *err, size_t errlen);

/* mcview's command line, parsed and checked (every refusal one line, as
 * mcview prints it after "mcview: "), before anything is opened. */
typedef struct mcview_options {
	int snap_w, snap_h;         /* --snapshot WxH, 0 none */
	int view;                   /* --view: its index in vw_views[] (0 the first) */
	const char *view_name;      /* as given, NULL none */
	int64_t at, w0, w1;         /* --at T, --window T0,T1 (ns) */
	int have_at, have_win;
	const char *filter, *keys;  /* --filter, --keys, NULL none */
	int color, ascii, blocks, mouse; /* the terminal: --no-color (NO_COLOR), --ascii
				       (or no UTF-8 locale), --blocks, --no-mouse */
	vw_theme theme;             /* --theme or MCVIEW_THEME, loaded */
	int compare;                /* --compare: paths[0] is run A, paths[1] run B */
	double fail_above;          /* --fail-above PCT, < 0 none */
	struct vw_phase_cli pc;     /* --phases, --report, --phase-* */
	vw_open_opts oo;            /* --metrics, --ssh-option, -q, --cache-size */
	const char **sshopt;        /* oo.ssh_options: the --ssh-option values, NULL-terminated */
	int classes;                /* --code-classes: print the rules that class code
				       samples, and nothing else (no option after it
				       is read, no recording needed) */
	char **paths;               /* the recordings (into argv, or own_paths) */
	size_t npaths;
	char **own_paths;           /* paths with folders and @lists expanded
				       (mcview_options_paths), NULL before */
} mcview_options;

/* 0: run with *o (o->classes: print the code classes only); 1: done
 * (--help, --version printed on stdout); 2: a refusal, its line in err.  Free *o with mcview_options_free in every case. */
int mcview_options_parse(int argc, char **argv, mcview_options *o, char *err, size_t errlen);
/* o->paths with each folder and @LIST replaced by the recordings it names
 * (mcz_inpaths_expand; --compare's runs are left as they are), before any
 * is opened: 0; 1 when a folder or list cannot be read (its line in err);
 * 2 when they are more recordings than this system maps at once. */
int mcview_options_paths(mcview_options *o, char *err, size_t errlen);
void mcview_options_free(mcview_options *o);

/* compare-cli.c: mcview --compare A B.  A and B are comma-separated lists
 * of runs, each file opened as its own model. */
typedef struct vw_compare_cli {
	vw_an **a, **b;    /* each file's model (an->m) and its phases */
	size_t na, nb;
	vw_compare cmp;
} vw_compare_cli;

/* Open both sides and compare them; 0, or -1 with one line in err (a file
 * cannot be opened, no phases, nothing matched).  Free with _free even on
 * failure. */
int vw_compare_cli_open(vw_compare_cli *c, const char *a, const char *b, const vw_open_opts *oo,
			char *err, size_t len);
/* Print the report (json: 1) and judge: 0, 1 when a matched phase is
 * slower than fail_above % (< 0: no limit; beyond noise too with repeated
 * runs), naming them on stderr, 2 on a write error. */
int vw_compare_cli_report(const vw_compare_cli *c, int json, double fail_above);
void vw_compare_cli_free(vw_compare_cli *c);

#endif
