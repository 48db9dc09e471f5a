/* tool-common.c: what the `mcz` subcommands share: opening a file with a
 * one-line error, parsing times with unit suffixes, human sizes, and the
 * usage texts (printed by --help, `mcz help CMD` and on bad usage).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

void tool_common_error(const char *cmd, const char *path, int err)
{
	/* the path may name a member, the detail quote a file's bytes */
	const char *d = tool_common_esc(mcz_errdetail());
	path = tool_common_esc(path);
	if (err == MCZ_E_IO) { /* the system's reason says it better than "I/O error" */
		fprintf(stderr, "mcz %s: %s: %s\n", cmd, path, *d ? d : strerror(errno));
		return;
	}
	if (err == MCZ_E_ISDIR) /* not "is a directory: a directory, not a recording" */
		fprintf(stderr, "mcz %s: %s: %s, not a recording\n", cmd, path, mcz_strerror(err));
	else
		fprintf(stderr, "mcz %s: %s: %s%s%s\n", cmd, path, mcz_strerror(err), *d ? ": " : "",
			d);
}

/* 1 when path names a PCP archive: its base name (ARCHIVE.meta beside it)
 * or one of its files (.meta, .index, .N, compressed or not); its base
 * name into base. */
static int common_is_pcp(const char *path, char *base, size_t len)
{
	static const char *const metas[] = {".meta", ".meta.xz", ".meta.zst", ".meta.gz"};
	const char *slash = strrchr(path, '/');
	size_t n = strlen(path);
	/* the name as given, then without one suffix, then without two
	 * (20180102.0.xz) */
	for (int cut = 0; cut < 3; cut++) {
		for (size_t i = 0; i < sizeof metas / sizeof metas[0]; i++) {
			char meta[4096];
			if (n + strlen(metas[i]) >= sizeof meta)
				continue;
			snprintf(meta, sizeof meta, "%.*s%s", (int)n, path, metas[i]);
			if (access(meta, F_OK) == 0) {
				snprintf(base, len, "%.*s", (int)n, path);
				return 1;
			}
		}
		const char *dot = NULL;
		for (const char *q = path; q < path + n; q++)
			if (*q == '.' && (!slash || q > slash))
				dot = q;
		if (!dot)
			break;
		n = (size_t)(dot - path);
	}
	return 0;
}

int tool_common_open(const char *cmd, const char *path, unsigned flags, mcz_reader **r)
{
	int rc = mcz_open(r, path, flags); /* "JOB.mcz:NAME" too */
	char base[4096];
	if (rc && (rc == MCZ_E_IO || rc == MCZ_E_NOTMCZ) && common_is_pcp(path, base, sizeof base)) {
		/* not "No such file": a PCP archive, and what reads it */
		fprintf(stderr, "mcz %s: %s: a PCP archive, not an mcz recording: mcz import %s -o "
			"FILE.mcz converts it, mcview %s shows it\n", cmd, tool_common_esc(path),
			tool_common_esc(base), tool_common_esc(base));
		return 1;
	}
	if (rc) {
		tool_common_error(cmd, path, rc);
		return 1;
	}
	return 0;
}

int tool_common_time(const char *s, int64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return -1;
	double mul = 1e9;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		mul = 1e9;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60e9;
	else
		return -1;
	double x = v * mul;
	if (x > 9.2e18 || x < -9.2e18)
		return -1;
	*ns = (int64_t)llround(x);
	return 0;
}

void tool_common_bytes(char *buf, size_t n, uint64_t bytes)
{
	static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double x = (double)bytes;
	int u = 0;
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, n, "%.1f %s", x, unit[u]);
}

