/* code-block.c: the CODE block (SPEC.md 5.6, since 1.2): where the recorded
 * command ran, as per-interval sparse histograms of code locations and the
 * table of those locations (object, build-id, function, inline chain,
 * file:line), symbolized by the recorder so the file stands alone.
 *
 * The payload is packed like a META body (a packing byte, then the body or
 * one zstd frame).  Decoding checks every count against the bytes left
 * before allocating, every index against its table, and the order of
 * times and locations; a bad CODE block is MCZ_E_CORRUPT for mcz_code_get
 * alone, the rest of the file reads as usual.
 *
 *     void *p; size_t n;
 *     mcz_code_encode(&c, &p, &n);          // payload bytes
 *     mcz_code *d;
 *     if (mcz_code_decode(p, n, &d) == MCZ_OK) { ...; mcz_code_free(d); }
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"


/* The body, unpacked (SPEC.md 5.6). */
static int code_encode_body(const mcz_code *c, mcz_buf *b)
{
	mcz_buf_str(b, c->event);
	mcz_buf_uv(b, c->period);
	mcz_buf_uv(b, (uint64_t)c->interval_ns);
	mcz_buf_str(b, c->note);
	mcz_buf_uv(b, c->nobjects);
	for (size_t i = 0; i < c->nobjects; i++) {
		mcz_buf_str(b, c->objects[i].path);
		mcz_buf_str(b, c->objects[i].build_id);
		mcz_buf_str(b, c->objects[i].note);
	}
	mcz_buf_uv(b, c->nlocs);
	for (size_t i = 0; i < c->nlocs; i++) {
		const mcz_code_loc *l = &c->locs[i];
		if (l->object >= c->nobjects || l->how > MCZ_CODE_DWARF)
			return MCZ_E_ARG;
		mcz_buf_uv(b, l->object);
		mcz_buf_uv(b, l->offset);
		mcz_buf_u8(b, l->how);
		mcz_buf_str(b, l->function);
		mcz_buf_str(b, l->inlined);
		mcz_buf_str(b, l->file);
		mcz_buf_uv(b, l->line);
	}
	mcz_buf_uv(b, c->nintervals);
	for (size_t i = 0; i < c->nintervals; i++) {
		size_t a = c->first[i], e = c->first[i + 1];
		if (e <= a || e > c->nhits || (i && c->t[i] <= c->t[i - 1]))
			return MCZ_E_ARG;
		if (i == 0)
			mcz_buf_sv(b, c->t[0]);
		else
			mcz_buf_uv(b, (uint64_t)c->t[i] - (uint64_t)c->t[i - 1]);
		mcz_buf_uv(b, e - a);
		for (size_t h = a; h < e; h++) {
			const mcz_code_hit *x = &c->hits[h];
			if (x->loc >= c->nlocs || x->count == 0 || (h > a && x->loc <= c->hits[h - 1].loc))
				return MCZ_E_ARG;
			mcz_buf_uv(b, h == a ? x->loc : x->loc - c->hits[h - 1].loc - 1);
			mcz_buf_uv(b, x->count - 1u);
		}
	}
	/* "The callers section is written only when there are callers" */
	if (c->ncallers) {
		mcz_buf_uv(b, c->ncallers);
		for (size_t i = 0; i < c->ncallers; i++) {
			const mcz_code_edge *e = &c->callers[i];
			if (e->loc >= c->nlocs || e->caller >= c->nlocs || e->count == 0 ||
			    (i && (e->loc < c->callers[i - 1].loc ||
				   (e->loc == c->callers[i - 1].loc && e->caller <= c->callers[i - 1].caller))))
				return MCZ_E_ARG;
			mcz_buf_uv(b, e->loc);
			mcz_buf_uv(b, e->caller);
			mcz_buf_uv(b, e->count - 1u);
		}
	}
	return b->err;
}

int mcz_code_payload(mcz_codec_ctx *cx, const mcz_code *c, mcz_buf *out)
{
	if (!c || (c->nobjects && !c->objects) || (c->nlocs && !c->locs) ||
	    (c->nintervals && (!c->t || !c->first || !c->hits)) || c->interval_ns < 0 ||
	    (c->ncallers && !c->callers))
		return MCZ_E_ARG;
	mcz_buf body = {0};
	int rc = code_encode_body(c, &body);
	/* at level 19 by any writer: one block a recording, often the
	 * largest after the chunks, written after symbolization (which costs
	 * far more) */
	if (!rc)
		rc = mcz_block_pack_at(cx, &body, out, 19);
	mcz_buf_free(&body);
	return rc;
}

