/* job-report.c: the job report — `mcview --report` on the files of a
 * parallel job: per job phase and for the whole run the ranks' useful
 * time and time in MPI, the imbalance, the slowest rank, the load balance,
 * communication and parallel efficiency, the time lost and what ran, as a
 * text table or JSON (see job.h for the figures and the JSON keys). */
#include "job-int.h"

#include <math.h>
#include <string.h>

#include "../fmt.h"
#include "../phases/phase.h"
#include "../code/waitowner.h"

static void job_num(FILE *f, const char *key, double v, int comma)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
}

static const char *job_useful_from(const vw_job *j)
{
	return j->useful_from == VW_USEFUL_CODE ? "code samples"
	       : j->useful_from == VW_USEFUL_CPU ? "cpu time" : "mixed";
}

static void job_phase_json(vw_an *an, const vw_job *j, const vw_job_phase *p,
			   const vw_job_cell *cell, FILE *f)
{
	char cls[8];
	fprintf(f, "{\"label\": ");
	vw_fmt_json_str(f, p->label);
	if (p->cls >= 0)
		fprintf(f, ", \"class\": \"%s\", ", vw_phase_class_name(p->cls, cls, sizeof cls));
	else
		fprintf(f, ", \"class\": null, ");
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
	job_num(f, "useful_mean_s", p->useful_mean_s, 1);
	job_num(f, "useful_max_s", p->useful_max_s, 1);
	job_num(f, "mpi_mean_s", p->mpi_mean_s, 1);
	job_num(f, "load_balance", p->load_balance, 1);
	job_num(f, "comm_eff", p->comm_eff, 1);
	job_num(f, "par_eff", p->par_eff, 1);
	job_num(f, "lost_s", p->lost_s, 1);
	job_num(f, "off_cpu_mean_s", p->off_mean_s, 1);
	job_num(f, "taken_mean_s", p->taken_mean_s, 1);
	/* POP's hybrid split (null where a rank's profile is not split by thread) */
	fprintf(f, "\"threads_max\": %d, ", p->threads_max);
	job_num(f, "mpi_par_eff", p->mpi_par_eff, 1);
	job_num(f, "mpi_load_balance", p->mpi_lb, 1);
	job_num(f, "mpi_comm_eff", p->mpi_comm_eff, 1);
	job_num(f, "omp_par_eff", p->omp_par_eff, 1);
	job_num(f, "thread_load_balance", p->thread_lb, 1);
	fprintf(f, "\"code\": ");
	vw_fmt_json_str(f, p->code);
	vw_wait_report_json(an, j, SIZE_MAX, p->t0, p->t1, f); /* with call stacks */
	fprintf(f, ", \"per_rank\": [");
	for (size_t r = 0; r < j->nranks; r++) {
		const vw_job_cell *c = &cell[r];
		fprintf(f, "%s{\"rank\": %d, ", r ? ", " : "", j->ranks[r].rank);
		job_num(f, "start_s", c->t1 > c->t0 ? (double)c->t0 / 1e9 : NAN, 1);
		job_num(f, "time_s", c->time_s, 1);
		job_num(f, "useful_s", c->useful_s, 1);
		job_num(f, "mpi_s", c->mpi_s, 1);
		job_num(f, "sync_s", c->sync_s, 1);
		job_num(f, "off_cpu_s", c->off_s, 1);
		job_num(f, "taken_s", c->taken_s, 1);
		job_num(f, "outside_mpi_s", c->outside_mpi_s, 1);
		job_num(f, "thread_load_balance", c->thread_lb, 1);
		job_num(f, "threads", c->threads, 0);
		if (c->t1 > c->t0)
			vw_wait_report_json(an, j, j->ranks[r].file, c->t0, c->t1, f);
		fprintf(f, "}");
	}
	fprintf(f, "]}");
}

