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
 * the code regions' rates alone (the same code is the same phase even if a
 * counter wavered), others on every stream.  Leader clustering rather than k-means: the number of classes is
 * not known, the order of first appearance gives stable letters, and it is
 * O(segments x classes x streams).
 */
#include "phase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* code_only: only the streams flagged in code count. */
static double class_dist(size_t d, const double *a, double la, const double *c, double lc,
			 const double *range, const uint8_t *code, int code_only)
{
	double worst = 0, se = 3 * sqrt(1 / (la > 0 ? la : 1) + 1 / (lc > 0 ? lc : 1));
	for (size_t j = 0; j < d; j++) {
		if (range[j] <= 0 || (code_only && !code[j]))
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
	return vw_phase_class_assign_code(nseg, d, mean, len, range, tol, NULL, NULL, cls);
}

int vw_phase_class_assign_code(size_t nseg, size_t d, const double *mean, const double *len,
			       const double *range, double tol, const uint8_t *code,
			       const uint8_t *busy, int *cls)
{
	uint8_t cbusy[4096]; /* per class: its leader was busy (classes past this: not) */
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
			int code_only = code && busy && busy[s] && c < (int)sizeof cbusy && cbusy[c];
			double dist = class_dist(d, a, len[s], cen + (size_t)c * d, clen[c], range, code,
						 code_only);
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
		clen[best] = w;
		cls[s] = best;
	}
	free(cen);
	free(clen);
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
