/* pcp-metrics.h: what the pcp source records, host by host: the metrics
 * named with -e (pmParseMetricSpec syntax, non-leaf names expanded), those
 * the -g groups map to, and the memory-traffic metrics memtraffic.c chose;
 * each with its descriptor, its instances and its 32-bit unwrapping state
 * (pcp-metrics.c).  pcp.c turns them into streams and reads them.
 *
 *     src_pcp_set set = { 0 };
 *     src_pcp_host *h = src_pcp_metrics_host(&set, "local:", &rc);
 *     if (src_pcp_metrics_add_spec(s, &set, ctx, "kernel.all.load") != 0) fail(s->why);
 *     ...
 *     src_pcp_metrics_free(&set);
 */
#ifndef SRC_PCP_METRICS_H
#define SRC_PCP_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <pcp/pmapi.h>

#include "../memtraffic.h"
#include "pcp-fetch.h"

#define SRC_PCP_MAX_HOSTS 8

typedef struct src_pcp_metric {
	char name[256];
	pmID pmid;
	pmDesc desc;
	uint8_t kind, type;
	int ninst;        /* streams of this metric (1 when singular) */
	int *inst;        /* sorted instance ids, ninst of them (NULL: singular) */
	size_t first;     /* index of its first stream in the source's slice */
	int mem;          /* 1 read / 2 write: summed into mem.*_bytes, no own streams */
	double bytes;
	uint64_t *acc;    /* 32-bit counters: unwrapped values */
	uint32_t *last32;
	uint8_t *seen;
} src_pcp_metric;

typedef struct src_pcp_host {
	char name[256];
	int ctx;
	src_pcp_metric *m;
	int nm, cap;
	pmID *pmids;
	src_pcp_fetch *fetch; /* its fetch thread, from start() */
} src_pcp_host;

/* The hosts of one recording (the default host first). */
typedef struct src_pcp_set {
	src_pcp_host h[SRC_PCP_MAX_HOSTS];
	int nh;
} src_pcp_set;

/* --pcp-host, or "local:". */
const char *src_pcp_metrics_default_host(const rec_ctx *c);
/* Does the local pmcd's configuration run any of these agents (PMDAs)?
 * 1 yes, 0 no, -1 unknown: ask pmcd (pcp-agents.c). */
int src_pcp_local_agents(const char *const *names, size_t n);
/* KEY's value in /etc/pcp.conf into val (pcp-agents.c): 0, -1 when the
 * file does not set it, -2 when it does with a value longer than len. */
int src_pcp_conf_value(const char *key, char *val, size_t len);
/* One line (why/fix) about a pmcd that cannot be reached, as
 * rec_unavailable; clears s->fatal (the recording goes on). */
int src_pcp_metrics_unreachable(rec_source *s, const char *host, int rc);
/* The host's entry, connecting on first use; NULL with *rc (PMAPI error). */
src_pcp_host *src_pcp_metrics_host(src_pcp_set *p, const char *host, int *rc);
/* One -e item: "metric", "metric[i1,i2]", "host:metric", "@host:metric".
 * 0, or -1 with rec_unavailable. */
int src_pcp_metrics_add_spec(rec_source *s, src_pcp_set *p, const rec_ctx *c, const char *spec);
/* The metrics the -g groups mean through this pmcd (see pcp-metrics.c). */
int src_pcp_metrics_add_groups(rec_source *s, src_pcp_set *p, const rec_ctx *c);
/* The memory-traffic metrics, summed into mem.read/write_bytes. */
int src_pcp_metrics_add_mem(rec_source *s, src_pcp_set *p, const rec_ctx *c, const rec_mem_choice *mc);
/* Index of instance id inst among m's instances (0 for a singular metric),
 * -1 if not recorded. */
int src_pcp_metrics_find_inst(const src_pcp_metric *m, int inst);
/* Free the metrics and destroy the contexts (fetch threads stopped first). */
void src_pcp_metrics_free(src_pcp_set *p);

#endif
