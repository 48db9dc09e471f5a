/* sample-kernels.c: the kernels of the sample workloads (see sample-kernels.h), written as
 * in the listings of ../shared/papers/000_ce5670fb1eee487d.txt: the batched,
 * capped GEMV (Listing 2), the batched reference GEMM (Listings 3-4), the
 * S1CF resort loop nests (Listings 5, 7 and the combined 8), S2CF (Listing 9),
 * and two classics with opposite signatures: STREAM triad (bandwidth) and a
 * pointer chase through a random cycle (latency).
 *
 * "Batched" means one independent copy per thread, each with its own data,
 * as in the paper (so no thread reads another's cache lines).  Threads are
 * plain pthreads started per repetition: the OpenMP of the listings is not
 * assumed to be installed, and a repetition lasts milliseconds, so the start
 * cost (tens of microseconds) does not show.
 *
 * The driver reports each repetition's flops and bytes with mcmark_work(), the
 * analytic counts of kernels_expect(), so a recording holds
 * what the roofline needs even on a machine without FP or memory counters.
 */
#include "sample-kernels.h"
#include "../recorder/mcmark.h"

#include <complex.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef double complex cplx;

/* One thread's data. */
struct kernels_part {
	double *a, *b, *c; /* GEMV: A (P x N), x, y; GEMM: A, B, C; triad: a, b, c */
	cplx *in, *tmp, *out; /* S1CF/S2CF */
	size_t *next;      /* chase */
	size_t n1, n2, n3; /* sizes, per kernel */
	size_t pos;        /* chase position */
	double sum;
};

struct kernels_state {
	kernels_id id;
	kernels_opts o;
	struct kernels_part *part;
};

static const struct {
	const char *name, *what;
} kernels_info[KERNELS_COUNT] = {
	[KERNELS_GEMV] = {"gemv", "batched capped GEMV (Listing 2): streams A, read-heavy"},
	[KERNELS_GEMM] = {"gemm", "batched reference GEMM (Listing 4): cache resident, compute bound"},
	[KERNELS_S1CF] = {"s1cf", "3D-FFT resort S1CF (Listings 5+7): contiguous then strided copy"},
	[KERNELS_S1CF_1] = {"s1cf-combined", "S1CF as one loop nest (Listing 8): strided writes"},
	[KERNELS_S2CF] = {"s2cf", "3D-FFT resort S2CF (Listing 9): contiguous copy"},
	[KERNELS_TRIAD] = {"triad", "STREAM triad a = b + s*c: memory bandwidth bound"},
	[KERNELS_CHASE] = {"chase", "pointer chase through a random cycle: memory latency bound"},
	[KERNELS_IDLE] = {"idle", "sleeps: the machine is idle"},
};

const char *kernels_name(kernels_id id)
{
	return id < KERNELS_COUNT ? kernels_info[id].name : "?";
}

const char *kernels_describe(kernels_id id)
{
	return id < KERNELS_COUNT ? kernels_info[id].what : "?";
}

int kernels_lookup(const char *name)
{
	for (int i = 0; i < KERNELS_COUNT; i++)
		if (strcmp(name, kernels_info[i].name) == 0)
			return i;
	return -1;
}

double kernels_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *kernels_alloc(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
		fprintf(stderr, "samples: out of memory (%zu bytes)\n", bytes);
		exit(1);
	}
	memset(p, 0, bytes); /* first touch: pages are resident before timing */
	return p;
}

static void kernels_fill(double *v, size_t n, double base)
{
	for (size_t i = 0; i < n; i++)
		v[i] = base + (double)(i % 1000) * 1e-3;
}

