/* topo-draw.c: time to draw the topology view's chart (layout + raster +
 * labels, viewer/topo-*.c) of a topology into a 200 x 60 canvas, the
 * viewer's redraw bar (16 ms) being for that size.  One line per run:
 *
 *     topo-draw DESC REPS  ->  "objects pus layout_ms sunburst_ms icicle_ms"
 *
 * medians of REPS; DESC is an hwloc synthetic description or XML file
 * ("" for this machine).  tests/bench/bench-topo.sh prints the table beside
 * lstopo drawing the same topology as text. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../recorder/topology.h"
#include "../../viewer/topo-draw.h"
#include "../../viewer/topo.h"

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

int main(int argc, char **argv)
{
	rec_topology rt;
	char err[256];

	if (argc != 3) {
		fprintf(stderr, "usage: topo-draw DESC REPS\n");
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
		double t0 = now_ms();
		topo_layout_build(&L, &t, 0, t.leafw);
		double t1 = now_ms();
		/* the view's chart box at 200 x 60: left of a 44-column panel */
		topo_render_opts o = {TOPO_SUNBURST, level, 0, 1};
		vw_canvas_clear(c);
		topo_render(c, 0, 1, 155, 57, &t, &L, &o);
		double t2 = now_ms();
		o.shape = TOPO_ICICLE;
		vw_canvas_clear(c);
		topo_render(c, 0, 1, 155, 57, &t, &L, &o);
		double t3 = now_ms();
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
