/* perf-event.c: perf event names to perf_event_attr (see perf-event.h).
 *
 * Two kinds of names, as `perf stat -e` takes them:
 *  - perf's generic names (a table below: cycles, instructions, task-clock,
 *    LLC-load-misses...), with perf's aliases;
 *  - PMU events "pmu/terms/" described by the kernel under
 *    /sys/bus/event_source/devices/<pmu>/: `type`, `events/<alias>` (terms
 *    such as "event=0x04,umask=0x03", plus optional .scale and .unit), and
 *    `format/<term>` ("config:0-7", "config1:0-15", "config:0-7,21") telling
 *    which attr bits each term fills.  A PMU with a `cpumask` is uncore
 *    (counts the whole socket, opened once per listed CPU).
 * This is libperf's parse-events in a few hundred lines: Debian ships no
 * libperf/libpfm parser for sysfs terms that we could link from C without
 * PAPI, and the perf source must work without PAPI.
 */
#include "perf-event.h"
#include "../../source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE(c, op, res) ((c) | ((op) << 8) | ((res) << 16))
#define LLC_RD_MISS CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)
#define LLC_WR_MISS CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS)

#define HWE(n, s, u, c) { n, s, u, PERF_TYPE_HARDWARE, c, 0, 0, 1.0, REC_G_CORE, 1, 0, 0, {0}, 0 }
#define CAE(n, s, c) { n, s, "misses", PERF_TYPE_HW_CACHE, c, 0, 0, 1.0, REC_G_CORE, 1, 0, 0, {0}, 0 }
#define SWE(n, s, u, c, sc) { n, s, u, PERF_TYPE_SOFTWARE, c, 0, 0, sc, REC_G_CORE, 0, 0, 0, {0}, 0 }

/* The defaults, recorded in this order when available: two fixed counters
 * (cycles, instructions) and four general ones, so that they fit the
 * general-purpose counters of current x86 cores without multiplexing. */
