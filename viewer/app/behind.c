/* behind.c: PCP archives converted behind the shown model.  A large archive
 * is shown from its start while a process of its own converts the whole
 * into the cache (pcp.h: first_ms, pcp-behind.c), and what the process has
 * written so far is shown as it goes; an archive a pmlogger is still
 * writing is read again, the same way, when its files change.  The model
 * starts no process: it opens its paths through the opener given here
 * (vw_model_open_with).  The loop ticks; a tick that has a new model of
 * the paths gives it to be put in place of the shown one.
 *
 *     vw_behind *b;
 *     if (vw_behind_open(&b, &m, paths, n, &opts, first_ms, err, len) != 0) ...
 *     each loop turn, while vw_behind_reading(b):
 *             r = vw_behind_tick(b, m, now_ms, &n, err, len);
 *             if (r & VW_BEHIND_MODEL) vw_behind_swapped(b, vw_app_swap(a, n) == 0);
 *     every few seconds, when none reads: vw_behind_grow(b);
 *     vw_behind_note(b, m, &state);          // for the status line (status.c)
 *     vw_behind_free(b);                     // processes stopped
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/pcp/pcp.h"
#include "app.h"

/* What the processes have written so far is opened at most this often. */
#define BEHIND_PEEK_MS 1000

/* The processes and files of one model of the paths. */
typedef struct behind_set {
	int *pid;              /* per path: the process converting it, 0 none */
	size_t reading;        /* processes running */
	char **stamps;         /* per path: a local archive's files as read
				  (pcp_archive_stamp), NULL otherwise: when they
				  change (a pmlogger writing), the archive is read
				  again (vw_behind_grow) */
	int grew;              /* the processes read archives that grew */
	char partial[96];      /* opened from what they wrote so far: "the
				  first 1h 5m of 3h 14m" */
	long long peeked;      /* the bytes they had written then */
} behind_set;

