/* test-format-code.c: the CODE block (SPEC.md 5.6).  A profile survives
 * encode/decode and a file (through its index, and by scanning when the
 * index is gone) field for field; a file without one says NOTFOUND; a
 * reader that does not know the block type skips it and reads everything
 * else the same (the CODE block's type turned into an unknown one, as a
 * 1.0/1.1 reader sees it; tests/integration/code-old-reader.sh runs a real
 * 1.1 reader); every truncation and many bit flips of the payload are
 * refused or decoded without a crash; a bad CODE block in a file hides
 * nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../../format/mcz.h"

static const mcz_code_object cd_objs[] = {
	{"/usr/bin/app", "93004454f1c88cc6550de7cd7e78c4929e3354f9", ""},
	{"[vdso]", "", "no file (anonymous or JIT code)"},
};
static const mcz_code_loc cd_locs[] = {
	{0, 0x1424, MCZ_CODE_DWARF, "compute_kernel", "main", "app.c", 27},
	{0, 0x12c6, MCZ_CODE_DWARF, "stream_kernel", "main", "app.c", 35},
	{0, 0x1180, MCZ_CODE_SYMTAB, "main", "", "", 0},
	{1, 0x7ffd0000, MCZ_CODE_ADDR, "", "", "", 0},
};
static const int64_t cd_t[] = {-500000, 99500000, 199500000, 5000000000LL};
static const size_t cd_first[] = {0, 2, 3, 5, 6};
static const mcz_code_hit cd_hits[] = {{0, 23}, {2, 9}, {0, 100}, {1, 80}, {3, 1}, {1, 4000000000u}};

static const mcz_code_edge cd_callers[] = {{0, 2, 120}, {1, 2, 79}, {1, 3, 1}};

static mcz_code cd_profile(void)
{
	mcz_code c = {"cpu-clock", 1000000, 100000000, "[vdso]: no file",
		      2, cd_objs, 4, cd_locs, 4, cd_t, cd_first, 6, cd_hits, 3, cd_callers,
		      0, NULL, 0, NULL, 0, NULL, 0, NULL};
	return c;
}

static void cd_assert_same(const mcz_code *a, const mcz_code *b)
{
	assert_string_equal(a->event, b->event);
	assert_int_equal(a->period, b->period);
	assert_int_equal(a->interval_ns, b->interval_ns);
	assert_string_equal(a->note, b->note);
	assert_int_equal(a->nobjects, b->nobjects);
	for (size_t i = 0; i < a->nobjects; i++) {
		assert_string_equal(a->objects[i].path, b->objects[i].path);
		assert_string_equal(a->objects[i].build_id, b->objects[i].build_id);
		assert_string_equal(a->objects[i].note, b->objects[i].note);
	}
	assert_int_equal(a->nlocs, b->nlocs);
	for (size_t i = 0; i < a->nlocs; i++) {
		assert_int_equal(a->locs[i].object, b->locs[i].object);
		assert_int_equal(a->locs[i].offset, b->locs[i].offset);
		assert_int_equal(a->locs[i].how, b->locs[i].how);
		assert_string_equal(a->locs[i].function, b->locs[i].function);
		assert_string_equal(a->locs[i].inlined, b->locs[i].inlined);
		assert_string_equal(a->locs[i].file, b->locs[i].file);
		assert_int_equal(a->locs[i].line, b->locs[i].line);
	}
	assert_int_equal(a->nintervals, b->nintervals);
	assert_int_equal(a->nhits, b->nhits);
	for (size_t i = 0; i < a->nintervals; i++) {
		assert_int_equal(a->t[i], b->t[i]);
		assert_int_equal(a->first[i], b->first[i]);
	}
	assert_int_equal(a->first[a->nintervals], b->first[b->nintervals]);
	for (size_t h = 0; h < a->nhits; h++) {
		assert_int_equal(a->hits[h].loc, b->hits[h].loc);
		assert_int_equal(a->hits[h].count, b->hits[h].count);
	}
	assert_int_equal(a->ncallers, b->ncallers);
	for (size_t e = 0; e < a->ncallers; e++) {
		assert_int_equal(a->callers[e].loc, b->callers[e].loc);
		assert_int_equal(a->callers[e].caller, b->callers[e].caller);
		assert_int_equal(a->callers[e].count, b->callers[e].count);
	}
}

static void test_roundtrip(void **state)
{
	(void)state;
	mcz_code c = cd_profile();
	void *buf;
	size_t len;
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_OK);
	mcz_code *d;
	assert_int_equal(mcz_code_decode(buf, len, &d), MCZ_OK);
	cd_assert_same(&c, d);
	mcz_code_free(d);
	free(buf);
	/* without callers the body ends after the intervals */
	c.ncallers = 0;
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_OK);
	assert_int_equal(mcz_code_decode(buf, len, &d), MCZ_OK);
	cd_assert_same(&c, d);
	mcz_code_free(d);
	free(buf);
	/* an empty profile (no sample) is valid too */
	mcz_code e = {"cpu-clock", 1000000, 100000000, "", 0, NULL, 0, NULL, 0, NULL, NULL, 0, NULL,
		      0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
	size_t zero = 0;
	e.first = &zero;
	assert_int_equal(mcz_code_encode(&e, &buf, &len), MCZ_OK);
	assert_int_equal(mcz_code_decode(buf, len, &d), MCZ_OK);
	assert_int_equal(d->nintervals, 0);
	mcz_code_free(d);
	free(buf);
	/* locations at their minimum size, 7 bytes each (SPEC.md 5.6), and
	 * no interval: what encodes decodes (a reader that took 8 bytes a
	 * location refused it; fuzz-code found it) */
	mcz_code_object o[3] = {{"", "", ""}, {"", "", ""}, {"", "", ""}};
	mcz_code_loc l[3] = {{0}, {0}, {0}};
	for (int i = 0; i < 3; i++) {
		l[i].object = (uint32_t)i;
		l[i].function = l[i].inlined = l[i].file = "";
	}
	e.event = e.note = "";
	e.period = 0;
	e.interval_ns = 0;
	e.nobjects = 3;
	e.objects = o;
	e.nlocs = 3;
	e.locs = l;
	assert_int_equal(mcz_code_encode(&e, &buf, &len), MCZ_OK);
	assert_int_equal(mcz_code_decode(buf, len, &d), MCZ_OK);
	assert_int_equal(d->nlocs, 3);
	assert_int_equal(d->locs[2].object, 2);
	mcz_code_free(d);
	free(buf);
}

