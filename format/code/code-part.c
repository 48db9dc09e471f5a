/* code-part.c: CODEPART blocks (SPEC.md 5.11, since 1.6) — the code
 * samples a recorder writes while it runs, unsymbolized, so that a
 * recorder killed before its CODE block (SIGKILL, a job's time limit, a
 * kill during symbolization) keeps its code profile.  The reader merges
 * the parts, and mcz_code_get gives them as a profile when the file has
 * no CODE block: named by the symbolizer a program set
 * (mcz_code_set_symbolizer: the binaries of the host that reads), or by
 * object and 64-byte region, as a CODE block without symbols names them.
 *
 *     mcz_writer_code_part(w, &part);        // each sync, the new cells
 *     const mcz_code_raw *raw;
 *     mcz_code_raw_get(r, &raw);             // every part, merged
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../container/reader.h"

/* Bytes of code a location stands for when only an address is known
 * (SPEC.md 5.6), as the recorder's symbolizer bins them. */
#define PART_REGION 64

static mcz_code_symbolizer part_symbolizer;

void mcz_code_set_symbolizer(mcz_code_symbolizer fn)
{
	part_symbolizer = fn;
}

static int part_encode_body(const mcz_code_raw *c, mcz_buf *b)
{
	if (c->obj_base > c->nobjects)
		return MCZ_E_ARG;
	mcz_buf_str(b, c->event ? c->event : "");
	mcz_buf_uv(b, c->period);
	mcz_buf_uv(b, (uint64_t)c->interval_ns);
	mcz_buf_uv(b, c->obj_base);
	mcz_buf_uv(b, c->nobjects - c->obj_base);
	for (size_t i = c->obj_base; i < c->nobjects; i++) {
		mcz_buf_str(b, c->objects[i].path);
		mcz_buf_str(b, c->objects[i].build_id);
		mcz_buf_u8(b, c->objects[i].file ? 1 : 0);
	}
	if (c->thr_base > c->nthreads || (c->nthreads && !c->threads))
		return MCZ_E_ARG;
	mcz_buf_uv(b, c->thr_base);
	mcz_buf_uv(b, c->nthreads - c->thr_base);
	for (size_t i = c->thr_base; i < c->nthreads; i++) {
		mcz_buf_uv(b, c->threads[i].pid);
		mcz_buf_uv(b, c->threads[i].tid);
	}
	mcz_buf_uv(b, c->ncells);
	const mcz_code_cell *prev = NULL;
	for (size_t i = 0; i < c->ncells; i++) {
		const mcz_code_cell *x = &c->cells[i];
		if (x->obj >= c->nobjects || x->count == 0 || x->thr >= c->nthreads ||
		    (x->cobj != UINT32_MAX && x->cobj >= c->nobjects))
			return MCZ_E_ARG;
		int64_t pt = prev ? prev->t : 0;
		mcz_buf_sv(b, (int64_t)((uint64_t)x->t - (uint64_t)pt));
		mcz_buf_uv(b, x->thr);
		mcz_buf_uv(b, x->obj);
		/* "the difference to the previous cell's offset when both are of
		 * one interval, thread and object" */
		if (prev && prev->t == x->t && prev->thr == x->thr && prev->obj == x->obj)
			mcz_buf_sv(b, (int64_t)(x->off - prev->off));
		else
			mcz_buf_uv(b, x->off);
		mcz_buf_uv(b, x->cobj == UINT32_MAX ? 0 : (uint64_t)x->cobj + 1);
		if (x->cobj != UINT32_MAX)
			mcz_buf_uv(b, x->coff);
		mcz_buf_uv(b, x->count - 1u);
		prev = x;
	}
	return b->err;
}

/* The CODEPARTSTACKS body of a part (SPEC.md 5.14): its new frames and
 * each cell's stack, in the cells' order. */
