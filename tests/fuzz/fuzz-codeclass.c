/* fuzz-codeclass.c: libFuzzer target for the code-class rules parser
 * (viewer/analysis/code/codeclass.c).  Any bytes must parse without a crash;
 * the input is then matched as an object and as a function name, and
 * every answer must be one of the classes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../viewer/analysis/code/codeclass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vw_codeclass *cc = vw_codeclass_parse((const char *)data, size, "fuzz");
	if (!cc)
		return 0;
	char name[256];
	size_t n = size < sizeof name - 1 ? size : sizeof name - 1;
	memcpy(name, data, n);
	name[n] = '\0';
	int k[3] = {vw_codeclass_of(cc, name, name), vw_codeclass_of(cc, "libmpi.so.40", name),
		    vw_codeclass_of(cc, name, "")};
	for (int i = 0; i < 3; i++)
		if (k[i] < 0 || k[i] >= VW_CC_N)
			abort();
	if (strlen(vw_codeclass_note(cc)) >= 256)
		abort();
	vw_codeclass_free(cc);
	return 0;
}
