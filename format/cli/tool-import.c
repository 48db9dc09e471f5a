/* tool-import.c: `mcz import` — convert a PCP archive (local, folio, or
 * ssh://) into an .mcz recording with libmczpcp (format/pcp/pcp.h).
 *
 *     mcz import /var/log/pcp/pmlogger/node7/20261122 -o node7.mcz
 *     mcz import ssh://me@node7/var/log/pcp/pmlogger/node7/20261122.0.xz --metrics 'kernel.*'
 *
 * Prints one summary line on stdout (not with -q), a progress line on
 * stderr while it works (only on a terminal, not with -q), a warning line
 * when an archive ends early (damaged: what was read is kept, and the exit
 * status is 1, as pmdumplog's) or was read around a bad .index (nothing
 * lost, exit 0), and one error line with exit status 1 when the source
 * cannot be read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../pcp/pcp.h"
#include "tool.h"

static void usage(FILE *f)
{
	fputs(tool_common_usage("import"), f); /* one text, also for `mcz help import` */
}

/* Default output: the archive's base name in the current folder + ".mcz". */
static char *default_output(const char *src)
{
	char *dir, *base;
	if (pcp_path_split(src, &dir, &base) != 0)
		return NULL;
	size_t n = strlen(base);
	if (n > 6 && strcmp(base + n - 6, ".folio") == 0)
		n -= 6;
	char *out = malloc(n + 8);
	if (out && n)
		snprintf(out, n + 8, "%.*s.mcz", (int)n, base);
	else if (out)
		snprintf(out, n + 8, "pcp.mcz");
	free(dir);
	free(base);
	return out;
}

int tool_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "ssh-option", required_argument, NULL, 'S' },
		{ "level", required_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	pcp_import_opts o = PCP_IMPORT_OPTS_INIT;
	const char *out = NULL;
	const char **sshopt = calloc((size_t)argc + 1, sizeof *sshopt);
	size_t nssh = 0;
	int quiet = 0, c;
	o.zstd_level = 9;
	if (!sshopt) {
		fputs("mcz import: out of memory\n", stderr);
		return 1;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:m:z:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'm':
			o.metrics = optarg;
			break;
		case 'S':
			sshopt[nssh++] = optarg;
			break;
		case 'z':
			o.zstd_level = atoi(optarg);
			if (o.zstd_level < 1 || o.zstd_level > 22) {
				fprintf(stderr, "mcz import: --level %s: expected 1 to 22\n", optarg);
				free(sshopt);
				return 2;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			free(sshopt);
			return 0;
		default: /* getopt's own line is not ours: one line, naming the option */
			free(sshopt);
			return tool_common_usage_error("import", "unknown option or missing value: '%s'",
						       argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		free(sshopt);
		return tool_common_usage_error("import", "%s",
					       optind >= argc ? "no archive given" : "one archive at a time");
	}
	const char *src = argv[optind];
	o.ssh_options = sshopt;
	if (!quiet)
		o.progress = pcp_import_progress_tty;
	char *def = out ? NULL : default_output(src);
	if (!out && !(out = def)) {
		fputs("mcz import: out of memory\n", stderr);
		free(sshopt);
		return 1;
	}
	pcp_import_stats st;
	char err[1024];
	pcp_no_derived();
	int rc = pcp_import(src, out, &o, &st, err, sizeof err);
	if (rc) {
		for (char *p = err; *p; p++) /* one line, whatever the names contain */
			if ((unsigned char)*p < 0x20)
				*p = '?';
		fprintf(stderr, "mcz import: %s\n", err);
		free(def);
		free(sshopt);
		return 1;
	}
	if (st.warning[0])
		fprintf(stderr, "mcz import: warning: %s\n", st.warning);
	if (!quiet) {
		printf("%s -> %s: %llu metrics, %llu streams, %llu rows, %llu values, %llu marks; "
		       "%.1f KiB (%.2f B/value)",
		       src, out, (unsigned long long)st.metrics, (unsigned long long)st.streams,
		       (unsigned long long)st.rows, (unsigned long long)st.values,
		       (unsigned long long)st.marks, (double)st.out_bytes / 1024.0,
		       st.values ? (double)st.out_bytes / (double)st.values : 0.0);
		if (st.skipped_metrics)
			printf("; %llu non-numeric metrics skipped",
			       (unsigned long long)st.skipped_metrics);
		if (st.filtered)
			printf("; %llu metrics left out by --metrics", (unsigned long long)st.filtered);
		putchar('\n');
	}
	free(def);
	free(sshopt);
	/* rows lost (an archive cut short): what was read is in the file, and
	 * a script learns of the loss as pmdumplog tells it */
	return st.truncated ? 1 : 0;
}
