/* index.c: the trailing INDEX block (SPEC.md "INDEX block").
 *
 * The index lets a reader open a file without scanning it: where every
 * non-chunk block is, every chunk's offset, time span, row and stream
 * counts, and, per stream, a section of per-chunk summaries (count, min,
 * max, sum, first and last sample time) compressed on its own so that a
 * reader decodes the summaries of the streams it draws and no others.
 *
 *     mcz_index ix = {0};
 *     mcz_index_add_chunk(&ix, &chunk, sums, nstreams);   // writer, per chunk
 *     mcz_index_encode(&ix, &cx, &payload);               // at close
 *     mcz_index_decode(payload, len, file_size, &cx, &ix, &secs);   // reader
 *     mcz_index_load(&ix, &secs[s], &cx, buckets);        // one stream, on demand
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../internal.h"

int mcz_index_add_block(mcz_index *ix, uint16_t type, uint64_t off, uint64_t size)
{
	if (mcz_buf_grow_array((void **)&ix->blocks, &ix->cap_blocks, ix->nblocks + 1, sizeof *ix->blocks))
		return MCZ_E_NOMEM;
	ix->blocks[ix->nblocks++] = (mcz_index_block){type, off, size};
	return 0;
}

int mcz_index_set_streams(mcz_index *ix, size_t n)
{
	if (n <= ix->nstreams)
		return 0;
	mcz_bucket **s = realloc(ix->sums, n * sizeof *s);
	if (!s)
		return MCZ_E_NOMEM;
	ix->sums = s;
	for (size_t i = ix->nstreams; i < n; i++)
		s[i] = NULL;
	ix->nstreams = n;
	return 0;
}

int mcz_index_add_chunk(mcz_index *ix, const mcz_index_chunk *c, const mcz_bucket *sums,
			size_t nsums)
{
	if (mcz_buf_grow_array((void **)&ix->chunks, &ix->cap_chunks, ix->nchunks + 1, sizeof *ix->chunks))
		return MCZ_E_NOMEM;
	if (mcz_index_set_streams(ix, nsums))
		return MCZ_E_NOMEM;
	/* A stream's summaries grow by doubling from 1, not from the chunk
	 * table's 16: a wide file of one chunk (a PCP archive of 28,287
	 * streams) first touched 21 MB of pages for 1.3 MB of summaries.  An
	 * array is made or grown to 2 n entries (1 at n = 0) where n, the
	 * chunks before this one, is 0 or a power of two, and made so when it
	 * is new; until the next power of two, 2 n holds every entry.  A
	 * reader that lowers nchunks (PART blocks replaced) only shrinks it
	 * there, to what the entries up to the next power of two need. */
	size_t n = ix->nchunks, want = n ? 2 * n : 1;
	int grow = (n & (n - 1)) == 0;
	for (size_t s = 0; s < ix->nstreams; s++) {
		if (!ix->sums[s] || grow) {
			mcz_bucket *b = realloc(ix->sums[s], want * sizeof *b);
			if (!b)
				return MCZ_E_NOMEM;
			if (!ix->sums[s])
				for (size_t i = 0; i < ix->nchunks; i++)
					mcz_bucket_init(&b[i]);
			ix->sums[s] = b;
		}
		if (s < nsums)
			ix->sums[s][ix->nchunks] = sums[s];
		else
			mcz_bucket_init(&ix->sums[s][ix->nchunks]);
	}
	ix->chunks[ix->nchunks++] = *c;
	return 0;
}

int mcz_index_fit_sums(mcz_index *ix)
{
	size_t want = 1;
	while (want < ix->nchunks + 1)
		want *= 2;
	for (size_t s = 0; s < ix->nstreams; s++) {
		mcz_bucket *b = ix->sums[s] ? realloc(ix->sums[s], want * sizeof *b) : NULL;
		if (ix->sums[s] && !b)
			return MCZ_E_NOMEM;
		if (b)
			ix->sums[s] = b;
	}
	return 0;
}

long mcz_index_diff_chunks(const mcz_index *a, const mcz_index *b)
{
	size_t n = a->nchunks < b->nchunks ? a->nchunks : b->nchunks;
	for (size_t i = 0; i < n; i++) {
		const mcz_index_chunk *x = &a->chunks[i], *y = &b->chunks[i];
		if (x->off != y->off || x->size != y->size || x->t_first != y->t_first ||
		    x->t_last != y->t_last || x->nrows != y->nrows || x->nstreams != y->nstreams ||
		    x->nvalues != y->nvalues)
			return (long)i;
	}
	return a->nchunks == b->nchunks ? -1 : (long)n;
}

