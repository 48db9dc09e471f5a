/* gchunk.c: grouped chunks, GCHUNK blocks (SPEC.md 6.5, since 1.3).
 *
 * A chunk of many narrow streams (a PCP archive: thousands of instances,
 * a few rows) pays, in a CHUNK, for one zstd frame per column, or none:
 * columns of a few bytes stay raw, each with its own header.  A GCHUNK
 * holds the same columns, but consecutive narrow columns share one zstd
 * frame (a run, of about 256 KiB raw), so that what repeats across streams
 * (headers, codecs, values) is compressed once; wide columns keep their own
 * frames, in plain runs.  One stream is still found by decompressing one
 * run: the directory gives every column's length, the run table which run
 * holds it.
 *
 * The encoder starts from the CHUNK payload (codecs chosen and SAME columns
 * found as for any chunk) and keeps it when grouping does not make it
 * smaller, so wide chunks (busy counters) are written exactly as before.
 *
 *     int grouped;
 *     mcz_gchunk_encode(&cx, &payload, &grouped, t, n, descs, cols, ns, prev, sums);
 *     mcz_gchunk_parse(payload, len, &ci);        // reader: then mcz_gchunk_runs
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "chunk.h"
#include "../internal.h"

/* A column narrower than GCHUNK_NARROW (internal.h) may join a shared
 * frame. */
/* "closing a run once its content reaches 256 KiB" */
#define GCHUNK_RUN 262144u

static uint64_t gchunk_col_bound(uint64_t nrows)
{
	/* 6.1: rawlen at most ceil(nrows/8) + 32 + 10 x nrows, plus codec,
	 * flags and the rawlen varint; a SAME column adds its reference */
	return (nrows + 7) / 8 + 32 + 10 * nrows + 2 + 10 + 10;
}

/* The column at p (len bytes, 6.1) without its zstd flag: codec, flags,
 * rawlen, raw data, into out.  A column not compressed is copied. */
static int gchunk_unframe(mcz_codec_ctx *cx, const uint8_t *p, size_t len, mcz_buf *out)
{
	if (len < 3 || !(p[1] & MCZ_COL_ZSTD) || p[0] == MCZ_CODEC_SAME) {
		mcz_buf_put(out, p, len);
		return out->err;
	}
	mcz_cur c = mcz_cur_make(p + 2, len - 2);
	uint64_t rl = mcz_cur_uv(&c);
	if (c.err)
		return MCZ_E_CORRUPT;
	mcz_buf_u8(out, p[0]);
	mcz_buf_u8(out, p[1] & (uint8_t)~MCZ_COL_ZSTD);
	mcz_buf_uv(out, rl);
	if (mcz_buf_reserve(out, (size_t)rl) || !(cx->zd = mcz_codec_dctx()))
		return MCZ_E_NOMEM;
	size_t z = ZSTD_decompressDCtx(cx->zd, out->p + out->len, (size_t)rl, c.p, mcz_cur_left(&c));
	if (ZSTD_isError(z) || z != rl)
		return MCZ_E_CORRUPT;
	out->len += z;
	return 0;
}

/* What the first run by metric of a file must save (1.5, its REQUIRES). */
#define GCHUNK_V15_GAIN 1024u
/* Runs of this many columns are tried transposed by any writer. */
#define GCHUNK_TR_COLUMNS 256

/* The run being built: columns [first, first + n) of the chunk. */
typedef struct gchunk_run {
	size_t first, n;
	int zstd;
	int tr; /* transposed (1.4) */
} gchunk_run;

/* Layout l of a run (0 as is, 1 transposed, 2 by metric; t, o, grp as in
 * gchunk_run_frame) compressed at level into out[cap]: its length, and in
 * *cost that length with what the layout must save (1.5's first run by
 * metric); 0 when it cannot be made. */
