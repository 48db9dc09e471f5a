/* test-model-band.c: the folded band of a job's rank files
 * (viewer/model/model-band.c) — kept per group row and built across frames
 * within the budget — holds exactly the values the band combined from
 * every member in one go had (the code before the band was kept, copied
 * here as the reference), on several windows (zoomed out: chunk
 * summaries; a few chunks: raw samples; closer than the sampling: gaps
 * filled) and column counts, for a Σ group of counters, a Σ gauge and an
 * averaged gauge with missing samples; and while it is being built the row
 * is drawn from the previous band with m->refining set.
 *
 * The job: 24 rank files as tests/tools/gen-job writes them (rank, nranks,
 * job metadata; wall clocks up to 20 ms apart), 300 rows every 100 ms in
 * chunks of 64 rows: core.task_clock[cpu0], [cpu1] (counters, s, scale
 * 1e-9), app.rss (gauge, B), app.util (gauge, %, rank 5 missing rows
 * 100-139), and 8 constant gauges app.pad[0..7], so that the job has
 * enough streams (288) for a window of a few chunks to be drawn from the
 * samples (model-chunks.c's COL_RAW path, where a band's members are read
 * from the decoded chunks without keeping their samples).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../format/mcz.h"
#include "../../../viewer/model/model-int.h"

#define RANKS 24
#define ROWS 300
#define DT 100000000LL

static char dir[64];
static char paths[RANKS][96];

static uint64_t rng = 88172645463325252ull;

static double unit(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static int write_rank(int r)
{
	mcz_write_opts o = MCZ_WRITE_OPTS_INIT;
	o.chunk_rows = 64;
	o.wall_epoch_ns = 1790000000000000000LL + (int64_t)(unit() * 20e6);
	mcz_writer *w;
	if (mcz_writer_open(&w, paths[r], &o) != MCZ_OK)
		return -1;
	char buf[32];
	snprintf(buf, sizeof buf, "%d", r);
	mcz_writer_meta(w, "rank", buf);
	snprintf(buf, sizeof buf, "%d", RANKS);
	mcz_writer_meta(w, "nranks", buf);
	mcz_writer_meta(w, "job", "77");
	static const struct {
		const char *name, *inst, *unit;
		int kind, type;
		double scale;
	} sd[] = {
		{"core.task_clock", "cpu0", "s", MCZ_COUNTER, MCZ_U64, 1e-9},
		{"core.task_clock", "cpu1", "s", MCZ_COUNTER, MCZ_U64, 1e-9},
		{"app.rss", "", "B", MCZ_GAUGE, MCZ_U64, 0},
		{"app.util", "", "%", MCZ_GAUGE, MCZ_F64, 0},
	};
	for (size_t s = 0; s < 12; s++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		if (s >= 4) {
			char inst[8];
			snprintf(inst, sizeof inst, "%zu", s - 4);
			d.name = "app.pad";
			d.instance = inst;
			uint32_t id;
			if (mcz_writer_add_stream(w, &d, &id) != MCZ_OK)
				return -1;
			continue;
		}
		d.name = sd[s].name;
		d.instance = sd[s].inst;
		d.unit = sd[s].unit;
		d.kind = sd[s].kind;
		d.type = sd[s].type;
		if (sd[s].scale)
			d.scale = sd[s].scale;
		uint32_t id;
		if (mcz_writer_add_stream(w, &d, &id) != MCZ_OK)
			return -1;
	}
	mcz_value v[12] = {0};
	for (long row = 0; row < ROWS; row++) {
		uint8_t present[12] = {1, 1, 1, !(r == 5 && row >= 100 && row < 140), 1, 1, 1, 1,
				       1, 1, 1, 1};
		for (int c = 0; c < 2; c++)
			v[c].u += (uint64_t)((double)DT * (0.3 + 0.7 * unit()));
		v[2].u = (200u << 20) + (uint64_t)(unit() * 1e7) * (uint64_t)(1 + row % 5);
		v[3].f = 100.0 * unit();
		if (mcz_writer_append(w, (row + 1) * DT, v, present) != MCZ_OK)
			return -1;
	}
	return mcz_writer_close(w) == MCZ_OK ? 0 : -1;
}

static int setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof dir, "/tmp/mcz-test-band-%d", (int)getpid());
	if (mkdir(dir, 0700) != 0)
		return -1;
	for (int r = 0; r < RANKS; r++) {
		snprintf(paths[r], sizeof paths[r], "%s/run.%d.mcz", dir, r);
		if (write_rank(r) != 0)
			return -1;
	}
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	for (int r = 0; r < RANKS; r++)
		unlink(paths[r]);
	rmdir(dir);
	return 0;
}

static vw_model *open_job(void)
{
	const char *p[RANKS];
	for (int r = 0; r < RANKS; r++)
		p[r] = paths[r];
	vw_model *m;
	char err[256];
	assert_int_equal(vw_model_open(&m, p, RANKS, NULL, err, sizeof err), 0);
	assert_int_equal(m->fold_ranks, 1);
	return m;
}

/* The group's band as vw_model_row_buckets combined it before bands were
 * kept (every member, in order, in one call; no budget). */
