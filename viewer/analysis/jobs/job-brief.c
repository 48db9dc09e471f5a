/* job-brief.c: a job's own summary, `mcview --report --brief` — the few
 * lines a batch job's output ends with, as seff and jobstats give, but
 * from the recording:
 *
 *     mcz job 7: 2 ranks on 1 node (vm), wall 61.3 s
 *       ended:   SIGTERM at 61.2 s from slurmstepd (pid 42): Slurm time limit
 *       balance: load balance 0.76, slowest rank 1 (vm)
 *       time:    MPI 23.1%, sync 0.0%, off-CPU 4.2% of the wall time, mean of the ranks
 *       memory:  peak vm 412.3 MiB
 *       code:    LAMMPS_NS::PairLJCut::compute 61%, MPI 23%
 *       phases:  3: A 0.4 s | B 59.8 s lb 0.76 | C 0.2 s
 *       files:   /scratch/run/s.7.0.mcz s.7.1.mcz
 *
 * Every figure is the report's whole-run row or sums of its per-rank
 * cells (job.h), so that the summary never disagrees with `mcview
 * --report`: wall = the run's duration_s; shares = the mean over ranks of
 * their mpi_s, sync_s and off_cpu_s over the wall time; memory = per host, the
 * sum of its ranks' peak resident size (app.rss; seff's "Memory
 * Utilized" adds its tasks' peaks the same way).
 */
#include "job.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../fmt.h"
#include "../phases/phase.h"

/* The peak of a file's stream `name`, NaN when it has none. */
static double brief_peak(mcz_reader *r, const char *name)
{
	const mcz_file_info *fi = mcz_info(r);
	for (size_t i = 0; i < mcz_stream_count(r); i++) {
		mcz_bucket b;
		if (strcmp(mcz_stream(r, i)->name, name) || fi->t_last < fi->t_first ||
		    mcz_summary(r, (uint32_t)i, fi->t_first, fi->t_last + 1, 1, &b) != MCZ_OK ||
		    !b.count)
			continue;
		return b.max;
	}
	return NAN;
}

static void brief_memory(vw_model *m, const vw_job *j, FILE *f)
{
	fprintf(f, "  memory:  peak");
	for (size_t h = 0; h < j->nhosts; h++) {
		double sum = 0;
		size_t n = 0;
		for (size_t r = 0; r < j->nranks; r++) {
			if (strcmp(j->ranks[r].host, j->hosts[h]))
				continue;
			double v = brief_peak(m->files[j->ranks[r].file], "app.rss");
			if (!isnan(v))
				sum += v, n++;
		}
		if (h == 6 && j->nhosts > 7) {
			fprintf(f, " (and %zu more nodes)", j->nhosts - h);
			break;
		}
		fprintf(f, "%s %s ", h ? "," : "", vw_fmt_safe(j->hosts[h][0] ? j->hosts[h] : "?"));
		if (n)
			fprintf(f, "%.1f MiB", sum / 1048576.0);
		else
			fprintf(f, "-");
	}
	fputc('\n', f);
}

/* The files: their folder once when they share one, the names shortened
 * past five */
static void brief_files(const vw_model *m, const vw_job *j, FILE *f)
{
	char dir[PATH_MAX] = "";
	int same = 1;
	for (size_t r = 0; r < j->nranks && same; r++) {
		char *abs = realpath(m->paths[j->ranks[r].file], NULL);
		char *slash = abs ? strrchr(abs, '/') : NULL;
		if (!slash)
			same = 0;
		else if (*slash = '\0', r == 0)
			snprintf(dir, sizeof dir, "%s", abs);
		else
			same = !strcmp(dir, abs);
		free(abs);
	}
	fprintf(f, "  files:   ");
	if (same)
		fprintf(f, "%s/", vw_fmt_safe(dir));
	for (size_t r = 0; r < j->nranks; r++) {
		const char *p = m->paths[j->ranks[r].file];
		if (r == 3 && j->nranks > 5) {
			fprintf(f, " ... (%zu files in all)", j->nranks);
			r = j->nranks - 2;
			continue;
		}
		if (same && strrchr(p, '/'))
			p = strrchr(p, '/') + 1;
		fprintf(f, "%s%s", r ? " " : "", vw_fmt_safe(p));
	}
	fputc('\n', f);
}

