/* model-rows.c: the timeline's rows — streams grouped, ordered, filtered,
 * expanded.
 *
 * Streams of one file that share a name (per-CPU counters: core.cycles[cpu0],
 * core.cycles[cpu1], ...) collapse into one group row drawn as a
 * min/mean/max band, whose value is the members' sum or mean (vw_rule);
 * with m->fold_ranks (the files of a parallel job) streams of that name in
 * every file do: one row per stream for the whole job, min/mean/max across
 * ranks, members labelled with their rank;
 * every other stream is a row of its own.  m->groups keep the order in which
 * their first stream appears in the file (phases and reports index them).
 * Streams that never change (model-activity.c: constant, or without values)
 * are the members of one folded row, "N constant streams", kept at
 * m->groups[m->ngroups] and shown first: a group whose members are all
 * constant is not shown apart, a constant member of a group that varies
 * stays in its group.  The other rows follow m->sort: the most
 * active first (a group is as active as its most active member), by label,
 * or by source.  The visible rows (m->rows) are the rows that match the '/'
 * filter (a case-insensitive substring of the row's or a member's label),
 * with the members of expanded groups listed under them.  Files of several
 * hosts (m->nhosts, PCP archives of a cluster) nest one level more: each
 * host's rows, in that order, follow a head row of the host's, which Enter
 * folds (a filter matching the host's name shows all its rows).
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
	if (!sort_model->fold_ranks && x->file_index != y->file_index)
		return x->file_index < y->file_index ? -1 : 1;
	int c = strcmp(x->desc->name, y->desc->name);
	if (c)
		return c;
	if (x->file_index != y->file_index)
		return x->file_index < y->file_index ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int cmp_group(const void *a, const void *b)
{
	const vw_row *x = a, *y = b;
	return (x->members[0] > y->members[0]) - (x->members[0] < y->members[0]);
}

static int same_name(const vw_model *m, size_t a, size_t b)
{
	return (m->fold_ranks || m->streams[a].file_index == m->streams[b].file_index) &&
	       strcmp(m->streams[a].desc->name, m->streams[b].desc->name) == 0;
}

/* Files a group's members come from (its members are in file order). */
static size_t group_files(const vw_model *m, const vw_row *g)
{
	size_t n = 0;
	for (size_t k = 0; k < g->nmembers; k++)
		n += k == 0 || m->streams[g->members[k]].file_index !=
				       m->streams[g->members[k - 1]].file_index;
	return n;
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
		g->rule = vw_model_rule(m->streams[idx[i]].desc);
		g->activity = 1; /* until the scores are known (vw_model_rows_settle) */
		const vw_stream *s = &m->streams[idx[i]];
		size_t nf = m->fold_ranks ? group_files(m, g) : 1;
		if (g->is_group && nf > 1) { /* ranks folded: across files */
			if (nf == g->nmembers)
				snprintf(g->label, sizeof g->label, "%s (%zu ranks)", s->desc->name, nf);
			else
				snprintf(g->label, sizeof g->label, "%s (%zu\u00d7%zu)", s->desc->name,
					 nf, (g->nmembers + nf - 1) / nf);
		} else if (g->is_group) {
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
	/* the folded row of constant streams, after the groups; empty until
	 * the scores are known */
	vw_row *c = &m->groups[m->ngroups];
	memset(c, 0, sizeof *c);
	if (!(c->members = malloc((n ? n : 1) * sizeof *c->members)))
		return -1;
	c->is_group = 1;
	c->constants = 1;
	c->group = m->ngroups;
	return 0;
}

/* Row order: the sort key, then the label, then file order. */
static int cmp_order(const void *a, const void *b)
{
	const vw_row *x = &sort_model->groups[*(const size_t *)a];
	const vw_row *y = &sort_model->groups[*(const size_t *)b];
	int c = 0;
	if (sort_model->sort == VW_SORT_ACTIVITY)
		c = (x->activity < y->activity) - (x->activity > y->activity);
	else if (sort_model->sort == VW_SORT_SOURCE)
		c = strcmp(sort_model->streams[x->members[0]].desc->source,
			   sort_model->streams[y->members[0]].desc->source);
	if (!c)
		c = strcmp(x->label, y->label);
	return c ? c : (x->group > y->group) - (x->group < y->group);
}

/* Members of the constants row: by source (when sorted so), then label. */
static int cmp_constant(const void *a, const void *b)
{
	const vw_stream *x = &sort_model->streams[*(const size_t *)a];
	const vw_stream *y = &sort_model->streams[*(const size_t *)b];
	int c = sort_model->sort == VW_SORT_SOURCE ? strcmp(x->desc->source, y->desc->source) : 0;
	if (!c)
		c = strcmp(x->label, y->label);
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return c ? c : (i > j) - (i < j);
}

static void order_rows(vw_model *m)
{
	for (size_t g = 0; g < m->ngroups; g++)
		m->order[g] = g;
	sort_model = m;
	qsort(m->order, m->ngroups, sizeof *m->order, cmp_order);
	vw_row *c = &m->groups[m->ngroups];
	qsort(c->members, c->nmembers, sizeof *c->members, cmp_constant);
}

const char *vw_model_sort_name(int s)
{
	return s == VW_SORT_NAME ? "name" : s == VW_SORT_SOURCE ? "source" : "activity";
}

static int matches(const vw_model *m, const char *label)
{
	return m->filter[0] == '\0' || strcasestr(label, m->filter) != NULL;
}

/* Group g's row, and its members when it is expanded, onto m->rows (all
 * of them with force: its host's name matches the filter). */
static void derive_group(vw_model *m, size_t g, int force)
{
	vw_row *gr = &m->groups[g];
	int self = force || matches(m, gr->label), any = self;
	for (size_t k = 0; !any && k < gr->nmembers; k++)
		any = matches(m, m->streams[gr->members[k]].label);
	if (!any)
		return;
	m->rows[m->nrows++] = *gr;
	if (!gr->is_group || !gr->expanded)
		return;
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
		r->constants = gr->constants;
		r->activity = gr->constants ? 0 : gr->activity;
		if (gr->constants || m->fold_ranks) /* every name, or every rank: the whole label */
			snprintf(r->label, sizeof r->label, "%s", s->label);
		else if (s->desc->instance && *s->desc->instance)
			snprintf(r->label, sizeof r->label, "%s", s->desc->instance);
		else
			snprintf(r->label, sizeof r->label, "#%u", s->id);
	}
}

