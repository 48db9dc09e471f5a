/* term-curses.c: the only file that talks to ncurses.
 *
 * Copies a vw_canvas to the screen (curses sends only what changed), turns
 * ncurses key and mouse codes into vw keys, and maps the theme's colour roles
 * onto colour pairs: true colour when the terminal description has direct
 * colour (tried as TERM's "-direct" variant when COLORTERM says truecolor),
 * else the nearest of 256 or 8 colours, else attributes only (--no-color,
 * NO_COLOR, a monochrome theme or a terminal without colour).  Closing
 * restores the terminal as it was (endwin).
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <wchar.h>

#include "term.h"

static SCREEN *scr;
static int ncolors;
static attr_t role_attr[VW_C_COUNT];
static short role_pair[VW_C_COUNT];

static attr_t to_curses_attr(unsigned a)
{
	attr_t r = 0;
	if (a & VW_A_BOLD)
		r |= A_BOLD;
	if (a & VW_A_REVERSE)
		r |= A_REVERSE;
	if (a & VW_A_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & VW_A_DIM)
		r |= A_DIM;
	return r;
}

static int map_color(vw_color c)
{
	if (c.kind == VW_COLOR_DEFAULT)
		return -1;
	uint32_t rgb = c.kind == VW_COLOR_RGB ? c.v : vw_theme_index_rgb((int)c.v);
	if (ncolors >= 0x1000000)
		return (int)rgb;
	if (ncolors >= 256)
		return c.kind == VW_COLOR_INDEX ? (int)c.v : vw_theme_to_256(rgb);
	if (c.kind == VW_COLOR_INDEX && c.v < 8)
		return (int)c.v;
	return vw_theme_to_8(rgb);
}

/* Attributes that carry each role when there is no colour. */
static unsigned mono_attr(int role)
{
	switch (role) {
	case VW_C_TITLE: case VW_C_STATUS: case VW_C_SELECT: case VW_C_WARN: case VW_C_ERROR:
		return VW_A_REVERSE | (role == VW_C_TITLE ? 0 : VW_A_BOLD);
	case VW_C_CURSOR: case VW_C_MARK: case VW_C_VALUE: return VW_A_BOLD;
	case VW_C_RANGE: return VW_A_UNDERLINE;
	case VW_C_DIM: case VW_C_AXIS: return VW_A_DIM;
	default:
		if (role >= VW_C_PHASE0 && role <= VW_C_PHASE7)
			return VW_A_REVERSE;
		return 0;
	}
}

static void setup_colors(const vw_term_opts *o)
{
	int use = o->color && has_colors() && !o->theme->mono;
	ncolors = 0;
	if (use && start_color() == OK) {
		use_default_colors();
		ncolors = COLORS >= 0x1000000 ? 0x1000000 : COLORS >= 256 ? 256 : 8;
	}
	for (int r = 0; r < VW_C_COUNT; r++) {
		const vw_style *s = &o->theme->role[r];
		role_pair[r] = 0;
		if (!ncolors) {
			role_attr[r] = to_curses_attr(mono_attr(r) | (s->attr & VW_A_BOLD));
			continue;
		}
		role_attr[r] = to_curses_attr(s->attr);
		if (init_extended_pair(r + 1, map_color(s->fg), map_color(s->bg)) == OK)
			role_pair[r] = (short)(r + 1);
	}
}

/* With COLORTERM=truecolor, prefer TERM's direct-colour variant if installed. */
static SCREEN *new_screen(void)
{
	const char *ct = getenv("COLORTERM"), *t = getenv("TERM");
	if (ct && t && (strcmp(ct, "truecolor") == 0 || strcmp(ct, "24bit") == 0) &&
	    !strstr(t, "direct")) {
		char alt[128];
		snprintf(alt, sizeof alt, "%.*s-direct", (int)strcspn(t, "-"), t);
		int e = 0;
		if (setupterm(alt, fileno(stdout), &e) == OK) {
			del_curterm(cur_term);
			SCREEN *s = newterm(alt, stdout, stdin);
			if (s)
				return s;
		}
	}
	return newterm(NULL, stdout, stdin);
}

