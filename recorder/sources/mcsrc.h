/* mcsrc.h: the pure parts of the multi-component sources (papi, pcp, nvml,
 * rapl), exported so that unit tests can check them without the hardware:
 * RAPL counter wrap and power, NVML value decoding, PCP instance to
 * topology object, PAPI event naming.  Only recorder/sources/ and the
 * tests include this header; the recorder core sees the sources through
 * recorder/source.h alone.
 *
 *     uint64_t d = src_rapl_wrap_delta(prev_uj, cur_uj, max_range_uj);
 *     double w = src_rapl_power_w(d, dt_ns);
 *     src_nvml_decode(&raw, &prev_state, dt_ns, v, present);
 *     int32_t topo = src_pcp_desc_topo(ctx, "kernel.percpu.cpu.user", "cpu3");
 */
#ifndef REC_MCSRC_H
#define REC_MCSRC_H

#include <stddef.h>
#include <stdint.h>

#include "../source.h"

/* ---- shared helpers (mcsrc.c) -------------------------------------------- */

/* For node-wide sources under mpirun/srun: a recorder that is not the
 * node's first (rec_ctx.node_streams == 0) leaves them to that one, quietly
 * and even when they were named.  Returns -1 (unavailable) or 0. */
int src_mcsrc_node_only(rec_source *s, const rec_ctx *c);
/* The first number in a file (/proc/sys/...), def when it cannot be read. */
long src_mcsrc_read_long(const char *path, long def);
/* kernel.perf_event_paranoid (2 when unreadable). */
int src_mcsrc_paranoid(void);
/* CLOCK_MONOTONIC in ns. */
int64_t src_mcsrc_now_ns(void);
/* vsnprintf into out; a long reason is cut at len, which is what we want. */
__attribute__((format(printf, 3, 4))) void src_mcsrc_fmt(char *out, size_t len, const char *fmt, ...);

/* ---- rapl ---------------------------------------------------------------- */

/* Energy consumed between two readings of a powercap energy_uj counter that
 * counts from 0 to max_range_uj (max_energy_range_uj) and then wraps to 0.
 * A reading above max_range_uj, or max_range_uj == 0, means the counter was
 * reset or the range is unknown: the delta is then cur if cur < prev. */
uint64_t src_rapl_wrap_delta(uint64_t prev_uj, uint64_t cur_uj, uint64_t max_range_uj);
/* Mean power in W over dt_ns for delta_uj microjoules; 0 when dt_ns <= 0. */
double src_rapl_power_w(uint64_t delta_uj, int64_t dt_ns);
/* Short kind of a powercap zone from its `name` file ("package-0" ->
 * "package", "dram", "core", "uncore", "psys"); other names are copied
 * after replacing characters other than [a-z0-9_] by '_'.  Returns the
 * package number for "package-N" zones, else -1. */
int src_rapl_zone_kind(const char *zone_name, char *kind, size_t len);

/* 1 when some RAPL energy_uj can be read here (the rapl source will run). */
int src_rapl_readable(void);

/* ---- nvml ---------------------------------------------------------------- */

/* NVML return codes we act on (values from nvml.h, a stable ABI). */
enum {
	SRC_NVML_SUCCESS = 0,
	SRC_NVML_ERROR_UNINITIALIZED = 1,
	SRC_NVML_ERROR_NOT_SUPPORTED = 3,
	SRC_NVML_ERROR_NO_PERMISSION = 4,
	SRC_NVML_ERROR_NOT_FOUND = 6,
	SRC_NVML_ERROR_DRIVER_NOT_LOADED = 9,
	SRC_NVML_ERROR_TIMEOUT = 10,
	SRC_NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	SRC_NVML_ERROR_GPU_IS_LOST = 15,
	SRC_NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	SRC_NVML_ERROR_NO_DATA = 21,
	SRC_NVML_ERROR_UNKNOWN = 999,
};

/* The per-GPU fields the nvml source records, in stream order. */
enum src_nvml_field {
	SRC_NVML_POWER,    /* nvmlDeviceGetPowerUsage: mW -> gpu.power, W */
	SRC_NVML_ENERGY,   /* nvmlDeviceGetTotalEnergyConsumption: mJ -> gpu.energy, J counter */
	SRC_NVML_UTIL,     /* nvmlDeviceGetUtilizationRates.gpu: % -> gpu.util */
	SRC_NVML_MEMUTIL,  /* nvmlDeviceGetUtilizationRates.memory: % -> gpu.mem_util */
	SRC_NVML_MEMUSED,  /* nvmlDeviceGetMemoryInfo.used: B -> gpu.mem_used */
	SRC_NVML_SMCLOCK,  /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM): MHz -> gpu.sm_clock, Hz */
	SRC_NVML_NFIELDS
};

/* What the NVML calls returned for one GPU at one tick: a return code and
 * a raw value per field (the utilisation call fills two fields). */
