/* wait-row.c: the timeline's "MPI %" rows ("sync %" where only an OpenMP
 * runtime waited, "wait %" where both did) — for the files of a job whose
 * ranks wait in MPI (or in an OpenMP runtime), the share of the code
 * samples spent waiting there in each column (codeclass.h), as a
 * sparkline from 0 to 100 %, with the share at the cursor in the readout.
 * One row for the job's ranks on one host; a row per host (as the Ranks
 * view's L groups them) for a job on 2 to VW_WAIT_ROWS hosts, so that a
 * node whose ranks wait while the others compute stands out; one row for
 * all beyond that.  Work that turns into waiting shows at a glance where
 * the ranks' code rows all read "dgemm_" or all read "opal_progress".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

int vw_wait_row_wanted(vw_an *an)
{
	vw_model *m = an->m;
	uint64_t n[VW_CC_N];
	if (!vw_hotcode_has(an))
		return 0;
	uint64_t all = vw_hotcode_file_classes(an, SIZE_MAX, m->t_min, m->t_max + 1, n);
	return all && (double)(n[VW_CC_MPI] + n[VW_CC_SYNC]) >= 0.01 * (double)all;
}

const char *vw_wait_row_label(vw_an *an)
{
	vw_model *m = an->m;
	uint64_t n[VW_CC_N];
	if (!vw_hotcode_has(an) ||
	    !vw_hotcode_file_classes(an, SIZE_MAX, m->t_min, m->t_max + 1, n))
		return "MPI";
	/* what the waiting is: MPI where only MPI ran, sync where only a
	 * thread runtime (OpenMP) waited, wait where both did */
	return !n[VW_CC_SYNC] ? "MPI" : !n[VW_CC_MPI] ? "sync" : "wait";
}

/* Each file's host group (the index of the first file of its host), and
 * the groups' count, worked out once per set of files: the timeline asks
 * at every redraw, and comparing every file's host with every earlier
 * one's was most of a 1,024-rank job's frame.  Views draw on one thread. */
static struct {
	const vw_model *m;
	const void *f0;
	size_t nfiles, *first;
	size_t heads[VW_WAIT_ROWS + 1]; /* each group's first file, by host name */
	int ngroups;
} wait_hosts;

static const size_t *wait_host_groups(vw_model *m)
{
	if (wait_hosts.m == m && wait_hosts.nfiles == m->nfiles &&
	    wait_hosts.f0 == (m->nfiles ? (const void *)m->files[0] : NULL))
		return wait_hosts.first;
	free(wait_hosts.first);
	wait_hosts.m = NULL;
	wait_hosts.ngroups = 0;
	size_t *first = malloc((m->nfiles + 1) * sizeof *first), heads[VW_WAIT_ROWS + 1];
	if (!(wait_hosts.first = first))
		return NULL;
	int nh = 0; /* past VW_WAIT_ROWS hosts the job has one row: groups no longer matter */
	for (size_t f = 0; f < m->nfiles; f++) {
		const char *h = vw_model_file_host(m, f);
		int k = 0;
		while (k < nh && k <= VW_WAIT_ROWS && strcmp(vw_model_file_host(m, heads[k]), h))
			k++;
		if (k == nh && nh <= VW_WAIT_ROWS)
			heads[nh++] = f;
		first[f] = k < nh ? heads[k] : f;
	}
	/* the rows in the order of their hosts' names, node2 before node10
	 * (the files come in the shell's order, node000 node003 node001...) */
	for (int i = 1; i < nh; i++)
		for (int j = i; j > 0 && strverscmp(vw_model_file_host(m, heads[j - 1]),
						    vw_model_file_host(m, heads[j])) > 0; j--) {
			size_t t = heads[j];
			heads[j] = heads[j - 1];
			heads[j - 1] = t;
		}
	memcpy(wait_hosts.heads, heads, (size_t)nh * sizeof *heads);
	wait_hosts.m = m;
	wait_hosts.f0 = m->nfiles ? (const void *)m->files[0] : NULL;
	wait_hosts.nfiles = m->nfiles;
	wait_hosts.ngroups = nh;
	return first;
}

