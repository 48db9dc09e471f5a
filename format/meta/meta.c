/* meta.c: encoding and decoding of the small blocks: META (key/value
 * strings), TOPO (the topology table), STREAMS (stream descriptors) and
 * MARKS (SPEC.md "META block" ... "MARKS block").
 *
 * Decoders copy every string (files do not NUL-terminate them) and check
 * every enumerated field; they append to caller-owned growing arrays.
 *
 *     mcz_meta_encode_streams(&payload, first_id, descs, n);
 *     mcz_meta_decode_streams(payload, len, &arr, &n, &cap);
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "meta.h"

static char *meta_strdup(const char *s)
{
	return strdup(s ? s : "");
}

int mcz_meta_copy_desc(mcz_stream_desc *dst, const mcz_stream_desc *src)
{
	*dst = *src;
	dst->name = meta_strdup(src->name);
	dst->source = meta_strdup(src->source);
	dst->native = meta_strdup(src->native);
	dst->unit = meta_strdup(src->unit);
	dst->note = meta_strdup(src->note);
	dst->instance = meta_strdup(src->instance);
	if (!dst->name || !dst->source || !dst->native || !dst->unit || !dst->note ||
	    !dst->instance) {
		mcz_meta_free_desc(dst);
		return MCZ_E_NOMEM;
	}
	return 0;
}

void mcz_meta_free_desc(mcz_stream_desc *d)
{
	free((char *)d->name);
	free((char *)d->source);
	free((char *)d->native);
	free((char *)d->unit);
	free((char *)d->note);
	free((char *)d->instance);
	d->name = d->source = d->native = d->unit = d->note = d->instance = NULL;
}

int mcz_meta_encode_kv(mcz_buf *b, const char *const *keys, const char *const *vals, size_t n)
{
	mcz_buf_uv(b, n);
	for (size_t i = 0; i < n; i++) {
		mcz_buf_str(b, keys[i]);
		mcz_buf_str(b, vals[i]);
	}
	return b->err;
}

int mcz_meta_encode_streams(mcz_buf *b, uint32_t first_id, const mcz_stream_desc *d, size_t n)
{
	mcz_buf_uv(b, first_id);
	mcz_buf_uv(b, n);
	for (size_t i = 0; i < n; i++) {
		mcz_buf_str(b, d[i].name);
		mcz_buf_str(b, d[i].source);
		mcz_buf_str(b, d[i].native);
		mcz_buf_str(b, d[i].unit);
		mcz_buf_str(b, d[i].note);
		mcz_buf_str(b, d[i].instance);
		mcz_buf_u8(b, d[i].kind);
		mcz_buf_u8(b, d[i].type);
		mcz_buf_u16(b, d[i].flags);
		mcz_buf_f64(b, d[i].scale);
		mcz_buf_sv(b, d[i].topo);
	}
	return b->err;
}

int mcz_meta_encode_topo(mcz_buf *b, const mcz_topo_obj *o, size_t n)
{
	mcz_buf_uv(b, n);
	for (size_t i = 0; i < n; i++) {
		mcz_buf_sv(b, o[i].parent);
		mcz_buf_u8(b, o[i].type);
		mcz_buf_sv(b, o[i].os_index);
		mcz_buf_uv(b, o[i].size);
		mcz_buf_str(b, o[i].name);
	}
	return b->err;
}

int mcz_meta_encode_marks(mcz_buf *b, const mcz_mark *m, size_t n)
{
	mcz_buf_uv(b, n);
	for (size_t i = 0; i < n; i++) {
		mcz_buf_sv(b, m[i].t);
		mcz_buf_u8(b, m[i].kind);
		mcz_buf_uv(b, m[i].source);
		mcz_buf_str(b, m[i].text);
	}
	return b->err;
}

int mcz_meta_decode_kv(const uint8_t *p, size_t len, mcz_meta_kv *kv)
{
	mcz_cur c = mcz_cur_make(p, len);
	uint64_t n = mcz_cur_count(&c, 2);
	for (uint64_t i = 0; i < n && !c.err; i++) {
		char *k = mcz_cur_strdup(&c), *v = mcz_cur_strdup(&c);
		if (!k || !v) {
			free(k);
			free(v);
			break;
		}
		size_t j;
		for (j = 0; j < kv->n && strcmp(kv->keys[j], k) != 0; j++)
			;
		if (j < kv->n) { /* "A later value for a key replaces an earlier one." */
			free(k);
			free(kv->vals[j]);
			kv->vals[j] = v;
			continue;
		}
		size_t cap = kv->cap;
		if (mcz_buf_grow_array((void **)&kv->keys, &cap, kv->n + 1, sizeof *kv->keys) ||
		    mcz_buf_grow_array((void **)&kv->vals, &kv->cap, kv->n + 1, sizeof *kv->vals)) {
			free(k);
			free(v);
			return MCZ_E_NOMEM;
		}
		kv->keys[kv->n] = k;
		kv->vals[kv->n++] = v;
	}
	if (c.err)
		return c.err;
	return mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
}

