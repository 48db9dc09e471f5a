/* test-flame.c: the call stacks of a recording as the viewer reads them
 * (viewer/analysis/code/stacktab.c, waitowner.c, flame.c), on a profile written
 * with stacks: main calls caller_a (a leaf inlined into helper, and
 * MPI_Barrier spinning in opal_progress) and caller_b (the leaf, and
 * MPI_Barrier through an unnamed libc frame), a C++ function waits in
 * libgomp's barrier, and one MPI sample's stack is cut (no application
 * frame).  Two threads, two intervals.  Asserted exactly: the waiting
 * classes' samples and each owner's (libc skipped, the cut stack "[no
 * application frame]"), by span and by thread; the report's line ("MPI
 * 17 %: caller_a 13 %, caller_b 2.8 %, …") and JSON; the flame tree's
 * totals and self samples per node (inlined frames outermost first, names
 * demangled as the folded export's), the order of siblings, the layout of
 * a zoomed node across 100 columns, the search's matches and share (a
 * match under a match once); two files (ranks) added up into one tree;
 * the view drawn into a canvas, zoomed, and its one line without stacks.
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
#include "../../../viewer/analysis/analysis.h"
#include "../../../viewer/model/model.h"
#include "../../../viewer/views/view.h"

#define FL_IV 1000000000LL /* 1 s */

static char fl_path[64];

/* frames: parent, loc */
static const mcz_code_frame frames[] = {
	{MCZ_CODE_ROOT, 0}, /* F0 main */
	{0, 1},             /* F1 main;caller_a */
	{0, 2},             /* F2 main;caller_b */
	{1, 3},             /* F3 ...caller_a;helper;leaf (inlined) */
	{2, 4},             /* F4 ...caller_b;leaf */
	{1, 5},             /* F5 ...caller_a;MPI_Barrier */
	{5, 6},             /* F6 ...MPI_Barrier;opal_progress */
	{2, 7},             /* F7 ...caller_b;[libc.so.6] */
	{7, 5},             /* F8 ...[libc.so.6];MPI_Barrier */
	{0, 8},             /* F9 main;ns::Comm::reverse_comm */
	{9, 9},             /* F10 ...reverse_comm;gomp_barrier_wait */
	{MCZ_CODE_ROOT, 5}, /* F11 MPI_Barrier (a stack cut short) */
};

/* interval, thread, frame, count; sorted */
static const mcz_code_stackhit shits[] = {
	{0, 0, 3, 30}, {0, 0, 4, 10}, {0, 0, 6, 6}, {0, 0, 8, 2}, {0, 0, 10, 4}, {0, 0, 11, 1},
	{0, 1, 3, 15}, {0, 1, 6, 3},
	{1, 0, 3, 30}, {1, 0, 4, 10},
};

