/* model.c: the viewer's dataset and its shared time window (see model.h).
 *
 * Opening a dataset opens every file with libmcz, puts them on one time axis
 * (one file: its own recording time; several: wall-clock time, aligned on
 * each file's wall epoch), lists their streams and marks, builds the timeline
 * rows (model-rows.c) and sets the window to the whole run.  The window
 * operations (zoom, pan, reset) keep the window inside the data and never
 * narrower than a few sample intervals.  Nothing here draws or prints.
 *
 *     vw_model *m;
 *     char err[256];
 *     if (vw_model_open(&m, paths, 1, NULL, err, sizeof err) != 0) ...
 *     vw_model_zoom(m, 0.5, m->cursor);
 *     vw_model_free(m);
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/pcp/pcp.h"
#include "model.h"
#include "model-int.h"

static int cmp_mark(const void *a, const void *b)
{
	const vw_mark *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

static const vw_stream *label_base; /* qsort has no context argument in C11 */

static int cmp_label(const void *a, const void *b)
{
	return strcmp(label_base[*(const size_t *)a].label, label_base[*(const size_t *)b].label);
}

/* Streams whose labels collide (same name, no instance) get "#id" added, so
 * every label names one stream. */
static int unique_labels(vw_model *m)
{
	size_t n = m->nstreams, *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	label_base = m->streams;
	qsort(idx, n, sizeof *idx, cmp_label);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && strcmp(m->streams[idx[i]].label, m->streams[idx[j]].label) == 0)
			j++;
		for (size_t k = i; j - i > 1 && k < j; k++) {
			vw_stream *s = &m->streams[idx[k]];
			size_t len = strlen(s->label);
			if (len > sizeof s->label - 12)
				len = sizeof s->label - 12;
			snprintf(s->label + len, sizeof s->label - len, "#%u", s->id);
		}
		i = j;
	}
	free(idx);
	return 0;
}

/* Streams and marks of every file, on the dataset axis. */
static int collect(vw_model *m)
{
	size_t ns = 0, nk = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		ns += mcz_stream_count(m->files[f]);
		nk += mcz_mark_count(m->files[f]);
	}
	m->streams = calloc(ns ? ns : 1, sizeof *m->streams);
	m->marks = calloc(nk ? nk : 1, sizeof *m->marks);
	m->kmarks = calloc(nk ? nk : 1, sizeof *m->kmarks);
	if (!m->streams || !m->marks || !m->kmarks)
		return -1;
	/* files of several hosts without ranks (PCP archives of a cluster):
	 * each file's rows under its host's name */
	int by_host = m->nfiles > 1;
	for (size_t f = 0; by_host && f < m->nfiles; f++) {
		const char *h = mcz_meta(m->files[f], "host");
		by_host = h && *h && !mcz_meta(m->files[f], "rank");
		for (size_t g = 0; by_host && g < f; g++)
			by_host = strcmp(h, mcz_meta(m->files[g], "host")) != 0;
	}
	m->nhosts = by_host ? m->nfiles : 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		mcz_reader *r = m->files[f];
		const char *rank = mcz_meta(r, "rank");
		for (size_t i = 0; i < mcz_stream_count(r); i++) {
			vw_stream *s = &m->streams[m->nstreams++];
			s->file = r;
			s->file_index = f;
			s->id = (uint32_t)i;
			s->desc = mcz_stream(r, i);
			char pre[32] = "";
			if (m->nfiles > 1) {
				if (rank && *rank)
					snprintf(pre, sizeof pre, "r%.8s:", rank);
				else if (by_host)
					snprintf(pre, sizeof pre, "%.24s:", mcz_meta(r, "host"));
				else
					snprintf(pre, sizeof pre, "f%zu:", f);
			}
			const char *inst = s->desc->instance ? s->desc->instance : "";
			if (*inst)
				snprintf(s->label, sizeof s->label, "%s%s[%s]", pre, s->desc->name,
					 inst);
			else
				snprintf(s->label, sizeof s->label, "%s%s", pre, s->desc->name);
		}
		const char *kpre = mcz_meta(r, "regions.kernel_marks");
		size_t kl = kpre ? strlen(kpre) : 0;
		for (size_t i = 0; i < mcz_mark_count(r); i++) {
			const mcz_mark *k = mcz_mark_at(r, i);
			const char *text = k->text ? k->text : "";
			if (kl && k->kind == MCZ_MARK_POINT && !strncmp(text, kpre, kl))
				m->kmarks[m->nkmarks++] = (vw_mark){k->t + m->offsets[f], k->kind, text + kl, f};
			else
				m->marks[m->nmarks++] = (vw_mark){k->t + m->offsets[f], k->kind, text, f};
		}
	}
	qsort(m->marks, m->nmarks, sizeof *m->marks, cmp_mark);
	qsort(m->kmarks, m->nkmarks, sizeof *m->kmarks, cmp_mark);
	return unique_labels(m);
}