static size_t gchunk_layout(mcz_codec_ctx *cx, const mcz_buf *raw, uint8_t *t, const uint64_t *o,
			    size_t nc, const uint32_t *grp, int l, int level, uint8_t *out, size_t cap,
			    size_t *cost)
{
	if (l && mcz_gchunk_transpose_groups(raw->p, t, o, nc, l == 2 ? grp : NULL, 0))
		return 0;
	size_t m = ZSTD_compressCCtx(cx->zc, out, cap, l ? t : raw->p, raw->len, level);
	if (ZSTD_isError(m))
		return 0;
	/* the first run by metric makes the file one that readers before
	 * 1.5 refuse (its REQUIRES block): it must save 1 KiB for that, as
	 * COLSTREAMS must for 1.3, so that a small file stays readable by a
	 * site's older mcz */
	*cost = m + (l == 2 && cx->v15 == 1 ? GCHUNK_V15_GAIN : 0);
	return m;
}

/* Shared run [a, a + nc) whose columns (lengths len[1 + a ..]) are raw,
 * compressed into z (reserved) as is, or transposed when that is smaller
 * and allowed (1.4), or transposed by metric (1.5, cx->v15; descs: the
 * chunk's streams), of the layouts in mask (bit 0 as is, 1 transposed, 2
 * by metric): its frame's length, 0 on failure; *tr set to 1 when
 * transposed, 2 by metric. */
static size_t gchunk_run_frame(mcz_codec_ctx *cx, const mcz_buf *raw, const uint64_t *len,
			       size_t a, size_t nc, int tr_ok, const mcz_stream_desc *descs,
			       unsigned mask, uint8_t *z, size_t cap, int *tr)
{
	int level = cx->level < mcz_pack_level(cx) && !cx->quick ? mcz_pack_level(cx) : cx->level;
	*tr = 0;
	/* a viewer's conversion: the run as it is, at its level */
	if (cx->quick)
		mask &= 1;
	/* transposed: for batch writers (cx->thorough) and runs of many
	 * columns (wide data, where it pays); a recorder's runs of a few
	 * dozen columns are taken as they are */
	if (!tr_ok || (!cx->thorough && nc < GCHUNK_TR_COLUMNS))
		mask &= 1;
	uint64_t *o = mask & 6 ? malloc((nc + 1) * sizeof *o) : NULL;
	uint8_t *t = o ? malloc(raw->len + 1) : NULL;
	uint8_t *tz = t ? malloc(cap) : NULL;
	uint32_t *grp = tz && cx->v15 && (mask & 4) ? malloc((nc + 1) * sizeof *grp) : NULL;
	if (!tz)
		mask &= 1;
	else {
		o[0] = 0;
		for (size_t j = 0; j < nc; j++)
			o[j + 1] = o[j] + len[1 + a + j];
	}
	/* by metric (1.5): instances of one metric byte beside byte, not
	 * interleaved with the other metrics' (per-CPU counters declared CPU
	 * by CPU); tried only when the metrics are interleaved: where each is
	 * a block of consecutive columns (most PCP archives' instances), it
	 * is the plain transposition but for where the blocks meet */
	size_t ng = grp ? mcz_gchunk_groups(descs + a, nc, grp) : 0;
	int mixed = 0;
	for (size_t j = 1; j < nc && ng > 1; j++)
		mixed |= grp[j] < grp[j - 1];
	if (!mixed)
		mask &= 3;
	/* A live writer compares the layouts at level 3 and packs the one
	 * that wins at its level: a pass at its level per layout would cost
	 * more CPU than the recording itself.  A batch writer compares them
	 * at level 9 and packs the winner: the layouts rank the same at 9 as
	 * at the writer's level, within a few hundredths of a percent of the
	 * bytes over pcp-testsuite's archives (bench-pcp-all.sh). */
	int single = mask == 1 || mask == 2 || mask == 4;
	int trial = single ? level : cx->thorough ? 9 : 3;
	size_t sz[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}, n = 0;
	int won = -1;
	for (int l = 0; l < 3; l++) {
		size_t m = mask & (1u << l) ? gchunk_layout(cx, raw, t, o, nc, grp, l, trial,
							     tz ? tz : z, cap, &sz[l])
					    : 0;
		if (!m || (won >= 0 && sz[l] >= sz[won]))
			continue;
		won = l;
		n = m;
		if (tz && trial == level)
			memcpy(z, tz, m);
	}
	if (won >= 0 && trial != level) {
		n = gchunk_layout(cx, raw, t, o, nc, grp, won, level, z, cap, &(size_t){0});
		if (!n)
			won = -1;
	}
	free(o);
	free(t);
	free(tz);
	free(grp);
	if (won < 0 || ZSTD_isError(n))
		return 0;
	*tr = won;
	return n;
}

