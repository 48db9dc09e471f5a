/* imbalance.c: an MPI-like job without MPI, for the job views (ranks,
 * imbalance, the slow rank).  Every rank runs the same phases — each a
 * marked region (mcmark.h) of --steps paced steps of GEMM — and waits for
 * the others between phases, as ranks do at an MPI barrier; --slow R:K:F
 * gives rank R F times the work in phase K, so that the job's answer is
 * known: the phase's imbalance (max / mean of the ranks' times) is
 * F / ((N - 1 + F) / N), and it prints it.
 *
 * The rank and the job's size come from the launcher's environment, as
 * mcrec reads them (OMPI_COMM_WORLD_*, PMI_*, PMIX_RANK, SLURM_*), or from
 * --rank/--size; so `mpirun -n 8 mcrec -o run.%r.mcz -- imbalance` and a
 * shell loop setting PMI_RANK/PMI_SIZE both work.  The barrier is a folder
 * of files (one per rank and barrier) under --barrier DIR (default
 * $TMPDIR/mcz-imbalance-<job id>), polled every millisecond: no MPI library
 * is needed, and a waiting rank sleeps, so its CPU time is its useful time.
 *
 * A step is one GEMM then a sleep to the end of a --slot (10 ms): paced
 * steps keep every rank's time in a phase proportional to its work even
 * when the ranks outnumber the cores (mpirun --oversubscribe on a laptop).
 */
#include "sample-kernels.h"

#include "../recorder/mcmark.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IMB_MAX_PHASES 16

static const char *const imb_names[IMB_MAX_PHASES] = {
	"init", "solve", "halo", "update", "reduce", "output", "p7", "p8",
	"p9", "p10", "p11", "p12", "p13", "p14", "p15", "p16"};

/* The first of the variables set to a number (as recorder/outname.c reads
 * them: a sample links no part of mcz, only its kernels and mcmark.h). */
static int imb_env_int(const char *const *names, int dflt)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		if (!v || !*v)
			continue;
		errno = 0;
		long r = strtol(v, &end, 10);
		if (!errno && !*end && r >= 0 && r <= INT_MAX)
			return (int)r;
	}
	return dflt;
}

static void imb_sleep_until(double t)
{
	double left = t - kernels_now();
	if (left <= 0)
		return;
	struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Barrier k of `size` ranks: this rank's file, then wait for every other
 * rank's.  0, or -1 (with a line on stderr) when the folder fails or the
 * others do not come within `timeout` seconds. */
static int imb_barrier(const char *dir, int k, int rank, int size, double timeout)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/b%d.r%d", dir, k, rank);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "imbalance: barrier %s: %s\n", path, strerror(errno));
		return -1;
	}
	fclose(f);
	double give_up = kernels_now() + timeout;
	for (int r = 0; r < size; r++) {
		struct stat st;
		snprintf(path, sizeof path, "%s/b%d.r%d", dir, k, r);
		while (stat(path, &st) != 0) {
			if (kernels_now() > give_up) {
				fprintf(stderr, "imbalance: rank %d did not reach barrier %d in %.0f s "
						"(are all %d ranks running, with the same --barrier?)\n",
					r, k, timeout, size);
				return -1;
			}
			imb_sleep_until(kernels_now() + 0.001);
		}
	}
	if (k > 0) { /* everyone is past barrier k - 1: its file can go */
		snprintf(path, sizeof path, "%s/b%d.r%d", dir, k - 1, rank);
		unlink(path);
	}
	return 0;
}