void mcz_meta_free_kv(mcz_meta_kv *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->keys[i]);
		free(kv->vals[i]);
	}
	free(kv->keys);
	free(kv->vals);
	memset(kv, 0, sizeof *kv);
}

int mcz_meta_decode_streams(const uint8_t *p, size_t len, mcz_stream_desc **arr, size_t *n,
			    size_t *cap)
{
	mcz_cur c = mcz_cur_make(p, len);
	uint64_t first = mcz_cur_uv(&c);
	uint64_t cnt = mcz_cur_count(&c, 20);
	/* "first_id must equal the number of streams declared before it." */
	if (c.err || first != *n)
		return MCZ_E_CORRUPT;
	if (mcz_buf_grow_array((void **)arr, cap, *n + (size_t)cnt, sizeof **arr))
		return MCZ_E_NOMEM;
	for (uint64_t i = 0; i < cnt && !c.err; i++) {
		mcz_stream_desc *d = &(*arr)[*n];
		memset(d, 0, sizeof *d);
		d->name = mcz_cur_strdup(&c);
		d->source = mcz_cur_strdup(&c);
		d->native = mcz_cur_strdup(&c);
		d->unit = mcz_cur_strdup(&c);
		d->note = mcz_cur_strdup(&c);
		d->instance = mcz_cur_strdup(&c);
		d->kind = mcz_cur_u8(&c);
		d->type = mcz_cur_u8(&c);
		d->flags = mcz_cur_u16(&c);
		d->scale = mcz_cur_f64(&c);
		int64_t topo = mcz_cur_sv(&c);
		d->topo = (int32_t)topo;
		d->id = (uint32_t)*n;
		if (c.err || d->kind > MCZ_GAUGE || d->type > MCZ_F64 ||
		    (d->kind == MCZ_COUNTER && d->type != MCZ_U64) || topo < -1 || topo > INT32_MAX) {
			mcz_meta_free_desc(d);
			return c.err ? c.err : MCZ_E_CORRUPT;
		}
		(*n)++;
	}
	if (c.err)
		return c.err;
	return mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
}

int mcz_meta_decode_topo(const uint8_t *p, size_t len, mcz_topo_obj **arr, size_t *n)
{
	mcz_cur c = mcz_cur_make(p, len);
	uint64_t cnt = mcz_cur_count(&c, 5);
	mcz_topo_obj *o = calloc(cnt ? (size_t)cnt : 1, sizeof *o);
	if (!o)
		return c.err ? c.err : MCZ_E_NOMEM;
	size_t i;
	for (i = 0; i < cnt && !c.err; i++) {
		int64_t parent = mcz_cur_sv(&c);
		o[i].type = mcz_cur_u8(&c);
		int64_t os = mcz_cur_sv(&c);
		o[i].size = mcz_cur_uv(&c);
		o[i].name = mcz_cur_strdup(&c);
		o[i].parent = (int32_t)parent;
		o[i].os_index = (int32_t)os;
		/* "A parent always comes before its children." */
		if (!c.err && (parent < -1 || parent >= (int64_t)i || o[i].type > MCZ_TOPO_OTHER ||
			       os < -1 || os > INT32_MAX))
			c.err = MCZ_E_CORRUPT;
	}
	if (!c.err && mcz_cur_left(&c))
		c.err = MCZ_E_CORRUPT;
	if (c.err) {
		mcz_meta_free_topo(o, i);
		return c.err;
	}
	*arr = o;
	*n = (size_t)cnt;
	return 0;
}

void mcz_meta_free_topo(mcz_topo_obj *o, size_t n)
{
	for (size_t i = 0; o && i < n; i++)
		free((char *)o[i].name);
	free(o);
}

int mcz_meta_decode_marks(const uint8_t *p, size_t len, mcz_mark **arr, size_t *n, size_t *cap)
{
	mcz_cur c = mcz_cur_make(p, len);
	uint64_t cnt = mcz_cur_count(&c, 4);
	if (c.err)
		return c.err;
	if (mcz_buf_grow_array((void **)arr, cap, *n + (size_t)cnt, sizeof **arr))
		return MCZ_E_NOMEM;
	for (uint64_t i = 0; i < cnt && !c.err; i++) {
		mcz_mark *m = &(*arr)[*n];
		m->t = mcz_cur_sv(&c);
		m->kind = mcz_cur_u8(&c);
		uint64_t src = mcz_cur_uv(&c);
		m->source = (uint32_t)src;
		m->text = mcz_cur_strdup(&c);
		if (!m->text)
			break;
		if (m->kind > MCZ_MARK_GAP || src > UINT32_MAX) {
			free((char *)m->text);
			return MCZ_E_CORRUPT;
		}
		(*n)++;
	}
	if (c.err)
		return c.err;
	return mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
}
