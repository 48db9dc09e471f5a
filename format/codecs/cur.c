/* cur.c: the bounded input cursor every parser reads through.
 *
 * No read goes past c->end.  The first read that would, or a malformed
 * varint, sets c->err = MCZ_E_CORRUPT; later reads return 0 and move
 * nothing, so parsers check c->err once (SPEC.md "Reader rules": no length,
 * count or offset is trusted before it is checked against the bytes that
 * hold it).
 *
 *     mcz_cur c = mcz_cur_make(payload, len);
 *     uint64_t n = mcz_cur_count(&c, 2);   // each item takes >= 2 bytes
 *     ...
 *     if (c.err) return c.err;
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

static int cur_need(mcz_cur *c, size_t n)
{
	if (c->err)
		return 0;
	if ((size_t)(c->end - c->p) < n) {
		c->err = MCZ_E_CORRUPT;
		c->p = c->end;
		return 0;
	}
	return 1;
}

uint32_t mcz_cur_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t mcz_cur_le64(const uint8_t *p)
{
	return (uint64_t)mcz_cur_le32(p) | (uint64_t)mcz_cur_le32(p + 4) << 32;
}

uint8_t mcz_cur_u8(mcz_cur *c)
{
	if (!cur_need(c, 1))
		return 0;
	return *c->p++;
}

uint16_t mcz_cur_u16(mcz_cur *c)
{
	if (!cur_need(c, 2))
		return 0;
	uint16_t v = (uint16_t)(c->p[0] | c->p[1] << 8);
	c->p += 2;
	return v;
}

uint32_t mcz_cur_u32(mcz_cur *c)
{
	if (!cur_need(c, 4))
		return 0;
	uint32_t v = mcz_cur_le32(c->p);
	c->p += 4;
	return v;
}

uint64_t mcz_cur_u64(mcz_cur *c)
{
	if (!cur_need(c, 8))
		return 0;
	uint64_t v = mcz_cur_le64(c->p);
	c->p += 8;
	return v;
}

double mcz_cur_f64(mcz_cur *c)
{
	uint64_t u = mcz_cur_u64(c);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

uint64_t mcz_cur_uv_slow(mcz_cur *c)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (!cur_need(c, 1))
			return 0;
		uint8_t byte = *c->p++;
		/* "A varint has at most 10 bytes; bits beyond 64 must be zero." */
		if (shift == 63 && byte > 1)
			break;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->err = MCZ_E_CORRUPT;
	c->p = c->end;
	return 0;
}

uint64_t mcz_cur_count(mcz_cur *c, size_t min_bytes_each)
{
	uint64_t n = mcz_cur_uv(c);
	if (min_bytes_each && n > mcz_cur_left(c) / min_bytes_each) {
		c->err = MCZ_E_CORRUPT;
		c->p = c->end;
		return 0;
	}
	return c->err ? 0 : n;
}

const uint8_t *mcz_cur_bytes(mcz_cur *c, size_t n)
{
	if (!cur_need(c, n))
		return NULL;
	const uint8_t *p = c->p;
	c->p += n;
	return p;
}

char *mcz_cur_strdup(mcz_cur *c)
{
	uint64_t n = mcz_cur_count(c, 1);
	const uint8_t *p = mcz_cur_bytes(c, (size_t)n);
	if (!p)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s) {
		c->err = MCZ_E_NOMEM;
		return NULL;
	}
	memcpy(s, p, (size_t)n);
	s[n] = 0;
	return s;
}
