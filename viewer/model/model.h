/* model.h: the viewer's model — the door between views and data.
 *
 * A model holds one dataset (one or more opened recordings, or PCP archives
 * converted on open), the shared time window, cursor and selection, the
 * stream rows shown (with per-core groups), and what is wrong with its
 * files, as data (vw_model_warnings: the app words the status line from
 * it).  What the analyses make of it (phases, jobs, their tables) is
 * theirs, kept beside it (viewer/analysis/an.h).
 * It never includes curses and never parses bytes: data comes through
 * format/mcz.h.
 *
 *     vw_model *m;
 *     char err[256];
 *     if (vw_model_open(&m, paths, npaths, &opts, err, sizeof err) != 0) { fprintf(stderr, "mcview: %s\n", err); exit(1); }
 *     vw_model_zoom(m, 0.5, m->cursor);          // zoom in around the cursor
 *     vw_bucket b[200];
 *     vw_model_row_buckets(m, row, 200, b);       // rates/values per column
 *     vw_model_free(m);
 *
 * Times are ns on the dataset's axis: recording time for one file; for
 * several files, wall-clock time minus the earliest file's wall epoch.
 */
#ifndef VW_MODEL_H
#define VW_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../../format/mcz.h"

struct vw_model_cache; /* model-query.c: per-stream bucket cache */
struct vw_chunk_cache; /* model-chunks.c: per-chunk summaries */
struct vw_band_cache;  /* model-band.c: group rows' bands */

/* One stream of one file, as the viewer shows it. */
typedef struct vw_stream {
	mcz_reader *file;
	size_t file_index;
	uint32_t id;                /* stream id in that file */
	const mcz_stream_desc *desc;
	char label[96];             /* "mem.read_bytes", "core.instructions[cpu3]", "rank1:..." */
} vw_stream;

/* How a group row combines its members' values at one time: extensive
 * quantities (bytes, counts, joules, watts, and rates of them) add up (Σ);
 * intensive ones (%, ratios, temperatures, frequencies, unitless levels,
 * durations) average.  vw_model_rule decides from a stream's unit and kind. */
typedef enum vw_rule { VW_RULE_AVG = 0, VW_RULE_SUM = 1 } vw_rule;

/* Orders of the timeline's rows ('s' cycles them). */
typedef enum vw_sort {
	VW_SORT_ACTIVITY = 0,       /* most varying first (the default) */
	VW_SORT_NAME,               /* by label */
	VW_SORT_SOURCE,             /* by source (perf, pcp, ...), then label */
	VW_SORT_COUNT
} vw_sort;

/* A row of the timeline: one stream, or a group (e.g. every per-CPU stream
 * of the same name) drawn as a min/mean/max band, expandable; or the row of
 * every constant stream, folded (constants). */
typedef struct vw_row {
	char label[96];
	size_t *members;            /* indexes into m->streams */
	size_t nmembers;
	int expanded;               /* groups only */
	int is_group;
	int depth;                  /* 1 for members shown under an expanded group */
	size_t group;               /* for members: the group row's index in m->groups */
	/* how the row combines and orders (model-rows.c) */
	int rule;                   /* vw_rule: a group's value is the members' Σ or mean */
	double activity;            /* vw_activity_score, the highest of the members' */
	int constants;              /* 1: the folded row of constant streams (and its members) */
	int head;                   /* 1: a host's row (files of several hosts): no values of
				       its own, its rows follow it unless folded (Enter) */
	size_t host;                /* head rows: the host's file index */
} vw_row;

/* A mark of any file, on the dataset's time axis (sorted by t). */
typedef struct vw_mark {
	int64_t t;
	int kind;                   /* mcz_mark_kind */
	const char *text;           /* owned by the file's reader */
	size_t file_index;
} vw_mark;

/* Value of a row over one column of time, in display units (counters as per-second rates
 * times scale; gauges as values times scale). */
typedef struct vw_bucket {
	double min, max, mean;      /* NaN when count == 0 */
	uint64_t count;
} vw_bucket;

typedef struct vw_open_opts {
	const char *metrics;        /* --metrics PATTERN for PCP archives (NULL = all) */
	const char *const *ssh_options; /* --ssh-option values, NULL-terminated */
	int quiet;                  /* no progress lines */
	long long cache_max;        /* --cache-size: bytes of converted PCP archives
				       kept (0 = the default, < 0 = none) */
} vw_open_opts;

