/* test-code-sym.c: when the code source's symbolization reads debug info
 * (recorder/sources/code/code-sym.c): samples of this test binary, mapped as
 * perf's MMAP2 record maps it (its executable mapping from
 * /proc/self/maps), at a function of its own.  An object with 50 samples,
 * or 10 and 0.5 % of all, is read with its DWARF (function, file:line);
 * one with fewer (a sample or two of `sleep` in libc) gets the function
 * from the symbol table only, as `perf report` without --inline, and its
 * debug sections are never decompressed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../recorder/sources/code/code-prof.h"

__attribute__((noinline)) int cs_probe_function(int x);
__attribute__((noinline)) int cs_probe_function(int x)
{
	return x * 3 + 1;
}

/* The executable mapping holding addr: start, length, file offset, path. */
static int cs_mapping(uintptr_t addr, uint64_t *start, uint64_t *len, uint64_t *pgoff,
		      char *path, size_t plen)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f)) {
		unsigned long a, b, off;
		char perm[8], p[900] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %899s", &a, &b, perm, &off, p) >= 4 &&
		    addr >= a && addr < b && perm[2] == 'x') {
			*start = a;
			*len = b - a;
			*pgoff = off;
			snprintf(path, plen, "%s", p);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* Symbolize n samples at cs_probe_function (and other samples elsewhere,
 * of a second, unmapped process's unknown object, so that the total is
 * total); returns the location of the probe. */
static void cs_run(int n, int total, mcz_code_loc *out, mcz_code *c, code_sym_out *so)
{
	uint64_t start = 0, len = 0, pgoff = 0;
	char path[900] = "";
	uintptr_t ip = (uintptr_t)&cs_probe_function + 4;
	assert_int_equal(cs_mapping(ip, &start, &len, &pgoff, path, sizeof path), 0);
	code_prof p = {0};
	p.unknown_obj = UINT32_MAX;
	assert_int_equal(code_prof_map(&p, 1, start, len, pgoff, path, NULL, 0), 0);
	code_prof_open_files(&p);
	for (int i = 0; i < n; i++)
		assert_true(code_prof_sample(&p, 1, ip, 0, i % 4) >= 0);
	for (int i = n; i < total; i++) /* an address no mapping holds */
		assert_true(code_prof_sample(&p, 2, 0x1000 + (uint64_t)i, 0, i % 4) >= 0);
	memset(c, 0, sizeof *c);
	memset(so, 0, sizeof *so);
	assert_int_equal(code_sym_run(&p, 0, 1000000, c, so), 0);
	int got = 0;
	for (size_t i = 0; i < c->nlocs && !got; i++)
		if (!strcmp(c->locs[i].function, "cs_probe_function")) {
			*out = c->locs[i];
			got = 1;
		}
	code_prof_free(&p);
	assert_true(got);
}

static void test_dwarf_where_samples_are(void **st)
{
	(void)st;
	mcz_code c;
	code_sym_out so;
	mcz_code_loc l;
	/* 60 samples: DWARF, file and line */
	cs_run(60, 60, &l, &c, &so);
	assert_int_equal(l.how, MCZ_CODE_DWARF);
	assert_non_null(strstr(l.file, "test-code-sym.c"));
	assert_true(l.line > 20 && l.line < 30);
	code_sym_free(&so);
	/* 20 samples of 1,000 (2 %): DWARF */
	cs_run(20, 1000, &l, &c, &so);
	assert_int_equal(l.how, MCZ_CODE_DWARF);
	code_sym_free(&so);
	/* 20 samples of 10,000 (0.2 %): the symbol table */
	cs_run(20, 10000, &l, &c, &so);
	assert_int_equal(l.how, MCZ_CODE_SYMTAB);
	assert_string_equal(l.file, "");
	code_sym_free(&so);
	/* 2 samples, all there are (`sleep` in libc): the symbol table */
	cs_run(2, 2, &l, &c, &so);
	assert_int_equal(l.how, MCZ_CODE_SYMTAB);
	assert_int_equal(l.line, 0);
	code_sym_free(&so);
	assert_int_equal(cs_probe_function(2), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwarf_where_samples_are),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
