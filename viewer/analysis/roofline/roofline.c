/* roofline.c: a phase placed under the roofs (roofline.h): intensity =
 * flops / bytes over the phase, GFLOP/s = its flop rate, attainable =
 * min(peak FLOP/s, bandwidth x intensity) (Williams, Waterman, Patterson
 * 2009, as in ../shared/papers/003 and 004), bound = memory left of the
 * ridge point (intensity < peak / bandwidth), compute right of it.  Pure:
 * the rates come from the phase's figures (phase-desc.c, which asks
 * roofline-work.c), the roofs from the metadata (roofline-ceil.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../phases/phase.h"
#include "roofline.h"

double vw_roof_ridge(const vw_roof_ceil *c)
{
	return c->known ? c->flops / c->bw : NAN;
}

const char *vw_roof_bound_name(int bound)
{
	return bound == VW_BOUND_MEMORY ? "memory" : bound == VW_BOUND_COMPUTE ? "compute" : NULL;
}

void vw_roof_place(const vw_roof_ceil *c, const vw_phase_stats *s, vw_roof_point *pt)
{
	memset(pt, 0, sizeof *pt);
	pt->intensity = pt->gflops = pt->attainable = pt->pct = NAN;
	pt->flops_prov = s->flops_prov;
	pt->bytes_prov = s->bytes_prov;
	if (!isnan(s->flops_ps))
		pt->gflops = s->flops_ps * 1e-9;
	if (isnan(s->flops_ps) || isnan(s->bytes_ps)) {
		snprintf(pt->why, sizeof pt->why, "%s", isnan(s->flops_ps) ? "no FP operation counts"
									 : "no memory byte counts");
		return;
	}
	if (!(s->bytes_ps > 0) || !(s->flops_ps > 0)) {
		snprintf(pt->why, sizeof pt->why, "%s",
			 s->flops_ps > 0 ? "no bytes counted in this phase"
					 : "no FP operations counted in this phase");
		return;
	}
	pt->intensity = s->flops_ps / s->bytes_ps;
	if (!c->known) {
		snprintf(pt->why, sizeof pt->why, "%s", c->why);
		return;
	}
	double roof_bw = c->bw * pt->intensity;
	pt->attainable = (roof_bw < c->flops ? roof_bw : c->flops) * 1e-9;
	pt->pct = pt->gflops / pt->attainable * 100;
	pt->bound = pt->intensity < vw_roof_ridge(c) ? VW_BOUND_MEMORY : VW_BOUND_COMPUTE;
}
