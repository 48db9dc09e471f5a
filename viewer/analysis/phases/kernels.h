/* kernels.h: the kernels of a Kokkos program over time — which label ran
 * longest in each interval, from the kernel marks mcrec's regions source
 * wrote (the model's kmarks: each says what ran from its time to the
 * next's; "" none).  kernels.c; drawn by viewer/views/draw/kernel-row.c, listed
 * by the report (JSON "kernels").
 *
 *     vw_kernel_top top[8];
 *     size_t n = vw_kernels_top(m, m->t0, m->t1, top, 8);
 *     printf("%s ran %.0f %% of the window\n", top[0].label, 100 * top[0].share);
 */
#ifndef VW_KERNELS_H
#define VW_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"

/* Labels told apart (by their time over the whole run); the others are one. */
#define VW_KERNELS_MAX 64

typedef struct vw_kernel_top {
	size_t idx;        /* the label's rank over the run: 0 = the longest */
	const char *label; /* owned by the file's reader */
	double share;      /* of the span */
	int64_t ns;
} vw_kernel_top;

/* 1 when the recording names kernels. */
int vw_kernels_has(const vw_model *m);
/* The labels of [t0, t1) by their time in it, longest first: at most max. */
size_t vw_kernels_top(const vw_model *m, int64_t t0, int64_t t1, vw_kernel_top *out, size_t max);
/* The label of each of w columns of [t0, t1), by its rank over the run, -1
 * where no kernel ran; share[i] (may be NULL) its part of the column.  0,
 * or -1 out of memory or without kernels. */
int vw_kernels_columns(const vw_model *m, int64_t t0, int64_t t1, size_t w, int *idx, double *share);
/* The label of rank idx over the run ("" past them). */
const char *vw_kernels_label(const vw_model *m, size_t idx);
/* The label running at t, NULL where none did. */
const char *vw_kernels_at(const vw_model *m, int64_t t);

#endif
