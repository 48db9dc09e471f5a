/* test-topology.c: recorder/topo/topology.c on real hwloc topologies: synthetic
 * machines of several shapes (hwloc_topology_set_synthetic), an hwloc XML
 * fixture of a GPU node (tests/data/topo/gpu-node.xml, 8 GPUs, a BMC VGA that
 * must not count, InfiniBand and Ethernet NICs), this machine, and bad input.
 *
 * Every table is checked for the format's invariant (one root, parents
 * before children) and counts, chains and names are compared with what the
 * description implies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../recorder/topo/topology.h"

#ifndef TOPO_DATA
#define TOPO_DATA "tests/data/topo"
#endif

static size_t count_type(const rec_topology *t, mcz_topo_type type)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->objs[i].type == type;
	return n;
}

/* One root at index 0; every other parent earlier in the table. */
static void check_tree(const rec_topology *t)
{
	assert_true(t->n > 0);
	assert_int_equal(t->objs[0].parent, -1);
	assert_int_equal(t->objs[0].type, MCZ_TOPO_MACHINE);
	for (size_t i = 1; i < t->n; i++) {
		assert_true(t->objs[i].parent >= 0);
		assert_true(t->objs[i].parent < (int32_t)i);
		assert_non_null(t->objs[i].name);
		assert_true(t->objs[i].name[0] != '\0');
	}
}

/* Nearest ancestor of i with that type, or -1. */
static int32_t ancestor(const rec_topology *t, int32_t i, mcz_topo_type type)
{
	for (i = t->objs[i].parent; i >= 0; i = t->objs[i].parent)
		if (t->objs[i].type == type)
			return i;
	return -1;
}

static void load_ok(rec_topology *t, const char *desc)
{
	char err[200] = "x";
	int rc = rec_topology_load(t, desc, err, sizeof err);
	if (rc != 0)
		fail_msg("load %s: %s", desc ? desc : "(this machine)", err);
	assert_string_equal(err, "");
	check_tree(t);
}

/* 2 packages x 2 NUMA x 8 cores x 2 PUs: hwloc puts each NUMA node on a
 * Group; the table must show package > NUMA > core > PU with no Group. */
static void test_pack2_numa2(void **state)
{
	rec_topology t;
	load_ok(&t, "pack:2 numa:2 core:8 pu:2");
	assert_int_equal(count_type(&t, MCZ_TOPO_MACHINE), 1);
	assert_int_equal(count_type(&t, MCZ_TOPO_PACKAGE), 2);
	assert_int_equal(count_type(&t, MCZ_TOPO_NUMA), 4);
	assert_int_equal(count_type(&t, MCZ_TOPO_CORE), 32);
	assert_int_equal(count_type(&t, MCZ_TOPO_PU), 64);
	assert_int_equal(count_type(&t, MCZ_TOPO_OTHER), 0);
	assert_int_equal(t.n, 1 + 2 + 4 + 32 + 64);
	for (int cpu = 0; cpu < 64; cpu++) {
		int32_t pu = rec_topology_find(&t, MCZ_TOPO_PU, cpu);
		char want[16];
		assert_true(pu > 0);
		snprintf(want, sizeof want, "PU#%d", cpu);
		assert_string_equal(t.objs[pu].name, want);
		/* direct chain: PU -> core -> NUMA -> package -> machine */
		int32_t core = t.objs[pu].parent;
		assert_int_equal(t.objs[core].type, MCZ_TOPO_CORE);
		assert_int_equal(t.objs[core].os_index, cpu / 2);
		int32_t numa = t.objs[core].parent;
		assert_int_equal(t.objs[numa].type, MCZ_TOPO_NUMA);
		assert_int_equal(t.objs[numa].os_index, cpu / 16);
		int32_t pack = t.objs[numa].parent;
		assert_int_equal(t.objs[pack].type, MCZ_TOPO_PACKAGE);
		assert_int_equal(t.objs[pack].os_index, cpu / 32);
		assert_int_equal(t.objs[pack].parent, 0);
	}
	assert_int_equal(rec_topology_find(&t, MCZ_TOPO_PU, 64), -1);
	assert_int_equal(rec_topology_find(&t, MCZ_TOPO_GPU, 0), -1);
	assert_int_equal(rec_topology_find_nic(&t, "eth0"), -1);
	rec_topology_free(&t);
	assert_null(t.objs);
	assert_int_equal(t.n, 0);
}

/* Caches and memory sizes become names and sizes; one NUMA node per package
 * sits between the package and its L3. */
