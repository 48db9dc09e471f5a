/* ranks-rows.c: the rows of the Ranks view — which ranks each row holds
 * (one rank, a host's ranks, or a group of ranks of similar useful time),
 * in which order (rank, time in the cursor's phase, the colouring
 * stream's mean over it), and what a row's ranks did per column: a
 * stream's values, the hot function, or work and waiting.
 *
 * Groups: with more ranks than the screen has rows, the ranks are ordered
 * by their useful time in the cursor's phase (over the whole run outside
 * phases), the slowest and the fastest each on a row of their own, the
 * others cut into groups of consecutive ranks in that order (quantiles);
 * a group opened shows its ranks under it.  A row of many ranks adds them
 * up rank by rank across frames within the frame's budget (a group of a
 * 16,384-rank job reads thousands of files' columns), as the timeline's
 * bands do: until its last rank, the row shows what its ranks so far did
 * and m->refining asks for another frame.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ranks-rows.h"

const char rk_code[] = "hot function";
const char rk_doing[] = "work/MPI/sync/off CPU";

/* A row's sums so far: the key they are of, the ranks added, and per
 * column what the colouring adds up (values: sum and count; hot function:
 * votes per function; work and waiting: CPU seconds per class). */
struct rk_acc {
	int64_t t0, t1;
	size_t n;
	int metric;
	unsigned version; /* s->rows_version */
	size_t next;      /* ranks added */
	size_t nf;        /* functions voted for */
	int have;         /* work and waiting: a rank had a profile */
	double expect;    /* work and waiting: the columns' time, summed */
	double *sum;      /* n (values) or n x VW_CC_N (work and waiting) */
	uint32_t *cnt;    /* n (values) or n x (nf + 1) (votes) */
};

void rk_accs_free(rk_state *s)
{
	for (size_t i = 0; s->acc && i < s->nacc; i++) {
		free(s->acc[i].sum);
		free(s->acc[i].cnt);
	}
	free(s->acc);
	s->acc = NULL;
	s->nacc = 0;
}

void rk_accs_trim(rk_state *s, size_t top, size_t nshow)
{
	/* scrolling through 16,384 ranks would keep every row's sums: past
	 * a few screens' worth, those of the rows not shown go */
	size_t held = 0;
	for (size_t i = 0; s->acc && i < s->nacc; i++)
		held += s->acc[i].sum != NULL;
	if (held <= 4 * nshow + 64)
		return;
	for (size_t i = 0; i < s->nacc; i++)
		if (i < top || i >= top + nshow) {
			free(s->acc[i].sum);
			free(s->acc[i].cnt);
			s->acc[i] = (rk_acc){0};
		}
}

/* Row ri's sums, started over when the window, the columns, the colouring
 * or the rows changed; NULL out of memory. */
