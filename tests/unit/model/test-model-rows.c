/* test-model-rows.c: the timeline's rows ordered by activity — the score
 * (pure, on buckets), the Σ/avg rule (pure, on units), and on a recording
 * with known streams: constant ones folded into one first row, the others
 * most varying first, 's' orders (name, source) keeping the selected row,
 * group values summed or averaged, what the timeline writes for them; and a
 * large recording, whose scores come over the first frames (opening reads
 * none of them).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../viewer/app/app.h"
#include "../../../viewer/app/keys.h"
#include "../../../viewer/model/model.h"

static char path[64], big[64];

#define ROWS 200
#define DT 10000000LL /* 10 ms */

/* Streams of the recording (id: name[instance] source kind unit: values):
 *  0 app.busy        proc  gauge W     100 / 300, switching every 10 rows
 *  1 app.const       proc  gauge B     4096 always
 *  2 app.spike       proc  gauge count 0, but 1000 in row 150
 *  3 app.drift       proc  gauge B     1e9 + row
 *  4 cpu.util[cpu0]  pcp   gauge %     50 always (its group varies)
 *  5 cpu.util[cpu1]  pcp   gauge %     50 + 50 sin(row / 10)
 *  6 net.bytes[eth0] net   counter B   1 MB/s, 3 MB/s from row 100
 *  7 net.bytes[eth1] net   counter B   2 MB/s
 *  8 hw.temp[0]      rapl  gauge C     40 always
 *  9 hw.temp[1]      rapl  gauge C     45 always
 * 10 app.empty       proc  gauge       never present
 * 200 rows every 10 ms in chunks of 20 rows. */
static int write_fixture(const char *p)
{
	static const struct {
		const char *name, *inst, *src, *unit;
		int kind;
	} sd[] = {
		{"app.busy", "", "proc", "W", MCZ_GAUGE},
		{"app.const", "", "proc", "B", MCZ_GAUGE},
		{"app.spike", "", "proc", "count", MCZ_GAUGE},
		{"app.drift", "", "proc", "B", MCZ_GAUGE},
		{"cpu.util", "cpu0", "pcp", "%", MCZ_GAUGE},
		{"cpu.util", "cpu1", "pcp", "%", MCZ_GAUGE},
		{"net.bytes", "eth0", "net", "B", MCZ_COUNTER},
		{"net.bytes", "eth1", "net", "B", MCZ_COUNTER},
		{"hw.temp", "0", "rapl", "C", MCZ_GAUGE},
		{"hw.temp", "1", "rapl", "C", MCZ_GAUGE},
		{"app.empty", "", "proc", "", MCZ_GAUGE},
	};
	enum { NS = sizeof sd / sizeof sd[0] };
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 20;
	int rc = mcz_writer_open(&w, p, &o);
	if (rc)
		return rc;
	for (size_t i = 0; i < NS; i++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		uint32_t id;
		d.name = sd[i].name;
		d.instance = sd[i].inst;
		d.source = sd[i].src;
		d.unit = sd[i].unit;
		d.kind = (uint8_t)sd[i].kind;
		d.type = sd[i].kind == MCZ_COUNTER ? MCZ_U64 : MCZ_F64;
		mcz_writer_add_stream(w, &d, &id);
	}
	uint64_t eth0 = 0, eth1 = 0;
	for (long r = 0; r < ROWS && !rc; r++) {
		mcz_value v[NS];
		uint8_t present[NS];
		memset(present, 1, sizeof present);
		present[10] = 0;
		v[0].f = (r / 10) % 2 ? 300 : 100;
		v[1].f = 4096;
		v[2].f = r == 150 ? 1000 : 0;
		v[3].f = 1e9 + (double)r;
		v[4].f = 50;
		v[5].f = 50 + 50 * sin((double)r / 10);
		if (r > 0) {
			eth0 += r >= 100 ? 30000 : 10000; /* per 10 ms */
			eth1 += 20000;
		}
		v[6].u = eth0;
		v[7].u = eth1;
		v[8].f = 40;
		v[9].f = 45;
		v[10].f = 0;
		rc = mcz_writer_append(w, r * DT, v, present);
	}
	int rc2 = mcz_writer_close(w);
	return rc ? rc : rc2;
}

