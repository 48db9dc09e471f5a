/* phases.c: the door to a model's phases — detect (or take from marks, or
 * from the user's cache), then the accessors, selection, n/p stepping and
 * zoom every view uses.  The work is in phase-model.c (streams, coarse level,
 * refinement, marks), phase-desc.c (figures, descriptions) and
 * phase-cache.c (the cache's bytes; kept in the user's cache folder,
 * format/cache/cachedir.c, never in the recording).
 *
 *     vw_phase_params p = VW_PHASE_PARAMS_INIT;
 *     if (vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err) != 0) ...
 *     vw_phases_step(an, +1);             // n
 *     vw_phases_zoom(an, m->phase_sel);   // Enter
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/model.h"
#include "../an.h"
#include "phase-int.h"

static int phase_err(char *err, size_t len, const char *msg)
{
	if (err && len)
		snprintf(err, len, "%s", msg);
	return -1;
}

void vw_phases_free(struct vw_phases *ph)
{
	if (!ph)
		return;
	vw_phase_prep_free(ph->prep);
	vw_phase_model_fine_free(ph->fine);
	free(ph->v);
	free(ph);
}

int vw_phases_adopt(vw_an *an, vw_an *from)
{
	vw_model *m = an->m, *fm = from->m;
	if (!from->phases || fm->fold_ranks != m->fold_ranks || fm->nstreams != m->nstreams ||
	    fm->ngroups != m->ngroups)
		return -1;
	vw_phases_free(an->phases);
	an->phases = from->phases;
	from->phases = NULL;
	vw_phase_model_fine_rebind(an->phases->fine, an);
	m->phase_sel = -1;
	return 0;
}

size_t vw_phases_count(const struct vw_phases *ph)
{
	return ph ? ph->n : 0;
}

const vw_phase *vw_phases_at(const struct vw_phases *ph, size_t i)
{
	return ph && i < ph->n ? &ph->v[i] : NULL;
}

int vw_phases_find(const struct vw_phases *ph, int64_t t)
{
	size_t lo = 0, hi = vw_phases_count(ph);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ph->v[mid].t1 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < vw_phases_count(ph) && ph->v[lo].t0 <= t ? (int)lo : -1;
}

int vw_phases_color(int cls)
{
	return cls < 0 ? 0 : cls % 8;
}

int vw_phases_app_regions(const vw_model *m)
{
	int regions = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		if (!mcz_meta(m->files[f], "regions.kokkos"))
			return 0;
	for (size_t i = 0; i < m->nmarks && !regions; i++)
		regions = m->marks[i].kind == MCZ_MARK_BEGIN;
	return regions;
}

/* ---- the door ----------------------------------------------------------------------- */

/* The marks in each phase (the first named one after its start: a mark
 * outside a phase says nothing of it), figures (those of an unchanged
 * phase of the previous detection, old[0..nold), are kept: re-detection is
 * then mostly the detector's few milliseconds), descriptions. */
static void phase_finish_all(vw_an *an, struct vw_phases *ph, const vw_phase *old, size_t nold)
{
	vw_model *m = an->m;
	for (size_t i = 0, o = 0; i < ph->n; i++) {
		vw_phase *p = &ph->v[i];
		p->mark_dt = INT64_MAX;
		for (size_t k = 0; ph->source == VW_PHASES_AUTO && k < m->nmarks; k++) {
			int64_t t = m->marks[k].t, d = t - p->t0;
			if (t >= p->t0 && t < p->t1 && d < p->mark_dt && m->marks[k].text &&
			    m->marks[k].text[0])
				p->mark_dt = d; /* named marks only: an END has no text */
		}
		while (o < nold && old[o].t0 < p->t0)
			o++;
		if (o < nold && old[o].t0 == p->t0 && old[o].t1 == p->t1)
			p->st = old[o].st;
		else
			vw_phase_stats_compute(an, p);
	}
	vw_phase_describe(an, ph->v, ph->n);
}

/* The phases of one file under one set of parameters live in the user's
 * cache folder (format/cache/cachedir.c), named by a hash of the file's identity
 * (device, inode, size, mtime) and the key; the blob repeats the identity
 * and the key, both checked before it is trusted.  Never in the file:
 * readers do not write. */
