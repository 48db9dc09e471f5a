/* test-topo-render.c: viewer/views/draw/topo-render.c and topo-panel.c on real hwloc
 * topologies: picking the pixel at a computed angle and radius finds the
 * object laid out there (circles round in every glyph mode), the cell under
 * each PU's computed position carries the colour
 * role of that PU's level, the selected segment is drawn as selected, labels
 * land where they fit and never overlap, the icicle puts each ring on its
 * rows; then golden renders (ASCII, braille, half blocks, icicle, panel and
 * legend) in tests/unit/golden/topo-*.txt (UPDATE_GOLDEN=1 rewrites them).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../recorder/topo/topology.h"
#include "../../../viewer/views/draw/topo-draw.h"
#include "../golden.h"
#include "../topo-fixture.h"

static const vw_cell *cell(const vw_canvas *c, int x, int y)
{
	assert_true(x >= 0 && y >= 0 && x < c->w && y < c->h);
	return &c->cells[y * c->w + x];
}

/* The cell at each PU's mid-arc, mid-ring point has that PU's colour. */
static void check_pu_colours(const fix *f, const vw_canvas *c, int shape, int32_t selected)
{
	topo_geom g;
	topo_render_geom(c, c->w, c->h, f->L.nrings, shape, &g);
	int checked = 0;
	for (size_t s = 0; s < f->L.nseg; s++) {
		const topo_seg *sg = &f->L.seg[s];
		if (f->rt.objs[sg->node].type != MCZ_TOPO_PU)
			continue;
		double mid = (sg->a0 + sg->a1) / 2, px, py;
		if (shape == TOPO_ICICLE) {
			px = mid * g.pw, py = (sg->ring + 0.5) * g.ring;
		} else {
			double r = (sg->ring + 0.5) * g.ring;
			px = g.cx + r * sin(2 * PI * mid);
			py = g.cy - r * cos(2 * PI * mid) / g.yscale;
		}
		const vw_cell *k = cell(c, (int)(px / g.sx), (int)(py / g.sy));
		int want = sg->node == selected ? VW_C_SELECT : topo_render_role(f->level[sg->node]);
		if (k->role != want)
			fail_msg("PU#%d at cell (%d, %d): role %d, want %d", f->rt.objs[sg->node].os_index,
				 (int)(px / g.sx), (int)(py / g.sy), k->role, want);
		checked++;
	}
	assert_int_equal(checked, f->t.npu);
}

/* Picking a pixel finds the object computed to be there, with circles round
 * in every glyph mode (ASCII cells are one pixel, twice as tall as wide). */
static void test_pick(void **state)
{
	fix *f = fix_load("pack:2 numa:2 core:8 pu:2");
	for (int mode = 0; mode < 3; mode++) {
		vw_canvas c = {.w = 120, .h = 40, .ascii = mode == 1, .blocks = mode == 2};
		topo_geom g;
		topo_render_geom(&c, 120, 40, f->L.nrings, TOPO_SUNBURST, &g);
		/* the circle fills the height: radius = half the physical height */
		assert_near(g.ring * f->L.nrings, g.ph * g.yscale / 2, EPS);
		assert_int_equal(topo_render_pick(&g, &f->L, TOPO_SUNBURST, g.cx, g.cy), 0);
		for (int cpu = 0; cpu < 64; cpu++) {
			double a = 2 * PI * (cpu + 0.5) / 64, r = 4.5 * g.ring;
			double px = g.cx + r * sin(a), py = g.cy - r * cos(a) / g.yscale;
			assert_int_equal(topo_render_pick(&g, &f->L, TOPO_SUNBURST, px, py),
					 rec_topology_find(&f->rt, MCZ_TOPO_PU, cpu));
		}
		/* same radius across and down: ring 2 (NUMA) at 3, 6, 9 o'clock */
		double r = 2.5 * g.ring;
		int32_t right = topo_render_pick(&g, &f->L, TOPO_SUNBURST, g.cx + r, g.cy);
		int32_t down = topo_render_pick(&g, &f->L, TOPO_SUNBURST, g.cx, g.cy + r / g.yscale);
		int32_t left = topo_render_pick(&g, &f->L, TOPO_SUNBURST, g.cx - r, g.cy);
		assert_int_equal(right, rec_topology_find(&f->rt, MCZ_TOPO_NUMA, 1));
		assert_int_equal(down, rec_topology_find(&f->rt, MCZ_TOPO_NUMA, 2));
		assert_int_equal(left, rec_topology_find(&f->rt, MCZ_TOPO_NUMA, 3));
		/* outside the outer ring: nothing */
		assert_int_equal(topo_render_pick(&g, &f->L, TOPO_SUNBURST, g.cx + 5.2 * g.ring, g.cy),
				 -1);
		/* icicle: row band = ring, x = angle */
		topo_render_geom(&c, 120, 40, f->L.nrings, TOPO_ICICLE, &g);
		assert_int_equal(topo_render_pick(&g, &f->L, TOPO_ICICLE, g.pw * (17.5 / 64),
						  g.ph * (4.5 / 5)),
				 rec_topology_find(&f->rt, MCZ_TOPO_PU, 17));
		assert_int_equal(topo_render_pick(&g, &f->L, TOPO_ICICLE, g.pw * 0.99, 0.5), 0);
	}
	fix_free(f);
}

