/* code-stacks.c: the CODESTACKS block (SPEC.md 5.13, since 1.7) — the
 * code profile's samples by whole call stack, so that a reader draws the
 * flame graph of any span and charges the time spent waiting in a
 * runtime to the application code that called it.  The stacks are a tree
 * of frames over the CODE block's locations (a stack shared by many
 * samples, or sharing its callers with others, is stored once); the hits
 * count the samples of each (interval, thread, stack).  It follows the
 * CODE block it belongs to; readers before 1.7 skip it.
 *
 *     mcz_code_stacks_payload(cx, &c, &out);     // writer, after CODE
 *     mcz_code_decode_stacks(c, p, n);           // reader, after CODE
 */
#include <stdlib.h>
#include <string.h>

#include "../container/reader.h"

static int stk_encode_body(const mcz_code *c, mcz_buf *b)
{
	size_t nthr = c->nthreads ? c->nthreads : 1;
	mcz_buf_uv(b, c->nframes);
	for (size_t i = 0; i < c->nframes; i++) {
		const mcz_code_frame *f = &c->frames[i];
		if (f->loc >= c->nlocs || (f->parent != MCZ_CODE_ROOT && f->parent >= i))
			return MCZ_E_ARG;
		/* "0 for a root, else how many frames back its parent is" */
		mcz_buf_uv(b, f->parent == MCZ_CODE_ROOT ? 0 : i - f->parent);
		mcz_buf_uv(b, f->loc);
	}
	mcz_buf_uv(b, c->nstackhits);
	const mcz_code_stackhit *prev = NULL;
	for (size_t i = 0; i < c->nstackhits; i++) {
		const mcz_code_stackhit *x = &c->stackhits[i];
		if (x->interval >= c->nintervals || x->thread >= nthr || x->frame >= c->nframes ||
		    x->count == 0)
			return MCZ_E_ARG;
		if (prev && (x->interval < prev->interval ||
			     (x->interval == prev->interval &&
			      (x->thread < prev->thread ||
			       (x->thread == prev->thread && x->frame <= prev->frame)))))
			return MCZ_E_ARG;
		int same = prev && prev->interval == x->interval && prev->thread == x->thread;
		mcz_buf_uv(b, x->interval - (prev ? prev->interval : 0));
		mcz_buf_uv(b, x->thread);
		mcz_buf_uv(b, same ? x->frame - prev->frame - 1 : x->frame);
		mcz_buf_uv(b, x->count - 1u);
		prev = x;
	}
	return b->err;
}

int mcz_code_stacks_payload(mcz_codec_ctx *cx, const mcz_code *c, mcz_buf *out)
{
	if (!c || !c->nframes)
		return MCZ_E_NOTFOUND;
	if (!c->frames || (c->nstackhits && !c->stackhits))
		return MCZ_E_ARG;
	mcz_buf body = {0};
	int rc = stk_encode_body(c, &body);
	if (!rc)
		rc = mcz_block_pack_at(cx, &body, out, 19);
	mcz_buf_free(&body);
	return rc;
}

int mcz_code_encode_stacks(const mcz_code *c, void **buf, size_t *len)
{
	return mcz_code_encode_with(mcz_code_stacks_payload, c, buf, len);
}

static int stk_decode_body(code_owned *o, const uint8_t *p, size_t len)
{
	mcz_code *k = &o->pub;
	mcz_cur c = mcz_cur_make(p, len);
	size_t nthr = k->nthreads ? k->nthreads : 1;
	/* a frame takes at least 2 bytes, a hit 4 */
	uint64_t nf = mcz_cur_count(&c, 2);
	if (c.err || nf >= UINT32_MAX)
		return MCZ_E_CORRUPT;
	mcz_code_frame *fr = malloc((nf ? nf : 1) * sizeof *fr);
	if (!fr)
		return MCZ_E_NOMEM;
	for (uint64_t i = 0; i < nf; i++) {
		uint64_t back = mcz_cur_uv(&c), loc = mcz_cur_uv(&c);
		if (c.err || back > i || loc >= k->nlocs) {
			free(fr);
			return MCZ_E_CORRUPT;
		}
		fr[i] = (mcz_code_frame){back ? (uint32_t)(i - back) : MCZ_CODE_ROOT, (uint32_t)loc};
	}
	uint64_t n = mcz_cur_count(&c, 4);
	mcz_code_stackhit *h = c.err ? NULL : malloc((n ? n : 1) * sizeof *h);
	if (!h) {
		free(fr);
		return c.err ? MCZ_E_CORRUPT : MCZ_E_NOMEM;
	}
	uint64_t iv = 0, thr = 0, f = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t div = mcz_cur_uv(&c), t = mcz_cur_uv(&c), d = mcz_cur_uv(&c);
		uint64_t cnt = mcz_cur_uv(&c);
		int same = i && div == 0 && t == thr;
		if (c.err || div > k->nintervals || (i && div == 0 && t < thr) || t >= nthr ||
		    d >= nf || cnt >= UINT32_MAX)
			goto bad;
		iv += div;
		f = same ? f + d + 1 : d;
		if (iv >= k->nintervals || f >= nf)
			goto bad;
		thr = t;
		h[i] = (mcz_code_stackhit){(uint32_t)iv, (uint32_t)thr, (uint32_t)f, (uint32_t)cnt + 1};
	}
	if (mcz_cur_left(&c))
		goto bad;
	free(o->frames), free(o->stackhits);
	o->frames = fr;
	o->stackhits = h;
	k->nframes = nf;
	k->frames = fr;
	k->nstackhits = n;
	k->stackhits = h;
	return MCZ_OK;
bad:
	free(fr), free(h);
	return MCZ_E_CORRUPT;
}

int mcz_code_decode_stacks(mcz_code *c, const void *buf, size_t len)
{
	if (!c || (!buf && len))
		return MCZ_E_ARG;
	mcz_codec_ctx cx = {0};
	mcz_buf tmp = {0};
	const uint8_t *body;
	size_t blen;
	int rc = mcz_block_unpack(&cx, buf, len, &tmp, &body, &blen);
	if (!rc)
		rc = stk_decode_body((code_owned *)c, body, blen);
	mcz_buf_free(&tmp);
	mcz_codec_ctx_free(&cx);
	return rc == MCZ_E_CORRUPT ? mcz_error_set(rc, "code stacks block: malformed") : rc;
}
