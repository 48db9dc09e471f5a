/* report.c: the phase table as text — cells for the phases view, and
 * `mcview --report` (an aligned text table, or JSON with --report=json) for
 * scripts and CI.
 *
 * A column appears when at least one phase has a value for it, so a
 * recording without memory counters shows no empty bandwidth column; a line
 * names the conventional streams that were missing instead.  Numbers use the
 * viewer's SI formatting ("12.3 GB/s"); JSON gives plain numbers in base
 * units (bytes, B/s, W, s) and null where there is no value.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fmt.h"
#include "../code/codelabel.h"
#include "../code/hotcode.h"
#include "../jobs/job.h"
#include "../code/waitowner.h"
#include "../../model/model.h"
#include "../an.h"
#include "phase.h"
#include "kernels.h"
#include "../code/threads.h"
#include "report.h"
#include "../roofline/roofline.h"

static const struct {
	const char *head, *json;
	int width, right, prio; /* prio: dropped first when the screen is narrow (high first) */
} report_cols[VW_PCOL_COUNT] = {
	[VW_PCOL_CLASS] = {"class", "class", 5, 0, 0},
	[VW_PCOL_START] = {"start", "start_s", 8, 1, 0},
	[VW_PCOL_DUR] = {"duration", "duration_s", 8, 1, 0},
	[VW_PCOL_READ] = {"read", "read_bytes", 9, 1, 3},
	[VW_PCOL_WRITE] = {"write", "write_bytes", 9, 1, 3},
	[VW_PCOL_RATIO] = {"r/w", "reads_per_write", 5, 1, 4},
	[VW_PCOL_BW] = {"mem BW", "mem_bandwidth_Bps", 10, 1, 1},
	[VW_PCOL_GPU] = {"GPU", "gpu_W", 8, 1, 1},
	[VW_PCOL_NET] = {"network", "net_Bps", 10, 1, 1},
	[VW_PCOL_IPC] = {"IPC", "ipc", 5, 1, 2},
	[VW_PCOL_CPUS] = {"CPUs", "cpus_busy", 5, 1, 2},
	[VW_PCOL_FPB] = {"flop/B", "intensity_fpb", 6, 1, 2},
	[VW_PCOL_GFLOPS] = {"GFLOP/s", "gflops", 7, 1, 2},
	[VW_PCOL_ROOF] = {"%roof", "pct_of_attainable", 5, 1, 3},
	[VW_PCOL_BOUND] = {"bound", "bound", 7, 0, 3},
	[VW_PCOL_EXTRA] = {"", "extra_mean", 10, 1, 2},
	[VW_PCOL_CODE] = {"code", "code", 30, 0, 4},
	[VW_PCOL_MARK] = {"mark", "mark", 20, 0, 5},
	[VW_PCOL_DESC] = {"description", "description", 0, 0, 0},
};

static double sum2(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a + b;
}

static void report_roof(vw_model *m, const vw_phase *p, vw_roof_point *pt)
{
	vw_roof_ceil c;
	vw_roof_ceilings(m, &c);
	vw_roof_place(&c, &p->st, pt);
}

static double report_value(vw_an *an, size_t i, int col, const double *extra)
{
	vw_model *m = an->m;
	const vw_phase *p = vw_phases_at(an->phases, i);
	if (!p)
		return NAN;
	const vw_phase_stats *s = &p->st;
	vw_roof_point pt;
	if (col >= VW_PCOL_FPB && col <= VW_PCOL_BOUND)
		report_roof(m, p, &pt);
	switch (col) {
	case VW_PCOL_FPB: return pt.intensity;
	case VW_PCOL_GFLOPS: return pt.gflops;
	case VW_PCOL_ROOF: return pt.pct;
	case VW_PCOL_BOUND: return pt.bound ? pt.bound : NAN;
	case VW_PCOL_CLASS: return p->cls;
	case VW_PCOL_START: return (double)(p->t0 - m->t_min) * 1e-9;
	case VW_PCOL_DUR: return (double)(p->t1 - p->t0) * 1e-9;
	case VW_PCOL_READ: return s->read_bytes;
	case VW_PCOL_WRITE: return s->write_bytes;
	case VW_PCOL_RATIO: return s->rw_ratio;
	case VW_PCOL_BW: return sum2(s->read_bps, s->write_bps);
	case VW_PCOL_GPU: return s->gpu_w;
	case VW_PCOL_NET: return sum2(s->net_rx_bps, s->net_tx_bps);
	case VW_PCOL_IPC: return s->ipc;
	case VW_PCOL_CPUS: return s->cpus;
	case VW_PCOL_EXTRA: return extra ? extra[i] : NAN;
	case VW_PCOL_CODE: {
		vw_hot h;
		return vw_hotcode_top(an, p->t0, p->t1, &h, 1, NULL) ? h.share : NAN;
	}
	default: return NAN;
	}
}

