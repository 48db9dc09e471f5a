// code-cxx.cc: a C++ workload for the code profile's names (tests/
// integration/code-names.sh): a class template in a namespace with two hot
// member functions, one of which GCC -O2 specialises into a clone: the
// symbol table holds `qmc::Walker<double>::drift` and
// `qmc::Walker<double>::branch` as `.isra.0` only (the test checks it with
// nm).  Alternates drift and branch for
// CXX_PHASE_S seconds each (argv[1], default 1), three rounds, then
// prints a checksum.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace qmc {

template <class T> class Walker {
public:
	explicit Walker(size_t n) : pos(n, T(1)), weight(T(1)), calls(0) {}
	void drift(T step);
	T branch(long n) const;
	std::vector<T> pos;
	T weight;
	long calls;
};

// Hot, and kept out of line: the test's second function.
template <class T> __attribute__((noinline)) void Walker<T>::drift(T step)
{
	for (auto &x : pos)
		x = x * T(0.999) + step;
	calls++;
}

// Hot, reading one field of its object: IPA-SRA passes that field instead
// of `this`, a clone `branch(long) [clone .isra.0]`.
template <class T> __attribute__((noinline)) T Walker<T>::branch(long n) const
{
	T s = weight;
	for (long i = 1; i <= n; i++)
		s += T(1) / (T(i) * T(i) + s);
	return s;
}

} // namespace qmc

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double ph = argc > 1 ? std::atof(argv[1]) : 1.0;
	qmc::Walker<double> w(4096);
	double sum = 0;
	for (int round = 0; round < 3; round++) {
		for (double t0 = now(); now() - t0 < ph;)
			for (int k = 0; k < 64; k++)
				w.drift(1e-6);
		for (double t0 = now(); now() - t0 < ph;)
			for (int k = 0; k < 16; k++)
				sum += w.branch(4000 + k);
	}
	std::printf("%g\n", sum + w.pos[0]);
	return 0;
}