static void kernels_part_init(struct kernels_state *k, struct kernels_part *p, unsigned seed)
{
	size_t bytes = k->o.mem_mib << 20;
	size_t n;

	switch (k->id) {
	case KERNELS_GEMV: /* A capped to P x N, y of M = 4P: y streams out, A streams in */
		p->n2 = 1024;                          /* N */
		p->n1 = bytes / 8 / p->n2;             /* P */
		p->n3 = 4 * p->n1;                     /* M */
		p->a = kernels_alloc(p->n1 * p->n2 * 8);
		p->b = kernels_alloc(p->n2 * 8);
		p->c = kernels_alloc(p->n3 * 8);
		kernels_fill(p->a, p->n1 * p->n2, 0.5);
		kernels_fill(p->b, p->n2, 1.0);
		break;
	case KERNELS_GEMM:
		n = (size_t)k->o.gemm_n;
		p->n1 = n;
		p->a = kernels_alloc(n * n * 8);
		p->b = kernels_alloc(n * n * 8);
		p->c = kernels_alloc(n * n * 8);
		kernels_fill(p->a, n * n, 0.25);
		kernels_fill(p->b, n * n, 0.75);
		break;
	case KERNELS_S1CF:
	case KERNELS_S1CF_1:
	case KERNELS_S2CF:
		n = (size_t)k->o.fft_n;
		p->n1 = n;
		p->in = kernels_alloc(n * n * n * sizeof(cplx));
		p->out = kernels_alloc(n * n * n * sizeof(cplx));
		if (k->id == KERNELS_S1CF)
			p->tmp = kernels_alloc(n * n * n * sizeof(cplx));
		for (size_t i = 0; i < n * n * n; i++)
			p->in[i] = (double)(i % 977) + I * (double)(i % 13);
		break;
	case KERNELS_TRIAD:
		p->n1 = bytes / 3 / 8;
		p->a = kernels_alloc(p->n1 * 8);
		p->b = kernels_alloc(p->n1 * 8);
		p->c = kernels_alloc(p->n1 * 8);
		kernels_fill(p->b, p->n1, 1.0);
		kernels_fill(p->c, p->n1, 2.0);
		break;
	case KERNELS_CHASE: /* Sattolo's shuffle: one cycle through every slot */
		p->n1 = bytes / sizeof(size_t);
		p->next = kernels_alloc(p->n1 * sizeof(size_t));
		for (size_t i = 0; i < p->n1; i++)
			p->next[i] = i;
		for (size_t i = p->n1 - 1; i > 0; i--) {
			seed = seed * 1103515245u + 12345u;
			size_t r = ((size_t)seed << 16 ^ (size_t)(seed >> 8)) % i;
			size_t t = p->next[i];
			p->next[i] = p->next[r];
			p->next[r] = t;
		}
		break;
	default:
		break;
	}
}

/* Listing 2, one thread's GEMV: y[i] = A[i % P] . x */
static void kernels_gemv(struct kernels_part *p)
{
	size_t P = p->n1, N = p->n2, M = p->n3;
	for (size_t i = 0; i < M; i++) {
		const double *row = p->a + (i % P) * N;
		double sum = 0.0;
		for (size_t k = 0; k < N; k++)
			sum += row[k] * p->b[k];
		p->c[i] = sum;
	}
	p->sum += p->c[M - 1];
}

/* Listing 3/4: C = A B, reference triple loop. */
static void kernels_gemm(struct kernels_part *p)
{
	size_t N = p->n1;
	for (size_t i = 0; i < N; i++)
		for (size_t j = 0; j < N; j++) {
			double sum = 0.0;
			for (size_t k = 0; k < N; k++)
				sum += p->a[i * N + k] * p->b[k * N + j];
			p->c[i * N + j] = sum;
		}
	p->sum += p->c[N * N - 1];
}

/* Listings 5 and 7: in -> tmp (contiguous), tmp -> out (strided reads). */
static void kernels_s1cf(struct kernels_part *p)
{
	size_t PL = p->n1, R = p->n1, C = p->n1;
	for (size_t plane = 0; plane < PL; plane++)
		for (size_t row = 0; row < R; row++)
			for (size_t col = 0; col < C; col++)
				p->tmp[(plane * R + row) * C + col] = p->in[plane * R * C + row * C + col];
	for (size_t col = 0; col < C; col++)
		for (size_t plane = 0; plane < PL; plane++)
			for (size_t row = 0; row < R; row++)
				p->out[col * PL * R + plane * R + row] = p->tmp[(plane * R + row) * C + col];
	p->sum += creal(p->out[PL * R * C - 1]);
}

/* Listing 8: one loop nest, contiguous reads, strided writes. */
static void kernels_s1cf_combined(struct kernels_part *p)
{
	size_t PL = p->n1, R = p->n1, C = p->n1;
	for (size_t plane = 0; plane < PL; plane++)
		for (size_t row = 0; row < R; row++)
			for (size_t col = 0; col < C; col++)
				p->out[col * PL * R + plane * R + row] = p->in[plane * R * C + row * C + col];
	p->sum += creal(p->out[0]);
}

/* Listing 9: contiguous copy in -> out (Y x PLANES x X x ROWS traversed
 * with the innermost dimension matching: effectively sequential). */
static void kernels_s2cf(struct kernels_part *p)
{
	size_t n = p->n1 * p->n1 * p->n1;
	for (size_t i = 0; i < n; i++)
		p->out[i] = p->in[i];
	p->sum += creal(p->out[n / 2]);
}

