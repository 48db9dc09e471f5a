/* report.h: the phase table as cells of text — shared by the phases view
 * (view-phases.c) and `mcview --report` (text or JSON for scripts and CI).
 *
 *     vw_report_table t;
 *     vw_report_layout(an, NULL, NULL, 120, &t);   // columns that fit 120 cells
 *     for (int k = 0; k < t.ncols; k++) printf("%*s ", t.width[k], vw_report_head(&t, k));
 *     vw_report_cell(an, &t, k, phase, buf, sizeof buf);
 *     vw_report_print(an, stdout, 0);               // the whole report
 */
#ifndef VW_REPORT_H
#define VW_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct vw_model;
struct vw_an;

enum vw_phase_col {
	VW_PCOL_CLASS,
	VW_PCOL_START,
	VW_PCOL_DUR,
	VW_PCOL_READ,   /* memory read bytes */
	VW_PCOL_WRITE,  /* memory write bytes */
	VW_PCOL_RATIO,  /* reads per write */
	VW_PCOL_BW,     /* memory bandwidth, read + write */
	VW_PCOL_GPU,    /* GPU power */
	VW_PCOL_NET,    /* network rate, rx + tx */
	VW_PCOL_IPC,
	VW_PCOL_CPUS,   /* CPUs busy */
	VW_PCOL_FPB,    /* roofline: arithmetic intensity, flop/byte */
	VW_PCOL_GFLOPS, /* roofline: GFLOP/s */
	VW_PCOL_ROOF,   /* roofline: % of the attainable ceiling */
	VW_PCOL_BOUND,  /* roofline: memory or compute */
	VW_PCOL_EXTRA,  /* mean of a stream the user chose */
	VW_PCOL_CODE,   /* the hottest functions (code profile) and their shares */
	VW_PCOL_MARK,   /* marks: the phase's mark; auto: the mark nearest the boundary */
	VW_PCOL_DESC,
	VW_PCOL_COUNT
};

typedef struct vw_report_table {
	int ncols;
	int col[VW_PCOL_COUNT];   /* vw_phase_col of each shown column */
	int width[VW_PCOL_COUNT]; /* cells; the description's is what is left (0: unbounded) */
	int right[VW_PCOL_COUNT]; /* right-aligned (numbers) */
	char extra_name[96];
	const double *extra;      /* per phase, when the extra column is shown */
	char missing[192];        /* "no mem.read_bytes, gpu.power... in this recording" or "" */
	char roof[400];           /* the roofline's ceilings and sources, or why it has none */
} vw_report_table;

/* Columns with a value in some phase, fitted to width cells (<= 0: no limit). */
void vw_report_layout(struct vw_an *an, const char *extra_name, const double *extra, int width,
		      vw_report_table *t);
const char *vw_report_head(const vw_report_table *t, int k);
/* Text of column k for phase i ("-" where there is no value). */
void vw_report_cell(struct vw_an *an, const vw_report_table *t, int k, size_t i, char *buf,
		    size_t len);
/* Value that column col sorts phase i by (NaN: none). */
double vw_report_sortval(struct vw_an *an, int i, int col, const double *extra);
/* The column after col that sorting may use (cycles back to start). */
int vw_report_next_col(struct vw_an *an, int col, int has_extra);
/* "roofline: ceilings 12 GB/s (triad, all cores), ...; flops from ..., bytes
 * from ..." or why there is no roofline ("no ceilings: run mcrec --calibrate"). */
void vw_report_roof_line(struct vw_an *an, char *buf, size_t len);
/* "7 phases, 3 classes (auto: 12 streams, penalty 1)" */
void vw_report_title(struct vw_an *an, char *buf, size_t len);
/* The report: a text table (json = 0) or one JSON object (json = 1).
 * Returns 0, or -1 on a write error. */
int vw_report_print(struct vw_an *an, FILE *f, int json);

#endif
