/* nvml.c: the `nvml` source, per-GPU power, energy, utilisation, memory used
 * and SM clock through NVIDIA's NVML.
 *
 * libnvidia-ml.so.1 comes with the driver, not with a development package,
 * so it is opened with dlopen at probe time (MCREC_NVML_LIB overrides the
 * name) and its absence, or that of a GPU, makes the source "unavailable"
 * with the reason, never an error.  The values are decoded by
 * nvml-decode.c; this file only makes the calls.  Each tick costs six NVML
 * calls per GPU (each an ioctl into the driver, typically 10-50 µs), so
 * at 1 ms intervals more than a few GPUs are too many: use -i 10ms or more.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcsrc.h"

#define NVML_MAX_GPUS 64
#define NVML_CLOCK_SM 1

typedef struct nvml_gpu {
	void *dev;
	char name[96];
	src_nvml_state st;
} nvml_gpu;

typedef struct nvml_priv {
	src_nvml_api api;
	void *lib;
	nvml_gpu gpu[NVML_MAX_GPUS];
	int ngpu;
	int64_t last_ns;
} nvml_priv;

static const src_nvml_api *nvml_injected;

void src_nvml_use_api(const src_nvml_api *api)
{
	nvml_injected = api;
}

int src_nvml_present(void)
{
	const char *libname = getenv("MCREC_NVML_LIB");
	void *lib;

	if (nvml_injected)
		return 1;
	if (!(lib = dlopen(libname && *libname ? libname : "libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL)))
		return 0;
	dlclose(lib);
	return 1;
}

void src_nvml_sample(const src_nvml_api *api, void *dev, src_nvml_raw *raw)
{
	unsigned u = 0, rates[2] = { 0, 0 };
	unsigned long long ull = 0, m[3] = { 0, 0, 0 };

	raw->rc[SRC_NVML_POWER] = api->power(dev, &u);
	raw->val[SRC_NVML_POWER] = u;
	raw->rc[SRC_NVML_ENERGY] = api->energy(dev, &ull);
	raw->val[SRC_NVML_ENERGY] = ull;
	raw->rc[SRC_NVML_UTIL] = raw->rc[SRC_NVML_MEMUTIL] = api->util(dev, rates);
	raw->val[SRC_NVML_UTIL] = rates[0];
	raw->val[SRC_NVML_MEMUTIL] = rates[1];
	raw->rc[SRC_NVML_MEMUSED] = api->mem(dev, m);
	raw->val[SRC_NVML_MEMUSED] = m[2];
	u = 0;
	raw->rc[SRC_NVML_SMCLOCK] = api->clock(dev, NVML_CLOCK_SM, &u);
	raw->val[SRC_NVML_SMCLOCK] = u;
}

/* Resolve the entry points; returns the missing symbol's name or NULL. */
static const char *nvml_bind(void *lib, src_nvml_api *a)
{
	static const struct {
		const char *sym;
		size_t off;
		int optional;
	} tab[] = {
		{ "nvmlInit_v2", offsetof(src_nvml_api, init), 0 },
		{ "nvmlShutdown", offsetof(src_nvml_api, shutdown), 0 },
		{ "nvmlDeviceGetCount_v2", offsetof(src_nvml_api, count), 0 },
		{ "nvmlDeviceGetHandleByIndex_v2", offsetof(src_nvml_api, handle), 0 },
		{ "nvmlDeviceGetName", offsetof(src_nvml_api, name), 0 },
		{ "nvmlDeviceGetPowerUsage", offsetof(src_nvml_api, power), 0 },
		{ "nvmlDeviceGetTotalEnergyConsumption", offsetof(src_nvml_api, energy), 0 },
		{ "nvmlDeviceGetUtilizationRates", offsetof(src_nvml_api, util), 0 },
		{ "nvmlDeviceGetMemoryInfo", offsetof(src_nvml_api, mem), 0 },
		{ "nvmlDeviceGetClockInfo", offsetof(src_nvml_api, clock), 0 },
		{ "nvmlErrorString", offsetof(src_nvml_api, error_string), 1 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		void *f = dlsym(lib, tab[i].sym);
		if (!f && !tab[i].optional)
			return tab[i].sym;
		memcpy((char *)a + tab[i].off, &f, sizeof f);
	}
	return NULL;
}

static int nvml_fail(rec_source *s, nvml_priv *p, const char *why, const char *fix)
{
	if (p->lib)
		dlclose(p->lib);
	free(p);
	s->priv = NULL;
	return rec_unavailable(s, why, fix);
}

static int nvml_probe(rec_source *s, const rec_ctx *c)
{
	const char *libname = getenv("MCREC_NVML_LIB");
	char why[256], fix[256];
	nvml_priv *p = calloc(1, sizeof *p);
	unsigned n = 0;
	int rc;

	if (!p)
		return rec_unavailable(s, "out of memory", "");
	if (src_mcsrc_node_only(s, c) != 0) {
		free(p);
		return -1;
	}
	if (nvml_injected) {
		p->api = *nvml_injected;
	} else {
		const char *missing;
		if (!libname || !*libname)
			libname = "libnvidia-ml.so.1";
		if (!(p->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL))) {
			snprintf(why, sizeof why, "no NVIDIA driver library (%s): no NVIDIA GPU here", libname);
			s->absent = 1;
			return nvml_fail(s, p, why, "on a GPU node install the NVIDIA driver; MCREC_NVML_LIB=path names another library");
		}
		if ((missing = nvml_bind(p->lib, &p->api))) {
			snprintf(why, sizeof why, "%s lacks %s (driver too old)", libname, missing);
			return nvml_fail(s, p, why, "update the NVIDIA driver");
		}
	}
	if ((rc = p->api.init()) != SRC_NVML_SUCCESS) {
		src_nvml_decode_init_error(rc, why, sizeof why, fix, sizeof fix);
		return nvml_fail(s, p, why, fix);
	}
	if ((rc = p->api.count(&n)) != SRC_NVML_SUCCESS || n == 0) {
		p->api.shutdown();
		s->absent = 1;
		return nvml_fail(s, p, "NVML sees no GPU", "check 'nvidia-smi -L' and CUDA_VISIBLE_DEVICES");
	}
	for (unsigned i = 0; i < n && p->ngpu < NVML_MAX_GPUS; i++) {
		nvml_gpu *g = &p->gpu[p->ngpu];
		src_nvml_raw first;
		if (p->api.handle(i, &g->dev) != SRC_NVML_SUCCESS)
			continue; /* e.g. a GPU we may not use: skip it */
		if (p->api.name(g->dev, g->name, sizeof g->name) != SRC_NVML_SUCCESS)
			snprintf(g->name, sizeof g->name, "GPU %u", i);
		src_nvml_sample(&p->api, g->dev, &first);
		src_nvml_decode_caps(&first, &g->st);
		p->ngpu++;
	}
	if (p->ngpu == 0) {
		p->api.shutdown();
		return nvml_fail(s, p, "NVML: no GPU handle could be opened", "check 'nvidia-smi -L'");
	}
	s->priv = p;
	return 0;
}

