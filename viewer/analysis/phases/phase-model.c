/* phase-model.c: the phases of a model — streams chosen, detector run on
 * summaries, boundaries refined on samples, phases taken from marks.
 *
 * The detector sees one stream per row group of the model (a per-CPU family
 * summed, e.g. all core.instructions[cpuN] as one), and where the code
 * profile allows, the rate of each of its hottest code regions
 * (hotcode.h: "code:compute_kernel", or "code:app+0x1400" without debug
 * info), so that busy phases running different code separate; skipping marks (not
 * the application's work counters, app.flops...) and
 * gauges of bytes (RSS and other sizes grow with the run and would cut it
 * into slices).  The coarse level comes from vw_model_stream_buckets on a
 * grid aligned to the sampling interval (so that a bucket holds whole
 * samples), at most 8192 buckets, each value a trimmed mean (the bucket's
 * min and max left out when it holds 5 samples or more: a spike weighs
 * little).  Refinement asks for the same at one bucket per sample around
 * each boundary; a boundary is the edge between the last sample of one
 * phase and the first of the next.
 *
 * The door (vw_phases_detect, selection, zoom) is phases.c; this file is
 * what it calls: vw_phase_model_prepare, _run, _marks (phase-int.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../an.h"
#include "../code/hotcode.h"
#include "../jobs/job.h"
#include "phase-int.h"

#define PHASE_MAX_STREAMS 64
#define PHASE_CODE_REGIONS 6 /* code regions the detector compares, at most */
#define PHASE_RANK_WAITS 8   /* a job of up to this many ranks: each rank's MPI rate too */
#define PHASE_COARSE 8192
#define PHASE_FINE_MAX (1 << 20)
/* chunk columns an exact coarse level may decode: a couple of seconds'
 * work at most (bench-phase.sh's large recording) */
#define PHASE_DECODE_BUDGET 100000

typedef struct phase_fine_ctx {
	vw_an *an;
	vw_model *m;         /* an->m */
	size_t d;
	size_t *rows;        /* detector stream j = sum of m->groups[rows[j]]'s members
				(indexes: the model may move its arrays) */
	size_t *creg;        /* 0, or r + 1: detector stream j is code region r's rate
				(hotcode.h), not a row */
	size_t *crank;       /* 0, or f + 1: detector stream j is the MPI rate of file f
				(a rank of a job), not a row */
	double *eps;         /* > 0: the row is a rate, detected as log(rate + eps) */
	int64_t origin;      /* grid: origin + k * dt are bucket edges, samples in the middle */
	int64_t dt;
	vw_bucket *buf;
	size_t cap;
} phase_fine_ctx;

void vw_phase_model_fine_free(void *fine)
{
	phase_fine_ctx *f = fine;
	if (!f)
		return;
	free(f->rows);
	free(f->creg);
	free(f->crank);
	free(f->eps);
	free(f->buf);
	free(f);
}

void vw_phase_model_fine_rebind(void *fine, vw_an *an)
{
	if (fine) {
		((phase_fine_ctx *)fine)->an = an;
		((phase_fine_ctx *)fine)->m = an->m;
	}
}

/* ---- which streams ------------------------------------------------------------ */

