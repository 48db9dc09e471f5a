/* theme.h: colour themes — a colour and attributes for every vw_role.
 *
 * A theme file (themes/NAME.theme) is forgiving `key = value` text:
 *
 *     # comment (also "# ..." after a value)
 *     name    = default
 *     normal  = #d0d0d0 on default
 *     title   = #ffffff on #303a4a bold
 *     series0 = 75                      # a 256-colour index
 *     warn    = yellow bold
 *
 * Keys are role names (vw_theme_role_name); values are FG [on BG] [bold]
 * [underline] [reverse] [dim], colours as #rrggbb, 0-255, one of the eight
 * names (black red green yellow blue magenta cyan white) or `default`.
 * Unknown keys and bad values are ignored (counted in vw_theme.ignored);
 * missing keys keep the built-in default dark theme's value.  (btop's
 * themes/NAME.theme, htop's CRT_colorSchemes.)
 *
 *     vw_theme t;
 *     char err[256];
 *     if (vw_theme_load(&t, "light", err, sizeof err) != 0) die(err);
 */
#ifndef VW_THEME_H
#define VW_THEME_H

#include <stddef.h>
#include <stdint.h>

#include "../views/view.h"

enum vw_color_kind { VW_COLOR_DEFAULT = 0, VW_COLOR_INDEX, VW_COLOR_RGB };

typedef struct vw_color {
	uint8_t kind;  /* vw_color_kind */
	uint32_t v;    /* index 0-255, or 0xRRGGBB */
} vw_color;

typedef struct vw_style {
	vw_color fg, bg;
	uint8_t attr;  /* vw_attr bits, plus VW_A_DIM */
} vw_style;

#define VW_A_DIM 8

typedef struct vw_theme {
	char name[64];
	vw_style role[VW_C_COUNT];
	int ignored;   /* lines not understood */
	int set;       /* lines understood (a role, name or mono) */
	int mono;      /* a theme of attributes only (monochrome) */
} vw_theme;

const char *vw_theme_role_name(int role);
/* The built-in default (dark) theme. */
void vw_theme_default(vw_theme *t);
/* Apply the text of a theme file on top of t. Never fails: what it does not
 * understand is counted in t->ignored. */
void vw_theme_parse(vw_theme *t, const char *text, size_t len);
/* Load theme `name`: a path if it contains '/', else NAME.theme searched in
 * $MCVIEW_THEME_DIR, ./themes, the program's ../share/mcz/themes and ../themes,
 * and the install folder.  Returns 0, or -1 with a one-line reason in err. */
int vw_theme_load(vw_theme *t, const char *name, char *err, size_t errlen);
/* Nearest xterm-256 colour of 0xRRGGBB (btop truecolor_to_256). */
int vw_theme_to_256(uint32_t rgb);
/* Nearest of the 8 basic colours (0-7). */
int vw_theme_to_8(uint32_t rgb);
/* An index colour 0-255 as 0xRRGGBB (the xterm palette). */
uint32_t vw_theme_index_rgb(int idx);

#endif