/* Fields named with -e nvml:power,nvml:sm_clock ("all"); else -g gpu takes
 * all of them and -g power the power and energy. */
static int nvml_select(rec_source *s, const rec_ctx *c, unsigned *mask)
{
	*mask = 0;
	if (!c->events) {
		if (c->groups & REC_G_GPU)
			*mask = ~0u;
		else if (c->groups & REC_G_POWER)
			*mask = (1u << SRC_NVML_POWER) | (1u << SRC_NVML_ENERGY);
		return 0;
	}
	for (const char *const *e = c->events; *e; e++) {
		unsigned m = 0;
		for (int f = 0; f < SRC_NVML_NFIELDS; f++)
			if (strcmp(*e, "all") == 0 || strcmp(*e, src_nvml_fields[f].name + 4) == 0)
				m |= 1u << f;
		if (!m) {
			char why[200];
			snprintf(why, sizeof why, "unknown nvml event '%s'", *e);
			return rec_unavailable(s, why, "nvml events: power, energy, util, mem_util, mem_used, sm_clock, all");
		}
		*mask |= m;
	}
	return 0;
}

static int nvml_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	nvml_priv *p = s->priv;
	char native[96], note[160], inst[16];
	unsigned mask;

	if (nvml_select(s, c, &mask) != 0)
		return -1;
	if (!mask)
		p->ngpu = 0;
	for (int i = 0; i < p->ngpu; i++) {
		p->gpu[i].st.fields &= mask;
		for (int f = 0; f < SRC_NVML_NFIELDS; f++) {
			const src_nvml_fieldinfo *fi = &src_nvml_fields[f];
			mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
			if (!(p->gpu[i].st.fields & (1u << f)))
				continue;
			snprintf(native, sizeof native, "nvml:%s", fi->what);
			snprintf(inst, sizeof inst, "gpu%d", i);
			d.name = fi->name;
			d.source = "nvml";
			d.native = native;
			d.unit = fi->unit;
			d.kind = fi->kind;
			d.type = MCZ_U64;
			d.scale = fi->scale;
			d.instance = inst;
			d.topo = c->topo_gpu ? c->topo_gpu(i) : -1;
			if (f == SRC_NVML_ENERGY && p->gpu[i].st.energy_integrated) {
				d.flags = MCZ_SF_ESTIMATED | MCZ_SF_DERIVED;
				snprintf(note, sizeof note, "%s: no energy counter; integral of power", p->gpu[i].name);
			} else {
				snprintf(note, sizeof note, "%s", p->gpu[i].name);
			}
			d.note = note;
			if (rec_streams_add(out, &d) != 0)
				return rec_unavailable(s, "out of memory", "");
		}
	}
	return 0;
}

static int nvml_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	nvml_priv *p = s->priv;
	int64_t now = src_mcsrc_now_ns(), dt = p->last_ns ? now - p->last_ns : 0;
	size_t k = 0;

	for (int i = 0; i < p->ngpu; i++) {
		src_nvml_raw raw;
		src_nvml_sample(&p->api, p->gpu[i].dev, &raw);
		src_nvml_decode(&raw, &p->gpu[i].st, dt, v + k, present + k);
		k += (size_t)src_nvml_decode_nstreams(&p->gpu[i].st);
	}
	p->last_ns = now;
	return 0;
}

static void nvml_free(rec_source *s)
{
	nvml_priv *p = s->priv;

	if (!p)
		return;
	p->api.shutdown();
	if (p->lib)
		dlclose(p->lib);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_nvml_ops = {
	.name = "nvml",
	.groups = "gpu,power",
	.probe = nvml_probe,
	.streams = nvml_streams,
	.read = nvml_read,
	.free = nvml_free,
};
