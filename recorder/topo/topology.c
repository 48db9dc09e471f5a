/* topology.c: the machine's hardware tree, captured with hwloc, as the flat
 * mcz topology table that a recording carries (format/mcz.h, recorder/topo/topology.h).
 *
 * hwloc already knows how to discover packages, NUMA nodes, caches, cores,
 * PUs and the PCI devices behind them on every platform we care about, read
 * an XML export of another machine, and build synthetic machines for tests;
 * this file only translates its tree into ours:
 *
 *   - kept types: Machine, Package, NUMA node, L3, L2, L1d, Core, PU; the
 *     rest (Group, Die, L4/L5, instruction caches, memory-side caches, Misc)
 *     are flattened away, their children hang from the nearest kept ancestor;
 *   - hwloc 2 attaches NUMA nodes as "memory children" beside the CPU tree;
 *     we put each NUMA node *between* the object it is attached to and the
 *     children whose cpuset it covers, so memory sits inside the tree the way
 *     MemAxes draws it (machine > package > NUMA > L3 > L2 > L1 > core > PU);
 *     a child spanning several NUMA nodes stays on the common parent;
 *   - one GPU object per GPU (not per OS device: an NVIDIA board shows up as
 *     nvml0, cuda0, card0, renderD128 under one PCI function) and one NIC
 *     object per network PCI function, appended after the CPU tree under
 *     their non-I/O ancestor, numbered in the order hwloc lists them (PCI
 *     bus order, which is also NVML's default order);
 *   - `os_index` is the OS number where the OS numbers the object uniquely
 *     (PU = CPU number, NUMA node, package id), else hwloc's logical index
 *     (cores and caches, whose OS numbers repeat across packages or do not
 *     exist), so rec_topology_find() works for every type.
 *
 * The table lists parents before children (a preorder walk), as the format
 * requires.
 */
#include "topology.h"

#include "../rec.h"

#include <assert.h>
#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* A growing table; idx is stored in hwloc's userdata as idx + 1. */
typedef struct topo_build {
	rec_topology *t;
	size_t cap;
	int ngpu, nnic;
	int oom;
} topo_build;

