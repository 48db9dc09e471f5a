/* compare.c: the phases of two runs matched, their deltas judged against
 * noise and ranked (see compare.h).  Pure: plain arrays in, plain arrays
 * out; no model, no screen.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "../phases/phase.h"

/* Detected phases: largest difference of any figure, as a fraction of its
 * range over both runs, for two phases to be the same work. */
#define CMP_FIG_TOL 0.3
/* Coalescing: pieces this close (fraction of range) are one phase. */
#define CMP_MERGE_TOL 0.4
/* One run a side: the run-to-run noise assumed, fraction of a phase. */
#define CMP_SINGLE_NOISE 0.02

/* How far apart two values of a figure are, in fractions of its range:
 * the difference over the range, or for values of one sign their ratio
 * (a ratio of 2 counts as CMP_FIG_TOL), whichever is less — a busy phase
 * at 0.6 CPUs on a loaded machine is still the phase at 1.0 elsewhere, an
 * idle one at 0.05 still idle beside one at 0.005. */
static double cmp_fig_dist(double x, double y, double scale)
{
	double d = fabs(x - y) / scale;
	if (x * y > 0) {
		double r = fabs(log(x / y)) / log(2) * CMP_FIG_TOL;
		d = r < d ? r : d;
	}
	return d;
}

/* Both phases name their hottest function, and not the same one. */
static int cmp_code_differs(const vw_cmp_phase *x, const vw_cmp_phase *y)
{
	return x->code[0] && y->code[0] && strcmp(x->code, y->code) != 0;
}