static int phase_cache_name(const vw_model *m, const char *key, char *id, size_t idlen,
			    char *name, size_t namelen)
{
	const char *env = getenv("MCVIEW_PHASE_CACHE");
	if (m->nfiles != 1 || (env && !strcmp(env, "0")))
		return -1;
	/* a PCP source converted on open, a job file's member, a file still
	 * being written: no identity that says its phases are still these */
	if (m->imported[0] || mcz_info(m->files[0])->recovered)
		return -1;
	char fid[200];
	if (mcz_cachedir_identity(m->paths[0], fid, sizeof fid) != MCZ_OK)
		return -1;
	snprintf(id, idlen, "%s %s", fid, key);
	uint64_t h = 1469598103934665603ull;
	for (const char *c = id; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	snprintf(name, namelen, "phases-%016llx", (unsigned long long)h);
	return 0;
}

static int phase_cache_load(vw_model *m, struct vw_phases *ph, const char *key)
{
	char id[512], name[64];
	const void *data;
	size_t len;
	if (phase_cache_name(m, key, id, sizeof id, name, sizeof name) == 0) {
		void *buf;
		int rc = mcz_cachedir_load(name, &buf, &len);
		if (rc == MCZ_OK) {
			rc = vw_phase_cache_decode(buf, len, id, ph);
			free(buf);
			if (rc == 0)
				return 0;
		}
	}
	/* files of earlier versions may hold them in an aux block: read only */
	const char *env = getenv("MCVIEW_PHASE_CACHE");
	if (m->nfiles != 1 || (env && !strcmp(env, "0")) ||
	    mcz_aux(m->files[0], "phases", &data, &len) != MCZ_OK)
		return -1;
	return vw_phase_cache_decode(data, len, key, ph);
}

/* Costs nothing but the cache when it cannot be written (no home, a
 * read-only folder, a full disk): said nowhere. */
static void phase_cache_store(vw_model *m, struct vw_phases *ph, const char *key)
{
	char id[512], name[64];
	unsigned char *buf;
	size_t len;
	if (vw_model_damage(m) || phase_cache_name(m, key, id, sizeof id, name, sizeof name))
		return;
	if (vw_phase_cache_encode(ph, id, &buf, &len) == 0) {
		mcz_cachedir_store(name, buf, len);
		free(buf);
	}
}

int vw_phases_detect(vw_an *an, const vw_phase_params *p, int source, char *err, size_t errlen)
{
	vw_model *m = an->m;
	vw_phase_params par = VW_PHASE_PARAMS_INIT;
	if (p)
		par = *p;
	struct vw_phases *ph = an->phases;
	par.streams[sizeof par.streams - 1] = '\0';
	int reuse = ph && ph->prep && source == VW_PHASES_AUTO && ph->source == VW_PHASES_AUTO &&
		    !strcmp(ph->params.streams, par.streams);
	if (!reuse) {
		ph = calloc(1, sizeof *ph);
		if (!ph)
			return phase_err(err, errlen, "out of memory");
	}
	ph->params = par;
	ph->source = source;
	ph->from_cache = 0;
	char key[256];
	vw_phase_cache_key(m, &par, source, key, sizeof key);
	int rc = 0;
	vw_phase *old = NULL;
	size_t nold = 0;
	if (source == VW_PHASES_MARKS) {
		if (!m->nmarks) {
			vw_phases_free(ph);
			return phase_err(err, errlen, "the recording has no marks (use --phases auto)");
		}
		rc = vw_phase_model_marks(m, ph);
	} else if (!reuse && phase_cache_load(m, ph, key) == 0) {
		ph->from_cache = 1;
	} else if (!reuse) {
		rc = vw_phase_model_prepare(an, ph);
		if (rc == 0)
			rc = vw_phase_model_run(an, ph);
		if (rc == 0)
			phase_cache_store(m, ph, key);
	} else { /* a parameter changed: the file's cache stays for the options given */
		old = malloc((ph->n + 1) * sizeof *old);
		if (old) {
			memcpy(old, ph->v, ph->n * sizeof *old);
			nold = ph->n;
		}
		rc = vw_phase_model_run(an, ph);
	}
	if (rc) {
		free(old);
		if (ph != an->phases)
			vw_phases_free(ph);
		return phase_err(err, errlen, "out of memory detecting phases");
	}
	phase_finish_all(an, ph, old, nold);
	free(old);
	if (ph != an->phases)
		vw_phases_free(an->phases);
	an->phases = ph;
	m->phase_sel = -1;
	return 0;
}

/* A recording that grew (mcview following a file being written): detect
 * again on all that is there, then keep every phase that had already ended
 * as it was — its boundaries, class and figures — and take the new
 * detection only from the start of the last, still open, phase on.  So old
 * boundaries never jump as data arrives; the open phase may be cut. */
int vw_phases_extend(vw_an *an, char *err, size_t errlen)
{
	vw_model *m = an->m;
	struct vw_phases *cur = an->phases;
	if (!cur || cur->n == 0)
		return 0;
	vw_phase_params par = cur->params;
	int source = cur->source;
	size_t keep = cur->n - 1;
	int64_t cut = cur->v[keep].t0;
	vw_phase *old = malloc(cur->n * sizeof *old);
	if (!old)
		return phase_err(err, errlen, "out of memory");
	memcpy(old, cur->v, cur->n * sizeof *old);
	int sel = m->phase_sel;
	/* a fresh detection: the kept coarse level describes the shorter run */
	vw_phases_free(cur);
	an->phases = NULL;
	if (vw_phases_detect(an, &par, source, err, errlen) != 0) {
		free(old);
		return -1;
	}
	struct vw_phases *ph = an->phases;
	size_t first = 0;
	while (first < ph->n && ph->v[first].t1 <= cut)
		first++;
	size_t n = keep + (ph->n - first);
	vw_phase *v = malloc((n ? n : 1) * sizeof *v);
	if (!v) {
		free(old);
		return phase_err(err, errlen, "out of memory");
	}
	memcpy(v, old, keep * sizeof *v);
	memcpy(v + keep, ph->v + first, (ph->n - first) * sizeof *v);
	if (first < ph->n && v[keep].t0 != cut) {
		v[keep].t0 = cut;
		v[keep].gain = old[keep].gain;
		vw_phase_stats_compute(an, &v[keep]);
	}
	int ncls = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].cls + 1 > ncls)
			ncls = v[i].cls + 1;
	free(ph->v);
	ph->v = v;
	ph->n = n;
	ph->nclasses = ncls;
	vw_phase_describe(an, ph->v, ph->n);
	m->phase_sel = sel < (int)n ? sel : -1;
	free(old);
	return 0;
}