/* Does the label contain one of the comma-separated words of list? */
static int phase_listed(const char *list, const char *label)
{
	char w[96];
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n && n < sizeof w) {
			memcpy(w, p, n);
			w[n] = '\0';
			if (strstr(label, w))
				return 1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

static int phase_row_wanted(const vw_model *m, const vw_row *r, const char *list)
{
	if (!r->nmembers)
		return 0;
	const mcz_stream_desc *d = m->streams[r->members[0]].desc;
	if (d->source && !strcmp(d->source, "mark") && d->kind != MCZ_COUNTER)
		return 0; /* marks; but the work counts of mcmark_count (app.flops...) are streams */
	if (list[0])
		return phase_listed(list, r->label);
	if (d->kind == MCZ_GAUGE && d->unit && !strcmp(d->unit, "B"))
		return 0; /* sizes: RSS, cache size... */
	return 1;
}

static int phase_row_default(const vw_model *m, const vw_row *r)
{
	return phase_row_wanted(m, r, "");
}

/* Does the row read the whole node rather than the recorded process: the
 * kernel's CPU and network figures (os.*, net.*), PCP's and RAPL's, perf's
 * counters opened system-wide (uncore)?  Another process moves them. */
static int phase_row_node(const vw_model *m, const vw_row *r)
{
	const mcz_stream_desc *d = m->streams[r->members[0]].desc;
	if (!strncmp(d->name, "os.", 3) || !strncmp(d->name, "net.", 4))
		return 1;
	if (d->source && (!strcmp(d->source, "pcp") || !strcmp(d->source, "rapl")))
		return 1;
	return d->note && (strstr(d->note, "system-wide") || strstr(d->note, "uncore"));
}

/* On a job, the detector reads the job's own rows and code: a neighbour's
 * load alone makes no boundary (issue 42: stress-ng beside LAMMPS moved
 * os.cpu.busy and os.ctxt_switches and cut the MD loop in three).  The
 * node's rows stay where nothing of the job's own is left to read. */
static int phase_job_own(vw_an *an, const struct vw_phases *ph)
{
	vw_model *m = an->m;
	if (ph->params.streams[0] || !vw_model_is_job(m))
		return 0;
	if (vw_hotcode_regions(an, 1))
		return 1;
	for (size_t g = 0; g < m->ngroups; g++)
		if (phase_row_default(m, &m->groups[g]) && !phase_row_node(m, &m->groups[g]))
			return 1;
	return 0;
}

/* Sampling interval of the dataset (ns): the recorder's interval_ns, else
 * the mean spacing of the first file's rows. */
int64_t vw_phase_model_interval(const vw_model *m)
{
	const char *s = m->nfiles ? mcz_meta(m->files[0], "interval_ns") : NULL;
	long long v = s ? atoll(s) : 0;
	if (v > 0)
		return v;
	const mcz_file_info *fi = m->nfiles ? mcz_info(m->files[0]) : NULL;
	if (fi && fi->nrows > 1 && fi->t_last > fi->t_first)
		return (fi->t_last - fi->t_first) / (int64_t)(fi->nrows - 1);
	return 1000000; /* 1 ms: a single-sample recording */
}

/* Sum of a row's members over [a, b) split into n buckets, into out[n];
 * trimmed means; NaN where no member has data. */
static int phase_row_values(phase_fine_ctx *f, const vw_row *r, int64_t a, int64_t b, size_t n,
			    double *out)
{
	if (n > f->cap) {
		vw_bucket *nb = realloc(f->buf, n * sizeof *nb);
		if (!nb)
			return -1;
		f->buf = nb;
		f->cap = n;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = NAN;
	for (size_t k = 0; k < r->nmembers; k++) {
		if (vw_model_stream_buckets(f->m, r->members[k], a, b, n, f->buf) != 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			const vw_bucket *q = &f->buf[i];
			if (!q->count || isnan(q->mean))
				continue;
			double v = q->mean;
			if (q->count >= 5)
				v = (q->mean * (double)q->count - q->min - q->max) / (double)(q->count - 2);
			out[i] = isnan(out[i]) ? v : out[i] + v;
		}
	}
	return 0;
}

/* Detector stream j over [a, b) in n buckets: a row's values, or a code
 * region's rate (threads running it; 0 where it did not run). */
static int phase_values(phase_fine_ctx *f, size_t j, int64_t a, int64_t b, size_t n, double *out)
{
	if (f->creg[j])
		return vw_hotcode_region_rate(f->an, f->creg[j] - 1, a, b, n, out);
	if (f->crank[j])
		return vw_hotcode_file_class_rate(f->an, f->crank[j] - 1, VW_CC_MPI, a, b, n, out);
	return phase_row_values(f, &f->m->groups[f->rows[j]], a, b, n, out);
}

/* The members of every detector row over [a, b) in n buckets, read in one
 * pass over the file (mcz_summary_multi); phase_row_values then finds them
 * in the model's cache instead of decoding each stream's chunks again. */
static void phase_prefetch(phase_fine_ctx *f, int64_t a, int64_t b, size_t n)
{
	size_t k = 0, tot = 0;
	for (size_t j = 0; j < f->d; j++)
		tot += f->creg[j] || f->crank[j] ? 0 : f->m->groups[f->rows[j]].nmembers;
	size_t *ss = malloc((tot + 1) * sizeof *ss);
	for (size_t j = 0; ss && j < f->d; j++) {
		if (f->creg[j] || f->crank[j])
			continue;
		const vw_row *r = &f->m->groups[f->rows[j]];
		for (size_t i = 0; i < r->nmembers; i++)
			ss[k++] = r->members[i];
	}
	if (ss && k)
		vw_model_streams_buckets(f->m, ss, k, a, b, n, NULL, NULL);
	free(ss);
}

/* Rates are compared on a log scale: a phase that doubles a rate is as
 * distinct at 1 MB/s as at 1 GB/s, and a rate that only wavers with the CPU
 * share a shared machine gives the command (0.4 to 0.9 CPUs) weighs less
 * than busy against idle (0.005 to 0.4).  eps, 1 % of the row's 99th
 * percentile, keeps values near 0 from dominating. */
static void phase_log(double *v, size_t n, double eps)
{
	for (size_t i = 0; eps > 0 && i < n; i++)
		if (!isnan(v[i]))
			v[i] = log((v[i] > 0 ? v[i] : 0) + eps);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double phase_eps(const vw_model *m, const vw_row *r, const double *v, size_t n)
{
	if (m->streams[r->members[0]].desc->kind != MCZ_COUNTER)
		return 0;
	double *t = malloc((n + 1) * sizeof *t);
	size_t k = 0;
	for (size_t i = 0; t && i < n; i++)
		if (!isnan(v[i]))
			t[k++] = v[i];
	double q = 0;
	if (k) {
		qsort(t, k, sizeof *t, dbl_cmp);
		q = t[(size_t)(0.99 * (double)(k - 1))];
	}
	free(t);
	return q > 0 ? 0.01 * q : 0;
}

static long phase_fetch_model(void *ctx, int64_t lo, int64_t hi, int64_t **pos, double **val)
{
	phase_fine_ctx *f = ctx;
	int64_t k0 = (lo - f->origin) / f->dt, k1 = (hi - f->origin + f->dt - 1) / f->dt;
	size_t n = k1 > k0 ? (size_t)(k1 - k0) : 0;
	if (n > PHASE_FINE_MAX)
		n = PHASE_FINE_MAX;
	*pos = malloc((n + 1) * sizeof **pos);
	*val = malloc((f->d * n + 1) * sizeof **val);
	if (!*pos || !*val)
		goto fail;
	int64_t a = f->origin + k0 * f->dt;
	for (size_t k = 0; k < n; k++)
		(*pos)[k] = a + (int64_t)k * f->dt;
	if (n)
		phase_prefetch(f, a, a + (int64_t)n * f->dt, n);
	for (size_t j = 0; j < f->d && n; j++) {
		if (phase_values(f, j, a, a + (int64_t)n * f->dt, n, *val + j * n))
			goto fail;
		phase_log(*val + j * n, n, f->eps[j]);
	}
	return (long)n;
fail:
	free(*pos);
	free(*val);
	*pos = NULL;
	*val = NULL;
	return -1;
}

/* ---- detection ------------------------------------------------------------------- */

/* Samples per coarse bucket so that every bucket holds whole chunks, when
 * an exact coarse level would decode more than PHASE_DECODE_BUDGET chunk
 * columns (a large recording: 10^9 values would take tens of seconds and
 * map the whole file); else 0.  mcz_summary then answers from the index alone (a
 * chunk counts in the bucket of its first sample), the coarse level is at
 * chunk resolution, and the refinement still places each boundary on a
 * sample, decoding only the chunks around it. */
static size_t phase_chunk_bucket(const vw_model *m, const phase_fine_ctx *f)
{
	size_t members = 0, chunks = 0;
	double rows = 0;
	for (size_t j = 0; j < f->d; j++)
		members += f->creg[j] || f->crank[j] ? 0 : m->groups[f->rows[j]].nmembers;
	for (size_t i = 0; i < m->nfiles; i++) {
		const mcz_file_info *fi = mcz_info(m->files[i]);
		if (fi->nchunks > chunks) {
			chunks = fi->nchunks;
			rows = (double)fi->nrows / (double)fi->nchunks;
		}
	}
	if ((double)chunks * (double)members <= PHASE_DECODE_BUDGET)
		return 0;
	/* a chunk of r rows spans r - 1 intervals: a little more than r keeps
	 * the chunks of uneven length (time-flushed ones) inside a bucket */
	return (size_t)ceil(rows * 1.1);
}

/* Build the coarse level and the detector. */
int vw_phase_model_prepare(vw_an *an, struct vw_phases *ph)
{
	vw_model *m = an->m;
	phase_fine_ctx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	ph->fine = f;
	f->an = an;
	f->m = m;
	size_t cap = m->ngroups + PHASE_CODE_REGIONS + PHASE_RANK_WAITS + 1;
	f->rows = calloc(cap, sizeof *f->rows);
	f->creg = calloc(cap, sizeof *f->creg);
	f->crank = calloc(cap, sizeof *f->crank);
	f->eps = calloc(cap, sizeof *f->eps);
	if (!f->rows || !f->creg || !f->crank || !f->eps)
		return -1;
	size_t used = 0;
	/* PCP archives: the rows that change, the host's first (phase-pick.c) */
	size_t npick = ph->params.streams[0]
			       ? 0
			       : phase_pick_pcp(m, phase_row_default, f->rows, PHASE_MAX_STREAMS);
	int own = !npick && phase_job_own(an, ph);
	for (size_t g = 0; g < m->ngroups && f->d < PHASE_MAX_STREAMS; g++) {
		if (npick ? g >= npick : !phase_row_wanted(m, &m->groups[g], ph->params.streams))
			continue;
		if (own && phase_row_node(m, &m->groups[g]))
			continue;
		size_t row = npick ? f->rows[g] : g;
		f->rows[f->d++] = row;
		/* whole names only: the list is read back (vw_phase_pick_basis) */
		if (used + 1 + strlen(m->groups[row].label) < sizeof ph->used)
			used += (size_t)snprintf(ph->used + used, sizeof ph->used - used, "%s%s",
						 used ? "," : "", m->groups[row].label);
	}
	/* Where the code ran: busy phases that run different code look alike
	 * to the counters of a machine without a PMU (issue 16). */
	size_t nreg = vw_hotcode_regions(an, PHASE_CODE_REGIONS);
	for (size_t r = 0; r < nreg && f->d < PHASE_MAX_STREAMS; r++) {
		const char *name = vw_hotcode_region_name(an, r);
		if (ph->params.streams[0] && !phase_listed(ph->params.streams, name))
			continue;
		f->creg[f->d++] = r + 1;
		int w = snprintf(ph->used + used, sizeof ph->used - used, "%s%s", used ? "," : "", name);
		if (w > 0 && used + (size_t)w < sizeof ph->used)
			used += (size_t)w;
	}
	/* A job of a few ranks: each rank's time in MPI too.  Where one rank
	 * takes over the work another did (hpcc's StarDGEMM ending on the
	 * slower rank, then SingleDGEMM on the other), the job's totals do not
	 * change; the ranks' waits do. */
	if (vw_model_is_job(m) && m->nfiles <= PHASE_RANK_WAITS && !ph->params.streams[0]) {
		uint64_t cn[VW_CC_N];
		uint64_t all = vw_hotcode_file_classes(an, SIZE_MAX, m->t_min, m->t_max + 1, cn);
		for (size_t fi = 0; all && cn[VW_CC_MPI] * 100 >= all && fi < m->nfiles &&
				    f->d < PHASE_MAX_STREAMS + PHASE_RANK_WAITS;
		     fi++) {
			if (vw_hotcode_file_period(m, fi) <= 0)
				continue;
			f->crank[f->d++] = fi + 1;
			const char *rk = mcz_meta(m->files[fi], "rank");
			int w = snprintf(ph->used + used, sizeof ph->used - used, "%scode:MPI of rank %s",
					 used ? "," : "", rk ? rk : "?");
			if (w > 0 && used + (size_t)w < sizeof ph->used)
				used += (size_t)w;
		}
	}
	ph->nused = f->d;
	f->dt = vw_phase_model_interval(m);
	int64_t span = m->t_max - m->t_min + f->dt;
	size_t nsamp = (size_t)(span / f->dt), b = (nsamp + PHASE_COARSE - 1) / PHASE_COARSE;
	if (b == 0)
		b = 1;
	size_t bc = phase_chunk_bucket(m, f);
	if (bc > b)
		b = bc;
	int64_t w = (int64_t)b * f->dt;
	size_t nb = (size_t)((span + w - 1) / w);
	f->origin = m->t_min - f->dt / 2;
	double *v = malloc((f->d * nb + 1) * sizeof *v);
	int64_t *edge = malloc((nb + 1) * sizeof *edge);
	int rc = -1;
	if (!v || !edge)
		goto out;
	for (size_t i = 0; i <= nb; i++)
		edge[i] = f->origin + (int64_t)i * w;
	phase_prefetch(f, edge[0], edge[nb], nb);
	for (size_t j = 0; j < f->d; j++) {
		if (phase_values(f, j, edge[0], edge[nb], nb, v + j * nb))
			goto out;
		f->eps[j] = f->creg[j] || f->crank[j] ? 0
								: phase_eps(m, &m->groups[f->rows[j]], v + j * nb, nb);
		phase_log(v + j * nb, nb, f->eps[j]);
	}
	vw_phase_fine fine = {phase_fetch_model, f};
	rc = vw_phase_prep_coarse(&ph->prep, f->d, nb, v, edge, f->dt, &fine);
	for (size_t j = 0; !rc && j < f->d; j++)
		if ((f->creg[j] || f->crank[j]) && vw_phase_prep_code(ph->prep, j))
			rc = -1;
out:
	free(v);
	free(edge);
	return rc;
}

/* Classes take the hot code into account: the detector's code streams are
 * the few hottest regions of the run, so two busy phases whose code lies
 * outside them look alike there (seven stress-ng stressors in a row).  A
 * class whose busy phases ran different hottest functions is split, one
 * class per function; classes renumbered in order of first appearance. */
static int phase_split_by_code(vw_an *an, vw_phase_seg *seg, size_t n)
{
	vw_model *m = an->m;
	typedef char code_t[96];
	code_t *code = malloc((n + 1) * sizeof *code), *kc = malloc((n + 1) * sizeof *kc);
	int *key = malloc((n + 1) * sizeof *key), nk = 0;
	if (!code || !kc || !key) {
		free(code), free(kc), free(key);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		vw_hotcode_busy_code(an, i ? seg[i].start : m->t_min, i + 1 < n ? seg[i].end : m->t_max + 1,
			       code[i], sizeof code[i]);
	/* key k = (class, code) pairs in order of first appearance; a phase
	 * without code (idle) takes its class's first pair */
	for (size_t i = 0; i < n; i++) {
		int k = 0;
		while (k < nk && !(key[k] == seg[i].cls &&
				   (!code[i][0] || !kc[k][0] || !strcmp(kc[k], code[i]))))
			k++;
		if (k == nk) {
			key[nk] = seg[i].cls;
			memcpy(kc[nk++], code[i], sizeof *kc);
		} else if (!kc[k][0]) {
			memcpy(kc[k], code[i], sizeof *kc);
		}
		seg[i].cls = k;
	}
	free(code), free(kc), free(key);
	return 0;
}

/* Per rank of a job, the share of its samples in [t0, t1) spent in MPI or
 * sync; 0 where a rank has none. */
static void phase_waits(vw_an *an, int64_t t0, int64_t t1, double *w)
{
	vw_model *m = an->m;
	for (size_t fi = 0; fi < m->nfiles && fi < PHASE_RANK_WAITS; fi++) {
		uint64_t n[VW_CC_N];
		uint64_t all = vw_hotcode_file_classes(an, fi, t0, t1, n);
		w[fi] = all ? (double)(n[VW_CC_MPI] + n[VW_CC_SYNC]) / (double)all : 0;
	}
}

/* Whether other processes took a rank's CPU for a share of one span
 * PHASE_TAKEN_APART or more above the other's (vw_job_taken_files).  A
 * rank whose CPU is taken makes those exchanging with it wait longer, on
 * their CPUs (MPI libraries poll), by an amount the samples cannot tell
 * from the job's own waiting: LAMMPS's busier rank waited 1 % of its
 * samples alone and 40 % while stress-ng took 45 % of each CPU; its other
 * rank, which waits for the busier one anyway, 55 % alone and 71 % (not
 * 55 + 53) with half of each CPU taken. */
#define PHASE_TAKEN_APART 0.1
static int phase_taken_apart(vw_an *an, const vw_phase_seg *a, const vw_phase_seg *b)
{
	vw_model *m = an->m;
	size_t nf = m->nfiles < PHASE_RANK_WAITS ? m->nfiles : PHASE_RANK_WAITS;
	double ta[PHASE_RANK_WAITS], tb[PHASE_RANK_WAITS];
	vw_job_taken_files(an, a->start, a->end, ta, nf);
	vw_job_taken_files(an, b->start, b->end, tb, nf);
	for (size_t fi = 0; fi < nf; fi++)
		if (fabs(ta[fi] - tb[fi]) >= PHASE_TAKEN_APART)
			return 1;
	return 0;
}

/* On a job of a few ranks, how unevenly its ranks wait in [t0, t1): the
 * largest minus the smallest rank's share of samples in MPI or sync (hpcc's
 * SingleRandomAccess_LCG, one rank computing while the other waits: about
 * 1; the section before it, both ranks updating the table: under 0.2);
 * 0 on a single recording. */
static double phase_wait_spread(vw_an *an, int64_t t0, int64_t t1)
{
	vw_model *m = an->m;
	if (!vw_model_is_job(m) || m->nfiles < 2 || m->nfiles > PHASE_RANK_WAITS)
		return 0;
	double w[PHASE_RANK_WAITS] = {0}, lo = 1, hi = 0;
	phase_waits(an, t0, t1, w);
	for (size_t fi = 0; fi < m->nfiles; fi++)
		lo = w[fi] < lo ? w[fi] : lo, hi = w[fi] > hi ? w[fi] : hi;
	return hi - lo;
}

/* The most uneven stretch of [t0, t1): phase_wait_spread over the whole,
 * each half and each third.  A phase the detector cut across two sections
 * (hpcc's StarRandomAccess, both ranks updating, then 0.6 s of
 * SingleRandomAccess, one rank computing while the other waits) is even
 * enough on the whole (0.35) but not in its second half (0.68). */
static double phase_wait_spread_peak(vw_an *an, int64_t t0, int64_t t1)
{
	double peak = phase_wait_spread(an, t0, t1);
	for (int parts = 2; parts <= 3; parts++)
		for (int k = 0; k < parts; k++) {
			double s = phase_wait_spread(an, t0 + (t1 - t0) * k / parts,
						     t0 + (t1 - t0) * (k + 1) / parts);
			peak = s > peak ? s : peak;
		}
	return peak;
}

/* The default level reads a long run at its own scale: a phase shorter
 * than a fortieth of the run whose hottest code is its neighbour's (the
 * last iterations of HPL, where communication takes over from the same
 * dgemm_) joins that neighbour, the longer one where both qualify.  A
 * phase without code, or running other code, stays however short; so does,
 * on a job, one where the ranks' balance changes (phase_wait_spread
 * differing by PHASE_SPREAD_APART or more: the same code run by one rank
 * while the others wait is another section). */
#define PHASE_SPREAD_APART 0.5
static size_t phase_absorb_same_code(vw_an *an, vw_phase_seg *seg, size_t n)
{
	if (n < 2)
		return n;
	int64_t run = seg[n - 1].end - seg[0].start;
	typedef char code_t[96];
	code_t *code = malloc(n * sizeof *code);
	if (!code)
		return n; /* the finer cut is still right */
	for (size_t i = 0; i < n; i++)
		vw_hotcode_busy_code(an, seg[i].start, seg[i].end, code[i], sizeof code[i]);
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < n && !again; i++) {
			int64_t len = seg[i].end - seg[i].start;
			if (!code[i][0] || 40 * len > run)
				continue;
			double sp = phase_wait_spread(an, seg[i].start, seg[i].end);
			int l = i > 0 && !strcmp(code[i - 1], code[i]) &&
				fabs(phase_wait_spread(an, seg[i - 1].start, seg[i - 1].end) - sp) <
					PHASE_SPREAD_APART;
			int r = i + 1 < n && !strcmp(code[i + 1], code[i]) &&
				fabs(phase_wait_spread(an, seg[i + 1].start, seg[i + 1].end) - sp) <
					PHASE_SPREAD_APART;
			if (!l && !r)
				continue;
			size_t into = l && r ? (seg[i - 1].end - seg[i - 1].start >=
							seg[i + 1].end - seg[i + 1].start
						? i - 1
						: i + 1)
				      : l ? i - 1 : i + 1;
			if (into < i)
				seg[into].end = seg[i].end;
			else
				seg[into].start = seg[i].start, seg[into].gain = seg[i].gain;
			memmove(seg + i, seg + i + 1, (n - i - 1) * sizeof *seg);
			memmove(code + i, code + i + 1, (n - i - 1) * sizeof *code);
			n--;
			again = 1;
		}
	}
	/* neighbours of one class joined by it are one phase */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && seg[k - 1].cls == seg[i].cls) {
			seg[k - 1].end = seg[i].end;
			continue;
		}
		seg[k++] = seg[i];
	}
	free(code);
	return k;
}