static void brief_phases(const vw_job *j, FILE *f)
{
	char cls[8], lb[24];
	fprintf(f, "  phases:  %zu:", j->nph);
	for (size_t k = 0; k < j->nph; k++) {
		const vw_job_phase *p = &j->ph[k];
		if (k == 8) {
			fprintf(f, " | ... %zu more", j->nph - k);
			break;
		}
		const char *name = p->label[0]	 ? p->label
				   : p->cls >= 0 ? vw_phase_class_name(p->cls, cls, sizeof cls)
						 : "-";
		lb[0] = '\0';
		if (!isnan(p->load_balance))
			snprintf(lb, sizeof lb, " lb %.2f", p->load_balance);
		fprintf(f, "%s %s %.1f s%s", k ? " |" : "", vw_fmt_safe(name),
			(double)(p->t1 - p->t0) / 1e9, lb);
	}
	fputc('\n', f);
}

static void brief_job(vw_model *m, const vw_job *j, FILE *f)
{
	const vw_job_phase *run = &j->run;
	fprintf(f, "mcz job %s: %zu rank%s on %zu node%s",
		j->id[0] ? vw_fmt_safe(j->id) : "(no id)", j->nranks, j->nranks == 1 ? "" : "s",
		j->nhosts, j->nhosts == 1 ? "" : "s");
	if (j->nhosts == 1)
		fprintf(f, " (%s)", vw_fmt_safe(j->hosts[0]));
	fprintf(f, ", wall %.1f s\n", (double)(run->t1 - run->t0) / 1e9);
	if (j->ended[0])
		fprintf(f, "  ended:   %s\n", vw_fmt_safe(j->ended));
	fprintf(f, "  balance: load balance ");
	if (isnan(run->load_balance))
		fprintf(f, "-");
	else
		fprintf(f, "%.2f", run->load_balance);
	if (run->slowest_rank >= 0)
		fprintf(f, ", slowest rank %d (%s)", run->slowest_rank,
			vw_fmt_safe(j->ranks[run->slowest].host));
	fprintf(f, "%s\n",
		j->useful_from == VW_USEFUL_CODE ? ""
						 : " (from CPU time: MPI waits count as work)");
	/* shares of the wall time: the mean over the ranks that have the
	 * figure of their time in MPI, in OpenMP waits, off their CPU */
	double wall = (double)(run->t1 - run->t0) / 1e9, mpi = 0, sync = 0, off = 0;
	size_t nm = 0, no = 0;
	for (size_t r = 0; r < j->nranks; r++) {
		const vw_job_cell *c = &j->run_cell[r];
		if (!isnan(c->mpi_s))
			nm++, mpi += c->mpi_s, sync += isnan(c->sync_s) ? 0 : c->sync_s;
		if (!isnan(c->off_s))
			no++, off += c->off_s;
	}
	fprintf(f, "  time:    ");
	if (nm && wall > 0)
		fprintf(f, "MPI %.1f%%, sync %.1f%%, ", 100 * mpi / (double)nm / wall,
			100 * sync / (double)nm / wall);
	else
		fprintf(f, "MPI -, sync - (no code samples), ");
	if (no && wall > 0)
		fprintf(f, "off-CPU %.1f%%", 100 * off / (double)no / wall);
	else
		fprintf(f, "off-CPU -");
	fprintf(f, " of the wall time, mean of the ranks\n");
	brief_memory(m, j, f);
	fprintf(f, "  code:    %s\n",
		run->code[0] ? vw_fmt_safe(run->code) : "- (no code samples)");
	brief_phases(j, f);
	brief_files(m, j, f);
}

int vw_jobs_print_brief(vw_model *m, const vw_jobs *js, FILE *f)
{
	if (js->note[0])
		fprintf(f, "note: %s\n", vw_fmt_safe(js->note));
	for (size_t i = 0; i < js->n; i++)
		brief_job(m, &js->v[i], f);
	return ferror(f) ? -1 : 0;
}
