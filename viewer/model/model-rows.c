/* model-rows.c: the timeline's rows — streams grouped, filtered, expanded.
 *
 * Streams of one file that share a name (per-CPU counters: core.cycles[cpu0],
 * core.cycles[cpu1], ...) collapse into one group row drawn as a
 * min/mean/max band; every other stream is a row of its own.  Groups keep
 * the order in which their first stream appears in the file.  The visible
 * rows (m->rows) are the groups that match the '/' filter (a
 * case-insensitive substring of the row's or a member's label), with the
 * members of expanded groups listed under them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model-int.h"

static const vw_model *sort_model; /* qsort has no context argument in C11 */

static int cmp_name(const void *a, const void *b)
{
	const vw_stream *x = &sort_model->streams[*(const size_t *)a];
	const vw_stream *y = &sort_model->streams[*(const size_t *)b];
	if (x->file_index != y->file_index)
		return x->file_index < y->file_index ? -1 : 1;
	int c = strcmp(x->desc->name, y->desc->name);
	if (c)
		return c;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int cmp_group(const void *a, const void *b)
{
	const vw_row *x = a, *y = b;
	return (x->members[0] > y->members[0]) - (x->members[0] < y->members[0]);
}

static int same_name(const vw_model *m, size_t a, size_t b)
{
	return m->streams[a].file_index == m->streams[b].file_index &&
	       strcmp(m->streams[a].desc->name, m->streams[b].desc->name) == 0;
}

static int make_groups(vw_model *m, const size_t *idx)
{
	size_t n = m->nstreams;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && same_name(m, idx[i], idx[j]))
			j++;
		vw_row *g = &m->groups[m->ngroups];
		memset(g, 0, sizeof *g);
		if (!(g->members = malloc((j - i) * sizeof *g->members)))
			return -1;
		m->ngroups++;
		memcpy(g->members, idx + i, (j - i) * sizeof *g->members);
		g->nmembers = j - i;
		g->is_group = g->nmembers > 1;
		const vw_stream *s = &m->streams[idx[i]];
		if (g->is_group) {
			const char *colon = strchr(s->label, ':');
			int pre = m->nfiles > 1 && colon ? (int)(colon - s->label + 1) : 0;
			snprintf(g->label, sizeof g->label, "%.*s%s (%zu)", pre, s->label,
				 s->desc->name, g->nmembers);
		} else {
			snprintf(g->label, sizeof g->label, "%s", s->label);
		}
		i = j;
	}
	qsort(m->groups, m->ngroups, sizeof *m->groups, cmp_group);
	for (size_t k = 0; k < m->ngroups; k++)
		m->groups[k].group = k;
	return 0;
}

static int matches(const vw_model *m, const char *label)
{
	return m->filter[0] == '\0' || strcasestr(label, m->filter) != NULL;
}

/* Recompute m->rows from the groups, the filter and the expanded flags. */
static void derive_rows(vw_model *m)
{
	m->nrows = 0;
	for (size_t g = 0; g < m->ngroups; g++) {
		vw_row *gr = &m->groups[g];
		int self = matches(m, gr->label), any = self;
		for (size_t k = 0; !any && k < gr->nmembers; k++)
			any = matches(m, m->streams[gr->members[k]].label);
		if (!any)
			continue;
		m->rows[m->nrows++] = *gr;
		if (!gr->is_group || !gr->expanded)
			continue;
		for (size_t k = 0; k < gr->nmembers; k++) {
			const vw_stream *s = &m->streams[gr->members[k]];
			if (!self && !matches(m, s->label))
				continue;
			vw_row *r = &m->rows[m->nrows++];
			memset(r, 0, sizeof *r);
			r->members = &gr->members[k];
			r->nmembers = 1;
			r->depth = 1;
			r->group = g;
			if (s->desc->instance && *s->desc->instance)
				snprintf(r->label, sizeof r->label, "%s", s->desc->instance);
			else
				snprintf(r->label, sizeof r->label, "#%u", s->id);
		}
	}
	if (m->row_sel >= m->nrows)
		m->row_sel = m->nrows ? m->nrows - 1 : 0;
	if (m->row_top > m->row_sel)
		m->row_top = m->row_sel;
}

int vw_model_rows_build(vw_model *m)
{
	size_t n = m->nstreams;
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	m->groups = calloc(n ? n : 1, sizeof *m->groups);
	/* At most every group plus every member: 2n rows. */
	m->rows = calloc(n ? 2 * n : 1, sizeof *m->rows);
	if (!idx || !m->groups || !m->rows) {
		free(idx);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_model = m;
	qsort(idx, n, sizeof *idx, cmp_name);
	int rc = make_groups(m, idx);
	free(idx);
	if (rc == 0)
		derive_rows(m);
	return rc;
}

void vw_model_rows_free(vw_model *m)
{
	for (size_t g = 0; m->groups && g < m->ngroups; g++)
		free(m->groups[g].members);
	free(m->groups);
	free(m->rows);
	m->groups = m->rows = NULL;
	m->ngroups = m->nrows = 0;
}

void vw_model_set_filter(vw_model *m, const char *pattern)
{
	snprintf(m->filter, sizeof m->filter, "%s", pattern ? pattern : "");
	derive_rows(m);
}

void vw_model_toggle_group(vw_model *m, size_t row)
{
	if (row >= m->nrows)
		return;
	vw_row *r = &m->rows[row];
	size_t g = r->group;
	if (!r->is_group && r->depth == 0)
		return;
	m->groups[g].expanded = r->depth ? 0 : !m->groups[g].expanded;
	derive_rows(m);
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].depth == 0 && m->rows[i].group == g) {
			m->row_sel = i;
			break;
		}
	if (m->row_top > m->row_sel)
		m->row_top = m->row_sel;
}