/* How the first file read by recovery (no index: cut, damaged, or still
 * being written) stands. */
enum vw_trouble {
	VW_TROUBLE_NONE = 0,
	VW_TROUBLE_EMPTY,      /* it holds nothing this reader understands (no
				  rows, no streams): trouble_why says what */
	VW_TROUBLE_INCOMPLETE, /* every block good, only the index missing:
				  still recording, or its recorder was killed */
	VW_TROUBLE_BLOCKS,     /* every byte read, trouble_blocks blocks left
				  out (their CRC failed) */
	VW_TROUBLE_CUT,        /* damaged: what it holds is shown */
};

/* What the model found wrong with its files, or worth a note, as data: the
 * app words the status line from it (viewer/app/status.c). */
typedef struct vw_model_warnings {
	int trouble;                /* vw_trouble of file trouble_file */
	size_t trouble_file;
	uint64_t trouble_rows;      /* its rows, valid bytes and bytes */
	uint64_t trouble_valid, trouble_bytes;
	uint64_t trouble_blocks;    /* VW_TROUBLE_BLOCKS: the blocks left out */
	char trouble_why[160];      /* VW_TROUBLE_EMPTY: mcz check's first problem,
				       or "no streams" */
	const char *import_warning; /* the first PCP archive read in part or with a
				       workaround: its importer's warning (metadata
				       import_warning), NULL none */
	char *left_out;             /* a job file's member that could not be read
				       (the first): its name, NULL none */
	int left_out_err;           /* why: an mcz_err, and the detail then */
	char left_out_detail[160];
	char cache_note[256];       /* the cache of converted archives' note (it
				       could not keep them), "" none */
	size_t ndamaged;            /* damaged chunks found so far (vw_model_damage) */
	size_t damaged_file;        /* the first file with one, as counted then */
} vw_model_warnings;

typedef struct vw_model {
	/* dataset */
	mcz_reader **files;
	size_t nfiles;
	char **paths;
	unsigned char *imported;    /* per file: 1 = a PCP source converted on open
				       (no .mcz of its own to keep a cache in) */
	vw_stream *streams;
	size_t nstreams;
	int64_t t_min, t_max;       /* whole dataset */
	/* rows shown by the timeline (after grouping and filter) */
	vw_row *groups;             /* the grouped rows, before expansion and filter */
	size_t ngroups;
	vw_row *rows;               /* visible rows: filtered, groups expanded */
	size_t nrows;
	char filter[64];            /* '/' filter, "" = all */
	/* shared window, cursor, selection */
	int64_t t0, t1;             /* window [t0, t1) */
	int64_t cursor;
	int64_t sel0, sel1;         /* sel1 > sel0 when a range is selected */
	size_t row_sel;             /* selected row (timeline) */
	size_t row_top;             /* first row shown */
	int phase_sel;              /* current phase of the analyses' (an.h), -1 none */
	vw_model_warnings warnings;
	int view;                   /* index of the current view */
	/* added by the viewer engineer (extensions; existing fields unchanged) */
	int64_t *offsets;           /* per file: add to file time to get dataset time */
	int live;                   /* a file is still being written (no trailer yet) */
	vw_mark *marks;             /* every file's marks, dataset time, sorted */
	size_t nmarks;
	int64_t min_width;          /* narrowest window zoom allows (ns) */
	struct vw_model_cache *cache;
	struct vw_chunk_cache *chunks; /* model-chunks.c */
	struct vw_band_cache *bands;   /* model-band.c: dropped with the rows and caches */
	/* Redraw budget (model-budget.c).  While budget_end is set (CLOCK_MONOTONIC
	 * ns), a stream whose columns would need chunks decoded after it is given
	 * at chunk resolution, or left out (VW_PENDING) where even that needs its
	 * index read; `refining` then says the screen is not final and the loop
	 * draws again as soon as no key is waiting.  0 (the default: snapshots,
	 * tests, reports) = always exact. */
	int64_t budget_end;
	int refining;
	int budget_work;            /* a piece of this frame's work was let through */
	int band_member;            /* model-band.c is asking for a member's columns */
	/* Row order (model-rows.c): m->groups stay in file order (phases and
	 * reports index them); the rows follow `sort`.  Streams that never
	 * change are members of one folded row, m->groups[m->ngroups], listed
	 * first; groups whose members are all constant are not shown apart. */
	int sort;                   /* vw_sort */
	size_t nconstant;           /* streams in the constants row */
	size_t *order;              /* m->groups indexes in the order of the rows */
	double *act;                /* per stream: activity, known for [0, act_next) */
	size_t act_next;
	int act_applied;            /* the rows have the scores (folded, ordered) */
	int fold_ranks;             /* rank files: one row per stream name across files
				       (vw_model_set_fold; on for a job: vw_model_is_job) */
	/* files of several hosts without ranks (PCP archives of a cluster):
	 * each host's rows under a head row (model-rows.c), folded per host */
	size_t nhosts;              /* m->nfiles when the rows are by host, else 0 */
	size_t keep_budget;         /* bytes of per-stream samples and columns kept
				       (model-chunks.c); 0: 96 MiB */
	size_t sums_large;          /* bytes of every stream's chunk summaries past
				       which the model keeps compact copies
				       (model-chunks.c); 0: 128 MiB */
	unsigned char *host_folded; /* per file: its host's rows hidden */
	/* the kernel running, from a Kokkos program's connector (mcrec's
	 * regions source): the point marks whose text starts with the file's
	 * metadata regions.kernel_marks, that prefix cut off ("" = none ran),
	 * kept out of m->marks (no phase, no mark band), sorted */
	vw_mark *kmarks;
	size_t nkmarks;
} vw_model;

