/* chase.c: Pointer chase through a random cycle: memory latency bound.
 * Runs "chase:3" by default; see --help (sample-kernels.c holds the kernels and options). */
#include "sample-kernels.h"

int main(int argc, char **argv)
{
	return kernels_main(argc, argv, "chase", "Pointer chase through a random cycle: memory latency bound.", "chase:3");
}
