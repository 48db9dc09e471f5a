/* wait-row.c: the timeline's "MPI %" row — for the files of a job whose
 * ranks wait in MPI (or in an OpenMP runtime), the share of the job's code
 * samples spent waiting there in each column (codeclass.h), as a
 * sparkline from 0 to 100 %, with the share at the cursor in the readout.
 * Work that turns into waiting shows at a glance where the ranks' code
 * rows all read "dgemm_" or all read "opal_progress".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "draw.h"

int vw_wait_row_wanted(vw_model *m)
{
	uint64_t n[VW_CC_N];
	if (!vw_hotcode_has(m))
		return 0;
	uint64_t all = vw_hotcode_file_classes(m, SIZE_MAX, m->t_min, m->t_max + 1, n);
	return all && (double)(n[VW_CC_MPI] + n[VW_CC_SYNC]) >= 0.01 * (double)all;
}

/* The waiting share (%) of [t0, t1) in nb buckets; NaN where no sample. */
static int wait_row_shares(vw_model *m, int64_t t0, int64_t t1, size_t nb, vw_bucket *b)
{
	uint32_t *cnt = malloc(nb * VW_CC_N * sizeof *cnt);
	if (!cnt || vw_hotcode_file_class_columns(m, SIZE_MAX, t0, t1, nb, cnt)) {
		free(cnt);
		return -1;
	}
	for (size_t k = 0; k < nb; k++) {
		const uint32_t *q = cnt + k * VW_CC_N;
		double all = (double)q[0] + q[1] + q[2];
		double v = all > 0 ? 100 * (double)(q[VW_CC_MPI] + q[VW_CC_SYNC]) / all : NAN;
		b[k] = (vw_bucket){v, v, v, all > 0};
	}
	free(cnt);
	return 0;
}

int vw_wait_row_draw(vw_canvas *c, vw_model *m, int x, int y, int w)
{
	size_t nb = vw_spark_buckets(c, w);
	vw_bucket *b = malloc((nb ? nb : 1) * sizeof *b);
	if (!b || w <= 0 || wait_row_shares(m, m->t0, m->t1, nb, b)) {
		free(b);
		return -1;
	}
	vw_spark_draw(c, x, y, w, 1, b, nb, 0, 100, VW_C_SERIES0 + 5);
	free(b);
	return 0;
}

int vw_wait_row_at(vw_model *m, int64_t t, char *buf, size_t len)
{
	int64_t iv = vw_hotcode_interval(m);
	vw_bucket b;
	buf[0] = '\0';
	if (iv <= 0 || iv > 1000000000000LL || wait_row_shares(m, t - iv / 2, t + iv - iv / 2, 1, &b) ||
	    !b.count)
		return -1;
	snprintf(buf, len, "%.0f%%", b.mean);
	return 0;
}
