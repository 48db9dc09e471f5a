/* ranks-rows.c: the rows of the Ranks view — which ranks each row holds
 * (one rank, or a host's), in which order (rank, time in the cursor's
 * phase, the colouring stream's mean over it), and what a row's ranks did
 * per column: a stream's values, the hot function, or work and waiting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ranks-rows.h"

const char rk_code[] = "hot function";
const char rk_doing[] = "work/MPI/sync/off CPU";

/* What a row's ranks did per column: st[k] the class that held most of
 * their time, work, MPI or sync by the samples (VW_CC_*) or RK_OFF, off
 * the CPU (the column's time the samples do not cover: asleep, or the CPU
 * taken by another process), share[k] the MPI and sync share of the
 * samples.  0, or -1 without a profile. */
int rk_row_doing(vw_an *an, rk_state *s, const rk_row *row, size_t n, int *st,
			double *share)
{
	vw_model *m = an->m;
	const vw_job *jb = rk_job(an, row->job);
	uint32_t *one = malloc(n * VW_CC_N * sizeof *one);
	double *sum = calloc(n * VW_CC_N, sizeof *sum), expect = 0;
	int rc = -1;
	if (!one || !sum)
		goto out;
	double colw = (double)(m->t1 - m->t0) / (double)n / 1e9;
	for (size_t q = 0; q < row->n; q++) {
		size_t f = jb->ranks[s->order[row->first + q]].file;
		double per = vw_hotcode_file_period(m, f);
		if (per <= 0 || vw_hotcode_file_class_columns(an, f, m->t0, m->t1, n, one))
			continue;
		for (size_t k = 0; k < n * VW_CC_N; k++)
			sum[k] += one[k] * per; /* CPU seconds */
		expect += colw;
		rc = 0;
	}
	/* columns narrower than the profile's intervals hold an interval or
	 * none: compare with the interval's worth of time */
	double iv = (double)vw_hotcode_interval(an) / 1e9;
	if (iv > colw)
		expect *= iv / colw;
	for (size_t k = 0; k < n; k++) {
		double *c = sum + k * VW_CC_N, all = c[0] + c[1] + c[2];
		int best = c[1] > c[0] ? (c[2] > c[1] ? 2 : 1) : (c[2] > c[0] ? 2 : 0);
		st[k] = rc ? -1 : expect - all > c[best] ? RK_OFF : best;
		share[k] = all > 0 ? (c[1] + c[2]) / all : NAN;
	}
out:
	free(one);
	free(sum);
	return rc;
}

/* The share of the top function of a rank file over [t0, t1); NaN none. */
static double rk_code_share(vw_an *an, size_t file, int64_t t0, int64_t t1)
{
	vw_hot h;
	return t1 > t0 && vw_hotcode_file_top(an, file, t0, t1, &h, 1, NULL) ? h.share : NAN;
}

static int rk_cmp_time(const void *a, const void *b)
{
	const rk_row *x = a, *y = b;
	double p = isnan(x->phase_s) ? -1 : x->phase_s, q = isnan(y->phase_s) ? -1 : y->phase_s;
	return p < q ? 1 : p > q ? -1 : 0;
}

static int rk_cmp_value(const void *a, const void *b)
{
	const rk_row *x = a, *y = b;
	double p = isnan(x->value) ? -INFINITY : x->value, q = isnan(y->value) ? -INFINITY : y->value;
	return p < q ? 1 : p > q ? -1 : 0;
}

static const vw_job *rk_sort_job; /* qsort has no context argument in C11 */