static void reference(vw_model *m, const vw_row *r, size_t n, vw_bucket *out)
{
	vw_bucket *tmp = malloc(n * sizeof *tmp);
	size_t *nmean = calloc(n, sizeof *nmean);
	assert_non_null(tmp);
	assert_non_null(nmean);
	for (size_t i = 0; i < n; i++)
		out[i] = (vw_bucket){NAN, NAN, 0, 0};
	for (size_t k = 0; k < r->nmembers; k++) {
		const vw_bucket *src = vw_model_display_cached(m, r->members[k], n);
		if (!src || vw_model_needs_fill(m, r->members[k], n)) {
			int rc = vw_model_display_buckets(m, r->members[k], n, tmp);
			assert_int_not_equal(rc, VW_PENDING);
			if (rc != 0)
				continue;
			vw_model_fill_gaps(m, r->members[k], tmp, n);
			src = tmp;
		}
		for (size_t i = 0; i < n; i++) {
			const vw_bucket *b = &src[i];
			if (b->count == 0)
				continue;
			if (out[i].count == 0 || b->min < out[i].min)
				out[i].min = b->min;
			if (out[i].count == 0 || b->max > out[i].max)
				out[i].max = b->max;
			out[i].mean += b->mean;
			out[i].count += b->count;
			nmean[i]++;
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i].mean = !nmean[i] ? NAN
			      : r->rule == VW_RULE_SUM ? out[i].mean
						       : out[i].mean / (double)nmean[i];
	free(tmp);
	free(nmean);
}

/* Bit for bit (NaN equal to NaN). */
static void same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		assert_true(isnan(a) && isnan(b));
	else
		assert_memory_equal(&a, &b, sizeof a);
}

static void same_band(const vw_bucket *a, const vw_bucket *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		same_double(a[i].min, b[i].min);
		same_double(a[i].max, b[i].max);
		same_double(a[i].mean, b[i].mean);
		assert_int_equal(a[i].count, b[i].count);
	}
}

/* The visible row of the group named name (depth 0), or -1. */
static long row_of(const vw_model *m, const char *name)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].depth == 0 && m->rows[i].nmembers > 1 &&
		    !strncmp(m->rows[i].label, name, strlen(name)))
			return (long)i;
	return -1;
}

/* A frame whose budget allows one piece of work (one member decoded). */
static void tight_frame(vw_model *m)
{
	vw_model_budget(m, 0);
	m->budget_end = 1; /* long past: each frame does its first piece only */
}

