/* gorilla-size.c: the size of a recording's values under a Gorilla-style
 * encoding (Pelkonen et al., VLDB 2015): per series, timestamps as
 * delta-of-delta in variable bit buckets and values XORed with the previous
 * one, storing only the meaningful bits.  Used by bench-storage.sh as the
 * reference time-series encoding.  Values are taken as their 64-bit
 * patterns (integers as integers, floats as IEEE bits), so the encoding is
 * lossless like mcz's; timestamps are in nanoseconds, so the widest
 * delta-of-delta bucket holds 64 bits instead of Gorilla's 32 (seconds).
 * Prints "values N bytes B".
 *
 *   gorilla-size FILE.mcz
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../format/mcz.h"

static uint64_t gorilla_bits;

static void gorilla_time(int64_t dod)
{
	if (dod == 0)
		gorilla_bits += 1;
	else if (dod >= -63 && dod <= 64)
		gorilla_bits += 2 + 7;
	else if (dod >= -255 && dod <= 256)
		gorilla_bits += 3 + 9;
	else if (dod >= -2047 && dod <= 2048)
		gorilla_bits += 4 + 12;
	else if (dod >= -2147483647LL && dod <= 2147483648LL)
		gorilla_bits += 4 + 32;
	else
		gorilla_bits += 5 + 64;
}

int main(int argc, char **argv)
{
	mcz_reader *r;
	if (argc != 2 || mcz_open(&r, argv[1], 0)) {
		fprintf(stderr, "usage: gorilla-size FILE.mcz (a readable file)\n");
		return 2;
	}
	const mcz_file_info *fi = mcz_info(r);
	uint64_t values = 0;
	for (size_t s = 0; s < mcz_stream_count(r); s++) {
		mcz_series ser;
		if (mcz_read(r, (uint32_t)s, fi->t_first, fi->t_last + 1, &ser))
			return 1;
		int64_t pt = 0, pd = 0;
		uint64_t pv = 0;
		int lead = -1, trail = 0;
		size_t k = 0;
		for (size_t i = 0; i < ser.n; i++) {
			if (!ser.present[i])
				continue;
			values++;
			uint64_t v = ser.v[i].u;
			if (k == 0) {
				gorilla_bits += 64 + 64; /* first time and value in full */
			} else {
				int64_t d = ser.t[i] - pt;
				gorilla_time(k == 1 ? d : d - pd);
				pd = d;
				uint64_t x = v ^ pv;
				if (x == 0) {
					gorilla_bits += 1;
				} else {
					int l = __builtin_clzll(x), t = __builtin_ctzll(x);
					if (l > 31)
						l = 31; /* 5 bits of leading zeros */
					if (lead >= 0 && l >= lead && t >= trail) {
						gorilla_bits += 2 + (uint64_t)(64 - lead - trail);
					} else {
						gorilla_bits += 2 + 5 + 6 + (uint64_t)(64 - l - t);
						lead = l;
						trail = t;
					}
				}
			}
			pt = ser.t[i];
			pv = v;
			k++;
		}
		mcz_series_free(&ser);
	}
	printf("values %llu bytes %llu\n", (unsigned long long)values,
	       (unsigned long long)((gorilla_bits + 7) / 8));
	mcz_close(r);
	return 0;
}
