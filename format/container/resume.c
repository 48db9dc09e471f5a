/* resume.c: what a writer needs to add rows to a closed file (SPEC.md 4,
 * "Writer rules": new blocks, a new INDEX block and a new trailer after the
 * old trailer): the file's streams, every chunk's summaries (the new index
 * repeats them), each counter's last sample (the next chunk's head is a
 * delta from it), the last row's time and the version its blocks need.
 *
 *     mcz_resume rs;
 *     if (mcz_resume_load(path, &rs) == MCZ_OK) ...;  // mcz_writer_resume
 *     mcz_resume_free(&rs);
 */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "reader.h"

static int resume_fail(mcz_resume *rs, int rc)
{
	mcz_resume_free(rs);
	return rc;
}

int mcz_resume_load(const char *path, mcz_resume *rs)
{
	memset(rs, 0, sizeof *rs);
	mcz_reader *r, *v;
	/* every block's CRC first (a scan): the new index copies the old
	 * one's summaries, and a damaged file deserves mcz check, not more
	 * bytes; then the file as its index has it, blocks and all, the
	 * same chunks */
	int rc = mcz_open(&v, path, MCZ_OPEN_VERIFY);
	if (rc)
		return rc;
	int bad = v->problem[0] || v->bad_blocks || v->info.nparts;
	if ((rc = mcz_open(&r, path, 0))) {
		mcz_close(v);
		return rc;
	}
	rs->r = r;
	/* a chunk the index misplaces reads as damaged and summarises as
	 * empty: a counter's last sample would be taken from an earlier one */
	int differ = !bad && !r->info.recovered &&
		     (r->nstreams != v->nstreams || mcz_index_diff_chunks(&r->ix, &v->ix) >= 0);
	mcz_close(v);
	if (bad || r->info.recovered || r->problem[0] || r->nmembers || differ)
		return resume_fail(rs, mcz_error_set(MCZ_E_CORRUPT,
						     "%s: not a whole, closed recording (%s)", path,
						     r->problem[0]	 ? r->problem
						     : r->nmembers	 ? "a job file"
						     : r->info.recovered ? "no index"
						     : differ ? "its index does not list its chunks"
							      : "damaged blocks or PART blocks"));
	const mcz_bucket *b;
	for (uint32_t s = 0; s < r->nstreams; s++)
		if ((rc = mcz_query_sums(r, s, &b)))
			return resume_fail(rs, rc);
	rs->prev = calloc(r->nstreams + 1, sizeof *rs->prev);
	if (!rs->prev)
		return resume_fail(rs, MCZ_E_NOMEM);
	/* a counter's last sample: in the last chunk that holds one */
	for (uint32_t s = 0; s < r->nstreams; s++) {
		if (r->streams[s].kind != MCZ_COUNTER)
			continue;
		size_t ci = r->ix.nchunks;
		while (ci > 0 && r->ix.sums[s][ci - 1].count == 0)
			ci--;
		if (ci == 0)
			continue;
		if ((rc = mcz_query_decode(r, ci - 1, s)))
			return resume_fail(rs, rc);
		for (size_t i = r->cols.n; i-- > 0;)
			if (r->cols.present[i]) {
				rs->prev[s] = (mcz_codec_prev){r->cols.v[i].u, r->cols.t[i], 1};
				break;
			}
	}
	rs->last_t = r->info.t_last;
	rs->have_t = r->info.nrows > 0;
	rs->minor = r->info.version_minor;
	rs->requires = r->requires;
	rs->size = r->size;
	/* the summaries go to the writer; the reader keeps its streams */
	rs->ix = r->ix;
	rs->ix.cached_group = 0;
	memset(&r->ix, 0, sizeof r->ix);
	return MCZ_OK;
}

void mcz_resume_free(mcz_resume *rs)
{
	mcz_index_free(&rs->ix);
	free(rs->prev);
	mcz_close(rs->r);
	memset(rs, 0, sizeof *rs);
}
