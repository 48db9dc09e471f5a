/* kernel-row.c: the timeline's kernel row — the Kokkos kernel that ran, as
 * the code row shows the code: each column the letter of the label that ran
 * longest in its time span (vw_kernels_columns: a = the longest over the
 * run, b the next...; lower case, apart from the code row's capitals), in
 * one of the 8 series colours, bold where it ran most of the column, blank
 * where none ran; a legend line names the letters; the cursor readout
 * names the kernel at the cursor.  Its data are the kernel marks of mcrec's
 * regions source (one per interval at most, when the label changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

static int kernel_row_role(size_t idx)
{
	return VW_C_SERIES0 + (int)(idx % 8);
}

static char kernel_row_letter(size_t idx)
{
	return idx < 26 ? (char)('a' + idx) : '+';
}

int vw_kernel_row_draw(vw_canvas *c, vw_model *m, int x, int y, int w)
{
	if (w <= 0 || !vw_kernels_has(m))
		return -1;
	int *idx = malloc((size_t)w * sizeof *idx);
	double *sh = malloc((size_t)w * sizeof *sh);
	if (!idx || !sh || vw_kernels_columns(m, m->t0, m->t1, (size_t)w, idx, sh)) {
		free(idx), free(sh);
		return -1;
	}
	for (int i = 0; i < w; i++)
		if (idx[i] >= 0)
			vw_canvas_put(c, x + i, y, (uint32_t)kernel_row_letter((size_t)idx[i]),
				      kernel_row_role((size_t)idx[i]), sh[i] >= 0.5 ? VW_A_BOLD : 0);
	free(idx), free(sh);
	return 0;
}

void vw_kernel_row_legend(vw_canvas *c, vw_model *m, int x, int y, int w)
{
	vw_kernel_top top[26];
	size_t n = vw_kernels_top(m, m->t0, m->t1, top, 26);
	if (!n) {
		vw_canvas_text(c, x, y, w, VW_C_DIM, 0, "no kernel ran in this window");
		return;
	}
	int at = x;
	for (size_t k = 0; k < n; k++) {
		char item[160];
		int len = snprintf(item, sizeof item, "%c %.32s %.0f%%", kernel_row_letter(top[k].idx),
				   top[k].label, 100 * top[k].share);
		if (at + len > x + w) {
			char more[32];
			snprintf(more, sizeof more, "+%zu more", n - k);
			vw_canvas_text(c, at, y, x + w - at, VW_C_DIM, 0, more);
			return;
		}
		vw_canvas_text(c, at, y, x + w - at, kernel_row_role(top[k].idx), 0, item);
		at += len + 2;
	}
}

int vw_kernel_row_at(vw_model *m, int64_t t, char *buf, size_t len)
{
	const char *k = vw_kernels_at(m, t);
	buf[0] = '\0';
	if (!k)
		return -1;
	snprintf(buf, len, "%s", k);
	return 0;
}