static void topo_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* "32 MiB", "4.5 GiB", "512 KiB": binary units, one decimal when not whole. */
static void topo_size_str(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024.0 && u + 1 < sizeof unit / sizeof unit[0]) {
		v /= 1024.0;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

static int32_t topo_push(topo_build *b, int32_t parent, mcz_topo_type type, int32_t os_index,
			 uint64_t size, const char *name)
{
	rec_topology *t = b->t;

	if (b->oom)
		return -1;
	if (t->n == b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 64;
		mcz_topo_obj *o = realloc(t->objs, ncap * sizeof *o);
		if (!o) {
			b->oom = 1;
			return -1;
		}
		t->objs = o;
		b->cap = ncap;
	}
	char *s = strdup(name);
	if (!s) {
		b->oom = 1;
		return -1;
	}
	assert(parent < (int32_t)t->n); /* parents are always pushed first */
	t->objs[t->n] = (mcz_topo_obj){
		.parent = parent, .type = (uint8_t)type, .os_index = os_index, .size = size, .name = s};
	return (int32_t)t->n++;
}

/* mcz type of a CPU-side hwloc object, or -1 when it is flattened away. */
static int topo_map_type(hwloc_obj_t o)
{
	switch (o->type) {
	case HWLOC_OBJ_MACHINE: return MCZ_TOPO_MACHINE;
	case HWLOC_OBJ_PACKAGE: return MCZ_TOPO_PACKAGE;
	case HWLOC_OBJ_NUMANODE: return MCZ_TOPO_NUMA;
	case HWLOC_OBJ_L3CACHE: return MCZ_TOPO_L3;
	case HWLOC_OBJ_L2CACHE: return MCZ_TOPO_L2;
	case HWLOC_OBJ_L1CACHE: return MCZ_TOPO_L1;
	case HWLOC_OBJ_CORE: return MCZ_TOPO_CORE;
	case HWLOC_OBJ_PU: return MCZ_TOPO_PU;
	default: return -1;
	}
}

static int32_t topo_push_cpu(topo_build *b, hwloc_topology_t topo, hwloc_obj_t o, int type,
			     int32_t parent)
{
	char name[96], sz[32];
	int uses_os = (type == MCZ_TOPO_PU || type == MCZ_TOPO_NUMA || type == MCZ_TOPO_PACKAGE) &&
		      o->os_index != HWLOC_UNKNOWN_INDEX;
	int32_t num = uses_os ? (int32_t)o->os_index : (int32_t)o->logical_index;
	uint64_t size = 0;

	switch (type) {
	case MCZ_TOPO_MACHINE:
		size = hwloc_get_root_obj(topo)->total_memory;
		topo_size_str(sz, sizeof sz, size);
		snprintf(name, sizeof name, "Machine (%s)", sz);
		break;
	case MCZ_TOPO_PACKAGE: snprintf(name, sizeof name, "Package#%d", num); break;
	case MCZ_TOPO_NUMA:
		size = o->attr->numanode.local_memory;
		topo_size_str(sz, sizeof sz, size);
		snprintf(name, sizeof name, "NUMA#%d (%s)", num, sz);
		break;
	case MCZ_TOPO_L3:
	case MCZ_TOPO_L2:
	case MCZ_TOPO_L1:
		size = o->attr->cache.size;
		topo_size_str(sz, sizeof sz, size);
		snprintf(name, sizeof name, "L%d%s#%d (%s)", o->attr->cache.depth,
			 type == MCZ_TOPO_L1 ? "d" : "", num, sz);
		break;
	case MCZ_TOPO_CORE: snprintf(name, sizeof name, "Core#%d", num); break;
	default: snprintf(name, sizeof name, "PU#%d", num); break;
	}
	return topo_push(b, parent, (mcz_topo_type)type, num, size, name);
}

static void topo_set_idx(hwloc_obj_t o, int32_t idx)
{
	o->userdata = (void *)(intptr_t)(idx + 1);
}

static int32_t topo_get_idx(hwloc_obj_t o)
{
	return (int32_t)(intptr_t)o->userdata - 1;
}

/* NUMA nodes among o's memory children (through memory-side caches). */
static size_t topo_numa_children(hwloc_obj_t o, hwloc_obj_t *out, size_t max, size_t n)
{
	for (hwloc_obj_t m = o->memory_first_child; m; m = m->next_sibling) {
		if (m->type == HWLOC_OBJ_NUMANODE) {
			if (n < max)
				out[n++] = m;
		} else {
			n = topo_numa_children(m, out, max, n);
		}
	}
	return n;
}

#define TOPO_MAX_LOCAL_NUMA 64

static void topo_walk(topo_build *b, hwloc_topology_t topo, hwloc_obj_t o, int32_t parent)
{
	int type = topo_map_type(o);
	int32_t idx = type < 0 ? parent : topo_push_cpu(b, topo, o, type, parent);
	hwloc_obj_t numa[TOPO_MAX_LOCAL_NUMA];
	int32_t numa_idx[TOPO_MAX_LOCAL_NUMA];
	size_t nnuma = topo_numa_children(o, numa, TOPO_MAX_LOCAL_NUMA, 0);

	if (b->oom)
		return;
	topo_set_idx(o, idx);
	for (size_t i = 0; i < nnuma; i++) {
		numa_idx[i] = topo_push_cpu(b, topo, numa[i], MCZ_TOPO_NUMA, idx);
		topo_set_idx(numa[i], numa_idx[i]);
	}
	for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) {
		int32_t p = idx;
		for (size_t i = 0; i < nnuma; i++) {
			if (c->cpuset && numa[i]->cpuset &&
			    hwloc_bitmap_isincluded(c->cpuset, numa[i]->cpuset)) {
				p = numa_idx[i];
				break;
			}
		}
		topo_walk(b, topo, c, p);
	}
}

static int topo_is_drm_name(const char *n)
{
	return !strncmp(n, "card", 4) || !strncmp(n, "renderD", 7) || !strncmp(n, "controlD", 8);
}

/* The OS devices of one device: the osdev itself, or a PCI function's osdevs. */
static hwloc_obj_t topo_dev_first_osdev(hwloc_obj_t dev)
{
	return dev->type == HWLOC_OBJ_OS_DEVICE ? dev : dev->io_first_child;
}

static hwloc_obj_t topo_dev_next_osdev(hwloc_obj_t dev, hwloc_obj_t o)
{
	if (dev->type == HWLOC_OBJ_OS_DEVICE)
		return NULL;
	for (o = o->next_sibling; o && o->type != HWLOC_OBJ_OS_DEVICE; o = o->next_sibling)
		;
	return o;
}

