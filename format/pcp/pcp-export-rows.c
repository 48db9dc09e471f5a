/* pcp-export-rows.c: the rows and marks of one archive's recordings (a file,
 * or the ranks of one host of a job file) written in wall-clock order:
 * each recording is read window by window (about 65536 rows, as mcz dump
 * does), the earliest row or mark of any of them goes next, and everything
 * of the same microsecond goes into one record.  Marks are values of the
 * string metric mcz.mark; gap marks become PCP <mark> records (pmiPutMark).
 *
 * Records go out as binary pmResults (pmiPutResult), each metric's value
 * set kept from one record to the next: pmiPutValueHandle takes a value as
 * text, looks through the record's metrics and the metric's instances for
 * it and allocates for each value, which made a wide recording's export 3x
 * slower.  The help texts and labels go out first with a pmiWrite of
 * nothing else (pmiPutResult writes descriptors and instances, not those).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "../mcz.h"
#include "pcp-export.h"
#include <pcp/import.h> /* after pmapi.h (pcp-int.h) */

#define EX_NONE INT64_MAX

void pcp_export_rows_free(ex_src *s)
{
	for (size_t j = 0; s->s && j < s->ns; j++)
		mcz_series_free(&s->s[j]);
	free(s->s);
	free(s->first);
	free(s->at);
	free(s->ids);
	free(s->vals);
	s->s = NULL;
	s->first = s->at = NULL;
	s->ids = NULL;
	s->vals = NULL;
}

/* Which streams each row of the window has, and their values, row by row
 * (the series are column by column): a wide recording's row then costs its
 * values, read in turn, not a look into every stream's column. */
static int ex_by_row(ex_src *s)
{
	size_t n = s->s[0].n, total = 0;
	if (n + 1 > s->cap_rows) {
		size_t *f = realloc(s->first, (n + 1) * sizeof *f);
		if (f)
			s->first = f;
		size_t *a = realloc(s->at, (n + 1) * sizeof *a);
		if (a)
			s->at = a;
		if (!f || !a)
			return MCZ_E_NOMEM;
		s->cap_rows = n + 1;
	}
	memset(s->first, 0, (n + 1) * sizeof *s->first);
	for (size_t j = 0; j < s->ns; j++)
		for (size_t i = 0; i < n && i < s->s[j].n; i++)
			s->first[i + 1] += s->s[j].present[i];
	for (size_t i = 0; i < n; i++)
		s->first[i + 1] += s->first[i];
	total = s->first[n];
	if (total > s->cap_ids) {
		uint32_t *ids = realloc(s->ids, total * sizeof *ids);
		if (ids)
			s->ids = ids;
		mcz_value *v = realloc(s->vals, total * sizeof *v);
		if (v)
			s->vals = v;
		if (!ids || !v)
			return MCZ_E_NOMEM;
		s->cap_ids = total;
	}
	memcpy(s->at, s->first, (n + 1) * sizeof *s->at);
	for (size_t j = 0; j < s->ns; j++)
		for (size_t i = 0; i < n && i < s->s[j].n; i++)
			if (s->s[j].present[i]) {
				s->vals[s->at[i]] = s->s[j].v[i];
				s->ids[s->at[i]++] = (uint32_t)j;
			}
	return MCZ_OK;
}

static int64_t ex_wall(const ex_src *s, int64_t t)
{
	return mcz_info(s->r)->wall_epoch_ns + t;
}

/* Read s's next window when the rows of this one are used up (the first
 * call sets the cursor up). */
static int ex_load(ex_src *s)
{
	const mcz_file_info *fi = mcz_info(s->r);
	if (!s->started) {
		s->started = 1;
		s->w = fi->t_first;
		s->end = fi->nrows && s->ns ? fi->t_last + 1 : fi->t_first;
		double per_row = fi->nrows > 1 ? (double)(fi->t_last - fi->t_first) /
							 (double)(fi->nrows - 1)
					       : 1.0;
		double wd = per_row * 65536.0 / (s->ns > 64 ? (double)s->ns / 64.0 : 1.0);
		s->step = wd < 1 ? 1 : wd > 9e18 ? INT64_MAX / 2 : (int64_t)wd;
		s->mark_us = INT64_MIN;
		if (!(s->s = calloc(s->ns ? s->ns : 1, sizeof *s->s)))
			return MCZ_E_NOMEM;
	}
	while (s->i >= s->s[0].n && s->w < s->end) {
		int64_t e = s->end - s->w > s->step ? s->w + s->step : s->end;
		for (size_t j = 0; j < s->ns; j++) {
			mcz_series_free(&s->s[j]);
			int rc = mcz_read(s->r, (uint32_t)j, s->w, e, &s->s[j]);
			if (rc)
				return rc;
		}
		s->i = 0;
		s->w = e;
		int rc = ex_by_row(s);
		if (rc)
			return rc;
	}
	return MCZ_OK;
}

static int64_t ex_us(int64_t wall_ns)
{
	return wall_ns >= 0 ? wall_ns / 1000 : -((-wall_ns + 999) / 1000);
}

