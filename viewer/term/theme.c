/* theme.c: colour themes read from forgiving key = value files (theme.h).
 *
 * The built-in default is the text of themes/default.theme, parsed by the
 * same parser, so a theme file only needs the keys it changes and a missing
 * or broken file never leaves a role without a colour.  The colour
 * conversions (true colour to the xterm 256 palette and to the 8 basic
 * colours) are the usual nearest-colour searches; ncurses offers none.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "theme.h"

static const char *const role_names[VW_C_COUNT] = {
	"normal", "dim",     "title",	"axis",	   "label",   "value",	 "status",
	"select", "cursor",  "range",	"mark",	   "warn",    "error",	 "series0",
	"series1", "series2", "series3", "series4", "series5", "series6", "series7",
	"phase0", "phase1",  "phase2",	"phase3",  "phase4",  "phase5",	 "phase6",
	"phase7", "scale0",  "scale1",	"scale2",  "scale3",  "scale4",	 "scale5",
	"scale6", "scale7",  "scale8",	"scale9",
};

/* Keep in step with themes/default.theme (test-view-theme checks it). */
static const char builtin[] =
	"name = default\n"
	"normal = #c8ccd4 on default\n"
	"dim = #6c7380\n"
	"title = #e8ecf4 on #2a3140\n"
	"axis = #8a93a3\n"
	"label = #b8c0cc\n"
	"value = #e8ecf4\n"
	"status = #c8ccd4 on #2a3140\n"
	"select = #ffffff on #3c4a66 bold\n"
	"cursor = #ffd75f bold\n"
	"range = #ffffff on #34507a\n"
	"mark = #ff87d7 bold\n"
	"warn = #1c1c1c on #ffaf00 bold\n"
	"error = #ffffff on #d70000 bold\n"
	"series0 = #5fafff\nseries1 = #87d787\nseries2 = #ffaf5f\nseries3 = #d787ff\n"
	"series4 = #5fd7d7\nseries5 = #ff8787\nseries6 = #d7d75f\nseries7 = #afafd7\n"
	"phase0 = #1f3b5c on #5fafff\nphase1 = #1f3b1f on #87d787\n"
	"phase2 = #4a2a00 on #ffaf5f\nphase3 = #3a1f4a on #d787ff\n"
	"phase4 = #0f3a3a on #5fd7d7\nphase5 = #4a1f1f on #ff8787\n"
	"phase6 = #3a3a0f on #d7d75f\nphase7 = #2a2a3a on #afafd7\n"
	"scale0 = #313695\nscale1 = #4575b4\nscale2 = #74add1\nscale3 = #abd9e9\n"
	"scale4 = #e0f3f8\nscale5 = #fee090\nscale6 = #fdae61\nscale7 = #f46d43\n"
	"scale8 = #d73027\nscale9 = #a50026\n";

const char *vw_theme_role_name(int role)
{
	return role >= 0 && role < VW_C_COUNT ? role_names[role] : "?";
}

static int parse_color(const char *tok, vw_color *c)
{
	static const char *const basic[] = {"black", "red",	"green", "yellow",
					    "blue",  "magenta", "cyan",	 "white"};
	if (strcasecmp(tok, "default") == 0) {
		*c = (vw_color){VW_COLOR_DEFAULT, 0};
		return 0;
	}
	for (int i = 0; i < 8; i++)
		if (strcasecmp(tok, basic[i]) == 0) {
			*c = (vw_color){VW_COLOR_INDEX, (uint32_t)i};
			return 0;
		}
	char *end;
	if (tok[0] == '#' && strlen(tok) == 7) {
		for (int i = 1; i < 7; i++) /* strtoul alone would take "-1234f" */
			if (!isxdigit((unsigned char)tok[i]))
				return -1;
		unsigned long v = strtoul(tok + 1, &end, 16);
		*c = (vw_color){VW_COLOR_RGB, (uint32_t)v};
		return 0;
	}
	if (tok[0] >= '0' && tok[0] <= '9' && strlen(tok) <= 3) {
		unsigned long v = strtoul(tok, &end, 10);
		if (*end || v > 255)
			return -1;
		*c = (vw_color){VW_COLOR_INDEX, (uint32_t)v};
		return 0;
	}
	return -1;
}

static int parse_attr(const char *tok, uint8_t *a)
{
	static const struct {
		const char *n;
		uint8_t bit;
	} at[] = {{"bold", VW_A_BOLD},	     {"reverse", VW_A_REVERSE}, {"underline", VW_A_UNDERLINE},
		  {"dim", VW_A_DIM},	     {"normal", 0}};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
		if (strcasecmp(tok, at[i].n) == 0) {
			*a |= at[i].bit;
			return 0;
		}
	return -1;
}

