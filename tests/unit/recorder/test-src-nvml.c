/* test-src-nvml.c: the nvml source's decoding, on NVML returns kept in
 * tests/data/nvml/two-gpus.txt (this machine has no GPU): fields a GPU does
 * not support are left out, a failed call leaves that tick's value missing,
 * mW/mJ/MHz become W/J/Hz through the stream scale, and a GPU without an
 * energy counter gets the integral of its power.  The probe and read path of
 * nvml.c run against an NVML table that replays the same file.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../recorder/sources/mcsrc.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define FIXTURE "tests/data/nvml/two-gpus.txt"
#define MAXT 16

static char gpu_name[2][96];
static src_nvml_raw ticks[MAXT][2];
static int ntick;
static int replay_tick; /* which tick the replay API serves */

static void load_fixture(void)
{
	FILE *f = fopen(FIXTURE, "r");
	char line[512];

	assert_non_null(f);
	ntick = 0;
	while (fgets(line, sizeof line, f)) {
		int ms, g, rc[5];
		unsigned long long v[6];
		if (strncmp(line, "gpu ", 4) == 0) {
			int i = atoi(line + 4);
			char *name = strchr(line + 4, ' ');
			assert_true(i >= 0 && i < 2 && name);
			snprintf(gpu_name[i], sizeof gpu_name[i], "%.*s", (int)strcspn(name + 1, "\n"), name + 1);
			continue;
		}
		if (line[0] != 't')
			continue;
		assert_int_equal(sscanf(line, "t %d %d %d %llu %d %llu %d %llu %llu %d %llu %d %llu", &ms, &g, &rc[0], &v[0],
					&rc[1], &v[1], &rc[2], &v[2], &v[3], &rc[3], &v[4], &rc[4], &v[5]),
				 13);
		int t = ms / 100;
		assert_true(t < MAXT && g >= 0 && g < 2);
		src_nvml_raw *r = &ticks[t][g];
		r->rc[SRC_NVML_POWER] = rc[0], r->val[SRC_NVML_POWER] = v[0];
		r->rc[SRC_NVML_ENERGY] = rc[1], r->val[SRC_NVML_ENERGY] = v[1];
		r->rc[SRC_NVML_UTIL] = r->rc[SRC_NVML_MEMUTIL] = rc[2];
		r->val[SRC_NVML_UTIL] = v[2], r->val[SRC_NVML_MEMUTIL] = v[3];
		r->rc[SRC_NVML_MEMUSED] = rc[3], r->val[SRC_NVML_MEMUSED] = v[4];
		r->rc[SRC_NVML_SMCLOCK] = rc[4], r->val[SRC_NVML_SMCLOCK] = v[5];
		if (t + 1 > ntick)
			ntick = t + 1;
	}
	fclose(f);
	assert_int_equal(ntick, 5);
}

/* ---- an NVML that replays the fixture ---- */
static int r_init(void) { return SRC_NVML_SUCCESS; }
static int r_shutdown(void) { return SRC_NVML_SUCCESS; }
static int r_count(unsigned *n) { *n = 2; return SRC_NVML_SUCCESS; }
static int r_handle(unsigned i, void **dev) { *dev = (void *)(uintptr_t)(i + 1); return SRC_NVML_SUCCESS; }
static const src_nvml_raw *cur(void *dev) { return &ticks[replay_tick][(uintptr_t)dev - 1]; }
static int r_name(void *dev, char *buf, unsigned len)
{
	snprintf(buf, len, "%s", gpu_name[(uintptr_t)dev - 1]);
	return SRC_NVML_SUCCESS;
}
static int r_power(void *dev, unsigned *mw) { *mw = (unsigned)cur(dev)->val[SRC_NVML_POWER]; return cur(dev)->rc[SRC_NVML_POWER]; }
static int r_energy(void *dev, unsigned long long *mj) { *mj = cur(dev)->val[SRC_NVML_ENERGY]; return cur(dev)->rc[SRC_NVML_ENERGY]; }
static int r_util(void *dev, unsigned r[2])
{
	r[0] = (unsigned)cur(dev)->val[SRC_NVML_UTIL];
	r[1] = (unsigned)cur(dev)->val[SRC_NVML_MEMUTIL];
	return cur(dev)->rc[SRC_NVML_UTIL];
}
static int r_mem(void *dev, unsigned long long m[3])
{
	m[0] = 85899345920ULL;
	m[2] = cur(dev)->val[SRC_NVML_MEMUSED];
	m[1] = m[0] - m[2];
	return cur(dev)->rc[SRC_NVML_MEMUSED];
}
static int r_clock(void *dev, int type, unsigned *mhz)
{
	assert_int_equal(type, 1); /* NVML_CLOCK_SM */
	*mhz = (unsigned)cur(dev)->val[SRC_NVML_SMCLOCK];
	return cur(dev)->rc[SRC_NVML_SMCLOCK];
}
static const src_nvml_api replay = { r_init, r_shutdown, r_count, r_handle, r_name, r_power,
				     r_energy, r_util, r_mem, r_clock, NULL };

