/* stacktab.c: the call stacks of the dataset's files prepared once
 * (stacktab.h): frames classed and given their owner, locations named as
 * the folded export names them, names interned across files. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeclass.h"
#include "hotcode.h"
#include "stacktab.h"

/* Objects a waiting application calls through, not its own code: the C
 * library's waits (poll, futex, nanosleep), the loader, the kernel. */
static const char *const stk_runtimes[] = {
	"libc.so*", "libc-*.so", "libpthread.so*", "libpthread-*.so", "ld-linux*.so*",
	"ld-*.so*", "libdl.so*", "librt.so*", "\\[vdso\\]", "\\[vsyscall\\]", "\\[kernel*", "\\[unknown\\]",
};

int vw_stacktab_runtime(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof stk_runtimes / sizeof stk_runtimes[0]; i++)
		if (!fnmatch(stk_runtimes[i], base, 0))
			return 1;
	return 0;
}

static void stk_free(void *p)
{
	vw_stacktab *t = p;
	if (!t)
		return;
	for (size_t i = 0; t->f && i < t->nfiles; i++)
		free(t->f[i].cls), free(t->f[i].owner), free(t->f[i].lfirst), free(t->f[i].lnames);
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->f), free(t->names), free(t->slot);
	free(t);
}

static uint64_t stk_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The id of name s, added when new; VW_STK_NONE when out of memory. */
static uint32_t stk_intern(vw_stacktab *t, const char *s)
{
	if (2 * (t->nnames + 1) > t->nslot) {
		size_t ns = t->nslot ? 2 * t->nslot : 1024;
		uint32_t *sl = malloc(ns * sizeof *sl);
		char **nv = realloc(t->names, (ns / 2) * sizeof *nv);
		if (!sl || !nv) {
			free(sl);
			if (nv)
				t->names = nv;
			return VW_STK_NONE;
		}
		t->names = nv;
		memset(sl, 0xff, ns * sizeof *sl);
		for (size_t i = 0; i < t->nnames; i++) {
			size_t k = stk_hash(t->names[i]) & (ns - 1);
			while (sl[k] != VW_STK_NONE)
				k = (k + 1) & (ns - 1);
			sl[k] = (uint32_t)i;
		}
		free(t->slot);
		t->slot = sl;
		t->nslot = ns;
	}
	size_t k = stk_hash(s) & (t->nslot - 1);
	for (; t->slot[k] != VW_STK_NONE; k = (k + 1) & (t->nslot - 1))
		if (!strcmp(t->names[t->slot[k]], s))
			return t->slot[k];
	if (!(t->names[t->nnames] = strdup(s)))
		return VW_STK_NONE;
	t->slot[k] = (uint32_t)t->nnames;
	return (uint32_t)t->nnames++;
}

/* Location l's names, outermost first, appended to f->lnames: the frames
 * mcz_code_loc_frames gives, as the folded export writes them. */
static int stk_loc(vw_stacktab *t, vw_stk_file *f, size_t l, size_t *n, size_t *cap)
{
	char buf[8192];
	mcz_code_loc_frames(f->c, l, buf, sizeof buf);
	for (char *p = buf, *e; p; p = e ? e + 1 : NULL) {
		if ((e = strchr(p, ';')))
			*e = '\0';
		uint32_t id = stk_intern(t, p);
		if (id == VW_STK_NONE)
			return -1;
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 256;
			uint32_t *nv = realloc(f->lnames, nc * sizeof *nv);
			if (!nv)
				return -1;
			f->lnames = nv, *cap = nc;
		}
		f->lnames[(*n)++] = id;
	}
	return 0;
}

