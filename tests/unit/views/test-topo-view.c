/* test-topo-view.c: the topology view (viewer/views/view-topology.c, topo-metric.c)
 * on recordings written here with libmcz and a real hwloc topology
 * (recorder/topo/topology.c): 2 packages x (NUMA, L3, 2 cores x 2 PUs) = 8 PUs,
 * plus the GPU-node fixture's devices in a second recording.
 *
 * Streams, 1000 rows every 10 ms (10 s):
 *   core.instructions  counter per PU: 1e8/s, PU 5 at 4e9/s in the second half
 *   core.cycles        counter per PU: 2e9/s
 *   os.cpu.busy        gauge % per PU: 10, PU 5 at 100 in the second half
 *   mem.read_bytes     counter on each NUMA node: 1e9 and 3e9 B/s
 *   gpu.power          gauge W per GPU (GPU-node file): 100 + 50 k
 *   net.rx_bytes       counter per NIC (GPU-node file): 1e6 x (k + 1) B/s
 *
 * Checks: the metrics found and how each aggregates; values per object
 * against these rates; what the view draws (header, panel, legend); keys
 * (move, zoom, metric, layout, span); recolouring when the window changes;
 * a file without topology says so.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../recorder/topo/topology.h"
#include "../../../viewer/model/model.h"
#include "../../../viewer/analysis/an.h"
#include "../../../viewer/analysis/phases/phase.h"
#include "../../../viewer/analysis/topology/topo-metric.h"
#include "../../../viewer/views/view.h"

#define ROWS 1000
#define DT 10000000LL
#define TOPO_DATA "tests/data/topo"
#define TOPO_DESC "pack:2 [numa(memory=16GiB)] l3:1(size=16MiB) core:2 pu:2"

static char dir[] = "/tmp/test-topo-view-XXXXXX";
static char path_cpu[64], path_gpu[64], path_none[64];

static double ins_rate(long r, int cpu)
{
	return cpu == 5 && r >= ROWS / 2 ? 4e9 : 1e8;
}

static int write_file(const char *path, const char *topo_desc)
{
	rec_topology t = {0};
	char err[200];
	mcz_writer *w;
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 100;
	if (topo_desc && rec_topology_load(&t, topo_desc, err, sizeof err) != 0)
		return -1;
	if (mcz_writer_open(&w, path, &o) != MCZ_OK)
		return -1;
	if (topo_desc)
		mcz_writer_topology(w, t.objs, t.n);
	/* streams: per PU ins, cycles, busy; per NUMA read bytes; per GPU power; per NIC rx */
	int npu = 0, nnuma = 0, ngpu = 0, nnic = 0;
	int32_t pu[64], numa[8], gpu[16], nic[8];
	for (int k = 0; k < 64 && (pu[npu] = rec_topology_find(&t, MCZ_TOPO_PU, k)) >= 0; k++)
		npu++;
	while (nnuma < 8 && (numa[nnuma] = rec_topology_find(&t, MCZ_TOPO_NUMA, nnuma)) >= 0)
		nnuma++;
	while (ngpu < 16 && (gpu[ngpu] = rec_topology_find(&t, MCZ_TOPO_GPU, ngpu)) >= 0)
		ngpu++;
	while (nnic < 8 && (nic[nnic] = rec_topology_find(&t, MCZ_TOPO_NIC, nnic)) >= 0)
		nnic++;
	if (!topo_desc) { /* a file without topology still has per-CPU streams */
		npu = 2;
		pu[0] = pu[1] = -1;
	}
	uint32_t id;
	size_t ns = 0;
	for (int k = 0; k < npu; k++) {
		char inst[16];
		snprintf(inst, sizeof inst, "cpu%d", k);
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "core.instructions", d.source = "perf", d.unit = "instructions";
		d.kind = MCZ_COUNTER, d.type = MCZ_U64, d.instance = inst, d.topo = pu[k];
		mcz_writer_add_stream(w, &d, &id);
		d.name = "core.cycles", d.unit = "cycles";
		mcz_writer_add_stream(w, &d, &id);
		d.name = "os.cpu.busy", d.unit = "%", d.kind = MCZ_GAUGE, d.type = MCZ_F64;
		mcz_writer_add_stream(w, &d, &id);
		ns += 3;
	}
	for (int k = 0; k < nnuma; k++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "mem.read_bytes", d.source = "perf", d.unit = "B", d.kind = MCZ_COUNTER;
		d.type = MCZ_U64, d.topo = numa[k];
		mcz_writer_add_stream(w, &d, &id);
		ns++;
	}
	for (int k = 0; k < ngpu; k++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "gpu.power", d.source = "nvml", d.unit = "W", d.topo = gpu[k];
		mcz_writer_add_stream(w, &d, &id);
		ns++;
	}
	for (int k = 0; k < nnic; k++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = "net.rx_bytes", d.source = "net", d.unit = "B", d.kind = MCZ_COUNTER;
		d.type = MCZ_U64, d.topo = nic[k];
		mcz_writer_add_stream(w, &d, &id);
		ns++;
	}
	mcz_value *v = calloc(ns, sizeof *v);
	int rc = 0;
	for (long r = 0; r < ROWS && rc == 0; r++) {
		size_t j = 0;
		for (int k = 0; k < npu; k++) {
			if (r > 0) {
				v[j].u += (uint64_t)llround(ins_rate(r, k) * 0.01);
				v[j + 1].u += (uint64_t)llround(2e9 * 0.01);
			}
			v[j + 2].f = k == 5 && r >= ROWS / 2 ? 100 : 10;
			j += 3;
		}
		for (int k = 0; k < nnuma; k++, j++)
			v[j].u += r > 0 ? (uint64_t)llround((k ? 3e9 : 1e9) * 0.01) : 0;
		for (int k = 0; k < ngpu; k++, j++)
			v[j].f = 100 + 50 * k;
		for (int k = 0; k < nnic; k++, j++)
			v[j].u += r > 0 ? (uint64_t)llround(1e6 * (k + 1) * 0.01) : 0;
		rc = mcz_writer_append(w, r * DT, v, NULL);
	}
	free(v);
	rec_topology_free(&t);
	return mcz_writer_close(w) == MCZ_OK && rc == MCZ_OK ? 0 : -1;
}

