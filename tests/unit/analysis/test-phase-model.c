/* test-phase-model.c: phases of real recordings (written here with libmcz,
 * opened with the viewer's model): boundaries against the known truth,
 * classes, marks as phases, figures and descriptions, the cache in the file,
 * re-detection after a parameter change, n/p and zoom, the report (text and
 * JSON) and the phases view rendered to text; phases found on another
 * thread, on a clone of the model, while the model is drawn (mcview's
 * viewer/app/phase-bg.c), taken as the model's; and degenerate recordings —
 * one sample, constant streams, a gap in the samples, NaN values.
 */
#include <math.h>
#include <pthread.h>
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

#include "../tmpdir.h"

#include "../../../format/mcz.h"
#include "../../../viewer/model/model.h"
#include "../../../viewer/analysis/an.h"
#include "../../../viewer/analysis/phases/phase.h"
#include "../../../viewer/analysis/phases/report.h"
#include "../../../viewer/views/view.h"

#define DT 10000000LL /* 10 ms */

TMPDIR_FIXTURE("mcz-test-phase")

/* Phases of the test recording: memory-bound, compute, memory, compute,
 * idle; rates per second of each stream in each phase. */
enum { NPH = 5 };
static const int ph_len[NPH] = {150, 120, 180, 100, 130};
static const char *const ph_name[NPH] = {"triad", "gemm", "triad", "gemm", "idle"};
static const double ph_rd[NPH] = {20e9, 1e9, 20e9, 1e9, 0.05e9};     /* mem.read_bytes B/s */
static const double ph_wr[NPH] = {10e9, 0.5e9, 10e9, 0.5e9, 0.02e9};  /* mem.write_bytes */
static const double ph_ins[NPH] = {1e9, 6e9, 1e9, 6e9, 0.01e9};       /* core.instructions */
static const double ph_cyc[NPH] = {3e9, 3e9, 3e9, 3e9, 0.05e9};       /* core.cycles */

