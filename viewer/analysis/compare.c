/* compare.c: the phases of two runs matched, their deltas judged against
 * noise and ranked (see compare.h).  Pure: plain arrays in, plain arrays
 * out; no model, no screen.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* Detected phases: largest difference of any figure, as a fraction of its
 * range over both runs, for two phases to be the same work. */
#define CMP_FIG_TOL 0.3
/* One run a side: the run-to-run noise assumed, fraction of a phase. */
#define CMP_SINGLE_NOISE 0.02

double vw_compare_similar(const vw_cmp_phase *x, const vw_cmp_phase *y, int marked,
			  const double *scale)
{
	double worst = 0;
	int nfig = 0;
	for (int f = 0; f < VW_CMP_NFIG; f++) {
		if (!scale || !(scale[f] > 0) || !isfinite(x->fig[f]) || !isfinite(y->fig[f]))
			continue;
		double d = fabs(x->fig[f] - y->fig[f]) / scale[f];
		worst = d > worst ? d : worst;
		nfig++;
	}
	double lo = x->dur < y->dur ? x->dur : y->dur, hi = x->dur < y->dur ? y->dur : x->dur;
	double dsim = hi > 0 ? lo / hi : 1;
	if (marked) {
		if (strcmp(x->mark, y->mark) != 0)
			return 0;
		return 2 + 0.2 * dsim + (nfig ? 0.2 * (1 - (worst < 1 ? worst : 1)) : 0);
	}
	if (worst > CMP_FIG_TOL)
		return 0;
	return 1 + (CMP_FIG_TOL - worst) / CMP_FIG_TOL + 0.2 * (x->cls == y->cls) + 0.3 * dsim;
}

