/* model-behind.c: a model shown from the start of large PCP archives while
 * the whole of each is read behind it (pcp.h: first_ms, pcp-behind.c).  The
 * model keeps what it was opened with; the loop polls, and opens the model
 * again, from the cache, once every archive is whole there.
 *
 *     if (vw_model_behind_poll(m) == 1 && vw_model_reopen(m, &n, err, len) == 0)
 *             swap m for n (the app keeps its view, filter and sort);
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/pcp/pcp.h"
#include "model.h"
#include "model-int.h"

int vw_model_behind_init(vw_model *m, const char *const *paths, size_t npaths,
			 const vw_open_opts *o)
{
	m->open_paths = calloc(npaths ? npaths : 1, sizeof *m->open_paths);
	if (!m->open_paths)
		return -1;
	for (size_t i = 0; i < npaths; i++)
		if (!(m->open_paths[m->nopen++] = strdup(paths[i])))
			return -1;
	if (o)
		m->open_opts = *o;
	return 0;
}

/* "the first 1m 5s of 13m 0s" of the first file read in part */
static const char *partial_of(const vw_model *m, const char **name)
{
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
	if (p && !m->status_warn)
		snprintf(m->status, sizeof m->status, "reading the whole of %.80s: %.80s shown",
			 name, p);
}

int vw_model_behind_poll(vw_model *m)
{
	size_t left = 0, failed = 0;
	for (size_t i = 0; i < m->nbehind; i++) {
		if (m->behind[i] <= 0)
			continue;
		int r = pcp_pending_poll(m->behind[i]);
		if (r == 0) {
			left++;
			continue;
		}
		if (r < 0)
			failed++;
		m->behind[i] = r < 0 ? -1 : 0; /* reaped either way */
	}
	if (failed && !m->status_warn) {
		const char *name, *p = partial_of(m, &name);
		snprintf(m->status, sizeof m->status,
			 "warning: the whole of %.80s could not be read into the cache: %.80s shown",
			 p ? name : "an archive", p ? p : "its start");
		m->status_warn = 1;
	}
	if (left || !m->nbehind)
		return 0;
	for (size_t i = 0; i < m->nbehind; i++)
		if (m->behind[i] < 0) {
			m->nbehind = 0; /* one failed: the start stays what is shown */
			return 0;
		}
	m->nbehind = 0;
	return 1;
}

int vw_model_reopen(const vw_model *m, vw_model **out, char *err, size_t errlen)
{
	return vw_model_open(out, (const char *const *)m->open_paths, m->nopen, &m->open_opts,
			     err, errlen);
}

void vw_model_behind_free(vw_model *m)
{
	for (size_t i = 0; i < m->nbehind; i++)
		if (m->behind[i] > 0)
			pcp_pending_stop(m->behind[i]);
	free(m->behind);
	m->behind = NULL;
	m->nbehind = 0;
	for (size_t i = 0; i < m->nopen; i++)
		free(m->open_paths[i]);
	free(m->open_paths);
	m->open_paths = NULL;
	m->nopen = 0;
}