/* Host h's head row, then (unless folded) its rows in the order of the
 * rows; nothing when neither its name nor any of its rows matches the
 * filter. */
static void derive_host(vw_model *m, size_t h)
{
	size_t at = m->nrows, nrow = 0, shown = 0;
	vw_row *hr = &m->rows[m->nrows++];
	memset(hr, 0, sizeof *hr);
	const char *name = mcz_meta(m->files[h], "host");
	hr->head = 1;
	hr->host = h;
	hr->is_group = 1;
	hr->expanded = !m->host_folded[h];
	hr->group = m->ngroups;
	hr->members = m->groups[m->ngroups].members; /* never read: nmembers is 0 */
	int self = matches(m, name ? name : "");
	for (size_t k = 0; k < m->ngroups; k++) {
		size_t g = m->order[k];
		const vw_row *gr = &m->groups[g];
		if (gr->activity <= 0 || m->streams[gr->members[0]].file_index != h)
			continue;
		nrow++;
		size_t before = m->nrows;
		if (!m->host_folded[h])
			derive_group(m, g, self);
		else if (!self && !shown) { /* does it pass the filter? */
			derive_group(m, g, 0);
			shown += m->nrows > before;
			m->nrows = before;
			continue;
		}
		shown += m->nrows > before;
	}
	hr = &m->rows[at];
	snprintf(hr->label, sizeof hr->label, "%.60s (%zu)", name ? name : "?", nrow);
	if (!self && !shown)
		m->nrows = at;
}

