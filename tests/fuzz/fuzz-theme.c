/* fuzz-theme.c: libFuzzer target for the theme parser (viewer/term/theme.c).
 * Any bytes must parse without a crash, and every role must keep a valid
 * style (colour kinds in range, indexes <= 255, RGB <= 0xffffff). */
#include <stdint.h>
#include <stdlib.h>

#include "../../viewer/term/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vw_theme t;
	vw_theme_default(&t);
	vw_theme_parse(&t, (const char *)data, size);
	for (int r = 0; r < VW_C_COUNT; r++) {
		const vw_color *c[2] = {&t.role[r].fg, &t.role[r].bg};
		for (int k = 0; k < 2; k++) {
			if (c[k]->kind > VW_COLOR_RGB)
				abort();
			if (c[k]->kind == VW_COLOR_INDEX && c[k]->v > 255)
				abort();
			if (c[k]->kind == VW_COLOR_RGB && c[k]->v > 0xffffff)
				abort();
		}
	}
	if (t.name[sizeof t.name - 1] != '\0')
		abort();
	return 0;
}
