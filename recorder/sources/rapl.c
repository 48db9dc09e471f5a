/* rapl.c: the `rapl` source, package / core / uncore / DRAM power from the
 * kernel's powercap interface (/sys/class/powercap/intel-rapl:N[:M], which
 * the intel_rapl driver also uses for AMD Zen packages).
 *
 * Each zone gives two streams: `power.<kind>` (gauge, W, mean power since
 * the previous tick) and `energy.<kind>` (counter, J, stored in µJ).  The
 * kernel's energy_uj counts from 0 to max_energy_range_uj and wraps; we
 * unwrap it into a 64-bit running total so the file's counter never goes
 * backwards.  At 100 W a 2^32 µJ range wraps every ~43 s, so one tick must be
 * shorter than that (it always is: the interval is at most seconds).
 *
 * Since Linux 5.10 (CVE-2020-8694, "Platypus") energy_uj is readable by
 * root only: the source then says so and points at the pcp source's
 * denki.rapl metrics, which pmcd reads with its privileges.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcsrc.h"

#define RAPL_DIR "/sys/class/powercap"
#define RAPL_MAX_ZONES 32

typedef struct rapl_zone {
	char path[256];
	char kind[32];
	char inst[64];
	int package;
	int fd;
	uint64_t max_range, last, total;
	int have_last;
} rapl_zone;

typedef struct rapl_priv {
	rapl_zone z[RAPL_MAX_ZONES];
	int nz;
	int64_t last_ns;
	const char *root; /* RAPL_DIR, or $MCREC_POWERCAP_DIR for tests */
} rapl_priv;

uint64_t src_rapl_wrap_delta(uint64_t prev_uj, uint64_t cur_uj, uint64_t max_range_uj)
{
	if (cur_uj >= prev_uj)
		return cur_uj - prev_uj;
	/* Went backwards: a wrap past max_range_uj, unless the values make no
	 * sense for that range (then the counter was reset: count from 0). */
	if (max_range_uj == 0 || prev_uj > max_range_uj || cur_uj > max_range_uj)
		return cur_uj;
	return (max_range_uj - prev_uj) + cur_uj;
}

double src_rapl_power_w(uint64_t delta_uj, int64_t dt_ns)
{
	if (dt_ns <= 0)
		return 0.0;
	return (double)delta_uj * 1e-6 / ((double)dt_ns * 1e-9);
}

int src_rapl_zone_kind(const char *zone_name, char *kind, size_t len)
{
	int pkg = -1;
	size_t i = 0;

	if (len == 0)
		return -1;
	if (sscanf(zone_name, "package-%d", &pkg) == 1) {
		snprintf(kind, len, "package");
		return pkg;
	}
	for (; zone_name[i] && zone_name[i] != '\n' && i + 1 < len; i++) {
		unsigned char ch = (unsigned char)tolower((unsigned char)zone_name[i]);
		kind[i] = (isalnum(ch) || ch == '_') ? (char)ch : '_';
	}
	kind[i] = '\0';
	if (i == 0)
		snprintf(kind, len, "zone");
	return -1;
}

static int rapl_is_zone(const char *d);

int src_rapl_readable(void)
{
	const char *root = getenv("MCREC_POWERCAP_DIR");
	DIR *dir = opendir(root && *root ? root : RAPL_DIR);
	struct dirent *e;
	char p[512];
	int ok = 0;

	while (dir && !ok && (e = readdir(dir)))
		if (rapl_is_zone(e->d_name)) {
			snprintf(p, sizeof p, "%s/%s/energy_uj", root && *root ? root : RAPL_DIR, e->d_name);
			ok = access(p, R_OK) == 0;
		}
	if (dir)
		closedir(dir);
	return ok;
}

