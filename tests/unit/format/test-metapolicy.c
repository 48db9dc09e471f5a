/* test-metapolicy.c: the writer's size policy for the pending metadata
 * (format/container/metapolicy.c), rule by rule at and around each
 * threshold: the trial level, the raw-STREAMS screen, the choice of
 * COLSTREAMS, packing again at the metadata level, and when a BUNDLE is
 * kept.  The writer's whole choice over real archives is covered by the
 * import tests; here each rule's edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../../format/container/metapolicy.h"
#include "../../../format/internal.h"

static void test_trial_level(void **state)
{
	(void)state;
	/* under 4 KiB, or a metadata level no harder than 9: no trial */
	assert_int_equal(mcz_metapol_trial_level(4095, 19), 0);
	assert_int_equal(mcz_metapol_trial_level(4096, 19), 9);
	assert_int_equal(mcz_metapol_trial_level(1 << 20, 15), 9);
	assert_int_equal(mcz_metapol_trial_level(1 << 20, 9), 0);
	assert_int_equal(mcz_metapol_trial_level(1 << 20, 3), 0);
}

static void test_close(void **state)
{
	(void)state;
	assert_true(mcz_metapol_close(800, 800));
	assert_true(mcz_metapol_close(700, 800)); /* 700 * 8 == 800 * 7 */
	assert_true(mcz_metapol_close(800, 700));
	assert_false(mcz_metapol_close(699, 800));
	assert_false(mcz_metapol_close(800, 699));
	assert_true(mcz_metapol_close(0, 0));
}

static void test_raw_streams(void **state)
{
	(void)state;
	/* COLSTREAMS for the file: 1.3, bodies within 128 times their packed
	 * size, and both within the readers' bounds */
	assert_true(mcz_metapol_raw_ok(3, 128 * 100, 100, 128 * 90, 90, 1));
	assert_false(mcz_metapol_raw_ok(2, 1000, 100, 1000, 100, 1));
	assert_false(mcz_metapol_raw_ok(3, 128 * 100 + 1, 100, 1000, 100, 1));
	assert_false(mcz_metapol_raw_ok(3, 1000, 100, 128 * 90 + 1, 90, 1));
	assert_false(mcz_metapol_raw_ok(3, 1000, 100, 1000, 100, 0));
	/* sure: a MiB of STREAMS, or eight times the larger COLSTREAMS body */
	assert_true(mcz_metapol_raw_sure(1 << 20, 1 << 19, 1 << 19));
	assert_true(mcz_metapol_raw_sure(8000, 1000, 900));
	assert_true(mcz_metapol_raw_sure(8007, 1000, 1000)); /* 8007 / 8 == 1000 */
	assert_false(mcz_metapol_raw_sure(7999, 900, 1000));
	/* the level-1 screen: from 64 KiB, losing at 4 times COLSTREAMS */
	assert_false(mcz_metapol_screen_tries((64 << 10) - 1));
	assert_true(mcz_metapol_screen_tries(64 << 10));
	assert_true(mcz_metapol_screen_loses(4000, 1000));
	assert_false(mcz_metapol_screen_loses(3999, 1000));
}

static void test_again(void **state)
{
	(void)state;
	/* packed again when the other is not an eighth smaller */
	assert_true(mcz_metapol_again(800, 700));
	assert_false(mcz_metapol_again(800, 699));
	assert_true(mcz_metapol_again(700, 800));
}

static void test_cols(void **state)
{
	(void)state;
	/* COLSTREAMS from 1.3, when it saves 1 KiB, fits, and its body is
	 * within 256 times its packed size and 64 KiB */
	assert_true(mcz_metapol_cols(3, 1000, 2024, 5000, 1));
	assert_false(mcz_metapol_cols(3, 1000, 2023, 5000, 1));
	assert_false(mcz_metapol_cols(2, 1000, 9000, 5000, 1));
	assert_false(mcz_metapol_cols(3, 1000, 9000, 5000, 0));
	assert_true(mcz_metapol_cols(3, 1000, 9000, 256 * 1000 + 65536, 1));
	assert_false(mcz_metapol_cols(3, 1000, 9000, 256 * 1000 + 65537, 1));
}

static void test_bundle(void **state)
{
	(void)state;
	/* STREAMS' BUNDLE skipped where COLSTREAMS is chosen and packed half
	 * as small again */
	assert_true(mcz_metapol_bundle_skip_rows(1, 1, 10, 1501, 1000));
	assert_false(mcz_metapol_bundle_skip_rows(1, 1, 10, 1500, 1000));
	assert_false(mcz_metapol_bundle_skip_rows(0, 1, 10, 9000, 1000));
	assert_false(mcz_metapol_bundle_skip_rows(1, 0, 10, 9000, 1000));
	assert_false(mcz_metapol_bundle_skip_rows(1, 1, 0, 9000, 1000));
	/* kept: smaller than apart with its framing, and than the best */
	assert_true(mcz_metapol_bundle_keeps(0, 1000 - MCZ_BLOCK_OVERHEAD - 1, 1000, 0, 0));
	assert_false(mcz_metapol_bundle_keeps(0, 1000 - MCZ_BLOCK_OVERHEAD, 1000, 0, 0));
	assert_true(mcz_metapol_bundle_keeps(1, 5000, 1000, 0, 0)); /* trial: kept */
	assert_true(mcz_metapol_bundle_keeps(1, 499, 1000, 1, 500));
	assert_false(mcz_metapol_bundle_keeps(1, 500, 1000, 1, 500));
	assert_true(mcz_metapol_bundle_wins(1000 - MCZ_BLOCK_OVERHEAD - 1, 1000));
	assert_false(mcz_metapol_bundle_wins(1000 - MCZ_BLOCK_OVERHEAD, 1000));
	assert_false(mcz_metapol_large((1 << 20) - 1));
	assert_true(mcz_metapol_large(1 << 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trial_level), cmocka_unit_test(test_close),
	    cmocka_unit_test(test_raw_streams), cmocka_unit_test(test_again),
	    cmocka_unit_test(test_cols),	cmocka_unit_test(test_bundle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
