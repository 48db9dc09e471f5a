/* phase-class.c: grouping detected segments into phase classes (A B A B C).
 *
 * A run that repeats a step (VMC, DMC, VMC; resort, FFT, all-to-all, resort,
 * FFT, ...) should show repeated letters.  Segments are taken in time order;
 * each joins the nearest existing class whose length-weighted centroid is
 * within tolerance on every stream, else opens a new class.  The distance
 * on stream j is the level difference minus what noise explains (three
 * standard errors of the two means, noise being 1 in these units), as a
 * fraction of the stream's range over the run; streams whose range is 0 are
 * ignored.  With a code profile, two segments where code ran compare on
 * where it ran alone — the shares of the code regions, at most tol apart
 * in total variation — so the same code is the same phase even if a
 * counter wavered; other segments compare on every stream.  Leader clustering rather than k-means: the number of classes is
 * not known, the order of first appearance gives stable letters, and it is
 * O(segments x classes x streams).
 */
#include "phase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* How far apart two code distributions are: half the sum of the share
 * differences over the code streams (0 same, 1 nothing in common), from
 * their raw rates (threads). */
static double class_code_dist(size_t d, const double *a, const double *c, const uint8_t *code)
{
	double sa = 0, sc = 0, tv = 0;
	for (size_t j = 0; j < d; j++)
		if (code[j])
			sa += fmax(a[j], 0), sc += fmax(c[j], 0);
	if (sa <= 0 || sc <= 0)
		return 1;
	for (size_t j = 0; j < d; j++)
		if (code[j])
			tv += fabs(fmax(a[j], 0) / sa - fmax(c[j], 0) / sc);
	return tv / 2;
}

static double class_dist(size_t d, const double *a, double la, const double *c, double lc,
			 const double *range)
{
	double worst = 0, se = 3 * sqrt(1 / (la > 0 ? la : 1) + 1 / (lc > 0 ? lc : 1));
	for (size_t j = 0; j < d; j++) {
		if (range[j] <= 0)
			continue;
		double diff = fabs(a[j] - c[j]) - se;
		if (diff / range[j] > worst)
			worst = diff / range[j];
	}
	return worst;
}

int vw_phase_class_assign(size_t nseg, size_t d, const double *mean, const double *len,
			  const double *range, double tol, int *cls)
{
	return vw_phase_class_assign_code(nseg, d, mean, len, range, tol, NULL, NULL, NULL, cls);
}

int vw_phase_class_assign_code(size_t nseg, size_t d, const double *mean, const double *len,
			       const double *range, double tol, const uint8_t *code,
			       const uint8_t *busy, const double *raw, int *cls)
{
	uint8_t cbusy[4096]; /* per class: its leader was busy (classes past this: not) */
	double *craw = raw ? calloc(nseg * d + 1, sizeof *craw) : NULL; /* raw centroids */
	if (raw && !craw)
		return -1;
	double *cen = malloc((nseg * d + 1) * sizeof *cen), *clen = malloc((nseg + 1) * sizeof *clen);
	if (!cen || !clen) {
		free(cen);
		free(clen);
		return -1;
	}
	int nc = 0;
	for (size_t s = 0; s < nseg; s++) {
		const double *a = mean + s * d;
		int best = -1;
		double bd = INFINITY;
		for (int c = 0; c < nc; c++) {
			int code_only = craw && code && busy && busy[s] && c < (int)sizeof cbusy && cbusy[c];
			double dist = code_only ? class_code_dist(d, raw + s * d, craw + (size_t)c * d, code)
						: class_dist(d, a, len[s], cen + (size_t)c * d, clen[c], range);
			if (dist <= tol && dist < bd) {
				bd = dist;
				best = c;
			}
		}
		if (best < 0) {
			best = nc++;
			if (best < (int)sizeof cbusy)
				cbusy[best] = busy ? busy[s] : 0;
			clen[best] = 0;
			for (size_t j = 0; j < d; j++)
				cen[(size_t)best * d + j] = 0;
		}
		double *c = cen + (size_t)best * d, w = clen[best] + len[s];
		for (size_t j = 0; j < d && w > 0; j++)
			c[j] = (c[j] * clen[best] + a[j] * len[s]) / w;
		for (size_t j = 0; craw && j < d && w > 0; j++) {
			double *r = craw + (size_t)best * d;
			r[j] = (r[j] * clen[best] + raw[s * d + j] * len[s]) / w;
		}
		clen[best] = w;
		cls[s] = best;
	}
	free(cen);
	free(clen);
	free(craw);
	return nc;
}

const char *vw_phase_class_name(int cls, char *buf, size_t len)
{
	if (cls < 0)
		snprintf(buf, len, "-");
	else if (cls < 26)
		snprintf(buf, len, "%c", 'A' + cls);
	else
		snprintf(buf, len, "%c%c", 'A' + (cls / 26 - 1) % 26, 'A' + cls % 26);
	return buf;
}
