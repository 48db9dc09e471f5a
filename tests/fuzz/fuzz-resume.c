/* fuzz-resume.c: libFuzzer target for mcz_writer_resume (format/container/resume.c,
 * format/container/writer.c; SPEC.md 4.1, "Writer rules"): a closed file continued
 * with new blocks, a new INDEX block and trailer after the old trailer.
 * mcview continues its cache entries with it, and an entry may be damaged:
 * any input must give a negative error code or a file that reads whole,
 * never a crash, a leak or a huge allocation.
 *
 * Each input is tried twice: as it is, then with its CRCs made good again
 * (the file header's, both of every whole block's, walking the blocks from
 * byte 20 and over the old trailers between them, and the trailer's at the
 * end), when that changes a byte.  Mutations then reach the index, the
 * descriptors and the chunks behind the CRCs, and the CRC checks stay
 * fuzzed too.  Both, not one chosen by a bit of the input: the first byte
 * is the magic's 0x89, which a file resume may accept must keep, and a
 * damaged input is refused at resume's first scan, so its raw try is
 * cheap.
 *
 * Per try, the bytes go to a private file (one per process, rewritten
 * each time); a reader verifying every block (MCZ_OPEN_VERIFY, from
 * memory) says whether it is whole, with its rows, streams and last time.
 * mcz_writer_resume (batch, as format/pcp/pcp-convert.c continues a cache
 * entry) must refuse with a negative code, or accept only what that reader
 * opened, and a file whose index says what its blocks say (the same rows,
 * chunks, values, streams, last time).  Accepted, the writer gets one new
 * gauge and one row at t_last + 1 with a value for every stream, and is
 * closed.  Where the close succeeded, the result must read whole:
 * verified, one row and one stream more, by its index as by its blocks,
 * mcz check finding no damage the input did not have (resume checks CRCs,
 * not that every chunk decodes), the new row's values read back as given
 * (the new stream's and the first old ones'), and, where every chunk
 * decodes, a counter's delta at the new row its step from its last sample
 * before it.
 *
 * With MCZ_FUZZ_RESUMED=PATH the last file continued is copied to PATH:
 * tests/fuzz/make-corpus.sh makes a seed that has been continued already
 * (an old trailer between blocks) that way.  `make check` replays
 * tests/fuzz/corpus-resume/ through tests/fuzz/replay.c.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../format/mcz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_CHECKED = 32 }; /* old streams whose new value is read back */

static char fuzz_path[] = "/tmp/fuzz-resume-XXXXXX";
static int fuzz_have_path;

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
}

/* The private file, made once per process; 0 when it is there. */
static int fuzz_init(void)
{
	if (fuzz_have_path)
		return 0;
	int fd = mkstemp(fuzz_path);
	if (fd < 0)
		return -1;
	close(fd);
	fuzz_have_path = 1;
	atexit(fuzz_cleanup);
	/* resume continues only a file of the version this writer writes */
	unsetenv("MCZ_FORMAT");
	return 0;
}

static int fuzz_put(const char *path, const uint8_t *b, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < n) {
		ssize_t k = write(fd, b + done, n - done);
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	return close(fd) == 0 && done == n ? 0 : -1;
}

static uint32_t fuzz_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* p[0, 4) = the CRC of q[0, n): zlib's crc32, which is the format's
 * (SPEC.md 1; mcz_block_crc in format/container/block.c calls it). */
static void fuzz_put_crc(uint8_t *p, const uint8_t *q, size_t n)
{
	uint32_t c = (uint32_t)crc32(0L, q, (uInt)n);
	p[0] = (uint8_t)c;
	p[1] = (uint8_t)(c >> 8);
	p[2] = (uint8_t)(c >> 16);
	p[3] = (uint8_t)(c >> 24);
}

