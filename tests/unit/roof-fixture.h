/* roof-fixture.h: a recording for the roofline's tests, written with
 * libmcz: 10 s at 100 ms, phase "stream" 0-5 s then "compute" 5-10 s
 * (begin/end marks), with the hardware counts a PCP archive of the
 * perfevent PMDA holds (documented event names: FP_ARITH_INST_RETIRED
 * 256B packed and scalar double, uncore IMC CAS read and write, a duty
 * cycle that is not a count) and/or the application's app.flops/app.bytes
 * (7e9 per second each), and/or the ceilings (10 GB/s, 100 GFLOP/s
 * avx512, scalar 25 GFLOP/s).  Used by tests/unit/analysis/test-roofline.c and by
 * tests/tools/gen/gen-roof.c (for the PCP path of tests/integration/roofline.sh).
 *
 *     roof_fixture_write("hw.mcz", ROOF_FX_HW | ROOF_FX_CEIL);
 */
#ifndef ROOF_FIXTURE_H
#define ROOF_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../../format/mcz.h"

#define ROOF_FX_DT 100000000LL /* 100 ms */
#define ROOF_FX_ROWS 100       /* 10 s */
enum { ROOF_FX_HW = 1, ROOF_FX_APP = 2, ROOF_FX_CEIL = 4, ROOF_FX_NO_FP = 8 };

/* Rates per second in each phase (counts, before weights). */
static const double roof_fx_r256[2] = {1e8, 5e9}, roof_fx_rscalar[2] = {1e8, 0},
		    roof_fx_rcas_rd[2] = {5e7, 1e7}, roof_fx_rcas_wr[2] = {1.5625e7, 0},
		    roof_fx_rapp[2] = {7e9, 7e9};

/* 0, or an mcz_err.  ROOF_FX_NO_FP leaves the FP events out of ROOF_FX_HW. */
static inline int roof_fixture_write(const char *path, int what)
{
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	int rc = mcz_writer_open(&w, path, &o);
	if (rc)
		return rc;
	mcz_writer_meta(w, "interval_ns", "100000000");
	mcz_writer_meta(w, "host", "roof-fixture");
	if (what & ROOF_FX_CEIL) {
		mcz_writer_meta(w, "roof.bw_triad_Bps", "1e+10");
		mcz_writer_meta(w, "roof.flops", "1e+11");
		mcz_writer_meta(w, "roof.flops_scalar", "2.5e10");
		mcz_writer_meta(w, "roof.simd", "avx512");
		mcz_writer_meta(w, "roof.method", "synthetic");
	}
	static const char *const names[] = {
		"perfevent.hwcounters.FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE.value",
		"perfevent.hwcounters.FP_ARITH_INST_RETIRED_SCALAR_DOUBLE.value",
		"perfevent.hwcounters.uncore_imc_0__cas_count_read.value",
		"perfevent.hwcounters.uncore_imc_0__cas_count_write.value",
		"perfevent.hwcounters.FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE.dutycycle",
		"app.flops", "app.bytes"};
	uint32_t id;
	int n = 0, col[7];
	for (int k = 0; k < 7 && !rc; k++) {
		int fp = k == 0 || k == 1 || k == 4;
		if ((k < 5 && !(what & ROOF_FX_HW)) || (k >= 5 && !(what & ROOF_FX_APP)) ||
		    (fp && (what & ROOF_FX_NO_FP)))
			continue;
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = names[k];
		d.source = k < 5 ? "pcp" : "mark";
		d.unit = k == 6 ? "B" : k == 5 ? "flop" : "count";
		d.kind = k == 4 ? MCZ_GAUGE : MCZ_COUNTER;
		d.type = k == 4 ? MCZ_F64 : MCZ_U64;
		rc = mcz_writer_add_stream(w, &d, &id);
		col[n++] = k;
	}
	double acc[7] = {0};
	for (long r = 0; r < ROOF_FX_ROWS && !rc; r++) {
		int ph = r * ROOF_FX_DT >= 5000000000LL;
		const double rate[7] = {roof_fx_r256[ph], roof_fx_rscalar[ph], roof_fx_rcas_rd[ph],
					roof_fx_rcas_wr[ph], 0, roof_fx_rapp[ph], roof_fx_rapp[ph]};
		mcz_value v[7];
		for (int j = 0; j < n; j++) {
			int k = col[j];
			if (r > 0)
				acc[k] += rate[k] * ROOF_FX_DT * 1e-9;
			if (k == 4)
				v[j].f = 1.0;
			else
				v[j].u = (uint64_t)llround(acc[k]);
		}
		rc = mcz_writer_append(w, r * ROOF_FX_DT, v, NULL);
	}
	if (!rc) {
		mcz_writer_mark(w, 0, MCZ_MARK_BEGIN, 1, "stream");
		mcz_writer_mark(w, 5000000000LL, MCZ_MARK_END, 1, "");
		mcz_writer_mark(w, 5000000000LL, MCZ_MARK_BEGIN, 1, "compute");
		mcz_writer_mark(w, 9950000000LL, MCZ_MARK_END, 1, "");
	}
	int rc2 = mcz_writer_close(w);
	return rc ? rc : rc2;
}

#endif
