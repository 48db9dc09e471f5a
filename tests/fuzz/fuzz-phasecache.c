/* fuzz-phasecache.c: libFuzzer target for the decoder of the "phases" aux
 * block (viewer/analysis/phases/phase-cache.c), whose bytes come from a file.  The key is
 * taken from the input's own first bytes half of the time so that the
 * fuzzer reaches the phase records.  The decoder is compiled in (the fuzz
 * build links only libmcz). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../viewer/analysis/phases/phase-cache.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char key[256] = "v1 auto";
	if (size > 12 && (data[0] & 1)) { /* key = the input's own key field, if it fits */
		size_t kl = (size_t)data[8] | (size_t)data[9] << 8;
		if (kl < sizeof key && 12 + kl <= size) {
			memcpy(key, data + 12, kl);
			key[kl] = '\0';
		}
	}
	struct vw_phases ph;
	memset(&ph, 0, sizeof ph);
	if (vw_phase_cache_decode(data, size, key, &ph) == 0) {
		for (size_t i = 0; i < ph.n; i++)
			if (ph.v[i].t1 <= ph.v[i].t0 || ph.v[i].cls < 0 || ph.v[i].cls >= ph.nclasses)
				abort();
		free(ph.v);
	}
	return 0;
}
