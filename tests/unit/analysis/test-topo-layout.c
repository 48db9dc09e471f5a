/* test-topo-layout.c: the topology view's tree, aggregation and geometry
 * (viewer/analysis/topology/topo-tree.c, viewer/analysis/topology/topo-layout.c)
 * on real hwloc topologies built by recorder/topo/topology.c from synthetic
 * descriptions and the GPU-node XML fixture, and on hand-made tables.
 *
 * Angles and rings are checked by computation: every PU's arc against
 * k/npu, every parent's arc against the union of its children's. */
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
#include "../../../viewer/analysis/topology/topo.h"
#include "../topo-fixture.h"

static const topo_seg *seg(const fix *f, int32_t obj)
{
	assert_true(f->L.seg_of[obj] >= 0);
	return &f->L.seg[f->L.seg_of[obj]];
}

/* Each drawn parent's arc is exactly the union of its drawn children's, the
 * children tile it without gaps or overlaps, one ring further out. */
static void check_nesting(const fix *f)
{
	for (size_t s = 0; s < f->L.nseg; s++) {
		const topo_seg *p = &f->L.seg[s];
		double lo = 2, hi = -1, covered = 0;
		for (size_t k = 0; k < f->L.nseg; k++) {
			const topo_seg *c = &f->L.seg[k];
			if (topo_tree_parent(&f->t, c->node) != p->node)
				continue;
			assert_int_equal(c->ring, p->ring + 1);
			lo = fmin(lo, c->a0), hi = fmax(hi, c->a1);
			covered += c->a1 - c->a0;
		}
		if (hi < 0)
			continue; /* a leaf */
		assert_near(lo, p->a0, EPS);
		assert_near(hi, p->a1, EPS);
		assert_near(covered, p->a1 - p->a0, EPS);
	}
	/* rings are sorted by angle and do not overlap */
	for (int r = 0; r < f->L.nrings; r++)
		for (uint32_t k = f->L.ring_off[r] + 1; k < f->L.ring_off[r + 1]; k++)
			assert_true(f->L.seg[k].a0 >= f->L.seg[k - 1].a1 - EPS);
}

static void test_pack2_numa2(void **state)
{
	fix *f = fix_load("pack:2 numa:2 core:8 pu:2");
	/* machine, package, NUMA, core, PU */
	assert_int_equal(f->L.nrings, 5);
	assert_int_equal(f->L.nseg, f->rt.n);
	check_nesting(f);
	for (int cpu = 0; cpu < 64; cpu++) {
		int32_t pu = rec_topology_find(&f->rt, MCZ_TOPO_PU, cpu);
		const topo_seg *s = seg(f, pu);
		assert_int_equal(s->ring, 4);
		assert_near(s->a0, cpu / 64.0, EPS);
		assert_near(s->a1, (cpu + 1) / 64.0, EPS);
		assert_int_equal(f->L.seg[topo_layout_at(&f->L, 4, (cpu + 0.5) / 64)].node, pu);
	}
	for (int k = 0; k < 4; k++) {
		const topo_seg *s = seg(f, rec_topology_find(&f->rt, MCZ_TOPO_NUMA, k));
		assert_int_equal(s->ring, 2);
		assert_near(s->a0, k / 4.0, EPS);
		assert_near(s->a1, (k + 1) / 4.0, EPS);
	}
	const topo_seg *root = seg(f, 0);
	assert_int_equal(root->ring, 0);
	assert_near(root->a0, 0, EPS);
	assert_near(root->a1, 1, EPS);
	assert_int_equal(topo_layout_at(&f->L, 5, 0.5), -1);
	assert_int_equal(topo_layout_at(&f->L, -1, 0.5), -1);
	fix_free(f);
}