static int part_encode_stacks(const mcz_code_raw *c, mcz_buf *b)
{
	if (c->frame_base > c->nframes || (c->nframes && !c->frames))
		return MCZ_E_ARG;
	mcz_buf_uv(b, c->frame_base);
	mcz_buf_uv(b, c->nframes - c->frame_base);
	for (size_t i = c->frame_base; i < c->nframes; i++) {
		const mcz_code_rawframe *f = &c->frames[i];
		if (f->obj >= c->nobjects || (f->parent != MCZ_CODE_ROOT && f->parent >= i))
			return MCZ_E_ARG;
		mcz_buf_uv(b, f->parent == MCZ_CODE_ROOT ? 0 : i - f->parent);
		mcz_buf_uv(b, f->obj);
		mcz_buf_uv(b, f->off);
	}
	mcz_buf_uv(b, c->ncells);
	for (size_t i = 0; i < c->ncells; i++) {
		uint32_t k = c->cells[i].stk;
		if (k != MCZ_CODE_ROOT && k >= c->nframes)
			return MCZ_E_ARG;
		mcz_buf_uv(b, k == MCZ_CODE_ROOT ? 0 : (uint64_t)k + 1);
	}
	return b->err;
}

int mcz_code_part_stacks_payload(mcz_codec_ctx *cx, const mcz_code_raw *part, mcz_buf *out)
{
	int any = part && part->nframes > part->frame_base;
	for (size_t i = 0; part && !any && i < part->ncells; i++)
		any = part->cells[i].stk != MCZ_CODE_ROOT;
	if (!any)
		return MCZ_E_NOTFOUND;
	mcz_buf body = {0};
	int rc = part_encode_stacks(part, &body);
	if (!rc)
		rc = mcz_block_pack(cx, &body, out);
	mcz_buf_free(&body);
	return rc;
}

int mcz_code_part_payload(mcz_codec_ctx *cx, const mcz_code_raw *part, mcz_buf *out)
{
	if (!part || (part->nobjects && !part->objects) || (part->ncells && !part->cells) ||
	    part->interval_ns < 0)
		return MCZ_E_ARG;
	mcz_buf body = {0};
	int rc = part_encode_body(part, &body);
	if (!rc)
		rc = mcz_block_pack(cx, &body, out);
	mcz_buf_free(&body);
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

/* The merged parts and what they own (pub first: freed by its address). */
typedef struct raw_owned {
	mcz_code_raw pub;
	mcz_code_raw_object *objs;
	size_t cap_objs;
	mcz_code_cell *cells;
	size_t cap_cells;
	mcz_code_thread *threads;
	size_t cap_threads;
	mcz_code_rawframe *frames;
	size_t cap_frames;
	int frames_cut; /* a part's stacks were lost: later ones are not read */
	char *event;
} raw_owned;

void mcz_code_raw_free(mcz_code_raw *raw)
{
	raw_owned *o = (raw_owned *)raw;
	if (!o)
		return;
	for (size_t i = 0; i < o->pub.nobjects; i++)
		free((char *)o->objs[i].path), free((char *)o->objs[i].build_id);
	free(o->objs), free(o->cells), free(o->threads), free(o->frames), free(o->event);
	free(o);
}

static int part_grow(void **a, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*a, nc * elem);
	if (!n)
		return MCZ_E_NOMEM;
	*a = n;
	*cap = nc;
	return 0;
}

/* One part's body added to o.  Its object table must agree with what o
 * holds where both have an entry (the recorder only appends to it); a part
 * that does not is corrupt and adds nothing. */