double vw_report_sortval(vw_an *an, int i, int col, const double *extra)
{
	return report_value(an, (size_t)i, col, extra);
}

static int report_has(vw_an *an, int col, int has_extra)
{
	vw_model *m = an->m;
	size_t n = vw_phases_count(an->phases);
	if (col == VW_PCOL_MARK)
		return m->nmarks > 0;
	if (col == VW_PCOL_EXTRA)
		return has_extra;
	if (col == VW_PCOL_CODE)
		return vw_hotcode_has(an);
	if (col <= VW_PCOL_DUR || col == VW_PCOL_DESC)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!isnan(report_value(an, i, col, NULL)))
			return 1;
	return 0;
}

int vw_report_next_col(vw_an *an, int col, int has_extra)
{
	for (int k = 1; k <= VW_PCOL_COUNT; k++) {
		int c = (col + k) % VW_PCOL_COUNT;
		if (c != VW_PCOL_MARK && c != VW_PCOL_DESC &&
		    report_has(an, c, has_extra))
			return c;
	}
	return VW_PCOL_START;
}

/* Does the dataset hold a stream of this name? */
static int report_stream(const vw_model *m, const char *name)
{
	for (size_t i = 0; i < m->nstreams; i++)
		if (m->streams[i].desc->name && !strcmp(m->streams[i].desc->name, name))
			return 1;
	return 0;
}

void vw_report_layout(vw_an *an, const char *extra_name, const double *extra, int width,
		      vw_report_table *t)
{
	vw_model *m = an->m;
	memset(t, 0, sizeof *t);
	t->extra = extra;
	snprintf(t->extra_name, sizeof t->extra_name, "%s", extra_name ? extra_name : "");
	int shown[VW_PCOL_COUNT] = {0};
	for (int c = 0; c < VW_PCOL_COUNT; c++)
		shown[c] = report_has(an, c, extra != NULL);
	static const char *const names[] = {"mem.read_bytes", "mem.write_bytes", "gpu.power",
					    "net.rx_bytes", "core.instructions"};
	static const int cols[] = {VW_PCOL_READ, VW_PCOL_WRITE, VW_PCOL_GPU, VW_PCOL_NET,
				   VW_PCOL_IPC};
	size_t at = 0;
	for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
		if (!shown[cols[k]] && !report_stream(m, names[k]) && at < sizeof t->missing) {
			int w = snprintf(t->missing + at, sizeof t->missing - at, "%s%s",
					 at ? ", " : "(no ", names[k]);
			at += w > 0 ? (size_t)w : 0;
		}
	if (at && at < sizeof t->missing)
		snprintf(t->missing + at, sizeof t->missing - at, " in this recording)");
	vw_report_roof_line(an, t->roof, sizeof t->roof);
	/* narrow screen: drop the least wanted columns until the description has 16 cells */
	for (int prio = 5; width > 0 && prio > 0; prio--) {
		int used = 0;
		for (int c = 0; c < VW_PCOL_DESC; c++)
			used += shown[c] ? report_cols[c].width + 1 : 0;
		if (width - used >= 16)
			break;
		for (int c = 0; c < VW_PCOL_DESC; c++)
			if (report_cols[c].prio == prio)
				shown[c] = 0;
	}
	int used = 0;
	for (int c = 0; c < VW_PCOL_COUNT; c++) {
		if (!shown[c])
			continue;
		int k = t->ncols++;
		t->col[k] = c;
		t->right[k] = report_cols[c].right;
		t->width[k] = report_cols[c].width;
		if (c == VW_PCOL_EXTRA) {
			int w = (int)strlen(t->extra_name);
			t->width[k] = w > 10 ? (w < 24 ? w : 24) : 10;
		}
		if (c == VW_PCOL_DESC)
			t->width[k] = width > 0 ? (width - used > 0 ? width - used : 0) : 0;
		used += t->width[k] + 1;
	}
}

