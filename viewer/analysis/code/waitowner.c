/* waitowner.c: the samples waiting in MPI or OpenMP of a span charged to
 * the application frames that called the runtime (waitowner.h), from the
 * frames' owners of stacktab.c. */
#include <stdlib.h>
#include <string.h>

#include "../fmt.h"
#include "stacktab.h"
#include "waitowner.h"

static const vw_stacktab *wo_st; /* for the sort's ties (qsort has no context) */

static int wo_cmp(const void *x, const void *y)
{
	const vw_wait_owner *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->name == b->name)
		return 0;
	if (a->name == VW_STK_NONE || b->name == VW_STK_NONE)
		return a->name == VW_STK_NONE ? 1 : -1;
	return strcmp(vw_stacktab_name(wo_st, a->name), vw_stacktab_name(wo_st, b->name));
}

int vw_waitowner_of(vw_an *an, size_t file, size_t thread, int64_t t0, int64_t t1,
		    vw_waiting *w)
{
	return vw_waitowner_set(an, NULL, file, thread, t0, t1, w);
}

int vw_waitowner_set(vw_an *an, const uint8_t *use, size_t file, size_t thread, int64_t t0,
		     int64_t t1, vw_waiting *w)
{
	memset(w, 0, sizeof *w);
	const vw_stacktab *st = vw_stacktab_get(an);
	if (!st)
		return -1;
	size_t nn = st->nnames + 1; /* per name id, and the last: no caller */
	uint64_t *acc[VW_CC_N] = {NULL};
	for (int k = 1; k < VW_CC_N; k++)
		if (!(acc[k] = calloc(nn, sizeof *acc[k])))
			goto fail;
	for (size_t f = 0; f < st->nfiles; f++) {
		const vw_stk_file *sf = &st->f[f];
		if (!sf->c || (file != SIZE_MAX && f != file) || (use && !use[f]))
			continue;
		size_t a, b;
		vw_stacktab_span(st, f, t0, t1, &a, &b);
		for (size_t i = a; i < b; i++) {
			const mcz_code_stackhit *h = &sf->c->stackhits[i];
			if (thread != SIZE_MAX && h->thread != thread)
				continue;
			w->total += h->count;
			int k = sf->cls[h->frame];
			if (k == VW_CC_WORK)
				continue;
			uint32_t o = sf->owner[h->frame];
			uint32_t name = o == VW_STK_NONE ? VW_STK_NONE : vw_stacktab_frame_name(st, f, o);
			acc[k][name == VW_STK_NONE ? nn - 1 : name] += h->count;
			w->cls[k].samples += h->count;
		}
	}
	for (int k = 1; k < VW_CC_N; k++) {
		vw_wait_class *c = &w->cls[k];
		c->share = w->total ? (double)c->samples / (double)w->total : 0;
		size_t no = 0;
		for (size_t i = 0; i < nn; i++)
			no += acc[k][i] != 0;
		if (!no)
			continue;
		if (!(c->owners = malloc(no * sizeof *c->owners)))
			goto fail;
		for (size_t i = 0; i < nn; i++)
			if (acc[k][i])
				c->owners[c->nowners++] = (vw_wait_owner){
					i == nn - 1 ? VW_STK_NONE : (uint32_t)i, acc[k][i],
					(double)acc[k][i] / (double)w->total};
		wo_st = st;
		qsort(c->owners, c->nowners, sizeof *c->owners, wo_cmp);
	}
	for (int k = 1; k < VW_CC_N; k++)
		free(acc[k]);
	return 0;
fail:
	for (int k = 1; k < VW_CC_N; k++)
		free(acc[k]);
	vw_waitowner_free(w);
	return -1;
}

void vw_waitowner_free(vw_waiting *w)
{
	for (int k = 0; k < VW_CC_N; k++)
		free(w->cls[k].owners);
	memset(w, 0, sizeof *w);
}

const char *vw_waitowner_name(vw_an *an, const vw_wait_owner *o)
{
	const vw_stacktab *st = vw_stacktab_get(an);
	return !st || o->name == VW_STK_NONE ? "[no application frame]" : vw_stacktab_name(st, o->name);
}

/* A share as the reports write it: "33 %", "2.5 %". */
static void wo_pct(char *buf, size_t len, double share)
{
	double p = 100 * share;
	snprintf(buf, len, p < 9.95 ? "%.1f %%" : "%.0f %%", p);
}

int vw_waitowner_line(vw_an *an, const vw_waiting *w, int cls, size_t top, int ascii, char *buf,
		      size_t len)
{
	buf[0] = 0;
	if (cls <= VW_CC_WORK || cls >= VW_CC_N || !w->cls[cls].samples || !len)
		return 0;
	const vw_wait_class *c = &w->cls[cls];
	char p[16];
	wo_pct(p, sizeof p, c->share);
	size_t at = (size_t)snprintf(buf, len, "%s %s:", vw_codeclass_name(cls), p);
	for (size_t i = 0; i < c->nowners && i < top && at < len; i++) {
		wo_pct(p, sizeof p, c->owners[i].share);
		at += (size_t)snprintf(buf + at, len - at, "%s %s %s", i ? "," : "",
				       vw_waitowner_name(an, &c->owners[i]), p);
	}
	if (c->nowners > top && at < len)
		snprintf(buf + at, len - at, ascii ? ", ..." : ", \u2026");
	return 1;
}

void vw_waitowner_json(vw_an *an, const vw_waiting *w, size_t max, FILE *f)
{
	fputc('{', f);
	int first = 1;
	for (int k = 1; k < VW_CC_N; k++) {
		const vw_wait_class *c = &w->cls[k];
		if (!c->samples)
			continue;
		fprintf(f, "%s\"%s\": {\"samples\": %llu, \"share\": %.6g, \"owners\": [",
			first ? "" : ", ", vw_codeclass_name(k), (unsigned long long)c->samples,
			c->share);
		first = 0;
		for (size_t i = 0; i < c->nowners && i < max; i++) {
			fputs(i ? ", {\"name\": " : "{\"name\": ", f);
			vw_fmt_json_str(f, vw_waitowner_name(an, &c->owners[i]));
			fprintf(f, ", \"samples\": %llu, \"share\": %.6g}",
				(unsigned long long)c->owners[i].samples, c->owners[i].share);
		}
		fputs("]}", f);
	}
	fputc('}', f);
}
