/* pcp.c: the `pcp` source, metrics of a local or remote pmcd through libpcp's
 * PMAPI host context: `-e pcp:kernel.percpu.cpu.user`,
 * `-e pcp@node7:network.interface.in.bytes`, `--pcp-host node7`, and the PCP
 * instance syntax `pcp:kernel.all.load[1 minute]` (pmParseMetricSpec, as
 * pmval).  A name that is not a leaf (`pcp:network.interface`) takes every
 * metric below it.
 *
 * Every instance of a metric's instance domain becomes its own stream, bound
 * to the topology object the instance names (cpu3 -> PU 3, eth0 -> its NIC).
 * Counter/gauge and the SI unit and scale come from the descriptor through
 * pcp_metric_kind_of() (format/pcp/pcp.h), the archive importer's own
 * mapping, so a live recording and an imported pmlogger archive agree;
 * which metrics of which hosts is pcp-metrics.c's business.  Each tick is
 * one pmFetch per host, on a fetch thread per host with a deadline
 * (pcp-fetch.c).  32-bit PCP counters are unwrapped into 64-bit ones, since
 * mcz counters wrap at 2^64 only; float/double counters are kept as gauges
 * of their cumulative value (rounding them into a U64 counter lost the
 * fractions of a seconds counter).
 *
 * This is also the unprivileged path to memory traffic: when
 * rec_memtraffic_choose() picks pmcd's perfevent.hwcounters, this source
 * emits mem.read_bytes / mem.write_bytes as the sum of those metrics over
 * all their instances, times the bytes per count.
 *
 * A pmcd that is down or a host that does not resolve makes the source
 * unavailable with one line, not the recording: other sources keep going.
 * pmFetch is a round trip to pmcd (about 0.1-0.3 ms locally): a tick waits
 * for it at most half the interval (50 ms at most); a later answer is
 * dropped and that tick's pcp values are missing, so a slow remote pmcd
 * never delays the other sources.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "../../../format/pcp/pcp.h"
#include "../memtraffic.h"
#include "../mcsrc.h"
#include "pcp-fetch.h"
#include "pcp-metrics.h"

typedef struct pcp_priv {
	src_pcp_set hs;      /* hosts and their metrics (pcp-metrics.c) */
	size_t n;            /* streams */
	int mem_on;          /* mem.read_bytes, mem.write_bytes are the last two */
	double mem_sum[2];
	int mem_bad[2];
	int64_t budget_ns;   /* how long a tick waits for pmcd */
} pcp_priv;

static int pcp_probe(rec_source *s, const rec_ctx *c)
{
	pcp_priv *p = calloc(1, sizeof *p);
	const char *host = src_pcp_metrics_default_host(c);
	int rc;

	if (!p)
		return rec_unavailable(s, "out of memory", "");
	if (src_mcsrc_node_only(s, c) != 0) {
		free(p);
		return -1;
	}
	s->priv = p;
	/* Nothing named for it, and the local pmcd runs none of the agents
	 * its defaults come from: nothing to record, and no need to load
	 * libpcp to know it (pcp-agents.c) */
	static const char *const dflt[] = {"perfevent", "nvidia", "denki"};
	if (!c->events && !c->pcp_host && !c->listing && !getenv("MCREC_PCP_MEM_METRICS") &&
	    src_pcp_local_agents(dflt, sizeof dflt / sizeof dflt[0]) == 0) {
		free(p);
		s->priv = NULL;
		s->absent = 1;
		return rec_unavailable(s, "nothing to record by default: the local pmcd runs "
				       "none of the perfevent, nvidia and denki agents",
				       "name metrics with -e pcp:METRIC (pminfo lists them)");
	}
	/* Named hosts of -e pcp@host:... are reached in streams(); the
	 * default host must answer for the source to be available. */
	if (!src_pcp_metrics_host(&p->hs, host, &rc)) {
		free(p);
		s->priv = NULL;
		/* no pmcd here and none asked for: say so in --list only */
		s->absent = !c->events && !c->pcp_host;
		return src_pcp_metrics_unreachable(s, host, rc);
	}
	return 0;
}