static void kernels_triad(struct kernels_part *p)
{
	const double s = 3.0;
	for (size_t i = 0; i < p->n1; i++)
		p->a[i] = p->b[i] + s * p->c[i];
	p->sum += p->a[p->n1 / 3];
}

enum { KERNELS_CHASE_HOPS = 1 << 18 };

static void kernels_chase(struct kernels_part *p)
{
	size_t at = p->pos;
	for (int i = 0; i < KERNELS_CHASE_HOPS; i++)
		at = p->next[at];
	p->pos = at;
	p->sum += (double)at;
}

static void kernels_idle(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

struct kernels_job {
	struct kernels_state *k;
	struct kernels_part *p;
};

static void *kernels_run_part(void *arg)
{
	struct kernels_job *j = arg;
	switch (j->k->id) {
	case KERNELS_GEMV: kernels_gemv(j->p); break;
	case KERNELS_GEMM: kernels_gemm(j->p); break;
	case KERNELS_S1CF: kernels_s1cf(j->p); break;
	case KERNELS_S1CF_1: kernels_s1cf_combined(j->p); break;
	case KERNELS_S2CF: kernels_s2cf(j->p); break;
	case KERNELS_TRIAD: kernels_triad(j->p); break;
	case KERNELS_CHASE: kernels_chase(j->p); break;
	default: kernels_idle(); break;
	}
	return NULL;
}

kernels_state *kernels_new(kernels_id id, const kernels_opts *o)
{
	struct kernels_state *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->id = id;
	k->o = o ? *o : (kernels_opts)KERNELS_OPTS_INIT;
	if (k->o.threads < 1)
		k->o.threads = 1;
	k->part = calloc((size_t)k->o.threads, sizeof *k->part);
	if (!k->part) {
		free(k);
		return NULL;
	}
	for (int t = 0; t < k->o.threads; t++)
		kernels_part_init(k, &k->part[t], 12345u + 7919u * (unsigned)t);
	return k;
}

double kernels_step(kernels_state *k)
{
	int nt = k->id == KERNELS_IDLE ? 1 : k->o.threads;
	struct kernels_job job[64];
	pthread_t tid[64];
	if (nt > 64)
		nt = 64;
	for (int t = 0; t < nt; t++)
		job[t] = (struct kernels_job){k, &k->part[t]};
	for (int t = 1; t < nt; t++)
		if (pthread_create(&tid[t], NULL, kernels_run_part, &job[t]) != 0)
			kernels_run_part(&job[t]), tid[t] = 0;
	kernels_run_part(&job[0]);
	for (int t = 1; t < nt; t++)
		if (tid[t])
			pthread_join(tid[t], NULL);
	double s = 0;
	for (int t = 0; t < k->o.threads; t++)
		s += k->part[t].sum;
	return s;
}

void kernels_expect(const kernels_state *k, double *bytes, double *flops)
{
	const struct kernels_part *p = &k->part[0];
	double nt = k->o.threads, b = 0, f = 0, n3 = (double)p->n1 * p->n1 * p->n1;
	switch (k->id) {
	case KERNELS_GEMV: /* reads M*N + M + N elements, writes M (paper, section II.A) */
		b = 8.0 * ((double)p->n3 * p->n2 + p->n3 + p->n2 + p->n3);
		f = 2.0 * p->n3 * p->n2;
		break;
	case KERNELS_GEMM: /* 3 N^2 read, N^2 written when resident */
		b = 8.0 * 4 * p->n1 * p->n1;
		f = 2.0 * n3;
		break;
	case KERNELS_S1CF: b = 16.0 * n3 * 4; break; /* two copies, read + write each */
	case KERNELS_S1CF_1:
	case KERNELS_S2CF: b = 16.0 * n3 * 2; break;
	case KERNELS_TRIAD: b = 8.0 * 3 * p->n1; f = 2.0 * p->n1; break;
	case KERNELS_CHASE: b = 64.0 * KERNELS_CHASE_HOPS; break; /* one line per hop */
	default: break;
	}
	*bytes = b * (k->id == KERNELS_IDLE ? 0 : nt);
	*flops = f * nt;
}

void kernels_free(kernels_state *k)
{
	if (!k)
		return;
	for (int t = 0; t < k->o.threads; t++) {
		struct kernels_part *p = &k->part[t];
		free(p->a), free(p->b), free(p->c);
		free(p->in), free(p->tmp), free(p->out), free(p->next);
	}
	free(k->part);
	free(k);
}

/* ---- the shared command line ---------------------------------------------- */

enum { KERNELS_MAX_PHASES = 64 };

struct kernels_phase {
	int id;
	double seconds;
	double steps; /* NAME*STEPS: a fixed amount of work (0: by duration) */
};

static int kernels_parse_phases(const char *list, struct kernels_phase *ph, int *n)
{
	char buf[1024];
	if (strlen(list) >= sizeof buf) {
		fprintf(stderr, "phase list too long\n");
		return -1;
	}
	strcpy(buf, list);
	*n = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		double sec = 1.5, steps = 0;
		char *colon = strchr(tok, ':'), *star = strchr(tok, '*');
		if (star && !colon) {
			char *end;
			*star = '\0';
			errno = 0;
			steps = strtod(star + 1, &end);
			if (errno || end == star + 1 || *end || !(steps >= 1) || steps > 1e9) {
				fprintf(stderr, "bad phase repetitions '%s' (a number >= 1)\n", star + 1);
				return -1;
			}
		} else if (colon) {
			char *end;
			*colon = '\0';
			errno = 0;
			sec = strtod(colon + 1, &end);
			if (errno || end == colon + 1 || *end || !(sec > 0) || sec > 1e6) {
				fprintf(stderr, "bad phase duration '%s' (seconds > 0)\n", colon + 1);
				return -1;
			}
		}
		int id = kernels_lookup(tok);
		if (id < 0) {
			fprintf(stderr, "unknown kernel '%s' (see --list)\n", tok);
			return -1;
		}
		if (*n == KERNELS_MAX_PHASES) {
			fprintf(stderr, "more than %d phases\n", KERNELS_MAX_PHASES);
			return -1;
		}
		ph[(*n)++] = (struct kernels_phase){id, sec, steps};
	}
	if (*n == 0) {
		fprintf(stderr, "empty phase list\n");
		return -1;
	}
	return 0;
}