/* A recording whose scores cost more than opening may spend: 64 streams in
 * 6400 chunks of one row; the odd ones constant. */
static int write_big(const char *p)
{
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 1;
	int rc = mcz_writer_open(&w, p, &o);
	if (rc)
		return rc;
	for (int i = 0; i < 64; i++) {
		char name[32];
		snprintf(name, sizeof name, "s%02d", i);
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		uint32_t id;
		d.name = name;
		d.unit = "W";
		mcz_writer_add_stream(w, &d, &id);
	}
	for (long r = 0; r < 6400 && !rc; r++) {
		mcz_value v[64];
		for (int i = 0; i < 64; i++)
			v[i].f = i % 2 ? 7 : (double)((r + i) % 13);
		rc = mcz_writer_append(w, r * DT, v, NULL);
	}
	int rc2 = mcz_writer_close(w);
	return rc ? rc : rc2;
}

static int setup(void **st)
{
	(void)st;
	snprintf(path, sizeof path, "/tmp/mcz-test-rows-%d.mcz", (int)getpid());
	snprintf(big, sizeof big, "/tmp/mcz-test-rows-%d-big.mcz", (int)getpid());
	return write_fixture(path) || write_big(big);
}

static int teardown(void **st)
{
	(void)st;
	unlink(path);
	unlink(big);
	return 0;
}

static vw_model *open_path(const char *p)
{
	vw_model *m;
	char err[256];
	const char *ps[1] = {p};
	assert_int_equal(vw_model_open(&m, ps, 1, NULL, err, sizeof err), 0);
	return m;
}

/* Index of the row labelled label, or -1. */
static long row_of(const vw_model *m, const char *label)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (strcmp(m->rows[i].label, label) == 0)
			return (long)i;
	return -1;
}

static void rule_by_unit(void **st)
{
	(void)st;
	static const struct {
		const char *unit;
		int kind, want;
	} cases[] = {
		{"B", MCZ_COUNTER, VW_RULE_SUM},      /* bytes/s */
		{"B", MCZ_GAUGE, VW_RULE_SUM},        /* memory used */
		{"W", MCZ_GAUGE, VW_RULE_SUM},        /* power */
		{"J", MCZ_COUNTER, VW_RULE_SUM},      /* energy as power */
		{"cycles", MCZ_COUNTER, VW_RULE_SUM},
		{"count", MCZ_COUNTER, VW_RULE_SUM},
		{"count", MCZ_GAUGE, VW_RULE_SUM},    /* processes, pages */
		{"s", MCZ_COUNTER, VW_RULE_SUM},      /* busy time: CPUs busy */
		{"B/s", MCZ_GAUGE, VW_RULE_SUM},      /* a rate kept as a gauge */
		{"count/s", MCZ_GAUGE, VW_RULE_SUM},
		{"%", MCZ_GAUGE, VW_RULE_AVG},        /* utilisation */
		{"Hz", MCZ_GAUGE, VW_RULE_AVG},       /* clock */
		{"C", MCZ_GAUGE, VW_RULE_AVG},        /* temperature */
		{"\xc2\xb0" "C", MCZ_GAUGE, VW_RULE_AVG},
		{"V", MCZ_GAUGE, VW_RULE_AVG},
		{"ratio", MCZ_GAUGE, VW_RULE_AVG},
		{"B/count", MCZ_GAUGE, VW_RULE_AVG},  /* bytes per operation */
		{"s/count", MCZ_GAUGE, VW_RULE_AVG},  /* latency */
		{"s", MCZ_GAUGE, VW_RULE_AVG},        /* a duration */
		{"", MCZ_GAUGE, VW_RULE_AVG},         /* load average, a pid */
		{"-", MCZ_GAUGE, VW_RULE_AVG},
		{"", MCZ_COUNTER, VW_RULE_SUM},       /* events of some kind */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.unit = cases[i].unit;
		d.kind = (uint8_t)cases[i].kind;
		if ((int)vw_model_rule(&d) != cases[i].want)
			fail_msg("unit '%s' kind %d: rule %d, want %d", cases[i].unit,
				 cases[i].kind, (int)vw_model_rule(&d), cases[i].want);
	}
}

