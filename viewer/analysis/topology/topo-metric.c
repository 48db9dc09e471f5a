/* topo-metric.c: what can colour the topology view, and its values.
 *
 * A metric is every stream of one name bound to topology objects of the
 * file the topology came from ("core.instructions" on each PU, "gpu.power"
 * on each GPU, "net.rx_bytes" on each NIC), plus IPC, derived per object as
 * instructions / cycles when both exist.  Its value on an object over a time
 * range is the mean of the stream over the range in display units (a rate
 * for counters: instructions/s, B/s, W for energy), then aggregated up the
 * tree (topo-tree.c) by the rule its unit implies.
 *
 *     topo_metrics ms;
 *     topo_metric_list(&ms, m, 0, ntopo);
 *     topo_metric_eval(m, &ms.v[k], &tree, -1, t0, t1, own, agg);
 *     topo_metric_list_free(&ms);
 */
#include "topo-metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"

void topo_metric_list_free(topo_metrics *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].num);
		free(ms->v[i].den);
	}
	free(ms->v);
	memset(ms, 0, sizeof *ms);
}

static int topo_metric_has(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

/* Utilisation, percentages, frequencies, temperatures: a mean.  Counts,
 * bytes, time, energy (all shown as rates, "/s") and power: a sum. */
int topo_metric_agg(const char *name, const char *unit)
{
	static const char *const mean_units[] = {"ratio", "IPC", "C", "°C", "Hz", "MHz", "GHz"};
	size_t ul = strlen(unit);
	if (unit[0] == '%')
		return TOPO_AGG_MEAN;
	for (size_t i = 0; i < sizeof mean_units / sizeof mean_units[0]; i++)
		if (!strcmp(unit, mean_units[i]))
			return TOPO_AGG_MEAN;
	if (ul >= 2 && !strcmp(unit + ul - 2, "/s"))
		return TOPO_AGG_SUM; /* a rate: "ins/s", "B/s", "s/s" (task clock) */
	if (topo_metric_has(name, "util") || topo_metric_has(name, "freq") ||
	    topo_metric_has(name, "temp"))
		return TOPO_AGG_MEAN;
	return TOPO_AGG_SUM;
}

static int topo_metric_push(size_t **v, size_t *n, size_t x)
{
	size_t *p = realloc(*v, (*n + 1) * sizeof *p);
	if (!p)
		return -1;
	p[(*n)++] = x;
	*v = p;
	return 0;
}

static topo_metric *topo_metric_find(topo_metrics *ms, const char *name)
{
	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->v[i].name, name))
			return &ms->v[i];
	return NULL;
}

static topo_metric *topo_metric_add(topo_metrics *ms, const char *name)
{
	topo_metric *v = realloc(ms->v, (ms->n + 1) * sizeof *v);
	if (!v)
		return NULL;
	ms->v = v;
	topo_metric *t = &v[ms->n++];
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	return t;
}

/* "core.instructions" -> "core.cycles": the cycles stream of the same family. */
static void topo_metric_cycles_name(const char *ins, char *buf, size_t len)
{
	const char *dot = strrchr(ins, '.');
	snprintf(buf, len, "%.*scycles", dot ? (int)(dot - ins + 1) : 0, ins);
}

int topo_metric_list(topo_metrics *ms, vw_model *m, size_t file, size_t nobj)
{
	memset(ms, 0, sizeof *ms);
	for (size_t s = 0; s < m->nstreams; s++) {
		const mcz_stream_desc *d = m->streams[s].desc;
		if (m->streams[s].file_index != file || d->topo < 0 || (size_t)d->topo >= nobj)
			continue;
		topo_metric *t = topo_metric_find(ms, d->name);
		if (!t) {
			if (!(t = topo_metric_add(ms, d->name)))
				goto oom;
			vw_model_unit(m, s, t->unit, sizeof t->unit);
			if (!strcmp(t->unit, "J/s")) /* energy as a rate is power */
				snprintf(t->unit, sizeof t->unit, "W");
			t->agg = topo_metric_agg(d->name, t->unit);
			t->estimated = (d->flags & MCZ_SF_ESTIMATED) != 0;
		}
		if (topo_metric_push(&t->num, &t->nnum, s) != 0)
			goto oom;
	}
	/* IPC where instructions and cycles of the same family are both bound */
	size_t n0 = ms->n;
	for (size_t i = 0; i < n0; i++) {
		char cyc[80], ipc[80];
		const char *name = ms->v[i].name;
		size_t len = strlen(name);
		if (len < 12 || strcmp(name + len - 12, "instructions") != 0)
			continue;
		topo_metric_cycles_name(name, cyc, sizeof cyc);
		topo_metric *c = topo_metric_find(ms, cyc);
		if (!c)
			continue;
		snprintf(ipc, sizeof ipc, "%.*sIPC", (int)(len - 12), name);
		size_t ci = (size_t)(c - ms->v);
		topo_metric *t = topo_metric_add(ms, ipc);
		if (!t)
			goto oom;
		snprintf(t->unit, sizeof t->unit, "IPC");
		t->agg = TOPO_AGG_RATIO;
		for (size_t k = 0; k < ms->v[i].nnum; k++)
			if (topo_metric_push(&t->num, &t->nnum, ms->v[i].num[k]) != 0)
				goto oom;
		for (size_t k = 0; k < ms->v[ci].nnum; k++)
			if (topo_metric_push(&t->den, &t->nden, ms->v[ci].num[k]) != 0)
				goto oom;
	}
	return 0;
oom:
	topo_metric_list_free(ms);
	return -1;
}

