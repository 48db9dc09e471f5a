/* job.c: rank files grouped into jobs, one phase structure per job, and
 * per phase how the ranks spent their time: useful, in MPI, balanced or
 * not (see job.h). */
#include "job-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../an.h"
#include "../code/hotcode.h"
#include "../phases/phase-int.h"
#include "../code/threads.h"

/* The recorder's own marks: its exit mark ("exited with status 0"), a
 * point mark whose text is the file's `exit` metadata, and the signal that
 * ended it ("ended by SIGTERM at ...", mcrec's endsig.c).  They end the
 * run; they mark no region. */
static int job_exit_mark(const vw_model *m, const vw_mark *k)
{
	const char *e = k->file_index < m->nfiles ? mcz_meta(m->files[k->file_index], "exit") : NULL;
	return k->kind == MCZ_MARK_POINT && k->text &&
	       ((e && !strcmp(e, k->text)) || !strncmp(k->text, "ended by SIG", 12));
}

int vw_jobs_any_marked(const vw_model *m)
{
	for (size_t i = 0; i < m->nmarks; i++) {
		const vw_mark *k = &m->marks[i];
		if (k->kind == MCZ_MARK_BEGIN || (k->kind == MCZ_MARK_POINT && !job_exit_mark(m, k)))
			return 1;
	}
	return 0;
}

/* Append one note ("; " between notes). */
static void job_note(char *buf, size_t len, const char *what)
{
	size_t at = strlen(buf);
	if (at + 3 < len)
		snprintf(buf + at, len - at, "%s%s", at ? "; " : "", what);
}

static int job_rank_cmp(const void *a, const void *b)
{
	const vw_job_rank *x = a, *y = b;
	unsigned rx = (unsigned)x->rank, ry = (unsigned)y->rank; /* -1 last */
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/* A list of rank numbers as "3, 5, 9 and 12 more" into buf. */
static void job_list(char *buf, size_t len, const int *v, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at + 16 < len; i++) {
		if (i == 6) {
			snprintf(buf + at, len - at, " and %zu more", n - i);
			return;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? ", " : "", v[i]);
	}
}

/* The files of group `id` as ranks: sorted, duplicates left out, missing
 * ranks noted. */
static int job_ranks(vw_model *m, vw_job *j, const size_t *files, size_t nf)
{
	j->ranks = calloc(nf, sizeof *j->ranks);
	int *miss = calloc(nf + 1, sizeof *miss), *dup = calloc(nf + 1, sizeof *dup);
	if (!j->ranks || !miss || !dup) {
		free(miss);
		free(dup);
		return -1;
	}
	size_t nnorank = 0, ndup = 0, nmiss = 0;
	for (size_t i = 0; i < nf; i++) {
		size_t f = files[i];
		vw_job_rank *r = &j->ranks[i];
		const char *rk = mcz_meta(m->files[f], "rank"), *host = mcz_meta(m->files[f], "host");
		char *end = NULL;
		long v = rk ? strtol(rk, &end, 10) : -1;
		r->file = f;
		r->rank = rk && end != rk && !*end && v >= 0 && v < 1 << 30 ? (int)v : -1;
		nnorank += r->rank < 0;
		r->host = host ? host : "";
		const mcz_file_info *fi = mcz_info(m->files[f]);
		r->t_first = fi->t_first + m->offsets[f];
		r->t_last = fi->t_last + m->offsets[f];
	}
	qsort(j->ranks, nf, sizeof *j->ranks, job_rank_cmp);
	size_t k = 0;
	for (size_t i = 0; i < nf; i++) {
		if (k && j->ranks[i].rank >= 0 && j->ranks[i].rank == j->ranks[k - 1].rank) {
			dup[ndup++] = j->ranks[i].rank;
			continue;
		}
		j->ranks[k++] = j->ranks[i];
	}
	j->nranks = k;
	const char *sz = mcz_meta(m->files[files[0]], "nranks");
	j->size = sz ? atoi(sz) : -1;
	if (j->size > 0) {
		size_t at = 0;
		for (int r = 0; r < j->size && nmiss < nf; r++) {
			while (at < k && j->ranks[at].rank >= 0 && j->ranks[at].rank < r)
				at++;
			if (at >= k || j->ranks[at].rank != r)
				miss[nmiss++] = r;
		}
	}
	char list[96], buf[160];
	if (ndup) {
		job_list(list, sizeof list, dup, ndup);
		snprintf(buf, sizeof buf, "rank %s given twice: the later file left out", list);
		job_note(j->notes, sizeof j->notes, buf);
	}
	if (nmiss) {
		job_list(list, sizeof list, miss, nmiss);
		snprintf(buf, sizeof buf, "rank %s of %d missing", list, j->size);
		job_note(j->notes, sizeof j->notes, buf);
	}
	if (nnorank) {
		snprintf(buf, sizeof buf, "%zu file(s) without a rank (not recorded under a launcher)",
			 nnorank);
		job_note(j->notes, sizeof j->notes, buf);
	}
	free(miss);
	free(dup);
	return 0;
}

/* CPU seconds of a rank's command over [t0, t1): its core.task_clock
 * streams (perf's task clock, per CPU) summed; NaN when it has none. */
