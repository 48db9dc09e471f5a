/* fmt.c: numbers and times as people read them on a screen.
 *
 * vw_fmt_si gives three significant digits and an SI prefix, the way
 * `perf stat`, btop and pmrep show rates ("12.3 GB/s", "950 mW"); prefixes
 * are decimal (G = 1e9), the convention of bandwidth figures.  The micro
 * prefix is written "u" so the text is ASCII-safe.  vw_fmt_time writes
 * run-relative times for the ruler and the read-out ("1.5s", "250ms",
 * "2m05s").  Written here rather than taken from a library because no
 * installed library formats SI quantities this way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/mcz.h"
#include "fmt.h"

char *vw_fmt_si(char *buf, size_t len, double v, const char *unit)
{
	mcz_units_si(buf, len, v, unit); /* one form for mcz info and the viewer */
	return buf;
}

/* Decimals needed to show multiples of step (ns) in a unit of u ns. */
static int decimals(int64_t step, double u)
{
	int d = 0;
	for (double s = u; d < 3 && step > 0 && (double)step < s * 0.999; s /= 10)
		d++;
	return d;
}

char *vw_fmt_time(char *buf, size_t len, int64_t ns, int64_t step)
{
	const char *sign = ns < 0 ? "-" : "";
	int64_t a = ns < 0 ? -ns : ns;
	if (a == 0) {
		snprintf(buf, len, "0s");
	} else if (a >= 3600000000000LL) {
		int64_t s = a / 1000000000;
		snprintf(buf, len, "%s%lldh%02lldm", sign, (long long)(s / 3600),
			 (long long)(s % 3600 / 60));
	} else if (a >= 60000000000LL) {
		int d = decimals(step ? step : 1000000000, 1e9);
		double s = fmod((double)a / 1e9, 60);
		snprintf(buf, len, "%s%lldm%0*.*fs", sign, (long long)(a / 60000000000LL),
			 d ? d + 3 : 2, d, s);
	} else if (a >= 1000000000 || step >= 100000000) {
		snprintf(buf, len, "%s%.*fs", sign, step ? decimals(step, 1e9) : 3, (double)a / 1e9);
	} else if (a >= 1000000 || step >= 100000) {
		snprintf(buf, len, "%s%.*fms", sign, step ? decimals(step, 1e6) : 3,
			 (double)a / 1e6);
	} else if (a >= 1000 || step >= 100) {
		snprintf(buf, len, "%s%.*fus", sign, step ? decimals(step, 1e3) : 3,
			 (double)a / 1e3);
	} else {
		snprintf(buf, len, "%s%lldns", sign, (long long)a);
	}
	return buf;
}

const char *vw_fmt_safe(const char *s)
{
	static _Thread_local char ring[16][1024];
	static _Thread_local unsigned at;
	char *b = ring[at++ % 16];
	mcz_termsafe(b, sizeof ring[0], s);
	return b;
}

void vw_fmt_json_str(FILE *f, const char *s)
{
	char buf[512], *big = NULL, *out = buf;
	size_t n = mcz_json_escape(buf, sizeof buf, s);
	if (n >= sizeof buf && (big = malloc(n + 1)) != NULL)
		mcz_json_escape(out = big, n + 1, s);
	fprintf(f, "\"%s\"", out);
	free(big);
}