/* Time axis: offsets per file, the data's extent, the narrowest window. */
static void set_axis(vw_model *m)
{
	int64_t wmin = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		int64_t we = mcz_info(m->files[f])->wall_epoch_ns;
		if (f == 0 || we < wmin)
			wmin = we;
	}
	int have = 0;
	uint64_t rows = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		const mcz_file_info *fi = mcz_info(m->files[f]);
		m->offsets[f] = m->nfiles > 1 ? fi->wall_epoch_ns - wmin : 0;
		if (fi->nrows == 0)
			continue;
		int64_t a = fi->t_first + m->offsets[f], b = fi->t_last + m->offsets[f];
		if (!have || a < m->t_min)
			m->t_min = a;
		if (!have || b > m->t_max)
			m->t_max = b;
		have = 1;
		rows += fi->nrows;
	}
	if (!have) {
		m->t_min = 0;
		m->t_max = 1000000000;
	}
	if (m->t_max <= m->t_min)
		m->t_max = m->t_min + 1;
	/* Never narrower than about four sample intervals (and 1 us). */
	double per = rows > 1 ? (double)(m->t_max - m->t_min) * (double)m->nfiles / (double)rows : 0;
	m->min_width = (int64_t)(per * 4);
	if (m->min_width < 1000)
		m->min_width = 1000;
	if (m->min_width > m->t_max - m->t_min + 1)
		m->min_width = m->t_max - m->t_min + 1;
}

/* The first file read by recovery (no index) and how it stands, into
 * m->warnings (the app words it in the status line). */
static void file_trouble(vw_model *m)
{
	vw_model_warnings *w = &m->warnings;
	w->trouble = VW_TROUBLE_NONE;
	for (size_t f = 0; f < m->nfiles; f++) {
		const mcz_file_info *fi = mcz_info(m->files[f]);
		if (!fi->recovered)
			continue;
		w->trouble_file = f;
		w->trouble_rows = fi->nrows;
		w->trouble_valid = fi->valid_bytes;
		w->trouble_bytes = fi->file_bytes;
		if (!fi->nrows && !mcz_stream_count(m->files[f])) {
			/* every block may pass its CRC and still hold nothing this
			 * reader understands (a file of an incompatible dev build):
			 * "N of N bytes readable" would contradict "damaged" */
			mcz_check_report rep;
			if (m->imported[f] || mcz_check(m->paths[f], &rep) != MCZ_OK ||
			    !rep.first_problem[0])
				snprintf(rep.first_problem, sizeof rep.first_problem, "no streams");
			snprintf(w->trouble_why, sizeof w->trouble_why, "%s", rep.first_problem);
			w->trouble = VW_TROUBLE_EMPTY;
			return;
		}
		if (fi->valid_bytes == fi->file_bytes && !mcz_damaged_blocks(m->files[f], NULL, 0)) {
			/* every block good, only the index missing: a recording still
			 * being written (or whose recorder was killed), as mcz check
			 * says; "damaged" would alarm whoever looks during a run */
			w->trouble = VW_TROUBLE_INCOMPLETE;
			return;
		}
		/* every byte read, yet blocks left out (a CRC that fails): the
		 * bytes say nothing, the blocks do */
		uint64_t bad = mcz_damaged_blocks(m->files[f], NULL, 0);
		if (bad && fi->valid_bytes == fi->file_bytes) {
			w->trouble_blocks = bad;
			w->trouble = VW_TROUBLE_BLOCKS;
			return;
		}
		w->trouble = VW_TROUBLE_CUT;
		return;
	}
}