double vw_compare_similar(const vw_cmp_phase *x, const vw_cmp_phase *y, int marked,
			  const double *scale)
{
	double worst = 0;
	int nfig = 0;
	for (int f = 0; f < VW_CMP_NFIG; f++) {
		if (!scale || !(scale[f] > 0) || !isfinite(x->fig[f]) || !isfinite(y->fig[f]))
			continue;
		double d = cmp_fig_dist(x->fig[f], y->fig[f], scale[f]);
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
	if (worst > CMP_FIG_TOL || cmp_code_differs(x, y))
		return 0;
	return 1 + (CMP_FIG_TOL - worst) / CMP_FIG_TOL + 0.2 * (x->cls == y->cls) + 0.3 * dsim +
	       0.3 * (x->code[0] && !strcmp(x->code, y->code));
}

void vw_compare_label(vw_cmp_phase *p, size_t i)
{
	char cn[8];
	snprintf(p->label, sizeof p->label, "#%zu %s%s%.40s", i + 1,
		 vw_phase_class_name(p->cls, cn, sizeof cn), p->code[0] ? " " : "", p->code);
}

const char *vw_compare_how(const vw_compare *c)
{
	return c->marked ? "marks" : c->by_code ? "detected; by figures and hottest code"
						: "detected; by figures";
}

double vw_compare_fig_floor(int f)
{
	static const double floor_[VW_CMP_NFIG] = {
		[VW_CMP_IPC] = 0.2, [VW_CMP_BW] = 1e8, [VW_CMP_CPUS] = 0.5,
		[VW_CMP_INS] = 1e8, [VW_CMP_GPU] = 10, [VW_CMP_NET] = 1e6};
	return f >= 0 && f < VW_CMP_NFIG ? floor_[f] : 0;
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
		 * over both runs still tells a phase at 10 from one at 12; and
		 * at least what is a difference at all (the network's background
		 * chatter of a few kB/s tells no phase from another) */
		if (lo > 0)
			lo = 0;
		scale[f] = hi > lo ? hi - lo : 0;
		if (hi > lo && scale[f] < vw_compare_fig_floor(f))
			scale[f] = vw_compare_fig_floor(f);
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
			double d = cmp_fig_dist(p->fig[f], v[i].fig[f], scale[f]);
			worst = d > worst ? d : worst;
		}
		if (worst > CMP_MERGE_TOL || cmp_code_differs(p, &v[i])) {
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
		for (size_t j = 0; j < m; j++) {
			double d = vw_compare_similar(&x->v[i], &y->v[j], marked, scale);
			/* detected: at about the same place in the run (so that a
			 * pair kept apart by noise does not shift every match by one) */
			if (d > 0 && !marked && x->total > 0 && y->total > 0) {
				double dp = fabs(x->v[i].t0 / x->total - y->v[j].t0 / y->total);
				d += 0.5 * (dp < 0.25 ? 1 - 4 * dp : 0);
			}
			sim[i * m + j] = d;
		}
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

/* Merge phase i of v (n phases) into its neighbour k = i +- 1. */
static void cmp_merge(vw_cmp_phase *v, size_t *n, size_t i, size_t k)
{
	vw_cmp_phase *p = &v[k];
	const vw_cmp_phase *u = &v[i];
	double w = p->dur + u->dur;
	for (int f = 0; f < VW_CMP_NFIG; f++) {
		double x = p->fig[f], y = u->fig[f];
		if (isfinite(x) && isfinite(y) && w > 0)
			p->fig[f] = (x * p->dur + y * u->dur) / w;
		else if (!isfinite(x))
			p->fig[f] = y;
	}
	if (u->t0 < p->t0)
		p->t0 = u->t0;
	p->dur = w;
	memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof *v);
	--*n;
}

/* One unmatched phase of x (map: x -> y, ny phases in y) that belongs to
 * a matched neighbour: y has nothing between the counterparts of the
 * matched phases either side of it, and merged with the neighbour it
 * brings their durations closer to its counterpart's (the detector cut a
 * prologue off in one run only, or cut a phase where another job's network
 * traffic passed; a gap between marked regions absorbed in one run only).
 * Marked: only unmarked gaps.  Merged; returns 1. */
static int cmp_absorb_one(vw_cmp_phase *xv, size_t *nx, const vw_cmp_phase *yv, size_t ny,
			  const int *map, int marked)
{
	for (size_t i = 0; i < *nx; i++) {
		if (map[i] >= 0 || (marked && xv[i].mark[0]))
			continue;
		int l = (int)i - 1, r = (int)i + 1;
		while (l >= 0 && map[l] < 0)
			l--;
		while (r < (int)*nx && map[r] < 0)
			r++;
		int yl = l >= 0 ? map[l] : -1, yr = r < (int)*nx ? map[r] : (int)ny;
		if (yr - yl != 1)
			continue; /* y has phases there too: pairs, or phases of one side */
		for (int side = -1; side <= 1; side += 2) {
			int k = (int)i + side;
			if (k != l && k != r)
				continue;
			if (k < 0 || k >= (int)*nx)
				continue;
			const vw_cmp_phase *c = &yv[map[k]];
			if (fabs(xv[k].dur + xv[i].dur - c->dur) >= fabs(xv[k].dur - c->dur))
				continue;
			cmp_merge(xv, nx, i, (size_t)k);
			return 1;
		}
	}
	return 0;
}

/* Align y to x, absorbing the unmatched pieces of y (and of x when both)
 * into their matched neighbours until none is left to absorb. */
static int cmp_align_absorb(vw_cmp_run *x, vw_cmp_phase *xv, vw_cmp_run *y, vw_cmp_phase *yv,
			    int both, int *map)
{
	int marked = x->marked && y->marked;
	for (;;) {
		if (vw_compare_align(x, y, map) < 0)
			return -1;
		int *back = malloc((y->n ? y->n : 1) * sizeof *back);
		if (!back)
			return -1;
		for (size_t j = 0; j < y->n; j++)
			back[j] = -1;
		for (size_t i = 0; i < x->n; i++)
			if (map[i] >= 0)
				back[map[i]] = (int)i;
		int done = cmp_absorb_one(yv, &y->n, xv, x->n, back, marked) ||
			   (both && cmp_absorb_one(xv, &x->n, yv, y->n, map, marked));
		free(back);
		if (!done)
			break;
	}
	if (marked)
		return 0;
	/* Between two matched phases (or a matched one and an end of the runs),
	 * one unmatched phase on each side of durations within a factor of 2:
	 * the same work, whatever its figures say (an idle phase where another
	 * job used the network) — when something matched at all. */
	int any = 0, last_i = -1, last_j = -1;
	for (size_t i = 0; i < x->n; i++)
		any |= map[i] >= 0;
	for (size_t i = 0; any && i <= x->n; i++) {
		if (i < x->n && map[i] < 0)
			continue;
		int j = i < x->n ? map[i] : (int)y->n;
		if ((int)i - last_i == 2 && j - last_j == 2) {
			const vw_cmp_phase *p = &xv[last_i + 1], *q = &yv[last_j + 1];
			double lo = p->dur < q->dur ? p->dur : q->dur, hi = p->dur < q->dur ? q->dur : p->dur;
			if (hi <= 2 * lo)
				map[last_i + 1] = last_j + 1;
		}
		last_i = (int)i;
		last_j = j;
	}
	return 0;
}

/* Mutable copies of nr runs. */
static vw_cmp_run *cmp_copy(const vw_cmp_run *r, size_t nr)
{
	vw_cmp_run *c = calloc(nr, sizeof *c);
	if (!c)
		return NULL;
	for (size_t j = 0; j < nr; j++) {
		vw_cmp_phase *v = malloc((r[j].n ? r[j].n : 1) * sizeof *v);
		c[j] = r[j];
		c[j].v = v;
		if (!v) {
			for (size_t k = 0; k < j; k++)
				free((void *)c[k].v);
			free(c);
			return NULL;
		}
		memcpy(v, r[j].v, r[j].n * sizeof *v);
	}
	return c;
}

static void cmp_copy_free(vw_cmp_run *c, size_t nr)
{
	for (size_t j = 0; c && j < nr; j++)
		free((void *)c[j].v);
	free(c);
}

/* Maps of runs 1.. of a side to its (already settled) first run. */
static int **cmp_maps(vw_cmp_run *r, size_t nr)
{
	int **maps = calloc(nr, sizeof *maps);
	if (!maps)
		return NULL;
	for (size_t j = 1; j < nr; j++)
		if (!(maps[j] = malloc((r[0].n ? r[0].n : 1) * sizeof **maps)) ||
		    cmp_align_absorb(&r[0], (vw_cmp_phase *)r[0].v, &r[j], (vw_cmp_phase *)r[j].v,
				     0, maps[j]) < 0) {
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
	/* "what got slower": the phases that lost time first, most seconds
	 * lost first, then those that gained, most gained first: a phase
	 * faster by noise never ranks above one that got slower */
	int sa = a->delta_s > 0, sb = b->delta_s > 0;
	if (sa != sb)
		return sa ? -1 : 1;
	double da = fabs(a->delta_s), db = fabs(b->delta_s);
	if (da != db)
		return da < db ? 1 : -1;
	return a->a < b->a ? -1 : a->a > b->a;
}

int vw_compare_runs(const vw_cmp_run *a0, size_t na, const vw_cmp_run *b0, size_t nb,
		    vw_compare *out)
{
	memset(out, 0, sizeof *out);
	vw_cmp_run *a = cmp_copy(a0, na), *b = cmp_copy(b0, nb);
	int **ma = NULL, **mb = NULL;
	int *map = malloc((a0[0].n ? a0[0].n : 1) * sizeof *map);
	if (!a || !b || !map ||
	    cmp_align_absorb(&a[0], (vw_cmp_phase *)a[0].v, &b[0], (vw_cmp_phase *)b[0].v, 1, map) < 0) {
		cmp_copy_free(a, na);
		cmp_copy_free(b, nb);
		free(map);
		return -1;
	}
	ma = cmp_maps(a, na);
	mb = cmp_maps(b, nb);
	for (size_t i = 0; i < a[0].n && !a[0].marked; i++) /* absorbed: number again */
		vw_compare_label(&((vw_cmp_phase *)a[0].v)[i], i);
	out->nruns_a = na;
	out->nruns_b = nb;
	out->marked = a[0].marked && b[0].marked;
	for (size_t i = 0; !out->marked && i < a[0].n; i++)
		for (size_t j = 0; a[0].v[i].code[0] && j < b[0].n; j++)
			out->by_code |= b[0].v[j].code[0] != 0;
	for (size_t j = 0; j < na; j++)
		out->total_a += a[j].total / (double)na;
	for (size_t j = 0; j < nb; j++)
		out->total_b += b[j].total / (double)nb;
	unsigned char *used = calloc(b[0].n ? b[0].n : 1, 1);
	size_t cap = a[0].n < b[0].n ? a[0].n : b[0].n;
	out->m = calloc(cap ? cap : 1, sizeof *out->m);
	out->rank = calloc(cap ? cap : 1, sizeof *out->rank);
	out->only_a = calloc(a[0].n ? a[0].n : 1, sizeof *out->only_a);
	out->only_b = calloc(b[0].n ? b[0].n : 1, sizeof *out->only_b);
	int rc = -1;
	if (!ma || !mb || !used || !out->m || !out->rank || !out->only_a || !out->only_b)
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
		x->a_len = pa->dur;
		x->b_start = pb->t0;
		x->b_len = pb->dur;
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
		out->nwork += !out->marked || pa->mark[0];
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
	cmp_copy_free(a, na);
	cmp_copy_free(b, nb);
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

double vw_compare_warp(const vw_compare *c, double ta)
{
	if (!c->nm)
		return ta;
	const vw_cmp_match *m = c->m;
	if (ta < m[0].a_start)
		return ta - m[0].a_start + m[0].b_start;
	for (size_t k = 0; k < c->nm; k++) {
		double ae = m[k].a_start + m[k].a_len, be = m[k].b_start + m[k].b_len;
		if (ta < ae)
			return m[k].b_start +
			       (m[k].a_len > 0 ? (ta - m[k].a_start) / m[k].a_len * m[k].b_len : 0);
		if (k + 1 < c->nm && ta < m[k + 1].a_start) {
			double ga = m[k + 1].a_start - ae, gb = m[k + 1].b_start - be;
			return be + (ga > 0 ? (ta - ae) / ga * gb : 0);
		}
		if (k + 1 == c->nm)
			return ta - ae + be;
	}
	return ta;
}