static void job_print_json(vw_an *an, const vw_job *j, FILE *f)
{
	size_t nh = j->nhosts;
	fprintf(f, "{\"job\": ");
	vw_fmt_json_str(f, j->id);
	fprintf(f, ", \"ranks\": %zu, \"size\": %d, \"hosts\": %zu, \"source\": \"%s\", "
		   "\"useful_from\": \"%s\", \"notes\": ",
		j->nranks, j->size, nh, j->source == VW_PHASES_MARKS ? "marks" : "auto",
		job_useful_from(j));
	vw_fmt_json_str(f, j->notes);
	fprintf(f, ", \"host_offset_ms\": {");
	for (size_t h = 0; j->nhosts > 1 && h < j->nhosts; h++) {
		fprintf(f, "%s", h ? ", " : "");
		vw_fmt_json_str(f, j->hosts[h]);
		fprintf(f, ": %.3f", (double)j->host_offset[h] / 1e6);
	}
	fprintf(f, "}, \"phases\": [");
	for (size_t k = 0; k < j->nph; k++) {
		fprintf(f, "%s\n  ", k ? "," : "");
		job_phase_json(an, j, &j->ph[k], &j->cell[k * j->nranks], f);
	}
	fprintf(f, "],\n \"run\": ");
	job_phase_json(an, j, &j->run, j->run_cell, f);
	fprintf(f, ",\n \"contention\": {");
	job_num(f, "from_s", j->taken_from_s, 1);
	job_num(f, "to_s", j->taken_to_s, 1);
	fprintf(f, "\"hosts\": [");
	for (size_t h = 0; h < j->nhosts; h++) {
		const vw_job_load *l = &j->load[h];
		fprintf(f, "%s{\"host\": ", h ? ", " : "");
		vw_fmt_json_str(f, j->hosts[h]);
		fprintf(f, ", \"cpus\": %d, ", l->ncpu);
		job_num(f, "busy_cpu_s", l->busy_s, 1);
		job_num(f, "job_cpu_s", l->ncpu ? l->job_s : NAN, 1);
		job_num(f, "others_cpu_s", l->ncpu ? l->others_s : NAN, 1);
		job_num(f, "taken_s", l->ncpu ? l->taken_s : NAN, 0);
		fprintf(f, "}");
	}
	fprintf(f, "]}");
	fprintf(f, ", \"ended_by\": ");
	if (j->ended[0]) {
		vw_fmt_json_str(f, j->ended);
		fprintf(f, ", \"ended_rank\": %d}", j->ended_rank);
	} else
		fprintf(f, "null, \"ended_rank\": null}");
}

/* "0.52!" (below 0.8 flagged), "-" unknown. */
static const char *job_frac(char *buf, size_t len, double v, int flag)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%s", v, flag && v < 0.8 ? "!" : "");
	return buf;
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

static void job_phase_text(const vw_job_phase *p, FILE *f)
{
	char cls[8] = "", slow[16] = "-", lb[16], ce[16], pe[16], imb[16] = "-", mpi[16] = "-";
	char off[24];
	if (p->slowest_rank >= 0)
		snprintf(slow, sizeof slow, "r%d", p->slowest_rank);
	if (!isnan(p->imbalance))
		snprintf(imb, sizeof imb, "%.3f", p->imbalance);
	if (!isnan(p->mpi_mean_s))
		snprintf(mpi, sizeof mpi, "%.3f", p->mpi_mean_s);
	if (p->cls >= 0)
		vw_phase_class_name(p->cls, cls, sizeof cls);
	char um[24], ux[24], lost[24];
	fprintf(f, "%-16.16s %5s %9.3f %9.3f %5zu %9s %9s %9s %9s %9s %8s %8s %8s %7s %8s  %s\n",
		p->label[0] ? vw_fmt_safe(p->label) : "-", cls[0] ? cls : "-", (double)p->t0 / 1e9,
		(double)(p->t1 - p->t0) / 1e9, p->nranks, job_cell(um, sizeof um, p->useful_mean_s, 3),
		job_cell(ux, sizeof ux, p->useful_max_s, 3), mpi,
		job_cell(off, sizeof off, p->off_mean_s, 3), imb, slow,
		job_frac(lb, sizeof lb, p->load_balance, 1), job_frac(ce, sizeof ce, p->comm_eff, 0),
		job_frac(pe, sizeof pe, p->par_eff, 0), job_cell(lost, sizeof lost, p->lost_s, 3),
		p->code[0] ? vw_fmt_safe(p->code) : "-");
}

