/* writer.c: writing a recording (SPEC.md "Writer rules").
 *
 * Rows are buffered per stream until a chunk is full (chunk_rows rows or
 * chunk_ns of time), then the pending STREAMS, META and TOPO blocks, the
 * CHUNK and the pending MARKS are appended, each as one framed block, so
 * that a recorder killed at any moment leaves every block before the last
 * one whole.  mcz_writer_close() appends the INDEX block and the trailer.
 * Errors are sticky: the first one is kept and returned by close.
 *
 * mcz_writer_sync() puts the rows of the chunk still being gathered into
 * the file as a PART block (only the rows since the last PART), so that a
 * file being written, or cut, is readable up to its last sync.  The chunk
 * is written whole later and supersedes its PART blocks; at close, a file
 * that holds PART blocks is copied without them (the index's blocks and
 * chunks, byte for byte) to a temporary file renamed over the path.
 *
 *     mcz_writer *w;
 *     mcz_writer_open(&w, "run.mcz", NULL);
 *     mcz_writer_add_stream(w, &desc, &id);
 *     mcz_writer_append(w, t, vals, NULL);
 *     rc = mcz_writer_close(w);
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../codecs/chunk.h"
#include "metapolicy.h"
#include "../internal.h"
#include "../meta/meta.h"

typedef struct writer_col {
	mcz_value *v;
	uint8_t *present;
} writer_col;

/* The descriptors' strings are kept in blocks of a string pool, not
 * strdup'ed one by one, and every column lives in one slab (cv, cp: a
 * stride of cap_rows values per stream): a wide archive has hundreds of
 * thousands of strings and column arrays, and allocating and freeing them
 * one by one is a visible share of its import (bench-pcp.sh, speed).  The
 * pool is not glibc's obstack, which exits the process when malloc fails:
 * a library's caller gets MCZ_E_NOMEM. */
typedef struct writer_strs {
	struct writer_strs *prev;
	size_t used, cap;
	char s[];
} writer_strs;
#define WRITER_STRS_BLOCK 65536

struct mcz_writer {
	int fd, own_fd, err;
	uint64_t off;
	mcz_write_opts o;
	mcz_codec_ctx cx;
	mcz_codec_ctx ccx; /* writer_overlap's chunk thread's */
	mcz_stream_desc *streams;
	size_t nstreams, cap_streams, streams_written;
	writer_strs *strs; /* the streams' strings, the newest block first */
	size_t str_bytes;  /* their bytes */
	mcz_codec_prev *prev;
	writer_col *cols; /* pointers into the slab */
	mcz_value *cv;
	uint8_t *cp;
	size_t cap_cols; /* streams the slab holds */
	int64_t *t;
	size_t nrows, cap_rows;
	int64_t last_t;
	int have_t;
	mcz_meta_kv meta; /* pending, written at the next flush */
	mcz_topo_obj *topo;
	size_t ntopo;
	int topo_dirty;
	mcz_mark *marks;
	size_t nmarks, cap_marks;
	mcz_index ix;
	mcz_bucket *sums;
	mcz_buf blk, payload, packed;
	/* PART blocks: rows [0, pstart) of the chunk are in the file already;
	 * pprev is the counters' state after the last PART (or chunk) */
	size_t pstart;
	mcz_codec_prev *pprev;
	mcz_bucket *psums;
	mcz_codec_ctx pcx;
	uint64_t nparts;
	char *path; /* resolved at open, for the copy without PART blocks */
	int minor;  /* the version written: MCZ_FORMAT=1.2 or 1.3: no block
		       that version's readers refuse */
	int requires; /* a REQUIRES block of 5 is in the file */
};

static int writer_fail(mcz_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return err;
}

static int writer_write(mcz_writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t k = write(w->fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return writer_fail(w, k < 0 && errno == ENOSPC	 ? MCZ_E_NOSPC
					      : k == 0 || errno == EDQUOT ? MCZ_E_NOSPC
									  : MCZ_E_IO);
		b += k;
		n -= (size_t)k;
		w->off += (uint64_t)k;
	}
	return 0;
}

/* A write that failed part-way (a full disk) leaves the start of a block
 * at the end of the file, which mcz check calls damaged: the file is cut
 * back to the end of the last whole block ("the reference writer truncates
 * the file to the end of the last whole block"): INCOMPLETE, never DAMAGED.  A file that
 * cannot be cut (a pipe) keeps its bytes; the error stays sticky anyway. */
static void writer_cut(mcz_writer *w, uint64_t at)
{
	if (w->off == at)
		return;
	while (ftruncate(w->fd, (off_t)at) != 0)
		if (errno != EINTR)
			return;
	if (lseek(w->fd, (off_t)at, SEEK_SET) == (off_t)at)
		w->off = at;
}

static void writer_free(mcz_writer *w);

/* Frame and append one block; non-chunk blocks go into the index.  The
 * small blocks' bodies are packed first, unless packed is set (the body
 * is a packed payload already). */
static int writer_block_as(mcz_writer *w, uint16_t type, const mcz_buf *payload, int packed)
{
	if (w->err)
		return w->err;
	if (payload->err)
		return writer_fail(w, payload->err);
	if (mcz_block_small(type) && !packed) {
		int rc = mcz_block_pack(&w->cx, payload, &w->packed);
		if (rc)
			return writer_fail(w, rc);
		payload = &w->packed;
	}
	w->blk.len = 0;
	/* "GCHUNK and COLSTREAMS blocks have the critical flag": a reader
	 * before 1.3 refuses the file rather than show it wrong; BUNDLE
	 * blocks too, for readers before 1.4 */
	int critical = type == MCZ_BT_GCHUNK || type == MCZ_BT_COLSTREAMS ||
		       type == MCZ_BT_BUNDLE || type == MCZ_BT_REQUIRES;
	mcz_block_frame(&w->blk, type, critical ? MCZ_BF_CRITICAL : 0, payload->p, payload->len);
	if (w->blk.err)
		return writer_fail(w, w->blk.err);
	uint64_t at = w->off;
	int rc = writer_write(w, w->blk.p, w->blk.len);
	if (rc) {
		writer_cut(w, at);
		return rc;
	}
	if (!mcz_block_is_chunk(type) && type != MCZ_BT_INDEX &&
	    mcz_index_add_block(&w->ix, type, at, w->blk.len))
		return writer_fail(w, MCZ_E_NOMEM);
	return 0;
}

static int writer_block(mcz_writer *w, uint16_t type, const mcz_buf *payload)
{
	return writer_block_as(w, type, payload, 0);
}

/* MCZ_FORMAT=1.2: a file for readers before 1.3 (a site's older mcz),
 * without GCHUNK or COLSTREAMS blocks, at some cost in size on wide data;
 * 1.3: without BUNDLE blocks and the 1.4 index; 1.4: without runs
 * transposed by metric (and their REQUIRES block); 1.5: a file that says
 * 1.5 (its CODEPART blocks, which readers before 1.6 skip, written as
 * ever); 1.6: without CODESTACKS blocks; 1.7 (or unset) lets the writer
 * choose what is smaller. */