static int stk_file(vw_stacktab *t, vw_stk_file *f, const vw_codeclass *cc)
{
	const mcz_code *c = f->c;
	uint8_t *lcls = malloc(c->nlocs + 1), *lown = malloc(c->nlocs + 1);
	f->cls = malloc(c->nframes + 1);
	f->owner = malloc((c->nframes + 1) * sizeof *f->owner);
	f->lfirst = malloc((c->nlocs + 1) * sizeof *f->lfirst);
	int rc = -1;
	size_t n = 0, cap = 0;
	if (!lcls || !lown || !f->cls || !f->owner || !f->lfirst)
		goto out;
	for (size_t l = 0; l < c->nlocs; l++) {
		const char *obj = c->objects[c->locs[l].object].path;
		lcls[l] = (uint8_t)vw_codeclass_of(cc, obj, c->locs[l].function);
		lown[l] = lcls[l] == VW_CC_WORK && !vw_stacktab_runtime(obj);
		f->lfirst[l] = (uint32_t)n;
		if (stk_loc(t, f, l, &n, &cap))
			goto out;
	}
	f->lfirst[c->nlocs] = (uint32_t)n;
	/* parents come before their children (SPEC.md 5.13): one pass */
	for (size_t i = 0; i < c->nframes; i++) {
		const mcz_code_frame *fr = &c->frames[i];
		uint32_t up = fr->parent < i ? f->owner[fr->parent] : VW_STK_NONE;
		f->cls[i] = lcls[fr->loc];
		f->owner[i] = lown[fr->loc] ? (uint32_t)i : up;
	}
	rc = 0;
out:
	free(lcls), free(lown);
	return rc;
}

/* The answer "no file holds stacks", kept as the tables are: it is asked
 * once per rank and phase, and finding it looks at every file. */
static void stk_none_free(void *p)
{
	(void)p;
}
static char stk_none;

const vw_stacktab *vw_stacktab_get(vw_an *an)
{
	vw_model *m = an->m;
	if (an->stack_cache && an->stack_cache_free == stk_free)
		return an->stack_cache;
	if (an->stack_cache == &stk_none && an->stack_cache_free == stk_none_free)
		return NULL;
	vw_stacktab *t = calloc(1, sizeof *t);
	vw_codeclass *cc = vw_codeclass_load();
	int any = 0;
	if (!t || !cc || !(t->f = calloc(m->nfiles + 1, sizeof *t->f)))
		goto fail;
	t->nfiles = m->nfiles;
	for (size_t i = 0; i < m->nfiles; i++) {
		int64_t off = 0;
		const mcz_code *c = vw_model_code_at(m, i, &off);
		if (!c || !c->nframes || !c->nstackhits)
			continue;
		t->f[i].c = c;
		t->f[i].off = off;
		if (stk_file(t, &t->f[i], cc))
			goto fail;
		any = 1;
	}
	if (!any) {
		vw_codeclass_free(cc);
		stk_free(t);
		if (an->stack_cache && an->stack_cache_free)
			an->stack_cache_free(an->stack_cache);
		an->stack_cache = &stk_none;
		an->stack_cache_free = stk_none_free;
		return NULL;
	}
	vw_codeclass_free(cc);
	if (an->stack_cache && an->stack_cache_free)
		an->stack_cache_free(an->stack_cache);
	an->stack_cache = t;
	an->stack_cache_free = stk_free;
	return t;
fail:
	vw_codeclass_free(cc);
	stk_free(t);
	return NULL;
}

int vw_stacktab_has(vw_an *an)
{
	return vw_stacktab_get(an) != NULL;
}

/* The first stack hit whose interval's middle is at or after at. */
static size_t stk_first(const vw_stk_file *f, int64_t at)
{
	const mcz_code *c = f->c;
	size_t lo = 0, hi = c->nstackhits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vw_hotcode_mid(c, c->stackhits[mid].interval, f->off) < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void vw_stacktab_span(const vw_stacktab *st, size_t file, int64_t t0, int64_t t1, size_t *a,
		      size_t *b)
{
	*a = *b = 0;
	if (!st || file >= st->nfiles || !st->f[file].c || t1 <= t0)
		return;
	*a = stk_first(&st->f[file], t0);
	*b = stk_first(&st->f[file], t1);
}

const char *vw_stacktab_name(const vw_stacktab *st, uint32_t n)
{
	return n < st->nnames ? st->names[n] : "?";
}

uint32_t vw_stacktab_frame_name(const vw_stacktab *st, size_t file, uint32_t frame)
{
	const vw_stk_file *f = &st->f[file];
	if (!f->c || frame >= f->c->nframes)
		return VW_STK_NONE;
	uint32_t l = f->c->frames[frame].loc;
	return f->lfirst[l + 1] > f->lfirst[l] ? f->lnames[f->lfirst[l + 1] - 1] : VW_STK_NONE;
}
