/* ceilcache.c: the machine's measured ceilings (mcrec --calibrate) kept per
 * host in the XDG cache, and written into every recording's metadata.
 *
 * The file is $XDG_CACHE_HOME/mcz/ceilings-KEY (else ~/.cache/mcz/...),
 * KEY = CPU model, CPU count and memory size, so a cache copied with a home
 * directory to another kind of node is not used there.  Its lines are
 * "key = value" with the metadata keys themselves (format/SPEC.md section
 * 5.1: roof.bw_triad_Bps, roof.flops, ...), after a first line
 * "# mcz ceilings 1".  Reading checks every line: a damaged file is
 * reported in one line and ignored (the recording then has no ceilings),
 * never trusted in part.
 */
#include "calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CEIL_MAGIC "# mcz ceilings 1"

/* The numeric keys, and where each lives in rec_ceilings. */
static const struct {
	const char *key;
	size_t off;
	int required;
} ceil_nums[] = {
	{"roof.bw_triad_Bps", offsetof(rec_ceilings, bw_triad), 1},
	{"roof.bw_read_Bps", offsetof(rec_ceilings, bw_read), 1},
	{"roof.flops", offsetof(rec_ceilings, flops), 1},
	{"roof.flops_1core", offsetof(rec_ceilings, flops_1core), 1},
	{"roof.flops_scalar", offsetof(rec_ceilings, flops_scalar), 1},
	{"roof.flops_scalar_1core", offsetof(rec_ceilings, flops_scalar_1core), 1},
};

static const struct {
	const char *key;
	size_t off, len;
} ceil_strs[] = {
	{"roof.simd", offsetof(rec_ceilings, simd), sizeof ((rec_ceilings *)0)->simd},
	{"roof.bw_numa", offsetof(rec_ceilings, numa), sizeof ((rec_ceilings *)0)->numa},
	{"roof.method", offsetof(rec_ceilings, method), sizeof ((rec_ceilings *)0)->method},
	{"roof.calibrated", offsetof(rec_ceilings, when), sizeof ((rec_ceilings *)0)->when},
	{"roof.host_key", offsetof(rec_ceilings, key), sizeof ((rec_ceilings *)0)->key},
};

void rec_cpu_model(char *model, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	if (len)
		model[0] = '\0';
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "model name", 10) || !strncmp(line, "Processor", 9) ||
		    !strncmp(line, "cpu\t", 4)) {
			char *c = strchr(line, ':');
			if (c) {
				c += strspn(c + 1, " \t") + 1;
				snprintf(model, len, "%.*s", (int)strcspn(c, "\n"), c);
				break;
			}
		}
	if (f)
		fclose(f);
}

void rec_ceilcache_key(char *key, size_t len)
{
	char model[160];
	rec_cpu_model(model, sizeof model);
	/* the model as a file name: letters and digits, other runs become '_' */
	char clean[160];
	size_t k = 0;
	for (const char *p = model; *p && k + 1 < sizeof clean; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
		if (ok)
			clean[k++] = *p;
		else if (k && clean[k - 1] != '_')
			clean[k++] = '_';
	}
	while (k && clean[k - 1] == '_')
		k--;
	clean[k] = '\0';
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	snprintf(key, len, "%s-%ldcpu-%.0fGiB", k ? clean : "unknown_cpu", cpus,
		 mem / (1024.0 * 1024 * 1024));
}

int rec_ceilcache_path(char *path, size_t len, int create, char *err, size_t errlen)
{
	char dir[3072], key[256];
	if (mcz_cachedir(dir, sizeof dir, create) != MCZ_OK) {
		snprintf(err, errlen, "%s", mcz_errdetail());
		return -1;
	}
	rec_ceilcache_key(key, sizeof key);
	if ((size_t)snprintf(path, len, "%s/ceilings-%s", dir, key) >= len) {
		snprintf(err, errlen, "cache path too long");
		return -1;
	}
	return 0;
}

int rec_ceilcache_write(const char *path, const rec_ceilings *c, char *err, size_t errlen)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "%s\n", CEIL_MAGIC);
	for (size_t i = 0; i < sizeof ceil_nums / sizeof ceil_nums[0]; i++)
		fprintf(f, "%s = %.6g\n", ceil_nums[i].key,
			*(const double *)((const char *)c + ceil_nums[i].off));
	for (size_t i = 0; i < sizeof ceil_strs / sizeof ceil_strs[0]; i++)
		fprintf(f, "%s = %s\n", ceil_strs[i].key, (const char *)c + ceil_strs[i].off);
	int bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* One "key = value" line into c; 0, or -1 with the reason.  seen: bits of
 * the numeric keys, then of the string keys, each allowed once. */
