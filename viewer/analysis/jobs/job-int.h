/* job-int.h: what the job modules (job.c, job-taken.c, job-report.c)
 * share and no one else uses. */
#ifndef VW_JOB_INT_H
#define VW_JOB_INT_H

#include "job.h"

struct vw_model;

/* For each host of j, over [t0, t1): the node's busy CPU time against the
 * job's and each rank's time taken by other processes, c[r].taken_s (the
 * cells' cpu_s and off_s set; NaN where unknown), into hl[0 .. nhosts). */
void job_taken_phase(struct vw_model *m, const vw_job *j, vw_job_cell *c, int64_t t0,
		     int64_t t1, vw_job_load *hl);

#endif
