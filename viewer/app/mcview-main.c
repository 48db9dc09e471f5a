/* mcview-main.c: mcview — walk through recordings in a terminal.
 *
 * Parses options, opens the dataset (every error is one line on stderr and a
 * non-zero exit, before the terminal is touched), then either prints one
 * rendered screen (--snapshot WxH) or runs the interactive loop (app-run.c).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../recorder/codesym.h"
#include "app.h"
#include "keys.h"
#include "../model/model.h"
#include "../analysis/analysis.h"
#include "../term/term.h"
#include "../views/view.h"

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
		"usage: mcview [options] FILE.mcz...\n"
		"       mcview --compare [options] A.mcz B.mcz\n"
		"Walk through mcz recordings: every stream on one time axis.\n"
		"Several files are aligned on wall-clock time.  PCP archives (base name,\n"
		"volume, .meta, folio) and ssh://[user@]host[:port]/path open as recordings.\n"
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

static int feed_keys(vw_app *a, const char *list)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		int key = vw_keys_parse(k);
		if (key < 0 && strcmp(k, "") != 0) {
			fprintf(stderr, "mcview: --keys: unknown key '%s'\n", k);
			return 2;
		}
		vw_app_key(a, key);
	}
	/* A snapshot after '/' keys: the prompt stays drawn as it would be. */
	return 0;
}

enum { O_SNAPSHOT = 256, O_VIEW, O_AT, O_WINDOW, O_FILTER, O_KEYS, O_THEME, O_NOCOLOR,
       O_ASCII, O_BLOCKS, O_NOMOUSE, O_METRICS, O_SSHOPT, O_CACHESIZE, O_COMPARE, O_FAIL_ABOVE,
       O_CLASSES, O_PHASE0 }; /* O_PHASE0 + vw_phase_cli_opt */

/* --code-classes: the rules that class code samples, the user's and the
 * built-in ones, a line each as the file takes them (mcview.1, CODE
 * CLASSES); what the user's file left out, as a note on stderr. */
static int print_classes(void)
{
	vw_codeclass *cc = vw_codeclass_load();
	char line[1100];
	if (!cc) {
		fprintf(stderr, "mcview: out of memory\n");
		return 2;
	}
	for (size_t i = 0; vw_codeclass_rule(cc, i, line, sizeof line) == 0; i++)
		printf("%s\n", line);
	if (vw_codeclass_note(cc)[0])
		fprintf(stderr, "mcview: note: %s\n", vw_codeclass_note(cc));
	vw_codeclass_free(cc);
	return fflush(stdout) == 0 ? 0 : 1;
}

