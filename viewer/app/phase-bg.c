/* phase-bg.c: phase detection on a thread of its own, so that mcview answers
 * keys while a large recording's phases are found (a 36,886-stream archive:
 * 3 s; 10^9 values opened the first time: about a second).
 *
 * The thread works on a clone of the model (vw_model_clone: the same files,
 * each read by a reader of its own over the same mapped bytes), never on
 * the model being drawn, so neither needs a lock; the loop asks whether it
 * is done between frames and then takes its phases (vw_phases_adopt).  Used
 * only where detection would take long (many streams times chunks) and
 * nothing else asks for phases meanwhile: a
 * file being followed, --keys, --compare detect on the loop's thread as
 * before.  Phases found on the loop's thread meanwhile (a key that detects
 * again) win: the thread's are dropped.
 *
 *     vw_phase_bg *bg;
 *     if (vw_phase_bg_start(a, spec, &bg) == 0)
 *             ... each loop turn: if (vw_phase_bg_done(bg)) vw_phase_bg_finish(a, bg, ...);
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "../analysis/analysis.h"

/* Summaries a detection reads, about streams x (chunks + 8), past which it
 * runs on its own thread: ~60 ms of reading. */
#define BG_COST 200000

struct vw_phase_bg {
	pthread_t thread;
	vw_model *clone;
	vw_an *clone_an;     /* the clone's analyses: its phases, taken once found */
	const struct vw_phase_cli *spec;
	int rc;
	char err[256];
	atomic_int done;
};

static void *bg_run(void *arg)
{
	vw_phase_bg *b = arg;
	b->rc = vw_phase_cli_run(b->clone_an, b->spec, b->err, sizeof b->err);
	atomic_store(&b->done, 1);
	return NULL;
}

/* Would finding the phases of m take long?  Even phases the file keeps
 * (its "phases" block) are described from every stream's summaries:
 * seconds on a 36,886-stream archive. */
static int bg_worth(const vw_model *m)
{
	double cost = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		const mcz_file_info *fi = mcz_info(m->files[f]);
		/* chunks read to detect, and each phase's summaries of every
		 * stream to describe it (about 8 chunks' worth) */
		cost += (double)mcz_stream_count(m->files[f]) * (double)(fi->nchunks + 8);
	}
	return cost > BG_COST;
}

int vw_phase_bg_start(vw_app *a, const struct vw_phase_cli *spec, vw_phase_bg **out)
{
	*out = NULL;
	vw_model *m = a->m;
	if (m->live || a->an->compare || !bg_worth(m))
		return -1;
	vw_phase_bg *b = calloc(1, sizeof *b);
	char err[256];
	if (!b || vw_model_clone(m, &b->clone, err, sizeof err) != 0) {
		free(b);
		return -1;
	}
	if (!(b->clone_an = vw_an_new(b->clone))) {
		vw_model_free(b->clone);
		free(b);
		return -1;
	}
	b->spec = spec;
	atomic_init(&b->done, 0);
	if (pthread_create(&b->thread, NULL, bg_run, b) != 0) {
		vw_an_free(b->clone_an);
		vw_model_free(b->clone);
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

int vw_phase_bg_done(vw_phase_bg *b)
{
	return b && atomic_load(&b->done);
}

int vw_phase_bg_finish(vw_app *a, vw_phase_bg *b, char *err, size_t len)
{
	pthread_join(b->thread, NULL);
	int rc = 0;
	if (b->rc < 0) {
		snprintf(err, len, "%s", b->err);
		rc = -1;
	} else if (!a->an->phases && vw_phases_adopt(a->an, b->clone_an) != 0) {
		/* the rows changed meanwhile (ranks folded or not): detected
		 * again here, as before there was a thread */
		rc = vw_phase_cli_run(a->an, b->spec, err, len) < 0 ? -1 : 0;
	}
	vw_an_free(b->clone_an);
	vw_model_free(b->clone);
	free(b);
	return rc;
}

void vw_phase_bg_abandon(vw_phase_bg *b)
{
	/* mcview is ending: the thread's clone holds the files' bytes until
	 * the process is gone, and nothing waits for it */
	if (b)
		pthread_detach(b->thread);
}
