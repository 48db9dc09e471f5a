/* compare-model.c: compare on models — each run's phases (marks, or
 * detected) turned into plain lists for compare.c, what differs between the
 * recordings (host, CPU, kernel, recorder, format version, interval), and
 * the report of `mcview --compare A B --report[=json]`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../an.h"
#include "compare.h"
#include "../fmt.h"
#include "../code/hotcode.h"
#include "../phases/phase.h"

static double cmp_add(double x, double y)
{
	if (isnan(x))
		return y;
	return isnan(y) ? x : x + y;
}

int vw_compare_run_of(vw_an *an, vw_cmp_run *run, vw_cmp_phase **v)
{
	vw_model *m = an->m;
	const struct vw_phases *ph = an->phases;
	size_t n = vw_phases_count(ph);
	*v = calloc(n ? n : 1, sizeof **v);
	if (!*v)
		return -1;
	memset(run, 0, sizeof *run);
	run->marked = ph && ph->source == VW_PHASES_MARKS;
	int64_t dt = 0;
	for (size_t s = 0; s < m->nstreams && !dt; s++)
		dt = vw_model_interval(m, s);
	run->interval = dt * 1e-9;
	run->total = (m->t_max + 1 - m->t_min) * 1e-9;
	for (size_t i = 0; i < n; i++) {
		const vw_phase *p = vw_phases_at(ph, i);
		vw_cmp_phase *c = &(*v)[i];
		c->cls = p->cls;
		int64_t t0 = p->t0, t1 = p->t1;
		if (run->marked && p->label[0]) /* the region itself, not the bits of
						   run before or after it absorbed */
			for (size_t k = 0; k < m->nmarks; k++) {
				const vw_mark *mk = &m->marks[k];
				if (mk->kind == MCZ_MARK_BEGIN && mk->t >= p->t0 && mk->t < p->t1 &&
				    t0 == p->t0 && !strcmp(mk->text, p->label))
					t0 = mk->t;
				else if (mk->kind == MCZ_MARK_END && mk->t > t0 && mk->t <= p->t1)
					t1 = mk->t;
			}
		c->t0 = (t0 - m->t_min) * 1e-9;
		c->dur = (t1 - t0) * 1e-9;
		c->fig[VW_CMP_IPC] = p->st.ipc;
		c->fig[VW_CMP_BW] = cmp_add(p->st.read_bps, p->st.write_bps);
		c->fig[VW_CMP_CPUS] = p->st.cpus;
		c->fig[VW_CMP_INS] = p->st.ins_rate;
		c->fig[VW_CMP_GPU] = p->st.gpu_w;
		c->fig[VW_CMP_NET] = cmp_add(p->st.net_rx_bps, p->st.net_tx_bps);
		snprintf(c->mark, sizeof c->mark, "%s", p->label);
		if (!run->marked)
			vw_hotcode_busy_code(an, p->t0, p->t1, c->code, sizeof c->code);
	}
	if (!run->marked)
		n = vw_compare_coalesce(*v, n);
	for (size_t i = 0; i < n; i++) {
		vw_cmp_phase *c = &(*v)[i];
		if (!run->marked) {
			vw_compare_label(c, i);
			continue;
		}
		/* the k-th phase of its mark text: "triad#2" */
		int occ = 1, total = 0;
		for (size_t j = 0; j < n; j++) {
			int same = !strcmp((*v)[j].mark, c->mark);
			total += same;
			occ += same && j < i;
		}
		const char *t = c->mark[0] ? c->mark : "(unmarked)";
		if (total > 1)
			snprintf(c->label, sizeof c->label, "%s#%d", t, occ);
		else
			snprintf(c->label, sizeof c->label, "%s", t);
	}
	run->v = *v;
	run->n = n;
	return 0;
}

/* Has begin/end marks: its phases can be the marks. */
static int cmp_has_regions(const vw_model *m)
{
	for (size_t i = 0; i < m->nmarks; i++)
		if (m->marks[i].kind == MCZ_MARK_BEGIN)
			return 1;
	return 0;
}

