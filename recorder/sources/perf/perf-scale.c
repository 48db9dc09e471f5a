/* perf-scale.c: perf reads -> counts, corrected for multiplexing as perf
 * stat does (see perf-scale.h). */
#include "perf-scale.h"

double src_perf_task_factor(const uint64_t (*raw)[3], int n)
{
	uint64_t ena = 0, run = 0;
	for (int k = 0; k < n; k++) {
		if (raw[k][0] == UINT64_MAX) /* failed: its times are no times */
			continue;
		ena = raw[k][1] > ena ? raw[k][1] : ena;
		run += raw[k][2];
	}
	return run && (double)run < 0.995 * (double)ena ? (double)ena / (double)run : 1.0;
}

int src_perf_scaled(const uint64_t raw[3], double factor, uint64_t *out)
{
	if (raw[0] == UINT64_MAX)
		return -1;
	double scale = factor > 0 ? factor
				  : (raw[2] && raw[2] < raw[1] ? (double)raw[1] / (double)raw[2] : 1.0);
	if (scale == 1.0) {
		*out = raw[0];
		return 0;
	}
	double v = (double)raw[0] * scale;
	if (!(v < 0x1p64)) /* 2^64: beyond what the counter can hold */
		return -1;
	*out = (uint64_t)v;
	return 0;
}
