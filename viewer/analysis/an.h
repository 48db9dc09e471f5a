/* an.h: what the analyses keep of one model — its phases, its jobs, the
 * tables they build from the code profile, the call stacks and the
 * streams' roofline work, and with mcview --compare the comparison beside
 * it.  The model holds data only; the app holds a vw_an beside its model
 * and passes it to the analyses and views that use these (a view gets it
 * in its vw_ctx, view.h).  Each analysis builds its part on first use
 * and says here how it is freed.
 *
 *     vw_an *an = vw_an_new(m);
 *     vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err); // sets an->phases
 *     for (size_t i = 0; i < vw_phases_count(an->phases); i++) ...
 *     vw_an_free(an);                                  // m stays
 */
#ifndef VW_AN_H
#define VW_AN_H

struct vw_model;
struct vw_phases;
struct vw_jobs;
struct vw_compare;

typedef struct vw_an {
	struct vw_model *m;          /* the model these are of */
	/* phases (phases/phase.h), NULL until detected */
	struct vw_phases *phases;
	/* rank files of parallel jobs (jobs/job.h), NULL until built */
	struct vw_jobs *jobs;
	/* mcview --compare: this model is run A's first file; the comparison
	 * (compare/compare.h) and run B's first file, which the timeline
	 * overlays, are the app's; NULL otherwise */
	struct vw_compare *compare;
	struct vw_model *compare_b;
	/* The hot-code tables built from the code profile (code/hotcode.c),
	 * and how they are freed: dropped when a followed file changes (the
	 * profile they point into is the reader's). */
	void *code_cache;
	void (*code_cache_free)(void *);
	/* The call stacks' tables (code/stacktab.c: each frame's class,
	 * names and owner), kept and dropped as the code tables are. */
	void *stack_cache;
	void (*stack_cache_free)(void *);
	/* Which streams count work for the roofline, classified once
	 * (roofline/roofline-work.c: matching tens of thousands of streams
	 * again for every phase took seconds), dropped as the code tables are. */
	void *roof_cache;
	void (*roof_cache_free)(void *);
} vw_an;

/* The analyses of m, none done yet: NULL out of memory. */
vw_an *vw_an_new(struct vw_model *m);
/* Everything they kept (not m, not the comparison), and an itself. */
void vw_an_free(vw_an *an);
/* Drop the tables of the code profile, the call stacks and the streams'
 * roofline work: the files' data changed under them (vw_model_follow read
 * on); the phases and jobs stay. */
void vw_an_code_drop(vw_an *an);

#endif
