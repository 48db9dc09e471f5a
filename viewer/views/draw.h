/* draw.h: drawing helpers every view may use (numbers with SI prefixes,
 * times, sparklines, the time ruler).  Pure functions over a vw_canvas or a
 * caller's buffer; nothing here touches the terminal.
 *
 *     char b[32];
 *     vw_fmt_si(b, sizeof b, 12.3e9, "B/s");        // "12.3 GB/s"
 *     vw_fmt_time(b, sizeof b, 1500000000, 0);      // "1.5s"
 *     vw_spark_draw(c, x, y, w, h, buckets, nb, 0, peak, VW_C_SERIES0);
 */
#ifndef VW_DRAW_H
#define VW_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "../model/model.h"
#include "view.h"

/* How many buckets a sparkline w cells wide wants (braille: 2 per cell). */
size_t vw_spark_buckets(const vw_canvas *c, int w);
/* Draw buckets (vw_spark_buckets(c, w) of them) as a sparkline of w x h
 * cells at (x, y), the value range [lo, hi] mapped to the cells' height:
 * each column shows its bucket's [min, max] envelope (braille dots; block
 * glyphs up to max with c->blocks; '|'-style ASCII with c->ascii). */
void vw_spark_draw(vw_canvas *c, int x, int y, int w, int h, const vw_bucket *b, size_t nb,
		   double lo, double hi, int role);

/* code-row.c: the timeline's code row.  The hottest function of each of w
 * columns over the window as its letter in its colour (A = hottest over
 * the run), at (x, y); returns 0, or -1 without a code profile. */
int vw_code_row_draw(vw_canvas *c, vw_model *m, int x, int y, int w);
/* The legend of the code row on one line: "A compute_kernel  B main ..."
 * for the functions seen in the window, hottest first. */
void vw_code_row_legend(vw_canvas *c, vw_model *m, int x, int y, int w);
/* "compute_kernel 99% (code-phases.c:27)": the hottest function at time t
 * (the profile's interval around it); 0, or -1 when none ran there. */
int vw_code_row_at(vw_model *m, int64_t t, char *buf, size_t len);

/* The hot-code panel: title on line y, then the top functions of [t0, t1)
 * one per line (share, samples, file:line, what it is inlined into) on the
 * h - 1 lines below; nothing without a code profile.  Returns lines used. */
int vw_code_row_panel(vw_canvas *c, vw_model *m, int64_t t0, int64_t t1, const char *title,
		       int x, int y, int w, int h);

/* A time ruler over [t0, t1) on w cells at (x, y): tick marks at round
 * steps with their labels.  Returns the step chosen (ns). */
int64_t vw_ruler_draw(vw_canvas *c, int x, int y, int w, int64_t t0, int64_t t1);

#endif