/* vw_model_row_buckets' answer for a row not computed within the budget. */
#define VW_PENDING 1

int vw_model_open(vw_model **m, const char *const *paths, size_t npaths,
		  const vw_open_opts *o, char *err, size_t errlen);
/* The importer's options of a model's PCP archives (metrics, ssh, cache,
 * progress). */
struct pcp_import_opts;
void vw_model_pcp_opts(const vw_open_opts *o, struct pcp_import_opts *po);
/* How vw_model_open_with opens path i (of paths, in order): its readers
 * and names as pcp_open_all gives them (malloc'd lists of *n, the model's
 * from then on), read with the model's importer options po (po->note:
 * where the cache's note goes).  MCZ_OK, or an error with one line in err. */
typedef int vw_model_opener(void *arg, size_t i, const char *path,
			    const struct pcp_import_opts *po, mcz_reader ***readers, char ***names,
			    size_t *n, char *err, size_t errlen);
/* vw_model_open with each path opened by opener(arg, ...): the app's
 * conversions behind the screen (viewer/app/) open them so; vw_model_open
 * reads every archive whole (pcp_open_all). */
int vw_model_open_with(vw_model **m, const char *const *paths, size_t npaths,
		       const vw_open_opts *o, vw_model_opener *opener, void *arg, char *err,
		       size_t errlen);
/* The model over readers already open (mcz_open_mem: tests, the fuzz
 * target); the model owns them from here on, and closes them on failure
 * too.  names[i] names the file (NULL: "memory").  Such a
 * model never writes anything (no phase cache: like an imported file). */
int vw_model_open_readers(vw_model **m, mcz_reader **files, const char *const *names,
			  size_t n, char *err, size_t errlen);
void vw_model_free(vw_model *m);
/* Start a frame with ms of work allowed before queries answer coarsely
 * (ms <= 0: exact, no limit); clears m->refining. */
void vw_model_budget(vw_model *m, int ms);
/* The frame's budget is spent: work that decodes should set m->refining and
 * wait for the next frame.  Asked before a piece of work; the first piece
 * of each frame is always allowed (so every frame makes progress). */
int vw_model_budget_spent(vw_model *m);
/* Follow files being written (mcview on a live recording, as `less +F`):
 * read on what was appended (mcz_reader_refresh) and put it on the time axis;
 * a window that reached the end of the data grows to the new end (its start
 * stays), one scrolled back stays where it is.  m->live says whether a file
 * still lacks its trailer.  Returns 1 when there is new data, 0 when none,
 * -1 on error.  Unless 0, what was computed from the readers' data is
 * stale: the caller drops the analyses' tables (vw_an_code_drop). */
