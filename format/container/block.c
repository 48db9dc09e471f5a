/* block.c: the file header, block framing and trailer (SPEC.md "File
 * header", "Blocks", "Trailer").
 *
 * A block is a 16-byte header (sync "mczB", type, flags, payload length,
 * header CRC), the payload, and a CRC-32 of the payload.  The CRC is zlib's
 * crc32 (the ISO-HDLC polynomial) so that any reader can check it with a
 * library it already has.
 *
 *     mcz_block_frame(&out, MCZ_BT_META, 0, payload, len);
 *     if (mcz_block_parse(p, avail, &h) == 0 && mcz_block_verify(p, &h) == 0) ...
 */
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "../internal.h"

uint32_t mcz_block_crc(const void *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const uint8_t *b = p;
	while (n > 0) { /* zlib takes uInt lengths */
		uInt step = n > 1u << 30 ? 1u << 30 : (uInt)n;
		c = crc32(c, b, step);
		b += step;
		n -= step;
	}
	return (uint32_t)c;
}

void mcz_block_header(uint8_t out[MCZ_HEADER_SIZE], uint16_t minor)
{
	memcpy(out, MCZ_MAGIC, 8);
	out[8] = MCZ_VERSION_MAJOR & 0xff;
	out[9] = MCZ_VERSION_MAJOR >> 8;
	out[10] = (uint8_t)minor;
	out[11] = (uint8_t)(minor >> 8);
	mcz_buf_le32(out + 12, 0);
	mcz_buf_le32(out + 16, mcz_block_crc(out, 16));
}

int mcz_block_check_header(const uint8_t *p, size_t avail, uint16_t *major, uint16_t *minor)
{
	if (avail < 8 || memcmp(p, MCZ_MAGIC, 8) != 0)
		return mcz_error_set(MCZ_E_NOTMCZ, "no mcz magic bytes at offset 0");
	if (avail < MCZ_HEADER_SIZE)
		return mcz_error_set(MCZ_E_TRUNCATED, "file ends inside the %d-byte header",
				     MCZ_HEADER_SIZE);
	*major = (uint16_t)(p[8] | p[9] << 8);
	*minor = (uint16_t)(p[10] | p[11] << 8);
	/* "A reader refuses a file whose major version is greater than its
	 * own, before looking at anything else in it." */
	if (*major > MCZ_VERSION_MAJOR)
		return mcz_error_set(MCZ_E_VERSION, "file is version %u.%u; this mcz reads %d.x",
				     *major, *minor, MCZ_VERSION_MAJOR);
	if (*major < 1)
		return mcz_error_set(MCZ_E_VERSION, "file is version %u.%u; this mcz reads %d.x",
				     *major, *minor, MCZ_VERSION_MAJOR);
	if (mcz_cur_le32(p + 16) != mcz_block_crc(p, 16))
		return mcz_error_set(MCZ_E_CORRUPT, "file header: CRC mismatch");
	if (mcz_cur_le32(p + 12) != 0)
		return mcz_error_set(MCZ_E_CORRUPT, "file header: reserved flags are not zero");
	return 0;
}

void mcz_block_frame(mcz_buf *out, uint16_t type, uint16_t flags, const void *payload,
		     size_t len)
{
	uint8_t h[MCZ_BLOCK_HDR];
	if (len > MCZ_BLOCK_MAX_PAYLOAD) {
		out->err = MCZ_E_ARG;
		return;
	}
	memcpy(h, MCZ_BLOCK_SYNC, 4);
	h[4] = (uint8_t)type;
	h[5] = (uint8_t)(type >> 8);
	h[6] = (uint8_t)flags;
	h[7] = (uint8_t)(flags >> 8);
	mcz_buf_le32(h + 8, (uint32_t)len);
	mcz_buf_le32(h + 12, mcz_block_crc(h, 12));
	mcz_buf_put(out, h, sizeof h);
	mcz_buf_put(out, payload, len);
	mcz_buf_u32(out, mcz_block_crc(payload, len));
}

int mcz_block_parse(const uint8_t *p, size_t avail, mcz_block_hdr *h)
{
	if (avail < MCZ_BLOCK_HDR)
		return MCZ_E_TRUNCATED;
	if (memcmp(p, MCZ_BLOCK_SYNC, 4) != 0)
		return MCZ_E_CORRUPT;
	if (mcz_cur_le32(p + 12) != mcz_block_crc(p, 12))
		return MCZ_E_CORRUPT;
	h->type = (uint16_t)(p[4] | p[5] << 8);
	h->flags = (uint16_t)(p[6] | p[7] << 8);
	h->len = mcz_cur_le32(p + 8);
	/* "Reserved bits must be zero; a reader rejects a block that sets one." */
	if ((h->flags & MCZ_BF_RESERVED) || h->len > MCZ_BLOCK_MAX_PAYLOAD)
		return MCZ_E_CORRUPT;
	if ((uint64_t)h->len + MCZ_BLOCK_OVERHEAD > avail)
		return MCZ_E_TRUNCATED;
	return 0;
}

int mcz_block_verify(const uint8_t *p, const mcz_block_hdr *h)
{
	const uint8_t *payload = p + MCZ_BLOCK_HDR;
	if (mcz_cur_le32(payload + h->len) != mcz_block_crc(payload, h->len))
		return MCZ_E_CORRUPT;
	return 0;
}