/* Private L2/L1 (one child each) are not rings; the shared L3 is. */
static void test_private_caches_hidden(void **state)
{
	fix *f = fix_load("pack:2 [numa(memory=64GiB)] l3:1(size=32MiB) l2:4(size=1MiB) "
			  "l1:1(size=48KiB) core:1 pu:2");
	/* machine, package, NUMA, L3, core, PU */
	assert_int_equal(f->L.nrings, 6);
	check_nesting(f);
	for (size_t i = 0; i < f->rt.n; i++) {
		int type = f->rt.objs[i].type;
		int hidden = type == MCZ_TOPO_L2 || type == MCZ_TOPO_L1;
		assert_int_equal(f->t.hidden[i], hidden);
		assert_int_equal(f->L.seg_of[i] < 0, hidden);
	}
	int32_t core = rec_topology_find(&f->rt, MCZ_TOPO_CORE, 5);
	assert_int_equal(seg(f, core)->ring, 4);
	assert_int_equal(topo_tree_parent(&f->t, core), rec_topology_find(&f->rt, MCZ_TOPO_L3, 1));
	assert_near(seg(f, core)->a0, 5 / 8.0, EPS);
	fix_free(f);
}

/* GPUs and NICs are their own segments, one ring out from their package. */
static void test_gpu_node(void **state)
{
	fix *f = fix_load(TOPO_DATA "/gpu-node.xml");
	check_nesting(f);
	/* 16 PUs + 8 GPUs + 3 NICs: devices weigh max(1, 16 / 22) = 1 */
	assert_near(f->t.leafw[0], 27, EPS);
	int32_t pack0 = rec_topology_find(&f->rt, MCZ_TOPO_PACKAGE, 0);
	assert_near(seg(f, pack0)->a1 - seg(f, pack0)->a0, 14 / 27.0, EPS);
	for (int k = 0; k < 8; k++) {
		const topo_seg *s = seg(f, rec_topology_find(&f->rt, MCZ_TOPO_GPU, k));
		assert_int_equal(s->ring, 2);
		assert_near(s->a1 - s->a0, 1 / 27.0, EPS);
	}
	const topo_seg *ib0 = seg(f, rec_topology_find_nic(&f->rt, "ib0"));
	assert_int_equal(ib0->ring, 2);
	/* a GPU, a leaf two rings from the rim, is drawn out to it as a wedge;
	 * a package, not a leaf, only in its own ring */
	const topo_seg *g0 = seg(f, rec_topology_find(&f->rt, MCZ_TOPO_GPU, 0));
	assert_int_equal(f->L.nrings, 6); /* machine, package, NUMA, L3, core, PU */
	assert_int_equal(g0->ring_out, 6);
	for (int r = 2; r < 6; r++)
		assert_int_equal(topo_layout_at(&f->L, r, (g0->a0 + g0->a1) / 2), f->L.seg_of[g0->node]);
	assert_int_equal(topo_layout_at(&f->L, 1, (g0->a0 + g0->a1) / 2), f->L.seg_of[pack0]);
	assert_int_equal(seg(f, pack0)->ring_out, 2);
	const topo_seg *pu7 = seg(f, rec_topology_find(&f->rt, MCZ_TOPO_PU, 7));
	assert_int_equal(pu7->ring_out, 6);
	assert_int_equal(pu7->ring, 5);
	fix_free(f);
}

/* 256 PUs and 10 devices: each device weighs floor(256 / 20) = 12 PUs, so the
 * devices take 120 / 376 of the circle instead of 10 / 266. */
