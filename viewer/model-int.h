/* model-int.h: what the model's own files (model.c, model-rows.c,
 * model-query.c) share; views use model.h only. */
#ifndef VW_MODEL_INT_H
#define VW_MODEL_INT_H

#include "model.h"

/* model-rows.c: group streams into rows and derive the visible rows. */
int vw_model_rows_build(vw_model *m);
void vw_model_rows_free(vw_model *m);

/* model-query.c: the per-stream bucket cache. */
int vw_model_cache_init(vw_model *m);
void vw_model_cache_free(vw_model *m);

#endif
