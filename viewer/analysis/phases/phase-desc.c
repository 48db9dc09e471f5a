/* phase-desc.c: what each phase does — its figures (memory traffic, GPU
 * power, network, IPC, CPUs busy) and a short description computed from its
 * dominant signature.
 *
 * Figures come from the streams with the conventional names (summed over
 * instances: sockets, GPUs, interfaces, CPUs): mem.read_bytes,
 * mem.write_bytes, gpu.power, net.rx_bytes, net.tx_bytes, core.instructions,
 * core.cycles, core.task_clock (the command's CPUs busy; else os.cpu.* in
 * percent, the machine's); the work rates of the roofline (flop/s, B/s)
 * from roofline-work.c.  The description ranks the phase's use of each
 * resource against the busiest phase of the run (memory traffic, GPU power,
 * network rate, instructions per second or CPUs busy) and names the
 * highest: "memory-
 * bound: 38 GB/s read, 2.1 reads per write", "GPU busy: 290 W", "network:
 * 11 GB/s rx", "compute: IPC 2.4", or "idle" when no resource reaches a
 * quarter of its peak (a GPU idles at 15-20 %% of its peak power).  A second resource above 70 % of
 * its peak is added after a semicolon.  Where none of these streams exists,
 * the row that sets the phase most apart from the others is named ("high
 * os.page_faults: 1.2 k/s").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fmt.h"
#include "../../model/model.h"
#include "../an.h"
#include "phase.h"
#include "../roofline/roofline.h"
#include "../code/threads.h"

enum { R_MEM, R_GPU, R_NET, R_CPU, R_COUNT };

static void add(double *acc, double v)
{
	if (isnan(v))
		return;
	*acc = isnan(*acc) ? v : *acc + v;
}

void vw_phase_stats_compute(vw_an *an, vw_phase *ph)
{
	vw_model *m = an->m;
	vw_phase_stats *s = &ph->st;
	double ins = NAN, cyc = NAN, busy = NAN, dur = (double)(ph->t1 - ph->t0) * 1e-9;
	s->read_bps = s->write_bps = s->gpu_w = s->net_rx_bps = s->net_tx_bps = s->cpus = NAN;
	for (size_t i = 0; i < m->nstreams; i++) {
		const mcz_stream_desc *d = m->streams[i].desc;
		const char *n = d->name ? d->name : "";
		double *acc = NULL, div = 1;
		if (!strcmp(n, "mem.read_bytes"))
			acc = &s->read_bps;
		else if (!strcmp(n, "mem.write_bytes"))
			acc = &s->write_bps;
		else if (!strcmp(n, "gpu.power"))
			acc = &s->gpu_w;
		else if (!strcmp(n, "net.rx_bytes"))
			acc = &s->net_rx_bps;
		else if (!strcmp(n, "net.tx_bytes"))
			acc = &s->net_tx_bps;
		else if (!strcmp(n, "core.instructions"))
			acc = &ins;
		else if (!strcmp(n, "core.cycles"))
			acc = &cyc;
		else if (!strcmp(n, "core.task_clock") && d->kind == MCZ_COUNTER)
			acc = &s->cpus; /* seconds of CPU per second: CPUs busy */
		else if (!strncmp(n, "os.cpu", 6) && d->unit && !strcmp(d->unit, "%") &&
			 !strstr(n, "idle") && !strstr(n, "wait"))
			acc = &busy, div = 100;
		if (!acc)
			continue;
		vw_bucket b;
		if (vw_model_stream_buckets(m, i, ph->t0, ph->t1, 1, &b) == 0 && b.count)
			add(acc, b.mean / div);
	}
	s->read_bytes = s->read_bps * dur;
	s->write_bytes = s->write_bps * dur;
	s->rw_ratio = s->write_bps > 0 ? s->read_bps / s->write_bps : NAN;
	s->ipc = cyc > 0 ? ins / cyc : NAN;
	s->ins_rate = ins;
	if (isnan(s->cpus))
		s->cpus = busy; /* the machine's, when the command's own is not recorded */
	vw_roof_work_rates(an, ph->t0, ph->t1, &s->flops_ps, &s->bytes_ps, &s->flops_prov,
			   &s->bytes_prov);
}

/* Level of each resource: memory B/s, GPU W, network B/s, IPC (or CPUs). */
static void levels(const vw_phase_stats *s, double *r)
{
	double mem = NAN, net = NAN;
	add(&mem, s->read_bps);
	add(&mem, s->write_bps);
	add(&net, s->net_rx_bps);
	add(&net, s->net_tx_bps);
	r[R_MEM] = mem;
	r[R_GPU] = s->gpu_w;
	r[R_NET] = net;
	r[R_CPU] = !isnan(s->ins_rate) ? s->ins_rate : s->cpus;
}

