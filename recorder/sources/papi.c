/* papi.c: the `papi` source, any PAPI preset or native event by name, of any
 * component the installed PAPI has (`-e papi:PAPI_TOT_INS,papi:perf::TASK-CLOCK`,
 * `papi:pcp:::...`, `papi:nvml:::...`, `papi:powercap:::...`).
 *
 * PAPI counts events of one component together in one event set, so the
 * events are grouped per component (and per CPU with -a); CPU-component
 * sets are attached to the child and inherited by its threads and children.
 * With the multiplex option (rec_ctx.papi_multiplex, `--papi-multiplex`),
 * sets are multiplexed so that more events than counters can be asked for.
 *
 * When a component is disabled PAPI says why (as papi_component_avail does);
 * we repeat that in --list.  On a CPU that libpfm4 does not know, or in a VM
 * whose kernel exposes no hardware PMU, only software events work: the
 * source says which of the two it is and names LIBPFM_FORCE_PMU, which makes
 * libpfm4 use a given PMU model (e.g. LIBPFM_FORCE_PMU=amd64_fam19h_zen3).
 *
 * By default (no papi: events) the source records nothing: the perf source
 * already gives the per-core counters, and defaults stay cheap.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <papi.h>

#include "mcsrc.h"
#include "perf/perf-event.h"

#define PAPI_MAX_SETS 64
#define PAPI_MAX_EVENTS 64

typedef struct papi_set {
	int cidx, cpu;    /* cpu -1: the child (or the component's own scope) */
	int es;
	int n;
	size_t slot[PAPI_MAX_EVENTS]; /* stream index (in the source's slice) of each event */
	int started;
	int attach;       /* attach to the child at start (CPU component, not -a) */
	long long vals[PAPI_MAX_EVENTS];
	uint8_t gauge[PAPI_MAX_EVENTS], fp[PAPI_MAX_EVENTS];
} papi_set;

typedef struct papi_priv {
	papi_set set[PAPI_MAX_SETS];
	int nset;
	size_t n;
	int multiplex_ready;
} papi_priv;

static const struct {
	const char *event, *name, *unit;
	double scale;
} papi_known[] = {
	{ "PAPI_TOT_INS", "core.instructions", "instructions", 1 },
	{ "PAPI_TOT_CYC", "core.cycles", "cycles", 1 },
	{ "PAPI_REF_CYC", "core.ref_cycles", "cycles", 1 },
	{ "PAPI_L1_DCM", "core.l1d_misses", "misses", 1 },
	{ "PAPI_L2_TCM", "core.l2_misses", "misses", 1 },
	{ "PAPI_L3_TCM", "core.llc_misses", "misses", 1 },
	{ "PAPI_BR_MSP", "core.branch_misses", "misses", 1 },
	{ "PAPI_BR_INS", "core.branches", "branches", 1 },
	{ "PAPI_FP_OPS", "core.fp_ops", "flop", 1 },
	{ "PAPI_DP_OPS", "core.dp_ops", "flop", 1 },
	{ "PAPI_SP_OPS", "core.sp_ops", "flop", 1 },
	{ "PAPI_STL_ICY", "core.stalled_cycles", "cycles", 1 },
};

/* libpfm4's perf PMU names the kernel's generic events ("perf::TASK-CLOCK",
 * "perf::PERF_COUNT_SW_PAGE_FAULTS"): the perf source's table names their
 * streams, so that the same event has the same name from either source. */
