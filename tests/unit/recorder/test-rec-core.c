/* test-rec-core.c: the recorder core's pure parts: the -i parser and the
 * tick planner (clock.c), -o patterns and ranks from launcher environments
 * (outname.c), -g groups and the routing of -e items to sources
 * (registry.c), and the command line (options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../recorder/rec.h"

static void test_interval(void **state)
{
	int64_t ns;
	char err[200];
	struct {
		const char *s;
		int64_t want; /* -1: rejected */
	} cases[] = {
		{"100", 100000000}, {"10ms", 10000000}, {"0.5s", 500000000}, {"1500us", 1500000},
		{"1ms", 1000000},   {"2000000ns", 2000000}, {"1m", 60000000000LL},
		{"0", -1},          {"0.5ms", -1},      {"999us", -1},       {"abc", -1},
		{"", -1},           {"10 ms", -1},      {"-5", -1},          {"2h", -1},
		{"nan", -1},        {"1e400", -1},      {"10parsecs", -1},   {"7200s", -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = rec_clock_parse_interval(cases[i].s, &ns, err, sizeof err);
		if (cases[i].want < 0) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, "interval"));
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(ns, cases[i].want);
		}
	}
}

static void test_next_tick(void **state)
{
	uint64_t missed;
	assert_int_equal(rec_clock_next(0, 5, 10, &missed), 10);
	assert_int_equal(missed, 0);
	assert_int_equal(rec_clock_next(0, 10, 10, &missed), 10); /* due now: taken */
	assert_int_equal(missed, 0);
	/* Two deadlines (10, 20) passed while busy: skipped, no burst. */
	assert_int_equal(rec_clock_next(0, 25, 10, &missed), 30);
	assert_int_equal(missed, 2);
	/* The grid never drifts: always planned + k*interval. */
	int64_t p = 1000;
	for (int i = 0; i < 1000; i++)
		p = rec_clock_next(p, p + 3, 7, NULL);
	assert_int_equal(p, 1000 + 7 * 1000);
}