static int part_merge_body(raw_owned *o, const uint8_t *p, size_t len)
{
	mcz_cur c = mcz_cur_make(p, len);
	char *event = mcz_cur_strdup(&c);
	uint64_t period = mcz_cur_uv(&c), ivl = mcz_cur_uv(&c);
	if (c.err || ivl > (uint64_t)INT64_MAX) {
		free(event);
		return MCZ_E_CORRUPT;
	}
	if (!o->event) {
		o->event = event;
		o->pub.event = event;
		o->pub.period = period;
		o->pub.interval_ns = (int64_t)ivl;
	} else {
		int same = !strcmp(o->event, event) && o->pub.period == period &&
			   o->pub.interval_ns == (int64_t)ivl;
		free(event);
		if (!same)
			return MCZ_E_CORRUPT;
	}
	/* an object is at least 3 bytes (two empty strings and the flag) */
	uint64_t base = mcz_cur_uv(&c), nnew = mcz_cur_count(&c, 3);
	if (c.err || base > UINT32_MAX - 1u || nnew > UINT32_MAX - 1u - base)
		return MCZ_E_CORRUPT;
	uint64_t nobj = base + nnew;
	/* objects of a part left out (damaged) stand as "[lost]", so that
	 * later parts' indexes keep their meaning */
	while (o->pub.nobjects < base) {
		char *lp = strdup("[lost]"), *lb = strdup("");
		if (!lp || !lb ||
		    part_grow((void **)&o->objs, &o->cap_objs, o->pub.nobjects + 1, sizeof *o->objs)) {
			free(lp), free(lb);
			return MCZ_E_NOMEM;
		}
		o->objs[o->pub.nobjects++] = (mcz_code_raw_object){lp, lb, 0};
	}
	for (uint64_t i = base; i < nobj; i++) {
		char *path = mcz_cur_strdup(&c);
		char *bid = path ? mcz_cur_strdup(&c) : NULL;
		uint8_t file = mcz_cur_u8(&c);
		if (c.err || file > 1) {
			free(path), free(bid);
			return MCZ_E_CORRUPT;
		}
		if (i < o->pub.nobjects) { /* given again: the same, or a lost one's place */
			const mcz_code_raw_object *e = &o->objs[i];
			int same = !strcmp(e->path, path) && !strcmp(e->build_id, bid) && e->file == file;
			int lost = !strcmp(e->path, "[lost]") && !e->file && !e->build_id[0];
			free(path), free(bid);
			if (!same && !lost)
				return MCZ_E_CORRUPT;
			continue;
		}
		if (part_grow((void **)&o->objs, &o->cap_objs, o->pub.nobjects + 1, sizeof *o->objs)) {
			free(path), free(bid);
			return MCZ_E_NOMEM;
		}
		o->objs[o->pub.nobjects++] = (mcz_code_raw_object){path, bid, file};
	}
	o->pub.objects = o->objs;
	/* threads as objects: a thread takes at least 2 bytes; those of a
	 * part left out stand as pid 0, tid 0 */
	uint64_t tbase = mcz_cur_uv(&c), tnew = mcz_cur_count(&c, 2);
	if (c.err || tbase > UINT32_MAX - 1u || tnew > UINT32_MAX - 1u - tbase)
		return MCZ_E_CORRUPT;
	uint64_t nthr = tbase + tnew;
	if (part_grow((void **)&o->threads, &o->cap_threads, nthr > o->pub.nthreads ? nthr : 1,
		      sizeof *o->threads))
		return MCZ_E_NOMEM;
	while (o->pub.nthreads < tbase)
		o->threads[o->pub.nthreads++] = (mcz_code_thread){0, 0};
	for (uint64_t i = tbase; i < nthr; i++) {
		uint64_t pid = mcz_cur_uv(&c), tid = mcz_cur_uv(&c);
		if (c.err || pid > UINT32_MAX || tid > UINT32_MAX)
			return MCZ_E_CORRUPT;
		mcz_code_thread th = {(uint32_t)pid, (uint32_t)tid};
		if (i < o->pub.nthreads) {
			const mcz_code_thread *e = &o->threads[i];
			if ((e->pid || e->tid) && (e->pid != th.pid || e->tid != th.tid))
				return MCZ_E_CORRUPT;
			continue;
		}
		o->threads[o->pub.nthreads++] = th;
	}
	o->pub.threads = o->threads;
	/* a cell is at least 6 bytes (dt, thr, obj, off, no caller, count) */
	uint64_t ncell = mcz_cur_count(&c, 6);
	if (c.err || part_grow((void **)&o->cells, &o->cap_cells, o->pub.ncells + ncell,
			       sizeof *o->cells))
		return c.err ? MCZ_E_CORRUPT : MCZ_E_NOMEM;
	size_t n = o->pub.ncells;
	int64_t t = 0;
	for (uint64_t i = 0; i < ncell; i++) {
		int64_t dt = mcz_cur_sv(&c);
		uint64_t thr = mcz_cur_uv(&c), obj = mcz_cur_uv(&c);
		if ((dt > 0 && t > INT64_MAX - dt) || (dt < 0 && t < INT64_MIN - dt) || thr >= nthr)
			return MCZ_E_CORRUPT;
		t += dt;
		const mcz_code_cell *q = i ? &o->cells[n - 1] : NULL;
		uint64_t off = q && q->t == t && q->thr == thr && q->obj == obj
				       ? q->off + (uint64_t)mcz_cur_sv(&c)
				       : mcz_cur_uv(&c);
		uint64_t cobj1 = mcz_cur_uv(&c);
		uint64_t coff = cobj1 ? mcz_cur_uv(&c) : 0, count1 = mcz_cur_uv(&c);
		if (c.err || obj >= nobj || cobj1 > nobj || count1 >= UINT32_MAX)
			return MCZ_E_CORRUPT;
		o->cells[n++] = (mcz_code_cell){t, (uint32_t)thr, (uint32_t)obj, off,
						cobj1 ? (uint32_t)(cobj1 - 1) : UINT32_MAX, coff,
						(uint32_t)count1 + 1, MCZ_CODE_ROOT};
	}
	if (mcz_cur_left(&c))
		return MCZ_E_CORRUPT;
	o->pub.ncells = n;
	return 0;
}

