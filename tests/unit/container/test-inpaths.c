/* test-inpaths.c: the words of a command line made into recordings' paths
 * (format/container/inpaths.c): a folder's .mcz files in number order
 * (run.9.mcz before run.10.mcz; hidden files, other names, subfolders and
 * dangling links left out; a trailing '/' not doubled), an @list with
 * comments, blanks, CRLF, a folder and another list in it, "@-" from
 * standard input, a file whose name starts with '@'; refused in one line
 * naming the path: an empty folder, a folder of other files, a folder of PCP
 * archives (naming the base name that opens one, or kept whole with
 * MCZ_INPATHS_PCP_DIR), a list that is not there (alone and named in a
 * list, with its line), a list of comments only, a list naming itself.
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

#include "../tmpdir.h"

#include "../../../format/mcz.h"

TMPDIR_FIXTURE("mcz-test-inpaths")

static void ip_file(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void ip_mkdir(const char *rel)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

/* Expand one word (printf-style, so that it may name the folder). */
__attribute__((format(printf, 3, 4))) static int ip_expand(unsigned flags, char ***p,
							   const char *fmt, ...)
{
	char w[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w, sizeof w, fmt, ap);
	va_end(ap);
	const char *words[] = {w};
	size_t n;
	int rc = mcz_inpaths_expand(words, 1, flags, p, &n);
	if (rc == MCZ_OK) {
		assert_non_null(*p);
		assert_null((*p)[n]);
	} else
		assert_null(*p);
	return rc;
}

/* The paths, each with the folder's name replaced by "D", one a line. */
static char *ip_text(char **p)
{
	static char buf[4096];
	size_t dl = strlen(dir), u = 0;
	buf[0] = '\0';
	for (size_t i = 0; p[i]; i++) {
		const char *s = p[i];
		if (!strncmp(s, dir, dl)) {
			u += (size_t)snprintf(buf + u, sizeof buf - u, "D");
			s += dl;
		}
		u += (size_t)snprintf(buf + u, sizeof buf - u, "%s\n", s);
	}
	return buf;
}

static void test_folder_in_number_order(void **state)
{
	(void)state;
	ip_mkdir("ranks");
	static const char *const made[] = {"run.10.mcz",  "run.9.mcz",	"run.0.mcz",
					   "run.100.mcz", "run.1.mcz",	"run.2.mcz",
					   "notes.txt",	  ".run.3.mcz", "run.mcz.old"};
	for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "ranks/%s", made[i]);
		ip_file(rel, "x");
	}
	ip_mkdir("ranks/sub.mcz"); /* a folder, not a recording */
	char p[256], t[256];
	snprintf(p, sizeof p, "%s/ranks/link.mcz", dir);
	assert_int_equal(symlink("run.0.mcz", p), 0);
	snprintf(p, sizeof p, "%s/ranks/gone.mcz", dir);
	assert_int_equal(symlink("nosuch.mcz", p), 0);
	char **v;
	assert_int_equal(ip_expand(0, &v, "%s/ranks", dir), MCZ_OK);
	assert_string_equal(ip_text(v), "D/ranks/link.mcz\nD/ranks/run.0.mcz\nD/ranks/run.1.mcz\n"
					"D/ranks/run.2.mcz\nD/ranks/run.9.mcz\nD/ranks/run.10.mcz\n"
					"D/ranks/run.100.mcz\n");
	mcz_inpaths_free(v);
	assert_int_equal(ip_expand(0, &v, "%s/ranks/", dir), MCZ_OK);
	snprintf(t, sizeof t, "%s/ranks/run.0.mcz", dir);
	assert_string_equal(v[1], t);
	mcz_inpaths_free(v);
	/* words that are not folders or lists: as they are */
	const char *words[] = {"nosuch.mcz", "job.mcz:run.1.mcz", "ssh://h/run.*.mcz", "@"};
	size_t n;
	assert_int_equal(mcz_inpaths_expand(words, 4, 0, &v, &n), MCZ_OK);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], words[i]);
	mcz_inpaths_free(v);
	assert_int_equal(mcz_inpaths_expand(NULL, 0, 0, &v, &n), MCZ_OK);
	assert_int_equal(n, 0);
	assert_null(v[0]);
	mcz_inpaths_free(v);
}

