/* fuzz-view.c: libFuzzer target for the whole viewer path, from bytes to the
 * cell buffer: the input is opened as a recording (mcz_open_mem), the model
 * is built on it (vw_model_open_readers), phases are detected (automatic,
 * then from the marks), and every view of vw_views[] is drawn through the
 * screen frame (tab bar, status line) into canvases of two sizes and in
 * ASCII, before and after a few keys (zoom, pan, cursor, next phase, Enter,
 * sort, metric, layout, expand, help).  Any input must give an error or a
 * drawn screen, never a crash, a leak, a hang or a huge allocation.
 * `make check` replays tests/fuzz/corpus-view/ through tests/fuzz/replay.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mcz_reader *r;
	if (mcz_open_mem(&r, data, size, 0) != MCZ_OK)
		return 0;
	mcz_cache_limit(r, 1 << 20);
	vw_model *m;
	char err[256];
	const char *name = "fuzz.mcz";
	if (vw_model_open_readers(&m, &r, &name, 1, err, sizeof err) != 0)
		return 0; /* it closed r */
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
	return 0;
}
