/* tool-export.c: `mcz export --pcp DIR/NAME FILE` — a recording (or a job
 * file, or one member JOB:NAME) written as a PCP archive through
 * libpcp_import, so that pmdumplog, pmrep, pmchart, pmseries and the pcp2*
 * exporters read it (format/pcp/pcp-export.c; the rules in pcp.h).
 *
 *     mcz export --pcp out/run run.mcz       # out/run.0, .meta, .index
 *     mcz export --pcp out/job job.mcz       # one archive per host
 *
 * One summary line on stdout (not with -q); the names PCP could not take
 * as they are, a line each on stderr (always); one error line and exit 1 when
 * the recording cannot be read or the archive cannot be written; a damaged
 * recording is exported as far as it reads, named in one line, exit 1 (as
 * mcz dump).
 */
#include <stdio.h>
#include <string.h>

#include "../pcp/pcp.h"
#include "tool.h"

/* An archive named by one of its files, "exp/rec1.0", "exp/rec1.meta" or
 * "exp/rec1.index", is the archive "exp/rec1", as PCP's tools take such
 * names (pmdumplog rec1.0 reads rec1): its base, into buf. */
static const char *export_base(const char *out, char *buf, size_t len)
{
	snprintf(buf, len, "%s", out);
	char *dot = strrchr(buf, '.'), *slash = strrchr(buf, '/');
	if (!dot || (slash && dot < slash) || dot == buf || dot[-1] == '/')
		return buf;
	int digits = dot[1] != '\0';
	for (const char *p = dot + 1; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	if (digits || !strcmp(dot, ".meta") || !strcmp(dot, ".index"))
		*dot = '\0';
	return buf;
}

int tool_export(int argc, char **argv)
{
	const char *path = NULL, *out = NULL;
	int quiet = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--pcp") && i + 1 < argc)
			out = argv[++i];
		else if (!strncmp(a, "--pcp=", 6))
			out = a + 6;
		else if (!strcmp(a, "--pcp"))
			return tool_common_usage_error("export", "--pcp needs the archive's name, DIR/NAME");
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			quiet = 1;
		else if (a[0] == '-' && a[1])
			return tool_common_usage_error("export", "unknown option '%s'", a);
		else if (path)
			return tool_common_usage_error("export", "one file at a time ('%s' is a second)", a);
		else
			path = a;
	}
	if (!out)
		return tool_common_usage_error("export", "say what to write: --pcp DIR/NAME");
	if (!path)
		return tool_common_usage_error("export", "no file given");
	mcz_reader *r;
	if (tool_common_open("export", path, 0, &r))
		return 1;
	pcp_export_stats st;
	char err[1024], base[4096];
	int rc = pcp_export(r, export_base(out, base, sizeof base), &st, err, sizeof err);
	int dam = rc ? 0 : mcz_damaged_blocks(r, NULL, 0) > 0;
	if (dam && !st.damaged[0])
		tool_common_damage("export", path, r);
	mcz_close(r);
	if (rc) {
		fprintf(stderr, "mcz export: %s\n", tool_common_esc(err));
		return 1;
	}
	/* every name changed for PCP said, even with -q: the archive does not
	 * hold what the recording calls it (mcz import gives it back) */
	if (st.renamed) {
		fprintf(stderr, "mcz export: %llu name%s changed for PCP (the original%s kept as "
				"label mcz_name or mcz_instance, read back by mcz import):\n",
			(unsigned long long)st.renamed, st.renamed == 1 ? "" : "s",
			st.renamed == 1 ? "" : "s");
		uint64_t said = 0;
		for (char *p = st.renames, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1, said++) {
			*nl = '\0';
			fprintf(stderr, "mcz export:   %s\n", tool_common_esc(p));
		}
		if (said < st.renamed)
			fprintf(stderr, "mcz export:   ... and %llu more\n",
				(unsigned long long)(st.renamed - said));
	}
	if (!quiet)
		printf("%s -> %s: %llu metrics, %llu records, %llu values, %llu marks\n",
		       tool_common_esc(path), tool_common_esc(st.paths),
		       (unsigned long long)st.metrics, (unsigned long long)st.records,
		       (unsigned long long)st.values, (unsigned long long)st.marks);
	if (st.damaged[0]) {
		fprintf(stderr, "mcz export: %s: %s; every other row was exported (mcz check %s)\n",
			tool_common_esc(path), tool_common_esc(st.damaged), tool_common_esc(path));
		return 1;
	}
	return dam;
}
