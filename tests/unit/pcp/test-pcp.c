/* test-pcp.c: unit tests of libmczpcp's pieces — the --metrics filter,
 * archive suffixes and folios, ssh URLs and remote quoting (checked by a real /bin/sh), the hash map,
 * an instance's topology object (the rule, and the importer's table) — and
 * one real archive from pcp-testsuite imported and read back through
 * format/mcz.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"
#include "../../../format/pcp/pcp.h"
#include "../../../format/pcp/pcp-int.h"

#define ARCHIVES "/var/lib/pcp/testsuite/archives"

static void test_metric_match(void **state)
{
	(void)state;
	assert_true(pcp_metric_match(NULL, "kernel.all.load"));
	assert_true(pcp_metric_match("", "kernel.all.load"));
	assert_true(pcp_metric_match("kernel.*", "kernel.all.load"));
	assert_false(pcp_metric_match("kernel.*", "mem.util.free"));
	assert_true(pcp_metric_match("kernel.all", "kernel.all.load"));
	assert_false(pcp_metric_match("kernel.all", "kernel.allx"));
	assert_false(pcp_metric_match("kernel.al", "kernel.all.load"));
	assert_true(pcp_metric_match("mem.util.free,kernel.all.cpu.*", "kernel.all.cpu.user"));
	assert_true(pcp_metric_match("mem.util.free,kernel.all.cpu.*", "mem.util.free"));
	assert_false(pcp_metric_match("mem.util.free,kernel.all.cpu.*", "mem.util.used"));
	assert_true(pcp_metric_match("disk.dev.[rw]*_bytes", "disk.dev.read_bytes"));
}

static void test_suffixes(void **state)
{
	(void)state;
	assert_int_equal(pcp_path_suffix_len(".0"), 2);
	assert_int_equal(pcp_path_suffix_len(".12"), 3);
	assert_int_equal(pcp_path_suffix_len(".3.xz"), 5);
	assert_int_equal(pcp_path_suffix_len(".meta"), 5);
	assert_int_equal(pcp_path_suffix_len(".meta.xz"), 8);
	assert_int_equal(pcp_path_suffix_len(".index"), 6);
	assert_int_equal(pcp_path_suffix_len(".0.bz2"), 6);
	assert_int_equal(pcp_path_suffix_len(".00"), 0); /* "20180416.10.00" is a base name */
	assert_int_equal(pcp_path_suffix_len(".0foo"), 0);
	assert_int_equal(pcp_path_suffix_len(".mcz"), 0);
	assert_int_equal(pcp_path_suffix_len(".metadata"), 0);

	struct { const char *in, *dir, *base; } cases[] = {
		{ "/a/b/x.0.xz", "/a/b", "x" },
		{ "x.meta", ".", "x" },
		{ "/x.index", "/", "x" },
		{ "d/20180416.10.00", "d", "20180416.10.00" },
		{ "d/20180416.10.00.2.xz", "d", "20180416.10.00" },
		{ "d/arch ive's;x.12", "d", "arch ive's;x" },
		{ "d/x.folio", "d", "x.folio" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *dir, *base;
		assert_int_equal(pcp_path_split(cases[i].in, &dir, &base), 0);
		assert_string_equal(dir, cases[i].dir);
		assert_string_equal(base, cases[i].base);
		free(dir);
		free(base);
	}
}

