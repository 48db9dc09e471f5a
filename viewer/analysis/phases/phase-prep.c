/* phase-prep.c: the detector's coarse level — d streams reduced to at most
 * 8192 buckets of outlier-clipped means, gaps filled, a running median of 3
 * against isolated spikes, each stream centred and scaled to unit noise,
 * then prefix sums (phase.c detects on them).
 *
 * Noise is estimated from first differences, where level shifts weigh
 * nothing: the larger of the MAD estimate (Gaussian noise) and the RMS of
 * the differences without their largest 2 % (bursty or quantised streams),
 * floored at 1/25 of the stream's range so that a nearly constant stream
 * cannot dominate.  Clip bounds and quantiles come from a subsample of at
 * most 16384 values, so preparation is one pass over the data.
 */
#include "phase-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small statistics ------------------------------------------------------ */

static void swapd(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* k-th smallest of a[0..n) (a is reordered); Hoare's selection. */
static double phase_select(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double piv = a[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < piv)
				i++;
			while (a[j] > piv)
				j--;
			if (i <= j) {
				swapd(&a[i], &a[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

static double phase_quantile(double *a, size_t n, double q)
{
	if (n == 0)
		return NAN;
	return phase_select(a, n, (size_t)(q * (double)(n - 1) + 0.5));
}

static double med3(double a, double b, double c)
{
	if (a > b)
		swapd(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/* Mean of the (up to) PHASE_FILL_SIDE values of y[a, b) nearest to the
 * gap: from the end when back, from the start otherwise. */
#define PHASE_FILL_SIDE 4
static double fill_side(const double *y, size_t a, size_t b, int back)
{
	size_t k = b - a < PHASE_FILL_SIDE ? b - a : PHASE_FILL_SIDE;
	double s = 0;
	for (size_t i = 0; i < k; i++)
		s += y[back ? b - 1 - i : a + i];
	return s / (double)k;
}

int vw_phase_prep_fill(double *y, size_t n)
{
	/* A gap (missed ticks, NaN values) carries no level: its first half
	 * takes the mean of the few values before it, its second half the mean
	 * of those after it (a change under the gap: one step, in its middle).
	 * Holding the last value instead held its noise over the whole gap,
	 * which read as a level of its own once segments were searched again
	 * between the boundaries taken. */
	size_t i = 0;
	while (i < n && isnan(y[i]))
		i++;
	if (i == n)
		return 0;
	size_t lead = i;
	while (i < n) {
		size_t a = i; /* [a, i): values */
		while (i < n && !isnan(y[i]))
			i++;
		size_t g = i;
		while (i < n && isnan(y[i]))
			i++;
		if (g == i)
			break;
		if (i == n) { /* trailing gap */
			double v = fill_side(y, a, g, 1);
			for (size_t k = g; k < n; k++)
				y[k] = v;
			break;
		}
		size_t c = i; /* next values [c, ...) */
		while (c < n && c - i < PHASE_FILL_SIDE && !isnan(y[c]))
			c++;
		double l = fill_side(y, a, g, 1), r = fill_side(y, i, c, 0);
		for (size_t k = g; k < i; k++)
			y[k] = k < g + (i - g) / 2 ? l : r;
	}
	if (lead) {
		size_t c = lead;
		while (c < n && c - lead < PHASE_FILL_SIDE && !isnan(y[c]))
			c++;
		double v = fill_side(y, lead, c, 0);
		for (size_t k = 0; k < lead; k++)
			y[k] = v;
	}
	return 1;
}

/* Running median of 3; each end takes the median of the first (last)
 * three values; tmp has n slots. */
static void phase_median3(double *y, size_t n, double *tmp)
{
	if (n < 3)
		return;
	memcpy(tmp, y, n * sizeof *y);
	for (size_t i = 1; i + 1 < n; i++)
		y[i] = med3(tmp[i - 1], tmp[i], tmp[i + 1]);
	y[0] = med3(tmp[0], tmp[1], tmp[2]);
	y[n - 1] = med3(tmp[n - 3], tmp[n - 2], tmp[n - 1]);
}

/* Noise sigma of a filled series from its first differences (level shifts
 * weigh nothing there): the larger of the MAD estimate (right for Gaussian
 * noise) and the RMS of the differences without their largest 2 % (right
 * for bursty or quantised streams — page faults, context switches, CPU
 * busy at 10 ms — whose MAD is 0 or too small; the outliers left after
 * clipping fall in the 2 % dropped).  tmp has n slots. */
static double phase_noise(const double *y, size_t n, double *tmp)
{
	if (n < 2)
		return 0;
	size_t k = n - 1, keep = k - k / 50;
	for (size_t i = 0; i < k; i++)
		tmp[i] = fabs(y[i + 1] - y[i]);
	double mad = 1.4826 * phase_quantile(tmp, k, 0.5) / sqrt(2.0);
	double cut = phase_quantile(tmp, k, (double)(keep - 1) / (double)(k > 1 ? k - 1 : 1)), ss = 0;
	size_t c = 0;
	for (size_t i = 0; i < k; i++)
		if (tmp[i] <= cut && c < keep) {
			ss += tmp[i] * tmp[i];
			c++;
		}
	double rms = c ? sqrt(ss / (double)c / 2.0) : 0;
	return fmax(mad, rms);
}

/* ---- preparation ------------------------------------------------------------- */

static vw_phase_prep *phase_alloc(size_t d, size_t m)
{
	vw_phase_prep *pp = calloc(1, sizeof *pp);
	if (!pp)
		return NULL;
	pp->d = d;
	pp->m = m;
	pp->v = malloc((d * m + 1) * sizeof *pp->v);
	pp->pre = malloc((d * (m + 1) + 1) * sizeof *pp->pre);
	pp->edge = malloc((m + 1) * sizeof *pp->edge);
	pp->scale = calloc(d + 1, sizeof *pp->scale);
	pp->center = calloc(d + 1, sizeof *pp->center);
	pp->range = calloc(d + 1, sizeof *pp->range);
	if (!pp->v || !pp->pre || !pp->edge || !pp->scale || !pp->center || !pp->range) {
		vw_phase_prep_free(pp);
		return NULL;
	}
	return pp;
}

/* Clean, scale and sum the coarse matrix pp->v (raw bucket means). */
static int phase_finish(vw_phase_prep *pp)
{
	size_t m = pp->m;
	double *tmp = malloc((m + 1) * sizeof *tmp);
	if (!tmp)
		return -1;
	pp->used = 0;
	for (size_t j = 0; j < pp->d; j++) {
		double *y = pp->v + j * m;
		pp->scale[j] = 0;
		/* A sparse stream's noise is that of the values it has, not of
		 * the gaps filled between them: a stream read less often than the buckets
		 * (mcrec's slow sources: the host's /proc files and the network
		 * every 500 ms, against 10 ms rows) holds each value over g
		 * buckets, so its noise persists as a level for g buckets; its
		 * scale is the noise times sqrt(g), as g buckets carry one
		 * value's worth of evidence (without it, each of its readings
		 * was a phase of its own). */
		size_t have = 0;
		for (size_t i = 0; i < m; i++)
			if (!isnan(y[i]))
				tmp[have++] = y[i];
		if (m == 0 || have == 0)
			continue;
		double noise = -1;
		if (have >= 2 && 2 * have <= m) { /* sparse: a value every 2 buckets or more */
			double *vals = malloc(have * sizeof *vals);
			if (vals) {
				memcpy(vals, tmp, have * sizeof *vals);
				noise = phase_noise(vals, have, tmp) * sqrt((double)m / (double)have);
				free(vals);
			}
		}
		if (!vw_phase_prep_fill(y, m))
			continue;
		if (noise < 0) /* dense: the few gaps filled count too */
			noise = phase_noise(y, m, tmp);
		phase_median3(y, m, tmp);
		double lo = y[0], hi = y[0];
		for (size_t i = 0; i < m; i++) {
			lo = y[i] < lo ? y[i] : lo;
			hi = y[i] > hi ? y[i] : hi;
		}
		double spread = hi - lo;
		if (!isfinite(spread) || spread <= 1e-12 * fmax(fabs(hi), fabs(lo)) || spread == 0)
			continue; /* constant: carries no boundary */
		double scale = fmax(noise, spread * PHASE_FLOOR_REL);
		memcpy(tmp, y, m * sizeof *y);
		pp->center[j] = phase_quantile(tmp, m, 0.5);
		pp->scale[j] = scale;
		pp->range[j] = (phase_quantile(tmp, m, 0.995) - phase_quantile(tmp, m, 0.005)) / scale;
		pp->used++;
	}
	free(tmp);
	for (size_t j = 0; j < pp->d; j++) {
		double *y = pp->v + j * m, *p = pp->pre + j * (m + 1);
		double c = pp->center[j], s = pp->scale[j];
		p[0] = 0;
		for (size_t i = 0; i < m; i++) {
			y[i] = s > 0 ? (y[i] - c) / s : 0;
			p[i + 1] = p[i] + y[i];
		}
	}
	return 0;
}

static long phase_fetch_arrays(void *ctx, int64_t lo, int64_t hi, int64_t **pos, double **val)
{
	vw_phase_prep *pp = ctx;
	if (lo < 0)
		lo = 0;
	if (hi > (int64_t)pp->n)
		hi = (int64_t)pp->n;
	size_t k = hi > lo ? (size_t)(hi - lo) : 0;
	*pos = malloc((k + 1) * sizeof **pos);
	*val = malloc((pp->d * k + 1) * sizeof **val);
	if (!*pos || !*val) {
		free(*pos);
		free(*val);
		return -1;
	}
	for (size_t i = 0; i < k; i++)
		(*pos)[i] = lo + (int64_t)i;
	for (size_t j = 0; j < pp->d; j++)
		for (size_t i = 0; i < k; i++) {
			double x = pp->x[j][lo + (int64_t)i];
			if (x < pp->clip_lo[j])
				x = pp->clip_lo[j];
			else if (x > pp->clip_hi[j])
				x = pp->clip_hi[j];
			(*val)[j * k + i] = x;
		}
	return (long)k;
}

/* Clip bounds of one stream: outside [q.005 - R, q.995 + R], R = the
 * spread between those quantiles, a value is an outlier. */
static void phase_clip_bounds(const double *x, size_t n, double *tmp, double *lo, double *hi)
{
	size_t step = (n + PHASE_SUBSAMPLE - 1) / PHASE_SUBSAMPLE, k = 0;
	for (size_t i = 0; i < n; i += step)
		if (!isnan(x[i]))
			tmp[k++] = x[i];
	*lo = -INFINITY;
	*hi = INFINITY;
	if (k < 16)
		return;
	double a = phase_quantile(tmp, k, 0.005), b = phase_quantile(tmp, k, 0.995);
	if (b > a) {
		*lo = a - (b - a);
		*hi = b + (b - a);
	}
}

int vw_phase_prep_arrays(vw_phase_prep **out, size_t d, size_t n, const double *const *x,
			 size_t coarse)
{
	if (!coarse)
		coarse = PHASE_COARSE_DEFAULT;
	/* buckets of b samples, the last one taking the remainder (< 2b) */
	size_t b = n > coarse ? (n + coarse - 1) / coarse : 1;
	size_t m = n >= b ? n / b : n;
	vw_phase_prep *pp = phase_alloc(d, m);
	double *tmp = malloc((PHASE_SUBSAMPLE + 32) * sizeof *tmp);
	if (pp) {
		pp->clip_lo = malloc((d + 1) * sizeof *pp->clip_lo);
		pp->clip_hi = malloc((d + 1) * sizeof *pp->clip_hi);
	}
	if (!pp || !tmp || !pp->clip_lo || !pp->clip_hi) {
		free(tmp);
		vw_phase_prep_free(pp);
		return -1;
	}
	pp->x = x;
	pp->n = n;
	pp->sample = 1;
	for (size_t i = 0; i <= m; i++)
		pp->edge[i] = (int64_t)(i < m ? i * b : n);
	for (size_t j = 0; j < d; j++) {
		double lo, hi;
		phase_clip_bounds(x[j], n, tmp, &lo, &hi);
		pp->clip_lo[j] = lo;
		pp->clip_hi[j] = hi;
		for (size_t i = 0; i < m; i++) {
			double s = 0;
			size_t c = 0, e = (size_t)pp->edge[i + 1];
			for (size_t k = (size_t)pp->edge[i]; k < e; k++) {
				double v = x[j][k];
				if (isnan(v))
					continue;
				s += v < lo ? lo : v > hi ? hi : v;
				c++;
			}
			pp->v[j * m + i] = c ? s / (double)c : NAN;
		}
	}
	free(tmp);
	pp->fine.fetch = phase_fetch_arrays;
	pp->fine.ctx = pp;
	pp->has_fine = 1;
	if (phase_finish(pp)) {
		vw_phase_prep_free(pp);
		return -1;
	}
	*out = pp;
	return 0;
}

int vw_phase_prep_coarse(vw_phase_prep **out, size_t d, size_t m, const double *v,
			 const int64_t *edge, int64_t sample, const vw_phase_fine *fine)
{
	vw_phase_prep *pp = phase_alloc(d, m);
	if (!pp)
		return -1;
	pp->sample = sample > 0 ? sample : 1;
	memcpy(pp->v, v, d * m * sizeof *v);
	memcpy(pp->edge, edge, (m + 1) * sizeof *edge);
	if (fine && fine->fetch) {
		pp->fine = *fine;
		pp->has_fine = 1;
	}
	if (phase_finish(pp)) {
		vw_phase_prep_free(pp);
		return -1;
	}
	*out = pp;
	return 0;
}

void vw_phase_prep_free(vw_phase_prep *pp)
{
	if (!pp)
		return;
	free(pp->v);
	free(pp->pre);
	free(pp->edge);
	free(pp->scale);
	free(pp->center);
	free(pp->range);
	free(pp->clip_lo);
	free(pp->clip_hi);
	free(pp->cand);
	free(pp->placed);
	free(pp->code);
	free(pp);
}

int vw_phase_prep_code(vw_phase_prep *pp, size_t j)
{
	if (!pp || j >= pp->d)
		return -1;
	if (!pp->code && !(pp->code = calloc(pp->d, 1)))
		return -1;
	pp->code[j] = 1;
	return 0;
}

size_t vw_phase_prep_used(const vw_phase_prep *pp)
{
	return pp ? pp->used : 0;
}