/* The model over files already open (m->files[0 .. n), m->paths set):
 * the time axis, streams, rows, window and what is wrong with the files. */
/* The decoded chunk columns all the readers of a model keep (a file
 * alone keeps its reader's default, 8 MB). */
#define MODEL_DCACHE_ALL (256u << 20)

static int model_build(vw_model *m)
{
	set_axis(m);
	m->fold_ranks = vw_model_is_job(m);
	/* decoded chunks: the readers' caches share one budget, so that the
	 * files of a large job do not each keep a reader's default */
	if (m->nfiles > 8)
		for (size_t f = 0; f < m->nfiles; f++)
			mcz_cache_limit(m->files[f], MODEL_DCACHE_ALL / m->nfiles > (256u << 10)
							     ? MODEL_DCACHE_ALL / m->nfiles
							     : (256u << 10));
	if (collect(m) != 0 || vw_model_rows_build(m) != 0 || vw_model_cache_init(m) != 0)
		return -1;
	m->phase_sel = -1;
	vw_model_reset(m);
	for (size_t f = 0; f < m->nfiles; f++)
		m->live |= mcz_info(m->files[f])->recovered;
	/* a PCP archive read only in part, or with a workaround (a cut volume,
	 * an unusable .index): the importer's note, as mcz import prints it */
	for (size_t f = 0; f < m->nfiles && !m->warnings.import_warning; f++) {
		const char *w = m->imported[f] ? mcz_meta(m->files[f], "import_warning") : NULL;
		if (w && *w)
			m->warnings.import_warning = w;
	}
	file_trouble(m);
	return 0;
}

static vw_model *model_alloc(size_t n)
{
	vw_model *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->files = calloc(n, sizeof *m->files);
	m->paths = calloc(n, sizeof *m->paths);
	m->offsets = calloc(n, sizeof *m->offsets);
	m->imported = calloc(n, 1);
	m->host_folded = calloc(n, 1);
	if (!m->files || !m->paths || !m->offsets || !m->imported || !m->host_folded) {
		vw_model_free(m);
		return NULL;
	}
	return m;
}

/* A job file (mcz merge) given: its members in its place, each read in
 * place over the job file's bytes and named "job.mcz:run.3.mcz";
 * (*member)[i] says which entries are members (no file of their own:
 * nothing is written into them).  A member that cannot be read (damaged
 * where its own header is) is left out, as the rest of a damaged file is
 * shown: the first one is named in left (left_out, why) and in warn (the
 * error when nothing is left).  -1 with err set on failure, when every
 * reader given is closed. */
