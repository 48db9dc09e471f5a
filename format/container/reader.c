/* reader.c: opening a recording (SPEC.md "Reader rules", "Recovery").
 *
 * A file is mapped read-only (or read from the caller's memory).  The
 * reader first trusts the trailer: it locates the INDEX block, checks its
 * CRC, and loads the small blocks it lists.  If anything there is missing
 * or wrong (a recorder killed by SIGKILL, a full disk, a damaged index) it
 * starts again by scanning the blocks from the header, skipping damaged
 * ones, and sets info.recovered.  Every length, count and offset is checked
 * against the bytes that hold it before use.
 *
 * A file still being written has no index: the scan reads its chunks and
 * the PART blocks after the last chunk (the rows of the chunk being
 * gathered).  mcz_reader_refresh() continues the scan where it stopped
 * (the file is mapped with room to grow), or reopens the path when the
 * recorder has replaced the file by its final copy, and tells the caller
 * from which chunk on its caches are stale.
 *
 *     mcz_reader *r;
 *     if (mcz_open(&r, "run.mcz", 0) == MCZ_OK) {
 *         printf("%zu streams\n", mcz_stream_count(r));
 *         mcz_close(r);
 *     }
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"

/* Remember the first problem met: "<what> at offset N". */
static void reader_problem(mcz_reader *r, const char *what, unsigned long long off)
{
	if (!r->problem[0])
		snprintf(r->problem, sizeof r->problem, "%s at offset %llu", what, off);
}

/* Forget everything loaded from blocks (before a rescan). */
void mcz_reader_reset(mcz_reader *r)
{
	mcz_meta_free_kv(&r->meta);
	mcz_meta_free_topo(r->topo, r->ntopo);
	r->topo = NULL;
	r->ntopo = 0;
	for (size_t i = 0; i < r->nstreams; i++)
		if (i >= r->cap_shared || !r->shared[i])
			mcz_meta_free_desc(&r->streams[i]);
	for (size_t i = 0; i < r->narenas; i++)
		free(r->arenas[i]);
	free(r->arenas);
	free(r->shared);
	r->arenas = NULL;
	r->shared = NULL;
	r->narenas = r->cap_shared = 0;
	free(r->streams);
	r->streams = NULL;
	r->nstreams = r->cap_streams = 0;
	for (size_t i = 0; i < r->nmarks; i++)
		free((char *)r->marks[i].text);
	free(r->marks);
	r->marks = NULL;
	r->nmarks = r->cap_marks = 0;
	for (size_t i = 0; i < r->naux; i++)
		free(r->aux[i].name);
	free(r->aux);
	r->aux = NULL;
	r->naux = r->cap_aux = 0;
	mcz_code_free(r->code);
	r->code = NULL;
	r->code_p = NULL;
	r->code_len = 0;
	r->code_bad = r->code_stale = 0;
	r->thr_p = NULL;
	r->thr_len = 0;
	free(r->part_p), free(r->part_len), free(r->part_stk_p), free(r->part_stk_len);
	r->part_p = r->part_stk_p = NULL;
	r->part_len = r->part_stk_len = NULL;
	r->nparts_code = r->cap_parts_code = 0;
	mcz_code_raw_free(r->raw);
	r->raw = NULL;
	r->raw_parts = 0;
	mcz_index_free(&r->ix);
	mcz_dcache_free(&r->dc); /* keyed by chunk number */
	free(r->secs);
	r->secs = NULL;
	r->nsecs = 0;
	r->info.skipped_blocks = 0;
	mcz_member_reset(r);
	r->nparts = 0;
	r->requires = 0;
	r->cut = 0;
	r->scan_resync = 0;
	free(r->verified);
	r->verified = NULL;
	r->nverified = 0;
	r->ndamaged = 0;
}