/* Whether two spans of a job ran the same mix: their work is mostly the
 * same code (vw_hotcode_work_overlap at least PHASE_MIX_CODE), the ranks
 * wait as much on the whole (their mean share of samples in MPI or sync
 * within PHASE_MIX_MEAN) and each rank within PHASE_MIX_RANK of its own.
 * A rank that computes and one that waits differ by 0.5 or more (hpcc's
 * StarDGEMM and SingleDGEMM: 0 and 0.2, then 1 and 0); within one section
 * a rank drifts by up to 0.3 (hpcc's MPIRandomAccess: its updates, then
 * their check, a rank waiting 0.3 then 0.6 of the time; on this VM, one
 * CPU slowing down while the other spins).  Nor are two spans alike where
 * a stretch of one has a rank computing while another waits and the other
 * span does not (phase_wait_spread_peak against phase_wait_spread,
 * PHASE_SPREAD_APART): a blend of two sections otherwise bridges the
 * sections on either side of it (hpcc's MPIRandomAccess and its _LCG
 * variant, 2 s apart, were one phase).
 *
 * Where other processes took more of one span than of the other
 * (phase_taken_apart) the ranks' waits are not compared, only the code and
 * the spread: a boundary is the job's doing, not its neighbours'.  The
 * spread still is: a rank that computes alone while another's CPU is
 * taken is a section of its own (hpcc's SingleRandomAccess with a busy
 * loop on one CPU). */