void vw_report_roof_line(vw_an *an, char *buf, size_t len)
{
	vw_model *m = an->m;
	vw_roof_ceil c;
	char work[200], a[32], b[32];
	vw_roof_ceilings(m, &c);
	vw_roof_work_missing(an, work, sizeof work);
	const char *fp = NULL, *bp = NULL;
	for (size_t i = 0; i < vw_phases_count(an->phases) && !(fp && bp); i++) {
		const vw_phase_stats *s = &vw_phases_at(an->phases, i)->st;
		fp = fp ? fp : s->flops_prov;
		bp = bp ? bp : s->bytes_prov;
	}
	int n;
	if (c.known)
		n = snprintf(buf, len, "roofline: ceilings %s (triad, all cores), %s (%s FMA, all cores), "
				       "measured by mcrec --calibrate %s",
			     vw_fmt_si(a, sizeof a, c.bw, "B/s"), vw_fmt_si(b, sizeof b, c.flops, "FLOP/s"),
			     c.simd[0] ? c.simd : "?", c.when);
	else
		n = snprintf(buf, len, "roofline: %s (attainable and bound unknown)", c.why);
	size_t at = n > 0 ? (size_t)n : 0;
	if (at < len && work[0])
		n = snprintf(buf + at, len - at, "; %s", work);
	else if (at < len)
		n = snprintf(buf + at, len - at, "; flops from %s, bytes from %s", fp ? fp : "-",
			     bp ? bp : "-");
}

const char *vw_report_head(const vw_report_table *t, int k)
{
	return t->col[k] == VW_PCOL_EXTRA ? t->extra_name : report_cols[t->col[k]].head;
}

static void report_mark(vw_an *an, size_t i, char *buf, size_t len)
{
	vw_model *m = an->m;
	const vw_phase *p = &an->phases->v[i];
	if (an->phases->source == VW_PHASES_MARKS) {
		snprintf(buf, len, "%s", p->label[0] ? p->label : "-");
		return;
	}
	const vw_mark *k = NULL; /* the first named mark inside the phase */
	for (size_t j = 0; p->mark_dt != INT64_MAX && j < m->nmarks && !k; j++)
		if (m->marks[j].t - p->t0 == p->mark_dt && m->marks[j].text[0])
			k = &m->marks[j];
	if (!k) {
		snprintf(buf, len, "-");
		return;
	}
	char d[32];
	int64_t dt = k->t - p->t0;
	if (llabs(dt) < 1000000000)
		snprintf(d, sizeof d, "%+.0fms", (double)dt * 1e-6);
	else
		vw_fmt_time(d + 1, sizeof d - 1, llabs(dt), 0), d[0] = dt < 0 ? '-' : '+';
	snprintf(buf, len, "%s %s", k->text, d);
}

static void json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.17g", v);
}

/* "stream_kernel 97% main 3%": the phase's hottest functions; "-" none. */
static void report_code(vw_an *an, const vw_phase *p, char *buf, size_t len)
{
	vw_hot h[2];
	uint64_t total;
	size_t n = vw_hotcode_top(an, p->t0, p->t1, h, 2, &total), at = 0;
	buf[0] = '\0';
	/* a phase where code ran less than 5 % of one thread's time is idle:
	 * its few samples (at its edges) would name a function wrongly */
	if (n && vw_hotcode_threads(an, p->t0, p->t1) < 0.05) {
		snprintf(buf, len, "- (%llu samples)", (unsigned long long)total);
		return;
	}
	for (size_t k = 0; k < n && at < len; k++) {
		if (k && h[k].share < 0.05)
			break;
		int w = snprintf(buf + at, len - at, "%s%s %.0f%%", k ? " " : "",
				 vw_hotcode_brief(an, h[k].fn), 100 * h[k].share);
		at += w > 0 ? (size_t)w : 0;
	}
	if (!n)
		snprintf(buf, len, "-");
}