static void test_folio(void **state)
{
	(void)state;
	const char *t = "PCPFolio\nVersion: 1\n# comment\nCreated: on x\n"
			"Archive:\tnode1\t\t20261122.00.10\n"
			"Archive:  node2   /abs/path/20261122\n";
	char **a, err[200];
	size_t n;
	assert_int_equal(pcp_path_folio_parse(t, strlen(t), "/logs", &a, &n, err, sizeof err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(a[0], "/logs/20261122.00.10");
	assert_string_equal(a[1], "/abs/path/20261122");
	pcp_path_free_list(a, n);

	const char *none = "PCPFolio\nVersion: 1\n";
	assert_int_equal(pcp_path_folio_parse(none, strlen(none), ".", &a, &n, err, sizeof err),
			 MCZ_E_CORRUPT);
	assert_non_null(strstr(err, "no archive"));
	assert_int_equal(pcp_path_folio_parse("hello", 5, ".", &a, &n, err, sizeof err),
			 MCZ_E_CORRUPT);

	/* a real folio from pcp-testsuite: its archive, joined to its folder */
	int rc = pcp_path_folio(ARCHIVES "/pcp-atop.folio", NULL, &a, &n, err, sizeof err);
	if (rc == 0 && access(ARCHIVES "/pcp-atop.folio", R_OK) != 0)
		skip();
	assert_int_equal(rc, 1);
	assert_int_equal(n, 1);
	assert_string_equal(a[0], ARCHIVES "/pcp-atop");
	pcp_path_free_list(a, n);
	assert_int_equal(pcp_path_folio(ARCHIVES "/pcp-atop.meta", NULL, &a, &n, err, sizeof err), 0);
}

static void test_ssh_parse(void **state)
{
	(void)state;
	pcp_ssh_url u;
	char err[300];
	assert_int_equal(pcp_ssh_parse("ssh://me@node7:2222/var/log/x", &u, err, sizeof err), 0);
	assert_string_equal(u.user, "me");
	assert_string_equal(u.host, "node7");
	assert_int_equal(u.port, 2222);
	assert_string_equal(u.path, "/var/log/x");
	assert_int_equal(pcp_ssh_parse("ssh://node7/a b/c'd;e", &u, err, sizeof err), 0);
	assert_string_equal(u.user, "");
	assert_int_equal(u.port, 0);
	assert_string_equal(u.path, "/a b/c'd;e");
	assert_int_equal(pcp_ssh_parse("ssh://[::1]:22/x", &u, err, sizeof err), 0);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 22);
	assert_int_equal(pcp_ssh_parse("ssh://h/~/pcp/x", &u, err, sizeof err), 0);
	assert_string_equal(u.path, "pcp/x");

	const char *bad[] = { "ssh://-oProxyCommand=x/y", "ssh://h:0/x", "ssh://h:99999/x",
			      "ssh://h:22x/x", "ssh://h", "ssh://h/", "ssh:///x", "ssh://a;b@h/x",
			      "ssh://-l@h/x", "ssh://h$(id)/x", "ssh://h/a\nb", "http://h/x",
			      "ssh://[::1/x" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_not_equal(pcp_ssh_parse(bad[i], &u, err, sizeof err), 0);
}

/* Quoted strings given to a real sh come back unchanged. */
static void test_ssh_quote(void **state)
{
	(void)state;
	char *q = pcp_pull_quote("it's");
	assert_string_equal(q, "'it'\\''s'");
	free(q);
	const char *tricky[] = { "a b", "it's", "''", "\"x\"", ";touch /tmp/x", "$(id)`id`",
				 "\\n\\", "*?[a]", "-n", "" };
	for (size_t i = 0; i < sizeof tricky / sizeof tricky[0]; i++) {
		char *qq = pcp_pull_quote(tricky[i]);
		char cmd[512];
		snprintf(cmd, sizeof cmd, "printf '%%s|' %s", qq);
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		char out[256] = "";
		size_t k = fread(out, 1, sizeof out - 1, p);
		out[k] = '\0';
		assert_int_equal(pclose(p), 0);
		char want[256];
		snprintf(want, sizeof want, "%s|", tricky[i]);
		assert_string_equal(out, want);
		free(qq);
	}
}

static char *slurp(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[256];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The stream a remote host sends is read defensively: only BASE + a PCP
 * suffix, never a path, only what the header announced, never twice. */
static void test_fetch_stream(void **state)
{
	(void)state;
	char dir[] = "/tmp/test-pcp-fetch-XXXXXX", chosen[64], err[300];
	assert_non_null(mkdtemp(dir));
	const char good[] = "Welcome to node7\nMCZ-FETCH 1 2 7 x\nF 3 x.0\nabcF 4 x.meta\ndefgEND\n";
	assert_int_equal(pcp_pull_parse(good, sizeof good - 1, "x", "x", dir, chosen, sizeof chosen,
					 err, sizeof err),
			 0);
	assert_string_equal(chosen, "x");
	assert_string_equal(slurp(dir, "x.0"), "abc");
	assert_string_equal(slurp(dir, "x.meta"), "defg");
	/* the same again: files exist, O_EXCL refuses to overwrite */
	assert_int_not_equal(pcp_pull_parse(good, sizeof good - 1, "x", "x", dir, chosen,
					     sizeof chosen, err, sizeof err),
			     0);
	/* the base name as given (it looks like a volume) when the remote chose it */
	const char alt[] = "MCZ-FETCH 1 1 2 a.10\nF 2 a.10.meta\nhiEND\n";
	assert_int_equal(pcp_pull_parse(alt, sizeof alt - 1, "a", "a.10", dir, chosen,
					 sizeof chosen, err, sizeof err),
			 0);
	assert_string_equal(chosen, "a.10");
	struct { const char *s, *why; } bad[] = {
		{ "MCZ-FETCH 1 1 3 y\nF 3 ../y.0\nabcEND\n", "file name" },
		{ "MCZ-FETCH 1 1 3 y\nF 3 y.0/../../z\nabcEND\n", "file name" },
		{ "MCZ-FETCH 1 1 3 y\nF 3 z.0\nabcEND\n", "file name" },
		{ "MCZ-FETCH 1 1 3 y\nF 3 y.0.sh\nabcEND\n", "file name" },
		{ "MCZ-FETCH 1 1 3 evil\nF 3 evil.0\nabcEND\n", "reply" },
		{ "MCZ-FETCH 1 1 3 y\nF 3 y.1\nabcF 1 y.2\nd\nEND\n", "reply" },
		{ "MCZ-FETCH 1 2 3 y\nF 3 y.3\nabcEND\n", "ended early" },
		{ "MCZ-FETCH 1 1 3 y\nF 3 y.4\nab", "ended early" },
		{ "MCZ-FETCH 1 1 3 y\nF x y.5\nabcEND\n", "reply" },
		{ "no header at all\n", "ended early" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = pcp_pull_parse(bad[i].s, strlen(bad[i].s), "y", "y", dir, chosen,
					 sizeof chosen, err, sizeof err);
		assert_int_not_equal(rc, 0);
		if (!strstr(err, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].why);
	}
	assert_null(slurp("/tmp", "y.0")); /* nothing escaped the folder */
	/* exact mode (a folio): only that one name */
	const char folio[] = "MCZ-FETCH 1 1 2 f.folio\nF 2 f.folio\nokEND\n";
	assert_int_equal(pcp_pull_parse(folio, sizeof folio - 1, "f.folio", NULL, dir, chosen,
					 sizeof chosen, err, sizeof err),
			 0);
	assert_string_equal(slurp(dir, "f.folio"), "ok");
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* pcp_topo_of: the rule mcrec and the importer share; pcp_topo_object:
 * the importer's objects, found again, numbered as mcrec numbers its. */
static void test_topo(void **state)
{
	(void)state;
	static const struct {
		const char *metric, *inst;
		mcz_topo_type type;
		int index;
	} cases[] = {
		{"kernel.percpu.cpu.user", "cpu3", MCZ_TOPO_PU, 3},
		{"network.softnet.percpu.processed", "cpu1", MCZ_TOPO_PU, 1},
		{"mem.numa.alloc.hit", "node1", MCZ_TOPO_NUMA, 1},
		{"nvidia.powerusage", "gpu1", MCZ_TOPO_GPU, 1},
		{"nvidia.memused", "nvidia0", MCZ_TOPO_GPU, 0},
		{"network.interface.in.bytes", "eth0", MCZ_TOPO_NIC, -1},
		{"infiniband.hca.type", "mlx5_0", MCZ_TOPO_NIC, -1},
		/* the loopback, an ICMP type, odd names, singular metrics: the machine */
		{"network.interface.in.bytes", "lo", MCZ_TOPO_MACHINE, -1},
		{"network.icmpmsg.intype", "Type3", MCZ_TOPO_MACHINE, -1},
		{"kernel.percpu.cpu.user", "cpu3x", MCZ_TOPO_MACHINE, -1},
		{"kernel.percpu.cpu.user", "cpu", MCZ_TOPO_MACHINE, -1},
		{"kernel.all.load", "1 minute", MCZ_TOPO_MACHINE, -1},
		{"mem.util.used", "", MCZ_TOPO_MACHINE, -1},
		{"mem.util.used", NULL, MCZ_TOPO_MACHINE, -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int n = 7;
		mcz_topo_type t = pcp_topo_of(cases[i].metric, cases[i].inst, &n);
		if (t != cases[i].type || n != cases[i].index)
			fail_msg("%s %s: type %d index %d, want %d %d", cases[i].metric,
				 cases[i].inst ? cases[i].inst : "(null)", t, n, cases[i].type,
				 cases[i].index);
	}
	mcz_topo_obj objs[5] = {{-1, MCZ_TOPO_MACHINE, -1, 0, "host"}};
	size_t n = 1;
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_PU, 3, "cpu3"), 1);
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_NUMA, 3, "node3"), 2);
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_NIC, -1, "eth0"), 3);
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_PU, 3, "cpu3"), 1);
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_NIC, -1, "ib0"), 4);
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_NIC, -1, "eth0"), 3);
	assert_int_equal(pcp_topo_object(objs, &n, 5, MCZ_TOPO_GPU, 0, "gpu0"), -1); /* full */
	assert_int_equal(n, 5);
	assert_string_equal(objs[1].name, "PU#3");
	assert_int_equal(objs[1].os_index, 3);
	assert_string_equal(objs[2].name, "NUMA#3");
	assert_int_equal(objs[2].type, MCZ_TOPO_NUMA);
	assert_string_equal(objs[3].name, "eth0");
	assert_int_equal(objs[3].os_index, 0);
	assert_int_equal(objs[4].os_index, 1);
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(objs[i].parent, 0);
		free((char *)objs[i].name);
	}
}