static void test_caps(void **state)
{
	src_nvml_state h100, p100;

	load_fixture();
	src_nvml_decode_caps(&ticks[0][0], &h100);
	src_nvml_decode_caps(&ticks[0][1], &p100);
	assert_int_equal(src_nvml_decode_nstreams(&h100), SRC_NVML_NFIELDS);
	assert_int_equal(h100.energy_integrated, 0);
	/* P100: NOT_SUPPORTED energy -> replaced by the power integral */
	assert_int_equal(src_nvml_decode_nstreams(&p100), SRC_NVML_NFIELDS);
	assert_int_equal(p100.energy_integrated, 1);
	/* a GPU with neither power nor energy loses both */
	src_nvml_raw none = ticks[0][1];
	none.rc[SRC_NVML_POWER] = SRC_NVML_ERROR_NOT_SUPPORTED;
	src_nvml_state st;
	src_nvml_decode_caps(&none, &st);
	assert_int_equal(src_nvml_decode_nstreams(&st), SRC_NVML_NFIELDS - 2);
	assert_false(st.fields & (1u << SRC_NVML_ENERGY));
}

static void test_values(void **state)
{
	src_nvml_state st[2];
	mcz_value v[SRC_NVML_NFIELDS];
	uint8_t pr[SRC_NVML_NFIELDS];

	load_fixture();
	for (int g = 0; g < 2; g++)
		src_nvml_decode_caps(&ticks[0][g], &st[g]);
	for (int t = 0; t < ntick; t++) {
		for (int g = 0; g < 2; g++) {
			src_nvml_decode(&ticks[t][g], &st[g], t ? 100000000 : 0, v, pr);
			if (g == 0 && t == 1) {
				/* 452310 mW x 1e-3 = 452.31 W; 98 %; 40 GiB; 1980 MHz */
				assert_true(pr[SRC_NVML_POWER]);
				assert_near(v[SRC_NVML_POWER].u * src_nvml_fields[SRC_NVML_POWER].scale, 452.31, 1e-9);
				assert_near(v[SRC_NVML_ENERGY].u * src_nvml_fields[SRC_NVML_ENERGY].scale, 912371.855, 1e-6);
				assert_int_equal(v[SRC_NVML_UTIL].u, 98);
				assert_int_equal(v[SRC_NVML_MEMUTIL].u, 41);
				assert_int_equal(v[SRC_NVML_MEMUSED].u, 42949672960ULL);
				assert_near(v[SRC_NVML_SMCLOCK].u * src_nvml_fields[SRC_NVML_SMCLOCK].scale, 1.98e9, 1);
			}
			if (g == 0 && t == 3) {
				/* power timed out: missing; the rest present */
				assert_false(pr[SRC_NVML_POWER]);
				assert_true(pr[SRC_NVML_ENERGY] && pr[SRC_NVML_UTIL] && pr[SRC_NVML_SMCLOCK]);
				assert_int_equal(v[SRC_NVML_SMCLOCK].u, 1755);
			}
			if (g == 1 && t == 3) {
				assert_false(pr[SRC_NVML_SMCLOCK]); /* GPU_IS_LOST on the clock call */
				assert_true(pr[SRC_NVML_POWER]);
			}
		}
	}
	/* P100 energy = trapezoid integral of its power readings, mJ:
	 * 0.1 s x ((30.125+187.4)/2 + (187.4+249.8)/2 + (249.8+250.2)/2 + (250.2+35)/2) W */
	double want = 0.1 * ((30.125 + 187.4) / 2 + (187.4 + 249.8) / 2 + (249.8 + 250.2) / 2 + (250.2 + 35) / 2) * 1000;
	assert_int_equal(st[1].energy_mj, (uint64_t)(want + 0.5));
}

