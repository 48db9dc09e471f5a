/* test-codeclass.c: the rules that tell work from waiting in a code sample
 * (viewer/analysis/code/codeclass.c): the built-in table on the objects real MPI
 * libraries install (Open MPI, MPICH, Intel MPI, UCX, libfabric, verbs
 * providers, PMIx) and on OpenMP runtimes; functions of a statically linked
 * MPI; the user's rules first, with lines that do not parse left out and
 * named; a FIFO in place of the user's file read without blocking; the
 * rules printed as `mcview --code-classes` prints them, the user's first,
 * read back as the same rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../viewer/analysis/code/codeclass.h"

static void test_defaults(void **state)
{
	(void)state;
	vw_codeclass *cc = vw_codeclass_parse(NULL, 0, NULL);
	assert_non_null(cc);
	static const struct {
		const char *obj, *fn;
		int cls;
	} cases[] = {
		{"/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4", "ompi_request_default_test", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2", "opal_progress", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so", "", VW_CC_MPI},
		{"/opt/intel/mpi/lib/release/libmpi.so.12", "MPIDI_Progress_test", VW_CC_MPI},
		{"/opt/cray/pe/lib64/libmpi_cray.so.12", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libmpich.so.12.1.10", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libucp.so.0.0.0", "ucp_worker_progress", VW_CC_MPI},
		{"/usr/lib/ucx/libuct_ib.so.0", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libfabric.so.1", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libfabric/libpsmx2-fi.so", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2.6.2", "", VW_CC_MPI},
		{"/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0", "", VW_CC_SYNC},
		{"/usr/lib/llvm-14/lib/libomp.so.5", "__kmp_wait_template", VW_CC_SYNC},
		/* a statically linked MPI and OpenMP: by the function */
		{"/home/u/app", "PMPI_Allreduce", VW_CC_MPI},
		{"/home/u/app", "mpi_allreduce_", VW_CC_MPI},
		{"/home/u/app", "gomp_team_barrier_wait_end", VW_CC_SYNC},
		/* work: the application, its BLAS, libc, and names that only look alike */
		{"/usr/bin/hpcc", "", VW_CC_WORK},
		{"/usr/lib/x86_64-linux-gnu/libblas.so.3.11.0", "dgemm_", VW_CC_WORK},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", "__memcpy_avx512_unaligned_erms", VW_CC_WORK},
		{"/home/u/app", "compute_mpi_grid", VW_CC_WORK},
		{"/home/u/libmpix.so", "", VW_CC_WORK},
		{"[unknown]", NULL, VW_CC_WORK},
		{NULL, NULL, VW_CC_WORK},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int k = vw_codeclass_of(cc, cases[i].obj, cases[i].fn);
		if (k != cases[i].cls)
			fail_msg("%s %s: class %d, want %d", cases[i].obj ? cases[i].obj : "(null)",
				 cases[i].fn ? cases[i].fn : "(null)", k, cases[i].cls);
	}
	assert_string_equal(vw_codeclass_note(cc), "");
	assert_string_equal(vw_codeclass_name(VW_CC_MPI), "MPI");
	vw_codeclass_free(cc);
}

static void test_user_rules(void **state)
{
	(void)state;
	const char rules[] = "# my site's rules\n"
			     "work  libmpi.so*  my_reduce_kernel   # runs in MPI's library, is work\n"
			     "mpi   myapp  halo_wait*\n"
			     "Sync  libtbb.so*\n"
			     "idle  libfoo.so*\n"
			     "mpi\n"
			     "mpi a b c\n";
	vw_codeclass *cc = vw_codeclass_parse(rules, sizeof rules - 1, "rules");
	assert_non_null(cc);
	assert_int_equal(vw_codeclass_of(cc, "/l/libmpi.so.40", "my_reduce_kernel"), VW_CC_WORK);
	assert_int_equal(vw_codeclass_of(cc, "/l/libmpi.so.40", "opal_progress"), VW_CC_MPI);
	assert_int_equal(vw_codeclass_of(cc, "/x/myapp", "halo_wait_all"), VW_CC_MPI);
	assert_int_equal(vw_codeclass_of(cc, "/x/myapp", "halo_pack"), VW_CC_WORK);
	assert_int_equal(vw_codeclass_of(cc, "/l/libtbb.so.12", "x"), VW_CC_SYNC);
	/* the three bad lines, each named, none taken */
	const char *note = vw_codeclass_note(cc);
	assert_non_null(strstr(note, "rules:5: unknown class \"idle\""));
	assert_non_null(strstr(note, "rules:6: want CLASS OBJECT [FUNCTION]"));
	assert_non_null(strstr(note, "rules:7: want CLASS OBJECT [FUNCTION]"));
	assert_int_equal(vw_codeclass_of(cc, "/l/libfoo.so.1", ""), VW_CC_WORK);
	vw_codeclass_free(cc);
}

