/* job-taken.c: how much of a job's time other processes took — per host
 * and phase, the node's busy CPU time (os.cpu.busy) against the job's own
 * (its ranks' task clock), and each rank's share of it (see job.h).
 *
 *     vw_job_load hl;
 *     job_taken_phase(m, j, cells, t0, t1, per_host);   (cells' cpu_s, off_s set)
 *     ... cells[r].taken_s, per_host[h].others_s
 *
 * A rank off its CPU was asleep (waiting, blocked) or its CPU was taken by
 * another process.  Samples alone cannot tell which; the node can: a CPU
 * that stood idle while a rank was off its CPU would have run the rank had
 * it been ready.  So on a host, over a span S with N CPUs busy B CPU-s,
 * ranks on CPU J CPU-s and off it O s in all:
 *   others  = B - J          what other processes (and the kernel) ran
 *   idle    = N S - B        CPU time no one wanted
 *   taken   = min(others, O - idle), at least 0
 * and each rank's share of taken is its share of O.  With ranks that poll
 * while they wait (MPI libraries do) off CPU means taken; a rank that
 * sleeps beside a free CPU was asleep.
 *
 * vw_job_taken_files gives the same share per file for the phase detector,
 * before any job is built: each file's CPU time from its code samples. */
#include "job-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../an.h"
#include "../code/hotcode.h"

/* The busy CPU seconds of the host of `file` over [t0, t1) from its
 * os.cpu.busy streams (per CPU, in %), and how many CPUs; NaN without. */
static double job_taken_busy(vw_model *m, size_t file, int64_t t0, int64_t t1, int *ncpu)
{
	double s = NAN;
	size_t first, end;
	*ncpu = 0;
	vw_model_file_streams(m, file, &first, &end);
	for (size_t i = first; t1 > t0 && i < end; i++) {
		const vw_stream *st = &m->streams[i];
		vw_bucket b;
		if (strcmp(st->desc->name, "os.cpu.busy") || strncmp(st->desc->instance, "cpu", 3))
			continue;
		if (vw_model_stream_buckets(m, i, t0, t1, 1, &b) != 0 || !b.count)
			continue;
		double v = b.mean / 100 * (double)(t1 - t0) / 1e9;
		s = isnan(s) ? v : s + v;
		(*ncpu)++;
	}
	return s;
}

void job_taken_phase(vw_model *m, const vw_job *j, vw_job_cell *c, int64_t t0, int64_t t1,
		     vw_job_load *hl)
{
	/* per host, in one pass over the ranks: the job's CPU time there,
	 * the ranks' time off CPU, whether both are known, its first rank */
	size_t nh = j->nhosts;
	double *job_h = calloc(nh + 1, sizeof *job_h), *off_h = calloc(nh + 1, sizeof *off_h);
	size_t *first_h = malloc((nh + 1) * sizeof *first_h);
	char *known_h = malloc(nh + 1);
	for (size_t r = 0; r < j->nranks; r++)
		c[r].taken_s = NAN;
	for (size_t h = 0; h < nh; h++) {
		memset(&hl[h], 0, sizeof hl[h]);
		hl[h].busy_s = NAN;
	}
	if (!job_h || !off_h || !first_h || !known_h) {
		free(job_h), free(off_h), free(first_h), free(known_h);
		return;
	}
	for (size_t h = 0; h < nh; h++)
		first_h[h] = SIZE_MAX, known_h[h] = 1;
	for (size_t r = 0; r < j->nranks; r++) {
		size_t h = j->ranks[r].host_ix;
		if (h >= nh || c[r].t1 <= c[r].t0)
			continue;
		if (first_h[h] == SIZE_MAX)
			first_h[h] = r;
		/* a rank of several threads: its time off CPU is unknown */
		known_h[h] &= !isnan(c[r].cpu_s) && !isnan(c[r].off_s);
		job_h[h] += isnan(c[r].cpu_s) ? 0 : c[r].cpu_s;
		off_h[h] += isnan(c[r].off_s) ? 0 : c[r].off_s;
	}
	for (size_t h = 0; h < nh; h++) {
		vw_job_load *l = &hl[h];
		double job = job_h[h], off = off_h[h];
		int known = known_h[h];
		size_t first = first_h[h];
		if (first == SIZE_MAX)
			continue;
		double span = (double)(t1 - t0) / 1e9;
		/* every rank file of a host records the node's CPUs: the first's */
		l->busy_s = job_taken_busy(m, j->ranks[first].file, t0, t1, &l->ncpu);
		l->job_s = job;
		l->span_s = span;
		if (isnan(l->busy_s) || !known)
			continue;
		double idle = l->ncpu * span - l->busy_s;
		l->others_s = l->busy_s > job ? l->busy_s - job : 0;
		double taken = off - (idle > 0 ? idle : 0);
		taken = taken < l->others_s ? taken : l->others_s;
		l->taken_s = taken > 0 ? taken : 0;
	}
	/* each rank's share of its host's taken time */
	for (size_t r = 0; r < j->nranks; r++) {
		size_t h = j->ranks[r].host_ix;
		if (h < nh && c[r].t1 > c[r].t0 && !isnan(hl[h].busy_s) && known_h[h])
			c[r].taken_s = off_h[h] > 0 ? c[r].off_s * hl[h].taken_s / off_h[h] : 0;
	}
	free(job_h), free(off_h), free(first_h), free(known_h);
}

void vw_job_taken_files(vw_an *an, int64_t t0, int64_t t1, double *share, size_t n)
{
	vw_model *m = an->m;
	double span = (double)(t1 - t0) / 1e9;
	for (size_t f = 0; f < n; f++)
		share[f] = 0;
	if (span <= 0 || n > m->nfiles)
		return;
	double *off = calloc(n, sizeof *off);
	unsigned char *done = calloc(n, 1);
	for (size_t f = 0; off && done && f < n; f++) {
		if (done[f])
			continue;
		/* the files of f's host: their CPU time from the code samples
		 * (one thread each; a rank of more threads makes the host's
		 * shares unknown) */
		const char *host = vw_model_file_host(m, f);
		double job = 0, offs = 0;
		int known = 1;
		for (size_t g = f; g < n; g++) {
			if (done[g] || strcmp(vw_model_file_host(m, g), host))
				continue;
			done[g] = 2;
			uint64_t cn[VW_CC_N];
			double per = vw_hotcode_file_period(m, g);
			double cpu = per * (double)vw_hotcode_file_classes(an, g, t0, t1, cn);
			known &= per > 0 && cpu <= span * 1.02;
			off[g] = cpu < span ? span - cpu : 0;
			job += cpu, offs += off[g];
		}
		int ncpu;
		double busy = job_taken_busy(m, f, t0, t1, &ncpu);
		double idle = ncpu * span - busy, others = busy > job ? busy - job : 0;
		double taken = offs - (idle > 0 ? idle : 0);
		taken = taken < others ? taken : others;
		for (size_t g = f; g < n; g++) {
			if (done[g] != 2)
				continue;
			done[g] = 1;
			if (known && !isnan(busy) && taken > 0 && offs > 0)
				share[g] = off[g] * taken / offs / span;
		}
	}
	free(off);
	free(done);
}