static void test_encode_refuses_bad_tables(void **state)
{
	(void)state;
	void *buf;
	size_t len;
	mcz_code c = cd_profile();
	mcz_code_hit bad[6];
	memcpy(bad, cd_hits, sizeof bad);
	bad[1].loc = 0; /* not increasing within the interval */
	c.hits = bad;
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_E_ARG);
	bad[1].loc = 9; /* no such location */
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_E_ARG);
	c = cd_profile();
	int64_t t[4] = {0, 0, 1, 2}; /* times not increasing */
	c.t = t;
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_E_ARG);
	c = cd_profile();
	mcz_code_edge e[2] = {{1, 2, 5}, {0, 2, 5}}; /* callers not in order */
	c.callers = e;
	c.ncallers = 2;
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_E_ARG);
}

static void test_hostile_payloads(void **state)
{
	(void)state;
	mcz_code c = cd_profile();
	void *buf;
	size_t len;
	assert_int_equal(mcz_code_encode(&c, &buf, &len), MCZ_OK);
	uint8_t *p = buf;
	mcz_code *d;
	/* every truncation is refused (the body must end exactly) */
	for (size_t n = 0; n < len; n++)
		assert_int_not_equal(mcz_code_decode(p, n, &d), MCZ_OK);
	/* every single-byte change either decodes to valid tables or is refused */
	uint8_t *q = malloc(len);
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(q, p, len);
			q[i] ^= (uint8_t)(1u << bit);
			if (mcz_code_decode(q, len, &d) == MCZ_OK) {
				for (size_t h = 0; h < d->nhits; h++)
					assert_true(d->hits[h].loc < d->nlocs);
				for (size_t l = 0; l < d->nlocs; l++)
					assert_true(d->locs[l].object < d->nobjects);
				mcz_code_free(d);
			}
		}
	free(q);
	free(buf);
	/* an unpacked body claiming 2^40 objects asks for no memory */
	uint8_t huge[] = {0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20};
	assert_int_equal(mcz_code_decode(huge, sizeof huge, &d), MCZ_E_CORRUPT);
	uint8_t packing[] = {7};
	assert_int_equal(mcz_code_decode(packing, 1, &d), MCZ_E_CORRUPT);
}

