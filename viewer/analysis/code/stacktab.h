/* stacktab.h: the call stacks of a dataset's files (CODESTACKS, SPEC.md
 * 5.13, through vw_model_code_at), prepared once for the analyses that
 * read them (waitowner.c, flame.c): each frame's class (codeclass.h), the
 * application frame that owns it, each location's frames as names, and
 * which stack hits fall in a span.
 *
 *     const vw_stacktab *st = vw_stacktab_get(an);  // NULL: no stacks
 *     size_t a, b;
 *     vw_stacktab_span(st, file, t0, t1, &a, &b);    // hits [a, b) of file
 *     const mcz_code *c = st->f[file].c;
 *     for (size_t i = a; i < b; i++)
 *         use(c->stackhits[i].frame, c->stackhits[i].count);
 *
 * Names follow `mcz dump --code --folded` (format/cli/tool-dump-folded.c)
 * to the byte, so that shares shown equal those of the folded export: a
 * function by its brief name (mcz_code_name), a location inlined into
 * others one name per function, outermost first, code without a name its
 * object as "[libfoo.so]", ';' shown as ':' and line breaks as spaces.
 * Names are interned: the same name in two files (ranks) is one id.
 *
 * The owner of a frame is the innermost frame on its path, itself
 * included, that is the application's: code of class work in an object
 * that is not a runtime the application waits through (libc, libpthread,
 * the dynamic loader, the vDSO, the kernel, unknown code).  A sample
 * waiting in MPI or OpenMP is charged to its leaf's owner.  The tables
 * live beside the model (an->stack_cache) until the code tables are
 * dropped.
 */
#ifndef VW_STACKTAB_H
#define VW_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../an.h"

#define VW_STK_NONE UINT32_MAX

typedef struct vw_stk_file {
	const mcz_code *c;  /* NULL: this file holds no stacks */
	int64_t off;        /* its times on the dataset axis: t + off */
	uint8_t *cls;       /* per frame: its location's class (codeclass.h) */
	uint32_t *owner;    /* per frame: its owner frame, VW_STK_NONE none */
	uint32_t *lfirst;   /* per location (nlocs + 1): its names are
			       lnames[lfirst[l] .. lfirst[l + 1]) */
	uint32_t *lnames;   /* name ids, each location's outermost first */
} vw_stk_file;

typedef struct vw_stacktab {
	size_t nfiles;
	vw_stk_file *f;
	size_t nnames;
	char **names;       /* by id */
	/* private: the interning hash */
	uint32_t *slot;
	size_t nslot;
} vw_stacktab;

/* The tables (built on first use); NULL when no file holds call stacks. */
const vw_stacktab *vw_stacktab_get(vw_an *an);
/* 1 when some file of the dataset holds call stacks with samples. */
int vw_stacktab_has(vw_an *an);
/* The stack hits of file whose interval's middle lies in [t0, t1):
 * stackhits[*a .. *b) (empty without stacks). */
void vw_stacktab_span(const vw_stacktab *st, size_t file, int64_t t0, int64_t t1, size_t *a,
		      size_t *b);
/* Name id n as text. */
const char *vw_stacktab_name(const vw_stacktab *st, uint32_t n);
/* The name a frame is known by as an owner: its location's innermost
 * function (the last of its names). */
uint32_t vw_stacktab_frame_name(const vw_stacktab *st, size_t file, uint32_t frame);
/* 1 when code in object path (full or file name) is a runtime the
 * application waits through, never an owner. */
int vw_stacktab_runtime(const char *path);

#endif
