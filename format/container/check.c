/* check.c: verification, repair and appending to a closed file
 * (mcz_check, mcz_repair, mcz_append_aux; SPEC.md "Recovery").
 *
 * mcz_check opens the file twice: once as a normal reader would (does the
 * trailer and index hold?) and once scanning every block and checking every
 * CRC.  mcz_repair copies everything readable into a new, clean file
 * through the public writer, so a repaired file is written by exactly the
 * code that writes every other file.
 *
 *     mcz_check_report rep;
 *     mcz_check("run.mcz", &rep);
 *     if (!rep.index_ok || rep.blocks_bad) mcz_repair("run.mcz", "fixed.mcz");
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

static int check_verified(mcz_reader *ir, mcz_reader *r, mcz_check_report *rep);

int mcz_check(const char *path, mcz_check_report *rep)
{
	if (!path || !rep)
		return MCZ_E_ARG;
	memset(rep, 0, sizeof *rep);
	mcz_reader *ir, *r;
	int rc = mcz_open(&ir, path, 0);
	if (rc)
		return rc;
	if ((rc = mcz_open(&r, path, MCZ_OPEN_VERIFY))) {
		mcz_close(ir);
		return rc;
	}
	return check_verified(ir, r, rep);
}

int mcz_check_member(mcz_reader *job, size_t i, mcz_check_report *rep)
{
	if (!job || !rep)
		return MCZ_E_ARG;
	memset(rep, 0, sizeof *rep);
	mcz_reader *ir, *r;
	int rc = mcz_member_open(job, i, 0, &ir);
	if (rc)
		return rc;
	if ((rc = mcz_member_open(job, i, MCZ_OPEN_VERIFY, &r))) {
		mcz_close(ir);
		return rc;
	}
	return check_verified(ir, r, rep);
}

/* The report of a reader opened by its index (ir) and the same file
 * opened with MCZ_OPEN_VERIFY (r), both closed here.  An index that
 * opens but does not list the chunks the blocks hold (a chunk misplaced,
 * its CRC good) is not a valid index: a reader by it sees a damaged chunk
 * where there is none. */
static int check_verified(mcz_reader *ir, mcz_reader *r, mcz_check_report *rep)
{
	rep->index_ok = !ir->info.recovered;
	/* (where blocks are damaged the scan has fewer chunks than the index:
	 * those are the problem said) */
	long mis = rep->index_ok && !r->bad_blocks && !r->problem[0] && !r->info.nparts
			  ? mcz_index_diff_chunks(&ir->ix, &r->ix)
			  : -1;
	mcz_close(ir);
	if (mis >= 0) {
		/* the INDEX block is damaged, though its CRC holds: not a file
		 * being written (INCOMPLETE), whose index is merely missing */
		rep->index_ok = 0;
		r->bad_blocks++;
		const mcz_index *x = (size_t)mis < r->ix.nchunks ? &r->ix : NULL;
		snprintf(r->problem, sizeof r->problem,
			 x ? "the index does not list the chunk at offset %llu as it is"
			   : "the index lists chunks the file does not hold",
			 x ? (unsigned long long)x->chunks[mis].off : 0ull);
	}
	rep->file_bytes = r->info.file_bytes;
	rep->valid_bytes = r->info.valid_bytes;
	rep->blocks_bad = r->bad_blocks;
	/* count the good blocks: chunks plus the small blocks the scan applied */
	size_t off = MCZ_HEADER_SIZE;
	uint64_t ok = 0;
	while (off < r->size) {
		mcz_block_hdr h;
		uint64_t io;
		if (mcz_block_parse(r->base + off, r->size - off, &h)) {
			if (r->size - off > MCZ_TRAILER_SIZE &&
			    !mcz_block_parse_trailer(r->base + off, &io)) {
				off += MCZ_TRAILER_SIZE; /* superseded by an appended AUX block */
				continue;
			}
			break;
		}
		if (!mcz_block_verify(r->base + off, &h))
			ok++;
		off += MCZ_BLOCK_OVERHEAD + h.len;
	}
	rep->blocks_ok = ok - (mis >= 0 && ok); /* the INDEX block, counted bad */
	rep->chunks_ok = r->ix.nchunks;
	rep->rows_ok = r->info.nrows;
	/* every chunk decodes, column by column */
	for (size_t ci = 0; ci < r->ix.nchunks; ci++)
		for (uint32_t s = 0; s < r->ix.chunks[ci].nstreams; s++)
			if (mcz_query_decode(r, ci, s)) {
				rep->blocks_bad++;
				if (!r->problem[0])
					snprintf(r->problem, sizeof r->problem,
						 "chunk at offset %llu: stream %u does not decode",
						 (unsigned long long)r->ix.chunks[ci].off, s);
				break;
			}
	/* the code profile decodes (SPEC.md 5.6: a bad one hides nothing else,
	 * but it is a damaged block all the same) */
	const mcz_code *code;
	int crc = mcz_code_get(r, &code);
	if (crc != MCZ_OK && crc != MCZ_E_NOTFOUND) {
		rep->blocks_bad++;
		if (!r->problem[0])
			snprintf(r->problem, sizeof r->problem, "CODE block does not decode (%s)",
				 mcz_strerror(crc));
	}
	if (!r->problem[0] && !rep->index_ok)
		snprintf(r->problem, sizeof r->problem, "no valid index or trailer at the end");
	snprintf(rep->first_problem, sizeof rep->first_problem, "%s", r->problem);
	mcz_close(r);
	return 0;
}