void mcz_index_free(mcz_index *ix)
{
	for (size_t s = 0; s < ix->nstreams; s++)
		free(ix->sums[s]);
	free(ix->sums);
	free(ix->blocks);
	free(ix->chunks);
	memset(ix, 0, sizeof *ix);
}

/* One zstd frame with its content checksum (SPEC.md 7.2: "Every zstd frame
 * of the INDEX payload carries its content checksum"). */
static int index_zput(mcz_codec_ctx *cx, mcz_buf *out, const mcz_buf *raw, size_t *clen)
{
	if (raw->err)
		return raw->err;
	if (!cx->zc && !(cx->zc = ZSTD_createCCtx()))
		return MCZ_E_NOMEM;
	size_t bound = ZSTD_compressBound(raw->len);
	if (mcz_buf_reserve(out, bound))
		return MCZ_E_NOMEM;
	ZSTD_CCtx_reset(cx->zc, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cx->zc, ZSTD_c_compressionLevel, cx->level);
	ZSTD_CCtx_setParameter(cx->zc, ZSTD_c_checksumFlag, 1);
	size_t z = ZSTD_compress2(cx->zc, out->p + out->len, bound, raw->p, raw->len);
	if (ZSTD_isError(z))
		return MCZ_E_NOMEM;
	out->len += z;
	*clen = z;
	return 0;
}

