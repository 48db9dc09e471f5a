/* code-threads.c: the CODETHREADS block (SPEC.md 5.12, since 1.6) — the
 * code profile's hits split by the thread that was sampled, so that a
 * reader tells an OpenMP thread that works from one that waits at a
 * barrier (per-thread useful time, the threads' load balance).  It follows
 * the CODE block it belongs to; readers before 1.6 skip it and read the
 * profile whole.  Its indexes are the CODE block's, checked against them.
 *
 *     mcz_code_threads_payload(cx, &c, &out);     // writer, after CODE
 *     mcz_code_decode_threads(c, p, n);           // reader, after CODE
 */
#include <stdlib.h>
#include <string.h>

#include "../container/reader.h"

static int thr_encode_body(const mcz_code *c, mcz_buf *b)
{
	mcz_buf_uv(b, c->nthreads);
	for (size_t i = 0; i < c->nthreads; i++) {
		mcz_buf_uv(b, c->threads[i].pid);
		mcz_buf_uv(b, c->threads[i].tid);
	}
	mcz_buf_uv(b, c->nthits);
	const mcz_code_thit *prev = NULL;
	for (size_t i = 0; i < c->nthits; i++) {
		const mcz_code_thit *x = &c->thits[i];
		if (x->interval >= c->nintervals || x->thread >= c->nthreads || x->loc >= c->nlocs ||
		    x->count == 0)
			return MCZ_E_ARG;
		/* "sorted by interval, thread and location, each once" */
		if (prev && (x->interval < prev->interval ||
			     (x->interval == prev->interval &&
			      (x->thread < prev->thread ||
			       (x->thread == prev->thread && x->loc <= prev->loc)))))
			return MCZ_E_ARG;
		int same = prev && prev->interval == x->interval && prev->thread == x->thread;
		mcz_buf_uv(b, x->interval - (prev ? prev->interval : 0));
		mcz_buf_uv(b, x->thread);
		mcz_buf_uv(b, same ? x->loc - prev->loc - 1 : x->loc);
		mcz_buf_uv(b, x->count - 1u);
		prev = x;
	}
	return b->err;
}

int mcz_code_threads_payload(mcz_codec_ctx *cx, const mcz_code *c, mcz_buf *out)
{
	if (!c || !c->nthreads)
		return MCZ_E_NOTFOUND;
	if (!c->threads || (c->nthits && !c->thits))
		return MCZ_E_ARG;
	mcz_buf body = {0};
	int rc = thr_encode_body(c, &body);
	if (!rc)
		rc = mcz_block_pack_at(cx, &body, out, 19);
	mcz_buf_free(&body);
	return rc;
}

int mcz_code_encode_threads(const mcz_code *c, void **buf, size_t *len)
{
	return mcz_code_encode_with(mcz_code_threads_payload, c, buf, len);
}

static int thr_decode_body(code_owned *o, const uint8_t *p, size_t len)
{
	mcz_code *k = &o->pub;
	mcz_cur c = mcz_cur_make(p, len);
	/* a thread takes at least 2 bytes, a hit 4 */
	uint64_t nt = mcz_cur_count(&c, 2);
	if (c.err || nt > UINT32_MAX)
		return MCZ_E_CORRUPT;
	mcz_code_thread *th = calloc(nt ? nt : 1, sizeof *th);
	if (!th)
		return MCZ_E_NOMEM;
	for (uint64_t i = 0; i < nt; i++) {
		uint64_t pid = mcz_cur_uv(&c), tid = mcz_cur_uv(&c);
		if (c.err || pid > UINT32_MAX || tid > UINT32_MAX) {
			free(th);
			return MCZ_E_CORRUPT;
		}
		th[i] = (mcz_code_thread){(uint32_t)pid, (uint32_t)tid};
	}
	uint64_t n = mcz_cur_count(&c, 4);
	mcz_code_thit *h = c.err ? NULL : malloc((n ? n : 1) * sizeof *h);
	if (!h) {
		free(th);
		return c.err ? MCZ_E_CORRUPT : MCZ_E_NOMEM;
	}
	uint64_t iv = 0, thr = 0, loc = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t div = mcz_cur_uv(&c), t = mcz_cur_uv(&c), d = mcz_cur_uv(&c);
		uint64_t cnt = mcz_cur_uv(&c);
		int same = i && div == 0 && t == thr;
		if (c.err || div > k->nintervals || (i && div == 0 && t < thr) || t >= nt ||
		    d >= k->nlocs || cnt >= UINT32_MAX)
			goto bad;
		iv += div;
		loc = same ? loc + d + 1 : d;
		if (iv >= k->nintervals || loc >= k->nlocs)
			goto bad;
		thr = t;
		h[i] = (mcz_code_thit){(uint32_t)iv, (uint32_t)thr, (uint32_t)loc, (uint32_t)cnt + 1};
	}
	if (mcz_cur_left(&c))
		goto bad;
	free(o->threads), free(o->thits);
	o->threads = th;
	o->thits = h;
	k->nthreads = nt;
	k->threads = th;
	k->nthits = n;
	k->thits = h;
	return MCZ_OK;
bad:
	free(th), free(h);
	return MCZ_E_CORRUPT;
}

int mcz_code_decode_threads(mcz_code *c, const void *buf, size_t len)
{
	if (!c || (!buf && len))
		return MCZ_E_ARG;
	mcz_codec_ctx cx = {0};
	mcz_buf tmp = {0};
	const uint8_t *body;
	size_t blen;
	int rc = mcz_block_unpack(&cx, buf, len, &tmp, &body, &blen);
	if (!rc)
		rc = thr_decode_body((code_owned *)c, body, blen);
	mcz_buf_free(&tmp);
	mcz_codec_ctx_free(&cx);
	return rc == MCZ_E_CORRUPT ? mcz_error_set(rc, "code threads block: malformed") : rc;
}
