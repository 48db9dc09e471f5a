/* wait-report.c: where the waiting comes from, as `mcview --report` says
 * it (waitowner.h): a line per waiting class in the text reports, a
 * "waiting" object in their JSON; nothing where the files hold no call
 * stacks, so that a report without them reads as before. */
#include <stdlib.h>

#include "../fmt.h"
#include "../jobs/job.h"
#include "stacktab.h"
#include "waitowner.h"

/* The waiting of job j's ranks (NULL: every file) over [t0, t1). */
static int wr_of(vw_an *an, const vw_job *j, int64_t t0, int64_t t1, vw_waiting *w)
{
	vw_model *m = an->m;
	uint8_t *use = NULL;
	if (j && !vw_stacktab_has(an))
		return -1;
	if (j && !(use = calloc(m->nfiles + 1, 1)))
		return -1;
	for (size_t r = 0; j && r < j->nranks; r++)
		if (j->ranks[r].file < m->nfiles)
			use[j->ranks[r].file] = 1;
	int rc = vw_waitowner_set(an, use, SIZE_MAX, SIZE_MAX, t0, t1, w);
	free(use);
	return rc;
}

int vw_wait_report_text(vw_an *an, const vw_job *j, int64_t t0, int64_t t1, double min_share,
			const char *prefix, FILE *f)
{
	vw_waiting w;
	if (wr_of(an, j, t0, t1, &w))
		return 0;
	int n = 0;
	for (int k = VW_CC_WORK + 1; k < VW_CC_N; k++) {
		char line[600];
		if (w.cls[k].share >= min_share && vw_waitowner_line(an, &w, k, 3, 0, line, sizeof line)) {
			fprintf(f, "%s: %s\n", prefix, vw_fmt_safe(line));
			n++;
		}
	}
	vw_waitowner_free(&w);
	return n;
}

void vw_wait_report_json(vw_an *an, const vw_job *j, size_t file, int64_t t0, int64_t t1,
			 FILE *f)
{
	vw_waiting w;
	if (file != SIZE_MAX ? vw_waitowner_of(an, file, SIZE_MAX, t0, t1, &w) : wr_of(an, j, t0, t1, &w))
		return;
	fputs(", \"waiting\": ", f);
	vw_waitowner_json(an, &w, 10, f);
	vw_waitowner_free(&w);
}