int mcz_code_encode(const mcz_code *c, void **buf, size_t *len)
{
	return mcz_code_encode_with(mcz_code_payload, c, buf, len);
}

int mcz_code_encode_with(int (*payload)(mcz_codec_ctx *, const mcz_code *, mcz_buf *),
			 const mcz_code *c, void **buf, size_t *len)
{
	mcz_codec_ctx cx = {0};
	mcz_buf out = {0};
	*buf = NULL;
	*len = 0;
	int rc = payload(&cx, c, &out);
	mcz_codec_ctx_free(&cx);
	if (rc) {
		mcz_buf_free(&out);
		return rc;
	}
	*buf = out.p;
	*len = out.len;
	return MCZ_OK;
}

void mcz_code_free(mcz_code *c)
{
	code_owned *o = (code_owned *)c;
	if (!o)
		return;
	for (size_t i = 0; i < o->nstrs; i++)
		free(o->strs[i]);
	free(o->strs), free(o->objs), free(o->locs), free(o->t), free(o->first), free(o->hits);
	free(o->callers), free(o->threads), free(o->thits), free(o->frames), free(o->stackhits);
	free(o);
}

/* A string of the body, kept in o->strs (room reserved by the caller). */
static const char *code_str(code_owned *o, mcz_cur *cur)
{
	char *s = mcz_cur_strdup(cur);
	if (s)
		o->strs[o->nstrs++] = s;
	return s ? s : "";
}