/* Each phase's "code": its top functions, by share (an empty list
 * without samples). */
static void report_json_code(vw_an *an, const vw_phase *p, FILE *f)
{
	vw_hot h[5];
	size_t n = vw_hotcode_top(an, p->t0, p->t1, h, 5, NULL);
	fputs(",\"code\":[", f);
	for (size_t k = 0; k < n; k++) {
		fputs(k ? ",{\"function\":" : "{\"function\":", f);
		vw_fmt_json_str(f, vw_hotcode_name(an, h[k].fn));
		fputs(",\"share\":", f);
		json_num(f, h[k].share);
		fputs(",\"samples\":", f);
		fprintf(f, "%" PRIu64, h[k].samples);
		fputs(",\"file\":", f);
		vw_fmt_json_str(f, h[k].file);
		fprintf(f, ",\"line\":%u,\"brief\":", h[k].line);
		vw_fmt_json_str(f, vw_hotcode_brief(an, h[k].fn));
		fputc('}', f);
	}
	fputc(']', f);
}

/* A time that fits its column: "475.000ms" (9 cells) would lose its unit
 * in a column of 8, so coarser steps are tried until it fits ("475.0ms"). */
static void report_time(char *buf, size_t len, int64_t ns, int width)
{
	static const int64_t steps[] = {0, 100000, 1000000, 100000000, 1000000000};
	for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
		if ((int)strlen(vw_fmt_time(buf, len, ns, steps[k])) <= width)
			return;
}

/* A phase's description; of a parallel job's phase, what the job analysis
 * found leads it ("balance 0.73, slowest r0, MPI 33%"): that, not the
 * network rate, is what holds a job's phase back. */
static void report_desc(vw_an *an, const vw_phase *p, char *buf, size_t len)
{
	vw_model *m = an->m;
	char err[160];
	const vw_job *j = NULL;
	if (vw_model_is_job(m) && vw_jobs_ensure(an, err, sizeof err) == 0 && an->jobs &&
	    an->jobs->n)
		j = &an->jobs->v[0];
	int k = j ? vw_job_phase_at(j, p->t0 + (p->t1 - p->t0) / 2) : -1;
	if (k < 0 || isnan(j->ph[k].load_balance)) {
		snprintf(buf, len, "%s", p->desc);
		return;
	}
	const vw_job_phase *q = &j->ph[k];
	int n = snprintf(buf, len, "balance %.2f, slowest r%d", q->load_balance, q->slowest_rank);
	double dur = (double)(q->t1 - q->t0) / 1e9;
	if (n > 0 && (size_t)n < len && !isnan(q->mpi_mean_s) && dur > 0)
		n += snprintf(buf + n, len - (size_t)n, ", MPI %.0f%% of the time",
			      100 * q->mpi_mean_s / dur);
	if (n > 0 && (size_t)n < len && p->desc[0] && strcmp(p->desc, "steady"))
		snprintf(buf + n, len - (size_t)n, "; %s", p->desc);
}

