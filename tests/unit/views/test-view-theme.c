/* test-view-theme.c: the theme parser and loader, and colour conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/term/theme.h"

static int style_eq(const vw_style *a, const vw_style *b)
{
	return a->fg.kind == b->fg.kind && a->fg.v == b->fg.v && a->bg.kind == b->bg.kind &&
	       a->bg.v == b->bg.v && a->attr == b->attr;
}

static void parse_values(void **st)
{
	(void)st;
	vw_theme t;
	vw_theme_default(&t);
	assert_int_equal(t.ignored, 0);
	assert_string_equal(t.name, "default");
	const char txt[] = "  # a comment\nname = mine\nseries0 = #ff0000 on 17 bold # red\n"
			   "cursor = reverse\nwhat = 3\nwarn = #12345 bold\nrange=blue on default\n"
			   "mark = #-12345\n";
	vw_style warn = t.role[VW_C_WARN];
	vw_theme_parse(&t, txt, sizeof txt - 1);
	assert_string_equal(t.name, "mine");
	assert_int_equal(t.role[VW_C_SERIES0].fg.kind, VW_COLOR_RGB);
	assert_int_equal(t.role[VW_C_SERIES0].fg.v, 0xff0000);
	assert_int_equal(t.role[VW_C_SERIES0].bg.kind, VW_COLOR_INDEX);
	assert_int_equal(t.role[VW_C_SERIES0].bg.v, 17);
	assert_int_equal(t.role[VW_C_SERIES0].attr, VW_A_BOLD);
	assert_int_equal(t.role[VW_C_CURSOR].attr, VW_A_REVERSE);
	assert_int_equal(t.role[VW_C_CURSOR].fg.kind, VW_COLOR_DEFAULT);
	assert_int_equal(t.role[VW_C_RANGE].fg.v, 4);
	/* unknown key and bad colours (short; signed, which strtoul would take):
	 * ignored, the old value kept */
	assert_int_equal(t.ignored, 3);
	assert_int_equal(t.role[VW_C_MARK].fg.kind, VW_COLOR_RGB);
	assert_int_equal(t.role[VW_C_MARK].fg.v, 0xff87d7);
	assert_true(style_eq(&t.role[VW_C_WARN], &warn));
}

static void shipped_themes(void **st)
{
	(void)st;
	static const char *const names[] = {"default", "light", "high-contrast", "monochrome",
					    "colorblind"};
	char err[256], path[128];
	vw_theme builtin, t;
	vw_theme_default(&builtin);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "themes/%s.theme", names[i]);
		assert_int_equal(vw_theme_load(&t, path, err, sizeof err), 0);
		assert_int_equal(t.ignored, 0);
		assert_string_equal(t.name, names[i]);
	}
	/* themes/default.theme is the built-in theme, written out */
	assert_int_equal(vw_theme_load(&t, "themes/default.theme", err, sizeof err), 0);
	for (int r = 0; r < VW_C_COUNT; r++)
		assert_true(style_eq(&t.role[r], &builtin.role[r]));
	assert_int_equal(vw_theme_load(&t, "monochrome", err, sizeof err), 0);
	assert_int_equal(t.mono, 1);
	assert_int_equal(vw_theme_load(&t, "no-such-theme", err, sizeof err), -1);
	assert_non_null(strstr(err, "no theme named 'no-such-theme'"));
	assert_int_equal(vw_theme_load(&t, "/nonexistent/x.theme", err, sizeof err), -1);
}

static void colours(void **st)
{
	(void)st;
	assert_int_equal(vw_theme_to_256(0xff0000), 196);
	assert_int_equal(vw_theme_to_256(0x000000), 16);
	assert_int_equal(vw_theme_to_256(0x808080), 244);
	assert_int_equal(vw_theme_to_256(0x5fafff), 75);
	assert_int_equal(vw_theme_to_8(0xff0000), 1);
	assert_int_equal(vw_theme_to_8(0x0000ff), 4);
	assert_int_equal(vw_theme_to_8(0xffffff), 7);
	assert_int_equal(vw_theme_index_rgb(75), 0x5fafff);
	assert_int_equal(vw_theme_index_rgb(232), 0x080808);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_values),
		cmocka_unit_test(shipped_themes),
		cmocka_unit_test(colours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