/* A COLSTREAMS body: its streams' strings in one arena the reader keeps. */
static int reader_colstreams(mcz_reader *r, const uint8_t *p, size_t len)
{
	size_t from = r->nstreams, ca = r->narenas;
	char *arena = NULL;
	if (mcz_buf_grow_array((void **)&r->arenas, &ca, r->narenas + 1, sizeof *r->arenas))
		return MCZ_E_NOMEM;
	int rc = mcz_scols_decode(p, len, &r->streams, &r->nstreams, &r->cap_streams, &arena);
	if (rc)
		return rc;
	r->arenas[r->narenas++] = arena;
	if (r->nstreams > r->cap_shared) {
		uint8_t *sh = realloc(r->shared, r->cap_streams);
		if (!sh) {
			r->nstreams = from; /* the arena is freed with the reader */
			return MCZ_E_NOMEM;
		}
		memset(sh + r->cap_shared, 0, r->cap_streams - r->cap_shared);
		r->shared = sh;
		r->cap_shared = r->cap_streams;
	}
	memset(r->shared + from, 1, r->nstreams - from);
	return 0;
}

/* Apply a META, TOPO, STREAMS or MARKS body. */
static int reader_apply_small(mcz_reader *r, uint16_t type, const uint8_t *p, size_t len)
{
	switch (type) {
	case MCZ_BT_META:
		return mcz_meta_decode_kv(p, len, &r->meta);
	case MCZ_BT_TOPO: {
		mcz_topo_obj *o;
		size_t n;
		int rc = mcz_meta_decode_topo(p, len, &o, &n);
		if (rc)
			return rc;
		mcz_meta_free_topo(r->topo, r->ntopo);
		r->topo = o;
		r->ntopo = n;
		return 0;
	}
	case MCZ_BT_STREAMS:
		return mcz_meta_decode_streams(p, len, &r->streams, &r->nstreams,
					       &r->cap_streams);
	case MCZ_BT_COLSTREAMS:
		return reader_colstreams(r, p, len);
	case MCZ_BT_MARKS:
		return mcz_meta_decode_marks(p, len, &r->marks, &r->nmarks, &r->cap_marks);
	}
	return 0;
}