static void test_device_weight(void **state)
{
	enum { NPU = 256, NDEV = 10, N = 1 + 2 + NPU + NDEV };
	mcz_topo_obj o[N];
	char names[N][16];
	size_t n = 0;
	o[n++] = (mcz_topo_obj){-1, MCZ_TOPO_MACHINE, 0, 0, "Machine"};
	for (int p = 0; p < 2; p++) {
		int32_t pk = (int32_t)n;
		o[n++] = (mcz_topo_obj){0, MCZ_TOPO_PACKAGE, p, 0, "Package"};
		for (int k = 0; k < NPU / 2; k++) {
			snprintf(names[n], sizeof names[n], "PU#%d", p * NPU / 2 + k);
			o[n] = (mcz_topo_obj){pk, MCZ_TOPO_PU, p * NPU / 2 + k, 0, names[n]};
			n++;
		}
		for (int k = 0; k < NDEV / 2; k++) {
			int gpu = k < 4;
			snprintf(names[n], sizeof names[n], gpu ? "GPU#%d" : "ib%d", p * 4 + k);
			o[n] = (mcz_topo_obj){pk, gpu ? MCZ_TOPO_GPU : MCZ_TOPO_NIC, p * 4 + k, 0,
					      names[n]};
			n++;
		}
	}
	assert_int_equal(n, N);
	topo_tree t;
	topo_layout L;
	assert_int_equal(topo_tree_build(&t, o, n), MCZ_OK);
	assert_int_equal(t.npu, NPU);
	assert_int_equal(t.ndev, NDEV);
	assert_near(t.leafw[0], NPU + NDEV * 12, EPS);
	assert_int_equal(topo_layout_build(&L, &t, 0, t.leafw), MCZ_OK);
	const topo_seg *g = &L.seg[L.seg_of[N - 1]];
	assert_near(g->a1 - g->a0, 12.0 / (NPU + NDEV * 12), EPS);
	const topo_seg *pu = &L.seg[L.seg_of[2]];
	assert_near(pu->a1 - pu->a0, 1.0 / (NPU + NDEV * 12), EPS);
	topo_layout_free(&L);
	topo_tree_free(&t);
}

static void test_aggregate(void **state)
{
	fix *f = fix_load("pack:2 core:2 pu:2"); /* 8 PUs */
	size_t n = f->rt.n;
	double own[64], den[64], out[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++)
		own[i] = den[i] = NAN;
	for (int cpu = 0; cpu < 8; cpu++) {
		int32_t pu = rec_topology_find(&f->rt, MCZ_TOPO_PU, cpu);
		own[pu] = cpu + 1;      /* 1..8 */
		den[pu] = 2 * (cpu + 1); /* IPC 0.5 everywhere */
	}
	int32_t p0 = rec_topology_find(&f->rt, MCZ_TOPO_PACKAGE, 0);
	int32_t p1 = rec_topology_find(&f->rt, MCZ_TOPO_PACKAGE, 1);
	int32_t c3 = rec_topology_find(&f->rt, MCZ_TOPO_CORE, 3);

	topo_tree_aggregate(&f->t, own, NULL, TOPO_AGG_SUM, out);
	assert_near(out[0], 36, EPS);
	assert_near(out[p0], 1 + 2 + 3 + 4, EPS);
	assert_near(out[c3], 7 + 8, EPS);
	topo_tree_aggregate(&f->t, own, NULL, TOPO_AGG_MEAN, out);
	assert_near(out[0], 4.5, EPS);
	assert_near(out[p1], 6.5, EPS);
	topo_tree_aggregate(&f->t, own, den, TOPO_AGG_RATIO, out);
	assert_near(out[0], 0.5, EPS);
	assert_near(out[c3], 0.5, EPS);

	/* an object's own value adds to what is below it for sums (disjoint
	 * parts), and replaces it for means and ratios */
	own[p1] = 100;
	den[p1] = 400;
	topo_tree_aggregate(&f->t, own, NULL, TOPO_AGG_SUM, out);
	assert_near(out[p1], 100 + 26, EPS);
	assert_near(out[0], 136, EPS);
	topo_tree_aggregate(&f->t, own, NULL, TOPO_AGG_MEAN, out);
	assert_near(out[p1], 100, EPS);
	assert_near(out[0], (1 + 2 + 3 + 4 + 100) / 5.0, EPS);
	topo_tree_aggregate(&f->t, own, den, TOPO_AGG_RATIO, out);
	assert_near(out[p1], 0.25, EPS);
	assert_near(out[0], (10 + 100) / (20.0 + 400), EPS);
	/* nothing below: NaN, and a parent of nothing stays NaN */
	for (size_t i = 0; i < n; i++)
		own[i] = NAN;
	own[rec_topology_find(&f->rt, MCZ_TOPO_PU, 0)] = 0;
	topo_tree_aggregate(&f->t, own, NULL, TOPO_AGG_MEAN, out);
	assert_near(out[0], 0, EPS);
	assert_true(isnan(out[p1]));
	fix_free(f);
}