static uint64_t rng = 88172645463325252ull;
static double noise(void) /* uniform [-1, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* Writes the phased recording; *truth gets the phase starts (ns). */
static void write_phased(const char *path, int64_t *truth, int nan_every, int gap)
{
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_writer_meta(w, "interval_ns", "10000000");
	const char *names[] = {"mem.read_bytes", "mem.write_bytes", "core.instructions",
			       "core.cycles", "os.load"};
	uint32_t id;
	for (int i = 0; i < 5; i++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = names[i];
		d.unit = i < 2 ? "B" : i == 2 ? "instructions" : i == 3 ? "cycles" : "";
		d.kind = i < 4 ? MCZ_COUNTER : MCZ_GAUGE;
		d.type = i < 4 ? MCZ_U64 : MCZ_F64;
		assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
	}
	uint64_t acc[4] = {0};
	int64_t t = DT;
	int row = 0;
	for (int p = 0; p < NPH; p++) {
		truth[p] = t - DT / 2; /* between the last sample of one phase and the first of the next */
		mcz_writer_mark(w, t - DT / 2, MCZ_MARK_BEGIN, 1, ph_name[p]);
		for (int k = 0; k < ph_len[p]; k++, row++, t += DT) {
			const double *r[4] = {ph_rd, ph_wr, ph_ins, ph_cyc};
			mcz_value v[5];
			uint8_t pres[5] = {1, 1, 1, 1, 1};
			for (int j = 0; j < 4; j++) {
				acc[j] += (uint64_t)(r[j][p] * 0.01 * (1 + 0.05 * noise()));
				v[j].u = acc[j];
			}
			v[4].f = (nan_every && row % nan_every == 3) ? NAN : 1.0 + 0.1 * noise();
			if (gap && row >= 200 && row < 215)
				continue; /* the recorder missed these ticks */
			assert_int_equal(mcz_writer_append(w, t, v, pres), MCZ_OK);
		}
		mcz_writer_mark(w, t - DT / 2, MCZ_MARK_END, 1, "");
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
}

static vw_model *open_model(const char *path)
{
	vw_model *m;
	char err[256];
	const char *p[1] = {path};
	vw_open_opts o = {0};
	o.quiet = 1;
	assert_int_equal(vw_model_open(&m, p, 1, &o, err, sizeof err), 0);
	return m;
}

static void test_truth(void **st)
{
	char path[96];
	int64_t truth[NPH];
	snprintf(path, sizeof path, "%s/phased.mcz", dir);
	write_phased(path, truth, 0, 0);
	vw_model *m = open_model(path);
	vw_an *an = vw_an_new(m);
	char err[256];
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	const struct vw_phases *ph = an->phases;
	assert_int_equal(vw_phases_count(ph), NPH);
	assert_false(ph->from_cache);
	for (int i = 1; i < NPH; i++) /* every boundary within 2 sampling intervals */
		assert_true(llabs(ph->v[i].t0 - truth[i]) <= 2 * DT);
	/* repeated phases share a class, different ones do not */
	assert_int_equal(ph->v[0].cls, ph->v[2].cls);
	assert_int_equal(ph->v[1].cls, ph->v[3].cls);
	assert_int_not_equal(ph->v[0].cls, ph->v[1].cls);
	assert_int_not_equal(ph->v[4].cls, ph->v[0].cls);
	assert_int_not_equal(ph->v[4].cls, ph->v[1].cls);
	assert_int_equal(ph->nclasses, 3);
	/* figures: bytes over the phase, ratio, IPC; descriptions from them */
	const vw_phase *a = &ph->v[0];
	double dur = (double)(a->t1 - a->t0) * 1e-9;
	assert_true(fabs(a->st.read_bps - 20e9) < 0.02 * 20e9);
	assert_true(fabs(a->st.read_bytes - 20e9 * dur) < 0.03 * 20e9 * dur);
	assert_true(fabs(a->st.rw_ratio - 2.0) < 0.05);
	assert_true(fabs(ph->v[1].st.ipc - 2.0) < 0.05);
	assert_true(isnan(a->st.gpu_w));
	assert_true(strncmp(a->desc, "memory-bound: ", 14) == 0);
	assert_non_null(strstr(a->desc, " GB/s read, 2 reads per write"));
	assert_non_null(strstr(ph->v[1].desc, "compute: IPC 2"));
	assert_string_equal(ph->v[4].desc, "idle");
	/* the marks sit beside the detected boundaries */
	assert_true(ph->v[1].mark_dt <= 2 * DT);
	/* n / p from the cursor, Enter's zoom */
	m->cursor = ph->v[1].t0 + 5 * DT;
	assert_int_equal(vw_phases_step(an, 1), 1);
	assert_int_equal(m->phase_sel, 2);
	assert_int_equal(m->cursor, ph->v[2].t0);
	assert_int_equal(vw_phases_step(an, -1), 1);
	assert_int_equal(m->phase_sel, 1);
	vw_phases_zoom(an, 3);
	assert_true(m->t0 <= ph->v[3].t0 && m->t1 >= ph->v[3].t1);
	assert_true(m->t1 - m->t0 < (ph->v[3].t1 - ph->v[3].t0) * 12 / 10);
	assert_int_equal(vw_phases_find(ph, ph->v[3].t0), 3);
	assert_int_equal(vw_phases_find(ph, ph->v[3].t0 - 1), 2);
	vw_an_free(an);
	vw_model_free(m);

	/* the second open reads the file's cache; other parameters detect again */
	m = open_model(path);
	an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_true(an->phases->from_cache);
	assert_int_equal(vw_phases_count(an->phases), NPH);
	assert_int_equal(an->phases->v[3].t0, ph == NULL ? 0 : an->phases->v[3].t0);
	p.max_phases = 2;
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_false(an->phases->from_cache);
	assert_int_equal(vw_phases_count(an->phases), 2);
	p.max_phases = 0;
	p.penalty = 1.5; /* re-detection on the kept coarse level */
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_int_equal(vw_phases_count(an->phases), NPH);
	/* marks as phases: labels, classes by label */
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_MARKS, err, sizeof err), 0);
	ph = an->phases;
	assert_int_equal(vw_phases_count(ph), NPH);
	assert_string_equal(ph->v[1].label, "gemm");
	assert_int_equal(ph->v[1].t0, truth[1]);
	assert_int_equal(ph->v[0].t0, m->t_min); /* its mark came 5 ms before the first sample */
	assert_int_equal(ph->v[4].t1, m->t_max + 1);
	assert_int_equal(ph->v[0].cls, ph->v[2].cls);
	assert_int_not_equal(ph->v[0].cls, ph->v[4].cls);
	vw_an_free(an);
	vw_model_free(m);
}