static vw_bucket bk(double mn, double mean, double mx)
{
	return (vw_bucket){mn, mx, mean, 10};
}

static void score_on_buckets(void **st)
{
	(void)st;
	vw_bucket b[64];
	/* constant, empty, only NaN: 0 */
	for (int i = 0; i < 64; i++)
		b[i] = bk(5, 5, 5);
	assert_true(vw_activity_score(b, 64) == 0);
	for (int i = 0; i < 64; i++)
		b[i] = (vw_bucket){NAN, NAN, NAN, 0};
	assert_true(vw_activity_score(b, 64) == 0);
	b[3] = (vw_bucket){NAN, NAN, NAN, 4}; /* counted, no value */
	assert_true(vw_activity_score(b, 64) == 0);
	/* swinging across its whole range: about 0.5 */
	for (int i = 0; i < 64; i++)
		b[i] = bk(0, 50, 100);
	double busy = vw_activity_score(b, 64);
	assert_true(busy > 0.45 && busy <= 0.5 + 1e-9);
	/* a level that moves between buckets scores too, within buckets flat */
	for (int i = 0; i < 64; i++)
		b[i] = i % 2 ? bk(10, 10, 10) : bk(30, 30, 30);
	double steps = vw_activity_score(b, 64);
	assert_true(steps > 0.3 && steps <= 1);
	/* within a percent of its level: small, but not constant */
	for (int i = 0; i < 64; i++)
		b[i] = bk(1000, 1005, 1010);
	double drift = vw_activity_score(b, 64);
	assert_true(drift > 0 && drift < 0.01);
	/* flat but for one spike in one bucket: the top tenth is dropped */
	for (int i = 0; i < 64; i++)
		b[i] = bk(10, 10, 10);
	b[20] = bk(10, 20, 1000);
	double spike = vw_activity_score(b, 64);
	assert_true(spike > 0 && spike < 1e-6);
	/* one bucket (a one-chunk file): zero but for a rare spike is low */
	b[0] = bk(0, 5, 1000);
	double rare = vw_activity_score(b, 1);
	assert_true(rare > 0 && rare < 0.1);
	assert_true(busy > drift && busy > rare);
	/* negative values: the magnitude, not the sign */
	for (int i = 0; i < 64; i++)
		b[i] = bk(-100, -50, 0);
	assert_true(fabs(vw_activity_score(b, 64) - busy) < 1e-9);
}

static void order_and_constants(void **st)
{
	(void)st;
	vw_model *m = open_path(path);
	assert_int_equal(m->nstreams, 11);
	/* app.const, app.empty, hw.temp[0], hw.temp[1]; not cpu.util[cpu0],
	 * which stays in its group */
	assert_int_equal(m->nconstant, 4);
	assert_int_equal(m->nrows, 6);
	assert_string_equal(m->rows[0].label, "4 constant streams");
	assert_true(m->rows[0].constants && m->rows[0].is_group && !m->rows[0].expanded);
	/* the first screen selects the most active row */
	assert_int_equal(m->row_sel, 1);
	/* then most varying first: the three that swing, the rare spike, the
	 * drift of a millionth */
	for (size_t i = 1; i < 4; i++)
		assert_true(strcmp(m->rows[i].label, "app.busy") == 0 ||
			    strcmp(m->rows[i].label, "cpu.util (2)") == 0 ||
			    strcmp(m->rows[i].label, "net.bytes (2)") == 0);
	assert_string_equal(m->rows[4].label, "app.spike");
	assert_string_equal(m->rows[5].label, "app.drift");
	for (size_t i = 2; i < m->nrows; i++)
		assert_true(m->rows[i].activity <= m->rows[i - 1].activity);
	assert_true(m->rows[5].activity > 0 && m->rows[5].activity < 1e-4);
	/* the rule of each group */
	assert_int_equal(m->rows[row_of(m, "cpu.util (2)")].rule, VW_RULE_AVG);
	assert_int_equal(m->rows[row_of(m, "net.bytes (2)")].rule, VW_RULE_SUM);
	/* Enter on the constants row lists its streams by their whole label */
	vw_model_toggle_group(m, 0);
	assert_int_equal(m->nrows, 10);
	assert_string_equal(m->rows[1].label, "app.const");
	assert_string_equal(m->rows[2].label, "app.empty");
	assert_string_equal(m->rows[3].label, "hw.temp[0]");
	assert_string_equal(m->rows[4].label, "hw.temp[1]");
	for (int i = 1; i <= 4; i++)
		assert_true(m->rows[i].depth == 1 && m->rows[i].constants);
	/* a constant stream has flat columns and a value; the folded row none */
	vw_bucket b[8];
	assert_int_equal(vw_model_row_buckets(m, 3, 8, b), 0);
	assert_true(b[0].min == 40 && b[7].max == 40);
	assert_int_equal(vw_model_row_buckets(m, 0, 8, b), -1);
	/* a member's Enter folds it again */
	vw_model_toggle_group(m, 2);
	assert_int_equal(m->nrows, 6);
	assert_int_equal(m->row_sel, 0);
	/* the filter sees the constants row's members */
	vw_model_set_filter(m, "temp");
	assert_int_equal(m->nrows, 1);
	assert_true(m->rows[0].constants);
	vw_model_set_filter(m, "");
	vw_model_free(m);
}

