/* test-src-pcp.c: PCP instance -> topology object (the descriptor ->
 * stream mapping is test-pcp-metric.c's), and the memory-traffic metric
 * patterns of the perfevent PMDA (the paper's POWER9 nest names, Intel IMC
 * CAS counts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <pcp/pmapi.h>

#include "../../recorder/memtraffic.h"
#include "../../recorder/sources/mcsrc.h"

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
