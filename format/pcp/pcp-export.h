/* pcp-export.h: what pcp-export.c (archives, metrics, instances, labels)
 * and pcp-export-rows.c (rows and marks, merged on time) share; private to
 * format/pcp/ (the door is pcp.h: pcp_export). */
#ifndef MCZ_PCP_EXPORT_H
#define MCZ_PCP_EXPORT_H

#include <stdio.h>

#include <pcp/pmapi.h>
#include <pcp/import.h>

#include "pcp-int.h"

typedef struct ex_metric {
	char *name;                /* the PCP name */
	const mcz_stream_desc *d0; /* its first stream: help text, unit label */
	pmDesc desc;               /* pcp_metric_desc_of, then pmid and indom */
	double mul;                /* values x mul (1: as stored) */
	int named;                 /* 0: the unit was counted (label mcz_unit) */
	int inst_renamed;          /* instances whose names PCP could not take */
	char why[160];
	size_t nstreams;
	int ninst, has_inst, singular, allcpu; /* allcpu: instance ids = cpu numbers */
	pmValueSet *vs;            /* this record's values (room for nstreams) */
	char *blocks;              /* their pmValueBlocks, EX_BLOCK bytes each */
} ex_metric;

#define EX_BLOCK 16 /* a pmValueBlock of 8 bytes: header (4) + value, rounded */

/* One recording going into the archive: a file, or a job file's member. */
typedef struct ex_src {
	mcz_reader *r;
	char prefix[32];     /* "rank3" in a job, else "" */
	size_t ns;
	uint32_t *metric;    /* per stream: index in ex_archive.m */
	int *inst;           /* per stream: its PCP instance id (PM_IN_NULL: singular) */
	uint8_t *type;       /* per stream: its mcz_type */
	int mark_inst;
	/* pcp-export-rows.c's cursor */
	mcz_series *s;       /* the window's rows, one series per stream */
	size_t i;            /* next row in the window */
	size_t *first, *at;  /* the window's rows' present values: row i's are */
	uint32_t *ids;       /* the streams ids[first[i] .. first[i + 1]), */
	mcz_value *vals;     /* their values vals[first[i] ...] */
	size_t cap_rows, cap_ids;
	int64_t w, end, step;/* next window starts at w; rows end before end */
	size_t mark_i;
	int64_t mark_us;     /* the last mark's time (marks 1 us apart at least) */
	int started;
} ex_src;

typedef struct ex_archive {
	ex_src *src;
	size_t nsrc;
	const char *path, *host;
	ex_metric *m;
	size_t nm, capm;
	pcp_map by_name;     /* hash of the PCP name -> index in m */
	size_t nmarks;
	pmID mark_pmid;
	/* the record being gathered (pcp-export-rows.c), for pmiPutResult */
	pmResult *res;
	uint32_t *touched;   /* metrics with values in it */
	size_t ntouched;
	pmValueSet *mark_vs; /* mcz.mark's values, room for nsrc */
	char *err;
	size_t errlen;
	pcp_export_stats *st; /* the renames said there */
} ex_archive;

/* Every row and mark of x's sources, merged on wall-clock time, through
 * pmiPutResult; gap marks through pmiPutMark. */
int pcp_export_rows(ex_archive *x, pcp_export_stats *st);
void pcp_export_rows_free(ex_src *s);
void pcp_export_rows_free_record(ex_archive *x);
/* "PATH: what: libpcp_import's reason" into x->err; returns MCZ_E_IO.
 * Inline: both files of the export fail through it. */
static inline int pcp_export_fail(ex_archive *x, int pmierr, const char *what)
{
	char eb[PMI_MAXERRMSGLEN];
	snprintf(x->err, x->errlen, "%s: %s: %s", x->path, what, pmiErrStr_r(pmierr, eb, sizeof eb));
	return MCZ_E_IO;
}

#endif
