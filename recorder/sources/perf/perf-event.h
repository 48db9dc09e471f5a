/* perf-event.h: perf event names -> perf_event_attr fields, for the perf
 * source (recorder/sources/perf/perf.c) and its tests.  Knows perf's generic
 * names (instructions, cycles, task-clock, LLC-load-misses...) and any PMU
 * event the kernel describes in sysfs ("uncore_imc_0/cas_count_read/",
 * "msr/tsc/", "cpu/event=0x3c,umask=0x00/"), as `perf stat -e` does.
 *
 *     src_perf_ev ev;
 *     char err[200];
 *     if (src_perf_event_parse("uncore_imc_0/cas_count_read/", NULL, &ev, err, sizeof err))
 *         fail(err);         // "unknown PMU 'uncore_imc_0' (no /sys/bus/...)"
 *     attr.type = ev.type; attr.config = ev.config; ...
 */
#ifndef SRC_PERF_EVENT_H
#define SRC_PERF_EVENT_H

#include <stdint.h>

enum { SRC_PERF_MAXCPU = 1024 };

typedef struct src_perf_ev {
	char name[96];    /* as the user or the table spells it */
	char stream[96];  /* mcz stream name: "core.instructions" */
	char unit[24];    /* after scale */
	uint32_t type;
	uint64_t config, config1, config2;
	double scale;     /* from the table or sysfs <event>.scale */
	unsigned group;   /* rec_group bit */
	int hw;           /* needs a hardware PMU (generic hardware / cache event) */
	int uncore;       /* a PMU with a cpumask: system-wide, on those CPUs only */
	int ncpus;        /* uncore: CPUs of the cpumask */
	int cpus[16];
	int user_only;    /* count user space only (exclude_kernel, perf's ":u"):
			   * what an unprivileged user may at perf_event_paranoid 2 */
} src_perf_ev;

/* The default events, in the order recorded. */
const src_perf_ev *src_perf_event_defaults(int *n);

/* Parse an event name.  sysfs_root: NULL = "/sys" (tests pass a fixture
 * tree).  0, or -1 with err filled. */
int src_perf_event_parse(const char *name, const char *sysfs_root, src_perf_ev *ev, char *err,
			 int errlen);

/* What the perf source asks the kernel for (perf_event_open's attr): the
 * event, time enabled/running in every read (multiplexing), the group's
 * values in one read when `group`; counting a task (`task`): inherit to its
 * threads and children, and, when enable_on_exec, only the group leader
 * waits disabled for the exec (members follow their leader). */
struct perf_event_attr;
void src_perf_event_attr(const src_perf_ev *ev, int task, int enable_on_exec, int leader,
			 int group, struct perf_event_attr *a);

/* The memory-controller read/write events of this machine, if the kernel
 * exposes them (Intel uncore_imc_*, AMD amd_umc_*): up to max of each;
 * returns how many boxes were found (0: none). */
int src_perf_event_imc(const char *sysfs_root, src_perf_ev *rd, src_perf_ev *wr, int max);

#endif
