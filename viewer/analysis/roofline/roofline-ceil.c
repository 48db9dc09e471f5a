/* roofline-ceil.c: the machine's ceilings as the recording states them,
 * from the metadata keys roof.* that mcrec writes from its calibration
 * (mcrec --calibrate; format/SPEC.md section 5.1).  Only measured figures
 * are there: without them the roofline has no roofs and says how to get
 * them.  A value that is not a plausible figure (format/meta/roof.c, the rule
 * mcrec and mcz info follow too) counts as absent, and all of them when
 * all CPUs' FLOP/s are below one core's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "roofline.h"

static double ceil_num(mcz_reader *r, const char *key)
{
	double v;
	mcz_roof_parse(key, mcz_meta(r, key), &v); /* NaN unless plausible */
	return v;
}

static void ceil_str(mcz_reader *r, const char *key, char *out, size_t len)
{
	const char *s = mcz_meta(r, key);
	snprintf(out, len, "%s", s ? s : "");
}

void vw_roof_ceilings(vw_model *m, vw_roof_ceil *c)
{
	memset(c, 0, sizeof *c);
	c->bw = c->bw_read = c->flops = c->flops_scalar = c->flops_1core = NAN;
	for (size_t f = 0; f < m->nfiles; f++) {
		mcz_reader *r = m->files[f];
		double bw = ceil_num(r, "roof.bw_triad_Bps"), fl = ceil_num(r, "roof.flops");
		if (isnan(bw) || isnan(fl) ||
		    mcz_roof_consistent(fl, ceil_num(r, "roof.flops_1core"),
					ceil_num(r, "roof.flops_scalar"),
					ceil_num(r, "roof.flops_scalar_1core")) != MCZ_OK)
			continue;
		c->known = 1;
		c->bw = bw;
		c->flops = fl;
		c->bw_read = ceil_num(r, "roof.bw_read_Bps");
		c->flops_scalar = ceil_num(r, "roof.flops_scalar");
		c->flops_1core = ceil_num(r, "roof.flops_1core");
		ceil_str(r, "roof.simd", c->simd, sizeof c->simd);
		ceil_str(r, "roof.method", c->method, sizeof c->method);
		ceil_str(r, "roof.calibrated", c->when, sizeof c->when);
		return;
	}
	snprintf(c->why, sizeof c->why, "no ceilings: run mcrec --calibrate");
}
