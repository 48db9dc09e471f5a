/* tmpdir.h: a private temporary folder for a cmocka test group — created
 * by the group's setup, removed with its files by the teardown.
 *
 *     TMPDIR_FIXTURE("mcz-test-phase")       // static char dir[64]; setup; teardown
 *     snprintf(path, sizeof path, "%s/run.mcz", dir);
 *     cmocka_run_group_tests(tests, setup, teardown);
 */
#ifndef TEST_TMPDIR_H
#define TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

#define TMPDIR_FIXTURE(PREFIX)                                              \
	static char dir[64];                                                \
	static int setup(void **st)                                         \
	{                                                                   \
		snprintf(dir, sizeof dir, "/tmp/" PREFIX "-XXXXXX");        \
		return mkdtemp(dir) ? 0 : -1;                               \
	}                                                                   \
	static int teardown(void **st)                                      \
	{                                                                   \
		char cmd[128];                                              \
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);                \
		return system(cmd) == 0 ? 0 : -1;                           \
	}

#endif