static int ceil_line(char *line, rec_ceilings *c, unsigned *seen, char *why, size_t len)
{
	const size_t nn = sizeof ceil_nums / sizeof ceil_nums[0];
	char *eq = strstr(line, " = ");
	if (!eq) {
		snprintf(why, len, "not 'key = value'");
		return -1;
	}
	*eq = '\0';
	const char *val = eq + 3;
	for (size_t i = 0; i < nn + sizeof ceil_strs / sizeof ceil_strs[0]; i++) {
		const char *key = i < nn ? ceil_nums[i].key : ceil_strs[i - nn].key;
		if (strcmp(line, key))
			continue;
		if (*seen & (1u << i)) {
			snprintf(why, len, "%s given twice", line);
			return -1;
		}
		*seen |= 1u << i;
		if (i >= nn) {
			if (strlen(val) >= ceil_strs[i - nn].len) {
				snprintf(why, len, "%s is too long", line);
				return -1;
			}
			memcpy((char *)c + ceil_strs[i - nn].off, val, strlen(val) + 1);
			return 0;
		}
		double v; /* the same rule as every reader of the metadata (format/meta/roof.c) */
		if (mcz_roof_parse(line, val, &v) != MCZ_OK) {
			snprintf(why, len, "%s", mcz_errdetail());
			return -1;
		}
		*(double *)((char *)c + ceil_nums[i].off) = v;
		return 0;
	}
	return 0; /* a key of a later version: ignored */
}

/* The values against each other: all CPUs do at least what one core does. */
static int ceil_whole(const rec_ceilings *c, char *why, size_t len)
{
	if (mcz_roof_consistent(c->flops, c->flops_1core, c->flops_scalar,
				c->flops_scalar_1core) == MCZ_OK)
		return 0;
	snprintf(why, len, "%s", mcz_errdetail());
	return -1;
}

int rec_ceilcache_read(const char *path, rec_ceilings *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	int fd, orc = mcz_cachedir_open(path, &fd); /* a FIFO there never blocks mcrec */
	if (orc == MCZ_E_NOTFOUND)
		return 1;
	FILE *f = orc == MCZ_OK ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (orc == MCZ_OK)
			close(fd);
		snprintf(err, errlen, "cannot read %s", orc ? mcz_errdetail() : path);
		return -1;
	}
	char line[1024], why[128] = "";
	unsigned seen = 0;
	int n = 0, rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		n++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\n')
			line[--l] = '\0';
		else if (!feof(f)) {
			snprintf(why, sizeof why, "line too long");
			rc = -1;
			break;
		}
		if (n == 1) {
			if (strcmp(line, CEIL_MAGIC)) {
				snprintf(why, sizeof why, "not a ceiling cache (no '%s')", CEIL_MAGIC);
				rc = -1;
			}
			continue;
		}
		if (line[0] == '#' || !line[0])
			continue;
		rc = ceil_line(line, c, &seen, why, sizeof why);
	}
	fclose(f);
	if (!rc && n == 0) {
		snprintf(why, sizeof why, "empty");
		rc = -1, n = 1;
	}
	for (size_t i = 0; !rc && i < sizeof ceil_nums / sizeof ceil_nums[0]; i++)
		if (ceil_nums[i].required && !(seen & (1u << i))) {
			snprintf(why, sizeof why, "no %s", ceil_nums[i].key);
			rc = -1, n = 0;
		}
	if (!rc && ceil_whole(c, why, sizeof why))
		rc = -1, n = 0;
	if (rc) {
		if (n)
			snprintf(err, errlen, "%s: line %d: %s", path, n, why);
		else
			snprintf(err, errlen, "%s: %s", path, why);
		memset(c, 0, sizeof *c);
		return -1;
	}
	return 0;
}

void rec_ceilcache_meta(mcz_writer *w, const rec_ceilings *c)
{
	char num[64];
	for (size_t i = 0; i < sizeof ceil_nums / sizeof ceil_nums[0]; i++) {
		snprintf(num, sizeof num, "%.6g", *(const double *)((const char *)c + ceil_nums[i].off));
		mcz_writer_meta(w, ceil_nums[i].key, num);
	}
	for (size_t i = 0; i < sizeof ceil_strs / sizeof ceil_strs[0]; i++)
		mcz_writer_meta(w, ceil_strs[i].key, (const char *)c + ceil_strs[i].off);
}