static int setup(void **st)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path_cpu, sizeof path_cpu, "%s/cpu.mcz", dir);
	snprintf(path_gpu, sizeof path_gpu, "%s/gpu.mcz", dir);
	snprintf(path_none, sizeof path_none, "%s/none.mcz", dir);
	return write_file(path_cpu, TOPO_DESC) || write_file(path_gpu, TOPO_DATA "/gpu-node.xml") ||
	       write_file(path_none, NULL);
}

static int teardown(void **st)
{
	unlink(path_cpu), unlink(path_gpu), unlink(path_none);
	rmdir(dir);
	return 0;
}

typedef struct fx {
	vw_model *m;
	vw_an *an;
	vw_ctx ctx;
	void *s;
	vw_canvas *c;
	char *txt;
} fx;

static void fx_open(fx *f, const char *path, int w, int h)
{
	char err[256];
	const char *p[1] = {path};
	memset(f, 0, sizeof *f);
	assert_int_equal(vw_model_open(&f->m, p, 1, NULL, err, sizeof err), 0);
	assert_non_null(f->an = vw_an_new(f->m));
	f->ctx = (vw_ctx){.m = f->m, .an = f->an};
	assert_int_equal(view_topology.init(&f->ctx, &f->s), 0);
	f->c = vw_canvas_new(w, h);
	f->c->ascii = 1;
}

static const char *fx_draw(fx *f)
{
	free(f->txt);
	view_topology.draw(&f->ctx, f->s, f->c);
	f->txt = vw_canvas_to_text(f->c);
	return f->txt;
}

static unsigned fx_act(fx *f, vw_action act, int key)
{
	vw_input in = {.act = act, .key = key};
	return view_topology.key(&f->ctx, f->s, &in);
}

static void fx_close(fx *f)
{
	free(f->txt);
	view_topology.free(f->s);
	vw_canvas_free(f->c);
	vw_an_free(f->an);
	vw_model_free(f->m);
}