static int expand_members(mcz_reader ***rs, char ***names, size_t *k, unsigned char **member,
			  vw_model_warnings *left, char *warn, size_t wlen, char *err,
			  size_t errlen)
{
	size_t n = 0;
	for (size_t j = 0; j < *k; j++) {
		size_t c = mcz_member_count((*rs)[j]);
		n += c ? c : 1;
	}
	mcz_reader **r2 = calloc(n ? n : 1, sizeof *r2);
	char **n2 = calloc(n ? n : 1, sizeof *n2);
	unsigned char *m2 = calloc(n ? n : 1, 1);
	size_t o = 0;
	int rc = r2 && n2 && m2 ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "out of memory");
	for (size_t j = 0; j < *k && !rc; j++) {
		mcz_reader *f = (*rs)[j];
		size_t c = mcz_member_count(f);
		if (!c) {
			r2[o] = f;
			n2[o++] = (*names)[j];
			(*rs)[j] = NULL;
			(*names)[j] = NULL;
			continue;
		}
		for (size_t i = 0; i < c && !rc; i++) {
			const char *mn = mcz_member_name(f, i);
			size_t len = strlen((*names)[j]) + strlen(mn) + 2;
			if (!(n2[o] = malloc(len))) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
			snprintf(n2[o], len, "%s:%s", (*names)[j], mn);
			int e = mcz_member_open(f, i, 0, &r2[o]);
			if (e) {
				if (!warn[0]) {
					snprintf(warn, wlen, "%s left out: %s%s%s", n2[o],
						 mcz_strerror(e), *mcz_errdetail() ? ": " : "",
						 mcz_errdetail());
					left->left_out = strdup(n2[o]);
					left->left_out_err = e;
					snprintf(left->left_out_detail,
						 sizeof left->left_out_detail, "%s",
						 mcz_errdetail());
				}
				free(n2[o]);
				n2[o] = NULL;
				continue;
			}
			m2[o++] = 1;
		}
		mcz_close(f); /* held by its members from here */
		free((*names)[j]);
		(*rs)[j] = NULL;
		(*names)[j] = NULL;
	}
	for (size_t j = 0; j < *k; j++) { /* left by a failure */
		mcz_close((*rs)[j]);
		free((*names)[j]);
	}
	free(*rs);
	free(*names);
	if (!rc && o == 0) { /* nothing readable: as a file that is not one */
		snprintf(err, errlen, "%s", warn[0] ? warn : "no recording");
		rc = -1;
	}
	if (rc) {
		for (size_t i = 0; i < o; i++) {
			mcz_close(r2[i]);
			free(n2[i]);
		}
		free(r2);
		free(n2);
		free(m2);
		*rs = NULL;
		*names = NULL;
		*k = 0;
		return -1;
	}
	*rs = r2;
	*names = n2;
	*member = m2;
	*k = o;
	return 0;
}

void vw_model_pcp_opts(const vw_open_opts *o, pcp_import_opts *po)
{
	*po = (pcp_import_opts)PCP_IMPORT_OPTS_INIT;
	po->metrics = o ? o->metrics : NULL;
	po->ssh_options = o ? o->ssh_options : NULL;
	po->progress = o && o->quiet ? NULL : pcp_import_progress_tty;
	po->view = 1;
	po->cache_max = o ? o->cache_max : 0;
}

/* vw_model_open's opener: every archive read whole. */
static int open_path(void *arg, size_t i, const char *path, const pcp_import_opts *po,
		     mcz_reader ***rs, char ***names, size_t *k, char *err, size_t errlen)
{
	(void)arg, (void)i;
	/* the first open is the main thread's, before the analyses' threads:
	 * setenv is safe there */
	pcp_no_derived();
	return pcp_open_all(path, po, rs, names, k, err, errlen);
}

int vw_model_open(vw_model **out, const char *const *paths, size_t npaths,
		  const vw_open_opts *o, char *err, size_t errlen)
{
	return vw_model_open_with(out, paths, npaths, o, open_path, NULL, err, errlen);
}

