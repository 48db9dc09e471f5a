/* pcp-metrics.c: the metrics the pcp source records, host by host (see
 * pcp-metrics.h): -e items in pmval's syntax, -g groups, and the memory-
 * traffic metrics; each looked up once (name, descriptor, instances) so that
 * a tick is a bare pmFetch.  Instances are fixed at start: one that appears
 * later is not recorded, one that goes away leaves its stream missing.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../../format/pcp/pcp.h"
#include "../mcsrc.h"
#include "pcp-metrics.h"

const char *src_pcp_metrics_default_host(const rec_ctx *c)
{
	return (c->pcp_host && *c->pcp_host) ? c->pcp_host : "local:";
}

/* One line about a failed connection, with the usual fix. */
int src_pcp_metrics_unreachable(rec_source *s, const char *host, int rc)
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

src_pcp_host *src_pcp_metrics_host(src_pcp_set *p, const char *host, int *rc)
{
	for (int i = 0; i < p->nh; i++)
		if (strcmp(p->h[i].name, host) == 0)
			return &p->h[i];
	if (p->nh == SRC_PCP_MAX_HOSTS) {
		*rc = PM_ERR_TOOBIG;
		return NULL;
	}
	if ((*rc = pmNewContext(PM_CONTEXT_HOST, host)) < 0)
		return NULL;
	src_pcp_host *h = &p->h[p->nh++];
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", host);
	h->ctx = *rc;
	return h;
}

static int metrics_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static src_pcp_metric *metrics_new(src_pcp_host *h)
{
	if (h->nm == h->cap) {
		int cap = h->cap ? h->cap * 2 : 16;
		src_pcp_metric *m = realloc(h->m, (size_t)cap * sizeof *m);
		if (!m)
			return NULL;
		h->m = m;
		h->cap = cap;
	}
	memset(&h->m[h->nm], 0, sizeof h->m[0]);
	return &h->m[h->nm++];
}

typedef struct metrics_leaves {
	char (*names)[256];
	int n, cap;
} metrics_leaves;

