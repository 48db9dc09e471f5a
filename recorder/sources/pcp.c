/* pcp.c: the `pcp` source, metrics of a local or remote pmcd through libpcp's
 * PMAPI host context: `-e pcp:kernel.percpu.cpu.user`,
 * `-e pcp@node7:network.interface.in.bytes`, `--pcp-host node7`, and the PCP
 * instance syntax `pcp:kernel.all.load[1 minute]` (pmParseMetricSpec, as
 * pmval).  A name that is not a leaf (`pcp:network.interface`) takes every
 * metric below it.
 *
 * Every instance of a metric's instance domain becomes its own stream, bound
 * to the topology object the instance names (cpu3 -> PU 3, eth0 -> its NIC).
 * Counter/gauge and the SI unit and scale come from the descriptor
 * (pcp-desc.c).  Each tick is one pmFetch per host.  32-bit PCP counters are
 * unwrapped into 64-bit ones, since mcz counters wrap at 2^64 only.
 *
 * This is also the unprivileged path to memory traffic: when
 * rec_memtraffic_choose() picks pmcd's perfevent.hwcounters, this source
 * emits mem.read_bytes / mem.write_bytes as the sum of those metrics over
 * all their instances, times the bytes per count.
 *
 * A pmcd that is down or a host that does not resolve makes the source
 * unavailable with one line, not the recording: other sources keep going.
 * pmFetch is a round trip to pmcd (about 0.1-0.3 ms locally); a remote pmcd
 * across a slow link delays the tick by its latency, so use -i 100ms or more
 * there.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <pcp/pmapi.h>

#include "../memtraffic.h"
#include "mcsrc.h"

#define PCP_MAX_HOSTS 8

typedef struct pcp_metric {
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
} pcp_metric;

typedef struct pcp_host {
	char name[256];
	int ctx;
	pcp_metric *m;
	int nm, cap;
	pmID *pmids;
	int lost;         /* the last fetch failed: reconnect before the next */
} pcp_host;

typedef struct pcp_priv {
	pcp_host h[PCP_MAX_HOSTS];
	int nh;
	size_t n;            /* streams */
	int mem_on;          /* mem.read_bytes, mem.write_bytes are the last two */
	double mem_sum[2];
	int mem_bad[2];
} pcp_priv;

static const char *pcp_default_host(const rec_ctx *c)
{
	return (c->pcp_host && *c->pcp_host) ? c->pcp_host : "local:";
}

/* One line about a failed connection, with the usual fix. */
static int pcp_unreachable(rec_source *s, const char *host, int rc)
{
	char err[PM_MAXERRMSGLEN], why[400], name[256];
	struct addrinfo *ai = NULL;
	int gai;

	/* libpcp says "No route to host" for a name that does not resolve;
	 * say what it is.  (host may be "name:port" or "local:") */
	snprintf(name, sizeof name, "%.*s", (int)strcspn(host, ":"), host);
	if (name[0] && strcmp(host, "local:") != 0 && (gai = getaddrinfo(name, NULL, NULL, &ai)) != 0)
		src_mcsrc_fmt(why, sizeof why, "pmcd host '%s' does not resolve (%s)", name, gai_strerror(gai));
	else
		src_mcsrc_fmt(why, sizeof why, "cannot reach pmcd at %s: %s", host, pmErrStr_r(rc, err, sizeof err));
	if (ai)
		freeaddrinfo(ai);
	/* DESIGN: a pmcd that is down is not the recording's end, even when
	 * the user named pcp metrics: the other sources keep recording. */
	s->fatal = 0;
	return rec_unavailable(s, why,
			       "start pmcd ('/etc/init.d/pmcd start' or 'systemctl start pmcd'), or check the --pcp-host name");
}

static pcp_host *pcp_host_get(rec_source *s, pcp_priv *p, const char *host, int *rc)
{
	for (int i = 0; i < p->nh; i++)
		if (strcmp(p->h[i].name, host) == 0)
			return &p->h[i];
	if (p->nh == PCP_MAX_HOSTS) {
		*rc = PM_ERR_TOOBIG;
		return NULL;
	}
	if ((*rc = pmNewContext(PM_CONTEXT_HOST, host)) < 0)
		return NULL;
	pcp_host *h = &p->h[p->nh++];
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", host);
	h->ctx = *rc;
	return h;
}

