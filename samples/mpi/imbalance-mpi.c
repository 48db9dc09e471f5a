/* imbalance-mpi.c: a real MPI job with a known load balance, for the job
 * analysis on what MPI libraries really do while a rank waits (they poll:
 * a waiting rank is as CPU-busy as a working one).
 *
 *     mpirun -n 2 mcrec -o run.%r.mcz -- imbalance-mpi --steps 300 --slow 1:2
 *     mcview --report run.*.mcz       # load_bal of the run: 0.75
 *
 * Every rank does --steps steps, each a fixed count of GEMM repetitions
 * (samples/sample-kernels.c) then MPI_Barrier; --slow R:K gives rank R K times the
 * repetitions of the others.  The work is counted, not timed: the load
 * balance injected (mean over ranks of the work / its max) is
 * (N - 1 + K) / (N K).  Each rank also times its own compute steps in CPU
 * time (CLOCK_THREAD_CPUTIME_ID), as an application's own timers would: on
 * a machine whose CPUs share a core or a host, a rank computes slower
 * while another spins in MPI, so the CPU time of the same work varies, and
 * the load balance by those timers (mean / max of the ranks' compute CPU
 * time) is what a measurement of useful time can be checked against.
 * Rank 0 prints both, with the steps' wall time.  --nap R:S has rank R
 * sleep S seconds before the middle step's work (nanosleep: off its CPU
 * while the others wait in MPI_Barrier), as a rank blocked on I/O or
 * whose CPU another process took; rank 0 prints the sleep's wall time.
 * --setup S has every rank first spend S seconds of CPU in a setup function
 * of its own (imbm_setup: a table of hashes, as FFTW's planning or an
 * input reader would, other code than the steps'), then a barrier; rank 0
 * prints when it ended (setup_end_s, seconds after MPI_Init returned).
 * No marks: the job is what an unmarked application gives mcz.
 *
 * Built only where mpicc exists (the Makefile's MPICC).
 */
#include "../sample-kernels.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double imbm_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double imbm_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Setup: S seconds of CPU in code of its own; the table's sum is returned
 * so the work is kept. */
__attribute__((noinline)) static unsigned long imbm_setup(double s)
{
	static unsigned long table[1 << 14];
	unsigned long sum = 0, x = 88172645463325252UL;
	double c0 = imbm_cpu();
	while (imbm_cpu() - c0 < s)
		for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			table[i] ^= x;
			sum += table[(x >> 3) & (sizeof table / sizeof *table - 1)];
		}
	return sum;
}

static void imbm_usage(FILE *f)
{
	fprintf(f, "usage: imbalance-mpi [--steps N] [--reps N] [--slow RANK:FACTOR] [--nap RANK:S]\n"
		   "                     [--scale S] [-q]\n"
		   "  --steps N        barrier-separated steps (default 200)\n"
		   "  --reps N         GEMM repetitions per step of a normal rank (default 4)\n"
		   "  --slow R:K       rank R does K times the repetitions (default none)\n"
		   "  --nap R:S        rank R sleeps S seconds before the middle step (default none)\n"
		   "  --setup S        every rank first spends S CPU seconds in a setup of its own\n"
		   "  --scale S        multiply the steps by S (as the other samples' --scale)\n"
		   "  -q, --quiet      print nothing\n");
}

int main(int argc, char **argv)
{
	int steps = 200, reps = 4, slow = -1, quiet = 0, napper = -1;
	double k = 1, scale = 1, nap = 0, napped = 0, setup = 0, setup_end = 0;
	MPI_Init(&argc, &argv);
	double tinit = MPI_Wtime();
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--steps") && v)
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && v)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--slow") && v && sscanf(argv[++i], "%d:%lf", &slow, &k) == 2)
			;
		else if (!strcmp(argv[i], "--nap") && v && sscanf(argv[++i], "%d:%lf", &napper, &nap) == 2)
			;
		else if (!strcmp(argv[i], "--setup") && v)
			setup = atof(argv[++i]);
		else if (!strcmp(argv[i], "--scale") && v)
			scale = atof(argv[++i]);
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			quiet = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			if (rank == 0)
				imbm_usage(stdout);
			MPI_Finalize();
			return 0;
		} else {
			if (rank == 0)
				fprintf(stderr, "imbalance-mpi: bad argument '%s' (see --help)\n", argv[i]);
			MPI_Finalize();
			return 2;
		}
	}
	steps = scale > 0 && scale * steps >= 1 ? (int)(scale * steps) : steps;
	if (steps < 1 || reps < 1 || k < 1 || k > 100 || nap < 0 || nap > 3600 || setup < 0 ||
	    setup > 3600) {
		if (rank == 0)
			fprintf(stderr, "imbalance-mpi: --steps, --reps >= 1, 1 <= K <= 100 and "
					"0 <= S <= 3600\n");
		MPI_Finalize();
		return 2;
	}
	kernels_opts o = KERNELS_OPTS_INIT;
	kernels_state *ks = kernels_new(KERNELS_GEMM, &o);
	if (!ks) {
		fprintf(stderr, "imbalance-mpi: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* K may be fractional: the slow rank's steps alternate floor and ceil */
	double mine = rank == slow ? k * reps : reps, done = 0, cpu = 0;
	unsigned long kept = setup > 0 ? imbm_setup(setup) : 0;
	MPI_Barrier(MPI_COMM_WORLD);
	setup_end = MPI_Wtime() - tinit;
	double t0 = MPI_Wtime();
	for (int s = 0; s < steps; s++) {
		long n = (long)(mine * (s + 1) + 0.5) - (long)(done + 0.5);
		if (rank == napper && s == steps / 2) {
			double w0 = imbm_wall();
			struct timespec ts = {(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)};
			while (nanosleep(&ts, &ts) != 0)
				;
			napped = imbm_wall() - w0;
		}
		double c0 = imbm_cpu();
		for (long r = 0; r < n; r++)
			kernels_step(ks);
		cpu += imbm_cpu() - c0;
		done = mine * (s + 1);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0;
	double *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
	MPI_Gather(&cpu, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	double nap_all = 0;
	MPI_Reduce(&napped, &nap_all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0 && !quiet) {
		double kk = slow >= 0 && slow < size ? k : 1, sum = 0, max = 0;
		for (int r = 0; all && r < size; r++) {
			sum += all[r];
			max = all[r] > max ? all[r] : max;
		}
		printf("ranks %d steps %d slow %d factor %g load_balance %.4f timers_load_balance %.4f "
		       "wall_s %.3f compute_cpu_s",
		       size, steps, slow, kk, (size - 1 + kk) / (size * kk),
		       max > 0 ? sum / size / max : 0, t);
		for (int r = 0; all && r < size; r++)
			printf(" %.3f", all[r]);
		if (napper >= 0 && napper < size)
			printf(" nap_rank %d nap_s %.3f", napper, nap_all);
		if (setup > 0)
			printf(" setup_end_s %.3f setup_sum %lu", setup_end, kept % 10);
		printf("\n");
	}
	free(all);
	kernels_free(ks);
	MPI_Finalize();
	return 0;
}