static int papi_perf_generic(const char *event, char *name, size_t namelen, const char **unit,
			     double *scale)
{
	static char units[32][24];
	static int nunits;
	char gen[96], err[200];
	const char *e = event + 6;
	src_perf_ev ev;
	size_t k = 0;

	if (strncmp(event, "perf::", 6) != 0)
		return -1;
	if (!strncmp(e, "PERF_COUNT_SW_", 14) || !strncmp(e, "PERF_COUNT_HW_", 14))
		e += 14;
	for (; *e && *e != ':' && k + 1 < sizeof gen; e++)
		gen[k++] = *e == '_' ? '-' : (char)tolower((unsigned char)*e);
	gen[k] = '\0';
	if (!strcmp(gen, "faults"))
		snprintf(gen, sizeof gen, "page-faults");
	else if (!strcmp(gen, "cs"))
		snprintf(gen, sizeof gen, "context-switches");
	else if (!strcmp(gen, "migrations"))
		snprintf(gen, sizeof gen, "cpu-migrations");
	if (src_perf_event_parse(gen, NULL, &ev, err, (int)sizeof err) != 0 || !strncmp(ev.stream, "core.raw_", 9))
		return -1;
	snprintf(name, namelen, "%s", ev.stream);
	*scale = ev.scale;
	/* the unit string must outlive the call: keep one copy per spelling */
	for (int i = 0; i < nunits; i++)
		if (!strcmp(units[i], ev.unit)) {
			*unit = units[i];
			return 0;
		}
	if (nunits == 32)
		return -1;
	snprintf(units[nunits], sizeof units[0], "%s", ev.unit);
	*unit = units[nunits++];
	return 0;
}

void src_papi_event_stream(const char *event, const char *papi_units, char *name,
			   size_t namelen, const char **unit, double *scale)
{
	size_t k = 0;

	if (papi_perf_generic(event, name, namelen, unit, scale) == 0)
		return;

	for (size_t i = 0; i < sizeof papi_known / sizeof papi_known[0]; i++)
		if (strcmp(event, papi_known[i].event) == 0) {
			snprintf(name, namelen, "%s", papi_known[i].name);
			*unit = papi_known[i].unit;
			*scale = papi_known[i].scale;
			return;
		}
	*unit = "";
	*scale = 1.0;
	if (papi_units) {
		if (strcmp(papi_units, "nJ") == 0)
			*unit = "J", *scale = 1e-9;
		else if (strcmp(papi_units, "uJ") == 0)
			*unit = "J", *scale = 1e-6;
		else if (strcmp(papi_units, "mW") == 0)
			*unit = "W", *scale = 1e-3;
		else if (strcmp(papi_units, "nW") == 0)
			*unit = "W", *scale = 1e-9;
		else if (strcmp(papi_units, "ns") == 0)
			*unit = "s", *scale = 1e-9;
		else if (strcmp(papi_units, "B") == 0 || strcmp(papi_units, "bytes") == 0)
			*unit = "B";
	}
	k = (size_t)snprintf(name, namelen, "papi.");
	for (const char *c = event; *c && k + 1 < namelen; c++) {
		char ch = (char)tolower((unsigned char)*c);
		if (!isalnum((unsigned char)ch))
			ch = '_';
		if (ch == '_' && name[k - 1] == '_')
			continue;
		name[k++] = ch;
	}
	while (k > 5 && name[k - 1] == '_')
		k--;
	name[k] = '\0';
}

static int papi_no_kernel_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0 &&
	       access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) != 0;
}

/* Why hardware events may not work here: a short reason (appended to the
 * error) and a fix; both "" when nothing looks wrong. */