static int code_decode_body(code_owned *o, const uint8_t *p, size_t len)
{
	mcz_cur c = mcz_cur_make(p, len);
	mcz_code *k = &o->pub;
	/* Every string takes at least its one length byte: the body cannot
	 * hold more strings than bytes. */
	if (!(o->strs = malloc((len + 2) * sizeof *o->strs)))
		return MCZ_E_NOMEM;
	k->event = code_str(o, &c);
	k->period = mcz_cur_uv(&c);
	uint64_t iv = mcz_cur_uv(&c);
	k->note = code_str(o, &c);
	if (c.err || iv > (uint64_t)INT64_MAX)
		return MCZ_E_CORRUPT;
	k->interval_ns = (int64_t)iv;
	/* "nobjects: each object takes at least 3 bytes" */
	uint64_t no = mcz_cur_count(&c, 3);
	if (c.err || !(o->objs = calloc(no ? no : 1, sizeof *o->objs)))
		return c.err ? MCZ_E_CORRUPT : MCZ_E_NOMEM;
	for (uint64_t i = 0; i < no && !c.err; i++) {
		o->objs[i].path = code_str(o, &c);
		o->objs[i].build_id = code_str(o, &c);
		o->objs[i].note = code_str(o, &c);
	}
	k->nobjects = no;
	k->objects = o->objs;
	/* a location takes at least 7 bytes (object, offset, how, three empty
	 * strings, line: one byte each; 8 refused what a writer may write,
	 * found by fuzz-code) */
	uint64_t nl = mcz_cur_count(&c, 7);
	if (c.err || !(o->locs = calloc(nl ? nl : 1, sizeof *o->locs)))
		return c.err ? MCZ_E_CORRUPT : MCZ_E_NOMEM;
	for (uint64_t i = 0; i < nl && !c.err; i++) {
		mcz_code_loc *l = &o->locs[i];
		uint64_t obj = mcz_cur_uv(&c);
		l->offset = mcz_cur_uv(&c);
		l->how = mcz_cur_u8(&c);
		l->function = code_str(o, &c);
		l->inlined = code_str(o, &c);
		l->file = code_str(o, &c);
		uint64_t line = mcz_cur_uv(&c);
		if (obj >= no || l->how > MCZ_CODE_DWARF || line > UINT32_MAX)
			return MCZ_E_CORRUPT;
		l->object = (uint32_t)obj;
		l->line = (uint32_t)line;
	}
	k->nlocs = nl;
	k->locs = o->locs;
	/* an interval takes at least 4 bytes (time, count, one hit of 2) */
	uint64_t ni = mcz_cur_count(&c, 4);
	if (c.err)
		return MCZ_E_CORRUPT;
	/* hits take at least 2 bytes each: at most left / 2 in all */
	size_t maxhits = mcz_cur_left(&c) / 2;
	o->t = malloc((ni ? ni : 1) * sizeof *o->t);
	o->first = malloc((ni + 1) * sizeof *o->first);
	o->hits = malloc((maxhits ? maxhits : 1) * sizeof *o->hits);
	if (!o->t || !o->first || !o->hits)
		return MCZ_E_NOMEM;
	size_t nh = 0;
	int64_t t = 0;
	for (uint64_t i = 0; i < ni; i++) {
		if (i == 0) {
			t = mcz_cur_sv(&c);
		} else {
			uint64_t d = mcz_cur_uv(&c);
			if (d == 0 || !mcz_span_fits(t, d))
				return MCZ_E_CORRUPT;
			t += (int64_t)d;
		}
		o->t[i] = t;
		o->first[i] = nh;
		uint64_t n = mcz_cur_count(&c, 2);
		if (c.err || n == 0 || n > maxhits - nh)
			return MCZ_E_CORRUPT;
		uint64_t loc = 0;
		for (uint64_t h = 0; h < n; h++) {
			uint64_t d = mcz_cur_uv(&c);
			uint64_t cnt = mcz_cur_uv(&c);
			loc = h == 0 ? d : loc + d + 1;
			if (c.err || d >= nl || loc >= nl || cnt >= UINT32_MAX)
				return MCZ_E_CORRUPT;
			o->hits[nh++] = (mcz_code_hit){(uint32_t)loc, (uint32_t)cnt + 1};
		}
	}
	o->first[ni] = nh;
	if (c.err)
		return MCZ_E_CORRUPT;
	/* the callers section, when the body goes on: an edge takes at least 3 bytes */
	int more = mcz_cur_left(&c) != 0;
	uint64_t ne = more ? mcz_cur_count(&c, 3) : 0;
	if (c.err || (more && ne == 0))
		return MCZ_E_CORRUPT;
	if (!(o->callers = malloc((ne ? ne : 1) * sizeof *o->callers)))
		return MCZ_E_NOMEM;
	for (uint64_t i = 0; i < ne; i++) {
		uint64_t l = mcz_cur_uv(&c), cl = mcz_cur_uv(&c), cnt = mcz_cur_uv(&c);
		if (c.err || l >= nl || cl >= nl || cnt >= UINT32_MAX)
			return MCZ_E_CORRUPT;
		if (i && (l < o->callers[i - 1].loc ||
			  (l == o->callers[i - 1].loc && cl <= o->callers[i - 1].caller)))
			return MCZ_E_CORRUPT;
		o->callers[i] = (mcz_code_edge){(uint32_t)l, (uint32_t)cl, (uint32_t)cnt + 1};
	}
	if (mcz_cur_left(&c) != 0)
		return MCZ_E_CORRUPT;
	k->ncallers = ne;
	k->callers = o->callers;
	k->nintervals = ni;
	k->t = o->t;
	k->first = o->first;
	k->nhits = nh;
	k->hits = o->hits;
	return MCZ_OK;
}

int mcz_code_decode(const void *buf, size_t len, mcz_code **out)
{
	*out = NULL;
	if (!buf && len)
		return MCZ_E_ARG;
	mcz_codec_ctx cx = {0};
	mcz_buf tmp = {0};
	const uint8_t *body;
	size_t blen;
	int rc = mcz_block_unpack(&cx, buf, len, &tmp, &body, &blen);
	code_owned *o = NULL;
	if (!rc && !(o = calloc(1, sizeof *o)))
		rc = MCZ_E_NOMEM;
	if (!rc)
		rc = code_decode_body(o, body, blen);
	mcz_buf_free(&tmp);
	mcz_codec_ctx_free(&cx);
	if (rc) {
		mcz_code_free(o ? &o->pub : NULL);
		return rc == MCZ_E_CORRUPT ? mcz_error_set(rc, "code block: malformed") : rc;
	}
	*out = &o->pub;
	return MCZ_OK;
}