/* The header's line on other processes: how much of each host's CPU time
 * they had, when, and what they took from the ranks (the most first); none
 * when they took under 2 % of every rank's time. */
static void job_taken_text(const vw_job *j, FILE *f)
{
	const vw_job_cell *c = j->run_cell;
	size_t ord[4], nord = 0, more = 0;
	for (size_t r = 0; r < j->nranks; r++) {
		double span = (double)(c[r].t1 - c[r].t0) / 1e9;
		if (isnan(c[r].taken_s) || c[r].taken_s < 0.1 || c[r].taken_s < 0.02 * span)
			continue;
		size_t at = nord;
		while (at > 0 && c[ord[at - 1]].taken_s < c[r].taken_s)
			at--;
		if (at >= 4) {
			more++;
			continue;
		}
		if (nord == 4)
			more++;
		else
			nord++;
		memmove(ord + at + 1, ord + at, (nord - 1 - at) * sizeof *ord);
		ord[at] = r;
	}
	if (!nord)
		return;
	fprintf(f, "CPUs taken by other processes");
	if (!isnan(j->taken_from_s))
		fprintf(f, " from %.1f s to %.1f s", j->taken_from_s, j->taken_to_s);
	fprintf(f, ":");
	for (size_t h = 0, n = 0; h < j->nhosts && n < 3; h++) {
		const vw_job_load *l = &j->load[h];
		if (!l->ncpu || isnan(l->busy_s) || l->taken_s < 0.1)
			continue;
		fprintf(f, "%s %s's %d CPUs ran others %.1f of %.1f CPU-s (%.0f%%), the job %.1f",
			n++ ? ";" : "", vw_fmt_safe(j->hosts[h]), l->ncpu, l->others_s,
			l->ncpu * l->span_s, 100 * l->others_s / (l->ncpu * l->span_s), l->job_s);
	}
	fprintf(f, "; they took");
	for (size_t i = 0; i < nord; i++) {
		const vw_job_cell *x = &c[ord[i]];
		fprintf(f, "%s rank %d %.2f s (%.0f%%)", i ? "," : "", j->ranks[ord[i]].rank,
			x->taken_s, 100 * x->taken_s / ((double)(x->t1 - x->t0) / 1e9));
	}
	if (more)
		fprintf(f, " and %zu more", more);
	fprintf(f, ": left out of comm_eff and load_bal\n");
}

