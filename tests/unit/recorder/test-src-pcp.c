/* test-src-pcp.c: PCP instance -> topology object (the descriptor ->
 * stream mapping is test-pcp-metric.c's), the memory-traffic metric
 * patterns of the perfevent PMDA (the paper's POWER9 nest names, Intel IMC
 * CAS counts), and what the local PCP configuration says, read without
 * libpcp (pcp-agents.c): a pcp.conf setting, the agents in pmcd.conf.
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
#include <pcp/pmapi.h>

#include "../../../recorder/sources/memtraffic.h"
#include "../../../recorder/sources/mcsrc.h"
#include "../../../recorder/sources/pcp/pcp-metrics.h"

static int32_t pu(int cpu) { return 100 + cpu; }
static int32_t numa(int n) { return 50 + n; }
static int32_t gpu(int i) { return 80 + i; }
static int32_t machine(void) { return 0; }
static int32_t nic(const char *ifname) { return strcmp(ifname, "eth0") == 0 ? 90 : -1; }

static void test_topo(void **state)
{
	rec_ctx c;

	memset(&c, 0, sizeof c);
	c.topo_pu = pu;
	c.topo_numa = numa;
	c.topo_gpu = gpu;
	c.topo_machine = machine;
	c.topo_nic = nic;
	assert_int_equal(src_pcp_desc_topo(&c, "kernel.percpu.cpu.user", "cpu3"), 103);
	assert_int_equal(src_pcp_desc_topo(&c, "mem.numa.alloc.hit", "node1"), 51);
	assert_int_equal(src_pcp_desc_topo(&c, "nvidia.powerusage", "gpu1"), 81);
	assert_int_equal(src_pcp_desc_topo(&c, "network.interface.in.bytes", "eth0"), 90);
	/* unknown NIC, odd names, singular metrics: the machine */
	assert_int_equal(src_pcp_desc_topo(&c, "network.interface.in.bytes", "ifb0"), 0);
	assert_int_equal(src_pcp_desc_topo(&c, "kernel.percpu.cpu.user", "cpu3x"), 0);
	assert_int_equal(src_pcp_desc_topo(&c, "kernel.all.load", "1 minute"), 0);
	assert_int_equal(src_pcp_desc_topo(&c, "mem.util.used", ""), 0);
	c.topo_machine = NULL;
	assert_int_equal(src_pcp_desc_topo(&c, "mem.util.used", NULL), -1);
}

static void test_mem_patterns(void **state)
{
	double b = 0;

	/* the paper's Table I, Summit through PCP */
	assert_int_equal(rec_memtraffic_pcp_match("perfevent.hwcounters.nest_mba0_imc.PM_MBA0_READ_BYTES.value", &b), 1);
	assert_true(b == 64.0);
	assert_int_equal(rec_memtraffic_pcp_match("perfevent.hwcounters.nest_mba7_imc.PM_MBA7_WRITE_BYTES.value", &b), 2);
	/* Intel server IMC CAS counts as the perfevent PMDA names them */
	assert_int_equal(rec_memtraffic_pcp_match("perfevent.hwcounters.snbep_unc_imc0__UNC_M_CAS_COUNT_RD.value", &b), 1);
	assert_int_equal(rec_memtraffic_pcp_match("perfevent.hwcounters.snbep_unc_imc3__UNC_M_CAS_COUNT_WR.value", &b), 2);
	assert_int_equal(rec_memtraffic_pcp_match("perfevent.hwcounters.uncore_imc.data_reads.value", &b), 1);
	/* not memory traffic, or not perfevent */
	assert_int_equal(rec_memtraffic_pcp_match("perfevent.hwcounters.INSTRUCTIONS_RETIRED.value", &b), 0);
	assert_int_equal(rec_memtraffic_pcp_match("disk.dev.read_bytes", &b), 0);
	assert_string_equal(rec_memtraffic_path_name(REC_MEM_PCP), "pcp");
	assert_string_equal(rec_memtraffic_path_name(REC_MEM_LLC_ESTIMATE), "llc-estimate");
}

/* pmcd.conf as pcp-agents.c reads it: the agents named first on their
 * lines, before the access control section. */
static int agents(const char *conf, const char *const *names, size_t n)
{
	char path[] = "/tmp/test-src-pcp-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, conf, strlen(conf)), (ssize_t)strlen(conf));
	close(fd);
	setenv("PCP_PMCDCONF_PATH", path, 1);
	int r = src_pcp_local_agents(names, n);
	unsetenv("PCP_PMCDCONF_PATH");
	unlink(path);
	return r;
}