static void band_exact_across_frames(void **st)
{
	(void)st;
	vw_model *m = open_job(), *ref = open_job();
	static const char *const names[] = {"core.task_clock", "app.rss", "app.util"};
	static const size_t cols[] = {200, 37, 401};
	int64_t span = m->t_max - m->t_min;
	/* windows: whole run (5 chunks a file), a quarter (raw samples), 1.5
	 * s (closer than a column per sample: gaps filled), panned */
	const int64_t win[][2] = {
		{m->t_min, m->t_max + 1},
		{m->t_min + span / 3, m->t_min + span / 3 + span / 4},
		{m->t_min + span / 2, m->t_min + span / 2 + 1500000000LL},
		{m->t_min + span / 2 + 400000000LL, m->t_min + span / 2 + 1900000000LL},
		{m->t_min + span / 8, m->t_min + span / 8 + span / 2},
	};
	size_t nframes_max = 0;
	for (size_t g = 0; g < 3; g++) {
		long ri = row_of(m, names[g]), rr = row_of(ref, names[g]);
		assert_true(ri >= 0 && rr >= 0);
		const vw_row *r = &m->rows[ri];
		assert_int_equal(r->nmembers, g == 0 ? 2 * RANKS : RANKS);
		assert_int_equal(r->rule, g == 2 ? VW_RULE_AVG : VW_RULE_SUM);
		for (size_t c = 0; c < 3; c++)
			for (size_t w = 0; w < 5; w++) {
				size_t n = cols[c];
				vw_bucket *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
				assert_non_null(want);
				assert_non_null(got);
				vw_model_set_window(ref, win[w][0], win[w][1]);
				vw_model_set_window(m, win[w][0], win[w][1]);
				assert_int_equal(m->t0, ref->t0);
				assert_int_equal(m->t1, ref->t1);
				reference(ref, &ref->rows[rr], n, want);
				/* frames of a tight budget until the band is done */
				size_t frames = 0;
				int rc;
				do {
					tight_frame(m);
					rc = vw_model_row_buckets(m, (size_t)ri, n, got);
					assert_true(rc == 0 || rc == VW_PENDING);
					if (m->refining && frames == 0 && w > 0 && c == 0)
						assert_int_equal(rc, 0); /* the previous band meanwhile */
					frames++;
					assert_true(frames <= 4 * r->nmembers + 4);
				} while (m->refining);
				assert_int_equal(rc, 0);
				if (frames > nframes_max)
					nframes_max = frames;
				same_band(got, want, n);
				/* kept: the next frame copies it, even with no budget left */
				tight_frame(m);
				m->budget_work = 1;
				assert_int_equal(vw_model_row_buckets(m, (size_t)ri, n, got), 0);
				assert_int_equal(m->refining, 0);
				same_band(got, want, n);
				/* without a budget: built in one call, the same */
				vw_model *one = open_job();
				vw_model_set_window(one, win[w][0], win[w][1]);
				long ro = row_of(one, names[g]);
				assert_int_equal(vw_model_row_buckets(one, (size_t)ro, n, got), 0);
				assert_int_equal(one->refining, 0);
				same_band(got, want, n);
				vw_model_free(one);
				free(want);
				free(got);
			}
	}
	assert_true(nframes_max > 1); /* the budget did split the work */
	vw_model_free(ref);
	vw_model_free(m);
}

/* The band of row ri on the window [a, b) in n columns, built in frames of
 * a tight budget until done; the frames it took. */
static size_t band_frames(vw_model *m, long ri, int64_t a, int64_t b, size_t n, vw_bucket *got)
{
	vw_model_set_window(m, a, b);
	size_t frames = 0;
	int rc;
	do {
		tight_frame(m);
		rc = vw_model_row_buckets(m, (size_t)ri, n, got);
		frames++;
		assert_true(frames <= 4 * m->rows[ri].nmembers + 4);
	} while (m->refining);
	assert_int_equal(rc, 0);
	return frames;
}

