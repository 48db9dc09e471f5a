/* gen-roof.c: writes the roofline's test recording (tests/unit/roof-fixture.h)
 * for shell tests: hardware counts as the perfevent PMDA names them, the
 * application's counts, ceilings, in any mix.
 *
 *   gen-roof FILE [hw] [app] [ceil] [nofp]
 */
#include <stdio.h>
#include <string.h>

#include "../../unit/roof-fixture.h"

int main(int argc, char **argv)
{
	int what = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: gen-roof FILE [hw] [app] [ceil] [nofp]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "hw"))
			what |= ROOF_FX_HW;
		else if (!strcmp(argv[i], "app"))
			what |= ROOF_FX_APP;
		else if (!strcmp(argv[i], "ceil"))
			what |= ROOF_FX_CEIL;
		else if (!strcmp(argv[i], "nofp"))
			what |= ROOF_FX_NO_FP;
		else {
			fprintf(stderr, "gen-roof: unknown '%s' (hw, app, ceil, nofp)\n", argv[i]);
			return 2;
		}
	}
	int rc = roof_fixture_write(argv[1], what);
	if (rc) {
		fprintf(stderr, "gen-roof: %s: %s\n", argv[1], mcz_strerror(rc));
		return 1;
	}
	return 0;
}
