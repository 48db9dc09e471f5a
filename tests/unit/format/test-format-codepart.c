/* test-format-codepart.c: CODEPART blocks (SPEC.md 5.11).  Parts written
 * while recording come back merged, cell for cell (counts of one place in
 * one interval added up across parts), through the index and by scanning a
 * file cut after its last part; with no CODE block, mcz_code_get gives them
 * as a profile named by object and 64-byte region, or by the symbolizer a
 * program set; a CODE block wins over the parts; a damaged part adds
 * nothing and is counted (the objects it brought stand as "[lost]" for
 * later parts); a part whose objects disagree with an earlier one's is
 * damaged; every truncation of a file of parts opens or is
 * refused without a crash.
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
#include "../file-blocks.h"
#include "../file-bytes.h"
#include "../tmpdir.h"

TMPDIR_FIXTURE("mcz-test-codepart")

static const mcz_code_raw_object cp_objs[] = {
	{"/usr/bin/app", "93004454f1c88cc6550de7cd7e78c4929e3354f9", 1},
	{"/usr/lib/libm.so.6", "", 1},
	{"[unknown]", "", 0},
};

/* part 1 (objects 0-1, threads 0-1), part 2 (all three of each):
 * interval 100 ms */
static const mcz_code_thread cp_threads[] = {{100, 100}, {100, 101}, {100, 102}};
static const mcz_code_cell cp_cells1[] = {
	{0, 0, 0, 0x1424, UINT32_MAX, 0, 23, MCZ_CODE_ROOT},
	{0, 1, 0, 0x1430, 0, 0x1180, 7, MCZ_CODE_ROOT}, /* same 64-byte region as 0x1424, another thread */
	{100000000, 0, 1, 0x9000, 0, 0x1200, 5, MCZ_CODE_ROOT},
};
static const mcz_code_cell cp_cells2[] = {
	{100000000, 0, 1, 0x9000, 0, 0x1200, 4, MCZ_CODE_ROOT}, /* adds up with part 1's */
	{200000000, 2, 2, 0x7ffd1234, UINT32_MAX, 0, 1, MCZ_CODE_ROOT},
};

static mcz_code_raw cp_part(int which)
{
	mcz_code_raw p = {"cpu-clock", 1000000, 100000000, which == 1 ? 2 : 3, cp_objs,
			  which == 1 ? 0 : 2, which == 1 ? 2 : 3, cp_threads, which == 1 ? 0 : 2,
			  which == 1 ? 3 : 2, which == 1 ? cp_cells1 : cp_cells2, 0, 0, 0, NULL, 0};
	return p;
}

/* A file of 40 rows, a part after row 20 and after row 40, and a CODE
 * block when code is set. */
