/* gemm.c: Batched reference GEMM (Listings 3-4): cache resident, compute bound.
 * Runs "gemm:3" by default; see --help (sample-kernels.c holds the kernels and options). */
#include "sample-kernels.h"

int main(int argc, char **argv)
{
	return kernels_main(argc, argv, "gemm", "Batched reference GEMM (Listings 3-4): cache resident, compute bound.", "gemm:3");
}
