/* roofline-work.c: which streams count floating-point operations and
 * memory bytes, with what weight and provenance, and their rates over a
 * span of time (see roofline.h).
 *
 * Names are compared after folding case and the separators '.', ':', '-'
 * to '_', so that the same event matches as perf names it
 * (fp_arith_inst_retired.256b_packed_double), as PAPI does
 * (FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE) and as a PCP archive of the
 * perfevent PMDA does (perfevent.hwcounters.FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE.value).
 * The event names are the documented ones (Intel SDM / perfmon tables, AMD
 * PPR "Retired SSE/AVX Flops", PAPI presets), and Intel's raw encoding of
 * FP_ARITH_INST_RETIRED (event C7H) as mcrec -e perf:cpu/event=0xc7,umask=0x10/
 * records it; no machine at hand has them, so this path is tested on
 * synthetic recordings only.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "../an.h"
#include "roofline.h"

static const char prov_hw_fp[] = "hardware FP events";
static const char prov_hw_mem[] = "memory counters";
static const char prov_est_mem[] = "memory counters (estimated)";
static const char prov_pcp_mem[] = "memory-controller events (perfevent)";
static const char prov_app_flops[] = "app.flops (mcmark_count)";
static const char prov_app_bytes[] = "app.bytes (mcmark_count)";

/* Double-precision FP events and the operations each count stands for. */
static const struct {
	const char *event;
	double weight;
} roof_fp[] = {
	{"fp_arith_inst_retired_scalar_double", 1},
	{"fp_arith_inst_retired_128b_packed_double", 2},
	{"fp_arith_inst_retired_256b_packed_double", 4},
	{"fp_arith_inst_retired_512b_packed_double", 8},
	{"retired_sse_avx_flops", 1}, /* AMD Zen: counts operations (FMA = 2) */
	{"fp_ret_sse_avx_ops_all", 1}, /* the same as perf's AMD event list names it */
	{"papi_dp_ops", 1},
};

static void roof_norm(const char *s, char *out, size_t len)
{
	size_t k = 0;
	for (; s && *s && k + 1 < len; s++) {
		char c = (char)tolower((unsigned char)*s);
		out[k++] = (c == '.' || c == ':' || c == '-') ? '_' : c;
	}
	out[k] = '\0';
}

/* Intel's FP_ARITH_INST_RETIRED as a raw event (Intel SDM, event C7H):
 * "perf:cpu/event=0xc7,umask=0x10/" or "perf:r10c7"; the umask says the
 * width (01H scalar, 04H 128-bit, 10H 256-bit, 40H 512-bit packed double);
 * single precision and combined umasks are not counted.  0 or the weight. */
static double roof_raw_fp(const char *native)
{
	unsigned umask = 0;
	const char *e = strstr(native, "event=0xc7"), *u = strstr(native, "umask=0x");
	if (e && u && (e[10] == ',' || e[10] == '/' || e[10] == '\0'))
		umask = (unsigned)strtoul(u + 8, NULL, 16);
	else if (!strncmp(native, "perf_r", 6) && !strncmp(native + 8, "c7", 2) &&
		 (!native[10] || !strcmp(native + 10, "_u"))) /* ":u": user space only */
		umask = (unsigned)strtoul((char[3]){native[6], native[7], 0}, NULL, 16);
	return umask == 0x01 ? 1 : umask == 0x04 ? 2 : umask == 0x10 ? 4 : umask == 0x40 ? 8 : 0;
}

int vw_roof_work_match(const char *name, const char *native, double *weight, int *rank,
		       const char **prov)
{
	char n[256], v[256];
	roof_norm(name, n, sizeof n);
	roof_norm(native, v, sizeof v);
	*weight = 1;
	*rank = VW_ROOF_HW;
	if (!strcmp(n, "app_flops")) {
		*rank = VW_ROOF_APP, *prov = prov_app_flops;
		return VW_ROOF_FLOPS;
	}
	if (!strcmp(n, "app_bytes")) {
		*rank = VW_ROOF_APP, *prov = prov_app_bytes;
		return VW_ROOF_BYTES;
	}
	if (!strcmp(n, "mem_read_bytes") || !strcmp(n, "mem_write_bytes")) {
		*prov = prov_hw_mem;
		return VW_ROOF_BYTES;
	}
	if (strstr(n, "dutycycle"))
		return VW_ROOF_NONE; /* perfevent's time-multiplexing ratio, not a count */
	for (size_t i = 0; i < sizeof roof_fp / sizeof roof_fp[0]; i++)
		if (strstr(n, roof_fp[i].event) || strstr(v, roof_fp[i].event)) {
			*weight = roof_fp[i].weight, *prov = prov_hw_fp;
			return VW_ROOF_FLOPS;
		}
	double raw = roof_raw_fp(v);
	if (raw > 0) {
		*weight = raw, *prov = prov_hw_fp;
		return VW_ROOF_FLOPS;
	}
	if (!strncmp(n, "perfevent_hwcounters_", 21)) {
		static const char *const mem[] = {"cas_count_rd", "cas_count_read", "data_reads",
						  "cas_count_wr", "cas_count_write", "data_writes"};
		for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
			if (strstr(n + 21, mem[i])) {
				*weight = 64, *prov = prov_pcp_mem; /* one 64-byte line per count */
				return VW_ROOF_BYTES;
			}
	}
	return VW_ROOF_NONE;
}

