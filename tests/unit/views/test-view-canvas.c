/* test-view-canvas.c: the canvas, number/time formatting, sparklines, the
 * ruler and the key table — the pure drawing pieces every view uses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/views/draw/draw.h"
#include "../../../viewer/app/keys.h"
#include "../../../viewer/views/view.h"

static void canvas_text_and_clip(void **st)
{
	(void)st;
	vw_canvas *c = vw_canvas_new(6, 2);
	assert_non_null(c);
	assert_int_equal(vw_canvas_text(c, 1, 0, -1, VW_C_LABEL, 0, "h\xc3\xa9llo world"), 5);
	vw_canvas_put(c, 99, 0, 'x', 0, 0); /* clipped, no crash */
	vw_canvas_put(c, -1, -1, 'x', 0, 0);
	vw_canvas_printf(c, 0, 1, 3, VW_C_VALUE, VW_A_BOLD, "%d", 12345);
	char *t = vw_canvas_to_text(c);
	assert_string_equal(t, " h\xc3\xa9llo\n123   \n");
	free(t);
	assert_int_equal(c->cells[1].role, VW_C_LABEL);
	assert_int_equal(c->cells[6].attr, VW_A_BOLD);
	/* ASCII canvas: non-ASCII glyphs become '?' */
	c->ascii = 1;
	vw_canvas_text(c, 0, 0, 6, 0, 0, "\xe2\x96\x88z");
	t = vw_canvas_to_text(c);
	assert_memory_equal(t, "?z", 2);
	free(t);
	assert_int_equal(vw_canvas_resize(c, 3, 1), 0);
	t = vw_canvas_to_text(c);
	assert_string_equal(t, "   \n");
	free(t);
	vw_canvas_free(c);
}

static void fmt_si(void **st)
{
	(void)st;
	char b[32];
	assert_string_equal(vw_fmt_si(b, sizeof b, 12.3e9, "B/s"), "12.3 GB/s");
	assert_string_equal(vw_fmt_si(b, sizeof b, 0.95, "W"), "950 mW");
	assert_string_equal(vw_fmt_si(b, sizeof b, 999.96, "W"), "1.00 kW");
	/* rounding to the next decade keeps three digits: "100 sw/s", not "100.0" */
	assert_string_equal(vw_fmt_si(b, sizeof b, 99.96, "sw/s"), "100 sw/s");
	assert_string_equal(vw_fmt_si(b, sizeof b, 9.996, "W"), "10.0 W");
	assert_string_equal(vw_fmt_si(b, sizeof b, 1500, ""), "1.50 k");
	assert_string_equal(vw_fmt_si(b, sizeof b, 42, ""), "42.0");
	assert_string_equal(vw_fmt_si(b, sizeof b, -2.5e6, "B/s"), "-2.50 MB/s");
	assert_string_equal(vw_fmt_si(b, sizeof b, 0, "W"), "0 W");
	assert_string_equal(vw_fmt_si(b, sizeof b, NAN, "W"), "-");
	assert_string_equal(vw_fmt_si(b, sizeof b, 57.25, "%"), "57.2%");
	/* counts take no milli: a mean of 0.857 processes, as a person writes it */
	assert_string_equal(vw_fmt_si(b, sizeof b, 0.857, "proc"), "0.857 proc");
	assert_string_equal(vw_fmt_si(b, sizeof b, 0.0123, "B/s"), "0.0123 B/s");
	assert_string_equal(vw_fmt_si(b, sizeof b, -0.5, ""), "-0.500");
	assert_string_equal(vw_fmt_si(b, sizeof b, 2.5e-4, "s"), "250 us");
	assert_string_equal(vw_fmt_si(b, sizeof b, 0.004, "W/core"), "4.00 mW/core");
}

static void fmt_time(void **st)
{
	(void)st;
	char b[32];
	assert_string_equal(vw_fmt_time(b, sizeof b, 0, 0), "0s");
	assert_string_equal(vw_fmt_time(b, sizeof b, 1500000000, 500000000), "1.5s");
	assert_string_equal(vw_fmt_time(b, sizeof b, 20000000000LL, 5000000000LL), "20s");
	assert_string_equal(vw_fmt_time(b, sizeof b, 250000000, 50000000), "250ms");
	assert_string_equal(vw_fmt_time(b, sizeof b, 12000, 1000), "12us");
	assert_string_equal(vw_fmt_time(b, sizeof b, 125000000000LL, 1000000000), "2m05s");
	assert_string_equal(vw_fmt_time(b, sizeof b, 3720000000000LL, 0), "1h02m");
	assert_string_equal(vw_fmt_time(b, sizeof b, 1234567890, 0), "1.235s");
}

static vw_bucket bk(double lo, double hi)
{
	return (vw_bucket){lo, hi, (lo + hi) / 2, 1};
}