static int rk_cmp_host(const void *a, const void *b)
{
	const vw_job_rank *x = &rk_sort_job->ranks[*(const size_t *)a];
	const vw_job_rank *y = &rk_sort_job->ranks[*(const size_t *)b];
	int c = strcmp(x->host, y->host);
	if (c)
		return c;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* Mean of stream `name` of a rank file over [t0, t1) (its instances
 * summed), NaN when it has none there. */
static double rk_mean(vw_model *m, size_t file, const char *name, int64_t t0, int64_t t1)
{
	double v = NAN;
	size_t first, end;
	vw_model_file_streams(m, file, &first, &end);
	for (size_t i = first; t1 > t0 && i < end; i++) {
		const vw_stream *st = &m->streams[i];
		vw_bucket b;
		if (strcmp(st->desc->name, name) ||
		    vw_model_stream_buckets(m, i, t0, t1, 1, &b) != 0 || !b.count)
			continue;
		v = isnan(v) ? b.mean : v + b.mean;
	}
	return v;
}

/* Rows for the current mode and order; the cursor's phase gives the times. */
int rk_rows(vw_an *an, rk_state *s)
{
	vw_model *m = an->m;
	size_t total = 0;
	for (size_t j = 0; j < an->jobs->n; j++)
		total += an->jobs->v[j].nranks;
	free(s->rows);
	free(s->order);
	s->rows = calloc(total ? total : 1, sizeof *s->rows);
	s->order = calloc(total ? total : 1, sizeof *s->order);
	if (!s->rows || !s->order)
		return -1;
	s->nrows = 0;
	size_t base = 0;
	for (size_t j = 0; j < an->jobs->n; j++) {
		const vw_job *jb = &an->jobs->v[j];
		size_t *ord = s->order + base;
		for (size_t r = 0; r < jb->nranks; r++)
			ord[r] = r;
		if (s->by_host) { /* ranks stay in order within a host */
			rk_sort_job = jb;
			qsort(ord, jb->nranks, sizeof *ord, rk_cmp_host);
		}
		int ph = vw_job_phase_at(jb, m->cursor);
		for (size_t r = 0; r < jb->nranks;) {
			size_t e = r + 1;
			while (s->by_host && e < jb->nranks &&
			       !strcmp(jb->ranks[ord[e]].host, jb->ranks[ord[r]].host))
				e++;
			rk_row *row = &s->rows[s->nrows++];
			row->job = j;
			row->first = base + r;
			row->n = e - r;
			double sum = 0, vsum = 0;
			size_t n = 0, nv = 0;
			for (size_t q = r; ph >= 0 && q < e; q++) {
				const vw_job_cell *c = &jb->cell[(size_t)ph * jb->nranks + ord[q]];
				if (!isnan(c->time_s))
					sum += c->time_s, n++;
				double v = s->sort != RK_SORT_VALUE ? NAN
					   : s->names[s->metric] == rk_code
						   ? rk_code_share(an, jb->ranks[ord[q]].file, c->t0, c->t1)
						   : rk_mean(m, jb->ranks[ord[q]].file, s->names[s->metric],
							     c->t0, c->t1);
				if (!isnan(v))
					vsum += v, nv++;
			}
			row->phase_s = n ? sum / (double)n : NAN;
			row->value = nv ? vsum / (double)nv : NAN;
			r = e;
		}
		base += jb->nranks;
	}
	if (s->sort == RK_SORT_TIME)
		qsort(s->rows, s->nrows, sizeof *s->rows, rk_cmp_time);
	else if (s->sort == RK_SORT_VALUE)
		qsort(s->rows, s->nrows, sizeof *s->rows, rk_cmp_value);
	return 0;
}

/* The value of stream `name` of rank file `file` per column (Σ over its
 * instances, e.g. task clock per CPU), NaN where it has no sample. */
static void rk_values(vw_model *m, size_t file, const char *name, size_t n, double *out,
		      vw_bucket *tmp)
{
	for (size_t k = 0; k < n; k++)
		out[k] = NAN;
	size_t first, end;
	vw_model_file_streams(m, file, &first, &end);
	for (size_t i = first; i < end; i++) {
		const vw_stream *st = &m->streams[i];
		if (strcmp(st->desc->name, name))
			continue;
		if (vw_model_stream_buckets(m, i, m->t0, m->t1, n, tmp) != 0)
			continue;
		vw_model_fill_gaps(m, i, tmp, n);
		/* columns a little narrower than the sampling: a lone empty
		 * column between two samples takes the next one (a counter's
		 * sample stands for the interval before it) */
		for (size_t k = 1; k + 1 < n; k++)
			if (!tmp[k].count && tmp[k - 1].count && tmp[k + 1].count)
				tmp[k] = tmp[k + 1];
		for (size_t k = 0; k < n; k++)
			if (tmp[k].count)
				out[k] = isnan(out[k]) ? tmp[k].mean : out[k] + tmp[k].mean;
	}
}

/* A row's values: its rank's, or its host's ranks' mean. */
void rk_row_values(vw_an *an, rk_state *s, const rk_row *row, size_t n, double *out,
			  double *one, vw_bucket *tmp)
{
	vw_model *m = an->m;
	const vw_job *jb = rk_job(an, row->job);
	for (size_t k = 0; k < n; k++)
		out[k] = NAN;
	size_t *cnt = calloc(n ? n : 1, sizeof *cnt);
	if (!cnt)
		return;
	for (size_t q = 0; q < row->n; q++) {
		const vw_job_rank *rk = &jb->ranks[s->order[row->first + q]];
		rk_values(m, rk->file, s->names[s->metric], n, one, tmp);
		for (size_t k = 0; k < n; k++)
			if (!isnan(one[k])) {
				out[k] = isnan(out[k]) ? one[k] : out[k] + one[k];
				cnt[k]++;
			}
	}
	for (size_t k = 0; k < n; k++)
		if (cnt[k] > 1)
			out[k] /= (double)cnt[k];
	free(cnt);
}

/* A row's hot function per column (-1 none) and its share: its rank's,
 * or the one most of its host's ranks ran (ties: the hotter over the run). */
void rk_row_code(vw_an *an, rk_state *s, const rk_row *row, size_t n, int *fn,
			double *sh)
{
	vw_model *m = an->m;
	const vw_job *jb = rk_job(an, row->job);
	if (row->n == 1) {
		vw_hotcode_file_columns(an, jb->ranks[s->order[row->first]].file, m->t0, m->t1, n, fn,
					sh);
		/* columns narrower than the profile's intervals: the empty ones
		 * between two that hold an interval, fewer than an interval
		 * spans, take the next one (an interval counts at its middle) */
		double colw = (double)(m->t1 - m->t0) / (double)n;
		size_t maxrun = (size_t)((double)vw_hotcode_interval(an) / colw);
		for (size_t k = 1; k < n;) {
			size_t e = k;
			while (e < n && fn[e] < 0)
				e++;
			if (e > k && e < n && fn[k - 1] >= 0 && e - k <= maxrun)
				for (size_t q = k; q < e; q++)
					fn[q] = fn[e], sh[q] = sh[e];
			k = e + 1;
		}
		return;
	}
	size_t nf = vw_hotcode_nfunctions(an);
	int *one = malloc(n * sizeof *one);
	size_t *votes = calloc(n * (nf + 1), sizeof *votes);
	for (size_t k = 0; k < n; k++)
		fn[k] = -1, sh[k] = NAN;
	if (!one || !votes) {
		free(one), free(votes);
		return;
	}
	for (size_t q = 0; q < row->n; q++) {
		const vw_job_rank *rk = &jb->ranks[s->order[row->first + q]];
		vw_hotcode_file_columns(an, rk->file, m->t0, m->t1, n, one, NULL);
		for (size_t k = 0; k < n; k++)
			if (one[k] >= 0 && (size_t)one[k] < nf)
				votes[k * (nf + 1) + (size_t)one[k]]++;
	}
	for (size_t k = 0; k < n; k++) {
		size_t best = 0, all = 0;
		for (size_t f = 0; f < nf; f++) {
			all += votes[k * (nf + 1) + f];
			if (votes[k * (nf + 1) + f] > best)
				best = votes[k * (nf + 1) + f], fn[k] = (int)f;
		}
		if (all)
			sh[k] = (double)best / (double)all;
	}
	free(one), free(votes);
}

