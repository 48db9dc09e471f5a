/* threads.c: the threads of one process over a span, from the code
 * samples of each (threads.h).  A thread counts when it has at least
 * VW_THREADS_MIN of the busiest thread's samples: a runtime's helper
 * thread that woke a few times (an MPI progress thread, a timer) is not
 * one of the team, and its near-zero useful time would halve the mean. */
#include "threads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeclass.h"
#include "hotcode.h"

/* Share of the busiest thread's samples a thread needs to count. */
#define VW_THREADS_MIN 0.02

/* Thread indexes of the profile code by pid, main thread, tid (qsort_r:
 * phase detection calls this on its own thread too). */
static int thr_cmp(const void *a, const void *b, void *code)
{
	const mcz_code_thread *th = ((const mcz_code *)code)->threads;
	const mcz_code_thread *x = &th[*(const size_t *)a], *y = &th[*(const size_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	int xm = x->tid != x->pid, ym = y->tid != y->pid;
	if (xm != ym)
		return xm - ym;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* POP's figures from the useful times (umax: the busiest thread's) */
static void thr_figures(vw_threads *out, double umax)
{
	if (out->n > 1 && umax > 0)
		out->load_balance = out->useful_sum_s / (double)out->n / umax;
	if (out->span_s > 0) {
		double ce = umax / out->span_s;
		out->comm_eff = ce < 1 ? ce : 1;
		if (!isnan(out->load_balance))
			out->par_eff = out->load_balance * out->comm_eff;
	}
}

int vw_threads_of(vw_an *an, size_t file, int64_t t0, int64_t t1, vw_threads *out)
{
	vw_model *m = an->m;
	memset(out, 0, sizeof *out);
	out->load_balance = out->comm_eff = out->par_eff = out->sync_share = NAN;
	double per = vw_hotcode_file_period(m, file);
	uint64_t *n = calloc(VW_THREADS_MAX * VW_CC_N, sizeof *n);
	size_t nt = n && per > 0 ? vw_hotcode_file_threads(an, file, t0, t1, n, VW_THREADS_MAX) : 0;
	if (!nt) {
		free(n);
		return -1;
	}
	uint64_t most = 0, all = 0, sync = 0;
	for (size_t t = 0; t < nt; t++) {
		uint64_t s = 0;
		for (int k = 0; k < VW_CC_N; k++)
			s += n[t * VW_CC_N + k];
		most = s > most ? s : most;
	}
	out->span_s = (double)(t1 - t0) / 1e9;
	/* numbered as people number them: each process's main thread (tid =
	 * pid) first, then by thread id, the order they were made in */
	const mcz_code *code = vw_model_code_at(m, file, NULL);
	size_t ord[VW_THREADS_MAX];
	for (size_t t = 0; t < nt; t++)
		ord[t] = t;
	if (code && code->nthreads >= nt)
		qsort_r(ord, nt, sizeof *ord, thr_cmp, (void *)code);
	double umax = 0, umin = INFINITY;
	for (size_t o = 0; o < nt; o++) {
		size_t t = ord[o];
		const uint64_t *c = &n[t * VW_CC_N];
		uint64_t s = c[VW_CC_WORK] + c[VW_CC_MPI] + c[VW_CC_SYNC];
		if (!s || (double)s < VW_THREADS_MIN * (double)most)
			continue;
		size_t i = out->n++;
		out->useful_s[i] = (double)c[VW_CC_WORK] * per;
		out->sync_s[i] = (double)c[VW_CC_SYNC] * per;
		out->mpi_s[i] = (double)c[VW_CC_MPI] * per;
		double on = out->useful_s[i] + out->sync_s[i] + out->mpi_s[i];
		out->off_s[i] = out->span_s > on ? out->span_s - on : 0;
		out->off_sum_s += out->off_s[i];
		out->useful_sum_s += out->useful_s[i];
		out->sync_sum_s += out->sync_s[i];
		out->mpi_sum_s += out->mpi_s[i];
		all += s;
		sync += c[VW_CC_SYNC];
		if (out->useful_s[i] > umax)
			umax = out->useful_s[i], out->busiest = i;
		if (out->useful_s[i] < umin)
			umin = out->useful_s[i], out->idlest = i;
	}
	free(n);
	if (!out->n)
		return -1;
	out->sync_share = all ? (double)sync / (double)all : NAN;
	thr_figures(out, umax);
	return 0;
}

/* "a b c" into v[0..max): the count, 0 when any is not a number >= 0 */
static size_t thr_list(const char *s, double *v, size_t max)
{
	size_t n = 0;
	while (s && *s && n < max) {
		char *end;
		double x = strtod(s, &end);
		if (end == s || !(x >= 0 && x < 1e9))
			return 0;
		v[n++] = x;
		s = end + strspn(end, " ");
	}
	return n;
}

int vw_threads_ompt(vw_model *m, size_t file, vw_threads *out)
{
	memset(out, 0, sizeof *out);
	out->load_balance = out->comm_eff = out->par_eff = out->sync_share = NAN;
	if (file >= m->nfiles)
		return -1;
	mcz_reader *r = m->files[file];
	const char *span = mcz_meta(r, "ompt.span_s");
	size_t n = thr_list(mcz_meta(r, "ompt.useful_s"), out->useful_s, VW_THREADS_MAX);
	if (!span || !n || thr_list(mcz_meta(r, "ompt.sync_s"), out->sync_s, VW_THREADS_MAX) != n)
		return -1;
	out->n = n;
	out->span_s = strtod(span, NULL);
	double umax = 0, umin = INFINITY;
	for (size_t i = 0; i < n; i++) {
		out->useful_sum_s += out->useful_s[i];
		out->sync_sum_s += out->sync_s[i];
		if (out->useful_s[i] > umax)
			umax = out->useful_s[i], out->busiest = i;
		if (out->useful_s[i] < umin)
			umin = out->useful_s[i], out->idlest = i;
	}
	double all = out->useful_sum_s + out->sync_sum_s;
	out->sync_share = all > 0 ? out->sync_sum_s / all : NAN;
	thr_figures(out, umax);
	return 0;
}

size_t vw_threads_note(const vw_threads *th, char *buf, size_t len)
{
	buf[0] = '\0';
	if (th->n < 2 || isnan(th->load_balance))
		return 0;
	int uneven = th->load_balance < 0.95, waits = th->sync_share >= 0.05;
	if (!uneven && !waits)
		return 0;
	int k = 0;
	if (uneven && th->useful_s[th->idlest] > 0)
		k = snprintf(buf, len, "OpenMP, %zu threads: thread %zu does %.1fx the work of thread %zu",
			     th->n, th->busiest, th->useful_s[th->busiest] / th->useful_s[th->idlest],
			     th->idlest);
	else
		k = snprintf(buf, len, "OpenMP, %zu threads: load balance %.2f", th->n, th->load_balance);
	if (k > 0 && (size_t)k < len && waits)
		k += snprintf(buf + k, len - (size_t)k, "; %.0f %% waiting at barriers",
			      100 * th->sync_share);
	return k > 0 ? (size_t)k : 0;
}
