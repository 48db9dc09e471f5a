/* test-model-job.c: the one rule of what a parallel job is
 * (vw_model_is_job, viewer/model/model.c): two files or more, one of
 * which carries a rank; the rows of a job are folded at open
 * (m->fold_ranks), and nothing else is a job. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../viewer/model/model.h"
#include "../view-fixture.h"

/* the rank each file carries: NULL none, "" an empty one */
static const char *const rank[] = {"0", "1", NULL, ""};
#define NFILES (sizeof rank / sizeof *rank)
static char path[NFILES][64];

/* File i, written the first time it is asked for. */
static const char *file(size_t i)
{
	if (!path[i][0]) {
		snprintf(path[i], sizeof path[i], "/tmp/mcz-test-job-%d-%zu.mcz", (int)getpid(), i);
		assert_int_equal(fx_write(path[i], 1700000000000000000LL, rank[i]), 0);
	}
	return path[i];
}

static int teardown(void **st)
{
	(void)st;
	for (size_t i = 0; i < NFILES; i++)
		if (path[i][0])
			unlink(path[i]);
	return 0;
}

/* Whether the model of files a and b (b < 0: a alone) is a job; its rows
 * folded as it says. */
static int job_of(int a, int b)
{
	vw_model *m;
	char err[256];
	const char *p[2] = {file((size_t)a), b >= 0 ? file((size_t)b) : NULL};
	assert_int_equal(vw_model_open(&m, p, b >= 0 ? 2 : 1, NULL, err, sizeof err), 0);
	int job = vw_model_is_job(m);
	assert_int_equal(m->fold_ranks, job);
	vw_model_free(m);
	return job;
}

static void ranks_make_a_job(void **st)
{
	(void)st;
	assert_true(job_of(0, 1));  /* rank 0 and rank 1 */
	assert_true(job_of(0, 2));  /* a rank, and a file without one */
	assert_true(job_of(3, 1));  /* an empty rank beside a rank */
}

static void no_job_without_ranks(void **st)
{
	(void)st;
	assert_false(job_of(0, -1)); /* one file, even a rank's */
	assert_false(job_of(2, 2));  /* two files without a rank */
	assert_false(job_of(3, 3));  /* an empty rank is none */
	assert_false(job_of(2, 3));
	assert_false(vw_model_is_job(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranks_make_a_job),
		cmocka_unit_test(no_job_without_ranks),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