int vw_wait_rows(vw_model *m)
{
	int n = wait_host_groups(m) ? wait_hosts.ngroups : 0;
	return n >= 2 && n <= VW_WAIT_ROWS ? n : 1;
}

/* The first file of host group g (groups in the order of their hosts'
 * names); SIZE_MAX for the job's one row (g < 0: the whole job). */
static size_t wait_group_file(vw_model *m, int g)
{
	const size_t *first = wait_host_groups(m);
	if (g < 0 || !first || vw_wait_rows(m) < 2 || g >= wait_hosts.ngroups)
		return SIZE_MAX;
	return wait_hosts.heads[g];
}

const char *vw_wait_row_host(vw_model *m, int g)
{
	size_t f = wait_group_file(m, g);
	return f == SIZE_MAX ? "" : vw_model_file_host(m, f);
}

/* The waiting share (%) of row g over [t0, t1) in nb buckets; NaN where no
 * sample. */
static int wait_row_shares(vw_an *an, int g, int64_t t0, int64_t t1, size_t nb, vw_bucket *b)
{
	vw_model *m = an->m;
	size_t first = wait_group_file(m, g);
	uint32_t *cnt = malloc(nb * VW_CC_N * sizeof *cnt), *one = NULL;
	int rc = -1;
	if (!cnt)
		goto out;
	if (first == SIZE_MAX) {
		if (vw_hotcode_file_class_columns(an, SIZE_MAX, t0, t1, nb, cnt))
			goto out;
	} else { /* the host's ranks, summed */
		memset(cnt, 0, nb * VW_CC_N * sizeof *cnt);
		if (!(one = malloc(nb * VW_CC_N * sizeof *one)))
			goto out;
		const size_t *grp = wait_host_groups(m);
		for (size_t f = first; grp && f < m->nfiles; f++) {
			if (grp[f] != first)
				continue;
			/* a file not walked for this window yet waits for the next
			 * frame once the budget is spent (the row sharpens) */
			if (nb > 1 && !vw_hotcode_file_class_kept(an, f, t0, t1, nb) &&
			    vw_model_budget_spent(m)) {
				m->refining = 1;
				continue;
			}
			if (!vw_hotcode_file_class_columns(an, f, t0, t1, nb, one))
				for (size_t k = 0; k < nb * VW_CC_N; k++)
					cnt[k] += one[k];
		}
	}
	for (size_t k = 0; k < nb; k++) {
		const uint32_t *q = cnt + k * VW_CC_N;
		double all = (double)q[0] + q[1] + q[2];
		double v = all > 0 ? 100 * (double)(q[VW_CC_MPI] + q[VW_CC_SYNC]) / all : NAN;
		b[k] = (vw_bucket){v, v, v, all > 0};
	}
	rc = 0;
out:
	free(cnt);
	free(one);
	return rc;
}

int vw_wait_row_draw(vw_canvas *c, vw_an *an, int g, int x, int y, int w)
{
	vw_model *m = an->m;
	size_t nb = vw_spark_buckets(c, w);
	vw_bucket *b = malloc((nb ? nb : 1) * sizeof *b);
	if (!b || w <= 0 || wait_row_shares(an, g, m->t0, m->t1, nb, b)) {
		free(b);
		return -1;
	}
	vw_spark_draw(c, x, y, w, 1, b, nb, 0, 100, VW_C_SERIES0 + 5);
	free(b);
	return 0;
}

int vw_wait_row_at(vw_an *an, int g, int64_t t, char *buf, size_t len)
{
	int64_t iv = vw_hotcode_interval(an);
	vw_bucket b;
	buf[0] = '\0';
	if (iv <= 0 || iv > 1000000000000LL ||
	    wait_row_shares(an, g, t - iv / 2, t + iv - iv / 2, 1, &b) || !b.count)
		return -1;
	snprintf(buf, len, "%.0f%%", b.mean);
	return 0;
}