static void expect(const fx *f, const char *s)
{
	if (!strstr(f->txt, s))
		fail_msg("screen lacks '%s':\n%s", s, f->txt);
}

/* The value shown right of label in the panel (the first occurrence of
 * label followed by a number), SI prefix applied. */
static double panel_value(const fx *f, const char *label)
{
	for (const char *p = f->txt; (p = strstr(p, label)); p++) {
		const char *q = p + strlen(label);
		while (*q == ' ')
			q++;
		char *end;
		double v = strtod(q, &end);
		if (end == q)
			continue;
		const char *pre = "kMGT";
		const char *k = *end == ' ' && end[1] ? strchr(pre, end[1]) : NULL;
		for (int e = k ? (int)(k - pre) + 1 : 0; e > 0; e--)
			v *= 1000;
		return v;
	}
	fail_msg("no '%s' and a number in:\n%s", label, f->txt);
	return NAN;
}

static const topo_metric *metric(const topo_metrics *ms, const char *name)
{
	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->v[i].name, name))
			return &ms->v[i];
	fail_msg("no metric %s", name);
	return NULL;
}

#define near(a, b, rel)                                                                    \
	do {                                                                                \
		double a_ = (a), b_ = (b);                                                  \
		if (!(fabs(a_ - b_) <= (rel) * fabs(b_)))                                   \
			fail_msg("%s = %.6g, expected %.6g", #a, a_, b_);                   \
	} while (0)

static void test_metrics_and_values(void **st)
{
	fx f;
	fx_open(&f, path_cpu, 120, 40);
	size_t n = mcz_topo_count(f.m->files[0]);
	mcz_topo_obj *objs = malloc(n * sizeof *objs);
	for (size_t i = 0; i < n; i++)
		objs[i] = *mcz_topo(f.m->files[0], i);
	topo_tree t;
	topo_metrics ms;
	assert_int_equal(topo_tree_build(&t, objs, n), MCZ_OK);
	assert_int_equal(topo_metric_list(&ms, f.m, 0, n), 0);
	assert_int_equal(ms.n, 5); /* ins, cycles, busy, read bytes, IPC */
	assert_int_equal(metric(&ms, "core.instructions")->agg, TOPO_AGG_SUM);
	assert_int_equal(metric(&ms, "core.instructions")->nnum, 8);
	assert_int_equal(metric(&ms, "os.cpu.busy")->agg, TOPO_AGG_MEAN);
	assert_int_equal(metric(&ms, "mem.read_bytes")->agg, TOPO_AGG_SUM);
	const topo_metric *ipc = metric(&ms, "core.IPC");
	assert_int_equal(ipc->agg, TOPO_AGG_RATIO);
	assert_int_equal(ipc->nden, 8);

	double *own = malloc(n * sizeof *own), *agg = malloc(n * sizeof *agg);
	int64_t t0 = f.m->t_min, t1 = f.m->t_max + 1, mid = t0 + (ROWS / 2) * DT;
	rec_topology rt;
	char err[200];
	assert_int_equal(rec_topology_load(&rt, TOPO_DESC, err, sizeof err), 0);
	int32_t pu5 = rec_topology_find(&rt, MCZ_TOPO_PU, 5);
	int32_t pu0 = rec_topology_find(&rt, MCZ_TOPO_PU, 0);
	int32_t core2 = rec_topology_find(&rt, MCZ_TOPO_CORE, 2);
	int32_t pack1 = rec_topology_find(&rt, MCZ_TOPO_PACKAGE, 1);
	int32_t numa1 = rec_topology_find(&rt, MCZ_TOPO_NUMA, 1);

	/* second half: PU 5 at 4e9, the 7 others 1e8 */
	assert_int_equal(topo_metric_eval(f.m, metric(&ms, "core.instructions"), &t, -1, mid + DT, t1,
					  own, agg), 0);
	near(agg[pu5], 4e9, 0.01);
	near(agg[pu0], 1e8, 0.01);
	near(agg[core2], 4.1e9, 0.01);
	near(agg[pack1], 4.3e9, 0.01);
	near(agg[0], 4.7e9, 0.01);
	/* first half: all even */
	assert_int_equal(topo_metric_eval(f.m, metric(&ms, "core.instructions"), &t, -1, t0 + DT, mid,
					  own, agg), 0);
	near(agg[pu5], 1e8, 0.01);
	near(agg[0], 8e8, 0.01);
	/* IPC: ratio of sums; busy: means; memory on NUMA nodes sums to the machine */
	assert_int_equal(topo_metric_eval(f.m, ipc, &t, -1, mid + DT, t1, own, agg), 0);
	near(agg[pu5], 2.0, 0.01);
	near(agg[0], 4.7e9 / 16e9, 0.01);
	assert_int_equal(topo_metric_eval(f.m, metric(&ms, "os.cpu.busy"), &t, -1, mid, t1, own, agg),
			 0);
	near(agg[pu5], 100, 1e-9);
	near(agg[core2], 55, 1e-9);
	near(agg[0], (7 * 10 + 100) / 8.0, 1e-9);
	assert_int_equal(topo_metric_eval(f.m, metric(&ms, "mem.read_bytes"), &t, -1, t0, t1, own, agg),
			 0);
	near(agg[numa1], 3e9, 0.01);
	near(agg[pack1], 3e9, 0.01);
	near(agg[0], 4e9, 0.01);
	assert_true(isnan(agg[pu5])); /* nothing bound below a NUMA node */

	rec_topology_free(&rt);
	free(own), free(agg), free(objs);
	topo_metric_list_free(&ms);
	topo_tree_free(&t);
	fx_close(&f);
}

static void test_view_draw_and_keys(void **st)
{
	fx f;
	fx_open(&f, path_cpu, 120, 40);
	fx_draw(&f);
	expect(&f, "Topology  core.instructions [ins/s, sum] 1/5  over whole run  span: leaves");
	fx_close(&f);
	/* narrow: the metric's number whole or not at all ("1/17" cut to "1/1" lies) */
	fx_open(&f, path_cpu, 42, 20);
	fx_draw(&f);
	expect(&f, "Topology  core.instructions [ins/s, sum]  \n");
	fx_close(&f);
	fx_open(&f, path_cpu, 120, 40);
	fx_draw(&f);
	expect(&f, "Machine (32 GiB)");
	expect(&f, "2 children");
	expect(&f, "Package#1");
	expect(&f, "(top: largest in the Machine ring)");
	/* Down: the first package; Right: the second; Down twice: NUMA#1, L3#1 */
	assert_true(fx_act(&f, VW_ACT_DOWN, 0) & VW_R_REDRAW);
	fx_draw(&f);
	expect(&f, "Package#0  ");
	fx_act(&f, VW_ACT_RIGHT, 0);
	fx_act(&f, VW_ACT_DOWN, 0);
	fx_act(&f, VW_ACT_DOWN, 0);
	fx_draw(&f);
	expect(&f, "L3#1 (16 MiB)");
	expect(&f, "Machine (32 GiB) > P1 > N1");
	/* its children: core 2 (with the busy PU 5) and core 3 */
	expect(&f, "Core#2");
	expect(&f, "Core#3");
	/* zoom into L3#1: the centre is L3#1, Package#0 is gone */
	assert_true(fx_act(&f, VW_ACT_ENTER, 0) & VW_R_REDRAW);
	fx_draw(&f);
	expect(&f, "zoom: L3#1 (16 MiB)");
	assert_null(strstr(f.txt, "P0"));
	/* Up at the centre does nothing; Backspace zooms out one level */
	assert_int_equal(fx_act(&f, VW_ACT_UP, 0), VW_R_NONE);
	fx_act(&f, VW_ACT_BACK, 0);
	fx_act(&f, VW_ACT_BACK, 0);
	fx_act(&f, VW_ACT_BACK, 0);
	assert_int_equal(fx_act(&f, VW_ACT_BACK, 0), VW_R_NONE); /* already at the machine */
	fx_draw(&f);
	assert_null(strstr(f.txt, "zoom:"));
	expect(&f, "P0");
	/* a click selects the segment under it: the centre is the machine, a
	 * cell near the chart's top edge (12 o'clock, outer ring) a PU */
	{
		vw_input click = {.act = VW_ACT_MOUSE, .mouse_button = 1};
		int cw = 120 - 40 - 1, ch = 40 - 3; /* the chart box left of the panel */
		click.mouse_x = cw / 2 + 1, click.mouse_y = 1 + 1;
		assert_true(view_topology.key(&f.ctx, f.s, &click) & VW_R_REDRAW);
		fx_draw(&f);
		expect(&f, "PU#0  ");
		click.mouse_x = cw / 2, click.mouse_y = 1 + ch / 2;
		assert_true(view_topology.key(&f.ctx, f.s, &click) & VW_R_REDRAW);
		fx_draw(&f);
		expect(&f, "Machine (32 GiB)  ");
		click.mouse_x = 0, click.mouse_y = 1; /* a corner: nothing there */
		assert_int_equal(view_topology.key(&f.ctx, f.s, &click), VW_R_NONE);
	}
	/* m: next metric */
	fx_act(&f, VW_ACT_METRIC, 'm');
	fx_draw(&f);
	expect(&f, "core.cycles [cyc/s, sum] 2/5");
	fx_act(&f, VW_ACT_NONE, 'M');
	fx_act(&f, VW_ACT_NONE, 'M');
	fx_draw(&f);
	expect(&f, "core.IPC [IPC, ratio] 5/5");
	/* w: span by metric; L: icicle */
	fx_act(&f, VW_ACT_NONE, 'w');
	fx_draw(&f);
	expect(&f, "span: metric");
	fx_act(&f, VW_ACT_LAYOUT, 'L');
	fx_draw(&f);
	/* the icicle's second row band is the packages side by side */
	expect(&f, "Package#0");
	fx_close(&f);
}

/* PU 5 is the hottest PU only in the second half: the colour follows the window. */
static void test_recolour_on_window(void **st)
{
	fx f;
	fx_open(&f, path_cpu, 100, 40);
	int64_t mid = f.m->t_min + (ROWS / 2) * DT;
	vw_model_set_window(f.m, mid + DT, f.m->t_max + 1);
	fx_draw(&f);
	expect(&f, "over window");
	/* select PU 5: Down x4 (package 0, NUMA 0, L3 0, core 0), then along */
	for (int k = 0; k < 5; k++)
		fx_act(&f, VW_ACT_DOWN, 0);
	for (int k = 0; k < 5; k++)
		fx_act(&f, VW_ACT_RIGHT, 0);
	fx_draw(&f);
	expect(&f, "PU#5");
	expect(&f, "4.00 Gins/s");
	vw_model_set_window(f.m, f.m->t_min + DT, mid);
	fx_draw(&f);
	expect(&f, "100 Mins/s");
	fx_close(&f);
}

/* Past the frame budget (vw_model_budget), values not read yet are not
 * read: the header says "updating...", the last range's values stay drawn
 * (none at first); the next frame with time reads them. */
static void test_budget_keeps_last_range(void **st)
{
	fx f;
	fx_open(&f, path_cpu, 100, 40);
	int64_t mid = f.m->t_min + (ROWS / 2) * DT;
	vw_model_set_window(f.m, mid + DT, f.m->t_max + 1);
	for (int k = 0; k < 5; k++) /* PU 5, as above */
		fx_act(&f, VW_ACT_DOWN, 0);
	for (int k = 0; k < 5; k++)
		fx_act(&f, VW_ACT_RIGHT, 0);
	f.m->budget_end = 1; /* CLOCK_MONOTONIC ns 1: spent */
	f.m->budget_work = 1;
	fx_draw(&f);
	expect(&f, "updating...");
	assert_true(f.m->refining);
	assert_null(strstr(f.txt, "Gins/s"));
	vw_model_budget(f.m, 0);
	fx_draw(&f);
	assert_null(strstr(f.txt, "updating..."));
	assert_false(f.m->refining);
	expect(&f, "PU#5");
	expect(&f, "4.00 Gins/s");
	/* the window moves: the last values stay until the new ones are read */
	vw_model_set_window(f.m, f.m->t_min + DT, mid);
	f.m->budget_end = 1;
	f.m->budget_work = 1;
	fx_draw(&f);
	expect(&f, "updating...");
	expect(&f, "4.00 Gins/s");
	vw_model_budget(f.m, 0);
	fx_draw(&f);
	assert_null(strstr(f.txt, "updating..."));
	expect(&f, "100 Mins/s");
	fx_close(&f);
}

/* n/p select a phase (the app does it for every view): the colours are
 * over that phase, the header says which; Bksp at the machine leaves it. */
static void test_phase_range(void **st)
{
	fx f;
	fx_open(&f, path_cpu, 100, 40);
	int64_t mid = f.m->t_min + (ROWS / 2) * DT;
	vw_phase v[2] = {{.t0 = f.m->t_min, .t1 = mid, .cls = 0},
			 {.t0 = mid + DT, .t1 = f.m->t_max + 1, .cls = 1}};
	snprintf(v[1].label, sizeof v[1].label, "busy");
	struct vw_phases ph = {.v = v, .n = 2, .nclasses = 2};
	f.an->phases = &ph;
	f.m->phase_sel = 1;
	for (int k = 0; k < 5; k++)
		fx_act(&f, VW_ACT_DOWN, 0);
	for (int k = 0; k < 5; k++)
		fx_act(&f, VW_ACT_RIGHT, 0);
	fx_draw(&f);
	expect(&f, "over phase 2 (B busy) 5.010s-9.990s");
	expect(&f, "PU#5");
	near(panel_value(&f, "core.instructions"), 4e9, 0.01);
	f.m->phase_sel = 0;
	fx_draw(&f);
	expect(&f, "over phase 1 (A) 0");
	near(panel_value(&f, "core.instructions"), 1e8, 0.01);
	/* Bksp at the machine: back to the window (zoomed in first: no) */
	assert_int_equal(fx_act(&f, VW_ACT_BACK, 0), VW_R_REDRAW);
	assert_int_equal(f.m->phase_sel, -1);
	fx_draw(&f);
	expect(&f, "over whole run");
	f.an->phases = NULL;
	fx_close(&f);
}

static void test_gpu_node_view(void **st)
{
	fx f;
	fx_open(&f, path_gpu, 140, 44);
	fx_draw(&f);
	/* gpu.power: the m key reaches it; the machine's value is the sum */
	for (int k = 0; k < 8 && !strstr(f.txt, "gpu.power ["); k++) {
		fx_act(&f, VW_ACT_METRIC, 'm');
		fx_draw(&f);
	}
	expect(&f, "gpu.power [W, sum]");
	near(panel_value(&f, "gpu.power "), 2200, 1e-9); /* 8 GPUs: 100 + 150 + ... + 450 W */
	for (int k = 0; k < 8 && !strstr(f.txt, "net.rx_bytes ["); k++) {
		fx_act(&f, VW_ACT_METRIC, 'm');
		fx_draw(&f);
	}
	expect(&f, "net.rx_bytes [B/s, sum]");
	near(panel_value(&f, "net.rx_bytes "), 6e6, 0.01); /* NICs at 1, 2, 3 MB/s */
	fx_close(&f);
}

static void test_no_topology(void **st)
{
	fx f;
	fx_open(&f, path_none, 100, 30);
	fx_draw(&f);
	expect(&f, "No topology in");
	expect(&f, "recorded without one");
	assert_null(strstr(f.txt, "PCP archive"));
	assert_int_equal(fx_act(&f, VW_ACT_DOWN, 0), VW_R_NONE);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_and_values), cmocka_unit_test(test_view_draw_and_keys),
		cmocka_unit_test(test_recolour_on_window), cmocka_unit_test(test_phase_range),
		cmocka_unit_test(test_budget_keeps_last_range),
		cmocka_unit_test(test_gpu_node_view),
		cmocka_unit_test(test_no_topology),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
