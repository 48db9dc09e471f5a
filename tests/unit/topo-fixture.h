/* topo-fixture.h: for the topology view's unit tests (test-topo-layout.c,
 * test-topo-render.c): a real hwloc topology (recorder/topo/topology.c: an hwloc
 * synthetic description or XML file), its display tree and layout, and a
 * colour level per object (PUs by CPU number, others by type, devices none).
 * Include after cmocka.h.
 *
 *     fix *f = fix_load("pack:2 numa:2 core:8 pu:2");
 *     ... f->rt (table), f->t (tree), f->L (layout), f->level[i] ...
 *     fix_free(f);
 */
#ifndef TEST_TOPO_FIXTURE_H
#define TEST_TOPO_FIXTURE_H

#include <math.h>
#include <stdlib.h>

#include "../../recorder/topo/topology.h"
#include "../../viewer/analysis/topology/topo.h"

#define EPS 1e-12
#define PI 3.14159265358979323846
#define TOPO_DATA "tests/data/topo"

/* cmocka's assert_float_equal compares floats; these are doubles */
#define assert_near(a, b, eps)                                                          \
	do {                                                                            \
		double a_ = (a), b_ = (b);                                              \
		if (!(fabs(a_ - b_) <= (eps)))                                          \
			fail_msg("%s = %.15g, expected %.15g", #a, a_, b_);             \
	} while (0)

typedef struct fix {
	rec_topology rt;
	topo_tree t;
	topo_layout L;
	double *level;
} fix;

static inline fix *fix_load(const char *desc)
{
	fix *f = calloc(1, sizeof *f);
	char err[200];
	assert_non_null(f);
	if (rec_topology_load(&f->rt, desc, err, sizeof err) != 0)
		fail_msg("%s: %s", desc, err);
	assert_int_equal(topo_tree_build(&f->t, f->rt.objs, f->rt.n), MCZ_OK);
	assert_int_equal(topo_layout_build(&f->L, &f->t, 0, f->t.leafw), MCZ_OK);
	f->level = malloc(f->rt.n * sizeof *f->level);
	assert_non_null(f->level);
	for (size_t i = 0; i < f->rt.n; i++) {
		const mcz_topo_obj *o = &f->rt.objs[i];
		f->level[i] = o->type == MCZ_TOPO_PU ? (o->os_index % 10) / 10.0 + 0.05
			      : o->type >= MCZ_TOPO_GPU ? NAN
							: o->type / 10.0;
	}
	return f;
}

static inline void fix_free(fix *f)
{
	topo_layout_free(&f->L);
	topo_tree_free(&f->t);
	rec_topology_free(&f->rt);
	free(f->level);
	free(f);
}

#endif
