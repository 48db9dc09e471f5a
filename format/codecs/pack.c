/* pack.c: the two packings of a sequence of 64-bit integers that the
 * column codecs choose between (SPEC.md "Packings"):
 *
 *   VARINT   each value as a LEB128 varint: small values take few bytes;
 *   SHUFFLE  a width byte w (0..8: the bytes needed by the largest value),
 *            then w planes of m bytes, plane k holding byte k of every
 *            value: the constant high bytes of noisy values become long
 *            runs that zstd removes, while the noisy low bytes stay apart.
 *
 *     mcz_pack_put(&out, MCZ_PACK_SHUFFLE, x, m);
 *     mcz_pack_get(&cur, MCZ_PACK_SHUFFLE, x, m);
 */
#include "../internal.h"

void mcz_pack_put(mcz_buf *out, int packing, const uint64_t *x, size_t m)
{
	if (packing == MCZ_PACK_VARINT) {
		for (size_t j = 0; j < m; j++)
			mcz_buf_uv(out, x[j]);
		return;
	}
	uint64_t all = 0;
	for (size_t j = 0; j < m; j++)
		all |= x[j];
	unsigned w = 0;
	while (w < 8 && (all >> (8 * w)))
		w++;
	mcz_buf_u8(out, (uint8_t)w);
	if (mcz_buf_reserve(out, w * m))
		return;
	uint8_t *p = out->p + out->len;
	for (unsigned k = 0; k < w; k++)
		for (size_t j = 0; j < m; j++)
			p[k * m + j] = (uint8_t)(x[j] >> (8 * k));
	out->len += w * m;
}

int mcz_pack_get(mcz_cur *c, int packing, uint64_t *x, size_t m)
{
	if (packing == MCZ_PACK_VARINT) {
		for (size_t j = 0; j < m && !c->err; j++)
			x[j] = mcz_cur_uv(c);
		return c->err;
	}
	unsigned w = mcz_cur_u8(c);
	/* "A width greater than 8 is invalid." */
	if (w > 8)
		return c->err = MCZ_E_CORRUPT;
	const uint8_t *p = mcz_cur_bytes(c, (size_t)w * m);
	if (!p)
		return MCZ_E_CORRUPT;
	for (size_t j = 0; j < m; j++)
		x[j] = 0;
	for (unsigned k = 0; k < w; k++)
		for (size_t j = 0; j < m; j++)
			x[j] |= (uint64_t)p[k * m + j] << (8 * k);
	return 0;
}