static void papi_hw_diag(char *why, size_t wlen, char *fix, size_t flen)
{
	const char *force = getenv("LIBPFM_FORCE_PMU");
	int cidx = PAPI_get_component_index("perf_event");
	const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	int arch_pmu = 0;
	int no_kernel_pmu = papi_no_kernel_pmu();

	why[0] = fix[0] = '\0';
	if (force && *force) {
		src_mcsrc_fmt(why, wlen, "LIBPFM_FORCE_PMU=%s: libpfm4 knows only that PMU (no perf:: software events)%s%s%s",
			      force, ci && ci->disabled ? "; perf_event: " : "", ci && ci->disabled ? ci->disabled_reason : "",
			      no_kernel_pmu ? "; and the kernel has no hardware PMU" : "");
		src_mcsrc_fmt(fix, flen, "unset LIBPFM_FORCE_PMU for perf::TASK-CLOCK etc.; 'papi_native_avail' lists what %s has", force);
		return;
	}
	if (!ci || ci->disabled) {
		src_mcsrc_fmt(why, wlen, "PAPI perf_event component disabled: %s", ci ? ci->disabled_reason : "absent");
		src_mcsrc_fmt(fix, flen, "see 'papi_component_avail'");
		return;
	}
	for (int i = 0; i < PAPI_PMU_MAX && ci->pmu_names[i]; i++)
		if (strcmp(ci->pmu_names[i], "perf") && strcmp(ci->pmu_names[i], "perf_raw"))
			arch_pmu = 1;
	if (!arch_pmu) {
		src_mcsrc_fmt(why, wlen, "libpfm4 does not know this CPU (%s, family %d model %d)",
			      hw ? hw->model_string : "?", hw ? hw->cpuid_family : -1, hw ? hw->cpuid_model : -1);
		src_mcsrc_fmt(fix, flen, "set LIBPFM_FORCE_PMU to the closest PMU model libpfm4 has (e.g. LIBPFM_FORCE_PMU=amd64_fam19h_zen3)");
	} else if (no_kernel_pmu) {
		src_mcsrc_fmt(why, wlen, "the kernel has no hardware PMU%s", hw && hw->virtualized ? " (a VM)" : "");
		src_mcsrc_fmt(fix, flen, "only software events count here: perf::TASK-CLOCK, perf::PAGE-FAULTS, perf::CONTEXT-SWITCHES (LIBPFM_FORCE_PMU cannot add counters the kernel lacks)");
	}
}

/* The disabled components and why, as papi_component_avail says it:
 * "disabled components: sde (libsde API not found...), rocm_smi (...)". */
static void papi_components(char *out, size_t len)
{
	size_t used = 0;
	int n = PAPI_num_components();

	out[0] = '\0';
	for (int i = 0; i < n && used + 1 < len; i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);
		int code = 0 | PAPI_NATIVE_MASK;
		if (!ci)
			continue;
		if (ci->disabled == PAPI_EDELAY_INIT) {
			/* delayed-init components learn why only when asked for events */
			PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, i);
			ci = PAPI_get_component_info(i);
		}
		if (!ci->disabled)
			continue;
		src_mcsrc_fmt(out + used, len - used, "%s%s (%.*s)", used ? ", " : "PAPI components disabled: ",
			      ci->name, (int)strcspn(ci->disabled_reason, "\n"), ci->disabled_reason);
		used = strlen(out);
	}
}

/* Can PAPI's CPU component attach to a process (tried on ourselves)? */
static int papi_can_attach(void)
{
	int cidx = PAPI_get_component_index("perf_event"), es = PAPI_NULL, ok = 0;

	if (cidx < 0 || PAPI_create_eventset(&es) != PAPI_OK)
		return 0;
	if (PAPI_assign_eventset_component(es, cidx) == PAPI_OK && PAPI_attach(es, (unsigned long)getpid()) == PAPI_OK) {
		ok = 1;
		PAPI_detach(es);
	}
	PAPI_destroy_eventset(&es);
	return ok;
}

/* PAPI's components print on stderr as they load (ROCm SMI's "Failed to
 * open drm root directory" and "Exception caught: rsmi_init.", where
 * Slurm's packages brought it in, on the first event name looked up);
 * mcrec says what PAPI can count in one line of its own.  Its calls that
 * may load a component run with stderr on /dev/null: papi_mute gives the
 * saved stderr to papi_unmute (-1: nothing was changed).  Done before
 * mcrec starts its threads: no other output is lost. */
static int papi_mute(void)
{
	fflush(stderr);
	int keep = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (keep >= 0 && null >= 0 && dup2(null, STDERR_FILENO) >= 0) {
		close(null);
		return keep;
	}
	if (keep >= 0)
		close(keep);
	if (null >= 0)
		close(null);
	return -1;
}

static void papi_unmute(int keep)
{
	if (keep < 0)
		return;
	fflush(stderr);
	dup2(keep, STDERR_FILENO);
	close(keep);
}

static int papi_probe_muted(rec_source *s, const rec_ctx *c);

static int papi_probe(rec_source *s, const rec_ctx *c)
{
	int keep = papi_mute(); /* its diagnosis looks events up: the components load */
	int rc = papi_probe_muted(s, c);
	papi_unmute(keep);
	return rc;
}