static void sort_keys(void **st)
{
	(void)st;
	vw_model *m = open_path(path);
	assert_int_equal(m->sort, VW_SORT_ACTIVITY);
	m->row_sel = (size_t)row_of(m, "net.bytes (2)");
	vw_model_set_sort(m, VW_SORT_NAME);
	assert_string_equal(vw_model_sort_name(m->sort), "name");
	/* the constants row stays first; the others by label */
	assert_true(m->rows[0].constants);
	static const char *const by_name[] = {"app.busy", "app.drift", "app.spike",
					      "cpu.util (2)", "net.bytes (2)"};
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(m->rows[i + 1].label, by_name[i]);
	assert_string_equal(m->rows[m->row_sel].label, "net.bytes (2)");
	vw_model_set_sort(m, VW_SORT_SOURCE);
	assert_string_equal(vw_model_sort_name(m->sort), "source");
	/* net < pcp < proc */
	static const char *const by_source[] = {"net.bytes (2)", "cpu.util (2)", "app.busy",
						"app.drift", "app.spike"};
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(m->rows[i + 1].label, by_source[i]);
	assert_string_equal(m->rows[m->row_sel].label, "net.bytes (2)");
	/* an expanded member stays selected across orders */
	vw_model_toggle_group(m, 1);
	m->row_sel = 3; /* net.bytes[eth1] */
	assert_string_equal(m->rows[3].label, "eth1");
	vw_model_set_sort(m, VW_SORT_ACTIVITY);
	assert_string_equal(m->rows[m->row_sel].label, "eth1");
	assert_int_equal(m->rows[m->row_sel].depth, 1);
	vw_model_free(m);
}

static void group_sum_and_mean(void **st)
{
	(void)st;
	vw_model *m = open_path(path);
	vw_bucket b[4];
	/* [0.2 s, 0.6 s): eth0 1 MB/s + eth1 2 MB/s */
	vw_model_set_window(m, 200000000LL, 600000000LL);
	long r = row_of(m, "net.bytes (2)");
	assert_int_equal(vw_model_row_buckets(m, (size_t)r, 4, b), 0);
	for (int i = 0; i < 4; i++) {
		assert_true(fabs(b[i].mean - 3e6) < 1);
		assert_true(fabs(b[i].min - 1e6) < 1 && fabs(b[i].max - 2e6) < 1);
	}
	/* [1.2 s, 1.6 s): 3 + 2 MB/s */
	vw_model_set_window(m, 1200000000LL, 1600000000LL);
	assert_int_equal(vw_model_row_buckets(m, (size_t)r, 4, b), 0);
	assert_true(fabs(b[0].mean - 5e6) < 1);
	/* cpu.util: the mean of 50 and cpu1's mean, not their sum */
	r = row_of(m, "cpu.util (2)");
	vw_bucket one[4];
	assert_int_equal(vw_model_row_buckets(m, (size_t)r, 4, b), 0);
	assert_int_equal(vw_model_stream_buckets(m, 5, m->t0, m->t1, 4, one), 0);
	for (int i = 0; i < 4; i++)
		assert_true(fabs(b[i].mean - (50 + one[i].mean) / 2) < 1e-9);
	vw_model_free(m);
}

