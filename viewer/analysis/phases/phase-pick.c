/* phase-pick.c: which rows the phase detector reads on a recording made
 * from PCP archives (pmlogger's default configuration logs hundreds of
 * metrics, most of them constants or metadata: pmcd.pid, hinv.ntape).
 *
 *     size_t rows[64];
 *     const char *basis;
 *     size_t n = phase_pick_pcp(m, rows, 64, &basis);   // 0: not PCP, take them all
 *
 * A row is a candidate when it changes, by the activity score that orders
 * the timeline's rows (viewer/model/model-activity.c: 0 is a constant).
 * The host's utilisation, memory, disk and network families come first,
 * the busiest first; other changing rows (not metadata: pmcd.*, hinv.*,
 * pmda.*) only when those families are too few to go by.  The report's
 * header says which (vw_phase_pick_basis).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "phase-int.h"

/* What the host did: prefixes of PCP metric names. */
static const char *const host_families[] = {
	"kernel.all.cpu.", "kernel.percpu.cpu.", "kernel.pernode.cpu.", "kernel.all.load",
	"kernel.all.runnable", "kernel.all.pswitch", "kernel.all.intr", "kernel.all.running",
	"mem.util.", "mem.vmstat.pg", "mem.freemem", "swap.", "disk.all.", "disk.dev.",
	"disk.dm.", "network.interface.in.", "network.interface.out.", "network.all.", NULL};

/* What the collector says of itself or of hardware that does not change. */
static const char *const metadata[] = {"pmcd.", "hinv.", "pmda.", "pmlogger.", "event.",
				       "pmproxy.", NULL};

/* At most this many rows: the busiest of the host's.  On a pmlogger archive
 * (default pmlogconf, 1 s, both CPUs busy from 12 s to 22 s), 8 or 16 rows
 * found both ends of the busy period; 24 or more (the 17th on: page
 * activations, interrupts, pressure counters) put the start at 4 s, where
 * pmlogger's first counters began. */
#define PICK_MAX 16
/* Fewer host rows that change than this: other changing rows too. */
#define PICK_MIN_HOST 4

static int has_prefix(const char *label, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strncmp(label, list[i], strlen(list[i])))
			return 1;
	return 0;
}

int vw_phase_pick_metadata(const char *name)
{
	return has_prefix(name, metadata);
}

int vw_phase_pick_host(const char *name)
{
	return has_prefix(name, host_families);
}

int vw_phase_pick_is_pcp(const vw_model *m)
{
	for (size_t f = 0; f < m->nfiles; f++)
		if (!mcz_meta(m->files[f], "pcp_archive"))
			return 0;
	return m->nfiles > 0;
}

const char *vw_phase_pick_basis(const vw_model *m, const struct vw_phases *ph)
{
	if (!vw_phase_pick_is_pcp(m) || ph->params.streams[0])
		return NULL;
	/* the list names the rows chosen: all of the host's families or not */
	char w[96];
	for (const char *p = ph->used; *p;) {
		size_t n = strcspn(p, ",");
		snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w ? n : sizeof w - 1), p);
		if (!has_prefix(w, host_families))
			return "PCP: the streams that change, busiest first";
		p += n + (p[n] == ',');
	}
	return "PCP: the host's utilisation, memory, disk and network streams that change";
}

typedef struct pick {
	size_t g;
	double act;
} pick;

static int by_activity(const void *a, const void *b)
{
	const pick *x = a, *y = b;
	if (x->act != y->act)
		return x->act > y->act ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

size_t phase_pick_pcp(vw_model *m, int (*wanted)(const vw_model *, const vw_row *), size_t *rows,
		      size_t max)
{
	if (!vw_phase_pick_is_pcp(m) || !max)
		return 0;
	max = max < PICK_MAX ? max : PICK_MAX;
	/* every stream scored, as the timeline will when it has settled */
	double *act = vw_model_activity_all(m);
	if (!act)
		return 0;
	pick *host = malloc((m->ngroups + 1) * sizeof *host);
	pick *other = malloc((m->ngroups + 1) * sizeof *other);
	size_t nh = 0, no = 0, n = 0;
	for (size_t g = 0; host && other && g < m->ngroups; g++) {
		const vw_row *r = &m->groups[g];
		if (!wanted(m, r))
			continue;
		double a = 0;
		for (size_t k = 0; k < r->nmembers; k++)
			a = act[r->members[k]] > a ? act[r->members[k]] : a;
		if (a <= 0)
			continue; /* a constant tells nothing of phases */
		if (has_prefix(r->label, host_families))
			host[nh++] = (pick){g, a};
		else if (!has_prefix(r->label, metadata))
			other[no++] = (pick){g, a};
	}
	if (host && other) {
		qsort(host, nh, sizeof *host, by_activity);
		qsort(other, no, sizeof *other, by_activity);
		for (size_t i = 0; i < nh && n < max; i++)
			rows[n++] = host[i].g;
		for (size_t i = 0; nh < PICK_MIN_HOST && i < no && n < max; i++)
			rows[n++] = other[i].g;
	}
	free(host);
	free(other);
	free(act);
	return n;
}