int vw_model_open_with(vw_model **out, const char *const *paths, size_t npaths,
		       const vw_open_opts *o, vw_model_opener *opener, void *arg, char *err,
		       size_t errlen)
{
	*out = NULL;
	if (npaths == 0) {
		snprintf(err, errlen, "no recording given");
		return -1;
	}
	/* a path may name several recordings (ssh://host/dir/run.*.mcz) */
	mcz_reader **rd = NULL;
	char **nm = NULL;
	unsigned char *imp = NULL;
	size_t n = 0, cap = 0;
	int failed = 0;
	char warn[256] = "", cnote[256] = "";
	vw_model_warnings left = {0};
	for (size_t i = 0; i < npaths && !failed; i++) {
		pcp_import_opts po;
		vw_model_pcp_opts(o, &po);
		char note[256] = "";
		po.note = note;
		po.notelen = sizeof note;
		mcz_reader **rs = NULL;
		char **names = NULL;
		size_t k = 0;
		if (opener(arg, i, paths[i], &po, &rs, &names, &k, err, errlen) != MCZ_OK) {
			failed = 1;
			break;
		}
		if (note[0] && !cnote[0]) /* the cache costs a note, never the view */
			snprintf(cnote, sizeof cnote, "%s", note);
		/* converted on open, or fetched: no file of its own to write into */
		int own = !pcp_import_claims(paths[i]) && strncmp(paths[i], "ssh://", 6) != 0;
		unsigned char *member = NULL;
		if (expand_members(&rs, &names, &k, &member, &left, warn, sizeof warn, err,
				   errlen) != 0) {
			failed = 1;
			break;
		}
		if (n + k > cap) {
			size_t nc = (n + k) * 2;
			mcz_reader **r2 = realloc(rd, nc * sizeof *r2);
			rd = r2 ? r2 : rd;
			char **n2 = r2 ? realloc(nm, nc * sizeof *n2) : NULL;
			nm = n2 ? n2 : nm;
			unsigned char *i2 = n2 ? realloc(imp, nc) : NULL;
			imp = i2 ? i2 : imp;
			if (!i2) {
				for (size_t j = 0; j < k; j++) {
					mcz_close(rs[j]);
					free(names[j]);
				}
				free(rs);
				free(names);
				free(member);
				snprintf(err, errlen, "out of memory");
				failed = 1;
				break;
			}
			cap = nc;
		}
		for (size_t j = 0; j < k; j++) {
			rd[n] = rs[j];
			nm[n] = names[j];
			/* a member of a job file: no file of its own either */
			imp[n++] = (unsigned char)(!own || member[j]);
		}
		free(member);
		free(rs);
		free(names);
	}
	vw_model *m = failed ? NULL : model_alloc(n);
	if (!failed && !m)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (m) {
			m->files[i] = rd[i];
			m->paths[i] = nm[i];
			m->imported[i] = imp[i];
			m->nfiles++;
		} else {
			mcz_close(rd[i]);
			free(nm[i]);
		}
	}
	free(rd);
	free(nm);
	free(imp);
	if (!m || model_build(m) != 0) {
		if (m)
			snprintf(err, errlen, "out of memory");
		free(left.left_out);
		vw_model_free(m);
		return -1;
	}
	m->warnings.left_out = left.left_out; /* a job file's member unreadable */
	m->warnings.left_out_err = left.left_out_err;
	memcpy(m->warnings.left_out_detail, left.left_out_detail, sizeof left.left_out_detail);
	memcpy(m->warnings.cache_note, cnote, sizeof cnote);
	*out = m;
	return 0;
}

