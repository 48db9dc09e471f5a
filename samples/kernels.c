/* kernels.c: the kernels of the sample workloads (see kernels.h), written as
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
 */
#include "kernels.h"
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
struct kern_part {
	double *a, *b, *c; /* GEMV: A (P x N), x, y; GEMM: A, B, C; triad: a, b, c */
	cplx *in, *tmp, *out; /* S1CF/S2CF */
	size_t *next;      /* chase */
	size_t n1, n2, n3; /* sizes, per kernel */
	size_t pos;        /* chase position */
	double sum;
};

struct kern_state {
	kern_id id;
	kern_opts o;
	struct kern_part *part;
};

static const struct {
	const char *name, *what;
} kern_info[KERN_COUNT] = {
	[KERN_GEMV] = {"gemv", "batched capped GEMV (Listing 2): streams A, read-heavy"},
	[KERN_GEMM] = {"gemm", "batched reference GEMM (Listing 4): cache resident, compute bound"},
	[KERN_S1CF] = {"s1cf", "3D-FFT resort S1CF (Listings 5+7): contiguous then strided copy"},
	[KERN_S1CF_1] = {"s1cf-combined", "S1CF as one loop nest (Listing 8): strided writes"},
	[KERN_S2CF] = {"s2cf", "3D-FFT resort S2CF (Listing 9): contiguous copy"},
	[KERN_TRIAD] = {"triad", "STREAM triad a = b + s*c: memory bandwidth bound"},
	[KERN_CHASE] = {"chase", "pointer chase through a random cycle: memory latency bound"},
	[KERN_IDLE] = {"idle", "sleeps: the machine is idle"},
};

const char *kern_name(kern_id id)
{
	return id < KERN_COUNT ? kern_info[id].name : "?";
}

const char *kern_describe(kern_id id)
{
	return id < KERN_COUNT ? kern_info[id].what : "?";
}

int kern_lookup(const char *name)
{
	for (int i = 0; i < KERN_COUNT; i++)
		if (strcmp(name, kern_info[i].name) == 0)
			return i;
	return -1;
}

double kern_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *kern_alloc(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
		fprintf(stderr, "samples: out of memory (%zu bytes)\n", bytes);
		exit(1);
	}
	memset(p, 0, bytes); /* first touch: pages are resident before timing */
	return p;
}

static void kern_fill(double *v, size_t n, double base)
{
	for (size_t i = 0; i < n; i++)
		v[i] = base + (double)(i % 1000) * 1e-3;
}

