/* mcview-options.c: mcview's command line — the options parsed into an
 * mcview_options (app.h) and checked, the recordings' folders and @lists
 * expanded and their number held to what the system maps, every refusal
 * one line for main to print after "mcview: ", before anything is opened;
 * and --help's text.  mcview-main.c runs what they say.
 *
 *     mcview_options o;
 *     char err[4096];
 *     int rc = mcview_options_parse(argc, argv, &o, err, sizeof err);
 *     if (rc == 1)                     // --help, --version: printed
 *             rc = 0;
 *     else if (rc == 0 && (rc = mcview_options_paths(&o, err, sizeof err)) == 0)
 *             ... run;
 *     else
 *             fprintf(stderr, "mcview: %s\n", err);
 *     mcview_options_free(&o);
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* "timeline, phases, topology": the view table's names, for --help and
 * the --view error (so a new view needs no edit here). */
static const char *view_names(void)
{
	static char buf[256];
	buf[0] = '\0';
	for (int i = 0; vw_views[i]; i++) {
		size_t u = strlen(buf);
		snprintf(buf + u, sizeof buf - u, "%s%s", i ? ", " : "", vw_views[i]->name);
	}
	return buf;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mcview [options] FILE.mcz|DIR|@LIST...\n"
		"       mcview --compare [options] A.mcz B.mcz\n"
		"Walk through mcz recordings: every stream on one time axis.\n"
		"Several files are aligned on wall-clock time.  A folder DIR gives its .mcz\n"
		"files, @LIST the paths LIST names one a line (the rank files of a job too\n"
		"many for a command line; beyond vm.max_map_count, mcz merge them first).\n"
		"PCP archives (base name, volume, .meta, folio, a folder of them) and\n"
		"ssh://[user@]host[:port]/path open as recordings.\n"
		"\n"
		"  --snapshot WxH     print one rendered screen as text and exit\n"
		"  --view NAME        start in view NAME: %s\n"
		"  --at T             put the cursor at time T (12.5, 12.5s, 300ms, 2m)\n"
		"  --window T0,T1     show the window [T0, T1) instead of the whole run\n"
		"  --filter PATTERN   show only rows whose name contains PATTERN\n"
		"  --keys K1,K2,...   feed keys before drawing (names as in the help: +,Left,Enter)\n"
		"  --theme NAME       colour theme (themes/NAME.theme or a path); env MCVIEW_THEME\n"
		"  --no-color         no colours, only bold/reverse (also NO_COLOR=1)\n"
		"  --ascii            ASCII glyphs only (automatic outside a UTF-8 locale)\n"
		"  --blocks           block glyphs instead of braille for sparklines\n"
		"  --no-mouse         leave the mouse to the terminal\n"
		"  --metrics PATTERN  PCP archives: only metrics matching these globs (a,b*)\n"
		"  --ssh-option OPT   ssh:// sources: pass \"-o OPT\" to ssh (repeatable)\n"
		"  -q, --quiet        no progress line while a PCP archive loads\n"
		"  --cache-size SIZE  PCP archives: keep at most SIZE (1G, 300M, 0 = none) of\n"
		"                     converted archives in $XDG_CACHE_HOME/mcz (default 1G)\n"
		"%s"
		"  --compare A B      compare two runs phase by phase (A, B: FILE, or repeated\n"
		"                     runs FILE1,FILE2,...): the Compare view, or with --report\n"
		"                     the table (exit 2 when nothing can be compared)\n"
		"  --fail-above PCT   with --compare: print the report and exit 1 when a matched\n"
		"                     phase is slower by more than PCT %% (and beyond noise)\n"
		"  --code-classes     print the rules that class code samples (work, mpi, sync)\n"
		"  -h, --help         this help\n"
		"  -V, --version      version\n"
		"\n"
		"Keys: ? help, q quit, Tab next view, +/- zoom, arrows pan, / filter,\n"
		"s order the rows (activity, name, source), f the flame graph of the span\n"
		"(recorded with mcrec --call-graph fp|dwarf).\n"
		"See mcview(1).\n", view_names(), vw_phase_cli_help);
}