void mcz_block_trailer(uint8_t out[MCZ_TRAILER_SIZE], uint64_t index_off)
{
	mcz_buf_le64(out, index_off);
	mcz_buf_le32(out + 8, 0);
	mcz_buf_le32(out + 12, mcz_block_crc(out, 12));
	memcpy(out + 16, MCZ_TRAILER_MAGIC, 8);
}

int mcz_block_parse_trailer(const uint8_t *p, uint64_t *index_off)
{
	if (memcmp(p + 16, MCZ_TRAILER_MAGIC, 8) != 0)
		return MCZ_E_CORRUPT;
	if (mcz_cur_le32(p + 12) != mcz_block_crc(p, 12) || mcz_cur_le32(p + 8) != 0)
		return MCZ_E_CORRUPT;
	*index_off = mcz_cur_le64(p);
	return 0;
}

int mcz_block_small(uint16_t type)
{
	return type == MCZ_BT_META || type == MCZ_BT_TOPO || type == MCZ_BT_STREAMS ||
	       type == MCZ_BT_MARKS || type == MCZ_BT_COLSTREAMS;
}

int mcz_pack_level(const mcz_codec_ctx *cx)
{
	return cx->thorough ? MCZ_PACK_BATCH : 19;
}

int mcz_meta_level(const mcz_codec_ctx *cx, size_t len)
{
	if (cx->quick)
		return cx->level;
	int pl = mcz_pack_level(cx);
	if (cx->thorough && len < MCZ_PACK_SMALL_BYTES)
		return MCZ_PACK_SMALL;
	/* a batch writer's descriptors of 512 KiB and more at its own level:
	 * at that size the packing level saves a few bytes for the longest
	 * pass of the metadata (over pcp-testsuite, two archives of 195 grow
	 * by a fraction of a percent; from 256 KiB on, one grows by more) */
	if (cx->thorough && len >= (512u << 10) && cx->level < pl)
		return cx->level;
	return cx->thorough || cx->level > pl || len >= (32u << 10) ? pl : cx->level;
}

int mcz_block_pack(mcz_codec_ctx *cx, const mcz_buf *body, mcz_buf *out)
{
	return mcz_block_pack_at(cx, body, out, mcz_meta_level(cx, body->len));
}

int mcz_block_pack_at(mcz_codec_ctx *cx, const mcz_buf *body, mcz_buf *out, int level)
{
	out->len = 0;
	if (body->err)
		return body->err;
	size_t bound = ZSTD_compressBound(body->len);
	if (!cx->zc && !(cx->zc = ZSTD_createCCtx()))
		return MCZ_E_NOMEM;
	if (mcz_buf_reserve(out, 12 + bound))
		return MCZ_E_NOMEM;
	mcz_buf_u8(out, 1);
	mcz_buf_uv(out, body->len);
	size_t z = ZSTD_compressCCtx(cx->zc, out->p + out->len, out->cap - out->len, body->p,
				     body->len, level);
	if (!ZSTD_isError(z) && z + out->len < body->len + 1) {
		out->len += z;
		return 0;
	}
	out->len = 0;
	mcz_buf_u8(out, 0);
	mcz_buf_put(out, body->p, body->len);
	return out->err;
}

int mcz_block_unpack(mcz_codec_ctx *cx, const uint8_t *p, size_t len, mcz_buf *tmp,
		     const uint8_t **body, size_t *blen)
{
	return mcz_block_unpack_as(cx, p, len, tmp, body, blen, 1);
}

int mcz_block_unpack_as(mcz_codec_ctx *cx, const uint8_t *p, size_t len, mcz_buf *tmp,
			const uint8_t **body, size_t *blen, int max_packing)
{
	mcz_cur c = mcz_cur_make(p, len);
	uint8_t packing = mcz_cur_u8(&c);
	/* "Packing values above 1 are invalid" (above 2 in a BUNDLE) */
	if (c.err || packing > max_packing)
		return MCZ_E_CORRUPT;
	if (packing == 0) {
		*body = c.p;
		*blen = mcz_cur_left(&c);
		return 0;
	}
	uint64_t rl = mcz_cur_uv(&c);
	size_t cl = mcz_cur_left(&c);
	/* "A packed body may not be longer than 256 times its compressed size
	 * plus 65536 bytes." */
	if (c.err || rl > 256 * (uint64_t)cl + 65536)
		return MCZ_E_CORRUPT;
	if (ZSTD_getFrameContentSize(c.p, cl) != rl || ZSTD_getDictID_fromFrame(c.p, cl) != 0)
		return MCZ_E_CORRUPT;
	if (!(cx->zd = mcz_codec_dctx()))
		return MCZ_E_NOMEM;
	tmp->len = 0;
	if (mcz_buf_reserve(tmp, (size_t)rl + 1))
		return MCZ_E_NOMEM;
	/* packing 2 (BUNDLE, since 1.4): the frame was compressed against the
	 * built-in dictionary 1 */
	size_t dl = 0;
	const uint8_t *d = packing == 2 ? mcz_mdict(&dl) : NULL;
	size_t z = ZSTD_decompress_usingDict(cx->zd, tmp->p, (size_t)rl, c.p, cl, d, dl);
	if (ZSTD_isError(z) || z != rl)
		return MCZ_E_CORRUPT;
	*body = tmp->p;
	*blen = (size_t)rl;
	return 0;
}
