/* phase.c: the change-point detector — d streams cut into segments.
 *
 * Pure computation (no model, no terminal) on the coarse level built by
 * phase-prep.c (bucket means in noise units, prefix sums).
 * Detection is seeded binary segmentation on that level: intervals of
 * lengths m, m/2, m/4, ... each overlapping its neighbour by half; in each,
 * the split maximising the multivariate CUSUM gain
 *
 *     G(s, t, e) = sum_j (t-s)(e-t)/(e-s) * (mean_j[s,t) - mean_j[t,e))^2
 *
 * Candidates are taken greedily by gain while above the penalty, dropping
 * every interval that contains a point already taken; the ends of the
 * segments left are then searched again for a change that a point taken
 * close to it hid (phase_fill).  The penalty is the
 * chi-square tail bound of Laurent and Massart for d_eff streams at level
 * e^-x, x = 2 ln m: d + 2 sqrt(d x) + 2 x.  Each point is then re-placed
 * between its final neighbours (as close as half the minimum length), points whose gain fell below the penalty or
 * that move no stream by 10 % of its range are pruned (weakest first), and
 * each survivor is refined at full resolution within +-2 buckets (the
 * maximum of the likelihood-ratio walk between the two known levels).  Cost: O(d m log m) once, candidates cached per
 * minimum length, so a change of penalty or class tolerance re-runs only the
 * selection.  Classes come from phase-class.c.
 */
#include "phase-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- candidates ---------------------------------------------------------------- */

static double phase_gain(const vw_phase_prep *pp, size_t s, size_t t, size_t e)
{
	double g = 0, nl = (double)(t - s), nr = (double)(e - t);
	for (size_t j = 0; j < pp->d; j++) {
		const double *p = pp->pre + j * (pp->m + 1);
		double dl = (p[t] - p[s]) / nl - (p[e] - p[t]) / nr;
		g += dl * dl;
	}
	return g * nl * nr / (nl + nr);
}

/* Best split t of [s, e) with both sides >= minc; acc is scratch of e - s. */
static phase_cand phase_best(const vw_phase_prep *pp, size_t s, size_t e, size_t minc,
			     double *acc)
{
	phase_cand c = {(uint32_t)s, (uint32_t)e, 0, -1};
	size_t t0 = s + minc, t1 = e - minc; /* t in [t0, t1] */
	if (e - s < 2 * minc)
		return c;
	memset(acc, 0, (t1 - t0 + 1) * sizeof *acc);
	for (size_t j = 0; j < pp->d; j++) {
		if (pp->scale[j] <= 0)
			continue;
		const double *p = pp->pre + j * (pp->m + 1);
		double ps = p[s], tot = p[e] - ps;
		for (size_t t = t0; t <= t1; t++) {
			double l = p[t] - ps;
			/* (t-s)(e-t)/(e-s) (l/(t-s) - r/(e-t))^2 = (l(e-s) - tot(t-s))^2 / ((t-s)(e-t)(e-s)) */
			double num = l * (double)(e - s) - tot * (double)(t - s);
			acc[t - t0] += num * num;
		}
	}
	for (size_t t = t0; t <= t1; t++) {
		double g = acc[t - t0] / ((double)(t - s) * (double)(e - t) * (double)(e - s));
		if (g > c.gain) {
			c.gain = g;
			c.t = (uint32_t)t;
		}
	}
	return c;
}