void vw_report_cell(vw_an *an, const vw_report_table *t, int k, size_t i, char *buf, size_t len)
{
	vw_model *m = an->m;
	const vw_phase *p = vw_phases_at(an->phases, i);
	int col = t->col[k];
	double v = report_value(an, i, col, t->extra);
	char u[24];
	buf[0] = '\0';
	if (!p)
		return;
	switch (col) {
	case VW_PCOL_CLASS: vw_phase_class_name(p->cls, buf, len); break;
	case VW_PCOL_START: report_time(buf, len, p->t0 - m->t_min, t->width[k]); break;
	case VW_PCOL_DUR: report_time(buf, len, p->t1 - p->t0, t->width[k]); break;
	case VW_PCOL_READ:
	case VW_PCOL_WRITE: vw_fmt_si(buf, len, v, "B"); break;
	case VW_PCOL_BW:
	case VW_PCOL_NET: vw_fmt_si(buf, len, v, "B/s"); break;
	case VW_PCOL_GPU: vw_fmt_si(buf, len, v, "W"); break;
	case VW_PCOL_RATIO:
	case VW_PCOL_IPC:
	case VW_PCOL_CPUS: snprintf(buf, len, isnan(v) ? "-" : "%.2f", v); break;
	case VW_PCOL_FPB:
	case VW_PCOL_GFLOPS: snprintf(buf, len, isnan(v) ? "-" : v >= 100 ? "%.0f" : "%.3g", v); break;
	case VW_PCOL_ROOF: snprintf(buf, len, isnan(v) ? "-" : "%.0f%%", v); break;
	case VW_PCOL_BOUND: {
		const char *b = isnan(v) ? NULL : vw_roof_bound_name((int)v);
		snprintf(buf, len, "%s", b ? b : "-");
		break;
	}
	case VW_PCOL_EXTRA: {
		size_t g = 0; /* unit of the extra row: its first member's */
		while (g < m->ngroups && strcmp(m->groups[g].label, t->extra_name))
			g++;
		if (g < m->ngroups && m->groups[g].nmembers)
			vw_model_unit(m, m->groups[g].members[0], u, sizeof u);
		else
			u[0] = '\0';
		vw_fmt_si(buf, len, v, u);
		break;
	}
	case VW_PCOL_CODE: report_code(an, p, buf, len); break;
	case VW_PCOL_MARK: report_mark(an, i, buf, len); break;
	case VW_PCOL_DESC: report_desc(an, p, buf, len); break;
	default: break;
	}
}

void vw_report_title(vw_an *an, char *buf, size_t len)
{
	const struct vw_phases *ph = an->phases;
	if (!ph) {
		snprintf(buf, len, "no phases");
		return;
	}
	const char *ps = ph->n == 1 ? "" : "s", *cs = ph->nclasses == 1 ? "" : "es";
	if (ph->source == VW_PHASES_MARKS)
		snprintf(buf, len, "%zu phase%s, %d class%s (from marks)", ph->n, ps, ph->nclasses, cs);
	else
		snprintf(buf, len, "%zu phase%s, %d class%s (auto: %zu stream%s, penalty %.3g%s%s)",
			 ph->n, ps, ph->nclasses, cs, ph->nused, ph->nused == 1 ? "" : "s",
			 ph->params.penalty,
			 ph->params.level ? ", every step" : "", ph->from_cache ? ", cached" : "");
}

/* ,"key":value — a number (null for NaN), a string (null for NULL). */
static void json_kv_num(FILE *f, const char *key, double v)
{
	fprintf(f, ",\"%s\":", key);
	json_num(f, v);
}

static void json_kv_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	if (s)
		vw_fmt_json_str(f, s);
	else
		fputs("null", f);
}

/* ,"threads":{...} of the one file's threads over [t0, t1) (null when its
 * profile is not split by thread): each thread's useful, sync and MPI
 * seconds and the OpenMP figures of threads.h. */