/* The directory (len[0 .. nstreams] varints) into g: as is, or (zdir_ok,
 * since 1.4) as one zstd frame when that is smaller; the flags byte first. */
static void gchunk_put_dir(mcz_codec_ctx *cx, mcz_buf *g, const uint64_t *len, size_t nstreams,
			   int zdir_ok, uint8_t flags)
{
	mcz_buf d = {0}, z = {0};
	for (size_t s = 0; s <= nstreams; s++)
		mcz_buf_uv(&d, len[s]);
	size_t cl = 0;
	if (zdir_ok && !d.err && (cx->zc || (cx->zc = ZSTD_createCCtx())) &&
	    !mcz_buf_reserve(&z, ZSTD_compressBound(d.len))) {
		cl = ZSTD_compressCCtx(cx->zc, z.p, z.cap, d.p, d.len, cx->quick ? cx->level : mcz_pack_level(cx));
		/* the reader's bound: nstreams <= 256 x the frame + 65536 */
		if (ZSTD_isError(cl) || cl + 3 >= d.len || nstreams + 1 > 256 * (uint64_t)cl + 65536)
			cl = 0;
	}
	mcz_buf_u8(g, (uint8_t)(flags | (cl ? MCZ_GCHUNK_ZDIR : 0)));
	if (cl) {
		mcz_buf_uv(g, cl);
		mcz_buf_put(g, z.p, cl);
	} else {
		mcz_buf_put(g, d.p, d.len);
	}
	if (d.err && !g->err)
		g->err = d.err;
	mcz_buf_free(&d);
	mcz_buf_free(&z);
}

/* The CHUNK payload plain as a GCHUNK payload when that is smaller; *tr_any:
 * bit 0 a run transposed, bit 1 one by metric. */
/* A shared run's columns' bytes, and its frame once packed (z.len 0: it
 * could not be). */
typedef struct gchunk_shared {
	size_t run; /* its place in the run table */
	mcz_buf raw, z;
	uint64_t plain_len; /* its columns' bytes as the CHUNK has them */
	int tr;
} gchunk_shared;

typedef struct gchunk_work {
	gchunk_shared *sh;
	size_t nsh;
	const gchunk_run *rt;
	const uint64_t *len;
	int zdir_ok;
	const mcz_stream_desc *descs;
	unsigned mask;
	atomic_size_t next;
	mcz_codec_ctx *cx; /* the helper's */
} gchunk_work;

/* Pack shared runs, taking the next one not yet taken, until none is
 * left. */
static void gchunk_frames_take(gchunk_work *w, mcz_codec_ctx *cx)
{
	for (size_t k; (k = atomic_fetch_add(&w->next, 1)) < w->nsh;) {
		gchunk_shared *q = &w->sh[k];
		const gchunk_run *r = &w->rt[q->run];
		size_t cap = ZSTD_compressBound(q->raw.len);
		if (mcz_buf_reserve(&q->z, cap))
			continue;
		size_t z = gchunk_run_frame(cx, &q->raw, w->len, r->first, r->n, w->zdir_ok,
					    w->descs, w->mask, q->z.p, cap, &q->tr);
		q->z.len = z;
	}
}

static void *gchunk_frames_run(void *arg)
{
	gchunk_work *w = arg;
	gchunk_frames_take(w, w->cx);
	return NULL;
}

/* Every shared run's frame: a batch writer packs them on two threads, as
 * a run of 256 KiB at level 15 is the longest single piece of an import's
 * work (bench-pcp.sh, speed). */