static const src_perf_ev perf_event_table[] = {
	HWE("cycles", "core.cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES),
	HWE("instructions", "core.instructions", "instructions", PERF_COUNT_HW_INSTRUCTIONS),
	HWE("cache-misses", "core.cache_misses", "misses", PERF_COUNT_HW_CACHE_MISSES),
	HWE("branch-misses", "core.branch_misses", "misses", PERF_COUNT_HW_BRANCH_MISSES),
	CAE("LLC-load-misses", "core.llc_load_misses", LLC_RD_MISS),
	CAE("LLC-store-misses", "core.llc_store_misses", LLC_WR_MISS),
	SWE("task-clock", "core.task_clock", "s", PERF_COUNT_SW_TASK_CLOCK, 1e-9),
	SWE("context-switches", "core.context_switches", "switches", PERF_COUNT_SW_CONTEXT_SWITCHES, 1.0),
	SWE("cpu-migrations", "core.cpu_migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1.0),
	SWE("page-faults", "core.page_faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, 1.0),
};
enum { PERF_NDEFAULT = sizeof perf_event_table / sizeof perf_event_table[0] };

/* Other generic names perf knows, not recorded by default. */
static const src_perf_ev perf_event_more[] = {
	HWE("cache-references", "core.cache_references", "references", PERF_COUNT_HW_CACHE_REFERENCES),
	HWE("stalled-cycles-backend", "core.stalled_cycles_backend", "cycles",
	    PERF_COUNT_HW_STALLED_CYCLES_BACKEND),
	HWE("branch-instructions", "core.branches", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
	HWE("stalled-cycles-frontend", "core.stalled_cycles_frontend", "cycles",
	    PERF_COUNT_HW_STALLED_CYCLES_FRONTEND),
	HWE("ref-cycles", "core.ref_cycles", "cycles", PERF_COUNT_HW_REF_CPU_CYCLES),
	HWE("bus-cycles", "core.bus_cycles", "cycles", PERF_COUNT_HW_BUS_CYCLES),
	CAE("L1-dcache-load-misses", "core.l1d_load_misses",
	    CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)),
	CAE("LLC-loads", "core.llc_loads",
	    CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS)),
	CAE("dTLB-load-misses", "core.dtlb_load_misses",
	    CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)),
	SWE("cpu-clock", "core.cpu_clock", "s", PERF_COUNT_SW_CPU_CLOCK, 1e-9),
	SWE("minor-faults", "core.minor_faults", "faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, 1.0),
	SWE("major-faults", "core.major_faults", "faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1.0),
};

static const struct {
	const char *alias, *name;
} perf_event_alias[] = {
	{"cpu-cycles", "cycles"},   {"cs", "context-switches"},  {"migrations", "cpu-migrations"},
	{"faults", "page-faults"},  {"branches", "branch-instructions"},
	{"idle-cycles-backend", "stalled-cycles-backend"},
	{"idle-cycles-frontend", "stalled-cycles-frontend"},
};

const src_perf_ev *src_perf_event_defaults(int *n)
{
	*n = PERF_NDEFAULT;
	return perf_event_table;
}

/* Read a small sysfs file into buf (trailing newline removed); -1 if absent. */
static int perf_event_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/* Put value v into the bits a format spec names ("config:0-7,32-35"). */
static int perf_event_apply_format(src_perf_ev *ev, const char *spec, uint64_t v)
{
	uint64_t *field;
	if (strncmp(spec, "config:", 7) == 0)
		field = &ev->config, spec += 7;
	else if (strncmp(spec, "config1:", 8) == 0)
		field = &ev->config1, spec += 8;
	else if (strncmp(spec, "config2:", 8) == 0)
		field = &ev->config2, spec += 8;
	else
		return -1;
	while (*spec) {
		char *end;
		unsigned long lo = strtoul(spec, &end, 10), hi = lo;
		if (end == spec || lo > 63)
			return -1;
		if (*end == '-') {
			spec = end + 1;
			hi = strtoul(spec, &end, 10);
			if (end == spec || hi > 63 || hi < lo)
				return -1;
		}
		for (unsigned long b = lo; b <= hi; b++, v >>= 1)
			if (v & 1)
				*field |= 1ULL << b;
			else
				*field &= ~(1ULL << b);
		spec = end;
		if (*spec == ',')
			spec++;
		else if (*spec)
			return -1;
	}
	return 0;
}

/* Apply "term=value,term,..." for PMU dir; aliases recurse once. */
static int perf_event_terms(src_perf_ev *ev, const char *dir, const char *terms, int depth,
			    char *err, int errlen)
{
	char buf[512], path[600], spec[256];
	snprintf(buf, sizeof buf, "%s", terms);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		uint64_t v = 1;
		if (eq) {
			char *end;
			*eq = '\0';
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end) {
				snprintf(err, errlen, "%s: bad value '%s' for '%s'", ev->name, eq + 1, t);
				return -1;
			}
		}
		if (strcmp(t, "name") == 0)
			continue;
		if (strcmp(t, "config") == 0 || strcmp(t, "config1") == 0 || strcmp(t, "config2") == 0) {
			*(t[6] == '1' ? &ev->config1 : t[6] == '2' ? &ev->config2 : &ev->config) = v;
			continue;
		}
		snprintf(path, sizeof path, "%s/format/%s", dir, t);
		if (perf_event_slurp(path, spec, sizeof spec) == 0) {
			if (perf_event_apply_format(ev, spec, v)) {
				snprintf(err, errlen, "%s: cannot use format '%s' of term '%s'", ev->name,
					 spec, t);
				return -1;
			}
			continue;
		}
		snprintf(path, sizeof path, "%s/events/%s", dir, t);
		if (!eq && depth == 0 && perf_event_slurp(path, spec, sizeof spec) == 0) {
			char more[256];
			if (perf_event_terms(ev, dir, spec, 1, err, errlen))
				return -1;
			snprintf(path, sizeof path, "%s/events/%s.scale", dir, t);
			if (perf_event_slurp(path, more, sizeof more) == 0)
				ev->scale = strtod(more, NULL);
			snprintf(path, sizeof path, "%s/events/%s.unit", dir, t);
			if (perf_event_slurp(path, more, sizeof more) == 0)
				snprintf(ev->unit, sizeof ev->unit, "%.23s", more);
			continue;
		}
		snprintf(err, errlen, "%s: PMU has no event or term '%s' (see %s/events)", ev->name, t,
			 dir);
		return -1;
	}
	return 0;
}

static void perf_event_cpumask(src_perf_ev *ev, const char *mask)
{
	const char *p = mask;
	ev->ncpus = 0;
	while (*p && ev->ncpus < (int)(sizeof ev->cpus / sizeof ev->cpus[0])) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && ev->ncpus < 16; c++)
			ev->cpus[ev->ncpus++] = (int)c;
		p = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
}