static int phrase(char *out, size_t len, int res, const vw_phase_stats *s, int lead)
{
	char a[32], b[32];
	switch (res) {
	case R_MEM:
		if (s->write_bps > 0 && s->read_bps > 0)
			return snprintf(out, len, "%s%s read, %.2g reads per write",
					lead ? "memory-bound: " : "memory ",
					vw_fmt_si(a, sizeof a, s->read_bps, "B/s"), s->rw_ratio);
		return snprintf(out, len, "%s%s %s", lead ? "memory-bound: " : "memory ",
				vw_fmt_si(a, sizeof a, isnan(s->read_bps) ? s->write_bps : s->read_bps,
					  "B/s"),
				isnan(s->read_bps) ? "written" : "read");
	case R_GPU:
		return snprintf(out, len, "%s%s", lead ? "GPU busy: " : "GPU ",
				vw_fmt_si(a, sizeof a, s->gpu_w, "W"));
	case R_NET: {
		int rx = !(s->net_tx_bps > s->net_rx_bps);
		return snprintf(out, len, "%s%s %s", lead ? "network: " : "network ",
				vw_fmt_si(b, sizeof b, rx ? s->net_rx_bps : s->net_tx_bps, "B/s"),
				rx ? "rx" : "tx");
	}
	default:
		if (!isnan(s->ipc))
			return snprintf(out, len, "%sIPC %.2g", lead ? "compute: " : "", s->ipc);
		return snprintf(out, len, "%s%.2g CPUs busy", lead ? "compute: " : "", s->cpus);
	}
}

/* Mean level of every group in every phase (NAN: no value, or a group the
 * description skips), rows of n.  Computed once for all phases: per phase
 * it made the description quadratic in phases times every stream's query
 * (minutes on a PCP archive of 8000 streams). */