int mcz_index_encode(mcz_index *ix, mcz_codec_ctx *cx, mcz_buf *out)
{
	/* a file with GCHUNK blocks (unreadable before 1.3 anyway) leaves
	 * out the summaries of its short chunks, when they are few: computing
	 * a stream's summaries then decodes at most 16 x 255 of its samples
	 * (a recorder's 50-row chunks of a long run keep theirs) */
	size_t nshort = 0;
	uint64_t rows = 0;
	for (size_t i = 0; i < ix->nchunks; i++) {
		nshort += ix->chunks[i].nrows < MCZ_INDEX_SUM_ROWS;
		rows += ix->chunks[i].nrows;
	}
	/* A viewer's conversion (cx->quick) keeps every summary: it is read
	 * again from the cache at each open, where computing them decoded
	 * every sample of every stream to order the rows (36,886 streams of
	 * PCP archive 20180416.10.00: half of a second open). */
	ix->unsummed = (ix->grouped || ix->bundled) && nshort <= 16 && !cx->quick;
	/* flags bit 3 (since 1.4), in files readers before 1.4 refuse anyway:
	 * "no sections" when the chunks hold at most 4096 rows, so that
	 * computing a stream's summaries decodes at most 4096 samples */
	ix->nosecs = ix->bundled && rows <= 16 * MCZ_INDEX_SUM_ROWS && !cx->quick;
	mcz_buf head = {0}, secs = {0}, raw = {0}, grp = {0}, groups = {0};
	size_t *rlen = calloc(ix->nstreams + 1, sizeof *rlen);
	size_t ngroups = 0, gfirst = 0;
	int rc = rlen ? 0 : MCZ_E_NOMEM;
	for (size_t s = 0; s < ix->nstreams && !rc && !ix->nosecs; s++) {
		raw.len = 0;
		/* columnar: counts, then for the entries with a count: first and
		 * last offsets, then min, max and sum arrays */
		const mcz_bucket *e = ix->sums[s];
		for (size_t i = 0; i < ix->nchunks; i++)
			if (!mcz_index_unsummed(ix, i))
				mcz_buf_uv(&raw, e[i].count);
		for (size_t i = 0; i < ix->nchunks; i++)
			if (e[i].count && !mcz_index_unsummed(ix, i))
				mcz_buf_uv(&raw, (uint64_t)(e[i].first - ix->chunks[i].t_first));
		for (size_t i = 0; i < ix->nchunks; i++)
			if (e[i].count && !mcz_index_unsummed(ix, i))
				mcz_buf_uv(&raw, (uint64_t)(ix->chunks[i].t_last - e[i].last));
		/* min, max, sum: bit patterns, SHUFFLE packing (sign and exponent
		 * bytes compress; mantissa planes are stored by zstd as is, which
		 * keeps decompression at memory speed) */
		if (!rc && mcz_codec_scratch(cx, ix->nchunks + 1))
			rc = MCZ_E_NOMEM;
		for (int a = 0; a < 3 && !rc; a++) {
			size_t k = 0;
			for (size_t i = 0; i < ix->nchunks; i++)
				if (e[i].count && !mcz_index_unsummed(ix, i)) {
					double f = a == 0 ? e[i].min : a == 1 ? e[i].max : e[i].sum;
					memcpy(&cx->x[k++], &f, 8);
				}
			mcz_pack_put(&raw, MCZ_PACK_SHUFFLE, cx->x, k);
		}
		rlen[s] = raw.len;
		mcz_buf_put(&grp, raw.p, raw.len);
		/* "Sections are grouped into frames of at least 64 KiB (raw) but
		 * the last" */
		if (grp.len >= 65536 || s + 1 == ix->nstreams) {
			size_t cl = 0;
			rc = grp.err ? grp.err : index_zput(cx, &secs, &grp, &cl);
			mcz_buf_uv(&groups, s + 1 - gfirst);
			mcz_buf_uv(&groups, cl);
			mcz_buf_uv(&groups, grp.len);
			ngroups++;
			gfirst = s + 1;
			grp.len = 0;
		}
	}
	mcz_buf_uv(&head, ix->nblocks);
	for (size_t i = 0; i < ix->nblocks; i++) {
		mcz_buf_uv(&head, ix->blocks[i].type);
		mcz_buf_uv(&head, ix->blocks[i].off);
		mcz_buf_uv(&head, ix->blocks[i].size);
	}
	mcz_buf_uv(&head, ix->nchunks);
	for (size_t i = 0; i < ix->nchunks; i++) {
		const mcz_index_chunk *c = &ix->chunks[i];
		mcz_buf_uv(&head, c->off);
		mcz_buf_uv(&head, c->size);
		mcz_buf_sv(&head, c->t_first);
		mcz_buf_uv(&head, (uint64_t)(c->t_last - c->t_first));
		mcz_buf_uv(&head, c->nrows);
		mcz_buf_uv(&head, c->nstreams);
		mcz_buf_uv(&head, c->nvalues);
	}
	mcz_buf_uv(&head, ix->nstreams);
	if (!ix->nosecs) {
		for (size_t s = 0; s < ix->nstreams && rlen; s++)
			mcz_buf_uv(&head, rlen[s]);
		mcz_buf_uv(&head, ngroups);
		mcz_buf_put(&head, groups.p, groups.len);
	}
	size_t hc = 0;
	raw.len = 0;
	if (!rc)
		rc = index_zput(cx, &raw, &head, &hc);
	/* flags bit 2 (since 1.4, with bit 3 only): "the head is stored as
	 * is" when the frame would not be smaller */
	int plain = ix->nosecs && head.len <= hc;
	if (!rc) {
		/* flags bit 0 (since 1.3): "the index lists GCHUNK blocks"; bit 1:
		 * "chunks of fewer than 256 rows have no summaries" */
		mcz_buf_u8(out, (uint8_t)((ix->grouped ? 1 : 0) | (ix->unsummed ? 2 : 0) |
					  (plain ? 4 : 0) | (ix->nosecs ? 8 : 0)));
		mcz_buf_uv(out, head.len);
		mcz_buf_uv(out, plain ? 0 : hc);
		if (plain)
			mcz_buf_put(out, head.p, head.len);
		else
			mcz_buf_put(out, raw.p, raw.len);
		mcz_buf_put(out, secs.p, secs.len);
		rc = out->err;
	}
	free(rlen);
	mcz_buf_free(&grp);
	mcz_buf_free(&groups);
	mcz_buf_free(&head);
	mcz_buf_free(&secs);
	mcz_buf_free(&raw);
	return rc;
}

static int index_unz(mcz_codec_ctx *cx, const uint8_t *p, size_t clen, size_t rlen, mcz_buf *out)
{
	if (!(cx->zd = mcz_codec_dctx()))
		return MCZ_E_NOMEM;
	/* RFC 8878 3.1.1: magic 28 B5 2F FD, then the frame header
	 * descriptor, whose bit 2 is the content checksum flag */
	if (clen < 6 || memcmp(p, "\x28\xb5\x2f\xfd", 4) || !(p[4] & 0x04) ||
	    ZSTD_getFrameContentSize(p, clen) != (unsigned long long)rlen)
		return MCZ_E_CORRUPT;
	out->len = 0;
	if (mcz_buf_reserve(out, rlen + 1))
		return MCZ_E_NOMEM;
	/* zstd checks the content checksum */
	size_t z = ZSTD_decompressDCtx(cx->zd, out->p, rlen, p, clen);
	if (ZSTD_isError(z) || z != rlen)
		return MCZ_E_CORRUPT;
	out->len = rlen;
	return 0;
}