static int gchunk_frames(mcz_codec_ctx *cx, gchunk_shared *sh, size_t nsh, const gchunk_run *rt,
			 const uint64_t *len, int zdir_ok, const mcz_stream_desc *descs,
			 unsigned mask)
{
	if (!cx->zc && !(cx->zc = ZSTD_createCCtx()))
		return MCZ_E_NOMEM;
	gchunk_work w = {.sh = sh, .nsh = nsh, .rt = rt, .len = len, .zdir_ok = zdir_ok,
			 .descs = descs, .mask = mask};
	atomic_init(&w.next, 0);
	pthread_t th;
	int helper = cx->thorough && nsh >= 2 && (w.cx = mcz_codec_peer(cx)) &&
		     (w.cx->zc || (w.cx->zc = ZSTD_createCCtx())) &&
		     pthread_create(&th, NULL, gchunk_frames_run, &w) == 0;
	gchunk_frames_take(&w, cx);
	if (helper)
		pthread_join(th, NULL);
	return 0;
}

static int gchunk_encode(mcz_codec_ctx *cx, mcz_buf *out, int *grouped, int *tr_any, int zdir_ok,
			 const mcz_buf *plain_in, const int64_t *t, size_t n,
			 const mcz_stream_desc *descs, size_t nstreams, unsigned mask)
{
	*tr_any = 0;
	*grouped = 0;
	const mcz_buf plain = *plain_in;
	mcz_chunk_info ci;
	int rc = mcz_chunk_parse(plain.p, plain.len, &ci);
	uint64_t *off = rc ? NULL : malloc((nstreams + 2) * sizeof *off);
	if (!rc && !off)
		rc = MCZ_E_NOMEM;
	if (!rc)
		rc = mcz_chunk_dir(&ci, off);
	/* nothing narrow: the CHUNK as it is */
	size_t narrow = 0;
	for (size_t s = 0; !rc && s < nstreams; s++)
		narrow += off[s + 2] - off[s + 1] < 512;
	if (rc || narrow < 2) {
		mcz_buf_put(out, plain.p, plain.len);
		rc = rc ? rc : out->err;
		free(off);
		return rc;
	}
	/* every column unframed (its bytes in a run) or as it is (plain) */
	mcz_buf frames = {0}, dir = {0}, runs = {0}, col = {0};
	uint64_t *len = malloc((nstreams + 1) * sizeof *len);
	gchunk_run *rt = malloc((nstreams + 1) * sizeof *rt);
	size_t nruns = 0, nsh = 0;
	gchunk_shared *sh = NULL;
	int any_tr = 0;
	if (!len || !rt)
		rc = MCZ_E_NOMEM;
	if (!rc) {
		len[0] = off[1] - off[0];
		mcz_buf_put(&frames, ci.cols, (size_t)len[0]); /* the time column */
	}
	/* the runs: plain ones, and shared ones with their columns' bytes */
	size_t cap_sh = 0;
	for (size_t s = 0; !rc && s < nstreams;) {
		/* a plain run: wide columns, as the CHUNK has them */
		size_t a = s;
		while (s < nstreams) {
			col.len = 0;
			if ((rc = gchunk_unframe(cx, ci.cols + off[s + 1], off[s + 2] - off[s + 1], &col)))
				break;
			if (col.len < GCHUNK_NARROW)
				break;
			len[s + 1] = off[s + 2] - off[s + 1];
			s++;
		}
		if (rc)
			break;
		if (s > a) {
			rt[nruns++] = (gchunk_run){a, s - a, 0, 0};
			continue;
		}
		/* a shared run: narrow columns unframed, one zstd frame */
		if (nsh == cap_sh) {
			size_t nc2 = cap_sh ? 2 * cap_sh : 8;
			gchunk_shared *t2 = realloc(sh, nc2 * sizeof *t2);
			if (!t2) {
				rc = MCZ_E_NOMEM;
				break;
			}
			memset(t2 + cap_sh, 0, (nc2 - cap_sh) * sizeof *t2);
			sh = t2;
			cap_sh = nc2;
		}
		gchunk_shared *q = &sh[nsh++];
		while (s < nstreams && q->raw.len < GCHUNK_RUN) {
			col.len = 0;
			if ((rc = gchunk_unframe(cx, ci.cols + off[s + 1], off[s + 2] - off[s + 1], &col)))
				break;
			if (col.len >= GCHUNK_NARROW)
				break;
			len[s + 1] = col.len;
			q->plain_len += off[s + 2] - off[s + 1];
			mcz_buf_put(&q->raw, col.p, col.len);
			s++;
		}
		q->run = nruns;
		rt[nruns++] = (gchunk_run){a, s - a, 1, 0};
		if (!rc && q->raw.err)
			rc = q->raw.err;
	}
	/* their frames, on two threads for a batch writer */
	if (!rc)
		rc = gchunk_frames(cx, sh, nsh, rt, len, zdir_ok, descs, mask);
	for (size_t k = 0, h = 0; !rc && k < nruns; k++) {
		size_t a = rt[k].first, e = a + rt[k].n;
		gchunk_shared *q = h < nsh && sh[h].run == k ? &sh[h++] : NULL;
		if (q && q->z.len && q->z.len < q->plain_len) {
			mcz_buf_put(&frames, q->z.p, q->z.len);
			rt[k].tr = q->tr;
			any_tr |= q->tr;
			mcz_buf_uv(&runs, q->z.len);
			continue;
		}
		/* a plain run, or grouping did not pay: the columns as the
		 * CHUNK has them */
		rt[k].zstd = 0;
		rt[k].tr = 0;
		for (size_t c = a; q && c < e; c++)
			len[c + 1] = off[c + 2] - off[c + 1];
		mcz_buf_put(&frames, ci.cols + off[a + 1], off[e + 1] - off[a + 1]);
	}
	if (!rc) {
		/* the run table: n, clen (0 plain); clen from runs, in order */
		mcz_cur rc_cur = mcz_cur_make(runs.p, runs.len);
		mcz_buf_uv(&dir, nruns);
		/* flags bit 1 (1.4): "2n + t, t = 1 for a transposed run"; bit
		 * 2 (1.5): 4n + t, t = 2 by metric */
		int by = any_tr & 2;
		for (size_t k = 0; k < nruns; k++) {
			mcz_buf_uv(&dir, by ? 4 * rt[k].n + (size_t)rt[k].tr
				   : any_tr ? 2 * rt[k].n + (size_t)rt[k].tr
					    : rt[k].n);
			mcz_buf_uv(&dir, rt[k].zstd ? mcz_cur_uv(&rc_cur) : 0);
		}
		mcz_buf g = {0};
		mcz_buf_uv(&g, n);
		mcz_buf_uv(&g, nstreams);
		mcz_buf_sv(&g, t[0]);
		mcz_buf_uv(&g, (uint64_t)(t[n - 1] - t[0]));
		mcz_buf_uv(&g, ci.nvalues);
		gchunk_put_dir(cx, &g, len, nstreams, zdir_ok,
			       by ? MCZ_GCHUNK_MRUNS : any_tr ? MCZ_GCHUNK_TRUNS : 0);
		mcz_buf_put(&g, dir.p, dir.len);
		mcz_buf_put(&g, frames.p, frames.len);
		rc = g.err ? g.err : frames.err ? frames.err : dir.err;
		if (!rc && g.len < plain.len) {
			mcz_buf_put(out, g.p, g.len);
			*grouped = by ? 2 : 1;
			*tr_any = any_tr;
		} else if (!rc) {
			mcz_buf_put(out, plain.p, plain.len);
		}
		rc = rc ? rc : out->err;
		mcz_buf_free(&g);
	}
	for (size_t k = 0; k < nsh; k++) {
		mcz_buf_free(&sh[k].raw);
		mcz_buf_free(&sh[k].z);
	}
	free(sh);
	free(len);
	free(rt);
	free(off);
	mcz_buf_free(&frames);
	mcz_buf_free(&dir);
	mcz_buf_free(&runs);
	mcz_buf_free(&col);
	return rc;
}