static int check_copy(mcz_reader *r, mcz_writer *w)
{
	int rc = 0;
	for (size_t i = 0; i < r->meta.n && !rc; i++)
		if (strcmp(r->meta.keys[i], "wall_epoch_ns"))
			rc = mcz_writer_meta(w, r->meta.keys[i], r->meta.vals[i]);
	if (!rc && r->ntopo)
		rc = mcz_writer_topology(w, r->topo, r->ntopo);
	for (size_t s = 0; s < r->nstreams && !rc; s++)
		rc = mcz_writer_add_stream(w, &r->streams[s], NULL);
	size_t ns = r->nstreams;
	mcz_value *row = calloc(ns ? ns : 1, sizeof *row);
	uint8_t *pres = calloc(ns ? ns : 1, 1);
	mcz_value *vals = NULL;
	uint8_t *pr = NULL;
	int64_t *t = NULL;
	if (!row || !pres)
		rc = MCZ_E_NOMEM;
	for (size_t ci = 0; ci < r->ix.nchunks && !rc; ci++) {
		const mcz_index_chunk *k = &r->ix.chunks[ci];
		size_t n = k->nrows;
		vals = realloc(vals, (n * (ns ? ns : 1)) * sizeof *vals);
		pr = realloc(pr, n * (ns ? ns : 1));
		t = realloc(t, n * sizeof *t);
		if (!vals || !pr || !t) {
			rc = MCZ_E_NOMEM;
			break;
		}
		memset(pr, 0, n * (ns ? ns : 1));
		int bad = 0;
		for (uint32_t s = 0; s < (ns ? ns : 1) && !bad; s++) {
			if ((bad = mcz_query_decode(r, ci, s)))
				break;
			for (size_t i = 0; i < n; i++) {
				t[i] = r->cols.t[i];
				if (s < ns) {
					vals[i * ns + s] = r->cols.v[i];
					pr[i * ns + s] = r->cols.present[i];
				}
			}
		}
		if (bad)
			continue; /* an undecodable chunk is left out */
		for (size_t i = 0; i < n && !rc; i++)
			rc = mcz_writer_append(w, t[i], ns ? vals + i * ns : row,
					       ns ? pr + i * ns : pres);
	}
	for (size_t i = 0; i < r->nmarks && !rc; i++)
		rc = mcz_writer_mark(w, r->marks[i].t, r->marks[i].kind, r->marks[i].source,
				     r->marks[i].text);
	for (size_t i = 0; i < r->naux && !rc; i++)
		rc = mcz_writer_aux(w, r->aux[i].name, r->aux[i].data, r->aux[i].len);
	const mcz_code *code; /* a CODE block that decodes is kept; a bad one is left out */
	if (!rc && mcz_code_get(r, &code) == MCZ_OK)
		rc = mcz_writer_code(w, code);
	free(row);
	free(pres);
	free(vals);
	free(pr);
	free(t);
	return rc;
}

