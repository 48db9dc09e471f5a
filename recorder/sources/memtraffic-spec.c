/* memtraffic-spec.c: the parser of MCREC_PCP_MEM_METRICS, the user's list of
 * PCP metrics that count memory traffic on a platform whose perfevent
 * metric names memtraffic.c does not know:
 *
 *     MCREC_PCP_MEM_METRICS="read:perfevent.hwcounters.a.value*64,b.value;write:c.value*64"
 *
 *     rec_mem_metric m[32];
 *     int n = rec_memtraffic_spec_parse(getenv("MCREC_PCP_MEM_METRICS"), m, 32);
 *
 * Kept apart (no libpcp, no perf) so that the fuzz target compiles it alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtraffic.h"

int rec_memtraffic_spec_parse(const char *spec, rec_mem_metric *out, int max)
{
	char buf[2048], *save = NULL;
	int n = 0;

	if (!spec || max <= 0)
		return 0;
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *part = strtok_r(buf, ";", &save); part && n < max; part = strtok_r(NULL, ";", &save)) {
		int write;
		char *s2 = NULL;

		part += strspn(part, " ");
		if (strncmp(part, "read:", 5) == 0)
			write = 0;
		else if (strncmp(part, "write:", 6) == 0)
			write = 1;
		else
			continue;
		for (char *it = strtok_r(strchr(part, ':') + 1, ",", &s2); it && n < max; it = strtok_r(NULL, ",", &s2)) {
			char *star = strchr(it, '*'), *end = NULL;
			double bytes = 1.0;
			if (star) {
				*star = '\0';
				bytes = strtod(star + 1, &end);
				if (end == star + 1 || *end || !isfinite(bytes) || bytes <= 0)
					continue;
			}
			it += strspn(it, " ");
			if (!*it || strlen(it) >= sizeof out[0].name)
				continue;
			snprintf(out[n].name, sizeof out[n].name, "%s", it);
			out[n].write = write;
			out[n].bytes = bytes;
			n++;
		}
	}
	return n;
}