static void fl_write(void)
{
	snprintf(fl_path, sizeof fl_path, "/tmp/test-flame-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, fl_path, &o), MCZ_OK);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.cpu.busy";
	d.unit = "%";
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	for (int r = 0; r <= 2; r++) {
		mcz_value v = {.f = 100.0};
		assert_int_equal(mcz_writer_append(w, (int64_t)r * FL_IV, &v, NULL), MCZ_OK);
	}
	static const mcz_code_object objs[] = {
		{"/bin/app", "ab", ""},
		{"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "cd", ""},
		{"/lib/x86_64-linux-gnu/libc.so.6", "ef", ""},
		{"/usr/lib/x86_64-linux-gnu/libgomp.so.1", "01", ""},
	};
	static const mcz_code_loc locs[] = {
		{0, 0x1000, MCZ_CODE_DWARF, "main", "", "app.c", 1},
		{0, 0x1100, MCZ_CODE_DWARF, "caller_a", "", "app.c", 10},
		{0, 0x1200, MCZ_CODE_DWARF, "caller_b", "", "app.c", 20},
		{0, 0x1300, MCZ_CODE_DWARF, "leaf", "helper", "app.c", 30},
		{0, 0x1400, MCZ_CODE_DWARF, "leaf", "", "app.c", 31},
		{1, 0x2000, MCZ_CODE_SYMTAB, "MPI_Barrier", "", "", 0},
		{1, 0x2100, MCZ_CODE_SYMTAB, "opal_progress", "", "", 0},
		{2, 0x3000, MCZ_CODE_ADDR, "", "", "", 0},
		{0, 0x1500, MCZ_CODE_DWARF, "_ZN2ns4Comm12reverse_commEv", "", "app.cc", 40},
		{3, 0x4000, MCZ_CODE_SYMTAB, "gomp_barrier_wait", "", "", 0},
	};
	/* the leaves' hits, per interval (locs increasing), and by thread */
	static const int64_t t[2] = {0, FL_IV};
	static const size_t first[3] = {0, 5, 7};
	static const mcz_code_hit hits[] = {
		{3, 45}, {4, 10}, {5, 3}, {6, 9}, {9, 4}, /* interval 0 */
		{3, 30}, {4, 10},                         /* interval 1 */
	};
	static const mcz_code_thread thr[] = {{10, 10}, {10, 11}};
	static const mcz_code_thit thits[] = {
		{0, 0, 3, 30}, {0, 0, 4, 10}, {0, 0, 5, 3}, {0, 0, 6, 6}, {0, 0, 9, 4},
		{0, 1, 3, 15}, {0, 1, 6, 3},
		{1, 0, 3, 30}, {1, 0, 4, 10},
	};
	mcz_code c = {"cpu-clock", 1000000, FL_IV, "", 4, objs, 10, locs, 2, t, first, 7, hits,
		      0, NULL, 2, thr, 9, thits,
		      sizeof frames / sizeof frames[0], frames,
		      sizeof shits / sizeof shits[0], shits};
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static vw_model *fl_model(size_t nfiles)
{
	fl_write();
	vw_model *m;
	char err[256];
	const char *paths[2] = {fl_path, fl_path};
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, nfiles, &oo, err, sizeof err), 0);
	return m;
}

/* The owner of rank k of class cls is named name with n samples. */
static void owner_is(vw_an *an, const vw_waiting *w, int cls, size_t k, const char *name,
		     uint64_t n)
{
	assert_true(k < w->cls[cls].nowners);
	assert_string_equal(vw_waitowner_name(an, &w->cls[cls].owners[k]), name);
	assert_int_equal(w->cls[cls].owners[k].samples, n);
}

static void test_waitowner(void **state)
{
	(void)state;
	vw_model *m = fl_model(1);
	vw_an *an = vw_an_new(m);
	assert_true(vw_stacktab_has(an));
	vw_waiting w;
	/* interval 0 (middle at 0.5 s): 71 samples */
	assert_int_equal(vw_waitowner_of(an, SIZE_MAX, SIZE_MAX, 0, FL_IV, &w), 0);
	assert_int_equal(w.total, 71);
	assert_int_equal(w.cls[VW_CC_MPI].samples, 12);
	assert_int_equal(w.cls[VW_CC_MPI].nowners, 3);
	owner_is(an, &w, VW_CC_MPI, 0, "caller_a", 9);
	owner_is(an, &w, VW_CC_MPI, 1, "caller_b", 2); /* through libc: libc is no owner */
	owner_is(an, &w, VW_CC_MPI, 2, "[no application frame]", 1);
	assert_true(w.cls[VW_CC_MPI].owners[0].share == 9.0 / 71);
	assert_true(w.cls[VW_CC_MPI].share == 12.0 / 71);
	assert_int_equal(w.cls[VW_CC_SYNC].samples, 4);
	owner_is(an, &w, VW_CC_SYNC, 0, "ns::Comm::reverse_comm", 4);
	char line[256];
	assert_true(vw_waitowner_line(an, &w, VW_CC_MPI, 2, 0, line, sizeof line));
	assert_string_equal(line, "MPI 17 %: caller_a 13 %, caller_b 2.8 %, \u2026");
	assert_true(vw_waitowner_line(an, &w, VW_CC_MPI, 2, 1, line, sizeof line));
	assert_string_equal(line, "MPI 17 %: caller_a 13 %, caller_b 2.8 %, ...");
	assert_true(vw_waitowner_line(an, &w, VW_CC_SYNC, 3, 0, line, sizeof line));
	assert_string_equal(line, "sync 5.6 %: ns::Comm::reverse_comm 5.6 %");
	assert_false(vw_waitowner_line(an, &w, VW_CC_WORK, 3, 0, line, sizeof line));
	char *js = NULL;
	size_t jl = 0;
	FILE *f = open_memstream(&js, &jl);
	vw_waitowner_json(an, &w, 2, f);
	fclose(f);
	assert_string_equal(js, "{\"MPI\": {\"samples\": 12, \"share\": 0.169014, \"owners\": ["
				"{\"name\": \"caller_a\", \"samples\": 9, \"share\": 0.126761}, "
				"{\"name\": \"caller_b\", \"samples\": 2, \"share\": 0.028169}]}, "
				"\"sync\": {\"samples\": 4, \"share\": 0.056338, \"owners\": ["
				"{\"name\": \"ns::Comm::reverse_comm\", \"samples\": 4, \"share\": 0.056338}]}}");
	free(js);
	vw_waitowner_free(&w);
	/* thread 1 alone: 18 samples, 3 in MPI from caller_a */
	assert_int_equal(vw_waitowner_of(an, 0, 1, 0, FL_IV, &w), 0);
	assert_int_equal(w.total, 18);
	assert_int_equal(w.cls[VW_CC_MPI].samples, 3);
	owner_is(an, &w, VW_CC_MPI, 0, "caller_a", 3);
	assert_int_equal(w.cls[VW_CC_SYNC].samples, 0);
	assert_false(vw_waitowner_line(an, &w, VW_CC_SYNC, 3, 0, line, sizeof line));
	assert_string_equal(line, "");
	vw_waitowner_free(&w);
	/* interval 1: no waiting */
	assert_int_equal(vw_waitowner_of(an, SIZE_MAX, SIZE_MAX, FL_IV, 2 * FL_IV, &w), 0);
	assert_int_equal(w.total, 40);
	assert_int_equal(w.cls[VW_CC_MPI].samples + w.cls[VW_CC_SYNC].samples, 0);
	vw_waitowner_free(&w);
	vw_an_free(an);
	vw_model_free(m);
	unlink(fl_path);
}

/* The child of k named name. */
static uint32_t child(const vw_flame *fl, uint32_t k, const char *name)
{
	for (uint32_t c = fl->v[k].child; c != VW_FLAME_NONE; c = fl->v[c].next)
		if (!strcmp(vw_flame_name(fl, c), name))
			return c;
	fail_msg("no frame %s under %s", name, vw_flame_name(fl, k));
	return VW_FLAME_NONE;
}

static void test_flame_tree(void **state)
{
	(void)state;
	vw_model *m = fl_model(1);
	vw_an *an = vw_an_new(m);
	vw_flame fl;
	assert_int_equal(vw_flame_build(an, SIZE_MAX, SIZE_MAX, 0, 2 * FL_IV, &fl), 0);
	assert_int_equal(fl.v[0].total, 111);
	assert_string_equal(vw_flame_name(&fl, 0), "all");
	uint32_t mn = child(&fl, 0, "main"), cut = child(&fl, 0, "MPI_Barrier");
	assert_int_equal(fl.v[mn].total, 110);
	assert_int_equal(fl.v[cut].total, 1);
	assert_int_equal(fl.v[cut].cls, VW_CC_MPI);
	assert_int_equal(fl.v[0].child, mn); /* the heaviest first */
	uint32_t a = child(&fl, mn, "caller_a"), b = child(&fl, mn, "caller_b");
	uint32_t rc = child(&fl, mn, "ns::Comm::reverse_comm");
	assert_int_equal(fl.v[a].total, 84);
	assert_int_equal(fl.v[b].total, 22);
	assert_int_equal(fl.v[rc].total, 4);
	assert_int_equal(fl.v[a].next, b);
	assert_int_equal(fl.v[b].next, rc);
	/* inlined: helper, then leaf */
	uint32_t h = child(&fl, a, "helper"), la = child(&fl, h, "leaf");
	assert_int_equal(fl.v[h].total, 75);
	assert_int_equal(fl.v[h].self, 0);
	assert_int_equal(fl.v[la].self, 75);
	assert_int_equal(fl.v[la].depth, 4);
	uint32_t bar = child(&fl, a, "MPI_Barrier"), op = child(&fl, bar, "opal_progress");
	assert_int_equal(fl.v[bar].total, 9);
	assert_int_equal(fl.v[op].self, 9);
	assert_int_equal(fl.v[op].cls, VW_CC_MPI);
	uint32_t lb = child(&fl, b, "leaf"), libc = child(&fl, b, "[libc.so.6]");
	assert_int_equal(fl.v[lb].self, 20);
	assert_int_equal(fl.v[child(&fl, libc, "MPI_Barrier")].self, 2);
	assert_int_equal(fl.v[child(&fl, rc, "gomp_barrier_wait")].cls, VW_CC_SYNC);
	assert_int_equal(fl.maxdepth, 4);
	/* caller_a zoomed across 100 columns: its callers full, its callees cut
	 * 75:9, the rest outside */
	int x0[64], x1[64];
	assert_true(fl.n <= 64);
	vw_flame_layout(&fl, a, 100, x0, x1);
	assert_true(x0[0] == 0 && x1[0] == 100 && x0[mn] == 0 && x1[mn] == 100);
	assert_true(x0[a] == 0 && x1[a] == 100);
	assert_true(x0[h] == 0 && x1[h] == 89); /* 75 / 84 */
	assert_true(x0[bar] == 89 && x1[bar] == 100);
	assert_true(x0[la] == 0 && x1[la] == 89);
	assert_true(x0[b] == -1 && x0[lb] == -1 && x0[cut] == -1);
	/* the whole tree: main 110 of 111 */
	vw_flame_layout(&fl, 0, 111, x0, x1);
	assert_true(x0[mn] == 0 && x1[mn] == 110 && x0[cut] == 110 && x1[cut] == 111);
	assert_true(x0[b] == 84 && x1[b] == 106);
	/* search: a match under a match once */
	uint8_t mark[64];
	assert_int_equal(vw_flame_search(&fl, "LEAF", mark), 95);
	assert_true(mark[la] && mark[lb] && !mark[h]);
	assert_int_equal(vw_flame_search(&fl, "barrier", mark), 16); /* 9 + 2 + 1 + gomp 4 */
	assert_int_equal(vw_flame_search(&fl, "caller", mark), 106);
	assert_int_equal(vw_flame_search(&fl, "", mark), 0);
	assert_int_equal(vw_flame_child_named(&fl, mn, fl.v[a].name), a);
	vw_flame_free(&fl);
	/* one thread, one span */
	assert_int_equal(vw_flame_build(an, 0, 1, 0, FL_IV, &fl), 0);
	assert_int_equal(fl.v[0].total, 18);
	vw_flame_free(&fl);
	assert_int_equal(vw_flame_build(an, SIZE_MAX, SIZE_MAX, 5 * FL_IV, 6 * FL_IV, &fl), 0);
	assert_int_equal(fl.v[0].total, 0);
	assert_int_equal(fl.n, 1);
	vw_flame_free(&fl);
	vw_an_free(an);
	vw_model_free(m);
	unlink(fl_path);
}

/* Two files (a job's ranks): one tree, the same names one node. */
static void test_flame_ranks(void **state)
{
	(void)state;
	vw_model *m = fl_model(2);
	vw_an *an = vw_an_new(m);
	vw_flame fl;
	assert_int_equal(vw_flame_build(an, SIZE_MAX, SIZE_MAX, INT64_MIN, INT64_MAX, &fl), 0);
	assert_int_equal(fl.v[0].total, 222);
	uint32_t mn = child(&fl, 0, "main"), a = child(&fl, mn, "caller_a");
	assert_int_equal(fl.v[a].total, 168);
	vw_flame_free(&fl);
	assert_int_equal(vw_flame_build(an, 1, SIZE_MAX, INT64_MIN, INT64_MAX, &fl), 0);
	assert_int_equal(fl.v[0].total, 111);
	vw_flame_free(&fl);
	vw_waiting w;
	assert_int_equal(vw_waitowner_of(an, SIZE_MAX, SIZE_MAX, INT64_MIN, INT64_MAX, &w), 0);
	assert_int_equal(w.total, 222);
	owner_is(an, &w, VW_CC_MPI, 0, "caller_a", 18);
	vw_waitowner_free(&w);
	vw_an_free(an);
	vw_model_free(m);
	unlink(fl_path);
}

/* The flame view drawn at 100x12 after keys (actions, VW_ACT_NONE ends). */
static char *fl_render(vw_an *an, const vw_action *keys)
{
	vw_ctx ctx = {.m = an->m, .an = an};
	void *st;
	assert_int_equal(view_flame.init(&ctx, &st), 0);
	vw_canvas *c = vw_canvas_new(100, 12);
	view_flame.draw(&ctx, st, c);
	for (size_t i = 0; keys && keys[i] != VW_ACT_NONE; i++) {
		vw_input in = {.act = keys[i]};
		view_flame.key(&ctx, st, &in);
		view_flame.draw(&ctx, st, c);
	}
	char *txt = vw_canvas_to_text(c);
	vw_canvas_free(c);
	view_flame.free(st);
	return txt;
}

/* The view on the whole run: the icicle's lines, the readout of the
 * frame reached with Down Down Enter (caller_a zoomed: caller_b gone). */
static void test_flame_view(void **state)
{
	(void)state;
	vw_model *m = fl_model(1);
	vw_an *an = vw_an_new(m);
	char *txt = fl_render(an, NULL);
	assert_non_null(strstr(txt, "flame graph of whole run, all threads: 111 samples"));
	assert_non_null(strstr(txt, "\nall "));
	assert_non_null(strstr(txt, "\nmain "));
	assert_non_null(strstr(txt, "\ncaller_a "));
	assert_non_null(strstr(txt, "caller_b"));
	assert_non_null(strstr(txt, "all  total 100.0 % (111 samples)  self 0.0 % (0)"));
	free(txt);
	static const vw_action keys[] = {VW_ACT_DOWN, VW_ACT_DOWN, VW_ACT_ENTER, VW_ACT_NONE};
	txt = fl_render(an, keys);
	assert_non_null(strstr(txt, "caller_a  total 75.7 % (84 samples)  self 0.0 % (0)"));
	assert_null(strstr(txt, "caller_b"));
	assert_non_null(strstr(txt, "\nhelper "));
	free(txt);
	vw_an_free(an);
	vw_model_free(m);
	unlink(fl_path);
}

/* A profile without stacks: nothing to say. */
static void test_no_stacks(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof path, "/tmp/test-flame-none-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, &o), MCZ_OK);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.cpu.busy";
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	mcz_value v = {.f = 1};
	assert_int_equal(mcz_writer_append(w, 0, &v, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_append(w, FL_IV, &v, NULL), MCZ_OK);
	static const mcz_code_object objs[] = {{"/bin/app", "ab", ""}};
	static const mcz_code_loc locs[] = {{0, 0x1000, MCZ_CODE_SYMTAB, "main", "", "", 0}};
	static const int64_t t[1] = {0};
	static const size_t first[2] = {0, 1};
	static const mcz_code_hit hits[] = {{0, 5}};
	mcz_code c = {"cpu-clock", 1000000, FL_IV, "", 1, objs, 1, locs, 1, t, first, 1, hits,
		      0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	vw_model *m;
	char err[256];
	const char *paths[1] = {path};
	vw_open_opts oo = {0};
	oo.quiet = 1;
	assert_int_equal(vw_model_open(&m, paths, 1, &oo, err, sizeof err), 0);
	vw_an *an = vw_an_new(m);
	assert_false(vw_stacktab_has(an));
	vw_waiting wt;
	assert_int_equal(vw_waitowner_of(an, SIZE_MAX, SIZE_MAX, INT64_MIN, INT64_MAX, &wt), -1);
	vw_flame fl;
	assert_int_equal(vw_flame_build(an, SIZE_MAX, SIZE_MAX, INT64_MIN, INT64_MAX, &fl), -1);
	/* the view says how to record them, in one line */
	char *txt = fl_render(an, NULL);
	assert_non_null(strstr(txt, "no call stacks in this recording: record them with mcrec "
				    "--call-graph fp|dwarf -- ./app"));
	free(txt);
	vw_an_free(an);
	vw_model_free(m);
	unlink(path);
}

static void test_runtimes(void **state)
{
	(void)state;
	assert_true(vw_stacktab_runtime("/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(vw_stacktab_runtime("libpthread.so.0"));
	assert_true(vw_stacktab_runtime("/lib64/ld-linux-x86-64.so.2"));
	assert_true(vw_stacktab_runtime("[vdso]"));
	assert_true(vw_stacktab_runtime("[kernel.kallsyms]"));
	assert_false(vw_stacktab_runtime("/usr/bin/lmp"));
	assert_false(vw_stacktab_runtime("/usr/lib/x86_64-linux-gnu/liblammps.so.0"));
	assert_false(vw_stacktab_runtime("libcrypto.so.3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waitowner),
		cmocka_unit_test(test_flame_tree),
		cmocka_unit_test(test_flame_ranks),
		cmocka_unit_test(test_flame_view),
		cmocka_unit_test(test_no_stacks),
		cmocka_unit_test(test_runtimes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