typedef struct src_nvml_raw {
	int rc[SRC_NVML_NFIELDS];
	uint64_t val[SRC_NVML_NFIELDS];
} src_nvml_raw;

/* Decoding state of one GPU kept between ticks. */
typedef struct src_nvml_state {
	unsigned fields;        /* mask of fields recorded (decided at probe) */
	int energy_integrated;  /* 1: no energy counter; energy = integral of power */
	uint64_t energy_mj;     /* integrated energy, mJ */
	int have_power;
	uint64_t last_power_mw;
} src_nvml_state;

/* Stream description of one field: name, unit, kind, scale (stored value x
 * scale = value in unit). */
typedef struct src_nvml_fieldinfo {
	const char *name, *unit, *what;
	uint8_t kind;
	double scale;
} src_nvml_fieldinfo;
extern const src_nvml_fieldinfo src_nvml_fields[SRC_NVML_NFIELDS];

/* From the first reading of a GPU, decide which fields to record: a field
 * whose call says NOT_SUPPORTED (or NO_PERMISSION) is left out; a missing
 * energy counter is replaced by the integral of power (marked estimated). */
void src_nvml_decode_caps(const src_nvml_raw *first, src_nvml_state *st);
/* Number of streams for a GPU with that state (popcount of fields). */
int src_nvml_decode_nstreams(const src_nvml_state *st);
/* Turn one reading into the GPU's stream values (in field order, only the
 * recorded fields), dt_ns since the previous reading (for the integrated
 * energy).  A field whose call failed this tick is not present. */
void src_nvml_decode(const src_nvml_raw *raw, src_nvml_state *st, int64_t dt_ns,
		     mcz_value *v, uint8_t *present);
/* Reason and fix for an nvmlInit failure code, for --list. */
void src_nvml_decode_init_error(int rc, char *why, size_t whylen, char *fix, size_t fixlen);

/* The NVML entry points the source calls, resolved with dlsym from
 * libnvidia-ml.so.1; tests replace the table with one that replays a
 * fixture (src_nvml_use_api).  Devices are opaque handles. */
typedef struct src_nvml_api {
	int (*init)(void);                                  /* nvmlInit_v2 */
	int (*shutdown)(void);                              /* nvmlShutdown */
	int (*count)(unsigned *n);                          /* nvmlDeviceGetCount_v2 */
	int (*handle)(unsigned i, void **dev);              /* nvmlDeviceGetHandleByIndex_v2 */
	int (*name)(void *dev, char *buf, unsigned len);    /* nvmlDeviceGetName */
	int (*power)(void *dev, unsigned *mw);              /* nvmlDeviceGetPowerUsage */
	int (*energy)(void *dev, unsigned long long *mj);   /* nvmlDeviceGetTotalEnergyConsumption */
	int (*util)(void *dev, unsigned rates[2]);          /* nvmlDeviceGetUtilizationRates {gpu, memory} */
	int (*mem)(void *dev, unsigned long long m[3]);     /* nvmlDeviceGetMemoryInfo {total, free, used} */
	int (*clock)(void *dev, int type, unsigned *mhz);   /* nvmlDeviceGetClockInfo */
	const char *(*error_string)(int rc);                /* nvmlErrorString (may be NULL) */
} src_nvml_api;

/* 1 when the NVIDIA driver library can be loaded here. */
int src_nvml_present(void);
/* Use this table instead of dlopen (NULL: back to dlopen).  For tests. */
void src_nvml_use_api(const src_nvml_api *api);
/* One reading of GPU dev through api (the calls of one tick). */
void src_nvml_sample(const src_nvml_api *api, void *dev, src_nvml_raw *raw);

/* ---- pcp ----------------------------------------------------------------- */

/* Kind, type, SI unit and scale of a PCP metric: pcp_metric_kind_of() of
 * format/pcp/pcp.h, the importer's own mapping (mcrec links libmczpcp). */
/* Topology object of a PCP instance name, by pcp_topo_of() of
 * format/pcp/pcp.h (the importer's rule too): "cpu3" -> PU 3, "node1" ->
 * NUMA 1, "gpu0"/"nvidia0" -> GPU 0, an interface of a network.interface.*
 * or infiniband.* metric -> its NIC; the object among c's, else the
 * machine (or -1). */
int32_t src_pcp_desc_topo(const rec_ctx *c, const char *metric, const char *inst);

/* ---- papi ---------------------------------------------------------------- */

/* Stream name for a PAPI event: known presets and perf software events get
 * the common names ("PAPI_TOT_INS" -> "core.instructions",
 * "perf::TASK-CLOCK" -> "core.task_clock", the perf source's names), others "papi." + the event
 * lowercased with [^a-z0-9] -> '_'.  unit/scale for known time/energy
 * events ("nJ" -> J x 1e-9, task-clock ns -> s x 1e-9). */
void src_papi_event_stream(const char *event, const char *papi_units, char *name,
			   size_t namelen, const char **unit, double *scale);

#endif
