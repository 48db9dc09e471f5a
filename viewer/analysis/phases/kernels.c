/* kernels.c: which Kokkos kernel ran when (kernels.h).  The kernel marks
 * cut the run into spans, each of one label (or none); a label's time in a
 * span of interest is the overlap of its spans with it.  Labels are ranked
 * once per call by their time over the whole run, so that a label keeps its
 * letter and colour whatever the window. */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

/* The span of mark k: [its time, the next's), the last to the run's end. */
static void kernels_span(const vw_model *m, size_t k, int64_t *a, int64_t *b)
{
	*a = m->kmarks[k].t;
	*b = k + 1 < m->nkmarks ? m->kmarks[k + 1].t : m->t_max + 1;
}

static int64_t kernels_overlap(int64_t a, int64_t b, int64_t t0, int64_t t1)
{
	int64_t lo = a > t0 ? a : t0, hi = b < t1 ? b : t1;
	return hi > lo ? hi - lo : 0;
}

/* The run's labels, longest first: lab[0..n), their marks' label index in
 * of[] (-1 none or past VW_KERNELS_MAX).  of has nkmarks entries. */
static size_t kernels_rank(const vw_model *m, const char **lab, int *of)
{
	int64_t ns[VW_KERNELS_MAX] = {0};
	size_t n = 0;
	for (size_t k = 0; k < m->nkmarks; k++) {
		const char *t = m->kmarks[k].text;
		of[k] = -1;
		if (!t || !*t)
			continue;
		size_t i = 0;
		while (i < n && strcmp(lab[i], t))
			i++;
		if (i == n && n < VW_KERNELS_MAX)
			lab[n++] = t;
		if (i < n) {
			int64_t a, b;
			kernels_span(m, k, &a, &b);
			ns[i] += b > a ? b - a : 0;
			of[k] = (int)i;
		}
	}
	/* longest first (insertion: a few dozen labels) */
	int perm[VW_KERNELS_MAX], inv[VW_KERNELS_MAX];
	for (size_t i = 0; i < n; i++)
		perm[i] = (int)i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ns[perm[j]] > ns[perm[j - 1]]; j--) {
			int x = perm[j];
			perm[j] = perm[j - 1];
			perm[j - 1] = x;
		}
	const char *sorted[VW_KERNELS_MAX];
	for (size_t i = 0; i < n; i++)
		sorted[i] = lab[perm[i]], inv[perm[i]] = (int)i;
	memcpy(lab, sorted, n * sizeof *lab);
	for (size_t k = 0; k < m->nkmarks; k++)
		if (of[k] >= 0)
			of[k] = inv[of[k]];
	return n;
}

int vw_kernels_has(const vw_model *m)
{
	for (size_t k = 0; k < m->nkmarks; k++)
		if (m->kmarks[k].text && m->kmarks[k].text[0])
			return 1;
	return 0;
}

size_t vw_kernels_top(const vw_model *m, int64_t t0, int64_t t1, vw_kernel_top *out, size_t max)
{
	const char *lab[VW_KERNELS_MAX];
	int *of = malloc((m->nkmarks ? m->nkmarks : 1) * sizeof *of);
	if (!of || t1 <= t0)
		return free(of), 0;
	size_t nl = kernels_rank(m, lab, of);
	int64_t ns[VW_KERNELS_MAX] = {0};
	for (size_t k = 0; k < m->nkmarks; k++) {
		int64_t a, b;
		kernels_span(m, k, &a, &b);
		if (of[k] >= 0)
			ns[of[k]] += kernels_overlap(a, b, t0, t1);
	}
	free(of);
	size_t n = 0;
	for (size_t i = 0; i < nl; i++) { /* by time in the span, longest first */
		if (!ns[i])
			continue;
		size_t j = n < max ? n++ : max;
		if (j == max && (max == 0 || ns[i] <= out[max - 1].ns))
			continue;
		if (j == max)
			j = max - 1;
		while (j > 0 && out[j - 1].ns < ns[i]) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = (vw_kernel_top){i, lab[i], (double)ns[i] / (double)(t1 - t0), ns[i]};
	}
	return n;
}

int vw_kernels_columns(const vw_model *m, int64_t t0, int64_t t1, size_t w, int *idx, double *share)
{
	const char *lab[VW_KERNELS_MAX];
	int *of = malloc((m->nkmarks ? m->nkmarks : 1) * sizeof *of);
	if (!of || !w || t1 <= t0 || !m->nkmarks)
		return free(of), -1;
	kernels_rank(m, lab, of);
	size_t k = 0;
	for (size_t c = 0; c < w; c++) {
		int64_t c0 = t0 + (int64_t)((double)(t1 - t0) * (double)c / (double)w);
		int64_t c1 = t0 + (int64_t)((double)(t1 - t0) * (double)(c + 1) / (double)w);
		int64_t ns[VW_KERNELS_MAX] = {0}, a, b;
		while (k + 1 < m->nkmarks && m->kmarks[k + 1].t <= c0)
			k++; /* the span that holds c0, or the first */
		for (size_t j = k; j < m->nkmarks; j++) {
			kernels_span(m, j, &a, &b);
			if (a >= c1)
				break;
			if (of[j] >= 0)
				ns[of[j]] += kernels_overlap(a, b, c0, c1);
		}
		int best = -1;
		for (int i = 0; i < VW_KERNELS_MAX; i++)
			if (ns[i] && (best < 0 || ns[i] > ns[best]))
				best = i;
		idx[c] = best;
		if (share)
			share[c] = best >= 0 && c1 > c0 ? (double)ns[best] / (double)(c1 - c0) : 0;
	}
	free(of);
	return 0;
}

const char *vw_kernels_label(const vw_model *m, size_t idx)
{
	const char *lab[VW_KERNELS_MAX];
	int *of = malloc((m->nkmarks ? m->nkmarks : 1) * sizeof *of);
	if (!of)
		return "";
	size_t n = kernels_rank(m, lab, of);
	free(of);
	return idx < n ? lab[idx] : "";
}

const char *vw_kernels_at(const vw_model *m, int64_t t)
{
	const char *at = NULL;
	for (size_t k = 0; k < m->nkmarks && m->kmarks[k].t <= t; k++)
		at = m->kmarks[k].text;
	return at && *at && t <= m->t_max ? at : NULL;
}
