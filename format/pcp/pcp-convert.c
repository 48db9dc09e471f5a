/* pcp-convert.c: PCP archive records -> mcz rows, the heart of libmczpcp.
 *
 *     char *names[] = { "node7/20261122.0.xz" };
 *     pcp_convert(names, 1, "node7/20261122", "run.mcz", -1, &opts, &stats, err, sizeof err);
 *
 * Each record (pmHighResResult) becomes one row at its timestamp; records of
 * the same time (two pmlogger groups, two hosts) merge into one row.  A
 * (metric, instance) pair becomes a stream the first time it has a value;
 * rows where it has none leave it missing, so instances that come and go
 * are gaps, not zeros.  Per-metric errors and "no values" are missing too.
 * <mark> records (pmlogger restarts, pmlogextract joins) become
 * MCZ_MARK_GAP marks; the values of the string metric mcz.mark (an archive
 * of mcz export --pcp) become marks again ("begin X", "end X", "point X",
 * "X"), and its item label mcz_unit names a unit PCP only counts.  Values
 * are stored raw (see pcp-metric.c for kinds,
 * units, scale and 32-bit counter unwrapping).  Time 0 of the recording is
 * the earliest archive label start (or first record if earlier).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../mcz.h"
#include "pcp-int.h"

#define SKIPPED_LIST 160 /* characters of skipped metric names kept for the note */

typedef struct imp_metric {
	char *name;
	char *given;  /* label mcz_name: the stream name mcz export was given
			 where PCP could not take it (NULL: name) */
	int inst_renamed;  /* label mcz_instances: instances with mcz_instance */
	pmLabelSet *ils;   /* their labels, read at the first stream */
	int nils, ils_read;
	pmDesc desc;
	pcp_metric_kind k;
	int use;    /* 1 imported, 0 left out (filtered, not numeric) */
	int nodesc; /* no descriptor: type unknown, only in-situ values kept */
	int marks;  /* mcz.mark (mcz export --pcp): its strings are marks */
	/* the streams of the last record's values, by position: records list
	 * the same instances in the same order, so most lookups end here */
	int *slot_inst;
	uint32_t *slot_id;
	int nslot;
} imp_metric;

typedef struct imp_stream {
	uint32_t arch;     /* index of its archive */
	uint8_t wrap32, have_last;
	uint32_t last_raw; /* 32-bit counters: last raw value, to see wraps */
	uint64_t wraps;
} imp_stream;

typedef struct imp {
	const pcp_import_opts *o;
	pcp_import_stats *st;
	pcp_archive *a;
	size_t na;
	int multihost;
	pcp_map *metric_of;  /* per archive: pmID -> metric index */
	pcp_map *stream_of;  /* per archive: pmID << 32 | inst -> stream id */
	pcp_indom_cache *indoms; /* per archive: instance names */
	imp_metric *metrics;
	size_t nmetrics, capm;
	imp_stream *streams;
	mcz_value *vals;     /* per stream: its value in the pending row */
	uint8_t *present;    /* per stream: 1 if it has one */
	uint32_t *row_ids;   /* the streams of the pending row, in order set */
	mcz_value *row_vals; /* their values, gathered for the writer */
	size_t caps;
	int64_t epoch, row_t, row_n; /* row_n: values in the pending row */
	mcz_writer *w;
	mcz_topo_obj topo[1 + 4096];
	size_t ntopo;
	char *nic[256]; /* interfaces the archive says are devices (physical_nic) */
	size_t nnic;
	int nic_read;
	char skipped[SKIPPED_LIST];
	int64_t t_lo, t_hi;
	struct timespec last_progress; /* at most one line per 250 ms (the first at once) */
	const char *label;             /* the source's last name, for progress lines */
	/* continuing a recording (pcp_convert_resume): it, its streams by
	 * name and instance, its topology's size and its last gap mark */
	const char *resume;
	mcz_reader *old;
	pcp_map old_of;
	size_t ntopo_old;
	int64_t old_gap;
} imp;

static int grow_streams(imp *im, size_t need)
{
	if (need <= im->caps)
		return MCZ_OK;
	size_t cap = im->caps ? im->caps * 2 : 256;
	while (cap < need)
		cap *= 2;
	imp_stream *s = realloc(im->streams, cap * sizeof *s);
	if (s)
		im->streams = s;
	mcz_value *v = realloc(im->vals, cap * sizeof *v);
	if (v)
		im->vals = v;
	uint8_t *p = realloc(im->present, cap);
	if (p)
		im->present = p;
	uint32_t *ri = realloc(im->row_ids, cap * sizeof *ri);
	if (ri)
		im->row_ids = ri;
	mcz_value *rv = realloc(im->row_vals, cap * sizeof *rv);
	if (rv)
		im->row_vals = rv;
	if (!s || !v || !p || !ri || !rv)
		return MCZ_E_NOMEM;
	memset(p + im->caps, 0, cap - im->caps);
	im->caps = cap;
	return MCZ_OK;
}

static struct timespec ns_time(int64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
}