const char *tool_common_usage(const char *cmd)
{
	if (!cmd)
		return "usage: mcz COMMAND [ARGS]\n"
		       "Inspect .mcz recordings (written by mcrec, read by mcview).\n"
		       "\n"
		       "commands:\n"
		       "  info FILE                 host, command, time range, streams, sizes\n"
		       "  check FILE [--repair OUT] verify every CRC; say what a damaged file holds\n"
		       "  dump FILE [--csv|--json] [--streams GLOB,...] [--from T] [--to T]\n"
		       "                            print samples (T: seconds from the start,\n"
		       "                            or with a suffix: 1500ms, 20us, 7ns)\n"
		       "  dump FILE --code [--csv|--json]  the code profile (mcrec's code source)\n"
		       "  import [-o FILE] ARCHIVE  convert a PCP archive (mcz help import)\n"
		       "  merge FILE|DIR... -o JOB  a parallel job's rank files into one job file\n"
		       "  split JOB [-o DIR] [-f]   a job file back into its rank files\n"
		       "  export --pcp DIR/NAME FILE  write a PCP archive (mcz help export)\n"
		       "  help [COMMAND]            this text, or a command's\n"
		       "\n"
		       "Exit status: 0 success, 1 bad or damaged file, 2 bad usage.\n"
		       "See mcz(1).\n";
	if (!strcmp(cmd, "info"))
		return "usage: mcz info FILE\n"
		       "Print the recording's host, command, time range, metadata, the topology\n"
		       "summary, and every stream (id, name, instance, kind, type, unit, source,\n"
		       "native event), with the bytes stored and bytes per value.\n";
	if (!strcmp(cmd, "check"))
		return "usage: mcz check FILE [--repair OUT]\n"
		       "Verify the header, every block's CRC, every chunk's columns and the\n"
		       "index.  A damaged or truncated file is reported with what it still\n"
		       "holds; --repair writes everything readable to OUT as a clean file.\n"
		       "Exit status: 0 clean (or repaired), 1 damaged, 2 bad usage.\n";
	if (!strcmp(cmd, "dump"))
		return "usage: mcz dump FILE [--csv|--json] [--streams GLOB,...] [--from T] [--to T]\n"
		       "Print the samples of the selected streams (all by default) between T\n"
		       "(inclusive) and T (exclusive), times in seconds from the start of the\n"
		       "recording.  GLOB matches the stream name or name[instance], e.g.\n"
		       "'core.*' or 'core.instructions[cpu3]'.  Counters are printed as the raw\n"
		       "cumulative values recorded, floats in the shortest form that reads back\n"
		       "bit-identical; a missing value is '-' (text), empty (CSV) or null (JSON).\n"
		       "With --code: the code profile instead, one row per interval and code\n"
		       "location (function, inlined into, file:line, object+offset, samples); in\n"
		       "JSON the location table and each interval's [location, samples] pairs.\n"
		       "With --code --folded [--rank R]: the call stacks as folded lines,\n"
		       "'root;caller;...;leaf samples', as flamegraph.pl, inferno and speedscope\n"
		       "read them (inlined functions as frames; a job file: its ranks added up,\n"
		       "or rank R's).\n";
	if (!strcmp(cmd, "merge"))
		return "usage: mcz merge FILE|DIR|@LIST... -o JOB.mcz [-q]\n"
		       "Write the recordings of a parallel job (mcrec -o run.%r.mcz under mpirun)\n"
		       "into one job file, each kept byte for byte with its rank, host, clock,\n"
		       "marks and code profile; mcview JOB.mcz shows the job as it shows the\n"
		       "rank files.  A folder DIR gives its .mcz files, @LIST the paths LIST\n"
		       "names one a line ('#' comments; @- standard input): a job of more ranks\n"
		       "than a command line holds; one input is open at a time.  Members are\n"
		       "ordered by job and rank; a job file given is taken member by member.\n"
		       "Notes (one line each, on stderr): ranks of several jobs, a rank twice,\n"
		       "ranks missing, a recording without its index; every recording is kept\n"
		       "as it is.  An earlier JOB.mcz is kept as JOB.mcz.old.  mcz split gives\n"
		       "the rank files back.\n"
		       "  -o, --output JOB.mcz   the job file to write (required)\n"
		       "  -q, --quiet            no notes and no summary\n";
	if (!strcmp(cmd, "split"))
		return "usage: mcz split JOB.mcz [-o DIR] [--force]\n"
		       "Write each recording of a job file (mcz merge) into DIR (default: the\n"
		       "current folder) under the name it was merged with.  Every name is\n"
		       "checked first: an existing file of one stops the split with nothing\n"
		       "written, unless --force (overwrite).  Of a damaged job file, every\n"
		       "recording it holds whole is written and the others named (exit 1).\n";
	if (!strcmp(cmd, "export"))
		return "usage: mcz export --pcp DIR/NAME [-q] FILE\n"
		       "Write the recording FILE (or a job file, or one member JOB:NAME) as the\n"
		       "PCP archive DIR/NAME (NAME.0, NAME.meta, NAME.index; DIR is made if\n"
		       "missing), for pmdumplog, pmrep, pmchart, pmseries and the pcp2* tools.\n"
		       "Each stream name is a PCP metric (as it is: mcz import gives it back;\n"
		       "a name PCP does not allow is changed, said on stderr, its original kept\n"
		       "as label mcz_name or mcz_instance, which mcz import gives back),\n"
		       "the streams of one name its instances (cpu3, eth0); PCP units and\n"
		       "semantics from mcz import's mapping used backwards; values as mcz dump\n"
		       "prints them (counters cumulative), at wall-clock time to the microsecond;\n"
		       "host, job, rank and command as labels; marks as the string metric\n"
		       "mcz.mark.  A job file gives one archive per host (NAME, or NAME-HOST\n"
		       "each when the job ran on several), its ranks as instances rankR:INST.\n"
		       "An existing archive of that name is never overwritten.\n"
		       "  --pcp DIR/NAME   the archive to write (required)\n"
		       "  -q, --quiet      no summary line\n"
		       "Exit status: 0 written; 1 unreadable input, damaged input (the rest is\n"
		       "written, the loss named), or the archive could not be written; 2 bad usage.\n";
	if (!strcmp(cmd, "import"))
		return "usage: mcz import [options] ARCHIVE\n"
		       "Convert a PCP archive (pmlogger) into a .mcz recording: one stream per\n"
		       "metric and instance, values as stored by PCP, units scaled to SI.\n"
		       "\n"
		       "ARCHIVE is a PCP archive's base name, any of its files (x.0, x.0.xz,\n"
		       "x.meta, x.index), a folder of archives, a pmafm folio, a comma-separated\n"
		       "list, or ssh://[user@]host[:port]/path to fetch one with ssh.\n"
		       "\n"
		       "  -o, --output FILE      write FILE (default: the archive's base name + .mcz);\n"
		       "                         an earlier FILE is replaced only once it is whole\n"
		       "  -m, --metrics PATTERN  only metrics matching these comma-separated globs,\n"
		       "                         e.g. 'kernel.all.*,mem.util' (a name takes its subtree)\n"
		       "      --ssh-option OPT   pass \"-o OPT\" to ssh (repeatable), e.g. Port=2222\n"
		       "  -z, --level N          zstd level, 1 to 22 (default 9)\n"
		       "  -q, --quiet            no progress line and no summary\n"
		       "See mcz-import(1).\n";
	return NULL;
}

