/* model-behind.c: a model of PCP archives read behind it.  A large archive
 * is shown from its start while a process of its own converts the whole
 * into the cache (pcp.h: first_ms, pcp-behind.c); an archive a pmlogger is
 * still writing is read again, the same way, when its files change.  The
 * model keeps what it was opened with; the loop polls, and opens the model
 * again from the entries those processes made.
 *
 *     if (vw_model_behind_poll(m) == 1 && vw_model_reopen(m, &n, err, len) == 0)
 *             swap m for n (the app keeps its view, filter and sort);
 *     ... every few seconds: vw_model_pcp_grew(m);    // a growing archive
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/pcp/pcp.h"
#include "model.h"
#include "model-int.h"

void vw_model_pcp_opts(const vw_open_opts *o, pcp_import_opts *po)
{
	*po = (pcp_import_opts)PCP_IMPORT_OPTS_INIT;
	po->metrics = o ? o->metrics : NULL;
	po->ssh_options = o ? o->ssh_options : NULL;
	po->progress = o && o->quiet ? NULL : pcp_import_progress_tty;
	po->view = 1;
	po->cache_max = o ? o->cache_max : 0;
}

int vw_model_behind_init(vw_model *m, const char *const *paths, size_t npaths,
			 const vw_open_opts *o)
{
	m->open_paths = calloc(npaths ? npaths : 1, sizeof *m->open_paths);
	if (!m->open_paths)
		return -1;
	m->nopen = npaths; /* behind[] and stamps[] have as many, freed by it */
	int rc = 0;
	for (size_t i = 0; i < npaths; i++)
		if (!(m->open_paths[i] = strdup(paths[i])))
			rc = -1;
	if (o)
		m->open_opts = *o;
	return rc;
}

/* "the first 1m 5s of 13m 0s" of the first file read in part */
static const char *partial_of(const vw_model *m, const char **name)
{
	if (m->partial[0] && m->nopen) { /* what the processes wrote so far */
		const char *s = strrchr(m->open_paths[0], '/');
		*name = s && s[1] ? s + 1 : m->open_paths[0];
		return m->partial;
	}
	for (size_t f = 0; f < m->nfiles; f++) {
		const char *p = m->imported[f] ? mcz_meta(m->files[f], "import_partial") : NULL;
		if (p && *p) {
			const char *s = strrchr(m->paths[f], '/');
			*name = s && s[1] ? s + 1 : m->paths[f];
			return p;
		}
	}
	return NULL;
}

void vw_model_behind_status(vw_model *m)
{
	const char *name, *p = m->nbehind ? partial_of(m, &name) : NULL;
	/* an archive that grew since its last open: shown as it was then
	 * (its cache entry), its new records read behind (not when followed:
	 * that says so itself) */
	int added = !p && m->nbehind && !m->grew && m->nopen;
	if ((!p && !added) || m->status_warn)
		return;
	int pct = -1; /* the least read of those still reading */
	for (size_t i = 0; i < m->nopen && m->behind; i++) {
		int q = m->behind[i] > 0 ? pcp_pending_progress(m->behind[i]) : -1;
		if (q >= 0 && (pct < 0 || q < pct))
			pct = q;
	}
	if (added) {
		const char *s = strrchr(m->open_paths[0], '/');
		snprintf(m->status, sizeof m->status,
			 "reading what %.80s added since it was last opened: %d%%",
			 s && s[1] ? s + 1 : m->open_paths[0], pct < 0 ? 0 : pct);
		return;
	}
	if (pct >= 0)
		snprintf(m->status, sizeof m->status, "reading the whole of %.80s: %d%%, %.80s shown",
			 name, pct, p);
	else
		snprintf(m->status, sizeof m->status, "reading the whole of %.80s: %.80s shown",
			 name, p);
}

int vw_model_behind_poll(vw_model *m)
{
	size_t left = 0, failed = 0;
	for (size_t i = 0; i < m->nopen && m->behind; i++) {
		if (m->behind[i] <= 0)
			continue;
		int r = pcp_pending_poll(m->behind[i]);
		if (r == 0)
			left++;
		else if (r < 0) { /* reaped and forgotten by the poll */
			failed++;
			m->behind[i] = 0;
		}
	}
	if (failed && !m->status_warn) {
		const char *name, *p = partial_of(m, &name);
		if (p)
			snprintf(m->status, sizeof m->status,
				 "warning: the whole of %.80s could not be read into the cache: "
				 "%.80s shown", name, p);
		else
			snprintf(m->status, sizeof m->status,
				 "warning: an archive that grew could not be read again");
		m->status_warn = 1;
	}
	m->nbehind = left;
	if (left) {
		vw_model_behind_status(m); /* how far they have read */
		return 0;
	}
	/* done: ready when at least one made its entry */
	for (size_t i = 0; i < m->nopen && m->behind; i++)
		if (m->behind[i] > 0)
			return 1;
	return 0;
}