static void test_caches_and_sizes(void **state)
{
	rec_topology t;
	load_ok(&t, "pack:2 [numa(memory=64GiB)] l3:1(size=32MiB) l2:4(size=1MiB) "
		    "l1:1(size=48KiB) core:1 pu:2");
	assert_int_equal(count_type(&t, MCZ_TOPO_L3), 2);
	assert_int_equal(count_type(&t, MCZ_TOPO_L2), 8);
	assert_int_equal(count_type(&t, MCZ_TOPO_L1), 8);
	assert_int_equal(count_type(&t, MCZ_TOPO_PU), 16);
	assert_string_equal(t.objs[0].name, "Machine (128 GiB)");
	assert_int_equal(t.objs[0].size, 128ull << 30);

	int32_t numa1 = rec_topology_find(&t, MCZ_TOPO_NUMA, 1);
	assert_string_equal(t.objs[numa1].name, "NUMA#1 (64 GiB)");
	assert_int_equal(t.objs[numa1].size, 64ull << 30);
	int32_t l3 = rec_topology_find(&t, MCZ_TOPO_L3, 1);
	assert_string_equal(t.objs[l3].name, "L3#1 (32 MiB)");
	assert_int_equal(t.objs[l3].size, 32u << 20);
	assert_int_equal(t.objs[l3].parent, numa1);
	int32_t l2 = rec_topology_find(&t, MCZ_TOPO_L2, 5);
	assert_string_equal(t.objs[l2].name, "L2#5 (1 MiB)");
	int32_t l1 = rec_topology_find(&t, MCZ_TOPO_L1, 5);
	assert_string_equal(t.objs[l1].name, "L1d#5 (48 KiB)");
	assert_int_equal(t.objs[l1].parent, l2);

	int32_t pu = rec_topology_find(&t, MCZ_TOPO_PU, 11); /* core 5 */
	assert_int_equal(ancestor(&t, pu, MCZ_TOPO_L1), l1);
	assert_int_equal(ancestor(&t, pu, MCZ_TOPO_L2), l2);
	assert_int_equal(ancestor(&t, pu, MCZ_TOPO_L3), l3);
	assert_int_equal(ancestor(&t, pu, MCZ_TOPO_NUMA), numa1);
	assert_int_equal(ancestor(&t, pu, MCZ_TOPO_PACKAGE),
			 rec_topology_find(&t, MCZ_TOPO_PACKAGE, 1));
	rec_topology_free(&t);
}

/* A 256-PU machine: 4 packages x 2 NUMA x 2 L3 x 8 cores x 2 PUs. */
static void test_256_pus(void **state)
{
	rec_topology t;
	load_ok(&t, "pack:4 numa:2 l3:2 core:8 pu:2");
	assert_int_equal(count_type(&t, MCZ_TOPO_PU), 256);
	assert_int_equal(count_type(&t, MCZ_TOPO_CORE), 128);
	assert_int_equal(count_type(&t, MCZ_TOPO_L3), 16);
	assert_int_equal(count_type(&t, MCZ_TOPO_NUMA), 8);
	assert_int_equal(count_type(&t, MCZ_TOPO_PACKAGE), 4);
	/* children per object, as the description says */
	size_t nchild[1 + 4 + 8 + 16 + 128 + 256] = {0};
	assert_int_equal(t.n, sizeof nchild / sizeof nchild[0]);
	for (size_t i = 1; i < t.n; i++)
		nchild[t.objs[i].parent]++;
	static const size_t want[] = {[MCZ_TOPO_MACHINE] = 4, [MCZ_TOPO_PACKAGE] = 2,
				      [MCZ_TOPO_NUMA] = 2,    [MCZ_TOPO_L3] = 8,
				      [MCZ_TOPO_CORE] = 2,    [MCZ_TOPO_PU] = 0};
	for (size_t i = 0; i < t.n; i++)
		assert_int_equal(nchild[i], want[t.objs[i].type]);
	int32_t pu = rec_topology_find(&t, MCZ_TOPO_PU, 255);
	assert_string_equal(t.objs[pu].name, "PU#255");
	assert_int_equal(t.objs[ancestor(&t, pu, MCZ_TOPO_L3)].os_index, 15);
	assert_int_equal(t.objs[ancestor(&t, pu, MCZ_TOPO_PACKAGE)].os_index, 3);
	rec_topology_free(&t);
}

/* Non-contiguous OS numbering (index list): PU names follow the OS. */
static void test_os_numbering(void **state)
{
	rec_topology t;
	/* hwloc's synthetic indexes: PUs numbered across cores first. */
	load_ok(&t, "core:2 pu:2(indexes=0,2,1,3)");
	int32_t pu2 = rec_topology_find(&t, MCZ_TOPO_PU, 2);
	assert_true(pu2 > 0);
	assert_string_equal(t.objs[pu2].name, "PU#2");
	/* PU 2 is the second PU of core 0 */
	assert_int_equal(t.objs[t.objs[pu2].parent].os_index, 0);
	rec_topology_free(&t);
}

