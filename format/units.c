/* units.c: a number with an SI prefix and its unit, as people read it —
 * "12.3 GB/s", "950 mW", "1.50 TFLOP/s" — the one form mcz info and every
 * view and report of mcview use (viewer/analysis/fmt.c: vw_fmt_si).
 *
 *     char b[32];
 *     mcz_units_si(b, sizeof b, 1.23e10, "B/s");   // "12.3 GB/s"
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mcz.h"

/* 1 for a unit of a physical quantity, whose small values take milli,
 * micro and nano (W, J, s, V, A, Hz and their rates, "mW", "us/op"); not
 * for counts (processes, samples, packets, bytes). */
static int units_takes_sub(const char *unit)
{
	static const char *const phys[] = {"W", "J", "s", "V", "A", "Hz", "Wh"};
	size_t n = strcspn(unit, "/ ");
	for (size_t i = 0; i < sizeof phys / sizeof *phys; i++)
		if (strlen(phys[i]) == n && !strncmp(unit, phys[i], n))
			return 1;
	return 0;
}

size_t mcz_units_si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pre[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
	const char *sp = unit && *unit ? " " : "";
	if (!unit)
		unit = "";
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return strlen(buf);
	}
	if (unit[0] == '%') {
		snprintf(buf, len, "%.3g%s", v, unit);
		return strlen(buf);
	}
	if (v == 0 || isinf(v)) {
		snprintf(buf, len, "%g%s%s", v, sp, unit);
		return strlen(buf);
	}
	double a = fabs(v);
	int e = (int)floor(log10(a) / 3);
	if (e < -3)
		e = -3;
	/* milli, micro, nano only where people write them (950 mW, 250 us);
	 * a mean of a count is "0.857 proc", not "857 mproc" */
	if (e < 0 && !units_takes_sub(unit)) {
		int dec = a >= 0.09995 ? 3 : a >= 0.009995 ? 4 : 5;
		snprintf(buf, len, "%s%.*f%s%s", v < 0 ? "-" : "", dec, a, sp, unit);
		return strlen(buf);
	}
	if (e > 6)
		e = 6;
	double x = a / pow(10, 3 * e);
	/* 999.96 would print as "1000": move to the next prefix. */
	if (x >= 999.5 && e < 6) {
		e++;
		x /= 1000;
	}
	/* the decimals of what will be printed: 99.96 shows as "100", not "100.0" */
	int dec = x >= 99.95 ? 0 : x >= 9.995 ? 1 : 2;
	snprintf(buf, len, "%s%.*f %s%s", v < 0 ? "-" : "", dec, x, pre[e + 3], unit);
	if (!*unit && !*pre[e + 3] && *buf)
		buf[strlen(buf) - 1] = '\0'; /* no trailing space */
	return strlen(buf);
}