/* Span by metric: each PU's arc is its share of the total. */
static void test_metric_weights(void **state)
{
	fix *f = fix_load("pack:2 core:2 pu:2");
	double own[64], agg[64];
	for (size_t i = 0; i < f->rt.n; i++)
		own[i] = NAN;
	for (int cpu = 0; cpu < 8; cpu++)
		own[rec_topology_find(&f->rt, MCZ_TOPO_PU, cpu)] = cpu == 2 ? 0 : cpu + 1;
	topo_tree_aggregate(&f->t, own, NULL, TOPO_AGG_SUM, agg);
	topo_layout_free(&f->L);
	assert_int_equal(topo_layout_build(&f->L, &f->t, 0, agg), MCZ_OK);
	check_nesting(f);
	double total = 36 - 3, at = 0;
	for (int cpu = 0; cpu < 8; cpu++) {
		int32_t pu = rec_topology_find(&f->rt, MCZ_TOPO_PU, cpu);
		if (cpu == 2) { /* weighs nothing: not drawn */
			assert_int_equal(f->L.seg_of[pu], -1);
			continue;
		}
		assert_near(seg(f, pu)->a0, at / total, EPS);
		at += cpu + 1;
		assert_near(seg(f, pu)->a1, at / total, EPS);
	}
	/* a metric that weighs nothing anywhere falls back to leaves */
	for (size_t i = 0; i < f->rt.n; i++)
		agg[i] = NAN;
	topo_layout_free(&f->L);
	assert_int_equal(topo_layout_build(&f->L, &f->t, 0, agg), MCZ_OK);
	assert_near(seg(f, rec_topology_find(&f->rt, MCZ_TOPO_PU, 3))->a0, 3 / 8.0, EPS);
	fix_free(f);
}

/* Zoom: a package becomes the centre; its subtree fills the circle. */
static void test_zoom(void **state)
{
	fix *f = fix_load("pack:2 numa:2 core:8 pu:2");
	int32_t p1 = rec_topology_find(&f->rt, MCZ_TOPO_PACKAGE, 1);
	topo_layout_free(&f->L);
	assert_int_equal(topo_layout_build(&f->L, &f->t, p1, f->t.leafw), MCZ_OK);
	assert_int_equal(f->L.nrings, 4); /* package, NUMA, core, PU */
	assert_int_equal(f->L.nseg, 1 + 2 + 16 + 32);
	check_nesting(f);
	assert_int_equal(seg(f, p1)->ring, 0);
	const topo_seg *pu40 = seg(f, rec_topology_find(&f->rt, MCZ_TOPO_PU, 40));
	assert_near(pu40->a0, 8 / 32.0, EPS);
	assert_int_equal(f->L.seg_of[rec_topology_find(&f->rt, MCZ_TOPO_PU, 3)], -1);
	assert_int_equal(f->L.seg_of[0], -1);
	/* out of the zoom: the root has no parent here */
	assert_int_equal(topo_layout_move(&f->L, &f->t, p1, 0, 1), -1);
	topo_layout_free(&f->L); /* build starts from an empty layout */
	assert_int_equal(topo_layout_build(&f->L, &f->t, (int32_t)f->rt.n, f->t.leafw), MCZ_E_ARG);
	fix_free(f);
}

