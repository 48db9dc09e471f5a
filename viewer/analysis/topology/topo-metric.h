/* topo-metric.h: what colours the topology view (topo-metric.c): metrics
 * made of the streams bound to topology objects, and their values per object
 * over a time range, read through the viewer's model and aggregated up the
 * tree (topo.h).
 *
 *     topo_metrics ms;
 *     topo_metric_list(&ms, m, 0, ntopo);
 *     topo_metric_eval(m, &ms.v[k], &tree, -1, t0, t1, own, agg);
 *     topo_metric_list_free(&ms);
 */
#ifndef VW_TOPO_METRIC_H
#define VW_TOPO_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "topo.h"

struct vw_model;

typedef struct topo_metric {
	char name[80];   /* stream name, or "core.IPC" */
	char unit[24];   /* display unit: "ins/s", "B/s", "%", "W", "IPC" */
	int agg;         /* enum topo_agg */
	int estimated;   /* the streams are estimates (MCZ_SF_ESTIMATED) */
	size_t *num;     /* model stream indexes */
	size_t nnum;
	size_t *den;     /* RATIO: the denominator's streams */
	size_t nden;
} topo_metric;

typedef struct topo_metrics {
	topo_metric *v;
	size_t n;
} topo_metrics;

/* Metrics of the streams of `file` bound to objects [0, nobj).  -1: no memory. */
int topo_metric_list(topo_metrics *ms, struct vw_model *m, size_t file, size_t nobj);
void topo_metric_list_free(topo_metrics *ms);
/* Aggregation rule for a stream name and display unit. */
int topo_metric_agg(const char *name, const char *unit);
/* own[i]: value bound to object i over [t0, t1) (NaN none); agg[i]: aggregated.
 * under >= 0 reads only the streams bound in that object's subtree (agg is
 * then right at under and below it, NaN or partial elsewhere): the side
 * panel's other metrics cost one object's streams, not the machine's.
 * Returns 0, -1, or VW_PENDING when the model's frame budget ran out while
 * reading (own and agg untouched; the streams read so far are kept by the
 * model, so the next call goes on from there). */
int topo_metric_eval(struct vw_model *m, const topo_metric *mt, const topo_tree *t,
		     int32_t under, int64_t t0, int64_t t1, double *own, double *agg);

#endif