/* Recompute m->rows from the groups, the order, the filter and the
 * expanded flags. */
static void derive_rows(vw_model *m)
{
	m->nrows = 0;
	if (m->nconstant)
		derive_group(m, m->ngroups, 0);
	for (size_t h = 0; h < m->nhosts; h++)
		derive_host(m, h);
	for (size_t k = 0; !m->nhosts && k < m->ngroups; k++)
		if (m->groups[m->order[k]].activity > 0)
			derive_group(m, m->order[k], 0);
	if (m->row_sel >= m->nrows)
		m->row_sel = m->nrows ? m->nrows - 1 : 0;
	if (m->row_top > m->row_sel)
		m->row_top = m->row_sel;
}

/* Recompute m->rows and keep the selected row selected (by its group and
 * stream); or, with top and the first row selected (nothing chosen yet),
 * select the most active row, not the folded one. */
static void derive_keep(vw_model *m, int top)
{
	const vw_row *r = m->row_sel < m->nrows ? &m->rows[m->row_sel] : NULL;
	size_t g = r ? r->group : 0, st = r ? r->members[0] : 0, host = r ? r->host : 0;
	int depth = r ? r->depth : 0, head = r ? r->head : 0;
	top = top && m->row_sel == 0;
	derive_rows(m);
	if (top) {
		size_t i = m->nrows > 1 && m->rows[0].constants ? 1 : 0;
		/* the first host's first row, not its head */
		m->row_sel = i + 1 < m->nrows && m->rows[i].head && !m->rows[i + 1].head ? i + 1 : i;
		return;
	}
	for (size_t i = 0; r && i < m->nrows; i++)
		if (head ? m->rows[i].head && m->rows[i].host == host
			 : !m->rows[i].head && m->rows[i].group == g && m->rows[i].depth == depth &&
				   (depth == 0 || m->rows[i].members[0] == st)) {
			m->row_sel = i;
			break;
		}
}

/* The scores are known: each group is as active as its most active member,
 * constant streams go to the folded row, the rows take their order. */
static void apply_activity(vw_model *m)
{
	for (size_t g = 0; g < m->ngroups; g++) {
		vw_row *gr = &m->groups[g];
		gr->activity = 0;
		for (size_t k = 0; k < gr->nmembers; k++)
			if (m->act[gr->members[k]] > gr->activity)
				gr->activity = m->act[gr->members[k]];
	}
	/* a constant member of a group that varies stays in its group: each
	 * stream is listed once */
	vw_row *c = &m->groups[m->ngroups];
	c->nmembers = 0;
	for (size_t g = 0; g < m->ngroups; g++)
		for (size_t k = 0; m->groups[g].activity == 0 && k < m->groups[g].nmembers; k++)
			c->members[c->nmembers++] = m->groups[g].members[k];
	m->nconstant = c->nmembers;
	snprintf(c->label, sizeof c->label, "%zu constant stream%s", c->nmembers,
		 c->nmembers == 1 ? "" : "s");
	m->act_applied = 1;
	order_rows(m);
	derive_keep(m, 1);
}

int vw_model_rows_settle(vw_model *m)
{
	if (m->act_applied)
		return 1;
	while (m->act && m->act_next < m->nstreams) {
		if (vw_model_budget_spent(m)) {
			m->refining = 1;
			return 0;
		}
		vw_model_activity_step(m, m->act, &m->act_next);
	}
	if (m->act)
		apply_activity(m);
	return 1;
}

/* A recording whose scores cost at most this many chunk summaries read
 * (about 0.3 us each) is scored when it opens. */
#define OPEN_SCORE_COST 400000

