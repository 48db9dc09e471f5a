/* pcp-desc.c: which topology object a PCP instance belongs to ("cpu3" ->
 * PU 3, "node1" -> NUMA node 1, "eth0" of a network metric -> its NIC):
 * the rule is pcp_topo_of() of format/pcp/pcp.h, shared with the archive
 * importer; here its objects are found among mcrec's hwloc objects, and
 * an instance without one is the machine's.  What a descriptor means for
 * a stream (counter or gauge, type, SI unit and scale) is
 * pcp_metric_kind_of(), shared the same way.  Kept apart from pcp.c
 * (which talks to pmcd) so it is unit-tested without a daemon.
 *
 *     int32_t id = src_pcp_desc_topo(ctx, "kernel.percpu.cpu.user", "cpu3");
 */
#include "../../../format/pcp/pcp.h"
#include "../mcsrc.h"

int32_t src_pcp_desc_topo(const rec_ctx *c, const char *metric, const char *inst)
{
	int32_t id = -1;
	int n;

	switch (pcp_topo_of(metric, inst, &n)) {
	case MCZ_TOPO_PU: id = c->topo_pu ? c->topo_pu(n) : -1; break;
	case MCZ_TOPO_NUMA: id = c->topo_numa ? c->topo_numa(n) : -1; break;
	case MCZ_TOPO_GPU: id = c->topo_gpu ? c->topo_gpu(n) : -1; break;
	case MCZ_TOPO_NIC: id = c->topo_nic ? c->topo_nic(inst) : -1; break;
	default: break;
	}
	if (id < 0 && c->topo_machine)
		id = c->topo_machine();
	return id;
}
