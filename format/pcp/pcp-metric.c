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
 *
 * and backwards, for mcz export --pcp (pcp-export.c): pcp_metric_desc_of()
 * finds the PCP units whose forward mapping gives the stream's unit and
 * scale back (the same unit_scale() tried on PCP's scale codes), so that an
 * exported archive imports as the streams it came from.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- the mapping used backwards: a stream -> a PCP descriptor ---------- */

/* Add the dimensions of one unit token ("B", "s^2", "Hz", "instructions")
 * times sign to pu; 1 when the token is one PCP names (bytes, seconds,
 * counts, Hz, "1"), 0 for "%" (dimensionless) and for a unit PCP has no
 * dimension for (W, J, instructions...), which is counted (dimCount) as
 * perfevent counts events. */
static int unit_token(const char *tok, size_t n, int sign, pmUnits *pu)
{
	int pw = 1;
	const char *caret = memchr(tok, '^', n);
	if (caret) {
		pw = atoi(caret + 1);
		n = (size_t)(caret - tok);
	}
	pw *= sign;
	if (n == 1 && tok[0] == 'B')
		pu->dimSpace += pw;
	else if (n == 1 && tok[0] == 's')
		pu->dimTime += pw;
	else if (n == 2 && !memcmp(tok, "Hz", 2))
		pu->dimTime -= pw;
	else if (n == 5 && !memcmp(tok, "count", 5))
		pu->dimCount += pw;
	else if (n == 0 || (n == 1 && tok[0] == '1'))
		return 1;
	else if (n == 1 && tok[0] == '%')
		return 0; /* dimensionless, as PCP's percentages, but not named */
	else {
		pu->dimCount += pw;
		return 0;
	}
	return 1;
}

/* The scale codes of pu's dimensions whose 1.0 is `scale` SI units, by the
 * forward conversion itself (unit_scale); 0 when none is. */
static int scale_codes(pmUnits *pu, double scale)
{
	static const int spaces[] = { PM_SPACE_BYTE, PM_SPACE_KBYTE, PM_SPACE_MBYTE, PM_SPACE_GBYTE,
				      PM_SPACE_TBYTE, PM_SPACE_PBYTE, PM_SPACE_EBYTE };
	static const int times[] = { PM_TIME_SEC, PM_TIME_MSEC, PM_TIME_USEC, PM_TIME_NSEC,
				     PM_TIME_MIN, PM_TIME_HOUR };
	size_t ns = pu->dimSpace ? sizeof spaces / sizeof *spaces : 1;
	size_t nt = pu->dimTime ? sizeof times / sizeof *times : 1;
	int nc = pu->dimCount ? 16 : 1; /* 10^0, 10^-1, 10^1, ... within PCP's -8..7 */
	for (size_t a = 0; a < ns; a++)
		for (size_t b = 0; b < nt; b++)
			for (int c = 0; c < nc; c++) {
				pu->scaleSpace = pu->dimSpace ? spaces[a] : 0;
				pu->scaleTime = pu->dimTime ? times[b] : 0;
				pu->scaleCount = pu->dimCount ? (c & 1 ? -(c + 1) / 2 : c / 2) : 0;
				int bad;
				double s = unit_scale(pu, &bad);
				if (!bad && fabs(s - scale) <= 1e-9 * fabs(scale))
					return 1;
			}
	pu->scaleSpace = pu->scaleTime = pu->scaleCount = 0;
	return 0;
}

int pcp_metric_desc_of(const mcz_stream_desc *s, pmDesc *d, double *mul, char *why,
		       size_t whylen)
{
	memset(d, 0, sizeof *d);
	*mul = 1.0;
	if (why && whylen)
		why[0] = '\0';
	/* the unit, "B/s" or "count.s^-1": dimensions, then the scale codes */
	const char *u = s->unit ? s->unit : "";
	const char *slash = strchr(u, '/');
	int named = 1;
	for (const char *p = u; *p;) {
		size_t n = strcspn(p, "./");
		named &= unit_token(p, n, slash && p > slash ? -1 : 1, &d->units);
		p += n;
		if (*p)
			p++;
	}
	double scale = s->scale > 0 && isfinite(s->scale) ? s->scale : 1.0;
	int fits = scale_codes(&d->units, scale);
	if (!fits && !d->units.dimCount && !d->units.dimSpace && !d->units.dimTime) {
		d->units.dimCount = 1; /* "%" stored x 0.01: a count of 10^-2 */
		if (!(fits = scale_codes(&d->units, scale)))
			d->units.dimCount = 0;
	}
	if (!fits)
		*mul = scale; /* no PCP scale says it: values converted to SI units */
	if (!named && why)
		snprintf(why, whylen, "PCP has no unit \"%s\" (%s)", u,
			 d->units.dimCount ? "counted" : "dimensionless");
	if (!fits && why) {
		size_t l = strlen(why);
		snprintf(why + l, whylen - l, "%sscale %g has no PCP scale: values x %g", l ? "; " : "",
			 scale, scale);
	}
	/* kind and type, and what an imported PCP metric was (its note) */
	const char *note = s->note ? s->note : "";
	int from_pcp = !strncmp(note, "pcp: ", 5);
	if (s->kind == MCZ_COUNTER) {
		d->sem = PM_SEM_COUNTER;
		d->type = PM_TYPE_U64;
	} else {
		d->sem = from_pcp && strstr(note, " discrete, ")	  ? PM_SEM_DISCRETE
			 : from_pcp && strstr(note, "kept as a gauge") ? PM_SEM_COUNTER
								      : PM_SEM_INSTANT;
		d->type = s->type == MCZ_F64 ? PM_TYPE_DOUBLE
			  : s->type == MCZ_I64 ? PM_TYPE_64
					       : PM_TYPE_U64;
	}
	if (*mul != 1.0)
		d->type = PM_TYPE_DOUBLE;
	d->pmid = PM_ID_NULL;
	d->indom = PM_INDOM_NULL;
	return named;
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