int vw_model_rows_build(vw_model *m)
{
	size_t n = m->nstreams;
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	m->act = calloc(n ? n : 1, sizeof *m->act);
	/* every group, and the constants row after them */
	m->groups = calloc(n + 1, sizeof *m->groups);
	m->order = calloc(n ? n : 1, sizeof *m->order);
	/* At most every group, the constants row, every member and every
	 * host's head row: 2n + 1 + nhosts rows. */
	m->rows = calloc(2 * n + 1 + m->nhosts, sizeof *m->rows);
	int rc = -1;
	if (!idx || !m->act || !m->groups || !m->order || !m->rows)
		goto out;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_model = m;
	qsort(idx, n, sizeof *idx, cmp_name);
	if ((rc = make_groups(m, idx)) != 0)
		goto out;
	m->sort = VW_SORT_ACTIVITY;
	order_rows(m);
	derive_rows(m);
	if (vw_model_activity_cost(m) <= OPEN_SCORE_COST) {
		while (!vw_model_activity_step(m, m->act, &m->act_next))
			;
		apply_activity(m);
	}
out:
	free(idx);
	return rc;
}

void vw_model_rows_free(vw_model *m)
{
	vw_model_bands_free(m); /* kept per group row */
	for (size_t g = 0; m->groups && g <= m->ngroups; g++)
		free(m->groups[g].members);
	free(m->groups);
	free(m->rows);
	free(m->order);
	free(m->act);
	m->groups = m->rows = NULL;
	m->order = NULL;
	m->act = NULL;
	m->act_next = 0;
	m->act_applied = 0;
	m->ngroups = m->nrows = m->nconstant = 0;
}

int vw_model_set_fold(vw_model *m, int on)
{
	on = !!on;
	if (on == m->fold_ranks)
		return 0;
	int sort = m->sort;
	vw_model_rows_free(m);
	m->fold_ranks = on;
	m->row_sel = m->row_top = 0;
	if (vw_model_rows_build(m) != 0)
		return -1;
	vw_model_set_sort(m, sort);
	return 0;
}

void vw_model_set_sort(vw_model *m, int s)
{
	if (s < 0 || s >= VW_SORT_COUNT || !m->order)
		return;
	m->sort = s;
	order_rows(m);
	derive_keep(m, 0);
}

void vw_model_set_filter(vw_model *m, const char *pattern)
{
	snprintf(m->filter, sizeof m->filter, "%s", pattern ? pattern : "");
	derive_rows(m);
}

/* Select host h's head row, and show it. */
static void select_head(vw_model *m, size_t h)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].head && m->rows[i].host == h) {
			m->row_sel = i;
			break;
		}
	if (m->row_top > m->row_sel)
		m->row_top = m->row_sel;
}

void vw_model_toggle_group(vw_model *m, size_t row)
{
	if (row >= m->nrows)
		return;
	vw_row *r = &m->rows[row];
	size_t g = r->group;
	if (r->head) {
		size_t h = r->host;
		m->host_folded[h] = !m->host_folded[h];
		derive_rows(m);
		select_head(m, h);
		return;
	}
	if (!r->is_group && r->depth == 0)
		return;
	m->groups[g].expanded = r->depth ? 0 : !m->groups[g].expanded;
	derive_rows(m);
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].depth == 0 && !m->rows[i].head && m->rows[i].group == g) {
			m->row_sel = i;
			break;
		}
	if (m->row_top > m->row_sel)
		m->row_top = m->row_sel;
}

int vw_model_fold_hosts(vw_model *m)
{
	if (!m->nhosts)
		return -1;
	int any = 0;
	for (size_t h = 0; h < m->nhosts; h++)
		any |= m->host_folded[h];
	const vw_row *r = m->row_sel < m->nrows ? &m->rows[m->row_sel] : NULL;
	size_t host = r ? (r->head ? r->host : m->streams[r->members[0]].file_index) : 0;
	for (size_t h = 0; h < m->nhosts; h++)
		m->host_folded[h] = (unsigned char)!any;
	derive_rows(m);
	select_head(m, host); /* the selected row's host stays selected */
	return 0;
}