/* Streams read per pass over the file: each pass decodes the chunks at the
 * range's edges once for all its streams; between passes the frame budget
 * is checked (one pass over a thousand PUs' metrics outlasts a frame). */
#define TOPO_METRIC_BATCH 128

/* Read the streams bound to objects with in[o] set (all when in is NULL)
 * into the model's per-stream cache, in passes of TOPO_METRIC_BATCH; 0 when
 * all are, VW_PENDING when the budget ran out first. */
static int topo_metric_read(vw_model *m, const size_t *ss, size_t n, int64_t t0, int64_t t1,
			    const uint8_t *in)
{
	size_t *want = malloc((n + 1) * sizeof *want), nw = 0;
	if (!want)
		return -1;
	for (size_t k = 0; k < n; k++) {
		if (!in || in[m->streams[ss[k]].desc->topo])
			want[nw++] = ss[k];
		if (nw == TOPO_METRIC_BATCH || (k + 1 == n && nw)) {
			if (vw_model_budget_spent(m)) {
				free(want);
				m->refining = 1;
				return VW_PENDING;
			}
			vw_model_streams_buckets(m, want, nw, t0, t1, 1, NULL, NULL);
			nw = 0;
		}
	}
	free(want);
	return 0;
}

/* Sum of the means of streams bound to each object over [t0, t1), for the
 * objects with in[o] set (all when in is NULL), from the cache. */
static int topo_metric_fill(vw_model *m, const size_t *ss, size_t n, size_t nobj, int64_t t0,
			    int64_t t1, const uint8_t *in, double *own, int *cnt)
{
	for (size_t i = 0; i < nobj; i++)
		own[i] = NAN, cnt[i] = 0;
	for (size_t k = 0; k < n; k++) {
		vw_bucket b;
		int32_t o = m->streams[ss[k]].desc->topo;
		if (in && !in[o])
			continue;
		if (vw_model_stream_buckets(m, ss[k], t0, t1, 1, &b) != 0)
			return -1;
		if (b.count == 0 || isnan(b.mean))
			continue;
		own[o] = cnt[o] ? own[o] + b.mean : b.mean;
		cnt[o]++;
	}
	return 0;
}

int topo_metric_eval(vw_model *m, const topo_metric *mt, const topo_tree *t, int32_t under,
		     int64_t t0, int64_t t1, double *own, double *agg)
{
	size_t n = t->n;
	int *cnt = malloc(n * sizeof *cnt);
	double *den = mt->agg == TOPO_AGG_RATIO ? malloc(n * sizeof *den) : NULL;
	uint8_t *in = under >= 0 && (size_t)under < n ? calloc(n, 1) : NULL;
	int rc = -1;

	if (!cnt || (mt->agg == TOPO_AGG_RATIO && !den) || (under >= 0 && (size_t)under < n && !in))
		goto out;
	if (in) /* the subtree of under: parents come first */
		for (size_t i = (size_t)under; i < n; i++)
			in[i] = (int32_t)i == under || (i > 0 && in[t->objs[i].parent]);
	if (t1 <= t0) {
		for (size_t i = 0; i < n; i++)
			own[i] = agg[i] = NAN;
		rc = 0;
		goto out;
	}
	/* read everything first: a pending read leaves own and agg as they were */
	int r = topo_metric_read(m, mt->num, mt->nnum, t0, t1, in);
	if (r == 0 && den)
		r = topo_metric_read(m, mt->den, mt->nden, t0, t1, in);
	if (r != 0) {
		rc = r;
		goto out;
	}
	if (topo_metric_fill(m, mt->num, mt->nnum, n, t0, t1, in, own, cnt) != 0)
		goto out;
	if (mt->agg == TOPO_AGG_MEAN) /* two streams of one object: their mean */
		for (size_t i = 0; i < n; i++)
			if (cnt[i] > 1)
				own[i] /= cnt[i];
	if (den) {
		if (topo_metric_fill(m, mt->den, mt->nden, n, t0, t1, in, den, cnt) != 0)
			goto out;
		topo_tree_aggregate(t, own, den, TOPO_AGG_RATIO, agg);
		for (size_t i = 0; i < n; i++) /* own IPC, for the panel */
			own[i] = den[i] > 0 ? own[i] / den[i] : NAN;
	} else {
		topo_tree_aggregate(t, own, NULL, mt->agg, agg);
	}
	rc = 0;
out:
	free(cnt);
	free(den);
	free(in);
	return rc;
}
