/* topo-values.c: prints what the topology view colours by: for one metric
 * of a recording, each topology object's own value and its value
 * aggregated up the tree, over the whole run, computed by the viewer's own
 * code (viewer/model/model.h, topo-metric.c, topo-tree.c).  For shell tests on
 * real mcrec recordings.
 *
 *     topo-values FILE.mcz                 list the metrics
 *     topo-values FILE.mcz METRIC          index parent type os_index own agg name
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../viewer/model/model.h"
#include "../../viewer/analysis/topology/topo-metric.h"

int main(int argc, char **argv)
{
	vw_model *m;
	char err[256];

	if (argc < 2 || argc > 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: topo-values FILE.mcz [METRIC]\n");
		return 2;
	}
	const char *paths[1] = {argv[1]};
	vw_open_opts oo = {.quiet = 1};
	if (vw_model_open(&m, paths, 1, &oo, err, sizeof err) != 0) {
		fprintf(stderr, "topo-values: %s\n", err);
		return 1;
	}
	size_t n = mcz_topo_count(m->files[0]);
	mcz_topo_obj *objs = malloc((n ? n : 1) * sizeof *objs);
	topo_tree t;
	topo_metrics ms;
	for (size_t i = 0; i < n; i++)
		objs[i] = *mcz_topo(m->files[0], i);
	if (!objs || topo_tree_build(&t, objs, n) != MCZ_OK) {
		fprintf(stderr, "topo-values: %s: no usable topology\n", argv[1]);
		return 1;
	}
	if (topo_metric_list(&ms, m, 0, n) != 0) {
		fprintf(stderr, "topo-values: out of memory\n");
		return 1;
	}
	int rc = 0;
	if (argc == 2) {
		for (size_t k = 0; k < ms.n; k++)
			printf("%s %s %d %zu\n", ms.v[k].name, ms.v[k].unit, ms.v[k].agg, ms.v[k].nnum);
	} else {
		size_t k = 0;
		while (k < ms.n && strcmp(ms.v[k].name, argv[2]) != 0)
			k++;
		if (k == ms.n) {
			fprintf(stderr, "topo-values: %s: no metric %s bound to the topology\n", argv[1],
				argv[2]);
			rc = 1;
		} else {
			double *own = malloc(n * sizeof *own), *agg = malloc(n * sizeof *agg);
			if (!own || !agg ||
			    topo_metric_eval(m, &ms.v[k], &t, -1, m->t_min, m->t_max + 1, own, agg) != 0) {
				fprintf(stderr, "topo-values: cannot read %s\n", argv[2]);
				rc = 1;
			} else {
				for (size_t i = 0; i < n; i++)
					printf("%zu %d %d %d %.9g %.9g %s\n", i, objs[i].parent, objs[i].type,
					       objs[i].os_index, own[i], agg[i], objs[i].name);
			}
			free(own);
			free(agg);
		}
	}
	topo_metric_list_free(&ms);
	topo_tree_free(&t);
	free(objs);
	vw_model_free(m);
	return rc;
}