void mcview_options_free(mcview_options *o)
{
	free(o->sshopt);
	o->sshopt = NULL;
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
	o->oo = (vw_open_opts){NULL, o->sshopt, 0, 0, 0};
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

/* Open, then print the report, one screen, or run the loop. */
static int mcview_run(mcview_options *o)
{
	if (o->classes)
		return print_classes();
	/* On the terminal, a large PCP archive's first screen is its start,
	 * read in about MCVIEW_FIRST_MS (default 30), while the whole is read
	 * behind it; snapshots, reports and comparisons read it whole. */
	if (!o->snap_w && !o->pc.report && !o->compare && !o->keys && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO)) {
		const char *fm = getenv("MCVIEW_FIRST_MS");
		o->oo.first_ms = fm && *fm ? atoi(fm) : VW_FIRST_MS;
	}
	vw_compare_cli cc = {0};
	vw_model *m;
	char err[512];
	if (o->compare) {
		if (vw_compare_cli_open(&cc, o->paths[0], o->paths[1], &o->oo, err,
					sizeof err) != 0) {
			vw_compare_cli_free(&cc);
			fprintf(stderr, "mcview: %s\n", err);
			return 2;
		}
		if (o->pc.report || o->fail_above >= 0) {
			int r = vw_compare_cli_report(&cc, o->pc.report == 2, o->fail_above);
			vw_compare_cli_free(&cc);
			return r;
		}
		m = cc.a[0]; /* the app frees it: the comparison keeps the others */
		cc.a[0] = NULL;
		m->compare = &cc.cmp;
		m->compare_b = cc.b[0];
		if (!o->view_name)
			o->view = vw_views_find("compare");
		o->pc.mode = -1; /* detected already, as the comparison needed */
	} else if (vw_model_open(&m, (const char *const *)o->paths, o->npaths, &o->oo, err,
				 sizeof err) != 0) {
		fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
		return 1;
	}
	/* the Ranks view asked for where there are no ranks: said, not an
	 * empty screen */
	if (o->view_name && !strcmp(o->view_name, "ranks") && !vw_model_is_job(m)) {
		fprintf(stderr, "mcview: --view ranks shows the ranks of a parallel job (rank files "
			"of one job, or a job file); %s %s\n", m->nfiles == 1 ? "this is" : "these are",
			m->nfiles == 1 ? "one recording" : "not the ranks of one job");
		vw_model_free(m);
		return 2;
	}
	/* Detection keeps its result in the user's cache folder, never in the
	 * file.  On the terminal it runs after the first screen (app-run.c). */
	int later = !o->snap_w && !o->pc.report && o->pc.mode >= 0;
	int pr = later ? 0 : vw_phase_cli_run(m, &o->pc, err, sizeof err);
	if (pr != 0) { /* 1: the report is printed; 2: of a file with damaged blocks */
		if (pr < 0)
			fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
		vw_model_free(m);
		return pr == 1 ? 0 : 1;
	}
	vw_app a;
	int rc = 0;
	if (vw_app_init(&a, m, o->view) != 0) {
		fprintf(stderr, "mcview: out of memory\n");
		rc = 1;
		goto out;
	}
	if (o->have_win)
		vw_model_set_window(m, o->w0, o->w1);
	if (o->have_at)
		vw_model_set_cursor(m, o->at);
	else if (o->have_win)
		vw_model_set_cursor(m, m->t0 + (m->t1 - m->t0) / 2);
	if (o->filter)
		vw_model_set_filter(m, o->filter);
	if (o->snap_w) {
		vw_canvas *cv = vw_canvas_new(o->snap_w, o->snap_h);
		if (!cv) {
			rc = 1;
			goto out;
		}
		cv->ascii = o->ascii;
		cv->blocks = o->blocks;
		/* The first draw lays the screen out (geometry for keys). */
		vw_frame_draw(&a, cv);
		if (o->keys && (rc = feed_keys(&a, o->keys)) != 0) {
			vw_canvas_free(cv);
			goto out;
		}
		vw_frame_draw(&a, cv);
		char *txt = vw_canvas_to_text(cv);
		if (txt)
			fputs(txt, stdout);
		free(txt);
		vw_canvas_free(cv);
		goto out;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "mcview: not a terminal (use --snapshot WxH to print a screen)\n");
		rc = 1;
		goto out;
	}
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row &&
	    (ws.ws_col < VW_MIN_W || ws.ws_row < VW_MIN_H)) {
		fprintf(stderr, "mcview: terminal too small: %dx%d, mcview needs %dx%d\n",
			ws.ws_col, ws.ws_row, VW_MIN_W, VW_MIN_H);
		rc = 1;
		goto out;
	}
	a.phases_later = later ? &o->pc : NULL;
	vw_term_opts to = {.color = o->color,
			   .ascii = o->ascii,
			   .blocks = o->blocks,
			   .mouse = o->mouse,
			   .theme = &o->theme};
	rc = vw_app_run(&a, &to, o->keys, err, sizeof err);
	m = a.m; /* the whole archive's model may have taken the start's place */
	if (rc != 0)
		fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
out:
	vw_app_free(&a);
	vw_model_free(m);
	vw_compare_cli_free(&cc);
	return rc;
}

int main(int argc, char **argv)
{
	/* a cut recording's code named from this host's binaries */
	mcz_code_set_symbolizer(rec_code_symbolize);
	setlocale(LC_ALL, "");
	mcview_options o;
	char err[4096];
	int rc = mcview_options_parse(argc, argv, &o, err, sizeof err);
	if (rc == 2)
		fprintf(stderr, "mcview: %s\n", err);
	else
		rc = rc == 1 ? 0 : mcview_run(&o);
	mcview_options_free(&o);
	return rc;
}