static int kernels_posnum(const char *opt, const char *arg, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > max) {
		fprintf(stderr, "%s: bad value '%s' (a number > 0, at most %g)\n", opt, arg, max);
		return -1;
	}
	*out = v;
	return 0;
}

static void kernels_usage(FILE *f, const char *prog, const char *what, const char *phases)
{
	fprintf(f,
		"usage: %s [options]\n"
		"%s\n"
		"Each phase is a region marked with mcmark.h (visible under mcrec).\n\n"
		"  --phases LIST   kernels to run in order, NAME[:SECONDS] or NAME*STEPS,...\n"
		"                  (default %s; a phase lasts 1.5 s unless given;\n"
		"                  NAME*STEPS runs STEPS repetitions: a fixed amount of work)\n"
		"  --scale S       multiply every phase duration by S (default 1)\n"
		"  --steps N       run each phase for N repetitions instead of a duration\n"
		"                  (a fixed amount of work, for overhead measurements)\n"
		"  --work K:F      give phase K (1 = first) F times the work: its duration, or\n"
		"                  its repetitions with --steps (e.g. 3:1.3 = 30 %% more)\n"
		"  --no-marks      send no marks and no work counts (the run as an unmarked\n"
		"                  program); with them, each repetition reports its flops and\n"
		"                  bytes through mcmark_work (app.flops, app.bytes)\n"
		"  --threads N     independent copies per kernel, one per thread (default 1)\n"
		"  --mem MIB       working set per thread of streaming kernels (default 64)\n"
		"  --gemm-n N      GEMM order (default 96)   --fft-n N  resort N (default 96)\n"
		"  --list          list the kernels\n"
		"  -q, --quiet     print nothing\n"
		"  -h, --help      this help\n",
		prog, what, phases);
}