static int writer_format(int *minor)
{
	const char *fmt = getenv("MCZ_FORMAT");
	*minor = MCZ_VERSION_MINOR;
	if (!fmt || !*fmt || !strcmp(fmt, "1.7"))
		return 0;
	if (!strcmp(fmt, "1.2") || !strcmp(fmt, "1.3") || !strcmp(fmt, "1.4") ||
	    !strcmp(fmt, "1.5") || !strcmp(fmt, "1.6")) {
		*minor = fmt[2] - '0';
		return 0;
	}
	return mcz_error_set(MCZ_E_ARG,
			     "MCZ_FORMAT=%.20s: this writer writes 1.2, 1.3, 1.4, 1.5, 1.6 or 1.7",
			     fmt);
}

/* A writer on fd with its options, before any byte is written. */
static int writer_new(mcz_writer **wp, int fd, const mcz_write_opts *opts)
{
	*wp = NULL;
	mcz_write_opts def = MCZ_WRITE_OPTS_INIT;
	mcz_writer *w = calloc(1, sizeof *w);
	if (!w)
		return MCZ_E_NOMEM;
	w->fd = fd;
	w->o = opts ? *opts : def;
	if (w->o.chunk_rows == 0)
		w->o.chunk_rows = def.chunk_rows;
	if (w->o.chunk_rows > MCZ_MAX_CHUNK_ROWS)
		w->o.chunk_rows = MCZ_MAX_CHUNK_ROWS;
	if (w->o.zstd_level == 0)
		w->o.zstd_level = def.zstd_level;
	w->cx.level = w->o.zstd_level;
	w->pcx.level = 1;
	w->pcx.fast = 1; /* PART blocks are short-lived: encode them fast */
	int rc = writer_format(&w->minor);
	if (rc) {
		free(w);
		return rc;
	}
	w->o.batch = w->o.batch && w->minor >= 4;
	w->cx.thorough = w->o.batch && !w->o.quick;
	w->cx.quick = w->o.quick;
	w->cx.v15 = w->minor >= 5;
	*wp = w;
	return 0;
}

int mcz_writer_open_fd(mcz_writer **wp, int fd, const mcz_write_opts *opts)
{
	*wp = NULL;
	if (fd < 0)
		return MCZ_E_ARG;
	mcz_writer *w;
	int rc = writer_new(&w, fd, opts);
	if (rc)
		return rc;
	uint8_t h[MCZ_HEADER_SIZE];
	mcz_block_header(h, (uint16_t)w->minor);
	rc = writer_write(w, h, sizeof h);
	/* "The first META block carries wall_epoch_ns": written at once so
	 * that even a file killed before its first chunk says when it began;
	 * a batch writer (1.4) keeps it for the first BUNDLE ("a writer whose
	 * file nobody reads before it is closed"). */
	mcz_buf p = {0};
	char epoch[32];
	snprintf(epoch, sizeof epoch, "%lld", (long long)w->o.wall_epoch_ns);
	const char *k = "wall_epoch_ns", *v = epoch;
	mcz_meta_encode_kv(&p, &k, &v, 1);
	if (!rc && w->o.batch)
		rc = p.err ? p.err : mcz_meta_decode_kv(p.p, p.len, &w->meta);
	else if (!rc)
		rc = writer_block(w, MCZ_BT_META, &p);
	mcz_buf_free(&p);
	if (rc) {
		writer_free(w); /* the codec contexts and buffers the header made */
		return rc;
	}
	*wp = w;
	return 0;
}

/* The writer of a closed file continued: its streams declared and written
 * already, its counters' last samples, its index (mcz_resume_load). */
static int writer_take(mcz_writer *w, mcz_resume *rs)
{
	const mcz_reader *r = rs->r;
	for (size_t s = 0; s < mcz_stream_count(r); s++) {
		int rc = mcz_writer_add_stream(w, mcz_stream(r, s), NULL);
		if (rc)
			return rc;
		w->prev[s] = w->pprev[s] = rs->prev[s];
	}
	w->streams_written = w->nstreams;
	w->ix = rs->ix;
	memset(&rs->ix, 0, sizeof rs->ix);
	if (mcz_index_set_streams(&w->ix, w->nstreams) || mcz_index_fit_sums(&w->ix))
		return MCZ_E_NOMEM;
	w->last_t = rs->last_t;
	w->have_t = rs->have_t;
	w->requires = rs->requires;
	if (w->requires && w->cx.v15)
		w->cx.v15 = 2;
	w->off = rs->size;
	return 0;
}

