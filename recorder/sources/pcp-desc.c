/* pcp-desc.c: what a PCP metric descriptor (pmDesc) means for an mcz stream:
 * counter or gauge from the semantics, the stored type from the value type,
 * and the SI unit and scale from pmUnits; and which topology object a PCP
 * instance belongs to.  Kept apart from pcp.c (which talks to pmcd) so the
 * mapping is unit-tested without a daemon.
 *
 * Units: PCP expresses a unit as dimensions (space, time, count) with a
 * scale for each (KBYTE, MSEC, 10^n).  A stream keeps the metric's native
 * integers (so nothing is lost) and carries `scale` such that stored x scale
 * is in bytes, seconds and counts; the factor comes from libpcp's own
 * pmConvScale (1.0 in the metric's units converted to the base units).
 *
 *     src_pcp_descin in = { PM_TYPE_U64, PM_SEM_COUNTER, 0, 1, 0, 0, PM_TIME_MSEC, 0 };
 *     src_pcp_desc_map(&in, &kind, &type, unit, sizeof unit, &scale, &why);
 *     // kind = MCZ_COUNTER, type = MCZ_U64, unit = "s", scale = 0.001
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "mcsrc.h"

/* Append "B", "s^2"... for one dimension to unit. */
static void desc_dim(char *unit, size_t len, const char *sym, int dim, int *nnum, int want_positive)
{
	size_t used = strlen(unit);
	int mag = dim < 0 ? -dim : dim;

	if (dim == 0 || (dim > 0) != want_positive || used >= len)
		return;
	snprintf(unit + used, len - used, "%s%s", want_positive ? ((*nnum)++ ? "." : "") : "/", sym);
	used = strlen(unit);
	if (mag > 1 && used < len)
		snprintf(unit + used, len - used, "^%d", mag);
}

int src_pcp_desc_map(const src_pcp_descin *d, uint8_t *kind, uint8_t *type, char *unit,
		     size_t unitlen, double *scale, const char **why)
{
	pmUnits in, base;
	pmAtomValue one, conv;
	int nnum = 0;

	*why = NULL;
	switch (d->type) {
	case PM_TYPE_32:
	case PM_TYPE_64:
		*type = MCZ_I64;
		break;
	case PM_TYPE_U32:
	case PM_TYPE_U64:
		*type = MCZ_U64;
		break;
	case PM_TYPE_FLOAT:
	case PM_TYPE_DOUBLE:
		*type = MCZ_F64;
		break;
	case PM_TYPE_STRING:
		*why = "is a string metric; only numeric metrics can be recorded";
		return -1;
	default:
		*why = "has a non-numeric type (aggregate or event); only numeric metrics can be recorded";
		return -1;
	}
	*kind = d->sem == PM_SEM_COUNTER ? MCZ_COUNTER : MCZ_GAUGE;
	if (*kind == MCZ_COUNTER)
		*type = MCZ_U64; /* mcz counters are unsigned; floats are rounded */

	memset(&in, 0, sizeof in);
	in.dimSpace = d->dimSpace;
	in.dimTime = d->dimTime;
	in.dimCount = d->dimCount;
	in.scaleSpace = d->scaleSpace;
	in.scaleTime = d->scaleTime;
	in.scaleCount = d->scaleCount;
	base = in;
	base.scaleSpace = PM_SPACE_BYTE;
	base.scaleTime = PM_TIME_SEC;
	base.scaleCount = PM_COUNT_ONE;
	one.d = 1.0;
	*scale = 1.0;
	if (pmConvScale(PM_TYPE_DOUBLE, &one, &in, &conv, &base) >= 0)
		*scale = conv.d;

	unit[0] = '\0';
	desc_dim(unit, unitlen, "B", d->dimSpace, &nnum, 1);
	desc_dim(unit, unitlen, "s", d->dimTime, &nnum, 1);
	desc_dim(unit, unitlen, "count", d->dimCount, &nnum, 1);
	if (nnum == 0 && (d->dimSpace < 0 || d->dimTime < 0 || d->dimCount < 0))
		snprintf(unit, unitlen, "1");
	desc_dim(unit, unitlen, "B", d->dimSpace, &nnum, 0);
	desc_dim(unit, unitlen, "s", d->dimTime, &nnum, 0);
	desc_dim(unit, unitlen, "count", d->dimCount, &nnum, 0);
	return 0;
}

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
