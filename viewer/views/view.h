/* view.h: the door to viewer/views/ — the cell canvas every view draws into,
 * the key codes and actions views receive, and the table of function
 * pointers a view is (tmux window_mode, htop PanelClass).  The views draw
 * what viewer/analysis/ computes from viewer/model/; viewer/term/ puts a
 * canvas on the terminal and viewer/app/ routes input to the views.
 *
 * Views are pure: draw() writes {glyph, colour role, attribute} cells into a
 * vw_canvas and never touches the terminal; term-curses.c alone copies a
 * canvas to ncurses.  So a test can render any view at any size into text
 * (vw_canvas_to_text) and compare it.
 *
 *     vw_canvas *c = vw_canvas_new(120, 40);
 *     view_timeline.draw(&ctx, state, c);
 *     char *txt = vw_canvas_to_text(c);   // UTF-8 lines, '\n' separated
 *
 * key() turns an action into a change of the model and returns a mask of
 * VW_R_* bits; it never draws (the main loop redraws once).
 */
#ifndef VW_VIEW_H
#define VW_VIEW_H

#include <stddef.h>
#include <stdint.h>

struct vw_model;
struct vw_an;

/* What a view is given: the model, the analyses' state of it (an->m is
 * m: viewer/analysis/an.h), and where key() leaves a message for the
 * status line, returning VW_R_SAY (the app owns the line). */
typedef struct vw_ctx {
	struct vw_model *m;
	struct vw_an *an;
	char say[256];
} vw_ctx;

/* Colour roles; a theme (themes/NAME.theme) maps each to colours. */
typedef enum vw_role {
	VW_C_NORMAL = 0,
	VW_C_DIM,
	VW_C_TITLE,
	VW_C_AXIS,
	VW_C_LABEL,
	VW_C_VALUE,
	VW_C_STATUS,
	VW_C_SELECT,   /* selected row / segment */
	VW_C_CURSOR,
	VW_C_RANGE,    /* selected time range */
	VW_C_MARK,
	VW_C_WARN,
	VW_C_ERROR,
	VW_C_SERIES0,  /* 8 series colours */
	VW_C_SERIES7 = VW_C_SERIES0 + 7,
	VW_C_PHASE0,   /* 8 phase-class colours */
	VW_C_PHASE7 = VW_C_PHASE0 + 7,
	VW_C_SCALE0,   /* 10-step sequential scale, low -> high (heat, sunburst) */
	VW_C_SCALE9 = VW_C_SCALE0 + 9,
	VW_C_COUNT
} vw_role;

enum vw_attr { VW_A_BOLD = 1, VW_A_REVERSE = 2, VW_A_UNDERLINE = 4 };

typedef struct vw_cell {
	uint32_t ch;   /* Unicode code point; ' ' when empty */
	uint8_t role;  /* vw_role */
	uint8_t attr;  /* vw_attr bits */
} vw_cell;

typedef struct vw_canvas {
	int w, h;
	int ascii;     /* 1: only ASCII glyphs may be drawn (--ascii, C locale) */
	int blocks;    /* 1: block glyphs for sparklines instead of braille (--blocks) */
	vw_cell *cells;
} vw_canvas;

