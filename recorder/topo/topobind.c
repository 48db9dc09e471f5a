/* topobind.c: binding streams to topology objects (recorder/topo/topology.h),
 * for the rec_ctx.topo_* lookups that sources call while they declare
 * their streams.
 *
 * Loading the topology with hwloc costs milliseconds (sysfs walks, plugins),
 * which mcrec would otherwise spend before the command may exec.  So a
 * recording defers it: rec_topobind_defer() makes every lookup hand out a
 * late id (REC_TOPO_LATE + k, remembering what was asked), the command
 * starts, and the writer thread loads the topology and turns each late id
 * into the object's index (rec_topobind_resolve) before it writes the
 * stream descriptors.  The sources never see the difference: they only store
 * the id in mcz_stream_desc.topo.  One thing moves here from the sources: a
 * source that asks for a NIC, NUMA node or package and falls back to the
 * machine when there is none never sees "none" now, so the resolution does
 * that fallback for those three types (net, rapl and pcp all do it); a PU or
 * GPU that is not in the topology stays unbound (-1), as perf, papi and nvml
 * want.  --list loads the topology at once (rec_topobind_load).
 */
#include "../rec.h"
#include "topology.h"

#include <stdlib.h>
#include <string.h>

enum { TOPOBIND_LATE = 0x40000000 };

struct topobind_ask {
	mcz_topo_type type;
	int num;       /* OS index (PU, NUMA, package), order (GPU) */
	char *nic;     /* interface name */
};

static rec_topology topobind_topo;
static int topobind_loaded, topobind_late;
static struct topobind_ask *topobind_asks;
static size_t topobind_nasks, topobind_cap;

/* A late id for this question (the same question, the same id). */
static int32_t topobind_ask(mcz_topo_type type, int num, const char *nic)
{
	for (size_t i = 0; i < topobind_nasks; i++) {
		const struct topobind_ask *a = &topobind_asks[i];
		if (a->type == type && a->num == num && (!nic || (a->nic && !strcmp(a->nic, nic))))
			return TOPOBIND_LATE + (int32_t)i;
	}
	if (topobind_nasks == topobind_cap) {
		size_t cap = topobind_cap ? topobind_cap * 2 : 64;
		struct topobind_ask *n = realloc(topobind_asks, cap * sizeof *n);
		if (!n)
			return -1;
		topobind_asks = n;
		topobind_cap = cap;
	}
	char *copy = nic ? strdup(nic) : NULL;
	if (nic && !copy)
		return -1;
	topobind_asks[topobind_nasks] = (struct topobind_ask){type, num, copy};
	return TOPOBIND_LATE + (int32_t)topobind_nasks++;
}

static int32_t topobind_now(mcz_topo_type type, int num, const char *nic)
{
	if (!topobind_loaded)
		return -1;
	if (type == MCZ_TOPO_MACHINE)
		return topobind_topo.n ? 0 : -1;
	if (type == MCZ_TOPO_NIC)
		return rec_topology_find_nic(&topobind_topo, nic);
	return rec_topology_find(&topobind_topo, type, num);
}

static int32_t topobind_find(mcz_topo_type type, int num, const char *nic)
{
	return topobind_late ? topobind_ask(type, num, nic) : topobind_now(type, num, nic);
}

static int32_t topobind_pu(int cpu)
{
	return topobind_find(MCZ_TOPO_PU, cpu, NULL);
}
static int32_t topobind_numa(int node)
{
	return topobind_find(MCZ_TOPO_NUMA, node, NULL);
}
static int32_t topobind_package(int pkg)
{
	return topobind_find(MCZ_TOPO_PACKAGE, pkg, NULL);
}
static int32_t topobind_machine(void)
{
	return topobind_find(MCZ_TOPO_MACHINE, 0, NULL);
}
static int32_t topobind_gpu(int index)
{
	return topobind_find(MCZ_TOPO_GPU, index, NULL);
}
static int32_t topobind_nic(const char *ifname)
{
	return topobind_find(MCZ_TOPO_NIC, 0, ifname ? ifname : "");
}

void rec_topobind_ctx(rec_ctx *c)
{
	c->topo_pu = topobind_pu;
	c->topo_numa = topobind_numa;
	c->topo_package = topobind_package;
	c->topo_machine = topobind_machine;
	c->topo_gpu = topobind_gpu;
	c->topo_nic = topobind_nic;
}

int rec_topobind_load(char *err, size_t errlen)
{
	if (!topobind_loaded) {
		if (rec_topology_load(&topobind_topo, getenv("MCREC_TOPOLOGY"), err, errlen) != 0)
			return -1;
		topobind_loaded = 1;
	}
	return 0;
}

void rec_topobind_defer(void)
{
	topobind_late = 1;
}

int32_t rec_topobind_resolve(int32_t id)
{
	if (id < TOPOBIND_LATE || (size_t)(id - TOPOBIND_LATE) >= topobind_nasks)
		return id;
	const struct topobind_ask *a = &topobind_asks[id - TOPOBIND_LATE];
	int32_t got = topobind_now(a->type, a->num, a->nic);
	if (got < 0 && (a->type == MCZ_TOPO_NIC || a->type == MCZ_TOPO_NUMA ||
			a->type == MCZ_TOPO_PACKAGE))
		got = topobind_now(MCZ_TOPO_MACHINE, 0, NULL);
	return got;
}

const mcz_topo_obj *rec_topobind_objects(size_t *n)
{
	*n = topobind_loaded ? topobind_topo.n : 0;
	return topobind_loaded ? topobind_topo.objs : NULL;
}