/* A GPU is a device with a compute OS device (CUDA, OpenCL, Level Zero,
 * VectorEngine), a vendor management-library device (nvml, rsmi), or a DRM
 * device on an NVIDIA/AMD board or a 3D-controller class function.  A VGA
 * function with only a DRM node (a server's BMC display, a VM's virtual
 * display) is not one: counting it would shift GPU numbers against NVML's. */
static int topo_dev_is_gpu(hwloc_obj_t dev)
{
	int drm = 0;

	for (hwloc_obj_t o = topo_dev_first_osdev(dev); o; o = topo_dev_next_osdev(dev, o)) {
		if (o->type != HWLOC_OBJ_OS_DEVICE)
			continue;
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC)
			return 1;
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU) {
			if (o->name && !topo_is_drm_name(o->name))
				return 1;
			drm = 1;
		}
	}
	if (!drm || dev->type != HWLOC_OBJ_PCI_DEVICE)
		return 0;
	struct hwloc_pcidev_attr_s *p = &dev->attr->pcidev;
	return p->vendor_id == 0x10de || p->vendor_id == 0x1002 || p->class_id == 0x0302 ||
	       p->class_id == 0x0380;
}

static int topo_dev_is_nic(hwloc_obj_t dev)
{
	for (hwloc_obj_t o = topo_dev_first_osdev(dev); o; o = topo_dev_next_osdev(dev, o))
		if (o->type == HWLOC_OBJ_OS_DEVICE &&
		    (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
		     o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS))
			return 1;
	return 0;
}

static const char *topo_vendor(unsigned vendor_id)
{
	switch (vendor_id) {
	case 0x10de: return "NVIDIA ";
	case 0x1002: return "AMD ";
	case 0x8086: return "Intel ";
	default: return "";
	}
}

static void topo_add_gpu(topo_build *b, hwloc_topology_t topo, hwloc_obj_t dev)
{
	const char *model = NULL;
	uint64_t mem = 0;
	char name[160];

	for (hwloc_obj_t o = topo_dev_first_osdev(dev); o; o = topo_dev_next_osdev(dev, o)) {
		const char *m = hwloc_obj_get_info_by_name(o, "GPUModel");
		const char *kb = hwloc_obj_get_info_by_name(o, "CUDAGlobalMemorySize");
		if (m && !model)
			model = m;
		if (kb && !mem)
			mem = strtoull(kb, NULL, 10) * 1024;
	}
	if (!model)
		model = hwloc_obj_get_info_by_name(dev, "PCIDevice");
	if (model)
		snprintf(name, sizeof name, "GPU#%d %s", b->ngpu, model);
	else if (dev->type == HWLOC_OBJ_PCI_DEVICE)
		snprintf(name, sizeof name, "GPU#%d %s(%04x:%02x:%02x.%x)", b->ngpu,
			 topo_vendor(dev->attr->pcidev.vendor_id), dev->attr->pcidev.domain,
			 dev->attr->pcidev.bus, dev->attr->pcidev.dev, dev->attr->pcidev.func);
	else
		snprintf(name, sizeof name, "GPU#%d %s", b->ngpu, dev->name ? dev->name : "");
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, dev);
	topo_push(b, anc && topo_get_idx(anc) >= 0 ? topo_get_idx(anc) : 0, MCZ_TOPO_GPU, b->ngpu, mem, name);
	b->ngpu++;
}

/* NIC name: InfiniBand device names first, then interface names in
 * parentheses: "eth0", "mlx5_0 (ib0)".  rec_topology_find_nic() matches any. */
static void topo_add_nic(topo_build *b, hwloc_topology_t topo, hwloc_obj_t dev)
{
	char name[160] = "", ifs[128] = "";
	size_t nl = 0, il = 0;

	for (hwloc_obj_t o = topo_dev_first_osdev(dev); o; o = topo_dev_next_osdev(dev, o)) {
		if (o->type != HWLOC_OBJ_OS_DEVICE || !o->name)
			continue;
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && nl < sizeof name)
			nl += (size_t)snprintf(name + nl, sizeof name - nl, "%s%s", nl ? " " : "",
					       o->name);
		else if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && il < sizeof ifs)
			il += (size_t)snprintf(ifs + il, sizeof ifs - il, "%s%s", il ? ", " : "",
					       o->name);
	}
	if (nl && il && nl < sizeof name)
		snprintf(name + nl, sizeof name - nl, " (%s)", ifs);
	else if (!nl)
		snprintf(name, sizeof name, "%s", ifs);
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, dev);
	topo_push(b, anc && topo_get_idx(anc) >= 0 ? topo_get_idx(anc) : 0, MCZ_TOPO_NIC, b->nnic, 0, name);
	b->nnic++;
}