/* The rules in effect as text (vw_codeclass_rule), parsed again: the same
 * lines, the user's before the built-in table's. */
static void test_rules_text(void **state)
{
	(void)state;
	const char rules[] = "work libmpi.so* my_reduce_kernel\nsync libtbb.so*\nidle x\n";
	vw_codeclass *cc = vw_codeclass_parse(rules, sizeof rules - 1, "rules");
	vw_codeclass *dflt = vw_codeclass_parse(NULL, 0, NULL);
	assert_non_null(cc);
	assert_non_null(dflt);
	static char text[1 << 16];
	char line[1100];
	size_t n = 0, at = 0;
	for (; vw_codeclass_rule(cc, n, line, sizeof line) == 0; n++)
		at += (size_t)snprintf(text + at, sizeof text - at, "%s\n", line);
	assert_true(at < sizeof text);
	assert_int_equal(vw_codeclass_rule(cc, 0, line, sizeof line), 0);
	assert_string_equal(line, "work  libmpi.so*  my_reduce_kernel");
	assert_int_equal(vw_codeclass_rule(cc, 1, line, sizeof line), 0);
	assert_string_equal(line, "sync  libtbb.so*");
	assert_int_equal(vw_codeclass_rule(cc, 2, line, sizeof line), 0);
	assert_string_equal(line, "mpi   libmpi.so*"); /* the built-in table's first */
	size_t nd = 0;
	while (vw_codeclass_rule(dflt, nd, line, sizeof line) == 0)
		nd++;
	assert_int_equal(n, 2 + nd);
	/* read back (the built-in rules once more after them): the same lines */
	vw_codeclass *again = vw_codeclass_parse(text, at, "printed");
	assert_non_null(again);
	assert_string_equal(vw_codeclass_note(again), "");
	char l2[1100];
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(vw_codeclass_rule(cc, i, line, sizeof line), 0);
		assert_int_equal(vw_codeclass_rule(again, i, l2, sizeof l2), 0);
		assert_string_equal(line, l2);
	}
	assert_int_equal(vw_codeclass_rule(cc, n, line, sizeof line), -1);
	vw_codeclass_free(again);
	vw_codeclass_free(dflt);
	vw_codeclass_free(cc);
}

static void test_load(void **state)
{
	(void)state;
	char dir[64], path[96];
	snprintf(dir, sizeof dir, "/tmp/test-codeclass-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof path, "%s/code-classes", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("mpi  mylib.so  *\n", f);
	fclose(f);
	setenv("MCZ_CODE_CLASSES", path, 1);
	vw_codeclass *cc = vw_codeclass_load();
	assert_int_equal(vw_codeclass_of(cc, "/a/mylib.so", "f"), VW_CC_MPI);
	assert_int_equal(vw_codeclass_of(cc, "/a/libmpi.so.1", "f"), VW_CC_MPI);
	vw_codeclass_free(cc);
	/* $XDG_CONFIG_HOME/mcz/code-classes without the variable */
	unsetenv("MCZ_CODE_CLASSES");
	char xdg[96];
	snprintf(xdg, sizeof xdg, "%s/mcz", dir);
	assert_int_equal(mkdir(xdg, 0700), 0);
	snprintf(xdg, sizeof xdg, "%s/mcz/code-classes", dir);
	assert_int_equal(rename(path, xdg), 0);
	setenv("XDG_CONFIG_HOME", dir, 1);
	cc = vw_codeclass_load();
	assert_int_equal(vw_codeclass_of(cc, "/a/mylib.so", "f"), VW_CC_MPI);
	assert_string_equal(vw_codeclass_note(cc), "");
	vw_codeclass_free(cc);
	/* a FIFO in its place: not read (a read would block), one note */
	assert_int_equal(unlink(xdg), 0);
	assert_int_equal(mkfifo(xdg, 0600), 0);
	cc = vw_codeclass_load();
	assert_non_null(strstr(vw_codeclass_note(cc), "not a regular file"));
	assert_int_equal(vw_codeclass_of(cc, "/a/mylib.so", "f"), VW_CC_WORK);
	vw_codeclass_free(cc);
	/* the variable naming a missing file: the built-in rules, and a note */
	setenv("MCZ_CODE_CLASSES", "/nonexistent/code-classes", 1);
	cc = vw_codeclass_load();
	assert_non_null(strstr(vw_codeclass_note(cc), "cannot be read"));
	assert_int_equal(vw_codeclass_of(cc, "/l/libmpi.so.40", ""), VW_CC_MPI);
	vw_codeclass_free(cc);
	unsetenv("MCZ_CODE_CLASSES");
	unsetenv("XDG_CONFIG_HOME");
	unlink(xdg);
	snprintf(xdg, sizeof xdg, "%s/mcz", dir);
	rmdir(xdg);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_user_rules),
		cmocka_unit_test(test_rules_text),
		cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
