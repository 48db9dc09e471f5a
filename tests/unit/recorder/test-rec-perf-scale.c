/* test-rec-perf-scale.c: perf reads -> counts (recorder/sources/perf/perf-scale.c):
 * perf stat's multiplexing correction, a task counted on several CPUs, and
 * reads that failed or estimates that do not fit, which are no reading
 * rather than a wrapped count (UBSan caught one in make check SAN=1: a failed
 * fd's UINT64_MAX times in the sum made the factor ~1e19). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../../recorder/sources/perf/perf-scale.h"

#define NONE UINT64_MAX

static void test_not_multiplexed(void **state)
{
	/* a task on 2 CPUs: enabled 1 s on both, running 0.6 + 0.4 s */
	const uint64_t raw[2][3] = {{600, 1000000000, 600000000}, {400, 1000000000, 400000000}};
	assert_true(src_perf_task_factor(raw, 2) == 1.0);
	uint64_t c;
	assert_int_equal(src_perf_scaled(raw[0], 1.0, &c), 0);
	assert_int_equal(c, 600);
}

static void test_multiplexed(void **state)
{
	/* the sum of running times is half of enabled: counts x 2 */
	const uint64_t raw[2][3] = {{300, 1000000000, 300000000}, {200, 1000000000, 200000000}};
	double f = src_perf_task_factor(raw, 2);
	assert_true(f > 1.999 && f < 2.001);
	uint64_t c;
	assert_int_equal(src_perf_scaled(raw[0], f, &c), 0);
	assert_int_equal(c, 600);
	/* system-wide: each fd alone, enabled / running */
	const uint64_t sys[3] = {1000, 400, 100};
	assert_int_equal(src_perf_scaled(sys, 0, &c), 0);
	assert_int_equal(c, 4000);
}

static void test_failed_read(void **state)
{
	/* one fd failed: its times are left out, the other's factor is 1 */
	const uint64_t raw[2][3] = {{NONE, NONE, NONE}, {500, 1000000000, 1000000000}};
	assert_true(src_perf_task_factor(raw, 2) == 1.0);
	uint64_t c = 7;
	assert_int_equal(src_perf_scaled(raw[0], 1.0, &c), -1);
	assert_int_equal(c, 7);
	assert_int_equal(src_perf_scaled(raw[1], 1.0, &c), 0);
	assert_int_equal(c, 500);
	const uint64_t none[1][3] = {{NONE, NONE, NONE}};
	assert_true(src_perf_task_factor(none, 1) == 1.0);
}

static void test_too_large(void **state)
{
	/* ran 1 ns of 10 s: the estimate would be 1e28 */
	const uint64_t sys[3] = {1000000000000000000ull, 10000000000ull, 1};
	uint64_t c = 7;
	assert_int_equal(src_perf_scaled(sys, 0, &c), -1);
	assert_int_equal(c, 7);
	const uint64_t big[3] = {UINT64_MAX - 1, 2, 1};
	assert_int_equal(src_perf_scaled(big, 0, &c), -1);
	assert_int_equal(src_perf_scaled(big, 1e300, &c), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_multiplexed),
		cmocka_unit_test(test_multiplexed),
		cmocka_unit_test(test_failed_read),
		cmocka_unit_test(test_too_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