/* Whether the archive says interface name is a device, not a virtual
 * interface (its network.interface.virtual is 0).  mcrec's NICs are the
 * devices hwloc lists; a PCP archive says no more of them than this, so
 * an interface it does not say so of is the machine's.  The values are
 * read once, at the first NIC, from the records around the one being
 * read, by a context of their own (pmDupContext): the import's context
 * keeps its place. */
static int physical_nic(imp *im, size_t ai, const char *name)
{
	if (!im->nic_read) {
		im->nic_read = 1;
		const char *metric = "network.interface.virtual";
		pmID pmid;
		pmDesc d = { .indom = PM_INDOM_NULL };
		pmHighResResult *r = NULL;
		pmUseContext(im->a[ai].ctx);
		int c = pmLookupName(1, &metric, &pmid) == 1 && pmLookupDesc(pmid, &d) >= 0 &&
				d.indom != PM_INDOM_NULL ? pmDupContext() : -1;
		if (c >= 0) {
			/* the first values after the record before this one, else
			 * the last at or before it */
			struct timespec before = ns_time(im->row_t - 1), at = ns_time(im->row_t);
			struct timespec zero = { 0, 0 };
			if (pmSetModeHighRes(PM_MODE_FORW, &before, &zero) < 0 ||
			    pmFetchHighRes(1, &pmid, &r) < 0) {
				r = NULL;
				if (pmSetModeHighRes(PM_MODE_BACK, &at, &zero) < 0 ||
				    pmFetchHighRes(1, &pmid, &r) < 0)
					r = NULL;
			}
			pmDestroyContext(c);
			pmUseContext(im->a[ai].ctx);
		}
		const pmValueSet *vs = r && r->numpmid == 1 ? r->vset[0] : NULL;
		for (int j = 0; vs && j < vs->numval && im->nnic < sizeof im->nic / sizeof *im->nic; j++) {
			pmAtomValue a;
			const char *iname = pcp_indom_name(&im->indoms[ai], d.indom, vs->vlist[j].inst);
			if (iname && pmExtractValue(vs->valfmt, &vs->vlist[j], d.type, &a, PM_TYPE_U32) >= 0 &&
			    !a.ul && (im->nic[im->nnic] = strdup(iname)) != NULL)
				im->nnic++;
		}
		if (r)
			pmFreeHighResResult(r);
	}
	for (size_t i = 0; i < im->nnic; i++)
		if (!strcmp(im->nic[i], name))
			return 1;
	return 0;
}

/* The topology object of a stream of metric m and instance inst, by the
 * rule mcrec's live pcp source follows (pcp_topo_of): the PU, NUMA node,
 * GPU or NIC (a device, physical_nic) it names, made under the machine the
 * first time; -1 for the machine, and for archives of several hosts
 * (another host's cpu3 is not this one's). */
static int32_t topo_for(imp *im, size_t ai, const imp_metric *m, const char *inst,
			uint16_t *flags)
{
	if (im->multihost)
		return -1;
	int n;
	mcz_topo_type t = pcp_topo_of(m->name, inst, &n);
	if (t == MCZ_TOPO_PU)
		*flags |= MCZ_SF_PERCPU;
	if (t == MCZ_TOPO_MACHINE || (t == MCZ_TOPO_NIC && !physical_nic(im, ai, inst)))
		return -1;
	return pcp_topo_object(im->topo, &im->ntopo, sizeof im->topo / sizeof *im->topo, t, n, inst);
}

