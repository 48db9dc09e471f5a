/* phased.c: the phased workload used by the tests, the demo and phase
 * detection: memory bandwidth (triad), compute (gemm), the same two again,
 * idle (sleep), then memory latency (pointer chase) — A B A B C D, each phase
 * a marked region of 1.5 s x --scale.  The marks are the ground truth. */
#include "sample-kernels.h"

int main(int argc, char **argv)
{
	return kernels_main(argc, argv, "phased",
			 "Runs several kernels in sequence: bandwidth, compute, idle, latency.",
			 "triad,gemm,triad,gemm,idle,chase");
}