static void test_move(void **state)
{
	fix *f = fix_load("pack:2 numa:2 core:8 pu:2");
	int32_t pu0 = rec_topology_find(&f->rt, MCZ_TOPO_PU, 0);
	int32_t pu1 = rec_topology_find(&f->rt, MCZ_TOPO_PU, 1);
	int32_t pu63 = rec_topology_find(&f->rt, MCZ_TOPO_PU, 63);
	int32_t core0 = rec_topology_find(&f->rt, MCZ_TOPO_CORE, 0);
	int32_t core8 = rec_topology_find(&f->rt, MCZ_TOPO_CORE, 8);
	int32_t numa1 = rec_topology_find(&f->rt, MCZ_TOPO_NUMA, 1);
	assert_int_equal(topo_layout_move(&f->L, &f->t, pu0, 1, 1), pu1);
	assert_int_equal(topo_layout_move(&f->L, &f->t, pu0, -1, 1), pu63);
	assert_int_equal(topo_layout_move(&f->L, &f->t, pu0, -1, 0), -1);
	assert_int_equal(topo_layout_move(&f->L, &f->t, pu63, 1, 1), pu0);
	assert_int_equal(topo_layout_move(&f->L, &f->t, pu1, 0, 1), core0);
	assert_int_equal(topo_layout_move(&f->L, &f->t, core0, 2, 1), pu0);
	assert_int_equal(topo_layout_move(&f->L, &f->t, numa1, 2, 1), core8);
	assert_int_equal(topo_layout_move(&f->L, &f->t, pu0, 2, 1), -1);
	assert_int_equal(topo_layout_move(&f->L, &f->t, 0, 0, 1), -1);
	/* across parents along a ring: core 7 (NUMA 0) -> core 8 (NUMA 1) */
	assert_int_equal(topo_layout_move(&f->L, &f->t, rec_topology_find(&f->rt, MCZ_TOPO_CORE, 7),
					  1, 0),
			 core8);
	fix_free(f);
}

static void test_bad_tables(void **state)
{
	topo_tree t;
	mcz_topo_obj o[3] = {{-1, MCZ_TOPO_MACHINE, 0, 0, "M"},
			     {2, MCZ_TOPO_PU, 0, 0, "PU#0"}, /* parent after child */
			     {0, MCZ_TOPO_CORE, 0, 0, "Core#0"}};
	assert_int_equal(topo_tree_build(&t, o, 0), MCZ_E_EMPTY);
	assert_int_equal(topo_tree_build(&t, o, 3), MCZ_E_CORRUPT);
	o[1].parent = 1; /* itself */
	assert_int_equal(topo_tree_build(&t, o, 3), MCZ_E_CORRUPT);
	o[1].parent = -1; /* a second root */
	assert_int_equal(topo_tree_build(&t, o, 3), MCZ_E_CORRUPT);
	o[0].parent = 0;
	assert_int_equal(topo_tree_build(&t, o, 1), MCZ_E_CORRUPT);
	/* a chain a million deep is laid out without recursion */
	size_t n = 1000000;
	mcz_topo_obj *chain = malloc(n * sizeof *chain);
	assert_non_null(chain);
	for (size_t i = 0; i < n; i++)
		chain[i] = (mcz_topo_obj){(int32_t)i - 1, i + 1 == n ? MCZ_TOPO_PU : MCZ_TOPO_OTHER,
					  (int32_t)i, 0, "x"};
	topo_layout L;
	assert_int_equal(topo_tree_build(&t, chain, n), MCZ_OK);
	assert_int_equal(topo_layout_build(&L, &t, 0, t.leafw), MCZ_OK);
	assert_int_equal(L.nrings, (int)n);
	topo_layout_free(&L);
	topo_tree_free(&t);
	free(chain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack2_numa2),   cmocka_unit_test(test_private_caches_hidden),
		cmocka_unit_test(test_gpu_node),      cmocka_unit_test(test_device_weight),
		cmocka_unit_test(test_aggregate),     cmocka_unit_test(test_metric_weights),
		cmocka_unit_test(test_zoom),          cmocka_unit_test(test_move),
		cmocka_unit_test(test_bad_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
