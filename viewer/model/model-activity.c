/* model-activity.c: how much each stream varies, and how a group of streams
 * adds up — what the timeline orders and labels its rows by.
 *
 * The activity score is read from the file's summaries alone: each file is
 * cut into at most 64 buckets, each wider than its chunks, so that the
 * index's per-chunk min/max/sum/count answer (mcz_summary_multi, nothing
 * decoded).  Loading those summaries is the cost, one per chunk: a small
 * recording is scored when it opens; a large one (a 10^9-value recording
 * has a million) over its first frames, in batches of a few ms
 * (model-rows.c), so that opening it stays instant.  A stream whose
 * every value is the same (min = max everywhere), or that has no value, is
 * constant: score 0.  Any other stream gets a score in (0, 1]: an upper
 * bound of its standard deviation over its typical magnitude, where each
 * bucket contributes
 *
 *     (mean - min) x (max - mean)      the most variance values in [min, max]
 *                                      with that mean can have (Bhatia-Davis)
 *   + (mean - median of bucket means)^2   the variation between buckets
 *
 * the highest tenth of the contributions dropped (a few spikes do not make
 * a quiet stream busy), and the typical magnitude is the median over the
 * buckets of max(|min|, |max|).  So a stream that swings across its range
 * scores near 0.5, one that stays within a percent of its level scores
 * 0.005, and one that is 0 but for a rare spike scores low.
 *
 *     double a = vw_activity_score(buckets, n);     // 0: constant
 *     vw_rule r = vw_model_rule(desc);              // VW_RULE_SUM or _AVG
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model-int.h"

/* Buckets over a file for the score: at most this many, and at most half
 * the chunks, so each is wider than a chunk and the index answers. */
#define ACT_BUCKETS 64
/* Streams asked of mcz_summary_multi at once (bounds the buckets held),
 * and about how many chunk summaries a batch reads: loading them is what
 * costs, and a batch stays within a frame's budget (bench-view.sh). */
#define ACT_BATCH 2048
#define ACT_ENTRIES 32768
/* What a stream costs beyond its chunk summaries, in summaries; what a
 * chunk decoded costs, in summaries. */
#define ACT_STREAM_COST 8
#define ACT_DECODE_COST 64
/* The score of a stream that varies, however little. */
#define ACT_MIN 1e-12

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double vw_activity_score(const vw_bucket *b, size_t n)
{
	double *lo = malloc((n ? n : 1) * 4 * sizeof *lo);
	if (!lo)
		return ACT_MIN;
	double *hi = lo + n, *mu = hi + n, *t = mu + n;
	size_t k = 0;
	double gmin = NAN, gmax = NAN;
	for (size_t i = 0; i < n; i++) {
		if (b[i].count == 0 || isnan(b[i].min) || isnan(b[i].max))
			continue;
		double mean = isnan(b[i].mean) ? (b[i].min + b[i].max) / 2 : b[i].mean;
		/* a counter's mean rate spans the bucket's intervals, its min and
		 * max single intervals: keep the mean inside them */
		mean = mean < b[i].min ? b[i].min : mean > b[i].max ? b[i].max : mean;
		lo[k] = b[i].min;
		hi[k] = b[i].max;
		mu[k] = mean;
		gmin = k == 0 || b[i].min < gmin ? b[i].min : gmin;
		gmax = k == 0 || b[i].max > gmax ? b[i].max : gmax;
		k++;
	}
	if (k == 0 || gmin == gmax) {
		free(lo);
		return 0;
	}
	for (size_t i = 0; i < k; i++)
		t[i] = fmax(fabs(lo[i]), fabs(hi[i]));
	double scale = median(t, k);
	if (!(scale > 0))
		scale = fmax(fabs(gmin), fabs(gmax));
	memcpy(t, mu, k * sizeof *t);
	double med = median(t, k);
	for (size_t i = 0; i < k; i++)
		t[i] = (mu[i] - lo[i]) * (hi[i] - mu[i]) + (mu[i] - med) * (mu[i] - med);
	qsort(t, k, sizeof *t, cmp_dbl);
	size_t keep = k - k / 10;
	double var = 0;
	for (size_t i = 0; i < keep; i++)
		var += t[i];
	var /= (double)keep;
	free(lo);
	double s = sqrt(var) / scale;
	return !(s > ACT_MIN) ? ACT_MIN : s > 1 ? 1 : s;
}

/* Streams of a file are consecutive in m->streams (model.c collect): the
 * batch from stream s is the next streams of its file, about ACT_ENTRIES
 * chunk summaries in all (a piece of a frame's work). */
/* A stream's cost in chunk summaries read from the index; a file opened
 * without its index (recovered) has its summaries computed by decoding its
 * chunks, at about ACT_DECODE_COST summaries' worth each. */