/* A stream's name and instance as one key (FNV-1a over both). */
static uint64_t name_key(const char *name, const char *inst)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = name;; p++) {
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
		if (!*p)
			break;
	}
	for (const char *p = inst; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The string value of label `name` in a label set, "" when it has none;
 * 1 when it has it.  \uXXXX (ASCII) and \", \\ read as what they stand
 * for: mcz export writes a name's quotes and controls so. */
static int label_str(const pmLabelSet *ls, int nsets, const char *name, char *buf, size_t len)
{
	int found = 0;
	buf[0] = '\0';
	for (int k = 0; k < nsets; k++)
		for (int i = 0; i < ls[k].nlabels; i++) {
			const pmLabel *l = &ls[k].labels[i];
			const char *v = ls[k].json + l->value;
			int vl = (int)l->valuelen;
			if (l->namelen != strlen(name) || strncmp(ls[k].json + l->name, name, l->namelen))
				continue;
			if (vl >= 2 && v[0] == '"') {
				v++;
				vl -= 2;
			}
			size_t u = 0;
			for (int j = 0; j < vl && u + 1 < len; j++) {
				unsigned x;
				if (v[j] == '\\' && j + 5 < vl && v[j + 1] == 'u' &&
				    sscanf(v + j + 2, "%4x", &x) == 1 && x < 0x80) {
					if (x) /* \u0000: the empty name (a label is not empty) */
						buf[u++] = (char)x;
					j += 5;
				} else if (v[j] == '\\' && j + 1 < vl) {
					buf[u++] = v[++j];
				} else {
					buf[u++] = v[j];
				}
			}
			buf[u] = '\0';
			found = 1;
		}
	return found;
}

/* The name a stream of metric m is given: its own where mcz export had
 * to change it for PCP (label mcz_name), else PCP's. */
static const char *stream_name(const imp_metric *m)
{
	return m->given ? m->given : m->name;
}

/* The instance's name as mcz export was given it (label mcz_instance),
 * into buf; 0 when it has none. */
static int given_instance(imp_metric *m, int inst, char *buf, size_t len)
{
	if (!m->inst_renamed || m->desc.indom == PM_INDOM_NULL)
		return 0;
	if (!m->ils_read) {
		m->ils_read = 1;
		m->nils = pmGetInstancesLabels(m->desc.indom, &m->ils);
		if (m->nils < 0)
			m->nils = 0;
	}
	for (int k = 0; k < m->nils; k++)
		if ((int)m->ils[k].inst == inst)
			return label_str(&m->ils[k], 1, "mcz_instance", buf, len);
	return 0;
}

/* A stream of the recording continued, named as the new one would be: its
 * id in *id (1), or 0.  A 32-bit counter's unwrapping goes on from its
 * last value, unless a gap mark came after it. */
static int old_stream(imp *im, size_t ai, const imp_metric *m, const char *instname, uint32_t *id)
{
	uint32_t k;
	if (!im->old || !pcp_map_get(&im->old_of, name_key(stream_name(m), instname), &k))
		return 0;
	const mcz_stream_desc *d = mcz_stream(im->old, k);
	if (!d || strcmp(d->name, stream_name(m)) || strcmp(d->instance, instname))
		return 0; /* two names of one hash: the second is new */
	imp_stream *s = &im->streams[k];
	memset(s, 0, sizeof *s);
	s->arch = (uint32_t)ai;
	s->wrap32 = (uint8_t)m->k.wrap32;
	mcz_series x;
	if (s->wrap32 && mcz_read(im->old, k, INT64_MIN, INT64_MAX, &x) == MCZ_OK) {
		for (size_t i = x.n; i-- > 0;)
			if (x.present[i]) {
				s->have_last = x.t[i] > im->old_gap;
				s->last_raw = (uint32_t)x.v[i].u;
				s->wraps = x.v[i].u >> 32;
				break;
			}
		mcz_series_free(&x);
	}
	*id = k;
	return 1;
}

static int new_stream(imp *im, size_t ai, imp_metric *m, int inst, uint32_t *id)
{
	char eb[64], ibuf[704], given[320];
	const char *instname = "", *iname;
	if (m->desc.indom != PM_INDOM_NULL || (m->nodesc && inst != (int)PM_IN_NULL)) {
		if (given_instance(m, inst, given, sizeof given))
			instname = given;
		else if (m->desc.indom != PM_INDOM_NULL &&
		    (iname = pcp_indom_name(&im->indoms[ai], m->desc.indom, inst)) != NULL)
			instname = iname;
		else {
			snprintf(eb, sizeof eb, "%d", inst);
			instname = eb;
		}
	}
	if (im->multihost) {
		snprintf(ibuf, sizeof ibuf, "%s%s%s", im->a[ai].host, *instname ? ":" : "",
			 instname);
		instname = ibuf;
	}
	if (old_stream(im, ai, m, instname, id))
		return pcp_map_put(&im->stream_of[ai], (uint64_t)m->desc.pmid << 32 | (uint32_t)inst,
				   *id);
	char native[300];
	snprintf(native, sizeof native, "pcp:%s", m->name);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = stream_name(m);
	d.source = "pcp";
	d.native = native;
	d.unit = m->k.unit;
	d.note = m->k.note;
	d.instance = instname;
	d.kind = m->k.kind;
	d.type = m->k.type;
	d.scale = m->k.scale;
	d.topo = topo_for(im, ai, m, instname, &d.flags);
	int rc = mcz_writer_add_stream(im->w, &d, id);
	if (rc == MCZ_OK)
		rc = grow_streams(im, (size_t)*id + 1);
	if (rc)
		return rc;
	imp_stream *s = &im->streams[*id];
	memset(s, 0, sizeof *s);
	s->arch = (uint32_t)ai;
	s->wrap32 = (uint8_t)m->k.wrap32;
	im->present[*id] = 0;
	im->st->streams++;
	return pcp_map_put(&im->stream_of[ai], (uint64_t)m->desc.pmid << 32 | (uint32_t)inst, *id);
}

static void note_skipped(imp *im, const char *name)
{
	size_t u = strlen(im->skipped);
	if (u + strlen(name) + 3 < sizeof im->skipped)
		snprintf(im->skipped + u, sizeof im->skipped - u, "%s%s", u ? ", " : "", name);
	else if (u + 5 < sizeof im->skipped && strcmp(im->skipped + u - 3, "...") != 0)
		snprintf(im->skipped + u, sizeof im->skipped - u, ", ...");
}

static int is_mark_metric(const pmDesc *d, const char *name)
{
	return d->type == PM_TYPE_STRING &&
	       (!strcmp(name, "mcz.mark") || !strncmp(name, "mcz.mark_", 9));
}

static int new_metric(imp *im, size_t ai, pmID pmid, uint32_t *mi)
{
	if (im->nmetrics == im->capm) {
		size_t cap = im->capm ? im->capm * 2 : 256;
		imp_metric *m = realloc(im->metrics, cap * sizeof *m);
		if (!m)
			return MCZ_E_NOMEM;
		im->metrics = m;
		im->capm = cap;
	}
	imp_metric *m = &im->metrics[im->nmetrics];
	memset(m, 0, sizeof *m);
	char *name = NULL;
	if (pmNameID(pmid, &name) < 0 || !name) {
		char idb[32];
		free(name);
		name = strdup(pmIDStr_r(pmid, idb, sizeof idb));
		if (!name)
			return MCZ_E_NOMEM;
	}
	m->name = name;
	if (!pcp_metric_match(im->o->metrics, name))
		im->st->filtered++;
	else if (pmLookupDesc(pmid, &m->desc) < 0) {
		/* damaged metadata: values without a descriptor; pmdumplog still
		 * prints the in-situ ones as 32-bit integers, so keep those */
		m->desc = (pmDesc){ .pmid = pmid, .type = PM_TYPE_32, .indom = PM_INDOM_NULL,
				    .sem = PM_SEM_INSTANT };
		pcp_metric_kind_of(&m->desc, &m->k);
		snprintf(m->k.note, sizeof m->k.note,
			 "no descriptor in the PCP archive (damaged metadata): raw 32-bit values");
		m->use = m->nodesc = 1;
		im->st->metrics++;
	} else {
		pcp_metric_kind_of(&m->desc, &m->k);
		m->use = !m->k.skip;
		pmLabelSet *ls = NULL;
		int nls = 0;
		if (m->use && (nls = pmGetItemLabels(pmid, &ls)) > 0) {
			char unit[sizeof m->k.unit];
			label_str(ls, nls, "mcz_unit", unit, sizeof unit);
			if (unit[0]) /* a unit PCP only counts, named by mcz export */
				memcpy(m->k.unit, unit, sizeof unit);
			char given[1024];
			if (label_str(ls, nls, "mcz_name", given, sizeof given) && given[0] &&
			    !(m->given = strdup(given))) {
				pmFreeLabelSets(ls, nls);
				return MCZ_E_NOMEM;
			}
			m->inst_renamed = label_str(ls, nls, "mcz_instances", given, sizeof given);
		}
		if (ls)
			pmFreeLabelSets(ls, nls);
		if (m->k.skip && is_mark_metric(&m->desc, name)) {
			m->use = m->marks = 1;
			im->st->metrics++;
		} else if (m->k.skip) {
			im->st->skipped_metrics++;
			note_skipped(im, name);
		} else
			im->st->metrics++;
	}
	*mi = (uint32_t)im->nmetrics++;
	return pcp_map_put(&im->metric_of[ai], pmid, *mi);
}

static int flush_row(imp *im)
{
	if (im->row_n == 0)
		return MCZ_OK;
	/* A record holds the metrics logged at its time, often few of the
	 * archive's: the row goes to the writer as its values only. */
	size_t n = (size_t)im->row_n;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = im->row_ids[i];
		im->row_vals[i] = im->vals[id];
		im->present[id] = 0;
	}
	int rc = mcz_writer_append_sparse(im->w, im->row_t - im->epoch, im->row_ids, im->row_vals, n);
	im->row_n = 0;
	im->st->rows++;
	return rc;
}

