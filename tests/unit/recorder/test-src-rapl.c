/* test-src-rapl.c: the rapl source's arithmetic (energy counter wrap at
 * max_energy_range_uj, power from energy and time, zone names) and its read
 * path over a powercap tree laid out as the kernel does (this VM has no RAPL,
 * so the tree is made in a temporary folder and MCREC_POWERCAP_DIR points at
 * it): a counter that wraps between two ticks gives the right energy and a
 * total that never goes backwards.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../recorder/sources/mcsrc.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* Intel's usual package range: 2^32 energy units of 61.035 µJ. */
#define RANGE 262143328850ULL

static void test_wrap(void **state)
{
	assert_int_equal(src_rapl_wrap_delta(1000, 5000, RANGE), 4000);
	assert_int_equal(src_rapl_wrap_delta(5000, 5000, RANGE), 0);
	/* wrapped: from 1 000 below the top to 2 500 past zero */
	assert_int_equal(src_rapl_wrap_delta(RANGE - 1000, 2500, RANGE), 3500);
	/* a value above the range means a reset: count from zero */
	assert_int_equal(src_rapl_wrap_delta(RANGE + 10, 700, RANGE), 700);
	/* unknown range: the same */
	assert_int_equal(src_rapl_wrap_delta(9000, 700, 0), 700);
}

static void test_power(void **state)
{
	/* 2.5 J over 100 ms = 25 W */
	assert_near(src_rapl_power_w(2500000, 100000000), 25.0, 1e-9);
	assert_near(src_rapl_power_w(123, 0), 0.0, 0);
	assert_near(src_rapl_power_w(3500, 1000000), 3.5, 1e-9);
}

static void test_zone_kind(void **state)
{
	char k[32];

	assert_int_equal(src_rapl_zone_kind("package-1", k, sizeof k), 1);
	assert_string_equal(k, "package");
	assert_int_equal(src_rapl_zone_kind("dram\n", k, sizeof k), -1);
	assert_string_equal(k, "dram");
	assert_int_equal(src_rapl_zone_kind("Core Zone", k, sizeof k), -1);
	assert_string_equal(k, "core_zone");
	assert_int_equal(src_rapl_zone_kind("", k, sizeof k), -1);
	assert_string_equal(k, "zone");
}

static char root[] = "/tmp/test-src-rapl-XXXXXX";

static void put(const char *zone, const char *file, const char *val)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, zone);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/%s", root, zone, file);
	assert_non_null(f = fopen(p, "w"));
	fputs(val, f);
	fclose(f);
}

static void test_read_wraps(void **state)
{
	rec_source s;
	rec_ctx c;
	mcz_value v[4];
	uint8_t pr[4];
	char buf[64];
	struct timespec nap = { 0, 20000000 };

	assert_non_null(mkdtemp(root));
	snprintf(buf, sizeof buf, "%llu\n", RANGE);
	put("intel-rapl:0", "name", "package-0\n");
	put("intel-rapl:0", "max_energy_range_uj", buf);
	snprintf(buf, sizeof buf, "%llu\n", RANGE - 1000000);
	put("intel-rapl:0", "energy_uj", buf);
	put("intel-rapl:0:0", "name", "dram\n");
	put("intel-rapl:0:0", "max_energy_range_uj", "65532610987\n");
	put("intel-rapl:0:0", "energy_uj", "1000\n");
	put("intel-rapl-mmio:0", "name", "package-0\n"); /* not a zone we take */
	setenv("MCREC_POWERCAP_DIR", root, 1);

	memset(&s, 0, sizeof s);
	memset(&c, 0, sizeof c);
	c.node_streams = 1;
	c.groups = REC_G_POWER;
	assert_int_equal(src_rapl_ops.probe(&s, &c), 0);
	assert_int_equal(src_rapl_ops.start(&s, &c), 0);
	assert_int_equal(src_rapl_ops.read(&s, v, pr), 0);
	/* first tick: energy totals start at 0, no power yet */
	assert_int_equal(pr[0], 0);
	assert_int_equal(pr[1], 1);
	assert_int_equal(v[1].u, 0);

	nanosleep(&nap, NULL);
	put("intel-rapl:0", "energy_uj", "1500000\n"); /* wrapped: +2.5 J */
	put("intel-rapl:0:0", "energy_uj", "401000\n"); /* +0.4 J */
	assert_int_equal(src_rapl_ops.read(&s, v, pr), 0);
	assert_int_equal(pr[0], 1);
	assert_int_equal(v[1].u, 2500000);
	assert_int_equal(v[3].u, 400000);
	/* 2.5 J over ~20 ms (a loaded machine sleeps longer: bound it) */
	assert_true(v[0].f > 10.0 && v[0].f <= 2.5 / 0.020 + 1e-6);
	assert_near(v[2].f / v[0].f, 0.4 / 2.5, 1e-9);

	src_rapl_ops.free(&s);
	unsetenv("MCREC_POWERCAP_DIR");
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_none_here(void **state)
{
	rec_source s;
	rec_ctx c;

	memset(&s, 0, sizeof s);
	memset(&c, 0, sizeof c);
	c.node_streams = 1;
	setenv("MCREC_POWERCAP_DIR", "/nonexistent-powercap", 1);
	assert_int_equal(src_rapl_ops.probe(&s, &c), -1);
	assert_non_null(strstr(s.why, "powercap"));
	assert_true(s.fix[0] != '\0');
	assert_int_equal(s.absent, 1); /* nothing wrong: no RAPL here */
	unsetenv("MCREC_POWERCAP_DIR");

	/* not the node's first recorder: left to it, quietly, even if named */
	memset(&s, 0, sizeof s);
	s.fatal = 1;
	c.node_streams = 0;
	assert_int_equal(src_rapl_ops.probe(&s, &c), -1);
	assert_non_null(strstr(s.why, "node-wide"));
	assert_int_equal(s.fatal, 0);
	assert_int_equal(s.absent, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap),       cmocka_unit_test(test_power),     cmocka_unit_test(test_zone_kind),
		cmocka_unit_test(test_read_wraps), cmocka_unit_test(test_none_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