/* The stacks of the part whose cells are o->cells[c0 ..): its new
 * frames appended (they continue the table: "frame_base is the frames of
 * the parts before"), each cell's stack set. */
static int part_merge_stacks(raw_owned *o, size_t c0, const uint8_t *p, size_t len)
{
	mcz_cur c = mcz_cur_make(p, len);
	/* a frame is at least 3 bytes */
	uint64_t base = mcz_cur_uv(&c), nnew = mcz_cur_count(&c, 3);
	if (c.err || base != o->pub.nframes || nnew >= UINT32_MAX - base)
		return MCZ_E_CORRUPT;
	if (part_grow((void **)&o->frames, &o->cap_frames, base + nnew + 1, sizeof *o->frames))
		return MCZ_E_NOMEM;
	for (uint64_t i = base; i < base + nnew; i++) {
		uint64_t back = mcz_cur_uv(&c), obj = mcz_cur_uv(&c), off = mcz_cur_uv(&c);
		if (c.err || back > i || obj >= o->pub.nobjects)
			return MCZ_E_CORRUPT;
		o->frames[i] = (mcz_code_rawframe){back ? (uint32_t)(i - back) : MCZ_CODE_ROOT,
						   (uint32_t)obj, off};
	}
	uint64_t nc = mcz_cur_uv(&c);
	if (c.err || nc != o->pub.ncells - c0)
		return MCZ_E_CORRUPT;
	uint64_t nf = base + nnew;
	for (uint64_t i = 0; i < nc; i++) {
		uint64_t k = mcz_cur_uv(&c);
		if (c.err || k > nf)
			return MCZ_E_CORRUPT;
		o->cells[c0 + i].stk = k ? (uint32_t)(k - 1) : MCZ_CODE_ROOT;
	}
	if (mcz_cur_left(&c))
		return MCZ_E_CORRUPT;
	o->pub.nframes = nf;
	o->pub.frames = o->frames;
	return 0;
}

static int part_cell_cmp(const void *a, const void *b)
{
	const mcz_code_cell *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->cobj != y->cobj)
		return x->cobj < y->cobj ? -1 : 1;
	if (x->coff != y->coff)
		return x->coff < y->coff ? -1 : 1;
	return x->stk < y->stk ? -1 : x->stk > y->stk;
}