/* Apply one verified non-chunk block. */
static int reader_apply(mcz_reader *r, const mcz_block_hdr *h, const uint8_t *p)
{
	const uint8_t *body;
	size_t blen;
	if (mcz_block_small(h->type)) {
		int rc = mcz_block_unpack(&r->cx, p, h->len, &r->cx.tmp2, &body, &blen);
		if (rc)
			return rc;
		return reader_apply_small(r, h->type, body, blen);
	}
	switch (h->type) {
	case MCZ_BT_BUNDLE: {
		/* "the bodies are applied in order, as the blocks they stand
		 * for would be" */
		mcz_buf tmp = {0};
		int rc = mcz_block_unpack_as(&r->cx, p, h->len, &tmp, &body, &blen, 2);
		mcz_cur c = mcz_cur_make(body, rc ? 0 : blen);
		uint64_t n = rc ? 0 : mcz_cur_count(&c, 2);
		for (uint64_t i = 0; i < n && !rc && !c.err; i++) {
			uint16_t t;
			const uint8_t *bp;
			size_t bl;
			if (!mcz_bundle_next(&c, &t, &bp, &bl))
				rc = reader_apply_small(r, t, bp, bl);
		}
		if (!rc)
			rc = c.err ? c.err : mcz_cur_left(&c) ? MCZ_E_CORRUPT : 0;
		mcz_buf_free(&tmp);
		r->ix.bundled = 1;
		return rc;
	}
	case MCZ_BT_AUX: {
		mcz_cur c = mcz_cur_make(p, h->len);
		char *name = mcz_cur_strdup(&c);
		if (!name)
			return c.err;
		if (r->naux == r->cap_aux) {
			size_t nc = r->cap_aux ? 2 * r->cap_aux : 8;
			reader_aux *a = realloc(r->aux, nc * sizeof *a);
			if (!a) {
				free(name);
				return MCZ_E_NOMEM;
			}
			r->aux = a;
			r->cap_aux = nc;
		}
		r->aux[r->naux++] = (reader_aux){name, c.p, mcz_cur_left(&c)};
		return 0;
	}
	case MCZ_BT_CODE:
		/* "When a file holds several CODE blocks, the last one wins";
		 * decoded when asked for (mcz_code_get), so a bad one hides
		 * nothing else. */
		r->code_p = p;
		r->code_len = h->len;
		mcz_code_free(r->code);
		r->code = NULL;
		r->code_bad = r->code_stale = 0;
		r->thr_p = NULL; /* "a CODETHREADS block splits the CODE block before it" */
		r->thr_len = 0;
		r->stk_p = NULL; /* "a CODESTACKS block gives the stacks of the CODE block before it" */
		r->stk_len = 0;
		return 0;
	case MCZ_BT_CODESTACKS:
		if (r->code_p) {
			r->stk_p = p;
			r->stk_len = h->len;
			if (r->code)
				r->code_stale = 1;
		}
		return 0;
	case MCZ_BT_CODETHREADS:
		if (r->code_p) {
			r->thr_p = p;
			r->thr_len = h->len;
			if (r->code) /* decoded without it: again when next asked for */
				r->code_stale = 1;
		}
		return 0;
	case MCZ_BT_CODEPART:
		/* "a reader merges every CODEPART block; a CODE block, where
		 * there is one, wins over them" */
		return mcz_code_part_apply(r, p, h->len);
	case MCZ_BT_CODEPARTSTACKS:
		return mcz_code_part_stacks_apply(r, p, h->len);
	case MCZ_BT_MEMBER:
		return mcz_member_apply(r, p, h->len);
	case MCZ_BT_REQUIRES: {
		/* 1.5: one varint, the minor version that blocks of the file
		 * need; "a reader of an older minor than the block says
		 * refuses the file" (readers before 1.5 by the critical flag
		 * of an unknown type) */
		mcz_cur c = mcz_cur_make(p, h->len);
		uint64_t m = mcz_cur_uv(&c);
		if (c.err || mcz_cur_left(&c))
			return MCZ_E_CORRUPT;
		if (m > MCZ_VERSION_MINOR)
			return mcz_error_set(MCZ_E_VERSION,
					     "the file needs format %u.%llu (it is version %u.%u; "
					     "this mcz reads %d.%d)",
					     r->info.version_major, (unsigned long long)m,
					     r->info.version_major, r->info.version_minor,
					     MCZ_VERSION_MAJOR, MCZ_VERSION_MINOR);
		r->requires = 1;
		return 0;
	}
	case MCZ_BT_CHUNK:
	case MCZ_BT_GCHUNK:
	case MCZ_BT_INDEX:
		return 0;
	}
	/* "A block of unknown type is skipped by its length, unless its
	 * critical flag is set: then the reader refuses the file." */
	if (h->flags & MCZ_BF_CRITICAL)
		return mcz_error_set(MCZ_E_VERSION,
				     "block type %u needs a newer reader (file is version %u.%u; "
				     "this mcz reads %d.%d)",
				     h->type, r->info.version_major, r->info.version_minor,
				     MCZ_VERSION_MAJOR, MCZ_VERSION_MINOR);
	r->info.skipped_blocks++;
	return 0;
}

