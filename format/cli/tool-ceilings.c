/* tool-ceilings.c: the roofline's ceilings in `mcz info` — the memory
 * bandwidth and peak FLOP/s that mcrec --calibrate measured on the host and
 * that the recording carries as metadata keys roof.* (SPEC.md section
 * 5.1), each with how it was measured.  A recording without them says so
 * and how to get them: no figure is ever taken from elsewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcz.h"
#include "tool.h"

/* roof.KEY of r as the viewer shows it ("15.2 GB/s"), "-" when absent
 * or not plausible (format/meta/roof.c). */
static void ceil_si(char *buf, size_t len, mcz_reader *r, const char *key, const char *unit)
{
	double v;
	if (mcz_roof_parse(key, mcz_meta(r, key), &v) == MCZ_OK)
		mcz_units_si(buf, len, v, unit);
	else
		snprintf(buf, len, "-");
}

int tool_ceilings_is_key(const char *key)
{
	return !strncmp(key, "roof.", 5);
}

void tool_ceilings_print(mcz_reader *r)
{
	double bw, fl, f1, s, s1;
	int have = mcz_roof_parse("roof.bw_triad_Bps", mcz_meta(r, "roof.bw_triad_Bps"), &bw);
	if (have == MCZ_OK)
		have = mcz_roof_parse("roof.flops", mcz_meta(r, "roof.flops"), &fl);
	if (have == MCZ_E_NOTFOUND) {
		printf("ceilings   none (no ceilings: run mcrec --calibrate on the host before "
		       "recording)\n");
		return;
	}
	mcz_roof_parse("roof.flops_1core", mcz_meta(r, "roof.flops_1core"), &f1);
	mcz_roof_parse("roof.flops_scalar", mcz_meta(r, "roof.flops_scalar"), &s);
	mcz_roof_parse("roof.flops_scalar_1core", mcz_meta(r, "roof.flops_scalar_1core"), &s1);
	if (have == MCZ_OK)
		have = mcz_roof_consistent(fl, f1, s, s1);
	if (have != MCZ_OK) { /* the viewer shows no roofs for these: said, not shown */
		printf("ceilings   none usable: %s\n", tool_common_esc(mcz_errdetail()));
		return;
	}
	const char *simd = mcz_meta(r, "roof.simd"), *numa = mcz_meta(r, "roof.bw_numa");
	const char *how = mcz_meta(r, "roof.method"), *when = mcz_meta(r, "roof.calibrated");
	const char *key = mcz_meta(r, "roof.host_key");
	char a[32], b[32], c[32], d[32];
	simd = simd ? simd : "?";
	ceil_si(a, sizeof a, r, "roof.bw_triad_Bps", "B/s");
	ceil_si(b, sizeof b, r, "roof.bw_read_Bps", "B/s");
	printf("ceilings   memory %s triad, %s read (all CPUs)%s%s\n", a, b, numa ? "; " : "",
	       numa ? tool_common_esc(numa) : "");
	ceil_si(a, sizeof a, r, "roof.flops", "FLOP/s");
	ceil_si(b, sizeof b, r, "roof.flops_1core", "FLOP/s");
	ceil_si(c, sizeof c, r, "roof.flops_scalar", "FLOP/s");
	ceil_si(d, sizeof d, r, "roof.flops_scalar_1core", "FLOP/s");
	printf("ceilings   compute %s %s FMA all CPUs, %s one core; scalar %s all, %s one core\n",
	       a, tool_common_esc(simd), b, c, d);
	printf("ceilings   %s%s%s%s%s\n", how ? tool_common_esc(how) : "(method not recorded)",
	       when ? ", " : "", when ? tool_common_esc(when) : "", key ? " on " : "",
	       key ? tool_common_esc(key) : "");
}