static void test_map(void **state)
{
	(void)state;
	pcp_map m = { 0 };
	uint32_t v;
	assert_false(pcp_map_get(&m, 5, &v));
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(pcp_map_put(&m, (uint64_t)i << 32 | (i * 7u), i), 0);
	assert_int_equal(m.n, 100000);
	for (uint32_t i = 0; i < 100000; i++) {
		assert_true(pcp_map_get(&m, (uint64_t)i << 32 | (i * 7u), &v));
		assert_int_equal(v, i);
	}
	assert_false(pcp_map_get(&m, 1, &v));
	assert_int_equal(pcp_map_put(&m, 0, 42), 0);
	assert_int_equal(pcp_map_put(&m, 0, 43), 0);
	assert_true(pcp_map_get(&m, 0, &v));
	assert_int_equal(v, 43);
	pcp_map_free(&m);
}

static void test_claims(void **state)
{
	(void)state;
	if (access(ARCHIVES "/count-mark.meta", R_OK) != 0)
		skip();
	assert_true(pcp_import_claims(ARCHIVES "/count-mark"));
	assert_true(pcp_import_claims(ARCHIVES "/count-mark.0"));
	assert_true(pcp_import_claims(ARCHIVES "/count-mark.meta"));
	assert_true(pcp_import_claims(ARCHIVES "/20180416.10.00.2.xz"));
	assert_true(pcp_import_claims(ARCHIVES "/20180416.10.00"));
	assert_true(pcp_import_claims(ARCHIVES "/pcp-atop.folio"));
	assert_true(pcp_import_claims(ARCHIVES "/multi"));
	assert_true(pcp_import_claims(ARCHIVES "/count-mark," ARCHIVES "/gap"));
	assert_true(pcp_import_claims("ssh://h/x"));
	assert_false(pcp_import_claims(ARCHIVES "/nosuch"));
	assert_false(pcp_import_claims(ARCHIVES "/README"));
	char dir[] = "/tmp/test-pcp-dir-XXXXXX", f[64];
	assert_non_null(mkdtemp(dir));
	assert_false(pcp_import_claims(dir)); /* a folder without archives */
	snprintf(f, sizeof f, "%s/x.meta", dir);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_true(pcp_import_claims(dir)); /* a folder of archives: libpcp opens them all */
	unlink(f);
	rmdir(dir);
	assert_false(pcp_import_claims("run.mcz"));
}

