/* phase-cli.c: mcview's phase options and the report mode.
 *
 *     --phases auto|marks|off   detect phases (default), take the marks as
 *                               phases, or neither
 *     --report[=text|json]      print the phase table and exit (no terminal)
 *     --brief                   with --report: the job's summary, a few lines
 *     --phase-penalty X         penalty factor: > 1 fewer boundaries, < 1 more
 *     --phase-min TIME          minimum phase length (default: 10 samples apart when
 *                               detected, 5 once placed where the levels change)
 *     --phase-streams W1,W2     detect on the rows whose name contains a word
 *     --phase-level coarse|fine a cycle of short alternating steps as one
 *                               phase (default), or every step
 *
 * Kept out of main.c so that the viewer's program grows by a few lines; the
 * options are parsed here and acted on once the model is open.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/model.h"
#include "../analysis/analysis.h"
#include "app.h"

const char vw_phase_cli_help[] =
	"  --phases MODE      auto (detect, default), marks (the marks are the phases), off\n"
	"  --report[=json]    print the phase table (text or JSON) and exit; on the rank\n"
	"                     files of a job: per phase imbalance, slowest rank, load balance\n"
	"  --brief            with --report: the job's summary in a few lines (the end of a\n"
	"                     batch job's output): wall time, how it ended, load balance,\n"
	"                     MPI share, peak memory per node, hottest code, phases, files\n"
	"  --phase-penalty X  boundary penalty factor: > 1 fewer phases, < 1 more (default 1)\n"
	"  --phase-min TIME   shortest phase: 0.5, 500ms, 2s (default: detected 10 samples\n"
	"                     apart, kept from 5 once placed where the levels change)\n"
	"  --phase-streams W  detect on the rows whose name contains W (comma list)\n"
	"  --phase-level L    coarse (default: a cycle of short alternating steps is one\n"
	"                     phase; of nested regions, the outermost) or fine (every\n"
	"                     step, every region a phase)\n";

__attribute__((format(printf, 3, 4))) static int cli_err(char *err, size_t len, const char *fmt,
								 ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* "1.5", "1.5s", "300ms", "20us" -> ns */
static int cli_time(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	double mul = !*end || !strcmp(end, "s") ? 1e9 : !strcmp(end, "ms") ? 1e6
						   : !strcmp(end, "us") ? 1e3 : -1;
	if (end == s || errno || mul < 0 || !(v >= 0) || v * mul > 9e18)
		return -1;
	*out = (int64_t)(v * mul);
	return 0;
}

int vw_phase_cli_opt(vw_phase_cli *c, int opt, const char *arg, char *err, size_t len)
{
	switch (opt) {
	case VW_CLI_PHASES:
		if (!strcmp(arg, "auto"))
			c->mode = VW_PHASES_AUTO;
		else if (!strcmp(arg, "marks"))
			c->mode = VW_PHASES_MARKS;
		else if (!strcmp(arg, "off"))
			c->mode = -1;
		else
			return cli_err(err, len, "--phases wants auto, marks or off, not '%s'", arg);
		c->mode_given = 1;
		return 0;
	case VW_CLI_BRIEF:
		c->report = 3;
		return 0;
	case VW_CLI_REPORT:
		if (c->report == 3 && (!arg || !strcmp(arg, "text")))
			return 0; /* --brief --report */
		if (!arg || !strcmp(arg, "text"))
			c->report = 1;
		else if (!strcmp(arg, "json"))
			c->report = 2;
		else
			return cli_err(err, len, "--report takes =text or =json, not '%s'", arg);
		return 0;
	case VW_CLI_PENALTY: {
		char *end;
		double v = strtod(arg, &end);
		if (end == arg || *end || !(v > 0 && v < 1e6))
			return cli_err(err, len, "--phase-penalty wants a number > 0, not '%s'", arg);
		c->p.penalty = v;
		return 0;
	}
	case VW_CLI_MIN:
		if (cli_time(arg, &c->p.min_len))
			return cli_err(err, len, "--phase-min wants a time (0.5, 500ms, 2s), not '%s'",
				       arg);
		return 0;
	case VW_CLI_STREAMS:
		if (strlen(arg) >= sizeof c->p.streams)
			return cli_err(err, len, "--phase-streams: list too long: '%.40s...'", arg);
		snprintf(c->p.streams, sizeof c->p.streams, "%s", arg);
		return 0;
	case VW_CLI_LEVEL:
		if (!strcmp(arg, "coarse"))
			c->p.level = 0;
		else if (!strcmp(arg, "fine"))
			c->p.level = 1;
		else
			return cli_err(err, len, "--phase-level wants coarse or fine, not '%s'", arg);
		return 0;
	default:
		return cli_err(err, len, "unknown phase option %d", opt);
	}
}

