/* test-view-timeline.c: golden text renders of the timeline and the screen
 * frame around it, at several sizes, glyph sets and states.
 *
 * Each case renders into a canvas and compares the text with
 * tests/unit/golden/NAME.txt.  After an intended change of the drawing, run
 *     UPDATE_GOLDEN=1 build/tests/test-view-timeline
 * to rewrite them, and review the diff (git diff tests/unit/golden).
 * Beside the goldens, a few facts are checked directly (the read-out is the
 * value at the cursor, keys change what is drawn).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../viewer/app/app.h"
#include "../../../viewer/views/draw/draw.h"
#include "../../../viewer/app/keys.h"
#include "../view-fixture.h"
#include "../golden.h"

static char dir[64], path[96];

/* The file is always named run.mcz (its name is on the screen). */
static int setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof dir, "/tmp/mcz-test-timeline-%d", (int)getpid());
	snprintf(path, sizeof path, "%s/run.mcz", dir);
	return mkdir(dir, 0700) || fx_write(path, 0, NULL);
}

static int teardown(void **st)
{
	(void)st;
	unlink(path);
	rmdir(dir);
	return 0;
}

typedef struct fx {
	vw_model *m;
	vw_an *an;
	vw_app a;
	vw_canvas *c;
} fx;

static void fx_open(fx *f, int w, int h)
{
	char err[256];
	const char *p[1] = {path};
	assert_int_equal(vw_model_open(&f->m, p, 1, NULL, err, sizeof err), 0);
	assert_non_null(f->an = vw_an_new(f->m));
	assert_int_equal(vw_app_init(&f->a, f->an, 0), 0);
	f->c = vw_canvas_new(w, h);
	vw_frame_draw(&f->a, f->c); /* lays out, as the first screen does */
}

static void fx_close(fx *f)
{
	vw_canvas_free(f->c);
	vw_app_free(&f->a);
	vw_an_free(f->an);
	vw_model_free(f->m);
}

static void keys(fx *f, const char *list)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *sv, *k = strtok_r(buf, " ", &sv); k; k = strtok_r(NULL, " ", &sv)) {
		int key = vw_keys_parse(k);
		assert_true(key >= 0);
		vw_app_key(&f->a, key);
	}
	vw_frame_draw(&f->a, f->c);
}

static void whole_run(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 100, 24);
	golden("timeline-100x24", f.c);
	/* The selected row's read-out is the value at the cursor. */
	char want[64], val[32];
	double v = vw_model_value_at(f.m, 0, f.m->cursor);
	snprintf(want, sizeof want, "mem.read_bytes = %s", vw_fmt_si(val, sizeof val, v, "B/s"));
	char *txt = vw_canvas_to_text(f.c);
	assert_non_null(strstr(txt, want));
	free(txt);
	fx_close(&f);
}

static void zoom_pan_select(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 100, 24);
	vw_model_set_cursor(f.m, 3000000000LL);
	keys(&f, "+ +");
	assert_true(llabs(f.m->t1 - f.m->t0 - (f.m->t_max + 1) / 4) <= 2);
	golden("timeline-zoom4", f.c);
	keys(&f, "Right Right");
	golden("timeline-pan", f.c);
	keys(&f, "S-Right S-Right S-Right S-Right S-Right");
	assert_true(f.m->sel1 > f.m->sel0);
	golden("timeline-select", f.c);
	int64_t a = f.m->sel0, b = f.m->sel1;
	keys(&f, "z");
	assert_int_equal(f.m->t0, a);
	assert_int_equal(f.m->t1, b);
	keys(&f, "0");
	assert_int_equal(f.m->t0, 0);
	fx_close(&f);
}

static void small_ascii(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 40, 12);
	f.c->ascii = 1;
	vw_frame_draw(&f.a, f.c);
	golden("timeline-40x12-ascii", f.c);
	fx_close(&f);
}

/* A group label too wide for its column keeps its member count: the name
 * is cut ("core.c… (4) Σ"), not the "(4)" (which tells the user it is a group). */