/* Make the CRCs of b good again (see the top). */
static void fuzz_fix(uint8_t *b, size_t n)
{
	if (n < 20 || memcmp(b, "\x89MCZ\r\n\x1a\n", 8) != 0)
		return;
	fuzz_put_crc(b + 16, b, 16);
	/* the trailer at the end first: a block walked below may hold it */
	if (n >= 44 && !memcmp(b + n - 8, "mczTRAIL", 8))
		fuzz_put_crc(b + n - 12, b + n - 24, 12);
	size_t off = 20;
	while (n - off >= 16) {
		if (!memcmp(b + off, "mczB", 4)) {
			uint32_t len = fuzz_get32(b + off + 8);
			if ((uint64_t)len + 20 > n - off)
				break; /* cut: no whole block */
			fuzz_put_crc(b + off + 12, b + off, 12);
			fuzz_put_crc(b + off + 16 + len, b + off + 16, len);
			off += 20 + (size_t)len;
		} else if (n - off >= 24 && !memcmp(b + off + 16, "mczTRAIL", 8)) {
			fuzz_put_crc(b + off + 12, b + off, 12); /* superseded */
			off += 24;
		} else {
			break;
		}
	}
}

/* What a reader makes of the input. */
typedef struct fuzz_view {
	int ok;
	uint64_t rows, chunks, values;
	size_t streams;
	int64_t t_last;
	int recovered;
} fuzz_view;

static void fuzz_view_of(mcz_reader *r, fuzz_view *v)
{
	const mcz_file_info *fi = mcz_info(r);
	*v = (fuzz_view){.ok = 1, .rows = fi->nrows, .chunks = fi->nchunks, .values = fi->nvalues};
	v->streams = mcz_stream_count(r);
	v->t_last = fi->t_last;
	v->recovered = fi->recovered;
}

static int fuzz_same(const fuzz_view *a, const fuzz_view *b)
{
	return a->ok && b->ok && a->rows == b->rows && a->chunks == b->chunks &&
	       a->values == b->values && a->streams == b->streams && a->t_last == b->t_last;
}

/* A value of stream s, by its type. */
static mcz_value fuzz_value(const mcz_stream_desc *d, size_t s)
{
	mcz_value v;
	if (d->type == MCZ_F64)
		v.f = (double)s + 0.5;
	else if (d->type == MCZ_I64)
		v.i = -(int64_t)s - 7;
	else
		v.u = 1000003u * (uint64_t)(s + 1);
	return v;
}

/* Stream s of the continued file at t holds v (and a counter's delta is
 * its step from its last sample before, when every chunk decodes). */
static void fuzz_read_back(mcz_reader *r, uint32_t s, int64_t t, mcz_value v, int deltas)
{
	mcz_series ser;
	if (mcz_read(r, s, t, t + 1, &ser) != MCZ_OK)
		abort();
	if (ser.n != 1 || ser.t[0] != t || !ser.present[0] || memcmp(&ser.v[0], &v, sizeof v))
		abort(); /* the row appended is read back as given */
	mcz_series_free(&ser);
	if (!deltas || mcz_stream(r, s)->kind != MCZ_COUNTER)
		return;
	if (mcz_read(r, s, INT64_MIN, t + 1, &ser) != MCZ_OK)
		abort();
	if (ser.n == 0 || ser.t[ser.n - 1] != t || !ser.delta)
		abort();
	uint64_t step = 0;
	for (size_t i = ser.n - 1; i-- > 0;)
		if (ser.present[i]) {
			step = v.u - ser.v[i].u;
			break;
		}
	if (ser.delta[ser.n - 1] != step)
		abort(); /* SPEC.md 4.1: "a delta from its last one before them" */
	mcz_series_free(&ser);
}

/* The continued file, closed without error: whole, one row and one stream
 * more than old, the new row as given.  in: mcz check of the input. */
