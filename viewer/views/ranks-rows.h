/* ranks-rows.h: the Ranks view's state and its rows, between
 * view-ranks.c (drawing, keys) and ranks-rows.c (which ranks each row
 * holds, in which order, and what they did per column).  Internal to
 * viewer/views/.
 */
#ifndef VW_RANKS_ROWS_H
#define VW_RANKS_ROWS_H

#include <stddef.h>

#include "draw/draw.h"
#include "view.h"

#define RK_LABEL 14     /* cells of a row's label */
#define RK_MAXNAMES 64  /* streams the colour can be chosen from */

enum { RK_SORT_RANK, RK_SORT_TIME, RK_SORT_VALUE, RK_SORT_COUNT };

/* The colour choices that are no stream, where the files hold a code
 * profile: the hot function, and what the rank was doing — work, MPI,
 * sync or idle (codeclass.h; first when the job spends time in MPI). */
extern const char rk_code[], rk_doing[];
#define RK_OFF VW_CC_N /* rk_row_doing: off the CPU */

/* A row: one rank, or one host (its ranks' mean). */
typedef struct rk_row {
	size_t job;
	size_t first, n;   /* ranks [first, first + n) of a per-host order, or one rank */
	double phase_s;    /* time in the cursor's phase (host: the mean); NaN none */
	double value;      /* the colouring stream's mean over that phase (host: the mean) */
} rk_row;

typedef struct rk_state {
	int sel, top;
	int sort;
	int by_host;
	int metric;                     /* index into names */
	const char *names[RK_MAXNAMES]; /* stream names of the ranks (owned by the readers) */
	int nnames;
	char err[160];
	rk_row *rows;
	size_t nrows;
	size_t *order;                  /* per job: rank indexes by host, then rank */
	int plot_x, plot_w;
} rk_state;

static inline const vw_job *rk_job(vw_an *an, size_t j)
{
	return an->jobs && j < an->jobs->n ? &an->jobs->v[j] : NULL;
}

/* Rows for the current mode and order; the cursor's phase gives the
 * times.  0, or -1 out of memory. */
int rk_rows(vw_an *an, rk_state *s);
/* A row's values per column: its rank's, or its ranks' mean (one and tmp:
 * n of scratch each). */
void rk_row_values(vw_an *an, rk_state *s, const rk_row *row, size_t n, double *out,
		   double *one, vw_bucket *tmp);
/* A row's hot function per column (-1 none) and its share. */
void rk_row_code(vw_an *an, rk_state *s, const rk_row *row, size_t n, int *fn, double *sh);
/* What a row's ranks did per column: the class (VW_CC_* or RK_OFF) and
 * the share of waiting; 0, or -1 without a profile. */
int rk_row_doing(vw_an *an, rk_state *s, const rk_row *row, size_t n, int *st, double *share);

#endif