static void test_list(void **state)
{
	(void)state;
	ip_mkdir("l");
	ip_mkdir("l/job");
	ip_file("l/job/run.1.mcz", "x");
	ip_file("l/job/run.0.mcz", "x");
	ip_file("l/one.mcz", "x");
	char text[1024];
	snprintf(text, sizeof text,
		 "%s/l/inner.txt\n" /* not a list: a path as it is */
		 "%s/l/one.mcz\n",
		 dir, dir);
	ip_file("l/inner.txt", text);
	snprintf(text, sizeof text,
		 "# the ranks of job 77\n"
		 "\n"
		 "   \t\n"
		 "  %s/l/job  \n"
		 "%s/l/one.mcz\r\n"
		 "#%s/l/one.mcz\n"
		 "@%s/l/inner.txt\n"
		 "job.mcz:run.3.mcz", /* the last line without its newline */
		 dir, dir, dir, dir);
	ip_file("l/list.txt", text);
	char **v;
	assert_int_equal(ip_expand(0, &v, "@%s/l/list.txt", dir), MCZ_OK);
	assert_string_equal(ip_text(v), "D/l/job/run.0.mcz\nD/l/job/run.1.mcz\nD/l/one.mcz\n"
					"D/l/inner.txt\nD/l/one.mcz\njob.mcz:run.3.mcz\n");
	mcz_inpaths_free(v);

	/* a file whose name starts with '@' is that file */
	char cwd[512];
	assert_non_null(getcwd(cwd, sizeof cwd));
	ip_file("l/@r.mcz", "x");
	char l[256];
	snprintf(l, sizeof l, "%s/l", dir);
	assert_int_equal(chdir(l), 0);
	assert_int_equal(ip_expand(0, &v, "@r.mcz"), MCZ_OK);
	assert_string_equal(v[0], "@r.mcz");
	assert_null(v[1]);
	mcz_inpaths_free(v);
	/* paths relative to the current folder; "@-": the list on standard input */
	ip_file("l/rel.txt", "one.mcz\njob\n");
	assert_non_null(freopen("rel.txt", "r", stdin));
	assert_int_equal(ip_expand(0, &v, "@-"), MCZ_OK);
	assert_string_equal(ip_text(v), "one.mcz\njob/run.0.mcz\njob/run.1.mcz\n");
	mcz_inpaths_free(v);
	assert_int_equal(chdir(cwd), 0);
}