static int papi_probe_muted(rec_source *s, const rec_ctx *c)
{
	int rc = PAPI_is_initialized() ? (int)PAPI_VER_CURRENT : PAPI_library_init(PAPI_VER_CURRENT);
	char why[256];

	if (rc != (int)PAPI_VER_CURRENT) {
		src_mcsrc_fmt(why, sizeof why, "PAPI_library_init failed: %s", rc > 0 ? "version mismatch" : PAPI_strerror(rc));
		return rec_unavailable(s, why, "check the libpapi installation ('papi_component_avail')");
	}
	if (!(s->priv = calloc(1, sizeof(papi_priv))))
		return rec_unavailable(s, "out of memory", "");
	/* An available source's why/fix say what part of it is missing
	 * (--list prints them): whether PAPI can count the command at all,
	 * the hardware-event diagnosis, the disabled components. */
	{
		char hw[256], comp[400];
		int attach = papi_can_attach();
		papi_hw_diag(hw, sizeof hw, s->fix, sizeof s->fix);
		if (!attach)
			snprintf(s->fix, sizeof s->fix, "the perf source counts the command's software events (perf:task-clock...); PAPI counts other processes where the kernel has a hardware PMU");
		papi_components(comp, sizeof comp);
		src_mcsrc_fmt(s->why, sizeof s->why, "%s%s%s%s",
			      attach ? "" : "PAPI cannot attach to another process here, so papi: CPU events cannot count the command; ",
			      hw[0] ? "hardware events: " : "", hw, comp[0] ? (hw[0] || !attach ? "; " : "") : "");
		if (comp[0])
			src_mcsrc_fmt(s->why + strlen(s->why), sizeof s->why - strlen(s->why), "%s", comp);
	}
	return 0;
}

static int papi_is_cpu_component(int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	return ci && strcmp(ci->name, "perf_event") == 0;
}

/* The event set of (component, cpu), created and set up on first use. */
static papi_set *papi_set_get(rec_source *s, papi_priv *p, const rec_ctx *c, int cidx, int cpu, char *why,
			      size_t len)
{
	papi_set *st;
	PAPI_option_t opt;
	int rc;

	for (int i = 0; i < p->nset; i++)
		if (p->set[i].cidx == cidx && p->set[i].cpu == cpu)
			return &p->set[i];
	if (p->nset == PAPI_MAX_SETS) {
		src_mcsrc_fmt(why, len, "too many PAPI event sets");
		return NULL;
	}
	st = &p->set[p->nset];
	memset(st, 0, sizeof *st);
	st->cidx = cidx;
	st->cpu = cpu;
	st->es = PAPI_NULL;
	if ((rc = PAPI_create_eventset(&st->es)) != PAPI_OK ||
	    (rc = PAPI_assign_eventset_component(st->es, cidx)) != PAPI_OK)
		goto fail;
	if (papi_is_cpu_component(cidx)) {
		if (cpu >= 0) {
			memset(&opt, 0, sizeof opt);
			opt.cpu.eventset = st->es;
			opt.cpu.cpu_num = (unsigned)cpu;
			if ((rc = PAPI_set_opt(PAPI_CPU_ATTACH, &opt)) != PAPI_OK)
				goto fail;
		} else if (!c->system_wide) {
			/* The child exists only at start(); check now, on
			 * ourselves, that PAPI may attach at all. */
			if ((rc = PAPI_attach(st->es, (unsigned long)getpid())) != PAPI_OK ||
			    (rc = PAPI_detach(st->es)) != PAPI_OK)
				goto fail;
			st->attach = 1;
		}
	}
	if (c->papi_multiplex) {
		if (!p->multiplex_ready && (rc = PAPI_multiplex_init()) != PAPI_OK)
			goto fail;
		p->multiplex_ready = 1;
		if ((rc = PAPI_set_multiplex(st->es)) != PAPI_OK)
			goto fail;
	}
	p->nset++;
	return st;
fail:
	if (papi_is_cpu_component(cidx) && rc == PAPI_ENOEVNT && papi_no_kernel_pmu())
		/* PAPI's perf_event component checks attach/inherit/CPU
		 * permissions by opening PERF_COUNT_HW_INSTRUCTIONS, which a
		 * kernel without a hardware PMU refuses with ENOENT. */
		src_mcsrc_fmt(why, len, "PAPI cannot attach to the %s: its perf_event component tests permission with a hardware instructions event and this kernel has no hardware PMU (a VM?), so PAPI counts only its own thread here",
			      cpu >= 0 ? "CPUs" : "child");
	else
		src_mcsrc_fmt(why, len, "cannot set up a PAPI event set for component %s%s: %s",
			      PAPI_get_component_info(cidx)->name, cpu >= 0 ? " on a CPU" : "", PAPI_strerror(rc));
	if (st->es != PAPI_NULL)
		PAPI_destroy_eventset(&st->es);
	return NULL;
}