static int pcp_declare(rec_source *s, pcp_priv *p, const rec_ctx *c, src_pcp_host *h, src_pcp_metric *m,
		       rec_streams *out)
{
	char native[300], note[320], inst[128];
	pcp_metric_kind mk;
	int pu;

	m->first = p->n;
	if (m->mem)
		return 0;
	if (strcmp(h->name, "local:") == 0)
		src_mcsrc_fmt(native, sizeof native, "pcp:%s", m->name);
	else
		src_mcsrc_fmt(native, sizeof native, "pcp@%s:%s", h->name, m->name);
	pcp_metric_kind_of(&m->desc, &mk);
	/* "pcp: Kbyte, counter, U64; pmcd local:", as the importer's note */
	src_mcsrc_fmt(note, sizeof note, "%s; pmcd %s", mk.note, h->name);
	for (int k = 0; k < m->ninst; k++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		char *iname = NULL;

		inst[0] = '\0';
		if (m->inst) {
			pmUseContext(h->ctx);
			if (pmNameInDom(m->desc.indom, m->inst[k], &iname) >= 0)
				snprintf(inst, sizeof inst, "%s", iname);
			free(iname);
		}
		d.kind = mk.kind;
		d.type = mk.type;
		d.scale = mk.scale;
		d.name = m->name;
		d.source = "pcp";
		d.native = native;
		d.unit = mk.unit;
		d.note = note;
		d.instance = inst;
		d.flags = pcp_topo_of(m->name, inst, &pu) == MCZ_TOPO_PU ? MCZ_SF_PERCPU : 0;
		/* another host's cpu3 is not our PU 3 */
		d.topo = strcmp(h->name, "local:") == 0 ? src_pcp_desc_topo(c, m->name, inst) : -1;
		if (rec_streams_add(out, &d) != 0)
			return rec_unavailable(s, "out of memory", "");
		p->n++;
	}
	return 0;
}

static int pcp_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	pcp_priv *p = s->priv;
	/* the memory-traffic decision costs a pmcd query and perf probes:
	 * only when the mem group is wanted */
	const rec_mem_choice *mc = (c->groups & REC_G_MEM) ? rec_memtraffic_choose(c) : NULL;

	s->on_request = "streams chosen with -e pcp:METRIC or pcp@HOST:METRIC "
			"(pminfo lists pmcd's metrics)";

	for (const char *const *e = c->events; e && *e; e++)
		if (src_pcp_metrics_add_spec(s, &p->hs, c, *e) != 0)
			return -1;
	if (!c->events && src_pcp_metrics_add_groups(s, &p->hs, c) != 0)
		return -1;
	if (mc && mc->path == REC_MEM_PCP) {
		if (src_pcp_metrics_add_mem(s, &p->hs, c, mc) != 0)
			return -1;
		p->mem_on = 1;
	} else if (mc) {
		/* --list shows the memory-traffic decision here too */
		src_mcsrc_fmt(s->why, sizeof s->why, "%s", mc->why);
	}
	for (int i = 0; i < p->hs.nh; i++) {
		src_pcp_host *h = &p->hs.h[i];
		if (h->nm && !(h->pmids = calloc((size_t)h->nm, sizeof *h->pmids)))
			return rec_unavailable(s, "out of memory", "");
		for (int j = 0; j < h->nm; j++) {
			h->pmids[j] = h->m[j].pmid;
			if (pcp_declare(s, p, c, h, &h->m[j], out) != 0)
				return -1;
		}
	}
	for (int w = 0; p->mem_on && w < 2; w++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		char native[512] = "pcp:";
		for (int i = 0; i < mc->npcp; i++)
			if (mc->pcp[i].write == w && strlen(native) + strlen(mc->pcp[i].name) + 2 < sizeof native)
				src_mcsrc_fmt(native + strlen(native), sizeof native - strlen(native), "%s%s",
					      native[4] ? "+" : "", mc->pcp[i].name);
		d.name = w ? "mem.write_bytes" : "mem.read_bytes";
		d.source = "pcp";
		d.native = native;
		d.unit = "B";
		d.note = mc->note;
		d.kind = MCZ_COUNTER;
		d.type = MCZ_U64;
		d.flags = MCZ_SF_DERIVED;
		d.topo = c->topo_machine ? c->topo_machine() : -1;
		if (rec_streams_add(out, &d) != 0)
			return rec_unavailable(s, "out of memory", "");
		p->n++;
	}
	return 0;
}

/* The value of one instance as the stream stores it. */
static int pcp_value(src_pcp_metric *m, int k, int valfmt, const pmValue *pv, mcz_value *out)
{
	pmAtomValue a;
	int t = m->desc.type;

	if (m->kind == MCZ_COUNTER && (t == PM_TYPE_32 || t == PM_TYPE_U32)) {
		if (pmExtractValue(valfmt, pv, t, &a, PM_TYPE_U32) < 0)
			return -1;
		if (m->seen[k])
			m->acc[k] += (uint32_t)(a.ul - m->last32[k]);
		else
			m->acc[k] = a.ul;
		m->last32[k] = a.ul;
		m->seen[k] = 1;
		out->u = m->acc[k];
		return 0;
	}
	switch (m->type) {
	case MCZ_U64:
		if (pmExtractValue(valfmt, pv, t, &a, PM_TYPE_U64) < 0)
			return -1;
		out->u = a.ull;
		return 0;
	case MCZ_I64:
		if (pmExtractValue(valfmt, pv, t, &a, PM_TYPE_64) < 0)
			return -1;
		out->i = a.ll;
		return 0;
	default:
		if (pmExtractValue(valfmt, pv, t, &a, PM_TYPE_DOUBLE) < 0)
			return -1;
		out->f = a.d;
		return 0;
	}
}

