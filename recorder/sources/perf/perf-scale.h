/* perf-scale.h: perf reads -> counts.  A perf counter read gives its value,
 * time enabled and time running; when the kernel multiplexes counters the
 * value is an estimate, value x enabled / running, as perf stat prints it.
 * A read that failed is all UINT64_MAX and counts as no reading. */
#ifndef MCZ_REC_PERF_SCALE_H
#define MCZ_REC_PERF_SCALE_H

#include <stdint.h>

/* The common factor of one event counted on n fds, one per CPU, for one task:
 * the per-CPU counter is enabled whenever the task runs anywhere but running
 * only while it runs on that CPU, so the sum of running times is what must
 * match enabled; only its shortfall is multiplexing.  Failed reads are left
 * out.  1 when nothing was multiplexed (or nothing read). */
double src_perf_task_factor(const uint64_t (*raw)[3], int n);

/* One fd's count: raw value x factor, or, with factor 0, x enabled / running
 * of that fd alone (system-wide and uncore counters).  Returns 0 and sets
 * *out, or -1 when there is no reading: the read failed, or the estimate
 * does not fit 64 bits (a counter that ran a few ns of a long interval). */
int src_perf_scaled(const uint64_t raw[3], double factor, uint64_t *out);

#endif
