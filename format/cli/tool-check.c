/* tool-check.c: `mcz check FILE [--repair OUT]`: verifies the header,
 * every block's CRC, every chunk's columns and the index, and says what a
 * damaged or truncated file still holds (a file whose blocks are all good
 * but lacks its index is INCOMPLETE: still being recorded, or its recorder
 * was killed); --repair writes a clean copy of everything readable.  Like
 * fsck: exit 0 when clean (or repaired), 1 when damaged, 3 when incomplete
 * (every block whole, no index yet), 2 bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

int tool_check(int argc, char **argv)
{
	const char *path = NULL, *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repair") && i + 1 < argc)
			out = argv[++i];
		else if (!strncmp(argv[i], "--repair=", 9))
			out = argv[i] + 9;
		else if (argv[i][0] == '-' || path) {
			fputs(tool_common_usage("check"), stderr);
			return 2;
		} else
			path = argv[i];
	}
	if (!path) {
		fputs(tool_common_usage("check"), stderr);
		return 2;
	}
	mcz_check_report rep;
	int rc = mcz_check(path, &rep);
	if (rc) {
		tool_common_error("check", path, rc);
		return 1;
	}
	char vb[32], fb[32];
	tool_common_bytes(vb, sizeof vb, rep.valid_bytes);
	tool_common_bytes(fb, sizeof fb, rep.file_bytes);
	int clean = rep.index_ok && !rep.blocks_bad && !rep.first_problem[0];
	/* every byte readable, only the index and trailer missing: what a
	 * recording still being written looks like (or one whose recorder was
	 * killed); "DAMAGED" would alarm a user who looks during a run */
	int incomplete = !clean && !rep.index_ok && !rep.blocks_bad &&
			 rep.valid_bytes == rep.file_bytes;
	if (clean)
		printf("%s: ok: %" PRIu64 " blocks, %" PRIu64 " chunks, %" PRIu64
		       " rows, %s, every CRC verified\n",
		       path, rep.blocks_ok, rep.chunks_ok, rep.rows_ok, fb);
	else if (incomplete)
		printf("%s: INCOMPLETE: no index or trailer at the end: still being recorded, or "
		       "its recorder was killed\n"
		       "  readable: %" PRIu64 " chunks, %" PRIu64 " rows, %" PRIu64
		       " good blocks, every byte of %s\n",
		       path, rep.chunks_ok, rep.rows_ok, rep.blocks_ok, fb);
	else
		printf("%s: DAMAGED: %s\n"
		       "  readable: %" PRIu64 " chunks, %" PRIu64 " rows, %" PRIu64
		       " good blocks, %s of %s (up to byte %" PRIu64 ")\n"
		       "  damaged blocks: %" PRIu64 "; index: %s\n",
		       path, rep.first_problem, rep.chunks_ok, rep.rows_ok, rep.blocks_ok, vb, fb,
		       rep.valid_bytes, rep.blocks_bad,
		       rep.index_ok ? "ok" : "missing or damaged (rebuilt by scanning)");
	if (!out) {
		if (!clean)
			printf("  repair with: mcz check %s --repair FIXED.mcz\n", path);
		return clean ? 0 : incomplete ? 3 : 1;
	}
	if ((rc = mcz_repair(path, out))) {
		tool_common_error("check --repair", out, rc);
		return 1;
	}
	printf("repaired: wrote %s (%" PRIu64 " rows)\n", out, rep.rows_ok);
	return 0;
}
