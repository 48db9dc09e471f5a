/* roof.c: the roofline's ceilings as metadata (roof.*, SPEC.md 5.1) — what
 * a plausible value is, for everyone who reads or writes one: mcrec's
 * ceiling cache (recorder/calibrate/ceilcache.c), mcz info (format/cli/
 * tool-ceilings.c) and the viewer's roofline (viewer/analysis/
 * roofline-ceil.c), so that a value one of them refuses none of them shows.
 *
 *     double bw;
 *     if (mcz_roof_parse("roof.bw_triad_Bps", mcz_meta(r, "roof.bw_triad_Bps"), &bw))
 *         ... absent, or mcz_errdetail() says why ...
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

/* "1 MB/s to 1 PB/s, 1 MFLOP/s to 1 EFLOP/s": one node's, by a wide margin */
#define ROOF_MIN 1e6
#define ROOF_MAX_BPS 1e15
#define ROOF_MAX_FLOPS 1e18

int mcz_roof_parse(const char *key, const char *text, double *v)
{
	*v = NAN;
	if (!text || !*text)
		return MCZ_E_NOTFOUND;
	int bw = key && strstr(key, "Bps") != NULL;
	char *end;
	errno = 0;
	double x = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(x) || x < ROOF_MIN ||
	    x > (bw ? ROOF_MAX_BPS : ROOF_MAX_FLOPS))
		return mcz_error_set(MCZ_E_RANGE, "%s = %.40s is not a plausible %s", key ? key : "",
				     text, bw ? "bandwidth (1e6 to 1e15 B/s)"
					      : "rate (1e6 to 1e18 FLOP/s)");
	*v = x;
	return MCZ_OK;
}

int mcz_roof_consistent(double flops, double flops_1core, double scalar, double scalar_1core)
{
	if (flops < flops_1core)
		return mcz_error_set(MCZ_E_RANGE, "roof.flops is below roof.flops_1core");
	if (scalar < scalar_1core)
		return mcz_error_set(MCZ_E_RANGE,
				     "roof.flops_scalar is below roof.flops_scalar_1core");
	return MCZ_OK;
}
