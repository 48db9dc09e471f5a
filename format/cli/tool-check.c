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

/* Say what rep found in `name`; 0 clean, 3 incomplete, 1 damaged.  quiet:
 * nothing printed when clean. */
static int check_say(const char *name, const mcz_check_report *rep, int quiet)
{
	char vb[32], fb[32];
	tool_common_bytes(vb, sizeof vb, rep->valid_bytes);
	tool_common_bytes(fb, sizeof fb, rep->file_bytes);
	int clean = rep->index_ok && !rep->blocks_bad && !rep->first_problem[0];
	/* every byte readable, only the index and trailer missing: what a
	 * recording still being written looks like (or one whose recorder was
	 * killed); "DAMAGED" would alarm a user who looks during a run */
	int incomplete = !clean && !rep->index_ok && !rep->blocks_bad &&
			 rep->valid_bytes == rep->file_bytes;
	if (clean && !quiet)
		printf("%s: ok: %" PRIu64 " blocks, %" PRIu64 " chunks, %" PRIu64
		       " rows, %s, every CRC verified\n",
		       name, rep->blocks_ok, rep->chunks_ok, rep->rows_ok, fb);
	else if (incomplete)
		printf("%s: INCOMPLETE: no index or trailer at the end: still being recorded, or "
		       "its recorder was killed\n"
		       "  readable: %" PRIu64 " chunks, %" PRIu64 " rows, %" PRIu64
		       " good blocks, every byte of %s\n",
		       name, rep->chunks_ok, rep->rows_ok, rep->blocks_ok, fb);
	else if (!clean)
		printf("%s: DAMAGED: %s\n"
		       "  readable: %" PRIu64 " chunks, %" PRIu64 " rows, %" PRIu64
		       " good blocks, %s of %s (up to byte %" PRIu64 ")\n"
		       "  damaged blocks: %" PRIu64 "; index: %s\n",
		       name, rep->first_problem, rep->chunks_ok, rep->rows_ok, rep->blocks_ok, vb, fb,
		       rep->valid_bytes, rep->blocks_bad,
		       rep->index_ok ? "ok" : "missing or damaged (rebuilt by scanning)");
	return clean ? 0 : incomplete ? 3 : 1;
}

/* A job file (mcz merge): its own blocks, then every member as a file of
 * its own; one line for the job, one for each member that is not clean or
 * is cut short, and one for those the job file lacks; the summary counts
 * them all. */
static int check_job(const char *path, const mcz_check_report *job, mcz_reader *r)
{
	size_t n = mcz_member_count(r), bad = 0, cut = 0, lost = 0;
	size_t want = mcz_member_expected(r), absent = want > n ? want - n : 0;
	uint64_t rows = 0;
	int status = check_say(tool_common_esc(path), job, 1);
	int job_bad = status != 0;
	for (size_t i = 0; i < n; i++) {
		mcz_check_report rep;
		char name[512];
		snprintf(name, sizeof name, "%s:%s", path, mcz_member_name(r, i));
		int rc = mcz_check_member(r, i, &rep);
		if (rc) {
			const char *d = mcz_errdetail(), *c = strstr(d, ": ");
			if (rc == MCZ_E_TRUNCATED && c)
				printf("%s: LOST: %s\n", tool_common_esc(name), tool_common_esc(c + 2));
			else
				tool_common_error("check", name, rc);
			lost++;
			status = 1;
			continue;
		}
		rows += rep.rows_ok;
		int s = check_say(tool_common_esc(name), &rep, 1);
		bad += s == 1;
		cut += s == 3;
		if (s == 1 || (s == 3 && status == 0))
			status = s;
	}
	if (absent) {
		printf("%s: LOST: %zu more recording%s, not in the file (it ends before %s)\n",
		       tool_common_esc(path), absent, absent == 1 ? "" : "s",
		       absent == 1 ? "it" : "them");
		status = 1;
	}
	path = tool_common_esc(path);
	if (!status)
		printf("%s: ok: a job file of %zu recording%s, %" PRIu64
		       " rows, every CRC of every recording verified\n",
		       path, n, n == 1 ? "" : "s", rows);
	else
		printf("%s: %s%zu recording%s: %zu damaged, %zu lost, %zu incomplete, %zu ok\n", path,
		       job_bad ? "the job file DAMAGED; " : "", n + absent,
		       n + absent == 1 ? "" : "s", bad, lost + absent, cut,
		       n - bad - lost - cut);
	return status;
}

int tool_check(int argc, char **argv)
{
	const char *path = NULL, *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repair") && i + 1 < argc)
			out = argv[++i];
		else if (!strncmp(argv[i], "--repair=", 9))
			out = argv[i] + 9;
		else if (!strcmp(argv[i], "--repair"))
			return tool_common_usage_error("check", "--repair needs the file to write");
		else if (argv[i][0] == '-' && argv[i][1])
			return tool_common_usage_error("check", "unknown option '%s'", argv[i]);
		else if (path)
			return tool_common_usage_error("check", "one file at a time ('%s' is a second)",
						       argv[i]);
		else
			path = argv[i];
	}
	if (!path)
		return tool_common_usage_error("check", "no file given");
	mcz_check_report rep;
	int rc = mcz_check(path, &rep);
	if (rc) {
		tool_common_error("check", path, rc);
		return 1;
	}
	mcz_reader *jr = NULL;
	if (mcz_open(&jr, path, 0) == MCZ_OK && (mcz_member_count(jr) || mcz_member_expected(jr))) {
		int st = check_job(path, &rep, jr);
		mcz_close(jr);
		if (out) {
			fprintf(stderr, "mcz check: %s is a job file: --repair takes one recording "
					"(mcz split %s, then check each)\n",
				path, path);
			return 1;
		}
		return st;
	}
	mcz_close(jr);
	int st = check_say(path, &rep, 0);
	int clean = st == 0;
	if (!out) {
		if (!clean)
			printf("  repair with: mcz check %s --repair FIXED.mcz\n", path);
		return st;
	}
	if ((rc = mcz_repair(path, out))) {
		tool_common_error("check --repair", out, rc);
		return 1;
	}
	printf("repaired: wrote %s (%" PRIu64 " rows)\n", out, rep.rows_ok);
	return 0;
}