static char cd_path[64];

/* A small file with two streams, a mark, and (code) the profile. */
static void cd_write(int code)
{
	snprintf(cd_path, sizeof cd_path, "/tmp/test-format-code-%d.mcz", (int)getpid());
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 16;
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, cd_path, &o), MCZ_OK);
	for (int s = 0; s < 2; s++) {
		mcz_stream_desc dsc = MCZ_STREAM_DESC_INIT;
		dsc.name = s ? "code.samples" : "x";
		dsc.kind = s ? MCZ_COUNTER : MCZ_GAUGE;
		dsc.type = s ? MCZ_U64 : MCZ_F64;
		assert_int_equal(mcz_writer_add_stream(w, &dsc, NULL), MCZ_OK);
	}
	for (int r = 0; r < 100; r++) {
		mcz_value v[2];
		v[0].f = r * 0.25;
		v[1].u = (uint64_t)r * 100;
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 100000000, v, NULL), MCZ_OK);
	}
	mcz_writer_mark(w, 50, MCZ_MARK_POINT, 0, "m");
	if (code) {
		mcz_code c = cd_profile();
		assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static uint8_t *cd_slurp(size_t *len)
{
	FILE *f = fopen(cd_path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *b = malloc(*len);
	assert_int_equal(fread(b, 1, *len, f), *len);
	fclose(f);
	return b;
}

/* Offset of the first block of type `type` (SPEC.md 4 framing), or 0. */
static size_t cd_find_block(const uint8_t *b, size_t len, uint16_t type)
{
	for (size_t off = 20; off + 20 <= len;) {
		uint16_t t = (uint16_t)(b[off + 4] | b[off + 5] << 8);
		uint32_t l = (uint32_t)b[off + 8] | (uint32_t)b[off + 9] << 8 |
			     (uint32_t)b[off + 10] << 16 | (uint32_t)b[off + 11] << 24;
		if (memcmp(b + off, "mczB", 4) != 0)
			return 0;
		if (t == type)
			return off;
		off += 20 + l;
	}
	return 0;
}

static void cd_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Rewrite the header CRC (and payload CRC) of the block at off. */
static void cd_recrc(uint8_t *b, size_t off)
{
	uint32_t l = (uint32_t)b[off + 8] | (uint32_t)b[off + 9] << 8 |
		     (uint32_t)b[off + 10] << 16 | (uint32_t)b[off + 11] << 24;
	cd_put32(b + off + 12, (uint32_t)crc32(0, b + off, 12));
	cd_put32(b + off + 16 + l, (uint32_t)crc32(0, b + off + 16, l));
}

/* The bytes of a file with a profile, and where its CODE block is. */
static uint8_t *cd_code_file(size_t *len, size_t *off)
{
	cd_write(1);
	uint8_t *b = cd_slurp(len);
	*off = cd_find_block(b, *len, 9);
	assert_true(*off > 0);
	assert_int_equal(b[*off + 6] | b[*off + 7] << 8, 0); /* "never set the critical flag" */
	return b;
}

static void cd_assert_rest(mcz_reader *r)
{
	const mcz_file_info *fi = mcz_info(r);
	assert_int_equal(fi->nrows, 100);
	assert_int_equal(mcz_stream_count(r), 2);
	assert_int_equal(mcz_mark_count(r), 1);
	mcz_series s = {0};
	assert_int_equal(mcz_read(r, 1, 0, INT64_MAX, &s), MCZ_OK);
	assert_int_equal(s.n, 100);
	assert_int_equal(s.v[99].u, 9900);
	mcz_series_free(&s);
}

static void test_file(void **state)
{
	(void)state;
	cd_write(1);
	mcz_reader *r;
	const mcz_code *c;
	/* through the index */
	assert_int_equal(mcz_open(&r, cd_path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->version_minor, MCZ_VERSION_MINOR);
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	mcz_code want = cd_profile();
	cd_assert_same(&want, c);
	cd_assert_rest(r);
	mcz_close(r);
	/* by scanning (no trailer: a recorder killed after writing it) */
	size_t len;
	uint8_t *b = cd_slurp(&len);
	assert_int_equal(mcz_open_mem(&r, b, len - 24, 0), MCZ_OK);
	assert_true(mcz_info(r)->recovered);
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	cd_assert_same(&want, c);
	mcz_close(r);
	/* mcz check is clean, and a repaired copy keeps the profile */
	mcz_check_report rep;
	assert_int_equal(mcz_check(cd_path, &rep), MCZ_OK);
	assert_int_equal(rep.blocks_bad, 0);
	char out[80];
	snprintf(out, sizeof out, "%s.repaired", cd_path);
	assert_int_equal(mcz_repair(cd_path, out), MCZ_OK);
	assert_int_equal(mcz_open(&r, out, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	cd_assert_same(&want, c);
	mcz_close(r);
	unlink(out);
	free(b);
	unlink(cd_path);
}

/* A profile split by thread (SPEC.md 5.12): written as CODE then
 * CODETHREADS, read back whole through the index and by scanning; every
 * byte of the CODETHREADS payload flipped (its CRC made good) leaves the
 * profile's hits as they were, and the split either whole and consistent
 * or gone; a reader that does not know the block skips it. */
static const mcz_code_thread cd_threads[] = {{4242, 4242}, {4242, 4250}};
static const mcz_code_thit cd_thits[] = {
	{0, 0, 0, 20}, {0, 0, 2, 9}, {0, 1, 0, 3}, {1, 0, 0, 100}, {1, 1, 1, 80},
	{2, 1, 3, 1}, {3, 0, 1, 4000000000u},
};

static void cd_assert_threads(const mcz_code *c)
{
	assert_int_equal(c->nthreads, 2);
	assert_int_equal(c->threads[1].tid, 4250);
	assert_int_equal(c->nthits, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(c->thits[i].interval, cd_thits[i].interval);
		assert_int_equal(c->thits[i].thread, cd_thits[i].thread);
		assert_int_equal(c->thits[i].loc, cd_thits[i].loc);
		assert_int_equal(c->thits[i].count, cd_thits[i].count);
	}
}

static void test_threads(void **state)
{
	(void)state;
	snprintf(cd_path, sizeof cd_path, "/tmp/test-format-code-thr-%d.mcz", (int)getpid());
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, cd_path, NULL), MCZ_OK);
	mcz_code c = cd_profile();
	c.nthreads = 2, c.threads = cd_threads, c.nthits = 7, c.thits = cd_thits;
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	/* out of order, or past the tables: refused */
	mcz_code_thit bad[2] = {cd_thits[1], cd_thits[0]};
	mcz_code d = c;
	d.thits = bad, d.nthits = 2;
	void *p;
	size_t n;
	assert_int_equal(mcz_code_encode_threads(&d, &p, &n), MCZ_E_ARG);
	bad[0] = (mcz_code_thit){4, 0, 0, 1};
	d.nthits = 1;
	assert_int_equal(mcz_code_encode_threads(&d, &p, &n), MCZ_E_ARG);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mcz_reader *r;
	const mcz_code *got;
	assert_int_equal(mcz_open(&r, cd_path, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
	cd_assert_same(&c, got);
	cd_assert_threads(got);
	mcz_close(r);
	size_t len;
	uint8_t *b = cd_slurp(&len);
	assert_int_equal(mcz_open_mem(&r, b, len - 24, 0), MCZ_OK); /* by scanning */
	assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
	cd_assert_threads(got);
	mcz_close(r);
	size_t off = cd_find_block(b, len, 16);
	assert_true(off > 0);
	uint32_t plen = (uint32_t)b[off + 8] | (uint32_t)b[off + 9] << 8 | (uint32_t)b[off + 10] << 16;
	int gone = 0;
	for (uint32_t at = 0; at < plen; at++) {
		uint8_t *x = malloc(len);
		memcpy(x, b, len);
		x[off + 16 + at] ^= 0x21;
		cd_recrc(x, off);
		assert_int_equal(mcz_open_mem(&r, x, len, 0), MCZ_OK);
		assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
		assert_int_equal(got->nhits, 6); /* the CODE block is untouched */
		gone += got->nthreads == 0;
		for (size_t i = 0; i < got->nthits; i++)
			assert_true(got->thits[i].interval < got->nintervals &&
				    got->thits[i].thread < got->nthreads &&
				    got->thits[i].loc < got->nlocs && got->thits[i].count > 0);
		mcz_close(r);
		free(x);
	}
	assert_true(gone > 0);
	/* the block under a type this reader does not know: skipped, the
	 * profile whole but not split */
	b[off + 4] = 201;
	cd_recrc(b, off);
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
	assert_int_equal(got->nthreads, 0);
	assert_int_equal(got->nhits, 6);
	mcz_close(r);
	free(b);
	unlink(cd_path);
}

/* Stacks over cd_profile's 4 locations: main(0) -> a(1) -> leaf(3),
 * main -> b(2) -> leaf, and main alone. */
static const mcz_code_frame cd_frames[] = {
	{MCZ_CODE_ROOT, 0}, {0, 1}, {1, 3}, {0, 2}, {3, 3},
};
static const mcz_code_stackhit cd_shits[] = {
	{0, 0, 2, 30}, {0, 0, 4, 10}, {0, 1, 0, 1}, {2, 0, 2, 3}, {3, 1, 4, 1},
};

static void cd_assert_stacks(const mcz_code *c)
{
	assert_int_equal(c->nframes, 5);
	assert_int_equal(c->nstackhits, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(c->frames[i].parent, cd_frames[i].parent);
		assert_int_equal(c->frames[i].loc, cd_frames[i].loc);
		assert_memory_equal(&c->stackhits[i], &cd_shits[i], sizeof cd_shits[i]);
	}
}

static void test_stacks(void **state)
{
	(void)state;
	snprintf(cd_path, sizeof cd_path, "/tmp/test-format-code-stk-%d.mcz", (int)getpid());
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, cd_path, NULL), MCZ_OK);
	mcz_code c = cd_profile();
	c.nthreads = 2, c.threads = cd_threads, c.nthits = 7, c.thits = cd_thits;
	c.nframes = 5, c.frames = cd_frames, c.nstackhits = 5, c.stackhits = cd_shits;
	/* a parent after its child, a frame past the locations, hits out of
	 * order or past the tables: refused */
	mcz_code d = c;
	void *p;
	size_t n;
	mcz_code_frame bf[2] = {{1, 0}, {MCZ_CODE_ROOT, 0}};
	d.frames = bf, d.nframes = 2, d.nstackhits = 0;
	assert_int_equal(mcz_code_encode_stacks(&d, &p, &n), MCZ_E_ARG);
	bf[0] = (mcz_code_frame){MCZ_CODE_ROOT, 4};
	assert_int_equal(mcz_code_encode_stacks(&d, &p, &n), MCZ_E_ARG);
	d = c;
	mcz_code_stackhit bh[2] = {cd_shits[1], cd_shits[0]};
	d.stackhits = bh, d.nstackhits = 2;
	assert_int_equal(mcz_code_encode_stacks(&d, &p, &n), MCZ_E_ARG);
	bh[0] = (mcz_code_stackhit){0, 2, 0, 1};
	d.nstackhits = 1;
	assert_int_equal(mcz_code_encode_stacks(&d, &p, &n), MCZ_E_ARG);
	bh[0] = (mcz_code_stackhit){0, 0, 5, 1};
	assert_int_equal(mcz_code_encode_stacks(&d, &p, &n), MCZ_E_ARG);
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mcz_reader *r;
	const mcz_code *got;
	assert_int_equal(mcz_open(&r, cd_path, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
	cd_assert_same(&c, got);
	cd_assert_threads(got);
	cd_assert_stacks(got);
	mcz_close(r);
	size_t len;
	uint8_t *b = cd_slurp(&len);
	assert_int_equal(mcz_open_mem(&r, b, len - 24, 0), MCZ_OK); /* by scanning */
	assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
	cd_assert_stacks(got);
	mcz_close(r);
	/* any byte of the block changed: the stacks whole and in range, or
	 * gone; the rest of the profile untouched */
	size_t off = cd_find_block(b, len, 17);
	assert_true(off > 0);
	uint32_t plen = (uint32_t)b[off + 8] | (uint32_t)b[off + 9] << 8 | (uint32_t)b[off + 10] << 16;
	int gone = 0;
	for (uint32_t at = 0; at < plen; at++) {
		uint8_t *x = malloc(len);
		memcpy(x, b, len);
		x[off + 16 + at] ^= 0x21;
		cd_recrc(x, off);
		assert_int_equal(mcz_open_mem(&r, x, len, 0), MCZ_OK);
		assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
		assert_int_equal(got->nhits, 6);
		assert_int_equal(got->nthreads, 2);
		gone += got->nframes == 0;
		for (size_t i = 0; i < got->nframes; i++)
			assert_true(got->frames[i].loc < got->nlocs &&
				    (got->frames[i].parent == MCZ_CODE_ROOT || got->frames[i].parent < i));
		for (size_t i = 0; i < got->nstackhits; i++)
			assert_true(got->stackhits[i].interval < got->nintervals &&
				    got->stackhits[i].thread < got->nthreads &&
				    got->stackhits[i].frame < got->nframes && got->stackhits[i].count > 0);
		mcz_close(r);
		free(x);
	}
	assert_true(gone > 0);
	/* a reader that does not know the type (as 1.6): the profile whole,
	 * without stacks */
	b[off + 4] = 201;
	cd_recrc(b, off);
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &got), MCZ_OK);
	assert_int_equal(got->nframes, 0);
	assert_int_equal(got->nthreads, 2);
	mcz_close(r);
	free(b);
	unlink(cd_path);
	/* MCZ_FORMAT=1.6: no CODESTACKS block */
	setenv("MCZ_FORMAT", "1.6", 1);
	assert_int_equal(mcz_writer_open(&w, cd_path, NULL), MCZ_OK);
	assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	unsetenv("MCZ_FORMAT");
	b = cd_slurp(&len);
	assert_int_equal(cd_find_block(b, len, 17), 0);
	assert_true(cd_find_block(b, len, 16) > 0);
	free(b);
	unlink(cd_path);
}

static void test_file_without_code(void **state)
{
	(void)state;
	cd_write(0);
	mcz_reader *r;
	const mcz_code *c;
	assert_int_equal(mcz_open(&r, cd_path, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &c), MCZ_E_NOTFOUND);
	assert_null(c);
	cd_assert_rest(r);
	mcz_close(r);
	unlink(cd_path);
}

/* What a reader that does not know type 9 sees: the same block under a
 * type it does not know, non-critical.  It is skipped, counted, and
 * everything else reads the same, through the index and by scanning. */
static void test_older_reader_skips(void **state)
{
	(void)state;
	size_t len, off;
	uint8_t *b = cd_code_file(&len, &off);
	b[off + 4] = 200;
	cd_recrc(b, off);
	mcz_reader *r;
	const mcz_code *c;
	/* by scanning (the index lists the block as type 9: cut the trailer) */
	assert_int_equal(mcz_open_mem(&r, b, len - 24, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->skipped_blocks, 1);
	assert_int_equal(mcz_code_get(r, &c), MCZ_E_NOTFOUND);
	cd_assert_rest(r);
	mcz_close(r);
	/* the same block marked critical is refused, naming the type */
	b[off + 6] = 1;
	cd_recrc(b, off);
	assert_int_equal(mcz_open_mem(&r, b, len - 24, 0), MCZ_E_VERSION);
	free(b);
	unlink(cd_path);
}

/* A CODE block whose CRC holds but whose body is bad: the profile says
 * CORRUPT, everything else reads. */
static void test_bad_code_block_hides_nothing(void **state)
{
	(void)state;
	size_t len, off;
	uint8_t *b = cd_code_file(&len, &off);
	b[off + 16] = 5; /* packing 5: invalid */
	cd_recrc(b, off);
	mcz_reader *r;
	const mcz_code *c;
	assert_int_equal(mcz_open_mem(&r, b, len, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &c), MCZ_E_CORRUPT);
	assert_int_equal(mcz_code_get(r, &c), MCZ_E_CORRUPT); /* and stays so */
	cd_assert_rest(r);
	mcz_close(r);
	/* mcz check names it */
	FILE *f = fopen(cd_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	mcz_check_report rep;
	assert_int_equal(mcz_check(cd_path, &rep), MCZ_OK);
	assert_int_equal(rep.blocks_bad, 1);
	assert_non_null(strstr(rep.first_problem, "CODE block does not decode"));
	free(b);
	unlink(cd_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_encode_refuses_bad_tables),
		cmocka_unit_test(test_hostile_payloads),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_file_without_code),
		cmocka_unit_test(test_older_reader_skips),
		cmocka_unit_test(test_bad_code_block_hides_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