static int papi_add(rec_source *s, papi_priv *p, const rec_ctx *c, const char *ev, rec_streams *out)
{
	char why[512], diag[256], dfix[256], name[128], native[300], inst[16];
	PAPI_event_info_t info;
	const char *unit;
	double scale;
	int code, cidx, rc;
	int per_cpu;

	if ((rc = PAPI_event_name_to_code(ev, &code)) != PAPI_OK) {
		papi_hw_diag(diag, sizeof diag, dfix, sizeof dfix);
		src_mcsrc_fmt(why, sizeof why, "unknown PAPI event '%s' (%s)%s%s", ev, PAPI_strerror(rc), diag[0] ? "; " : "", diag);
		return rec_unavailable(s, why, dfix[0] ? dfix : "'papi_avail -a' and 'papi_native_avail' list the events of this machine");
	}
	cidx = PAPI_get_event_component(code);
	memset(&info, 0, sizeof info);
	PAPI_get_event_info(code, &info);
	src_papi_event_stream(ev, info.units, name, sizeof name, &unit, &scale);
	if (!c->node_streams && !papi_is_cpu_component(cidx)) {
		/* another component's counters are node-wide: local rank 0 has them */
		src_mcsrc_fmt(s->why, sizeof s->why, "%s left to the node's first rank (node-wide)", ev);
		return 0;
	}
	per_cpu = c->system_wide && papi_is_cpu_component(cidx);
	for (int cpu = per_cpu ? 0 : -1; cpu < (per_cpu ? c->ncpus : 0); cpu++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		papi_set *st = papi_set_get(s, p, c, cidx, cpu, why, sizeof why);
		if (!st)
			return rec_unavailable(s, why, papi_no_kernel_pmu() ? "count the child's software events with the perf source (perf:task-clock...); PAPI works on machines with a hardware PMU"
									: "'papi_component_avail' shows the components");
		if (st->n == PAPI_MAX_EVENTS)
			return rec_unavailable(s, "too many PAPI events in one component", "");
		if ((rc = PAPI_add_event(st->es, code)) != PAPI_OK) {
			papi_hw_diag(diag, sizeof diag, dfix, sizeof dfix);
			src_mcsrc_fmt(why, sizeof why, "PAPI event '%s' cannot be counted: %s%s%s", ev, PAPI_strerror(rc),
				      diag[0] ? "; " : "", diag);
			if (rc == PAPI_ECNFLCT && !c->papi_multiplex)
				snprintf(dfix, sizeof dfix, "too many events for the counters: add --papi-multiplex");
			return rec_unavailable(s, why, dfix[0] ? dfix : "'papi_command_line EVENT' tests an event");
		}
		st->gauge[st->n] = info.value_type == PAPI_VALUETYPE_ABSOLUTE || info.data_type == PAPI_DATATYPE_FP64;
		st->fp[st->n] = info.data_type == PAPI_DATATYPE_FP64;
		st->slot[st->n] = p->n++;
		st->n++;
		src_mcsrc_fmt(native, sizeof native, "papi:%s", ev);
		snprintf(inst, sizeof inst, "cpu%d", cpu);
		d.name = name;
		d.source = "papi";
		d.native = native;
		d.unit = unit;
		d.scale = scale;
		d.note = PAPI_get_component_info(cidx)->name;
		d.kind = st->gauge[st->n - 1] ? MCZ_GAUGE : MCZ_COUNTER;
		d.type = st->fp[st->n - 1] ? MCZ_F64 : (d.kind == MCZ_GAUGE ? MCZ_I64 : MCZ_U64);
		d.instance = cpu >= 0 ? inst : "";
		d.flags = cpu >= 0 ? MCZ_SF_PERCPU : 0;
		d.topo = cpu >= 0 && c->topo_pu ? c->topo_pu(cpu) : (c->topo_machine ? c->topo_machine() : -1);
		if (rec_streams_add(out, &d) != 0)
			return rec_unavailable(s, "out of memory", "");
	}
	return 0;
}