/* app.flops and app.bytes exist in every recording of mcrec: one that
 * stayed 0 over the whole run means the application reported nothing. */
static int roof_unused(vw_model *m, size_t i, int rank)
{
	vw_bucket b;
	if (rank != VW_ROOF_APP)
		return 0;
	return vw_model_stream_buckets(m, i, m->t_min, m->t_max + 1, 1, &b) != 0 || !b.count ||
	       !(b.max > 0);
}

/* A stream's work class, from its descriptor alone. */
typedef struct roof_cls {
	int kind, rank;
	double w;
	const char *pv;
} roof_cls;

/* Every stream's class, matched once per model (an->roof_cache). */
static const roof_cls *roof_classes(vw_an *an)
{
	vw_model *m = an->m;
	if (an->roof_cache)
		return an->roof_cache;
	roof_cls *c = malloc((m->nstreams ? m->nstreams : 1) * sizeof *c);
	if (!c)
		return NULL;
	for (size_t i = 0; i < m->nstreams; i++) {
		const mcz_stream_desc *d = m->streams[i].desc;
		roof_cls *e = &c[i];
		e->kind = d->kind != MCZ_COUNTER
				  ? VW_ROOF_NONE
				  : vw_roof_work_match(d->name, d->native, &e->w, &e->rank, &e->pv);
		if (e->kind != VW_ROOF_NONE && e->pv == prov_hw_mem && (d->flags & MCZ_SF_ESTIMATED))
			e->pv = prov_est_mem;
	}
	an->roof_cache = c;
	an->roof_cache_free = free;
	return c;
}

/* Stream i as a work count (kind, weight, rank, provenance), or VW_ROOF_NONE. */
static int roof_stream(vw_an *an, size_t i, double *w, int *rank, const char **pv)
{
	vw_model *m = an->m;
	const roof_cls *c = roof_classes(an);
	if (!c || c[i].kind == VW_ROOF_NONE || roof_unused(m, i, c[i].rank))
		return VW_ROOF_NONE;
	*w = c[i].w;
	*rank = c[i].rank;
	*pv = c[i].pv;
	return c[i].kind;
}

void vw_roof_work_rates(vw_an *an, int64_t t0, int64_t t1, double *flops_ps, double *bytes_ps,
			const char **flops_prov, const char **bytes_prov)
{
	vw_model *m = an->m;
	double sum[3] = {NAN, NAN, NAN};
	int best[3] = {0, 0, 0};
	const char *prov[3] = {NULL, NULL, NULL};
	for (size_t i = 0; i < m->nstreams; i++) {
		double w;
		int rank;
		const char *pv;
		int k = roof_stream(an, i, &w, &rank, &pv);
		if (k == VW_ROOF_NONE || rank < best[k])
			continue;
		int64_t iv = vw_model_interval(m, i), a = t0, e = t1, ts;
		double v0;
		if (iv > 0 && t1 - t0 >= 5 * iv) {
			/* leave out the samples whose intervals reach within one
			 * interval of either end: the first ones hold the counts of
			 * the phase before's last piece of work (reported when it
			 * ended), and a boundary may lie an interval or two from the
			 * truth (detection; marks near the start of the run) */
			a = vw_model_sample_at(m, i, t0 + iv, &v0, &ts) == 0 && ts < t1 - 2 * iv
				    ? ts + 1
				    : t0 + 2 * iv;
			e = t1 - iv;
		}
		vw_bucket b;
		if (vw_model_stream_buckets(m, i, a, e, 1, &b) != 0 || !b.count || isnan(b.mean))
			continue;
		if (rank > best[k])
			best[k] = rank, sum[k] = 0, prov[k] = pv;
		sum[k] += b.mean * w;
	}
	*flops_ps = sum[VW_ROOF_FLOPS];
	*bytes_ps = sum[VW_ROOF_BYTES];
	*flops_prov = prov[VW_ROOF_FLOPS];
	*bytes_prov = prov[VW_ROOF_BYTES];
}

void vw_roof_work_missing(vw_an *an, char *buf, size_t len)
{
	vw_model *m = an->m;
	int has[3] = {0, 0, 0};
	for (size_t i = 0; i < m->nstreams; i++) {
		double w;
		int rank;
		const char *pv;
		has[roof_stream(an, i, &w, &rank, &pv)] = 1;
	}
	snprintf(buf, len, "%s%s%s",
		 has[VW_ROOF_FLOPS] ? "" : "no FP operation counts (FP events or app.flops)",
		 !has[VW_ROOF_FLOPS] && !has[VW_ROOF_BYTES] ? "; " : "",
		 has[VW_ROOF_BYTES] ? "" : "no memory byte counts (memory counters or app.bytes)");
}
