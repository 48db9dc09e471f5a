/* topo-dump.c: prints the topology table rec_topology_load() builds, one
 * object per line, indented by depth: for tests and for looking at what a
 * machine, a synthetic description or an hwloc XML file becomes.
 *
 *     build/tests/tools/topo-dump ["pack:2 core:4 pu:2" | file.xml]
 */
#include <stdio.h>

#include "../../recorder/topo/topology.h"

int main(int argc, char **argv)
{
	rec_topology t;
	char err[256];

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: topo-dump [SYNTHETIC|FILE.xml]\n");
		return 2;
	}
	if (rec_topology_load(&t, argc == 2 ? argv[1] : NULL, err, sizeof err) != 0) {
		fprintf(stderr, "topo-dump: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < t.n; i++) {
		int depth = 0;
		for (int32_t p = t.objs[i].parent; p >= 0; p = t.objs[p].parent)
			depth++;
		printf("%4zu %4d %*s%s  [type %u os %d size %llu]\n", i, t.objs[i].parent,
		       2 * depth, "", t.objs[i].name, t.objs[i].type, t.objs[i].os_index,
		       (unsigned long long)t.objs[i].size);
	}
	rec_topology_free(&t);
	return 0;
}