/* Zoomed out and in again: the band of the window before is given at once
 * (a frame with its budget spent reads no member), the same as built
 * afresh; and the one left, complete, is given back in turn.  A band left
 * before it was complete is built again. */
static void band_back_to_previous_window(void **st)
{
	(void)st;
	vw_model *m = open_job(), *ref = open_job();
	enum { N = 120 };
	vw_bucket got[N], wa[N], wb[N];
	long ri = row_of(m, "core.task_clock"), rr = row_of(ref, "core.task_clock");
	assert_true(ri >= 0 && rr >= 0);
	int64_t span = m->t_max - m->t_min;
	int64_t a0 = m->t_min + span / 4, a1 = a0 + span / 2, b0 = m->t_min, b1 = m->t_max + 1;
	vw_model_set_window(ref, a0, a1);
	reference(ref, &ref->rows[rr], N, wa);
	vw_model_set_window(ref, b0, b1);
	reference(ref, &ref->rows[rr], N, wb);
	assert_true(band_frames(m, ri, a0, a1, N, got) > 1);
	same_band(got, wa, N);
	assert_true(band_frames(m, ri, b0, b1, N, got) > 1);
	same_band(got, wb, N);
	for (int k = 0; k < 3; k++) { /* in, out, in: each at once */
		vw_model_set_window(m, k % 2 ? b0 : a0, k % 2 ? b1 : a1);
		tight_frame(m);
		m->budget_work = 1; /* no member may be read in this frame */
		assert_int_equal(vw_model_row_buckets(m, (size_t)ri, N, got), 0);
		assert_int_equal(m->refining, 0);
		same_band(got, k % 2 ? wb : wa, N);
	}
	/* on A; B begun (one frame), then A again: at once; B is built anew */
	vw_model_set_window(m, b0, b1);
	tight_frame(m);
	m->budget_work = 1;
	assert_int_equal(vw_model_row_buckets(m, (size_t)ri, N, got), 0);
	assert_int_equal(m->refining, 0); /* B was the previous band: at once */
	same_band(got, wb, N);
	vw_model_set_window(m, m->t_min + 1, m->t_max); /* a third window, begun */
	tight_frame(m);
	vw_model_row_buckets(m, (size_t)ri, N, got);
	assert_int_equal(m->refining, 1);
	vw_model_set_window(m, b0, b1); /* back to B, the complete previous band */
	tight_frame(m);
	m->budget_work = 1;
	assert_int_equal(vw_model_row_buckets(m, (size_t)ri, N, got), 0);
	assert_int_equal(m->refining, 0);
	same_band(got, wb, N);
	/* the third window's band was not complete: built again, exactly */
	vw_model_set_window(ref, m->t_min + 1, m->t_max);
	reference(ref, &ref->rows[rr], N, wa);
	assert_true(band_frames(m, ri, m->t_min + 1, m->t_max, N, got) > 1);
	same_band(got, wa, N);
	vw_model_free(ref);
	vw_model_free(m);
}

/* Unfolded and folded again, the rows are new: no band of the old rows is
 * given for them. */
static void band_dropped_with_rows(void **st)
{
	(void)st;
	vw_model *m = open_job(), *ref = open_job();
	vw_bucket got[64], want[64];
	long ri = row_of(m, "app.rss");
	assert_int_equal(vw_model_row_buckets(m, (size_t)ri, 64, got), 0);
	assert_int_equal(vw_model_set_fold(m, 0), 0);
	assert_int_equal(vw_model_set_fold(m, 1), 0);
	ri = row_of(m, "core.task_clock");
	long rr = row_of(ref, "core.task_clock");
	assert_int_equal(vw_model_row_buckets(m, (size_t)ri, 64, got), 0);
	reference(ref, &ref->rows[rr], 64, want);
	same_band(got, want, 64);
	vw_model_free(ref);
	vw_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(band_exact_across_frames),
		cmocka_unit_test(band_back_to_previous_window),
		cmocka_unit_test(band_dropped_with_rows),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