struct vw_behind {
	char **paths;          /* what the model was opened with, to open it again */
	size_t n;
	vw_open_opts opts;
	int first_ms;
	behind_set cur;        /* the shown model's */
	behind_set next;       /* the model a tick gave, until vw_behind_swapped */
	int next_peek;         /* that model is of what the processes wrote so far */
	int64_t peek_at;       /* when to look at what they wrote; 0: at the first tick */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

/* The processes stopped, the stamps freed. */
static void set_free(const vw_behind *b, behind_set *s)
{
	for (size_t i = 0; s->pid && i < b->n; i++)
		if (s->pid[i] > 0)
			pcp_pending_stop(s->pid[i]);
	for (size_t i = 0; s->stamps && i < b->n; i++)
		free(s->stamps[i]);
	free(s->pid);
	free(s->stamps);
	*s = (behind_set){0};
}

/* The processes of from made to's. */
static void set_give(const vw_behind *b, behind_set *from, behind_set *to)
{
	for (size_t i = 0; i < b->n && from->pid && to->pid; i++)
		if (from->pid[i] > 0) {
			to->pid[i] = from->pid[i];
			from->pid[i] = 0;
		}
	to->reading = from->reading;
	from->reading = 0;
}

/* "the first 1m 5s of 13m 0s" of the first file read in part */
static const char *partial_of(const vw_behind *b, const behind_set *s, const vw_model *m,
			      const char **name)
{
	if (s->partial[0] && b->n) { /* what the processes wrote so far */
		*name = base_name(b->paths[0]);
		return s->partial;
	}
	for (size_t f = 0; f < m->nfiles; f++) {
		const char *p = m->imported[f] ? mcz_meta(m->files[f], "import_partial") : NULL;
		if (p && *p) {
			*name = base_name(m->paths[f]);
			return p;
		}
	}
	return NULL;
}

void vw_behind_note(const vw_behind *b, const vw_model *m, vw_behind_state *st)
{
	const behind_set *s = &b->cur;
	*st = (vw_behind_state){0};
	st->reading = s->reading;
	st->grew = s->grew;
	st->first = b->n ? base_name(b->paths[0]) : NULL;
	st->partial = partial_of(b, s, m, &st->name);
	st->pct = -1; /* the least read of those still reading */
	for (size_t i = 0; i < b->n && s->pid; i++) {
		int q = s->pid[i] > 0 ? pcp_pending_progress(s->pid[i]) : -1;
		if (q >= 0 && (st->pct < 0 || q < st->pct))
			st->pct = q;
	}
}

/* One open of the paths into a set: made[i] > 0 names the process that
 * converted path i into the cache (its entry is opened, as it was made);
 * made[i] < 0 one still converting it (what it has written so far is
 * opened, the process stays); otherwise (or made NULL) the path is opened
 * afresh: a large archive's start, its whole converted behind it by a new
 * process. */
typedef struct behind_try {
	const vw_behind *b;
	const int *made;
	behind_set *s;
} behind_try;

static int behind_opener(void *arg, size_t i, const char *path, const pcp_import_opts *mpo,
			 mcz_reader ***rs, char ***names, size_t *k, char *err, size_t errlen)
{
	const behind_try *t = arg;
	const int *made = t->made;
	char **stamp = &t->s->stamps[i];
	pcp_import_opts po = *mpo;
	int pid = 0;
	po.first_ms = t->b->first_ms;
	po.pending = &pid;
	mcz_reader *one = NULL;
	/* what a process still reading has written so far (made < 0): the
	 * process stays this model's */
	int peek = made && made[i] < 0 && pcp_pending_peek(-made[i], &one) == MCZ_OK;
	if (peek) {
		pid = -made[i];
		*stamp = pcp_archive_stamp(path, &po);
	} else if (made && made[i] < 0) { /* done meanwhile, or nothing yet */
		snprintf(err, errlen, "%s: not read further yet", path);
		return MCZ_E_NOTFOUND;
	}
	/* the entry a process made for this path, as its files were */
	if (peek || (made && made[i] > 0 && pcp_pending_open(made[i], &one, stamp) == MCZ_OK)) {
		*rs = malloc(sizeof **rs);
		*names = malloc(sizeof **names);
		if (!*rs || !*names || !((*names)[0] = strdup(path))) {
			mcz_close(one);
			free(*rs);
			free(*names);
			*rs = NULL;
			*names = NULL;
			snprintf(err, errlen, "out of memory");
			return MCZ_E_NOMEM;
		}
		(*rs)[0] = one;
		*k = 1;
	} else {
		*stamp = pcp_archive_stamp(path, &po);
		/* the first open is the main thread's, before the analyses'
		 * threads: setenv is safe there */
		pcp_no_derived();
		int rc = pcp_open_all(path, &po, rs, names, k, err, errlen);
		if (rc != MCZ_OK)
			return rc;
	}
	if (pid > 0) {
		t->s->pid[i] = pid;
		t->s->reading++;
	}
	return MCZ_OK;
}

/* A model of b's paths opened into *out with its set s (see behind_try);
 * on failure the processes it started are stopped (a peek's stay). */
static int try_open(const vw_behind *b, const int *made, vw_model **out, behind_set *s,
		    char *err, size_t errlen)
{
	*s = (behind_set){0};
	s->pid = calloc(b->n ? b->n : 1, sizeof *s->pid);
	s->stamps = calloc(b->n ? b->n : 1, sizeof *s->stamps);
	if (!s->pid || !s->stamps) {
		free(s->pid);
		free(s->stamps);
		*s = (behind_set){0};
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	behind_try t = {b, made, s};
	if (vw_model_open_with(out, (const char *const *)b->paths, b->n, &b->opts, behind_opener,
			       &t, err, errlen) != 0) {
		for (size_t i = 0; made && i < b->n; i++)
			if (made[i] < 0) /* a peek's stays the caller's */
				s->pid[i] = 0;
		set_free(b, s);
		return -1;
	}
	return 0;
}

int vw_behind_open(vw_behind **out, vw_model **m, const char *const *paths, size_t npaths,
		   const vw_open_opts *o, int first_ms, char *err, size_t errlen)
{
	*out = NULL;
	*m = NULL;
	vw_behind *b = calloc(1, sizeof *b);
	if (!b || !(b->paths = calloc(npaths ? npaths : 1, sizeof *b->paths))) {
		free(b);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->n = npaths;
	int rc = 0;
	for (size_t i = 0; i < npaths; i++)
		if (!(b->paths[i] = strdup(paths[i])))
			rc = -1;
	if (o)
		b->opts = *o;
	b->first_ms = first_ms;
	if (rc)
		snprintf(err, errlen, "out of memory");
	if (rc || try_open(b, NULL, m, &b->cur, err, errlen) != 0) {
		vw_behind_free(b);
		return -1;
	}
	*out = b;
	return 0;
}

int vw_behind_reading(const vw_behind *b)
{
	return b && b->cur.reading;
}

int vw_behind_followed(const vw_behind *b)
{
	for (size_t i = 0; b && b->cur.stamps && i < b->n; i++)
		if (b->cur.stamps[i])
			return 1;
	return 0;
}

/* 1 when every whole archive is ready (open the model again, from the
 * cache), 0 while one is read or there is none; *failed: one failed (the
 * start stays). */
static int behind_poll(vw_behind *b, int *failed)
{
	behind_set *s = &b->cur;
	size_t left = 0;
	*failed = 0;
	for (size_t i = 0; i < b->n && s->pid; i++) {
		if (s->pid[i] <= 0)
			continue;
		int r = pcp_pending_poll(s->pid[i]);
		if (r == 0)
			left++;
		else if (r < 0) { /* reaped and forgotten by the poll */
			*failed = 1;
			s->pid[i] = 0;
		}
	}
	s->reading = left;
	if (left)
		return 0;
	/* done: ready when at least one made its entry */
	for (size_t i = 0; i < b->n && s->pid; i++)
		if (s->pid[i] > 0)
			return 1;
	return 0;
}

/* While they read, the model is opened again from what they have written
 * so far, when that reaches later than what is shown: the overview fills
 * in as the archive is read, not only at its start and at its end.  1 with
 * *out (b->next its set, the processes its own), else 0. */
static int behind_peek(vw_behind *b, const vw_model *m, vw_model **out)
{
	behind_set *s = &b->cur;
	*out = NULL;
	if (!s->reading || !s->pid || s->grew)
		return 0; /* an archive read again as it grew: shown whole till then */
	int *made = calloc(b->n ? b->n : 1, sizeof *made);
	if (!made)
		return -1;
	long long bytes = 0;
	int any = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (s->pid[i] <= 0)
			continue;
		long long w = pcp_pending_written(s->pid[i]);
		if (w < 0) { /* not begun, or done: the poll says which */
			free(made);
			return 0;
		}
		bytes += w;
		made[i] = -s->pid[i];
		any = 1;
	}
	if (!any || bytes <= s->peeked) {
		free(made);
		return 0;
	}
	vw_model *n;
	char err[256];
	int rc = try_open(b, made, &n, &b->next, err, sizeof err);
	free(made);
	if (rc != 0)
		return 0; /* nothing readable yet: looked at again later */
	s->peeked = bytes;
	if (n->t_max <= m->t_max) { /* no further than shown: the processes stay m's */
		set_give(b, &b->next, s);
		set_free(b, &b->next);
		vw_model_free(n);
		return 0;
	}
	/* "the first 1h 5m of 3h 14m": the whole's span as the start said it */
	const char *name, *was = partial_of(b, s, m, &name), *of = was ? strstr(was, " of ") : NULL;
	char a[32];
	pcp_span_text(n->t_max - n->t_min, a, sizeof a);
	snprintf(b->next.partial, sizeof b->next.partial, "the first %s%.60s", a, of ? of : "");
	b->next.peeked = bytes;
	set_give(b, s, &b->next);
	n->live = 0; /* not followed as a recording: looked at again here */
	b->next_peek = 1;
	*out = n;
	return 1;
}

unsigned vw_behind_tick(vw_behind *b, const vw_model *m, int64_t now, vw_model **out,
			char *err, size_t errlen)
{
	*out = NULL;
	if (!b->peek_at)
		b->peek_at = now + BEHIND_PEEK_MS;
	int failed;
	int r = behind_poll(b, &failed);
	unsigned said = failed ? VW_BEHIND_FAILED : 0;
	if (r != 1) {
		/* what they have read so far, once a second */
		if (r == 0 && b->cur.reading && now >= b->peek_at) {
			b->peek_at = now + BEHIND_PEEK_MS;
			if (behind_peek(b, m, out) == 1)
				return said | VW_BEHIND_MODEL | VW_BEHIND_PEEK;
		}
		return said;
	}
	if (try_open(b, b->cur.pid, out, &b->next, err, errlen) != 0)
		return said | VW_BEHIND_ERROR;
	b->next_peek = 0;
	return said | VW_BEHIND_MODEL;
}

void vw_behind_swapped(vw_behind *b, int ok)
{
	if (!ok) { /* the new model is freed: the shown one's processes stay its own */
		if (b->next_peek)
			set_give(b, &b->next, &b->cur);
		set_free(b, &b->next);
		return;
	}
	set_free(b, &b->cur);
	b->cur = b->next;
	b->next = (behind_set){0};
}

int vw_behind_grow(vw_behind *b)
{
	behind_set *s = &b->cur;
	if (s->reading || !s->stamps || !s->pid)
		return 0;
	pcp_import_opts po;
	vw_model_pcp_opts(&b->opts, &po);
	po.progress = NULL;
	int started = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (!s->stamps[i])
			continue;
		char *now = pcp_archive_stamp(b->paths[i], &po);
		if (now && strcmp(now, s->stamps[i]) &&
		    (s->pid[i] = pcp_convert_behind(b->paths[i], &po)) > 0) {
			s->reading++;
			started = 1;
		}
		free(now);
	}
	s->grew |= started;
	return started;
}

void vw_behind_free(vw_behind *b)
{
	if (!b)
		return;
	set_free(b, &b->next);
	set_free(b, &b->cur);
	for (size_t i = 0; i < b->n; i++)
		free(b->paths[i]);
	free(b->paths);
	free(b);
}
