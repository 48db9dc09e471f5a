/* model-code.c: the model's door to the code profile of its files (the
 * CODE block, SPEC.md 5.6, read by libmcz): which file has one, and how its
 * times sit on the dataset's axis.  What the profile means (hot functions,
 * the code row, phase boundaries) is viewer/analysis/hotcode.c.
 */
#include "model.h"

const mcz_code *vw_model_code(vw_model *m, int64_t *offset, int *bad)
{
	if (bad)
		*bad = 0;
	for (size_t i = 0; i < m->nfiles; i++) {
		const mcz_code *c;
		int rc = mcz_code_get(m->files[i], &c);
		if (rc == MCZ_OK) {
			if (offset)
				*offset = m->offsets ? m->offsets[i] : 0;
			return c;
		}
		if (rc != MCZ_E_NOTFOUND && bad)
			*bad = 1;
	}
	return NULL;
}

void vw_model_code_drop(vw_model *m)
{
	if (m->code_cache && m->code_cache_free)
		m->code_cache_free(m->code_cache);
	m->code_cache = NULL;
	m->code_cache_free = NULL;
}
