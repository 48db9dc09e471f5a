/* job-report.c: the job report — `mcview --report` on the files of a
 * parallel job: per job phase the ranks' mean and max time, the imbalance,
 * the slowest rank, the load balance and the time lost, as a text table
 * or JSON (see job.h for the figures and the JSON keys). */
#include "job.h"

#include <math.h>
#include <string.h>

#include "fmt.h"
#include "phase.h"

static void job_num(FILE *f, const char *key, double v, int comma)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
}

static void job_print_json(const vw_job *j, FILE *f)
{
	size_t nh = j->nhosts;
	fprintf(f, "{\"job\": ");
	vw_fmt_json_str(f, j->id);
	fprintf(f, ", \"ranks\": %zu, \"size\": %d, \"hosts\": %zu, \"source\": \"%s\", \"notes\": ",
		j->nranks, j->size, nh, j->source == VW_PHASES_MARKS ? "marks" : "auto");
	vw_fmt_json_str(f, j->notes);
	fprintf(f, ", \"host_offset_ms\": {");
	for (size_t h = 0; j->nhosts > 1 && h < j->nhosts; h++) {
		fprintf(f, "%s", h ? ", " : "");
		vw_fmt_json_str(f, j->hosts[h]);
		fprintf(f, ": %.3f", (double)j->host_offset[h] / 1e6);
	}
	fprintf(f, "}, \"phases\": [");
	for (size_t k = 0; k < j->nph; k++) {
		const vw_job_phase *p = &j->ph[k];
		char cls[8];
		fprintf(f, "%s\n  {\"label\": ", k ? "," : "");
		vw_fmt_json_str(f, p->label);
		fprintf(f, ", \"class\": \"%s\", ", vw_phase_class_name(p->cls, cls, sizeof cls));
		job_num(f, "start_s", (double)p->t0 / 1e9, 1);
		job_num(f, "duration_s", (double)(p->t1 - p->t0) / 1e9, 1);
		fprintf(f, "\"ranks\": %zu, ", p->nranks);
		job_num(f, "mean_s", p->mean_s, 1);
		job_num(f, "max_s", p->max_s, 1);
		job_num(f, "imbalance", p->imbalance, 1);
		if (p->slowest_rank >= 0) {
			fprintf(f, "\"slowest_rank\": %d, \"slowest_host\": ", p->slowest_rank);
			vw_fmt_json_str(f, j->ranks[p->slowest].host);
			fprintf(f, ", ");
		} else {
			fprintf(f, "\"slowest_rank\": null, \"slowest_host\": null, ");
		}
		job_num(f, "load_balance", p->load_balance, 1);
		job_num(f, "lost_s", p->lost_s, 1);
		fprintf(f, "\"per_rank\": [");
		for (size_t r = 0; r < j->nranks; r++) {
			const vw_job_cell *c = &j->cell[k * j->nranks + r];
			fprintf(f, "%s{\"rank\": %d, ", r ? ", " : "", j->ranks[r].rank);
			job_num(f, "start_s", c->t1 > c->t0 ? (double)c->t0 / 1e9 : NAN, 1);
			job_num(f, "time_s", c->time_s, 1);
			job_num(f, "useful_s", c->useful_s, 0);
			fprintf(f, "}");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}");
}

/* A figure of the text table, "-" when unknown (never "nan"). */
static const char *job_cell(char *buf, size_t len, double v, int dec)
{
	if (isfinite(v))
		snprintf(buf, len, "%.*f", dec, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

static void job_print_text(const vw_job *j, FILE *f)
{
	size_t nh = j->nhosts;
	const char *h0 = vw_fmt_safe(nh ? j->hosts[0] : ""), *h1 = vw_fmt_safe(nh ? j->hosts[nh - 1] : "");
	fprintf(f, "job %s: %zu rank%s", j->id[0] ? vw_fmt_safe(j->id) : "(no id)", j->nranks,
		j->nranks == 1 ? "" : "s");
	if (j->size > 0 && (size_t)j->size != j->nranks)
		fprintf(f, " of %d", j->size);
	if (nh == 1)
		fprintf(f, " on %s", h0);
	else
		fprintf(f, " on %zu hosts (%s .. %s)", nh, h0, h1);
	fprintf(f, ", phases from %s%s\n", j->source == VW_PHASES_MARKS ? "marks" : "detection",
		j->source == VW_PHASES_MARKS ? " (each rank's own, matched by name and order)"
					     : " (time per rank = its busy CPU time)");
	fprintf(f, "%-16s %5s %9s %9s %5s %9s %9s %9s %8s %8s %9s\n", "phase", "class", "start_s",
		"dur_s", "ranks", "mean_s", "max_s", "imbalance", "slowest", "load_bal", "lost_s");
	for (size_t k = 0; k < j->nph; k++) {
		const vw_job_phase *p = &j->ph[k];
		char cls[8], slow[16] = "-", lb[16] = "-", imb[16] = "-";
		if (p->slowest_rank >= 0)
			snprintf(slow, sizeof slow, "r%d", p->slowest_rank);
		if (!isnan(p->load_balance))
			snprintf(lb, sizeof lb, "%.2f%s", p->load_balance,
				 p->load_balance < 0.8 ? "!" : "");
		if (!isnan(p->imbalance))
			snprintf(imb, sizeof imb, "%.3f", p->imbalance);
		char mean[24], max[24], lost[24];
		fprintf(f, "%-16.16s %5s %9.3f %9.3f %5zu %9s %9s %9s %8s %8s %9s\n",
			p->label[0] ? vw_fmt_safe(p->label) : "-", vw_phase_class_name(p->cls, cls, sizeof cls),
			(double)p->t0 / 1e9, (double)(p->t1 - p->t0) / 1e9, p->nranks,
			job_cell(mean, sizeof mean, p->mean_s, 4), job_cell(max, sizeof max, p->max_s, 4),
			imb, slow, lb, job_cell(lost, sizeof lost, p->lost_s, 4));
	}
	if (!j->nph)
		fprintf(f, "(no phases: %s)\n",
			j->source == VW_PHASES_MARKS ? "no rank has marked regions; try --phases auto"
						     : "none detected");
	if (j->notes[0])
		fprintf(f, "note: %s\n", vw_fmt_safe(j->notes));
	if (j->nhosts > 1 && j->source == VW_PHASES_MARKS) {
		int64_t lo = 0, hi = 0;
		size_t ilo = 0, ihi = 0;
		for (size_t h = 0; h < j->nhosts; h++) {
			if (j->host_offset[h] < lo)
				lo = j->host_offset[h], ilo = h;
			if (j->host_offset[h] > hi)
				hi = j->host_offset[h], ihi = h;
		}
		fprintf(f, "hosts: phases start from %+.1f ms (%s) to %+.1f ms (%s) of the job's median "
			   "(the clock skew if they start at a barrier; --report=json: per host)\n",
			(double)lo / 1e6, vw_fmt_safe(j->hosts[ilo]), (double)hi / 1e6,
			vw_fmt_safe(j->hosts[ihi]));
	}
	fprintf(f, "imbalance = max/mean of the ranks' time in the phase; load_bal = mean/max of "
		   "their CPU time (! below 0.8); lost_s = max - mean\n");
}

int vw_jobs_print(const vw_jobs *js, FILE *f, int json)
{
	if (json) {
		fprintf(f, "{\"note\": ");
		vw_fmt_json_str(f, js->note);
		fprintf(f, ", \"jobs\": [");
		for (size_t i = 0; i < js->n; i++) {
			fprintf(f, "%s\n", i ? "," : "");
			job_print_json(&js->v[i], f);
		}
		fprintf(f, "]}\n");
	} else {
		if (js->note[0])
			fprintf(f, "note: %s\n", vw_fmt_safe(js->note));
		for (size_t i = 0; i < js->n; i++) {
			if (i)
				fputc('\n', f);
			job_print_text(&js->v[i], f);
		}
	}
	return ferror(f) ? -1 : 0;
}
