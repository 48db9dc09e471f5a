/* gemv.c: Batched, capped GEMV (Listing 2 of the paper): streams a capped matrix.
 * Runs "gemv:3" by default; see --help (sample-kernels.c holds the kernels and options). */
#include "sample-kernels.h"

int main(int argc, char **argv)
{
	return kernels_main(argc, argv, "gemv", "Batched, capped GEMV (Listing 2 of the paper): streams a capped matrix.", "gemv:3");
}