/* Each device once, in hwloc's order: a PCI function with all its OS
 * devices, or an OS device hanging elsewhere. */
static void topo_walk_io(topo_build *b, hwloc_topology_t topo)
{
	hwloc_obj_t prev_dev = NULL;

	for (hwloc_obj_t o = hwloc_get_next_osdev(topo, NULL); o && !b->oom;
	     o = hwloc_get_next_osdev(topo, o)) {
		hwloc_obj_t dev = o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE ? o->parent : o;
		if (dev == prev_dev || (dev != o && dev->userdata))
			continue; /* already handled */
		prev_dev = dev;
		if (dev != o)
			dev->userdata = (void *)1;
		if (topo_dev_is_gpu(dev))
			topo_add_gpu(b, topo, dev);
		else if (topo_dev_is_nic(dev))
			topo_add_nic(b, topo, dev);
	}
}

void rec_topology_free(rec_topology *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free((char *)t->objs[i].name);
	free(t->objs);
	t->objs = NULL;
	t->n = 0;
}

static int topo_is_xml(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n > 4 && !strcmp(s + n - 4, ".xml"));
}

/* Load from this machine (synthetic NULL), an XML file or a synthetic
 * description; export_to: also write the tree there as hwloc XML (to a
 * temporary name, then renamed). */
static int topo_load(rec_topology *t, const char *synthetic, const char *export_to, char *err,
		     size_t errlen)
{
	hwloc_topology_t topo;
	topo_build b = {.t = t};

	t->objs = NULL;
	t->n = 0;
	topo_seterr(err, errlen, "%s", "");
	if (hwloc_topology_init(&topo) != 0) {
		topo_seterr(err, errlen, "hwloc: cannot initialise: %s", strerror(errno));
		return -1;
	}
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* The Linux backend finds PCI functions and their OS devices in sysfs by
	 * itself; the "pci" component only adds pci.ids names through
	 * libpciaccess, which leaks ~1 KiB per load (LeakSanitizer fails every
	 * program that records).  GPU names come from the GPU's own OS device
	 * (NVML, CUDA, RSMI) when hwloc has it, else from the vendor id. */
	hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
	/* The "gl" component opens X displays :0 to :9 to name GPUs (slow,
	 * and over `ssh -X` it would talk to the user's own X server);
	 * the GPU objects come from sysfs and NVML without it. */
	hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
	if (synthetic && topo_is_xml(synthetic)) {
		if (access(synthetic, R_OK) != 0) {
			topo_seterr(err, errlen, "hwloc XML %s: %s", synthetic, strerror(errno));
			goto fail;
		}
		if (hwloc_topology_set_xml(topo, synthetic) != 0) {
			topo_seterr(err, errlen, "hwloc XML %s: cannot be read", synthetic);
			goto fail;
		}
	} else if (synthetic && hwloc_topology_set_synthetic(topo, synthetic) != 0) {
		topo_seterr(err, errlen, "hwloc synthetic topology \"%s\" is invalid", synthetic);
		goto fail;
	}
	if (hwloc_topology_load(topo) != 0) {
		topo_seterr(err, errlen, "hwloc: %s%scannot load the topology: %s",
			    synthetic ? synthetic : "", synthetic ? ": " : "", strerror(errno));
		goto fail;
	}
	topo_walk(&b, topo, hwloc_get_root_obj(topo), -1);
	topo_walk_io(&b, topo);
	if (export_to && !b.oom) {
		char tmp[4300];
		snprintf(tmp, sizeof tmp, "%s.%ld.tmp", export_to, (long)getpid());
		if (hwloc_topology_export_xml(topo, tmp, 0) == 0 && rename(tmp, export_to) == 0)
			tmp[0] = '\0';
		if (tmp[0])
			unlink(tmp);
	}
	hwloc_topology_destroy(topo);
	if (b.oom) {
		rec_topology_free(t);
		topo_seterr(err, errlen, "out of memory building the topology table");
		return -1;
	}
	return 0;
fail:
	hwloc_topology_destroy(topo);
	return -1;
}

int32_t rec_topology_find(const rec_topology *t, mcz_topo_type type, int os_index)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->objs[i].type == type && t->objs[i].os_index == os_index)
			return (int32_t)i;
	return -1;
}

