/* test-pcp-export.c: mcz export --pcp's corners (pcp_export, format/pcp/
 * pcp-export.c), on a recording made here and read back by mcz import
 * (pcp_import): names PCP does not allow (each renamed, listed in the
 * stats, its original kept as a label and given back by mcz import: issue
 * 43, finding 12), two names PCP spells alike (two metrics, not two
 * instances), a name with a quote and a backslash, a name that is both a
 * metric and the start of others, one name with two units, a stream
 * without instance beside instances, instance names equal up to their
 * first space, a scale
 * no PCP code gives, marks of one microsecond, a point mark whose text
 * starts "begin", begin/end and gap marks, and an empty recording.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"
#include "../../../format/pcp/pcp.h"

static char dir[64];

static void add(mcz_writer *w, const char *name, const char *inst, const char *unit, double scale,
		uint8_t kind, uint8_t type)
{
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	uint32_t id;
	d.name = name;
	d.instance = inst;
	d.unit = unit;
	d.scale = scale;
	d.kind = kind;
	d.type = type;
	d.source = "test";
	assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
}

enum { NSTREAMS = 14 };

static void make(const char *path)
{
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = 1700000000000000000LL;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	mcz_writer_meta(w, "host", "node\"7");
	add(w, "9lives.x-y", "", "B", 1, MCZ_GAUGE, MCZ_U64);          /* x9lives.x_y */
	add(w, "a.b", "", "", 1, MCZ_GAUGE, MCZ_I64);                   /* a leaf ... */
	add(w, "a.b.c", "", "", 1, MCZ_GAUGE, MCZ_I64);                 /* ... and a node */
	add(w, "dup", "", "B", 1, MCZ_GAUGE, MCZ_U64);
	add(w, "dup", "", "W", 1e-3, MCZ_GAUGE, MCZ_U64);               /* dup_2 */
	add(w, "q", "", "", 1, MCZ_GAUGE, MCZ_F64);                     /* instance "all" */
	add(w, "q", "x", "", 1, MCZ_GAUGE, MCZ_F64);
	add(w, "sp", "a b", "", 1, MCZ_GAUGE, MCZ_U64);
	add(w, "sp", "a c", "", 1, MCZ_GAUGE, MCZ_U64);                 /* "a_c" */
	add(w, "e", "", "J", 1e-9, MCZ_COUNTER, MCZ_U64);               /* values x 1e-9 */
	add(w, "c", "cpu7", "instructions", 1, MCZ_COUNTER, MCZ_U64);
	add(w, "app.my-count", "", "", 1, MCZ_GAUGE, MCZ_U64);          /* app.my_count_2 */
	add(w, "app.my_count", "", "", 1, MCZ_GAUGE, MCZ_U64);          /* kept as it is */
	add(w, "we\"ird\\n", "", "", 1, MCZ_GAUGE, MCZ_U64);          /* we_ird_n */
	for (int r = 0; r < 5; r++) {
		mcz_value v[NSTREAMS];
		for (int j = 0; j < NSTREAMS; j++)
			v[j].u = (uint64_t)(100 * j + r);
		v[5].f = 0.25 * r;
		v[6].f = -1.5 * r;
		v[9].u = 3000000000ULL * (uint64_t)r;
		assert_int_equal(mcz_writer_append(w, r * 100000000LL, v, NULL), MCZ_OK);
	}
	mcz_writer_mark(w, 100000000LL, MCZ_MARK_POINT, 0, "one");
	mcz_writer_mark(w, 100000000LL, MCZ_MARK_POINT, 0, "two");   /* same us: 1 us later */
	mcz_writer_mark(w, 150000000LL, MCZ_MARK_POINT, 0, "begin of it"); /* "point begin..." */
	mcz_writer_mark(w, 200000000LL, MCZ_MARK_BEGIN, 0, "solve");
	mcz_writer_mark(w, 300000000LL, MCZ_MARK_END, 0, "");
	mcz_writer_mark(w, 350000000LL, MCZ_MARK_GAP, 0, "gap");
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static const mcz_stream_desc *find(mcz_reader *r, const char *name, const char *inst)
{
	for (size_t i = 0; i < mcz_stream_count(r); i++) {
		const mcz_stream_desc *d = mcz_stream(r, i);
		if (!strcmp(d->name, name) && !strcmp(d->instance, inst))
			return d;
	}
	fail_msg("no stream %s[%s]", name, inst);
	return NULL;
}