static void test_local_agents(void **state)
{
	(void)state;
	static const char *const dflt[] = {"perfevent", "nvidia", "denki"};
	/* Debian's default: none of them */
	const char *deb = "# Performance Metrics Domain Specifications\n"
			  "root\t1\tpipe\tbinary\t\t/var/lib/pcp/pmdas/root/pmdaroot\n"
			  "pmcd\t2\tdso\tpmcd_init\t/var/lib/pcp/pmdas/pmcd/pmda_pmcd.so\n"
			  "linux\t60\tpipe\tbinary\t\t/var/lib/pcp/pmdas/linux/pmdalinux\n"
			  "\n[access]\ndisallow \".*\" : store;\n";
	assert_int_equal(agents(deb, dflt, 3), 0);
	/* the perfevent PMDA installed (pmdaperfevent's own line), indented */
	char with[1024];
	snprintf(with, sizeof with, "%s", deb);
	char *acc = strstr(with, "\n[access]");
	snprintf(acc, sizeof with - (size_t)(acc - with),
		 "\n  perfevent\t127\tpipe\tbinary\t/var/lib/pcp/pmdas/perfevent/pmdaperfevent "
		 "-d 127\n[access]\n");
	assert_int_equal(agents(with, dflt, 3), 1);
	static const char *const nv[] = {"nvidia"};
	assert_int_equal(agents(with, nv, 1), 0);
	/* a name only as a prefix, in a comment or after [access] is no agent */
	assert_int_equal(agents("perfeventx\t9\tdso\tx\t/x.so\n# perfevent 127\n"
				"[access]\nperfevent : all;\n",
				dflt, 3),
			 0);
	assert_int_equal(agents("denki 155 pipe binary /var/lib/pcp/pmdas/denki/pmdadenki\n", dflt, 3), 1);
	/* unknown: the file cannot be read, or PCP's files are moved */
	setenv("PCP_PMCDCONF_PATH", "/nonexistent/pmcd.conf", 1);
	assert_int_equal(src_pcp_local_agents(dflt, 3), -1);
	unsetenv("PCP_PMCDCONF_PATH");
	setenv("PCP_CONF", "/elsewhere/pcp.conf", 1);
	assert_int_equal(src_pcp_local_agents(dflt, 3), -1);
	unsetenv("PCP_CONF");
}

/* /etc/pcp.conf's settings (pcp-lib.c finds pmcd's socket with them):
 * read from the installed file, which `make check` installs with pcp. */
static void test_conf_value(void **state)
{
	(void)state;
	if (access("/etc/pcp.conf", R_OK) != 0)
		skip();
	char v[256], tiny[2];
	assert_int_equal(src_pcp_conf_value("PCP_RUN_DIR", v, sizeof v), 0);
	assert_int_equal(v[0], '/');
	assert_int_equal(src_pcp_conf_value("PCP_RUN_DIR", tiny, sizeof tiny), -2);
	assert_int_equal(src_pcp_conf_value("PCP_RUN", v, sizeof v), -1); /* a prefix is no key */
	assert_int_equal(src_pcp_conf_value("MCZ_NO_SUCH_SETTING", v, sizeof v), -1);
}

static void test_mem_spec(void **state)
{
	rec_mem_metric m[4];

	assert_int_equal(rec_memtraffic_spec_parse("read:a.b*64, c.d;write:e.f*2.5", m, 4), 3);
	assert_string_equal(m[0].name, "a.b");
	assert_true(m[0].bytes == 64 && m[0].write == 0);
	assert_string_equal(m[1].name, "c.d");
	assert_true(m[1].bytes == 1 && m[1].write == 0);
	assert_string_equal(m[2].name, "e.f");
	assert_true(m[2].bytes == 2.5 && m[2].write == 1);
	/* bad factors, empty names, unknown lists are skipped; max is kept */
	assert_int_equal(rec_memtraffic_spec_parse("read:x*0,y*-2,z*nan,w*,*3;other:q;write:v", m, 4), 1);
	assert_string_equal(m[0].name, "v");
	assert_int_equal(rec_memtraffic_spec_parse("read:a,b,c,d,e,f", m, 2), 2);
	assert_int_equal(rec_memtraffic_spec_parse(NULL, m, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_mem_patterns),
		cmocka_unit_test(test_mem_spec),
		cmocka_unit_test(test_local_agents),
		cmocka_unit_test(test_conf_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