static void imb_usage(FILE *f)
{
	fprintf(f,
		"usage: imbalance [options]\n"
		"Runs the phases of a parallel job on every rank (GEMM steps, a barrier between\n"
		"phases), one rank optionally slower in one phase.  Rank and size come from\n"
		"the launcher (mpirun, srun) or --rank/--size.\n"
		"  --phases N        phases (default 4: init solve halo update), at most %d\n"
		"  --steps S         paced steps per phase (default 100)\n"
		"  --scale F         steps times F (as the other samples' --scale)\n"
		"  --slot SEC        seconds per step (default 0.01)\n"
		"  --slow R:K:F      rank R does F times the work in phase K (1-based)\n"
		"  --rank R --size N this process's rank and the job's size\n"
		"  --barrier DIR     folder for the barrier files (default $TMPDIR/mcz-imbalance-JOB)\n"
		"  --gemm-n N        GEMM order of a step (default 64)\n"
		"  --no-marks        run without marks\n"
		"  -q, --quiet       no table\n",
		IMB_MAX_PHASES);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"phases", required_argument, 0, 'p'}, {"steps", required_argument, 0, 'n'},
		{"slot", required_argument, 0, 'S'}, {"slow", required_argument, 0, 'w'},
		{"rank", required_argument, 0, 'r'}, {"size", required_argument, 0, 'N'},
		{"barrier", required_argument, 0, 'b'}, {"gemm-n", required_argument, 0, 'G'},
		{"no-marks", no_argument, 0, 'M'}, {"quiet", no_argument, 0, 'q'},
		{"scale", required_argument, 0, 's'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	static const char *const rank_env[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					       "SLURM_PROCID", NULL};
	static const char *const size_env[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
					       "SLURM_NTASKS", NULL};
	int nph = 4, steps = 100, rank = imb_env_int(rank_env, 0), size = imb_env_int(size_env, 1);
	int slow_r = -1, slow_k = 0, marks = 1, quiet = 0, c;
	double slot = 0.01, slow_f = 1.0, scale = 1.0;
	const char *dir = NULL;
	kernels_opts o = KERNELS_OPTS_INIT;
	o.gemm_n = 64;
	int li = 0;
	while ((c = getopt_long(argc, argv, "qh", lo, &li)) != -1) {
		char *end = NULL;
		long v = 0;
		if (strchr("pnrNG", c)) {
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 0 || v > 1000000) {
				fprintf(stderr, "imbalance: --%s wants a number, not '%s'\n", lo[li].name,
					optarg);
				return 2;
			}
		}
		switch (c) {
		case 'p': nph = (int)v; break;
		case 'n': steps = (int)v; break;
		case 'r': rank = (int)v; break;
		case 'N': size = (int)v; break;
		case 'G': o.gemm_n = (int)v; break;
		case 'S':
			slot = strtod(optarg, &end);
			if (*end || !(slot > 0 && slot <= 10)) {
				fprintf(stderr, "imbalance: --slot wants seconds in (0, 10], not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'w': {
			int n = 0;
			if (sscanf(optarg, "%d:%d:%lf%n", &slow_r, &slow_k, &slow_f, &n) != 3 || optarg[n] ||
			    slow_r < 0 || slow_k < 1 || !(slow_f > 0 && slow_f <= 100)) {
				fprintf(stderr, "imbalance: --slow wants RANK:PHASE:FACTOR (e.g. 3:2:1.5), not '%s'\n",
					optarg);
				return 2;
			}
			break;
		}
		case 's':
			scale = strtod(optarg, &end);
			if (*end || !(scale > 0 && scale <= 1e4)) {
				fprintf(stderr, "imbalance: --scale: bad value '%s' (want > 0)\n", optarg);
				return 2;
			}
			break;
		case 'b': dir = optarg; break;
		case 'M': marks = 0; break;
		case 'q': quiet = 1; break;
		case 'h': imb_usage(stdout); return 0;
		default: imb_usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "imbalance: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	steps = (int)(steps * scale + 0.5) > 0 ? (int)(steps * scale + 0.5) : 1;
	if (nph < 1 || nph > IMB_MAX_PHASES || steps < 1 || size < 1 || rank >= size || o.gemm_n < 1) {
		fprintf(stderr, "imbalance: want 1..%d phases, steps >= 1, rank < size (rank %d of %d)\n",
			IMB_MAX_PHASES, rank, size);
		return 2;
	}
	if (slow_r >= size || slow_k > nph) {
		fprintf(stderr, "imbalance: --slow %d:%d: the job has %d ranks and %d phases\n", slow_r,
			slow_k, size, nph);
		return 2;
	}
	char dbuf[4096];
	if (!dir && size > 1) {
		const char *tmp = getenv("TMPDIR");
		const char *job = getenv("OMPI_MCA_ess_base_jobid");
		job = job ? job : getenv("SLURM_JOB_ID");
		job = job ? job : getenv("PMIX_NAMESPACE");
		snprintf(dbuf, sizeof dbuf, "%s/mcz-imbalance-%s", tmp && *tmp ? tmp : "/tmp",
			 job ? job : "nojob");
		dir = dbuf;
	}
	if (dir && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "imbalance: barrier folder %s: %s\n", dir, strerror(errno));
		return 1;
	}
	kernels_state *k = kernels_new(KERNELS_GEMM, &o);
	if (!k) {
		fprintf(stderr, "imbalance: out of memory\n");
		return 1;
	}
	double check = 0, timeout = 60 + 4.0 * steps * slot * (slow_f > 1 ? slow_f : 1);
	if (!quiet && rank == 0)
		printf("%-6s %-8s %5s %8s %s\n", "phase", "name", "rank", "seconds", "expected_imbalance");
	for (int p = 0; p < nph; p++) {
		if (size > 1 && imb_barrier(dir, p, rank, size, timeout))
			return 1;
		int n = steps;
		if (rank == slow_r && p + 1 == slow_k)
			n = (int)(steps * slow_f + 0.5);
		if (marks)
			mcmark_begin(imb_names[p]);
		double t0 = kernels_now(), next = t0;
		for (int s = 0; s < n; s++) {
			check += kernels_step(k);
			next += slot;
			imb_sleep_until(next);
		}
		double dt = kernels_now() - t0;
		if (marks)
			mcmark_end();
		double f = p + 1 == slow_k ? slow_f : 1.0;
		if (!quiet && (rank == 0 || (rank == slow_r && p + 1 == slow_k)))
			printf("%-6d %-8s %5d %8.3f %.4f\n", p + 1, imb_names[p], rank, dt,
			       f / ((size - 1 + f) / size));
	}
	if (size > 1) {
		if (imb_barrier(dir, nph, rank, size, timeout))
			return 1;
		/* Every rank is past the last barrier once all its files exist;
		 * leave a moment for the slowest poller before removing ours. */
		imb_sleep_until(kernels_now() + 0.2);
		char path[4200];
		snprintf(path, sizeof path, "%s/b%d.r%d", dir, nph, rank);
		unlink(path);
		if (rank == 0) {
			imb_sleep_until(kernels_now() + 0.2);
			rmdir(dir);
		}
	}
	kernels_free(k);
	return check == 12345.678 ? 3 : 0; /* keeps the work live */
}