int vw_model_reopen(const vw_model *m, vw_model **out, char *err, size_t errlen)
{
	return vw_model_open_from(out, (const char *const *)m->open_paths, m->nopen, &m->open_opts,
				  m->behind, err, errlen);
}

int vw_model_pcp_grew(vw_model *m)
{
	if (m->nbehind || !m->stamps || !m->behind)
		return 0;
	pcp_import_opts po;
	vw_model_pcp_opts(&m->open_opts, &po);
	po.progress = NULL;
	int started = 0;
	for (size_t i = 0; i < m->nopen; i++) {
		if (!m->stamps[i])
			continue;
		char *now = pcp_archive_stamp(m->open_paths[i], &po);
		if (now && strcmp(now, m->stamps[i]) && (m->behind[i] = pcp_convert_behind(
								 m->open_paths[i], &po)) > 0) {
			m->nbehind++;
			started = 1;
		}
		free(now);
	}
	m->grew |= started;
	return started;
}

void vw_model_behind_give(vw_model *from, vw_model *to)
{
	for (size_t i = 0; i < from->nopen && i < to->nopen && from->behind && to->behind; i++)
		if (from->behind[i] > 0) {
			to->behind[i] = from->behind[i];
			from->behind[i] = 0;
		}
	to->nbehind = from->nbehind;
	from->nbehind = 0;
}

/* Once a second while the processes read, the model is opened again from
 * what they have written so far, when that reaches later than what is
 * shown: the overview fills in as the archive is read, not only at its
 * start and at its end.  The new model takes the processes over. */
int vw_model_peek(vw_model *m, vw_model **out)
{
	*out = NULL;
	if (!m->nbehind || !m->behind || m->grew)
		return 0; /* an archive read again as it grew: shown whole till then */
	int *made = calloc(m->nopen ? m->nopen : 1, sizeof *made);
	if (!made)
		return -1;
	long long bytes = 0;
	int any = 0;
	for (size_t i = 0; i < m->nopen; i++) {
		if (m->behind[i] <= 0)
			continue;
		long long b = pcp_pending_written(m->behind[i]);
		if (b < 0) { /* not begun, or done: the poll says which */
			free(made);
			return 0;
		}
		bytes += b;
		made[i] = -m->behind[i];
		any = 1;
	}
	if (!any || bytes <= m->peeked) {
		free(made);
		return 0;
	}
	vw_model *n;
	char err[256];
	int rc = vw_model_open_from(&n, (const char *const *)m->open_paths, m->nopen, &m->open_opts,
				    made, err, sizeof err);
	free(made);
	if (rc != 0)
		return 0; /* nothing readable yet: looked at again later */
	m->peeked = bytes;
	if (n->t_max <= m->t_max) { /* no further than shown: the processes stay m's */
		vw_model_behind_give(n, m);
		vw_model_free(n);
		return 0;
	}
	/* "the first 1h 5m of 3h 14m": the whole's span as the start said it */
	const char *name, *was = partial_of(m, &name), *of = was ? strstr(was, " of ") : NULL;
	char a[32];
	pcp_span_text(n->t_max - n->t_min, a, sizeof a);
	snprintf(n->partial, sizeof n->partial, "the first %s%.60s", a, of ? of : "");
	n->peeked = bytes;
	vw_model_behind_give(m, n);
	n->live = 0; /* not followed as a recording: looked at again here */
	n->status[0] = 0;
	n->status_warn = 0;
	vw_model_behind_status(n);
	*out = n;
	return 1;
}

void vw_model_behind_free(vw_model *m)
{
	for (size_t i = 0; m->behind && i < m->nopen; i++)
		if (m->behind[i] > 0)
			pcp_pending_stop(m->behind[i]);
	free(m->behind);
	m->behind = NULL;
	m->nbehind = 0;
	for (size_t i = 0; m->stamps && i < m->nopen; i++)
		free(m->stamps[i]);
	free(m->stamps);
	m->stamps = NULL;
	for (size_t i = 0; i < m->nopen; i++)
		free(m->open_paths[i]);
	free(m->open_paths);
	m->open_paths = NULL;
	m->nopen = 0;
}
