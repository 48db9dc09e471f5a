/* topo-draw.c: time to draw the topology view into a 200 x 60 canvas (the
 * viewer's redraw bar, 16 ms, is for that size).  Two measurements, one line
 * each, medians of REPS:
 *
 *     topo-draw chart DESC REPS       -> objects pus layout_ms sunburst_ms icicle_ms
 *
 * the chart alone (layout + raster + labels, viewer/topo-*.c) of an hwloc
 * synthetic description or XML file ("" for this machine); and
 *
 *     topo-draw view DESC ROWS REPS   -> objects pus streams first_ms same_range_ms new_range_ms
 *                                        new_range_cpu_ms new_range_settled_ms new_range_exact_ms
 *
 * the whole view (viewer/views/view-topology.c: every metric's values, layout,
 * chart, panel, legend) on a recording written here: per PU
 * core.instructions, core.cycles (counters) and os.cpu.busy (gauge), ROWS
 * rows at 10 ms.  first: init + first draw; same range: a redraw after a key
 * that moves the selection; new range: a redraw after the window moved
 * (values read again from the file).  tests/bench/bench-topo.sh prints the
 * tables beside lstopo drawing the same topologies as text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../recorder/topo/topology.h"
#include "../../viewer/model/model.h"
#include "../../viewer/views/draw/topo-draw.h"
#include "../../viewer/analysis/topology/topo.h"
#include "../../viewer/views/view.h"
#include "bench-clock.h"

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int write_rec(const char *path, const rec_topology *t, long rows, size_t *nstreams)
{
	mcz_writer *w;
	if (mcz_writer_open(&w, path, NULL) != MCZ_OK)
		return -1;
	mcz_writer_topology(w, t->objs, t->n);
	size_t ns = 0;
	for (int cpu = 0;; cpu++) {
		int32_t pu = rec_topology_find(t, MCZ_TOPO_PU, cpu);
		if (pu < 0)
			break;
		char inst[16];
		uint32_t id;
		snprintf(inst, sizeof inst, "cpu%d", cpu);
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "core.instructions", d.source = "perf", d.unit = "instructions";
		d.kind = MCZ_COUNTER, d.type = MCZ_U64, d.instance = inst, d.topo = pu;
		mcz_writer_add_stream(w, &d, &id);
		d.name = "core.cycles", d.unit = "cycles";
		mcz_writer_add_stream(w, &d, &id);
		d.name = "os.cpu.busy", d.unit = "%", d.kind = MCZ_GAUGE, d.type = MCZ_F64;
		mcz_writer_add_stream(w, &d, &id);
		ns += 3;
	}
	mcz_value *v = calloc(ns, sizeof *v);
	if (!v)
		return -1;
	for (long r = 0; r < rows; r++) {
		for (size_t k = 0; k < ns; k += 3) {
			v[k].u += 10000000 + (uint64_t)(k * 1000) + (uint64_t)(r % 13) * 100000;
			v[k + 1].u += 20000000;
			v[k + 2].f = (double)((r + (long)k) % 100);
		}
		mcz_writer_append(w, r * 10000000LL, v, NULL);
	}
	free(v);
	*nstreams = ns;
	return mcz_writer_close(w) == MCZ_OK ? 0 : -1;
}

static int bench_chart(int argc, char **argv)
{
	rec_topology rt;
	char err[256];

	if (argc != 3) {
		fprintf(stderr, "usage: topo-draw chart DESC REPS\n");
		return 2;
	}
	int reps = atoi(argv[2]);
	if (reps < 1 || reps > 100000)
		reps = 20;
	if (rec_topology_load(&rt, argv[1][0] ? argv[1] : NULL, err, sizeof err) != 0) {
		fprintf(stderr, "topo-draw: %s\n", err);
		return 1;
	}
	topo_tree t;
	if (topo_tree_build(&t, rt.objs, rt.n) != MCZ_OK)
		return 1;
	double *level = malloc(rt.n * sizeof *level), *tl = malloc((size_t)reps * sizeof *tl);
	double *ts = malloc((size_t)reps * sizeof *ts), *ti = malloc((size_t)reps * sizeof *ti);
	if (!level || !tl || !ts || !ti)
		return 1;
	for (size_t i = 0; i < rt.n; i++)
		level[i] = (double)(i % 17) / 17.0;
	vw_canvas *c = vw_canvas_new(200, 60);
	topo_layout L;
	for (int r = 0; r < reps; r++) {
		double t0 = bench_wall_ms();
		topo_layout_build(&L, &t, 0, t.leafw);
		double t1 = bench_wall_ms();
		/* the view's chart box at 200 x 60: left of a 44-column panel */
		topo_render_opts o = {TOPO_SUNBURST, level, 0, 1};
		vw_canvas_clear(c);
		topo_render(c, 0, 1, 155, 57, &t, &L, &o);
		double t2 = bench_wall_ms();
		o.shape = TOPO_ICICLE;
		vw_canvas_clear(c);
		topo_render(c, 0, 1, 155, 57, &t, &L, &o);
		double t3 = bench_wall_ms();
		topo_layout_free(&L);
		tl[r] = t1 - t0, ts[r] = t2 - t1, ti[r] = t3 - t2;
	}
	printf("%zu %d %.3f %.3f %.3f\n", rt.n, t.npu, median(tl, reps), median(ts, reps),
	       median(ti, reps));
	vw_canvas_free(c);
	free(level), free(tl), free(ts), free(ti);
	topo_tree_free(&t);
	rec_topology_free(&rt);
	return 0;
}