#define PHASE_MIX_CODE 0.6
#define PHASE_MIX_MEAN 0.15
#define PHASE_MIX_RANK 0.35
static int phase_mix_alike(vw_an *an, const vw_phase_seg *a, const vw_phase_seg *b)
{
	vw_model *m = an->m;
	if (vw_hotcode_work_overlap(an, a->start, a->end, b->start, b->end) < PHASE_MIX_CODE)
		return 0;
	if (fabs(phase_wait_spread_peak(an, b->start, b->end) -
		 phase_wait_spread(an, a->start, a->end)) >= PHASE_SPREAD_APART ||
	    fabs(phase_wait_spread_peak(an, a->start, a->end) -
		 phase_wait_spread(an, b->start, b->end)) >= PHASE_SPREAD_APART)
		return 0;
	if (phase_taken_apart(an, a, b))
		return 1;
	double wa[PHASE_RANK_WAITS] = {0}, wb[PHASE_RANK_WAITS] = {0};
	phase_waits(an, a->start, a->end, wa);
	phase_waits(an, b->start, b->end, wb);
	double ma = 0, mb = 0;
	for (size_t fi = 0; fi < m->nfiles && fi < PHASE_RANK_WAITS; fi++) {
		if (fabs(wa[fi] - wb[fi]) > PHASE_MIX_RANK)
			return 0;
		ma += wa[fi], mb += wb[fi];
	}
	return fabs(ma - mb) <= PHASE_MIX_MEAN * (double)m->nfiles;
}