static double last_value(mcz_reader *r, const mcz_stream_desc *d)
{
	mcz_series s = { 0 };
	assert_int_equal(mcz_read(r, d->id, INT64_MIN, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.n, 5);
	mcz_value v = s.v[4];
	mcz_series_free(&s);
	return d->type == MCZ_F64 ? v.f : d->type == MCZ_I64 ? (double)v.i : (double)v.u;
}

static void test_corners(void **state)
{
	(void)state;
	char in[128], out[128], back[128], err[512];
	snprintf(in, sizeof in, "%s/in.mcz", dir);
	snprintf(out, sizeof out, "%s/arch/x", dir);
	snprintf(back, sizeof back, "%s/back.mcz", dir);
	make(in);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, in, 0), MCZ_OK);
	pcp_export_stats st;
	int rc = pcp_export(r, out, &st, err, sizeof err);
	if (rc)
		fail_msg("export: %s", err);
	assert_int_equal(st.archives, 1);
	assert_int_equal(st.values, 5 * NSTREAMS);
	assert_int_equal(st.marks, 6);
	assert_string_equal(st.damaged, "");
	/* the names PCP could not take, each said */
	static const char *const renames[] = {
		"9lives.x-y -> x9lives.x_y\n", "a.b -> a.b_\n", "dup -> dup_2\n",
		"q[] -> q[all]\n", "sp[a c] -> sp[a_c]\n", "app.my-count -> app.my_count_2\n",
		"we\"ird\\n -> we_ird_n\n",
	};
	for (size_t i = 0; i < sizeof renames / sizeof *renames; i++)
		if (!strstr(st.renames, renames[i]))
			fail_msg("no rename '%s' in:\n%s", renames[i], st.renames);
	assert_int_equal(st.renamed, sizeof renames / sizeof *renames);
	/* the same name again: refused, the archive kept */
	assert_int_not_equal(pcp_export(r, out, &st, err, sizeof err), 0);
	assert_non_null(strstr(err, "there already"));
	mcz_close(r);

	pcp_import_stats is;
	if (pcp_import(out, back, NULL, &is, err, sizeof err))
		fail_msg("import: %s", err);
	assert_int_equal(mcz_open(&r, back, 0), MCZ_OK);
	assert_int_equal(mcz_stream_count(r), NSTREAMS);
	assert_string_equal(mcz_meta(r, "host"), "node\"7"); /* the archive's host name */
	/* every name as the recording gave it */
	assert_true(last_value(r, find(r, "9lives.x-y", "")) == 4);
	assert_true(last_value(r, find(r, "a.b.c", "")) == 204);
	assert_true(last_value(r, find(r, "a.b", "")) == 104); /* a leaf, renamed a.b_ */
	const mcz_stream_desc *d = NULL;
	for (size_t i = 0; i < mcz_stream_count(r); i++) /* "dup" twice, B and W */
		if (!strcmp(mcz_stream(r, i)->name, "dup") && !strcmp(mcz_stream(r, i)->unit, "W"))
			d = mcz_stream(r, i);
	assert_non_null(d);
	assert_true(d->scale == 1e-3);
	assert_true(last_value(r, d) == 404);
	assert_true(last_value(r, find(r, "q", "")) == 1.0);
	assert_true(last_value(r, find(r, "q", "x")) == -6.0);
	assert_true(last_value(r, find(r, "sp", "a b")) == 704);
	assert_true(last_value(r, find(r, "sp", "a c")) == 804);
	assert_true(last_value(r, find(r, "app.my-count", "")) == 1104);
	assert_true(last_value(r, find(r, "app.my_count", "")) == 1204);
	assert_true(last_value(r, find(r, "we\"ird\\n", "")) == 1304);
	d = find(r, "e", "");
	assert_string_equal(d->unit, "J");
	assert_int_equal(d->type, MCZ_F64); /* a scale PCP has no code for: converted */
	assert_true(last_value(r, d) == 12.0);
	d = find(r, "c", "cpu7");
	assert_string_equal(d->unit, "instructions");
	assert_int_equal(d->kind, MCZ_COUNTER);
	assert_true(last_value(r, d) == 1004);

	static const struct {
		uint8_t kind;
		const char *text;
		int64_t us;
	} want[] = {
		{ MCZ_MARK_POINT, "one", 100000 },  { MCZ_MARK_POINT, "two", 100001 },
		{ MCZ_MARK_POINT, "begin of it", 150000 }, { MCZ_MARK_BEGIN, "solve", 200000 },
		{ MCZ_MARK_END, "", 300000 },
	};
	size_t nm = mcz_mark_count(r), k = 0;
	int64_t t0 = mcz_info(r)->wall_epoch_ns - 1700000000000000000LL;
	for (size_t i = 0; i < nm; i++) {
		const mcz_mark *m = mcz_mark_at(r, i);
		if (m->kind == MCZ_MARK_GAP)
			continue; /* PCP's <mark>: 1 ms after the write before it */
		assert_true(k < sizeof want / sizeof *want);
		assert_int_equal(m->kind, want[k].kind);
		assert_string_equal(m->text, want[k].text);
		assert_int_equal((m->t + t0) / 1000, want[k].us);
		k++;
	}
	assert_int_equal(k, sizeof want / sizeof *want);
	assert_int_equal(nm, k + 1);
	mcz_close(r);
}

static void test_empty(void **state)
{
	(void)state;
	char in[128], out[128], path[160], err[512];
	snprintf(in, sizeof in, "%s/empty.mcz", dir);
	snprintf(out, sizeof out, "%s/e/x", dir);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, in, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, in, 0), MCZ_OK);
	pcp_export_stats st;
	assert_int_not_equal(pcp_export(r, out, &st, err, sizeof err), 0);
	assert_non_null(strstr(err, "no samples and no marks"));
	snprintf(path, sizeof path, "%s.meta", out);
	assert_int_not_equal(access(path, F_OK), 0); /* nothing left behind */
	mcz_close(r);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/mcz-test-pcp-export.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return getenv("KEEP") ? 0 : system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corners),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