int mcz_writer_resume(mcz_writer **wp, const char *path, const mcz_write_opts *opts)
{
	*wp = NULL;
	if (!path)
		return MCZ_E_ARG;
	mcz_resume rs;
	int rc = mcz_resume_load(path, &rs);
	if (rc)
		return rc;
	mcz_writer *w = NULL;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		rc = mcz_error_set(MCZ_E_IO, "%s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != rs.size)
		rc = mcz_error_set(MCZ_E_STATE, "%s: changed while it was read", path);
	else if (lseek(fd, (off_t)rs.size, SEEK_SET) < 0)
		rc = MCZ_E_IO;
	if (!rc)
		rc = writer_new(&w, fd, opts);
	/* its blocks are those of its version: a newer writer's would be
	 * refused by the readers the file was made for (1.6 added only
	 * CODEPART blocks, which 1.5 readers skip, and 1.7 CODESTACKS blocks,
	 * which 1.6 readers skip: a 1.5 or 1.6 file is continued as such) */
	if (!rc && w->minor >= 6 && (rs.minor == 5 || rs.minor == 6))
		w->minor = rs.minor;
	if (!rc && w->minor != rs.minor)
		rc = mcz_error_set(MCZ_E_VERSION, "%s: format 1.%d; this writer writes 1.%d", path,
				   rs.minor, w->minor);
	if (!rc)
		rc = writer_take(w, &rs);
	mcz_resume_free(&rs);
	if (rc) {
		if (w)
			writer_free(w);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	w->own_fd = 1;
	w->path = realpath(path, NULL); /* NULL: no copy at close */
	*wp = w;
	return 0;
}

int mcz_writer_open(mcz_writer **wp, const char *path, const mcz_write_opts *opts)
{
	*wp = NULL;
	int minor;
	if (!path)
		return MCZ_E_ARG;
	if (writer_format(&minor))
		return MCZ_E_ARG; /* before the file is made */
	/* read and write: mcz_writer_close copies blocks out of it */
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return mcz_error_set(errno == ENOSPC ? MCZ_E_NOSPC : MCZ_E_IO, "%s: %s", path,
				     strerror(errno));
	int rc = mcz_writer_open_fd(wp, fd, opts);
	if (rc) {
		close(fd);
		return rc;
	}
	(*wp)->own_fd = 1;
	/* only a regular file is copied at close (never /dev/null's name) */
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		(*wp)->path = realpath(path, NULL); /* NULL: no copy at close */
	return 0;
}

int mcz_writer_meta(mcz_writer *w, const char *key, const char *value)
{
	if (!w || !key || !value)
		return MCZ_E_ARG;
	if (w->err)
		return w->err;
	mcz_buf p = {0};
	mcz_meta_encode_kv(&p, &key, &value, 1);
	int rc = p.err ? p.err : mcz_meta_decode_kv(p.p, p.len, &w->meta);
	mcz_buf_free(&p);
	return rc ? writer_fail(w, rc) : 0;
}

int mcz_writer_topology(mcz_writer *w, const mcz_topo_obj *objs, size_t n)
{
	if (!w || (n && !objs))
		return MCZ_E_ARG;
	for (size_t i = 0; i < n; i++)
		if (objs[i].parent < -1 || objs[i].parent >= (int32_t)i ||
		    objs[i].type > MCZ_TOPO_OTHER)
			return mcz_error_set(MCZ_E_ARG, "topology object %zu: bad parent or type", i);
	mcz_buf p = {0};
	mcz_meta_encode_topo(&p, objs, n);
	mcz_topo_obj *o = NULL;
	size_t no = 0;
	int rc = p.err ? p.err : mcz_meta_decode_topo(p.p, p.len, &o, &no);
	mcz_buf_free(&p);
	if (rc)
		return writer_fail(w, rc);
	mcz_meta_free_topo(w->topo, w->ntopo);
	w->topo = o;
	w->ntopo = no;
	w->topo_dirty = 1;
	return 0;
}

/* The columns' pointers into the slab. */
static void writer_cols_point(mcz_writer *w)
{
	for (size_t i = 0; i < w->nstreams; i++) {
		w->cols[i].v = w->cv + i * w->cap_rows;
		w->cols[i].present = w->cp + i * w->cap_rows;
	}
}

/* The slab made to hold ns streams of rows rows.  Every row of present not
 * yet appended is 0 (mcz_writer_append_sparse sets only the rows it has):
 * the new rows here, the used ones again after each chunk (writer_chunk).
 * A new stride moves the columns up in place, the last one first. */
#define WRITER_SLAB0 (1u << 21)
static int writer_slab(mcz_writer *w, size_t ns, size_t rows)
{
	size_t old = w->cap_rows;
	/* a narrower stride (rows past nrows only): the columns move down
	 * first, the first one first, in the slab as it is */
	if (rows < old) {
		for (size_t i = 1; i < w->nstreams; i++) {
			memmove(w->cv + i * rows, w->cv + i * old, rows * sizeof *w->cv);
			memmove(w->cp + i * rows, w->cp + i * old, rows);
		}
		w->cap_cols = w->cap_cols * old / rows;
		w->cap_rows = old = rows;
		writer_cols_point(w);
	}
	mcz_value *v = realloc(w->cv, (ns * rows + 1) * sizeof *v);
	if (v)
		w->cv = v;
	uint8_t *p = realloc(w->cp, ns * rows + 1);
	if (p)
		w->cp = p;
	if (!v || !p) {
		writer_cols_point(w); /* one of them may have moved */
		return MCZ_E_NOMEM;
	}
	w->cap_cols = ns;
	if (rows != old)
		for (size_t i = w->nstreams; i-- > 0;) {
			memmove(w->cv + i * rows, w->cv + i * old, old * sizeof *v);
			memmove(w->cp + i * rows, w->cp + i * old, old);
			memset(w->cp + i * rows + old, 0, rows - old);
		}
	w->cap_rows = rows;
	writer_cols_point(w);
	return 0;
}

/* A copy of a descriptor's string in the pool, NULL when out of memory. */
static const char *writer_str(mcz_writer *w, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s) + 1;
	writer_strs *b = w->strs;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > WRITER_STRS_BLOCK ? n : WRITER_STRS_BLOCK;
		if (!(b = malloc(sizeof *b + cap)))
			return NULL;
		b->prev = w->strs;
		b->used = 0;
		b->cap = cap;
		w->strs = b;
	}
	char *c = memcpy(b->s + b->used, s, n);
	b->used += n;
	w->str_bytes += n;
	return c;
}

int mcz_writer_add_stream(mcz_writer *w, const mcz_stream_desc *d, uint32_t *id)
{
	if (!w || !d || d->kind > MCZ_GAUGE || d->type > MCZ_F64 ||
	    (d->kind == MCZ_COUNTER && d->type != MCZ_U64))
		return mcz_error_set(MCZ_E_ARG, "stream %s: counters must be U64",
				     d && d->name ? d->name : "?");
	if (w->err)
		return w->err;
	if (w->nstreams == w->cap_streams) {
		size_t nc = w->cap_streams ? 2 * w->cap_streams : 16;
		mcz_stream_desc *s = realloc(w->streams, nc * sizeof *s);
		if (s)
			w->streams = s;
		mcz_codec_prev *pv = realloc(w->prev, nc * sizeof *pv);
		if (pv)
			w->prev = pv;
		writer_col *c = realloc(w->cols, nc * sizeof *c);
		if (c)
			w->cols = c;
		mcz_bucket *b = realloc(w->sums, nc * sizeof *b);
		if (b)
			w->sums = b;
		mcz_codec_prev *pp = realloc(w->pprev, nc * sizeof *pp);
		if (pp)
			w->pprev = pp;
		mcz_bucket *pb = realloc(w->psums, nc * sizeof *pb);
		if (pb)
			w->psums = pb;
		if (!s || !pv || !c || !b || !pp || !pb)
			return writer_fail(w, MCZ_E_NOMEM);
		w->cap_streams = nc;
	}
	size_t i = w->nstreams;
	if (w->cap_rows && i == w->cap_cols) {
		/* a file that turns out very wide keeps fewer rows' room, down
		 * to 8, for a slab of about WRITER_SLAB0 values: the slab's
		 * pages are faulted in as the columns grow, and a wide archive
		 * of few rows would fault in room it never fills */
		size_t ns = w->cap_cols ? 2 * w->cap_cols : 16, rows = w->cap_rows;
		while (rows > 8 && rows / 2 > w->nrows && ns * rows > WRITER_SLAB0)
			rows /= 2;
		if (writer_slab(w, ns, rows))
			return writer_fail(w, MCZ_E_NOMEM);
	}
	mcz_stream_desc *c = &w->streams[i];
	*c = *d;
	c->name = writer_str(w, d->name);
	c->source = writer_str(w, d->source);
	c->native = writer_str(w, d->native);
	c->unit = writer_str(w, d->unit);
	c->note = writer_str(w, d->note);
	c->instance = writer_str(w, d->instance);
	if (!c->name || !c->source || !c->native || !c->unit || !c->note || !c->instance)
		return writer_fail(w, MCZ_E_NOMEM);
	c->id = (uint32_t)i;
	memset(&w->prev[i], 0, sizeof w->prev[i]);
	memset(&w->pprev[i], 0, sizeof w->pprev[i]);
	w->nstreams++;
	if (w->cap_rows) {
		w->cols[i].v = w->cv + i * w->cap_rows;
		w->cols[i].present = w->cp + i * w->cap_rows;
		memset(w->cols[i].present, 0, w->cap_rows);
		/* rows appended before the stream was declared: absent */
		memset(w->cols[i].v, 0, w->nrows * sizeof *w->cols[i].v);
	}
	/* a batch writer's descriptors past a small body's (about 16 bytes
	 * a stream beside its strings): the dictionary at the packing level,
	 * loaded on a thread while the rows are read */
	if (w->cx.thorough && w->str_bytes + 16 * w->nstreams >= MCZ_PACK_SMALL_BYTES)
		mcz_bundle_prepare(&w->cx, mcz_pack_level(&w->cx));
	if (id)
		*id = (uint32_t)i;
	return 0;
}