static int perf_event_pmu(const char *name, const char *root, src_perf_ev *ev, char *err,
			  int errlen)
{
	char pmu[64], terms[256], dir[512], path[600], buf[256];
	const char *slash = strchr(name, '/');
	size_t plen = (size_t)(slash - name);
	size_t tlen = strlen(slash + 1);
	if (plen == 0 || plen >= sizeof pmu || tlen == 0 || slash[tlen] != '/' ||
	    tlen - 1 >= sizeof terms) {
		snprintf(err, errlen, "%s: expected PMU/event/ (e.g. uncore_imc_0/cas_count_read/)",
			 name);
		return -1;
	}
	memcpy(pmu, name, plen);
	pmu[plen] = '\0';
	memcpy(terms, slash + 1, tlen - 1);
	terms[tlen - 1] = '\0';
	snprintf(dir, sizeof dir, "%s/bus/event_source/devices/%s", root, pmu);
	snprintf(path, sizeof path, "%s/type", dir);
	if (perf_event_slurp(path, buf, sizeof buf)) {
		snprintf(err, errlen, "%s: unknown PMU '%s' (no %s)", name, pmu, dir);
		return -1;
	}
	ev->type = (uint32_t)strtoul(buf, NULL, 10);
	ev->scale = 1.0;
	snprintf(ev->unit, sizeof ev->unit, "events");
	if (perf_event_terms(ev, dir, terms, 0, err, errlen))
		return -1;
	snprintf(path, sizeof path, "%s/cpumask", dir);
	if (perf_event_slurp(path, buf, sizeof buf) == 0) {
		ev->uncore = 1;
		perf_event_cpumask(ev, buf);
	}
	/* "uncore_imc_0/cas_count_read/" -> "pmu.uncore_imc_0.cas_count_read" */
	snprintf(ev->stream, sizeof ev->stream, "pmu.%.40s.%.50s", pmu, terms);
	for (char *p = ev->stream; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
			*p = '_';
	ev->group = REC_G_CORE;
	return 0;
}

int src_perf_event_parse(const char *name, const char *sysfs_root, src_perf_ev *ev, char *err,
			 int errlen)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	memset(ev, 0, sizeof *ev);
	if (strlen(name) >= sizeof ev->name) {
		snprintf(err, errlen, "event name too long: %.40s...", name);
		return -1;
	}
	const char *want = name;
	for (size_t i = 0; i < sizeof perf_event_alias / sizeof perf_event_alias[0]; i++)
		if (strcmp(name, perf_event_alias[i].alias) == 0)
			want = perf_event_alias[i].name;
	for (size_t i = 0; i < PERF_NDEFAULT; i++)
		if (strcmp(want, perf_event_table[i].name) == 0)
			return *ev = perf_event_table[i], 0;
	for (size_t i = 0; i < sizeof perf_event_more / sizeof perf_event_more[0]; i++)
		if (strcmp(want, perf_event_more[i].name) == 0)
			return *ev = perf_event_more[i], 0;
	snprintf(ev->name, sizeof ev->name, "%s", name);
	if (strchr(name, '/'))
		return perf_event_pmu(name, root, ev, err, errlen);
	if (name[0] == 'r' && name[1] && strspn(name + 1, "0123456789abcdefABCDEF") == strlen(name + 1)) {
		ev->type = PERF_TYPE_RAW;
		ev->config = strtoull(name + 1, NULL, 16);
		ev->hw = 1;
		ev->scale = 1.0;
		ev->group = REC_G_CORE;
		snprintf(ev->unit, sizeof ev->unit, "events");
		snprintf(ev->stream, sizeof ev->stream, "core.raw_%s", name + 1);
		return 0;
	}
	snprintf(err, errlen,
		 "unknown perf event '%s' (generic names as in 'perf list', PMU/event/ from "
		 "/sys/bus/event_source/devices, or rNNNN)", name);
	return -1;
}

void src_perf_event_attr(const src_perf_ev *ev, int task, int enable_on_exec, int leader,
			 int group, struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group)
		a->read_format |= PERF_FORMAT_GROUP;
	a->exclude_kernel = a->exclude_hv = (unsigned)(ev->user_only != 0);
	if (task) {
		a->inherit = 1;
		a->disabled = enable_on_exec && leader;
		a->enable_on_exec = enable_on_exec && leader;
	}
}

int src_perf_event_imc(const char *sysfs_root, src_perf_ev *rd, src_perf_ev *wr, int max)
{
	static const struct {
		const char *prefix, *rd, *wr;
	} kinds[] = {
		{"uncore_imc", "cas_count_read", "cas_count_write"},    /* Intel */
		{"uncore_imc_free_running", "data_read", "data_write"}, /* Intel client */
		{"amd_umc", "umc_cas_cmd.rd", "umc_cas_cmd.wr"},        /* AMD Zen 4+ */
	};
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char err[256], name[200];
	/* Which kinds have a PMU here, from one listing of the devices: trying
	 * each of 65 boxes of 3 kinds cost ~400 failed opens at every start. */
	int present[sizeof kinds / sizeof kinds[0]] = {0};
	snprintf(name, sizeof name, "%s/bus/event_source/devices", root);
	DIR *dir = opendir(name);
	for (struct dirent *e; dir && (e = readdir(dir));)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			size_t l = strlen(kinds[k].prefix);
			if (!strncmp(e->d_name, kinds[k].prefix, l) &&
			    (e->d_name[l] == '\0' || (e->d_name[l] == '_' && isdigit((unsigned char)e->d_name[l + 1]))))
				present[k] = 1;
		}
	if (dir)
		closedir(dir);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		int n = 0;
		for (int box = -1; present[k] && box < 64 && n < max; box++) {
			/* box -1: a PMU without a number ("uncore_imc"). */
			if (box < 0)
				snprintf(name, sizeof name, "%s/%s/", kinds[k].prefix, kinds[k].rd);
			else
				snprintf(name, sizeof name, "%s_%d/%s/", kinds[k].prefix, box, kinds[k].rd);
			if (src_perf_event_parse(name, root, &rd[n], err, sizeof err))
				continue;
			if (box < 0)
				snprintf(name, sizeof name, "%s/%s/", kinds[k].prefix, kinds[k].wr);
			else
				snprintf(name, sizeof name, "%s_%d/%s/", kinds[k].prefix, box, kinds[k].wr);
			if (src_perf_event_parse(name, root, &wr[n], err, sizeof err))
				continue;
			n++;
		}
		if (n)
			return n;
	}
	return 0;
}
