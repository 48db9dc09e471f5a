/* test-code-name.c: the names of code (format/code/code-name.c): C++ and Rust
 * legacy symbols demangled to perf report's full signature and a brief
 * name without return type and parameters, compiler clones folded into
 * their function, plain C names untouched, and any input (garbage, huge,
 * a buffer of one byte) safe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../format/mcz.h"

static void expect_name(const char *sym, const char *full, const char *brief, int demangled)
{
	char f[512], b[256];
	assert_int_equal(mcz_code_name(sym, f, sizeof f, b, sizeof b), demangled);
	assert_string_equal(f, full);
	assert_string_equal(b, brief);
}

static void test_cxx(void **state)
{
	(void)state;
	expect_name("_ZN9LAMMPS_NS9PairLJCut7computeEii", "LAMMPS_NS::PairLJCut::compute(int, int)",
		    "LAMMPS_NS::PairLJCut::compute", 1);
	expect_name("_ZN3qmc6WalkerIdE5driftEv", "qmc::Walker<double>::drift()",
		    "qmc::Walker<double>::drift", 1);
	expect_name("_ZNK3foo3barEv", "foo::bar() const", "foo::bar", 1);
	/* a function template: the return type goes from the brief name */
	expect_name("_ZN2ns4sumvIdEET_PKS1_m", "double ns::sumv<double>(double const*, unsigned long)",
		    "ns::sumv<double>", 1);
	/* an operator, and a name in an anonymous namespace */
	expect_name("_ZNKSt8functionIFviEEclEi", "std::function<void (int)>::operator()(int) const",
		    "std::function<void (int)>::operator()", 1);
	expect_name("_ZN12_GLOBAL__N_14stepEi", "(anonymous namespace)::step(int)",
		    "(anonymous namespace)::step", 1);
	expect_name("_Z4mainv", "main()", "main", 1);
}

static void test_clones(void **state)
{
	(void)state;
	expect_name("_ZN3qmc6WalkerIdE6branchEl.isra.0", "qmc::Walker<double>::branch(long)",
		    "qmc::Walker<double>::branch", 1);
	expect_name("_ZN3qmc6WalkerIdE6branchEl.constprop.0.isra.0",
		    "qmc::Walker<double>::branch(long)", "qmc::Walker<double>::branch", 1);
	expect_name("_ZN3qmc6WalkerIdE6branchEl.cold", "qmc::Walker<double>::branch(long)",
		    "qmc::Walker<double>::branch", 1);
	expect_name("compute_kernel.part.0", "compute_kernel", "compute_kernel", 0);
	expect_name("main.cold", "main", "main", 0);
	expect_name("helper.lto_priv.0", "helper", "helper", 0);
	expect_name("f.llvm.1234567", "f", "f", 0);
	expect_name("clock_gettime@@GLIBC_2.17", "clock_gettime", "clock_gettime", 0);
	expect_name("@x", "@x", "@x", 0);
	/* a dot that is not a clone's stays */
	expect_name("f.1", "f.1", "f.1", 0);
	expect_name(".isra.0", ".isra.0", ".isra.0", 0);
}

static void test_rust(void **state)
{
	(void)state;
	/* legacy: Itanium-mangled with a hash, which is not part of the name */
	expect_name("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write", "core::fmt::write", 1);
	/* v0 is not __cxa_demangle's: kept as it is */
	expect_name("_RNvCs1234_7mycrate3foo", "_RNvCs1234_7mycrate3foo", "_RNvCs1234_7mycrate3foo", 0);
}

static void test_plain(void **state)
{
	(void)state;
	expect_name("compute_kernel", "compute_kernel", "compute_kernel", 0);
	expect_name("drift", "drift", "drift", 0);
	expect_name("", "", "", 0);
	expect_name(NULL, "", "", 0);
	/* not a whole name at all: as it is */
	expect_name("_Z", "_Z", "_Z", 0);
	expect_name("_Zzzz(((", "_Zzzz(((", "_Zzzz(((", 0);
	expect_name("hpcc (no symbols)", "hpcc (no symbols)", "hpcc (no symbols)", 0);
	char b[64];
	assert_int_equal(mcz_code_name_brief("hpcc (no symbols)", b, sizeof b), 0);
	assert_string_equal(b, "hpcc (no symbols)");
}

static void test_garbage(void **state)
{
	(void)state;
	char f[64], b[8], one[1];
	/* truncated to fit, terminated */
	mcz_code_name("_ZN9LAMMPS_NS9PairLJCut7computeEii", f, sizeof f, b, sizeof b);
	assert_string_equal(b, "LAMMPS_");
	mcz_code_name("_ZN9LAMMPS_NS9PairLJCut7computeEii", one, sizeof one, NULL, 0);
	assert_string_equal(one, "");
	/* a long symbol (beyond the stack buffer) and random bytes */
	size_t n = 100000;
	char *big = malloc(n + 1);
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)(1 + (i * 7919) % 255);
	big[0] = '_', big[1] = 'Z', big[n] = '\0';
	mcz_code_name(big, f, sizeof f, b, sizeof b);
	assert_true(strlen(f) < sizeof f && strlen(b) < sizeof b);
	memset(big, '(', n);
	mcz_code_name_brief(big, f, sizeof f);
	memset(big, ')', n);
	mcz_code_name_brief(big, f, sizeof f);
	assert_true(strlen(f) < sizeof f);
	free(big);
	mcz_code_name_brief(")", f, sizeof f);
	assert_string_equal(f, ")");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),   cmocka_unit_test(test_clones), cmocka_unit_test(test_rust),
		cmocka_unit_test(test_plain), cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