static void cp_write(const char *path, int code)
{
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "code.samples";
	d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	assert_int_equal(mcz_writer_add_stream(w, &d, NULL), MCZ_OK);
	for (int r = 0; r < 40; r++) {
		mcz_value v = {.u = (uint64_t)r * 30};
		assert_int_equal(mcz_writer_append(w, (int64_t)r * 10000000, &v, NULL), MCZ_OK);
		if (r == 19 || r == 39) {
			mcz_code_raw p = cp_part(r == 19 ? 1 : 2);
			assert_int_equal(mcz_writer_code_part(w, &p), MCZ_OK);
			assert_int_equal(mcz_writer_sync(w), MCZ_OK);
		}
	}
	if (code) {
		mcz_code_object o = {"/usr/bin/app", "", ""};
		mcz_code_loc l = {0, 0x1400, MCZ_CODE_SYMTAB, "whole", "", "", 0};
		int64_t t = 0;
		size_t first[2] = {0, 1};
		mcz_code_hit h = {0, 40};
		mcz_code c = {"cpu-clock", 1000000, 100000000, "", 1, &o, 1, &l, 1, &t, first, 1, &h,
			      0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
		assert_int_equal(mcz_writer_code(w, &c), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

/* The merged cells of cp_cells1 and cp_cells2. */
static void cp_assert_merged(const mcz_code_raw *m, size_t nparts)
{
	assert_string_equal(m->event, "cpu-clock");
	assert_int_equal(m->period, 1000000);
	assert_int_equal(m->interval_ns, 100000000);
	assert_int_equal(m->nparts, nparts);
	assert_int_equal(m->nobjects, nparts == 2 ? 3 : 2);
	assert_string_equal(m->objects[0].build_id, cp_objs[0].build_id);
	assert_int_equal(m->objects[nparts == 2 ? 2 : 1].file, nparts == 2 ? 0 : 1);
	assert_int_equal(m->ncells, nparts == 2 ? 4 : 3);
	assert_int_equal(m->cells[0].count, 23);
	assert_int_equal(m->cells[0].cobj, UINT32_MAX);
	assert_int_equal(m->cells[1].coff, 0x1180);
	assert_int_equal(m->cells[1].thr, 1);
	assert_int_equal(m->nthreads, nparts == 2 ? 3 : 2);
	assert_int_equal(m->threads[1].tid, 101);
	assert_int_equal(m->cells[2].t, 100000000);
	assert_int_equal(m->cells[2].count, nparts == 2 ? 9 : 5);
	if (nparts == 2) {
		assert_int_equal(m->cells[3].obj, 2);
		assert_int_equal(m->cells[3].off, 0x7ffd1234);
	}
}

/* mcz_code_get's profile of both parts, without a symbolizer: 0x1424 and
 * 0x1430 are one location (app+0x1400), callers merged over the run. */
static void cp_assert_profile(const mcz_code *c)
{
	assert_non_null(strstr(c->note, "cut before its end"));
	assert_non_null(strstr(c->note, "2 parts"));
	assert_int_equal(c->nintervals, 3);
	assert_int_equal(c->t[2], 200000000);
	/* locations: app+0x1400, app+0x1180 (callers' too), libm+0x9000, unknown address */
	assert_int_equal(c->nlocs, 5);
	uint64_t total = 0;
	for (size_t h = 0; h < c->nhits; h++)
		total += c->hits[h].count;
	assert_int_equal(total, 23 + 7 + 9 + 1);
	assert_int_equal(c->first[1] - c->first[0], 1); /* one location in interval 0 */
	assert_int_equal(c->hits[0].count, 30);
	assert_int_equal(c->locs[c->hits[0].loc].offset, 0x1400);
	assert_int_equal(c->locs[c->hits[0].loc].how, MCZ_CODE_ADDR);
	assert_int_equal(c->ncallers, 2);
	assert_int_equal(c->callers[0].count + c->callers[1].count, 7 + 9);
	/* by thread: interval 0's location split 23 (thread 0) and 7 (thread 1) */
	assert_int_equal(c->nthreads, 3);
	assert_int_equal(c->threads[2].tid, 102);
	assert_int_equal(c->nthits, 4);
	assert_int_equal(c->thits[0].count, 23);
	assert_int_equal(c->thits[1].thread, 1);
	assert_int_equal(c->thits[1].count, 7);
	assert_int_equal(c->thits[1].loc, c->thits[0].loc);
	assert_int_equal(c->thits[3].interval, 2);
	assert_int_equal(c->thits[3].thread, 2);
}

static void test_parts_merged(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/parts.mcz", dir);
	cp_write(path, 0);
	mcz_reader *r;
	const mcz_code_raw *raw;
	const mcz_code *c;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_info(r)->version_minor, MCZ_VERSION_MINOR);
	assert_int_equal(mcz_code_raw_get(r, &raw), MCZ_OK);
	cp_assert_merged(raw, 2);
	assert_true(mcz_code_from_parts(r));
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	cp_assert_profile(c);
	mcz_close(r);
	/* cut after the first part's sync: a recorder killed there */
	size_t len, off[2];
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 15, off, 2, NULL), 2);
	assert_int_equal(mcz_open_mem(&r, b, off[1], 0), MCZ_OK);
	assert_true(mcz_info(r)->recovered);
	assert_int_equal(mcz_code_raw_get(r, &raw), MCZ_OK);
	cp_assert_merged(raw, 1);
	mcz_close(r);
	/* every cut opens, or is refused, without a crash; past the first
	 * part it always has the first part's cells */
	for (size_t cut = 0; cut < len; cut += 7) {
		if (mcz_open_mem(&r, b, cut, 0) != MCZ_OK)
			continue;
		if (cut >= off[1] && mcz_code_raw_get(r, &raw) == MCZ_OK)
			assert_true(raw->ncells >= 3);
		mcz_code_get(r, &c);
		mcz_close(r);
	}
	free(b);
}

static int cp_named;

/* A symbolizer that names every location "named" (the one mcview and mcz
 * set reads binaries; this one shows the hook is what names them). */
static int cp_symbolizer(const mcz_code_raw *raw, void **p, size_t *len, void **tp, size_t *tlen,
			 void **sp, size_t *slen)
{
	(void)sp, (void)slen;
	cp_named++;
	mcz_code_object o = {raw->objects[0].path, raw->objects[0].build_id, ""};
	mcz_code_loc l = {0, 0x1424, MCZ_CODE_DWARF, "named", "", "app.c", 3};
	size_t first[2] = {0, 1};
	uint64_t n = 0;
	for (size_t i = 0; i < raw->ncells; i++)
		n += raw->cells[i].count;
	mcz_code_hit h = {0, (uint32_t)n};
	mcz_code c = {raw->event, raw->period, raw->interval_ns, "by the hook", 1, &o, 1, &l, 1,
		      &raw->cells[0].t, first, 1, &h, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
	*tp = NULL;
	*tlen = 0;
	return mcz_code_encode(&c, p, len);
}

static void test_symbolizer_and_code_wins(void **state)
{
	(void)state;
	char path[96], withcode[96];
	snprintf(path, sizeof path, "%s/named.mcz", dir);
	snprintf(withcode, sizeof withcode, "%s/withcode.mcz", dir);
	cp_write(path, 0);
	cp_write(withcode, 1);
	mcz_code_set_symbolizer(cp_symbolizer);
	mcz_reader *r;
	const mcz_code *c;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	assert_string_equal(c->locs[0].function, "named");
	assert_int_equal(c->hits[0].count, 40);
	assert_int_equal(cp_named, 1);
	mcz_close(r);
	/* the CODE block wins: the hook is not asked */
	assert_int_equal(mcz_open(&r, withcode, 0), MCZ_OK);
	assert_false(mcz_code_from_parts(r));
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	assert_string_equal(c->locs[0].function, "whole");
	assert_int_equal(cp_named, 1);
	mcz_close(r);
	mcz_code_set_symbolizer(NULL);
}

/* A flipped byte in the second part's payload, its CRC made good again:
 * the part is left out and counted; the first still reads.  A second
 * part whose object 0 differs from the first's is damaged the same way. */
/* Parts with stacks: part 1's cells have callers main (frame 0) <- a
 * (frame 1), part 2 adds main <- b (frame 2).  Merged, the cells keep
 * their stacks; two cells of one place with different stacks stay apart;
 * the profile's stacks are those paths.  A damaged stacks block of part 1
 * loses the stacks of both parts, never a cell. */
static const mcz_code_rawframe cp_frames[] = {
	{MCZ_CODE_ROOT, 0, 0x1000}, {0, 0, 0x1100}, {0, 0, 0x1200},
};
static const mcz_code_cell cp_scells1[] = {
	{0, 0, 1, 0x9000, 0, 0x1100, 30, 1},
	{0, 0, 1, 0x9000, 0, 0x1100, 10, 0}, /* the same place, another stack */
};
static const mcz_code_cell cp_scells2[] = {
	{100000000, 0, 1, 0x9000, 0, 0x1200, 10, 2},
};

static void cp_write_stacks(const char *path)
{
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	for (int k = 1; k <= 2; k++) {
		mcz_code_raw p = cp_part(1);
		p.nobjects = 2, p.obj_base = k == 1 ? 0 : 2;
		p.thr_base = k == 1 ? 0 : 2;
		p.cells = k == 1 ? cp_scells1 : cp_scells2, p.ncells = k == 1 ? 2 : 1;
		p.frames = cp_frames, p.nframes = k == 1 ? 2 : 3, p.frame_base = k == 1 ? 0 : 2;
		assert_int_equal(mcz_writer_code_part(w, &p), MCZ_OK);
		assert_int_equal(mcz_writer_sync(w), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static void test_part_stacks(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/stk.mcz", dir);
	cp_write_stacks(path);
	mcz_reader *r;
	const mcz_code_raw *raw;
	const mcz_code *c;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_code_raw_get(r, &raw), MCZ_OK);
	assert_int_equal(raw->nframes, 3);
	assert_int_equal(raw->frames[2].parent, 0);
	assert_int_equal(raw->frames[2].off, 0x1200);
	assert_int_equal(raw->ncells, 3);
	assert_int_equal(raw->cells[0].stk, 0);
	assert_int_equal(raw->cells[0].count, 10);
	assert_int_equal(raw->cells[1].stk, 1);
	assert_int_equal(raw->cells[1].count, 30);
	assert_int_equal(raw->cells[2].stk, 2);
	assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
	/* frames main, a, b (recorder's), then the leaves under a, main, b */
	assert_int_equal(c->nstackhits, 3);
	uint64_t through_a = 0, total = 0;
	for (size_t i = 0; i < c->nstackhits; i++) {
		const mcz_code_frame *f = &c->frames[c->stackhits[i].frame];
		assert_int_equal(c->locs[f->loc].offset, 0x9000);
		assert_true(f->parent != MCZ_CODE_ROOT);
		if (c->locs[c->frames[f->parent].loc].offset == 0x1100)
			through_a += c->stackhits[i].count;
		total += c->stackhits[i].count;
	}
	assert_int_equal(through_a, 30);
	assert_int_equal(total, 50);
	mcz_close(r);
	/* part 1's stacks block damaged, byte by byte */
	size_t len, off[2];
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 18, off, 2, NULL), 2);
	uint32_t plen = file_le32(b + off[0] + 8);
	int lost = 0;
	for (uint32_t at = 0; at < plen; at++) {
		uint8_t *d = malloc(len);
		memcpy(d, b, len);
		d[off[0] + 16 + at] ^= 0x5a;
		file_block_fix_crc(d, off[0]);
		if (mcz_open_mem(&r, d, len, 0) == MCZ_OK) {
			assert_int_equal(mcz_code_raw_get(r, &raw), MCZ_OK);
			uint64_t cells = 0;
			for (size_t i = 0; i < raw->ncells; i++)
				cells += raw->cells[i].count;
			assert_int_equal(cells, 50);
			if (!raw->nframes) {
				lost++;
				for (size_t i = 0; i < raw->ncells; i++)
					assert_int_equal(raw->cells[i].stk, MCZ_CODE_ROOT);
			}
			for (size_t i = 0; i < raw->ncells; i++)
				assert_true(raw->cells[i].stk == MCZ_CODE_ROOT ||
					    raw->cells[i].stk < raw->nframes);
			assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
			mcz_close(r);
		}
		free(d);
	}
	assert_true(lost > 0);
	free(b);
	unlink(path);
}

static void test_damaged_part(void **state)
{
	(void)state;
	char path[96], bad[96];
	snprintf(path, sizeof path, "%s/dam.mcz", dir);
	snprintf(bad, sizeof bad, "%s/dam-bad.mcz", dir);
	cp_write(path, 0);
	size_t len, off[2];
	uint8_t *b = file_bytes(path, &len);
	assert_int_equal(file_blocks(b, len, 15, off, 2, NULL), 2);
	uint32_t plen = file_le32(b + off[1] + 8);
	int left_out = 0;
	for (uint32_t at = 0; at < plen; at++) {
		uint8_t *d = malloc(len);
		memcpy(d, b, len);
		d[off[1] + 16 + at] ^= 0x5a;
		file_block_fix_crc(d, off[1]);
		mcz_reader *r;
		const mcz_code_raw *raw;
		const mcz_code *c;
		if (mcz_open_mem(&r, d, len, 0) == MCZ_OK) {
			assert_int_equal(mcz_code_raw_get(r, &raw), MCZ_OK);
			if (raw->bad_parts) {
				left_out++;
				cp_assert_merged(raw, 1);
				assert_int_equal(mcz_code_get(r, &c), MCZ_OK);
				assert_non_null(strstr(c->note, "damaged parts left out"));
			}
			mcz_close(r);
		}
		free(d);
	}
	assert_true(left_out > 0);
	free(b);
	/* objects that disagree */
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, bad, NULL), MCZ_OK);
	mcz_code_raw p1 = cp_part(1);
	assert_int_equal(mcz_writer_code_part(w, &p1), MCZ_OK);
	mcz_code_raw_object other[3] = {{"/usr/bin/other", "", 1}, cp_objs[1], cp_objs[2]};
	mcz_code_raw p2 = cp_part(2);
	p2.objects = other;
	p2.obj_base = 0; /* written again from the first: object 0 disagrees */
	assert_int_equal(mcz_writer_code_part(w, &p2), MCZ_OK);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	mcz_reader *r;
	const mcz_code_raw *raw;
	assert_int_equal(mcz_open(&r, bad, 0), MCZ_OK);
	assert_int_equal(mcz_code_raw_get(r, &raw), MCZ_OK);
	assert_int_equal(raw->bad_parts, 1);
	cp_assert_merged(raw, 1);
	mcz_close(r);
}

static void test_writer_refuses(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof path, "%s/refuse.mcz", dir);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_code_cell badobj = {0, 0, 3, 0, UINT32_MAX, 0, 1, MCZ_CODE_ROOT}, zero = {0, 0, 0, 0, UINT32_MAX, 0, 0, MCZ_CODE_ROOT};
	mcz_code_cell badthr = {0, 3, 0, 0, UINT32_MAX, 0, 1, MCZ_CODE_ROOT};
	mcz_code_raw p = cp_part(2);
	p.cells = &badobj;
	p.ncells = 1;
	assert_int_equal(mcz_writer_code_part(w, &p), MCZ_E_ARG);
	p.cells = &zero;
	assert_int_equal(mcz_writer_code_part(w, &p), MCZ_E_ARG);
	p.cells = &badthr;
	assert_int_equal(mcz_writer_code_part(w, &p), MCZ_E_ARG);
	mcz_writer_close(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_merged),
		cmocka_unit_test(test_symbolizer_and_code_wins),
		cmocka_unit_test(test_damaged_part),
		cmocka_unit_test(test_part_stacks),
		cmocka_unit_test(test_writer_refuses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
