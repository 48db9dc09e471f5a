/* sourceset.c: the sources of one recording, driven through their life
 * (source.h): which are selected (-g groups, -e items), probe, declare
 * streams, start, read into one row, stop, free.  Each source gets its
 * slice of the row (first, n) in registry order.
 *
 * Rates: a slow source (rec_source.period_ns: proc, net) is read at the
 * ticks that are a whole number of intervals apart, period_ns rounded
 * (rec_sourceset_period), and at the first and last rows, so that every
 * counter's deltas add up to its total over the run; in the rows between,
 * its streams are absent (no value repeated or made up).  The other
 * sources are read at every tick.
 *
 * Selection: a source named in -e records those items (and failing is
 * fatal); otherwise it records its defaults when one of its groups is chosen
 * and -e was not given alone (with -e and no -g, only the -e items are
 * recorded, as perf stat -e does).  The mark source always runs.
 */
#include "rec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sourceset_clear_slot(rec_sourceset *ss, size_t i)
{
	rec_source *s = &ss->src[i];
	if (s->ops && s->ops->free && s->priv)
		s->ops->free(s);
	s->priv = NULL;
	rec_streams_clear(&ss->st[i]);
}

int rec_sourceset_open(rec_sourceset *ss, const rec_options *o, const rec_ctx *base,
		       int everything, char *err, size_t errlen)
{
	memset(ss, 0, sizeof *ss);
	ss->n = rec_registry_count();
	ss->src = calloc(ss->n, sizeof *ss->src);
	ss->st = calloc(ss->n, sizeof *ss->st);
	ss->ctx = calloc(ss->n, sizeof *ss->ctx);
	ss->state = calloc(ss->n, sizeof *ss->state);
	ss->events = calloc(ss->n, sizeof *ss->events);
	ss->due = calloc(ss->n, sizeof *ss->due);
	ss->interval_ns = base->interval_ns;
	if (!ss->src || !ss->st || !ss->ctx || !ss->state || !ss->events || !ss->due) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (o->nevents &&
	    rec_registry_split_events(o->events, o->nevents, ss->events, err, errlen))
		return -1;

	for (size_t i = 0; i < ss->n; i++) {
		const rec_source_ops *ops = rec_registry[i];
		rec_source *s = &ss->src[i];
		unsigned mask = 0;
		char gerr[128];
		s->ops = ops;
		ss->ctx[i] = *base;
		ss->ctx[i].events = ss->events[i];
		rec_registry_groups(ops->groups, &mask, gerr, sizeof gerr);
		int named = ss->events[i] != NULL;
		int by_group = (mask & o->groups) && (!o->nevents || o->groups_given);
		int always = !strcmp(ops->name, "mark") || !strcmp(ops->name, "regions");
		if (!named && !by_group && !always && !everything)
			continue;
		s->fatal = named;
		if (ops->probe(s, &ss->ctx[i]) != 0 ||
		    ops->streams(s, &ss->ctx[i], &ss->st[i]) != 0) {
			if (named && s->fatal) { /* pcp clears fatal: pmcd down is not the end */
				snprintf(err, errlen, "%s: %s%s%s", ops->name, s->why,
					 s->fix[0] ? " — " : "", s->fix);
				return -1;
			}
			sourceset_clear_slot(ss, i);
			ss->state[i] = -1;
			continue;
		}
		ss->state[i] = 1;
		s->first = ss->nstreams;
		s->n = ss->st[i].n;
		ss->nstreams += s->n;
	}
	return 0;
}

int rec_sourceset_start(rec_sourceset *ss, pid_t child, char *err, size_t errlen)
{
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		if (ss->state[i] != 1 || !s->ops->start)
			continue;
		ss->ctx[i].child = child;
		if (s->ops->start(s, &ss->ctx[i]) != 0) {
			snprintf(err, errlen, "%s: %s%s%s", s->ops->name, s->why,
				 s->fix[0] ? " — " : "", s->fix);
			return -1;
		}
	}
	return 0;
}

int64_t rec_sourceset_period(const rec_sourceset *ss, size_t i)
{
	int64_t iv = ss->interval_ns > 0 ? ss->interval_ns : 1;
	int64_t k = (ss->src[i].period_ns + iv / 2) / iv;
	return (k > 1 ? k : 1) * iv;
}

void rec_sourceset_read(rec_sourceset *ss, mcz_value *v, uint8_t *present, int64_t now, int all)
{
	/* A source without streams (pcp with a pmcd but nothing asked of it)
	 * has nothing to read: a few us of cold cache per tick saved. */
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		if (ss->state[i] != 1 || !s->n)
			continue;
		if (s->period_ns > ss->interval_ns) {
			/* half an interval of slack: a tick woken late or early
			 * is still the one planned */
			if (!all && now < ss->due[i] - ss->interval_ns / 2)
				continue;
			ss->due[i] = now + rec_sourceset_period(ss, i);
		}
		s->ops->read(s, v + s->first, present + s->first);
	}
}

void rec_sourceset_late(rec_sourceset *ss, mcz_value *v, uint8_t *present, int64_t t_mono)
{
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		if (ss->state[i] == 1 && s->n && s->ops->late)
			s->ops->late(s, t_mono, v + s->first, present + s->first);
	}
}

void rec_sourceset_idle(rec_sourceset *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		if (ss->state[i] == 1 && s->ops->idle)
			s->ops->idle(s);
	}
}

int rec_sourceset_sync(rec_sourceset *ss, mcz_writer *w, int64_t t0_mono)
{
	int rc = 0;
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		int e = ss->state[i] == 1 && s->ops->sync ? s->ops->sync(s, w, t0_mono) : 0;
		if (e && !rc)
			rc = e;
	}
	return rc;
}

void rec_sourceset_stop(rec_sourceset *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		if (ss->state[i] == 1 && s->ops->stop)
			s->ops->stop(s);
	}
}

void rec_sourceset_finish(rec_sourceset *ss, mcz_writer *w, int64_t t0_mono, char *out,
			  size_t outlen)
{
	size_t at = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ss->n; i++) {
		rec_source *s = &ss->src[i];
		char msg[1024] = "";
		if (ss->state[i] != 1 || !s->ops->finish)
			continue;
		if (s->ops->finish(s, w, t0_mono, msg, sizeof msg) && !msg[0])
			snprintf(msg, sizeof msg, "%s: its block could not be written", s->ops->name);
		if (msg[0] && at < outlen) {
			int k = snprintf(out + at, outlen - at, "mcrec: %s\n", msg);
			at += k > 0 ? (size_t)k : 0;
		}
	}
}

void rec_sourceset_free(rec_sourceset *ss)
{
	for (size_t i = 0; ss->src && i < ss->n; i++)
		sourceset_clear_slot(ss, i);
	if (ss->events)
		rec_registry_free_events(ss->events);
	free(ss->src), free(ss->st), free(ss->ctx), free(ss->state), free(ss->events), free(ss->due);
	memset(ss, 0, sizeof *ss);
}