/* Each tick asks every host at once, then waits for their answers until
 * the tick's budget is spent (half the interval, at most 50 ms): a slow or
 * vanished pmcd costs missing values, never a late tick.  pmFetch allocates
 * its result inside libpcp (no caller-buffer variant), on the fetch thread. */
static int pcp_start(rec_source *s, const rec_ctx *c)
{
	pcp_priv *p = s->priv;

	p->budget_ns = c->interval_ns > 0 ? c->interval_ns / 2 : 50000000;
	if (p->budget_ns > 50000000)
		p->budget_ns = 50000000;
	for (int i = 0; i < p->hs.nh; i++)
		if (p->hs.h[i].nm && src_pcp_fetch_start(&p->hs.h[i].fetch, p->hs.h[i].ctx, p->hs.h[i].nm, p->hs.h[i].pmids) != 0)
			return rec_unavailable(s, "cannot start the pcp fetch thread", "");
	return 0;
}

static void pcp_take(pcp_priv *p, src_pcp_host *h, pmResult *res, mcz_value *v, uint8_t *present)
{
	for (int j = 0; j < res->numpmid && j < h->nm; j++) {
		src_pcp_metric *m = &h->m[j];
		pmValueSet *vs = res->vset[j];
		if (m->mem && vs->numval <= 0)
			p->mem_bad[m->mem - 1] = 1;
		for (int q = 0; q < vs->numval; q++) {
			int k = src_pcp_metrics_find_inst(m, vs->vlist[q].inst);
			mcz_value val;
			if (k < 0 || pcp_value(m, k, vs->valfmt, &vs->vlist[q], &val) != 0)
				continue;
			if (m->mem) {
				p->mem_sum[m->mem - 1] += (double)val.u * m->bytes;
				continue;
			}
			v[m->first + (size_t)k] = val;
			present[m->first + (size_t)k] = 1;
		}
	}
}

static int pcp_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	pcp_priv *p = s->priv;
	int64_t deadline = src_mcsrc_now_ns() + p->budget_ns;

	memset(present, 0, p->n);
	p->mem_sum[0] = p->mem_sum[1] = 0;
	p->mem_bad[0] = p->mem_bad[1] = 0;
	for (int i = 0; i < p->hs.nh; i++)
		if (p->hs.h[i].fetch)
			src_pcp_fetch_request(p->hs.h[i].fetch);
	for (int i = 0; i < p->hs.nh; i++) {
		src_pcp_host *h = &p->hs.h[i];
		pmResult *res = h->fetch ? src_pcp_fetch_wait(h->fetch, deadline) : NULL;
		if (!res) {
			if (h->nm)
				p->mem_bad[0] = p->mem_bad[1] = 1;
			continue;
		}
		pcp_take(p, h, res, v, present);
		pmFreeResult(res);
	}
	for (int w = 0; p->mem_on && w < 2; w++) {
		size_t slot = p->n - 2 + (size_t)w;
		v[slot].u = (uint64_t)p->mem_sum[w];
		present[slot] = !p->mem_bad[w];
	}
	return 0;
}

static void pcp_stop(rec_source *s)
{
	pcp_priv *p = s->priv;

	for (int i = 0; p && i < p->hs.nh; i++) {
		src_pcp_fetch_stop(p->hs.h[i].fetch);
		p->hs.h[i].fetch = NULL;
	}
}

static void pcp_free(rec_source *s)
{
	pcp_priv *p = s->priv;

	if (!p)
		return;
	pcp_stop(s);
	src_pcp_metrics_free(&p->hs);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_pcp_ops = {
	.name = "pcp",
	/* locally by default only memory traffic and GPU/power fallbacks;
	 * anything with -e; every group from a remote --pcp-host */
	.groups = "mem,gpu,power,net,os,core",
	.probe = pcp_probe,
	.streams = pcp_streams,
	.start = pcp_start,
	.read = pcp_read,
	.stop = pcp_stop,
	.free = pcp_free,
};