int vw_model_open_readers(vw_model **out, mcz_reader **files, const char *const *names,
			  size_t n, char *err, size_t errlen)
{
	*out = NULL;
	vw_model *m = n ? model_alloc(n) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (m) {
			m->files[i] = files[i];
			m->imported[i] = 1; /* no file of its own: nothing is written anywhere */
			m->nfiles++;
			if (!(m->paths[i] = strdup(names && names[i] ? names[i] : "memory"))) {
				vw_model_free(m);
				m = NULL;
			}
		} else
			mcz_close(files[i]);
	}
	if (n == 0) {
		snprintf(err, errlen, "no recording given");
		return -1;
	}
	if (!m || model_build(m) != 0) {
		snprintf(err, errlen, "out of memory");
		vw_model_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int vw_model_clone(vw_model *m, vw_model **out, char *err, size_t errlen)
{
	*out = NULL;
	vw_model *c = model_alloc(m->nfiles);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m->nfiles; i++) {
		int rc = mcz_reader_clone(m->files[i], &c->files[i]);
		if (rc || !(c->paths[i] = strdup(m->paths[i]))) {
			mcz_close(c->files[i]);
			snprintf(err, errlen, "%s", rc ? mcz_strerror(rc) : "out of memory");
			vw_model_free(c);
			return -1;
		}
		c->imported[i] = m->imported[i];
		c->nfiles++;
	}
	if (model_build(c) != 0) {
		snprintf(err, errlen, "out of memory");
		vw_model_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void vw_model_free(vw_model *m)
{
	if (!m)
		return;
	vw_model_cache_free(m);
	vw_model_chunks_free(m);
	vw_model_bands_free(m);
	vw_model_rows_free(m);
	for (size_t i = 0; i < m->nfiles; i++)
		mcz_close(m->files[i]);
	if (m->paths)
		for (size_t i = 0; i < m->nfiles; i++)
			free(m->paths[i]);
	free(m->files);
	free(m->paths);
	free(m->offsets);
	free(m->imported);
	free(m->host_folded);
	free(m->streams);
	free(m->marks);
	free(m->kmarks);
	free(m->warnings.left_out);
	free(m);
}

int vw_model_is_job(const vw_model *m)
{
	if (!m || m->nfiles < 2)
		return 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		const char *r = mcz_meta(m->files[f], "rank");
		if (r && *r)
			return 1;
	}
	return 0;
}

const char *vw_model_file_host(const vw_model *m, size_t file)
{
	const char *h = file < m->nfiles ? mcz_meta(m->files[file], "host") : NULL;
	return h ? h : "";
}

/* ---- window ---------------------------------------------------------------- */

void vw_model_set_cursor(vw_model *m, int64_t t)
{
	if (t < m->t0)
		t = m->t0;
	if (t >= m->t1)
		t = m->t1 - 1;
	m->cursor = t;
}

void vw_model_set_window(vw_model *m, int64_t t0, int64_t t1)
{
	int64_t lo = m->t_min, hi = m->t_max + 1;
	if (t1 < t0) {
		int64_t x = t0;
		t0 = t1;
		t1 = x;
	}
	if (t1 - t0 < m->min_width) {
		int64_t mid = t0 + (t1 - t0) / 2;
		t0 = mid - m->min_width / 2;
		t1 = t0 + m->min_width;
	}
	if (t1 - t0 > hi - lo) {
		t0 = lo;
		t1 = hi;
	}
	if (t0 < lo) {
		t1 += lo - t0;
		t0 = lo;
	}
	if (t1 > hi) {
		t0 -= t1 - hi;
		t1 = hi;
	}
	m->t0 = t0;
	m->t1 = t1;
	vw_model_set_cursor(m, m->cursor);
}

void vw_model_zoom(vw_model *m, double factor, int64_t around)
{
	if (!(factor > 0))
		return;
	if (around < m->t0 || around >= m->t1)
		around = m->t0 + (m->t1 - m->t0) / 2;
	double w = (double)(m->t1 - m->t0) * factor;
	double left = (double)(around - m->t0) * factor;
	int64_t t0 = around - (int64_t)llround(left);
	int64_t t1 = t0 + (int64_t)llround(w);
	if (t1 - t0 < m->min_width) {
		/* Keep `around` where it was on the screen, at the narrowest width. */
		double frac = (double)(around - m->t0) / (double)(m->t1 - m->t0);
		t0 = around - (int64_t)llround(frac * (double)m->min_width);
		t1 = t0 + m->min_width;
	}
	vw_model_set_window(m, t0, t1);
}

void vw_model_pan(vw_model *m, double fraction)
{
	int64_t d = (int64_t)llround((double)(m->t1 - m->t0) * fraction);
	int64_t c = m->cursor - m->t0;
	vw_model_set_window(m, m->t0 + d, m->t1 + d);
	vw_model_set_cursor(m, m->t0 + c);
}

void vw_model_reset(vw_model *m)
{
	m->t0 = m->t_min;
	m->t1 = m->t_max + 1;
	m->sel0 = m->sel1 = 0;
	m->cursor = m->t0 + (m->t1 - m->t0) / 2;
}

int64_t vw_model_col_time(const vw_model *m, int col, int n)
{
	if (n <= 0)
		return m->t0;
	double w = (double)(m->t1 - m->t0);
	return m->t0 + (int64_t)(w * ((double)col + 0.5) / (double)n);
}

int vw_model_time_col(const vw_model *m, int64_t t, int n)
{
	double w = (double)(m->t1 - m->t0);
	if (!(w > 0))
		return 0;
	/* a time far off the window (a mark or phase of a hostile file) is
	 * a column far off screen, never a float out of int's range */
	double c = floor(((double)t - (double)m->t0) * (double)n / w);
	return c < -1e9 ? -1000000000 : c > 1e9 ? 1000000000 : (int)c;
}

const vw_mark *vw_model_mark_near(const vw_model *m, int64_t t, int64_t tol)
{
	const vw_mark *best = NULL;
	int64_t bd = 0;
	for (size_t i = 0; i < m->nmarks; i++) {
		int64_t d = llabs(m->marks[i].t - t);
		if (d <= tol && (!best || d < bd)) {
			best = &m->marks[i];
			bd = d;
		}
	}
	return best;
}

int vw_model_follow(vw_model *m)
{
	int64_t old_max = m->t_max;
	uint64_t old_rows = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		old_rows += mcz_info(m->files[f])->nrows;
	int at_end = m->t1 > old_max; /* the window reaches the last sample */
	/* Each file still being written is read on from where its last scan
	 * stopped (mcz_reader_refresh: no rescan of what was read, and the
	 * recorder's final copy is picked up when it is renamed over the path). */
	int changed = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		if (!mcz_info(m->files[f])->recovered)
			continue;
		size_t ns = mcz_stream_count(m->files[f]);
		mcz_refresh out;
		if (mcz_reader_refresh(m->files[f], &out) != MCZ_OK)
			return -1;
		if (mcz_stream_count(m->files[f]) != ns)
			return -1; /* rows and groups are built on the streams of the open */
		changed |= out.new_rows != 0 || out.replaced;
	}
	if (!changed)
		return 0;
	/* the readers' strings and arrays are new: caches and copies go (and
	 * the analyses' tables of them: the caller's, vw_an_code_drop) */
	vw_model_cache_free(m);
	vw_model_chunks_free(m);
	vw_model_bands_free(m);
	free(m->streams);
	free(m->marks);
	free(m->kmarks);
	m->streams = NULL;
	m->marks = m->kmarks = NULL;
	m->nstreams = m->nmarks = m->nkmarks = 0;
	if (collect(m) != 0 || vw_model_cache_init(m) != 0)
		return -1;
	set_axis(m);
	/* the file's state ("incomplete: N rows") is said again */
	file_trouble(m);
	m->live = 0;
	for (size_t f = 0; f < m->nfiles; f++)
		m->live |= mcz_info(m->files[f])->recovered;
	if (!old_rows)
		vw_model_reset(m); /* the first rows: the axis was a placeholder */
	else if (at_end && m->t_max > old_max)
		vw_model_set_window(m, m->t0, m->t_max + 1);
	return 1;
}

size_t vw_model_damage(vw_model *m)
{
	size_t n = 0, first = SIZE_MAX;
	for (size_t f = 0; f < m->nfiles; f++) {
		size_t k = mcz_damaged_count(m->files[f]);
		if (k && first == SIZE_MAX)
			first = f;
		n += k;
	}
	if (n > m->warnings.ndamaged) {
		m->warnings.ndamaged = n;
		m->warnings.damaged_file = first;
	}
	return n;
}

int vw_model_damaged_span(const vw_model *m, size_t i, int64_t *t0, int64_t *t1)
{
	for (size_t f = 0; f < m->nfiles; f++) {
		size_t k = mcz_damaged_count(m->files[f]);
		if (i < k) {
			if (mcz_damaged_span(m->files[f], i, t0, t1) != MCZ_OK)
				return -1;
			*t0 += m->offsets[f];
			*t1 += m->offsets[f];
			return 0;
		}
		i -= k;
	}
	return -1;
}
