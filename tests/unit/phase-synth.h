/* phase-synth.h: synthetic phased streams with known change points, for the
 * phase detector's unit tests and benchmark (header-only, test code).
 *
 * A run of n samples x d streams is cut into nseg segments of random lengths
 * (>= minlen); each segment plays one of ncls classes (never the same class
 * twice in a row), a class being a level per stream.  Streams get very
 * different units (x 10^(j mod 7)) so that scaling matters, Gaussian noise of
 * `noise` times the level spread, a fraction of outliers (+-40 spreads), and
 * a fraction of NaN values.  Deterministic for a seed (xorshift).
 *
 *     synth s;
 *     synth_make(&s, &(synth_opts){.d = 8, .n = 20000, .nseg = 12, ...});
 *     ... s.x[j][i], s.cp[k] (k < nseg - 1: start of segment k + 1), s.cls[k]
 *     synth_score(&s, det_starts, ndet, 2, &prec, &rec);
 *     synth_free(&s);
 */
#ifndef PHASE_SYNTH_H
#define PHASE_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct synth_opts {
	size_t d, n, nseg, ncls, minlen;
	double noise;    /* noise sigma, fraction of the level spread */
	double outliers; /* fraction of samples replaced by an outlier */
	double nan;      /* fraction of NaN */
	double active;   /* fraction of streams whose level changes between classes */
	uint64_t seed;
} synth_opts;

typedef struct synth {
	size_t d, n, nseg;
	double **x;
	size_t *cp;  /* nseg - 1 true boundaries */
	int *cls;    /* nseg true classes */
} synth;

static uint64_t synth_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double synth_unif(uint64_t *s)
{
	return (double)(synth_rng(s) >> 11) / 9007199254740992.0;
}

static double synth_gauss(uint64_t *s)
{
	double u = synth_unif(s), v = synth_unif(s);
	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

static int synth_make(synth *sy, const synth_opts *o)
{
	uint64_t r = o->seed * 2654435761u + 88172645463325252ull;
	size_t d = o->d, n = o->n, ns = o->nseg;
	sy->d = d;
	sy->n = n;
	sy->nseg = ns;
	sy->x = calloc(d, sizeof *sy->x);
	sy->cp = calloc(ns + 1, sizeof *sy->cp);
	sy->cls = calloc(ns + 1, sizeof *sy->cls);
	double *lev = calloc(o->ncls * d + 1, sizeof *lev);
	if (!sy->x || !sy->cp || !sy->cls || !lev)
		return -1;
	for (size_t c = 0; c < o->ncls; c++)
		for (size_t j = 0; j < d; j++) {
			int act = synth_unif(&r) < o->active || j == c % d;
			lev[c * d + j] = act ? synth_unif(&r) : 0.5;
		}
	/* make classes distinct: class c is high on stream c mod d */
	for (size_t c = 0; c < o->ncls; c++)
		lev[c * d + c % d] = 1.0 + 0.2 * (double)(c / d);
	/* segment lengths: minlen + a random share of the rest */
	double *w = calloc(ns + 1, sizeof *w), tot = 0;
	for (size_t k = 0; k < ns; k++)
		tot += w[k] = 0.2 + synth_unif(&r);
	size_t spare = n > ns * o->minlen ? n - ns * o->minlen : 0, pos = 0;
	for (size_t k = 0; k + 1 < ns; k++) {
		pos += o->minlen + (size_t)((double)spare * w[k] / tot);
		sy->cp[k] = pos;
	}
	free(w);
	for (size_t k = 0; k < ns; k++) {
		int c;
		do
			c = (int)(synth_rng(&r) % o->ncls);
		while (k && o->ncls > 1 && c == sy->cls[k - 1]);
		sy->cls[k] = c;
	}
	for (size_t j = 0; j < d; j++) {
		double unit = pow(10, (double)(j % 7)), *x = malloc((n + 1) * sizeof *x);
		if (!x)
			return -1;
		sy->x[j] = x;
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			while (k + 1 < ns && i >= sy->cp[k])
				k++;
			double v = lev[(size_t)sy->cls[k] * d + j] + o->noise * synth_gauss(&r);
			if (synth_unif(&r) < o->outliers)
				v += (synth_unif(&r) < 0.5 ? -40 : 40);
			x[i] = synth_unif(&r) < o->nan ? NAN : v * unit;
		}
	}
	free(lev);
	return 0;
}

static void synth_free(synth *sy)
{
	for (size_t j = 0; sy->x && j < sy->d; j++)
		free(sy->x[j]);
	free(sy->x);
	free(sy->cp);
	free(sy->cls);
}

/* Precision and recall of detected boundaries det[0..nd) against the truth,
 * a detection matching at most one true boundary within tol samples. */
static void synth_score(const synth *sy, const int64_t *det, size_t nd, int64_t tol,
			double *prec, double *rec)
{
	size_t tp = 0, nt = sy->nseg - 1;
	char *used = calloc(nt + 1, 1);
	for (size_t i = 0; i < nd; i++) {
		size_t best = nt;
		int64_t bd = tol + 1;
		for (size_t k = 0; k < nt; k++) {
			int64_t dd = llabs(det[i] - (int64_t)sy->cp[k]);
			if (!used[k] && dd < bd) {
				bd = dd;
				best = k;
			}
		}
		if (best < nt) {
			used[best] = 1;
			tp++;
		}
	}
	free(used);
	*prec = nd ? (double)tp / (double)nd : 1;
	*rec = nt ? (double)tp / (double)nt : 1;
}

#endif
