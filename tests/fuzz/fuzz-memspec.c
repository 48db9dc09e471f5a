/* fuzz-memspec.c: libFuzzer target for the MCREC_PCP_MEM_METRICS parser
 * (recorder/sources/memtraffic-spec.c, compiled in here since fuzz builds take no
 * recorder library): any bytes give at most `max` well-formed metrics with
 * a finite positive byte factor, and never a crash or an overrun. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../recorder/sources/memtraffic-spec.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	rec_mem_metric m[8];

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	int n = rec_memtraffic_spec_parse(s, m, 8);
	if (n < 0 || n > 8)
		abort();
	for (int i = 0; i < n; i++)
		if (!m[i].name[0] || !(m[i].bytes > 0) || !isfinite(m[i].bytes) || (m[i].write != 0 && m[i].write != 1) ||
		    memchr(m[i].name, '\0', sizeof m[i].name) == NULL)
			abort();
	free(s);
	return 0;
}