static size_t stream_cost(const mcz_file_info *fi)
{
	return (size_t)fi->nchunks * (fi->recovered ? ACT_DECODE_COST : 1) + ACT_STREAM_COST;
}

static size_t batch_end(const vw_model *m, size_t s)
{
	size_t per = stream_cost(mcz_info(m->streams[s].file)), max = ACT_ENTRIES / per, e = s;
	max = max < 1 ? 1 : max > ACT_BATCH ? ACT_BATCH : max;
	while (e < m->nstreams && m->streams[e].file == m->streams[s].file && e - s < max)
		e++;
	return e;
}

size_t vw_model_activity_cost(const vw_model *m)
{
	size_t cost = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		cost += mcz_stream_count(m->files[f]) * stream_cost(mcz_info(m->files[f]));
	return cost;
}

int vw_model_activity_step(vw_model *m, double *act, size_t *next)
{
	if (*next >= m->nstreams)
		return 1;
	size_t s = *next, e = batch_end(m, s);
	mcz_reader *r = m->streams[s].file;
	const mcz_file_info *fi = mcz_info(r);
	size_t nb = fi->nchunks / 2;
	nb = nb < 1 ? 1 : nb > ACT_BUCKETS ? ACT_BUCKETS : nb;
	vw_bucket conv[ACT_BUCKETS];
	mcz_bucket *raw = malloc((e - s) * nb * sizeof *raw);
	uint32_t *ids = malloc((e - s) * sizeof *ids);
	for (size_t j = s; j < e; j++)
		act[j] = 0;
	for (size_t j = s; ids && j < e; j++)
		ids[j - s] = m->streams[j].id;
	/* a file without rows, or whose index cannot answer: no values */
	if (raw && ids && fi->nrows > 0 &&
	    mcz_summary_multi(r, ids, e - s, fi->t_first, fi->t_last + 1, nb, raw) == MCZ_OK)
		for (size_t j = s; j < e; j++) {
			uint64_t count = 0;
			for (size_t i = 0; i < nb; i++) {
				vw_model_bucket_convert(m->streams[j].desc, &raw[(j - s) * nb + i],
							&conv[i]);
				count += conv[i].count;
			}
			/* present in a tenth of the rows: a tenth as active */
			double cover = (double)count / (double)fi->nrows;
			double a = vw_activity_score(conv, nb) * (cover < 1 ? cover : 1);
			act[j] = a > 0 && a < ACT_MIN ? ACT_MIN : a;
		}
	else if (fi->nrows > 0)
		for (size_t j = s; j < e; j++)
			act[j] = ACT_MIN; /* unknown (no memory, a damaged chunk): not folded */
	/* in a large file the reader gives back the summaries it read for
	 * this batch (the model keeps its own copies of those it draws) */
	if (ids && vw_model_sums_large(m, r))
		for (size_t j = s; j < e; j++)
			mcz_query_sums_release(r, ids[j - s]);
	free(raw);
	free(ids);
	*next = e;
	return e >= m->nstreams;
}

double *vw_model_activity_all(vw_model *m)
{
	double *act = calloc(m->nstreams + 1, sizeof *act);
	size_t next = 0;
	if (!act)
		return NULL;
	if (m->act) {
		memcpy(act, m->act, m->act_next * sizeof *act);
		next = m->act_next;
	}
	while (!vw_model_activity_step(m, act, &next))
		;
	return act;
}

/* Does unit (lower case compared) name one of words, NULL-terminated? */
static int unit_is(const char *unit, const char *const *words)
{
	for (; *words; words++)
		if (strcasecmp(unit, *words) == 0)
			return 1;
	return 0;
}

vw_rule vw_model_rule(const mcz_stream_desc *d)
{
	static const char *const intensive[] = {
		"Hz", "C", "degC", "celsius", "K", "kelvin", "V", "volt", "volts",
		"ratio", "fraction", "util", "utilization", "utilisation", "percent", "load",
		"rpm", NULL,
	};
	const char *u = d->unit ? d->unit : "";
	if (strchr(u, '%') || strstr(u, "\xc2\xb0") /* ° */ || unit_is(u, intensive))
		return VW_RULE_AVG;
	const char *slash = strchr(u, '/');
	if (slash) /* a rate (per second) adds up as its quantity; a ratio averages */
		return strcmp(slash + 1, "s") == 0 ? VW_RULE_SUM : VW_RULE_AVG;
	if (d->kind == MCZ_COUNTER) /* shown as a rate: bytes/s, events/s, busy s/s */
		return VW_RULE_SUM;
	/* gauges: amounts (bytes, joules, watts, counts of things) add up; a
	 * duration (latency, uptime) or a unitless level (load, a pid) does not */
	if (!*u || strcmp(u, "-") == 0 || strcmp(u, "1") == 0 || strcmp(u, "s") == 0 ||
	    strcmp(u, "ns") == 0)
		return VW_RULE_AVG;
	return VW_RULE_SUM;
}
