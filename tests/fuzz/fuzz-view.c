/* fuzz-view.c: libFuzzer target for the whole viewer path, from bytes to the
 * cell buffer: the input is opened as a recording (mcz_open_mem), the model
 * is built on it (vw_model_open_readers), phases are detected (automatic,
 * then from the marks), and every view of vw_views[] is drawn through the
 * screen frame (tab bar, status line) into canvases of two sizes and in
 * ASCII, before and after a few keys (zoom, pan, cursor, next phase, Enter,
 * sort, metric, layout, expand, help).  The input is also viewed with its
 * CRCs made right (header, every block framed in order, trailer), so that
 * the fuzzer's changes inside a chunk or a metadata block reach the
 * decoders, the model and the views instead of stopping at a CRC.  Any
 * input must give an error or a
 * drawn screen, never a crash, a leak, a hang or a huge allocation.
 * `make check` replays tests/fuzz/corpus-view/ through tests/fuzz/replay.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "../../format/mcz.h"
#include "../../viewer/analysis/analysis.h"
#include "../../viewer/app/app.h"
#include "../../viewer/model/model.h"
#include "../../viewer/views/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t fuzz_sink;

/* Every cell must be a drawable code point with a known colour role. */
static void fuzz_check(const vw_canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++) {
		const vw_cell *k = &c->cells[i];
		if (k->ch == 0 || k->ch > 0x10FFFF || k->role >= VW_C_COUNT ||
		    (c->ascii && k->ch > 0x7e))
			__builtin_trap();
		fuzz_sink += k->ch;
	}
}

static void fuzz_draw(vw_app *a, int w, int h, int ascii)
{
	vw_canvas *c = vw_canvas_new(w, h);
	if (!c)
		return;
	c->ascii = ascii;
	vw_frame_draw(a, c);
	fuzz_check(c);
	vw_canvas_free(c);
}

static const int fuzz_keys[] = {
	'+', VW_KEY_RIGHT, '.', 'n', VW_KEY_DOWN, VW_KEY_ENTER, 'm', 'L', 's', '-',
	VW_KEY_SRIGHT, 'z', VW_KEY_END, 'p', VW_KEY_LEFT, VW_KEY_BACKSPACE, '?', '?',
};

static void fuzz_views(vw_model *m, unsigned pick)
{
	for (int v = 0; vw_views[v]; v++) {
		vw_app a;
		if (vw_app_init(&a, m, v) == 0) {
			fuzz_draw(&a, 80, 24, 0);
			fuzz_draw(&a, 161, 47, 1);
			size_t nk = sizeof fuzz_keys / sizeof *fuzz_keys;
			for (size_t k = 0; k < nk; k++) {
				/* a key the input's bits choose: not every path sees every key */
				if (!((pick >> (k % 8)) & 1) && k % 3)
					continue;
				unsigned r = vw_app_key(&a, fuzz_keys[k]);
				if (r & VW_R_QUIT)
					break;
				if (a.m->view != v) /* Tab or the like: back to this view */
					a.m->view = v;
				if (k % 4 == 3)
					fuzz_draw(&a, 80, 24, 0);
			}
			fuzz_draw(&a, 80, 24, 0);
			fuzz_draw(&a, 40, 12, 1);
		}
		vw_app_free(&a);
	}
}

static void fuzz_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Make the CRCs of the header, of the blocks met in order from offset 20,
 * and of a trailer at the end right; returns 1 if any byte changed. */
static int fuzz_fix_crcs(uint8_t *d, size_t n)
{
	uint8_t before[4];
	int changed = 0;
	if (n < 20)
		return 0;
	memcpy(before, d + 16, 4);
	fuzz_le32(d + 16, (uint32_t)crc32(0, d, 16));
	changed |= memcmp(before, d + 16, 4) != 0;
	size_t off = 20;
	while (off + 20 <= n && memcmp(d + off, "mczB", 4) == 0) {
		size_t len = (size_t)d[off + 8] | (size_t)d[off + 9] << 8 |
			     (size_t)d[off + 10] << 16 | (size_t)d[off + 11] << 24;
		if (len > n - off - 20)
			break;
		memcpy(before, d + off + 12, 4);
		fuzz_le32(d + off + 12, (uint32_t)crc32(0, d + off, 12));
		changed |= memcmp(before, d + off + 12, 4) != 0;
		memcpy(before, d + off + 16 + len, 4);
		fuzz_le32(d + off + 16 + len, (uint32_t)crc32(0, d + off + 16, (uInt)len));
		changed |= memcmp(before, d + off + 16 + len, 4) != 0;
		off += len + 20;
	}
	if (n >= 24 && off + 24 == n && memcmp(d + n - 8, "mczTRAIL", 8) == 0) {
		memcpy(before, d + n - 12, 4);
		fuzz_le32(d + n - 12, (uint32_t)crc32(0, d + n - 24, 12));
		changed |= memcmp(before, d + n - 12, 4) != 0;
	}
	return changed;
}

static void fuzz_one(const uint8_t *data, size_t size)
{
	mcz_reader *r;
	if (mcz_open_mem(&r, data, size, 0) != MCZ_OK)
		return;
	mcz_cache_limit(r, 1 << 20);
	vw_model *m;
	char err[256];
	const char *name = "fuzz.mcz";
	if (vw_model_open_readers(&m, &r, &name, 1, err, sizeof err) != 0)
		return; /* it closed r */
	unsigned pick = size ? data[size - 1] : 0;
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	if (vw_phases_detect(m, &p, VW_PHASES_AUTO, err, sizeof err) == 0)
		fuzz_sink += vw_phases_count(m->phases);
	fuzz_views(m, pick);
	if (vw_phases_detect(m, &p, VW_PHASES_MARKS, err, sizeof err) == 0) {
		fuzz_sink += vw_phases_count(m->phases);
		fuzz_views(m, ~pick);
	}
	vw_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size);
	uint8_t *fixed = malloc(size ? size : 1);
	if (fixed) {
		memcpy(fixed, data, size);
		if (fuzz_fix_crcs(fixed, size))
			fuzz_one(fixed, size);
		free(fixed);
	}
	return 0;
}
