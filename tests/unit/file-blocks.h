/* file-blocks.h: the blocks of a .mcz file in memory, by the byte layout of
 * SPEC.md 4, for cmocka tests that look at or damage one block (include
 * after cmocka.h and zlib.h).
 *
 *     size_t off[8];
 *     unsigned flags;
 *     size_t n = file_blocks(b, len, 14, off, 8, &flags);  // REQUIRES blocks
 *     b[off[0] + 16] = 6;                                    // its payload
 *     file_block_fix_crc(b, off[0]);                         // a good CRC again
 */
#ifndef TEST_FILE_BLOCKS_H
#define TEST_FILE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t file_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* How many blocks of the type; the first max offsets into off (may be
 * NULL), the first one's flags into *flags (may be NULL). */
static inline size_t file_blocks(const uint8_t *b, size_t len, unsigned type, size_t *off,
				 size_t max, unsigned *flags)
{
	size_t n = 0;
	for (size_t o = 20; o + 16 <= len && !memcmp(b + o, "mczB", 4);) {
		unsigned t = b[o + 4] | b[o + 5] << 8;
		if (t == type) {
			if (flags && n == 0)
				*flags = b[o + 6] | b[o + 7] << 8;
			if (off && n < max)
				off[n] = o;
			n++;
		}
		o += 20 + file_le32(b + o + 8);
	}
	return n;
}

/* The payload CRC of the block at o, made right after the payload changed. */
static inline void file_block_fix_crc(uint8_t *b, size_t o)
{
	uint32_t l = file_le32(b + o + 8), c = (uint32_t)crc32(0, b + o + 16, l);
	for (int i = 0; i < 4; i++)
		b[o + 16 + l + i] = (uint8_t)(c >> (8 * i));
}

/* A new payload length for the block at o, its header CRC made right. */
static inline void file_block_set_len(uint8_t *b, size_t o, uint32_t len)
{
	for (int i = 0; i < 4; i++)
		b[o + 8 + i] = (uint8_t)(len >> (8 * i));
	uint32_t h = (uint32_t)crc32(0, b + o, 12);
	for (int i = 0; i < 4; i++)
		b[o + 12 + i] = (uint8_t)(h >> (8 * i));
}

#endif
