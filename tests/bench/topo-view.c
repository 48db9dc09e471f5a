/* topo-view.c: the whole topology view (viewer/view-topology.c: values of
 * every metric over the range, layout, chart, panel, legend) drawn into a
 * 200 x 60 canvas, on a recording written here: an hwloc synthetic machine
 * (DESC), per PU core.instructions, core.cycles (counters) and os.cpu.busy
 * (gauge), ROWS rows at 10 ms.  Prints, in ms (medians of REPS):
 *
 *     objects pus streams first_ms same_range_ms new_range_ms
 *
 * first: init + first draw; same range: a redraw (a key that moves the
 * selection); new range: a redraw after the window moved (every metric's
 * values read again from the file's summaries).  tests/bench/bench-topo.sh
 * prints the table. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../recorder/topology.h"
#include "../../viewer/model.h"
#include "../../viewer/view.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
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

int main(int argc, char **argv)
{
	rec_topology t;
	char err[256], path[] = "/tmp/topo-view-bench-XXXXXX";

	if (argc != 4) {
		fprintf(stderr, "usage: topo-view DESC ROWS REPS\n");
		return 2;
	}
	long rows = atol(argv[2]);
	int reps = atoi(argv[3]);
	if (rows < 2 || reps < 1)
		return 2;
	if (rec_topology_load(&t, argv[1], err, sizeof err) != 0) {
		fprintf(stderr, "topo-view: %s\n", err);
		return 1;
	}
	int fd = mkstemp(path);
	size_t ns = 0;
	if (fd < 0 || write_rec(path, &t, rows, &ns) != 0) {
		fprintf(stderr, "topo-view: cannot write %s\n", path);
		return 1;
	}
	close(fd);
	double *first = malloc((size_t)reps * sizeof *first);
	double *same = malloc((size_t)reps * sizeof *same);
	double *moved = malloc((size_t)reps * sizeof *moved);
	vw_canvas *c = vw_canvas_new(200, 60);
	const char *paths[1] = {path};
	vw_open_opts oo = {.quiet = 1};
	for (int r = 0; r < reps; r++) {
		vw_model *m;
		void *st;
		if (vw_model_open(&m, paths, 1, &oo, err, sizeof err) != 0) {
			fprintf(stderr, "topo-view: %s\n", err);
			return 1;
		}
		double t0 = now_ms();
		view_topology.init(m, &st);
		view_topology.draw(m, st, c);
		double t1 = now_ms();
		vw_input in = {.act = VW_ACT_DOWN};
		view_topology.key(m, st, &in);
		view_topology.draw(m, st, c);
		double t2 = now_ms();
		vw_model_zoom(m, 0.5, (m->t0 + m->t1) / 2 + r * 1000000LL);
		view_topology.draw(m, st, c);
		double t3 = now_ms();
		first[r] = t1 - t0, same[r] = t2 - t1, moved[r] = t3 - t2;
		view_topology.free(st);
		vw_model_free(m);
	}
	printf("%zu %zu %zu %.3f %.3f %.3f\n", t.n, (size_t)(ns / 3), ns, median(first, reps),
	       median(same, reps), median(moved, reps));
	unlink(path);
	vw_canvas_free(c);
	free(first), free(same), free(moved);
	rec_topology_free(&t);
	return 0;
}
