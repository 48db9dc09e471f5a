/* fuzz-code.c: libFuzzer target for the CODE block (SPEC.md 5.6, format/code/code-block.c)
 * and CODEPART blocks (5.11, format/code/code-part.c).  An input that starts
 * with the mcz magic is opened as a whole file, its parts merged and its
 * code profile asked for (the block found by index or scan, decoded
 * lazily; without a CODE block, made from the parts); any other input is
 * decoded as a CODE payload.  Whatever decodes must hold tables whose
 * every index is in range, times that increase and counts of at least 1;
 * merged cells are sorted, each place of an interval once; the hits by
 * thread (CODETHREADS, 5.12) and the stacks (CODESTACKS, CODEPARTSTACKS,
 * 5.13, 5.14) in range and in order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../format/mcz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_code_check(const mcz_code *c)
{
	for (size_t i = 0; i < c->nlocs; i++)
		if (c->locs[i].object >= c->nobjects || c->locs[i].how > MCZ_CODE_DWARF ||
		    !c->locs[i].function || !c->locs[i].file)
			abort();
	for (size_t i = 0; i < c->nintervals; i++) {
		if (i && c->t[i] <= c->t[i - 1])
			abort();
		if (c->first[i] >= c->first[i + 1] || c->first[i + 1] > c->nhits)
			abort();
		for (size_t h = c->first[i]; h < c->first[i + 1]; h++)
			if (c->hits[h].loc >= c->nlocs || c->hits[h].count == 0 ||
			    (h > c->first[i] && c->hits[h].loc <= c->hits[h - 1].loc))
				abort();
	}
	for (size_t i = 0; i < c->nthits; i++) {
		const mcz_code_thit *x = &c->thits[i], *p = i ? x - 1 : NULL;
		if (x->interval >= c->nintervals || x->thread >= c->nthreads || x->loc >= c->nlocs ||
		    x->count == 0 ||
		    (p && (p->interval > x->interval ||
			   (p->interval == x->interval &&
			    (p->thread > x->thread || (p->thread == x->thread && p->loc >= x->loc))))))
			abort();
	}
	for (size_t e = 0; e < c->ncallers; e++)
		if (c->callers[e].loc >= c->nlocs || c->callers[e].caller >= c->nlocs ||
		    c->callers[e].count == 0)
			abort();
	/* the stacks (CODESTACKS, 5.13): parents first, in range, in order */
	for (size_t i = 0; i < c->nframes; i++)
		if (c->frames[i].loc >= c->nlocs ||
		    (c->frames[i].parent != MCZ_CODE_ROOT && c->frames[i].parent >= i))
			abort();
	for (size_t i = 0; i < c->nstackhits; i++) {
		const mcz_code_stackhit *x = &c->stackhits[i], *p = i ? x - 1 : NULL;
		if (x->interval >= c->nintervals || x->thread >= (c->nthreads ? c->nthreads : 1) ||
		    x->frame >= c->nframes || x->count == 0 ||
		    (p && (p->interval > x->interval ||
			   (p->interval == x->interval &&
			    (p->thread > x->thread ||
			     (p->thread == x->thread && p->frame >= x->frame))))))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 8 && memcmp(data, "\x89MCZ\r\n\x1a\n", 8) == 0) {
		mcz_reader *r;
		if (mcz_open_mem(&r, data, size, 0) != MCZ_OK)
			return 0;
		const mcz_code_raw *raw;
		if (mcz_code_raw_get(r, &raw) == MCZ_OK)
			for (size_t i = 0; i < raw->ncells; i++) {
				const mcz_code_cell *x = &raw->cells[i], *p = i ? x - 1 : NULL;
				if (x->obj >= raw->nobjects || x->count == 0 ||
				    (x->cobj != UINT32_MAX && x->cobj >= raw->nobjects) ||
				    (x->stk != MCZ_CODE_ROOT && x->stk >= raw->nframes) ||
				    (p && (p->t > x->t ||
					   (p->t == x->t && p->thr == x->thr && p->obj == x->obj &&
					    p->off == x->off && p->cobj == x->cobj &&
					    p->coff == x->coff && p->stk == x->stk))))
					abort();
			}
		for (size_t i = 0; raw && i < raw->nframes; i++)
			if (raw->frames[i].obj >= raw->nobjects ||
			    (raw->frames[i].parent != MCZ_CODE_ROOT && raw->frames[i].parent >= i))
				abort();
		const mcz_code *c;
		if (mcz_code_get(r, &c) == MCZ_OK)
			fuzz_code_check(c);
		mcz_close(r);
		return 0;
	}
	mcz_code *c;
	if (mcz_code_decode(data, size, &c) == MCZ_OK) {
		fuzz_code_check(c);
		/* what decodes encodes again, and the same way */
		void *buf;
		size_t len;
		if (mcz_code_encode(c, &buf, &len) != MCZ_OK)
			abort();
		mcz_code *d;
		if (mcz_code_decode(buf, len, &d) != MCZ_OK || d->nhits != c->nhits ||
		    d->nlocs != c->nlocs || d->ncallers != c->ncallers)
			abort();
		mcz_code_free(d);
		free(buf);
		mcz_code_free(c);
	}
	return 0;
}
