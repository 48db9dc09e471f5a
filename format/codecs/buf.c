/* buf.c: the growable output buffer every encoder writes into.
 *
 * An allocation failure sets a sticky error (b->err) and later writes are
 * dropped, so an encoder checks once at the end instead of after every put
 * (the Redis rio.c habit).  Integers are little-endian; varints are LEB128
 * (SPEC.md "Conventions").
 *
 *     mcz_buf b = {0};
 *     mcz_buf_uv(&b, 300); mcz_buf_str(&b, "host");
 *     if (b.err) ...; use b.p, b.len; mcz_buf_free(&b);
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

int mcz_buf_reserve(mcz_buf *b, size_t more)
{
	if (b->err)
		return b->err;
	if (b->cap - b->len >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			return b->err = MCZ_E_NOMEM;
		cap *= 2;
	}
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return b->err = MCZ_E_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void mcz_buf_put(mcz_buf *b, const void *src, size_t n)
{
	if (n == 0 || mcz_buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

void mcz_buf_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void mcz_buf_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void mcz_buf_u8(mcz_buf *b, uint8_t v)
{
	mcz_buf_put(b, &v, 1);
}

void mcz_buf_u16(mcz_buf *b, uint16_t v)
{
	uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	mcz_buf_put(b, p, 2);
}

void mcz_buf_u32(mcz_buf *b, uint32_t v)
{
	uint8_t p[4];
	mcz_buf_le32(p, v);
	mcz_buf_put(b, p, 4);
}

void mcz_buf_u64(mcz_buf *b, uint64_t v)
{
	uint8_t p[8];
	mcz_buf_le64(p, v);
	mcz_buf_put(b, p, 8);
}

void mcz_buf_f64(mcz_buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	mcz_buf_u64(b, u);
}

void mcz_buf_uv(mcz_buf *b, uint64_t v)
{
	if (mcz_buf_reserve(b, 10))
		return;
	uint8_t *p = b->p + b->len;
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	b->len += n;
}

void mcz_buf_sv(mcz_buf *b, int64_t v)
{
	mcz_buf_uv(b, mcz_buf_zigzag(v));
}

void mcz_buf_str(mcz_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	mcz_buf_uv(b, n);
	mcz_buf_put(b, s, n);
}

void mcz_buf_free(mcz_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

int mcz_buf_grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elem)
			return MCZ_E_NOMEM;
		nc *= 2;
	}
	void *np = realloc(*p, nc * elem);
	if (!np)
		return MCZ_E_NOMEM;
	*p = np;
	*cap = nc;
	return 0;
}
