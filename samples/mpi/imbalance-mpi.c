/* imbalance-mpi.c: a real MPI job with a known load balance, for the job
 * analysis on what MPI libraries really do while a rank waits (they poll:
 * a waiting rank is as CPU-busy as a working one).
 *
 *     mpirun -n 2 mcrec -o run.%r.mcz -- imbalance-mpi --steps 300 --slow 1:2
 *     mcview --report run.*.mcz       # load_bal of the run: 0.75
 *
 * Every rank does --steps steps, each a fixed count of GEMM repetitions
 * (samples/kernels.c) then MPI_Barrier; --slow R:K gives rank R K times the
 * repetitions of the others.  The work is counted, not timed, so the
 * answer holds when the ranks outnumber the cores: the job's load balance
 * (mean over ranks of the useful time / its max) is (N - 1 + K) / (N K),
 * and rank 0 prints it with the steps' wall time.  No marks: the job is
 * what an unmarked application gives mcz.
 *
 * Built only where mpicc exists (the Makefile's MPICC).
 */
#include "../kernels.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void imbm_usage(FILE *f)
{
	fprintf(f, "usage: imbalance-mpi [--steps N] [--reps N] [--slow RANK:FACTOR]\n"
		   "  --steps N        barrier-separated steps (default 200)\n"
		   "  --reps N         GEMM repetitions per step of a normal rank (default 4)\n"
		   "  --slow R:K       rank R does K times the repetitions (default none)\n");
}

int main(int argc, char **argv)
{
	int steps = 200, reps = 4, slow = -1;
	double k = 1;
	MPI_Init(&argc, &argv);
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
		else {
			if (rank == 0) {
				fprintf(stderr, "imbalance-mpi: bad argument '%s'\n", argv[i]);
				imbm_usage(stderr);
			}
			MPI_Finalize();
			return 2;
		}
	}
	if (steps < 1 || reps < 1 || k < 1 || k > 100) {
		if (rank == 0)
			fprintf(stderr, "imbalance-mpi: --steps, --reps >= 1 and 1 <= K <= 100\n");
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
	double mine = rank == slow ? k * reps : reps, done = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int s = 0; s < steps; s++) {
		long n = (long)(mine * (s + 1) + 0.5) - (long)(done + 0.5);
		for (long r = 0; r < n; r++)
			kernels_step(ks);
		done = mine * (s + 1);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0;
	if (rank == 0) {
		double kk = slow >= 0 && slow < size ? k : 1;
		printf("ranks %d steps %d slow %d factor %g load_balance %.4f wall_s %.3f\n", size,
		       steps, slow, kk, (size - 1 + kk) / (size * kk), t);
	}
	kernels_free(ks);
	MPI_Finalize();
	return 0;
}