static void test_roles(void **state)
{
	fix *f = fix_load("pack:2 numa:2 core:4 pu:2");
	for (int mode = 0; mode < 3; mode++)
		for (int shape = 0; shape < 2; shape++) {
			vw_canvas *c = vw_canvas_new(shape ? 160 : 100, shape ? 30 : 50);
			c->ascii = mode == 1, c->blocks = mode == 2;
			int32_t sel = rec_topology_find(&f->rt, MCZ_TOPO_PU, 9);
			topo_render_opts o = {shape, f->level, sel, 0};
			topo_render(c, 0, 0, c->w, c->h, &f->t, &f->L, &o);
			check_pu_colours(f, c, shape, sel);
			/* the centre is the machine, nothing drawn outside the chart */
			if (shape == TOPO_SUNBURST) {
				assert_int_equal(cell(c, c->w / 2, c->h / 2)->role,
						 topo_render_role(f->level[0]));
				assert_int_equal(cell(c, 0, 0)->ch, ' ');
				assert_int_equal(cell(c, c->w - 1, c->h - 1)->ch, ' ');
			}
			/* hit-testing a cell gives back the object drawn there (cells
			 * wholly inside one segment: at edges the majority decides) */
			topo_geom g;
			topo_render_geom(c, c->w, c->h, f->L.nrings, shape, &g);
			for (int y = 0; y < c->h; y += 3)
				for (int x = 0; x < c->w; x += 5) {
					int32_t o2 = topo_render_hit(c, 0, 0, c->w, c->h, &f->L, shape, x, y);
					int whole = 1;
					for (int k = 0; k < 4; k++)
						whole &= topo_render_pick(&g, &f->L, shape,
									  (x + 0.1 + 0.8 * (k & 1)) * g.sx,
									  (y + 0.1 + 0.8 * (k >> 1)) * g.sy) == o2;
					if (o2 >= 0 && whole && o2 != sel)
						assert_int_equal(cell(c, x, y)->role,
								 topo_render_role(f->level[o2]));
				}
			vw_canvas_free(c);
		}
	fix_free(f);
}

/* Labels: where they fit, on their own segment, at least one cell apart. */
static void test_labels(void **state)
{
	fix *f = fix_load("pack:2 numa:2 core:4 pu:2");
	vw_canvas *c = vw_canvas_new(120, 50);
	topo_render_opts o = {TOPO_SUNBURST, f->level, -1, 1};
	topo_render(c, 0, 0, c->w, c->h, &f->t, &f->L, &o);
	char *txt = vw_canvas_to_text(c);
	assert_non_null(strstr(txt, "Machine"));
	assert_non_null(strstr(txt, "Package#0"));
	assert_non_null(strstr(txt, "Package#1"));
	/* every label run is surrounded by non-label cells */
	for (int y = 0; y < c->h; y++)
		for (int x = 1; x < c->w; x++) {
			const vw_cell *a = cell(c, x - 1, y), *b = cell(c, x, y);
			int la = (a->attr & VW_A_REVERSE) != 0, lb = (b->attr & VW_A_REVERSE) != 0;
			if (la && lb && a->role != b->role)
				fail_msg("two labels touch at (%d, %d)", x, y);
		}
	free(txt);
	vw_canvas_free(c);
	fix_free(f);
}

