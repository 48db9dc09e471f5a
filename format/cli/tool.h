/* tool.h: the subcommands of the `mcz` program and what they share.
 * Each subcommand is one file format/cli/tool-NAME.c with an entry point
 * `int tool_NAME(int argc, char **argv)` (argv[0] is the subcommand name)
 * returning the exit status: 0 success, 1 the file is bad or the work
 * failed, 2 bad usage.  format/cli/tool-main.c dispatches.
 */
#ifndef MCZ_TOOL_H
#define MCZ_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "../mcz.h"

int tool_info(int argc, char **argv);
int tool_check(int argc, char **argv);
int tool_dump(int argc, char **argv);
/* mcz dump --code (tool-dump-code.c): the code profile in [a, b), times
 * printed from origin; csv or json or text.  Returns the exit status. */
int tool_dump_code(mcz_reader *r, const char *path, int csv, int json, int64_t a, int64_t b,
		   int64_t origin);
/* mcz dump --code --folded (tool-dump-folded.c): the code profile as
 * folded stacks, of [from + f, to + t) of each recording (from/to NULL:
 * unbounded), rank < 0: every rank of a job file.  The exit status. */
int tool_dump_folded(mcz_reader *r, const char *path, const char *from, const char *to,
		     int64_t f, int64_t t, long rank);
/* mcz import: PCP archive -> .mcz (format/cli/tool-import.c, the PCP engineer's). */
int tool_import(int argc, char **argv);
/* mcz merge / mcz split: rank files into one job file and back (tool-merge.c). */
int tool_merge(int argc, char **argv);
int tool_split(int argc, char **argv);
/* mcz export --pcp: a recording as a PCP archive (tool-export.c). */
int tool_export(int argc, char **argv);

/* tool-ceilings.c: the roofline's ceilings (metadata roof.*) for mcz info. */
void tool_ceilings_print(mcz_reader *r);
int tool_ceilings_is_key(const char *key);

/* Open path for reading; on failure print one line "mcz CMD: PATH: why"
 * on stderr and return non-zero. */
int tool_common_open(const char *cmd, const char *path, unsigned flags, mcz_reader **r);
/* Print "mcz CMD: PATH: <error>[: detail]" for a libmcz error. */
void tool_common_error(const char *cmd, const char *path, int err);
/* Parse a time "12.5", "12.5s", "1500ms", "20us", "7ns" into ns; 0 or -1. */
int tool_common_time(const char *s, int64_t *ns);
/* s escaped for the terminal (mcz_termsafe), in one of 16 buffers used in
 * turn: valid until 16 more calls, so that one printf may take several. */
const char *tool_common_esc(const char *s);
/* s as a JSON string, quoted and escaped, on stdout. */
void tool_common_json_str(const char *s);
/* Damaged blocks the reader left out: one line on stderr naming them and
 * what follows; 1 when there were any (the command then exits 1). */
int tool_common_damage(const char *cmd, const char *path, const mcz_reader *r);
/* s as one CSV field (RFC 4180), escaped for the terminal only on a terminal. */
void tool_common_csv_str(const char *s);
/* "1.2 MiB" */
void tool_common_bytes(char *buf, size_t n, uint64_t bytes);
/* A usage error: "mcz CMD: <problem> (see mcz CMD --help)", one line on
 * stderr; returns 2, the exit status of bad usage. */
int tool_common_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The usage text of a subcommand (NULL: the overview). */
const char *tool_common_usage(const char *cmd);

#endif