/* The default level on a job of a few ranks: neighbouring phases that the
 * counters told apart but whose ranks ran the same mix of code (mostly the
 * same functions, each rank waiting in MPI about as much as before) are one
 * phase, of the longer one's class.  A section of a real application
 * drifts as it runs (HPL's trailing matrix shrinks, the other CPU of the
 * node gets busy for a while); what a rank computes and how long it waits
 * tell the sections apart (hpcc's StarDGEMM and SingleDGEMM: both dgemm_,
 * one rank waiting half the time in the second). */
static size_t phase_join_same_mix(vw_an *an, vw_phase_seg *seg, size_t n)
{
	vw_model *m = an->m;
	if (n < 2 || !vw_model_is_job(m) || m->nfiles > PHASE_RANK_WAITS)
		return n;
	size_t k = 1;
	for (size_t i = 1; i < n; i++) {
		vw_phase_seg *p = &seg[k - 1];
		if (phase_mix_alike(an, p, &seg[i])) {
			if (seg[i].end - seg[i].start > p->end - p->start)
				p->cls = seg[i].cls;
			p->end = seg[i].end;
			continue;
		}
		seg[k++] = seg[i];
	}
	return k;
}

int vw_phase_model_run(vw_an *an, struct vw_phases *ph)
{
	vw_model *m = an->m;
	vw_phase_seg *seg;
	size_t n;
	if (vw_phase_run(ph->prep, &ph->params, &seg, &n))
		return -1;
	if (phase_split_by_code(an, seg, n)) {
		free(seg);
		return -1;
	}
	if (ph->params.level == 0) {
		n = phase_absorb_same_code(an, seg, n);
		n = vw_phase_cycles(seg, n);
		n = phase_join_same_mix(an, seg, n);
	}
	free(ph->v);
	ph->v = calloc(n + 1, sizeof *ph->v);
	if (!ph->v) {
		free(seg);
		return -1;
	}
	ph->n = n;
	ph->nclasses = 0;
	for (size_t i = 0; i < n; i++) {
		vw_phase *p = &ph->v[i];
		p->t0 = i ? seg[i].start : m->t_min;
		p->t1 = i + 1 < n ? seg[i].end : m->t_max + 1;
		p->cls = seg[i].cls;
		p->gain = seg[i].gain;
		if (p->cls + 1 > ph->nclasses)
			ph->nclasses = p->cls + 1;
	}
	free(seg);
	return 0;
}