/* Streams are declared in the order of -e; a set's values come back in the
 * set's order, and slot[] maps one to the other. */
static int papi_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	papi_priv *p = s->priv;

	s->on_request = "streams chosen with -e papi:EVENT "
			"('papi_avail -a' and 'papi_native_avail' list the events)";
	int keep = papi_mute(); /* the first name looked up loads the components */
	int rc = 0;
	for (const char *const *e = c->events; e && *e && !rc; e++)
		if (papi_add(s, p, c, *e, out) != 0)
			rc = -1;
	papi_unmute(keep);
	return rc;
}

static int papi_start(rec_source *s, const rec_ctx *c)
{
	papi_priv *p = s->priv;
	char why[256];
	int rc;

	for (int i = 0; i < p->nset; i++) {
		papi_set *st = &p->set[i];
		if (st->attach && c->child > 0) {
			PAPI_option_t opt;
			memset(&opt, 0, sizeof opt);
			opt.inherit.eventset = st->es;
			opt.inherit.inherit = PAPI_INHERIT_ALL;
			if ((rc = PAPI_attach(st->es, (unsigned long)c->child)) != PAPI_OK ||
			    (rc = PAPI_set_opt(PAPI_INHERIT, &opt)) != PAPI_OK) {
				src_mcsrc_fmt(why, sizeof why, "PAPI cannot attach to the child: %s", PAPI_strerror(rc));
				return rec_unavailable(s, why, "'papi_component_avail' shows what the perf_event component allows");
			}
		}
		if ((rc = PAPI_start(p->set[i].es)) != PAPI_OK) {
			src_mcsrc_fmt(why, sizeof why, "PAPI_start failed: %s", PAPI_strerror(rc));
			return rec_unavailable(s, why, "'papi_command_line EVENT...' tests the same events");
		}
		p->set[i].started = 1;
	}
	return 0;
}

static int papi_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	papi_priv *p = s->priv;

	for (int i = 0; i < p->nset; i++) {
		papi_set *st = &p->set[i];
		int ok = PAPI_read(st->es, st->vals) == PAPI_OK;
		for (int j = 0; j < st->n; j++) {
			size_t k = st->slot[j];
			present[k] = (uint8_t)ok;
			if (st->fp[j])
				memcpy(&v[k].f, &st->vals[j], sizeof v[k].f);
			else
				v[k].u = (uint64_t)st->vals[j];
		}
	}
	return 0;
}

static void papi_stop(rec_source *s)
{
	papi_priv *p = s->priv;

	for (int i = 0; p && i < p->nset; i++)
		if (p->set[i].started) {
			PAPI_stop(p->set[i].es, p->set[i].vals);
			p->set[i].started = 0;
		}
}

static void papi_free(rec_source *s)
{
	papi_priv *p = s->priv;

	papi_stop(s);
	for (int i = 0; p && i < p->nset; i++) {
		PAPI_cleanup_eventset(p->set[i].es);
		PAPI_destroy_eventset(&p->set[i].es);
	}
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_papi_ops = {
	.name = "papi",
	.groups = "", /* records only what -e names: probed then, and for --list */
	.probe = papi_probe,
	.streams = papi_streams,
	.start = papi_start,
	.read = papi_read,
	.stop = papi_stop,
	.free = papi_free,
};