/* The columns grow by doubling from WRITER_ROWS0 rows, not from a chunk's
 * rows at once: a wide PCP archive of few rows (15,049 streams, 61 rows)
 * had every stream's column made for a chunk of 1,024 rows, 116 MB of
 * pages first touched, a quarter of its import. */
#define WRITER_ROWS0 64
static int writer_grow_rows(mcz_writer *w)
{
	size_t nc = w->cap_rows ? 2 * w->cap_rows
				: (w->o.chunk_rows < WRITER_ROWS0 ? w->o.chunk_rows : WRITER_ROWS0);
	int64_t *t = realloc(w->t, nc * sizeof *t);
	if (!t)
		return MCZ_E_NOMEM;
	w->t = t;
	return writer_slab(w, w->cap_cols > w->nstreams ? w->cap_cols : w->nstreams, nc);
}

/* A new row at time t: its index in *r, or an error. */
static int writer_row(mcz_writer *w, int64_t t, size_t *r)
{
	if (w->err)
		return w->err;
	/* "Row times are strictly increasing across the whole file." */
	if (w->have_t && t <= w->last_t)
		return mcz_error_set(MCZ_E_ARG, "row time %lld is not after %lld", (long long)t,
				     (long long)w->last_t);
	if (w->nrows == w->cap_rows && writer_grow_rows(w))
		return writer_fail(w, MCZ_E_NOMEM);
	*r = w->nrows;
	w->t[*r] = t;
	return 0;
}

/* The row just filled is in; a chunk when it is full. */
static int writer_row_done(mcz_writer *w, int64_t t)
{
	w->nrows++;
	w->last_t = t;
	w->have_t = 1;
	if (w->nrows >= w->o.chunk_rows || (w->o.chunk_ns > 0 && t - w->t[0] >= w->o.chunk_ns))
		return mcz_writer_flush(w);
	return 0;
}

int mcz_writer_append(mcz_writer *w, int64_t t, const mcz_value *vals, const uint8_t *present)
{
	if (!w || (w->nstreams && !vals))
		return MCZ_E_ARG;
	size_t r;
	int rc = writer_row(w, t, &r);
	if (rc)
		return rc;
	for (size_t s = 0; s < w->nstreams; s++) {
		w->cols[s].v[r] = vals[s];
		w->cols[s].present[r] = present ? present[s] != 0 : 1;
	}
	return writer_row_done(w, t);
}

int mcz_writer_append_sparse(mcz_writer *w, int64_t t, const uint32_t *ids, const mcz_value *vals,
			     size_t n)
{
	if (!w || (n && (!ids || !vals)))
		return MCZ_E_ARG;
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= w->nstreams)
			return mcz_error_set(MCZ_E_ARG, "stream %u not declared", ids[i]);
	size_t r;
	int rc = writer_row(w, t, &r);
	if (rc)
		return rc;
	/* the other streams' rows are 0 already (writer_col_alloc) */
	for (size_t i = 0; i < n; i++) {
		w->cols[ids[i]].v[r] = vals[i];
		w->cols[ids[i]].present[r] = 1;
	}
	return writer_row_done(w, t);
}

int mcz_writer_mark(mcz_writer *w, int64_t t, mcz_mark_kind kind, uint32_t source,
		    const char *text)
{
	if (!w || (unsigned)kind > MCZ_MARK_GAP)
		return MCZ_E_ARG;
	if (w->err)
		return w->err;
	if (w->nmarks == w->cap_marks) {
		size_t nc = w->cap_marks ? 2 * w->cap_marks : 16;
		mcz_mark *m = realloc(w->marks, nc * sizeof *m);
		if (!m)
			return writer_fail(w, MCZ_E_NOMEM);
		w->marks = m;
		w->cap_marks = nc;
	}
	char *s = strdup(text ? text : "");
	if (!s)
		return writer_fail(w, MCZ_E_NOMEM);
	w->marks[w->nmarks++] = (mcz_mark){t, (uint8_t)kind, source, s};
	return 0;
}

int mcz_writer_aux(mcz_writer *w, const char *name, const void *data, size_t len)
{
	if (!w || !name || (len && !data))
		return MCZ_E_ARG;
	mcz_buf p = {0};
	mcz_buf_str(&p, name);
	mcz_buf_put(&p, data, len);
	int rc = writer_block(w, MCZ_BT_AUX, &p);
	mcz_buf_free(&p);
	return rc;
}

static int writer_pending(mcz_writer *w);

int mcz_writer_member(mcz_writer *w, const char *name, const void *file, size_t len)
{
	if (!w || !name || !file || !len)
		return MCZ_E_ARG;
	if (w->err)
		return w->err;
	if (w->minor < 4)
		return mcz_error_set(MCZ_E_ARG, "a job file needs format 1.4 (MCZ_FORMAT is older)");
	/* the metadata first (the "members" count): a job file cut short
	 * still says how many recordings it should hold (SPEC.md 5.9) */
	if (writer_pending(w))
		return w->err;
	mcz_buf head = {0};
	mcz_buf_str(&head, name);
	if (head.err || head.len + len > MCZ_BLOCK_MAX_PAYLOAD || head.len + len < len) {
		int rc = head.err ? head.err : mcz_error_set(MCZ_E_ARG, "%s: larger than 2 GiB", name);
		mcz_buf_free(&head);
		return rc;
	}
	/* framed here rather than by mcz_block_frame: the member (a rank's
	 * whole recording, mapped by the caller) is written from where it is,
	 * never copied into a buffer */
	uint8_t h[MCZ_BLOCK_HDR], crc[4];
	uint32_t plen = (uint32_t)(head.len + len);
	memcpy(h, MCZ_BLOCK_SYNC, 4);
	h[4] = MCZ_BT_MEMBER;
	h[5] = 0;
	h[6] = MCZ_BF_CRITICAL; /* a reader before 1.4 would show an empty file */
	h[7] = 0;
	mcz_buf_le32(h + 8, plen);
	mcz_buf_le32(h + 12, mcz_block_crc(h, 12));
	mcz_buf_le32(crc, (uint32_t)crc32_combine(mcz_block_crc(head.p, head.len),
						 mcz_block_crc(file, len), (z_off_t)len));
	uint64_t at = w->off;
	int rc = writer_write(w, h, sizeof h);
	if (!rc)
		rc = writer_write(w, head.p, head.len);
	if (!rc)
		rc = writer_write(w, file, len);
	if (!rc)
		rc = writer_write(w, crc, sizeof crc);
	mcz_buf_free(&head);
	if (rc) {
		writer_cut(w, at);
		return rc;
	}
	if (mcz_index_add_block(&w->ix, MCZ_BT_MEMBER, at, w->off - at))
		return writer_fail(w, MCZ_E_NOMEM);
	return 0;
}

int mcz_writer_code(mcz_writer *w, const mcz_code *c)
{
	if (!w || !c)
		return MCZ_E_ARG;
	mcz_buf p = {0};
	int rc = mcz_code_payload(&w->cx, c, &p);
	if (!rc)
		rc = writer_block(w, MCZ_BT_CODE, &p);
	/* the hits by thread, right after the CODE block they split */
	if (!rc && c->nthreads) {
		rc = mcz_code_threads_payload(&w->cx, c, &p);
		if (!rc)
			rc = writer_block_as(w, MCZ_BT_CODETHREADS, &p, 1);
	}
	/* the call stacks, as 1.7 has them */
	if (!rc && c->nframes && w->minor >= 7) {
		rc = mcz_code_stacks_payload(&w->cx, c, &p);
		if (!rc)
			rc = writer_block_as(w, MCZ_BT_CODESTACKS, &p, 1);
	}
	mcz_buf_free(&p);
	return rc;
}