int mcz_gchunk_encode(mcz_codec_ctx *cx, mcz_buf *out, int *grouped, int zdir_ok,
		      const int64_t *t, size_t n, const mcz_stream_desc *descs,
		      const mcz_chunk_input *cols, size_t nstreams, mcz_codec_prev *prev,
		      mcz_bucket *sums)
{
	/* A column's codec is chosen by its size alone, compressed on its
	 * own; in a transposed run, what counts is that the instances of a
	 * metric line up byte for byte: shuffled values of one width do,
	 * varints of varying lengths do not (10,000 streams x 16 rows: 330.2
	 * KiB of chunks with the codecs chosen alone, 292.9 KiB with shuffled
	 * packings, by metric).  So each column's best shuffled form is kept
	 * beside its best (the same trials), and a chunk with transposed runs
	 * is grouped a second time from those, the smaller kept: by a live
	 * writer on wide data, by a batch writer only for runs by metric (on
	 * PCP's archives, whose instances follow each other, a second
	 * grouping gained 0.5 to 1.6 % and, at level 19 in every layout,
	 * doubled an import's CPU).  The second grouping tries only the
	 * layouts that won the first. */
	int again = zdir_ok && nstreams >= 2 && !cx->quick &&
		    (cx->thorough || nstreams >= GCHUNK_TR_COLUMNS);
	mcz_buf plain = {0}, shuf = {0};
	int rc = mcz_chunk_encode2(cx, &plain, again ? &shuf : NULL, t, n, descs, cols, nstreams,
				   prev, sums);
	size_t start = out->len;
	int tr_any = 0, tr2;
	if (!rc)
		rc = gchunk_encode(cx, out, grouped, &tr_any, zdir_ok, &plain, t, n, descs, nstreams, 7);
	if (!rc && again && *grouped && (tr_any & (cx->thorough ? 2 : 3)) &&
	    (shuf.len != plain.len || memcmp(shuf.p, plain.p, plain.len))) {
		mcz_buf alt = {0};
		int g2 = 0;
		/* only the layouts that won the first time: a level-19 pass
		 * for each run, not three */
		unsigned mask = (tr_any & 1 ? 2u : 0) | (tr_any & 2 ? 4u : 0);
		int rc2 = gchunk_encode(cx, &alt, &g2, &tr2, zdir_ok, &shuf, t, n, descs, nstreams,
					mask);
		if (!rc2 && alt.len < out->len - start) {
			out->len = start;
			mcz_buf_put(out, alt.p, alt.len);
			*grouped = g2;
			rc = out->err;
		}
		mcz_buf_free(&alt);
	}
	mcz_buf_free(&plain);
	mcz_buf_free(&shuf);
	return rc;
}