static void test_gpu_node_xml(void **state)
{
	rec_topology t;
	load_ok(&t, TOPO_DATA "/gpu-node.xml");
	assert_int_equal(count_type(&t, MCZ_TOPO_PU), 16);
	assert_int_equal(count_type(&t, MCZ_TOPO_GPU), 8); /* not the BMC VGA */
	assert_int_equal(count_type(&t, MCZ_TOPO_NIC), 3);
	int32_t pack0 = rec_topology_find(&t, MCZ_TOPO_PACKAGE, 0);
	int32_t pack1 = rec_topology_find(&t, MCZ_TOPO_PACKAGE, 1);
	for (int k = 0; k < 8; k++) {
		int32_t g = rec_topology_find(&t, MCZ_TOPO_GPU, k);
		char want[64];
		assert_true(g > 0);
		snprintf(want, sizeof want, "GPU#%d NVIDIA H100 80GB HBM3", k);
		assert_string_equal(t.objs[g].name, want);
		assert_int_equal(t.objs[g].size, 80ull << 30);
		assert_int_equal(t.objs[g].parent, k < 4 ? pack0 : pack1);
	}
	assert_int_equal(rec_topology_find(&t, MCZ_TOPO_GPU, 8), -1);

	int32_t ib0 = rec_topology_find_nic(&t, "ib0");
	assert_true(ib0 > 0);
	assert_string_equal(t.objs[ib0].name, "mlx5_0 (ib0)");
	assert_int_equal(rec_topology_find_nic(&t, "mlx5_0"), ib0);
	assert_int_equal(t.objs[ib0].parent, pack0);
	int32_t eth0 = rec_topology_find_nic(&t, "eth0");
	assert_string_equal(t.objs[eth0].name, "eth0");
	int32_t ib1 = rec_topology_find_nic(&t, "mlx5_1");
	assert_int_equal(rec_topology_find_nic(&t, "ib1"), ib1);
	assert_int_equal(t.objs[ib1].parent, pack1);
	assert_int_equal(rec_topology_find(&t, MCZ_TOPO_NIC, 2), ib1);
	/* no prefix or partial matches */
	assert_int_equal(rec_topology_find_nic(&t, "mlx5"), -1);
	assert_int_equal(rec_topology_find_nic(&t, "ib"), -1);
	assert_int_equal(rec_topology_find_nic(&t, ""), -1);
	rec_topology_free(&t);
}

/* This machine: as many PUs as the OS has online CPUs, each under a core. */
static void test_this_machine(void **state)
{
	rec_topology t;
	load_ok(&t, NULL);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	assert_int_equal(count_type(&t, MCZ_TOPO_PU), ncpu);
	assert_true(count_type(&t, MCZ_TOPO_PACKAGE) >= 1);
	assert_true(count_type(&t, MCZ_TOPO_NUMA) >= 1);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int32_t pu = rec_topology_find(&t, MCZ_TOPO_PU, cpu);
		assert_true(pu > 0);
		assert_true(ancestor(&t, pu, MCZ_TOPO_CORE) > 0);
		assert_true(ancestor(&t, pu, MCZ_TOPO_PACKAGE) > 0);
	}
	/* every NIC the table lists is an interface this machine has */
	for (size_t i = 0; i < t.n; i++) {
		if (t.objs[i].type != MCZ_TOPO_NIC)
			continue;
		char path[256];
		char ifname[64];
		snprintf(ifname, sizeof ifname, "%.*s", (int)strcspn(t.objs[i].name, " ("),
			 t.objs[i].name);
		snprintf(path, sizeof path, "/sys/class/net/%s", ifname);
		char ib[256];
		snprintf(ib, sizeof ib, "/sys/class/infiniband/%s", ifname);
		assert_true(access(path, F_OK) == 0 || access(ib, F_OK) == 0);
	}
	rec_topology_free(&t);
}

static void test_bad_input(void **state)
{
	rec_topology t = {(mcz_topo_obj *)&t, 7};
	char err[200] = "";
	assert_int_equal(rec_topology_load(&t, "pack:2 bogus:3", err, sizeof err), -1);
	assert_non_null(strstr(err, "bogus:3"));
	assert_null(t.objs);
	assert_int_equal(t.n, 0);
	assert_int_equal(rec_topology_load(&t, "/nonexistent/topo.xml", err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/topo.xml"));
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(rec_topology_load(&t, TOPO_DATA "/gen-gpu-node.py", err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "gen-gpu-node.py"));
	/* a short error buffer is truncated, not overrun */
	char small[8];
	assert_int_equal(rec_topology_load(&t, "pack:0", small, sizeof small), -1);
	assert_int_equal(strlen(small), sizeof small - 1);
	rec_topology_free(&t);
	rec_topology_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack2_numa2),  cmocka_unit_test(test_caches_and_sizes),
		cmocka_unit_test(test_256_pus),      cmocka_unit_test(test_os_numbering),
		cmocka_unit_test(test_gpu_node_xml), cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
