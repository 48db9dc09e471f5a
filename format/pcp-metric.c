/* pcp-metric.c: how one PCP metric descriptor (pmDesc) becomes an mcz
 * stream — kind, value type, SI unit and scale, and the provenance note —
 * and the --metrics name filter.
 *
 *     pcp_metric_kind k;
 *     pcp_metric_kind_of(&desc, &k);
 *     if (!k.skip) { d.kind = k.kind; d.type = k.type; d.unit = k.unit; d.scale = k.scale; }
 *
 * Rules (format/SPEC.md's PCP note quotes them):
 *   - values are stored raw, exactly as libpcp returns them; `scale` turns
 *     them into SI base units: bytes (PCP Kbyte x 1024 ...), seconds (msec x
 *     1e-3 ...) and counts (count x 10^n).  PCP's own units go into the note.
 *   - PM_SEM_COUNTER with an integer type -> MCZ_COUNTER (U64), shown as a
 *     rate.  A 32-bit counter wraps at 2^32; mcz counters wrap at 2^64, so
 *     the importer unwraps it: stored = raw + k x 2^32, k counting the
 *     decreases seen (the note says so; stored mod 2^32 = raw).
 *   - a counter of type float/double cannot be an mcz counter (U64 only):
 *     stored as a gauge of its cumulative value, and the note says so.
 *   - instant and discrete metrics -> MCZ_GAUGE: signed integers I64,
 *     unsigned U64, float/double F64.
 *   - string, aggregate and event metrics are skipped (counted in a note).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mcz.h"
#include "pcp-int.h"

static double space_factor(int s)
{
	double f = 1;
	for (int i = 0; i < s && i < 10; i++)
		f *= 1024;
	return f;
}

static double time_factor(int s)
{
	static const double f[] = { 1e-9, 1e-6, 1e-3, 1, 60, 3600 };
	return s >= 0 && s <= 5 ? f[s] : 1;
}

/* Append "sym" or "sym^n" for |dim| to buf, separated by '.'. */
static void unit_part(char *buf, size_t len, const char *sym, int dim)
{
	if (dim == 0)
		return;
	size_t u = strlen(buf);
	if (dim < 0)
		dim = -dim;
	if (dim == 1)
		snprintf(buf + u, len - u, "%s%s", u ? "." : "", sym);
	else
		snprintf(buf + u, len - u, "%s%s^%d", u ? "." : "", sym, dim);
}

static void unit_string(const pmUnits *pu, char *buf, size_t len)
{
	if (pu->dimTime == -1 && pu->dimSpace == 0 && pu->dimCount == 0) {
		snprintf(buf, len, "Hz"); /* a frequency: hinv.cpu.clock (/ usec) */
		return;
	}
	char num[16] = "", den[16] = "";
	unit_part(pu->dimSpace > 0 ? num : den, sizeof num, "B", pu->dimSpace);
	unit_part(pu->dimTime > 0 ? num : den, sizeof num, "s", pu->dimTime);
	unit_part(pu->dimCount > 0 ? num : den, sizeof num, "count", pu->dimCount);
	if (den[0])
		snprintf(buf, len, "%s/%s", num[0] ? num : "1", den);
	else
		snprintf(buf, len, "%s", num);
}

static double unit_scale(const pmUnits *pu)
{
	return pow(space_factor(pu->scaleSpace), pu->dimSpace) *
	       pow(time_factor(pu->scaleTime), pu->dimTime) *
	       pow(10.0, (double)pu->scaleCount * pu->dimCount);
}

void pcp_metric_kind_of(const pmDesc *d, pcp_metric_kind *k)
{
	char ubuf[64], sbuf[32], tbuf[32];
	memset(k, 0, sizeof *k);
	k->scale = 1;
	pmUnitsStr_r(&d->units, ubuf, sizeof ubuf);
	pmSemStr_r(d->sem, sbuf, sizeof sbuf);
	pmTypeStr_r(d->type, tbuf, sizeof tbuf);
	const char *how = "";
	int integer = 1, is_signed = 0;
	switch (d->type) {
	case PM_TYPE_32:
	case PM_TYPE_64:
		is_signed = 1;
		break;
	case PM_TYPE_U32:
	case PM_TYPE_U64:
		break;
	case PM_TYPE_FLOAT:
	case PM_TYPE_DOUBLE:
		integer = 0;
		break;
	default:
		k->skip = 1;
		snprintf(k->note, sizeof k->note, "pcp %s %s: not numeric, skipped", tbuf, sbuf);
		return;
	}
	if (d->sem == PM_SEM_COUNTER && integer) {
		k->kind = MCZ_COUNTER;
		k->type = MCZ_U64;
		if (d->type == PM_TYPE_32 || d->type == PM_TYPE_U32) {
			k->wrap32 = 1;
			how = " (unwrapped: stored = raw + k*2^32)";
		}
	} else {
		k->kind = MCZ_GAUGE;
		k->type = !integer ? MCZ_F64 : is_signed ? MCZ_I64 : MCZ_U64;
		if (d->sem == PM_SEM_COUNTER)
			how = " (cumulative value kept as a gauge)";
	}
	unit_string(&d->units, k->unit, sizeof k->unit);
	k->scale = unit_scale(&d->units);
	snprintf(k->note, sizeof k->note, "pcp: %s%s%s, %s%s", ubuf, *ubuf ? ", " : "", sbuf, tbuf,
		 how);
}

static int has_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return 1;
	return 0;
}

int pcp_metric_match(const char *patterns, const char *name)
{
	if (!patterns || !*patterns)
		return 1;
	const char *p = patterns;
	while (*p) {
		size_t n = strcspn(p, ",");
		char pat[512];
		if (n > 0 && n < sizeof pat) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (fnmatch(pat, name, 0) == 0)
				return 1;
			size_t nl = strlen(name);
			if (!has_glob(pat, n) && nl > n && strncmp(name, pat, n) == 0 && name[n] == '.')
				return 1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}
