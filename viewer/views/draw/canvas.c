/* canvas.c: the cell buffer every view draws into (see view.h).
 *
 * A canvas is w x h cells of {code point, colour role, attribute}.  Drawing
 * outside it is clipped silently, so views can draw without bounds checks at
 * every call.  vw_canvas_to_text() turns it into UTF-8 lines for snapshots
 * and golden tests; term-curses.c turns it into ncurses calls.  When the
 * canvas is marked ascii, any code point above 0x7e is stored as '?' so an
 * ASCII screen never carries a glyph the terminal cannot show.
 *
 *     vw_canvas *c = vw_canvas_new(80, 24);
 *     vw_canvas_printf(c, 0, 0, 80, VW_C_TITLE, VW_A_BOLD, "%s", "mcview");
 *     char *txt = vw_canvas_to_text(c);
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../view.h"

vw_canvas *vw_canvas_new(int w, int h)
{
	vw_canvas *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (vw_canvas_resize(c, w, h) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

void vw_canvas_free(vw_canvas *c)
{
	if (!c)
		return;
	free(c->cells);
	free(c);
}

int vw_canvas_resize(vw_canvas *c, int w, int h)
{
	if (w < 0 || h < 0 || (w > 0 && h > (1 << 24) / w))
		return -1;
	size_t n = (size_t)w * (size_t)h;
	vw_cell *nc = realloc(c->cells, (n ? n : 1) * sizeof *nc);
	if (!nc)
		return -1;
	c->cells = nc;
	c->w = w;
	c->h = h;
	vw_canvas_clear(c);
	return 0;
}

void vw_canvas_clear(vw_canvas *c)
{
	size_t n = (size_t)c->w * (size_t)c->h;
	for (size_t i = 0; i < n; i++)
		c->cells[i] = (vw_cell){' ', VW_C_NORMAL, 0};
}

void vw_canvas_put(vw_canvas *c, int x, int y, uint32_t ch, int role, int attr)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return;
	if (ch < 0x20 || ch == 0x7f || (c->ascii && ch > 0x7e))
		ch = ch == 0 ? ' ' : '?';
	c->cells[(size_t)y * (size_t)c->w + (size_t)x] = (vw_cell){ch, (uint8_t)role, (uint8_t)attr};
}

/* Decode one UTF-8 sequence at s; returns its length (>= 1) and the code
 * point in *cp (U+FFFD for a malformed sequence). */
static int utf8_decode(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	int len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (len == 0 || s[0] >= 0xf8) {
		*cp = 0xfffd;
		return 1;
	}
	uint32_t v = s[0] & (0x3f >> (len - 1));
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return i;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	*cp = v;
	return len;
}

static size_t utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int vw_canvas_text(vw_canvas *c, int x, int y, int max_w, int role, int attr, const char *utf8)
{
	const unsigned char *s = (const unsigned char *)utf8;
	int n = 0;
	if (max_w < 0 || x + max_w > c->w)
		max_w = c->w - x;
	while (*s && n < max_w) {
		uint32_t cp;
		s += utf8_decode(s, &cp);
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			/* a control from a file's string: shown escaped, as
			 * mcz_termsafe does (\n, \033), never obeyed */
			char esc[8];
			if (cp == '\n' || cp == '\t' || cp == '\r')
				snprintf(esc, sizeof esc, "\\%c", cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r');
			else
				snprintf(esc, sizeof esc, "\\%03o", (unsigned)cp & 0xff);
			for (const char *e = esc; *e && n < max_w; e++)
				vw_canvas_put(c, x + n++, y, (uint32_t)*e, role, attr);
			continue;
		}
		vw_canvas_put(c, x + n, y, cp, role, attr);
		n++;
	}
	return n;
}

int vw_canvas_printf(vw_canvas *c, int x, int y, int max_w, int role, int attr,
		     const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return vw_canvas_text(c, x, y, max_w, role, attr, buf);
}

void vw_canvas_fill(vw_canvas *c, int x, int y, int w, int h, uint32_t ch, int role, int attr)
{
	for (int j = y; j < y + h; j++)
		for (int i = x; i < x + w; i++)
			vw_canvas_put(c, i, j, ch, role, attr);
}

char *vw_canvas_to_text(const vw_canvas *c)
{
	size_t cap = (size_t)c->w * (size_t)c->h * 4 + (size_t)c->h + 1;
	char *out = malloc(cap), *p = out;
	if (!out)
		return NULL;
	for (int y = 0; y < c->h; y++) {
		for (int x = 0; x < c->w; x++)
			p += utf8_encode(c->cells[(size_t)y * (size_t)c->w + (size_t)x].ch, p);
		*p++ = '\n';
	}
	*p = '\0';
	return out;
}