int mcz_writer_code_part(mcz_writer *w, const mcz_code_raw *part)
{
	if (!w)
		return MCZ_E_ARG;
	mcz_buf p = {0};
	int rc = mcz_code_part_payload(&w->cx, part, &p);
	if (!rc)
		rc = writer_block_as(w, MCZ_BT_CODEPART, &p, 1);
	/* the part's stacks right after it, as 1.7 has them */
	if (!rc && w->minor >= 7) {
		rc = mcz_code_part_stacks_payload(&w->cx, part, &p);
		if (!rc)
			rc = writer_block_as(w, MCZ_BT_CODEPARTSTACKS, &p, 1);
		else if (rc == MCZ_E_NOTFOUND)
			rc = 0;
	}
	mcz_buf_free(&p);
	return rc;
}

/* The pending marks are in the file. */
static void writer_marks_done(mcz_writer *w)
{
	for (size_t i = 0; i < w->nmarks; i++)
		free((char *)w->marks[i].text);
	w->nmarks = 0;
}

/* The chunk's rows encoded into out with cx (zdir: the file holds a
 * BUNDLE, 1.4's codecs allowed); w->prev and w->sums advance. */
static int writer_encode(mcz_writer *w, mcz_codec_ctx *cx, mcz_buf *out, int *grouped, int zdir)
{
	mcz_chunk_input *cols = malloc((w->nstreams + 1) * sizeof *cols);
	if (!cols)
		return MCZ_E_NOMEM;
	for (size_t s = 0; s < w->nstreams; s++) {
		cols[s].v = w->cols[s].v;
		cols[s].present = w->cols[s].present;
	}
	out->len = 0;
	*grouped = 0;
	int rc = w->minor < 3 ? mcz_chunk_encode(cx, out, w->t, w->nrows, w->streams, cols,
					    w->nstreams, w->prev, w->sums)
			: mcz_gchunk_encode(cx, out, grouped, zdir, w->t, w->nrows, w->streams,
					    cols, w->nstreams, w->prev, w->sums);
	free(cols);
	return rc;
}

static int writer_emit(mcz_writer *w, int grouped);

static int writer_chunk(mcz_writer *w)
{
	int grouped, rc = writer_encode(w, &w->cx, &w->payload, &grouped, w->ix.bundled);
	if (rc)
		return writer_fail(w, rc);
	return writer_emit(w, grouped);
}

/* The chunk in w->payload (grouped: a GCHUNK, 2 with runs by metric)
 * into the file and the index. */
static int writer_emit(mcz_writer *w, int grouped)
{
	int rc;
	if (grouped == 2 && !w->requires) {
		/* runs transposed by metric (1.5): "A GCHUNK with such a run
		 * comes after a REQUIRES block of 5 or more", which readers
		 * before 1.5 refuse (critical, unknown type) */
		mcz_buf q = {0};
		mcz_buf_uv(&q, 5);
		rc = writer_block(w, MCZ_BT_REQUIRES, &q);
		mcz_buf_free(&q);
		if (rc)
			return rc;
		w->requires = 1;
		w->cx.v15 = 2;
	}
	uint64_t at = w->off;
	if ((rc = writer_block(w, grouped ? MCZ_BT_GCHUNK : MCZ_BT_CHUNK, &w->payload)))
		return rc;
	w->ix.grouped |= grouped;
	mcz_index_chunk c = {at,		     w->off - at,	   w->t[0],
			     w->t[w->nrows - 1], (uint32_t)w->nrows, (uint32_t)w->nstreams,
			     0};
	for (size_t s = 0; s < w->nstreams; s++)
		c.nvalues += w->sums[s].count;
	if (mcz_index_add_chunk(&w->ix, &c, w->sums, w->nstreams))
		return writer_fail(w, MCZ_E_NOMEM);
	for (size_t s = 0; s < w->nstreams; s++) /* rows not yet appended are absent */
		memset(w->cols[s].present, 0, w->nrows);
	w->nrows = 0;
	w->pstart = 0;
	if (w->nstreams) /* a recording of no streams has no arrays (memcpy wants pointers) */
		memcpy(w->pprev, w->prev, w->nstreams * sizeof *w->prev);
	return 0;
}

/* The rows appended since the last PART block (or chunk), as a PART block
 * (SPEC.md 6.4: "Its rows are the rows of the next CHUNK that no earlier
 * PART block holds"), its counters' heads relative to the previous PART's
 * last sample. */
static int writer_part(mcz_writer *w)
{
	size_t n = w->nrows - w->pstart;
	mcz_chunk_input *cols = malloc((w->nstreams + 1) * sizeof *cols);
	if (!cols)
		return writer_fail(w, MCZ_E_NOMEM);
	for (size_t s = 0; s < w->nstreams; s++) {
		cols[s].v = w->cols[s].v + w->pstart;
		cols[s].present = w->cols[s].present + w->pstart;
	}
	/* a copy of the state: a failed write must not leave pprev ahead */
	mcz_codec_prev *pv = malloc((w->nstreams + 1) * sizeof *pv);
	if (!pv) {
		free(cols);
		return writer_fail(w, MCZ_E_NOMEM);
	}
	memcpy(pv, w->pprev, w->nstreams * sizeof *pv);
	w->payload.len = 0;
	int rc = mcz_chunk_encode(&w->pcx, &w->payload, w->t + w->pstart, n, w->streams, cols,
				  w->nstreams, pv, w->psums);
	free(cols);
	if (!rc)
		rc = writer_block(w, MCZ_BT_PART, &w->payload);
	if (!rc) {
		memcpy(w->pprev, pv, w->nstreams * sizeof *pv);
		w->pstart = w->nrows;
		w->nparts++;
	}
	free(pv);
	return rc ? writer_fail(w, rc) : 0;
}

/* The items of a BUNDLE of the pending blocks: META, TOPO, the streams'
 * descriptors (sv, a STREAMS body, or a COLSTREAMS one when colstreams;
 * none when with_streams is 0) and MARKS, those that have bytes; how many. */
static size_t pending_items(mcz_buf *items, const mcz_buf *mb, const mcz_buf *tb,
			    const mcz_buf *sv, int colstreams, int with_streams, const mcz_buf *kb)
{
	size_t k = 0;
	const mcz_buf *body[4] = {mb, tb, sv, kb};
	const uint16_t type[4] = {MCZ_BT_META, MCZ_BT_TOPO,
				  colstreams ? MCZ_BT_COLSTREAMS : MCZ_BT_STREAMS, MCZ_BT_MARKS};
	for (int i = 0; i < 4; i++)
		if (i == 2 ? with_streams : body[i]->len != 0) {
			mcz_bundle_add(items, type[i], body[i]);
			k++;
		}
	return k;
}

/* Whether STREAMS lose to COLSTREAMS of ct bytes at level 1 already
 * (mcz_metapol_screen_tries, mcz_metapol_screen_loses). */