static void narrow_labels_keep_count(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 60, 14);
	char *txt = vw_canvas_to_text(f.c);
	const char *l = strstr(txt, "\u25b8core.c");
	assert_non_null(l);
	assert_non_null(strstr(l, "\u2026 (4) \u03a3"));
	free(txt);
	f.c->ascii = 1;
	vw_frame_draw(&f.a, f.c);
	txt = vw_canvas_to_text(f.c);
	assert_null(strstr(txt, "core.cycles ( "));
	free(txt);
	fx_close(&f);
}

static void blocks_expanded(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 120, 30);
	f.c->blocks = 1;
	keys(&f, "j j Enter");
	assert_int_equal(f.m->nrows, 8);
	golden("timeline-120x30-blocks-expanded", f.c);
	fx_close(&f);
}

static void filter_and_help(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 80, 20);
	keys(&f, "/ g p u");
	assert_int_equal(f.m->nrows, 1);
	golden("timeline-filter-prompt", f.c);
	keys(&f, "Esc");
	assert_int_equal(f.m->nrows, 4);
	keys(&f, "/ c y c Enter");
	assert_int_equal(f.m->nrows, 1);
	keys(&f, "?");
	golden("timeline-help", f.c);
	keys(&f, "x");
	assert_int_equal(f.a.help, 0);
	keys(&f, "q");
	assert_int_equal(f.a.quit, 1);
	fx_close(&f);
}

static unsigned mouse(fx *f, int button, int x, int y)
{
	vw_input in = {.act = VW_ACT_MOUSE, .key = VW_KEY_MOUSE, .mouse_x = x, .mouse_y = y,
		       .mouse_button = button};
	unsigned r = vw_app_input(&f->a, &in);
	vw_frame_draw(&f->a, f->c);
	return r;
}

static void mouse_cursor_drag_wheel(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 100, 24);
	/* plot from column 19 (label width, "▸core.cycles (4) Σ") over 68 columns;
	 * screen row 5 is a row */
	int x0 = 19, pw = 68;
	assert_int_equal(mouse(&f, 1, x0 + 10, 5), VW_R_REDRAW);
	assert_int_equal(f.m->cursor, vw_model_col_time(f.m, 10, pw));
	mouse(&f, 6, x0 + 20, 5);
	mouse(&f, 2, x0 + 30, 5);
	assert_int_equal(f.m->sel0, vw_model_col_time(f.m, 10, pw));
	assert_int_equal(f.m->sel1, vw_model_col_time(f.m, 30, pw) + 1);
	golden("timeline-drag", f.c);
	/* wheel up zooms in around the time under the mouse */
	int64_t t = vw_model_col_time(f.m, 50, pw);
	mouse(&f, 4, x0 + 50, 5);
	assert_true(llabs(f.m->t1 - f.m->t0 - (f.m->t_max + 1) / 2) <= 2);
	assert_true(llabs(vw_model_col_time(f.m, 50, pw) - t) < (f.m->t1 - f.m->t0) / pw);
	mouse(&f, 5, x0 + 50, 5);
	assert_int_equal(f.m->t1 - f.m->t0, f.m->t_max + 1);
	/* a click on a label selects the row */
	mouse(&f, 1, 3, 10);
	assert_int_equal(f.m->row_sel, 2);
	fx_close(&f);
}

static void too_small(void **st)
{
	(void)st;
	fx f;
	fx_open(&f, 39, 12);
	golden("timeline-too-small", f.c);
	/* resizing back draws the screen again */
	vw_canvas_resize(f.c, 40, 12);
	vw_frame_draw(&f.a, f.c);
	char *txt = vw_canvas_to_text(f.c);
	assert_non_null(strstr(txt, "Timeline"));
	free(txt);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_run),	   cmocka_unit_test(zoom_pan_select),
		cmocka_unit_test(small_ascii),	   cmocka_unit_test(blocks_expanded), cmocka_unit_test(narrow_labels_keep_count),
		cmocka_unit_test(filter_and_help), cmocka_unit_test(too_small),
		cmocka_unit_test(mouse_cursor_drag_wheel),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