static char *report_text(vw_an *an, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(vw_report_print(an, f, json), 0);
	fclose(f);
	return buf;
}

static void test_report_and_view(void **st)
{
	char path[96], err[256];
	int64_t truth[NPH];
	snprintf(path, sizeof path, "%s/report.mcz", dir);
	write_phased(path, truth, 0, 0);
	vw_model *m = open_model(path);
	vw_an *an = vw_an_new(m);
	vw_ctx ctx = {.m = m, .an = an};
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	char *txt = report_text(an, 0);
	/* header, one line per phase, the figures and the missing streams named */
	assert_non_null(strstr(txt, "5 phases, 3 classes (auto: 5 streams, penalty 1)"));
	assert_non_null(strstr(txt, "(no gpu.power, net.rx_bytes in this recording)"));
	assert_non_null(strstr(txt, "class    start duration      read     write   r/w     mem BW   IPC"));
	/* first phase from the first sample (10 ms) to the boundary at 1.505 s */
	assert_non_null(strstr(txt, "\nA           0s   1.495s   29.8 GB   14.9 GB  2.00  29.9 GB/s  0.33 -"));
	/* 120 samples of gemm: 1.2 s, 1 GB/s read, IPC 2, its mark at the boundary */
	assert_non_null(strstr(txt, "\nB       1.495s   1.200s   1.21 GB    599 MB  2.01  1.50 GB/s  2.00 gemm +0ms"));
	assert_non_null(strstr(txt, "C       5.495s   1.295s"));
	free(txt);
	char *js = report_text(an, 1);
	assert_non_null(strstr(js, "\"source\":\"auto\""));
	assert_non_null(strstr(js, "{\"index\":4,\"class\":\"C\""));
	assert_non_null(strstr(js, "\"gpu_W\":null"));
	assert_non_null(strstr(js, "\"description\":\"idle\""));
	free(js);
	/* the view: title, header, the five phases; sorting by duration puts
	 * the longest (the second triad, 1.8 s) first */
	void *state;
	assert_int_equal(view_phases.init(&ctx, &state), 0);
	vw_canvas *c = vw_canvas_new(120, 12);
	view_phases.draw(&ctx, state, c);
	char *scr = vw_canvas_to_text(c);
	assert_non_null(strstr(scr, "5 phases, 3 classes"));
	assert_non_null(strstr(scr, "start\xe2\x96\xbe"));
	assert_non_null(strstr(scr, "memory-bound: 20.0 GB/s read"));
	/* the note on missing streams sits above the header, not between it and its rows */
	assert_true(strstr(scr, "(no gpu.power") < strstr(scr, "class   start"));
	free(scr);
	/* a sub-second time keeps its unit in its column of 8 cells: "625.0ms",
	 * not "625.000ms" cut to "625.000m" */
	int64_t t1 = an->phases->v[1].t1;
	an->phases->v[1].t1 = an->phases->v[1].t0 + 625000000;
	vw_report_table tb;
	vw_report_layout(an, NULL, NULL, 120, &tb);
	int seen = 0;
	for (int k = 0; k < tb.ncols; k++) {
		char cell[64];
		if (tb.col[k] != VW_PCOL_DUR)
			continue;
		vw_report_cell(an, &tb, k, 1, cell, sizeof cell);
		assert_string_equal(cell, "625.0ms");
		assert_true((int)strlen(cell) <= tb.width[k]);
		seen = 1;
	}
	assert_true(seen);
	an->phases->v[1].t1 = t1;
	vw_input in = {.act = VW_ACT_SORT};
	view_phases.key(&ctx, state, &in); /* start -> duration */
	in.act = VW_ACT_DOWN;
	view_phases.key(&ctx, state, &in);
	assert_int_equal(m->phase_sel, 2);
	in.act = VW_ACT_ENTER;
	assert_true(view_phases.key(&ctx, state, &in) & VW_R_REDRAW);
	assert_true(m->t0 <= an->phases->v[2].t0 && m->t1 >= an->phases->v[2].t1);
	assert_int_equal(m->view, 0); /* back to the timeline */
	/* '[' asks for more phases (a lower penalty), as its help line says */
	const char *hl = NULL;
	for (const char *const *h = view_phases.help; *h; h++)
		if (!strncmp(*h, "[ ]", 3))
			hl = *h;
	assert_non_null(hl);
	assert_non_null(strstr(hl, "more / fewer"));
	vw_input br = {.key = '['};
	view_phases.key(&ctx, state, &br);
	assert_true(an->phases->params.penalty < 1);
	view_phases.free(state);
	vw_canvas_free(c);
	vw_an_free(an);
	vw_model_free(m);
}

