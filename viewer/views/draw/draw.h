/* draw.h: drawing helpers every view may use (numbers with SI prefixes,
 * times, sparklines, the time ruler).  Pure functions over a vw_canvas or a
 * caller's buffer; nothing here touches the terminal.
 *
 *     char b[32];
 *     vw_fmt_si(b, sizeof b, 12.3e9, "B/s");        // "12.3 GB/s"
 *     vw_fmt_time(b, sizeof b, 1500000000, 0);      // "1.5s"
 *     vw_spark_draw(c, x, y, w, h, buckets, nb, 0, peak, VW_C_SERIES0);
 *     vw_logplot_init(&p, c, x, y, w, h, 0.01, 100, 1e8, 1e12);  // log-log chart
 */
#ifndef VW_DRAW_H
#define VW_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "../../analysis/analysis.h"
#include "../../model/model.h"
#include "../view.h"

/* How many buckets a sparkline w cells wide wants (braille: 2 per cell). */
size_t vw_spark_buckets(const vw_canvas *c, int w);
/* Draw buckets (vw_spark_buckets(c, w) of them) as a sparkline of w x h
 * cells at (x, y), the value range [lo, hi] mapped to the cells' height:
 * each column shows its bucket's [min, max] envelope (braille dots; block
 * glyphs up to max with c->blocks; '|'-style ASCII with c->ascii). */
void vw_spark_draw(vw_canvas *c, int x, int y, int w, int h, const vw_bucket *b, size_t nb,
		   double lo, double hi, int role);

/* span.c: the span a view summarises — the selected phase, else the
 * selected range, else the window — and its name ("phase 2 (B) 1s-3s",
 * "selection 1s-2s", "window 0s-5s", "whole run"). */
void vw_span_of(const vw_an *an, int64_t *t0, int64_t *t1, char *what, size_t len);

/* wait-row.c: the timeline's "MPI %" rows.  Whether the dataset waits in
 * MPI or OpenMP runtimes for 1 % of its code samples or more (the row is
 * then worth its line); the waiting share of each of w columns as a
 * sparkline at (x, y): 0, or -1 without a code profile; the share at time
 * t ("35%"): 0, or -1 where no code ran. */
int vw_wait_row_wanted(vw_an *an);
#define VW_WAIT_ROWS 4 /* hosts with a row each, at most */
/* How many "MPI %" rows: one per host for a job on 2 to VW_WAIT_ROWS
 * hosts, else 1; row g's host ("" for the job's one row).  Row -1 is the
 * whole job (where the screen has no room for a row per host). */
int vw_wait_rows(vw_model *m);
/* The rows' name for the waiting they show: "MPI", "sync" (an OpenMP
 * runtime's, no MPI ran) or "wait" (both). */
const char *vw_wait_row_label(vw_an *an);
const char *vw_wait_row_host(vw_model *m, int g);
int vw_wait_row_draw(vw_canvas *c, vw_an *an, int g, int x, int y, int w);
int vw_wait_row_at(vw_an *an, int g, int64_t t, char *buf, size_t len);

/* code-row.c: the timeline's code row.  The hottest function of each of w
 * columns over the window as its letter in its colour (A = hottest over
 * the run), at (x, y); returns 0, or -1 without a code profile. */
int vw_code_row_draw(vw_canvas *c, vw_an *an, int x, int y, int w);
/* The legend of the code row (of pw columns) on one line of w: "A
 * compute_kernel 61%  B main 20%", every letter the row draws, hottest
 * first; names cut to fit, then "+2 more" for those that do not. */
void vw_code_row_legend(vw_canvas *c, vw_an *an, int x, int y, int w, int pw);
/* "compute_kernel 99% (code-phases.c:27)": the hottest function at time t
 * (the profile's interval around it); 0, or -1 when none ran there. */
int vw_code_row_at(vw_an *an, int64_t t, char *buf, size_t len);

/* kernel-row.c: the timeline's kernel row, a Kokkos program's kernels (the
 * model's kernel marks).  The label that ran longest in each of w columns
 * as its letter (a = the longest over the run), at (x, y): 0, or -1
 * without kernels; the legend on one line of w ("a spmv 40%  b dot 20%");
 * the kernel at time t: 0, or -1 where none ran. */
int vw_kernel_row_draw(vw_canvas *c, vw_model *m, int x, int y, int w);
void vw_kernel_row_legend(vw_canvas *c, vw_model *m, int x, int y, int w);
int vw_kernel_row_at(vw_model *m, int64_t t, char *buf, size_t len);

/* The hot-code panel: title on line y, then the top functions of [t0, t1)
 * one per line (share, samples, file:line, what it is inlined into) on the
 * h - 1 lines below; nothing without a code profile.  Returns lines used. */
int vw_code_row_panel(vw_canvas *c, vw_an *an, int64_t t0, int64_t t1, const char *title,
		       int x, int y, int w, int h);

/* A time ruler over [t0, t1) on w cells at (x, y): tick marks at round
 * steps with their labels.  Returns the step chosen (ns). */
int64_t vw_ruler_draw(vw_canvas *c, int x, int y, int w, int64_t t0, int64_t t1);

/* A log-log chart in the cell box (x, y, w, h) over [xmin, xmax] x
 * [ymin, ymax] (logplot.c): lines into braille dots, then flushed with a
 * colour role; axes with decade labels left of and under the box. */
typedef struct vw_logplot {
	vw_canvas *c;
	int x, y, w, h;
	double lx0, lx1, ly0, ly1;  /* log10 of the ranges */
	int pw, ph;                 /* pixels: 2 x 4 per cell */
	uint8_t *dots;              /* pw x ph */
	uint32_t *glyph;            /* w x h: the ASCII glyph of the last line through the cell */
} vw_logplot;

int vw_logplot_init(vw_logplot *p, vw_canvas *c, int x, int y, int w, int h, double xmin,
		    double xmax, double ymin, double ymax);
void vw_logplot_free(vw_logplot *p);
/* A straight line in log-log space between two data points (dashed: every
 * other run of 4 pixels left out); ascii = its glyph on an ASCII canvas. */
void vw_logplot_line(vw_logplot *p, double x0, double y0, double x1, double y1, int dashed,
		     uint32_t ascii);
/* Put the lines drawn so far on the canvas in colour role, and clear them. */
void vw_logplot_flush(vw_logplot *p, int role);
/* The cell of a data point; 0 when outside the chart. */
int vw_logplot_cell(const vw_logplot *p, double xv, double yv, int *cx, int *cy);
/* Axis lines, decade labels (yunit: SI-prefixed "FLOP/s"), the x axis's name. */
void vw_logplot_axes(vw_logplot *p, const char *xname, const char *yunit);

#endif