static int pcp_probe(rec_source *s, const rec_ctx *c)
{
	pcp_priv *p = calloc(1, sizeof *p);
	const char *host = pcp_default_host(c);
	int rc;

	if (!p)
		return rec_unavailable(s, "out of memory", "");
	if (src_mcsrc_node_only(s, c) != 0) {
		free(p);
		return -1;
	}
	s->priv = p;
	/* Named hosts of -e pcp@host:... are reached in streams(); the
	 * default host must answer for the source to be available. */
	if (!pcp_host_get(s, p, host, &rc)) {
		free(p);
		s->priv = NULL;
		/* no pmcd here and none asked for: say so in --list only */
		s->absent = !c->events && !c->pcp_host;
		return pcp_unreachable(s, host, rc);
	}
	return 0;
}

static int pcp_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static pcp_metric *pcp_metric_new(pcp_host *h)
{
	if (h->nm == h->cap) {
		int cap = h->cap ? h->cap * 2 : 16;
		pcp_metric *m = realloc(h->m, (size_t)cap * sizeof *m);
		if (!m)
			return NULL;
		h->m = m;
		h->cap = cap;
	}
	memset(&h->m[h->nm], 0, sizeof h->m[0]);
	return &h->m[h->nm++];
}

typedef struct pcp_leaves {
	char (*names)[256];
	int n, cap;
} pcp_leaves;

static void pcp_leaf(const char *name, void *arg)
{
	pcp_leaves *l = arg;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 32;
		char(*nn)[256] = realloc(l->names, (size_t)cap * sizeof *nn);
		if (!nn)
			return;
		l->names = nn;
		l->cap = cap;
	}
	snprintf(l->names[l->n++], 256, "%s", name);
}

/* Add metric `name` of host h (current context), instances `inst` (NULL:
 * all).  mem: 0 normal, 1/2 summed into mem.read/write_bytes.  Returns 0 or
 * -1 with *why. */
