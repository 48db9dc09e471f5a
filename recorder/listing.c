/* listing.c: `mcrec --list` — every source compiled in, the streams it would
 * record here (families of per-CPU or per-interface streams on one line),
 * and for a source or part of one that cannot run, the reason and the fix:
 *
 *   perf     core,mem   available
 *            core.task_clock        s         x2  cpu0..cpu1   perf:task-clock
 *            note: hardware events (...) not recorded: no hardware PMU (...)
 *            fix:  on a VM, ask for a virtual PMU ...
 *   papi     -          available: streams chosen with -e papi:EVENT (...)
 *   perf     core,mem   available, streams chosen with -e perf:EVENT   (-g power)
 *   nvml     gpu,power  unavailable: libnvidia-ml.so.1 not found
 *            fix:  install the NVIDIA driver
 */
#include "rec.h"

#include <string.h>

static void listing_streams(const rec_streams *st, FILE *f)
{
	for (size_t i = 0; i < st->n; i++) {
		const mcz_stream_desc *d = &st->d[i];
		size_t k, n = 0, last = i;
		for (k = 0; k < i && strcmp(st->d[k].name, d->name) != 0; k++)
			;
		if (k < i)
			continue; /* listed with its first instance */
		for (k = i; k < st->n; k++)
			if (strcmp(st->d[k].name, d->name) == 0)
				n++, last = k;
		char inst[80];
		if (n > 1)
			snprintf(inst, sizeof inst, "x%zu %s..%s", n, d->instance, st->d[last].instance);
		else
			snprintf(inst, sizeof inst, "%s", d->instance);
		fprintf(f, "    %-26s %-10s %-18s %s%s%s\n", d->name, d->unit[0] ? d->unit : "-", inst,
			d->native,
			d->kind == MCZ_COUNTER ? " (counter)" : "",
			(d->flags & MCZ_SF_ESTIMATED) ? " ESTIMATED" : "");
		if (d->note[0])
			fprintf(f, "    %-26s %s\n", "", d->note);
	}
}

int rec_listing_print(const rec_options *o, FILE *f)
{
	rec_sourceset ss;
	rec_ctx base;
	char err[512];
	mcrec_context(o, &base, NULL);
	base.listing = 1;
	if (rec_sourceset_open(&ss, o, &base, !o->nevents, err, sizeof err)) {
		fprintf(stderr, "mcrec: %s\n", err);
		rec_sourceset_free(&ss);
		return 2;
	}
	fprintf(f, "sources (%s):\n", o->system_wide ? "system-wide, -a" : "the command, per CPU");
	for (size_t i = 0; i < ss.n; i++) {
		const rec_source *s = &ss.src[i];
		const char *g = s->ops->groups[0] ? s->ops->groups : "-";
		unsigned mask = 0;
		char gerr[128];
		if (ss.state[i] == 0)
			continue;
		/* pcp serves every group (but code): "all" fits the column */
		if (rec_registry_groups(s->ops->groups, &mask, gerr, sizeof gerr) == 0 &&
		    (mask | REC_G_CODE) == REC_G_ALL)
			g = "all";
		if (ss.state[i] < 0) {
			fprintf(f, "  %-8s %-10s unavailable: %s\n", s->ops->name, g, s->why);
			if (s->fix[0])
				fprintf(f, "  %-8s %-10s fix: %s\n", "", "", s->fix);
			continue;
		}
		/* papi records only what -e names, pcp mostly, and a source with
		 * nothing to record by default for the groups asked (perf under
		 * -g power): "0 streams" would read as "nothing to record here" */
		if (ss.st[i].n == 0 && s->on_request)
			fprintf(f, "  %-8s %-10s available: %s\n", s->ops->name, g, s->on_request);
		else if (ss.st[i].n == 0)
			fprintf(f, "  %-8s %-10s available, streams chosen with -e %s:EVENT\n",
				s->ops->name, g, s->ops->name);
		else
			fprintf(f, "  %-8s %-10s available, %zu stream%s\n", s->ops->name, g, ss.st[i].n,
				ss.st[i].n == 1 ? "" : "s");
		listing_streams(&ss.st[i], f);
		if (ss.st[i].n > 0 && s->on_request)
			fprintf(f, "    more: %s\n", s->on_request);
		if (s->why[0])
			fprintf(f, "    note: %s\n", s->why);
		if (s->fix[0])
			fprintf(f, "    fix:  %s\n", s->fix);
	}
	rec_sourceset_free(&ss);
	return 0;
}