static void render_golden(const char *desc, int w, int h, int ascii, int blocks, int shape,
			  const char *name)
{
	fix *f = fix_load(desc);
	vw_canvas *c = vw_canvas_new(w, h);
	c->ascii = ascii, c->blocks = blocks;
	topo_render_opts o = {shape, f->level, rec_topology_find(&f->rt, MCZ_TOPO_CORE, 1), 1};
	topo_render(c, 0, 0, w, h, &f->t, &f->L, &o);
	golden(name, c);
	vw_canvas_free(c);
	fix_free(f);
}

static void test_golden_renders(void **state)
{
	render_golden("pack:2 numa:2 core:4 pu:2", 64, 30, 1, 0, TOPO_SUNBURST,
		      "topo-2x2x4x2-ascii");
	render_golden("pack:2 numa:2 core:4 pu:2", 64, 30, 0, 0, TOPO_SUNBURST,
		      "topo-2x2x4x2-braille");
	render_golden("pack:2 numa:2 core:4 pu:2", 64, 30, 0, 1, TOPO_SUNBURST,
		      "topo-2x2x4x2-blocks");
	render_golden("pack:2 numa:2 core:4 pu:2", 80, 12, 1, 0, TOPO_ICICLE,
		      "topo-2x2x4x2-icicle");
	render_golden(TOPO_DATA "/gpu-node.xml", 80, 40, 1, 0, TOPO_SUNBURST, "topo-gpu-node");
	render_golden("pack:4 numa:2 l3:2 core:8 pu:2", 100, 50, 0, 0, TOPO_SUNBURST,
		      "topo-256pu-braille");
}

/* Panel and legend: names, values with units, children with bars. */
static void test_panel(void **state)
{
	fix *f = fix_load("pack:2 [numa(memory=64GiB)] l3:1(size=32MiB) l2:2(size=1MiB) "
			  "l1:1(size=48KiB) core:1 pu:2");
	size_t n = f->rt.n;
	topo_metric mt[2] = {{.name = "core.instructions", .unit = "ins/s", .agg = TOPO_AGG_SUM},
			     {.name = "os.cpu.busy", .unit = "%", .agg = TOPO_AGG_MEAN}};
	double *vals = calloc(2 * n, sizeof *vals), own[2][64];
	for (size_t i = 0; i < n; i++)
		own[0][i] = own[1][i] = NAN;
	for (int cpu = 0; cpu < 8; cpu++) {
		int32_t pu = rec_topology_find(&f->rt, MCZ_TOPO_PU, cpu);
		own[0][pu] = cpu == 5 ? 4e9 : 1e8;
		own[1][pu] = cpu == 5 ? 100 : 2;
	}
	topo_tree_aggregate(&f->t, own[0], NULL, TOPO_AGG_SUM, vals);
	topo_tree_aggregate(&f->t, own[1], NULL, TOPO_AGG_MEAN, vals + n);
	int32_t l3 = rec_topology_find(&f->rt, MCZ_TOPO_L3, 1);
	topo_layout_levels(&f->L, n, vals, 1, 0, f->level, NULL);
	topo_panel_in in = {&f->t, l3, mt, 2, 0, vals, f->level};
	vw_canvas *c = vw_canvas_new(44, 14);
	c->ascii = 1;
	topo_panel_draw(c, 0, 0, 44, 12, &in);
	topo_panel_legend(c, 0, 13, 44, &mt[0], 0, 4.3e9, "");
	char *txt = vw_canvas_to_text(c);
	if (getenv("TOPO_SHOW"))
		fputs(txt, stderr);
	/* L3#1 holds PUs 4-7 (cores 2, 3): 4.3 G ins/s, all of its NUMA node's;
	 * busy: the mean of 2, 2, 100, 2 */
	assert_non_null(strstr(txt, "L3#1 (32 MiB)"));
	assert_non_null(strstr(txt, "Machine (128 GiB) > P1 > N1"));
	assert_non_null(strstr(txt, "4.30 Gins/s"));
	assert_non_null(strstr(txt, "100.0% of NUMA#1 (64 GiB)"));
	assert_non_null(strstr(txt, "26.5%"));
	assert_non_null(strstr(txt, "2 children"));
	assert_non_null(strstr(txt, "Core#2          4.10 Gins/s ####"));
	assert_non_null(strstr(txt, "Core#3           200 Mins/s #  "));
	free(txt);
	golden("topo-panel", c);
	vw_canvas_free(c);
	free(vals);
	fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_golden_renders),
		cmocka_unit_test(test_panel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