static int64_t ex_next_row(const ex_src *s)
{
	if (s->i >= s->s[0].n)
		return EX_NONE;
	return ex_us(ex_wall(s, s->s[0].t[s->i]));
}

/* The next mark's time: its own, or 1 us after the one before (two marks of
 * one microsecond would be two values of one instance in one record). */
static int64_t ex_next_mark(const ex_src *s)
{
	if (s->mark_i >= mcz_mark_count(s->r))
		return EX_NONE;
	int64_t t = ex_us(ex_wall(s, mcz_mark_at(s->r, s->mark_i)->t));
	return s->mark_us != INT64_MIN && t <= s->mark_us ? s->mark_us + 1 : t;
}

static void ex_mark_text(const mcz_mark *mk, char *buf, size_t len)
{
	const char *t = mk->text ? mk->text : "";
	if (mk->kind == MCZ_MARK_BEGIN)
		snprintf(buf, len, "begin%s%s", *t ? " " : "", t);
	else if (mk->kind == MCZ_MARK_END)
		snprintf(buf, len, "end%s%s", *t ? " " : "", t);
	else if (!strncmp(t, "begin", 5) || !strncmp(t, "end", 3) || !strncmp(t, "point", 5))
		snprintf(buf, len, "point %s", t); /* read back as a point mark */
	else
		snprintf(buf, len, "%s", t);
}

void pcp_export_rows_free_record(ex_archive *x)
{
	for (size_t i = 0; i < x->nm; i++) {
		free(x->m[i].vs);
		free(x->m[i].blocks);
		x->m[i].vs = NULL;
		x->m[i].blocks = NULL;
	}
	for (int k = 0; x->mark_vs && k < x->mark_vs->numval; k++)
		free(x->mark_vs->vlist[k].value.pval);
	free(x->mark_vs);
	free(x->res);
	free(x->touched);
	x->mark_vs = NULL;
	x->res = NULL;
	x->touched = NULL;
}

static pmValueSet *ex_vset(pmID pmid, size_t cap)
{
	pmValueSet *vs = malloc(sizeof *vs + (cap ? cap : 1) * sizeof vs->vlist[0]);
	if (vs) {
		vs->pmid = pmid;
		vs->numval = 0;
		vs->valfmt = PM_VAL_DPTR;
	}
	return vs;
}

/* Room for a record: every metric's values, and mcz.mark's. */
static int ex_record_init(ex_archive *x)
{
	for (size_t i = 0; i < x->nm; i++) {
		ex_metric *m = &x->m[i];
		m->vs = ex_vset(m->desc.pmid, m->nstreams);
		m->blocks = calloc(m->nstreams ? m->nstreams : 1, EX_BLOCK);
		if (!m->vs || !m->blocks)
			return MCZ_E_NOMEM;
	}
	x->res = malloc(sizeof *x->res + (x->nm + 1) * sizeof x->res->vset[0]);
	x->touched = malloc((x->nm + 1) * sizeof *x->touched);
	if (x->nmarks && !(x->mark_vs = ex_vset(x->mark_pmid, x->nsrc)))
		return MCZ_E_NOMEM;
	return x->res && x->touched ? MCZ_OK : MCZ_E_NOMEM;
}

/* One value into the record, as PCP stores an 8-byte value (pmValueBlock):
 * as stored, or x mul in SI units (a double) where no PCP scale says it. */
static void ex_put(ex_archive *x, uint32_t mi, int inst, uint8_t type, mcz_value v)
{
	ex_metric *m = &x->m[mi];
	if (m->vs->numval == 0)
		x->touched[x->ntouched++] = mi;
	int k = m->vs->numval++;
	pmValueBlock *b = (pmValueBlock *)(void *)(m->blocks + (size_t)k * EX_BLOCK);
	b->vlen = PM_VAL_HDR_SIZE + 8;
	b->vtype = (unsigned)m->desc.type;
	if (m->desc.type == PM_TYPE_DOUBLE) {
		double d = type == MCZ_U64 ? (double)v.u : type == MCZ_I64 ? (double)v.i : v.f;
		if (m->mul != 1.0)
			d *= m->mul;
		memcpy(b->vbuf, &d, sizeof d);
	} else
		memcpy(b->vbuf, &v.u, sizeof v.u); /* U64 and 64: the same 8 bytes */
	m->vs->vlist[k].inst = inst;
	m->vs->vlist[k].value.pval = b;
}

static int ex_put_mark(ex_archive *x, int inst, const char *text)
{
	size_t n = strlen(text) + 1;
	pmValueBlock *b = malloc(PM_VAL_HDR_SIZE + n < sizeof *b ? sizeof *b : PM_VAL_HDR_SIZE + n);
	if (!b)
		return MCZ_E_NOMEM;
	b->vlen = (unsigned)(PM_VAL_HDR_SIZE + n);
	b->vtype = PM_TYPE_STRING;
	memcpy(b->vbuf, text, n);
	pmValue *v = &x->mark_vs->vlist[x->mark_vs->numval++];
	v->inst = inst;
	v->value.pval = b;
	return MCZ_OK;
}

