/* model-int.h: what the model's own files (model.c, model-rows.c,
 * model-query.c) share; views use model.h only. */
#ifndef VW_MODEL_INT_H
#define VW_MODEL_INT_H

#include "model.h"

/* model-rows.c: group streams into rows and derive the visible rows. */
int vw_model_rows_build(vw_model *m);
void vw_model_rows_free(vw_model *m);

/* model-activity.c: the next batch of streams' activity (from *next, which
 * moves past them) into act[], from the files' chunk summaries (nothing
 * decoded); returns 1 once every stream has its score.  The cost of all,
 * in chunk summaries read. */
int vw_model_activity_step(vw_model *m, double *act, size_t *next);
size_t vw_model_activity_cost(const vw_model *m);

/* model-query.c: the per-stream bucket cache. */
int vw_model_cache_init(vw_model *m);
/* Forget one stream's kept columns (a group member, once in its band). */
void vw_model_stream_cache_drop(vw_model *m, size_t stream);
/* Bytes of raw samples and last columns kept (model-chunks.c), within
 * m->keep_budget (or 96 MiB) but for the stream last read. */
size_t vw_model_kept_bytes(const vw_model *m);
/* Would every stream's chunk summaries of r take more than m->sums_large
 * (or 128 MiB)?  Then the model keeps its own copies (model-chunks.c:
 * compact where a stream was read at every row, vw_model_sums_bytes of
 * them) and the reader gives its own back. */
int vw_model_sums_large(const vw_model *m, const mcz_reader *r);
size_t vw_model_sums_bytes(const vw_model *m);
void vw_model_cache_free(vw_model *m);

/* model-query.c: *p holds at least n items of size bytes (*cap of them);
 * 0, or -1 out of memory (*p unchanged). */
int vw_model_grow(void **p, size_t *cap, size_t n, size_t size);

/* model-query.c: a file's bucket in display units (see model.h). */
void vw_model_bucket_convert(const mcz_stream_desc *d, const mcz_bucket *in, vw_bucket *out);

/* model-chunks.c: values of a stream over the window in n columns, for
 * drawing: exact, or to chunk resolution where exact would decode many
 * chunks. */
int vw_model_display_buckets(vw_model *m, size_t stream, size_t n, vw_bucket *out);
/* The same, saying VW_COARSE where the columns are to chunk resolution for
 * want of budget (drawn, not kept: the next frame refines them). */
#define VW_COARSE (VW_PENDING + 1)
int vw_model_display_columns(vw_model *m, size_t stream, size_t n, vw_bucket *out);
/* The same when already computed for this window, without a copy (NULL
 * otherwise): a group of thousands of members (the ranks of a job) reads
 * them in place. */
const vw_bucket *vw_model_display_cached(vw_model *m, size_t stream, size_t n);
/* Whether the stream's columns of the window are mcz_summary's, as they
 * are (no samples decoded and kept, no chunk summaries merged): those a
 * prefetch reads for many streams in one pass.  The same answer for every
 * stream of one file (it depends on the file's chunks and the window). */
int vw_model_summary_columns(const vw_model *m, size_t stream);
/* Whether the stream holds no sample in the window, by its chunks'
 * summaries once read (1; 0 when it does, or they are not read yet): a
 * group's member that adds nothing to the band, read no further. */
int vw_model_window_empty(vw_model *m, size_t stream);
/* Whether vw_model_fill_gaps would change this stream's n columns. */
int vw_model_needs_fill(const vw_model *m, size_t stream, size_t n);
void vw_model_chunks_free(vw_model *m);

/* model-band.c: a group row's columns (see vw_model_row_buckets), kept
 * per group row for the window and built across frames within the budget:
 * 0, VW_PENDING or -1.  vw_model_band_ready: kept for this window. */
int vw_model_band_buckets(vw_model *m, const vw_row *r, size_t n, vw_bucket *out);
int vw_model_band_ready(vw_model *m, const vw_row *r, size_t n);
/* How many of r's members are combined into its band of this window so
 * far (all of them when it is ready; 0 when none is begun). */
size_t vw_model_band_done(const vw_model *m, const vw_row *r, size_t n);
void vw_model_bands_free(vw_model *m);

#endif
