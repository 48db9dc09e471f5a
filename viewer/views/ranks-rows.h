/* ranks-rows.h: the Ranks view's state and its rows, between
 * view-ranks.c (drawing, keys) and ranks-rows.c (which ranks each row
 * holds, in which order, and what they did per column).  Internal to
 * viewer/views/.
 */
#ifndef VW_RANKS_ROWS_H
#define VW_RANKS_ROWS_H

#include <stddef.h>
#include <stdint.h>

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

/* How the rows are made: a row per rank, per host (its ranks' mean), or
 * groups of ranks of similar useful time (ranks-rows.c). */
enum { RK_BY_RANK, RK_BY_HOST, RK_BY_GROUP, RK_LAYOUTS };
enum { RK_ROW_RANK, RK_ROW_HOST, RK_ROW_GROUP, RK_ROW_MEMBER /* a rank of a group opened */ };
enum { RK_TAG_SLOWEST = 1, RK_TAG_FASTEST };
/* What a row is coloured by. */
enum { RK_MODE_VALUES, RK_MODE_CODE, RK_MODE_DOING };

/* A row: one rank, or several (a host's, a group's: their mean). */
typedef struct rk_row {
	size_t job;
	size_t first, n;   /* ranks [first, first + n) of s->order */
	int kind;          /* RK_ROW_* */
	int tag;           /* RK_TAG_*: the slowest or fastest rank of its job, or 0 */
	size_t group;      /* a group's number (rk_group_open), else SIZE_MAX */
	double phase_s;    /* time in the cursor's phase (several: the mean); NaN none */
	double value;      /* the colouring stream's mean over that phase (several: the mean) */
	double lo_s, hi_s; /* groups: the range of their ranks' useful time; NaN otherwise */
} rk_row;

typedef struct rk_acc rk_acc;

typedef struct rk_state {
	int sel, top;
	int sort;
	int layout;                     /* RK_BY_* */
	int layout_set;                 /* chosen (by the user, or at the first frame) */
	int metric;                     /* index into names */
	const char *names[RK_MAXNAMES]; /* stream names of the ranks (owned by the readers) */
	int nnames;
	char err[160];
	rk_row *rows;
	size_t nrows;
	size_t *order;                  /* per job: rank indexes in the rows' order */
	int gwant;                      /* groups a job is cut into (from the screen) */
	size_t ngroup;                  /* groups made */
	uint8_t *open;                  /* per group: opened */
	size_t nopen;
	unsigned open_version;          /* bumped when a group opens or closes */
	uint64_t rows_key;              /* what the rows were made for (ranks-rows.c) */
	unsigned rows_version;          /* bumped when they are made again */
	rk_acc *acc;                    /* per row: its columns added up so far */
	size_t nacc;
	int plot_x, plot_w;
} rk_state;

static inline const vw_job *rk_job(vw_an *an, size_t j)
{
	return an->jobs && j < an->jobs->n ? &an->jobs->v[j] : NULL;
}

/* Rows for the current layout and order; the cursor's phase gives the
 * times.  Made again only when what they depend on changed.  0, or -1 out
 * of memory. */
int rk_rows(vw_an *an, rk_state *s);
/* Whether group g is opened (its ranks shown under it). */
int rk_group_open(const rk_state *s, size_t g);
/* Row ri's n columns coloured as mode says: val the value (RK_MODE_VALUES),
 * the function's share (CODE) or the share of waiting (DOING); fns the
 * function (-1 none) or the class (VW_CC_*, RK_OFF, -1 none).  A row of
 * several ranks adds them up across frames within the frame's budget: 0
 * when its columns are complete, 1 when they hold the ranks added so far
 * (m->refining set), -1 out of memory. */
int rk_row_columns(vw_an *an, rk_state *s, size_t ri, size_t n, int mode, double *val, int *fns);
/* Drop the rows' sums (freeing the view, or rows made again). */
void rk_accs_free(rk_state *s);
/* Drop those of the rows outside [top, top + nshow) when many are held. */
void rk_accs_trim(rk_state *s, size_t top, size_t nshow);

#endif