static void job_print_text(vw_an *an, const vw_job *j, FILE *f)
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
		j->source == VW_PHASES_MARKS ? " (each rank's own, matched by name and order)" : "");
	if (j->ended[0])
		fprintf(f, "ended by %s (rank %d's recorder)\n", vw_fmt_safe(j->ended), j->ended_rank);
	if (j->useful_from == VW_USEFUL_CODE)
		fprintf(f, "useful time from code samples: time in MPI and OpenMP runtimes is waiting, "
			   "not work\n");
	else if (j->useful_from == VW_USEFUL_CPU && j->code_lost)
		fprintf(f, "useful time from CPU time: MPI waits count as work (the code source "
			   "ran, but %s no code profile: %s recorder was killed before it wrote "
			   "any, as mcrec did before format 1.6)\n",
			j->code_lost == j->nranks ? "the files hold" : "some files hold",
			j->code_lost == 1 ? "its" : "their");
	else if (j->useful_from == VW_USEFUL_CPU)
		fprintf(f, "useful time from CPU time: MPI waits count as work (no code samples: "
			   "record with mcrec's code source to tell them apart)\n");
	else
		fprintf(f, "useful time from code samples where a rank has them, else from CPU time "
			   "(MPI waits count as work there%s)\n",
			j->code_lost ? "; the others' recorders were killed before they wrote their "
				       "code profile" : "");
	job_taken_text(j, f);
	/* ranks of several threads: POP's split of the run's efficiency */
	const vw_job_phase *rp = &j->run;
	if (rp->threads_max > 1 && !isnan(rp->mpi_par_eff))
		fprintf(f, "hybrid (POP), the whole run: parallel efficiency %.2f = MPI %.2f (load "
			   "balance %.2f x communication %.2f) x OpenMP %.2f (threads' load balance "
			   "%.2f, up to %d threads a rank)\n",
			rp->par_eff, rp->mpi_par_eff, rp->mpi_lb, rp->mpi_comm_eff, rp->omp_par_eff,
			rp->thread_lb, rp->threads_max);
	fprintf(f, "%-16s %5s %9s %9s %5s %9s %9s %9s %9s %9s %8s %8s %8s %7s %8s  %s\n", "phase",
		"class", "start_s", "dur_s", "ranks", "useful_s", "max_s", "mpi_s", "off_s", "imbalance",
		"slowest", "load_bal", "comm_eff", "par_eff", "lost_s", "code");
	for (size_t k = 0; k < j->nph; k++)
		job_phase_text(&j->ph[k], f);
	if (!j->nph)
		fprintf(f, "(no phases: %s)\n",
			j->source == VW_PHASES_MARKS ? "no rank has marked regions; try --phases auto"
						     : "none detected");
	job_phase_text(&j->run, f);
	/* where the waiting comes from (with call stacks): the run, then the
	 * phases where a class waits for 1 % of the samples or more */
	if (vw_wait_report_text(an, j, j->run.t0, j->run.t1, 0, "waiting, the whole run", f))
		for (size_t k = 0; k < j->nph; k++) {
			char cls[8], pre[96];
			const vw_job_phase *p = &j->ph[k];
			snprintf(pre, sizeof pre, "waiting in %s", p->label[0] ? vw_fmt_safe(p->label)
					: vw_phase_class_name(p->cls, cls, sizeof cls));
			vw_wait_report_text(an, j, p->t0, p->t1, 0.01, pre, f);
		}
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
	fprintf(f, "useful_s, max_s = mean, max over ranks of the useful time; mpi_s = mean time in "
		   "MPI; off_s = mean time off CPU (asleep, or taken by other processes); imbalance = max/mean of the ranks' time in the phase; load_bal = mean/max "
		   "useful (! below 0.8); comm_eff = max useful / (phase time - time others took); par_eff = load_bal x "
		   "comm_eff; lost_s = max - mean useful; code = the phase's hottest functions and "
		   "MPI as shares of its code samples (mpi_s is time)\n");
}

int vw_jobs_print(vw_an *an, const vw_jobs *js, FILE *f, int json)
{
	if (json) {
		fprintf(f, "{\"note\": ");
		vw_fmt_json_str(f, js->note);
		fprintf(f, ", \"jobs\": [");
		for (size_t i = 0; i < js->n; i++) {
			fprintf(f, "%s\n", i ? "," : "");
			job_print_json(an, &js->v[i], f);
		}
		fprintf(f, "]}\n");
	} else {
		if (js->note[0])
			fprintf(f, "note: %s\n", vw_fmt_safe(js->note));
		for (size_t i = 0; i < js->n; i++) {
			if (i)
				fputc('\n', f);
			job_print_text(an, &js->v[i], f);
		}
	}
	return ferror(f) ? -1 : 0;
}