int mcz_repair(const char *in, const char *out)
{
	if (!in || !out)
		return MCZ_E_ARG;
	mcz_reader *r;
	int rc = mcz_open(&r, in, MCZ_OPEN_VERIFY);
	if (rc)
		return rc;
	/* the copy beside out, renamed over it once whole (outpath.c): a
	 * repair that fails leaves an earlier out as it was; out being the
	 * file read (mapped: truncating it is a SIGBUS) is refused first */
	mcz_outpath op;
	if ((rc = mcz_outpath_begin(&op, out))) {
		mcz_close(r);
		return rc;
	}
	if (mcz_outpath_is(&op, in)) {
		mcz_outpath_abort(&op);
		mcz_close(r);
		return mcz_error_set(MCZ_E_ARG, "the file being repaired; --repair writes another");
	}
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.wall_epoch_ns = r->info.wall_epoch_ns;
	mcz_writer *w;
	if ((rc = mcz_writer_open(&w, op.write, &o))) {
		mcz_outpath_abort(&op);
		mcz_close(r);
		return rc;
	}
	rc = check_copy(r, w);
	int rc2 = mcz_writer_close(w);
	mcz_close(r);
	rc = rc ? rc : rc2;
	if (rc)
		mcz_outpath_abort(&op);
	else
		rc = mcz_outpath_commit(&op, 0);
	return rc;
}

int mcz_append_aux(const char *path, const char *name, const void *data, size_t len)
{
	if (!path || !name || (len && !data))
		return MCZ_E_ARG;
	/* "No reader ever writes into a file it has not verified": every CRC
	 * first (the new index copies the old one's summaries; a damaged chunk
	 * would leave a hole in them, and a damaged file deserves mcz check,
	 * not more bytes).  One pass over the file, on the rare append. */
	mcz_check_report rep;
	int rc = mcz_check(path, &rep);
	if (rc)
		return rc;
	if (!rep.index_ok || rep.blocks_bad || rep.first_problem[0])
		return mcz_error_set(MCZ_E_CORRUPT, "not appending to a file that fails mcz check: %s",
				     rep.first_problem[0] ? rep.first_problem : "no index");
	mcz_reader *r;
	rc = mcz_open(&r, path, 0);
	if (rc)
		return rc;
	/* every stream's summaries must be in memory to write the new index */
	for (uint32_t s = 0; s < r->nstreams && !rc; s++) {
		const mcz_bucket *b;
		rc = mcz_query_sums(r, s, &b);
	}
	mcz_buf p = {0}, blk = {0};
	mcz_buf_str(&p, name);
	mcz_buf_put(&p, data, len);
	mcz_block_frame(&blk, MCZ_BT_AUX, 0, p.p, p.len);
	/* "a writer appends the new AUX block, a new INDEX block and a new
	 * trailer after the old trailer": bytes already in the file never
	 * change, so a reader that mapped it keeps a consistent view. */
	uint64_t at = r->size;
	if (!rc)
		rc = blk.err ? blk.err : mcz_index_add_block(&r->ix, MCZ_BT_AUX, at, blk.len);
	int fd = rc ? -1 : open(path, O_WRONLY | O_CLOEXEC);
	if (!rc && fd < 0)
		rc = mcz_error_set(MCZ_E_IO, "%s: %s", path, strerror(errno));
	for (size_t done = 0; !rc && done < blk.len;) {
		ssize_t k = pwrite(fd, blk.p + done, blk.len - done, (off_t)(at + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = k < 0 && errno != ENOSPC ? MCZ_E_IO : MCZ_E_NOSPC;
		else
			done += (size_t)k;
	}
	uint64_t end = 0;
	if (!rc)
		rc = mcz_writer_finish_index(fd, at + blk.len, &r->ix, &r->cx, &end);
	if (!rc && ftruncate(fd, (off_t)end) != 0)
		rc = MCZ_E_IO;
	/* A write that failed part-way (a full disk) is cut back: the file ends
	 * at its old trailer again, as it was verified. */
	if (rc && fd >= 0 && ftruncate(fd, (off_t)at) != 0)
		rc = MCZ_E_IO;
	if (fd >= 0 && close(fd) != 0 && !rc)
		rc = MCZ_E_IO;
	mcz_buf_free(&p);
	mcz_buf_free(&blk);
	mcz_close(r);
	return rc;
}