int vw_term_open(const vw_term_opts *o, char *err, size_t errlen)
{
	if (!(scr = new_screen())) {
		snprintf(err, errlen, "cannot use this terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "unset");
		return -1;
	}
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (o->mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED | BUTTON4_PRESSED |
				  BUTTON5_PRESSED | REPORT_MOUSE_POSITION,
			  NULL);
		mouseinterval(0);
	}
	setup_colors(o);
	return 0;
}

void vw_term_close(void)
{
	if (!scr)
		return;
	endwin();
	delscreen(scr);
	scr = NULL;
}

void vw_term_size(int *w, int *h)
{
	getmaxyx(stdscr, *h, *w);
}

int vw_term_colors(void)
{
	return ncolors;
}

void vw_term_draw(const vw_canvas *c)
{
	int sw, sh;
	getmaxyx(stdscr, sh, sw);
	for (int y = 0; y < c->h && y < sh; y++)
		for (int x = 0; x < c->w && x < sw; x++) {
			const vw_cell *cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
			int role = cell->role < VW_C_COUNT ? cell->role : 0;
			wchar_t wc[2] = {(wchar_t)cell->ch, 0};
			cchar_t cc;
			setcchar(&cc, wc, role_attr[role] | to_curses_attr(cell->attr), role_pair[role],
				 NULL);
			mvadd_wch(y, x, &cc);
		}
	refresh();
}

static int translate(int code)
{
	static const struct {
		int c, k;
	} map[] = {
		{KEY_UP, VW_KEY_UP},	       {KEY_DOWN, VW_KEY_DOWN},	    {KEY_LEFT, VW_KEY_LEFT},
		{KEY_RIGHT, VW_KEY_RIGHT},     {KEY_SLEFT, VW_KEY_SLEFT},   {KEY_SRIGHT, VW_KEY_SRIGHT},
		{KEY_PPAGE, VW_KEY_PPAGE},     {KEY_NPAGE, VW_KEY_NPAGE},   {KEY_HOME, VW_KEY_HOME},
		{KEY_END, VW_KEY_END},	       {KEY_ENTER, VW_KEY_ENTER},   {KEY_BACKSPACE, VW_KEY_BACKSPACE},
		{KEY_BTAB, VW_KEY_BTAB},       {KEY_F(1), VW_KEY_F1},	    {KEY_RESIZE, VW_KEY_RESIZE},
		{KEY_MOUSE, VW_KEY_MOUSE},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (map[i].c == code)
			return map[i].k;
	return -1;
}

int vw_term_read(vw_input *in, int wait_ms)
{
	wint_t ch;
	memset(in, 0, sizeof *in);
	timeout(wait_ms);
	int r = get_wch(&ch);
	if (r == ERR)
		return 0;
	if (r == KEY_CODE_YES) {
		in->key = translate((int)ch);
		if (in->key == VW_KEY_MOUSE) {
			MEVENT ev;
			if (getmouse(&ev) != OK)
				return 0;
			in->mouse_x = ev.x;
			in->mouse_y = ev.y;
			in->mouse_button = ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED) ? 1
					   : ev.bstate & BUTTON1_RELEASED		  ? 2
					   : ev.bstate & BUTTON4_PRESSED		  ? 4
					   : ev.bstate & BUTTON5_PRESSED		  ? 5
					   : ev.bstate & REPORT_MOUSE_POSITION		  ? 6
											  : 0;
		}
		return in->key >= 0;
	}
	switch (ch) {
	case '\r': case '\n': in->key = VW_KEY_ENTER; break;
	case 27: in->key = VW_KEY_ESC; break;
	case 127: case 8: in->key = VW_KEY_BACKSPACE; break;
	case '\t': in->key = VW_KEY_TAB; break;
	default: in->key = (int)ch;
	}
	return 1;
}
