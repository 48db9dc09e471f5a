/* nvml-decode.c: turning what NVML calls return into mcz stream values, apart
 * from the calls themselves so that tests can feed it recorded returns (see
 * tests/data/nvml/) on a machine without a GPU.
 *
 * Units follow NVML's: power in mW (stored as is, scale 1e-3 -> W), total
 * energy since the driver loaded in mJ (a counter, scale 1e-3 -> J), the
 * utilisation rates in %, memory in bytes, clocks in MHz (scale 1e6 -> Hz).
 * A field that NVML says is not supported on a GPU (NOT_SUPPORTED, or
 * NO_PERMISSION) at the first reading is not recorded at all; a call failing
 * later (GPU_IS_LOST, TIMEOUT, ...) leaves that tick's value missing.  GPUs
 * older than Volta have no energy counter: energy is then the integral of
 * the power readings, and its stream is flagged estimated.
 *
 *     src_nvml_state st = {0};
 *     src_nvml_decode_caps(&first, &st);               // once
 *     src_nvml_decode(&raw, &st, dt_ns, v, present);   // each tick
 */
#include <stdio.h>
#include <string.h>

#include "mcsrc.h"

const src_nvml_fieldinfo src_nvml_fields[SRC_NVML_NFIELDS] = {
	[SRC_NVML_POWER] = { "gpu.power", "W", "nvmlDeviceGetPowerUsage", MCZ_GAUGE, 1e-3 },
	[SRC_NVML_ENERGY] = { "gpu.energy", "J", "nvmlDeviceGetTotalEnergyConsumption", MCZ_COUNTER, 1e-3 },
	[SRC_NVML_UTIL] = { "gpu.util", "%", "nvmlDeviceGetUtilizationRates.gpu", MCZ_GAUGE, 1.0 },
	[SRC_NVML_MEMUTIL] = { "gpu.mem_util", "%", "nvmlDeviceGetUtilizationRates.memory", MCZ_GAUGE, 1.0 },
	[SRC_NVML_MEMUSED] = { "gpu.mem_used", "B", "nvmlDeviceGetMemoryInfo.used", MCZ_GAUGE, 1.0 },
	[SRC_NVML_SMCLOCK] = { "gpu.sm_clock", "Hz", "nvmlDeviceGetClockInfo(SM)", MCZ_GAUGE, 1e6 },
};

static int nvml_unsupported(int rc)
{
	return rc == SRC_NVML_ERROR_NOT_SUPPORTED || rc == SRC_NVML_ERROR_NO_PERMISSION;
}

void src_nvml_decode_caps(const src_nvml_raw *first, src_nvml_state *st)
{
	memset(st, 0, sizeof *st);
	for (int f = 0; f < SRC_NVML_NFIELDS; f++)
		if (!nvml_unsupported(first->rc[f]))
			st->fields |= 1u << f;
	if (!(st->fields & (1u << SRC_NVML_ENERGY)) && (st->fields & (1u << SRC_NVML_POWER))) {
		st->fields |= 1u << SRC_NVML_ENERGY;
		st->energy_integrated = 1;
	}
}

int src_nvml_decode_nstreams(const src_nvml_state *st)
{
	return __builtin_popcount(st->fields);
}

void src_nvml_decode(const src_nvml_raw *raw, src_nvml_state *st, int64_t dt_ns,
		     mcz_value *v, uint8_t *present)
{
	int k = 0;

	for (int f = 0; f < SRC_NVML_NFIELDS; f++) {
		if (!(st->fields & (1u << f)))
			continue;
		if (f == SRC_NVML_ENERGY && st->energy_integrated) {
			/* trapezoid between the previous and this power reading */
			int ok = raw->rc[SRC_NVML_POWER] == SRC_NVML_SUCCESS;
			if (ok && st->have_power && dt_ns > 0)
				st->energy_mj += (uint64_t)(((double)st->last_power_mw +
							     (double)raw->val[SRC_NVML_POWER]) *
							    0.5 * (double)dt_ns * 1e-9 + 0.5);
			v[k].u = st->energy_mj;
			present[k] = ok;
		} else {
			present[k] = raw->rc[f] == SRC_NVML_SUCCESS;
			v[k].u = present[k] ? raw->val[f] : 0;
		}
		k++;
	}
	if (raw->rc[SRC_NVML_POWER] == SRC_NVML_SUCCESS) {
		st->last_power_mw = raw->val[SRC_NVML_POWER];
		st->have_power = 1;
	}
}

void src_nvml_decode_init_error(int rc, char *why, size_t whylen, char *fix, size_t fixlen)
{
	switch (rc) {
	case SRC_NVML_ERROR_DRIVER_NOT_LOADED:
		snprintf(why, whylen, "NVML: the NVIDIA kernel driver is not loaded");
		snprintf(fix, fixlen, "load it ('modprobe nvidia') or run on a GPU node");
		break;
	case SRC_NVML_ERROR_NO_PERMISSION:
		snprintf(why, whylen, "NVML: no permission to open /dev/nvidia*");
		snprintf(fix, fixlen, "ask for access to the GPU devices (group 'video' or the job's GPU allocation)");
		break;
	case SRC_NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		snprintf(why, whylen, "NVML: libnvidia-ml and the loaded driver have different versions");
		snprintf(fix, fixlen, "reload the nvidia module or reboot after the driver update");
		break;
	case SRC_NVML_ERROR_LIBRARY_NOT_FOUND:
		snprintf(why, whylen, "NVML: libnvidia-ml.so.1 not found");
		snprintf(fix, fixlen, "install the NVIDIA driver's NVML library, or set MCREC_NVML_LIB to its path");
		break;
	default:
		snprintf(why, whylen, "NVML: nvmlInit failed with error %d", rc);
		snprintf(fix, fixlen, "check 'nvidia-smi'; or use the pcp source's nvidia.* metrics");
		break;
	}
}