static void metrics_leaf(const char *name, void *arg)
{
	metrics_leaves *l = arg;
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
static int metrics_add(src_pcp_host *h, const char *name, int ninst, char *const *inst, int mem,
			  double bytes, char *why, size_t whylen)
{
	char err[PM_MAXERRMSGLEN];
	pcp_metric_kind k;
	src_pcp_metric *m;
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
	pcp_metric_kind_of(&desc, &k);
	if (k.skip) {
		src_mcsrc_fmt(why, whylen, "PCP metric '%s' %s", name, k.why);
		return -1;
	}
	if (!(m = metrics_new(h))) {
		src_mcsrc_fmt(why, whylen, "out of memory");
		return -1;
	}
	m->kind = k.kind;
	m->type = k.type;
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
		qsort(ids, (size_t)n, sizeof *ids, metrics_cmp_int);
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
int src_pcp_metrics_add_spec(rec_source *s, src_pcp_set *p, const rec_ctx *c, const char *spec)
{
	char *err = NULL, why[512];
	pmMetricSpec *ms = NULL;
	metrics_leaves l = { 0 };
	src_pcp_host *h;
	int rc;

	if (spec[0] == '@')
		spec++;
	if (pmParseMetricSpec(spec, 0, (char *)src_pcp_metrics_default_host(c), &ms, &err) < 0) {
		src_mcsrc_fmt(why, sizeof why, "bad PCP metric '%s': %s", spec, err ? err : "cannot parse");
		free(err);
		return rec_unavailable(s, why, "write pcp:METRIC, pcp:METRIC[INST,...] or pcp@HOST:METRIC");
	}
	if (!(h = src_pcp_metrics_host(p, ms->source, &rc))) {
		char host[256];
		snprintf(host, sizeof host, "%s", ms->source);
		pmFreeMetricSpec(ms);
		return src_pcp_metrics_unreachable(s, host, rc);
	}
	pmUseContext(h->ctx);
	if ((rc = pmTraversePMNS_r(ms->metric, metrics_leaf, &l)) < 0 || l.n == 0) {
		char e2[PM_MAXERRMSGLEN];
		src_mcsrc_fmt(why, sizeof why, "unknown PCP metric '%s' at %s (%s)", ms->metric, h->name,
			 rc < 0 ? pmErrStr_r(rc, e2, sizeof e2) : "no leaves");
		pmFreeMetricSpec(ms);
		free(l.names);
		return rec_unavailable(s, why, "'pminfo' lists the metrics pmcd knows");
	}
	rc = 0;
	for (int i = 0; i < l.n && rc == 0; i++)
		rc = metrics_add(h, l.names[i], l.n == 1 ? ms->ninst : 0, ms->inst, 0, 1.0, why, sizeof why);
	pmFreeMetricSpec(ms);
	free(l.names);
	return rc ? rec_unavailable(s, why, "'pminfo -f METRIC' shows what pmcd has") : 0;
}

int src_pcp_metrics_add_mem(rec_source *s, src_pcp_set *p, const rec_ctx *c, const rec_mem_choice *mc)
{
	src_pcp_host *h;
	char why[512];
	int rc;

	if (!(h = src_pcp_metrics_host(p, src_pcp_metrics_default_host(c), &rc)))
		return src_pcp_metrics_unreachable(s, src_pcp_metrics_default_host(c), rc);
	pmUseContext(h->ctx);
	for (int i = 0; i < mc->npcp; i++)
		if (metrics_add(h, mc->pcp[i].name, 0, NULL, mc->pcp[i].write ? 2 : 1, mc->pcp[i].bytes, why,
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
} metrics_groups[] = {
	{ REC_G_GPU, "nvidia.power", 1 },          { REC_G_GPU, "nvidia.energy", 1 },
	{ REC_G_GPU, "nvidia.gpuactive", 1 },      { REC_G_GPU, "nvidia.memactive", 1 },
	{ REC_G_GPU, "nvidia.memused", 1 },        { REC_G_POWER, "denki.rapl.rate", 1 },
	{ REC_G_NET, "network.interface.in.bytes", 0 }, { REC_G_NET, "network.interface.out.bytes", 0 },
	{ REC_G_NET, "infiniband.port.in.bytes", 0 },   { REC_G_NET, "infiniband.port.out.bytes", 0 },
	{ REC_G_CORE, "kernel.percpu.cpu.user", 0 },    { REC_G_CORE, "kernel.percpu.cpu.sys", 0 },
	{ REC_G_OS, "kernel.all.pswitch", 0 },          { REC_G_OS, "mem.util.used", 0 },
	{ REC_G_OS, "kernel.all.load", 0 },
};

int src_pcp_metrics_add_groups(rec_source *s, src_pcp_set *p, const rec_ctx *c)
{
	const char *host = src_pcp_metrics_default_host(c);
	int remote = strcmp(host, "local:") != 0;
	int gpu_local = src_nvml_present(), power_local = src_rapl_readable();
	char why[512];
	src_pcp_host *h;
	pmID pmid;
	int rc;

	if (!(h = src_pcp_metrics_host(p, host, &rc)))
		return src_pcp_metrics_unreachable(s, host, rc);
	pmUseContext(h->ctx);
	for (size_t i = 0; i < sizeof metrics_groups / sizeof metrics_groups[0]; i++) {
		const char *m = metrics_groups[i].metric;
		unsigned g = metrics_groups[i].group;
		if (!(c->groups & g) || (!remote && (!metrics_groups[i].local ||
						     (g == REC_G_GPU && gpu_local) ||
						     (g == REC_G_POWER && power_local))))
			continue;
		if (pmLookupName(1, &m, &pmid) < 0)
			continue; /* this pmcd has no such agent */
		/* a metric with no instances right now is skipped too */
		if (metrics_add(h, m, 0, NULL, 0, 1.0, why, sizeof why) != 0 && !strcmp(why, "out of memory"))
			return rec_unavailable(s, why, "");
	}
	return 0;
}

int src_pcp_metrics_find_inst(const src_pcp_metric *m, int inst)
{
	const int *hit;

	if (!m->inst)
		return 0;
	hit = bsearch(&inst, m->inst, (size_t)m->ninst, sizeof *m->inst, metrics_cmp_int);
	return hit ? (int)(hit - m->inst) : -1;
}

void src_pcp_metrics_free(src_pcp_set *p)
{
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
	p->nh = 0;
}