/* "FG [on BG] [attrs]" in any order; returns 0 and the style, or -1. */
static int parse_style(char *v, vw_style *st)
{
	vw_style s = {{VW_COLOR_DEFAULT, 0}, {VW_COLOR_DEFAULT, 0}, 0};
	int nfg = 0, want_bg = 0, nbg = 0;
	for (char *save, *tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (strcasecmp(tok, "on") == 0) {
			if (want_bg || nbg)
				return -1;
			want_bg = 1;
		} else if (want_bg) {
			if (parse_color(tok, &s.bg) != 0)
				return -1;
			want_bg = 0;
			nbg = 1;
		} else if (parse_attr(tok, &s.attr) == 0) {
			continue;
		} else if (!nfg && parse_color(tok, &s.fg) == 0) {
			nfg = 1;
		} else {
			return -1;
		}
	}
	if (want_bg)
		return -1;
	*st = s;
	return 0;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

static void parse_line(vw_theme *t, char *line)
{
	/* A comment: '#' first on the line, or "# " after a value. */
	int lead = 1;
	for (char *p = line; *p; p++) {
		if (*p == '#' && (lead || ((p[-1] == ' ' || p[-1] == '\t') &&
					  (p[1] == '\0' || p[1] == ' ' || p[1] == '\t')))) {
			*p = '\0';
			break;
		}
		if (*p != ' ' && *p != '\t')
			lead = 0;
	}
	char *s = trim(line);
	if (!*s)
		return;
	char *eq = strchr(s, '=');
	if (!eq) {
		t->ignored++;
		return;
	}
	*eq = '\0';
	char *k = trim(s), *v = trim(eq + 1);
	if (strcasecmp(k, "name") == 0) {
		snprintf(t->name, sizeof t->name, "%s", v);
		t->set++;
		return;
	}
	if (strcasecmp(k, "mono") == 0) {
		t->mono = strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0;
		t->set++;
		return;
	}
	for (int r = 0; r < VW_C_COUNT; r++)
		if (strcasecmp(k, role_names[r]) == 0) {
			if (!*v || parse_style(v, &t->role[r]) != 0)
				t->ignored++;
			else
				t->set++;
			return;
		}
	t->ignored++;
}

void vw_theme_parse(vw_theme *t, const char *text, size_t len)
{
	char line[512];
	size_t i = 0;
	while (i < len) {
		size_t n = 0;
		int too_long = 0;
		while (i < len && text[i] != '\n') {
			if (n + 1 < sizeof line && text[i] != '\0')
				line[n++] = text[i];
			else
				too_long = 1;
			i++;
		}
		i++;
		line[n] = '\0';
		if (too_long)
			t->ignored++;
		else
			parse_line(t, line);
	}
}

void vw_theme_default(vw_theme *t)
{
	memset(t, 0, sizeof *t);
	vw_theme_parse(t, builtin, sizeof builtin - 1);
}

static int read_small(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	*buf = malloc(65536);
	*len = *buf ? fread(*buf, 1, 65536, f) : 0;
	fclose(f);
	return *buf ? 0 : -1;
}

int vw_theme_load(vw_theme *t, const char *name, char *err, size_t errlen)
{
	vw_theme_default(t);
	char path[PATH_MAX + 64], exe[PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	int found = 0;
	if (strchr(name, '/')) {
		found = read_small(name, &buf, &len) == 0;
		if (!found) {
			snprintf(err, errlen, "theme %s: cannot read it", name);
			return -1;
		}
	} else {
		const char *dirs[5] = {getenv("MCVIEW_THEME_DIR"), "themes", NULL, NULL,
				       MCZ_DATADIR "/themes"};
		char d1[PATH_MAX + 32], d2[PATH_MAX + 32];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			exe[n] = '\0';
			char *sl = strrchr(exe, '/');
			if (sl)
				*sl = '\0';
			snprintf(d1, sizeof d1, "%s/../themes", exe);
			snprintf(d2, sizeof d2, "%s/../share/mcz/themes", exe);
			dirs[2] = d1;
			dirs[3] = d2;
		}
		for (int i = 0; i < 5 && !found; i++) {
			if (!dirs[i] || !*dirs[i])
				continue;
			snprintf(path, sizeof path, "%s/%s.theme", dirs[i], name);
			found = read_small(path, &buf, &len) == 0;
		}
		if (!found && strcmp(name, "default") == 0)
			return 0;
		if (!found) {
			snprintf(err, errlen,
				 "no theme named '%s' (themes: default, light, high-contrast, "
				 "monochrome, colorblind; or give a path)",
				 name);
			return -1;
		}
	}
	/* a file of which no line is a theme's (--theme /etc/passwd, a
	 * recording given by mistake) is refused, not shown as the default */
	int before = t->set, ign = t->ignored;
	vw_theme_parse(t, buf, len);
	free(buf);
	if (t->set == before && t->ignored > ign) {
		snprintf(err, errlen, "theme %s: not a theme (none of its %d line%s sets a colour: "
			 "'role = colour' lines, as in themes/default.theme)", name, t->ignored - ign,
			 t->ignored - ign == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

uint32_t vw_theme_index_rgb(int idx)
{
	static const uint32_t base[16] = {0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd,
					  0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00,
					  0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff};
	static const int lv[6] = {0, 95, 135, 175, 215, 255};
	if (idx < 16)
		return base[idx < 0 ? 0 : idx];
	if (idx < 232) {
		int i = idx - 16;
		return (uint32_t)(lv[i / 36] << 16 | lv[i / 6 % 6] << 8 | lv[i % 6]);
	}
	int g = 8 + 10 * (idx - 232);
	return (uint32_t)(g << 16 | g << 8 | g);
}

static int dist(uint32_t a, uint32_t b)
{
	int dr = (int)(a >> 16 & 255) - (int)(b >> 16 & 255);
	int dg = (int)(a >> 8 & 255) - (int)(b >> 8 & 255);
	int db = (int)(a & 255) - (int)(b & 255);
	return 3 * dr * dr + 4 * dg * dg + 2 * db * db;
}

static int nearest(uint32_t rgb, int from, int to)
{
	int best = from, bd = INT_MAX;
	for (int i = from; i < to; i++) {
		int d = dist(rgb, vw_theme_index_rgb(i));
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}

int vw_theme_to_256(uint32_t rgb)
{
	return nearest(rgb, 16, 256);
}

int vw_theme_to_8(uint32_t rgb)
{
	return nearest(rgb, 0, 8);
}