static void test_init_errors(void **state)
{
	char why[256], fix[256];

	src_nvml_decode_init_error(SRC_NVML_ERROR_DRIVER_NOT_LOADED, why, sizeof why, fix, sizeof fix);
	assert_non_null(strstr(why, "driver is not loaded"));
	src_nvml_decode_init_error(SRC_NVML_ERROR_LIB_RM_VERSION_MISMATCH, why, sizeof why, fix, sizeof fix);
	assert_non_null(strstr(why, "different versions"));
	src_nvml_decode_init_error(SRC_NVML_ERROR_NO_PERMISSION, why, sizeof why, fix, sizeof fix);
	assert_non_null(strstr(why, "permission"));
	src_nvml_decode_init_error(42, why, sizeof why, fix, sizeof fix);
	assert_non_null(strstr(why, "42"));
}

/* The real calls of one tick, through the replayed table. */
static void test_sample(void **state)
{
	src_nvml_raw raw;

	load_fixture();
	replay_tick = 3;
	src_nvml_sample(&replay, (void *)(uintptr_t)2, &raw);
	assert_int_equal(raw.rc[SRC_NVML_SMCLOCK], SRC_NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(raw.rc[SRC_NVML_ENERGY], SRC_NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(raw.val[SRC_NVML_POWER], 250200);
	assert_int_equal(raw.val[SRC_NVML_MEMUSED], 8589934592ULL);
	assert_int_equal(raw.val[SRC_NVML_MEMUTIL], 90);
}

/* Without the driver library the source is unavailable, with the reason. */
static void test_no_library(void **state)
{
	rec_source s;
	rec_ctx c;

	memset(&s, 0, sizeof s);
	memset(&c, 0, sizeof c);
	c.node_streams = 1;
	src_nvml_use_api(NULL);
	setenv("MCREC_NVML_LIB", "libnvidia-ml-absent.so.1", 1);
	assert_int_equal(src_nvml_ops.probe(&s, &c), -1);
	assert_non_null(strstr(s.why, "libnvidia-ml-absent.so.1"));
	assert_non_null(strstr(s.why, "no NVIDIA GPU"));
	assert_null(s.priv);
	unsetenv("MCREC_NVML_LIB");
}

/* probe + read of nvml.c against the replayed NVML. */
static void test_probe_read(void **state)
{
	rec_source s;
	rec_ctx c;
	mcz_value v[2 * SRC_NVML_NFIELDS];
	uint8_t pr[2 * SRC_NVML_NFIELDS];

	load_fixture();
	memset(&s, 0, sizeof s);
	memset(&c, 0, sizeof c);
	c.node_streams = 1;
	replay_tick = 0;
	src_nvml_use_api(&replay);
	assert_int_equal(src_nvml_ops.probe(&s, &c), 0);
	replay_tick = 2;
	memset(pr, 0xff, sizeof pr);
	assert_int_equal(src_nvml_ops.read(&s, v, pr), 0);
	/* GPU 0's six fields, then GPU 1's (energy integrated) */
	assert_int_equal(v[SRC_NVML_POWER].u, 699000);
	assert_int_equal(v[SRC_NVML_ENERGY].u, 912429421ULL);
	assert_int_equal(v[SRC_NVML_NFIELDS + SRC_NVML_POWER].u, 249800);
	assert_int_equal(v[SRC_NVML_NFIELDS + SRC_NVML_SMCLOCK].u, 1328);
	for (int i = 0; i < 2 * SRC_NVML_NFIELDS; i++)
		assert_int_equal(pr[i], 1);
	src_nvml_ops.free(&s);
	src_nvml_use_api(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),     cmocka_unit_test(test_values),   cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_sample),   cmocka_unit_test(test_no_library), cmocka_unit_test(test_probe_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
