/* test-src-pcp.c: PCP descriptor -> stream descriptor mapping (counter or
 * gauge, stored type, SI unit and scale from pmUnits), PCP instance ->
 * topology object, and the memory-traffic metric patterns of the perfevent
 * PMDA (the paper's POWER9 nest names, Intel IMC CAS counts).
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

static void map(src_pcp_descin in, uint8_t kind, uint8_t type, const char *unit, double scale)
{
	uint8_t k = 99, t = 99;
	char u[64];
	double sc = -1;
	const char *why = "unset";

	assert_int_equal(src_pcp_desc_map(&in, &k, &t, u, sizeof u, &sc, &why), 0);
	assert_null(why);
	assert_int_equal(k, kind);
	assert_int_equal(t, type);
	assert_string_equal(u, unit);
	assert_true(sc > scale * (1 - 1e-12) && sc < scale * (1 + 1e-12));
}

static void test_units(void **state)
{
	/* kernel.percpu.cpu.user: u64 counter, millisec */
	map((src_pcp_descin){ PM_TYPE_U64, PM_SEM_COUNTER, 0, 1, 0, 0, PM_TIME_MSEC, 0 }, MCZ_COUNTER, MCZ_U64, "s", 1e-3);
	/* network.interface.in.bytes: u64 counter, byte */
	map((src_pcp_descin){ PM_TYPE_U64, PM_SEM_COUNTER, 1, 0, 0, PM_SPACE_BYTE, 0, 0 }, MCZ_COUNTER, MCZ_U64, "B", 1);
	/* mem.util.used: u64 instant, Kbyte */
	map((src_pcp_descin){ PM_TYPE_U64, PM_SEM_INSTANT, 1, 0, 0, PM_SPACE_KBYTE, 0, 0 }, MCZ_GAUGE, MCZ_U64, "B", 1024);
	/* kernel.all.load: float instant, none */
	map((src_pcp_descin){ PM_TYPE_FLOAT, PM_SEM_INSTANT, 0, 0, 0, 0, 0, 0 }, MCZ_GAUGE, MCZ_F64, "", 1);
	/* a 32-bit signed discrete count */
	map((src_pcp_descin){ PM_TYPE_32, PM_SEM_DISCRETE, 0, 0, 1, 0, 0, 0 }, MCZ_GAUGE, MCZ_I64, "count", 1);
	/* 32-bit counter -> U64 counter (unwrapped by the source) */
	map((src_pcp_descin){ PM_TYPE_U32, PM_SEM_COUNTER, 0, 0, 1, 0, 0, 0 }, MCZ_COUNTER, MCZ_U64, "count", 1);
	/* Mbyte / sec, and count x 10^3 / usec */
	map((src_pcp_descin){ PM_TYPE_DOUBLE, PM_SEM_INSTANT, 1, -1, 0, PM_SPACE_MBYTE, PM_TIME_SEC, 0 }, MCZ_GAUGE, MCZ_F64,
	    "B/s", 1048576.0);
	map((src_pcp_descin){ PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, -1, 1, 0, PM_TIME_USEC, 3 }, MCZ_GAUGE, MCZ_F64,
	    "count/s", 1e9);
	/* per-second with no numerator: "1/s" */
	map((src_pcp_descin){ PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, -1, 0, 0, PM_TIME_SEC, 0 }, MCZ_GAUGE, MCZ_F64, "1/s", 1);
	/* a double counter still stores as U64 */
	map((src_pcp_descin){ PM_TYPE_DOUBLE, PM_SEM_COUNTER, 0, 1, 0, 0, PM_TIME_NSEC, 0 }, MCZ_COUNTER, MCZ_U64, "s", 1e-9);
}

static void test_unsupported(void **state)
{
	src_pcp_descin in = { PM_TYPE_STRING, PM_SEM_DISCRETE, 0, 0, 0, 0, 0, 0 };
	uint8_t k, t;
	char u[16];
	double sc;
	const char *why = NULL;

	assert_int_equal(src_pcp_desc_map(&in, &k, &t, u, sizeof u, &sc, &why), -1);
	assert_non_null(strstr(why, "string"));
	in.type = PM_TYPE_EVENT;
	assert_int_equal(src_pcp_desc_map(&in, &k, &t, u, sizeof u, &sc, &why), -1);
	assert_non_null(strstr(why, "event"));
}

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
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_mem_patterns),
		cmocka_unit_test(test_mem_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
