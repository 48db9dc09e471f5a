/* test-rec-perf-event.c: perf event names -> perf_event_attr fields
 * (recorder/sources/perf/perf-event.c): perf's generic names and aliases, raw
 * rNNNN, and PMU events described in sysfs, on a fixture tree
 * (tests/data/rec-sysfs: two Intel-style uncore_imc boxes with cpumask,
 * scale and unit, and a core PMU with multi-range formats); bad names each
 * get their own message.  This is what the recorder asks the kernel for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "../../../recorder/source.h"
#include "../../../recorder/sources/perf/perf-event.h"

#define FIX "tests/data/rec-sysfs"

static void test_generic(void **state)
{
	src_perf_ev ev;
	char err[256];
	assert_int_equal(src_perf_event_parse("instructions", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.type, PERF_TYPE_HARDWARE);
	assert_int_equal(ev.config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_true(ev.hw);
	assert_string_equal(ev.stream, "core.instructions");
	assert_int_equal(src_perf_event_parse("cs", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_false(ev.hw);
	assert_int_equal(src_perf_event_parse("LLC-load-misses", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(ev.config, PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
					    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	assert_int_equal(src_perf_event_parse("task-clock", FIX, &ev, err, sizeof err), 0);
	assert_true(ev.scale == 1e-9);
	assert_string_equal(ev.unit, "s");
	assert_int_equal(src_perf_event_parse("r1a8", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.type, PERF_TYPE_RAW);
	assert_int_equal(ev.config, 0x1a8);
}

static void test_uncore_alias(void **state)
{
	src_perf_ev ev;
	char err[256];
	assert_int_equal(src_perf_event_parse("uncore_imc_0/cas_count_read/", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.type, 17);
	assert_int_equal(ev.config, 0x0304);
	assert_true(ev.scale == 6.103515625e-5);
	assert_string_equal(ev.unit, "MiB");
	assert_true(ev.uncore);
	assert_int_equal(ev.ncpus, 2);
	assert_int_equal(ev.cpus[0], 0);
	assert_int_equal(ev.cpus[1], 28);
	assert_string_equal(ev.stream, "pmu.uncore_imc_0.cas_count_read");
}

static void test_terms(void **state)
{
	src_perf_ev ev;
	char err[256];
	assert_int_equal(src_perf_event_parse("cpu/event=0x3c,umask=0x01,cmask=2,edge/", FIX, &ev, err,
					      sizeof err), 0);
	assert_int_equal(ev.type, 4);
	assert_int_equal(ev.config, 0x3cULL | 1ULL << 8 | 1ULL << 18 | 2ULL << 24);
	assert_false(ev.uncore);
	/* An alias plus a term split over two bit ranges of config1. */
	assert_int_equal(src_perf_event_parse("cpu/mem-loads,ldlat=0x10003/", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.config, 0x81d0);
	assert_int_equal(ev.config1, 3ULL | 1ULL << 32);
	assert_int_equal(src_perf_event_parse("cpu/config=0x1234,config1=5/", FIX, &ev, err, sizeof err), 0);
	assert_int_equal(ev.config, 0x1234);
	assert_int_equal(ev.config1, 5);
}

static void test_errors(void **state)
{
	src_perf_ev ev;
	char err[256];
	assert_int_equal(src_perf_event_parse("nosuch/x/", FIX, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown PMU 'nosuch'"));
	assert_int_equal(src_perf_event_parse("cpu/nosuch/", FIX, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "no event or term 'nosuch'"));
	assert_int_equal(src_perf_event_parse("cpu/event=zz/", FIX, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad value 'zz'"));
	assert_int_equal(src_perf_event_parse("cpu/event=1", FIX, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "expected PMU/event/"));
	assert_int_equal(src_perf_event_parse("/x/", FIX, &ev, err, sizeof err), -1);
	assert_int_equal(src_perf_event_parse("instructionz", FIX, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown perf event 'instructionz'"));
	char lng[300];
	memset(lng, 'a', sizeof lng - 1);
	lng[sizeof lng - 1] = '\0';
	assert_int_equal(src_perf_event_parse(lng, FIX, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "too long"));
}

static void test_imc(void **state)
{
	src_perf_ev rd[8], wr[8];
	assert_int_equal(src_perf_event_imc(FIX, rd, wr, 8), 2);
	assert_int_equal(rd[0].type, 17);
	assert_int_equal(rd[1].type, 18);
	assert_int_equal(rd[1].config, 0x0304);
	assert_int_equal(wr[1].config, 0x0c04);
	assert_int_equal(src_perf_event_imc("tests/data/nonexistent", rd, wr, 8), 0);
}

/* What the perf source asks the kernel for (as perf's tests/shell/attr). */
static void test_attr(void **state)
{
	src_perf_ev ev;
	struct perf_event_attr a;
	char err[256];
	assert_int_equal(src_perf_event_parse("uncore_imc_1/cas_count_write/", FIX, &ev, err, sizeof err), 0);
	/* Counting the command: a group leader waits for exec, inherits. */
	src_perf_event_attr(&ev, 1, 1, 1, 1, &a);
	assert_int_equal(a.size, sizeof a);
	assert_int_equal(a.type, 18);
	assert_int_equal(a.config, 0x0c04);
	assert_true(a.inherit && a.disabled && a.enable_on_exec);
	assert_int_equal(a.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP);
	assert_false(a.sample_period || a.sample_type || a.exclude_kernel || a.pinned);
	/* A member follows its leader: neither disabled nor waiting. */
	src_perf_event_attr(&ev, 1, 1, 0, 1, &a);
	assert_true(a.inherit);
	assert_false(a.disabled || a.enable_on_exec);
	/* System-wide (-a, uncore): counts now, no inherit, single read. */
	src_perf_event_attr(&ev, 0, 0, 1, 0, &a);
	assert_false(a.inherit || a.disabled || a.enable_on_exec);
	assert_int_equal(a.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_false(a.exclude_kernel || a.exclude_hv);
	/* An unprivileged user's fallback: user space only, like perf's :u. */
	ev.user_only = 1;
	src_perf_event_attr(&ev, 1, 1, 1, 0, &a);
	assert_true(a.exclude_kernel && a.exclude_hv);
	assert_false(a.exclude_user);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic), cmocka_unit_test(test_uncore_alias),
		cmocka_unit_test(test_terms),   cmocka_unit_test(test_errors),
		cmocka_unit_test(test_imc),     cmocka_unit_test(test_attr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