/* Check chunks against the declared streams and fill info. */
static int reader_finish(mcz_reader *r)
{
	mcz_file_info *fi = &r->info;
	fi->nrows = fi->nvalues = fi->sample_bytes = 0;
	fi->nchunks = r->ix.nchunks;
	for (size_t i = 0; i < r->ix.nchunks; i++) {
		const mcz_index_chunk *k = &r->ix.chunks[i];
		if (k->nstreams > r->nstreams)
			return MCZ_E_CORRUPT;
		fi->nrows += k->nrows;
		fi->nvalues += k->nvalues;
		fi->sample_bytes += k->size;
	}
	fi->nparts = r->nparts;
	fi->part_rows = 0;
	for (size_t i = r->ix.nchunks - r->nparts; i < r->ix.nchunks; i++)
		fi->part_rows += r->ix.chunks[i].nrows;
	fi->t_first = fi->nchunks ? r->ix.chunks[0].t_first : 0;
	fi->t_last = fi->nchunks ? r->ix.chunks[fi->nchunks - 1].t_last : 0;
	const char *e = NULL;
	for (size_t i = 0; i < r->meta.n; i++)
		if (!strcmp(r->meta.keys[i], "wall_epoch_ns"))
			e = r->meta.vals[i];
	fi->wall_epoch_ns = e ? strtoll(e, NULL, 10) : 0;
	if ((r->secs || r->ix.nosecs) && r->nsecs != r->nstreams)
		return MCZ_E_CORRUPT;
	if (mcz_index_set_streams(&r->ix, r->nstreams))
		return MCZ_E_NOMEM;
	return 0;
}

static int reader_by_index(mcz_reader *r)
{
	if (r->size < MCZ_HEADER_SIZE + MCZ_TRAILER_SIZE)
		return MCZ_E_TRUNCATED;
	uint64_t io;
	size_t end = r->size - MCZ_TRAILER_SIZE;
	if (mcz_block_parse_trailer(r->base + end, &io) || io < MCZ_HEADER_SIZE || io >= end)
		return MCZ_E_CORRUPT;
	mcz_block_hdr h;
	const uint8_t *p = r->base + io;
	/* The INDEX payload CRC is not checked here: every zstd frame in it
	 * carries a checksum that is checked when the frame is used (SPEC.md
	 * 8, step 2), so opening a large file does not read its whole index. */
	if (mcz_block_parse(p, end - io, &h) || h.type != MCZ_BT_INDEX ||
	    io + h.len + MCZ_BLOCK_OVERHEAD != end)
		return MCZ_E_CORRUPT;
	/* flags bit 2 (since 1.4): a head stored as is has no frame checksum:
	 * "the reader checks the INDEX block's payload CRC" */
	if (h.len && (p[MCZ_BLOCK_HDR] & 4) && mcz_block_verify(p, &h))
		return MCZ_E_CORRUPT;
	int rc = mcz_index_decode(p + MCZ_BLOCK_HDR, h.len, io, &r->cx, &r->ix, &r->secs);
	if (rc)
		return rc;
	r->nsecs = r->ix.nosecs ? (size_t)r->ix.head_streams : r->ix.nstreams;
	for (size_t i = 0; i < r->ix.nblocks; i++) {
		const mcz_index_block *b = &r->ix.blocks[i];
		mcz_block_hdr bh;
		const uint8_t *bp = r->base + b->off;
		/* a MEMBER block's payload CRC is left to mcz check: the
		 * member is a recording whose every block has its own CRC,
		 * checked when it is read (SPEC.md 5.9), and opening a job
		 * file does not read every rank's bytes */
		if (b->off + b->size > io || mcz_block_parse(bp, io - b->off, &bh) ||
		    bh.type != b->type || bh.len + MCZ_BLOCK_OVERHEAD != b->size ||
		    (bh.type != MCZ_BT_MEMBER && mcz_block_verify(bp, &bh)))
			return MCZ_E_CORRUPT;
		if ((rc = reader_apply(r, &bh, bp + MCZ_BLOCK_HDR)))
			return rc;
	}
	r->data_end = io;
	r->info.valid_bytes = r->size;
	return reader_finish(r);
}

/* Find the next offset after `from` where a block header parses. */
static size_t reader_resync(const mcz_reader *r, size_t from)
{
	for (size_t o = from; o + MCZ_BLOCK_HDR <= r->size; o++) {
		const uint8_t *q = memchr(r->base + o, 'm', r->size - o - MCZ_BLOCK_HDR + 1);
		if (!q)
			break;
		o = (size_t)(q - r->base);
		mcz_block_hdr h;
		int rc = mcz_block_parse(q, r->size - o, &h);
		if (rc == 0 || (rc == MCZ_E_TRUNCATED && !memcmp(q, MCZ_BLOCK_SYNC, 4) &&
				mcz_cur_le32(q + 12) == mcz_block_crc(q, 12)))
			return o;
	}
	return r->size;
}