/* ---- marks as phases --------------------------------------------------------------- */

static int phase_add(struct vw_phases *ph, size_t *cap, int64_t t0, int64_t t1, const char *label)
{
	if (t1 <= t0)
		return 0;
	if (ph->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		vw_phase *nv = realloc(ph->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		ph->v = nv;
		*cap = nc;
	}
	vw_phase *p = &ph->v[ph->n++];
	memset(p, 0, sizeof *p);
	p->t0 = t0;
	p->t1 = t1;
	p->mark_dt = 0;
	snprintf(p->label, sizeof p->label, "%s", label ? label : "");
	return 0;
}

size_t vw_phase_marks_outer(vw_mark *marks, size_t nmarks)
{
	size_t nb = 0, ne = 0, deep = 0;
	int depth = 0;
	for (size_t i = 0; i < nmarks; i++) {
		int k = marks[i].kind;
		if (k == MCZ_MARK_BEGIN)
			nb++, deep += depth++ > 0;
		else if (k == MCZ_MARK_END)
			ne++, depth -= depth > 0;
	}
	if (!deep || ne + 1 < nb)
		return nmarks;
	size_t n = 0;
	depth = 0;
	for (size_t i = 0; i < nmarks; i++) {
		const vw_mark k = marks[i];
		if (k.kind == MCZ_MARK_BEGIN && depth++ > 0)
			continue;
		if (k.kind == MCZ_MARK_END && depth > 0 && --depth > 0)
			continue;
		marks[n++] = k;
	}
	return n;
}

/* At the default level, the outermost regions of one file's marks (a
 * copy in *out, its count; 0: take the marks as they are). */
static size_t phase_marks_outer(const vw_model *m, vw_mark **out)
{
	if (m->nfiles != 1 || !m->nmarks || !(*out = malloc(m->nmarks * sizeof **out)))
		return 0;
	memcpy(*out, m->marks, m->nmarks * sizeof **out);
	return vw_phase_marks_outer(*out, m->nmarks);
}

/* Begin/end regions become phases — a region ends at the next END or BEGIN
 * mark, so begin-only marks cut the run and nested regions come out flat;
 * what lies between regions is a phase too, unlabelled, when longer than
 * one interval: a region that took in the 0.2 s its program spent
 * before its first mark (the phased sample starting up on a loaded
 * machine) had its GFLOP/s 6 % low, against the program's own.  Without regions, point marks cut the run, each phase
 * named by the mark that opens it.  Same text, same class. */
int vw_phase_model_marks(vw_model *m, struct vw_phases *ph)
{
	vw_mark *outer = NULL;
	size_t n = ph->params.level == 0 ? phase_marks_outer(m, &outer) : 0;
	int rc = vw_phase_marks_cut(n ? outer : m->marks, n ? n : m->nmarks, m->t_min, m->t_max,
				    vw_phase_model_interval(m), ph);
	free(outer);
	return rc;
}

int vw_phase_marks_cut(const vw_mark *marks, size_t nmarks, int64_t t_min, int64_t t_max,
		       int64_t dt, struct vw_phases *ph)
{
	size_t cap = 0, nreg = 0;
	int64_t at = t_min;
	const char *label = "";
	for (size_t i = 0; i < nmarks; i++)
		nreg += marks[i].kind == MCZ_MARK_BEGIN;
	for (size_t i = 0; i < nmarks; i++) {
		const vw_mark *k = &marks[i];
		if (nreg && k->kind == MCZ_MARK_BEGIN) {
			size_t e = i + 1;
			while (e < nmarks && marks[e].kind != MCZ_MARK_END &&
			       marks[e].kind != MCZ_MARK_BEGIN)
				e++;
			int64_t end = e < nmarks ? marks[e].t : t_max + 1;
			if (end <= at)
				continue; /* before the first sample, or overlapped */
			int gap = k->t - at > dt; /* else the region absorbs it */
			if (gap && phase_add(ph, &cap, at, k->t, ""))
				return -1;
			if (phase_add(ph, &cap, gap ? k->t : at, end, k->text))
				return -1;
			at = end;
		} else if (!nreg && k->kind == MCZ_MARK_POINT && k->t >= at) {
			if (phase_add(ph, &cap, at, k->t, label))
				return -1;
			label = k->text;
			at = k->t;
		}
	}
	if (nreg && ph->n && t_max + 1 - at <= 2 * dt)
		ph->v[ph->n - 1].t1 = t_max + 1; /* absorb the tail */
	else if (phase_add(ph, &cap, at, t_max + 1, nreg ? "" : label))
		return -1;
	size_t k = 0; /* within the samples: [t_min, t_max + 1) */
	for (size_t i = 0; i < ph->n; i++) {
		vw_phase *p = &ph->v[i];
		p->t1 = p->t1 > t_max + 1 ? t_max + 1 : p->t1;
		if (p->t1 > p->t0)
			ph->v[k++] = *p;
	}
	ph->n = k;
	ph->nclasses = 0;
	for (size_t i = 0; i < ph->n; i++) {
		ph->v[i].cls = -1;
		for (size_t j = 0; j < i && ph->v[i].cls < 0; j++)
			if (!strcmp(ph->v[j].label, ph->v[i].label))
				ph->v[i].cls = ph->v[j].cls;
		if (ph->v[i].cls < 0)
			ph->v[i].cls = ph->nclasses++;
	}
	return 0;
}