static mcz_value to_value(imp_stream *s, const pmDesc *d, const pmAtomValue *a)
{
	mcz_value v;
	switch (d->type) {
	case PM_TYPE_32:
		v.i = a->l;
		break;
	case PM_TYPE_U32:
		v.u = a->ul;
		break;
	case PM_TYPE_64:
		v.i = a->ll;
		break;
	case PM_TYPE_U64:
		v.u = a->ull;
		break;
	case PM_TYPE_FLOAT:
		v.f = a->f;
		break;
	default:
		v.f = a->d;
		break;
	}
	if (s->wrap32) {
		uint32_t raw = (uint32_t)v.u;
		if (s->have_last && raw < s->last_raw)
			s->wraps++;
		s->have_last = 1;
		s->last_raw = raw;
		v.u = raw + (s->wraps << 32);
	}
	return v;
}

/* The values of mcz.mark: marks at this record's time, their kind from the
 * word mcz export put in front. */
static int take_marks(imp *im, const pmValueSet *vs)
{
	static const struct {
		const char *word;
		uint8_t kind;
	} kinds[] = { { "begin", MCZ_MARK_BEGIN }, { "end", MCZ_MARK_END }, { "point", MCZ_MARK_POINT } };
	for (int j = 0; j < vs->numval; j++) {
		pmAtomValue a;
		if (pmExtractValue(vs->valfmt, &vs->vlist[j], PM_TYPE_STRING, &a, PM_TYPE_STRING) < 0)
			continue;
		const char *text = a.cp;
		uint8_t kind = MCZ_MARK_POINT;
		for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
			size_t n = strlen(kinds[k].word);
			if (!strncmp(text, kinds[k].word, n) && (text[n] == ' ' || !text[n])) {
				kind = kinds[k].kind;
				text += n + (text[n] == ' ');
				break;
			}
		}
		int rc = mcz_writer_mark(im->w, im->row_t - im->epoch, kind, 0, text);
		free(a.cp);
		if (rc)
			return rc;
		im->st->marks++;
	}
	return MCZ_OK;
}