static int streams_lose(mcz_writer *w, const mcz_buf *sb, size_t ct)
{
	if (!mcz_metapol_screen_tries(sb->len))
		return 0;
	mcz_buf z = {0};
	int lose = !mcz_block_pack_at(&w->cx, sb, &z, 1) && mcz_metapol_screen_loses(z.len, ct);
	mcz_buf_free(&z);
	return lose;
}

/* body packed as a metadata block at zstd level (0: the metadata level) */
static int meta_pack(mcz_writer *w, const mcz_buf *body, mcz_buf *out, int level)
{
	return level ? mcz_block_pack_at(&w->cx, body, out, level) : mcz_block_pack(&w->cx, body, out);
}

/* out: a copy of the packed block in */
static int meta_copy(const mcz_buf *in, mcz_buf *out)
{
	out->len = 0;
	mcz_buf_put(out, in->p, in->len);
	return out->err;
}

/* The pending STREAMS, META and TOPO blocks ("pending STREAMS, META and
 * TOPO blocks are written before the chunk"), as blocks of their own or,
 * when that is smaller (1.4), as one BUNDLE block, with the pending marks
 * too in a batch writer. */
/* The pending metadata of writer_pending: the bodies, the packed blocks
 * and what was chosen. */
typedef struct pending {
	mcz_buf sb, cb, mb, tb, kb; /* bodies: STREAMS, COLSTREAMS, META, TOPO, MARKS */
	mcz_buf rows, cols, alt;    /* packed STREAMS, packed COLSTREAMS, scratch */
	uint32_t first;             /* the first new stream */
	size_t n;                   /* new streams */
	int c;                      /* COLSTREAMS rather than STREAMS */
	int lt;                     /* the trial level, or 0 (metapolicy.h) */
} pending;

static void pending_free(pending *pd)
{
	mcz_buf *b[] = {&pd->sb, &pd->cb, &pd->mb, &pd->tb, &pd->kb, &pd->rows, &pd->cols, &pd->alt};
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		mcz_buf_free(b[i]);
}

/* The new streams' descriptors: STREAMS (rows) and COLSTREAMS (cols, its
 * body cb) packed as the policy says, and which of the two is for the
 * file (pd->c). */
static int pending_streams(mcz_writer *w, pending *pd)
{
	const mcz_stream_desc *sd = w->streams + pd->first;
	size_t n = pd->n;
	mcz_buf *sb = &pd->sb, *cb = &pd->cb, *rows = &pd->rows, *cols = &pd->cols, *alt = &pd->alt;
	mcz_buf c2 = {0};
	int rc, lt;
	mcz_meta_encode_streams(sb, pd->first, sd, n);
	lt = pd->lt = mcz_metapol_trial_level(sb->len, mcz_meta_level(&w->cx, sb->len));
	/* value numbers or not, whichever packs smaller; STREAMS beside
	 * (large descriptors: first at the trial level) */
	mcz_scols_encode(&c2, pd->first, sd, n, 1);
	mcz_scols_encode(cb, pd->first, sd, n, 0);
	int fit_cb = mcz_scols_fits(cb, sd, n), fit_c2 = mcz_scols_fits(&c2, sd, n);
	/* no value repeated apart from its neighbours: the same bytes,
	 * packed once (a small archive's import: 2 passes of its 10) */
	int same = c2.len == cb->len && !memcmp(c2.p, cb->p, cb->len);
	rc = meta_pack(w, cb, cols, lt);
	if (!rc)
		rc = same ? meta_copy(cols, alt) : meta_pack(w, &c2, alt, lt);
	int rows_final = !lt;
	int raw_ok = mcz_metapol_raw_ok(w->minor, cb->len, cols->len, c2.len, alt->len,
					fit_cb && fit_c2);
	if (!rc && raw_ok &&
	    (mcz_metapol_raw_sure(sb->len, cb->len, c2.len) ||
	     streams_lose(w, sb, alt->len < cols->len ? alt->len : cols->len))) {
		mcz_buf_u8(rows, 0);
		mcz_buf_put(rows, sb->p, sb->len);
		rc = rows->err;
		rows_final = 1;
	} else if (!rc) {
		rc = meta_pack(w, sb, rows, lt);
	}
	/* of large descriptors, the sizes at the trial level; what is at the
	 * metadata level already */
	size_t ct = alt->len < cols->len ? alt->len : cols->len, rt = rows->len;
	int cols_final = !lt;
	if (lt && !rc && mcz_metapol_close(alt->len, cols->len)) {
		rc = meta_pack(w, cb, cols, 0);
		if (!rc)
			rc = same ? meta_copy(cols, alt) : meta_pack(w, &c2, alt, 0);
		cols_final = 1;
	}
	int fits = fit_cb;
	if (!rc && alt->len < cols->len) {
		mcz_buf t = *cols;
		*cols = *alt;
		*alt = t;
		t = *cb;
		*cb = c2;
		c2 = t;
		fits = fit_c2;
	}
	mcz_buf_free(&c2);
	if (!rc && !cols_final && mcz_metapol_again(ct, rt)) {
		rc = meta_pack(w, cb, cols, 0);
		cols_final = 1;
	}
	if (!rc && !rows_final && mcz_metapol_again(rt, ct)) {
		rc = meta_pack(w, sb, rows, 0);
		rows_final = 1;
	}
	pd->c = mcz_metapol_cols(w->minor, cols->len, rows->len, cb->len, fits);
	/* the one written at the metadata level */
	if (!rc && pd->c && !cols_final)
		rc = meta_pack(w, cb, cols, 0);
	if (!rc && !pd->c && !rows_final)
		rc = meta_pack(w, sb, rows, 0);
	if (!fits)
		mcz_buf_free(cb); /* not for a BUNDLE either */
	return rc;
}

/* The blocks of their own: META, TOPO and (a batch writer's) MARKS
 * encoded; their bytes and the streams' block's, as written apart
 * (marks: written after the chunk then, counted alike). */
static int pending_apart(mcz_writer *w, pending *pd, uint64_t *apart)
{
	int rc = 0;
	if (w->meta.n)
		mcz_meta_encode_kv(&pd->mb, (const char *const *)w->meta.keys,
				   (const char *const *)w->meta.vals, w->meta.n);
	if (w->topo_dirty)
		mcz_meta_encode_topo(&pd->tb, w->topo, w->ntopo);
	if (w->o.batch && w->nmarks)
		mcz_meta_encode_marks(&pd->kb, w->marks, w->nmarks);
	*apart = pd->n ? (pd->c ? pd->cols.len : pd->rows.len) + MCZ_BLOCK_OVERHEAD : 0;
	const mcz_buf *own[3] = {&pd->mb, &pd->tb, &pd->kb};
	for (int i = 0; i < 3 && !rc; i++)
		if (own[i]->len && !(rc = mcz_block_pack(&w->cx, own[i], &pd->alt)))
			*apart += pd->alt.len + MCZ_BLOCK_OVERHEAD;
	return rc;
}

/* BUNDLE (1.4, 5.8) into w->payload, with the STREAMS or the COLSTREAMS
 * body, whichever is smaller, where it beats the blocks apart (*bundle);
 * large descriptors stay a block of their own (mcz_metapol_large). */
