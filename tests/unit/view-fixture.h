/* view-fixture.h: a small recording with known values for the viewer's unit
 * tests (test-model.c, test-view-timeline.c), written with libmcz.
 *
 * 1000 rows every 10 ms (t = 0 .. 9.99 s), chunks of 100 rows (1 s; or
 * chunk_rows with fx_write_chunks):
 *   0 mem.read_bytes  counter, B: 1 GB/s, 4 GB/s from 3 s to 6 s, plus a
 *                     sawtooth of 10 MB/s x (row % 7)
 *   1 gpu.power       gauge F64, W: 100 + 50 sin(row / 20), 300 from 6 s
 *   2-5 core.cycles   counter per CPU (cpu0..cpu3): (1 + cpu) GHz, x 0.25
 *                     from 6 s
 *   6 proc.rss        gauge U64, B: 1 GiB + row x 1 MiB; absent in rows 400-449
 * marks: 3 s "phase:memory" (begin), 6 s "phase:gpu" (begin), 8.5 s "note".
 */
#ifndef VIEW_FIXTURE_H
#define VIEW_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../../format/mcz.h"

#define FX_ROWS 1000
#define FX_DT 10000000LL

static inline double fx_read_rate(long r)
{
	return (r >= 300 && r < 600 ? 4e9 : 1e9) + 1e7 * (double)(r % 7);
}

static inline double fx_power(long r)
{
	return r >= 600 ? 300.0 : 100.0 + 50.0 * sin((double)r / 20.0);
}

static inline double fx_cycles_rate(long r, int cpu)
{
	return (1.0 + cpu) * 1e9 * (r >= 600 ? 0.25 : 1.0);
}

static inline int fx_write_chunks(const char *path, int64_t wall_epoch, const char *rank,
				  uint32_t chunk_rows)
{
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = wall_epoch;
	o.chunk_rows = chunk_rows;
	int rc = mcz_writer_open(&w, path, &o);
	if (rc)
		return rc;
	mcz_writer_meta(w, "host", "fixture");
	if (rank)
		mcz_writer_meta(w, "rank", rank);
	uint32_t id;
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "mem.read_bytes"; d.source = "perf"; d.unit = "B"; d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	mcz_writer_add_stream(w, &d, &id);
	d = (mcz_stream_desc)MCZ_STREAM_DESC_INIT;
	d.name = "gpu.power"; d.source = "nvml"; d.unit = "W"; d.instance = "gpu0";
	mcz_writer_add_stream(w, &d, &id);
	static const char *const cpu[4] = {"cpu0", "cpu1", "cpu2", "cpu3"};
	for (int c = 0; c < 4; c++) {
		d = (mcz_stream_desc)MCZ_STREAM_DESC_INIT;
		d.name = "core.cycles"; d.source = "perf"; d.unit = "cycles";
		d.kind = MCZ_COUNTER; d.type = MCZ_U64; d.instance = cpu[c]; d.flags = MCZ_SF_PERCPU;
		mcz_writer_add_stream(w, &d, &id);
	}
	d = (mcz_stream_desc)MCZ_STREAM_DESC_INIT;
	d.name = "proc.rss"; d.source = "proc"; d.unit = "B"; d.type = MCZ_U64;
	mcz_writer_add_stream(w, &d, &id);
	uint64_t acc[5] = {5000, 0, 0, 0, 0};
	for (long r = 0; r < FX_ROWS && !rc; r++) {
		mcz_value v[7];
		uint8_t present[7] = {1, 1, 1, 1, 1, 1, r < 400 || r >= 450};
		if (r > 0)
			acc[0] += (uint64_t)llround(fx_read_rate(r) * 0.01);
		v[0].u = acc[0];
		v[1].f = fx_power(r);
		for (int c = 0; c < 4; c++) {
			if (r > 0)
				acc[1 + c] += (uint64_t)llround(fx_cycles_rate(r, c) * 0.01);
			v[2 + c].u = acc[1 + c];
		}
		v[6].u = (1ull << 30) + (uint64_t)r * (1ull << 20);
		rc = mcz_writer_append(w, r * FX_DT, v, present);
	}
	mcz_writer_mark(w, 300 * FX_DT, MCZ_MARK_BEGIN, 0, "phase:memory");
	mcz_writer_mark(w, 600 * FX_DT, MCZ_MARK_BEGIN, 0, "phase:gpu");
	mcz_writer_mark(w, 850 * FX_DT, MCZ_MARK_POINT, 0, "note");
	int rc2 = mcz_writer_close(w);
	return rc ? rc : rc2;
}

static inline int fx_write(const char *path, int64_t wall_epoch, const char *rank)
{
	return fx_write_chunks(path, wall_epoch, rank, 100);
}

#endif
