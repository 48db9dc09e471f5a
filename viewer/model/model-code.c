/* model-code.c: the model's door to the code profiles of its files (the
 * CODE block, SPEC.md 5.6, read by libmcz): each file's, and how its times
 * sit on the dataset's axis.  What the profile means (hot functions,
 * the code row, phase boundaries) is viewer/analysis/code/hotcode.c.
 */
#include "model.h"

const mcz_code *vw_model_code_at(vw_model *m, size_t i, int64_t *offset)
{
	const mcz_code *c;
	if (i >= m->nfiles || mcz_code_get(m->files[i], &c) != MCZ_OK)
		return NULL;
	if (offset)
		*offset = m->offsets ? m->offsets[i] : 0;
	return c;
}