static double job_useful(vw_model *m, size_t file, int64_t t0, int64_t t1)
{
	double s = NAN;
	if (t1 <= t0)
		return s;
	size_t first, end;
	vw_model_file_streams(m, file, &first, &end);
	for (size_t i = first; i < end; i++) {
		const vw_stream *st = &m->streams[i];
		vw_bucket b;
		if (strcmp(st->desc->name, "core.task_clock"))
			continue;
		if (vw_model_stream_buckets(m, i, t0, t1, 1, &b) != 0)
			continue;
		double v = b.count ? b.mean * (double)(t1 - t0) / 1e9 : 0;
		s = isnan(s) ? v : s + v;
	}
	return s;
}

/* 1 when rank file `file` has a damaged chunk (its CRC failed when read:
 * job_useful reads first) inside [t0, t1) of the dataset axis: its CPU
 * time there is unknown, not zero. */
static int job_damaged(vw_model *m, size_t file, int64_t t0, int64_t t1)
{
	size_t n = mcz_damaged_count(m->files[file]);
	for (size_t i = 0; i < n; i++) {
		int64_t a, b;
		if (mcz_damaged_span(m->files[file], i, &a, &b) == MCZ_OK &&
		    a + m->offsets[file] < t1 && b + m->offsets[file] >= t0)
			return 1;
	}
	return 0;
}

/* The CPU time of a rank in a phase, NaN where its data is damaged; such a
 * (rank, phase) is added to list ("rank 2 in solve"). */
static double job_useful_checked(vw_model *m, const vw_job *j, size_t r, int64_t t0,
				 int64_t t1, const char *phase, char *list, size_t len)
{
	double s = job_useful(m, j->ranks[r].file, t0, t1);
	if (!job_damaged(m, j->ranks[r].file, t0, t1))
		return s;
	size_t at = strlen(list);
	if (at + 64 < len)
		snprintf(list + at, len - at, "%srank %d in %s", at ? ", " : "", j->ranks[r].rank,
			 phase);
	return NAN;
}

static void job_damage_note(vw_job *j, const char *list)
{
	char buf[256];
	if (!list[0])
		return;
	snprintf(buf, sizeof buf, "damaged data (%s): that CPU time is left out; see mcz check",
		 list);
	job_note(j->notes, sizeof j->notes, buf);
}

/* The time a rank of one thread spent off any CPU in its cell: the span
 * less its CPU time (perf's task clock, exact); not for a rank that ran
 * more threads at once, whose CPU time no longer says it. */
static void job_cell_off(vw_job_cell *c, double cpu)
{
	double span = (double)(c->t1 - c->t0) / 1e9;
	if (isnan(cpu) || c->threads > 1 || cpu > span * 1.02)
		return;
	c->off_s = cpu < span ? span - cpu : 0;
}

/* A rank's figures in [c->t0, c->t1): from its code samples where it has
 * them (work, MPI and sync by codeclass.h), else from its CPU time.  With
 * both, the CPU time (exact) is split by the samples' shares: a phase of
 * short bursts has few samples but an exact CPU time.  Where the rank's
 * data is damaged the figures are unknown (NaN), and the rank and phase
 * are added to damlist. */
static void job_cell_fill(vw_an *an, const vw_job *j, size_t r, vw_job_cell *c,
			  const char *phase, char *damlist, size_t len)
{
	vw_model *m = an->m;
	size_t file = j->ranks[r].file;
	double per = vw_hotcode_file_period(m, file);
	c->mpi_s = c->sync_s = c->off_s = c->cpu_s = c->taken_s = NAN;
	c->outside_mpi_s = c->thread_lb = NAN;
	c->threads = 1;
	c->from_code = 0;
	if (c->t1 <= c->t0) {
		c->useful_s = NAN;
		return;
	}
	double cpu = job_useful_checked(m, j, r, c->t0, c->t1, phase, damlist, len);
	if (isnan(cpu) && job_damaged(m, file, c->t0, c->t1)) { /* unknown, not zero */
		c->useful_s = NAN;
		return;
	}
	c->cpu_s = cpu;
	if (per > 0) {
		uint64_t n[VW_CC_N];
		uint64_t all = vw_hotcode_file_classes(an, file, c->t0, c->t1, n);
		double span = (double)(c->t1 - c->t0) / 1e9, sampled = (double)all * per;
		/* no sample in a short span: its CPU time is all we know */
		double scale = isnan(cpu) ? per : all ? cpu / (double)all : 0;
		c->useful_s = all || isnan(cpu) ? (double)n[VW_CC_WORK] * scale : cpu;
		c->mpi_s = (double)n[VW_CC_MPI] * scale;
		c->sync_s = (double)n[VW_CC_SYNC] * scale;
		/* the threads that ran, where the profile is split by thread;
		 * else as many as its CPU time fills the span */
		vw_threads tt;
		int split = vw_threads_of(an, file, c->t0, c->t1, &tt) == 0;
		double th = split ? (double)tt.n : round((isnan(cpu) ? sampled : cpu) / span);
		if (split) { /* thread 0 is the main thread, the one that calls MPI */
			c->outside_mpi_s = span - tt.mpi_s[0] > 0 ? span - tt.mpi_s[0] : 0;
			c->thread_lb = tt.n > 1 ? tt.load_balance : 1;
		}
		c->threads = th > 1 ? th : 1;
		c->from_code = 1;
		job_cell_off(c, cpu);
		return;
	}
	c->useful_s = cpu;
	job_cell_off(c, cpu);
}