static int cand_cmp(const void *a, const void *b)
{
	double x = ((const phase_cand *)a)->gain, y = ((const phase_cand *)b)->gain;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Seeded intervals: lengths m, m/2, ..., >= 2 minc; 2 m / l - 1 per level. */
static int phase_candidates(vw_phase_prep *pp, size_t minc)
{
	size_t m = pp->m, cap = 0, n = 0;
	for (double l = (double)m; l >= 2.0 * (double)minc; l /= 2)
		cap += 2 * (size_t)ceil((double)m / l);
	phase_cand *c = malloc((cap + 1) * sizeof *c);
	double *acc = malloc((m + 1) * sizeof *acc);
	if (!c || !acc) {
		free(c);
		free(acc);
		return -1;
	}
	for (double l = (double)m; l >= 2.0 * (double)minc; l /= 2) {
		size_t len = (size_t)ceil(l), k = 2 * (size_t)ceil((double)m / l) - 1;
		if (len > m)
			len = m;
		for (size_t i = 0; i < k && n < cap; i++) {
			size_t s = k > 1 ? (size_t)floor((double)i * (double)(m - len) / (double)(k - 1)) : 0;
			phase_cand b = phase_best(pp, s, s + len, minc, acc);
			if (b.gain > 0)
				c[n++] = b;
		}
	}
	free(acc);
	qsort(c, n, sizeof *c, cand_cmp);
	free(pp->cand);
	pp->cand = c;
	pp->ncand = n;
	pp->cand_minc = minc;
	return 0;
}

/* ---- selection ------------------------------------------------------------------ */

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Is any point of the sorted cp[0..k) strictly inside (s, e)? */
static int phase_inside(const size_t *cp, size_t k, size_t s, size_t e)
{
	size_t lo = 0, hi = k;
	while (lo < hi) { /* first cp > s */
		size_t mid = (lo + hi) / 2;
		if (cp[mid] <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k && cp[lo] < e;
}

/* Insert t into the sorted cp[0..*k). */
static void phase_insert(size_t *cp, size_t *k, size_t t)
{
	size_t i = *k;
	while (i > 0 && cp[i - 1] > t) {
		cp[i] = cp[i - 1];
		i--;
	}
	cp[i] = t;
	(*k)++;
}

/* Largest level change at t between [s, t) and [t, e) over the streams, as
 * a fraction of each stream's range (0.5 %% - 99.5 %% of the coarse level). */
static double phase_effect(const vw_phase_prep *pp, size_t s, size_t t, size_t e)
{
	double best = 0;
	for (size_t j = 0; j < pp->d; j++) {
		if (pp->scale[j] <= 0 || pp->range[j] <= 0)
			continue;
		const double *p = pp->pre + j * (pp->m + 1);
		double dl = (p[t] - p[s]) / (double)(t - s) - (p[e] - p[t]) / (double)(e - t);
		best = fmax(best, fabs(dl) / pp->range[j]);
	}
	return best;
}

/* A change close to a stronger one (a kernel ending 11 buckets after
 * another tenant's load left it) lies in no seeded interval free of that
 * point, so it is never a candidate once the point is taken.  Each segment
 * between the points taken is searched again near its ends only — a split
 * within 1.5 minc of a point, judged against the next 1.5 minc beyond it —
 * and the split is kept when it passes the penalty and moves a stream by
 * min_eff of its range; until no segment has one.  (A search of the whole
 * segment finds what the seeded intervals judged too weak: a single code
 * sample in an idle phase.) */
#define PHASE_FILL_PEN 2 /* a point found again needs twice the penalty: more windows, more tries */
static void phase_fill(const vw_phase_prep *pp, size_t *cp, size_t *k, size_t minc, double pen,
		       double min_eff, double *acc)
{
	size_t reach = minc + (minc + 1) / 2 + minc; /* a sub-interval: split zone + a minc each side */
	for (int added = 1, pass = 0; added && pass < 8; pass++) {
		added = 0;
		for (size_t i = 0; i <= *k; i++) {
			size_t s = i ? cp[i - 1] : 0, e = i < *k ? cp[i] : pp->m;
			if (e - s < 2 * minc)
				continue;
			phase_cand best = {0, 0, 0, -1};
			for (int side = 0; side < 2; side++) {
				if ((side == 0 && !i) || (side == 1 && i == *k))
					continue; /* the run's own ends hide nothing */
				size_t a = side ? (e - s > reach ? e - reach : s) : s,
				       z = side ? e : (e - s > reach ? s + reach : e);
				phase_cand c = phase_best(pp, a, z, minc, acc);
				if (c.gain >= PHASE_FILL_PEN * pen && (min_eff <= 0 || phase_effect(pp, a, c.t, z) >= min_eff) &&
				    c.gain > best.gain)
					best = c;
			}
			if (best.gain < 0)
				continue;
			phase_insert(cp, k, best.t);
			added = 1;
			i++; /* the new point's right side waits for the next pass */
		}
	}
}

/* Closest two boundaries may come after re-placement, in buckets: half
 * the minimum length, at least 2 (a sliver is a mixed bucket or two). */
static size_t phase_place_min(size_t minc)
{
	return minc / 2 > 2 ? minc / 2 : minc < 2 ? minc : 2;
}

/* Re-place each point between its neighbours, then prune the weakest point
 * while it fails the penalty (gain) or the minimum effect, or while there
 * are more than max_cp; gains (in pen units) left in g[]. */
static void phase_polish(const vw_phase_prep *pp, size_t *cp, size_t *k, size_t minc, double pen,
			 double min_eff, size_t max_cp, double *g, double *acc)
{
	/* Detection holds every split minc buckets from its interval's ends;
	 * re-placement holds it only half as far from its neighbours, so that
	 * a boundary next to a shorter segment (a kernel that starts 5 samples
	 * into the run; a kernel cut 8 samples before its end, where another
	 * tenant's load changed its context switches) goes where the levels
	 * change, not minc buckets away. */
	size_t minp = minc < 2 ? minc : 2;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < *k; i++) {
			size_t s = i ? cp[i - 1] : 0, e = i + 1 < *k ? cp[i + 1] : pp->m;
			phase_cand b = phase_best(pp, s, e, minp, acc);
			if (b.gain > 0)
				cp[i] = b.t;
		}
	for (;;) {
		size_t weak = 0, wg_at = 0;
		double ws = INFINITY, wg = INFINITY;
		for (size_t i = 0; i < *k; i++) {
			size_t s = i ? cp[i - 1] : 0, e = i + 1 < *k ? cp[i + 1] : pp->m;
			g[i] = phase_gain(pp, s, cp[i], e) / pen;
			double sc = min_eff > 0 ? fmin(g[i], phase_effect(pp, s, cp[i], e) / min_eff)
						: g[i];
			if (sc < ws) {
				ws = sc;
				weak = i;
			}
			if (g[i] < wg) {
				wg = g[i];
				wg_at = i;
			}
		}
		if (*k == 0 || (ws >= 1 && *k <= max_cp))
			break;
		if (ws >= 1)
			weak = wg_at; /* too many: drop the weakest by gain */
		memmove(cp + weak, cp + weak + 1, (*k - weak - 1) * sizeof *cp);
		(*k)--;
	}
}

/* Mean of stream j over coarse buckets [a, b), noise units. */
static double phase_mean(const vw_phase_prep *pp, size_t j, size_t a, size_t b)
{
	const double *p = pp->pre + j * (pp->m + 1);
	return b > a ? (p[b] - p[a]) / (double)(b - a) : 0;
}

/* Place the boundary near coarse point c at full resolution; returns a
 * position.  The levels on either side are known from the coarse segments
 * (without the two buckets next to c, which may be mixed), so the location
 * is the maximum of the log-likelihood-ratio walk
 *     S(t) = sum_{i<t} sum_j (muL_j - muR_j) (y_ij - (muL_j + muR_j) / 2)
 * in which streams that do not change weigh nothing, and each y is clipped
 * to 3 noise units beyond the two levels (outliers weigh little). */
static int64_t phase_refine_at(const vw_phase_prep *pp, size_t c, size_t cprev, size_t cnext);

static int64_t phase_refine(vw_phase_prep *pp, size_t c, size_t cprev, size_t cnext)
{
	for (size_t i = 0; i < pp->nplaced; i++)
		if (pp->placed[i].c == c && pp->placed[i].cprev == cprev && pp->placed[i].cnext == cnext)
			return pp->placed[i].pos;
	int64_t pos = phase_refine_at(pp, c, cprev, cnext);
	if (pp->nplaced == pp->capplaced) {
		size_t nc = pp->capplaced ? 2 * pp->capplaced : 64;
		struct phase_placed *np = realloc(pp->placed, nc * sizeof *np);
		if (!np)
			return pos;
		pp->placed = np;
		pp->capplaced = nc;
	}
	pp->placed[pp->nplaced++] = (struct phase_placed){c, cprev, cnext, pos};
	return pos;
}

static int64_t phase_refine_at(const vw_phase_prep *pp, size_t c, size_t cprev, size_t cnext)
{
	size_t a = c >= 2 ? c - 2 : 0, b = c + 2 < pp->m ? c + 2 : pp->m;
	size_t ma = (cprev + c + 1) / 2, mb = (c + cnext) / 2;
	a = a > ma ? a : ma;
	b = b < mb ? b : mb;
	size_t la = c - cprev > 4 ? c - 2 : c, rb = cnext - c > 4 ? c + 2 : c;
	int64_t *pos;
	double *val;
	long n = pp->fine.fetch(pp->fine.ctx, pp->edge[a], pp->edge[b], &pos, &val);
	if (n < 0)
		return pp->edge[c];
	int64_t best = pp->edge[c];
	size_t k = (size_t)n;
	double *acc = calloc(k + 1, sizeof *acc);
	if (acc && k >= 2) {
		for (size_t j = 0; j < pp->d; j++) {
			double *y = val + j * k;
			if (pp->scale[j] <= 0 || !vw_phase_prep_fill(y, k))
				continue;
			double ml = phase_mean(pp, j, cprev, la), mr = phase_mean(pp, j, rb, cnext);
			double w = ml - mr, mid = (ml + mr) / 2, lo = fmin(ml, mr) - 3,
			       hi = fmax(ml, mr) + 3;
			for (size_t i = 0; i < k; i++) {
				double z = (y[i] - pp->center[j]) / pp->scale[j];
				z = z < lo ? lo : z > hi ? hi : z;
				acc[i + 1] += w * (z - mid);
			}
		}
		double run = 0, bg = -INFINITY;
		for (size_t t = 1; t < k; t++) {
			run += acc[t];
			if (run > bg) {
				bg = run;
				best = pos[t];
			}
		}
	}
	free(acc);
	free(pos);
	free(val);
	return best;
}

/* Segment levels on the coarse level, then classes; adjacent segments of
 * one class are merged. */
static int phase_classes(const vw_phase_prep *pp, const size_t *cb, vw_phase_seg *seg,
			 size_t *nseg, double tol)
{
	size_t n = *nseg, d = pp->d;
	double *mean = malloc((n * d + 1) * sizeof *mean), *len = malloc((n + 1) * sizeof *len);
	double *range = malloc((d + 1) * sizeof *range);
	int *cls = malloc((n + 1) * sizeof *cls);
	if (!mean || !len || !cls || !range) {
		free(mean);
		free(len);
		free(cls);
		free(range);
		return -1;
	}
	for (size_t j = 0; j < d; j++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t s = 0; s < n; s++) {
			double v = phase_mean(pp, j, cb[s], cb[s + 1]);
			mean[s * d + j] = v;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		range[j] = pp->scale[j] > 0 && hi - lo > 1e-9 ? hi - lo : 0;
	}
	for (size_t s = 0; s < n; s++)
		len[s] = (double)(cb[s + 1] - cb[s]);
	/* busy: code ran at least 0.2 threads' worth over the segment */
	uint8_t *busy = pp->code ? calloc(n + 1, 1) : NULL;
	double *raw = busy ? calloc(n * d + 1, sizeof *raw) : NULL;
	for (size_t s = 0; raw && s < n; s++) {
		double threads = 0;
		for (size_t j = 0; j < d; j++)
			if (pp->code[j] && pp->scale[j] > 0)
				threads += raw[s * d + j] = mean[s * d + j] * pp->scale[j] + pp->center[j];
		busy[s] = threads >= 0.2;
	}
	int rc = vw_phase_class_assign_code(n, d, mean, len, range, tol, raw ? pp->code : NULL, busy,
					    raw, cls);
	free(busy);
	free(raw);
	if (rc >= 0) {
		size_t k = 0;
		for (size_t s = 0; s < n; s++) {
			if (k && cls[s] == seg[k - 1].cls) {
				seg[k - 1].end = seg[s].end;
				continue;
			}
			seg[k] = seg[s];
			seg[k].cls = cls[s];
			k++;
		}
		*nseg = k;
	}
	free(mean);
	free(len);
	free(cls);
	free(range);
	return rc < 0 ? -1 : 0;
}

/* Which neighbour a short segment [t, u) between [s, t) and [u, e) joins:
 * 1 the left one, 0 the right one — the one whose levels its buckets lie
 * closer to, over the streams, each bucket clipped to 3 noise units beyond
 * the two levels as in phase_refine_at.  Unclipped (the gain of either
 * merge), a burst that one stream shows where the work changes weighed
 * more than the level every other stream changed to: a kernel's first
 * 100 ms, its context switches 20 times the idle rate, joined the idle
 * phase before it and moved its start two samples late. */
static int phase_short_side(const vw_phase_prep *pp, size_t s, size_t t, size_t u, size_t e)
{
	double cl = 0, cr = 0;
	for (size_t j = 0; j < pp->d; j++) {
		if (pp->scale[j] <= 0)
			continue;
		double ml = phase_mean(pp, j, s, t), mr = phase_mean(pp, j, u, e);
		double lo = fmin(ml, mr) - 3, hi = fmax(ml, mr) + 3;
		for (size_t k = t; k < u; k++) {
			double z = phase_mean(pp, j, k, k + 1);
			z = z < lo ? lo : z > hi ? hi : z;
			cl += (z - ml) * (z - ml);
			cr += (z - mr) * (z - mr);
		}
	}
	return cl < cr;
}

/* Two coarse points a bucket or two apart can be refined onto the same
 * change, leaving a sliver (the mixed bucket) between them, and re-placed
 * boundaries may leave a segment shorter than the minimum: while a segment
 * is shorter than minpos, drop one of its boundaries — the one whose loss
 * costs less: the boundary kept is the one that better separates the two
 * neighbours once the short segment has joined one of them (the CUSUM gain
 * of either single boundary between the outer neighbours). */
static void phase_short(const vw_phase_prep *pp, vw_phase_seg *seg, size_t *cb, size_t *n,
			int64_t minpos)
{
	for (;;) {
		size_t worst = 0;
		int64_t wl = minpos;
		for (size_t i = 0; i < *n; i++)
			if (*n > 1 && seg[i].end - seg[i].start < wl) {
				wl = seg[i].end - seg[i].start;
				worst = i + 1;
			}
		if (!worst)
			return;
		size_t i = worst - 1, b; /* drop boundary b: the start of segment b */
		if (i == 0)
			b = 1;
		else if (i + 1 == *n)
			b = i;
		else if (cb[i - 1] < cb[i] && cb[i] < cb[i + 1] && cb[i + 1] < cb[i + 2])
			b = phase_short_side(pp, cb[i - 1], cb[i], cb[i + 1], cb[i + 2]) ? i : i + 1;
		else
			b = seg[i].gain < seg[i + 1].gain ? i : i + 1;
		seg[b - 1].end = seg[b].end;
		memmove(seg + b, seg + b + 1, (*n - b - 1) * sizeof *seg);
		memmove(cb + b, cb + b + 1, (*n - b) * sizeof *cb);
		(*n)--;
	}
}

int vw_phase_run(vw_phase_prep *pp, const vw_phase_params *par, vw_phase_seg **segs,
		 size_t *nsegs)
{
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	if (par)
		p = *par;
	*segs = NULL;
	*nsegs = 0;
	size_t m = pp->m;
	if (m == 0)
		return 0;
	double bw = (double)(pp->edge[m] - pp->edge[0]) / (double)m;
	int64_t ml = p.min_len > 0 ? p.min_len : PHASE_MIN_SAMPLES * pp->sample;
	size_t minc = 2;
	if (bw > 0 && (double)ml / bw > 2)
		minc = (size_t)ceil((double)ml / bw);
	if (!pp->cand || pp->cand_minc != minc)
		if (phase_candidates(pp, minc))
			return -1;
	double de = (double)(pp->used ? pp->used : 1), x = 2 * log(m > 2 ? (double)m : 2.0);
	double pen = (p.penalty > 0 ? p.penalty : 1) * (de + 2 * sqrt(de * x) + 2 * x);
	size_t *cp = malloc((m + 2) * sizeof *cp), k = 0;
	double *g = malloc((m + 2) * sizeof *g), *acc = malloc((m + 1) * sizeof *acc);
	vw_phase_seg *seg = malloc((m + 2) * sizeof *seg);
	size_t *cb = malloc((m + 2) * sizeof *cb);
	if (!cp || !g || !acc || !seg || !cb)
		goto nomem;
	for (size_t i = 0; i < pp->ncand && pp->cand[i].gain >= pen; i++) {
		const phase_cand *c = &pp->cand[i];
		if (!phase_inside(cp, k, c->s, c->e))
			phase_insert(cp, &k, c->t);
	}
	qsort(cp, k, sizeof *cp, size_cmp);
	phase_fill(pp, cp, &k, minc, pen, p.min_effect >= 0 ? p.min_effect : 0.1, acc);
	phase_polish(pp, cp, &k, minc, pen, p.min_effect >= 0 ? p.min_effect : 0.1,
		     p.max_phases ? p.max_phases - 1 : m, g, acc);
	cb[0] = 0;
	for (size_t i = 0; i <= k; i++) {
		cb[i + 1] = i < k ? cp[i] : m;
		seg[i].start = i ? (pp->has_fine ? phase_refine(pp, cp[i - 1], cb[i - 1],
						      i < k ? cp[i] : m)
				   : pp->edge[cp[i - 1]])
			       : pp->edge[0];
		seg[i].gain = i ? g[i - 1] : 0;
		seg[i].cls = 0;
		if (i)
			seg[i - 1].end = seg[i].start;
	}
	seg[k].end = pp->edge[m];
	size_t n = k + 1;
	/* an explicit minimum holds for every phase; the default one (10
	 * samples) is the detection's, and a re-placed phase of 5 stays */
	size_t keep = p.min_len > 0 ? minc : phase_place_min(minc);
	phase_short(pp, seg, cb, &n, (int64_t)ceil((double)keep * bw));
	if (phase_classes(pp, cb, seg, &n, p.class_tol > 0 ? p.class_tol : 0.2))
		goto nomem;
	free(cp);
	free(g);
	free(acc);
	free(cb);
	*segs = seg;
	*nsegs = n;
	return 0;
nomem:
	free(cp);
	free(g);
	free(acc);
	free(seg);
	free(cb);
	return -1;
}