/* ---- navigation ------------------------------------------------------------------- */

void vw_phases_select(vw_an *an, int i)
{
	vw_model *m = an->m;
	size_t n = vw_phases_count(an->phases);
	if (!n)
		return;
	i = i < 0 ? 0 : (size_t)i >= n ? (int)n - 1 : i;
	m->phase_sel = i;
	const vw_phase *p = &an->phases->v[i];
	if (p->t0 < m->t0 || p->t0 >= m->t1) { /* bring it into the window, same width */
		int64_t w = m->t1 - m->t0;
		vw_model_set_window(m, p->t0 - w / 10, p->t0 - w / 10 + w);
	}
	m->cursor = p->t0 < m->t0 ? m->t0 : p->t0 >= m->t1 ? m->t1 - 1 : p->t0;
}

int vw_phases_step(vw_an *an, int dir)
{
	vw_model *m = an->m;
	size_t n = vw_phases_count(an->phases);
	if (!n)
		return 0;
	int cur = m->phase_sel;
	if (cur < 0) {
		cur = vw_phases_find(an->phases, m->cursor);
		if (cur < 0)
			cur = dir > 0 ? -1 : (int)n;
		else if (dir < 0 && an->phases->v[cur].t0 < m->cursor)
			cur++; /* p: the start of the phase the cursor is in */
	}
	int next = cur + (dir > 0 ? 1 : -1);
	if (next < 0 || (size_t)next >= n)
		return 0;
	vw_phases_select(an, next);
	return 1;
}

void vw_phases_zoom(vw_an *an, int i)
{
	vw_model *m = an->m;
	const vw_phase *p = vw_phases_at(an->phases, i < 0 ? 0 : (size_t)i);
	if (!p)
		return;
	int64_t margin = (p->t1 - p->t0) / 20;
	m->phase_sel = i;
	vw_model_set_window(m, p->t0 - margin, p->t1 + margin);
	m->cursor = p->t0 < m->t0 ? m->t0 : p->t0;
}

double vw_phases_stream_mean(vw_an *an, size_t i, size_t stream)
{
	vw_model *m = an->m;
	const vw_phase *p = vw_phases_at(an->phases, i);
	vw_bucket b;
	if (!p || vw_model_stream_buckets(m, stream, p->t0, p->t1, 1, &b) != 0 || !b.count)
		return NAN;
	return b.mean;
}
