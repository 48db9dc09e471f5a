/* an.c: the analyses' state of one model (an.h): made empty, its tables
 * of the code dropped when the files grow, all of it freed. */
#include <stdlib.h>

#include "an.h"
#include "jobs/job.h"
#include "phases/phase.h"

vw_an *vw_an_new(struct vw_model *m)
{
	vw_an *an = calloc(1, sizeof *an);
	if (an)
		an->m = m;
	return an;
}

void vw_an_code_drop(vw_an *an)
{
	if (an->code_cache && an->code_cache_free)
		an->code_cache_free(an->code_cache);
	an->code_cache = NULL;
	an->code_cache_free = NULL;
	if (an->stack_cache && an->stack_cache_free)
		an->stack_cache_free(an->stack_cache);
	an->stack_cache = NULL;
	an->stack_cache_free = NULL;
	if (an->roof_cache && an->roof_cache_free)
		an->roof_cache_free(an->roof_cache);
	an->roof_cache = NULL;
	an->roof_cache_free = NULL;
}

void vw_an_free(vw_an *an)
{
	if (!an)
		return;
	vw_phases_free(an->phases);
	vw_jobs_free(an->jobs);
	vw_an_code_drop(an);
	free(an);
}