static int pending_bundle(mcz_writer *w, pending *pd, uint64_t apart, int large, int *bundle)
{
	int rc = 0, won = 0;
	mcz_buf *p = &w->payload;
	size_t nb = large ? 0 : pd->n;
	*bundle = 0;
	p->len = 0;
	/* (large descriptors: the bundles compared at the trial level, with
	 * no regard to apart, and the smallest packed again at the metadata
	 * level to be compared with apart) */
	for (int v = 0; v < 2 && !rc && w->minor >= 4; v++) {
		const mcz_buf *sv = v ? &pd->cb : &pd->sb;
		if (v && (!nb || !pd->cb.len))
			continue;
		if (!v && mcz_metapol_bundle_skip_rows(nb != 0, pd->c, pd->cb.len, pd->rows.len,
						       pd->cols.len))
			continue;
		mcz_buf items = {0};
		size_t k = pending_items(&items, &pd->mb, &pd->tb, sv, v, nb != 0, &pd->kb);
		if (k)
			rc = mcz_bundle_pack(&w->cx, &items, k, 1, pd->lt, &pd->alt);
		mcz_buf_free(&items);
		if (k && !rc && mcz_metapol_bundle_keeps(pd->lt, pd->alt.len, apart, *bundle, p->len)) {
			mcz_buf t = *p;
			*p = pd->alt;
			pd->alt = t;
			*bundle = 1;
			won = v;
		}
	}
	if (pd->lt && *bundle && !rc) {
		mcz_buf items = {0};
		size_t k = pending_items(&items, &pd->mb, &pd->tb, won ? &pd->cb : &pd->sb, won, nb != 0,
					 &pd->kb);
		/* with the dictionary or not, as chosen */
		rc = mcz_bundle_pack(&w->cx, &items, k, p->p[0] == 2 ? 2 : 0, 0, &pd->alt);
		mcz_buf_free(&items);
		*bundle = !rc && mcz_metapol_bundle_wins(pd->alt.len, apart);
		if (*bundle) {
			mcz_buf t = *p;
			*p = pd->alt;
			pd->alt = t;
		}
	}
	return rc;
}

/* The pending blocks written: the BUNDLE in w->payload (and large
 * descriptors beside it), else each block of its own. */
static void pending_emit(mcz_writer *w, pending *pd, int bundle, int large)
{
	const mcz_buf *sblk = pd->c ? &pd->cols : &pd->rows;
	uint16_t stype = pd->c ? MCZ_BT_COLSTREAMS : MCZ_BT_STREAMS;
	if (bundle) {
		if (!writer_block_as(w, MCZ_BT_BUNDLE, &w->payload, 1)) {
			w->ix.bundled = 1;
			w->cx.v14 = 1; /* readers before 1.4 refuse the file now */
			if (pd->kb.len)
				writer_marks_done(w);
		}
		if (large)
			writer_block_as(w, stype, sblk, 1);
	} else {
		if (pd->mb.len)
			writer_block(w, MCZ_BT_META, &pd->mb);
		if (pd->n)
			writer_block_as(w, stype, sblk, 1);
		if (pd->tb.len)
			writer_block(w, MCZ_BT_TOPO, &pd->tb);
	}
}

static int writer_pending(mcz_writer *w)
{
	pending pd = {.first = (uint32_t)w->streams_written, .n = w->nstreams - w->streams_written};
	uint64_t apart = 0;
	int rc = pd.n ? pending_streams(w, &pd) : 0, bundle = 0;
	int large = mcz_metapol_large(pd.sb.len);
	if (!rc)
		rc = pending_apart(w, &pd, &apart);
	if (large)
		apart -= pd.n ? (pd.c ? pd.cols.len : pd.rows.len) + MCZ_BLOCK_OVERHEAD : 0;
	if (!rc)
		rc = pending_bundle(w, &pd, apart, large, &bundle);
	if (rc)
		writer_fail(w, rc);
	else
		pending_emit(w, &pd, bundle, large);
	pending_free(&pd);
	if (w->err)
		return w->err;
	w->streams_written = w->nstreams;
	mcz_meta_free_kv(&w->meta);
	w->topo_dirty = 0;
	return 0;
}

/* The pending marks ("pending MARKS after it"). */
static int writer_marks(mcz_writer *w)
{
	mcz_buf *p = &w->payload;
	if (w->nmarks) {
		p->len = 0;
		mcz_meta_encode_marks(p, w->marks, w->nmarks);
		if (writer_block(w, MCZ_BT_MARKS, p))
			return w->err;
		writer_marks_done(w);
	}
	return 0;
}

/* A batch writer's chunk that brings new streams is encoded on a thread
 * of its own while their descriptors are packed (writer_pending): on a
 * small archive those trials at the packing level are as long as the
 * chunk or longer.  The chunk is encoded as if the metadata became a BUNDLE, which a batch
 * writer's nearly always does; where it did not, it is encoded again from
 * the counters' state before it (w->pprev).  The bytes are those of
 * writer_pending then writer_chunk. */
typedef struct writer_job {
	mcz_writer *w;
	mcz_buf out;
	int guess, grouped, rc;
} writer_job;

static void *writer_job_run(void *arg)
{
	writer_job *j = arg;
	j->w->ccx.v14 = j->guess;
	j->rc = writer_encode(j->w, &j->w->ccx, &j->out, &j->grouped, j->guess);
	return NULL;
}

static int writer_overlap(mcz_writer *w)
{
	mcz_codec_ctx *c = &w->ccx;
	c->level = w->cx.level;
	c->fast = w->cx.fast;
	c->thorough = w->cx.thorough;
	c->quick = w->cx.quick;
	c->v15 = w->cx.v15;
	/* the guess, 1: a test (MCZ_TEST_GUESS=0) has it wrong, to see the
	 * chunk encoded again give the same bytes */
	const char *g = getenv("MCZ_TEST_GUESS");
	writer_job j = {.w = w, .guess = !(g && *g == '0')};
	pthread_t th;
	int threaded = pthread_create(&th, NULL, writer_job_run, &j) == 0;
	int rc = writer_pending(w);
	if (threaded)
		pthread_join(th, NULL);
	for (size_t k = 0; k <= MCZ_CODEC_MAX; k++)
		w->cx.tried[k] += c->tried[k], c->tried[k] = 0;
	if (!rc && threaded && !j.rc && w->ix.bundled == j.guess) {
		mcz_buf t = w->payload;
		w->payload = j.out;
		j.out = t;
		mcz_buf_free(&j.out);
		return writer_emit(w, j.grouped);
	}
	mcz_buf_free(&j.out);
	if (rc)
		return rc;
	if (threaded && w->nstreams) /* the counters' state before the chunk */
		memcpy(w->prev, w->pprev, w->nstreams * sizeof *w->prev);
	return writer_chunk(w);
}

int mcz_writer_flush(mcz_writer *w)
{
	if (!w)
		return MCZ_E_ARG;
	if (w->err)
		return w->err;
	if (w->cx.thorough && w->minor >= 4 && w->nrows && w->nstreams > w->streams_written) {
		if (writer_overlap(w) || writer_marks(w))
			return w->err;
	} else if (writer_pending(w) || (w->nrows && writer_chunk(w)) || writer_marks(w)) {
		return w->err;
	}
	if (w->o.fsync_chunks && fsync(w->fd) != 0 && errno != EINVAL)
		return writer_fail(w, MCZ_E_IO);
	return 0;
}