/* "a compressed directory states its content size, at most 4 bytes per
 * length" (no length needs more than 3 varint bytes) */
static uint64_t gchunk_zdir_max(uint64_t nstreams)
{
	return 4 * (nstreams + 1);
}

int mcz_gchunk_parse(const uint8_t *payload, size_t len, mcz_chunk_info *ci)
{
	mcz_cur c = mcz_cur_make(payload, len);
	if (mcz_chunk_head(&c, ci, MCZ_GCHUNK_ZDIR | MCZ_GCHUNK_TRUNS | MCZ_GCHUNK_MRUNS) ||
	    (ci->truns && ci->mruns))
		return MCZ_E_CORRUPT;
	uint64_t nrows = ci->nrows, nstreams = ci->nstreams;
	ci->grouped = 1;
	if (ci->zdir) {
		/* checked when decompressed (mcz_gchunk_dir) */
		uint64_t dl = mcz_cur_uv(&c);
		ci->dir = dl <= mcz_cur_left(&c) ? mcz_cur_bytes(&c, (size_t)dl) : NULL;
		unsigned long long rl = ci->dir ? ZSTD_getFrameContentSize(ci->dir, (size_t)dl) : 0;
		if (c.err || !ci->dir || rl > gchunk_zdir_max(nstreams) || rl < nstreams + 1 ||
		    ZSTD_getDictID_fromFrame(ci->dir, (size_t)dl) != 0)
			return MCZ_E_CORRUPT;
		ci->dir_len = (size_t)dl;
	} else {
		ci->dir = c.p;
		uint64_t bound = gchunk_col_bound(nrows);
		for (uint64_t s = 0; s <= nstreams; s++)
			if (mcz_cur_uv(&c) > bound)
				return MCZ_E_CORRUPT;
		if (c.err)
			return MCZ_E_CORRUPT;
		ci->dir_len = (size_t)(c.p - ci->dir);
	}
	uint64_t nruns = mcz_cur_count(&c, 2);
	ci->runs = c.p;
	if (c.err || nruns > nstreams || (nstreams && !nruns))
		return MCZ_E_CORRUPT;
	ci->nruns = (uint32_t)nruns;
	for (uint64_t k = 0; k < nruns; k++) {
		mcz_cur_uv(&c);
		mcz_cur_uv(&c);
	}
	if (c.err)
		return MCZ_E_CORRUPT;
	ci->runs_len = (size_t)(c.p - ci->runs);
	ci->cols = c.p;
	ci->cols_len = mcz_cur_left(&c);
	return 0;
}