__attribute__((format(printf, 3, 4))) static int refuse(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return 2;
}

/* "12.5" (seconds), "12.5s", "300ms", "40us", "100ns", "2m", "1h". */
static int parse_time(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* a finite time an int64 of ns holds (NaN, inf and 1e30 are none) */
	if (end == s || errno || !(v > -9.2e9 && v < 9.2e9))
		return -1;
	static const struct {
		const char *suf;
		double mul;
	} u[] = {{"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"m", 60e9}, {"h", 3600e9}};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (strcmp(end, u[i].suf) == 0 && fabs(v * u[i].mul) < 9.2e18) {
			*out = (int64_t)(v * u[i].mul);
			return 0;
		}
	return -1;
}

enum { O_SNAPSHOT = 256, O_VIEW, O_AT, O_WINDOW, O_FILTER, O_KEYS, O_THEME, O_NOCOLOR,
       O_ASCII, O_BLOCKS, O_NOMOUSE, O_METRICS, O_SSHOPT, O_CACHESIZE, O_COMPARE, O_FAIL_ABOVE,
       O_CLASSES, O_PHASE0 }; /* O_PHASE0 + vw_phase_cli_opt */

void mcview_options_free(mcview_options *o)
{
	free(o->sshopt);
	o->sshopt = NULL;
	mcz_inpaths_free(o->own_paths);
	o->own_paths = NULL;
}

/* Maps the program needs of its own, beyond one a recording: its libraries,
 * its threads' stacks, malloc's arenas and large blocks.  A report had 137
 * mapped at its most, on a job file of 65,536 ranks as on 4,096 rank files
 * (4,233); this leaves room for the terminal and the analyses' threads on
 * a machine of many CPUs. */
#define OPTIONS_OWN_MAPS 1024

/* "65,536" */
static const char *options_grouped(char *buf, size_t len, size_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof digits, "%zu", v), u = 0;
	for (int i = 0; i < n && (size_t)u + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[u++] = ',';
		buf[u++] = digits[i];
	}
	buf[u] = '\0';
	return buf;
}

int mcview_options_paths(mcview_options *o, char *err, size_t errlen)
{
	if (o->compare || o->classes)
		return 0;
	char **p;
	size_t n;
	if (mcz_inpaths_expand((const char *const *)o->paths, o->npaths, MCZ_INPATHS_PCP_DIR, &p,
			       &n) != MCZ_OK) {
		snprintf(err, errlen, "%s", mcz_errdetail());
		return 1;
	}
	const char *given = o->npaths == 1 ? o->paths[0] : "DIR";
	o->own_paths = o->paths = p;
	o->npaths = n;
	/* Each file is mapped whole while it is shown (a job file's members
	 * share its one mapping): more than Linux maps for a process
	 * (vm.max_map_count) would fail half-way through opening them. */
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	long max = 0;
	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max > 0 && n + OPTIONS_OWN_MAPS > (size_t)max) {
		char b[32];
		return refuse(err, errlen,
			      "%s recordings are more than this system maps at once "
			      "(vm.max_map_count %ld): merge them first, mcz merge %s -o job.mcz, "
			      "and open job.mcz",
			      options_grouped(b, sizeof b, n), max, given);
	}
	return 0;
}