int32_t rec_topology_find_nic(const rec_topology *t, const char *ifname)
{
	size_t want = strlen(ifname);

	if (!want)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const char *s = t->objs[i].name;
		if (t->objs[i].type != MCZ_TOPO_NIC)
			continue;
		while (*s) {
			size_t len = strcspn(s, " (),");
			if (len == want && !strncmp(s, ifname, want))
				return (int32_t)i;
			s += len;
			s += strspn(s, " (),");
		}
	}
	return -1;
}

/* The cache's name for this machine as this process sees it: the host, the
 * boot (a CPU or memory change needs one), the CPUs and memory nodes the
 * process may use (a batch job's cgroup: hwloc leaves the others out) and
 * the hwloc version, hashed (FNV-1a). */
static int topo_cache_name(char *buf, size_t len)
{
	char key[8192];
	size_t at = 0;
	struct utsname u;
	if (uname(&u) != 0)
		return -1;
	at += (size_t)snprintf(key + at, sizeof key - at, "%s %s %s %u|", u.nodename, u.release,
			       u.machine, (unsigned)hwloc_get_api_version());
	static const char *const files[] = {"/proc/sys/kernel/random/boot_id", "/proc/self/status"};
	for (size_t i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");
		char line[4096];
		if (!f)
			return -1;
		while (fgets(line, sizeof line, f) && at + strlen(line) + 1 < sizeof key)
			if (i == 0 || !strncmp(line, "Cpus_allowed_list:", 18) ||
			    !strncmp(line, "Mems_allowed_list:", 18))
				at += (size_t)snprintf(key + at, sizeof key - at, "%s", line);
		fclose(f);
	}
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < at; i++)
		h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
	char name[128];
	u.nodename[32] = '\0';
	for (char *p = u.nodename; *p; p++)
		if (*p == '/')
			*p = '_';
	snprintf(name, sizeof name, "topology-%s-%016llx.xml", u.nodename, (unsigned long long)h);
	const char *off = getenv("MCZ_NO_CACHE");
	if (off && *off && strcmp(off, "0"))
		return -1;
	return mcz_cachedir_path(buf, len, name, 1) == MCZ_OK ? 0 : -1;
}

/* The cached XML is there and a regular file: hwloc would block on a FIFO
 * put in its place (mcz_cachedir_open never does). */
static int topo_cache_usable(const char *path)
{
	int fd;
	if (mcz_cachedir_open(path, &fd) != MCZ_OK)
		return 0;
	close(fd);
	return 1;
}

void rec_topology_env(void)
{
	/* hwloc dlopens every plugin of its plugin directory at its first
	 * topology, whatever components are then used: Debian's gl plugin
	 * brings libX11 and xcb, xml_libxml brings libxml2, ICU and libstdc++,
	 * opencl the OpenCL loader.  Relocating them would be most of mcrec's
	 * fixed CPU cost (bench-rec-overhead.sh).  The gl and pci
	 * components are left out anyway (topo_load) and hwloc's own XML
	 * parser reads and writes the cache, so those plugins are not loaded;
	 * opencl (GPUs as co-processors) only for a discovery, when no cached
	 * topology will be read. */
	char cache[4200];
	int cached = topo_cache_name(cache, sizeof cache) == 0 && topo_cache_usable(cache);
	rec_env_own("HWLOC_PLUGINS_BLACKLIST",
		    cached ? "hwloc_gl,hwloc_pci,hwloc_xml_libxml,hwloc_opencl"
			   : "hwloc_gl,hwloc_pci,hwloc_xml_libxml");
	rec_env_own("HWLOC_LIBXML_IMPORT", "0");
	rec_env_own("HWLOC_LIBXML_EXPORT", "0");
}

int rec_topology_load(rec_topology *t, const char *synthetic, char *err, size_t errlen)
{
	if (synthetic)
		return topo_load(t, synthetic, NULL, err, errlen);
	/* hwloc's discovery reads sysfs and every PCI function's config space
	 * (milliseconds of system time); the same tree exported once loads from
	 * XML in a fraction of it.  hwloc is the one that reads and writes
	 * the XML (hwloc_topology_export_xml / set_xml). */
	char cache[4200];
	if (topo_cache_name(cache, sizeof cache) != 0)
		return topo_load(t, NULL, NULL, err, errlen);
	if (topo_cache_usable(cache) && topo_load(t, cache, NULL, err, errlen) == 0)
		return 0;
	return topo_load(t, NULL, cache, err, errlen);
}
