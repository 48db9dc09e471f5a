/* test-mcview-options.c: mcview's command line (viewer/app/mcview-options.c)
 * parsed into an mcview_options — the values a few option lines give, and
 * the refusals, each its exit code (2) and its one line, as mcview prints
 * them after "mcview: ". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../viewer/app/app.h"

static mcview_options o;
static char err[4096];

/* Parse the words of line (split at spaces) as mcview's arguments. */
static int parse(const char *line)
{
	static char buf[1024];
	static char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", line);
	argv[argc++] = "mcview";
	for (char *sv, *w = strtok_r(buf, " ", &sv); w && argc < 63; w = strtok_r(NULL, " ", &sv))
		argv[argc++] = w;
	argv[argc] = NULL;
	mcview_options_free(&o);
	err[0] = '\0';
	return mcview_options_parse(argc, argv, &o, err, sizeof err);
}

static int setup(void **st)
{
	(void)st;
	unsetenv("NO_COLOR");
	unsetenv("MCVIEW_THEME");
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	mcview_options_free(&o);
	return 0;
}

static void the_defaults(void **st)
{
	(void)st;
	assert_int_equal(parse("run.mcz"), 0);
	assert_int_equal(o.npaths, 1);
	assert_string_equal(o.paths[0], "run.mcz");
	assert_int_equal(o.snap_w, 0);
	assert_int_equal(o.view, 0);
	assert_null(o.view_name);
	assert_false(o.have_at);
	assert_false(o.have_win);
	assert_null(o.filter);
	assert_null(o.keys);
	assert_int_equal(o.color, 1);
	assert_int_equal(o.mouse, 1);
	assert_int_equal(o.ascii, 1); /* the test's C locale is not UTF-8 */
	assert_false(o.compare);
	assert_true(o.fail_above < 0);
	assert_int_equal(o.pc.mode, VW_PHASES_AUTO);
	assert_int_equal(o.pc.report, 0);
	assert_null(o.oo.metrics);
	assert_null(o.oo.ssh_options[0]);
	assert_int_equal(o.oo.quiet, 0);
	assert_int_equal(o.oo.cache_max, 0);
	assert_string_equal(o.theme.name, "default");
}

static void a_full_line(void **st)
{
	(void)st;
	assert_int_equal(parse("--snapshot 120x40 --view phases --at 1.5s --window 1s,3s "
			       "--filter mem --keys +,+,Left --no-color --blocks --no-mouse -q "
			       "--metrics kernel.*,mem --ssh-option Port=2222 --ssh-option "
			       "User=me --cache-size 300M --phase-min 500ms --phase-level fine "
			       "a.mcz b.mcz"),
			 0);
	assert_int_equal(o.snap_w, 120);
	assert_int_equal(o.snap_h, 40);
	assert_string_equal(o.view_name, "phases");
	assert_int_equal(o.view, vw_views_find("phases"));
	assert_true(o.have_at);
	assert_int_equal(o.at, 1500000000LL);
	assert_true(o.have_win);
	assert_int_equal(o.w0, 1000000000LL);
	assert_int_equal(o.w1, 3000000000LL);
	assert_string_equal(o.filter, "mem");
	assert_string_equal(o.keys, "+,+,Left");
	assert_int_equal(o.color, 0);
	assert_int_equal(o.blocks, 1);
	assert_int_equal(o.mouse, 0);
	assert_int_equal(o.oo.quiet, 1);
	assert_string_equal(o.oo.metrics, "kernel.*,mem");
	assert_string_equal(o.oo.ssh_options[0], "Port=2222");
	assert_string_equal(o.oo.ssh_options[1], "User=me");
	assert_null(o.oo.ssh_options[2]);
	assert_int_equal(o.oo.cache_max, 300LL << 20);
	assert_int_equal(o.pc.p.min_len, 500000000LL);
	assert_int_equal(o.pc.p.level, 1);
	assert_int_equal(o.npaths, 2);
	assert_string_equal(o.paths[0], "a.mcz");
	assert_string_equal(o.paths[1], "b.mcz");
	/* options after the files, as getopt takes them */
	assert_int_equal(parse("a.mcz --cache-size 0 --report=json"), 0);
	assert_int_equal(o.npaths, 1);
	assert_int_equal(o.oo.cache_max, -1); /* 0: no cache */
	assert_int_equal(o.pc.report, 2);
	setenv("NO_COLOR", "1", 1);
	assert_int_equal(parse("a.mcz"), 0);
	assert_int_equal(o.color, 0);
	unsetenv("NO_COLOR");
}