vw_canvas *vw_canvas_new(int w, int h);
void vw_canvas_free(vw_canvas *c);
int vw_canvas_resize(vw_canvas *c, int w, int h);
void vw_canvas_clear(vw_canvas *c);
void vw_canvas_put(vw_canvas *c, int x, int y, uint32_t ch, int role, int attr);
/* Write UTF-8 text at (x, y), clipped at max_w cells (or the edge); returns cells written. */
int vw_canvas_text(vw_canvas *c, int x, int y, int max_w, int role, int attr, const char *utf8);
int vw_canvas_printf(vw_canvas *c, int x, int y, int max_w, int role, int attr,
		     const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void vw_canvas_fill(vw_canvas *c, int x, int y, int w, int h, uint32_t ch, int role, int attr);
/* The canvas as UTF-8 text, one line per row, trailing spaces kept; caller frees. */
char *vw_canvas_to_text(const vw_canvas *c);

/* What a key handler asks of the main loop. */
enum vw_result {
	VW_R_NONE = 0,
	VW_R_REDRAW = 1u << 0,
	VW_R_QUIT = 1u << 1,
	VW_R_NEXT_VIEW = 1u << 2,
	VW_R_HELP = 1u << 3,
	VW_R_RECOMPUTE = 1u << 4, /* model data changed (phases, window): refresh caches */
	VW_R_SAY = 1u << 5,       /* ctx->say holds a message for the status line */
};

/* Actions: keys map to these through the table in viewer/keys.c (keys.h), so help,
 * remapping and tests are data. */
/* Keys that are not characters (above the Unicode range). */
enum vw_key {
	VW_KEY_UP = 0x110000,
	VW_KEY_DOWN,
	VW_KEY_LEFT,
	VW_KEY_RIGHT,
	VW_KEY_SLEFT,   /* shift-left */
	VW_KEY_SRIGHT,
	VW_KEY_PPAGE,
	VW_KEY_NPAGE,
	VW_KEY_HOME,
	VW_KEY_END,
	VW_KEY_ENTER,
	VW_KEY_ESC,
	VW_KEY_BACKSPACE,
	VW_KEY_TAB,
	VW_KEY_BTAB,    /* shift-tab */
	VW_KEY_F1,
	VW_KEY_RESIZE,
	VW_KEY_MOUSE,
};

#define VW_CTRL(c) ((c) & 0x1f)

typedef enum vw_action {
	VW_ACT_NONE = 0,
	VW_ACT_QUIT,
	VW_ACT_HELP,
	VW_ACT_NEXT_VIEW,
	VW_ACT_PREV_VIEW,
	VW_ACT_LEFT, VW_ACT_RIGHT, VW_ACT_UP, VW_ACT_DOWN,
	VW_ACT_PAGE_LEFT, VW_ACT_PAGE_RIGHT, VW_ACT_PAGE_UP, VW_ACT_PAGE_DOWN,
	VW_ACT_HOME, VW_ACT_END,
	VW_ACT_ZOOM_IN, VW_ACT_ZOOM_OUT, VW_ACT_RESET,
	VW_ACT_SEL_LEFT, VW_ACT_SEL_RIGHT, /* shift-arrows: extend the selection */
	VW_ACT_ZOOM_SEL,
	VW_ACT_ENTER,         /* expand/collapse, zoom to phase, zoom into subtree */
	VW_ACT_BACK,          /* Escape / Backspace: out one level */
	VW_ACT_FILTER,        /* '/' */
	VW_ACT_NEXT_PHASE, VW_ACT_PREV_PHASE,  /* n / p */
	VW_ACT_SORT,          /* 's' in tables */
	VW_ACT_METRIC,        /* 'm': next colouring metric (topology) */
	VW_ACT_LAYOUT,        /* 'L': sunburst <-> icicle */
	VW_ACT_MOUSE,         /* details in vw_input */
	VW_ACT_CURSOR_LEFT, VW_ACT_CURSOR_RIGHT, /* ',' '.': move the time cursor one column */
	VW_ACT_FOLD,          /* 'R': rank files: fold the ranks into one row per stream, or not */
	VW_ACT_FLAME,         /* 'f': the flame graph (every view) */
	VW_ACT_COUNT
} vw_action;

typedef struct vw_input {
	vw_action act;
	int key;              /* the raw key (ncurses code or character) */
	int mouse_x, mouse_y; /* VW_ACT_MOUSE */
	int mouse_button;     /* 1 left press, 2 left release, 4 wheel up, 5 wheel down, 6 drag */
} vw_input;

typedef struct vw_view {
	const char *name;  /* "timeline", "phases", "topology", "roofline", "ranks" */
	const char *title; /* shown in the tab bar */
	int (*init)(vw_ctx *ctx, void **state);
	void (*free)(void *state);
	void (*resize)(void *state, int w, int h);
	unsigned (*key)(vw_ctx *ctx, void *state, const vw_input *in);
	void (*draw)(vw_ctx *ctx, void *state, vw_canvas *c);
	/* One line per binding for the help screen: "n/p  next/previous phase". */
	const char *const *help;
	/* NULL, or whether the view has something to show for this model (the
	 * Compare view only with --compare): Tab and the tab bar skip it. */
	int (*shown)(vw_ctx *ctx);
	/* NULL, or the view's own '/' search pattern (a buffer of
	 * VW_SEARCH_LEN bytes, "" none): the prompt edits it instead of the
	 * rows' filter (the flame graph's search). */
	char *(*search)(void *state);
} vw_view;

#define VW_SEARCH_LEN 64

extern const vw_view view_timeline, view_phases, view_topology, view_roofline, view_compare,
	view_ranks, view_flame;

/* Every view, in Tab order, NULL-terminated (viewer/views.c: add one line). */
extern const vw_view *const vw_views[];
/* The view named name (or a unique prefix of it), or -1. */
int vw_views_find(const char *name);
/* The view dir (+1 / -1) steps from view i that is shown for ctx (Tab). */
int vw_views_step(vw_ctx *ctx, int i, int dir);
/* View i is shown for ctx. */
int vw_views_shown(vw_ctx *ctx, int i);

#endif
