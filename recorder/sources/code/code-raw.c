/* code-raw.c: the code profile unsymbolized, as CODEPART blocks carry it
 * (SPEC.md 5.11): the recorder's fresh cells made into a part while it
 * records, and a cut recording's parts named from this host's binaries
 * when a reader shows them (rec_code_symbolize, set by mcview and mcz with
 * mcz_code_set_symbolizer): the same libdwfl symbolization as at the end
 * of a recording (code-sym.c), each object matched by its build-id, so a
 * binary rebuilt since is not read for the one that ran.
 *
 *     mcz_code_raw part;
 *     code_part_make(&prof, cells, n, t_origin, interval_ns, &part);
 *     mcz_writer_code_part(w, &part);  code_part_free(&part);
 */
#include "code-prof.h"
#include "../../codesym.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int code_part_make(const code_prof *p, const code_cell *cells, size_t n, int64_t t_origin,
		   int64_t interval_ns, mcz_code_raw *part)
{
	memset(part, 0, sizeof *part);
	mcz_code_raw_object *objs = calloc(p->nobjs ? p->nobjs : 1, sizeof *objs);
	mcz_code_cell *out = malloc((n ? n : 1) * sizeof *out);
	mcz_code_rawframe *fr = malloc((p->nframes ? p->nframes : 1) * sizeof *fr);
	if (!objs || !out || !fr) {
		free(objs), free(out), free(fr);
		return -1;
	}
	/* the recorder's frames are the part's (UINT32_MAX is MCZ_CODE_ROOT) */
	for (size_t i = 0; i < p->nframes; i++)
		fr[i] = (mcz_code_rawframe){p->frames[i].parent, p->frames[i].obj, p->frames[i].off};
	for (size_t i = 0; i < p->nobjs; i++)
		objs[i] = (mcz_code_raw_object){p->objs[i].path, p->objs[i].build_id,
						(uint8_t)(p->objs[i].file != 0)};
	for (size_t i = 0; i < n; i++) {
		const code_cell *c = &cells[i];
		uint64_t cnt = c->count;
		out[i] = (mcz_code_cell){t_origin + c->iv * interval_ns, c->thr, c->obj, c->off,
					 c->cobj, c->coff, cnt > UINT32_MAX ? UINT32_MAX : (uint32_t)cnt,
					 c->stk};
	}
	part->nobjects = p->nobjs;
	part->objects = objs;
	part->ncells = n;
	part->cells = out;
	part->interval_ns = interval_ns;
	part->nthreads = p->nthreads;
	part->threads = p->threads; /* the profile's, written before they can change */
	part->nframes = p->nframes;
	part->frames = fr;
	return 0;
}

void code_part_free(mcz_code_raw *part)
{
	free((void *)part->objects);
	free((void *)part->cells);
	free((void *)part->frames);
	memset(part, 0, sizeof *part);
}

/* code_sym_run keeps its debuginfod state in statics: one at a time
 * (mcview reads a file on more than one thread). */
static pthread_mutex_t raw_lock = PTHREAD_MUTEX_INITIALIZER;

static int raw_symbolize(const mcz_code_raw *raw, void **payload, size_t *len, void **tpayload,
			 size_t *tlen, void **spayload, size_t *slen);

int rec_code_symbolize(const mcz_code_raw *raw, void **payload, size_t *len, void **tpayload,
		       size_t *tlen, void **spayload, size_t *slen)
{
	*payload = *tpayload = *spayload = NULL;
	*len = *tlen = *slen = 0;
	if (raw->interval_ns <= 0)
		return -1;
	pthread_mutex_lock(&raw_lock);
	int rc = raw_symbolize(raw, payload, len, tpayload, tlen, spayload, slen);
	pthread_mutex_unlock(&raw_lock);
	return rc;
}

static int raw_symbolize(const mcz_code_raw *raw, void **payload, size_t *len, void **tpayload,
			 size_t *tlen, void **spayload, size_t *slen)
{
	code_prof p = {0};
	p.unknown_obj = UINT32_MAX;
	p.objs = calloc(raw->nobjects ? raw->nobjects : 1, sizeof *p.objs);
	p.cells = malloc((raw->ncells ? raw->ncells : 1) * sizeof *p.cells);
	p.threads = malloc((raw->nthreads ? raw->nthreads : 1) * sizeof *p.threads);
	int rc = !p.objs || !p.cells || !p.threads ? -1 : 0;
	if (!rc && raw->nthreads)
		memcpy(p.threads, raw->threads, raw->nthreads * sizeof *p.threads);
	p.nthreads = rc ? 0 : raw->nthreads;
	for (size_t i = 0; !rc && i < raw->nobjects; i++) {
		code_obj *o = &p.objs[p.nobjs];
		if (!(o->path = strdup(raw->objects[i].path))) {
			rc = -1;
			break;
		}
		snprintf(o->build_id, sizeof o->build_id, "%s", raw->objects[i].build_id);
		o->file = raw->objects[i].file;
		o->fd = -1; /* opened by path; code_sym_run checks the build-id */
		p.nobjs++;
	}
	/* intervals counted from the first: the cells' times are t_origin +
	 * iv * interval_ns for the recorder's iv */
	int64_t t0 = raw->ncells ? raw->cells[0].t : 0;
	for (size_t i = 0; !rc && i < raw->ncells; i++) {
		const mcz_code_cell *c = &raw->cells[i];
		p.cells[i] = (code_cell){(c->t - t0) / raw->interval_ns, c->thr, c->obj, c->off,
					 c->cobj, c->coff, c->count, c->stk};
		p.callchain |= c->cobj != UINT32_MAX || c->stk != MCZ_CODE_ROOT;
	}
	if (!rc && raw->nframes) {
		p.frames = malloc(raw->nframes * sizeof *p.frames);
		rc = p.frames ? 0 : -1;
		for (size_t i = 0; !rc && i < raw->nframes; i++)
			p.frames[i] = (code_frame){raw->frames[i].parent, raw->frames[i].obj,
						   raw->frames[i].off};
		p.nframes = rc ? 0 : raw->nframes;
		p.callchain = 1;
	}
	p.ncells = rc ? 0 : raw->ncells;
	p.merged = 0;
	mcz_code c;
	code_sym_out out;
	memset(&out, 0, sizeof out);
	if (!rc && code_sym_run(&p, t0, raw->interval_ns, &c, &out) == 0) {
		char note[700];
		snprintf(note, sizeof note, "the recording was cut before its end: its code as "
			 "written while it ran (%zu part%s%s), symbolized when read from this "
			 "host's binaries%s%s", raw->nparts, raw->nparts == 1 ? "" : "s",
			 raw->bad_parts ? ", damaged parts left out" : "", out.note[0] ? "; " : "",
			 out.note);
		c.event = raw->event;
		c.period = raw->period;
		c.note = note;
		rc = mcz_code_encode(&c, payload, len) == MCZ_OK ? 0 : -1;
		if (!rc && c.nthreads && mcz_code_encode_threads(&c, tpayload, tlen) != MCZ_OK)
			rc = -1;
		if (!rc && c.nframes && mcz_code_encode_stacks(&c, spayload, slen) != MCZ_OK)
			rc = -1;
	} else {
		rc = -1;
	}
	code_sym_free(&out);
	code_prof_free(&p);
	return rc;
}
