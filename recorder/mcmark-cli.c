/* mcmark-cli.c: the `mcmark` command — marks from shell scripts into the
 * mcrec recording they run under (see mcmark(1); the C API is mcmark.h):
 *
 *     mcmark "DMC start"        a point mark
 *     mcmark -b resort          a region begins ... mcmark -e   ... ends
 *     mcmark --check            exit 0 under mcrec, 1 otherwise
 *
 * Outside mcrec a mark is silently ignored (exit 0), so one script serves
 * both cases. */
#include "mcmark.h"

#include <stdio.h>
#include <string.h>

static void mcmark_usage(FILE *f)
{
	fprintf(f, "usage: mcmark [-b|--begin] TEXT...   a point mark, or the start of a region\n"
		   "       mcmark -e|--end               the end of the innermost region\n"
		   "       mcmark --check                exit 0 when running under mcrec\n"
		   "Adds a mark to the recording of the enclosing mcrec (see mcmark(1)).\n");
}

int main(int argc, char **argv)
{
	char text[MCMARK_TEXT_MAX + 1] = "";
	int begin = 0, i = 1;
	if (argc < 2) {
		mcmark_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		mcmark_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--check"))
		return mcmark_active() ? 0 : 1;
	if (!strcmp(argv[1], "-e") || !strcmp(argv[1], "--end")) {
		if (argc > 2) {
			fprintf(stderr, "mcmark: --end takes no text\n");
			return 2;
		}
		mcmark_end();
		return 0;
	}
	if (!strcmp(argv[1], "-b") || !strcmp(argv[1], "--begin"))
		begin = 1, i = 2;
	else if (!strcmp(argv[1], "--"))
		i = 2;
	else if (argv[1][0] == '-' && argv[1][1]) {
		fprintf(stderr, "mcmark: unknown option '%s' (see --help)\n", argv[1]);
		return 2;
	}
	for (; i < argc; i++) {
		size_t at = strlen(text);
		snprintf(text + at, sizeof text - at, "%s%s", at ? " " : "", argv[i]);
	}
	if (!text[0]) {
		fprintf(stderr, "mcmark: no text given\n");
		return 2;
	}
	if (begin)
		mcmark_begin(text);
	else
		mcmark(text);
	return 0;
}