static int rapl_read_u64(const char *dir, const char *file, uint64_t *v)
{
	char p[512], buf[64];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, file);
	if (!(f = fopen(p, "r")))
		return -1;
	if (!fgets(buf, sizeof buf, f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static void rapl_read_str(const char *dir, const char *file, char *out, size_t len)
{
	char p[512];
	FILE *f;

	out[0] = '\0';
	snprintf(p, sizeof p, "%s/%s", dir, file);
	if ((f = fopen(p, "r"))) {
		if (fgets(out, (int)len, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/* Zones are directories intel-rapl:N (package) and intel-rapl:N:M (its
 * subzones); the intel-rapl-mmio:* duplicates of package zones are skipped. */
static int rapl_is_zone(const char *d)
{
	return strncmp(d, "intel-rapl:", 11) == 0 || strncmp(d, "amd-rapl:", 9) == 0;
}

static int rapl_cmp(const void *a, const void *b)
{
	return strcmp(((const rapl_zone *)a)->path, ((const rapl_zone *)b)->path);
}

static int rapl_probe(rec_source *s, const rec_ctx *c)
{
	const char *root = getenv("MCREC_POWERCAP_DIR");
	rapl_priv *p;
	DIR *dir;
	struct dirent *e;
	int denied = 0, found = 0;

	if (src_mcsrc_node_only(s, c) != 0)
		return -1;
	if (!root || !*root)
		root = RAPL_DIR;
	if (!(dir = opendir(root))) {
		s->absent = 1;
		return rec_unavailable(s, "no /sys/class/powercap (kernel without powercap)",
				       "use a kernel with CONFIG_POWERCAP, or the pcp source's denki.rapl.* metrics");
	}
	if (!(p = calloc(1, sizeof *p))) {
		closedir(dir);
		return rec_unavailable(s, "out of memory", "");
	}
	p->root = root;
	while ((e = readdir(dir)) && p->nz < RAPL_MAX_ZONES) {
		rapl_zone *z = &p->z[p->nz];
		char name[64];
		uint64_t v;

		if (!rapl_is_zone(e->d_name))
			continue;
		found++;
		if (snprintf(z->path, sizeof z->path, "%s/%s", root, e->d_name) >= (int)sizeof z->path)
			continue;
		if (rapl_read_u64(z->path, "energy_uj", &v) != 0) {
			if (errno == EACCES || errno == EPERM)
				denied++;
			continue;
		}
		if (rapl_read_u64(z->path, "max_energy_range_uj", &z->max_range) != 0)
			z->max_range = 0;
		rapl_read_str(z->path, "name", name, sizeof name);
		z->package = src_rapl_zone_kind(name, z->kind, sizeof z->kind);
		if (z->package < 0) {
			/* a subzone intel-rapl:N:M belongs to package N */
			int pk, sub;
			const char *colon = strchr(e->d_name, ':');
			if (colon && sscanf(colon + 1, "%d:%d", &pk, &sub) >= 1)
				z->package = pk;
		}
		if (snprintf(z->inst, sizeof z->inst, "%s", name[0] ? name : e->d_name) >= (int)sizeof z->inst)
			z->inst[sizeof z->inst - 1] = '\0';
		z->fd = -1;
		p->nz++;
	}
	closedir(dir);
	qsort(p->z, (size_t)p->nz, sizeof p->z[0], rapl_cmp);
	if (p->nz > 0) {
		s->priv = p;
		return 0;
	}
	free(p);
	if (denied)
		return rec_unavailable(s, "RAPL energy_uj is readable by root only (Linux >= 5.10, CVE-2020-8694)",
				       "run mcrec as root, 'chmod a+r /sys/class/powercap/intel-rapl:*/energy_uj', or use pcp:denki.rapl.rate through pmcd");
	if (found)
		return rec_unavailable(s, "RAPL zones found but none readable", "check /sys/class/powercap/intel-rapl:*/energy_uj");
	s->absent = 1;
	return rec_unavailable(s, "no RAPL zones in /sys/class/powercap (a VM, or the intel_rapl_msr driver is not loaded)",
			       "on bare metal: 'modprobe intel_rapl_msr'; or use pcp:denki.rapl.rate through pmcd");
}

/* Keep the zones the user named (-e rapl:package,rapl:dram; "all"), or all
 * of them when the power group is chosen. */
static int rapl_select(rec_source *s, const rec_ctx *c, rapl_priv *p)
{
	int keep = 0;

	if (c->events == NULL) {
		if (!(c->groups & REC_G_POWER))
			p->nz = 0;
		return 0;
	}
	for (const char *const *e = c->events; *e; e++) {
		int hit = 0;
		for (int i = 0; i < p->nz; i++)
			if (strcmp(*e, "all") == 0 || strcmp(*e, p->z[i].kind) == 0 ||
			    strcmp(*e, p->z[i].inst) == 0)
				hit = 1;
		if (!hit) {
			char why[200];
			snprintf(why, sizeof why, "no RAPL zone '%s' here", *e);
			return rec_unavailable(s, why, "mcrec --list shows the zones (package, core, uncore, dram, psys)");
		}
	}
	for (int i = 0; i < p->nz; i++) {
		int want = 0;
		for (const char *const *e = c->events; *e; e++)
			want |= strcmp(*e, "all") == 0 || strcmp(*e, p->z[i].kind) == 0 ||
				strcmp(*e, p->z[i].inst) == 0;
		if (want)
			p->z[keep++] = p->z[i];
	}
	p->nz = keep;
	return 0;
}

static int rapl_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	rapl_priv *p = s->priv;
	char name[64], note[320];

	if (rapl_select(s, c, p) != 0)
		return -1;
	for (int i = 0; i < p->nz; i++) {
		rapl_zone *z = &p->z[i];
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;

		snprintf(note, sizeof note, "powercap %s, wraps at %" PRIu64 " uJ", z->path, z->max_range);
		d.source = "rapl";
		d.note = note;
		d.instance = z->inst;
		d.topo = (z->package >= 0 && c->topo_package) ? c->topo_package(z->package) : -1;
		if (d.topo < 0 && c->topo_machine)
			d.topo = c->topo_machine();
		snprintf(name, sizeof name, "power.%s", z->kind);
		d.name = name;
		d.native = "rapl:energy_uj";
		d.unit = "W";
		d.kind = MCZ_GAUGE;
		d.type = MCZ_F64;
		if (rec_streams_add(out, &d) != 0)
			return rec_unavailable(s, "out of memory", "");
		snprintf(name, sizeof name, "energy.%s", z->kind);
		d.unit = "J";
		d.kind = MCZ_COUNTER;
		d.type = MCZ_U64;
		d.scale = 1e-6;
		if (rec_streams_add(out, &d) != 0)
			return rec_unavailable(s, "out of memory", "");
	}
	return 0;
}

/* A zone that cannot be opened now (it could be read at probe) is left
 * out of the samples, not the recording's end. */
static int rapl_start(rec_source *s, const rec_ctx *c)
{
	rapl_priv *p = s->priv;
	char path[300];

	for (int i = 0; i < p->nz; i++) {
		snprintf(path, sizeof path, "%s/energy_uj", p->z[i].path);
		p->z[i].fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	p->last_ns = src_mcsrc_now_ns();
	return 0;
}

/* energy_uj is re-read through an open descriptor with pread at offset 0:
 * no allocation, one system call per zone. */
static int rapl_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	rapl_priv *p = s->priv;
	int64_t now = src_mcsrc_now_ns(), dt = now - p->last_ns;

	for (int i = 0; i < p->nz; i++) {
		rapl_zone *z = &p->z[i];
		char buf[32];
		ssize_t n = z->fd >= 0 ? pread(z->fd, buf, sizeof buf - 1, 0) : -1;
		uint64_t cur, d;

		present[2 * i] = present[2 * i + 1] = 0;
		if (z->fd < 0 || n <= 0)
			continue;
		buf[n] = '\0';
		cur = strtoull(buf, NULL, 10);
		if (!z->have_last) {
			z->have_last = 1;
			z->last = cur;
			v[2 * i + 1].u = z->total;
			present[2 * i + 1] = 1;
			continue;
		}
		d = src_rapl_wrap_delta(z->last, cur, z->max_range);
		z->last = cur;
		z->total += d;
		v[2 * i].f = src_rapl_power_w(d, dt);
		present[2 * i] = 1;
		v[2 * i + 1].u = z->total;
		present[2 * i + 1] = 1;
	}
	p->last_ns = now;
	return 0;
}

static void rapl_stop(rec_source *s)
{
	rapl_priv *p = s->priv;

	for (int i = 0; p && i < p->nz; i++)
		if (p->z[i].fd >= 0) {
			close(p->z[i].fd);
			p->z[i].fd = -1;
		}
}

static void rapl_free(rec_source *s)
{
	rapl_stop(s);
	free(s->priv);
	s->priv = NULL;
}

const rec_source_ops src_rapl_ops = {
	.name = "rapl",
	.groups = "power",
	.probe = rapl_probe,
	.streams = rapl_streams,
	.start = rapl_start,
	.read = rapl_read,
	.stop = rapl_stop,
	.free = rapl_free,
};
