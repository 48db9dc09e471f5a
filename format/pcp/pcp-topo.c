/* pcp-topo.c: which topology object a PCP metric's instance belongs to, the
 * one rule of mcrec's live pcp source (recorder/sources/pcp-desc.c, onto
 * its hwloc objects) and of the archive importer (pcp-convert.c, onto
 * objects it makes, as a PCP archive carries no topology).  The rule is in
 * pcp.h.  No libpcp call here: mcrec links this file without libpcp.
 *
 *     int n;
 *     switch (pcp_topo_of("kernel.percpu.cpu.user", "cpu3", &n)) {
 *     case MCZ_TOPO_PU: ...                     // n == 3
 *
 * and, in the importer, the object found or added to its table:
 *
 *     int32_t id = pcp_topo_object(objs, &nobjs, cap, MCZ_TOPO_PU, 3, "cpu3");
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcz.h"
#include "pcp-int.h"

/* "cpu12" -> 12 for prefix "cpu"; -1 when inst is not prefix + digits.
 * Parsed by hand, not with sscanf: every stream of an archive asks once,
 * and a wide archive has hundreds of thousands (bench-pcp.sh, speed). */
static int topo_numbered(const char *inst, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(inst, prefix, n) != 0 || inst[n] < '0' || inst[n] > '9')
		return -1;
	v = strtol(inst + n, &end, 10);
	return (*end == '\0' && v >= 0 && v < 1 << 20) ? (int)v : -1;
}

mcz_topo_type pcp_topo_of(const char *metric, const char *inst, int *index)
{
	int n = -1;
	mcz_topo_type t = MCZ_TOPO_MACHINE;

	if (!inst || !*inst)
		;
	else if ((n = topo_numbered(inst, "cpu")) >= 0)
		t = MCZ_TOPO_PU;
	else if ((n = topo_numbered(inst, "node")) >= 0)
		t = MCZ_TOPO_NUMA;
	else if ((n = topo_numbered(inst, "gpu")) >= 0 || (n = topo_numbered(inst, "nvidia")) >= 0)
		t = MCZ_TOPO_GPU;
	else if ((!strncmp(metric, "network.interface.", 18) || !strncmp(metric, "infiniband.", 11)) &&
		 strcmp(inst, "lo") != 0)
		t = MCZ_TOPO_NIC;
	*index = t == MCZ_TOPO_NIC ? -1 : n;
	return t;
}

int32_t pcp_topo_object(mcz_topo_obj *objs, size_t *n, size_t cap, mcz_topo_type type, int index,
			const char *inst)
{
	int nics = 0;

	for (size_t i = 1; i < *n; i++) {
		if (objs[i].type != type)
			continue;
		if (type != MCZ_TOPO_NIC ? objs[i].os_index == index : !strcmp(objs[i].name, inst))
			return (int32_t)i;
		nics++;
	}
	if (*n >= cap)
		return -1;
	char *name;
	if (type == MCZ_TOPO_NIC)
		name = strdup(inst);
	else if ((name = malloc(24)) != NULL)
		snprintf(name, 24, "%s#%d",
			 type == MCZ_TOPO_PU ? "PU" : type == MCZ_TOPO_NUMA ? "NUMA" : "GPU", index);
	if (!name)
		return -1;
	/* NICs are numbered in the order found, as mcrec numbers hwloc's */
	objs[*n] = (mcz_topo_obj){ .parent = 0, .type = (uint8_t)type,
				   .os_index = type == MCZ_TOPO_NIC ? nics : index, .size = 0,
				   .name = name };
	return (int32_t)(*n)++;
}
