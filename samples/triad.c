/* triad.c: STREAM triad: memory bandwidth bound.
 * Runs "triad:3" by default; see --help (sample-kernels.c holds the kernels and options). */
#include "sample-kernels.h"

int main(int argc, char **argv)
{
	return kernels_main(argc, argv, "triad", "STREAM triad: memory bandwidth bound.", "triad:3");
}
