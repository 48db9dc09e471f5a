/* pcp-metric.c: how one PCP metric descriptor (pmDesc) becomes an mcz
 * stream — kind, value type, SI unit and scale, and the provenance note —
 * and the --metrics name filter.  The mapping's rules are in pcp.h:
 * the archive importer (pcp-convert.c) and mcrec's live pcp source
 * (recorder/sources/pcp*.c) both use pcp_metric_kind_of(), so a metric
 * recorded live and the same metric imported from an archive agree.
 *
 *     pcp_metric_kind k;
 *     pcp_metric_kind_of(&desc, &k);
 *     if (!k.skip) { d.kind = k.kind; d.type = k.type; d.unit = k.unit; d.scale = k.scale; }
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "../mcz.h"
#include "pcp-int.h"

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

/* 1.0 in the metric's units, in bytes, seconds and counts: libpcp's own
 * conversion (pmConvScale), so PCP's scale codes are read one way only.
 * Scales libpcp rejects (damaged metadata) leave the values as they are. */
static double unit_scale(const pmUnits *pu, int *bad)
{
	pmUnits base = *pu;
	pmAtomValue one = { .d = 1.0 }, conv;

	base.scaleSpace = PM_SPACE_BYTE;
	base.scaleTime = PM_TIME_SEC;
	base.scaleCount = PM_COUNT_ONE;
	*bad = pmConvScale(PM_TYPE_DOUBLE, &one, pu, &conv, &base) < 0;
	return *bad ? 1.0 : conv.d;
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
	int integer = 1, is_signed = 0, bad = 0;
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
		k->why = d->type == PM_TYPE_STRING
				 ? "is a string metric; only numeric metrics can be recorded"
				 : "has a non-numeric type (aggregate or event); only numeric metrics can be recorded";
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
	k->scale = unit_scale(&d->units, &bad);
	snprintf(k->note, sizeof k->note, "pcp: %s%s%s, %s%s%s", ubuf, *ubuf ? ", " : "", sbuf, tbuf,
		 how, bad ? " (scale unknown: values as stored)" : "");
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