int kernels_main(int argc, char **argv, const char *prog, const char *what, const char *phases)
{
	static const struct option lo[] = {
		{"phases", required_argument, 0, 'p'}, {"scale", required_argument, 0, 's'},
		{"threads", required_argument, 0, 't'}, {"mem", required_argument, 0, 'm'},
		{"gemm-n", required_argument, 0, 'G'}, {"fft-n", required_argument, 0, 'F'},
		{"steps", required_argument, 0, 'n'}, {"work", required_argument, 0, 'w'},
		{"no-marks", no_argument, 0, 'M'},
		{"list", no_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	kernels_opts o = KERNELS_OPTS_INIT;
	struct kernels_phase ph[KERNELS_MAX_PHASES];
	double scale = 1.0, v, fixed_steps = 0;
	int nph = 0, quiet = 0, marks = 1, c;
	const char *list = phases;
	struct { int k; double f; } work[KERNELS_MAX_PHASES];
	int nwork = 0;

	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		switch (c) {
		case 'p': list = optarg; break;
		case 's': if (kernels_posnum("--scale", optarg, 1e4, &scale)) return 2; break;
		case 't': if (kernels_posnum("--threads", optarg, 64, &v)) return 2; o.threads = (int)v; break;
		case 'm': if (kernels_posnum("--mem", optarg, 1 << 16, &v)) return 2; o.mem_mib = (size_t)v; break;
		case 'G': if (kernels_posnum("--gemm-n", optarg, 4096, &v)) return 2; o.gemm_n = (int)v; break;
		case 'F': if (kernels_posnum("--fft-n", optarg, 1024, &v)) return 2; o.fft_n = (int)v; break;
		case 'n': if (kernels_posnum("--steps", optarg, 1e9, &fixed_steps)) return 2; break;
		case 'w': {
			int k, n = 0;
			double f;
			if (sscanf(optarg, "%d:%lf%n", &k, &f, &n) != 2 || optarg[n] || k < 1 ||
			    k > KERNELS_MAX_PHASES || !(f > 0 && f <= 1e4) || nwork == KERNELS_MAX_PHASES) {
				fprintf(stderr, "--work: want K:F (phase K >= 1, factor > 0), not '%s'\n",
					optarg);
				return 2;
			}
			work[nwork].k = k, work[nwork++].f = f;
			break;
		}
		case 'M': marks = 0; break;
		case 'l':
			for (int i = 0; i < KERNELS_COUNT; i++)
				printf("%-14s %s\n", kernels_name(i), kernels_describe(i));
			return 0;
		case 'q': quiet = 1; break;
		case 'h': kernels_usage(stdout, prog, what, phases); return 0;
		default: kernels_usage(stderr, prog, what, phases); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, argv[optind]);
		return 2;
	}
	if (kernels_parse_phases(list, ph, &nph))
		return 2;
	double factor[KERNELS_MAX_PHASES];
	for (int i = 0; i < nph; i++)
		factor[i] = 1.0;
	for (int i = 0; i < nwork; i++) {
		if (work[i].k > nph) {
			fprintf(stderr, "--work: phase %d of %d\n", work[i].k, nph);
			return 2;
		}
		factor[work[i].k - 1] *= work[i].f;
	}

	/* Allocate and touch everything first, so phases hold only the kernels. */
	kernels_state *ks[KERNELS_COUNT] = {0};
	for (int i = 0; i < nph; i++)
		if (!ks[ph[i].id] && !(ks[ph[i].id] = kernels_new(ph[i].id, &o))) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
	if (marks)
		mcmark(prog);
	double t_start = kernels_now(), check = 0;
	if (!quiet)
		printf("%-6s %-14s %8s %8s %7s %10s %10s\n", "phase", "kernel", "start_s", "end_s",
		       "steps", "GB/s", "GFLOP/s");
	for (int i = 0; i < nph; i++) {
		kernels_state *k = ks[ph[i].id];
		double t0 = kernels_now(), t1 = t0, dur = ph[i].seconds * scale * factor[i];
		double fixed = ph[i].steps > 0 ? ph[i].steps : fixed_steps;
		long steps = 0, nsteps = (long)(fixed * factor[i] + 0.5);
		if (fixed > 0 && nsteps < 1)
			nsteps = 1;
		if (marks)
			mcmark_begin(kernels_name(ph[i].id));
		double b, f;
		kernels_expect(k, &b, &f);
		do {
			check += kernels_step(k);
			steps++;
			if (marks && (f > 0 || b > 0))
				mcmark_work(f, b); /* this repetition's, as the paper counts it */
			t1 = kernels_now();
		} while (fixed > 0 ? steps < nsteps : t1 - t0 < dur);
		if (marks)
			mcmark_end();
		if (!quiet)
			printf("%-6d %-14s %8.3f %8.3f %7ld %10.2f %10.2f\n", i + 1, kernels_name(ph[i].id),
			       t0 - t_start, t1 - t_start, steps, b * steps / (t1 - t0) * 1e-9,
			       f * steps / (t1 - t0) * 1e-9);
	}
	if (!quiet)
		printf("# checksum %g\n", check);
	for (int i = 0; i < KERNELS_COUNT; i++)
		kernels_free(ks[i]);
	return 0;
}