/* reader_resync, and where a refresh goes on looking if no header is found
 * (*resync_at, else 0): the first offset where a header may still begin,
 * its 16 bytes not all there yet. */
static size_t reader_resync_at(const mcz_reader *r, size_t from, size_t *resync_at)
{
	size_t o = reader_resync(r, from);
	size_t last = r->size >= MCZ_BLOCK_HDR ? r->size - (MCZ_BLOCK_HDR - 1) : 0;
	*resync_at = o < r->size ? 0 : from > last ? from : last;
	return o;
}

/* Walk the blocks from `off` (the header's end, or where the last scan
 * stopped).  Used for recovery, VERIFY and refresh. */
int mcz_reader_scan_from(mcz_reader *r, size_t off, uint64_t good_end)
{
	int rc;
	size_t resync_at = 0; /* the scan ended looking for a block header */
	if (r->scan_resync) {
		r->scan_resync = 0;
		off = reader_resync_at(r, off, &resync_at);
	}
	while (off < r->size) {
		mcz_block_hdr h;
		const uint8_t *p = r->base + off;
		rc = mcz_block_parse(p, r->size - off, &h);
		size_t avail = r->size - off;
		if (rc == MCZ_E_TRUNCATED &&
		    !memcmp(p, MCZ_BLOCK_SYNC, avail < 4 ? avail : 4) &&
		    (avail < MCZ_BLOCK_HDR || mcz_cur_le32(p + 12) == mcz_block_crc(p, 12))) {
			if (!r->problem[0])
				r->cut = 1; /* a refresh may find it whole */
			reader_problem(r, "file ends inside the block", off);
			/* named, so that the member cut is said; as a damaged
			 * member, not by a reader that verifies (it lists what
			 * it can check: a member listed would hide the job
			 * file's own blocks after it when the file grows) */
			if (avail > MCZ_BLOCK_HDR && (p[4] | p[5] << 8) == MCZ_BT_MEMBER &&
			    !(r->flags & MCZ_OPEN_VERIFY) &&
			    (rc = mcz_member_cut(r, p + MCZ_BLOCK_HDR, avail - MCZ_BLOCK_HDR,
						 mcz_cur_le32(p + 8))))
				return rc;
			break; /* the last block was cut short */
		}
		if (rc) {
			uint64_t io;
			if (avail >= MCZ_TRAILER_SIZE && !mcz_block_parse_trailer(p, &io)) {
				/* "A valid trailer at the very end ends the scan; a
				 * valid trailer before more blocks was superseded by
				 * an appended AUX block and is skipped." */
				off += MCZ_TRAILER_SIZE;
				good_end = off;
				if (avail == MCZ_TRAILER_SIZE)
					break;
				continue;
			}
			if (avail < MCZ_TRAILER_SIZE) {
				/* "So do fewer than 24 bytes at the end that
				 * are not a valid trailer (the start of a block
				 * or trailer being written)." */
				if (!r->problem[0])
					r->cut = 1;
				reader_problem(r, "file ends inside the block", off);
				break;
			}
			reader_problem(r, "damaged block header", off);
			r->bad_blocks++;
			off = reader_resync_at(r, off + 1, &resync_at);
			continue;
		}
		size_t next = off + MCZ_BLOCK_OVERHEAD + h.len;
		if (mcz_block_verify(p, &h)) {
			reader_problem(r, "CRC mismatch in the block", off);
			r->bad_blocks++;
			/* a member's damaged bytes are still a recording, checked
			 * as one when opened: listed, not lost */
			if (h.type == MCZ_BT_MEMBER && !(r->flags & MCZ_OPEN_VERIFY) &&
			    (rc = mcz_member_apply(r, p + MCZ_BLOCK_HDR, h.len)))
				return rc;
			off = next;
			continue;
		}
		const uint8_t *pl = p + MCZ_BLOCK_HDR;
		if (r->nmembers && h.type != MCZ_BT_META && h.type != MCZ_BT_BUNDLE &&
		    h.type != MCZ_BT_AUX && h.type != MCZ_BT_MEMBER) {
			/* "a reader ignores them": a member's own blocks, found by
			 * resynchronising inside a damaged member */
			off = next;
			continue;
		}
		if (mcz_block_is_chunk(h.type)) {
			/* "A CHUNK block replaces the PART blocks met since the
			 * previous CHUNK block: it must start after that CHUNK";
			 * a PART block must start after the block before it. */
			int whole = h.type != MCZ_BT_PART;
			size_t keep = r->ix.nchunks - (whole ? r->nparts : 0);
			mcz_chunk_info ci;
			const mcz_index_chunk *last = keep ? &r->ix.chunks[keep - 1] : NULL;
			if ((h.type == MCZ_BT_GCHUNK ? mcz_gchunk_parse(pl, h.len, &ci)
						     : mcz_chunk_parse(pl, h.len, &ci)) ||
			    ci.nstreams > r->nstreams ||
			    (last && ci.t_first <= last->t_last)) {
				reader_problem(r, whole ? "inconsistent chunk" : "inconsistent part",
					       off);
				r->bad_blocks++;
				off = next;
				continue;
			}
			mcz_index_chunk k = {off,	    next - off, ci.t_first,  ci.t_last,
					     ci.nrows, ci.nstreams, ci.nvalues};
			r->ix.nchunks = keep;
			r->ix.grouped |= h.type == MCZ_BT_GCHUNK;
			r->nparts = h.type == MCZ_BT_PART ? r->nparts + 1 : 0;
			if (mcz_index_add_chunk(&r->ix, &k, NULL, 0))
				return MCZ_E_NOMEM;
		} else if ((rc = reader_apply(r, &h, pl))) {
			if (rc == MCZ_E_VERSION || rc == MCZ_E_NOMEM)
				return rc;
			reader_problem(r, "bad payload in the block", off);
			r->bad_blocks++;
			off = next;
			continue;
		}
		good_end = next;
		off = next;
	}
	r->scan_off = resync_at ? resync_at : off < r->size ? off : r->size;
	r->scan_resync = resync_at != 0;
	r->scan_good = good_end;
	r->info.valid_bytes = good_end;
	r->data_end = good_end;
	return reader_finish(r);
}