/* Each group's columns (all columns when grp is NULL), byte k of every
 * column of the group longer than k, for k = 0, 1, ...; the groups in
 * order, back to back. */
static int gchunk_transpose(const uint8_t *src, uint8_t *dst, const uint64_t *off, size_t n,
			    const uint32_t *grp, int back)
{
	/* the columns in group order, stable (a counting sort) */
	size_t ng = 1;
	for (size_t j = 0; grp && j < n; j++)
		if (grp[j] >= ng)
			ng = (size_t)grp[j] + 1;
	uint32_t *live = malloc((n + 1) * sizeof *live);
	uint32_t *ord = malloc((n + 1) * sizeof *ord);
	size_t *start = calloc(ng + 1, sizeof *start);
	if (!live || !ord || !start) {
		free(live);
		free(ord);
		free(start);
		return MCZ_E_NOMEM;
	}
	for (size_t j = 0; j < n; j++)
		start[(grp ? grp[j] : 0) + 1]++;
	for (size_t g = 0; g < ng; g++)
		start[g + 1] += start[g];
	for (size_t j = 0; j < n; j++)
		ord[start[grp ? grp[j] : 0]++] = (uint32_t)j;
	size_t pos = 0;
	for (size_t g = 0, i0 = 0; g < ng; i0 = start[g++]) {
		/* the group's columns still longer than k, in column order:
		 * each round visits only those, so the work is the run's bytes */
		size_t nl = 0;
		for (size_t i = i0; i < start[g]; i++)
			if (off[ord[i] + 1] > off[ord[i]])
				live[nl++] = ord[i];
		for (uint64_t k = 0; nl; k++) {
			size_t keep = 0;
			for (size_t i = 0; i < nl; i++) {
				uint32_t j = live[i];
				size_t at = (size_t)(off[j] - off[0] + k);
				if (back)
					dst[at] = src[pos++];
				else
					dst[pos++] = src[at];
				if (off[j] + k + 1 < off[j + 1])
					live[keep++] = j;
			}
			nl = keep;
		}
	}
	free(live);
	free(ord);
	free(start);
	return 0;
}

int mcz_gchunk_transpose(const uint8_t *src, uint8_t *dst, const uint64_t *off, size_t n,
			 int back)
{
	return gchunk_transpose(src, dst, off, n, NULL, back);
}

int mcz_gchunk_transpose_groups(const uint8_t *src, uint8_t *dst, const uint64_t *off, size_t n,
				const uint32_t *grp, int back)
{
	return gchunk_transpose(src, dst, off, n, grp, back);
}