static int pcp_add_metric(pcp_host *h, const char *name, int ninst, char *const *inst, int mem,
			  double bytes, char *why, size_t whylen)
{
	char err[PM_MAXERRMSGLEN];
	const char *bad;
	char unit[64];
	double scale;
	src_pcp_descin in;
	pcp_metric *m;
	pmID pmid;
	pmDesc desc;
	int rc;

	if ((rc = pmLookupName(1, &name, &pmid)) < 0) {
		src_mcsrc_fmt(why, whylen, "unknown PCP metric '%s' at %s (%s)", name, h->name, pmErrStr_r(rc, err, sizeof err));
		return -1;
	}
	if ((rc = pmLookupDesc(pmid, &desc)) < 0) {
		src_mcsrc_fmt(why, whylen, "PCP metric '%s': no descriptor (%s)", name, pmErrStr_r(rc, err, sizeof err));
		return -1;
	}
	in = (src_pcp_descin){ desc.type, desc.sem, desc.units.dimSpace, desc.units.dimTime, desc.units.dimCount,
			       desc.units.scaleSpace, desc.units.scaleTime, desc.units.scaleCount };
	if (!(m = pcp_metric_new(h))) {
		src_mcsrc_fmt(why, whylen, "out of memory");
		return -1;
	}
	if (src_pcp_desc_map(&in, &m->kind, &m->type, unit, sizeof unit, &scale, &bad) != 0) {
		h->nm--;
		src_mcsrc_fmt(why, whylen, "PCP metric '%s' %s", name, bad);
		return -1;
	}
	snprintf(m->name, sizeof m->name, "%s", name);
	m->pmid = pmid;
	m->desc = desc;
	m->mem = mem;
	m->bytes = bytes;
	m->ninst = 1;
	if (desc.indom == PM_INDOM_NULL && ninst > 0) {
		src_mcsrc_fmt(why, whylen, "PCP metric '%s' has no instances (singular): drop the [%s]", name, inst[0]);
		h->nm--;
		return -1;
	}
	if (desc.indom != PM_INDOM_NULL) {
		int *ids = NULL;
		char **names = NULL;
		int n = ninst;
		if (ninst > 0) {
			ids = calloc((size_t)ninst, sizeof *ids);
			for (int i = 0; ids && i < ninst; i++)
				if ((ids[i] = pmLookupInDom(desc.indom, inst[i])) < 0) {
					src_mcsrc_fmt(why, whylen, "PCP metric '%s' has no instance '%s' at %s", name, inst[i], h->name);
					free(ids);
					h->nm--;
					return -1;
				}
		} else if ((n = pmGetInDom(desc.indom, &ids, &names)) < 0) {
			src_mcsrc_fmt(why, whylen, "PCP metric '%s': instances unknown (%s)", name, pmErrStr_r(n, err, sizeof err));
			h->nm--;
			return -1;
		}
		free(names);
		if (!ids || n == 0) {
			free(ids);
			src_mcsrc_fmt(why, whylen, "PCP metric '%s' has no instances at %s now", name, h->name);
			h->nm--;
			return -1;
		}
		qsort(ids, (size_t)n, sizeof *ids, pcp_cmp_int);
		m->inst = ids;
		m->ninst = n;
	}
	m->acc = calloc((size_t)m->ninst, sizeof *m->acc);
	m->last32 = calloc((size_t)m->ninst, sizeof *m->last32);
	m->seen = calloc((size_t)m->ninst, 1);
	if (!m->acc || !m->last32 || !m->seen) {
		src_mcsrc_fmt(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

/* One -e item: "metric", "metric[i1,i2]", "host:metric", "@host:metric". */
static int pcp_add_spec(rec_source *s, pcp_priv *p, const rec_ctx *c, const char *spec)
{
	char *err = NULL, why[512];
	pmMetricSpec *ms = NULL;
	pcp_leaves l = { 0 };
	pcp_host *h;
	int rc;

	if (spec[0] == '@')
		spec++;
	if (pmParseMetricSpec(spec, 0, (char *)pcp_default_host(c), &ms, &err) < 0) {
		src_mcsrc_fmt(why, sizeof why, "bad PCP metric '%s': %s", spec, err ? err : "cannot parse");
		free(err);
		return rec_unavailable(s, why, "write pcp:METRIC, pcp:METRIC[INST,...] or pcp@HOST:METRIC");
	}
	if (!(h = pcp_host_get(s, p, ms->source, &rc))) {
		char host[256];
		snprintf(host, sizeof host, "%s", ms->source);
		pmFreeMetricSpec(ms);
		return pcp_unreachable(s, host, rc);
	}
	pmUseContext(h->ctx);
	if ((rc = pmTraversePMNS_r(ms->metric, pcp_leaf, &l)) < 0 || l.n == 0) {
		char e2[PM_MAXERRMSGLEN];
		src_mcsrc_fmt(why, sizeof why, "unknown PCP metric '%s' at %s (%s)", ms->metric, h->name,
			 rc < 0 ? pmErrStr_r(rc, e2, sizeof e2) : "no leaves");
		pmFreeMetricSpec(ms);
		free(l.names);
		return rec_unavailable(s, why, "'pminfo' lists the metrics pmcd knows");
	}
	rc = 0;
	for (int i = 0; i < l.n && rc == 0; i++)
		rc = pcp_add_metric(h, l.names[i], l.n == 1 ? ms->ninst : 0, ms->inst, 0, 1.0, why, sizeof why);
	pmFreeMetricSpec(ms);
	free(l.names);
	return rc ? rec_unavailable(s, why, "'pminfo -f METRIC' shows what pmcd has") : 0;
}

static int pcp_declare(rec_source *s, pcp_priv *p, const rec_ctx *c, pcp_host *h, pcp_metric *m,
		       rec_streams *out)
{
	char native[300], note[200], inst[128], units[64];

	m->first = p->n;
	if (m->mem)
		return 0;
	if (strcmp(h->name, "local:") == 0)
		src_mcsrc_fmt(native, sizeof native, "pcp:%s", m->name);
	else
		src_mcsrc_fmt(native, sizeof native, "pcp@%s:%s", h->name, m->name);
	pmUnitsStr_r(&m->desc.units, units, sizeof units);
	for (int k = 0; k < m->ninst; k++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		src_pcp_descin in = { m->desc.type, m->desc.sem, m->desc.units.dimSpace, m->desc.units.dimTime,
				      m->desc.units.dimCount, m->desc.units.scaleSpace, m->desc.units.scaleTime,
				      m->desc.units.scaleCount };
		char unit[64];
		const char *bad;
		char *iname = NULL;

		inst[0] = '\0';
		if (m->inst) {
			pmUseContext(h->ctx);
			if (pmNameInDom(m->desc.indom, m->inst[k], &iname) >= 0)
				snprintf(inst, sizeof inst, "%s", iname);
			free(iname);
		}
		src_pcp_desc_map(&in, &d.kind, &d.type, unit, sizeof unit, &d.scale, &bad);
		src_mcsrc_fmt(note, sizeof note, "pmcd %s; %s%s%s", h->name,
			 m->desc.sem == PM_SEM_COUNTER ? "counter" : "instant", units[0] ? ", " : "", units);
		d.name = m->name;
		d.source = "pcp";
		d.native = native;
		d.unit = unit;
		d.note = note;
		d.instance = inst;
		d.flags = m->inst ? MCZ_SF_PERCPU * (strncmp(inst, "cpu", 3) == 0) : 0;
		/* another host's cpu3 is not our PU 3 */
		d.topo = strcmp(h->name, "local:") == 0 ? src_pcp_desc_topo(c, m->name, inst) : -1;
		if (rec_streams_add(out, &d) != 0)
			return rec_unavailable(s, "out of memory", "");
		p->n++;
	}
	return 0;
}

static int pcp_add_mem(rec_source *s, pcp_priv *p, const rec_ctx *c, const rec_mem_choice *mc)
{
	pcp_host *h;
	char why[512];
	int rc;

	if (!(h = pcp_host_get(s, p, pcp_default_host(c), &rc)))
		return pcp_unreachable(s, pcp_default_host(c), rc);
	pmUseContext(h->ctx);
	for (int i = 0; i < mc->npcp; i++)
		if (pcp_add_metric(h, mc->pcp[i].name, 0, NULL, mc->pcp[i].write ? 2 : 1, mc->pcp[i].bytes, why,
				   sizeof why) != 0)
			return rec_unavailable(s, why, "check MCREC_PCP_MEM_METRICS / the perfevent PMDA");
	return 0;
}

/* What -g groups mean through pmcd.  A remote pmcd (--pcp-host) is the only
 * view of that host, so every group maps to its metrics there.  On the local
 * pmcd the local sources already give cores, network and OS; pmcd adds only
 * what they cannot: GPUs through the nvidia PMDA where NVML is not ours to
 * load, power through denki where RAPL is root-only (and memory traffic,
 * which memtraffic.c decides).  Metrics the pmcd lacks are skipped. */
static const struct {
	unsigned group;
	const char *metric;
	int local; /* 1: also from the local pmcd, when the local source cannot */
} pcp_group_metrics[] = {
	{ REC_G_GPU, "nvidia.power", 1 },          { REC_G_GPU, "nvidia.energy", 1 },
	{ REC_G_GPU, "nvidia.gpuactive", 1 },      { REC_G_GPU, "nvidia.memactive", 1 },
	{ REC_G_GPU, "nvidia.memused", 1 },        { REC_G_POWER, "denki.rapl.rate", 1 },
	{ REC_G_NET, "network.interface.in.bytes", 0 }, { REC_G_NET, "network.interface.out.bytes", 0 },
	{ REC_G_NET, "infiniband.port.in.bytes", 0 },   { REC_G_NET, "infiniband.port.out.bytes", 0 },
	{ REC_G_CORE, "kernel.percpu.cpu.user", 0 },    { REC_G_CORE, "kernel.percpu.cpu.sys", 0 },
	{ REC_G_OS, "kernel.all.pswitch", 0 },          { REC_G_OS, "mem.util.used", 0 },
	{ REC_G_OS, "kernel.all.load", 0 },
};

static int pcp_add_groups(rec_source *s, pcp_priv *p, const rec_ctx *c)
{
	const char *host = pcp_default_host(c);
	int remote = strcmp(host, "local:") != 0;
	int gpu_local = src_nvml_present(), power_local = src_rapl_readable();
	char why[512];
	pcp_host *h;
	pmID pmid;
	int rc;

	if (!(h = pcp_host_get(s, p, host, &rc)))
		return pcp_unreachable(s, host, rc);
	pmUseContext(h->ctx);
	for (size_t i = 0; i < sizeof pcp_group_metrics / sizeof pcp_group_metrics[0]; i++) {
		const char *m = pcp_group_metrics[i].metric;
		unsigned g = pcp_group_metrics[i].group;
		if (!(c->groups & g) || (!remote && (!pcp_group_metrics[i].local ||
						     (g == REC_G_GPU && gpu_local) ||
						     (g == REC_G_POWER && power_local))))
			continue;
		if (pmLookupName(1, &m, &pmid) < 0)
			continue; /* this pmcd has no such agent */
		/* a metric with no instances right now is skipped too */
		if (pcp_add_metric(h, m, 0, NULL, 0, 1.0, why, sizeof why) != 0 && !strcmp(why, "out of memory"))
			return rec_unavailable(s, why, "");
	}
	return 0;
}

static int pcp_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	pcp_priv *p = s->priv;
	const rec_mem_choice *mc = rec_memtraffic_choose(c);

	for (const char *const *e = c->events; e && *e; e++)
		if (pcp_add_spec(s, p, c, *e) != 0)
			return -1;
	if (!c->events && pcp_add_groups(s, p, c) != 0)
		return -1;
	if ((c->groups & REC_G_MEM) && mc->path == REC_MEM_PCP) {
		if (pcp_add_mem(s, p, c, mc) != 0)
			return -1;
		p->mem_on = 1;
	} else if (c->groups & REC_G_MEM) {
		/* --list shows the memory-traffic decision here too */
		src_mcsrc_fmt(s->why, sizeof s->why, "%s", mc->why);
	}
	for (int i = 0; i < p->nh; i++) {
		pcp_host *h = &p->h[i];
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

static int pcp_find_inst(const pcp_metric *m, int inst)
{
	const int *hit;

	if (!m->inst)
		return 0;
	hit = bsearch(&inst, m->inst, (size_t)m->ninst, sizeof *m->inst, pcp_cmp_int);
	return hit ? (int)(hit - m->inst) : -1;
}

/* The value of one instance as the stream stores it. */
static int pcp_value(pcp_metric *m, int k, int valfmt, const pmValue *pv, mcz_value *out)
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

/* pmFetch allocates its result inside libpcp; there is no caller-buffer
 * variant, so this is the one allocation per tick we accept. */
static int pcp_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	pcp_priv *p = s->priv;

	memset(present, 0, p->n);
	p->mem_sum[0] = p->mem_sum[1] = 0;
	p->mem_bad[0] = p->mem_bad[1] = 0;
	for (int i = 0; i < p->nh; i++) {
		pcp_host *h = &p->h[i];
		pmResult *res;

		if (!h->nm)
			continue;
		/* pmcd went away (restarted, host down): its values are missing
		 * until libpcp reconnects; pmReconnectContext itself backs off
		 * (5 s, 10 s, ... PMCD_RECONNECT_TIMEOUT) so this stays cheap. */
		if (pmUseContext(h->ctx) < 0 || (h->lost && pmReconnectContext(h->ctx) < 0) ||
		    pmFetch(h->nm, h->pmids, &res) < 0) {
			h->lost = 1;
			p->mem_bad[0] = p->mem_bad[1] = 1;
			continue;
		}
		h->lost = 0;
		for (int j = 0; j < res->numpmid && j < h->nm; j++) {
			pcp_metric *m = &h->m[j];
			pmValueSet *vs = res->vset[j];
			if (m->mem && vs->numval <= 0)
				p->mem_bad[m->mem - 1] = 1;
			for (int q = 0; q < vs->numval; q++) {
				int k = pcp_find_inst(m, vs->vlist[q].inst);
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
		pmFreeResult(res);
	}
	for (int w = 0; p->mem_on && w < 2; w++) {
		size_t slot = p->n - 2 + (size_t)w;
		v[slot].u = (uint64_t)p->mem_sum[w];
		present[slot] = !p->mem_bad[w];
	}
	return 0;
}

static void pcp_free(rec_source *s)
{
	pcp_priv *p = s->priv;

	if (!p)
		return;
	for (int i = 0; i < p->nh; i++) {
		for (int j = 0; j < p->h[i].nm; j++) {
			free(p->h[i].m[j].inst);
			free(p->h[i].m[j].acc);
			free(p->h[i].m[j].last32);
			free(p->h[i].m[j].seen);
		}
		free(p->h[i].m);
		free(p->h[i].pmids);
		pmDestroyContext(p->h[i].ctx);
	}
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
	.read = pcp_read,
	.free = pcp_free,
};
