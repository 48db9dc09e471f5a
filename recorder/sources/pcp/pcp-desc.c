/* pcp-desc.c: which topology object a PCP instance belongs to ("cpu3" ->
 * PU 3, "node1" -> NUMA node 1, "eth0" of a network metric -> its NIC).
 * What a descriptor means for a stream (counter or gauge, type, SI unit and
 * scale) is pcp_metric_kind_of() of format/pcp/pcp.h, shared with the
 * archive importer.  Kept apart from pcp.c (which talks to pmcd) so it is
 * unit-tested without a daemon.
 *
 *     int32_t id = src_pcp_desc_topo(ctx, "kernel.percpu.cpu.user", "cpu3");
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcsrc.h"

/* "cpu12" -> 12 for prefix "cpu"; -1 when inst is not prefix + digits. */
static int desc_numbered(const char *inst, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(inst, prefix, n) != 0 || !isdigit((unsigned char)inst[n]))
		return -1;
	v = strtol(inst + n, &end, 10);
	return (*end == '\0' && v >= 0 && v < 1 << 20) ? (int)v : -1;
}

int32_t src_pcp_desc_topo(const rec_ctx *c, const char *metric, const char *inst)
{
	int32_t id = -1;
	int n;

	if (inst && *inst) {
		if ((n = desc_numbered(inst, "cpu")) >= 0 && c->topo_pu)
			id = c->topo_pu(n);
		else if ((n = desc_numbered(inst, "node")) >= 0 && c->topo_numa)
			id = c->topo_numa(n);
		else if (((n = desc_numbered(inst, "gpu")) >= 0 ||
			  (n = desc_numbered(inst, "nvidia")) >= 0) && c->topo_gpu)
			id = c->topo_gpu(n);
		else if ((strncmp(metric, "network.", 8) == 0 || strncmp(metric, "infiniband.", 11) == 0) &&
			 c->topo_nic)
			id = c->topo_nic(inst);
	}
	if (id < 0 && c->topo_machine)
		id = c->topo_machine();
	return id;
}