/* The record at t (microseconds) out, and emptied for the next. */
static int ex_record_write(ex_archive *x, int64_t t)
{
	pmResult *r = x->res;
	r->timestamp.tv_sec = (time_t)(t / 1000000);
	r->timestamp.tv_usec = (suseconds_t)(t % 1000000);
	r->numpmid = 0;
	for (size_t i = 0; i < x->ntouched; i++)
		r->vset[r->numpmid++] = x->m[x->touched[i]].vs;
	if (x->mark_vs && x->mark_vs->numval)
		r->vset[r->numpmid++] = x->mark_vs;
	int rc = pmiPutResult(r);
	for (size_t i = 0; i < x->ntouched; i++)
		x->m[x->touched[i]].vs->numval = 0;
	x->ntouched = 0;
	for (int k = 0; x->mark_vs && k < x->mark_vs->numval; k++)
		free(x->mark_vs->vlist[k].value.pval);
	if (x->mark_vs)
		x->mark_vs->numval = 0;
	return rc < 0 ? pcp_export_fail(x, rc, "pmiPutResult") : MCZ_OK;
}

/* The row of s at its cursor: every present value. */
static void ex_put_row(ex_archive *x, ex_src *s, pcp_export_stats *st, int *put)
{
	for (size_t k = s->first[s->i]; k < s->first[s->i + 1]; k++) {
		uint32_t j = s->ids[k];
		ex_put(x, s->metric[j], s->inst[j], s->type[j], s->vals[k]);
		st->values++;
		(*put)++;
	}
	s->i++;
}

int pcp_export_rows(ex_archive *x, pcp_export_stats *st)
{
	int rc = ex_record_init(x), started = 0;
	uint64_t records0 = st->records;
	for (size_t k = 0; k < x->nsrc && !rc; k++)
		rc = ex_load(&x->src[k]);
	while (!rc) {
		int64_t t = EX_NONE;
		for (size_t k = 0; k < x->nsrc; k++) {
			int64_t a = ex_next_row(&x->src[k]), b = ex_next_mark(&x->src[k]);
			t = a < t ? a : t;
			t = b < t ? b : t;
		}
		if (t == EX_NONE)
			break;
		int put = 0, gap = 0;
		for (size_t k = 0; k < x->nsrc && !rc; k++) {
			ex_src *s = &x->src[k];
			if (ex_next_row(s) == t) {
				ex_put_row(x, s, st, &put);
				rc = ex_load(s);
			}
			if (!rc && ex_next_mark(s) == t) {
				const mcz_mark *mk = mcz_mark_at(s->r, s->mark_i++);
				s->mark_us = t;
				st->marks++;
				if (mk->kind == MCZ_MARK_GAP) {
					gap = 1;
					continue;
				}
				char text[1024];
				ex_mark_text(mk, text, sizeof text);
				rc = ex_put_mark(x, s->mark_inst, text);
				put++;
			}
		}
		if (!rc && put && !started) { /* help texts and labels, at the first time */
			int e = pmiWrite((int)(t / 1000000), (int)(t % 1000000));
			if (e < 0 && e != PMI_ERR_NODATA)
				rc = pcp_export_fail(x, e, "pmiWrite");
			started = 1;
		}
		if (!rc && put) {
			rc = ex_record_write(x, t);
			st->records++;
		}
		if (!rc && gap && st->records > records0)
			pmiPutMark(); /* PCP's gap: replay does not interpolate across it */
	}
	/* what the reader could not read: left out, named once (as mcz dump) */
	for (size_t k = 0; k < x->nsrc; k++) {
		mcz_reader *r = x->src[k].r;
		const mcz_file_info *fi = mcz_info(r);
		size_t nd = mcz_damaged_count(r), u = strlen(st->damaged);
		const char *who = *x->src[k].prefix ? x->src[k].prefix : "";
		if (nd) {
			int64_t d0, d1, lo = INT64_MAX, hi = INT64_MIN;
			for (size_t i = 0; mcz_damaged_span(r, i, &d0, &d1) == 0; i++) {
				lo = d0 < lo ? d0 : lo;
				hi = d1 > hi ? d1 : hi;
			}
			snprintf(st->damaged + u, sizeof st->damaged - u,
				 "%s%s%s%zu damaged chunk%s: rows from %.3f s to %.3f s not exported",
				 u ? "; " : "", who, *who ? ": " : "", nd, nd == 1 ? "" : "s",
				 (double)(lo - fi->t_first) / 1e9, (double)(hi - fi->t_first) / 1e9);
		} else if (fi->recovered && fi->valid_bytes < fi->file_bytes)
			snprintf(st->damaged + u, sizeof st->damaged - u,
				 "%s%s%sdamaged after byte %llu of %llu: what followed is lost",
				 u ? "; " : "", who, *who ? ": " : "",
				 (unsigned long long)fi->valid_bytes, (unsigned long long)fi->file_bytes);
	}
	if (!rc && st->records == records0) {
		snprintf(x->err, x->errlen, "%s: no samples and no marks to export", x->path);
		rc = MCZ_E_NOTFOUND;
	}
	return rc;
}
