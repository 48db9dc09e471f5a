/* fuzz-codename.c: libFuzzer target for the names of code
 * (format/code/code-name.c): any bytes, as a stored function name, demangled
 * and folded into full and brief names, and any full name's brief form;
 * every output terminated within its buffer, the brief one no longer than
 * the full one it comes from. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/mcz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	char full[512], brief[512], small[7], tiny[3];
	mcz_code_name(s, full, sizeof full, brief, sizeof brief);
	if (strlen(full) >= sizeof full || strlen(brief) > strlen(full))
		abort();
	mcz_code_name(s, small, sizeof small, tiny, sizeof tiny);
	if (strlen(small) >= sizeof small || strlen(tiny) >= sizeof tiny)
		abort();
	mcz_code_name_brief(s, brief, sizeof brief);
	if (strlen(brief) >= sizeof brief)
		abort();
	free(s);
	return 0;
}