size_t mcz_gchunk_groups(const mcz_stream_desc *d, size_t n, uint32_t *grp)
{
	/* an open-addressing table of the names met (FNV-1a), at most half
	 * full: each slot the first stream of its group, + 1 */
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	uint32_t *slot = calloc(cap, sizeof *slot);
	if (!slot)
		return 0;
	size_t ng = 0;
	for (size_t j = 0; j < n; j++) {
		const char *name = d[j].name ? d[j].name : "";
		uint64_t h = 14695981039346656037ull;
		for (const char *c = name; *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ull;
		size_t at = (size_t)h & (cap - 1);
		while (slot[at]) {
			const char *o = d[slot[at] - 1].name ? d[slot[at] - 1].name : "";
			if (!strcmp(o, name))
				break;
			at = (at + 1) & (cap - 1);
		}
		if (!slot[at]) {
			slot[at] = (uint32_t)j + 1;
			grp[j] = (uint32_t)ng++;
		} else {
			grp[j] = grp[slot[at] - 1];
		}
	}
	free(slot);
	return ng;
}

int mcz_gchunk_dir(mcz_codec_ctx *cx, const mcz_chunk_info *ci, uint64_t *off)
{
	if (!ci->zdir)
		return mcz_chunk_dir(ci, off);
	size_t rl = (size_t)ZSTD_getFrameContentSize(ci->dir, ci->dir_len);
	mcz_buf d = {0};
	int rc = mcz_buf_reserve(&d, rl + 1) || !(cx->zd = mcz_codec_dctx())
			 ? MCZ_E_NOMEM
			 : 0;
	size_t z = rc ? 0 : ZSTD_decompressDCtx(cx->zd, d.p, rl, ci->dir, ci->dir_len);
	if (!rc && (ZSTD_isError(z) || z != rl))
		rc = MCZ_E_CORRUPT;
	/* the lengths as in a directory stored as is: each within the bound,
	 * the frame's content exactly nstreams + 1 of them */
	mcz_cur c = mcz_cur_make(d.p, rc ? 0 : rl);
	uint64_t bound = gchunk_col_bound(ci->nrows), at = 0;
	for (uint64_t s = 0; !rc && s <= ci->nstreams; s++) {
		off[s] = at;
		uint64_t l = mcz_cur_uv(&c);
		if (l > bound)
			c.err = MCZ_E_CORRUPT;
		at += l;
	}
	off[ci->nstreams + 1] = at;
	if (!rc && (c.err || mcz_cur_left(&c)))
		rc = MCZ_E_CORRUPT;
	mcz_buf_free(&d);
	return rc;
}

int mcz_gchunk_runs(const mcz_chunk_info *ci, const uint64_t *off, uint32_t *rfirst,
		    uint64_t *rdata, uint64_t *rclen)
{
	mcz_cur c = mcz_cur_make(ci->runs, ci->runs_len);
	uint64_t s = 0, at = off[1] - off[0]; /* the time column comes first */
	if (at > ci->cols_len)
		return MCZ_E_CORRUPT;
	for (uint32_t k = 0; k < ci->nruns; k++) {
		uint64_t n = mcz_cur_uv(&c), cl = mcz_cur_uv(&c), tr = 0;
		if (ci->truns) {
			/* "2n + t: t = 1 for a transposed run", shared runs only */
			tr = n & 1;
			n >>= 1;
		} else if (ci->mruns) {
			/* 1.5: "4n + t: t = 1 transposed, t = 2 transposed by
			 * metric (shared runs only), t = 3 invalid" */
			tr = n & 3;
			n >>= 2;
		}
		if (c.err || n == 0 || n > ci->nstreams - s || (tr && !cl) || tr == 3)
			return MCZ_E_CORRUPT;
		uint64_t content = off[s + n + 1] - off[s + 1];
		/* "a shared run's content is at most 2^20 bytes" */
		if (cl && content > (1u << 20))
			return MCZ_E_CORRUPT;
		uint64_t take = cl ? cl : content;
		if (take > ci->cols_len - at)
			return MCZ_E_CORRUPT;
		rfirst[k] = (uint32_t)(s + 1);
		rdata[k] = at;
		rclen[k] = cl | (tr ? MCZ_RUN_TRANSPOSED : 0) | (tr == 2 ? MCZ_RUN_BYNAME : 0);
		at += take;
		s += n;
	}
	rfirst[ci->nruns] = ci->nstreams + 1;
	/* the runs cover every stream, the data ends with the last */
	return s == ci->nstreams && at == ci->cols_len ? 0 : MCZ_E_CORRUPT;
}
