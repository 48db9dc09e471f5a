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

static void ceil_si(char *buf, size_t len, const char *s, const char *unit)
{
	static const char pre[] = " kMGTP";
	char *end;
	double v = s ? strtod(s, &end) : 0;
	if (!s || end == s || *end || !(v > 0)) {
		snprintf(buf, len, "-");
		return;
	}
	int k = 0;
	while (v >= 1000 && k < 5)
		v /= 1000, k++;
	snprintf(buf, len, "%.3g %c%s", v, pre[k], unit);
}

int tool_ceilings_is_key(const char *key)
{
	return !strncmp(key, "roof.", 5);
}

void tool_ceilings_print(mcz_reader *r)
{
	const char *bw = mcz_meta(r, "roof.bw_triad_Bps"), *fl = mcz_meta(r, "roof.flops");
	if (!bw || !fl) {
		printf("ceilings   none (no ceilings: run mcrec --calibrate on the host before "
		       "recording)\n");
		return;
	}
	const char *simd = mcz_meta(r, "roof.simd"), *numa = mcz_meta(r, "roof.bw_numa");
	const char *how = mcz_meta(r, "roof.method"), *when = mcz_meta(r, "roof.calibrated");
	const char *key = mcz_meta(r, "roof.host_key");
	char a[32], b[32], c[32], d[32];
	simd = simd ? simd : "?";
	ceil_si(a, sizeof a, bw, "B/s");
	ceil_si(b, sizeof b, mcz_meta(r, "roof.bw_read_Bps"), "B/s");
	printf("ceilings   memory %s triad, %s read (all CPUs)%s%s\n", a, b, numa ? "; " : "",
	       numa ? numa : "");
	ceil_si(a, sizeof a, fl, "FLOP/s");
	ceil_si(b, sizeof b, mcz_meta(r, "roof.flops_1core"), "FLOP/s");
	ceil_si(c, sizeof c, mcz_meta(r, "roof.flops_scalar"), "FLOP/s");
	ceil_si(d, sizeof d, mcz_meta(r, "roof.flops_scalar_1core"), "FLOP/s");
	printf("ceilings   compute %s %s FMA all CPUs, %s one core; scalar %s all, %s one core\n",
	       a, simd, b, c, d);
	printf("ceilings   %s%s%s%s%s\n", how ? how : "(method not recorded)", when ? ", " : "",
	       when ? when : "", key ? " on " : "", key ? key : "");
}