static void test_refused(void **state)
{
	(void)state;
	char **v, want[512];
	ip_mkdir("empty");
	assert_int_equal(ip_expand(0, &v, "%s/empty", dir), MCZ_E_NOTFOUND);
	snprintf(want, sizeof want, "%s/empty: no .mcz file in this folder", dir);
	assert_string_equal(mcz_errdetail(), want);
	ip_mkdir("other");
	ip_file("other/run.0.mcz.old", "x");
	ip_file("other/notes.txt", "x");
	assert_int_equal(ip_expand(0, &v, "%s/other", dir), MCZ_E_NOTFOUND);
	snprintf(want, sizeof want, "%s/other: no .mcz file in this folder", dir);
	assert_string_equal(mcz_errdetail(), want);

	assert_int_equal(ip_expand(0, &v, "@%s/nosuch.txt", dir), MCZ_E_IO);
	snprintf(want, sizeof want, "@%s/nosuch.txt: No such file or directory", dir);
	assert_string_equal(mcz_errdetail(), want);
	char text[512];
	snprintf(text, sizeof text, "# first\n%s/empty\n", dir);
	ip_file("names-empty.txt", text);
	assert_int_equal(ip_expand(0, &v, "@%s/names-empty.txt", dir), MCZ_E_NOTFOUND);
	snprintf(want, sizeof want,
		 "@%s/names-empty.txt, line 2: %s/empty: no .mcz file in this folder", dir, dir);
	assert_string_equal(mcz_errdetail(), want);
	snprintf(text, sizeof text, "\n\n@%s/nosuch.txt\n", dir);
	ip_file("names-missing.txt", text);
	assert_int_equal(ip_expand(0, &v, "@%s/names-missing.txt", dir), MCZ_E_IO);
	snprintf(want, sizeof want,
		 "@%s/names-missing.txt, line 3: @%s/nosuch.txt: No such file or directory", dir,
		 dir);
	assert_string_equal(mcz_errdetail(), want);
	ip_file("comments.txt", "# nothing yet\n\n");
	assert_int_equal(ip_expand(0, &v, "@%s/comments.txt", dir), MCZ_E_NOTFOUND);
	snprintf(want, sizeof want, "@%s/comments.txt: lists no recording", dir);
	assert_string_equal(mcz_errdetail(), want);
	snprintf(text, sizeof text, "@%s/self.txt\n", dir);
	ip_file("self.txt", text);
	assert_int_equal(ip_expand(0, &v, "@%s/self.txt", dir), MCZ_E_ARG);
	snprintf(want, sizeof want,
		 "@%s/self.txt, line 1: @%s/self.txt: lists within lists more than 8 deep (a list "
		 "that names itself?)",
		 dir, dir);
	assert_string_equal(mcz_errdetail(), want);
	/* the second word's failure: nothing returned */
	char ok[256], bad[256];
	snprintf(ok, sizeof ok, "%s/one", dir);
	snprintf(bad, sizeof bad, "%s/empty", dir);
	const char *words[] = {ok, bad};
	size_t n = 7;
	assert_int_equal(mcz_inpaths_expand(words, 2, 0, &v, &n), MCZ_E_NOTFOUND);
	assert_null(v);
	assert_int_equal(n, 0);
}

static void test_pcp_folder(void **state)
{
	(void)state;
	ip_mkdir("pcp");
	ip_file("pcp/x.meta", "x");
	ip_file("pcp/x.0", "x");
	ip_file("pcp/x.index", "x");
	ip_file("pcp/20180101.meta.xz", "x");
	ip_file("pcp/20180101.0.xz", "x");
	char **v, want[512];
	assert_int_equal(ip_expand(0, &v, "%s/pcp", dir), MCZ_E_NOTFOUND);
	snprintf(want, sizeof want,
		 "%s/pcp: no .mcz file in this folder (it holds PCP archives, which open by "
		 "their base name: %s/pcp/20180101)",
		 dir, dir);
	assert_string_equal(mcz_errdetail(), want);
	/* the viewer opens the folder as archives */
	assert_int_equal(ip_expand(MCZ_INPATHS_PCP_DIR, &v, "%s/pcp", dir), MCZ_OK);
	assert_string_equal(ip_text(v), "D/pcp\n");
	mcz_inpaths_free(v);
	/* a folder of neither: refused with the flag too */
	ip_mkdir("none");
	assert_int_equal(ip_expand(MCZ_INPATHS_PCP_DIR, &v, "%s/none", dir), MCZ_E_NOTFOUND);
	/* recordings beside archives: the recordings */
	ip_file("pcp/run.0.mcz", "x");
	assert_int_equal(ip_expand(MCZ_INPATHS_PCP_DIR, &v, "%s/pcp", dir), MCZ_OK);
	assert_string_equal(ip_text(v), "D/pcp/run.0.mcz\n");
	mcz_inpaths_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_folder_in_number_order),
	    cmocka_unit_test(test_list),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_pcp_folder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