static void compare_lines(void **st)
{
	(void)st;
	assert_int_equal(parse("--compare --report --fail-above 2.5% a.mcz b1.mcz,b2.mcz"), 0);
	assert_true(o.compare);
	assert_int_equal(o.pc.report, 1);
	assert_true(o.fail_above == 2.5);
	assert_string_equal(o.paths[1], "b1.mcz,b2.mcz");
	assert_int_equal(parse("--compare a.mcz"), 2);
	assert_string_equal(err, "--compare wants two runs, A B (each FILE or FILE1,FILE2,...), "
				 "not 1");
	assert_int_equal(parse("--compare --phases off a.mcz b.mcz"), 2);
	assert_string_equal(err, "--compare needs phases (not --phases off)");
	assert_int_equal(parse("--fail-above 10 a.mcz"), 2);
	assert_string_equal(err, "--fail-above goes with --compare A B");
	assert_int_equal(parse("--compare --fail-above -1 a.mcz b.mcz"), 2);
	assert_string_equal(err, "--fail-above wants a percentage >= 0 (10, 2.5), not '-1'");
}

/* line is refused: exit code 2, and this line after "mcview: " */
static void refused(const char *line, const char *why)
{
	assert_int_equal(parse(line), 2);
	assert_string_equal(err, why);
}

static void refusals(void **st)
{
	(void)st;
	refused("", "no recording given (mcview FILE.mcz; --help for more)");
	refused("--snapshot 10x5 a.mcz", "--snapshot 10x5 is too small: mcview needs 40x12");
	refused("--snapshot 80 a.mcz", "--snapshot wants WxH (e.g. 120x40), not '80'");
	refused("--at soon a.mcz", "--at: not a time: 'soon' (e.g. 12.5s, 300ms)");
	refused("--window 3s,1s a.mcz", "--window wants T0,T1 with T0 < T1, not '3s,1s'");
	refused("--cache-size 1X a.mcz",
		"--cache-size wants a size (1G, 300M, 300KiB, 0), not '1X'");
	refused("--report=xml a.mcz", "--report takes =text or =json, not 'xml'");
	refused("--bogus a.mcz", "unknown option '--bogus' (see --help)");
	refused("-x a.mcz", "unknown option '-x' (see --help)");
	refused("a.mcz --view", "option '--view' needs a value (see --help)");
	assert_int_equal(parse("--view nope a.mcz"), 2);
	assert_non_null(strstr(err, "--view: no view named 'nope' (views: timeline, phases, "));
	/* a unique prefix names a view */
	assert_int_equal(parse("--view top a.mcz"), 0);
	assert_int_equal(o.view, vw_views_find("topology"));
}

static void help_and_version(void **st)
{
	(void)st;
	assert_int_equal(parse("--version"), 1);
	assert_int_equal(parse("-h"), 1);
	/* --code-classes: the run prints them; what follows is not read */
	assert_int_equal(parse("--code-classes"), 0);
	assert_true(o.classes);
	assert_int_equal(parse("--code-classes --bogus"), 0);
	assert_true(o.classes);
	assert_int_equal(parse("a.mcz"), 0);
	assert_false(o.classes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_defaults),
		cmocka_unit_test(a_full_line),
		cmocka_unit_test(compare_lines),
		cmocka_unit_test(refusals),
		cmocka_unit_test(help_and_version),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