int mcz_index_decode(const uint8_t *payload, size_t len, uint64_t file_size, mcz_codec_ctx *cx,
		     mcz_index *ix, mcz_index_sec **secs_out)
{
	*secs_out = NULL;
	mcz_cur c = mcz_cur_make(payload, len);
	uint8_t flags = mcz_cur_u8(&c);
	uint64_t hr = mcz_cur_uv(&c), hc = mcz_cur_uv(&c);
	/* "Each index entry stands for a block of at least 20 bytes of the
	 * file and takes at most 60 raw bytes": a head longer than three times
	 * the file cannot be honest. */
	/* bits 2 and 3 (since 1.4): the head as is (head_clen 0), only in an
	 * index without sections; the caller checked the payload CRC */
	int plain = (flags & 4) != 0;
	if (c.err || (flags & 0xf0) || hc > mcz_cur_left(&c) || hr > 3 * file_size + 64 ||
	    (plain && (hc != 0 || !(flags & 8) || hr > mcz_cur_left(&c))))
		return MCZ_E_CORRUPT;
	ix->grouped = flags & 1;
	ix->unsummed = (flags & 2) != 0;
	ix->nosecs = (flags & 8) != 0;
	const uint8_t *hp = mcz_cur_bytes(&c, (size_t)(plain ? hr : hc));
	mcz_buf head = {0};
	int rc = plain ? 0 : index_unz(cx, hp, (size_t)hc, (size_t)hr, &head);
	if (rc) {
		mcz_buf_free(&head);
		return rc;
	}
	mcz_cur h = plain ? mcz_cur_make(hp, (size_t)hr) : mcz_cur_make(head.p, head.len);
	uint64_t nb = mcz_cur_count(&h, 3);
	if (!h.err && nb) {
		ix->blocks = malloc((size_t)nb * sizeof *ix->blocks);
		if (!ix->blocks)
			h.err = MCZ_E_NOMEM;
		ix->cap_blocks = (size_t)nb;
	}
	for (uint64_t i = 0; i < nb && !h.err; i++) {
		mcz_index_block *b = &ix->blocks[ix->nblocks++];
		b->type = (uint16_t)mcz_cur_uv(&h);
		b->off = mcz_cur_uv(&h);
		b->size = mcz_cur_uv(&h);
		if (b->off > file_size || b->size > file_size - b->off || b->size < MCZ_BLOCK_OVERHEAD)
			h.err = MCZ_E_CORRUPT;
	}
	uint64_t nc = mcz_cur_count(&h, 7);
	if (!h.err && nc) {
		ix->chunks = malloc((size_t)nc * sizeof *ix->chunks);
		if (!ix->chunks)
			h.err = MCZ_E_NOMEM;
		ix->cap_chunks = (size_t)nc;
	}
	for (uint64_t i = 0; i < nc && !h.err; i++) {
		mcz_index_chunk *k = &ix->chunks[ix->nchunks++];
		k->off = mcz_cur_uv(&h);
		k->size = mcz_cur_uv(&h);
		k->t_first = mcz_cur_sv(&h);
		uint64_t span = mcz_cur_uv(&h);
		uint64_t nr = mcz_cur_uv(&h), ns = mcz_cur_uv(&h);
		k->nvalues = mcz_cur_uv(&h);
		if (k->off > file_size || k->size > file_size - k->off ||
		    k->size < MCZ_BLOCK_OVERHEAD || !mcz_span_fits(k->t_first, span) ||
		    nr == 0 || nr > MCZ_MAX_CHUNK_ROWS ||
		    ns > UINT32_MAX || k->nvalues > nr * ns ||
		    (i > 0 && k->t_first <= k[-1].t_last)) {
			h.err = MCZ_E_CORRUPT;
			break;
		}
		k->t_last = k->t_first + (int64_t)span;
		k->nrows = (uint32_t)nr;
		k->nstreams = (uint32_t)ns;
	}
	/* without sections (bit 3) the head ends with nstreams, any number */
	uint64_t ns = ix->nosecs ? mcz_cur_uv(&h) : mcz_cur_count(&h, 1);
	if (ix->nosecs) {
		/* checked against the streams declared (reader_finish) before
		 * anything is allocated for them */
		rc = h.err == MCZ_E_NOMEM ? h.err
		     : h.err || c.err || ns > UINT32_MAX || mcz_cur_left(&h) || mcz_cur_left(&c)
			     ? MCZ_E_CORRUPT
			     : 0;
		ix->head_streams = ns;
		mcz_buf_free(&head);
		return rc;
	}
	mcz_index_sec *secs = NULL;
	if (!h.err && ns) {
		secs = calloc((size_t)ns, sizeof *secs);
		if (!secs)
			h.err = MCZ_E_NOMEM;
	}
	for (uint64_t s = 0; s < ns && !h.err; s++)
		if ((secs[s].rlen = (size_t)mcz_cur_uv(&h)) > 54 * ix->nchunks + 1)
			h.err = MCZ_E_CORRUPT;
	uint64_t ng = mcz_cur_count(&h, 3), s0 = 0;
	for (uint64_t g = 0; g < ng && !h.err; g++) {
		uint64_t gn = mcz_cur_uv(&h), cl = mcz_cur_uv(&h), gr = mcz_cur_uv(&h);
		const uint8_t *fp = cl <= mcz_cur_left(&c) ? mcz_cur_bytes(&c, (size_t)cl) : NULL;
		if (h.err || !fp || gn == 0 || gn > ns - s0) {
			h.err = MCZ_E_CORRUPT;
			break;
		}
		size_t off = 0;
		for (uint64_t k = s0; k < s0 + gn; k++) {
			secs[k] = (mcz_index_sec){fp, (size_t)cl, (size_t)gr, (size_t)g, off,
						  secs[k].rlen};
			off += secs[k].rlen;
		}
		if (off != gr)
			h.err = MCZ_E_CORRUPT;
		s0 += gn;
	}
	if (!h.err && s0 != ns)
		h.err = MCZ_E_CORRUPT;
	rc = h.err ? h.err : c.err ? c.err : mcz_cur_left(&h) || mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
	mcz_buf_free(&head);
	if (rc) {
		free(secs);
		return rc;
	}
	ix->nstreams = (size_t)ns;
	ix->sums = calloc(ns ? (size_t)ns : 1, sizeof *ix->sums);
	if (!ix->sums) {
		free(secs);
		return MCZ_E_NOMEM;
	}
	*secs_out = secs;
	return 0;
}