/* One (phase, rank) pair found while cutting the ranks by their marks. */
typedef struct job_hit {
	size_t ph, rank;
	int64_t t0, t1;
	int cut;  /* the region runs to the end of a file that was cut */
} job_hit;

typedef struct job_key {
	char label[48];   /* as the phases hold it (cut to 47 bytes) */
	int occ;
	int64_t t0;   /* earliest start seen */
} job_key;

static int job_grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? 2 * *cap : 16;
	void *q = realloc(*p, nc * size);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static int job_cmp_t0(const void *a, const void *b)
{
	const job_key *x = *(job_key *const *)a, *y = *(job_key *const *)b;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Job phases from each rank's own marks, matched by (label, occurrence); of
 * nested regions the outermost, unless fine (--phase-level fine). */
static int job_from_marks(vw_an *an, vw_job *j, int fine)
{
	vw_model *m = an->m;
	job_key *keys = NULL;
	job_hit *hits = NULL;
	size_t nkeys = 0, capk = 0, nhits = 0, caph = 0;
	vw_mark *mk = malloc((m->nmarks ? m->nmarks : 1) * sizeof *mk);
	int *nolabel = calloc(j->nranks + 1, sizeof *nolabel), rc = -1;
	size_t nnolabel = 0;
	/* the marks by file, counted then placed: the report stays linear in
	 * ranks (no look at every mark for each rank) */
	size_t *mfirst = calloc(m->nfiles + 2, sizeof *mfirst);
	size_t *mby = malloc((m->nmarks ? m->nmarks : 1) * sizeof *mby);
	if (!mk || !nolabel || !mfirst || !mby) {
		free(mfirst), free(mby);
		goto out;
	}
	for (size_t i = 0; i < m->nmarks; i++)
		if (m->marks[i].file_index < m->nfiles)
			mfirst[m->marks[i].file_index + 2]++;
	for (size_t f = 0; f < m->nfiles; f++)
		mfirst[f + 2] += mfirst[f + 1];
	for (size_t i = 0; i < m->nmarks; i++) /* in file order: each file's in time order */
		if (m->marks[i].file_index < m->nfiles)
			mby[mfirst[m->marks[i].file_index + 1]++] = i;
	for (size_t r = 0; r < j->nranks; r++) {
		const vw_job_rank *rk = &j->ranks[r];
		size_t n = 0, h0 = nhits;
		for (size_t x = rk->file < m->nfiles ? mfirst[rk->file] : 0;
		     rk->file < m->nfiles && x < mfirst[rk->file + 1]; x++) {
			const vw_mark *q = &m->marks[mby[x]];
			if (!job_exit_mark(m, q))
				mk[n++] = *q;
		}
		if (!fine)
			n = vw_phase_marks_outer(mk, n); /* nested regions: the outermost */
		struct vw_phases ph = {0};
		const mcz_file_info *fi = mcz_info(m->files[rk->file]);
		int64_t dt = fi->nrows > 1 ? (fi->t_last - fi->t_first) / (int64_t)(fi->nrows - 1) : 0;
		if (vw_phase_marks_cut(mk, n, rk->t_first, rk->t_last, dt, &ph) != 0) {
			free(ph.v);
			free(mfirst), free(mby);
			goto out;
		}
		size_t labelled = 0;
		for (size_t i = 0; i < ph.n; i++) {
			const vw_phase *p = &ph.v[i];
			if (!p->label[0])
				continue;
			labelled++;
			int occ = 0; /* this rank's earlier phases of that name (its hits are the last) */
			for (size_t h = h0; h < nhits; h++)
				occ += !strcmp(keys[hits[h].ph].label, p->label);
			size_t k = 0;
			while (k < nkeys && !(keys[k].occ == occ && !strcmp(keys[k].label, p->label)))
				k++;
			if (k == nkeys) {
				if (job_grow((void **)&keys, &capk, nkeys, sizeof *keys)) {
					free(ph.v);
					free(mfirst), free(mby);
					goto out;
				}
				job_key *nk = &keys[nkeys++];
				snprintf(nk->label, sizeof nk->label, "%s", p->label);
				nk->occ = occ;
				nk->t0 = p->t0;
			} else if (p->t0 < keys[k].t0) {
				keys[k].t0 = p->t0;
			}
			if (job_grow((void **)&hits, &caph, nhits, sizeof *hits)) {
				free(ph.v);
				free(mfirst), free(mby);
				goto out;
			}
			int cut = fi->recovered && p->t1 >= rk->t_last + 1;
			hits[nhits++] = (job_hit){k, r, p->t0, p->t1, cut};
		}
		free(ph.v);
		if (!labelled)
			nolabel[nnolabel++] = rk->rank;
	}
	free(mfirst), free(mby);
	/* phases in order of their earliest start */
	job_key **ord = malloc((nkeys ? nkeys : 1) * sizeof *ord);
	size_t *pos = malloc((nkeys ? nkeys : 1) * sizeof *pos);
	if (!ord || !pos) {
		free(ord);
		free(pos);
		goto out;
	}
	for (size_t k = 0; k < nkeys; k++)
		ord[k] = &keys[k];
	qsort(ord, nkeys, sizeof *ord, job_cmp_t0);
	for (size_t k = 0; k < nkeys; k++)
		pos[ord[k] - keys] = k;
	j->nph = nkeys;
	j->ph = calloc(nkeys ? nkeys : 1, sizeof *j->ph);
	j->cell = calloc((nkeys ? nkeys : 1) * j->nranks, sizeof *j->cell);
	if (!j->ph || !j->cell) {
		free(ord);
		free(pos);
		goto out;
	}
	for (size_t i = 0; i < nkeys * j->nranks; i++)
		j->cell[i] = (vw_job_cell){0, 0, NAN, NAN, NAN, NAN, 1, 0, NAN, NAN, NAN, NAN, NAN};
	for (size_t k = 0; k < nkeys; k++) {
		vw_job_phase *p = &j->ph[k];
		snprintf(p->label, sizeof p->label, "%s", ord[k]->label);
		p->cls = -1;
		for (size_t q = 0; q < k && p->cls < 0; q++)
			if (!strcmp(j->ph[q].label, p->label))
				p->cls = j->ph[q].cls;
		if (p->cls < 0) {
			int c = 0;
			for (size_t q = 0; q < k; q++)
				c = j->ph[q].cls + 1 > c ? j->ph[q].cls + 1 : c;
			p->cls = c;
		}
	}
	char cutlist[160] = "", damlist[160] = "";
	for (size_t h = 0; h < nhits; h++) {
		const job_hit *x = &hits[h];
		vw_job_cell *c = &j->cell[pos[x->ph] * j->nranks + x->rank];
		c->t0 = x->t0;
		c->t1 = x->t1;
		job_cell_fill(an, j, x->rank, c, keys[x->ph].label, damlist, sizeof damlist);
		if (x->cut) { /* its true length is unknown: left out of the figures */
			size_t at = strlen(cutlist);
			if (at + 64 < sizeof cutlist)
				snprintf(cutlist + at, sizeof cutlist - at, "%srank %d in %s",
					 at ? ", " : "", j->ranks[x->rank].rank, keys[x->ph].label);
			c->useful_s = c->mpi_s = c->sync_s = c->off_s = c->cpu_s = NAN;
			continue;
		}
		c->time_s = (double)(x->t1 - x->t0) / 1e9;
	}
	free(ord);
	free(pos);
	char buf[256], list[96];
	if (cutlist[0]) {
		snprintf(buf, sizeof buf, "file cut inside a phase (%s): that time is left out",
			 cutlist);
		job_note(j->notes, sizeof j->notes, buf);
	}
	job_damage_note(j, damlist);
	if (nnolabel) {
		job_list(list, sizeof list, nolabel, nnolabel);
		snprintf(buf, sizeof buf, "rank %s has no marked regions", list);
		job_note(j->notes, sizeof j->notes, buf);
	}
	rc = 0;
out:
	free(keys);
	free(hits);
	free(mk);
	free(nolabel);
	return rc;
}

/* Job phases = the phases detected on the whole model; each rank's time in
 * a phase is its useful time there (the phase's length is the same for
 * every rank). */
static int job_from_auto(vw_an *an, vw_job *j)
{
	size_t n = vw_phases_count(an->phases);
	j->nph = n;
	j->ph = calloc(n ? n : 1, sizeof *j->ph);
	j->cell = calloc((n ? n : 1) * j->nranks, sizeof *j->cell);
	if (!j->ph || !j->cell)
		return -1;
	char damlist[160] = "";
	for (size_t k = 0; k < n; k++) {
		const vw_phase *p = vw_phases_at(an->phases, k);
		vw_job_phase *q = &j->ph[k];
		char name[32];
		snprintf(q->label, sizeof q->label, "%s", p->label);
		snprintf(name, sizeof name, "phase %zu", k + 1);
		q->cls = p->cls;
		for (size_t r = 0; r < j->nranks; r++) {
			const vw_job_rank *rk = &j->ranks[r];
			vw_job_cell *c = &j->cell[k * j->nranks + r];
			c->t0 = p->t0 > rk->t_first ? p->t0 : rk->t_first;
			c->t1 = p->t1 < rk->t_last + 1 ? p->t1 : rk->t_last + 1;
			job_cell_fill(an, j, r, c, name, damlist, sizeof damlist);
			c->time_s = c->useful_s;
		}
	}
	job_damage_note(j, damlist);
	return 0;
}

/* The span of a phase's cells: the earliest start to the latest end. */
static void job_span(const vw_job *j, const vw_job_cell *c, int64_t *t0, int64_t *t1)
{
	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	for (size_t r = 0; r < j->nranks; r++)
		if (c[r].t1 > c[r].t0) {
			*t0 = c[r].t0 < *t0 ? c[r].t0 : *t0;
			*t1 = c[r].t1 > *t1 ? c[r].t1 : *t1;
		}
	if (*t1 < *t0)
		*t0 = *t1 = 0;
}

/* The figures of phase p from its ranks' cells c[0 .. nranks); regions:
 * the cells are the ranks' own marked regions. */
/* POP's hybrid figures of a phase (job.h), from every rank whose profile
 * is split by thread; NaN when one is not. */
static void job_hybrid(const vw_job *j, vw_job_phase *p, const vw_job_cell *c, double span)
{
	double osum = 0, omax = 0, lsum = 0;
	size_t n = 0;
	p->mpi_par_eff = p->mpi_lb = p->mpi_comm_eff = p->omp_par_eff = p->thread_lb = NAN;
	p->threads_max = 1;
	for (size_t r = 0; r < j->nranks; r++) {
		if (isnan(c[r].useful_s))
			continue;
		if (isnan(c[r].outside_mpi_s))
			return;
		n++;
		osum += c[r].outside_mpi_s;
		omax = c[r].outside_mpi_s > omax ? c[r].outside_mpi_s : omax;
		lsum += c[r].thread_lb;
		p->threads_max = c[r].threads > p->threads_max ? (int)c[r].threads : p->threads_max;
	}
	if (!n || span <= 0 || omax <= 0)
		return;
	p->mpi_lb = osum / (double)n / omax;
	p->mpi_comm_eff = omax / span < 1 ? omax / span : 1;
	p->mpi_par_eff = p->mpi_lb * p->mpi_comm_eff;
	p->omp_par_eff = p->mpi_par_eff > 0 ? p->par_eff / p->mpi_par_eff : NAN;
	p->thread_lb = lsum / (double)n;
}

static void job_figures(const vw_job *j, vw_job_phase *p, const vw_job_cell *c, int regions)
{
	double sum = 0, max = -1, usum = 0, umax = -1, msum = 0, ce = -1, osum = 0, tsum = 0;
	size_t n = 0, nu = 0, nm = 0, no = 0, nt = 0;
	p->slowest_rank = -1;
	job_span(j, c, &p->t0, &p->t1);
	double span = (double)(p->t1 - p->t0) / 1e9;
	for (size_t r = 0; r < j->nranks; r++) {
		if (!isnan(c[r].time_s)) {
			n++;
			sum += c[r].time_s;
			if (c[r].time_s > max)
				max = c[r].time_s;
		}
		if (!isnan(c[r].useful_s)) {
			nu++;
			usum += c[r].useful_s;
			if (c[r].useful_s > umax)
				umax = c[r].useful_s;
			/* the time others had its CPU is no time it could have worked */
			double taken = isnan(c[r].taken_s) ? 0 : c[r].taken_s;
			double own = span - taken;
			double e = own > 0 ? c[r].useful_s / (own * c[r].threads) : NAN;
			ce = e > ce ? e : ce;
		}
		if (!isnan(c[r].mpi_s))
			nm++, msum += c[r].mpi_s;
		if (!isnan(c[r].off_s))
			no++, osum += c[r].off_s;
		if (!isnan(c[r].taken_s))
			nt++, tsum += c[r].taken_s;
	}
	p->off_mean_s = no ? osum / (double)no : NAN;
	p->taken_mean_s = nt ? tsum / (double)nt : NAN;
	p->nranks = n;
	p->mean_s = n ? sum / (double)n : NAN;
	p->max_s = n ? max : NAN;
	p->imbalance = n && p->mean_s > 0 ? max / p->mean_s : NAN;
	p->useful_mean_s = nu ? usum / (double)nu : NAN;
	p->useful_max_s = nu ? umax : NAN;
	p->mpi_mean_s = nm ? msum / (double)nm : NAN;
	p->load_balance = nu && umax > 0 ? usum / (double)nu / umax : NAN;
	p->comm_eff = nu && ce >= 0 ? (ce < 1 ? ce : 1) : NAN;
	p->par_eff = p->load_balance * p->comm_eff;
	job_hybrid(j, p, c, span);
	/* The slowest rank, the one the others wait for: with marks, the one
	 * longest in its region less its time waiting in MPI or OpenMP (a
	 * region that ends with a collective lasts as long on every rank;
	 * ranks that sleep while they wait have little useful time); for
	 * detected phases, whose length is every rank's, the most useful
	 * time.  lost_s: its lead over the mean. */
	double kmax = -1, ksum = 0;
	size_t nk = 0;
	for (size_t r = 0; r < j->nranks; r++) {
		double k = regions ? c[r].time_s : c[r].useful_s;
		if (isnan(k))
			continue;
		if (regions)
			k -= ((isnan(c[r].mpi_s) ? 0 : c[r].mpi_s) +
			      (isnan(c[r].sync_s) ? 0 : c[r].sync_s)) / c[r].threads;
		k = k > 0 ? k : 0;
		nk++;
		ksum += k;
		if (k > kmax)
			kmax = k, p->slowest = r;
	}
	p->lost_s = nk ? kmax - ksum / (double)nk : NAN;
	p->lost_s = p->lost_s > 0 ? p->lost_s : nk ? 0 : NAN; /* no -0.000 from rounding */
	if (nk)
		p->slowest_rank = j->ranks[p->slowest].rank;
}

/* What ran in a job phase, every rank in its own span of it (cells c,
 * one a rank), as the phase's figures count it: the top work functions
 * and the share of MPI and sync, "dgemm_ 62%, MPI 35%". */
static void job_code(vw_an *an, const vw_job *j, const vw_job_cell *c, char *buf, size_t len)
{
	vw_hot top[8];
	uint64_t n[VW_CC_N], total = 0;
	size_t at = 0, nw = 0, k = 0;
	buf[0] = '\0';
	vw_hot_span *sp = malloc((j->nranks + 1) * sizeof *sp);
	if (sp) {
		for (size_t r = 0; r < j->nranks; r++)
			sp[r] = (vw_hot_span){j->ranks[r].file, c[r].t0, c[r].t1};
		k = vw_hotcode_spans_top(an, sp, j->nranks, top, 8, &total, n);
		free(sp);
	}
	if (!k || !total)
		return;
	for (size_t i = 0; i < k && nw < 2; i++) {
		if (vw_hotcode_fn_class(an, top[i].fn) != VW_CC_WORK || (nw && top[i].share < 0.05))
			continue;
		int w = snprintf(buf + at, len - at, "%s%s %.0f%%", nw ? ", " : "",
				 vw_hotcode_brief(an, top[i].fn), 100 * top[i].share);
		if (w < 0 || at + (size_t)w >= len)
			break;
		at += (size_t)w;
		nw++;
	}
	for (int cl = VW_CC_MPI; cl < VW_CC_N; cl++) {
		double sh = (double)n[cl] / (double)total;
		if (sh < 0.02)
			continue;
		int w = snprintf(buf + at, len - at, "%s%s %.0f%%", at ? ", " : "",
				 vw_codeclass_name(cl), 100 * sh);
		if (w < 0 || at + (size_t)w >= len)
			break;
		at += (size_t)w;
	}
}

/* A rank's time off its CPU less what other processes took (the header
 * says that): asleep, or taken where the node cannot tell. */
static double job_asleep(const vw_job_cell *c)
{
	return isnan(c->off_s) ? NAN : isnan(c->taken_s) ? c->off_s : c->off_s - c->taken_s;
}

/* A note when a rank was off its CPU for a good part of a phase (0.25 s
 * and 30 % or more), not for other processes: its time there is neither
 * work nor MPI.  The longest is named, with how many more there are. */
static void job_off_note(vw_job *j)
{
	const vw_job_cell *worst = NULL;
	size_t wk = 0, wr = 0, more = 0;
	for (size_t k = 0; k < j->nph; k++)
		for (size_t r = 0; r < j->nranks; r++) {
			const vw_job_cell *c = &j->cell[k * j->nranks + r];
			double span = (double)(c->t1 - c->t0) / 1e9;
			double asleep = job_asleep(c);
			if (isnan(asleep) || asleep < 0.25 || asleep < 0.3 * span)
				continue;
			more += worst != NULL;
			if (!worst || asleep > job_asleep(worst))
				worst = c, wk = k, wr = r;
		}
	if (!worst)
		return;
	char buf[256], more_s[64] = "";
	double span = (double)(worst->t1 - worst->t0) / 1e9;
	if (more)
		snprintf(more_s, sizeof more_s, " (and %zu more such rank-phase%s)", more,
			 more > 1 ? "s" : "");
	if (j->source == VW_PHASES_MARKS)
		snprintf(buf, sizeof buf, "rank %d was off its CPU %.2f s of its %.2f s in %s%s: "
			 "asleep, or its CPU taken by another process", j->ranks[wr].rank,
			 job_asleep(worst), span, j->ph[wk].label, more_s);
	else
		snprintf(buf, sizeof buf, "rank %d was off its CPU %.2f s of the %.2f s phase at "
			 "%.2f s%s: asleep, or its CPU taken by another process", j->ranks[wr].rank,
			 job_asleep(worst), span, (double)j->ph[wk].t0 / 1e9, more_s);
	job_note(j->notes, sizeof j->notes, buf);
}

/* 1 when file was recorded with the code source (its code.samples
 * stream) and yet holds no code profile. */
static int job_code_lost(vw_model *m, size_t file)
{
	int64_t off;
	if (vw_model_code_at(m, file, &off))
		return 0;
	const mcz_reader *r = m->files[file];
	for (size_t i = 0; r && i < mcz_stream_count(r); i++)
		if (!strcmp(mcz_stream(r, i)->name, "code.samples"))
			return 1;
	return 0;
}

/* The figures of every phase, and of the whole run: each rank from its
 * first sample to its last. */
static int job_stats(vw_an *an, vw_job *j)
{
	vw_model *m = an->m;
	vw_job_load *hl = calloc(j->nhosts ? j->nhosts : 1, sizeof *hl);
	j->load = calloc(j->nhosts ? j->nhosts : 1, sizeof *j->load);
	j->run_cell = calloc(j->nranks ? j->nranks : 1, sizeof *j->run_cell);
	if (!hl || !j->load || !j->run_cell) {
		free(hl);
		return -1;
	}
	j->taken_from_s = j->taken_to_s = NAN;
	for (size_t k = 0; k < j->nph; k++) {
		vw_job_cell *c = &j->cell[k * j->nranks];
		int64_t t0, t1;
		job_span(j, c, &t0, &t1);
		job_taken_phase(m, j, c, t0, t1, hl);
		job_figures(j, &j->ph[k], c, j->source == VW_PHASES_MARKS);
		job_code(an, j, c, j->ph[k].code, sizeof j->ph[k].code);
		/* when others took the CPUs: the phases where they took 5 % of
		 * the ranks' time or more */
		const vw_job_phase *p = &j->ph[k];
		double span = (double)(p->t1 - p->t0) / 1e9;
		if (!isnan(p->taken_mean_s) && span > 0 && p->taken_mean_s >= 0.05 * span) {
			if (isnan(j->taken_from_s))
				j->taken_from_s = (double)p->t0 / 1e9;
			j->taken_to_s = (double)p->t1 / 1e9;
		}
	}
	free(hl);
	job_off_note(j);
	size_t ncode = 0;
	char damlist[160] = "";
	for (size_t r = 0; r < j->nranks; r++) {
		vw_job_cell *c = &j->run_cell[r];
		c->t0 = j->ranks[r].t_first;
		c->t1 = j->ranks[r].t_last + 1;
		job_cell_fill(an, j, r, c, "the whole run", damlist, sizeof damlist);
		c->time_s = c->useful_s;
		ncode += c->from_code;
		j->code_lost += !c->from_code && job_code_lost(m, j->ranks[r].file);
	}
	if (!j->nph) /* else the phases named the damage */
		job_damage_note(j, damlist);
	int64_t t0, t1;
	job_span(j, j->run_cell, &t0, &t1);
	job_taken_phase(m, j, j->run_cell, t0, t1, j->load);
	job_figures(j, &j->run, j->run_cell, 0);
	job_code(an, j, j->run_cell, j->run.code, sizeof j->run.code);
	snprintf(j->run.label, sizeof j->run.label, "(whole run)");
	j->run.cls = -1;
	j->useful_from = ncode == j->nranks ? VW_USEFUL_CODE : ncode ? VW_USEFUL_MIXED : VW_USEFUL_CPU;
	const char *cn = ncode ? vw_hotcode_class_note(an) : ""; /* the user's rules left out */
	if (cn[0]) {
		char buf[300];
		snprintf(buf, sizeof buf, "code classes: %s", cn);
		job_note(j->notes, sizeof j->notes, buf);
	}
	return 0;
}

static int job_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v); 0 for n == 0. */
static int64_t job_median(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, job_cmp_i64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The hosts of a job and each one's offset: for every phase, the median
 * start of the host's ranks minus the median start of all ranks; the
 * host's offset is the median of that over the phases.  Files are aligned
 * on their wall clocks; ranks that leave a barrier together start the next
 * phase together, so a host whose ranks start late on every phase has a
 * clock that is behind by about that much. */
static uint64_t job_str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int job_hosts(vw_job *j)
{
	size_t nr = j->nranks, cap = 16;
	while (cap < 2 * nr)
		cap *= 2;
	j->hosts = calloc(nr ? nr : 1, sizeof *j->hosts);
	j->host_offset = calloc(nr ? nr : 1, sizeof *j->host_offset);
	int64_t *all = malloc((nr ? nr : 1) * sizeof *all), *mine = malloc((nr ? nr : 1) * sizeof *mine);
	int64_t *per = malloc((j->nph ? j->nph : 1) * (nr ? nr : 1) * sizeof *per);
	size_t *hof = malloc((nr ? nr : 1) * sizeof *hof), *slot = calloc(cap, sizeof *slot);
	size_t *np = calloc(nr ? nr : 1, sizeof *np);
	int rc = -1;
	if (!j->hosts || !j->host_offset || !all || !mine || !per || !hof || !slot || !np)
		goto out;
	/* each rank's host, by a hash of the names (index + 1 in slot), so
	 * that finding them is linear in ranks */
	for (size_t r = 0; r < nr; r++) {
		size_t k = job_str_hash(j->ranks[r].host) & (cap - 1);
		while (slot[k] && strcmp(j->hosts[slot[k] - 1], j->ranks[r].host))
			k = (k + 1) & (cap - 1);
		if (!slot[k]) {
			j->hosts[j->nhosts] = j->ranks[r].host;
			slot[k] = ++j->nhosts;
		}
		hof[r] = slot[k] - 1;
		j->ranks[r].host_ix = hof[r];
	}
	/* per phase: each host's median start minus the job's, the job's
	 * median taken once; per[h * nph + k] */
	for (size_t k = 0; j->nhosts > 1 && k < j->nph; k++) {
		size_t na = 0;
		for (size_t r = 0; r < nr; r++) {
			const vw_job_cell *c = &j->cell[k * nr + r];
			if (c->t1 > c->t0)
				all[na++] = c->t0;
		}
		if (!na)
			continue;
		int64_t med = job_median(all, na);
		/* the ranks' starts grouped by host: counted, then placed */
		size_t *first = slot; /* reused: nhosts + 1 <= cap */
		memset(first, 0, (j->nhosts + 1) * sizeof *first);
		for (size_t r = 0; r < nr; r++) {
			const vw_job_cell *c = &j->cell[k * nr + r];
			if (c->t1 > c->t0)
				first[hof[r] + 1]++;
		}
		for (size_t h = 0; h < j->nhosts; h++)
			first[h + 1] += first[h];
		for (size_t r = 0; r < nr; r++) {
			const vw_job_cell *c = &j->cell[k * nr + r];
			if (c->t1 > c->t0)
				mine[first[hof[r]]++] = c->t0;
		}
		for (size_t h = 0, from = 0; h < j->nhosts; h++) {
			size_t to = first[h];
			if (to > from)
				per[h * j->nph + np[h]++] = job_median(mine + from, to - from) - med;
			from = to;
		}
	}
	for (size_t h = 0; j->nhosts > 1 && h < j->nhosts; h++)
		j->host_offset[h] = job_median(per + h * j->nph, np[h]);
	rc = 0;
out:
	free(all), free(mine), free(per), free(hof), free(slot), free(np);
	return rc;
}

/* How the job ended: the `ended_by` that gives a reason (rank 0 asked
 * Slurm), else any rank's, else a killed recorder's mark. */
static void job_ended(const vw_model *m, vw_job *j)
{
	int best = 0;
	j->ended_rank = -1;
	/* each file's first "ended by SIG..." mark, in one pass over the marks
	 * (not one pass for each rank) */
	const char **killed = calloc(m->nfiles + 1, sizeof *killed);
	for (size_t i = 0; killed && i < m->nmarks; i++)
		if (m->marks[i].file_index < m->nfiles && !killed[m->marks[i].file_index] &&
		    m->marks[i].text && !strncmp(m->marks[i].text, "ended by SIG", 12))
			killed[m->marks[i].file_index] = m->marks[i].text;
	for (size_t r = 0; r < j->nranks; r++) {
		const char *e = mcz_meta(m->files[j->ranks[r].file], "ended_by");
		int score = e ? (strstr(e, "): ") ? 3 : 2) : 0;
		if (!score && killed && j->ranks[r].file < m->nfiles && killed[j->ranks[r].file])
			e = killed[j->ranks[r].file], score = 1;
		if (score > best) {
			best = score;
			snprintf(j->ended, sizeof j->ended, "%s", e + (strncmp(e, "ended by ", 9) ? 0 : 9));
			j->ended_rank = j->ranks[r].rank;
		}
	}
	free(killed);
}

void vw_jobs_free(vw_jobs *js)
{
	if (!js)
		return;
	for (size_t i = 0; i < js->n; i++) {
		free(js->v[i].hosts);
		free(js->v[i].host_offset);
		free(js->v[i].ranks);
		free(js->v[i].ph);
		free(js->v[i].cell);
		free(js->v[i].run_cell);
		free(js->v[i].load);
	}
	free(js->v);
	free(js);
}

int vw_jobs_build(vw_an *an, int source, const vw_phase_params *p, vw_jobs **out, char *err,
		  size_t errlen)
{
	vw_model *m = an->m;
	*out = NULL;
	vw_jobs *js = calloc(1, sizeof *js);
	size_t *grp = malloc(m->nfiles * sizeof *grp), *files = malloc(m->nfiles * sizeof *files);
	if (!js || !grp || !files)
		goto oom;
	if (source == VW_PHASES_AUTO && (!an->phases || an->phases->source != VW_PHASES_AUTO)) {
		vw_phase_params dp = VW_PHASE_PARAMS_INIT;
		if (vw_phases_detect(an, p ? p : &dp, VW_PHASES_AUTO, err, errlen) != 0)
			goto fail;
	}
	/* jobs in order of their first file */
	size_t njobs = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		const char *id = mcz_meta(m->files[f], "job");
		id = id ? id : "";
		size_t g = 0;
		for (; g < f; g++) {
			const char *o = mcz_meta(m->files[g], "job");
			if (!strcmp(o ? o : "", id))
				break;
		}
		grp[f] = g < f ? grp[g] : njobs++;
	}
	js->v = calloc(njobs, sizeof *js->v);
	if (!js->v)
		goto oom;
	js->n = njobs;
	if (njobs > 1)
		snprintf(js->note, sizeof js->note,
			 "files of %zu jobs given together (different job ids): shown as separate jobs",
			 njobs);
	for (size_t g = 0; g < njobs; g++) {
		vw_job *j = &js->v[g];
		size_t nf = 0;
		for (size_t f = 0; f < m->nfiles; f++)
			if (grp[f] == g)
				files[nf++] = f;
		const char *id = mcz_meta(m->files[files[0]], "job");
		snprintf(j->id, sizeof j->id, "%s", id ? id : "");
		j->source = source;
		if (job_ranks(m, j, files, nf) ||
		    (source == VW_PHASES_MARKS ? job_from_marks(an, j, p && p->level) : job_from_auto(an, j)) ||
		    job_hosts(j) || job_stats(an, j))
			goto oom;
		job_ended(m, j);
	}
	free(grp);
	free(files);
	*out = js;
	return 0;
oom:
	snprintf(err, errlen, "out of memory building the job's phases");
fail:
	free(grp);
	free(files);
	vw_jobs_free(js);
	return -1;
}

int vw_jobs_ensure(vw_an *an, char *err, size_t errlen)
{
	vw_model *m = an->m;
	if (an->jobs || !vw_model_is_job(m))
		return 0;
	int src = vw_jobs_any_marked(m) ? VW_PHASES_MARKS : VW_PHASES_AUTO;
	const vw_phase_params *p = an->phases ? &an->phases->params : NULL;
	if (vw_jobs_build(an, src, p, &an->jobs, err, errlen) != 0)
		return -1;
	return 0;
}

int vw_job_phase_at(const vw_job *j, int64_t t)
{
	for (size_t k = 0; k < j->nph; k++)
		if (t >= j->ph[k].t0 && t < j->ph[k].t1)
			return (int)k;
	return -1;
}