static void fuzz_check_result(const fuzz_view *old, const mcz_check_report *in, int64_t t,
			      const mcz_value *vals, size_t nvals)
{
	mcz_reader *r, *x;
	if (mcz_open(&r, fuzz_path, MCZ_OPEN_VERIFY) != MCZ_OK)
		abort();
	fuzz_view v, vx;
	fuzz_view_of(r, &v);
	if (v.rows != old->rows + 1 || v.streams != old->streams + 1 || v.t_last != t ||
	    mcz_info(r)->nparts != 0 || nvals != v.streams)
		abort();
	/* by its index, the same file */
	if (mcz_open(&x, fuzz_path, 0) != MCZ_OK)
		abort();
	fuzz_view_of(x, &vx);
	mcz_close(x);
	if (vx.recovered || !fuzz_same(&v, &vx))
		abort();
	mcz_check_report rep;
	if (mcz_check(fuzz_path, &rep) != MCZ_OK || !rep.index_ok ||
	    rep.blocks_bad != in->blocks_bad || (!in->first_problem[0] && rep.first_problem[0]))
		abort(); /* no damage but the input's */
	int deltas = in->blocks_bad == 0;
	fuzz_read_back(r, (uint32_t)old->streams, t, vals[old->streams], deltas);
	for (size_t s = 0; s < old->streams && s < FUZZ_CHECKED; s++)
		fuzz_read_back(r, (uint32_t)s, t, vals[s], deltas);
	mcz_close(r);
}

/* Copy the continued file to $MCZ_FUZZ_RESUMED (a seed made by hand). */
static void fuzz_keep(void)
{
	const char *out = getenv("MCZ_FUZZ_RESUMED");
	FILE *f = out && *out ? fopen(fuzz_path, "rb") : NULL;
	if (!f)
		return;
	uint8_t buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	if (feof(f))
		fuzz_put(out, buf, n, 0644);
	fclose(f);
}

static void fuzz_one(const uint8_t *b, size_t n)
{
	if (fuzz_put(fuzz_path, b, n, 0600) != 0)
		return;
	/* verified block by block, and by its index, as resume opens it */
	fuzz_view old = {0}, byix = {0};
	mcz_reader *r, *ix = NULL;
	if (mcz_open_mem(&r, b, n, MCZ_OPEN_VERIFY) == MCZ_OK) {
		fuzz_view_of(r, &old);
		mcz_close(r);
	}
	if (mcz_open_mem(&ix, b, n, 0) == MCZ_OK)
		fuzz_view_of(ix, &byix);

	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.batch = 1;
	mcz_writer *w = NULL;
	int rc = mcz_writer_resume(&w, fuzz_path, &o);
	if (rc != MCZ_OK) {
		if (rc > 0 || w)
			abort(); /* a refusal is a negative code, and no writer */
		mcz_close(ix);
		return;
	}
	if (!old.ok || !ix || byix.recovered || !fuzz_same(&old, &byix))
		abort(); /* accepted: a whole file, its index true to its blocks */
	/* nothing is written yet: mcz check sees the input */
	mcz_check_report in;
	if (mcz_check(fuzz_path, &in) != MCZ_OK || !in.index_ok)
		abort();

	size_t ns = mcz_stream_count(ix);
	mcz_value *vals = calloc(ns + 1, sizeof *vals);
	if (!vals)
		abort();
	for (size_t s = 0; s < ns; s++)
		vals[s] = fuzz_value(mcz_stream(ix, s), s);
	mcz_close(ix);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "fuzz.added";
	d.source = "fuzz";
	d.unit = "B";
	uint32_t id = UINT32_MAX;
	rc = mcz_writer_add_stream(w, &d, &id);
	if (rc == MCZ_OK && id != ns)
		abort(); /* a new stream takes the next id */
	vals[ns].f = (double)n / 8 + 0.125;
	int room = old.t_last < INT64_MAX - 1; /* t + 1 is read back */
	int64_t t = room ? old.t_last + 1 : 0;
	int appended = rc == MCZ_OK && room && mcz_writer_append(w, t, vals, NULL) == MCZ_OK;
	rc = mcz_writer_close(w);
	if (rc > 0)
		abort();
	if (rc == MCZ_OK && appended) {
		fuzz_check_result(&old, &in, t, vals, ns + 1);
		fuzz_keep();
	}
	free(vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_init() != 0)
		return 0;
	fuzz_one(data, size);
	uint8_t *fixed = malloc(size ? size : 1);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	fuzz_fix(fixed, size);
	if (memcmp(fixed, data, size) != 0)
		fuzz_one(fixed, size);
	free(fixed);
	return 0;
}