/* A phase told apart by a group of rows (two CPUs' clocks) is described
 * with the group's value as the timeline reads it out: the mean of its
 * members, 3.00 GHz then 1.00 GHz, not their sum. */
static void test_desc_group_mean(void **st)
{
	(void)st;
	char path[96], err[256];
	snprintf(path, sizeof path, "%s/clock.mcz", dir);
	mcz_writer *w;
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_writer_meta(w, "interval_ns", "10000000");
	const char *inst[3] = {"", "cpu0", "cpu1"};
	uint32_t id;
	for (int i = 0; i < 3; i++) {
		mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
		d.name = i ? "hinv.cpu.clock" : "core.task_clock";
		d.instance = inst[i];
		d.unit = i ? "Hz" : "s";
		d.kind = i ? MCZ_GAUGE : MCZ_COUNTER;
		d.type = i ? MCZ_F64 : MCZ_U64;
		d.scale = i ? 1.0 : 1e-9; /* task clock in ns */
		assert_int_equal(mcz_writer_add_stream(w, &d, &id), MCZ_OK);
	}
	uint64_t busy = 0;
	for (int k = 0; k < 300; k++) {
		int hi = k < 150;
		busy += 5000000; /* half a CPU throughout: only the clocks change */
		mcz_value v[3] = {{.u = busy}, {.f = hi ? 3e9 : 1e9}, {.f = hi ? 3e9 : 1e9}};
		uint8_t pres[3] = {1, 1, 1};
		assert_int_equal(mcz_writer_append(w, DT * (k + 1), v, pres), MCZ_OK);
	}
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	vw_model *m = open_model(path);
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_int_equal(vw_phases_count(an->phases), 2);
	assert_non_null(strstr(an->phases->v[0].desc, "high hinv.cpu.clock (2): 3.00 GHz"));
	assert_non_null(strstr(an->phases->v[1].desc, "low hinv.cpu.clock (2): 1.00 GHz"));
	vw_an_free(an);
	vw_model_free(m);
}

static void *detect_on(void *arg)
{
	char err[256];
	return (void *)(intptr_t)vw_phases_detect(arg, NULL, VW_PHASES_AUTO, err, sizeof err);
}

/* Phases found on a clone, on another thread, while the model's columns
 * are read on this one: the same phases as found on the model, and the
 * model's own once taken (re-detection with another penalty reads the
 * model after the clone is gone; valgrind and ASan watch that). */
