/* compare-cli.c: `mcview --compare A B` — two runs (or two lists of
 * repeated runs, A1,A2,A3 B1,B2,B3) opened one model per file, their phases
 * matched and compared (viewer/analysis/compare/compare.h); then either the report
 * (--report[=json], --fail-above PCT for CI) or the screen, run A's first
 * file as the model with the comparison beside it (the Compare view).
 *
 * Exit codes of the report: 0 no matched phase slower than --fail-above
 * (or no --fail-above), 1 some are (named on stderr), 2 the runs cannot
 * be compared (a file unreadable or empty, nothing matched).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "../analysis/analysis.h"

/* Open the comma-separated list of one side, one model per file, each
 * with its analyses. */
static int cmp_open_side(const char *list, const vw_open_opts *oo, vw_an ***out, size_t *n,
			 char *err, size_t len)
{
	char *buf = strdup(list);
	size_t cap = 1;
	for (const char *p = list; *p; p++)
		cap += *p == ',';
	vw_an **v = calloc(cap, sizeof *v);
	*out = v;
	*n = 0;
	if (!buf || !v) {
		free(buf);
		snprintf(err, len, "out of memory");
		return -1;
	}
	int rc = 0;
	for (char *save, *p = strtok_r(buf, ",", &save); p && !rc; p = strtok_r(NULL, ",", &save)) {
		const char *paths[1] = {p};
		char e[384];
		vw_model *m;
		if (vw_model_open(&m, paths, 1, oo, e, sizeof e) != 0) {
			snprintf(err, len, "%s", e);
			rc = -1;
		} else if (m->nfiles > 1) {
			/* a job file: its ranks' marks pooled would match rank 0's
			 * solve with rank 3's, phases of -0.000 s */
			snprintf(err, len,
				 "%s holds %zu recordings (a job's ranks): compare one of them "
				 "(%s:NAME, as mcz info lists them), or see the job with --report",
				 p, m->nfiles, p);
			vw_model_free(m);
			rc = -1;
		} else if (!(v[*n] = vw_an_new(m))) {
			snprintf(err, len, "out of memory");
			vw_model_free(m);
			rc = -1;
		} else {
			++*n;
		}
	}
	if (!rc && !*n) {
		snprintf(err, len, "--compare: an empty list of runs");
		rc = -1;
	}
	free(buf);
	return rc;
}

/* A side's model and its analyses. */
static void cmp_free_one(vw_an *an)
{
	vw_model *m = an ? an->m : NULL;
	vw_an_free(an);
	vw_model_free(m);
}

void vw_compare_cli_free(vw_compare_cli *c)
{
	for (size_t i = 0; i < c->na; i++)
		cmp_free_one(c->a[i]);
	for (size_t i = 0; i < c->nb; i++)
		cmp_free_one(c->b[i]);
	free(c->a);
	free(c->b);
	vw_compare_free(&c->cmp);
	memset(c, 0, sizeof *c);
}

int vw_compare_cli_open(vw_compare_cli *c, const char *a, const char *b, const vw_open_opts *oo,
			char *err, size_t len)
{
	if (cmp_open_side(a, oo, &c->a, &c->na, err, len) ||
	    cmp_open_side(b, oo, &c->b, &c->nb, err, len))
		return -1;
	if (vw_compare_models(c->a, c->na, c->b, c->nb, &c->cmp, err, len))
		return -1;
	if (!c->cmp.nwork) {
		snprintf(err, len,
			 "nothing matched: no phase of %s resembles one of %s (different programs?)",
			 c->cmp.names[0], c->cmp.names[1]);
		return -1;
	}
	/* runs ten times apart in length are not one program's two runs: a
	 * phase matched between them says nothing (a day's archive of another
	 * host against a 3 s run was "-99.9 % faster") */
	double ta = c->cmp.total_a, tb = c->cmp.total_b;
	if (ta > 0 && tb > 0 && (ta / tb > 10 || tb / ta > 10)) {
		const char *ha = mcz_meta(c->a[0]->m->files[0], "host");
		const char *hb = mcz_meta(c->b[0]->m->files[0], "host");
		int other = ha && hb && strcmp(ha, hb);
		snprintf(err, len,
			 "not comparable: %s runs %.3g s and %s %.3g s (%.0fx)%s%s%s%s: not two runs of "
			 "one program",
			 c->cmp.names[0], ta, c->cmp.names[1], tb, ta > tb ? ta / tb : tb / ta,
			 other ? ", on hosts " : "", other ? vw_fmt_safe(ha) : "",
			 other ? " and " : "", other ? vw_fmt_safe(hb) : "");
		return -1;
	}
	return 0;
}

int vw_compare_cli_report(const vw_compare_cli *c, int json, double fail_above)
{
	if (vw_compare_print(&c->cmp, stdout, json) != 0 || fflush(stdout) != 0) {
		fprintf(stderr, "mcview: writing the report: %s\n", strerror(errno));
		return 2;
	}
	if (!(fail_above >= 0))
		return 0;
	char names[1024];
	size_t n = vw_compare_slower(&c->cmp, fail_above, names, sizeof names);
	if (!n)
		return 0;
	fprintf(stderr, "mcview: %zu phase%s slower by more than %g %%%s: %s\n", n, n > 1 ? "s" : "",
		fail_above, c->cmp.nruns_a > 1 || c->cmp.nruns_b > 1 ? " and beyond noise" : "",
		names);
	return 1;
}