static void kern_part_init(struct kern_state *k, struct kern_part *p, unsigned seed)
{
	size_t bytes = k->o.mem_mib << 20;
	size_t n;

	switch (k->id) {
	case KERN_GEMV: /* A capped to P x N, y of M = 4P: y streams out, A streams in */
		p->n2 = 1024;                          /* N */
		p->n1 = bytes / 8 / p->n2;             /* P */
		p->n3 = 4 * p->n1;                     /* M */
		p->a = kern_alloc(p->n1 * p->n2 * 8);
		p->b = kern_alloc(p->n2 * 8);
		p->c = kern_alloc(p->n3 * 8);
		kern_fill(p->a, p->n1 * p->n2, 0.5);
		kern_fill(p->b, p->n2, 1.0);
		break;
	case KERN_GEMM:
		n = (size_t)k->o.gemm_n;
		p->n1 = n;
		p->a = kern_alloc(n * n * 8);
		p->b = kern_alloc(n * n * 8);
		p->c = kern_alloc(n * n * 8);
		kern_fill(p->a, n * n, 0.25);
		kern_fill(p->b, n * n, 0.75);
		break;
	case KERN_S1CF:
	case KERN_S1CF_1:
	case KERN_S2CF:
		n = (size_t)k->o.fft_n;
		p->n1 = n;
		p->in = kern_alloc(n * n * n * sizeof(cplx));
		p->out = kern_alloc(n * n * n * sizeof(cplx));
		if (k->id == KERN_S1CF)
			p->tmp = kern_alloc(n * n * n * sizeof(cplx));
		for (size_t i = 0; i < n * n * n; i++)
			p->in[i] = (double)(i % 977) + I * (double)(i % 13);
		break;
	case KERN_TRIAD:
		p->n1 = bytes / 3 / 8;
		p->a = kern_alloc(p->n1 * 8);
		p->b = kern_alloc(p->n1 * 8);
		p->c = kern_alloc(p->n1 * 8);
		kern_fill(p->b, p->n1, 1.0);
		kern_fill(p->c, p->n1, 2.0);
		break;
	case KERN_CHASE: /* Sattolo's shuffle: one cycle through every slot */
		p->n1 = bytes / sizeof(size_t);
		p->next = kern_alloc(p->n1 * sizeof(size_t));
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
static void kern_gemv(struct kern_part *p)
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
static void kern_gemm(struct kern_part *p)
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
static void kern_s1cf(struct kern_part *p)
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
static void kern_s1cf_combined(struct kern_part *p)
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
static void kern_s2cf(struct kern_part *p)
{
	size_t n = p->n1 * p->n1 * p->n1;
	for (size_t i = 0; i < n; i++)
		p->out[i] = p->in[i];
	p->sum += creal(p->out[n / 2]);
}

static void kern_triad(struct kern_part *p)
{
	const double s = 3.0;
	for (size_t i = 0; i < p->n1; i++)
		p->a[i] = p->b[i] + s * p->c[i];
	p->sum += p->a[p->n1 / 3];
}

enum { KERN_CHASE_HOPS = 1 << 18 };

static void kern_chase(struct kern_part *p)
{
	size_t at = p->pos;
	for (int i = 0; i < KERN_CHASE_HOPS; i++)
		at = p->next[at];
	p->pos = at;
	p->sum += (double)at;
}

static void kern_idle(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

struct kern_job {
	struct kern_state *k;
	struct kern_part *p;
};

static void *kern_run_part(void *arg)
{
	struct kern_job *j = arg;
	switch (j->k->id) {
	case KERN_GEMV: kern_gemv(j->p); break;
	case KERN_GEMM: kern_gemm(j->p); break;
	case KERN_S1CF: kern_s1cf(j->p); break;
	case KERN_S1CF_1: kern_s1cf_combined(j->p); break;
	case KERN_S2CF: kern_s2cf(j->p); break;
	case KERN_TRIAD: kern_triad(j->p); break;
	case KERN_CHASE: kern_chase(j->p); break;
	default: kern_idle(); break;
	}
	return NULL;
}

kern_state *kern_new(kern_id id, const kern_opts *o)
{
	struct kern_state *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->id = id;
	k->o = o ? *o : (kern_opts)KERN_OPTS_INIT;
	if (k->o.threads < 1)
		k->o.threads = 1;
	k->part = calloc((size_t)k->o.threads, sizeof *k->part);
	if (!k->part) {
		free(k);
		return NULL;
	}
	for (int t = 0; t < k->o.threads; t++)
		kern_part_init(k, &k->part[t], 12345u + 7919u * (unsigned)t);
	return k;
}

double kern_step(kern_state *k)
{
	int nt = k->id == KERN_IDLE ? 1 : k->o.threads;
	struct kern_job job[64];
	pthread_t tid[64];
	if (nt > 64)
		nt = 64;
	for (int t = 0; t < nt; t++)
		job[t] = (struct kern_job){k, &k->part[t]};
	for (int t = 1; t < nt; t++)
		if (pthread_create(&tid[t], NULL, kern_run_part, &job[t]) != 0)
			kern_run_part(&job[t]), tid[t] = 0;
	kern_run_part(&job[0]);
	for (int t = 1; t < nt; t++)
		if (tid[t])
			pthread_join(tid[t], NULL);
	double s = 0;
	for (int t = 0; t < k->o.threads; t++)
		s += k->part[t].sum;
	return s;
}

void kern_expect(const kern_state *k, double *bytes, double *flops)
{
	const struct kern_part *p = &k->part[0];
	double nt = k->o.threads, b = 0, f = 0, n3 = (double)p->n1 * p->n1 * p->n1;
	switch (k->id) {
	case KERN_GEMV: /* reads M*N + M + N elements, writes M (paper, section II.A) */
		b = 8.0 * ((double)p->n3 * p->n2 + p->n3 + p->n2 + p->n3);
		f = 2.0 * p->n3 * p->n2;
		break;
	case KERN_GEMM: /* 3 N^2 read, N^2 written when resident */
		b = 8.0 * 4 * p->n1 * p->n1;
		f = 2.0 * n3;
		break;
	case KERN_S1CF: b = 16.0 * n3 * 4; break; /* two copies, read + write each */
	case KERN_S1CF_1:
	case KERN_S2CF: b = 16.0 * n3 * 2; break;
	case KERN_TRIAD: b = 8.0 * 3 * p->n1; f = 2.0 * p->n1; break;
	case KERN_CHASE: b = 64.0 * KERN_CHASE_HOPS; break; /* one line per hop */
	default: break;
	}
	*bytes = b * (k->id == KERN_IDLE ? 0 : nt);
	*flops = f * nt;
}

void kern_free(kern_state *k)
{
	if (!k)
		return;
	for (int t = 0; t < k->o.threads; t++) {
		struct kern_part *p = &k->part[t];
		free(p->a), free(p->b), free(p->c);
		free(p->in), free(p->tmp), free(p->out), free(p->next);
	}
	free(k->part);
	free(k);
}

/* ---- the shared command line ---------------------------------------------- */

enum { KERN_MAX_PHASES = 64 };

struct kern_phase {
	int id;
	double seconds;
};

static int kern_parse_phases(const char *list, struct kern_phase *ph, int *n)
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
		double sec = 1.5;
		char *colon = strchr(tok, ':');
		if (colon) {
			char *end;
			*colon = '\0';
			errno = 0;
			sec = strtod(colon + 1, &end);
			if (errno || end == colon + 1 || *end || !(sec > 0) || sec > 1e6) {
				fprintf(stderr, "bad phase duration '%s' (seconds > 0)\n", colon + 1);
				return -1;
			}
		}
		int id = kern_lookup(tok);
		if (id < 0) {
			fprintf(stderr, "unknown kernel '%s' (see --list)\n", tok);
			return -1;
		}
		if (*n == KERN_MAX_PHASES) {
			fprintf(stderr, "more than %d phases\n", KERN_MAX_PHASES);
			return -1;
		}
		ph[(*n)++] = (struct kern_phase){id, sec};
	}
	if (*n == 0) {
		fprintf(stderr, "empty phase list\n");
		return -1;
	}
	return 0;
}

static int kern_posnum(const char *opt, const char *arg, double max, double *out)
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

static void kern_usage(FILE *f, const char *prog, const char *what, const char *phases)
{
	fprintf(f,
		"usage: %s [options]\n"
		"%s\n"
		"Each phase is a region marked with mcmark.h (visible under mcrec).\n\n"
		"  --phases LIST   kernels to run in order, NAME[:SECONDS],...\n"
		"                  (default %s; a phase lasts 1.5 s unless given)\n"
		"  --scale S       multiply every phase duration by S (default 1)\n"
		"  --steps N       run each phase for N repetitions instead of a duration\n"
		"                  (a fixed amount of work, for overhead measurements)\n"
		"  --threads N     independent copies per kernel, one per thread (default 1)\n"
		"  --mem MIB       working set per thread of streaming kernels (default 64)\n"
		"  --gemm-n N      GEMM order (default 96)   --fft-n N  resort N (default 96)\n"
		"  --list          list the kernels\n"
		"  -q, --quiet     print nothing\n"
		"  -h, --help      this help\n",
		prog, what, phases);
}

int kern_main(int argc, char **argv, const char *prog, const char *what, const char *phases)
{
	static const struct option lo[] = {
		{"phases", required_argument, 0, 'p'}, {"scale", required_argument, 0, 's'},
		{"threads", required_argument, 0, 't'}, {"mem", required_argument, 0, 'm'},
		{"gemm-n", required_argument, 0, 'G'}, {"fft-n", required_argument, 0, 'F'},
		{"steps", required_argument, 0, 'n'},
		{"list", no_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	kern_opts o = KERN_OPTS_INIT;
	struct kern_phase ph[KERN_MAX_PHASES];
	double scale = 1.0, v, fixed_steps = 0;
	int nph = 0, quiet = 0, c;
	const char *list = phases;

	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		switch (c) {
		case 'p': list = optarg; break;
		case 's': if (kern_posnum("--scale", optarg, 1e4, &scale)) return 2; break;
		case 't': if (kern_posnum("--threads", optarg, 64, &v)) return 2; o.threads = (int)v; break;
		case 'm': if (kern_posnum("--mem", optarg, 1 << 16, &v)) return 2; o.mem_mib = (size_t)v; break;
		case 'G': if (kern_posnum("--gemm-n", optarg, 4096, &v)) return 2; o.gemm_n = (int)v; break;
		case 'F': if (kern_posnum("--fft-n", optarg, 1024, &v)) return 2; o.fft_n = (int)v; break;
		case 'n': if (kern_posnum("--steps", optarg, 1e9, &fixed_steps)) return 2; break;
		case 'l':
			for (int i = 0; i < KERN_COUNT; i++)
				printf("%-14s %s\n", kern_name(i), kern_describe(i));
			return 0;
		case 'q': quiet = 1; break;
		case 'h': kern_usage(stdout, prog, what, phases); return 0;
		default: kern_usage(stderr, prog, what, phases); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, argv[optind]);
		return 2;
	}
	if (kern_parse_phases(list, ph, &nph))
		return 2;

	/* Allocate and touch everything first, so phases hold only the kernels. */
	kern_state *ks[KERN_COUNT] = {0};
	for (int i = 0; i < nph; i++)
		if (!ks[ph[i].id] && !(ks[ph[i].id] = kern_new(ph[i].id, &o))) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
	mcmark(prog);
	double t_start = kern_now(), check = 0;
	if (!quiet)
		printf("%-6s %-14s %8s %8s %7s %10s %10s\n", "phase", "kernel", "start_s", "end_s",
		       "steps", "GB/s", "GFLOP/s");
	for (int i = 0; i < nph; i++) {
		kern_state *k = ks[ph[i].id];
		double t0 = kern_now(), t1 = t0, dur = ph[i].seconds * scale;
		long steps = 0;
		mcmark_begin(kern_name(ph[i].id));
		do {
			check += kern_step(k);
			steps++;
			t1 = kern_now();
		} while (fixed_steps > 0 ? steps < (long)fixed_steps : t1 - t0 < dur);
		mcmark_end();
		double b, f;
		kern_expect(k, &b, &f);
		if (!quiet)
			printf("%-6d %-14s %8.3f %8.3f %7ld %10.2f %10.2f\n", i + 1, kern_name(ph[i].id),
			       t0 - t_start, t1 - t_start, steps, b * steps / (t1 - t0) * 1e-9,
			       f * steps / (t1 - t0) * 1e-9);
	}
	if (!quiet)
		printf("# checksum %g\n", check);
	for (int i = 0; i < KERN_COUNT; i++)
		kern_free(ks[i]);
	return 0;
}