int vw_phase_cli_run(vw_an *an, const vw_phase_cli *c, char *err, size_t len)
{
	vw_model *m = an->m;
	if (c->mode < 0) {
		if (c->report)
			return cli_err(err, len, "--report needs phases (not --phases off)");
		return 0;
	}
	/* a report of nothing would print a phase "steady" of no data: the
	 * file holds no row (cut before its first sample, or not readable) */
	vw_status st;
	if (c->report && !m->nrows) {
		vw_model_damage(m);
		vw_status_open(&st, m);
		vw_status_look(&st, m);
		const char *why = st.warn ? st.text : "the recording holds no samples";
		if (!strncmp(why, "warning: ", 9))
			why += 9;
		return cli_err(err, len, "nothing to report: %s", why);
	}
	/* the application's own regions (Kokkos Tools) are its phases, unless
	 * --phases says otherwise */
	int mode = !c->mode_given && c->mode == VW_PHASES_AUTO && vw_phases_app_regions(m)
			   ? VW_PHASES_MARKS : c->mode;
	/* --brief: a job of every file given, ranks or not (one srun task) */
	int job = c->report && (vw_model_is_job(m) || c->report == 3);
	int src = c->mode_given ? c->mode : vw_jobs_any_marked(m) ? VW_PHASES_MARKS : VW_PHASES_AUTO;
	/* a job's report from its ranks' marks reads no phases of the whole
	 * dataset: each rank is cut by its own (vw_jobs_build) */
	if (!(job && src == VW_PHASES_MARKS)) {
		if (vw_phases_detect(an, &c->p, mode, err, len) != 0)
			return -1;
		if (c->p.streams[0] && an->phases->nused == 0 && mode == VW_PHASES_AUTO)
			return cli_err(err, len, "--phase-streams: no row matches '%s'", c->p.streams);
	}
	if (!c->report)
		return 0;
	if (job) { /* rank files of a parallel job: the job report */
		vw_jobs *js;
		if (vw_jobs_build(an, src, &c->p, &js, err, len) != 0)
			return -1;
		int rc = c->report == 3 ? vw_jobs_print_brief(m, js, stdout)
				        : vw_jobs_print(an, js, stdout, c->report == 2);
		vw_jobs_free(js);
		if (rc != 0 || fflush(stdout) != 0)
			return cli_err(err, len, "writing the report: %s", strerror(errno));
	} else if (vw_report_print(an, stdout, c->report == 2) != 0 || fflush(stdout) != 0)
		return cli_err(err, len, "writing the report: %s", strerror(errno));
	/* the report is of what was readable: a damaged or cut file says so,
	 * once, where the screen would have shown it in its status line */
	vw_model_damage(m);
	vw_status_open(&st, m);
	vw_status_look(&st, m);
	if (st.warn)
		fprintf(stderr, "mcview: %s\n", vw_fmt_safe(st.text));
	/* blocks left out: the report lacks what they held, and the exit
	 * status says so as mcz check's does */
	for (size_t f = 0; f < m->nfiles; f++)
		if (mcz_damaged_blocks(m->files[f], NULL, 0))
			return 2;
	return 1;
}