static int take_values(imp *im, size_t ai, const pmValueSet *vs)
{
	uint32_t mi;
	int rc;
	if (!pcp_map_get(&im->metric_of[ai], vs->pmid, &mi) &&
	    (rc = new_metric(im, ai, vs->pmid, &mi)) != MCZ_OK)
		return rc;
	imp_metric *m = &im->metrics[mi];
	if (!m->use)
		return MCZ_OK;
	if (vs->numval <= 0) {
		im->st->missing++;
		return MCZ_OK;
	}
	if (m->marks)
		return take_marks(im, vs);
	if (vs->numval > m->nslot) {
		int *si = realloc(m->slot_inst, (size_t)vs->numval * sizeof *si);
		if (si)
			m->slot_inst = si;
		uint32_t *sd = realloc(m->slot_id, (size_t)vs->numval * sizeof *sd);
		if (sd)
			m->slot_id = sd;
		if (!si || !sd)
			return MCZ_E_NOMEM;
		for (int j = m->nslot; j < vs->numval; j++)
			m->slot_inst[j] = (int)PM_IN_NULL - 1; /* matches no instance */
		m->nslot = vs->numval;
	}
	for (int j = 0; j < vs->numval; j++) {
		const pmValue *pv = &vs->vlist[j];
		uint32_t id = m->slot_id[j];
		if (m->slot_inst[j] != pv->inst) {
			if (!pcp_map_get(&im->stream_of[ai],
					 (uint64_t)vs->pmid << 32 | (uint32_t)pv->inst, &id) &&
			    (rc = new_stream(im, ai, m, pv->inst, &id)) != MCZ_OK)
				return rc;
			m->slot_inst[j] = pv->inst;
			m->slot_id[j] = id;
		}
		pmAtomValue atom;
		if ((m->nodesc && vs->valfmt != PM_VAL_INSITU) ||
		    pmExtractValue(vs->valfmt, pv, m->desc.type, &atom, m->desc.type) < 0) {
			im->st->missing++;
			continue;
		}
		im->vals[id] = to_value(&im->streams[id], &m->desc, &atom);
		if (!im->present[id]) {
			im->present[id] = 1;
			im->row_ids[im->row_n++] = id;
			im->st->values++;
		}
	}
	return MCZ_OK;
}

static void progress(imp *im, int64_t t)
{
	if (!im->o->progress)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - im->last_progress.tv_sec) * 1000000000LL +
		    (now.tv_nsec - im->last_progress.tv_nsec) < 250000000LL)
		return;
	im->last_progress = now;
	double span = (double)(im->t_hi - im->t_lo);
	int pct = span > 0 ? (int)(100.0 * (double)(t - im->t_lo) / span) : 0;
	char line[160];
	snprintf(line, sizeof line, "importing %.80s: %3d%%  %llu records, %llu values", im->label,
		 pct < 0 ? 0 : pct > 100 ? 100 : pct, (unsigned long long)im->st->records,
		 (unsigned long long)im->st->values);
	im->o->progress(im->o->progress_arg, line, 0);
}

static int take_record(imp *im, size_t ai, const pmHighResResult *r)
{
	int64_t t = pcp_archive_ns(&r->timestamp);
	im->st->records++;
	progress(im, t);
	if (t < im->row_t) {
		im->st->out_of_order++;
		return MCZ_OK;
	}
	int rc;
	if (t > im->row_t && (rc = flush_row(im)) != MCZ_OK)
		return rc;
	im->row_t = t;
	if (r->numpmid == 0) { /* <mark>: a gap in this archive's data */
		char text[PM_MAX_HOSTNAMELEN + 64];
		snprintf(text, sizeof text, "%s%s<mark> (no PCP data logged)",
			 im->multihost ? im->a[ai].host : "", im->multihost ? ": " : "");
		for (size_t i = 0; i < im->st->streams; i++)
			if (im->streams[i].arch == ai)
				im->streams[i].have_last = 0;
		im->st->marks++;
		return mcz_writer_mark(im->w, t - im->epoch, MCZ_MARK_GAP, 0, text);
	}
	for (int i = 0; i < r->numpmid; i++)
		if ((rc = take_values(im, ai, r->vset[i])) != MCZ_OK)
			return rc;
	return MCZ_OK;
}

static void iso8601(int64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000LL);
	struct tm tm;
	gmtime_r(&s, &tm);
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06lldZ", d, (long long)(ns % 1000000000LL) / 1000);
}