static double *group_means(vw_model *m, const vw_phase *v, size_t n)
{
	double *mean = malloc((m->ngroups * n + 1) * sizeof *mean);
	if (!mean)
		return NULL;
	/* PCP archives: a phase is told by what the host did (its CPUs,
	 * memory, disks, network: phase-pick.c), where the archive has it,
	 * never by what pmcd says of itself (pmcd.pmlogger.port) */
	int pcp = vw_phase_pick_is_pcp(m), host = 0;
	for (size_t g = 0; pcp && !host && g < m->ngroups; g++)
		host = m->groups[g].nmembers &&
		       vw_phase_pick_host(m->streams[m->groups[g].members[0]].desc->name);
	for (size_t g = 0; g < m->ngroups; g++) {
		const vw_row *r = &m->groups[g];
		const mcz_stream_desc *d = r->nmembers ? m->streams[r->members[0]].desc : NULL;
		int skip = !d || (d->source && !strcmp(d->source, "mark")) ||
			   !strcmp(d->name, "core.task_clock") ||
			   !strncmp(d->name, "os.cpu", 6) || /* CPUs busy: said already */
			   (pcp && vw_phase_pick_metadata(d->name)) ||
			   (host && !vw_phase_pick_host(d->name));
		for (size_t k = 0; k < n; k++) {
			double *x = &mean[g * n + k];
			size_t got = 0;
			*x = NAN;
			for (size_t j = 0; !skip && j < r->nmembers; j++) {
				vw_bucket b;
				if (vw_model_stream_buckets(m, r->members[j], v[k].t0, v[k].t1, 1, &b) == 0 &&
				    b.count)
					add(x, b.mean), got++;
			}
			/* the row's value as the timeline reads it out: the mean of
			 * its members (12 CPU clocks of 3.3 GHz are not 39.4 GHz) */
			if (got)
				*x /= (double)got;
		}
	}
	return mean;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Row whose level sets phase i most apart from the run's other phases
 * (generic fallback): the farthest from the phases' median level, over
 * the row's range.  Against the middle of the range instead, a row that is
 * 0 but in one phase set every other phase apart alike ("low
 * mem.vmstat.pgscan_kswapd_dma32: 0" for 7 of 8 phases of 20180102). */
static int distinct_row(vw_model *m, const double *mean, size_t n, size_t i, char *out, size_t len)
{
	double best = 0, *sorted = malloc((n + 1) * sizeof *sorted);
	int found = 0;
	if (!mean || !sorted) {
		free(sorted);
		return 0;
	}
	for (size_t g = 0; g < m->ngroups; g++, mean += n) {
		const vw_row *r = &m->groups[g];
		size_t k2 = 0;
		for (size_t k = 0; k < n; k++)
			if (!isnan(mean[k]))
				sorted[k2++] = mean[k];
		if (isnan(mean[i]) || k2 < 2)
			continue;
		qsort(sorted, k2, sizeof *sorted, cmp_double);
		double lo = sorted[0], hi = sorted[k2 - 1];
		if (!(hi > lo))
			continue;
		double mid = k2 % 2 ? sorted[k2 / 2] : (sorted[k2 / 2 - 1] + sorted[k2 / 2]) / 2;
		double score = fabs(mean[i] - mid) / (hi - lo);
		if (score > best + 1e-9) {
			char a[32], u[24];
			best = score;
			found = 1;
			vw_model_unit(m, r->members[0], u, sizeof u);
			snprintf(out, len, "%s %s: %s", mean[i] > mid ? "high" : "low", r->label,
				 vw_fmt_si(a, sizeof a, mean[i], u));
		}
	}
	free(sorted);
	return found;
}

void vw_phase_describe(vw_an *an, vw_phase *v, size_t n)
{
	vw_model *m = an->m;
	double peak[R_COUNT] = {0}, lv[R_COUNT];
	double *gm = NULL; /* group_means, when a phase first needs them */
	int any = 0, have_gm = 0;
	for (size_t i = 0; i < n; i++) {
		levels(&v[i].st, lv);
		for (int r = 0; r < R_COUNT; r++)
			if (!isnan(lv[r]) && lv[r] > peak[r])
				peak[r] = lv[r], any = 1;
	}
	for (size_t i = 0; i < n; i++) {
		char *out = v[i].desc;
		size_t len = sizeof v[i].desc;
		levels(&v[i].st, lv);
		/* the highest score leads; within 0.05 of each other, the order
		 * memory, GPU, network, compute decides (repeated phases read alike) */
		int top = -1, second = -1;
		double sc[R_COUNT];
		for (int r = 0; r < R_COUNT; r++) {
			sc[r] = peak[r] > 0 && !isnan(lv[r]) ? lv[r] / peak[r] : -1;
			if (top < 0 || sc[r] > sc[top] + 0.05) {
				second = top;
				top = r;
			} else if (second < 0 || sc[r] > sc[second] + 0.05) {
				second = r;
			}
		}
		out[0] = '\0';
		if (!any) {
			if (!have_gm)
				gm = group_means(m, v, n), have_gm = 1;
			if (!distinct_row(m, gm, n, i, out, len))
				snprintf(out, len, "steady");
			continue;
		}
		int idle_cpu = !isnan(v[i].st.cpus) && v[i].st.cpus < 0.1;
		if (sc[top] < 0.25 || (idle_cpu && (top == R_CPU || sc[top] < 0.3))) {
			snprintf(out, len, "idle");
			continue;
		}
		int w = phrase(out, len, top, &v[i].st, 1);
		if (w <= 0 || (size_t)w + 3 >= len)
			continue;
		memcpy(out + w, "; ", 3);
		if (second >= 0 && sc[second] >= 0.7)
			phrase(out + w + 2, len - (size_t)w - 2, second, &v[i].st, 0);
		else if (top != R_CPU || !isnan(v[i].st.ipc))
			out[w] = '\0';
		else {
			if (!have_gm)
				gm = group_means(m, v, n), have_gm = 1;
			if (!distinct_row(m, gm, n, i, out + w + 2, len - (size_t)w - 2))
				out[w] = '\0'; /* CPUs busy alone says little: add what sets it apart */
		}
	}
	free(gm);
	/* a process whose threads are uneven or wait: that leads, it is what
	 * holds the phase back (a job's ranks are the job report's) */
	for (size_t i = 0; m->nfiles == 1 && i < n; i++) {
		vw_threads th;
		char note[160], rest[sizeof v[i].desc];
		if (vw_threads_of(an, 0, v[i].t0, v[i].t1, &th) || !vw_threads_note(&th, note, sizeof note))
			continue;
		snprintf(rest, sizeof rest, "%s", v[i].desc);
		/* cut to fit, as every description is */
		size_t k = strlen(note);
		k = k < sizeof v[i].desc - 1 ? k : sizeof v[i].desc - 1;
		memcpy(v[i].desc, note, k);
		v[i].desc[k] = '\0';
		if (strcmp(rest, "idle") && rest[0] && k + 2 < sizeof v[i].desc) {
			memcpy(v[i].desc + k, "; ", 3);
			size_t r = strlen(rest), room = sizeof v[i].desc - 1 - (k + 2);
			memcpy(v[i].desc + k + 2, rest, r < room ? r : room);
			v[i].desc[k + 2 + (r < room ? r : room)] = '\0';
		}
	}
}