static rk_acc *acc_of(vw_an *an, rk_state *s, size_t ri, size_t n)
{
	vw_model *m = an->m;
	if (s->nacc != s->nrows) {
		rk_accs_free(s);
		if (!(s->acc = calloc(s->nrows ? s->nrows : 1, sizeof *s->acc)))
			return NULL;
		s->nacc = s->nrows;
	}
	rk_acc *a = &s->acc[ri];
	if (a->sum && a->t0 == m->t0 && a->t1 == m->t1 && a->n == n && a->metric == s->metric &&
	    a->version == s->rows_version)
		return a;
	size_t nf = vw_hotcode_nfunctions(an), ns = n * VW_CC_N, nc = n * (nf + 1);
	free(a->sum);
	free(a->cnt);
	*a = (rk_acc){.t0 = m->t0, .t1 = m->t1, .n = n, .metric = s->metric,
		      .version = s->rows_version, .nf = nf};
	a->sum = calloc(ns, sizeof *a->sum);
	a->cnt = calloc(nc > n ? nc : n, sizeof *a->cnt);
	if (!a->sum || !a->cnt) {
		free(a->sum), free(a->cnt);
		a->sum = NULL, a->cnt = NULL;
		return NULL;
	}
	return a;
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

/* The time a rank is ordered by in phase ph (-1: over the run): its
 * useful time, or its time in the phase where the useful time is unknown;
 * NaN when it lacks the phase. */
static double rank_time(const vw_job *jb, int ph, size_t r)
{
	double t = 0;
	int any = 0;
	for (size_t p = ph >= 0 ? (size_t)ph : 0; p < (ph >= 0 ? (size_t)ph + 1 : jb->nph); p++) {
		const vw_job_cell *c = &jb->cell[p * jb->nranks + r];
		double v = !isnan(c->useful_s) ? c->useful_s : c->time_s;
		if (!isnan(v))
			t += v, any = 1;
	}
	return any ? t : NAN;
}

static const double *rk_sort_times; /* qsort has no context argument in C11 */

/* Slowest first, ranks without a time last, then by rank. */
static int rk_cmp_slow(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double p = rk_sort_times[x], q = rk_sort_times[y];
	if (isnan(p) != isnan(q))
		return isnan(p) ? 1 : -1;
	if (!isnan(p) && p != q)
		return p < q ? 1 : -1;
	return (x > y) - (x < y);
}

/* What a row built here needs of its ranks: the mean time in the phase,
 * the colouring stream's mean over it (only to sort by it), the range of
 * the ordering times. */
static void row_figures(vw_an *an, rk_state *s, const vw_job *jb, int ph, rk_row *row,
			const double *times)
{
	vw_model *m = an->m;
	double sum = 0, vsum = 0;
	size_t n = 0, nv = 0;
	row->lo_s = row->hi_s = NAN;
	for (size_t q = 0; q < row->n; q++) {
		size_t r = s->order[row->first + q];
		if (times && !isnan(times[r])) {
			row->lo_s = isnan(row->lo_s) || times[r] < row->lo_s ? times[r] : row->lo_s;
			row->hi_s = isnan(row->hi_s) || times[r] > row->hi_s ? times[r] : row->hi_s;
		}
		if (ph < 0)
			continue;
		const vw_job_cell *c = &jb->cell[(size_t)ph * jb->nranks + r];
		if (!isnan(c->time_s))
			sum += c->time_s, n++;
		double v = s->sort != RK_SORT_VALUE || s->layout == RK_BY_GROUP ? NAN
			   : s->names[s->metric] == rk_code
				   ? rk_code_share(an, jb->ranks[r].file, c->t0, c->t1)
				   : rk_mean(m, jb->ranks[r].file, s->names[s->metric], c->t0, c->t1);
		if (!isnan(v))
			vsum += v, nv++;
	}
	row->phase_s = n ? sum / (double)n : NAN;
	row->value = nv ? vsum / (double)nv : NAN;
}

/* A row of ranks [first, first + n) of s->order. */
static rk_row *add_row(rk_state *s, size_t job, size_t first, size_t n, int kind)
{
	rk_row *row = &s->rows[s->nrows++];
	*row = (rk_row){.job = job, .first = first, .n = n, .kind = kind, .group = SIZE_MAX};
	return row;
}

/* Job j's rows as groups: its ranks ordered slowest first into ord, the
 * slowest and the fastest alone, the others in s->gwant groups, the ranks
 * of an opened group under it. */
static int group_rows(vw_an *an, rk_state *s, size_t j, size_t base, int ph)
{
	const vw_job *jb = &an->jobs->v[j];
	size_t nr = jb->nranks, *ord = s->order + base;
	double *times = malloc((nr ? nr : 1) * sizeof *times);
	if (!times)
		return -1;
	size_t timed = 0;
	for (size_t r = 0; r < nr; r++)
		timed += !isnan(times[r] = rank_time(jb, ph, r));
	rk_sort_times = times;
	qsort(ord, nr, sizeof *ord, rk_cmp_slow);
	/* the fastest is the last rank with a time; those without come after */
	size_t g = s->gwant > 0 ? (size_t)s->gwant : 1, mid0 = 1, mid1 = timed ? timed - 1 : nr;
	if (nr <= g + 2 || timed < 3)
		mid0 = 0, mid1 = nr, g = nr; /* few: a row each */
	if (mid0) {
		rk_row *row = add_row(s, j, base, 1, RK_ROW_RANK);
		row->tag = RK_TAG_SLOWEST;
		row_figures(an, s, jb, ph, row, times);
	}
	size_t mid = mid1 - mid0, k = 0;
	for (size_t gi = 0; gi < g && k < mid; gi++) {
		size_t len = (mid - k) / (g - gi) + ((mid - k) % (g - gi) != 0);
		rk_row *row = add_row(s, j, base + mid0 + k, len, len > 1 ? RK_ROW_GROUP : RK_ROW_RANK);
		row->group = s->ngroup++;
		row_figures(an, s, jb, ph, row, times);
		if (len > 1 && rk_group_open(s, row->group))
			for (size_t q = 0; q < len; q++)
				row_figures(an, s, jb, ph,
					    add_row(s, j, base + mid0 + k + q, 1, RK_ROW_MEMBER), times);
		k += len;
	}
	for (size_t q = mid1; mid0 && q < nr; q++) { /* the fastest, then those without a time */
		rk_row *row = add_row(s, j, base + q, 1, RK_ROW_RANK);
		row->tag = q == mid1 ? RK_TAG_FASTEST : 0;
		row_figures(an, s, jb, ph, row, times);
	}
	free(times);
	return 0;
}

int rk_group_open(const rk_state *s, size_t g)
{
	return g < s->nopen && s->open[g];
}

/* What the rows depend on: the cursor's phase of each job, the order, the
 * layout, the groups wanted and opened, the colouring (sorting by it). */
static uint64_t rows_key(vw_an *an, const rk_state *s)
{
	uint64_t h = 1469598103934665603ull;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
	MIX((uintptr_t)an->jobs);
	MIX(an->jobs->n);
	for (size_t j = 0; j < an->jobs->n; j++)
		MIX(vw_job_phase_at(&an->jobs->v[j], an->m->cursor) + 1);
	MIX(s->sort);
	MIX(s->layout);
	MIX(s->gwant);
	MIX(s->open_version);
	MIX(s->sort == RK_SORT_VALUE ? s->metric : -1);
#undef MIX
	return h;
}

int rk_rows(vw_an *an, rk_state *s)
{
	uint64_t key = rows_key(an, s);
	if (s->rows && key == s->rows_key)
		return 0;
	vw_model *m = an->m;
	size_t total = 0;
	for (size_t j = 0; j < an->jobs->n; j++)
		total += an->jobs->v[j].nranks;
	free(s->rows);
	free(s->order);
	rk_accs_free(s);
	s->rows_version++;
	s->rows_key = 0; /* until they are made */
	/* groups opened: at most every rank a row, plus the groups */
	s->rows = calloc(2 * total + 2, sizeof *s->rows);
	s->order = calloc(total ? total : 1, sizeof *s->order);
	if (!s->rows || !s->order) {
		free(s->rows), free(s->order);
		s->rows = NULL, s->order = NULL;
		return -1;
	}
	s->nrows = 0;
	s->ngroup = 0;
	size_t base = 0;
	for (size_t j = 0; j < an->jobs->n; j++) {
		const vw_job *jb = &an->jobs->v[j];
		size_t *ord = s->order + base;
		for (size_t r = 0; r < jb->nranks; r++)
			ord[r] = r;
		int ph = vw_job_phase_at(jb, m->cursor);
		if (s->layout == RK_BY_GROUP) {
			if (group_rows(an, s, j, base, ph) != 0)
				return -1;
			base += jb->nranks;
			continue;
		}
		if (s->layout == RK_BY_HOST) { /* ranks stay in order within a host */
			rk_sort_job = jb;
			qsort(ord, jb->nranks, sizeof *ord, rk_cmp_host);
		}
		for (size_t r = 0; r < jb->nranks;) {
			size_t e = r + 1;
			while (s->layout == RK_BY_HOST && e < jb->nranks &&
			       !strcmp(jb->ranks[ord[e]].host, jb->ranks[ord[r]].host))
				e++;
			rk_row *row = add_row(s, j, base + r, e - r,
					      s->layout == RK_BY_HOST ? RK_ROW_HOST : RK_ROW_RANK);
			row_figures(an, s, jb, ph, row, NULL);
			r = e;
		}
		base += jb->nranks;
	}
	if (s->layout != RK_BY_GROUP && s->sort == RK_SORT_TIME)
		qsort(s->rows, s->nrows, sizeof *s->rows, rk_cmp_time);
	else if (s->layout != RK_BY_GROUP && s->sort == RK_SORT_VALUE)
		qsort(s->rows, s->nrows, sizeof *s->rows, rk_cmp_value);
	s->rows_key = key;
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

/* Rank file f's work and waiting per column into a (one: n x VW_CC_N
 * of scratch). */
static void add_doing(vw_an *an, rk_acc *a, size_t f, uint32_t *one)
{
	vw_model *m = an->m;
	size_t n = a->n;
	double per = vw_hotcode_file_period(m, f);
	if (per <= 0 || vw_hotcode_file_class_columns(an, f, m->t0, m->t1, n, one))
		return;
	for (size_t k = 0; k < n * VW_CC_N; k++)
		a->sum[k] += one[k] * per; /* CPU seconds */
	a->expect += (double)(m->t1 - m->t0) / (double)n / 1e9;
	a->have = 1;
}

/* What the ranks added did per column: st[k] the class that held most of
 * their time, work, MPI or sync by the samples (VW_CC_*) or RK_OFF, off
 * the CPU (the column's time the samples do not cover: asleep, or the CPU
 * taken by another process), share[k] the MPI and sync share of the
 * samples. */
static void finish_doing(vw_an *an, const rk_acc *a, int *st, double *share)
{
	vw_model *m = an->m;
	size_t n = a->n;
	double colw = (double)(m->t1 - m->t0) / (double)n / 1e9, expect = a->expect;
	/* columns narrower than the profile's intervals hold an interval or
	 * none: compare with the interval's worth of time */
	double iv = (double)vw_hotcode_interval(an) / 1e9;
	if (iv > colw)
		expect *= iv / colw;
	for (size_t k = 0; k < n; k++) {
		const double *c = a->sum + k * VW_CC_N;
		double all = c[0] + c[1] + c[2];
		int best = c[1] > c[0] ? (c[2] > c[1] ? 2 : 1) : (c[2] > c[0] ? 2 : 0);
		st[k] = !a->have ? -1 : expect - all > c[best] ? RK_OFF : best;
		share[k] = all > 0 ? (c[1] + c[2]) / all : NAN;
	}
}

/* Rank file f's values per column into a (one: n values, tmp: n buckets
 * of scratch): the ranks with a value there, summed. */
static void add_values(vw_an *an, rk_state *s, rk_acc *a, size_t f, double *one, vw_bucket *tmp)
{
	rk_values(an->m, f, s->names[s->metric], a->n, one, tmp);
	for (size_t k = 0; k < a->n; k++)
		if (!isnan(one[k])) {
			a->sum[k] += one[k];
			a->cnt[k]++;
		}
}

/* Rank file f's hot function per column, a vote each (one: n of scratch). */
static void add_votes(vw_an *an, rk_acc *a, size_t f, int *one)
{
	vw_model *m = an->m;
	vw_hotcode_file_columns(an, f, m->t0, m->t1, a->n, one, NULL);
	for (size_t k = 0; k < a->n; k++)
		if (one[k] >= 0 && (size_t)one[k] < a->nf)
			a->cnt[k * (a->nf + 1) + (size_t)one[k]]++;
}

/* The function most of the ranks added ran per column (-1 none), and its
 * share of their votes. */
static void finish_votes(const rk_acc *a, int *fn, double *sh)
{
	for (size_t k = 0; k < a->n; k++) {
		size_t best = 0, all = 0;
		fn[k] = -1, sh[k] = NAN;
		for (size_t f = 0; f < a->nf; f++) {
			uint32_t v = a->cnt[k * (a->nf + 1) + f];
			all += v;
			if (v > best)
				best = v, fn[k] = (int)f;
		}
		if (all)
			sh[k] = (double)best / (double)all;
	}
}

/* One rank's hot function per column (-1 none) and its share, the gaps
 * between its intervals closed. */
static void rank_code(vw_an *an, size_t file, size_t n, int *fn, double *sh)
{
	vw_model *m = an->m;
	vw_hotcode_file_columns(an, file, m->t0, m->t1, n, fn, sh);
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
}

int rk_row_columns(vw_an *an, rk_state *s, size_t ri, size_t n, int mode, double *val, int *fns)
{
	vw_model *m = an->m;
	const rk_row *row = &s->rows[ri];
	const vw_job *jb = rk_job(an, row->job);
	if (mode == RK_MODE_CODE && row->n == 1) { /* one rank: its own, gaps closed */
		rank_code(an, jb->ranks[s->order[row->first]].file, n, fns, val);
		return 0;
	}
	rk_acc *a = acc_of(an, s, ri, n);
	double *one = malloc(n * VW_CC_N * sizeof *one);
	vw_bucket *tmp = malloc(n * sizeof *tmp);
	int rc = a && one && tmp ? 0 : -1;
	/* the first rank always (a frame draws something of every row), the
	 * others while the budget lasts */
	while (!rc && a->next < row->n) {
		if (a->next && row->n > 1 && vw_model_budget_spent(m)) {
			m->refining = 1;
			rc = 1;
			break;
		}
		size_t f = jb->ranks[s->order[row->first + a->next]].file;
		if (mode == RK_MODE_DOING)
			add_doing(an, a, f, (uint32_t *)one);
		else if (mode == RK_MODE_CODE)
			add_votes(an, a, f, (int *)one);
		else
			add_values(an, s, a, f, one, tmp);
		a->next++;
	}
	if (rc >= 0 && mode == RK_MODE_DOING)
		finish_doing(an, a, fns, val);
	else if (rc >= 0 && mode == RK_MODE_CODE)
		finish_votes(a, fns, val);
	else if (rc >= 0)
		for (size_t k = 0; k < n; k++)
			val[k] = a->cnt[k] ? a->sum[k] / (double)a->cnt[k] : NAN;
	free(one);
	free(tmp);
	return rc;
}
