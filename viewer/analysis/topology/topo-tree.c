/* topo-tree.c: the topology view's tree: children lists over a recording's
 * flat topology table (parents before children, format/mcz.h), the weights
 * that give each segment its angular span, and values aggregated from the
 * objects streams are bound to up to the machine.
 *
 * Three choices, each for what a reader of the sunburst needs:
 *   - a private cache level (an L2 or L1d with a single child) is the same
 *     arc as the core under it; it stays in the tree (its values aggregate
 *     and the side panel names it) but is not drawn as a ring;
 *   - span by leaves gives every PU the same arc; a GPU or NIC is a leaf too,
 *     but on a 256-PU node with 8 GPUs that would make each GPU 1.4 degrees,
 *     invisible, while "a hot GPU" is what the view must show at a glance, so
 *     a device weighs max(1, PUs / (2 x devices)): all devices together take
 *     at most about a third of the circle and never less than one PU each;
 *   - aggregation follows the unit: sums for counts, bytes, energy and power
 *     (their rates add up), means for utilisation and percentages, ratio of
 *     sums for IPC (the mean of per-core IPCs would weight an idle core like
 *     a busy one).  An object's own bound value (RAPL on a package, power on
 *     a GPU, traffic of virtual interfaces on the machine) adds to what lies
 *     below it for sums (streams of one name on different objects measure
 *     disjoint parts); for means and ratios it is the object's value and
 *     replaces the aggregate below (a node-wide utilisation is exact, the
 *     mean of its CPUs only close).
 */
#include "topo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void topo_tree_free(topo_tree *t)
{
	free(t->child_off);
	free(t->child);
	free(t->hidden);
	free(t->leafw);
	memset(t, 0, sizeof *t);
}

int topo_tree_build(topo_tree *t, const mcz_topo_obj *objs, size_t n)
{
	memset(t, 0, sizeof *t);
	if (n == 0)
		return MCZ_E_EMPTY;
	if (objs[0].parent != -1)
		return MCZ_E_CORRUPT;
	for (size_t i = 1; i < n; i++)
		if (objs[i].parent < 0 || (size_t)objs[i].parent >= i)
			return MCZ_E_CORRUPT;
	t->n = n;
	t->objs = objs;
	t->child_off = calloc(n + 1, sizeof *t->child_off);
	t->child = malloc((n > 1 ? n - 1 : 1) * sizeof *t->child);
	t->hidden = calloc(n, 1);
	t->leafw = calloc(n, sizeof *t->leafw);
	if (!t->child_off || !t->child || !t->hidden || !t->leafw) {
		topo_tree_free(t);
		return MCZ_E_NOMEM;
	}
	/* counting sort of children by parent keeps table order among siblings */
	for (size_t i = 1; i < n; i++)
		t->child_off[objs[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		t->child_off[i + 1] += t->child_off[i];
	uint32_t *fill = calloc(n, sizeof *fill);
	if (!fill) {
		topo_tree_free(t);
		return MCZ_E_NOMEM;
	}
	for (size_t i = 1; i < n; i++) {
		int32_t p = objs[i].parent;
		t->child[t->child_off[p] + fill[p]++] = (int32_t)i;
	}
	free(fill);
	for (size_t i = 0; i < n; i++) {
		uint32_t nc = t->child_off[i + 1] - t->child_off[i];
		if (i > 0 && nc == 1 && (objs[i].type == MCZ_TOPO_L1 || objs[i].type == MCZ_TOPO_L2))
			t->hidden[i] = 1;
		if (nc == 0) {
			if (objs[i].type == MCZ_TOPO_GPU || objs[i].type == MCZ_TOPO_NIC)
				t->ndev++;
			else if (objs[i].type == MCZ_TOPO_PU)
				t->npu++;
		}
	}
	double devw = t->ndev ? floor((double)t->npu / (2.0 * t->ndev)) : 1;
	if (devw < 1)
		devw = 1;
	for (size_t i = n; i-- > 0;) {
		if (t->child_off[i + 1] == t->child_off[i])
			t->leafw[i] = objs[i].type == MCZ_TOPO_GPU || objs[i].type == MCZ_TOPO_NIC
					      ? devw
					      : 1;
		if (i > 0)
			t->leafw[objs[i].parent] += t->leafw[i];
	}
	return MCZ_OK;
}

int32_t topo_tree_parent(const topo_tree *t, int32_t i)
{
	if (i < 0 || (size_t)i >= t->n)
		return -1;
	for (i = t->objs[i].parent; i >= 0 && t->hidden[i]; i = t->objs[i].parent)
		;
	return i;
}

/* The number after '#' in a name, or -1. */
static int topo_tree_num(const char *name)
{
	const char *h = strchr(name, '#');
	return h && h[1] >= '0' && h[1] <= '9' ? atoi(h + 1) : -1;
}

const char *topo_tree_label(const topo_tree *t, int32_t i, int shortform, char *buf, size_t len)
{
	const mcz_topo_obj *o = &t->objs[i];
	const char *name = o->name ? o->name : "";
	int k = topo_tree_num(name);

	if (!shortform || k < 0) {
		/* long form: the name up to a size in parentheses ("L3#0 (32 MiB)" -> all) */
		snprintf(buf, len, "%s", name);
		if (shortform) /* no number: a NIC "mlx5_0 (ib0)" -> "mlx5_0" */
			buf[strcspn(buf, " ")] = '\0';
		return buf;
	}
	static const char *const pre[] = {
		[MCZ_TOPO_MACHINE] = "", [MCZ_TOPO_PACKAGE] = "P", [MCZ_TOPO_NUMA] = "N",
		[MCZ_TOPO_L3] = "L3:",   [MCZ_TOPO_L2] = "L2:",   [MCZ_TOPO_L1] = "L1:",
		[MCZ_TOPO_CORE] = "C",   [MCZ_TOPO_PU] = "",      [MCZ_TOPO_GPU] = "G",
		[MCZ_TOPO_NIC] = "",     [MCZ_TOPO_OTHER] = "",
	};
	snprintf(buf, len, "%s%d", o->type <= MCZ_TOPO_OTHER ? pre[o->type] : "", k);
	return buf;
}

void topo_tree_aggregate(const topo_tree *t, const double *own, const double *den, int agg,
			 double *out)
{
	size_t n = t->n;
	/* out[] holds the running sum of values below each object, cnt[] how
	 * many (or the denominator for RATIO); children come after parents, so
	 * one backward pass sees every child before its parent. */
	double *cnt = calloc(n, sizeof *cnt);
	if (!cnt) {
		for (size_t i = 0; i < n; i++)
			out[i] = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = 0;
	for (size_t i = n; i-- > 0;) {
		int has_own = !isnan(own[i]) && (agg != TOPO_AGG_RATIO || !isnan(den[i]));
		if (has_own && agg == TOPO_AGG_SUM) {
			out[i] += own[i];
			cnt[i] += 1;
		} else if (has_own) {
			out[i] = own[i];
			cnt[i] = agg == TOPO_AGG_RATIO ? den[i] : 1;
		}
		if (i > 0 && cnt[i] > 0) {
			int32_t p = t->objs[i].parent;
			out[p] += out[i];
			cnt[p] += cnt[i];
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (agg == TOPO_AGG_SUM)
			out[i] = cnt[i] > 0 ? out[i] : NAN;
		else
			out[i] = cnt[i] > 0 ? out[i] / cnt[i] : NAN;
	}
	free(cnt);
}