int vw_model_follow(vw_model *m);

/* Damaged chunks met so far (their CRC failed when a draw or an analysis
 * read them: libmcz then skips them as gaps).  vw_model_damage() returns
 * the count, and when it grew, raises warnings.ndamaged to it (with the
 * first file that has one: the status line says so once per growth);
 * vw_model_damaged_span gives the i-th span on the dataset axis. */
size_t vw_model_damage(vw_model *m);
int vw_model_damaged_span(const vw_model *m, size_t i, int64_t *t0, int64_t *t1);

/* Window operations; all clamp to [t_min, t_max]. */
void vw_model_zoom(vw_model *m, double factor, int64_t around); /* factor < 1 zooms in */
void vw_model_pan(vw_model *m, double fraction);                /* of the window width */
void vw_model_reset(vw_model *m);
void vw_model_set_window(vw_model *m, int64_t t0, int64_t t1);
void vw_model_set_filter(vw_model *m, const char *pattern);
/* A second model of the same files (the readers cloned: mcz_reader_clone),
 * built as m was opened, for another thread to work on while m is drawn.
 * Not for a file being followed.  0, or -1 with a reason in err. */
int vw_model_clone(vw_model *m, vw_model **out, char *err, size_t errlen);
/* A group row: expand or fold its members; a host's head row: fold or
 * show the host's rows. */
void vw_model_toggle_group(vw_model *m, size_t row);
/* Files of several hosts: fold every host's rows, or show them all (when
 * any is folded); 0 done, -1 when the rows are not by host. */
int vw_model_fold_hosts(vw_model *m);
/* Scores for the order and the constants row: a small recording has them
 * once opened; a large one gets them in batches, as many as the frame's
 * budget allows (m->refining stays set until the last), and its rows are
 * folded and ordered once all are known (the selected row stays selected).
 * Views that show rows call it before drawing; returns 1 when settled. */
int vw_model_rows_settle(vw_model *m);
/* Order the rows by s (vw_sort); the selected row stays selected. */
void vw_model_set_sort(vw_model *m, int s);
/* Whether the files are the ranks of a parallel job: two files or more,
 * one of which carries a rank (its metadata `rank`, as mcrec writes it
 * under a launcher); the others are the job's too, files without a rank
 * (the job's report notes them).  The one rule: the rows of a job are
 * folded at open (fold_ranks), and the analyses take it as a job
 * (viewer/analysis/jobs/job.h, the Ranks view, the job report). */
int vw_model_is_job(const vw_model *m);
/* The host a file was recorded on (its `host`), "" when it names none. */
const char *vw_model_file_host(const vw_model *m, size_t file);
/* Rank files: fold (1) every file's streams of one name into one row, or
 * show each file's apart (0); rebuilds the rows.  0, or -1 out of memory. */
int vw_model_set_fold(vw_model *m, int on);
/* "activity", "name", "source". */
const char *vw_model_sort_name(int s);

/* model-activity.c.  How much a stream varies, from n buckets of it over
 * the run (display units): 0 when every value is the same or there is
 * none, else in (0, 1] — an upper bound of the standard deviation over the
 * typical magnitude, robust to a few spikes.  Pure. */
double vw_activity_score(const vw_bucket *b, size_t n);
/* Every stream's score (m->nstreams, malloc'd, the caller frees): the
 * timeline's where it has them, the rest computed now.  NULL out of memory. */
double *vw_model_activity_all(vw_model *m);
/* Σ or avg for a group of streams like d (see vw_rule).  Pure. */
vw_rule vw_model_rule(const mcz_stream_desc *d);

/* Per-column values of a row over the window split into n columns, for
 * drawing: zoomed in closer than the sampling, each sample also covers the
 * columns of the time it stands for (a counter's interval before it, a
 * gauge's time until the next sample); gaps over 1.5 intervals stay empty;
 * where exact values would decode many chunks (a column narrower than a
 * chunk, the window wider than 3 chunks and more than 512 chunk decodes for
 * all streams) they are exact to chunk resolution (model-chunks.c).
 * vw_model_stream_buckets gives the exact per-bucket statistics.  A
 * group's min and max are its members' extremes, its mean their sum or
 * mean as row->rule says; the constants row has none (-1).
 * Returns 0, VW_PENDING (past the budget: nothing to draw yet), or -1. */