static void cmp_names(char *buf, size_t len, vw_an **v, size_t n)
{
	size_t u = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && u < len; i++) {
		const char *p = v[i]->m->nfiles ? v[i]->m->paths[0] : "?";
		const char *b = strrchr(p, '/');
		int w = snprintf(buf + u, len - u, "%s%s", i ? "," : "", b && b[1] ? b + 1 : p);
		u += w > 0 ? (size_t)w : 0;
	}
	if (n > 1 && u < len)
		snprintf(buf + u, len - u, " (%zu runs)", n);
}

/* A metadata value of a model's first file, "?" if none. */
static const char *cmp_meta(const vw_model *m, const char *key, char *buf, size_t len)
{
	if (!m->nfiles)
		return "?";
	if (!strcmp(key, "version")) {
		const mcz_file_info *fi = mcz_info(m->files[0]);
		snprintf(buf, len, "%u.%u", fi->version_major, fi->version_minor);
		return buf;
	}
	if (!strcmp(key, "interval")) {
		const char *ns = mcz_meta(m->files[0], "interval_ns");
		long long v = ns && *ns ? strtoll(ns, NULL, 10) : 0;
		if (v > 0) { /* the interval asked for, not the measured mean */
			static const struct { long long div; const char *unit; } u[] = {
				{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
			for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
				if (v % u[i].div == 0) {
					snprintf(buf, len, "%lld%s", v / u[i].div, u[i].unit);
					return buf;
				}
		}
		int64_t dt = 0;
		for (size_t s = 0; s < m->nstreams && !dt; s++)
			dt = vw_model_interval(m, s);
		return dt ? vw_fmt_time(buf, len, dt, 0) : "?";
	}
	const char *v = mcz_meta(m->files[0], key);
	return v && *v ? v : "?";
}

static void cmp_meta_diff(vw_compare *c, vw_an **a, size_t na, vw_an **b, size_t nb)
{
	static const char *const keys[] = {"host", "cpu_model", "kernel", "recorder", "version",
					   "interval"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		char first[96], x[96];
		snprintf(first, sizeof first, "%s", cmp_meta(a[0]->m, keys[k], x, sizeof x));
		int differ = 0;
		for (size_t i = 0; i < na + nb && !differ; i++) {
			vw_model *m = (i < na ? a[i] : b[i - na])->m;
			differ = strcmp(first, cmp_meta(m, keys[k], x, sizeof x)) != 0;
		}
		if (!differ || c->nmeta == sizeof c->meta / sizeof c->meta[0])
			continue;
		char bv[96];
		snprintf(bv, sizeof bv, "%s", cmp_meta(b[0]->m, keys[k], x, sizeof x));
		snprintf(c->meta[c->nmeta++], sizeof c->meta[0], "%s: %.60s | %.60s", keys[k], first,
			 bv);
	}
}

static void cmp_warn(char *buf, size_t len, vw_an **v, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const vw_model *m = v[i]->m;
		for (size_t f = 0; f < m->nfiles; f++) {
			const mcz_file_info *fi = mcz_info(m->files[f]);
			if (fi->recovered || fi->nparts) {
				const char *p = strrchr(m->paths[f], '/');
				snprintf(buf, len, "%s: cut short (recovered up to %.1f s)",
					 p ? p + 1 : m->paths[f], (m->t_max - m->t_min) * 1e-9);
				return;
			}
		}
	}
}

int vw_compare_models(vw_an **a, size_t na, vw_an **b, size_t nb, vw_compare *out,
		      char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	int marks = 1;
	for (size_t i = 0; i < na + nb; i++)
		marks &= cmp_has_regions((i < na ? a[i] : b[i - na])->m);
	vw_cmp_run *runs = calloc(na + nb, sizeof *runs);
	vw_cmp_phase **v = calloc(na + nb, sizeof *v);
	int rc = -1;
	if (!runs || !v) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < na + nb; i++) {
		vw_an *an = i < na ? a[i] : b[i - na];
		vw_model *m = an->m;
		vw_phase_params p = VW_PHASE_PARAMS_INIT;
		char e[256];
		if (vw_phases_detect(an, &p, marks ? VW_PHASES_MARKS : VW_PHASES_AUTO, e, sizeof e)) {
			snprintf(err, errlen, "%s: %s", m->paths[0], e);
			goto out;
		}
		if (vw_phases_count(an->phases) == 0) {
			snprintf(err, errlen, "%s: no phases (no samples in this recording)",
				 m->paths[0]);
			goto out;
		}
		if (vw_compare_run_of(an, &runs[i], &v[i])) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (vw_compare_runs(runs, na, runs + na, nb, out)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	cmp_names(out->names[0], sizeof out->names[0], a, na);
	cmp_names(out->names[1], sizeof out->names[1], b, nb);
	cmp_meta_diff(out, a, na, b, nb);
	cmp_warn(out->warn[0], sizeof out->warn[0], a, na);
	cmp_warn(out->warn[1], sizeof out->warn[1], b, nb);
	rc = 0;
out:
	for (size_t i = 0; v && i < na + nb; i++)
		free(v[i]);
	free(v);
	free(runs);
	return rc;
}

/* ---- the report ---------------------------------------------------------------- */

static const char *const cmp_fig_name[VW_CMP_NFIG] = {"IPC", "BW", "CPUs", "ins/s", "GPU W",
						      "net"};
static const char *const cmp_fig_json[VW_CMP_NFIG] = {"ipc", "mem_bps", "cpus", "ins_per_s",
						      "gpu_w", "net_bps"};

static int cmp_fig_shown(const vw_compare *c, int f)
{
	for (size_t k = 0; k < c->nm; k++)
		if (isfinite(c->m[k].fig_a[f]) && isfinite(c->m[k].fig_b[f]) &&
		    c->m[k].fig_a[f] != 0 &&
		    (fabs(c->m[k].fig_a[f]) >= vw_compare_fig_floor(f) ||
		     fabs(c->m[k].fig_b[f]) >= vw_compare_fig_floor(f)))
			return 1;
	return 0;
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

static void cmp_json_only(FILE *f, const vw_cmp_phase *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"label\": ", i ? ", " : "");
		vw_fmt_json_str(f, v[i].label);
		fprintf(f, ", \"start_s\": %.6g, \"duration_s\": %.6g}", v[i].t0, v[i].dur);
	}
	fputc(']', f);
}

static void cmp_json(const vw_compare *c, FILE *f)
{
	fputs("{\"a\": ", f);
	vw_fmt_json_str(f, c->names[0]);
	fputs(", \"b\": ", f);
	vw_fmt_json_str(f, c->names[1]);
	fprintf(f, ", \"runs_a\": %zu, \"runs_b\": %zu, \"phases\": \"%s\", \"matched_by\": \"%s\"",
		c->nruns_a, c->nruns_b, c->marked ? "marks" : "detected", vw_compare_how(c));
	fprintf(f, ", \"total_a_s\": %.6g, \"total_b_s\": %.6g", c->total_a, c->total_b);
	fputs(", \"differences\": [", f);
	for (size_t i = 0; i < c->nmeta; i++) {
		fputs(i ? ", " : "", f);
		vw_fmt_json_str(f, c->meta[i]);
	}
	fputs("], \"warnings\": [", f);
	for (int s = 0, n = 0; s < 2; s++)
		if (c->warn[s][0]) {
			fputs(n++ ? ", " : "", f);
			vw_fmt_json_str(f, c->warn[s]);
		}
	fputs("],\n \"matched\": [", f);
	for (size_t k = 0; k < c->nm; k++) {
		const vw_cmp_match *x = &c->m[k];
		fputs(k ? ",\n  {\"label\": " : "\n  {\"label\": ", f);
		vw_fmt_json_str(f, x->label);
		fprintf(f, ", \"a_start_s\": %.6g, \"duration_a_s\": %.6g, \"duration_b_s\": %.6g",
			x->a_start, x->dur_a, x->dur_b);
		fputs(", \"delta_pct\": ", f);
		json_num(f, x->delta_pct);
		fprintf(f, ", \"regressed\": %s, \"beyond_noise\": %s, \"noise_pct\": ",
			x->regressed ? "true" : "false", x->beyond ? "true" : "false");
		json_num(f, x->noise_pct);
		fprintf(f, ", \"share_pct\": %.4g, \"rank\": %d", x->share_pct, x->rank);
		fprintf(f, ", \"runs_a\": %d, \"runs_b\": %d, \"sd_a_s\": %.6g, \"sd_b_s\": %.6g", x->na,
			x->nb, x->sd_a, x->sd_b);
		for (int g = 0; g < VW_CMP_NFIG; g++) {
			if (!cmp_fig_shown(c, g))
				continue;
			fprintf(f, ", \"%s_a\": ", cmp_fig_json[g]);
			json_num(f, x->fig_a[g]);
			fprintf(f, ", \"%s_b\": ", cmp_fig_json[g]);
			json_num(f, x->fig_b[g]);
		}
		fputc('}', f);
	}
	fputs("],\n \"unmatched_a\": ", f);
	cmp_json_only(f, c->only_a, c->nonly_a);
	fputs(",\n \"unmatched_b\": ", f);
	cmp_json_only(f, c->only_b, c->nonly_b);
	fputs("}\n", f);
}

static void cmp_text(const vw_compare *c, FILE *f)
{
	fprintf(f, "A: %s\nB: %s\n", vw_fmt_safe(c->names[0]), vw_fmt_safe(c->names[1]));
	for (size_t i = 0; i < c->nmeta; i++)
		fprintf(f, "differs: %s\n", vw_fmt_safe(c->meta[i]));
	for (int s = 0; s < 2; s++)
		if (c->warn[s][0])
			fprintf(f, "warning: %s\n", vw_fmt_safe(c->warn[s]));
	fprintf(f, "%zu phase%s matched (%s), %zu only in A, %zu only in B; run %.3f s -> %.3f s (%+.1f %%)\n",
		c->nm, c->nm == 1 ? "" : "s", vw_compare_how(c), c->nonly_a, c->nonly_b, c->total_a,
		c->total_b, c->total_a > 0 ? 100 * (c->total_b / c->total_a - 1) : 0.0);
	fprintf(f, "%4s  %-24s %8s %9s %9s %8s %7s %7s", "rank", "phase", "start_s", "A_s", "B_s",
		"delta", "noise", "share");
	for (int g = 0; g < VW_CMP_NFIG; g++)
		if (cmp_fig_shown(c, g))
			fprintf(f, " %7s", cmp_fig_name[g]);
	fputs("  verdict\n", f);
	for (size_t k = 0; k < c->nm; k++) {
		const vw_cmp_match *x = &c->m[c->rank[k]];
		char d[16], no[16];
		snprintf(d, sizeof d, "%+.1f%%", x->delta_pct);
		snprintf(no, sizeof no, "%.1f%%", x->noise_pct);
		fprintf(f, "%4d  %-24.24s %8.3f %9.3f %9.3f %8s %7s %6.0f%%", x->rank, vw_fmt_safe(x->label),
			x->a_start, x->dur_a, x->dur_b, d, no, x->share_pct);
		for (int g = 0; g < VW_CMP_NFIG; g++) {
			if (!cmp_fig_shown(c, g))
				continue;
			double fa = x->fig_a[g], fb = x->fig_b[g];
			char fd[16] = "-";
			if (isfinite(fa) && isfinite(fb) && fa != 0 && fb / fa >= 10)
				snprintf(fd, sizeof fd, "x%.3g", fb / fa);
			else if (isfinite(fa) && isfinite(fb) && fa != 0)
				snprintf(fd, sizeof fd, "%+.0f%%", 100 * (fb / fa - 1));
			fprintf(f, " %7s", fd);
		}
		fprintf(f, "  %s\n", x->regressed ? "SLOWER" : x->beyond ? "faster" : "same");
	}
	for (int s = 0; s < 2; s++) {
		const vw_cmp_phase *v = s ? c->only_b : c->only_a;
		size_t n = s ? c->nonly_b : c->nonly_a;
		for (size_t i = 0; i < n; i++)
			fprintf(f, "only in %c: %-24s start %.3f s, %.3f s\n", s ? 'B' : 'A',
				vw_fmt_safe(v[i].label), v[i].t0, v[i].dur);
	}
}

int vw_compare_print(const vw_compare *c, FILE *f, int json)
{
	if (json)
		cmp_json(c, f);
	else
		cmp_text(c, f);
	return ferror(f) ? -1 : 0;
}