static void write_meta(imp *im, const char *label)
{
	char buf[1024] = "", tz[256] = "";
	for (size_t i = 0; i < im->na; i++) {
		size_t u = strlen(buf), v = strlen(tz);
		snprintf(buf + u, sizeof buf - u, "%s%s", i ? "," : "", im->a[i].host);
		snprintf(tz + v, sizeof tz - v, "%s%.80s", i ? "," : "", im->a[i].tz);
	}
	mcz_writer_meta(im->w, "host", buf);
	mcz_writer_meta(im->w, "timezone", tz);
	iso8601(im->epoch, buf, sizeof buf);
	mcz_writer_meta(im->w, "start_wall", buf);
	snprintf(buf, sizeof buf, "pmlogger (PCP archive v%d), imported by mcz import",
		 im->a[0].version);
	mcz_writer_meta(im->w, "recorder", buf);
	mcz_writer_meta(im->w, "pcp_archive", label);
	pmLabelSet *ls = NULL;
	int nls = 0;
	pmUseContext(im->a[0].ctx);
	if (im->na == 1 && (nls = pmGetContextLabels(&ls)) > 0) {
		/* what mcz export --pcp wrote of the recording */
		static const char *const keys[] = { "command", "job", "rank" };
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
			label_str(ls, nls, keys[i], buf, sizeof buf);
			if (buf[0])
				mcz_writer_meta(im->w, keys[i], buf);
		}
	}
	if (ls)
		pmFreeLabelSets(ls, nls);
	mcz_writer_meta(im->w, "import_note",
			"PCP values stored raw; stream scale converts PCP units to SI base units "
			"(bytes, seconds, counts); 32-bit counters unwrapped (stored = raw + "
			"k*2^32); floating-point counters stored as gauges; <mark> = gap mark");
}

static int finish(imp *im)
{
	int rc = flush_row(im);
	if (im->st->skipped_metrics) {
		char buf[SKIPPED_LIST + 96];
		snprintf(buf, sizeof buf, "%llu metrics not numeric: %s",
			 (unsigned long long)im->st->skipped_metrics, im->skipped);
		mcz_writer_meta(im->w, "import_skipped", buf);
	}
	for (size_t i = 0; i < im->na; i++)
		if (im->a[i].note[0] && !im->st->warning[0]) {
			snprintf(im->st->warning, sizeof im->st->warning, "%s", im->a[i].note);
			mcz_writer_meta(im->w, "import_warning", im->st->warning);
		}
	for (size_t i = 0; i < im->na; i++)
		if (im->a[i].status) {
			char eb[PM_MAXERRMSGLEN], tb[48];
			iso8601(im->a[i].last_ns, tb, sizeof tb);
			pmErrStr_r(im->a[i].status, eb, sizeof eb);
			if (im->a[i].last_ns == 0) {
				snprintf(im->st->warning, sizeof im->st->warning,
					 "%s: no record readable: %s", im->a[i].name, eb);
				if (im->st->records == 0)
					return MCZ_E_CORRUPT; /* nothing at all: an error */
			} else
				snprintf(im->st->warning, sizeof im->st->warning,
					 "%s: read stopped after %s: %s", im->a[i].name, tb, eb);
			im->st->truncated = 1;
			mcz_writer_meta(im->w, "import_warning", im->st->warning);
		}
	if (im->ntopo > 1 && im->ntopo > im->ntopo_old && rc == MCZ_OK)
		rc = mcz_writer_topology(im->w, im->topo, im->ntopo);
	return rc;
}

static void imp_free(imp *im)
{
	for (size_t i = 0; i < im->nmetrics; i++) {
		free(im->metrics[i].name);
		free(im->metrics[i].given);
		if (im->metrics[i].ils)
			pmFreeLabelSets(im->metrics[i].ils, im->metrics[i].nils);
		free(im->metrics[i].slot_inst);
		free(im->metrics[i].slot_id);
	}
	free(im->metrics);
	for (size_t i = 0; i < im->na && im->metric_of && im->indoms; i++) {
		pcp_map_free(&im->metric_of[i]);
		pcp_map_free(&im->stream_of[i]);
		pcp_indom_free(&im->indoms[i]);
	}
	free(im->indoms);
	free(im->metric_of);
	free(im->stream_of);
	for (size_t i = 1; i < im->ntopo; i++)
		free((char *)im->topo[i].name);
	for (size_t i = 0; i < im->nnic; i++)
		free(im->nic[i]);
	free(im->streams);
	free(im->vals);
	free(im->present);
	free(im->row_ids);
	free(im->row_vals);
	pcp_map_free(&im->old_of);
	mcz_close(im->old);
	pcp_archive_close_all(im->a, im->na);
}

