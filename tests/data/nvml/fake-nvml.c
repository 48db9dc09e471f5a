/* fake-nvml.c: a stand-in libnvidia-ml.so.1 that replays an NVML fixture
 * (tests/data/nvml/two-gpus.txt, or $FAKE_NVML_FIXTURE), for the nvml
 * source's end-to-end test on machines without a GPU.  It exports the NVML
 * entry points the source resolves with dlsym; every call of
 * nvmlDeviceGetPowerUsage on GPU 0 moves to the fixture's next tick (the
 * source's probe reads tick 0, each sample one more), staying on the last.
 * Built by tests/integration/src-nvml.sh with `cc -shared -fPIC`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 32
enum { P, E, U, MU, M, C, NF };
static int rc[MAXT][2][NF], ntick, tick, loaded;
static unsigned long long val[MAXT][2][NF];
static char name[2][96];

static void load(void)
{
	const char *path = getenv("FAKE_NVML_FIXTURE");
	char line[512];
	FILE *f;

	if (loaded)
		return;
	loaded = 1;
	if (!(f = fopen(path ? path : "tests/data/nvml/two-gpus.txt", "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		int ms, g, r[5];
		unsigned long long v[6];
		if (!strncmp(line, "gpu ", 4)) {
			int i = atoi(line + 4);
			char *n = strchr(line + 4, ' ');
			if (i >= 0 && i < 2 && n)
				snprintf(name[i], sizeof name[i], "%.*s", (int)strcspn(n + 1, "\n"), n + 1);
		} else if (sscanf(line, "t %d %d %d %llu %d %llu %d %llu %llu %d %llu %d %llu", &ms, &g, &r[0], &v[0], &r[1],
				  &v[1], &r[2], &v[2], &v[3], &r[3], &v[4], &r[4], &v[5]) == 13 &&
			   ms / 100 < MAXT && g >= 0 && g < 2) {
			int t = ms / 100;
			rc[t][g][P] = r[0], val[t][g][P] = v[0];
			rc[t][g][E] = r[1], val[t][g][E] = v[1];
			rc[t][g][U] = rc[t][g][MU] = r[2], val[t][g][U] = v[2], val[t][g][MU] = v[3];
			rc[t][g][M] = r[3], val[t][g][M] = v[4];
			rc[t][g][C] = r[4], val[t][g][C] = v[5];
			if (t + 1 > ntick)
				ntick = t + 1;
		}
	}
	fclose(f);
}

static int gpu(void *dev) { return (int)(long)dev - 1; }
int nvmlInit_v2(void) { load(); return ntick ? 0 : 9; /* DRIVER_NOT_LOADED */ }
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev) { *dev = (void *)(long)(i + 1); return i < 2 ? 0 : 2; }
int nvmlDeviceGetName(void *dev, char *buf, unsigned len) { snprintf(buf, len, "%s", name[gpu(dev)]); return 0; }
int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
	int g = gpu(dev);
	if (g == 0 && loaded == 2 && tick + 1 < ntick)
		tick++;
	loaded = 2;
	*mw = (unsigned)val[tick][g][P];
	return rc[tick][g][P];
}
int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj) { *mj = val[tick][gpu(dev)][E]; return rc[tick][gpu(dev)][E]; }
int nvmlDeviceGetUtilizationRates(void *dev, unsigned r[2])
{
	r[0] = (unsigned)val[tick][gpu(dev)][U];
	r[1] = (unsigned)val[tick][gpu(dev)][MU];
	return rc[tick][gpu(dev)][U];
}
int nvmlDeviceGetMemoryInfo(void *dev, unsigned long long m[3])
{
	m[0] = 85899345920ULL, m[2] = val[tick][gpu(dev)][M], m[1] = m[0] - m[2];
	return rc[tick][gpu(dev)][M];
}
int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
	*mhz = (unsigned)val[tick][gpu(dev)][C];
	return type == 1 ? rc[tick][gpu(dev)][C] : 3;
}
const char *nvmlErrorString(int r) { return r ? "fake NVML error" : "Success"; }