int tool_common_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "mcz %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see mcz %s --help)\n", cmd);
	return 2;
}

int tool_common_damage(const char *cmd, const char *path, const mcz_reader *r)
{
	char what[160];
	uint64_t n = mcz_damaged_blocks(r, what, sizeof what);
	if (!n)
		return 0;
	fprintf(stderr, "mcz %s: %s: DAMAGED: %llu block%s left out (the first: %s): what %s "
		"held is missing here (mcz check %s names it)\n", cmd, tool_common_esc(path),
		(unsigned long long)n, n == 1 ? "" : "s", what, n == 1 ? "it" : "they",
		tool_common_esc(path));
	return 1;
}

void tool_common_csv_str(const char *s)
{
	/* RFC 4180: quoted when it holds a comma, a quote or a line break, a
	 * quote doubled; the file's bytes as they are, so that a reader of
	 * the CSV gets the names to_pandas() gives, escaped only for a
	 * terminal (a line break then shows as \n) */
	if (isatty(STDOUT_FILENO))
		s = tool_common_esc(s);
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

const char *tool_common_esc(const char *s)
{
	static char *ring[16];
	static size_t cap[16], at;
	size_t i = at++ % 16, n = mcz_termsafe(NULL, 0, s) + 1;
	if (n > cap[i]) {
		char *p = realloc(ring[i], n);
		if (!p)
			return "(out of memory)";
		ring[i] = p;
		cap[i] = n;
	}
	mcz_termsafe(ring[i], cap[i], s);
	return ring[i];
}

void tool_common_json_str(const char *s)
{
	char buf[512], *big = NULL, *out = buf;
	size_t n = mcz_json_escape(buf, sizeof buf, s);
	if (n >= sizeof buf && (big = malloc(n + 1)) != NULL)
		mcz_json_escape(out = big, n + 1, s);
	printf("\"%s\"", out);
	free(big);
}