int mcview_options_parse(int argc, char **argv, mcview_options *o, char *err, size_t errlen)
{
	static const struct option lo[] = {
		{"snapshot", required_argument, 0, O_SNAPSHOT},
		{"view", required_argument, 0, O_VIEW},
		{"at", required_argument, 0, O_AT},
		{"window", required_argument, 0, O_WINDOW},
		{"filter", required_argument, 0, O_FILTER},
		{"keys", required_argument, 0, O_KEYS},
		{"theme", required_argument, 0, O_THEME},
		{"no-color", no_argument, 0, O_NOCOLOR},
		{"no-colour", no_argument, 0, O_NOCOLOR},
		{"ascii", no_argument, 0, O_ASCII},
		{"blocks", no_argument, 0, O_BLOCKS},
		{"no-mouse", no_argument, 0, O_NOMOUSE},
		{"phases", required_argument, 0, O_PHASE0 + VW_CLI_PHASES},
		{"report", optional_argument, 0, O_PHASE0 + VW_CLI_REPORT},
		{"brief", no_argument, 0, O_PHASE0 + VW_CLI_BRIEF},
		{"phase-penalty", required_argument, 0, O_PHASE0 + VW_CLI_PENALTY},
		{"phase-min", required_argument, 0, O_PHASE0 + VW_CLI_MIN},
		{"phase-streams", required_argument, 0, O_PHASE0 + VW_CLI_STREAMS},
		{"phase-level", required_argument, 0, O_PHASE0 + VW_CLI_LEVEL},
		{"metrics", required_argument, 0, O_METRICS},
		{"ssh-option", required_argument, 0, O_SSHOPT},
		{"cache-size", required_argument, 0, O_CACHESIZE},
		{"compare", no_argument, 0, O_COMPARE},
		{"fail-above", required_argument, 0, O_FAIL_ABOVE},
		{"code-classes", no_argument, 0, O_CLASSES},
		{"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'},
		{0, 0, 0, 0},
	};
	*o = (mcview_options){.color = 1, .mouse = 1, .fail_above = -1, .pc = VW_PHASE_CLI_INIT};
	const char *theme = getenv("MCVIEW_THEME");
	char perr[256];
	int c;
	size_t nssh = 0;
	/* argc + 1 slots: every --ssh-option value, NULL-terminated */
	if (!(o->sshopt = calloc((size_t)argc + 1, sizeof *o->sshopt)))
		return refuse(err, errlen, "out of memory");
	o->oo = (vw_open_opts){NULL, o->sshopt, 0, 0};
	opterr = 0; /* one line of our own, as mcrec, not getopt's and the whole usage */
	optind = 0; /* from the start, each time (GNU getopt) */
	while ((c = getopt_long(argc, argv, ":hVq", lo, NULL)) != -1) {
		switch (c) {
		case O_SNAPSHOT: {
			char x;
			if (sscanf(optarg, "%dx%d%c", &o->snap_w, &o->snap_h, &x) != 2 ||
			    o->snap_w <= 0 || o->snap_h <= 0 || o->snap_w > 2000 ||
			    o->snap_h > 1000)
				return refuse(err, errlen,
					      "--snapshot wants WxH (e.g. 120x40), not '%s'",
					      optarg);
			break;
		}
		case O_VIEW: o->view_name = optarg; break;
		case O_AT:
			if (parse_time(optarg, &o->at) != 0)
				return refuse(err, errlen,
					      "--at: not a time: '%s' (e.g. 12.5s, 300ms)", optarg);
			o->have_at = 1;
			break;
		case O_WINDOW: {
			char a[64], b[64];
			if (sscanf(optarg, "%63[^,],%63s", a, b) != 2 ||
			    parse_time(a, &o->w0) != 0 || parse_time(b, &o->w1) != 0 ||
			    o->w1 <= o->w0)
				return refuse(err, errlen,
					      "--window wants T0,T1 with T0 < T1, not '%s'",
					      optarg);
			o->have_win = 1;
			break;
		}
		case O_FILTER: o->filter = optarg; break;
		case O_KEYS: o->keys = optarg; break;
		case O_THEME: theme = optarg; break;
		case O_NOCOLOR: o->color = 0; break;
		case O_ASCII: o->ascii = 1; break;
		case O_BLOCKS: o->blocks = 1; break;
		case O_NOMOUSE: o->mouse = 0; break;
		case O_PHASE0 + VW_CLI_PHASES:
		case O_PHASE0 + VW_CLI_REPORT:
		case O_PHASE0 + VW_CLI_PENALTY:
		case O_PHASE0 + VW_CLI_MIN:
		case O_PHASE0 + VW_CLI_STREAMS:
		case O_PHASE0 + VW_CLI_LEVEL:
		case O_PHASE0 + VW_CLI_BRIEF:
			if (vw_phase_cli_opt(&o->pc, c - O_PHASE0, optarg, perr, sizeof perr) != 0)
				return refuse(err, errlen, "%s", perr);
			break;
		case O_METRICS: o->oo.metrics = optarg; break;
		case O_SSHOPT: o->sshopt[nssh++] = optarg; break;
		case O_CACHESIZE: {
			char *end;
			errno = 0;
			double v = strtod(optarg, &end);
			/* sizes as people type them: 300K, 300k, 300KiB, 300KB, 2G */
			const char *u = "KMGT", *k = *end ? strchr(u, toupper((unsigned char)*end)) : NULL;
			const char *rest = k ? end + 1 : end;
			if (end == optarg || errno || !(v >= 0 && v < 1e15) || (*end && !k) ||
			    (*rest && strcmp(rest, "iB") && strcmp(rest, "B")))
				return refuse(err, errlen, "--cache-size wants a size (1G, 300M, "
					      "300KiB, 0), not '%s'", optarg);
			for (const char *p = u; k && p <= k; p++)
				v *= 1024;
			o->oo.cache_max = v >= 1 ? (long long)v : -1;
			break;
		}
		case O_COMPARE: o->compare = 1; break;
		case O_FAIL_ABOVE: {
			char *end;
			errno = 0;
			o->fail_above = strtod(optarg, &end);
			if (end == optarg || errno || (*end && strcmp(end, "%") != 0) ||
			    !(o->fail_above >= 0 && o->fail_above < 1e6))
				return refuse(err, errlen, "--fail-above wants a percentage >= 0 "
					      "(10, 2.5), not '%s'", optarg);
			break;
		}
		case O_CLASSES: o->classes = 1; return 0; /* the rest is not read */
		case 'q': o->oo.quiet = 1; break;
		case 'h': usage(stdout); return 1;
		case 'V': printf("mcview (mcz) format %d.%d\n", MCZ_VERSION_MAJOR, MCZ_VERSION_MINOR); return 1;
		case ':':
			return refuse(err, errlen, "option '%s' needs a value (see --help)",
				      argv[optind - 1]);
		default:
			if (optopt)
				return refuse(err, errlen, "unknown option '-%c' (see --help)",
					      optopt);
			return refuse(err, errlen, "unknown option '%s' (see --help)",
				      argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return refuse(err, errlen, "no recording given (mcview FILE.mcz; --help for more)");
	o->paths = argv + optind;
	o->npaths = (size_t)(argc - optind);
	if (o->view_name && (o->view = vw_views_find(o->view_name)) < 0)
		return refuse(err, errlen, "--view: no view named '%s' (views: %s)", o->view_name,
			      view_names());
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		o->color = 0;
	const char *cs = nl_langinfo(CODESET);
	if (!cs || (strcmp(cs, "UTF-8") != 0 && strcmp(cs, "utf8") != 0))
		o->ascii = 1;
	if (o->snap_w && (o->snap_w < VW_MIN_W || o->snap_h < VW_MIN_H))
		return refuse(err, errlen, "--snapshot %dx%d is too small: mcview needs %dx%d",
			      o->snap_w, o->snap_h, VW_MIN_W, VW_MIN_H);
	char terr[512];
	if (vw_theme_load(&o->theme, theme && *theme ? theme : "default", terr, sizeof terr) != 0)
		return refuse(err, errlen, "%s", vw_fmt_safe(terr));
	if (o->fail_above >= 0 && !o->compare)
		return refuse(err, errlen, "--fail-above goes with --compare A B");
	if (o->compare && o->npaths != 2)
		return refuse(err, errlen, "--compare wants two runs, A B (each FILE or "
			      "FILE1,FILE2,...), not %zu", o->npaths);
	if (o->compare && o->pc.mode < 0)
		return refuse(err, errlen, "--compare needs phases (not --phases off)");
	return 0;
}