static int bench_view(int argc, char **argv)
{
	rec_topology t;
	char err[256], path[] = "/tmp/topo-view-bench-XXXXXX";

	if (argc != 4) {
		fprintf(stderr, "usage: topo-draw view DESC ROWS REPS\n");
		return 2;
	}
	long rows = atol(argv[2]);
	int reps = atoi(argv[3]);
	if (rows < 2 || reps < 1)
		return 2;
	if (rec_topology_load(&t, argv[1], err, sizeof err) != 0) {
		fprintf(stderr, "topo-draw: %s\n", err);
		return 1;
	}
	int fd = mkstemp(path);
	size_t ns = 0;
	if (fd < 0 || write_rec(path, &t, rows, &ns) != 0) {
		fprintf(stderr, "topo-draw: cannot write %s\n", path);
		return 1;
	}
	close(fd);
	double *first = malloc((size_t)reps * sizeof *first);
	double *same = malloc((size_t)reps * sizeof *same);
	double *moved = malloc((size_t)reps * sizeof *moved);
	double *moved_cpu = malloc((size_t)reps * sizeof *moved_cpu);
	double *settled = malloc((size_t)reps * sizeof *settled);
	double *exact = malloc((size_t)reps * sizeof *exact);
	vw_canvas *c = vw_canvas_new(200, 60);
	const char *paths[1] = {path};
	vw_open_opts oo = {.quiet = 1};
	for (int r = 0; r < reps; r++) {
		vw_model *m;
		void *st;
		if (vw_model_open(&m, paths, 1, &oo, err, sizeof err) != 0) {
			fprintf(stderr, "topo-draw: %s\n", err);
			return 1;
		}
		vw_an *an = vw_an_new(m);
		vw_ctx ctx = {.m = m, .an = an};
		double t0 = bench_wall_ms();
		view_topology.init(&ctx, &st);
		view_topology.draw(&ctx, st, c);
		double t1 = bench_wall_ms();
		vw_input in = {.act = VW_ACT_DOWN};
		view_topology.key(&ctx, st, &in);
		view_topology.draw(&ctx, st, c);
		/* the window moved: as mcview draws it, within an 8 ms frame budget,
		 * then frames until the values are all read (settled); then another
		 * move drawn without budget (exact in one frame) */
		double t2 = bench_wall_ms(), c2 = bench_cpu_ms();
		vw_model_zoom(m, 0.5, (m->t0 + m->t1) / 2 + r * 1000000LL);
		vw_model_budget(m, 8);
		view_topology.draw(&ctx, st, c);
		double t3 = bench_wall_ms();
		while (m->refining) {
			vw_model_budget(m, 8);
			view_topology.draw(&ctx, st, c);
		}
		double t4 = bench_wall_ms();
		moved_cpu[r] = bench_cpu_ms() - c2;
		vw_model_zoom(m, 0.5, (m->t0 + m->t1) / 2 - r * 1000000LL);
		vw_model_budget(m, 0);
		view_topology.draw(&ctx, st, c);
		exact[r] = bench_wall_ms() - t4;
		first[r] = t1 - t0, same[r] = t2 - t1, moved[r] = t3 - t2, settled[r] = t4 - t2;
		view_topology.free(st);
		vw_an_free(an);
		vw_model_free(m);
	}
	printf("%zu %zu %zu %.3f %.3f %.3f %.3f %.3f %.3f\n", t.n, (size_t)(ns / 3), ns,
	       median(first, reps), median(same, reps), median(moved, reps), median(moved_cpu, reps),
	       median(settled, reps), median(exact, reps));
	unlink(path);
	vw_canvas_free(c);
	free(first), free(same), free(moved), free(moved_cpu), free(settled), free(exact);
	rec_topology_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "chart"))
		return bench_chart(argc - 1, argv + 1);
	if (argc == 5 && !strcmp(argv[1], "view"))
		return bench_view(argc - 1, argv + 1);
	fprintf(stderr, "usage: topo-draw chart DESC REPS | view DESC ROWS REPS\n");
	return 2;
}