static void test_clone_thread_adopt(void **st)
{
	(void)st;
	char path[96], err[256];
	int64_t truth[NPH];
	snprintf(path, sizeof path, "%s/phased-clone.mcz", dir);
	uint64_t seed = rng;
	write_phased(path, truth, 0, 0);
	vw_model *ref = open_model(path);
	vw_an *ran = vw_an_new(ref);
	assert_int_equal(vw_phases_detect(ran, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	unlink(path); /* the same recording, without the phase cache: the thread detects */
	rng = seed;
	write_phased(path, truth, 0, 0);
	vw_model *m = open_model(path), *c;
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_model_clone(m, &c, err, sizeof err), 0);
	assert_int_equal(c->nstreams, m->nstreams);
	assert_int_equal(c->ngroups, m->ngroups);
	vw_an *can = vw_an_new(c);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, detect_on, can), 0);
	vw_bucket b[200];
	double sum = 0;
	for (int k = 0; k < 50; k++) /* the model drawn meanwhile */
		for (size_t r = 0; r < m->nrows; r++)
			if (vw_model_row_buckets(m, r, 200, b) == 0)
				sum += b[k].count;
	void *rc;
	assert_int_equal(pthread_join(th, &rc), 0);
	assert_int_equal((intptr_t)rc, 0);
	assert_true(sum > 0);
	assert_null(an->phases);
	assert_int_equal(vw_phases_adopt(an, can), 0);
	assert_null(can->phases);
	vw_an_free(can);
	vw_model_free(c);
	assert_int_equal(vw_phases_count(an->phases), vw_phases_count(ran->phases));
	for (size_t i = 0; i < vw_phases_count(an->phases); i++) {
		assert_int_equal(an->phases->v[i].t0, ran->phases->v[i].t0);
		assert_int_equal(an->phases->v[i].t1, ran->phases->v[i].t1);
		assert_int_equal(an->phases->v[i].cls, ran->phases->v[i].cls);
		assert_string_equal(an->phases->v[i].desc, ran->phases->v[i].desc);
	}
	/* again with another penalty: the kept detector reads m now */
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	p.penalty = 4;
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_true(vw_phases_count(an->phases) >= 1);
	/* a clone whose rows are not the model's (ranks folded in one) is refused */
	assert_int_equal(vw_model_clone(m, &c, err, sizeof err), 0);
	can = vw_an_new(c);
	assert_int_equal(vw_phases_detect(can, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	c->fold_ranks = !m->fold_ranks;
	assert_int_equal(vw_phases_adopt(an, can), -1);
	assert_non_null(can->phases);
	vw_an_free(can);
	vw_model_free(c);
	/* a reader's clone outlives it */
	mcz_reader *r, *rc2;
	assert_int_equal(mcz_open(&r, path, 0), MCZ_OK);
	assert_int_equal(mcz_reader_clone(r, &rc2), MCZ_OK);
	mcz_close(r);
	assert_int_equal(mcz_stream_count(rc2), 5);
	mcz_series x;
	assert_int_equal(mcz_read(rc2, 0, INT64_MIN, INT64_MAX, &x), MCZ_OK);
	assert_int_equal(x.n, 680);
	mcz_series_free(&x);
	mcz_close(rc2);
	vw_an_free(an);
	vw_model_free(m);
	vw_an_free(ran);
	vw_model_free(ref);
}

/* Degenerate recordings: sensible phases, no crash. */
static void test_degenerate(void **st)
{
	char path[96], err[256];
	snprintf(path, sizeof path, "%s/one.mcz", dir);
	mcz_writer *w;
	uint32_t id;
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = "os.load";
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_writer_add_stream(w, &d, &id);
	mcz_value v = {.f = 2.5};
	mcz_writer_append(w, 1000, &v, NULL);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	vw_model *m = open_model(path);
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_int_equal(vw_phases_count(an->phases), 1);
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_MARKS, err, sizeof err), -1);
	assert_non_null(strstr(err, "no marks"));
	assert_non_null(an->phases); /* the previous phases stay */
	vw_an_free(an);
	vw_model_free(m);

	/* constant streams: one phase, described without a crash */
	snprintf(path, sizeof path, "%s/flat.mcz", dir);
	assert_int_equal(mcz_writer_open(&w, path, NULL), MCZ_OK);
	mcz_writer_add_stream(w, &d, &id);
	for (int i = 1; i <= 500; i++)
		mcz_writer_append(w, i * DT, &v, NULL);
	assert_int_equal(mcz_writer_close(w), MCZ_OK);
	m = open_model(path);
	an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_int_equal(vw_phases_count(an->phases), 1);
	assert_int_equal(an->phases->v[0].t0, m->t_min);
	assert_int_equal(an->phases->v[0].t1, m->t_max + 1);
	vw_an_free(an);
	vw_model_free(m);

	/* NaN every 7th value of a gauge and a gap of 15 samples: the same phases */
	int64_t truth[NPH];
	snprintf(path, sizeof path, "%s/holes.mcz", dir);
	write_phased(path, truth, 7, 1);
	m = open_model(path);
	an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_int_equal(vw_phases_count(an->phases), NPH);
	for (int i = 1; i < NPH; i++)
		assert_true(llabs(an->phases->v[i].t0 - truth[i]) <= 2 * DT);
	vw_an_free(an);
	vw_model_free(m);

	/* a file without its trailer (a recorder still writing it, or killed):
	 * phases detected, the file left untouched (no cache appended) */
	snprintf(path, sizeof path, "%s/cut.mcz", dir);
	write_phased(path, truth, 0, 0);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(truncate(path, sb.st_size - 40), 0);
	m = open_model(path);
	an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, NULL, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_true(vw_phases_count(an->phases) >= NPH - 1);
	vw_an_free(an);
	vw_model_free(m);
	struct stat sa;
	assert_int_equal(stat(path, &sa), 0);
	assert_int_equal(sa.st_size, sb.st_size - 40);
}