static int64_t ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A span as people read it: "45 s", "12m 5s", "3h 20m". */
void pcp_span_text(int64_t ns, char *buf, size_t len)
{
	long long s = ns / 1000000000LL;
	if (s < 60)
		snprintf(buf, len, "%lld s", s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm %llds", s / 60, s % 60);
	else
		snprintf(buf, len, "%lldh %lldm", s / 3600, s % 3600 / 60);
}

/* The recording to continue (im->resume), opened: its streams known by
 * name, its topology taken up, the archive placed after its last row, the
 * writer resumed.  MCZ_E_STATE when it is not the archive's start. */
static int resume_open(imp *im, const mcz_write_opts *wo, char *err, size_t errlen)
{
	int rc = im->na == 1 ? mcz_open(&im->old, im->resume, 0) : MCZ_E_STATE;
	const mcz_file_info *fi = rc ? NULL : mcz_info(im->old);
	if (!rc && (fi->recovered || fi->nrows == 0 || fi->wall_epoch_ns != im->epoch))
		rc = MCZ_E_STATE;
	size_t n = rc ? 0 : mcz_stream_count(im->old), nt = rc ? 0 : mcz_topo_count(im->old);
	if (!rc && (nt > sizeof im->topo / sizeof *im->topo || (rc = grow_streams(im, n + 1))))
		rc = rc ? rc : MCZ_E_STATE;
	for (uint32_t k = 0; !rc && k < n; k++) {
		const mcz_stream_desc *d = mcz_stream(im->old, k);
		uint64_t key = name_key(d->name, d->instance);
		uint32_t had;
		memset(&im->streams[k], 0, sizeof im->streams[k]);
		im->present[k] = 0;
		if (!pcp_map_get(&im->old_of, key, &had))
			rc = pcp_map_put(&im->old_of, key, k);
	}
	im->st->streams = n;
	for (size_t i = 1; !rc && i < nt; i++) {
		im->topo[i] = *mcz_topo(im->old, i);
		if (!(im->topo[i].name = strdup(im->topo[i].name ? im->topo[i].name : "")))
			rc = MCZ_E_NOMEM;
		else
			im->ntopo = i + 1;
	}
	im->ntopo_old = im->ntopo;
	im->old_gap = INT64_MIN;
	for (size_t i = 0; !rc && i < mcz_mark_count(im->old); i++) {
		const mcz_mark *k = mcz_mark_at(im->old, i);
		if (k->kind == MCZ_MARK_GAP && k->t > im->old_gap)
			im->old_gap = k->t;
	}
	if (!rc) {
		im->t_lo = im->row_t = im->epoch + fi->t_last;
		rc = pcp_archive_seek(&im->a[0], im->row_t);
	}
	if (!rc && (rc = mcz_writer_resume(&im->w, im->resume, wo)) == MCZ_OK) {
		/* a warning of the conversion continued (a volume read while
		 * pmlogger wrote it) is said again below if it still holds */
		const char *w = mcz_meta(im->old, "import_warning");
		if (w && *w)
			rc = mcz_writer_meta(im->w, "import_warning", "");
	}
	if (rc)
		snprintf(err, errlen, "%s: not continued: %s", im->resume,
			 rc == MCZ_E_STATE ? "not the start of this archive" : mcz_strerror(rc));
	return rc;
}

static int convert(imp *im, const char *label, const char *out_path, int out_fd, char *err,
		   size_t errlen)
{
	im->epoch = INT64_MAX;
	im->t_hi = INT64_MIN;
	for (size_t i = 0; i < im->na; i++) {
		int64_t first = im->a[i].next ? pcp_archive_ns(&im->a[i].next->timestamp) : INT64_MAX;
		int64_t s = im->a[i].start_ns < first ? im->a[i].start_ns : first;
		im->epoch = s < im->epoch ? s : im->epoch;
		im->t_hi = im->a[i].end_ns > im->t_hi ? im->a[i].end_ns : im->t_hi;
		im->multihost |= strcmp(im->a[i].host, im->a[0].host) != 0;
	}
	im->t_lo = im->row_t = im->epoch;
	const char *slash = strrchr(label, '/');
	im->label = slash && slash[1] ? slash + 1 : label;
	mcz_write_opts wo = MCZ_WRITE_OPTS_INIT;
	wo.wall_epoch_ns = im->epoch;
	wo.chunk_ns = 0; /* PCP intervals are seconds to minutes: cut chunks by rows only */
	wo.batch = 1;    /* nobody reads the file before the import ends */
	if (im->o->view) { /* shown at once, not kept */
		wo.quick = 1;
		wo.zstd_level = 1;
	}
	if (im->o->zstd_level)
		wo.zstd_level = im->o->zstd_level;
	im->topo[0] = (mcz_topo_obj){ -1, MCZ_TOPO_MACHINE, -1, 0, im->a[0].host };
	im->ntopo = 1;
	/* a file read while it is written (pcp_sync_ms) is opened by its path:
	 * at close the writer copies it without its PART blocks over that
	 * path (the rows' bytes once, in the file that is kept) */
	int rc = im->resume ? resume_open(im, &wo, err, errlen)
		 : out_fd >= 0 && !(pcp_sync_ms > 0 && out_path)
			 ? mcz_writer_open_fd(&im->w, out_fd, &wo)
			 : mcz_writer_open(&im->w, out_path, &wo);
	if (rc && im->resume)
		return rc;
	if (rc) {
		snprintf(err, errlen, "%s: %s", out_fd >= 0 ? "temporary file" : out_path,
			 rc == MCZ_E_IO ? strerror(errno) : mcz_strerror(rc));
		return rc;
	}
	if (!im->resume)
		write_meta(im, label);
	int i, due = 0;
	struct timespec start, synced;
	clock_gettime(CLOCK_MONOTONIC, &start);
	synced = start;
	while (rc == MCZ_OK && (i = pcp_archive_earliest(im->a, im->na)) >= 0) {
		if (pcp_import_stop) {
			rc = MCZ_E_IO;
			snprintf(err, errlen, "interrupted");
			break;
		}
		/* the first screen's share: the clock looked at every 16
		 * records, the read stopped between two rows */
		if (im->o->first_ms > 0 && !due && (im->st->records & 15) == 0)
			due = ms_since(&start) >= im->o->first_ms;
		if (due && pcp_archive_ns(&im->a[i].next->timestamp) > im->row_t) {
			im->st->partial = 1;
			break;
		}
		/* the rows so far into the file, for a reader following it */
		if (pcp_sync_ms > 0 && (im->st->records & 15) == 0 &&
		    ms_since(&synced) >= pcp_sync_ms) {
			rc = mcz_writer_sync(im->w);
			clock_gettime(CLOCK_MONOTONIC, &synced);
			if (rc)
				break;
		}
		pmUseContext(im->a[i].ctx);
		rc = take_record(im, (size_t)i, im->a[i].next);
		pcp_archive_advance(&im->a[i]);
	}
	if (rc == MCZ_OK && im->st->partial) {
		char a[32], b[32], line[128];
		pcp_span_text(im->row_t - im->epoch, a, sizeof a);
		pcp_span_text(im->t_hi - im->epoch, b, sizeof b);
		snprintf(line, sizeof line, "the first %s of %s", a, b);
		mcz_writer_meta(im->w, "import_partial", line);
	}
	if (rc == MCZ_OK)
		rc = finish(im);
	int crc = mcz_writer_close(im->w);
	if (rc == MCZ_E_CORRUPT && im->st->records == 0) {
		snprintf(err, errlen, "%s", im->st->warning);
		return rc;
	}
	if (rc == MCZ_OK && im->st->metrics == 0 && im->st->filtered > 0) {
		snprintf(err, errlen, "%s: no metric matches --metrics '%s' (%llu metrics logged)",
			 label, im->o->metrics,
			 (unsigned long long)(im->st->filtered + im->st->skipped_metrics));
		return MCZ_E_NOTFOUND;
	}
	rc = rc ? rc : crc;
	if (rc && !pcp_import_stop)
		snprintf(err, errlen, "%s: writing: %s%s%s", out_fd >= 0 ? "temporary file" : out_path,
			 mcz_strerror(rc), *mcz_errdetail() ? ": " : "", mcz_errdetail());
	return rc;
}

static int convert_with(char *const *archives, size_t n, const char *label, const char *out_path,
			int out_fd, const char *resume, const pcp_import_opts *o,
			pcp_import_stats *stats, char *err, size_t errlen);

int pcp_convert(char *const *archives, size_t n, const char *label, const char *out_path,
		int out_fd, const pcp_import_opts *o, pcp_import_stats *stats, char *err,
		size_t errlen)
{
	return convert_with(archives, n, label, out_path, out_fd, NULL, o, stats, err, errlen);
}

int pcp_convert_resume(char *const *archives, size_t n, const char *label, const char *mcz_path,
		       const pcp_import_opts *o, pcp_import_stats *stats, char *err, size_t errlen)
{
	return convert_with(archives, n, label, NULL, -1, mcz_path, o, stats, err, errlen);
}

static int convert_with(char *const *archives, size_t n, const char *label, const char *out_path,
			int out_fd, const char *resume, const pcp_import_opts *o,
			pcp_import_stats *stats, char *err, size_t errlen)
{
	static const pcp_import_opts defaults = PCP_IMPORT_OPTS_INIT;
	pcp_import_stats local;
	imp im = { 0 };
	im.o = o ? o : &defaults;
	im.st = stats ? stats : &local;
	im.resume = resume;
	memset(im.st, 0, sizeof *im.st);
	int rc = pcp_archive_open_all(archives, n, &im.a, &im.na, err, errlen);
	if (rc)
		return rc;
	im.metric_of = calloc(im.na, sizeof *im.metric_of);
	im.stream_of = calloc(im.na, sizeof *im.stream_of);
	im.indoms = calloc(im.na, sizeof *im.indoms);
	if (!im.metric_of || !im.stream_of || !im.indoms) {
		imp_free(&im);
		return MCZ_E_NOMEM;
	}
	rc = convert(&im, label, out_path, out_fd, err, errlen);
	if (im.o->progress)
		im.o->progress(im.o->progress_arg, "", 1);
	imp_free(&im);
	struct stat sb;
	const char *made = resume ? resume : out_path;
	if (rc == MCZ_OK && (out_fd >= 0 ? fstat(out_fd, &sb) : stat(made, &sb)) == 0)
		im.st->out_bytes = (uint64_t)sb.st_size;
	return rc; /* what was written is the caller's to remove (pcp_import: its
		      temporary, never the name a user gave) */
}
