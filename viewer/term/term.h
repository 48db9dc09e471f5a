/* term.h: the terminal backend (term-curses.c, the one file that includes
 * curses), with the colour themes it puts on screen (theme.h).  The door to
 * viewer/term/: the app (viewer/app/) runs its loop on top of it.
 *
 *     vw_term_opts o = {.color = 1, .theme = &theme};
 *     if (vw_term_open(&o, err, sizeof err) != 0) die(err);
 *     vw_term_draw(canvas);
 *     int key = vw_term_read(&in);       // VW_KEY_* codes, see keys.h
 *     vw_term_close();                   // the terminal as it was
 */
#ifndef VW_TERM_H
#define VW_TERM_H

#include <stddef.h>

#include "theme.h"
#include "../views/view.h"

typedef struct vw_term_opts {
	int color;   /* 0: attributes only (--no-color, NO_COLOR) */
	int ascii;
	int blocks;
	int mouse;
	const vw_theme *theme;
} vw_term_opts;

int vw_term_open(const vw_term_opts *o, char *err, size_t errlen);
void vw_term_close(void);
/* The screen size now. */
void vw_term_size(int *w, int *h);
/* Colours in use: 0 (none), 8, 256 or 16777216 (true colour). */
int vw_term_colors(void);
/* Put a canvas on the screen (only changed cells are sent, by curses). */
void vw_term_draw(const vw_canvas *c);
/* Wait up to wait_ms (-1: forever) for one input; returns 1 with *in set
 * (key and, for VW_KEY_MOUSE, the mouse fields; act left VW_ACT_NONE), 0 on
 * timeout. */
int vw_term_read(vw_input *in, int wait_ms);


#endif