/* What the timeline writes: the constants row, Σ and avg, the order in
 * the tab bar, the read-outs; 's' and Enter as keys. */
static void timeline_text(void **st)
{
	(void)st;
	vw_model *m = open_path(path);
	vw_an *an = vw_an_new(m);
	vw_app a;
	assert_int_equal(vw_app_init(&a, an, 0), 0);
	vw_canvas *c = vw_canvas_new(120, 30);
	vw_model_set_cursor(m, 400000000LL);
	vw_frame_draw(&a, c);
	char *t = vw_canvas_to_text(c);
	assert_non_null(strstr(t, "\u25b84 constant streams "));
	assert_non_null(strstr(t, "(Enter lists them)"));
	assert_non_null(strstr(t, "\u25b8net.bytes (2) \u03a3 "));
	assert_non_null(strstr(t, "\u25b8cpu.util (2) avg "));
	assert_non_null(strstr(t, "sort:activity"));
	assert_null(strstr(t, "hw.temp"));
	free(t);
	/* the read-out of a group says its rule and value */
	m->row_sel = (size_t)row_of(m, "net.bytes (2)");
	vw_frame_draw(&a, c);
	t = vw_canvas_to_text(c);
	assert_non_null(strstr(t, "net.bytes (2): \u03a3 3.00 MB/s  (members: min 1.00 MB/s  max "
				  "2.00 MB/s)"));
	free(t);
	/* 's' orders by name; Up to the constants row, Enter lists them */
	vw_app_key(&a, 's');
	vw_frame_draw(&a, c);
	t = vw_canvas_to_text(c);
	assert_non_null(strstr(t, "sort:name"));
	free(t);
	m->row_sel = 1;
	vw_app_key(&a, VW_KEY_UP);
	vw_frame_draw(&a, c);
	t = vw_canvas_to_text(c);
	assert_non_null(strstr(t, "4 constant streams: the same value all along (Enter lists them)"));
	free(t);
	vw_app_key(&a, VW_KEY_ENTER);
	vw_frame_draw(&a, c);
	t = vw_canvas_to_text(c);
	assert_non_null(strstr(t, "\u25be4 constant streams"));
	assert_non_null(strstr(t, "  hw.temp[1] "));
	assert_non_null(strstr(t, "45.0 C"));
	free(t);
	vw_canvas_free(c);
	vw_app_free(&a);
	vw_an_free(an);
	vw_model_free(m);
}

static void large_file_scored_over_frames(void **st)
{
	(void)st;
	vw_model *m = open_path(big);
	/* opening read no score: no constants row yet, rows by name */
	assert_int_equal(m->act_next, 0);
	assert_int_equal(m->act_applied, 0);
	assert_int_equal(m->nconstant, 0);
	assert_int_equal(m->nrows, 64);
	assert_string_equal(m->rows[0].label, "s00");
	assert_string_equal(m->rows[63].label, "s63");
	/* frames of a 1 ms budget: each reads a batch, until all are read */
	int frames = 0;
	while (frames < 10000) {
		vw_model_budget(m, 1);
		frames++;
		if (vw_model_rows_settle(m))
			break;
		assert_true(m->refining);
	}
	assert_true(frames > 1);
	assert_int_equal(m->act_applied, 1);
	assert_int_equal(m->nconstant, 32);
	assert_int_equal(m->nrows, 33);
	assert_string_equal(m->rows[0].label, "32 constant streams");
	for (size_t i = 1; i < m->nrows; i++)
		assert_true(m->streams[m->rows[i].members[0]].id % 2 == 0);
	vw_model_free(m);
	/* without a budget (snapshots, reports): settled in one call */
	m = open_path(big);
	vw_model_budget(m, 0);
	assert_int_equal(vw_model_rows_settle(m), 1);
	assert_int_equal(m->nconstant, 32);
	vw_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rule_by_unit),
		cmocka_unit_test(score_on_buckets),
		cmocka_unit_test(order_and_constants),
		cmocka_unit_test(sort_keys),
		cmocka_unit_test(group_sum_and_mean),
		cmocka_unit_test(timeline_text),
		cmocka_unit_test(large_file_scored_over_frames),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
