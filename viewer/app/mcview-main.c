/* mcview-main.c: mcview — walk through recordings in a terminal.
 *
 * Parses options, opens the dataset (every error is one line on stderr and a
 * non-zero exit, before the terminal is touched), then either prints one
 * rendered screen (--snapshot WxH) or runs the interactive loop (app-run.c).
 */
#include <locale.h>
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

/* Open, then print the report, one screen, or run the loop. */
static int mcview_run(mcview_options *o)
{
	if (o->classes)
		return print_classes();
	/* On the terminal, a large PCP archive's first screen is its start,
	 * read in about MCVIEW_FIRST_MS (default 30), while the whole is read
	 * behind it; snapshots, reports and comparisons read it whole. */
	int first_ms = 0;
	if (!o->snap_w && !o->pc.report && !o->compare && !o->keys && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO)) {
		const char *fm = getenv("MCVIEW_FIRST_MS");
		first_ms = fm && *fm ? atoi(fm) : VW_FIRST_MS;
	}
	vw_compare_cli cc = {0};
	vw_behind *behind = NULL;
	vw_model *m;
	vw_an *an;
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
		an = cc.a[0]; /* freed here: the comparison keeps the others */
		cc.a[0] = NULL;
		m = an->m;
		an->compare = &cc.cmp;
		an->compare_b = cc.b[0]->m;
		if (!o->view_name)
			o->view = vw_views_find("compare");
		o->pc.mode = -1; /* detected already, as the comparison needed */
	} else if (vw_behind_open(&behind, &m, (const char *const *)o->paths, o->npaths, &o->oo,
				  first_ms, err, sizeof err) != 0) {
		fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
		return 1;
	} else if (!(an = vw_an_new(m))) {
		fprintf(stderr, "mcview: out of memory\n");
		vw_model_free(m);
		vw_behind_free(behind);
		return 1;
	}
	/* the Ranks view asked for where there are no ranks: said, not an
	 * empty screen */
	if (o->view_name && !strcmp(o->view_name, "ranks") && !vw_model_is_job(m)) {
		fprintf(stderr, "mcview: --view ranks shows the ranks of a parallel job (rank files "
			"of one job, or a job file); %s %s\n", m->nfiles == 1 ? "this is" : "these are",
			m->nfiles == 1 ? "one recording" : "not the ranks of one job");
		vw_an_free(an);
		vw_model_free(m);
		vw_behind_free(behind);
		return 2;
	}
	/* Detection keeps its result in the user's cache folder, never in the
	 * file.  On the terminal it runs after the first screen (app-run.c). */
	int later = !o->snap_w && !o->pc.report && o->pc.mode >= 0;
	int pr = later ? 0 : vw_phase_cli_run(an, &o->pc, err, sizeof err);
	if (pr != 0) { /* 1: the report is printed; 2: of a file with damaged blocks */
		if (pr < 0)
			fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
		vw_an_free(an);
		vw_model_free(m);
		vw_behind_free(behind);
		return pr == 1 ? 0 : 1;
	}
	vw_app a;
	int rc = 0;
	if (vw_app_init(&a, an, o->view) != 0) {
		fprintf(stderr, "mcview: out of memory\n");
		rc = 1;
		goto out;
	}
	a.behind = behind;
	vw_status_behind(&a.status, behind, m); /* a large archive's start: how far it is read */
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
	an = a.an;
	if (rc != 0)
		fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
out:
	vw_app_free(&a);
	vw_an_free(an);
	vw_model_free(m);
	vw_behind_free(behind);
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
	if (rc == 1) /* --help, --version */
		rc = 0;
	else if (rc == 0 && (rc = mcview_options_paths(&o, err, sizeof err)) == 0)
		rc = mcview_run(&o);
	else /* the paths name what the user typed: escaped */
		fprintf(stderr, "mcview: %s\n", vw_fmt_safe(err));
	mcview_options_free(&o);
	return rc;
}