/* Range of each figure over both runs. */
static void cmp_scale(const vw_cmp_run *x, const vw_cmp_run *y, double *scale)
{
	for (int f = 0; f < VW_CMP_NFIG; f++) {
		double lo = INFINITY, hi = -INFINITY;
		for (int s = 0; s < 2; s++) {
			const vw_cmp_run *r = s ? y : x;
			for (size_t i = 0; i < r->n; i++) {
				double v = r->v[i].fig[f];
				if (isfinite(v)) {
					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
			}
		}
		/* a range of 0 up to the largest value: a figure that stays flat
		 * over both runs still tells a phase at 10 from one at 12 */
		if (lo > 0)
			lo = 0;
		scale[f] = hi > lo ? hi - lo : 0;
	}
}

size_t vw_compare_coalesce(vw_cmp_phase *v, size_t n)
{
	if (n < 2)
		return n;
	vw_cmp_run r = {v, n, 0, 0, 0};
	double scale[VW_CMP_NFIG];
	cmp_scale(&r, &r, scale);
	size_t k = 0;
	double longest = v[0].dur; /* of the pieces of v[k]: its class */
	for (size_t i = 1; i < n; i++) {
		vw_cmp_phase *p = &v[k];
		double worst = 0;
		for (int f = 0; f < VW_CMP_NFIG; f++) {
			if (!(scale[f] > 0) || !isfinite(p->fig[f]) || !isfinite(v[i].fig[f]))
				continue;
			double d = fabs(p->fig[f] - v[i].fig[f]) / scale[f];
			worst = d > worst ? d : worst;
		}
		if (worst > CMP_FIG_TOL) {
			v[++k] = v[i];
			longest = v[i].dur;
			continue;
		}
		double w = p->dur + v[i].dur;
		for (int f = 0; f < VW_CMP_NFIG; f++) {
			double x = p->fig[f], y = v[i].fig[f];
			if (isfinite(x) && isfinite(y) && w > 0)
				p->fig[f] = (x * p->dur + y * v[i].dur) / w;
			else if (!isfinite(x))
				p->fig[f] = y;
		}
		if (v[i].dur > longest) {
			p->cls = v[i].cls;
			longest = v[i].dur;
		}
		p->dur = w;
	}
	return k + 1;
}

int vw_compare_align(const vw_cmp_run *x, const vw_cmp_run *y, int *map)
{
	size_t n = x->n, m = y->n, w = m + 1;
	for (size_t i = 0; i < n; i++)
		map[i] = -1;
	if (!n || !m)
		return 0;
	double scale[VW_CMP_NFIG];
	cmp_scale(x, y, scale);
	int marked = x->marked && y->marked;
	double *s = malloc((n + 1) * w * sizeof *s);
	double *sim = malloc(n * m * sizeof *sim);
	if (!s || !sim) {
		free(s);
		free(sim);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m; j++)
			sim[i * m + j] = vw_compare_similar(&x->v[i], &y->v[j], marked, scale);
	for (size_t j = 0; j <= m; j++)
		s[j] = 0;
	for (size_t i = 1; i <= n; i++) {
		s[i * w] = 0;
		for (size_t j = 1; j <= m; j++) {
			double best = s[(i - 1) * w + j];
			if (s[i * w + j - 1] > best)
				best = s[i * w + j - 1];
			double d = sim[(i - 1) * m + j - 1];
			if (d > 0 && s[(i - 1) * w + j - 1] + d > best)
				best = s[(i - 1) * w + j - 1] + d;
			s[i * w + j] = best;
		}
	}
	int nmatch = 0;
	for (size_t i = n, j = m; i > 0 && j > 0;) {
		double d = sim[(i - 1) * m + j - 1];
		if (d > 0 && s[i * w + j] == s[(i - 1) * w + j - 1] + d) {
			map[i - 1] = (int)(j - 1);
			nmatch++;
			i--, j--;
		} else if (s[i * w + j] == s[(i - 1) * w + j]) {
			i--;
		} else {
			j--;
		}
	}
	free(s);
	free(sim);
	return nmatch;
}

/* Durations of phase i of side r[0] over the side's runs: mean, sd, count. */
static void cmp_side(const vw_cmp_run *r, size_t nr, int *const *maps, int i, double *mean,
		     double *sd, int *cnt)
{
	double sum = 0, sum2 = 0;
	int k = 0;
	for (size_t j = 0; j < nr; j++) {
		int p = j == 0 ? i : maps[j][i];
		if (p < 0)
			continue;
		double d = r[j].v[p].dur;
		sum += d;
		sum2 += d * d;
		k++;
	}
	*cnt = k;
	*mean = k ? sum / k : NAN;
	double var = k > 1 ? (sum2 - sum * sum / k) / (k - 1) : 0;
	*sd = var > 0 ? sqrt(var) : 0;
}

static int **cmp_maps(const vw_cmp_run *r, size_t nr)
{
	int **maps = calloc(nr, sizeof *maps);
	if (!maps)
		return NULL;
	for (size_t j = 1; j < nr; j++)
		if (!(maps[j] = malloc((r[0].n ? r[0].n : 1) * sizeof **maps)) ||
		    vw_compare_align(&r[0], &r[j], maps[j]) < 0) {
			for (size_t k = 1; k <= j; k++)
				free(maps[k]);
			free(maps);
			return NULL;
		}
	return maps;
}

static void cmp_maps_free(int **maps, size_t nr)
{
	if (!maps)
		return;
	for (size_t j = 1; j < nr; j++)
		free(maps[j]);
	free(maps);
}

static const vw_compare *cmp_sort_ctx;

static int cmp_by_delta(const void *x, const void *y)
{
	const vw_cmp_match *a = &cmp_sort_ctx->m[*(const size_t *)x];
	const vw_cmp_match *b = &cmp_sort_ctx->m[*(const size_t *)y];
	double da = fabs(a->delta_s), db = fabs(b->delta_s);
	if (da != db)
		return da < db ? 1 : -1;
	return a->a < b->a ? -1 : a->a > b->a;
}

int vw_compare_runs(const vw_cmp_run *a, size_t na, const vw_cmp_run *b, size_t nb,
		    vw_compare *out)
{
	memset(out, 0, sizeof *out);
	out->nruns_a = na;
	out->nruns_b = nb;
	out->marked = a[0].marked && b[0].marked;
	for (size_t j = 0; j < na; j++)
		out->total_a += a[j].total / (double)na;
	for (size_t j = 0; j < nb; j++)
		out->total_b += b[j].total / (double)nb;
	int **ma = cmp_maps(a, na), **mb = cmp_maps(b, nb);
	int *map = malloc((a[0].n ? a[0].n : 1) * sizeof *map);
	unsigned char *used = calloc(b[0].n ? b[0].n : 1, 1);
	size_t cap = a[0].n < b[0].n ? a[0].n : b[0].n;
	out->m = calloc(cap ? cap : 1, sizeof *out->m);
	out->rank = calloc(cap ? cap : 1, sizeof *out->rank);
	out->only_a = calloc(a[0].n ? a[0].n : 1, sizeof *out->only_a);
	out->only_b = calloc(b[0].n ? b[0].n : 1, sizeof *out->only_b);
	int rc = -1;
	if (!ma || !mb || !map || !used || !out->m || !out->rank || !out->only_a || !out->only_b ||
	    vw_compare_align(&a[0], &b[0], map) < 0)
		goto out;
	double res = 0;
	if (!out->marked) /* a detected boundary is placed within one interval either side */
		res = 2 * (a[0].interval > b[0].interval ? a[0].interval : b[0].interval);
	int repeated = na > 1 || nb > 1;
	double sumabs = 0;
	for (size_t i = 0; i < a[0].n; i++) {
		if (map[i] < 0) {
			out->only_a[out->nonly_a++] = a[0].v[i];
			continue;
		}
		used[map[i]] = 1;
		vw_cmp_match *x = &out->m[out->nm++];
		const vw_cmp_phase *pa = &a[0].v[i], *pb = &b[0].v[map[i]];
		x->a = (int)i;
		x->b = map[i];
		snprintf(x->label, sizeof x->label, "%s", pa->label);
		x->a_start = pa->t0;
		cmp_side(a, na, ma, (int)i, &x->dur_a, &x->sd_a, &x->na);
		/* B's runs: B's first run's phase map[i], then its matches in B's other runs */
		cmp_side(b, nb, mb, map[i], &x->dur_b, &x->sd_b, &x->nb);
		memcpy(x->fig_a, pa->fig, sizeof x->fig_a);
		memcpy(x->fig_b, pb->fig, sizeof x->fig_b);
		x->delta_s = x->dur_b - x->dur_a;
		x->delta_pct = x->dur_a > 0 ? 100 * x->delta_s / x->dur_a : NAN;
		double noise;
		if (repeated) {
			double sa = x->na > 1 ? x->sd_a : x->sd_b, sb = x->nb > 1 ? x->sd_b : x->sd_a;
			noise = 2 * sqrt(sa * sa / x->na + sb * sb / x->nb) + res;
		} else {
			noise = CMP_SINGLE_NOISE * x->dur_a + res;
		}
		x->noise_pct = x->dur_a > 0 ? 100 * noise / x->dur_a : NAN;
		x->beyond = fabs(x->delta_s) > noise;
		x->regressed = x->beyond && x->delta_s > 0;
		sumabs += fabs(x->delta_s);
	}
	for (size_t j = 0; j < b[0].n; j++)
		if (!used[j])
			out->only_b[out->nonly_b++] = b[0].v[j];
	for (size_t k = 0; k < out->nm; k++) {
		out->m[k].share_pct = sumabs > 0 ? 100 * out->m[k].delta_s / sumabs : 0;
		out->rank[k] = k;
	}
	cmp_sort_ctx = out;
	qsort(out->rank, out->nm, sizeof *out->rank, cmp_by_delta);
	cmp_sort_ctx = NULL;
	for (size_t k = 0; k < out->nm; k++)
		out->m[out->rank[k]].rank = (int)k + 1;
	rc = 0;
out:
	cmp_maps_free(ma, na);
	cmp_maps_free(mb, nb);
	free(map);
	free(used);
	if (rc)
		vw_compare_free(out);
	return rc;
}

void vw_compare_free(vw_compare *c)
{
	free(c->m);
	free(c->rank);
	free(c->only_a);
	free(c->only_b);
	c->m = NULL;
	c->rank = NULL;
	c->only_a = c->only_b = NULL;
	c->nm = c->nonly_a = c->nonly_b = 0;
}

size_t vw_compare_slower(const vw_compare *c, double pct, char *buf, size_t len)
{
	size_t n = 0, u = 0;
	int repeated = c->nruns_a > 1 || c->nruns_b > 1;
	if (len)
		buf[0] = '\0';
	for (size_t k = 0; k < c->nm; k++) {
		const vw_cmp_match *x = &c->m[c->rank[k]];
		if (!(x->delta_pct > pct) || (repeated && !x->beyond))
			continue;
		if (u < len) {
			int w = snprintf(buf + u, len - u, "%s%s (%+.1f %%)", n ? ", " : "", x->label,
					 x->delta_pct);
			u += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	return n;
}