static int reader_scan(mcz_reader *r)
{
	return mcz_reader_scan_from(r, MCZ_HEADER_SIZE, MCZ_HEADER_SIZE);
}

static int reader_mark_cmp(const void *a, const void *b)
{
	const mcz_mark *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

void mcz_reader_sort_marks(mcz_reader *r)
{
	if (r->nmarks)
		qsort(r->marks, r->nmarks, sizeof *r->marks, reader_mark_cmp);
}

/* Read r->base[0, size): by the index, else by scanning. */
int mcz_reader_load(mcz_reader *r)
{
	r->info.file_bytes = r->size;
	r->info.recovered = 0;
	int rc = mcz_block_check_header(r->base, r->size, &r->info.version_major,
					 &r->info.version_minor);
	if (!rc && ((r->flags & MCZ_OPEN_VERIFY) || (rc = reader_by_index(r)) != 0)) {
		if (rc == MCZ_E_VERSION || rc == MCZ_E_NOMEM)
			return rc;
		mcz_reader_reset(r);
		r->info.recovered = !(r->flags & MCZ_OPEN_VERIFY);
		rc = reader_scan(r);
		if (!rc && (r->flags & MCZ_OPEN_VERIFY)) {
			/* keep the scan's view but say whether the index agreed */
			r->info.recovered = 0;
		}
	}
	if (!rc)
		mcz_reader_sort_marks(r);
	return rc;
}

/* Bytes to map for a file of n bytes: room for it to grow, so that a
 * refresh seldom maps it again (pages past the end are never touched). */
size_t mcz_reader_map_len(size_t n)
{
	size_t extra = n / 2 > (64u << 20) ? n / 2 : (64u << 20);
	return n > SIZE_MAX - extra ? n : n + extra;
}

int mcz_open_mem(mcz_reader **rp, const void *buf, size_t len, unsigned flags)
{
	*rp = NULL;
	mcz_error_clear();
	if (!buf && len)
		return MCZ_E_ARG;
	if (len == 0)
		return mcz_error_set(MCZ_E_EMPTY, "the file is empty (0 bytes)");
	mcz_reader *r = calloc(1, sizeof *r);
	if (!r)
		return MCZ_E_NOMEM;
	r->fd = -1;
	r->refs = 1;
	r->base = buf;
	r->size = len;
	r->flags = flags;
	r->cx.level = 3;
	r->dc.budget = MCZ_DCACHE_DEFAULT;
	int rc = mcz_reader_load(r);
	if (rc) {
		mcz_close(r);
		return rc;
	}
	*rp = r;
	return 0;
}

int mcz_reader_clone(mcz_reader *r, mcz_reader **out)
{
	*out = NULL;
	if (!r)
		return MCZ_E_ARG;
	int rc = mcz_open_mem(out, r->base, r->size, r->flags & ~(unsigned)MCZ_OPEN_VERIFY);
	if (rc)
		return rc;
	(*out)->owner = r;
	r->refs++;
	return 0;
}

static int reader_open_file(mcz_reader **rp, const char *path, unsigned flags);

/* A path that names no file may name a member: "JOB.mcz:NAME" (member.c). */
int mcz_open(mcz_reader **rp, const char *path, unsigned flags)
{
	int rc = reader_open_file(rp, path, flags);
	if (rc == MCZ_E_IO && path && errno == ENOENT && strchr(path, ':')) {
		int mrc = mcz_member_open_path(rp, path, flags);
		if (mrc != MCZ_E_NOTMCZ)
			return mrc;
		errno = ENOENT;
		mcz_error_set(MCZ_E_IO, "%s", strerror(ENOENT));
	}
	return rc;
}

static int reader_open_file(mcz_reader **rp, const char *path, unsigned flags)
{
	*rp = NULL;
	mcz_error_clear();
	if (!path)
		return MCZ_E_ARG;
	/* O_NONBLOCK: a FIFO given as input is refused below, not waited on */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return mcz_error_set(errno == EISDIR ? MCZ_E_ISDIR : MCZ_E_IO, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return MCZ_E_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return mcz_error_set(MCZ_E_ISDIR, "a directory, not a recording");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return mcz_error_set(MCZ_E_IO, "%s, not a recording (only regular files are read)",
				     S_ISFIFO(st.st_mode)   ? "a pipe"
				     : S_ISCHR(st.st_mode)  ? "a character device"
				     : S_ISBLK(st.st_mode)  ? "a block device"
				     : S_ISSOCK(st.st_mode) ? "a socket"
							    : "not a regular file");
	}
	if (st.st_size == 0) {
		close(fd);
		return mcz_error_set(MCZ_E_EMPTY, "the file is empty (0 bytes)");
	}
	/* shared: the bytes a recorder appends appear in the same mapping */
	size_t ml = mcz_reader_map_len((size_t)st.st_size);
	void *m = mmap(NULL, ml, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return mcz_error_set(MCZ_E_IO, "mmap: %s", strerror(errno));
	}
	int rc = mcz_open_mem(rp, m, (size_t)st.st_size, flags);
	if (rc) {
		munmap(m, ml);
		close(fd);
		return rc;
	}
	mcz_reader *r = *rp;
	r->map = m;
	r->map_len = ml;
	r->dev = (uint64_t)st.st_dev;
	r->ino = (uint64_t)st.st_ino;
	r->path = strdup(path); /* NULL: refresh does not look for a new file */
	/* a file without its index may be growing: keep it open for refresh
	 * (a closed one is opened again if it changes: mcview opens a
	 * thousand ranks' files without a thousand descriptors) */
	if (r->info.recovered && r->path)
		r->fd = fd;
	else
		close(fd);
	return 0;
}

int mcz_open_fd(mcz_reader **rp, int fd, uint64_t off, unsigned flags)
{
	*rp = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return mcz_error_set(MCZ_E_IO, "not a regular file");
	if ((uint64_t)st.st_size <= off)
		return mcz_error_set(MCZ_E_EMPTY, "the file is empty (0 bytes)");
	/* mmap wants an offset on a page: map from the page that holds off */
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), at = off - off % page;
	size_t ml = (size_t)((uint64_t)st.st_size - at);
	void *m = mmap(NULL, ml, PROT_READ, MAP_SHARED, fd, (off_t)at);
	if (m == MAP_FAILED)
		return mcz_error_set(MCZ_E_IO, "mmap: %s", strerror(errno));
	int rc = mcz_open_mem(rp, (const char *)m + (off - at), (size_t)((uint64_t)st.st_size - off),
			      flags);
	if (rc) {
		munmap(m, ml);
		return rc;
	}
	(*rp)->map = m;
	(*rp)->map_len = ml;
	return 0;
}