/* Readers never write: the phases go to the user's cache folder, named by
 * the file's identity, and come back from it; a phase cache inside a file
 * of an earlier version (an aux block) is still read.  The file's bytes
 * never change. */
static unsigned long file_sum(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned long h = 5381;
	int c;
	assert_non_null(f);
	while ((c = getc(f)) != EOF)
		h = h * 33 + (unsigned long)c;
	fclose(f);
	return h;
}

static void test_cache_outside(void **st)
{
	char path[96], cache[128], err[256], key[256];
	int64_t truth[NPH];
	snprintf(path, sizeof path, "%s/cached.mcz", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	write_phased(path, truth, 0, 0);
	unsigned long sum = file_sum(path);
	vw_phase_params p = VW_PHASE_PARAMS_INIT;
	for (int pass = 0; pass < 2; pass++) {
		vw_model *m = open_model(path);
		vw_an *an = vw_an_new(m);
		assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
		assert_int_equal(an->phases->from_cache, pass);
		assert_int_equal(vw_phases_count(an->phases), NPH);
		vw_an_free(an);
		vw_model_free(m);
		assert_true(file_sum(path) == sum);
	}
	/* an older file's own block: read when the folder has nothing */
	vw_model *m = open_model(path);
	vw_an *an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	vw_phase_cache_key(m, &p, VW_PHASES_AUTO, key, sizeof key);
	unsigned char *buf;
	size_t len;
	assert_int_equal(vw_phase_cache_encode(an->phases, key, &buf, &len), 0);
	vw_an_free(an);
	vw_model_free(m);
	assert_int_equal(mcz_append_aux(path, "phases", buf, len), MCZ_OK);
	free(buf);
	sum = file_sum(path);
	snprintf(cache, sizeof cache, "%s/cache2", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	m = open_model(path);
	an = vw_an_new(m);
	assert_int_equal(vw_phases_detect(an, &p, VW_PHASES_AUTO, err, sizeof err), 0);
	assert_true(an->phases->from_cache);
	assert_int_equal(vw_phases_count(an->phases), NPH);
	vw_an_free(an);
	vw_model_free(m);
	assert_true(file_sum(path) == sum);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	setenv("MCVIEW_PHASE_CACHE", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truth),
		cmocka_unit_test(test_report_and_view),
		cmocka_unit_test(test_clone_thread_adopt),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_desc_group_mean),
		cmocka_unit_test(test_cache_outside), /* last: it draws noise from rng too */
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