int mcz_writer_sync(mcz_writer *w)
{
	if (!w)
		return MCZ_E_ARG;
	if (w->err)
		return w->err;
	if (writer_pending(w) || (w->nrows > w->pstart && writer_part(w)) || writer_marks(w))
		return w->err;
	if (w->o.fsync_chunks && fsync(w->fd) != 0 && errno != EINVAL)
		return writer_fail(w, MCZ_E_IO);
	return 0;
}

uint64_t mcz_writer_bytes(const mcz_writer *w)
{
	return w ? w->off : 0;
}

int mcz_writer_finish_index(int fd, uint64_t at, mcz_index *ix, mcz_codec_ctx *cx,
			    uint64_t *end)
{
	mcz_buf p = {0}, b = {0};
	int rc = mcz_index_encode(ix, cx, &p);
	if (!rc) {
		mcz_block_frame(&b, MCZ_BT_INDEX, 0, p.p, p.len);
		uint8_t tr[MCZ_TRAILER_SIZE];
		mcz_block_trailer(tr, at);
		mcz_buf_put(&b, tr, sizeof tr);
		rc = b.err;
	}
	for (size_t done = 0; !rc && done < b.len;) {
		ssize_t k = pwrite(fd, b.p + done, b.len - done, (off_t)(at + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = k < 0 && errno != ENOSPC && errno != EDQUOT ? MCZ_E_IO : MCZ_E_NOSPC;
		else
			done += (size_t)k;
	}
	*end = at + b.len;
	mcz_buf_free(&p);
	mcz_buf_free(&b);
	return rc;
}

static int writer_copy(int from, int to, uint64_t off, uint64_t len, uint64_t at, uint8_t *buf,
		       size_t cap)
{
	while (len > 0) {
		size_t n = len < cap ? (size_t)len : cap;
		ssize_t k = pread(from, buf, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return MCZ_E_IO;
		for (ssize_t done = 0; done < k;) {
			ssize_t m = pwrite(to, buf + done, (size_t)(k - done), (off_t)at);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return m < 0 && errno != ENOSPC && errno != EDQUOT ? MCZ_E_IO
										  : MCZ_E_NOSPC;
			done += m;
			at += (uint64_t)m;
		}
		off += (uint64_t)k;
		len -= (uint64_t)k;
	}
	return 0;
}

/* The closed file without its PART blocks: at close, "a writer that wrote
 * PART blocks may write the file again without them to a new file and
 * rename it over the old name".  The header, then every block the
 * index lists, byte for byte and in file order, then a new index and
 * trailer.  On any failure the temporary file is removed and the closed
 * file, valid as it is, stays. */
static void writer_compact(mcz_writer *w)
{
	size_t nb = w->ix.nblocks, nc = w->ix.nchunks;
	size_t plen = strlen(w->path) + 32;
	char *tmp = malloc(plen);
	uint8_t *buf = malloc(1 << 16);
	struct stat st, pst;
	int tfd = -1, rc = !tmp || !buf || fstat(w->fd, &st) ? MCZ_E_NOMEM : 0;
	/* the path still names this file (not moved away meanwhile) */
	if (!rc && (stat(w->path, &pst) != 0 || pst.st_dev != st.st_dev ||
		    pst.st_ino != st.st_ino || !S_ISREG(st.st_mode) || st.st_nlink != 1))
		rc = MCZ_E_STATE;
	if (!rc) {
		snprintf(tmp, plen, "%s.%ld.tmp", w->path, (long)getpid());
		tfd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
		rc = tfd < 0 ? MCZ_E_IO : 0;
	}
	uint64_t at = MCZ_HEADER_SIZE;
	if (!rc)
		rc = writer_copy(w->fd, tfd, 0, MCZ_HEADER_SIZE, 0, buf, 1 << 16);
	/* both lists are in file order: merge them */
	for (size_t i = 0, j = 0; !rc && (i < nb || j < nc);) {
		int blk = j == nc || (i < nb && w->ix.blocks[i].off < w->ix.chunks[j].off);
		uint64_t *off = blk ? &w->ix.blocks[i++].off : &w->ix.chunks[j].off;
		uint64_t size = blk ? w->ix.blocks[i - 1].size : w->ix.chunks[j++].size;
		rc = writer_copy(w->fd, tfd, *off, size, at, buf, 1 << 16);
		*off = at;
		at += size;
	}
	uint64_t end;
	if (!rc)
		rc = mcz_writer_finish_index(tfd, at, &w->ix, &w->cx, &end);
	if (!rc && fdatasync(tfd) != 0 && errno != EINVAL)
		rc = MCZ_E_IO;
	if (tfd >= 0 && close(tfd) != 0 && !rc)
		rc = MCZ_E_IO;
	if (!rc && rename(tmp, w->path) != 0)
		rc = MCZ_E_IO;
	if (!rc)
		w->off = end;
	if (rc && tfd >= 0)
		unlink(tmp);
	free(tmp);
	free(buf);
}

static int writer_finish(mcz_writer *w)
{
	if (mcz_writer_flush(w))
		return w->err;
	if (mcz_index_set_streams(&w->ix, w->nstreams))
		return writer_fail(w, MCZ_E_NOMEM);
	uint64_t end;
	int rc = mcz_writer_finish_index(w->fd, w->off, &w->ix, &w->cx, &end);
	if (rc) {
		/* no half index: the file ends with its last whole block (readers
		 * recover it by scanning, every row included) */
		while (ftruncate(w->fd, (off_t)w->off) != 0 && errno == EINTR)
			;
		return writer_fail(w, rc);
	}
	w->off = end;
	if (w->o.fsync_chunks && fsync(w->fd) != 0 && errno != EINVAL)
		return writer_fail(w, MCZ_E_IO);
	if (w->nparts && w->path)
		writer_compact(w);
	return 0;
}

/* Everything a writer holds (not its fd). */
static void writer_free(mcz_writer *w)
{
	while (w->strs) {
		writer_strs *b = w->strs;
		w->strs = b->prev;
		free(b);
	}
	free(w->cv);
	free(w->cp);
	for (size_t i = 0; i < w->nmarks; i++)
		free((char *)w->marks[i].text);
	free(w->marks);
	free(w->streams);
	free(w->cols);
	free(w->prev);
	free(w->sums);
	free(w->pprev);
	free(w->psums);
	free(w->path);
	mcz_codec_ctx_free(&w->pcx);
	free(w->t);
	mcz_meta_free_kv(&w->meta);
	mcz_meta_free_topo(w->topo, w->ntopo);
	mcz_index_free(&w->ix);
	mcz_codec_ctx_free(&w->cx);
	mcz_codec_ctx_free(&w->ccx);
	mcz_buf_free(&w->blk);
	mcz_buf_free(&w->payload);
	mcz_buf_free(&w->packed);
	free(w);
}

int mcz_writer_close(mcz_writer *w)
{
	if (!w)
		return MCZ_E_ARG;
	writer_finish(w);
	int rc = w->err;
	if (w->own_fd && close(w->fd) != 0 && !rc)
		rc = MCZ_E_IO;
	writer_free(w);
	return rc;
}
