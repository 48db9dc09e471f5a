/* code-get.c: a file's code profile as readers get it (mcz_code_get,
 * mcz.h): the CODE block with its CODETHREADS and CODESTACKS blocks, or,
 * where a recorder was killed before its CODE block, the CODEPART blocks
 * merged (code-part.c).  Decoded once per reader and kept; a damaged
 * CODETHREADS or CODESTACKS block loses only what it holds.
 */
#include "../container/reader.h"

int mcz_code_get(mcz_reader *r, const mcz_code **c)
{
	*c = NULL;
	if (!r)
		return MCZ_E_ARG;
	if (!r->code_p && !r->nparts_code)
		return MCZ_E_NOTFOUND;
	if (r->code_stale) {
		mcz_code_free(r->code);
		r->code = NULL;
		r->code_bad = r->code_stale = 0;
	}
	if (!r->code && !r->code_bad) {
		int rc = r->code_p ? mcz_code_decode(r->code_p, r->code_len, &r->code)
				   : mcz_code_part_profile(r, &r->code);
		/* a bad CODETHREADS block loses the split by thread alone */
		if (!rc && r->code_p && r->thr_p)
			mcz_code_decode_threads(r->code, r->thr_p, r->thr_len);
		/* and a bad CODESTACKS block the stacks alone */
		if (!rc && r->code_p && r->stk_p)
			mcz_code_decode_stacks(r->code, r->stk_p, r->stk_len);
		if (rc) {
			r->code_bad = rc;
			return rc;
		}
	}
	if (r->code_bad)
		return r->code_bad;
	*c = r->code;
	return MCZ_OK;
}
