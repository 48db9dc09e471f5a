/* tool-main.c: the `mcz` program: dispatches to the subcommands
 * (format/cli/tool-*.c) and answers --help, --version and `mcz help CMD`.
 *
 *     mcz info run.mcz
 *     mcz check run.mcz --repair fixed.mcz
 *     mcz dump run.mcz --csv --streams 'core.*' --from 10 --to 12.5
 *     mcz merge run.*.mcz -o job.mcz
 *     mcz export --pcp out/run run.mcz
 */
#include <stdio.h>
#include <string.h>

#include "../../recorder/codesym.h"
#include "tool.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} tool_cmds[] = {
	{"info", tool_info},
	{"check", tool_check},
	{"dump", tool_dump},
	{"import", tool_import},
	{"merge", tool_merge},
	{"split", tool_split},
	{"export", tool_export},
};

int main(int argc, char **argv)
{
	/* a cut recording's code named from this host's binaries */
	mcz_code_set_symbolizer(rec_code_symbolize);
	if (argc < 2) {
		fprintf(stderr, "mcz: no command given (see mcz --help)\n");
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(tool_common_usage(NULL), stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("mcz (format %d.%d)\n", MCZ_VERSION_MAJOR, MCZ_VERSION_MINOR);
		return 0;
	}
	if (!strcmp(cmd, "help")) {
		const char *u = tool_common_usage(argc > 2 ? argv[2] : NULL);
		if (!u) {
			fprintf(stderr, "mcz help: no command '%s' (try: mcz --help)\n", argv[2]);
			return 2;
		}
		fputs(u, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof tool_cmds / sizeof tool_cmds[0]; i++)
		if (!strcmp(cmd, tool_cmds[i].name)) {
			for (int a = 2; a < argc; a++)
				if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
					fputs(tool_common_usage(cmd), stdout);
					return 0;
				}
			return tool_cmds[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "mcz: unknown command '%s' (try: mcz --help)\n", cmd);
	return 2;
}