/* count-mark: one counter, 10548 records, one <mark>, values known from
 * pmdumplog: first 4960597 at 2014-01-15 13:11:12.432753 UTC, the next
 * 0.302183 s later 4960686, the mark 86281.189801 s after the start. */
static void test_import_real(void **state)
{
	(void)state;
	if (access(ARCHIVES "/count-mark.meta", R_OK) != 0)
		skip();
	char path[] = "/tmp/test-pcp-XXXXXX.mcz";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	pcp_import_stats st;
	char err[512];
	int rc = pcp_import(ARCHIVES "/count-mark", path, NULL, &st, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(st.records, 10549);
	assert_int_equal(st.rows, 10548);
	assert_int_equal(st.marks, 1);
	assert_int_equal(st.streams, 1);
	assert_int_equal(st.truncated, 0);
	mcz_reader *r;
	assert_int_equal(mcz_open(&r, path, 0), 0);
	const mcz_file_info *fi = mcz_info(r);
	assert_int_equal(fi->wall_epoch_ns, 1389791472432753000LL);
	assert_int_equal(fi->nrows, 10548);
	assert_int_equal(mcz_stream_count(r), 1);
	const mcz_stream_desc *d = mcz_stream(r, 0);
	assert_string_equal(d->name, "kernel.all.pswitch");
	assert_string_equal(d->native, "pcp:kernel.all.pswitch");
	assert_string_equal(d->source, "pcp");
	assert_string_equal(d->unit, "count");
	assert_int_equal(d->kind, MCZ_COUNTER);
	assert_string_equal(mcz_meta(r, "host"), "bozo-vm");
	assert_string_equal(mcz_meta(r, "start_wall"), "2014-01-15T13:11:12.432753Z");
	mcz_series s = { 0 };
	assert_int_equal(mcz_read(r, 0, fi->t_first, fi->t_last + 1, &s), 0);
	assert_int_equal(s.n, 10548);
	assert_int_equal(s.t[0], 0);
	assert_int_equal(s.v[0].u, 4960597);
	assert_int_equal(s.t[1], 302183000);
	assert_int_equal(s.v[1].u, 4960686);
	assert_int_equal(s.delta[1], 89);
	mcz_series_free(&s);
	assert_int_equal(mcz_mark_count(r), 1);
	assert_int_equal(mcz_mark_at(r, 0)->kind, MCZ_MARK_GAP);
	assert_int_equal(mcz_mark_at(r, 0)->t, 86281189801000LL);
	mcz_close(r);
	unlink(path);
}

static void test_import_errors(void **state)
{
	(void)state;
	char err[512];
	const char *out = "/tmp/test-pcp-never.mcz";
	unlink(out);
	assert_int_not_equal(pcp_import("/nonexistent/archive", out, NULL, NULL, err, sizeof err), 0);
	assert_non_null(strstr(err, "/nonexistent/archive"));
	assert_null(strchr(err, '\n'));
	assert_int_not_equal(access(out, F_OK), 0);
	if (access("/var/lib/pcp/testsuite/badarchives/badlabel-1.meta", R_OK) == 0) {
		assert_int_not_equal(pcp_import("/var/lib/pcp/testsuite/badarchives/badlabel-1", out,
						 NULL, NULL, err, sizeof err),
				     0);
		assert_non_null(strstr(err, "Illegal label record"));
		assert_int_not_equal(access(out, F_OK), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_match),
		cmocka_unit_test(test_suffixes),     cmocka_unit_test(test_folio),
		cmocka_unit_test(test_ssh_parse),    cmocka_unit_test(test_ssh_quote),
		cmocka_unit_test(test_map),          cmocka_unit_test(test_claims),
		cmocka_unit_test(test_fetch_stream), cmocka_unit_test(test_topo),
		cmocka_unit_test(test_import_real),  cmocka_unit_test(test_import_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
