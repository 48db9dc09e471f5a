/* flame.h: the call stacks of a span as one tree, for a flame graph
 * (view-flame.c draws it as an icicle): every stack of [t0, t1) of one
 * file (a rank) or of all, a frame per function as the folded export
 * names them (stacktab.h), frames of the same name under the same caller
 * one node, so that a node's samples are those of every folded line
 * through its path.  Also where each node lies across a width when a
 * node fills it (zoom), and which nodes a search matches.
 *
 *     vw_flame fl;
 *     if (vw_flame_build(an, SIZE_MAX, SIZE_MAX, m->t0, m->t1, &fl) == 0) {
 *         for (uint32_t c = fl.v[0].child; c != VW_FLAME_NONE; c = fl.v[c].next)
 *             printf("%s %.1f%%\n", vw_flame_name(&fl, c),
 *                    100.0 * fl.v[c].total / fl.v[0].total);
 *         vw_flame_free(&fl);
 *     }
 */
#ifndef VW_FLAME_H
#define VW_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../an.h"

#define VW_FLAME_NONE UINT32_MAX

typedef struct vw_flame_node {
	uint32_t name;        /* a stacktab name id; VW_FLAME_NONE: the root, "all" */
	uint32_t parent;      /* VW_FLAME_NONE: the root */
	uint32_t child, next; /* first child; next sibling (by samples, most first, then name) */
	uint32_t depth;       /* the root 0 */
	uint8_t cls;          /* codeclass.h: of the code it names */
	uint64_t total;       /* samples of every stack through it */
	uint64_t self;        /* samples whose stack ends here */
} vw_flame_node;

typedef struct vw_flame {
	size_t n;
	vw_flame_node *v;     /* v[0] the root; parents before their children */
	uint32_t maxdepth;
	const void *st;       /* the names' table (stacktab.h) */
} vw_flame;

/* The tree of [t0, t1) (an interval counts where its middle lies) of file
 * (SIZE_MAX: every file's stacks added up) and thread (an index into the
 * file's threads, SIZE_MAX all).  0, or -1 when no file holds call
 * stacks or out of memory (*fl zeroed).  A span without samples gives a
 * root alone, total 0. */
int vw_flame_build(vw_an *an, size_t file, size_t thread, int64_t t0, int64_t t1, vw_flame *fl);
void vw_flame_free(vw_flame *fl);
/* Node k's name ("all" for the root). */
const char *vw_flame_name(const vw_flame *fl, uint32_t k);
/* 1 when node a is node k or one of its callers. */
int vw_flame_within(const vw_flame *fl, uint32_t k, uint32_t a);
/* Columns [x0[k], x1[k]) of every node when node zoom fills [0, w): its
 * callers fill the width too, the nodes outside its subtree get -1, -1;
 * a child's place is its parent's, cut by samples in sibling order, the
 * edges rounded down (a node narrower than a column: x0 == x1). */
void vw_flame_layout(const vw_flame *fl, uint32_t zoom, int w, int *x0, int *x1);
/* The nodes whose name holds pat (case-insensitive; "" none): mark[k] 1;
 * returns their samples, a match under another match counted once. */
uint64_t vw_flame_search(const vw_flame *fl, const char *pat, uint8_t *mark);
/* The child of node k named name (a stacktab name id: the same in a tree
 * built again), VW_FLAME_NONE when it has none. */
uint32_t vw_flame_child_named(const vw_flame *fl, uint32_t k, uint32_t name);

#endif