void mcz_close(mcz_reader *r)
{
	if (!r || --r->refs > 0)
		return; /* a member still reads this job file's bytes */
	mcz_reader *owner = r->owner;
	mcz_reader_reset(r);
	mcz_codec_ctx_free(&r->cx);
	mcz_dcache_free(&r->dc);
	free(r->sums_n);
	free(r->path);
	free(r->cols.t);
	free(r->cols.v);
	free(r->cols.delta);
	free(r->cols.present);
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	mcz_close(owner);
}

void reader_drop_pages(const mcz_reader *r, const uint8_t *p, size_t len)
{
	while (r->owner)
		r = r->owner; /* a job member's bytes are its file's */
	const uint8_t *m = r->map;
	if (!m || len == 0 || p < m || p + len > m + r->map_len)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(page - 1), b = ((uintptr_t)(p + len) + page - 1) & ~(page - 1);
	if (b > (uintptr_t)(m + r->map_len))
		b = (uintptr_t)(m + r->map_len);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

const mcz_file_info *mcz_info(const mcz_reader *r)
{
	return &r->info;
}

size_t mcz_meta_count(const mcz_reader *r)
{
	return r->meta.n;
}

int mcz_meta_at(const mcz_reader *r, size_t i, const char **key, const char **value)
{
	if (i >= r->meta.n)
		return MCZ_E_RANGE;
	*key = r->meta.keys[i];
	*value = r->meta.vals[i];
	return 0;
}

const char *mcz_meta(const mcz_reader *r, const char *key)
{
	for (size_t i = 0; key && i < r->meta.n; i++)
		if (!strcmp(r->meta.keys[i], key))
			return r->meta.vals[i];
	return NULL;
}

size_t mcz_topo_count(const mcz_reader *r)
{
	return r->ntopo;
}

const mcz_topo_obj *mcz_topo(const mcz_reader *r, size_t i)
{
	return i < r->ntopo ? &r->topo[i] : NULL;
}

size_t mcz_stream_count(const mcz_reader *r)
{
	return r->nstreams;
}

const mcz_stream_desc *mcz_stream(const mcz_reader *r, size_t id)
{
	return id < r->nstreams ? &r->streams[id] : NULL;
}

size_t mcz_mark_count(const mcz_reader *r)
{
	return r->nmarks;
}

const mcz_mark *mcz_mark_at(const mcz_reader *r, size_t i)
{
	return i < r->nmarks ? &r->marks[i] : NULL;
}

int mcz_aux(const mcz_reader *r, const char *name, const void **data, size_t *len)
{
	for (size_t i = r->naux; name && i-- > 0;)
		if (!strcmp(r->aux[i].name, name)) {
			*data = r->aux[i].data;
			*len = r->aux[i].len;
			return 0;
		}
	return MCZ_E_NOTFOUND;
}
