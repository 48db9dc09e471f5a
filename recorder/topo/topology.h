/* topology.h: the machine's topology captured with hwloc, as an mcz topology
 * table (format/mcz.h), and lookups that bind streams to its objects.
 *
 *     rec_topology t;
 *     char err[200];
 *     if (rec_topology_load(&t, NULL, err, sizeof err) != 0) warn(err);  // this machine
 *     rec_topology_load(&t, "pack:2 numa:2 core:8 pu:2", err, sizeof err); // hwloc synthetic
 *     int32_t id = rec_topology_find(&t, MCZ_TOPO_PU, 3);   // PU with OS index 3
 *     mcz_writer_topology(w, t.objs, t.n);
 *     rec_topology_free(&t);
 */
#ifndef REC_TOPOLOGY_H
#define REC_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "../../format/mcz.h"

typedef struct rec_topology {
	mcz_topo_obj *objs;  /* parent before children; names owned here */
	size_t n;
} rec_topology;

/* synthetic: NULL for this machine, else an hwloc synthetic description
 * (hwloc_topology_set_synthetic), or a path to an hwloc XML file. */
int rec_topology_load(rec_topology *t, const char *synthetic, char *err, size_t errlen);
void rec_topology_free(rec_topology *t);
/* At start, while there is one thread: which of hwloc's plugins it loads
 * (environment, not given to the recorded command: ownenv.c). */
void rec_topology_env(void);
/* Object of that type and OS index (GPU and NIC: by order found), or -1. */
int32_t rec_topology_find(const rec_topology *t, mcz_topo_type type, int os_index);
/* NIC object by interface name, or -1. */
int32_t rec_topology_find_nic(const rec_topology *t, const char *ifname);

#endif
