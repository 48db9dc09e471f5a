/* mark-wire.c: parsing of the mark datagram (see mark-wire.h).  Everything in
 * it comes from another process: numbers are range-checked, the text is
 * taken as it is (it is stored, never interpreted). */
#include "mark-wire.h"
#include "../mcmark.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "<ns> <pid> " at p: the numbers, and where the rest starts; NULL if bad. */
static char *src_mark_wire_head(char *p, int64_t *t, uint32_t *pid)
{
	char *end;
	if (*p < '0' || *p > '9')
		return NULL;
	errno = 0;
	long long tt = strtoll(p, &end, 10);
	if (errno || end == p || *end != ' ' || tt < 0)
		return NULL;
	char *p2 = end + 1;
	if (*p2 < '0' || *p2 > '9')
		return NULL;
	errno = 0;
	unsigned long pp = strtoul(p2, &end, 10);
	if (errno || end == p2 || (*end != ' ' && *end != '\0') || pp > UINT32_MAX)
		return NULL;
	*t = tt;
	*pid = (uint32_t)pp;
	return end;
}

int src_mark_wire_count(char *buf, int64_t *t, uint32_t *pid, double *amount, char **name,
			int max)
{
	if (buf[0] != 'C' || buf[1] != ' ')
		return -1;
	char *p = src_mark_wire_head(buf + 2, t, pid), *end;
	if (!p || *p != ' ')
		return -1;
	for (int n = 0;;) { /* p at the ' ' before "<amount> <name>" */
		if (n == max || !((p[1] >= '0' && p[1] <= '9') || p[1] == '.'))
			return -1;
		errno = 0;
		double a = strtod(p + 1, &end);
		if (errno || end == p + 1 || *end != ' ' || !isfinite(a) || a < 0)
			return -1;
		char *nm = end + 1;
		p = nm + strcspn(nm, " ");
		int last = *p == '\0';
		*p = '\0'; /* the name cut at its end (the datagram is dropped if bad) */
		if (!mcmark_count_name_ok(nm))
			return -1;
		amount[n] = a;
		name[n++] = nm;
		if (last)
			return n;
	}
}

int src_mark_wire_parse(char *buf, mcz_mark_kind *kind, int64_t *t, uint32_t *pid, char **text)
{
	char *end;
	if (buf[0] != 'P' && buf[0] != 'B' && buf[0] != 'E')
		return -1;
	*kind = buf[0] == 'B' ? MCZ_MARK_BEGIN : buf[0] == 'E' ? MCZ_MARK_END : MCZ_MARK_POINT;
	if (buf[1] != ' ' || buf[2] < '0' || buf[2] > '9')
		return -1;
	errno = 0;
	long long tt = strtoll(buf + 2, &end, 10);
	if (errno || end == buf + 2 || *end != ' ' || tt < 0)
		return -1;
	char *p2 = end + 1;
	if (*p2 < '0' || *p2 > '9')
		return -1;
	errno = 0;
	unsigned long pp = strtoul(p2, &end, 10);
	if (errno || end == p2 || (*end != ' ' && *end != '\0') || pp > UINT32_MAX)
		return -1;
	*t = tt;
	*pid = (uint32_t)pp;
	*text = *end ? end + 1 : end;
	return 0;
}
