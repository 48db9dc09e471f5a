/* mark-wire.c: parsing of the mark datagram (see mark-wire.h).  Everything in
 * it comes from another process: numbers are range-checked, the text is
 * taken as it is (it is stored, never interpreted). */
#include "mark-wire.h"

#include <errno.h>
#include <stdlib.h>

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