static void test_outname(void **state)
{
	char out[256], err[200], host[256], want[300];
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMI_RANK");
	unsetenv("PMIX_RANK");
	unsetenv("SLURM_PROCID");
	gethostname(host, sizeof host);
	host[strcspn(host, ".")] = '\0';
	assert_int_equal(rec_outname_expand("run.%h.%r.mcz", "x", 0, out, sizeof out, err, sizeof err), 0);
	snprintf(want, sizeof want, "run.%s.0.mcz", host);
	assert_string_equal(out, want);
	setenv("OMPI_COMM_WORLD_RANK", "3", 1);
	assert_int_equal(rec_outname_rank(), 3);
	assert_int_equal(rec_outname_expand("r%r-%%-%p", "x", 0, out, sizeof out, err, sizeof err), 0);
	snprintf(want, sizeof want, "r3-%%-%ld", (long)getpid());
	assert_string_equal(out, want);
	/* Default name: command basename, host, time, rank under a launcher. */
	setenv("TZ", "UTC", 1);
	assert_int_equal(rec_outname_expand(NULL, "/usr/bin/sleep", 86400, out, sizeof out, err, sizeof err), 0);
	snprintf(want, sizeof want, "sleep-%s-19700102-000000.3.mcz", host);
	assert_string_equal(out, want);
	unsetenv("OMPI_COMM_WORLD_RANK");
	setenv("SLURM_PROCID", "17", 1);
	assert_int_equal(rec_outname_rank(), 17);
	setenv("SLURM_PROCID", "x17", 1);
	assert_int_equal(rec_outname_rank(), -1);
	unsetenv("SLURM_PROCID");
	setenv("SLURM_LOCALID", "2", 1);
	assert_int_equal(rec_outname_local_rank(), 2);
	unsetenv("SLURM_LOCALID");
	assert_int_equal(rec_outname_expand("%t.mcz", "x", 0, out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "19700101-000000.mcz");
	assert_int_equal(rec_outname_expand("a%q", "x", 0, out, sizeof out, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown '%q'"));
	assert_int_equal(rec_outname_expand("a%", "x", 0, out, sizeof out, err, sizeof err), -1);
	assert_int_equal(rec_outname_expand("%h%h%h%h%h%h%h%h", "x", 0, out, 8, err, sizeof err), -1);
	assert_non_null(strstr(err, "too long"));
}

/* Under Slurm: %j is SLURM_JOB_ID (not PMIx's namespace, "slurm.pmix.6.0"
 * under srun --mpi=pmix), Slurm's own letters mean what sbatch(1) says,
 * and the job's metadata id is job.step whatever the --mpi plugin. */
static void test_outname_slurm(void **state)
{
	char out[256], err[200], job[80];
	(void)state;
	setenv("PMIX_NAMESPACE", "slurm.pmix.6.0", 1);
	setenv("SLURM_JOB_ID", "6", 1);
	setenv("SLURM_STEP_ID", "0", 1);
	setenv("SLURM_NODEID", "1", 1);
	setenv("SLURM_JOB_NAME", "lj", 1);
	setenv("SLURM_JOB_USER", "ann", 1);
	assert_int_equal(rec_outname_expand("s.%j.%s.%J.%n.%x.%u.%A_%a", "x", 0, out, sizeof out,
					    err, sizeof err), 0);
	assert_string_equal(out, "s.6.0.6.0.1.lj.ann.6_0");
	assert_int_equal(rec_outname_job(job, sizeof job), 0);
	assert_string_equal(job, "6.0");
	setenv("SLURM_ARRAY_JOB_ID", "5", 1);
	setenv("SLURM_ARRAY_TASK_ID", "3", 1);
	assert_int_equal(rec_outname_expand("%A_%a.%j", "x", 0, out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "5_3.6");
	/* the batch script: Slurm's step "batch"; mpirun there: its own job */
	unsetenv("SLURM_STEP_ID");
	setenv("OMPI_MCA_ess_base_jobid", "1234", 1);
	assert_int_equal(rec_outname_expand("%s", "x", 0, out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "batch");
	assert_int_equal(rec_outname_job(job, sizeof job), 0);
	assert_string_equal(job, "6.ompi1234");
	const char *vars[] = {"PMIX_NAMESPACE", "SLURM_JOB_ID", "SLURM_NODEID", "SLURM_JOB_NAME",
			      "SLURM_JOB_USER", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
			      "OMPI_MCA_ess_base_jobid"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		unsetenv(vars[i]);
	/* outside Slurm: %j the pid, %s 0, %x the command */
	assert_int_equal(rec_outname_expand("%s.%x", "/bin/lmp", 0, out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "0.lmp");
}

static void test_groups_and_events(void **state)
{
	unsigned m;
	char err[300];
	assert_int_equal(rec_registry_groups("core,mem", &m, err, sizeof err), 0);
	assert_int_equal(m, REC_G_CORE | REC_G_MEM);
	assert_int_equal(rec_registry_groups("all", &m, err, sizeof err), 0);
	assert_int_equal(m, REC_G_ALL);
	assert_int_equal(rec_registry_groups("core,cpu", &m, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown group 'cpu'"));

	char *items[] = {"perf:instructions", "net:eth0", "task-clock", "uncore_imc_0/cas_count_read/",
			 "net:lo"};
	const char **lists[16];
	size_t n = rec_registry_count(), perf = n, net = n;
	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(rec_registry[i]->name, "perf"))
			perf = i;
		if (!strcmp(rec_registry[i]->name, "net"))
			net = i;
	}
	assert_true(perf < n && net < n);
	assert_int_equal(rec_registry_split_events(items, 5, lists, err, sizeof err), 0);
	assert_string_equal(lists[perf][0], "instructions");
	assert_string_equal(lists[perf][1], "task-clock");
	assert_string_equal(lists[perf][2], "uncore_imc_0/cas_count_read/");
	assert_null(lists[perf][3]);
	assert_string_equal(lists[net][0], "eth0");
	assert_string_equal(lists[net][1], "lo");
	assert_null(lists[net][2]);
	rec_registry_free_events(lists);
	char *bad[] = {"perf:cycles", "bogus:x"};
	assert_int_equal(rec_registry_split_events(bad, 2, lists, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown source 'bogus'"));
	char *empty[] = {""};
	assert_int_equal(rec_registry_split_events(empty, 1, lists, err, sizeof err), -1);
}

static void test_options(void **state)
{
	rec_options o;
	char err[300];
	char *argv[] = {"mcrec", "-i", "10ms", "-e", "perf:a,net:lo", "-e", "cpu/event=1,umask=2/",
			"-g", "core", "-q", "--", "ls", "-l", NULL};
	assert_int_equal(rec_options_parse(13, argv, &o, err, sizeof err), 0);
	assert_int_equal(o.interval_ns, 10000000);
	assert_int_equal(o.nevents, 3);
	assert_string_equal(o.events[1], "net:lo");
	assert_string_equal(o.events[2], "cpu/event=1,umask=2/");
	assert_int_equal(o.groups, REC_G_CORE);
	assert_true(o.quiet);
	assert_string_equal(o.argv[0], "ls");
	assert_string_equal(o.argv[1], "-l");
	rec_options_free(&o);
	/* The command's own options are not mcrec's (no -- needed). */
	char *argv2[] = {"mcrec", "sleep", "-q", NULL};
	assert_int_equal(rec_options_parse(3, argv2, &o, err, sizeof err), 0);
	assert_false(o.quiet);
	assert_int_equal(o.interval_ns, 100000000);
	rec_options_free(&o);
	char *argv3[] = {"mcrec", "-i", "0", "--", "true", NULL};
	assert_int_equal(rec_options_parse(5, argv3, &o, err, sizeof err), 2);
	rec_options_free(&o);
	char *argv4[] = {"mcrec", "-o", NULL};
	assert_int_equal(rec_options_parse(2, argv4, &o, err, sizeof err), 2);
	assert_non_null(strstr(err, "needs a value"));
	rec_options_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval), cmocka_unit_test(test_next_tick),
		cmocka_unit_test(test_outname),
		cmocka_unit_test(test_outname_slurm),
		cmocka_unit_test(test_groups_and_events),
		cmocka_unit_test(test_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