static void spark_glyphs(void **st)
{
	(void)st;
	vw_canvas *c = vw_canvas_new(4, 1);
	/* braille: 2 buckets a cell, 4 levels: [0,0] [3,3] | [0,3] empty | ... */
	vw_bucket b[8] = {bk(0, 0), bk(3, 3), bk(0, 3), {NAN, NAN, NAN, 0},
			  bk(1, 2), bk(1, 2), {NAN, NAN, NAN, 0}, {NAN, NAN, NAN, 0}};
	assert_int_equal(vw_spark_buckets(c, 4), 8);
	vw_spark_draw(c, 0, 0, 4, 1, b, 8, 0, 4, VW_C_SERIES0);
	/* cell 0: left dot7 (bottom), right dot4 (top) = 0x40|0x08 */
	assert_int_equal(c->cells[0].ch, 0x2800 + 0x48);
	/* cell 1: left column full (1,2,3,7) */
	assert_int_equal(c->cells[1].ch, 0x2800 + 0x47);
	/* cell 2: both columns at levels 1-2 (dots 2,3 and 5,6) */
	assert_int_equal(c->cells[2].ch, 0x2800 + 0x36);
	assert_int_equal(c->cells[3].ch, ' ');
	assert_int_equal(c->cells[0].role, VW_C_SERIES0);
	/* blocks: one bucket a cell, 8 levels, bar to max */
	c->blocks = 1;
	vw_bucket k[4] = {bk(0, 0), bk(0, 3.9), bk(0, 7.9), {NAN, NAN, NAN, 0}};
	vw_spark_draw(c, 0, 0, 4, 1, k, 4, 0, 8, 0);
	char *t = vw_canvas_to_text(c);
	assert_string_equal(t, "\xe2\x96\x81\xe2\x96\x84\xe2\x96\x88 \n");
	free(t);
	/* ascii, 2 lines = 6 levels */
	vw_canvas_resize(c, 3, 2);
	c->ascii = 1;
	vw_bucket a[3] = {bk(0, 0), bk(0, 5.9), bk(4, 4)};
	vw_spark_draw(c, 0, 0, 3, 2, a, 3, 0, 6, 0);
	t = vw_canvas_to_text(c);
	assert_string_equal(t, " |-\n_| \n");
	free(t);
	vw_canvas_free(c);
}

/* A constant row (app.procs = 1, lo == hi) is a flat line at the top, a
 * row of zeros one at the bottom: never blank, which reads as "no data". */
static void spark_flat(void **st)
{
	(void)st;
	vw_canvas *c = vw_canvas_new(2, 2);
	vw_bucket one[4] = {bk(1, 1), bk(1, 1), bk(1, 1), bk(1, 1)};
	vw_spark_draw(c, 0, 0, 2, 2, one, 4, 1, 1, 0);
	char *t = vw_canvas_to_text(c);
	assert_string_equal(t, "\xe2\xa0\x89\xe2\xa0\x89\n  \n"); /* top dots 1+4 */
	free(t);
	vw_bucket zero[4] = {bk(0, 0), bk(0, 0), bk(0, 0), bk(0, 0)};
	vw_spark_draw(c, 0, 0, 2, 2, zero, 4, 0, 0, 0);
	t = vw_canvas_to_text(c);
	assert_string_equal(t, "  \n\xe2\xa3\x80\xe2\xa3\x80\n"); /* bottom dots 7+8 */
	free(t);
	vw_canvas_free(c);
}

static void ruler(void **st)
{
	(void)st;
	vw_canvas *c = vw_canvas_new(40, 1);
	c->ascii = 1;
	int64_t step = vw_ruler_draw(c, 0, 0, 40, 0, 60000000000LL);
	/* "1m00s" is the widest label: 15 s steps leave room for it */
	assert_int_equal(step, 15000000000LL);
	char *t = vw_canvas_to_text(c);
	assert_string_equal(t, "|0s       |15s      |30s      |45s      \n");
	free(t);
	/* a window not starting at 0: ticks at round times, labels to the step */
	step = vw_ruler_draw(c, 0, 0, 40, 1250000000, 1750000000);
	assert_int_equal(step, 100000000);
	t = vw_canvas_to_text(c);
	assert_string_equal(t, "    |1.3s   |1.4s   |1.5s   |1.6s   |   \n");
	free(t);
	vw_canvas_free(c);
}

static void keys(void **st)
{
	(void)st;
	char b[16];
	assert_int_equal(vw_keys_action('+'), VW_ACT_ZOOM_IN);
	assert_int_equal(vw_keys_action('q'), VW_ACT_QUIT);
	assert_int_equal(vw_keys_action(VW_KEY_SLEFT), VW_ACT_SEL_LEFT);
	assert_int_equal(vw_keys_action('y'), VW_ACT_NONE);
	assert_string_equal(vw_keys_name(VW_KEY_PPAGE, b, sizeof b), "PgUp");
	assert_string_equal(vw_keys_name(VW_CTRL('d'), b, sizeof b), "Ctrl-d");
	/* every key in the table has a name that parses back to it */
	for (size_t i = 0; i < vw_keys_count; i++) {
		int k = vw_keys_table[i].key;
		assert_int_equal(vw_keys_parse(vw_keys_name(k, b, sizeof b)), k);
	}
	assert_int_equal(vw_keys_parse("NoSuchKey"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(canvas_text_and_clip), cmocka_unit_test(fmt_si),
		cmocka_unit_test(fmt_time),		cmocka_unit_test(spark_glyphs), cmocka_unit_test(spark_flat),
		cmocka_unit_test(ruler),		cmocka_unit_test(keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