/* Sort the cells and add up those of one place in one interval. */
static void part_compact(raw_owned *o)
{
	if (!o->pub.ncells)
		return;
	qsort(o->cells, o->pub.ncells, sizeof *o->cells, part_cell_cmp);
	size_t k = 0;
	for (size_t i = 0; i < o->pub.ncells; i++) {
		if (k && !part_cell_cmp(&o->cells[k - 1], &o->cells[i])) {
			uint64_t s = (uint64_t)o->cells[k - 1].count + o->cells[i].count;
			o->cells[k - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
		} else {
			o->cells[k++] = o->cells[i];
		}
	}
	o->pub.ncells = k;
	o->pub.cells = o->cells;
}

int mcz_code_part_apply(mcz_reader *r, const uint8_t *p, size_t len)
{
	if (part_grow((void **)&r->part_p, &r->cap_parts_code, r->nparts_code + 1, sizeof *r->part_p))
		return MCZ_E_NOMEM;
	size_t cap = r->cap_parts_code;
	size_t *nl = realloc(r->part_len, cap * sizeof *nl);
	if (!nl)
		return MCZ_E_NOMEM;
	r->part_len = nl;
	const uint8_t **ns = realloc(r->part_stk_p, cap * sizeof *ns);
	if (!ns)
		return MCZ_E_NOMEM;
	r->part_stk_p = ns;
	size_t *nsl = realloc(r->part_stk_len, cap * sizeof *nsl);
	if (!nsl)
		return MCZ_E_NOMEM;
	r->part_stk_len = nsl;
	r->part_stk_p[r->nparts_code] = NULL;
	r->part_stk_len[r->nparts_code] = 0;
	r->part_p[r->nparts_code] = p;
	r->part_len[r->nparts_code++] = len;
	/* a profile made from fewer parts is made again when next asked for,
	 * not freed here: what a caller holds of it stays valid until then */
	if (!r->code_p && (r->code || r->code_bad))
		r->code_stale = 1;
	return 0;
}

int mcz_code_part_stacks_apply(mcz_reader *r, const uint8_t *p, size_t len)
{
	/* "a CODEPARTSTACKS block gives the stacks of the CODEPART block
	 * right before it" */
	if (!r->nparts_code || r->part_stk_p[r->nparts_code - 1])
		return 0;
	r->part_stk_p[r->nparts_code - 1] = p;
	r->part_stk_len[r->nparts_code - 1] = len;
	if (!r->code_p && (r->code || r->code_bad))
		r->code_stale = 1;
	r->raw_parts = 0; /* the merged parts, again */
	return 0;
}

int mcz_code_raw_get(mcz_reader *r, const mcz_code_raw **raw)
{
	*raw = NULL;
	if (!r)
		return MCZ_E_ARG;
	if (!r->nparts_code)
		return MCZ_E_NOTFOUND;
	if (r->raw && r->raw_parts == r->nparts_code) {
		*raw = r->raw;
		return MCZ_OK;
	}
	mcz_code_raw_free(r->raw);
	r->raw = NULL;
	raw_owned *o = calloc(1, sizeof *o);
	if (!o)
		return MCZ_E_NOMEM;
	mcz_buf tmp = {0};
	size_t bad = 0;
	for (size_t i = 0; i < r->nparts_code; i++) {
		const uint8_t *body;
		size_t blen;
		int rc = mcz_block_unpack(&r->cx, r->part_p[i], r->part_len[i], &tmp, &body, &blen);
		size_t ncells = o->pub.ncells, nobj = o->pub.nobjects, nthr = o->pub.nthreads;
		if (!rc)
			rc = part_merge_body(o, body, blen);
		if (rc == MCZ_E_NOMEM) {
			mcz_buf_free(&tmp);
			mcz_code_raw_free(&o->pub);
			return rc;
		}
		if (rc) { /* a bad part adds nothing: its cells and objects undone */
			o->pub.ncells = ncells;
			for (size_t k = nobj; k < o->pub.nobjects; k++)
				free((char *)o->objs[k].path), free((char *)o->objs[k].build_id);
			o->pub.nobjects = nobj;
			o->pub.nthreads = nthr;
			bad++;
			o->frames_cut |= r->part_stk_p[i] != NULL;
			continue;
		}
		/* its stacks: a part whose stacks are bad, or missing while
		 * later parts have some, loses them and those after it (their
		 * frames continue its table) */
		if (r->part_stk_p[i] && !o->frames_cut) {
			size_t nf = o->pub.nframes;
			rc = mcz_block_unpack(&r->cx, r->part_stk_p[i], r->part_stk_len[i], &tmp, &body,
					      &blen);
			if (!rc)
				rc = part_merge_stacks(o, ncells, body, blen);
			if (rc == MCZ_E_NOMEM) {
				mcz_buf_free(&tmp);
				mcz_code_raw_free(&o->pub);
				return rc;
			}
			if (rc) {
				for (size_t k = ncells; k < o->pub.ncells; k++)
					o->cells[k].stk = MCZ_CODE_ROOT;
				o->pub.nframes = nf;
				o->frames_cut = 1;
			}
		}
	}
	mcz_buf_free(&tmp);
	part_compact(o);
	o->pub.objects = o->objs;
	o->pub.threads = o->threads;
	o->pub.frames = o->frames;
	o->pub.nparts = r->nparts_code - bad;
	o->pub.bad_parts = bad;
	if (!o->event)
		o->pub.event = "";
	r->raw = &o->pub;
	r->raw_parts = r->nparts_code;
	*raw = r->raw;
	return MCZ_OK;
}

/* ---- the parts as a profile, without symbols ---------------------------- */

typedef struct part_place {
	uint32_t obj;
	uint64_t off;
} part_place;

static int part_place_cmp(const void *a, const void *b)
{
	const part_place *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static uint64_t part_binned(const mcz_code_raw *raw, uint32_t obj, uint64_t off)
{
	return raw->objects[obj].file ? off - off % PART_REGION : off;
}

static uint32_t part_loc_of(const part_place *v, size_t n, uint32_t obj, uint64_t off)
{
	part_place key = {obj, off};
	const part_place *f = bsearch(&key, v, n, sizeof *v, part_place_cmp);
	return f ? (uint32_t)(f - v) : 0;
}

static int part_hit_cmp(const void *a, const void *b)
{
	const mcz_code_hit *x = a, *y = b;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int part_edge_cmp(const void *a, const void *b)
{
	const mcz_code_edge *x = a, *y = b;
	if (x->loc != y->loc)
		return x->loc < y->loc ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* A CODE payload of raw's cells, each place named by its object and
 * 64-byte region (mcz_code_loc.how = MCZ_CODE_ADDR), and into tout the
 * CODETHREADS payload of the same hits by thread. */
static int part_thit_cmp(const void *a, const void *b)
{
	const mcz_code_thit *x = a, *y = b;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int part_frame_cmp(const void *a, const void *b)
{
	const mcz_code_frame *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int part_stackhit_cmp(const void *a, const void *b)
{
	const mcz_code_stackhit *x = a, *y = b;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int part_any_stack(const mcz_code_raw *raw)
{
	for (size_t i = 0; i < raw->ncells; i++)
		if (raw->cells[i].stk != MCZ_CODE_ROOT)
			return 1;
	return 0;
}

static int part_unnamed(const mcz_code_raw *raw, const char *note, mcz_buf *out, mcz_buf *tout,
			mcz_buf *sout, mcz_codec_ctx *cx)
{
	mcz_code_frame *frames = NULL;
	mcz_code_stackhit *sh = NULL;
	size_t n = raw->ncells;
	part_place *pl = malloc((2 * n + raw->nframes + 1) * sizeof *pl);
	mcz_code_loc *locs = NULL;
	int64_t *t = malloc((n + 1) * sizeof *t);
	size_t *first = malloc((n + 2) * sizeof *first);
	mcz_code_hit *hits = malloc((n + 1) * sizeof *hits);
	mcz_code_edge *edges = malloc((n + 1) * sizeof *edges);
	mcz_code_object *objs = calloc(raw->nobjects + 1, sizeof *objs);
	mcz_code_thit *th = malloc((n + 1) * sizeof *th);
	int rc = MCZ_E_NOMEM;
	if (!pl || !t || !first || !hits || !edges || !objs || !th)
		goto out;
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		const mcz_code_cell *x = &raw->cells[i];
		pl[np++] = (part_place){x->obj, part_binned(raw, x->obj, x->off)};
		if (x->cobj != UINT32_MAX)
			pl[np++] = (part_place){x->cobj, part_binned(raw, x->cobj, x->coff)};
	}
	for (size_t i = 0; i < raw->nframes; i++)
		pl[np++] = (part_place){raw->frames[i].obj,
					part_binned(raw, raw->frames[i].obj, raw->frames[i].off)};
	if (np)
		qsort(pl, np, sizeof *pl, part_place_cmp);
	size_t k = 0;
	for (size_t i = 0; i < np; i++)
		if (!k || part_place_cmp(&pl[k - 1], &pl[i]))
			pl[k++] = pl[i];
	np = k;
	if (!(locs = calloc(np + 1, sizeof *locs)))
		goto out;
	for (size_t i = 0; i < np; i++)
		locs[i] = (mcz_code_loc){pl[i].obj, pl[i].off, MCZ_CODE_ADDR, "", "", "", 0};
	for (size_t i = 0; i < raw->nobjects; i++)
		objs[i] = (mcz_code_object){raw->objects[i].path, raw->objects[i].build_id, ""};
	size_t niv = 0, nh = 0, ne = 0, nth = 0;
	for (size_t i = 0; i < n;) {
		int64_t cur = raw->cells[i].t;
		size_t h0 = nh;
		t[niv] = cur;
		first[niv] = h0;
		for (; i < n && raw->cells[i].t == cur; i++) {
			const mcz_code_cell *x = &raw->cells[i];
			uint32_t loc = part_loc_of(pl, np, x->obj, part_binned(raw, x->obj, x->off));
			hits[nh++] = (mcz_code_hit){loc, x->count};
			th[nth++] = (mcz_code_thit){(uint32_t)niv, x->thr, loc, x->count};
			if (x->cobj != UINT32_MAX)
				edges[ne++] = (mcz_code_edge){
					loc, part_loc_of(pl, np, x->cobj, part_binned(raw, x->cobj, x->coff)),
					x->count};
		}
		qsort(hits + h0, nh - h0, sizeof *hits, part_hit_cmp);
		size_t m = h0;
		for (size_t a = h0; a < nh; a++) {
			if (m > h0 && hits[m - 1].loc == hits[a].loc) {
				uint64_t s = (uint64_t)hits[m - 1].count + hits[a].count;
				hits[m - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
			} else {
				hits[m++] = hits[a];
			}
		}
		nh = m;
		niv++;
	}
	first[niv] = nh;
	if (ne)
		qsort(edges, ne, sizeof *edges, part_edge_cmp);
	size_t me = 0;
	for (size_t a = 0; a < ne; a++) {
		if (me && !part_edge_cmp(&edges[me - 1], &edges[a])) {
			uint64_t s = (uint64_t)edges[me - 1].count + edges[a].count;
			edges[me - 1].count = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
		} else {
			edges[me++] = edges[a];
		}
	}
	/* by thread: (interval, thread, location) once each */
	if (nth)
		qsort(th, nth, sizeof *th, part_thit_cmp);
	size_t mt = 0;
	for (size_t a = 0; a < nth; a++) {
		if (mt && !part_thit_cmp(&th[mt - 1], &th[a])) {
			uint64_t sum = (uint64_t)th[mt - 1].count + th[a].count;
			th[mt - 1].count = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
		} else {
			th[mt++] = th[a];
		}
	}
	/* the stacks: a frame per recorder frame, and one per (callers,
	 * location) of the cells */
	size_t nfr = 0, nsh = 0;
	if (raw->nframes || part_any_stack(raw)) {
		if (!(frames = malloc((raw->nframes + n + 1) * sizeof *frames)) ||
		    !(sh = malloc((n + 1) * sizeof *sh))) {
			rc = MCZ_E_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < raw->nframes; i++) {
			const mcz_code_rawframe *f = &raw->frames[i];
			frames[nfr++] = (mcz_code_frame){
				f->parent, part_loc_of(pl, np, f->obj, part_binned(raw, f->obj, f->off))};
		}
		size_t base = nfr;
		for (size_t i = 0; i < n; i++) {
			const mcz_code_cell *x = &raw->cells[i];
			frames[nfr++] = (mcz_code_frame){
				x->stk, part_loc_of(pl, np, x->obj, part_binned(raw, x->obj, x->off))};
		}
		/* leaves once each: sorted, the cells' then looked up */
		qsort(frames + base, nfr - base, sizeof *frames, part_frame_cmp);
		size_t m = base;
		for (size_t i = base; i < nfr; i++)
			if (m == base || part_frame_cmp(&frames[m - 1], &frames[i]))
				frames[m++] = frames[i];
		nfr = m;
		size_t ivx = 0;
		for (size_t i = 0; i < n; i++) {
			const mcz_code_cell *x = &raw->cells[i];
			if (i && x->t != raw->cells[i - 1].t)
				ivx++;
			mcz_code_frame key = {
				x->stk, part_loc_of(pl, np, x->obj, part_binned(raw, x->obj, x->off))};
			const mcz_code_frame *f =
				bsearch(&key, frames + base, nfr - base, sizeof *frames, part_frame_cmp);
			sh[nsh++] = (mcz_code_stackhit){(uint32_t)ivx, x->thr,
							(uint32_t)(f - frames), x->count};
		}
		qsort(sh, nsh, sizeof *sh, part_stackhit_cmp);
		size_t ms = 0;
		for (size_t a = 0; a < nsh; a++) {
			if (ms && !part_stackhit_cmp(&sh[ms - 1], &sh[a])) {
				uint64_t sum = (uint64_t)sh[ms - 1].count + sh[a].count;
				sh[ms - 1].count = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
			} else {
				sh[ms++] = sh[a];
			}
		}
		nsh = ms;
	}
	mcz_code c = {raw->event, raw->period, raw->interval_ns, note, raw->nobjects, objs,
		      np, locs, niv, t, first, nh, hits, me, edges,
		      raw->nthreads, raw->threads, mt, th, nfr, frames, nsh, sh};
	rc = mcz_code_payload(cx, &c, out);
	if (!rc && tout && c.nthreads)
		rc = mcz_code_threads_payload(cx, &c, tout);
	if (!rc && sout && c.nframes)
		rc = mcz_code_stacks_payload(cx, &c, sout);
out:
	free(pl), free(locs), free(t), free(first), free(hits), free(edges), free(objs), free(th);
	free(frames), free(sh);
	return rc;
}

int mcz_code_from_parts(const mcz_reader *r)
{
	return r && !r->code_p && r->nparts_code > 0;
}

/* A CODE payload and its CODETHREADS and CODESTACKS payloads (tp, sp may
 * be empty) decoded into one profile. */
static int part_decode(const void *p, size_t len, const void *tp, size_t tlen, const void *sp,
		       size_t slen, mcz_code **out)
{
	int rc = mcz_code_decode(p, len, out);
	if (!rc && ((tp && tlen && mcz_code_decode_threads(*out, tp, tlen) == MCZ_E_NOMEM) ||
		    (sp && slen && mcz_code_decode_stacks(*out, sp, slen) == MCZ_E_NOMEM))) {
		mcz_code_free(*out);
		*out = NULL;
		rc = MCZ_E_NOMEM;
	}
	return rc;
}

int mcz_code_part_profile(mcz_reader *r, mcz_code **out)
{
	const mcz_code_raw *raw;
	int rc = mcz_code_raw_get(r, &raw);
	if (rc)
		return rc;
	if (part_symbolizer) {
		void *p = NULL, *tp = NULL, *sp = NULL;
		size_t len = 0, tlen = 0, slen = 0;
		if (part_symbolizer(raw, &p, &len, &tp, &tlen, &sp, &slen) == 0) {
			rc = part_decode(p, len, tp, tlen, sp, slen, out);
			free(p), free(tp), free(sp);
			if (rc != MCZ_E_CORRUPT)
				return rc;
		} else {
			free(p), free(tp), free(sp);
		}
	}
	char note[200];
	snprintf(note, sizeof note, "the recording was cut before its end: its code as written "
		 "while it ran (%zu part%s%s), not symbolized", raw->nparts,
		 raw->nparts == 1 ? "" : "s", raw->bad_parts ? ", damaged parts left out" : "");
	mcz_buf pay = {0}, tpay = {0}, spay = {0};
	rc = part_unnamed(raw, note, &pay, &tpay, &spay, &r->cx);
	if (!rc)
		rc = part_decode(pay.p, pay.len, tpay.p, tpay.len, spay.p, spay.len, out);
	mcz_buf_free(&pay);
	mcz_buf_free(&tpay);
	mcz_buf_free(&spay);
	return rc;
}