static void report_json_thread_figures(const vw_threads *th, const char *key, const char *source,
				       FILE *f)
{
	fprintf(f, ",\"%s\":{\"source\":\"%s\",\"n\":%zu", key, source, th->n);
	json_kv_num(f, "load_balance", th->load_balance);
	json_kv_num(f, "comm_eff", th->comm_eff);
	json_kv_num(f, "par_eff", th->par_eff);
	json_kv_num(f, "sync_share", th->sync_share);
	const double *col[4] = {th->useful_s, th->sync_s, th->mpi_s, th->off_s};
	const char *name[4] = {"useful_s", "sync_s", "mpi_s", "off_cpu_s"};
	for (int k = 0; k < 4; k++) {
		fprintf(f, ",\"%s\":[", name[k]);
		for (size_t i = 0; i < th->n; i++) {
			fputs(i ? "," : "", f);
			json_num(f, col[k][i]);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

static void report_json_threads(vw_an *an, int64_t t0, int64_t t1, FILE *f)
{
	vw_model *m = an->m;
	vw_threads th;
	if (m->nfiles != 1 || vw_threads_of(an, 0, t0, t1, &th))
		fputs(",\"threads\":null", f);
	else
		report_json_thread_figures(&th, "threads", "samples", f);
}

/* ,"threads_ompt":{...}: the whole run's, exact, from OMPT (null without) */
static void report_json_threads_ompt(vw_model *m, FILE *f)
{
	vw_threads th;
	if (m->nfiles != 1 || vw_threads_ompt(m, 0, &th))
		fputs(",\"threads_ompt\":null", f);
	else
		report_json_thread_figures(&th, "threads_ompt", "ompt", f);
}

/* ,"kernels":[{"label":..,"share":..,"seconds":..}]: a Kokkos program's
 * kernels over the run, the longest first (null without) */
static void report_json_kernels(vw_model *m, FILE *f)
{
	vw_kernel_top top[VW_KERNELS_MAX];
	size_t n = vw_kernels_top(m, m->t_min, m->t_max + 1, top, VW_KERNELS_MAX);
	if (!n) {
		fputs(",\"kernels\":null", f);
		return;
	}
	fputs(",\"kernels\":[", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"label\":" : "{\"label\":", f);
		vw_fmt_json_str(f, top[i].label);
		json_kv_num(f, "share", top[i].share);
		json_kv_num(f, "seconds", (double)top[i].ns * 1e-9);
		fputc('}', f);
	}
	fputc(']', f);
}

static void report_json(vw_an *an, FILE *f)
{
	vw_model *m = an->m;
	const struct vw_phases *ph = an->phases;
	fputs("{\"files\":[", f);
	for (size_t i = 0; i < m->nfiles; i++) {
		fputs(i ? "," : "", f);
		vw_fmt_json_str(f, m->paths[i]);
	}
	fprintf(f, "],\"source\":\"%s\",\"penalty\":", ph->source == VW_PHASES_MARKS ? "marks" : "auto");
	json_num(f, ph->params.penalty);
	fprintf(f, ",\"min_len_s\":");
	json_num(f, (double)ph->params.min_len * 1e-9);
	fprintf(f, ",\"level\":\"%s\"", ph->params.level ? "fine" : "coarse");
	fprintf(f, ",\"classes\":%d,\"streams_used\":", ph->nclasses);
	vw_fmt_json_str(f, ph->used);
	vw_roof_ceil rc;
	char rl[400];
	vw_roof_ceilings(m, &rc);
	vw_report_roof_line(an, rl, sizeof rl);
	fputs(",\"roofline\":{\"bw_Bps\":", f);
	json_num(f, rc.bw);
	json_kv_num(f, "bw_read_Bps", rc.bw_read);
	json_kv_num(f, "peak_flops", rc.flops);
	json_kv_num(f, "peak_flops_scalar", rc.flops_scalar);
	json_kv_num(f, "ridge_fpb", vw_roof_ridge(&rc));
	json_kv_str(f, "simd", rc.simd);
	json_kv_str(f, "method", rc.method);
	json_kv_str(f, "calibrated", rc.when);
	json_kv_str(f, "text", rl);
	char hint[600] = "";
	vw_codelabel_hint(m, hint, sizeof hint);
	fputs("},\"code_hint\":", f);
	vw_fmt_json_str(f, hint);
	fputs(",\"phases\":[", f);
	vw_report_table t;
	vw_report_layout(an, NULL, NULL, 0, &t);
	for (size_t i = 0; i < ph->n; i++) {
		const vw_phase *p = &ph->v[i];
		char cls[8], mk[96];
		fprintf(f, "%s\n{\"index\":%zu,\"class\":\"%s\",\"start_s\":", i ? "," : "", i,
			vw_phase_class_name(p->cls, cls, sizeof cls));
		json_num(f, (double)(p->t0 - m->t_min) * 1e-9);
		fputs(",\"end_s\":", f);
		json_num(f, (double)(p->t1 - m->t_min) * 1e-9);
		for (int c = VW_PCOL_DUR; c <= VW_PCOL_ROOF; c++) {
			fprintf(f, ",\"%s\":", report_cols[c].json);
			json_num(f, report_value(an, i, c, NULL));
		}
		vw_roof_point pt;
		report_roof(m, p, &pt);
		json_kv_num(f, "attainable_gflops", pt.attainable);
		json_kv_str(f, "bound", vw_roof_bound_name(pt.bound));
		json_kv_str(f, "flops_source", pt.flops_prov);
		json_kv_str(f, "bytes_source", pt.bytes_prov);
		json_kv_str(f, "roofline_note", pt.why);
		json_kv_num(f, "net_rx_Bps", p->st.net_rx_bps);
		json_kv_num(f, "net_tx_Bps", p->st.net_tx_bps);
		fputs(",\"boundary_strength\":", f);
		json_num(f, p->gain);
		report_mark(an, i, mk, sizeof mk);
		fputs(",\"mark\":", f);
		vw_fmt_json_str(f, mk);
		fputs(",\"description\":", f);
		vw_fmt_json_str(f, p->desc);
		report_json_code(an, p, f);
		report_json_threads(an, p->t0, p->t1, f);
		vw_wait_report_json(an, NULL, SIZE_MAX, p->t0, p->t1, f); /* with call stacks */
		fputc('}', f);
	}
	fputs("\n]", f);
	report_json_threads(an, m->t_min, m->t_max + 1, f);
	report_json_threads_ompt(m, f);
	report_json_kernels(m, f);
	vw_wait_report_json(an, NULL, SIZE_MAX, INT64_MIN, INT64_MAX, f); /* every sample */
	fputs("}\n", f);
}

/* Why a phase's roofline figures are missing, where it is not the reason
 * the "# roofline:" line gives for all: "# roofline: no FP operations
 * counted in this phase: phases 1, 6, 7". */
static void report_roof_notes(vw_an *an, FILE *f)
{
	vw_model *m = an->m;
	vw_roof_ceil c;
	vw_roof_ceilings(m, &c);
	size_t n = vw_phases_count(an->phases);
	char *seen = calloc(n ? n : 1, 1);
	if (!seen)
		return;
	for (size_t i = 0; i < n; i++) {
		vw_roof_point pi;
		vw_roof_place(&c, &vw_phases_at(an->phases, i)->st, &pi);
		if (seen[i] || !pi.why[0] || !strcmp(pi.why, c.why) || !strncmp(pi.why, "no FP operation counts", 22) ||
		    !strncmp(pi.why, "no memory byte counts", 21))
			continue; /* none, or said for the whole recording */
		char list[256];
		int at = snprintf(list, sizeof list, "%zu", i + 1), more = 0;
		for (size_t j = i + 1; j < n; j++) {
			vw_roof_point pj;
			vw_roof_place(&c, &vw_phases_at(an->phases, j)->st, &pj);
			if (strcmp(pj.why, pi.why))
				continue;
			seen[j] = 1, more = 1;
			if (at > 0 && (size_t)at < sizeof list)
				at += snprintf(list + at, sizeof list - (size_t)at, ", %zu", j + 1);
		}
		fprintf(f, "# roofline: %s: phase%s %s\n", vw_fmt_safe(pi.why), more ? "s" : "", list);
	}
	free(seen);
}

int vw_report_print(vw_an *an, FILE *f, int json)
{
	vw_model *m = an->m;
	if (!an->phases)
		return -1;
	if (json) {
		report_json(an, f);
		return ferror(f) ? -1 : 0;
	}
	char title[256], cell[160];
	vw_report_title(an, title, sizeof title);
	if (m->nfiles > 1)
		fprintf(f, "# %s and %zu more file%s: %s\n", vw_fmt_safe(m->paths[0]), m->nfiles - 1,
			m->nfiles > 2 ? "s" : "", title);
	else
		fprintf(f, "# %s: %s\n", m->nfiles ? vw_fmt_safe(m->paths[0]) : "", title);
	if (an->phases->source == VW_PHASES_AUTO) {
		const char *basis = vw_phase_pick_basis(m, an->phases);
		if (basis)
			fprintf(f, "# streams chosen: %s\n", basis);
		fprintf(f, "# streams: %s\n",
			an->phases->used[0] ? vw_fmt_safe(an->phases->used) : "(none)");
	}
	vw_report_table t;
	vw_report_layout(an, NULL, NULL, 0, &t);
	if (t.missing[0])
		fprintf(f, "# %s\n", vw_fmt_safe(t.missing));
	if (t.roof[0])
		fprintf(f, "# %s\n", vw_fmt_safe(t.roof));
	char hint[600];
	if (vw_codelabel_hint(m, hint, sizeof hint))
		fprintf(f, "# %s\n", vw_fmt_safe(hint));
	vw_threads th;
	if (m->nfiles == 1 && vw_threads_of(an, 0, m->t_min, m->t_max + 1, &th) == 0 && th.n > 1)
	{
		char mpi[48] = ""; /* said only where MPI ran */
		if (th.mpi_sum_s > 0)
			snprintf(mpi, sizeof mpi, ", MPI %.3f s", th.mpi_sum_s);
		fprintf(f, "# threads: %zu; OpenMP parallel efficiency %.2f = load balance %.2f x "
			"communication %.2f; useful %.3f s, sync %.3f s (%.0f %% of the samples)%s, "
			"off CPU %.3f s, summed over the threads\n",
			th.n, th.par_eff, th.load_balance, th.comm_eff, th.useful_sum_s, th.sync_sum_s,
			100 * th.sync_share, mpi, th.off_sum_s);
	}
	vw_threads ot;
	if (m->nfiles == 1 && vw_threads_ompt(m, 0, &ot) == 0 && ot.n > 1)
		fprintf(f, "# threads by OMPT (exact, the runtime's callbacks; the figures above and "
			"per phase are from code samples): %zu; load balance %.2f, communication %.2f; "
			"useful %.3f s, sync %.3f s (%.0f %% of their time), summed over the threads\n",
			ot.n, ot.load_balance, ot.comm_eff, ot.useful_sum_s, ot.sync_sum_s,
			100 * ot.sync_share);
	/* no screen to fit: each column as wide as its widest cell, so a mark
	 * longer than its column does not push the next one out of line */
	for (int k = 0; k + 1 < t.ncols; k++)
		for (size_t i = 0; i < an->phases->n; i++) {
			vw_report_cell(an, &t, k, i, cell, sizeof cell);
			int w = (int)strlen(vw_fmt_safe(cell));
			t.width[k] = w > t.width[k] ? w : t.width[k];
		}
	for (int k = 0; k < t.ncols; k++)
		fprintf(f, "%s%*s", k ? " " : "", t.right[k] ? t.width[k] : -t.width[k],
			vw_report_head(&t, k));
	fputc('\n', f);
	for (size_t i = 0; i < an->phases->n; i++) {
		for (int k = 0; k < t.ncols; k++) {
			vw_report_cell(an, &t, k, i, cell, sizeof cell);
			fprintf(f, "%s%*s", k ? " " : "", t.right[k] ? t.width[k] : -t.width[k],
				vw_fmt_safe(cell));
		}
		fputc('\n', f);
	}
	report_roof_notes(an, f);
	/* where the waiting comes from (with call stacks): the run, then the
	 * phases where a class waits for 1 % of the samples or more */
	if (vw_wait_report_text(an, NULL, INT64_MIN, INT64_MAX, 0, "# waiting, the whole run", f))
		for (size_t i = 0; i < an->phases->n; i++) {
			char pre[48];
			snprintf(pre, sizeof pre, "# waiting in phase %zu", i + 1);
			vw_wait_report_text(an, NULL, an->phases->v[i].t0, an->phases->v[i].t1, 0.01, pre, f);
		}
	return ferror(f) ? -1 : 0;
}
