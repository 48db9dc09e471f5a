/* bucket.c: the arithmetic of mcz_bucket summaries (min, max, sum, count,
 * first and last time), shared by the writer (per-chunk summaries), the
 * index (coarser levels) and the reader (buckets of mcz_summary).
 * SPEC.md "Summaries": a NaN value is counted but takes no part in min,
 * max or sum; a counter's sample contributes its per-second rate to min and
 * max and its delta to sum.
 *
 *     mcz_bucket b;
 *     mcz_bucket_init(&b);
 *     mcz_bucket_add(&b, x, t); b.sum += x;
 *     mcz_bucket_merge(&total, &b);
 *
 * mcz_bucket_add is inline in internal.h (the readers' inner loop).
 */
#include <math.h>

#include "../internal.h"

void mcz_bucket_init(mcz_bucket *b)
{
	b->min = b->max = NAN;
	b->sum = 0;
	b->count = 0;
	b->first = b->last = 0;
}

void mcz_bucket_merge(mcz_bucket *into, const mcz_bucket *from)
{
	if (from->count == 0)
		return;
	if (into->count == 0 || from->first < into->first)
		into->first = from->first;
	if (into->count == 0 || from->last > into->last)
		into->last = from->last;
	into->count += from->count;
	into->sum += from->sum;
	if (!isnan(from->min) && (isnan(into->min) || from->min < into->min))
		into->min = from->min;
	if (!isnan(from->max) && (isnan(into->max) || from->max > into->max))
		into->max = from->max;
}
