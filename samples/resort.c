/* resort.c: 3D-FFT resort loops: S1CF (strided), S1CF combined, S2CF (contiguous).
 * Runs "s1cf:2,s1cf-combined:2,s2cf:2" by default; see --help
 * (sample-kernels.c holds the kernels and options). */
#include "sample-kernels.h"

int main(int argc, char **argv)
{
	return kernels_main(argc, argv, "resort", "3D-FFT resort loops: S1CF (strided), S1CF combined, S2CF (contiguous).", "s1cf:2,s1cf-combined:2,s2cf:2");
}
