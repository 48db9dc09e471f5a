// kokkos-phases.cc: a Kokkos program with a known structure, for mcrec's
// Kokkos Tools connector (recorder/connect/kokkos-connect.c).
//
//     mcrec -o k.mcz -- kokkos-phases        # phases "assemble", "solve"
//     mcview --report k.mcz
//
// --steps times: a region "assemble" (kernels "fill_matrix" and
// "assemble_norm", then an inner region "boundary" with "apply_bc"), then a
// region "solve" (kernels "spmv" and "dot", a fence each iteration, a deep
// copy at its end); each outer region lasts about --region-ms.  Every outer
// region's start and end are printed by the program's own clock
// (CLOCK_REALTIME ns, the clock of a recording's wall_epoch_ns):
//     region assemble 0 1733312345000000000 1733312345300000000
//
// --kernel-us US --seconds S instead runs one kernel "bench_kernel" (64
// multiply-adds per element, in registers) of about US microseconds again and again for S seconds and prints
//     kernels: N of US us (E elements) in T s (P us each), CPU C s (Q us each)
// (the CPU time: the process's, one thread with Kokkos's Serial space);
// --elements E gives the kernel's size instead of calibrating it, so that
// runs to be compared run the same kernel.  -q prints nothing, --scale F
// makes each region F times as long.
// (the benchmark tests/bench/bench-regions.sh: the cost per kernel).
//
// Built against Debian's Trilinos Kokkos (Serial) where it is installed.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

static long long wall_ns()
{
	timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double cpu_s()
{
	timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double mono_s()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef Kokkos::View<double *> vec;

// one kernel of n elements: y = 0.999 y + x
static void axpy(const char *label, vec y, vec x, int n)
{
	Kokkos::parallel_for(label, n, KOKKOS_LAMBDA(const int i) { y(i) = 0.999 * y(i) + x(i); });
}

// the benchmark's kernel: 64 dependent multiply-adds per element, in
// registers, so that its time is the CPU's, not the memory's (which other
// processes share)
static void compute(const char *label, vec y, vec x, int n)
{
	Kokkos::parallel_for(label, n, KOKKOS_LAMBDA(const int i) {
		double v = x(i);
		for (int k = 0; k < 64; k++)
			v = v * 0.999999 + 1e-9;
		y(i) = v;
	});
}

static double norm(const char *label, vec y, int n)
{
	double s = 0;
	Kokkos::parallel_reduce(label, n, KOKKOS_LAMBDA(const int i, double &acc) { acc += y(i) * y(i); }, s);
	return s;
}

typedef void (*kernel_fn)(const char *, vec, vec, int);

// elements of a kernel that lasts about us microseconds on this machine
static int calibrate(kernel_fn kern, vec y, vec x, double us)
{
	int n = 1 << 10;
	for (;;) {
		double each = 1e30; // the fastest of 20: a descheduled one says nothing of the kernel
		for (int r = 0; r < 20; r++) {
			double t0 = mono_s();
			kern("calibrate", y, x, n);
			double t = (mono_s() - t0) * 1e6;
			each = t < each ? t : each;
		}
		if (each > 200 || n >= (1 << 22)) {
			double k = (double)n * us / each;
			return k < 16 ? 16 : k > (1 << 22) ? 1 << 22 : (int)k;
		}
		n *= 2;
	}
}

int main(int argc, char **argv)
{
	int steps = 4;
	double region_ms = 300, kernel_us = 0, seconds = 2;
	int elements = 0, quiet = 0;
	for (int i = 1; i < argc; i++) {
		// -q and --scale F as every sample takes them (rec-samples.sh)
		if (!strcmp(argv[i], "-q"))
			quiet = 1;
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			region_ms *= atof(argv[++i]);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--region-ms") && i + 1 < argc)
			region_ms = atof(argv[++i]);
		else if (!strcmp(argv[i], "--kernel-us") && i + 1 < argc)
			kernel_us = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--elements") && i + 1 < argc)
			elements = atoi(argv[++i]);
		else if (!strncmp(argv[i], "--kokkos", 8))
			continue; // Kokkos's own
		else {
			fprintf(stderr, "usage: kokkos-phases [-q] [--scale F] [--steps N] [--region-ms MS] "
					"[--kernel-us US --seconds S [--elements N]]\n");
			return 2;
		}
	}
	Kokkos::initialize(argc, argv);
	{
		const int nmax = 1 << 22;
		vec x("x", nmax), y("y", nmax), z("z", nmax);
		Kokkos::deep_copy(x, 1e-3);
		Kokkos::deep_copy(y, 1.0);
		if (kernel_us > 0) {
			int n = elements > 0 && elements <= nmax ? elements : calibrate(compute, y, x, kernel_us);
			long k = 0;
			double t0 = mono_s(), c0 = cpu_s(), t;
			while ((t = mono_s() - t0) < seconds) {
				for (int r = 0; r < 16; r++)
					compute("bench_kernel", y, x, n);
				k += 16;
			}
			double c = cpu_s() - c0;
			printf("kernels: %ld of %.0f us (%d elements) in %.3f s (%.2f us each), CPU %.3f s "
			       "(%.2f us each)\n", k, kernel_us, n, t, t / (double)k * 1e6, c, c / (double)k * 1e6);
			steps = 0; // the views go before Kokkos::finalize
		}
		int n = steps ? calibrate(axpy, y, x, 500) : 0; // kernels of about 0.5 ms
		double sink = 0;
		for (int s = 0; s < steps; s++) {
			long long a0 = wall_ns();
			Kokkos::Profiling::pushRegion("assemble");
			double t0 = mono_s();
			while (mono_s() - t0 < 0.8 * region_ms * 1e-3) {
				axpy("fill_matrix", y, x, n);
				sink += norm("assemble_norm", y, n);
			}
			Kokkos::Profiling::pushRegion("boundary");
			while (mono_s() - t0 < region_ms * 1e-3)
				axpy("apply_bc", z, x, n);
			Kokkos::Profiling::popRegion();
			Kokkos::Profiling::popRegion();
			long long a1 = wall_ns();
			Kokkos::Profiling::pushRegion("solve");
			t0 = mono_s();
			while (mono_s() - t0 < region_ms * 1e-3) {
				axpy("spmv", z, y, n);
				sink += norm("dot", z, n);
				Kokkos::fence();
			}
			Kokkos::deep_copy(y, z);
			Kokkos::Profiling::popRegion();
			long long s1 = wall_ns();
			if (!quiet) {
				printf("region assemble %d %lld %lld\n", s, a0, a1);
				printf("region solve %d %lld %lld\n", s, a1, s1);
			}
		}
		if (steps && !quiet)
			printf("kokkos-phases: %d steps, checksum %.3g\n", steps, sink);
	}
	Kokkos::finalize();
	return 0;
}
