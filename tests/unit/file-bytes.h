/* file-bytes.h: a whole file read into memory for a cmocka test, which
 * fails if it cannot be read (include after cmocka.h).
 *
 *     size_t len;
 *     uint8_t *b = file_bytes(path, &len);   // free(b) after
 */
#ifndef TEST_FILE_BYTES_H
#define TEST_FILE_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(*len ? *len : 1);
	assert_int_equal(fread(b, 1, *len, f), *len);
	fclose(f);
	return b;
}

#endif
