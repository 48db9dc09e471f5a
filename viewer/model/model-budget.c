/* model-budget.c: the frame's budget.  A frame is given a few milliseconds
 * of work (vw_model_budget); the queries that decode ask before each piece
 * of it whether the time is spent (vw_model_budget_spent), answer coarsely
 * past it and set m->refining, so that the loop draws again while no key
 * waits (model-chunks.c, model-band.c).
 */
#include <time.h>

#include "model.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void vw_model_budget(vw_model *m, int ms)
{
	m->budget_end = ms > 0 ? now_ns() + (int64_t)ms * 1000000 : 0;
	m->refining = 0;
	m->budget_work = 0;
}

int vw_model_budget_spent(vw_model *m)
{
	/* The first piece of work of a frame is always done: a loaded machine
	 * could spend the budget on drawing alone, and frames that never get to
	 * the work would refine forever without progress. */
	if (!m->budget_work) {
		m->budget_work = 1;
		return 0;
	}
	return m->budget_end && now_ns() >= m->budget_end;
}