int mcz_index_load(mcz_index *ix, const mcz_index_sec *sec, mcz_codec_ctx *cx,
		   mcz_bucket *out)
{
	mcz_buf *raw = &cx->best; /* holds the last group decompressed */
	int rc = 0;
	if (ix->cached_group != sec->group + 1) {
		ix->cached_group = 0;
		if ((rc = index_unz(cx, sec->p, sec->clen, sec->grlen, raw)))
			return rc;
		ix->cached_group = sec->group + 1;
	}
	mcz_cur c = mcz_cur_make(raw->p + sec->off, sec->rlen);
	size_t n = ix->nchunks, k = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		mcz_bucket_init(&out[i]);
		if (mcz_index_unsummed(ix, i))
			continue; /* computed by the reader (query.c) */
		out[i].count = mcz_cur_uv(&c);
		k += out[i].count != 0;
		if (out[i].count > ix->chunks[i].nrows)
			c.err = MCZ_E_CORRUPT;
	}
	for (int pass = 0; pass < 2 && !rc && !c.err; pass++)
		for (size_t i = 0; i < n; i++) {
			const mcz_index_chunk *ch = &ix->chunks[i];
			if (!out[i].count)
				continue;
			uint64_t off = mcz_cur_uv(&c), span = (uint64_t)(ch->t_last - ch->t_first);
			if (off > span) {
				c.err = MCZ_E_CORRUPT;
				break;
			}
			if (pass == 0)
				out[i].first = ch->t_first + (int64_t)off;
			else if ((out[i].last = ch->t_last - (int64_t)off) < out[i].first)
				c.err = MCZ_E_CORRUPT;
		}
	for (int a = 0; a < 3 && !rc && !c.err; a++) {
		if (mcz_codec_scratch(cx, k + 1)) {
			rc = MCZ_E_NOMEM;
			break;
		}
		if (mcz_pack_get(&c, MCZ_PACK_SHUFFLE, cx->y, k))
			break;
		for (size_t i = 0, j = 0; i < n; i++) {
			if (!out[i].count)
				continue;
			double *dst = a == 0 ? &out[i].min : a == 1 ? &out[i].max : &out[i].sum;
			memcpy(dst, &cx->y[j++], 8);
		}
	}
	if (!rc)
		rc = c.err ? c.err : mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
	return rc;
}