int vw_model_row_buckets(vw_model *m, size_t row, size_t n, vw_bucket *out);
/* Before drawing rows [first, first + count) in n columns: the member
 * streams whose columns are exact summaries read in one pass over the file
 * (vw_model_streams_buckets), so that each row's vw_model_row_buckets
 * then finds them in the cache.  Changes no value. */
void vw_model_rows_prefetch(vw_model *m, size_t first, size_t count, size_t n);
/* Values of one stream over [t0, t1) split into n buckets (any window). */
int vw_model_stream_buckets(vw_model *m, size_t stream, int64_t t0, int64_t t1, size_t n,
			    vw_bucket *out);
/* The same for ns streams at once (out: ns x n, or NULL to only fill the
 * per-stream cache, so that the stream's next vw_model_stream_buckets of
 * this window is a copy): one pass over each file's chunks for all of
 * them (mcz_summary_multi).  ok[k] (may be NULL) is set to 1 where stream
 * k has values, 0 where vw_model_stream_buckets would fail; returns 0 when
 * all have, else -1 (with out and ok both NULL: 0, a prefetch says nothing). */
int vw_model_streams_buckets(vw_model *m, const size_t *streams, size_t ns, int64_t t0,
			     int64_t t1, size_t n, vw_bucket *out, uint8_t *ok);
/* Buckets of one stream over the window [m->t0, m->t1) narrower than its
 * sampling: each sample drawn over the time it stands for (gaps shorter
 * than 1.5 intervals filled), as the timeline's rows are. */
void vw_model_fill_gaps(const vw_model *m, size_t stream, vw_bucket *b, size_t nb);
/* Values of one stream over any span [t0, t1) in n columns, as the
 * timeline's rows get theirs: exact within the frame's budget, else at
 * chunk resolution with m->refining set (the next frame refines); kept
 * for the next call with the same span.  0, VW_PENDING, or -1. */
int vw_model_draw_buckets(vw_model *m, size_t stream, int64_t t0, int64_t t1, size_t n,
			  vw_bucket *out);
/* The value of a stream at time t (the sample covering t), display units; NaN if none. */
double vw_model_value_at(vw_model *m, size_t stream, int64_t t);
/* The same, also giving the covering sample's time (dataset axis) in *ts.
 * Covering sample: for counters the first sample at or after t (its delta is
 * the interval that contains t); for gauges the last sample at or before t
 * (the first one if t is earlier).  Returns 0, or -1 when there is none. */
int vw_model_sample_at(vw_model *m, size_t stream, int64_t t, double *v, int64_t *ts);

/* Time of the centre of column col of n over the window, and the column of
 * time t (may be < 0 or >= n when t is outside the window). */
int64_t vw_model_col_time(const vw_model *m, int col, int n);
int vw_model_time_col(const vw_model *m, int64_t t, int n);
/* Move the cursor to t (clamped to the window); drops nothing else. */
void vw_model_set_cursor(vw_model *m, int64_t t);
/* Display unit of a stream: "B/s" for a counter in "B", "W" for a gauge in W. */
const char *vw_model_unit(const vw_model *m, size_t stream, char *buf, size_t len);
/* The streams of file `file`: m->streams[*first .. *end) (a file's streams
 * are contiguous, in file order); found by bisection, for the thousand
 * rank files of a job. */
void vw_model_file_streams(const vw_model *m, size_t file, size_t *first, size_t *end);
/* Mean sample interval (ns) of the file a stream belongs to; 0 if unknown. */
int64_t vw_model_interval(const vw_model *m, size_t stream);
/* The interval of the stream's own samples: the file's rows' interval, or
 * longer for a stream read less often (its samples over the file's span). */
int64_t vw_model_stream_interval(const vw_model *m, size_t stream);
/* model-code.c.  The code profile (SPEC.md 5.6) of file i, owned by its
 * reader (NULL when it has none or its block is bad), with
 * its time offset on the dataset axis in *offset. */
const mcz_code *vw_model_code_at(vw_model *m, size_t i, int64_t *offset);

/* Mark nearest to t within tol ns, or NULL. */
const vw_mark *vw_model_mark_near(const vw_model *m, int64_t t, int64_t tol);

#endif
